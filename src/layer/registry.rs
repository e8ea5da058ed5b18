//! Where the layer finds its state for a handle: the instances and devices it recorded,
//! keyed by the loader's dispatch key.

use ash::vk::Handle;
use parking_lot::RwLock;
use std::ffi::c_void;
use std::sync::Arc;

use super::loader_abi;
use super::state::{DeviceData, InstanceData};

/// Layer state per instance and per device, keyed by dispatch key. A handful of entries at
/// most, so a vector beats hashing on the per-call lookup.
pub type Registry<T> = RwLock<Vec<(usize, Arc<T>)>>;
pub static INSTANCES: Registry<InstanceData> = RwLock::new(Vec::new());
pub static DEVICES: Registry<DeviceData> = RwLock::new(Vec::new());

pub fn key_of<H: Handle>(handle: H) -> Option<usize> {
    let raw = handle.as_raw() as usize as *const c_void;
    // SAFETY: the application passes live dispatchable handles (Vulkan's valid usage).
    (!raw.is_null()).then(|| unsafe { loader_abi::dispatch_key(raw) })
}

pub fn lookup<T>(registry: &Registry<T>, key: usize) -> Option<Arc<T>> {
    registry
        .read()
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.clone())
}

pub fn insert<T>(registry: &Registry<T>, key: usize, value: Arc<T>) {
    let mut list = registry.write();
    list.retain(|(k, _)| *k != key);
    list.push((key, value));
}

pub fn remove<T>(registry: &Registry<T>, key: usize) -> Option<Arc<T>> {
    let mut list = registry.write();
    let index = list.iter().position(|(k, _)| *k == key)?;
    let value = list.swap_remove(index).1;
    if list.is_empty() {
        // The loader unloads the layer after the last vkDestroyInstance: a buffer still
        // owned by the static then would leak with every load.
        *list = Vec::new();
    }
    Some(value)
}

/// The instance of an instance or physical-device handle (they share the dispatch key).
pub fn instance_data<H: Handle>(handle: H) -> Option<Arc<InstanceData>> {
    lookup(&INSTANCES, key_of(handle)?)
}

/// The device of a device, queue or command-buffer handle (they share the dispatch key).
pub fn device_data<H: Handle>(handle: H) -> Option<Arc<DeviceData>> {
    lookup(&DEVICES, key_of(handle)?)
}

/// Runs `f` on the device under the registry's read lock, without touching the `Arc`'s
/// count: for hot paths that only copy a function pointer or read an atomic out.
#[inline]
pub fn with_device<H: Handle, R>(handle: H, f: impl FnOnce(&DeviceData) -> R) -> Option<R> {
    let key = key_of(handle)?;
    let list = DEVICES.read();
    list.iter().find(|(k, _)| *k == key).map(|(_, d)| f(d))
}

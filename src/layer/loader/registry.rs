//! Where the layer finds its state for a handle: the instances and devices it recorded,
//! keyed by the loader's dispatch key.

use ash::vk::Handle;
use parking_lot::RwLock;
use std::ffi::c_void;
use std::sync::Arc;

use crate::layer::loader::state::{DeviceData, InstanceData};
use crate::layer::support::loader_abi;

/// Layer state per instance and per device, keyed by dispatch key. A handful of entries at
/// most, so a vector beats hashing on the per-call lookup.
pub type Registry<T> = RwLock<Vec<(usize, Arc<T>)>>;
pub static INSTANCES: Registry<InstanceData> = RwLock::new(Vec::new());
pub static DEVICES: Registry<DeviceData> = RwLock::new(Vec::new());

/// A dispatchable handle (instance, physical device, device, queue, command buffer) that an
/// application passed to a hook, where Vulkan's valid usage makes it null or live: the proof
/// that reading the loader's dispatch word through it is sound. Made only at the hook
/// boundary, so that the safe lookups and frames below cannot be handed a forged handle.
#[derive(Clone, Copy)]
pub struct Dispatchable<H>(H);

impl<H: Handle + Copy> Dispatchable<H> {
    /// # Safety
    /// `handle` is null or a live dispatchable handle (Vulkan's valid usage of a command's
    /// handles, which the hook receiving it may assume).
    #[inline]
    pub unsafe fn new(handle: H) -> Self {
        Self(handle)
    }

    /// The handle itself: a records key, or the argument of a call down.
    #[inline]
    pub fn handle(self) -> H {
        self.0
    }
}

pub fn key_of<H: Handle + Copy>(handle: Dispatchable<H>) -> Option<usize> {
    let raw = handle.handle().as_raw() as usize as *const c_void;
    // SAFETY: a `Dispatchable` is null or live (its constructor's contract); null is
    // filtered out here.
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
pub fn instance_data<H: Handle + Copy>(handle: Dispatchable<H>) -> Option<Arc<InstanceData>> {
    lookup(&INSTANCES, key_of(handle)?)
}

/// The device of a device, queue or command-buffer handle (they share the dispatch key).
pub fn device_data<H: Handle + Copy>(handle: Dispatchable<H>) -> Option<Arc<DeviceData>> {
    lookup(&DEVICES, key_of(handle)?)
}

/// The module records of every live device (a debug counter).
pub fn module_records() -> usize {
    let devices = DEVICES.read();
    devices
        .iter()
        .map(|(_, dev)| dev.records.modules.read().len())
        .sum()
}

/// Runs `f`, one command of the device of `handle`, on the device's data, without counting
/// a reference to it and without holding the registry's lock while it runs (the driver's
/// part of the command may take long): the frames of the device-level and recording hooks.
///
/// Sound because the data is dropped only by `vkDestroyDevice`, which Vulkan's valid usage
/// forbids to run while another command of the device, its queues or its command buffers
/// runs (its host access to `device` must be externally synchronized, and every child
/// object is gone by then); the registry's `Arc` keeps the data in place while other
/// devices come and go. Counting a reference cost two atomic read-modify-writes on every
/// call (issue 45).
#[inline]
pub fn in_device_call<H: Handle + Copy, R>(
    handle: Dispatchable<H>,
    f: impl FnOnce(&DeviceData) -> R,
) -> Option<R> {
    let key = key_of(handle)?;
    let data = {
        let list = DEVICES.read();
        Arc::as_ptr(&list.iter().find(|(k, _)| *k == key)?.1)
    };
    // SAFETY: the registry's `Arc` held the data a moment ago, and only `vkDestroyDevice`,
    // which cannot run during this command (above), drops it.
    Some(f(unsafe { &*data }))
}

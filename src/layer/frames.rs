//! The frames every hook runs in: a panic never crosses FFI ([`ffi_guard`]), the layer's own
//! work is shielded so that a failure there leaves the application's call untouched
//! ([`shield`]), and the shapes of the hooks that call down with the device's table
//! ([`call_with_next`], [`create_recorded`], [`forget_then_call_down`] and the macros that
//! write a hook's signature around them).

use ash::vk::{self, Handle};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use super::dispatch::DeviceDispatch;
use super::log;
use super::registry::device_data;
use super::settings::Settings;
use super::state::DeviceData;

/// A `vkDestroy*` hook for objects the layer records: `forget` drops the record (with
/// `device` and the handle in scope), then the call goes down through the table's entry of
/// the hook's own name ([`forget_then_call_down`]).
macro_rules! destroy_hook {
    ($(#[$doc:meta])* $what:literal, $hook:ident($handle:ident: $ty:ty), |$dev:ident| $forget:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Vulkan's valid usage for the command.
        pub unsafe extern "system" fn $hook(
            device: ash::vk::Device,
            $handle: $ty,
            p_allocator: *const ash::vk::AllocationCallbacks<'_>,
        ) {
            $crate::layer::frames::forget_then_call_down(
                $what,
                device,
                |$dev| $forget,
                |t| {
                    if let Some(destroy) = t.$hook {
                        // SAFETY: the application's arguments, passed on unchanged.
                        unsafe { destroy(device, $handle, p_allocator) };
                    }
                },
            )
        }
    };
}
pub(crate) use destroy_hook;

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Runs the layer's own work for `what`; a panic is logged and turns into `None`, so that
/// the caller goes on with the application's call untouched.
pub fn shield<T>(what: &str, f: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => Some(value),
        Err(payload) => {
            log::error!(
                "internal error in {what}: {}; passing the call through untouched",
                panic_message(&*payload)
            );
            None
        }
    }
}

/// The outermost guard of every exported function: no panic crosses the FFI boundary.
/// `on_panic` is what the application gets when even calling down failed.
pub fn ffi_guard<T>(what: &str, on_panic: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) => {
            log::error!("internal error in {what}: {}", panic_message(&*payload));
            on_panic
        }
    }
}

/// What a hook returns when it cannot even call down (unknown handle, missing command).
pub fn unknown_handle(what: &str) -> vk::Result {
    log::error!("{what}: handle unknown to the layer or command missing below it");
    vk::Result::ERROR_UNKNOWN
}

/// The frame of a device-level hook that returns a `VkResult`: the FFI guard, the device of
/// `handle` and the next layer's command that `next` picks from its table (a logged
/// `VK_ERROR_UNKNOWN` when either is missing: there is nothing to call down to), then `body`.
pub fn call_with_next<H: Handle, F>(
    what: &str,
    handle: H,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    body: impl FnOnce(&Arc<DeviceData>, F) -> vk::Result,
) -> vk::Result {
    ffi_guard(what, vk::Result::ERROR_UNKNOWN, || {
        let Some(dev) = device_data(handle) else {
            return unknown_handle(what);
        };
        let Some(next) = next(&dev.table) else {
            return unknown_handle(what);
        };
        body(&dev, next)
    })
}

/// The frame of a hook that ends the life of objects the layer records: `forget` drops the
/// records first (the driver may hand a handle out again as soon as it has it back), then
/// `call_down` passes the call on. An unknown device has no table to call down through.
pub fn forget_then_call_down<H: Handle>(
    what: &str,
    handle: H,
    forget: impl FnOnce(&DeviceData),
    call_down: impl FnOnce(&DeviceDispatch),
) {
    ffi_guard(what, (), || {
        let Some(dev) = device_data(handle) else {
            return;
        };
        shield(what, || forget(&dev));
        call_down(&dev.table);
    })
}

/// The frame of a hook that creates an object the layer records: `prepare` reads the create
/// info (shielded: a failure there only costs the record), `call_down` creates the object
/// (through a create info patched with what `prepare` found, where the layer patches one),
/// and `record` keeps what `prepare` found once the driver succeeded.
pub fn create_recorded<P, F>(
    what: &str,
    device: vk::Device,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    prepare: impl FnOnce(&DeviceData) -> P,
    call_down: impl FnOnce(F, Option<&P>) -> vk::Result,
    record: impl FnOnce(&DeviceData, P),
) -> vk::Result {
    call_with_next(what, device, next, |dev, next| {
        let prepared = shield(what, || {
            maybe_inject_panic(&dev.settings, what);
            prepare(dev)
        });
        let result = call_down(next, prepared.as_ref());
        if result == vk::Result::SUCCESS {
            if let Some(prepared) = prepared {
                record(dev, prepared);
            }
        }
        result
    })
}

/// The test-only `debug_inject_panic` setting (comma-separated entry point names): panics
/// inside the named entry points.
pub fn maybe_inject_panic(settings: &Settings, entry_point: &str) {
    let Some(names) = &settings.debug_inject_panic else {
        return;
    };
    if names.split(',').any(|n| n.trim() == entry_point) {
        panic!("injected panic in {entry_point} (debug_inject_panic)");
    }
}

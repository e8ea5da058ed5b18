//! The frames every hook runs in: a panic never crosses FFI ([`ffi_guard`]), the layer's own
//! work is shielded so that a failure there leaves the application's call untouched
//! ([`shield`]), and the shapes of the hooks that call down with the device's table
//! ([`call_with_next`], [`create_recorded`], [`forget_then_call_down`] and the macros that
//! write a hook's signature around them). The frames take the hook's handle as a
//! [`Dispatchable`], which the macros make at the hook boundary.

use ash::vk::{self, Handle};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::layer::loader::dispatch::DeviceDispatch;
use crate::layer::loader::registry::{self, in_device_call, key_of, Dispatchable, Registry};
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;
use crate::layer::support::settings::Settings;

/// A hook that runs in one of this file's frames ([`call_with_next`], [`create_recorded`],
/// [`forget_then_call_down`]): writes the hook's doc with the `# Safety` line every hook
/// shares and its `extern "system"` signature once, and calls
/// `frame("vkName", first argument as a Dispatchable, its table entry, steps…)`; the steps
/// see the application's arguments as they came. The table entry is the
/// field of the hook's own name, or the one named in brackets after it. Signatures have no
/// trailing comma.
///
/// ```ignore
/// hook! {
///     /// `vkBeginCommandBuffer`: back to GL's initial state.
///     "vkBeginCommandBuffer" in call_with_next,
///     fn begin_command_buffer(cb: vk::CommandBuffer, info: *const vk::CommandBufferBeginInfo<'_>)
///         -> vk::Result => |dev, next| { … }
/// }
/// ```
macro_rules! hook {
    (@entry $hook:ident) => {
        |t: &$crate::layer::loader::dispatch::DeviceDispatch| t.$hook
    };
    (@entry $hook:ident $field:ident) => {
        |t: &$crate::layer::loader::dispatch::DeviceDispatch| t.$field
    };
    (
        $(#[$doc:meta])*
        $what:literal in $frame:ident,
        fn $hook:ident $([$field:ident])? (
            $handle:ident: $handle_ty:ty $(, $arg:ident: $arg_ty:ty)*
        ) $(-> $ret:ty)? => $($step:expr),+ $(,)?
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Vulkan's valid usage for the command.
        pub unsafe extern "system" fn $hook($handle: $handle_ty $(, $arg: $arg_ty)*) $(-> $ret)? {
            $crate::layer::loader::frames::$frame(
                $what,
                // SAFETY: the application's handle, null or live by Vulkan's valid usage for
                // the command (this hook's contract).
                unsafe { $crate::layer::loader::registry::Dispatchable::new($handle) },
                $crate::layer::loader::frames::hook!(@entry $hook $($field)?),
                $($step),+
            )
        }
    };
}
pub(crate) use hook;

/// A `vkCreate*` hook for objects the layer records (`vkCreateX(device, pCreateInfo,
/// pAllocator, pX)`), in [`create_recorded`]'s frame: `prepare` reads the create info,
/// `record` keeps what it found once the driver succeeded. Without a `call_down` step the
/// application's arguments go down unchanged.
macro_rules! create_hook {
    (
        $(#[$doc:meta])*
        $what:literal,
        fn $hook:ident(
            $device:ident, $info:ident: $info_ty:ty, $allocator:ident, $out:ident: $handle_ty:ty
        ),
        prepare: $prepare:expr,
        $(call_down: $call_down:expr,)?
        record: $record:expr $(,)?
    ) => {
        $crate::layer::loader::frames::hook! {
            $(#[$doc])*
            $what in create_recorded,
            fn $hook(
                $device: ash::vk::Device,
                $info: *const $info_ty,
                $allocator: *const ash::vk::AllocationCallbacks<'_>,
                $out: *mut $handle_ty
            ) -> ash::vk::Result =>
                $prepare,
                $crate::layer::loader::frames::create_hook!(
                    @call_down $device, $info, $allocator, $out $(, $call_down)?
                ),
                $record
        }
    };
    (@call_down $device:ident, $info:ident, $allocator:ident, $out:ident) => {
        // SAFETY: the next layer's `vkCreate*` with the arguments the application gave this
        // hook, which Vulkan's valid usage for the command (this hook's contract) makes
        // valid for it as they were for the hook.
        |next, _| unsafe { next($device, $info, $allocator, $out) }
    };
    (@call_down $device:ident, $info:ident, $allocator:ident, $out:ident, $call_down:expr) => {
        $call_down
    };
}
pub(crate) use create_hook;

/// A `vkDestroy*` hook for objects the layer records: `forget` drops the record (with
/// `device` and the handle in scope), then the call goes down through the table's entry of
/// the hook's own name, or the one in brackets after it ([`forget_then_call_down`]).
macro_rules! destroy_hook {
    (
        $(#[$doc:meta])*
        $what:literal, $hook:ident $([$field:ident])? ($handle:ident: $ty:ty), |$dev:ident| $forget:expr
    ) => {
        $crate::layer::loader::frames::hook! {
            $(#[$doc])*
            $what in forget_then_call_down,
            fn $hook $([$field])? (
                device: ash::vk::Device,
                $handle: $ty,
                p_allocator: *const ash::vk::AllocationCallbacks<'_>
            ) => |$dev| $forget,
            // SAFETY: the next layer's `vkDestroy*` with the arguments the application gave
            // this hook, which Vulkan's valid usage for the command (this hook's contract)
            // makes valid for it as they were for the hook.
            |destroy| unsafe { destroy(device, $handle, p_allocator) }
        }
    };
}
pub(crate) use destroy_hook;

/// The `vkDestroyInstance` or `vkDestroyDevice` hook, in [`destroy_registered`]'s frame:
/// `forget` cleans up what the layer made for the object, then the call goes down through
/// the table entry `next` reads, where the table has it.
macro_rules! destroy_registered_hook {
    (
        $(#[$doc:meta])*
        $what:literal,
        fn $hook:ident($handle:ident: $handle_ty:ty),
        $registry:expr,
        forget: $forget:expr,
        next: |$data:ident| $next:expr $(,)?
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Vulkan's valid usage for the command.
        pub unsafe extern "system" fn $hook(
            $handle: $handle_ty,
            p_allocator: *const ash::vk::AllocationCallbacks<'_>,
        ) {
            $crate::layer::loader::frames::destroy_registered(
                $what,
                $registry,
                // SAFETY: the application's handle, null or live by Vulkan's valid usage for
                // the command (this hook's contract).
                unsafe { $crate::layer::loader::registry::Dispatchable::new($handle) },
                $forget,
                |$data| {
                    if let Some(destroy) = $next {
                        // SAFETY: the next layer's `vkDestroy*` with the arguments the
                        // application gave this hook, which Vulkan's valid usage for the
                        // command (this hook's contract) makes valid for it as they were for
                        // the hook.
                        unsafe { destroy($handle, p_allocator) };
                    }
                },
            )
        }
    };
}
pub(crate) use destroy_registered_hook;

/// A hook recording into a command buffer (no result), in [`record_with_next`]'s frame:
/// writes the hook's doc with the `# Safety` line every hook shares and its `extern
/// "system"` signature once, and reads the table entry of the hook's own name (or the one
/// in brackets after it) with what `read` takes off the device (`()` without it). The body
/// sees the command buffer as a [`Dispatchable`] (`.handle()` for the call down). Then
/// either `then` runs after the application's arguments went down unchanged, or
/// `calls_down` runs with the next layer's command, which it calls itself (it changes an
/// argument, or does not always call down).
///
/// ```ignore
/// command_hook! {
///     /// `vkCmdDraw`: a line loop's closing segment after it.
///     "vkCmdDraw",
///     fn cmd_draw(cb, vertex_count: u32, …),
///     read |d| loops(d),
///     then |loops| { … }
/// }
/// ```
macro_rules! command_hook {
    (
        $(#[$doc:meta])*
        $what:literal,
        fn $hook:ident $([$field:ident])? ($cb:ident $(, $arg:ident: $ty:ty)* $(,)?),
        $(read |$dev:ident| $read:expr,)?
        then |$seen:pat_param| $then:expr $(,)?
    ) => {
        $crate::layer::loader::frames::command_hook! {
            $(#[$doc])*
            $what,
            fn $hook $([$field])? ($cb $(, $arg: $ty)*),
            $(read |$dev| $read,)?
            calls_down |next, $seen| {
                // SAFETY: the next layer's command of this hook, with the arguments the
                // application gave the hook: Vulkan's valid usage for the command (this
                // hook's contract) makes them valid for it as they were for the hook.
                unsafe { next($cb.handle() $(, $arg)*) };
                $then
            }
        }
    };
    (
        $(#[$doc:meta])*
        $what:literal,
        fn $hook:ident $([$field:ident])? ($cb:ident $(, $arg:ident: $ty:ty)* $(,)?),
        $(read |$dev:ident| $read:expr,)?
        calls_down |$next:ident, $seen:pat_param| $body:expr $(,)?
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Vulkan's valid usage for the command.
        pub unsafe extern "system" fn $hook($cb: ash::vk::CommandBuffer $(, $arg: $ty)*) {
            // SAFETY: the application's command buffer, null or live by Vulkan's valid usage
            // for the command (this hook's contract). The body sees only this proof.
            let $cb = unsafe { $crate::layer::loader::registry::Dispatchable::new($cb) };
            $crate::layer::loader::frames::record_with_next(
                $what,
                $cb,
                |d| {
                    (
                        $crate::layer::loader::frames::command_hook!(@entry d $hook $($field)?),
                        $crate::layer::loader::frames::command_hook!(@read d $(, $dev, $read)?),
                    )
                },
                |$next, $seen| $body,
            )
        }
    };
    (@entry $d:ident $hook:ident) => {
        $d.table.$hook
    };
    (@entry $d:ident $hook:ident $field:ident) => {
        $d.table.$field
    };
    (@read $d:ident) => {
        ()
    };
    (@read $d:ident, $dev:ident, $read:expr) => {{
        let $dev = $d;
        $read
    }};
}
pub(crate) use command_hook;

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
pub fn call_with_next<H: Handle + Copy, F>(
    what: &str,
    handle: Dispatchable<H>,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    body: impl FnOnce(&DeviceData, F) -> vk::Result,
) -> vk::Result {
    ffi_guard(what, vk::Result::ERROR_UNKNOWN, || {
        in_device_call(handle, |dev| match next(&dev.table) {
            Some(next) => body(dev, next),
            None => unknown_handle(what),
        })
        .unwrap_or_else(|| unknown_handle(what))
    })
}

/// The frame of a hook recording into a command buffer ([`command_hook!`]): the FFI
/// guard, then one read of the command buffer's device, without reference counting
/// (recording is the hot path), for the next layer's command that `read` picks from the
/// table and what else the hook needs of the device, then `body` with both. An unknown
/// command buffer, or a command missing below, has nothing to call down to.
pub fn record_with_next<F, T>(
    what: &str,
    command_buffer: Dispatchable<vk::CommandBuffer>,
    read: impl FnOnce(&DeviceData) -> (Option<F>, T),
    body: impl FnOnce(F, T),
) {
    ffi_guard(what, (), || {
        if let Some((Some(next), seen)) = in_device_call(command_buffer, read) {
            body(next, seen)
        }
    })
}

/// The frame of a hook that ends the life of objects the layer records: `forget` drops the
/// records first (the driver may hand a handle out again as soon as it has it back), then
/// `call_down` passes the call on to the next layer's command that `next` picks from the
/// table. An unknown device has no table to call down through.
pub fn forget_then_call_down<H: Handle + Copy, F>(
    what: &str,
    handle: Dispatchable<H>,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    forget: impl FnOnce(&DeviceData),
    call_down: impl FnOnce(F),
) {
    ffi_guard(what, (), || {
        in_device_call(handle, |dev| {
            shield(what, || forget(dev));
            if let Some(next) = next(&dev.table) {
                call_down(next);
            }
        });
    })
}

/// The frame of `vkDestroyInstance` and `vkDestroyDevice`: the object's state leaves
/// `registry` (its key is read before the driver frees the handle), `forget` cleans up what
/// the layer made for it (shielded), then `call_down` passes the call on through the
/// object's own table. An unknown handle has no table to call down through.
pub fn destroy_registered<H: Handle + Copy, T>(
    what: &str,
    registry: &Registry<T>,
    handle: Dispatchable<H>,
    forget: impl FnOnce(&T),
    call_down: impl FnOnce(&T),
) {
    ffi_guard(what, (), || {
        let Some(data) = key_of(handle).and_then(|key| registry::remove(registry, key)) else {
            return;
        };
        shield(what, || forget(&data));
        call_down(&data);
    })
}

/// The frame of a hook that creates an object the layer records: `prepare` reads the create
/// info (shielded: a failure there only costs the record), `call_down` creates the object
/// (through a create info patched with what `prepare` found, where the layer patches one),
/// and `record` keeps what `prepare` found once the driver succeeded.
pub fn create_recorded<P, F>(
    what: &str,
    device: Dispatchable<vk::Device>,
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
/// inside the named entry points. Inlined to one test of the setting on every hook's path;
/// the names are compared only when the setting is on.
#[inline]
pub fn maybe_inject_panic(settings: &Settings, entry_point: &str) {
    if let Some(names) = &settings.debug_inject_panic {
        inject_panic(names, entry_point);
    }
}

#[cold]
#[inline(never)]
fn inject_panic(names: &str, entry_point: &str) {
    if names.split(',').any(|n| n.trim() == entry_point) {
        panic!("injected panic in {entry_point} (debug_inject_panic)");
    }
}

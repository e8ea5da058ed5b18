#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
//! The Vulkan layer: what the loader calls (`vkNegotiateLoaderLayerInterfaceVersion`,
//! `vkGet*ProcAddr`, exported by `src/lib.rs` as thin wrappers of the functions here). This
//! file only declares the folders and those entry points; no module uses it. Each folder
//! uses only the ones below it (docs/architecture.md lists the files):
//!
//! - `devices`: instance and device creation;
//! - `pipelines`: `vkCreateGraphicsPipelines` (one decision per create info), shader objects;
//! - `rules`: the layer side of each GL rule (`LayerStep`), one file per rule;
//! - `rewrite`: the mechanics of a rewrite (`Run`, `Patched`), naming no rule;
//! - `commands`: command buffers and draws (GL state pushed at bind, followed dynamic
//!   state, current attributes, line loops);
//! - `objects`: the application's objects: create-info views, the key, records of modules,
//!   layouts, render passes;
//! - `loader`: the one interception table, per-device state, its registry, the hook frames
//!   (a panic never crosses FFI);
//! - `data`: what is remembered per device; `support`: leaves and typed errors.

mod commands;
pub mod data;
mod devices;
mod loader;
pub mod objects;
mod pipelines;
mod rewrite;
mod rules;
pub mod support;

// The hook paths of `dispatch`'s lists (`device::create_device`) resolve here.
use commands::draws::{converted_draws, gl_primitives, hooks};
use commands::{bind_pipeline, command_state, followed_state, lines, render_targets};
pub use data::records;
use devices::{device, instance};
use loader::{dispatch, frames};
use objects::{layouts, modules, render_passes};
use pipelines::{planner, shader_object};
use rules::unfed_inputs;
pub use support::{loader_abi, log, settings};

use ash::vk::{self, Handle};
use std::ffi::{c_char, CStr};

use dispatch::{as_void_fn, hook_lookup, layer_command_lookup, DeviceDispatch, InstanceDispatch};
use dispatch::{device_commands, instance_commands, layer_command_list};
/// `lib.rs` guards the loader's negotiation with it too.
pub use frames::ffi_guard;
use loader::registry::{device_data, instance_data, Dispatchable};

/// The layer's live-record and rewrite counters (`glsemGetDebugCounters`).
pub fn debug_counters() -> records::DebugCounters {
    records::debug_counters(loader::registry::module_records())
}

// The lookups by name of `dispatch`'s lists: their hook paths resolve here, beside the
// modules that define the hooks.
instance_commands!(hook_lookup);
device_commands!(hook_lookup);
layer_command_list!(layer_command_lookup);

/// The frame of `vkGet*ProcAddr` `what`: the FFI guard, then `find` with the handle as a
/// [`Dispatchable`] and the name's bytes (a NULL name finds nothing).
///
/// # Safety
/// Vulkan's valid usage for `what`: `handle` is null or live, and `p_name` NULL or a
/// nul-terminated string that outlives the call.
unsafe fn look_up<H: Handle + Copy>(
    what: &str,
    handle: H,
    p_name: *const c_char,
    find: impl FnOnce(Dispatchable<H>, &[u8]) -> vk::PFN_vkVoidFunction,
) -> vk::PFN_vkVoidFunction {
    if p_name.is_null() {
        return None;
    }
    // SAFETY: a non-NULL `p_name` is nul-terminated and outlives the call (this function's
    // contract).
    let name = unsafe { CStr::from_ptr(p_name) };
    // SAFETY: null or live (this function's contract).
    let handle = unsafe { Dispatchable::new(handle) };
    ffi_guard(what, None, || find(handle, name.to_bytes()))
}

/// `vkGetInstanceProcAddr` of this layer.
///
/// # Safety
/// Vulkan's valid usage for `vkGetInstanceProcAddr`.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let find = |instance: Dispatchable<vk::Instance>, name: &[u8]| {
        match name {
            b"vkGetInstanceProcAddr" => {
                return as_void_fn!(vk::PFN_vkGetInstanceProcAddr, get_instance_proc_addr)
            }
            b"vkGetDeviceProcAddr" => {
                return as_void_fn!(vk::PFN_vkGetDeviceProcAddr, get_device_proc_addr)
            }
            b"vkCreateInstance" => {
                return as_void_fn!(vk::PFN_vkCreateInstance, instance::create_instance)
            }
            _ => {}
        }
        let inst = instance_data(instance)?;
        if let Some((command, _)) = layer_command(name) {
            return Some(command);
        }
        if let Some((hook, available)) = instance_hook(name) {
            return available(&inst.table).then_some(hook);
        }
        // SAFETY: the next layer's `vkGetInstanceProcAddr` with the arguments the
        // application gave this hook, which Vulkan's valid usage for the command (this
        // hook's contract) makes valid for it as they were for the hook.
        let next = unsafe { (inst.next_gipa)(instance.handle(), p_name) };
        match device_hook(name) {
            Some((hook, _)) => next.map(|_| hook),
            None => next,
        }
    };
    // SAFETY: the application's arguments, valid by Vulkan's valid usage for the command
    // (this hook's contract).
    unsafe { look_up("vkGetInstanceProcAddr", instance, p_name, find) }
}

/// `vkGetDeviceProcAddr` of this layer.
///
/// # Safety
/// Vulkan's valid usage for `vkGetDeviceProcAddr`.
pub unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let find = |device: Dispatchable<vk::Device>, name: &[u8]| {
        if name == b"vkGetDeviceProcAddr" {
            return as_void_fn!(vk::PFN_vkGetDeviceProcAddr, get_device_proc_addr);
        }
        let dev = device_data(device)?;
        if let Some((command, extension)) = layer_command(name) {
            if !dev.extensions.has(extension) {
                log::warning!(
                    "vkGetDeviceProcAddr({}): the device did not enable {}; returning NULL",
                    String::from_utf8_lossy(name),
                    extension.name()
                );
                return None;
            }
            return Some(command);
        }
        let gl_state_only = dispatch::GL_STATE_HOOKS.contains(&name);
        if let Some((hook, available)) = device_hook(name) {
            if !gl_state_only || dev.extensions.gl_state {
                return available(&dev.table).then_some(hook);
            }
        }
        // SAFETY: the next layer's `vkGetDeviceProcAddr` with the arguments the application
        // gave this hook, which Vulkan's valid usage for the command (this hook's contract)
        // makes valid for it as they were for the hook.
        unsafe { (dev.next_gdpa)(device.handle(), p_name) }
    };
    // SAFETY: the application's arguments, valid by Vulkan's valid usage for the command
    // (this hook's contract).
    unsafe { look_up("vkGetDeviceProcAddr", device, p_name, find) }
}

/// `vkNegotiateLoaderLayerInterfaceVersion`: interface version 2.
///
/// # Safety
/// `p_version_struct` is the loader's negotiation struct.
pub unsafe fn negotiate_loader_layer_interface_version(
    p_version_struct: *mut loader_abi::NegotiateLayerInterface,
) -> vk::Result {
    // SAFETY: the loader passes its negotiation struct (the caller's contract).
    let Some(v) = (unsafe { p_version_struct.as_mut() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    if v.s_type != loader_abi::LAYER_NEGOTIATE_INTERFACE_STRUCT
        || v.loader_layer_interface_version < loader_abi::LAYER_INTERFACE_VERSION
    {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    v.loader_layer_interface_version = loader_abi::LAYER_INTERFACE_VERSION;
    v.pfn_get_instance_proc_addr = Some(get_instance_proc_addr);
    v.pfn_get_device_proc_addr = Some(get_device_proc_addr);
    v.pfn_get_physical_device_proc_addr = None;
    vk::Result::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::data::extensions::LayerExtension;
    use super::layer_command;

    #[test]
    fn the_table_hands_out_every_command_of_its_extension() {
        for ext in LayerExtension::ALL {
            for command in ext.abi().commands {
                let found = layer_command(command.as_bytes()).map(|(_, e)| e);
                assert_eq!(found, Some(ext), "{command}");
            }
        }
        assert!(layer_command(b"vkCmdSetSomethingElseGLSEM").is_none());
    }
}

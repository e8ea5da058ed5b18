//! glsem: a Vulkan layer that gives Vulkan pipelines OpenGL semantics.
//!
//! [`glsem_spirv`] (a crate of its own, no Vulkan types) holds the SPIR-V passes and
//! `semantics`, the registry of GL semantics and the pure choice of rewrites per pipeline;
//! [`glsem_abi`] the layer's names, extensions and command types; [`layer`] the Vulkan side.
//! This file holds the symbols the Vulkan loader looks up in `libVkLayer_glsem.so`.
#![allow(non_snake_case)]

pub mod layer;

use ash::vk;
use std::ffi::c_char;

/// Loader-layer interface negotiation (version 2).
///
/// # Safety
/// Called by the Vulkan loader with its negotiation struct.
#[no_mangle]
pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
    p_version_struct: *mut layer::loader_abi::NegotiateLayerInterface,
) -> vk::Result {
    layer::ffi_guard(
        "vkNegotiateLoaderLayerInterfaceVersion",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || layer::negotiate_loader_layer_interface_version(p_version_struct),
    )
}

// The loader's entry points are thin exported wrappers, not the layer's functions
// exported under these names: the layer hands out its own functions' addresses
// (`vkGetInstanceProcAddr` for "vkGetInstanceProcAddr"), and the address of an exported
// symbol may bind to an earlier definition in the process — the loader's, in an
// application linked with `-lvulkan` — which sends the chain back to the loader's
// trampoline (a deadlock in `vkCreateInstance`; `tests/c_api.rs`).

/// A thin exported wrapper of the layer's `vkGet*ProcAddr` `$layer` (the comment above says
/// why not the layer's function itself).
macro_rules! exported_proc_addr {
    ($(#[$doc:meta])* fn $export:ident($handle:ident: $handle_ty:ty) => $layer:path) => {
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "system" fn $export(
            $handle: $handle_ty,
            p_name: *const c_char,
        ) -> vk::PFN_vkVoidFunction {
            $layer($handle, p_name)
        }
    };
}

exported_proc_addr! {
    /// `vkGetInstanceProcAddr`, looked up by the loader.
    ///
    /// # Safety
    /// Vulkan's valid usage for `vkGetInstanceProcAddr`.
    fn vkGetInstanceProcAddr(instance: vk::Instance) => layer::get_instance_proc_addr
}

exported_proc_addr! {
    /// `vkGetDeviceProcAddr`, looked up by the loader.
    ///
    /// # Safety
    /// Vulkan's valid usage for `vkGetDeviceProcAddr`.
    fn vkGetDeviceProcAddr(device: vk::Device) => layer::get_device_proc_addr
}

/// Test hook: the layer's live-record and rewrite counters (see
/// [`layer::records::DebugCounters`]). Not part of the layer's API.
///
/// # Safety
/// `out` must point to a writable `DebugCounters`.
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn glsemGetDebugCounters(out: *mut layer::records::DebugCounters) {
    if let Some(out) = out.as_mut() {
        *out = layer::debug_counters();
    }
}

//! glsem: a Vulkan layer that gives Vulkan pipelines OpenGL semantics.
//!
//! [`spirv`] holds the SPIR-V passes (no Vulkan types); [`semantics`] the registry of GL
//! semantics and the pure choice of rewrites per pipeline; [`layer`] the Vulkan side. The
//! Vulkan loader looks up `vkNegotiateLoaderLayerInterfaceVersion` (here) and
//! `vkGetInstanceProcAddr`/`vkGetDeviceProcAddr` (exported under those names by [`layer`])
//! in `libVkLayer_glsem.so`.
#![allow(non_snake_case)]

pub mod abi;
pub mod layer;
pub mod semantics;
pub mod spirv;

use ash::vk;

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

/// Test hook: the layer's live-record and rewrite counters (see
/// [`layer::records::DebugCounters`]). Not part of the layer's API.
///
/// # Safety
/// `out` must point to a writable `DebugCounters`.
#[doc(hidden)]
#[no_mangle]
pub unsafe extern "C" fn glsemGetDebugCounters(out: *mut layer::records::DebugCounters) {
    if let Some(out) = out.as_mut() {
        *out = layer::records::debug_counters();
    }
}

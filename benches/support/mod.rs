//! What the benchmark binary needs besides the figures: SPIR-V inputs, a Vulkan device
//! with and one without the layer, medians, and an allocation counter.

pub mod alloc;
pub mod gpu;
pub mod shaders;
/// glslang and SPIRV-Tools, as the integration tests run them.
#[path = "../../tests/support/spirv_tools.rs"]
pub mod spirv_tools;
pub mod timing;
/// The Vulkan harness the integration tests use too.
#[path = "../../tests/support/vulkan.rs"]
pub mod vulkan;

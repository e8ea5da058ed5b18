//! What the benchmark binary needs besides the figures: SPIR-V inputs, a Vulkan device
//! with and one without the layer, medians, and an allocation counter.

pub mod alloc;
pub mod gpu;
pub mod shaders;
pub mod timing;

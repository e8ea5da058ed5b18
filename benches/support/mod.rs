//! What the benchmark binary needs besides the figures: SPIR-V inputs, a Vulkan device
//! with and one without the layer, and medians.

pub mod gpu;
pub mod shaders;
pub mod timing;

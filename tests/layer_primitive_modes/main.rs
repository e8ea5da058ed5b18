//! GL's primitive modes through the real loader (`VkPipelinePrimitiveModeCreateInfoGLSEM`),
//! in a binary of their own: NVIDIA's driver (580) refuses `vkCreateInstance` after some
//! dozens of instances in one process (`tests/layer_features/main.rs`).

#[path = "../support/mod.rs"]
mod support;

mod converted_draws;
mod index_route;
mod primitive_modes;

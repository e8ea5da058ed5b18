//! GL's state and conventions through the real loader (`VK_GLSEM_gl_state`, lines, current
//! vertex attributes, dynamic patch sizes, shader objects).
//!
//! A module per topic, each test under `serial()` (the layer's counters are process-wide).
//! The loader tests are split over a few binaries rather than one: NVIDIA's driver (580)
//! refuses `vkCreateInstance` (`VK_ERROR_INCOMPATIBLE_DRIVER`) after some dozens of
//! instances and devices in one process. Tests that set the process environment keep
//! binaries of their own (`tests/layer_*.rs`, `tests/reliability_ffi.rs`).

#[path = "../support/mod.rs"]
mod support;

mod dynamic_patch;
mod dynamic_state;
mod gl_state;
mod lines;
mod shader_objects;
mod vertex_attrib;

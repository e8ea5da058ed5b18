//! The layer through the real Vulkan loader, lavapipe (or the driver `VK_DRIVER_FILES`
//! names) and the Khronos validation layer: one test binary, a module per topic, so that the
//! harness in `tests/common` is compiled once (`cargo test --test layer`; `cargo test --test
//! layer lines::` runs one topic). Every test holds `serial()`: the layer's counters are
//! process-wide. Tests that set the process environment (`debug_inject_panic`, settings read
//! at vkCreateInstance) keep binaries of their own (`tests/layer_*.rs`, `tests/reliability_ffi.rs`).

#[path = "../common/mod.rs"]
mod common;

mod driver_errors;
mod dynamic_patch;
mod gl_state;
mod libraries;
mod lines;
mod loader;
mod malformed;
mod passthrough;
mod records;
mod shader_objects;
mod threads;
mod vertex_attrib;

//! The SPIR-V passes on their own, without Vulkan: modules compiled by glslang or assembled
//! by spirv-as from `tests/spirv/<topic>/`, rewritten, checked with spirv-val and against
//! the GL rule each pass implements. One test binary, a module per topic, so that the
//! library and the helpers are linked once (`cargo test --test passes`; `cargo test --test
//! passes fragcolor::` runs one topic).

#[path = "../support/spirv_tools.rs"]
mod spirv_tools;

mod fragcolor;
mod gl_layer;
mod gl_state;
mod inspect;
mod instance_id;
mod layer_shaders;
mod line_fragment;
mod location_bound;
mod passthrough_tcs;
mod primitive_mode;
mod sample_mask;
mod unfed_inputs;
mod vertex_formats;
mod window_origin;
mod xfb_split;

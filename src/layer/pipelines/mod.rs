pub(crate) mod library_inputs;
pub(crate) mod planner;
pub(crate) mod shader_object;
mod untouched;
pub(crate) mod vertex_input_variants;

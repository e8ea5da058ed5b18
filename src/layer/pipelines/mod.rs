pub(crate) mod library_inputs;
pub(crate) mod patched;
pub(crate) mod planner;
pub(crate) mod rewrite;
pub(crate) mod shader_object;

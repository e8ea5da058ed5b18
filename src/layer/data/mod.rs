pub(crate) mod attribute_memory;
pub(crate) mod cache;
pub(crate) mod dynamic_inputs;
pub(crate) mod dynamic_lines;
pub(crate) mod extensions;
pub mod records;
pub(crate) mod render_targets;
pub(crate) mod vertex_formats;

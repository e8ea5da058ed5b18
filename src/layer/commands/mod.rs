pub(crate) mod bind_pipeline;
pub(crate) mod command_state;
pub(crate) mod draws;
pub(crate) mod followed_state;
pub(crate) mod gl_state_block;
pub(crate) mod lines;
pub(crate) mod render_targets;

pub(crate) mod create_info;
pub(crate) mod interface_limits;
pub(crate) mod kept_create_info;
pub(crate) mod layouts;
pub(crate) mod modules;
pub(crate) mod pipeline_info;
pub mod push_range;
pub(crate) mod render_passes;

//! The rules whose layer side is pipeline state and the device features behind it: each
//! chains a struct of the layer's into the create info (`LayerStep::PIPELINE_STATE`,
//! `LayerStep::chain`), and enables what the driver needs for it at `vkCreateDevice`
//! (`setup_device`).

pub(super) mod clip_space_depth;
pub(super) mod provoking_vertex;

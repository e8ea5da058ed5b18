//! The rules whose layer side is pipeline state alone: each chains a struct of the layer's
//! into the create info (`LayerStep::PIPELINE_STATE`, `LayerStep::chain`).

mod clip_space_depth;
mod line_rasterization;
mod provoking_vertex;

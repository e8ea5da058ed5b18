//! GL's clip-space depth, layer side: `negativeOneToOne` chained in front of the viewport
//! state (the shader fallback, `RemapClipDepth`, is a rewrite of its stage alone).

use ash::vk;

use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::{Chained, DepthClipControl, Patched};
use crate::layer::rules::layer_step::LayerStep;
use glsem_spirv::clip_space_depth::NegativeOneToOneDepth;

impl LayerStep for NegativeOneToOneDepth {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        patched.viewport = ci.viewport.as_ref().map(|state| {
            let depth = DepthClipControl {
                negative_one_to_one: vk::TRUE,
                ..Default::default()
            };
            Chained::new(*state.state, depth)
        });
    }
}

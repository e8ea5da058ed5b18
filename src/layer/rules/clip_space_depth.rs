//! GL's clip-space depth, layer side: `negativeOneToOne` chained in front of the viewport
//! state (the shader fallback, `RemapClipDepth`, is a rewrite of its stage alone).

use ash::vk;

use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::{Chained, DepthClipControl, Patched};
use crate::layer::rewrite::run::Run;
use crate::layer::rules::LayerStep;
use crate::layer::support::error::PlanError;
use glsem_spirv::clip_space_depth::NegativeOneToOneDepth;
use glsem_spirv::semantics::Step;

impl LayerStep for NegativeOneToOneDepth {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        run.chain_state(step.clone());
        Ok(())
    }

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

//! The one trait every rule's layer side implements ([`LayerStep`]), apart from `mod.rs`
//! so that the rules' files, which implement it, and `mod.rs`, which walks them, do not
//! import each other.

use crate::layer::data::cache::Outcome;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::Run;
use crate::layer::support::error::PlanError;
use glsem_spirv::semantics::Step;

/// What the layer does with one kind of step.
pub(crate) trait LayerStep {
    /// The step is pipeline state ([`LayerStep::chain`]) and rewrites no stage.
    const PIPELINE_STATE: bool = false;

    /// Pipeline and shader-object creation: runs the step in `run` (`step` is `self` as the
    /// enum). The default keeps a pipeline-state step for [`LayerStep::chain`], or else
    /// rewrites the step's stage (where the new code reads the GL-state block, the
    /// pipeline pushes it). `Err` fails the pipeline.
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        match Self::PIPELINE_STATE {
            true => run.chain_state(step.clone()),
            false => {
                rewrite_stage(step, run);
            }
        }
        Ok(())
    }

    /// Pipeline creation: chains the step's pipeline state into the copies the create
    /// info goes down with. The default chains nothing.
    fn chain<'a>(&self, _patched: &mut Patched<'a>, _ci: &PipelineView<'a>) {}
}

/// The default [`LayerStep::plan`]: rewrites the step's stage; where the new code reads the
/// GL-state block, the pipeline pushes it. Returns the outcome.
pub(crate) fn rewrite_stage(step: &Step, run: &mut Run<'_>) -> Outcome {
    match step.reads_block() {
        true => run.apply_reading_block(step),
        false => run.apply(step),
    }
}

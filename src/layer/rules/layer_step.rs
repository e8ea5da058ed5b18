//! The traits a rule's layer side implements, apart from the hooks that walk the rules, so
//! that the rules' files, which implement them, and the hooks, which list them, do not
//! import each other: [`LayerStep`] at pipeline and shader-object creation and
//! [`PipelineRule`] at pipeline creation (walked by `mod.rs`), [`BindRule`] at
//! `vkCmdBindPipeline` (walked by `commands/bind_pipeline.rs`).

use ash::vk;

use crate::layer::data::cache::Outcome;
use crate::layer::data::records::{CommandBufferState, PipelineRecord};
use crate::layer::loader::registry::Dispatchable;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::{Rewrite, Run};
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

/// What one GL rule does with a whole pipeline create info beside its steps, implemented
/// once in the rule's file; the planner walks the rules at each point (`mod.rs`,
/// `pipeline_rules!`). The defaults do nothing.
pub(crate) trait PipelineRule {
    /// `decide`: the create info is planned whatever its steps.
    fn must_plan(_dev: &DeviceData, _ci: &PipelineView<'_>) -> bool {
        false
    }

    /// `decide`: the pipeline needs a record of the layer's for bind and draw time.
    fn needs_record(_dev: &DeviceData, _ci: &PipelineView<'_>) -> bool {
        false
    }

    /// `plan`, before the steps run: why the create info fails, if it does.
    fn refuse(_dev: &DeviceData, _ci: &PipelineView<'_>) -> Option<PlanError> {
        None
    }

    /// `plan`, after the steps ran: what the rule makes of the rewrite, or why the create
    /// info fails.
    fn after_steps(
        _dev: &DeviceData,
        _ci: &PipelineView<'_>,
        _rewrite: &mut Rewrite,
    ) -> Result<(), PlanError> {
        Ok(())
    }

    /// Pipeline creation: what the rule adds to the copies the create info goes down with,
    /// beside its steps' chained state ([`LayerStep::chain`]).
    fn patch<'a>(_rewrite: &Rewrite, _patched: &mut Patched<'a>, _ci: &PipelineView<'a>) {}
}

/// What one GL rule does at `vkCmdBindPipeline`, implemented once in the rule's file. The
/// hook reads the pipeline's record once and asks every rule to [`take`](BindRule::take)
/// its part; under the command buffer's lock, after the state all
/// rules share (the GL-state block, the drawn primitives, [`CommandBufferState::pipeline`]),
/// each rule [`bind`](BindRule::bind)s its state; once the lock is released and the block
/// pushed, each records what it sets on the driver ([`then`](BindRule::then)), in the
/// hook's order.
pub(crate) trait BindRule {
    /// The rule's part of the pipeline's record (`Default`: a pipeline the layer did not
    /// record).
    type Taken: Default;
    /// What [`BindRule::bind`] hands [`BindRule::then`].
    type Then;

    /// Copies the rule's part of `record` (the records' lock is held: take no other).
    fn take(record: &PipelineRecord) -> Self::Taken;

    /// Under the command buffer's lock: the rule's state while the pipeline is bound.
    fn bind(at: &Bind<'_>, taken: Self::Taken, state: &mut CommandBufferState) -> Self::Then;

    /// After the lock: what the rule sets on the driver for the pipeline bound.
    fn then(at: &Bind<'_>, then: Self::Then);
}

/// A `vkCmdBindPipeline` the rules act on.
pub(crate) struct Bind<'a> {
    pub dev: &'a DeviceData,
    pub cb: Dispatchable<vk::CommandBuffer>,
    pub pipeline: vk::Pipeline,
}

//! The layer side of GL's rules: what the layer does with each [`Step`] that
//! [`choose`](glsem_spirv::semantics::choose) picks, at the fixed points of pipeline and
//! shader-object creation. Each rule implements [`LayerStep`] for its steps in its own file;
//! the planner and the shader-object hooks call [`plan`] and [`chain`] and name no rule.
//!
//! The dispatch is made from glsem-spirv's one step list (`step_list!`), so a step added
//! there without a `LayerStep` here does not compile. Steps whose layer side is only the
//! rewrite of their stage take the trait's defaults (`shader_only!` below).

mod gl_layer;
mod instance_id;
mod passthrough_tcs;
mod point_size;
mod primitive_mode;
mod state;
mod unfed_inputs;
pub(crate) mod vertex_formats;
mod xfb_split;

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

/// Steps whose layer side is the rewrite of their stage alone.
macro_rules! shader_only {
    ($($rule:path),* $(,)?) => {
        $(impl LayerStep for $rule {})*
    };
}

shader_only!(
    glsem_spirv::xfb_split::SplitStructOutputs,
    glsem_spirv::xfb_split::SplitStructInputs,
    glsem_spirv::fragcolor::FragColorKey,
    glsem_spirv::clip_enables::GateClipDistances,
    glsem_spirv::clip_space_depth::RemapClipDepth,
    glsem_spirv::unfed_inputs::DefaultUnfedInputs,
    glsem_spirv::gl_layer::CopyLayer,
    glsem_spirv::sample_mask::DropSampleMask,
    glsem_spirv::sample_mask::GateSampleMask,
    glsem_spirv::window_origin::WindowYKey,
    glsem_spirv::line_endpoints::LineEndpoints,
);

/// [`plan`] and [`chain`]: one exhaustive match over glsem-spirv's step list each.
macro_rules! layer_dispatch {
    ($($(#[doc = $doc:literal])* $variant:ident($rule:ty),)*) => {
        /// Runs `step` in `run` ([`LayerStep::plan`]).
        pub(crate) fn plan(step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
            match step {
                $(Step::$variant(rule) => LayerStep::plan(rule, step, run),)*
            }
        }

        /// Chains `step`'s pipeline state into `patched` ([`LayerStep::chain`]).
        pub(crate) fn chain<'a>(step: &Step, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
            match step {
                $(Step::$variant(rule) => LayerStep::chain(rule, patched, ci),)*
            }
        }
    };
}

glsem_spirv::step_list!(layer_dispatch);

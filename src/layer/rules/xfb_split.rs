//! The XFB struct split, layer side: the fragment inputs are split as the last
//! pre-rasterization stage split its outputs, or the split is undone. A failed split leaves
//! the structs whole: the other side may have left them whole too, as it would without the
//! layer.

use crate::layer::data::cache::Outcome;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::error::PlanError;
use glsem_spirv::semantics::{Semantic, Step};
use glsem_spirv::xfb_split::{SplitFragInputs, SplitXfbOutputs};

impl LayerStep for SplitXfbOutputs {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        if let Outcome::Split(_, split) = run.apply(step) {
            run.split = Some(split);
        }
        Ok(())
    }
}

impl LayerStep for SplitFragInputs {
    /// Split outputs that the fragment inputs do not match: the split is undone.
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        if let Outcome::Failed(_) = run.apply(step) {
            run.undo(Semantic::XfbSplit);
            run.split = None;
        }
        Ok(())
    }
}

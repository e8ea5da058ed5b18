//! `gl_Layer`, layer side: a fragment shader reads the layer the previous stage wrote only
//! where that stage could write its copy.

use crate::layer::data::cache::Outcome;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::{rewrite_stage, LayerStep};
use crate::layer::support::error::PlanError;
use glsem_spirv::gl_layer::{GateLayer, ReadLayerFrom};
use glsem_spirv::semantics::Step;

impl LayerStep for GateLayer {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let outcome = run.apply_reading_block(step);
        run.layer_copy_failed = !matches!(outcome, Outcome::Module(_));
        Ok(())
    }
}

impl LayerStep for ReadLayerFrom {
    /// The previous stage writes no copy: the fragment shader reads the built-in.
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        if !run.layer_copy_failed {
            rewrite_stage(step, run);
        }
        Ok(())
    }
}

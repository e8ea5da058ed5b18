//! `gl_InstanceID`, layer side: where the vertex shader reads the base instance from the
//! GL-state block (a device without `shaderDrawParameters`), the pipeline's draws push each
//! draw's `firstInstance` there (`commands/base_instance.rs`).

use crate::layer::data::cache::Outcome;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::{rewrite_stage, LayerStep};
use crate::layer::support::error::PlanError;
use glsem_spirv::instance_id::InstanceIdWithoutBase;
use glsem_spirv::semantics::Step;

impl LayerStep for InstanceIdWithoutBase {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let outcome = rewrite_stage(step, run);
        if step.reads_block() && matches!(outcome, Outcome::Module(_)) {
            run.out.reads_base_instance = true;
        }
        Ok(())
    }
}

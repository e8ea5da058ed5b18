//! GL's point size, layer side: a stage that cannot read the GL-state block writes GL's
//! initial size instead, so the pipeline stays valid.

use ash::vk;

use crate::layer::data::cache::Outcome;
use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::rewrite::run::Run;
use crate::layer::rules::layer_step::{rewrite_stage, LayerStep};
use crate::layer::support::error::PlanError;
use glsem_spirv::point_size::{PointSizeSource, WritePointSize};
use glsem_spirv::semantics::Step;

impl LayerStep for WritePointSize {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let PointSizeSource::GlState { .. } = self.source else {
            rewrite_stage(step, run);
            return Ok(());
        };
        // With maintenance5 a missing write means 1.0, GL's initial size.
        if let Outcome::Failed(_) = run.apply_reading_block(step) {
            if !run.dev.features.maintenance5 {
                run.apply(&Step::WritePointSize(WritePointSize {
                    stage: self.stage,
                    source: PointSizeSource::Default,
                }));
            }
        }
        Ok(())
    }
}

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: GL sizes points in every stage; Vulkan lets
/// tessellation and geometry shaders write the size only with
/// `shaderTessellationAndGeometryPointSize`.
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    setup
        .core_wanted
        .shader_tessellation_and_geometry_point_size = vk::TRUE;
}

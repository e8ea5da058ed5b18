//! `gl_InstanceID`, layer side: where the vertex shader reads the base instance from the
//! GL-state block (a device without `shaderDrawParameters`), the pipeline's draws push each
//! draw's `firstInstance` there (`commands/draws/base_instance.rs`).

use ash::vk;

use crate::layer::data::cache::Outcome;
use crate::layer::data::records::BoundInstances;
use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::libraries_have;
use crate::layer::rewrite::run::{Rewrite, Run};
use crate::layer::rules::layer_step::{rewrite_stage, LayerStep};
use crate::layer::support::error::PlanError;
use crate::layer::support::log;
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

/// A pipeline's part of the record for `gl_InstanceID`: its draws push their base instance
/// where its vertex shader (its own, or its libraries') reads it from the GL-state block;
/// `instance_rate`, whether it may read instance-rate attributes (an indirect draw's
/// `firstInstance` must then reach the driver as it is).
pub(crate) fn record_instances(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    rewrite: Option<&Rewrite>,
    instance_rate: Option<bool>,
) -> BoundInstances {
    BoundInstances {
        base_from_block: rewrite.is_some_and(|r| r.reads_base_instance)
            || libraries_have(dev, ci, |r| r.bound.instances.base_from_block),
        instance_rate,
    }
}

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: GL's gl_InstanceID needs the BaseInstance
/// built-in, `shaderDrawParameters`, chained by the layer unless the application's own
/// struct (either of the two Vulkan allows) says.
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    let app_says = setup
        .app_chains(vk::StructureType::PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES)
        || setup.app_chains(vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
    // Testing the route of devices without shaderDrawParameters on one that has it: the
    // feature the application may have enabled stays on; the layer reads the base from the
    // GL-state block all the same.
    let forced_block = setup.settings().debug_force_instance_base_block;
    if !app_says
        && !forced_block
        && setup
            .query(vk::PhysicalDeviceShaderDrawParametersFeatures::default())
            .shader_draw_parameters
            != 0
    {
        setup.features.draw_parameters = true;
        setup.add(
            vk::PhysicalDeviceShaderDrawParametersFeatures::default().shader_draw_parameters(true),
        );
    }
    if forced_block {
        setup.features.draw_parameters = false;
    }
    if !setup.features.draw_parameters {
        log::info!(
            "VK_GLSEM_gl_state: no shaderDrawParameters: vertex shaders reading gl_InstanceID \
             take the base instance from the GL-state block, pushed at each draw"
        );
    }
}

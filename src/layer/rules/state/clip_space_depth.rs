//! GL's clip-space depth, layer side: `depthClipControl` at `vkCreateDevice`, and
//! `negativeOneToOne` chained in front of the viewport state (the shader fallback,
//! `RemapClipDepth`, is a rewrite of its stage alone).

use ash::vk;
use std::ffi::CStr;

use crate::layer::loader::device_setup::DeviceSetup;
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

const DEPTH_CLIP_CONTROL: &CStr = c"VK_EXT_depth_clip_control";

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: `depthClipControl` ([`DeviceSetup::adopt`]);
/// without it the last pre-rasterization stage remaps depth (`RemapClipDepth`).
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    setup.conventions.depth_clip = setup.adopt(
        DEPTH_CLIP_CONTROL,
        |f: &vk::PhysicalDeviceDepthClipControlFeaturesEXT<'_>| f.depth_clip_control != 0,
        |f| f.depth_clip_control(true),
    );
}

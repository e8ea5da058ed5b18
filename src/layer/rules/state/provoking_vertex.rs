//! GL's last-vertex convention, layer side: `provokingVertexLast` at `vkCreateDevice`, and
//! `VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT` chained in front of the rasterization state.

use ash::vk;
use std::ffi::CStr;

use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::ffi::link_in_front;
use crate::layer::support::log;
use glsem_spirv::provoking_vertex::ProvokingVertexLast;

impl LayerStep for ProvokingVertexLast {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        if let Some(r) = patched.rasterization(ci) {
            link_in_front(&mut r.state, &mut r.provoking);
        }
    }
}

const PROVOKING_VERTEX: &CStr = c"VK_EXT_provoking_vertex";

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: `provokingVertexLast`
/// ([`DeviceSetup::adopt`]), or a warning that flat varyings take the first vertex.
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    setup.conventions.provoking_vertex = setup.adopt(
        PROVOKING_VERTEX,
        |f: &vk::PhysicalDeviceProvokingVertexFeaturesEXT<'_>| f.provoking_vertex_last != 0,
        |f| f.provoking_vertex_last(true),
    );
    if !setup.conventions.provoking_vertex.on {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks VK_EXT_provoking_vertex with \
             provokingVertexLast; flat-shaded varyings take the first vertex's value \
             (Vulkan's convention), not the last (GL's)"
        );
    }
}

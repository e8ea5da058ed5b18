//! GL's last-vertex convention, layer side: `VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT`
//! chained in front of the rasterization state.

use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::ffi::link_in_front;
use glsem_spirv::provoking_vertex::ProvokingVertexLast;

impl LayerStep for ProvokingVertexLast {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        if let Some(r) = patched.rasterization(ci) {
            link_in_front(&mut r.state, &mut r.provoking);
        }
    }
}

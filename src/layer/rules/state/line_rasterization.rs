//! GL's lines, layer side of pipeline creation: `BRESENHAM` chained in front of the
//! rasterization state, and the stipple as dynamic state the layer sets at bind.

use ash::vk;

use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::ffi::link_in_front;
use glsem_spirv::line_rasterization::BresenhamLines;

impl LayerStep for BresenhamLines {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        if let Some(r) = patched.rasterization(ci) {
            r.line.stippled_line_enable = self.stippled.into();
            link_in_front(&mut r.state, &mut r.line);
        }
        if self.stippled {
            patched.add_dynamic(ci, vk::DynamicState::LINE_STIPPLE_KHR);
        }
    }
}

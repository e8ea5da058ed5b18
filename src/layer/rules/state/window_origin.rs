//! GL's window origin, layer side of pipeline creation: the tessellation domain origin
//! `LOWER_LEFT` chained in front of the tessellation state, and the front face inverted
//! under `window_origin = lower_left` (the fragment shader's window y is a rewrite of its
//! stage alone).

use ash::vk;

use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::inverted;
use crate::layer::rewrite::patched::{Chained, DomainOrigin, Patched};
use crate::layer::rules::LayerStep;
use glsem_spirv::window_origin::{InvertFrontFace, TessellationDomainLowerLeft};

impl LayerStep for TessellationDomainLowerLeft {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        patched.tessellation = ci.tessellation.as_ref().map(|state| {
            let origin = DomainOrigin {
                domain_origin: vk::TessellationDomainOrigin::LOWER_LEFT,
                ..Default::default()
            };
            Chained::new(*state.state, origin)
        });
    }
}

impl LayerStep for InvertFrontFace {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        if let Some(r) = patched.rasterization(ci) {
            r.state.front_face = inverted(r.state.front_face);
        }
    }
}

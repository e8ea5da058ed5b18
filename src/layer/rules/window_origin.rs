//! GL's window origin, layer side: what the `window_origin` setting makes of a
//! `VK_GLSEM_gl_state` device ([`setup_device`], decided once at `vkCreateDevice`; the hooks
//! act on [`WindowConventions`] and name no setting), and at pipeline creation the
//! tessellation domain origin `LOWER_LEFT` chained in front of the tessellation state and the
//! front face inverted under `window_origin = lower_left` (the fragment shader's window y is a
//! rewrite of its stage alone).

use ash::vk;

use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::loader::state::WindowConventions;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::inverted;
use crate::layer::rewrite::patched::{Chained, DomainOrigin, Patched};
use crate::layer::rules::layer_step::LayerStep;
use glsem_spirv::semantics::{Semantic, WindowOrigin};
use glsem_spirv::window_origin::{InvertFrontFace, TessellationDomainLowerLeft};

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: the device's window conventions, none where
/// the setting leaves the window to the application.
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    let settings = setup.settings();
    let origin = Some(settings.window_origin).filter(|&o| o != WindowOrigin::Vulkan);
    setup.conventions.window = WindowConventions {
        negative_viewport: origin == Some(WindowOrigin::Flipped),
        // As `choose` inverts static faces: only where the semantic is on.
        inverted_front_face: origin == Some(WindowOrigin::LowerLeft)
            && settings.semantics.contains(Semantic::WindowOrigin),
        lower_left_domain: origin.is_some(),
    };
    // The window height and the sprite origin.
    setup.conventions.fragment_reads_block |= origin.is_some();
}

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

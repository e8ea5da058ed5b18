//! GL's lines by the fragment route at draw time: the pixels the driver's rectangles leave
//! out. A rectangular line ends at its endpoints, so where a segment starts inside a
//! pixel's diamond but behind the pixel's centre, GL lights that pixel (the segment exits
//! its diamond) and the rectangle does not cover it. No shader of the draw can add it: the
//! vertex stage does not know the segment's direction. So every draw of a pipeline on the
//! route is drawn again through its start-pixel pipeline (made with it,
//! `glsem_spirv::semantics::start_pixel_steps`): the same shaders with each vertex mirrored
//! through the centre of its pixel, so that the rectangle from a start behind a centre
//! covers that pixel, and a fragment test that keeps only GL's fragments whose centre lies
//! behind the start, which the first draw's rectangle cannot cover. The two draws light
//! disjoint pixels, so blending and the depth test see each of GL's fragments once. The
//! second draw runs the vertex shader again: a vertex shader that stores to memory stores
//! twice, and pipeline statistics count the draw twice.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::rule::{Cb, DrawRule};
use crate::layer::data::lines::BoundStartPixels;
use crate::layer::data::records::CommandBufferState;
use crate::layer::loader::frames::shield;
use crate::layer::loader::registry::device_data;
use crate::layer::loader::state::DeviceData;

/// The fragment line route's start pixels, drawn after each draw.
pub(crate) struct StartPixels;

impl DrawRule for StartPixels {
    type Before = ();

    /// The device has a pipeline with a start-pixel pipeline.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.start_pixel_pipelines.load(Ordering::Relaxed) != 0
    }

    fn again(what: &'static str, cb: Cb, draw_once: &dyn Fn()) {
        draw_again(what, cb, draw_once);
    }
}

/// After a draw (`draw`, the hook's whole work) of a pipeline on the fragment route that
/// draws lines now: the same draw again through its start-pixel pipeline, and the
/// pipeline bound back. The two share the layout and the dynamic state, so what the
/// application bound and set stays.
fn draw_again(what: &str, cb: Cb, draw: &dyn Fn()) {
    let bound = shield(what, || {
        let dev = device_data(cb)?;
        let bind = dev.table.cmd_bind_pipeline?;
        let mut cbs = dev.records.command_buffers.lock();
        let s = CommandBufferState::of(&mut cbs, cb.handle());
        let bound = s.lines.start_pixels?;
        let lines = !bound.dynamic_topology
            || matches!(
                s.drawn.topology,
                vk::PrimitiveTopology::LINE_LIST | vk::PrimitiveTopology::LINE_STRIP
            );
        // A polygon-mode or vertex-input variant bound in the pipeline's place is not the
        // pipeline the start-pixel one was made beside.
        let swapped = s.primitives.variants.is_some_and(|v| v.down != v.app)
            || s.dynamic_inputs.variant_bound.is_some();
        (lines && !swapped).then_some((bind, bound))
    })
    .flatten();
    let Some((
        bind,
        BoundStartPixels {
            app, start_pixels, ..
        },
    )) = bound
    else {
        return;
    };
    // SAFETY: a live command buffer (a `Dispatchable`) in the recording state, inside the
    // render pass of the draw just recorded; a pipeline the layer made from the bound one's
    // create info, alive while that one is.
    unsafe { bind(cb.handle(), vk::PipelineBindPoint::GRAPHICS, start_pixels) };
    draw();
    // SAFETY: as above; the application's pipeline, bound before the draw.
    unsafe { bind(cb.handle(), vk::PipelineBindPoint::GRAPHICS, app) };
}

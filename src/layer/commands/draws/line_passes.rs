//! GL's lines by the fragment route at draw time: the pixels the driver's rectangles leave
//! out, drawn by more draws of the same lines (docs/lines-fragment-route.md).
//!
//! - **Start pixels.** A rectangular line ends at its endpoints, so where a segment starts
//!   inside a pixel's diamond but behind the pixel's centre, GL lights that pixel (the
//!   segment exits its diamond) and the rectangle does not cover it. No shader of the draw
//!   can add it: the vertex stage does not know the segment's direction. So every draw of a
//!   pipeline on the route is drawn again through its start-pixel pipeline (made with it,
//!   `glsem_spirv::semantics::start_pixel_steps`): the same shaders with each vertex
//!   mirrored through the centre of its pixel, so that the rectangle from a start behind a
//!   centre covers that pixel, and a fragment test that keeps only GL's fragments whose
//!   centre lies behind the start, which the other draws' rectangles cannot cover.
//! - **Bands.** The driver snaps a rectangle's corners to its subpixel grid, so a pixel
//!   whose centre lies almost half a pixel off a shallow segment may fall outside it. The
//!   application's draw goes down with the GL-state block's `FLAG_LINE_BANDS` and keeps
//!   GL's fragments but those of the bands along the segment's edges; it is drawn twice
//!   more with `FLAG_LINE_BAND_UP` and `_DOWN`, its vertices moved one subpixel up and down,
//!   keeping only the fragments of each band (`glsem_spirv::line_fragment`).
//!
//! The draws light disjoint pixels, so blending and the depth test see each of GL's
//! fragments once. Each draw runs the vertex shader again: a vertex shader that stores to
//! memory stores four times, and pipeline statistics count the draw four times.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::data::lines::BoundStartPixels;
use crate::layer::data::records::{BlockBinding, CommandBufferState};
use crate::layer::loader::frames::shield;
use crate::layer::loader::registry::device_data;
use crate::layer::loader::state::DeviceData;
use glsem_spirv::gl_state::{FLAGS, FLAG_LINE_BANDS, FLAG_LINE_BAND_DOWN, FLAG_LINE_BAND_UP};

/// The fragment line route's other draws: the bands, then the start pixels.
pub(crate) struct LinePasses;

impl DrawRule for LinePasses {
    /// The route's draw, read once for both hooks (`None`: not one).
    type Before = Option<RouteDraw>;

    /// The device has a pipeline with a start-pixel pipeline.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.start_pixel_pipelines.load(Ordering::Relaxed) != 0
    }

    fn before(what: &'static str, cb: Cb, _: &Draw) -> Option<RouteDraw> {
        let route = route_draw(what, cb)?;
        if let Some(bands) = &route.bands {
            bands.push(cb, FLAG_LINE_BANDS);
        }
        Some(route)
    }

    fn again(_: &'static str, cb: Cb, route: Option<RouteDraw>, draw_once: &dyn Fn()) {
        if let Some(route) = route {
            route.draw_again(cb, draw_once);
        }
    }
}

/// A draw of lines on the fragment route, as the draw hooks see it.
#[derive(Clone, Copy)]
pub(crate) struct RouteDraw {
    bind: vk::PFN_vkCmdBindPipeline,
    pipelines: BoundStartPixels,
    /// Where the band passes' flags go (`None`: the layer cannot push them; the start
    /// pixels are drawn alone).
    bands: Option<BandFlags>,
}

/// The GL-state block's `flags` as pushed, and how to push them again.
#[derive(Clone, Copy)]
pub(crate) struct BandFlags {
    push: vk::PFN_vkCmdPushConstants,
    binding: BlockBinding,
    flags: u32,
}

impl BandFlags {
    /// Pushes the block's flags with `bits` set (none: as the layer pushed them).
    fn push(&self, cb: Cb, bits: u32) {
        let flags = self.flags | bits;
        // SAFETY: a live command buffer (a `Dispatchable`) recording; the bound pipeline's
        // layout holds the block's `size` bytes at `offset` for `stages`, and `flags` lies
        // within them (`route_draw`).
        unsafe {
            (self.push)(
                cb.handle(),
                self.binding.layout,
                self.binding.stages,
                self.binding.offset + FLAGS,
                4,
                (&flags as *const u32).cast(),
            )
        };
    }
}

/// What the route draws around a draw on `cb`: `None` where the bound pipeline is not on
/// the route or does not draw lines now.
fn route_draw(what: &str, cb: Cb) -> Option<RouteDraw> {
    shield(what, || {
        let dev = device_data(cb)?;
        let bind = dev.table.cmd_bind_pipeline?;
        let mut cbs = dev.records.command_buffers.lock();
        let s = CommandBufferState::of(&mut cbs, cb.handle());
        let pipelines = s.lines.start_pixels?;
        let lines = !pipelines.dynamic_topology
            || matches!(
                s.drawn.topology,
                vk::PrimitiveTopology::LINE_LIST | vk::PrimitiveTopology::LINE_STRIP
            );
        // A polygon-mode or vertex-input variant bound in the pipeline's place is not the
        // pipeline the start-pixel one was made beside.
        let swapped = s.primitives.variants.is_some_and(|v| v.down != v.app)
            || s.dynamic_inputs.variant_bound.is_some();
        if !lines || swapped {
            return None;
        }
        let bands = dev
            .table
            .cmd_push_constants
            .zip(s.bound.filter(|b| b.size >= FLAGS + 4))
            .map(|(push, binding)| BandFlags {
                push,
                binding,
                flags: s.values.flags,
            });
        Some(RouteDraw {
            bind,
            pipelines,
            bands,
        })
    })
    .flatten()
}

impl RouteDraw {
    /// After a draw (`draw`, the hook's whole work, gone down with `FLAG_LINE_BANDS`): the
    /// band passes, the flags as they were, then the start pixels through the start-pixel
    /// pipeline and the pipeline bound back. The pipelines share the layout and the dynamic
    /// state, so what the application bound and set stays.
    fn draw_again(&self, cb: Cb, draw: &dyn Fn()) {
        if let Some(bands) = &self.bands {
            for side in [FLAG_LINE_BAND_UP, FLAG_LINE_BAND_DOWN] {
                bands.push(cb, FLAG_LINE_BANDS | side);
                draw();
            }
            bands.push(cb, 0);
        }
        let BoundStartPixels {
            app, start_pixels, ..
        } = self.pipelines;
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state, inside
        // the render pass of the draw just recorded; a pipeline the layer made from the bound
        // one's create info, alive while that one is.
        unsafe { (self.bind)(cb.handle(), vk::PipelineBindPoint::GRAPHICS, start_pixels) };
        draw();
        // SAFETY: as above; the application's pipeline, bound before the draw.
        unsafe { (self.bind)(cb.handle(), vk::PipelineBindPoint::GRAPHICS, app) };
    }
}

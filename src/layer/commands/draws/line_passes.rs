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
//! - **A strip's stipple.** GL counts the stipple on over a strip or loop; the fragment
//!   test counts from its segment's start, and where that lies depends on every earlier
//!   vertex of the strip. A direct draw of a strip with the stipple on, of a pipeline whose
//!   vertex shader counts (`glsem_spirv::stipple_counts`), is first drawn with
//!   `FLAG_STIPPLE_CAPTURE` (each vertex's clip position to a buffer of the layer's, nothing
//!   drawn); the layer then ends the render pass instance, runs its compute shader
//!   (`shaders/stipple_counts.comp`: each segment's first count, by GL's rule, in the
//!   vertex that provokes it) and begins the instance again (`converted_draws`), and the
//!   draws go down with `FLAG_STIPPLE_COUNTED`. Indexed and indirect strips, and a strip
//!   whose instance cannot be ended, start the pattern again at each segment (said once).
//!
//! The draws light disjoint pixels, so blending and the depth test see each of GL's
//! fragments once. Each draw runs the vertex shader again: a vertex shader that stores to
//! memory stores four times, and pipeline statistics count the draw four times.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::converted_draws::{
    dispatch_outside_render_pass, stipple_counter, Dispatch,
};
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::commands::render_targets::resumable_target;
use crate::layer::data::lines::{BoundStartPixels, StippleCounting};
use crate::layer::data::records::{BlockBinding, CommandBufferState};
use crate::layer::loader::frames::shield;
use crate::layer::loader::host_memory::new_host_buffer;
use crate::layer::loader::registry::device_data;
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;
use glsem_spirv::gl_state::{
    BLOCK_SIZE, FLAGS, FLAG_LINE_BANDS, FLAG_LINE_BAND_DOWN, FLAG_LINE_BAND_UP, FLAG_LINE_STIPPLE,
    FLAG_STIPPLE_CAPTURE, FLAG_STIPPLE_COUNTED, STIPPLE_COUNTS,
};
use glsem_spirv::stipple_counts::StippleCounts;

/// The fragment line route's other draws: the bands, then the start pixels.
pub(crate) struct LinePasses;

impl DrawRule for LinePasses {
    /// The route's draw, read once for both hooks (`None`: not one).
    type Before = Option<RouteDraw>;

    /// The device has a pipeline with a start-pixel pipeline.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.start_pixel_pipelines.load(Ordering::Relaxed) != 0
    }

    fn before(what: &'static str, cb: Cb, draw: &Draw) -> Option<RouteDraw> {
        let mut route = route_draw(what, cb)?;
        if let (Some(strip), Some(bands)) = (route.strip, &route.bands) {
            route.counted = count_stipple(what, cb, draw, strip, bands);
        }
        if let Some(bands) = &route.bands {
            bands.push(cb, FLAG_LINE_BANDS | route.counted_flag());
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
    /// A strip with the stipple on whose counts the layer may capture.
    strip: Option<Strip>,
    /// The draws go down with the strip's counts (`FLAG_STIPPLE_COUNTED`).
    counted: bool,
}

/// A strip (or loop) on the route with GL's stipple on, as the compute shader counts it.
#[derive(Clone, Copy)]
struct Strip {
    counting: StippleCounting,
    closed: bool,
    viewport_scale: [f32; 2],
    viewport_offset: [f32; 2],
    /// The block's first words as the layer pushed them (the inner tessellation levels),
    /// whose place the counts' address takes while the strip is drawn.
    levels: [u32; 2],
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
        self.push_words(cb, FLAGS, &[self.flags | bits]);
    }

    /// Pushes `words` at the block's field `field`.
    fn push_words(&self, cb: Cb, field: u32, words: &[u32]) {
        debug_assert!(field + 4 * words.len() as u32 <= self.binding.size);
        // SAFETY: a live command buffer (a `Dispatchable`) recording; the bound pipeline's
        // layout holds the block's `size` bytes at `offset` for `stages`, and the field lies
        // within them (`route_draw`).
        unsafe {
            (self.push)(
                cb.handle(),
                self.binding.layout,
                self.binding.stages,
                self.binding.offset + field,
                4 * words.len() as u32,
                words.as_ptr().cast(),
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
        let topology = pipelines.topology.unwrap_or(s.drawn.topology);
        let lines = pipelines.topology.is_some()
            || matches!(
                topology,
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
        let stippled = s.values.flags & FLAG_LINE_STIPPLE != 0;
        // The whole block: the levels' place takes the address.
        let pushable = bands.is_some_and(|b| b.binding.size >= BLOCK_SIZE);
        let strip = pipelines
            .stipple_counts
            .filter(|_| stippled && pushable && topology == vk::PrimitiveTopology::LINE_STRIP)
            .map(|counting| Strip {
                counting,
                closed: s.pipeline.primitives.closes_loops,
                viewport_scale: s.values.viewport_scale,
                viewport_offset: s.values.viewport_offset,
                levels: s.values.inner.map(f32::to_bits),
            });
        Some(RouteDraw {
            bind,
            pipelines,
            bands,
            strip,
            counted: false,
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
        let counted = self.counted_flag();
        if let Some(bands) = &self.bands {
            for side in [FLAG_LINE_BAND_UP, FLAG_LINE_BAND_DOWN] {
                bands.push(cb, FLAG_LINE_BANDS | side | counted);
                draw();
            }
            bands.push(cb, counted);
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
        if let (Some(bands), Some(strip), true) = (&self.bands, &self.strip, self.counted) {
            bands.push(cb, 0);
            bands.push_words(cb, STIPPLE_COUNTS, &strip.levels);
        }
    }

    /// `FLAG_STIPPLE_COUNTED` where the draws go down with the strip's counts.
    fn counted_flag(&self) -> u32 {
        match self.counted {
            true => FLAG_STIPPLE_COUNTED,
            false => 0,
        }
    }
}

/// The most memory one strip's counts take.
const MAX_COUNT_BYTES: u64 = 64 << 20;

/// Captures the positions of `draw`, a strip with GL's stipple on, and counts its
/// segments' stipple on the GPU (the module doc): true where the draws may go down with
/// `FLAG_STIPPLE_COUNTED`. Where the layer cannot, the strip's stipple starts again at
/// each segment, said once per device.
fn count_stipple(what: &str, cb: Cb, draw: &Draw, strip: Strip, flags: &BandFlags) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let counted = match *draw {
            Draw::Direct(direct) => count_direct(&dev, cb, direct, strip, flags),
            Draw::Gpu(_) => {
                Err("its vertices are counted on the GPU (an indexed or indirect draw)")
            }
        };
        match counted {
            Ok(counted) => Some(counted),
            Err(why) => {
                if !dev.draws.stipple_warned.swap(true, Ordering::Relaxed) {
                    log::warning!(
                        "GL's lines by the fragment route: a strip's stipple starts again at \
                         each segment ({what}: {why})"
                    );
                }
                None
            }
        }
    })
    .flatten()
    .unwrap_or(false)
}

/// [`count_stipple`] of a `vkCmdDraw`: `Ok(false)` where no segment follows another.
fn count_direct(
    dev: &DeviceData,
    cb: Cb,
    [vertices, instances, first_vertex, first_instance]: [u32; 4],
    strip: Strip,
    flags: &BandFlags,
) -> Result<bool, &'static str> {
    let segments = match strip.closed {
        true => vertices,
        false => vertices.saturating_sub(1),
    };
    if segments < 2 || instances == 0 {
        return Ok(false);
    }
    let slots = u64::from(vertices) * u64::from(instances);
    let bytes = StippleCounts::bytes(slots);
    if bytes > MAX_COUNT_BYTES {
        return Err("a draw longer than the layer counts");
    }
    let (Some(draw), Some(address_of)) = (dev.table.cmd_draw, dev.table.get_buffer_device_address)
    else {
        return Err("the device lacks a command the layer's counts need");
    };
    // Nothing is recorded where the instance cannot be ended (the capture draw would count
    // in an active query or transform feedback).
    resumable_target(dev, cb)?;
    let counter = stipple_counter(dev)?;
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
    let chunk = new_host_buffer(dev, bytes, usage).ok_or("no memory for the counts")?;
    let mut header = [0u32; (StippleCounts::CLIP / 4) as usize];
    header[(StippleCounts::VERTICES / 4) as usize] = vertices;
    header[(StippleCounts::FIRST / 4) as usize] =
        first_vertex.wrapping_add(first_instance.wrapping_mul(vertices));
    header[(StippleCounts::SLOTS / 4) as usize] = slots as u32;
    header[(StippleCounts::FLAGS / 4) as usize] = match strip.counting.provoking_last {
        true => StippleCounts::PROVOKING_LAST,
        false => 0,
    } | match strip.closed {
        true => StippleCounts::CLOSED,
        false => 0,
    };
    let viewport = (StippleCounts::VIEWPORT / 4) as usize;
    let transform = [strip.viewport_scale, strip.viewport_offset].concat();
    for (word, value) in header[viewport..viewport + 4].iter_mut().zip(transform) {
        *word = value.to_bits();
    }
    // SAFETY: the chunk's mapping is `bytes` long (more than the header), host-coherent,
    // and used by no pending work (new).
    unsafe {
        std::ptr::copy_nonoverlapping(header.as_ptr(), chunk.mapped as *mut u32, header.len())
    };
    let info = vk::BufferDeviceAddressInfo {
        buffer: chunk.buffer,
        ..Default::default()
    };
    // SAFETY: a buffer of the layer's made with `SHADER_DEVICE_ADDRESS`, its memory bound.
    let address = unsafe { address_of(dev.handle, &info) };
    flags.push_words(
        cb,
        STIPPLE_COUNTS,
        &[address as u32, (address >> 32) as u32],
    );
    flags.push(cb, FLAG_STIPPLE_CAPTURE);
    // SAFETY: the application's draw as it recorded it, on a live command buffer (a
    // `Dispatchable`) inside its render pass instance: its vertices go out of the view
    // volume, their positions to the layer's buffer.
    unsafe {
        draw(
            cb.handle(),
            vertices,
            instances,
            first_vertex,
            first_instance,
        )
    };
    let whole = [vk::DescriptorBufferInfo {
        buffer: chunk.buffer,
        offset: 0,
        range: vk::WHOLE_SIZE,
    }];
    let dispatch = Dispatch {
        compute: counter,
        chunk,
        buffers: &whole,
        groups: instances,
        written_for: (
            vk::PipelineStageFlags::VERTEX_SHADER,
            vk::AccessFlags::SHADER_READ,
        ),
    };
    let dispatched = dispatch_outside_render_pass(dev, cb, dispatch);
    if dispatched.is_err() {
        flags.push(cb, 0);
        flags.push_words(cb, STIPPLE_COUNTS, &strip.levels);
    }
    dispatched.map(|()| true)
}

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
//!   vertex of the strip. A direct or indexed draw of a strip with the stipple on, of a
//!   pipeline whose vertex shader counts (`glsem_spirv::stipple_counts`), is first drawn
//!   with `FLAG_STIPPLE_CAPTURE` (each vertex's clip position to a buffer of the layer's, by
//!   its vertex or index; nothing drawn); the layer then ends the render pass instance,
//!   runs its compute shader (`shaders/stipple_counts.comp`: the strips walked in the
//!   draw's order, the application's indices read on the GPU, restarts included; each
//!   segment's count and length at the vertex that provokes it) and begins the instance
//!   again (`converted_draws`), and the draws go down with `FLAG_STIPPLE_COUNTED`. Indirect
//!   strips, and a strip whose instance cannot be ended, start the pattern again at each
//!   segment (said once); so does an indexed strip through an index past
//!   [`INDEX_SPAN`], or one that repeats a vertex that provokes a segment.
//!
//! The draws light disjoint pixels, so blending and the depth test see each of GL's
//! fragments once. Each draw runs the vertex shader again: a vertex shader that stores to
//! memory stores four times, and pipeline statistics count the draw four times.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::converted_draws::{
    app_binding, dispatch_outside_render_pass, index_bytes, make_compute, Dispatch, GpuDraw,
};
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::commands::render_targets::resumable_target;
use crate::layer::data::layer_memory::LayerCompute;
use crate::layer::data::lines::{BoundStartPixels, StippleCounting};
use crate::layer::data::records::{BlockBinding, BoundIndexBuffer, CommandBufferState};
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
    bands: Option<BlockPush>,
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
    /// Primitive restart (an indexed draw's), and the bound index buffer.
    restart: bool,
    index_buffer: Option<BoundIndexBuffer>,
}

/// The GL-state block as the layer pushed it (its `flags`), and how to push its fields
/// again: the band passes' flags, a strip's counts.
#[derive(Clone, Copy)]
pub(crate) struct BlockPush {
    push: vk::PFN_vkCmdPushConstants,
    binding: BlockBinding,
    flags: u32,
}

impl BlockPush {
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
            .map(|(push, binding)| BlockPush {
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
                restart: s.pipeline.primitives.restart.unwrap_or(s.restart_enable),
                index_buffer: s.index_buffer,
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

/// The compute shader that counts a strip's stipple (`shaders/stipple_counts.comp`,
/// compiled by glslang), and its two storage buffers: the layer's and the application's
/// indices.
const STIPPLE_COUNTS_SPV: &[u8] = include_bytes!("shaders/stipple_counts.spv");
const STIPPLE_COUNTS_BINDINGS: u32 = 2;

/// The stipple counter of `dev`, made on first use.
fn stipple_counter(dev: &DeviceData) -> Result<LayerCompute, &'static str> {
    *dev.draws
        .stipple_counter
        .lock()
        .get_or_insert_with(|| make_compute(dev, STIPPLE_COUNTS_SPV, STIPPLE_COUNTS_BINDINGS))
}

/// The most memory one strip's counts take.
const MAX_COUNT_BYTES: u64 = 64 << 20;

/// Captures the positions of `draw`, a strip with GL's stipple on, and counts its
/// segments' stipple on the GPU (the module doc): true where the draws may go down with
/// `FLAG_STIPPLE_COUNTED`. Where the layer cannot, the strip's stipple starts again at
/// each segment, said once per device.
fn count_stipple(what: &str, cb: Cb, draw: &Draw, strip: Strip, flags: &BlockPush) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let counted = CountedDraw::of(draw, &strip)
            .and_then(|counted| counted.count(&dev, cb, &strip, flags));
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

/// The span of slots an indexed draw's capture takes per instance (512 KiB of positions and
/// counts): its indices below it are counted; a strip through a higher one is drawn as an
/// uncounted strip is. (Spans from 2^15 up lose lavapipe's counts of indexed strips: not
/// explained.)
const INDEX_SPAN: u32 = 1 << 14;

/// A draw whose strips the layer counts.
#[derive(Clone, Copy)]
struct CountedDraw {
    /// Slots per instance: the vertex count, or the span of the indices.
    vertices: u32,
    instances: u32,
    /// `firstVertex`, or `vertexOffset`.
    first_vertex: u32,
    first_instance: u32,
    /// An indexed draw: `indexCount`, `firstIndex` and the bound index buffer.
    indexed: Option<(u32, u32, BoundIndexBuffer)>,
}

impl CountedDraw {
    fn of(draw: &Draw, strip: &Strip) -> Result<CountedDraw, &'static str> {
        match *draw {
            Draw::Direct([vertices, instances, first_vertex, first_instance]) => Ok(CountedDraw {
                vertices,
                instances,
                first_vertex,
                first_instance,
                indexed: None,
            }),
            Draw::Gpu(GpuDraw::Indexed {
                count,
                instances,
                first,
                vertex_offset,
                first_instance,
            }) => {
                let bound = strip.index_buffer.ok_or("no index buffer is bound")?;
                let span = match bound.index_type {
                    vk::IndexType::UINT8_EXT => 1 << 8,
                    _ => INDEX_SPAN,
                };
                Ok(CountedDraw {
                    vertices: span,
                    instances,
                    first_vertex: vertex_offset as u32,
                    first_instance,
                    indexed: Some((count, first, bound)),
                })
            }
            Draw::Gpu(GpuDraw::Indirect { .. }) => Err("an indirect draw's are not counted"),
        }
    }

    /// The capture draw, the compute shader's dispatch outside the render pass instance,
    /// and the counts' address pushed: `Ok(false)` where no segment follows another.
    fn count(
        self,
        dev: &DeviceData,
        cb: Cb,
        strip: &Strip,
        flags: &BlockPush,
    ) -> Result<bool, &'static str> {
        let elements = self.indexed.map_or(self.vertices, |(count, ..)| count);
        let segments = match strip.closed {
            true => elements,
            false => elements.saturating_sub(1),
        };
        if segments < 2 || self.instances == 0 {
            return Ok(false);
        }
        let slots = u64::from(self.vertices) * u64::from(self.instances);
        let bytes = StippleCounts::bytes(slots);
        if bytes > MAX_COUNT_BYTES {
            return Err("a draw longer than the layer counts");
        }
        let t = &dev.table;
        let (Some(draw), Some(draw_indexed), Some(address_of)) =
            (t.cmd_draw, t.cmd_draw_indexed, t.get_buffer_device_address)
        else {
            return Err("the device lacks a command the layer's counts need");
        };
        let indices = match self.indexed {
            Some((_, _, bound)) => Some(app_binding(dev, bound.buffer, bound.offset)?),
            None => None,
        };
        // Nothing is recorded where the instance cannot be ended (the capture draw would
        // count in an active query or transform feedback).
        resumable_target(dev, cb)?;
        let counter = stipple_counter(dev)?;
        let usage =
            vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS;
        let chunk = new_host_buffer(dev, bytes, usage).ok_or("no memory for the counts")?;
        let header = self.header(strip, slots as u32, indices.map(|(_, inside)| inside));
        // SAFETY: the chunk's mapping is `bytes` long (the header, then `2 * slots` vec4s),
        // host-coherent, and used by no pending work (new).
        unsafe {
            let words = chunk.mapped as *mut u32;
            std::ptr::copy_nonoverlapping(header.as_ptr(), words, header.len());
            // The counts not counted (a strip through an index past the span) read as
            // none: the fragment test then finds the segment's other end by the parity.
            let counts = words.add(header.len() + 4 * slots as usize);
            std::slice::from_raw_parts_mut(counts, 4 * slots as usize).fill((-1.0f32).to_bits());
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
        // `Dispatchable`) inside its render pass instance, its index buffer bound: its
        // vertices go out of the view volume, their positions to the layer's buffer.
        unsafe {
            match self.indexed {
                Some((count, first, _)) => draw_indexed(
                    cb.handle(),
                    count,
                    self.instances,
                    first,
                    self.first_vertex as i32,
                    self.first_instance,
                ),
                None => draw(
                    cb.handle(),
                    self.vertices,
                    self.instances,
                    self.first_vertex,
                    self.first_instance,
                ),
            }
        };
        let whole = vk::DescriptorBufferInfo {
            buffer: chunk.buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        };
        let buffers = [whole, indices.map_or(whole, |(info, _)| info)];
        let dispatch = Dispatch {
            compute: counter,
            chunk,
            buffers: &buffers,
            groups: self.instances,
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

    /// The buffer's header ([`StippleCounts`]); `index_offset`: where the bound index
    /// buffer begins in the compute shader's binding of it.
    fn header(&self, strip: &Strip, slots: u32, index_offset: Option<u32>) -> Vec<u32> {
        let mut header = vec![0u32; StippleCounts::HEADER_WORDS as usize];
        let mut set = |field: u32, value: u32| header[field as usize] = value;
        set(StippleCounts::VERTICES, self.vertices);
        set(StippleCounts::FIRST_VERTEX, self.first_vertex);
        set(StippleCounts::SLOTS, slots);
        set(StippleCounts::FIRST_INSTANCE, self.first_instance);
        let mut bits = 0;
        if strip.counting.provoking_last {
            bits |= StippleCounts::PROVOKING_LAST;
        }
        if strip.closed {
            bits |= StippleCounts::CLOSED;
        }
        if let (Some((count, first, bound)), Some(offset)) = (self.indexed, index_offset) {
            bits |= StippleCounts::INDEXED;
            if strip.restart {
                bits |= StippleCounts::RESTART;
            }
            set(StippleCounts::INDEX_COUNT, count);
            set(StippleCounts::FIRST_INDEX, first);
            set(
                StippleCounts::INDEX_BYTES,
                index_bytes(bound.index_type).unwrap_or(4),
            );
            set(StippleCounts::INDEX_OFFSET, offset);
        }
        set(StippleCounts::FLAGS, bits);
        let transform = [strip.viewport_scale, strip.viewport_offset].concat();
        for (i, value) in (StippleCounts::VIEWPORT..).zip(transform) {
            set(i, value.to_bits());
        }
        header
    }
}

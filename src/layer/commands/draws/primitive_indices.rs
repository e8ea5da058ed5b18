//! GL's quads, quad strips and polygons without a geometry shader (the index route: a
//! device without `geometryShader`, or `primitive_mode_route = indices`): the pipeline
//! draws a triangle, line or point list (`rules/primitive_mode.rs`), and each `vkCmdDraw`
//! of it is replaced by an indexed draw of the mode's pattern
//! ([`IndexedPrimitive::indices`]) from an index buffer of the layer's, offset by the
//! draw's first vertex, with the draw's instances and base instance. A polygon drawn as
//! lines gets its closing edge from the line loops' pair buffer. The application's index
//! buffer binding is put back afterwards.
//!
//! Indexed and indirect draws depend on the application's indices or parameters: they are
//! converted on the GPU (`converted_draws`, primitive restart included); where the layer
//! cannot, they are not drawn (never drawn as something else), and the layer says so once
//! per device with a `glsem: error:` line.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::converted_draws::{
    bind_index_buffer_again, draw_converted, Conversion, GpuDraw,
};
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::data::layer_memory::PrimitiveIndices;
use crate::layer::data::records::CommandBufferState;
use crate::layer::loader::frames::shield;
use crate::layer::loader::host_memory::{destroy_chunk, new_host_buffer};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;
use glsem_spirv::primitive_mode::IndexedPrimitive;

/// The first buffer of a pattern serves draws of up to this many vertices; a longer draw
/// makes one of the next power of two.
const FIRST_VERTICES: u32 = 1 << 12;
/// The longest draw drawn (a quad strip drawn as lines takes 4 indices a vertex: 16 MiB).
const MAX_VERTICES: u32 = 1 << 20;
/// The longest polygon whose closing edge the line loops' pair buffer holds.
const MAX_CLOSED_VERTICES: u32 = 1 << 16;

impl PrimitiveIndices {
    /// An index buffer of `p`'s pattern for a draw of `vertex_count` vertices, made (or
    /// grown) on first need; `None`: no memory for it, or a draw longer than the layer
    /// draws.
    pub fn buffer(
        &self,
        dev: &DeviceData,
        p: &IndexedPrimitive,
        vertex_count: u32,
    ) -> Option<vk::Buffer> {
        let needed = p.periods(vertex_count);
        let mut buffers = self.buffers.lock();
        let made = buffers.entry(*p).or_default();
        if let Some((held, chunk)) = made.last() {
            if *held >= needed {
                return Some(chunk.buffer);
            }
        }
        if vertex_count > MAX_VERTICES {
            return None;
        }
        let vertices = vertex_count
            .max(FIRST_VERTICES)
            .next_power_of_two()
            .min(MAX_VERTICES);
        let periods = p.periods(vertices);
        let indices = p.indices(periods);
        let bytes = (indices.len().max(1) * 4) as vk::DeviceSize;
        let chunk = new_host_buffer(dev, bytes, vk::BufferUsageFlags::INDEX_BUFFER)?;
        // SAFETY: the chunk's mapping is `bytes` long, host-coherent, and unused yet.
        unsafe {
            std::ptr::copy_nonoverlapping(indices.as_ptr(), chunk.mapped as *mut u32, indices.len())
        };
        let buffer = chunk.buffer;
        // The smaller buffers stay: draws recorded with them may be pending.
        made.push((periods, chunk));
        Some(buffer)
    }

    /// Destroys the index buffers (the device is going).
    pub fn destroy(&self, dev: &DeviceData) {
        for (_, made) in self.buffers.lock().drain() {
            for (_, chunk) in made {
                destroy_chunk(dev, chunk);
            }
        }
    }

    fn say_not_drawn(&self, why: &str) {
        if !self.skipped_said.swap(true, Ordering::Relaxed) {
            log::error!(
                "GL_QUADS, GL_QUAD_STRIP or GL_POLYGON without a geometry shader: {why}; the \
                 draw is skipped. Said once per device."
            );
        }
    }
}

/// GL's quads, quad strips and polygons on the index route at draw time: each draw of such
/// a pipeline replaced.
pub(crate) struct IndexRoute;

impl DrawRule for IndexRoute {
    type Before = ();

    /// The device has made a pipeline drawing GL's primitive mode on the index route.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.gl_primitive_pipelines.load(Ordering::Relaxed) != 0
    }

    fn replace(what: &'static str, cb: Cb, draw: &Draw, (): ()) -> bool {
        match *draw {
            Draw::Direct(direct) => replace_draw(what, cb, direct),
            Draw::Gpu(gpu) => convert_draw(what, cb, gpu),
        }
    }
}

/// The pattern of the pipeline bound to `cb`, if it draws GL's primitive mode on the index
/// route, with the provoking vertex mode set last where it is dynamic state.
fn bound(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) -> Option<IndexedPrimitive> {
    let mut cbs = dev.records.command_buffers.lock();
    let state = CommandBufferState::of(&mut cbs, cb.handle());
    let mut p = state.pipeline.primitives.gl_primitive?;
    if state.pipeline.primitives.provoking_dynamic {
        p.provoking_last = state.provoking_last.unwrap_or(p.provoking_last);
    }
    Some(p)
}

/// `vkCmdDraw`: where the bound pipeline draws GL's primitive mode on the index route,
/// draws it and returns true (the application's draw must not go down).
fn replace_draw(what: &str, cb: Cb, draw: [u32; 4]) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let p = bound(&dev, cb)?;
        draw_indices(&dev, cb, p, draw);
        Some(())
    })
    .flatten()
    .is_some()
}

/// An indexed or indirect draw (`what`): where the bound pipeline draws GL's primitive mode
/// on the index route, draws its primitives converted on the GPU (`converted_draws`) and
/// returns true (the application's draw must not go down); where the layer cannot, the
/// draw is skipped, never drawn as something else, and the layer says why once.
fn convert_draw(what: &str, cb: Cb, draw: GpuDraw) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let p = bound(&dev, cb)?;
        if let Err(why) = draw_converted(&dev, cb, draw, Conversion::Primitives(p)) {
            dev.draws
                .primitives
                .say_not_drawn(&format!("{what} cannot be converted: {why}"));
        }
        Some(())
    })
    .flatten()
    .is_some()
}

/// One indexed draw from an index buffer of the layer's (`UINT32` indices).
pub(crate) struct LayerIndices {
    pub buffer: vk::Buffer,
    pub count: u32,
    pub first: u32,
    pub vertex_offset: i32,
}

/// Draws `draws` with the application's instances, then binds the application's index
/// buffer back: the draws that close line loops and replace GL's quads.
pub(crate) fn draw_layer_indices(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    draws: &[LayerIndices],
    instance_count: u32,
    first_instance: u32,
) {
    let t = &dev.table;
    let (Some(bind), Some(draw_indexed)) = (t.cmd_bind_index_buffer, t.cmd_draw_indexed) else {
        return;
    };
    let restore =
        CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle()).index_buffer;
    // SAFETY: a live command buffer (a `Dispatchable`) recording a draw of a pipeline that
    // draws GL's primitive mode (the application's vkCmdDraw just went down, or is drawn in
    // its place); each buffer is the layer's, holding `count` indices from `first`; the
    // application's binding is put back after.
    unsafe {
        for d in draws {
            bind(cb.handle(), d.buffer, 0, vk::IndexType::UINT32);
            draw_indexed(
                cb.handle(),
                d.count,
                instance_count,
                d.first,
                d.vertex_offset,
                first_instance,
            );
        }
        bind_index_buffer_again(bind, cb, restore);
    }
}

/// Draws GL's primitives of the application's `vkCmdDraw` (`draw`: vertex count, instance
/// count, first vertex, first instance) as the layer's indexed draw.
fn draw_indices(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    p: IndexedPrimitive,
    draw: [u32; 4],
) {
    let [vertex_count, instance_count, first_vertex, first_instance] = draw;
    let count = p.index_count(vertex_count);
    if count == 0 || instance_count == 0 {
        return;
    }
    let (Some(buffer), Ok(count), Ok(vertex_offset)) = (
        dev.draws.primitives.buffer(dev, &p, vertex_count),
        u32::try_from(count),
        i32::try_from(first_vertex),
    ) else {
        dev.draws.primitives.say_not_drawn(&format!(
            "a draw of {vertex_count} vertices from vertex {first_vertex} is past what the \
             layer draws ({MAX_VERTICES} vertices, or no memory for its indices)"
        ));
        return;
    };
    let closing = match p.closing_edge() {
        true if vertex_count <= MAX_CLOSED_VERTICES => dev.draws.loops.index_buffer(dev),
        true => {
            dev.draws.primitives.say_not_drawn(&format!(
                "a polygon of {vertex_count} vertices drawn as lines is longer than the \
                 {MAX_CLOSED_VERTICES} the layer closes"
            ));
            return;
        }
        false => None,
    };
    let pattern = LayerIndices {
        buffer,
        count,
        first: 0,
        vertex_offset,
    };
    // A polygon drawn as lines: its closing edge from the line loops' pair buffer, pair
    // `vertex_count - 1` at index 2 * (vertex_count - 1).
    let closing = closing.map(|pairs| LayerIndices {
        buffer: pairs,
        count: 2,
        first: 2 * (vertex_count - 1),
        vertex_offset,
    });
    match closing {
        Some(closing) => {
            draw_layer_indices(dev, cb, &[pattern, closing], instance_count, first_instance)
        }
        None => draw_layer_indices(dev, cb, &[pattern], instance_count, first_instance),
    }
}

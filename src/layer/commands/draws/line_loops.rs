//! GL's line loops (`GL_LINE_LOOP` through `VkPipelinePrimitiveModeCreateInfoGLSEM`): the
//! pipeline draws a line strip, and after each non-indexed draw of one the layer draws the
//! closing segment from the last vertex back to the first, as an indexed draw of two
//! indices `(n - 1, 0)` offset by the draw's first vertex, from an index buffer of the
//! layer's that holds every such pair. The application's index buffer binding is put back
//! afterwards. Instancing, `gl_VertexID` and the base instance are the draw's own.
//!
//! Indexed and indirect draws of a line loop depend on the application's indices or
//! parameters: they are closed on the GPU (`converted_draws`). A closing segment of a
//! non-indexed draw is a draw of its own, so the line stipple starts over on it (GL
//! continues the pattern).

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::converted_draws::{self, Conversion, GpuDraw};
use crate::layer::commands::draws::primitive_indices;
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::data::layer_memory::LineLoops;
use crate::layer::data::records::CommandBufferState;
use crate::layer::loader::frames::shield;
use crate::layer::loader::host_memory::{destroy_chunk, new_host_buffer};
use crate::layer::loader::registry::device_data;
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;

/// The longest loop closed: the index buffer holds a pair per vertex count up to it (512
/// KiB); longer loops stay open, and the layer says so.
const MAX_CLOSED_VERTICES: u32 = 1 << 16;

// `LineLoops` is a device's data (in `data/layer_memory.rs`, beside the other memory the layer
// owns); what needs the device's table is here.

impl LineLoops {
    /// The closing index buffer, made on first use (`None`: no memory for it).
    pub fn index_buffer(&self, dev: &DeviceData) -> Option<vk::Buffer> {
        let mut made = self.buffer.lock();
        let chunk = made.get_or_insert_with(|| {
            let bytes = u64::from(MAX_CLOSED_VERTICES) * 8;
            let chunk = new_host_buffer(dev, bytes, vk::BufferUsageFlags::INDEX_BUFFER)?;
            // Pair k holds (k, 0): the closing segment of a loop of k + 1 vertices.
            let pairs: Vec<u32> = (0..MAX_CLOSED_VERTICES).flat_map(|k| [k, 0]).collect();
            // SAFETY: the chunk's mapping is `bytes` long, host-coherent, and unused yet.
            unsafe {
                std::ptr::copy_nonoverlapping(pairs.as_ptr(), chunk.mapped as *mut u32, pairs.len())
            };
            Some(chunk)
        });
        chunk.as_ref().map(|c| c.buffer)
    }

    /// Destroys the index buffer (the device is going).
    pub fn destroy(&self, dev: &DeviceData) {
        if let Some(Some(chunk)) = self.buffer.lock().take() {
            destroy_chunk(dev, chunk);
        }
    }

    fn warn_open(&self, why: &str) {
        if !self.open_warned.swap(true, Ordering::Relaxed) {
            log::warning!(
                "GL_LINE_LOOP: {why}; the loop is drawn open (without its closing segment). \
                 Said once per device."
            );
        }
    }
}

/// GL's line loops at draw time: each draw of a line-loop pipeline closed.
pub(crate) struct ClosedLoops;

impl DrawRule for ClosedLoops {
    type Before = ();

    /// The device has made a line-loop pipeline or drawn line loops with shader objects.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.line_loop_pipelines.load(Ordering::Relaxed) != 0
            || dev.records.line_loop_objects.load(Ordering::Relaxed)
    }

    /// An indexed or indirect draw: closed on the GPU ([`close_on_gpu`]).
    fn replace(what: &'static str, cb: Cb, draw: &Draw, (): ()) -> bool {
        match *draw {
            Draw::Gpu(gpu) => close_on_gpu(what, cb, gpu),
            Draw::Direct(_) => false,
        }
    }

    /// `vkCmdDraw`: the closing segment drawn after it ([`close`]).
    fn after(what: &'static str, cb: Cb, draw: &Draw) {
        let Draw::Direct(direct) = *draw else {
            return;
        };
        shield(what, || {
            let Some(dev) = device_data(cb) else {
                return;
            };
            if line_loop_bound(&dev, cb) {
                close(&dev, cb, direct);
            }
        });
    }
}

/// Whether a line-loop pipeline is bound to `cb`.
fn line_loop_bound(dev: &DeviceData, cb: Cb) -> bool {
    CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
        .pipeline
        .primitives
        .line_loop
}

/// Draws the closing segment of the loop the application's `vkCmdDraw` just drew.
fn close(dev: &DeviceData, cb: Cb, draw: [u32; 4]) {
    let [vertex_count, instance_count, first_vertex, first_instance] = draw;
    if vertex_count < 2 || instance_count == 0 {
        return;
    }
    if vertex_count > MAX_CLOSED_VERTICES {
        dev.draws.loops.warn_open(&format!(
            "a draw of {vertex_count} vertices is longer than the {MAX_CLOSED_VERTICES} the \
             layer closes"
        ));
        return;
    }
    let Some(buffer) = dev.draws.loops.index_buffer(dev) else {
        return;
    };
    let closing = primitive_indices::LayerIndices {
        buffer,
        count: 2,
        first: 2 * (vertex_count - 1),
        vertex_offset: first_vertex as i32,
    };
    primitive_indices::draw_layer_indices(dev, cb, &[closing], instance_count, first_instance);
}

/// An indexed or indirect draw (`what`) of a bound line-loop pipeline: drawn by the layer
/// with its loops closed (true: the application's draw must not go down), or, where the
/// layer cannot, left to be drawn open, said once.
fn close_on_gpu(what: &str, cb: Cb, draw: GpuDraw) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        if !line_loop_bound(&dev, cb) {
            return None;
        }
        match converted_draws::draw_converted(&dev, cb, draw, Conversion::Loops) {
            Ok(()) => Some(()),
            Err(why) => {
                dev.draws
                    .loops
                    .warn_open(&format!("{what} cannot be closed: {why}"));
                None
            }
        }
    })
    .flatten()
    .is_some()
}

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

use crate::layer::commands::base_instance;
use crate::layer::commands::converted_draws::{self, Conversion, GpuDraw};
use crate::layer::commands::current_attributes::{destroy_chunk, new_host_buffer};
use crate::layer::commands::lines;
use crate::layer::commands::primitive_indices;
use crate::layer::data::attribute_memory::LineLoops;
use crate::layer::data::records::{BoundIndexBuffer, CommandBufferState};
use crate::layer::loader::frames::{command_hook, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;

/// The longest loop closed: the index buffer holds a pair per vertex count up to it (512
/// KiB); longer loops stay open, and the layer says so.
const MAX_CLOSED_VERTICES: u32 = 1 << 16;

// `LineLoops` is a device's data (in `attribute_memory`, beside the other memory the layer
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

    /// Destroys the index buffer and the converter (the device is going).
    pub fn destroy(&self, dev: &DeviceData) {
        if let Some(Some(chunk)) = self.buffer.lock().take() {
            destroy_chunk(dev, chunk);
        }
        converted_draws::destroy(dev);
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

/// Whether the device has made a line-loop pipeline or drawn line loops with shader
/// objects (atomic loads, for the draw hooks).
fn loops(dev: &DeviceData) -> bool {
    dev.records.line_loop_pipelines.load(Ordering::Relaxed) != 0
        || dev.records.line_loop_objects.load(Ordering::Relaxed)
}

/// Whether a line-loop pipeline is bound to `cb` (a lookup only on devices that made one).
fn line_loop_bound(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) -> bool {
    loops(dev)
        && CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
            .bound_line_loop
}

/// What the draw hooks may have to do on a device: atomic loads only, read once per draw.
#[derive(Clone, Copy)]
struct DrawWork {
    /// A line-loop pipeline may be bound.
    loops: bool,
    /// GL's quads may be drawn on the index route.
    primitives: bool,
    /// A vertex shader may read the base instance from the block.
    base: bool,
    /// A pipeline on the fragment line route may be bound.
    start_pixels: bool,
}

impl DrawWork {
    fn of(dev: &DeviceData) -> DrawWork {
        DrawWork {
            loops: loops(dev),
            primitives: primitive_indices::drawn(dev),
            base: base_instance::pushed(dev),
            start_pixels: lines::draws_start_pixels(dev),
        }
    }
}

/// Draws the closing segment of the loop the application's `vkCmdDraw` just drew.
fn close(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>, draw: [u32; 4]) {
    let [vertex_count, instance_count, first_vertex, first_instance] = draw;
    if vertex_count < 2 || instance_count == 0 {
        return;
    }
    if vertex_count > MAX_CLOSED_VERTICES {
        dev.line_loops.warn_open(&format!(
            "a draw of {vertex_count} vertices is longer than the {MAX_CLOSED_VERTICES} the \
             layer closes"
        ));
        return;
    }
    let Some(buffer) = dev.line_loops.index_buffer(dev) else {
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

command_hook! {
    /// `vkCmdDraw` (devices with `VK_GLSEM_gl_state`): a line loop's closing segment after it;
    /// GL's quads, quad strips and polygons on the index route drawn in its place
    /// (`primitive_indices`).
    "vkCmdDraw",
    fn cmd_draw(
        cb,
        vertex_count: u32,
        instance_count: u32,
        first_vertex: u32,
        first_instance: u32,
    ),
    read |d| DrawWork::of(d),
    calls_down |next, DrawWork { loops, primitives, base, start_pixels }| {
        let draw = [vertex_count, instance_count, first_vertex, first_instance];
        if base {
            base_instance::before_draw("vkCmdDraw", cb, Some(first_instance));
        }
        let draw_once = || {
            if primitives && primitive_indices::replace_draw(cb, draw) {
                return;
            }
            // SAFETY: the next layer's `vkCmdDraw` with the arguments the application gave
            // this hook, valid for it as they were for the hook (Vulkan's valid usage).
            unsafe { next(cb.handle(), vertex_count, instance_count, first_vertex, first_instance) };
            if loops {
                shield("vkCmdDraw", || {
                    let Some(dev) = device_data(cb) else {
                        return;
                    };
                    if line_loop_bound(&dev, cb) {
                        close(&dev, cb, draw);
                    }
                });
            }
        };
        draw_once();
        if start_pixels {
            lines::draw_again("vkCmdDraw", cb, draw_once);
        }
    }
}

command_hook! {
    /// `vkCmdBindIndexBuffer` (devices with `VK_GLSEM_gl_state`): remembered, so that a line
    /// loop's closing segment can put it back.
    "vkCmdBindIndexBuffer",
    fn cmd_bind_index_buffer(
        cb,
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        index_type: vk::IndexType,
    ),
    then |()| {
        shield("vkCmdBindIndexBuffer", || {
            let Some(dev) = device_data(cb) else {
                return;
            };
            let mut cbs = dev.records.command_buffers.lock();
            CommandBufferState::of(&mut cbs, cb.handle()).index_buffer = Some(BoundIndexBuffer {
                buffer,
                offset,
                index_type,
            });
        });
    }
}

/// An indexed or indirect draw (`what`) of a bound line-loop pipeline: drawn by the layer
/// with its loops closed (true: the application's draw must not go down), or, where the
/// layer cannot, left to be drawn open, said once.
fn close_on_gpu(what: &str, cb: Dispatchable<vk::CommandBuffer>, draw: GpuDraw) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        if !line_loop_bound(&dev, cb) {
            return None;
        }
        match converted_draws::draw_converted(&dev, cb, draw, Conversion::Loops) {
            Ok(()) => Some(()),
            Err(why) => {
                dev.line_loops
                    .warn_open(&format!("{what} cannot be closed: {why}"));
                None
            }
        }
    })
    .flatten()
    .is_some()
}

/// A draw hook whose draws depend on the application's indices or parameters: a line loop
/// drawn with one is closed on the GPU ([`close_on_gpu`]), GL's quads, quad strips and
/// polygons on the index route converted there ([`primitive_indices::convert_draw`]).
macro_rules! gpu_draw_hook {
    (
        $what:literal,
        $draw:literal,
        fn $hook:ident($($arg:ident: $ty:ty),*),
        first_instance: $first_instance:expr,
        loop_draw: $loop_draw:expr
    ) => {
        command_hook! {
            #[doc = concat!("`", $what, "` (devices with `VK_GLSEM_gl_state`): a line loop")]
            /// closed on the GPU, GL's quads on the index route converted there.
            $what,
            fn $hook(cb, $($arg: $ty),*),
            read |d| DrawWork::of(d),
            calls_down |next, DrawWork { loops, primitives, base, start_pixels }| {
                let what = concat!($draw, " (", $what, ")");
                let first_instance: Option<u32> = $first_instance;
                // An indirect draw whose firstInstance the layer makes 0 pushes 0.
                let zeroed = base && first_instance.is_none() && base_instance::zeroed(what, cb);
                if base {
                    let pushed = if zeroed { Some(0) } else { first_instance };
                    base_instance::before_draw(what, cb, pushed);
                }
                let draw_once = || {
                    if primitives && primitive_indices::convert_draw(what, cb, $loop_draw) {
                        return;
                    }
                    if loops && close_on_gpu(what, cb, $loop_draw) {
                        return;
                    }
                    if zeroed && base_instance::draw_zeroed(what, cb, $loop_draw) {
                        return;
                    }
                    // SAFETY: the next layer's command with the arguments the application
                    // gave this hook, valid for it as they were for the hook (Vulkan's valid
                    // usage).
                    unsafe { next(cb.handle() $(, $arg)*) };
                };
                draw_once();
                if start_pixels {
                    lines::draw_again(what, cb, draw_once);
                }
            }
        }
    };
}

gpu_draw_hook!(
    "vkCmdDrawIndexed",
    "an indexed draw",
    fn cmd_draw_indexed(
        index_count: u32,
        instance_count: u32,
        first_index: u32,
        vertex_offset: i32,
        first_instance: u32
    ),
    first_instance: Some(first_instance),
    loop_draw: GpuDraw::Indexed {
        count: index_count,
        instances: instance_count,
        first: first_index,
        vertex_offset,
        first_instance,
    }
);
gpu_draw_hook!(
    "vkCmdDrawIndirect",
    "an indirect draw",
    fn cmd_draw_indirect(buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32),
    first_instance: None,
    loop_draw: GpuDraw::Indirect {
        indexed: false,
        buffer,
        offset,
        draw_count,
        stride,
    }
);
gpu_draw_hook!(
    "vkCmdDrawIndexedIndirect",
    "an indexed indirect draw",
    fn cmd_draw_indexed_indirect(
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        draw_count: u32,
        stride: u32
    ),
    first_instance: None,
    loop_draw: GpuDraw::Indirect {
        indexed: true,
        buffer,
        offset,
        draw_count,
        stride,
    }
);

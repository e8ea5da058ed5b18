//! GL state per command buffer, behind the layer's device extensions:
//! `VK_GLSEM_tessellation_default_levels` (`glPatchParameterfv` default levels) and
//! `VK_GLSEM_gl_state` (`glPointSize`, `GL_PROGRAM_POINT_SIZE`, `GL_CLIP_DISTANCEi`; the
//! line rule's state commands are in `lines.rs`, the frame they share in
//! `gl_state_block.rs`).
//!
//! Under GL's window conventions (`WindowConventions`) the block also holds
//! `GL_POINT_SPRITE_COORD_ORIGIN` and the window height of GL's `gl_FragCoord.y` from the
//! viewport, and the layer inverts the front face the application sets where a positive
//! viewport turns GL's winding over.
//!
//! The state lives per command buffer (GL's initial values until set), is pushed as the
//! GL-state block when a pipeline or shader object that reads it is bound, and again when
//! it changes while one is bound; begin/reset puts it back to GL's initial values, free/pool
//! destruction drops it.
//!
//! Secondary command buffers have state of their own (GL's initial values until set in
//! them): state set in a primary does not reach the secondaries it executes, just as
//! Vulkan's push constants and other state are not inherited. GL has no secondaries; record
//! the state where the draw is.

use ash::vk;

use crate::layer::commands::gl_state_block::{layer_command, push, set_flag, update};
use crate::layer::commands::lines::follow_rasterization_samples;
use crate::layer::data::records::CommandBufferState;
use crate::layer::loader::frames::{command_hook, destroy_hook, hook, shield};
use crate::layer::loader::host_memory::release;
use crate::layer::loader::registry::{device_data, in_device_call, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::pipeline_info::inverted;
use crate::layer::support::ffi::slice;
use crate::layer::support::log;
use glsem_spirv::gl_state::{
    flag_clip_distance, CLIP_DISTANCE_FLAGS, FLAG_LAYERED, FLAG_MULTISAMPLED,
    FLAG_POINT_SPRITE_LOWER_LEFT, FLAG_PROGRAM_POINT_SIZE,
};

layer_command! {
    /// `vkCmdSetTessellationDefaultLevelsGLSEM` (`include/vk_glsem.h`).
    fn cmd_set_tessellation_default_levels(
        command_buffer: vk::CommandBuffer,
        outer: *const f32,
        inner: *const f32
    ) {
        const WHAT: &str = "vkCmdSetTessellationDefaultLevelsGLSEM";
        if outer.is_null() || inner.is_null() {
            log::error!("{WHAT}: outer and inner must not be NULL");
            return;
        }
        // SAFETY: the application passes 4 outer and 2 inner levels (the command's contract).
        let (outer, inner) = unsafe { (slice(outer, 4), slice(inner, 2)) };
        update(WHAT, command_buffer, |v| {
            v.outer.copy_from_slice(outer);
            v.inner.copy_from_slice(inner);
        })
    }
}

layer_command! {
    /// `vkCmdSetPointSizeGLSEM` (`include/vk_glsem.h`).
    fn cmd_set_point_size(command_buffer: vk::CommandBuffer, size: f32) {
        // GL: glPointSize with a size <= 0 is GL_INVALID_VALUE and changes nothing.
        if size.is_nan() || size <= 0.0 {
            log::error!(
                "vkCmdSetPointSizeGLSEM: size {size} is not positive; ignored (GL_INVALID_VALUE)"
            );
            return;
        }
        update("vkCmdSetPointSizeGLSEM", command_buffer, |v| {
            v.point_size = size
        })
    }
}

layer_command! {
    /// `vkCmdSetProgramPointSizeEnableGLSEM` (`include/vk_glsem.h`).
    fn cmd_set_program_point_size_enable(command_buffer: vk::CommandBuffer, enable: vk::Bool32) {
        update("vkCmdSetProgramPointSizeEnableGLSEM", command_buffer, |v| {
            set_flag(&mut v.flags, FLAG_PROGRAM_POINT_SIZE, enable)
        })
    }
}

layer_command! {
    /// `vkCmdSetClipDistanceEnableGLSEM` (`include/vk_glsem.h`).
    fn cmd_set_clip_distance_enable(command_buffer: vk::CommandBuffer, mask: u32) {
        let planes = (1u32 << CLIP_DISTANCE_FLAGS) - 1;
        if mask & !planes != 0 {
            log::warning!(
                "vkCmdSetClipDistanceEnableGLSEM: mask {mask:#x} enables planes past the \
                 {CLIP_DISTANCE_FLAGS} the layer supports; they stay disabled"
            );
        }
        let all = (0..CLIP_DISTANCE_FLAGS).fold(0, |acc, i| acc | flag_clip_distance(i));
        update("vkCmdSetClipDistanceEnableGLSEM", command_buffer, |v| {
            v.flags = (v.flags & !all) | ((mask & planes) << 8);
        })
    }
}

command_hook! {
    /// `vkCmdSetRasterizationSamplesEXT`: GL's line rule follows the sample count
    /// (`followed_state`), and so does `gl_SampleMask` (the GL-state block's multisampled
    /// flag, pushed where a bound fragment shader reads it).
    "vkCmdSetRasterizationSamplesEXT",
    fn cmd_set_rasterization_samples[cmd_set_rasterization_samples_ext](
        command_buffer,
        samples: vk::SampleCountFlags,
    ),
    read |d| d.extensions.gl_state,
    then |gl_state| {
        if gl_state {
            follow_rasterization_samples(command_buffer, samples);
            let multisampled = samples != vk::SampleCountFlags::TYPE_1;
            update("vkCmdSetRasterizationSamplesEXT", command_buffer, |v| {
                set_flag(&mut v.flags, FLAG_MULTISAMPLED, multisampled.into())
            });
        }
    }
}

layer_command! {
    /// `vkCmdSetPointSpriteCoordOriginGLSEM` (`include/vk_glsem.h`).
    fn cmd_set_point_sprite_coord_origin(
        command_buffer: vk::CommandBuffer,
        lower_left: vk::Bool32
    ) {
        update("vkCmdSetPointSpriteCoordOriginGLSEM", command_buffer, |v| {
            set_flag(&mut v.flags, FLAG_POINT_SPRITE_LOWER_LEFT, lower_left)
        })
    }
}

/// Viewport 0 of a `vkCmdSetViewport*` call: its transform (GL's line endpoints) and `H` of
/// GL's `gl_FragCoord.y = H - y`.
///
/// # Safety
/// `viewports` holds `count` viewports (Vulkan's valid usage for the command).
unsafe fn set_viewport(
    what: &str,
    command_buffer: Dispatchable<vk::CommandBuffer>,
    first: u32,
    count: u32,
    viewports: *const vk::Viewport,
) {
    let Some((gl_state, flipped)) = in_device_call(command_buffer, |d| {
        (
            d.extensions.gl_state,
            d.conventions.window.negative_viewport,
        )
    }) else {
        return;
    };
    if !gl_state || first != 0 || count == 0 || viewports.is_null() {
        return;
    }
    // SAFETY: a non-NULL array of `count` > 0 viewports (this function's contract).
    let viewport = unsafe { *viewports };
    update(what, command_buffer, |v| v.set_viewport(&viewport, flipped));
}

command_hook! {
    /// `vkCmdSetViewport`.
    "vkCmdSetViewport",
    fn cmd_set_viewport(command_buffer, first: u32, count: u32, viewports: *const vk::Viewport),
    then |()| {
        // SAFETY: the application's `count` viewports (Vulkan's valid usage).
        unsafe { set_viewport("vkCmdSetViewport", command_buffer, first, count, viewports) };
    }
}

command_hook! {
    /// `vkCmdSetViewportWithCount` (and its EXT alias).
    "vkCmdSetViewportWithCount",
    fn cmd_set_viewport_with_count(command_buffer, count: u32, viewports: *const vk::Viewport),
    then |()| {
        // SAFETY: the application's `count` viewports (Vulkan's valid usage).
        unsafe {
            set_viewport(
                "vkCmdSetViewportWithCount",
                command_buffer,
                0,
                count,
                viewports,
            )
        };
    }
}

command_hook! {
    /// `vkCmdSetFrontFace` (and its EXT alias): inverted where the layer inverts it in
    /// pipelines (a positive viewport turns GL's winding over).
    "vkCmdSetFrontFace",
    fn cmd_set_front_face(command_buffer, front_face: vk::FrontFace),
    read |d| d.conventions.window.inverted_front_face,
    calls_down |next, invert| {
        let face = match invert {
            true => inverted(front_face),
            false => front_face,
        };
        // SAFETY: the application's command buffer; a valid face.
        unsafe { next(command_buffer.handle(), face) };
    }
}

hook! {
    /// `vkAllocateCommandBuffers`: GL's initial state for every new command buffer.
    "vkAllocateCommandBuffers" in call_with_next,
    fn allocate_command_buffers(
        device: vk::Device,
        p_allocate_info: *const vk::CommandBufferAllocateInfo<'_>,
        p_command_buffers: *mut vk::CommandBuffer
    ) -> vk::Result =>
    |dev, next| {
        // SAFETY: the next layer's `vkAllocateCommandBuffers` with the arguments the
        // application gave this hook, which Vulkan's valid usage for the command (this
        // hook's contract) makes valid for it as they were for the hook.
        let result = unsafe { next(device, p_allocate_info, p_command_buffers) };
        if result == vk::Result::SUCCESS {
            shield("vkAllocateCommandBuffers", || {
                // SAFETY: valid per Vulkan's valid usage; the driver filled
                // commandBufferCount handles.
                let (info, handles) = unsafe {
                    let info = &*p_allocate_info;
                    (info, slice(p_command_buffers, info.command_buffer_count))
                };
                let mut cbs = dev.records.command_buffers.lock();
                for &cb in handles {
                    cbs.insert(cb, CommandBufferState::new(info.command_pool));
                }
            });
        }
        result
    }
}

hook! {
    /// `vkFreeCommandBuffers`: their state goes first.
    "vkFreeCommandBuffers" in forget_then_call_down,
    fn free_command_buffers(
        device: vk::Device,
        pool: vk::CommandPool,
        count: u32,
        p_command_buffers: *const vk::CommandBuffer
    ) =>
    |dev| {
        let mut cbs = dev.records.command_buffers.lock();
        // SAFETY: `count` handles (Vulkan's valid usage).
        let gone: Vec<_> = unsafe { slice(p_command_buffers, count) }
            .iter()
            .filter_map(|cb| cbs.remove(cb))
            .collect();
        release(dev, gone);
    },
    // SAFETY: the next layer's `vkFreeCommandBuffers` with the arguments the application
    // gave this hook, which Vulkan's valid usage for the command (this hook's contract)
    // makes valid for it as they were for the hook.
    |free| unsafe { free(device, pool, count, p_command_buffers) }
}

impl CommandBufferState {
    /// State after `vkBeginCommandBuffer` / a reset: GL's initial state and nothing bound, as
    /// at allocation (the memory of its current attributes and conversions goes back to
    /// `dev`).
    pub fn reset(&mut self, dev: &DeviceData) {
        self.attributes.reset(dev);
        self.conversions.release(dev);
        *self = CommandBufferState::new(self.pool);
    }
}

/// Back to GL's initial state and no bound pipeline.
fn reset_state(dev: &DeviceData, command_buffer: vk::CommandBuffer) {
    if let Some(state) = dev.records.command_buffers.lock().get_mut(&command_buffer) {
        state.reset(dev);
    }
}

/// `vkBeginCommandBuffer` and `vkResetCommandBuffer`: the command buffer goes back to GL's
/// initial state, then the call goes down with the application's arguments.
macro_rules! back_to_initial_state {
    ($what:literal, $hook:ident($arg:ident: $ty:ty)) => {
        hook! {
            #[doc = concat!("`", $what, "`: back to GL's initial state.")]
            $what in call_with_next,
            fn $hook(command_buffer: vk::CommandBuffer, $arg: $ty) -> vk::Result =>
            |dev, next| {
                shield($what, || reset_state(dev, command_buffer));
                // SAFETY: the next layer's command with the arguments the application gave
                // this hook, which Vulkan's valid usage for the command (this hook's
                // contract) makes valid for it as they were for the hook.
                unsafe { next(command_buffer, $arg) }
            }
        }
    };
}

back_to_initial_state!(
    "vkBeginCommandBuffer",
    begin_command_buffer(p_begin_info: *const vk::CommandBufferBeginInfo<'_>)
);
back_to_initial_state!(
    "vkResetCommandBuffer",
    reset_command_buffer(flags: vk::CommandBufferResetFlags)
);

hook! {
    /// `vkResetCommandPool`: its command buffers go back to GL's initial state.
    "vkResetCommandPool" in call_with_next,
    fn reset_command_pool(
        device: vk::Device,
        pool: vk::CommandPool,
        flags: vk::CommandPoolResetFlags
    ) -> vk::Result =>
    |dev, next| {
        shield("vkResetCommandPool", || {
            for state in dev.records.command_buffers.lock().values_mut() {
                if state.pool == pool {
                    state.reset(dev);
                }
            }
        });
        // SAFETY: the next layer's `vkResetCommandPool` with the arguments the application
        // gave this hook, which Vulkan's valid usage for the command (this hook's contract)
        // makes valid for it as they were for the hook.
        unsafe { next(device, pool, flags) }
    }
}

destroy_hook!(
    /// `vkDestroyCommandPool`: the state of its command buffers goes first.
    "vkDestroyCommandPool", destroy_command_pool(pool: vk::CommandPool), |dev| {
        let mut cbs = dev.records.command_buffers.lock();
        let gone: Vec<_> = cbs
            .extract_if(|_, state| state.pool == pool)
            .map(|(_, state)| state)
            .collect();
        release(dev, gone);
    }
);

/// Sets the GL-state flag "the render target is layered" from the layer count a render pass
/// instance begins with (`VK_GLSEM_gl_state` devices only): `gl_Layer` counts only then.
pub(crate) fn begin_render_target(
    what: &str,
    command_buffer: Dispatchable<vk::CommandBuffer>,
    layers: impl FnOnce(&DeviceData) -> u32,
) {
    shield(what, || {
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        if !dev.extensions.gl_state {
            return;
        }
        let layered = layers(&dev) > 1;
        let (bound, values) = {
            let mut cbs = dev.records.command_buffers.lock();
            let state = cbs
                .entry(command_buffer.handle())
                .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
            let flags =
                (state.values.flags & !FLAG_LAYERED) | if layered { FLAG_LAYERED } else { 0 };
            if flags == state.values.flags {
                return;
            }
            state.values.flags = flags;
            (state.bound, state.values)
        };
        if let Some(at) = bound {
            push(&dev, command_buffer, at, &values);
        }
    });
}

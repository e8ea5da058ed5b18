//! `VK_GLSEM_tessellation_default_levels`: GL's `glPatchParameterfv` default levels, per
//! command buffer, pushed to the generated TCS (DESIGN.md §4.3 "Values").
//!
//! The levels live per command buffer (1.0 until set), are pushed when a pipeline with a
//! generated TCS is bound and again when they change while one is bound; begin/reset puts
//! them back to 1.0, free/pool destruction drops them.
//!
//! Secondary command buffers have levels of their own (1.0 until set in them): levels set in
//! a primary do not reach the secondaries it executes, just as Vulkan's push constants and
//! other state are not inherited. GL has no secondaries; record the levels where the draw is.

use ash::vk;
use std::sync::atomic::Ordering;

use super::records::{CommandBufferState, LevelsBinding};
use super::settings::slice;
use super::{
    call_with_next, device_data, ffi_guard, forget_then_call_down, log, maybe_inject_panic, shield,
    with_device, DeviceData,
};
use crate::spirv::passthrough_tcs::LEVELS_PUSH_CONSTANT_SIZE;

/// `PFN_vkCmdSetTessellationDefaultLevelsGLSEM` (see `include/vk_glsem.h`).
pub type PfnCmdSetTessellationDefaultLevels = unsafe extern "system" fn(
    command_buffer: vk::CommandBuffer,
    outer: *const f32,
    inner: *const f32,
);

fn push(dev: &DeviceData, cb: vk::CommandBuffer, at: LevelsBinding, levels: &[f32; 6]) {
    if let Some(push) = dev.table.cmd_push_constants {
        // SAFETY: `levels` is 24 bytes; the layout reserved them at `at.offset` for
        // `at.stages`.
        unsafe {
            push(
                cb,
                at.layout,
                at.stages,
                at.offset,
                LEVELS_PUSH_CONSTANT_SIZE,
                levels.as_ptr().cast(),
            )
        }
    }
}

pub unsafe extern "system" fn cmd_set_tessellation_default_levels(
    command_buffer: vk::CommandBuffer,
    outer: *const f32,
    inner: *const f32,
) {
    ffi_guard("vkCmdSetTessellationDefaultLevelsGLSEM", (), || {
        if outer.is_null() || inner.is_null() {
            log::error!("vkCmdSetTessellationDefaultLevelsGLSEM: outer and inner must not be NULL");
            return;
        }
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        maybe_inject_panic(&dev.settings, "vkCmdSetTessellationDefaultLevelsGLSEM");
        let (outer, inner) = (slice(outer, 4), slice(inner, 2));
        // Push-constant block order: inner[2], then outer[4].
        let levels = [inner[0], inner[1], outer[0], outer[1], outer[2], outer[3]];
        let bound = {
            let mut cbs = dev.records.command_buffers.lock();
            let state = cbs
                .entry(command_buffer)
                .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
            state.levels = levels;
            state.bound
        };
        if let Some(at) = bound {
            push(&dev, command_buffer, at, &levels);
        }
    })
}

pub unsafe extern "system" fn cmd_bind_pipeline(
    command_buffer: vk::CommandBuffer,
    bind_point: vk::PipelineBindPoint,
    pipeline: vk::Pipeline,
) {
    ffi_guard("vkCmdBindPipeline", (), || {
        // The hot path: one registry read and one atomic load, no Arc traffic.
        let Some((Some(next), generated_tcs_live)) = with_device(command_buffer, |d| {
            (
                d.table.cmd_bind_pipeline,
                d.records.generated_tcs_pipelines.load(Ordering::Relaxed),
            )
        }) else {
            return;
        };
        next(command_buffer, bind_point, pipeline);
        if generated_tcs_live == 0 || bind_point != vk::PipelineBindPoint::GRAPHICS {
            return;
        }
        shield("vkCmdBindPipeline", || {
            let Some(dev) = device_data(command_buffer) else {
                return;
            };
            maybe_inject_panic(&dev.settings, "vkCmdBindPipeline");
            let binding = dev
                .records
                .pipelines
                .read()
                .get(&pipeline)
                .and_then(|r| r.generated_tcs);
            let levels = {
                let mut cbs = dev.records.command_buffers.lock();
                let state = cbs
                    .entry(command_buffer)
                    .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
                state.bound = binding;
                state.levels
            };
            if let Some(at) = binding {
                push(&dev, command_buffer, at, &levels);
            }
        });
    })
}

pub unsafe extern "system" fn allocate_command_buffers(
    device: vk::Device,
    p_allocate_info: *const vk::CommandBufferAllocateInfo<'_>,
    p_command_buffers: *mut vk::CommandBuffer,
) -> vk::Result {
    call_with_next(
        "vkAllocateCommandBuffers",
        device,
        |t| t.allocate_command_buffers,
        |dev, next| {
            let result = next(device, p_allocate_info, p_command_buffers);
            if result == vk::Result::SUCCESS {
                shield("vkAllocateCommandBuffers", || {
                    let info = &*p_allocate_info;
                    let mut cbs = dev.records.command_buffers.lock();
                    for &cb in slice(p_command_buffers, info.command_buffer_count) {
                        cbs.insert(cb, CommandBufferState::new(info.command_pool));
                    }
                });
            }
            result
        },
    )
}

pub unsafe extern "system" fn free_command_buffers(
    device: vk::Device,
    pool: vk::CommandPool,
    count: u32,
    p_command_buffers: *const vk::CommandBuffer,
) {
    forget_then_call_down(
        "vkFreeCommandBuffers",
        device,
        |dev| {
            let mut cbs = dev.records.command_buffers.lock();
            for cb in slice(p_command_buffers, count) {
                cbs.remove(cb);
            }
        },
        |t| {
            if let Some(free) = t.free_command_buffers {
                free(device, pool, count, p_command_buffers);
            }
        },
    )
}

/// Back to GL's initial levels and no bound pipeline.
fn reset_state(dev: &DeviceData, command_buffer: vk::CommandBuffer) {
    if let Some(state) = dev.records.command_buffers.lock().get_mut(&command_buffer) {
        state.reset();
    }
}

pub unsafe extern "system" fn begin_command_buffer(
    command_buffer: vk::CommandBuffer,
    p_begin_info: *const vk::CommandBufferBeginInfo<'_>,
) -> vk::Result {
    call_with_next(
        "vkBeginCommandBuffer",
        command_buffer,
        |t| t.begin_command_buffer,
        |dev, next| {
            shield("vkBeginCommandBuffer", || reset_state(dev, command_buffer));
            next(command_buffer, p_begin_info)
        },
    )
}

pub unsafe extern "system" fn reset_command_buffer(
    command_buffer: vk::CommandBuffer,
    flags: vk::CommandBufferResetFlags,
) -> vk::Result {
    call_with_next(
        "vkResetCommandBuffer",
        command_buffer,
        |t| t.reset_command_buffer,
        |dev, next| {
            shield("vkResetCommandBuffer", || reset_state(dev, command_buffer));
            next(command_buffer, flags)
        },
    )
}

pub unsafe extern "system" fn reset_command_pool(
    device: vk::Device,
    pool: vk::CommandPool,
    flags: vk::CommandPoolResetFlags,
) -> vk::Result {
    call_with_next(
        "vkResetCommandPool",
        device,
        |t| t.reset_command_pool,
        |dev, next| {
            shield("vkResetCommandPool", || {
                for state in dev.records.command_buffers.lock().values_mut() {
                    if state.pool == pool {
                        state.reset();
                    }
                }
            });
            next(device, pool, flags)
        },
    )
}

pub unsafe extern "system" fn destroy_command_pool(
    device: vk::Device,
    pool: vk::CommandPool,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    forget_then_call_down(
        "vkDestroyCommandPool",
        device,
        |dev| {
            dev.records
                .command_buffers
                .lock()
                .retain(|_, state| state.pool != pool);
        },
        |t| {
            if let Some(destroy) = t.destroy_command_pool {
                destroy(device, pool, p_allocator);
            }
        },
    )
}

//! The GL-state block's way to the driver: pushed as the layout placed it, and its
//! `FLAG_LINES` following the topology and polygon mode set as dynamic state.

use ash::vk;

use crate::layer::data::records::{
    BlockBinding, CommandBufferState, DrawnPrimitives, GlStateValues,
};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use glsem_spirv::gl_state::BLOCK_SIZE;

/// Pushes `values`, the block's bytes, where the bound layout holds it (`at`).
pub(crate) fn push(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    at: BlockBinding,
    values: &GlStateValues,
) {
    const _: () = assert!(std::mem::size_of::<GlStateValues>() == BLOCK_SIZE as usize);
    if let Some(push) = dev.table.cmd_push_constants {
        debug_assert!(at.size <= BLOCK_SIZE);
        // SAFETY: a live command buffer (a `Dispatchable`); `values` is the block's
        // BLOCK_SIZE bytes, of which the first `at.size` are pushed; the layout reserved them
        // at `at.offset` for `at.stages`.
        unsafe {
            push(
                cb.handle(),
                at.layout,
                at.stages,
                at.offset,
                at.size,
                (values as *const GlStateValues).cast(),
            )
        }
    }
}

/// The topology or polygon mode set as dynamic state (`change`): the GL-state block's
/// `FLAG_LINES` follows, pushed again where it changed under a bound reader, on devices where
/// the layer moves GL's line endpoints or takes the fragment line route (the flag's
/// readers).
pub(crate) fn follow_drawn(
    command_buffer: Dispatchable<vk::CommandBuffer>,
    change: impl FnOnce(&mut DrawnPrimitives),
) {
    let Some(dev) = device_data(command_buffer) else {
        return;
    };
    let changed = {
        let mut cbs = dev.records.command_buffers.lock();
        drawn_changed(
            &dev,
            CommandBufferState::of(&mut cbs, command_buffer.handle()),
            change,
        )
    };
    if let Some((at, values)) = changed {
        push(&dev, command_buffer, at, &values);
    }
}

/// [`follow_drawn`] under the caller's lock of `state`: what to push once it is released
/// (`None`: nothing changed under a bound reader, or no code on `dev` reads the flag).
pub(crate) fn drawn_changed(
    dev: &DeviceData,
    state: &mut CommandBufferState,
    change: impl FnOnce(&mut DrawnPrimitives),
) -> Option<(BlockBinding, GlStateValues)> {
    if dev.conventions.line_endpoints.is_none() && !dev.conventions.fragment_lines {
        return None;
    }
    change(&mut state.drawn);
    let before = state.values.flags;
    state.values.set_lines(&state.drawn);
    state
        .bound
        .filter(|_| before != state.values.flags)
        .map(|at| (at, state.values))
}

//! The GL-state block's way to the driver: pushed as the layout placed it, and its
//! `FLAG_LINES` following the topology and polygon mode set as dynamic state.

use ash::vk;

use crate::layer::data::records::{
    BlockBinding, CommandBufferState, DrawnPrimitives, GlStateValues,
};
use crate::layer::loader::frames::{ffi_guard, maybe_inject_panic};
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
    if dev.conventions.lines.endpoints.is_none() && !dev.conventions.lines.fragment {
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

/// The frame of the layer's own state commands: `change` edits the state of
/// `command_buffer` (made on first use) under the lock and returns what `then` does with
/// the device afterwards, such as pushing the new values to a bound pipeline.
fn change_state<T>(
    what: &str,
    command_buffer: Dispatchable<vk::CommandBuffer>,
    change: impl FnOnce(&mut CommandBufferState) -> T,
    then: impl FnOnce(&DeviceData, T),
) {
    ffi_guard(what, (), || {
        let Some(dev) = device_data(command_buffer) else {
            return;
        };
        maybe_inject_panic(&dev.settings, what);
        let changed = {
            let mut cbs = dev.records.command_buffers.lock();
            let state = cbs
                .entry(command_buffer.handle())
                .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
            change(state)
        };
        then(&dev, changed);
    })
}

/// Changes the GL state of `cb` and pushes it if a pipeline that reads it is
/// bound.
pub(crate) fn update(
    what: &str,
    cb: Dispatchable<vk::CommandBuffer>,
    change: impl FnOnce(&mut GlStateValues),
) {
    update_then(what, cb, |s| change(&mut s.values), |_, ()| {});
}

/// [`update`] with more of the command buffer's state: `change` edits it under the lock;
/// `then` acts on what it returns, before the push.
pub(crate) fn update_then<T>(
    what: &str,
    command_buffer: Dispatchable<vk::CommandBuffer>,
    change: impl FnOnce(&mut CommandBufferState) -> T,
    then: impl FnOnce(&DeviceData, T),
) {
    change_state(
        what,
        command_buffer,
        |state| (change(state), state.bound, state.values),
        |dev, (changed, bound, values)| {
            then(dev, changed);
            if let Some(at) = bound {
                push(dev, command_buffer, at, &values);
            }
        },
    )
}

/// One of the layer's own commands (`include/vk_glsem.h`, handed out by
/// `dispatch::layer_command_list!`): writes its doc with the `# Safety` line they share
/// and its `extern "system"` signature around the body.
macro_rules! layer_command {
    (
        $(#[$doc:meta])*
        fn $name:ident($cb:ident: vk::CommandBuffer $(, $arg:ident: $ty:ty)* $(,)?) $body:block
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// A command buffer of a device with the extension enabled, in the recording state.
        pub unsafe extern "system" fn $name($cb: vk::CommandBuffer $(, $arg: $ty)*) {
            // SAFETY: a live command buffer (this command's contract). The body sees only
            // this proof.
            let $cb = unsafe { Dispatchable::new($cb) };
            $body
        }
    };
}
pub(crate) use layer_command;

/// Sets or clears `flag` in the block's `flags` as a GL enable does.
pub(crate) fn set_flag(flags: &mut u32, flag: u32, enable: vk::Bool32) {
    if enable != vk::FALSE {
        *flags |= flag;
    } else {
        *flags &= !flag;
    }
}

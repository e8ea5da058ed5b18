//! `gl_InstanceID` on a device without `shaderDrawParameters`: the vertex shader reads the
//! base instance from the GL-state block (`rules/instance_id.rs`), and each draw of such a
//! pipeline pushes its `firstInstance` there first, when it differs from the last pushed.
//!
//! An indirect draw's `firstInstance` is in a buffer the GPU reads: the layer pushes 0 and
//! draws from a copy of the commands whose `firstInstance` is 0 (`converted_draws`), which
//! gives the same vertices and gl_InstanceID where the pipeline reads no instance-rate
//! attribute. Where it does (or the copy cannot be made), the layer says once per device,
//! where the device enabled `drawIndirectFirstInstance`, that a base instance there is not
//! excluded.

use std::sync::atomic::Ordering;

use crate::layer::commands::draws::converted_draws::{
    draw_from_instance_zero, zeroes_first_instance, GpuDraw,
};
use crate::layer::commands::draws::rule::{Cb, Draw, DrawRule};
use crate::layer::data::records::CommandBufferState;
use crate::layer::loader::frames::shield;
use crate::layer::loader::registry::device_data;
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;
use glsem_spirv::gl_state::BASE_INSTANCE;

/// `gl_InstanceID` without `shaderDrawParameters` at draw time: each draw's base instance
/// pushed.
pub(crate) struct PushedBaseInstance;

impl DrawRule for PushedBaseInstance {
    /// The draw is indirect and goes down with `firstInstance` 0 ([`zeroed`]).
    type Before = bool;

    /// The device has made a pipeline whose draws push their base instance.
    fn armed(dev: &DeviceData) -> bool {
        dev.records.base_instance_pipelines.load(Ordering::Relaxed) != 0
    }

    fn before(what: &'static str, cb: Cb, draw: &Draw) -> bool {
        let first_instance = draw.first_instance();
        let zeroed = first_instance.is_none() && zeroed(what, cb);
        before_draw(what, cb, if zeroed { Some(0) } else { first_instance });
        zeroed
    }

    fn replace(what: &'static str, cb: Cb, draw: &Draw, zeroed: bool) -> bool {
        match *draw {
            Draw::Gpu(gpu) if zeroed => draw_zeroed(what, cb, gpu),
            _ => false,
        }
    }
}

/// Before a draw on `cb`: where the bound pipeline reads the base instance from the block,
/// pushes `first_instance` (`None`: an indirect draw, whose parameters the GPU reads).
fn before_draw(what: &str, cb: Cb, first_instance: Option<u32>) {
    shield(what, || {
        let Some(dev) = device_data(cb) else {
            return;
        };
        let binding = {
            let mut cbs = dev.records.command_buffers.lock();
            let state = CommandBufferState::of(&mut cbs, cb.handle());
            let base = first_instance.unwrap_or(0);
            match state.bound {
                Some(binding)
                    if state.pipeline.instances.base_from_block
                        && state.values.base_instance != base =>
                {
                    state.values.base_instance = base;
                    Some((binding, base))
                }
                _ => None,
            }
        };
        if first_instance.is_none() && dev.features.draw_indirect_first_instance {
            warn_indirect(&dev, what);
        }
        let (Some((binding, base)), Some(push)) = (binding, dev.table.cmd_push_constants) else {
            return;
        };
        if binding.size < BASE_INSTANCE + 4 {
            return;
        }
        // SAFETY: a live command buffer (a `Dispatchable`) recording; the bound pipeline's
        // layout holds the block's `size` bytes at `offset` for `stages`, and
        // `base_instance` lies within them.
        unsafe {
            push(
                cb.handle(),
                binding.layout,
                binding.stages,
                binding.offset + BASE_INSTANCE,
                4,
                (&base as *const u32).cast(),
            )
        };
    });
}

fn warn_indirect(dev: &DeviceData, what: &str) {
    if !dev.base_instance_warned.swap(true, Ordering::Relaxed) {
        log::error!(
            "{what}: gl_InstanceID on a device without shaderDrawParameters takes the base \
             instance from each draw, and an indirect draw's firstInstance is read by the GPU: \
             it counts from 0 only where firstInstance is 0. Said once per device."
        );
    }
}

/// Whether the indirect draws on `cb` go down with `firstInstance` 0
/// ([`zeroes_first_instance`]).
fn zeroed(what: &str, cb: Cb) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        let mut cbs = dev.records.command_buffers.lock();
        Some(zeroes_first_instance(CommandBufferState::of(
            &mut cbs,
            cb.handle(),
        )))
    })
    .flatten()
    .unwrap_or(false)
}

/// An indirect draw on `cb` whose commands go down with `firstInstance` 0: drawn from the
/// layer's copy of them (true: the application's draw must not go down); where the layer
/// cannot, it says why once.
fn draw_zeroed(what: &str, cb: Cb, draw: GpuDraw) -> bool {
    shield(what, || {
        let dev = device_data(cb)?;
        match draw_from_instance_zero(&dev, cb, draw) {
            Ok(()) => Some(()),
            Err(why) => {
                if dev.features.draw_indirect_first_instance {
                    warn_indirect(&dev, &format!("{what} ({why})"));
                }
                None
            }
        }
    })
    .flatten()
    .is_some()
}

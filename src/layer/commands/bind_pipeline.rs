//! `vkCmdBindPipeline`: the state every rule shares (the GL-state block and what it is
//! pushed from), then each record-time rule ([`BindRule`]) in the one list below, which
//! the hook walks naming none.

use ash::vk;
use std::sync::atomic::Ordering;

use crate::layer::commands::draws::gl_primitives::PrimitiveState;
use crate::layer::commands::followed_state::FollowedInput;
use crate::layer::commands::gl_state_block::push;
use crate::layer::commands::lines::LineState;
use crate::layer::data::records::{BlockBinding, BoundRecord, CommandBufferState};
use crate::layer::loader::frames::{command_hook, maybe_inject_panic, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::rules::layer_step::{Bind, BindRule};
use crate::layer::rules::unfed_inputs::CurrentValues;

/// What the bind does with the pipeline's record, the state every rule shares.
#[derive(Default)]
struct Shared {
    block: Option<BlockBinding>,
    bound: Option<BoundRecord>,
    viewport: Option<vk::Viewport>,
    topology: Option<vk::PrimitiveTopology>,
    polygon_mode: Option<vk::PolygonMode>,
}

/// [`bind`] from the list of record-time rules, in the order they act.
macro_rules! bind_rules {
    ($($field:ident: $rule:ty,)*) => {
        /// Binds `pipeline` in `cb`'s state: the shared state, then each rule's.
        fn bind(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>, pipeline: vk::Pipeline) {
            struct Taken {
                $($field: <$rule as BindRule>::Taken,)*
            }
            let (shared, taken) = match dev.records.pipelines.read().get(&pipeline) {
                Some(r) => (
                    Shared {
                        block: r.reads_block,
                        bound: Some(r.bound),
                        viewport: r.viewport,
                        topology: r.static_topology,
                        polygon_mode: r.static_polygon_mode,
                    },
                    Taken {
                        $($field: <$rule as BindRule>::take(r),)*
                    },
                ),
                None => (
                    Shared::default(),
                    Taken {
                        $($field: Default::default(),)*
                    },
                ),
            };
            let at = Bind { dev, cb, pipeline };
            let (values, then) = {
                let mut cbs = dev.records.command_buffers.lock();
                let state = CommandBufferState::of(&mut cbs, cb.handle());
                bind_shared(state, &shared);
                let then = ($(<$rule as BindRule>::bind(&at, taken.$field, state),)*);
                (state.values, then)
            };
            if let Some(block) = shared.block {
                push(dev, cb, block, &values);
            }
            let ($($field,)*) = then;
            $(<$rule as BindRule>::then(&at, $field);)*
        }
    };
}

bind_rules! {
    current_values: CurrentValues,
    followed_input: FollowedInput,
    lines: LineState,
    primitives: PrimitiveState,
}

/// The state of the bound pipeline every rule reads: where its GL-state block is pushed,
/// its static viewport, topology and polygon mode, its [`BoundRecord`]; the shader objects
/// it replaces.
fn bind_shared(state: &mut CommandBufferState, shared: &Shared) {
    state.bound = shared.block;
    // A static viewport is the pipeline's: it holds while the pipeline is bound (its y as H
    // whatever the origin: only flipped fragment shaders read H).
    if let Some(viewport) = shared.viewport {
        state.values.set_viewport(&viewport, true);
    }
    // So is a static topology or polygon mode.
    if let Some(topology) = shared.topology {
        state.drawn.topology = topology;
    }
    if let Some(mode) = shared.polygon_mode {
        state.drawn.polygon_mode = mode;
    }
    state.values.set_lines(&state.drawn);
    state.pipeline = shared.bound.unwrap_or(BoundRecord::NONE);
    // The pipeline replaces every bound graphics shader object.
    state.tes_object = vk::ShaderEXT::null();
    state.app_tcs_object = false;
    state.layer_tcs_object = false;
    state.vertex_object = vk::ShaderEXT::null();
    state.primitives.app_geometry_object = false;
    state.primitives.layer_geometry_object = false;
}

command_hook! {
    /// `vkCmdBindPipeline`: binds, then the state every rule shares and each rule's
    /// ([`bind`]), the GL-state block pushed for a pipeline that reads it.
    "vkCmdBindPipeline",
    fn cmd_bind_pipeline(
        command_buffer,
        bind_point: vk::PipelineBindPoint,
        pipeline: vk::Pipeline,
    ),
    // The hot path: one registry read and two atomic loads, no Arc traffic.
    read |d| {
        (
            d.records.bind_work_pipelines.load(Ordering::Relaxed),
            d.records.shader_objects_made.load(Ordering::Relaxed),
            d.extensions.gl_state,
        )
    },
    then |(bind_work_pipelines, tes_objects, gl_state)| {
        if bind_point == vk::PipelineBindPoint::COMPUTE && gl_state {
            // Put back after the layer's own dispatches (`render_targets::restore_compute`).
            shield("vkCmdBindPipeline", || {
                if let Some(dev) = device_data(command_buffer) {
                    let mut cbs = dev.records.command_buffers.lock();
                    CommandBufferState::of(&mut cbs, command_buffer.handle()).compute.pipeline =
                        pipeline;
                }
            });
        }
        if bind_point != vk::PipelineBindPoint::GRAPHICS || bind_work_pipelines == 0 && !tes_objects
        {
            return;
        }
        shield("vkCmdBindPipeline", || {
            let Some(dev) = device_data(command_buffer) else {
                return;
            };
            maybe_inject_panic(&dev.settings, "vkCmdBindPipeline");
            bind(&dev, command_buffer, pipeline);
        });
    }
}

//! GL's line rule at record time (docs/architecture.md, "Dynamic state followed at record
//! time"): the application's `vkCmdSet*EXT` commands that decide it (the line mode, the
//! sample count, alpha to coverage and to one; `data/lines.rs`), the line mode and
//! stipple enable of shader objects where the layer enabled the line extension behind the
//! application, and the stipple enable that goes with a mode the layer sets. Each command
//! goes down as the application called it, then the layer sets the mode GL's rule wants
//! where it changed. What a pipeline's bind sets is [`LineState`]. (On the fragment route,
//! each draw is drawn again for the start pixels its rectangles leave out:
//! `draws/line_passes.rs`.)
//!
//! GL's stipple (`vkCmdSetLineStippleGLSEM`, `vkCmdSetLineStippleEnableGLSEM`) is not in
//! the GL-state block but for the fragment route: pipelines the layer gave stippled
//! Bresenham lines have `VK_DYNAMIC_STATE_LINE_STIPPLE_EXT`, and the layer sets it
//! (`vkCmdSetLineStippleEXT`) when one is bound and when the stipple changes while one is:
//! GL's factor and pattern while `GL_LINE_STIPPLE` is enabled, a solid line (1, 0xFFFF)
//! while it is not.

use ash::vk;

use crate::layer::commands::gl_state_block::{layer_command, set_flag, update, update_then};
use crate::layer::data::lines::{
    BoundStartPixels, LineModeState, LineStipple, PipelineLines, StaticMultisample,
};
use crate::layer::data::records::{CommandBufferState, PipelineRecord};
use crate::layer::loader::frames::{command_hook, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::rules::layer_step::{Bind, BindRule};
use glsem_spirv::gl_state::{FLAG_LINE_STIPPLE, FLAG_WIDE_LINES};
use glsem_spirv::semantics::Semantic;

/// GL's line rule at `vkCmdBindPipeline`: the stipple, the line mode the layer follows or
/// made dynamic, the static width it made dynamic, the stipple enable that goes with the
/// mode, and the fragment route's state.
pub(crate) struct LineState;

/// What [`LineState`] sets on the driver after the bind.
pub(crate) struct LineWork {
    stipple: Option<LineStipple>,
    mode: Option<vk::LineRasterizationModeEXT>,
    width: Option<f32>,
    stipple_enable: Option<(vk::LineRasterizationModeEXT, LineStipple)>,
}

impl BindRule for LineState {
    /// The pipeline's lines, and its topology (`None`: dynamic state).
    type Taken = (PipelineLines, Option<vk::PrimitiveTopology>);
    type Then = LineWork;

    fn take(r: &PipelineRecord) -> Self::Taken {
        (r.lines, r.static_topology)
    }

    fn bind(at: &Bind<'_>, (r, topology): Self::Taken, state: &mut CommandBufferState) -> LineWork {
        state.values.set_line_varyings(r.varyings);
        let lines = &mut state.lines;
        lines.objects = false;
        lines.start_pixels = r.start_pixels.map(|start_pixels| BoundStartPixels {
            app: at.pipeline,
            start_pixels,
            topology,
            stipple_counts: r.stipple_counts,
        });
        // A line mode the layer made dynamic: the application, which never set it, stated
        // Vulkan's default.
        if r.library_mode {
            lines.mode.app_mode = Some(vk::LineRasterizationModeEXT::DEFAULT);
        }
        let mode = lines.mode.bind(r.mode);
        let bound = state.pipeline.lines;
        LineWork {
            stipple: bound.stipple.then_some(lines.stipple),
            mode,
            width: r.width,
            // The enable is set at every bind: a pipeline with a static one drops it.
            stipple_enable: lines
                .mode
                .set
                .filter(|_| bound.stipple_with_mode)
                .map(|mode| (mode, lines.stipple)),
        }
    }

    fn then(at: &Bind<'_>, work: LineWork) {
        let (dev, cb) = (at.dev, at.cb);
        if let Some(stipple) = work.stipple {
            set_line_stipple(dev, cb, stipple);
        }
        if let Some(mode) = work.mode {
            set_line_mode(dev, cb, mode);
        }
        if let (Some(width), Some(set)) = (work.width, dev.table.cmd_set_line_width) {
            // SAFETY: a live command buffer (a `Dispatchable`) in the recording state with a
            // pipeline bound whose line width the layer made dynamic state; the
            // application's own static width, valid for the device.
            unsafe { set(cb.handle(), width) };
        }
        if let Some((mode, stipple)) = work.stipple_enable {
            set_stipple_enable(dev, cb, mode, stipple);
        }
    }
}

/// Sets GL's line stipple on the driver for a bound pipeline whose stipple is the layer's.
pub(crate) fn set_line_stipple(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    stipple: LineStipple,
) {
    let (factor, pattern) = stipple.effective();
    let set = dev.table.cmd_set_line_stipple;
    if let Some(set) = set {
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state with a
        // pipeline bound whose line stipple is dynamic; the factor is in [1, 256].
        unsafe { set(cb.handle(), factor, pattern) }
    }
}

/// Gives the driver the line mode GL's rule wants (`data/lines.rs`).
pub(crate) fn set_line_mode(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    mode: vk::LineRasterizationModeEXT,
) {
    if let Some(set) = dev.table.cmd_set_line_rasterization_mode_ext {
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state whose
        // bound pipeline has the line mode as dynamic state (the device enabled the feature
        // for it).
        unsafe { set(cb.handle(), mode) }
    }
}

/// Whether `dev` may follow lines at all: `VK_GLSEM_gl_state` with Bresenham lines (else no
/// pipeline is recorded as followed, and the state is not worth a lock).
fn follows_lines(dev: &DeviceData) -> bool {
    dev.extensions.gl_state && dev.conventions.lines.bresenham
}

/// Applies `change` to the line state of `cb` and sets the mode it now wants.
fn follow(
    cb: Dispatchable<vk::CommandBuffer>,
    what: &str,
    change: impl FnOnce(&mut LineModeState),
) {
    shield(what, || {
        let Some(dev) = device_data(cb).filter(|d| follows_lines(d)) else {
            return;
        };
        let (mode, stipple_with_mode, stipple) = {
            let mut cbs = dev.records.command_buffers.lock();
            let state = cbs
                .entry(cb.handle())
                .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
            change(&mut state.lines.mode);
            let with_mode = state.lines.objects || state.pipeline.lines.stipple_with_mode;
            (state.lines.mode.update(), with_mode, state.lines.stipple)
        };
        if let Some(mode) = mode {
            set_line_mode(&dev, cb, mode);
            if stipple_with_mode {
                set_stipple_enable(&dev, cb, mode, stipple);
            }
        }
    });
}

/// Shader objects bound where the layer enabled the line extension behind the application
/// (`LineConventions::layer_sets_mode`): their line mode follows GL's rule as a pipeline's
/// dynamic mode does, the application's unset mode taken for `DEFAULT` (it does not know
/// the extension is on), all of the multisample state dynamic; the stipple enable goes with
/// the mode. Nothing where the layer leaves their lines to the application.
pub(crate) fn bind_object_lines(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) {
    if !dev.conventions.lines.layer_sets_mode
        || !dev.settings.semantics.contains(Semantic::LineRasterization)
    {
        return;
    }
    let (mode, stipple) = {
        let mut cbs = dev.records.command_buffers.lock();
        let state = cbs
            .entry(cb.handle())
            .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
        let all_dynamic = StaticMultisample {
            samples: None,
            alpha_to_coverage: None,
            alpha_to_one: None,
        };
        state.lines.mode.app_mode = state
            .lines
            .mode
            .app_mode
            .or(Some(vk::LineRasterizationModeEXT::DEFAULT));
        // Every bind sets it again: binding shaders may follow a pipeline's static mode.
        state.lines.mode.set = None;
        state.lines.objects = true;
        state.pipeline.lines.stipple = dev.conventions.lines.stippled_bresenham;
        (
            state.lines.mode.bind(Some(all_dynamic)),
            state.lines.stipple,
        )
    };
    if let Some(mode) = mode {
        set_line_mode(dev, cb, mode);
        set_stipple_enable(dev, cb, mode, stipple);
    }
}

/// The stipple enable of shader objects, or of a pipeline whose enable is the layer's,
/// drawing lines in `mode`: GL's stipple on stippled Bresenham lines (solid while
/// `GL_LINE_STIPPLE` is off), none on the others (their stippled modes are features the
/// layer does not enable).
pub(crate) fn set_stipple_enable(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    mode: vk::LineRasterizationModeEXT,
    stipple: LineStipple,
) {
    if !dev.conventions.lines.stippled_bresenham {
        return;
    }
    let enable = mode == vk::LineRasterizationModeEXT::BRESENHAM;
    if let Some(set_enable) = dev.table.cmd_set_line_stipple_enable_ext {
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state with
        // shader objects bound, or a pipeline whose stipple enable is dynamic state; the
        // layer enabled `stippledBresenhamLines`.
        unsafe { set_enable(cb.handle(), enable.into()) };
    }
    if let (true, Some(set)) = (enable, dev.table.cmd_set_line_stipple) {
        let (factor, pattern) = stipple.effective();
        // SAFETY: a live command buffer (a `Dispatchable`) in the recording state with
        // shader objects or a pipeline bound whose line stipple is dynamic state; the factor
        // `effective` gives is in [1, 256], the range Vulkan allows.
        unsafe { set(cb.handle(), factor, pattern) };
    }
}

command_hook! {
    /// `vkCmdSetLineRasterizationModeEXT`: the application's mode, or GL's diamond-exit rule
    /// in place of `DEFAULT` where it applies.
    "vkCmdSetLineRasterizationModeEXT",
    fn cmd_set_line_rasterization_mode[cmd_set_line_rasterization_mode_ext](
        command_buffer,
        mode: vk::LineRasterizationModeEXT,
    ),
    read |d| follows_lines(d),
    calls_down |next, follows| {
        // The mode that goes down, and the stipple to set with it where the bound
        // pipeline's stipple enable is the layer's.
        let followed = follows
            .then(|| {
                shield("vkCmdSetLineRasterizationModeEXT", || {
                    let dev = device_data(command_buffer)?;
                    let (down, stipple) = {
                        let mut cbs = dev.records.command_buffers.lock();
                        let state = cbs
                            .entry(command_buffer.handle())
                            .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()));
                        let stipple = state
                            .pipeline
                            .lines
                            .stipple_with_mode
                            .then_some(state.lines.stipple);
                        (state.lines.mode.app_sets(mode), stipple)
                    };
                    Some((dev, down, stipple))
                })
                .flatten()
            })
            .flatten();
        // SAFETY: the application's command buffer; a valid mode.
        unsafe { next(command_buffer.handle(), followed.as_ref().map_or(mode, |f| f.1)) };
        if let Some((dev, down, Some(stipple))) = followed {
            shield("vkCmdSetLineRasterizationModeEXT", || {
                set_stipple_enable(&dev, command_buffer, down, stipple)
            });
        }
    }
}

/// After `vkCmdSetRasterizationSamplesEXT` (`command_state`'s hook): the line mode follows
/// the sample count.
pub(crate) fn follow_rasterization_samples(
    command_buffer: Dispatchable<vk::CommandBuffer>,
    samples: vk::SampleCountFlags,
) {
    follow(command_buffer, "vkCmdSetRasterizationSamplesEXT", |s| {
        s.samples = samples
    });
}

command_hook! {
    /// `vkCmdSetAlphaToCoverageEnableEXT`: followed for the line mode.
    "vkCmdSetAlphaToCoverageEnableEXT",
    fn cmd_set_alpha_to_coverage_enable[cmd_set_alpha_to_coverage_enable_ext](command_buffer, enable: vk::Bool32),
    then |()| follow(command_buffer, "vkCmdSetAlphaToCoverageEnableEXT", |s| s.alpha_to_coverage = enable != vk::FALSE),
}

command_hook! {
    /// `vkCmdSetAlphaToOneEnableEXT`: followed for the line mode.
    "vkCmdSetAlphaToOneEnableEXT",
    fn cmd_set_alpha_to_one_enable[cmd_set_alpha_to_one_enable_ext](command_buffer, enable: vk::Bool32),
    then |()| follow(command_buffer, "vkCmdSetAlphaToOneEnableEXT", |s| s.alpha_to_one = enable != vk::FALSE),
}

/// Changes the line stipple of `command_buffer`: sets it if a pipeline whose stipple is
/// the layer's is bound, and pushes it in the GL-state block (the fragment route's) if a
/// pipeline that reads the block is.
fn update_line_stipple(
    what: &str,
    command_buffer: Dispatchable<vk::CommandBuffer>,
    change: impl FnOnce(&mut LineStipple),
) {
    update_then(
        what,
        command_buffer,
        |state| {
            change(&mut state.lines.stipple);
            let stipple = state.lines.stipple;
            state.values.line_pattern = stipple.packed();
            set_flag(
                &mut state.values.flags,
                FLAG_LINE_STIPPLE,
                stipple.enabled.into(),
            );
            (state.pipeline.lines.stipple, stipple)
        },
        |dev, (bound_stipple, stipple)| {
            if bound_stipple {
                set_line_stipple(dev, command_buffer, stipple);
            }
        },
    )
}

layer_command! {
    /// `vkCmdSetLineStippleGLSEM` (`include/vk_glsem.h`): `glLineStipple(factor, pattern)`.
    fn cmd_set_line_stipple(command_buffer: vk::CommandBuffer, factor: u32, pattern: u16) {
        // GL clamps the factor to [1, 256] (GL 4.6 compatibility, 14.5.2.1).
        update_line_stipple("vkCmdSetLineStippleGLSEM", command_buffer, |s| {
            s.factor = factor.clamp(1, 256);
            s.pattern = pattern;
        })
    }
}

layer_command! {
    /// `vkCmdSetLineStippleEnableGLSEM` (`include/vk_glsem.h`): `GL_LINE_STIPPLE`.
    fn cmd_set_line_stipple_enable(command_buffer: vk::CommandBuffer, enable: vk::Bool32) {
        update_line_stipple("vkCmdSetLineStippleEnableGLSEM", command_buffer, |s| {
            s.enabled = enable != vk::FALSE
        })
    }
}

command_hook! {
    /// `vkCmdSetLineWidth`: a width other than 1 is followed in the GL-state block's flags
    /// (the fragment line route leaves wide lines to the driver).
    "vkCmdSetLineWidth",
    fn cmd_set_line_width(command_buffer, width: f32),
    read |d| d.conventions.lines.fragment,
    then |follows| {
        if follows {
            update("vkCmdSetLineWidth", command_buffer, |v| {
                set_flag(&mut v.flags, FLAG_WIDE_LINES, (width != 1.0).into())
            });
        }
    }
}

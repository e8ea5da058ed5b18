//! The render pass instance a command buffer records into, followed on devices with
//! `VK_GLSEM_gl_state` so that the layer can end it for work that Vulkan allows only
//! outside one (a compute dispatch that reads the application's indices on the GPU:
//! `converted_draws`) and begin it again where it was, as ANGLE's Vulkan back end breaks
//! its render pass for the same work.
//!
//! - Begun again as a variant of the application's render pass (compatible with it: same
//!   attachments, subpasses and dependencies) whose attachments are loaded from the layout
//!   the first instance left them in. Where the device may convert draws, an instance whose
//!   attachments would not be stored (`DONT_CARE`, `NONE`) begins as a variant that stores
//!   them, so that nothing drawn before the break is lost; dynamic rendering likewise.
//! - What cannot be begun again the same way is marked with the reason, and the draw that
//!   needed it is not converted: render passes of more than one subpass, structs chained
//!   in the create or begin info, secondary command buffers' contents, suspended or resumed
//!   dynamic rendering, a query or transform feedback active in the instance.
//! - The application's compute bindings, which the layer's dispatch disturbs, are followed
//!   and put back after it.

use ash::vk;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::layer::commands::command_state::begin_render_target;
use crate::layer::data::records::CommandBufferState;
use crate::layer::data::render_targets::{
    kept, BoundSets, RenderTarget, RenderingAttachment, RenderingCopy, Variant,
};
use crate::layer::loader::frames::{command_hook, shield};
use crate::layer::loader::registry::{device_data, Dispatchable};
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::render_passes::variant;
use crate::layer::support::ffi::slice;

/// Whether the device may end render pass instances for draws converted on the GPU (and so
/// keeps what a discarding render pass stores): it made a pipeline, or drew shader
/// objects, that draws GL's line loops, a pipeline that draws GL's quads, quad strips or
/// polygons on the index route, or one whose indirect draws go down from a copy with
/// `firstInstance` 0 (`gl_InstanceID` without `shaderDrawParameters`).
pub(crate) fn converts(dev: &DeviceData) -> bool {
    let records = &dev.records;
    records.closed_loop_pipelines.load(Ordering::Relaxed) != 0
        || records.closed_loop_objects.load(Ordering::Relaxed)
        || records.gl_primitive_pipelines.load(Ordering::Relaxed) != 0
        || records.base_instance_pipelines.load(Ordering::Relaxed) != 0
}

/// Sets `cb`'s render target (a command buffer the layer follows).
fn set_target(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>, target: Option<RenderTarget>) {
    let mut cbs = dev.records.command_buffers.lock();
    let state = CommandBufferState::of(&mut cbs, cb.handle());
    state.render_target = target;
    state.open_scopes = 0;
}

const CHAINED_BEGIN: &str = "its begin info chains structs the layer does not copy";

/// The render target of a `vkCmdBeginRenderPass*`, and the render pass to begin in place of
/// the application's (its kept variant where the device may convert draws).
///
/// # Safety
/// `begin` is a valid `VkRenderPassBeginInfo`.
unsafe fn pass_target(
    dev: &DeviceData,
    begin: &vk::RenderPassBeginInfo<'_>,
    contents: vk::SubpassContents,
) -> (RenderTarget, Option<vk::RenderPass>) {
    let record = dev
        .records
        .render_passes
        .read()
        .get(&begin.render_pass)
        .cloned();
    let copy = record.as_ref().map(|r| r.resumable.copy.as_ref());
    let kept_pass = match copy {
        Some(Ok(copy)) if copy.discards() && converts(dev) => {
            variant(dev, begin.render_pass, Variant::Kept).ok()
        }
        _ => None,
    };
    let why = match copy {
        None => Some("the layer did not see the render pass made"),
        Some(Err(why)) => Some(*why),
        Some(Ok(copy)) if copy.subpasses.len() > 1 => {
            Some("its render pass has more than one subpass")
        }
        Some(Ok(_)) if contents != vk::SubpassContents::INLINE => {
            Some("its contents are secondary command buffers")
        }
        Some(Ok(_)) => None,
    };
    if let Some(why) = why {
        return (RenderTarget::Unresumable(why), kept_pass);
    }
    // An imageless framebuffer's attachments: the one struct the layer copies.
    let mut views: Arc<[vk::ImageView]> = Arc::new([]);
    let mut next = begin.p_next as *const vk::BaseInStructure<'_>;
    // SAFETY: a valid chain of a valid begin info (this function's contract).
    while let Some(s) = unsafe { next.as_ref() } {
        if s.s_type != vk::StructureType::RENDER_PASS_ATTACHMENT_BEGIN_INFO {
            return (RenderTarget::Unresumable(CHAINED_BEGIN), kept_pass);
        }
        // SAFETY: the struct its `sType` names.
        let info = unsafe { &*(next as *const vk::RenderPassAttachmentBeginInfo<'_>) };
        // SAFETY: its array holds its count of views (Vulkan's valid usage).
        views = unsafe { slice(info.p_attachments, info.attachment_count) }.into();
        next = s.p_next;
    }
    let target = RenderTarget::Pass {
        render_pass: begin.render_pass,
        framebuffer: begin.framebuffer,
        area: begin.render_area,
        views,
        subpass: 0,
    };
    (target, kept_pass)
}

/// The device of `cb` where it follows render targets (`VK_GLSEM_gl_state`: `gl_state`).
fn following_device(
    gl_state: bool,
    cb: Dispatchable<vk::CommandBuffer>,
) -> Option<Arc<DeviceData>> {
    match gl_state {
        true => device_data(cb),
        false => None,
    }
}

/// The hooks of `vkCmdBeginRenderPass` and `vkCmdBeginRenderPass2`: the render target
/// followed, the application's render pass begun as its kept variant where needed, then
/// GL's "layered" from the framebuffer.
macro_rules! begin_render_pass_hook {
    (
        $(#[$doc:meta])*
        $what:literal,
        fn $hook:ident(command_buffer, p_begin: $begin_ty:ty, $arg:ident: $ty:ty),
        contents: |$contents_arg:ident| $contents:expr
    ) => {
        command_hook! {
            $(#[$doc])*
            $what,
            fn $hook(command_buffer, p_begin: $begin_ty, $arg: $ty),
            read |d| d.extensions.gl_state,
            calls_down |next, gl_state| {
                let dev = following_device(gl_state, command_buffer);
                // SAFETY: NULL or the application's valid begin info (Vulkan's valid
                // usage).
                let begin = unsafe { p_begin.as_ref() };
                let $contents_arg = $arg;
                let contents: vk::SubpassContents = $contents;
                let seen = dev.as_ref().zip(begin).and_then(|(dev, begin)| {
                    // SAFETY: a valid begin info.
                    shield($what, || unsafe { pass_target(dev, begin, contents) })
                });
                match (seen.as_ref().and_then(|(_, kept)| *kept), begin) {
                    (Some(kept), Some(begin)) => {
                        let begin = vk::RenderPassBeginInfo { render_pass: kept, ..*begin };
                        // SAFETY: the application's begin info with its render pass
                        // replaced by a compatible one that stores every attachment.
                        unsafe { next(command_buffer.handle(), &begin, $arg) };
                    }
                    // SAFETY: the next layer's command with the application's arguments.
                    _ => unsafe { next(command_buffer.handle(), p_begin, $arg) },
                }
                if let (Some(dev), Some((target, _))) = (dev, seen) {
                    set_target(&dev, command_buffer, Some(target));
                }
                let framebuffer = begin.map(|b| b.framebuffer);
                begin_render_target($what, command_buffer, |dev| {
                    framebuffer
                        .and_then(|f| dev.records.framebuffer_layers.read().get(&f).copied())
                        .unwrap_or(1)
                });
            }
        }
    };
}

begin_render_pass_hook! {
    /// `vkCmdBeginRenderPass`: the render target followed; GL's "layered" from the
    /// framebuffer's layer count.
    "vkCmdBeginRenderPass",
    fn cmd_begin_render_pass(
        command_buffer,
        p_begin: *const vk::RenderPassBeginInfo<'_>,
        contents: vk::SubpassContents
    ),
    contents: |contents| contents
}

begin_render_pass_hook! {
    /// `vkCmdBeginRenderPass2` (and its KHR alias): as `vkCmdBeginRenderPass`.
    "vkCmdBeginRenderPass2",
    fn cmd_begin_render_pass2(
        command_buffer,
        p_begin: *const vk::RenderPassBeginInfo<'_>,
        p_subpass: *const vk::SubpassBeginInfo<'_>
    ),
    // SAFETY: NULL or a valid subpass begin info (Vulkan's valid usage).
    contents: |p_subpass| unsafe { p_subpass.as_ref() }
        .map_or(vk::SubpassContents::INLINE, |s| s.contents)
}

/// A copy of one attachment of dynamic rendering (`None`: not copied, chained structs).
fn rendering_attachment(a: &vk::RenderingAttachmentInfo<'_>) -> Option<RenderingAttachment> {
    a.p_next.is_null().then_some(RenderingAttachment {
        view: a.image_view,
        layout: a.image_layout,
        resolve_mode: a.resolve_mode,
        resolve_view: a.resolve_image_view,
        resolve_layout: a.resolve_image_layout,
        store_op: kept(a.store_op),
    })
}

/// The render target of a `vkCmdBeginRendering`.
///
/// # Safety
/// `info` is a valid `VkRenderingInfo`.
unsafe fn rendering_target(info: &vk::RenderingInfo<'_>) -> RenderTarget {
    let unresumable = vk::RenderingFlags::SUSPENDING
        | vk::RenderingFlags::RESUMING
        | vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS;
    if info.flags.intersects(unresumable) {
        return RenderTarget::Unresumable(
            "it is suspended, resumed or recorded in secondary command buffers",
        );
    }
    if !info.p_next.is_null() {
        return RenderTarget::Unresumable(CHAINED_BEGIN);
    }
    // SAFETY: NULL or valid attachments, as many as the info says (this function's
    // contract).
    let (colors, depth, stencil) = unsafe {
        (
            slice(info.p_color_attachments, info.color_attachment_count),
            info.p_depth_attachment.as_ref(),
            info.p_stencil_attachment.as_ref(),
        )
    };
    let colors: Option<Vec<_>> = colors.iter().map(rendering_attachment).collect();
    let depth = depth.map(rendering_attachment);
    let stencil = stencil.map(rendering_attachment);
    match (colors, depth, stencil) {
        (Some(colors), None | Some(Some(_)), None | Some(Some(_))) => {
            RenderTarget::Rendering(Arc::new(RenderingCopy {
                flags: info.flags,
                area: info.render_area,
                layer_count: info.layer_count,
                view_mask: info.view_mask,
                colors,
                depth: depth.flatten(),
                stencil: stencil.flatten(),
            }))
        }
        _ => RenderTarget::Unresumable(CHAINED_BEGIN),
    }
}

/// `info`'s attachments with every store that may lose the contents made `STORE`.
fn kept_attachments<'a>(
    attachments: &[vk::RenderingAttachmentInfo<'a>],
) -> Vec<vk::RenderingAttachmentInfo<'a>> {
    attachments
        .iter()
        .map(|a| vk::RenderingAttachmentInfo {
            store_op: kept(a.store_op),
            ..*a
        })
        .collect()
}

command_hook! {
    /// `vkCmdBeginRendering` (and its KHR alias): the render target followed, every
    /// attachment stored where the device may convert draws; GL's "layered" from
    /// `layerCount`.
    "vkCmdBeginRendering",
    fn cmd_begin_rendering(command_buffer, p_info: *const vk::RenderingInfo<'_>),
    read |d| d.extensions.gl_state,
    calls_down |next, gl_state| {
        let dev = following_device(gl_state, command_buffer);
        // SAFETY: NULL or the application's valid rendering info (Vulkan's valid usage).
        let info = unsafe { p_info.as_ref() };
        let target = dev.as_ref().zip(info).and_then(|(_, info)| {
            // SAFETY: a valid rendering info.
            shield("vkCmdBeginRendering", || unsafe { rendering_target(info) })
        });
        let keep = matches!(target, Some(RenderTarget::Rendering(_)))
            && dev.as_ref().is_some_and(|d| converts(d));
        match info {
            Some(info) if keep => {
                // SAFETY: the arrays of a valid rendering info.
                let (colors, depth, stencil) = unsafe {
                    (
                        kept_attachments(slice(
                            info.p_color_attachments,
                            info.color_attachment_count,
                        )),
                        kept_attachments(slice(info.p_depth_attachment, 1)),
                        kept_attachments(slice(info.p_stencil_attachment, 1)),
                    )
                };
                let kept_info = vk::RenderingInfo {
                    p_color_attachments: colors.as_ptr(),
                    p_depth_attachment: depth.first().map_or(std::ptr::null(), |d| d),
                    p_stencil_attachment: stencil.first().map_or(std::ptr::null(), |s| s),
                    ..*info
                };
                // SAFETY: the application's rendering info with every attachment stored.
                unsafe { next(command_buffer.handle(), &kept_info) };
            }
            // SAFETY: the next layer's command with the application's arguments.
            _ => unsafe { next(command_buffer.handle(), p_info) },
        }
        if let (Some(dev), Some(target)) = (dev, target) {
            set_target(&dev, command_buffer, Some(target));
        }
        let layers = info.map_or(1, |i| i.layer_count);
        begin_render_target("vkCmdBeginRendering", command_buffer, |_| layers);
    }
}

/// Follows `cb`'s render target after `change` (a device with `VK_GLSEM_gl_state`).
fn follow(
    what: &str,
    cb: Dispatchable<vk::CommandBuffer>,
    change: impl FnOnce(&mut CommandBufferState),
) {
    shield(what, || {
        if let Some(dev) = device_data(cb) {
            change(CommandBufferState::of(
                &mut dev.records.command_buffers.lock(),
                cb.handle(),
            ));
        }
    });
}

/// The next subpass: a render pass of more than one is not begun again by the layer, but
/// the count keeps the record honest.
fn next_subpass(state: &mut CommandBufferState) {
    if let Some(RenderTarget::Pass { subpass, .. }) = &mut state.render_target {
        *subpass += 1;
    }
}

fn ended(state: &mut CommandBufferState) {
    state.render_target = None;
    state.open_scopes = 0;
}

/// A hook that follows the render target after the application's command went down.
macro_rules! follow_hook {
    ($(#[$doc:meta])* $what:literal, fn $hook:ident($($arg:ident: $ty:ty),*), $change:expr) => {
        command_hook! {
            $(#[$doc])*
            $what,
            fn $hook(command_buffer $(, $arg: $ty)*),
            read |d| d.extensions.gl_state,
            then |gl_state| {
                if gl_state {
                    follow($what, command_buffer, $change);
                }
            }
        }
    };
}

follow_hook!(
    /// `vkCmdNextSubpass`.
    "vkCmdNextSubpass", fn cmd_next_subpass(contents: vk::SubpassContents), next_subpass
);
follow_hook!(
    /// `vkCmdNextSubpass2` (and its KHR alias).
    "vkCmdNextSubpass2",
    fn cmd_next_subpass2(
        begin: *const vk::SubpassBeginInfo<'_>,
        end: *const vk::SubpassEndInfo<'_>
    ),
    next_subpass
);
follow_hook!(
    /// `vkCmdEndRenderPass`.
    "vkCmdEndRenderPass", fn cmd_end_render_pass(), ended
);
follow_hook!(
    /// `vkCmdEndRenderPass2` (and its KHR alias).
    "vkCmdEndRenderPass2", fn cmd_end_render_pass2(end: *const vk::SubpassEndInfo<'_>), ended
);
follow_hook!(
    /// `vkCmdEndRendering` (and its KHR alias).
    "vkCmdEndRendering", fn cmd_end_rendering(), ended
);

/// A query or transform feedback begun inside the render target: it must end there, so
/// the layer may not end the instance while it is active.
fn scope_begun(state: &mut CommandBufferState) {
    if state.render_target.is_some() {
        state.open_scopes += 1;
    }
}

fn scope_ended(state: &mut CommandBufferState) {
    state.open_scopes = state.open_scopes.saturating_sub(1);
}

follow_hook!(
    /// `vkCmdBeginQuery`.
    "vkCmdBeginQuery",
    fn cmd_begin_query(pool: vk::QueryPool, query: u32, flags: vk::QueryControlFlags),
    scope_begun
);
follow_hook!(
    /// `vkCmdEndQuery`.
    "vkCmdEndQuery", fn cmd_end_query(pool: vk::QueryPool, query: u32), scope_ended
);
/// A [`follow_hook`] of `vkCmdBeginTransformFeedbackEXT` or `vkCmdEndTransformFeedbackEXT`,
/// which take the same counter buffer arguments.
macro_rules! transform_feedback_hook {
    ($(#[$doc:meta])* $what:literal, fn $hook:ident, $change:expr) => {
        follow_hook!(
            $(#[$doc])*
            $what,
            fn $hook(
                first: u32,
                count: u32,
                buffers: *const vk::Buffer,
                offsets: *const vk::DeviceSize
            ),
            $change
        );
    };
}

transform_feedback_hook!(
    /// `vkCmdBeginTransformFeedbackEXT`.
    "vkCmdBeginTransformFeedbackEXT", fn cmd_begin_transform_feedback_ext, scope_begun
);
transform_feedback_hook!(
    /// `vkCmdEndTransformFeedbackEXT`.
    "vkCmdEndTransformFeedbackEXT", fn cmd_end_transform_feedback_ext, scope_ended
);

command_hook! {
    /// `vkCmdBindDescriptorSets`: the compute bind point's sets followed, to be put back
    /// after the layer's dispatches.
    "vkCmdBindDescriptorSets",
    fn cmd_bind_descriptor_sets(
        command_buffer,
        bind_point: vk::PipelineBindPoint,
        layout: vk::PipelineLayout,
        first_set: u32,
        set_count: u32,
        sets: *const vk::DescriptorSet,
        offset_count: u32,
        offsets: *const u32,
    ),
    read |d| d.extensions.gl_state,
    then |gl_state| {
        if gl_state && bind_point == vk::PipelineBindPoint::COMPUTE {
            follow("vkCmdBindDescriptorSets", command_buffer, |state| {
                // SAFETY: the application's arrays of their counts (Vulkan's valid usage).
                let (sets, offsets) = unsafe { (slice(sets, set_count), slice(offsets, offset_count)) };
                state.compute.bind_sets(BoundSets {
                    layout,
                    first_set,
                    sets: sets.to_vec(),
                    dynamic_offsets: offsets.to_vec(),
                });
            });
        }
    }
}

/// Puts the application's compute bindings of `cb` back after a dispatch of the layer's.
pub(crate) fn restore_compute(dev: &DeviceData, cb: Dispatchable<vk::CommandBuffer>) {
    let compute = CommandBufferState::of(&mut dev.records.command_buffers.lock(), cb.handle())
        .compute
        .clone();
    let t = &dev.table;
    // SAFETY: the application's own bindings of this command buffer, replayed in the order
    // it made them, on a live command buffer (a `Dispatchable`) recording outside a render
    // pass.
    unsafe {
        if let (Some(bind), true) = (
            t.cmd_bind_pipeline,
            compute.pipeline != vk::Pipeline::null(),
        ) {
            bind(
                cb.handle(),
                vk::PipelineBindPoint::COMPUTE,
                compute.pipeline,
            );
        }
        if let Some(bind_sets) = t.cmd_bind_descriptor_sets {
            for b in &compute.sets {
                bind_sets(
                    cb.handle(),
                    vk::PipelineBindPoint::COMPUTE,
                    b.layout,
                    b.first_set,
                    b.sets.len() as u32,
                    b.sets.as_ptr(),
                    b.dynamic_offsets.len() as u32,
                    b.dynamic_offsets.as_ptr(),
                );
            }
        }
    }
}

/// How the layer begins `target` again after ending it.
enum Resume {
    Pass {
        begin: vk::RenderPassBeginInfo<'static>,
        views: Arc<[vk::ImageView]>,
    },
    Rendering(Arc<RenderingCopy>),
}

/// The render pass instance `cb` records into, where the layer may end it and begin it
/// again; `Err`: why not.
pub(crate) fn resumable_target(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
) -> Result<RenderTarget, &'static str> {
    let (target, open_scopes) = {
        let mut cbs = dev.records.command_buffers.lock();
        let state = CommandBufferState::of(&mut cbs, cb.handle());
        (state.render_target.clone(), state.open_scopes)
    };
    if open_scopes > 0 {
        return Err("a query or transform feedback is active in the render pass instance");
    }
    match target.ok_or("the layer did not see its render pass instance begin")? {
        RenderTarget::Unresumable(why) => Err(why),
        target => Ok(target),
    }
}

/// Ends `cb`'s render pass instance, records `work` outside it, and begins it again where
/// it was; `Err`: why the layer cannot (nothing was recorded).
pub(crate) fn outside_render_pass(
    dev: &DeviceData,
    cb: Dispatchable<vk::CommandBuffer>,
    work: impl FnOnce(),
) -> Result<(), &'static str> {
    let resume = match resumable_target(dev, cb)? {
        RenderTarget::Unresumable(why) => return Err(why),
        RenderTarget::Pass {
            render_pass,
            framebuffer,
            area,
            views,
            ..
        } => Resume::Pass {
            begin: vk::RenderPassBeginInfo {
                render_pass: variant(dev, render_pass, Variant::Resume)?,
                framebuffer,
                render_area: area,
                ..Default::default()
            },
            views,
        },
        RenderTarget::Rendering(copy) => Resume::Rendering(copy),
    };
    const NO_COMMAND: &str = "the device lacks a command to end or begin the render pass";
    let t = &dev.table;
    match &resume {
        Resume::Pass { begin, views } => {
            let (Some(end), Some(begin_pass)) = (t.cmd_end_render_pass, t.cmd_begin_render_pass)
            else {
                return Err(NO_COMMAND);
            };
            // SAFETY: a live command buffer (a `Dispatchable`) inside a render pass
            // instance of one subpass, with no query or transform feedback active in it.
            unsafe { end(cb.handle()) };
            work();
            // SAFETY: the variant of the application's render pass that loads what the
            // instance stored, with its framebuffer and area.
            unsafe { begin_again(cb, begin, views, begin_pass) };
        }
        Resume::Rendering(copy) => {
            let (Some(end), Some(begin)) = (t.cmd_end_rendering, t.cmd_begin_rendering) else {
                return Err(NO_COMMAND);
            };
            // SAFETY: a live command buffer inside dynamic rendering that is neither
            // suspended nor resumed, with no query or transform feedback active in it.
            unsafe { end(cb.handle()) };
            work();
            // SAFETY: the application's rendering info, every attachment loaded.
            unsafe { begin_rendering_again(cb, copy, begin) };
        }
    }
    Ok(())
}

/// # Safety
/// `cb` is recording outside a render pass; `begin` names a live render pass compatible
/// with the framebuffer, which `views` are the attachments of where it is imageless.
unsafe fn begin_again(
    cb: Dispatchable<vk::CommandBuffer>,
    begin: &vk::RenderPassBeginInfo<'static>,
    views: &[vk::ImageView],
    begin_pass: vk::PFN_vkCmdBeginRenderPass,
) {
    let attachments = vk::RenderPassAttachmentBeginInfo {
        attachment_count: views.len() as u32,
        p_attachments: views.as_ptr(),
        ..Default::default()
    };
    let begin = vk::RenderPassBeginInfo {
        p_next: match views.is_empty() {
            true => std::ptr::null(),
            false => &attachments as *const _ as *const c_void,
        },
        ..*begin
    };
    // SAFETY: this function's contract; `attachments` outlives the call.
    unsafe { begin_pass(cb.handle(), &begin, vk::SubpassContents::INLINE) };
}

/// # Safety
/// `cb` is recording outside a render pass; `copy` is the rendering info it was in.
unsafe fn begin_rendering_again(
    cb: Dispatchable<vk::CommandBuffer>,
    copy: &RenderingCopy,
    begin: vk::PFN_vkCmdBeginRendering,
) {
    let info = |a: &RenderingAttachment| vk::RenderingAttachmentInfo {
        image_view: a.view,
        image_layout: a.layout,
        resolve_mode: a.resolve_mode,
        resolve_image_view: a.resolve_view,
        resolve_image_layout: a.resolve_layout,
        load_op: vk::AttachmentLoadOp::LOAD,
        store_op: a.store_op,
        ..Default::default()
    };
    let colors: Vec<_> = copy.colors.iter().map(info).collect();
    let depth = copy.depth.as_ref().map(info);
    let stencil = copy.stencil.as_ref().map(info);
    let rendering = vk::RenderingInfo {
        flags: copy.flags,
        render_area: copy.area,
        layer_count: copy.layer_count,
        view_mask: copy.view_mask,
        color_attachment_count: colors.len() as u32,
        p_color_attachments: colors.as_ptr(),
        p_depth_attachment: depth.as_ref().map_or(std::ptr::null(), |d| d),
        p_stencil_attachment: stencil.as_ref().map_or(std::ptr::null(), |s| s),
        ..Default::default()
    };
    // SAFETY: this function's contract; the arrays outlive the call.
    unsafe { begin(cb.handle(), &rendering) };
}

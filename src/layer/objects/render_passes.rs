//! The records of render passes (colour attachment formats per subpass) and framebuffers
//! (their layer count).

use ash::vk;
use std::sync::Arc;

use crate::layer::data::records::RenderPassRecord;
use crate::layer::data::render_targets::{
    AttachmentRef, DependencyCopy, RenderPassCopy, SubpassCopy, Variant,
};
use crate::layer::loader::frames::{create_hook, destroy_hook};
use crate::layer::loader::state::DeviceData;
use crate::layer::support::ffi::slice;

/// Colour attachment formats per subpass (`None` for `VK_ATTACHMENT_UNUSED`) of a
/// `VkRenderPassCreateInfo` or `VkRenderPassCreateInfo2`: the same fields, in structs of
/// different types.
macro_rules! subpass_colors {
    ($ci:expr) => {{
        let ci = $ci;
        // SAFETY: the arrays of a valid create info hold their counts of elements
        // (Vulkan's valid usage).
        unsafe {
            let formats: Vec<vk::Format> = slice(ci.p_attachments, ci.attachment_count)
                .iter()
                .map(|a| a.format)
                .collect();
            slice(ci.p_subpasses, ci.subpass_count)
                .iter()
                .map(|s| {
                    slice(s.p_color_attachments, s.color_attachment_count)
                        .iter()
                        .map(|r| match r.attachment {
                            vk::ATTACHMENT_UNUSED => None,
                            a => formats.get(a as usize).copied(),
                        })
                        .collect()
                })
                .collect::<Vec<Vec<Option<vk::Format>>>>()
        }
    }};
}

/// A `vkCreateRenderPass*` hook for create infos of type `$info`: remembers the colour
/// attachments per subpass.
macro_rules! render_pass_hook {
    ($(#[$doc:meta])* $what:literal, $hook:ident($info:ty)) => {
        create_hook! {
            $(#[$doc])*
            $what,
            fn $hook(device, p_create_info: $info, p_allocator, p_render_pass: vk::RenderPass),
            // SAFETY: a valid create info (Vulkan's valid usage).
            prepare: |_| {
                // SAFETY: a valid create info (Vulkan's valid usage).
                let ci = unsafe { &*p_create_info };
                // SAFETY: the same.
                RenderPassRecord::new(subpass_colors!(ci), unsafe { RenderPassCopy::of(ci) })
            },
            record: |dev, record| {
                // SAFETY: the driver wrote the handle on success.
                let render_pass = unsafe { *p_render_pass };
                dev.records.render_passes.write().insert(render_pass, Arc::new(record));
            },
        }
    };
}

/// The aspects an input attachment of `format` is read with where the create info (version
/// 1, without `VkRenderPassInputAttachmentAspectCreateInfo`) does not say.
fn aspects_of(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::X8_D24_UNORM_PACK32 | vk::Format::D32_SFLOAT => {
            vk::ImageAspectFlags::DEPTH
        }
        vk::Format::S8_UINT => vk::ImageAspectFlags::STENCIL,
        vk::Format::D16_UNORM_S8_UINT
        | vk::Format::D24_UNORM_S8_UINT
        | vk::Format::D32_SFLOAT_S8_UINT => {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

/// The copies of `$subpasses` (`VkSubpassDescription` or `VkSubpassDescription2`: the same
/// fields, in structs of different types), their references copied by
/// `$refs(pointer, count, inputs)` and their view masks read by `$view_mask(subpass)`. The
/// caller has made the arrays readable (a valid create info).
macro_rules! subpass_copies {
    ($subpasses:expr, $refs:expr, $view_mask:expr) => {
        $subpasses
            .iter()
            .map(|s| SubpassCopy {
                flags: s.flags,
                bind_point: s.pipeline_bind_point,
                view_mask: $view_mask(s),
                inputs: $refs(s.p_input_attachments, s.input_attachment_count, true),
                colors: $refs(s.p_color_attachments, s.color_attachment_count, false),
                resolves: match s.p_resolve_attachments.is_null() {
                    true => Vec::new(),
                    false => $refs(s.p_resolve_attachments, s.color_attachment_count, false),
                },
                depth_stencil: $refs(
                    s.p_depth_stencil_attachment,
                    u32::from(!s.p_depth_stencil_attachment.is_null()),
                    false,
                )
                .first()
                .copied(),
                preserves: slice(s.p_preserve_attachments, s.preserve_attachment_count).to_vec(),
            })
            .collect()
    };
}

/// Subpass dependency `$d` as a `$dependency`, the fields the two have alike copied and the
/// rest (`flags` named `dependencyFlags` in Vulkan's structs, the view offset) given after
/// `$d`: `VkSubpassDependency`, `VkSubpassDependency2` and [`DependencyCopy`] are of
/// different types.
macro_rules! dependency {
    ($($dependency:ident)::+ { $d:ident, $($rest:tt)* }) => {
        $($dependency)::+ {
            src_subpass: $d.src_subpass,
            dst_subpass: $d.dst_subpass,
            src_stage_mask: $d.src_stage_mask,
            dst_stage_mask: $d.dst_stage_mask,
            src_access_mask: $d.src_access_mask,
            dst_access_mask: $d.dst_access_mask,
            $($rest)*
        }
    };
}

/// Attachment description `$a` as a `$description`: `VkAttachmentDescription` and
/// `VkAttachmentDescription2` have the same fields, in structs of different types (the rest
/// of the second, `sType` and `pNext`, given after `$a`).
macro_rules! attachment_description {
    ($($description:ident)::+ { $a:ident $(, $($rest:tt)*)? }) => {
        $($description)::+ {
            flags: $a.flags,
            format: $a.format,
            samples: $a.samples,
            load_op: $a.load_op,
            store_op: $a.store_op,
            stencil_load_op: $a.stencil_load_op,
            stencil_store_op: $a.stencil_store_op,
            initial_layout: $a.initial_layout,
            final_layout: $a.final_layout,
            $($($rest)*)?
        }
    };
}

/// A create info the layer can copy: one whose structs chain nothing.
const CHAINED: &str = "its create info chains structs the layer does not copy";

/// Copies of the two versions of a render pass create info.
trait CopyOf<T> {
    /// # Safety
    /// `ci` is a valid create info.
    unsafe fn of(ci: &T) -> Result<RenderPassCopy, &'static str>;
}

impl CopyOf<vk::RenderPassCreateInfo<'_>> for RenderPassCopy {
    unsafe fn of(ci: &vk::RenderPassCreateInfo<'_>) -> Result<RenderPassCopy, &'static str> {
        if !ci.p_next.is_null() {
            return Err(CHAINED);
        }
        // SAFETY: the arrays of a valid create info hold their counts of elements
        // (this function's contract).
        unsafe {
            let attachments = slice(ci.p_attachments, ci.attachment_count).to_vec();
            let aspect = |a: u32| {
                attachments
                    .get(a as usize)
                    .map_or(vk::ImageAspectFlags::COLOR, |d| aspects_of(d.format))
            };
            let refs = |p: *const vk::AttachmentReference, n: u32, input: bool| {
                slice(p, n)
                    .iter()
                    .map(|r| AttachmentRef {
                        attachment: r.attachment,
                        layout: r.layout,
                        aspect_mask: match input && r.attachment != vk::ATTACHMENT_UNUSED {
                            true => aspect(r.attachment),
                            false => vk::ImageAspectFlags::empty(),
                        },
                    })
                    .collect::<Vec<_>>()
            };
            let subpasses = subpass_copies!(slice(ci.p_subpasses, ci.subpass_count), refs, |_| 0);
            let dependencies = slice(ci.p_dependencies, ci.dependency_count)
                .iter()
                .map(|d| {
                    dependency!(DependencyCopy {
                        d,
                        flags: d.dependency_flags,
                        view_offset: 0
                    })
                })
                .collect();
            Ok(RenderPassCopy {
                flags: ci.flags,
                attachments,
                subpasses,
                dependencies,
                correlated_view_masks: Vec::new(),
            })
        }
    }
}

impl CopyOf<vk::RenderPassCreateInfo2<'_>> for RenderPassCopy {
    unsafe fn of(ci: &vk::RenderPassCreateInfo2<'_>) -> Result<RenderPassCopy, &'static str> {
        // SAFETY: the arrays of a valid create info hold their counts of elements
        // (this function's contract).
        unsafe {
            let attachments = slice(ci.p_attachments, ci.attachment_count);
            let subpasses = slice(ci.p_subpasses, ci.subpass_count);
            let dependencies = slice(ci.p_dependencies, ci.dependency_count);
            let chained = !ci.p_next.is_null()
                || attachments.iter().any(|a| !a.p_next.is_null())
                || subpasses.iter().any(|s| !s.p_next.is_null())
                || dependencies.iter().any(|d| !d.p_next.is_null());
            if chained {
                return Err(CHAINED);
            }
            // Version 2's references carry their aspects, inputs or not.
            let refs = |p: *const vk::AttachmentReference2<'_>, n: u32, _inputs: bool| {
                slice(p, n)
                    .iter()
                    .map(|r| AttachmentRef {
                        attachment: r.attachment,
                        layout: r.layout,
                        aspect_mask: r.aspect_mask,
                    })
                    .collect::<Vec<_>>()
            };
            let subpasses = subpass_copies!(subpasses, refs, |s: &vk::SubpassDescription2<'_>| {
                s.view_mask
            });
            Ok(RenderPassCopy {
                flags: ci.flags,
                attachments: attachments
                    .iter()
                    .map(|a| attachment_description!(vk::AttachmentDescription { a }))
                    .collect(),
                subpasses,
                dependencies: dependencies
                    .iter()
                    .map(|d| {
                        dependency!(DependencyCopy {
                            d,
                            flags: d.dependency_flags,
                            view_offset: d.view_offset
                        })
                    })
                    .collect(),
                correlated_view_masks: slice(
                    ci.p_correlated_view_masks,
                    ci.correlated_view_mask_count,
                )
                .to_vec(),
            })
        }
    }
}

render_pass_hook!(
    /// `vkCreateRenderPass`.
    "vkCreateRenderPass", create_render_pass(vk::RenderPassCreateInfo<'_>)
);
render_pass_hook!(
    /// `vkCreateRenderPass2` (and its KHR alias).
    "vkCreateRenderPass2", create_render_pass2(vk::RenderPassCreateInfo2<'_>)
);

destroy_hook!(
    /// `vkDestroyRenderPass`: its variants go with it (the application's pending work
    /// that used it, and so them, has completed).
    "vkDestroyRenderPass", destroy_render_pass(render_pass: vk::RenderPass), |dev| {
        let removed = dev.records.render_passes.write().remove(&render_pass);
        if let (Some(record), Some(destroy)) = (removed, dev.table.destroy_render_pass) {
            let variants = std::mem::take(&mut *record.resumable.variants.lock());
            for made in [variants.kept, variants.resume].into_iter().flatten() {
                // SAFETY: a render pass the layer made on this device, unused by pending
                // work (as the application's is).
                unsafe { destroy(dev.handle, made, std::ptr::null()) };
            }
        }
    }
);

/// `render_pass`'s `variant` (made on first use; `Err`: why there is none).
pub fn variant(
    dev: &DeviceData,
    render_pass: vk::RenderPass,
    variant: Variant,
) -> Result<vk::RenderPass, &'static str> {
    let record = dev
        .records
        .render_passes
        .read()
        .get(&render_pass)
        .cloned()
        .ok_or("the layer did not see the render pass made")?;
    let copy = record.resumable.copy.as_ref().map_err(|why| *why)?;
    let mut variants = record.resumable.variants.lock();
    let slot = match variant {
        Variant::Kept => &mut variants.kept,
        Variant::Resume => &mut variants.resume,
    };
    if let Some(made) = *slot {
        return Ok(made);
    }
    let made = make_variant(dev, copy, variant)?;
    *slot = Some(made);
    Ok(made)
}

/// Makes `variant` of `copy` with `vkCreateRenderPass2`.
fn make_variant(
    dev: &DeviceData,
    copy: &RenderPassCopy,
    variant: Variant,
) -> Result<vk::RenderPass, &'static str> {
    let create = dev
        .table
        .create_render_pass2
        .ok_or("the device has no vkCreateRenderPass2")?;
    let attachments: Vec<_> = copy
        .attachments_of(variant)
        .iter()
        .map(|a| {
            attachment_description!(vk::AttachmentDescription2 {
                a,
                ..Default::default()
            })
        })
        .collect();
    let refs = |refs: &[AttachmentRef]| -> Vec<vk::AttachmentReference2<'static>> {
        refs.iter()
            .map(|r| vk::AttachmentReference2 {
                attachment: r.attachment,
                layout: r.layout,
                aspect_mask: r.aspect_mask,
                ..Default::default()
            })
            .collect()
    };
    let subpass_refs: Vec<_> = copy
        .subpasses
        .iter()
        .map(|s| {
            (
                refs(&s.inputs),
                refs(&s.colors),
                refs(&s.resolves),
                s.depth_stencil.map(|d| refs(&[d])),
            )
        })
        .collect();
    let subpasses: Vec<_> = copy
        .subpasses
        .iter()
        .zip(&subpass_refs)
        .map(
            |(s, (inputs, colors, resolves, depth))| vk::SubpassDescription2 {
                flags: s.flags,
                pipeline_bind_point: s.bind_point,
                view_mask: s.view_mask,
                input_attachment_count: inputs.len() as u32,
                p_input_attachments: inputs.as_ptr(),
                color_attachment_count: colors.len() as u32,
                p_color_attachments: colors.as_ptr(),
                p_resolve_attachments: match resolves.is_empty() {
                    true => std::ptr::null(),
                    false => resolves.as_ptr(),
                },
                p_depth_stencil_attachment: depth.as_ref().map_or(std::ptr::null(), |d| d.as_ptr()),
                preserve_attachment_count: s.preserves.len() as u32,
                p_preserve_attachments: s.preserves.as_ptr(),
                ..Default::default()
            },
        )
        .collect();
    let dependencies: Vec<_> = copy
        .dependencies
        .iter()
        .map(|d| {
            dependency!(vk::SubpassDependency2 {
                d,
                dependency_flags: d.flags,
                view_offset: d.view_offset,
                ..Default::default()
            })
        })
        .collect();
    let info = vk::RenderPassCreateInfo2 {
        flags: copy.flags,
        attachment_count: attachments.len() as u32,
        p_attachments: attachments.as_ptr(),
        subpass_count: subpasses.len() as u32,
        p_subpasses: subpasses.as_ptr(),
        dependency_count: dependencies.len() as u32,
        p_dependencies: dependencies.as_ptr(),
        correlated_view_mask_count: copy.correlated_view_masks.len() as u32,
        p_correlated_view_masks: copy.correlated_view_masks.as_ptr(),
        ..Default::default()
    };
    let mut made = vk::RenderPass::null();
    // SAFETY: a create info whose arrays live through the call, equal to the
    // application's (which was valid) but for load and store operations and initial
    // layouts, which any values of make valid.
    let result = unsafe { create(dev.handle, &info, std::ptr::null(), &mut made) };
    match result {
        vk::Result::SUCCESS => Ok(made),
        _ => Err("the driver did not make the layer's copy of the render pass"),
    }
}

create_hook! {
    /// `vkCreateFramebuffer`: remembers its layer count (`gl_Layer` counts on layered
    /// targets).
    "vkCreateFramebuffer",
    fn create_framebuffer(
        device, p_create_info: vk::FramebufferCreateInfo<'_>, p_allocator, p_framebuffer: vk::Framebuffer
    ),
    // SAFETY: a valid create info (Vulkan's valid usage).
    prepare: |_| unsafe { (*p_create_info).layers },
    record: |dev, layers| {
        // SAFETY: the driver wrote the handle on success.
        let framebuffer = unsafe { *p_framebuffer };
        dev.records.framebuffer_layers.write().insert(framebuffer, layers);
    },
}

destroy_hook!(
    /// `vkDestroyFramebuffer`.
    "vkDestroyFramebuffer", destroy_framebuffer(framebuffer: vk::Framebuffer), |dev| {
        dev.records.framebuffer_layers.write().remove(&framebuffer);
    }
);

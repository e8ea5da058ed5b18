//! The records of render passes (colour attachment formats per subpass) and framebuffers
//! (their layer count).

use ash::vk;
use std::sync::Arc;

use crate::layer::data::records::RenderPassRecord;
use crate::layer::loader::frames::{create_hook, destroy_hook};
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
            prepare: |_| RenderPassRecord::new(subpass_colors!(unsafe { &*p_create_info })),
            record: |dev, record| {
                // SAFETY: the driver wrote the handle on success.
                let render_pass = unsafe { *p_render_pass };
                dev.records.render_passes.write().insert(render_pass, Arc::new(record));
            },
        }
    };
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
    /// `vkDestroyRenderPass`.
    "vkDestroyRenderPass", destroy_render_pass(render_pass: vk::RenderPass), |dev| {
        dev.records.render_passes.write().remove(&render_pass);
    }
);

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

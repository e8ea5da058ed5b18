//! The records of render passes (colour attachment formats per subpass) and framebuffers
//! (their layer count).

use ash::vk;
use std::sync::Arc;

use super::dispatch::DeviceDispatch;
use super::ffi::slice;
use super::frames::create_recorded;
use super::frames::destroy_hook;
use super::records::RenderPassRecord;

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

/// Calls down to a render-pass create command and records the result; `call_down` writes
/// `p_render_pass` when it succeeds (the driver does).
fn create_render_pass_with<F>(
    what: &str,
    device: vk::Device,
    p_render_pass: *mut vk::RenderPass,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    describe: impl FnOnce() -> Vec<Vec<Option<vk::Format>>>,
    call_down: impl FnOnce(F) -> vk::Result,
) -> vk::Result {
    create_recorded(
        what,
        device,
        next,
        |_| RenderPassRecord::new(describe()),
        |next, _| call_down(next),
        |dev, record| {
            dev.records
                .render_passes
                .write()
                // SAFETY: the driver wrote the handle on success.
                .insert(unsafe { *p_render_pass }, Arc::new(record));
        },
    )
}

/// `vkCreateRenderPass`: remembers the colour attachments per subpass.
///
/// # Safety
/// Vulkan's valid usage for the command.
pub unsafe extern "system" fn create_render_pass(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    create_render_pass_with(
        "vkCreateRenderPass",
        device,
        p_render_pass,
        |t| t.create_render_pass,
        // SAFETY: a valid create info (Vulkan's valid usage).
        || subpass_colors!(unsafe { &*p_create_info }),
        // SAFETY: the application's arguments, passed on unchanged.
        |next| unsafe { next(device, p_create_info, p_allocator, p_render_pass) },
    )
}

/// `vkCreateRenderPass2` (and its KHR alias): remembers the colour attachments per subpass.
///
/// # Safety
/// Vulkan's valid usage for the command.
pub unsafe extern "system" fn create_render_pass2(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    create_render_pass_with(
        "vkCreateRenderPass2",
        device,
        p_render_pass,
        |t| t.create_render_pass2,
        // SAFETY: a valid create info (Vulkan's valid usage).
        || subpass_colors!(unsafe { &*p_create_info }),
        // SAFETY: the application's arguments, passed on unchanged.
        |next| unsafe { next(device, p_create_info, p_allocator, p_render_pass) },
    )
}

destroy_hook!(
    /// `vkDestroyRenderPass`.
    "vkDestroyRenderPass", destroy_render_pass(render_pass: vk::RenderPass), |dev| {
        dev.records.render_passes.write().remove(&render_pass);
    }
);

/// `vkCreateFramebuffer`: remembers its layer count (`gl_Layer` counts on layered targets).
///
/// # Safety
/// Vulkan's valid usage for the command.
pub unsafe extern "system" fn create_framebuffer(
    device: vk::Device,
    p_create_info: *const vk::FramebufferCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_framebuffer: *mut vk::Framebuffer,
) -> vk::Result {
    create_recorded(
        "vkCreateFramebuffer",
        device,
        |t| t.create_framebuffer,
        // SAFETY: a valid create info (Vulkan's valid usage).
        |_| unsafe { (*p_create_info).layers },
        // SAFETY: the application's arguments, passed on unchanged.
        |next, _| unsafe { next(device, p_create_info, p_allocator, p_framebuffer) },
        |dev, layers| {
            dev.records
                .framebuffer_layers
                .write()
                // SAFETY: the driver wrote the handle on success.
                .insert(unsafe { *p_framebuffer }, layers);
        },
    )
}

destroy_hook!(
    /// `vkDestroyFramebuffer`.
    "vkDestroyFramebuffer", destroy_framebuffer(framebuffer: vk::Framebuffer), |dev| {
        dev.records.framebuffer_layers.write().remove(&framebuffer);
    }
);

//! What the layer keeps of render passes and render pass instances so that it can end one
//! for work of its own outside it and begin it again where it was (`converted_draws`): a
//! render pass's create info, in plain data, and the begin info of the instance a command
//! buffer records into.
//!
//! Plain data (no pointers): records move between threads. The commands that make the
//! variants and begin them again are in `commands/render_targets.rs`.

use ash::vk;
use parking_lot::Mutex;
use std::sync::Arc;

/// An attachment reference (`VkAttachmentReference2` without a chain).
#[derive(Debug, Clone, Copy)]
pub struct AttachmentRef {
    pub attachment: u32,
    pub layout: vk::ImageLayout,
    pub aspect_mask: vk::ImageAspectFlags,
}

/// A subpass (`VkSubpassDescription2` without a chain).
#[derive(Debug, Clone)]
pub struct SubpassCopy {
    pub flags: vk::SubpassDescriptionFlags,
    pub bind_point: vk::PipelineBindPoint,
    pub view_mask: u32,
    pub inputs: Vec<AttachmentRef>,
    pub colors: Vec<AttachmentRef>,
    pub resolves: Vec<AttachmentRef>,
    pub depth_stencil: Option<AttachmentRef>,
    pub preserves: Vec<u32>,
}

/// A subpass dependency (`VkSubpassDependency2` without a chain).
#[derive(Debug, Clone, Copy)]
pub struct DependencyCopy {
    pub src_subpass: u32,
    pub dst_subpass: u32,
    pub src_stage_mask: vk::PipelineStageFlags,
    pub dst_stage_mask: vk::PipelineStageFlags,
    pub src_access_mask: vk::AccessFlags,
    pub dst_access_mask: vk::AccessFlags,
    pub flags: vk::DependencyFlags,
    pub view_offset: i32,
}

/// A render pass's create info, enough to make render passes compatible with it that
/// differ in their load and store operations and layouts.
#[derive(Debug, Clone)]
pub struct RenderPassCopy {
    pub flags: vk::RenderPassCreateFlags,
    pub attachments: Vec<vk::AttachmentDescription>,
    pub subpasses: Vec<SubpassCopy>,
    pub dependencies: Vec<DependencyCopy>,
    pub correlated_view_masks: Vec<u32>,
}

impl RenderPassCopy {
    /// Whether an attachment's contents may be lost at the end of the render pass
    /// (`DONT_CARE` or `NONE` stores): the layer then begins it as [`Variant::Kept`].
    pub fn discards(&self) -> bool {
        self.attachments
            .iter()
            .any(|a| !stores(a.store_op) || !stores(a.stencil_store_op))
    }

    /// The attachments of `variant`.
    pub fn attachments_of(&self, variant: Variant) -> Vec<vk::AttachmentDescription> {
        self.attachments
            .iter()
            .map(|&a| {
                let mut a = a;
                a.store_op = kept(a.store_op);
                a.stencil_store_op = kept(a.stencil_store_op);
                if variant == Variant::Resume {
                    // Begun again where the first instance left each attachment.
                    a.load_op = vk::AttachmentLoadOp::LOAD;
                    a.stencil_load_op = vk::AttachmentLoadOp::LOAD;
                    a.initial_layout = a.final_layout;
                }
                a
            })
            .collect()
    }
}

fn stores(op: vk::AttachmentStoreOp) -> bool {
    op == vk::AttachmentStoreOp::STORE
}

/// `STORE` for a store that may lose the contents.
pub fn kept(op: vk::AttachmentStoreOp) -> vk::AttachmentStoreOp {
    match op {
        vk::AttachmentStoreOp::DONT_CARE | vk::AttachmentStoreOp::NONE => {
            vk::AttachmentStoreOp::STORE
        }
        op => op,
    }
}

/// The render passes the layer makes compatible with an application's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Its load operations, every attachment stored: begun instead of the application's
    /// where the layer may end the instance early.
    Kept,
    /// Every attachment loaded from the layout the previous instance left it in, and
    /// stored: begun again after the layer's work.
    Resume,
}

/// A render pass's variants, made on first use, destroyed with it.
#[derive(Debug, Default)]
pub struct Variants {
    pub kept: Option<vk::RenderPass>,
    pub resume: Option<vk::RenderPass>,
}

/// What the layer keeps of a render pass for [`RenderTarget::Pass`].
#[derive(Debug)]
pub struct ResumablePass {
    /// Its copy, or why the layer cannot make one (a chained struct it does not know).
    pub copy: Result<RenderPassCopy, &'static str>,
    pub variants: Mutex<Variants>,
}

/// A colour, depth or stencil attachment of dynamic rendering
/// (`VkRenderingAttachmentInfo` without a chain and its clear value).
#[derive(Debug, Clone, Copy)]
pub struct RenderingAttachment {
    pub view: vk::ImageView,
    pub layout: vk::ImageLayout,
    pub resolve_mode: vk::ResolveModeFlags,
    pub resolve_view: vk::ImageView,
    pub resolve_layout: vk::ImageLayout,
    pub store_op: vk::AttachmentStoreOp,
}

/// A `VkRenderingInfo` without a chain.
#[derive(Debug, Clone)]
pub struct RenderingCopy {
    pub flags: vk::RenderingFlags,
    pub area: vk::Rect2D,
    pub layer_count: u32,
    pub view_mask: u32,
    pub colors: Vec<RenderingAttachment>,
    pub depth: Option<RenderingAttachment>,
    pub stencil: Option<RenderingAttachment>,
}

/// The render pass instance a command buffer records into.
#[derive(Debug, Clone)]
pub enum RenderTarget {
    /// `vkCmdBeginRenderPass*`: the application's render pass, framebuffer and area, the
    /// attachments of an imageless framebuffer, and the subpass recorded now.
    Pass {
        render_pass: vk::RenderPass,
        framebuffer: vk::Framebuffer,
        area: vk::Rect2D,
        views: Arc<[vk::ImageView]>,
        subpass: u32,
    },
    /// `vkCmdBeginRendering*`.
    Rendering(Arc<RenderingCopy>),
    /// One the layer cannot begin again, and why.
    Unresumable(&'static str),
}

/// A `vkCmdBindDescriptorSets` of the compute bind point.
#[derive(Debug, Clone)]
pub struct BoundSets {
    pub layout: vk::PipelineLayout,
    pub first_set: u32,
    pub sets: Vec<vk::DescriptorSet>,
    pub dynamic_offsets: Vec<u32>,
}

/// The application's compute bindings, which the layer's own dispatches disturb and put
/// back: the pipeline and the last [`ComputeBindings::KEPT`] descriptor-set bindings, replayed
/// in order.
#[derive(Debug, Clone, Default)]
pub struct ComputeBindings {
    pub pipeline: vk::Pipeline,
    pub sets: Vec<BoundSets>,
}

impl ComputeBindings {
    /// Bindings kept: enough for an application that binds each of a few sets apart.
    pub const KEPT: usize = 8;

    pub fn bind_sets(&mut self, bound: BoundSets) {
        if self.sets.len() == Self::KEPT {
            self.sets.remove(0);
        }
        self.sets.push(bound);
    }
}

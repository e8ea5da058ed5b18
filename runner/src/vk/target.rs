//! The "window": colour attachments, the render pass or dynamic-rendering setup, readback.
//!
//! Images stay in `GENERAL` layout for their whole life, so clears, draws and copies need
//! only memory barriers between them.

use ash::vk;

use super::format::Format;
use super::gpu::{Buffer, Gpu};
use super::images::{color_range, image_barrier, whole_image_copy};
use super::result::{check, VkResult};

pub struct Attachment {
    pub format: Format,
    /// `false` for an `UNUSED` hole: the image exists (clears, probes) but draws skip it.
    pub used: bool,
    pub image: vk::Image,
    memory: vk::DeviceMemory,
    pub view: vk::ImageView,
    pub readback: Buffer,
    /// The image and view are another owner's (a texture's, `Targets::on_texture`):
    /// `destroy` leaves them.
    borrowed: bool,
}

/// GL's depth buffer: `D32_SFLOAT`, made when the scene uses depth.
pub struct DepthAttachment {
    pub image: vk::Image,
    memory: vk::DeviceMemory,
    pub view: vk::ImageView,
    pub readback: Buffer,
}

pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// `range` over the first `layers` layers.
fn layer_range(range: vk::ImageSubresourceRange, layers: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        layer_count: layers,
        ..range
    }
}

fn depth_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::DEPTH,
        ..color_range()
    }
}

pub struct Targets {
    pub width: u32,
    pub height: u32,
    /// More than 1 for a layered target (`fb tex layered`): draws reach every layer
    /// (`gl_Layer`); clears clear them all; probes read layer 0, as GL's do.
    pub layers: u32,
    pub attachments: Vec<Attachment>,
    pub depth: Option<DepthAttachment>,
    pub dynamic: bool,
    pub render_pass: vk::RenderPass,
    pub framebuffer: vk::Framebuffer,
    /// A positive viewport draws GL's bottom row into the framebuffer's first.
    pub lower_left: bool,
}

impl Targets {
    /// `formats[i] == None` is a hole (an RGBA8 image that draws never write); `depth`
    /// adds a depth buffer; every image has `layers` layers.
    pub fn new(
        gpu: &Gpu,
        (width, height, layers): (u32, u32, u32),
        formats: &[Option<Format>],
        dynamic: bool,
        depth: bool,
    ) -> VkResult<Targets> {
        let mut targets = Targets {
            width,
            height,
            layers,
            attachments: Vec::new(),
            depth: None,
            dynamic,
            render_pass: vk::RenderPass::null(),
            framebuffer: vk::Framebuffer::null(),
            lower_left: gpu.lower_left,
        };
        for f in formats {
            let att = Self::attachment(
                gpu,
                (width, height, layers),
                f.unwrap_or(Format::DEFAULT),
                f.is_some(),
            );
            match att {
                Ok(a) => targets.attachments.push(a),
                Err(e) => {
                    targets.destroy(gpu);
                    return Err(e);
                }
            }
        }
        if depth {
            match Self::depth_attachment(gpu, (width, height, layers)) {
                Ok(d) => targets.depth = Some(d),
                Err(e) => {
                    targets.destroy(gpu);
                    return Err(e);
                }
            }
        }
        if !dynamic {
            if let Err(e) = targets.create_render_pass(gpu) {
                targets.destroy(gpu);
                return Err(e);
            }
        }
        Ok(targets)
    }

    fn attachment(
        gpu: &Gpu,
        (width, height, layers): (u32, u32, u32),
        format: Format,
        used: bool,
    ) -> VkResult<Attachment> {
        // SAFETY: `gpu.physical` was enumerated from `gpu.instance`, alive as long as `gpu`.
        let props = unsafe {
            gpu.instance
                .get_physical_device_format_properties(gpu.physical, format.vk)
        };
        if !props
            .optimal_tiling_features
            .contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT)
        {
            return Err(format!(
                "{:?} cannot be a colour attachment on {}",
                format.vk, gpu.name
            )
            .into());
        }
        let (image, memory, view) = gpu.image_2d(
            format.vk,
            (width, height),
            vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST,
            layer_range(color_range(), layers),
        )?;
        let readback = gpu.buffer(
            width as u64 * height as u64 * format.texel_bytes() as u64,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        Ok(Attachment {
            format,
            used,
            image,
            memory,
            view,
            readback,
            borrowed: false,
        })
    }

    /// A framebuffer whose one colour attachment is a texture's `image` (`fb tex 2d`):
    /// `width`×`height`, already in `GENERAL`, with `COLOR_ATTACHMENT` and `TRANSFER_SRC`
    /// usage; no depth buffer, as piglit's texture framebuffer has none. A texture's row 0
    /// is GL's bottom row (t = 0), so the readback takes it as such (`lower_left`).
    pub fn on_texture(
        gpu: &Gpu,
        (width, height): (u32, u32),
        image: vk::Image,
        view: vk::ImageView,
        dynamic: bool,
    ) -> VkResult<Targets> {
        let format = Format::DEFAULT;
        let readback = gpu.buffer(
            width as u64 * height as u64 * format.texel_bytes() as u64,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        let mut targets = Targets {
            width,
            height,
            layers: 1,
            attachments: vec![Attachment {
                format,
                used: true,
                image,
                memory: vk::DeviceMemory::null(),
                view,
                readback,
                borrowed: true,
            }],
            depth: None,
            dynamic,
            render_pass: vk::RenderPass::null(),
            framebuffer: vk::Framebuffer::null(),
            lower_left: true,
        };
        if !dynamic {
            if let Err(e) = targets.create_render_pass(gpu) {
                targets.destroy(gpu);
                return Err(e);
            }
        }
        Ok(targets)
    }

    /// Whether attachment images include `image` (a texture the framebuffer draws to).
    pub fn draws_to(&self, image: vk::Image) -> bool {
        self.attachments.iter().any(|a| a.image == image)
    }

    fn depth_attachment(
        gpu: &Gpu,
        (width, height, layers): (u32, u32, u32),
    ) -> VkResult<DepthAttachment> {
        // SAFETY: `gpu.physical` was enumerated from `gpu.instance`, alive as long as `gpu`.
        let props = unsafe {
            gpu.instance
                .get_physical_device_format_properties(gpu.physical, DEPTH_FORMAT)
        };
        if !props
            .optimal_tiling_features
            .contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT)
        {
            return Err(format!(
                "{DEPTH_FORMAT:?} cannot be a depth attachment on {}",
                gpu.name
            )
            .into());
        }
        let (image, memory, view) = gpu.image_2d(
            DEPTH_FORMAT,
            (width, height),
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST,
            layer_range(depth_range(), layers),
        )?;
        let readback = gpu.buffer(
            width as u64 * height as u64 * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
        )?;
        Ok(DepthAttachment {
            image,
            memory,
            view,
            readback,
        })
    }

    fn create_render_pass(&mut self, gpu: &Gpu) -> VkResult<()> {
        let mut descriptions = Vec::new();
        let mut refs = Vec::new();
        let mut views = Vec::new();
        for a in &self.attachments {
            if a.used {
                refs.push(general_reference(descriptions.len() as u32));
                descriptions.push(kept_attachment(a.format.vk));
                views.push(a.view);
            } else {
                refs.push(vk::AttachmentReference {
                    attachment: vk::ATTACHMENT_UNUSED,
                    layout: vk::ImageLayout::UNDEFINED,
                });
            }
        }
        let depth_ref = self.depth.as_ref().map(|d| {
            let r = general_reference(descriptions.len() as u32);
            descriptions.push(kept_attachment(DEPTH_FORMAT));
            views.push(d.view);
            r
        });
        let mut subpass_desc = vk::SubpassDescription::default()
            .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
            .color_attachments(&refs);
        if let Some(r) = &depth_ref {
            subpass_desc = subpass_desc.depth_stencil_attachment(r);
        }
        let subpass = [subpass_desc];
        let info = vk::RenderPassCreateInfo::default()
            .attachments(&descriptions)
            .subpasses(&subpass);
        // SAFETY: `info` points at `descriptions`, `subpass` and the references it holds,
        // locals alive until the call returns.
        self.render_pass = unsafe { gpu.device.create_render_pass(&info, None) }
            .map_err(check("vkCreateRenderPass"))?;
        let fb_info = vk::FramebufferCreateInfo::default()
            .render_pass(self.render_pass)
            .attachments(&views)
            .width(self.width)
            .height(self.height)
            .layers(self.layers);
        // SAFETY: `views` are live views of this device's images, one per attachment of
        // `self.render_pass` (just made from the same list), of at least `width`×`height`.
        self.framebuffer = unsafe { gpu.device.create_framebuffer(&fb_info, None) }
            .map_err(check("vkCreateFramebuffer"))?;
        Ok(())
    }

    /// Formats per slot for `VkPipelineRenderingCreateInfo` (holes are `UNDEFINED`).
    pub fn rendering_formats(&self) -> Vec<vk::Format> {
        self.attachments
            .iter()
            .map(|a| {
                if a.used {
                    a.format.vk
                } else {
                    vk::Format::UNDEFINED
                }
            })
            .collect()
    }

    /// Moves fresh images to `GENERAL`, where they stay.
    pub fn record_init(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        let mut barriers: Vec<_> = self
            .attachments
            .iter()
            .map(|a| {
                image_barrier(
                    a.image,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::GENERAL,
                )
                .subresource_range(layer_range(color_range(), self.layers))
                .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)
            })
            .collect();
        if let Some(d) = &self.depth {
            barriers.push(
                image_barrier(
                    d.image,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::GENERAL,
                )
                .subresource_range(layer_range(depth_range(), self.layers))
                .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE),
            );
        }
        gpu.image_barriers(
            cmd,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::ALL_COMMANDS,
            &barriers,
        );
    }

    /// `clear`: every image, holes included.
    pub fn record_clear(&self, gpu: &Gpu, cmd: vk::CommandBuffer, color: [f32; 4]) {
        for a in &self.attachments {
            // SAFETY: `cmd` is recording outside a render pass (the caller's); `a.image` is
            // this device's, alive as long as `self`, in `GENERAL` (module comment).
            unsafe {
                gpu.device.cmd_clear_color_image(
                    cmd,
                    a.image,
                    vk::ImageLayout::GENERAL,
                    &a.format.clear_value(color),
                    &[layer_range(color_range(), self.layers)],
                );
            }
        }
    }

    /// The depth part of `clear` (`glClearDepth`'s value).
    pub fn record_clear_depth(&self, gpu: &Gpu, cmd: vk::CommandBuffer, depth: f32) {
        if let Some(d) = &self.depth {
            // SAFETY: as in `record_clear`, for the depth image.
            unsafe {
                gpu.device.cmd_clear_depth_stencil_image(
                    cmd,
                    d.image,
                    vk::ImageLayout::GENERAL,
                    &vk::ClearDepthStencilValue {
                        depth: depth.clamp(0.0, 1.0),
                        stencil: 0,
                    },
                    &[layer_range(depth_range(), self.layers)],
                );
            }
        }
    }

    pub fn record_begin(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: vk::Extent2D {
                width: self.width,
                height: self.height,
            },
        };
        if self.dynamic {
            let infos: Vec<_> = self
                .attachments
                .iter()
                .map(|a| {
                    let info = vk::RenderingAttachmentInfo::default()
                        .image_layout(vk::ImageLayout::GENERAL)
                        .load_op(vk::AttachmentLoadOp::LOAD)
                        .store_op(vk::AttachmentStoreOp::STORE);
                    if a.used {
                        info.image_view(a.view)
                    } else {
                        info
                    }
                })
                .collect();
            let depth_info = self.depth.as_ref().map(|d| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(d.view)
                    .image_layout(vk::ImageLayout::GENERAL)
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::STORE)
            });
            let mut rendering = vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(self.layers)
                .color_attachments(&infos);
            if let Some(info) = &depth_info {
                rendering = rendering.depth_attachment(info);
            }
            // SAFETY: `cmd` is recording outside rendering (the caller's); the views are
            // this device's, alive as long as `self`; `infos` and `depth_info` outlive
            // the call; dynamic targets were made on a device with `dynamicRendering`.
            unsafe { gpu.device.cmd_begin_rendering(cmd, &rendering) };
        } else {
            let begin = vk::RenderPassBeginInfo::default()
                .render_pass(self.render_pass)
                .framebuffer(self.framebuffer)
                .render_area(area);
            // SAFETY: `cmd` is recording outside a render pass (the caller's); without
            // `dynamic`, `render_pass` and `framebuffer` were made by `create` and live as
            // long as `self`; the area is the framebuffer's.
            unsafe {
                gpu.device
                    .cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE)
            };
        }
    }

    pub fn record_end(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        // SAFETY: `cmd` is recording inside the rendering `record_begin` began on it (the
        // caller pairs the two), so the matching end command is the one for `self.dynamic`.
        unsafe {
            if self.dynamic {
                gpu.device.cmd_end_rendering(cmd);
            } else {
                gpu.device.cmd_end_render_pass(cmd);
            }
        }
    }

    /// Copies every image into its readback buffer.
    pub fn record_readback(&self, gpu: &Gpu, cmd: vk::CommandBuffer) {
        let color = self
            .attachments
            .iter()
            .map(|a| (a.image, &a.readback, vk::ImageAspectFlags::COLOR));
        let depth = self
            .depth
            .iter()
            .map(|d| (d.image, &d.readback, vk::ImageAspectFlags::DEPTH));
        for (image, readback, aspect) in color.chain(depth) {
            let region = whole_image_copy(aspect, self.width, self.height);
            // SAFETY: `cmd` is recording outside a render pass (the caller's); `image`
            // (in `GENERAL`) and `readback` (sized for the whole image) are this device's
            // and live as long as `self`.
            unsafe {
                gpu.device.cmd_copy_image_to_buffer(
                    cmd,
                    image,
                    vk::ImageLayout::GENERAL,
                    readback.buffer,
                    &[region],
                );
            }
        }
    }

    /// The depth buffer as last read back, GL's top row first, when there is one.
    pub fn depths(&self) -> Option<Vec<f32>> {
        self.depth.as_ref().map(|d| {
            let depths = d
                .readback
                .bytes()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            self.top_row_first(depths)
        })
    }

    /// RGBA of every pixel of attachment `k` as last read back, GL's top row first (the
    /// flipped viewport puts it at the top of the framebuffer, `--lower-left` at the
    /// bottom).
    pub fn pixels(&self, k: usize) -> Vec<[f64; 4]> {
        let a = &self.attachments[k];
        let pixels = a
            .readback
            .bytes()
            .chunks_exact(a.format.texel_bytes() as usize)
            .map(|t| a.format.decode(t))
            .collect();
        self.top_row_first(pixels)
    }

    /// `framebuffer_rows` in GL's order from the top.
    fn top_row_first<T>(&self, framebuffer_rows: Vec<T>) -> Vec<T> {
        if !self.lower_left || self.width == 0 {
            return framebuffer_rows;
        }
        let mut rows: Vec<Vec<T>> = Vec::with_capacity(self.height as usize);
        let mut rest = framebuffer_rows.into_iter();
        for _ in 0..self.height {
            rows.push(rest.by_ref().take(self.width as usize).collect());
        }
        rows.into_iter().rev().flatten().collect()
    }

    /// Attachment `k` as last read back, as 8-bit RGBA rows from the top: normalized
    /// channels scaled to 0..=255, integer channels clamped to it (what `--png` writes and
    /// `--window` shows).
    pub fn rgba8(&self, k: usize) -> Vec<u8> {
        let integer = self.attachments[k].format.is_integer();
        let to_byte = |v: f64| {
            if integer {
                v.clamp(0.0, 255.0) as u8
            } else {
                (v.clamp(0.0, 1.0) * 255.0).round() as u8
            }
        };
        self.pixels(k).iter().flat_map(|p| p.map(to_byte)).collect()
    }

    pub fn destroy(&mut self, gpu: &Gpu) {
        let d = &gpu.device;
        // SAFETY: every handle here was made on `gpu`'s device by `Targets` and is dropped
        // from `self` as it goes; the player waits for the device to be idle first.
        unsafe {
            if self.framebuffer != vk::Framebuffer::null() {
                d.destroy_framebuffer(self.framebuffer, None);
            }
            if self.render_pass != vk::RenderPass::null() {
                d.destroy_render_pass(self.render_pass, None);
            }
            if let Some(a) = self.depth.take() {
                d.destroy_image_view(a.view, None);
                d.destroy_image(a.image, None);
                d.free_memory(a.memory, None);
                gpu.destroy_buffer(&a.readback);
            }
            for a in self.attachments.drain(..) {
                if !a.borrowed {
                    d.destroy_image_view(a.view, None);
                    d.destroy_image(a.image, None);
                    d.free_memory(a.memory, None);
                }
                gpu.destroy_buffer(&a.readback);
            }
        }
    }
}

/// An attachment a render pass loads and stores whole, kept in the GENERAL layout the
/// target's images stay in between passes.
fn kept_attachment(format: vk::Format) -> vk::AttachmentDescription {
    vk::AttachmentDescription::default()
        .format(format)
        .samples(vk::SampleCountFlags::TYPE_1)
        .load_op(vk::AttachmentLoadOp::LOAD)
        .store_op(vk::AttachmentStoreOp::STORE)
        .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
        .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
        .initial_layout(vk::ImageLayout::GENERAL)
        .final_layout(vk::ImageLayout::GENERAL)
}

fn general_reference(attachment: u32) -> vk::AttachmentReference {
    vk::AttachmentReference {
        attachment,
        layout: vk::ImageLayout::GENERAL,
    }
}

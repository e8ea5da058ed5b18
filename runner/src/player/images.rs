//! GL's image units (GL_ARB_shader_image_load_store) and framebuffers on textures.
//!
//! `image texture UNIT FORMAT` binds the texture of texture unit UNIT to image unit UNIT, as
//! piglit's shader_runner does; an `image2D` uniform's value is an image unit (`uniform int`
//! sets it, like a sampler's texture unit) and it reads as a storage-image descriptor of
//! that texture. `fb tex 2d UNIT` makes a texture the framebuffer that draws, clears and
//! probes use. A texture that is either moves to `GENERAL` for the rest of its life.

use ash::vk;

use super::state::{fail, ImageUnits, Player};
use crate::scene::SceneError;
use crate::vk::target::Targets;
use crate::vk::{color_range, Gpu, ImageUse};

impl ImageUnits {
    pub(super) fn destroy(&mut self, gpu: &Gpu) {
        if let Some((image, memory, view)) = self.unbound.take() {
            // SAFETY: made on this device by `unbound_image`; no pending submission uses
            // it (every submission is waited for).
            unsafe {
                gpu.device.destroy_image_view(view, None);
                gpu.device.destroy_image(image, None);
                gpu.device.free_memory(memory, None);
            }
        }
    }
}

/// The Vulkan format of a GL image format: the format of the textures the runner makes
/// (RGBA8), as the view of an image unit has its texture's format here (another format
/// would need a mutable-format image).
fn vk_format(gl: &str) -> Option<vk::Format> {
    Some(match gl {
        "GL_RGBA8" => vk::Format::R8G8B8A8_UNORM,
        _ => return None,
    })
}

/// The usages a texture of `format` gets beyond sampling, where the device has them: a
/// storage image (`image texture`) and a framebuffer read back by probes (`fb tex 2d`).
/// Usage is fixed at creation, and a texture becomes either only after it is made.
pub(super) fn image_and_target_usage(gpu: &Gpu, format: vk::Format) -> vk::ImageUsageFlags {
    // SAFETY: `gpu.physical` was enumerated from `gpu.instance`, alive as long as `gpu`.
    let features = unsafe {
        gpu.instance
            .get_physical_device_format_properties(gpu.physical, format)
    }
    .optimal_tiling_features;
    let mut usage = vk::ImageUsageFlags::empty();
    if features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE) {
        usage |= vk::ImageUsageFlags::STORAGE;
    }
    if features.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT) {
        usage |= vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    }
    usage
}

impl Player {
    /// `image texture UNIT FORMAT`.
    pub(super) fn bind_image_texture(&mut self, unit: u32, gl: &str) -> Result<(), SceneError> {
        let format = vk_format(gl)
            .ok_or_else(|| SceneError::Skip(format!("image format {gl} is not supported")))?;
        let (image_unit, texture_unit) = (unit, unit);
        let usage = image_and_target_usage(&self.gpu, format);
        if !usage.contains(vk::ImageUsageFlags::STORAGE) {
            return Err(SceneError::Skip(format!(
                "{format:?} has no STORAGE_IMAGE feature on {}",
                self.gpu.name
            )));
        }
        self.texture_to_general(texture_unit)?;
        self.images.units.insert(image_unit, (texture_unit, format));
        Ok(())
    }

    /// `fb tex 2d UNIT`: the texture of unit UNIT becomes the framebuffer.
    ///
    /// Draws keep the window's viewport direction: with the flipped viewport (the default)
    /// a draw's colours land upside down in the texture, while image stores and compute
    /// writes land where GL puts them. The corpus tests that render into a texture probe
    /// only what image stores wrote there.
    pub(super) fn fb_texture(&mut self, unit: u32) -> Result<(), SceneError> {
        let usage = image_and_target_usage(&self.gpu, vk::Format::R8G8B8A8_UNORM);
        if !usage.contains(vk::ImageUsageFlags::COLOR_ATTACHMENT) {
            return Err(SceneError::Skip(format!(
                "RGBA8 textures cannot be colour attachments on {}",
                self.gpu.name
            )));
        }
        self.texture_to_general(unit)?;
        let t = &self.textures.units[&unit];
        let targets =
            Targets::on_texture(&self.gpu, t.extent, t.image, t.view, self.targets.dynamic)
                .map_err(fail)?;
        let mut old = std::mem::replace(&mut self.targets, targets);
        old.destroy(&self.gpu);
        // Pipelines are tied to the render pass and the framebuffer's size.
        for (_, p) in self.pipelines.drain() {
            p.destroy(&self.gpu.device);
        }
        self.readback_fresh = false;
        Ok(())
    }

    /// A new texture on `unit` would destroy the image the framebuffer draws to (GL keeps
    /// the old texture alive for the framebuffer; the runner does not).
    pub(super) fn keep_fb_texture(&self, unit: u32) -> Result<(), SceneError> {
        match self.textures.units.get(&unit) {
            Some(t) if self.targets.draws_to(t.image) => Err(SceneError::Skip(format!(
                "a new texture on unit {unit} while the framebuffer is its old one"
            ))),
            _ => Ok(()),
        }
    }

    /// Moves unit `unit`'s texture to `GENERAL`, the layout storage images and the
    /// framebuffer use.
    fn texture_to_general(&mut self, unit: u32) -> Result<(), SceneError> {
        let t = self
            .textures
            .units
            .get(&unit)
            .ok_or_else(|| fail(format!("no texture on unit {unit}")))?;
        if t.layout == vk::ImageLayout::GENERAL {
            return Ok(());
        }
        let (image, written) = (
            t.image,
            ImageUse {
                stage: vk::PipelineStageFlags::ALL_COMMANDS,
                access: vk::AccessFlags::MEMORY_WRITE,
                layout: t.layout,
            },
        );
        let general = ImageUse {
            stage: vk::PipelineStageFlags::ALL_COMMANDS,
            access: vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
            layout: vk::ImageLayout::GENERAL,
        };
        self.submit(|p, cmd| {
            p.gpu
                .transition(cmd, &[image], color_range(), written, general)
        })
        .map_err(fail)?;
        if let Some(t) = self.textures.units.get_mut(&unit) {
            t.layout = vk::ImageLayout::GENERAL;
        }
        Ok(())
    }

    /// Points every `image2D` binding at its image units' textures (before a draw or a
    /// dispatch).
    pub(super) fn bind_images(&mut self) -> Result<(), SceneError> {
        // A texture made again on a unit after `image texture` starts out sampled-only.
        let bound: Vec<u32> = self.images.units.values().map(|(t, _)| *t).collect();
        for texture_unit in bound {
            self.texture_to_general(texture_unit)?;
        }
        let unbound_used = self.textures.samplers.values().any(|(s, _, units)| {
            s.storage_image && units.iter().any(|u| !self.images.units.contains_key(u))
        });
        let unbound_view = if unbound_used {
            self.unbound_image()?
        } else {
            vk::ImageView::null()
        };
        let mut infos: Vec<(u32, Vec<vk::DescriptorImageInfo>)> = Vec::new();
        for (binding, (image, _, units)) in &self.textures.samplers {
            if !image.storage_image {
                continue;
            }
            let elements = units
                .iter()
                .map(|unit| {
                    let view = match self.images.units.get(unit) {
                        None => unbound_view,
                        Some((texture_unit, _)) => {
                            self.textures
                                .units
                                .get(texture_unit)
                                .ok_or_else(|| fail(format!("no texture on unit {texture_unit}")))?
                                .view
                        }
                    };
                    Ok(vk::DescriptorImageInfo {
                        sampler: vk::Sampler::null(),
                        image_view: view,
                        image_layout: vk::ImageLayout::GENERAL,
                    })
                })
                .collect::<Result<Vec<_>, SceneError>>()?;
            infos.push((*binding, elements));
        }
        self.write_image_descriptors(&infos, vk::DescriptorType::STORAGE_IMAGE);
        Ok(())
    }
}

impl Player {
    /// The view of `ImageUnits::unbound`, made (zeroed, in `GENERAL`) on first use.
    fn unbound_image(&mut self) -> Result<vk::ImageView, SceneError> {
        if let Some((_, _, view)) = self.images.unbound {
            return Ok(view);
        }
        let made = self
            .gpu
            .image_2d(
                vk::Format::R8G8B8A8_UNORM,
                (1, 1),
                vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_DST,
                color_range(),
            )
            .map_err(fail)?;
        self.images.unbound = Some(made);
        let (image, _, view) = made;
        self.submit(|p, cmd| {
            let top = ImageUse::discarded(vk::PipelineStageFlags::TOP_OF_PIPE);
            let cleared = ImageUse {
                layout: vk::ImageLayout::GENERAL,
                ..ImageUse::TRANSFER_DST
            };
            p.gpu.transition(cmd, &[image], color_range(), top, cleared);
            // SAFETY: `cmd` is recording outside rendering; `image` is this device's, in
            // `GENERAL` after the barrier above.
            unsafe {
                p.gpu.device.cmd_clear_color_image(
                    cmd,
                    image,
                    vk::ImageLayout::GENERAL,
                    &vk::ClearColorValue::default(),
                    &[color_range()],
                )
            };
        })
        .map_err(fail)?;
        Ok(view)
    }
}

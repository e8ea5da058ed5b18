//! Textures and `sampler2D` uniforms: piglit's `texture rgbw` and `texture checkerboard`
//! (GL_RGBA, one level, with the filters and wraps piglit gives them), `texparameter`, and
//! GL's texture units: a sampler uniform's value is a unit (initially 0), set with
//! `uniform int NAME UNIT`; a unit without a texture samples as GL's incomplete texture,
//! (0, 0, 0, 1).

use std::collections::BTreeMap;

use ash::vk;

use super::{fail, Player};
use crate::glsl::SamplerUniform;
use crate::scene::{SceneError, TexFilter, TextureImage};
use crate::vk::{check, color_range, image_barrier, whole_image_copy, Gpu, VkResult};

pub(super) struct Texture {
    pub(super) image: vk::Image,
    memory: vk::DeviceMemory,
    pub(super) view: vk::ImageView,
    sampler: vk::Sampler,
    sampling: Sampling,
    /// Width and height.
    pub(super) extent: (u32, u32),
    /// `SHADER_READ_ONLY_OPTIMAL`, or `GENERAL` once it is an image or a framebuffer
    /// (`images::Player::texture_to_general`).
    pub(super) layout: vk::ImageLayout,
}

/// GL's sampler state of a texture, as far as piglit's textures use it.
#[derive(Clone, Copy, Default)]
struct Sampling {
    min_linear: bool,
    mag_linear: bool,
    /// piglit's checkerboard clamps to a red border; the others clamp to the edge.
    red_border: bool,
}

#[derive(Default)]
pub(super) struct Textures {
    pub(super) units: BTreeMap<u32, Texture>,
    /// GL's active texture unit: the last `texture` command's.
    active: u32,
    /// What a unit without a texture samples: 1×1 (0, 0, 0, 1).
    incomplete: Option<Texture>,
    /// Each sampler uniform: its binding, the stages using it and its unit (one per
    /// element of an array of samplers).
    pub(super) samplers: BTreeMap<u32, (SamplerUniform, vk::ShaderStageFlags, Vec<u32>)>,
}

impl Textures {
    pub(super) fn destroy(&mut self, gpu: &Gpu) {
        for t in std::mem::take(&mut self.units)
            .into_values()
            .chain(self.incomplete.take())
        {
            destroy(gpu, &t);
        }
    }

    /// `uniform int NAME unit` (`NAME[i]`: `index`) on a sampler: true when `name` is one.
    pub(super) fn set_unit(
        &mut self,
        name: &str,
        index: Option<u32>,
        unit: i32,
    ) -> Result<bool, SceneError> {
        let mut found = false;
        let gl_name = format!(
            "{name}{}",
            index.map(|i| format!("[{i}]")).unwrap_or_default()
        );
        for (sampler, _, units) in self.samplers.values_mut() {
            // An array of arrays or a structure's member: its elements by their GL names.
            let element = if sampler.elements.is_empty() {
                (sampler.name == name).then(|| index.unwrap_or(0))
            } else {
                let at = sampler.elements.iter().position(|e| *e == gl_name);
                at.map(|i| i as u32)
            };
            if let Some(element) = element {
                let element = units
                    .get_mut(element as usize)
                    .ok_or_else(|| fail(format!("`{name}` has {} elements", sampler.count)))?;
                *element = u32::try_from(unit)
                    .map_err(|_| fail(format!("texture unit {unit} (GL_INVALID_VALUE)")))?;
                found = true;
            }
        }
        Ok(found)
    }
}

fn destroy(gpu: &Gpu, t: &Texture) {
    // SAFETY: the texture's objects were made on this device, and no submission that uses
    // them is pending (every submission is waited for).
    unsafe {
        gpu.device.destroy_sampler(t.sampler, None);
        gpu.device.destroy_image_view(t.view, None);
        gpu.device.destroy_image(t.image, None);
        gpu.device.free_memory(t.memory, None);
    }
}

/// RGBA8 texels, rows from GL's t = 0 (Vulkan's v = 0: no flip).
fn texels(image: &TextureImage) -> (u32, u32, Vec<u8>) {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    match image {
        TextureImage::Rgbw { width, height } => {
            let (w, h) = (*width, *height);
            let mut data = Vec::new();
            for y in 0..h {
                for x in 0..w {
                    let c: [u8; 4] = if x < w / 2 && y < h / 2 {
                        [255, 0, 0, 255]
                    } else if y < h / 2 {
                        [0, 255, 0, 255]
                    } else if x < w / 2 {
                        [0, 0, 255, 255]
                    } else {
                        [255, 255, 255, 255]
                    };
                    data.extend(c);
                }
            }
            (w, h, data)
        }
        TextureImage::Checkerboard {
            width,
            height,
            black,
            white,
        } => {
            let (w, h) = (*width, *height);
            let (sw, sh) = ((w / 2).max(1), (h / 2).max(1));
            let mut data = Vec::new();
            for y in 0..h {
                for x in 0..w {
                    let c = if ((y / sh) ^ (x / sw)) & 1 == 1 {
                        white
                    } else {
                        black
                    };
                    data.extend(c.map(byte));
                }
            }
            (w, h, data)
        }
    }
}

impl Player {
    /// `texture …`: a new texture on `unit`, which becomes the active unit.
    pub(super) fn create_texture(
        &mut self,
        unit: u32,
        image: &TextureImage,
    ) -> Result<(), SceneError> {
        let red_border = matches!(image, TextureImage::Checkerboard { .. });
        if red_border && !self.gpu.custom_border_color {
            return Err(SceneError::Skip(
                "piglit's checkerboard texture clamps to a red border: needs VK_EXT_custom_border_color"
                    .into(),
            ));
        }
        let (w, h, data) = texels(image);
        if w == 0 || h == 0 {
            return Err(fail("a texture of size 0 (GL_INVALID_VALUE)"));
        }
        self.keep_fb_texture(unit)?;
        let texture = self
            .upload_texture(
                w,
                h,
                &data,
                Sampling {
                    red_border,
                    ..Sampling::default()
                },
            )
            .map_err(fail)?;
        if let Some(old) = self.textures.units.insert(unit, texture) {
            destroy(&self.gpu, &old);
        }
        self.textures.active = unit;
        Ok(())
    }

    /// `texparameter 2D min|mag nearest|linear` on the active unit's texture.
    pub(super) fn tex_parameter(&mut self, f: TexFilter) -> Result<(), SceneError> {
        let active = self.textures.active;
        let Some(t) = self.textures.units.get_mut(&active) else {
            return Err(fail(format!("no texture on unit {active}")));
        };
        if f.min {
            t.sampling.min_linear = f.linear;
        } else {
            t.sampling.mag_linear = f.linear;
        }
        let sampler = make_sampler(&self.gpu, t.sampling).map_err(fail)?;
        // SAFETY: the old sampler is this device's and no pending submission uses it (every
        // submission is waited for); the texture holds the new one from here on.
        unsafe { self.gpu.device.destroy_sampler(t.sampler, None) };
        t.sampler = sampler;
        Ok(())
    }

    /// Points every sampler binding at its unit's texture (before a draw).
    pub(super) fn bind_textures(&mut self) -> Result<(), SceneError> {
        if self.textures.samplers.is_empty() {
            return Ok(());
        }
        let needs_incomplete = self
            .textures
            .samplers
            .values()
            .filter(|(s, ..)| !s.storage_image)
            .flat_map(|(_, _, units)| units)
            .any(|unit| !self.textures.units.contains_key(unit));
        if needs_incomplete && self.textures.incomplete.is_none() {
            let t = self
                .upload_texture(1, 1, &[0, 0, 0, 255], Sampling::default())
                .map_err(fail)?;
            self.textures.incomplete = Some(t);
        }
        let infos: Vec<(u32, Vec<vk::DescriptorImageInfo>)> = self
            .textures
            .samplers
            .iter()
            .filter(|(_, (s, ..))| !s.storage_image)
            .filter_map(|(binding, (_, _, units))| {
                let elements = units
                    .iter()
                    .map(|unit| {
                        let t = self
                            .textures
                            .units
                            .get(unit)
                            .or(self.textures.incomplete.as_ref())?;
                        Some(vk::DescriptorImageInfo {
                            sampler: t.sampler,
                            image_view: t.view,
                            image_layout: t.layout,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some((*binding, elements))
            })
            .collect();
        let writes: Vec<_> = infos
            .iter()
            .map(|(binding, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(self.descriptor_set)
                    .dst_binding(*binding)
                    .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                    .image_info(info)
            })
            .collect();
        // SAFETY: the set is not in use: every submission was waited for.
        unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
        self.bind_images()
    }

    fn upload_texture(
        &mut self,
        w: u32,
        h: u32,
        data: &[u8],
        sampling: Sampling,
    ) -> VkResult<Texture> {
        let gpu = &self.gpu;
        let format = vk::Format::R8G8B8A8_UNORM;
        let (image, memory, view) = gpu.image_2d(
            format,
            (w, h),
            vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::TRANSFER_DST
                | super::images::image_and_target_usage(gpu, format),
            color_range(),
        )?;
        let sampler = make_sampler(gpu, sampling)?;
        let texture = Texture {
            image,
            memory,
            view,
            sampler,
            sampling,
            extent: (w, h),
            layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        };
        let mut staging = gpu.buffer(data.len() as u64, vk::BufferUsageFlags::TRANSFER_SRC)?;
        staging.bytes_mut()[..data.len()].copy_from_slice(data);
        let result = self.submit(|p, cmd| {
            let to_dst = image_barrier(
                image,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            )
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE);
            p.gpu.image_barriers(
                cmd,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                &[to_dst],
            );
            let region = whole_image_copy(vk::ImageAspectFlags::COLOR, w, h);
            // SAFETY: `cmd` is recording; the staging buffer holds the texels and the image
            // was just moved to TRANSFER_DST_OPTIMAL; both live until the submission is waited
            // for.
            unsafe {
                p.gpu.device.cmd_copy_buffer_to_image(
                    cmd,
                    staging.buffer,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[region],
                );
            }
            let to_read = image_barrier(
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            )
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ);
            p.gpu.image_barriers(
                cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::ALL_COMMANDS,
                &[to_read],
            );
        });
        self.gpu.destroy_buffer(&staging);
        match result {
            Ok(()) => Ok(texture),
            Err(e) => {
                destroy(&self.gpu, &texture);
                Err(e)
            }
        }
    }
}

fn make_sampler(gpu: &Gpu, sampling: Sampling) -> VkResult<vk::Sampler> {
    let Sampling {
        min_linear,
        mag_linear,
        red_border,
    } = sampling;
    let filter = |linear| {
        if linear {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        }
    };
    let wrap = if red_border {
        vk::SamplerAddressMode::CLAMP_TO_BORDER
    } else {
        vk::SamplerAddressMode::CLAMP_TO_EDGE
    };
    let mut border = vk::SamplerCustomBorderColorCreateInfoEXT::default()
        .custom_border_color(vk::ClearColorValue {
            float32: [1.0, 0.0, 0.0, 1.0],
        })
        .format(vk::Format::R8G8B8A8_UNORM);
    let mut info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(mag_linear))
        .min_filter(filter(min_linear))
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(wrap)
        .address_mode_v(wrap)
        .address_mode_w(wrap)
        .max_lod(0.0);
    if red_border {
        info = info
            .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)
            .push_next(&mut border);
    }
    // SAFETY: a valid create info; `border` outlives the call.
    unsafe { gpu.device.create_sampler(&info, None) }.map_err(check("vkCreateSampler"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_element_of_an_array_of_samplers_has_its_unit() {
        let mut textures = Textures::default();
        let sampler = SamplerUniform {
            name: "tex".into(),
            binding: 32,
            unit: 3,
            count: 2,
            elements: Vec::new(),
            element_locations: Vec::new(),
            storage_image: false,
        };
        textures
            .samplers
            .insert(32, (sampler, vk::ShaderStageFlags::FRAGMENT, vec![3, 4]));
        assert!(textures.set_unit("tex", Some(1), 7).unwrap());
        assert!(textures.set_unit("tex", None, 5).unwrap());
        assert_eq!(textures.samplers[&32].2, vec![5, 7]);
        assert!(textures.set_unit("tex", Some(2), 1).is_err());
        assert!(textures.set_unit("tex", Some(0), -1).is_err());
        assert!(!textures.set_unit("other", None, 1).unwrap());
    }
}

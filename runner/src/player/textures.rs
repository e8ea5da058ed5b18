//! Textures and `sampler2D` uniforms: piglit's `texture rgbw` and `texture checkerboard`
//! (GL_RGBA, one level, with the filters and wraps piglit gives them), `texparameter`, and
//! GL's texture units: a sampler uniform's value is a unit (initially 0), set with
//! `uniform int NAME UNIT`; a unit without a texture samples as GL's incomplete texture,
//! (0, 0, 0, 1). Also `texture rgbw … FORMAT` (other internal formats), 2D array textures
//! (`texture rgbw 2DArray`), `texture quads`, the depth textures `texture shadowRect`,
//! `shadow2D` and `shadow1D`, the 3D `texture rgbw 3D`, the mipmapped `texture miptree`,
//! and the wrap modes, border colour, depth comparison and LOD bias of `texparameter`
//! ([`texel_image`], [`Player::tex_sampling`]).

use ash::vk;

use super::state::{fail, Player, Sampling, Texture, Textures};
use crate::scene::{
    CompareFunc, SceneError, TexFilter, TexSampling, TexWrap, TexelFormat, TextureImage,
};
use crate::vk::{check, color_range, whole_image_copy, Gpu, ImageUse};

/// piglit's border colour for its checkerboard and quads textures.
const RED_BORDER: Sampling = Sampling {
    min_linear: false,
    mag_linear: false,
    wrap: [TexWrap::ClampToBorder; 3],
    border: [1.0, 0.0, 0.0, 1.0],
    compare: None,
    mipmap: None,
    lod_bias: 0.0,
};

/// What a `texture` command uploads: `levels` levels of `layers` layers of `width` ×
/// `height` × `depth` texels of `format` (each level half the last, at least 1), rows from
/// GL's t = 0 (Vulkan's v = 0: no flip).
struct TexelImage {
    width: u32,
    height: u32,
    depth: u32,
    layers: u32,
    levels: u32,
    view_type: vk::ImageViewType,
    format: vk::Format,
    /// Every level's texels, level 0 first.
    bytes: Vec<u8>,
    sampling: Sampling,
}

impl TexelImage {
    /// The extent of `level`.
    fn level_extent(&self, level: u32) -> vk::Extent3D {
        vk::Extent3D {
            width: (self.width >> level).max(1),
            height: (self.height >> level).max(1),
            depth: (self.depth >> level).max(1),
        }
    }
}

impl Textures {
    pub(super) fn destroy(&mut self, gpu: &Gpu) {
        for t in std::mem::take(&mut self.units)
            .into_values()
            .chain(self.incomplete.iter_mut().filter_map(Option::take))
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

/// piglit's colours of the rgbw quadrants and array layers ("color wheel").
const RGBW: [[f32; 4]; 4] = [
    [1.0, 0.0, 0.0, 1.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0],
];

/// The texels piglit's `texture` command makes, and the sampler state it gives them.
fn texel_image(image: &TextureImage) -> TexelImage {
    // Each texel's colour (layer by layer, row by row) and the size.
    let grid = |w: u32, h: u32, layers: u32, color: &dyn Fn(u32, u32, u32) -> [f32; 4]| {
        let mut colors = Vec::with_capacity((w * h * layers) as usize);
        for layer in 0..layers {
            for y in 0..h {
                colors.extend((0..w).map(|x| color(x, y, layer)));
            }
        }
        colors
    };
    let (width, height, layers, colors, format, sampling) = match *image {
        TextureImage::Rgbw {
            width: w,
            height: h,
            format,
        } => {
            let quadrant = |x, y| usize::from(x >= w / 2) + 2 * usize::from(y >= h / 2);
            let colors = grid(w, h, 1, &|x, y, _| RGBW[quadrant(x, y)]);
            (w, h, 1, colors, format, Sampling::default())
        }
        TextureImage::Checkerboard {
            width: w,
            height: h,
            black,
            white,
        } => {
            let (sw, sh) = ((w / 2).max(1), (h / 2).max(1));
            let colors = grid(w, h, 1, &|x, y, _| {
                if ((y / sh) ^ (x / sw)) & 1 == 1 {
                    white
                } else {
                    black
                }
            });
            (w, h, 1, colors, TexelFormat::Rgba8, RED_BORDER)
        }
        TextureImage::RgbwArray {
            width,
            height,
            layers,
        } => {
            let colors = grid(width, height, layers, &|_, _, layer| {
                RGBW[layer as usize % RGBW.len()]
            });
            let format = TexelFormat::Rgba8;
            (width, height, layers, colors, format, Sampling::default())
        }
        TextureImage::Quads {
            width,
            height,
            square: [sw, sh],
            colors: [bl, br, tl, tr],
        } => {
            let (sw, sh) = (sw.max(1), sh.max(1));
            let colors = grid(width, height, 1, &|x, y, _| match (
                (y / sh) & 1 == 1,
                (x / sw) & 1 == 1,
            ) {
                (false, false) => bl,
                (false, true) => br,
                (true, false) => tl,
                (true, true) => tr,
            });
            (width, height, 1, colors, TexelFormat::Rgba8, RED_BORDER)
        }
        TextureImage::ShadowRect { width, height } => {
            return depth_ramp(width, height, vk::ImageViewType::TYPE_2D)
        }
        TextureImage::Shadow1D { width } => {
            return depth_ramp(width, 1, vk::ImageViewType::TYPE_1D)
        }
        TextureImage::Rgbw1D => (
            4,
            1,
            1,
            RGBW.to_vec(),
            TexelFormat::Rgba8,
            Sampling::default(),
        ),
        TextureImage::Rgbw3D => return rgbw_3d(),
        TextureImage::Miptree => return miptree(),
    };
    let (format, bytes) = encode(&colors, format);
    let view_type = match image {
        TextureImage::RgbwArray { .. } => vk::ImageViewType::TYPE_2D_ARRAY,
        TextureImage::Rgbw1D => vk::ImageViewType::TYPE_1D,
        _ => vk::ImageViewType::TYPE_2D,
    };
    TexelImage {
        width,
        height,
        depth: 1,
        layers,
        levels: 1,
        view_type,
        format,
        bytes,
        sampling,
    }
}

/// `piglit_depth_texture`'s ramp: depth x / (w − 1) in column x, compared GL_GREATER.
fn depth_ramp(width: u32, height: u32, view_type: vk::ImageViewType) -> TexelImage {
    let ramp = (width.max(2) - 1) as f32;
    let unorm = |x: u32| ((x as f32 / ramp * 65535.0).round() as u16).to_le_bytes();
    let depths: Vec<u8> = (0..height)
        .flat_map(|_| (0..width).flat_map(unorm))
        .collect();
    TexelImage {
        width,
        height,
        depth: 1,
        layers: 1,
        levels: 1,
        view_type,
        // GL_DEPTH_COMPONENT, a fixed-point format: GL clamps the reference to [0, 1],
        // as Vulkan does for a UNORM one.
        format: vk::Format::D16_UNORM,
        bytes: depths,
        sampling: Sampling {
            compare: Some(CompareFunc::Greater),
            ..Sampling::default()
        },
    }
}

/// `piglit_rgbw_texture_3d`: 2×2×2 texels, x fastest, then y, then z.
fn rgbw_3d() -> TexelImage {
    let colors = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
        [1.0, 0.0, 1.0, 1.0],
        [0.0, 1.0, 1.0, 1.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let (format, bytes) = encode(&colors, TexelFormat::Rgba8);
    TexelImage {
        width: 2,
        height: 2,
        depth: 2,
        layers: 1,
        levels: 1,
        view_type: vk::ImageViewType::TYPE_3D,
        format,
        bytes,
        sampling: Sampling::default(),
    }
}

/// `piglit_miptree_texture`: 8×8 and its three smaller levels, level l all of piglit's
/// colour l; GL_NEAREST_MIPMAP_NEAREST.
fn miptree() -> TexelImage {
    let mut bytes = Vec::new();
    for (level, color) in RGBW.iter().enumerate() {
        let size = 8 >> level;
        bytes.extend(encode(&vec![*color; size * size], TexelFormat::Rgba8).1);
    }
    TexelImage {
        width: 8,
        height: 8,
        depth: 1,
        layers: 1,
        levels: RGBW.len() as u32,
        view_type: vk::ImageViewType::TYPE_2D,
        format: vk::Format::R8G8B8A8_UNORM,
        bytes,
        sampling: Sampling {
            mipmap: Some(false),
            ..Sampling::default()
        },
    }
}

/// `colors` in `format`'s Vulkan format (GL converts the float data piglit gives it).
fn encode(colors: &[[f32; 4]], format: TexelFormat) -> (vk::Format, Vec<u8>) {
    let unorm8 = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    match format {
        TexelFormat::Rgba8 => (
            vk::Format::R8G8B8A8_UNORM,
            colors.iter().flat_map(|c| c.map(unorm8)).collect(),
        ),
        TexelFormat::Rgba32f => (
            vk::Format::R32G32B32A32_SFLOAT,
            colors
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
        ),
        TexelFormat::R11fG11fB10f => (
            vk::Format::B10G11R11_UFLOAT_PACK32,
            colors
                .iter()
                .flat_map(|c| {
                    let packed = unsigned_float(c[0], 6)
                        | unsigned_float(c[1], 6) << 11
                        | unsigned_float(c[2], 5) << 22;
                    packed.to_le_bytes()
                })
                .collect(),
        ),
    }
}

/// `v` as an unsigned float of 5 exponent bits (bias 15) and `mantissa` bits, truncated;
/// negative values and NaN are 0, values too large the largest finite one.
fn unsigned_float(v: f32, mantissa: u32) -> u32 {
    if v.is_nan() || v <= 0.0 {
        return 0;
    }
    let bits = v.to_bits();
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let fraction = (bits & 0x7f_ffff) >> (23 - mantissa);
    match exponent {
        ..=0 => 0,
        31.. => (30 << mantissa) | ((1 << mantissa) - 1),
        e => ((e as u32) << mantissa) | fraction,
    }
}

impl Player {
    /// `texture …`: a new texture on `unit`, which becomes the active unit.
    pub(super) fn create_texture(
        &mut self,
        unit: u32,
        image: &TextureImage,
    ) -> Result<(), SceneError> {
        let texels = texel_image(image);
        if texels.width == 0 || texels.height == 0 || texels.layers == 0 {
            return Err(fail("a texture of size 0 (GL_INVALID_VALUE)"));
        }
        self.keep_fb_texture(unit)?;
        let texture = self.upload_texture(&texels)?;
        if let Some(old) = self.textures.units.insert(unit, texture) {
            destroy(&self.gpu, &old);
        }
        self.textures.active = unit;
        Ok(())
    }

    /// `texparameter 2D min|mag nearest|linear` on the active unit's texture.
    pub(super) fn tex_parameter(&mut self, f: TexFilter) -> Result<(), SceneError> {
        self.resample_active(|sampling| {
            if f.min {
                sampling.min_linear = f.linear;
                sampling.mipmap = f.mipmap;
            } else {
                sampling.mag_linear = f.linear;
            }
        })
    }

    /// `texparameter 2D wrap_s|wrap_t|wrap_r MODE` or `… border_color r g b a` on the
    /// active unit's texture.
    pub(super) fn tex_sampling(&mut self, setting: TexSampling) -> Result<(), SceneError> {
        self.resample_active(|sampling| match setting {
            TexSampling::Wrap { axis, mode } => sampling.wrap[axis] = mode,
            TexSampling::BorderColor(color) => sampling.border = color,
            TexSampling::CompareFunc(func) => sampling.compare = Some(func),
            TexSampling::LodBias(bias) => sampling.lod_bias = bias,
        })
    }

    /// Changes the active unit's texture's sampler state and makes its sampler again.
    fn resample_active(&mut self, change: impl FnOnce(&mut Sampling)) -> Result<(), SceneError> {
        let active = self.textures.active;
        let Some(t) = self.textures.units.get_mut(&active) else {
            return Err(fail(format!("no texture on unit {active}")));
        };
        change(&mut t.sampling);
        let sampler = make_sampler(&self.gpu, t.sampling, t.format)?;
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
        for arrayed in [false, true] {
            let needs_incomplete = self
                .textures
                .samplers
                .values()
                .filter(|(sampler, ..)| !sampler.storage_image && sampler.arrayed == arrayed)
                .flat_map(|(_, _, units)| units)
                .any(|unit| !self.textures.units.contains_key(unit));
            if needs_incomplete && self.textures.incomplete[usize::from(arrayed)].is_none() {
                let t = self.upload_texture(&TexelImage {
                    width: 1,
                    height: 1,
                    depth: 1,
                    layers: 1,
                    levels: 1,
                    view_type: if arrayed {
                        vk::ImageViewType::TYPE_2D_ARRAY
                    } else {
                        vk::ImageViewType::TYPE_2D
                    },
                    format: vk::Format::R8G8B8A8_UNORM,
                    bytes: vec![0, 0, 0, 255],
                    sampling: Sampling::default(),
                })?;
                self.textures.incomplete[usize::from(arrayed)] = Some(t);
            }
        }
        if let Some((sampler, ..)) = self.textures.samplers.values().find(|(s, _, units)| {
            !s.two_d && units.iter().any(|u| !self.textures.units.contains_key(u))
        }) {
            return Err(fail(format!(
                "`{}`: a 1D or 3D sampler on a unit without a texture",
                sampler.name
            )));
        }
        let infos: Vec<(u32, Vec<vk::DescriptorImageInfo>)> = self
            .textures
            .samplers
            .iter()
            .filter(|(_, (s, ..))| !s.storage_image)
            .filter_map(|(binding, (sampler, _, units))| {
                let incomplete = self.textures.incomplete[usize::from(sampler.arrayed)].as_ref();
                let elements = units
                    .iter()
                    .map(|unit| {
                        let t = self.textures.units.get(unit).or(incomplete)?;
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
        self.write_image_descriptors(&infos, vk::DescriptorType::COMBINED_IMAGE_SAMPLER);
        self.bind_images()
    }

    /// Writes each binding's image infos (one per array element) into the descriptor set.
    pub(super) fn write_image_descriptors(
        &self,
        infos: &[(u32, Vec<vk::DescriptorImageInfo>)],
        descriptor_type: vk::DescriptorType,
    ) {
        let writes: Vec<_> = infos
            .iter()
            .map(|(binding, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(self.descriptor_set)
                    .dst_binding(*binding)
                    .descriptor_type(descriptor_type)
                    .image_info(info)
            })
            .collect();
        // SAFETY: the set is not in use: every submission was waited for.
        unsafe { self.gpu.device.update_descriptor_sets(&writes, &[]) };
    }

    fn upload_texture(&mut self, texels: &TexelImage) -> Result<Texture, SceneError> {
        let gpu = &self.gpu;
        let TexelImage {
            width: w,
            height: h,
            layers,
            levels,
            format,
            ..
        } = *texels;
        let aspect = if format == vk::Format::D16_UNORM {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let range = vk::ImageSubresourceRange {
            aspect_mask: aspect,
            layer_count: layers,
            level_count: levels,
            ..color_range()
        };
        let sampler = make_sampler(gpu, texels.sampling, format)?;
        let (image, memory, view) = gpu
            .texture_image(
                format,
                texels.level_extent(0),
                texels.view_type,
                vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_DST
                    | super::images::image_and_target_usage(gpu, format),
                range,
            )
            .inspect_err(|_| {
                // SAFETY: the sampler was just made on this device and nothing uses it.
                unsafe { gpu.device.destroy_sampler(sampler, None) }
            })
            .map_err(fail)?;
        let texture = Texture {
            image,
            memory,
            view,
            sampler,
            sampling: texels.sampling,
            extent: (w, h),
            layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            format,
        };
        let data = &texels.bytes;
        let mut staging = gpu
            .buffer(data.len() as u64, vk::BufferUsageFlags::TRANSFER_SRC)
            .inspect_err(|_| destroy(gpu, &texture))
            .map_err(fail)?;
        staging.bytes_mut()[..data.len()].copy_from_slice(data);
        // Each level's copy, from where its texels start.
        let texel_size = data.len() as u64
            / (0..levels)
                .map(|l| {
                    let e = texels.level_extent(l);
                    u64::from(e.width * e.height * e.depth * layers)
                })
                .sum::<u64>();
        let mut offset = 0;
        let regions: Vec<vk::BufferImageCopy> = (0..levels)
            .map(|level| {
                let extent = texels.level_extent(level);
                let region = whole_image_copy(aspect, extent.width, extent.height)
                    .buffer_offset(offset)
                    .image_extent(extent)
                    .image_subresource(vk::ImageSubresourceLayers {
                        aspect_mask: aspect,
                        mip_level: level,
                        base_array_layer: 0,
                        layer_count: layers,
                    });
                offset +=
                    texel_size * u64::from(extent.width * extent.height * extent.depth * layers);
                region
            })
            .collect();
        let result = self.submit(|p, cmd| {
            record_upload(&p.gpu, cmd, staging.buffer, image, range, &regions);
        });
        self.gpu.destroy_buffer(&staging);
        match result {
            Ok(()) => Ok(texture),
            Err(e) => {
                destroy(&self.gpu, &texture);
                Err(fail(e))
            }
        }
    }
}

/// Records the copy of `staging` into `image` (`range`, the levels and layers `regions`
/// copy), which ends ready to be sampled.
fn record_upload(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    staging: vk::Buffer,
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    regions: &[vk::BufferImageCopy],
) {
    let top = ImageUse::discarded(vk::PipelineStageFlags::TOP_OF_PIPE);
    gpu.transition(cmd, &[image], range, top, ImageUse::TRANSFER_DST);
    // SAFETY: `cmd` is recording; the staging buffer holds the texels and the image was just
    // moved to TRANSFER_DST_OPTIMAL; both live until the submission is waited for.
    unsafe {
        gpu.device.cmd_copy_buffer_to_image(
            cmd,
            staging,
            image,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            regions,
        );
    }
    let sampled = ImageUse {
        stage: vk::PipelineStageFlags::ALL_COMMANDS,
        access: vk::AccessFlags::SHADER_READ,
        layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
    };
    gpu.transition(cmd, &[image], range, ImageUse::TRANSFER_DST, sampled);
}

/// The Vulkan sampler of `sampling` for an image of `format`. A border colour other than
/// Vulkan's three fixed ones needs VK_EXT_custom_border_color.
fn make_sampler(
    gpu: &Gpu,
    sampling: Sampling,
    format: vk::Format,
) -> Result<vk::Sampler, SceneError> {
    let Sampling {
        min_linear,
        mag_linear,
        wrap,
        border,
        compare,
        mipmap,
        lod_bias,
    } = sampling;
    let filter = |linear| {
        if linear {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        }
    };
    let address_mode = |mode| match mode {
        TexWrap::Repeat => vk::SamplerAddressMode::REPEAT,
        TexWrap::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        TexWrap::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
    };
    let fixed_border = match border {
        [0.0, 0.0, 0.0, 0.0] => Some(vk::BorderColor::FLOAT_TRANSPARENT_BLACK),
        [0.0, 0.0, 0.0, 1.0] => Some(vk::BorderColor::FLOAT_OPAQUE_BLACK),
        [1.0, 1.0, 1.0, 1.0] => Some(vk::BorderColor::FLOAT_OPAQUE_WHITE),
        _ => None,
    };
    let uses_border = wrap.contains(&TexWrap::ClampToBorder);
    let mut custom = vk::SamplerCustomBorderColorCreateInfoEXT::default()
        .custom_border_color(vk::ClearColorValue { float32: border })
        .format(format);
    let mut info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(mag_linear))
        .min_filter(filter(min_linear))
        .mipmap_mode(match mipmap {
            Some(true) => vk::SamplerMipmapMode::LINEAR,
            _ => vk::SamplerMipmapMode::NEAREST,
        })
        .address_mode_u(address_mode(wrap[0]))
        .address_mode_v(address_mode(wrap[1]))
        .address_mode_w(address_mode(wrap[2]))
        .compare_enable(compare.is_some())
        .compare_op(match compare.unwrap_or(CompareFunc::Never) {
            CompareFunc::Never => vk::CompareOp::NEVER,
            CompareFunc::Less => vk::CompareOp::LESS,
            CompareFunc::Equal => vk::CompareOp::EQUAL,
            CompareFunc::LessOrEqual => vk::CompareOp::LESS_OR_EQUAL,
            CompareFunc::Greater => vk::CompareOp::GREATER,
            CompareFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
            CompareFunc::GreaterOrEqual => vk::CompareOp::GREATER_OR_EQUAL,
            CompareFunc::Always => vk::CompareOp::ALWAYS,
        })
        .mip_lod_bias(lod_bias)
        // A filter without mipmapping samples level 0 only (GL's base level).
        .max_lod(if mipmap.is_some() {
            vk::LOD_CLAMP_NONE
        } else {
            0.0
        });
    match fixed_border {
        Some(fixed) => info = info.border_color(fixed),
        None if uses_border => {
            if !gpu.custom_border_color {
                return Err(SceneError::Skip(format!(
                    "the texture border colour {border:?} needs VK_EXT_custom_border_color"
                )));
            }
            info = info
                .border_color(vk::BorderColor::FLOAT_CUSTOM_EXT)
                .push_next(&mut custom);
        }
        None => {}
    }
    // SAFETY: a valid create info; `custom` outlives the call.
    unsafe { gpu.device.create_sampler(&info, None) }
        .map_err(check("vkCreateSampler"))
        .map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::SamplerUniform;

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
            arrayed: false,
            two_d: true,
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

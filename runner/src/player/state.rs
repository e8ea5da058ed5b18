//! What a player holds: the `Player` and the state its commands' modules share. The
//! sibling modules add `impl Player` blocks and import from here only, so that no child of
//! `player` imports its parent.

use std::collections::{BTreeMap, HashMap};

use ash::vk;

use crate::glsl::{Program, SamplerUniform, StorageBlock, UniformBlock, VertexInput};
use crate::layer::abi;
use crate::scene::{self, CompareFunc, SceneError, ShaderStage, TexWrap};
use crate::vk::pipeline::{self, RasterState};
use crate::vk::target::Targets;
use crate::vk::{Buffer, Gpu};

/// The vertex binding of `CONSTANT_ATTRIBUTE` (binding 0 holds the vertices).
pub(super) const CONSTANT_BINDING: u32 = 1;

/// A rectangle corner: vec4 position, vec2 texture coordinate.
pub(super) const RECT_STRIDE: u32 = 24;

/// A scene's device, program objects and render targets, and the GL state the commands set.
pub struct Player {
    pub(super) cmd_pool: vk::CommandPool,
    pub(super) cmd: vk::CommandBuffer,
    pub(super) fence: vk::Fence,
    pub(super) modules: Vec<(ShaderStage, vk::ShaderModule)>,
    pub(super) set_layout: vk::DescriptorSetLayout,
    pub(super) descriptor_pool: vk::DescriptorPool,
    pub(super) descriptor_set: vk::DescriptorSet,
    pub(super) layout: vk::PipelineLayout,
    pub(super) uniforms: Vec<(UniformBlock, Buffer)>,
    pub(super) vertex_buffer: Option<Buffer>,
    /// `[indices]`, and the element array buffer holding them in the type it was last
    /// written in (rewritten when `index type` changes).
    pub(super) indices: Vec<u32>,
    pub(super) index_buffer: Option<(scene::IndexType, Buffer)>,
    /// `index type`: the type of the next indexed draws' element array.
    pub(super) index_type: scene::IndexType,
    /// `GL_PRIMITIVE_RESTART_FIXED_INDEX` is enabled.
    pub(super) primitive_restart: bool,
    /// The one command of an indirect draw, made at the first.
    pub(super) indirect_buffer: Option<Buffer>,
    pub(super) rect_buffer: Buffer,
    pub(super) constant_buffer: Buffer,
    pub(super) targets: Targets,
    pub(super) pipelines: HashMap<PipelineKey, pipeline::Pipeline>,
    /// `--pipelines shader-objects`: the program's shaders (else empty).
    pub(super) shaders: Vec<(ShaderStage, vk::ShaderEXT)>,
    /// The compute program's pipeline, made at its first `compute`.
    pub(super) compute_pipeline: Option<vk::Pipeline>,
    pub(super) xfb_buffers: BTreeMap<u32, Buffer>,
    pub(super) query_pool: vk::QueryPool,
    /// (primitives written, primitives needed) of the last `xfb draw arrays`.
    pub(super) query: Option<[u64; 2]>,
    pub(super) has_xfb_output: bool,
    pub(super) has_tess: bool,
    pub(super) has_geometry: bool,
    pub(super) vertex_inputs: Vec<VertexInput>,
    pub(super) vertex_attributes: Vec<scene::Attribute>,
    pub(super) vertex_stride: u32,
    pub(super) vertex_count: u32,
    pub(super) passthrough_vs: bool,
    pub(super) clear_color: [f32; 4],
    pub(super) tolerance: [f64; 4],
    /// What a new XFB buffer is filled with (`xfb_fill`).
    pub(super) xfb_fill: u8,
    pub(super) patch_vertices: u32,
    pub(super) outer: [f32; 4],
    pub(super) inner: [f32; 2],
    pub(super) readback_fresh: bool,
    /// GL_TRANSFORM_FEEDBACK_VARYINGS of the last pre-rasterization stage.
    pub(super) xfb_varyings: u32,
    /// What GL's program introspection reports (`verify program_query …`).
    pub(super) program: Program,
    /// The `block …` commands' state: where SPIR-V programs' `uniform` commands write.
    pub(super) block_data: BlockData,
    /// `ubo array index N`: which element of an array of blocks `uniform` commands write.
    pub(super) ubo_array_index: u32,
    /// `active shader program STAGE`: `uniform` commands set that stage's uniforms only.
    pub(super) active_stage: Option<ShaderStage>,
    pub(super) textures: Textures,
    pub(super) images: ImageUnits,
    /// `texture junk 2DArray`: each unit's (width, height, layers); its content is
    /// undefined, so it only exists once it becomes the render target (`fb tex layered`).
    pub(super) junk_arrays: BTreeMap<u32, [u32; 3]>,
    pub(super) storage: StorageBuffers,
    pub(super) gl_state: GlState,
    pub(super) raster: RasterState,
    pub(super) clear_depth: f32,
    pub(super) depth: bool,
    // Last: dropped after `Drop::drop` destroyed everything made from it.
    pub(super) gpu: Gpu,
}

pub(super) fn fail(e: impl std::fmt::Display) -> SceneError {
    SceneError::Fail(e.to_string())
}

pub(super) fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a pipeline depends on besides the program and the targets.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PipelineKey {
    pub(super) topology: vk::PrimitiveTopology,
    /// GL's mode where Vulkan has no topology for it (`LINE_LOOP` draws a `LINE_STRIP`).
    pub(super) primitive_mode: abi::PrimitiveMode,
    pub(super) patch_control_points: u32,
    /// Primitive restart: an indexed draw with `GL_PRIMITIVE_RESTART_FIXED_INDEX` on.
    pub(super) primitive_restart: bool,
    pub(super) xfb: bool,
    pub(super) source: Source,
    pub(super) raster: RasterState,
}

/// Where a draw's vertices come from.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Source {
    VertexData,
    /// piglit's rectangle; `tex`: `piglit_texcoord` is fed too (`draw rect tex`).
    Rect {
        tex: bool,
    },
}

/// GL state that `VK_GLSEM_gl_state` sets per command buffer, at GL's initial values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct GlState {
    pub(super) point_size: f32,
    pub(super) program_point_size: bool,
    /// Bit i: `GL_CLIP_DISTANCEi` enabled.
    pub(super) clip_distances: u32,
    /// `GL_LINE_STIPPLE` and `glLineStipple(factor, pattern)`.
    pub(super) line_stipple: bool,
    pub(super) line_stipple_factor: u32,
    pub(super) line_stipple_pattern: u16,
    /// `GL_POINT_SPRITE_COORD_ORIGIN` is `GL_LOWER_LEFT`.
    pub(super) point_sprite_lower_left: bool,
    /// GL's current vertex attributes the scene set (`vertex attrib`), by Vulkan location:
    /// the format of the `glVertexAttrib*` variant and the four words.
    pub(super) vertex_attribs: [Option<(vk::Format, [u32; 4])>; MAX_VERTEX_ATTRIBS],
}

/// The current vertex attributes the runner tracks (the layer feeds 32 Locations).
pub(super) const MAX_VERTEX_ATTRIBS: usize = 32;

impl Default for GlState {
    fn default() -> Self {
        GlState {
            point_size: 1.0,
            program_point_size: false,
            clip_distances: 0,
            line_stipple: false,
            line_stipple_factor: 1,
            line_stipple_pattern: 0xFFFF,
            point_sprite_lower_left: false,
            vertex_attribs: [None; MAX_VERTEX_ATTRIBS],
        }
    }
}

/// piglit's `block …` state for SPIR-V programs: `uniform` commands write at `offset` in
/// the uniform block at GL binding point `binding` + `array_index`, their names unused.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BlockData {
    pub(super) binding: Option<u32>,
    pub(super) offset: u32,
    pub(super) array_index: u32,
    pub(super) matrix_stride: u32,
    pub(super) row_major: bool,
}

/// A texture unit's texture: its image, view and sampler.
pub(super) struct Texture {
    pub(super) image: vk::Image,
    pub(super) memory: vk::DeviceMemory,
    pub(super) view: vk::ImageView,
    pub(super) sampler: vk::Sampler,
    pub(super) sampling: Sampling,
    /// Width and height.
    pub(super) extent: (u32, u32),
    /// `SHADER_READ_ONLY_OPTIMAL`, or `GENERAL` once it is an image or a framebuffer
    /// (`images::Player::texture_to_general`).
    pub(super) layout: vk::ImageLayout,
    /// The image's format (a custom border colour names it).
    pub(super) format: vk::Format,
}

/// GL's sampler state of a texture, as far as piglit's textures use it.
#[derive(Clone, Copy, Default)]
pub(super) struct Sampling {
    pub(super) min_linear: bool,
    pub(super) mag_linear: bool,
    /// Coordinates s, t, r: piglit's textures clamp to the edge, its checkerboard and
    /// quads to the border.
    pub(super) wrap: [TexWrap; 3],
    /// GL's default is (0, 0, 0, 0); piglit's checkerboard and quads set (1, 0, 0, 1).
    pub(super) border: [f32; 4],
    /// A depth texture's comparison (piglit's shadow textures start with GL_GREATER).
    pub(super) compare: Option<CompareFunc>,
    /// A mipmapping minification filter: whether it blends two levels.
    pub(super) mipmap: Option<bool>,
    /// GL_TEXTURE_LOD_BIAS.
    pub(super) lod_bias: f32,
}

#[derive(Default)]
pub(super) struct Textures {
    pub(super) units: BTreeMap<u32, Texture>,
    /// GL's active texture unit: the last `texture` command's.
    pub(super) active: u32,
    /// What a unit without a texture samples: 1×1 (0, 0, 0, 1), for 2D samplers and (one
    /// layer) for 2D array ones.
    pub(super) incomplete: [Option<Texture>; 2],
    /// Each sampler uniform: its binding, the stages using it and its unit (one per
    /// element of an array of samplers).
    pub(super) samplers: BTreeMap<u32, (SamplerUniform, vk::ShaderStageFlags, Vec<u32>)>,
}

/// Image unit → the texture unit whose texture it holds and the view's format.
#[derive(Default)]
pub(super) struct ImageUnits {
    pub(super) units: BTreeMap<u32, (u32, vk::Format)>,
    /// What an image unit without a texture reads as: a 1×1 RGBA8 storage image of
    /// zeros. GL reads such a unit as zero and drops stores to it; a Vulkan descriptor
    /// must name an image, and stores land here (a later load of it would see them).
    pub(super) unbound: Option<(vk::Image, vk::DeviceMemory, vk::ImageView)>,
}

#[derive(Default)]
pub(super) struct StorageBuffers {
    /// By GL binding point.
    pub(super) buffers: BTreeMap<u32, Buffer>,
    /// The program's blocks by GL binding point, with the stages using them.
    pub(super) blocks: BTreeMap<u32, (StorageBlock, vk::ShaderStageFlags)>,
}

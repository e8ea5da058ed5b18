//! What the passes find of a program, as the runner reads it: scalar types, vertex inputs,
//! uniform and storage blocks and samplers, and the bindings GL's names get. A leaf module:
//! the passes and `Compiler` both use it, and it uses none of them.

use crate::scene::ShaderStage;

/// Scalar component type of an interface variable or uniform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Float,
    Double,
    Int,
    Uint,
    /// GL_ARB_gpu_shader_int64's `int64_t`.
    Int64,
    /// GL_ARB_gpu_shader_int64's `uint64_t`.
    Uint64,
    Bool,
}

impl Scalar {
    pub fn size(self) -> u32 {
        match self {
            Scalar::Double | Scalar::Int64 | Scalar::Uint64 => 8,
            _ => 4,
        }
    }
}

/// A vertex shader input (an attribute the runner must feed).
#[derive(Debug, Clone)]
pub struct VertexInput {
    pub name: String,
    /// GL's location, which `[vertex data]` columns name.
    pub location: u32,
    /// The Vulkan location of its first element: GL gives a `dvec3` or `dvec4` one
    /// location, Vulkan two, so the inputs after one move up.
    pub vk_location: u32,
    pub scalar: Scalar,
    /// Components of one element, or of one column of a matrix.
    pub components: u32,
    /// A matrix's columns (each at its own GL location), else 1.
    pub columns: u32,
    /// An array's length, else 1.
    pub elements: u32,
    /// Vulkan locations one element takes (2 for a `dvec3` or `dvec4`, a matrix's columns
    /// times 1 or 2).
    pub slots: u32,
}

impl VertexInput {
    /// GL locations the input takes: one per matrix column of each element.
    pub fn gl_locations(&self) -> u32 {
        self.elements * self.columns
    }

    /// The Vulkan location of GL's `location`, when the input takes it: a `dvec3` or
    /// `dvec4` column takes one GL location but two Vulkan ones.
    pub fn vk_location_of(&self, location: u32) -> Option<u32> {
        let offset = location.checked_sub(self.location)?;
        (offset < self.gl_locations())
            .then(|| self.vk_location + offset * (self.slots / self.columns.max(1)))
    }
}

/// One member of a default uniform block, with its layout from the SPIR-V decorations.
#[derive(Debug, Clone)]
pub struct UniformMember {
    pub name: String,
    pub offset: u32,
    pub scalar: Scalar,
    pub columns: u32,
    pub rows: u32,
    pub matrix_stride: u32,
    /// (length, ArrayStride) for arrays.
    pub array: Option<(u32, u32)>,
    /// A row-major matrix: each row lies at `matrix_stride` from the previous one.
    pub row_major: bool,
}

impl UniformMember {
    /// GL's enum name of its type (GL_UNIFORM_TYPE): `GL_FLOAT_VEC3`, `GL_DOUBLE_MAT2x4`.
    pub fn gl_type_name(&self) -> String {
        let (base, suffix) = match self.scalar {
            Scalar::Float => ("GL_FLOAT", ""),
            Scalar::Double => ("GL_DOUBLE", ""),
            Scalar::Int => ("GL_INT", ""),
            Scalar::Uint => ("GL_UNSIGNED_INT", ""),
            Scalar::Bool => ("GL_BOOL", ""),
            Scalar::Int64 => ("GL_INT64", "_ARB"),
            Scalar::Uint64 => ("GL_UNSIGNED_INT64", "_ARB"),
        };
        match (self.columns, self.rows) {
            (1, 1) => format!("{base}{suffix}"),
            (1, r) => format!("{base}_VEC{r}{suffix}"),
            (c, r) if c == r => format!("{base}_MAT{c}{suffix}"),
            (c, r) => format!("{base}_MAT{c}x{r}{suffix}"),
        }
    }
}

/// A uniform block: a stage's default uniform block (loose uniforms) or a named block,
/// shared by every stage that declares it, as in GL.
#[derive(Debug, Clone)]
pub struct UniformBlock {
    pub binding: u32,
    /// GL's binding point of a named block (`layout(binding = N)`, else 0; element i of
    /// an array of blocks is at N + i).
    pub gl_binding: u32,
    /// The element of an array of blocks (the descriptor's array element), else 0.
    pub element: u32,
    /// GL's block name; `None` for the default uniform block.
    pub name: Option<String>,
    pub size: u32,
    /// Leaf members with GL's names: `s.x`, `a[1].y`, `Block.m` (a block with an instance
    /// name), `m` (an anonymous block).
    pub members: Vec<UniformMember>,
}

/// Bindings of named uniform blocks start here; the default blocks use 0..=4 (one per stage).
pub(super) const FIRST_NAMED_BLOCK_BINDING: u32 = 8;
/// Bindings of samplers start here (one per GL sampler uniform name, shared by the stages).
pub(super) const FIRST_SAMPLER_BINDING: u32 = 32;

/// Descriptor bindings of shader storage blocks: this plus the GL binding point.
pub const FIRST_STORAGE_BINDING: u32 = 64;

/// A shader storage block: GL's binding point (`layout(binding = N)`, else 0), served by
/// the buffer of the `ssbo N …` commands.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageBlock {
    pub name: String,
    pub gl_binding: u32,
    /// An array of blocks: its length (its elements at binding points `gl_binding + i`),
    /// else 1.
    pub count: u32,
    /// An array's dimensions (`[2][2]` for an array of arrays), else none.
    pub dims: Vec<u32>,
    /// GL_NUM_ACTIVE_VARIABLES: its buffer variables as GL enumerates them.
    pub active_variables: u32,
    /// GL_BUFFER_DATA_SIZE (an unsized last array counted with one element).
    pub data_size: u32,
    /// For glslang's block of atomic counters: the counters as GL's uniforms (an array of
    /// counters one, an array of arrays one per innermost array).
    pub atomic_counters: Option<Vec<String>>,
}

/// A `sampler2D` uniform: a combined image sampler; its GL value (the texture unit,
/// initially 0) is the runner's to apply. An `image2D` uniform is one too, a storage
/// image whose value is an image unit.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerUniform {
    pub name: String,
    pub binding: u32,
    /// Its initial texture unit: `layout(binding = N)`, else 0 (element i of an array:
    /// N + i).
    pub unit: u32,
    /// An array of samplers: its length (one descriptor array), else 1.
    pub count: u32,
    /// The GL names of its elements where they are not `name[i]`: an array of arrays of
    /// samplers or a structure's sampler member made one array (`s[1][0]`, `s[2].tex`).
    pub elements: Vec<String>,
    /// For `elements`: each one's uniform location after the variable's first (GL numbers
    /// a structure's samplers in declaration order, member by member).
    pub element_locations: Vec<u32>,
    /// An `image2D` (storage image) rather than a sampler.
    pub storage_image: bool,
    /// A `sampler2DArray` (its textures have array views).
    pub arrayed: bool,
    /// A 2D sampler or image (else a 1D or 3D sampler, which has no incomplete texture).
    pub two_d: bool,
}

/// The stage as GL's messages name it.
pub(super) fn stage_word(stage: ShaderStage) -> &'static str {
    match stage {
        ShaderStage::Vertex => "vertex",
        ShaderStage::TessControl => "tessellation control",
        ShaderStage::TessEval => "tessellation evaluation",
        ShaderStage::Geometry => "geometry",
        ShaderStage::Fragment => "fragment",
        ShaderStage::Compute => "compute",
    }
}

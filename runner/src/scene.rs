//! Parses a piglit `shader_test` file into a typed [`Scene`] (format: `docs/scene-format.md`).
//!
//! Parsing never panics and never guesses: an unknown section, command or requirement turns
//! the scene into a SKIP naming the line, a malformed number into a FAIL naming the line.

mod compat_commands;
mod error;

pub use compat_commands::{CompatCommand, DepthMode, CLIP_PLANES};
pub use error::SceneError;

/// GL's atomic counter buffer binding point N is served as the storage buffer at "binding
/// point" `ATOMIC_COUNTER_BINDINGS + N`: glslang (`-R`) turns a stage's atomic counters of
/// binding N into a storage block `gl_AtomicCounterBlock_N` with GL's offsets, and GL's
/// atomic counter and shader storage binding points are apart.
pub const ATOMIC_COUNTER_BINDINGS: u32 = 32;

/// A programmable shader stage, in pipeline order: the five graphics stages that
/// glsem-spirv's `Stage` names, and compute, which only the runner runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShaderStage {
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
    Compute,
}

impl ShaderStage {
    /// The stage name glslang understands with `-S`.
    pub fn glslang_name(self) -> &'static str {
        match self {
            ShaderStage::Vertex => "vert",
            ShaderStage::TessControl => "tesc",
            ShaderStage::TessEval => "tese",
            ShaderStage::Geometry => "geom",
            ShaderStage::Fragment => "frag",
            ShaderStage::Compute => "comp",
        }
    }
}

/// GLSL source of one stage and where it starts in the scene file (for error messages).
#[derive(Debug, Clone)]
pub struct Shader {
    pub stage: ShaderStage,
    pub source: String,
    pub first_line: usize,
}

/// A Vulkan feature a `[require]` line maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    Tessellation,
    Geometry,
    TransformFeedback,
    Float64,
    Int64,
    DualSrcBlend,
}

#[derive(Debug, Clone)]
pub struct Require {
    /// `GLSL >= 1.50` as 150.
    pub glsl_version: Option<u32>,
    pub features: Vec<Feature>,
    pub width: u32,
    pub height: u32,
    /// `depthbuffer`: the window has a depth buffer (piglit gives it one only then).
    pub depth_buffer: bool,
    /// `SPIRV ONLY`: the stages run from their SPIR-V assembly sections (GL's SPIR-V can
    /// say what GLSL cannot: explicit strides, specialization constants).
    pub spirv_only: bool,
    /// `GL_MAX_… >= N` / `INT GL_MAX_… >= N`: device limits, checked once there is a device.
    pub limits: Vec<(Limit, u32)>,
    /// `GL COMPAT >= x.y`: a compatibility-profile scene, lowered by `compat::lower`.
    pub compat: bool,
    /// `GL ES >= x.y` (or `GLSL ES >= v`): a GL ES scene, lowered by `gles::lower`.
    pub es: bool,
    /// `GLSL ES >= 3.00` as 300: what piglit gives a GLSL ES unit without `#version`.
    pub glsl_es_version: Option<u32>,
    /// `SSO ENABLED`: one program per stage (unlinked shader objects on that path).
    pub separate_programs: bool,
}

/// GL implementation limits a `[require]` line may ask for, that map to Vulkan limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    VertexOutputComponents,
    FragmentInputComponents,
    GeometryOutputComponents,
    GeometryInputComponents,
    GeometryOutputVertices,
    GeometryTotalOutputComponents,
    TessControlInputComponents,
    TessControlOutputComponents,
    TessEvaluationInputComponents,
    TessEvaluationOutputComponents,
    TessPatchComponents,
    TessGenLevel,
    PatchVertices,
    VertexAttribs,
    /// GL_MAX_*_UNIFORM_COMPONENTS: the default uniform block is a uniform buffer, of as
    /// many floats as one range holds.
    UniformComponents,
    DrawBuffers,
    ClipDistances,
    /// GL_MAX_*_ATOMIC_COUNTER_BUFFERS: atomic counter buffers are storage buffers.
    AtomicCounterBuffers,
    /// GL_MAX_*_ATOMIC_COUNTERS: a stage's counters are the `uint`s of its storage buffers
    /// (glslang's `-R` atomic counter blocks), as many as one buffer's range holds.
    AtomicCounters,
}

impl Limit {
    fn by_name(name: &str) -> Option<Limit> {
        use Limit as L;
        Some(match name {
            "GL_MAX_VERTEX_OUTPUT_COMPONENTS" | "GL_MAX_VARYING_COMPONENTS" => {
                L::VertexOutputComponents
            }
            "GL_MAX_FRAGMENT_INPUT_COMPONENTS" => L::FragmentInputComponents,
            "GL_MAX_GEOMETRY_OUTPUT_COMPONENTS" => L::GeometryOutputComponents,
            "GL_MAX_GEOMETRY_INPUT_COMPONENTS" => L::GeometryInputComponents,
            "GL_MAX_GEOMETRY_OUTPUT_VERTICES" => L::GeometryOutputVertices,
            "GL_MAX_GEOMETRY_TOTAL_OUTPUT_COMPONENTS" => L::GeometryTotalOutputComponents,
            "GL_MAX_TESS_CONTROL_INPUT_COMPONENTS" => L::TessControlInputComponents,
            "GL_MAX_TESS_CONTROL_OUTPUT_COMPONENTS" => L::TessControlOutputComponents,
            "GL_MAX_TESS_EVALUATION_INPUT_COMPONENTS" => L::TessEvaluationInputComponents,
            "GL_MAX_TESS_EVALUATION_OUTPUT_COMPONENTS" => L::TessEvaluationOutputComponents,
            "GL_MAX_TESS_PATCH_COMPONENTS" => L::TessPatchComponents,
            "GL_MAX_TESS_GEN_LEVEL" => L::TessGenLevel,
            "GL_MAX_PATCH_VERTICES" => L::PatchVertices,
            "GL_MAX_VERTEX_ATTRIBS" => L::VertexAttribs,
            "GL_MAX_VERTEX_UNIFORM_COMPONENTS" | "GL_MAX_FRAGMENT_UNIFORM_COMPONENTS" => {
                L::UniformComponents
            }
            "GL_MAX_DRAW_BUFFERS" | "GL_MAX_COLOR_ATTACHMENTS" => L::DrawBuffers,
            "GL_MAX_CLIP_DISTANCES" | "GL_MAX_CLIP_PLANES" => L::ClipDistances,
            "GL_MAX_VERTEX_ATOMIC_COUNTER_BUFFERS"
            | "GL_MAX_TESS_CONTROL_ATOMIC_COUNTER_BUFFERS"
            | "GL_MAX_TESS_EVALUATION_ATOMIC_COUNTER_BUFFERS"
            | "GL_MAX_GEOMETRY_ATOMIC_COUNTER_BUFFERS"
            | "GL_MAX_FRAGMENT_ATOMIC_COUNTER_BUFFERS"
            | "GL_MAX_COMBINED_ATOMIC_COUNTER_BUFFERS" => L::AtomicCounterBuffers,
            "GL_MAX_VERTEX_ATOMIC_COUNTERS"
            | "GL_MAX_TESS_CONTROL_ATOMIC_COUNTERS"
            | "GL_MAX_TESS_EVALUATION_ATOMIC_COUNTERS"
            | "GL_MAX_GEOMETRY_ATOMIC_COUNTERS"
            | "GL_MAX_FRAGMENT_ATOMIC_COUNTERS"
            | "GL_MAX_COMPUTE_ATOMIC_COUNTERS"
            | "GL_MAX_COMBINED_ATOMIC_COUNTERS" => L::AtomicCounters,
            _ => return None,
        })
    }
}

/// The scalar type of a `[vertex data]` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    Float,
    Int,
    Uint,
    /// 64 bits per component (two words, low first).
    Double,
}

/// The type of a `[vertex data]` column's values in the buffer (piglit's GLTYPE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Half,
    Float,
    Double,
    Byte,
    Ubyte,
    Short,
    Ushort,
    Int,
    Uint,
}

impl DataType {
    fn by_name(name: &str) -> Option<DataType> {
        Some(match name {
            "half" => DataType::Half,
            "float" => DataType::Float,
            "double" => DataType::Double,
            "byte" => DataType::Byte,
            "ubyte" => DataType::Ubyte,
            "short" => DataType::Short,
            "ushort" => DataType::Ushort,
            "int" => DataType::Int,
            "uint" => DataType::Uint,
            _ => return None,
        })
    }

    /// Bytes per component.
    pub fn size(self) -> u32 {
        match self {
            DataType::Byte | DataType::Ubyte => 1,
            DataType::Half | DataType::Short | DataType::Ushort => 2,
            DataType::Float | DataType::Int | DataType::Uint => 4,
            DataType::Double => 8,
        }
    }

    /// The GLSL type the old `name/TYPE/N` form reads the data as (piglit-vbo's table).
    fn default_kind(self) -> ScalarKind {
        match self {
            DataType::Half | DataType::Float => ScalarKind::Float,
            DataType::Double => ScalarKind::Double,
            DataType::Byte | DataType::Short | DataType::Int => ScalarKind::Int,
            DataType::Ubyte | DataType::Ushort | DataType::Uint => ScalarKind::Uint,
        }
    }

    /// One value of a row, little-endian as the buffer holds it; `None` when `token` is
    /// not a number of this type.
    fn encode(self, token: &str) -> Option<Vec<u8>> {
        let int = |min: i128, max: i128| parse_int(token).filter(|v| (min..=max).contains(v));
        Some(match self {
            // piglit's `0x…` halves are bit patterns (its strtohf_hex).
            DataType::Half => match token.strip_prefix("0x") {
                Some(hex) => u16::from_str_radix(hex, 16).ok()?,
                None => f32_to_half(f32::parse_token(token)?),
            }
            .to_le_bytes()
            .to_vec(),
            DataType::Float => f32::parse_token(token)?.to_le_bytes().to_vec(),
            DataType::Double => f64::parse_token(token)?.to_le_bytes().to_vec(),
            DataType::Byte => (int(-0x80, 0x7f)? as i8).to_le_bytes().to_vec(),
            DataType::Ubyte => (int(0, 0xff)? as u8).to_le_bytes().to_vec(),
            DataType::Short => (int(-0x8000, 0x7fff)? as i16).to_le_bytes().to_vec(),
            DataType::Ushort => (int(0, 0xffff)? as u16).to_le_bytes().to_vec(),
            DataType::Int => i32::parse_token(token)?.to_le_bytes().to_vec(),
            DataType::Uint => u32::parse_token(token)?.to_le_bytes().to_vec(),
        })
    }
}

/// `value` as an IEEE half float's bits, rounded to nearest even.
fn f32_to_half(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        // Infinity, or a NaN that keeps a mantissa bit.
        return sign | 0x7c00 | if mantissa != 0 { 0x200 } else { 0 };
    }
    let round = |kept: u32, rest: u32, halfway: u32| {
        kept + u32::from(rest > halfway || (rest == halfway && kept & 1 == 1))
    };
    let half_exponent = exponent - 127 + 15;
    if half_exponent >= 0x1f {
        return sign | 0x7c00;
    }
    if half_exponent <= 0 {
        // A subnormal half (below half the smallest one: zero); rounding up into the
        // exponent makes the smallest normal one, as the bits add.
        if half_exponent < -10 {
            return sign;
        }
        let significand = mantissa | 0x80_0000;
        let shift = (14 - half_exponent) as u32;
        let kept = significand >> shift;
        let rounded = round(kept, significand & ((1 << shift) - 1), 1 << (shift - 1));
        return sign | rounded as u16;
    }
    // A carry out of the mantissa moves into the exponent (up to infinity).
    let kept = (half_exponent as u32) << 10 | mantissa >> 13;
    sign | round(kept, mantissa & 0x1fff, 0x1000) as u16
}

#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    /// The VS input's name, or its location as a number (`0/float/4`).
    pub name: String,
    /// `name/GLTYPE/GLSLTYPE/N`: N locations past the input's (an array element or a matrix
    /// column), else 0.
    pub index: u32,
    /// The values' type in the buffer.
    pub data: DataType,
    /// The GLSL type's component type: the `glVertexAttrib*Pointer` variant.
    pub kind: ScalarKind,
    pub components: u32,
    /// Byte offset inside one interleaved vertex.
    pub offset: u32,
}

/// `[vertex data]`: interleaved columns, tightly packed, one row per vertex.
#[derive(Debug, Clone, Default)]
pub struct VertexData {
    pub attributes: Vec<Attribute>,
    pub stride: u32,
    pub bytes: Vec<u8>,
    pub vertex_count: u32,
}

/// GL primitive modes `draw arrays` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Points,
    Lines,
    LineStrip,
    Triangles,
    TriangleStrip,
    TriangleFan,
    Patches,
    LinesAdjacency,
    LineStripAdjacency,
    TrianglesAdjacency,
    TriangleStripAdjacency,
    /// `GL_LINE_LOOP`: a line strip closed by a segment back to its first vertex.
    LineLoop,
    /// `GL_QUADS` (compatibility profile).
    Quads,
    /// `GL_QUAD_STRIP` (compatibility profile).
    QuadStrip,
    /// `GL_POLYGON` (compatibility profile).
    Polygon,
}

impl Mode {
    /// GL's modes that only the compatibility profile has (GL_INVALID_ENUM in a core one).
    pub fn compat_only(self) -> bool {
        matches!(self, Mode::Quads | Mode::QuadStrip | Mode::Polygon)
    }

    /// GL's modes without a Vulkan topology, which the layer draws
    /// (`VkPipelinePrimitiveModeCreateInfoGLSEM`, `VK_GLSEM_gl_state`).
    pub fn layer_drawn(self) -> bool {
        self == Mode::LineLoop || self.compat_only()
    }
}

/// `index type`: the type `[indices]` is written in, in the element array buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexType {
    Uint8,
    Uint16,
    #[default]
    Uint32,
}

impl IndexType {
    /// Bytes per index.
    pub fn size(self) -> u32 {
        match self {
            IndexType::Uint8 => 1,
            IndexType::Uint16 => 2,
            IndexType::Uint32 => 4,
        }
    }

    /// The largest index the type holds: `GL_PRIMITIVE_RESTART_FIXED_INDEX`'s restart index.
    pub fn max_index(self) -> u32 {
        u32::MAX >> (32 - 8 * self.size())
    }
}

/// Values of a `uniform` command, already in the component type GLSL declares.
#[derive(Debug, Clone, PartialEq)]
pub enum UniformData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    /// GL_ARB_gpu_shader_int64's `int64_t`, `i64vecN`.
    I64(Vec<i64>),
    /// GL_ARB_gpu_shader_int64's `uint64_t`, `u64vecN`.
    U64(Vec<u64>),
}

/// `uniform TYPE name values…`; `columns` > 1 for matrices, `rows` components per column.
#[derive(Debug, Clone, PartialEq)]
pub struct Uniform {
    pub type_name: String,
    pub name: String,
    /// Element index for `name[i]`.
    pub index: Option<u32>,
    pub columns: u32,
    pub rows: u32,
    pub data: UniformData,
}

/// Which pixels a probe looks at, in GL window coordinates (origin bottom left).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Region {
    All,
    Rect {
        x: i64,
        y: i64,
        w: i64,
        h: i64,
    },
    /// Fractions of the window, resolved once the window size is known.
    Relative {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
    },
    RelativePoint {
        x: f64,
        y: f64,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub attachment: usize,
    pub region: Region,
    /// 3 (rgb) or 4 (rgba) channels are compared.
    pub expected: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XfbKind {
    Float,
    Double,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    PrimitivesGenerated,
    PrimitivesWritten,
}

/// A GL capability of `enable` / `disable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    ProgramPointSize,
    /// `GL_CLIP_PLANEi` / `GL_CLIP_DISTANCEi` (the same enable in GL 3.0+).
    ClipDistance(u32),
    DepthTest,
    /// `GL_LINE_STIPPLE` (compatibility profile).
    LineStipple,
    /// `GL_CULL_FACE` (ours).
    CullFace,
    /// `GL_PRIMITIVE_RESTART_FIXED_INDEX` (ours): indexed draws restart at the index type's
    /// largest index.
    PrimitiveRestartFixedIndex,
}

/// `glCullFace`'s faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CullFace {
    Back,
    Front,
    FrontAndBack,
}

/// GL's depth functions (`depthfunc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DepthFunc {
    Never,
    Less,
    Equal,
    Lequal,
    Greater,
    Notequal,
    Gequal,
    Always,
}

/// A texture piglit's `texture …` commands make (GL_RGBA, 8 bits per channel, one level).
#[derive(Debug, Clone, PartialEq)]
pub enum TextureImage {
    /// `piglit_rgbw_texture`: red, green, blue, white quadrants (bottom left, bottom right,
    /// top left, top right); nearest filtering, clamp to edge.
    Rgbw {
        width: u32,
        height: u32,
        format: TexelFormat,
    },
    /// `piglit_checkerboard_texture` with w/2 × h/2 squares: `black` where
    /// (row ^ column) is even; nearest filtering, clamp to border (1, 0, 0, 1).
    Checkerboard {
        width: u32,
        height: u32,
        black: [f32; 4],
        white: [f32; 4],
    },
    /// `texture rgbw 2DArray UNIT (w, h, layers)`: `piglit_array_texture`, each layer one
    /// colour, red, green, blue, white, red, …; nearest filtering, clamp to edge.
    RgbwArray {
        width: u32,
        height: u32,
        layers: u32,
    },
    /// `texture quads UNIT 0 (w, h) (sw, sh) (bl) (br) (tl) (tr)`: `piglit_quads_texture`,
    /// sw × sh squares, `colors` bottom left and bottom right alternating along even rows of
    /// squares, top left and top right along odd ones; nearest filtering, clamp to border
    /// (1, 0, 0, 1).
    Quads {
        width: u32,
        height: u32,
        square: [u32; 2],
        colors: [[f32; 4]; 4],
    },
    /// `texture shadowRect UNIT (w, h)` and `texture shadow2D UNIT (w, h)`:
    /// `piglit_depth_texture` of a rectangle or 2D texture, depth x / (w − 1) in column x;
    /// nearest filtering, clamp to edge, compared GL_GREATER.
    ShadowRect { width: u32, height: u32 },
    /// `texture shadow1D UNIT (w)`: the same ramp in a 1D texture.
    Shadow1D { width: u32 },
    /// `texture rgbw 1D UNIT`: `piglit_rgbw_texture_1d`, red, green, blue, white texels;
    /// nearest filtering, clamp to edge.
    Rgbw1D,
    /// `texture rgbw 3D UNIT`: `piglit_rgbw_texture_3d`, 2×2×2 texels; nearest filtering,
    /// clamp to edge.
    Rgbw3D,
    /// `texture miptree UNIT`: `piglit_miptree_texture`, 8×8 with four levels, level l all
    /// colour l of red, green, blue, white; nearest filtering of the nearest level, clamp
    /// to edge.
    Miptree,
}

/// The internal format a `texture rgbw … FORMAT` names (GL_RGBA without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexelFormat {
    /// GL_RGBA, GL_RGBA8, and GL_COMPRESSED_RGBA: a generic compressed format, which GL lets
    /// an implementation keep uncompressed (GL 4.6 §8.5: "may choose … an uncompressed
    /// internal format").
    Rgba8,
    Rgba32f,
    R11fG11fB10f,
}

/// `texparameter 2D wrap_s|wrap_t|wrap_r MODE` and `texparameter 2D border_color r g b a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TexSampling {
    /// The wrap mode of coordinate s, t or r (0, 1, 2).
    Wrap {
        axis: usize,
        mode: TexWrap,
    },
    BorderColor([f32; 4]),
    /// `texparameter TARGET compare_func FUNC`: GL_TEXTURE_COMPARE_FUNC of a depth texture.
    CompareFunc(CompareFunc),
    /// `texparameter TARGET lod_bias B`: GL_TEXTURE_LOD_BIAS.
    LodBias(f32),
}

/// GL's depth comparison functions (`texparameter … compare_func`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareFunc {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

/// GL's texture wrap modes piglit's `texparameter` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TexWrap {
    Repeat,
    #[default]
    ClampToEdge,
    ClampToBorder,
}

/// A value in a shader storage buffer (`ssbo … subdata`, `probe ssbo`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BufferValue {
    Float(f32),
    Double(f64),
    Int(i32),
    Uint(u32),
    Int64(i64),
    Uint64(u64),
}

impl BufferValue {
    pub fn bytes(self) -> Vec<u8> {
        match self {
            BufferValue::Float(v) => v.to_le_bytes().to_vec(),
            BufferValue::Double(v) => v.to_le_bytes().to_vec(),
            BufferValue::Int(v) => v.to_le_bytes().to_vec(),
            BufferValue::Uint(v) => v.to_le_bytes().to_vec(),
            BufferValue::Int64(v) => v.to_le_bytes().to_vec(),
            BufferValue::Uint64(v) => v.to_le_bytes().to_vec(),
        }
    }

    /// The same type read from `bytes` (at least as long as the type).
    pub fn read(self, b: &[u8]) -> Option<BufferValue> {
        let n = self.bytes().len();
        let b = b.get(..n)?;
        let w4 = || <[u8; 4]>::try_from(b).ok();
        let w8 = || <[u8; 8]>::try_from(b).ok();
        Some(match self {
            BufferValue::Float(_) => BufferValue::Float(f32::from_le_bytes(w4()?)),
            BufferValue::Double(_) => BufferValue::Double(f64::from_le_bytes(w8()?)),
            BufferValue::Int(_) => BufferValue::Int(i32::from_le_bytes(w4()?)),
            BufferValue::Uint(_) => BufferValue::Uint(u32::from_le_bytes(w4()?)),
            BufferValue::Int64(_) => BufferValue::Int64(i64::from_le_bytes(w8()?)),
            BufferValue::Uint64(_) => BufferValue::Uint64(u64::from_le_bytes(w8()?)),
        })
    }
}

/// The comparison of a `probe ssbo` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// `texparameter TARGET min|mag nearest|linear`, and the mipmapping minification filters
/// (`texparameter TARGET min nearest_mipmap_linear` & co).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexFilter {
    pub min: bool,
    pub linear: bool,
    /// A mipmapping minification filter: whether it blends two levels (`*_mipmap_linear`).
    pub mipmap: Option<bool>,
}

/// `glPolygonMode(GL_FRONT_AND_BACK, …)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PolygonMode {
    Point,
    Line,
    Fill,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Clear,
    ClearColor([f32; 4]),
    /// piglit's rectangle: a 4-vertex triangle strip, or one 4-vertex patch.
    DrawRect(Rect),
    /// `draw arrays [instanced] MODE first count [instances [baseinstance B]]`, and
    /// `draw arrays indirect MODE count instances first baseinstance` (`indirect`: from one
    /// `VkDrawIndirectCommand` in a buffer).
    DrawArrays {
        mode: Mode,
        first: u32,
        count: u32,
        instances: u32,
        base_instance: u32,
        indirect: bool,
    },
    /// `draw elements [instanced] MODE count [first …]` and `draw elements indirect MODE
    /// count instances firstindex basevertex baseinstance`: `count` indices of `[indices]`
    /// from index `first`, each plus `base_vertex`.
    DrawElements {
        mode: Mode,
        count: u32,
        first: u32,
        instances: u32,
        base_vertex: i32,
        base_instance: u32,
        indirect: bool,
    },
    /// `index type uint8|uint16|uint32` (ours): the type of the element array buffer.
    IndexType(IndexType),
    PatchVertices(u32),
    DefaultOuterLevels([f32; 4]),
    DefaultInnerLevels([f32; 2]),
    Uniform(Uniform),
    Probe(Probe),
    Tolerance([f64; 4]),
    /// `xfb buffer object IDX SIZE`: filled with 0xCD, so that bytes no capture wrote stand
    /// out (with `--piglit`, zeroed as piglit's shader_runner does).
    XfbBuffer {
        index: u32,
        size: u64,
    },
    XfbDrawArrays {
        mode: Mode,
        first: u32,
        count: u32,
    },
    ProbeXfb {
        kind: XfbKind,
        index: u32,
        element: u64,
        value: f64,
    },
    VerifyQuery {
        query: Query,
        expected: u64,
    },
    /// `fb color attachments N [FORMAT…]`: `None` is an `UNUSED` hole.
    FbAttachments(Vec<Option<String>>),
    FbDynamicRendering,
    /// `texture junk 2DArray UNIT (w, h, layers)`: a 2D array texture of undefined content.
    TextureJunkArray {
        unit: u32,
        size: [u32; 3],
    },
    /// `fb tex layered UNIT`: draws go to every layer of that unit's 2D array texture.
    FbTexLayered(u32),
    /// `point size F` (ours): `glPointSize(F)`.
    PointSize(f32),
    /// `enable CAP` / `disable CAP`.
    Enable(Capability, bool),
    /// `line width W` (ours): `glLineWidth(W)`.
    LineWidth(f32),
    /// `line stipple FACTOR PATTERN` (ours): `glLineStipple(FACTOR, PATTERN)`.
    LineStipple {
        factor: u32,
        pattern: u16,
    },
    /// `vertex attrib TYPE NAME v…` (ours): `glVertexAttrib4f` / `glVertexAttribI4i` /
    /// `glVertexAttribI4ui` of the input `NAME` (or a GL location), the components the
    /// type leaves out at GL's (0, 0, 0, 1); `value` holds the four 32-bit words.
    VertexAttrib {
        name: String,
        kind: ScalarKind,
        value: [u32; 4],
    },
    DepthFunc(DepthFunc),
    /// `clear depth F`: `glClearDepth(F)`.
    ClearDepth(f32),
    /// `probe depth x y d`: the depth buffer at a pixel (GL window coordinates).
    ProbeDepth {
        x: i64,
        y: i64,
        depth: f64,
    },
    /// `provoking vertex first|last`: `true` for GL_FIRST_VERTEX_CONVENTION.
    ProvokingFirst(bool),
    PolygonMode(PolygonMode),
    /// `cull face GL_BACK|GL_FRONT|GL_FRONT_AND_BACK` (ours): `glCullFace`.
    CullFace(CullFace),
    /// `front face GL_CCW|GL_CW` (ours): `glFrontFace`; `true` for `GL_CW`.
    FrontClockwise(bool),
    /// `point sprite coord origin GL_UPPER_LEFT|GL_LOWER_LEFT` (ours); `true` for lower left.
    PointSpriteLowerLeft(bool),
    /// `link success`: the program linked (checked before `[test]` runs).
    LinkSuccess,
    /// `hint TARGET MODE`: `glHint`, which leaves results as they are (GL lets an
    /// implementation ignore hints).
    Hint,
    /// `active shader program GL_…_SHADER`: later `uniform` commands set the uniforms of
    /// that stage's (separable) program.
    ActiveShaderProgram(ShaderStage),
    /// `compute X Y Z`: `glDispatchCompute(X, Y, Z)`.
    Compute([u32; 3]),
    /// `link error`: the program does not link (checked before `[test]` runs).
    LinkError,
    /// `texture rgbw UNIT (w, h)`, `texture checkerboard UNIT 0 (w, h) (c1) (c2)`.
    Texture {
        unit: u32,
        image: TextureImage,
    },
    /// Applies to the texture of the last `texture` command's unit (GL's active unit).
    TexParameter(TexFilter),
    /// Like [`Command::TexParameter`]: a wrap mode or the border colour.
    TexSampling(TexSampling),
    /// `active uniform NAME PROPERTY VALUE`: VALUE an integer or, for GL_UNIFORM_TYPE, the
    /// type's enum name.
    ActiveUniform {
        name: String,
        property: UniformProperty,
        expected: String,
    },
    /// `verify program_query GL_TRANSFORM_FEEDBACK_VARYINGS n`.
    VerifyXfbVaryings(u32),
    /// `verify program_query GL_ACTIVE_UNIFORMS n`.
    VerifyActiveUniforms(u32),
    /// `verify program_query GL_ACTIVE_UNIFORM_BLOCKS n`.
    VerifyActiveUniformBlocks(u32),
    /// `verify program_interface_query GL_UNIFORM_BLOCK|GL_SHADER_STORAGE_BLOCK NAME
    /// GL_NUM_ACTIVE_VARIABLES|GL_BUFFER_DATA_SIZE n`.
    VerifyBlock {
        storage: bool,
        name: String,
        property: BlockProperty,
        expected: u32,
    },
    /// `block binding|offset|array index|matrix stride|row major N`: where the next
    /// `uniform` commands write in a uniform block of a SPIR-V program (which has no names).
    Block(BlockField),
    /// `ubo array index N`: the next `uniform` commands naming a member of an array of
    /// uniform blocks write into its element N (the arrays of arrays' elements row-major).
    UboArrayIndex(u32),
    /// `ssbo N SIZE`: a zero-filled shader storage buffer at GL binding point N.
    Ssbo {
        index: u32,
        size: u64,
    },
    /// `ssbo N subdata TYPE OFFSET values…`.
    SsboSubdata {
        index: u32,
        offset: u64,
        values: Vec<BufferValue>,
    },
    /// `probe ssbo TYPE N OFFSET OP value`.
    ProbeSsbo {
        index: u32,
        offset: u64,
        compare: Compare,
        value: BufferValue,
    },
    /// A command of a compatibility context; `compat::lower` replaces them all.
    Compat(CompatCommand),
    /// `image texture UNIT FORMAT`: `glBindImageTexture(UNIT, texture of unit UNIT, 0,
    /// GL_FALSE, 0, GL_READ_WRITE, FORMAT)`, FORMAT a GL internal format (`GL_RGBA8`).
    ImageTexture {
        unit: u32,
        format: String,
    },
    /// `fb tex 2d UNIT`: draws, clears and probes go to the texture of unit UNIT.
    FbTexture(u32),
    /// `memory barrier BITS…`: `glMemoryBarrier`. The runner waits for every submission and
    /// starts the next with a full memory barrier, which orders more than any GL barrier bit.
    MemoryBarrier,
}

/// What `active uniform NAME PROPERTY VALUE` asks of a uniform (glGetActiveUniformsiv).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UniformProperty {
    /// GL_UNIFORM_TYPE: the GL type's enum name (`GL_FLOAT_MAT4x2`).
    Type,
    /// GL_UNIFORM_SIZE: an array's length, else 1.
    Size,
    /// GL_UNIFORM_OFFSET, GL_UNIFORM_ARRAY_STRIDE, GL_UNIFORM_MATRIX_STRIDE: in its block
    /// (-1 for a uniform outside a block).
    Offset,
    ArrayStride,
    MatrixStride,
    /// GL_UNIFORM_IS_ROW_MAJOR: 1 for a row-major matrix in a block.
    IsRowMajor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockProperty {
    NumActiveVariables,
    BufferDataSize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockField {
    Binding(u32),
    Offset(u32),
    ArrayIndex(u32),
    MatrixStride(u32),
    RowMajor(bool),
}

/// `draw rect [tex] [ortho] [patch]` / `draw instanced rect …`: corners in GL clip
/// coordinates (`ortho`: in window pixels, converted at run time).
#[derive(Debug, Clone, PartialEq)]
pub struct Rect {
    pub ortho: bool,
    /// One patch of 4 vertices instead of a triangle strip.
    pub patch: bool,
    pub instances: u32,
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    /// `draw rect tex`: texture coordinates (x, y, w, h) for `piglit_texcoord`.
    pub tex: Option<[f32; 4]>,
}

/// A command and the 1-based line it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub number: usize,
    pub command: Command,
}

#[derive(Debug, Clone)]
pub struct Scene {
    pub require: Require,
    pub shaders: Vec<Shader>,
    /// `[… shader spirv]` sections: SPIR-V assembly of a stage (`source`), used with
    /// `SPIRV ONLY`.
    pub spirv: Vec<Shader>,
    /// `[… shader specializations]`: (stage, SpecId, the value's 32 bits).
    pub specializations: Vec<(ShaderStage, u32, u32)>,
    /// `[vertex shader passthrough]` was used (the VS is generated).
    pub passthrough_vs: bool,
    pub vertex_data: Option<VertexData>,
    /// `[indices]`: the element array's values, written in the type `index type` names.
    pub indices: Vec<u32>,
    pub commands: Vec<Line>,
}

impl Scene {
    pub fn has_stage(&self, stage: ShaderStage) -> bool {
        self.shaders.iter().any(|s| s.stage == stage)
    }

    pub fn uses(&self, pred: impl Fn(&Command) -> bool) -> bool {
        self.commands.iter().any(|l| pred(&l.command))
    }

    /// Whether a draw from `[vertex data]` uses a mode for which `pred` holds.
    pub fn draws_with(&self, pred: impl Fn(Mode) -> bool) -> bool {
        self.uses(|c| c.draw_mode().is_some_and(&pred))
    }
}

impl Command {
    /// The mode of a draw from `[vertex data]` (arrays or elements, indirect or not, or
    /// captured); `None` for other commands.
    pub fn draw_mode(&self) -> Option<Mode> {
        match self {
            Command::DrawArrays { mode, .. }
            | Command::DrawElements { mode, .. }
            | Command::XfbDrawArrays { mode, .. } => Some(*mode),
            _ => None,
        }
    }
}

enum Section {
    None,
    Require,
    Shader(usize),
    Spirv(usize),
    Specializations(ShaderStage),
    VertexData,
    Indices,
    Test,
}

/// Parses a whole scene file (glsem-run's format).
#[cfg(test)]
pub fn parse(text: &str) -> Result<Scene, SceneError> {
    parse_as(text, Dialect::Scene)
}

/// How strictly to read a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// glsem-run's scene format: a malformed command fails the scene.
    Scene,
    /// piglit's own tests (`--piglit`): what shader_runner accepts, such as a `uniform`
    /// command with fewer values than its type has.
    Piglit,
}

/// Parses a whole scene file in `dialect`.
pub fn parse_as(text: &str, dialect: Dialect) -> Result<Scene, SceneError> {
    let mut scene = Scene {
        require: Require {
            glsl_version: None,
            features: Vec::new(),
            width: 250,
            height: 250,
            depth_buffer: false,
            spirv_only: false,
            limits: Vec::new(),
            compat: false,
            es: false,
            glsl_es_version: None,
            separate_programs: false,
        },
        shaders: Vec::new(),
        spirv: Vec::new(),
        specializations: Vec::new(),
        passthrough_vs: false,
        vertex_data: None,
        indices: Vec::new(),
        commands: Vec::new(),
    };
    // ARB assembly is out of scope whatever else the scene requires (an extension the runner
    // does not map, say): its SKIP says so first.
    let assembly = text
        .lines()
        .enumerate()
        .find(|(_, l)| matches!(l.trim(), "[vertex program]" | "[fragment program]"));
    if let Some((i, header)) = assembly {
        let name = header.trim().trim_matches(|c| c == '[' || c == ']');
        return Err(skip(i + 1, name, ARB_ASSEMBLY_SKIP));
    }
    let mut section = Section::None;
    let mut vertex_lines: Vec<(usize, &str)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let trimmed = raw.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            let name = &trimmed[1..trimmed.len() - 1];
            section = open_section(name, number, &mut scene)?;
            continue;
        }
        match section {
            // piglit reads nothing before the first section: free-form comments.
            Section::None => {}
            Section::Shader(index) => {
                let shader = &mut scene.shaders[index];
                shader.source.push_str(raw);
                shader.source.push('\n');
            }
            Section::Spirv(index) => {
                let shader = &mut scene.spirv[index];
                shader.source.push_str(raw);
                shader.source.push('\n');
            }
            Section::Specializations(stage) => {
                if let Some(line) = content(raw) {
                    let (id, value) = parse_specialization(line, number)?;
                    scene.specializations.push((stage, id, value));
                }
            }
            Section::Require => {
                if let Some(line) = content(raw) {
                    parse_require(line, number, &mut scene.require, dialect)?;
                }
            }
            Section::VertexData => {
                if let Some(line) = content(raw) {
                    vertex_lines.push((number, line));
                }
            }
            Section::Indices => {
                if let Some(line) = content(raw) {
                    for token in line.split_whitespace() {
                        scene.indices.push(parse_num(token, number, line)?);
                    }
                }
            }
            Section::Test => {
                if let Some(line) = content(raw) {
                    let command =
                        match compat_commands::parse_command(line, number, scene.require.compat)? {
                            Some(command) => Command::Compat(command),
                            None => parse_command(line, number)?,
                        };
                    if let Some(mode) = command.draw_mode() {
                        if mode.compat_only() && !scene.require.compat {
                            return Err(skip(
                                number,
                                line,
                                "a compatibility-profile primitive mode without `GL COMPAT`",
                            ));
                        }
                    }
                    if let Command::Uniform(u) = &command {
                        let given = line.split_whitespace().count().saturating_sub(3);
                        let wanted = (u.columns * u.rows) as usize;
                        if given < wanted && dialect == Dialect::Scene {
                            return Err(fail(
                                number,
                                line,
                                &format!("expected {wanted} numbers, found {given}"),
                            ));
                        }
                    }
                    scene.commands.push(Line { number, command });
                }
            }
        }
    }
    if !vertex_lines.is_empty() {
        scene.vertex_data = Some(parse_vertex_data(&vertex_lines)?);
    }
    Ok(scene)
}

/// The line without its `#` comment, or `None` when nothing is left.
fn content(raw: &str) -> Option<&str> {
    let line = raw.split('#').next().unwrap_or("").trim();
    (!line.is_empty()).then_some(line)
}

fn skip(number: usize, line: &str, why: &str) -> SceneError {
    SceneError::Skip(format!("line {number}: {why}: `{}`", line.trim()))
}

fn fail(number: usize, line: &str, why: &str) -> SceneError {
    SceneError::Fail(format!("line {number}: {why}: `{}`", line.trim()))
}

fn open_section(name: &str, number: usize, scene: &mut Scene) -> Result<Section, SceneError> {
    let stage_named = |words: &str| {
        Some(match words {
            "vertex shader" => ShaderStage::Vertex,
            "tessellation control shader" => ShaderStage::TessControl,
            "tessellation evaluation shader" => ShaderStage::TessEval,
            "geometry shader" => ShaderStage::Geometry,
            "fragment shader" => ShaderStage::Fragment,
            "compute shader" => ShaderStage::Compute,
            _ => return None,
        })
    };
    if let Some(stage) = name.strip_suffix(" spirv").and_then(stage_named) {
        scene.spirv.push(Shader {
            stage,
            source: String::new(),
            first_line: number + 1,
        });
        return Ok(Section::Spirv(scene.spirv.len() - 1));
    }
    if let Some(stage) = name.strip_suffix(" specializations").and_then(stage_named) {
        return Ok(Section::Specializations(stage));
    }
    let stage = match name {
        "require" => return Ok(Section::Require),
        "vertex data" => return Ok(Section::VertexData),
        "indices" => return Ok(Section::Indices),
        "test" => return Ok(Section::Test),
        "vertex shader passthrough" => {
            scene.passthrough_vs = true;
            return Ok(Section::None);
        }
        "vertex program" | "fragment program" => return Err(skip(number, name, ARB_ASSEMBLY_SKIP)),
        // The runner compiles the GLSL sections, also of `SPIRV YES` tests: their SPIR-V
        // sections are generated from that GLSL (piglit's shader_test_spirv.py).
        _ => stage_named(name).ok_or_else(|| skip(number, name, "unknown section"))?,
    };
    scene.shaders.push(Shader {
        stage,
        source: String::new(),
        first_line: number + 1,
    });
    Ok(Section::Shader(scene.shaders.len() - 1))
}

fn parse_require(
    line: &str,
    number: usize,
    req: &mut Require,
    dialect: Dialect,
) -> Result<(), SceneError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["GLSL", ">=", v] => {
            let version = parse_version(v, number, line)?;
            req.glsl_version = Some(version);
            // GLSL 1.10-1.30 are languages of GL's compatibility profile: piglit runs them
            // in a compatibility context, which the runner emulates (`compat::lower`).
            if version < 140 {
                req.compat = true;
            }
        }
        // Run from the GLSL sections (see `open_section`).
        ["SPIRV", "YES"] => {}
        // Separate programs per stage: their interfaces match by explicit location, else
        // by name, as the runner links anyway; `active shader program` aims `uniform` at
        // one stage's uniforms.
        ["SSO", "ENABLED"] => req.separate_programs = true,
        ["SPIRV", "ONLY"] => req.spirv_only = true,
        ["GL", "COMPAT", ">=", v] => {
            if parse_version(v, number, line)? > 460 {
                return Err(skip(number, line, "GL version above 4.6"));
            }
            // Emulated on the core profile (`compat::lower`).
            req.compat = true;
        }
        // A GL ES context on the same device: its requirements are the Vulkan device's as
        // they are for desktop GL (the SPIR-V's capabilities ask for the features).
        ["GL", "ES", ">=", v] => {
            if parse_version(v, number, line)? > 320 {
                return Err(skip(number, line, "GL ES version above 3.2"));
            }
            req.es = true;
        }
        ["GLSL", "ES", ">=", v] => {
            let version = parse_version(v, number, line)?;
            if ![100, 300, 310, 320].contains(&version) {
                return Err(skip(
                    number,
                    line,
                    "not a GLSL ES version (1.00, 3.00, 3.10, 3.20)",
                ));
            }
            req.es = true;
            req.glsl_es_version = Some(version);
        }
        [ext] if FRAMEBUFFER_FETCH.contains(ext) => {
            return Err(skip(
                number,
                line,
                "framebuffer fetch (a fragment shader reading the colour its outputs hold) \
                 is not mapped: Vulkan reads attachments through input attachments only",
            ))
        }
        // A core-profile context, which the runner's Vulkan is anyway.
        ["GL", ">=", v] | ["GL", "CORE", ">=", v] => {
            // Core GL up to 4.6 maps onto Vulkan; the features a scene really needs come from
            // the capabilities of its SPIR-V.
            if parse_version(v, number, line)? > 460 {
                return Err(skip(number, line, "GL version above 4.6"));
            }
        }
        ["depthbuffer"] => req.depth_buffer = true,
        // shader_runner's setrlimit(RLIMIT_AS) against runaway compilers: nothing to map.
        ["rlimit", n] => {
            parse_num::<u64>(n, number, line)?;
        }
        [name, ">=", n] | ["INT", name, ">=", n] if name.starts_with("GL_MAX_") => {
            let limit = Limit::by_name(name)
                .ok_or_else(|| skip(number, line, "limit not mapped to Vulkan"))?;
            req.limits.push((limit, parse_num(n, number, line)?));
        }
        ["SIZE", w, h] => {
            req.width = parse_num::<u32>(w, number, line)?;
            req.height = parse_num::<u32>(h, number, line)?;
            if req.width == 0 || req.height == 0 {
                return Err(fail(number, line, "window size must not be zero"));
            }
        }
        [ext] if ARB_ASSEMBLY.contains(ext) => return Err(skip(number, line, ARB_ASSEMBLY_SKIP)),
        [ext] if GLSLANG_LACKS.contains(ext) => {
            return Err(skip(
                number,
                line,
                "glslang (12) rejects `#extension` of this extension, and the runner has no \
                 source fix for it",
            ))
        }
        [ext] if ext.starts_with("GL_") && ext[3..].contains('_') => match extension_feature(ext) {
            Some(Some(feature)) => req.features.push(feature),
            Some(None) => {}
            None => return Err(skip(number, line, "requirement not mapped to Vulkan")),
        },
        // shader_runner passes over lines it does not know (comments, say).
        _ if dialect == Dialect::Piglit && !line.starts_with("GL") => {}
        _ => return Err(skip(number, line, "unsupported requirement")),
    }
    Ok(())
}

/// GL's ARB assembly programs (`[vertex program]`, `[fragment program]` and the
/// extensions they need): out of scope, GL's GLSL is what the runner plays.
const ARB_ASSEMBLY: [&str; 3] = [
    "GL_ARB_vertex_program",
    "GL_ARB_fragment_program",
    "GL_ARB_fragment_program_shadow",
];
const ARB_ASSEMBLY_SKIP: &str = "ARB assembly programs are out of scope (GLSL only)";

/// GL ES's framebuffer fetch extensions.
const FRAMEBUFFER_FETCH: [&str; 2] = [
    "GL_EXT_shader_framebuffer_fetch",
    "GL_EXT_shader_framebuffer_fetch_non_coherent",
];

/// GL extensions whose `#extension` directive glslang rejects ("extension not supported")
/// and that add GLSL names, so that blanking the directive is not enough.
const GLSLANG_LACKS: [&str; 4] = [
    // Nor does it declare `gl_ViewportIndex` in GLSL ES at all.
    "GL_OES_viewport_array",
    "GL_ARB_cull_distance",
    "GL_ARB_texture_query_levels",
    "GL_EXT_texture_array",
];

/// GL extensions the runner knows: `Some(None)` needs nothing beyond what every Vulkan
/// device with glslang offers, `Some(Some(f))` needs device feature `f`.
fn extension_feature(name: &str) -> Option<Option<Feature>> {
    Some(match name {
        "GL_ARB_tessellation_shader" => Some(Feature::Tessellation),
        "GL_ARB_geometry_shader4" | "GL_OES_geometry_shader" => Some(Feature::Geometry),
        "GL_EXT_transform_feedback"
        | "GL_ARB_transform_feedback2"
        | "GL_ARB_transform_feedback3"
        | "GL_ARB_enhanced_layouts" => Some(Feature::TransformFeedback),
        // Double vertex inputs are doubles like any other: shaderFloat64 (the formats
        // the device lacks for them are the layer's and the player's to lower).
        "GL_ARB_gpu_shader_fp64" | "GL_ARB_vertex_attrib_64bit" => Some(Feature::Float64),
        // glslang takes the extension's `#extension` and its types (Int64 capability).
        "GL_ARB_gpu_shader_int64" => Some(Feature::Int64),
        "GL_ARB_gl_spirv" => None,
        "GL_ARB_blend_func_extended" => Some(Feature::DualSrcBlend),
        "GL_ARB_separate_shader_objects"
        | "GL_ARB_explicit_attrib_location"
        | "GL_ARB_shading_language_420pack"
        | "GL_ARB_arrays_of_arrays"
        | "GL_ARB_shader_bit_encoding"
        | "GL_ARB_gpu_shader5"
        | "GL_ARB_draw_instanced"
        | "GL_ARB_uniform_buffer_object"
        | "GL_EXT_gpu_shader4"
        | "GL_ARB_fragment_coord_conventions"
        | "GL_EXT_provoking_vertex"
        | "GL_ARB_provoking_vertex"
        | "GL_ARB_sample_shading"
        | "GL_ARB_explicit_uniform_location"
        | "GL_ARB_shader_storage_buffer_object"
        | "GL_ARB_shader_atomic_counters"
        // Its functions are glslang's storage-block atomics (`extension_fixes`).
        | "GL_ARB_shader_atomic_counter_ops"
        | "GL_ARB_compute_shader"
        // Images are storage-image descriptors; the player checks the format's features.
        | "GL_ARB_shader_image_load_store"
        | "GL_EXT_shader_integer_mix"
        // One- and two-component formats, which Vulkan has.
        | "GL_ARB_texture_rg"
        // gl_Layer / gl_ViewportIndex in the fragment shader: their SPIR-V capabilities ask
        // for the device features.
        | "GL_ARB_fragment_layer_viewport"
        // gl_ViewportIndex (multiViewport), and gl_Layer / gl_ViewportIndex written by a
        // vertex shader (VK_EXT_shader_viewport_index_layer): from the capabilities too.
        | "GL_ARB_viewport_array"
        | "GL_AMD_vertex_shader_layer"
        | "GL_AMD_vertex_shader_viewport_index"
        // GLSL functions glslang declares under the extension, core SPIR-V for Vulkan
        // (the packing functions, dFdxFine & co, texture*Lod in a fragment shader).
        | "GL_ARB_shading_language_packing"
        | "GL_ARB_derivative_control"
        | "GL_ARB_shader_texture_lod"
        // Precision guarantees only: Vulkan's SPIR-V environment guarantees the same
        // (its precision table is GLSL 4.x's); `extension_fixes` blanks the directive,
        // which glslang does not know.
        | "GL_ARB_shader_precision"
        // Its functions are defined in GLSL (`extension_fixes`).
        | "GL_AMD_shader_trinary_minmax"
        // GLSL 4.00's integer functions (`extension_fixes` raises the shader to 4.00).
        | "GL_MESA_shader_integer_functions" => None,
        _ => return None,
    })
}

/// A `[… shader specializations]` line, `TYPE SPECID VALUE` (TYPE `uint`, `int` or
/// `float`): the SpecId and the value's bits.
fn parse_specialization(line: &str, number: usize) -> Result<(u32, u32), SceneError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [ty, id, value] = words.as_slice() else {
        return Err(fail(number, line, "expected TYPE SPECID VALUE"));
    };
    let id = parse_num::<u32>(id, number, line)?;
    let bits = match *ty {
        "uint" => parse_num::<u32>(value, number, line)?,
        "int" => parse_num::<i32>(value, number, line)? as u32,
        "float" => parse_num::<f32>(value, number, line)?.to_bits(),
        _ => return Err(skip(number, line, "unsupported specialization type")),
    };
    Ok((id, bits))
}

/// `1.50` → 150, `4.0` → 400.
fn parse_version(v: &str, number: usize, line: &str) -> Result<u32, SceneError> {
    let bad = || fail(number, line, "malformed version");
    let (major, minor) = v.split_once('.').ok_or_else(bad)?;
    let major: u32 = major.parse().map_err(|_| bad())?;
    let minor_digits = format!("{minor:0<2}");
    let minor: u32 = minor_digits
        .get(..2)
        .ok_or_else(bad)?
        .parse()
        .map_err(|_| bad())?;
    Ok(major * 100 + minor)
}

trait Number: Sized {
    fn parse_token(s: &str) -> Option<Self>;
}

impl Number for f64 {
    fn parse_token(s: &str) -> Option<Self> {
        // piglit's `0x…` doubles are bit patterns (its strtod_hex), as its floats are.
        match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16).ok().map(f64::from_bits),
            None => s
                .parse()
                .ok()
                .filter(|v: &f64| !v.is_nan() || s.eq_ignore_ascii_case("nan")),
        }
    }
}

impl Number for f32 {
    fn parse_token(s: &str) -> Option<Self> {
        // piglit's `0x…` floats are bit patterns (its strtof_hex).
        match s.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).ok().map(f32::from_bits),
            None => f64::parse_token(s).map(|v| v as f32),
        }
    }
}

/// Integers accept decimal, `-` and `0x` hex, as piglit does; wide enough for every
/// `uint64_t` and `int64_t` (the callers narrow it).
fn parse_int(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?.into(),
        None => i128::from(digits.parse::<u64>().ok()?),
    };
    Some(if neg { -value } else { value })
}

impl Number for u32 {
    fn parse_token(s: &str) -> Option<Self> {
        parse_int(s).and_then(|v| u32::try_from(v).ok())
    }
}

impl Number for i32 {
    fn parse_token(s: &str) -> Option<Self> {
        // Hex values like 0xffffffff are bit patterns.
        parse_int(s).and_then(|v| {
            i32::try_from(v)
                .ok()
                .or_else(|| u32::try_from(v).ok().map(|u| u as i32))
        })
    }
}

impl Number for u64 {
    fn parse_token(s: &str) -> Option<Self> {
        parse_int(s).and_then(|v| u64::try_from(v).ok())
    }
}

impl Number for i64 {
    fn parse_token(s: &str) -> Option<Self> {
        // Hex values like 0xffffffffffffffff are bit patterns, as for `int`.
        parse_int(s).and_then(|v| {
            i64::try_from(v)
                .ok()
                .or_else(|| u64::try_from(v).ok().map(|u| u as i64))
        })
    }
}

fn parse_num<T: Number>(token: &str, number: usize, line: &str) -> Result<T, SceneError> {
    T::parse_token(token).ok_or_else(|| fail(number, line, &format!("malformed number `{token}`")))
}

/// Parses exactly `n` numbers from `tokens`.
/// A GL internal format piglit's `texture rgbw` takes that the runner has.
fn parse_texel_format(name: &str) -> Option<TexelFormat> {
    Some(match name {
        "GL_RGBA" | "GL_RGBA8" | "GL_COMPRESSED_RGBA" => TexelFormat::Rgba8,
        "GL_RGBA32F" => TexelFormat::Rgba32f,
        "GL_R11F_G11F_B10F" => TexelFormat::R11fG11fB10f,
        _ => return None,
    })
}

fn parse_nums<T: Number>(
    tokens: &[&str],
    n: usize,
    number: usize,
    line: &str,
) -> Result<Vec<T>, SceneError> {
    if tokens.len() != n {
        return Err(fail(
            number,
            line,
            &format!("expected {n} numbers, found {}", tokens.len()),
        ));
    }
    tokens.iter().map(|t| parse_num(t, number, line)).collect()
}

fn parse_mode(token: &str, number: usize, line: &str) -> Result<Mode, SceneError> {
    Ok(match token {
        "GL_POINTS" => Mode::Points,
        "GL_LINES" => Mode::Lines,
        "GL_LINE_STRIP" => Mode::LineStrip,
        "GL_LINE_LOOP" => Mode::LineLoop,
        "GL_QUADS" => Mode::Quads,
        "GL_QUAD_STRIP" => Mode::QuadStrip,
        "GL_POLYGON" => Mode::Polygon,
        "GL_TRIANGLES" => Mode::Triangles,
        "GL_TRIANGLE_STRIP" => Mode::TriangleStrip,
        "GL_TRIANGLE_FAN" => Mode::TriangleFan,
        "GL_PATCHES" => Mode::Patches,
        "GL_LINES_ADJACENCY" => Mode::LinesAdjacency,
        "GL_LINE_STRIP_ADJACENCY" => Mode::LineStripAdjacency,
        "GL_TRIANGLES_ADJACENCY" => Mode::TrianglesAdjacency,
        "GL_TRIANGLE_STRIP_ADJACENCY" => Mode::TriangleStripAdjacency,
        _ => {
            return Err(skip(
                number,
                line,
                &format!("unsupported primitive mode {token}"),
            ))
        }
    })
}

/// One `[test]` line: a family of commands (by its first word) is parsed by its own
/// function; the few one-line commands left are here.
fn parse_command(line: &str, number: usize) -> Result<Command, SceneError> {
    // Parentheses and commas only group numbers (`probe rect rgba (x, y, w, h) (r, g, b, a)`).
    let spaced: String = line
        .chars()
        .map(|c| if matches!(c, '(' | ')' | ',') { ' ' } else { c })
        .collect();
    let t: Vec<&str> = spaced.split_whitespace().collect();
    Ok(match t.as_slice() {
        ["draw" | "xfb" | "patch", ..] => parse_draw_command(&t, number, line)?,
        ["probe" | "relative", ..] => parse_probe_command(&t, number, line)?,
        ["ssbo" | "atomic" | "block" | "ubo", ..] => parse_buffer_command(&t, number, line)?,
        ["verify", ..] => parse_verify_command(&t, number, line)?,
        ["uniform" | "link" | "active" | "compute", ..] => parse_program_command(&t, number, line)?,
        ["texture", ..] => parse_texture_command(&t, number, line)?,
        ["texparameter", ..] => parse_texparameter_command(&t, number, line)?,
        ["fb" | "image", ..] => parse_target_command(&t, number, line)?,
        ["vertex", ..] => parse_vertex_command(&t, number, line)?,
        ["point" | "line", ..] => parse_point_line_command(&t, number, line)?,
        ["enable" | "disable" | "depthfunc" | "provoking" | "cull" | "front" | "polygon", ..] => {
            parse_raster_command(&t, number, line)?
        }
        ["index", "type", ty] => Command::IndexType(match *ty {
            "uint8" => IndexType::Uint8,
            "uint16" => IndexType::Uint16,
            "uint32" => IndexType::Uint32,
            _ => return Err(fail(number, line, "expected uint8, uint16 or uint32")),
        }),
        ["clear"] => Command::Clear,
        ["clear", "color", ..] => {
            let v = parse_nums::<f32>(&t[2..], 4, number, line)?;
            Command::ClearColor([v[0], v[1], v[2], v[3]])
        }
        ["clear", "depth", v] => Command::ClearDepth(parse_num(v, number, line)?),
        ["tolerance", rest @ ..] => match rest.len() {
            1 => {
                let v = parse_nums::<f64>(&t[1..], 1, number, line)?[0];
                Command::Tolerance([v; 4])
            }
            _ => {
                let v = parse_nums::<f64>(&t[1..], 4, number, line)?;
                Command::Tolerance([v[0], v[1], v[2], v[3]])
            }
        },
        ["hint", target, mode] if target.starts_with("GL_") && mode.starts_with("GL_") => {
            Command::Hint
        }
        ["memory", "barrier", bits @ ..] if bits.iter().all(|b| b.starts_with("GL_")) => {
            Command::MemoryBarrier
        }
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `draw …`, `xfb …` and `patch parameter …`: draws and what only they read.
fn parse_draw_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["draw", "rect", ..] | ["draw", "instanced", "rect", ..] => parse_rect(t, number, line)?,
        ["draw", "arrays", "instanced", mode, rest @ ..] => {
            let mode = parse_mode(mode, number, line)?;
            // Our addition: `baseinstance B` (glDrawArraysInstancedBaseInstance).
            let (rest, base_instance) = match rest {
                [counts @ .., "baseinstance", b] => {
                    (counts, parse_nums::<u32>(&[b], 1, number, line)?[0])
                }
                _ => (rest, 0),
            };
            let v = parse_nums::<u32>(rest, 3, number, line)?;
            Command::DrawArrays {
                mode,
                first: v[0],
                count: v[1],
                instances: v[2],
                base_instance,
                indirect: false,
            }
        }
        ["draw", "arrays", "indirect", mode, rest @ ..] => {
            let mode = parse_mode(mode, number, line)?;
            let v = parse_nums::<u32>(rest, 4, number, line)?;
            Command::DrawArrays {
                mode,
                count: v[0],
                instances: v[1],
                first: v[2],
                base_instance: v[3],
                indirect: true,
            }
        }
        ["draw", "arrays", mode, rest @ ..] => {
            let mode = parse_mode(mode, number, line)?;
            let v = parse_nums::<u32>(rest, 2, number, line)?;
            Command::DrawArrays {
                mode,
                first: v[0],
                count: v[1],
                instances: 1,
                base_instance: 0,
                indirect: false,
            }
        }
        ["draw", "elements", ..] => parse_draw_elements(&t[2..], number, line)?,
        ["patch", "parameter", "vertices", n] => {
            Command::PatchVertices(parse_num(n, number, line)?)
        }
        ["patch", "parameter", "default", "level", "outer", ..] => {
            let v = parse_nums::<f32>(&t[5..], 4, number, line)?;
            Command::DefaultOuterLevels([v[0], v[1], v[2], v[3]])
        }
        ["patch", "parameter", "default", "level", "inner", ..] => {
            let v = parse_nums::<f32>(&t[5..], 2, number, line)?;
            Command::DefaultInnerLevels([v[0], v[1]])
        }
        ["xfb", "buffer", "object", idx, size] => Command::XfbBuffer {
            index: parse_num(idx, number, line)?,
            size: parse_num(size, number, line)?,
        },
        ["xfb", "draw", "arrays", mode, rest @ ..] => {
            let mode = parse_mode(mode, number, line)?;
            let v = parse_nums::<u32>(rest, 2, number, line)?;
            Command::XfbDrawArrays {
                mode,
                first: v[0],
                count: v[1],
            }
        }
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `draw elements` after its first two words: `[instanced|indirect] MODE …`.
fn parse_draw_elements(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    let num = |token: &str| parse_num::<u32>(token, number, line);
    let (indirect, instanced, rest) = match t {
        ["indirect", rest @ ..] => (true, false, rest),
        ["instanced", rest @ ..] => (false, true, rest),
        rest => (false, false, rest),
    };
    let [mode, rest @ ..] = rest else {
        return Err(fail(number, line, "expected a primitive mode"));
    };
    let mode = parse_mode(mode, number, line)?;
    if indirect {
        let [count, instances, first, base_vertex, base_instance] = rest else {
            return Err(fail(
                number,
                line,
                "expected count instances firstindex basevertex baseinstance",
            ));
        };
        return Ok(Command::DrawElements {
            mode,
            count: num(count)?,
            first: num(first)?,
            instances: num(instances)?,
            base_vertex: parse_num(base_vertex, number, line)?,
            base_instance: num(base_instance)?,
            indirect: true,
        });
    }
    // `count [first]`, or instanced `count first instances`; then the options.
    let (counts, options) = rest.split_at(
        rest.iter()
            .position(|w| w.starts_with("base"))
            .unwrap_or(rest.len()),
    );
    let wanted = if instanced {
        3
    } else {
        counts.len().clamp(1, 2)
    };
    let v = parse_nums::<u32>(counts, wanted, number, line)?;
    let (mut base_vertex, mut base_instance) = (0, 0);
    match options {
        [] => {}
        ["basevertex", b] if wanted >= 2 => base_vertex = parse_num(b, number, line)?,
        ["baseinstance", i] if instanced => base_instance = num(i)?,
        ["basevertex", b, "baseinstance", i] if instanced => {
            base_vertex = parse_num(b, number, line)?;
            base_instance = num(i)?;
        }
        _ => {
            return Err(fail(
                number,
                line,
                "expected `basevertex B` after first, then (instanced) `baseinstance I`",
            ))
        }
    }
    Ok(Command::DrawElements {
        mode,
        count: v[0],
        first: v.get(1).copied().unwrap_or(0),
        instances: v.get(2).copied().unwrap_or(1),
        base_vertex,
        base_instance,
        indirect: false,
    })
}

/// `probe …` and `relative probe …`: what the scene checks after drawing.
fn parse_probe_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        // A failure is piglit's WARN, which scripts/piglit.sh counts as failing too.
        ["probe", "warn", rest @ ..] => {
            let probe: Vec<&str> = std::iter::once("probe")
                .chain(rest.iter().copied())
                .collect();
            parse_probe_command(&probe, number, line)?
        }
        ["probe", "xfb", "buffer", kind, idx, n, value] => Command::ProbeXfb {
            kind: match *kind {
                "float" => XfbKind::Float,
                "double" => XfbKind::Double,
                _ => return Err(skip(number, line, "unknown command")),
            },
            index: parse_num(idx, number, line)?,
            element: parse_num(n, number, line)?,
            value: parse_num(value, number, line)?,
        },
        ["probe", "atomic", "counter", "buffer", binding, offset, op, value] => {
            Command::ProbeSsbo {
                index: ATOMIC_COUNTER_BINDINGS + parse_num::<u32>(binding, number, line)?,
                offset: parse_num(offset, number, line)?,
                compare: parse_compare(op, number, line)?,
                value: BufferValue::Uint(parse_num(value, number, line)?),
            }
        }
        ["probe", "atomic", "counter", counter, op, value] => Command::ProbeSsbo {
            index: ATOMIC_COUNTER_BINDINGS,
            offset: 4 * parse_num::<u64>(counter, number, line)?,
            compare: parse_compare(op, number, line)?,
            value: BufferValue::Uint(parse_num(value, number, line)?),
        },
        ["probe", "ssbo", ty, index, offset, op, value] => Command::ProbeSsbo {
            index: parse_ssbo_binding(index, number, line)?,
            offset: parse_num(offset, number, line)?,
            compare: parse_compare(op, number, line)?,
            value: parse_buffer_value(ty, value, number, line)?,
        },
        ["probe", "depth", x, y, d] => Command::ProbeDepth {
            x: parse_num(x, number, line)?,
            y: parse_num(y, number, line)?,
            depth: parse_num(d, number, line)?,
        },
        ["probe", "attachment", k, rest @ ..] => {
            let attachment = parse_num::<u32>(k, number, line)? as usize;
            parse_probe(rest, false, attachment, number, line)?
        }
        ["relative", "probe", rest @ ..] => parse_probe(rest, true, 0, number, line)?,
        ["probe", rest @ ..] => parse_probe(rest, false, 0, number, line)?,
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `ssbo …`, `atomic counter …`, `block …` and `ubo …`: buffers and where `uniform` writes.
fn parse_buffer_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["ssbo", index, size] => Command::Ssbo {
            index: parse_ssbo_binding(index, number, line)?,
            size: parse_num(size, number, line)?,
        },
        // Atomic counter buffers: storage buffers past the shader storage binding points.
        ["atomic", "counters", n] => Command::Ssbo {
            index: ATOMIC_COUNTER_BINDINGS,
            size: 4 * parse_num::<u64>(n, number, line)?,
        },
        ["atomic", "counter", "buffer", binding, n] => Command::Ssbo {
            index: ATOMIC_COUNTER_BINDINGS + parse_num::<u32>(binding, number, line)?,
            size: 4 * parse_num::<u64>(n, number, line)?,
        },
        ["atomic", "counter", binding, counter, value] => Command::SsboSubdata {
            index: ATOMIC_COUNTER_BINDINGS + parse_num::<u32>(binding, number, line)?,
            offset: 4 * parse_num::<u64>(counter, number, line)?,
            values: vec![BufferValue::Uint(parse_num(value, number, line)?)],
        },
        // piglit writes one value per line (and knows no `uint` subdata).
        ["ssbo", index, "subdata", ty @ ("float" | "double" | "int" | "int64" | "uint64"), offset, value] => {
            Command::SsboSubdata {
                index: parse_ssbo_binding(index, number, line)?,
                offset: parse_num(offset, number, line)?,
                values: vec![parse_buffer_value(ty, value, number, line)?],
            }
        }
        ["block", "binding", n] => Command::Block(BlockField::Binding(parse_num(n, number, line)?)),
        ["block", "offset", n] => Command::Block(BlockField::Offset(parse_num(n, number, line)?)),
        ["block", "array", "index", n] => {
            Command::Block(BlockField::ArrayIndex(parse_num(n, number, line)?))
        }
        ["block", "matrix", "stride", n] => {
            Command::Block(BlockField::MatrixStride(parse_num(n, number, line)?))
        }
        ["block", "row", "major", n] => Command::Block(BlockField::RowMajor(
            parse_num::<u32>(n, number, line)? != 0,
        )),
        ["ubo", "array", "index", n] => Command::UboArrayIndex(parse_num(n, number, line)?),
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `verify …`: GL program introspection and queries.
fn parse_verify_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["verify", "program_query", "GL_TRANSFORM_FEEDBACK_VARYINGS", n] => {
            Command::VerifyXfbVaryings(parse_num(n, number, line)?)
        }
        ["verify", "program_query", "GL_ACTIVE_UNIFORMS", n] => {
            Command::VerifyActiveUniforms(parse_num(n, number, line)?)
        }
        ["verify", "program_query", "GL_ACTIVE_UNIFORM_BLOCKS", n] => {
            Command::VerifyActiveUniformBlocks(parse_num(n, number, line)?)
        }
        ["verify", "program_interface_query", interface @ ("GL_UNIFORM_BLOCK" | "GL_SHADER_STORAGE_BLOCK"), name, property @ ("GL_NUM_ACTIVE_VARIABLES" | "GL_BUFFER_DATA_SIZE"), n] => {
            Command::VerifyBlock {
                storage: *interface == "GL_SHADER_STORAGE_BLOCK",
                name: name.to_string(),
                property: if *property == "GL_BUFFER_DATA_SIZE" {
                    BlockProperty::BufferDataSize
                } else {
                    BlockProperty::NumActiveVariables
                },
                expected: parse_num(n, number, line)?,
            }
        }
        ["verify", "program_query" | "program_interface_query", ..] => return Err(skip(
            number,
            line,
            "GL program introspection is not reproduced (except GL_TRANSFORM_FEEDBACK_VARYINGS, \
             GL_ACTIVE_UNIFORMS, GL_ACTIVE_UNIFORM_BLOCKS and blocks' GL_NUM_ACTIVE_VARIABLES \
             and GL_BUFFER_DATA_SIZE)",
        )),
        ["verify", "query_object", query, n] => Command::VerifyQuery {
            query: match *query {
                "GL_PRIMITIVES_GENERATED" => Query::PrimitivesGenerated,
                "GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN" => Query::PrimitivesWritten,
                _ => return Err(skip(number, line, "unsupported query")),
            },
            expected: parse_num(n, number, line)?,
        },
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `uniform …`, `link …`, `active shader program …` and `compute …`: the program.
fn parse_program_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["uniform", ty, name, values @ ..] => {
            Command::Uniform(parse_uniform(ty, name, values, number, line)?)
        }
        // The program compiled and linked, or the scene would not have got here.
        ["link", "success"] => Command::LinkSuccess,
        ["active", "uniform", name, property, expected] => Command::ActiveUniform {
            name: name.to_string(),
            property: match *property {
                "GL_UNIFORM_TYPE" => UniformProperty::Type,
                "GL_UNIFORM_SIZE" => UniformProperty::Size,
                "GL_UNIFORM_OFFSET" => UniformProperty::Offset,
                "GL_UNIFORM_ARRAY_STRIDE" => UniformProperty::ArrayStride,
                "GL_UNIFORM_MATRIX_STRIDE" => UniformProperty::MatrixStride,
                "GL_UNIFORM_IS_ROW_MAJOR" => UniformProperty::IsRowMajor,
                _ => return Err(skip(number, line, "unsupported uniform property")),
            },
            expected: expected.to_string(),
        },
        ["active", "shader", "program", stage] => Command::ActiveShaderProgram(match *stage {
            "GL_VERTEX_SHADER" => ShaderStage::Vertex,
            "GL_TESS_CONTROL_SHADER" => ShaderStage::TessControl,
            "GL_TESS_EVALUATION_SHADER" => ShaderStage::TessEval,
            "GL_GEOMETRY_SHADER" => ShaderStage::Geometry,
            "GL_FRAGMENT_SHADER" => ShaderStage::Fragment,
            "GL_COMPUTE_SHADER" => ShaderStage::Compute,
            _ => return Err(fail(number, line, "unknown shader stage")),
        }),
        ["compute", x, y, z] => Command::Compute([
            parse_num(x, number, line)?,
            parse_num(y, number, line)?,
            parse_num(z, number, line)?,
        ]),
        // Checked before `[test]` runs: glslang's link of a stage's compilation units failed.
        ["link", "error"] => Command::LinkError,
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `texture …`: texture images.
fn parse_texture_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["texture", "junk", "2DArray", unit, rest @ ..] => {
            let v = parse_nums::<u32>(rest, 3, number, line)?;
            Command::TextureJunkArray {
                unit: parse_num(unit, number, line)?,
                size: [v[0], v[1], v[2]],
            }
        }
        ["texture", "rgbw", "1D", unit] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::Rgbw1D,
        },
        ["texture", "rgbw", "3D", unit] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::Rgbw3D,
        },
        ["texture", "miptree", unit] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::Miptree,
        },
        ["texture", "shadow1D", unit, w] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::Shadow1D {
                width: parse_num(w, number, line)?,
            },
        },
        ["texture", "rgbw", unit, w, h] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::Rgbw {
                width: parse_num(w, number, line)?,
                height: parse_num(h, number, line)?,
                format: TexelFormat::Rgba8,
            },
        },
        ["texture", "rgbw", unit, w, h, format] if format.starts_with("GL_") => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::Rgbw {
                width: parse_num(w, number, line)?,
                height: parse_num(h, number, line)?,
                format: parse_texel_format(format)
                    .ok_or_else(|| skip(number, line, "this texture format"))?,
            },
        },
        ["texture", "rgbw", "2DArray", unit, w, h, layers] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::RgbwArray {
                width: parse_num(w, number, line)?,
                height: parse_num(h, number, line)?,
                layers: parse_num(layers, number, line)?,
            },
        },
        ["texture", "quads", unit, level, rest @ ..] => {
            let v = base_level_numbers(level, rest, 20, number, line)?;
            let color = |i: usize| [v[i], v[i + 1], v[i + 2], v[i + 3]];
            Command::Texture {
                unit: parse_num(unit, number, line)?,
                image: TextureImage::Quads {
                    width: v[0] as u32,
                    height: v[1] as u32,
                    square: [v[2] as u32, v[3] as u32],
                    colors: [color(4), color(8), color(12), color(16)],
                },
            }
        }
        ["texture", "shadowRect" | "shadow2D", unit, w, h] => Command::Texture {
            unit: parse_num(unit, number, line)?,
            image: TextureImage::ShadowRect {
                width: parse_num(w, number, line)?,
                height: parse_num(h, number, line)?,
            },
        },
        ["texture", "checkerboard", unit, level, rest @ ..] => {
            let v = base_level_numbers(level, rest, 10, number, line)?;
            Command::Texture {
                unit: parse_num(unit, number, line)?,
                image: TextureImage::Checkerboard {
                    width: v[0] as u32,
                    height: v[1] as u32,
                    black: [v[2], v[3], v[4], v[5]],
                    white: [v[6], v[7], v[8], v[9]],
                },
            }
        }
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `texparameter …`: sampler state.
fn parse_texparameter_command(
    t: &[&str],
    number: usize,
    line: &str,
) -> Result<Command, SceneError> {
    Ok(match t {
        // The active unit's texture, whatever its target (GL's target names that texture).
        ["texparameter", _, which @ ("min" | "mag"), filter] => {
            let (linear, mipmap) = match *filter {
                "nearest" => (false, None),
                "linear" => (true, None),
                "nearest_mipmap_nearest" if *which == "min" => (false, Some(false)),
                "nearest_mipmap_linear" if *which == "min" => (false, Some(true)),
                "linear_mipmap_nearest" if *which == "min" => (true, Some(false)),
                "linear_mipmap_linear" if *which == "min" => (true, Some(true)),
                _ => return Err(fail(number, line, "unknown texture filter")),
            };
            Command::TexParameter(TexFilter {
                min: *which == "min",
                linear,
                mipmap,
            })
        }
        ["texparameter", _, "compare_func", func] => {
            Command::TexSampling(TexSampling::CompareFunc(match *func {
                "never" => CompareFunc::Never,
                "less" => CompareFunc::Less,
                "equal" => CompareFunc::Equal,
                "lequal" => CompareFunc::LessOrEqual,
                "greater" => CompareFunc::Greater,
                "notequal" => CompareFunc::NotEqual,
                "gequal" => CompareFunc::GreaterOrEqual,
                "always" => CompareFunc::Always,
                _ => return Err(fail(number, line, "unknown compare function")),
            }))
        }
        ["texparameter", _, "lod_bias", bias] => {
            Command::TexSampling(TexSampling::LodBias(parse_num(bias, number, line)?))
        }
        ["texparameter", _, wrap @ ("wrap_s" | "wrap_t" | "wrap_r"), mode] => {
            Command::TexSampling(TexSampling::Wrap {
                axis: ["wrap_s", "wrap_t", "wrap_r"]
                    .iter()
                    .position(|w| w == wrap)
                    .unwrap_or(0),
                mode: match *mode {
                    "repeat" => TexWrap::Repeat,
                    "clamp_to_edge" => TexWrap::ClampToEdge,
                    "clamp_to_border" => TexWrap::ClampToBorder,
                    _ => return Err(skip(number, line, "this texture wrap mode")),
                },
            })
        }
        ["texparameter", _, "border_color", rest @ ..] => {
            let v = parse_nums::<f32>(rest, 4, number, line)?;
            Command::TexSampling(TexSampling::BorderColor([v[0], v[1], v[2], v[3]]))
        }
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `fb …` and `image texture …`: render targets and image units.
fn parse_target_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["fb", "color", "attachments", n, formats @ ..] => {
            let n: usize = parse_num::<u32>(n, number, line)? as usize;
            if n == 0 || formats.len() > n {
                return Err(fail(
                    number,
                    line,
                    "attachment count does not match the formats",
                ));
            }
            let mut list: Vec<Option<String>> = formats
                .iter()
                .map(|f| {
                    let f = f.strip_prefix("VK_FORMAT_").unwrap_or(f);
                    (f != "UNUSED").then(|| f.to_string())
                })
                .collect();
            list.resize(n, Some("R8G8B8A8_UNORM".to_string()));
            Command::FbAttachments(list)
        }
        ["fb", "dynamic", "rendering"] => Command::FbDynamicRendering,
        ["fb", "tex", "layered", unit] => Command::FbTexLayered(parse_num(unit, number, line)?),
        ["fb", "tex", "2d", unit] => Command::FbTexture(parse_num(unit, number, line)?),
        ["image", "texture", unit, format] => Command::ImageTexture {
            unit: parse_num(unit, number, line)?,
            format: format.to_string(),
        },
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `vertex attrib …`: GL's current vertex attributes.
fn parse_vertex_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["vertex", "attrib", ty, name, values @ ..] => {
            let (kind, components) = match *ty {
                "float" => (ScalarKind::Float, 1),
                "int" => (ScalarKind::Int, 1),
                "uint" => (ScalarKind::Uint, 1),
                _ => match (ty.get(..ty.len().saturating_sub(1)), ty.chars().last()) {
                    (Some(base @ ("vec" | "ivec" | "uvec")), Some(n @ '2'..='4')) => (
                        match base {
                            "vec" => ScalarKind::Float,
                            "ivec" => ScalarKind::Int,
                            _ => ScalarKind::Uint,
                        },
                        n as usize - '0' as usize,
                    ),
                    _ => {
                        return Err(fail(
                            number,
                            line,
                            "the type is float, vec2..4, int, ivec2..4, uint or uvec2..4",
                        ))
                    }
                },
            };
            // GL: the components a command leaves out are (0, 0, 0, 1)'s (GL 4.6 §10.2).
            let mut value = match kind {
                ScalarKind::Float => [0, 0, 0, 1.0f32.to_bits()],
                _ => [0, 0, 0, 1],
            };
            let words: Vec<u32> = match kind {
                ScalarKind::Float => parse_nums::<f32>(values, components, number, line)?
                    .into_iter()
                    .map(f32::to_bits)
                    .collect(),
                ScalarKind::Int => parse_nums::<i32>(values, components, number, line)?
                    .into_iter()
                    .map(|v| v as u32)
                    .collect(),
                _ => parse_nums::<u32>(values, components, number, line)?,
            };
            value[..components].copy_from_slice(&words);
            Command::VertexAttrib {
                name: name.to_string(),
                kind,
                value,
            }
        }
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// A point size or line width: GL's GL_INVALID_VALUE for one that is not positive.
fn positive_size(v: &str, number: usize, line: &str, what: &str) -> Result<f32, SceneError> {
    let size: f32 = parse_num(v, number, line)?;
    if size <= 0.0 {
        return Err(fail(
            number,
            line,
            &format!("{what} must be positive (GL_INVALID_VALUE)"),
        ));
    }
    Ok(size)
}

/// The `count` numbers of a texture command whose level must be 0 (the runner makes one
/// level).
fn base_level_numbers(
    level: &str,
    rest: &[&str],
    count: usize,
    number: usize,
    line: &str,
) -> Result<Vec<f32>, SceneError> {
    if parse_num::<u32>(level, number, line)? != 0 {
        return Err(skip(number, line, "texture levels other than 0"));
    }
    parse_nums::<f32>(rest, count, number, line)
}

/// `point …` and `line …`: point and line rasterization.
fn parse_point_line_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        ["point", "size", v] => Command::PointSize(positive_size(v, number, line, "point size")?),
        ["point", "sprite", "coord", "origin", origin] => {
            Command::PointSpriteLowerLeft(match *origin {
                "GL_UPPER_LEFT" => false,
                "GL_LOWER_LEFT" => true,
                _ => {
                    return Err(fail(
                        number,
                        line,
                        "expected GL_UPPER_LEFT or GL_LOWER_LEFT",
                    ))
                }
            })
        }
        ["line", "width", w] => Command::LineWidth(positive_size(w, number, line, "line width")?),
        ["line", "stipple", factor, pattern] => {
            let pattern = match pattern.strip_prefix("0x") {
                Some(hex) => u16::from_str_radix(hex, 16).ok(),
                None => pattern.parse().ok(),
            };
            let Some(pattern) = pattern else {
                return Err(fail(number, line, "the pattern is a 16-bit number"));
            };
            Command::LineStipple {
                factor: parse_num(factor, number, line)?,
                pattern,
            }
        }
        _ => return Err(skip(number, line, "unknown command")),
    })
}

/// `enable`/`disable`, `depthfunc`, `provoking vertex`, `cull face`, `front face` and
/// `polygon mode`: fixed-function state.
fn parse_raster_command(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    Ok(match t {
        [verb @ ("enable" | "disable"), cap] => {
            let on = *verb == "enable";
            let clip = cap
                .strip_prefix("GL_CLIP_PLANE")
                .or_else(|| cap.strip_prefix("GL_CLIP_DISTANCE"));
            let cap = match (*cap, clip) {
                ("GL_PROGRAM_POINT_SIZE" | "GL_VERTEX_PROGRAM_POINT_SIZE", _) => {
                    Capability::ProgramPointSize
                }
                ("GL_DEPTH_TEST", _) => Capability::DepthTest,
                ("GL_LINE_STIPPLE", _) => Capability::LineStipple,
                ("GL_CULL_FACE", _) => Capability::CullFace,
                ("GL_PRIMITIVE_RESTART_FIXED_INDEX", _) => Capability::PrimitiveRestartFixedIndex,
                (_, Some(i)) => match i.parse::<u32>() {
                    Ok(i) if i < 8 => Capability::ClipDistance(i),
                    _ => return Err(skip(number, line, "clip plane beyond 7")),
                },
                _ => return Err(skip(number, line, "unknown command")),
            };
            Command::Enable(cap, on)
        }
        ["depthfunc", func] => Command::DepthFunc(match *func {
            "GL_NEVER" => DepthFunc::Never,
            "GL_LESS" => DepthFunc::Less,
            "GL_EQUAL" => DepthFunc::Equal,
            "GL_LEQUAL" => DepthFunc::Lequal,
            "GL_GREATER" => DepthFunc::Greater,
            "GL_NOTEQUAL" => DepthFunc::Notequal,
            "GL_GEQUAL" => DepthFunc::Gequal,
            "GL_ALWAYS" => DepthFunc::Always,
            _ => return Err(fail(number, line, "unknown depth function")),
        }),
        ["provoking", "vertex", which] => Command::ProvokingFirst(match *which {
            "first" => true,
            "last" => false,
            _ => return Err(fail(number, line, "expected `first` or `last`")),
        }),
        ["cull", "face", face] => Command::CullFace(match *face {
            "GL_BACK" => CullFace::Back,
            "GL_FRONT" => CullFace::Front,
            "GL_FRONT_AND_BACK" => CullFace::FrontAndBack,
            _ => return Err(fail(number, line, "unknown face")),
        }),
        ["front", "face", winding] => Command::FrontClockwise(match *winding {
            "GL_CCW" => false,
            "GL_CW" => true,
            _ => return Err(fail(number, line, "expected GL_CCW or GL_CW")),
        }),
        ["polygon", "mode", "GL_FRONT_AND_BACK", mode] => Command::PolygonMode(match *mode {
            "GL_POINT" => PolygonMode::Point,
            "GL_LINE" => PolygonMode::Line,
            "GL_FILL" => PolygonMode::Fill,
            _ => return Err(fail(number, line, "unknown polygon mode")),
        }),
        _ => return Err(skip(number, line, "unknown command")),
    })
}

fn parse_compare(op: &str, number: usize, line: &str) -> Result<Compare, SceneError> {
    Ok(match op {
        "==" => Compare::Eq,
        "!=" => Compare::Ne,
        "<" => Compare::Lt,
        "<=" => Compare::Le,
        ">" => Compare::Gt,
        ">=" => Compare::Ge,
        _ => return Err(fail(number, line, "unknown comparison")),
    })
}

/// A shader storage binding point, below the atomic counter buffers' (`ATOMIC_COUNTER_BINDINGS`).
fn parse_ssbo_binding(v: &str, number: usize, line: &str) -> Result<u32, SceneError> {
    let n: u32 = parse_num(v, number, line)?;
    if n >= ATOMIC_COUNTER_BINDINGS {
        return Err(skip(
            number,
            line,
            "shader storage binding points from 32 on are not supported",
        ));
    }
    Ok(n)
}

fn parse_buffer_value(
    ty: &str,
    v: &str,
    number: usize,
    line: &str,
) -> Result<BufferValue, SceneError> {
    Ok(match ty {
        "float" => BufferValue::Float(parse_num(v, number, line)?),
        "double" => BufferValue::Double(parse_num(v, number, line)?),
        "int" => BufferValue::Int(parse_num(v, number, line)?),
        "uint" => BufferValue::Uint(parse_num(v, number, line)?),
        "int64" => BufferValue::Int64(parse_num(v, number, line)?),
        "uint64" => BufferValue::Uint64(parse_num(v, number, line)?),
        _ => return Err(skip(number, line, "unsupported buffer value type")),
    })
}

/// `draw rect [tex|ortho] [patch] x y w h [tx ty tw th]`, `draw instanced rect [ortho]
/// [patch] N x y w h`.
fn parse_rect(t: &[&str], number: usize, line: &str) -> Result<Command, SceneError> {
    let instanced = t[1] == "instanced";
    let mut rest = &t[if instanced { 3 } else { 2 }..];
    let flag = |name: &str, rest: &mut &[&str]| {
        let found = rest.first() == Some(&name);
        if found {
            *rest = &rest[1..];
        }
        found
    };
    let tex = !instanced && flag("tex", &mut rest);
    let ortho = flag("ortho", &mut rest);
    let patch = flag("patch", &mut rest);
    let instances = if instanced {
        let n = rest
            .first()
            .ok_or_else(|| fail(number, line, "missing instance count"))?;
        rest = &rest[1..];
        parse_num::<u32>(n, number, line)?
    } else {
        1
    };
    let v = parse_nums::<f32>(rest, if tex { 8 } else { 4 }, number, line)?;
    Ok(Command::DrawRect(Rect {
        ortho,
        patch,
        instances,
        x: v[0],
        y: v[1],
        w: v[2],
        h: v[3],
        tex: tex.then(|| [v[4], v[5], v[6], v[7]]),
    }))
}

/// The part of a probe after `probe` / `relative probe` / `probe attachment K`.
fn parse_probe(
    t: &[&str],
    relative: bool,
    attachment: usize,
    number: usize,
    line: &str,
) -> Result<Command, SceneError> {
    let (all, rect, rest) = match t {
        ["all", rest @ ..] => (true, false, rest),
        ["rect", rest @ ..] => (false, true, rest),
        rest => (false, false, rest),
    };
    let (channels, rest) = match rest {
        ["rgba", rest @ ..] => (4, rest),
        ["rgb", rest @ ..] => (3, rest),
        _ => return Err(skip(number, line, "unknown command")),
    };
    let coords = if all {
        0
    } else if rect {
        4
    } else {
        2
    };
    if relative && all {
        return Err(skip(number, line, "unknown command"));
    }
    // GL's shader_runner reads the numbers a probe needs and ignores the rest of the line
    // (the corpus has `probe rgb x y r g b a`).
    let rest = &rest[..rest.len().min(coords + channels)];
    let v = parse_nums::<f64>(rest, coords + channels, number, line)?;
    let region = match (all, rect, relative) {
        (true, _, _) => Region::All,
        (_, true, true) => Region::Relative {
            x: v[0],
            y: v[1],
            w: v[2],
            h: v[3],
        },
        (_, false, true) => Region::RelativePoint { x: v[0], y: v[1] },
        _ => {
            let ints: Vec<i64> = v[..coords]
                .iter()
                .map(|c| {
                    if c.fract() == 0.0 {
                        Ok(*c as i64)
                    } else {
                        Err(fail(number, line, "pixel coordinates must be integers"))
                    }
                })
                .collect::<Result<_, _>>()?;
            if rect {
                Region::Rect {
                    x: ints[0],
                    y: ints[1],
                    w: ints[2],
                    h: ints[3],
                }
            } else {
                Region::Rect {
                    x: ints[0],
                    y: ints[1],
                    w: 1,
                    h: 1,
                }
            }
        }
    };
    Ok(Command::Probe(Probe {
        attachment,
        region,
        expected: v[coords..].to_vec(),
    }))
}

/// Splits `name[3]` into `("name", Some(3))`.
fn split_index(name: &str) -> Option<(&str, Option<u32>)> {
    // The last subscript: `s[1].a[2]` is element 2 of `s[1].a`.
    match name.strip_suffix(']').and_then(|n| n.rsplit_once('[')) {
        None => Some((name, None)),
        Some((base, index)) => Some((base, Some(index.parse().ok()?))),
    }
}

fn parse_uniform(
    ty: &str,
    name: &str,
    values: &[&str],
    number: usize,
    line: &str,
) -> Result<Uniform, SceneError> {
    let (base, columns, rows) =
        uniform_shape(ty).ok_or_else(|| skip(number, line, "unsupported uniform type"))?;
    let n = (columns * rows) as usize;
    let data = match base {
        'f' => UniformData::F32(parse_uniform_values(values, n, number, line)?),
        'd' => UniformData::F64(parse_uniform_values(values, n, number, line)?),
        'i' => UniformData::I32(parse_uniform_values(values, n, number, line)?),
        'I' => UniformData::I64(parse_uniform_values(values, n, number, line)?),
        'U' => UniformData::U64(parse_uniform_values(values, n, number, line)?),
        _ => {
            // shader_runner reads unsigned values with strtoul, which stops at the GLSL
            // suffix some lines keep (`uniform uint expect0 4227922944u`).
            let values: Vec<&str> = (values.iter())
                .map(|v| v.trim_end_matches(';'))
                .map(|v| v.strip_suffix(['u', 'U']).unwrap_or(v))
                .collect();
            UniformData::U32(parse_uniform_values(&values, n, number, line)?)
        }
    };
    let (name, index) =
        split_index(name).ok_or_else(|| fail(number, line, "malformed uniform name"))?;
    Ok(Uniform {
        type_name: ty.to_string(),
        name: name.to_string(),
        index,
        columns,
        rows,
        data,
    })
}

/// The `n` components of a `uniform` command. shader_runner reads up to `n` numbers and
/// hands GL its whole array, whatever it read: components the line leaves out are not
/// specified (stack contents there), and the tests that leave some out never look at them;
/// they are zero here, so that a run is reproducible. Only [`Dialect::Piglit`] takes such
/// a line (`parse_as`).
fn parse_uniform_values<T: Number + Default + Clone>(
    tokens: &[&str],
    n: usize,
    number: usize,
    line: &str,
) -> Result<Vec<T>, SceneError> {
    if tokens.is_empty() || tokens.len() > n {
        return Err(fail(
            number,
            line,
            &format!("expected 1 to {n} numbers, found {}", tokens.len()),
        ));
    }
    // shader_runner reads numbers with strtod, which stops at the `;` some lines end with.
    let tokens: Vec<&str> = tokens.iter().map(|t| t.trim_end_matches(';')).collect();
    let mut values = parse_nums::<T>(&tokens, tokens.len(), number, line)?;
    values.resize(n, T::default());
    Ok(values)
}

/// `vec3` → ('f', 1, 3), `mat2x3` → ('f', 2, 3), `dvec2` → ('d', 1, 2), `uint` → ('u', 1, 1);
/// 64-bit integers are 'I' and 'U': `int64_t` → ('I', 1, 1), `u64vec2` → ('U', 1, 2).
fn uniform_shape(ty: &str) -> Option<(char, u32, u32)> {
    let dim = |s: &str| s.parse::<u32>().ok().filter(|d| (2..=4).contains(d));
    Some(match ty {
        "float" => ('f', 1, 1),
        "double" => ('d', 1, 1),
        "int" => ('i', 1, 1),
        "uint" => ('u', 1, 1),
        "int64_t" => ('I', 1, 1),
        "uint64_t" => ('U', 1, 1),
        _ => {
            let (base, rest) = match ty.as_bytes().first()? {
                b'v' | b'm' => ('f', ty),
                b'd' => ('d', &ty[1..]),
                b'i' if ty.starts_with("i64") => ('I', &ty[3..]),
                b'u' if ty.starts_with("u64") => ('U', &ty[3..]),
                b'i' => ('i', &ty[1..]),
                b'u' => ('u', &ty[1..]),
                _ => return None,
            };
            if let Some(n) = rest.strip_prefix("vec") {
                (base, 1, dim(n)?)
            } else if let Some(m) = rest.strip_prefix("mat") {
                if matches!(base, 'i' | 'u' | 'I' | 'U') {
                    return None;
                }
                match m.split_once('x') {
                    Some((c, r)) => (base, dim(c)?, dim(r)?),
                    None => (base, dim(m)?, dim(m)?),
                }
            } else {
                return None;
            }
        }
    })
}

/// A `[vertex data]` column's GLSL type (piglit-vbo's `decode_glsl_type`): its component
/// type, its matrix columns (1 for a scalar or vector), and the components of one column.
/// `float`, `int`, `uint`, `double`; `vecN`, `ivecN`, `uvecN`, `dvecN`; `matN`, `matCxR`,
/// `dmatN`, `dmatCxR`; or the old form's bare count N: a vector of the GL type's own type.
fn vertex_glsl_type(glsl_type: &str, data: DataType) -> Option<(ScalarKind, u32, u32)> {
    let dim = |n: &str| n.parse::<u32>().ok().filter(|n| (1..=4).contains(n));
    let (kind, columns, rows) = match glsl_type {
        "float" => (ScalarKind::Float, 1, 1),
        "int" => (ScalarKind::Int, 1, 1),
        "uint" => (ScalarKind::Uint, 1, 1),
        "double" => (ScalarKind::Double, 1, 1),
        _ => {
            let at = glsl_type.find(|c: char| c.is_ascii_digit())?;
            let (prefix, size) = glsl_type.split_at(at);
            let kind = match prefix {
                "" => data.default_kind(),
                "vec" | "mat" => ScalarKind::Float,
                "ivec" => ScalarKind::Int,
                "uvec" => ScalarKind::Uint,
                "dvec" | "dmat" => ScalarKind::Double,
                _ => return None,
            };
            if prefix.ends_with("mat") {
                // `matC` is C columns of C components; `matCxR` C columns of R.
                let (columns, rows) = size.split_once('x').unwrap_or((size, size));
                let (columns, rows) = (dim(columns)?, dim(rows)?);
                // GL has no matrices of one column or one row.
                (columns >= 2 && rows >= 2).then_some((kind, columns, rows))?
            } else {
                (kind, 1, dim(size)?)
            }
        }
    };
    Some((kind, columns, rows))
}

fn parse_vertex_data(lines: &[(usize, &str)]) -> Result<VertexData, SceneError> {
    let (header_number, header) = lines[0];
    let mut data = VertexData::default();
    for column in header.split_whitespace() {
        let unsupported = || skip(header_number, header, "unsupported vertex data column");
        let parts: Vec<&str> = column.split('/').collect();
        let (name, ty, glsl_type, index) = match parts.as_slice() {
            [name, ty, glsl_type] => (name, ty, glsl_type, 0),
            [name, ty, glsl_type, index] => (
                name,
                ty,
                glsl_type,
                parse_num::<u32>(index, header_number, header)?,
            ),
            _ => return Err(unsupported()),
        };
        let data_type = DataType::by_name(ty)
            .ok_or_else(|| skip(header_number, header, "unsupported vertex data type"))?;
        let (kind, columns, components) =
            vertex_glsl_type(glsl_type, data_type).ok_or_else(unsupported)?;
        // `name[N]/…`: element N of an array input; the fourth field: a matrix column (or
        // in the old form any location past the input's). piglit-vbo's location: the
        // input's, plus the column, plus the element times the columns of one element.
        let (name, index) = match split_index(name) {
            Some((base, Some(element))) => (base, index + element * columns),
            _ => (*name, index),
        };
        data.attributes.push(Attribute {
            name: name.to_string(),
            index,
            data: data_type,
            kind,
            components,
            offset: data.stride,
        });
        data.stride += data_type.size() * components;
    }
    for &(number, row) in &lines[1..] {
        let tokens: Vec<&str> = row.split_whitespace().collect();
        let expected: u32 = data.attributes.iter().map(|a| a.components).sum();
        if tokens.len() != expected as usize {
            return Err(fail(
                number,
                row,
                &format!("expected {expected} values, found {}", tokens.len()),
            ));
        }
        let mut tokens = tokens.iter();
        for attr in &data.attributes {
            for _ in 0..attr.components {
                let token = tokens.next().copied().unwrap_or_default();
                let bytes = attr.data.encode(token).ok_or_else(|| {
                    fail(
                        number,
                        row,
                        &format!(
                            "malformed number `{token}` for {}",
                            format!("{:?}", attr.data).to_lowercase()
                        ),
                    )
                })?;
                data.bytes.extend(bytes);
            }
        }
        data.vertex_count += 1;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(test: &str) -> Result<Vec<Command>, SceneError> {
        parse(&format!("[test]\n{test}"))
            .map(|s| s.commands.into_iter().map(|l| l.command).collect())
    }

    /// Whether `[test]` lines `test` are an error in the scene.
    fn fails(test: &str) -> bool {
        matches!(commands(test), Err(SceneError::Fail(_)))
    }

    /// Whether `[test]` lines `test` ask for what the runner does not support.
    fn skips(test: &str) -> bool {
        matches!(commands(test), Err(SceneError::Skip(_)))
    }

    #[test]
    fn sections_and_requirements() {
        let scene = parse(
            "[require]\nGLSL >= 1.50\nGL_ARB_tessellation_shader\nSIZE 64 32\ndepthbuffer\n\
             [vertex shader]\nvoid main() {}\n[fragment shader]\nout vec4 c;\n[test]\nclear\n",
        )
        .unwrap();
        assert_eq!(scene.require.glsl_version, Some(150));
        assert_eq!(scene.require.features, vec![Feature::Tessellation]);
        assert_eq!((scene.require.width, scene.require.height), (64, 32));
        assert!(scene.require.depth_buffer);
        assert_eq!(scene.shaders.len(), 2);
        assert_eq!(scene.shaders[0].source, "void main() {}\n");
        assert_eq!(scene.shaders[1].first_line, 9);
        assert_eq!(scene.commands[0].number, 11);
    }

    #[test]
    fn unknown_things_skip_with_the_line() {
        let e = parse("[mesh shader]\n").unwrap_err();
        assert!(
            matches!(&e, SceneError::Skip(m) if m.contains("line 1") && m.contains("mesh shader"))
        );
        let e = commands("\n\nblend func GL_ONE GL_ONE").unwrap_err();
        assert!(
            matches!(&e, SceneError::Skip(m) if m.starts_with("line 4") && m.contains("blend func"))
        );
        let es = parse("[require]\nGL ES >= 3.0\nGLSL ES >= 1.0\n").unwrap();
        assert!(es.require.es && es.require.glsl_es_version == Some(100));
        let e = parse("[require]\nGLSL ES >= 2.00\n").unwrap_err();
        assert!(matches!(&e, SceneError::Skip(m) if m.contains("not a GLSL ES version")));
        let e = parse("[require]\nGL ES >= 2.0\nGL_EXT_shader_framebuffer_fetch\n").unwrap_err();
        assert!(matches!(&e, SceneError::Skip(m) if m.contains("framebuffer fetch")));
        let e = parse("[require]\nGL_ARB_no_such_thing\n").unwrap_err();
        assert!(matches!(e, SceneError::Skip(_)));
        // SPIR-V sections are kept apart: without `SPIRV ONLY` the GLSL sections run.
        let scene =
            parse("[require]\nSPIRV YES\n[vertex shader spirv]\nOpCapability Shader\n").unwrap();
        assert!(scene.shaders.is_empty() && !scene.require.spirv_only);
    }

    #[test]
    fn malformed_numbers_fail_with_the_line() {
        let e = commands("clear color 1.0 0.x 0 1").unwrap_err();
        assert!(matches!(&e, SceneError::Fail(m) if m.starts_with("line 2") && m.contains("0.x")));
        let e = commands("draw rect -1 -1 2").unwrap_err();
        assert!(matches!(&e, SceneError::Fail(m) if m.contains("expected 4 numbers")));
        let e = parse("[vertex data]\nv/float/2\n1 2 3\n").unwrap_err();
        assert!(matches!(&e, SceneError::Fail(m) if m.starts_with("line 3")));
    }

    #[test]
    fn probes_of_every_kind() {
        let c = commands(
            "probe all rgba 1 0 0 1\nprobe rgb 3 4 0 1 0\nprobe rect rgba (1, 2, 3, 4) (0, 0, 1, 1)\n\
             relative probe rect rgb (0.25, 0.5, 0.5, 0.25) (1, 1, 1)\nrelative probe rgba (0.5, 0.5) (0, 0, 0, 0)\n\
             probe attachment 2 all rgba 0 1 0 1\nprobe attachment 1 rgba 5 6 1 1 1 1",
        )
        .unwrap();
        assert_eq!(
            c[0],
            Command::Probe(Probe {
                attachment: 0,
                region: Region::All,
                expected: vec![1.0, 0.0, 0.0, 1.0]
            })
        );
        assert_eq!(
            c[1],
            Command::Probe(Probe {
                attachment: 0,
                region: Region::Rect {
                    x: 3,
                    y: 4,
                    w: 1,
                    h: 1
                },
                expected: vec![0.0, 1.0, 0.0]
            })
        );
        assert!(
            matches!(&c[2], Command::Probe(p) if p.region == Region::Rect { x: 1, y: 2, w: 3, h: 4 })
        );
        assert!(
            matches!(&c[3], Command::Probe(p) if p.region == Region::Relative { x: 0.25, y: 0.5, w: 0.5, h: 0.25 } && p.expected.len() == 3)
        );
        assert!(
            matches!(&c[4], Command::Probe(p) if p.region == Region::RelativePoint { x: 0.5, y: 0.5 })
        );
        assert!(matches!(&c[5], Command::Probe(p) if p.attachment == 2 && p.region == Region::All));
        assert!(
            matches!(&c[6], Command::Probe(p) if p.attachment == 1 && p.region == Region::Rect { x: 5, y: 6, w: 1, h: 1 })
        );
    }

    #[test]
    fn a_probe_ignores_numbers_past_the_ones_it_needs_as_gl_does() {
        // piglit's shader_runner reads x, y and three channels of `probe rgb` and ignores
        // the rest of the line; too few numbers stay an error.
        let c = commands("probe rgb 0 0 0.0 1.0 0.0 1.0").unwrap();
        assert!(matches!(&c[0], Command::Probe(p) if p.expected == [0.0, 1.0, 0.0]));
        assert!(commands("probe rgb 0 0 0.0 1.0").is_err());
    }

    #[test]
    fn uniforms_keep_their_glsl_types() {
        let c = commands(
            "uniform mat2x3 m 1 2 3 4 5 6\nuniform uint u 0xffffffff\nuniform ivec2 i -1 2\n\
             uniform dvec2 d 0.1 0.2\nuniform float a[2] 0.5",
        )
        .unwrap();
        assert!(
            matches!(&c[0], Command::Uniform(u) if u.columns == 2 && u.rows == 3 && u.data == UniformData::F32(vec![1., 2., 3., 4., 5., 6.]))
        );
        assert!(matches!(&c[1], Command::Uniform(u) if u.data == UniformData::U32(vec![u32::MAX])));
        assert!(matches!(&c[2], Command::Uniform(u) if u.data == UniformData::I32(vec![-1, 2])));
        assert!(matches!(&c[3], Command::Uniform(u) if u.data == UniformData::F64(vec![0.1, 0.2])));
        assert!(matches!(&c[4], Command::Uniform(u) if u.name == "a" && u.index == Some(2)));
        let c = commands("uniform vec2 s[1].a[3] 1 2").unwrap();
        assert!(matches!(&c[0], Command::Uniform(u) if u.name == "s[1].a" && u.index == Some(3)));
        assert!(skips("uniform sampler2D s 0"));
    }

    #[test]
    fn unsigned_uniforms_stop_at_the_glsl_suffix_as_strtoul_does() {
        let c = commands("uniform uint e 4227922944u\nuniform uvec2 v 1U 0x10u;").unwrap();
        assert!(
            matches!(&c[0], Command::Uniform(u) if u.data == UniformData::U32(vec![4227922944]))
        );
        assert!(matches!(&c[1], Command::Uniform(u) if u.data == UniformData::U32(vec![1, 16])));
        // Only unsigned types: an int stays an error.
        assert!(commands("uniform int i 3u").is_err());
    }

    #[test]
    fn hex_numbers_are_bit_patterns_of_their_type() {
        // piglit's strtof_hex / strtod_hex: `0x…` is the value's IEEE bits.
        let c = commands(
            "uniform double d 0xffefffffffffffff\nuniform dvec2 e 0x8000000000000000 0.5\n\
             uniform vec2 f 0x3f800000 0xff800000",
        )
        .unwrap();
        assert!(matches!(&c[0], Command::Uniform(u) if u.data == UniformData::F64(vec![f64::MIN])));
        assert!(
            matches!(&c[1], Command::Uniform(u) if matches!(&u.data, UniformData::F64(v) if v[0].to_bits() == 1 << 63 && v[1] == 0.5))
        );
        assert!(
            matches!(&c[2], Command::Uniform(u) if u.data == UniformData::F32(vec![1.0, f32::NEG_INFINITY]))
        );
        // `[vertex data]` doubles too.
        let data = parse("[vertex data]\nv/double/double\n0x3ff0000000000000\n")
            .unwrap()
            .vertex_data
            .unwrap();
        assert_eq!(data.bytes, 1.0f64.to_le_bytes());
        assert!(fails("uniform double d 0xfffffffffffffffff"));
    }

    #[test]
    fn int64_uniforms_take_decimal_and_hex_bit_patterns() {
        let c = commands(
            "uniform int64_t i -0x7b7cfdf6f5f4f3a0\nuniform uint64_t u 18446744073709551615\n\
             uniform i64vec2 v 0xffffffffffffffff -5\nuniform u64vec3 w 0x8000000000000000 1 2",
        )
        .unwrap();
        assert!(
            matches!(&c[0], Command::Uniform(u) if u.data == UniformData::I64(vec![-0x7b7c_fdf6_f5f4_f3a0]))
        );
        assert!(matches!(&c[1], Command::Uniform(u) if u.data == UniformData::U64(vec![u64::MAX])));
        assert!(
            matches!(&c[2], Command::Uniform(u) if u.rows == 2 && u.data == UniformData::I64(vec![-1, -5]))
        );
        assert!(
            matches!(&c[3], Command::Uniform(u) if u.rows == 3 && u.data == UniformData::U64(vec![1 << 63, 1, 2]))
        );
        assert!(fails("uniform uint64_t u -1"));
        assert!(skips("uniform i64mat2 m 1 2 3 4"));
    }

    #[test]
    fn extension_requirements_map_to_features_or_skip_with_the_cause() {
        let features =
            |ext: &str| parse(&format!("[require]\n{ext}\n")).map(|s| s.require.features);
        assert_eq!(
            features("GL_ARB_gpu_shader_int64").unwrap(),
            vec![Feature::Int64]
        );
        assert_eq!(
            features("GL_ARB_vertex_attrib_64bit").unwrap(),
            vec![Feature::Float64]
        );
        assert_eq!(features("GL_ARB_shader_precision").unwrap(), vec![]);
        assert!(parse("[require]\nGL CORE >= 3.1\n").is_ok());
        let skip_reason = |text: &str| match parse(text) {
            Err(SceneError::Skip(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(skip_reason("[require]\nGL_ARB_cull_distance\n").contains("glslang"));
        assert_eq!(
            features("GL_MESA_shader_integer_functions").unwrap(),
            vec![]
        );
        assert!(skip_reason("[require]\nGL_NV_no_such_thing\n").contains("not mapped"));
        assert!(skip_reason("[require]\nGL_ARB_vertex_program\n").contains("ARB assembly"));
        assert!(skip_reason("[vertex program]\n!!ARBvp1.0\nEND\n").contains("ARB assembly"));
        // Before a requirement the runner does not map.
        let masked = "[require]\nGL_ARB_texture_rectangle\n[fragment program]\n!!ARBfp1.0\nEND\n";
        assert!(
            skip_reason(masked).contains("ARB assembly"),
            "{}",
            skip_reason(masked)
        );
    }

    #[test]
    fn spirv_sections_and_specializations() {
        let scene = parse(
            "[require]\nSPIRV ONLY\n[vertex shader specializations]\nuint 0 42\nfloat 1 0.5\n\
             int 2 -1\n[fragment shader spirv]\n; comment\nOpCapability Shader\n[test]\n",
        )
        .unwrap();
        assert!(scene.require.spirv_only);
        assert_eq!(
            scene.specializations,
            vec![
                (ShaderStage::Vertex, 0, 42),
                (ShaderStage::Vertex, 1, 0.5f32.to_bits()),
                (ShaderStage::Vertex, 2, u32::MAX)
            ]
        );
        assert_eq!(scene.spirv[0].stage, ShaderStage::Fragment);
        assert_eq!(scene.spirv[0].first_line, 8);
        assert!(scene.spirv[0].source.contains("OpCapability Shader"));
        assert!(scene.shaders.is_empty());
    }

    #[test]
    fn uniform_components_left_out_are_zero_for_piglit_only() {
        let short = "uniform dvec4 v 0.0 0.5 0.25\nuniform mat2 m 1 2";
        assert!(fails(short));
        let c: Vec<Command> = parse_as(&format!("[test]\n{short}"), Dialect::Piglit)
            .unwrap()
            .commands
            .into_iter()
            .map(|l| l.command)
            .collect();
        assert!(
            matches!(&c[0], Command::Uniform(u) if u.data == UniformData::F64(vec![0.0, 0.5, 0.25, 0.0]))
        );
        assert!(
            matches!(&c[1], Command::Uniform(u) if u.data == UniformData::F32(vec![1., 2., 0., 0.]))
        );
        assert!(fails("uniform vec2 v"));
        assert!(fails("uniform vec2 v 1 2 3"));
    }

    #[test]
    fn gl_primitive_modes_parse_and_the_compatibility_ones_need_gl_compat() {
        let compat = |test: &str| {
            parse(&format!("[require]\nGL COMPAT >= 3.2\n[test]\n{test}")).map(|s| {
                s.commands
                    .into_iter()
                    .map(|l| l.command)
                    .collect::<Vec<_>>()
            })
        };
        let c = compat(
            "draw arrays GL_QUADS 0 8\ndraw arrays instanced GL_QUAD_STRIP 2 6 3\n\
             draw arrays GL_POLYGON 1 5\ndraw arrays GL_LINE_LOOP 0 4",
        )
        .unwrap();
        let modes: Vec<Mode> = c
            .iter()
            .map(|c| match c {
                Command::DrawArrays { mode, .. } => *mode,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            modes,
            [Mode::Quads, Mode::QuadStrip, Mode::Polygon, Mode::LineLoop]
        );
        assert_eq!(
            c[1],
            Command::DrawArrays {
                mode: Mode::QuadStrip,
                first: 2,
                count: 6,
                instances: 3,
                base_instance: 0,
                indirect: false,
            }
        );
        // GL_LINE_LOOP is core; the others GL_INVALID_ENUM there.
        assert!(commands("draw arrays GL_LINE_LOOP 0 4").is_ok());
        for mode in ["GL_QUADS", "GL_QUAD_STRIP", "GL_POLYGON"] {
            let e = commands(&format!("draw arrays {mode} 0 4")).unwrap_err();
            assert!(
                matches!(&e, SceneError::Skip(m) if m.contains("GL COMPAT")),
                "{mode}: {e}"
            );
        }
        assert!(Mode::LineLoop.layer_drawn() && !Mode::LineLoop.compat_only());
        assert!(!Mode::LineStrip.layer_drawn());
    }

    #[test]
    fn draws_xfb_and_framebuffer_commands() {
        let c = commands(
            "draw arrays instanced GL_TRIANGLE_FAN 0 4 3\ndraw arrays GL_PATCHES 1 6\n\
             xfb buffer object 1 64\nxfb draw arrays GL_POINTS 0 2\nprobe xfb buffer double 1 3 0.5\n\
             verify query_object GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN 2\n\
             fb color attachments 3 VK_FORMAT_R32G32B32A32_UINT UNUSED\nfb dynamic rendering\n\
             patch parameter default level outer 1 2 3 4\npatch parameter default level inner 5 6",
        )
        .unwrap();
        assert_eq!(
            c[0],
            Command::DrawArrays {
                mode: Mode::TriangleFan,
                first: 0,
                count: 4,
                instances: 3,
                base_instance: 0,
                indirect: false,
            }
        );
        assert_eq!(
            c[1],
            Command::DrawArrays {
                mode: Mode::Patches,
                first: 1,
                count: 6,
                instances: 1,
                base_instance: 0,
                indirect: false,
            }
        );
        assert_eq!(c[2], Command::XfbBuffer { index: 1, size: 64 });
        assert_eq!(
            c[3],
            Command::XfbDrawArrays {
                mode: Mode::Points,
                first: 0,
                count: 2
            }
        );
        assert_eq!(
            c[4],
            Command::ProbeXfb {
                kind: XfbKind::Double,
                index: 1,
                element: 3,
                value: 0.5
            }
        );
        assert_eq!(
            c[5],
            Command::VerifyQuery {
                query: Query::PrimitivesWritten,
                expected: 2
            }
        );
        assert_eq!(
            c[6],
            Command::FbAttachments(vec![
                Some("R32G32B32A32_UINT".into()),
                None,
                Some("R8G8B8A8_UNORM".into())
            ])
        );
        assert_eq!(c[7], Command::FbDynamicRendering);
        assert_eq!(c[8], Command::DefaultOuterLevels([1., 2., 3., 4.]));
        assert_eq!(c[9], Command::DefaultInnerLevels([5., 6.]));
    }

    #[test]
    fn layered_framebuffer_commands() {
        let c = commands("texture junk 2DArray 2 ( 64 , 32 , 4 )\nfb tex layered 2").unwrap();
        assert_eq!(
            c,
            [
                Command::TextureJunkArray {
                    unit: 2,
                    size: [64, 32, 4]
                },
                Command::FbTexLayered(2)
            ]
        );
    }

    #[test]
    fn gl_state_commands() {
        let c = commands(
            "point size 5\nenable GL_PROGRAM_POINT_SIZE\ndisable GL_PROGRAM_POINT_SIZE\n\
             enable GL_CLIP_PLANE0\ndisable GL_CLIP_DISTANCE7\nprovoking vertex first\n\
             provoking vertex last\nenable GL_DEPTH_TEST\ndepthfunc GL_GEQUAL\n\
             clear depth 0.25\nprobe depth 3 4 0.5\npolygon mode GL_FRONT_AND_BACK GL_LINE",
        )
        .unwrap();
        assert_eq!(
            c,
            vec![
                Command::PointSize(5.0),
                Command::Enable(Capability::ProgramPointSize, true),
                Command::Enable(Capability::ProgramPointSize, false),
                Command::Enable(Capability::ClipDistance(0), true),
                Command::Enable(Capability::ClipDistance(7), false),
                Command::ProvokingFirst(true),
                Command::ProvokingFirst(false),
                Command::Enable(Capability::DepthTest, true),
                Command::DepthFunc(DepthFunc::Gequal),
                Command::ClearDepth(0.25),
                Command::ProbeDepth {
                    x: 3,
                    y: 4,
                    depth: 0.5
                },
                Command::PolygonMode(PolygonMode::Line),
            ]
        );
        assert!(skips("enable GL_CLIP_PLANE8"));
        assert!(skips("enable GL_BLEND"));
        assert!(fails("point size 0"));
        assert_eq!(
            commands("line width 3\nenable GL_LINE_STIPPLE\nline stipple 2 0x0F0F\ndraw arrays GL_LINE_LOOP 0 4")
                .unwrap()[..3],
            [
                Command::LineWidth(3.0),
                Command::Enable(Capability::LineStipple, true),
                Command::LineStipple {
                    factor: 2,
                    pattern: 0x0F0F
                },
            ]
        );
        assert!(fails("line width 0"));
        assert!(fails("line stipple 1 0x10000"));
        assert!(fails("provoking vertex middle"));
    }

    #[test]
    fn piglit_rectangles() {
        let c = commands(
            "draw rect -1 -1 2 2\ndraw rect ortho patch 0 0 10 20\ndraw rect tex 0 0 1 1 0 0 0.5 0.5\n\
             draw instanced rect ortho patch 3 1 2 3 4\ndraw instanced rect 2 -1 -1 1 1",
        )
        .unwrap();
        let rect = |ortho, patch, instances, v: [f32; 4], tex| {
            Command::DrawRect(Rect {
                ortho,
                patch,
                instances,
                x: v[0],
                y: v[1],
                w: v[2],
                h: v[3],
                tex,
            })
        };
        assert_eq!(c[0], rect(false, false, 1, [-1., -1., 2., 2.], None));
        assert_eq!(c[1], rect(true, true, 1, [0., 0., 10., 20.], None));
        assert_eq!(
            c[2],
            rect(false, false, 1, [0., 0., 1., 1.], Some([0., 0., 0.5, 0.5]))
        );
        assert_eq!(c[3], rect(true, true, 3, [1., 2., 3., 4.], None));
        assert_eq!(c[4], rect(false, false, 2, [-1., -1., 1., 1.], None));
        assert!(fails("draw rect patch 1 2 3"));
    }

    #[test]
    fn limits_spirv_and_sso_requirements() {
        let scene = parse(
            "comment before any section\n[require]\nSPIRV YES\nSSO ENABLED\nGL_MAX_VERTEX_OUTPUT_COMPONENTS >= 128\n\
             INT GL_MAX_PATCH_VERTICES >= 32\n[vertex shader spirv]\n; SPIR-V\n[vertex shader]\nvoid main() {}\n\
             [vertex shader]\nvoid f() {}\n",
        )
        .unwrap();
        assert_eq!(
            scene.require.limits,
            vec![
                (Limit::VertexOutputComponents, 128),
                (Limit::PatchVertices, 32)
            ]
        );
        // Two compilation units of one stage; the SPIR-V section is read past.
        assert_eq!(scene.shaders.len(), 2);
        assert!(matches!(
            parse("[require]\nGL_MAX_UNKNOWN_THING >= 1\n"),
            Err(SceneError::Skip(_))
        ));
        assert!(skips("verify program_query GL_ACTIVE_ATTRIBUTES 2"));
        assert_eq!(
            commands(
                "verify program_query GL_ACTIVE_UNIFORMS 2\nblock binding 5\nblock row major 1\n\
                 verify program_query GL_ACTIVE_UNIFORM_BLOCKS 3\n\
                 verify program_interface_query GL_SHADER_STORAGE_BLOCK ssbo GL_BUFFER_DATA_SIZE 32"
            )
            .unwrap(),
            vec![
                Command::VerifyActiveUniforms(2),
                Command::Block(BlockField::Binding(5)),
                Command::Block(BlockField::RowMajor(true)),
                Command::VerifyActiveUniformBlocks(3),
                Command::VerifyBlock {
                    storage: true,
                    name: "ssbo".into(),
                    property: BlockProperty::BufferDataSize,
                    expected: 32
                }
            ]
        );
        assert_eq!(
            commands("verify program_query GL_TRANSFORM_FEEDBACK_VARYINGS 3\nlink success")
                .unwrap(),
            vec![Command::VerifyXfbVaryings(3), Command::LinkSuccess]
        );
        assert_eq!(commands("link error").unwrap(), vec![Command::LinkError]);
        assert_eq!(
            commands("compute 2 1 3\nactive shader program GL_FRAGMENT_SHADER").unwrap(),
            vec![
                Command::Compute([2, 1, 3]),
                Command::ActiveShaderProgram(ShaderStage::Fragment)
            ]
        );
    }

    #[test]
    fn atomic_counters_are_storage_buffers_past_the_ssbo_bindings() {
        let c = commands(
            "atomic counters 2\natomic counter buffer 1 4\natomic counter 1 3 7\n\
             probe atomic counter 1 == 16\nprobe atomic counter buffer 1 12 == 7",
        )
        .unwrap();
        let a = ATOMIC_COUNTER_BINDINGS;
        assert_eq!(
            c,
            vec![
                Command::Ssbo { index: a, size: 8 },
                Command::Ssbo {
                    index: a + 1,
                    size: 16
                },
                Command::SsboSubdata {
                    index: a + 1,
                    offset: 12,
                    values: vec![BufferValue::Uint(7)]
                },
                Command::ProbeSsbo {
                    index: a,
                    offset: 4,
                    compare: Compare::Eq,
                    value: BufferValue::Uint(16)
                },
                Command::ProbeSsbo {
                    index: a + 1,
                    offset: 12,
                    compare: Compare::Eq,
                    value: BufferValue::Uint(7)
                },
            ]
        );
        assert!(skips("ssbo 32 16"));
    }

    #[test]
    fn storage_buffers() {
        let c = commands(
            "ssbo 2 64\nssbo 2 subdata float 8 1.5\nssbo 0 subdata int 0 0xffffffff\n\
             probe ssbo int 2 4 >= -3\nprobe ssbo double 1 8 == 0.25",
        )
        .unwrap();
        assert_eq!(c[0], Command::Ssbo { index: 2, size: 64 });
        assert_eq!(
            c[1],
            Command::SsboSubdata {
                index: 2,
                offset: 8,
                values: vec![BufferValue::Float(1.5)]
            }
        );
        assert_eq!(
            c[2],
            Command::SsboSubdata {
                index: 0,
                offset: 0,
                values: vec![BufferValue::Int(-1)]
            }
        );
        assert_eq!(
            c[3],
            Command::ProbeSsbo {
                index: 2,
                offset: 4,
                compare: Compare::Ge,
                value: BufferValue::Int(-3)
            }
        );
        assert!(
            matches!(&c[4], Command::ProbeSsbo { value: BufferValue::Double(v), .. } if *v == 0.25)
        );
        assert!(skips("ssbo 0 subdata float 0 1 2"));
        assert_eq!(
            BufferValue::Float(0.0).read(&2.5f32.to_le_bytes()),
            Some(BufferValue::Float(2.5))
        );
    }

    #[test]
    fn textures() {
        let c = commands(
            "texture rgbw 1 (8, 4)\ntexture checkerboard 0 0 (32, 32) (0.0, 0.0, 1.0, 0.0) (0, 1, 0, 0)\n\
             texparameter 2D min nearest",
        )
        .unwrap();
        assert_eq!(
            c[0],
            Command::Texture {
                unit: 1,
                image: TextureImage::Rgbw {
                    width: 8,
                    height: 4,
                    format: TexelFormat::Rgba8,
                }
            }
        );
        assert_eq!(
            c[1],
            Command::Texture {
                unit: 0,
                image: TextureImage::Checkerboard {
                    width: 32,
                    height: 32,
                    black: [0., 0., 1., 0.],
                    white: [0., 1., 0., 0.]
                }
            }
        );
        assert_eq!(
            c[2],
            Command::TexParameter(TexFilter {
                min: true,
                linear: false,
                mipmap: None
            })
        );
        assert!(skips(
            "texture checkerboard 0 1 (32, 32) (0, 0, 1, 0) (0, 1, 0, 0)"
        ));
    }

    #[test]
    fn storage_images_and_atomic_counter_limits() {
        let c = commands(
            "image texture 2 GL_RGBA8\nfb tex 2d 3\n\
             memory barrier GL_FRAMEBUFFER_BARRIER_BIT GL_SHADER_IMAGE_ACCESS_BARRIER_BIT\n\
             texture rgbw 0 (16, 16) GL_RGBA8",
        )
        .unwrap();
        assert_eq!(
            c[..3],
            [
                Command::ImageTexture {
                    unit: 2,
                    format: "GL_RGBA8".into()
                },
                Command::FbTexture(3),
                Command::MemoryBarrier,
            ]
        );
        assert!(matches!(c[3], Command::Texture { unit: 0, .. }));
        let scene = parse(
            "[require]\nGL_ARB_shader_image_load_store\nINT GL_MAX_FRAGMENT_ATOMIC_COUNTERS >= 20\n",
        )
        .unwrap();
        assert_eq!(scene.require.limits, vec![(Limit::AtomicCounters, 20)]);
    }

    #[test]
    fn texture_kinds_formats_and_sampling() {
        let c = commands(
            "texture rgbw 2 (4, 4) GL_RGBA32F\ntexture rgbw 2DArray 1 (8, 8, 3)\n\
             texture shadowRect 0 (32, 16)\n\
             texture quads 0 0 (4, 4) (1, 2) (0, 0.5, 0.1, 0.15) (0.2, 0.25, 0.3, 0.35) \
             (0.4, 0.45, 0.5, 0.55) (0.6, 0.65, 0.7, 0.75)\n\
             texparameter 2D wrap_t clamp_to_border\n\
             texparameter 2D border_color 0.1 0.2 0.3 0.4",
        )
        .unwrap();
        let image = |i: usize| match &c[i] {
            Command::Texture { image, .. } => image.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            image(0),
            TextureImage::Rgbw {
                width: 4,
                height: 4,
                format: TexelFormat::Rgba32f
            }
        );
        assert_eq!(
            image(1),
            TextureImage::RgbwArray {
                width: 8,
                height: 8,
                layers: 3
            }
        );
        assert_eq!(
            image(2),
            TextureImage::ShadowRect {
                width: 32,
                height: 16
            }
        );
        assert!(matches!(
            image(3),
            TextureImage::Quads { square: [1, 2], colors, .. } if colors[3] == [0.6, 0.65, 0.7, 0.75]
        ));
        assert_eq!(
            c[4],
            Command::TexSampling(TexSampling::Wrap {
                axis: 1,
                mode: TexWrap::ClampToBorder
            })
        );
        assert_eq!(
            c[5],
            Command::TexSampling(TexSampling::BorderColor([0.1, 0.2, 0.3, 0.4]))
        );
        assert!(skips("texture rgbw 0 (4, 4) GL_RGB9_E5"));
    }

    #[test]
    fn vertex_data_columns_name_array_elements() {
        let scene = parse("[vertex data]\narr[1]/float/4 arr[0]/float/2\n1 2 3 4 5 6\n").unwrap();
        let data = scene.vertex_data.unwrap();
        let columns: Vec<(&str, u32)> = data
            .attributes
            .iter()
            .map(|a| (a.name.as_str(), a.index))
            .collect();
        assert_eq!(columns, [("arr", 1), ("arr", 0)]);
    }

    #[test]
    fn vertex_data_takes_doubles_locations_and_element_indices() {
        let scene = parse("[vertex data]\n0/double/dvec2 gba/float/4/2\n0.5 -2 1 2 3 4\n").unwrap();
        let data = scene.vertex_data.unwrap();
        assert_eq!(data.stride, 32);
        let a = &data.attributes;
        assert_eq!(
            (a[0].name.as_str(), a[0].kind, a[0].components),
            ("0", ScalarKind::Double, 2)
        );
        assert_eq!(
            (a[1].name.as_str(), a[1].index, a[1].offset),
            ("gba", 2, 16)
        );
        assert_eq!(&data.bytes[..8], &0.5f64.to_le_bytes());
        assert_eq!(data.bytes.len(), 32);
    }

    #[test]
    fn vertex_data_matrix_columns_take_one_location_each() {
        // piglit-vbo: a column of `matCxR` holds R components at the input's location plus
        // the column (the fourth field), plus the element times C for `name[N]`.
        let scene = parse(
            "[vertex data]\nm/float/mat2x3/0 m/float/mat2x3/1 d[1]/double/dmat3x2/2 \
             s/float/mat4/3 old[2]/float/3/1\n\
             1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",
        )
        .unwrap();
        let data = scene.vertex_data.unwrap();
        let columns: Vec<_> = data
            .attributes
            .iter()
            .map(|a| (a.name.as_str(), a.index, a.kind, a.components, a.offset))
            .collect();
        assert_eq!(
            columns,
            [
                ("m", 0, ScalarKind::Float, 3, 0),
                ("m", 1, ScalarKind::Float, 3, 12),
                // Element 1 of a dmat3x2 array: 3 locations past the first, column 2.
                ("d", 5, ScalarKind::Double, 2, 24),
                ("s", 3, ScalarKind::Float, 4, 40),
                // The old form's count is one column: elements one location apart.
                ("old", 3, ScalarKind::Float, 3, 56),
            ]
        );
        assert_eq!(data.stride, 68);
        assert_eq!(&data.bytes[24..32], &7f64.to_le_bytes());
    }

    #[test]
    fn vertex_data_is_interleaved() {
        let scene =
            parse("[vertex data]\npiglit_vertex/float/2 c/uint/1\n# comment\n0.5 -1 7\n1 2 0x10\n")
                .unwrap();
        let data = scene.vertex_data.unwrap();
        assert_eq!(data.stride, 12);
        assert_eq!(data.vertex_count, 2);
        assert_eq!(data.attributes[1].offset, 8);
        let words: Vec<u32> = vec![
            0.5f32.to_bits(),
            (-1f32).to_bits(),
            7,
            1f32.to_bits(),
            2f32.to_bits(),
            16,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(data.bytes, bytes);
    }

    #[test]
    fn vertex_data_columns_take_piglits_gl_and_glsl_types_tightly_packed() {
        let scene = parse(
            "[vertex data]\np/short/vec3 h/half/vec2 c/ubyte/vec3 id/ubyte/uvec3 i/int/ivec2 \
             old/byte/2 u/ushort/uint\n-2 0x7fff -32768 1.5 0x3c00 0 128 255 1 2 3 -5 0x10 -128 127 65535\n",
        )
        .unwrap();
        let data = scene.vertex_data.unwrap();
        let columns: Vec<_> = data
            .attributes
            .iter()
            .map(|a| (a.data, a.kind, a.components, a.offset))
            .collect();
        assert_eq!(
            columns,
            [
                (DataType::Short, ScalarKind::Float, 3, 0),
                (DataType::Half, ScalarKind::Float, 2, 6),
                (DataType::Ubyte, ScalarKind::Float, 3, 10),
                (DataType::Ubyte, ScalarKind::Uint, 3, 13),
                (DataType::Int, ScalarKind::Int, 2, 16),
                // The old form reads the data as its own GLSL type.
                (DataType::Byte, ScalarKind::Int, 2, 24),
                (DataType::Ushort, ScalarKind::Uint, 1, 26),
            ]
        );
        assert_eq!(data.stride, 28);
        let mut bytes = Vec::new();
        for v in [-2i16, 0x7fff, -32768] {
            bytes.extend(v.to_le_bytes());
        }
        // 1.5 as a half, and `0x…` as a half's bits.
        bytes.extend([0x00, 0x3e, 0x00, 0x3c]);
        bytes.extend([0, 128, 255, 1, 2, 3]);
        bytes.extend((-5i32).to_le_bytes());
        bytes.extend(16i32.to_le_bytes());
        bytes.extend([0x80, 0x7f, 0xff, 0xff]);
        assert_eq!(data.bytes, bytes);
    }

    #[test]
    fn vertex_data_values_out_of_their_type_fail_and_unknown_types_skip() {
        for (header, value) in [
            ("b/ubyte/float", "256"),
            ("b/ubyte/float", "-1"),
            ("b/byte/float", "128"),
            ("s/short/float", "-32769"),
            ("s/ushort/uint", "1.5"),
        ] {
            let e = parse(&format!("[vertex data]\n{header}\n{value}\n")).unwrap_err();
            assert!(
                matches!(&e, SceneError::Fail(m) if m.starts_with("line 3") && m.contains(value)),
                "{header} {value}: {e}"
            );
        }
        for header in [
            "v/fixed/vec2",
            "v/float/mat1",
            "v/float/mat2x5",
            "v/float/mat2x",
            "v/int/imat2",
            "v/float/vec5",
            "v/float/bvec2",
        ] {
            let e = parse(&format!("[vertex data]\n{header}\n")).unwrap_err();
            assert!(matches!(e, SceneError::Skip(_)), "{header}: {e}");
        }
    }

    #[test]
    fn halves_round_to_nearest_even() {
        assert_eq!(f32_to_half(1.0), 0x3c00);
        assert_eq!(f32_to_half(-2.0), 0xc000);
        assert_eq!(f32_to_half(65504.0), 0x7bff);
        // Past the largest half (halfway to 2^16 rounds up): infinity.
        assert_eq!(f32_to_half(65520.0), 0x7c00);
        assert_eq!(f32_to_half(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f32_to_half(f32::NAN) & 0x7e00, 0x7e00);
        // 1 + 2^-11 is halfway between 1 and the next half: to the even one, 1.
        assert_eq!(f32_to_half(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(f32_to_half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        // Subnormals: 2^-24 is the smallest, 2^-25 halfway to it (even: zero).
        assert_eq!(f32_to_half(2f32.powi(-24)), 0x0001);
        assert_eq!(f32_to_half(2f32.powi(-25)), 0x0000);
        assert_eq!(f32_to_half(1.5 * 2f32.powi(-25)), 0x0001);
        assert_eq!(f32_to_half(2f32.powi(-14)), 0x0400);
        assert_eq!(f32_to_half(-0.0), 0x8000);
    }

    #[test]
    fn indices_and_indexed_and_indirect_draws() {
        let scene = parse(
            "[indices]\n0 1 2 # a comment\n0xffff 3\n[test]\nindex type uint8\n\
             draw elements GL_TRIANGLES 3\ndraw elements GL_TRIANGLE_STRIP 4 1\n\
             draw elements GL_LINES 2 1 basevertex -3\n\
             draw elements instanced GL_POINTS 2 1 4\n\
             draw elements instanced GL_POINTS 2 1 4 basevertex 2 baseinstance 5\n\
             draw elements instanced GL_POINTS 2 1 4 baseinstance 6\n\
             draw elements indirect GL_LINE_LOOP 5 2 1 -1 3\n\
             draw arrays indirect GL_TRIANGLE_FAN 6 2 1 4\n\
             enable GL_PRIMITIVE_RESTART_FIXED_INDEX\ndisable GL_PRIMITIVE_RESTART_FIXED_INDEX\n",
        )
        .unwrap();
        assert_eq!(scene.indices, [0, 1, 2, 0xffff, 3]);
        let elements = |mode, [count, first, instances]: [u32; 3], base_vertex, base_instance| {
            Command::DrawElements {
                mode,
                count,
                first,
                instances,
                base_vertex,
                base_instance,
                indirect: false,
            }
        };
        let c: Vec<Command> = scene.commands.into_iter().map(|l| l.command).collect();
        assert_eq!(
            c,
            [
                Command::IndexType(IndexType::Uint8),
                elements(Mode::Triangles, [3, 0, 1], 0, 0),
                elements(Mode::TriangleStrip, [4, 1, 1], 0, 0),
                elements(Mode::Lines, [2, 1, 1], -3, 0),
                elements(Mode::Points, [2, 1, 4], 0, 0),
                elements(Mode::Points, [2, 1, 4], 2, 5),
                elements(Mode::Points, [2, 1, 4], 0, 6),
                Command::DrawElements {
                    mode: Mode::LineLoop,
                    count: 5,
                    first: 1,
                    instances: 2,
                    base_vertex: -1,
                    base_instance: 3,
                    indirect: true,
                },
                Command::DrawArrays {
                    mode: Mode::TriangleFan,
                    first: 1,
                    count: 6,
                    instances: 2,
                    base_instance: 4,
                    indirect: true,
                },
                Command::Enable(Capability::PrimitiveRestartFixedIndex, true),
                Command::Enable(Capability::PrimitiveRestartFixedIndex, false),
            ]
        );
        assert_eq!(IndexType::default(), IndexType::Uint32);
        let restarts =
            [IndexType::Uint8, IndexType::Uint16, IndexType::Uint32].map(|t| t.max_index());
        assert_eq!(restarts, [0xff, 0xffff, 0xffff_ffff]);
    }

    #[test]
    fn malformed_indexed_and_indirect_draws() {
        for bad in [
            "index type uint64",
            "draw elements GL_TRIANGLES",
            "draw elements GL_TRIANGLES 3 0 1",
            "draw elements GL_TRIANGLES 3 basevertex 1",
            "draw elements GL_TRIANGLES 3 0 baseinstance 1",
            "draw elements instanced GL_TRIANGLES 3 0",
            "draw elements instanced GL_TRIANGLES 3 0 1 baseinstance 1 basevertex 2",
            "draw elements indirect GL_TRIANGLES 3 1 0 0",
            "draw arrays indirect GL_TRIANGLES 3 1 0",
            "draw elements GL_TRIANGLES -3",
        ] {
            assert!(fails(bad), "{bad}");
        }
        assert!(parse("[indices]\n1 -2\n").is_err_and(|e| matches!(e, SceneError::Fail(_))));
        // GL's compatibility modes need `GL COMPAT` in every kind of draw.
        assert!(skips("draw elements GL_QUADS 4"));
        assert!(skips("draw arrays indirect GL_POLYGON 4 1 0 0"));
        assert!(!skips("draw elements indirect GL_LINE_LOOP 4 1 0 0 0"));
    }
}

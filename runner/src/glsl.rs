//! GLSL → SPIR-V through `glslangValidator -V -R`, then the work a GL linker does that
//! glslang's per-stage compiles cannot: matching stage interfaces by name, trimming the
//! built-in `gl_PerVertex` blocks to the members in use, splitting the per-vertex arrays
//! of arrays that carry a `Component`, merging glslang's per-unit copies of a built-in,
//! placing `gl_FragData`, and giving each stage's default uniform block its own binding;
//! and one workaround for lavapipe (stores to a dynamically indexed component of a TCS
//! patch output).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rspirv::binary::Assemble;
use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use crate::scene::{Scene, SceneError, Stage};

/// One compilation unit: GLSL and the first line of its section in the scene file.
type Unit = (String, Option<usize>);

/// The lowest desktop GLSL version glslang compiles for Vulkan.
const MIN_VULKAN_GLSL: u32 = 140;
/// `gl_FragData` gets this many elements (glslang's default is 32, beyond any device).
const MAX_DRAW_BUFFERS: u32 = 8;

/// Scalar component type of an interface variable or uniform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Float,
    Double,
    Int,
    Uint,
    Bool,
}

impl Scalar {
    pub fn size(self) -> u32 {
        if self == Scalar::Double {
            8
        } else {
            4
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
    /// Components of one element; 0 for a matrix.
    pub components: u32,
    /// An array's length, else 1.
    pub elements: u32,
    /// Locations one element takes (2 for a `dvec3` or `dvec4`).
    pub slots: u32,
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
const FIRST_NAMED_BLOCK_BINDING: u32 = 8;
/// Bindings of samplers start here (one per GL sampler uniform name, shared by the stages).
const FIRST_SAMPLER_BINDING: u32 = 32;

/// Descriptor bindings of shader storage blocks: this plus the GL binding point.
pub const FIRST_STORAGE_BINDING: u32 = 64;

/// GL's atomic counter buffer binding point N is served as the storage buffer at "binding
/// point" `ATOMIC_COUNTER_BINDINGS + N`: glslang (`-R`) turns a stage's atomic counters of
/// binding N into a storage block `gl_AtomicCounterBlock_N` with GL's offsets, and GL's
/// atomic counter and shader storage binding points are apart.
pub const ATOMIC_COUNTER_BINDINGS: u32 = 32;

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
/// initially 0) is the runner's to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerUniform {
    pub name: String,
    pub binding: u32,
    /// Its initial texture unit: `layout(binding = N)`, else 0 (element i of an array:
    /// N + i).
    pub unit: u32,
    /// An array of samplers: its length (one descriptor array), else 1.
    pub count: u32,
}

/// One compiled and linked stage.
#[derive(Debug, Clone)]
pub struct StageModule {
    pub stage: Stage,
    pub words: Vec<u32>,
    pub capabilities: Vec<spirv::Capability>,
    /// The default uniform block (if any) and the named uniform blocks the stage declares.
    pub uniform_blocks: Vec<UniformBlock>,
    pub samplers: Vec<SamplerUniform>,
    /// Shader storage blocks by GL binding point.
    pub storage_blocks: Vec<StorageBlock>,
    pub vertex_inputs: Vec<VertexInput>,
    /// Uniforms of the default block (and samplers) with an explicit location, from the
    /// source: (location, GL name). glslang drops these locations.
    pub uniform_locations: Vec<(u32, String)>,
    /// The module has the `Xfb` execution mode.
    pub xfb: bool,
    /// How many transform-feedback varyings GL reports for the module's captured outputs
    /// (`GL_TRANSFORM_FEEDBACK_VARYINGS` of a SPIR-V program, ARB_gl_spirv).
    pub xfb_varyings: u32,
}

#[derive(Debug, Clone)]
pub struct Program {
    pub stages: Vec<StageModule>,
    /// Uniform initializers, which GL applies at link time (glslang drops them).
    pub initializers: Vec<crate::initializers::Initializer>,
}

/// A named uniform or shader storage block as `verify program_interface_query` finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockResource {
    /// GL_NUM_ACTIVE_VARIABLES.
    pub active_variables: u32,
    /// GL_BUFFER_DATA_SIZE.
    pub data_size: u32,
}

impl Program {
    /// GL_ACTIVE_UNIFORMS: the active uniforms of every stage under their GL names (the
    /// default blocks' and named uniform blocks' members, and the samplers), each named
    /// once however many stages use it.
    pub fn active_uniforms(&self) -> u32 {
        let mut names: HashSet<&str> = HashSet::new();
        // A GL SPIR-V module's members may have no names: each one is its own uniform.
        let mut nameless: HashSet<(u32, u32)> = HashSet::new();
        let anonymous = |n: &str| n.split(['.', '[']).any(str::is_empty);
        for stage in &self.stages {
            for block in &stage.uniform_blocks {
                for m in &block.members {
                    if anonymous(&m.name) {
                        nameless.insert((block.gl_binding, m.offset));
                    } else {
                        names.insert(&m.name);
                    }
                }
            }
            names.extend(stage.samplers.iter().map(|s| s.name.as_str()));
            for block in &stage.storage_blocks {
                names.extend(block.atomic_counters.iter().flatten().map(String::as_str));
            }
        }
        (names.len() + nameless.len()) as u32
    }

    /// GL_ACTIVE_UNIFORM_BLOCKS: the named uniform blocks of every stage, each element of
    /// an array of blocks apart, each named once however many stages use it.
    pub fn active_uniform_blocks(&self) -> u32 {
        let names: HashSet<&str> = self
            .stages
            .iter()
            .flat_map(|s| &s.uniform_blocks)
            .filter_map(|b| b.name.as_deref())
            .collect();
        names.len() as u32
    }

    /// The uniform (`storage` false) or shader storage block named `name`, or, with
    /// `binding`, the one at that GL binding point (how piglit finds a SPIR-V program's
    /// blocks, which have no names).
    pub fn block(&self, storage: bool, name: &str, binding: Option<u32>) -> Option<BlockResource> {
        for stage in &self.stages {
            if storage {
                // Element i of an array of blocks: `Block[i]`, at binding point N + i.
                let found = stage.storage_blocks.iter().find(|b| {
                    b.atomic_counters.is_none()
                        && (0..b.count).any(|i| match binding {
                            Some(n) => b.gl_binding + i == n,
                            None if b.count == 1 => b.name == name,
                            None => format!("{}{}", b.name, subscripts(i, &b.dims)) == name,
                        })
                });
                if let Some(b) = found {
                    return Some(BlockResource {
                        active_variables: b.active_variables,
                        data_size: b.data_size,
                    });
                }
            } else {
                let found = stage.uniform_blocks.iter().find(|b| match binding {
                    Some(n) => b.name.is_some() && b.gl_binding == n,
                    None => b.name.as_deref() == Some(name),
                });
                if let Some(b) = found {
                    return Some(BlockResource {
                        active_variables: b.members.len() as u32,
                        data_size: b.size,
                    });
                }
            }
        }
        None
    }

    /// The uniform at `location` (`layout(location = N)`), as GL assigns locations: one
    /// per scalar, vector or matrix and per array element, structure members in order.
    /// (GL name of the leaf, element index when it is an array).
    /// `only`: the stage of `active shader program` (a separable program's own uniforms).
    pub fn uniform_at(&self, location: u32, only: Option<Stage>) -> Option<(String, Option<u32>)> {
        for stage in self
            .stages
            .iter()
            .filter(|s| only.is_none_or(|o| o == s.stage))
        {
            for (base, name) in &stage.uniform_locations {
                if location < *base {
                    continue;
                }
                let mut next = *base;
                if let Some(sampler) = stage.samplers.iter().find(|s| &s.name == name) {
                    // An array of samplers: one location per element.
                    if location < next + sampler.count {
                        let element = location - next;
                        return Some((name.clone(), (sampler.count > 1).then_some(element)));
                    }
                    continue;
                }
                let leaves = stage
                    .uniform_blocks
                    .iter()
                    .filter(|b| b.name.is_none())
                    .flat_map(|b| &b.members)
                    .filter(|m| {
                        m.name == *name
                            || m.name.starts_with(&format!("{name}."))
                            || m.name.starts_with(&format!("{name}["))
                    });
                for leaf in leaves {
                    let count = leaf.array.map_or(1, |(len, _)| len);
                    if location < next + count {
                        return Some((leaf.name.clone(), leaf.array.map(|_| location - next)));
                    }
                    next += count;
                }
            }
        }
        None
    }

    pub fn stage(&self, stage: Stage) -> Option<&StageModule> {
        self.stages.iter().find(|s| s.stage == stage)
    }

    pub fn has_capability(&self, cap: spirv::Capability) -> bool {
        self.stages.iter().any(|s| s.capabilities.contains(&cap))
    }

    pub fn vertex_inputs(&self) -> &[VertexInput] {
        self.stage(Stage::Vertex)
            .map(|s| s.vertex_inputs.as_slice())
            .unwrap_or(&[])
    }
}

/// Finds `glslangValidator` on PATH.
pub fn find_glslang() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("glslangValidator"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "glslangValidator not found on PATH; install the package glslang-tools".to_string()
        })
}

/// Writes glslang's default resource limits with `MaxDrawBuffers` lowered, so that
/// `gl_FragData` is an array a device can actually hold.
pub fn write_limits_file(glslang: &Path, dir: &Path) -> Result<PathBuf, String> {
    let out = Command::new(glslang)
        .arg("-c")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", glslang.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let limits: String = text
        .lines()
        .map(|l| {
            if l.starts_with("MaxDrawBuffers ") {
                format!("MaxDrawBuffers {MAX_DRAW_BUFFERS}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let path = dir.join("limits.conf");
    std::fs::write(&path, limits).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// Paths the compiler needs; created once per run.
pub struct Compiler {
    pub glslang: PathBuf,
    pub limits: PathBuf,
    pub dir: PathBuf,
}

impl Compiler {
    /// Compiles and links every stage of `scene`.
    pub fn build(&self, scene: &Scene) -> Result<Program, SceneError> {
        let version = scene.require.glsl_version;
        // (stage, its compilation units: GLSL and the first line of its section)
        let mut sources: Vec<(Stage, Vec<Unit>)> = Vec::new();
        let mut add = |stage: Stage, unit: (String, Option<usize>)| match sources
            .iter_mut()
            .find(|(s, _)| *s == stage)
        {
            Some((_, units)) => units.push(unit),
            None => sources.push((stage, vec![unit])),
        };
        if scene.passthrough_vs {
            let body = "in vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n";
            let version = Some(version.unwrap_or(MIN_VULKAN_GLSL));
            add(Stage::Vertex, (with_version(body, version)?, None));
        }
        for shader in &scene.shaders {
            add(
                shader.stage,
                (
                    with_version(&shader.source, version)?,
                    Some(shader.first_line),
                ),
            );
        }
        // `SPIRV ONLY`: stages with SPIR-V assembly run from it; their GLSL, if any, only
        // tells what GL's linker knows from names (explicit locations and bindings).
        let spirv_of = |stage: Stage| {
            scene
                .spirv
                .iter()
                .find(|s| scene.require.spirv_only && s.stage == stage)
        };
        if scene.require.spirv_only {
            for shader in &scene.spirv {
                if !sources.iter().any(|(s, _)| *s == shader.stage) {
                    sources.push((shader.stage, vec![(String::new(), Some(shader.first_line))]));
                }
            }
        }
        if !sources
            .iter()
            .any(|(s, ..)| matches!(s, Stage::Vertex | Stage::Compute))
        {
            return Err(SceneError::Skip(
                "no vertex shader (fixed-function vertex processing is not supported)".into(),
            ));
        }
        sources.sort_by_key(|(s, ..)| *s);
        // Source fixes over all the compilation units of a stage.
        for (stage, units) in &mut sources {
            let mut texts: Vec<String> = units.iter().map(|(t, _)| t.clone()).collect();
            crate::fixes::per_vertex_sizes(*stage, &mut texts);
            if *stage == Stage::Fragment {
                crate::fixes::frag_coord(&mut texts).map_err(SceneError::Fail)?;
            }
            for ((text, _), fixed) in units.iter_mut().zip(texts) {
                *text = fixed;
            }
        }
        let mut initializers = Vec::new();
        for (_, units) in &mut sources {
            for (source, _) in units.iter_mut() {
                let (stripped, found) =
                    crate::initializers::extract(source).map_err(SceneError::Skip)?;
                *source = stripped;
                for init in found {
                    if !initializers.contains(&init) {
                        initializers.push(init);
                    }
                }
            }
        }

        let mut modules = Vec::new();
        for (stage, units) in &sources {
            let words = match spirv_of(*stage) {
                Some(shader) => self.assemble(shader)?,
                None => self.compile(*stage, units)?,
            };
            let mut module = dr::load_words(&words).map_err(|e| {
                SceneError::Fail(format!(
                    "cannot parse the SPIR-V of the {stage:?} shader: {e}"
                ))
            })?;
            merge_builtin_copies(&mut module);
            if spirv_of(*stage).is_some() {
                vulkan_from_gl_spirv(&mut module)?;
                let values: Vec<(u32, u32)> = scene
                    .specializations
                    .iter()
                    .filter(|(s, ..)| s == stage)
                    .map(|&(_, id, value)| (id, value))
                    .collect();
                specialize(&mut module, &values).map_err(SceneError::Fail)?;
            }
            let explicit = units
                .iter()
                .flat_map(|(source, _)| explicit_location_names(source))
                .collect();
            modules.push((*stage, module, explicit));
        }
        link_locations(&mut modules).map_err(SceneError::Fail)?;
        trim_per_vertex_blocks(&mut modules);
        for (stage, module, _) in &mut modules {
            split_component_arrays(*stage, module);
            split_dynamic_patch_component_stores(*stage, module);
            drop_redundant_block_locations(module);
        }
        let stage_sources: Vec<String> = sources
            .iter()
            .map(|(_, units)| {
                units
                    .iter()
                    .map(|(s, _)| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect();
        let from_spirv: Vec<bool> = modules
            .iter()
            .map(|(stage, ..)| spirv_of(*stage).is_some())
            .collect();
        let mut stages = Vec::new();
        // Named uniform blocks by GL name: one binding for every stage that declares one.
        let mut named_blocks: BTreeMap<String, u32> = BTreeMap::new();
        for (index, (stage, mut module, _)) in modules.into_iter().enumerate() {
            let (uniform_blocks, samplers, storage_blocks) = bind_uniform_blocks(
                &mut module,
                index as u32,
                &mut named_blocks,
                &stage_sources[index],
                from_spirv[index],
            )?;
            flatten_block_arrays(&mut module)?;
            if stage == Stage::Fragment {
                place_frag_data(&mut module);
            }
            let vertex_inputs = if stage == Stage::Vertex {
                let gl_locations = spread_wide_inputs(&mut module);
                let inputs = Types::new(&module).vertex_inputs(&module, &gl_locations);
                split_double_inputs(&mut module)?;
                inputs
            } else {
                Vec::new()
            };
            let info = Types::new(&module);
            let capabilities = module
                .capabilities
                .iter()
                .filter_map(|i| match i.operands.first() {
                    Some(Operand::Capability(c)) => Some(*c),
                    _ => None,
                })
                .collect();
            let xfb = module.execution_modes.iter().any(|i| {
                matches!(
                    i.operands.get(1),
                    Some(Operand::ExecutionMode(spirv::ExecutionMode::Xfb))
                )
            });
            let xfb_varyings = info.xfb_varyings(&module);
            stages.push(StageModule {
                stage,
                uniform_locations: uniform_locations(&stage_sources[index]),
                xfb_varyings,
                words: module.assemble(),
                capabilities,
                uniform_blocks,
                samplers,
                storage_blocks,
                vertex_inputs,
                xfb,
            });
        }
        Ok(Program {
            stages,
            initializers,
        })
    }

    /// Assembles a `[… shader spirv]` section with `spirv-as`, for OpenGL as piglit's
    /// SPIR-V is.
    fn assemble(&self, shader: &crate::scene::Shader) -> Result<Vec<u32>, SceneError> {
        let name = shader.stage.glslang_name();
        let src = self.dir.join(format!("shader.{name}.spvasm"));
        let spv = self.dir.join(format!("shader.{name}.spv"));
        std::fs::write(&src, &shader.source)
            .map_err(|e| SceneError::Fail(format!("cannot write {}: {e}", src.display())))?;
        let _ = std::fs::remove_file(&spv);
        let out = Command::new("spirv-as")
            .args(["--target-env", "opengl4.5"])
            .arg(&src)
            .arg("-o")
            .arg(&spv)
            .output()
            .map_err(|e| {
                SceneError::Fail(format!(
                    "cannot run spirv-as (install the package spirv-tools): {e}"
                ))
            })?;
        if !out.status.success() {
            return Err(SceneError::Fail(format!(
                "SPIR-V assembly error in the {} shader (its section starts at line {}): {}",
                stage_word(shader.stage),
                shader.first_line,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let bytes = std::fs::read(&spv)
            .map_err(|e| SceneError::Fail(format!("cannot read {}: {e}", spv.display())))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Compiles one stage; several compilation units are linked by glslang (`-l`), as a
    /// GL linker links several shader objects of one stage.
    fn compile(&self, stage: Stage, units: &[Unit]) -> Result<Vec<u32>, SceneError> {
        let name = stage.glslang_name();
        let spv = self.dir.join(format!("shader.{name}.spv"));
        let mut srcs = Vec::new();
        for (i, (source, _)) in units.iter().enumerate() {
            let src = if i == 0 {
                self.dir.join(format!("shader.{name}"))
            } else {
                self.dir.join(format!("shader{i}.{name}"))
            };
            std::fs::write(&src, source)
                .map_err(|e| SceneError::Fail(format!("cannot write {}: {e}", src.display())))?;
            srcs.push(src);
        }
        let src = srcs[0].clone();
        let first_line = units[0].1;
        let _ = std::fs::remove_file(&spv);
        let mut command = Command::new(&self.glslang);
        command
            .args(["-V", "-R", "--aml", "--amb", "-S", name])
            .arg(&self.limits);
        if srcs.len() > 1 {
            command.arg("-l");
        }
        let out = command
            .args(&srcs)
            .arg("-o")
            .arg(&spv)
            .output()
            .map_err(|e| SceneError::Fail(format!("cannot run glslangValidator: {e}")))?;
        if !out.status.success() {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            let src_name = src.display().to_string();
            let message: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| {
                    !l.is_empty()
                        && !srcs.iter().any(|s| s.display().to_string() == *l)
                        && *l != self.limits.display().to_string()
                })
                .map(|l| l.replace(&src_name, name))
                .collect();
            let section = first_line
                .map(|l| format!(" (its section starts at line {l})"))
                .unwrap_or_default();
            return Err(SceneError::Fail(format!(
                "GLSL error in the {} shader{section}: {}",
                stage_word(stage),
                message.join(" | ")
            )));
        }
        let bytes = std::fs::read(&spv)
            .map_err(|e| SceneError::Fail(format!("cannot read {}: {e}", spv.display())))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

fn stage_word(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vertex",
        Stage::TessControl => "tessellation control",
        Stage::TessEval => "tessellation evaluation",
        Stage::Geometry => "geometry",
        Stage::Fragment => "fragment",
        Stage::Compute => "compute",
    }
}

/// Adds `#version` from `[require]` when the source has none; glslang cannot target Vulkan
/// from desktop GLSL below 1.40, which makes such scenes a SKIP rather than a FAIL.
///
/// One exception: a unit declaring GLSL 1.10-1.30 in a program that `[require]`s GLSL 1.50
/// or later is compiled as 1.40. GL links units of different versions from GLSL 1.50 on
/// (GLSL 1.50, 3.3), and 1.40 only removed the fixed-function built-ins, which glslang
/// then reports by name instead of compiling something else.
fn with_version(source: &str, version: Option<u32>) -> Result<String, SceneError> {
    let declared = source.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("#version").map(|v| v.trim().to_string())
    });
    let (number, es) = match &declared {
        Some(v) => {
            let mut words = v.split_whitespace();
            let n = words
                .next()
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(0);
            (n, words.next() == Some("es"))
        }
        None => (version.unwrap_or(110), false),
    };
    let linked_with_newer = version.is_some_and(|v| v >= 150) && declared.is_some();
    if !es && number < MIN_VULKAN_GLSL && !linked_with_newer {
        return Err(SceneError::Skip(format!(
            "GLSL {number} is below 1.40, the lowest desktop version glslang compiles for Vulkan"
        )));
    }
    let versioned = match declared {
        Some(_) if !es && number < MIN_VULKAN_GLSL => source
            .lines()
            .map(|l| match l.trim_start().starts_with("#version") {
                true => format!("#version {MIN_VULKAN_GLSL}"),
                false => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(_) => source.to_string(),
        None => format!("#version {number}\n#line 1\n{source}"),
    };
    Ok(crate::fixes::apply(&versioned).0)
}

/// Names declared with an explicit `layout(... location ...)` in GLSL: the linker keeps those.
/// For interface blocks this is the block name, as GL matches blocks by block name.
fn explicit_location_names(source: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut rest = source;
    while let Some(pos) = rest.find("layout") {
        rest = &rest[pos + "layout".len()..];
        let Some(open) = rest.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(close) = open.find(')') else { break };
        let qualifiers = &open[..close];
        let decl_end = open[close..]
            .find(';')
            .map(|e| close + e)
            .unwrap_or(open.len());
        let decl = &open[close + 1..decl_end];
        if !qualifiers
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "location")
        {
            continue;
        }
        let head = decl.split('{').next().unwrap_or("");
        let name_source = if decl.contains('{') { head } else { decl };
        let without_arrays: String = strip_brackets(name_source);
        if let Some(name) = without_arrays
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .rfind(|w| !w.is_empty())
        {
            names.insert(name.to_string());
        }
    }
    names
}

/// What a GL SPIR-V module (ARB_gl_spirv) needs to be a Vulkan one, as glslang makes it
/// from the same GLSL: a fragment shader's `OriginUpperLeft` (GL's lower-left origin is
/// the layer's to give, as for GLSL), `VertexIndex` and `InstanceIndex` for GL's
/// `VertexId` and `InstanceId` (the runner draws from base instance 0). Default-block
/// uniforms (non-opaque `UniformConstant` variables) have no Vulkan equivalent here: SKIP.
fn vulkan_from_gl_spirv(module: &mut dr::Module) -> Result<(), SceneError> {
    for inst in &mut module.annotations {
        for op in &mut inst.operands {
            match op {
                Operand::BuiltIn(b @ spirv::BuiltIn::VertexId) => *b = spirv::BuiltIn::VertexIndex,
                Operand::BuiltIn(b @ spirv::BuiltIn::InstanceId) => {
                    *b = spirv::BuiltIn::InstanceIndex
                }
                _ => {}
            }
        }
    }
    for inst in &mut module.execution_modes {
        if inst.operands.get(1)
            == Some(&Operand::ExecutionMode(
                spirv::ExecutionMode::OriginLowerLeft,
            ))
        {
            inst.operands[1] = Operand::ExecutionMode(spirv::ExecutionMode::OriginUpperLeft);
        }
    }
    let types = Types::new(module);
    let loose = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::Variable
            && i.operands.first() == Some(&Operand::StorageClass(StorageClass::UniformConstant))
            && i.result_type
                .and_then(|p| types.pointee(p))
                .and_then(|t| types.def(t))
                .is_some_and(|t| {
                    !matches!(
                        t.class.opcode,
                        Op::TypeSampledImage | Op::TypeImage | Op::TypeSampler
                    )
                })
    });
    if loose {
        return Err(SceneError::Skip(
            "GL SPIR-V uniforms outside blocks (UniformConstant with a Location) are not \
             mapped to Vulkan"
                .into(),
        ));
    }
    Ok(())
}

/// `[… shader specializations]`: each `SpecId` constant gets its value, as
/// glSpecializeShader gives it (booleans: nonzero is true).
fn specialize(module: &mut dr::Module, values: &[(u32, u32)]) -> Result<(), String> {
    let types = Types::new(module);
    for &(spec_id, value) in values {
        let target = module.annotations.iter().find_map(|i| {
            (i.class.opcode == Op::Decorate
                && i.operands.get(1) == Some(&Operand::Decoration(Decoration::SpecId))
                && i.operands.get(2) == Some(&Operand::LiteralBit32(spec_id)))
            .then(|| i.operands.first().and_then(id))
            .flatten()
        });
        let constant = module
            .types_global_values
            .iter_mut()
            .find(|i| target.is_some() && i.result_id == target)
            .ok_or_else(|| format!("no specialization constant with SpecId {spec_id}"))?;
        match constant.class.opcode {
            Op::SpecConstant
                if types
                    .def(constant.result_type.unwrap_or(0))
                    .is_some_and(|t| t.operands.first() == Some(&Operand::LiteralBit32(32))) =>
            {
                constant.operands = vec![Operand::LiteralBit32(value)];
            }
            Op::SpecConstantTrue | Op::SpecConstantFalse => {
                *constant = Instruction::new(
                    if value != 0 {
                        Op::SpecConstantTrue
                    } else {
                        Op::SpecConstantFalse
                    },
                    constant.result_type,
                    constant.result_id,
                    Vec::new(),
                );
            }
            _ => {
                return Err(format!(
                "SpecId {spec_id}: only 32-bit and boolean specialization constants are supported"
            ))
            }
        }
    }
    Ok(())
}

/// Vulkan takes one-dimensional arrays of blocks only (VUID-StandaloneSpirv-Uniform-06807):
/// an array of arrays of blocks becomes one array of all its elements, row-major (GL's
/// order of their binding points), and each access chain into it indexes that array with
/// the flattened index.
fn flatten_block_arrays(module: &mut dr::Module) -> Result<(), SceneError> {
    let types = Types::new(module);
    // (variable, its new pointer type's storage class, block type, dimensions)
    let mut found = Vec::new();
    for inst in &module.types_global_values {
        let (Some(var), Some(ptr)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        let Some(Operand::StorageClass(storage)) = inst.operands.first() else {
            continue;
        };
        if inst.class.opcode != Op::Variable {
            continue;
        }
        let mut dims = Vec::new();
        let mut elem = types.pointee(ptr).unwrap_or(0);
        while let Some((len, inner)) = types.array(elem) {
            dims.push(len);
            elem = inner;
        }
        let block = types.decoration(elem, Decoration::Block).is_some()
            || types.decoration(elem, Decoration::BufferBlock).is_some();
        if dims.len() > 1 && block {
            found.push((var, *storage, elem, dims));
        }
    }
    if found.is_empty() {
        return Ok(());
    }
    let next_id = std::cell::Cell::new(module.header.as_ref().map_or(1, |h| h.bound));
    let fresh = || {
        let id = next_id.get();
        next_id.set(id + 1);
        id
    };
    // The module's 32-bit uint type (SPIR-V allows one), else a new one.
    let existing = module.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::TypeInt
            && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)])
        .then_some(i.result_id)
        .flatten()
    });
    let uint = existing.unwrap_or_else(fresh);
    let mut new_types = Vec::new();
    if existing.is_none() {
        new_types.push(Instruction::new(
            Op::TypeInt,
            None,
            Some(uint),
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        ));
    }
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut constant = |value: u32, new_types: &mut Vec<Instruction>| {
        *constants.entry(value).or_insert_with(|| {
            let id = fresh();
            new_types.push(Instruction::new(
                Op::Constant,
                Some(uint),
                Some(id),
                vec![Operand::LiteralBit32(value)],
            ));
            id
        })
    };
    // (variable, dimensions, multiplier constants per dimension)
    let mut rewrites = Vec::new();
    for (var, storage, block, dims) in &found {
        let total = constant(dims.iter().product(), &mut new_types);
        let array = fresh();
        let pointer = fresh();
        new_types.push(Instruction::new(
            Op::TypeArray,
            None,
            Some(array),
            vec![Operand::IdRef(*block), Operand::IdRef(total)],
        ));
        new_types.push(Instruction::new(
            Op::TypePointer,
            None,
            Some(pointer),
            vec![Operand::StorageClass(*storage), Operand::IdRef(array)],
        ));
        // Element [i0][i1]…[ik] is at i0·(d1·…·dk) + … + ik.
        let strides: Vec<u32> = (0..dims.len())
            .map(|k| constant(dims[k + 1..].iter().product(), &mut new_types))
            .collect();
        rewrites.push((*var, pointer, dims.len(), strides));
    }
    // The new types and constants go before the first variable that uses them.
    let first = module
        .types_global_values
        .iter()
        .position(|i| found.iter().any(|f| Some(f.0) == i.result_id))
        .unwrap_or(module.types_global_values.len());
    for (var, pointer, ..) in &rewrites {
        if let Some(inst) = module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(*var))
        {
            inst.result_type = Some(*pointer);
        }
    }
    module.types_global_values.splice(first..first, new_types);
    for function in &mut module.functions {
        for block in &mut function.blocks {
            let mut out = Vec::with_capacity(block.instructions.len());
            for mut inst in std::mem::take(&mut block.instructions) {
                let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
                let rewrite = rewrites
                    .iter()
                    .find(|r| chain && inst.operands.first() == Some(&Operand::IdRef(r.0)));
                if let Some((_, _, depth, strides)) = rewrite {
                    let indices: Vec<u32> = inst.operands[1..].iter().filter_map(id).collect();
                    if indices.len() < *depth {
                        return Err(SceneError::Skip(
                            "an access to part of an array of arrays of blocks is not supported"
                                .into(),
                        ));
                    }
                    let mut flat = None;
                    for (index, stride) in indices[..*depth].iter().zip(strides) {
                        let term = fresh();
                        out.push(Instruction::new(
                            Op::IMul,
                            Some(uint),
                            Some(term),
                            vec![Operand::IdRef(*index), Operand::IdRef(*stride)],
                        ));
                        flat = Some(match flat {
                            None => term,
                            Some(sum) => {
                                let next = fresh();
                                out.push(Instruction::new(
                                    Op::IAdd,
                                    Some(uint),
                                    Some(next),
                                    vec![Operand::IdRef(sum), Operand::IdRef(term)],
                                ));
                                next
                            }
                        });
                    }
                    let rest = inst.operands.split_off(1 + depth);
                    inst.operands.truncate(1);
                    inst.operands.extend(flat.map(Operand::IdRef));
                    inst.operands.extend(rest);
                }
                out.push(inst);
            }
            block.instructions = out;
        }
    }
    if let Some(header) = module.header.as_mut() {
        header.bound = next_id.get();
    }
    Ok(())
}

/// GL's subscripts of element `flat` (row-major) of an array of dimensions `dims`:
/// `[1][0]` for 2 of [2][2].
fn subscripts(flat: u32, dims: &[u32]) -> String {
    let mut rest = flat;
    let mut out: Vec<String> = dims
        .iter()
        .rev()
        .map(|&len| {
            let i = rest % len;
            rest /= len;
            format!("[{i}]")
        })
        .collect();
    out.reverse();
    out.concat()
}

/// A failure of linking only: the runner's (`link error: …`), or glslang's where every
/// `ERROR:` is a `Linking … stage` one (no compile error, which fails a GL test before it
/// links).
pub fn is_link_error(message: &str) -> bool {
    if message.starts_with("link error: ") {
        return true;
    }
    let errors: Vec<&str> = message
        .split(" | ")
        .flat_map(|part| part.split("ERROR: ").skip(1))
        .collect();
    !errors.is_empty() && errors.iter().all(|e| e.starts_with("Linking "))
}

/// The uniforms declared with `layout(… location = N …) uniform TYPE NAME` (TYPE may be
/// an inline `struct { … }`): (N, NAME).
fn uniform_locations(source: &str) -> Vec<(u32, String)> {
    explicit_uniforms(source)
        .into_iter()
        .filter_map(|(location, _, name)| Some((location?, name)))
        .collect()
}

/// The uniforms declared with `layout(…) uniform TYPE NAME` (TYPE may be an inline
/// `struct { … }`): (`location = N`, `binding = N`, NAME).
fn explicit_uniforms(source: &str) -> Vec<(Option<u32>, Option<u32>, String)> {
    // Tokens: identifiers and numbers, and single punctuation characters; no comments.
    let mut text = String::new();
    for line in source.lines() {
        text.push_str(line.split("//").next().unwrap_or(""));
        text.push('\n');
    }
    while let Some(start) = text.find("/*") {
        let end = text[start..]
            .find("*/")
            .map_or(text.len(), |e| start + e + 2);
        text.replace_range(start..end, " ");
    }
    let mut tokens: Vec<&str> = Vec::new();
    let mut at = 0;
    let bytes = text.as_bytes();
    while at < bytes.len() {
        let c = bytes[at] as char;
        if c.is_whitespace() {
            at += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let end = text[at..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(text.len(), |e| at + e);
            tokens.push(&text[at..end]);
            at = end;
        } else {
            let len = c.len_utf8();
            tokens.push(&text[at..at + len]);
            at += len;
        }
    }
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] != "layout" || tokens.get(i + 1) != Some(&"(") {
            i += 1;
            continue;
        }
        let Some(close) = tokens[i..].iter().position(|t| *t == ")").map(|p| i + p) else {
            break;
        };
        let qualifier = |q: &str| {
            tokens[i + 2..close]
                .windows(3)
                .find(|w| w[0] == q && w[1] == "=")
                .and_then(|w| w[2].parse::<u32>().ok())
        };
        let (location, binding) = (qualifier("location"), qualifier("binding"));
        i = close + 1;
        // Further qualifiers up to `uniform`.
        let mut j = i;
        while j < tokens.len()
            && !matches!(tokens[j], "uniform" | "in" | "out" | "buffer" | ";" | "{")
        {
            j += 1;
        }
        if tokens.get(j) != Some(&"uniform") {
            continue;
        }
        j += 1;
        // Precision qualifiers, then the type.
        while matches!(tokens.get(j), Some(&("highp" | "mediump" | "lowp"))) {
            j += 1;
        }
        if tokens.get(j) == Some(&"struct") {
            let Some(open) = tokens[j..].iter().position(|t| *t == "{").map(|p| j + p) else {
                continue;
            };
            let mut depth = 0;
            j = open;
            while j < tokens.len() {
                match tokens[j] {
                    "{" => depth += 1,
                    "}" => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        j += 1;
        if let Some(name) = tokens.get(j) {
            if name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                found.push((location, binding, name.to_string()));
            }
        }
        i = j;
    }
    found
}

fn strip_brackets(s: &str) -> String {
    let mut depth = 0;
    s.chars()
        .filter(|c| {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    return false;
                }
                _ => {}
            }
            depth == 0
        })
        .collect()
}

/// A decoration and its literal operands.
type Decorations = Vec<(Decoration, Vec<u32>)>;

/// Lookup tables over one module's types, names and decorations.
struct Types {
    defs: HashMap<u32, Instruction>,
    names: HashMap<u32, String>,
    member_names: HashMap<(u32, u32), String>,
    decorations: HashMap<u32, Decorations>,
    member_decorations: HashMap<(u32, u32), Decorations>,
}

fn literal(op: &Operand) -> Option<u32> {
    match op {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}

fn id(op: &Operand) -> Option<u32> {
    match op {
        Operand::IdRef(v) => Some(*v),
        _ => None,
    }
}

impl Types {
    fn new(module: &dr::Module) -> Self {
        let mut t = Types {
            defs: HashMap::new(),
            names: HashMap::new(),
            member_names: HashMap::new(),
            decorations: HashMap::new(),
            member_decorations: HashMap::new(),
        };
        for inst in &module.types_global_values {
            if let Some(rid) = inst.result_id {
                t.defs.insert(rid, inst.clone());
            }
        }
        for inst in &module.debug_names {
            match (inst.class.opcode, inst.operands.as_slice()) {
                (Op::Name, [Operand::IdRef(target), Operand::LiteralString(s)]) => {
                    t.names.insert(*target, s.clone());
                }
                (
                    Op::MemberName,
                    [Operand::IdRef(target), Operand::LiteralBit32(m), Operand::LiteralString(s)],
                ) => {
                    t.member_names.insert((*target, *m), s.clone());
                }
                _ => {}
            }
        }
        for inst in &module.annotations {
            match (inst.class.opcode, inst.operands.as_slice()) {
                (Op::Decorate, [Operand::IdRef(target), Operand::Decoration(d), rest @ ..]) => {
                    t.decorations
                        .entry(*target)
                        .or_default()
                        .push((*d, rest.iter().filter_map(literal).collect()));
                }
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(target), Operand::LiteralBit32(m), Operand::Decoration(d), rest @ ..],
                ) => {
                    t.member_decorations
                        .entry((*target, *m))
                        .or_default()
                        .push((*d, rest.iter().filter_map(literal).collect()));
                }
                _ => {}
            }
        }
        t
    }

    fn decoration(&self, target: u32, d: Decoration) -> Option<&[u32]> {
        self.decorations
            .get(&target)?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| v.as_slice())
    }

    /// The literal operands of a member decoration (empty for `BuiltIn`, `RowMajor`, ...).
    fn member_decoration(&self, ty: u32, member: u32, d: Decoration) -> Option<&[u32]> {
        self.member_decorations
            .get(&(ty, member))?
            .iter()
            .find(|(x, _)| *x == d)
            .map(|(_, v)| v.as_slice())
    }

    fn member_literal(&self, ty: u32, member: u32, d: Decoration) -> Option<u32> {
        self.member_decoration(ty, member, d)
            .and_then(|v| v.first().copied())
    }

    fn def(&self, ty: u32) -> Option<&Instruction> {
        self.defs.get(&ty)
    }

    fn pointee(&self, ptr: u32) -> Option<u32> {
        let inst = self.def(ptr)?;
        (inst.class.opcode == Op::TypePointer).then(|| inst.operands.get(1).and_then(id))?
    }

    fn constant(&self, cid: u32) -> Option<u32> {
        let inst = self.def(cid)?;
        (inst.class.opcode == Op::Constant).then(|| inst.operands.first().and_then(literal))?
    }

    /// (length, element type) of an array type.
    fn array(&self, ty: u32) -> Option<(u32, u32)> {
        let inst = self.def(ty)?;
        if inst.class.opcode != Op::TypeArray {
            return None;
        }
        let elem = inst.operands.first().and_then(id)?;
        let len = self.constant(inst.operands.get(1).and_then(id)?)?;
        Some((len, elem))
    }

    /// Interface Locations a value of `ty` occupies (Vulkan "Location Assignment").
    fn slots(&self, ty: u32) -> u32 {
        let Some(inst) = self.def(ty) else { return 1 };
        match inst.class.opcode {
            Op::TypeVector => {
                let count = inst.operands.get(1).and_then(literal).unwrap_or(1);
                let comp = inst.operands.first().and_then(id).unwrap_or(0);
                if self.scalar_width(comp) == 64 && count > 2 {
                    2
                } else {
                    1
                }
            }
            Op::TypeMatrix => {
                let column = inst.operands.first().and_then(id).unwrap_or(0);
                inst.operands.get(1).and_then(literal).unwrap_or(1) * self.slots(column)
            }
            Op::TypeArray => self
                .array(ty)
                .map(|(len, elem)| len * self.slots(elem))
                .unwrap_or(1),
            Op::TypeStruct => inst
                .operands
                .iter()
                .filter_map(id)
                .map(|m| self.slots(m))
                .sum(),
            _ => 1,
        }
    }

    fn scalar_width(&self, ty: u32) -> u32 {
        self.def(ty)
            .and_then(|i| i.operands.first().and_then(literal))
            .unwrap_or(32)
    }

    fn scalar(&self, ty: u32) -> Option<Scalar> {
        let inst = self.def(ty)?;
        Some(match inst.class.opcode {
            Op::TypeFloat if self.scalar_width(ty) == 64 => Scalar::Double,
            Op::TypeFloat => Scalar::Float,
            Op::TypeInt if inst.operands.get(1).and_then(literal) == Some(1) => Scalar::Int,
            Op::TypeInt => Scalar::Uint,
            Op::TypeBool => Scalar::Bool,
            _ => return None,
        })
    }

    /// (scalar, columns, rows) of a scalar, vector or matrix type.
    fn shape(&self, ty: u32) -> Option<(Scalar, u32, u32)> {
        let inst = self.def(ty)?;
        match inst.class.opcode {
            Op::TypeVector => {
                let (s, _, _) = self.shape(inst.operands.first().and_then(id)?)?;
                Some((s, 1, inst.operands.get(1).and_then(literal)?))
            }
            Op::TypeMatrix => {
                let (s, _, rows) = self.shape(inst.operands.first().and_then(id)?)?;
                Some((s, inst.operands.get(1).and_then(literal)?, rows))
            }
            _ => Some((self.scalar(ty)?, 1, 1)),
        }
    }

    fn is_builtin(&self, var: u32, ty: u32) -> bool {
        if self.decoration(var, Decoration::BuiltIn).is_some() {
            return true;
        }
        // gl_PerVertex blocks (possibly arrayed) carry BuiltIn on their members.
        let ty = self.array(ty).map(|(_, e)| e).unwrap_or(ty);
        self.member_decorations.keys().any(|(t, m)| {
            *t == ty
                && self
                    .member_decoration(ty, *m, Decoration::BuiltIn)
                    .is_some()
        })
    }

    /// Input/Output variables that are not built-ins: (var id, storage, pointee type).
    fn interface_variables(&self, module: &dr::Module) -> Vec<(u32, StorageClass, u32)> {
        module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| {
                let storage = match i.operands.first() {
                    Some(Operand::StorageClass(
                        s @ (StorageClass::Input | StorageClass::Output),
                    )) => *s,
                    _ => return None,
                };
                let var = i.result_id?;
                let ty = self.pointee(i.result_type?)?;
                (!self.is_builtin(var, ty)).then_some((var, storage, ty))
            })
            .collect()
    }

    /// GL's count of transform-feedback varyings: every captured output (with `Offset`),
    /// structs and blocks expanded to their members and arrays of them to their elements;
    /// a scalar, vector or matrix, or an array of them, is one varying.
    fn xfb_varyings(&self, module: &dr::Module) -> u32 {
        fn leaves(t: &Types, ty: u32) -> u32 {
            match t.def(ty).map(|i| i.class.opcode) {
                Some(Op::TypeStruct) => {
                    let members: Vec<u32> = t
                        .def(ty)
                        .map(|i| i.operands.iter().filter_map(id).collect())
                        .unwrap_or_default();
                    members.iter().map(|&m| leaves(t, m)).sum()
                }
                Some(Op::TypeArray) => match t.array(ty) {
                    Some((len, elem))
                        if matches!(
                            t.def(elem).map(|i| i.class.opcode),
                            Some(Op::TypeStruct | Op::TypeArray)
                        ) =>
                    {
                        len * leaves(t, elem)
                    }
                    _ => 1,
                },
                _ => 1,
            }
        }
        let mut count = 0;
        for inst in module
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
        {
            if inst.operands.first() != Some(&Operand::StorageClass(StorageClass::Output)) {
                continue;
            }
            let (Some(var), Some(ptr)) = (inst.result_id, inst.result_type) else {
                continue;
            };
            let ty = self.pointee(ptr).unwrap_or(0);
            if self.decoration(var, Decoration::Offset).is_some() {
                count += leaves(self, ty);
                continue;
            }
            // A block whose members carry the offsets, possibly an array of blocks.
            let mut copies = 1;
            let mut block = ty;
            while let Some((len, elem)) = self.array(block) {
                copies *= len;
                block = elem;
            }
            let members: Vec<u32> = match self.def(block) {
                Some(i) if i.class.opcode == Op::TypeStruct => {
                    i.operands.iter().filter_map(id).collect()
                }
                _ => continue,
            };
            let captured: u32 = members
                .iter()
                .enumerate()
                .filter(|(m, _)| {
                    self.member_decoration(block, *m as u32, Decoration::Offset)
                        .is_some()
                        && self
                            .member_decoration(block, *m as u32, Decoration::BuiltIn)
                            .is_none()
                })
                .map(|(_, &mty)| leaves(self, mty))
                .sum();
            count += copies * captured;
        }
        count
    }

    /// `gl_locations`: GL's location of the inputs that `spread_wide_inputs` moved.
    fn vertex_inputs(
        &self,
        module: &dr::Module,
        gl_locations: &HashMap<u32, u32>,
    ) -> Vec<VertexInput> {
        self.interface_variables(module)
            .into_iter()
            .filter(|(_, s, _)| *s == StorageClass::Input)
            .filter_map(|(var, _, ty)| {
                let (elements, ty) = self.array(ty).unwrap_or((1, ty));
                let (scalar, columns, rows) = self.shape(ty)?;
                let vk_location = *self.decoration(var, Decoration::Location)?.first()?;
                Some(VertexInput {
                    elements,
                    slots: self.slots(ty),
                    name: self.names.get(&var).cloned().unwrap_or_default(),
                    location: gl_locations.get(&var).copied().unwrap_or(vk_location),
                    vk_location,
                    scalar,
                    components: if columns == 1 { rows } else { 0 },
                })
            })
            .collect()
    }
}

/// Whether a stage's variables of this storage class are per-vertex arrays whose outer
/// dimension does not count towards Locations.
fn arrayed(stage: Stage, storage: StorageClass) -> bool {
    matches!(
        (stage, storage),
        (Stage::TessControl, _)
            | (Stage::TessEval, StorageClass::Input)
            | (Stage::Geometry, StorageClass::Input)
    )
}

/// Gives every stage-to-stage interface variable the same Location in every stage, by name,
/// as a GL linker matches them. Vertex inputs and fragment outputs face the API and keep
/// glslang's Locations; explicit `layout(location=)` variables keep theirs.
fn link_locations(modules: &mut [(Stage, dr::Module, HashSet<String>)]) -> Result<(), String> {
    struct Var {
        module: usize,
        /// The interface between module `iface - 1` and module `iface`: inputs of module
        /// i are on interface i, its outputs on i + 1. Each has its own locations, as a
        /// GL linker assigns them per pair of adjacent stages.
        iface: usize,
        id: u32,
        name: String,
        slots: u32,
        location: Option<u32>,
        explicit: bool,
        /// The type (less a per-vertex array), as GL compares an output and the input
        /// of the same name.
        signature: String,
        output: bool,
    }
    let mut vars = Vec::new();
    for (index, (stage, module, explicit)) in modules.iter().enumerate() {
        let types = Types::new(module);
        for (var, storage, ty) in types.interface_variables(module) {
            let api_facing = (*stage == Stage::Vertex && storage == StorageClass::Input)
                || (*stage == Stage::Fragment && storage == StorageClass::Output);
            if api_facing {
                continue;
            }
            let per_vertex =
                arrayed(*stage, storage) && types.decoration(var, Decoration::Patch).is_none();
            let ty = if per_vertex {
                types.array(ty).map(|(_, e)| e).unwrap_or(ty)
            } else {
                ty
            };
            // Interface blocks match by block name, other variables by variable name.
            let name = if types.decoration(ty, Decoration::Block).is_some() {
                types.names.get(&ty)
            } else {
                types.names.get(&var)
            };
            let Some(name) = name.cloned().filter(|n| !n.is_empty()) else {
                continue;
            };
            let location = types
                .decoration(var, Decoration::Location)
                .and_then(|v| v.first().copied());
            vars.push(Var {
                module: index,
                iface: if storage == StorageClass::Input {
                    index
                } else {
                    index + 1
                },
                id: var,
                explicit: explicit.contains(&name),
                name,
                slots: types.slots(ty),
                location,
                signature: type_signature(&types, ty),
                output: storage == StorageClass::Output,
            });
        }
    }
    // GL's link error: an output and the next stage's input of one name with other types.
    for out in vars.iter().filter(|v| v.output) {
        if let Some(input) = vars
            .iter()
            .find(|v| !v.output && v.iface == out.iface && v.name == out.name)
        {
            if input.signature != out.signature {
                return Err(format!(
                    "link error: the {} shader's output `{}` is a {}, the {} shader's input a {}",
                    stage_word(modules[out.module].0),
                    out.name,
                    out.signature,
                    stage_word(modules[input.module].0),
                    input.signature
                ));
            }
        }
    }

    // [start, end) ranges taken, per interface
    let mut used: BTreeMap<usize, Vec<(u32, u32)>> = BTreeMap::new();
    let mut table: BTreeMap<(usize, String), u32> = BTreeMap::new();
    for v in vars.iter().filter(|v| v.explicit) {
        if let Some(loc) = v.location {
            table.entry((v.iface, v.name.clone())).or_insert(loc);
            used.entry(v.iface).or_default().push((loc, loc + v.slots));
        }
    }
    let mut order: Vec<(usize, &str)> = Vec::new();
    for v in &vars {
        let key = (v.iface, v.name.as_str());
        if !table.contains_key(&(v.iface, v.name.clone())) && !order.contains(&key) {
            order.push(key);
        }
    }
    for (iface, name) in order {
        let slots = vars
            .iter()
            .filter(|v| v.iface == iface && v.name == name)
            .map(|v| v.slots)
            .max()
            .unwrap_or(1);
        let used = used.entry(iface).or_default();
        let mut loc = 0;
        while let Some(&(_, end)) = used.iter().find(|(s, e)| loc < *e && *s < loc + slots) {
            loc = end;
        }
        used.push((loc, loc + slots));
        table.insert((iface, name.to_string()), loc);
    }
    for v in &vars {
        let loc = table[&(v.iface, v.name.clone())];
        if v.location != Some(loc) {
            set_decoration(&mut modules[v.module].1, v.id, Decoration::Location, loc);
        }
    }
    Ok(())
}

/// glslang's link of several compilation units gives each unit's `gl_FragColor` a variable
/// of its own (all at Location 0, which SPIR-V rejects); GL has one. Input and output
/// variables of one `gl_` name and type become the first of them.
fn merge_builtin_copies(module: &mut dr::Module) {
    let types = Types::new(module);
    let mut first: HashMap<(String, u32), u32> = HashMap::new();
    let mut copies: HashMap<u32, u32> = HashMap::new();
    for inst in &module.types_global_values {
        let (Some(var), Some(ty)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        if inst.class.opcode != Op::Variable
            || !matches!(
                inst.operands.first(),
                Some(Operand::StorageClass(
                    StorageClass::Input | StorageClass::Output
                ))
            )
        {
            continue;
        }
        let Some(name) = types.names.get(&var).filter(|n| n.starts_with("gl_")) else {
            continue;
        };
        match first.get(&(name.clone(), ty)) {
            Some(&kept) => {
                copies.insert(var, kept);
            }
            None => {
                first.insert((name.clone(), ty), var);
            }
        }
    }
    if copies.is_empty() {
        return;
    }
    let is_copy =
        |op: Option<&Operand>| matches!(op, Some(Operand::IdRef(v)) if copies.contains_key(v));
    module
        .types_global_values
        .retain(|i| !i.result_id.is_some_and(|v| copies.contains_key(&v)));
    module.annotations.retain(|i| !is_copy(i.operands.first()));
    module.debug_names.retain(|i| !is_copy(i.operands.first()));
    for entry in &mut module.entry_points {
        entry.operands.retain(|o| !is_copy(Some(o)));
    }
    for inst in module
        .functions
        .iter_mut()
        .flat_map(|f| &mut f.blocks)
        .flat_map(|b| &mut b.instructions)
    {
        for op in &mut inst.operands {
            if let Operand::IdRef(v) = op {
                if let Some(&kept) = copies.get(v) {
                    *v = kept;
                }
            }
        }
    }
}

/// Vulkan takes `Component` only on a scalar or vector or an array of them
/// (VUID-StandaloneSpirv-Component-04924; spirv-val counts a per-vertex array as one
/// too), and glslang puts it on per-vertex arrays of arrays (`layout(component = 3) in
/// float b[][6]` in a geometry or tessellation shader). Such a variable becomes one
/// per-vertex variable per element of its inner array, at the Location and Component that
/// element had. Its accesses must index the inner array with a constant or not at all
/// (`b[i]` is loaded or stored element by element); otherwise it is left as it is.
fn split_component_arrays(stage: Stage, module: &mut dr::Module) {
    let types = Types::new(module);
    let candidates: Vec<(u32, StorageClass, u32, u32)> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| {
            let storage = match i.operands.first() {
                Some(Operand::StorageClass(s @ (StorageClass::Input | StorageClass::Output))) => *s,
                _ => return None,
            };
            let var = i.result_id?;
            let per_vertex =
                arrayed(stage, storage) && types.decoration(var, Decoration::Patch).is_none();
            types.decoration(var, Decoration::Component)?;
            let (_, inner) = types.array(types.pointee(i.result_type?)?)?;
            let (_, element) = types.array(inner)?;
            (per_vertex && types.shape(element).is_some()).then_some((var, storage, inner, element))
        })
        .collect();
    for (var, storage, inner, element) in candidates {
        split_component_array(module, var, storage, inner, element);
    }
}

fn split_component_array(
    module: &mut dr::Module,
    var: u32,
    storage: StorageClass,
    inner: u32,
    element: u32,
) {
    let types = Types::new(module);
    let Some((length, _)) = types.array(inner) else {
        return;
    };
    let (Some(location), Some(outer)) = (
        types
            .decoration(var, Decoration::Location)
            .and_then(|v| v.first().copied()),
        module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(var))
            .and_then(|i| types.pointee(i.result_type?))
            .and_then(|ptr| types.def(ptr))
            .and_then(|a| a.operands.get(1).and_then(id)),
    ) else {
        return;
    };
    let code = || {
        module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
    };
    let is_chain =
        |i: &Instruction| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
    // Chains to a vertex's inner array (`b[i]`): (pointer, vertex index).
    let mut rows: HashMap<u32, u32> = HashMap::new();
    for inst in code() {
        if !inst.operands.iter().any(|o| id(o) == Some(var)) {
            continue;
        }
        if !is_chain(inst) || inst.operands.first().and_then(id) != Some(var) {
            return;
        }
        match inst.operands.get(2) {
            None => {
                let (Some(p), Some(vertex)) = (inst.result_id, inst.operands.get(1).and_then(id))
                else {
                    return;
                };
                rows.insert(p, vertex);
            }
            Some(o) if id(o).and_then(|c| types.constant(c)).is_some() => {}
            Some(_) => return,
        }
    }
    // A row may be loaded, stored, or indexed further with a constant.
    for inst in code() {
        for (n, o) in inst.operands.iter().enumerate() {
            if !id(o).is_some_and(|p| rows.contains_key(&p)) {
                continue;
            }
            let fine = match inst.class.opcode {
                Op::Load => true,
                Op::Store => n == 0,
                Op::AccessChain | Op::InBoundsAccessChain => {
                    n == 0
                        && inst
                            .operands
                            .get(1)
                            .and_then(id)
                            .and_then(|c| types.constant(c))
                            .is_some()
                }
                _ => false,
            };
            if !fine {
                return;
            }
        }
    }

    let header = module
        .header
        .as_mut()
        .expect("a loaded module has a header");
    let mut fresh = || {
        header.bound += 1;
        header.bound - 1
    };
    let mut new_globals = Vec::new();
    let mut type_of = |op: Op, operands: Vec<Operand>, new_globals: &mut Vec<Instruction>| {
        let found = module
            .types_global_values
            .iter()
            .chain(new_globals.iter())
            .find(|i| i.class.opcode == op && i.operands == operands);
        match found.and_then(|i| i.result_id) {
            Some(t) => t,
            None => {
                let t = fresh();
                new_globals.push(Instruction::new(op, None, Some(t), operands));
                t
            }
        }
    };
    let per_vertex = type_of(
        Op::TypeArray,
        vec![Operand::IdRef(element), Operand::IdRef(outer)],
        &mut new_globals,
    );
    let var_ptr = type_of(
        Op::TypePointer,
        vec![Operand::StorageClass(storage), Operand::IdRef(per_vertex)],
        &mut new_globals,
    );
    let element_ptr = type_of(
        Op::TypePointer,
        vec![Operand::StorageClass(storage), Operand::IdRef(element)],
        &mut new_globals,
    );
    let slots = types.slots(element);
    let parts: Vec<u32> = (0..length)
        .map(|_| {
            let v = fresh();
            new_globals.push(Instruction::new(
                Op::Variable,
                Some(var_ptr),
                Some(v),
                vec![Operand::StorageClass(storage)],
            ));
            v
        })
        .collect();
    // The parts take the variable's decorations, each at its element's Location.
    let mut decorations = Vec::new();
    module.annotations.retain(|i| {
        if i.class.opcode != Op::Decorate || i.operands.first() != Some(&Operand::IdRef(var)) {
            return true;
        }
        for (j, &part) in parts.iter().enumerate() {
            let mut d = i.clone();
            d.operands[0] = Operand::IdRef(part);
            if d.operands.get(1) == Some(&Operand::Decoration(Decoration::Location)) {
                d.operands[2] = Operand::LiteralBit32(location + j as u32 * slots);
            }
            decorations.push(d);
        }
        false
    });
    module.annotations.extend(decorations);
    let name = types.names.get(&var).cloned().unwrap_or_default();
    module
        .debug_names
        .retain(|i| i.operands.first() != Some(&Operand::IdRef(var)));
    for (j, &part) in parts.iter().enumerate() {
        module.debug_names.push(Instruction::new(
            Op::Name,
            None,
            None,
            vec![
                Operand::IdRef(part),
                Operand::LiteralString(format!("{name}[{j}]")),
            ],
        ));
    }
    for entry in &mut module.entry_points {
        if let Some(at) = entry
            .operands
            .iter()
            .position(|o| *o == Operand::IdRef(var))
        {
            entry
                .operands
                .splice(at..=at, parts.iter().map(|&p| Operand::IdRef(p)));
        }
    }
    module
        .types_global_values
        .retain(|i| i.result_id != Some(var));
    module.types_global_values.extend(new_globals);

    let constant = |c: &Operand| id(c).and_then(|c| types.constant(c)).unwrap_or(0) as usize;
    let chain = |p: u32, part: u32, vertex: u32, rest: &[Operand]| {
        let mut operands = vec![Operand::IdRef(part), Operand::IdRef(vertex)];
        operands.extend_from_slice(rest);
        Instruction::new(Op::AccessChain, Some(element_ptr), Some(p), operands)
    };
    for block in module.functions.iter_mut().flat_map(|f| &mut f.blocks) {
        let mut out = Vec::with_capacity(block.instructions.len());
        for inst in block.instructions.drain(..) {
            let base = inst.operands.first().and_then(id);
            match inst.class.opcode {
                // `b[i][j]…` → `b_j[i]…`
                Op::AccessChain | Op::InBoundsAccessChain if base == Some(var) => {
                    if inst.operands.len() == 2 {
                        continue;
                    }
                    let mut i = inst;
                    let j = constant(&i.operands[2]);
                    i.operands.remove(2);
                    i.operands[0] = Operand::IdRef(parts[j]);
                    out.push(i);
                }
                Op::AccessChain | Op::InBoundsAccessChain
                    if base.is_some_and(|p| rows.contains_key(&p)) =>
                {
                    let mut i = inst;
                    let vertex = rows[&base.unwrap_or_default()];
                    let j = constant(&i.operands[1]);
                    i.operands[0] = Operand::IdRef(parts[j]);
                    i.operands[1] = Operand::IdRef(vertex);
                    out.push(i);
                }
                Op::Load if base.is_some_and(|p| rows.contains_key(&p)) => {
                    let vertex = rows[&base.unwrap_or_default()];
                    let mut loaded = Vec::new();
                    for &part in &parts {
                        let (p, v) = (fresh(), fresh());
                        out.push(chain(p, part, vertex, &[]));
                        out.push(Instruction::new(
                            Op::Load,
                            Some(element),
                            Some(v),
                            vec![Operand::IdRef(p)],
                        ));
                        loaded.push(Operand::IdRef(v));
                    }
                    out.push(Instruction::new(
                        Op::CompositeConstruct,
                        inst.result_type,
                        inst.result_id,
                        loaded,
                    ));
                }
                Op::Store if base.is_some_and(|p| rows.contains_key(&p)) => {
                    let vertex = rows[&base.unwrap_or_default()];
                    let value = inst.operands[1].clone();
                    for (j, &part) in parts.iter().enumerate() {
                        let (e, p) = (fresh(), fresh());
                        out.push(Instruction::new(
                            Op::CompositeExtract,
                            Some(element),
                            Some(e),
                            vec![value.clone(), Operand::LiteralBit32(j as u32)],
                        ));
                        out.push(chain(p, part, vertex, &[]));
                        out.push(Instruction::new(
                            Op::Store,
                            None,
                            None,
                            vec![Operand::IdRef(p), Operand::IdRef(e)],
                        ));
                    }
                }
                _ => out.push(inst),
            }
        }
        block.instructions = out;
    }
}

/// A tessellation control shader's store to a component of a patch output chosen at run
/// time (`v[i] = x`, `v.wxy[i] = x`) becomes a switch over the component with a store to a
/// constant component in each case: lavapipe turns the dynamic store into a load and store
/// of the whole vector, which loses the other invocations' writes to the other components
/// (in GL each invocation writes only its component).
fn split_dynamic_patch_component_stores(stage: Stage, module: &mut dr::Module) {
    if stage != Stage::TessControl {
        return;
    }
    let types = Types::new(module);
    let patch_outputs: HashSet<u32> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Output))
                && i.result_id
                    .is_some_and(|v| types.decoration(v, Decoration::Patch).is_some())
        })
        .filter_map(|i| i.result_id)
        .collect();
    let mut next_id = module.header.as_ref().map_or(0, |h| h.bound);
    let mut new_constants = Vec::new();
    for function in &mut module.functions {
        // Result types of the function's values (the selectors' integer types).
        let result_types: HashMap<u32, u32> = function
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter_map(|i| Some((i.result_id?, i.result_type?)))
            .collect();
        let mut chains: HashMap<u32, Instruction> = HashMap::new();
        let mut at = 0;
        while at < function.blocks.len() {
            let block = &function.blocks[at];
            if block
                .instructions
                .iter()
                .any(|i| i.class.opcode == Op::LoopMerge)
            {
                at += 1;
                continue;
            }
            let mut split = None;
            for (n, inst) in block.instructions.iter().enumerate() {
                if matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
                    if let Some(r) = inst.result_id {
                        chains.insert(r, inst.clone());
                    }
                }
                if inst.class.opcode != Op::Store {
                    continue;
                }
                let Some(chain) = inst
                    .operands
                    .first()
                    .and_then(id)
                    .and_then(|p| chains.get(&p))
                else {
                    continue;
                };
                let Some(&Operand::IdRef(selector)) = chain.operands.last() else {
                    continue;
                };
                let base = chain.operands.first().and_then(id);
                if !base.is_some_and(|b| patch_outputs.contains(&b))
                    || types.constant(selector).is_some()
                {
                    continue;
                }
                if let Some(count) = indexed_vector_size(&types, chain) {
                    split = Some((n, chain.clone(), inst.operands[1].clone(), selector, count));
                    break;
                }
            }
            let Some((n, chain, value, selector, count)) = split else {
                at += 1;
                continue;
            };
            let Some(&selector_type) = result_types.get(&selector) else {
                at += 1;
                continue;
            };
            let mut fresh = || {
                next_id += 1;
                next_id - 1
            };
            let label = |l: u32| Instruction::new(Op::Label, None, Some(l), vec![]);
            let merge = fresh();
            let block = &mut function.blocks[at];
            let rest: Vec<Instruction> = block.instructions.drain(n..).skip(1).collect();
            let old_label = block.label.as_ref().and_then(|l| l.result_id);
            let mut cases = Vec::new();
            let mut switch = vec![Operand::IdRef(selector), Operand::IdRef(merge)];
            for component in 0..count {
                let case = fresh();
                switch.push(Operand::LiteralBit32(component));
                switch.push(Operand::IdRef(case));
                let constant = match types.defs.values().chain(new_constants.iter()).find(|c| {
                    c.class.opcode == Op::Constant
                        && c.result_type == Some(selector_type)
                        && c.operands == [Operand::LiteralBit32(component)]
                }) {
                    Some(c) => c.result_id.unwrap_or_default(),
                    None => {
                        let c = fresh();
                        new_constants.push(Instruction::new(
                            Op::Constant,
                            Some(selector_type),
                            Some(c),
                            vec![Operand::LiteralBit32(component)],
                        ));
                        c
                    }
                };
                let pointer = fresh();
                let mut access = chain.clone();
                access.result_id = Some(pointer);
                *access.operands.last_mut().expect("a chain has indices") =
                    Operand::IdRef(constant);
                cases.push(dr::Block {
                    label: Some(label(case)),
                    instructions: vec![
                        access,
                        Instruction::new(
                            Op::Store,
                            None,
                            None,
                            vec![Operand::IdRef(pointer), value.clone()],
                        ),
                        Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(merge)]),
                    ],
                });
            }
            block.instructions.push(Instruction::new(
                Op::SelectionMerge,
                None,
                None,
                vec![
                    Operand::IdRef(merge),
                    Operand::SelectionControl(spirv::SelectionControl::NONE),
                ],
            ));
            block
                .instructions
                .push(Instruction::new(Op::Switch, None, None, switch));
            // The rest of the block (and its terminator) follows the switch; phis of its
            // successors now come from there.
            for inst in function.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
                if inst.class.opcode == Op::Phi {
                    for o in &mut inst.operands {
                        if old_label.is_some_and(|l| *o == Operand::IdRef(l)) {
                            *o = Operand::IdRef(merge);
                        }
                    }
                }
            }
            cases.push(dr::Block {
                label: Some(label(merge)),
                instructions: rest,
            });
            let count = cases.len();
            function.blocks.splice(at + 1..at + 1, cases);
            // Go on in the block after the switch.
            at += count;
        }
    }
    module.types_global_values.extend(new_constants);
    if let Some(h) = module.header.as_mut() {
        h.bound = next_id;
    }
}

/// The size of the vector a chain's last index picks a component of, if it does.
fn indexed_vector_size(types: &Types, chain: &Instruction) -> Option<u32> {
    let base = chain.operands.first().and_then(id)?;
    let var = types.def(base);
    let mut ty = types.pointee(var.and_then(|v| v.result_type).unwrap_or_default())?;
    let indices = &chain.operands[1..];
    for index in &indices[..indices.len() - 1] {
        let def = types.def(ty)?;
        ty = match def.class.opcode {
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => {
                def.operands.first().and_then(id)?
            }
            Op::TypeStruct => def
                .operands
                .get(types.constant(id(index)?)? as usize)
                .and_then(id)?,
            _ => return None,
        };
    }
    let def = types.def(ty)?;
    (def.class.opcode == Op::TypeVector).then(|| def.operands.get(1).and_then(literal))?
}

/// A `gl_PerVertex` block variable (arrayed or not) and the members the stage uses.
struct PerVertex {
    var: u32,
    block: u32,
    /// Whether the variable is an array of blocks (`gl_in[]`, a TCS's `gl_out[]`).
    arrayed: bool,
    /// The `BuiltIn` of each member, in order.
    builtins: Vec<u32>,
    /// Members used, by index; `None` when the block is used other than member by member.
    used: Option<HashSet<u32>>,
}

/// The stage's `gl_PerVertex` variable of `storage`, if it has one of its own type.
fn per_vertex_block(module: &dr::Module, storage: StorageClass) -> Option<PerVertex> {
    let types = Types::new(module);
    let block_of = |inst: &Instruction| -> Option<(u32, u32, bool)> {
        if inst.class.opcode != Op::Variable
            || inst.operands.first() != Some(&Operand::StorageClass(storage))
        {
            return None;
        }
        let ty = types.pointee(inst.result_type?)?;
        let (block, arrayed) = match types.array(ty) {
            Some((_, elem)) => (elem, true),
            None => (ty, false),
        };
        types
            .member_decoration(block, 0, Decoration::BuiltIn)
            .is_some()
            .then_some((inst.result_id?, block, arrayed))
    };
    let mut blocks = module.types_global_values.iter().filter_map(block_of);
    let (var, block, arrayed) = blocks.next()?;
    let members = types.def(block)?.operands.len() as u32;
    let builtin = |m: u32| {
        module.annotations.iter().find_map(|i| match i.operands.as_slice() {
            [Operand::IdRef(t), Operand::LiteralBit32(n), Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)]
                if (*t, *n) == (block, m) =>
            {
                Some(*b as u32)
            }
            _ => None,
        })
    };
    let builtins = (0..members).map(builtin).collect::<Option<Vec<u32>>>()?;
    // Another variable of the same block type: leave both as they are.
    let shared = blocks.any(|(_, b, _)| b == block);
    // Members captured by transform feedback (`Offset`) count as used.
    let captured =
        (0..members).filter(|&m| types.member_literal(block, m, Decoration::Offset).is_some());
    let mut used = (!shared).then(|| captured.collect::<HashSet<u32>>());
    let member_at = usize::from(arrayed) + 1;
    for inst in module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        if !inst.operands.iter().any(|o| id(o) == Some(var)) {
            continue;
        }
        let member = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
            .then(|| inst.operands.get(member_at).and_then(id))
            .flatten()
            .filter(|_| inst.operands.first().and_then(id) == Some(var))
            .and_then(|c| types.constant(c));
        match (member, used.as_mut()) {
            (Some(m), Some(set)) => {
                set.insert(m);
            }
            _ => used = None,
        }
    }
    Some(PerVertex {
        var,
        block,
        arrayed,
        builtins,
        used,
    })
}

/// Trims the `gl_PerVertex` blocks glslang declares whole (`gl_Position`, `gl_PointSize`,
/// `gl_ClipDistance`, …) to the members in use: Vulkan counts every member of a built-in
/// block against the stage's input and output component limits, GL counts none. A stage's
/// output block and the next stage's input block keep the same members (those either
/// uses); an output keeps `gl_Position` too, as GL counts it against the limits.
fn trim_per_vertex_blocks(modules: &mut [(Stage, dr::Module, HashSet<String>)]) {
    let pre_rasterization = |s: Stage| !matches!(s, Stage::Fragment | Stage::Compute);
    for i in 0..modules.len() {
        if !pre_rasterization(modules[i].0) {
            continue;
        }
        let Some(output) = per_vertex_block(&modules[i].1, StorageClass::Output) else {
            continue;
        };
        let next = modules
            .get(i + 1)
            .filter(|(s, ..)| pre_rasterization(*s))
            .and_then(|(_, m, _)| per_vertex_block(m, StorageClass::Input));
        let mut keep = HashSet::from([spirv::BuiltIn::Position as u32]);
        for block in std::iter::once(&output).chain(next.as_ref()) {
            let Some(used) = &block.used else {
                // Used whole: its members stay, and so do the other side's.
                keep.extend(
                    output
                        .builtins
                        .iter()
                        .chain(next.iter().flat_map(|b| &b.builtins)),
                );
                break;
            };
            keep.extend(used.iter().map(|&m| block.builtins[m as usize]));
        }
        if output.used.is_some() {
            trim_block(&mut modules[i].1, &output, &keep);
        }
        if let Some(input) = next.filter(|b| b.used.is_some()) {
            trim_block(&mut modules[i + 1].1, &input, &keep);
        }
    }
}

/// Drops the members of `block` whose `BuiltIn` is not in `keep`, renumbering the rest in
/// its decorations, names and access chains.
fn trim_block(module: &mut dr::Module, block: &PerVertex, keep: &HashSet<u32>) {
    let kept: Vec<u32> = (0..block.builtins.len() as u32)
        .filter(|&m| keep.contains(&block.builtins[m as usize]))
        .collect();
    if kept.len() == block.builtins.len() {
        return;
    }
    let new_index = |m: u32| kept.iter().position(|&k| k == m).map(|p| p as u32);
    for inst in &mut module.types_global_values {
        if inst.result_id == Some(block.block) {
            let members = std::mem::take(&mut inst.operands);
            inst.operands = kept.iter().map(|&m| members[m as usize].clone()).collect();
        }
    }
    let renumber = |insts: &mut Vec<Instruction>, op: Op| {
        insts.retain_mut(|inst| {
            if inst.class.opcode != op
                || inst.operands.first() != Some(&Operand::IdRef(block.block))
            {
                return true;
            }
            let Some(Operand::LiteralBit32(m)) = inst.operands.get_mut(1) else {
                return true;
            };
            match new_index(*m) {
                Some(n) => {
                    *m = n;
                    true
                }
                None => false,
            }
        })
    };
    renumber(&mut module.annotations, Op::MemberDecorate);
    renumber(&mut module.debug_names, Op::MemberName);
    // Access chains index the block with integer constants; the new index needs one of
    // the same type.
    let member_at = usize::from(block.arrayed) + 1;
    let types = Types::new(module);
    let mut constants: HashMap<(u32, u32), u32> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| {
            Some((
                (i.result_type?, types.constant(i.result_id?)?),
                i.result_id?,
            ))
        })
        .collect();
    let mut new_constants = Vec::new();
    let bound = &mut module
        .header
        .as_mut()
        .expect("a loaded module has a header")
        .bound;
    for inst in module
        .functions
        .iter_mut()
        .flat_map(|f| &mut f.blocks)
        .flat_map(|b| &mut b.instructions)
    {
        if inst.operands.first() != Some(&Operand::IdRef(block.var)) {
            continue;
        }
        let Some(Operand::IdRef(index)) = inst.operands.get_mut(member_at) else {
            continue;
        };
        let (Some(old), Some(ty)) = (
            types.constant(*index),
            types.def(*index).and_then(|c| c.result_type),
        ) else {
            continue;
        };
        let value = new_index(old).expect("a member in use is kept");
        *index = *constants.entry((ty, value)).or_insert_with(|| {
            let cid = *bound;
            *bound += 1;
            new_constants.push(Instruction::new(
                Op::Constant,
                Some(ty),
                Some(cid),
                vec![Operand::LiteralBit32(value)],
            ));
            cid
        });
    }
    module.types_global_values.extend(new_constants);
}

/// A type's GLSL-like shape: `float`, `vec3`, `dmat2x3`, `float[3]`, `{vec4,int}`.
/// Gives the vertex shader's inputs Vulkan locations: a `dvec3` or `dvec4` (each element,
/// each matrix column) takes one GL location but two Vulkan ones, so every input after one
/// moves up by one. Returns GL's location of each input it moved.
fn spread_wide_inputs(module: &mut dr::Module) -> HashMap<u32, u32> {
    let types = Types::new(module);
    // (variable, GL location, GL locations it takes, whether each is wide)
    let inputs: Vec<(u32, u32, u32, bool)> = types
        .interface_variables(module)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let location = *types.decoration(var, Decoration::Location)?.first()?;
            let (elements, element) = types.array(ty).unwrap_or((1, ty));
            let (_, columns, _) = types.shape(element)?;
            let wide = types.slots(element) == 2 * columns;
            Some((var, location, elements * columns, wide))
        })
        .collect();
    let wide_below = |location: u32| {
        inputs
            .iter()
            .filter(|(_, _, _, wide)| *wide)
            .map(|(_, start, count, _)| (*start..start + count).filter(|l| *l < location).count())
            .sum::<usize>() as u32
    };
    let mut moved = HashMap::new();
    for &(var, location, _, _) in &inputs {
        let shift = wide_below(location);
        if shift > 0 {
            set_decoration(module, var, Decoration::Location, location + shift);
            moved.insert(var, location);
        }
    }
    moved
}

/// Devices need not read 64-bit vertex formats (lavapipe does not): each `double` or
/// `dvecN` vertex input becomes 32-bit words, `uvec2`/`uvec4` (a `dvec3`/`dvec4`:
/// `uvec4[2]`, its two locations), read from the same bytes with 32-bit uint formats and
/// put back together with `OpBitcast` at each load (the runner feeds them so).
fn split_double_inputs(module: &mut dr::Module) -> Result<(), SceneError> {
    let types = Types::new(module);
    // (variable, components, double type)
    let inputs: Vec<(u32, u32, u32)> = types
        .interface_variables(module)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let (scalar, columns, rows) = types.shape(ty)?;
            let double = match types.def(ty)?.class.opcode {
                Op::TypeVector => types.def(ty)?.operands.first().and_then(id)?,
                _ => ty,
            };
            (scalar == Scalar::Double && columns == 1).then_some((var, rows, double))
        })
        .collect();
    if inputs.is_empty() {
        return Ok(());
    }
    let next_id = std::cell::Cell::new(module.header.as_ref().map_or(1, |h| h.bound));
    let fresh = || {
        let id = next_id.get();
        next_id.set(id + 1);
        id
    };
    // Types and constants: the module's own when it has them (SPIR-V forbids duplicate
    // scalar, vector and pointer types), else new ones before the first variable.
    let mut new_globals: Vec<Instruction> = Vec::new();
    let mut global = |op: Op, result_type: Option<u32>, operands: Vec<Operand>| {
        let same = |i: &Instruction| {
            i.class.opcode == op && i.result_type == result_type && i.operands == operands
        };
        if let Some(id) = module
            .types_global_values
            .iter()
            .chain(new_globals.iter())
            .find(|i| same(i))
            .and_then(|i| i.result_id)
        {
            return id;
        }
        let id = fresh();
        new_globals.push(Instruction::new(op, result_type, Some(id), operands));
        id
    };
    let bits = |n: u32| Operand::LiteralBit32(n);
    let uint = global(Op::TypeInt, None, vec![bits(32), bits(0)]);
    let uvec2 = global(Op::TypeVector, None, vec![Operand::IdRef(uint), bits(2)]);
    let uvec4 = global(Op::TypeVector, None, vec![Operand::IdRef(uint), bits(4)]);
    let input_uvec4 = global(
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(uvec4),
        ],
    );
    let zero = global(Op::Constant, Some(uint), vec![bits(0)]);
    let one = global(Op::Constant, Some(uint), vec![bits(1)]);
    let two = global(Op::Constant, Some(uint), vec![bits(2)]);
    let pair = global(
        Op::TypeArray,
        None,
        vec![Operand::IdRef(uvec4), Operand::IdRef(two)],
    );
    let input_pair = global(
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(pair),
        ],
    );
    let input_uvec2 = global(
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(uvec2),
        ],
    );
    // The new type of each input: uvec2 for a double, uvec4 for a dvec2, uvec4[2] beyond.
    let new_pointer = |n: u32| match n {
        1 => input_uvec2,
        2 => input_uvec4,
        _ => input_pair,
    };
    let first_var = module
        .types_global_values
        .iter()
        .position(|i| i.class.opcode == Op::Variable)
        .unwrap_or(module.types_global_values.len());
    for &(var, n, _) in &inputs {
        if let Some(inst) = module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(var))
        {
            inst.result_type = Some(new_pointer(n));
        }
    }
    module
        .types_global_values
        .splice(first_var..first_var, new_globals);
    for function in &mut module.functions {
        for block in &mut function.blocks {
            let mut out = Vec::with_capacity(block.instructions.len());
            for inst in std::mem::take(&mut block.instructions) {
                let pointer = inst.operands.first().and_then(id);
                let Some(&(_, n, double)) = inputs.iter().find(|(v, ..)| Some(*v) == pointer)
                else {
                    out.push(inst);
                    continue;
                };
                if inst.class.opcode != Op::Load {
                    return Err(SceneError::Skip(
                        "a double vertex input used other than loaded whole is not supported"
                            .into(),
                    ));
                }
                let var = pointer.unwrap_or(0);
                // The 32-bit words: one uvec2/uvec4, or the two uvec4 of the array.
                let mut words = Vec::new();
                if n <= 2 {
                    let loaded = fresh();
                    let ty = if n == 1 { uvec2 } else { uvec4 };
                    out.push(Instruction::new(
                        Op::Load,
                        Some(ty),
                        Some(loaded),
                        vec![Operand::IdRef(var)],
                    ));
                    words.push(loaded);
                } else {
                    for index in [zero, one] {
                        let element = fresh();
                        let loaded = fresh();
                        out.push(Instruction::new(
                            Op::AccessChain,
                            Some(input_uvec4),
                            Some(element),
                            vec![Operand::IdRef(var), Operand::IdRef(index)],
                        ));
                        out.push(Instruction::new(
                            Op::Load,
                            Some(uvec4),
                            Some(loaded),
                            vec![Operand::IdRef(element)],
                        ));
                        words.push(loaded);
                    }
                }
                let mut components = Vec::new();
                for k in 0..n {
                    let source = words[(k / 2) as usize];
                    let low = 2 * (k % 2);
                    let halves = if n == 1 {
                        source
                    } else {
                        let shuffled = fresh();
                        out.push(Instruction::new(
                            Op::VectorShuffle,
                            Some(uvec2),
                            Some(shuffled),
                            vec![
                                Operand::IdRef(source),
                                Operand::IdRef(source),
                                bits(low),
                                bits(low + 1),
                            ],
                        ));
                        shuffled
                    };
                    let value = if n == 1 {
                        inst.result_id
                    } else {
                        Some(fresh())
                    };
                    out.push(Instruction::new(
                        Op::Bitcast,
                        Some(double),
                        value,
                        vec![Operand::IdRef(halves)],
                    ));
                    components.extend(value);
                }
                if n > 1 {
                    out.push(Instruction::new(
                        Op::CompositeConstruct,
                        inst.result_type,
                        inst.result_id,
                        components.into_iter().map(Operand::IdRef).collect(),
                    ));
                }
            }
            block.instructions = out;
        }
    }
    if let Some(header) = module.header.as_mut() {
        header.bound = next_id.get();
    }
    Ok(())
}

fn type_signature(types: &Types, ty: u32) -> String {
    if let Some((len, elem)) = types.array(ty) {
        return format!("{}[{len}]", type_signature(types, elem));
    }
    if let Some(elem) = runtime_array(types, ty) {
        return format!("{}[]", type_signature(types, elem));
    }
    if let Some((scalar, columns, rows)) = types.shape(ty) {
        let (s, prefix) = match scalar {
            Scalar::Float => ("float", ""),
            Scalar::Double => ("double", "d"),
            Scalar::Int => ("int", "i"),
            Scalar::Uint => ("uint", "u"),
            Scalar::Bool => ("bool", "b"),
        };
        return match (columns, rows) {
            (1, 1) => s.to_string(),
            (1, r) => format!("{prefix}vec{r}"),
            (c, r) => format!("{prefix}mat{c}x{r}"),
        };
    }
    match types.def(ty) {
        Some(i) if i.class.opcode == Op::TypeStruct => format!(
            "{{{}}}",
            i.operands
                .iter()
                .filter_map(id)
                .map(|m| type_signature(types, m))
                .collect::<Vec<_>>()
                .join(",")
        ),
        _ => format!("%{ty}"),
    }
}

/// Replaces (or adds) `OpDecorate target decoration value`.
/// An interface block whose every member has its own Location keeps no Location of its
/// own: it assigns nothing then (every member's is explicit), and SPIR-V for Vulkan
/// rejects both together (VUID-StandaloneSpirv-Location-04918); glslang emits both for
/// `layout(location = N) out B { layout(location = M) … }` with every member placed.
fn drop_redundant_block_locations(module: &mut dr::Module) {
    let types = Types::new(module);
    let mut drop = Vec::new();
    for inst in module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
    {
        let (Some(var), Some(ptr)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        if types.decoration(var, Decoration::Location).is_none() {
            continue;
        }
        let mut ty = types.pointee(ptr).unwrap_or(0);
        while let Some((_, elem)) = types.array(ty) {
            ty = elem;
        }
        let Some(def) = types.def(ty) else { continue };
        if def.class.opcode != Op::TypeStruct || types.decoration(ty, Decoration::Block).is_none() {
            continue;
        }
        let members = def.operands.iter().filter_map(id).count() as u32;
        if members > 0
            && (0..members).all(|m| types.member_literal(ty, m, Decoration::Location).is_some())
        {
            drop.push(var);
        }
    }
    module.annotations.retain(|i| {
        !(i.class.opcode == Op::Decorate
            && i.operands.get(1) == Some(&Operand::Decoration(Decoration::Location))
            && matches!(i.operands.first(), Some(Operand::IdRef(v)) if drop.contains(v)))
    });
}

fn set_decoration(module: &mut dr::Module, target: u32, decoration: Decoration, value: u32) {
    for inst in &mut module.annotations {
        if inst.class.opcode == Op::Decorate
            && inst.operands.first() == Some(&Operand::IdRef(target))
            && inst.operands.get(1) == Some(&Operand::Decoration(decoration))
        {
            inst.operands.truncate(2);
            inst.operands.push(Operand::LiteralBit32(value));
            return;
        }
    }
    module.annotations.push(Instruction::new(
        Op::Decorate,
        None,
        None,
        vec![
            Operand::IdRef(target),
            Operand::Decoration(decoration),
            Operand::LiteralBit32(value),
        ],
    ));
}

/// glslang leaves `gl_FragData` without a Location; GL's draw buffer `i` is element `i`.
fn place_frag_data(module: &mut dr::Module) {
    let types = Types::new(module);
    let frag_data = module.types_global_values.iter().find_map(|i| {
        let var = i.result_id?;
        (i.class.opcode == Op::Variable
            && types.names.get(&var).map(String::as_str) == Some("gl_FragData")
            && types.decoration(var, Decoration::Location).is_none())
        .then_some(var)
    });
    if let Some(var) = frag_data {
        set_decoration(module, var, Decoration::Location, 0);
    }
}

/// Moves the stage's `gl_DefaultUniformBlock` to set 0, binding `binding` (one binding per
/// stage), and its named uniform blocks to set 0 at one binding per GL block name; returns
/// their layouts with every leaf member under its GL name.
#[allow(clippy::type_complexity)]
fn bind_uniform_blocks(
    module: &mut dr::Module,
    binding: u32,
    named: &mut BTreeMap<String, u32>,
    source: &str,
    spirv: bool,
) -> Result<(Vec<UniformBlock>, Vec<SamplerUniform>, Vec<StorageBlock>), SceneError> {
    let types = Types::new(module);
    // GL's binding point: a GL SPIR-V module's `Binding`, else `layout(binding = N)` in GLSL.
    let gl_binding_of = |var: u32, keyword: &str, type_name: &str| {
        if spirv {
            types
                .decoration(var, Decoration::Binding)
                .and_then(|v| v.first().copied())
                .unwrap_or(0)
        } else {
            gl_block_binding(source, keyword, type_name)
        }
    };
    let mut found: Vec<(u32, UniformBlock)> = Vec::new();
    let mut samplers: Vec<(u32, SamplerUniform)> = Vec::new();
    let mut storage_blocks: Vec<(u32, StorageBlock)> = Vec::new();
    for inst in module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
    {
        let storage = match inst.operands.first() {
            Some(Operand::StorageClass(s)) => *s,
            _ => continue,
        };
        if !matches!(
            storage,
            StorageClass::Uniform
                | StorageClass::UniformConstant
                | StorageClass::StorageBuffer
                | StorageClass::PushConstant
        ) {
            continue;
        }
        let (Some(var), Some(ptr)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        let ty = types.pointee(ptr).unwrap_or(0);
        // An array of blocks (of arrays of arrays too): one descriptor array, its elements
        // in row-major order, as GL gives them consecutive binding points.
        let is_block = |t: u32| {
            types.decoration(t, Decoration::Block).is_some()
                || types.decoration(t, Decoration::BufferBlock).is_some()
        };
        let mut dims = Vec::new();
        let mut elem = ty;
        while let Some((len, inner)) = types.array(elem) {
            dims.push(len);
            elem = inner;
        }
        let (ty, array_len) = if !dims.is_empty() && is_block(elem) {
            (elem, Some(dims.iter().product::<u32>()))
        } else {
            dims.clear();
            (ty, None)
        };
        let type_name = types.names.get(&ty).cloned().unwrap_or_default();
        let var_name = types.names.get(&var).cloned().unwrap_or_default();
        let is_ubo =
            storage == StorageClass::Uniform && types.decoration(ty, Decoration::Block).is_some();
        let is_ssbo = (storage == StorageClass::Uniform
            && types.decoration(ty, Decoration::BufferBlock).is_some())
            || (storage == StorageClass::StorageBuffer
                && types.decoration(ty, Decoration::Block).is_some());
        if is_ssbo {
            let atomic = type_name
                .strip_prefix("gl_AtomicCounterBlock_")
                .and_then(|b| b.parse::<u32>().ok());
            let atomic_counters = atomic.map(|_| {
                let member_types: Vec<u32> = types
                    .def(ty)
                    .map(|i| i.operands.iter().filter_map(id).collect())
                    .unwrap_or_default();
                let mut names = Vec::new();
                for (m, &mty) in member_types.iter().enumerate() {
                    let name = types
                        .member_names
                        .get(&(ty, m as u32))
                        .cloned()
                        .unwrap_or_default();
                    names.extend((0..gl_leaves(&types, mty)).map(|k| format!("{name}#{k}")));
                }
                names
            });
            storage_blocks.push((
                var,
                StorageBlock {
                    gl_binding: match atomic {
                        Some(b) => ATOMIC_COUNTER_BINDINGS + b,
                        None => gl_binding_of(var, "buffer", &type_name),
                    },
                    count: array_len.unwrap_or(1),
                    dims: dims.clone(),
                    active_variables: buffer_variables(&types, ty),
                    data_size: explicit_size(&types, ty).next_multiple_of(16),
                    atomic_counters,
                    name: type_name,
                },
            ));
            continue;
        }
        // A sampler2D, or an array of them (one descriptor array).
        let (sampler_type, sampler_count) = match types.array(ty) {
            Some((len, elem)) => (elem, len),
            None => (ty, 1),
        };
        if storage == StorageClass::UniformConstant && is_sampler_2d(&types, sampler_type) {
            let key = format!("sampler {var_name}");
            let next = FIRST_SAMPLER_BINDING
                + named.keys().filter(|k| k.starts_with("sampler ")).count() as u32;
            let b = *named.entry(key).or_insert(next);
            let unit = explicit_uniforms(source)
                .into_iter()
                .find(|(_, _, n)| *n == var_name)
                .and_then(|(_, binding, _)| binding)
                .unwrap_or(0);
            samplers.push((
                var,
                SamplerUniform {
                    name: var_name,
                    binding: b,
                    unit,
                    count: sampler_count,
                },
            ));
            continue;
        }
        if !is_ubo {
            let mut inner = ty;
            while let Some((_, elem)) = types.array(inner) {
                inner = elem;
            }
            let in_struct = types
                .def(inner)
                .is_some_and(|d| d.class.opcode == Op::TypeStruct);
            let what = match storage {
                // glslang (-R) leaves a structure holding a sampler, or the default block
                // holding one, a UniformConstant variable, which Vulkan does not take.
                StorageClass::UniformConstant if in_struct => "samplers inside structures are",
                StorageClass::UniformConstant => "samplers other than sampler2D, and images, are",
                StorageClass::Uniform | StorageClass::StorageBuffer => {
                    "uniform and storage resources other than blocks are"
                }
                _ => "push constants are",
            };
            let name = if var_name.is_empty() {
                type_name
            } else {
                var_name
            };
            return Err(SceneError::Skip(format!(
                "resource `{name}` ({storage:?}): {what} not supported"
            )));
        }
        let gl_binding = gl_binding_of(var, "uniform", &type_name);
        let (block_name, prefix, block_binding) = if type_name == "gl_DefaultUniformBlock" {
            (None, String::new(), binding)
        } else {
            let next = FIRST_NAMED_BLOCK_BINDING
                + named.keys().filter(|k| !k.starts_with("sampler ")).count() as u32;
            // A GL SPIR-V module's blocks may have no names: its binding points tell them apart.
            let key = if spirv {
                format!("binding {gl_binding}")
            } else {
                type_name.clone()
            };
            let b = *named.entry(key).or_insert(next);
            // GL names members of a block with an instance name `Block.member`.
            let prefix = if var_name.is_empty() {
                String::new()
            } else {
                format!("{type_name}.")
            };
            (Some(type_name), prefix, b)
        };
        let mut members = Vec::new();
        flatten_struct(&types, ty, &prefix, 0, &mut members)?;
        let size = members
            .iter()
            .map(|m| {
                // A matrix ends with its last column (row), not its stride.
                let elem = if m.columns > 1 {
                    let (vectors, length) = if m.row_major {
                        (m.rows, m.columns)
                    } else {
                        (m.columns, m.rows)
                    };
                    m.matrix_stride * (vectors - 1) + length * m.scalar.size()
                } else {
                    m.rows * m.scalar.size()
                };
                m.offset
                    + match m.array {
                        Some((len, stride)) => stride * len.saturating_sub(1) + elem,
                        None => elem,
                    }
            })
            .max()
            .unwrap_or(0);
        let size = size.max(4).next_multiple_of(16);
        match array_len {
            None => found.push((
                var,
                UniformBlock {
                    binding: block_binding,
                    gl_binding,
                    element: 0,
                    name: block_name,
                    size,
                    members,
                },
            )),
            // GL's blocks `Block[i]`, their members named `Block.member` all the same.
            Some(len) => found.extend((0..len).map(|i| {
                (
                    var,
                    UniformBlock {
                        binding: block_binding,
                        gl_binding: gl_binding + i,
                        element: i,
                        name: block_name
                            .as_ref()
                            .map(|n| format!("{n}{}", subscripts(i, &dims))),
                        size,
                        members: members.clone(),
                    },
                )
            })),
        }
    }
    for (var, block) in &found {
        set_decoration(module, *var, Decoration::DescriptorSet, 0);
        set_decoration(module, *var, Decoration::Binding, block.binding);
    }
    for (var, sampler) in &samplers {
        // glslang keeps a GL uniform location on the sampler; Vulkan forbids Location on
        // UniformConstant (VUID-StandaloneSpirv-Location-06672). The runner keeps the
        // location (`uniform_locations`).
        module.annotations.retain(|i| {
            !(i.class.opcode == Op::Decorate
                && i.operands.first() == Some(&Operand::IdRef(*var))
                && i.operands.get(1) == Some(&Operand::Decoration(Decoration::Location)))
        });
        set_decoration(module, *var, Decoration::DescriptorSet, 0);
        set_decoration(module, *var, Decoration::Binding, sampler.binding);
    }
    for (var, block) in &storage_blocks {
        set_decoration(module, *var, Decoration::DescriptorSet, 0);
        set_decoration(
            module,
            *var,
            Decoration::Binding,
            FIRST_STORAGE_BINDING + block.gl_binding,
        );
    }
    Ok((
        found.into_iter().map(|(_, b)| b).collect(),
        samplers.into_iter().map(|(_, s)| s).collect(),
        storage_blocks.into_iter().map(|(_, s)| s).collect(),
    ))
}

/// GL's binding point of the block `name` declared with `keyword` (`buffer`, `uniform`):
/// the `binding = N` among the qualifiers before `keyword name` (back to the previous `;`
/// or `}`), else 0.
fn gl_block_binding(source: &str, keyword: &str, name: &str) -> u32 {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut search = 0;
    while let Some(found) = source[search..].find(keyword) {
        let at = search + found;
        search = at + keyword.len();
        let before_ok = source[..at].chars().next_back().is_none_or(|c| !is_word(c));
        let rest = source[search..].trim_start();
        let after_ok = rest.starts_with(name)
            && rest[name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !is_word(c));
        if !(before_ok && after_ok) {
            continue;
        }
        let start = source[..at].rfind([';', '}']).map_or(0, |p| p + 1);
        let qualifiers: String = source[start..at]
            .chars()
            .map(|c| if is_word(c) || c == '=' { c } else { ' ' })
            .collect();
        let words: Vec<&str> = qualifiers
            .split(|c: char| c.is_whitespace() || c == '=')
            .filter(|w| !w.is_empty())
            .collect();
        return words
            .windows(2)
            .find(|w| w[0] == "binding")
            .and_then(|w| w[1].parse().ok())
            .unwrap_or(0);
    }
    0
}

/// The element type of an unsized array type.
fn runtime_array(types: &Types, ty: u32) -> Option<u32> {
    let inst = types.def(ty)?;
    (inst.class.opcode == Op::TypeRuntimeArray).then(|| inst.operands.first().and_then(id))?
}

/// How many active resources GL enumerates for a value of type `ty`: one per scalar,
/// vector or matrix, or array of those (the innermost array is one resource); arrays of
/// arrays and of structures, and structures, enumerate their elements and members.
fn gl_leaves(types: &Types, ty: u32) -> u32 {
    if let Some((len, elem)) = types.array(ty) {
        return if types.shape(elem).is_some() {
            1
        } else {
            len * gl_leaves(types, elem)
        };
    }
    if let Some(elem) = runtime_array(types, ty) {
        return if types.shape(elem).is_some() {
            1
        } else {
            gl_leaves(types, elem)
        };
    }
    if types.shape(ty).is_some() {
        return 1;
    }
    types
        .def(ty)
        .filter(|i| i.class.opcode == Op::TypeStruct)
        .map_or(1, |i| {
            i.operands
                .iter()
                .filter_map(id)
                .map(|m| gl_leaves(types, m))
                .sum()
        })
}

/// GL_NUM_ACTIVE_VARIABLES of a shader storage block: its buffer variables, where a
/// top-level array of structures or arrays enumerates only its first element (GL 4.6
/// section 7.3.1.1).
fn buffer_variables(types: &Types, block: u32) -> u32 {
    let Some(inst) = types.def(block) else {
        return 0;
    };
    inst.operands
        .iter()
        .filter_map(id)
        .map(|m| {
            let elem = types
                .array(m)
                .map(|(_, e)| e)
                .or_else(|| runtime_array(types, m));
            match elem {
                Some(e) if types.shape(e).is_none() => gl_leaves(types, e),
                _ => gl_leaves(types, m),
            }
        })
        .sum()
}

/// The bytes a value of type `ty` spans from its offset, by its explicit layout
/// decorations (an unsized array counted with one element).
fn explicit_size(types: &Types, ty: u32) -> u32 {
    let stride = |t: u32| {
        types
            .decoration(t, Decoration::ArrayStride)
            .and_then(|v| v.first().copied())
            .unwrap_or(0)
    };
    if let Some((len, _)) = types.array(ty) {
        return stride(ty) * len;
    }
    if runtime_array(types, ty).is_some() {
        return stride(ty);
    }
    let Some(inst) = types.def(ty) else { return 0 };
    if inst.class.opcode == Op::TypeStruct {
        let members: Vec<u32> = inst.operands.iter().filter_map(id).collect();
        return members
            .iter()
            .enumerate()
            .map(|(m, &mty)| {
                let m = m as u32;
                let offset = types.member_literal(ty, m, Decoration::Offset).unwrap_or(0);
                let size = match types.shape(mty) {
                    Some((scalar, columns, rows)) if columns > 1 => {
                        let stride = types
                            .member_literal(ty, m, Decoration::MatrixStride)
                            .unwrap_or(16);
                        let row_major = types
                            .member_decoration(ty, m, Decoration::RowMajor)
                            .is_some();
                        let (vectors, length) = if row_major {
                            (rows, columns)
                        } else {
                            (columns, rows)
                        };
                        stride * (vectors - 1) + length * scalar.size()
                    }
                    Some((scalar, _, rows)) => rows * scalar.size(),
                    None => explicit_size(types, mty),
                };
                offset + size
            })
            .max()
            .unwrap_or(0);
    }
    types.shape(ty).map_or(0, |(s, c, r)| s.size() * c * r)
}

/// A plain `sampler2D` (float, 2D, not arrayed, multisampled or shadow), not an array.
fn is_sampler_2d(types: &Types, ty: u32) -> bool {
    let Some(sampled) = types.def(ty) else {
        return false;
    };
    if sampled.class.opcode != Op::TypeSampledImage {
        return false;
    }
    let Some(image) = sampled
        .operands
        .first()
        .and_then(id)
        .and_then(|i| types.def(i))
    else {
        return false;
    };
    // OpTypeImage: sampled type, Dim, Depth, Arrayed, MS, Sampled, Format
    let float = image
        .operands
        .first()
        .and_then(id)
        .and_then(|t| types.def(t))
        .is_some_and(|t| t.class.opcode == Op::TypeFloat);
    matches!(image.operands.get(1), Some(Operand::Dim(spirv::Dim::Dim2D)))
        && image.operands.get(2).and_then(literal) == Some(0)
        && image.operands.get(3).and_then(literal) == Some(0)
        && image.operands.get(4).and_then(literal) == Some(0)
        && float
}

/// The leaf members of struct `ty` at `base`, named `prefix` + member name.
fn flatten_struct(
    types: &Types,
    ty: u32,
    prefix: &str,
    base: u32,
    out: &mut Vec<UniformMember>,
) -> Result<(), SceneError> {
    let member_types: Vec<u32> = types
        .def(ty)
        .map(|i| i.operands.iter().filter_map(id).collect())
        .unwrap_or_default();
    for (m, &mty) in member_types.iter().enumerate() {
        let m = m as u32;
        let name = types
            .member_names
            .get(&(ty, m))
            .cloned()
            .unwrap_or_default();
        let offset = base + types.member_literal(ty, m, Decoration::Offset).unwrap_or(0);
        let layout = MatrixLayout {
            stride: types
                .member_literal(ty, m, Decoration::MatrixStride)
                .unwrap_or(0),
            row_major: types
                .member_decoration(ty, m, Decoration::RowMajor)
                .is_some(),
        };
        flatten_value(types, mty, &format!("{prefix}{name}"), offset, layout, out)?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
struct MatrixLayout {
    stride: u32,
    row_major: bool,
}

/// The leaves of a value of type `ty` named `name` at `offset`: itself when it is a scalar,
/// vector or matrix (or an array of those), else its elements or members.
fn flatten_value(
    types: &Types,
    ty: u32,
    name: &str,
    offset: u32,
    layout: MatrixLayout,
    out: &mut Vec<UniformMember>,
) -> Result<(), SceneError> {
    let stride_of = |t: u32| {
        types
            .decoration(t, Decoration::ArrayStride)
            .and_then(|v| v.first().copied())
            .unwrap_or(16)
    };
    if let Some((len, elem)) = types.array(ty) {
        let stride = stride_of(ty);
        if let Some((scalar, columns, rows)) = types.shape(elem) {
            out.push(UniformMember {
                name: name.to_string(),
                offset,
                scalar,
                columns,
                rows,
                matrix_stride: layout.stride,
                array: Some((len, stride)),
                row_major: layout.row_major && columns > 1,
            });
        } else {
            for i in 0..len {
                flatten_value(
                    types,
                    elem,
                    &format!("{name}[{i}]"),
                    offset + i * stride,
                    layout,
                    out,
                )?;
            }
        }
        return Ok(());
    }
    if let Some((scalar, columns, rows)) = types.shape(ty) {
        out.push(UniformMember {
            name: name.to_string(),
            offset,
            scalar,
            columns,
            rows,
            matrix_stride: layout.stride,
            array: None,
            row_major: layout.row_major && columns > 1,
        });
        return Ok(());
    }
    match types.def(ty).map(|i| i.class.opcode) {
        Some(Op::TypeStruct) => flatten_struct(types, ty, &format!("{name}."), offset, out),
        _ => Err(SceneError::Skip(format!(
            "uniform `{name}`: its type is not supported"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene;

    #[test]
    fn spirv_only_stages_run_from_their_assembly_specialized() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\nSPIRV ONLY\n[vertex shader passthrough]\n\
             [fragment shader specializations]\nfloat 6 0.75\n[fragment shader spirv]\n\
             OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint Fragment %main \"main\" %color\nOpExecutionMode %main OriginLowerLeft\n\
             OpDecorate %color Location 0\nOpDecorate %green SpecId 6\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
             %v4 = OpTypeVector %float 4\n%ptr = OpTypePointer Output %v4\n\
             %color = OpVariable %ptr Output\n%green = OpSpecConstant %float 0.25\n\
             %one = OpConstant %float 1\n%main = OpFunction %void None %fn\n%l = OpLabel\n\
             %c = OpCompositeConstruct %v4 %one %green %one %one\nOpStore %color %c\n\
             OpReturn\nOpFunctionEnd\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let module = dr::load_words(&program.stage(Stage::Fragment).unwrap().words).unwrap();
        assert!(module.execution_modes.iter().all(|i| i.operands.get(1)
            == Some(&Operand::ExecutionMode(
                spirv::ExecutionMode::OriginUpperLeft
            ))));
        let green = module
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::SpecConstant)
            .unwrap();
        assert_eq!(green.operands, [Operand::LiteralBit32(0.75f32.to_bits())]);
    }

    #[test]
    fn gl_spirv_blocks_are_told_apart_by_binding() {
        // Two nameless blocks, each a column-major mat3x2 of stride 32 (GLSL cannot say it).
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\nSPIRV ONLY\n[vertex shader passthrough]\n\
             [fragment shader spirv]\n\
             OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint Fragment %main \"main\" %color\nOpExecutionMode %main OriginLowerLeft\n\
             OpDecorate %color Location 0\nOpMemberDecorate %B 0 Offset 0\n\
             OpMemberDecorate %B 0 ColMajor\nOpMemberDecorate %B 0 MatrixStride 32\n\
             OpDecorate %B Block\nOpDecorate %b5 DescriptorSet 0\nOpDecorate %b5 Binding 5\n\
             OpDecorate %b6 DescriptorSet 0\nOpDecorate %b6 Binding 6\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
             %v2 = OpTypeVector %float 2\n%v4 = OpTypeVector %float 4\n%m32 = OpTypeMatrix %v2 3\n\
             %B = OpTypeStruct %m32\n%pB = OpTypePointer Uniform %B\n\
             %b5 = OpVariable %pB Uniform\n%b6 = OpVariable %pB Uniform\n\
             %po = OpTypePointer Output %v4\n%color = OpVariable %po Output\n\
             %one = OpConstant %float 1\n%c = OpConstantComposite %v4 %one %one %one %one\n\
             %main = OpFunction %void None %fn\n%l = OpLabel\nOpStore %color %c\nOpReturn\n\
             OpFunctionEnd\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let fs = program.stage(Stage::Fragment).unwrap();
        let bindings: Vec<(u32, u32)> = fs
            .uniform_blocks
            .iter()
            .map(|b| (b.gl_binding, b.binding))
            .collect();
        assert_eq!(bindings.len(), 2);
        assert_ne!(bindings[0].1, bindings[1].1, "one descriptor each");
        let b6 = program.block(false, "", Some(6)).unwrap();
        assert_eq!(b6.data_size, 80, "32 · 2 + 8, rounded up to 16");
        assert_eq!(program.active_uniforms(), 2, "nameless members count apart");
    }

    #[test]
    fn arrays_of_arrays_of_blocks_become_one_array() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader passthrough]\n[fragment shader]\n\
             layout(binding = 1) uniform B { vec4 c; } arr[2][3];\nuniform int i;\nout vec4 o;\n\
             void main() { o = arr[1][2].c + arr[i][1].c; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let fs = program.stage(Stage::Fragment).unwrap();
        let b = fs
            .uniform_blocks
            .iter()
            .find(|b| b.name.as_deref() == Some("B[1][2]"))
            .unwrap();
        assert_eq!((b.gl_binding, b.element), (6, 5));
        assert_eq!(
            program.active_uniform_blocks(),
            6,
            "each element is a GL block"
        );
        let module = dr::load_words(&fs.words).unwrap();
        let types = Types::new(&module);
        let var = types
            .names
            .iter()
            .find(|(_, n)| n.as_str() == "arr")
            .unwrap()
            .0;
        let ptr = module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(*var))
            .and_then(|i| i.result_type)
            .unwrap();
        let (len, elem) = types.array(types.pointee(ptr).unwrap()).unwrap();
        assert_eq!(len, 6);
        assert!(types.array(elem).is_none());
    }

    #[test]
    fn elements_of_arrays_of_arrays_are_row_major() {
        assert_eq!(super::subscripts(2, &[2, 2]), "[1][0]");
        assert_eq!(super::subscripts(5, &[2, 3]), "[1][2]");
        assert_eq!(super::subscripts(3, &[4]), "[3]");
    }

    fn compiler() -> Compiler {
        let dir = std::env::temp_dir().join(format!(
            "glsem-run-glsl-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let glslang = find_glslang().unwrap();
        let limits = write_limits_file(&glslang, &dir).unwrap();
        Compiler {
            glslang,
            limits,
            dir,
        }
    }

    #[test]
    fn glsl_below_1_40_compiles_only_beside_glsl_1_50() {
        let unit = "#version 130\nin vec4 v;\nvoid main() { gl_Position = v; }\n";
        // Alone (or with a 1.40 program) GLSL 1.30 is out of reach of glslang for Vulkan.
        assert!(matches!(
            with_version(unit, Some(130)),
            Err(SceneError::Skip(_))
        ));
        assert!(matches!(
            with_version(unit, Some(140)),
            Err(SceneError::Skip(_))
        ));
        // In a program that needs GLSL 1.50, GL links it with the other units: as 1.40.
        let fixed = with_version(unit, Some(150)).unwrap();
        assert!(fixed.starts_with("#version 140\n"), "{fixed}");
        assert_eq!(fixed.lines().count(), unit.lines().count());
    }

    fn location_of(words: &[u32], name: &str) -> Option<u32> {
        let module = dr::load_words(words).unwrap();
        let types = Types::new(&module);
        let var = types.names.iter().find(|(_, n)| n.as_str() == name)?.0;
        types
            .decoration(*var, Decoration::Location)
            .and_then(|v| v.first().copied())
    }

    #[test]
    fn explicit_locations_are_found_by_name() {
        let names = explicit_location_names(
            "layout(location = 2) out vec4 a;\nlayout(std140) uniform U { vec4 x; };\n\
             layout(location=1) out B { vec4 m; } inst;\nlayout(location=4) in float arr[3];\nout vec4 c;",
        );
        let mut v: Vec<_> = names.into_iter().collect();
        v.sort();
        assert_eq!(v, vec!["B", "a", "arr"]);
    }

    /// GL matches varyings by name: declaring them in different orders in the VS and FS
    /// must still connect `a` to `a` and `b` to `b`; a dvec4 takes two Locations.
    #[test]
    fn varyings_match_by_name_across_stages() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.00\n[vertex shader]\nin vec4 piglit_vertex;\nout dvec4 a;\nout float b;\n\
             void main() { gl_Position = piglit_vertex; a = dvec4(1); b = 2.0; }\n\
             [fragment shader]\nflat in float b;\nflat in dvec4 a;\nout vec4 c;\nvoid main() { c = vec4(a.x) + b; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let vs = &program.stage(Stage::Vertex).unwrap().words;
        let fs = &program.stage(Stage::Fragment).unwrap().words;
        let (va, vb) = (location_of(vs, "a").unwrap(), location_of(vs, "b").unwrap());
        assert_eq!(location_of(fs, "a"), Some(va));
        assert_eq!(location_of(fs, "b"), Some(vb));
        // a (dvec4) occupies two Locations, so b may not sit in either.
        assert!(vb < va || vb >= va + 2, "a at {va}, b at {vb}");
    }

    /// Per-vertex arrayed inputs of a TES: the array dimension is not Locations, so
    /// VS `out vec4 v` and TES `in vec4 v[]` get the same single Location.
    #[test]
    fn arrayed_inputs_and_explicit_locations() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.10\n[vertex shader]\nin vec4 piglit_vertex;\nout vec4 w;\nlayout(location = 0) out vec4 e;\nout vec4 v;\n\
             void main() { gl_Position = piglit_vertex; v = w = e = vec4(1); }\n\
             [tessellation control shader]\nlayout(vertices = 3) out;\nin vec4 v[];\nin vec4 w[];\nlayout(location = 0) in vec4 e[];\nout vec4 tv[];\n\
             void main() { tv[gl_InvocationID] = v[gl_InvocationID] + w[gl_InvocationID] + e[gl_InvocationID]; gl_TessLevelOuter[0] = 1.0; }\n\
             [tessellation evaluation shader]\nlayout(triangles) in;\nin vec4 tv[];\nvoid main() { gl_Position = tv[0]; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let vs = &program.stage(Stage::Vertex).unwrap().words;
        let tcs = &program.stage(Stage::TessControl).unwrap().words;
        let tes = &program.stage(Stage::TessEval).unwrap().words;
        assert_eq!(location_of(vs, "e"), Some(0));
        assert_eq!(location_of(tcs, "e"), Some(0));
        for name in ["v", "w"] {
            let loc = location_of(vs, name).unwrap();
            assert_ne!(loc, 0, "{name} collides with the explicit location 0");
            assert_eq!(location_of(tcs, name), Some(loc));
        }
        assert_ne!(location_of(vs, "v"), location_of(vs, "w"));
        assert_eq!(location_of(tcs, "tv"), location_of(tes, "tv"));
    }

    #[test]
    fn frag_data_gets_location_zero_and_eight_elements() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.40\n[vertex shader passthrough]\n[fragment shader]\nvoid main() { gl_FragData[1] = vec4(1); }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let fs = &program.stage(Stage::Fragment).unwrap().words;
        assert_eq!(location_of(fs, "gl_FragData"), Some(0));
        let module = dr::load_words(fs).unwrap();
        let types = Types::new(&module);
        let var = module
            .types_global_values
            .iter()
            .find(|i| {
                types
                    .names
                    .get(&i.result_id.unwrap_or(0))
                    .map(String::as_str)
                    == Some("gl_FragData")
            })
            .unwrap();
        let (len, _) = types
            .array(types.pointee(var.result_type.unwrap()).unwrap())
            .unwrap();
        assert_eq!(len, MAX_DRAW_BUFFERS);
    }

    #[test]
    fn buffer_bindings_come_from_the_source() {
        let src = "layout(std430, binding = 3) buffer Out { float x; } o;\nbuffer Def { int y; };\n\
                   layout(binding=1) uniform U { float u; };\nlayout(std430 , binding= 5 ) readonly buffer In2 { float z; };";
        assert_eq!(gl_block_binding(src, "buffer", "Out"), 3);
        assert_eq!(gl_block_binding(src, "buffer", "Def"), 0);
        assert_eq!(gl_block_binding(src, "buffer", "In2"), 5);
        assert_eq!(gl_block_binding(src, "buffer", "Missing"), 0);
        assert_eq!(gl_block_binding(src, "uniform", "U"), 1);
    }

    #[test]
    fn arrays_of_samplers_are_one_descriptor_array_with_a_location_per_element() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader passthrough]\n[fragment shader]\n#version 450\n\
             layout(location = 0) out vec4 color;\n\
             layout(location = 2, binding = 3) uniform sampler2D tex[2];\n\
             void main() { color = texture(tex[0], vec2(0)) + texture(tex[1], vec2(0)); }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let fs = program.stage(Stage::Fragment).unwrap();
        assert_eq!((fs.samplers[0].unit, fs.samplers[0].count), (3, 2));
        assert_eq!(program.uniform_at(3, None), Some(("tex".into(), Some(1))));
        assert_eq!(program.active_uniforms(), 1);
    }

    #[test]
    fn gl_spirv_becomes_vulkan_spirv() {
        let assembled = |text: &str| {
            let dir = compiler().dir;
            let src = dir.join("t.spvasm");
            let spv = dir.join("t.spv");
            std::fs::write(&src, text).unwrap();
            let ok = Command::new("spirv-as")
                .args(["--target-env", "opengl4.5"])
                .arg(&src)
                .arg("-o")
                .arg(&spv)
                .status()
                .unwrap()
                .success();
            assert!(ok);
            dr::load_bytes(std::fs::read(&spv).unwrap()).unwrap()
        };
        let head = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint Vertex %main \"main\" %vid\nOpDecorate %vid BuiltIn VertexId\n\
                    OpDecorate %flag SpecId 3\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %int = OpTypeInt 32 1\n%bool = OpTypeBool\n%flag = OpSpecConstantFalse %bool\n\
                    %pi = OpTypePointer Input %int\n%vid = OpVariable %pi Input\n";
        let tail = "%main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let mut module = assembled(&format!("{head}{tail}"));
        vulkan_from_gl_spirv(&mut module).unwrap();
        specialize(&mut module, &[(3, 1)]).unwrap();
        assert!(module
            .annotations
            .iter()
            .any(|i| i.operands.get(2) == Some(&Operand::BuiltIn(spirv::BuiltIn::VertexIndex))));
        assert!(module
            .types_global_values
            .iter()
            .any(|i| i.class.opcode == Op::SpecConstantTrue));
        assert!(specialize(&mut module, &[(9, 1)]).is_err());
        let loose = "%float = OpTypeFloat 32\n%pu = OpTypePointer UniformConstant %float\n\
                     %u = OpVariable %pu UniformConstant\n";
        let mut module = assembled(&format!("{head}{loose}{tail}"));
        assert!(matches!(
            vulkan_from_gl_spirv(&mut module),
            Err(SceneError::Skip(_))
        ));
    }

    #[test]
    fn uniform_locations_are_assigned_as_gl_does() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader passthrough]\n[fragment shader]\n#version 450\n\
             layout(location = 0) out vec4 color;\n\
             struct S { float a; vec2 b[2]; };\n\
             layout(location = 10) uniform vec4 u[2][2]; // not layout(location = 99)\n\
             layout(location = 3) uniform S s[2];\n\
             layout(location = 1, binding = 4) uniform sampler2D t;\n\
             layout(location = 20) uniform struct { int i; mat2 m; } inl;\n\
             void main() { color = u[1][1] + s[1].b[1].xyxy + texture(t, vec2(0)) + inl.m[0].xyxy * inl.i; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let at = |l| program.uniform_at(l, None);
        assert_eq!(at(1), Some(("t".into(), None)));
        assert_eq!(at(3), Some(("s[0].a".into(), None)));
        assert_eq!(at(5), Some(("s[0].b".into(), Some(1))));
        assert_eq!(at(6), Some(("s[1].a".into(), None)));
        assert_eq!(at(12), Some(("u[1]".into(), Some(0))));
        assert_eq!(at(21), Some(("inl.m".into(), None)));
        assert_eq!(at(2), None);
        let fs = program.stage(Stage::Fragment).unwrap();
        assert_eq!(fs.samplers[0].unit, 4, "binding = N is the initial unit");
    }

    #[test]
    fn varyings_of_one_name_and_other_types_do_not_link() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader]\nin vec4 v;\nout vec4 p;\nout float a[3];\n\
             void main() { gl_Position = v; p = v; a[0] = 1.0; }\n\
             [geometry shader]\nlayout(triangles) in;\nlayout(points, max_vertices = 1) out;\n\
             in vec4 p[];\nin float a[3];\nvoid main() {}\n",
        )
        .unwrap();
        let e = compiler().build(&scene).unwrap_err();
        let SceneError::Fail(m) = e else { panic!() };
        assert!(is_link_error(&m), "{m}");
        assert!(m.contains("`a` is a float[3]"), "{m}");
    }

    #[test]
    fn introspection_counts_as_gl_does() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader]\n#version 450\nin vec4 piglit_vertex;\n\
             struct S { float f; vec4 v[2]; };\n\
             layout(std140, binding = 2) uniform U { S s[2]; mat2 m; } u;\n\
             layout(std430, binding = 3) buffer B { vec2 a; S t[3]; float rest[]; } b;\n\
             void main() { gl_Position = piglit_vertex + u.s[1].v[1] + u.m[0].xyxy + b.t[2].v[0] + b.rest[1]; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        // u.s[0].f, u.s[0].v, u.s[1].f, u.s[1].v, u.m
        assert_eq!(program.active_uniforms(), 5);
        let u = program.block(false, "U", None).unwrap();
        assert_eq!(u, program.block(false, "", Some(2)).unwrap());
        assert_eq!(u.active_variables, 5);
        // s: 2 × 48 bytes; m: two vec2 columns at a stride of 16.
        assert_eq!(u.data_size, 96 + 32);
        let b = program.block(true, "B", None).unwrap();
        // a, t[0].f, t[0].v (a top-level array enumerates its first element), rest
        assert_eq!(b.active_variables, 4);
        // std430: a at 0, t (3 × 48) at 16, rest at 160 counted with one element.
        assert_eq!(b.data_size, 176);
        assert!(program.block(true, "B", Some(4)).is_none());
    }

    #[test]
    fn xfb_varyings_are_counted_as_gl_counts_them() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader]\n#version 450\nin vec4 piglit_vertex;\n\
             struct S { float f; vec4 v; float f2[2]; };\n\
             layout(xfb_buffer = 0, xfb_offset = 0) out block { float a; vec4 b; } x[2];\n\
             layout(location = 9, xfb_buffer = 1, xfb_offset = 0) out float aoa[2][3];\n\
             layout(location = 20, xfb_buffer = 2, xfb_offset = 0) out S s;\n\
             layout(location = 30) out vec4 not_captured;\n\
             void main() { gl_Position = piglit_vertex; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        // x: 2 blocks × 2 members; aoa: 2 arrays of float; s: 3 members.
        assert_eq!(
            program.stage(Stage::Vertex).unwrap().xfb_varyings,
            4 + 2 + 3
        );
    }

    #[test]
    fn inputs_after_a_dvec4_move_up_one_vulkan_location() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader]\nlayout(location = 0) in dvec4 d;\n\
             layout(location = 1) in vec4 piglit_vertex;\nlayout(location = 2) in float f[2];\n\
             out vec4 c;\nvoid main() { gl_Position = piglit_vertex; c = vec4(d) + f[1]; }\n\
             [fragment shader]\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let words = &program.stage(Stage::Vertex).unwrap().words;
        let input = |n: &str| {
            let i = program
                .vertex_inputs()
                .iter()
                .find(|i| i.name == n)
                .unwrap();
            (i.location, i.vk_location, i.elements, i.slots)
        };
        assert_eq!(input("d"), (0, 0, 1, 2));
        assert_eq!(input("piglit_vertex"), (1, 2, 1, 1));
        assert_eq!(input("f"), (2, 3, 2, 1));
        assert_eq!(location_of(words, "piglit_vertex"), Some(2));
        // `d` is read as 32-bit words: uvec4[2], its two Vulkan locations.
        let module = dr::load_words(words).unwrap();
        let types = Types::new(&module);
        let var = types
            .names
            .iter()
            .find(|(_, n)| n.as_str() == "d")
            .unwrap()
            .0;
        let ptr = module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(*var))
            .and_then(|i| i.result_type)
            .unwrap();
        let (len, elem) = types.array(types.pointee(ptr).unwrap()).unwrap();
        assert_eq!((len, types.shape(elem)), (2, Some((Scalar::Uint, 1, 4))));
        assert!(module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .any(|i| i.class.opcode == Op::Bitcast));
    }

    #[test]
    fn default_uniform_blocks_get_one_binding_per_stage() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader]\nin vec4 piglit_vertex;\nuniform float scale;\nuniform mat3 m;\n\
             void main() { gl_Position = piglit_vertex * scale + vec4(m[1], 0); }\n\
             [fragment shader]\nuniform vec4 color;\nuniform float arr[3];\nout vec4 c;\nvoid main() { c = color + arr[2]; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let vs = program.stage(Stage::Vertex).unwrap().uniform_blocks[0].clone();
        assert!(program.stage(Stage::Vertex).unwrap().samplers.is_empty());
        let fs = program.stage(Stage::Fragment).unwrap().uniform_blocks[0].clone();
        assert_ne!(vs.binding, fs.binding);
        let m = vs.members.iter().find(|m| m.name == "m").unwrap();
        assert_eq!((m.columns, m.rows, m.matrix_stride), (3, 3, 16));
        let arr = fs.members.iter().find(|m| m.name == "arr").unwrap();
        assert_eq!(
            arr.array,
            Some((3, 16)),
            "std140 rounds array strides up to 16"
        );
        assert_eq!(program.vertex_inputs()[0].name, "piglit_vertex");
    }

    #[test]
    fn glsl_errors_carry_glslangs_message() {
        let scene = scene::parse("[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n[fragment shader]\nvoid main() { undeclared = 1.0; }\n").unwrap();
        let err = compiler().build(&scene).unwrap_err();
        assert!(
            matches!(&err, SceneError::Fail(m) if m.contains("fragment") && m.contains("undeclared")),
            "{err:?}"
        );
    }

    #[test]
    fn old_glsl_skips() {
        let scene = scene::parse("[require]\nGLSL >= 1.10\n[vertex shader passthrough]\n").unwrap();
        assert!(matches!(compiler().build(&scene), Err(SceneError::Skip(_))));
    }

    /// The members of a stage's `gl_PerVertex` output or input block, by `BuiltIn`.
    fn per_vertex_builtins(words: &[u32], storage: StorageClass) -> Vec<u32> {
        let module = dr::load_words(words).unwrap();
        per_vertex_block(&module, storage).unwrap().builtins
    }

    /// Unused `gl_PerVertex` members are dropped, the rest kept alike on both sides of a
    /// stage boundary, and the SPIR-V still indexes the right members.
    #[test]
    fn per_vertex_blocks_keep_the_members_in_use() {
        use spirv::BuiltIn::{ClipDistance, PointSize, Position};
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader]\nin vec4 piglit_vertex;\n\
             void main() { gl_Position = piglit_vertex; }\n\
             [geometry shader]\nlayout(triangles) in;\nlayout(points, max_vertices = 1) out;\n\
             void main() { gl_PointSize = gl_in[2].gl_PointSize; gl_Position = vec4(1); EmitVertex(); }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let vs = &program.stage(Stage::Vertex).unwrap().words;
        let gs = &program.stage(Stage::Geometry).unwrap().words;
        let both = vec![Position as u32, PointSize as u32];
        assert_eq!(per_vertex_builtins(vs, StorageClass::Output), both);
        assert_eq!(per_vertex_builtins(gs, StorageClass::Input), both);
        assert_eq!(per_vertex_builtins(gs, StorageClass::Output), both);
        let module = dr::load_words(gs).unwrap();
        let block = per_vertex_block(&module, StorageClass::Input).unwrap();
        assert_eq!(block.used, Some(HashSet::from([1])));
        assert!(!per_vertex_builtins(vs, StorageClass::Output).contains(&(ClipDistance as u32)));
    }

    /// Two compilation units writing `gl_FragColor` write one output, as in GL.
    #[test]
    fn units_share_one_frag_color() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n[fragment shader]\n\
             void f();\nvoid main() { gl_FragColor = vec4(0.0); f(); }\n\
             [fragment shader]\nvoid f() { gl_FragColor.b = 1.0; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let module = dr::load_words(&program.stage(Stage::Fragment).unwrap().words).unwrap();
        let outputs = module
            .types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::Variable
                    && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Output))
            })
            .count();
        assert_eq!(outputs, 1);
        assert_eq!(module.entry_points[0].operands.len(), 4);
    }

    /// A per-vertex array of arrays with a Component becomes one per-vertex array per
    /// inner element, each at its element's Location.
    #[test]
    fn component_arrays_of_arrays_are_split() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader]\n#version 150\n\
             #extension GL_ARB_enhanced_layouts: require\n#extension GL_ARB_separate_shader_objects: require\nin vec4 piglit_vertex;\n\
             layout(location = 0) out vec3 a[2];\nlayout(location = 0, component = 3) out float b[2];\n\
             void main() { gl_Position = piglit_vertex; a[0] = a[1] = vec3(1.0); b[0] = 2.0; b[1] = 3.0; }\n\
             [geometry shader]\n#version 150\n#extension GL_ARB_enhanced_layouts: require\n#extension GL_ARB_separate_shader_objects: require\n\
             #extension GL_ARB_arrays_of_arrays: require\nlayout(triangles) in;\n\
             layout(points, max_vertices = 1) out;\nlayout(location = 0) in vec3 a[3][2];\n\
             layout(location = 0, component = 3) in float b[3][2];\nout float c;\n\
             void main() { float r[2] = b[1]; c = r[0] + b[2][1] + a[0][1].x; EmitVertex(); }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let gs = &program.stage(Stage::Geometry).unwrap().words;
        let module = dr::load_words(gs).unwrap();
        let types = Types::new(&module);
        for (j, name) in ["b[0]", "b[1]"].iter().enumerate() {
            let var = *types.names.iter().find(|(_, n)| n == name).unwrap().0;
            assert_eq!(
                types.decoration(var, Decoration::Location),
                Some(&[j as u32][..])
            );
            assert_eq!(types.decoration(var, Decoration::Component), Some(&[3][..]));
        }
        assert!(!types.names.values().any(|n| n == "b"));
    }

    /// A TCS store to a patch output's component chosen at run time becomes a switch of
    /// stores to constant components.
    #[test]
    fn dynamic_patch_component_stores_become_a_switch() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n\
             [tessellation control shader]\n#version 150\n\
             #extension GL_ARB_tessellation_shader : require\nlayout(vertices = 4) out;\n\
             patch out ivec4 v;\nvoid main() { v[gl_InvocationID] = 1; \
             gl_TessLevelOuter[0] = 1.0; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let module = dr::load_words(&program.stage(Stage::TessControl).unwrap().words).unwrap();
        let types = Types::new(&module);
        let code: Vec<&Instruction> = module.functions[0]
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .collect();
        let switch = code.iter().find(|i| i.class.opcode == Op::Switch).unwrap();
        // Selector, default and four (literal, label) pairs.
        assert_eq!(switch.operands.len(), 10);
        let stored: Vec<u32> = code
            .iter()
            .filter(|i| i.class.opcode == Op::Store)
            .filter_map(|s| {
                let p = s.operands.first().and_then(id)?;
                let chain = code.iter().find(|c| c.result_id == Some(p))?;
                chain
                    .operands
                    .last()
                    .and_then(id)
                    .and_then(|c| types.constant(c))
            })
            .collect();
        // (then gl_TessLevelOuter[0])
        assert_eq!(stored, vec![0, 1, 2, 3, 0]);
    }
}

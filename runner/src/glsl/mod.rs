//! GLSL → SPIR-V through `glslangValidator -V -R`, then the work a GL linker does that
//! glslang's per-stage compiles cannot: matching stage interfaces by name, trimming the
//! built-in `gl_PerVertex` blocks to the members in use, splitting the per-vertex arrays
//! of arrays that carry a `Component`, merging glslang's per-unit copies of a built-in,
//! placing `gl_FragData`, and giving each stage's default uniform block its own binding;
//! and one workaround for lavapipe (stores to a dynamically indexed component of a TCS
//! patch output).
//!
//! This module holds the program's public description (`Program` and its stages; their
//! inputs, blocks and samplers are [`description`]'s) and the `Compiler` that drives
//! glslang and then these passes (`Compiler::build` says in which order):
//! - [`source`]: what GL's linker knows from the GLSL text and SPIR-V does not say
//!   (explicit locations and bindings by name);
//! - [`gl_spirv`]: ARB_gl_spirv modules (`SPIRV ONLY` scenes) made Vulkan ones;
//! - the link passes, over all the stages' modules at once or one at a time: [`link`]
//!   (interface locations by name, built-in copies, `gl_FragData`, block locations),
//!   [`per_vertex`] (`gl_PerVertex` trimming), [`component_arrays`] (per-vertex arrays of
//!   arrays with a `Component`), [`patch_stores`] (the lavapipe workaround) and
//!   [`vertex_inputs`] (GL's vertex input locations and 64-bit inputs);
//! - [`resources`]: uniform and storage blocks and samplers bound as GL's binding points;
//! - [`spv`]: the SPIR-V lookups and edits they share (`Types`, `set_decoration`, and
//!   `Additions`: fresh ids, new types and constants, row-major flat indices);
//! - [`description`]: the types the passes describe a stage with (a leaf: the passes and
//!   this module use it, it uses neither).

mod component_arrays;
mod description;
mod fragment_layer;
mod gl_spirv;
mod link;
mod patch_stores;
mod per_vertex;
mod resources;
mod sampler_arrays;
mod source;
mod spv;
mod vertex_inputs;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rspirv::binary::Assemble;
use rspirv::dr::{self, Operand};
use spirv::{Decoration, Op, StorageClass};

use crate::scene::{Scene, SceneError, Stage};

use component_arrays::split_component_arrays;
use description::stage_word;
pub use description::{
    SamplerUniform, Scalar, StorageBlock, UniformBlock, UniformMember, VertexInput,
    FIRST_STORAGE_BINDING,
};
use gl_spirv::{specialize, vulkan_from_gl_spirv};
use link::{drop_redundant_block_locations, link_locations, merge_builtin_copies, place_frag_data};
use patch_stores::split_dynamic_patch_component_stores;
use per_vertex::trim_per_vertex_blocks;
use resources::{bind_uniform_blocks, flatten_block_arrays, subscripts};
use sampler_arrays::split_sampler_arrays;
use source::{explicit_location_names, uniform_locations};
use spv::{id, Types};
use vertex_inputs::{place_unlocated_inputs, split_double_inputs, spread_wide_inputs};

/// One compilation unit: GLSL and the first line of its section in the scene file.
type Unit = (String, Option<usize>);

/// The lowest desktop GLSL version glslang compiles for Vulkan.
const MIN_VULKAN_GLSL: u32 = 140;
/// `gl_FragData` gets this many elements (glslang's default is 32, beyond any device).
const MAX_DRAW_BUFFERS: u32 = 8;

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
            for sampler in &stage.samplers {
                // Elements named apart (arrays of arrays, structures): GL counts one
                // uniform per innermost array.
                if sampler.elements.is_empty() {
                    names.insert(&sampler.name);
                }
                names.extend(sampler.elements.iter().map(|e| {
                    e.strip_suffix(']')
                        .and_then(|rest| rest.rfind('[').map(|at| &e[..at]))
                        .unwrap_or(e)
                }));
            }
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
                // The elements of an array of arrays or a structure of samplers.
                let split_from = |s: &&SamplerUniform| {
                    s.name == *name || s.name.starts_with(&format!("{name}."))
                };
                for sampler in stage.samplers.iter().filter(split_from) {
                    let offset = location - base;
                    if let Some(i) = sampler.element_locations.iter().position(|&l| l == offset) {
                        return Some((sampler.elements[i].clone(), None));
                    }
                }
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

/// Why the compiler could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum GlslangError {
    #[error("glslangValidator not found on PATH; install the package glslang-tools")]
    NotFound,
    #[error("cannot run {}: {source}", path.display())]
    Run {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Finds `glslangValidator` on PATH.
pub fn find_glslang() -> Result<PathBuf, GlslangError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("glslangValidator"))
        .find(|p| p.is_file())
        .ok_or(GlslangError::NotFound)
}

/// Writes glslang's default resource limits with `MaxDrawBuffers` lowered, so that
/// `gl_FragData` is an array a device can actually hold.
pub fn write_limits_file(glslang: &Path, dir: &Path) -> Result<PathBuf, GlslangError> {
    let out = Command::new(glslang)
        .arg("-c")
        .output()
        .map_err(|source| GlslangError::Run {
            path: glslang.to_path_buf(),
            source,
        })?;
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
    match std::fs::write(&path, limits) {
        Ok(()) => Ok(path),
        Err(source) => Err(GlslangError::Write { path, source }),
    }
}

/// `SPIRV ONLY`: stages with SPIR-V assembly run from it; their GLSL, if any, only tells
/// what GL's linker knows from names (explicit locations and bindings).
fn spirv_shader(scene: &Scene, stage: Stage) -> Option<&crate::scene::Shader> {
    scene
        .spirv
        .iter()
        .find(|s| scene.require.spirv_only && s.stage == stage)
}

/// Each stage's compilation units (GLSL and the first line of its section), in stage order.
fn stage_sources(scene: &Scene) -> Result<Vec<(Stage, Vec<Unit>)>, SceneError> {
    let version = scene.require.glsl_version;
    let mut sources: Vec<(Stage, Vec<Unit>)> = Vec::new();
    let mut add = |stage: Stage, unit: Unit| match sources.iter_mut().find(|(s, _)| *s == stage) {
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
    Ok(sources)
}

/// Source fixes over all the compilation units of a stage.
fn fix_sources(sources: &mut [(Stage, Vec<Unit>)]) -> Result<(), SceneError> {
    for (stage, units) in sources {
        let mut texts: Vec<String> = units.iter().map(|(t, _)| t.clone()).collect();
        crate::fixes::per_vertex_sizes(*stage, &mut texts);
        crate::implicit_arrays::size_implicit_arrays(&mut texts);
        for text in &mut texts {
            if let Some(fixed) = crate::rect_textures::rectangle_lookups(text) {
                *text = fixed;
            }
        }
        if *stage == Stage::Fragment {
            crate::fixes::frag_coord(&mut texts).map_err(SceneError::Fail)?;
            crate::extension_fixes::fragment_layer_viewport(&mut texts);
        }
        if *stage == Stage::Vertex {
            crate::extension_fixes::vertex_layer_viewport(&mut texts);
        }
        for ((text, _), fixed) in units.iter_mut().zip(texts) {
            *text = fixed;
        }
    }
    Ok(())
}

/// Takes the initializers of uniforms out of the sources (each once).
fn take_initializers(
    sources: &mut [(Stage, Vec<Unit>)],
) -> Result<Vec<crate::initializers::Initializer>, SceneError> {
    let mut initializers = Vec::new();
    for (_, units) in sources {
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
    Ok(initializers)
}

/// The link passes over all the stages, then each stage's own interface passes.
fn link_modules(
    modules: &mut [(Stage, dr::Module, HashSet<String>)],
    separate: bool,
) -> Result<(), SceneError> {
    link_locations(modules, separate).map_err(SceneError::Fail)?;
    if let Some((_, module, explicit)) = modules.iter_mut().find(|(s, ..)| *s == Stage::Vertex) {
        place_unlocated_inputs(module, explicit);
    }
    trim_per_vertex_blocks(modules);
    for (stage, module, _) in modules {
        split_component_arrays(*stage, module);
        split_dynamic_patch_component_stores(*stage, module);
        drop_redundant_block_locations(module);
    }
    Ok(())
}

/// What `finish_stage` needs to know of a stage beside its module.
struct StageFrom<'a> {
    /// The stage's place in the program (its default uniform block's binding).
    index: u32,
    /// Its GLSL, its units joined.
    source: &'a str,
    /// Whether it runs from GL SPIR-V.
    spirv: bool,
    /// The uniforms its GLSL declares `bool`.
    bool_uniforms: &'a HashSet<String>,
}

/// A linked stage's resources bound as Vulkan takes them, its vertex inputs fed as 32-bit
/// words, and what the runner and GL's introspection read of it.
fn finish_stage(
    stage: Stage,
    mut module: dr::Module,
    from: &StageFrom,
    named_blocks: &mut BTreeMap<String, u32>,
) -> Result<StageModule, SceneError> {
    let split_samplers = split_sampler_arrays(&mut module)?;
    let (mut uniform_blocks, mut samplers, storage_blocks) = bind_uniform_blocks(
        &mut module,
        from.index,
        named_blocks,
        from.source,
        from.spirv,
    )?;
    mark_bool_members(&mut uniform_blocks, from.bool_uniforms);
    for split in split_samplers {
        let name = Types::new(&module).names.get(&split.var).cloned();
        if let Some(sampler) = samplers.iter_mut().find(|s| Some(&s.name) == name.as_ref()) {
            sampler.elements = split.elements;
            sampler.element_locations = split.locations;
        }
    }
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
    Ok(StageModule {
        stage,
        uniform_locations: uniform_locations(from.source),
        xfb_varyings,
        words: module.assemble(),
        capabilities,
        uniform_blocks,
        samplers,
        storage_blocks,
        vertex_inputs,
        xfb,
    })
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
        let mut sources = stage_sources(scene)?;
        fix_sources(&mut sources)?;
        let initializers = take_initializers(&mut sources)?;
        let (mut modules, bool_uniforms) = self.load_modules(scene, &sources)?;
        link_modules(&mut modules, scene.require.separate_programs)?;
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
        let mut stages = Vec::new();
        // Named uniform blocks by GL name: one binding for every stage that declares one.
        let mut named_blocks: BTreeMap<String, u32> = BTreeMap::new();
        for (index, (stage, module, _)) in modules.into_iter().enumerate() {
            let from = StageFrom {
                index: index as u32,
                source: &stage_sources[index],
                spirv: spirv_shader(scene, stage).is_some(),
                bool_uniforms: &bool_uniforms[index],
            };
            stages.push(finish_stage(stage, module, &from, &mut named_blocks)?);
        }
        Ok(Program {
            stages,
            initializers,
        })
    }

    /// Each stage's SPIR-V module (compiled, or assembled from `SPIRV ONLY` assembly) with
    /// its per-module fixes, and the names of its explicitly located variables; and per
    /// stage, the uniforms GLSL declares `bool` (SPIR-V holds them as `uint`).
    #[allow(clippy::type_complexity)]
    fn load_modules(
        &self,
        scene: &Scene,
        sources: &[(Stage, Vec<Unit>)],
    ) -> Result<
        (
            Vec<(Stage, dr::Module, HashSet<String>)>,
            Vec<HashSet<String>>,
        ),
        SceneError,
    > {
        let mut modules = Vec::new();
        let mut bool_uniforms = Vec::new();
        for (stage, units) in sources {
            let (words, bools) = match spirv_shader(scene, *stage) {
                Some(shader) => (self.assemble(shader)?, HashSet::new()),
                None => self.compile(*stage, units)?,
            };
            bool_uniforms.push(bools);
            let mut module = dr::load_words(&words).map_err(|e| {
                SceneError::Fail(format!(
                    "cannot parse the SPIR-V of the {stage:?} shader: {e}"
                ))
            })?;
            merge_builtin_copies(&mut module);
            match stage {
                Stage::Fragment => fragment_layer::restore_fragment_builtins(&mut module),
                Stage::Vertex => fragment_layer::restore_vertex_builtins(&mut module),
                _ => false,
            };
            if spirv_shader(scene, *stage).is_some() {
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
        Ok((modules, bool_uniforms))
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
        read_words(&spv)
    }

    /// Compiles one stage; several compilation units are linked by glslang (`-l`), as a
    /// GL linker links several shader objects of one stage. Also returns the GL names of
    /// its `bool` uniforms, from glslang's reflection (`-q`).
    fn compile(
        &self,
        stage: Stage,
        units: &[Unit],
    ) -> Result<(Vec<u32>, HashSet<String>), SceneError> {
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
            .args(["-V", "-R", "--aml", "--amb", "-q", "-S", name])
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
        Ok((
            read_words(&spv)?,
            reflected_bool_uniforms(&String::from_utf8_lossy(&out.stdout)),
        ))
    }
}

/// GL's type enums of `bool`, `bvec2`, `bvec3` and `bvec4`.
const GL_BOOL_TYPES: [&str; 4] = ["8b56", "8b57", "8b58", "8b59"];

/// The names in the "Uniform reflection" section of glslang's `-q` output whose GL type is
/// a boolean one, as `name: offset 0, type 8b56, …` lines list them, without subscripts
/// (glslang lists an array of structures' members once, `s.q` for `s[i].q`).
fn reflected_bool_uniforms(reflection: &str) -> HashSet<String> {
    reflection
        .lines()
        .skip_while(|l| l.trim() != "Uniform reflection:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let (name, fields) = l.split_once(": ")?;
            let ty = fields.split(", ").find_map(|f| f.strip_prefix("type "))?;
            GL_BOOL_TYPES
                .contains(&ty)
                .then(|| without_subscripts(name.trim()))
        })
        .collect()
}

/// `a[1].b[2]` → `a.b`.
fn without_subscripts(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0;
    for c in name.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// SPIR-V has no boolean in a block: glslang stores a `bool` uniform as a `uint`. GL sets
/// it with `glUniform*i` or `glUniform*ui` alike, so the member says it is a `bool`.
fn mark_bool_members(blocks: &mut [UniformBlock], bools: &HashSet<String>) {
    for member in blocks.iter_mut().flat_map(|b| b.members.iter_mut()) {
        if member.scalar == Scalar::Uint && bools.contains(&without_subscripts(&member.name)) {
            member.scalar = Scalar::Bool;
        }
    }
}

/// The SPIR-V words of the module file `path`.
fn read_words(path: &std::path::Path) -> Result<Vec<u32>, SceneError> {
    let bytes = std::fs::read(path)
        .map_err(|e| SceneError::Fail(format!("cannot read {}: {e}", path.display())))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
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
        None => format!(
            "#version {number}\n{}\n{source}",
            crate::fixes::line_reset(number, 1)
        ),
    };
    let versioned = with_gpu_shader5_core(versioned, number, es);
    let fixed = crate::fixes::apply(&versioned).0;
    Ok(crate::extension_fixes::apply(&fixed).0)
}

/// A desktop unit below GLSL 4.00 that enables GL_ARB_gpu_shader5 is compiled as 4.00:
/// glslang supports the extension only partly (none of its built-in functions) and
/// GLSL 4.00 made all of it core, unchanged.
fn with_gpu_shader5_core(source: String, number: u32, es: bool) -> String {
    let enables = source.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.first() == Some(&"#extension")
            && words
                .get(1)
                .is_some_and(|w| w.trim_end_matches(':') == "GL_ARB_gpu_shader5")
    });
    if es || number >= 400 || !enables {
        return source;
    }
    let mut replaced = false;
    source
        .lines()
        .map(|l| {
            if !replaced && l.trim_start().starts_with("#version") {
                replaced = true;
                "#version 400".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
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

impl Types {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene;

    /// Asserts that `spirv-val` (Vulkan 1.1) accepts `words`; `name` names the temporary file.
    pub(super) fn assert_valid_vulkan_spirv(words: &[u32], name: &str) {
        let spv = std::env::temp_dir().join(format!("{name}_{}.spv", std::process::id()));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&spv, bytes).unwrap();
        let val = std::process::Command::new("spirv-val")
            .args(["--target-env", "vulkan1.1"])
            .arg(&spv)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&spv);
        assert!(
            val.status.success(),
            "{}",
            String::from_utf8_lossy(&val.stderr)
        );
    }

    pub(super) fn compiler() -> Compiler {
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
    fn bool_uniforms_are_found_in_glslang_reflection() {
        let reflection = "shader.frag\nUniform reflection:\n\
            flag: offset 0, type 8b56, size 1, index 0, binding -1, stages 16\n\
            s.q: offset 64, type 8b58, size 1, index 0, binding -1, stages 16\n\
            n: offset 48, type 1405, size 1, index 0, binding -1, stages 16\n\n\
            Pipeline output reflection:\nc: offset 0, type 8b56, size 1\n";
        let bools = reflected_bool_uniforms(reflection);
        assert_eq!(
            bools,
            HashSet::from(["flag".to_string(), "s.q".to_string()])
        );
        let member = |name: &str| UniformMember {
            name: name.into(),
            offset: 0,
            scalar: Scalar::Uint,
            columns: 1,
            rows: 1,
            matrix_stride: 0,
            array: None,
            row_major: false,
        };
        let mut blocks = [UniformBlock {
            binding: 0,
            gl_binding: 0,
            element: 0,
            name: None,
            size: 16,
            members: vec![member("flag"), member("s[1].q"), member("n")],
        }];
        mark_bool_members(&mut blocks, &bools);
        let scalars: Vec<Scalar> = blocks[0].members.iter().map(|m| m.scalar).collect();
        assert_eq!(scalars, [Scalar::Bool, Scalar::Bool, Scalar::Uint]);
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

    #[test]
    fn gpu_shader5_below_glsl_4_00_compiles_as_4_00() {
        let unit = "#version 150\n#extension GL_ARB_gpu_shader5 : enable\nvoid main() {}\n";
        let fixed = with_version(unit, Some(150)).unwrap();
        assert!(fixed.starts_with("#version 400\n"), "{fixed}");
        assert_eq!(fixed.lines().count(), unit.lines().count());
        // Without the extension, or from GLSL 4.00 on, the unit keeps its version.
        let plain = "#version 150\nvoid main() {}\n";
        assert!(with_version(plain, Some(150))
            .unwrap()
            .starts_with("#version 150\n"));
        let newer = "#version 410\n#extension GL_ARB_gpu_shader5 : enable\nvoid main() {}\n";
        assert!(with_version(newer, Some(410))
            .unwrap()
            .starts_with("#version 410\n"));
    }

    pub(super) fn location_of(words: &[u32], name: &str) -> Option<u32> {
        let module = dr::load_words(words).unwrap();
        let types = Types::new(&module);
        let var = types.names.iter().find(|(_, n)| n.as_str() == name)?.0;
        types
            .decoration(*var, Decoration::Location)
            .and_then(|v| v.first().copied())
    }

    /// The type the global variable `name` of `module` points to.
    pub(super) fn variable_type(module: &dr::Module, types: &Types, name: &str) -> u32 {
        let var = types
            .names
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .unwrap()
            .0;
        let ptr = module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(*var))
            .and_then(|i| i.result_type)
            .unwrap();
        types.pointee(ptr).unwrap()
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
}

//! GLSL → SPIR-V through `glslangValidator -V -R`, then the work a GL linker does that
//! glslang's per-stage compiles cannot: matching stage interfaces by name, trimming the
//! built-in `gl_PerVertex` blocks to the members in use, splitting the per-vertex arrays
//! of arrays that carry a `Component`, merging glslang's per-unit copies of a built-in,
//! placing `gl_FragData`, and giving each stage's default uniform block its own binding;
//! and one workaround for lavapipe (stores to a dynamically indexed component of a TCS
//! patch output).
//!
//! This module only orchestrates: `Compiler::build` runs glslang and then these passes,
//! in order. Its children import only one another, never this module:
//! - [`glslang`]: the `Compiler`'s paths, one stage compiled (or assembled) to SPIR-V,
//!   the `#version` glslang can take, and which messages are link errors;
//! - [`source`]: what GL's linker knows from the GLSL text and SPIR-V does not say
//!   (explicit locations and bindings by name);
//! - [`gl_spirv`]: ARB_gl_spirv modules (`SPIRV ONLY` scenes) made Vulkan ones;
//! - the link passes, over all the stages' modules at once or one at a time: [`link`]
//!   (interface locations by name, built-in copies, `gl_FragData`, block locations),
//!   [`per_vertex`] (`gl_PerVertex` trimming), [`component_arrays`] (per-vertex arrays of
//!   arrays with a `Component`), [`patch_stores`] (the lavapipe workaround) and
//!   [`vertex_inputs`](mod@vertex_inputs) (GL's vertex input locations and 64-bit inputs);
//! - [`resources`]: uniform and storage blocks and samplers bound as GL's binding points;
//! - [`program`]: the `Program` handed to the player, and GL's introspection of it;
//! - [`spv`]: `parse` and `edit`, a stage's module (SPIR-V words between the passes) read
//!   through glsem-spirv's view and edited through its `Editor`, what the body rewrites
//!   share on top of it (row-major flat indices) and
//!   the passes' questions about a stage in GL's terms (shapes, Locations, varyings);
//! - [`description`]: the types the passes describe a stage with (a leaf).
//!
//! The tests of whole programs, which drive the passes through `Compiler::build`, sit
//! above them all in `tests/`.

mod component_arrays;
mod description;
mod fragment_layer;
mod gl_spirv;
mod glslang;
mod link;
mod link_rules;
mod patch_stores;
mod per_vertex;
mod program;
mod resources;
mod sampler_arrays;
mod source;
mod spv;
mod struct_samplers;
#[cfg(test)]
mod tests;
mod vertex_inputs;

use std::collections::{BTreeMap, HashSet};

use glsem_spirv::module::{Module, Section};
use spirv::Op;

use crate::scene::{Scene, SceneError, ShaderStage};

use component_arrays::split_component_arrays;
pub use description::{
    SamplerUniform, Scalar, StorageBlock, UniformBlock, UniformMember, VertexInput,
    FIRST_STORAGE_BINDING,
};
use gl_spirv::{specialize, vulkan_from_gl_spirv};
pub use glslang::{find_glslang, is_link_error, write_limits_file, Compiler, GlslangError};
use glslang::{mark_bool_members, with_version, Unit, MIN_VULKAN_GLSL};
use link::{drop_redundant_block_locations, link_locations, merge_builtin_copies, place_frag_data};
use patch_stores::split_dynamic_patch_component_stores;
use per_vertex::trim_per_vertex_blocks;
pub use program::{Program, StageModule};
use resources::{bind_uniform_blocks, flatten_block_arrays};
use sampler_arrays::split_sampler_arrays;
use source::{explicit_location_names, uniform_locations};
use spv::{parse, xfb_varyings};
use struct_samplers::move_struct_samplers;
use vertex_inputs::{place_unlocated_inputs, spread_wide_inputs, vertex_inputs};

/// `SPIRV ONLY`: stages with SPIR-V assembly run from it; their GLSL, if any, only tells
/// what GL's linker knows from names (explicit locations and bindings).
fn spirv_shader(scene: &Scene, stage: ShaderStage) -> Option<&crate::scene::Shader> {
    scene
        .spirv
        .iter()
        .find(|s| scene.require.spirv_only && s.stage == stage)
}

/// Each stage's compilation units (GLSL and the first line of its section), in stage order.
fn stage_sources(scene: &Scene) -> Result<Vec<(ShaderStage, Vec<Unit>)>, SceneError> {
    let version = scene.require.glsl_version;
    let mut sources: Vec<(ShaderStage, Vec<Unit>)> = Vec::new();
    let mut add =
        |stage: ShaderStage, unit: Unit| match sources.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, units)) => units.push(unit),
            None => sources.push((stage, vec![unit])),
        };
    if scene.passthrough_vs {
        let body = "in vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n";
        // A compatibility scene's GLSL 1.10-1.30 shaders are compiled as 1.50 (`compat`).
        let version = Some(version.unwrap_or(MIN_VULKAN_GLSL).max(MIN_VULKAN_GLSL));
        add(ShaderStage::Vertex, (with_version(body, version)?, None));
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
        .any(|(s, ..)| matches!(s, ShaderStage::Vertex | ShaderStage::Compute))
    {
        return Err(SceneError::Skip(
            "no vertex shader (fixed-function vertex processing is not supported)".into(),
        ));
    }
    sources.sort_by_key(|(s, ..)| *s);
    Ok(sources)
}

/// Source fixes over all the compilation units of a stage.
fn fix_sources(sources: &mut [(ShaderStage, Vec<Unit>)]) -> Result<(), SceneError> {
    for (stage, units) in sources {
        let mut texts: Vec<String> = units.iter().map(|(t, _)| t.clone()).collect();
        crate::fixes::per_vertex_sizes(*stage, &mut texts);
        crate::implicit_arrays::size_implicit_arrays(&mut texts);
        for text in &mut texts {
            if let Some(fixed) = crate::rect_textures::rectangle_lookups(text) {
                *text = fixed;
            }
        }
        if *stage == ShaderStage::Fragment {
            crate::fixes::frag_coord(&mut texts).map_err(SceneError::Fail)?;
            crate::extension_fixes::fragment_layer_viewport(&mut texts);
        }
        if *stage == ShaderStage::Vertex {
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
    sources: &mut [(ShaderStage, Vec<Unit>)],
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
    modules: &mut [(ShaderStage, Vec<u32>, HashSet<String>)],
    separate: bool,
) -> Result<(), SceneError> {
    link_rules::check_program(modules, separate).map_err(SceneError::Fail)?;
    link_locations(modules, separate).map_err(SceneError::Fail)?;
    if let Some((_, module, explicit)) =
        modules.iter_mut().find(|(s, ..)| *s == ShaderStage::Vertex)
    {
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
    stage: ShaderStage,
    mut module: Vec<u32>,
    from: &StageFrom,
    named_blocks: &mut BTreeMap<String, u32>,
) -> Result<StageModule, SceneError> {
    let location_orders = move_struct_samplers(&mut module)?;
    let split_samplers = split_sampler_arrays(&mut module, &location_orders)?;
    let (mut uniform_blocks, mut samplers, storage_blocks) = bind_uniform_blocks(
        &mut module,
        from.index,
        named_blocks,
        from.source,
        from.spirv,
    )?;
    mark_bool_members(&mut uniform_blocks, from.bool_uniforms);
    let view = parse(&module);
    for split in split_samplers {
        let name = view.name_of(split.var);
        if let Some(sampler) = samplers.iter_mut().find(|s| Some(&s.name) == name.as_ref()) {
            sampler.elements = split.elements;
            sampler.element_locations = split.locations;
        }
    }
    drop(view);
    flatten_block_arrays(&mut module)?;
    if stage == ShaderStage::Fragment {
        place_frag_data(&mut module);
    }
    let vertex_inputs = if stage == ShaderStage::Vertex {
        let gl_locations = spread_wide_inputs(&mut module);
        vertex_inputs(&parse(&module), &gl_locations)
    } else {
        Vec::new()
    };
    let view = parse(&module);
    let capabilities = view
        .insts
        .range(view.section_range(Section::Capability))
        .filter_map(|i| spirv::Capability::from_u32(i.operand(0)))
        .collect();
    let xfb = view
        .insts
        .range(view.section_range(Section::ExecutionMode))
        .any(|i| {
            i.op() == Some(Op::ExecutionMode) && i.operand(1) == spirv::ExecutionMode::Xfb as u32
        });
    let xfb_varyings = xfb_varyings(&view);
    drop(view);
    Ok(StageModule {
        stage,
        uniform_locations: uniform_locations(from.source),
        xfb_varyings,
        words: module,
        capabilities,
        uniform_blocks,
        samplers,
        storage_blocks,
        vertex_inputs,
        xfb,
    })
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
        sources: &[(ShaderStage, Vec<Unit>)],
    ) -> Result<
        (
            Vec<(ShaderStage, Vec<u32>, HashSet<String>)>,
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
            // The passes take the module as well-formed from here on.
            Module::parse(&words).map_err(|e| {
                SceneError::Fail(format!(
                    "cannot parse the SPIR-V of the {stage:?} shader: {e}"
                ))
            })?;
            let mut module = words;
            merge_builtin_copies(&mut module);
            match stage {
                ShaderStage::Fragment => fragment_layer::restore_fragment_builtins(&mut module),
                ShaderStage::Vertex => fragment_layer::restore_vertex_builtins(&mut module),
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
}

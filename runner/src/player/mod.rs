//! Plays a scene's `[test]` commands on a device, as the GL application would.
//!
//! Every command is recorded into its own command buffer, submitted and waited for: scenes
//! are small, and it keeps uniform updates, probes and readbacks trivially ordered.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use ash::vk;
use glsem_spirv::interface::entry_point_ends;

use crate::glsl::{Compiler, Program, SamplerUniform, UniformBlock};
use crate::probe::DEFAULT_TOLERANCE;
use crate::report::Outcome;
use crate::scene::{
    self, Capability, Command, Feature, Mode, PolygonMode, Query, Scene, SceneError, ShaderStage,
};
use crate::vk::features::CoreFeature;
use crate::vk::format::Format;
use crate::vk::pipeline::{self, RasterState};
use crate::vk::target::Targets;
use crate::vk::{check, take_messages, Buffer, Gpu, Needs, VkResult, Vulkan};
use crate::{compat, gles};

mod buffers;
mod draw;
mod images;
mod probes;
mod state;
mod textures;
mod uniforms;

use draw::DrawCall;
pub use state::Player;
use state::{
    fail, words_to_bytes, BlockData, GlState, ImageUnits, StorageBuffers, Textures, RECT_STRIDE,
};

pub const TES_WITHOUT_TCS: &str = "invalid on plain Vulkan: tessellation evaluation shader without control shader (VUID-VkGraphicsPipelineCreateInfo-pStages-00730)";

pub struct Options {
    pub png_dir: Option<PathBuf>,
    /// The device must be able to present (`--window`): `VK_KHR_swapchain`.
    pub present: bool,
    /// `--piglit`: play piglit's own tests with its shader_runner's defaults where the scene
    /// format differs (XFB buffers start zeroed, as shader_runner uploads calloc'd memory;
    /// scenes fill them with 0xCD so that bytes no capture wrote stand out).
    pub piglit: bool,
}

/// What `xfb buffer object` fills a new buffer with.
fn xfb_fill(options: &Options) -> u8 {
    if options.piglit {
        0
    } else {
        0xCD
    }
}

/// Runs one scene file; also returns the device name when one was created.
pub fn run(
    vulkan: &Vulkan,
    compiler: &Compiler,
    path: &Path,
    options: &Options,
) -> (Outcome, Option<String>) {
    let played = play(vulkan, compiler, path, options);
    drop(played.player);
    // Messages raised while tearing down (leaks, ...) belong to this scene too.
    let messages = take_messages();
    let outcome = match played.outcome {
        Outcome::Pass if !messages.is_empty() => {
            Outcome::Fail(format!("validation error: {}", messages[0]))
        }
        outcome => outcome,
    };
    (outcome, played.device)
}

/// A scene that ran as far as it could.
pub struct Played {
    pub outcome: Outcome,
    /// The device name, when one was created.
    pub device: Option<String>,
    /// The device and render targets in the state where the scene stopped, when it got
    /// as far as creating them.
    pub player: Option<Player>,
}

/// Runs one scene file and keeps its player alive (for `--window`, which shows the
/// targets); validation messages of its teardown are not in `outcome`.
pub fn play(vulkan: &Vulkan, compiler: &Compiler, path: &Path, options: &Options) -> Played {
    let stop = |outcome: Outcome, device: Option<String>| Played {
        outcome,
        device,
        player: None,
    };
    let (scene, program) = match compile(vulkan, compiler, path, options) {
        Ok(compiled) => compiled,
        Err(outcome) => return stop(outcome, None),
    };
    let mut needs = needs(&scene, &program);
    needs.swapchain = options.present;
    let gpu = match Gpu::new(vulkan, &needs) {
        Ok(g) => g,
        Err(e) => return stop(e.into(), None),
    };
    let device = Some(gpu.name.clone());
    if let Some(why) = lacking_limit(&scene, &gpu)
        .or_else(|| lacking_levels(&scene, &gpu))
        .or_else(|| lacking_vertex_attributes(&program, &gpu))
    {
        return stop(Outcome::Skip(why), device);
    }
    let note = gl_state_note(&scene, &gpu);
    take_messages();
    let mut player = match Player::new(gpu, &scene, &program, options) {
        Ok(p) => p,
        Err(e) => return stop(e.into(), device),
    };
    let outcome = match player.play(&scene, path, options) {
        Err(SceneError::Fail(m)) => Outcome::Fail(m + &note),
        Err(e) => e.into(),
        Ok(()) => match take_messages().first() {
            Some(m) => Outcome::Fail(format!("validation error: {m}")),
            None => Outcome::Pass,
        },
    };
    Played {
        outcome,
        device,
        player: Some(player),
    }
}

/// Reads, parses, lowers and compiles the scene; the outcome when it stops there.
fn compile(
    vulkan: &Vulkan,
    compiler: &Compiler,
    path: &Path,
    options: &Options,
) -> Result<(Scene, Program), Outcome> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Outcome::Fail(format!("cannot read the scene: {e}")))?;
    let dialect = if options.piglit {
        scene::Dialect::Piglit
    } else {
        scene::Dialect::Scene
    };
    let mut scene = scene::parse_as(&text, dialect)?;
    let link_error = scene.uses(|c| matches!(c, Command::LinkError));
    for lower in [compat::lower, gles::lower] {
        match lower(&mut scene) {
            // A link error the lowering finds (between redeclared compatibility colours,
            // GL ES's uniform precisions).
            Err(SceneError::Fail(m)) if link_error && crate::glsl::is_link_error(&m) => {
                return Err(Outcome::Pass)
            }
            result => result?,
        }
    }
    // Never hand such a pipeline to a driver: lavapipe and NVIDIA crash on it.
    if scene.has_stage(ShaderStage::TessEval)
        && !scene.has_stage(ShaderStage::TessControl)
        && !vulkan.layer
    {
        return Err(Outcome::Fail(TES_WITHOUT_TCS.into()));
    }
    // `link error`: GL links the stages' shaders; glslang links a stage's compilation
    // units (`-l`) and reports what it finds as `Linking … stage` errors, and the runner
    // checks what GL matches between stages (`glsl::link_rules`). GL's other link-time
    // checks are not reproduced.
    match compiler.build(&scene) {
        Ok(_) if link_error => Err(Outcome::Skip(
            "`link error`: glslang links the program; GL's link-time errors between \
             stages beyond uniforms, blocks and interface types are not reproduced"
                .into(),
        )),
        Ok(program) => Ok((scene, program)),
        Err(SceneError::Fail(m)) if link_error && crate::glsl::is_link_error(&m) => {
            Err(Outcome::Pass)
        }
        Err(e) => Err(e.into()),
    }
}

/// Why the device cannot play the scene's `patch parameter default level`, if it cannot.
fn lacking_levels(scene: &Scene, gpu: &Gpu) -> Option<String> {
    let uses_levels = scene.uses(|c| {
        matches!(
            c,
            Command::DefaultOuterLevels(_) | Command::DefaultInnerLevels(_)
        )
    });
    (uses_levels && gpu.set_levels.is_none()).then(|| {
        format!(
            "`patch parameter default level` needs vkCmdSetTessellationDefaultLevelsGLSEM: {}",
            gpu.levels_missing
        )
    })
}

/// Without VK_GLSEM_gl_state the GL state commands are not applied (plain Vulkan has no
/// such state); the scene runs anyway and its probes decide, and a failure says so: what
/// it says (empty where the state is applied or unused).
fn gl_state_note(scene: &Scene, gpu: &Gpu) -> String {
    let uses_gl_state = scene.uses(|c| {
        matches!(
            c,
            Command::PointSize(_)
                | Command::LineStipple { .. }
                | Command::VertexAttrib { .. }
                | Command::PointSpriteLowerLeft(_)
                | Command::Enable(
                    Capability::ProgramPointSize
                        | Capability::ClipDistance(_)
                        | Capability::LineStipple,
                    _
                )
        )
    });
    let uses_gl_modes = scene.draws_with(Mode::layer_drawn);
    if gpu.gl_state.is_some() {
        return String::new();
    }
    let mut note = String::new();
    if uses_gl_state {
        note += " (GL point size / clip-distance / line stipple / sprite origin / current \
                  attribute state not applied)";
    }
    if uses_gl_modes {
        note += " (GL_QUADS / GL_QUAD_STRIP / GL_POLYGON drawn as a plain triangle strip, \
                  GL_LINE_LOOP as an open line strip)";
    }
    if !note.is_empty() {
        note += &format!(": {}", gpu.gl_state_missing);
    }
    note
}

/// The vertex shader reads more attribute Locations than the device has
/// (`maxVertexInputAttributes`): GL fails to link such a program (past
/// `GL_MAX_VERTEX_ATTRIBS`), so the scene SKIPs naming the limit.
fn lacking_vertex_attributes(program: &Program, gpu: &Gpu) -> Option<String> {
    let vs = program.stage(ShaderStage::Vertex)?;
    let reads = entry_point_ends(&vs.words)
        .into_iter()
        .map(|(_, _, ends)| ends.input)
        .max()?;
    let have = gpu.limits.max_vertex_input_attributes;
    (reads > have).then(|| {
        format!(
            "{} has maxVertexInputAttributes {have}, the vertex shader reads {reads} attribute \
             Locations",
            gpu.name
        )
    })
}

/// The first `[require]` limit the device does not reach, as a SKIP reason.
fn lacking_limit(scene: &Scene, gpu: &Gpu) -> Option<String> {
    use scene::Limit as L;
    let l = &gpu.limits;
    scene.require.limits.iter().find_map(|(limit, want)| {
        let have = match limit {
            L::VertexOutputComponents => l.max_vertex_output_components,
            L::FragmentInputComponents => l.max_fragment_input_components,
            L::GeometryOutputComponents => l.max_geometry_output_components,
            L::GeometryInputComponents => l.max_geometry_input_components,
            L::GeometryOutputVertices => l.max_geometry_output_vertices,
            L::GeometryTotalOutputComponents => l.max_geometry_total_output_components,
            L::TessControlInputComponents => l.max_tessellation_control_per_vertex_input_components,
            L::TessControlOutputComponents => {
                l.max_tessellation_control_per_vertex_output_components
            }
            L::TessEvaluationInputComponents => l.max_tessellation_evaluation_input_components,
            L::TessEvaluationOutputComponents => l.max_tessellation_evaluation_output_components,
            L::TessPatchComponents => l.max_tessellation_control_per_patch_output_components,
            L::TessGenLevel => l.max_tessellation_generation_level,
            L::PatchVertices => l.max_tessellation_patch_size,
            L::VertexAttribs => l.max_vertex_input_attributes,
            L::UniformComponents => l.max_uniform_buffer_range / 4,
            L::DrawBuffers => l.max_color_attachments,
            L::ClipDistances => l.max_clip_distances,
            L::AtomicCounterBuffers => l.max_per_stage_descriptor_storage_buffers,
            L::AtomicCounters => l.max_storage_buffer_range / 4,
        };
        (have < *want).then(|| format!("{} has {limit:?} {have}, the scene needs {want}", gpu.name))
    })
}

/// Device features from `[require]`, the SPIR-V capabilities and the commands used.
fn needs(scene: &Scene, program: &Program) -> Needs {
    use spirv::Capability as C;
    let req = |f: Feature| scene.require.features.contains(&f);
    let cap = |c: C| program.has_capability(c);
    let mut features: BTreeSet<CoreFeature> = program
        .stages
        .iter()
        .flat_map(|s| &s.capabilities)
        .filter_map(|&c| CoreFeature::for_capability(c))
        .collect();
    let required = [
        (
            req(Feature::Tessellation) || program.stage(ShaderStage::TessEval).is_some(),
            CoreFeature::TessellationShader,
        ),
        (req(Feature::Geometry), CoreFeature::GeometryShader),
        (req(Feature::Float64), CoreFeature::ShaderFloat64),
        (req(Feature::Int64), CoreFeature::ShaderInt64),
        (req(Feature::DualSrcBlend), CoreFeature::DualSrcBlend),
        (
            scene.uses(|c| {
                matches!(
                    c,
                    Command::PolygonMode(PolygonMode::Line | PolygonMode::Point)
                )
            }),
            CoreFeature::FillModeNonSolid,
        ),
        (
            scene.uses(|c| {
                matches!(
                    c,
                    Command::DrawArrays {
                        indirect: true,
                        base_instance: 1..,
                        ..
                    } | Command::DrawElements {
                        indirect: true,
                        base_instance: 1..,
                        ..
                    }
                )
            }),
            CoreFeature::DrawIndirectFirstInstance,
        ),
    ];
    let (list_restart, patch_list_restart) = restarted_topologies(scene);
    features.extend(required.iter().filter(|(on, _)| *on).map(|(_, f)| *f));
    Needs {
        features,
        transform_feedback: req(Feature::TransformFeedback)
            || cap(C::TransformFeedback)
            || scene
                .uses(|c| matches!(c, Command::XfbBuffer { .. } | Command::XfbDrawArrays { .. })),
        geometry_streams: cap(C::GeometryStreams),
        dynamic_rendering: scene.uses(|c| matches!(c, Command::FbDynamicRendering)),
        // Set by `play` for `--window`; scenes themselves never present.
        swapchain: false,
        provoking_vertex: scene.uses(|c| matches!(c, Command::ProvokingFirst(true))),
        viewport_index_layer: cap(C::ShaderViewportIndexLayerEXT),
        index_type_uint8: scene.uses(|c| *c == Command::IndexType(scene::IndexType::Uint8)),
        list_restart,
        patch_list_restart,
        color_attachments: scene
            .commands
            .iter()
            .filter_map(|l| match &l.command {
                Command::FbAttachments(f) => Some(f.len() as u32),
                _ => None,
            })
            .max()
            .unwrap_or(1),
    }
}

/// Whether the scene's indexed draws restart list topologies, and patch lists: Vulkan
/// restarts those only with `primitiveTopologyListRestart` and
/// `primitiveTopologyPatchListRestart`.
fn restarted_topologies(scene: &Scene) -> (bool, bool) {
    use vk::PrimitiveTopology as T;
    let (mut restart, mut lists, mut patches) = (false, false, false);
    for line in &scene.commands {
        match line.command {
            Command::Enable(Capability::PrimitiveRestartFixedIndex, on) => restart = on,
            Command::DrawElements { mode, .. } if restart => match pipeline::topology(mode) {
                T::PATCH_LIST => patches = true,
                T::POINT_LIST
                | T::LINE_LIST
                | T::TRIANGLE_LIST
                | T::LINE_LIST_WITH_ADJACENCY
                | T::TRIANGLE_LIST_WITH_ADJACENCY => lists = true,
                _ => {}
            },
            _ => {}
        }
    }
    (lists, patches)
}

/// An `image2D` is a storage image, a `sampler2D` a combined image sampler.
fn sampler_descriptor_type(sampler: &SamplerUniform) -> vk::DescriptorType {
    if sampler.storage_image {
        vk::DescriptorType::STORAGE_IMAGE
    } else {
        vk::DescriptorType::COMBINED_IMAGE_SAMPLER
    }
}

/// Whether the window has a depth buffer: as in piglit, only when `[require]` says
/// `depthbuffer` (without one GL's depth test always passes and writes nothing).
fn uses_depth(scene: &Scene) -> bool {
    scene.require.depth_buffer
}

/// (0, 0, 0, 1) as doubles: GL's current value of a double attribute the scene does not
/// feed, read through a stride-0 binding as `R64G64B64A64_SFLOAT` (glsem feeds every other
/// unfed input itself).
const CONSTANT_ATTRIBUTE: [u32; 8] = [0, 0, 0, 0, 0, 0, 0, 0x3ff0_0000];

/// The stride-0 vertex buffer of `CONSTANT_ATTRIBUTE`.
fn constant_attribute_buffer(gpu: &Gpu) -> Result<Buffer, SceneError> {
    let mut buffer = gpu
        .buffer(
            4 * CONSTANT_ATTRIBUTE.len() as u64,
            vk::BufferUsageFlags::VERTEX_BUFFER,
        )
        .map_err(fail)?;
    buffer
        .bytes_mut()
        .copy_from_slice(&words_to_bytes(&CONSTANT_ATTRIBUTE));
    Ok(buffer)
}

/// The query pool of `xfb draw arrays`' transform feedback query (null without
/// VK_EXT_transform_feedback).
fn xfb_query_pool(gpu: &Gpu) -> Result<vk::QueryPool, SceneError> {
    if gpu.xfb.is_none() {
        return Ok(vk::QueryPool::null());
    }
    let info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::TRANSFORM_FEEDBACK_STREAM_EXT)
        .query_count(1);
    // SAFETY: transform feedback's query type, with VK_EXT_transform_feedback
    // enabled (`gpu.xfb` is loaded only then).
    unsafe { gpu.device.create_query_pool(&info, None) }
        .map_err(check("vkCreateQueryPool"))
        .map_err(fail)
}

/// Fails unless GL's count `what` is `expected`.
fn verify_count<T: PartialEq + std::fmt::Display>(
    what: &str,
    expected: T,
    got: T,
) -> Result<(), SceneError> {
    if got != expected {
        return Err(fail(format!("{what}: expected {expected}, observed {got}")));
    }
    Ok(())
}

impl Player {
    fn new(
        gpu: Gpu,
        scene: &Scene,
        program: &Program,
        options: &Options,
    ) -> Result<Player, SceneError> {
        let mut data = scene.vertex_data.clone().unwrap_or_default();
        let bytes = std::mem::take(&mut data.bytes);
        let mut player = Player::with_device_objects(gpu, scene, program, options, data)?;
        player.create_program_objects(program).map_err(fail)?;
        if player.gpu.pipelines == pipeline::Path::ShaderObjects {
            player.create_shader_objects(scene, program)?;
        }
        player
            .apply_initializers(&program.initializers)
            .map_err(fail)?;
        if !bytes.is_empty() {
            let mut vb = player
                .gpu
                .buffer(bytes.len() as u64, vk::BufferUsageFlags::VERTEX_BUFFER)
                .map_err(fail)?;
            vb.bytes_mut()[..bytes.len()].copy_from_slice(&bytes);
            player.vertex_buffer = Some(vb);
        }
        player.init_targets().map_err(fail)?;
        Ok(player)
    }

    /// The player at GL's initial state, with the objects every scene uses (command
    /// buffer, rectangle and constant vertex buffers, render targets, XFB query pool) but
    /// none of the program's.
    fn with_device_objects(
        gpu: Gpu,
        scene: &Scene,
        program: &Program,
        options: &Options,
        data: scene::VertexData,
    ) -> Result<Player, SceneError> {
        let (cmd_pool, cmd, fence) = gpu.command_objects().map_err(fail)?;
        let rect_buffer = gpu
            .buffer(4 * RECT_STRIDE as u64, vk::BufferUsageFlags::VERTEX_BUFFER)
            .map_err(fail)?;
        let constant_buffer = constant_attribute_buffer(&gpu)?;
        let depth = uses_depth(scene);
        // Shader objects draw only inside vkCmdBeginRendering.
        let dynamic = gpu.pipelines == pipeline::Path::ShaderObjects;
        let (w, h) = (scene.require.width, scene.require.height);
        let targets = Targets::new(&gpu, (w, h, 1), &[Some(Format::DEFAULT)], dynamic, depth)
            .map_err(fail)?;
        let query_pool = xfb_query_pool(&gpu)?;
        Ok(Player {
            xfb_fill: xfb_fill(options),
            cmd_pool,
            cmd,
            fence,
            modules: Vec::new(),
            set_layout: vk::DescriptorSetLayout::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            descriptor_set: vk::DescriptorSet::null(),
            layout: vk::PipelineLayout::null(),
            uniforms: Vec::new(),
            vertex_buffer: None,
            indices: scene.indices.clone(),
            index_buffer: None,
            index_type: scene::IndexType::default(),
            primitive_restart: false,
            indirect_buffer: None,
            rect_buffer,
            constant_buffer,
            targets,
            pipelines: HashMap::new(),
            shaders: Vec::new(),
            compute_pipeline: None,
            xfb_buffers: BTreeMap::new(),
            query_pool,
            query: None,
            has_xfb_output: program.stages.iter().any(|s| s.xfb),
            has_tess: program.stage(ShaderStage::TessEval).is_some(),
            has_geometry: program.stage(ShaderStage::Geometry).is_some(),
            vertex_inputs: program.vertex_inputs().to_vec(),
            vertex_attributes: data.attributes,
            vertex_stride: data.stride,
            vertex_count: data.vertex_count,
            passthrough_vs: scene.passthrough_vs,
            clear_color: [0.0; 4],
            tolerance: DEFAULT_TOLERANCE,
            patch_vertices: 3,
            outer: [1.0; 4],
            inner: [1.0; 2],
            readback_fresh: false,
            xfb_varyings: program
                .stages
                .iter()
                .rfind(|s| s.stage != ShaderStage::Fragment)
                .map_or(0, |s| s.xfb_varyings),
            program: program.clone(),
            block_data: BlockData::default(),
            ubo_array_index: 0,
            active_stage: None,
            textures: Textures::default(),
            images: ImageUnits::default(),
            junk_arrays: BTreeMap::new(),
            storage: StorageBuffers::default(),
            gl_state: GlState::default(),
            raster: RasterState::default(),
            clear_depth: 1.0,
            depth,
            gpu,
        })
    }

    /// `--pipelines shader-objects`: the program's shaders.
    fn create_shader_objects(
        &mut self,
        scene: &Scene,
        program: &Program,
    ) -> Result<(), SceneError> {
        let stages: Vec<_> = program
            .stages
            .iter()
            .map(|s| (s.stage, s.words.as_slice()))
            .collect();
        let set_layouts: Vec<_> = [self.set_layout]
            .into_iter()
            .filter(|l| *l != vk::DescriptorSetLayout::null())
            .collect();
        // The layer draws GL's quads, quad strips and polygons after a vertex shader object
        // that is not linked (its geometry shader goes between it and the fragment shader).
        let draws_through_geometry = scene.draws_with(Mode::compat_only);
        self.shaders = pipeline::create_shaders(
            &self.gpu,
            &self.targets,
            &stages,
            &set_layouts,
            scene.require.separate_programs || draws_through_geometry,
        )
        .map_err(fail)?;
        Ok(())
    }

    fn create_program_objects(&mut self, program: &Program) -> VkResult<()> {
        let d = &self.gpu.device;
        for stage in &program.stages {
            let info = vk::ShaderModuleCreateInfo::default().code(&stage.words);
            // SAFETY: `stage.words` is the SPIR-V the compiler produced (and validated), alive
            // for the call.
            let module = unsafe { d.create_shader_module(&info, None) }
                .map_err(check("vkCreateShaderModule"))?;
            self.modules.push((stage.stage, module));
        }
        // One buffer per block: a stage's default block, or a named block shared by every
        // stage that declares it.
        let mut blocks: BTreeMap<(u32, u32), (UniformBlock, vk::ShaderStageFlags)> =
            BTreeMap::new();
        for stage in &program.stages {
            for block in &stage.uniform_blocks {
                blocks
                    .entry((block.binding, block.element))
                    .or_insert_with(|| (block.clone(), vk::ShaderStageFlags::empty()))
                    .1 |= pipeline::stage_flag(stage.stage);
            }
        }
        let mut bindings = Vec::new();
        for ((binding, element), (block, stages)) in blocks {
            // An array of blocks: one binding, a descriptor per element.
            if element == 0 {
                bindings.push(
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(binding)
                        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                        .descriptor_count(1)
                        .stage_flags(stages),
                );
            } else if let Some(b) = bindings.iter_mut().find(|b| b.binding == binding) {
                b.descriptor_count = b.descriptor_count.max(element + 1);
            }
            let mut buffer = self
                .gpu
                .buffer(block.size as u64, vk::BufferUsageFlags::UNIFORM_BUFFER)?;
            // GL initializes every uniform to zero at link time; fresh memory is undefined.
            buffer.bytes_mut().fill(0);
            self.uniforms.push((block, buffer));
        }
        for stage in &program.stages {
            for sampler in &stage.samplers {
                self.textures
                    .samplers
                    .entry(sampler.binding)
                    .or_insert_with(|| {
                        // GL gives element i of `layout(binding = N)` unit N + i.
                        let units = (0..sampler.count).map(|i| sampler.unit + i).collect();
                        (sampler.clone(), vk::ShaderStageFlags::empty(), units)
                    })
                    .1 |= pipeline::stage_flag(stage.stage);
            }
        }
        for stage in &program.stages {
            for block in &stage.storage_blocks {
                self.storage
                    .blocks
                    .entry(block.gl_binding)
                    .or_insert_with(|| (block.clone(), vk::ShaderStageFlags::empty()))
                    .1 |= pipeline::stage_flag(stage.stage);
            }
        }
        for (gl_binding, (block, stages)) in &self.storage.blocks {
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(crate::glsl::FIRST_STORAGE_BINDING + gl_binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(block.count)
                    .stage_flags(*stages),
            );
        }
        for (binding, (sampler, stages, _)) in &self.textures.samplers {
            bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(*binding)
                    .descriptor_type(sampler_descriptor_type(sampler))
                    .descriptor_count(sampler.count)
                    .stage_flags(*stages),
            );
        }
        let mut set_layouts = Vec::new();
        if !bindings.is_empty() {
            self.create_descriptor_set(&bindings)?;
            set_layouts.push(self.set_layout);
        }
        // The glsem layer adds its own push-constant range for a generated TCS.
        let info = vk::PipelineLayoutCreateInfo::default()
            .flags(self.gpu.pipelines.layout_flags())
            .set_layouts(&set_layouts);
        // SAFETY: `set_layouts` holds at most `self.set_layout`, made on this device above;
        // the array outlives the call.
        self.layout = unsafe { self.gpu.device.create_pipeline_layout(&info, None) }
            .map_err(check("vkCreatePipelineLayout"))?;
        Ok(())
    }

    /// The descriptor set layout of `bindings`, a pool for one set of it, the set, and the
    /// set's uniform-buffer writes (textures and storage buffers are written per draw).
    fn create_descriptor_set(
        &mut self,
        bindings: &[vk::DescriptorSetLayoutBinding<'_>],
    ) -> VkResult<()> {
        let d = &self.gpu.device;
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
        // SAFETY: `info` points at `bindings`, which outlives the call (no immutable samplers).
        self.set_layout = unsafe { d.create_descriptor_set_layout(&info, None) }
            .map_err(check("vkCreateDescriptorSetLayout"))?;
        // The sampler uniforms' descriptors, of storage images or of sampled ones.
        let image_descriptors = |storage: bool| {
            self.textures
                .samplers
                .values()
                .filter(|(s, ..)| s.storage_image == storage)
                .map(|(s, ..)| s.count)
                .sum::<u32>()
                .max(1)
        };
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::UNIFORM_BUFFER,
                descriptor_count: (self.uniforms.len() as u32).max(1),
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                descriptor_count: image_descriptors(false),
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_IMAGE,
                descriptor_count: image_descriptors(true),
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: self
                    .storage
                    .blocks
                    .values()
                    .map(|(b, _)| b.count)
                    .sum::<u32>()
                    .max(1),
            },
        ];
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        // SAFETY: `info` points at `sizes`, which outlives the call.
        self.descriptor_pool = unsafe { d.create_descriptor_pool(&info, None) }
            .map_err(check("vkCreateDescriptorPool"))?;
        let layouts = [self.set_layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.descriptor_pool)
            .set_layouts(&layouts);
        // SAFETY: the pool and the layout were just made on this device; the pool has room
        // for one set of every descriptor the layout declares (the sizes above).
        self.descriptor_set = unsafe { d.allocate_descriptor_sets(&info) }
            .map_err(check("vkAllocateDescriptorSets"))?[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = self
            .uniforms
            .iter()
            .map(|(_, b)| {
                [vk::DescriptorBufferInfo {
                    buffer: b.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }]
            })
            .collect();
        let writes: Vec<_> = self
            .uniforms
            .iter()
            .zip(&infos)
            .map(|((block, _), info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(self.descriptor_set)
                    .dst_binding(block.binding)
                    .dst_array_element(block.element)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: the set was just allocated and no command buffer uses it yet; each write
        // names a uniform-buffer binding of its layout and a live buffer of this device, and
        // `infos` outlives the call.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }

    fn init_targets(&mut self) -> VkResult<()> {
        // Fresh images are undefined; GL's new framebuffers read as zero.
        self.submit(|p, cmd| {
            p.targets.record_init(&p.gpu, cmd);
            p.barrier(cmd);
            p.targets.record_clear(&p.gpu, cmd, [0.0; 4]);
            p.targets.record_clear_depth(&p.gpu, cmd, 1.0);
        })
    }

    /// Runs the commands, then writes the PNGs; a failed scene still gets its PNGs (of the
    /// state where it stopped), which is what shows what went wrong.
    fn play(&mut self, scene: &Scene, path: &Path, options: &Options) -> Result<(), SceneError> {
        let result = self.play_commands(scene);
        let Some(dir) = &options.png_dir else {
            return result;
        };
        let written = self.write_pngs(dir, path).map_err(fail);
        result.and(written)
    }

    fn play_commands(&mut self, scene: &Scene) -> Result<(), SceneError> {
        for line in &scene.commands {
            let result = self.execute(&line.command);
            let messages = take_messages();
            let prefix = |m: String| format!("line {}: {m}", line.number);
            match result {
                Err(SceneError::Fail(m)) => return Err(SceneError::Fail(prefix(m))),
                Err(SceneError::Skip(m)) => return Err(SceneError::Skip(prefix(m))),
                Ok(()) if !messages.is_empty() => {
                    return Err(SceneError::Fail(prefix(format!(
                        "validation error: {}",
                        messages[0]
                    ))))
                }
                Ok(()) => {}
            }
        }
        Ok(())
    }

    fn execute(&mut self, command: &Command) -> Result<(), SceneError> {
        match command {
            Command::ClearColor(c) => self.clear_color = *c,
            Command::Clear => self.clear()?,
            Command::DrawRect(rect) => self.draw_rect(rect)?,
            Command::DrawArrays {
                mode,
                first,
                count,
                instances,
                base_instance,
                indirect,
            } => self.draw(DrawCall {
                indirect: *indirect,
                ..DrawCall::arrays(*mode, [*first, *count], *instances, *base_instance)
            })?,
            Command::DrawElements {
                mode,
                count,
                first,
                instances,
                base_vertex,
                base_instance,
                indirect,
            } => self.draw(DrawCall {
                base_vertex: Some(*base_vertex),
                indirect: *indirect,
                ..DrawCall::arrays(*mode, [*first, *count], *instances, *base_instance)
            })?,
            Command::IndexType(ty) => self.index_type = *ty,
            Command::XfbDrawArrays { mode, first, count } => self.draw(DrawCall {
                xfb: true,
                ..DrawCall::arrays(*mode, [*first, *count], 1, 0)
            })?,
            Command::PatchVertices(n) => self.set_patch_vertices(*n)?,
            Command::DefaultOuterLevels(l) => self.outer = *l,
            Command::DefaultInnerLevels(l) => self.inner = *l,
            Command::Uniform(u) => self.set_uniform(u)?,
            Command::Tolerance(t) => self.tolerance = *t,
            Command::Probe(p) => self.probe(p)?,
            Command::XfbBuffer { index, size } => self.create_xfb_buffer(*index, *size)?,
            Command::ProbeXfb {
                kind,
                index,
                element,
                value,
            } => self.probe_xfb(*kind, *index, *element, *value)?,
            Command::VerifyQuery { query, expected } => self.verify_query(*query, *expected)?,
            Command::FbAttachments(names) => self.fb_attachments(names)?,
            Command::LinkSuccess | Command::LinkError | Command::MemoryBarrier | Command::Hint => {}
            Command::ImageTexture { unit, format } => self.bind_image_texture(*unit, format)?,
            Command::FbTexture(unit) => self.fb_texture(*unit)?,
            Command::Compute(groups) => self.dispatch(*groups)?,
            Command::Ssbo { index, size } => self.create_ssbo(*index, *size)?,
            Command::SsboSubdata {
                index,
                offset,
                values,
            } => self.ssbo_subdata(*index, *offset, values)?,
            Command::ProbeSsbo {
                index,
                offset,
                compare,
                value,
            } => self.probe_ssbo(*index, *offset, *compare, *value)?,
            Command::VerifyXfbVaryings(expected) => verify_count(
                "GL_TRANSFORM_FEEDBACK_VARYINGS",
                *expected,
                self.xfb_varyings,
            )?,
            Command::VerifyActiveUniforms(expected) => verify_count(
                "GL_ACTIVE_UNIFORMS",
                *expected,
                self.program.active_uniforms(),
            )?,
            Command::VerifyActiveUniformBlocks(expected) => verify_count(
                "GL_ACTIVE_UNIFORM_BLOCKS",
                *expected,
                self.program.active_uniform_blocks(),
            )?,
            Command::VerifyBlock {
                storage,
                name,
                property,
                expected,
            } => self.verify_block(*storage, name, *property, *expected)?,
            Command::ActiveUniform {
                name,
                property,
                expected,
            } => self.verify_active_uniform(name, *property, expected)?,
            Command::Block(field) => self.block_data.set(*field),
            Command::UboArrayIndex(i) => self.ubo_array_index = *i,
            Command::ActiveShaderProgram(stage) => self.active_stage = Some(*stage),
            Command::Texture { unit, image } => self.create_texture(*unit, image)?,
            Command::TexParameter(f) => self.tex_parameter(*f)?,
            Command::TexSampling(setting) => self.tex_sampling(*setting)?,
            Command::PointSize(size) => self.gl_state.point_size = *size,
            Command::Enable(cap, on) => self.enable(*cap, *on),
            Command::LineWidth(width) => self.set_line_width(*width)?,
            Command::LineStipple { factor, pattern } => self.set_line_stipple(*factor, *pattern),
            Command::VertexAttrib { name, kind, value } => {
                self.set_vertex_attrib(name, *kind, *value)?
            }
            Command::DepthFunc(f) => self.raster.depth_func = *f,
            Command::ClearDepth(d) => self.clear_depth = *d,
            Command::ProvokingFirst(first) => self.raster.provoking_first = *first,
            Command::PolygonMode(m) => self.raster.polygon_mode = *m,
            Command::CullFace(face) => self.raster.cull_face = *face,
            Command::FrontClockwise(cw) => self.raster.front_clockwise = *cw,
            Command::PointSpriteLowerLeft(on) => self.gl_state.point_sprite_lower_left = *on,
            Command::ProbeDepth { x, y, depth } => self.probe_depth(*x, *y, *depth)?,
            Command::TextureJunkArray { unit, size } => {
                self.junk_arrays.insert(*unit, *size);
            }
            Command::FbTexLayered(unit) => self.render_to_layers(*unit)?,
            Command::FbDynamicRendering => self.use_dynamic_rendering()?,
            // `play` lowers a compatibility scene's commands (`compat::lower`) before this.
            Command::Compat(c) => return Err(fail(format!("{c:?} was not lowered"))),
        }
        Ok(())
    }

    /// `clear`: glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT), as piglit does.
    fn clear(&mut self) -> Result<(), SceneError> {
        let color = self.clear_color;
        let depth = self.clear_depth;
        self.submit(|p, cmd| {
            p.targets.record_clear(&p.gpu, cmd, color);
            p.targets.record_clear_depth(&p.gpu, cmd, depth);
        })
        .map_err(fail)?;
        self.readback_fresh = false;
        Ok(())
    }

    /// `patch parameter vertices N`.
    fn set_patch_vertices(&mut self, n: u32) -> Result<(), SceneError> {
        if n == 0 || n > self.gpu.limits.max_tessellation_patch_size {
            return Err(fail(format!(
                "patch vertices {n} is outside 1..={} (GL_INVALID_VALUE)",
                self.gpu.limits.max_tessellation_patch_size
            )));
        }
        self.patch_vertices = n;
        Ok(())
    }

    /// `xfb buffer object INDEX SIZE`: a new transform feedback buffer at `index`.
    fn create_xfb_buffer(&mut self, index: u32, size: u64) -> Result<(), SceneError> {
        if index >= self.gpu.max_xfb_buffers {
            return Err(fail(format!(
                "xfb buffer index {index} is beyond the device's transform feedback buffers"
            )));
        }
        let usage = vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT;
        let mut buffer = self.gpu.buffer(size, usage).map_err(fail)?;
        buffer.bytes_mut().fill(self.xfb_fill);
        if let Some(old) = self.xfb_buffers.insert(index, buffer) {
            self.gpu.destroy_buffer(&old);
        }
        Ok(())
    }

    /// `verify query_object QUERY N`: the last `xfb draw arrays`' query.
    fn verify_query(&self, query: Query, expected: u64) -> Result<(), SceneError> {
        let [written, needed] = self
            .query
            .ok_or_else(|| fail("no `xfb draw arrays` ran before the query was read"))?;
        let (name, got) = match query {
            Query::PrimitivesGenerated => ("GL_PRIMITIVES_GENERATED", needed),
            Query::PrimitivesWritten => ("GL_TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN", written),
        };
        verify_count(name, expected, got)
    }

    /// `verify program_interface_query …` of a block's property.
    fn verify_block(
        &self,
        storage: bool,
        name: &str,
        property: scene::BlockProperty,
        expected: u32,
    ) -> Result<(), SceneError> {
        // piglit finds a SPIR-V program's block by its binding (`block binding`;
        // element i of an array of blocks is at its own binding point N + i).
        let binding = self.block_data.binding;
        let block = self.program.block(storage, name, binding).ok_or_else(|| {
            fail(format!(
                "no active {} `{name}`{}",
                if storage {
                    "shader storage block"
                } else {
                    "uniform block"
                },
                binding.map_or(String::new(), |b| format!(" at binding {b}"))
            ))
        })?;
        let (what, got) = match property {
            scene::BlockProperty::NumActiveVariables => {
                ("GL_NUM_ACTIVE_VARIABLES", block.active_variables)
            }
            scene::BlockProperty::BufferDataSize => ("GL_BUFFER_DATA_SIZE", block.data_size),
        };
        verify_count(&format!("{what} of `{name}`"), expected, got)
    }

    /// `active uniform NAME PROPERTY VALUE`: what glGetActiveUniformsiv gives, from the
    /// layout the SPIR-V decorations give the uniform.
    fn verify_active_uniform(
        &self,
        name: &str,
        property: scene::UniformProperty,
        expected: &str,
    ) -> Result<(), SceneError> {
        use scene::UniformProperty as P;
        let (member, in_block) = self
            .program
            .active_uniform(name)
            .ok_or_else(|| fail(format!("no active uniform `{name}`")))?;
        let matrix = member.columns > 1;
        let in_block_or = |value: u32| if in_block { value as i64 } else { -1 };
        let got = match property {
            P::Type => member.gl_type_name(),
            P::Size => member.array.map_or(1, |(length, _)| length).to_string(),
            P::Offset => in_block_or(member.offset).to_string(),
            P::ArrayStride => in_block_or(member.array.map_or(0, |(_, stride)| stride)).to_string(),
            P::MatrixStride => {
                in_block_or(if matrix { member.matrix_stride } else { 0 }).to_string()
            }
            P::IsRowMajor => u32::from(in_block && matrix && member.row_major).to_string(),
        };
        verify_count(&format!("{property:?} of `{name}`"), expected, got.as_str())
    }

    /// `fb color attachments N FORMAT…`: new render targets of those formats.
    fn fb_attachments(&mut self, names: &[Option<String>]) -> Result<(), SceneError> {
        let formats = names
            .iter()
            .map(|n| match n {
                None => Ok(None),
                Some(n) => Format::by_name(n).map(Some).ok_or_else(|| {
                    SceneError::Skip(format!(
                        "unsupported attachment format {n} (supported: {})",
                        Format::names().collect::<Vec<_>>().join(", ")
                    ))
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.replace_targets(&formats, self.targets.dynamic)
            .map_err(fail)
    }

    /// `fb dynamic rendering`: the same targets, rendered to with dynamic rendering.
    fn use_dynamic_rendering(&mut self) -> Result<(), SceneError> {
        let formats: Vec<Option<Format>> = self
            .targets
            .attachments
            .iter()
            .map(|a| a.used.then_some(a.format))
            .collect();
        self.replace_targets(&formats, true).map_err(fail)
    }

    /// `enable`/`disable CAP`.
    fn enable(&mut self, cap: Capability, on: bool) {
        match cap {
            Capability::ProgramPointSize => self.gl_state.program_point_size = on,
            Capability::ClipDistance(i) => {
                if on {
                    self.gl_state.clip_distances |= 1 << i;
                } else {
                    self.gl_state.clip_distances &= !(1 << i);
                }
            }
            Capability::DepthTest => self.raster.depth_test = on,
            Capability::LineStipple => self.gl_state.line_stipple = on,
            Capability::CullFace => self.raster.cull_enabled = on,
            Capability::PrimitiveRestartFixedIndex => self.primitive_restart = on,
        }
    }

    /// `line width W`: wide lines only where the device draws them.
    fn set_line_width(&mut self, width: f32) -> Result<(), SceneError> {
        if width != 1.0 && !self.gpu.wide_lines {
            return Err(SceneError::Skip(format!(
                "`line width {width}` needs wideLines, which {} lacks",
                self.gpu.name
            )));
        }
        self.raster.line_width_bits = width.to_bits();
        Ok(())
    }

    /// `line stipple FACTOR PATTERN`: glLineStipple.
    fn set_line_stipple(&mut self, factor: u32, pattern: u16) {
        self.gl_state.line_stipple_factor = factor;
        self.gl_state.line_stipple_pattern = pattern;
    }

    /// `vertex attrib TYPE NAME VALUES`: GL's current value of an attribute.
    fn set_vertex_attrib(
        &mut self,
        name: &str,
        kind: scene::ScalarKind,
        value: [u32; 4],
    ) -> Result<(), SceneError> {
        let location = self.vertex_attrib_location(name)?;
        let format = match kind {
            scene::ScalarKind::Int => vk::Format::R32G32B32A32_SINT,
            scene::ScalarKind::Uint => vk::Format::R32G32B32A32_UINT,
            _ => vk::Format::R32G32B32A32_SFLOAT,
        };
        self.gl_state.vertex_attribs[location] = Some((format, value));
        Ok(())
    }

    /// The Vulkan location `vertex attrib` sets: a VS input's name, or a GL location (the
    /// input that takes it, else the number itself).
    fn vertex_attrib_location(&self, name: &str) -> Result<usize, SceneError> {
        let location = match name.parse::<u32>() {
            // GL's location inside an input (an element, a matrix column) → Vulkan's.
            Ok(l) => (self.vertex_inputs.iter())
                .find_map(|i| i.vk_location_of(l))
                .unwrap_or(l),
            Err(_) => match self.vertex_inputs.iter().find(|i| i.name == name) {
                Some(input) => input.vk_location,
                None => {
                    return Err(SceneError::Fail(format!(
                        "`vertex attrib`: the vertex shader has no input `{name}`"
                    )))
                }
            },
        };
        match (location as usize) < state::MAX_VERTEX_ATTRIBS {
            true => Ok(location as usize),
            false => Err(SceneError::Fail(format!(
                "`vertex attrib`: location {location} is past the {} the runner tracks",
                state::MAX_VERTEX_ATTRIBS
            ))),
        }
    }

    fn replace_targets(&mut self, formats: &[Option<Format>], dynamic: bool) -> VkResult<()> {
        let t = &self.targets;
        self.replace_targets_sized((t.width, t.height, t.layers), formats, dynamic)
    }

    /// New render targets of `size` (width, height, layers); pipelines made for the old
    /// ones go.
    fn replace_targets_sized(
        &mut self,
        size: (u32, u32, u32),
        formats: &[Option<Format>],
        dynamic: bool,
    ) -> VkResult<()> {
        let targets = Targets::new(&self.gpu, size, formats, dynamic, self.depth)?;
        let mut old = std::mem::replace(&mut self.targets, targets);
        old.destroy(&self.gpu);
        // Pipelines are tied to the render pass / attachment formats.
        for (_, p) in self.pipelines.drain() {
            p.destroy(&self.gpu.device);
        }
        self.readback_fresh = false;
        self.init_targets()
    }

    /// `fb tex layered UNIT`: the render target becomes the unit's 2D array texture, all
    /// its layers, in the window's format.
    fn render_to_layers(&mut self, unit: u32) -> Result<(), SceneError> {
        let Some(&[width, height, layers]) = self.junk_arrays.get(&unit) else {
            return Err(SceneError::Skip(format!(
                "`fb tex layered {unit}` on a unit without `texture junk 2DArray`"
            )));
        };
        let formats = [Some(Format::DEFAULT)];
        let dynamic = self.targets.dynamic;
        self.replace_targets_sized((width, height, layers), &formats, dynamic)
            .map_err(fail)
    }

    fn refresh_readback(&mut self) -> VkResult<()> {
        if !self.readback_fresh {
            self.submit(|p, cmd| p.targets.record_readback(&p.gpu, cmd))?;
            self.readback_fresh = true;
        }
        Ok(())
    }

    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// The render targets with their readback buffers holding the images' current content.
    pub fn read_targets(&mut self) -> VkResult<&Targets> {
        self.refresh_readback()?;
        Ok(&self.targets)
    }

    fn write_pngs(&mut self, dir: &Path, scene: &Path) -> VkResult<()> {
        self.refresh_readback()?;
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let stem = scene
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for k in 0..self.targets.attachments.len() {
            let bytes = self.targets.rgba8(k);
            let path = dir.join(format!("{stem}-att{k}.png"));
            let file = std::fs::File::create(&path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            let mut encoder = png::Encoder::new(
                std::io::BufWriter::new(file),
                self.targets.width,
                self.targets.height,
            );
            encoder.set_color(png::ColorType::Rgba);
            encoder.set_depth(png::BitDepth::Eight);
            encoder
                .write_header()
                .and_then(|mut w| w.write_image_data(&bytes))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// Records `f` after a full memory barrier (orders it after everything before), then a
    /// barrier that makes its writes visible to the host; submits and waits.
    fn submit(&mut self, f: impl FnOnce(&Player, vk::CommandBuffer)) -> VkResult<()> {
        let cmd = self.cmd;
        // SAFETY: `cmd` is the player's, and the last submission was waited for.
        unsafe { self.gpu.begin_one_time(cmd)? };
        self.barrier(cmd);
        f(self, cmd);
        self.gpu.memory_barrier(
            cmd,
            (
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::MEMORY_WRITE,
            ),
            (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
        );
        // SAFETY: `cmd` is recording.
        unsafe {
            self.gpu
                .end_submit_and_wait(cmd, vk::SubmitInfo::default(), self.fence)
        }
    }

    fn barrier(&self, cmd: vk::CommandBuffer) {
        self.gpu.memory_barrier(
            cmd,
            (
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::MEMORY_WRITE,
            ),
            (
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE,
            ),
        );
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        let g = &self.gpu;
        let d = &g.device;
        // SAFETY: the device is the player's own and alive (the `Gpu` field drops after this).
        let _ = unsafe { d.device_wait_idle() };
        // SAFETY: with the device idle no submission uses these objects; each was made on
        // this device by the player (null where never made, which destroying ignores) and is
        // destroyed once, children (pipelines, sets' pool) before what they were made from.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                p.destroy(d);
            }
            pipeline::destroy_shaders(g, &self.shaders);
            if let Some(p) = self.compute_pipeline.take() {
                d.destroy_pipeline(p, None);
            }
            self.targets.destroy(g);
            self.textures.destroy(g);
            self.images.destroy(g);
            self.storage.destroy(g);
            for (_, b) in std::mem::take(&mut self.xfb_buffers) {
                g.destroy_buffer(&b);
            }
            if self.query_pool != vk::QueryPool::null() {
                d.destroy_query_pool(self.query_pool, None);
            }
            for (_, b) in &self.uniforms {
                g.destroy_buffer(b);
            }
            for b in self
                .index_buffer
                .iter()
                .map(|(_, b)| b)
                .chain(&self.indirect_buffer)
            {
                g.destroy_buffer(b);
            }
            if let Some(b) = &self.vertex_buffer {
                g.destroy_buffer(b);
            }
            g.destroy_buffer(&self.rect_buffer);
            g.destroy_buffer(&self.constant_buffer);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            for (_, m) in &self.modules {
                d.destroy_shader_module(*m, None);
            }
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.cmd_pool, None);
        }
    }
}

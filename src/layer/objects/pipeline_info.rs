//! What the layer reads off a graphics pipeline's [`PipelineView`]: its stages and their
//! code (recorded modules or code inline in a stage's `pNext`), and the [`PipelineKey`] that
//! [`glsem_spirv::semantics::choose`] decides on.

use ash::vk;
use std::sync::Arc;

use crate::layer::data::dynamic_inputs::FollowedPipeline;

use crate::layer::data::records::{BlockSlot, LayoutRecord, ModuleRecord, PipelineRecord};
use crate::layer::data::vertex_formats::vertex_format;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::{Chain, PipelineView, StageView};
use crate::layer::support::log;
use glsem_spirv::fragcolor::{AttachmentKind, FragColorKey};
use glsem_spirv::interface::InputKind;
use glsem_spirv::semantics::{
    Attachments, Culling, GlMode, LineKey, PipelineKey, Rasterized, Semantic, Stage, StageInfo,
    Stages, Topology,
};
use glsem_spirv::vertex_formats::{
    double_inputs, in_place_double_inputs, Fetch, Layout, RefetchVertexInputs, RefetchedAttribute,
    VertexFormat,
};

type S = vk::ShaderStageFlags;

/// A stage's code: a recorded `VkShaderModule` or code inline in the stage's `pNext`.
pub(crate) fn stage_module(dev: &DeviceData, stage: &StageView<'_>) -> Option<Arc<ModuleRecord>> {
    if stage.info.module != vk::ShaderModule::null() {
        let modules = dev.records.modules.read();
        return modules
            .get(&stage.info.module)
            .map(|m| Arc::new(m.snapshot()));
    }
    stage
        .inline_code
        .map(|words| Arc::new(ModuleRecord::new(dev.scan(words), words)))
}

pub(crate) fn tes_without_tcs(ci: &PipelineView<'_>) -> bool {
    let all = ci
        .stages
        .iter()
        .fold(S::empty(), |acc, s| acc | s.info.stage);
    all.contains(S::TESSELLATION_EVALUATION) && !all.contains(S::TESSELLATION_CONTROL)
}

/// A graphics pipeline library, or a pipeline linked from libraries: its stages may meet
/// stages in other libraries.
pub(crate) fn is_library(ci: &PipelineView<'_>) -> bool {
    ci.info.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR)
        || ci.library_parts.is_some()
        || ci.libraries.is_some()
}

/// Whether the colour attachments of `ci` are known where its fragment shader is made: a
/// render pass gives them to every part of a library; with dynamic rendering only a part
/// that holds the fragment output interface has them.
pub(crate) fn library_attachments_known(ci: &PipelineView<'_>) -> bool {
    use vk::GraphicsPipelineLibraryFlagsEXT as Part;
    if ci.info.render_pass != vk::RenderPass::null() {
        return true;
    }
    let parts = ci.library_parts;
    // Without that struct a library holds every part of the state.
    parts.is_none_or(|p| p.contains(Part::FRAGMENT_OUTPUT_INTERFACE))
}

pub(crate) fn attachment_kind(format: vk::Format) -> AttachmentKind {
    use vk::Format as F;
    match format {
        F::R8_SINT
        | F::R8G8_SINT
        | F::R8G8B8_SINT
        | F::B8G8R8_SINT
        | F::R8G8B8A8_SINT
        | F::B8G8R8A8_SINT
        | F::A8B8G8R8_SINT_PACK32
        | F::A2R10G10B10_SINT_PACK32
        | F::A2B10G10R10_SINT_PACK32
        | F::R16_SINT
        | F::R16G16_SINT
        | F::R16G16B16_SINT
        | F::R16G16B16A16_SINT
        | F::R32_SINT
        | F::R32G32_SINT
        | F::R32G32B32_SINT
        | F::R32G32B32A32_SINT
        | F::R64_SINT
        | F::R64G64_SINT
        | F::R64G64B64_SINT
        | F::R64G64B64A64_SINT => AttachmentKind::Sint,
        F::R8_UINT
        | F::R8G8_UINT
        | F::R8G8B8_UINT
        | F::B8G8R8_UINT
        | F::R8G8B8A8_UINT
        | F::B8G8R8A8_UINT
        | F::A8B8G8R8_UINT_PACK32
        | F::A2R10G10B10_UINT_PACK32
        | F::A2B10G10R10_UINT_PACK32
        | F::R16_UINT
        | F::R16G16_UINT
        | F::R16G16B16_UINT
        | F::R16G16B16A16_UINT
        | F::R32_UINT
        | F::R32G32_UINT
        | F::R32G32B32_UINT
        | F::R32G32B32A32_UINT
        | F::R64_UINT
        | F::R64G64_UINT
        | F::R64G64B64_UINT
        | F::R64G64B64A64_UINT => AttachmentKind::Uint,
        _ => AttachmentKind::Float,
    }
}

/// The colour attachments the fragment shader draws into; `None` when gl_FragColor needs no
/// broadcast (no attachment but 0).
pub(crate) fn frag_color_key(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<FragColorKey> {
    let formats: Vec<Option<vk::Format>> = if ci.info.render_pass != vk::RenderPass::null() {
        let pass = dev
            .records
            .render_passes
            .read()
            .get(&ci.info.render_pass)
            .cloned()?;
        pass.subpass_colors.get(ci.info.subpass as usize)?.clone()
    } else {
        ci.color_formats?
            .iter()
            .map(|&f| (f != vk::Format::UNDEFINED).then_some(f))
            .collect()
    };
    let max = dev.limits.max_fragment_output_attachments;
    let attachments: Vec<(u32, AttachmentKind)> = formats
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i as u32, attachment_kind((*f)?))))
        .filter(|(location, _)| *location < max)
        .collect();
    attachments
        .iter()
        .any(|(location, _)| *location != 0)
        .then_some(FragColorKey { attachments })
}

/// The [`Stage`] of a Vulkan stage flag (`None`: a stage no semantic concerns).
pub(crate) fn stage_of(flag: S) -> Option<Stage> {
    Some(match flag {
        S::VERTEX => Stage::Vertex,
        S::TESSELLATION_CONTROL => Stage::TessControl,
        S::TESSELLATION_EVALUATION => Stage::TessEval,
        S::GEOMETRY => Stage::Geometry,
        S::FRAGMENT => Stage::Fragment,
        _ => return None,
    })
}

pub(crate) fn flag_of(stage: Stage) -> S {
    match stage {
        Stage::Vertex => S::VERTEX,
        Stage::TessControl => S::TESSELLATION_CONTROL,
        Stage::TessEval => S::TESSELLATION_EVALUATION,
        Stage::Geometry => S::GEOMETRY,
        Stage::Fragment => S::FRAGMENT,
    }
}

/// One stage of a pipeline being planned, with its code.
pub(crate) struct StageCode {
    /// Index into `pStages`.
    pub index: usize,
    pub stage: Stage,
    pub module: Option<Arc<ModuleRecord>>,
    pub entry: Option<String>,
    /// The layer can substitute this stage's module (false for code inline behind a
    /// `pNext` struct the layer cannot copy).
    pub patchable: bool,
}

impl StageCode {
    pub fn code(&self) -> Option<(&Arc<ModuleRecord>, &str)> {
        Some((self.module.as_ref()?, self.entry.as_deref()?))
    }
}

/// The stages of `ci` the semantics concern, with their code.
pub(crate) fn stage_codes(dev: &DeviceData, ci: &PipelineView<'_>) -> Vec<StageCode> {
    ci.stages
        .iter()
        .enumerate()
        .filter_map(|(index, s)| {
            Some(StageCode {
                index,
                stage: stage_of(s.info.stage)?,
                module: stage_module(dev, s),
                entry: s.entry().map(str::to_owned),
                patchable: s.patchable(),
            })
        })
        .collect()
}

/// The planner's view of `codes`.
pub(crate) fn stage_view(codes: &[StageCode]) -> Stages<'_> {
    let mut view = Stages::default();
    for c in codes {
        view.set(
            c.stage,
            StageInfo {
                summary: c
                    .module
                    .as_ref()
                    .filter(|_| c.entry.is_some())
                    .map(|m| &m.summary),
                patchable: c.patchable,
            },
        );
    }
    view
}

/// The layout record of `ci`, if the layer knows it.
pub(crate) fn layout_of(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<Arc<LayoutRecord>> {
    dev.records.layouts.read().get(&ci.info.layout).cloned()
}

/// What a [`PipelineKey`] is read from.
pub(crate) enum KeySource<'v, 'a> {
    /// A graphics pipeline's (or library's) create info: `last` is its last
    /// pre-rasterization stage; `wants_attachments`, a fragment shader writes gl_FragColor;
    /// `gl_mode`, GL's mode its input assembly names; `lines`, its line state.
    Pipeline {
        ci: &'v PipelineView<'a>,
        last: Option<Stage>,
        wants_attachments: bool,
        gl_mode: Option<GlMode>,
        lines: LineKey,
    },
    /// Shader objects made together (or one alone).
    ShaderObjects(ObjectGroup),
}

/// What a group of shader objects tells the key: everything else is dynamic state.
#[derive(Clone, Default)]
pub(crate) struct ObjectGroup {
    /// The last pre-rasterization shader feeds a fragment shader of another group.
    pub fragment_elsewhere: bool,
    /// It may be bound before a fragment shader object made apart.
    pub fragment_may_be_apart: bool,
    /// Where its push-constant ranges hold the GL-state block.
    pub gl_state_block: Option<u32>,
    /// Where the fragment shader's ranges hold it.
    pub fragment_block: Option<u32>,
    /// Its vertex shader's doubles, read in place where the device lacks 64-bit vertex
    /// formats ([`in_place_doubles`]: the vertex input is dynamic state).
    pub vertex_formats: Option<RefetchVertexInputs>,
}

/// The key of [`glsem_spirv::semantics::choose`]: the one builder, for pipelines and shader
/// objects alike, each field written for each (a field added to the key does not compile
/// until both say what it is).
pub(crate) fn pipeline_key(dev: &DeviceData, source: KeySource<'_, '_>) -> PipelineKey {
    match source {
        KeySource::Pipeline {
            ci,
            last,
            wants_attachments,
            gl_mode,
            lines,
        } => pipeline_state_key(dev, ci, last, wants_attachments, gl_mode, lines),
        KeySource::ShaderObjects(group) => shader_objects_key(dev, group),
    }
}

/// The key of shader objects: no pipeline state, everything dynamic.
fn shader_objects_key(dev: &DeviceData, group: ObjectGroup) -> PipelineKey {
    PipelineKey {
        device: dev.key,
        library: true,
        shader_object: true,
        attachments: Attachments::Unknown,
        fragment_elsewhere: group.fragment_elsewhere,
        fragment_may_be_apart: group.fragment_may_be_apart,
        topology: Topology::Dynamic,
        dynamic_points: true,
        polygon_points: true,
        gl_state_block: group.gl_state_block,
        // No pipeline state to chain into: dynamic state, set by the application, or by the
        // layer where it enabled the extension itself (`followed_state::set_conventions`).
        app_provoking_vertex: true,
        app_depth_clip_control: true,
        fragment_block: group.fragment_block,
        // Front face and domain origin are dynamic state for shader objects: the layer
        // inverts `vkCmdSetFrontFace`; the application states the domain origin.
        static_front_face: false,
        app_domain_origin: true,
        rasterizer_discard: false,
        // Vertex input and the sample count are dynamic state, unknown when the shaders
        // are made (docs: limitations); doubles are read by the device's rule.
        fed_locations: None,
        attribute_binding: None,
        vertex_formats: group.vertex_formats,
        single_sample: false,
        dynamic_samples: true,
        polygon_lines: true,
        lines: LineKey::DYNAMIC,
        // GL's mode is set at record time, for the shader objects drawn next.
        gl_mode: None,
        primitive_restart: false,
        rasterized: Rasterized::Fill,
        app_provoking_last: false,
        provoking_dynamic: true,
        culling: None,
    }
}

/// The key of a pipeline create info (see [`KeySource::Pipeline`]); the attachment list is
/// only read where `wants_attachments`.
fn pipeline_state_key(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    last: Option<Stage>,
    wants_attachments: bool,
    gl_mode: Option<GlMode>,
    lines: LineKey,
) -> PipelineKey {
    let dynamic = ci.dynamic;
    let library = is_library(ci);
    let raster = ci.rasterization.as_ref();
    let topology = gl_mode.map_or_else(|| topology_of(ci), GlMode::rasterizes);
    let attachments = if !wants_attachments {
        Attachments::Known(FragColorKey::default())
    } else if !library || library_attachments_known(ci) {
        Attachments::Known(frag_color_key(dev, ci).unwrap_or_default())
    } else {
        Attachments::Unknown
    };
    let gl_state = dev.extensions.gl_state;
    let gl_state_block = last
        .filter(|_| gl_state)
        .and_then(|last| gl_state_block(dev, ci, last));
    // Whether the application says itself what a piece of state wants: no state struct to
    // chain into (`chain` is `None`), a `s_type` in its chain, or the state is dynamic.
    let app_chooses = |chain: Option<&Chain<'_>>, s_type, state| {
        chain.is_none_or(|c| c.contains(s_type)) || dynamic.contains(&state)
    };
    let fragment_block = layout_of(dev, ci)
        .filter(|_| gl_state)
        .and_then(|l| l.block.offset_for(S::FRAGMENT));
    let pre_rasterization_library =
        library && last.is_some() && !ci.stages.iter().any(|s| s.info.stage == S::FRAGMENT);
    PipelineKey {
        device: dev.key,
        library,
        shader_object: false,
        // A pre-rasterization library: its fragment shader is in another library.
        fragment_elsewhere: pre_rasterization_library,
        fragment_may_be_apart: pre_rasterization_library,
        attachments,
        topology,
        dynamic_points: dynamic.contains(&vk::DynamicState::PRIMITIVE_TOPOLOGY),
        polygon_points: raster.is_some_and(|r| r.polygon_mode == vk::PolygonMode::POINT)
            || dynamic.contains(&vk::DynamicState::POLYGON_MODE_EXT),
        gl_state_block,
        app_provoking_vertex: app_chooses(
            raster.map(|r| &r.chain),
            vk::StructureType::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
            vk::DynamicState::PROVOKING_VERTEX_MODE_EXT,
        ),
        app_depth_clip_control: app_chooses(
            ci.viewport.as_ref().map(|v| &v.chain),
            vk::StructureType::PIPELINE_VIEWPORT_DEPTH_CLIP_CONTROL_CREATE_INFO_EXT,
            vk::DynamicState::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT,
        ),
        fragment_block,
        static_front_face: raster.is_some() && !dynamic.contains(&vk::DynamicState::FRONT_FACE),
        app_domain_origin: app_chooses(
            ci.tessellation.as_ref().map(|t| &t.chain),
            vk::StructureType::PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO,
            vk::DynamicState::TESSELLATION_DOMAIN_ORIGIN_EXT,
        ),
        rasterizer_discard: raster.is_some_and(|r| r.rasterizer_discard_enable == vk::TRUE)
            && !dynamic.contains(&vk::DynamicState::RASTERIZER_DISCARD_ENABLE),
        fed_locations: fed_locations(ci, dynamic),
        attribute_binding: ci.vertex_input.as_ref().and_then(|input| {
            (dev.attribute_memory).free_binding(input.bindings.iter().map(|b| b.binding))
        }),
        vertex_formats: refetched_attributes(dev, ci),
        single_sample: ci
            .multisample
            .is_some_and(|m| m.rasterization_samples == vk::SampleCountFlags::TYPE_1)
            && !dynamic.contains(&vk::DynamicState::RASTERIZATION_SAMPLES_EXT),
        dynamic_samples: dynamic.contains(&vk::DynamicState::RASTERIZATION_SAMPLES_EXT),
        polygon_lines: raster.is_some_and(|r| r.polygon_mode == vk::PolygonMode::LINE)
            || dynamic.contains(&vk::DynamicState::POLYGON_MODE_EXT),
        lines,
        gl_mode,
        primitive_restart: !dynamic.contains(&vk::DynamicState::PRIMITIVE_RESTART_ENABLE)
            && ci
                .input_assembly
                .as_ref()
                .is_some_and(|ia| ia.primitive_restart_enable == vk::TRUE),
        rasterized: match raster.map(|r| r.polygon_mode) {
            _ if dynamic.contains(&vk::DynamicState::POLYGON_MODE_EXT) => Rasterized::Fill,
            Some(vk::PolygonMode::LINE) => Rasterized::Lines,
            Some(vk::PolygonMode::POINT) => Rasterized::Points,
            _ => Rasterized::Fill,
        },
        culling: culling(dev, ci),
        provoking_dynamic: dynamic.contains(&vk::DynamicState::PROVOKING_VERTEX_MODE_EXT),
        // A dynamic mode is GL's where the layer follows it (it sets the last vertex at bind).
        app_provoking_last: if dynamic.contains(&vk::DynamicState::PROVOKING_VERTEX_MODE_EXT) {
            gl_state
                && dev.conventions.provoking_vertex.on
                && dev.settings.semantics.contains(Semantic::ProvokingVertex)
        } else {
            ci.provoking_vertex_mode == Some(vk::ProvokingVertexModeEXT::LAST_VERTEX)
        },
    }
}

/// Static face culling as the driver will do it, in normalized device coordinates: the
/// front face after the layer's inversion ([`WindowConventions`]), turned over again by a
/// viewport of positive height (Vulkan's area formula in framebuffer coordinates, y down).
/// A dynamic viewport is taken to be the one GL's window conventions use.
///
/// [`WindowConventions`]: crate::layer::loader::state::WindowConventions
fn culling(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<Culling> {
    let raster = ci.rasterization.as_ref()?;
    let dynamic = ci.dynamic;
    if [vk::DynamicState::CULL_MODE, vk::DynamicState::FRONT_FACE]
        .iter()
        .any(|d| dynamic.contains(d))
        || raster.cull_mode == vk::CullModeFlags::NONE
    {
        return None;
    }
    let window = dev.conventions.window;
    let ccw = (raster.front_face == vk::FrontFace::COUNTER_CLOCKWISE) != window.inverted_front_face;
    let height = ci.first_viewport.map(|v| v.height);
    let flipped = match height {
        Some(h) => h < 0.0,
        None => window.negative_viewport,
    };
    Some(Culling {
        front_ccw: ccw == flipped,
        cull_front: raster.cull_mode.contains(vk::CullModeFlags::FRONT),
        cull_back: raster.cull_mode.contains(vk::CullModeFlags::BACK),
    })
}

/// The class of primitive `ci`'s input assembly draws (`Unknown` without that state).
fn topology_of(ci: &PipelineView<'_>) -> Topology {
    use vk::PrimitiveTopology as T;
    let input = ci
        .input_assembly
        .as_ref()
        .filter(|_| holds_vertex_input(ci));
    match input.map(|i| i.topology) {
        Some(T::POINT_LIST) => Topology::Points,
        Some(
            T::LINE_LIST
            | T::LINE_STRIP
            | T::LINE_LIST_WITH_ADJACENCY
            | T::LINE_STRIP_WITH_ADJACENCY,
        ) => Topology::Lines,
        Some(T::PATCH_LIST) => Topology::Patches,
        Some(_) => Topology::Triangles,
        None => Topology::Unknown,
    }
}

/// Where the GL-state block sits for the `last` pre-rasterization stage in `ci`'s layout;
/// a layout that cannot hold it is said once.
fn gl_state_block(dev: &DeviceData, ci: &PipelineView<'_>, last: Stage) -> Option<u32> {
    let layout = layout_of(dev, ci);
    let offset = layout
        .as_ref()
        .and_then(|l| l.block.offset_for(flag_of(last)));
    if offset.is_none() {
        if let Some(l) = &layout {
            if !l
                .warned_no_block
                .swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                let why = match &l.block {
                    BlockSlot::Unavailable(why) => why.as_str(),
                    BlockSlot::Reserved { .. } => "the block is not readable by that stage",
                };
                log::warning!(
                    "pipeline layout {:#x} cannot hold GL's point and clip state \
                     ({why}): its pipelines get GL's initial point size and every \
                     clip distance they write",
                    ash::vk::Handle::as_raw(ci.info.layout)
                );
            }
        }
    }
    offset
}

/// Whether `ci` holds the pre-rasterization state (a whole pipeline, or a library with it).
pub(crate) fn holds_pre_rasterization(ci: &PipelineView<'_>) -> bool {
    let parts = ci.library_parts;
    parts.is_none_or(|p| p.contains(vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS))
}

/// Whether `ci` holds the vertex-input state (vertex input and input assembly): not a
/// library part without it, whose pointers to that state Vulkan ignores.
pub(crate) fn holds_vertex_input(ci: &PipelineView<'_>) -> bool {
    let parts = ci.library_parts;
    parts.is_none_or(|p| p.contains(vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE))
}

/// The Locations `ci`'s vertex-input state feeds, where `ci` holds that state: not a library
/// without the vertex-input part, not dynamic vertex input.
fn fed_locations(ci: &PipelineView<'_>, dynamic: &[vk::DynamicState]) -> Option<Vec<u32>> {
    if !holds_vertex_input(ci) || dynamic.contains(&vk::DynamicState::VERTEX_INPUT_EXT) {
        return None;
    }
    let input = ci.vertex_input.as_ref()?;
    Some(input.attributes.iter().map(|a| a.location).collect())
}

/// What the layer follows at bind for a whole pipeline (not a library) on a
/// `VK_GLSEM_gl_state` device whose vertex input, provoking vertex or clip-space depth is
/// dynamic state (`dynamic_inputs`); `None` when nothing.
pub(crate) fn followed_pipeline(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> Option<FollowedPipeline> {
    use vk::DynamicState as D;
    if !dev.extensions.gl_state || is_library(ci) {
        return None;
    }
    let dynamic = ci.dynamic;
    let on = |semantic| dev.settings.semantics.contains(semantic);
    let conventions = &dev.conventions;
    let followed = FollowedPipeline {
        vertex_inputs: dynamic
            .contains(&D::VERTEX_INPUT_EXT)
            .then(|| dynamic_vertex_inputs(dev, ci))
            .flatten(),
        conventions: conventions.provoking_vertex.behind_the_application
            && on(Semantic::ProvokingVertex)
            && dynamic.contains(&D::PROVOKING_VERTEX_MODE_EXT)
            || conventions.depth_clip.behind_the_application
                && on(Semantic::ClipSpaceDepth)
                && dynamic.contains(&D::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT),
    };
    (followed != FollowedPipeline::default()).then_some(followed)
}

/// Every Location the vertex shader of `ci` reads, with its numeric type, where the layer
/// can feed them all from its binding (below its slots, 32-bit types); `None` otherwise.
fn dynamic_vertex_inputs(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> Option<Arc<[(u32, InputKind)]>> {
    if !dev.feeds_inputs() {
        return None;
    }
    let codes = stage_codes(dev, ci);
    let vertex = codes.iter().find(|c| c.stage == Stage::Vertex)?;
    let (module, entry) = vertex.code()?;
    dev.feedable_inputs(&module.words, entry, &[])
        .inspect_err(|why| {
            log::warning!("vertex inputs under dynamic vertex input are not fed: {why}")
        })
        .ok()
        .flatten()
        .map(Into::into)
}

/// The key's `vertex_formats`: the attributes of `ci`'s vertex-input state in formats the
/// device lacks or at offsets their format cannot be fetched from (with
/// `debug_force_vertex_formats`, every one the layer can read); where the vertex input is
/// apart from the vertex shader, doubles read in place ([`in_place_doubles`]).
pub(crate) fn refetched_attributes(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> Option<RefetchVertexInputs> {
    if !dev.settings.semantics.contains(Semantic::VertexFormats) {
        return None;
    }
    let vertex_shader = ci
        .stages
        .iter()
        .any(|s| s.info.stage == vk::ShaderStageFlags::VERTEX);
    // No vertex-input state with the vertex shader (a pre-rasterization library, dynamic
    // vertex input): its doubles in place, as every vertex-input library and
    // `vkCmdSetVertexInputEXT` of the device gives them (below, `followed_state`). A state
    // the layer gives with it (a pipeline made again: `vertex_input_variants`,
    // `library_inputs`) is read as a static one.
    let Some(input) = ci.vertex_input.as_ref() else {
        let apart = !holds_vertex_input(ci) || ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_EXT);
        if !apart || !doubles_in_place_apart(dev) {
            return None;
        }
        let vs = ci
            .stages
            .iter()
            .find(|s| s.info.stage == vk::ShaderStageFlags::VERTEX)?;
        return in_place_doubles(dev, &stage_module(dev, vs)?.words, vs.entry()?);
    };
    let force = dev.settings.debug_force_vertex_formats;
    let dynamic_stride = ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE);
    let stride_of = |a: &vk::VertexInputAttributeDescription| {
        attribute_stride(input.bindings, dynamic_stride, a)
    };
    // The fast path: a device with every format (the common case), attributes at 8-aligned
    // offsets and strides: no format is looked up, nothing allocated.
    let may_be_misaligned =
        |a: &vk::VertexInputAttributeDescription| !(a.offset | stride_of(a)).is_multiple_of(8);
    // A vertex-input library (no vertex shader to say where): doubles go in place, by the
    // rule the vertex shader's library reads them with (`doubles_in_place_apart`).
    let in_place = !vertex_shader && doubles_in_place_apart(dev);
    if dev.missing_vertex_formats.is_empty()
        && !force
        && !input.attributes.iter().any(may_be_misaligned)
        && (!in_place || !input.attributes.iter().any(|a| is_double(a.format)))
    {
        return None;
    }
    let refetched = |a: &vk::VertexInputAttributeDescription| {
        vertex_format(a.format).filter(|&(i, format)| {
            force
                || dev.missing_vertex_formats.contains(i)
                || misaligned(&format, a.offset, stride_of(a)) != Misaligned::No
                || in_place && format.bits == 64
        })
    };
    if !input.attributes.iter().any(|a| refetched(a).is_some()) {
        return None;
    }
    let mut attributes = Vec::new();
    let mut kept = Vec::new();
    for a in input.attributes {
        match refetched(a) {
            Some((_, format)) => {
                let stride = stride_of(a);
                let bytes = misaligned(&format, a.offset, stride) == Misaligned::Bytes;
                let fetch = match bytes {
                    true => pieces(input.attributes, a, &format, stride),
                    false if covered_past(input.attributes, a, &format) => Fetch::Widened,
                    false => Fetch::Chunks,
                };
                let mut attribute = RefetchedAttribute {
                    location: a.location,
                    format,
                    offsets_fit: true,
                    fetch_locations: Vec::new(),
                    fetch,
                };
                let chunks = attribute.fetched_chunks();
                let last = chunks.last().map_or(0, |c| c.offset);
                attribute.offsets_fit = attribute.fetch_offset(a.offset).saturating_add(last)
                    <= dev.limits.max_vertex_input_attribute_offset;
                if in_place && format.bits == 64 && !bytes {
                    attribute.fetch_locations = (a.location..).take(chunks.len()).collect();
                }
                attributes.push(attribute);
            }
            _ => kept.push(a.location),
        }
    }
    Some(RefetchVertexInputs { attributes, kept })
}

/// The pieces attribute `a` (its binding's `stride`), read piece by piece, is fetched in:
/// 16 bits where the stride is even (half the Locations of bytes: a tightly packed `dmat4`
/// takes 16, not 32), from the byte before an element at an odd offset (inside the vertex's
/// record), and to a byte past its end only where another attribute of the binding reaches
/// that far (so every buffer that holds the vertices holds it); else bytes.
fn pieces(
    attributes: &[vk::VertexInputAttributeDescription],
    a: &vk::VertexInputAttributeDescription,
    format: &VertexFormat,
    stride: u32,
) -> Fetch {
    let lead = a.offset % 2;
    let end = a.offset + format.size();
    let past = (lead + format.size()) % 2;
    let covered = past == 0 || reaches(attributes, a, end + past);
    match stride.is_multiple_of(2) && covered {
        true => Fetch::Pieces { bits: 16, lead },
        false => Fetch::Pieces { bits: 8, lead: 0 },
    }
}

/// Whether another attribute of `a`'s binding reaches byte `end` of the vertex's record.
fn reaches(
    attributes: &[vk::VertexInputAttributeDescription],
    a: &vk::VertexInputAttributeDescription,
    end: u32,
) -> bool {
    attributes.iter().any(|b| {
        b.binding == a.binding
            && b.location != a.location
            && vertex_format(b.format).is_some_and(|(_, f)| b.offset + f.size() >= end)
    })
}

/// Whether `a`, three 8- or 16-bit components, may be fetched as four: the unit past its
/// element lies inside the extent of another attribute of its binding, so a buffer that
/// holds the vertices' attributes holds it too (one attribute at one Location, where two
/// would need a free Location more: SwiftShader has 16).
fn covered_past(
    attributes: &[vk::VertexInputAttributeDescription],
    a: &vk::VertexInputAttributeDescription,
    format: &VertexFormat,
) -> bool {
    let Some(widened) = format.widened_chunk() else {
        return false;
    };
    reaches(
        attributes,
        a,
        a.offset + widened.units * widened.unit_bits / 8,
    )
}

/// Whether attribute `a` (its binding's `stride`), given apart from its vertex shader (a
/// vertex-input library, `vkCmdSetVertexInputEXT`), needs that shader made again to read it:
/// a format the device lacks (or `debug_force_vertex_formats`), or an offset or stride it
/// cannot be fetched from; doubles only where not even 32-bit words can be (the shader
/// reads them in place otherwise: [`in_place_doubles`]).
pub(crate) fn needs_shader_apart(
    dev: &DeviceData,
    a: &vk::VertexInputAttributeDescription,
    stride: u32,
) -> bool {
    vertex_format(a.format).is_some_and(|(i, format)| {
        let fetch = misaligned(&format, a.offset, stride);
        match format.bits {
            64 => fetch == Misaligned::Bytes,
            _ => {
                dev.settings.debug_force_vertex_formats
                    || dev.missing_vertex_formats.contains(i)
                    || fetch != Misaligned::No
            }
        }
    })
}

/// Whether doubles are read in place (as 32-bit words, at the Locations the double takes)
/// wherever the vertex input is apart from the vertex shader (vertex-input and
/// pre-rasterization libraries, dynamic vertex input, shader objects): on every device with
/// the rule on, so that both sides agree without seeing each other. A device without 64-bit
/// vertex formats (lavapipe, SwiftShader) cannot read them otherwise, and one with them
/// (NVIDIA) cannot read a double at GL's 4-aligned offsets of tightly packed data as one.
pub(crate) fn doubles_in_place_apart(dev: &DeviceData) -> bool {
    dev.settings.semantics.contains(Semantic::VertexFormats)
}

/// Whether `format` is a 64-bit vertex format (`R64*`).
fn is_double(format: vk::Format) -> bool {
    vertex_format(format).is_some_and(|(_, f)| f.bits == 64)
}

/// The vertex shader `words`' doubles read in place (`in_place_double_inputs`), where the
/// vertex input is set apart from the shader (`doubles_in_place_apart`: libraries, dynamic
/// state, shader objects): `vkCmdSetVertexInputEXT` then gets each 64-bit attribute's
/// chunks at the Locations the double takes (`followed_state`), by the same rule, without
/// knowing the shader.
pub(crate) fn in_place_doubles(
    dev: &DeviceData,
    words: &[u32],
    entry: &str,
) -> Option<RefetchVertexInputs> {
    if !doubles_in_place_apart(dev) {
        return None;
    }
    let doubles = double_inputs(words, entry).ok()?;
    (!doubles.is_empty()).then(|| in_place_double_inputs(&doubles))
}

/// The stride of attribute `a`'s binding among `bindings`: 0 where strides are dynamic
/// state (`dynamic_stride`: set with the buffers) or the binding is not there.
pub(crate) fn attribute_stride(
    bindings: &[vk::VertexInputBindingDescription],
    dynamic_stride: bool,
    a: &vk::VertexInputAttributeDescription,
) -> u32 {
    match dynamic_stride {
        true => 0,
        false => bindings
            .iter()
            .find(|b| b.binding == a.binding)
            .map_or(0, |b| b.stride),
    }
}

/// How an attribute's offset and stride sit for its format ([`misaligned`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Misaligned {
    /// Aligned for its components: read as it is.
    No,
    /// Aligned for its smaller fetches (doubles as 32-bit words).
    Words,
    /// Aligned for nothing wider than a byte: read byte by byte.
    Bytes,
}

/// GL reads an attribute at any offset and stride (piglit packs its vertex data tightly);
/// Vulkan needs every element aligned to the format's component size
/// (VUID-vkCmdDraw-None-02721). An attribute whose offset or stride is not is read
/// otherwise: by its smaller fetches where they are aligned (doubles as 32-bit words), else
/// byte by byte (a short after three bytes). The buffer's bind offset is the application's
/// to align.
pub(crate) fn misaligned(format: &VertexFormat, offset: u32, stride: u32) -> Misaligned {
    let off =
        |align: u32| align > 1 && (!offset.is_multiple_of(align) || !stride.is_multiple_of(align));
    let natural = match format.layout {
        Layout::Plain => format.bits / 8,
        _ => 4,
    };
    let fetched = format
        .chunks()
        .iter()
        .map(|c| c.unit_bits / 8)
        .min()
        .unwrap_or(natural);
    match (off(natural), off(fetched)) {
        (false, _) => Misaligned::No,
        (true, false) => Misaligned::Words,
        (true, true) if format.readable_as_bytes() => Misaligned::Bytes,
        (true, true) => Misaligned::No,
    }
}

/// The clockwise / counter-clockwise swap of `face` (a positive viewport turns GL's winding
/// over: Vulkan's area formula has the opposite sign).
pub(crate) fn inverted(face: vk::FrontFace) -> vk::FrontFace {
    if face == vk::FrontFace::CLOCKWISE {
        vk::FrontFace::COUNTER_CLOCKWISE
    } else {
        vk::FrontFace::CLOCKWISE
    }
}

/// Whether a library `ci` links has a record for which `has` holds: the linked pipeline
/// inherits what its libraries' shaders need at bind and draw time (GL's line loops closed,
/// the base instance pushed).
pub(crate) fn libraries_have(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    has: fn(&PipelineRecord) -> bool,
) -> bool {
    let libraries = linked_libraries(ci);
    !libraries.is_empty() && {
        let pipelines = dev.records.pipelines.read();
        libraries.iter().any(|l| pipelines.get(l).is_some_and(has))
    }
}

/// What the first library `ci` links with a record gives (`None`: none gives it).
pub(crate) fn from_libraries<T>(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    give: fn(&PipelineRecord) -> Option<T>,
) -> Option<T> {
    let libraries = linked_libraries(ci);
    if libraries.is_empty() {
        return None;
    }
    let pipelines = dev.records.pipelines.read();
    libraries
        .iter()
        .find_map(|l| pipelines.get(l).and_then(give))
}

/// The libraries `ci` links (`VkPipelineLibraryCreateInfoKHR`).
pub(crate) fn linked_libraries<'a>(ci: &PipelineView<'a>) -> &'a [vk::Pipeline] {
    ci.libraries.unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GL's tightly packed doubles (a stride of 92, a double at offset 8 of the second
    /// element) are read as 32-bit words; what 32-bit words could not read aligned (an
    /// offset of 2, a float at 2 of a stride of 14) byte by byte; an aligned attribute, or
    /// one of bytes, is never touched; halves at an odd offset stay as they are.
    #[test]
    fn misaligned_attributes_are_read_as_words_or_bytes() {
        use Misaligned::*;
        let (_, dvec2) = vertex_format(vk::Format::R64G64_SFLOAT).unwrap();
        assert_eq!(misaligned(&dvec2, 8, 92), Words);
        assert_eq!(misaligned(&dvec2, 4, 96), Words);
        assert_eq!(misaligned(&dvec2, 8, 96), No);
        assert_eq!(misaligned(&dvec2, 2, 96), Bytes);
        let (_, vec3) = vertex_format(vk::Format::R32G32B32_SFLOAT).unwrap();
        assert_eq!(misaligned(&vec3, 2, 14), Bytes);
        let (_, shorts) = vertex_format(vk::Format::R16G16B16_SSCALED).unwrap();
        assert_eq!(misaligned(&shorts, 11, 23), Bytes);
        let (_, bytes) = vertex_format(vk::Format::R8G8B8A8_UNORM).unwrap();
        assert_eq!(misaligned(&bytes, 3, 7), No);
        let (_, halves) = vertex_format(vk::Format::R16G16_SFLOAT).unwrap();
        assert_eq!(misaligned(&halves, 3, 7), No);
    }

    #[test]
    fn integer_formats_get_integer_outputs() {
        let cases = [
            (vk::Format::R32G32B32A32_SINT, AttachmentKind::Sint),
            (vk::Format::R8_UINT, AttachmentKind::Uint),
            (vk::Format::A2B10G10R10_UINT_PACK32, AttachmentKind::Uint),
            (vk::Format::R8G8B8A8_UNORM, AttachmentKind::Float),
            (vk::Format::R8G8B8A8_SRGB, AttachmentKind::Float),
            (vk::Format::R16G16B16A16_SFLOAT, AttachmentKind::Float),
            (vk::Format::R8G8B8A8_SNORM, AttachmentKind::Float),
        ];
        for (format, kind) in cases {
            assert_eq!(attachment_kind(format), kind, "{format:?}");
        }
    }
}

//! Reading a `VkGraphicsPipelineCreateInfo`: its stages and their code (recorded modules or
//! code inline in a stage's `pNext`), and the [`PipelineKey`] that
//! [`glsem_spirv::semantics::choose`] decides on.

use ash::vk;
use std::ffi::{c_void, CStr};
use std::sync::Arc;

use super::dynamic_inputs::FollowedPipeline;
use super::dynamic_lines::StaticMultisample;
use super::ffi::{find_in_chain, slice};
use super::log;
use super::records::{BlockSlot, LayoutRecord, ModuleRecord};
use super::shader_code::code_words;
use super::state::DeviceData;
use glsem_abi::{
    PipelinePrimitiveModeCreateInfo, PrimitiveMode,
    STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
};
use glsem_spirv::fragcolor::{AttachmentKind, FragColorKey};
use glsem_spirv::primitive_mode::{Culling, GlPrimitive, Rasterized};
use glsem_spirv::semantics::{
    Attachments, GlMode, PipelineKey, Semantic, Stage, StageInfo, Stages, Topology, WindowOrigin,
};

type S = vk::ShaderStageFlags;

/// A stage's code: a recorded `VkShaderModule` or code inline in the stage's `pNext`.
pub(super) fn stage_module(
    dev: &DeviceData,
    stage: &vk::PipelineShaderStageCreateInfo<'_>,
) -> Option<Arc<ModuleRecord>> {
    if stage.module != vk::ShaderModule::null() {
        return dev.records.modules.read().get(&stage.module).cloned();
    }
    // SAFETY: the stage's pNext chain is valid (Vulkan's valid usage).
    unsafe {
        inline_code(stage).map(|(ci, _)| {
            let words = code_words(ci);
            Arc::new(ModuleRecord::inline(dev.scan(words), words))
        })
    }
}

/// A `VkShaderModuleCreateInfo` in the stage's `pNext`, and whether the layer can unlink it
/// (every struct in front of it is one [`copy_size`] knows).
pub(super) unsafe fn inline_code<'a>(
    stage: &vk::PipelineShaderStageCreateInfo<'_>,
) -> Option<(&'a vk::ShaderModuleCreateInfo<'a>, bool)> {
    let mut p = stage.p_next as *const vk::BaseInStructure<'_>;
    let mut copyable = true;
    // SAFETY: every struct of a valid chain starts with sType and pNext.
    while let Some(s) = unsafe { p.as_ref() } {
        if s.s_type == vk::StructureType::SHADER_MODULE_CREATE_INFO {
            // SAFETY: its sType says what it is.
            return Some((
                unsafe { &*(p as *const vk::ShaderModuleCreateInfo<'_>) },
                copyable,
            ));
        }
        copyable &= copy_size(s.s_type).is_some();
        p = s.p_next;
    }
    None
}

/// Sizes of the structs that may precede inline code in a stage's `pNext`
/// (VUID-VkPipelineShaderStageCreateInfo-pNext-pNext), or the library array in a pipeline's,
/// so that they can be copied.
pub(super) fn copy_size(s_type: vk::StructureType) -> Option<usize> {
    use std::mem::size_of;
    use vk::StructureType as T;
    Some(match s_type {
        T::DEBUG_UTILS_OBJECT_NAME_INFO_EXT => size_of::<vk::DebugUtilsObjectNameInfoEXT<'_>>(),
        T::PIPELINE_ROBUSTNESS_CREATE_INFO_EXT => {
            size_of::<vk::PipelineRobustnessCreateInfoEXT<'_>>()
        }
        T::PIPELINE_SHADER_STAGE_MODULE_IDENTIFIER_CREATE_INFO_EXT => {
            size_of::<vk::PipelineShaderStageModuleIdentifierCreateInfoEXT<'_>>()
        }
        T::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO => {
            size_of::<vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>>()
        }
        T::SHADER_MODULE_VALIDATION_CACHE_CREATE_INFO_EXT => {
            size_of::<vk::ShaderModuleValidationCacheCreateInfoEXT<'_>>()
        }
        T::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT => {
            size_of::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>()
        }
        T::PIPELINE_RENDERING_CREATE_INFO => size_of::<vk::PipelineRenderingCreateInfo<'_>>(),
        T::PIPELINE_CREATION_FEEDBACK_CREATE_INFO => {
            size_of::<vk::PipelineCreationFeedbackCreateInfo<'_>>()
        }
        T::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR => {
            size_of::<vk::PipelineCreateFlags2CreateInfoKHR<'_>>()
        }
        _ => return None,
    })
}

/// `p_next` without its `VkShaderModuleCreateInfo` ([`chain_without`]).
pub(super) unsafe fn chain_without_code(
    p_next: *const c_void,
    copies: &mut Vec<Box<[u64]>>,
) -> Option<*const c_void> {
    // SAFETY: this function's contract, passed on.
    unsafe { chain_without(p_next, vk::StructureType::SHADER_MODULE_CREATE_INFO, copies) }
}

/// `p_next` without its struct of `s_type`. The application's structs are const, so the ones
/// in front of it are copied into `copies` (which must outlive the returned chain) and
/// relinked; the ones behind it stay the application's. `None` when a struct in front is one
/// the layer cannot copy, or there is none of `s_type`.
pub(super) unsafe fn chain_without(
    p_next: *const c_void,
    s_type: vk::StructureType,
    copies: &mut Vec<Box<[u64]>>,
) -> Option<*const c_void> {
    let mut front = Vec::new();
    let mut p = p_next as *const vk::BaseInStructure<'_>;
    let rest = loop {
        // SAFETY: every struct of a valid chain starts with sType and pNext.
        let s = unsafe { p.as_ref() }?;
        if s.s_type == s_type {
            break s.p_next;
        }
        front.push((p, copy_size(s.s_type)?));
        p = s.p_next;
    };
    let mut next = rest as *const c_void;
    for &(src, size) in front.iter().rev() {
        // u64 storage keeps the copy aligned for any Vulkan struct.
        let mut copy = vec![0u64; size.div_ceil(8)].into_boxed_slice();
        // SAFETY: `src` is a struct of `size` bytes (its sType says which); `copy` holds at
        // least that many and starts with sType and pNext too.
        unsafe {
            std::ptr::copy_nonoverlapping(src.cast::<u8>(), copy.as_mut_ptr().cast::<u8>(), size);
            (*copy.as_mut_ptr().cast::<vk::BaseOutStructure<'_>>()).p_next = next as *mut _;
        }
        next = copy.as_ptr().cast();
        copies.push(copy);
    }
    Some(next)
}

pub(super) fn stages<'a>(
    ci: &'a vk::GraphicsPipelineCreateInfo<'_>,
) -> &'a [vk::PipelineShaderStageCreateInfo<'a>] {
    // SAFETY: Vulkan's valid usage for pStages/stageCount.
    unsafe { slice(ci.p_stages, ci.stage_count) }
}

pub(super) fn tes_without_tcs(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    let all = stages(ci).iter().fold(S::empty(), |acc, s| acc | s.stage);
    all.contains(S::TESSELLATION_EVALUATION) && !all.contains(S::TESSELLATION_CONTROL)
}

/// A graphics pipeline library, or a pipeline linked from libraries: its stages may meet
/// stages in other libraries.
pub(super) fn is_library(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    ci.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR)
        // SAFETY: valid pNext chain.
        || unsafe {
            find_in_chain::<vk::BaseInStructure<'_>>(
                ci.p_next,
                vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
            )
            .is_some()
                || find_in_chain::<vk::BaseInStructure<'_>>(
                    ci.p_next,
                    vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
                )
                .is_some()
        }
}

/// Whether the colour attachments of `ci` are known where its fragment shader is made: a
/// render pass gives them to every part of a library; with dynamic rendering only a part
/// that holds the fragment output interface has them.
pub(super) fn library_attachments_known(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    use vk::GraphicsPipelineLibraryFlagsEXT as Part;
    if ci.render_pass != vk::RenderPass::null() {
        return true;
    }
    let parts = library_flags(ci);
    // Without that struct a library holds every part of the state.
    parts.is_none_or(|p| p.contains(Part::FRAGMENT_OUTPUT_INTERFACE))
}

pub(super) fn attachment_kind(format: vk::Format) -> AttachmentKind {
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
pub(super) fn frag_color_key(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<FragColorKey> {
    let formats: Vec<Option<vk::Format>> = if ci.render_pass != vk::RenderPass::null() {
        let pass = dev
            .records
            .render_passes
            .read()
            .get(&ci.render_pass)
            .cloned()?;
        pass.subpass_colors.get(ci.subpass as usize)?.clone()
    } else {
        // SAFETY: valid pNext chain.
        let rendering = unsafe {
            find_in_chain::<vk::PipelineRenderingCreateInfo<'_>>(
                ci.p_next,
                vk::StructureType::PIPELINE_RENDERING_CREATE_INFO,
            )
        }?;
        // SAFETY: Vulkan's valid usage for the format array.
        unsafe {
            slice(
                rendering.p_color_attachment_formats,
                rendering.color_attachment_count,
            )
        }
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
pub(super) fn stage_of(flag: S) -> Option<Stage> {
    Some(match flag {
        S::VERTEX => Stage::Vertex,
        S::TESSELLATION_CONTROL => Stage::TessControl,
        S::TESSELLATION_EVALUATION => Stage::TessEval,
        S::GEOMETRY => Stage::Geometry,
        S::FRAGMENT => Stage::Fragment,
        _ => return None,
    })
}

pub(super) fn flag_of(stage: Stage) -> S {
    match stage {
        Stage::Vertex => S::VERTEX,
        Stage::TessControl => S::TESSELLATION_CONTROL,
        Stage::TessEval => S::TESSELLATION_EVALUATION,
        Stage::Geometry => S::GEOMETRY,
        Stage::Fragment => S::FRAGMENT,
    }
}

/// One stage of a pipeline being planned, with its code.
pub(super) struct StageCode {
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
pub(super) fn stage_codes(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Vec<StageCode> {
    stages(ci)
        .iter()
        .enumerate()
        .filter_map(|(index, s)| {
            Some(StageCode {
                index,
                stage: stage_of(s.stage)?,
                module: stage_module(dev, s),
                // SAFETY: pName is a nul-terminated string (valid usage).
                entry: unsafe { s.p_name.as_ref() }
                    .and_then(|_| unsafe { CStr::from_ptr(s.p_name) }.to_str().ok())
                    .map(str::to_owned),
                // SAFETY: valid pNext chain.
                patchable: s.module != vk::ShaderModule::null()
                    || unsafe { inline_code(s) }.is_some_and(|(_, copyable)| copyable),
            })
        })
        .collect()
}

/// The planner's view of `codes`.
pub(super) fn stage_view(codes: &[StageCode]) -> Stages<'_> {
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

pub(super) fn dynamic_states<'a>(
    ci: &vk::GraphicsPipelineCreateInfo<'a>,
) -> &'a [vk::DynamicState] {
    // SAFETY: valid pointers per Vulkan's valid usage.
    unsafe { ci.p_dynamic_state.as_ref() }
        .map(|d| unsafe { slice(d.p_dynamic_states, d.dynamic_state_count) })
        .unwrap_or(&[])
}

/// The layout record of `ci`, if the layer knows it.
pub(super) fn layout_of(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<Arc<LayoutRecord>> {
    dev.records.layouts.read().get(&ci.layout).cloned()
}

/// Builds the key [`glsem_spirv::semantics::choose`] decides on. `last` is the pipeline's last
/// pre-rasterization stage, `wants_attachments` whether the fragment shader may need them
/// (the attachment list is only read then).
pub(super) fn pipeline_key(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    last: Option<Stage>,
    wants_attachments: bool,
) -> PipelineKey {
    let dynamic = dynamic_states(ci);
    let library = is_library(ci);
    // SAFETY: NULL or valid (Vulkan's valid usage).
    let raster = unsafe { ci.p_rasterization_state.as_ref() };
    // SAFETY: as above.
    let viewport = unsafe { ci.p_viewport_state.as_ref() };
    let gl_mode = primitive_mode(ci).and_then(gl_mode_of);
    let topology = match gl_mode {
        Some(GlMode::LineLoop) => Topology::Lines,
        Some(GlMode::Primitive(_)) => Topology::Triangles,
        None => topology_of(ci),
    };
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
    // chain into (`p_next` is `None`), a `s_type` in its chain, or the state is dynamic.
    let app_chooses = |p_next: Option<*const c_void>, s_type, state| {
        // SAFETY: valid pNext chains.
        p_next.is_none_or(|p| unsafe {
            find_in_chain::<vk::BaseInStructure<'_>>(p, s_type).is_some()
        }) || dynamic.contains(&state)
    };
    // SAFETY: NULL or valid (Vulkan's valid usage).
    let tessellation = unsafe { ci.p_tessellation_state.as_ref() };
    let fragment_block = layout_of(dev, ci)
        .filter(|_| gl_state)
        .and_then(|l| l.block.offset_for(S::FRAGMENT));
    let pre_rasterization_library =
        library && last.is_some() && !stages(ci).iter().any(|s| s.stage == S::FRAGMENT);
    PipelineKey {
        library,
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
            raster.map(|r| r.p_next),
            vk::StructureType::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
            vk::DynamicState::PROVOKING_VERTEX_MODE_EXT,
        ),
        app_depth_clip_control: app_chooses(
            viewport.map(|v| v.p_next),
            vk::StructureType::PIPELINE_VIEWPORT_DEPTH_CLIP_CONTROL_CREATE_INFO_EXT,
            vk::DynamicState::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT,
        ),
        fragment_block,
        static_front_face: raster.is_some() && !dynamic.contains(&vk::DynamicState::FRONT_FACE),
        app_domain_origin: app_chooses(
            tessellation.map(|t| t.p_next),
            vk::StructureType::PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO,
            vk::DynamicState::TESSELLATION_DOMAIN_ORIGIN_EXT,
        ),
        rasterizer_discard: raster.is_some_and(|r| r.rasterizer_discard_enable == vk::TRUE)
            && !dynamic.contains(&vk::DynamicState::RASTERIZER_DISCARD_ENABLE),
        fed_locations: fed_locations(ci, dynamic),
        current_attribute_binding: current_attribute_binding(dev, ci),
        // SAFETY: NULL or valid (Vulkan's valid usage).
        single_sample: unsafe { ci.p_multisample_state.as_ref() }
            .is_some_and(|m| m.rasterization_samples == vk::SampleCountFlags::TYPE_1)
            && !dynamic.contains(&vk::DynamicState::RASTERIZATION_SAMPLES_EXT),
        dynamic_samples: dynamic.contains(&vk::DynamicState::RASTERIZATION_SAMPLES_EXT),
        polygon_lines: raster.is_some_and(|r| r.polygon_mode == vk::PolygonMode::LINE)
            || dynamic.contains(&vk::DynamicState::POLYGON_MODE_EXT),
        app_line_mode: app_chooses(
            raster.map(|r| r.p_next),
            vk::StructureType::PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_KHR,
            vk::DynamicState::LINE_RASTERIZATION_MODE_EXT,
        ),
        multisample_lines: multisample_lines(ci, dynamic) && !library_line_mode(dev, ci, dynamic),
        app_line_stipple: dynamic.contains(&vk::DynamicState::LINE_STIPPLE_KHR)
            || dynamic.contains(&vk::DynamicState::LINE_STIPPLE_ENABLE_EXT),
        gl_mode,
        rasterized: match raster.map(|r| r.polygon_mode) {
            _ if dynamic.contains(&vk::DynamicState::POLYGON_MODE_EXT) => Rasterized::Fill,
            Some(vk::PolygonMode::LINE) => Rasterized::Lines,
            Some(vk::PolygonMode::POINT) => Rasterized::Points,
            _ => Rasterized::Fill,
        },
        culling: culling(dev, ci, raster, viewport, dynamic),
        // A dynamic mode is GL's where the layer follows it (it sets the last vertex at bind).
        app_provoking_last: if dynamic.contains(&vk::DynamicState::PROVOKING_VERTEX_MODE_EXT) {
            gl_state
                && dev.conventions.provoking_vertex_last
                && dev.settings.semantics.contains(Semantic::ProvokingVertex)
        } else {
            raster.is_some_and(|r| {
            // SAFETY: the rasterization state's valid pNext chain.
            unsafe {
                find_in_chain::<vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT<'_>>(
                    r.p_next,
                    vk::StructureType::PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
                )
            }
            .is_some_and(|p| p.provoking_vertex_mode == vk::ProvokingVertexModeEXT::LAST_VERTEX)
            })
        },
        ..PipelineKey::new(&dev.key())
    }
}

/// Static face culling as the driver will do it, in normalized device coordinates: the
/// front face after the layer's inversion (`window_origin = lower_left`), turned over again
/// by a viewport of positive height (Vulkan's area formula in framebuffer coordinates,
/// y down). A dynamic viewport is taken to be the one `window_origin` names.
fn culling(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    raster: Option<&vk::PipelineRasterizationStateCreateInfo<'_>>,
    viewport: Option<&vk::PipelineViewportStateCreateInfo<'_>>,
    dynamic: &[vk::DynamicState],
) -> Option<Culling> {
    let raster = raster?;
    if [vk::DynamicState::CULL_MODE, vk::DynamicState::FRONT_FACE]
        .iter()
        .any(|d| dynamic.contains(d))
        || raster.cull_mode == vk::CullModeFlags::NONE
    {
        return None;
    }
    let inverted = dev.extensions.gl_state
        && dev.settings.window_origin == WindowOrigin::LowerLeft
        && dev.settings.semantics.contains(Semantic::WindowOrigin);
    let ccw = (raster.front_face == vk::FrontFace::COUNTER_CLOCKWISE) != inverted;
    let static_viewport = !dynamic.contains(&vk::DynamicState::VIEWPORT)
        && !dynamic.contains(&vk::DynamicState::VIEWPORT_WITH_COUNT);
    // SAFETY: a static viewport state holds viewportCount viewports (Vulkan's valid usage).
    let height = viewport
        .filter(|_| static_viewport && holds_pre_rasterization(ci))
        .and_then(|v| unsafe { v.p_viewports.as_ref() })
        .map(|v| v.height);
    let flipped = match height {
        Some(h) => h < 0.0,
        None => dev.settings.window_origin == WindowOrigin::Flipped,
    };
    Some(Culling {
        front_ccw: ccw == flipped,
        cull_front: raster.cull_mode.contains(vk::CullModeFlags::FRONT),
        cull_back: raster.cull_mode.contains(vk::CullModeFlags::BACK),
    })
}

/// The parts a graphics pipeline library holds (`None`: not a library part, it holds all).
fn library_flags(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<vk::GraphicsPipelineLibraryFlagsEXT> {
    // SAFETY: valid pNext chain.
    unsafe {
        find_in_chain::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>(
            ci.p_next,
            vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
        )
    }
    .map(|p| p.flags)
}

/// Whether `ci` holds the pre-rasterization state (viewport, rasterization).
fn holds_pre_rasterization(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    let parts = library_flags(ci);
    parts.is_none_or(|p| p.contains(vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS))
}

/// GL's primitive mode chained to `ci`'s input-assembly state
/// (`VkPipelinePrimitiveModeCreateInfoGLSEM`). Read where the create info holds the
/// vertex-input state or the pre-rasterization shaders: a pre-rasterization library is given
/// the same input-assembly state (which Vulkan ignores there) so that it gets the geometry
/// shader the mode needs.
pub(super) fn primitive_mode(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> Option<PrimitiveMode> {
    let parts = library_flags(ci);
    let reads = parts.is_none_or(|p| {
        p.intersects(
            vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE
                | vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS,
        )
    });
    if !reads {
        return None;
    }
    // SAFETY: NULL or valid where the create info holds that state (above), with a valid
    // pNext chain; a struct of this sType is the layer's.
    unsafe {
        let state = ci.p_input_assembly_state.as_ref()?;
        find_in_chain::<PipelinePrimitiveModeCreateInfo>(
            state.p_next,
            STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
        )
    }
    .map(|s| s.primitive_mode)
}

/// The [`GlMode`] of a `VkPrimitiveModeGLSEM` value (`None`: none, or not a GL mode).
pub(super) fn gl_mode_of(mode: PrimitiveMode) -> Option<GlMode> {
    match mode {
        PrimitiveMode::LINE_LOOP => Some(GlMode::LineLoop),
        PrimitiveMode::QUADS => Some(GlMode::Primitive(GlPrimitive::Quads)),
        PrimitiveMode::QUAD_STRIP => Some(GlMode::Primitive(GlPrimitive::QuadStrip)),
        PrimitiveMode::POLYGON => Some(GlMode::Primitive(GlPrimitive::Polygon)),
        _ => None,
    }
}

/// The topology that draws `mode` (with the generated geometry shader, for quads, quad
/// strips and polygons).
pub(super) fn topology_for(mode: GlMode) -> vk::PrimitiveTopology {
    match mode {
        GlMode::LineLoop => vk::PrimitiveTopology::LINE_STRIP,
        GlMode::Primitive(GlPrimitive::Quads) => vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY,
        GlMode::Primitive(GlPrimitive::QuadStrip) => {
            vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY
        }
        GlMode::Primitive(GlPrimitive::Polygon) => vk::PrimitiveTopology::TRIANGLE_FAN,
    }
}

/// The class of primitive `ci`'s input assembly draws (`Unknown` without that state).
fn topology_of(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> Topology {
    use vk::PrimitiveTopology as T;
    let input = if holds_vertex_input(ci) {
        // SAFETY: NULL or valid (Vulkan's valid usage) where the state is not ignored.
        unsafe { ci.p_input_assembly_state.as_ref() }
    } else {
        None
    };
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
fn gl_state_block(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    last: Stage,
) -> Option<u32> {
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
                    ash::vk::Handle::as_raw(ci.layout)
                );
            }
        }
    }
    offset
}

/// Whether `ci` holds the vertex-input state (vertex input and input assembly): not a
/// library part without it, whose pointers to that state Vulkan ignores.
pub(super) fn holds_vertex_input(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> bool {
    let parts = library_flags(ci);
    parts.is_none_or(|p| p.contains(vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE))
}

/// The Locations `ci`'s vertex-input state feeds, where `ci` holds that state: not a library
/// without the vertex-input part, not dynamic vertex input.
fn fed_locations(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    dynamic: &[vk::DynamicState],
) -> Option<Vec<u32>> {
    if !holds_vertex_input(ci) || dynamic.contains(&vk::DynamicState::VERTEX_INPUT_EXT) {
        return None;
    }
    // SAFETY: NULL or valid, with its attribute array (Vulkan's valid usage).
    let input = unsafe { ci.p_vertex_input_state.as_ref() }?;
    // SAFETY: as above.
    let attributes = unsafe {
        slice(
            input.p_vertex_attribute_descriptions,
            input.vertex_attribute_description_count,
        )
    };
    Some(attributes.iter().map(|a| a.location).collect())
}

/// The layer's binding of GL's current vertex attributes, unless `ci`'s vertex-input state
/// uses it (the application's choice wins: unfed inputs then read (0, 0, 0, 1)).
fn current_attribute_binding(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<u32> {
    let memory = &dev.attribute_memory;
    memory.memory_type?;
    // SAFETY: NULL or valid, with its binding array (Vulkan's valid usage).
    let input = unsafe { ci.p_vertex_input_state.as_ref() }?;
    // SAFETY: as above.
    let bindings = unsafe {
        slice(
            input.p_vertex_binding_descriptions,
            input.vertex_binding_description_count,
        )
    };
    (!bindings.iter().any(|b| b.binding == memory.binding)).then_some(memory.binding)
}

/// Whether GL's aliased-line rule is out of reach for `ci`: its rasterization is (or may
/// be) multisampled or uses alpha to coverage or sample shading (GL then rasterizes lines
/// by its multisample rules, and Vulkan forbids Bresenham lines with the latter two:
/// VUID-VkGraphicsPipelineCreateInfo-lineRasterizationMode-02766), or the multisample
/// state is not in this create info (a library part that does not hold it).
fn multisample_lines(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    dynamic: &[vk::DynamicState],
) -> bool {
    use vk::DynamicState as D;
    // SAFETY: NULL or valid (Vulkan's valid usage).
    let Some(ms) = (unsafe { ci.p_multisample_state.as_ref() }) else {
        return true;
    };
    ms.rasterization_samples != vk::SampleCountFlags::TYPE_1
        || ms.alpha_to_coverage_enable == vk::TRUE
        || ms.alpha_to_one_enable == vk::TRUE
        || ms.sample_shading_enable == vk::TRUE
        || [
            D::RASTERIZATION_SAMPLES_EXT,
            D::ALPHA_TO_COVERAGE_ENABLE_EXT,
            D::ALPHA_TO_ONE_ENABLE_EXT,
        ]
        .iter()
        .any(|d| dynamic.contains(d))
}

/// Whether `ci` is a pre-rasterization library without the multisample state whose line
/// mode the layer makes dynamic state (`Conventions::library_line_mode`), following GL's
/// rule where its pipelines draw.
pub(super) fn library_line_mode(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    dynamic: &[vk::DynamicState],
) -> bool {
    use vk::GraphicsPipelineLibraryFlagsEXT as Part;
    let parts = library_flags(ci);
    dev.conventions.library_line_mode
        && parts.is_some_and(|p| {
            p.contains(Part::PRE_RASTERIZATION_SHADERS)
                && !p.intersects(Part::FRAGMENT_SHADER | Part::FRAGMENT_OUTPUT_INTERFACE)
        })
        && !dynamic.contains(&vk::DynamicState::LINE_RASTERIZATION_MODE_EXT)
}

/// The multisample state a fragment-output library fixes, for the pipelines linked from
/// it that follow GL's line rule (`library_line_mode`).
pub(super) fn library_multisample(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<StaticMultisample> {
    let parts = library_flags(ci)?;
    if !parts.contains(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE) {
        return None;
    }
    Some(static_multisample(ci, dynamic_states(ci)))
}

/// The multisample state `ci` fixes, when its line mode is dynamic state whose GL rule the
/// layer follows at record time (`dynamic_lines`): a whole pipeline on a
/// `VK_GLSEM_gl_state` device with Bresenham lines, without sample shading (GL's multisample
/// rules apply there whatever the mode).
pub(super) fn followed_line_mode(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<StaticMultisample> {
    use vk::DynamicState as D;
    let dynamic = dynamic_states(ci);
    let follows = dev.extensions.gl_state
        && dev.conventions.bresenham_lines
        && dev.settings.semantics.contains(Semantic::LineRasterization)
        && dynamic.contains(&D::LINE_RASTERIZATION_MODE_EXT)
        && !is_library(ci);
    // SAFETY: NULL or valid (Vulkan's valid usage).
    let ms = unsafe { ci.p_multisample_state.as_ref() };
    if !follows || ms.is_some_and(|m| m.sample_shading_enable == vk::TRUE) {
        return None;
    }
    Some(static_multisample(ci, dynamic))
}

/// The multisample state `ci` fixes: its values where they are not dynamic state.
fn static_multisample(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    dynamic: &[vk::DynamicState],
) -> StaticMultisample {
    use vk::DynamicState as D;
    // SAFETY: NULL or valid (Vulkan's valid usage).
    let ms = unsafe { ci.p_multisample_state.as_ref() };
    let fixed = |state: D, value: Option<bool>| value.filter(|_| !dynamic.contains(&state));
    StaticMultisample {
        samples: ms
            .map(|m| m.rasterization_samples)
            .filter(|_| !dynamic.contains(&D::RASTERIZATION_SAMPLES_EXT)),
        alpha_to_coverage: fixed(
            D::ALPHA_TO_COVERAGE_ENABLE_EXT,
            ms.map(|m| m.alpha_to_coverage_enable == vk::TRUE),
        ),
        alpha_to_one: fixed(
            D::ALPHA_TO_ONE_ENABLE_EXT,
            ms.map(|m| m.alpha_to_one_enable == vk::TRUE),
        ),
    }
}

/// What the layer follows at bind for a whole pipeline (not a library) on a
/// `VK_GLSEM_gl_state` device whose vertex input, provoking vertex or clip-space depth is
/// dynamic state (`dynamic_inputs`); `None` when nothing.
pub(super) fn followed_pipeline(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<FollowedPipeline> {
    use vk::DynamicState as D;
    if !dev.extensions.gl_state || is_library(ci) {
        return None;
    }
    let dynamic = dynamic_states(ci);
    let on = |semantic| dev.settings.semantics.contains(semantic);
    let conventions = &dev.conventions;
    let followed = FollowedPipeline {
        vertex_inputs: dynamic
            .contains(&D::VERTEX_INPUT_EXT)
            .then(|| dynamic_vertex_inputs(dev, ci))
            .flatten(),
        conventions: conventions.layer_sets_provoking_mode
            && on(Semantic::ProvokingVertex)
            && dynamic.contains(&D::PROVOKING_VERTEX_MODE_EXT)
            || conventions.layer_sets_negative_one_to_one
                && on(Semantic::ClipSpaceDepth)
                && dynamic.contains(&D::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT),
    };
    (followed != FollowedPipeline::default()).then_some(followed)
}

/// Every Location the vertex shader of `ci` reads, with its numeric type, where the layer
/// can feed them all from its binding (below its slots, 32-bit types); `None` otherwise.
fn dynamic_vertex_inputs(
    dev: &DeviceData,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Option<Arc<[(u32, glsem_spirv::unfed_inputs::InputKind)]>> {
    let memory = &dev.attribute_memory;
    memory.memory_type?;
    if !dev.settings.semantics.contains(Semantic::UnfedInputs) {
        return None;
    }
    let codes = stage_codes(dev, ci);
    let vertex = codes.iter().find(|c| c.stage == Stage::Vertex)?;
    let (module, entry) = vertex.code()?;
    match glsem_spirv::unfed_inputs::unfed_input_kinds(&module.words, entry, &[]) {
        Ok(inputs) if inputs.iter().all(|&(l, _)| l < memory.slots) => Some(inputs.into()),
        Ok(_) => None,
        Err(why) => {
            log::warning!("vertex inputs under dynamic vertex input are not fed: {why}");
            None
        }
    }
}

#[cfg(test)]
// The tests build the chains they walk.
#[allow(clippy::undocumented_unsafe_blocks)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_is_unlinked_from_a_copy_of_the_chain() {
        let robustness = vk::PipelineRobustnessCreateInfoEXT::default();
        let code = vk::ShaderModuleCreateInfo {
            p_next: (&robustness as *const vk::PipelineRobustnessCreateInfoEXT<'_>).cast(),
            ..Default::default()
        };
        let name = vk::DebugUtilsObjectNameInfoEXT {
            p_next: (&code as *const vk::ShaderModuleCreateInfo<'_>).cast(),
            object_handle: 42,
            ..Default::default()
        };
        let subgroup = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo {
            p_next: (&name as *const vk::DebugUtilsObjectNameInfoEXT<'_>)
                .cast::<c_void>()
                .cast_mut(),
            required_subgroup_size: 8,
            ..Default::default()
        };
        let head = (&subgroup as *const vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>)
            .cast::<c_void>();
        let mut copies = Vec::new();
        let chain = unsafe { chain_without_code(head, &mut copies) }.unwrap();
        let mut types = Vec::new();
        let mut p = chain as *const vk::BaseInStructure<'_>;
        while let Some(s) = unsafe { p.as_ref() } {
            types.push(s.s_type);
            p = s.p_next;
        }
        use vk::StructureType as T;
        assert_eq!(
            types,
            [
                T::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
                T::DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
                T::PIPELINE_ROBUSTNESS_CREATE_INFO_EXT,
            ]
        );
        // The copies keep their contents; the application's structs are untouched.
        let copied =
            unsafe { &*chain.cast::<vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>>() };
        assert_eq!(copied.required_subgroup_size, 8);
        assert_ne!(chain, head);
        assert_eq!(
            subgroup.p_next.cast_const(),
            (&name as *const vk::DebugUtilsObjectNameInfoEXT<'_>).cast()
        );
        assert_eq!(
            name.p_next,
            (&code as *const vk::ShaderModuleCreateInfo<'_>).cast()
        );

        // Behind a struct the layer does not know, the code cannot be unlinked.
        let unknown = vk::BaseInStructure {
            s_type: T::APPLICATION_INFO,
            p_next: (&code as *const vk::ShaderModuleCreateInfo<'_>).cast(),
            ..Default::default()
        };
        let head = (&unknown as *const vk::BaseInStructure<'_>).cast::<c_void>();
        assert!(unsafe { chain_without_code(head, &mut copies) }.is_none());
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

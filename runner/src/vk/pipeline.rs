//! Graphics pipelines with GL's conventions: a flipped viewport (or a positive one with
//! `--lower-left`), glDepthRange(0, 1) as the viewport's depth range, no blending, GL's
//! culling and front face stated in GL's terms. GL's clip-space depth (−w..w), last-vertex
//! provoking convention, tessellation domain origin and the window-coordinate rules a
//! viewport turns over are the glsem layer's (`VK_GLSEM_gl_state`, `window_origin`): the
//! runner does not correct them itself.

use ash::vk;

use super::gpu::Gpu;
pub use super::pipeline_path::Path;
use super::result::{check, VkResult};
use super::target::Targets;
use crate::layer::abi;
use crate::scene::{CullFace, DepthFunc, Mode, PolygonMode, ShaderStage};

/// The fixed-function GL state a pipeline bakes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RasterState {
    /// `enable GL_DEPTH_TEST` (GL writes depth only while the test is on).
    pub depth_test: bool,
    pub depth_func: DepthFunc,
    pub polygon_mode: PolygonMode,
    /// `provoking vertex first`: chain FIRST_VERTEX explicitly; otherwise the pipeline is
    /// left alone (GL's last-vertex convention is the layer's).
    pub provoking_first: bool,
    /// `glLineWidth`, as the bits of the `f32` (the key must hash).
    pub line_width_bits: u32,
    /// `enable GL_CULL_FACE`, and `cull face`'s faces.
    pub cull_enabled: bool,
    pub cull_face: CullFace,
    /// `front face GL_CW` (GL's initial `GL_CCW` otherwise), in GL's window coordinates.
    pub front_clockwise: bool,
}

impl Default for RasterState {
    fn default() -> Self {
        RasterState {
            depth_test: false,
            depth_func: DepthFunc::Less,
            polygon_mode: PolygonMode::Fill,
            provoking_first: false,
            line_width_bits: 1.0f32.to_bits(),
            cull_enabled: false,
            cull_face: CullFace::Back,
            front_clockwise: false,
        }
    }
}

fn compare_op(f: DepthFunc) -> vk::CompareOp {
    match f {
        DepthFunc::Never => vk::CompareOp::NEVER,
        DepthFunc::Less => vk::CompareOp::LESS,
        DepthFunc::Equal => vk::CompareOp::EQUAL,
        DepthFunc::Lequal => vk::CompareOp::LESS_OR_EQUAL,
        DepthFunc::Greater => vk::CompareOp::GREATER,
        DepthFunc::Notequal => vk::CompareOp::NOT_EQUAL,
        DepthFunc::Gequal => vk::CompareOp::GREATER_OR_EQUAL,
        DepthFunc::Always => vk::CompareOp::ALWAYS,
    }
}

/// GL's depth range: glDepthRange(0, 1), its initial state.
const DEPTH_RANGE: (f32, f32) = (0.0, 1.0);
/// GL_MAX_VIEWPORTS' minimum (GL 4.1, GL_ARB_viewport_array).
const GL_MAX_VIEWPORTS: u32 = 16;

pub struct PipelineDesc<'a> {
    pub stages: &'a [(ShaderStage, vk::ShaderModule)],
    pub layout: vk::PipelineLayout,
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    /// GL's primitive mode for the layer to draw (`VkPipelinePrimitiveModeCreateInfoGLSEM`
    /// chained to the input assembly state; shader objects: `vkCmdSetPrimitiveModeGLSEM`),
    /// `NONE` for a mode Vulkan has. Only where `VK_GLSEM_gl_state` is enabled: plain Vulkan
    /// draws `topology` alone.
    pub primitive_mode: abi::PrimitiveMode,
    pub patch_control_points: u32,
    /// `primitiveRestartEnable`: an indexed draw under GL_PRIMITIVE_RESTART_FIXED_INDEX.
    pub primitive_restart: bool,
    pub rasterizer_discard: bool,
    pub raster: RasterState,
}

/// The Vulkan topology of `mode`. GL's modes that Vulkan lacks get the plain topology a
/// Vulkan application would fall back to (a line loop an open line strip, quads, quad strips
/// and polygons a triangle strip through their vertices): the layer ignores it when it is
/// given GL's mode ([`primitive_mode`]), and without the layer the difference shows.
pub fn topology(mode: Mode) -> vk::PrimitiveTopology {
    match mode {
        Mode::Points => vk::PrimitiveTopology::POINT_LIST,
        Mode::Lines => vk::PrimitiveTopology::LINE_LIST,
        Mode::LineStrip | Mode::LineLoop => vk::PrimitiveTopology::LINE_STRIP,
        Mode::Quads | Mode::QuadStrip | Mode::Polygon => vk::PrimitiveTopology::TRIANGLE_STRIP,
        Mode::Triangles => vk::PrimitiveTopology::TRIANGLE_LIST,
        Mode::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
        Mode::TriangleFan => vk::PrimitiveTopology::TRIANGLE_FAN,
        Mode::Patches => vk::PrimitiveTopology::PATCH_LIST,
        Mode::LinesAdjacency => vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY,
        Mode::LineStripAdjacency => vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY,
        Mode::TrianglesAdjacency => vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY,
        Mode::TriangleStripAdjacency => vk::PrimitiveTopology::TRIANGLE_STRIP_WITH_ADJACENCY,
    }
}

/// GL's primitive mode as the layer's API names it (`VkPrimitiveModeGLSEM`): `NONE` for the
/// modes Vulkan has a topology for.
pub fn primitive_mode(mode: Mode) -> abi::PrimitiveMode {
    match mode {
        Mode::LineLoop => abi::PrimitiveMode::LINE_LOOP,
        Mode::Quads => abi::PrimitiveMode::QUADS,
        Mode::QuadStrip => abi::PrimitiveMode::QUAD_STRIP,
        Mode::Polygon => abi::PrimitiveMode::POLYGON,
        _ => abi::PrimitiveMode::NONE,
    }
}

pub fn stage_flag(stage: ShaderStage) -> vk::ShaderStageFlags {
    match stage {
        ShaderStage::Vertex => vk::ShaderStageFlags::VERTEX,
        ShaderStage::TessControl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
        ShaderStage::TessEval => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        ShaderStage::Geometry => vk::ShaderStageFlags::GEOMETRY,
        ShaderStage::Fragment => vk::ShaderStageFlags::FRAGMENT,
        ShaderStage::Compute => vk::ShaderStageFlags::COMPUTE,
    }
}

/// A graphics pipeline and, on the library path, the libraries it was linked from (kept
/// alive as long as it is).
pub struct Pipeline {
    pub handle: vk::Pipeline,
    pub libraries: Vec<vk::Pipeline>,
}

impl Pipeline {
    pub fn destroy(&self, device: &ash::Device) {
        // SAFETY: the pipelines are this device's and no longer in use (the player waits
        // for every submission).
        unsafe {
            device.destroy_pipeline(self.handle, None);
            for library in &self.libraries {
                device.destroy_pipeline(*library, None);
            }
        }
    }
}

/// GL state the shaders read from specialization constants (runner/src/fixes.rs): the
/// framebuffer height, from which GL's gl_FragCoord.y is computed, and gl_DepthRange.
struct Specialization {
    entries: Vec<vk::SpecializationMapEntry>,
    data: Vec<u8>,
}

impl Specialization {
    fn new(height: u32) -> Self {
        let (near, far) = DEPTH_RANGE;
        let values = [height as f32, near, far, far - near];
        let ids = [crate::fixes::FRAMEBUFFER_HEIGHT_SPEC_ID]
            .into_iter()
            .chain(crate::fixes::DEPTH_RANGE_SPEC_IDS);
        let entries = ids
            .enumerate()
            .map(|(i, constant_id)| vk::SpecializationMapEntry {
                constant_id,
                offset: (i * 4) as u32,
                size: 4,
            })
            .collect();
        let data = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        Specialization { entries, data }
    }

    fn info(&self) -> vk::SpecializationInfo<'_> {
        vk::SpecializationInfo::default()
            .map_entries(&self.entries)
            .data(&self.data)
    }
}

/// GL's viewports and scissors for the targets: `glViewport` sets every viewport, so where
/// the device has `multiViewport` (a shader selects one with `gl_ViewportIndex`) there are
/// GL's 16 (GL_MAX_VIEWPORTS' minimum) of the one viewport, else one.
fn viewports_and_scissors(gpu: &Gpu, targets: &Targets) -> (Vec<vk::Viewport>, Vec<vk::Rect2D>) {
    let count = match gpu.enabled_features.multi_viewport == vk::TRUE {
        true => GL_MAX_VIEWPORTS.min(gpu.limits.max_viewports) as usize,
        false => 1,
    };
    let (viewport, scissor) = viewport_and_scissor(gpu, targets);
    (vec![viewport; count], vec![scissor; count])
}

/// GL's viewport and scissor for the targets: a flipped viewport puts GL's bottom row at the
/// framebuffer's last; `--lower-left` keeps GL's row order.
fn viewport_and_scissor(gpu: &Gpu, targets: &Targets) -> (vk::Viewport, vk::Rect2D) {
    let (near, far) = DEPTH_RANGE;
    let height = targets.height as f32;
    let viewport = vk::Viewport {
        x: 0.0,
        y: if gpu.lower_left { 0.0 } else { height },
        width: targets.width as f32,
        height: if gpu.lower_left { height } else { -height },
        min_depth: near,
        max_depth: far,
    };
    let scissor = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: targets.width,
            height: targets.height,
        },
    };
    (viewport, scissor)
}

fn polygon_mode(mode: PolygonMode) -> vk::PolygonMode {
    match mode {
        PolygonMode::Fill => vk::PolygonMode::FILL,
        PolygonMode::Line => vk::PolygonMode::LINE,
        PolygonMode::Point => vk::PolygonMode::POINT,
    }
}

/// GL's terms, verbatim: the layer turns them over where the viewport does.
fn cull_mode(raster: &RasterState) -> vk::CullModeFlags {
    match (raster.cull_enabled, raster.cull_face) {
        (false, _) => vk::CullModeFlags::NONE,
        (true, CullFace::Back) => vk::CullModeFlags::BACK,
        (true, CullFace::Front) => vk::CullModeFlags::FRONT,
        (true, CullFace::FrontAndBack) => vk::CullModeFlags::FRONT_AND_BACK,
    }
}

fn front_face(raster: &RasterState) -> vk::FrontFace {
    if raster.front_clockwise {
        vk::FrontFace::CLOCKWISE
    } else {
        vk::FrontFace::COUNTER_CLOCKWISE
    }
}

pub fn create(gpu: &Gpu, targets: &Targets, desc: &PipelineDesc) -> VkResult<Pipeline> {
    let specialization = Specialization::new(targets.height);
    let specialization = specialization.info();
    let stage_infos = |pre_rasterization: bool| -> Vec<_> {
        desc.stages
            .iter()
            .filter(|(stage, _)| (*stage != ShaderStage::Fragment) == pre_rasterization)
            .map(|(stage, module)| {
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(stage_flag(*stage))
                    .module(*module)
                    .name(c"main")
                    .specialization_info(&specialization)
            })
            .collect()
    };
    let pre_rasterization_stages = stage_infos(true);
    let fragment_stages = stage_infos(false);
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(desc.bindings)
        .vertex_attribute_descriptions(desc.attributes);
    let gl_mode = abi::PipelinePrimitiveModeCreateInfo {
        s_type: abi::STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
        p_next: std::ptr::null(),
        primitive_mode: desc.primitive_mode,
    };
    let mut input_assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(desc.topology)
        .primitive_restart_enable(desc.primitive_restart);
    if desc.primitive_mode != abi::PrimitiveMode::NONE && gpu.gl_state.is_some() {
        // The layer's struct (VK_GLSEM_gl_state is enabled): the layer takes it out of the
        // chain, sets the topology and draws GL's mode; `gl_mode` outlives the creation.
        input_assembly.p_next = std::ptr::from_ref(&gl_mode).cast();
    }
    let tessellation = vk::PipelineTessellationStateCreateInfo::default()
        .patch_control_points(desc.patch_control_points);
    let (viewports, scissors) = viewports_and_scissors(gpu, targets);
    let mut viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let dynamic_states = gpu.dynamic.as_ref().map_or(&[][..], |d| &d.states[..]);
    if dynamic_states.contains(&vk::DynamicState::VIEWPORT_WITH_COUNT) {
        // Counted by `vkCmdSetViewportWithCount` and `vkCmdSetScissorWithCount`.
        viewport = vk::PipelineViewportStateCreateInfo::default();
    }
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(dynamic_states);
    let mut provoking = vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT::default()
        .provoking_vertex_mode(vk::ProvokingVertexModeEXT::FIRST_VERTEX);
    let mut rasterization = vk::PipelineRasterizationStateCreateInfo::default()
        .rasterizer_discard_enable(desc.rasterizer_discard)
        .polygon_mode(polygon_mode(desc.raster.polygon_mode))
        .cull_mode(cull_mode(&desc.raster))
        .front_face(front_face(&desc.raster))
        .line_width(f32::from_bits(desc.raster.line_width_bits));
    if desc.raster.provoking_first {
        if !gpu.provoking_vertex {
            return Err("`provoking vertex first` needs VK_EXT_provoking_vertex".into());
        }
        rasterization = rasterization.push_next(&mut provoking);
    }
    let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(desc.raster.depth_test)
        .depth_write_enable(desc.raster.depth_test)
        .depth_compare_op(compare_op(desc.raster.depth_func));
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend_attachments: Vec<_> = targets
        .attachments
        .iter()
        .map(|_| {
            vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA)
        })
        .collect();
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
    let formats = targets.rendering_formats();
    let has_tess = desc.stages.iter().any(|(s, _)| *s == ShaderStage::TessEval);
    let parts = Parts {
        pre_rasterization_stages: &pre_rasterization_stages,
        fragment_stages: &fragment_stages,
        vertex_input: &vertex_input,
        input_assembly: &input_assembly,
        tessellation: has_tess.then_some(&tessellation),
        viewport: &viewport,
        rasterization: &rasterization,
        depth_stencil: &depth_stencil,
        multisample: &multisample,
        blend: &blend,
        formats: &formats,
        layout: desc.layout,
        dynamic: &dynamic,
    };
    match gpu.pipelines {
        Path::Libraries {
            link_time_optimization,
            ..
        } => create_from_libraries(gpu, targets, &parts, link_time_optimization),
        _ => create_whole(gpu, targets, &parts),
    }
}

/// A pipeline's state, as Vulkan's create infos.
struct Parts<'a> {
    pre_rasterization_stages: &'a [vk::PipelineShaderStageCreateInfo<'a>],
    fragment_stages: &'a [vk::PipelineShaderStageCreateInfo<'a>],
    vertex_input: &'a vk::PipelineVertexInputStateCreateInfo<'a>,
    input_assembly: &'a vk::PipelineInputAssemblyStateCreateInfo<'a>,
    /// With tessellation shaders.
    tessellation: Option<&'a vk::PipelineTessellationStateCreateInfo<'a>>,
    viewport: &'a vk::PipelineViewportStateCreateInfo<'a>,
    rasterization: &'a vk::PipelineRasterizationStateCreateInfo<'a>,
    depth_stencil: &'a vk::PipelineDepthStencilStateCreateInfo<'a>,
    multisample: &'a vk::PipelineMultisampleStateCreateInfo<'a>,
    blend: &'a vk::PipelineColorBlendStateCreateInfo<'a>,
    /// The colour formats of dynamic rendering.
    formats: &'a [vk::Format],
    layout: vk::PipelineLayout,
    /// `--pipelines dynamic-state`'s states (none on the other paths).
    dynamic: &'a vk::PipelineDynamicStateCreateInfo<'a>,
}

/// One pipeline of all the parts.
fn create_whole(gpu: &Gpu, targets: &Targets, parts: &Parts) -> VkResult<Pipeline> {
    let stages: Vec<_> = parts
        .pre_rasterization_stages
        .iter()
        .chain(parts.fragment_stages)
        .copied()
        .collect();
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(parts.formats);
    if targets.depth.is_some() {
        rendering = rendering.depth_attachment_format(super::target::DEPTH_FORMAT);
    }
    let mut info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .input_assembly_state(parts.input_assembly)
        .viewport_state(parts.viewport)
        .rasterization_state(parts.rasterization)
        .multisample_state(parts.multisample)
        .color_blend_state(parts.blend)
        .layout(parts.layout);
    if parts.dynamic.dynamic_state_count > 0 {
        info = info.dynamic_state(parts.dynamic);
    }
    let dynamic_states = match parts.dynamic.dynamic_state_count {
        0 => &[][..],
        // SAFETY: the count and array of the runner's own dynamic state.
        count => unsafe {
            std::slice::from_raw_parts(parts.dynamic.p_dynamic_states, count as usize)
        },
    };
    // Under dynamic vertex input the state is vkCmdSetVertexInputEXT's: none is given here
    // (Vulkan ignores it, and its formats are for that command to name).
    if !dynamic_states.contains(&vk::DynamicState::VERTEX_INPUT_EXT) {
        info = info.vertex_input_state(parts.vertex_input);
    }
    if let Some(tessellation) = parts.tessellation {
        info = info.tessellation_state(tessellation);
    }
    if targets.depth.is_some() {
        info = info.depth_stencil_state(parts.depth_stencil);
    }
    if targets.dynamic {
        info = info.push_next(&mut rendering);
    } else {
        info = info.render_pass(targets.render_pass).subpass(0);
    }
    Ok(Pipeline {
        handle: create_one(gpu, &info)?,
        libraries: Vec::new(),
    })
}

/// The four libraries, each with only its part of the state, linked. (`INDEPENDENT_SETS`
/// is the layout's flag: the player creates its layout with `Path::layout_flags`.)
fn create_from_libraries(
    gpu: &Gpu,
    targets: &Targets,
    parts: &Parts,
    link_time_optimization: bool,
) -> VkResult<Pipeline> {
    let mut library_flags = vk::PipelineCreateFlags::LIBRARY_KHR;
    if link_time_optimization {
        library_flags |= vk::PipelineCreateFlags::RETAIN_LINK_TIME_OPTIMIZATION_INFO_EXT;
    }
    let mut libraries = Vec::new();
    let linked = (|| {
        let vertex_input = vk::GraphicsPipelineCreateInfo::default()
            .vertex_input_state(parts.vertex_input)
            .input_assembly_state(parts.input_assembly);
        // The input assembly state too, which Vulkan ignores here: GL's primitive mode
        // chained to it tells the layer to add its geometry shader to these stages.
        let mut pre_rasterization = vk::GraphicsPipelineCreateInfo::default()
            .stages(parts.pre_rasterization_stages)
            .input_assembly_state(parts.input_assembly)
            .viewport_state(parts.viewport)
            .rasterization_state(parts.rasterization)
            .layout(parts.layout);
        if let Some(tessellation) = parts.tessellation {
            pre_rasterization = pre_rasterization.tessellation_state(tessellation);
        }
        // The fragment parts even with rasterization discarded, where Vulkan lets them be
        // left out: the validation layer (1.3.239) crashes in vkCmdDraw on a pipeline linked
        // without them. A program without a fragment shader gets a part without stages.
        // Vulkan wants a depth/stencil state in this part even without a depth buffer
        // (VUID-VkGraphicsPipelineCreateInfo-renderPass-06590): one that tests nothing.
        let no_depth_test = vk::PipelineDepthStencilStateCreateInfo::default();
        let fragment = vk::GraphicsPipelineCreateInfo::default()
            .stages(parts.fragment_stages)
            .multisample_state(parts.multisample)
            .layout(parts.layout)
            .depth_stencil_state(if targets.depth.is_some() {
                parts.depth_stencil
            } else {
                &no_depth_test
            });
        let fragment_output = vk::GraphicsPipelineCreateInfo::default()
            .multisample_state(parts.multisample)
            .color_blend_state(parts.blend);
        use vk::GraphicsPipelineLibraryFlagsEXT as Part;
        for (part, info) in [
            (Part::VERTEX_INPUT_INTERFACE, vertex_input),
            (Part::PRE_RASTERIZATION_SHADERS, pre_rasterization),
            (Part::FRAGMENT_SHADER, fragment),
            (Part::FRAGMENT_OUTPUT_INTERFACE, fragment_output),
        ] {
            libraries.push(library(
                gpu,
                targets,
                parts.formats,
                part,
                library_flags,
                info,
            )?);
        }
        let mut linking = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libraries);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .flags(if link_time_optimization {
                vk::PipelineCreateFlags::LINK_TIME_OPTIMIZATION_EXT
            } else {
                vk::PipelineCreateFlags::empty()
            })
            .layout(parts.layout)
            .push_next(&mut linking);
        create_one(gpu, &info)
    })();
    let pipeline = Pipeline {
        handle: linked.as_ref().copied().unwrap_or_default(),
        libraries,
    };
    match linked {
        Ok(_) => Ok(pipeline),
        Err(e) => {
            pipeline.destroy(&gpu.device);
            Err(e)
        }
    }
}

/// One graphics pipeline library: `part` of the state, from `info`, for the targets. The
/// parts but the vertex input name the render pass. With dynamic rendering the fragment
/// output states every format and the fragment shader only the depth format: Vulkan reads
/// no more than the view mask (0, as when the structure is absent) from the parts but the
/// fragment output, yet lavapipe 22.3 keeps a fragment shader part's depth test only when
/// it sees a depth format, and crashes on one given the colour formats of a target with an
/// unused (`VK_FORMAT_UNDEFINED`) attachment.
fn library(
    gpu: &Gpu,
    targets: &Targets,
    formats: &[vk::Format],
    part: vk::GraphicsPipelineLibraryFlagsEXT,
    flags: vk::PipelineCreateFlags,
    info: vk::GraphicsPipelineCreateInfo<'_>,
) -> VkResult<vk::Pipeline> {
    let mut library = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(part);
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(formats);
    if targets.depth.is_some() {
        rendering = rendering.depth_attachment_format(super::target::DEPTH_FORMAT);
    }
    let mut depth_only = vk::PipelineRenderingCreateInfo::default();
    if targets.depth.is_some() {
        depth_only = depth_only.depth_attachment_format(super::target::DEPTH_FORMAT);
    }
    let mut info = info.flags(flags).push_next(&mut library);
    if targets.dynamic {
        if part == vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE {
            info = info.push_next(&mut rendering);
        } else if part == vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_SHADER {
            info = info.push_next(&mut depth_only);
        }
    } else if part != vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE {
        info = info.render_pass(targets.render_pass).subpass(0);
    }
    create_one(gpu, &info)
}

fn create_one(gpu: &Gpu, info: &vk::GraphicsPipelineCreateInfo) -> VkResult<vk::Pipeline> {
    // SAFETY: `info` and what it points to are alive; its handles are this device's.
    let pipelines = unsafe {
        gpu.device.create_graphics_pipelines(
            vk::PipelineCache::null(),
            std::slice::from_ref(info),
            None,
        )
    }
    .map_err(|(_, e)| check("vkCreateGraphicsPipelines")(e))?;
    Ok(pipelines[0])
}

/// The stage that follows `stage` in a graphics program with `stages`, for `nextStage`.
fn next_stage(stage: ShaderStage, stages: &[ShaderStage]) -> vk::ShaderStageFlags {
    const ORDER: [ShaderStage; 5] = [
        ShaderStage::Vertex,
        ShaderStage::TessControl,
        ShaderStage::TessEval,
        ShaderStage::Geometry,
        ShaderStage::Fragment,
    ];
    ORDER
        .iter()
        .skip_while(|s| **s != stage)
        .skip(1)
        .find(|s| stages.contains(s))
        .map_or(vk::ShaderStageFlags::empty(), |s| stage_flag(*s))
}

/// A program's stages as `VK_EXT_shader_object` shaders: the graphics stages linked
/// together (`LINK_STAGE`) unless `separate` (`SSO ENABLED`: one program per stage), the
/// compute stage on its own. On failure nothing is left behind.
pub fn create_shaders(
    gpu: &Gpu,
    targets: &Targets,
    stages: &[(ShaderStage, &[u32])],
    set_layouts: &[vk::DescriptorSetLayout],
    separate: bool,
) -> VkResult<Vec<(ShaderStage, vk::ShaderEXT)>> {
    let Some(objects) = &gpu.shader_object else {
        return Err("VK_EXT_shader_object is not enabled".into());
    };
    let specialization = Specialization::new(targets.height);
    let specialization = specialization.info();
    let graphics: Vec<ShaderStage> = stages
        .iter()
        .map(|(s, _)| *s)
        .filter(|s| *s != ShaderStage::Compute)
        .collect();
    let linked = !separate && graphics.len() > 1;
    let infos = |compute: bool| -> Vec<vk::ShaderCreateInfoEXT<'_>> {
        stages
            .iter()
            .filter(|(stage, _)| (*stage == ShaderStage::Compute) == compute)
            .map(|(stage, words)| {
                vk::ShaderCreateInfoEXT::default()
                    .flags(if linked && !compute {
                        vk::ShaderCreateFlagsEXT::LINK_STAGE
                    } else {
                        vk::ShaderCreateFlagsEXT::empty()
                    })
                    .stage(stage_flag(*stage))
                    .next_stage(next_stage(*stage, &graphics))
                    .code_type(vk::ShaderCodeTypeEXT::SPIRV)
                    .code(bytemuck_words(words))
                    .name(c"main")
                    .set_layouts(set_layouts)
                    .specialization_info(&specialization)
            })
            .collect()
    };
    let mut shaders = Vec::new();
    for compute in [false, true] {
        let infos = infos(compute);
        if infos.is_empty() {
            continue;
        }
        // SAFETY: the infos and the code they point to are alive; the layouts are this
        // device's.
        match unsafe { objects.create_shaders(&infos, None) } {
            Ok(created) => shaders.extend(
                stages
                    .iter()
                    .map(|(s, _)| *s)
                    .filter(|s| (*s == ShaderStage::Compute) == compute)
                    .zip(created),
            ),
            Err((_, e)) => {
                destroy_shaders(gpu, &shaders);
                return Err(check("vkCreateShadersEXT")(e));
            }
        }
    }
    Ok(shaders)
}

/// SPIR-V words as the bytes `VkShaderCreateInfoEXT::pCode` takes.
fn bytemuck_words(words: &[u32]) -> &[u8] {
    // SAFETY: u8 has no alignment or validity requirements; the length covers the words.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 4 * words.len()) }
}

pub fn destroy_shaders(gpu: &Gpu, shaders: &[(ShaderStage, vk::ShaderEXT)]) {
    if let Some(objects) = &gpu.shader_object {
        for (_, shader) in shaders {
            // SAFETY: the shader is this device's and no longer in use.
            unsafe { objects.destroy_shader(*shader, None) };
        }
    }
}

/// Binds `shaders`' compute shader.
///
/// # Safety
/// `cmd` is recording; the shaders are this device's.
pub unsafe fn bind_compute_shader(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    shaders: &[(ShaderStage, vk::ShaderEXT)],
) {
    if let (Some(objects), Some((_, shader))) = (
        &gpu.shader_object,
        shaders.iter().find(|(s, _)| *s == ShaderStage::Compute),
    ) {
        // SAFETY: the caller's contract: `cmd` is recording and `shader` is this device's, on
        // which `objects` (VK_EXT_shader_object) was loaded.
        unsafe { objects.cmd_bind_shaders(cmd, &[vk::ShaderStageFlags::COMPUTE], &[*shader]) };
    }
}

/// Binds the program's graphics shaders (and no shader to the stages it lacks) and sets
/// every state a draw with shader objects reads — all of it dynamic — to what `create`
/// bakes into a pipeline for `desc`.
///
/// # Safety
/// `cmd` is recording inside the targets' `vkCmdBeginRendering`; the shaders are this
/// device's.
pub unsafe fn record_shader_state(
    gpu: &Gpu,
    targets: &Targets,
    cmd: vk::CommandBuffer,
    shaders: &[(ShaderStage, vk::ShaderEXT)],
    desc: &PipelineDesc,
) -> VkResult<()> {
    let Some(objects) = &gpu.shader_object else {
        return Err("VK_EXT_shader_object is not enabled".into());
    };
    let state = ShaderState {
        gpu,
        objects,
        cmd,
        desc,
    };
    // SAFETY: the caller's contract, passed on.
    unsafe {
        state.bind_graphics_shaders(shaders);
        state.set_vertex_input(shaders);
        state.set_rasterization(targets)?;
        state.set_fragment_tests_and_output(targets);
    }
    Ok(())
}

/// What `record_shader_state` records with. Its methods' safety contract is
/// `record_shader_state`'s: `cmd` is recording inside the targets' `vkCmdBeginRendering`
/// on the device `objects` was loaded for; the shaders are this device's.
struct ShaderState<'a> {
    gpu: &'a Gpu,
    objects: &'a ash::ext::shader_object::Device,
    cmd: vk::CommandBuffer,
    desc: &'a PipelineDesc<'a>,
}

impl ShaderState<'_> {
    /// Binds `shaders` and no shader to each other stage the device's features allow.
    unsafe fn bind_graphics_shaders(&self, shaders: &[(ShaderStage, vk::ShaderEXT)]) {
        let (objects, cmd) = (self.objects, self.cmd);
        let features = &self.gpu.enabled_features;
        let mut stages = vec![vk::ShaderStageFlags::VERTEX, vk::ShaderStageFlags::FRAGMENT];
        if features.tessellation_shader == vk::TRUE {
            stages.push(vk::ShaderStageFlags::TESSELLATION_CONTROL);
            stages.push(vk::ShaderStageFlags::TESSELLATION_EVALUATION);
        }
        if features.geometry_shader == vk::TRUE {
            stages.push(vk::ShaderStageFlags::GEOMETRY);
        }
        let bound: Vec<vk::ShaderEXT> = stages
            .iter()
            .map(|flag| {
                shaders
                    .iter()
                    .find(|(s, _)| stage_flag(*s) == *flag)
                    .map_or(vk::ShaderEXT::null(), |(_, shader)| *shader)
            })
            .collect();
        // SAFETY: `ShaderState`'s contract: `cmd` is recording and the shaders are this
        // device's, on which `objects` was loaded; `stages` names only stages whose features
        // are enabled (VUID-vkCmdBindShadersEXT-pStages-08464/08465/08466), `bound` has one
        // entry each.
        unsafe { objects.cmd_bind_shaders(cmd, &stages, &bound) };
    }

    /// The vertex input, primitive and tessellation state.
    unsafe fn set_vertex_input(&self, shaders: &[(ShaderStage, vk::ShaderEXT)]) {
        let (objects, cmd, desc) = (self.objects, self.cmd, self.desc);
        let (bindings, attributes) = vertex_input_2(desc);
        // The state setters here and below only record values into `cmd`, which
        // `ShaderState`'s contract has recording inside `vkCmdBeginRendering` on the device
        // `objects` was loaded for; each setter whose command needs a feature is called only
        // when that feature is on.
        // SAFETY: as said above; `bindings` and `attributes` outlive the call.
        unsafe {
            objects.cmd_set_vertex_input(cmd, &bindings, &attributes);
            objects.cmd_set_primitive_topology(cmd, desc.topology);
            objects.cmd_set_primitive_restart_enable(cmd, desc.primitive_restart);
        }
        if let Some(gl) = self.gpu.gl_state {
            // GL's mode of this draw (NONE: the topology above), after the topology: the layer
            // sets its own for GL's modes.
            // SAFETY: as above; `gl` holds VK_GLSEM_gl_state's commands of this device
            // (enabled on it); the command takes a value only.
            unsafe { (gl.set_primitive_mode)(cmd, desc.primitive_mode.0) };
        }
        let has = |stage| shaders.iter().any(|(s, _)| *s == stage);
        if has(ShaderStage::TessControl) || has(ShaderStage::TessEval) {
            // GL_PATCH_VERTICES is GL state whether or not the program has a TCS: a TES
            // bound alone draws with the TCS the layer generates for this patch size.
            // SAFETY: as above; tessellation stages are only bound when
            // `tessellationShader` is on.
            unsafe { objects.cmd_set_patch_control_points(cmd, desc.patch_control_points) };
        }
        if has(ShaderStage::TessEval) {
            // Vulkan's default, as a pipeline without a domain-origin state has it; GL's
            // origin is the layer's.
            // SAFETY: as above; a TES is only bound when `tessellationShader` is on.
            unsafe {
                objects.cmd_set_tessellation_domain_origin(
                    cmd,
                    vk::TessellationDomainOrigin::UPPER_LEFT,
                )
            };
        }
    }

    /// The viewport and rasterization state.
    unsafe fn set_rasterization(&self, targets: &Targets) -> VkResult<()> {
        let (gpu, objects, cmd, desc) = (self.gpu, self.objects, self.cmd, self.desc);
        let d = &gpu.device;
        let features = &gpu.enabled_features;
        let (viewports, scissors) = viewports_and_scissors(gpu, targets);
        // SAFETY: as in `set_vertex_input`; `cmd_set_line_width` is the core command on the
        // same device (a width other than 1 only where `wideLines` is on: the player refuses
        // it otherwise; several viewports only where `multiViewport` is on).
        unsafe {
            objects.cmd_set_viewport_with_count(cmd, &viewports);
            objects.cmd_set_scissor_with_count(cmd, &scissors);
            objects.cmd_set_rasterizer_discard_enable(cmd, desc.rasterizer_discard);
            objects.cmd_set_polygon_mode(cmd, polygon_mode(desc.raster.polygon_mode));
            objects.cmd_set_cull_mode(cmd, cull_mode(&desc.raster));
            objects.cmd_set_front_face(cmd, front_face(&desc.raster));
            d.cmd_set_line_width(cmd, f32::from_bits(desc.raster.line_width_bits));
            objects.cmd_set_depth_bias_enable(cmd, false);
        }
        if features.depth_clamp == vk::TRUE {
            // SAFETY: as above, with `depthClamp` on.
            unsafe { objects.cmd_set_depth_clamp_enable(cmd, false) };
        }
        if gpu.provoking_vertex {
            let mode = if desc.raster.provoking_first {
                vk::ProvokingVertexModeEXT::FIRST_VERTEX
            } else {
                vk::ProvokingVertexModeEXT::LAST_VERTEX
            };
            // SAFETY: as above, with VK_EXT_provoking_vertex enabled.
            unsafe { objects.cmd_set_provoking_vertex_mode(cmd, mode) };
        } else if desc.raster.provoking_first {
            return Err("`provoking vertex first` needs VK_EXT_provoking_vertex".into());
        }
        if gpu.geometry_streams {
            // SAFETY: as above, with `geometryStreams` on.
            unsafe { objects.cmd_set_rasterization_stream(cmd, 0) };
        }
        Ok(())
    }

    /// The depth, stencil, multisample and colour blend state.
    unsafe fn set_fragment_tests_and_output(&self, targets: &Targets) {
        let (objects, cmd, desc) = (self.objects, self.cmd, self.desc);
        let features = &self.gpu.enabled_features;
        // SAFETY: as in `set_vertex_input`; none of these needs a feature.
        unsafe {
            objects.cmd_set_depth_test_enable(cmd, desc.raster.depth_test);
            objects.cmd_set_depth_write_enable(cmd, desc.raster.depth_test);
            objects.cmd_set_depth_compare_op(cmd, compare_op(desc.raster.depth_func));
        }
        if features.depth_bounds == vk::TRUE {
            // SAFETY: as above, with `depthBounds` on.
            unsafe { objects.cmd_set_depth_bounds_test_enable(cmd, false) };
        }
        // SAFETY: as above; the sample mask covers the one sample it is declared with.
        unsafe {
            objects.cmd_set_stencil_test_enable(cmd, false);
            objects.cmd_set_rasterization_samples(cmd, vk::SampleCountFlags::TYPE_1);
            objects.cmd_set_sample_mask(cmd, vk::SampleCountFlags::TYPE_1, &[!0]);
            objects.cmd_set_alpha_to_coverage_enable(cmd, false);
        }
        if features.alpha_to_one == vk::TRUE {
            // SAFETY: as above, with `alphaToOne` on.
            unsafe { objects.cmd_set_alpha_to_one_enable(cmd, false) };
        }
        if features.logic_op == vk::TRUE {
            // SAFETY: as above, with `logicOp` on.
            unsafe { objects.cmd_set_logic_op_enable(cmd, false) };
        }
        let count = targets.attachments.len();
        if count > 0 {
            // SAFETY: as above; one entry per colour attachment of the current rendering.
            unsafe {
                objects.cmd_set_color_blend_enable(cmd, 0, &vec![vk::FALSE; count]);
                objects.cmd_set_color_write_mask(
                    cmd,
                    0,
                    &vec![vk::ColorComponentFlags::RGBA; count],
                );
            }
        }
    }
}

/// `--pipelines dynamic-state`: sets every state `gpu.dynamic` lists to what `create` bakes
/// into a pipeline for `desc`, after the pipeline is bound (the dynamic state a pipeline
/// lists must be set before a draw; binding another pipeline keeps it).
///
/// # Safety
/// `cmd` is recording inside the targets' render pass or rendering, with a pipeline made by
/// `create` for `desc` on this device bound.
pub unsafe fn record_dynamic_state(
    gpu: &Gpu,
    targets: &Targets,
    cmd: vk::CommandBuffer,
    desc: &PipelineDesc,
) {
    use vk::DynamicState as D;
    let Some(dynamic) = &gpu.dynamic else {
        return;
    };
    let s = &dynamic.fns;
    let count = targets.attachments.len();
    for state in &dynamic.states {
        // Each setter only records a value into `cmd` (recording, per the caller's contract,
        // on the device the setters were loaded for), for a state the bound pipeline lists
        // as dynamic, whose feature the device was created with; the values are the ones
        // the static path bakes in, valid on any device (`polygon_mode` other than FILL,
        // a wide line, several viewports only where the player checked the feature).
        // SAFETY: as said above; the slices outlive the calls.
        unsafe {
            match *state {
                D::CULL_MODE => s.cmd_set_cull_mode(cmd, cull_mode(&desc.raster)),
                D::FRONT_FACE => s.cmd_set_front_face(cmd, front_face(&desc.raster)),
                D::PRIMITIVE_TOPOLOGY => s.cmd_set_primitive_topology(cmd, desc.topology),
                D::VIEWPORT_WITH_COUNT => {
                    s.cmd_set_viewport_with_count(cmd, &viewports_and_scissors(gpu, targets).0)
                }
                D::SCISSOR_WITH_COUNT => {
                    s.cmd_set_scissor_with_count(cmd, &viewports_and_scissors(gpu, targets).1)
                }
                D::DEPTH_TEST_ENABLE => s.cmd_set_depth_test_enable(cmd, desc.raster.depth_test),
                D::DEPTH_WRITE_ENABLE => s.cmd_set_depth_write_enable(cmd, desc.raster.depth_test),
                D::DEPTH_COMPARE_OP => {
                    s.cmd_set_depth_compare_op(cmd, compare_op(desc.raster.depth_func))
                }
                D::DEPTH_BOUNDS_TEST_ENABLE => s.cmd_set_depth_bounds_test_enable(cmd, false),
                D::STENCIL_TEST_ENABLE => s.cmd_set_stencil_test_enable(cmd, false),
                D::STENCIL_OP => s.cmd_set_stencil_op(
                    cmd,
                    vk::StencilFaceFlags::FRONT_AND_BACK,
                    vk::StencilOp::KEEP,
                    vk::StencilOp::KEEP,
                    vk::StencilOp::KEEP,
                    vk::CompareOp::ALWAYS,
                ),
                D::RASTERIZER_DISCARD_ENABLE => {
                    s.cmd_set_rasterizer_discard_enable(cmd, desc.rasterizer_discard)
                }
                D::DEPTH_BIAS_ENABLE => s.cmd_set_depth_bias_enable(cmd, false),
                D::PRIMITIVE_RESTART_ENABLE => {
                    s.cmd_set_primitive_restart_enable(cmd, desc.primitive_restart)
                }
                D::PATCH_CONTROL_POINTS_EXT => {
                    s.cmd_set_patch_control_points(cmd, desc.patch_control_points.max(1))
                }
                D::TESSELLATION_DOMAIN_ORIGIN_EXT => s.cmd_set_tessellation_domain_origin(
                    cmd,
                    vk::TessellationDomainOrigin::UPPER_LEFT,
                ),
                D::DEPTH_CLAMP_ENABLE_EXT => s.cmd_set_depth_clamp_enable(cmd, false),
                D::POLYGON_MODE_EXT => {
                    s.cmd_set_polygon_mode(cmd, polygon_mode(desc.raster.polygon_mode))
                }
                D::RASTERIZATION_SAMPLES_EXT => {
                    s.cmd_set_rasterization_samples(cmd, vk::SampleCountFlags::TYPE_1)
                }
                D::SAMPLE_MASK_EXT => {
                    s.cmd_set_sample_mask(cmd, vk::SampleCountFlags::TYPE_1, &[!0])
                }
                D::ALPHA_TO_COVERAGE_ENABLE_EXT => s.cmd_set_alpha_to_coverage_enable(cmd, false),
                D::ALPHA_TO_ONE_ENABLE_EXT => s.cmd_set_alpha_to_one_enable(cmd, false),
                D::LOGIC_OP_ENABLE_EXT => s.cmd_set_logic_op_enable(cmd, false),
                D::COLOR_BLEND_ENABLE_EXT if count > 0 => {
                    s.cmd_set_color_blend_enable(cmd, 0, &vec![vk::FALSE; count])
                }
                D::COLOR_BLEND_EQUATION_EXT if count > 0 => s.cmd_set_color_blend_equation(
                    cmd,
                    0,
                    &vec![
                        vk::ColorBlendEquationEXT::default()
                            .src_color_blend_factor(vk::BlendFactor::ONE)
                            .src_alpha_blend_factor(vk::BlendFactor::ONE);
                        count
                    ],
                ),
                D::COLOR_WRITE_MASK_EXT if count > 0 => {
                    s.cmd_set_color_write_mask(cmd, 0, &vec![vk::ColorComponentFlags::RGBA; count])
                }
                D::LINE_RASTERIZATION_MODE_EXT => {
                    s.cmd_set_line_rasterization_mode(cmd, vk::LineRasterizationModeEXT::DEFAULT)
                }
                D::PROVOKING_VERTEX_MODE_EXT => {
                    let mode = match gpu.provoking_vertex && !desc.raster.provoking_first {
                        true => vk::ProvokingVertexModeEXT::LAST_VERTEX,
                        false => vk::ProvokingVertexModeEXT::FIRST_VERTEX,
                    };
                    s.cmd_set_provoking_vertex_mode(cmd, mode)
                }
                D::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT => {
                    s.cmd_set_depth_clip_negative_one_to_one(cmd, false)
                }
                D::VERTEX_INPUT_EXT => {
                    let (bindings, attributes) = vertex_input_2(desc);
                    s.cmd_set_vertex_input(cmd, &bindings, &attributes)
                }
                _ => {}
            }
        }
    }
}

/// `desc`'s vertex input as `vkCmdSetVertexInputEXT` takes it.
fn vertex_input_2(
    desc: &PipelineDesc,
) -> (
    Vec<vk::VertexInputBindingDescription2EXT<'static>>,
    Vec<vk::VertexInputAttributeDescription2EXT<'static>>,
) {
    let bindings = desc
        .bindings
        .iter()
        .map(|b| {
            vk::VertexInputBindingDescription2EXT::default()
                .binding(b.binding)
                .stride(b.stride)
                .input_rate(b.input_rate)
                .divisor(1)
        })
        .collect();
    let attributes = desc
        .attributes
        .iter()
        .map(|a| {
            vk::VertexInputAttributeDescription2EXT::default()
                .location(a.location)
                .binding(a.binding)
                .format(a.format)
                .offset(a.offset)
        })
        .collect();
    (bindings, attributes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gl_only_modes_go_to_the_layer_with_a_plain_fallback_topology() {
        use abi::PrimitiveMode as Gl;
        use vk::PrimitiveTopology as Plain;
        let cases = [
            (Mode::LineLoop, Gl::LINE_LOOP, Plain::LINE_STRIP),
            (Mode::Quads, Gl::QUADS, Plain::TRIANGLE_STRIP),
            (Mode::QuadStrip, Gl::QUAD_STRIP, Plain::TRIANGLE_STRIP),
            (Mode::Polygon, Gl::POLYGON, Plain::TRIANGLE_STRIP),
            (Mode::LineStrip, Gl::NONE, Plain::LINE_STRIP),
            (Mode::TriangleFan, Gl::NONE, Plain::TRIANGLE_FAN),
        ];
        for (mode, gl, plain) in cases {
            assert_eq!(primitive_mode(mode), gl, "{mode:?}");
            assert_eq!(topology(mode), plain, "{mode:?}");
            // GL's enum values, as the layer's ABI names them.
            assert_eq!(
                primitive_mode(mode) != abi::PrimitiveMode::NONE,
                mode.layer_drawn()
            );
        }
        assert_eq!(abi::PrimitiveMode::QUADS.0, 0x0007);
    }
}

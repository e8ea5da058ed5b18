//! Graphics pipelines with GL's conventions: a flipped viewport (or a positive one with
//! `--lower-left`), glDepthRange(0, 1) as the viewport's depth range, no blending, GL's
//! culling and front face stated in GL's terms. GL's clip-space depth (−w..w), last-vertex
//! provoking convention, tessellation domain origin and the window-coordinate rules a
//! viewport turns over are the glsem layer's (`VK_GLSEM_gl_state`, `window_origin`): the
//! runner does not correct them itself.

use ash::vk;

use super::target::Targets;
use super::{check, Gpu, VkResult};
use crate::scene::{CullFace, DepthFunc, Mode, PolygonMode, Stage};

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

pub struct PipelineDesc<'a> {
    pub stages: &'a [(Stage, vk::ShaderModule)],
    pub layout: vk::PipelineLayout,
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    pub patch_control_points: u32,
    pub rasterizer_discard: bool,
    pub raster: RasterState,
}

pub fn topology(mode: Mode) -> vk::PrimitiveTopology {
    match mode {
        Mode::Points => vk::PrimitiveTopology::POINT_LIST,
        Mode::Lines => vk::PrimitiveTopology::LINE_LIST,
        Mode::LineStrip | Mode::LineLoop => vk::PrimitiveTopology::LINE_STRIP,
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

pub fn stage_flag(stage: Stage) -> vk::ShaderStageFlags {
    match stage {
        Stage::Vertex => vk::ShaderStageFlags::VERTEX,
        Stage::TessControl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
        Stage::TessEval => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        Stage::Geometry => vk::ShaderStageFlags::GEOMETRY,
        Stage::Fragment => vk::ShaderStageFlags::FRAGMENT,
        Stage::Compute => vk::ShaderStageFlags::COMPUTE,
    }
}

pub fn create(gpu: &Gpu, targets: &Targets, desc: &PipelineDesc) -> VkResult<vk::Pipeline> {
    // GL state the shaders read from specialization constants (runner/src/fixes.rs): the
    // framebuffer height, from which GL's gl_FragCoord.y is computed, and gl_DepthRange.
    let (near, far) = DEPTH_RANGE;
    let values = [targets.height as f32, near, far, far - near];
    let ids = [crate::fixes::FRAMEBUFFER_HEIGHT_SPEC_ID]
        .into_iter()
        .chain(crate::fixes::DEPTH_RANGE_SPEC_IDS);
    let entries: Vec<_> = ids
        .enumerate()
        .map(|(i, constant_id)| vk::SpecializationMapEntry {
            constant_id,
            offset: (i * 4) as u32,
            size: 4,
        })
        .collect();
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let specialization = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&data);
    let stages: Vec<_> = desc
        .stages
        .iter()
        .map(|(stage, module)| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(stage_flag(*stage))
                .module(*module)
                .name(c"main")
                .specialization_info(&specialization)
        })
        .collect();
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(desc.bindings)
        .vertex_attribute_descriptions(desc.attributes);
    let input_assembly =
        vk::PipelineInputAssemblyStateCreateInfo::default().topology(desc.topology);
    let tessellation = vk::PipelineTessellationStateCreateInfo::default()
        .patch_control_points(desc.patch_control_points);
    // GL window coordinates have their origin at the bottom left: a flipped viewport puts
    // GL's bottom row at the framebuffer's last; `--lower-left` keeps GL's row order.
    let height = targets.height as f32;
    let viewports = [vk::Viewport {
        x: 0.0,
        y: if gpu.lower_left { 0.0 } else { height },
        width: targets.width as f32,
        height: if gpu.lower_left { height } else { -height },
        min_depth: near,
        max_depth: far,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: targets.width,
            height: targets.height,
        },
    }];
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let mut provoking = vk::PipelineRasterizationProvokingVertexStateCreateInfoEXT::default()
        .provoking_vertex_mode(vk::ProvokingVertexModeEXT::FIRST_VERTEX);
    let mut rasterization = vk::PipelineRasterizationStateCreateInfo::default()
        .rasterizer_discard_enable(desc.rasterizer_discard)
        .polygon_mode(match desc.raster.polygon_mode {
            PolygonMode::Fill => vk::PolygonMode::FILL,
            PolygonMode::Line => vk::PolygonMode::LINE,
            PolygonMode::Point => vk::PolygonMode::POINT,
        })
        // GL's terms, verbatim: the layer turns them over where the viewport does.
        .cull_mode(match (desc.raster.cull_enabled, desc.raster.cull_face) {
            (false, _) => vk::CullModeFlags::NONE,
            (true, CullFace::Back) => vk::CullModeFlags::BACK,
            (true, CullFace::Front) => vk::CullModeFlags::FRONT,
            (true, CullFace::FrontAndBack) => vk::CullModeFlags::FRONT_AND_BACK,
        })
        .front_face(if desc.raster.front_clockwise {
            vk::FrontFace::CLOCKWISE
        } else {
            vk::FrontFace::COUNTER_CLOCKWISE
        })
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
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    if targets.depth.is_some() {
        rendering = rendering.depth_attachment_format(super::target::DEPTH_FORMAT);
    }

    let has_tess = desc.stages.iter().any(|(s, _)| *s == Stage::TessEval);
    let mut info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&input_assembly)
        .viewport_state(&viewport)
        .rasterization_state(&rasterization)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .layout(desc.layout);
    if has_tess {
        info = info.tessellation_state(&tessellation);
    }
    if targets.depth.is_some() {
        info = info.depth_stencil_state(&depth_stencil);
    }
    if targets.dynamic {
        info = info.push_next(&mut rendering);
    } else {
        info = info.render_pass(targets.render_pass).subpass(0);
    }
    let pipelines = unsafe {
        gpu.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    }
    .map_err(|(_, e)| check("vkCreateGraphicsPipelines")(e))?;
    Ok(pipelines[0])
}

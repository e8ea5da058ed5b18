//! Graphics pipelines with GL's conventions: flipped viewport, lower-left tessellation
//! domain origin, GL's [-1, 1] clip depth where the device can, no blending or culling.

use ash::vk;

use super::target::Targets;
use super::{check, Gpu, VkResult};
use crate::scene::{Mode, Stage};

pub struct PipelineDesc<'a> {
    pub stages: &'a [(Stage, vk::ShaderModule)],
    pub layout: vk::PipelineLayout,
    pub bindings: &'a [vk::VertexInputBindingDescription],
    pub attributes: &'a [vk::VertexInputAttributeDescription],
    pub topology: vk::PrimitiveTopology,
    pub patch_control_points: u32,
    pub rasterizer_discard: bool,
}

pub fn topology(mode: Mode) -> vk::PrimitiveTopology {
    match mode {
        Mode::Points => vk::PrimitiveTopology::POINT_LIST,
        Mode::Lines => vk::PrimitiveTopology::LINE_LIST,
        Mode::LineStrip => vk::PrimitiveTopology::LINE_STRIP,
        Mode::Triangles => vk::PrimitiveTopology::TRIANGLE_LIST,
        Mode::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
        Mode::TriangleFan => vk::PrimitiveTopology::TRIANGLE_FAN,
        Mode::Patches => vk::PrimitiveTopology::PATCH_LIST,
    }
}

pub fn stage_flag(stage: Stage) -> vk::ShaderStageFlags {
    match stage {
        Stage::Vertex => vk::ShaderStageFlags::VERTEX,
        Stage::TessControl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
        Stage::TessEval => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        Stage::Geometry => vk::ShaderStageFlags::GEOMETRY,
        Stage::Fragment => vk::ShaderStageFlags::FRAGMENT,
    }
}

pub fn create(gpu: &Gpu, targets: &Targets, desc: &PipelineDesc) -> VkResult<vk::Pipeline> {
    let stages: Vec<_> = desc
        .stages
        .iter()
        .map(|(stage, module)| {
            vk::PipelineShaderStageCreateInfo::default()
                .stage(stage_flag(*stage))
                .module(*module)
                .name(c"main")
        })
        .collect();
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(desc.bindings)
        .vertex_attribute_descriptions(desc.attributes);
    let input_assembly =
        vk::PipelineInputAssemblyStateCreateInfo::default().topology(desc.topology);
    let mut domain_origin = vk::PipelineTessellationDomainOriginStateCreateInfo::default()
        .domain_origin(vk::TessellationDomainOrigin::LOWER_LEFT);
    let tessellation = vk::PipelineTessellationStateCreateInfo::default()
        .patch_control_points(desc.patch_control_points)
        .push_next(&mut domain_origin);
    // GL window coordinates have their origin at the bottom left.
    let viewports = [vk::Viewport {
        x: 0.0,
        y: targets.height as f32,
        width: targets.width as f32,
        height: -(targets.height as f32),
        min_depth: 0.0,
        max_depth: 1.0,
    }];
    let scissors = [vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: targets.width,
            height: targets.height,
        },
    }];
    let mut clip_control =
        vk::PipelineViewportDepthClipControlCreateInfoEXT::default().negative_one_to_one(true);
    let mut viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    if gpu.depth_clip_control {
        viewport = viewport.push_next(&mut clip_control);
    }
    let rasterization = vk::PipelineRasterizationStateCreateInfo::default()
        .rasterizer_discard_enable(desc.rasterizer_discard)
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
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

//! Shader objects (VK_EXT_shader_object) get the GL semantics pipelines get: gl_FragColor
//! in every attachment (every Location below maxColorAttachments), the XFB struct split in
//! the vertex shader and in the fragment shader alone or linked
//! (`VK_SHADER_CREATE_LINK_STAGE_BIT_EXT`), GL's default point size in vertex shaders (the
//! `glPointSize` state with `VK_GLSEM_gl_state`), and
//! a generated TCS when a tessellation evaluation shader is bound without a control shader.
//!
//! lavapipe 22.3 has no VK_EXT_shader_object: every test SKIPs there with the reason. No
//! validation layer: Debian 12's (1.3.239) predates VK_EXT_shader_object and cannot
//! validate draws with shader objects.

use crate::support::*;
use ash::vk;

type S = vk::ShaderStageFlags;

const STAGES: [S; 5] = [
    S::VERTEX,
    S::TESSELLATION_CONTROL,
    S::TESSELLATION_EVALUATION,
    S::GEOMETRY,
    S::FRAGMENT,
];

/// A device with shader objects, dynamic rendering, `extra` extensions and (where the
/// driver has it) transform feedback; `None` (SKIP) without VK_EXT_shader_object.
fn object_device(
    instance: &Instance,
    extra: &[&std::ffi::CStr],
) -> Option<(Device, ash::ext::shader_object::Device, bool)> {
    if !has_device_extension(instance, ash::ext::shader_object::NAME) {
        println!("SKIP: the driver has no VK_EXT_shader_object (lavapipe 22.3 has none)");
        return None;
    }
    let xfb = has_device_extension(instance, ash::ext::transform_feedback::NAME);
    let mut objects = vk::PhysicalDeviceShaderObjectFeaturesEXT::default().shader_object(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let mut feedback =
        vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(xfb);
    let mut extensions = vec![ash::ext::shader_object::NAME];
    extensions.extend_from_slice(extra);
    if xfb {
        extensions.push(ash::ext::transform_feedback::NAME);
    }
    let device = instance.device_with(&extensions, &mut [&mut objects, &mut v13, &mut feedback]);
    let so = ash::ext::shader_object::Device::new(&instance.instance, &device.device);
    Some((device, so, xfb))
}

/// Shader objects for `(stage, next stages, code)`, linked when `link`.
fn shaders(
    so: &ash::ext::shader_object::Device,
    list: &[(S, S, &[u32])],
    link: bool,
) -> Vec<vk::ShaderEXT> {
    let flags = if link {
        vk::ShaderCreateFlagsEXT::LINK_STAGE
    } else {
        vk::ShaderCreateFlagsEXT::empty()
    };
    let infos: Vec<_> = list
        .iter()
        .map(|&(stage, next, code)| vk::ShaderCreateInfoEXT {
            flags,
            stage,
            next_stage: next,
            code_type: vk::ShaderCodeTypeEXT::SPIRV,
            code_size: code.len() * 4,
            p_code: code.as_ptr().cast(),
            p_name: c"main".as_ptr(),
            ..Default::default()
        })
        .collect();
    unsafe { so.create_shaders(&infos, None) }.expect("vkCreateShadersEXT")
}

/// Binds `bound` (every other graphics stage unbound), sets every state shader objects
/// need, and runs `commands` (the draws) into `attachments` images.
fn draw(
    instance: &Instance,
    device: &Device,
    so: &ash::ext::shader_object::Device,
    bound: &[(S, vk::ShaderEXT)],
    topology: vk::PrimitiveTopology,
    attachments: usize,
    commands: impl FnOnce(vk::CommandBuffer),
) -> Vec<Vec<u8>> {
    let d = &device.device;
    let shaders: Vec<vk::ShaderEXT> = STAGES
        .iter()
        .map(|s| {
            bound
                .iter()
                .find(|(stage, _)| stage == s)
                .map_or(vk::ShaderEXT::null(), |(_, shader)| *shader)
        })
        .collect();
    let tessellated = bound.iter().any(|(s, _)| *s == S::TESSELLATION_EVALUATION);
    device.render_dynamic(instance, attachments, |cb| unsafe {
        so.cmd_bind_shaders(cb, &STAGES, &shaders);
        let size = RENDER_SIZE as f32;
        so.cmd_set_viewport_with_count(
            cb,
            &[vk::Viewport {
                width: size,
                height: size,
                max_depth: 1.0,
                ..Default::default()
            }],
        );
        so.cmd_set_scissor_with_count(
            cb,
            &[vk::Rect2D {
                extent: vk::Extent2D {
                    width: RENDER_SIZE,
                    height: RENDER_SIZE,
                },
                ..Default::default()
            }],
        );
        so.cmd_set_rasterizer_discard_enable(cb, false);
        so.cmd_set_vertex_input(cb, &[], &[]);
        so.cmd_set_primitive_topology(cb, topology);
        so.cmd_set_primitive_restart_enable(cb, false);
        if tessellated {
            so.cmd_set_patch_control_points(cb, 3);
            so.cmd_set_tessellation_domain_origin(cb, vk::TessellationDomainOrigin::UPPER_LEFT);
        }
        so.cmd_set_rasterization_samples(cb, vk::SampleCountFlags::TYPE_1);
        so.cmd_set_sample_mask(cb, vk::SampleCountFlags::TYPE_1, &[!0]);
        so.cmd_set_alpha_to_coverage_enable(cb, false);
        so.cmd_set_polygon_mode(cb, vk::PolygonMode::FILL);
        d.cmd_set_line_width(cb, 1.0);
        so.cmd_set_cull_mode(cb, vk::CullModeFlags::NONE);
        so.cmd_set_front_face(cb, vk::FrontFace::COUNTER_CLOCKWISE);
        so.cmd_set_depth_test_enable(cb, false);
        so.cmd_set_depth_write_enable(cb, false);
        so.cmd_set_depth_bias_enable(cb, false);
        so.cmd_set_depth_bounds_test_enable(cb, false);
        so.cmd_set_stencil_test_enable(cb, false);
        so.cmd_set_color_blend_enable(cb, 0, &vec![vk::FALSE; attachments]);
        so.cmd_set_color_write_mask(cb, 0, &vec![vk::ColorComponentFlags::RGBA; attachments]);
        commands(cb);
    })
}

/// Draws `vertices` vertices.
fn plain_draw(device: &Device, vertices: u32) -> impl FnOnce(vk::CommandBuffer) + '_ {
    move |cb| unsafe { device.device.cmd_draw(cb, vertices, 1, 0, 0) }
}

/// GL: gl_FragColor (0.25, 0.4, 0.75, 1) in UNORM8, every pixel.
fn frag_color_pixels() -> Vec<u8> {
    [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize)
}

fn frag_color_images(layers: Layers, link: bool) -> Option<Vec<Vec<u8>>> {
    let instance = Instance::new(layers);
    let (device, so, _) = object_device(&instance, &[])?;
    let vs = glsl("layer/plain.vert");
    let fs = glsl_for_gl("layer/fragcolor.frag");
    let objects = shaders(
        &so,
        &[
            (S::VERTEX, S::FRAGMENT, &vs),
            (S::FRAGMENT, S::empty(), &fs),
        ],
        link,
    );
    let bound = [(S::VERTEX, objects[0]), (S::FRAGMENT, objects[1])];
    let images = draw(
        &instance,
        &device,
        &so,
        &bound,
        vk::PrimitiveTopology::TRIANGLE_LIST,
        3,
        plain_draw(&device, 3),
    );
    for o in objects {
        unsafe { so.destroy_shader(o, None) };
    }
    device.destroy();
    Some(images)
}

#[test]
fn frag_color_shader_objects_reach_every_attachment() {
    let _serial = serial();
    for link in [false, true] {
        let Some(images) = frag_color_images(GLSEM_ONLY, link) else {
            return;
        };
        for (i, image) in images.iter().enumerate() {
            assert_eq!(
                image,
                &frag_color_pixels(),
                "linked: {link}, attachment {i}"
            );
        }
    }
    // Without the layer only attachment 0 is written; the other's values are undefined, so
    // nothing is asserted of them.
    let without = frag_color_images(NO_LAYERS, false).unwrap();
    assert_eq!(without[0], frag_color_pixels());
}

/// GL's capture of xfb_nested.vert's `Outer o` for its 3 vertices: p, i.x, i.y, z, tightly
/// packed (28 bytes a vertex).
fn gl_struct_capture() -> Vec<u8> {
    (0..3u32)
        .flat_map(|i| {
            let p = [((i << 1) & 2) as f32, (i & 2) as f32];
            [p[0], p[1], 1.0, i as f32, 0.25, 0.5, 0.75]
        })
        .flat_map(f32::to_le_bytes)
        .collect()
}

#[test]
fn xfb_struct_shader_objects_capture_member_by_member() {
    let _serial = serial();
    let instance = Instance::new(GLSEM_ONLY);
    let Some((device, so, xfb)) = object_device(&instance, &[]) else {
        return;
    };
    if !xfb {
        println!("SKIP: the driver has no VK_EXT_transform_feedback");
        return;
    }
    let vs = glsl("layer/xfb_nested.vert");
    let fs = glsl("layer/xfb_nested.frag");
    let mut images = Vec::new();
    for link in [false, true] {
        let before = counters().rewrites;
        let objects = shaders(
            &so,
            &[
                (S::VERTEX, S::FRAGMENT, &vs),
                (S::FRAGMENT, S::empty(), &fs),
            ],
            link,
        );
        assert!(counters().rewrites > before || link, "split");
        let buffer = device.host_buffer(
            &instance,
            84,
            vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
        );
        let bound = [(S::VERTEX, objects[0]), (S::FRAGMENT, objects[1])];
        let bind: vk::PFN_vkCmdBindTransformFeedbackBuffersEXT =
            device_fn(&instance, &device, c"vkCmdBindTransformFeedbackBuffersEXT");
        let begin: vk::PFN_vkCmdBeginTransformFeedbackEXT =
            device_fn(&instance, &device, c"vkCmdBeginTransformFeedbackEXT");
        let end: vk::PFN_vkCmdEndTransformFeedbackEXT =
            device_fn(&instance, &device, c"vkCmdEndTransformFeedbackEXT");
        let image = draw(
            &instance,
            &device,
            &so,
            &bound,
            vk::PrimitiveTopology::TRIANGLE_LIST,
            1,
            |cb| unsafe {
                so.cmd_set_rasterization_stream(cb, 0);
                bind(cb, 0, 1, &buffer.buffer, &0, &buffer.size);
                begin(cb, 0, 0, std::ptr::null(), std::ptr::null());
                device.device.cmd_draw(cb, 3, 1, 0, 0);
                end(cb, 0, 0, std::ptr::null(), std::ptr::null());
            },
        );
        assert_eq!(device.read(&buffer), gl_struct_capture(), "linked: {link}");
        images.push(image);
        device.destroy_buffer(buffer);
        for o in objects {
            unsafe { so.destroy_shader(o, None) };
        }
    }
    // The fragment shader split alone reads what the linked one reads.
    assert_eq!(images[0], images[1]);
    device.destroy();
}

/// Points of `vs` (which never writes gl_PointSize) through vertex and fragment shader
/// objects on a device with `extensions`, `draw` recording the draw: the lit pixels of
/// attachment 0 and the pass executions creating the shaders took.
fn point_image(
    extensions: &[&std::ffi::CStr],
    vs: &str,
    draw_points: impl FnOnce(&Instance, &Device, vk::CommandBuffer),
) -> Option<(Vec<(u32, u32)>, u64)> {
    let instance = Instance::new(GLSEM_ONLY);
    let (device, so, _) = object_device(&instance, extensions)?;
    let vs = glsl(vs);
    let fs = glsl("layer/plain.frag");
    let before = counters().rewrites;
    let objects = shaders(
        &so,
        &[
            (S::VERTEX, S::FRAGMENT, &vs),
            (S::FRAGMENT, S::empty(), &fs),
        ],
        false,
    );
    let rewrites = counters().rewrites - before;
    let bound = [(S::VERTEX, objects[0]), (S::FRAGMENT, objects[1])];
    let images = draw(
        &instance,
        &device,
        &so,
        &bound,
        vk::PrimitiveTopology::POINT_LIST,
        1,
        |cb| draw_points(&instance, &device, cb),
    );
    for o in objects {
        unsafe { so.destroy_shader(o, None) };
    }
    device.destroy();
    let lit = (0..RENDER_SIZE * RENDER_SIZE)
        .filter(|i| images[0][(*i * 4) as usize + 3] != 0)
        .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
        .collect();
    Some((lit, rewrites))
}

#[test]
fn vertex_shader_objects_draw_points_of_gl_default_size() {
    let _serial = serial();
    let Some((lit, rewrites)) = point_image(&[], "layer/points.vert", |_, device, cb| unsafe {
        device.device.cmd_draw(cb, 3, 1, 0, 0)
    }) else {
        return;
    };
    // Pass executions: the vertex shader's point size, and a fragment shader the layer
    // may look at without changing it.
    assert!(rewrites >= 1, "the vertex shader writes GL's point size");
    // GL: three 1-pixel points on the first row; nothing else.
    assert_eq!(lit, [(0, 0), (1, 0), (2, 0)]);
}

/// `glPointSize(3)` through `vkCmdSetPointSizeGLSEM` reaches a vertex shader object that
/// never writes gl_PointSize: GL draws the point at the centre of pixel (1, 1) three pixels
/// wide (GL 4.6 core, 14.4), pixels 0..=2 in both directions.
#[test]
fn vertex_shader_objects_draw_points_of_gl_state_size() {
    let _serial = serial();
    let draw_wide_point = |instance: &Instance, device: &Device, cb| {
        let set_point_size = unsafe {
            instance
                .instance
                .get_device_proc_addr(device.device.handle(), c"vkCmdSetPointSizeGLSEM".as_ptr())
        }
        .expect("vkCmdSetPointSizeGLSEM");
        // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
        let set_point_size = unsafe {
            std::mem::transmute::<
                unsafe extern "system" fn(),
                unsafe extern "system" fn(vk::CommandBuffer, f32),
            >(set_point_size)
        };
        unsafe {
            set_point_size(cb, 3.0);
            device.device.cmd_draw(cb, 1, 1, 0, 0);
        }
    };
    let Some((lit, _)) = point_image(&[c"VK_GLSEM_gl_state"], "layer/point.vert", draw_wide_point)
    else {
        return;
    };
    let expected: Vec<(u32, u32)> = (0..3).flat_map(|y| (0..3).map(move |x| (x, y))).collect();
    assert_eq!(lit, expected);
}

/// A TES shader object bound without a TCS (VS, TES, FS; 3 control points), drawn once
/// with GL's initial levels and once after `glPatchParameterfv` levels of 2: the primitives
/// reaching the clipper each time.
#[test]
fn tes_object_without_tcs_draws_gl_primitives() {
    let _serial = serial();
    let instance = Instance::new(GLSEM_ONLY);
    if !has_device_extension(&instance, ash::ext::shader_object::NAME) {
        println!("SKIP: the driver has no VK_EXT_shader_object (lavapipe 22.3 has none)");
        return;
    }
    if !needs(&[
        Feature::TessellationShader,
        Feature::PipelineStatisticsQuery,
    ]) {
        return;
    }
    let mut objects = vk::PhysicalDeviceShaderObjectFeaturesEXT::default().shader_object(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let core = vk::PhysicalDeviceFeatures::default()
        .tessellation_shader(true)
        .geometry_shader(true)
        .pipeline_statistics_query(true);
    let device = instance.device_with_core(
        &[ash::ext::shader_object::NAME, LEVELS_EXTENSION],
        core,
        &mut [&mut objects, &mut v13],
    );
    let so = ash::ext::shader_object::Device::new(&instance.instance, &device.device);
    let d = &device.device;
    let vs = glsl("layer/patch.vert");
    let tes = glsl("layer/patch.tese");
    let fs = glsl("layer/patch.frag");
    let shaders = shaders(
        &so,
        &[
            (S::VERTEX, S::TESSELLATION_EVALUATION, &vs),
            (S::TESSELLATION_EVALUATION, S::FRAGMENT, &tes),
            (S::FRAGMENT, S::empty(), &fs),
        ],
        false,
    );
    let set_levels = set_levels_fn(&instance, &device);
    let queries = device.clipping_queries(2);
    let bound = [
        (S::VERTEX, shaders[0]),
        (S::TESSELLATION_EVALUATION, shaders[1]),
        (S::FRAGMENT, shaders[2]),
    ];
    let images = draw(
        &instance,
        &device,
        &so,
        &bound,
        vk::PrimitiveTopology::PATCH_LIST,
        1,
        |cb| unsafe {
            for (query, level) in [(0, None), (1, Some(2.0f32))] {
                if let Some(l) = level {
                    set_levels(cb, [l, l, l, 1.0].as_ptr(), [l, 1.0].as_ptr());
                }
                d.cmd_begin_query(cb, queries, query, vk::QueryControlFlags::empty());
                d.cmd_draw(cb, 3, 1, 0, 0);
                d.cmd_end_query(cb, queries, query);
            }
        },
    );
    let primitives: [u64; 2] = device.take_query_results(queries);
    // GL: levels 1 tessellate the triangle patch into itself; levels 2 into 6 triangles.
    assert_eq!(primitives, [1, 6]);
    assert!(images[0].chunks(4).any(|p| p[3] != 0), "nothing drawn");
    unsafe {
        for o in shaders {
            so.destroy_shader(o, None);
        }
    }
    device.destroy();
}

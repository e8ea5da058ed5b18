//! Graphics pipeline libraries (VK_EXT_graphics_pipeline_library) get every GL semantic,
//! split into two and into three libraries, linked, drawn with dynamic rendering, under the
//! validation layer: gl_FragColor in a fragment-shader library that cannot know its
//! attachments, an XFB-captured struct split in the pre-rasterization library and the
//! fragment library alone, and a pre-rasterization library with a TES and no TCS. Each
//! SKIPs with the reason where the driver lacks what it needs.

use crate::support::*;
use ash::vk::{self, Handle};
use std::ffi::c_void;

type S = vk::ShaderStageFlags;
type Part = vk::GraphicsPipelineLibraryFlagsEXT;

const FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// What a test needs of the device besides pipeline libraries and dynamic rendering.
#[derive(Clone, Copy, Default)]
struct Needs {
    transform_feedback: bool,
    statistics: bool,
    levels: bool,
    gl_state: bool,
}

fn library_device(instance: &Instance, needs: Needs) -> Option<Device> {
    let name = ash::ext::graphics_pipeline_library::NAME;
    if !has_device_extension(instance, name) {
        println!("SKIP: the driver has no {}", name.to_string_lossy());
        return None;
    }
    let mut wanted = vec![];
    if needs.transform_feedback {
        wanted.push(Feature::TransformFeedback);
    }
    if needs.statistics {
        wanted.push(Feature::PipelineStatisticsQuery);
    }
    if needs.levels {
        wanted.push(Feature::TessellationShader);
    }
    if !crate::support::needs(&wanted) {
        return None;
    }
    let mut gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
        .graphics_pipeline_library(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default()
        .transform_feedback(needs.transform_feedback);
    let mut extensions = vec![
        ash::khr::pipeline_library::NAME,
        ash::ext::graphics_pipeline_library::NAME,
    ];
    // Where the device has it, whether the test captures or not (as on lavapipe).
    let xfb_device = device_has(Feature::TransformFeedback);
    if xfb_device {
        extensions.push(ash::ext::transform_feedback::NAME);
    }
    if needs.levels {
        extensions.push(LEVELS_EXTENSION);
    }
    if needs.gl_state {
        extensions.push(GL_STATE_EXTENSION);
    }
    let core = vk::PhysicalDeviceFeatures::default()
        .tessellation_shader(device_has(Feature::TessellationShader))
        .geometry_shader(device_has(Feature::GeometryShader))
        .pipeline_statistics_query(needs.statistics);
    Some(match xfb_device {
        true => instance.device_with_core(&extensions, core, &mut [&mut gpl, &mut v13, &mut xfb]),
        false => instance.device_with_core(&extensions, core, &mut [&mut gpl, &mut v13]),
    })
}

/// A library device with `VK_GLSEM_gl_state`.
fn gl_state_library_device(instance: &Instance) -> Option<Device> {
    let needs = Needs {
        gl_state: true,
        ..Needs::default()
    };
    library_device(instance, needs)
}

/// How the pipeline is put together (one library holding every part is invalid usage,
/// VUID-VkGraphicsPipelineCreateInfo-flags-06608).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Split {
    /// Vertex input, pre-rasterization and fragment shader; fragment output.
    TwoFragmentApart,
    /// Vertex input and pre-rasterization; fragment shader and fragment output.
    Two,
    /// Vertex input and pre-rasterization; fragment shader; fragment output.
    Three,
}

/// Libraries for `pre_raster` stages and a fragment shader `fs`, split as `split`, for
/// dynamic rendering into `attachments` RGBA8 images (only the fragment output interface
/// knows them), linked: the libraries and the linked pipeline.
fn linked(
    device: &Device,
    split: Split,
    pre_raster: &[(S, vk::ShaderModule)],
    fs: vk::ShaderModule,
    layout: vk::PipelineLayout,
    attachments: usize,
) -> (Vec<vk::Pipeline>, vk::Pipeline) {
    let vertex = Part::VERTEX_INPUT_INTERFACE | Part::PRE_RASTERIZATION_SHADERS;
    let with_fs: Vec<_> = pre_raster
        .iter()
        .copied()
        .chain([(S::FRAGMENT, fs)])
        .collect();
    let libraries: Vec<(Part, Vec<(S, vk::ShaderModule)>)> = match split {
        Split::TwoFragmentApart => vec![
            (vertex | Part::FRAGMENT_SHADER, with_fs),
            (Part::FRAGMENT_OUTPUT_INTERFACE, vec![]),
        ],
        Split::Two => vec![
            (vertex, pre_raster.to_vec()),
            (
                Part::FRAGMENT_SHADER | Part::FRAGMENT_OUTPUT_INTERFACE,
                vec![(S::FRAGMENT, fs)],
            ),
        ],
        Split::Three => vec![
            (vertex, pre_raster.to_vec()),
            (Part::FRAGMENT_SHADER, vec![(S::FRAGMENT, fs)]),
            (Part::FRAGMENT_OUTPUT_INTERFACE, vec![]),
        ],
    };
    let formats = vec![FORMAT; attachments];
    let rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let parts: Vec<_> = libraries
        .iter()
        .map(|(part, _)| {
            let mut info = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(*part);
            if part.contains(Part::FRAGMENT_OUTPUT_INTERFACE) {
                info.p_next = &rendering as *const _ as *mut c_void;
            }
            info
        })
        .collect();
    let descs: Vec<_> = libraries
        .iter()
        .zip(&parts)
        .map(|((_, stages), part)| {
            let mut desc = Desc::new(stages, layout, vk::RenderPass::null(), attachments)
                .flags(vk::PipelineCreateFlags::LIBRARY_KHR);
            desc.p_next = part as *const _ as *const c_void;
            desc
        })
        .collect();
    let (result, libs) = device.create_pipelines(vk::PipelineCache::null(), &descs, None);
    assert_eq!(result, vk::Result::SUCCESS, "{split:?}: the libraries");
    let link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    let mut desc = Desc::new(&[], layout, vk::RenderPass::null(), attachments);
    desc.p_next = &link as *const _ as *const c_void;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(
        result,
        vk::Result::SUCCESS,
        "{split:?}: the linked pipeline"
    );
    (libs, pipelines[0])
}

/// GL: gl_FragColor (0.25, 0.4, 0.75, 1) in UNORM8, every pixel.
fn frag_color_pixels() -> Vec<u8> {
    [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize)
}

/// The gl_FragColor pipeline from libraries, the fragment shader's library without the
/// attachments: the images of its 3 attachments.
fn frag_color_images(layers: Layers, split: Split) -> Option<Vec<Vec<u8>>> {
    let instance = Instance::new(layers);
    let device = library_device(&instance, Needs::default())?;
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl_for_gl("layer/fragcolor.frag"));
    let layout = device.layout(&[]);
    let (libs, pipeline) = linked(&device, split, &[(S::VERTEX, vs)], fs, layout, 3);
    let images = device.render_dynamic(&instance, 3, |cb| unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        device.device.cmd_draw(cb, 3, 1, 0, 0);
    });
    let all: Vec<_> = libs.iter().chain([&pipeline]).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    if layers.validation {
        instance.assert_clean();
    }
    Some(images)
}

#[test]
fn frag_color_in_a_fragment_library_without_attachments_reaches_every_attachment() {
    let _serial = serial();
    for split in [Split::TwoFragmentApart, Split::Three] {
        let Some(images) = frag_color_images(WITH_VALIDATION, split) else {
            return;
        };
        // GL: gl_FragColor in every draw buffer.
        for (i, image) in images.iter().enumerate() {
            assert_eq!(image, &frag_color_pixels(), "{split:?}, attachment {i}");
        }
    }
    // Without the layer only attachment 0 is written; the others' values are undefined
    // (lavapipe at times writes attachment 0's value there too), so nothing is asserted of
    // them: the broadcast is what the layer's images above show.
    let without = frag_color_images(NO_LAYERS, Split::Three).unwrap();
    assert_eq!(without[0], frag_color_pixels());
}

/// `vkCmdBindTransformFeedbackBuffersEXT`, `vkCmdBeginTransformFeedbackEXT`,
/// `vkCmdEndTransformFeedbackEXT`.
pub struct Xfb {
    bind: vk::PFN_vkCmdBindTransformFeedbackBuffersEXT,
    begin: vk::PFN_vkCmdBeginTransformFeedbackEXT,
    end: vk::PFN_vkCmdEndTransformFeedbackEXT,
}

impl Xfb {
    fn new(instance: &Instance, device: &Device) -> Xfb {
        Xfb {
            bind: device_fn(instance, device, c"vkCmdBindTransformFeedbackBuffersEXT"),
            begin: device_fn(instance, device, c"vkCmdBeginTransformFeedbackEXT"),
            end: device_fn(instance, device, c"vkCmdEndTransformFeedbackEXT"),
        }
    }

    /// Binds `buffer` to XFB buffer 0 and runs `draw` between begin and end.
    fn capture(&self, cb: vk::CommandBuffer, buffer: &HostBuffer, draw: impl FnOnce()) {
        unsafe {
            (self.bind)(cb, 0, 1, &buffer.buffer, &0, &buffer.size);
            (self.begin)(cb, 0, 0, std::ptr::null(), std::ptr::null());
            draw();
            (self.end)(cb, 0, 0, std::ptr::null(), std::ptr::null());
        }
    }
}

/// GL's capture of xfb_nested.vert's `Outer o` (xfb_offset 0) for its 3 vertices: p, i.x,
/// i.y, z, tightly packed (28 bytes a vertex).
pub fn gl_struct_capture() -> Vec<u8> {
    (0..3u32)
        .flat_map(|i| {
            let p = [((i << 1) & 2) as f32, (i & 2) as f32];
            [p[0], p[1], 1.0, i as f32, 0.25, 0.5, 0.75]
        })
        .flat_map(f32::to_le_bytes)
        .collect()
}

/// The XFB struct pipeline from libraries: the captured bytes, the image and the rewrites the
/// layer ran for it.
fn xfb_struct_capture(layers: Layers, split: Split) -> Option<(Vec<u8>, Vec<u8>, u64)> {
    let instance = Instance::new(layers);
    let device = library_device(
        &instance,
        Needs {
            transform_feedback: true,
            ..Needs::default()
        },
    )?;
    let xfb = Xfb::new(&instance, &device);
    let vs = device.module(&glsl("layer/xfb_nested.vert"));
    let fs = device.module(&glsl("layer/xfb_nested.frag"));
    let layout = device.layout(&[]);
    let before = counters().rewrites;
    let (libs, pipeline) = linked(&device, split, &[(S::VERTEX, vs)], fs, layout, 1);
    let rewrites = counters().rewrites - before;
    let buffer = device.host_buffer(
        &instance,
        84,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        xfb.capture(cb, &buffer, || device.device.cmd_draw(cb, 3, 1, 0, 0));
    });
    let captured = device.read(&buffer);
    device.destroy_buffer(buffer);
    let all: Vec<_> = libs.iter().chain([&pipeline]).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    if layers.validation {
        instance.assert_clean();
    }
    Some((captured, images.into_iter().next().unwrap(), rewrites))
}

#[test]
fn xfb_struct_is_captured_member_by_member_across_libraries() {
    let _serial = serial();
    let mut images = Vec::new();
    for split in [Split::Two, Split::Three] {
        let Some((captured, image, rewrites)) = xfb_struct_capture(WITH_VALIDATION, split) else {
            return;
        };
        assert_eq!(captured, gl_struct_capture(), "{split:?}");
        // Each library split on its own: the VS outputs, the FS inputs.
        assert_eq!(rewrites, 2, "{split:?}");
        images.push(image);
    }
    // The fragment shader reads the struct it was handed: the split inputs match.
    let whole = xfb_whole_pipeline_image();
    for image in &images {
        assert_eq!(image, &whole);
    }
    // Without the layer: lavapipe 22.3 captures this struct GL's way by itself (NVIDIA does
    // not capture double structs right, docs/nvidia.md); only the capture is compared.
    let (without, _, _) = xfb_struct_capture(NO_LAYERS, Split::Two).unwrap();
    if !Instance::new(NO_LAYERS).is_lavapipe() {
        println!("without the layer: {}", without == gl_struct_capture());
    }
}

/// A struct varying nobody captures, on a device with transform feedback: neither library
/// can tell whether the other side is captured, so both split it by the same rule (the
/// validation layer checks that the linked interfaces match), and the linked pipeline
/// reads the same values as a whole pipeline.
#[test]
fn uncaptured_struct_varyings_still_match_across_libraries() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let Some(device) = library_device(
        &instance,
        Needs {
            transform_feedback: true,
            ..Needs::default()
        },
    ) else {
        return;
    };
    let vs = device.module(&glsl("layer/struct_nested.vert"));
    let fs = device.module(&glsl("layer/xfb_nested.frag"));
    let layout = device.layout(&[]);
    let before = counters().rewrites;
    let (libs, pipeline) = linked(&device, Split::Three, &[(S::VERTEX, vs)], fs, layout, 1);
    assert_eq!(counters().rewrites - before, 2, "both libraries");
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        device.device.cmd_draw(cb, 3, 1, 0, 0);
    });
    let all: Vec<_> = libs.iter().chain([&pipeline]).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    assert_eq!(images[0], xfb_whole_pipeline_image());
}

/// The same shaders in one pipeline (no library) with the layer: the image to compare with.
fn xfb_whole_pipeline_image() -> Vec<u8> {
    let instance = Instance::new(WITH_VALIDATION);
    let device = library_device(
        &instance,
        Needs {
            transform_feedback: true,
            ..Needs::default()
        },
    )
    .unwrap();
    let vs = device.module(&glsl("layer/xfb_nested.vert"));
    let fs = device.module(&glsl("layer/xfb_nested.frag"));
    let layout = device.layout(&[]);
    let formats = [FORMAT];
    let rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let mut desc = Desc::new(
        &[(S::VERTEX, vs), (S::FRAGMENT, fs)],
        layout,
        vk::RenderPass::null(),
        1,
    );
    desc.p_next = &rendering as *const _ as *const c_void;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[0]);
        device.device.cmd_draw(cb, 3, 1, 0, 0);
    });
    device.destroy_objects(&pipelines, &[layout], &[], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    images.into_iter().next().unwrap()
}

/// A TES-only pre-rasterization library (VS + TES, 3 control points), linked, drawn once
/// with GL's initial levels and once after `glPatchParameterfv` levels of 2: the primitives
/// reaching the clipper each time, and the image of the second draw.
fn tes_only_library_primitives(
    split: Split,
    layout_flags: vk::PipelineLayoutCreateFlags,
) -> Option<(Vec<u64>, Vec<u8>)> {
    let instance = Instance::new(WITH_VALIDATION);
    let device = library_device(
        &instance,
        Needs {
            statistics: true,
            levels: true,
            ..Needs::default()
        },
    )?;
    let d = &device.device;
    let vs = device.module(&glsl("layer/patch.vert"));
    let tes = device.module(&glsl("layer/patch.tese"));
    let fs = device.module(&glsl("layer/patch.frag"));
    let layout_info = vk::PipelineLayoutCreateInfo::default().flags(layout_flags);
    let layout = unsafe { d.create_pipeline_layout(&layout_info, None) }.unwrap();
    let before = counters();
    let (libs, pipeline) = linked(
        &device,
        split,
        &[(S::VERTEX, vs), (S::TESSELLATION_EVALUATION, tes)],
        fs,
        layout,
        1,
    );
    assert!(
        counters().pipelines >= before.pipelines + 2,
        "the TES library and the linked pipeline are recorded"
    );
    let set_levels = set_levels_fn(&instance, &device);
    let queries = device.clipping_queries(2);
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        for (query, level) in [(0, None), (1, Some(2.0f32))] {
            if let Some(l) = level {
                set_levels(cb, [l, l, l, 1.0].as_ptr(), [l, 1.0].as_ptr());
            }
            d.cmd_begin_query(cb, queries, query, vk::QueryControlFlags::empty());
            d.cmd_draw(cb, 3, 1, 0, 0);
            d.cmd_end_query(cb, queries, query);
        }
    });
    let primitives: [u64; 2] = device.take_query_results(queries);
    let all: Vec<_> = libs.iter().chain([&pipeline]).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, tes, fs]);
    device.destroy();
    instance.assert_clean();
    Some((primitives.to_vec(), images.into_iter().next().unwrap()))
}

#[test]
fn tes_only_pre_rasterization_library_draws_gl_primitives() {
    let _serial = serial();
    for split in [Split::Two, Split::Three] {
        for flags in [
            vk::PipelineLayoutCreateFlags::empty(),
            vk::PipelineLayoutCreateFlags::INDEPENDENT_SETS_EXT,
        ] {
            let Some((primitives, image)) = tes_only_library_primitives(split, flags) else {
                return;
            };
            // GL: levels 1 tessellate the triangle patch into itself; outer and inner
            // levels 2 into 6 triangles (each outer edge split in two, around the centre).
            assert_eq!(primitives, [1, 6], "{split:?}, {flags:?}");
            // The patch covers the viewport's lower-left half: pixels were drawn.
            assert!(
                image.chunks(4).any(|p| p[3] != 0),
                "{split:?}: nothing drawn"
            );
        }
    }
}

#[test]
fn linked_pipelines_are_not_rewritten_again() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let Some(device) = library_device(&instance, Needs::default()) else {
        return;
    };
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl_for_gl("layer/fragcolor.frag"));
    let layout = device.layout(&[]);
    let before = counters();
    let (libs, pipeline) = linked(&device, Split::Three, &[(S::VERTEX, vs)], fs, layout, 3);
    let after = counters();
    assert_eq!(
        after.rewrites - before.rewrites,
        1,
        "the fragment library once"
    );
    assert_ne!(pipeline.as_raw(), 0);
    let all: Vec<_> = libs.iter().chain([&pipeline]).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
}

/// `window_origin = flipped` (the default): a pipeline linked from libraries takes `H` of
/// `gl_FragCoord.y = H - y` from its pre-rasterization library's static negative viewport.
/// GL: `gl_FragCoord.y` is `row + 0.5` counting GL's rows from the bottom, GL's bottom row
/// being the image's last.
#[test]
fn linked_pipeline_takes_gl_frag_coord_height_from_its_pre_rasterization_library() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let Some(device) = gl_state_library_device(&instance) else {
        return;
    };
    let vs = device.module(&glsl("layer/window.vert"));
    let fs = device.module(&glsl("layer/window.frag"));
    let layout = device.layout(&[]);
    let size = RENDER_SIZE as f32;
    let formats = [FORMAT];
    let rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let vertex_part = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
        .flags(Part::VERTEX_INPUT_INTERFACE | Part::PRE_RASTERIZATION_SHADERS);
    let mut fragment_part = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
        .flags(Part::FRAGMENT_SHADER | Part::FRAGMENT_OUTPUT_INTERFACE);
    fragment_part.p_next = &rendering as *const _ as *mut c_void;
    let mut vertex = Desc::new(&[(S::VERTEX, vs)], layout, vk::RenderPass::null(), 1)
        .flags(vk::PipelineCreateFlags::LIBRARY_KHR);
    vertex.p_next = &vertex_part as *const _ as *const c_void;
    vertex.viewport = Some(vk::Viewport {
        y: size,
        width: size,
        height: -size,
        max_depth: 1.0,
        ..Default::default()
    });
    let mut fragment = Desc::new(&[(S::FRAGMENT, fs)], layout, vk::RenderPass::null(), 1)
        .flags(vk::PipelineCreateFlags::LIBRARY_KHR);
    fragment.p_next = &fragment_part as *const _ as *const c_void;
    let (result, libs) =
        device.create_pipelines(vk::PipelineCache::null(), &[vertex, fragment], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    // The linked create info's own (ignored) viewport says y = 0: H must not come from it.
    let mut desc = Desc::new(&[], layout, vk::RenderPass::null(), 1);
    desc.p_next = &link as *const _ as *const c_void;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[0]);
        device.device.cmd_draw(cb, 3, 1, 0, 0);
    });
    let all: Vec<_> = libs.iter().chain(&pipelines).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    for gl_row in 0..RENDER_SIZE {
        let image_row = RENDER_SIZE - 1 - gl_row;
        let expected = ((gl_row as f32 + 0.5) / size * 255.0).round() as u8;
        for x in 0..RENDER_SIZE {
            let red = images[0][((image_row * RENDER_SIZE + x) * 4) as usize];
            assert!(
                red.abs_diff(expected) <= 1,
                "gl_FragCoord.y on GL row {gl_row}: {red}, GL {expected}"
            );
        }
    }
}

/// A point list from libraries: the vertex input library alone says `POINT_LIST`, so the
/// pre-rasterization library, whose vertex shader never writes gl_PointSize, cannot see
/// it; the layer writes GL's point size there anyway. GL (4.6 core, 14.4): glPointSize(3)
/// draws the point at the centre of pixel (1, 1) over pixels 0..2 in x and y.
#[test]
fn point_list_from_libraries_draws_gl_point_size() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let Some(device) = gl_state_library_device(&instance) else {
        return;
    };
    let vs = device.module(&glsl("layer/point.vert"));
    let fs = device.module(&glsl("layer/plain.frag"));
    let layout = device.layout(&[]);
    // The other parts' input assembly (Desc's triangle list) is ignored.
    let (libs, pipelines) =
        linked_pipeline(&device, layout, vs, fs, vk::PrimitiveTopology::POINT_LIST);
    let set_point_size = unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), c"vkCmdSetPointSizeGLSEM".as_ptr())
    }
    .expect("vkCmdSetPointSizeGLSEM");
    type SetPointSize = unsafe extern "system" fn(vk::CommandBuffer, f32);
    // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
    let set_point_size =
        unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetPointSize>(set_point_size) };
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        set_point_size(cb, 3.0);
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[0]);
        device.device.cmd_draw(cb, 1, 1, 0, 0);
    });
    let all: Vec<_> = libs.iter().chain(&pipelines).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    let lit: Vec<(u32, u32)> = (0..RENDER_SIZE * RENDER_SIZE)
        .filter(|i| images[0][(*i * 4) as usize + 3] == 255)
        .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
        .collect();
    let three: Vec<(u32, u32)> = (0..3).flat_map(|y| (0..3).map(move |x| (x, y))).collect();
    assert_eq!(lit, three, "glPointSize(3)");
}

/// An input of the pre-rasterization library's vertex shader that the vertex-input library
/// does not feed reads GL's current value (`glVertexAttrib4f`, GL 4.6 §10.2): initially
/// (0, 0, 0, 1), then the value `vkCmdSetVertexAttribGLSEM` set before the second draw.
/// `unfed_color.vert` draws vertices 0-5 over the left half and 6-11 over the right half in
/// the colour its unfed input reads.
#[test]
fn unfed_input_of_a_linked_pipeline_reads_gl_current_value() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let Some(device) = gl_state_library_device(&instance) else {
        return;
    };
    let vs = device.module(&glsl("layer/unfed_color.vert"));
    let fs = device.module(&glsl("layer/vertex_color.frag"));
    let layout = device.layout(&[]);
    let (libs, pipelines) = linked_pipeline(
        &device,
        layout,
        vs,
        fs,
        vk::PrimitiveTopology::TRIANGLE_LIST,
    );
    type SetVertexAttrib =
        unsafe extern "system" fn(vk::CommandBuffer, u32, vk::Format, *const c_void);
    let set = unsafe {
        instance.instance.get_device_proc_addr(
            device.device.handle(),
            c"vkCmdSetVertexAttribGLSEM".as_ptr(),
        )
    }
    .expect("vkCmdSetVertexAttribGLSEM");
    // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
    let set = unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetVertexAttrib>(set) };
    let red = [1.0f32, 0.0, 0.0, 1.0];
    let images = device.render_dynamic(&instance, 1, |cb| unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[0]);
        device.device.cmd_draw(cb, 6, 1, 0, 0);
        set(cb, 0, vk::Format::R32G32B32A32_SFLOAT, red.as_ptr().cast());
        device.device.cmd_draw(cb, 6, 1, 6, 0);
    });
    let all: Vec<_> = libs.iter().chain(&pipelines).copied().collect();
    device.destroy_objects(&all, &[layout], &[], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    let pixel = |x: u32, y: u32| {
        let at = ((y * RENDER_SIZE + x) * 4) as usize;
        [0, 1, 2, 3].map(|i| images[0][at + i])
    };
    assert_eq!(
        [pixel(0, 1), pixel(3, 1)],
        [[0, 0, 0, 255], [255, 0, 0, 255]]
    );
}

/// A pipeline linked from three libraries made for dynamic rendering into one `FORMAT`
/// attachment: vertex input (with `topology`), the vertex shader `vs`, and the fragment
/// shader `fs` with the fragment output. Returns the libraries and the linked pipeline.
fn linked_pipeline(
    device: &Device,
    layout: vk::PipelineLayout,
    vs: vk::ShaderModule,
    fs: vk::ShaderModule,
    topology: vk::PrimitiveTopology,
) -> (Vec<vk::Pipeline>, Vec<vk::Pipeline>) {
    let formats = [FORMAT];
    let rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let parts = [
        (Part::VERTEX_INPUT_INTERFACE, vec![]),
        (Part::PRE_RASTERIZATION_SHADERS, vec![(S::VERTEX, vs)]),
        (
            Part::FRAGMENT_SHADER | Part::FRAGMENT_OUTPUT_INTERFACE,
            vec![(S::FRAGMENT, fs)],
        ),
    ]
    .map(|(part, stages)| {
        let mut info = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(part);
        if part.contains(Part::FRAGMENT_OUTPUT_INTERFACE) {
            info.p_next = &rendering as *const _ as *mut c_void;
        }
        (info, stages)
    });
    let descs: Vec<_> = parts
        .iter()
        .map(|(info, stages)| {
            let mut desc = Desc::new(stages, layout, vk::RenderPass::null(), 1)
                .flags(vk::PipelineCreateFlags::LIBRARY_KHR);
            if info.flags.contains(Part::VERTEX_INPUT_INTERFACE) {
                desc = desc.topology(topology);
            }
            desc.p_next = info as *const _ as *const c_void;
            desc
        })
        .collect();
    let (result, libs) = device.create_pipelines(vk::PipelineCache::null(), &descs, None);
    assert_eq!(result, vk::Result::SUCCESS);
    let link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    let mut desc = Desc::new(&[], layout, vk::RenderPass::null(), 1);
    desc.p_next = &link as *const _ as *const c_void;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    (libs, pipelines)
}

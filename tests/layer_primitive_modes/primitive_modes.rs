//! GL's primitive modes through the real loader, lavapipe and the validation layer
//! (`VkPipelinePrimitiveModeCreateInfoGLSEM` with `VK_GLSEM_gl_state`): quads drawn plain,
//! indexed, instanced and indirect fill their area with the flat colour of each quad's 4th
//! vertex (GL's last-vertex convention, GL 4.6 compatibility table 13.2); a quad in polygon
//! mode `GL_LINE` lights its four edges and not the diagonal it is cut along (14.6.4); a line
//! loop is closed by a segment back to its first vertex.

use crate::support::*;
use ash::vk;
use glsem_abi::{
    PipelinePrimitiveModeCreateInfo, PrimitiveMode,
    STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
};

const GL_STATE: &std::ffi::CStr = c"VK_GLSEM_gl_state";

/// The red byte of `quads.vert`'s flat colour for vertex `v`.
pub(crate) fn red_of(v: u32) -> u8 {
    (32 * v) as u8
}

/// The red byte of every pixel, row by row.
pub(crate) fn reds(image: &[u8]) -> Vec<u8> {
    image.chunks(4).map(|p| p[0]).collect()
}

/// The pixels lit (green or red) of an image, as (x, y).
pub(crate) fn lit(image: &[u8]) -> Vec<(u32, u32)> {
    (0..RENDER_SIZE * RENDER_SIZE)
        .filter(|&i| image[(i * 4) as usize..(i * 4 + 3) as usize] != [0, 0, 0])
        .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
        .collect()
}

/// The 12 border pixels of the 4x4 target: `ring.vert`'s square by GL's diamond-exit rule.
pub(crate) fn border() -> Vec<(u32, u32)> {
    (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
        .filter(|&(x, y)| x == 0 || y == 0 || x == RENDER_SIZE - 1 || y == RENDER_SIZE - 1)
        .collect()
}

/// Draws `vs` + `fs` in GL's `mode` with `polygon_mode`, recording the draw with `draw`
/// (after the bind; it returns the buffers the draw reads, destroyed after it); the image.
fn draw(
    mode: PrimitiveMode,
    polygon_mode: vk::PolygonMode,
    (vs, fs): (&str, &str),
    draw: impl FnOnce(&Device, &Instance, vk::CommandBuffer) -> Vec<HostBuffer>,
) -> Vec<u8> {
    draw_culled(mode, polygon_mode, vk::CullModeFlags::NONE, (vs, fs), draw)
}

/// [`draw`] with `cull_mode` (the pipeline's front face is counter-clockwise).
fn draw_culled(
    mode: PrimitiveMode,
    polygon_mode: vk::PolygonMode,
    cull_mode: vk::CullModeFlags,
    (vs, fs): (&str, &str),
    draw: impl FnOnce(&Device, &Instance, vk::CommandBuffer) -> Vec<HostBuffer>,
) -> Vec<u8> {
    let instance = Instance::new(WITH_VALIDATION);
    // GL's quads and polygons need it (those tests check); a line loop does not.
    let core = vk::PhysicalDeviceFeatures::default()
        .geometry_shader(device_has(Feature::GeometryShader))
        .fill_mode_non_solid(true);
    let image = render(
        &instance,
        core,
        mode,
        (polygon_mode, cull_mode),
        (vs, fs),
        draw,
    );
    instance.assert_clean();
    image
}

/// Makes a pipeline of `vs` + `fs` drawing GL's `mode` with `polygon_mode` and `cull_mode`
/// on a `VK_GLSEM_gl_state` device of `instance` with `core` features, records `draw` after
/// its bind (it returns the buffers the draw reads) and returns the image.
pub fn render(
    instance: &Instance,
    core: vk::PhysicalDeviceFeatures,
    mode: PrimitiveMode,
    (polygon_mode, cull_mode): (vk::PolygonMode, vk::CullModeFlags),
    (vs, fs): (&str, &str),
    draw: impl FnOnce(&Device, &Instance, vk::CommandBuffer) -> Vec<HostBuffer>,
) -> Vec<u8> {
    let device = instance.device_with_core(&[GL_STATE], core, &mut []);
    let vs = device.module(&glsl(vs));
    let fs = device.module(&glsl(fs));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let gl_mode = gl_mode(mode);
    let mut desc = desc_in_mode(&gl_mode, (vs, fs), layout, pass);
    desc.polygon_mode = polygon_mode;
    desc.cull_mode = cull_mode;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let mut used = Vec::new();
    let images = device.render_with(instance, pipelines[0], pass, 1, 0, |cb| {
        used = draw(&device, instance, cb)
    });
    for buffer in used {
        device.destroy_buffer(buffer);
    }
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    images.into_iter().next().unwrap()
}

/// `VkPipelinePrimitiveModeCreateInfoGLSEM` naming `mode`.
pub(crate) fn gl_mode(mode: PrimitiveMode) -> PipelinePrimitiveModeCreateInfo {
    PipelinePrimitiveModeCreateInfo {
        s_type: STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
        p_next: std::ptr::null(),
        primitive_mode: mode,
    }
}

/// A one-attachment pipeline of `vs` and `fs` drawing `gl_mode` (which must outlive it).
pub(crate) fn desc_in_mode(
    gl_mode: &PipelinePrimitiveModeCreateInfo,
    (vs, fs): (vk::ShaderModule, vk::ShaderModule),
    layout: vk::PipelineLayout,
    pass: vk::RenderPass,
) -> Desc<'static> {
    let mut desc = Desc::vertex_fragment(vs, fs, layout, pass);
    desc.assembly_next = (gl_mode as *const PipelinePrimitiveModeCreateInfo).cast();
    desc
}

/// A host buffer holding `words` for `usage`.
pub(crate) fn buffer_of(
    device: &Device,
    instance: &Instance,
    words: &[u32],
    usage: vk::BufferUsageFlags,
) -> HostBuffer {
    let buffer = device.host_buffer(instance, (words.len() * 4) as u64, usage);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    device.write(&buffer, &bytes);
    buffer
}

pub(crate) const QUADS: (&str, &str) = ("layer/quads.vert", "layer/flat_color.frag");

/// Left half from quad 0 (vertices 0-3), right half from quad 1 (4-7), each in its 4th
/// vertex's colour.
pub(crate) fn two_quads(first_quad: u32, second_quad: u32) -> Vec<u8> {
    (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| match i % RENDER_SIZE < RENDER_SIZE / 2 {
            true => red_of(4 * first_quad + 3),
            false => red_of(4 * second_quad + 3),
        })
        .collect()
}

#[test]
fn quads_fill_their_area_with_the_fourth_vertexs_flat_colour() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    let image = draw(
        PrimitiveMode::QUADS,
        vk::PolygonMode::FILL,
        QUADS,
        |device, _, cb| {
            unsafe { device.device.cmd_draw(cb, 8, 1, 0, 0) };
            Vec::new()
        },
    );
    assert_eq!(reds(&image), two_quads(0, 1));
}

#[test]
fn indexed_quads_take_the_flat_colour_of_each_quads_fourth_index() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    // The right quad first, its corners from the second; each quad's 4th index provokes it.
    let indices = [5, 6, 7, 4, 2, 3, 0, 1];
    let image = draw(
        PrimitiveMode::QUADS,
        vk::PolygonMode::FILL,
        QUADS,
        |device, instance, cb| {
            let buffer = buffer_of(
                device,
                instance,
                &indices,
                vk::BufferUsageFlags::INDEX_BUFFER,
            );
            unsafe {
                device
                    .device
                    .cmd_bind_index_buffer(cb, buffer.buffer, 0, vk::IndexType::UINT32);
                device.device.cmd_draw_indexed(cb, 8, 1, 0, 0, 0);
            }
            vec![buffer]
        },
    );
    let expected: Vec<u8> = (0..RENDER_SIZE * RENDER_SIZE)
        .map(|i| match i % RENDER_SIZE < RENDER_SIZE / 2 {
            true => red_of(1),
            false => red_of(4),
        })
        .collect();
    assert_eq!(reds(&image), expected);
}

#[test]
fn instanced_quads_are_one_quad_per_instance() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    // One quad's vertices, two instances: the second is moved to the right half.
    let image = draw(
        PrimitiveMode::QUADS,
        vk::PolygonMode::FILL,
        QUADS,
        |device, _, cb| {
            unsafe { device.device.cmd_draw(cb, 4, 2, 0, 0) };
            Vec::new()
        },
    );
    assert_eq!(reds(&image), two_quads(0, 0));
}

#[test]
fn indirect_quads_draw_as_direct_ones() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    let image = draw(
        PrimitiveMode::QUADS,
        vk::PolygonMode::FILL,
        QUADS,
        |device, instance, cb| {
            // VkDrawIndirectCommand: 8 vertices, 1 instance.
            let args = buffer_of(
                device,
                instance,
                &[8, 1, 0, 0],
                vk::BufferUsageFlags::INDIRECT_BUFFER,
            );
            unsafe { device.device.cmd_draw_indirect(cb, args.buffer, 0, 1, 16) };
            vec![args]
        },
    );
    assert_eq!(reds(&image), two_quads(0, 1));
}

#[test]
fn a_quad_in_polygon_mode_line_draws_its_edges_not_its_diagonal() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    let image = draw(
        PrimitiveMode::QUADS,
        vk::PolygonMode::LINE,
        ("layer/ring.vert", "layer/plain.frag"),
        |device, _, cb| {
            unsafe { device.device.cmd_draw(cb, 4, 1, 0, 0) };
            Vec::new()
        },
    );
    assert_eq!(lit(&image), border());
}

#[test]
fn a_culled_quad_draws_no_edges_in_polygon_mode_line() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    // ring.vert's square winds clockwise in the framebuffer (y down, positive viewport):
    // back-facing under the counter-clockwise front face. GL culls the quad before its
    // polygon mode applies (GL 4.6 compatibility 14.6.1): no edge of it is drawn.
    let ring = ("layer/ring.vert", "layer/plain.frag");
    let edges = |cull| {
        let image = draw_culled(
            PrimitiveMode::QUADS,
            vk::PolygonMode::LINE,
            cull,
            ring,
            |device, _, cb| {
                unsafe { device.device.cmd_draw(cb, 4, 1, 0, 0) };
                Vec::new()
            },
        );
        lit(&image)
    };
    assert_eq!(edges(vk::CullModeFlags::BACK), []);
    assert_eq!(edges(vk::CullModeFlags::FRONT), border());
}

#[test]
fn a_line_loop_is_closed_back_to_its_first_vertex() {
    let _serial = serial();
    let image = draw(
        PrimitiveMode::LINE_LOOP,
        vk::PolygonMode::FILL,
        ("layer/ring.vert", "layer/plain.frag"),
        |device, _, cb| {
            unsafe { device.device.cmd_draw(cb, 4, 1, 0, 0) };
            Vec::new()
        },
    );
    // The closing segment from vertex 3 back to vertex 0 lights the left column.
    let lit = lit(&image);
    if lit != border() && !on_lavapipe() {
        // SwiftShader's Bresenham lines leave out the pixel each segment starts in past its
        // centre, where GL's diamond-exit rule lights it: the corners. The loop is closed.
        assert!(lit.contains(&(0, 1)) && lit.contains(&(0, 2)), "{lit:?}");
        return println!(
            "SKIP: primitive_modes::a_line_loop_is_closed_back_to_its_first_vertex (GL's corner pixels) needs \
             diamond-exit lines: the driver's lines light {lit:?}"
        );
    }
    assert_eq!(lit, border());
}

#[test]
fn a_mode_without_gl_state_fails_with_an_error() {
    let _serial = serial();
    let instance = Instance::new(GLSEM_ONLY);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/quads.vert"));
    let fs = device.module(&glsl("layer/flat_color.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let gl_mode = gl_mode(PrimitiveMode::QUADS);
    let desc = desc_in_mode(&gl_mode, (vs, fs), layout, pass);
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::ERROR_UNKNOWN);
    assert_eq!(pipelines, [vk::Pipeline::null()]);
    device.destroy_objects(&[], &[layout], &[pass], &[vs, fs]);
    device.destroy();
}

#[test]
fn transform_feedback_captures_a_quad_as_two_triangles() {
    let _serial = serial();
    if !needs(&[Feature::TransformFeedback, Feature::GeometryShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    let mut xfb =
        vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
    let core = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
    let device = instance.device_with_core(
        &[GL_STATE, ash::ext::transform_feedback::NAME],
        core,
        &mut [&mut xfb],
    );
    let bind: vk::PFN_vkCmdBindTransformFeedbackBuffersEXT =
        device_fn(&instance, &device, c"vkCmdBindTransformFeedbackBuffersEXT");
    let begin: vk::PFN_vkCmdBeginTransformFeedbackEXT =
        device_fn(&instance, &device, c"vkCmdBeginTransformFeedbackEXT");
    let end: vk::PFN_vkCmdEndTransformFeedbackEXT =
        device_fn(&instance, &device, c"vkCmdEndTransformFeedbackEXT");
    let vs = device.module(&glsl("layer/quads_captured.vert"));
    let fs = device.module(&glsl("layer/flat_color.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let gl_mode = gl_mode(PrimitiveMode::QUADS);
    let desc = desc_in_mode(&gl_mode, (vs, fs), layout, pass);
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    // Room for 8 floats: a quad captured as its 4 vertices would leave the last 2 at zero.
    let buffer = device.host_buffer(
        &instance,
        32,
        vk::BufferUsageFlags::TRANSFORM_FEEDBACK_BUFFER_EXT,
    );
    let images = device.render_with(&instance, pipelines[0], pass, 1, 0, |cb| unsafe {
        bind(cb, 0, 1, &buffer.buffer, &0, &buffer.size);
        begin(cb, 0, 0, std::ptr::null(), std::ptr::null());
        device.device.cmd_draw(cb, 4, 1, 0, 0);
        end(cb, 0, 0, std::ptr::null(), std::ptr::null());
    });
    let captured: Vec<u32> = device
        .read(&buffer)
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()) as u32)
        .collect();
    device.destroy_buffer(buffer);
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    // GL captures a quad as two triangles of its vertices (GL 4.6 compatibility 13.3):
    // each ends with the provoking 4th vertex, together they hold all four.
    let triangles = [&captured[0..3], &captured[3..6]];
    assert!(triangles.iter().all(|t| t[2] == 3), "{captured:?}");
    let mut corners = captured[..6].to_vec();
    corners.sort();
    corners.dedup();
    assert_eq!(corners, [0, 1, 2, 3], "{captured:?}");
    // The quad was drawn too: the left half in vertex 3's colour.
    let left: Vec<u8> = reds(&images[0])
        .chunks(RENDER_SIZE as usize)
        .flat_map(|row| row[..2].to_vec())
        .collect();
    assert!(left.iter().all(|&r| r == red_of(3)), "{left:?}");
}

#[test]
fn quads_past_the_geometry_shaders_inputs_fail_with_an_error() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    // SAFETY: the instance's own physical device.
    let limits = unsafe {
        instance
            .instance
            .get_physical_device_properties(instance.physical)
    }
    .limits;
    let gs_inputs = limits.max_geometry_input_components / 4;
    let count = gs_inputs + 1;
    if count > limits.max_vertex_output_components / 4 {
        return println!("SKIP: the geometry shader reads every vertex output the device has");
    }
    // One more varying than a geometry shader may read: the layer's geometry shader cannot
    // draw the quads, and the pipeline fails rather than crash or draw something else.
    let device = instance.device(&[GL_STATE]);
    let define = format!("-DCOUNT={count}");
    let [vs, fs] = ["vert", "frag"].map(|ext| {
        let source = repo_dir().join(format!("tests/glsl/reliability/varyings.{ext}"));
        device.module(&crate::support::spirv_tools::compile(&source, &[&define]))
    });
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let gl_mode = gl_mode(PrimitiveMode::QUADS);
    let desc = desc_in_mode(&gl_mode, (vs, fs), layout, pass);
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::ERROR_UNKNOWN);
    assert_eq!(pipelines, [vk::Pipeline::null()]);
    device.destroy_objects(&[], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
}

//! GL's lines through the real loader, lavapipe and the validation layer: with
//! `VK_GLSEM_gl_state` a single-sampled line pipeline draws by GL's diamond-exit rule
//! (Bresenham), and a pipeline with alpha to coverage keeps Vulkan's rules (GL's multisample
//! rules apply there, and Bresenham would be invalid:
//! VUID-VkGraphicsPipelineCreateInfo-lineRasterizationMode-02766).

use crate::support::*;
use ash::vk;

const GL_STATE: &std::ffi::CStr = c"VK_GLSEM_gl_state";

/// Draws `tests/glsl/layer/line.vert`'s line on a device with `extensions`, with
/// `multisample` state if given; the pixels it lit (`plain.frag` writes green 0.4 → 102).
fn draw_line(
    extensions: &[&std::ffi::CStr],
    multisample: Option<vk::PipelineMultisampleStateCreateInfo<'static>>,
) -> Vec<(u32, u32)> {
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(extensions);
    let vs = device.module(&glsl("layer/line.vert"));
    let fs = device.module(&glsl("layer/plain.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let mut desc = Desc::new(
        &[
            (vk::ShaderStageFlags::VERTEX, vs),
            (vk::ShaderStageFlags::FRAGMENT, fs),
        ],
        layout,
        pass,
        1,
    )
    .topology(vk::PrimitiveTopology::LINE_LIST);
    desc.multisample = multisample;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let images = device.render(&instance, pipelines[0], pass, 1, 2);
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    (0..RENDER_SIZE * RENDER_SIZE)
        .filter(|i| images[0][(*i * 4) as usize + 1] != 0)
        .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
        .collect()
}

#[test]
fn a_line_pipeline_draws_gl_diamond_exit_pixels() {
    let _serial = serial();
    let gl = [(0, 0), (1, 1), (2, 2)];
    assert_eq!(draw_line(&[GL_STATE], None), gl);
    // Without the extension the layer changes nothing: Vulkan's rectangle lights others.
    assert_ne!(draw_line(&[], None), gl);
}

#[test]
fn alpha_to_coverage_keeps_vulkan_lines_and_stays_valid() {
    let _serial = serial();
    let a2c = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1)
        .alpha_to_coverage_enable(true);
    // No validation message (assert_clean): Bresenham was not chained; the pixels are the
    // ones Vulkan's rule lights without the layer.
    assert_eq!(draw_line(&[GL_STATE], Some(a2c)), draw_line(&[], None));
}

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
    let mut desc =
        Desc::vertex_fragment(vs, fs, layout, pass).topology(vk::PrimitiveTopology::LINE_LIST);
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

/// Draws the line with the line mode (and alpha to coverage) as dynamic state, on a device
/// with `extensions` and `VK_EXT_extended_dynamic_state3`; `record` sets the dynamic state
/// after the bind. The pixels it lit.
fn draw_dynamic_line(
    extensions: &[&std::ffi::CStr],
    record: impl FnOnce(&ash::ext::extended_dynamic_state3::Device, vk::CommandBuffer),
) -> Option<Vec<(u32, u32)>> {
    let instance = Instance::new(WITH_VALIDATION);
    let eds3 = ash::ext::extended_dynamic_state3::NAME;
    if !has_device_extension(&instance, eds3) {
        println!("SKIP: the driver has no VK_EXT_extended_dynamic_state3");
        return None;
    }
    let mut features = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_line_rasterization_mode(true)
        .extended_dynamic_state3_alpha_to_coverage_enable(true);
    let mut lines = vk::PhysicalDeviceLineRasterizationFeaturesEXT::default()
        .bresenham_lines(true)
        .rectangular_lines(true);
    let all: Vec<_> = extensions
        .iter()
        .copied()
        .chain([eds3, ash::ext::line_rasterization::NAME])
        .collect();
    let device = instance.device_with(&all, &mut [&mut features, &mut lines]);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&instance.instance, &device.device);
    let vs = device.module(&glsl("layer/line.vert"));
    let fs = device.module(&glsl("layer/plain.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let mut desc =
        Desc::vertex_fragment(vs, fs, layout, pass).topology(vk::PrimitiveTopology::LINE_LIST);
    desc.dynamic = vec![
        vk::DynamicState::LINE_RASTERIZATION_MODE_EXT,
        vk::DynamicState::ALPHA_TO_COVERAGE_ENABLE_EXT,
    ];
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let images = device.render_with(&instance, pipelines[0], pass, 1, 2, |cb| record(&eds3, cb));
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    Some(
        (0..RENDER_SIZE * RENDER_SIZE)
            .filter(|i| images[0][(*i * 4) as usize + 1] != 0)
            .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
            .collect(),
    )
}

#[test]
fn a_dynamic_default_line_mode_draws_gl_diamond_exit_pixels() {
    let _serial = serial();
    use vk::LineRasterizationModeEXT as M;
    let set = |mode: M, a2c: bool| {
        move |eds3: &ash::ext::extended_dynamic_state3::Device, cb| unsafe {
            eds3.cmd_set_alpha_to_coverage_enable(cb, a2c);
            eds3.cmd_set_line_rasterization_mode(cb, mode);
        }
    };
    let Some(gl) = draw_dynamic_line(&[GL_STATE], set(M::DEFAULT, false)) else {
        return;
    };
    assert_eq!(gl, [(0, 0), (1, 1), (2, 2)]);
    // The deciding state set after the mode is followed too: alpha to coverage brings
    // Vulkan's lines back (GL's multisample rules; Bresenham would be invalid there).
    let vulkan = draw_dynamic_line(&[], set(M::DEFAULT, false)).unwrap();
    assert_ne!(vulkan, gl);
    let a2c_after = |eds3: &ash::ext::extended_dynamic_state3::Device, cb| unsafe {
        eds3.cmd_set_line_rasterization_mode(cb, M::DEFAULT);
        eds3.cmd_set_alpha_to_coverage_enable(cb, true);
    };
    assert_eq!(draw_dynamic_line(&[GL_STATE], a2c_after).unwrap(), vulkan);
    // The application's explicit choice stays.
    assert_eq!(
        draw_dynamic_line(&[GL_STATE], set(M::RECTANGULAR, false)).unwrap(),
        draw_dynamic_line(&[], set(M::RECTANGULAR, false)).unwrap()
    );
}

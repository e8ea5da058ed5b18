//! GL's rules where a whole pipeline makes the deciding state dynamic (DESIGN §4.11),
//! through the real loader, lavapipe and the validation layer: GL's current vertex
//! attributes under `VK_DYNAMIC_STATE_VERTEX_INPUT_EXT` (the application's
//! `vkCmdSetVertexInputEXT` feeds nothing of the shader's input, GL reads
//! `glVertexAttrib4f`'s value), and GL's provoking vertex and clip volume under
//! `PROVOKING_VERTEX_MODE_EXT` / `DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT` where the application
//! sets Vulkan's defaults, the only values it may set without the extensions the layer
//! enabled behind it.

use crate::support::*;
use ash::vk;

const GL_STATE: &std::ffi::CStr = c"VK_GLSEM_gl_state";

type SetVertexAttrib =
    unsafe extern "system" fn(vk::CommandBuffer, u32, vk::Format, *const std::ffi::c_void);

#[test]
fn dynamic_vertex_input_reads_gl_current_attributes() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let ext = ash::ext::vertex_input_dynamic_state::NAME;
    if !has_device_extension(&instance, ext) {
        println!("SKIP: the driver has no VK_EXT_vertex_input_dynamic_state");
        return;
    }
    let mut features = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default()
        .vertex_input_dynamic_state(true);
    let device = instance.device_with(&[GL_STATE, ext], &mut [&mut features]);
    let dynamic =
        ash::ext::vertex_input_dynamic_state::Device::new(&instance.instance, &device.device);
    let vs = device.module(&glsl("layer/unfed_color.vert"));
    let fs = device.module(&glsl("layer/vertex_color.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let mut desc = Desc::vertex_fragment(vs, fs, layout, pass);
    desc.dynamic = vec![vk::DynamicState::VERTEX_INPUT_EXT];
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let set = unsafe {
        instance.instance.get_device_proc_addr(
            device.device.handle(),
            c"vkCmdSetVertexAttribGLSEM".as_ptr(),
        )
    }
    // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
    .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetVertexAttrib>(f) })
    .expect("vkCmdSetVertexAttribGLSEM");
    let red = [1.0f32, 0.0, 0.0, 1.0];
    // 0.4 of 255 is 102 exactly: no rounding to tell drivers apart.
    let blue = [0.0f32, 0.0, 1.0, 0.4];
    let images = device.render_with(&instance, pipelines[0], pass, 1, 0, |cb| unsafe {
        // No binding, no attribute: the application feeds nothing of `color`.
        dynamic.cmd_set_vertex_input(cb, &[], &[]);
        let float = vk::Format::R32G32B32A32_SFLOAT;
        set(cb, 0, float, red.as_ptr().cast());
        device.device.cmd_draw(cb, 6, 1, 0, 0);
        set(cb, 0, float, blue.as_ptr().cast());
        device.device.cmd_draw(cb, 6, 1, 6, 0);
    });
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    let pixel = |x: u32, y: u32| {
        let at = ((y * RENDER_SIZE + x) * 4) as usize;
        [0, 1, 2, 3].map(|i| images[0][at + i])
    };
    // Each draw reads the value set last before it (GL 4.6 §10.2).
    assert_eq!(
        [pixel(0, 1), pixel(3, 1)],
        [[255, 0, 0, 255], [0, 0, 255, 102]]
    );
}

/// The colour of pixel (1, 1) after `provoking.vert`'s triangle with the provoking vertex
/// mode and `negativeOneToOne` dynamic, set to Vulkan's defaults after the bind, on a device
/// with `extensions` and `VK_EXT_extended_dynamic_state3`.
fn draw_with_default_conventions(extensions: &[&std::ffi::CStr]) -> Option<[u8; 4]> {
    let instance = Instance::new(WITH_VALIDATION);
    let eds3 = ash::ext::extended_dynamic_state3::NAME;
    if !has_device_extension(&instance, eds3) {
        println!("SKIP: the driver has no VK_EXT_extended_dynamic_state3");
        return None;
    }
    let mut features = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
        .extended_dynamic_state3_provoking_vertex_mode(true)
        .extended_dynamic_state3_depth_clip_negative_one_to_one(true);
    let all: Vec<_> = extensions.iter().copied().chain([eds3]).collect();
    let device = instance.device_with(&all, &mut [&mut features]);
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&instance.instance, &device.device);
    let vs = device.module(&glsl("layer/provoking.vert"));
    let fs = device.module(&glsl("layer/flat_color.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let mut desc = Desc::vertex_fragment(vs, fs, layout, pass);
    desc.dynamic = vec![
        vk::DynamicState::PROVOKING_VERTEX_MODE_EXT,
        vk::DynamicState::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT,
    ];
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let images = device.render_with(&instance, pipelines[0], pass, 1, 3, |cb| unsafe {
        eds3.cmd_set_provoking_vertex_mode(cb, vk::ProvokingVertexModeEXT::FIRST_VERTEX);
        eds3.cmd_set_depth_clip_negative_one_to_one(cb, false);
    });
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    let at = ((RENDER_SIZE + 1) * 4) as usize;
    Some([0, 1, 2, 3].map(|i| images[0][at + i]))
}

#[test]
fn dynamic_provoking_vertex_and_clip_volume_follow_gl() {
    let _serial = serial();
    let Some(gl) = draw_with_default_conventions(&[GL_STATE]) else {
        return;
    };
    // Inside GL's clip volume, in the last vertex's colour. Vulkan's defaults as set would
    // clip the triangle away (z = -0.5 < 0: black) or colour it red (the first vertex).
    // (No plain-Vulkan draw to compare: without the layer's `depthClipControl` the
    // application may not set `negativeOneToOne` at all, VUID-...-depthClipControl-07453.)
    assert_eq!(gl, [0, 0, 255, 255]);
}

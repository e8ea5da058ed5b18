//! GL's current vertex attributes through the real loader, lavapipe and the validation
//! layer: a vertex shader input no attribute description feeds reads GL's initial
//! (0, 0, 0, 1), or the value `vkCmdSetVertexAttribGLSEM` set last before each draw
//! (`glVertexAttrib4f`, GL 4.6 §10.2), two draws of one command buffer each seeing its own.
//!
//! `tests/glsl/layer/unfed_color.vert` draws vertices 0-5 over the left half of the 4x4
//! target and vertices 6-11 over the right half, in the colour its unfed input reads.

use crate::support::*;
use ash::vk;

type SetVertexAttrib =
    unsafe extern "system" fn(vk::CommandBuffer, u32, vk::Format, *const std::ffi::c_void);

/// The RGBA8 colours of pixel (0, 1) (left half) and (3, 1) (right half) after `record`
/// draws with the unfed-input pipeline on a device with `extensions`.
fn draw(
    extensions: &[&std::ffi::CStr],
    record: impl FnOnce(&Device, Option<SetVertexAttrib>, vk::CommandBuffer),
) -> [[u8; 4]; 2] {
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(extensions);
    let vs = device.module(&glsl("layer/unfed_color.vert"));
    let fs = device.module(&glsl("layer/vertex_color.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let desc = Desc::vertex_fragment(vs, fs, layout, pass);
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let set = unsafe {
        instance.instance.get_device_proc_addr(
            device.device.handle(),
            c"vkCmdSetVertexAttribGLSEM".as_ptr(),
        )
    }
    // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
    .map(|f| unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetVertexAttrib>(f) });
    // The helper's own draw has no vertices: `record` draws.
    let images = device.render_with(&instance, pipelines[0], pass, 1, 0, |cb| {
        record(&device, set, cb)
    });
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    let pixel = |x: u32, y: u32| {
        let at = ((y * RENDER_SIZE + x) * 4) as usize;
        [0, 1, 2, 3].map(|i| images[0][at + i])
    };
    [pixel(0, 1), pixel(3, 1)]
}

fn halves(device: &Device, cb: vk::CommandBuffer) {
    unsafe {
        device.device.cmd_draw(cb, 6, 1, 0, 0);
        device.device.cmd_draw(cb, 6, 1, 6, 0);
    }
}

#[test]
fn unfed_input_reads_gl_initial_value_without_the_command() {
    let _serial = serial();
    // (0, 0, 0, 1) with and without VK_GLSEM_gl_state (constant / the layer's binding).
    for extensions in [&[][..], &[c"VK_GLSEM_gl_state"][..]] {
        let pixels = draw(extensions, |device, set, cb| {
            assert_eq!(set.is_some(), !extensions.is_empty());
            halves(device, cb)
        });
        assert_eq!(pixels, [[0, 0, 0, 255]; 2], "{extensions:?}");
    }
}

#[test]
fn each_draw_reads_the_value_set_last_before_it() {
    let _serial = serial();
    let red = [1.0f32, 0.0, 0.0, 1.0];
    // 0.4 of 255 is 102 exactly: no rounding to tell drivers apart.
    let blue = [0.0f32, 0.0, 1.0, 0.4];
    let pixels = draw(&[c"VK_GLSEM_gl_state"], |device, set, cb| unsafe {
        let set = set.expect("vkCmdSetVertexAttribGLSEM");
        let float = vk::Format::R32G32B32A32_SFLOAT;
        set(cb, 0, float, red.as_ptr().cast());
        device.device.cmd_draw(cb, 6, 1, 0, 0);
        set(cb, 0, float, blue.as_ptr().cast());
        device.device.cmd_draw(cb, 6, 1, 6, 0);
    });
    assert_eq!(pixels, [[255, 0, 0, 255], [0, 0, 255, 102]]);
}

//! `VK_GLSEM_gl_state` through the real loader, lavapipe and the validation layer: its
//! commands exist only on devices that enable it, and GL's point size reaches a pipeline
//! whose layout the application shares with push constants of its own — or, when the
//! layout leaves no room for the GL-state block, GL's initial size does.
//!
//! The 4x4 target: `tests/glsl/layer/point.vert` puts one point at the centre of pixel
//! (1, 1); GL draws it `glPointSize` pixels wide (GL 4.6 core, 14.4).

use crate::support::*;
use ash::vk;

const GL_STATE: &std::ffi::CStr = c"VK_GLSEM_gl_state";
const COMMANDS: [&std::ffi::CStr; 3] = [
    c"vkCmdSetPointSizeGLSEM",
    c"vkCmdSetProgramPointSizeEnableGLSEM",
    c"vkCmdSetClipDistanceEnableGLSEM",
];
type SetPointSize = unsafe extern "system" fn(vk::CommandBuffer, f32);
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

fn proc_addr(
    instance: &Instance,
    device: &Device,
    name: &std::ffi::CStr,
) -> vk::PFN_vkVoidFunction {
    unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), name.as_ptr())
    }
}

#[test]
fn gl_state_commands_exist_only_where_the_extension_is_enabled() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let plain = instance.device(&[]);
    for name in COMMANDS {
        assert!(proc_addr(&instance, &plain, name).is_none(), "{name:?}");
    }
    plain.destroy();
    let device = instance.device(&[GL_STATE]);
    for name in COMMANDS {
        assert!(proc_addr(&instance, &device, name).is_some(), "{name:?}");
    }
    device.destroy();
    instance.assert_clean();
}

/// Which pixels of attachment 0 the point lit (green).
fn lit(image: &[u8]) -> Vec<(u32, u32)> {
    (0..RENDER_SIZE * RENDER_SIZE)
        .filter(|i| image[(*i * 4) as usize + 1] == 255)
        .map(|i| (i % RENDER_SIZE, i / RENDER_SIZE))
        .collect()
}

/// Draws the point with `point_size` set through `vkCmdSetPointSizeGLSEM`, on a layout
/// with the application's `ranges`, the colour pushed into its FRAGMENT range.
fn draw_point(ranges: &[vk::PushConstantRange], point_size: f32) -> Vec<(u32, u32)> {
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[GL_STATE]);
    let vs = device.module(&glsl("layer/point.vert"));
    let fs = device.module(&glsl("layer/push_color.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(ranges);
    let desc =
        Desc::vertex_fragment(vs, fs, layout, pass).topology(vk::PrimitiveTopology::POINT_LIST);
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let set_point_size =
        proc_addr(&instance, &device, c"vkCmdSetPointSizeGLSEM").expect("vkCmdSetPointSizeGLSEM");
    // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
    let set_point_size =
        unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetPointSize>(set_point_size) };
    let images = device.render_with(&instance, pipelines[0], pass, 1, 1, |cb| unsafe {
        set_point_size(cb, point_size);
        let bytes: Vec<u8> = GREEN.iter().flat_map(|c| c.to_le_bytes()).collect();
        device
            .device
            .cmd_push_constants(cb, layout, ranges[0].stage_flags, 0, &bytes);
    });
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    lit(&images[0])
}

#[test]
fn point_size_state_reaches_a_layout_shared_with_the_application() {
    let _serial = serial();
    let fragment = [vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::FRAGMENT,
        offset: 0,
        size: 16,
    }];
    // glPointSize(3): pixels 0..2 around the centre of (1, 1).
    let three: Vec<(u32, u32)> = (0..3).flat_map(|y| (0..3).map(move |x| (x, y))).collect();
    assert_eq!(draw_point(&fragment, 3.0), three);
    assert_eq!(draw_point(&fragment, 1.0), [(1, 1)]);
}

/// A VERTEX|FRAGMENT range over all of `maxPushConstantsSize` leaves no room for the block:
/// the layer says so and the point gets GL's initial size, 1.0, whatever the state says —
/// a valid pipeline, never an undefined size.
#[test]
fn without_room_for_the_block_points_get_gl_initial_size() {
    let _serial = serial();
    let everything = [vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
        offset: 0,
        size: Instance::new(NO_LAYERS).max_push_constants_size(),
    }];
    assert_eq!(draw_point(&everything, 3.0), [(1, 1)]);
}

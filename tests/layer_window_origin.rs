//! GL's window coordinates through the real loader, lavapipe and the validation layer, with
//! `VK_GLSEM_gl_state` enabled, for both ways a port maps GL's window onto the framebuffer:
//! a negative viewport (`window_origin = flipped`, the default) and a positive one
//! (`window_origin = lower_left`).
//!
//! GL's rules (GL 4.6 core §14.6, §15.2.2, §8.13.1 for `dFdy`): window y counts up from the
//! bottom row, so on the 4x4 target `gl_FragCoord.y` is `row + 0.5` counting GL's rows from
//! the bottom, `dFdy` of a value growing upward is positive, and a triangle counter-clockwise
//! in window coordinates is front-facing when the front face is `GL_CCW` (culled as a back
//! face when it is `GL_CW`). With a negative viewport GL's bottom row is the image's last
//! row; with a positive one, its first.

mod support;

use ash::vk;
use support::*;

type S = vk::ShaderStageFlags;

/// How the test maps GL's window onto the 4x4 framebuffer.
#[derive(Clone, Copy, Debug)]
enum Origin {
    Flipped,
    LowerLeft,
}

impl Origin {
    fn setting(self) -> &'static str {
        match self {
            Origin::Flipped => "flipped",
            Origin::LowerLeft => "lower_left",
        }
    }

    fn viewport(self) -> vk::Viewport {
        let size = RENDER_SIZE as f32;
        let (y, height) = match self {
            Origin::Flipped => (size, -size),
            Origin::LowerLeft => (0.0, size),
        };
        vk::Viewport {
            x: 0.0,
            y,
            width: size,
            height,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }

    /// The image row holding GL's window row `gl_row`.
    fn image_row(self, gl_row: u32) -> u32 {
        match self {
            Origin::Flipped => RENDER_SIZE - 1 - gl_row,
            Origin::LowerLeft => gl_row,
        }
    }
}

/// Draws the full-screen triangle with `origin`'s viewport (set after the bind), back faces
/// culled and `front` as the front face (both dynamic); returns the RGBA8 image.
fn draw(origin: Origin, front: vk::FrontFace) -> Vec<u8> {
    // The layer reads its settings at vkCreateInstance; tests of this binary hold `serial`.
    std::env::set_var("VK_GLSEM_WINDOW_ORIGIN", origin.setting());
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[GL_STATE_EXTENSION]);
    let vs = device.module(&glsl("layer/window.vert"));
    let fs = device.module(&glsl("layer/window.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let mut desc = Desc::new(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1);
    desc.dynamic = vec![
        vk::DynamicState::VIEWPORT,
        vk::DynamicState::CULL_MODE,
        vk::DynamicState::FRONT_FACE,
    ];
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let images = device.render_with(&instance, pipelines[0], pass, 1, 3, |cb| unsafe {
        device.device.cmd_set_viewport(cb, 0, &[origin.viewport()]);
        device.device.cmd_set_cull_mode(cb, vk::CullModeFlags::BACK);
        device.device.cmd_set_front_face(cb, front);
    });
    device.destroy_objects(&pipelines, &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    std::env::remove_var("VK_GLSEM_WINDOW_ORIGIN");
    images.into_iter().next().unwrap()
}

fn pixel(image: &[u8], x: u32, image_row: u32) -> [u8; 4] {
    let at = ((image_row * RENDER_SIZE + x) * 4) as usize;
    image[at..at + 4].try_into().unwrap()
}

/// `gl_FragCoord.y / 4` as UNORM8 on GL's row `gl_row`.
fn frag_coord_y(gl_row: u32) -> u8 {
    ((gl_row as f32 + 0.5) / RENDER_SIZE as f32 * 255.0).round() as u8
}

fn assert_gl_window(origin: Origin) {
    let image = draw(origin, vk::FrontFace::COUNTER_CLOCKWISE);
    for gl_row in 0..RENDER_SIZE {
        for x in 0..RENDER_SIZE {
            let [r, g, b, a] = pixel(&image, x, origin.image_row(gl_row));
            assert!(
                r.abs_diff(frag_coord_y(gl_row)) <= 1,
                "{origin:?}: gl_FragCoord.y on GL row {gl_row}: {r}"
            );
            assert_eq!(g, 255, "{origin:?}: dFdy of a value growing upward is > 0");
            assert_eq!(b, 0);
            assert_eq!(a, 255, "{origin:?}: the CCW triangle is front-facing");
        }
    }
}

#[test]
fn negative_viewport_gives_gl_frag_coord_dfdy_and_front_faces() {
    let _serial = serial();
    assert_gl_window(Origin::Flipped);
}

#[test]
fn positive_viewport_gives_gl_frag_coord_dfdy_and_front_faces() {
    let _serial = serial();
    assert_gl_window(Origin::LowerLeft);
}

/// GL culls the counter-clockwise triangle as a back face only when the front face is
/// `GL_CW`: with a positive viewport Vulkan's winding is the other way, and the layer turns
/// `vkCmdSetFrontFace` over.
#[test]
fn culling_follows_gl_front_face_both_ways() {
    let _serial = serial();
    for origin in [Origin::Flipped, Origin::LowerLeft] {
        let drawn = draw(origin, vk::FrontFace::COUNTER_CLOCKWISE);
        assert!(
            drawn.chunks(4).all(|p| p[3] == 255),
            "{origin:?}: front CCW draws the CCW triangle"
        );
        let culled = draw(origin, vk::FrontFace::CLOCKWISE);
        assert!(
            culled.iter().all(|&c| c == 0),
            "{origin:?}: front CW culls the CCW triangle"
        );
    }
}

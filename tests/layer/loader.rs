//! The layer through the real loader on the installed driver (lavapipe in CI), with the
//! validation layer below it.

use crate::support::*;
use ash::vk;
use std::ffi::CStr;

type S = vk::ShaderStageFlags;

#[test]
fn layer_is_listed_by_the_loader() {
    let _serial = serial();
    let entry = entry();
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap();
    assert!(
        layers.iter().any(|l| l.layer_name_as_c_str() == Ok(GLSEM)),
        "VK_LAYER_GLSEM_gl_semantics missing from vkEnumerateInstanceLayerProperties"
    );
}

#[test]
fn instance_and_device_are_created_without_validation_messages() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    device.destroy();
    instance.assert_clean();
}

#[test]
fn levels_extension_is_listed_and_its_command_returned_when_enabled() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let mut count = 0;
    let get = instance
        .instance
        .fp_v1_0()
        .enumerate_device_extension_properties;
    let r = unsafe {
        get(
            instance.physical,
            GLSEM.as_ptr(),
            &mut count,
            std::ptr::null_mut(),
        )
    };
    // VK_GLSEM_tessellation_default_levels and VK_GLSEM_gl_state.
    assert_eq!((r, count), (vk::Result::SUCCESS, 2));
    let mut props = vec![vk::ExtensionProperties::default(); count as usize];
    let r = unsafe {
        get(
            instance.physical,
            GLSEM.as_ptr(),
            &mut count,
            props.as_mut_ptr(),
        )
    };
    assert_eq!(r, vk::Result::SUCCESS);
    for name in [LEVELS_EXTENSION, c"VK_GLSEM_gl_state"] {
        let ours = props
            .iter()
            .find(|p| p.extension_name_as_c_str() == Ok(name));
        assert_eq!(ours.map(|p| p.spec_version), Some(1), "{name:?}");
    }

    let device = instance.device(&[LEVELS_EXTENSION]);
    let name = c"vkCmdSetTessellationDefaultLevelsGLSEM";
    let f = unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), name.as_ptr())
    };
    assert!(
        f.is_some(),
        "vkGetDeviceProcAddr returned NULL for the enabled extension"
    );
    device.destroy();

    // Vulkan returns NULL for commands of extensions the device did not enable.
    let device = instance.device(&[]);
    let f = unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), name.as_ptr())
    };
    assert!(f.is_none());
    device.destroy();
    instance.assert_clean();
}

#[test]
fn driver_does_not_list_the_layer_extension() {
    let _serial = serial();
    // Asked without a layer name, the device's own extensions must not include it: the
    // layer implements it and strips it before vkCreateDevice reaches the driver.
    let instance = Instance::new(WITH_VALIDATION);
    let props = unsafe {
        instance
            .instance
            .enumerate_device_extension_properties(instance.physical)
    }
    .unwrap();
    assert!(!props
        .iter()
        .any(|p| p.extension_name_as_c_str() == Ok(LEVELS_EXTENSION)));
}

#[test]
fn plain_pipeline_takes_the_fast_path() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl("layer/plain.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let before = counters();
    let pipeline = device
        .pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1)
        .expect("plain pipeline");
    let after = counters();
    assert_eq!(after.fast_path_pipelines, before.fast_path_pipelines + 1);
    assert_eq!(
        after.rewrites, before.rewrites,
        "a plain pipeline must not be rewritten"
    );
    assert_eq!(
        after.pipelines, before.pipelines,
        "pass-through pipelines are not recorded"
    );
    device.destroy_objects(&[pipeline], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
}

/// Records pushes into a layout with an application range [0, 64) for the vertex stage and
/// returns the validation messages: the layer's reserved TESSELLATION_CONTROL range must
/// sit at `levels_offset`, the highest free 24 bytes below maxPushConstantsSize (104 on
/// lavapipe's 128, 232 on NVIDIA's 256).
fn push_into_reserved_range(layers: Layers, levels_offset: u32) -> Vec<String> {
    let instance = Instance::new(layers);
    let device = instance.device(&[]);
    let app = [vk::PushConstantRange {
        stage_flags: S::VERTEX,
        offset: 0,
        size: 64,
    }];
    let layout = device.layout(&app);
    let (pool, cb) = device.begin_commands();
    unsafe {
        device
            .device
            .cmd_push_constants(cb, layout, S::VERTEX, 0, &[0u8; 64]);
        device.device.cmd_push_constants(
            cb,
            layout,
            S::TESSELLATION_CONTROL,
            levels_offset,
            &[0u8; 24],
        );
        device.device.end_command_buffer(cb).unwrap();
        device.device.destroy_command_pool(pool, None);
        device.device.destroy_pipeline_layout(layout, None);
    }
    device.destroy();
    instance.messages()
}

#[test]
fn layout_reserves_levels_next_to_the_app_range() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let levels_offset = (max_push_constants_size() - 24) & !3;
    let with_layer = push_into_reserved_range(WITH_VALIDATION, levels_offset);
    assert!(
        with_layer.is_empty(),
        "validation messages:\n{}",
        with_layer.join("\n")
    );
    // Without glsem the same TCS push is outside every range: validation must object, or
    // this test proves nothing.
    let without = push_into_reserved_range(VALIDATION_ONLY, levels_offset);
    assert!(
        !without.is_empty(),
        "validation accepted a push outside the layout's ranges"
    );
}

fn max_push_constants_size() -> u32 {
    Instance::new(NO_LAYERS).max_push_constants_size()
}

fn tes_only_pipeline(
    device: &Device,
    layout: vk::PipelineLayout,
) -> Result<vk::Pipeline, vk::Result> {
    let vs = device.module(&glsl("layer/patch.vert"));
    let tes = device.module(&glsl("layer/patch.tese"));
    let fs = device.module(&glsl("layer/patch.frag"));
    let pass = device.render_pass(1);
    let result = device.pipeline(
        &[
            (S::VERTEX, vs),
            (S::TESSELLATION_EVALUATION, tes),
            (S::FRAGMENT, fs),
        ],
        layout,
        pass,
        1,
    );
    unsafe {
        for m in [vs, tes, fs] {
            device.device.destroy_shader_module(m, None);
        }
        device.device.destroy_render_pass(pass, None);
    }
    result
}

#[test]
fn tes_without_tcs_fails_clearly_when_the_layout_has_no_room() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    // The application takes every byte: no room for the levels.
    let app = [vk::PushConstantRange {
        stage_flags: S::VERTEX | S::FRAGMENT,
        offset: 0,
        size: max_push_constants_size(),
    }];
    let layout = device.layout(&app);
    // Passing it down would crash lavapipe; the layer fails it instead.
    let result = tes_only_pipeline(&device, layout);
    assert_eq!(result, Err(vk::Result::ERROR_UNKNOWN));
    unsafe { device.device.destroy_pipeline_layout(layout, None) };
    device.destroy();
    instance.assert_clean();
}

/// Applications that leave 24 bytes free (104 of lavapipe's 128 used) still get a
/// generated TCS: the levels need 24 bytes, not the whole 32-byte GL-state block.
#[test]
fn tes_without_tcs_fits_the_levels_into_24_free_bytes() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    for extensions in [&[][..], &[GL_STATE_EXTENSION][..]] {
        let device = instance.device(extensions);
        let app = [vk::PushConstantRange {
            stage_flags: S::VERTEX | S::FRAGMENT,
            offset: 0,
            size: max_push_constants_size() - 24,
        }];
        let layout = device.layout(&app);
        let pipeline = tes_only_pipeline(&device, layout)
            .expect("a TES-only pipeline whose layout has 24 bytes free");
        // Binding pushes the levels: validation checks the push against the layout.
        let (pool, cb) = device.begin_commands();
        unsafe {
            device
                .device
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            device.device.end_command_buffer(cb).unwrap();
            device.device.destroy_command_pool(pool, None);
            device.device.destroy_pipeline(pipeline, None);
            device.device.destroy_pipeline_layout(layout, None);
        }
        device.destroy();
    }
    instance.assert_clean();
}

#[test]
fn tes_without_tcs_gets_a_generated_tcs_and_levels() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[LEVELS_EXTENSION]);
    let layout = device.layout(&[]);
    let before = counters();
    let pipeline =
        tes_only_pipeline(&device, layout).expect("TES-only pipeline with a generated TCS");
    let after = counters();
    assert_eq!(
        after.pipelines,
        before.pipelines + 1,
        "the pipeline is recorded as having a TCS"
    );

    // Bind (pushes the levels), set new ones while bound (pushes again): validation checks
    // every push against the layout.
    let name = c"vkCmdSetTessellationDefaultLevelsGLSEM";
    let f = unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), name.as_ptr())
    }
    .unwrap();
    type SetLevels = unsafe extern "system" fn(vk::CommandBuffer, *const f32, *const f32);
    let set_levels: SetLevels = unsafe { std::mem::transmute(f) };
    let (pool, cb) = device.begin_commands();
    unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
        set_levels(cb, [2.0, 3.0, 4.0, 1.0].as_ptr(), [3.0, 1.0].as_ptr());
        device.device.end_command_buffer(cb).unwrap();
        device.device.destroy_command_pool(pool, None);
        device.device.destroy_pipeline(pipeline, None);
        device.device.destroy_pipeline_layout(layout, None);
    }
    assert_eq!(
        counters().pipelines,
        before.pipelines,
        "vkDestroyPipeline drops the record"
    );
    device.destroy();
    instance.assert_clean();
}

#[test]
fn command_names_are_the_layer_hooks() {
    let _serial = serial();
    // vkGetDeviceProcAddr returns the layer's hooks for what it intercepts and the next
    // layer's pointer otherwise: both must be non-null on a device.
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    for name in [
        c"vkCreateGraphicsPipelines",
        c"vkCmdBindPipeline",
        c"vkCmdDraw",
        c"vkQueueSubmit",
    ] {
        let f = unsafe {
            instance
                .instance
                .get_device_proc_addr(device.device.handle(), name.as_ptr())
        };
        assert!(f.is_some(), "{name:?} is NULL");
    }
    let missing: &CStr = c"vkNotACommand";
    assert!(unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), missing.as_ptr())
    }
    .is_none());
    device.destroy();
    instance.assert_clean();
}

/// Renders the plain full-screen triangle on an instance with the given layers.
fn render_plain(layers: Layers) -> Vec<u8> {
    let instance = Instance::new(layers);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl("layer/plain.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let pipeline = device
        .pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1)
        .unwrap();
    let pixels = device.render(&instance, pipeline, pass, 1, 3).remove(0);
    device.destroy_objects(&[pipeline], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    pixels
}

#[test]
fn plain_triangle_renders_the_same_pixels_with_and_without_the_layer() {
    let _serial = serial();
    let with = render_plain(WITH_VALIDATION);
    let without = render_plain(VALIDATION_ONLY);
    assert_eq!(with, without);
    // The triangle covers the whole target with plain.frag's colour (0.25, 0.4, 0.75, 1)
    // in UNORM8: round(x * 255).
    let expected: Vec<u8> = [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize);
    assert_eq!(with, expected);
}

#[test]
fn gl_frag_color_reaches_every_attachment_and_is_rewritten_once() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl_for_gl("layer/fragcolor.frag"));
    let pass = device.render_pass(3);
    let layout = device.layout(&[]);
    let stages = [(S::VERTEX, vs), (S::FRAGMENT, fs)];
    let before = counters();
    let first = device.pipeline(&stages, layout, pass, 3).unwrap();
    let second = device.pipeline(&stages, layout, pass, 3).unwrap();
    let after = counters();
    assert_eq!(
        after.rewrites,
        before.rewrites + 1,
        "the identical pipeline hits the cache"
    );
    assert_eq!(after.pipelines, before.pipelines + 2);

    // GL writes gl_FragColor to every draw buffer: (0.25, 0.4, 0.75, 1) in UNORM8.
    let expected: Vec<u8> = [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize);
    let images = device.render(&instance, second, pass, 3, 3);
    for (i, image) in images.iter().enumerate() {
        assert_eq!(image, &expected, "attachment {i}");
    }
    device.destroy_objects(&[first, second], &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
}

#[test]
fn modules_made_again_from_the_same_code_keep_their_gl_rules() {
    // The layer takes back a destroyed module's record for the same code made again
    // (`retired_modules.rs`): a gl_FragColor shader so made must still write every draw
    // buffer, and a plain pipeline so made must still pass through untouched.
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let vertex_code = glsl("layer/plain.vert");
    let plain_code = glsl("layer/plain.frag");
    let frag_color_code = glsl_for_gl("layer/fragcolor.frag");
    let one = device.render_pass(1);
    let three = device.render_pass(3);
    let layout = device.layout(&[]);
    let expected: Vec<u8> = [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize);
    for round in 0..3 {
        // Made in another order each round, destroyed in one: each must find its own.
        let mut codes = [&vertex_code, &plain_code, &frag_color_code].map(|c| (c, None));
        codes.rotate_left(round);
        for (code, module) in &mut codes {
            *module = Some(device.module(code));
        }
        codes.rotate_right(round);
        let [vs, plain, frag_color] = codes.map(|(_, module)| module.expect("made"));
        let before = counters();
        let untouched = device
            .pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, plain)], layout, one, 1)
            .expect("plain pipeline");
        let broadcast = device
            .pipeline(
                &[(S::VERTEX, vs), (S::FRAGMENT, frag_color)],
                layout,
                three,
                3,
            )
            .expect("gl_FragColor pipeline");
        let after = counters();
        assert_eq!(
            after.fast_path_pipelines,
            before.fast_path_pipelines + 1,
            "round {round}: the plain pipeline passes through"
        );
        // GL writes gl_FragColor to every draw buffer: (0.25, 0.4, 0.75, 1) in UNORM8.
        let images = device.render(&instance, broadcast, three, 3, 3);
        for (i, image) in images.iter().enumerate() {
            assert_eq!(image, &expected, "round {round}, attachment {i}");
        }
        device.destroy_objects(&[untouched, broadcast], &[], &[], &[vs, plain, frag_color]);
    }
    device.destroy_objects(&[], &[layout], &[one, three], &[]);
    device.destroy();
    instance.assert_clean();
}

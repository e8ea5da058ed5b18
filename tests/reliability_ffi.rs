//! No panic crosses the layer's exported functions, on the paths `tests/layer_guard.rs`
//! does not reach: the planner's rewrite path, its records, `vkCmdBindPipeline` with a
//! generated-TCS pipeline live, and `vkCmdSetTessellationDefaultLevelsGLSEM`. The
//! `debug_inject_panic` setting makes the layer panic there on purpose (and while it records
//! a new instance or device); it is read at
//! vkCreateInstance, from the environment (one test per binary: the environment is the
//! process's).

mod support;

use ash::vk;
use support::*;

type S = vk::ShaderStageFlags;

/// GL: gl_FragColor (0.25, 0.4, 0.75, 1) in UNORM8, every pixel.
fn frag_color_pixels() -> Vec<u8> {
    [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize)
}

struct Shaders {
    plain_vs: vk::ShaderModule,
    frag_color: vk::ShaderModule,
    patch_vs: vk::ShaderModule,
    patch_tes: vk::ShaderModule,
    patch_fs: vk::ShaderModule,
}

impl Shaders {
    fn new(device: &Device) -> Shaders {
        Shaders {
            plain_vs: device.module(&glsl("layer/plain.vert")),
            frag_color: device.module(&glsl_for_gl("layer/fragcolor.frag")),
            patch_vs: device.module(&glsl("layer/patch.vert")),
            // A TES module needs the feature (VUID-VkShaderModuleCreateInfo-pCode-08740).
            patch_tes: match device_has(Feature::TessellationShader) {
                true => device.module(&glsl("layer/patch.tese")),
                false => vk::ShaderModule::null(),
            },
            patch_fs: device.module(&glsl("layer/patch.frag")),
        }
    }

    fn frag_color(&self) -> [(S, vk::ShaderModule); 2] {
        [(S::VERTEX, self.plain_vs), (S::FRAGMENT, self.frag_color)]
    }

    fn tes_only(&self) -> [(S, vk::ShaderModule); 3] {
        [
            (S::VERTEX, self.patch_vs),
            (S::TESSELLATION_EVALUATION, self.patch_tes),
            (S::FRAGMENT, self.patch_fs),
        ]
    }

    fn destroy(self, device: &Device) {
        for m in [
            self.plain_vs,
            self.frag_color,
            self.patch_vs,
            self.patch_tes,
            self.patch_fs,
        ] {
            unsafe { device.device.destroy_shader_module(m, None) };
        }
    }
}

/// The planner panics while rewriting: pipelines go down as the application made them,
/// except a TES-only one, which would crash the driver and fails instead.
fn panic_in_the_planner() {
    std::env::set_var(
        "VK_GLSEM_DEBUG_INJECT_PANIC",
        "vkCreateGraphicsPipelines/plan",
    );
    // No validation: unrewritten, gl_FragColor leaves attachments 1 and 2 unwritten, as
    // without the layer (validation warns about exactly that).
    let instance = Instance::new(GLSEM_ONLY);
    let device = instance.device(&[]);
    let shaders = Shaders::new(&device);
    let pass = device.render_pass(3);
    let pass1 = device.render_pass(1);
    let layout = device.layout(&[]);
    let before = counters();
    let pipeline = device
        .pipeline(&shaders.frag_color(), layout, pass, 3)
        .expect("created with the original shaders");
    if part_needs(
        "a TES-only pipeline in the planner",
        &[Feature::TessellationShader],
    ) {
        assert_eq!(
            device.pipeline(&shaders.tes_only(), layout, pass1, 1),
            Err(vk::Result::ERROR_UNKNOWN),
            "a TES-only pipeline the layer could not fix is failed, not passed down"
        );
    }
    let after = counters();
    assert_eq!(
        after.rewrites, before.rewrites,
        "the planner really panicked"
    );
    assert_eq!(after.pipelines, before.pipelines);
    let images = device.render(&instance, pipeline, pass, 3, 3);
    assert_eq!(images[0], frag_color_pixels(), "Location 0 still drawn");
    device.destroy_objects(&[pipeline], &[layout], &[pass, pass1], &[]);
    shaders.destroy(&device);
    device.destroy();
}

/// The rewrite happened, recording it panics: the application gets its rewritten pipeline.
fn panic_while_recording() {
    std::env::set_var(
        "VK_GLSEM_DEBUG_INJECT_PANIC",
        "vkCreateGraphicsPipelines/record",
    );
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let shaders = Shaders::new(&device);
    let pass = device.render_pass(3);
    let layout = device.layout(&[]);
    let before = counters();
    let pipeline = device
        .pipeline(&shaders.frag_color(), layout, pass, 3)
        .expect("the rewritten pipeline is created");
    assert_eq!(counters().pipelines, before.pipelines, "recording panicked");
    for (i, image) in device
        .render(&instance, pipeline, pass, 3, 3)
        .iter()
        .enumerate()
    {
        assert_eq!(image, &frag_color_pixels(), "attachment {i}");
    }
    device.destroy_objects(&[pipeline], &[layout], &[pass], &[]);
    shaders.destroy(&device);
    device.destroy();
    instance.assert_clean();
}

/// vkCmdBindPipeline panics after the bind went down (a generated-TCS pipeline is live, so
/// the layer's slow path runs), and vkCmdSetTessellationDefaultLevelsGLSEM panics outright:
/// both return normally and the draw still renders.
fn panic_in_command_recording() {
    std::env::set_var(
        "VK_GLSEM_DEBUG_INJECT_PANIC",
        "vkCmdBindPipeline,vkCmdSetTessellationDefaultLevelsGLSEM",
    );
    if !part_needs(
        "vkCmdBindPipeline of a TES-only pipeline",
        &[Feature::TessellationShader],
    ) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[LEVELS_EXTENSION]);
    let set_levels = set_levels_fn(&instance, &device);
    let shaders = Shaders::new(&device);
    let pass = device.render_pass(3);
    let pass1 = device.render_pass(1);
    let layout = device.layout(&[]);
    let tes_only = device
        .pipeline(&shaders.tes_only(), layout, pass1, 1)
        .expect("TES-only pipeline");
    let frag_color = device
        .pipeline(&shaders.frag_color(), layout, pass, 3)
        .expect("gl_FragColor pipeline");
    assert_eq!(counters().pipelines, 2);
    let (pool, cb) = device.begin_commands();
    unsafe {
        device
            .device
            .cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, tes_only);
        set_levels(cb, [2.0, 3.0, 4.0, 1.0].as_ptr(), [3.0, 1.0].as_ptr());
        device.device.end_command_buffer(cb).unwrap();
        device.device.destroy_command_pool(pool, None);
    }
    // The bind reached the driver: the draw writes every attachment.
    for (i, image) in device
        .render(&instance, frag_color, pass, 3, 3)
        .iter()
        .enumerate()
    {
        assert_eq!(image, &frag_color_pixels(), "attachment {i}");
    }
    device.destroy_objects(&[tes_only, frag_color], &[layout], &[pass, pass1], &[]);
    shaders.destroy(&device);
    device.destroy();
    instance.assert_clean();
}

/// The driver created the instance or device, recording it panics: the layer returns the
/// error (and destroys the device), rather than a handle every later call would fail on.
fn panic_while_recording_an_instance_or_device() {
    std::env::set_var("VK_GLSEM_DEBUG_INJECT_PANIC", "vkCreateInstance/record");
    let entry = entry();
    let layers = [GLSEM.as_ptr()];
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers);
    // SAFETY: a valid create info.
    let created = unsafe { entry.create_instance(&info, None) };
    assert_eq!(
        created.err(),
        Some(vk::Result::ERROR_INITIALIZATION_FAILED),
        "an instance the layer could not record is failed"
    );

    std::env::set_var("VK_GLSEM_DEBUG_INJECT_PANIC", "vkCreateDevice/record");
    let instance = Instance::new(GLSEM_ONLY);
    let priorities = [1.0];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&priorities)];
    let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
    // SAFETY: a valid create info.
    let created = unsafe {
        instance
            .instance
            .create_device(instance.physical, &info, None)
    };
    assert_eq!(
        created.err(),
        Some(vk::Result::ERROR_INITIALIZATION_FAILED),
        "a device the layer could not record is failed"
    );
}

#[test]
fn injected_panics_on_the_rewrite_and_bind_paths_stay_inside() {
    panic_in_the_planner();
    panic_while_recording();
    panic_in_command_recording();
    panic_while_recording_an_instance_or_device();
    assert_eq!(counters().devices, 0);
}

//! Shared by the integration tests that load the layer (`mod support;` in `tests/layer_*.rs`
//! and `tests/reliability_ffi.rs`, `#[path = "../support/mod.rs"]` in `tests/layer*/` and
//! `tests/reliability/`): load the layer built next to the test binary through the system
//! Vulkan loader, with `VK_LAYER_KHRONOS_validation` enabled below it, and fail on validation
//! messages. `spirv_tools` and `vulkan` are its submodules here, and are included alone (by
//! `#[path]`) where a crate needs only them.
#![allow(dead_code)]

pub mod features;
pub mod spirv_tools;
pub mod vulkan;

// Not every test binary names each of these.
#[allow(unused_imports)]
pub use features::{device_has, needs, on_lavapipe, part_needs, Feature};
#[allow(unused_imports)]
pub use vulkan::{DebugCounters, GLSEM, GL_STATE_EXTENSION};

use ash::vk::{self, Handle};
use std::ffi::{c_void, CStr};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

pub const VALIDATION: &CStr = c"VK_LAYER_KHRONOS_validation";
pub const LEVELS_EXTENSION: &CStr = c"VK_GLSEM_tessellation_default_levels";

/// `target/<profile>/`: the test binary lives in its `deps/`.
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// The layer library of this build: `cargo test` refreshes `target/<profile>/deps/`, while
/// `cargo build` refreshes `target/<profile>/`; take the newer.
pub fn layer_library() -> PathBuf {
    let dir = target_dir();
    [
        dir.join("deps/libVkLayer_glsem.so"),
        dir.join("libVkLayer_glsem.so"),
    ]
    .into_iter()
    .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
    .max()
    .map(|(_, p)| p)
    .expect("libVkLayer_glsem.so not built")
}

pub fn repo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Writes a manifest for the built layer and points `VK_ADD_LAYER_PATH` at it, once per
/// process, before the loader is loaded.
fn setup() {
    static SETUP: OnceLock<()> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("glsem-test-{}", std::process::id()));
        vulkan::install_layer(&dir, &layer_library());
    });
}

/// The layer library, kept loaded for the whole process so that its counters survive the
/// loader unloading it at vkDestroyInstance (the loader's dlopen of the same file gets this
/// same copy).
fn library() -> &'static libloading::Library {
    static LIBRARY: OnceLock<libloading::Library> = OnceLock::new();
    // SAFETY: our own cdylib, without initialisers that have preconditions.
    LIBRARY.get_or_init(|| unsafe { libloading::Library::new(layer_library()) }.unwrap())
}

/// The layer's counters (`glsemGetDebugCounters`).
pub fn counters() -> DebugCounters {
    vulkan::layer_counters(library())
}

/// Runs the test `name` of this test binary in a child process, with `env` set and the log
/// level at `warn`, and returns its stderr: where the layer's `glsem:` lines go. Fails when
/// the child's test fails.
pub fn stderr_of_test(name: &str, env: &[(&str, &str)]) -> String {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture"])
        .env("VK_GLSEM_LOG_LEVEL", "warn")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{name} failed in the child:\n{stderr}"
    );
    stderr
}

/// Serialises tests that read the layer's process-wide counters. In a test binary where one
/// test compares counters before and after, every test that creates layer objects holds
/// this, or a concurrent test's pipeline shows up in the other's difference.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn entry() -> ash::Entry {
    setup();
    library();
    vulkan::load_loader()
}

type Messages = Mutex<Vec<String>>;

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    let messages = &*(user as *const Messages);
    let text = CStr::from_ptr((*data).p_message)
        .to_string_lossy()
        .into_owned();
    messages
        .lock()
        .unwrap()
        .push(format!("{severity:?}: {text}"));
    vk::FALSE
}

/// An instance with the chosen layers and a messenger collecting validation warnings and
/// errors.
pub struct Instance {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    debug: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    messages: Box<Messages>,
}

#[derive(Clone, Copy)]
pub struct Layers {
    pub glsem: bool,
    pub validation: bool,
}

pub const WITH_VALIDATION: Layers = Layers {
    glsem: true,
    validation: true,
};
pub const GLSEM_ONLY: Layers = Layers {
    glsem: true,
    validation: false,
};
pub const VALIDATION_ONLY: Layers = Layers {
    glsem: false,
    validation: true,
};
pub const NO_LAYERS: Layers = Layers {
    glsem: false,
    validation: false,
};

impl Instance {
    pub fn new(layers: Layers) -> Instance {
        Instance::with_entry(entry(), layers)
    }

    pub fn with_entry(entry: ash::Entry, layers: Layers) -> Instance {
        Instance::with_settings(entry, layers, &[])
    }

    /// [`Instance::with_entry`] with `VkLayerSettingsCreateInfoEXT` settings chained.
    pub fn with_settings(
        entry: ash::Entry,
        layers: Layers,
        settings: &[vk::LayerSettingEXT<'_>],
    ) -> Instance {
        let mut names = Vec::new();
        // glsem first: the validation layer below it checks what glsem sends down.
        if layers.glsem {
            names.push(GLSEM.as_ptr());
        }
        if layers.validation {
            names.push(VALIDATION.as_ptr());
        }
        let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let messages: Box<Messages> = Box::default();
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
            )
            .pfn_user_callback(Some(on_message))
            .user_data(&*messages as *const Messages as *mut c_void);
        let mut settings_info = vk::LayerSettingsCreateInfoEXT::default().settings(settings);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&names)
            .enabled_extension_names(&extensions)
            .push_next(&mut messenger_info);
        if !settings.is_empty() {
            info = info.push_next(&mut settings_info);
        }
        // SAFETY: valid create info.
        let instance = unsafe { entry.create_instance(&info, None) }.expect("vkCreateInstance");
        let debug = ash::ext::debug_utils::Instance::new(&entry, &instance);
        let messenger =
            unsafe { debug.create_debug_utils_messenger(&messenger_info, None) }.unwrap();
        let physical = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
        Instance {
            entry,
            instance,
            physical,
            debug,
            messenger,
            messages,
        }
    }

    pub fn messages(&self) -> Vec<String> {
        self.messages.lock().unwrap().clone()
    }

    /// `maxPushConstantsSize` of the device these tests use.
    pub fn max_push_constants_size(&self) -> u32 {
        let properties = unsafe { self.instance.get_physical_device_properties(self.physical) };
        properties.limits.max_push_constants_size
    }

    /// Whether the device these tests use is Mesa's lavapipe (some figures are its own).
    pub fn is_lavapipe(&self) -> bool {
        let properties = unsafe { self.instance.get_physical_device_properties(self.physical) };
        properties
            .device_name_as_c_str()
            .is_ok_and(|name| name.to_bytes().starts_with(b"llvmpipe"))
    }

    pub fn assert_clean(&self) {
        let messages = self.messages();
        assert!(
            messages.is_empty(),
            "validation messages:\n{}",
            messages.join("\n")
        );
    }

    /// A device with tessellation and geometry shaders where it has them (a test needing
    /// them checks [`needs`]), one graphics queue, and `extensions`.
    pub fn device(&self, extensions: &[&CStr]) -> Device {
        self.device_with(extensions, &mut [])
    }

    /// [`Instance::device`] with more feature structs chained to `VkDeviceCreateInfo`.
    pub fn device_with(
        &self,
        extensions: &[&CStr],
        features: &mut [&mut dyn vk::ExtendsDeviceCreateInfo],
    ) -> Device {
        let core = vk::PhysicalDeviceFeatures::default()
            .tessellation_shader(device_has(Feature::TessellationShader))
            .geometry_shader(device_has(Feature::GeometryShader));
        self.device_with_core(extensions, core, features)
    }

    /// [`Instance::device_with`] with the core features `core`.
    pub fn device_with_core(
        &self,
        extensions: &[&CStr],
        core: vk::PhysicalDeviceFeatures,
        features: &mut [&mut dyn vk::ExtendsDeviceCreateInfo],
    ) -> Device {
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let names: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&core)
            .enabled_extension_names(&names);
        for f in features.iter_mut() {
            info = info.push_next(&mut **f);
        }
        // SAFETY: valid create info.
        let device = unsafe { self.instance.create_device(self.physical, &info, None) }
            .expect("vkCreateDevice");
        Device { device }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        unsafe {
            self.debug
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}

pub struct Device {
    pub device: ash::Device,
}

/// Destroyed when dropped, so that a failing test unwinds through a valid teardown: an
/// instance destroyed while its device lives makes NVIDIA's driver fault when the loader
/// unloads it, and that segfault would hide the assertion's message.
impl Drop for Device {
    fn drop(&mut self) {
        unsafe { self.device.destroy_device(None) }
    }
}

impl Device {
    pub fn destroy(self) {
        drop(self)
    }

    pub fn module(&self, words: &[u32]) -> vk::ShaderModule {
        let info = vk::ShaderModuleCreateInfo::default().code(words);
        unsafe { self.device.create_shader_module(&info, None) }.expect("vkCreateShaderModule")
    }

    /// A render pass with one subpass writing `attachments` RGBA8 colour attachments.
    pub fn render_pass(&self, attachments: usize) -> vk::RenderPass {
        vulkan::color_render_pass(
            &self.device,
            attachments as u32,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        )
    }

    pub fn layout(&self, ranges: &[vk::PushConstantRange]) -> vk::PipelineLayout {
        let info = vk::PipelineLayoutCreateInfo::default().push_constant_ranges(ranges);
        unsafe { self.device.create_pipeline_layout(&info, None) }.expect("vkCreatePipelineLayout")
    }

    /// A graphics pipeline from `(stage, module)` pairs (entry "main"); see [`Desc`].
    /// Returns the driver's result.
    pub fn pipeline(
        &self,
        stages: &[(vk::ShaderStageFlags, vk::ShaderModule)],
        layout: vk::PipelineLayout,
        render_pass: vk::RenderPass,
        attachments: usize,
    ) -> Result<vk::Pipeline, vk::Result> {
        let desc = Desc::new(stages, layout, render_pass, attachments);
        match self.create_pipelines(vk::PipelineCache::null(), &[desc], None) {
            (vk::Result::SUCCESS, p) => Ok(p[0]),
            (e, _) => Err(e),
        }
    }

    /// One `vkCreateGraphicsPipelines` call for every desc; the result and the handles.
    /// Checks the array rule: every failed entry is `VK_NULL_HANDLE`, and a successful call
    /// leaves none.
    pub fn create_pipelines(
        &self,
        cache: vk::PipelineCache,
        descs: &[Desc<'_>],
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> (vk::Result, Vec<vk::Pipeline>) {
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assemblies: Vec<_> = descs
            .iter()
            .map(|d| {
                let mut assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
                    .topology(d.topology)
                    .primitive_restart_enable(d.primitive_restart);
                assembly.p_next = d.assembly_next;
                assembly
            })
            .collect();
        let patches = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::PATCH_LIST);
        let tessellation =
            vk::PipelineTessellationStateCreateInfo::default().patch_control_points(3);
        let size = RENDER_SIZE as f32;
        let viewports = [vk::Viewport {
            width: size,
            height: size,
            max_depth: 1.0,
            ..Default::default()
        }];
        let scissors = [vk::Rect2D {
            extent: vk::Extent2D {
                width: RENDER_SIZE,
                height: RENDER_SIZE,
            },
            ..Default::default()
        }];
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewports(&viewports)
            .scissors(&scissors);
        let own_viewports: Vec<_> = descs.iter().map(|d| d.viewport.map(|v| [v])).collect();
        let own_viewport: Vec<_> = own_viewports
            .iter()
            .map(|v| {
                v.as_ref().map(|v| {
                    vk::PipelineViewportStateCreateInfo::default()
                        .viewports(v)
                        .scissors(&scissors)
                })
            })
            .collect();
        let rasters: Vec<_> = descs
            .iter()
            .map(|d| {
                vk::PipelineRasterizationStateCreateInfo::default()
                    .polygon_mode(d.polygon_mode)
                    .cull_mode(d.cull_mode)
                    .line_width(1.0)
            })
            .collect();
        // Ignored without a depth attachment; a fragment-shader library for dynamic rendering
        // needs one all the same (VUID-VkGraphicsPipelineCreateInfo-renderPass-06590).
        let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default();
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend_attachments = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA); 8];
        let blends: Vec<_> = descs
            .iter()
            .map(|d| {
                vk::PipelineColorBlendStateCreateInfo::default()
                    .attachments(&blend_attachments[..d.attachments])
            })
            .collect();
        let dynamic: Vec<_> = descs
            .iter()
            .map(|d| vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&d.dynamic))
            .collect();
        let infos: Vec<_> = descs
            .iter()
            .zip(&blends)
            .zip(&assemblies)
            .zip(&dynamic)
            .zip(&own_viewport)
            .zip(&rasters)
            .map(
                |(((((d, blend), assembly), dynamic), own_viewport), raster)| {
                    let tessellated = d
                        .stages
                        .iter()
                        .any(|s| s.stage == vk::ShaderStageFlags::TESSELLATION_EVALUATION);
                    let mut info = vk::GraphicsPipelineCreateInfo::default()
                        .flags(d.flags)
                        .stages(&d.stages)
                        .vertex_input_state(&vertex_input)
                        .input_assembly_state(if tessellated { &patches } else { assembly })
                        .viewport_state(own_viewport.as_ref().unwrap_or(&viewport))
                        .rasterization_state(raster)
                        .multisample_state(d.multisample.as_ref().unwrap_or(&multisample))
                        .depth_stencil_state(&depth_stencil)
                        .color_blend_state(blend)
                        .layout(d.layout)
                        .render_pass(d.render_pass)
                        .base_pipeline_index(-1);
                    if tessellated {
                        info = info.tessellation_state(&tessellation);
                    }
                    if !d.dynamic.is_empty() {
                        info = info.dynamic_state(dynamic);
                    }
                    info.p_next = d.p_next;
                    info
                },
            )
            .collect();
        let mut pipelines = vec![vk::Pipeline::from_raw(0xdead); infos.len()];
        let result = unsafe {
            (self.device.fp_v1_0().create_graphics_pipelines)(
                self.device.handle(),
                cache,
                infos.len() as u32,
                infos.as_ptr(),
                allocator.map_or(std::ptr::null(), |a| a as *const _),
                pipelines.as_mut_ptr(),
            )
        };
        for (i, p) in pipelines.iter().enumerate() {
            assert_ne!(p.as_raw(), 0xdead, "pPipelines[{i}] not written ({result})");
            if result == vk::Result::SUCCESS {
                assert_ne!(*p, vk::Pipeline::null(), "pPipelines[{i}] NULL on success");
            }
        }
        (result, pipelines)
    }

    /// A primary command buffer from a new pool, in the recording state.
    pub fn begin_commands(&self) -> (vk::CommandPool, vk::CommandBuffer) {
        let (pool, cb) = vulkan::command_pool(&self.device, 0);
        unsafe {
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
        }
        .unwrap();
        (pool, cb)
    }

    /// Ends `cb`, submits it to queue 0 and waits for it. Safe to call from several threads:
    /// queues are externally synchronized, so the submission holds a lock.
    pub fn submit_and_wait(&self, cb: vk::CommandBuffer) {
        static QUEUE: Mutex<()> = Mutex::new(());
        let d = &self.device;
        unsafe {
            d.end_command_buffer(cb).unwrap();
            let _queue = QUEUE.lock().unwrap_or_else(|e| e.into_inner());
            let queue = d.get_device_queue(0, 0);
            let cbs = [cb];
            let submit = vk::SubmitInfo::default().command_buffers(&cbs);
            d.queue_submit(queue, &[submit], vk::Fence::null()).unwrap();
            d.queue_wait_idle(queue).unwrap();
        }
    }

    /// Destroys objects a test created, pipelines first.
    pub fn destroy_objects(
        &self,
        pipelines: &[vk::Pipeline],
        layouts: &[vk::PipelineLayout],
        render_passes: &[vk::RenderPass],
        modules: &[vk::ShaderModule],
    ) {
        let d = &self.device;
        unsafe {
            for &pipeline in pipelines {
                d.destroy_pipeline(pipeline, None);
            }
            for &layout in layouts {
                d.destroy_pipeline_layout(layout, None);
            }
            for &pass in render_passes {
                d.destroy_render_pass(pass, None);
            }
            for &module in modules {
                d.destroy_shader_module(module, None);
            }
        }
    }
}

/// One graphics pipeline for [`Device::create_pipelines`]: no vertex input, a viewport
/// covering `RENDER_SIZE`², `attachments` colour attachments written without blending,
/// triangle patches of 3 control points when a tessellation stage is present.
pub struct Desc<'a> {
    pub stages: Vec<vk::PipelineShaderStageCreateInfo<'a>>,
    pub layout: vk::PipelineLayout,
    pub render_pass: vk::RenderPass,
    pub attachments: usize,
    pub flags: vk::PipelineCreateFlags,
    /// `VkGraphicsPipelineCreateInfo::pNext`.
    pub p_next: *const c_void,
    /// The input topology when no tessellation stage makes it a patch list.
    pub topology: vk::PrimitiveTopology,
    /// Dynamic state (`pDynamicState` is NULL when empty).
    pub dynamic: Vec<vk::DynamicState>,
    /// `pMultisampleState` other than single-sampled without alpha to coverage.
    pub multisample: Option<vk::PipelineMultisampleStateCreateInfo<'static>>,
    /// A static viewport other than the whole target with y down.
    pub viewport: Option<vk::Viewport>,
    /// `VkPipelineInputAssemblyStateCreateInfo::pNext` and `primitiveRestartEnable`.
    pub assembly_next: *const c_void,
    pub primitive_restart: bool,
    pub polygon_mode: vk::PolygonMode,
    pub cull_mode: vk::CullModeFlags,
}

impl Desc<'_> {
    pub fn new(
        stages: &[(vk::ShaderStageFlags, vk::ShaderModule)],
        layout: vk::PipelineLayout,
        render_pass: vk::RenderPass,
        attachments: usize,
    ) -> Desc<'static> {
        Desc {
            stages: stages.iter().map(|&(s, m)| stage(s, m)).collect(),
            layout,
            render_pass,
            attachments,
            flags: vk::PipelineCreateFlags::empty(),
            p_next: std::ptr::null(),
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            dynamic: Vec::new(),
            multisample: None,
            viewport: None,
            assembly_next: std::ptr::null(),
            primitive_restart: false,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
        }
    }

    /// A vertex and a fragment shader drawing to one colour attachment of `render_pass`.
    pub fn vertex_fragment(
        vs: vk::ShaderModule,
        fs: vk::ShaderModule,
        layout: vk::PipelineLayout,
        render_pass: vk::RenderPass,
    ) -> Desc<'static> {
        Desc::new(
            &[
                (vk::ShaderStageFlags::VERTEX, vs),
                (vk::ShaderStageFlags::FRAGMENT, fs),
            ],
            layout,
            render_pass,
            1,
        )
    }

    pub fn topology(mut self, topology: vk::PrimitiveTopology) -> Self {
        self.topology = topology;
        self
    }

    pub fn flags(mut self, flags: vk::PipelineCreateFlags) -> Self {
        self.flags = flags;
        self
    }
}

/// A stage running `main` of `module`.
pub fn stage(
    stage: vk::ShaderStageFlags,
    module: vk::ShaderModule,
) -> vk::PipelineShaderStageCreateInfo<'static> {
    vk::PipelineShaderStageCreateInfo::default()
        .stage(stage)
        .module(module)
        .name(c"main")
}

/// Compiles `tests/glsl/<name>` with glslangValidator (stage from the file extension).
pub fn glsl(name: &str) -> Vec<u32> {
    glsl_with(name, &[])
}

/// GLSL written for GL (`#version 1x0`): `-R` lets glslang accept it for Vulkan.
pub fn glsl_for_gl(name: &str) -> Vec<u32> {
    glsl_with(name, &["-R"])
}

fn glsl_with(name: &str, flags: &[&str]) -> Vec<u32> {
    spirv_tools::compile(&repo_dir().join("tests/glsl").join(name), flags)
}

/// Side of the square images `Device::render` draws into.
pub const RENDER_SIZE: u32 = 4;

impl Device {
    /// Draws `vertices` vertices with `pipeline` into `attachments` RGBA8 images of
    /// `RENDER_SIZE`² cleared to zero (`pass` from [`Device::render_pass`]; the pipeline's
    /// viewport must cover them) and returns each image's bytes.
    pub fn render(
        &self,
        instance: &Instance,
        pipeline: vk::Pipeline,
        pass: vk::RenderPass,
        attachments: usize,
        vertices: u32,
    ) -> Vec<Vec<u8>> {
        self.render_with(instance, pipeline, pass, attachments, vertices, |_| {})
    }

    /// [`Device::render`], calling `record` between the bind and the draw. Safe to call
    /// from several threads (the queue is locked while it works).
    pub fn render_with(
        &self,
        instance: &Instance,
        pipeline: vk::Pipeline,
        pass: vk::RenderPass,
        attachments: usize,
        vertices: u32,
        record: impl FnOnce(vk::CommandBuffer),
    ) -> Vec<Vec<u8>> {
        self.render_after(
            instance,
            pipeline,
            pass,
            (attachments, vertices),
            |_| {},
            record,
        )
    }

    /// [`Device::render_with`], calling `before` in the command buffer before the render
    /// pass begins.
    pub fn render_after(
        &self,
        instance: &Instance,
        pipeline: vk::Pipeline,
        pass: vk::RenderPass,
        (attachments, vertices): (usize, u32),
        before: impl FnOnce(vk::CommandBuffer),
        record: impl FnOnce(vk::CommandBuffer),
    ) -> Vec<Vec<u8>> {
        let d = &self.device;
        let targets = ColorTargets::new(self, instance, attachments);
        let readback = targets.readback_buffer(self, instance);
        let fb_info = vk::FramebufferCreateInfo::default()
            .render_pass(pass)
            .attachments(&targets.views)
            .width(RENDER_SIZE)
            .height(RENDER_SIZE)
            .layers(1);
        let framebuffer = unsafe { d.create_framebuffer(&fb_info, None) }.unwrap();
        let (pool, cb) = self.begin_commands();
        let clears = vec![vk::ClearValue::default(); attachments];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(framebuffer)
            .render_area(RENDER_AREA)
            .clear_values(&clears);
        before(cb);
        unsafe {
            d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            record(cb);
            d.cmd_draw(cb, vertices, 1, 0, 0);
            d.cmd_end_render_pass(cb);
        }
        // The render pass leaves its attachments in TRANSFER_SRC_OPTIMAL.
        targets.record_copies(self, cb, &readback);
        self.submit_and_wait(cb);
        let pixels = targets.split(&self.read(&readback));
        unsafe {
            d.destroy_command_pool(pool, None);
            d.destroy_framebuffer(framebuffer, None);
        }
        self.destroy_buffer(readback);
        targets.destroy(self);
        pixels
    }
}

/// The whole `RENDER_SIZE`² target.
const RENDER_AREA: vk::Rect2D = vk::Rect2D {
    offset: vk::Offset2D { x: 0, y: 0 },
    extent: vk::Extent2D {
        width: RENDER_SIZE,
        height: RENDER_SIZE,
    },
};

/// The whole of a single-level, single-layer colour image.
const COLOR_RANGE: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

/// The bytes of one RGBA8 `RENDER_SIZE`² image.
const IMAGE_BYTES: u64 = (RENDER_SIZE * RENDER_SIZE * 4) as u64;

/// RGBA8 `RENDER_SIZE`² colour attachments that can be copied from, with their views.
struct ColorTargets {
    images: Vec<vk::Image>,
    views: Vec<vk::ImageView>,
    memories: Vec<vk::DeviceMemory>,
}

impl ColorTargets {
    fn new(device: &Device, instance: &Instance, count: usize) -> ColorTargets {
        let d = &device.device;
        let mut targets = ColorTargets {
            images: Vec::new(),
            views: Vec::new(),
            memories: Vec::new(),
        };
        for _ in 0..count {
            let info = vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(vk::Format::R8G8B8A8_UNORM)
                .extent(RENDER_EXTENT)
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC);
            let image = unsafe { d.create_image(&info, None) }.unwrap();
            let req = unsafe { d.get_image_memory_requirements(image) };
            let alloc = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(device.memory_type(
                    instance,
                    req.memory_type_bits,
                    vk::MemoryPropertyFlags::DEVICE_LOCAL,
                ));
            let memory = unsafe { d.allocate_memory(&alloc, None) }.unwrap();
            unsafe { d.bind_image_memory(image, memory, 0) }.unwrap();
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(vk::Format::R8G8B8A8_UNORM)
                .subresource_range(COLOR_RANGE);
            targets
                .views
                .push(unsafe { d.create_image_view(&view_info, None) }.unwrap());
            targets.images.push(image);
            targets.memories.push(memory);
        }
        targets
    }

    /// A host buffer for the bytes of every image, one after the other.
    fn readback_buffer(&self, device: &Device, instance: &Instance) -> HostBuffer {
        device.host_buffer(
            instance,
            IMAGE_BYTES * self.images.len() as u64,
            vk::BufferUsageFlags::TRANSFER_DST,
        )
    }

    /// Records copies of every image (in TRANSFER_SRC_OPTIMAL) into `readback`, then makes
    /// them visible to the host.
    fn record_copies(&self, device: &Device, cb: vk::CommandBuffer, readback: &HostBuffer) {
        let d = &device.device;
        for (i, &image) in self.images.iter().enumerate() {
            let region = vk::BufferImageCopy::default()
                .buffer_offset(IMAGE_BYTES * i as u64)
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    layer_count: 1,
                    ..Default::default()
                })
                .image_extent(RENDER_EXTENT);
            unsafe {
                d.cmd_copy_image_to_buffer(
                    cb,
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    readback.buffer,
                    &[region],
                )
            };
        }
        device.host_read_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::AccessFlags::TRANSFER_WRITE,
        );
    }

    /// Records the layout transitions of every image from `layouts.start` to `layouts.end`
    /// (ordering the accesses each layout is used for here), from `stages.start` to
    /// `stages.end`.
    fn record_transitions(
        &self,
        device: &Device,
        cb: vk::CommandBuffer,
        stages: std::ops::Range<vk::PipelineStageFlags>,
        layouts: std::ops::Range<vk::ImageLayout>,
    ) {
        let access = |layout| match layout {
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL => vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL => vk::AccessFlags::TRANSFER_READ,
            _ => vk::AccessFlags::empty(),
        };
        let barriers: Vec<_> = self
            .images
            .iter()
            .map(|&image| {
                vk::ImageMemoryBarrier::default()
                    .src_access_mask(access(layouts.start))
                    .dst_access_mask(access(layouts.end))
                    .old_layout(layouts.start)
                    .new_layout(layouts.end)
                    .image(image)
                    .subresource_range(COLOR_RANGE)
            })
            .collect();
        unsafe {
            device.device.cmd_pipeline_barrier(
                cb,
                stages.start,
                stages.end,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &barriers,
            )
        };
    }

    /// The readback's bytes, one `Vec` per image.
    fn split(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        bytes
            .chunks(IMAGE_BYTES as usize)
            .map(<[u8]>::to_vec)
            .collect()
    }

    fn destroy(self, device: &Device) {
        let d = &device.device;
        unsafe {
            for ((image, view), memory) in
                self.images.into_iter().zip(self.views).zip(self.memories)
            {
                d.destroy_image_view(view, None);
                d.destroy_image(image, None);
                d.free_memory(memory, None);
            }
        }
    }
}

/// The extent of the images `Device::render` draws into.
const RENDER_EXTENT: vk::Extent3D = vk::Extent3D {
    width: RENDER_SIZE,
    height: RENDER_SIZE,
    depth: 1,
};

/// `vkCmdSetTessellationDefaultLevelsGLSEM` of a device that enabled the extension.
pub type SetLevels = unsafe extern "system" fn(vk::CommandBuffer, *const f32, *const f32);

pub fn set_levels_fn(instance: &Instance, device: &Device) -> SetLevels {
    let name = c"vkCmdSetTessellationDefaultLevelsGLSEM";
    let f = unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), name.as_ptr())
    }
    .expect("vkCmdSetTessellationDefaultLevelsGLSEM");
    // SAFETY: the layer returns a function of this type (include/vk_glsem.h).
    unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetLevels>(f) }
}

/// `VkAllocationCallbacks` that count calls and live blocks, and can be told to fail.
#[derive(Default)]
pub struct CountingAllocator {
    pub allocations: std::sync::atomic::AtomicUsize,
    pub frees: std::sync::atomic::AtomicUsize,
    pub live: std::sync::atomic::AtomicIsize,
    /// Every allocation returns NULL while set (VK_ERROR_OUT_OF_HOST_MEMORY).
    pub fail: std::sync::atomic::AtomicBool,
}

/// The block's layout and the offset of the pointer handed out, stored just in front of
/// that pointer so that `free` and `realloc` can find the block.
#[derive(Clone, Copy)]
struct BlockHeader {
    layout: std::alloc::Layout,
    offset: usize,
}

/// The least offset of a handed-out pointer: room for the header, 16-byte aligned.
const MIN_OFFSET: usize = 64;

impl CountingAllocator {
    pub fn callbacks(&self) -> vk::AllocationCallbacks<'_> {
        vk::AllocationCallbacks::default()
            .user_data(self as *const Self as *mut c_void)
            .pfn_allocation(Some(Self::allocate))
            .pfn_reallocation(Some(Self::reallocate))
            .pfn_free(Some(Self::free))
    }

    pub fn allocations(&self) -> usize {
        self.allocations.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn live(&self) -> isize {
        self.live.load(std::sync::atomic::Ordering::SeqCst)
    }

    unsafe fn header(ptr: *mut c_void) -> BlockHeader {
        ptr.cast::<BlockHeader>().sub(1).read_unaligned()
    }

    unsafe extern "system" fn allocate(
        user: *mut c_void,
        size: usize,
        align: usize,
        _scope: vk::SystemAllocationScope,
    ) -> *mut c_void {
        use std::sync::atomic::Ordering::SeqCst;
        let this = &*(user as *const Self);
        if this.fail.load(SeqCst) || size == 0 || !align.is_power_of_two() {
            return std::ptr::null_mut();
        }
        // Drivers ask for any power-of-two alignment (NVIDIA: more than 64 bytes).
        let offset = MIN_OFFSET.max(align);
        let layout = std::alloc::Layout::from_size_align(size + offset, offset).unwrap();
        let base = std::alloc::alloc(layout);
        if base.is_null() {
            return std::ptr::null_mut();
        }
        let ptr = base.add(offset);
        ptr.cast::<BlockHeader>()
            .sub(1)
            .write_unaligned(BlockHeader { layout, offset });
        this.allocations.fetch_add(1, SeqCst);
        this.live.fetch_add(1, SeqCst);
        ptr.cast()
    }

    unsafe extern "system" fn reallocate(
        user: *mut c_void,
        original: *mut c_void,
        size: usize,
        align: usize,
        scope: vk::SystemAllocationScope,
    ) -> *mut c_void {
        if original.is_null() {
            return Self::allocate(user, size, align, scope);
        }
        if size == 0 {
            Self::free(user, original);
            return std::ptr::null_mut();
        }
        let new = Self::allocate(user, size, align, scope);
        if !new.is_null() {
            let header = Self::header(original);
            let old_size = header.layout.size() - header.offset;
            std::ptr::copy_nonoverlapping(original.cast::<u8>(), new.cast(), old_size.min(size));
            Self::free(user, original);
        }
        new
    }

    unsafe extern "system" fn free(user: *mut c_void, ptr: *mut c_void) {
        use std::sync::atomic::Ordering::SeqCst;
        if ptr.is_null() {
            return;
        }
        let this = &*(user as *const Self);
        let header = Self::header(ptr);
        std::alloc::dealloc(ptr.cast::<u8>().sub(header.offset), header.layout);
        this.frees.fetch_add(1, SeqCst);
        this.live.fetch_sub(1, SeqCst);
    }
}

/// A device-level command through `vkGetDeviceProcAddr`, cast to its PFN type `F`.
pub fn device_fn<F: Copy>(instance: &Instance, device: &Device, name: &CStr) -> F {
    let f = unsafe {
        instance
            .instance
            .get_device_proc_addr(device.device.handle(), name.as_ptr())
    }
    .unwrap_or_else(|| panic!("{name:?} is NULL"));
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of_val(&f));
    // SAFETY: F is the PFN type of `name` (the caller's word).
    unsafe { std::mem::transmute_copy::<unsafe extern "system" fn(), F>(&f) }
}

/// A host-visible, coherent buffer of `size` bytes, zeroed.
pub struct HostBuffer {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub size: u64,
}

impl Device {
    fn memory_type(&self, instance: &Instance, bits: u32, flags: vk::MemoryPropertyFlags) -> u32 {
        let props = unsafe {
            instance
                .instance
                .get_physical_device_memory_properties(instance.physical)
        };
        (0..props.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && props.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .expect("memory type")
    }

    pub fn host_buffer(
        &self,
        instance: &Instance,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> HostBuffer {
        let d = &self.device;
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        let buffer = unsafe { d.create_buffer(&info, None) }.unwrap();
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let index = self.memory_type(
            instance,
            req.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        );
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(index);
        let memory = unsafe { d.allocate_memory(&alloc, None) }.unwrap();
        unsafe {
            d.bind_buffer_memory(buffer, memory, 0).unwrap();
            let p = d
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap();
            std::ptr::write_bytes(p.cast::<u8>(), 0, size as usize);
            d.unmap_memory(memory);
        }
        HostBuffer {
            buffer,
            memory,
            size,
        }
    }

    pub fn read(&self, buffer: &HostBuffer) -> Vec<u8> {
        self.mapped(buffer, |bytes| bytes.to_vec())
    }

    /// Copies `data` to the start of `buffer`.
    pub fn write(&self, buffer: &HostBuffer, data: &[u8]) {
        self.mapped(buffer, |bytes| bytes[..data.len()].copy_from_slice(data));
    }

    /// Runs `f` on the bytes of `buffer`, mapped (host-coherent: nothing to flush).
    fn mapped<T>(&self, buffer: &HostBuffer, f: impl FnOnce(&mut [u8]) -> T) -> T {
        let d = &self.device;
        unsafe {
            let p = d
                .map_memory(
                    buffer.memory,
                    0,
                    vk::WHOLE_SIZE,
                    vk::MemoryMapFlags::empty(),
                )
                .unwrap();
            let out = f(std::slice::from_raw_parts_mut(
                p.cast::<u8>(),
                buffer.size as usize,
            ));
            d.unmap_memory(buffer.memory);
            out
        }
    }

    pub fn destroy_buffer(&self, buffer: HostBuffer) {
        unsafe {
            self.device.destroy_buffer(buffer.buffer, None);
            self.device.free_memory(buffer.memory, None);
        }
    }

    /// Dynamic rendering into `attachments` RGBA8 images of `RENDER_SIZE`² cleared to zero:
    /// `record` binds and draws (between vkCmdBeginRendering and vkCmdEndRendering); returns
    /// each image's bytes.
    pub fn render_dynamic(
        &self,
        instance: &Instance,
        attachments: usize,
        record: impl FnOnce(vk::CommandBuffer),
    ) -> Vec<Vec<u8>> {
        let d = &self.device;
        let targets = ColorTargets::new(self, instance, attachments);
        let readback = targets.readback_buffer(self, instance);
        let (pool, cb) = self.begin_commands();
        let color: Vec<_> = targets
            .views
            .iter()
            .map(|&view| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::CLEAR)
                    .store_op(vk::AttachmentStoreOp::STORE)
            })
            .collect();
        let rendering = vk::RenderingInfo::default()
            .render_area(RENDER_AREA)
            .layer_count(1)
            .color_attachments(&color);
        targets.record_transitions(
            self,
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE..vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::ImageLayout::UNDEFINED..vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        );
        unsafe {
            d.cmd_begin_rendering(cb, &rendering);
            record(cb);
            d.cmd_end_rendering(cb);
        }
        targets.record_transitions(
            self,
            cb,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT..vk::PipelineStageFlags::TRANSFER,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL..vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        );
        targets.record_copies(self, cb, &readback);
        self.submit_and_wait(cb);
        let pixels = targets.split(&self.read(&readback));
        unsafe { d.destroy_command_pool(pool, None) };
        self.destroy_buffer(readback);
        targets.destroy(self);
        pixels
    }

    /// A pool of `count` queries of the primitives that reach the clipper
    /// (`CLIPPING_INVOCATIONS`), reset and ready to begin.
    pub fn clipping_queries(&self, count: u32) -> vk::QueryPool {
        let d = &self.device;
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::PIPELINE_STATISTICS)
            .query_count(count)
            .pipeline_statistics(vk::QueryPipelineStatisticFlags::CLIPPING_INVOCATIONS);
        let queries = unsafe { d.create_query_pool(&info, None) }.unwrap();
        let (pool, cb) = self.begin_commands();
        unsafe { d.cmd_reset_query_pool(cb, queries, 0, count) };
        self.submit_and_wait(cb);
        unsafe { d.destroy_command_pool(pool, None) };
        queries
    }

    /// The 64-bit results of the `N` queries of `queries`, waited for; destroys the pool.
    pub fn take_query_results<const N: usize>(&self, queries: vk::QueryPool) -> [u64; N] {
        let d = &self.device;
        let mut results = [0u64; N];
        unsafe {
            d.get_query_pool_results(
                queries,
                0,
                &mut results,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .unwrap();
        unsafe { d.destroy_query_pool(queries, None) };
        results
    }

    /// Records a barrier that makes `src_access` writes of `src_stage` visible to host reads.
    pub fn host_read_barrier(
        &self,
        cb: vk::CommandBuffer,
        src_stage: vk::PipelineStageFlags,
        src_access: vk::AccessFlags,
    ) {
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(src_access)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                src_stage,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            )
        };
    }
}

pub fn has_device_extension(instance: &Instance, name: &CStr) -> bool {
    unsafe {
        instance
            .instance
            .enumerate_device_extension_properties(instance.physical)
    }
    .unwrap()
    .iter()
    .any(|e| e.extension_name_as_c_str() == Ok(name))
}

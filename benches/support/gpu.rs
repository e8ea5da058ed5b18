//! Two Vulkan devices in one process, one created through the glsem layer and one without,
//! so that every "layer on / off" figure compares the same work under the same conditions.
//!
//! The layer is found through `VK_ADD_LAYER_PATH` pointing at a manifest written for this
//! run (absolute `library_path` to the built `libVkLayer_glsem.so`), and enabled only in
//! the instance that asks for it. Validation stays off: it would dominate every figure.

use ash::vk;
use std::ffi::{c_char, CStr};
use std::path::{Path, PathBuf};

use super::vulkan::{
    color_render_pass, command_pool, install_layer, layer_counters, load_loader, DebugCounters,
    GLSEM as LAYER_NAME, GL_STATE_EXTENSION,
};

/// The Vulkan loader, and the layer library as the loader loaded it.
pub struct Vulkan {
    /// Also keeps libvulkan loaded for as long as the devices live.
    pub entry: ash::Entry,
    layer_library: PathBuf,
}

/// The do-nothing layer's name and library (`benches/empty_layer`).
pub const EMPTY_LAYER: &CStr = c"VK_LAYER_GLSEM_bench_empty";
const EMPTY_LAYER_LIBRARY: &str = "libVkLayer_glsem_bench_empty.so";

/// The empty layer's manifest, for `library`, in `dir` (which `VK_ADD_LAYER_PATH` names).
fn write_empty_layer_manifest(dir: &Path, library: &Path) {
    let manifest = format!(
        r#"{{
    "file_format_version": "1.1.0",
    "layer": {{
        "name": "{}",
        "type": "GLOBAL",
        "library_path": "{}",
        "api_version": "1.3.0",
        "implementation_version": "1",
        "description": "glsem's benchmarks: a layer that only forwards what glsem intercepts"
    }}
}}
"#,
        EMPTY_LAYER.to_str().unwrap(),
        library.display()
    );
    std::fs::write(dir.join("VkLayer_glsem_bench_empty.json"), manifest).unwrap();
}

/// Which layer an instance enables.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layer {
    None,
    Glsem,
    /// The do-nothing layer ([`EMPTY_LAYER`]).
    Empty,
}

impl Layer {
    fn name(self) -> Option<&'static CStr> {
        match self {
            Layer::None => None,
            Layer::Glsem => Some(LAYER_NAME),
            Layer::Empty => Some(EMPTY_LAYER),
        }
    }
}

impl Vulkan {
    /// Points the loader at `layer_library` and loads it. Must run before anything else
    /// touches Vulkan (the loader reads `VK_ADD_LAYER_PATH` when it first scans layers).
    pub fn load(layer_library: &Path) -> Vulkan {
        let layer_library = layer_library
            .canonicalize()
            .unwrap_or_else(|e| panic!("layer library {}: {e}", layer_library.display()));
        // The repository's manifest with an absolute `library_path` to the library measured.
        install_layer(&super::shaders::scratch_dir().join("layer"), &layer_library);
        // Only the instance that names the layer gets it: no implicit glsem, no layers
        // forced by the environment, no settings that would change what the layer does.
        // (Every `VK_GLSEM_*` variable: the environment overrides the settings a figure
        // passes in `VkLayerSettingsCreateInfoEXT`.)
        let glsem_vars = std::env::vars_os()
            .map(|(name, _)| name)
            .filter(|name| name.to_string_lossy().starts_with("VK_GLSEM_"));
        let forced = [
            "VK_INSTANCE_LAYERS".into(),
            "VK_LOADER_LAYERS_ENABLE".into(),
        ];
        for var in forced.into_iter().chain(glsem_vars.collect::<Vec<_>>()) {
            std::env::remove_var(var);
        }
        // Same driver work on both sides: no Mesa disk cache hits on either.
        std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true");

        // The do-nothing layer built beside it (benches/empty_layer), with a manifest of its
        // own in the same folder: the anchor of the `*_over_empty_*` figures.
        let empty_layer = layer_library.with_file_name(EMPTY_LAYER_LIBRARY);
        assert!(
            empty_layer.exists(),
            "{}: build it first (cargo build --release -p glsem-bench-empty-layer; \
             scripts/bench.sh does)",
            empty_layer.display()
        );
        write_empty_layer_manifest(&super::shaders::scratch_dir().join("layer"), &empty_layer);
        Vulkan {
            entry: load_loader(),
            layer_library,
        }
    }

    /// The loader alone, for a process that inherits its settings (`process_startup_ms`).
    pub fn loader_only() -> Vulkan {
        Vulkan {
            entry: load_loader(),
            layer_library: PathBuf::new(),
        }
    }

    /// The layer library opened by this process too, so that the loader's dlopen and
    /// dlclose of it only count references while the returned handle lives.
    pub fn hold_layer_library(&self) -> libloading::Library {
        // SAFETY: our own cdylib, without initialisers that have preconditions.
        unsafe { libloading::Library::new(&self.layer_library) }.unwrap()
    }

    /// The layer's process-wide counters (`glsemGetDebugCounters`), read from the library
    /// the loader loaded (this binary's own copy of the crate has separate statics).
    pub fn layer_counters(&self) -> DebugCounters {
        // dlopen of the library the loader already opened returns that same instance.
        layer_counters(&self.hold_layer_library())
    }
}

/// Panics unless the loader sees the layer (`VK_ADD_LAYER_PATH`).
pub fn check_layer(entry: &ash::Entry) {
    // SAFETY: a plain Vulkan call.
    let available = unsafe { entry.enumerate_instance_layer_properties() }.unwrap();
    assert!(
        available
            .iter()
            .any(|l| l.layer_name_as_c_str() == Ok(LAYER_NAME)),
        "the loader does not see {LAYER_NAME:?} (VK_ADD_LAYER_PATH)"
    );
}

pub struct Gpu {
    pub instance: ash::Instance,
    pub device: ash::Device,
    pub name: String,
    queue_family: u32,
    /// The layout every pipeline here uses (no descriptors, no push constants).
    pub layout: vk::PipelineLayout,
    /// `pipelineCreationCacheControl` is enabled: a pipeline created with
    /// `VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT` and no pipeline cache
    /// returns `VK_PIPELINE_COMPILE_REQUIRED` at once on lavapipe, without compiling. The
    /// layer rewrites before it calls down, so such a call is the layer's own work alone.
    pub fail_fast: bool,
}

/// The two shader stages and render pass of one pipeline.
#[derive(Clone, Copy)]
pub struct PipelineDesc {
    pub vertex: vk::ShaderModule,
    pub fragment: vk::ShaderModule,
    pub render_pass: vk::RenderPass,
    pub attachments: u32,
}

impl Gpu {
    /// An instance and device of the first Vulkan device, with `layer` or without one.
    pub fn new(vulkan: &Vulkan, layer: Layer) -> Gpu {
        if layer == Layer::Glsem {
            check_layer(&vulkan.entry);
        }
        Gpu::create(&vulkan.entry, layer)
    }

    /// The same without asking the loader first whether it sees the layer (what an
    /// application that enables the layer does: `instance_device_ratio` times this).
    pub fn create(entry: &ash::Entry, layer: Layer) -> Gpu {
        Gpu::create_with(entry, layer, &[], &[], false)
    }

    /// A device with the layer and its `VK_GLSEM_gl_state` extension, the layer's
    /// `settings` (name, value) passed in `VkLayerSettingsCreateInfoEXT`.
    pub fn with_gl_state(vulkan: &Vulkan, settings: &[(&CStr, &CStr)]) -> Gpu {
        check_layer(&vulkan.entry);
        Gpu::create_with(
            &vulkan.entry,
            Layer::Glsem,
            &[GL_STATE_EXTENSION],
            settings,
            false,
        )
    }

    /// [`Gpu::with_gl_state`] with `extendedDynamicState3LineRasterizationMode` and
    /// `extendedDynamicState3PolygonMode`, for pipelines whose line or polygon mode is
    /// dynamic state.
    pub fn with_gl_state_dynamic_lines(vulkan: &Vulkan) -> Gpu {
        check_layer(&vulkan.entry);
        Gpu::create_with(
            &vulkan.entry,
            Layer::Glsem,
            &[GL_STATE_EXTENSION, c"VK_EXT_extended_dynamic_state3"],
            &[],
            true,
        )
    }

    /// A glsem device with `VK_EXT_vertex_input_dynamic_state`, for pipelines whose vertex
    /// input is dynamic state.
    pub fn with_dynamic_vertex_input(vulkan: &Vulkan) -> Gpu {
        check_layer(&vulkan.entry);
        Gpu::create_with(
            &vulkan.entry,
            Layer::Glsem,
            &[c"VK_EXT_vertex_input_dynamic_state"],
            &[],
            false,
        )
    }

    fn create_with(
        entry: &ash::Entry,
        layer: Layer,
        device_extensions: &[&CStr],
        settings: &[(&CStr, &CStr)],
        dynamic_line_mode: bool,
    ) -> Gpu {
        // SAFETY: plain Vulkan calls with valid create infos.
        unsafe {
            let layers: Vec<*const c_char> = layer.name().map(CStr::as_ptr).into_iter().collect();
            let app = vk::ApplicationInfo::default()
                .application_name(c"glsem-bench")
                .api_version(vk::API_VERSION_1_3);
            // STRING settings: pValues points to one `const char*` each.
            let values: Vec<*const c_char> = settings.iter().map(|(_, v)| v.as_ptr()).collect();
            let layer_settings: Vec<vk::LayerSettingEXT> = settings
                .iter()
                .zip(&values)
                .map(|((name, _), value)| vk::LayerSettingEXT {
                    p_layer_name: LAYER_NAME.as_ptr(),
                    p_setting_name: name.as_ptr(),
                    ty: vk::LayerSettingTypeEXT::STRING,
                    value_count: 1,
                    p_values: (value as *const *const c_char).cast(),
                    ..Default::default()
                })
                .collect();
            let mut settings_info =
                vk::LayerSettingsCreateInfoEXT::default().settings(&layer_settings);
            let mut instance_info = vk::InstanceCreateInfo::default()
                .application_info(&app)
                .enabled_layer_names(&layers);
            if !layer_settings.is_empty() {
                instance_info = instance_info.push_next(&mut settings_info);
            }
            let instance = entry
                .create_instance(&instance_info, None)
                .expect("vkCreateInstance");
            let physical = instance.enumerate_physical_devices().unwrap()[0];
            let properties = instance.get_physical_device_properties(physical);
            let name = properties
                .device_name_as_c_str()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let queue_family = instance
                .get_physical_device_queue_family_properties(physical)
                .iter()
                .position(|q| q.queue_flags.contains(vk::QueueFlags::GRAPHICS))
                .expect("a graphics queue") as u32;
            let mut supported13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut supported = vk::PhysicalDeviceFeatures2::default().push_next(&mut supported13);
            instance.get_physical_device_features2(physical, &mut supported);
            // The layer reserves its TCS push-constant range only with tessellationShader.
            let features = vk::PhysicalDeviceFeatures::default()
                .tessellation_shader(supported.features.tessellation_shader == vk::TRUE);
            // For VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT: see `fail_fast`.
            let fail_fast = properties.api_version >= vk::API_VERSION_1_3
                && supported13.pipeline_creation_cache_control == vk::TRUE;
            let mut features13 = vk::PhysicalDeviceVulkan13Features::default()
                .pipeline_creation_cache_control(fail_fast);
            let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
                .extended_dynamic_state3_line_rasterization_mode(true)
                .extended_dynamic_state3_polygon_mode(true);
            let mut vertex_input = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default()
                .vertex_input_dynamic_state(true);
            if dynamic_line_mode {
                features13.p_next = (&mut eds3
                    as *mut vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'_>)
                    .cast();
            }
            if device_extensions.contains(&c"VK_EXT_vertex_input_dynamic_state") {
                features13.p_next = (&mut vertex_input
                    as *mut vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT<'_>)
                    .cast();
            }
            let priorities = [1.0];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(queue_family)
                .queue_priorities(&priorities)];
            let extensions: Vec<*const c_char> =
                device_extensions.iter().map(|e| e.as_ptr()).collect();
            let device = instance
                .create_device(
                    physical,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&queues)
                        .enabled_extension_names(&extensions)
                        .enabled_features(&features)
                        .push_next(&mut features13),
                    None,
                )
                .expect("vkCreateDevice");
            let layout = device
                .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
                .unwrap();
            Gpu {
                instance,
                device,
                name,

                queue_family,
                layout,
                fail_fast,
            }
        }
    }

    pub fn module(&self, words: &[u32]) -> vk::ShaderModule {
        // SAFETY: valid SPIR-V words.
        unsafe {
            self.device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
                .expect("vkCreateShaderModule")
        }
    }

    pub fn destroy_module(&self, module: vk::ShaderModule) {
        // SAFETY: no pipeline creation uses it any more.
        unsafe { self.device.destroy_shader_module(module, None) }
    }

    /// A render pass with `count` RGBA8 colour attachments, all in its one subpass.
    /// A pipeline of the `vertex` and `fragment` words drawing to one colour attachment.
    pub fn one_attachment_desc(&self, vertex: &[u32], fragment: &[u32]) -> PipelineDesc {
        PipelineDesc {
            vertex: self.module(vertex),
            fragment: self.module(fragment),
            render_pass: self.render_pass(1),
            attachments: 1,
        }
    }

    pub fn render_pass(&self, count: u32) -> vk::RenderPass {
        color_render_pass(
            &self.device,
            count,
            vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        )
    }

    /// One graphics pipeline per call of `vkCreateGraphicsPipelines`, as most applications
    /// create them.
    pub fn pipeline(&self, desc: &PipelineDesc) -> vk::Pipeline {
        self.try_pipeline(desc, vk::PipelineCreateFlags::empty())
            .expect("vkCreateGraphicsPipelines")
    }

    /// The same with `flags`, returning the error instead of panicking.
    pub fn try_pipeline(
        &self,
        desc: &PipelineDesc,
        flags: vk::PipelineCreateFlags,
    ) -> Result<vk::Pipeline, vk::Result> {
        self.try_pipeline_with(
            desc,
            flags,
            vk::PrimitiveTopology::TRIANGLE_LIST,
            self.layout,
        )
    }

    /// The same with another topology and pipeline layout.
    pub fn try_pipeline_with(
        &self,
        desc: &PipelineDesc,
        flags: vk::PipelineCreateFlags,
        topology: vk::PrimitiveTopology,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, vk::Result> {
        self.try_pipeline_chained(desc, flags, topology, layout, std::ptr::null(), &[])
    }

    /// The same with `assembly_next` chained to the input-assembly state (GL's primitive
    /// mode, `VkPipelinePrimitiveModeCreateInfoGLSEM`) and `dynamic` state besides the
    /// viewport and scissor.
    pub fn try_pipeline_chained(
        &self,
        desc: &PipelineDesc,
        flags: vk::PipelineCreateFlags,
        topology: vk::PrimitiveTopology,
        layout: vk::PipelineLayout,
        assembly_next: *const std::ffi::c_void,
        dynamic: &[vk::DynamicState],
    ) -> Result<vk::Pipeline, vk::Result> {
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(desc.vertex)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(desc.fragment)
                .name(c"main"),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let mut input_assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(topology);
        input_assembly.p_next = assembly_next;
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let blend_attachments: Vec<_> = (0..desc.attachments)
            .map(|_| {
                vk::PipelineColorBlendAttachmentState::default()
                    .color_write_mask(vk::ColorComponentFlags::RGBA)
            })
            .collect();
        let blend =
            vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
        let dynamic_states: Vec<vk::DynamicState> =
            [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR]
                .into_iter()
                .chain(dynamic.iter().copied())
                .collect();
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .flags(flags)
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .render_pass(desc.render_pass)
            .subpass(0);
        // SAFETY: valid create info; the modules and render pass are alive.
        unsafe {
            self.device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
                .map(|p| p[0])
                .map_err(|(_, e)| e)
        }
    }

    pub fn destroy_pipeline(&self, pipeline: vk::Pipeline) {
        // SAFETY: never bound in a submitted command buffer.
        unsafe { self.device.destroy_pipeline(pipeline, None) }
    }

    pub fn destroy_render_pass(&self, render_pass: vk::RenderPass) {
        // SAFETY: no pipeline creation uses it any more.
        unsafe { self.device.destroy_render_pass(render_pass, None) }
    }

    /// A command pool (the caller destroys it) and one primary command buffer from it.
    pub fn command_pool(&self) -> (vk::CommandPool, vk::CommandBuffer) {
        command_pool(&self.device, self.queue_family)
    }

    /// Seconds per call of `call` (given its index) over `calls` calls recorded into the
    /// `(pool, buffer)` of [`Gpu::command_pool`], reset first and never submitted, after
    /// `prepare` (the binds and state the calls need).
    pub fn recorded_per_call(
        &self,
        (pool, buffer): (vk::CommandPool, vk::CommandBuffer),
        calls: usize,
        prepare: impl FnOnce(),
        mut call: impl FnMut(usize),
    ) -> f64 {
        let d = &self.device;
        // SAFETY: the pool's only command buffer, not pending (never submitted).
        unsafe {
            d.reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
                .unwrap();
            d.begin_command_buffer(buffer, &vk::CommandBufferBeginInfo::default())
                .unwrap();
        }
        prepare();
        let t = super::timing::seconds(|| (0..calls).for_each(&mut call));
        // SAFETY: the command buffer begun above.
        unsafe { d.end_command_buffer(buffer).unwrap() };
        t / calls as f64
    }

    /// The queue the command pools' command buffers are submitted to.
    pub fn queue(&self) -> vk::Queue {
        // SAFETY: the device was made with one queue of this family.
        unsafe { self.device.get_device_queue(self.queue_family, 0) }
    }

    /// A buffer of `size` bytes for `usage`, bound to memory of the first type it allows
    /// (the caller frees both).
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags) -> (vk::Buffer, vk::DeviceMemory) {
        let d = &self.device;
        // SAFETY: valid create and allocate infos; the memory is bound once.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .unwrap();
            let memory = self.memory_for(d.get_buffer_memory_requirements(buffer));
            d.bind_buffer_memory(buffer, memory, 0).unwrap();
            (buffer, memory)
        }
    }

    /// Memory for `needs`, of the first type it allows (the caller frees it).
    pub fn memory_for(&self, needs: vk::MemoryRequirements) -> vk::DeviceMemory {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(needs.size)
            .memory_type_index(needs.memory_type_bits.trailing_zeros());
        // SAFETY: a valid allocate info on this device.
        unsafe { self.device.allocate_memory(&info, None) }.unwrap()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: the benchmarks destroyed every object they created on this device.
        unsafe {
            self.device.device_wait_idle().ok();
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

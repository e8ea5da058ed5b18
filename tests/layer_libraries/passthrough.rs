//! What the layer does not rewrite reaches the driver as the application made it: compute
//! pipelines and shader-module identifiers
//! (VK_EXT_shader_module_identifier); graphics pipeline libraries
//! (VK_EXT_graphics_pipeline_library) get every semantic (tests/layer_libraries/libraries.rs), here the
//! gl_FragColor broadcast with a render pass. Each is tested where the driver has it and SKIPs with the
//! reason otherwise. And stage code given inline (`VkShaderModuleCreateInfo` in a stage's
//! `pNext`) is rewritten wherever it sits in the chain.

use crate::support::*;
use ash::vk;
use std::ffi::c_void;

type S = vk::ShaderStageFlags;

/// GL: gl_FragColor (0.25, 0.4, 0.75, 1) in UNORM8, every pixel.
fn frag_color_pixels() -> Vec<u8> {
    [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize)
}

/// Runs fill.comp over 16 invocations and returns the buffer.
fn dispatch_fill(instance: &Instance, device: &Device) -> Vec<u32> {
    const COUNT: u64 = 16;
    let module = device.module(&glsl("reliability/fill.comp"));
    let compute = StorageBufferCompute::new(device, module);
    let buffer = device.host_buffer(instance, COUNT * 4, vk::BufferUsageFlags::STORAGE_BUFFER);
    let (descriptor_pool, set) = compute.descriptor_set(device, &buffer);
    let d = &device.device;
    let (command_pool, cb) = device.begin_commands();
    unsafe {
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, compute.pipeline);
        d.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            compute.layout,
            0,
            &[set],
            &[],
        );
        d.cmd_dispatch(cb, (COUNT / 4) as u32, 1, 1);
    }
    device.host_read_barrier(
        cb,
        vk::PipelineStageFlags::COMPUTE_SHADER,
        vk::AccessFlags::SHADER_WRITE,
    );
    device.submit_and_wait(cb);
    let values = spirv_tools::words(&device.read(&buffer));
    unsafe {
        d.destroy_command_pool(command_pool, None);
        d.destroy_descriptor_pool(descriptor_pool, None);
    }
    device.destroy_buffer(buffer);
    compute.destroy(device);
    unsafe { d.destroy_shader_module(module, None) };
    values
}

/// A compute pipeline whose one descriptor is a storage buffer at set 0, binding 0.
struct StorageBufferCompute {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl StorageBufferCompute {
    fn new(device: &Device, module: vk::ShaderModule) -> StorageBufferCompute {
        let d = &device.device;
        let binding = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)
            .stage_flags(S::COMPUTE)];
        let set_layout = unsafe {
            d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&binding),
                None,
            )
        }
        .unwrap();
        let layout = unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(&[set_layout]),
                None,
            )
        }
        .unwrap();
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage(S::COMPUTE, module))
            .layout(layout);
        let pipeline =
            unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
                .unwrap()[0];
        StorageBufferCompute {
            set_layout,
            layout,
            pipeline,
        }
    }

    /// A pool (the caller destroys it) and a set from it that binds `buffer`.
    fn descriptor_set(
        &self,
        device: &Device,
        buffer: &HostBuffer,
    ) -> (vk::DescriptorPool, vk::DescriptorSet) {
        let d = &device.device;
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(1)];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        let pool = unsafe { d.create_descriptor_pool(&pool_info, None) }.unwrap();
        let set_layouts = [self.set_layout];
        let alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(pool)
            .set_layouts(&set_layouts);
        let set = unsafe { d.allocate_descriptor_sets(&alloc) }.unwrap()[0];
        let buffer_info = [vk::DescriptorBufferInfo::default()
            .buffer(buffer.buffer)
            .range(vk::WHOLE_SIZE)];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&buffer_info);
        unsafe { d.update_descriptor_sets(&[write], &[]) };
        (pool, set)
    }

    fn destroy(self, device: &Device) {
        let d = &device.device;
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

#[test]
fn compute_pipelines_pass_through() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let device = instance.device(&[]);
    let before = counters();
    let values = dispatch_fill(&instance, &device);
    let expected: Vec<u32> = (0..16).map(|i| 3 * i + 1).collect();
    assert_eq!(values, expected);
    let after = counters();
    assert_eq!(after.rewrites, before.rewrites);
    assert_eq!(after.pipelines, before.pipelines);
    device.destroy();
    instance.assert_clean();
}

/// A device with VK_EXT_graphics_pipeline_library (and its feature), and `v13`'s features.
fn library_device(
    instance: &Instance,
    v13: Option<&mut vk::PhysicalDeviceVulkan13Features<'_>>,
) -> Device {
    let mut gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
        .graphics_pipeline_library(true);
    let extensions = [
        ash::khr::pipeline_library::NAME,
        ash::ext::graphics_pipeline_library::NAME,
    ];
    match v13 {
        Some(v13) => instance.device_with(&extensions, &mut [&mut gpl, v13]),
        None => instance.device_with(&extensions, &mut [&mut gpl]),
    }
}

type Part = vk::GraphicsPipelineLibraryFlagsEXT;

/// How the gl_FragColor pipeline is put together from libraries (one holding every part
/// is invalid usage, VUID-VkGraphicsPipelineCreateInfo-flags-06608).
#[derive(Clone, Copy, Debug)]
enum Libraries {
    /// Vertex input and pre-rasterization; fragment shader and fragment output.
    Two,
    /// Vertex input and pre-rasterization; fragment shader; fragment output.
    Three,
}

/// The gl_FragColor pipeline (a render pass with 3 attachments) made of libraries, linked,
/// drawn: the images, and the rewrites the layer ran meanwhile.
fn library_frag_color(layers: Layers, split: Libraries) -> Option<(Vec<Vec<u8>>, u64)> {
    let instance = Instance::new(layers);
    if !has_device_extension(&instance, ash::ext::graphics_pipeline_library::NAME) {
        println!("SKIP: the driver has no VK_EXT_graphics_pipeline_library");
        return None;
    }
    let device = library_device(&instance, None);
    let vs = device.module(&glsl("layer/plain.vert"));
    let fs = device.module(&glsl_for_gl("layer/fragcolor.frag"));
    let pass = device.render_pass(3);
    let layout = device.layout(&[]);
    let before = counters().rewrites;
    let libraries: Vec<(Part, Vec<(S, vk::ShaderModule)>)> = match split {
        Libraries::Two => vec![
            (
                Part::VERTEX_INPUT_INTERFACE | Part::PRE_RASTERIZATION_SHADERS,
                vec![(S::VERTEX, vs)],
            ),
            (
                Part::FRAGMENT_SHADER | Part::FRAGMENT_OUTPUT_INTERFACE,
                vec![(S::FRAGMENT, fs)],
            ),
        ],
        Libraries::Three => vec![
            (
                Part::VERTEX_INPUT_INTERFACE | Part::PRE_RASTERIZATION_SHADERS,
                vec![(S::VERTEX, vs)],
            ),
            (Part::FRAGMENT_SHADER, vec![(S::FRAGMENT, fs)]),
            (Part::FRAGMENT_OUTPUT_INTERFACE, vec![]),
        ],
    };
    let parts: Vec<_> = libraries
        .iter()
        .map(|(part, _)| vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(*part))
        .collect();
    let descs: Vec<_> = libraries
        .iter()
        .zip(&parts)
        .map(|((_, stages), part)| {
            let mut desc =
                Desc::new(stages, layout, pass, 3).flags(vk::PipelineCreateFlags::LIBRARY_KHR);
            desc.p_next = part as *const _ as *const c_void;
            desc
        })
        .collect();
    let (result, libs) = device.create_pipelines(vk::PipelineCache::null(), &descs, None);
    assert_eq!(result, vk::Result::SUCCESS);
    let link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    let mut linked = Desc::new(&[], layout, pass, 3);
    linked.p_next = &link as *const _ as *const c_void;
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[linked], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let rewrites = counters().rewrites - before;
    let images = device.render(&instance, pipelines[0], pass, 3, 3);
    let all: Vec<_> = pipelines.iter().chain(&libs).copied().collect();
    device.destroy_objects(&all, &[layout], &[pass], &[vs, fs]);
    device.destroy();
    instance.assert_clean();
    Some((images, rewrites))
}

#[test]
fn graphics_pipeline_libraries_get_the_broadcast() {
    let _serial = serial();
    for split in [Libraries::Two, Libraries::Three] {
        let Some((images, rewrites)) = library_frag_color(WITH_VALIDATION, split) else {
            return;
        };
        assert_eq!(
            rewrites, 1,
            "{split:?}: the fragment shader's library is rewritten"
        );
        // GL: gl_FragColor (0.25, 0.4, 0.75, 1) in every draw buffer.
        for (i, image) in images.iter().enumerate() {
            assert_eq!(image, &frag_color_pixels(), "{split:?}, attachment {i}");
        }
    }
    // Without the layer attachment 0 gets it; the others are unwritten, their values
    // undefined in Vulkan (lavapipe's differ from run to run: nothing to assert there). No
    // validation: it rightly warns about the unwritten attachments.
    let (without, _) = library_frag_color(NO_LAYERS, Libraries::Three).unwrap();
    assert_eq!(without[0], frag_color_pixels());
}

/// A fragment-shader library for dynamic rendering, created twice: it holds no attachment
/// formats (the fragment output interface does), so gl_FragColor goes to every Location
/// below maxColorAttachments; the second creation hits the rewrite cache.
#[test]
fn fragment_library_without_formats() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    if !has_device_extension(&instance, ash::ext::graphics_pipeline_library::NAME) {
        println!("SKIP: the driver has no VK_EXT_graphics_pipeline_library");
        return;
    }
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let device = library_device(&instance, Some(&mut v13));
    let fs = device.module(&glsl_for_gl("layer/fragcolor.frag"));
    let layout = device.layout(&[]);
    let part = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(Part::FRAGMENT_SHADER);
    let before = counters().rewrites;
    let mut libraries = Vec::new();
    for _ in 0..2 {
        let mut desc = Desc::new(&[(S::FRAGMENT, fs)], layout, vk::RenderPass::null(), 3)
            .flags(vk::PipelineCreateFlags::LIBRARY_KHR);
        desc.p_next = &part as *const _ as *const c_void;
        let (result, libs) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
        assert_eq!(result, vk::Result::SUCCESS);
        libraries.extend(libs);
    }
    assert_eq!(counters().rewrites, before + 1, "rewritten once");
    device.destroy_objects(&libraries, &[layout], &[], &[fs]);
    device.destroy();
    instance.assert_clean();
}

/// ... and has nothing to warn about.
#[test]
fn fragment_library_without_formats_does_not_warn() {
    let _serial = serial();
    if !has_device_extension(
        &Instance::new(NO_LAYERS),
        ash::ext::graphics_pipeline_library::NAME,
    ) {
        println!("SKIP: the driver has no VK_EXT_graphics_pipeline_library");
        return;
    }
    let stderr = stderr_of_test("passthrough::fragment_library_without_formats", &[]);
    let warnings = stderr
        .lines()
        .filter(|l| l.starts_with("glsem: warning"))
        .count();
    assert_eq!(warnings, 0, "stderr:\n{stderr}");
}

/// A TES-only library gets a generated TCS (tests/layer_libraries/libraries.rs); on a layout with no
/// room for its levels it fails clearly instead of reaching the driver.
#[test]
fn library_with_a_tes_and_no_tcs_fails_instead_of_reaching_the_driver() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    if !has_device_extension(&instance, ash::ext::graphics_pipeline_library::NAME) {
        println!("SKIP: the driver has no VK_EXT_graphics_pipeline_library");
        return;
    }
    let device = library_device(&instance, None);
    let vs = device.module(&glsl("layer/patch.vert"));
    let tes = device.module(&glsl("layer/patch.tese"));
    let max = unsafe {
        instance
            .instance
            .get_physical_device_properties(instance.physical)
    }
    .limits
    .max_push_constants_size;
    // The application takes every byte: no room for the levels.
    let layout = device.layout(&[vk::PushConstantRange {
        stage_flags: S::VERTEX | S::FRAGMENT,
        offset: 0,
        size: max,
    }]);
    let parts = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
        .flags(vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS);
    let mut library = Desc::new(
        &[(S::VERTEX, vs), (S::TESSELLATION_EVALUATION, tes)],
        layout,
        vk::RenderPass::null(),
        0,
    )
    .flags(vk::PipelineCreateFlags::LIBRARY_KHR);
    library.p_next = &parts as *const _ as *const c_void;
    // Invalid usage (VUID-VkGraphicsPipelineCreateInfo-pStages-00729) that crashes
    // lavapipe: the layer fails it, and the validation layer below never sees it.
    let (result, libs) = device.create_pipelines(vk::PipelineCache::null(), &[library], None);
    assert_eq!(
        (result, libs),
        (vk::Result::ERROR_UNKNOWN, vec![vk::Pipeline::null()])
    );
    device.destroy_objects(&[], &[layout], &[], &[vs, tes]);
    device.destroy();
    instance.assert_clean();
}

#[test]
fn shader_objects_and_module_identifiers_pass_through() {
    let _serial = serial();
    // vkCreateShadersEXT goes through the layer's hook (tests/layer_features/shader_objects.rs);
    // vkGetShaderModuleIdentifierEXT is not intercepted, and the layer plans no pipeline
    // whose stage has no code it knows. They can only be exercised where the driver has them.
    // No validation layer: Debian 12's (1.3.239) predates VK_EXT_shader_object and warns
    // that it cannot validate it (seen on NVIDIA, which has the extension).
    let instance = Instance::new(GLSEM_ONLY);
    for name in [
        ash::ext::shader_object::NAME,
        ash::ext::shader_module_identifier::NAME,
    ] {
        if !has_device_extension(&instance, name) {
            println!("SKIP: the driver has no {}", name.to_string_lossy());
            continue;
        }
        // Exposed through the layer: the device-level command resolves (to the driver's).
        let device = instance.device(&[name]);
        let command = if name == ash::ext::shader_object::NAME {
            c"vkCreateShadersEXT"
        } else {
            c"vkGetShaderModuleIdentifierEXT"
        };
        let f = unsafe {
            instance
                .instance
                .get_device_proc_addr(device.device.handle(), command.as_ptr())
        };
        assert!(f.is_some(), "{command:?} is NULL through the layer");
        device.destroy();
    }
}

/// gl_FragColor given inline in the fragment stage's `pNext`, behind another struct when
/// `behind` is set: the layer unlinks the code from a copy of the chain and substitutes its
/// rewritten module.
fn inline_frag_color(behind: bool) -> Vec<Vec<u8>> {
    let instance = Instance::new(WITH_VALIDATION);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().subgroup_size_control(true);
    let device = library_device(&instance, Some(&mut v13));
    let vs = device.module(&glsl("layer/plain.vert"));
    let code = glsl_for_gl("layer/fragcolor.frag");
    let pass = device.render_pass(3);
    let layout = device.layout(&[]);
    let inline = vk::ShaderModuleCreateInfo::default().code(&code);
    // lavapipe's fragment subgroup size is 8, which it allows to be required.
    let subgroup = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo {
        p_next: (&inline as *const vk::ShaderModuleCreateInfo<'_>)
            .cast::<c_void>()
            .cast_mut(),
        ..vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default().required_subgroup_size(8)
    };
    let mut fragment = vk::PipelineShaderStageCreateInfo::default()
        .stage(S::FRAGMENT)
        .name(c"main");
    fragment.p_next = if behind {
        (&subgroup as *const vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>).cast()
    } else {
        (&inline as *const vk::ShaderModuleCreateInfo<'_>).cast()
    };
    let mut desc = Desc::new(&[(S::VERTEX, vs)], layout, pass, 3);
    desc.stages.push(fragment);
    let before = counters();
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    assert_eq!(counters().pipelines, before.pipelines + 1, "rewritten");
    let images = device.render(&instance, pipelines[0], pass, 3, 3);
    device.destroy_objects(&[pipelines[0]], &[layout], &[pass], &[vs]);
    device.destroy();
    instance.assert_clean();
    images
}

#[test]
fn inline_code_is_rewritten_wherever_it_sits_in_the_chain() {
    let _serial = serial();
    for behind in [false, true] {
        for (i, image) in inline_frag_color(behind).iter().enumerate() {
            assert_eq!(
                image,
                &frag_color_pixels(),
                "behind: {behind}, attachment {i}"
            );
        }
    }
}

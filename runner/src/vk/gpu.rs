//! A logical device made for one scene, with the extensions and layer commands it needs.

use std::collections::BTreeSet;
use std::ffi::{CStr, CString};

use ash::vk;

use super::dynamic_state::{DynamicFeatures, DynamicStates};
use super::features::{self, CoreFeature};
use super::images::{image_barrier, ImageUse};
use super::instance::Vulkan;
use super::pipeline_path::Path;
use super::result::{check, VkResult};
use crate::layer::{
    abi, CLIP_DISTANCE_COMMAND, GLSEM_LAYER, GL_STATE_EXTENSION, LEVELS_COMMAND, LEVELS_EXTENSION,
    LINE_STIPPLE_COMMAND, LINE_STIPPLE_ENABLE_COMMAND, POINT_SIZE_COMMAND,
    POINT_SPRITE_ORIGIN_COMMAND, PRIMITIVE_MODE_COMMAND, PROGRAM_POINT_SIZE_COMMAND,
    VERTEX_ATTRIB_COMMAND,
};
use crate::scene::SceneError;

/// The function `VK_GLSEM_tessellation_default_levels` adds (GL's `glPatchParameterfv`).
pub type PfnSetTessellationDefaultLevels = abi::PFN_vkCmdSetTessellationDefaultLevelsGLSEM;

/// The commands `VK_GLSEM_gl_state` adds (GL's point size, `GL_PROGRAM_POINT_SIZE` and
/// `GL_CLIP_DISTANCEi` enables), per command buffer.
#[derive(Clone, Copy)]
pub struct GlStateFns {
    pub set_point_size: abi::PFN_vkCmdSetPointSizeGLSEM,
    pub set_program_point_size: abi::PFN_vkCmdSetProgramPointSizeEnableGLSEM,
    pub set_clip_distance_enable: abi::PFN_vkCmdSetClipDistanceEnableGLSEM,
    pub set_line_stipple: abi::PFN_vkCmdSetLineStippleGLSEM,
    pub set_line_stipple_enable: abi::PFN_vkCmdSetLineStippleEnableGLSEM,
    pub set_point_sprite_coord_origin: abi::PFN_vkCmdSetPointSpriteCoordOriginGLSEM,
    pub set_vertex_attrib: abi::PFN_vkCmdSetVertexAttribGLSEM,
    /// GL's primitive mode for shader objects (pipelines chain it instead).
    pub set_primitive_mode: abi::PFN_vkCmdSetPrimitiveModeGLSEM,
}

/// What a scene needs from the device.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Needs {
    /// `VkPhysicalDeviceFeatures` members, from `[require]` and the SPIR-V capabilities.
    pub features: BTreeSet<CoreFeature>,
    pub transform_feedback: bool,
    pub geometry_streams: bool,
    pub dynamic_rendering: bool,
    pub color_attachments: u32,
    /// `VK_KHR_swapchain`, to present (`--window`).
    pub swapchain: bool,
    /// `provoking vertex first`: `VK_EXT_provoking_vertex`, enabled by the runner.
    pub provoking_vertex: bool,
    /// A vertex shader writes `gl_Layer` / `gl_ViewportIndex`:
    /// `VK_EXT_shader_viewport_index_layer`.
    pub viewport_index_layer: bool,
    /// `index type uint8`: `indexTypeUint8` (VK_KHR_index_type_uint8 or the EXT).
    pub index_type_uint8: bool,
    /// Indexed draws restart list topologies: `primitiveTopologyListRestart`
    /// (VK_EXT_primitive_topology_list_restart).
    pub list_restart: bool,
    /// … and patch lists: `primitiveTopologyPatchListRestart`.
    pub patch_list_restart: bool,
}

/// A logical device made for one scene.
pub struct Gpu {
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub queue_family: u32,
    pub name: String,
    pub limits: vk::PhysicalDeviceLimits,
    memory: vk::PhysicalDeviceMemoryProperties,
    pub xfb: Option<ash::ext::transform_feedback::Device>,
    pub max_xfb_buffers: u32,
    /// `VK_GLSEM_gl_state`'s commands, when the layer offers the extension.
    pub gl_state: Option<GlStateFns>,
    /// Why `gl_state` is missing, for messages.
    pub gl_state_missing: String,
    /// `VK_EXT_provoking_vertex` is enabled (by the runner, for `provoking vertex first`).
    pub provoking_vertex: bool,
    /// `VK_EXT_custom_border_color` is enabled (GL's texture border colours).
    pub custom_border_color: bool,
    /// `wideLines` is enabled (`glLineWidth` other than 1).
    pub wide_lines: bool,
    pub set_levels: Option<PfnSetTessellationDefaultLevels>,
    /// Why `set_levels` is missing, for the SKIP message.
    pub levels_missing: String,
    /// `--lower-left`: a positive viewport.
    pub lower_left: bool,
    /// `--pipelines`: how graphics pipelines are built (the device has what it needs).
    pub pipelines: Path,
    /// `VK_EXT_shader_object`'s commands, for `--pipelines shader-objects`.
    pub shader_object: Option<ash::ext::shader_object::Device>,
    /// The features the device was created with (shader objects set the state they gate).
    pub enabled_features: vk::PhysicalDeviceFeatures,
    /// `geometryStreams` is enabled.
    pub geometry_streams: bool,
    /// `--pipelines dynamic-state`: the states pipelines list, and their setters.
    pub dynamic: Option<DynamicStates>,
}

fn has_extension(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter().any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// The extension of `indexTypeUint8` the device lists: the KHR one, else the EXT one.
fn uint8_extension(list: &[vk::ExtensionProperties]) -> Option<&'static CStr> {
    [
        ash::khr::index_type_uint8::NAME,
        ash::ext::index_type_uint8::NAME,
    ]
    .into_iter()
    .find(|&name| has_extension(list, name))
}

/// Extensions a layer itself offers for a device (`pLayerName` set).
fn layer_device_extensions(
    vulkan: &Vulkan,
    pd: vk::PhysicalDevice,
    layer: &CStr,
) -> Vec<vk::ExtensionProperties> {
    let f = vulkan
        .instance
        .fp_v1_0()
        .enumerate_device_extension_properties;
    let mut count = 0;
    // SAFETY: `pd` was enumerated from `vulkan.instance`, whose function `f` is; `layer` is
    // NUL-terminated; a null list asks for the count only.
    if unsafe { f(pd, layer.as_ptr(), &mut count, std::ptr::null_mut()) } != vk::Result::SUCCESS {
        return Vec::new();
    }
    let mut list = vec![vk::ExtensionProperties::default(); count as usize];
    // SAFETY: as above; `list` has room for the `count` entries the call may write.
    if unsafe { f(pd, layer.as_ptr(), &mut count, list.as_mut_ptr()) } != vk::Result::SUCCESS {
        return Vec::new();
    }
    list.truncate(count as usize);
    list
}

impl Gpu {
    /// Resets `cmd` and begins it for one submission.
    ///
    /// # Safety
    /// `cmd` belongs to this device, from a pool that allows resets, and is not pending.
    pub unsafe fn begin_one_time(&self, cmd: vk::CommandBuffer) -> VkResult<()> {
        let d = &self.device;
        // SAFETY: the caller's contract: `cmd` is this device's, resettable and not pending.
        unsafe { d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty()) }
            .map_err(check("vkResetCommandBuffer"))?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: `cmd` was just reset (initial state); `begin` lives across the call.
        unsafe { d.begin_command_buffer(cmd, &begin) }.map_err(check("vkBeginCommandBuffer"))
    }

    /// Ends `cmd`, submits `submit` with it to the queue and waits on `fence` (unsignalled;
    /// left unsignalled again for the next submission).
    ///
    /// # Safety
    /// `cmd` is recording, and `submit`'s semaphores, if any, belong to this device.
    pub unsafe fn end_submit_and_wait(
        &self,
        cmd: vk::CommandBuffer,
        submit: vk::SubmitInfo<'_>,
        fence: vk::Fence,
    ) -> VkResult<()> {
        let d = &self.device;
        // SAFETY: the caller's contract: `cmd` is recording on this device.
        unsafe { d.end_command_buffer(cmd) }.map_err(check("vkEndCommandBuffer"))?;
        let cmds = [cmd];
        // SAFETY: `cmd` is executable now; `self.queue` and `fence` (unsignalled, per this
        // function's contract) are this device's; `cmds` outlives the call.
        unsafe { d.queue_submit(self.queue, &[submit.command_buffers(&cmds)], fence) }
            .map_err(check("vkQueueSubmit"))?;
        // SAFETY: `fence` is this device's and was just submitted.
        unsafe { d.wait_for_fences(&[fence], true, u64::MAX) }.map_err(check("vkWaitForFences"))?;
        // SAFETY: the fence is signalled and its submission complete: nothing uses it.
        unsafe { d.reset_fences(&[fence]) }.map_err(check("vkResetFences"))
    }

    /// Records one global memory dependency: `src` (stage, access) before `dst`.
    pub fn memory_barrier(
        &self,
        cmd: vk::CommandBuffer,
        src: (vk::PipelineStageFlags, vk::AccessFlags),
        dst: (vk::PipelineStageFlags, vk::AccessFlags),
    ) {
        let barrier = [vk::MemoryBarrier::default()
            .src_access_mask(src.1)
            .dst_access_mask(dst.1)];
        // SAFETY: `cmd` is recording (the caller's); the barrier is self-contained.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                src.0,
                dst.0,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            );
        }
    }

    /// Records image barriers (layout transitions, see [`super::images::image_barrier`]) from
    /// `src_stage` to `dst_stage`.
    pub fn image_barriers(
        &self,
        cmd: vk::CommandBuffer,
        src_stage: vk::PipelineStageFlags,
        dst_stage: vk::PipelineStageFlags,
        barriers: &[vk::ImageMemoryBarrier<'_>],
    ) {
        // SAFETY: `cmd` is recording (the caller's); the barriers name live images.
        unsafe {
            self.device.cmd_pipeline_barrier(
                cmd,
                src_stage,
                dst_stage,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                barriers,
            );
        }
    }

    /// Records the transition of `range` of each of `images` from `from` to `to`.
    pub fn transition(
        &self,
        cmd: vk::CommandBuffer,
        images: &[vk::Image],
        range: vk::ImageSubresourceRange,
        from: ImageUse,
        to: ImageUse,
    ) {
        let barriers: Vec<_> = images
            .iter()
            .map(|&image| {
                image_barrier(image, from.layout, to.layout)
                    .subresource_range(range)
                    .src_access_mask(from.access)
                    .dst_access_mask(to.access)
            })
            .collect();
        self.image_barriers(cmd, from.stage, to.stage, &barriers);
    }

    /// The first device that has everything `needs` asks for, or the list of what is missing.
    pub fn new(vulkan: &Vulkan, needs: &Needs) -> Result<Gpu, SceneError> {
        let instance = &vulkan.instance;
        // SAFETY: `vulkan.instance` is alive for this borrow.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(check("vkEnumeratePhysicalDevices"))?;
        let mut reasons = Vec::new();
        for pd in devices {
            match Self::missing(vulkan, pd, needs) {
                Ok(()) => return Ok(Self::create(vulkan, pd, needs)?),
                Err(why) => reasons.push(why.to_string()),
            }
        }
        Err(SceneError::Skip(if reasons.is_empty() {
            "no Vulkan device".to_string()
        } else {
            format!(
                "no Vulkan device has what the scene needs: {}",
                reasons.join("; ")
            )
        }))
    }

    fn missing(vulkan: &Vulkan, pd: vk::PhysicalDevice, needs: &Needs) -> VkResult<()> {
        let instance = &vulkan.instance;
        let (props, name) = properties_and_name(instance, pd);
        // SAFETY: `pd` was enumerated from `instance`, which is alive for this borrow (as in
        // every query on `pd` below).
        let exts =
            unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
        let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default();
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut library = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default();
        let mut shader_object = vk::PhysicalDeviceShaderObjectFeaturesEXT::default();
        let mut uint8 = vk::PhysicalDeviceIndexTypeUint8FeaturesKHR::default();
        let mut restart = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        let has_xfb = has_extension(&exts, ash::ext::transform_feedback::NAME);
        if has_xfb {
            f2 = f2.push_next(&mut xfb);
        }
        let has_library = has_extension(&exts, ash::ext::graphics_pipeline_library::NAME)
            && has_extension(&exts, ash::khr::pipeline_library::NAME);
        if has_library {
            f2 = f2.push_next(&mut library);
        }
        let has_shader_object = has_extension(&exts, ash::ext::shader_object::NAME);
        if has_shader_object {
            f2 = f2.push_next(&mut shader_object);
        }
        if props.api_version >= vk::API_VERSION_1_3 {
            f2 = f2.push_next(&mut v13);
        }
        let has_uint8 = uint8_extension(&exts).is_some();
        if has_uint8 {
            f2 = f2.push_next(&mut uint8);
        }
        let has_restart = has_extension(&exts, ash::ext::primitive_topology_list_restart::NAME);
        if has_restart {
            f2 = f2.push_next(&mut restart);
        }
        // SAFETY: `pd` is `instance`'s; `f2`'s chain holds only structs of extensions the
        // device lists (or core 1.3), each a local that outlives the call.
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        let f = f2.features;
        let mut missing: Vec<String> = features::lacking(&needs.features, f)
            .into_iter()
            .map(String::from)
            .collect();
        let mut want = |need: bool, have: bool, what: &str| {
            if need && !have {
                missing.push(what.to_string());
            }
        };
        want(
            true,
            props.api_version >= vk::API_VERSION_1_1,
            "Vulkan 1.1 (negative viewport height)",
        );
        want(
            needs.transform_feedback,
            has_xfb && xfb.transform_feedback == vk::TRUE,
            "VK_EXT_transform_feedback",
        );
        want(
            needs.geometry_streams,
            has_xfb && xfb.geometry_streams == vk::TRUE,
            "geometryStreams",
        );
        want(
            needs.swapchain,
            has_extension(&exts, ash::khr::swapchain::NAME),
            "VK_KHR_swapchain",
        );
        want(
            needs.provoking_vertex,
            has_extension(&exts, ash::ext::provoking_vertex::NAME),
            "VK_EXT_provoking_vertex (provoking vertex first)",
        );
        want(
            needs.viewport_index_layer,
            has_extension(&exts, ash::ext::shader_viewport_index_layer::NAME),
            "VK_EXT_shader_viewport_index_layer (a vertex shader writing gl_Layer)",
        );
        want(
            needs.index_type_uint8,
            has_uint8 && uint8.index_type_uint8 == vk::TRUE,
            "indexTypeUint8 (VK_KHR_index_type_uint8 or VK_EXT_index_type_uint8: index type uint8)",
        );
        want(
            needs.list_restart,
            has_restart && restart.primitive_topology_list_restart == vk::TRUE,
            "primitiveTopologyListRestart (VK_EXT_primitive_topology_list_restart: primitive \
             restart in a list mode)",
        );
        want(
            needs.patch_list_restart,
            has_restart && restart.primitive_topology_patch_list_restart == vk::TRUE,
            "primitiveTopologyPatchListRestart (VK_EXT_primitive_topology_list_restart: \
             primitive restart of patches)",
        );
        let shader_objects = vulkan.pipelines == Path::ShaderObjects;
        want(
            needs.dynamic_rendering || shader_objects,
            v13.dynamic_rendering == vk::TRUE,
            "dynamicRendering (Vulkan 1.3)",
        );
        want(
            matches!(vulkan.pipelines, Path::Libraries { .. }),
            has_library && library.graphics_pipeline_library == vk::TRUE,
            "VK_EXT_graphics_pipeline_library (--pipelines libraries)",
        );
        want(
            shader_objects,
            has_shader_object && shader_object.shader_object == vk::TRUE,
            "VK_EXT_shader_object (--pipelines shader-objects)",
        );
        want(
            vulkan.pipelines == Path::DynamicState,
            DynamicFeatures::query(instance, pd, |n| has_extension(&exts, n))
                .extended_dynamic_state,
            "VK_EXT_extended_dynamic_state (--pipelines dynamic-state)",
        );
        want(
            needs.color_attachments > props.limits.max_color_attachments,
            false,
            &format!("{} color attachments", needs.color_attachments),
        );
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!("{name} lacks {}", missing.join(", ")).into())
        }
    }

    fn create(vulkan: &Vulkan, pd: vk::PhysicalDevice, needs: &Needs) -> VkResult<Gpu> {
        let instance = &vulkan.instance;
        let (props, name) = properties_and_name(instance, pd);
        // SAFETY: `pd` was enumerated from `instance`, which is alive for this borrow.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let queue_family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            .ok_or_else(|| format!("{name} has no graphics queue"))?
            as u32;
        let extensions = DeviceExtensions::choose(vulkan, pd, needs)?;
        let features = enabled_features(instance, pd, needs, extensions.layer_gl_state);
        let device = create_device(instance, pd, queue_family, &extensions, &features, needs)?;
        // SAFETY: the device was created with one queue of `queue_family`.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        // SAFETY: `pd` is `instance`'s.
        let memory = unsafe { instance.get_physical_device_memory_properties(pd) };
        let xfb = needs
            .transform_feedback
            .then(|| ash::ext::transform_feedback::Device::new(instance, &device));
        let mut xfb_props = vk::PhysicalDeviceTransformFeedbackPropertiesEXT::default();
        if needs.transform_feedback {
            let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut xfb_props);
            // SAFETY: `pd` is `instance`'s and lists VK_EXT_transform_feedback (the scene's
            // need was checked by `missing`); `xfb_props` outlives the call.
            unsafe { instance.get_physical_device_properties2(pd, &mut props2) };
        }
        let (set_levels, levels_missing) = levels_command(vulkan, &device, extensions.layer_levels);
        let (gl_state, gl_state_missing) =
            gl_state_commands(vulkan, &device, extensions.layer_gl_state);
        let shader_object = extensions
            .shader_objects
            .then(|| ash::ext::shader_object::Device::new(instance, &device));
        let dynamic = extensions
            .dynamic
            .as_ref()
            .map(|f| DynamicStates::new(instance, &device, f));
        Ok(Gpu {
            instance: instance.clone(),
            physical: pd,
            device,
            queue,
            queue_family,
            name,
            limits: props.limits,
            memory,
            xfb,
            max_xfb_buffers: xfb_props.max_transform_feedback_buffers,
            gl_state,
            gl_state_missing,
            provoking_vertex: extensions.provoking_vertex,
            custom_border_color: extensions.custom_border_color,
            wide_lines: features.wide_lines == vk::TRUE,
            set_levels,
            levels_missing,
            lower_left: vulkan.lower_left,
            pipelines: vulkan.pipelines,
            shader_object,
            enabled_features: features,
            geometry_streams: needs.geometry_streams,
            dynamic,
        })
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> VkResult<u32> {
        (0..self.memory.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .ok_or_else(|| format!("no memory type with {flags:?}").into())
    }

    pub fn allocate(
        &self,
        req: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> VkResult<vk::DeviceMemory> {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(self.memory_type(req.memory_type_bits, flags)?);
        // SAFETY: `info` names a memory type of this device's physical device.
        unsafe { self.device.allocate_memory(&info, None) }.map_err(check("vkAllocateMemory"))
    }

    /// A single-level 2D image of `format` for `usage` with `range.layer_count` layers (a
    /// count, not `REMAINING_ARRAY_LAYERS`), its memory (device local where the device has
    /// it) and a view of `range` (an array view for several layers); nothing is left on
    /// failure.
    pub fn image_2d(
        &self,
        format: vk::Format,
        size: (u32, u32),
        usage: vk::ImageUsageFlags,
        range: vk::ImageSubresourceRange,
    ) -> VkResult<(vk::Image, vk::DeviceMemory, vk::ImageView)> {
        // A layered render target (`fb tex layered`) is an array texture's every layer.
        let view_type = match range.layer_count {
            1 => vk::ImageViewType::TYPE_2D,
            _ => vk::ImageViewType::TYPE_2D_ARRAY,
        };
        self.image_layers(format, size, view_type, usage, range)
    }

    /// Like [`Gpu::image_2d`], with a view of `view_type`.
    pub fn image_layers(
        &self,
        format: vk::Format,
        (width, height): (u32, u32),
        view_type: vk::ImageViewType,
        usage: vk::ImageUsageFlags,
        range: vk::ImageSubresourceRange,
    ) -> VkResult<(vk::Image, vk::DeviceMemory, vk::ImageView)> {
        let extent = vk::Extent3D {
            width,
            height,
            depth: 1,
        };
        self.texture_image(format, extent, view_type, usage, range)
    }

    /// An image of `extent` with `range`'s levels and layers, of the type `view_type`'s
    /// view needs (1D, 2D or 3D), bound to memory, and its view.
    pub fn texture_image(
        &self,
        format: vk::Format,
        extent: vk::Extent3D,
        view_type: vk::ImageViewType,
        usage: vk::ImageUsageFlags,
        range: vk::ImageSubresourceRange,
    ) -> VkResult<(vk::Image, vk::DeviceMemory, vk::ImageView)> {
        let d = &self.device;
        let image_type = match view_type {
            vk::ImageViewType::TYPE_1D | vk::ImageViewType::TYPE_1D_ARRAY => vk::ImageType::TYPE_1D,
            vk::ImageViewType::TYPE_3D => vk::ImageType::TYPE_3D,
            _ => vk::ImageType::TYPE_2D,
        };
        let info = vk::ImageCreateInfo::default()
            .image_type(image_type)
            .format(format)
            .extent(extent)
            .mip_levels(range.level_count)
            .array_layers(range.layer_count)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage);
        let (image, memory) = self.bound_image(&info)?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(view_type)
            .format(format)
            .subresource_range(range);
        // SAFETY: `view_info` names `image`, bound to memory by `bound_image`.
        let view = unsafe { d.create_image_view(&view_info, None) }
            .map_err(check("vkCreateImageView"))
            // SAFETY: `image` and `memory` are this device's and no view or command uses them.
            .inspect_err(|_| unsafe { self.discard_image(image, memory) })?;
        Ok((image, memory, view))
    }

    /// The image `info` describes, bound to memory of its own (device-local where there is
    /// some).
    pub fn bound_image(
        &self,
        info: &vk::ImageCreateInfo,
    ) -> VkResult<(vk::Image, vk::DeviceMemory)> {
        let d = &self.device;
        // SAFETY: the caller's `info` is a complete image description with no chain.
        let image = unsafe { d.create_image(info, None) }.map_err(check("vkCreateImage"))?;
        // SAFETY: `image` was just created on `d`.
        let req = unsafe { d.get_image_memory_requirements(image) };
        let memory = self
            .allocate(req, vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|_| self.allocate(req, vk::MemoryPropertyFlags::empty()))
            // SAFETY: `image` is `d`'s, unused and unbound; nothing else holds it.
            .inspect_err(|_| unsafe { d.destroy_image(image, None) })?;
        // SAFETY: `memory` was allocated for `req`, the requirements of `image`, both `d`'s.
        unsafe { d.bind_image_memory(image, memory, 0) }
            .map_err(check("vkBindImageMemory"))
            // SAFETY: `image` and `memory` are this device's and nothing uses them.
            .inspect_err(|_| unsafe { self.discard_image(image, memory) })?;
        Ok((image, memory))
    }

    /// Destroys `image` and frees `memory`, on a failure while making them ready.
    ///
    /// # Safety
    /// Both are this device's and nothing uses them.
    unsafe fn discard_image(&self, image: vk::Image, memory: vk::DeviceMemory) {
        // SAFETY: the caller's.
        unsafe {
            self.device.destroy_image(image, None);
            self.device.free_memory(memory, None);
        }
    }

    /// A command pool of resettable buffers, its one command buffer and an unsignalled
    /// fence for its submissions.
    pub fn command_objects(&self) -> VkResult<(vk::CommandPool, vk::CommandBuffer, vk::Fence)> {
        let d = &self.device;
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(self.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: `self.queue_family` is the family the device's queue was created in.
        let pool =
            unsafe { d.create_command_pool(&info, None) }.map_err(check("vkCreateCommandPool"))?;
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .command_buffer_count(1);
        // SAFETY: `pool` was just made on this device.
        let cmd = unsafe { d.allocate_command_buffers(&info) }
            .map_err(check("vkAllocateCommandBuffers"))?[0];
        // SAFETY: a plain fence create info, no chain.
        let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(check("vkCreateFence"))?;
        Ok((pool, cmd, fence))
    }

    /// A host-visible, coherent, persistently mapped buffer.
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags) -> VkResult<Buffer> {
        let info = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(usage);
        // SAFETY: `info` is a complete buffer description with no chain.
        let buffer =
            unsafe { self.device.create_buffer(&info, None) }.map_err(check("vkCreateBuffer"))?;
        // SAFETY: `buffer` was just created on this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let memory = self
            .allocate(
                req,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )
            // SAFETY: `buffer` is this device's, unbound and unused.
            .inspect_err(|_| unsafe { self.device.destroy_buffer(buffer, None) })?;
        // SAFETY: `memory` was allocated for `req`, the requirements of `buffer`.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(check("vkBindBufferMemory"))?;
        // SAFETY: `memory` is host-visible (asked for above) and not mapped yet.
        let mapped = unsafe {
            self.device
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .map_err(check("vkMapMemory"))?;
        Ok(Buffer {
            buffer,
            memory,
            mapped: mapped.cast(),
            size: size.max(4),
        })
    }

    /// Destroys `b` and frees its memory (which unmaps it).
    ///
    /// `b` must have been made by this `Gpu`'s [`Gpu::buffer`] and no pending command may use
    /// it: the runner waits for every submission, so only a buffer still referenced by a
    /// recorded-but-unsubmitted command buffer would break this.
    pub fn destroy_buffer(&self, b: &Buffer) {
        // SAFETY: `b` is this device's (above) and the GPU is done with it: every submission
        // is waited for before the runner moves on.
        unsafe {
            self.device.destroy_buffer(b.buffer, None);
            self.device.free_memory(b.memory, None);
        }
    }
}

/// The properties of physical device `pd` of `instance`, and its name.
fn properties_and_name(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
) -> (vk::PhysicalDeviceProperties, String) {
    // SAFETY: `pd` was enumerated from `instance`, which is alive for this borrow.
    let props = unsafe { instance.get_physical_device_properties(pd) };
    let name = props
        .device_name_as_c_str()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    (props, name)
}

/// The device extensions the runner enables, and what they tell.
struct DeviceExtensions {
    names: Vec<CString>,
    /// GL's first-vertex convention, asked for when a scene does (GL's provoking vertex
    /// and clip-space depth are otherwise the layer's, VK_GLSEM_gl_state).
    provoking_vertex: bool,
    custom_border_color: bool,
    /// The layer offers VK_GLSEM_tessellation_default_levels.
    layer_levels: bool,
    /// The layer offers VK_GLSEM_gl_state.
    layer_gl_state: bool,
    /// Pipelines are linked from graphics pipeline libraries.
    libraries: bool,
    shader_objects: bool,
    /// `--pipelines dynamic-state`: the dynamic-state features the device has (all enabled).
    dynamic: Option<DynamicFeatures>,
}

impl DeviceExtensions {
    fn choose(
        vulkan: &Vulkan,
        pd: vk::PhysicalDevice,
        needs: &Needs,
    ) -> VkResult<DeviceExtensions> {
        // SAFETY: `pd` was enumerated from `vulkan.instance`, alive for this borrow.
        let exts = unsafe { vulkan.instance.enumerate_device_extension_properties(pd) }
            .map_err(check("vkEnumerateDeviceExtensionProperties"))?;
        let layer_name = CString::new(GLSEM_LAYER).unwrap_or_default();
        let levels_ext = CString::new(LEVELS_EXTENSION).unwrap_or_default();
        let gl_state_ext = CString::new(GL_STATE_EXTENSION).unwrap_or_default();
        let layer_exts = if vulkan.layer {
            layer_device_extensions(vulkan, pd, &layer_name)
        } else {
            Vec::new()
        };
        let mut chosen = DeviceExtensions {
            names: Vec::new(),
            provoking_vertex: needs.provoking_vertex,
            custom_border_color: has_extension(&exts, ash::ext::custom_border_color::NAME),
            layer_levels: has_extension(&layer_exts, &levels_ext),
            layer_gl_state: has_extension(&layer_exts, &gl_state_ext),
            libraries: matches!(vulkan.pipelines, Path::Libraries { .. }),
            shader_objects: vulkan.pipelines == Path::ShaderObjects,
            dynamic: (vulkan.pipelines == Path::DynamicState)
                .then(|| DynamicFeatures::query(&vulkan.instance, pd, |n| has_extension(&exts, n))),
        };
        let uint8 = uint8_extension(&exts).filter(|_| needs.index_type_uint8);
        let wanted: [(bool, &[&CStr]); 9] = [
            (
                needs.transform_feedback,
                &[ash::ext::transform_feedback::NAME],
            ),
            (needs.swapchain, &[ash::khr::swapchain::NAME]),
            (
                needs.viewport_index_layer,
                &[ash::ext::shader_viewport_index_layer::NAME],
            ),
            (chosen.provoking_vertex, &[ash::ext::provoking_vertex::NAME]),
            (
                chosen.custom_border_color,
                &[ash::ext::custom_border_color::NAME],
            ),
            (
                needs.list_restart || needs.patch_list_restart,
                &[ash::ext::primitive_topology_list_restart::NAME],
            ),
            (chosen.layer_levels, &[&levels_ext]),
            (chosen.layer_gl_state, &[&gl_state_ext]),
            (
                chosen.libraries,
                &[
                    ash::khr::pipeline_library::NAME,
                    ash::ext::graphics_pipeline_library::NAME,
                ],
            ),
        ];
        for (on, names) in wanted {
            if on {
                chosen.names.extend(names.iter().map(|&n| n.to_owned()));
            }
        }
        chosen.names.extend(uint8.map(CStr::to_owned));
        if chosen.shader_objects {
            chosen.names.push(ash::ext::shader_object::NAME.to_owned());
            // VK_EXT_shader_object's state commands are also these extensions' commands: a
            // loader older than VK_EXT_shader_object (Debian 12's 1.3.239) hands them out
            // only where one of them is enabled (NULL otherwise, seen on NVIDIA).
            for also in [
                ash::ext::extended_dynamic_state::NAME,
                ash::ext::extended_dynamic_state2::NAME,
                ash::ext::extended_dynamic_state3::NAME,
                ash::ext::vertex_input_dynamic_state::NAME,
            ] {
                if has_extension(&exts, also) && !chosen.has(also) {
                    chosen.names.push(also.to_owned());
                }
            }
        }
        if let Some(dynamic) = &chosen.dynamic {
            for name in dynamic.extensions() {
                chosen.names.push(name.to_owned());
            }
        }
        Ok(chosen)
    }

    fn has(&self, name: &CStr) -> bool {
        self.names.iter().any(|n| n.as_c_str() == name)
    }
}

/// The scene's features, and what GL's point, line and storage state needs whenever the
/// device has it.
fn enabled_features(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    needs: &Needs,
    layer_gl_state: bool,
) -> vk::PhysicalDeviceFeatures {
    let mut features = features::enabled(&needs.features);
    // SAFETY: `pd` was enumerated from `instance`, alive for this borrow.
    let available = unsafe { instance.get_physical_device_features(pd) };
    features.large_points |= available.large_points;
    features.wide_lines |= available.wide_lines;
    features.fill_mode_non_solid |= available.fill_mode_non_solid;
    // GL lets every stage write shader storage buffers.
    features.fragment_stores_and_atomics |= available.fragment_stores_and_atomics;
    features.vertex_pipeline_stores_and_atomics |= available.vertex_pipeline_stores_and_atomics;
    // With shaderTessellationAndGeometryPointSize on, Vulkan requires tessellation and
    // geometry shaders emitting points to write PointSize (VUID-…-Geometry-07725),
    // which GL does not: only ask for it when the layer takes GL's point size over.
    if layer_gl_state {
        features.shader_tessellation_and_geometry_point_size |=
            available.shader_tessellation_and_geometry_point_size;
    }
    features
}

/// The device with one queue of `queue_family`, `extensions` and `features`, and the
/// feature structures of the extensions that need them.
fn create_device(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    queue_family: u32,
    extensions: &DeviceExtensions,
    features: &vk::PhysicalDeviceFeatures,
    needs: &Needs,
) -> VkResult<ash::Device> {
    let ext_ptrs: Vec<*const i8> = extensions.names.iter().map(|e| e.as_ptr()).collect();
    let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default()
        .transform_feedback(true)
        .geometry_streams(needs.geometry_streams);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
    let mut library = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
        .graphics_pipeline_library(true);
    let mut shader_object =
        vk::PhysicalDeviceShaderObjectFeaturesEXT::default().shader_object(true);
    let priorities = [1.0];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let mut info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&ext_ptrs)
        .enabled_features(features);
    if needs.transform_feedback {
        info = info.push_next(&mut xfb);
    }
    // Shader objects draw only inside vkCmdBeginRendering.
    if needs.dynamic_rendering || extensions.shader_objects {
        info = info.push_next(&mut v13);
    }
    if extensions.libraries {
        info = info.push_next(&mut library);
    }
    // The same feature for vkCmdSetVertexInputEXT, which validation layers older than
    // VK_EXT_shader_object ask for (VUID-vkCmdSetVertexInputEXT-None-04790).
    let mut vertex_input = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default()
        .vertex_input_dynamic_state(true);
    if extensions.shader_objects {
        info = info.push_next(&mut shader_object);
    }
    if (extensions.shader_objects || extensions.dynamic.is_some())
        && extensions.has(ash::ext::vertex_input_dynamic_state::NAME)
    {
        info = info.push_next(&mut vertex_input);
    }
    // `--pipelines dynamic-state`: every dynamic-state feature the device has.
    let mut eds =
        vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT::default().extended_dynamic_state(true);
    let (mut eds2, mut eds3) = extensions
        .dynamic
        .map_or(Default::default(), |d| (d.eds2, d.eds3));
    if let Some(dynamic) = &extensions.dynamic {
        let on = dynamic.extensions();
        if on.contains(&ash::ext::extended_dynamic_state::NAME) {
            info = info.push_next(&mut eds);
        }
        if on.contains(&ash::ext::extended_dynamic_state2::NAME) {
            info = info.push_next(&mut eds2);
        }
        if on.contains(&ash::ext::extended_dynamic_state3::NAME) {
            info = info.push_next(&mut eds3);
        }
    }
    let mut uint8 = vk::PhysicalDeviceIndexTypeUint8FeaturesKHR::default().index_type_uint8(true);
    if needs.index_type_uint8 {
        info = info.push_next(&mut uint8);
    }
    let mut restart = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default()
        .primitive_topology_list_restart(needs.list_restart)
        .primitive_topology_patch_list_restart(needs.patch_list_restart);
    if needs.list_restart || needs.patch_list_restart {
        info = info.push_next(&mut restart);
    }
    let mut border = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default()
        .custom_border_colors(true)
        .custom_border_color_without_format(false);
    if extensions.custom_border_color {
        info = info.push_next(&mut border);
    }
    // SAFETY: `info` points at `queues`, `priorities`, `ext_ptrs` (into `extensions.names`),
    // `features` and the chained feature structs, all alive until the call returns; each
    // chained struct's extension is enabled.
    unsafe { instance.create_device(pd, &info, None) }.map_err(check("vkCreateDevice"))
}

/// Why a layer command of `extension` cannot be had: the layer is not loaded or does not
/// offer the extension (`offered`); `None` when it can.
fn layer_extension_missing(vulkan: &Vulkan, offered: bool, extension: &str) -> Option<String> {
    if !vulkan.layer {
        Some("the glsem layer is not loaded (--no-layer or not found)".to_string())
    } else if !offered {
        Some(format!("the glsem layer does not offer {extension}"))
    } else {
        None
    }
}

/// VK_GLSEM_tessellation_default_levels' command on `device` when the layer offers the
/// extension (`offered`, then enabled on `device`), else why not.
fn levels_command(
    vulkan: &Vulkan,
    device: &ash::Device,
    offered: bool,
) -> (Option<PfnSetTessellationDefaultLevels>, String) {
    if let Some(why) = layer_extension_missing(vulkan, offered, LEVELS_EXTENSION) {
        return (None, why);
    }
    let command = CString::new(LEVELS_COMMAND).unwrap_or_default();
    // SAFETY: `device` was created from `instance`; `command` is NUL-terminated.
    match unsafe {
        vulkan
            .instance
            .get_device_proc_addr(device.handle(), command.as_ptr())
    } {
        Some(f) => (
            // SAFETY: VK_GLSEM_tessellation_default_levels (enabled on `device`)
            // defines this command with this signature (`abi`, shared with the layer).
            Some(unsafe { typed::<PfnSetTessellationDefaultLevels>(f) }),
            String::new(),
        ),
        None => (
            None,
            format!("vkGetDeviceProcAddr returns no {LEVELS_COMMAND}"),
        ),
    }
}

/// VK_GLSEM_gl_state's commands on `device` when the layer offers the extension (`offered`,
/// then enabled on `device`), else why not.
fn gl_state_commands(
    vulkan: &Vulkan,
    device: &ash::Device,
    offered: bool,
) -> (Option<GlStateFns>, String) {
    if let Some(why) = layer_extension_missing(vulkan, offered, GL_STATE_EXTENSION) {
        return (None, why);
    }
    let instance = &vulkan.instance;
    let get = |name: &str| {
        let name = CString::new(name).unwrap_or_default();
        // SAFETY: `device` was created from `instance`; `name` is NUL-terminated.
        unsafe { instance.get_device_proc_addr(device.handle(), name.as_ptr()) }
    };
    // SAFETY: VK_GLSEM_gl_state (enabled on `device`) defines each command with the type
    // `abi` gives it (shared with the layer), and `typed` is asked for exactly that type.
    let fns = (|| unsafe {
        Some(GlStateFns {
            set_point_size: typed(get(POINT_SIZE_COMMAND)?),
            set_program_point_size: typed(get(PROGRAM_POINT_SIZE_COMMAND)?),
            set_clip_distance_enable: typed(get(CLIP_DISTANCE_COMMAND)?),
            set_line_stipple: typed(get(LINE_STIPPLE_COMMAND)?),
            set_line_stipple_enable: typed(get(LINE_STIPPLE_ENABLE_COMMAND)?),
            set_point_sprite_coord_origin: typed(get(POINT_SPRITE_ORIGIN_COMMAND)?),
            set_vertex_attrib: typed(get(VERTEX_ATTRIB_COMMAND)?),
            set_primitive_mode: typed(get(PRIMITIVE_MODE_COMMAND)?),
        })
    })();
    match fns {
        Some(fns) => (Some(fns), String::new()),
        None => (
            None,
            format!("vkGetDeviceProcAddr lacks a command of {GL_STATE_EXTENSION}"),
        ),
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: the `Player` that owns this `Gpu` destroys every object it made on the
        // device in its own `Drop`, which runs before its fields drop; waiting for idle makes
        // sure no submission still runs.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
    }
}

/// A mapped host-visible buffer; destroyed explicitly through [`Gpu::destroy_buffer`].
pub struct Buffer {
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    mapped: *mut u8,
    pub size: u64,
}

impl Buffer {
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the whole allocation stays mapped while the buffer lives; the GPU is idle
        // whenever the runner reads (every submission is waited for).
        unsafe { std::slice::from_raw_parts(self.mapped, self.size as usize) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`.
        unsafe { std::slice::from_raw_parts_mut(self.mapped, self.size as usize) }
    }
}

/// A command pointer from `vkGetDeviceProcAddr` as its own function type `F`.
///
/// # Safety
/// `F` must be the type of the command `f` points to (a function pointer type).
unsafe fn typed<F: Copy>(f: unsafe extern "system" fn()) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of_val(&f));
    // SAFETY: both are function pointers of the same size; the caller names the type.
    unsafe { std::mem::transmute_copy(&f) }
}

//! The interception table: one list of entry points drives the next-layer dispatch tables
//! (an `Option` per entry, loaded from the next layer's `vkGet*ProcAddr`; a missing entry
//! is `None`) and the `vkGet*ProcAddr` lookup of the functions this layer hooks.

use ash::vk;
use std::ffi::CStr;

use super::{
    command_state, device, instance, layouts, modules, planner, render_passes, shader_object,
};

pub use super::ffi::VoidFn;

macro_rules! as_void_fn {
    ($pfn:ty,) => {
        None
    };
    ($pfn:ty, $hook:path) => {
        // SAFETY: only the pointer's type changes; the caller casts it back to `$pfn`, which
        // `$hook as $pfn` checked the hook's signature against.
        Some(unsafe { std::mem::transmute::<$pfn, VoidFn>($hook as $pfn) })
    };
}

macro_rules! dispatch_table {
    ($(#[$meta:meta])* $table:ident, $handle:ty, $lookup:ident {
        $($field:ident: $pfn:ident = $name:literal $(=> $hook:path)?;)*
    }) => {
        $(#[$meta])*
        pub struct $table {
            $(pub $field: Option<vk::$pfn>,)*
        }

        impl $table {
            /// Loads every entry from the next layer's `vkGet*ProcAddr`.
            ///
            /// # Safety
            /// `get` must return pointers of the named commands' types.
            pub unsafe fn load(
                get: impl Fn($handle, &CStr) -> vk::PFN_vkVoidFunction,
                handle: $handle,
            ) -> Self {
                $table {
                    $($field: get(handle, const_cstr(concat!($name, "\0"))).map(|f| {
                        // SAFETY: `get` returns the named command (the caller's
                        // contract); only the pointer's type changes.
                        unsafe { std::mem::transmute::<VoidFn, vk::$pfn>(f) }
                    }),)*
                }
            }
        }

        /// The layer's hook for `name`, with a test of whether the next layer provides that
        /// command (a hook is only handed out when it can call down).
        pub fn $lookup(name: &[u8]) -> Option<(VoidFn, fn(&$table) -> bool)> {
            $(
                if name == $name.as_bytes() {
                    let hook: Option<VoidFn> = as_void_fn!(vk::$pfn, $($hook)?);
                    return hook.map(|h| (h, (|t: &$table| t.$field.is_some()) as fn(&$table) -> bool));
                }
            )*
            None
        }
    };
}

const fn const_cstr(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        Err(_) => panic!("entry point names are nul-terminated by concat!"),
    }
}

dispatch_table!(
    /// The next layer's instance-level commands this layer hooks or calls.
    InstanceDispatch, vk::Instance, instance_hook {
        destroy_instance: PFN_vkDestroyInstance = "vkDestroyInstance" => instance::destroy_instance;
        create_device: PFN_vkCreateDevice = "vkCreateDevice" => device::create_device;
        enumerate_device_extension_properties: PFN_vkEnumerateDeviceExtensionProperties =
            "vkEnumerateDeviceExtensionProperties" => device::enumerate_device_extension_properties;
        get_physical_device_properties: PFN_vkGetPhysicalDeviceProperties =
            "vkGetPhysicalDeviceProperties";
        get_physical_device_features: PFN_vkGetPhysicalDeviceFeatures =
            "vkGetPhysicalDeviceFeatures";
        get_physical_device_features2: PFN_vkGetPhysicalDeviceFeatures2 =
            "vkGetPhysicalDeviceFeatures2";
    }
);

dispatch_table!(
    /// The next layer's device-level commands this layer hooks or calls.
    DeviceDispatch, vk::Device, device_hook {
        destroy_device: PFN_vkDestroyDevice = "vkDestroyDevice" => device::destroy_device;
        create_shader_module: PFN_vkCreateShaderModule =
            "vkCreateShaderModule" => modules::create_shader_module;
        destroy_shader_module: PFN_vkDestroyShaderModule =
            "vkDestroyShaderModule" => modules::destroy_shader_module;
        create_render_pass: PFN_vkCreateRenderPass =
            "vkCreateRenderPass" => render_passes::create_render_pass;
        create_render_pass2: PFN_vkCreateRenderPass2 =
            "vkCreateRenderPass2" => render_passes::create_render_pass2;
        create_render_pass2_khr: PFN_vkCreateRenderPass2 =
            "vkCreateRenderPass2KHR" => render_passes::create_render_pass2_khr;
        destroy_render_pass: PFN_vkDestroyRenderPass =
            "vkDestroyRenderPass" => render_passes::destroy_render_pass;
        create_pipeline_layout: PFN_vkCreatePipelineLayout =
            "vkCreatePipelineLayout" => layouts::create_pipeline_layout;
        destroy_pipeline_layout: PFN_vkDestroyPipelineLayout =
            "vkDestroyPipelineLayout" => layouts::destroy_pipeline_layout;
        create_graphics_pipelines: PFN_vkCreateGraphicsPipelines =
            "vkCreateGraphicsPipelines" => planner::create_graphics_pipelines;
        destroy_pipeline: PFN_vkDestroyPipeline = "vkDestroyPipeline" => planner::destroy_pipeline;
        allocate_command_buffers: PFN_vkAllocateCommandBuffers =
            "vkAllocateCommandBuffers" => command_state::allocate_command_buffers;
        free_command_buffers: PFN_vkFreeCommandBuffers =
            "vkFreeCommandBuffers" => command_state::free_command_buffers;
        begin_command_buffer: PFN_vkBeginCommandBuffer =
            "vkBeginCommandBuffer" => command_state::begin_command_buffer;
        reset_command_buffer: PFN_vkResetCommandBuffer =
            "vkResetCommandBuffer" => command_state::reset_command_buffer;
        reset_command_pool: PFN_vkResetCommandPool =
            "vkResetCommandPool" => command_state::reset_command_pool;
        destroy_command_pool: PFN_vkDestroyCommandPool =
            "vkDestroyCommandPool" => command_state::destroy_command_pool;
        cmd_bind_pipeline: PFN_vkCmdBindPipeline =
            "vkCmdBindPipeline" => command_state::cmd_bind_pipeline;
        cmd_push_constants: PFN_vkCmdPushConstants = "vkCmdPushConstants";
        create_shaders_ext: PFN_vkCreateShadersEXT =
            "vkCreateShadersEXT" => shader_object::create_shaders;
        cmd_bind_shaders_ext: PFN_vkCmdBindShadersEXT =
            "vkCmdBindShadersEXT" => shader_object::cmd_bind_shaders;
        destroy_shader_ext: PFN_vkDestroyShaderEXT =
            "vkDestroyShaderEXT" => shader_object::destroy_shader;
        cmd_set_patch_control_points_ext: PFN_vkCmdSetPatchControlPointsEXT =
            "vkCmdSetPatchControlPointsEXT" => shader_object::cmd_set_patch_control_points;
        create_framebuffer: PFN_vkCreateFramebuffer =
            "vkCreateFramebuffer" => render_passes::create_framebuffer;
        destroy_framebuffer: PFN_vkDestroyFramebuffer =
            "vkDestroyFramebuffer" => render_passes::destroy_framebuffer;
        cmd_begin_render_pass: PFN_vkCmdBeginRenderPass =
            "vkCmdBeginRenderPass" => command_state::cmd_begin_render_pass;
        cmd_begin_render_pass2: PFN_vkCmdBeginRenderPass2 =
            "vkCmdBeginRenderPass2" => command_state::cmd_begin_render_pass2;
        cmd_begin_render_pass2_khr: PFN_vkCmdBeginRenderPass2 =
            "vkCmdBeginRenderPass2KHR" => command_state::cmd_begin_render_pass2_khr;
        cmd_begin_rendering: PFN_vkCmdBeginRendering =
            "vkCmdBeginRendering" => command_state::cmd_begin_rendering;
        cmd_begin_rendering_khr: PFN_vkCmdBeginRendering =
            "vkCmdBeginRenderingKHR" => command_state::cmd_begin_rendering_khr;
        cmd_set_line_stipple_ext: PFN_vkCmdSetLineStippleKHR = "vkCmdSetLineStippleEXT";
        cmd_set_line_stipple_khr: PFN_vkCmdSetLineStippleKHR = "vkCmdSetLineStippleKHR";
        cmd_set_viewport: PFN_vkCmdSetViewport =
            "vkCmdSetViewport" => command_state::cmd_set_viewport;
        cmd_set_viewport_with_count: PFN_vkCmdSetViewportWithCount =
            "vkCmdSetViewportWithCount" => command_state::cmd_set_viewport_with_count;
        cmd_set_viewport_with_count_ext: PFN_vkCmdSetViewportWithCount =
            "vkCmdSetViewportWithCountEXT" => command_state::cmd_set_viewport_with_count;
        cmd_set_front_face: PFN_vkCmdSetFrontFace =
            "vkCmdSetFrontFace" => command_state::cmd_set_front_face;
        cmd_set_front_face_ext: PFN_vkCmdSetFrontFace =
            "vkCmdSetFrontFaceEXT" => command_state::cmd_set_front_face;
    }
);

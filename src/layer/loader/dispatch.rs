//! The interception table: one list of entry points drives the next-layer dispatch tables
//! (an `Option` per entry, loaded from the next layer's `vkGet*ProcAddr`; a missing entry
//! is `None`) and the `vkGet*ProcAddr` lookup of the functions this layer hooks.
//!
//! Each list is written once, in a macro ([`instance_commands!`], [`device_commands!`],
//! [`layer_command_list!`]) that hands it to the macro it is given: this file expands the
//! lists into the tables ([`next_layer_table!`]), and `mod.rs` expands them into the lookups
//! by name ([`hook_lookup!`], [`layer_command_lookup!`]). A hook's path (`device::…`) is
//! resolved where the lookup is expanded, in `mod.rs`, which declares the hook modules: so
//! the tables, which every hook reaches through the device, need none of the hooks.

use ash::vk;
use std::ffi::CStr;

pub use crate::layer::support::ffi::VoidFn;

/// A hook as a `PFN_vkVoidFunction` (`None` for an entry the layer only calls).
macro_rules! as_void_fn {
    ($pfn:ty,) => {
        None
    };
    ($pfn:ty, $hook:path) => {
        // SAFETY: `$pfn` is a function pointer type that `$hook as $pfn` checked the hook's
        // signature against; the application casts the result back to it.
        Some(unsafe { $crate::layer::support::ffi::as_void_fn::<$pfn>($hook as $pfn) })
    };
}
pub(crate) use as_void_fn;

/// Binds each next-layer command named (`let_next_commands!(dev.table => [cmd_draw, …]
/// else { … })`), or runs the `else` block where the driver lacks one of them.
macro_rules! let_next_commands {
    ($table:expr => [$($command:ident),+ $(,)?] else $else:block) => {
        let table = &$table;
        let ($(Some($command),)+) = ($(table.$command,)+) else $else;
    };
}
pub(crate) use let_next_commands;

/// The next layer's table of a list: `field: PFN_type = "name" | "alias"… => hook;`. Names
/// after the first are the same command's KHR/EXT aliases: the field holds the first of
/// them the next layer provides. An entry without a hook is only called by the layer.
macro_rules! next_layer_table {
    ($(#[$meta:meta])* $table:ident, $handle:ty, $lookup:ident {
        $($field:ident: $pfn:ident = $name:literal $(| $alias:literal)* $(=> $hook:path)?;)*
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
                    $($field: get(handle, const_cstr(concat!($name, "\0")))
                        $(.or_else(|| get(handle, const_cstr(concat!($alias, "\0")))))*
                        .map(|f| {
                            // SAFETY: `get` returns the named command (the caller's
                            // contract), of type `$pfn`, which its aliases share.
                            unsafe { $crate::layer::support::ffi::typed_fn::<vk::$pfn>(f) }
                        }),)*
                }
            }
        }
    };
}

/// The lookup of a list's hooks by name: `$lookup(name)` is the layer's hook for `name` (any
/// of its aliases), with a test of whether the next layer provides that command (a hook is
/// only handed out when it can call down).
macro_rules! hook_lookup {
    ($(#[$meta:meta])* $table:ident, $handle:ty, $lookup:ident {
        $($field:ident: $pfn:ident = $name:literal $(| $alias:literal)* $(=> $hook:path)?;)*
    }) => {
        fn $lookup(name: &[u8]) -> Option<($crate::layer::loader::dispatch::VoidFn, fn(&$table) -> bool)> {
            $(
                if name == $name.as_bytes() $(|| name == $alias.as_bytes())* {
                    let hook: Option<$crate::layer::loader::dispatch::VoidFn> =
                        $crate::layer::loader::dispatch::as_void_fn!(ash::vk::$pfn, $($hook)?);
                    return hook.map(|h| (h, (|t: &$table| t.$field.is_some()) as fn(&$table) -> bool));
                }
            )*
            None
        }
    };
}
pub(crate) use hook_lookup;

/// The lookup of the layer's own commands (`include/vk_glsem.h`) by name, with the extension
/// that provides each: `NAME: PFN_type in Extension => hook;`, with the names and types of
/// [`glsem_abi`].
macro_rules! layer_command_lookup {
    ($(#[$meta:meta])* $lookup:ident {
        $($name:ident: $pfn:ident in $extension:ident => $hook:path;)*
    }) => {
        $(#[$meta])*
        fn $lookup(
            name: &[u8],
        ) -> Option<($crate::layer::loader::dispatch::VoidFn, $crate::layer::data::extensions::LayerExtension)> {
            use glsem_abi as abi;
            $(
                if name == abi::$name.as_bytes() {
                    // SAFETY: `abi::$pfn` is a function pointer type that `$hook as abi::$pfn`
                    // checked the hook against; the application casts the result back to it.
                    let hook = unsafe { $crate::layer::support::ffi::as_void_fn::<abi::$pfn>($hook as abi::$pfn) };
                    return Some((hook, $crate::layer::data::extensions::LayerExtension::$extension));
                }
            )*
            None
        }
    };
}
pub(crate) use layer_command_lookup;

/// Hooks handed out only on devices that enabled `VK_GLSEM_gl_state`: every other device
/// draws without the layer in between.
pub const GL_STATE_HOOKS: [&[u8]; 7] = [
    b"vkCmdSetPrimitiveTopology",
    b"vkCmdSetPrimitiveTopologyEXT",
    b"vkCmdDraw",
    b"vkCmdDrawIndexed",
    b"vkCmdDrawIndirect",
    b"vkCmdDrawIndexedIndirect",
    b"vkCmdBindIndexBuffer",
];

const fn const_cstr(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        Err(_) => panic!("entry point names are nul-terminated by concat!"),
    }
}

/// The instance-level commands this layer hooks or calls, handed to `$expand`.
macro_rules! instance_commands {
    ($expand:ident) => {
$expand!(
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
        get_physical_device_properties2: PFN_vkGetPhysicalDeviceProperties2 =
            "vkGetPhysicalDeviceProperties2";
        get_physical_device_memory_properties: PFN_vkGetPhysicalDeviceMemoryProperties =
            "vkGetPhysicalDeviceMemoryProperties";
        get_physical_device_format_properties: PFN_vkGetPhysicalDeviceFormatProperties =
            "vkGetPhysicalDeviceFormatProperties";
    }
);
    };
}

/// The device-level commands this layer hooks or calls, handed to `$expand`.
macro_rules! device_commands {
    ($expand:ident) => {
$expand!(
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
            "vkCreateRenderPass2" | "vkCreateRenderPass2KHR" => render_passes::create_render_pass2;
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
            "vkCmdBindPipeline" => bind_pipeline::cmd_bind_pipeline;
        cmd_push_constants: PFN_vkCmdPushConstants = "vkCmdPushConstants";
        cmd_set_line_width: PFN_vkCmdSetLineWidth =
            "vkCmdSetLineWidth" => lines::cmd_set_line_width;
        cmd_draw: PFN_vkCmdDraw = "vkCmdDraw" => hooks::cmd_draw;
        cmd_draw_indexed: PFN_vkCmdDrawIndexed = "vkCmdDrawIndexed" => hooks::cmd_draw_indexed;
        cmd_draw_indirect: PFN_vkCmdDrawIndirect =
            "vkCmdDrawIndirect" => hooks::cmd_draw_indirect;
        cmd_draw_indexed_indirect: PFN_vkCmdDrawIndexedIndirect =
            "vkCmdDrawIndexedIndirect" => hooks::cmd_draw_indexed_indirect;
        cmd_bind_index_buffer: PFN_vkCmdBindIndexBuffer =
            "vkCmdBindIndexBuffer" => hooks::cmd_bind_index_buffer;
        create_shaders_ext: PFN_vkCreateShadersEXT =
            "vkCreateShadersEXT" => shader_object::create_shaders;
        cmd_bind_shaders_ext: PFN_vkCmdBindShadersEXT =
            "vkCmdBindShadersEXT" => shader_object::cmd_bind_shaders;
        destroy_shader_ext: PFN_vkDestroyShaderEXT =
            "vkDestroyShaderEXT" => shader_object::destroy_shader;
        cmd_set_patch_control_points_ext: PFN_vkCmdSetPatchControlPointsEXT =
            "vkCmdSetPatchControlPointsEXT" => shader_object::cmd_set_patch_control_points;
        cmd_set_primitive_topology: PFN_vkCmdSetPrimitiveTopology =
            "vkCmdSetPrimitiveTopology" | "vkCmdSetPrimitiveTopologyEXT" =>
            gl_primitives::cmd_set_primitive_topology;
        cmd_set_polygon_mode_ext: PFN_vkCmdSetPolygonModeEXT =
            "vkCmdSetPolygonModeEXT" => gl_primitives::cmd_set_polygon_mode;
        cmd_set_provoking_vertex_mode_ext: PFN_vkCmdSetProvokingVertexModeEXT =
            "vkCmdSetProvokingVertexModeEXT" => followed_state::cmd_set_provoking_vertex_mode;
        cmd_set_depth_clip_negative_one_to_one_ext: PFN_vkCmdSetDepthClipNegativeOneToOneEXT =
            "vkCmdSetDepthClipNegativeOneToOneEXT" =>
            followed_state::cmd_set_depth_clip_negative_one_to_one;
        cmd_set_vertex_input_ext: PFN_vkCmdSetVertexInputEXT =
            "vkCmdSetVertexInputEXT" => followed_state::cmd_set_vertex_input;
        cmd_set_line_rasterization_mode_ext: PFN_vkCmdSetLineRasterizationModeEXT =
            "vkCmdSetLineRasterizationModeEXT" => lines::cmd_set_line_rasterization_mode;
        cmd_set_rasterization_samples_ext: PFN_vkCmdSetRasterizationSamplesEXT =
            "vkCmdSetRasterizationSamplesEXT" => command_state::cmd_set_rasterization_samples;
        cmd_set_alpha_to_coverage_enable_ext: PFN_vkCmdSetAlphaToCoverageEnableEXT =
            "vkCmdSetAlphaToCoverageEnableEXT" => lines::cmd_set_alpha_to_coverage_enable;
        cmd_set_alpha_to_one_enable_ext: PFN_vkCmdSetAlphaToOneEnableEXT =
            "vkCmdSetAlphaToOneEnableEXT" => lines::cmd_set_alpha_to_one_enable;
        cmd_set_tessellation_domain_origin_ext: PFN_vkCmdSetTessellationDomainOriginEXT =
            "vkCmdSetTessellationDomainOriginEXT" =>
            followed_state::cmd_set_tessellation_domain_origin;
        create_framebuffer: PFN_vkCreateFramebuffer =
            "vkCreateFramebuffer" => render_passes::create_framebuffer;
        destroy_framebuffer: PFN_vkDestroyFramebuffer =
            "vkDestroyFramebuffer" => render_passes::destroy_framebuffer;
        cmd_begin_render_pass: PFN_vkCmdBeginRenderPass =
            "vkCmdBeginRenderPass" => render_targets::cmd_begin_render_pass;
        cmd_begin_render_pass2: PFN_vkCmdBeginRenderPass2 =
            "vkCmdBeginRenderPass2" | "vkCmdBeginRenderPass2KHR" => render_targets::cmd_begin_render_pass2;
        cmd_begin_rendering: PFN_vkCmdBeginRendering =
            "vkCmdBeginRendering" | "vkCmdBeginRenderingKHR" => render_targets::cmd_begin_rendering;
        cmd_next_subpass: PFN_vkCmdNextSubpass =
            "vkCmdNextSubpass" => render_targets::cmd_next_subpass;
        cmd_next_subpass2: PFN_vkCmdNextSubpass2 =
            "vkCmdNextSubpass2" | "vkCmdNextSubpass2KHR" => render_targets::cmd_next_subpass2;
        cmd_end_render_pass: PFN_vkCmdEndRenderPass =
            "vkCmdEndRenderPass" => render_targets::cmd_end_render_pass;
        cmd_end_render_pass2: PFN_vkCmdEndRenderPass2 =
            "vkCmdEndRenderPass2" | "vkCmdEndRenderPass2KHR" => render_targets::cmd_end_render_pass2;
        cmd_end_rendering: PFN_vkCmdEndRendering =
            "vkCmdEndRendering" | "vkCmdEndRenderingKHR" => render_targets::cmd_end_rendering;
        cmd_begin_query: PFN_vkCmdBeginQuery = "vkCmdBeginQuery" => render_targets::cmd_begin_query;
        cmd_end_query: PFN_vkCmdEndQuery = "vkCmdEndQuery" => render_targets::cmd_end_query;
        cmd_begin_transform_feedback_ext: PFN_vkCmdBeginTransformFeedbackEXT =
            "vkCmdBeginTransformFeedbackEXT" => render_targets::cmd_begin_transform_feedback_ext;
        cmd_end_transform_feedback_ext: PFN_vkCmdEndTransformFeedbackEXT =
            "vkCmdEndTransformFeedbackEXT" => render_targets::cmd_end_transform_feedback_ext;
        cmd_bind_descriptor_sets: PFN_vkCmdBindDescriptorSets =
            "vkCmdBindDescriptorSets" => render_targets::cmd_bind_descriptor_sets;
        cmd_set_primitive_restart_enable: PFN_vkCmdSetPrimitiveRestartEnable =
            "vkCmdSetPrimitiveRestartEnable" | "vkCmdSetPrimitiveRestartEnableEXT" =>
            converted_draws::cmd_set_primitive_restart_enable;
        cmd_pipeline_barrier: PFN_vkCmdPipelineBarrier = "vkCmdPipelineBarrier";
        cmd_dispatch: PFN_vkCmdDispatch = "vkCmdDispatch";
        cmd_copy_buffer: PFN_vkCmdCopyBuffer = "vkCmdCopyBuffer";
        cmd_fill_buffer: PFN_vkCmdFillBuffer = "vkCmdFillBuffer";
        create_compute_pipelines: PFN_vkCreateComputePipelines = "vkCreateComputePipelines";
        create_descriptor_set_layout: PFN_vkCreateDescriptorSetLayout =
            "vkCreateDescriptorSetLayout";
        destroy_descriptor_set_layout: PFN_vkDestroyDescriptorSetLayout =
            "vkDestroyDescriptorSetLayout";
        create_descriptor_pool: PFN_vkCreateDescriptorPool = "vkCreateDescriptorPool";
        destroy_descriptor_pool: PFN_vkDestroyDescriptorPool = "vkDestroyDescriptorPool";
        allocate_descriptor_sets: PFN_vkAllocateDescriptorSets = "vkAllocateDescriptorSets";
        update_descriptor_sets: PFN_vkUpdateDescriptorSets = "vkUpdateDescriptorSets";
        cmd_set_line_stipple_enable_ext: PFN_vkCmdSetLineStippleEnableEXT =
            "vkCmdSetLineStippleEnableEXT";
        cmd_set_line_stipple: PFN_vkCmdSetLineStippleKHR =
            "vkCmdSetLineStippleKHR" | "vkCmdSetLineStippleEXT";
        cmd_set_viewport: PFN_vkCmdSetViewport =
            "vkCmdSetViewport" => command_state::cmd_set_viewport;
        cmd_set_viewport_with_count: PFN_vkCmdSetViewportWithCount =
            "vkCmdSetViewportWithCount" | "vkCmdSetViewportWithCountEXT" =>
            command_state::cmd_set_viewport_with_count;
        cmd_set_front_face: PFN_vkCmdSetFrontFace =
            "vkCmdSetFrontFace" | "vkCmdSetFrontFaceEXT" => command_state::cmd_set_front_face;
        create_buffer: PFN_vkCreateBuffer = "vkCreateBuffer" => converted_draws::create_buffer;
        destroy_buffer: PFN_vkDestroyBuffer = "vkDestroyBuffer" => converted_draws::destroy_buffer;
        get_buffer_memory_requirements: PFN_vkGetBufferMemoryRequirements =
            "vkGetBufferMemoryRequirements";
        allocate_memory: PFN_vkAllocateMemory = "vkAllocateMemory";
        free_memory: PFN_vkFreeMemory = "vkFreeMemory";
        bind_buffer_memory: PFN_vkBindBufferMemory = "vkBindBufferMemory";
        get_buffer_device_address: PFN_vkGetBufferDeviceAddress =
            "vkGetBufferDeviceAddress" | "vkGetBufferDeviceAddressKHR";
        map_memory: PFN_vkMapMemory = "vkMapMemory";
        cmd_bind_vertex_buffers: PFN_vkCmdBindVertexBuffers = "vkCmdBindVertexBuffers";
    }
);
    };
}

/// The layer's own commands, handed to `$expand`.
macro_rules! layer_command_list {
    ($expand:ident) => {
$expand!(
    /// The layer's own command `name`, with the extension that provides it.
    layer_command {
        CMD_SET_TESSELLATION_DEFAULT_LEVELS: PFN_vkCmdSetTessellationDefaultLevelsGLSEM in TessellationDefaultLevels =>
            command_state::cmd_set_tessellation_default_levels;
        CMD_SET_POINT_SIZE: PFN_vkCmdSetPointSizeGLSEM in GlState =>
            command_state::cmd_set_point_size;
        CMD_SET_PROGRAM_POINT_SIZE_ENABLE: PFN_vkCmdSetProgramPointSizeEnableGLSEM in GlState =>
            command_state::cmd_set_program_point_size_enable;
        CMD_SET_CLIP_DISTANCE_ENABLE: PFN_vkCmdSetClipDistanceEnableGLSEM in GlState =>
            command_state::cmd_set_clip_distance_enable;
        CMD_SET_LINE_STIPPLE: PFN_vkCmdSetLineStippleGLSEM in GlState =>
            lines::cmd_set_line_stipple;
        CMD_SET_LINE_STIPPLE_ENABLE: PFN_vkCmdSetLineStippleEnableGLSEM in GlState =>
            lines::cmd_set_line_stipple_enable;
        CMD_SET_POINT_SPRITE_COORD_ORIGIN: PFN_vkCmdSetPointSpriteCoordOriginGLSEM in GlState =>
            command_state::cmd_set_point_sprite_coord_origin;
        CMD_SET_VERTEX_ATTRIB: PFN_vkCmdSetVertexAttribGLSEM in GlState =>
            unfed_inputs::cmd_set_vertex_attrib;
        CMD_SET_PRIMITIVE_MODE: PFN_vkCmdSetPrimitiveModeGLSEM in GlState =>
            gl_primitives::cmd_set_primitive_mode;
    }
);
    };
}

pub(crate) use {device_commands, instance_commands, layer_command_list};
instance_commands!(next_layer_table);
device_commands!(next_layer_table);

#[cfg(test)]
mod tests {
    //! `glsem_abi`, the manifest, the header and the table above say the same.

    use crate::layer::support::settings::KEYS;
    use glsem_abi as abi;
    use glsem_spirv::semantics::SEMANTICS;
    use std::collections::BTreeSet;

    const MANIFEST: &str = include_str!("../../../layer-manifest/VkLayer_glsem.json");
    const HEADER: &str = include_str!("../../../include/vk_glsem.h");

    #[test]
    fn the_manifest_lists_the_abi() {
        let manifest: serde_json::Value = serde_json::from_str(MANIFEST).unwrap();
        let layer = &manifest["layer"];
        assert_eq!(layer["name"], abi::LAYER_NAME);
        let listed = layer["device_extensions"].as_array().unwrap();
        assert_eq!(listed.len(), abi::EXTENSIONS.len());
        for (json, ext) in listed.iter().zip(abi::EXTENSIONS) {
            assert_eq!(json["name"], ext.name);
            assert_eq!(json["spec_version"], ext.spec_version.to_string());
            let entrypoints: Vec<&str> = json["entrypoints"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap())
                .collect();
            assert_eq!(entrypoints, ext.commands, "{}", ext.name);
        }
        let settings: BTreeSet<(&str, &str)> = layer["features"]["settings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["key"].as_str().unwrap(), s["env"].as_str().unwrap()))
            .collect();
        let semantic_keys = SEMANTICS
            .iter()
            .filter_map(|s| Some(s.setting.as_ref()?.key));
        let envs: Vec<(&str, String)> = KEYS
            .into_iter()
            .chain(semantic_keys)
            .map(|key| (key, format!("VK_GLSEM_{}", key.to_ascii_uppercase())))
            .collect();
        let read: BTreeSet<(&str, &str)> = envs.iter().map(|(k, e)| (*k, e.as_str())).collect();
        assert_eq!(
            settings, read,
            "the manifest's settings are the ones the layer reads"
        );
    }

    /// Rust's spelling of a C parameter of `vk_glsem.h` (an array parameter is a pointer).
    fn rust_type(c_param: &str) -> String {
        let c_type = c_param.trim().rsplit_once(' ').unwrap().0;
        let (pointer, c_type) = match c_type.strip_prefix("const ") {
            Some(t) if c_param.contains('[') => ("*const ", t),
            _ => ("", c_type),
        };
        let rust = match c_type {
            "VkCommandBuffer" => "ash::vk::definitions::CommandBuffer",
            "float" => "f32",
            // An enum parameter is its 32-bit value.
            "VkBool32" | "uint32_t" | "VkPrimitiveModeGLSEM" => "u32",
            "uint16_t" => "u16",
            "VkFormat" => "ash::vk::enums::Format",
            "const void*" => "*const core::ffi::c_void",
            other => panic!("vk_glsem.h: add {other} to this test's types"),
        };
        format!("{pointer}{rust}")
    }

    /// The parameter lists after `opening` in the header, one per occurrence.
    fn parameter_lists(opening: &str) -> Vec<(String, Vec<String>)> {
        HEADER
            .match_indices(opening)
            .map(|(at, _)| {
                let rest = &HEADER[at + opening.len()..];
                let (name, rest) = rest.split_once('(').unwrap();
                let name = name.trim_end_matches(')').to_owned();
                let rest = rest.trim_start_matches(['(', ')']);
                let params = rest[..rest.find(");").unwrap()].trim_start_matches('(');
                (name, params.split(',').map(rust_type).collect())
            })
            .collect()
    }

    #[test]
    fn the_header_declares_the_abi() {
        for ext in abi::EXTENSIONS {
            let upper = ext
                .name
                .trim_start_matches("VK_GLSEM_")
                .to_ascii_uppercase();
            let name = format!("#define VK_GLSEM_{upper}_EXTENSION_NAME \"{}\"", ext.name);
            let version = format!("#define VK_GLSEM_{upper}_SPEC_VERSION {}", ext.spec_version);
            assert!(HEADER.contains(&name), "{name}");
            assert!(HEADER.contains(&version), "{version}");
        }
        let commands: Vec<&str> = abi::EXTENSIONS
            .iter()
            .flat_map(|e| e.commands)
            .copied()
            .collect();
        let typedefs = parameter_lists("typedef void (VKAPI_PTR *PFN_");
        let prototypes = parameter_lists("VKAPI_ATTR void VKAPI_CALL ");
        let names = |list: &[(String, Vec<String>)]| {
            list.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()
        };
        assert_eq!(names(&typedefs), commands);
        assert_eq!(names(&prototypes), commands);
        let rust_pfns = [
            std::any::type_name::<abi::PFN_vkCmdSetTessellationDefaultLevelsGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetPointSizeGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetProgramPointSizeEnableGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetClipDistanceEnableGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetLineStippleGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetLineStippleEnableGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetPointSpriteCoordOriginGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetVertexAttribGLSEM>(),
            std::any::type_name::<abi::PFN_vkCmdSetPrimitiveModeGLSEM>(),
        ];
        for (((name, typedef), (_, prototype)), rust) in
            typedefs.iter().zip(&prototypes).zip(rust_pfns)
        {
            assert_eq!(typedef, prototype, "{name}: typedef and prototype");
            let c = format!("unsafe extern \"system\" fn({})", typedef.join(", "));
            assert_eq!(c, rust, "{name}: vk_glsem.h and abi::PFN_{name}");
        }
    }
}

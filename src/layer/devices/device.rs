//! Device creation and lifetime: the layer's extensions (`vkEnumerateDeviceExtensionProperties`),
//! what `vkCreateDevice` removes from and adds to the create info (driver extensions and
//! features for `VK_GLSEM_gl_state`), the features and limits it records, and
//! `vkDestroyDevice`.

use ash::vk::{self, Handle};
use std::ffi::{c_char, CStr};
use std::sync::Arc;

use crate::layer::data::extensions::{EnabledExtensions, LayerExtension};
use crate::layer::loader::dispatch::DeviceDispatch;
use crate::layer::loader::frames::{
    destroy_registered_hook, ffi_guard, maybe_inject_panic, shield, unknown_handle,
};
use crate::layer::loader::registry::{instance_data, key_of, Dispatchable, DEVICES};
use crate::layer::loader::state::{
    Conventions, DeviceData, DeviceFacts, EnabledFeatures, InstanceData, Limits,
};
use crate::layer::pipelines::planner;
use crate::layer::rules;
use crate::layer::rules::vertex_formats::missing_vertex_formats;
use crate::layer::support::ffi::{chained, find_in_chain, link_in_front, slice, typed_fn};
use crate::layer::support::loader_abi::{find_link_info, LayerDeviceCreateInfo};
use crate::layer::support::log;
use crate::layer::support::settings::LineEndpointSetting;
use glsem_abi as abi;
use glsem_spirv::line_endpoints::EndpointGrid;
use glsem_spirv::semantics::Semantic;

/// `vkEnumerateDeviceExtensionProperties`: the layer's own extensions for its name, the
/// driver's otherwise.
///
/// # Safety
/// Vulkan's valid usage for `vkEnumerateDeviceExtensionProperties`.
pub unsafe extern "system" fn enumerate_device_extension_properties(
    physical_device: vk::PhysicalDevice,
    p_layer_name: *const c_char,
    p_property_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    // SAFETY: the application's physical device, live by Vulkan's valid usage for the
    // command (this hook's contract).
    let physical_device = unsafe { Dispatchable::new(physical_device) };
    ffi_guard(
        "vkEnumerateDeviceExtensionProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            // SAFETY: pLayerName is NULL or nul-terminated (Vulkan's valid usage).
            let ours = !p_layer_name.is_null()
                && unsafe { CStr::from_ptr(p_layer_name) }.to_bytes() == abi::LAYER_NAME.as_bytes();
            if ours {
                // SAFETY: pPropertyCount is valid; pProperties is NULL or holds
                // *pPropertyCount elements (Vulkan's valid usage).
                let (count, properties) = unsafe {
                    (
                        &mut *p_property_count,
                        p_properties.as_mut().map(|_| p_properties),
                    )
                };
                // The layer's own extensions: the usual two-call idiom.
                let all = LayerExtension::ALL;
                let Some(properties) = properties else {
                    *count = all.len() as u32;
                    return vk::Result::SUCCESS;
                };
                let n = (*count as usize).min(all.len());
                for (i, ext) in all[..n].iter().enumerate() {
                    let mut props = vk::ExtensionProperties {
                        spec_version: ext.abi().spec_version,
                        ..Default::default()
                    };
                    for (dst, src) in props.extension_name.iter_mut().zip(ext.name().as_bytes()) {
                        *dst = *src as c_char;
                    }
                    // SAFETY: i < n <= *pPropertyCount.
                    unsafe { *properties.add(i) = props };
                }
                *count = n as u32;
                return if n < all.len() {
                    vk::Result::INCOMPLETE
                } else {
                    vk::Result::SUCCESS
                };
            }
            match instance_data(physical_device)
                .and_then(|i| i.table.enumerate_device_extension_properties)
            {
                // SAFETY: the next layer's `vkEnumerateDeviceExtensionProperties` with the
                // arguments the application gave this hook, which Vulkan's valid usage for
                // the command (this hook's contract) makes valid for it as they were for
                // the hook.
                Some(next) => unsafe {
                    next(
                        physical_device.handle(),
                        p_layer_name,
                        p_property_count,
                        p_properties,
                    )
                },
                None => unknown_handle("vkEnumerateDeviceExtensionProperties"),
            }
        },
    )
}

/// What `vkCreateDevice` learns from the create info before calling down, and what it
/// changes in it: the layer's own extensions are removed; for `VK_GLSEM_gl_state`, the
/// driver extensions and features of GL's conventions are added where the driver has them.
struct DevicePrep {
    /// The enabled extensions to pass down, when they differ from the application's.
    extensions: Option<Vec<*const c_char>>,
    /// Feature structs put in front of the application's `pNext` chain (boxed: the chain
    /// points into them).
    added_features: Box<AddedFeatures>,
    /// A copy of `pEnabledFeatures` with `shaderTessellationAndGeometryPointSize` set.
    core_features: Option<Box<vk::PhysicalDeviceFeatures>>,
    facts: DeviceFacts,
}

#[derive(Default)]
struct AddedFeatures {
    provoking_vertex: Option<vk::PhysicalDeviceProvokingVertexFeaturesEXT<'static>>,
    depth_clip_control: Option<vk::PhysicalDeviceDepthClipControlFeaturesEXT<'static>>,
    draw_parameters: Option<vk::PhysicalDeviceShaderDrawParametersFeatures<'static>>,
    line_rasterization: Option<vk::PhysicalDeviceLineRasterizationFeaturesKHR<'static>>,
    dynamic_line_mode: Option<vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'static>>,
    list_restart: Option<vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT<'static>>,
}

/// Chains the feature struct `added` in front of `out`'s `pNext`, where the layer adds it.
fn link_added<F: vk::TaggedStructure>(out: &mut vk::DeviceCreateInfo<'_>, added: &mut Option<F>) {
    if let Some(f) = added {
        link_in_front(out, f);
    }
}

impl DevicePrep {
    /// `ci` as the driver gets it.
    fn patch<'a>(&'a mut self, ci: &vk::DeviceCreateInfo<'a>) -> vk::DeviceCreateInfo<'a> {
        let mut out = *ci;
        if let Some(exts) = &self.extensions {
            out.enabled_extension_count = exts.len() as u32;
            out.pp_enabled_extension_names = exts.as_ptr();
        }
        if let Some(core) = &self.core_features {
            out.p_enabled_features = &**core;
        }
        let added = &mut *self.added_features;
        link_added(&mut out, &mut added.provoking_vertex);
        link_added(&mut out, &mut added.depth_clip_control);
        link_added(&mut out, &mut added.draw_parameters);
        link_added(&mut out, &mut added.line_rasterization);
        link_added(&mut out, &mut added.dynamic_line_mode);
        link_added(&mut out, &mut added.list_restart);
        out
    }
}

const PROVOKING_VERTEX: &CStr = c"VK_EXT_provoking_vertex";
const DEPTH_CLIP_CONTROL: &CStr = c"VK_EXT_depth_clip_control";
const LINE_RASTERIZATION_KHR: &CStr = c"VK_KHR_line_rasterization";
const LINE_RASTERIZATION_EXT: &CStr = c"VK_EXT_line_rasterization";
const SHADER_OBJECT: &CStr = c"VK_EXT_shader_object";
const GRAPHICS_PIPELINE_LIBRARY: &CStr = c"VK_EXT_graphics_pipeline_library";
const EXTENDED_DYNAMIC_STATE_3: &CStr = c"VK_EXT_extended_dynamic_state3";
const LIST_RESTART: &CStr = c"VK_EXT_primitive_topology_list_restart";

/// A host-visible, host-coherent memory type of `physical_device` (Vulkan guarantees one).
fn host_coherent_memory(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
) -> Option<u32> {
    let get = inst.table.get_physical_device_memory_properties?;
    let mut props = vk::PhysicalDeviceMemoryProperties::default();
    // SAFETY: the next layer's command on a live physical device (a `Dispatchable`) of
    // `inst`, the instance its dispatch key found.
    unsafe { get(physical_device.handle(), &mut props) };
    let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    props.memory_types[..props.memory_type_count as usize]
        .iter()
        .position(|t| t.property_flags.contains(wanted))
        .map(|i| i as u32)
}

/// Whether the driver below lists `name` for `physical_device`.
/// # Safety
/// `physical_device` belongs to `inst`.
unsafe fn driver_has_extension(
    inst: &InstanceData,
    physical_device: vk::PhysicalDevice,
    name: &CStr,
) -> bool {
    // SAFETY: the next layer's command with its two-call idiom; `props` holds `count`
    // elements.
    unsafe {
        let Some(enumerate) = inst.table.enumerate_device_extension_properties else {
            return false;
        };
        let mut count = 0;
        if enumerate(
            physical_device,
            std::ptr::null(),
            &mut count,
            std::ptr::null_mut(),
        ) != vk::Result::SUCCESS
        {
            return false;
        }
        let mut props = vec![vk::ExtensionProperties::default(); count as usize];
        let result = enumerate(
            physical_device,
            std::ptr::null(),
            &mut count,
            props.as_mut_ptr(),
        );
        result.as_raw() >= 0
            && props[..count as usize]
                .iter()
                .any(|p| p.extension_name_as_c_str() == Ok(name))
    }
}

/// A name of `ppEnabledExtensionNames` (`None` for NULL).
///
/// # Safety
/// `n` is NULL or nul-terminated (Vulkan's valid usage).
unsafe fn extension_name<'a>(n: *const c_char) -> Option<&'a CStr> {
    // SAFETY: nul-terminated (the caller's contract); NULL is not a name.
    (!n.is_null()).then(|| unsafe { CStr::from_ptr(n) })
}

/// What the layer passes down for `ci` and learns about the device: the application's
/// extensions without the layer's own, and for `VK_GLSEM_gl_state` the driver features
/// behind GL's conventions ([`prepare_gl_state`]).
///
/// # Safety
/// `ci` and its chain are valid; `physical_device` belongs to `inst`.
unsafe fn prepare_device(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
    ci: &vk::DeviceCreateInfo<'_>,
) -> DevicePrep {
    maybe_inject_panic(&inst.settings, "vkCreateDevice");
    // SAFETY: ppEnabledExtensionNames holds enabledExtensionCount names (Vulkan's valid
    // usage; `ci` is valid by this function's contract).
    let app_extensions =
        unsafe { slice(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    // SAFETY: each name is nul-terminated (Vulkan's valid usage).
    let name_of = |n: *const c_char| unsafe { extension_name(n) };
    let app_names: Vec<&CStr> = app_extensions.iter().filter_map(|&n| name_of(n)).collect();
    let is_layer_extension = |name: &CStr| {
        LayerExtension::ALL
            .iter()
            .any(|e| name.to_bytes() == e.name().as_bytes())
    };
    let layer_enabled = |ext: LayerExtension| {
        app_names
            .iter()
            .any(|n| n.to_bytes() == ext.name().as_bytes())
    };
    let layer_extensions = EnabledExtensions {
        levels: layer_enabled(LayerExtension::TessellationDefaultLevels),
        gl_state: layer_enabled(LayerExtension::GlState),
    };
    let mut extensions: Vec<*const c_char> = app_extensions
        .iter()
        .copied()
        .filter(|&n| !name_of(n).is_some_and(is_layer_extension))
        .collect();
    let limits = device_limits(inst, physical_device);
    // SAFETY: `ci` and its chain are valid (this function's contract).
    let mut features = unsafe { enabled_features(ci) };
    let gl_state = if layer_extensions.gl_state {
        // SAFETY: this function's contract.
        unsafe {
            prepare_gl_state(
                inst,
                physical_device,
                ci,
                &app_names,
                &mut extensions,
                &mut features,
            )
        }
    } else {
        GlStatePrep::default()
    };
    let changed = extensions.len() != app_extensions.len()
        || layer_extensions != EnabledExtensions::default();
    let mut conventions = gl_state.conventions;
    rules::decide_conventions(&inst.settings, &layer_extensions, &mut conventions);
    DevicePrep {
        extensions: changed.then_some(extensions),
        added_features: Box::new(gl_state.added),
        core_features: gl_state.core_features,
        facts: DeviceFacts {
            features,
            limits,
            extensions: layer_extensions,
            conventions,
            host_coherent_memory: host_coherent_memory(inst, physical_device),
            missing_vertex_formats: missing_vertex_formats(inst, physical_device),
        },
    }
}

/// The limits the layer reads of `physical_device` (Vulkan's minimums when the query is
/// missing).
fn device_limits(inst: &InstanceData, physical_device: Dispatchable<vk::PhysicalDevice>) -> Limits {
    let Some(get) = inst.table.get_physical_device_properties else {
        return Limits::REQUIRED_MINIMUM;
    };
    let mut props = vk::PhysicalDeviceProperties::default();
    // SAFETY: the next layer's command on a live physical device (a `Dispatchable`) of
    // `inst`, the instance its dispatch key found.
    unsafe { get(physical_device.handle(), &mut props) };
    let l = &props.limits;
    Limits {
        max_color_attachments: l.max_color_attachments,
        max_fragment_output_attachments: l.max_fragment_output_attachments,
        max_fragment_dual_src_attachments: l.max_fragment_dual_src_attachments,
        max_push_constants_size: l.max_push_constants_size,
        max_tessellation_patch_size: l.max_tessellation_patch_size,
        max_vertex_input_bindings: l.max_vertex_input_bindings,
        max_vertex_input_attributes: l.max_vertex_input_attributes,
        max_vertex_input_attribute_offset: l.max_vertex_input_attribute_offset,
        max_interface_components: [
            l.max_tessellation_evaluation_output_components,
            l.max_geometry_output_components,
        ]
        .into_iter()
        .filter(|&n| n > 0)
        .fold(
            l.max_vertex_output_components
                .min(l.max_fragment_input_components),
            u32::min,
        ),
        stage_inputs: [
            l.max_vertex_input_attributes,
            l.max_tessellation_control_per_vertex_input_components / 4,
            l.max_tessellation_evaluation_input_components / 4,
            l.max_geometry_input_components / 4,
            l.max_fragment_input_components / 4,
        ],
        stage_outputs: [
            l.max_vertex_output_components / 4,
            l.max_tessellation_control_per_vertex_output_components / 4,
            l.max_tessellation_evaluation_output_components / 4,
            l.max_geometry_output_components / 4,
            l.max_fragment_output_attachments,
        ],
        min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
        max_storage_buffer_range: l.max_storage_buffer_range,
    }
}

/// What `VK_GLSEM_gl_state` adds to a device's create info, and the conventions it gives.
#[derive(Default)]
struct GlStatePrep {
    added: AddedFeatures,
    core_features: Option<Box<vk::PhysicalDeviceFeatures>>,
    conventions: Conventions,
}

/// What the driver supports of GL's conventions (all false where it could not be asked).
#[derive(Default)]
struct DriverSupport {
    /// `vkGetPhysicalDeviceFeatures2` was there to ask (a Vulkan 1.1 instance).
    queried: bool,
    provoking_vertex_last: bool,
    depth_clip_control: bool,
    draw_parameters: bool,
    bresenham_lines: bool,
    stippled_bresenham_lines: bool,
    /// `extendedDynamicState3LineRasterizationMode`.
    dynamic_line_mode: bool,
    /// `extendedDynamicState3LineStippleEnable`.
    dynamic_stipple_enable: bool,
    /// `primitiveTopologyListRestart`.
    list_restart: bool,
}

/// The driver features behind GL's conventions for `VK_GLSEM_gl_state`, in named steps:
/// the driver's support, GL's provoking vertex and depth range, `gl_InstanceID`'s draw
/// parameters, GL's lines, and the core features GL's point sizes and wide lines need.
/// `extensions` (passed down) and `features` (recorded) grow with what the layer enables.
///
/// # Safety
/// As for [`prepare_device`].
unsafe fn prepare_gl_state(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
    ci: &vk::DeviceCreateInfo<'_>,
    app_names: &[&CStr],
    extensions: &mut Vec<*const c_char>,
    features: &mut EnabledFeatures,
) -> GlStatePrep {
    let enabled = |ext: &CStr| app_names.contains(&ext);
    // SAFETY: the application's physical device belongs to `inst` (Vulkan's valid usage).
    let driver_has = |ext| unsafe { driver_has_extension(inst, physical_device.handle(), ext) };
    let lines_on = inst
        .settings
        .semantics
        .contains(Semantic::LineRasterization);
    let line_extension = line_extension(&enabled, &driver_has).filter(|_| lines_on);
    let support = driver_support(
        inst,
        physical_device,
        driver_has(PROVOKING_VERTEX),
        driver_has(DEPTH_CLIP_CONTROL),
        line_extension.is_some(),
        driver_has(EXTENDED_DYNAMIC_STATE_3),
        driver_has(LIST_RESTART),
    );
    let mut prep = GlStatePrep::default();
    // SAFETY: `ci`'s valid pNext chain (this function's contract).
    unsafe { adopt_conventions(ci, &support, &enabled, extensions, &mut prep) };
    // SAFETY: `ci`'s valid pNext chain (this function's contract).
    unsafe { enable_draw_parameters(ci, &support, features, &mut prep.added) };
    // Testing the route of devices without shaderDrawParameters on one that has it: the
    // feature the application may have enabled stays on; the layer reads the base from the
    // GL-state block all the same.
    if inst.settings.debug_force_instance_base_block {
        features.draw_parameters = false;
        prep.added.draw_parameters = None;
    }
    // SAFETY: `ci`'s valid pNext chain (this function's contract).
    unsafe {
        enable_lines(
            ci,
            &support,
            line_extension,
            &enabled,
            extensions,
            &mut prep,
        )
    };
    // Testing the route of devices without a dynamic line mode on one that has it: links
    // make their pre-rasterization library again with GL's line rule.
    if inst.settings.debug_force_line_rule_at_link {
        prep.conventions.library_line_mode = false;
        prep.conventions.dynamic_line_stipple = false;
    }
    prep.conventions.line_endpoints = line_endpoints(inst, physical_device, &prep.conventions);
    let libraries = enabled(GRAPHICS_PIPELINE_LIBRARY);
    warn_of_missing_conventions(&prep.conventions, lines_on, libraries);
    // SAFETY: `ci` is a valid device create info with a valid pNext chain (this function's
    // contract), and `physical_device` the instance's.
    prep.core_features =
        unsafe { patch_core_features(inst, physical_device.handle(), ci, lines_on, features) };
    prep
}

/// `VkPhysicalDeviceProperties::vendorID` of NVIDIA's GPUs.
const NVIDIA_VENDOR_ID: u32 = 0x10DE;

/// Who decides a line endpoint that the rasterizer snaps onto a pixel diamond's edge, which
/// GL's diamond-exit rule (and Mesa, the oracle) counts outside the diamond: the per-driver
/// table behind setting `line_endpoints = auto`. NVIDIA's rasterizer (its Vulkan and OpenGL
/// drivers alike, measured on an H200 with driver 580) counts such an endpoint inside where it
/// lies below the pixel's centre in framebuffer y: under a flipped viewport GL's choice turns
/// over. Returns the driver's line snapping where the layer moves these endpoints off the
/// edges (GL's lines only: where the layer gives Bresenham lines).
fn line_endpoints(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
    conventions: &Conventions,
) -> Option<EndpointGrid> {
    let get = inst.table.get_physical_device_properties?;
    if !conventions.bresenham_lines {
        return None;
    }
    let mut props = vk::PhysicalDeviceProperties::default();
    // SAFETY: the next layer's command on a live physical device (a `Dispatchable`) of
    // `inst`, the instance its dispatch key found.
    unsafe { get(physical_device.handle(), &mut props) };
    let layer_decides = match inst.settings.line_endpoints {
        LineEndpointSetting::Auto => props.vendor_id == NVIDIA_VENDOR_ID,
        LineEndpointSetting::Driver => false,
        LineEndpointSetting::Layer | LineEndpointSetting::DebugTowardCentre => true,
    };
    if !layer_decides {
        return None;
    }
    let mut lines = vk::PhysicalDeviceLineRasterizationPropertiesKHR::default();
    if let Some(get2) = inst
        .table
        .get_physical_device_properties2
        .filter(|_| inst.api_version >= vk::API_VERSION_1_1)
    {
        let mut query = vk::PhysicalDeviceProperties2::default();
        link_in_front(&mut query, &mut lines);
        // SAFETY: as above; the line rasterization extension is the device's (Bresenham
        // lines), so its properties struct may be chained; it lives until the call returns.
        unsafe { get2(physical_device.handle(), &mut query) };
    }
    Some(EndpointGrid {
        subpixel_bits: match lines.line_sub_pixel_precision_bits {
            0 => props.limits.sub_pixel_precision_bits.max(1),
            bits => bits,
        },
        toward_centre: inst.settings.line_endpoints == LineEndpointSetting::DebugTowardCentre,
    })
}

/// The line rasterization extension for GL's lines: the one the application enabled, else
/// the EXT one where the driver has it, else the KHR one (the same features and commands).
/// EXT first: validation layers and tools older than VK_KHR_line_rasterization (the
/// 1.3.239 validation layer of Debian 12, with NVIDIA 580 drivers that have both) do not
/// know the KHR extension and misread its dynamic line stipple state.
fn line_extension(
    enabled: &impl Fn(&CStr) -> bool,
    driver_has: &impl Fn(&'static CStr) -> bool,
) -> Option<&'static CStr> {
    [LINE_RASTERIZATION_EXT, LINE_RASTERIZATION_KHR]
        .into_iter()
        .find(|&e| enabled(e))
        .or_else(|| {
            [LINE_RASTERIZATION_EXT, LINE_RASTERIZATION_KHR]
                .into_iter()
                .find(|&e| driver_has(e))
        })
}

/// What the driver supports, through vkGetPhysicalDeviceFeatures2 (Vulkan 1.1), asking for
/// the extensions' features only where the driver has the extension.
fn driver_support(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
    has_provoking: bool,
    has_depth: bool,
    has_lines: bool,
    has_eds3: bool,
    has_list_restart: bool,
) -> DriverSupport {
    let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default();
    let mut list_restart = vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default();
    let mut provoking = vk::PhysicalDeviceProvokingVertexFeaturesEXT::default();
    let mut depth = vk::PhysicalDeviceDepthClipControlFeaturesEXT::default();
    let mut draw_parameters = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
    let mut lines = vk::PhysicalDeviceLineRasterizationFeaturesKHR::default();
    let mut query = vk::PhysicalDeviceFeatures2::default();
    if has_lines {
        link_in_front(&mut query, &mut lines);
    }
    if has_provoking {
        link_in_front(&mut query, &mut provoking);
    }
    if has_depth {
        link_in_front(&mut query, &mut depth);
    }
    if has_eds3 {
        link_in_front(&mut query, &mut eds3);
    }
    if has_list_restart {
        link_in_front(&mut query, &mut list_restart);
    }
    // Core in Vulkan 1.1, queried only where the query itself is.
    link_in_front(&mut query, &mut draw_parameters);
    let queried = match inst.table.get_physical_device_features2 {
        Some(get) if inst.api_version >= vk::API_VERSION_1_1 => {
            // SAFETY: the next layer's command on a live physical device (a
            // `Dispatchable`) of `inst`, the instance its dispatch key found; `query` chains
            // structs that live until it returns.
            unsafe { get(physical_device.handle(), &mut query) };
            true
        }
        _ => false,
    };
    if !queried {
        log::warning!(
            "VK_GLSEM_gl_state: the instance is older than Vulkan 1.1, so GL's provoking \
             vertex and depth range cannot be given to the driver; pipelines keep Vulkan's \
             conventions there"
        );
    }
    DriverSupport {
        queried,
        provoking_vertex_last: provoking.provoking_vertex_last != 0,
        depth_clip_control: depth.depth_clip_control != 0,
        draw_parameters: draw_parameters.shader_draw_parameters != 0,
        bresenham_lines: lines.bresenham_lines != 0,
        stippled_bresenham_lines: lines.stippled_bresenham_lines != 0,
        dynamic_line_mode: eds3.extended_dynamic_state3_line_rasterization_mode != 0,
        dynamic_stipple_enable: eds3.extended_dynamic_state3_line_stipple_enable != 0,
        list_restart: list_restart.primitive_topology_list_restart != 0,
    }
}

/// GL's provoking vertex and depth range: the application's own feature struct wins (the
/// layer does not chain a second one); otherwise the layer enables the extension and chains
/// the feature where the driver has it.
///
/// # Safety
/// `ci`'s pNext chain is valid.
unsafe fn adopt_conventions(
    ci: &vk::DeviceCreateInfo<'_>,
    support: &DriverSupport,
    enabled: &impl Fn(&CStr) -> bool,
    extensions: &mut Vec<*const c_char>,
    prep: &mut GlStatePrep,
) {
    // (the feature is on, the layer must chain it, the layer also enabled the extension).
    let mut adopt = |app: Option<bool>, supported: bool, ext: &'static CStr| match app {
        Some(on) => (on && enabled(ext), false, false),
        None if support.queried && supported => {
            let behind_the_application = !enabled(ext);
            if behind_the_application {
                extensions.push(ext.as_ptr());
            }
            (true, true, behind_the_application)
        }
        None => (false, false, false),
    };
    // The application's own feature structs, from `ci`'s pNext chain.
    // SAFETY: the chain is valid (this function's contract) and a struct's sType says its
    // type.
    let app_provoking = unsafe {
        find_in_chain::<vk::PhysicalDeviceProvokingVertexFeaturesEXT<'_>>(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT,
        )
    }
    .map(|app| app.provoking_vertex_last != 0);
    // SAFETY: the chain is valid (this function's contract) and a struct's sType says its
    // type.
    let app_depth = unsafe {
        find_in_chain::<vk::PhysicalDeviceDepthClipControlFeaturesEXT<'_>>(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_DEPTH_CLIP_CONTROL_FEATURES_EXT,
        )
    }
    .map(|app| app.depth_clip_control != 0);
    let conventions = &mut prep.conventions;
    let add;
    (
        conventions.provoking_vertex_last,
        add,
        conventions.layer_sets_provoking_mode,
    ) = adopt(
        app_provoking,
        support.provoking_vertex_last,
        PROVOKING_VERTEX,
    );
    prep.added.provoking_vertex = add.then(|| {
        vk::PhysicalDeviceProvokingVertexFeaturesEXT::default().provoking_vertex_last(true)
    });
    let add;
    (
        conventions.depth_clip_control,
        add,
        conventions.layer_sets_negative_one_to_one,
    ) = adopt(app_depth, support.depth_clip_control, DEPTH_CLIP_CONTROL);
    prep.added.depth_clip_control = add
        .then(|| vk::PhysicalDeviceDepthClipControlFeaturesEXT::default().depth_clip_control(true));
    // GL's quads under primitive restart keep the geometry shader's list topology where
    // lists may restart.
    // SAFETY: the chain is valid (this function's contract) and a struct's sType says its
    // type.
    let app_list_restart = unsafe {
        find_in_chain::<vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT<'_>>(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_PRIMITIVE_TOPOLOGY_LIST_RESTART_FEATURES_EXT,
        )
    }
    .map(|app| app.primitive_topology_list_restart != 0);
    let add;
    (conventions.list_restart, add, _) =
        adopt(app_list_restart, support.list_restart, LIST_RESTART);
    prep.added.list_restart = add.then(|| {
        vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT::default()
            .primitive_topology_list_restart(true)
    });
}

/// GL's gl_InstanceID needs the BaseInstance built-in: `shaderDrawParameters`, chained by
/// the layer unless the application's own struct (either of the two Vulkan allows) says.
///
/// # Safety
/// `ci`'s pNext chain is valid.
unsafe fn enable_draw_parameters(
    ci: &vk::DeviceCreateInfo<'_>,
    support: &DriverSupport,
    features: &mut EnabledFeatures,
    added: &mut AddedFeatures,
) {
    let app_has = |s_type| {
        // SAFETY: `ci`'s valid pNext chain (this function's contract).
        unsafe { find_in_chain::<vk::BaseInStructure<'_>>(ci.p_next, s_type) }.is_some()
    };
    let app_draw_parameters =
        app_has(vk::StructureType::PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES)
            || app_has(vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
    if !app_draw_parameters && support.queried && support.draw_parameters {
        features.draw_parameters = true;
        added.draw_parameters = Some(
            vk::PhysicalDeviceShaderDrawParametersFeatures::default().shader_draw_parameters(true),
        );
    }
    if !features.draw_parameters {
        log::info!(
            "VK_GLSEM_gl_state: no shaderDrawParameters: vertex shaders reading gl_InstanceID \
             take the base instance from the GL-state block, pushed at each draw"
        );
    }
}

/// GL's lines: Bresenham lines (and stippled ones) through `line_extension`, unless the
/// application's own struct says otherwise. Returns whether the application uses shader
/// objects without line rasterization of its own, which keeps the layer from enabling it.
///
/// # Safety
/// `ci`'s pNext chain is valid.
unsafe fn enable_lines(
    ci: &vk::DeviceCreateInfo<'_>,
    support: &DriverSupport,
    line_extension: Option<&'static CStr>,
    enabled: &impl Fn(&CStr) -> bool,
    extensions: &mut Vec<*const c_char>,
    prep: &mut GlStatePrep,
) {
    // SAFETY: `ci`'s valid pNext chain (this function's contract).
    let app_lines = unsafe {
        find_in_chain::<vk::PhysicalDeviceLineRasterizationFeaturesKHR<'_>>(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_KHR,
        )
    };
    // Shader objects then have to set the line rasterization mode and stipple enable
    // before every line draw (VUID-vkCmdDraw-None-08666 / -08669): where the application
    // did not ask for the extension, the layer sets them when shaders are bound.
    let shader_objects = enabled(SHADER_OBJECT) && app_lines.is_none();
    let conventions = &mut prep.conventions;
    match (line_extension, app_lines) {
        (Some(ext), Some(app)) => {
            conventions.bresenham_lines = app.bresenham_lines != 0 && enabled(ext);
            conventions.stippled_bresenham_lines =
                conventions.bresenham_lines && app.stippled_bresenham_lines != 0;
        }
        (Some(ext), None) if support.queried && support.bresenham_lines => {
            if !enabled(ext) {
                extensions.push(ext.as_ptr());
            }
            conventions.bresenham_lines = true;
            conventions.layer_sets_line_mode = shader_objects;
            conventions.stippled_bresenham_lines = support.stippled_bresenham_lines;
            prep.added.line_rasterization = Some(
                vk::PhysicalDeviceLineRasterizationFeaturesKHR::default()
                    .bresenham_lines(true)
                    .stippled_bresenham_lines(conventions.stippled_bresenham_lines),
            );
        }
        _ => {}
    }
    // SAFETY: `ci`'s valid pNext chain (this function's contract).
    let app_eds3 = unsafe {
        find_in_chain::<vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'_>>(
            ci.p_next,
            vk::StructureType::PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT,
        )
    };
    // A dynamic line mode GL's rule follows takes the stipple enable with it (the stipple
    // needs the Bresenham mode): where the application enabled that state, or the layer
    // does below.
    conventions.dynamic_line_stipple = conventions.stippled_bresenham_lines
        && app_eds3.is_some_and(|app| {
            app.extended_dynamic_state3_line_stipple_enable != 0
                && enabled(EXTENDED_DYNAMIC_STATE_3)
        });
    // Graphics pipeline libraries: a pre-rasterization library does not know whether its
    // pipelines will be single-sampled, so its line mode is made dynamic state the layer
    // follows at bind (`followed_state`), where the driver can.
    if conventions.bresenham_lines && enabled(GRAPHICS_PIPELINE_LIBRARY) {
        conventions.library_line_mode = match app_eds3 {
            Some(app) => {
                app.extended_dynamic_state3_line_rasterization_mode != 0
                    && enabled(EXTENDED_DYNAMIC_STATE_3)
            }
            None if support.dynamic_line_mode => {
                if !enabled(EXTENDED_DYNAMIC_STATE_3) {
                    extensions.push(EXTENDED_DYNAMIC_STATE_3.as_ptr());
                }
                conventions.dynamic_line_stipple =
                    conventions.stippled_bresenham_lines && support.dynamic_stipple_enable;
                prep.added.dynamic_line_mode = Some(
                    vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
                        .extended_dynamic_state3_line_rasterization_mode(true)
                        .extended_dynamic_state3_line_stipple_enable(
                            conventions.dynamic_line_stipple,
                        ),
                );
                true
            }
            None => false,
        };
    }
}

/// Says which of GL's line and provoking-vertex conventions the device cannot give
/// (`libraries`: the application enabled graphics pipeline libraries).
fn warn_of_missing_conventions(conventions: &Conventions, lines_on: bool, libraries: bool) {
    if lines_on && !conventions.bresenham_lines {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks VK_KHR/EXT_line_rasterization with \
             bresenhamLines; lines keep Vulkan's rules, not GL's diamond-exit rule, and \
             glLineStipple is not applied"
        );
    }
    if lines_on && conventions.bresenham_lines && !conventions.stippled_bresenham_lines {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks stippledBresenhamLines; lines follow GL's \
             diamond-exit rule, but glLineStipple is not applied"
        );
    }
    if lines_on && conventions.bresenham_lines && libraries && !conventions.library_line_mode {
        log::info!(
            "VK_GLSEM_gl_state: the driver lacks extendedDynamicState3LineRasterizationMode; \
             a pre-rasterization library cannot know whether its pipelines are single-sampled, \
             so each link makes it again with GL's line rule where they are"
        );
    }
    if !conventions.provoking_vertex_last {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks VK_EXT_provoking_vertex with \
             provokingVertexLast; flat-shaded varyings take the first vertex's value \
             (Vulkan's convention), not the last (GL's)"
        );
    }
}

/// GL sizes points in every stage; Vulkan lets tessellation and geometry shaders write the
/// size only with `shaderTessellationAndGeometryPointSize`; GL's glLineWidth needs
/// `wideLines`; GL's quads, quad strips and polygons are drawn through a generated geometry
/// shader (`geometryShader`). They can be added where the application passes pEnabledFeatures (a copy is
/// patched); with VkPhysicalDeviceFeatures2 the application's struct stays as it is.
///
/// # Safety
/// `ci` is valid; `physical_device` belongs to `inst`.
unsafe fn patch_core_features(
    inst: &InstanceData,
    physical_device: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
    lines_on: bool,
    features: &mut EnabledFeatures,
) -> Option<Box<vk::PhysicalDeviceFeatures>> {
    // SAFETY: pEnabledFeatures is NULL or valid (Vulkan's valid usage).
    let app = unsafe { ci.p_enabled_features.as_ref() }?;
    let mut supported = vk::PhysicalDeviceFeatures::default();
    if let Some(get) = inst.table.get_physical_device_features {
        // SAFETY: the next layer's command, on a physical device of `inst`.
        unsafe { get(physical_device, &mut supported) };
    }
    let mut copy = Box::new(*app);
    let mut changed = false;
    if !features.tess_geom_point_size && supported.shader_tessellation_and_geometry_point_size != 0
    {
        copy.shader_tessellation_and_geometry_point_size = vk::TRUE;
        features.tess_geom_point_size = true;
        changed = true;
    }
    if !features.geometry_shader && supported.geometry_shader != 0 {
        copy.geometry_shader = vk::TRUE;
        features.geometry_shader = true;
        changed = true;
    }
    if lines_on && app.wide_lines == 0 && supported.wide_lines != 0 {
        copy.wide_lines = vk::TRUE;
        changed = true;
    }
    changed.then_some(copy)
}

/// The features the rewrites depend on, from `pEnabledFeatures` or the `pNext` chain.
unsafe fn enabled_features(ci: &vk::DeviceCreateInfo<'_>) -> EnabledFeatures {
    // SAFETY: `ci` and its chain are valid (the caller's contract).
    unsafe {
        let mut f = EnabledFeatures::default();
        let mut core = |c: &vk::PhysicalDeviceFeatures| {
            f.tessellation_shader |= c.tessellation_shader != 0;
            f.geometry_shader |= c.geometry_shader != 0;
            f.tess_geom_point_size |= c.shader_tessellation_and_geometry_point_size != 0;
            f.draw_indirect_first_instance |= c.draw_indirect_first_instance != 0;
        };
        if let Some(c) = ci.p_enabled_features.as_ref() {
            core(c);
        }
        let mut p = ci.p_next as *const vk::BaseInStructure<'_>;
        while let Some(s) = p.as_ref() {
            match s.s_type {
                vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 => {
                    core(&chained::<vk::PhysicalDeviceFeatures2<'_>>(p).features)
                }
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                    f.dynamic_rendering |=
                        chained::<vk::PhysicalDeviceVulkan13Features<'_>>(p).dynamic_rendering != 0
                }
                vk::StructureType::PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES => {
                    f.dynamic_rendering |=
                        chained::<vk::PhysicalDeviceDynamicRenderingFeatures<'_>>(p)
                            .dynamic_rendering
                            != 0
                }
                vk::StructureType::PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES => {
                    f.draw_parameters |=
                        chained::<vk::PhysicalDeviceShaderDrawParametersFeatures<'_>>(p)
                            .shader_draw_parameters
                            != 0
                }
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_1_FEATURES => {
                    f.draw_parameters |= chained::<vk::PhysicalDeviceVulkan11Features<'_>>(p)
                        .shader_draw_parameters
                        != 0
                }
                vk::StructureType::PHYSICAL_DEVICE_MAINTENANCE_5_FEATURES_KHR => {
                    f.maintenance5 |= chained::<vk::PhysicalDeviceMaintenance5FeaturesKHR<'_>>(p)
                        .maintenance5
                        != 0
                }
                vk::StructureType::PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT => {
                    f.transform_feedback |=
                        chained::<vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'_>>(p)
                            .transform_feedback
                            != 0
                }
                _ => {}
            }
            p = s.p_next;
        }
        f
    }
}

/// `vkCreateDevice`: removes the layer's extensions, adds what `VK_GLSEM_gl_state` needs,
/// calls down through the loader's link and records the device.
///
/// # Safety
/// Vulkan's valid usage for the command.
pub unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
) -> vk::Result {
    // SAFETY: the application's physical device, live by Vulkan's valid usage for the
    // command (this hook's contract).
    let physical_device = unsafe { Dispatchable::new(physical_device) };
    ffi_guard(
        "vkCreateDevice",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let Some(inst) = instance_data(physical_device) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: the loader's create info, link info and layer list are valid (the
            // caller's contract); the next layer reads its own link, so the chain advances
            // before calling down.
            let (app_ci, next_gipa, next_gdpa) = unsafe {
                let ci = &*p_create_info;
                let link: *mut LayerDeviceCreateInfo =
                    find_link_info(ci.p_next, vk::StructureType::LOADER_DEVICE_CREATE_INFO);
                let Some(link) = link.as_mut() else {
                    return vk::Result::ERROR_INITIALIZATION_FAILED;
                };
                let Some(layer_info) = link.p_layer_info.as_ref() else {
                    return vk::Result::ERROR_INITIALIZATION_FAILED;
                };
                link.p_layer_info = layer_info.p_next;
                (
                    ci,
                    layer_info.pfn_next_get_instance_proc_addr,
                    layer_info.pfn_next_get_device_proc_addr,
                )
            };
            // SAFETY: the next layer's vkGetInstanceProcAddr, with a nul-terminated name.
            let create = unsafe { next_gipa(inst.handle, c"vkCreateDevice".as_ptr()) };
            let Some(create) = create else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: the command vkGetInstanceProcAddr named, of that type.
            let create = unsafe { typed_fn::<vk::PFN_vkCreateDevice>(create) };

            let mut prep = shield("vkCreateDevice", || {
                // SAFETY: a valid create info (the caller's contract).
                unsafe { prepare_device(&inst, physical_device, app_ci) }
            });
            // The layer implements its own extensions; the driver must not see them.
            let ci = match &mut prep {
                Some(p) => p.patch(app_ci),
                None => *app_ci,
            };
            // SAFETY: the application's create info, patched with structs that live until
            // the call returns.
            let result = unsafe { create(physical_device.handle(), &ci, p_allocator, p_device) };
            if result != vk::Result::SUCCESS {
                return result;
            }
            // SAFETY: the driver wrote the handle on success.
            let device = unsafe { *p_device };
            let recorded = shield("vkCreateDevice", || {
                maybe_inject_panic(&inst.settings, "vkCreateDevice/record");
                // SAFETY: the next layer's vkGetDeviceProcAddr returns commands of the
                // types it names.
                let table =
                    unsafe { DeviceDispatch::load(|h, name| next_gdpa(h, name.as_ptr()), device) };
                let facts = prep.as_ref().map(|p| p.facts).unwrap_or_default();
                log::debug!("device {:#x} created: {facts:?}", device.as_raw());
                let device_key = rules::device_key(&inst.settings, &facts);
                let data = DeviceData::new(
                    device,
                    next_gdpa,
                    table,
                    inst.settings.clone(),
                    facts,
                    device_key,
                    planner::make_again,
                );
                // SAFETY: the device the next layer just created.
                let key = key_of(unsafe { Dispatchable::new(device) })?;
                crate::layer::loader::registry::insert(&DEVICES, key, Arc::new(data));
                Some(())
            })
            .flatten();
            if recorded.is_none() {
                // Every later call on an unrecorded device would fail: undo the driver's
                // work and say so now.
                log::error!("vkCreateDevice: the layer could not record the device");
                // SAFETY: the next layer's vkGetDeviceProcAddr, with a nul-terminated name.
                if let Some(destroy) = unsafe { next_gdpa(device, c"vkDestroyDevice".as_ptr()) } {
                    // SAFETY: that is the type of the command named; the device was just
                    // created with `p_allocator` and nothing else holds it.
                    unsafe {
                        let destroy = typed_fn::<vk::PFN_vkDestroyDevice>(destroy);
                        destroy(device, p_allocator);
                    }
                }
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            result
        },
    )
}

destroy_registered_hook! {
    /// `vkDestroyDevice`: every record of the device goes with it.
    "vkDestroyDevice",
    fn destroy_device(device: vk::Device),
    &DEVICES,
    forget: |dev| {
        // The TCS shader objects the layer generated, and the layouts it made.
        for record in dev.records.tes_objects.write().drain().map(|(_, r)| r) {
            crate::layer::pipelines::shader_object::destroy_generated(dev, &record);
        }
        for record in dev.records.vertex_objects.write().drain().map(|(_, r)| r) {
            crate::layer::commands::primitive_objects::destroy_generated(dev, &record);
        }
        for binding in dev.records.block_objects.write().drain().map(|(_, b)| b) {
            crate::layer::pipelines::shader_object::destroy_block_layout(dev, &binding);
        }
        let command_buffers = std::mem::take(&mut *dev.records.command_buffers.lock());
        crate::layer::commands::current_attributes::release(dev, command_buffers.into_values());
        dev.attribute_memory.destroy_spare(dev);
        dev.line_loops.destroy(dev);
        dev.primitive_indices.destroy(dev);
    },
    next: |dev| dev.table.destroy_device,
}

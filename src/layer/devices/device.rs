//! Device creation and lifetime: the layer's extensions (`vkEnumerateDeviceExtensionProperties`),
//! what `vkCreateDevice` removes from and adds to the create info (driver extensions and
//! features for `VK_GLSEM_gl_state`), the features and limits it records, and
//! `vkDestroyDevice`.

use ash::vk::{self, Handle};
use std::ffi::{c_char, CStr};
use std::sync::Arc;

use crate::layer::data::extensions::{EnabledExtensions, LayerExtension};
use crate::layer::loader::device_setup::{AddedFeature, DeviceSetup};
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
use crate::layer::support::ffi::{chained, slice, typed_fn};
use crate::layer::support::loader_abi::{find_link_info, LayerDeviceCreateInfo};
use crate::layer::support::log;
use glsem_abi as abi;

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
    /// Feature structs the rules put in front of the application's `pNext` chain (boxed:
    /// the chain points into them).
    added_features: Vec<Box<dyn AddedFeature>>,
    /// A copy of `pEnabledFeatures` with `shaderTessellationAndGeometryPointSize` set.
    core_features: Option<Box<vk::PhysicalDeviceFeatures>>,
    facts: DeviceFacts,
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
        for feature in &mut self.added_features {
            feature.link(&mut out);
        }
        out
    }
}

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
    let extensions: Vec<*const c_char> = app_extensions
        .iter()
        .copied()
        .filter(|&n| !name_of(n).is_some_and(is_layer_extension))
        .collect();
    let limits = device_limits(inst, physical_device);
    // SAFETY: `ci` and its chain are valid (this function's contract).
    let features = unsafe { enabled_features(ci) };
    let gl_state = match layer_extensions.gl_state {
        // SAFETY: this function's contract.
        true => unsafe {
            prepare_gl_state(inst, physical_device, ci, &app_names, extensions, features)
        },
        false => GlStatePrep {
            extensions,
            features,
            added: Vec::new(),
            core_features: None,
            conventions: Conventions::default(),
        },
    };
    let changed = gl_state.extensions.len() != app_extensions.len()
        || layer_extensions != EnabledExtensions::default();
    DevicePrep {
        extensions: changed.then_some(gl_state.extensions),
        added_features: gl_state.added,
        core_features: gl_state.core_features,
        facts: DeviceFacts {
            features: gl_state.features,
            limits,
            extensions: layer_extensions,
            conventions: gl_state.conventions,
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
        sub_pixel_precision_bits: l.sub_pixel_precision_bits,
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
struct GlStatePrep {
    extensions: Vec<*const c_char>,
    features: EnabledFeatures,
    added: Vec<Box<dyn AddedFeature>>,
    core_features: Option<Box<vk::PhysicalDeviceFeatures>>,
    conventions: Conventions,
}

/// The driver extensions, features and conventions each rule needs for
/// `VK_GLSEM_gl_state` (`rules::setup_device`), and the core features they want.
/// `extensions` (passed down) and `features` (recorded) grow with what the rules enable.
///
/// # Safety
/// As for [`prepare_device`].
unsafe fn prepare_gl_state(
    inst: &InstanceData,
    physical_device: Dispatchable<vk::PhysicalDevice>,
    ci: &vk::DeviceCreateInfo<'_>,
    app_names: &[&CStr],
    extensions: Vec<*const c_char>,
    features: EnabledFeatures,
) -> GlStatePrep {
    // SAFETY: this function's contract.
    let mut setup = unsafe {
        DeviceSetup::new(
            inst,
            physical_device.handle(),
            ci,
            app_names,
            extensions,
            features,
        )
    };
    if !setup.can_query() {
        log::warning!(
            "VK_GLSEM_gl_state: the instance is older than Vulkan 1.1, so GL's provoking \
             vertex and depth range cannot be given to the driver; pipelines keep Vulkan's \
             conventions there"
        );
    }
    rules::setup_device(&mut setup);
    // SAFETY: `ci` is a valid device create info (this function's contract), and
    // `physical_device` the instance's.
    let core_features = unsafe {
        patch_core_features(
            inst,
            physical_device.handle(),
            ci,
            &setup.core_wanted,
            &mut setup.features,
        )
    };
    // The fragment line route's stipple counts need vertex-stage stores, settled with the
    // core features just now.
    setup.conventions.lines.stipple_counts &= setup.features.vertex_stores;
    GlStatePrep {
        extensions: setup.extensions,
        features: setup.features,
        added: setup.added,
        core_features,
        conventions: setup.conventions,
    }
}

/// The core features the rules want (`wanted`) that the driver has and the application did
/// not enable: they can be added where the application passes `pEnabledFeatures` (a copy is
/// patched); with `VkPhysicalDeviceFeatures2` the application's struct stays as it is.
///
/// # Safety
/// `ci` is valid; `physical_device` belongs to `inst`.
unsafe fn patch_core_features(
    inst: &InstanceData,
    physical_device: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
    wanted: &vk::PhysicalDeviceFeatures,
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
    for ((on, &want), &has) in core_flags_mut(&mut copy)
        .iter_mut()
        .zip(core_flags(wanted))
        .zip(core_flags(&supported))
    {
        if *on == vk::FALSE && want != vk::FALSE && has != vk::FALSE {
            *on = vk::TRUE;
            changed = true;
        }
    }
    features.tess_geom_point_size |= copy.shader_tessellation_and_geometry_point_size != 0;
    features.geometry_shader |= copy.geometry_shader != 0;
    features.vertex_stores |= copy.vertex_pipeline_stores_and_atomics != 0;
    changed.then_some(copy)
}

/// `VkPhysicalDeviceFeatures`' members, in order.
const CORE_FEATURE_COUNT: usize =
    std::mem::size_of::<vk::PhysicalDeviceFeatures>() / std::mem::size_of::<vk::Bool32>();

fn core_flags(features: &vk::PhysicalDeviceFeatures) -> &[vk::Bool32; CORE_FEATURE_COUNT] {
    // SAFETY: `VkPhysicalDeviceFeatures` is a `repr(C)` struct of `VkBool32` members alone.
    unsafe { &*(features as *const vk::PhysicalDeviceFeatures).cast() }
}

fn core_flags_mut(
    features: &mut vk::PhysicalDeviceFeatures,
) -> &mut [vk::Bool32; CORE_FEATURE_COUNT] {
    // SAFETY: as in `core_flags`.
    unsafe { &mut *(features as *mut vk::PhysicalDeviceFeatures).cast() }
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
            f.vertex_stores |= c.vertex_pipeline_stores_and_atomics != 0;
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
                vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => {
                    f.buffer_device_address |= chained::<vk::PhysicalDeviceVulkan12Features<'_>>(p)
                        .buffer_device_address
                        != 0
                }
                vk::StructureType::PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES => {
                    f.buffer_device_address |=
                        chained::<vk::PhysicalDeviceBufferDeviceAddressFeatures<'_>>(p)
                            .buffer_device_address
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
            crate::layer::commands::draws::gl_primitives::destroy_generated(dev, &record);
        }
        for binding in dev.records.block_objects.write().drain().map(|(_, b)| b) {
            crate::layer::pipelines::shader_object::destroy_block_layout(dev, &binding);
        }
        let command_buffers = std::mem::take(&mut *dev.records.command_buffers.lock());
        crate::layer::loader::host_memory::release(dev, command_buffers.into_values());
        dev.attribute_memory.destroy_spare(dev);
        dev.draws.destroy(dev);
    },
    next: |dev| dev.table.destroy_device,
}

//! Instance and device lifetime, and the records of shader modules, render passes, pipeline
//! layouts and pipelines. Each hook does the layer's own work inside [`shield`] and calls
//! down outside it, so a failure in the layer never changes what the application gets.

use ash::vk::{self, Handle};
use std::ffi::{c_char, CStr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::dispatch::{DeviceDispatch, InstanceDispatch};
use super::loader_abi::{find_link_info, LayerDeviceCreateInfo, LayerInstanceCreateInfo};
use super::push_range::{place_levels, Placement};
use super::records::{LayoutRecord, LevelsSlot, ModuleRecord, RenderPassRecord};
use super::settings::{slice, Settings, LAYER_NAME};
use super::{
    call_with_next, ffi_guard, forget_then_call_down, instance_data, key_of, log,
    maybe_inject_panic, shield, unknown_handle, DeviceData, EnabledFeatures, InstanceData, Limits,
    DEVICES, EXTENSION_NAME, EXTENSION_SPEC_VERSION, INSTANCES,
};
use crate::spirv::module::structure_error;

pub unsafe extern "system" fn create_instance(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    ffi_guard(
        "vkCreateInstance",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let link: *mut LayerInstanceCreateInfo = find_link_info(
                (*p_create_info).p_next,
                vk::StructureType::LOADER_INSTANCE_CREATE_INFO,
            );
            if link.is_null() || (*link).u.p_layer_info.is_null() {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            let layer_info = (*link).u.p_layer_info;
            let next_gipa = (*layer_info).pfn_next_get_instance_proc_addr;
            // The next layer reads its own link: advance the chain before calling down.
            (*link).u.p_layer_info = (*layer_info).p_next;
            let Some(create) = next_gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let create: vk::PFN_vkCreateInstance = std::mem::transmute(create);

            let settings = shield("vkCreateInstance settings", || {
                let (settings, warnings) = Settings::for_instance((*p_create_info).p_next);
                log::set_level(settings.log_level);
                for w in warnings {
                    log::warning!("{w}");
                }
                settings
            })
            .unwrap_or_default();

            let result = create(p_create_info, p_allocator, p_instance);
            if result != vk::Result::SUCCESS {
                return result;
            }
            let instance = *p_instance;
            shield("vkCreateInstance", || {
                let table = InstanceDispatch::load(|h, name| next_gipa(h, name.as_ptr()), instance);
                let data = InstanceData {
                    handle: instance,
                    next_gipa,
                    table,
                    settings: Arc::new(settings),
                };
                if let Some(key) = key_of(instance) {
                    super::insert(&INSTANCES, key, Arc::new(data));
                }
                log::debug!("instance {:#x} created", instance.as_raw());
            });
            result
        },
    )
}

pub unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    ffi_guard("vkDestroyInstance", (), || {
        let Some(inst) = key_of(instance).and_then(|key| super::remove(&INSTANCES, key)) else {
            return;
        };
        if let Some(destroy) = inst.table.destroy_instance {
            destroy(instance, p_allocator);
        }
    })
}

pub unsafe extern "system" fn enumerate_device_extension_properties(
    physical_device: vk::PhysicalDevice,
    p_layer_name: *const c_char,
    p_property_count: *mut u32,
    p_properties: *mut vk::ExtensionProperties,
) -> vk::Result {
    ffi_guard(
        "vkEnumerateDeviceExtensionProperties",
        vk::Result::ERROR_UNKNOWN,
        || {
            if !p_layer_name.is_null()
                && CStr::from_ptr(p_layer_name).to_bytes() == LAYER_NAME.as_bytes()
            {
                // The layer's own extensions: the usual two-call idiom.
                if p_properties.is_null() {
                    *p_property_count = 1;
                    return vk::Result::SUCCESS;
                }
                if *p_property_count == 0 {
                    return vk::Result::INCOMPLETE;
                }
                let mut props = vk::ExtensionProperties {
                    spec_version: EXTENSION_SPEC_VERSION,
                    ..Default::default()
                };
                for (dst, src) in props
                    .extension_name
                    .iter_mut()
                    .zip(EXTENSION_NAME.to_bytes_with_nul())
                {
                    *dst = *src as c_char;
                }
                *p_properties = props;
                *p_property_count = 1;
                return vk::Result::SUCCESS;
            }
            match instance_data(physical_device)
                .and_then(|i| i.table.enumerate_device_extension_properties)
            {
                Some(next) => next(
                    physical_device,
                    p_layer_name,
                    p_property_count,
                    p_properties,
                ),
                None => unknown_handle("vkEnumerateDeviceExtensionProperties"),
            }
        },
    )
}

/// What `vkCreateDevice` learns from the create info before calling down.
struct DevicePrep {
    /// The enabled extensions without this layer's own, when the application enabled it.
    stripped_extensions: Option<Vec<*const c_char>>,
    features: EnabledFeatures,
    limits: Limits,
}

unsafe fn prepare_device(
    inst: &InstanceData,
    physical_device: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
) -> DevicePrep {
    maybe_inject_panic(&inst.settings, "vkCreateDevice");
    let extensions = slice(ci.pp_enabled_extension_names, ci.enabled_extension_count);
    let ours = |&name: &*const c_char| !name.is_null() && CStr::from_ptr(name) == EXTENSION_NAME;
    let stripped_extensions = extensions
        .iter()
        .any(ours)
        .then(|| extensions.iter().copied().filter(|n| !ours(n)).collect());
    let limits = match inst.table.get_physical_device_properties {
        Some(get) => {
            let mut props = vk::PhysicalDeviceProperties::default();
            get(physical_device, &mut props);
            let l = &props.limits;
            Limits {
                max_fragment_output_attachments: l.max_fragment_output_attachments,
                max_fragment_dual_src_attachments: l.max_fragment_dual_src_attachments,
                max_push_constants_size: l.max_push_constants_size,
                max_tessellation_patch_size: l.max_tessellation_patch_size,
            }
        }
        None => Limits::REQUIRED_MINIMUM,
    };
    DevicePrep {
        stripped_extensions,
        features: enabled_features(ci),
        limits,
    }
}

/// The features the rewrites depend on, from `pEnabledFeatures` or the `pNext` chain.
unsafe fn enabled_features(ci: &vk::DeviceCreateInfo<'_>) -> EnabledFeatures {
    let mut f = EnabledFeatures::default();
    let mut core = |c: &vk::PhysicalDeviceFeatures| {
        f.tessellation_shader |= c.tessellation_shader != 0;
        f.geometry_shader |= c.geometry_shader != 0;
    };
    if let Some(c) = ci.p_enabled_features.as_ref() {
        core(c);
    }
    let mut p = ci.p_next as *const vk::BaseInStructure<'_>;
    while let Some(s) = p.as_ref() {
        match s.s_type {
            vk::StructureType::PHYSICAL_DEVICE_FEATURES_2 => {
                core(&(*(p as *const vk::PhysicalDeviceFeatures2<'_>)).features)
            }
            vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => {
                f.dynamic_rendering |=
                    (*(p as *const vk::PhysicalDeviceVulkan13Features<'_>)).dynamic_rendering != 0
            }
            vk::StructureType::PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES => {
                f.dynamic_rendering |=
                    (*(p as *const vk::PhysicalDeviceDynamicRenderingFeatures<'_>))
                        .dynamic_rendering
                        != 0
            }
            vk::StructureType::PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT => {
                f.transform_feedback |= (*(p
                    as *const vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'_>))
                    .transform_feedback
                    != 0
            }
            _ => {}
        }
        p = s.p_next;
    }
    f
}

pub unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
) -> vk::Result {
    ffi_guard(
        "vkCreateDevice",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let Some(inst) = instance_data(physical_device) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let link: *mut LayerDeviceCreateInfo = find_link_info(
                (*p_create_info).p_next,
                vk::StructureType::LOADER_DEVICE_CREATE_INFO,
            );
            if link.is_null() || (*link).p_layer_info.is_null() {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            let layer_info = (*link).p_layer_info;
            let next_gipa = (*layer_info).pfn_next_get_instance_proc_addr;
            let next_gdpa = (*layer_info).pfn_next_get_device_proc_addr;
            (*link).p_layer_info = (*layer_info).p_next;
            let Some(create) = next_gipa(inst.handle, c"vkCreateDevice".as_ptr()) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let create: vk::PFN_vkCreateDevice = std::mem::transmute(create);

            let prep = shield("vkCreateDevice", || {
                prepare_device(&inst, physical_device, &*p_create_info)
            });
            let mut ci = *p_create_info;
            // The layer implements VK_GLSEM_tessellation_default_levels; the driver must not
            // see it.
            if let Some(exts) = prep.as_ref().and_then(|p| p.stripped_extensions.as_ref()) {
                ci.enabled_extension_count = exts.len() as u32;
                ci.pp_enabled_extension_names = exts.as_ptr();
            }
            let result = create(physical_device, &ci, p_allocator, p_device);
            if result != vk::Result::SUCCESS {
                return result;
            }
            let device = *p_device;
            shield("vkCreateDevice", || {
                let table = DeviceDispatch::load(|h, name| next_gdpa(h, name.as_ptr()), device);
                let (features, limits, levels_extension) = match &prep {
                    Some(p) => (p.features, p.limits, p.stripped_extensions.is_some()),
                    None => (EnabledFeatures::default(), Limits::REQUIRED_MINIMUM, false),
                };
                log::debug!(
                    "device {:#x} created: {features:?}, {limits:?}",
                    device.as_raw()
                );
                let data = DeviceData::new(
                    device,
                    next_gdpa,
                    table,
                    inst.settings.clone(),
                    features,
                    limits,
                    levels_extension,
                );
                if let Some(key) = key_of(device) {
                    super::insert(&DEVICES, key, Arc::new(data));
                }
            });
            result
        },
    )
}

pub unsafe extern "system" fn destroy_device(
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    ffi_guard("vkDestroyDevice", (), || {
        // Read the key before the driver frees the handle; every record goes with `dev`.
        let Some(dev) = key_of(device).and_then(|key| super::remove(&DEVICES, key)) else {
            return;
        };
        if let Some(destroy) = dev.table.destroy_device {
            destroy(device, p_allocator);
        }
    })
}

/// The words of a `VkShaderModuleCreateInfo` (empty when there is no whole word).
pub unsafe fn code_words<'a>(ci: &vk::ShaderModuleCreateInfo<'_>) -> &'a [u32] {
    slice(ci.p_code, (ci.code_size / 4).min(u32::MAX as usize) as u32)
}

/// Writes `words` as `<hash>.<label>.spv` into the `dump_dir` setting's directory.
pub fn dump_module(settings: &Settings, hash: u64, label: &str, words: &[u32]) {
    let Some(dir) = &settings.dump_dir else {
        return;
    };
    let path = dir.join(format!("{hash:016x}.{label}.spv"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, bytes)) {
        log::warning!("dump_dir: cannot write {}: {e}", path.display());
    }
}

/// The frame of a hook that creates an object the layer records: `prepare` reads the create
/// info (shielded: a failure there only costs the record), `call_down` creates the object
/// (through a create info patched with what `prepare` found, where the layer patches one),
/// and `record` keeps what `prepare` found once the driver succeeded.
fn create_recorded<P, F>(
    what: &str,
    device: vk::Device,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    prepare: impl FnOnce(&DeviceData) -> P,
    call_down: impl FnOnce(F, Option<&P>) -> vk::Result,
    record: impl FnOnce(&DeviceData, P),
) -> vk::Result {
    call_with_next(what, device, next, |dev, next| {
        let prepared = shield(what, || {
            maybe_inject_panic(&dev.settings, what);
            prepare(dev)
        });
        let result = call_down(next, prepared.as_ref());
        if result == vk::Result::SUCCESS {
            if let Some(prepared) = prepared {
                record(dev, prepared);
            }
        }
        result
    })
}

pub unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    p_create_info: *const vk::ShaderModuleCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_shader_module: *mut vk::ShaderModule,
) -> vk::Result {
    create_recorded(
        "vkCreateShaderModule",
        device,
        |t| t.create_shader_module,
        |dev| {
            let words = code_words(&*p_create_info);
            let record = ModuleRecord::new(words);
            if !record.summary.readable {
                // Rare: the walk again, for the reason.
                let problem = structure_error(words).map_or_else(String::new, |e| e.to_string());
                log::warning!(
                    "vkCreateShaderModule: the code is not SPIR-V the layer can read \
                     ({problem}); it goes to the driver untouched, and no pass will rewrite \
                     it (a pipeline that needs one, such as a TES without a TCS, fails)"
                );
            }
            if dev.settings.dump_dir.is_some() {
                dump_module(&dev.settings, record.hash(), "orig", &record.words);
            }
            record
        },
        |next, _| next(device, p_create_info, p_allocator, p_shader_module),
        |dev, record| {
            let module = *p_shader_module;
            log::debug!("shader module {:#x}: {:?}", module.as_raw(), record.summary);
            dev.records.modules.write().insert(module, Arc::new(record));
        },
    )
}

pub unsafe extern "system" fn destroy_shader_module(
    device: vk::Device,
    module: vk::ShaderModule,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    forget_then_call_down(
        "vkDestroyShaderModule",
        device,
        |dev| {
            dev.records.modules.write().remove(&module);
        },
        |t| {
            if let Some(destroy) = t.destroy_shader_module {
                destroy(device, module, p_allocator);
            }
        },
    )
}

/// Colour attachment formats per subpass (`None` for `VK_ATTACHMENT_UNUSED`) of a
/// `VkRenderPassCreateInfo` or `VkRenderPassCreateInfo2`: the same fields, in structs of
/// different types.
macro_rules! subpass_colors {
    ($ci:expr) => {{
        let ci = $ci;
        let formats: Vec<vk::Format> = slice(ci.p_attachments, ci.attachment_count)
            .iter()
            .map(|a| a.format)
            .collect();
        slice(ci.p_subpasses, ci.subpass_count)
            .iter()
            .map(|s| {
                slice(s.p_color_attachments, s.color_attachment_count)
                    .iter()
                    .map(|r| match r.attachment {
                        vk::ATTACHMENT_UNUSED => None,
                        a => formats.get(a as usize).copied(),
                    })
                    .collect()
            })
            .collect::<Vec<Vec<Option<vk::Format>>>>()
    }};
}

/// Calls down to a render-pass create command and records the result.
unsafe fn create_render_pass_with<F>(
    what: &str,
    device: vk::Device,
    p_render_pass: *mut vk::RenderPass,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    describe: impl FnOnce() -> Vec<Vec<Option<vk::Format>>>,
    call_down: impl FnOnce(F) -> vk::Result,
) -> vk::Result {
    create_recorded(
        what,
        device,
        next,
        |_| RenderPassRecord::new(describe()),
        |next, _| call_down(next),
        |dev, record| {
            dev.records
                .render_passes
                .write()
                .insert(*p_render_pass, Arc::new(record));
        },
    )
}

pub unsafe extern "system" fn create_render_pass(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    create_render_pass_with(
        "vkCreateRenderPass",
        device,
        p_render_pass,
        |t| t.create_render_pass,
        || subpass_colors!(&*p_create_info),
        |next| next(device, p_create_info, p_allocator, p_render_pass),
    )
}

pub unsafe extern "system" fn create_render_pass2(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    create_render_pass_with(
        "vkCreateRenderPass2",
        device,
        p_render_pass,
        |t| t.create_render_pass2,
        || subpass_colors!(&*p_create_info),
        |next| next(device, p_create_info, p_allocator, p_render_pass),
    )
}

pub unsafe extern "system" fn create_render_pass2_khr(
    device: vk::Device,
    p_create_info: *const vk::RenderPassCreateInfo2<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_render_pass: *mut vk::RenderPass,
) -> vk::Result {
    create_render_pass_with(
        "vkCreateRenderPass2KHR",
        device,
        p_render_pass,
        |t| t.create_render_pass2_khr,
        || subpass_colors!(&*p_create_info),
        |next| next(device, p_create_info, p_allocator, p_render_pass),
    )
}

pub unsafe extern "system" fn destroy_render_pass(
    device: vk::Device,
    render_pass: vk::RenderPass,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    forget_then_call_down(
        "vkDestroyRenderPass",
        device,
        |dev| {
            dev.records.render_passes.write().remove(&render_pass);
        },
        |t| {
            if let Some(destroy) = t.destroy_render_pass {
                destroy(device, render_pass, p_allocator);
            }
        },
    )
}

/// The push-constant ranges to create a layout with (`None`: the application's own) and
/// where the layout holds the generated TCS's levels.
fn plan_layout(
    dev: &DeviceData,
    app: &[vk::PushConstantRange],
) -> (Option<Vec<vk::PushConstantRange>>, LevelsSlot) {
    if !dev.settings.passthrough_tcs {
        return (
            None,
            LevelsSlot::Unavailable("the passthrough_tcs setting is off".into()),
        );
    }
    if !dev.features.tessellation_shader {
        return (
            None,
            LevelsSlot::Unavailable("the device did not enable tessellationShader".into()),
        );
    }
    match place_levels(app, dev.limits.max_push_constants_size) {
        Placement::Add { offset } => {
            let mut ranges = app.to_vec();
            ranges.push(vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::TESSELLATION_CONTROL,
                offset,
                size: crate::spirv::passthrough_tcs::LEVELS_PUSH_CONSTANT_SIZE,
            });
            let stages = vk::ShaderStageFlags::TESSELLATION_CONTROL;
            (Some(ranges), LevelsSlot::Reserved { offset, stages })
        }
        Placement::Extend {
            index,
            start,
            size,
            offset,
        } => {
            let range = vk::PushConstantRange {
                offset: start,
                size,
                ..app[index]
            };
            log::debug!(
                "pipeline layout: the application's TESSELLATION_CONTROL push-constant range \
                 grows to [{}, {}) to hold the default tessellation levels at {offset}",
                range.offset,
                range.offset + range.size
            );
            let mut ranges = app.to_vec();
            ranges[index] = range;
            (
                Some(ranges),
                LevelsSlot::Reserved {
                    offset,
                    stages: range.stage_flags,
                },
            )
        }
        Placement::NoRoom(why) => {
            log::warning!(
                "pipeline layout: {why}; pipelines on it with a tessellation evaluation shader \
                 and no control shader will fail to create"
            );
            (None, LevelsSlot::Unavailable(why))
        }
    }
}

pub unsafe extern "system" fn create_pipeline_layout(
    device: vk::Device,
    p_create_info: *const vk::PipelineLayoutCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipeline_layout: *mut vk::PipelineLayout,
) -> vk::Result {
    create_recorded(
        "vkCreatePipelineLayout",
        device,
        |t| t.create_pipeline_layout,
        |dev| {
            let ci = &*p_create_info;
            let app = slice(ci.p_push_constant_ranges, ci.push_constant_range_count).to_vec();
            let (ranges, slot) = plan_layout(dev, &app);
            (app, ranges, slot)
        },
        |next, plan| {
            let mut ci = *p_create_info;
            if let Some((_, Some(ranges), _)) = plan {
                ci.push_constant_range_count = ranges.len() as u32;
                ci.p_push_constant_ranges = ranges.as_ptr();
            }
            next(device, &ci, p_allocator, p_pipeline_layout)
        },
        |dev, (app, _, slot)| {
            let record = Arc::new(LayoutRecord::new(app, slot));
            dev.records
                .layouts
                .write()
                .insert(*p_pipeline_layout, record);
        },
    )
}

pub unsafe extern "system" fn destroy_pipeline_layout(
    device: vk::Device,
    layout: vk::PipelineLayout,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    forget_then_call_down(
        "vkDestroyPipelineLayout",
        device,
        |dev| {
            dev.records.layouts.write().remove(&layout);
        },
        |t| {
            if let Some(destroy) = t.destroy_pipeline_layout {
                destroy(device, layout, p_allocator);
            }
        },
    )
}

pub unsafe extern "system" fn destroy_pipeline(
    device: vk::Device,
    pipeline: vk::Pipeline,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    forget_then_call_down(
        "vkDestroyPipeline",
        device,
        |dev| {
            let removed = dev.records.pipelines.write().remove(&pipeline);
            if removed.is_some_and(|r| r.generated_tcs.is_some()) {
                dev.records
                    .generated_tcs_pipelines
                    .fetch_sub(1, Ordering::Relaxed);
            }
        },
        |t| {
            if let Some(destroy) = t.destroy_pipeline {
                destroy(device, pipeline, p_allocator);
            }
        },
    )
}

//! A Vulkan layer that does nothing (issue 35): the anchor of glsem's benchmarks. It
//! intercepts what glsem intercepts on the path of a pipeline glsem passes through
//! (instance and device creation and destruction, `vkCreateShaderModule`,
//! `vkDestroyShaderModule`, `vkCreateGraphicsPipelines`, `vkDestroyPipeline`,
//! `vkCmdBindPipeline`) and forwards each call to the next layer, unchanged. What it costs
//! over no layer is what any layer hooking those calls costs; `scripts/bench.sh` measures
//! glsem against it (`glsem_over_empty_ratio`). Built with the benches, never shipped.
//!
//! It finds the next layer's commands the way a layer must: by the handle's dispatch key,
//! in a short list under a read lock (as glsem's registry does), and keeps its library
//! loaded from its first instance on, as glsem does (`src/layer/devices/instance.rs`), so that
//! `glsem_over_empty_ratio_instance_device` compares the two layers' work, not a reload.

#![allow(non_snake_case)] // The loader looks up vkGetInstanceProcAddr by name.

use ash::vk;
use std::ffi::{c_char, c_void, CStr};
use std::sync::RwLock;

/// `VkLayerFunction::VK_LAYER_LINK_INFO`.
const VK_LAYER_LINK_INFO: u32 = 0;

/// `VkNegotiateLayerInterface` (the loader's `vk_layer.h`).
#[repr(C)]
pub struct NegotiateLayerInterface {
    s_type: u32,
    p_next: *mut c_void,
    loader_layer_interface_version: u32,
    pfn_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pfn_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    pfn_get_physical_device_proc_addr: Option<GetPhysicalDeviceProcAddr>,
}

/// `PFN_GetPhysicalDeviceProcAddr` (the loader's, not a Vulkan command).
type GetPhysicalDeviceProcAddr =
    unsafe extern "system" fn(vk::Instance, *const c_char) -> vk::PFN_vkVoidFunction;

/// `VkLayerInstanceLink`.
#[repr(C)]
struct InstanceLink {
    p_next: *mut InstanceLink,
    next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    next_get_physical_device_proc_addr: Option<GetPhysicalDeviceProcAddr>,
}

/// `VkLayerDeviceLink`.
#[repr(C)]
struct DeviceLink {
    p_next: *mut DeviceLink,
    next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    next_get_device_proc_addr: vk::PFN_vkGetDeviceProcAddr,
}

/// The start of `VkLayerInstanceCreateInfo` and `VkLayerDeviceCreateInfo`: the union's first
/// member is the link pointer in both.
#[repr(C)]
struct LinkInfo<L> {
    s_type: vk::StructureType,
    p_next: *const c_void,
    function: u32,
    p_layer_info: *mut L,
}

/// The loader's link-info struct of `s_type` in a create info's `pNext` chain.
unsafe fn link_info<L>(mut p: *const c_void, s_type: vk::StructureType) -> *mut LinkInfo<L> {
    while let Some(s) = (p as *const LinkInfo<L>).as_ref() {
        if s.s_type == s_type && s.function == VK_LAYER_LINK_INFO {
            return p as *mut LinkInfo<L>;
        }
        p = s.p_next;
    }
    std::ptr::null_mut()
}

/// The loader's dispatch key of a dispatchable handle: the table pointer in its first word.
unsafe fn key(handle: impl vk::Handle) -> usize {
    *(handle.as_raw() as usize as *const usize)
}

#[derive(Clone, Copy)]
struct Instance {
    handle: vk::Instance,
    gipa: vk::PFN_vkGetInstanceProcAddr,
    destroy_instance: Option<vk::PFN_vkDestroyInstance>,
}

#[derive(Clone, Copy)]
struct Device {
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    destroy_device: Option<vk::PFN_vkDestroyDevice>,
    create_shader_module: Option<vk::PFN_vkCreateShaderModule>,
    destroy_shader_module: Option<vk::PFN_vkDestroyShaderModule>,
    create_graphics_pipelines: Option<vk::PFN_vkCreateGraphicsPipelines>,
    destroy_pipeline: Option<vk::PFN_vkDestroyPipeline>,
    cmd_bind_pipeline: Option<vk::PFN_vkCmdBindPipeline>,
}

static INSTANCES: RwLock<Vec<(usize, Instance)>> = RwLock::new(Vec::new());
static DEVICES: RwLock<Vec<(usize, Device)>> = RwLock::new(Vec::new());

fn find<T: Copy>(list: &RwLock<Vec<(usize, T)>>, key: usize) -> Option<T> {
    let list = list.read().unwrap();
    list.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn remove<T>(list: &RwLock<Vec<(usize, T)>>, key: usize) -> Option<T> {
    let mut list = list.write().unwrap();
    let index = list.iter().position(|(k, _)| *k == key)?;
    Some(list.swap_remove(index).1)
}

/// The next layer's command `pick` of the device of `handle`.
#[inline]
unsafe fn next<F>(handle: impl vk::Handle, pick: impl FnOnce(&Device) -> Option<F>) -> Option<F> {
    let key = key(handle);
    let list = DEVICES.read().unwrap();
    list.iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, d)| pick(d))
}

/// A `PFN_vkVoidFunction` as the command type `F` it is.
unsafe fn cast<F>(f: vk::PFN_vkVoidFunction) -> Option<F> {
    f.map(|f| std::mem::transmute_copy::<unsafe extern "system" fn(), F>(&f))
}

/// Keeps this library loaded until the process exits (the loader dlcloses a layer at every
/// vkDestroyInstance).
fn pin_library() {
    static PINNED: std::sync::Once = std::sync::Once::new();
    #[repr(C)]
    struct DlInfo {
        fname: *const c_char,
        fbase: *mut c_void,
        sname: *const c_char,
        saddr: *mut c_void,
    }
    extern "C" {
        fn dladdr(addr: *const c_void, info: *mut DlInfo) -> std::ffi::c_int;
        fn dlopen(file: *const c_char, mode: std::ffi::c_int) -> *mut c_void;
    }
    // glibc's RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE.
    const MODE: std::ffi::c_int = 0x1 | 0x4 | 0x1000;
    PINNED.call_once(|| {
        let mut info = DlInfo {
            fname: std::ptr::null(),
            fbase: std::ptr::null_mut(),
            sname: std::ptr::null(),
            saddr: std::ptr::null_mut(),
        };
        // SAFETY: dladdr fills `info` for an address of this library; dlopen with
        // RTLD_NOLOAD only marks the library already loaded (the handle is never closed).
        unsafe {
            if dladdr(pin_library as *const c_void, &mut info) != 0 && !info.fname.is_null() {
                dlopen(info.fname, MODE);
            }
        }
    });
}

unsafe extern "system" fn create_instance(
    info: *const vk::InstanceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    pin_library();
    let link = link_info::<InstanceLink>(
        (*info).p_next,
        vk::StructureType::LOADER_INSTANCE_CREATE_INFO,
    );
    let Some(link) = link.as_mut() else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let gipa = (*link.p_layer_info).next_get_instance_proc_addr;
    link.p_layer_info = (*link.p_layer_info).p_next;
    let Some(create) =
        cast::<vk::PFN_vkCreateInstance>(gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()))
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let result = create(info, allocator, out);
    if result == vk::Result::SUCCESS {
        let handle = *out;
        let instance = Instance {
            handle,
            gipa,
            destroy_instance: cast(gipa(handle, c"vkDestroyInstance".as_ptr())),
        };
        INSTANCES.write().unwrap().push((key(handle), instance));
    }
    result
}

unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if instance == vk::Instance::null() {
        return;
    }
    if let Some(destroy) = remove(&INSTANCES, key(instance)).and_then(|i| i.destroy_instance) {
        destroy(instance, allocator);
    }
}

unsafe extern "system" fn create_device(
    physical_device: vk::PhysicalDevice,
    info: *const vk::DeviceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> vk::Result {
    let link =
        link_info::<DeviceLink>((*info).p_next, vk::StructureType::LOADER_DEVICE_CREATE_INFO);
    let (Some(link), Some(instance)) = (link.as_mut(), find(&INSTANCES, key(physical_device)))
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let gipa = (*link.p_layer_info).next_get_instance_proc_addr;
    let gdpa = (*link.p_layer_info).next_get_device_proc_addr;
    link.p_layer_info = (*link.p_layer_info).p_next;
    let Some(create) =
        cast::<vk::PFN_vkCreateDevice>(gipa(instance.handle, c"vkCreateDevice".as_ptr()))
    else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let result = create(physical_device, info, allocator, out);
    if result == vk::Result::SUCCESS {
        let handle = *out;
        let get = |name: &CStr| gdpa(handle, name.as_ptr());
        let device = Device {
            gdpa,
            destroy_device: cast(get(c"vkDestroyDevice")),
            create_shader_module: cast(get(c"vkCreateShaderModule")),
            destroy_shader_module: cast(get(c"vkDestroyShaderModule")),
            create_graphics_pipelines: cast(get(c"vkCreateGraphicsPipelines")),
            destroy_pipeline: cast(get(c"vkDestroyPipeline")),
            cmd_bind_pipeline: cast(get(c"vkCmdBindPipeline")),
        };
        DEVICES.write().unwrap().push((key(handle), device));
    }
    result
}

unsafe extern "system" fn destroy_device(
    device: vk::Device,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if device == vk::Device::null() {
        return;
    }
    if let Some(destroy) = remove(&DEVICES, key(device)).and_then(|d| d.destroy_device) {
        destroy(device, allocator);
    }
}

unsafe extern "system" fn create_shader_module(
    device: vk::Device,
    info: *const vk::ShaderModuleCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::ShaderModule,
) -> vk::Result {
    match next(device, |d| d.create_shader_module) {
        Some(f) => f(device, info, allocator, out),
        None => vk::Result::ERROR_UNKNOWN,
    }
}

unsafe extern "system" fn destroy_shader_module(
    device: vk::Device,
    module: vk::ShaderModule,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if let Some(f) = next(device, |d| d.destroy_shader_module) {
        f(device, module, allocator)
    }
}

unsafe extern "system" fn create_graphics_pipelines(
    device: vk::Device,
    cache: vk::PipelineCache,
    count: u32,
    infos: *const vk::GraphicsPipelineCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Pipeline,
) -> vk::Result {
    match next(device, |d| d.create_graphics_pipelines) {
        Some(f) => f(device, cache, count, infos, allocator, out),
        None => vk::Result::ERROR_UNKNOWN,
    }
}

unsafe extern "system" fn destroy_pipeline(
    device: vk::Device,
    pipeline: vk::Pipeline,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    if let Some(f) = next(device, |d| d.destroy_pipeline) {
        f(device, pipeline, allocator)
    }
}

unsafe extern "system" fn cmd_bind_pipeline(
    command_buffer: vk::CommandBuffer,
    bind_point: vk::PipelineBindPoint,
    pipeline: vk::Pipeline,
) {
    if let Some(f) = next(command_buffer, |d| d.cmd_bind_pipeline) {
        f(command_buffer, bind_point, pipeline)
    }
}

/// This layer's hook for the device-level command `name`, where the next layer has it.
unsafe fn device_hook(name: &[u8], device: Option<&Device>) -> vk::PFN_vkVoidFunction {
    // The hook as a `PFN_vkVoidFunction`, handed out only where it can call down.
    macro_rules! hook {
        ($field:ident, $pfn:ty) => {
            match device.is_none_or(|d| d.$field.is_some()) {
                true => Some(std::mem::transmute::<$pfn, unsafe extern "system" fn()>(
                    $field,
                )),
                false => None,
            }
        };
    }
    match name {
        b"vkGetDeviceProcAddr" => Some(std::mem::transmute::<
            vk::PFN_vkGetDeviceProcAddr,
            unsafe extern "system" fn(),
        >(vkGetDeviceProcAddr)),
        b"vkDestroyDevice" => hook!(destroy_device, vk::PFN_vkDestroyDevice),
        b"vkCreateShaderModule" => hook!(create_shader_module, vk::PFN_vkCreateShaderModule),
        b"vkDestroyShaderModule" => hook!(destroy_shader_module, vk::PFN_vkDestroyShaderModule),
        b"vkCreateGraphicsPipelines" => {
            hook!(create_graphics_pipelines, vk::PFN_vkCreateGraphicsPipelines)
        }
        b"vkDestroyPipeline" => hook!(destroy_pipeline, vk::PFN_vkDestroyPipeline),
        b"vkCmdBindPipeline" => hook!(cmd_bind_pipeline, vk::PFN_vkCmdBindPipeline),
        _ => None,
    }
}

/// # Safety
/// The loader's contract: a valid instance (or null) and a nul-terminated name.
#[no_mangle]
pub unsafe extern "system" fn vkGetInstanceProcAddr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let bytes = CStr::from_ptr(name).to_bytes();
    let own = match bytes {
        b"vkGetInstanceProcAddr" => Some(std::mem::transmute::<
            vk::PFN_vkGetInstanceProcAddr,
            unsafe extern "system" fn(),
        >(vkGetInstanceProcAddr)),
        b"vkCreateInstance" => Some(std::mem::transmute::<
            vk::PFN_vkCreateInstance,
            unsafe extern "system" fn(),
        >(create_instance)),
        b"vkDestroyInstance" => Some(std::mem::transmute::<
            vk::PFN_vkDestroyInstance,
            unsafe extern "system" fn(),
        >(destroy_instance)),
        b"vkCreateDevice" => Some(std::mem::transmute::<
            vk::PFN_vkCreateDevice,
            unsafe extern "system" fn(),
        >(create_device)),
        _ => device_hook(bytes, None),
    };
    if own.is_some() || instance == vk::Instance::null() {
        return own;
    }
    let instance = find(&INSTANCES, key(instance))?;
    (instance.gipa)(instance.handle, name)
}

/// # Safety
/// The loader's contract: a valid device and a nul-terminated name.
#[no_mangle]
pub unsafe extern "system" fn vkGetDeviceProcAddr(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let table = find(&DEVICES, key(device))?;
    device_hook(CStr::from_ptr(name).to_bytes(), Some(&table))
        .or_else(|| (table.gdpa)(device, name))
}

/// # Safety
/// The loader's contract: a valid `VkNegotiateLayerInterface`.
#[no_mangle]
pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
    interface: *mut NegotiateLayerInterface,
) -> vk::Result {
    let Some(interface) = interface.as_mut() else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    interface.loader_layer_interface_version = interface.loader_layer_interface_version.min(2);
    interface.pfn_get_instance_proc_addr = Some(vkGetInstanceProcAddr);
    interface.pfn_get_device_proc_addr = Some(vkGetDeviceProcAddr);
    interface.pfn_get_physical_device_proc_addr = None;
    vk::Result::SUCCESS
}

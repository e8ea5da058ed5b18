//! The parts of the loader's `vk_layer.h` a layer needs, which ash does not ship.
//!
//! Layout follows Vulkan-Loader's `include/vulkan/vk_layer.h` (loader-layer interface
//! version 2).

use ash::vk;
use std::ffi::{c_char, c_void};

/// `VkLayerFunction`: what a `VkLayer{Instance,Device}CreateInfo` in the create-info chain
/// carries.
pub const VK_LAYER_LINK_INFO: u32 = 0;

/// `VkNegotiateLayerStructType::LAYER_NEGOTIATE_INTERFACE_STRUCT`.
pub const LAYER_NEGOTIATE_INTERFACE_STRUCT: u32 = 1;

/// The loader-layer interface version this layer implements.
pub const LAYER_INTERFACE_VERSION: u32 = 2;

/// `PFN_GetPhysicalDeviceProcAddr` (the loader's, not a Vulkan command).
pub type PfnGetPhysicalDeviceProcAddr = unsafe extern "system" fn(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction;

/// `VkNegotiateLayerInterface`.
#[repr(C)]
pub struct NegotiateLayerInterface {
    pub s_type: u32,
    pub p_next: *mut c_void,
    pub loader_layer_interface_version: u32,
    pub pfn_get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    pub pfn_get_device_proc_addr: Option<vk::PFN_vkGetDeviceProcAddr>,
    pub pfn_get_physical_device_proc_addr: Option<PfnGetPhysicalDeviceProcAddr>,
}

/// `VkLayerInstanceLink`: one element of the instance chain.
#[repr(C)]
pub struct LayerInstanceLink {
    pub p_next: *mut LayerInstanceLink,
    pub pfn_next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    pub pfn_next_get_physical_device_proc_addr: Option<PfnGetPhysicalDeviceProcAddr>,
}

/// The union in `VkLayerInstanceCreateInfo`; its largest member is two function pointers.
#[repr(C)]
pub union LayerInstanceCreateInfoU {
    pub p_layer_info: *mut LayerInstanceLink,
    _layer_device: [*const c_void; 2],
}

/// `VkLayerInstanceCreateInfo` (sType `VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO`).
#[repr(C)]
pub struct LayerInstanceCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub function: u32,
    pub u: LayerInstanceCreateInfoU,
}

/// `VkLayerDeviceLink`: one element of the device chain.
#[repr(C)]
pub struct LayerDeviceLink {
    pub p_next: *mut LayerDeviceLink,
    pub pfn_next_get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    pub pfn_next_get_device_proc_addr: vk::PFN_vkGetDeviceProcAddr,
}

/// `VkLayerDeviceCreateInfo` (sType `VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO`); the
/// union's members are all single pointers.
#[repr(C)]
pub struct LayerDeviceCreateInfo {
    pub s_type: vk::StructureType,
    pub p_next: *const c_void,
    pub function: u32,
    pub p_layer_info: *mut LayerDeviceLink,
}

/// Finds the loader's link-info struct of type `s_type` in a create-info `pNext` chain.
///
/// # Safety
/// `p_next` must be a valid Vulkan `pNext` chain.
pub unsafe fn find_link_info<T>(mut p_next: *const c_void, s_type: vk::StructureType) -> *mut T {
    while !p_next.is_null() {
        // SAFETY: every struct of a valid chain starts with sType and pNext.
        let base = unsafe { &*(p_next as *const vk::BaseInStructure) };
        if base.s_type == s_type {
            // SAFETY: both loader structs start with sType, pNext, function.
            let function = unsafe {
                *(p_next as *const u8)
                    .add(std::mem::size_of::<vk::BaseInStructure>())
                    .cast::<u32>()
            };
            if function == VK_LAYER_LINK_INFO {
                return p_next as *mut T;
            }
        }
        p_next = base.p_next as *const c_void;
    }
    std::ptr::null_mut()
}

/// The loader's dispatch key of a dispatchable handle: the dispatch-table pointer stored in
/// its first word. A device and its queues and command buffers share it; so do an instance
/// and its physical devices.
///
/// # Safety
/// `handle` must be a live dispatchable handle (not null).
#[inline]
pub unsafe fn dispatch_key(handle: *const c_void) -> usize {
    // SAFETY: the caller's contract; the loader stores the table pointer first.
    unsafe { *(handle as *const usize) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    // Offsets as the C compiler lays out vk_layer.h on 64-bit targets.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layouts_match_vk_layer_h() {
        assert_eq!(
            offset_of!(NegotiateLayerInterface, loader_layer_interface_version),
            16
        );
        assert_eq!(
            offset_of!(NegotiateLayerInterface, pfn_get_instance_proc_addr),
            24
        );
        assert_eq!(size_of::<NegotiateLayerInterface>(), 48);
        assert_eq!(offset_of!(LayerInstanceCreateInfo, u), 24);
        assert_eq!(size_of::<LayerInstanceCreateInfo>(), 40);
        assert_eq!(offset_of!(LayerDeviceCreateInfo, p_layer_info), 24);
        assert_eq!(size_of::<LayerInstanceLink>(), 24);
        assert_eq!(size_of::<LayerDeviceLink>(), 24);
    }
}

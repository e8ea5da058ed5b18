//! Instance lifetime: `vkCreateInstance` resolves the settings and records the instance,
//! `vkDestroyInstance` drops the record.

use ash::vk::{self, Handle};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

use crate::layer::loader::dispatch::InstanceDispatch;
use crate::layer::loader::frames::{
    destroy_registered_hook, ffi_guard, maybe_inject_panic, shield,
};
use crate::layer::loader::registry::{key_of, Dispatchable, INSTANCES};
use crate::layer::loader::state::InstanceData;
use crate::layer::support::ffi::typed_fn;
use crate::layer::support::loader_abi::{find_link_info, LayerInstanceCreateInfo};
use crate::layer::support::log;
use crate::layer::support::settings::Settings;

/// `vkCreateInstance`: resolves the settings, calls down through the loader's link and
/// records the instance.
///
/// # Safety
/// Called by the loader: a valid create info whose chain holds the layer link info.
pub unsafe extern "system" fn create_instance(
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    ffi_guard(
        "vkCreateInstance",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: the loader's create info, link info and layer list are valid (the
            // caller's contract); the next layer reads its own link, so the chain advances
            // before calling down.
            let (ci, next_gipa) = unsafe {
                let ci = &*p_create_info;
                let link: *mut LayerInstanceCreateInfo =
                    find_link_info(ci.p_next, vk::StructureType::LOADER_INSTANCE_CREATE_INFO);
                let Some(link) = link.as_mut() else {
                    return vk::Result::ERROR_INITIALIZATION_FAILED;
                };
                let Some(layer_info) = link.u.p_layer_info.as_ref() else {
                    return vk::Result::ERROR_INITIALIZATION_FAILED;
                };
                link.u.p_layer_info = layer_info.p_next;
                (ci, layer_info.pfn_next_get_instance_proc_addr)
            };
            // SAFETY: the next layer's vkGetInstanceProcAddr, with a nul-terminated name.
            let create = unsafe { next_gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) };
            let Some(create) = create else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            // SAFETY: the command vkGetInstanceProcAddr named, of that type.
            let create = unsafe { typed_fn::<vk::PFN_vkCreateInstance>(create) };
            pin_library();

            let settings = shield("vkCreateInstance settings", || {
                // SAFETY: a valid chain (the caller's contract).
                let (settings, warnings) = unsafe { Settings::for_instance(ci.p_next) };
                log::set_level(settings.log_level);
                for w in warnings {
                    log::warning!("{w}");
                }
                settings
            })
            .unwrap_or_default();

            // SAFETY: the next layer's `vkCreateInstance` with the arguments the
            // application gave this hook, which Vulkan's valid usage for the command (this
            // hook's contract) makes valid for it as they were for the hook.
            let result = unsafe { create(p_create_info, p_allocator, p_instance) };
            if result != vk::Result::SUCCESS {
                return result;
            }
            // SAFETY: the driver wrote the handle on success.
            let instance = unsafe { *p_instance };
            let recorded = shield("vkCreateInstance", || {
                maybe_inject_panic(&settings, "vkCreateInstance/record");
                // SAFETY: the next layer's vkGetInstanceProcAddr returns commands of the
                // types it names.
                let table = unsafe {
                    InstanceDispatch::load(|h, name| next_gipa(h, name.as_ptr()), instance)
                };
                // SAFETY: pApplicationInfo is NULL or valid (Vulkan's valid usage).
                let app = unsafe { ci.p_application_info.as_ref() };
                let api_version = app
                    .map_or(0, |app| app.api_version)
                    .max(vk::API_VERSION_1_0);
                let data = InstanceData {
                    handle: instance,
                    next_gipa,
                    table,
                    settings: Arc::new(settings),
                    api_version,
                };
                // SAFETY: the instance the next layer just created.
                let key = key_of(unsafe { Dispatchable::new(instance) })?;
                crate::layer::loader::registry::insert(&INSTANCES, key, Arc::new(data));
                log::debug!("instance {:#x} created", instance.as_raw());
                Some(())
            })
            .flatten();
            if recorded.is_none() {
                // Every later call on an unrecorded instance would fail: say so now. It is not
                // destroyed below the layer: the loader frees its own instance structures when
                // vkCreateInstance fails, and a vkDestroyInstance down the chain frees them a
                // second time (a double free with the system loader), so the driver's instance
                // is left to the loader.
                log::error!("vkCreateInstance: the layer could not record the instance");
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            result
        },
    )
}

/// Keeps this library loaded until the process exits, from its first instance on. The
/// loader dlopens a layer at every vkCreateInstance and dlcloses it at vkDestroyInstance;
/// without this, each instance after the first would map, relocate and run the library's
/// initialisers again (docs/performance.md, `instance_device_ratio`: about 0.2 ms of a
/// 8 ms instance + device on lavapipe). Nothing to undo: the records live in the process's
/// maps either way.
fn pin_library() {
    #[cfg(target_os = "linux")]
    {
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
        // glibc's values.
        const RTLD_LAZY: std::ffi::c_int = 0x1;
        const RTLD_NOLOAD: std::ffi::c_int = 0x4;
        const RTLD_NODELETE: std::ffi::c_int = 0x1000;
        PINNED.call_once(|| {
            let mut info = DlInfo {
                fname: std::ptr::null(),
                fbase: std::ptr::null_mut(),
                sname: std::ptr::null(),
                saddr: std::ptr::null_mut(),
            };
            // SAFETY: dladdr fills `info` for an address of this library; dlopen with
            // RTLD_NOLOAD only marks the already loaded library (the handle is kept: one
            // more reference, never closed).
            unsafe {
                if dladdr(pin_library as *const c_void, &mut info) != 0 && !info.fname.is_null() {
                    dlopen(info.fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
                }
            }
        });
    }
}

destroy_registered_hook! {
    /// `vkDestroyInstance`.
    "vkDestroyInstance",
    fn destroy_instance(instance: vk::Instance),
    &INSTANCES,
    forget: |_| {},
    next: |inst| inst.table.destroy_instance,
}

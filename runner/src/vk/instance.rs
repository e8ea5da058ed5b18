//! The Vulkan instance: the system loader, glsem above validation, and the debug
//! messenger that collects validation errors.

use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::Mutex;

use ash::vk;

use super::pipeline_path::Path;
use super::result::{check, VkResult};
use crate::layer::{GLSEM_LAYER, VALIDATION_LAYER};

/// Validation errors reported by the debug messenger since the last `take_messages`.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

pub fn take_messages() -> Vec<String> {
    std::mem::take(&mut *MESSAGES.lock().unwrap_or_else(|e| e.into_inner()))
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) && !data.is_null() {
        // SAFETY: the loader passes a callback-data struct (checked non-null) that is valid
        // for the duration of this call.
        let message = unsafe { (*data).p_message };
        let text = if message.is_null() {
            "(no message)".to_string()
        } else {
            // SAFETY: `p_message`, when set, is a NUL-terminated string owned by the loader
            // for the duration of this call; it is copied before returning.
            unsafe { CStr::from_ptr(message) }
                .to_string_lossy()
                .into_owned()
        };
        MESSAGES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }
    vk::FALSE
}

pub struct Vulkan {
    /// Also keeps libvulkan loaded for as long as the instance lives.
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub layer: bool,
    /// `--lower-left`: a positive viewport (row y is GL's window row y), else a negative one.
    pub lower_left: bool,
    /// `--pipelines`: how graphics pipelines are built.
    pub pipelines: Path,
}

impl Vulkan {
    /// Loads `libvulkan.so.1` and creates the instance with glsem above validation, and
    /// `extensions` (the window system's surface extensions for `--window`).
    pub fn new(layer: bool, validation: bool, extensions: &[*const c_char]) -> VkResult<Self> {
        // SAFETY: libvulkan.so.1 is the system loader; its initialisers are the loader's own
        // and `entry` keeps the library loaded as long as anything made from it lives.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("cannot load the Vulkan loader (libvulkan.so.1): {e}"))?;
        // SAFETY: a global command of the loader just loaded; it needs no handle.
        let available = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(check("vkEnumerateInstanceLayerProperties"))?;
        let has = |name: &str| {
            available.iter().any(|l| {
                l.layer_name_as_c_str()
                    .is_ok_and(|n| n.to_bytes() == name.as_bytes())
            })
        };
        let mut layers: Vec<CString> = Vec::new();
        if layer {
            if !has(GLSEM_LAYER) {
                return Err(format!(
                    "the Vulkan loader does not list {GLSEM_LAYER} (VK_ADD_LAYER_PATH={})",
                    std::env::var("VK_ADD_LAYER_PATH").unwrap_or_default()
                )
                .into());
            }
            layers.push(CString::new(GLSEM_LAYER).unwrap_or_default());
        }
        if validation {
            if !has(VALIDATION_LAYER) {
                return Err(format!(
                    "{VALIDATION_LAYER} is not installed (package vulkan-validationlayers); pass --no-validation to run without it"
                ).into());
            }
            layers.push(CString::new(VALIDATION_LAYER).unwrap_or_default());
        }
        let layer_ptrs: Vec<*const i8> = layers.iter().map(|l| l.as_ptr()).collect();
        let mut extensions = extensions.to_vec();
        if validation {
            extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"glsem-run")
            .api_version(vk::API_VERSION_1_3);
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                    | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(on_message));
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_ptrs)
            .enabled_extension_names(&extensions);
        if validation {
            info = info.push_next(&mut messenger_info);
        }
        // SAFETY: `info` points at `app`, `layer_ptrs` (into `layers`), `extensions` (static
        // names and the caller's) and `messenger_info`, all alive until this call returns.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| {
            let hint = if layer && e == vk::Result::ERROR_LAYER_NOT_PRESENT {
                " (the loader lists the glsem layer but could not load its library: is it a \
                 complete build of the layer? VK_LOADER_DEBUG=error,warn says why)"
            } else {
                ""
            };
            format!(
                "vkCreateInstance with layers [{}] failed: {e:?}{hint}",
                layers
                    .iter()
                    .map(|l| l.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        let debug = if validation {
            let utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
            // SAFETY: `instance` was created with VK_EXT_debug_utils (pushed above when
            // validating); `on_message` is a `'static` function and takes no user data.
            let messenger = unsafe { utils.create_debug_utils_messenger(&messenger_info, None) }
                .map_err(check("vkCreateDebugUtilsMessengerEXT"))?;
            Some((utils, messenger))
        } else {
            None
        };
        Ok(Vulkan {
            entry,
            instance,
            debug,
            layer,
            lower_left: false,
            pipelines: Path::Whole,
        })
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        if let Some((utils, messenger)) = self.debug.take() {
            // SAFETY: the messenger was created from this instance, which is still alive.
            unsafe { utils.destroy_debug_utils_messenger(messenger, None) };
        }
        // SAFETY: every `Gpu` is made and dropped while a scene is played with a borrow of
        // this `Vulkan`, so no device of the instance is left; the messenger is gone above.
        unsafe { self.instance.destroy_instance(None) };
    }
}

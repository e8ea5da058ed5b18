#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
//! The Vulkan layer: what the loader calls (`vkNegotiateLoaderLayerInterfaceVersion`,
//! `vkGet*ProcAddr`), the per-instance and per-device state, and the hook frames every hook
//! runs in (a panic never crosses FFI; the layer's own work is shielded so that a failure
//! there leaves the application's call untouched). docs/architecture.md lists the files.
//!
//! - `dispatch`: the one table of hooked entry points, their KHR/EXT aliases and the layer's
//!   own commands (names and types from `crate::abi`); `loader_abi`: `vk_layer.h` structs.
//! - One file per object served: `instance`, `device` (creation, the layer's extensions and
//!   the features it enables), `modules`, `render_passes` (and framebuffers), `layouts`,
//!   `planner` (`vkCreateGraphicsPipelines`: the key of `crate::semantics::choose` and the
//!   steps), `shader_object` (`vkCreateShadersEXT`, `vkCmdBindShadersEXT`), `command_state`
//!   (the GL state per command buffer behind `VK_GLSEM_tessellation_default_levels` and
//!   `VK_GLSEM_gl_state`).
//! - `pipeline_info`, `rewrite`, `push_range`: reading create infos, running steps, placing
//!   the GL-state block; `cache`, `records`: what is kept; `settings`, `log`, `ffi`,
//!   `shader_code`: leaves.

/// A `vkDestroy*` hook for objects the layer records: `forget` drops the record (with
/// `device` and the handle in scope), then the call goes down through the table's entry of
/// the hook's own name ([`forget_then_call_down`]).
macro_rules! destroy_hook {
    ($(#[$doc:meta])* $what:literal, $hook:ident($handle:ident: $ty:ty), |$dev:ident| $forget:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// Vulkan's valid usage for the command.
        pub unsafe extern "system" fn $hook(
            device: ash::vk::Device,
            $handle: $ty,
            p_allocator: *const ash::vk::AllocationCallbacks<'_>,
        ) {
            super::forget_then_call_down(
                $what,
                device,
                |$dev| $forget,
                |t| {
                    if let Some(destroy) = t.$hook {
                        // SAFETY: the application's arguments, passed on unchanged.
                        unsafe { destroy(device, $handle, p_allocator) };
                    }
                },
            )
        }
    };
}

mod cache;
mod command_state;
mod current_attributes;
mod device;
mod dispatch;
mod ffi;
mod instance;
mod layouts;
mod library_inputs;
pub mod loader_abi;
pub mod log;
mod modules;
mod pipeline_info;
mod planner;
pub mod push_range;
pub mod records;
mod render_passes;
mod rewrite;
pub mod settings;
mod shader_code;
mod shader_object;

use crate::abi;
use crate::semantics::DeviceKey;
use ash::vk::{self, Handle};
use parking_lot::RwLock;
use std::any::Any;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cache::RewriteCache;
use current_attributes::AttributeMemory;
use dispatch::{device_hook, instance_hook, layer_command};
use dispatch::{DeviceDispatch, InstanceDispatch};
use ffi::VoidFn;
use records::{Kind, Live, Records};
use settings::Settings;

/// A device extension this layer implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerExtension {
    /// GL's `glPatchParameterfv` default levels.
    TessellationDefaultLevels,
    /// GL's point, clip and rasterization state and conventions.
    GlState,
}

impl LayerExtension {
    pub const ALL: [LayerExtension; 2] = [
        LayerExtension::TessellationDefaultLevels,
        LayerExtension::GlState,
    ];

    /// Its name, version and commands.
    pub fn abi(self) -> &'static abi::Extension {
        match self {
            LayerExtension::TessellationDefaultLevels => &abi::TESSELLATION_DEFAULT_LEVELS,
            LayerExtension::GlState => &abi::GL_STATE,
        }
    }

    pub fn name(self) -> &'static str {
        self.abi().name
    }
}

/// The layer's extensions a device enabled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnabledExtensions {
    pub levels: bool,
    pub gl_state: bool,
}

impl EnabledExtensions {
    pub fn has(self, ext: LayerExtension) -> bool {
        match ext {
            LayerExtension::TessellationDefaultLevels => self.levels,
            LayerExtension::GlState => self.gl_state,
        }
    }
}

/// What a `VK_GLSEM_gl_state` device can take in its pipelines (the layer enabled these
/// on the driver for it).
#[derive(Debug, Clone, Copy, Default)]
pub struct Conventions {
    /// `VK_EXT_provoking_vertex` with `provokingVertexLast`.
    pub provoking_vertex_last: bool,
    /// `VK_EXT_depth_clip_control` with `depthClipControl`.
    pub depth_clip_control: bool,
    /// `VK_EXT_line_rasterization` (or KHR) with `bresenhamLines`, and
    /// `stippledBresenhamLines`.
    pub bresenham_lines: bool,
    pub stippled_bresenham_lines: bool,
}

pub struct InstanceData {
    pub handle: vk::Instance,
    pub next_gipa: vk::PFN_vkGetInstanceProcAddr,
    pub table: InstanceDispatch,
    pub settings: Arc<Settings>,
    /// `VkApplicationInfo::apiVersion` (1.0 when absent).
    pub api_version: u32,
}

/// The features a device was created with that the rewrites depend on.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnabledFeatures {
    pub tessellation_shader: bool,
    pub geometry_shader: bool,
    pub transform_feedback: bool,
    pub dynamic_rendering: bool,
    pub tess_geom_point_size: bool,
    pub maintenance5: bool,
    /// `shaderDrawParameters` (the application's, or enabled by the layer for
    /// `VK_GLSEM_gl_state`).
    pub draw_parameters: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_color_attachments: u32,
    pub max_fragment_output_attachments: u32,
    pub max_fragment_dual_src_attachments: u32,
    pub max_push_constants_size: u32,
    pub max_tessellation_patch_size: u32,
    pub max_vertex_input_bindings: u32,
    pub max_vertex_input_attributes: u32,
    /// The components every stage's output and the fragment shader's input interface have
    /// (`maxVertexOutputComponents`, `maxFragmentInputComponents`, and the tessellation
    /// evaluation and geometry stages' outputs where the device has them).
    pub max_interface_components: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::REQUIRED_MINIMUM
    }
}

impl Limits {
    /// The limits a Vulkan 1.0 device must at least support, for when the query fails.
    pub const REQUIRED_MINIMUM: Limits = Limits {
        max_color_attachments: 4,
        max_fragment_output_attachments: 4,
        max_fragment_dual_src_attachments: 0,
        max_push_constants_size: 128,
        max_tessellation_patch_size: 32,
        max_vertex_input_bindings: 16,
        max_vertex_input_attributes: 16,
        max_interface_components: 64,
    };

    /// The last Location every stage's interface has: where stages made apart pass GL's
    /// gl_Layer.
    pub fn last_interface_location(&self) -> u32 {
        (self.max_interface_components / 4).saturating_sub(1)
    }

    /// The Locations gl_FragColor goes to when the attachments are unknown: every one a
    /// colour attachment may sit at and a fragment shader may write.
    pub fn unknown_attachment_locations(&self) -> u32 {
        self.max_color_attachments
            .min(self.max_fragment_output_attachments)
    }
}

/// What `vkCreateDevice` learned about a device.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeviceFacts {
    pub features: EnabledFeatures,
    pub limits: Limits,
    pub extensions: EnabledExtensions,
    pub conventions: Conventions,
    /// A host-visible, host-coherent memory type (GL's current vertex attributes).
    pub host_coherent_memory: Option<u32>,
}

pub struct DeviceData {
    pub handle: vk::Device,
    pub next_gdpa: vk::PFN_vkGetDeviceProcAddr,
    pub table: DeviceDispatch,
    pub settings: Arc<Settings>,
    pub features: EnabledFeatures,
    pub limits: Limits,
    pub extensions: EnabledExtensions,
    pub conventions: Conventions,
    pub records: Records,
    /// GL's current vertex attributes: the layer's binding and memory.
    pub attribute_memory: AttributeMemory,
    /// Rewritten modules by content and pass (`cache` imports `records`, not the reverse).
    pub cache: RewriteCache,
    _live: Live,
}

impl DeviceData {
    /// What this device gives every pipeline key.
    pub fn key(&self) -> DeviceKey {
        DeviceKey {
            enabled: self.settings.semantics,
            max_color_attachments: self.limits.unknown_attachment_locations(),
            transform_feedback: self.features.transform_feedback,
            tess_geom_point_size: self.features.tess_geom_point_size,
            maintenance5: self.features.maintenance5,
            gl_state: self.extensions.gl_state,
            depth_clip_control: self.conventions.depth_clip_control,
            provoking_vertex_last: self.conventions.provoking_vertex_last,
            draw_parameters: self.features.draw_parameters,
            bresenham_lines: self.conventions.bresenham_lines,
            stippled_bresenham_lines: self.conventions.stippled_bresenham_lines,
            window_origin: self.settings.window_origin,
            apart_layer_location: self.limits.last_interface_location(),
        }
    }

    pub fn new(
        handle: vk::Device,
        next_gdpa: vk::PFN_vkGetDeviceProcAddr,
        table: DeviceDispatch,
        settings: Arc<Settings>,
        facts: DeviceFacts,
    ) -> DeviceData {
        let DeviceFacts {
            features,
            limits,
            extensions,
            conventions,
            host_coherent_memory,
        } = facts;
        let attribute_memory = AttributeMemory::new(
            host_coherent_memory.filter(|_| extensions.gl_state),
            limits.max_vertex_input_bindings,
            limits.max_vertex_input_attributes,
        );
        let cache = RewriteCache::new(settings.rewrite_cache_bytes());
        DeviceData {
            handle,
            next_gdpa,
            table,
            settings,
            features,
            limits,
            extensions,
            conventions,
            records: Records::default(),
            attribute_memory,
            cache,
            _live: Live::new(Kind::Device),
        }
    }
}

/// Layer state per instance and per device, keyed by dispatch key. A handful of entries at
/// most, so a vector beats hashing on the per-call lookup.
type Registry<T> = RwLock<Vec<(usize, Arc<T>)>>;
static INSTANCES: Registry<InstanceData> = RwLock::new(Vec::new());
static DEVICES: Registry<DeviceData> = RwLock::new(Vec::new());

fn key_of<H: Handle>(handle: H) -> Option<usize> {
    let raw = handle.as_raw() as usize as *const c_void;
    // SAFETY: the application passes live dispatchable handles (Vulkan's valid usage).
    (!raw.is_null()).then(|| unsafe { loader_abi::dispatch_key(raw) })
}

fn lookup<T>(registry: &Registry<T>, key: usize) -> Option<Arc<T>> {
    registry
        .read()
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.clone())
}

fn insert<T>(registry: &Registry<T>, key: usize, value: Arc<T>) {
    let mut list = registry.write();
    list.retain(|(k, _)| *k != key);
    list.push((key, value));
}

fn remove<T>(registry: &Registry<T>, key: usize) -> Option<Arc<T>> {
    let mut list = registry.write();
    let index = list.iter().position(|(k, _)| *k == key)?;
    let value = list.swap_remove(index).1;
    if list.is_empty() {
        // The loader unloads the layer after the last vkDestroyInstance: a buffer still
        // owned by the static then would leak with every load.
        *list = Vec::new();
    }
    Some(value)
}

/// The instance of an instance or physical-device handle (they share the dispatch key).
pub fn instance_data<H: Handle>(handle: H) -> Option<Arc<InstanceData>> {
    lookup(&INSTANCES, key_of(handle)?)
}

/// The device of a device, queue or command-buffer handle (they share the dispatch key).
pub fn device_data<H: Handle>(handle: H) -> Option<Arc<DeviceData>> {
    lookup(&DEVICES, key_of(handle)?)
}

/// Runs `f` on the device under the registry's read lock, without touching the `Arc`'s
/// count: for hot paths that only copy a function pointer or read an atomic out.
#[inline]
pub fn with_device<H: Handle, R>(handle: H, f: impl FnOnce(&DeviceData) -> R) -> Option<R> {
    let key = key_of(handle)?;
    let list = DEVICES.read();
    list.iter().find(|(k, _)| *k == key).map(|(_, d)| f(d))
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Runs the layer's own work for `what`; a panic is logged and turns into `None`, so that
/// the caller goes on with the application's call untouched.
pub fn shield<T>(what: &str, f: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => Some(value),
        Err(payload) => {
            log::error!(
                "internal error in {what}: {}; passing the call through untouched",
                panic_message(&*payload)
            );
            None
        }
    }
}

/// The outermost guard of every exported function: no panic crosses the FFI boundary.
/// `on_panic` is what the application gets when even calling down failed.
pub fn ffi_guard<T>(what: &str, on_panic: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => value,
        Err(payload) => {
            log::error!("internal error in {what}: {}", panic_message(&*payload));
            on_panic
        }
    }
}

/// What a hook returns when it cannot even call down (unknown handle, missing command).
fn unknown_handle(what: &str) -> vk::Result {
    log::error!("{what}: handle unknown to the layer or command missing below it");
    vk::Result::ERROR_UNKNOWN
}

/// The frame of a device-level hook that returns a `VkResult`: the FFI guard, the device of
/// `handle` and the next layer's command that `next` picks from its table (a logged
/// `VK_ERROR_UNKNOWN` when either is missing: there is nothing to call down to), then `body`.
fn call_with_next<H: Handle, F>(
    what: &str,
    handle: H,
    next: impl FnOnce(&DeviceDispatch) -> Option<F>,
    body: impl FnOnce(&Arc<DeviceData>, F) -> vk::Result,
) -> vk::Result {
    ffi_guard(what, vk::Result::ERROR_UNKNOWN, || {
        let Some(dev) = device_data(handle) else {
            return unknown_handle(what);
        };
        let Some(next) = next(&dev.table) else {
            return unknown_handle(what);
        };
        body(&dev, next)
    })
}

/// The frame of a hook that ends the life of objects the layer records: `forget` drops the
/// records first (the driver may hand a handle out again as soon as it has it back), then
/// `call_down` passes the call on. An unknown device has no table to call down through.
fn forget_then_call_down<H: Handle>(
    what: &str,
    handle: H,
    forget: impl FnOnce(&DeviceData),
    call_down: impl FnOnce(&DeviceDispatch),
) {
    ffi_guard(what, (), || {
        let Some(dev) = device_data(handle) else {
            return;
        };
        shield(what, || forget(&dev));
        call_down(&dev.table);
    })
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

/// The test-only `debug_inject_panic` setting (comma-separated entry point names): panics
/// inside the named entry points.
pub fn maybe_inject_panic(settings: &Settings, entry_point: &str) {
    let Some(names) = &settings.debug_inject_panic else {
        return;
    };
    if names.split(',').any(|n| n.trim() == entry_point) {
        panic!("injected panic in {entry_point} (debug_inject_panic)");
    }
}

fn void_fn<F: Copy>(f: F) -> vk::PFN_vkVoidFunction {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<VoidFn>());
    // SAFETY: F is a function pointer type (callers pass only those); the caller casts back.
    Some(unsafe { std::mem::transmute_copy::<F, VoidFn>(&f) })
}

/// `vkGetInstanceProcAddr` of this layer.
///
/// # Safety
/// Vulkan's valid usage for `vkGetInstanceProcAddr`.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    if p_name.is_null() {
        return None;
    }
    ffi_guard("vkGetInstanceProcAddr", None, || {
        // SAFETY: pName is a nul-terminated string (Vulkan's valid usage).
        let name = unsafe { CStr::from_ptr(p_name) }.to_bytes();
        match name {
            b"vkGetInstanceProcAddr" => {
                return void_fn::<vk::PFN_vkGetInstanceProcAddr>(get_instance_proc_addr)
            }
            b"vkGetDeviceProcAddr" => {
                return void_fn::<vk::PFN_vkGetDeviceProcAddr>(get_device_proc_addr)
            }
            b"vkCreateInstance" => {
                return void_fn::<vk::PFN_vkCreateInstance>(instance::create_instance)
            }
            _ => {}
        }
        let inst = instance_data(instance)?;
        if let Some((command, _)) = layer_command(name) {
            return Some(command);
        }
        if let Some((hook, available)) = instance_hook(name) {
            return available(&inst.table).then_some(hook);
        }
        // SAFETY: the application's arguments, passed on unchanged.
        let next = unsafe { (inst.next_gipa)(instance, p_name) };
        match device_hook(name) {
            Some((hook, _)) => next.map(|_| hook),
            None => next,
        }
    })
}

/// `vkGetDeviceProcAddr` of this layer.
///
/// # Safety
/// Vulkan's valid usage for `vkGetDeviceProcAddr`.
pub unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    if p_name.is_null() {
        return None;
    }
    ffi_guard("vkGetDeviceProcAddr", None, || {
        // SAFETY: pName is a nul-terminated string (Vulkan's valid usage).
        let name = unsafe { CStr::from_ptr(p_name) }.to_bytes();
        if name == b"vkGetDeviceProcAddr" {
            return void_fn::<vk::PFN_vkGetDeviceProcAddr>(get_device_proc_addr);
        }
        let dev = device_data(device)?;
        if let Some((command, extension)) = layer_command(name) {
            if !dev.extensions.has(extension) {
                log::warning!(
                    "vkGetDeviceProcAddr({}): the device did not enable {}; returning NULL",
                    String::from_utf8_lossy(name),
                    extension.name()
                );
                return None;
            }
            return Some(command);
        }
        if let Some((hook, available)) = device_hook(name) {
            return available(&dev.table).then_some(hook);
        }
        // SAFETY: the application's arguments, passed on unchanged.
        unsafe { (dev.next_gdpa)(device, p_name) }
    })
}

/// `vkNegotiateLoaderLayerInterfaceVersion`: interface version 2.
///
/// # Safety
/// `p_version_struct` is the loader's negotiation struct.
pub unsafe fn negotiate_loader_layer_interface_version(
    p_version_struct: *mut loader_abi::NegotiateLayerInterface,
) -> vk::Result {
    // SAFETY: the loader passes its negotiation struct (the caller's contract).
    let Some(v) = (unsafe { p_version_struct.as_mut() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    if v.s_type != loader_abi::LAYER_NEGOTIATE_INTERFACE_STRUCT
        || v.loader_layer_interface_version < loader_abi::LAYER_INTERFACE_VERSION
    {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    v.loader_layer_interface_version = loader_abi::LAYER_INTERFACE_VERSION;
    v.pfn_get_instance_proc_addr = Some(get_instance_proc_addr);
    v.pfn_get_device_proc_addr = Some(get_device_proc_addr);
    v.pfn_get_physical_device_proc_addr = None;
    vk::Result::SUCCESS
}

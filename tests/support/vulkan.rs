//! The Vulkan harness shared by the integration tests (a module of `tests/support/mod.rs`)
//! and the benchmark binary (`benches/support/gpu.rs`), both of which drive the built layer
//! through the system loader: installing the layer for the loader, reading its counters, and
//! the objects both create the same way. The benchmark includes it with `#[path]` (a module,
//! not a crate: it needs nothing beyond the dev-dependencies `ash`, `libloading` and glsem).
#![allow(dead_code)]

use ash::vk;
use std::ffi::CStr;
use std::path::Path;

pub use VkLayer_glsem::layer::records::DebugCounters;

pub const GLSEM: &CStr = c"VK_LAYER_GLSEM_gl_semantics";
/// The layer's device extension for GL's state (`include/vk_glsem.h`).
pub const GL_STATE_EXTENSION: &CStr = c"VK_GLSEM_gl_state";

/// Writes the repository's layer manifest (its device extensions and settings) into `dir`
/// with an absolute `library_path` to `library`, and points `VK_ADD_LAYER_PATH` at `dir`.
/// Must run before the loader first scans layers.
pub fn install_layer(dir: &Path, library: &Path) {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("layer-manifest/VkLayer_glsem.json");
    let shipped =
        std::fs::read_to_string(&shipped).unwrap_or_else(|e| panic!("{}: {e}", shipped.display()));
    const KEY: &str = "\"library_path\": \"";
    let value = shipped.find(KEY).expect("the manifest's library_path") + KEY.len();
    let value_end = value
        + shipped[value..]
            .find('"')
            .expect("library_path's closing quote");
    let manifest = format!(
        "{}{}{}",
        &shipped[..value],
        library.display(),
        &shipped[value_end..]
    );
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("VkLayer_glsem.json"), manifest).unwrap();
    std::env::set_var("VK_ADD_LAYER_PATH", dir);
}

/// The system Vulkan loader.
pub fn load_loader() -> ash::Entry {
    // SAFETY: loads libvulkan.so.1, kept loaded by the returned entry.
    unsafe { ash::Entry::load() }.expect("load libvulkan.so.1 (package libvulkan1)")
}

/// The layer's process-wide counters (`glsemGetDebugCounters`), read from `library`: the
/// layer library opened by this process, which is the copy the loader loaded (this binary's
/// own copy of the crate has separate statics).
pub fn layer_counters(library: &libloading::Library) -> DebugCounters {
    let mut counters = DebugCounters::default();
    // SAFETY: the symbol has this signature (src/lib.rs).
    unsafe {
        let get: libloading::Symbol<unsafe extern "C" fn(*mut DebugCounters)> =
            library.get(b"glsemGetDebugCounters\0").unwrap();
        get(&mut counters);
    }
    counters
}

/// A render pass with `count` RGBA8 colour attachments, cleared at load and stored, all
/// written by its one subpass and left in `final_layout`.
pub fn color_render_pass(
    device: &ash::Device,
    count: u32,
    final_layout: vk::ImageLayout,
) -> vk::RenderPass {
    let attachments: Vec<_> = (0..count)
        .map(|_| {
            vk::AttachmentDescription::default()
                .format(vk::Format::R8G8B8A8_UNORM)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(final_layout)
        })
        .collect();
    let references: Vec<_> = (0..count)
        .map(|attachment| vk::AttachmentReference {
            attachment,
            layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        })
        .collect();
    let subpasses = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&references)];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: valid create info.
    unsafe { device.create_render_pass(&info, None) }.expect("vkCreateRenderPass")
}

/// A command pool of `queue_family` (the caller destroys it) and one primary command
/// buffer from it.
pub fn command_pool(
    device: &ash::Device,
    queue_family: u32,
) -> (vk::CommandPool, vk::CommandBuffer) {
    let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(queue_family);
    // SAFETY: valid create info.
    let pool = unsafe { device.create_command_pool(&pool_info, None) }.unwrap();
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: `pool` is this device's.
    let buffer = unsafe { device.allocate_command_buffers(&alloc) }.unwrap()[0];
    (pool, buffer)
}

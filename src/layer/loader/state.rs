//! What the layer keeps per instance and per device: the instance's table and settings, and
//! the device's facts (features, limits, the layer's extensions and the conventions it
//! enabled), table, records, caches and attribute memory.

use ash::vk;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::layer::data::cache::RewriteCache;
use crate::layer::data::dynamic_inputs::Variant;
use crate::layer::data::extensions::EnabledExtensions;
use crate::layer::data::kept_pipeline::KeptPipeline;
use crate::layer::data::layer_memory::{AttributeMemory, DrawMemory};
use crate::layer::data::lines::LineConventions;
use crate::layer::data::records::{Kind, Live, Records};
use crate::layer::data::vertex_formats::MissingVertexFormats;
use crate::layer::loader::dispatch::{DeviceDispatch, InstanceDispatch};
use crate::layer::support::error::PlanError;
use crate::layer::support::settings::Settings;

use glsem_spirv::scan::{scan, scan_with_interface_ends, scan_without_bodies, Summary};
use glsem_spirv::semantics::{DeviceKey, Semantic};

/// How a convention behind a driver extension was settled (`DeviceSetup::adopt`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Adopted {
    /// The feature is on.
    pub on: bool,
    /// The layer enabled the extension, behind the application.
    pub behind_the_application: bool,
}

/// What a `VK_GLSEM_gl_state` device can take in its pipelines (the layer enabled these
/// on the driver for it).
#[derive(Debug, Clone, Copy, Default)]
pub struct Conventions {
    /// `VK_EXT_provoking_vertex` with `provokingVertexLast`, and `VK_EXT_depth_clip_control`
    /// with `depthClipControl`. Where the layer enabled them behind the application, shader
    /// objects need their dynamic state from the layer, as the application does not know it
    /// must set it.
    pub provoking_vertex: Adopted,
    pub depth_clip: Adopted,
    /// GL's line rule's (`data/lines.rs`).
    pub lines: LineConventions,
    /// `VK_EXT_primitive_topology_list_restart` with `primitiveTopologyListRestart`: the
    /// geometry shader's list of GL's quads may restart.
    pub list_restart: bool,
    /// GL's window coordinates, as the setting of that rule gives them.
    pub window: WindowConventions,
    /// The fragment stage reads the GL-state block (GL's window coordinates, the fragment
    /// route's lines).
    pub fragment_reads_block: bool,
}

/// How GL's window maps onto the framebuffer on a `VK_GLSEM_gl_state` device (all `false`
/// where the application keeps Vulkan's), decided by that rule at `vkCreateDevice`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowConventions {
    /// GL's window y comes from a negative viewport: `gl_FragCoord.y = H - y` takes `H` from
    /// viewport 0's `y`, and a dynamic viewport is taken to be negative.
    pub negative_viewport: bool,
    /// Pipelines' static front face and `vkCmdSetFrontFace` are inverted: a positive
    /// viewport turns GL's winding over.
    pub inverted_front_face: bool,
    /// Vulkan's default tessellation domain origin becomes `LOWER_LEFT`: both of GL's window
    /// origins wind a TES as Vulkan's lower-left origin does (docs/semantics.md, `window_origin`).
    pub lower_left_domain: bool,
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
    /// `drawIndirectFirstInstance`: an indirect draw may set a base instance.
    pub draw_indirect_first_instance: bool,
    /// `vertexPipelineStoresAndAtomics` (the application's, or enabled by the layer).
    pub vertex_stores: bool,
    /// `bufferDeviceAddress` in the application's `VkPhysicalDeviceVulkan12Features` or
    /// `VkPhysicalDeviceBufferDeviceAddressFeatures`.
    pub buffer_device_address: bool,
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
    pub max_vertex_input_attribute_offset: u32,
    /// The rasterizer's subpixel grid (`subPixelPrecisionBits`).
    pub sub_pixel_precision_bits: u32,
    /// The components every stage's output and the fragment shader's input interface have
    /// (`maxVertexOutputComponents`, `maxFragmentInputComponents`, and the tessellation
    /// evaluation and geometry stages' outputs where the device has them).
    pub max_interface_components: u32,
    /// The Locations each stage's inputs and outputs may take, indexed by
    /// [`glsem_spirv::semantics::Stage`] (`interface_limits` names the limit of each).
    pub stage_inputs: [u32; 5],
    pub stage_outputs: [u32; 5],
    /// Where the layer may bind an application's buffer as a storage buffer
    /// (`converted_draws`).
    pub min_storage_buffer_offset_alignment: u64,
    pub max_storage_buffer_range: u32,
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
        max_vertex_input_attribute_offset: 2047,
        sub_pixel_precision_bits: 4,
        max_interface_components: 64,
        stage_inputs: [16, 16, 16, 16, 16],
        stage_outputs: [16, 16, 16, 16, 4],
        min_storage_buffer_offset_alignment: 256,
        max_storage_buffer_range: 1 << 27,
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
    /// The vertex formats GL names that the device cannot read from vertex buffers.
    pub missing_vertex_formats: MissingVertexFormats,
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
    /// What this device gives every pipeline key (`rules::device_key`).
    pub key: DeviceKey,
    /// The vertex formats GL names that the device cannot read from vertex buffers.
    pub missing_vertex_formats: MissingVertexFormats,
    pub records: Records,
    /// GL's current vertex attributes: the layer's binding and memory.
    pub attribute_memory: AttributeMemory,
    /// The memory of the draw-time rules: the layer's index buffers and compute pipeline.
    pub draws: DrawMemory,
    /// `gl_InstanceID` in an indirect draw without `shaderDrawParameters` was reported.
    pub base_instance_warned: AtomicBool,
    /// Rewritten modules by content and pass (`cache` imports `records`, not the reverse).
    pub cache: RewriteCache,
    /// Makes a kept pipeline again for a vertex input its shader cannot read as given: the
    /// planner's (`pipelines/planner.rs`), called at record time and at links.
    pub make_again: MakeAgain,
    _live: Live,
}

/// The planner's remake of a kept pipeline or library for a vertex input given as static
/// state (bindings, attributes), single-sampled where the flag says (a link's line rule):
/// the pipeline made, with how its shader reads the attributes it refetches.
pub type MakeAgain = fn(
    &DeviceData,
    &KeptPipeline,
    (
        &[vk::VertexInputBindingDescription],
        &[vk::VertexInputAttributeDescription],
    ),
    bool,
) -> Result<Variant, PlanError>;

impl DeviceData {
    /// The summary of a module for this device: with GL's gl_Layer passed between stages
    /// made apart (`VK_GLSEM_gl_state`), a pre-rasterization module's interface ends too;
    /// without the GL-state block no rule reads a fragment shader's window y, and the scan
    /// leaves its function bodies unread.
    pub fn scan(&self, words: &[u32]) -> Summary {
        if !self.extensions.gl_state {
            scan_without_bodies(words)
        } else if self.settings.semantics.contains(Semantic::GlLayer) {
            scan_with_interface_ends(words)
        } else {
            scan(words)
        }
    }

    pub fn new(
        handle: vk::Device,
        next_gdpa: vk::PFN_vkGetDeviceProcAddr,
        table: DeviceDispatch,
        settings: Arc<Settings>,
        facts: DeviceFacts,
        key: DeviceKey,
        make_again: MakeAgain,
    ) -> DeviceData {
        let DeviceFacts {
            features,
            limits,
            extensions,
            conventions,
            host_coherent_memory,
            missing_vertex_formats,
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
            key,
            missing_vertex_formats,
            records: Records::default(),
            attribute_memory,
            draws: DrawMemory::default(),
            base_instance_warned: AtomicBool::new(false),
            cache,
            make_again,
            _live: Live::new(Kind::Device),
        }
    }
}

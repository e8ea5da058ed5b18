//! What the layer remembers about a device's objects, and the live-record counters a test
//! reads to check that `vkDestroyDevice` drops them all.

use ash::vk;
use once_cell::sync::OnceCell;
use parking_lot::{Mutex, RwLock};
// FxHash: the keys are handles (pointers or driver-chosen integers), not attacker-chosen,
// and SipHash was a measurable part of a pass-through module's and pipeline's path
// (issue 35).
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::layer::data::dynamic_inputs::{
    DynamicInputState, FollowedPipeline, MadeAgain, ObjectVariant, VertexInputVariants,
};
use crate::layer::data::kept_pipeline::KeptPipeline;
use crate::layer::data::layer_memory::{AttributeValues, ConversionMemory};
use crate::layer::data::lines::{
    BoundLines, CommandBufferLines, PipelineLines, StaticMultisample, INITIAL_LINE_PATTERN,
};
use crate::layer::data::primitives::{
    BoundPrimitives, CommandBufferPrimitives, PipelinePrimitives,
};
use crate::layer::data::render_targets::{
    ComputeBindings, RenderPassCopy, RenderTarget, ResumablePass,
};
use crate::layer::data::retired_modules::{RetiredCode, RetiredModules};
use crate::layer::data::words::Words;
use glsem_spirv::gl_state::{FLAG_LINES, FLAG_LINE_VARYINGS};
use glsem_spirv::interface::entry_point_ends;
use glsem_spirv::interface::InputKind;
use glsem_spirv::scan::{LocationEnds, Summary};
use glsem_spirv::semantics::GlMode;
use glsem_spirv::semantics::PrimitiveGsKey;
use spirv::ExecutionModel;

/// Kinds of live records, for [`DebugCounters`].
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Device,
    RenderPass,
    PipelineLayout,
    Pipeline,
    CommandBuffer,
    CacheEntry,
}

static LIVE: [AtomicUsize; 6] = [const { AtomicUsize::new(0) }; 6];

/// A token held by every record: counts it while it lives. Counting on drop (rather than
/// reading map sizes) also catches records kept alive by a stray `Arc`.
#[derive(Debug)]
pub struct Live(Kind);

impl Live {
    pub fn new(kind: Kind) -> Live {
        LIVE[kind as usize].fetch_add(1, Ordering::Relaxed);
        Live(kind)
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        LIVE[self.0 as usize].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Process-wide counters, read by tests through the exported `glsemGetDebugCounters`.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DebugCounters {
    pub devices: u64,
    pub shader_modules: u64,
    pub render_passes: u64,
    pub pipeline_layouts: u64,
    pub pipelines: u64,
    pub command_buffers: u64,
    pub cache_entries: u64,
    /// Pass executions (rewrite-cache misses) since the process started.
    pub rewrites: u64,
    /// Pipelines passed down untouched by the planner's fast path.
    pub fast_path_pipelines: u64,
}

pub static REWRITES: AtomicUsize = AtomicUsize::new(0);
pub static FAST_PATH_PIPELINES: AtomicUsize = AtomicUsize::new(0);

/// The counters; `shader_modules`, the records in the devices' module maps (which hold
/// them by value: no stray reference can keep one alive), is the caller's count.
pub fn debug_counters(shader_modules: usize) -> DebugCounters {
    let live = |k: Kind| LIVE[k as usize].load(Ordering::Relaxed) as u64;
    DebugCounters {
        devices: live(Kind::Device),
        shader_modules: shader_modules as u64,
        render_passes: live(Kind::RenderPass),
        pipeline_layouts: live(Kind::PipelineLayout),
        pipelines: live(Kind::Pipeline),
        command_buffers: live(Kind::CommandBuffer),
        cache_entries: live(Kind::CacheEntry),
        rewrites: REWRITES.load(Ordering::Relaxed) as u64,
        fast_path_pipelines: FAST_PATH_PIPELINES.load(Ordering::Relaxed) as u64,
    }
}

/// A shader module's code and its fast-path summary: in the device's module map, or a
/// transient record of code given inline in a stage's `pNext`.
pub struct ModuleRecord {
    pub words: Words,
    pub summary: Summary,
    hash: OnceCell<u64>,
    /// Boxed: the record stays small enough to be moved without a `memcpy` call.
    interface_ends: OnceCell<Box<[(ExecutionModel, String, LocationEnds)]>>,
}

impl RetiredCode for ModuleRecord {
    fn code(&self) -> &[u32] {
        &self.words
    }
}

impl ModuleRecord {
    pub fn new(summary: Summary, words: &[u32]) -> ModuleRecord {
        ModuleRecord {
            summary,
            words: words.into(),
            hash: OnceCell::new(),
            interface_ends: OnceCell::new(),
        }
    }

    /// A copy for a pipeline's plan, which outlives the module map's lock: the words
    /// shared, the hash computed once in the map's record for every later copy.
    pub fn snapshot(&self) -> ModuleRecord {
        ModuleRecord {
            words: self.words.clone(),
            summary: self.summary.clone(),
            hash: OnceCell::with_value(self.hash()),
            interface_ends: self.interface_ends.clone(),
        }
    }

    /// Content hash, computed on first use (only pipelines that need a rewrite ask).
    pub fn hash(&self) -> u64 {
        *self.hash.get_or_init(|| content_hash(&self.words))
    }

    /// Where entry point `name` of `model` has its Locations end, parsed on first use (once
    /// per module: pipelines are checked against the device's interface limits).
    pub fn interface_ends(&self, model: ExecutionModel, name: &str) -> Option<LocationEnds> {
        let all = self
            .interface_ends
            .get_or_init(|| entry_point_ends(&self.words).into());
        all.iter()
            .find(|(m, n, _)| *m == model && n == name)
            .map(|(_, _, ends)| *ends)
    }
}

/// A fast 64-bit hash of a module's words (FxHash-style). Cache keys compare the words too,
/// so a collision costs a comparison, never a wrong module.
pub fn content_hash(words: &[u32]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (words.len() as u64).wrapping_mul(K);
    let mut pairs = words.chunks_exact(2);
    for pair in &mut pairs {
        let v = u64::from(pair[0]) | (u64::from(pair[1]) << 32);
        h = (h.rotate_left(5) ^ v).wrapping_mul(K);
    }
    for &w in pairs.remainder() {
        h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(K);
    }
    h
}

/// Colour attachments per subpass: index = attachment location, `None` =
/// `VK_ATTACHMENT_UNUSED`.
pub struct RenderPassRecord {
    pub subpass_colors: Vec<Vec<Option<vk::Format>>>,
    /// What the layer needs to end an instance of it early and begin it again.
    pub resumable: ResumablePass,
    _live: Live,
}

impl RenderPassRecord {
    pub fn new(
        subpass_colors: Vec<Vec<Option<vk::Format>>>,
        copy: Result<RenderPassCopy, &'static str>,
    ) -> RenderPassRecord {
        RenderPassRecord {
            subpass_colors,
            resumable: ResumablePass {
                copy,
                variants: Default::default(),
            },
            _live: Live::new(Kind::RenderPass),
        }
    }
}

/// Where a pipeline layout holds the GL-state push-constant block
/// (`glsem_spirv::gl_state`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockSlot {
    /// At `offset`; pushes must name `push_stages` (every stage of every range holding
    /// it); the shaders of `reads` may read it.
    /// `size` bytes: the whole block, or the levels alone where the layout had no room.
    Reserved {
        offset: u32,
        size: u32,
        push_stages: vk::ShaderStageFlags,
        reads: vk::ShaderStageFlags,
    },
    /// The layout holds no block, and why.
    Unavailable(String),
}

impl BlockSlot {
    /// Where a shader of `stage` reads the block, if it can.
    pub fn offset_for(&self, stage: vk::ShaderStageFlags) -> Option<u32> {
        match self {
            BlockSlot::Reserved { offset, reads, .. } if reads.contains(stage) => Some(*offset),
            _ => None,
        }
    }
}

pub struct LayoutRecord {
    pub app_ranges: Vec<vk::PushConstantRange>,
    pub block: BlockSlot,
    /// Set once a pipeline on this layout had to do without the block (the layer warns once).
    pub warned_no_block: AtomicBool,
    _live: Live,
}

impl LayoutRecord {
    pub fn new(app_ranges: Vec<vk::PushConstantRange>, block: BlockSlot) -> LayoutRecord {
        LayoutRecord {
            app_ranges,
            block,
            warned_no_block: AtomicBool::new(false),
            _live: Live::new(Kind::PipelineLayout),
        }
    }
}

/// Where to push the GL-state block for a pipeline whose shaders read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockBinding {
    pub layout: vk::PipelineLayout,
    pub offset: u32,
    /// The bytes of the block the layout holds (pushes send no more).
    pub size: u32,
    pub stages: vk::ShaderStageFlags,
}

/// What the draws and state commands of a command buffer act on while a pipeline is bound:
/// its record's part that `vkCmdBindPipeline` copies into the command buffer
/// ([`CommandBufferState::pipeline`]) whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundRecord {
    /// GL's line rule: what the layer sets of its lines.
    pub lines: BoundLines,
    /// GL's primitive modes: what draws do of its primitives.
    pub primitives: BoundPrimitives,
    /// `gl_InstanceID` without `shaderDrawParameters`: what draws push of their instances.
    pub instances: BoundInstances,
}

/// The bound pipeline's instances, for `gl_InstanceID` without `shaderDrawParameters`
/// (`BoundRecord::instances`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundInstances {
    /// Its vertex shader reads the base instance from the GL-state block: draws push it.
    pub base_from_block: bool,
    /// It may read instance-rate vertex attributes (or its vertex input is unknown here;
    /// `None`: dynamic vertex input): an indirect draw's `firstInstance` must then reach the
    /// driver as it is.
    pub instance_rate: Option<bool>,
}

impl BoundRecord {
    /// A pipeline the layer did not record: nothing to do.
    pub const NONE: BoundRecord = BoundRecord {
        lines: BoundLines::NONE,
        primitives: BoundPrimitives::NONE,
        instances: BoundInstances {
            base_from_block: false,
            instance_rate: Some(true),
        },
    };

    /// Shader objects bound in place of a pipeline: their lines are the layer's where it
    /// sets their line state (`lines`), and their primitives follow GL's mode set for them
    /// (`primitives`).
    pub fn shader_objects(lines: BoundLines, primitives: BoundPrimitives) -> BoundRecord {
        BoundRecord {
            lines,
            primitives,
            ..BoundRecord::NONE
        }
    }
}

/// A pipeline the layer rewrote (pass-through pipelines are not recorded).
pub struct PipelineRecord {
    /// What a command buffer acts on while it is bound.
    pub bound: BoundRecord,
    /// What GL's line rule does at its bind.
    pub lines: PipelineLines,
    /// What GL's primitive modes do at its bind.
    pub primitives: PipelinePrimitives,
    /// Its shaders (a generated TCS, or GL state in the last pre-rasterization stage) read
    /// the GL-state block.
    pub reads_block: Option<BlockBinding>,
    /// Its static viewport 0 (`None`: dynamic), for GL's `gl_FragCoord.y` and line
    /// endpoints (`GlStateValues::set_viewport`).
    pub viewport: Option<vk::Viewport>,
    /// Its static topology and polygon mode (`None`: dynamic state), for the GL-state
    /// block's `FLAG_LINES` ([`DrawnPrimitives`]).
    pub static_topology: Option<vk::PrimitiveTopology>,
    pub static_polygon_mode: Option<vk::PolygonMode>,
    /// It reads GL's current vertex attributes from the layer's binding: the Locations
    /// that read an integer type (`layer_memory::integer_slots`).
    pub layer_attributes: Option<u32>,
    /// The vertex-input library the layer made for it to feed those values, or to read its
    /// attributes (`library_inputs`): destroyed with it.
    pub vertex_input_library: Option<vk::Pipeline>,
    /// The pre-rasterization library the layer made again for it, its vertex shader
    /// reading attributes the device cannot read as given (`library_inputs`): destroyed
    /// with it.
    pub pre_rasterization_library: Option<vk::Pipeline>,
    /// Its vertex input or GL's conventions are dynamic state the layer follows
    /// (`dynamic_inputs`).
    pub followed: Option<Arc<FollowedPipeline>>,
    /// Its vertex input is dynamic state: it is kept, to be made again for a vertex input
    /// it cannot read (`vertex_input_variants`), and what was made of it.
    pub vertex_input_variants: Option<Arc<VertexInputVariants>>,
    _live: Live,
}

impl PipelineRecord {
    pub fn new(
        reads_block: Option<BlockBinding>,
        viewport: Option<vk::Viewport>,
    ) -> PipelineRecord {
        PipelineRecord {
            bound: BoundRecord::NONE,
            lines: PipelineLines::default(),
            primitives: PipelinePrimitives::default(),
            reads_block,
            viewport,
            static_topology: None,
            static_polygon_mode: None,
            layer_attributes: None,
            vertex_input_library: None,
            pre_rasterization_library: None,
            followed: None,
            vertex_input_variants: None,
            _live: Live::new(Kind::Pipeline),
        }
    }
}

/// The GL-state block's contents, in its layout (`glsem_spirv::gl_state`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlStateValues {
    pub inner: [f32; 2],
    pub outer: [f32; 4],
    pub point_size: f32,
    pub flags: u32,
    /// `H` of GL's `gl_FragCoord.y = H - y` under a negative viewport: the `y` of viewport 0.
    pub window_height: f32,
    /// The last draw's `firstInstance`, for `gl_InstanceID` on a device without
    /// `shaderDrawParameters` (`commands/draws/base_instance.rs`).
    pub base_instance: u32,
    /// Viewport 0's transform to window coordinates, `(width, height) / 2` and
    /// `(x, y) + (width, height) / 2`, for GL's line endpoints (`line_endpoints`).
    pub viewport_scale: [f32; 2],
    pub viewport_offset: [f32; 2],
    /// GL's line pattern for GL's lines by the fragment route: the pattern in bits 0-15,
    /// its repeat factor in bits 16-24 (`data/lines.rs`; a flag of the block enables it).
    pub line_pattern: u32,
}

impl GlStateValues {
    /// GL's initial state: levels 1.0, point size 1.0, program point size off, no clip
    /// plane enabled, point sprite origin GL_UPPER_LEFT; no viewport yet.
    pub const INITIAL: GlStateValues = GlStateValues {
        inner: [1.0; 2],
        outer: [1.0; 4],
        point_size: 1.0,
        flags: 0,
        window_height: 0.0,
        base_instance: 0,
        viewport_scale: [0.0; 2],
        viewport_offset: [0.0; 2],
        line_pattern: INITIAL_LINE_PATTERN,
    };

    /// Viewport 0 `v` is set: its transform, and, where a flipped viewport puts GL's
    /// bottom edge at its `y`, the `H` of `gl_FragCoord.y = H - y` (`flipped`).
    pub fn set_viewport(&mut self, v: &vk::Viewport, flipped: bool) {
        let half = [v.width / 2.0, v.height / 2.0];
        self.viewport_scale = half;
        self.viewport_offset = [v.x + half[0], v.y + half[1]];
        if flipped {
            self.window_height = v.y;
        }
    }

    /// `FLAG_LINE_VARYINGS`: the bound pipeline's last pre-rasterization stage sends lines
    /// the fragment line route tests.
    pub fn set_line_varyings(&mut self, tested: bool) {
        self.flags = match tested {
            true => self.flags | FLAG_LINE_VARYINGS,
            false => self.flags & !FLAG_LINE_VARYINGS,
        };
    }

    /// `FLAG_LINES` follows what is drawn now.
    pub fn set_lines(&mut self, drawn: &DrawnPrimitives) {
        self.flags = match drawn.lines() {
            true => self.flags | FLAG_LINES,
            false => self.flags & !FLAG_LINES,
        };
    }
}

/// What the rasterizer draws now: the topology and polygon mode in effect (the bound
/// pipeline's, or dynamic state), for the GL-state block's `FLAG_LINES`.
#[derive(Debug, Clone, Copy)]
pub struct DrawnPrimitives {
    pub topology: vk::PrimitiveTopology,
    pub polygon_mode: vk::PolygonMode,
}

impl DrawnPrimitives {
    pub const INITIAL: DrawnPrimitives = DrawnPrimitives {
        topology: vk::PrimitiveTopology::TRIANGLE_LIST,
        polygon_mode: vk::PolygonMode::FILL,
    };

    /// They are rasterized as lines: a line topology, or polygons drawn as lines. The
    /// adjacency topologies count as polygons: the layer draws GL's quads with them, through
    /// a geometry shader that emits triangles.
    pub fn lines(&self) -> bool {
        use vk::PrimitiveTopology as T;
        match self.topology {
            T::LINE_LIST | T::LINE_STRIP => true,
            T::POINT_LIST | T::PATCH_LIST => false,
            _ => self.polygon_mode == vk::PolygonMode::LINE,
        }
    }
}

/// Per command buffer: the GL state and the bound pipeline that reads it, if any.
pub struct CommandBufferState {
    pub pool: vk::CommandPool,
    pub values: GlStateValues,
    pub drawn: DrawnPrimitives,
    pub bound: Option<BlockBinding>,
    /// The bound pipeline's record (or the shader objects'), as draws and state commands
    /// act on it.
    pub pipeline: BoundRecord,
    /// The last `vkCmdSetPrimitiveRestartEnable`.
    pub restart_enable: bool,
    /// Shader objects bound to the tessellation stages (`vkCmdBindShadersEXT`): the
    /// application's TES and whether it bound a TCS of its own.
    pub tes_object: vk::ShaderEXT,
    pub app_tcs_object: bool,
    /// The layer bound a generated TCS shader object.
    pub layer_tcs_object: bool,
    /// `vkCmdSetPatchControlPointsEXT`.
    pub patch_control_points: Option<u32>,
    /// GL's current vertex attributes (`vkCmdSetVertexAttribGLSEM`).
    pub attributes: AttributeValues,
    /// The bound vertex shader object.
    pub vertex_object: vk::ShaderEXT,
    /// GL's primitive modes: the mode of shader objects, the geometry shader objects, the
    /// polygon mode, the variants and topology of the bound pipeline.
    pub primitives: CommandBufferPrimitives,
    /// The provoking vertex mode last set (`vkCmdSetProvokingVertexModeEXT`; `Some(true)`:
    /// the last vertex).
    pub provoking_last: Option<bool>,
    /// The application's index buffer binding (`vkCmdBindIndexBuffer`), put back after a
    /// line loop's closing segment.
    pub index_buffer: Option<BoundIndexBuffer>,
    /// GL's line rule: its state and what decides the line mode where it is dynamic.
    pub lines: CommandBufferLines,
    /// Dynamic vertex input and conventions followed (`dynamic_inputs`).
    pub dynamic_inputs: DynamicInputState,
    /// The render pass instance it records into (`render_targets`), and how many queries
    /// and transform feedbacks begun in it are active: the layer ends it only with none.
    pub render_target: Option<RenderTarget>,
    pub open_scopes: u32,
    /// The application's compute bindings, put back after the layer's own dispatches.
    pub compute: ComputeBindings,
    /// The memory of its draws converted on the GPU (`converted_draws`).
    pub conversions: ConversionMemory,
    _live: Live,
}

/// An index buffer binding.
#[derive(Debug, Clone, Copy)]
pub struct BoundIndexBuffer {
    pub buffer: vk::Buffer,
    pub offset: vk::DeviceSize,
    pub index_type: vk::IndexType,
}

impl CommandBufferState {
    /// The state of `cb` in `states`, GL's initial one made on first use (a command buffer
    /// the layer did not see allocated, such as one recorded before the device had it).
    pub fn of(
        states: &mut HashMap<vk::CommandBuffer, CommandBufferState>,
        cb: vk::CommandBuffer,
    ) -> &mut CommandBufferState {
        states
            .entry(cb)
            .or_insert_with(|| CommandBufferState::new(vk::CommandPool::null()))
    }

    pub fn new(pool: vk::CommandPool) -> CommandBufferState {
        CommandBufferState {
            pool,
            values: GlStateValues::INITIAL,
            drawn: DrawnPrimitives::INITIAL,
            bound: None,
            pipeline: BoundRecord::NONE,
            tes_object: vk::ShaderEXT::null(),
            app_tcs_object: false,
            layer_tcs_object: false,
            patch_control_points: None,
            attributes: AttributeValues::default(),
            vertex_object: vk::ShaderEXT::null(),
            primitives: CommandBufferPrimitives::INITIAL,
            provoking_last: None,
            index_buffer: None,
            lines: CommandBufferLines::INITIAL,
            dynamic_inputs: DynamicInputState::default(),
            render_target: None,
            open_scopes: 0,
            restart_enable: false,
            compute: ComputeBindings::default(),
            conversions: ConversionMemory::default(),
            _live: Live::new(Kind::CommandBuffer),
        }
    }
}

/// A vertex shader object on a device with `VK_GLSEM_gl_state`: what the layer needs to
/// feed GL's current attributes to it and to generate the geometry shader objects of GL's
/// primitive modes for it.
pub struct VertexObjectRecord {
    /// Created with `VK_SHADER_CREATE_LINK_STAGE_BIT_EXT`: no geometry shader may follow it.
    pub linked: bool,
    /// The Locations it reads, with their numeric types, where the layer can feed them all
    /// GL's current values (`dynamic_inputs`).
    pub inputs: Option<Arc<[(u32, InputKind)]>>,
    /// Its code as the driver got it, and its entry point.
    pub words: Words,
    pub entry: String,
    /// Where the layer made it copy gl_Layer for a fragment shader made apart.
    pub layer_copy: Option<u32>,
    /// The set layouts and push-constant ranges it was created with (the geometry shader
    /// gets the same).
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub ranges: Vec<vk::PushConstantRange>,
    /// Generated geometry shader objects by key. Destroyed with the vertex shader or the
    /// device.
    pub generated: Mutex<HashMap<PrimitiveGsKey, vk::ShaderEXT>>,
    /// What it was created with besides, to be made again for a vertex input it cannot
    /// read as given: its flags, next stages and specialization (map entries, data).
    pub flags: vk::ShaderCreateFlagsEXT,
    pub next_stage: vk::ShaderStageFlags,
    pub specialization: Option<Specialization>,
    /// The other shaders of its linked set (`linked`), made again with it.
    pub linked_set: Vec<LinkedObject>,
    /// The objects made again for such vertex inputs, by what they refetch (`None`: could
    /// not be made). Destroyed with it.
    pub refetched: MadeAgain<ObjectVariant>,
}

/// A `VkSpecializationInfo`'s map entries and data.
pub type Specialization = (Vec<vk::SpecializationMapEntry>, Vec<u8>);

/// A shader object linked with a vertex shader object, as the driver got it: to be made
/// again with it.
pub struct LinkedObject {
    pub shader: vk::ShaderEXT,
    pub stage: vk::ShaderStageFlags,
    pub next_stage: vk::ShaderStageFlags,
    pub flags: vk::ShaderCreateFlagsEXT,
    pub words: Words,
    pub entry: String,
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub ranges: Vec<vk::PushConstantRange>,
    pub specialization: Option<Specialization>,
}

/// A tessellation evaluation shader object: what the layer needs to generate TCS shader
/// objects for it when it is bound without one.
pub struct TesObjectRecord {
    /// Its code as the driver got it, and its entry point.
    pub words: Words,
    pub entry: String,
    /// The set layouts and push-constant ranges it was created with (the generated TCS
    /// must have the same).
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub ranges: Vec<vk::PushConstantRange>,
    /// Where the ranges hold the GL-state block, readable by a TCS: offset and the stages
    /// a push must name.
    pub block: Option<(u32, u32, vk::ShaderStageFlags)>,
    /// Generated TCS shader objects by patch size, and the layout the levels are pushed
    /// with (the layer's, made of `ranges`). Destroyed with the TES or the device.
    pub generated: Mutex<(HashMap<u32, vk::ShaderEXT>, vk::PipelineLayout)>,
}

/// Every record of one device. Maps are locked only to insert, remove, read a record or
/// copy one out; no lock is held while a pass runs or the driver works. (A module's
/// interface ends, parsed where its scan's bound does not fit, are parsed once under the
/// module map's read lock, into the map's record.)
#[derive(Default)]
pub struct Records {
    /// By value: one allocation (the words) and one reference count per module, not two
    /// (issue 45); a plan takes a [`ModuleRecord::snapshot`].
    pub modules: RwLock<HashMap<vk::ShaderModule, ModuleRecord>>,
    /// The records of the modules destroyed last, for code made into a module again.
    pub retired_modules: Mutex<RetiredModules<ModuleRecord>>,
    pub render_passes: RwLock<HashMap<vk::RenderPass, Arc<RenderPassRecord>>>,
    pub layouts: RwLock<HashMap<vk::PipelineLayout, Arc<LayoutRecord>>>,
    pub pipelines: RwLock<HashMap<vk::Pipeline, PipelineRecord>>,
    /// Vertex-input and pre-rasterization libraries (`library_inputs`).
    pub library_parts: RwLock<HashMap<vk::Pipeline, LibraryPart>>,
    /// The multisample state of fragment-output libraries, on devices where pipelines
    /// linked from them may follow GL's line rule (`LineConventions::library_mode`).
    pub library_multisample: RwLock<HashMap<vk::Pipeline, StaticMultisample>>,
    /// Set once a pipeline got a record in `pipelines`, `library_parts`,
    /// `library_multisample` or `library_vertex_input` ([`Records::keep_pipeline`]); never
    /// cleared. Until then `vkDestroyPipeline` takes none of their locks (issue 45).
    pub pipelines_kept: AtomicBool,
    /// Live pipelines that `vkCmdBindPipeline` has work for (they read the GL-state block,
    /// take line state the layer sets or GL's current vertex attributes): when 0, it does
    /// nothing more.
    pub bind_work_pipelines: AtomicUsize,
    /// Live pipelines that draw GL's line loops: when 0, the draw hooks do nothing more.
    pub closed_loop_pipelines: AtomicUsize,
    /// Live pipelines with a start-pixel pipeline (`commands/draws/line_passes.rs`): when 0, the draw
    /// hooks draw nothing again.
    pub start_pixel_pipelines: AtomicUsize,
    /// Pipelines whose draws push their base instance (`commands/draws/base_instance.rs`).
    pub base_instance_pipelines: AtomicUsize,
    /// Live pipelines that draw GL's quads, quad strips or polygons on the index route.
    pub gl_primitive_pipelines: AtomicUsize,
    pub command_buffers: Mutex<HashMap<vk::CommandBuffer, CommandBufferState>>,
    /// Tessellation evaluation shader objects.
    pub tes_objects: RwLock<HashMap<vk::ShaderEXT, Arc<TesObjectRecord>>>,
    /// Vertex shader objects that may draw GL's primitive modes.
    pub vertex_objects: RwLock<HashMap<vk::ShaderEXT, Arc<VertexObjectRecord>>>,
    /// Set once a command buffer drew GL's line loops with shader objects: the draw hooks
    /// then look at the command buffer.
    pub closed_loop_objects: AtomicBool,
    /// Vertex, tessellation evaluation and geometry shader objects whose code reads the
    /// GL-state block: where to push it, with a layout the layer made of their ranges.
    pub block_objects: RwLock<HashMap<vk::ShaderEXT, BlockBinding>>,
    /// Set once a TES or block-reading shader object was recorded: `vkCmdBindPipeline` then
    /// forgets the command buffer's bound shader objects (a pipeline unbinds them).
    pub shader_objects_made: AtomicBool,
    /// What libraries holding the vertex-input state say of it, read by the pipelines
    /// linked from them.
    pub library_vertex_input: RwLock<HashMap<vk::Pipeline, LibraryVertexInput>>,
    /// The application's index and indirect buffers the layer made readable as storage
    /// buffers, with their sizes (`converted_draws`).
    pub readable_buffers: RwLock<HashMap<vk::Buffer, vk::DeviceSize>>,
    /// `layers` of every framebuffer: a render pass begun on more than one layer is layered
    /// (`gl_Layer` counts).
    pub framebuffer_layers: RwLock<HashMap<vk::Framebuffer, u32>>,
}

impl Records {
    /// Keeps `value` for `pipeline` in `map`, one of the pipeline maps
    /// ([`Records::pipelines_kept`]); the value it replaces, if any.
    pub fn keep_pipeline<V>(
        &self,
        map: &RwLock<HashMap<vk::Pipeline, V>>,
        pipeline: vk::Pipeline,
        value: V,
    ) -> Option<V> {
        // Before the record: a `vkDestroyPipeline` that finds the record also finds this.
        self.pipelines_kept.store(true, Ordering::Release);
        map.write().insert(pipeline, value)
    }

    /// Counts (`delta` 1) or uncounts (-1) what binding `record`'s pipeline makes
    /// `vkCmdBindPipeline` do.
    pub fn count_bind_work(&self, record: &PipelineRecord, delta: isize) {
        let has_bind_work = record.reads_block.is_some()
            || record.lines.bind_work(&record.bound.lines)
            || record.layer_attributes.is_some()
            || record.bound.primitives.closes_loops
            || record.bound.instances.base_from_block
            || record.bound.primitives.gl_primitive.is_some()
            || record.followed.is_some()
            || record.primitives.polygon_variants.is_some()
            || record.vertex_input_variants.is_some();
        let count = |counter: &AtomicUsize| match delta {
            1 => counter.fetch_add(1, Ordering::Relaxed),
            _ => counter.fetch_sub(1, Ordering::Relaxed),
        };
        if has_bind_work {
            count(&self.bind_work_pipelines);
        }
        if record.bound.primitives.closes_loops {
            count(&self.closed_loop_pipelines);
        }
        if record.lines.start_pixels.is_some() {
            count(&self.start_pixel_pipelines);
        }
        if record.bound.instances.base_from_block {
            count(&self.base_instance_pipelines);
        }
        if record.bound.primitives.gl_primitive.is_some() {
            count(&self.gl_primitive_pipelines);
        }
    }
}

/// A vertex-input library's primitive restart (`None`: dynamic state) and whether it may
/// feed instance-rate attributes (`PipelineRecord::instance_rate`).
#[derive(Debug, Clone, Copy)]
pub struct LibraryVertexInput {
    pub restart: Option<bool>,
    pub instance_rate: Option<bool>,
}

/// What the layer remembers of a library holding one side of the vertex-input interface.
pub enum LibraryPart {
    VertexInput(Arc<VertexInputPart>),
    /// A pre-rasterization library's vertex shader: its code and entry point, and the
    /// library's create info, kept to make it again for the vertex input it is linked with
    /// (`library_inputs::feed`; `None` where it could not be kept).
    VertexShader {
        words: Words,
        entry: String,
        kept: Option<Arc<KeptPipeline>>,
    },
}

/// A deep copy of a vertex-input library's create info, enough to create it again.
pub struct VertexInputPart {
    pub flags: vk::PipelineCreateFlags,
    pub bindings: Vec<vk::VertexInputBindingDescription>,
    pub attributes: Vec<vk::VertexInputAttributeDescription>,
    pub input_assembly: vk::PipelineInputAssemblyStateCreateInfo<'static>,
    pub dynamic: Vec<vk::DynamicState>,
    /// GL's primitive mode its input-assembly state named (taken out of the copy).
    pub gl_mode: Option<GlMode>,
    /// It names attributes the device cannot read where they are given (a format it lacks,
    /// an offset or stride the format cannot be fetched from): the library went down
    /// without them, and every link makes it and the vertex shader again.
    pub unreadable: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_depends_on_every_word_and_length() {
        let a = [1u32, 2, 3, 4, 5];
        assert_ne!(content_hash(&a), content_hash(&[1, 2, 3, 4, 6]));
        assert_ne!(content_hash(&a), content_hash(&[1, 2, 3, 4]));
        assert_ne!(content_hash(&[0]), content_hash(&[0, 0]));
        assert_eq!(content_hash(&a), content_hash(&[1, 2, 3, 4, 5]));
    }
}

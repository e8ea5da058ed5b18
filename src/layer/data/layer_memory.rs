//! The memory the layer owns on a device: GL's current vertex attributes (the layer's
//! vertex binding: the device's spare chunks and a command buffer's current values, and the
//! attributes that read them) and what the draw-time rules make (`commands/draws/`: the
//! index buffers of line loops and of GL's primitives, the compute pipeline that converts
//! draws on the GPU, a command buffer's conversions). What needs the device's table to
//! create, fill and destroy them is in the rules' modules and `loader/host_memory.rs`.

use ash::vk;
use parking_lot::Mutex;
use std::sync::atomic::AtomicBool;

use glsem_spirv::interface::InputKind;

/// The Locations the layer feeds (each a 16-byte slot of a snapshot).
pub const SLOTS: u32 = 32;
const SLOT_BYTES: u64 = 16;
pub const SNAPSHOT_BYTES: u64 = SLOTS as u64 * SLOT_BYTES;
pub const CHUNK_BYTES: u64 = 64 * 1024;

/// One host-visible, host-coherent vertex buffer of [`CHUNK_BYTES`], persistently mapped.
pub struct Chunk {
    pub(crate) buffer: vk::Buffer,
    pub(crate) memory: vk::DeviceMemory,
    /// The mapping's address (kept as an integer: the chunk moves between threads).
    pub(crate) mapped: usize,
    pub(crate) used: u64,
}

/// The device's spare chunks and where new ones come from.
pub struct AttributeMemory {
    /// A host-visible and host-coherent memory type (`None`: the device has none the
    /// layer could query; unfed inputs then read the constant (0, 0, 0, 1)).
    pub memory_type: Option<u32>,
    /// `maxVertexInputBindings - 1` and the Locations the layer may feed.
    pub binding: u32,
    pub slots: u32,
    pub(crate) spare: Mutex<Vec<Chunk>>,
}

impl AttributeMemory {
    pub fn new(memory_type: Option<u32>, max_bindings: u32, max_attributes: u32) -> Self {
        AttributeMemory {
            memory_type,
            binding: max_bindings.saturating_sub(1),
            slots: SLOTS.min(max_attributes),
            spare: Mutex::new(Vec::new()),
        }
    }

    /// The layer's binding beside a vertex-input state using `bindings`: `None` where the
    /// device has no memory for it, or the application uses that binding itself (its
    /// choice wins: unfed inputs then read (0, 0, 0, 1)).
    pub fn free_binding(&self, mut bindings: impl Iterator<Item = u32>) -> Option<u32> {
        self.memory_type?;
        (!bindings.any(|b| b == self.binding)).then_some(self.binding)
    }
}

/// The format of the layer's attribute for an input of `kind`.
pub fn attribute_format(kind: InputKind) -> vk::Format {
    match kind {
        InputKind::Float => vk::Format::R32G32B32A32_SFLOAT,
        InputKind::Int => vk::Format::R32G32B32A32_SINT,
        InputKind::Uint => vk::Format::R32G32B32A32_UINT,
    }
}

/// The layer's attributes for `inputs` at `binding`, as (Location, binding, format, offset):
/// Location `l` reads the 16-byte slot `l` of a snapshot.
pub fn fed_attributes(
    binding: u32,
    inputs: &[(u32, InputKind)],
) -> impl Iterator<Item = (u32, u32, vk::Format, u32)> + '_ {
    inputs
        .iter()
        .map(move |&(location, kind)| (location, binding, attribute_format(kind), 16 * location))
}

/// The Locations of `inputs` that read an integer type, as a bit mask: GL's initial
/// (0, 0, 0, 1) is `1.0` for the others.
pub fn integer_slots(inputs: &[(u32, InputKind)]) -> u32 {
    inputs
        .iter()
        .filter(|(_, kind)| *kind != InputKind::Float)
        .fold(0, |mask, (location, _)| mask | 1 << location)
}

/// GL's current values of one command buffer and the snapshot bound for them.
pub struct AttributeValues {
    /// Set values by Location (`None`: GL's initial (0, 0, 0, 1)).
    pub(crate) values: [Option<[u32; 4]>; SLOTS as usize],
    pub(crate) chunks: Vec<Chunk>,
    /// The integer-slot mask of the snapshot bound now (`None`: none, or stale).
    pub(crate) bound: Option<u32>,
    /// The integer-slot mask of the bound pipeline, when it reads GL's current values.
    pub pipeline: Option<u32>,
}

impl Default for AttributeValues {
    fn default() -> Self {
        AttributeValues {
            values: [None; SLOTS as usize],
            chunks: Vec::new(),
            bound: None,
            pipeline: None,
        }
    }
}

impl AttributeValues {
    /// The snapshot a pipeline reading integer types at `integer` Locations sees.
    pub(crate) fn snapshot(&self, integer: u32) -> [[u32; 4]; SLOTS as usize] {
        std::array::from_fn(|l| {
            self.values[l].unwrap_or(match integer & (1 << l) != 0 {
                true => [0, 0, 0, 1],
                false => [0, 0, 0, 1.0f32.to_bits()],
            })
        })
    }
}

/// A device's index buffer that closes GL's line loops, made with the first pipeline that
/// draws them.
#[derive(Default)]
pub struct LoopIndices {
    /// `None` until the first such pipeline; then the buffer, or `None` without memory.
    pub(crate) buffer: Mutex<Option<Option<Chunk>>>,
    /// Said once per device: a loop that could not be closed.
    pub(crate) open_warned: AtomicBool,
}

/// What the draw-time rules own on a device (`commands/draws/`).
#[derive(Default)]
pub struct DrawMemory {
    pub loops: LoopIndices,
    pub primitives: PrimitiveIndices,
    /// The compute pipeline that converts indexed and indirect draws on the GPU
    /// (`converted_draws`): `None` until first needed, then it or why there is none.
    pub(crate) converter: Mutex<Option<Result<LayerCompute, &'static str>>>,
    /// The compute pipeline that counts GL's stipple over a strip on the fragment line
    /// route (`line_passes`), likewise.
    pub(crate) stipple_counter: Mutex<Option<Result<LayerCompute, &'static str>>>,
    /// Said once per device: a strip whose stipple starts over at each segment.
    pub(crate) stipple_warned: AtomicBool,
}

/// One of the layer's compute pipelines (`commands/draws/shaders/`), and its layouts.
#[derive(Debug, Clone, Copy)]
pub struct LayerCompute {
    pub set_layout: vk::DescriptorSetLayout,
    pub layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
}

/// The memory of a command buffer's draws converted on the GPU (`converted_draws`): its
/// parameters and outputs, and the descriptor pools of their sets; released when the
/// command buffer is reset or freed.
#[derive(Default)]
pub struct ConversionMemory {
    pub(crate) chunks: Vec<Chunk>,
    pub(crate) pools: Vec<vk::DescriptorPool>,
    /// Sets the last pool can still allocate.
    pub(crate) sets_left: u32,
}

/// A device's index buffers of GL's quads, quad strips and polygons drawn without a
/// geometry shader (`commands/draws/gl_primitives.rs`), one per pattern, made with the first pipeline
/// that needs it and grown by a larger one when a draw needs more (the smaller stays:
/// recorded draws may use it).
#[derive(Default)]
pub struct PrimitiveIndices {
    /// Per pattern, the buffers made, the largest last, with the periods each holds.
    pub(crate) buffers: Mutex<
        std::collections::HashMap<glsem_spirv::semantics::IndexedPrimitive, Vec<(u32, Chunk)>>,
    >,
    /// Said once per device: a draw the layer does not draw (`glsem: error:`).
    pub(crate) skipped_said: AtomicBool,
}

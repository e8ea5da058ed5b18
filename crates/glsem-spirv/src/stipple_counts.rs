//! GL's stipple counted on over a strip by the fragment line route (GL 4.6 compatibility
//! §14.5.2.2: the counter is reset at the start of a strip or loop, not at each segment).
//!
//! The fragment test of `line_fragment` counts a fragment's place from the start of its
//! segment; where a segment starts depends on the window positions of every earlier vertex
//! of the strip, which no shader of the draw sees. The layer draws a strip twice:
//!
//! 1. with the GL-state block's `FLAG_STIPPLE_CAPTURE`, the vertex shader writes its clip
//!    position to the layer's buffer ([`StippleCounts`], at the block's `stipple_counts`)
//!    and sends its vertex out of the view volume, so nothing is drawn;
//! 2. the layer's compute shader (the layer's `stipple_counts.comp`) walks the strips (in
//!    the application's indices for an indexed draw) as Mesa's GL counts its stipple and
//!    writes, for the vertex that provokes each segment, the count at that vertex and the
//!    segment's length along its major axis;
//! 3. with `FLAG_STIPPLE_COUNTED`, the vertex shader reads them back and sends them in the
//!    route's flat varying (`w = ±(1 + count)`, negative behind the eye; `z = -(1 +
//!    length)` in place of the parity), and the fragment test counts from the flat end,
//!    knowing the other end from the length.
//!
//! This file holds the vertex shader's part of both draws ([`capture_or_read_count`]) and
//! the buffer's layout, which the layer's compute shader shares.

use spirv::{AddressingModel, BuiltIn, Capability, Decoration, Op, StorageClass};

use super::error::PassError;
use super::gl_state::{StateReader, FLAG_STIPPLE_CAPTURE, FLAG_STIPPLE_COUNTED};
use super::module::{decode_string, Editor, EntryPoint, Instruction, Module, Section, Type};

/// The layer's buffer of a strip draw's positions and counts, at the block's
/// `stipple_counts` (a header of [`StippleCounts::HEADER_WORDS`] 32-bit words, then vec4s):
///
/// ```text
/// struct StippleCounts {
///     uint vertices;        // +0  slots per instance: the vertex count (or the span of
///                           //     an indexed draw's indices)
///     uint first_vertex;    // +4  firstVertex (or vertexOffset)
///     uint slots;           // +8  vertices * instances
///     uint flags;           // +12 the compute shader's
///     vec2 viewport_scale;  // +16 viewport 0's transform to the window (the compute
///     vec2 viewport_offset; // +24 shader's)
///     uint first_instance;  // +32 firstInstance: vertex V of instance I takes slot
///                           //     (V - first_vertex) + (I - first_instance) * vertices
///     uint indexed[7];      // +36 the compute shader's: an indexed draw's indices
///     vec4 clip[];          // +64 each vertex's clip position (slots of them), then, in
///                           //     the slot's counterpart `slots` on, the compute shader's
///                           //     count at the vertex and length of the segment it
///                           //     provokes (x and y)
/// };
/// ```
pub struct StippleCounts;

impl StippleCounts {
    pub const VERTICES: u32 = 0;
    pub const FIRST_VERTEX: u32 = 1;
    pub const SLOTS: u32 = 2;
    pub const FLAGS: u32 = 3;
    pub const VIEWPORT: u32 = 4;
    pub const FIRST_INSTANCE: u32 = 8;
    pub const INDEX_COUNT: u32 = 9;
    pub const FIRST_INDEX: u32 = 10;
    pub const INDEX_BYTES: u32 = 11;
    pub const INDEX_OFFSET: u32 = 12;
    /// The header's words, before `clip`.
    pub const HEADER_WORDS: u32 = 16;
    pub const SLOT_BYTES: u64 = 16;
    /// `flags`: the segment's last vertex provokes it (GL's convention), else its first.
    pub const PROVOKING_LAST: u32 = 1;
    /// `flags`: line loops, each closed by a segment from its last vertex to its first.
    pub const CLOSED: u32 = 2;
    /// `flags`: an indexed draw, its strips read from the application's indices.
    pub const INDEXED: u32 = 4;
    /// `flags`: with it, primitive restart is on.
    pub const RESTART: u32 = 8;

    /// Bytes for a draw of `slots` vertices: the header, the positions and the counts.
    pub fn bytes(slots: u64) -> u64 {
        u64::from(Self::HEADER_WORDS) * 4 + 2 * slots * Self::SLOT_BYTES
    }
}

/// What the vertex shader's exits share: the buffer's types and the built-ins read.
pub struct CountReader {
    struct_pointer: u32,
    vertex_index: (u32, u32),
    instance_index: (u32, u32),
}

impl CountReader {
    /// Declares what [`capture_or_read_count`] needs in the vertex shader `ep`: physical
    /// storage buffer addressing, the buffer's types, `InstanceIndex` (declared where it
    /// has none, joining `new_io`); `vertex_index` is the shader's `VertexIndex` input and
    /// its type.
    pub fn declare(
        m: &Module<'_>,
        e: &mut Editor<'_, '_>,
        ep: &EntryPoint,
        vertex_index: (u32, u32),
        new_io: &mut Vec<u32>,
    ) -> Result<CountReader, PassError> {
        physical_addressing(m, e)?;
        let uint = e.type_int(32, false);
        let float = e.type_float(32);
        let vec4 = e.type_vector(float, 4);
        let clips = e.type_runtime_array_decorated(vec4);
        e.decorate(
            clips,
            Decoration::ArrayStride,
            &[StippleCounts::SLOT_BYTES as u32],
        );
        let mut members = vec![uint; StippleCounts::HEADER_WORDS as usize];
        members.push(clips);
        let counts = e.type_struct(&members);
        e.decorate(counts, Decoration::Block, &[]);
        for member in 0..=StippleCounts::HEADER_WORDS {
            e.member_decorate(counts, member, Decoration::Offset, &[member * 4]);
        }
        e.name(counts, "GlsemStippleCounts");
        let struct_pointer = e.type_pointer(StorageClass::PhysicalStorageBuffer, counts);
        let (var, ty, _) = int_input(m, e, ep, BuiltIn::InstanceIndex, new_io)?;
        Ok(CountReader {
            struct_pointer,
            vertex_index,
            instance_index: (var, ty),
        })
    }
}

/// A 32-bit integer built-in input of `ep` (declared, signed, where it has none, joining
/// `new_io`): the variable, its type and whether that is signed.
pub(crate) fn int_input(
    m: &Module<'_>,
    e: &mut Editor<'_, '_>,
    ep: &EntryPoint,
    builtin: BuiltIn,
    new_io: &mut Vec<u32>,
) -> Result<(u32, u32, bool), PassError> {
    if let Some((var, ty)) = m.builtin_variables(ep, StorageClass::Input, builtin).next() {
        return match m.type_of(ty) {
            Some(&Type::Int { width: 32, signed }) => Ok((var, ty, signed)),
            _ => Err(PassError::BuiltinType {
                builtin: glsl_name(builtin),
                expected: "a 32-bit integer",
            }),
        };
    }
    let int = e.type_int(32, true);
    let var = e.add_variable(StorageClass::Input, int);
    e.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
    e.name(var, glsl_name(builtin));
    new_io.push(var);
    Ok((var, int, true))
}

fn glsl_name(builtin: BuiltIn) -> &'static str {
    match builtin {
        BuiltIn::VertexIndex => "gl_VertexIndex",
        _ => "gl_InstanceIndex",
    }
}

/// Physical storage buffer addressing for the module: the capability, the extension
/// (before SPIR-V 1.5) and the memory model's addressing. A module with another addressing
/// model than `Logical` or `PhysicalStorageBuffer64` is not rewritten.
fn physical_addressing(m: &Module<'_>, e: &mut Editor<'_, '_>) -> Result<(), PassError> {
    let model = m
        .insts
        .iter()
        .position(|i| i.op() == Some(Op::MemoryModel))
        .ok_or_else(|| PassError::Unsupported("the module has no memory model".into()))?;
    let addressing = m.insts.at(model).operand(0);
    if addressing == AddressingModel::Logical as u32 {
        e.patch_word(model, 1, AddressingModel::PhysicalStorageBuffer64 as u32);
    } else if addressing != AddressingModel::PhysicalStorageBuffer64 as u32 {
        return Err(PassError::Unsupported(
            "the module's addressing model is neither Logical nor PhysicalStorageBuffer64".into(),
        ));
    }
    e.add_capability(Capability::PhysicalStorageBufferAddresses);
    const EXTENSION: &str = "SPV_KHR_physical_storage_buffer";
    let declared = m
        .insts
        .iter()
        .any(|i| i.op() == Some(Op::Extension) && decode_string(i.operands()).0 == EXTENSION);
    if m.version() < (1, 5) && !declared {
        e.append_instruction(Section::Extension, &Instruction::extension(EXTENSION));
    }
    Ok(())
}

/// At a vertex shader's exit (`code`, inserted before it): while the block's
/// `FLAG_STIPPLE_CAPTURE` is set, writes `clip` to the vertex's slot; while
/// `FLAG_STIPPLE_COUNTED` is, reads what the compute shader wrote for the segment the vertex
/// provokes: the stipple count at the vertex and the segment's length. Returns that pair (a
/// vec2; `(-1, -1)` where nothing was read: neither flag is set, or the slot lies past the
/// buffer's) and the bool "capturing". `block_label` is the label of the block `code` goes
/// into: the code branches, and what follows it in that block continues in a new one.
pub fn capture_or_read_count(
    e: &mut Editor<'_, '_>,
    code: &mut Vec<u32>,
    state: &StateReader,
    reader: &CountReader,
    block_label: u32,
    clip: u32,
) -> (u32, u32) {
    let uint = e.type_int(32, false);
    let float = e.type_float(32);
    let vec2 = e.type_vector(float, 2);
    let vec4 = e.type_vector(float, 4);
    let bool_type = e.type_bool();
    let u_zero = e.constant_u32(0);
    let minus_one = e.constant_f32(-1.0);
    let unread = e.constant_composite(vec2, &[minus_one, minus_one]);
    let flags = state.flags(e, code);
    let bits = e.constant_u32(FLAG_STIPPLE_CAPTURE | FLAG_STIPPLE_COUNTED);
    let active = e.bitwise_and(code, uint, flags, bits);
    let active = e.i_not_equal(code, bool_type, active, u_zero);
    let capture_bit = e.constant_u32(FLAG_STIPPLE_CAPTURE);
    let capturing = e.bitwise_and(code, uint, flags, capture_bit);
    let capturing = e.i_not_equal(code, bool_type, capturing, u_zero);
    let [body, stored, store, loaded, load, merge] = [(); 6].map(|()| e.new_id());
    branch_if(code, active, body, merge);
    label(code, body);
    let [low, high] = state.stipple_counts(e, code);
    let uvec2 = e.type_vector(uint, 2);
    let address = e.composite_construct(code, uvec2, &[low, high]);
    let base = e.bitcast(code, reader.struct_pointer, address);
    let word_pointer = e.type_pointer(StorageClass::PhysicalStorageBuffer, uint);
    let header = |e: &mut Editor<'_, '_>, code: &mut Vec<u32>, member: u32| {
        let index = e.constant_i32(member as i32);
        let at = e.access_chain(code, word_pointer, base, &[index]);
        e.load_with_access(code, uint, at, &aligned(4))
    };
    let vertices = header(e, code, StippleCounts::VERTICES);
    let first_vertex = header(e, code, StippleCounts::FIRST_VERTEX);
    let slots = header(e, code, StippleCounts::SLOTS);
    let first_instance = header(e, code, StippleCounts::FIRST_INSTANCE);
    let as_uint = |e: &mut Editor<'_, '_>, code: &mut Vec<u32>, (var, ty): (u32, u32)| {
        let value = e.load(code, ty, var);
        match ty == uint {
            true => value,
            false => e.bitcast(code, uint, value),
        }
    };
    let vertex = as_uint(e, code, reader.vertex_index);
    let instance = as_uint(e, code, reader.instance_index);
    // Wrapping: a vertex or an instance before the draw's first lands past the slots.
    let vertex = e.binary(code, Op::ISub, uint, vertex, first_vertex);
    let instance = e.binary(code, Op::ISub, uint, instance, first_instance);
    let row = e.binary(code, Op::IMul, uint, instance, vertices);
    let slot = e.binary(code, Op::IAdd, uint, vertex, row);
    let in_row = e.binary(code, Op::ULessThan, bool_type, vertex, vertices);
    let in_slots = e.binary(code, Op::ULessThan, bool_type, slot, slots);
    let inside = e.binary(code, Op::LogicalAnd, bool_type, in_row, in_slots);
    let clips = e.constant_i32(StippleCounts::HEADER_WORDS as i32);
    let vec4_pointer = e.type_pointer(StorageClass::PhysicalStorageBuffer, vec4);
    let do_store = e.binary(code, Op::LogicalAnd, bool_type, inside, capturing);
    branch_if(code, do_store, store, stored);
    label(code, store);
    let at = e.access_chain(code, vec4_pointer, base, &[clips, slot]);
    Instruction::store(at, clip)
        .operands(&aligned(StippleCounts::SLOT_BYTES as u32))
        .append_to(code);
    Instruction::new(Op::Branch).operand(stored).append_to(code);
    label(code, stored);
    let reading = e.unary(code, Op::LogicalNot, bool_type, capturing);
    let do_load = e.binary(code, Op::LogicalAnd, bool_type, inside, reading);
    branch_if(code, do_load, load, loaded);
    label(code, load);
    let counted = e.binary(code, Op::IAdd, uint, slots, slot);
    let at = e.access_chain(code, vec4_pointer, base, &[clips, counted]);
    let slot_value = e.load_with_access(code, vec4, at, &aligned(StippleCounts::SLOT_BYTES as u32));
    let pair = e.emit(
        code,
        Op::VectorShuffle,
        vec2,
        &[slot_value, slot_value, 0, 1],
    );
    Instruction::new(Op::Branch).operand(loaded).append_to(code);
    label(code, loaded);
    let read = e.emit(code, Op::Phi, vec2, &[unread, stored, pair, load]);
    Instruction::new(Op::Branch).operand(merge).append_to(code);
    label(code, merge);
    let read = e.emit(code, Op::Phi, vec2, &[unread, block_label, read, loaded]);
    (read, capturing)
}

/// The `Aligned` memory operand: loads and stores through physical storage buffer pointers
/// must say their alignment.
fn aligned(bytes: u32) -> [u32; 2] {
    [spirv::MemoryAccess::ALIGNED.bits(), bytes]
}

/// A selection: to `then` where `condition` holds, else straight to `merge`.
fn branch_if(code: &mut Vec<u32>, condition: u32, then: u32, merge: u32) {
    Instruction::new(Op::SelectionMerge)
        .operands(&[merge, 0])
        .append_to(code);
    Instruction::new(Op::BranchConditional)
        .operands(&[condition, then, merge])
        .append_to(code);
}

fn label(code: &mut Vec<u32>, id: u32) {
    Instruction::new(Op::Label).operand(id).append_to(code);
}

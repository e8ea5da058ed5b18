//! The fast path: a word-level scan of a module's header sections (up to the first
//! `OpFunction`) that tells whether any pass can apply. It reads function bodies only of a
//! fragment module, opcode by opcode, for the derivatives of GL's window y, and allocates
//! only for a vertex shader's input Locations. A module that declares `BuiltIn Layer` (rare)
//! is parsed once more for the Locations its interface occupies.
//!
//! It runs for every `vkCreateShaderModule`, mostly of modules no pass touches, and right
//! after the driver's work has evicted it from the caches (issue 35): opcodes are compared
//! as numbers (`Op::from_u32` is a search of several hundred values per instruction) and
//! entry points are kept as a mask of execution models (no names are decoded).

use smallvec::SmallVec;
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::layout::location_end;
use super::module::{check_header, Module, HEADER_WORDS};

/// What the scan learned about a module. Built once per `vkCreateShaderModule`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The header and the instructions up to the first function are well formed.
    pub readable: bool,
    /// The execution models of the entry points: bit `model` for models below 32 (the
    /// graphics and compute stages; see [`Summary::has_stage`]).
    pub stages: u32,
    /// An id named `gl_FragColor` is decorated Location 0 (a fragment output candidate).
    pub frag_color: bool,
    /// Some id is decorated `Index 1` (dual-source blending).
    pub dual_source: bool,
    /// The module declares the `Xfb` execution mode and decorates something `XfbBuffer`.
    pub xfb_candidate: bool,
    /// The primitives a geometry or tessellation evaluation entry point hands on, from its
    /// execution modes.
    pub output_primitive: Option<Primitive>,
    /// The module declares the `ClipDistance` capability (glslang does when a shader uses
    /// `gl_ClipDistance`).
    pub clip_distance: bool,
    /// A fragment entry point may have struct or matrix inputs: some `OpTypeStruct` or
    /// `OpTypeMatrix` is pointed to from the `Input` storage class (the XFB split of a
    /// fragment shader whose previous stage is elsewhere).
    pub struct_inputs: bool,
    /// A vertex, tessellation evaluation or geometry entry point may have struct or matrix
    /// outputs (the split of a last pre-rasterization stage whose fragment shader is
    /// elsewhere).
    pub struct_outputs: bool,
    /// The Locations of a vertex entry point's inputs (the first of each input variable),
    /// sorted: the inputs the pipeline's vertex-input state must feed.
    pub vertex_input_locations: Vec<u32>,
    /// Some variable is decorated `BuiltIn InstanceIndex` (a vertex shader reads it).
    pub instance_index: bool,
    /// Some variable is decorated `BuiltIn Layer` (a pre-rasterization stage may write it).
    pub layer: bool,
    /// Some variable is decorated `BuiltIn SampleMask` (a fragment shader may write it).
    pub sample_mask: bool,
    /// A fragment entry point may read GL's window y: `FragCoord` or `PointCoord`, the
    /// `InterpolationFunction` capability (`interpolateAtOffset`) or a `dFdy*` instruction.
    pub window_y: bool,
    /// Where the module's `Input` and `Output` variables end, when it declares
    /// `BuiltIn Layer` (or, from [`scan_with_interface_ends`], has a pre-rasterization
    /// stage): the fragment shader's `gl_Layer` then reads a copy at a free Location.
    /// `None` otherwise, or when the module cannot be parsed.
    pub location_ends: Option<LocationEnds>,
    /// One past the highest `Location` decoration, where every `Input` and `Output`
    /// variable takes at most one Location (no struct, matrix, array or 64-bit 3- or
    /// 4-vector is pointed to from those storage classes, built-in blocks aside): a bound on
    /// where every entry point's interface ends, without a parse. `None` otherwise.
    pub single_location_bound: Option<u32>,
}

/// One past the highest Location any `Input` (`input`) or `Output` (`output`) variable of a
/// module occupies, over every entry point; 0 where there is none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocationEnds {
    pub input: u32,
    pub output: u32,
}

impl LocationEnds {
    /// The ends of `m`'s variables, every Location each takes ([`location_end`]).
    fn of(m: &Module<'_>) -> Self {
        let mut ends = LocationEnds::default();
        for &id in m.globals.keys() {
            if let Some((storage, pointee)) = m.variable(id) {
                ends.take(storage, location_end(m, id, pointee));
            }
        }
        ends
    }

    /// Counts a variable in `storage` whose Locations end at `end`.
    pub(crate) fn take(&mut self, storage: StorageClass, end: u32) {
        match storage {
            StorageClass::Input => self.input = self.input.max(end),
            StorageClass::Output => self.output = self.output.max(end),
            _ => {}
        }
    }
}

/// The class of primitive a stage emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    Points,
    Lines,
    Triangles,
}

impl Summary {
    /// Whether an entry point has execution model `model` (false for models numbered 32 and
    /// up, which no pass concerns: ray tracing, mesh and task shaders).
    pub fn has_stage(&self, model: ExecutionModel) -> bool {
        (model as u32) < 32 && self.stages & (1 << model as u32) != 0
    }

    /// Whether any pass may want to rewrite this module.
    pub fn may_need_rewrite(&self) -> bool {
        self.frag_color || self.xfb_candidate
    }
}

/// [`scan`], plus where a pre-rasterization stage's interface ends even when it declares no
/// layer: it may feed a fragment shader made apart from it, which reads GL's gl_Layer at
/// the last Location (0 where the stage writes none). A full parse, which the fast path
/// leaves to devices that pass the layer that way.
pub fn scan_with_interface_ends(words: &[u32]) -> Summary {
    let mut summary = scan(words);
    let pre_rasterization = [
        ExecutionModel::Vertex,
        ExecutionModel::TessellationEvaluation,
        ExecutionModel::Geometry,
    ]
    .into_iter()
    .any(|model| summary.has_stage(model));
    if summary.readable && pre_rasterization && summary.location_ends.is_none() {
        summary.location_ends = Module::parse(words).ok().map(|m| LocationEnds::of(&m));
    }
    summary
}

/// Scans `words` up to the first `OpFunction` (on through the bodies of a fragment shader
/// only for its derivatives).
pub fn scan(words: &[u32]) -> Summary {
    let mut scanner = Scanner::default();
    if check_header(words).is_err() {
        return scanner.summary;
    }
    // The instruction walk of `module::instructions`, inlined: this loop is most of the
    // scan's time.
    let mut at = HEADER_WORDS;
    while let Some(&word) = words.get(at) {
        let count = (word >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return scanner.summary;
        }
        let opcode = word & 0xffff;
        if opcode == FUNCTION {
            // Only a fragment shader's derivatives concern GL's window y.
            if !scanner.summary.window_y && scanner.summary.has_stage(ExecutionModel::Fragment) {
                scanner.summary.window_y = derives_y(&words[at..]);
            }
            break;
        }
        scanner.header_instruction(opcode, &words[at + 1..at + count]);
        at += count;
    }
    scanner.finish(words)
}

/// Whether the function bodies in `words` take a derivative in y (`OpDPdy*`): a walk of the
/// opcode words alone. Damage in a body is the parser's (and the passes') business: the
/// walk stops there.
fn derives_y(words: &[u32]) -> bool {
    let mut at = 0;
    while let Some(&word) = words.get(at) {
        let count = (word >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return false;
        }
        if matches!(word & 0xffff, DPDY | DPDY_FINE | DPDY_COARSE) {
            return true;
        }
        at += count;
    }
    false
}

/// Ids the scan follows: inline for the usual few, so that a scan allocates nothing but
/// what the summary keeps.
type Ids = SmallVec<[u32; INLINE_IDS]>;
const INLINE_IDS: usize = 16;

/// What [`scan`] gathers from the header sections before it decides.
#[derive(Default)]
struct Scanner {
    summary: Summary,
    frag_color_id: Option<u32>,
    xfb_mode: bool,
    xfb_buffer: bool,
    emits: Option<Primitive>,
    domain: Option<Primitive>,
    point_mode: bool,
    /// Struct and matrix type ids, and arrays of them; Input pointers to any of them.
    aggregates: Ids,
    input_aggregate: bool,
    output_aggregate: bool,
    locations: SmallVec<[(u32, u32); INLINE_IDS]>,
    /// The vertex inputs' Locations, for [`Summary::vertex_input_locations`].
    input_locations: SmallVec<[u32; INLINE_IDS]>,
    /// Types that take more than one Location (structs other than built-in blocks,
    /// matrices, arrays of anything but built-in blocks, 64-bit 3- and 4-vectors), the
    /// 64-bit scalar types, the structs with built-in members; and whether an `Input` or
    /// `Output` pointer points to one of the first.
    wide_types: Ids,
    wide_scalars: Ids,
    builtin_blocks: Ids,
    wide_interface: bool,
}

impl Scanner {
    /// One instruction of the header sections.
    fn header_instruction(&mut self, opcode: u32, ops: &[u32]) {
        self.location_width(opcode, ops);
        match opcode {
            ENTRY_POINT if ops.len() >= 3 && ops[0] < 32 => self.summary.stages |= 1 << ops[0],
            EXECUTION_MODE if ops.len() >= 2 => self.execution_mode(ops[1]),
            TYPE_STRUCT | TYPE_MATRIX if !ops.is_empty() => self.aggregates.push(ops[0]),
            TYPE_ARRAY | TYPE_RUNTIME_ARRAY
                if ops.len() >= 2 && self.aggregates.contains(&ops[1]) =>
            {
                self.aggregates.push(ops[0])
            }
            TYPE_POINTER if ops.len() >= 3 && self.aggregates.contains(&ops[2]) => {
                self.input_aggregate |= ops[1] == StorageClass::Input as u32;
                self.output_aggregate |= ops[1] == StorageClass::Output as u32;
            }
            VARIABLE if ops.len() >= 3 && ops[2] == StorageClass::Input as u32 => {
                if let Some(&(_, location)) = self.locations.iter().find(|(id, _)| *id == ops[1]) {
                    self.input_locations.push(location);
                }
            }
            CAPABILITY if ops.first() == Some(&(Capability::ClipDistance as u32)) => {
                self.summary.clip_distance = true;
            }
            CAPABILITY if ops.first() == Some(&(Capability::InterpolationFunction as u32)) => {
                self.summary.window_y = true;
            }
            // "gl_FragColor\0" is four words; compare without decoding. Bytes after the
            // nul are padding that readers ignore, so only the first byte of the last word
            // must be the nul.
            NAME if ops.len() >= 5 && ops[1..4] == GL_FRAG_COLOR[..3] && ops[4] & 0xff == 0 => {
                self.frag_color_id = Some(ops[0]);
            }
            DECORATE if ops.len() >= 2 => self.decoration(ops),
            _ => {}
        }
    }

    /// Follows the types that take more than one Location and the interface pointers to
    /// them ([`Summary::single_location_bound`]).
    fn location_width(&mut self, opcode: u32, ops: &[u32]) {
        let wide = match opcode {
            MEMBER_DECORATE if ops.len() >= 3 && ops[2] == BUILT_IN => {
                // Once per block, not per member.
                if self.builtin_blocks.last() != Some(&ops[0]) {
                    self.builtin_blocks.push(ops[0]);
                }
                return;
            }
            TYPE_FLOAT | TYPE_INT if ops.len() >= 2 && ops[1] == 64 => {
                self.wide_scalars.push(ops[0]);
                return;
            }
            TYPE_VECTOR if ops.len() >= 3 => ops[2] >= 3 && self.wide_scalars.contains(&ops[1]),
            TYPE_STRUCT if !ops.is_empty() => !self.builtin_blocks.contains(&ops[0]),
            TYPE_MATRIX => true,
            TYPE_ARRAY | TYPE_RUNTIME_ARRAY if ops.len() >= 2 => {
                !self.builtin_blocks.contains(&ops[1])
            }
            TYPE_POINTER if ops.len() >= 3 => {
                let interface = [StorageClass::Input as u32, StorageClass::Output as u32];
                self.wide_interface |=
                    interface.contains(&ops[1]) && self.wide_types.contains(&ops[2]);
                return;
            }
            _ => return,
        };
        if wide {
            self.wide_types.push(ops[0]);
        }
    }

    fn execution_mode(&mut self, mode: u32) {
        match mode {
            XFB => self.xfb_mode = true,
            OUTPUT_POINTS => self.emits = Some(Primitive::Points),
            OUTPUT_LINE_STRIP => self.emits = Some(Primitive::Lines),
            OUTPUT_TRIANGLE_STRIP => self.emits = Some(Primitive::Triangles),
            POINT_MODE => self.point_mode = true,
            ISOLINES => self.domain = Some(Primitive::Lines),
            // Also a geometry shader's input primitive: only `emits` counts there.
            TRIANGLES | QUADS => self.domain = Some(Primitive::Triangles),
            _ => {}
        }
    }

    fn decoration(&mut self, ops: &[u32]) {
        match ops[1] {
            INDEX if ops.get(2) == Some(&1) => self.summary.dual_source = true,
            XFB_BUFFER => self.xfb_buffer = true,
            LOCATION if ops.len() >= 3 => self.locations.push((ops[0], ops[2])),
            BUILT_IN => match ops.get(2).copied() {
                Some(INSTANCE_INDEX) => self.summary.instance_index = true,
                Some(LAYER) => self.summary.layer = true,
                Some(SAMPLE_MASK) => self.summary.sample_mask = true,
                Some(FRAG_COORD | POINT_COORD) => self.summary.window_y = true,
                _ => {}
            },
            _ => {}
        }
    }

    /// The summary, from what the header said.
    fn finish(self, words: &[u32]) -> Summary {
        let Scanner {
            mut summary,
            frag_color_id,
            locations,
            mut input_locations,
            xfb_mode,
            xfb_buffer,
            emits,
            domain,
            point_mode,
            input_aggregate,
            output_aggregate,
            wide_interface,
            ..
        } = self;
        summary.readable = true;
        summary.single_location_bound = (!wide_interface).then(|| {
            locations
                .iter()
                .map(|&(_, location)| location.saturating_add(1))
                .max()
                .unwrap_or(0)
        });
        if summary.layer {
            summary.location_ends = Module::parse(words).ok().map(|m| LocationEnds::of(&m));
        }
        if summary.has_stage(ExecutionModel::Vertex) {
            input_locations.sort_unstable();
            // The record keeps it for the module's life: one allocation of its size.
            summary.vertex_input_locations = input_locations.to_vec();
        }
        summary.window_y &= summary.has_stage(ExecutionModel::Fragment);
        summary.frag_color = frag_color_id.is_some_and(|id| locations.contains(&(id, 0)))
            && summary.has_stage(ExecutionModel::Fragment);
        summary.xfb_candidate = xfb_mode && xfb_buffer;
        summary.struct_inputs = input_aggregate && summary.has_stage(ExecutionModel::Fragment);
        summary.struct_outputs = output_aggregate
            && [
                ExecutionModel::Vertex,
                ExecutionModel::TessellationEvaluation,
                ExecutionModel::Geometry,
            ]
            .into_iter()
            .any(|m| summary.has_stage(m));
        summary.output_primitive = if summary.has_stage(ExecutionModel::Geometry) {
            emits
        } else if point_mode {
            Some(Primitive::Points)
        } else {
            domain
        };
        summary
    }
}

/// The numbers of the `spirv` enums' values, to `match` words on.
macro_rules! numbers {
    ($($name:ident = $value:expr;)*) => {
        $(const $name: u32 = $value as u32;)*
    };
}

// The opcodes, execution modes, decorations and built-ins the scan looks at.
numbers! {
    NAME = Op::Name;
    ENTRY_POINT = Op::EntryPoint;
    EXECUTION_MODE = Op::ExecutionMode;
    CAPABILITY = Op::Capability;
    TYPE_INT = Op::TypeInt;
    TYPE_FLOAT = Op::TypeFloat;
    TYPE_VECTOR = Op::TypeVector;
    TYPE_STRUCT = Op::TypeStruct;
    TYPE_MATRIX = Op::TypeMatrix;
    TYPE_ARRAY = Op::TypeArray;
    TYPE_RUNTIME_ARRAY = Op::TypeRuntimeArray;
    TYPE_POINTER = Op::TypePointer;
    VARIABLE = Op::Variable;
    DECORATE = Op::Decorate;
    MEMBER_DECORATE = Op::MemberDecorate;
    FUNCTION = Op::Function;
    DPDY = Op::DPdy;
    DPDY_FINE = Op::DPdyFine;
    DPDY_COARSE = Op::DPdyCoarse;
    XFB = ExecutionMode::Xfb;
    OUTPUT_POINTS = ExecutionMode::OutputPoints;
    OUTPUT_LINE_STRIP = ExecutionMode::OutputLineStrip;
    OUTPUT_TRIANGLE_STRIP = ExecutionMode::OutputTriangleStrip;
    POINT_MODE = ExecutionMode::PointMode;
    ISOLINES = ExecutionMode::Isolines;
    TRIANGLES = ExecutionMode::Triangles;
    QUADS = ExecutionMode::Quads;
    LOCATION = Decoration::Location;
    INDEX = Decoration::Index;
    XFB_BUFFER = Decoration::XfbBuffer;
    BUILT_IN = Decoration::BuiltIn;
    INSTANCE_INDEX = BuiltIn::InstanceIndex;
    LAYER = BuiltIn::Layer;
    SAMPLE_MASK = BuiltIn::SampleMask;
    FRAG_COORD = BuiltIn::FragCoord;
    POINT_COORD = BuiltIn::PointCoord;
}

/// "gl_FragColor" as a nul-terminated literal string.
const GL_FRAG_COLOR: [u32; 4] = [
    u32::from_le_bytes(*b"gl_F"),
    u32::from_le_bytes(*b"ragC"),
    u32::from_le_bytes(*b"olor"),
    0,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::encode_string;

    #[test]
    fn frag_color_literal_matches_encoder() {
        assert_eq!(encode_string("gl_FragColor"), GL_FRAG_COLOR.to_vec());
    }

    #[test]
    fn garbage_is_unreadable() {
        assert!(!scan(&[]).readable);
        assert!(!scan(&[0x0723_0203, 0x10000, 0, 4, 0, 0]).readable);
    }
}

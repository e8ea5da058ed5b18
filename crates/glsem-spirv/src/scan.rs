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
use super::module::{check_header, EntryPoint, Module, Type, HEADER_WORDS};

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
    /// The ends over every entry point of `m` ([`LocationEnds::of_entry_point`]).
    fn of(m: &Module<'_>) -> Self {
        m.entry_points
            .iter()
            .map(|ep| LocationEnds::of_entry_point(m, ep))
            .fold(LocationEnds::default(), |a, b| LocationEnds {
                input: a.input.max(b.input),
                output: a.output.max(b.output),
            })
    }

    /// One past the highest Location a per-vertex `Input` or `Output` variable of `ep` takes.
    /// Built-ins take none; per-patch variables count against limits of their own
    /// (`maxTessellationControlPerPatchOutputComponents`) and are left out; the outer array of
    /// an arrayed interface (one element per vertex) takes none.
    pub(crate) fn of_entry_point(m: &Module<'_>, ep: &EntryPoint) -> Self {
        let mut ends = LocationEnds::default();
        for &id in &ep.interface {
            let Some((storage, pointee)) = m.variable(id) else {
                continue;
            };
            if m.has_decoration(id, Decoration::BuiltIn) || m.has_decoration(id, Decoration::Patch)
            {
                continue;
            }
            let arrayed = match (ep.model, storage) {
                (ExecutionModel::TessellationControl, _) => true,
                (ExecutionModel::TessellationEvaluation | ExecutionModel::Geometry, s) => {
                    s == StorageClass::Input
                }
                _ => false,
            };
            let ty = match m.type_of(pointee) {
                Some(Type::Array { element, .. } | Type::RuntimeArray { element }) if arrayed => {
                    *element
                }
                _ => pointee,
            };
            ends.take(storage, location_end(m, id, ty));
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
    scan_sections(words, true)
}

/// [`scan`] without the walk of a fragment shader's bodies: `window_y` then says only what
/// the header sections say (its built-ins and capabilities, not a `dFdy*`). For devices
/// where no rule reads a fragment shader's window y (those without `VK_GLSEM_gl_state`).
pub fn scan_without_bodies(words: &[u32]) -> Summary {
    scan_sections(words, false)
}

fn scan_sections(words: &[u32], derivatives: bool) -> Summary {
    let mut scanner = Scanner::default();
    if check_header(words).is_err() {
        return scanner.summary;
    }
    // The instruction walk of `module::instructions`, inlined: this loop is most of the
    // scan's time.
    let mut at = HEADER_WORDS;
    while let Some(&word) = words.get(at) {
        let count = (word >> 16) as usize;
        let end = at + count;
        if count == 0 || end > words.len() {
            // Damage: what the walk set so far stays, `readable` false.
            return scanner.summary;
        }
        let opcode = word & 0xffff;
        if opcode == FUNCTION {
            // Only a fragment shader's derivatives concern GL's window y.
            let fragment = scanner.summary.has_stage(ExecutionModel::Fragment);
            if derivatives && fragment && !scanner.summary.window_y {
                scanner.summary.window_y = derives_y(&words[at..]);
            }
            break;
        }
        scanner.header_instruction(opcode, &words[at + 1..end]);
        at = end;
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
        if count == 0 {
            return false;
        }
        if matches!(word & 0xffff, DPDY | DPDY_FINE | DPDY_COARSE) {
            // One that runs past the end is damage, not a derivative.
            return at + count <= words.len();
        }
        // An instruction past the end ends the loop, as damage does.
        at += count;
    }
    false
}

/// What the scan knows of a type id, as bits: see [`Scanner::types`].
type TypeBits = u32;
/// A struct or matrix type, or an array of one.
const AGGREGATE: TypeBits = 1;
/// A type that takes more than one Location: a struct other than a built-in block, a
/// matrix, an array of anything but a built-in block, a 64-bit 3- or 4-vector.
const WIDE: TypeBits = 2;
/// A 64-bit scalar type.
const WIDE_SCALAR: TypeBits = 4;
/// A struct with a built-in member (`OpMemberDecorate .. BuiltIn`, before the type).
const BUILTIN_BLOCK: TypeBits = 8;

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
    /// The type ids that have some [`TypeBits`], with them: one list (inline for the usual
    /// few, so that a scan allocates nothing but what the summary keeps) and one search per
    /// look-up. An id may appear more than once (a built-in block is marked before its
    /// `OpTypeStruct`): its bits are the union.
    types: SmallVec<[(u32, TypeBits); INLINE_IDS]>,
    /// Whether an `Input` (`input_aggregate`) or `Output` pointer points to an
    /// [`AGGREGATE`], and whether either points to a [`WIDE`] type.
    input_aggregate: bool,
    output_aggregate: bool,
    wide_interface: bool,
    /// `(id, Location)` of the `Location` decorations.
    locations: SmallVec<[(u32, u32); INLINE_IDS]>,
    /// The vertex inputs' Locations, for [`Summary::vertex_input_locations`].
    input_locations: SmallVec<[u32; INLINE_IDS]>,
}

const INLINE_IDS: usize = 16;

impl Scanner {
    /// One instruction of the header sections: one dispatch on the opcode. Debug
    /// instructions other than `OpName` (`OpSource*`, `OpString`, `OpMemberName`, `OpLine`,
    /// `OpModuleProcessed`), constants and the other types fall to the last arm.
    fn header_instruction(&mut self, opcode: u32, ops: &[u32]) {
        match opcode {
            CAPABILITY => match ops.first().copied() {
                Some(CLIP_DISTANCE) => self.summary.clip_distance = true,
                Some(INTERPOLATION_FUNCTION) => self.summary.window_y = true,
                _ => {}
            },
            ENTRY_POINT if ops.len() >= 3 && ops[0] < 32 => self.summary.stages |= 1 << ops[0],
            EXECUTION_MODE if ops.len() >= 2 => self.execution_mode(ops[1]),
            // "gl_FragColor\0" is four words; compare without decoding. Bytes after the
            // nul are padding that readers ignore, so only the first byte of the last word
            // must be the nul.
            NAME if ops.len() >= 5 && ops[1..4] == GL_FRAG_COLOR[..3] && ops[4] & 0xff == 0 => {
                self.frag_color_id = Some(ops[0]);
            }
            DECORATE if ops.len() >= 2 => self.decoration(ops),
            // Once per block, not per member.
            MEMBER_DECORATE
                if ops.len() >= 3
                    && ops[2] == BUILT_IN
                    && self.types.last() != Some(&(ops[0], BUILTIN_BLOCK)) =>
            {
                self.types.push((ops[0], BUILTIN_BLOCK));
            }
            TYPE_INT | TYPE_FLOAT if ops.len() >= 2 && ops[1] == 64 => {
                self.types.push((ops[0], WIDE_SCALAR));
            }
            TYPE_VECTOR
                if ops.len() >= 3 && ops[2] >= 3 && self.bits(ops[1]) & WIDE_SCALAR != 0 =>
            {
                self.types.push((ops[0], WIDE));
            }
            TYPE_STRUCT if !ops.is_empty() => {
                let wide = match self.bits(ops[0]) & BUILTIN_BLOCK {
                    0 => WIDE,
                    _ => 0,
                };
                self.types.push((ops[0], AGGREGATE | wide));
            }
            TYPE_MATRIX if !ops.is_empty() => self.types.push((ops[0], AGGREGATE | WIDE)),
            TYPE_ARRAY | TYPE_RUNTIME_ARRAY if ops.len() >= 2 => {
                let element = self.bits(ops[1]);
                let wide = match element & BUILTIN_BLOCK {
                    0 => WIDE,
                    _ => 0,
                };
                self.types.push((ops[0], element & AGGREGATE | wide));
            }
            TYPE_POINTER if ops.len() >= 3 => {
                let input = ops[1] == StorageClass::Input as u32;
                if input || ops[1] == StorageClass::Output as u32 {
                    let pointee = self.bits(ops[2]);
                    let aggregate = pointee & AGGREGATE != 0;
                    self.input_aggregate |= input && aggregate;
                    self.output_aggregate |= !input && aggregate;
                    self.wide_interface |= pointee & WIDE != 0;
                }
            }
            VARIABLE if ops.len() >= 3 && ops[2] == StorageClass::Input as u32 => {
                if let Some(&(_, location)) = self.locations.iter().find(|(id, _)| *id == ops[1]) {
                    self.input_locations.push(location);
                }
            }
            _ => {}
        }
    }

    /// The [`TypeBits`] of `id`.
    fn bits(&self, id: u32) -> TypeBits {
        self.types
            .iter()
            .filter(|&&(t, _)| t == id)
            .fold(0, |bits, &(_, b)| bits | b)
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

    /// The summary, from what the header said. By reference: the scanner is large, and a
    /// move would copy it.
    fn finish(&mut self, words: &[u32]) -> Summary {
        let mut summary = std::mem::take(&mut self.summary);
        summary.readable = true;
        summary.single_location_bound = (!self.wide_interface).then(|| {
            self.locations
                .iter()
                .map(|&(_, location)| location.saturating_add(1))
                .max()
                .unwrap_or(0)
        });
        if summary.layer {
            summary.location_ends = Module::parse(words).ok().map(|m| LocationEnds::of(&m));
        }
        if summary.has_stage(ExecutionModel::Vertex) {
            self.input_locations.sort_unstable();
            // The record keeps it for the module's life: one allocation of its size.
            summary.vertex_input_locations = self.input_locations.to_vec();
        }
        let fragment = summary.has_stage(ExecutionModel::Fragment);
        summary.window_y &= fragment;
        summary.frag_color = fragment
            && self
                .frag_color_id
                .is_some_and(|id| self.locations.contains(&(id, 0)));
        summary.xfb_candidate = self.xfb_mode && self.xfb_buffer;
        summary.struct_inputs = self.input_aggregate && fragment;
        summary.struct_outputs = self.output_aggregate
            && [
                ExecutionModel::Vertex,
                ExecutionModel::TessellationEvaluation,
                ExecutionModel::Geometry,
            ]
            .into_iter()
            .any(|m| summary.has_stage(m));
        summary.output_primitive = if summary.has_stage(ExecutionModel::Geometry) {
            self.emits
        } else if self.point_mode {
            Some(Primitive::Points)
        } else {
            self.domain
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
    CLIP_DISTANCE = Capability::ClipDistance;
    INTERPOLATION_FUNCTION = Capability::InterpolationFunction;
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

    #[test]
    fn type_without_operands_is_no_panic() {
        // `OpTypeMatrix` of one word: the scan reads no operand it lacks.
        let words = [0x0723_0203, 0x10000, 0, 4, 0, (1 << 16) | TYPE_MATRIX];
        assert!(scan(&words).readable);
    }
}

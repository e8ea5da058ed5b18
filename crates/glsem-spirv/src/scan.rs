//! The fast path: a word-level scan of a module's header sections (up to the first
//! `OpFunction`) that tells whether any pass can apply. It reads function bodies only of a
//! fragment module, opcode by opcode, for the derivatives of GL's window y, and allocates
//! only for entry-point names. A module that declares `BuiltIn Layer` (rare) is parsed once
//! more for the Locations its interface occupies.

use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::layout::location_slots;
use super::module::{check_header, decode_string, instructions, Module, Type};

/// What the scan learned about a module. Built once per `vkCreateShaderModule`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The header and the instructions up to the first function are well formed.
    pub readable: bool,
    /// `(execution model, entry point name)` of every entry point.
    pub entry_points: Vec<(ExecutionModel, String)>,
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
}

/// One past the highest Location any `Input` (`input`) or `Output` (`output`) variable of a
/// module occupies, over every entry point; 0 where there is none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LocationEnds {
    pub input: u32,
    pub output: u32,
}

impl LocationEnds {
    /// The ends of `m`'s variables: a variable's Location plus the slots of its type, or for
    /// a block whose members carry the Locations, the farthest member's.
    fn of(m: &Module<'_>) -> Self {
        let mut ends = LocationEnds::default();
        for &id in m.globals.keys() {
            let Some((storage, pointee)) = m.variable(id) else {
                continue;
            };
            let end = match m.decoration(id, Decoration::Location) {
                Some(&[location, ..]) => location + location_slots(m, pointee).unwrap_or(1),
                _ => member_location_end(m, pointee),
            };
            match storage {
                StorageClass::Input => ends.input = ends.input.max(end),
                StorageClass::Output => ends.output = ends.output.max(end),
                _ => {}
            }
        }
        ends
    }
}

/// Where the members of block type `ty` that carry a Location end (0 for other types).
fn member_location_end(m: &Module<'_>, ty: u32) -> u32 {
    let Some(Type::Struct { members }) = m.type_of(ty) else {
        return 0;
    };
    let located = members.iter().enumerate().filter_map(|(i, &member)| {
        m.member_decorations_of(ty, i as u32)
            .find(|(d, _)| *d == Decoration::Location)
            .and_then(|(_, lits)| lits.first())
            .map(|location| location + location_slots(m, member).unwrap_or(1))
    });
    located.max().unwrap_or(0)
}

/// The class of primitive a stage emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    Points,
    Lines,
    Triangles,
}

impl Summary {
    pub fn has_stage(&self, model: ExecutionModel) -> bool {
        self.entry_points.iter().any(|(m, _)| *m == model)
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
    let mut in_bodies = false;
    for inst in instructions(words) {
        let Ok(inst) = inst else {
            // Damage in a body is the parser's (and the passes') business.
            if in_bodies {
                break;
            }
            return scanner.summary;
        };
        if in_bodies {
            if matches!(inst.op(), Some(Op::DPdy | Op::DPdyFine | Op::DPdyCoarse)) {
                scanner.summary.window_y = true;
                break;
            }
            continue;
        }
        if inst.op() == Some(Op::Function) {
            // Only a fragment shader's derivatives concern GL's window y.
            if scanner.summary.window_y || !scanner.summary.has_stage(ExecutionModel::Fragment) {
                break;
            }
            in_bodies = true;
            continue;
        }
        scanner.header_instruction(inst.op(), inst.operands());
    }
    scanner.finish(words)
}

/// What [`scan`] gathers from the header sections before it decides.
#[derive(Default)]
struct Scanner {
    summary: Summary,
    frag_color_id: Option<u32>,
    location0: Vec<u32>,
    xfb_mode: bool,
    xfb_buffer: bool,
    emits: Option<Primitive>,
    domain: Option<Primitive>,
    point_mode: bool,
    /// Struct and matrix type ids, and arrays of them; Input pointers to any of them.
    aggregates: Vec<u32>,
    input_aggregate: bool,
    output_aggregate: bool,
    locations: Vec<(u32, u32)>,
}

impl Scanner {
    /// One instruction of the header sections.
    fn header_instruction(&mut self, op: Option<Op>, ops: &[u32]) {
        match op {
            Some(Op::EntryPoint) if ops.len() >= 3 => {
                if let Some(model) = ExecutionModel::from_u32(ops[0]) {
                    self.summary
                        .entry_points
                        .push((model, decode_string(&ops[2..]).0));
                }
            }
            Some(Op::ExecutionMode) if ops.len() >= 2 => self.execution_mode(ops[1]),
            Some(Op::TypeStruct | Op::TypeMatrix) if !ops.is_empty() => {
                self.aggregates.push(ops[0])
            }
            Some(Op::TypeArray | Op::TypeRuntimeArray)
                if ops.len() >= 2 && self.aggregates.contains(&ops[1]) =>
            {
                self.aggregates.push(ops[0])
            }
            Some(Op::TypePointer) if ops.len() >= 3 && self.aggregates.contains(&ops[2]) => {
                self.input_aggregate |= ops[1] == spirv::StorageClass::Input as u32;
                self.output_aggregate |= ops[1] == spirv::StorageClass::Output as u32;
            }
            Some(Op::Variable) if ops.len() >= 3 && ops[2] == spirv::StorageClass::Input as u32 => {
                if let Some(&(_, location)) = self.locations.iter().find(|(id, _)| *id == ops[1]) {
                    self.summary.vertex_input_locations.push(location);
                }
            }
            Some(Op::Capability) if ops.first() == Some(&(Capability::ClipDistance as u32)) => {
                self.summary.clip_distance = true;
            }
            Some(Op::Capability)
                if ops.first() == Some(&(Capability::InterpolationFunction as u32)) =>
            {
                self.summary.window_y = true;
            }
            // "gl_FragColor\0" is four words; compare without decoding. Bytes after the
            // nul are padding that readers ignore, so only the first byte of the last word
            // must be the nul.
            Some(Op::Name)
                if ops.len() >= 5 && ops[1..4] == GL_FRAG_COLOR[..3] && ops[4] & 0xff == 0 =>
            {
                self.frag_color_id = Some(ops[0]);
            }
            Some(Op::Decorate) if ops.len() >= 2 => self.decoration(ops),
            _ => {}
        }
    }

    fn execution_mode(&mut self, mode: u32) {
        self.xfb_mode |= mode == ExecutionMode::Xfb as u32;
        match ExecutionMode::from_u32(mode) {
            Some(ExecutionMode::OutputPoints) => self.emits = Some(Primitive::Points),
            Some(ExecutionMode::OutputLineStrip) => self.emits = Some(Primitive::Lines),
            Some(ExecutionMode::OutputTriangleStrip) => self.emits = Some(Primitive::Triangles),
            Some(ExecutionMode::PointMode) => self.point_mode = true,
            Some(ExecutionMode::Isolines) => self.domain = Some(Primitive::Lines),
            // Also a geometry shader's input primitive: only `emits` counts there.
            Some(ExecutionMode::Triangles | ExecutionMode::Quads) => {
                self.domain = Some(Primitive::Triangles)
            }
            _ => {}
        }
    }

    fn decoration(&mut self, ops: &[u32]) {
        match Decoration::from_u32(ops[1]) {
            Some(Decoration::Location) if ops.get(2) == Some(&0) => {
                self.location0.push(ops[0]);
                self.locations.push((ops[0], 0));
            }
            Some(Decoration::Index) if ops.get(2) == Some(&1) => self.summary.dual_source = true,
            Some(Decoration::XfbBuffer) => self.xfb_buffer = true,
            Some(Decoration::Location) if ops.len() >= 3 => self.locations.push((ops[0], ops[2])),
            Some(Decoration::BuiltIn) => match ops.get(2).copied().and_then(BuiltIn::from_u32) {
                Some(BuiltIn::InstanceIndex) => self.summary.instance_index = true,
                Some(BuiltIn::Layer) => self.summary.layer = true,
                Some(BuiltIn::SampleMask) => self.summary.sample_mask = true,
                Some(BuiltIn::FragCoord | BuiltIn::PointCoord) => self.summary.window_y = true,
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
            location0,
            xfb_mode,
            xfb_buffer,
            emits,
            domain,
            point_mode,
            input_aggregate,
            output_aggregate,
            ..
        } = self;
        summary.readable = true;
        if summary.layer {
            summary.location_ends = Module::parse(words).ok().map(|m| LocationEnds::of(&m));
        }
        if summary.has_stage(ExecutionModel::Vertex) {
            summary.vertex_input_locations.sort_unstable();
        } else {
            summary.vertex_input_locations.clear();
        }
        summary.window_y &= summary.has_stage(ExecutionModel::Fragment);
        summary.frag_color = frag_color_id.is_some_and(|id| location0.contains(&id))
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

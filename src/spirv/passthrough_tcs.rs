//! Generated passthrough tessellation control shader (README, "Tessellation without a
//! control shader").
//!
//! GL allows a TES without a TCS; Vulkan does not. The generated TCS copies every per-vertex
//! input the TES reads and writes all six tessellation levels from a push-constant block
//! (`inner[2]` then `outer[4]`, 24 bytes) that the layer reserves in the pipeline layout.
//!
//! The TES is only read (with [`Module`], never a `dr` round trip); the TCS is written
//! from scratch, section by section. The types it needs are copied from the TES (and the
//! VS's `gl_PerVertex`), so the TCS's outputs have exactly the TES's input types.
//!
//! Choices worth knowing:
//! - Every invocation writes the six levels. They all write the same values, so the
//!   result is defined without a branch on `gl_InvocationID == 0` or a barrier.
//! - A TES `patch in` variable has no source in GL either (only a TCS writes patch
//!   outputs), so GL leaves it undefined. The TCS declares a matching patch output, so the
//!   interfaces still match, and writes zero to it, so the value is at least deterministic.
//! - Capabilities: the TCS declares the TES's capabilities and extensions (the TCS's types
//!   are copies of the TES's, so those suffice, and the pipeline already enabled their
//!   features), plus `ClipDistance`/`CullDistance` when the VS declares them, since the
//!   TCS's `gl_in` mirrors the VS's `gl_PerVertex`.

use super::module::{push_inst, Module, Name, Type, HEADER_WORDS, MAGIC};
use super::PassError;
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};
use std::collections::HashMap;

/// Size of the push-constant block the generated TCS reads: `inner[2]` then `outer[4]` floats.
pub const LEVELS_PUSH_CONSTANT_SIZE: u32 = 24;

/// What the generated TCS depends on besides the TES.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TcsKey {
    /// `OutputVertices`: the pipeline's `patchControlPoints` (for
    /// [`build_passthrough_tcs_for_any_patch_size`], the most a draw may set).
    pub output_vertices: u32,
    /// Size of the per-vertex input arrays (`maxTessellationPatchSize`).
    pub max_patch_size: u32,
    /// Offset of the reserved push-constant range.
    pub push_constant_offset: u32,
}

/// Builds a TCS for `tes` (entry point `tes_entry`). `vertex` is the pipeline's vertex
/// stage (module and entry point), used to mirror `gl_PerVertex` array sizes.
pub fn build_passthrough_tcs(
    tes: &[u32],
    tes_entry: &str,
    vertex: Option<(&[u32], &str)>,
    key: &TcsKey,
) -> Result<Vec<u32>, PassError> {
    build(tes, tes_entry, vertex, key, false)
}

/// [`build_passthrough_tcs`] for a patch size that is dynamic state
/// (`VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT`): one TCS for every count, with
/// `OutputVertices` = `key.output_vertices` (the most a draw may set). Invocation `i`
/// copies input vertex `min(i, gl_PatchVerticesIn - 1)`, so the output patch holds the
/// input's vertices, then copies of its last one. The TES sees `key.output_vertices` as its
/// patch size, so a TES that reads `gl_PatchVerticesIn` is refused.
pub fn build_passthrough_tcs_for_any_patch_size(
    tes: &[u32],
    tes_entry: &str,
    vertex: Option<(&[u32], &str)>,
    key: &TcsKey,
) -> Result<Vec<u32>, PassError> {
    build(tes, tes_entry, vertex, key, true)
}

fn build(
    tes: &[u32],
    tes_entry: &str,
    vertex: Option<(&[u32], &str)>,
    key: &TcsKey,
    dynamic_patch_size: bool,
) -> Result<Vec<u32>, PassError> {
    if key.output_vertices == 0 || key.output_vertices > key.max_patch_size {
        return Err(unsupported(format!(
            "patch size {} outside 1..={}",
            key.output_vertices, key.max_patch_size
        )));
    }
    if !key.push_constant_offset.is_multiple_of(4) {
        return Err(unsupported(format!(
            "push-constant offset {} is not 4-aligned",
            key.push_constant_offset
        )));
    }
    let tes_module = Module::parse(tes)?;
    let tes_ep = tes_module
        .entry_point(tes_entry, ExecutionModel::TessellationEvaluation)
        .ok_or_else(|| {
            unsupported(format!(
                "no TessellationEvaluation entry point {tes_entry:?}"
            ))
        })?;
    let vs_module = match vertex {
        Some((words, entry)) => {
            let m = Module::parse(words)?;
            if m.entry_point(entry, ExecutionModel::Vertex).is_none() {
                return Err(unsupported(format!("no Vertex entry point {entry:?}")));
            }
            Some((m, entry))
        }
        None => None,
    };

    let mut g = Gen::new(&tes_module);
    if let Some((vs, _)) = &vs_module {
        for cap in [Capability::ClipDistance, Capability::CullDistance] {
            if declares_capability(vs, cap) {
                g.capability(cap as u32);
            }
        }
    }
    let vs_per_vertex = vs_module
        .as_ref()
        .and_then(|(vs, entry)| Some((vs, output_per_vertex_block(vs, entry)?)));

    let int = g.scalar(Op::TypeInt, &[32, 1]);
    let invocation_ptr = g.pointer(StorageClass::Input, int);
    let invocation = g.variable(invocation_ptr, StorageClass::Input, "gl_InvocationID");
    g.decorate(
        invocation,
        Decoration::BuiltIn,
        &[BuiltIn::InvocationId as u32],
    );

    // Function body: the invocation index first, then one copy per input.
    let invocation_id = g.id();
    push_inst(&mut g.body, Op::Load, &[int, invocation_id, invocation]);
    // The input vertex each invocation copies.
    let source_id = if dynamic_patch_size {
        let reads_patch_size = tes_ep.interface.iter().any(|&v| {
            tes_module.decoration(v, Decoration::BuiltIn)
                == Some(&[BuiltIn::PatchVertices as u32][..])
        });
        if reads_patch_size {
            return Err(unsupported(
                "a TES that reads gl_PatchVerticesIn with a dynamic patch size".into(),
            ));
        }
        let patch_vertices = g.variable(invocation_ptr, StorageClass::Input, "gl_PatchVerticesIn");
        g.decorate(
            patch_vertices,
            Decoration::BuiltIn,
            &[BuiltIn::PatchVertices as u32],
        );
        let count = g.load(int, patch_vertices);
        let one = g.int_constant(1);
        let last = g.id();
        push_inst(&mut g.body, Op::ISub, &[int, last, count, one]);
        let boolean = g.scalar(Op::TypeBool, &[]);
        let before_last = g.id();
        push_inst(
            &mut g.body,
            Op::SLessThan,
            &[boolean, before_last, invocation_id, last],
        );
        let source = g.id();
        push_inst(
            &mut g.body,
            Op::Select,
            &[int, source, before_last, invocation_id, last],
        );
        source
    } else {
        invocation_id
    };
    let indices = (source_id, invocation_id);

    for &var in &tes_ep.interface {
        let Some((StorageClass::Input, pointee)) = tes_module.variable(var) else {
            continue;
        };
        if tes_module.has_decoration(var, Decoration::BuiltIn) {
            // TessCoord, PatchVertices, PrimitiveId and the levels: the TCS writes the
            // levels below; the others the fixed-function tessellator provides.
            continue;
        }
        if tes_module.has_decoration(var, Decoration::Patch) {
            g.zeroed_patch_output(&tes_module, var, pointee)?;
            continue;
        }
        let Some(Type::Array { element, .. }) = tes_module.type_of(pointee) else {
            return Err(unsupported(format!(
                "per-vertex TES input %{var} is not an array"
            )));
        };
        if is_builtin_block(&tes_module, *element) {
            g.per_vertex_block(&tes_module, *element, vs_per_vertex, key, indices)?;
        } else {
            g.per_vertex_copy(&tes_module, var, *element, key, indices)?;
        }
    }
    g.levels(key.push_constant_offset);
    Ok(g.finish(&tes_module, key.output_vertices))
}

fn unsupported(what: String) -> PassError {
    PassError::Unsupported(what)
}

fn declares_capability(m: &Module<'_>, cap: Capability) -> bool {
    m.insts
        .iter()
        .take_while(|i| i.op() == Some(Op::Capability))
        .any(|i| i.operand(0) == cap as u32)
}

/// True for a struct whose members carry `BuiltIn` (a `gl_PerVertex` block).
fn is_builtin_block(m: &Module<'_>, ty: u32) -> bool {
    matches!(m.type_of(ty), Some(Type::Struct { .. }))
        && m.member_decorations
            .get(&ty)
            .is_some_and(|d| d.iter().any(|(_, dec, _)| *dec == Decoration::BuiltIn))
}

/// The struct type of the VS's output `gl_PerVertex` block, if it has one.
fn output_per_vertex_block(vs: &Module<'_>, entry: &str) -> Option<u32> {
    let ep = vs.entry_point(entry, ExecutionModel::Vertex)?;
    ep.interface.iter().find_map(|&v| match vs.variable(v) {
        Some((StorageClass::Output, pointee)) if is_builtin_block(vs, pointee) => Some(pointee),
        _ => None,
    })
}

/// The length of array type `ty`, when it is a constant.
/// More clip or cull distances than any device has (`maxClipDistances` and
/// `maxCullDistances` are 8 on common hardware): a module declaring more is not one a driver
/// accepts, and copying them element by element would not end.
const MAX_DISTANCES: u32 = 64;

fn array_length(m: &Module<'_>, ty: u32) -> Option<u32> {
    match m.type_of(ty)? {
        Type::Array { length, .. } => m.constant_u32(*length),
        _ => None,
    }
}

/// The `BuiltIn` of member `member` of struct `ty`.
fn member_builtin(m: &Module<'_>, ty: u32, member: u32) -> Option<u32> {
    m.member_decorations_of(ty, member)
        .find(|(d, _)| *d == Decoration::BuiltIn)
        .and_then(|(_, lits)| lits.first().copied())
}

/// Decorations copied from the TES's interface onto the TCS's: the ones that make the
/// interfaces match. XFB and explicit-layout decorations are dropped (the TCS has no `Xfb`
/// mode, and IO variables have no layout).
fn copied_decoration(d: Decoration) -> bool {
    matches!(
        d,
        Decoration::Location
            | Decoration::Component
            | Decoration::Flat
            | Decoration::NoPerspective
            | Decoration::Centroid
            | Decoration::Sample
            | Decoration::Patch
            | Decoration::BuiltIn
            | Decoration::Block
            | Decoration::RelaxedPrecision
    )
}

/// Which module a copied type came from (type ids are per module).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Source {
    Tes,
    Vertex,
}

/// A non-aggregate type or constant: opcode and operand count, result type (0 when none)
/// and up to [`MAX_UNIQUE_OPERANDS`] operands after the result id.
type UniqueKey = [u32; 2 + MAX_UNIQUE_OPERANDS];
const MAX_UNIQUE_OPERANDS: usize = 3;

/// The TCS being written, one word vector per logical-layout section.
struct Gen {
    bound: u32,
    capabilities: Vec<u32>,
    extensions: Vec<u32>,
    memory_model: Vec<u32>,
    names: Vec<u32>,
    annotations: Vec<u32>,
    globals: Vec<u32>,
    body: Vec<u32>,
    /// Input and Output variables (every global for SPIR-V ≥ 1.4).
    interface: Vec<u32>,
    push_constant: Option<u32>,
    /// Non-aggregate types and constants by their operands (SPIR-V forbids duplicates).
    unique: HashMap<UniqueKey, u32>,
    /// Types already copied from a source module.
    copied: HashMap<(Source, u32), u32>,
}

impl Gen {
    /// Starts a TCS with the TES's capabilities, extensions and memory model.
    fn new(tes: &Module<'_>) -> Self {
        let mut g = Gen {
            bound: 1,
            capabilities: Vec::new(),
            extensions: Vec::new(),
            memory_model: Vec::new(),
            names: Vec::with_capacity(256),
            annotations: Vec::with_capacity(256),
            globals: Vec::with_capacity(512),
            body: Vec::with_capacity(256),
            interface: Vec::new(),
            push_constant: None,
            unique: HashMap::with_capacity(64),
            copied: HashMap::with_capacity(32),
        };
        g.capability(Capability::Shader as u32);
        g.capability(Capability::Tessellation as u32);
        for inst in &tes.insts[..tes.section_start(super::module::Section::EntryPoint)] {
            match inst.op() {
                Some(Op::Capability) => g.capability(inst.operand(0)),
                Some(Op::Extension) => g.extensions.extend_from_slice(inst.words),
                Some(Op::MemoryModel) => g.memory_model = inst.words.to_vec(),
                _ => {}
            }
        }
        if g.memory_model.is_empty() {
            push_inst(
                &mut g.memory_model,
                Op::MemoryModel,
                &[
                    spirv::AddressingModel::Logical as u32,
                    spirv::MemoryModel::GLSL450 as u32,
                ],
            );
        }
        g
    }

    fn id(&mut self) -> u32 {
        let id = self.bound;
        self.bound += 1;
        id
    }

    fn capability(&mut self, cap: u32) {
        if !self.capabilities.contains(&cap) {
            self.capabilities.push(cap);
        }
    }

    fn name(&mut self, id: u32, name: &str) {
        let mut ops = vec![id];
        ops.extend(super::module::encode_string(name));
        push_inst(&mut self.names, Op::Name, &ops);
    }

    fn decorate(&mut self, id: u32, d: Decoration, literals: &[u32]) {
        let mut ops = vec![id, d as u32];
        ops.extend_from_slice(literals);
        push_inst(&mut self.annotations, Op::Decorate, &ops);
    }

    /// A type or constant `op` with these operands after the result id, declared once.
    fn scalar(&mut self, op: Op, operands: &[u32]) -> u32 {
        self.unique_with_type(op, None, operands)
    }

    /// Callers guarantee `operands.len() <= MAX_UNIQUE_OPERANDS` (copied instructions are
    /// checked in [`Gen::copy_type`]).
    fn unique_with_type(&mut self, op: Op, ty: Option<u32>, operands: &[u32]) -> u32 {
        let mut key: UniqueKey = [0; 2 + MAX_UNIQUE_OPERANDS];
        key[0] = op as u32 | (operands.len() as u32) << 16;
        key[1] = ty.unwrap_or(0);
        key[2..2 + operands.len()].copy_from_slice(operands);
        if let Some(&id) = self.unique.get(&key) {
            return id;
        }
        let id = self.id();
        let count = 1 + ty.is_some() as u32 + operands.len() as u32;
        self.globals.push((count + 1) << 16 | op as u32);
        self.globals.extend(ty);
        self.globals.push(id);
        self.globals.extend_from_slice(operands);
        self.unique.insert(key, id);
        id
    }

    fn constant(&mut self, ty: u32, value: u32) -> u32 {
        self.unique_with_type(Op::Constant, Some(ty), &[value])
    }

    fn int_constant(&mut self, value: u32) -> u32 {
        let int = self.scalar(Op::TypeInt, &[32, 1]);
        self.constant(int, value)
    }

    fn pointer(&mut self, storage: StorageClass, pointee: u32) -> u32 {
        self.scalar(Op::TypePointer, &[storage as u32, pointee])
    }

    /// An undecorated array type (one per element and length).
    fn array(&mut self, element: u32, length: u32) -> u32 {
        let uint = self.scalar(Op::TypeInt, &[32, 0]);
        let length = self.constant(uint, length);
        self.scalar(Op::TypeArray, &[element, length])
    }

    /// A global variable that is part of the entry point's interface.
    fn variable(&mut self, ptr: u32, storage: StorageClass, name: &str) -> u32 {
        let id = self.id();
        push_inst(&mut self.globals, Op::Variable, &[ptr, id, storage as u32]);
        self.interface.push(id);
        if !name.is_empty() {
            self.name(id, name);
        }
        id
    }

    /// Copies type `ty` of module `m` (and the types it is built from) into the TCS.
    fn copy_type(&mut self, m: &Module<'_>, src: Source, ty: u32) -> Result<u32, PassError> {
        self.copy_type_nested(m, src, ty, 0)
    }

    /// [`Gen::copy_type`] at nesting `depth`: a malformed module may declare a type
    /// that contains itself, which must end in an error, not a stack overflow.
    fn copy_type_nested(
        &mut self,
        m: &Module<'_>,
        src: Source,
        ty: u32,
        depth: u32,
    ) -> Result<u32, PassError> {
        const MAX_DEPTH: u32 = 64;
        if let Some(&id) = self.copied.get(&(src, ty)) {
            return Ok(id);
        }
        let bad = || unsupported(format!("cannot copy type %{ty} into the TCS"));
        if depth > MAX_DEPTH {
            return Err(bad());
        }
        let inst = m.insts[*m.globals.get(&ty).ok_or_else(bad)?];
        let ops = &inst.operands()[1..];
        let op = inst.op().ok_or_else(bad)?;
        let operand_count = match op {
            Op::TypeBool => 0,
            Op::TypeInt | Op::TypeVector | Op::TypeMatrix | Op::TypeArray => 2,
            Op::TypeFloat => ops.len().clamp(1, 2), // an optional FP encoding
            _ => ops.len(),
        };
        if op != Op::TypeStruct && ops.len() != operand_count {
            return Err(bad());
        }
        let id = match op {
            op @ (Op::TypeBool | Op::TypeInt | Op::TypeFloat) => self.scalar(op, ops),
            op @ (Op::TypeVector | Op::TypeMatrix) => {
                let component = self.copy_type_nested(m, src, ops[0], depth + 1)?;
                self.scalar(op, &[component, ops[1]])
            }
            Op::TypeArray => {
                let element = self.copy_type_nested(m, src, ops[0], depth + 1)?;
                let length_inst = m.insts[*m.globals.get(&ops[1]).ok_or_else(bad)?];
                if length_inst.op() != Some(Op::Constant) {
                    return Err(unsupported(format!(
                        "array %{ty} has a specialization-constant length"
                    )));
                }
                let value = &length_inst.operands()[2..];
                if value.is_empty() || value.len() > MAX_UNIQUE_OPERANDS {
                    return Err(bad());
                }
                let length_ty = self.copy_type_nested(m, src, length_inst.operand(0), depth + 1)?;
                let length = self.unique_with_type(Op::Constant, Some(length_ty), value);
                self.scalar(Op::TypeArray, &[element, length])
            }
            Op::TypeStruct => {
                let members = ops
                    .iter()
                    .map(|&member| self.copy_type_nested(m, src, member, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                // Structs are not unique in SPIR-V: one copy per source struct.
                let id = self.id();
                let mut words = vec![id];
                words.extend(members);
                push_inst(&mut self.globals, Op::TypeStruct, &words);
                self.copy_decorations(m, ty, id);
                for (member, d, lits) in m.member_decorations.get(&ty).into_iter().flatten() {
                    if copied_decoration(*d) {
                        let mut words = vec![id, *member, *d as u32];
                        words.extend_from_slice(lits);
                        push_inst(&mut self.annotations, Op::MemberDecorate, &words);
                    }
                }
                if let Some(name) = m.names.get(&ty) {
                    self.name(id, &name.decode());
                }
                id
            }
            _ => return Err(bad()),
        };
        self.copied.insert((src, ty), id);
        Ok(id)
    }

    fn copy_decorations(&mut self, m: &Module<'_>, from: u32, to: u32) {
        for (d, lits) in m.decorations.get(&from).into_iter().flatten() {
            if copied_decoration(*d) {
                self.decorate(to, *d, lits);
            }
        }
    }

    /// `out[gl_InvocationID] = in[source]` for a user-defined per-vertex input;
    /// `(source, invocation_id)` are the ids of the two indices.
    fn per_vertex_copy(
        &mut self,
        tes: &Module<'_>,
        var: u32,
        element: u32,
        key: &TcsKey,
        (source_id, invocation_id): (u32, u32),
    ) -> Result<(), PassError> {
        let located = tes.has_decoration(var, Decoration::Location)
            || tes
                .member_decorations
                .get(&element)
                .is_some_and(|d| d.iter().any(|(_, dec, _)| *dec == Decoration::Location));
        if !located {
            return Err(unsupported(format!("TES input %{var} has no Location")));
        }
        let element = self.copy_type(tes, Source::Tes, element)?;
        // The output keeps the TES's name; the input gets a suffix (unnamed stays unnamed).
        let name = tes.names.get(&var).map(Name::decode).unwrap_or_default();
        let in_name = if name.is_empty() {
            String::new()
        } else {
            format!("{name}_in")
        };
        let (input, output) = self.arrayed_pair(element, element, key, (&in_name, &name));
        self.copy_decorations(tes, var, input);
        self.copy_decorations(tes, var, output);
        let src = self.chain(StorageClass::Input, element, input, &[source_id]);
        let value = self.load(element, src);
        let dst = self.chain(StorageClass::Output, element, output, &[invocation_id]);
        push_inst(&mut self.body, Op::Store, &[dst, value]);
        Ok(())
    }

    /// Mirrors `gl_PerVertex`: `gl_in` has the VS's output block (so its clip/cull arrays
    /// have the VS's sizes), `gl_out` the TES's input block; each TES member is copied
    /// from the VS member with the same `BuiltIn`.
    fn per_vertex_block(
        &mut self,
        tes: &Module<'_>,
        tes_block: u32,
        vs: Option<(&Module<'_>, u32)>,
        key: &TcsKey,
        (source_id, invocation_id): (u32, u32),
    ) -> Result<(), PassError> {
        let (in_module, in_source, in_block) = match vs {
            Some((vs, block)) => (vs, Source::Vertex, block),
            None => (tes, Source::Tes, tes_block),
        };
        let out_ty = self.copy_type(tes, Source::Tes, tes_block)?;
        let in_ty = self.copy_type(in_module, in_source, in_block)?;
        let (input, output) = self.arrayed_pair(in_ty, out_ty, key, ("gl_in", "gl_out"));
        let Some(Type::Struct {
            members: out_members,
        }) = tes.type_of(tes_block)
        else {
            unreachable!("is_builtin_block checked the struct");
        };
        let Some(Type::Struct {
            members: in_members,
        }) = in_module.type_of(in_block)
        else {
            unreachable!("output_per_vertex_block checked the struct");
        };
        for (i, &out_member) in out_members.iter().enumerate() {
            let Some(builtin) = member_builtin(tes, tes_block, i as u32) else {
                continue;
            };
            let Some(j) = (0..in_members.len() as u32)
                .find(|&j| member_builtin(in_module, in_block, j) == Some(builtin))
            else {
                continue; // The VS does not write it: GL leaves it undefined too.
            };
            let out_member_ty = self.copy_type(tes, Source::Tes, out_member)?;
            let in_member_ty = self.copy_type(in_module, in_source, in_members[j as usize])?;
            let in_index = self.int_constant(j);
            let out_index = self.int_constant(i as u32);
            if in_member_ty == out_member_ty {
                let src = self.chain(
                    StorageClass::Input,
                    in_member_ty,
                    input,
                    &[source_id, in_index],
                );
                let value = self.load(in_member_ty, src);
                let dst = self.chain(
                    StorageClass::Output,
                    out_member_ty,
                    output,
                    &[invocation_id, out_index],
                );
                push_inst(&mut self.body, Op::Store, &[dst, value]);
                continue;
            }
            // Clip/cull distance arrays sized differently in the VS and the TES: copy the
            // elements both have.
            let (Some(in_len), Some(out_len)) = (
                array_length(in_module, in_members[j as usize]),
                array_length(tes, out_member),
            ) else {
                return Err(unsupported(format!(
                    "gl_PerVertex member BuiltIn {builtin} differs between the VS and the TES"
                )));
            };
            if in_len.min(out_len) > MAX_DISTANCES {
                return Err(unsupported(format!(
                    "gl_PerVertex member BuiltIn {builtin} has {} elements, more than {MAX_DISTANCES}",
                    in_len.min(out_len)
                )));
            }
            let float = self.scalar(Op::TypeFloat, &[32]);
            for k in 0..in_len.min(out_len) {
                let k = self.int_constant(k);
                let src = self.chain(StorageClass::Input, float, input, &[source_id, in_index, k]);
                let value = self.load(float, src);
                let dst = self.chain(
                    StorageClass::Output,
                    float,
                    output,
                    &[invocation_id, out_index, k],
                );
                push_inst(&mut self.body, Op::Store, &[dst, value]);
            }
        }
        Ok(())
    }

    /// A TES `patch in` gets a patch output at the same Location, written with zero.
    fn zeroed_patch_output(
        &mut self,
        tes: &Module<'_>,
        var: u32,
        pointee: u32,
    ) -> Result<(), PassError> {
        let ty = self.copy_type(tes, Source::Tes, pointee)?;
        let ptr = self.pointer(StorageClass::Output, ty);
        let name = tes.names.get(&var).map(Name::decode).unwrap_or_default();
        let output = self.variable(ptr, StorageClass::Output, &name);
        self.copy_decorations(tes, var, output);
        let zero = self.unique_with_type(Op::ConstantNull, Some(ty), &[]);
        push_inst(&mut self.body, Op::Store, &[output, zero]);
        Ok(())
    }

    /// Declares `in[max_patch_size]` of `in_element` and `out[output_vertices]` of
    /// `out_element`.
    fn arrayed_pair(
        &mut self,
        in_element: u32,
        out_element: u32,
        key: &TcsKey,
        (in_name, out_name): (&str, &str),
    ) -> (u32, u32) {
        let in_array = self.array(in_element, key.max_patch_size);
        let in_ptr = self.pointer(StorageClass::Input, in_array);
        let input = self.variable(in_ptr, StorageClass::Input, in_name);
        let out_array = self.array(out_element, key.output_vertices);
        let out_ptr = self.pointer(StorageClass::Output, out_array);
        let output = self.variable(out_ptr, StorageClass::Output, out_name);
        (input, output)
    }

    fn load(&mut self, ty: u32, ptr: u32) -> u32 {
        let id = self.id();
        push_inst(&mut self.body, Op::Load, &[ty, id, ptr]);
        id
    }

    /// `OpAccessChain` to a value of type `pointee`.
    fn chain(&mut self, storage: StorageClass, pointee: u32, base: u32, indices: &[u32]) -> u32 {
        let ptr = self.pointer(storage, pointee);
        let id = self.id();
        let mut ops = vec![ptr, id, base];
        ops.extend_from_slice(indices);
        push_inst(&mut self.body, Op::AccessChain, &ops);
        id
    }

    /// Writes the six levels from the push-constant block `{ float inner[2]; float
    /// outer[4]; }` at `offset`.
    fn levels(&mut self, offset: u32) {
        let float = self.scalar(Op::TypeFloat, &[32]);
        let uint = self.scalar(Op::TypeInt, &[32, 0]);
        // The block's arrays carry ArrayStride, so they are their own types, not the
        // undecorated arrays of the built-ins.
        let mut block_members = Vec::new();
        for len in [2, 4] {
            let length = self.constant(uint, len);
            let array = self.id();
            push_inst(&mut self.globals, Op::TypeArray, &[array, float, length]);
            self.decorate(array, Decoration::ArrayStride, &[4]);
            block_members.push(array);
        }
        let block = self.id();
        push_inst(
            &mut self.globals,
            Op::TypeStruct,
            &[block, block_members[0], block_members[1]],
        );
        self.decorate(block, Decoration::Block, &[]);
        for (member, member_offset) in [(0u32, offset), (1, offset + 8)] {
            push_inst(
                &mut self.annotations,
                Op::MemberDecorate,
                &[block, member, Decoration::Offset as u32, member_offset],
            );
        }
        self.name(block, "GlsemTessLevels");
        let ptr = self.pointer(StorageClass::PushConstant, block);
        let levels = self.id();
        push_inst(
            &mut self.globals,
            Op::Variable,
            &[ptr, levels, StorageClass::PushConstant as u32],
        );
        self.name(levels, "glsem_tess_levels");
        self.push_constant = Some(levels);

        for (member, builtin, count, name) in [
            (0, BuiltIn::TessLevelInner, 2, "gl_TessLevelInner"),
            (1, BuiltIn::TessLevelOuter, 4, "gl_TessLevelOuter"),
        ] {
            let array = self.array(float, count);
            let out_ptr = self.pointer(StorageClass::Output, array);
            let output = self.variable(out_ptr, StorageClass::Output, name);
            self.decorate(output, Decoration::Patch, &[]);
            self.decorate(output, Decoration::BuiltIn, &[builtin as u32]);
            let member = self.int_constant(member);
            for k in 0..count {
                let k = self.int_constant(k);
                let src = self.chain(StorageClass::PushConstant, float, levels, &[member, k]);
                let value = self.load(float, src);
                let dst = self.chain(StorageClass::Output, float, output, &[k]);
                push_inst(&mut self.body, Op::Store, &[dst, value]);
            }
        }
    }

    /// Assembles the module: SPIR-V version of the TES, interface per that version.
    fn finish(mut self, tes: &Module<'_>, output_vertices: u32) -> Vec<u32> {
        let void = self.scalar(Op::TypeVoid, &[]);
        let fn_ty = self.scalar(Op::TypeFunction, &[void]);
        let main = self.id();
        let label = self.id();
        self.name(main, "main");
        if tes.version() >= (1, 4) {
            // From SPIR-V 1.4 the interface lists every global the entry point uses.
            self.interface.extend(self.push_constant);
        }
        let mut out = Vec::with_capacity(
            HEADER_WORDS + self.globals.len() + self.body.len() + self.annotations.len() + 64,
        );
        out.extend_from_slice(&[MAGIC, tes.words[1], 0, self.bound, 0]);
        for &cap in &self.capabilities {
            push_inst(&mut out, Op::Capability, &[cap]);
        }
        out.extend_from_slice(&self.extensions);
        out.extend_from_slice(&self.memory_model);
        let mut ep = vec![ExecutionModel::TessellationControl as u32, main];
        ep.extend(super::module::encode_string("main"));
        ep.extend_from_slice(&self.interface);
        push_inst(&mut out, Op::EntryPoint, &ep);
        push_inst(
            &mut out,
            Op::ExecutionMode,
            &[main, ExecutionMode::OutputVertices as u32, output_vertices],
        );
        out.extend_from_slice(&self.names);
        out.extend_from_slice(&self.annotations);
        out.extend_from_slice(&self.globals);
        push_inst(&mut out, Op::Function, &[void, main, 0, fn_ty]);
        push_inst(&mut out, Op::Label, &[label]);
        out.extend_from_slice(&self.body);
        push_inst(&mut out, Op::Return, &[]);
        push_inst(&mut out, Op::FunctionEnd, &[]);
        out[3] = self.bound;
        out
    }
}

#[cfg(test)]
mod tests {
    //! The TES/VS sources are GLSL under `tests/spirv/tcs/`, compiled with glslangValidator
    //! at test time; every generated TCS must pass `spirv-val`, and its interfaces are
    //! checked against the VS's outputs and the TES's inputs the way Vulkan matches them
    //! (Location, Component, patch-ness and type, outer per-vertex array ignored).
    use super::*;
    use crate::spirv::module::Inst;
    use std::path::PathBuf;
    use std::process::Command;

    const KEY: TcsKey = TcsKey {
        output_vertices: 3,
        max_patch_size: 32,
        push_constant_offset: 104,
    };

    fn source(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/spirv/tcs")
            .join(name)
    }

    /// A temporary path unique to this call (tests run in parallel).
    fn scratch(name: &str) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::env::temp_dir().join(format!("glsem-tcs-{}-{n}-{name}", std::process::id()))
    }

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Compiles `tests/spirv/tcs/<name>` for `target_env` (glslang's `--target-env`).
    fn compile(name: &str, target_env: &str) -> Vec<u32> {
        let out = scratch(&format!("{name}.{target_env}.spv"));
        let status = Command::new("glslangValidator")
            .args(["-V", "--target-env", target_env, "-o"])
            .arg(&out)
            .arg(source(name))
            .output()
            .expect("glslangValidator runs");
        assert!(
            status.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&status.stdout)
        );
        let w = words(&std::fs::read(&out).unwrap());
        std::fs::remove_file(out).ok();
        w
    }

    /// Runs spirv-val and panics with its message and the disassembly on failure.
    fn validate(tcs: &[u32], target_env: &str) {
        let path = scratch(&format!("tcs-{target_env}.spv"));
        let bytes: Vec<u8> = tcs.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let val = Command::new("spirv-val")
            .args(["--target-env", target_env])
            .arg(&path)
            .output()
            .expect("spirv-val runs");
        let dis = Command::new("spirv-dis").arg(&path).output().unwrap();
        std::fs::remove_file(&path).ok();
        assert!(
            val.status.success(),
            "spirv-val: {}\n{}",
            String::from_utf8_lossy(&val.stderr),
            String::from_utf8_lossy(&dis.stdout)
        );
    }

    /// Structural type equality across two modules.
    fn same_type(a: &Module<'_>, ta: u32, b: &Module<'_>, tb: u32) -> bool {
        match (a.type_of(ta), b.type_of(tb)) {
            (
                Some(Type::Vector {
                    component: ca,
                    count: na,
                }),
                Some(Type::Vector {
                    component: cb,
                    count: nb,
                }),
            )
            | (
                Some(Type::Matrix {
                    column: ca,
                    columns: na,
                }),
                Some(Type::Matrix {
                    column: cb,
                    columns: nb,
                }),
            ) => na == nb && same_type(a, *ca, b, *cb),
            (
                Some(Type::Array {
                    element: ea,
                    length: la,
                }),
                Some(Type::Array {
                    element: eb,
                    length: lb,
                }),
            ) => a.constant_u32(*la) == b.constant_u32(*lb) && same_type(a, *ea, b, *eb),
            (Some(Type::Struct { members: ma }), Some(Type::Struct { members: mb })) => {
                ma.len() == mb.len() && ma.iter().zip(mb).all(|(x, y)| same_type(a, *x, b, *y))
            }
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// An interface variable as Vulkan matches it.
    #[derive(Debug)]
    struct Slot {
        var: u32,
        location: Option<u32>,
        component: u32,
        patch: bool,
        /// The per-vertex type (outer array stripped where the stage is arrayed).
        ty: u32,
    }

    /// The Input or Output variables of `entry` (built-in variables excluded).
    fn slots(m: &Module<'_>, model: ExecutionModel, storage: StorageClass) -> Vec<Slot> {
        let ep = m.entry_points.iter().find(|e| e.model == model).unwrap();
        let arrayed = matches!(
            (model, storage),
            (ExecutionModel::TessellationControl, _)
                | (ExecutionModel::TessellationEvaluation, StorageClass::Input)
        );
        ep.interface
            .iter()
            .filter_map(|&var| {
                let (sc, pointee) = m.variable(var)?;
                if sc != storage || m.has_decoration(var, Decoration::BuiltIn) {
                    return None;
                }
                let patch = m.has_decoration(var, Decoration::Patch);
                let ty = match (arrayed && !patch, m.type_of(pointee)) {
                    (true, Some(Type::Array { element, .. })) => *element,
                    (true, _) => panic!("arrayed interface %{var} is not an array"),
                    (false, _) => pointee,
                };
                Some(Slot {
                    var,
                    location: m.decoration(var, Decoration::Location).map(|l| l[0]),
                    component: m.decoration(var, Decoration::Component).map_or(0, |c| c[0]),
                    patch,
                    ty,
                })
            })
            .collect()
    }

    /// Every input of the consumer has an output of the producer with the same Location,
    /// Component, patch-ness and type; built-in blocks match member for member.
    fn assert_interface(
        producer: &Module<'_>,
        producer_model: ExecutionModel,
        consumer: &Module<'_>,
        consumer_model: ExecutionModel,
    ) {
        let outputs = slots(producer, producer_model, StorageClass::Output);
        for input in slots(consumer, consumer_model, StorageClass::Input) {
            if is_builtin_block(consumer, input.ty) {
                let output = outputs
                    .iter()
                    .find(|o| is_builtin_block(producer, o.ty))
                    .unwrap_or_else(|| panic!("no gl_PerVertex output for %{}", input.var));
                assert!(
                    same_type(producer, output.ty, consumer, input.ty),
                    "gl_PerVertex blocks differ"
                );
                continue;
            }
            let output = outputs
                .iter()
                .find(|o| {
                    o.location == input.location
                        && o.component == input.component
                        && !is_builtin_block(producer, o.ty)
                })
                .unwrap_or_else(|| {
                    panic!(
                        "input %{} at Location {:?} component {} has no output",
                        input.var, input.location, input.component
                    )
                });
            assert_eq!(output.patch, input.patch, "patch-ness of %{}", input.var);
            assert!(
                same_type(producer, output.ty, consumer, input.ty),
                "type of Location {:?} differs",
                input.location
            );
        }
    }

    /// VS → TCS and TCS → TES both match, as a pipeline with all three needs.
    fn assert_links(vs: &Module, tcs: &Module, tes: &Module) {
        assert_interface(
            vs,
            ExecutionModel::Vertex,
            tcs,
            ExecutionModel::TessellationControl,
        );
        assert_interface(
            tcs,
            ExecutionModel::TessellationControl,
            tes,
            ExecutionModel::TessellationEvaluation,
        );
    }

    fn load_of_invocation_id(tcs: &Module<'_>) -> u32 {
        let invocation = tcs
            .globals
            .keys()
            .copied()
            .find(|&v| {
                tcs.decoration(v, Decoration::BuiltIn) == Some(&[BuiltIn::InvocationId as u32])
            })
            .expect("gl_InvocationID declared");
        tcs.insts
            .iter()
            .find(|i| i.op() == Some(Op::Load) && i.operand(2) == invocation)
            .expect("gl_InvocationID loaded")
            .operand(1)
    }

    fn body<'a>(tcs: &Module<'a>) -> Vec<Inst<'a>> {
        tcs.insts[tcs.section_start(crate::spirv::module::Section::Function)..].to_vec()
    }

    /// `var` is written at `[gl_InvocationID]` with a value loaded from `source` at
    /// `[gl_InvocationID]`.
    fn assert_copied_per_invocation(tcs: &Module<'_>, source: u32, var: u32) {
        let id = load_of_invocation_id(tcs);
        let body = body(tcs);
        let chain_of = |base: u32| -> Vec<u32> {
            body.iter()
                .filter(|i| {
                    i.op() == Some(Op::AccessChain) && i.operand(2) == base && i.operand(3) == id
                })
                .map(|i| i.operand(1))
                .collect()
        };
        let src_chains = chain_of(source);
        let loaded: Vec<u32> = body
            .iter()
            .filter(|i| i.op() == Some(Op::Load) && src_chains.contains(&i.operand(2)))
            .map(|i| i.operand(1))
            .collect();
        let dst_chains = chain_of(var);
        assert!(
            body.iter().any(|i| i.op() == Some(Op::Store)
                && dst_chains.contains(&i.operand(0))
                && loaded.contains(&i.operand(1))),
            "%{var} is not copied from %{source} at gl_InvocationID"
        );
    }

    fn var_named(m: &Module<'_>, name: &str) -> u32 {
        m.names
            .iter()
            .find(|(id, n)| **n == name && m.variable(**id).is_some())
            .map(|(id, _)| *id)
            .unwrap_or_else(|| panic!("no variable {name}"))
    }

    fn has_capability(m: &Module<'_>, cap: Capability) -> bool {
        declares_capability(m, cap)
    }

    #[test]
    fn varyings_of_every_kind_link_vs_tcs_tes() {
        let vs = compile("varyings.vert", "vulkan1.0");
        let tes = compile("varyings.tese", "vulkan1.0");
        let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &KEY).unwrap();
        validate(&tcs, "vulkan1.0");
        let tcs_m = Module::parse(&tcs).unwrap();
        let vs_m = Module::parse(&vs).unwrap();
        let tes_m = Module::parse(&tes).unwrap();
        assert_links(&vs_m, &tcs_m, &tes_m);
        // Every user varying the TES reads is copied through (float, vec3, flat ivec2,
        // double, struct, array of vec4).
        for name in [
            "v_float", "v_vec3", "v_ivec2", "v_double", "v_struct", "v_array",
        ] {
            let out = var_named(&tcs_m, name);
            let input = var_named(&tcs_m, &format!("{name}_in"));
            assert_copied_per_invocation(&tcs_m, input, out);
            // Flat stays on both sides (TES declares it).
            let flat = matches!(name, "v_ivec2" | "v_double");
            assert_eq!(tcs_m.has_decoration(out, Decoration::Flat), flat, "{name}");
            assert_eq!(
                tcs_m.has_decoration(input, Decoration::Flat),
                flat,
                "{name}"
            );
        }
        // gl_in/gl_out are arrays of gl_PerVertex sized gl_MaxPatchVertices and the patch
        // size; the double varying needs Float64.
        let gl_out = var_named(&tcs_m, "gl_out");
        let (_, out_ty) = tcs_m.variable(gl_out).unwrap();
        let Some(Type::Array { length, .. }) = tcs_m.type_of(out_ty) else {
            panic!()
        };
        assert_eq!(tcs_m.constant_u32(*length), Some(3));
        let gl_in = var_named(&tcs_m, "gl_in");
        let (_, in_ty) = tcs_m.variable(gl_in).unwrap();
        let Some(Type::Array { length, .. }) = tcs_m.type_of(in_ty) else {
            panic!()
        };
        assert_eq!(tcs_m.constant_u32(*length), Some(32));
        assert!(has_capability(&tcs_m, Capability::Float64));
        assert!(has_capability(&tcs_m, Capability::Tessellation));
    }

    #[test]
    fn one_tcs_serves_every_patch_size() {
        // varyings.tese reads gl_PatchVerticesIn, which would see the output patch size.
        let tes = compile("varyings.tese", "vulkan1.0");
        let key = TcsKey {
            output_vertices: 32,
            ..KEY
        };
        assert!(build_passthrough_tcs_for_any_patch_size(&tes, "main", None, &key).is_err());
        let tes = compile("clip.tese", "vulkan1.0");
        let tcs = build_passthrough_tcs_for_any_patch_size(&tes, "main", None, &key).unwrap();
        validate(&tcs, "vulkan1.0");
        let m = Module::parse(&tcs).unwrap();
        // The input vertex copied is min(gl_InvocationID, gl_PatchVerticesIn - 1).
        let patch_vertices = m
            .entry_points
            .iter()
            .flat_map(|e| e.interface.iter().copied())
            .find(|&v| {
                m.decoration(v, Decoration::BuiltIn) == Some(&[BuiltIn::PatchVertices as u32][..])
            });
        assert!(patch_vertices.is_some(), "reads gl_PatchVerticesIn");
        assert!(m.insts.iter().any(|i| i.op() == Some(Op::Select)));
        let modes: Vec<_> = m
            .insts
            .iter()
            .filter(|i| i.op() == Some(Op::ExecutionMode))
            .map(|i| (i.operand(1), i.operand(2)))
            .collect();
        assert_eq!(modes, vec![(ExecutionMode::OutputVertices as u32, 32)]);
    }

    #[test]
    fn output_vertices_is_the_patch_size() {
        let tes = compile("varyings.tese", "vulkan1.0");
        for n in [1, 2, 3, 4, 32] {
            let key = TcsKey {
                output_vertices: n,
                ..KEY
            };
            let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
            validate(&tcs, "vulkan1.0");
            let m = Module::parse(&tcs).unwrap();
            let modes: Vec<_> = m
                .insts
                .iter()
                .filter(|i| i.op() == Some(Op::ExecutionMode))
                .map(|i| (i.operand(1), i.operand(2)))
                .collect();
            assert_eq!(modes, vec![(ExecutionMode::OutputVertices as u32, n)]);
        }
    }

    /// The block `{ float inner[2]; float outer[4]; }` at the key's offset, and the six
    /// level built-ins written from it element by element.
    #[test]
    fn levels_come_from_the_push_constant_block() {
        let tes = compile("varyings.tese", "vulkan1.0");
        let tcs = build_passthrough_tcs(&tes, "main", None, &KEY).unwrap();
        let m = Module::parse(&tcs).unwrap();
        let pc = var_named(&m, "glsem_tess_levels");
        let (storage, block) = m.variable(pc).unwrap();
        assert_eq!(storage, StorageClass::PushConstant);
        assert!(m.has_decoration(block, Decoration::Block));
        let Some(Type::Struct { members }) = m.type_of(block) else {
            panic!()
        };
        assert_eq!(members.len(), 2);
        for (member, offset, len) in [(0u32, 104u32, 2u32), (1, 112, 4)] {
            let offsets: Vec<_> = m
                .member_decorations_of(block, member)
                .filter(|(d, _)| *d == Decoration::Offset)
                .map(|(_, l)| l[0])
                .collect();
            assert_eq!(offsets, vec![offset]);
            let array = members[member as usize];
            assert_eq!(
                m.decoration(array, Decoration::ArrayStride),
                Some(&[4u32][..])
            );
            let Some(Type::Array { element, length }) = m.type_of(array) else {
                panic!()
            };
            assert_eq!(m.constant_u32(*length), Some(len));
            assert_eq!(m.type_of(*element), Some(&Type::Float { width: 32 }));
        }
        // The block fills exactly the reserved range.
        assert_eq!(
            112 + 4 * 4 - KEY.push_constant_offset,
            LEVELS_PUSH_CONSTANT_SIZE
        );

        let body = body(&m);
        let const_of = |id: u32| m.constant_u32(id).unwrap();
        for (builtin, member, count) in [
            (BuiltIn::TessLevelInner, 0, 2),
            (BuiltIn::TessLevelOuter, 1, 4),
        ] {
            let var = m
                .globals
                .keys()
                .copied()
                .find(|&v| m.decoration(v, Decoration::BuiltIn) == Some(&[builtin as u32]))
                .unwrap();
            assert!(m.has_decoration(var, Decoration::Patch));
            let (storage, ty) = m.variable(var).unwrap();
            assert_eq!(storage, StorageClass::Output);
            let Some(Type::Array { length, .. }) = m.type_of(ty) else {
                panic!()
            };
            assert_eq!(m.constant_u32(*length), Some(count));
            // level[k] = block.member[k], for every k.
            for k in 0..count {
                let src = body.iter().find(|i| {
                    i.op() == Some(Op::AccessChain)
                        && i.operand(2) == pc
                        && const_of(i.operand(3)) == member
                        && const_of(i.operand(4)) == k
                });
                let src = src
                    .unwrap_or_else(|| panic!("{builtin:?}[{k}] not read"))
                    .operand(1);
                let value = body
                    .iter()
                    .find(|i| i.op() == Some(Op::Load) && i.operand(2) == src)
                    .unwrap()
                    .operand(1);
                let dst: Vec<u32> = body
                    .iter()
                    .filter(|i| {
                        i.op() == Some(Op::AccessChain)
                            && i.operand(2) == var
                            && const_of(i.operand(3)) == k
                    })
                    .map(|i| i.operand(1))
                    .collect();
                assert!(
                    body.iter().any(|i| i.op() == Some(Op::Store)
                        && dst.contains(&i.operand(0))
                        && i.operand(1) == value),
                    "{builtin:?}[{k}] not written from the block"
                );
            }
        }
    }

    /// gl_in mirrors the VS's gl_PerVertex (clip distances [3]), gl_out the TES's ([2]);
    /// without a VS both are the TES's.
    #[test]
    fn per_vertex_block_follows_the_vs_sizes() {
        let vs = compile("clip.vert", "vulkan1.0");
        let tes = compile("clip.tese", "vulkan1.0");
        let key = TcsKey {
            output_vertices: 4,
            ..KEY
        };
        let clip_len = |m: &Module<'_>, var: u32| {
            let (_, arr) = m.variable(var).unwrap();
            let Some(Type::Array { element, .. }) = m.type_of(arr) else {
                panic!()
            };
            let Some(Type::Struct { members }) = m.type_of(*element) else {
                panic!()
            };
            let j = (0..members.len() as u32)
                .find(|&j| member_builtin(m, *element, j) == Some(BuiltIn::ClipDistance as u32))
                .unwrap();
            array_length(m, members[j as usize]).unwrap()
        };
        let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &key).unwrap();
        validate(&tcs, "vulkan1.0");
        let m = Module::parse(&tcs).unwrap();
        let (vs_m, tes_m) = (Module::parse(&vs).unwrap(), Module::parse(&tes).unwrap());
        assert_links(&vs_m, &m, &tes_m);
        assert_eq!(clip_len(&m, var_named(&m, "gl_in")), 3);
        assert_eq!(clip_len(&m, var_named(&m, "gl_out")), 2);
        assert!(has_capability(&m, Capability::ClipDistance));
        // gl_Position whole, and clip distances 0 and 1 one by one: three stores into
        // gl_out, plus the six levels.
        let gl_out = var_named(&m, "gl_out");
        let chains: Vec<u32> = body(&m)
            .iter()
            .filter(|i| i.op() == Some(Op::AccessChain) && i.operand(2) == gl_out)
            .map(|i| i.operand(1))
            .collect();
        let stores = body(&m)
            .iter()
            .filter(|i| i.op() == Some(Op::Store) && chains.contains(&i.operand(0)))
            .count();
        assert_eq!(stores, 3);

        let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
        validate(&tcs, "vulkan1.0");
        let m = Module::parse(&tcs).unwrap();
        assert_eq!(clip_len(&m, var_named(&m, "gl_in")), 2);
        assert_eq!(clip_len(&m, var_named(&m, "gl_out")), 2);
        assert_copied_per_invocation(&m, var_named(&m, "gl_in"), var_named(&m, "gl_out"));
    }

    /// Blocks with member Locations and Flat members, Component-packed inputs, and a
    /// `patch in` that gets a zeroed patch output at its Location.
    #[test]
    fn blocks_components_and_patch_inputs() {
        let tes = compile("patch_block.tese", "vulkan1.0");
        let key = TcsKey {
            output_vertices: 2,
            ..KEY
        };
        let tcs = build_passthrough_tcs(&tes, "main", None, &key).unwrap();
        validate(&tcs, "vulkan1.0");
        let m = Module::parse(&tcs).unwrap();
        let tes_m = Module::parse(&tes).unwrap();
        assert_interface(
            &m,
            ExecutionModel::TessellationControl,
            &tes_m,
            ExecutionModel::TessellationEvaluation,
        );
        let data = var_named(&m, "data_in");
        let (_, arr) = m.variable(data).unwrap();
        let Some(Type::Array { element, .. }) = m.type_of(arr) else {
            panic!()
        };
        let member_locations: Vec<_> = (0..3)
            .map(|j| {
                m.member_decorations_of(*element, j)
                    .find(|(d, _)| *d == Decoration::Location)
                    .map(|(_, l)| l[0])
            })
            .collect();
        assert_eq!(member_locations, vec![Some(0), Some(1), Some(3)]);
        assert!(m
            .member_decorations_of(*element, 1)
            .any(|(d, _)| d == Decoration::Flat));
        assert_copied_per_invocation(&m, var_named(&m, "data_in_in"), data);

        let packed = var_named(&m, "packed_yz");
        assert_eq!(
            m.decoration(packed, Decoration::Component),
            Some(&[1u32][..])
        );

        let p = var_named(&m, "p");
        assert!(m.has_decoration(p, Decoration::Patch));
        assert_eq!(m.decoration(p, Decoration::Location), Some(&[5u32][..]));
        let zero_store = body(&m).iter().any(|i| {
            i.op() == Some(Op::Store)
                && i.operand(0) == p
                && m.insts[m.globals[&i.operand(1)]].op() == Some(Op::ConstantNull)
        });
        assert!(zero_store, "patch output not zeroed");
    }

    #[test]
    fn sixteen_bit_double_and_matrix_inputs_keep_their_capabilities() {
        let tes = compile("half.tese", "vulkan1.0");
        let tcs = build_passthrough_tcs(&tes, "main", None, &KEY).unwrap();
        validate(&tcs, "vulkan1.0");
        let m = Module::parse(&tcs).unwrap();
        assert!(has_capability(&m, Capability::StorageInputOutput16));
        assert!(has_capability(&m, Capability::Float64));
        let tes_m = Module::parse(&tes).unwrap();
        assert_interface(
            &m,
            ExecutionModel::TessellationControl,
            &tes_m,
            ExecutionModel::TessellationEvaluation,
        );
    }

    /// SPIR-V 1.4+ lists every global in the interface, the push constant included.
    #[test]
    fn spirv_1_5_interface_lists_the_push_constant() {
        let vs = compile("varyings.vert", "vulkan1.2");
        let tes = compile("varyings.tese", "vulkan1.2");
        let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &KEY).unwrap();
        validate(&tcs, "vulkan1.2");
        let m = Module::parse(&tcs).unwrap();
        assert_eq!(m.version(), (1, 5));
        let pc = var_named(&m, "glsem_tess_levels");
        assert!(m.entry_points[0].interface.contains(&pc));
        let (vs_m, tes_m) = (Module::parse(&vs).unwrap(), Module::parse(&tes).unwrap());
        assert_links(&vs_m, &m, &tes_m);
        // Before 1.4 the push constant must not be listed.
        let tcs = build_passthrough_tcs(&compile("varyings.tese", "vulkan1.0"), "main", None, &KEY)
            .unwrap();
        let m = Module::parse(&tcs).unwrap();
        let pc = var_named(&m, "glsem_tess_levels");
        assert!(!m.entry_points[0].interface.contains(&pc));
    }

    #[test]
    fn refuses_what_it_cannot_build() {
        let tes = compile("varyings.tese", "vulkan1.0");
        let vs = compile("varyings.vert", "vulkan1.0");
        let err = |r: Result<Vec<u32>, PassError>| matches!(r, Err(PassError::Unsupported(_)));
        assert!(err(build_passthrough_tcs(&tes, "other", None, &KEY)));
        assert!(err(build_passthrough_tcs(&vs, "main", None, &KEY)));
        assert!(err(build_passthrough_tcs(
            &tes,
            "main",
            Some((&tes, "main")),
            &KEY
        )));
        let key = TcsKey {
            output_vertices: 0,
            ..KEY
        };
        assert!(err(build_passthrough_tcs(&tes, "main", None, &key)));
        let key = TcsKey {
            output_vertices: 33,
            ..KEY
        };
        assert!(err(build_passthrough_tcs(&tes, "main", None, &key)));
        let key = TcsKey {
            push_constant_offset: 2,
            ..KEY
        };
        assert!(err(build_passthrough_tcs(&tes, "main", None, &key)));
        assert!(matches!(
            build_passthrough_tcs(&tes[..3], "main", None, &KEY),
            Err(PassError::Parse(_))
        ));
    }

    /// The `[name]` sections of a scene file.
    fn scene_sections(text: &str) -> HashMap<String, String> {
        let mut sections = HashMap::new();
        let mut current: Option<String> = None;
        for line in text.lines() {
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                current = Some(name.to_string());
                sections.insert(name.to_string(), String::new());
            } else if let Some(name) = &current {
                let body = sections.get_mut(name).unwrap();
                body.push_str(line);
                body.push('\n');
            }
        }
        sections
    }

    /// Compiles GLSL as the runner does for GL sources (relaxed rules, automatic
    /// Locations; both stages declare their varyings in the same order).
    fn compile_glsl(source: &str, stage: &str) -> Vec<u32> {
        let input = scratch(&format!("scene.{stage}"));
        let output = scratch(&format!("scene-{stage}.spv"));
        std::fs::write(&input, source).unwrap();
        let result = Command::new("glslangValidator")
            .args(["-V", "-R", "--aml", "-o"])
            .arg(&output)
            .arg(&input)
            .output()
            .expect("glslangValidator runs");
        assert!(
            result.status.success(),
            "{}",
            String::from_utf8_lossy(&result.stdout)
        );
        let w = words(&std::fs::read(&output).unwrap());
        std::fs::remove_file(input).ok();
        std::fs::remove_file(output).ok();
        w
    }

    /// Every TES-without-TCS scene gets a TCS that validates and links between its VS and
    /// TES, for the patch sizes the scene draws with.
    #[test]
    fn every_tess_scene_gets_a_linking_tcs() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenes");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !(name.starts_with("tess_") && name.ends_with(".shader_test")) {
                continue;
            }
            let sections = scene_sections(&std::fs::read_to_string(&path).unwrap());
            assert!(
                !sections.contains_key("tessellation control shader"),
                "{name}"
            );
            let vs = compile_glsl(&sections["vertex shader"], "vert");
            let tes = compile_glsl(&sections["tessellation evaluation shader"], "tese");
            let sizes: Vec<u32> = std::iter::once(3)
                .chain(sections["test"].lines().filter_map(|l| {
                    l.strip_prefix("patch parameter vertices ")?
                        .trim()
                        .parse()
                        .ok()
                }))
                .collect();
            for n in sizes {
                let key = TcsKey {
                    output_vertices: n,
                    ..KEY
                };
                let tcs = build_passthrough_tcs(&tes, "main", Some((&vs, "main")), &key)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                validate(&tcs, "vulkan1.0");
                let m = Module::parse(&tcs).unwrap();
                let (vs_m, tes_m) = (Module::parse(&vs).unwrap(), Module::parse(&tes).unwrap());
                assert_links(&vs_m, &m, &tes_m);
            }
            seen += 1;
        }
        assert!(seen >= 10, "only {seen} tess scenes found");
    }

    /// The layer feeds application modules to the generator: a malformed TES (here every
    /// word of valid ones overwritten in turn) must give an error or a module, never a
    /// panic or a stack overflow (a type made to contain itself).
    #[test]
    fn corrupted_modules_never_panic() {
        let vs = compile("clip.vert", "vulkan1.0");
        for name in [
            "varyings.tese",
            "clip.tese",
            "patch_block.tese",
            "half.tese",
        ] {
            let tes = compile(name, "vulkan1.0");
            for i in 5..tes.len() {
                for value in [0, 1, 0x10000, tes[i] & 0xffff, tes[i] ^ 1, u32::MAX] {
                    let mut corrupted = tes.clone();
                    corrupted[i] = value;
                    let result = std::panic::catch_unwind(|| {
                        build_passthrough_tcs(&corrupted, "main", Some((&vs, "main")), &KEY)
                    });
                    assert!(result.is_ok(), "{name}: word {i} = {value:#x} panics");
                }
            }
        }
    }
}

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

use super::error::PassError;
use super::module::{push_inst, Editor, Module, Name, Section, Type, MAGIC};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};
use std::collections::HashMap;

/// Size of the push-constant block the generated TCS reads: `inner[2]` then `outer[4]` floats.
pub const LEVELS_PUSH_CONSTANT_SIZE: u32 = 24;

/// What the generated TCS depends on besides the TES.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TcsKey {
    /// `OutputVertices`: the pipeline's `patchControlPoints` (for
    /// [`TcsKey::any_patch_size`], the most a draw may set).
    pub output_vertices: u32,
    /// Size of the per-vertex input arrays (`maxTessellationPatchSize`).
    pub max_patch_size: u32,
    /// Offset of the reserved push-constant range.
    pub push_constant_offset: u32,
    /// The patch size is dynamic state (`VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT`): one
    /// TCS for every count, with `OutputVertices` = `output_vertices` (the most a draw may
    /// set). Invocation `i` copies input vertex `min(i, gl_PatchVerticesIn - 1)`, so the
    /// output patch holds the input's vertices, then copies of its last one. The TES sees
    /// `output_vertices` as its patch size, so a TES that reads `gl_PatchVerticesIn` is
    /// refused.
    pub any_patch_size: bool,
}

/// Builds a TCS for `tes` (entry point `tes_entry`). `vertex` is the pipeline's vertex
/// stage (module and entry point), used to mirror `gl_PerVertex` array sizes.
pub fn build_passthrough_tcs(
    tes: &[u32],
    tes_entry: &str,
    vertex: Option<(&[u32], &str)>,
    key: &TcsKey,
) -> Result<Vec<u32>, PassError> {
    let dynamic_patch_size = key.any_patch_size;
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
    if dynamic_patch_size {
        let reads_patch_size = tes_ep.interface.iter().any(|&v| {
            tes_module.decoration(v, Decoration::BuiltIn)
                == Some(&[BuiltIn::PatchVertices as u32][..])
        });
        if reads_patch_size {
            return Err(unsupported(
                "a TES that reads gl_PatchVerticesIn with a dynamic patch size".into(),
            ));
        }
    }

    let head = module_head(&tes_module);
    let head = Module::parse(&head)?;
    let mut t = TcsWriter::new(Editor::new(&head));
    if let Some((vs, _)) = &vs_module {
        for cap in [Capability::ClipDistance, Capability::CullDistance] {
            if vs.declares_capability(cap) {
                t.e.add_capability(cap);
            }
        }
    }
    let vs_per_vertex = vs_module
        .as_ref()
        .and_then(|(vs, entry)| Some((vs, output_per_vertex_block(vs, entry)?)));

    let indices = t.vertex_indices(dynamic_patch_size);
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
            t.zeroed_patch_output(&tes_module, var, pointee)?;
            continue;
        }
        let Some(Type::Array { element, .. }) = tes_module.type_of(pointee) else {
            return Err(unsupported(format!(
                "per-vertex TES input %{var} is not an array"
            )));
        };
        if tes_module.is_builtin_block(*element) {
            t.per_vertex_block(&tes_module, *element, vs_per_vertex, key, indices)?;
        } else {
            t.per_vertex_copy(&tes_module, var, *element, key, indices)?;
        }
    }
    t.levels(key.push_constant_offset);
    t.finish(&tes_module, key.output_vertices)
}

fn unsupported(what: String) -> PassError {
    PassError::Unsupported(what)
}

/// The sections of the TCS that come from the TES: its SPIR-V version, `Shader`,
/// `Tessellation` and the TES's capabilities (the TCS's types are copies of the TES's, so
/// those suffice, and the pipeline already enabled their features), its extensions and its
/// memory model. The [`Editor`] adds everything else to this.
fn module_head(tes: &Module<'_>) -> Vec<u32> {
    let mut words = vec![MAGIC, tes.words[1], 0, 1, 0];
    let mut capabilities = vec![Capability::Shader as u32, Capability::Tessellation as u32];
    let mut extensions = Vec::new();
    let mut memory_model = None;
    for inst in &tes.insts[..tes.section_start(Section::EntryPoint)] {
        match inst.op() {
            Some(Op::Capability) if !capabilities.contains(&inst.operand(0)) => {
                capabilities.push(inst.operand(0))
            }
            Some(Op::Extension) => extensions.extend_from_slice(inst.words),
            Some(Op::MemoryModel) => memory_model = Some(inst.words),
            _ => {}
        }
    }
    for cap in capabilities {
        push_inst(&mut words, Op::Capability, &[cap]);
    }
    words.extend_from_slice(&extensions);
    match memory_model {
        Some(inst) => words.extend_from_slice(inst),
        None => push_inst(
            &mut words,
            Op::MemoryModel,
            &[
                spirv::AddressingModel::Logical as u32,
                spirv::MemoryModel::GLSL450 as u32,
            ],
        ),
    }
    words
}

/// The struct type of the VS's output `gl_PerVertex` block, if it has one.
fn output_per_vertex_block(vs: &Module<'_>, entry: &str) -> Option<u32> {
    let ep = vs.entry_point(entry, ExecutionModel::Vertex)?;
    ep.interface.iter().find_map(|&v| match vs.variable(v) {
        Some((StorageClass::Output, pointee)) if vs.is_builtin_block(pointee) => Some(pointee),
        _ => None,
    })
}

/// More clip or cull distances than any device has (`maxClipDistances` and
/// `maxCullDistances` are 8 on common hardware): a module declaring more is not one a driver
/// accepts, and copying them element by element would not end.
const MAX_DISTANCES: u32 = 64;

/// The most literal words of an array-length constant the TCS copies; a wider one is taken
/// for a malformed module (a 64-bit length has two).
const MAX_LENGTH_WORDS: usize = 3;

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

/// The TCS being written: an [`Editor`] over its [`module_head`], the body of `main` and
/// what the entry point and the type copies need besides.
struct TcsWriter<'m, 'a> {
    e: Editor<'m, 'a>,
    body: Vec<u32>,
    /// Input and Output variables (every global for SPIR-V ≥ 1.4).
    interface: Vec<u32>,
    push_constant: Option<u32>,
    /// Types already copied from a source module.
    copied: HashMap<(Source, u32), u32>,
}

impl<'m, 'a> TcsWriter<'m, 'a> {
    fn new(mut e: Editor<'m, 'a>) -> Self {
        // What a TES with a handful of varyings needs; more grows as it must.
        for (section, words) in [
            (Section::Debug, 256),
            (Section::Annotation, 256),
            (Section::Global, 512),
        ] {
            e.reserve(section, words);
        }
        TcsWriter {
            e,
            body: Vec::with_capacity(256),
            interface: Vec::new(),
            push_constant: None,
            copied: HashMap::with_capacity(32),
        }
    }

    /// A global variable that is part of the entry point's interface.
    fn variable(&mut self, storage: StorageClass, pointee: u32, name: &str) -> u32 {
        let id = self.e.add_variable(storage, pointee);
        self.interface.push(id);
        if !name.is_empty() {
            self.e.name(id, name);
        }
        id
    }

    /// An `Input` variable of `ty` decorated as `builtin`.
    fn builtin_input(&mut self, ty: u32, name: &str, builtin: BuiltIn) -> u32 {
        let var = self.variable(StorageClass::Input, ty, name);
        self.e.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
        var
    }

    /// Loads `gl_InvocationID`; returns `(source, invocation_id)`: the input vertex this
    /// invocation copies and the output vertex it writes. With a dynamic patch size the
    /// source is `min(gl_InvocationID, gl_PatchVerticesIn - 1)`.
    fn vertex_indices(&mut self, dynamic_patch_size: bool) -> (u32, u32) {
        let int = self.e.type_int(32, true);
        let invocation = self.builtin_input(int, "gl_InvocationID", BuiltIn::InvocationId);
        let invocation_id = self.e.load(&mut self.body, int, invocation);
        if !dynamic_patch_size {
            return (invocation_id, invocation_id);
        }
        let patch_vertices = self.builtin_input(int, "gl_PatchVerticesIn", BuiltIn::PatchVertices);
        let e = &mut self.e;
        let code = &mut self.body;
        let count = e.load(code, int, patch_vertices);
        let one = e.constant_i32(1);
        let last = e.i_sub(code, int, count, one);
        let boolean = e.type_bool();
        let before_last = e.s_less_than(code, boolean, invocation_id, last);
        let source = e.select(code, int, before_last, invocation_id, last);
        (source, invocation_id)
    }

    /// Copies type `ty` of module `m` (and the types it is built from) into the TCS.
    fn copy_type(&mut self, m: &Module<'_>, src: Source, ty: u32) -> Result<u32, PassError> {
        self.copy_type_nested(m, src, ty, 0)
    }

    /// [`TcsWriter::copy_type`] at nesting `depth`: a malformed module may declare a type
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
            op @ (Op::TypeBool | Op::TypeInt | Op::TypeFloat) => self.e.type_with_operands(op, ops),
            op @ (Op::TypeVector | Op::TypeMatrix) => {
                let component = self.copy_type_nested(m, src, ops[0], depth + 1)?;
                self.e.type_with_operands(op, &[component, ops[1]])
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
                if value.is_empty() || value.len() > MAX_LENGTH_WORDS {
                    return Err(bad());
                }
                let length_ty = self.copy_type_nested(m, src, length_inst.operand(0), depth + 1)?;
                let length = self.e.constant_words(length_ty, value);
                self.e.type_array_of_length(element, length)
            }
            Op::TypeStruct => {
                let members = ops
                    .iter()
                    .map(|&member| self.copy_type_nested(m, src, member, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                let id = self.e.type_struct(&members);
                self.copy_decorations(m, ty, id);
                for (member, d, lits) in m.member_decorations.get(&ty).into_iter().flatten() {
                    if copied_decoration(*d) {
                        self.e.member_decorate(id, *member, *d, lits);
                    }
                }
                if let Some(name) = m.names.get(&ty) {
                    self.e.name(id, &name.decode());
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
                self.e.decorate(to, *d, lits);
            }
        }
    }

    /// `*dst = *src` for a value of type `ty`: `src` and `dst` are access chains from
    /// `input` and `output` through `src_indices` and `dst_indices`.
    fn copy_element(
        &mut self,
        ty: u32,
        (input, src_indices): (u32, &[u32]),
        (output, dst_indices): (u32, &[u32]),
    ) {
        let (e, code) = (&mut self.e, &mut self.body);
        let src = e.access_chain_to(code, StorageClass::Input, ty, input, src_indices);
        let value = e.load(code, ty, src);
        let dst = e.access_chain_to(code, StorageClass::Output, ty, output, dst_indices);
        e.store(code, dst, value);
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
        self.copy_element(element, (input, &[source_id]), (output, &[invocation_id]));
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
            let Some(builtin) = tes.member_builtin(tes_block, i as u32) else {
                continue;
            };
            let Some(j) = (0..in_members.len() as u32)
                .find(|&j| in_module.member_builtin(in_block, j) == Some(builtin))
            else {
                continue; // The VS does not write it: GL leaves it undefined too.
            };
            let out_member_ty = self.copy_type(tes, Source::Tes, out_member)?;
            let in_member_ty = self.copy_type(in_module, in_source, in_members[j as usize])?;
            let in_index = self.e.constant_i32(j as i32);
            let out_index = self.e.constant_i32(i as i32);
            if in_member_ty == out_member_ty {
                self.copy_element(
                    in_member_ty,
                    (input, &[source_id, in_index]),
                    (output, &[invocation_id, out_index]),
                );
                continue;
            }
            // Clip/cull distance arrays sized differently in the VS and the TES: copy the
            // elements both have.
            let (Some((_, in_len)), Some((_, out_len))) = (
                in_module.array_length(in_members[j as usize]),
                tes.array_length(out_member),
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
            let float = self.e.type_float(32);
            for k in 0..in_len.min(out_len) {
                let k = self.e.constant_i32(k as i32);
                self.copy_element(
                    float,
                    (input, &[source_id, in_index, k]),
                    (output, &[invocation_id, out_index, k]),
                );
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
        let name = tes.names.get(&var).map(Name::decode).unwrap_or_default();
        let output = self.variable(StorageClass::Output, ty, &name);
        self.copy_decorations(tes, var, output);
        let zero = self.e.constant_null(ty);
        self.e.store(&mut self.body, output, zero);
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
        let in_array = self.e.type_array(in_element, key.max_patch_size);
        let input = self.variable(StorageClass::Input, in_array, in_name);
        let out_array = self.e.type_array(out_element, key.output_vertices);
        let output = self.variable(StorageClass::Output, out_array, out_name);
        (input, output)
    }

    /// Writes the six levels from the push-constant block `{ float inner[2]; float
    /// outer[4]; }` at `offset`.
    fn levels(&mut self, offset: u32) {
        let e = &mut self.e;
        let float = e.type_float(32);
        // The block's arrays carry ArrayStride, so they are their own types, not the
        // undecorated arrays of the built-ins.
        let block_members = [2, 4].map(|len| {
            let array = e.type_array_decorated(float, len);
            e.decorate(array, Decoration::ArrayStride, &[4]);
            array
        });
        let block = e.type_struct(&block_members);
        e.decorate(block, Decoration::Block, &[]);
        for (member, member_offset) in [(0u32, offset), (1, offset + 8)] {
            e.member_decorate(block, member, Decoration::Offset, &[member_offset]);
        }
        e.name(block, "GlsemTessLevels");
        let levels = e.add_variable(StorageClass::PushConstant, block);
        e.name(levels, "glsem_tess_levels");
        self.push_constant = Some(levels);

        for (member, builtin, count, name) in [
            (0, BuiltIn::TessLevelInner, 2, "gl_TessLevelInner"),
            (1, BuiltIn::TessLevelOuter, 4, "gl_TessLevelOuter"),
        ] {
            let array = self.e.type_array(float, count);
            let output = self.variable(StorageClass::Output, array, name);
            let (e, code) = (&mut self.e, &mut self.body);
            e.decorate(output, Decoration::Patch, &[]);
            e.decorate(output, Decoration::BuiltIn, &[builtin as u32]);
            let member = e.constant_i32(member);
            for k in 0..count {
                let k = e.constant_i32(k as i32);
                let src = e.access_chain_to(
                    code,
                    StorageClass::PushConstant,
                    float,
                    levels,
                    &[member, k],
                );
                let value = e.load(code, float, src);
                let dst = e.access_chain_to(code, StorageClass::Output, float, output, &[k]);
                e.store(code, dst, value);
            }
        }
    }

    /// Adds the entry point and `main`: SPIR-V version of the TES, interface per that
    /// version.
    fn finish(mut self, tes: &Module<'_>, output_vertices: u32) -> Result<Vec<u32>, PassError> {
        let e = &mut self.e;
        let void = e.type_void();
        let fn_ty = e.type_function(void, &[]);
        let main = e.new_id();
        let label = e.new_id();
        e.name(main, "main");
        if tes.version() >= super::module::INTERFACE_LISTS_ALL_GLOBALS {
            self.interface.extend(self.push_constant);
        }
        let mut ep = vec![ExecutionModel::TessellationControl as u32, main];
        ep.extend(super::module::encode_string("main"));
        ep.extend_from_slice(&self.interface);
        e.append(Section::EntryPoint, Op::EntryPoint, &ep);
        e.append(
            Section::ExecutionMode,
            Op::ExecutionMode,
            &[main, ExecutionMode::OutputVertices as u32, output_vertices],
        );
        e.reserve(Section::Function, self.body.len() + 16);
        e.append(Section::Function, Op::Function, &[void, main, 0, fn_ty]);
        e.append(Section::Function, Op::Label, &[label]);
        e.append_words(Section::Function, &self.body);
        e.append(Section::Function, Op::Return, &[]);
        e.append(Section::Function, Op::FunctionEnd, &[]);
        self.e.finish()
    }
}

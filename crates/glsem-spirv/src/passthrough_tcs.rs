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

use super::error::{PassError, PassResult};
use super::layout::location_end;
use super::module::{Editor, Module, Name, Type};
use super::rule::{Rule, Semantic, SplitInterface, Stage};
use super::stage_writer::{
    interface_decoration, module_head, output_per_vertex_block, Source, StageWriter,
};
use spirv::{BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

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
    /// output patch holds the input's vertices, then copies of its last one.
    pub any_patch_size: bool,
    /// With [`TcsKey::any_patch_size`], a TES that reads `gl_PatchVerticesIn` would see
    /// `output_vertices`: the TCS writes the draw's patch size to a `patch out int` at this
    /// Location, which the TES reads instead ([`ReadPatchSize`]).
    pub patch_size_location: Option<u32>,
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
    if dynamic_patch_size && key.patch_size_location.is_none() {
        let reads_patch_size = tes_module
            .builtin_variables(tes_ep, StorageClass::Input, BuiltIn::PatchVertices)
            .next()
            .is_some();
        if reads_patch_size {
            return Err(unsupported(
                "a TES that reads gl_PatchVerticesIn with a dynamic patch size, without a \
                 Location to pass the patch size at"
                    .into(),
            ));
        }
    }

    let head = module_head(&tes_module, Capability::Tessellation);
    let head = Module::parse(&head)?;
    let mut t = TcsWriter {
        w: StageWriter::new(Editor::new(&head)),
        push_constant: None,
    };
    if let Some((vs, _)) = &vs_module {
        for cap in [Capability::ClipDistance, Capability::CullDistance] {
            if vs.declares_capability(cap) {
                t.w.e.add_capability(cap);
            }
        }
    }
    let vs_per_vertex = vs_module.as_ref().and_then(|(vs, entry)| {
        Some((
            vs,
            output_per_vertex_block(vs, entry, ExecutionModel::Vertex)?,
        ))
    });

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
    if let Some(location) = key.patch_size_location.filter(|_| dynamic_patch_size) {
        t.patch_size_output(location);
    }
    t.levels(key.push_constant_offset);
    let globals: Vec<u32> = t.push_constant.into_iter().collect();
    t.w.finish(
        &tes_module,
        ExecutionModel::TessellationControl,
        &[(ExecutionMode::OutputVertices, &[key.output_vertices])],
        &globals,
    )
}

fn unsupported(what: String) -> PassError {
    PassError::Unsupported(what)
}

/// More clip or cull distances than any device has (`maxClipDistances` and
/// `maxCullDistances` are 8 on common hardware): a module declaring more is not one a driver
/// accepts, and copying them element by element would not end.
const MAX_DISTANCES: u32 = 64;

/// The TCS being written: a [`StageWriter`] over the TES's [`module_head`] and the
/// push-constant block of the levels.
struct TcsWriter<'m, 'a> {
    w: StageWriter<'m, 'a>,
    push_constant: Option<u32>,
}

impl<'m, 'a> TcsWriter<'m, 'a> {
    /// Loads `gl_InvocationID`; returns `(source, invocation_id)`: the input vertex this
    /// invocation copies and the output vertex it writes. With a dynamic patch size the
    /// source is `min(gl_InvocationID, gl_PatchVerticesIn - 1)`.
    fn vertex_indices(&mut self, dynamic_patch_size: bool) -> (u32, u32) {
        let int = self.w.e.type_int(32, true);
        let invocation_id =
            self.w
                .load_builtin_input(int, "gl_InvocationID", BuiltIn::InvocationId);
        if !dynamic_patch_size {
            return (invocation_id, invocation_id);
        }
        let count = self
            .w
            .load_builtin_input(int, "gl_PatchVerticesIn", BuiltIn::PatchVertices);
        let e = &mut self.w.e;
        let code = &mut self.w.body;
        let one = e.constant_i32(1);
        let last = e.i_sub(code, int, count, one);
        let boolean = e.type_bool();
        let before_last = e.s_less_than(code, boolean, invocation_id, last);
        let source = e.select(code, int, before_last, invocation_id, last);
        (source, invocation_id)
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
        let element = self
            .w
            .copy_type(tes, Source::TessEval, element, interface_decoration)?;
        // The output keeps the TES's name; the input gets a suffix (unnamed stays unnamed).
        let name = tes.names.get(&var).map(Name::decode).unwrap_or_default();
        let in_name = if name.is_empty() {
            String::new()
        } else {
            format!("{name}_in")
        };
        let (input, output) = self.arrayed_pair(element, element, key, (&in_name, &name));
        self.w
            .copy_decorations(tes, var, input, interface_decoration);
        self.w
            .copy_decorations(tes, var, output, interface_decoration);
        self.w
            .copy_element(element, (input, &[source_id]), (output, &[invocation_id]));
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
            None => (tes, Source::TessEval, tes_block),
        };
        let out_ty = self
            .w
            .copy_type(tes, Source::TessEval, tes_block, interface_decoration)?;
        let in_ty = self
            .w
            .copy_type(in_module, in_source, in_block, interface_decoration)?;
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
            let out_member_ty =
                self.w
                    .copy_type(tes, Source::TessEval, out_member, interface_decoration)?;
            let in_member_ty = self.w.copy_type(
                in_module,
                in_source,
                in_members[j as usize],
                interface_decoration,
            )?;
            let in_index = self.w.e.constant_i32(j as i32);
            let out_index = self.w.e.constant_i32(i as i32);
            if in_member_ty == out_member_ty {
                self.w.copy_element(
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
            let float = self.w.e.type_float(32);
            for k in 0..in_len.min(out_len) {
                let k = self.w.e.constant_i32(k as i32);
                self.w.copy_element(
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
        let ty = self
            .w
            .copy_type(tes, Source::TessEval, pointee, interface_decoration)?;
        let name = tes.names.get(&var).map(Name::decode).unwrap_or_default();
        let output = self.w.variable(StorageClass::Output, ty, &name);
        self.w
            .copy_decorations(tes, var, output, interface_decoration);
        let zero = self.w.e.constant_null(ty);
        self.w.e.store(&mut self.w.body, output, zero);
        Ok(())
    }

    /// A `patch out int` at `location` written with `gl_PatchVerticesIn`, the draw's patch
    /// size, for the TES to read in place of its own ([`ReadPatchSize`]).
    fn patch_size_output(&mut self, location: u32) {
        let int = self.w.e.type_int(32, true);
        let output = self
            .w
            .variable(StorageClass::Output, int, "glsem_PatchVerticesIn");
        self.w.e.decorate(output, Decoration::Patch, &[]);
        self.w.e.decorate(output, Decoration::Location, &[location]);
        let count = self
            .w
            .load_builtin_input(int, "gl_PatchVerticesIn", BuiltIn::PatchVertices);
        self.w.e.store(&mut self.w.body, output, count);
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
        let in_array = self.w.e.type_array(in_element, key.max_patch_size);
        let input = self.w.variable(StorageClass::Input, in_array, in_name);
        let out_array = self.w.e.type_array(out_element, key.output_vertices);
        let output = self.w.variable(StorageClass::Output, out_array, out_name);
        (input, output)
    }

    /// Writes the six levels from the push-constant block `{ float inner[2]; float
    /// outer[4]; }` at `offset`.
    fn levels(&mut self, offset: u32) {
        let e = &mut self.w.e;
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
            let array = self.w.e.type_array(float, count);
            let output = self.w.variable(StorageClass::Output, array, name);
            let (e, code) = (&mut self.w.e, &mut self.w.body);
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
}

/// The step: a TES without TCS; the layer generates the passthrough TCS
/// ([`build_passthrough_tcs`]) from what the pipeline's state says.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GenerateTcs;

impl Rule for GenerateTcs {
    const SEMANTIC: Semantic = Semantic::PassthroughTcs;
    const NOTE: &'static str = "passthrough tessellation control shader generated";
}

/// Where a TES reads the patch size under a dynamic patch size: the first Location past
/// every input it declares (per-vertex and per-patch alike), for a `patch in int` the
/// generated TCS writes. `None`: the TES does not read `gl_PatchVerticesIn`.
pub fn patch_size_location(tes: &[u32], entry: &str) -> Result<Option<u32>, PassError> {
    let m = Module::parse(tes)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::TessellationEvaluation) else {
        return Ok(None);
    };
    let reads = m
        .builtin_variables(ep, StorageClass::Input, BuiltIn::PatchVertices)
        .next()
        .is_some();
    if !reads {
        return Ok(None);
    }
    let end = ep
        .interface
        .iter()
        .filter_map(|&id| {
            let (StorageClass::Input, pointee) = m.variable(id)? else {
                return None;
            };
            if m.has_decoration(id, Decoration::BuiltIn) {
                return None;
            }
            let ty = match m.type_of(pointee) {
                Some(Type::Array { element, .. }) if !m.has_decoration(id, Decoration::Patch) => {
                    *element
                }
                _ => pointee,
            };
            Some(location_end(&m, id, ty))
        })
        .max()
        .unwrap_or(0);
    Ok(Some(end))
}

/// Makes the TES's `gl_PatchVerticesIn` a `patch in int` at `location`, which the generated
/// TCS writes with the draw's patch size. `Ok(None)` when the TES does not read it.
pub fn read_patch_size_from(tes: &[u32], entry: &str, location: u32) -> PassResult {
    let m = Module::parse(tes)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::TessellationEvaluation) else {
        return Ok(None);
    };
    let Some((var, _)) = m
        .builtin_variables(ep, StorageClass::Input, BuiltIn::PatchVertices)
        .next()
    else {
        return Ok(None);
    };
    let decoration = m.insts.iter().position(|i| {
        i.op() == Some(Op::Decorate)
            && i.operands().len() >= 3
            && i.operand(0) == var
            && i.operand(1) == Decoration::BuiltIn as u32
            && i.operand(2) == BuiltIn::PatchVertices as u32
    });
    let Some(decoration) = decoration else {
        return Ok(None);
    };
    let mut e = Editor::new(&m);
    e.redecorate(decoration, var, Decoration::Location, &[location]);
    if !m.has_decoration(var, Decoration::Patch) {
        e.decorate(var, Decoration::Patch, &[]);
    }
    Ok(Some(e.finish()?))
}

/// The step beside [`GenerateTcs`] under a dynamic patch size: the TES reads the patch size
/// the generated TCS passes at `location` ([`read_patch_size_from`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadPatchSize {
    pub location: u32,
}

impl Rule for ReadPatchSize {
    const SEMANTIC: Semantic = Semantic::PassthroughTcs;
    const STAGE: Option<Stage> = Some(Stage::TessEval);
    const OWN_NAME: Option<&'static str> = Some("patch_size");

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "the tessellation evaluation shader reads gl_PatchVerticesIn from the generated \
             TCS (Location {}): the patch size is dynamic",
            self.location
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        read_patch_size_from(words, entry, self.location)
    }
}

//! XFB struct splitting (README, "XFB struct splitting").
//!
//! GL captures a struct output with `xfb_offset` member by member; the pass splits every
//! captured (`XfbBuffer` + `Offset`) output whose type is a struct, a matrix or an array of
//! those into one output per leaf (scalar, vector, array of those, matrix column) with its
//! own Location and Offset (see [`super::layout`]), shadowing the aggregate in a Private
//! variable flushed before every return (vertex, tessellation evaluation) or vertex
//! emission (geometry). The fragment shader's matching input is split the same way, its
//! shadow filled at entry.
//!
//! The shadow keeps the original variable's id and type, only in the Private storage
//! class, so every use of the struct (access chains of any depth and with dynamic indices,
//! whole-struct loads and stores, `OpCopyMemory`) keeps working unchanged; only the result
//! types of the pointers derived from it change storage class. Matrices split into column
//! vectors too: that is how GL captures them, and NVIDIA garbles a captured `dmat3x4`.

use std::collections::{HashMap, HashSet};

use spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::error::{PassError, PassResult};
use super::exits::exits;
use super::layout::{split_leaves, Shape};
use super::module::{
    decode_string, entry_point_with_interface, Editor, EntryPoint, Module, Name, Section, Type,
};
pub use super::rule::SplitInterface;
use super::rule::{Rule, Semantic, Stage, StepOutput, StepResult};

/// Splits the captured struct (and matrix) outputs of `entry`, the entry point of that
/// name with the `Xfb` execution mode. `Ok(None)` when it has none.
pub fn split_xfb_outputs(
    words: &[u32],
    entry: &str,
) -> Result<Option<(Vec<u32>, SplitInterface)>, PassError> {
    split_outputs(words, entry, true)
}

/// Splits every struct and matrix output of the vertex, tessellation evaluation or
/// geometry entry point `entry` that is not a block or a built-in, captured or not, as
/// [`split_xfb_outputs`] splits the captured ones: for a last pre-rasterization stage whose
/// fragment shader is elsewhere (a graphics pipeline library, a shader object), which
/// splits every such input by the same rule ([`split_struct_inputs`]).
pub fn split_struct_outputs(
    words: &[u32],
    entry: &str,
) -> Result<Option<(Vec<u32>, SplitInterface)>, PassError> {
    split_outputs(words, entry, false)
}

fn split_outputs(
    words: &[u32],
    entry: &str,
    captured_only: bool,
) -> Result<Option<(Vec<u32>, SplitInterface)>, PassError> {
    let m = Module::parse(words)?;
    let pre_rasterization = |e: &&EntryPoint| {
        matches!(
            e.model,
            ExecutionModel::Vertex
                | ExecutionModel::TessellationEvaluation
                | ExecutionModel::Geometry
        )
    };
    let ep = if captured_only {
        m.entry_points
            .iter()
            .find(|e| e.name == entry && m.has_execution_mode(e.function, ExecutionMode::Xfb))
    } else {
        m.entry_points
            .iter()
            .filter(pre_rasterization)
            .find(|e| e.name == entry)
    };
    let Some(ep) = ep else {
        return Ok(None);
    };
    let vars = splittable_interface(&m, ep, StorageClass::Output, |id| {
        !captured_only
            || m.has_decoration(id, Decoration::XfbBuffer)
                // Without an Offset the variable is not captured: nothing to fix.
                && m.has_decoration(id, Decoration::Offset)
    });
    if vars.is_empty() {
        return Ok(None);
    }
    if !pre_rasterization(&ep) {
        return Err(PassError::Unsupported(format!(
            "Xfb execution mode on a {:?} entry point",
            ep.model
        )));
    }

    let mut e = Editor::new(&m);
    let splits = split_into_shadows(&m, &mut e, ep, &vars, StorageClass::Output)?;

    // A geometry shader's vertex takes the outputs' values when it is emitted; an emission
    // for one stream captures only the outputs of that stream. Other stages hand their
    // outputs on at returns.
    for exit in exits(&m, ep)? {
        let mut code = Vec::new();
        for split in splits.iter().filter(|s| {
            exit.stream.is_none_or(|n| n == s.stream) || ep.model != ExecutionModel::Geometry
        }) {
            split.flush(&mut e, &mut code);
        }
        e.insert_before(exit.index, &code);
    }

    let interface = SplitInterface {
        locations: splits.iter().map(|s| s.location).collect(),
    };
    Ok(Some((e.finish()?, interface)))
}

/// Splits the struct (and matrix) inputs of `entry` at the Locations in `split`, as
/// [`split_xfb_outputs`] split the previous stage's outputs. `entry` is the fragment entry
/// point of that name when the module has several.
pub fn split_matching_inputs(words: &[u32], entry: &str, split: &SplitInterface) -> PassResult {
    if split.locations.is_empty() {
        return Ok(None);
    }
    split_inputs(words, entry, |location| split.locations.contains(&location))
}

/// Splits every struct and matrix input of the fragment entry point `entry` that is not a
/// block or a built-in, without seeing the previous stage: for a fragment shader in a
/// graphics pipeline library or a shader object. The leaves' Locations and types are a
/// pure function of the aggregate's type and Location, so they are the ones
/// [`split_xfb_outputs`] gives the matching output of the previous stage, wherever it was
/// split; an output left whole still matches the leaves Location by Location.
pub fn split_struct_inputs(words: &[u32], entry: &str) -> PassResult {
    split_inputs(words, entry, |_| true)
}

fn split_inputs(words: &[u32], entry: &str, select: impl Fn(u32) -> bool) -> PassResult {
    let m = Module::parse(words)?;
    let named = |e: &&EntryPoint| e.name == entry;
    let Some(ep) = (m.entry_points.iter().filter(named))
        .find(|e| e.model == ExecutionModel::Fragment)
        .or_else(|| m.entry_points.iter().find(named))
    else {
        return Ok(None);
    };
    let vars = splittable_interface(&m, ep, StorageClass::Input, |id| {
        m.decoration(id, Decoration::Location)
            .is_some_and(|l| select(l[0]))
    });
    if vars.is_empty() {
        return Ok(None);
    }
    if ep.model != ExecutionModel::Fragment {
        // Inputs of the other stages are per-vertex arrays; splitting those would need
        // arrayed leaves. XFB only captures from the last pre-rasterization stage, whose
        // next stage is the fragment shader.
        return Err(PassError::Unsupported(format!(
            "splitting struct inputs of a {:?} entry point",
            ep.model
        )));
    }

    let mut e = Editor::new(&m);
    let splits = split_into_shadows(&m, &mut e, ep, &vars, StorageClass::Input)?;
    let start = m
        .function_body_start(ep.function)
        .ok_or(PassError::MissingFunction {
            function: ep.function,
        })?;
    let mut code = Vec::new();
    for split in &splits {
        split.fill(&mut e, &mut code);
    }
    e.insert_before(start, &code);
    Ok(Some(e.finish()?))
}

/// Decorations a leaf inherits from the aggregate variable and from the struct members on
/// its path.
const INHERITED: [Decoration; 6] = [
    Decoration::Flat,
    Decoration::NoPerspective,
    Decoration::Centroid,
    Decoration::Sample,
    Decoration::Invariant,
    Decoration::RelaxedPrecision,
];

/// Decorations of the aggregate variable that apply unchanged to every leaf.
const COPIED: [Decoration; 3] = [
    Decoration::XfbBuffer,
    Decoration::XfbStride,
    Decoration::Stream,
];

/// One aggregate interface variable and the variables it splits into.
struct Split {
    /// The aggregate variable; it becomes the Private shadow.
    var: u32,
    /// Its pointee type.
    ty: u32,
    /// Input or Output.
    storage: StorageClass,
    /// Its Location, the first of the leaves'.
    location: u32,
    /// Its `Stream` (0 when undecorated).
    stream: u32,
    leaves: Vec<LeafVar>,
}

/// A new interface variable holding one leaf of the aggregate.
struct LeafVar {
    id: u32,
    /// Value type of the leaf.
    ty: u32,
    /// Indices from the aggregate to the leaf.
    path: Vec<u32>,
    /// Private pointer to the leaf inside the shadow.
    shadow_ptr: u32,
    /// Constant ids indexing from the shadow to the leaf.
    indices: Vec<u32>,
}

impl Split {
    /// Declares the leaf variables of `var` (storage class `storage`) with their
    /// Locations, Offsets and inherited decorations.
    fn plan(
        m: &Module,
        e: &mut Editor,
        ep: &EntryPoint,
        var: u32,
        storage: StorageClass,
        member_names: &HashMap<(u32, u32), String>,
    ) -> Result<Split, PassError> {
        let unsupported =
            |what: &str| PassError::Unsupported(format!("{what} (variable %{var}, {storage:?})"));
        let (_, ty) = m
            .variable(var)
            .ok_or_else(|| unsupported("not a variable"))?;
        let location = m
            .decoration(var, Decoration::Location)
            .and_then(|l| l.first().copied())
            .ok_or_else(|| unsupported("no Location"))?;
        if m.entry_points
            .iter()
            .any(|other| other.index != ep.index && other.interface.contains(&var))
        {
            return Err(unsupported("shared by several entry points"));
        }
        let shape = Shape::of(m, ty).ok_or_else(|| unsupported("type without a layout"))?;
        if shape.widths().iter().any(|w| *w != 32 && *w != 64) {
            return Err(unsupported("components other than 32 or 64 bits"));
        }
        let offset = m.decoration(var, Decoration::Offset).map(|o| o[0]);
        let var_decorations: Vec<(Decoration, &[u32])> = m
            .decorations
            .get(&var)
            .into_iter()
            .flatten()
            .filter(|(d, _)| INHERITED.contains(d) || COPIED.contains(d))
            .cloned()
            .collect();
        let stream = m.decoration(var, Decoration::Stream).map_or(0, |s| s[0]);
        let base_name = m
            .names
            .get(&var)
            .map(Name::decode)
            .unwrap_or_else(|| format!("_{var}"));

        let mut leaves = Vec::new();
        for leaf in split_leaves(&shape, location, offset.unwrap_or(0)) {
            let mut decorations = var_decorations.clone();
            let mut name = base_name.clone();
            let mut leaf_ty = ty;
            for &index in &leaf.path {
                match m.type_of(leaf_ty) {
                    Some(Type::Struct { members }) => {
                        for (d, lits) in m.member_decorations_of(leaf_ty, index) {
                            if INHERITED.contains(&d) && !decorations.iter().any(|(x, _)| *x == d) {
                                decorations.push((d, lits));
                            }
                        }
                        match member_names.get(&(leaf_ty, index)) {
                            Some(member) => name = format!("{name}.{member}"),
                            None => name = format!("{name}.{index}"),
                        }
                        leaf_ty = members[index as usize];
                    }
                    Some(Type::Array { element, .. }) => {
                        name = format!("{name}[{index}]");
                        leaf_ty = *element;
                    }
                    Some(Type::Matrix { column, .. }) => {
                        name = format!("{name}[{index}]");
                        leaf_ty = *column;
                    }
                    _ => return Err(unsupported("path through a non-aggregate")),
                }
            }
            let id = e.add_variable(storage, leaf_ty);
            e.decorate(id, Decoration::Location, &[leaf.location]);
            if offset.is_some() {
                e.decorate(id, Decoration::Offset, &[leaf.offset]);
            }
            for (d, lits) in &decorations {
                e.decorate(id, *d, lits);
            }
            e.name(id, &name);
            let indices = leaf
                .path
                .iter()
                .map(|&i| e.constant_i32(i as i32))
                .collect();
            leaves.push(LeafVar {
                id,
                ty: leaf_ty,
                path: leaf.path,
                shadow_ptr: e.type_pointer(StorageClass::Private, leaf_ty),
                indices,
            });
        }
        Ok(Split {
            var,
            ty,
            storage,
            location,
            stream,
            leaves,
        })
    }

    /// Appends to `code` the copy of every leaf from the shadow to its output.
    fn flush(&self, e: &mut Editor, code: &mut Vec<u32>) {
        for leaf in &self.leaves {
            let ptr = self.leaf_pointer(e, leaf, code);
            let value = e.load(code, leaf.ty, ptr);
            e.store(code, leaf.id, value);
        }
    }

    /// Appends to `code` the copy of every leaf from its input into the shadow.
    fn fill(&self, e: &mut Editor, code: &mut Vec<u32>) {
        for leaf in &self.leaves {
            let ptr = self.leaf_pointer(e, leaf, code);
            let value = e.load(code, leaf.ty, leaf.id);
            e.store(code, ptr, value);
        }
    }

    fn leaf_pointer(&self, e: &mut Editor, leaf: &LeafVar, code: &mut Vec<u32>) -> u32 {
        e.access_chain(code, leaf.shadow_ptr, self.var, &leaf.indices)
    }
}

/// Turns every split variable into its Private shadow: the same id with a Private pointer
/// type and no interface decorations, every pointer derived from it retyped, and the
/// entry point's interface listing the leaves.
/// Plans the split of each of `vars` (of `storage`) into leaves and turns the variables into
/// their `Private` shadows; the caller copies between shadows and leaves where the values
/// pass.
fn split_into_shadows(
    m: &Module,
    e: &mut Editor,
    ep: &EntryPoint,
    vars: &[u32],
    storage: StorageClass,
) -> Result<Vec<Split>, PassError> {
    let names = member_names(m);
    let splits = vars
        .iter()
        .map(|&var| Split::plan(m, e, ep, var, storage, &names))
        .collect::<Result<Vec<_>, _>>()?;
    shadow(m, e, ep, &splits)?;
    Ok(splits)
}

/// Makes the split variables `Private` shadows: re-declared, their interface decorations
/// gone, the pointers derived from them retyped, and the entry point's interface listing
/// the leaves.
fn shadow(m: &Module, e: &mut Editor, ep: &EntryPoint, splits: &[Split]) -> Result<(), PassError> {
    let vars: HashSet<u32> = splits.iter().map(|s| s.var).collect();
    redeclare_private(m, e, splits, &vars)?;
    retype_derived_pointers(m, e, splits)?;
    // SPIR-V 1.4 lists every global the entry point uses, earlier versions only its
    // Input and Output variables.
    let mut interface = ep.interface.clone();
    if m.version() < (1, 4) {
        interface.retain(|id| !vars.contains(id));
    }
    interface.extend(splits.iter().flat_map(|s| s.leaves.iter().map(|l| l.id)));
    e.replace(
        ep.index,
        entry_point_with_interface(&m.insts.at(ep.index), &interface),
    );
    Ok(())
}

/// Each split variable re-declared `Private`, without the decorations of an interface.
fn redeclare_private(
    m: &Module,
    e: &mut Editor,
    splits: &[Split],
    vars: &HashSet<u32>,
) -> Result<(), PassError> {
    for split in splits {
        let index = m.globals[&split.var];
        let old = m.insts.at(index);
        // Re-declared at the end of the globals, after the Private pointer type it needs.
        let initializer = old.operands().get(3).copied();
        e.remove(index);
        e.redeclare_variable(split.var, StorageClass::Private, split.ty, initializer);
    }
    let annotations = m.section_start(Section::Annotation)..m.section_start(Section::Global);
    for i in annotations {
        let a = m.insts.at(i);
        match a.op() {
            // Location, XfbBuffer, Offset, interpolation: none belongs on a Private variable.
            Some(Op::Decorate) if vars.contains(&a.operand(0)) => e.remove(i),
            Some(Op::GroupDecorate) if a.operands()[1..].iter().any(|t| vars.contains(t)) => {
                return Err(PassError::Unsupported(
                    "decoration group on a split variable".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Retypes the pointers derived from the shadows. Definitions dominate uses and blocks are
/// ordered by dominance, so one forward walk sees every base before its uses.
fn retype_derived_pointers(m: &Module, e: &mut Editor, splits: &[Split]) -> Result<(), PassError> {
    let mut tracked: HashMap<u32, Derived> = splits
        .iter()
        .map(|s| {
            let derived = Derived {
                split: s,
                indices: Some(Vec::new()),
                pointee: s.ty,
            };
            (s.var, derived)
        })
        .collect();
    let mut retyped: HashMap<u32, u32> = HashMap::new();
    let glsl_std = glsl_std_450(m);
    for i in m.section_start(Section::Function)..m.insts.len() {
        let ins = m.insts.at(i);
        // Whether operands `from..to` (clamped to the instruction) name a tracked pointer.
        let uses = |from: usize, to: usize| {
            let ops = ins.operands();
            ops[from.min(ops.len())..to.min(ops.len())]
                .iter()
                .any(|id| tracked.contains_key(id))
        };
        let escapes = match ins.op() {
            Some(
                Op::AccessChain
                | Op::InBoundsAccessChain
                | Op::PtrAccessChain
                | Op::InBoundsPtrAccessChain
                | Op::CopyObject,
            ) if tracked.contains_key(&ins.operand(2)) => {
                retype_chain(m, e, i, &mut tracked, &mut retyped)?;
                false
            }
            // interpolateAt*(s.member): interpolate the split input holding the member.
            Some(Op::ExtInst)
                if Some(ins.operand(2)) == glsl_std
                    && (INTERPOLATE_AT_CENTROID..=INTERPOLATE_AT_OFFSET)
                        .contains(&ins.operand(3))
                    && tracked.contains_key(&ins.operand(4)) =>
            {
                let Some((pointer, code)) = tracked[&ins.operand(4)].redirect(m, e) else {
                    return Err(PassError::Unsupported(
                        "interpolateAt* on a split input through a dynamic index".into(),
                    ));
                };
                e.insert_before(i, &code);
                let mut words = ins.words.to_vec();
                words[5] = pointer;
                e.replace(i, words);
                false
            }
            Some(Op::FunctionCall) => uses(3, usize::MAX),
            Some(Op::ExtInst) => uses(4, usize::MAX),
            Some(Op::Phi) => uses(2, usize::MAX),
            Some(Op::Select) => uses(3, 5),
            Some(Op::PtrEqual | Op::PtrNotEqual | Op::PtrDiff) => uses(2, 4),
            Some(Op::ReturnValue) => uses(0, 1),
            _ => false,
        };
        if escapes {
            // Pointer parameters, other extended instructions and variable pointers would
            // need their own storage class changed.
            return Err(PassError::Unsupported(format!(
                "a pointer into a split variable used by {:?}",
                ins.op()
            )));
        }
    }
    Ok(())
}

/// Retypes the access chain or copy at `i` of a tracked pointer to `Private`, and tracks
/// its result.
fn retype_chain<'s>(
    m: &Module,
    e: &mut Editor,
    i: usize,
    tracked: &mut HashMap<u32, Derived<'s>>,
    retyped: &mut HashMap<u32, u32>,
) -> Result<(), PassError> {
    let ins = m.insts.at(i);
    let old_ty = ins.operand(0);
    let new_ty = match retyped.get(&old_ty) {
        Some(&t) => t,
        None => {
            let Some(Type::Pointer { pointee, .. }) = m.type_of(old_ty) else {
                return Err(PassError::Unsupported("untyped access chain".into()));
            };
            let t = e.type_pointer(StorageClass::Private, *pointee);
            retyped.insert(old_ty, t);
            t
        }
    };
    let mut words = ins.words.to_vec();
    words[1] = new_ty;
    e.replace(i, words);
    let base = &tracked[&ins.operand(2)];
    let indices = match ins.op() {
        Some(Op::AccessChain | Op::InBoundsAccessChain) => base
            .indices
            .as_ref()
            .map(|b| [b.as_slice(), &ins.operands()[3..]].concat()),
        Some(Op::CopyObject) => base.indices.clone(),
        _ => None,
    };
    let Some(Type::Pointer { pointee, .. }) = m.type_of(ins.operand(0)) else {
        return Err(PassError::Unsupported("untyped access chain".into()));
    };
    let derived = Derived {
        split: base.split,
        indices,
        pointee: *pointee,
    };
    tracked.insert(ins.operand(1), derived);
    Ok(())
}

/// A pointer into a shadow.
struct Derived<'s> {
    split: &'s Split,
    /// Index ids from the aggregate; `None` after pointer arithmetic.
    indices: Option<Vec<u32>>,
    /// The type it points to.
    pointee: u32,
}

impl Derived<'_> {
    /// The same place in the split interface variables instead of the shadow, as
    /// `(pointer id, code that computes it)`; `None` when an index into the aggregate is
    /// not a constant.
    fn redirect(&self, m: &Module, e: &mut Editor) -> Option<(u32, Vec<u32>)> {
        let indices = self.indices.as_ref()?;
        let values: Vec<u32> = indices
            .iter()
            .map(|&i| m.constant_u32(i))
            .collect::<Option<_>>()?;
        let leaf = self
            .split
            .leaves
            .iter()
            .find(|l| values.starts_with(&l.path))?;
        let rest = &indices[leaf.path.len()..];
        if rest.is_empty() {
            return Some((leaf.id, Vec::new()));
        }
        let mut code = Vec::new();
        let id = e.access_chain_to(&mut code, self.split.storage, self.pointee, leaf.id, rest);
        Some((id, code))
    }
}

/// GLSL.std.450 `InterpolateAtCentroid`, `InterpolateAtSample`, `InterpolateAtOffset`.
const INTERPOLATE_AT_CENTROID: u32 = 76;
const INTERPOLATE_AT_OFFSET: u32 = 78;

/// The id of the module's `GLSL.std.450` extended instruction set.
fn glsl_std_450(m: &Module) -> Option<u32> {
    let imports = m.section_start(Section::ExtInstImport)..m.section_start(Section::MemoryModel);
    m.insts
        .range(imports)
        .find(|i| decode_string(&i.operands()[1..]).0 == "GLSL.std.450")
        .map(|i| i.operand(0))
}

/// The variables of `ep`'s interface in `class` that can be split and that `keep` selects.
fn splittable_interface(
    m: &Module,
    ep: &EntryPoint,
    class: StorageClass,
    keep: impl Fn(u32) -> bool,
) -> Vec<u32> {
    ep.interface
        .iter()
        .copied()
        .filter(|&id| splittable(m, id, class) && keep(id))
        .collect()
}

/// Whether `id` is a `storage` variable the pass splits: a struct or matrix, or an array
/// of those, that is neither a built-in nor a `Block` interface.
fn splittable(m: &Module, id: u32, storage: StorageClass) -> bool {
    let Some((sc, ty)) = m.variable(id) else {
        return false;
    };
    if sc != storage || m.has_decoration(id, Decoration::BuiltIn) {
        return false;
    }
    let mut base = ty;
    while let Some(Type::Array { element, .. }) = m.type_of(base) {
        base = *element;
    }
    match m.type_of(base) {
        Some(Type::Struct { .. }) => !is_block_or_builtin(m, base),
        Some(Type::Matrix { .. }) => true,
        _ => false,
    }
}

/// Whether a struct (or one nested in it) is a `Block` or has built-in members.
fn is_block_or_builtin(m: &Module, ty: u32) -> bool {
    match m.type_of(ty) {
        Some(Type::Struct { members }) => {
            m.has_decoration(ty, Decoration::Block)
                || m.member_decorations
                    .get(&ty)
                    .is_some_and(|d| d.iter().any(|(_, d, _)| *d == Decoration::BuiltIn))
                || members.iter().any(|&t| is_block_or_builtin(m, t))
        }
        Some(Type::Array { element, .. }) => is_block_or_builtin(m, *element),
        _ => false,
    }
}

/// `OpMemberName`s by `(struct, member)`, to name the leaves for debugging.
fn member_names(m: &Module) -> HashMap<(u32, u32), String> {
    let debug = m.section_start(Section::Debug)..m.section_start(Section::Annotation);
    m.insts
        .range(debug)
        .filter(|i| i.op() == Some(Op::MemberName))
        .map(|i| {
            let ops = i.operands();
            ((ops[0], ops[1]), decode_string(&ops[2..]).0)
        })
        .collect()
}

/// The step that splits the struct outputs of the last pre-rasterization stage `stage`:
/// the captured ones ([`SplitXfbOutputs`]), or every one ([`SplitStructOutputs`], for a
/// fragment shader elsewhere, which splits every struct input).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SplitOutputs<const CAPTURED_ONLY: bool> {
    pub stage: Stage,
}

/// Split the struct XFB outputs of the last pre-rasterization stage.
pub type SplitXfbOutputs = SplitOutputs<true>;

/// Split every struct output of the last pre-rasterization stage, captured or not.
pub type SplitStructOutputs = SplitOutputs<false>;

impl<const CAPTURED_ONLY: bool> Rule for SplitOutputs<CAPTURED_ONLY> {
    const SEMANTIC: Semantic = Semantic::XfbSplit;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, split: Option<&SplitInterface>) -> String {
        let (outputs, reader) = match CAPTURED_ONLY {
            true => ("XFB struct outputs", ""),
            false => ("struct outputs", " for a fragment shader elsewhere"),
        };
        let locations = split.map(|s| s.locations.clone()).unwrap_or_default();
        format!(
            "{outputs} of the {} split member by member{reader} (Locations {locations:?})",
            self.stage
        )
    }

    fn run(&self, words: &[u32], entry: &str, _: Option<&SplitInterface>) -> StepResult {
        let split = split_outputs(words, entry, CAPTURED_ONLY)?;
        Ok(split.map_or(StepOutput::Unchanged, |(words, split)| {
            StepOutput::Split(words, split)
        }))
    }
}

/// The step on the fragment side: split the inputs that match the split outputs (undone
/// with the split when it cannot be done).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SplitFragInputs;

impl Rule for SplitFragInputs {
    const SEMANTIC: Semantic = Semantic::XfbSplit;
    const STAGE: Option<Stage> = Some(Stage::Fragment);
    const NOTE: &'static str = "fragment shader inputs split to match";
    const OWN_NAME: Option<&'static str> = Some(SPLIT_INPUTS_NAME);

    /// Without the previous stage's split there is nothing to match.
    fn run(&self, words: &[u32], entry: &str, split: Option<&SplitInterface>) -> StepResult {
        Ok(match split {
            Some(split) => split_matching_inputs(words, entry, split)?.into(),
            None => StepOutput::Unchanged,
        })
    }
}

/// The step for a fragment shader whose previous stage is elsewhere (a library, a shader
/// object): split every struct and matrix input that is not a block or built-in. A split
/// is a pure function of the type and Location, so it matches the split the previous stage
/// made on its own; inputs the previous stage did not split still match Location by
/// Location and component by component.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SplitStructInputs;

impl Rule for SplitStructInputs {
    const SEMANTIC: Semantic = Semantic::XfbSplit;
    const STAGE: Option<Stage> = Some(Stage::Fragment);
    const NOTE: &'static str = "fragment shader struct inputs split member by member";
    const OWN_NAME: Option<&'static str> = Some(SPLIT_INPUTS_NAME);

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        split_struct_inputs(words, entry)
    }
}

/// The fragment side's name in logs and dump files, apart from the outputs' modules.
const SPLIT_INPUTS_NAME: &str = "xfb_split_inputs";

//! gl_FragColor broadcast (README, "gl_FragColor broadcast").
//!
//! GL writes `gl_FragColor` to every enabled draw buffer; SPIR-V only has an output at
//! Location 0. The pass turns that output into a Private variable and copies it to one new
//! output per colour attachment before every return of the entry point.
//!
//! Turning the variable Private (instead of rewriting each store) keeps every access chain,
//! partial write, read-back and write in a called function working unchanged, as ANGLE's
//! `EmulateGLFragColorBroadcast` and Mesa's `nir_lower_fragcolor` do. Only the result types
//! of pointers derived from the variable change, from `Output` to `Private`.

use spirv::{Decoration, ExecutionModel, Op, StorageClass};

use super::error::{PassError, PassResult};
use super::exits::exits;
use super::module::{
    entry_point_with_interface, Editor, EntryPoint, Module, Section, Type,
    INTERFACE_LISTS_ALL_GLOBALS,
};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// Numeric type of a colour attachment, from its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttachmentKind {
    /// UNORM, SNORM, SRGB, SFLOAT, UFLOAT formats: written as `vec4`.
    Float,
    /// SINT formats: written as `ivec4` (`OpBitcast`).
    Sint,
    /// UINT formats: written as `uvec4` (`OpBitcast`).
    Uint,
}

/// The colour attachments of the subpass (or dynamic-rendering info) the pipeline draws
/// into: `(location, kind)` for every used attachment, location = attachment index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FragColorKey {
    pub attachments: Vec<(u32, AttachmentKind)>,
}

/// Rewrites a fragment module that writes `gl_FragColor` so that every attachment of `key`
/// receives the colour. `Ok(None)` when there is nothing to do (no `gl_FragColor`, dual
/// source, only attachment 0).
pub fn broadcast_frag_color(words: &[u32], entry: &str, key: &FragColorKey) -> PassResult {
    let mut attachments = key.attachments.clone();
    attachments.sort_by_key(|&(location, _)| location);
    attachments.dedup_by_key(|&mut (location, _)| location);
    if attachments.iter().all(|&(location, _)| location == 0) {
        return Ok(None);
    }

    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let Some(var) = find_frag_color(&m, &ep.interface) else {
        return Ok(None);
    };
    if !frag_color_alone(&m, &ep.interface, var)? {
        return Ok(None);
    }
    let var_index = m.globals[&var];
    let var_inst = m.insts.at(var_index);
    let color_type = m
        .variable(var)
        .map(|(_, pointee)| pointee)
        .filter(|&t| is_vec4_f32(&m, t))
        .ok_or(PassError::BuiltinType {
            builtin: "gl_FragColor",
            expected: "a vec4 of float",
        })?;

    let mut e = Editor::new(&m);

    // The shadow keeps the variable's id (so no use needs rewriting) and its place (module-
    // scope debug info may refer to it); its pointer type must be declared before it.
    let private_color_ptr = match existing_pointer(&m, StorageClass::Private, color_type) {
        Some((id, index)) if index < var_index => id,
        _ => e.type_pointer_before(var_index, StorageClass::Private, color_type),
    };
    let mut shadow = var_inst.words.to_vec();
    shadow[1] = private_color_ptr;
    shadow[3] = StorageClass::Private as u32;
    e.replace(var_index, shadow);

    retype_derived_pointers(&m, &mut e, var, var_inst.operand(0), private_color_ptr)?;
    drop_interface_decorations(&m, &mut e, var)?;

    let relaxed = m.has_decoration(var, Decoration::RelaxedPrecision);
    let outputs = add_outputs(&mut e, &attachments, color_type, relaxed);
    copy_at_returns(&m, &mut e, ep, var, color_type, &outputs)?;

    update_interfaces(&m, &mut e, ep, var, &outputs);
    Ok(Some(e.finish()?))
}

/// Whether `var` may be broadcast: `Ok(false)` under dual-source blending (only
/// attachment 0 may be written, and GL leaves it at that), an error next to another
/// located output.
fn frag_color_alone(m: &Module, interface: &[u32], var: u32) -> Result<bool, PassError> {
    let dual_source = interface.iter().any(|&id| {
        is_output(m, id)
            && m.decoration(id, Decoration::Index)
                .is_some_and(|i| i != [0])
    });
    if dual_source {
        return Ok(false);
    }
    // GL forbids gl_FragColor next to user-defined outputs (glslang refuses to link it), so a
    // module that has both did not come from GLSL; its Locations would collide with ours.
    if let Some(&other) = interface.iter().find(|&&id| {
        id != var && is_output(m, id) && m.decoration(id, Decoration::Location).is_some()
    }) {
        return Err(PassError::Unsupported(format!(
            "gl_FragColor next to another located output (id {other})"
        )));
    }
    Ok(true)
}

/// One output per attachment, each with the type its format needs: (variable, kind, type).
fn add_outputs(
    e: &mut Editor,
    attachments: &[(u32, AttachmentKind)],
    color_type: u32,
    relaxed: bool,
) -> Vec<(u32, AttachmentKind, u32)> {
    let mut outputs = Vec::with_capacity(attachments.len());
    for &(location, kind) in attachments {
        let ty = match kind {
            AttachmentKind::Float => color_type,
            AttachmentKind::Sint => {
                let int = e.type_int(32, true);
                e.type_vector(int, 4)
            }
            AttachmentKind::Uint => {
                let uint = e.type_int(32, false);
                e.type_vector(uint, 4)
            }
        };
        let out = e.add_variable(StorageClass::Output, ty);
        e.decorate(out, Decoration::Location, &[location]);
        // Reduced precision is harmless on a colour but not on a reinterpreted bit pattern.
        if relaxed && kind == AttachmentKind::Float {
            e.decorate(out, Decoration::RelaxedPrecision, &[]);
        }
        e.name(out, &format!("gl_FragColor_att{location}"));
        outputs.push((out, kind, ty));
    }
    outputs
}

/// Interfaces: the shadow leaves every list that may only hold Input/Output variables; the
/// entry point gains the new outputs.
fn update_interfaces(
    m: &Module,
    e: &mut Editor,
    ep: &EntryPoint,
    var: u32,
    outputs: &[(u32, AttachmentKind, u32)],
) {
    let keep_shadow = m.version() >= INTERFACE_LISTS_ALL_GLOBALS;
    for other in &m.entry_points {
        let is_target = std::ptr::eq(other, ep);
        if !is_target && (keep_shadow || !other.interface.contains(&var)) {
            continue;
        }
        let mut interface: Vec<u32> = other
            .interface
            .iter()
            .copied()
            .filter(|&id| keep_shadow || id != var)
            .collect();
        if is_target {
            interface.extend(outputs.iter().map(|&(out, _, _)| out));
        }
        let words = entry_point_with_interface(&m.insts.at(other.index), &interface);
        e.replace(other.index, words);
    }
}

/// The entry point's `gl_FragColor`: an Output variable at Location 0 (Index 0 or none) that
/// OpName calls `gl_FragColor`. Modules with stripped names are left alone.
fn find_frag_color(m: &Module<'_>, interface: &[u32]) -> Option<u32> {
    interface.iter().copied().find(|&id| {
        m.names.get(&id).is_some_and(|n| *n == "gl_FragColor")
            && is_output(m, id)
            && m.decoration(id, Decoration::Location) == Some(&[0])
            && m.decoration(id, Decoration::Index).is_none_or(|i| i == [0])
    })
}

fn is_output(m: &Module<'_>, id: u32) -> bool {
    matches!(m.variable(id), Some((StorageClass::Output, _)))
}

fn is_vec4_f32(m: &Module<'_>, ty: u32) -> bool {
    match m.type_of(ty) {
        Some(Type::Vector {
            component,
            count: 4,
        }) => m.type_of(*component) == Some(&Type::Float { width: 32 }),
        _ => false,
    }
}

/// `(id, instruction index)` of the module's first `OpTypePointer storage pointee`.
fn existing_pointer(m: &Module<'_>, storage: StorageClass, pointee: u32) -> Option<(u32, usize)> {
    let start = m.section_start(Section::Global);
    let end = m.section_start(Section::Function);
    (start..end).find_map(|i| {
        let inst = m.insts.at(i);
        (inst.op() == Some(Op::TypePointer)
            && inst.operand(1) == storage as u32
            && inst.operand(2) == pointee)
            .then(|| (inst.operand(0), i))
    })
}

/// Gives every pointer derived from `var` (access chains, copies, selects, phis: anything
/// whose result is an Output pointer computed from one) the matching Private pointer type.
/// Pointers are function-local values, so one pass over each function in order sees every
/// base before its uses (phis over back edges need variable pointers, which GLSL never
/// produces for outputs).
fn retype_derived_pointers(
    m: &Module<'_>,
    e: &mut Editor<'_, '_>,
    var: u32,
    var_type: u32,
    private_var_type: u32,
) -> Result<(), PassError> {
    // Output pointer type → its Private twin, created on first use.
    let mut output_ptrs: Vec<(u32, u32, Option<u32>)> = m
        .types
        .iter()
        .filter_map(|(&id, ty)| match ty {
            Type::Pointer {
                storage: StorageClass::Output,
                pointee,
            } => Some((id, *pointee, (id == var_type).then_some(private_var_type))),
            _ => None,
        })
        .collect();
    let mut derived = vec![false; m.bound as usize];
    derived[var as usize] = true;
    for index in m.section_start(Section::Function)..m.insts.len() {
        let inst = m.insts.at(index);
        let Some(ty) = inst.result_type() else {
            continue;
        };
        let Some(slot) = output_ptrs.iter().position(|&(id, _, _)| id == ty) else {
            continue;
        };
        // Every operand of the opcodes that can yield a pointer is an id, so any operand
        // that is the variable or a pointer derived from it makes this one derived too.
        if !inst.words[3..]
            .iter()
            .any(|&w| derived.get(w as usize).copied().unwrap_or(false))
        {
            continue;
        }
        if inst.op() == Some(Op::FunctionCall) {
            return Err(PassError::Unsupported(
                "a function returns a pointer into gl_FragColor".into(),
            ));
        }
        let private = match output_ptrs[slot].2 {
            Some(p) => p,
            None => {
                let p = e.type_pointer(StorageClass::Private, output_ptrs[slot].1);
                output_ptrs[slot].2 = Some(p);
                p
            }
        };
        e.patch_word(index, 1, private);
        derived[inst.operand(1) as usize] = true;
    }
    Ok(())
}

/// Removes the decorations that only interface variables may carry.
fn drop_interface_decorations(
    m: &Module<'_>,
    e: &mut Editor<'_, '_>,
    var: u32,
) -> Result<(), PassError> {
    let start = m.section_start(Section::Annotation);
    let end = m.section_start(Section::Global);
    for index in start..end {
        let inst = m.insts.at(index);
        match inst.op() {
            Some(Op::Decorate) if inst.operand(0) == var => {
                let d = Decoration::from_u32(inst.operand(1));
                if matches!(
                    d,
                    Some(Decoration::Location | Decoration::Index | Decoration::Component)
                ) {
                    e.remove(index);
                }
            }
            Some(Op::GroupDecorate) if inst.operands()[1..].contains(&var) => {
                return Err(PassError::Unsupported(
                    "gl_FragColor decorated through a decoration group".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Before every return of the entry-point function (not of its callees: those are not
/// program exits), copies the shadow to each output. `OpKill`, `OpTerminateInvocation`
/// and demotes end the fragment without a colour, so they get nothing.
fn copy_at_returns(
    m: &Module<'_>,
    e: &mut Editor<'_, '_>,
    ep: &EntryPoint,
    shadow: u32,
    color_type: u32,
    outputs: &[(u32, AttachmentKind, u32)],
) -> Result<(), PassError> {
    for exit in exits(m, ep)? {
        let index = exit.index;
        let mut words = Vec::with_capacity(4 + outputs.len() * 7);
        let color = e.load(&mut words, color_type, shadow);
        for &(out, kind, ty) in outputs {
            let value = if kind == AttachmentKind::Float {
                color
            } else {
                e.bitcast(&mut words, ty, color)
            };
            e.store(&mut words, out, value);
        }
        e.insert_before(index, &words);
    }
    Ok(())
}

/// The step: the fragment shader's gl_FragColor goes to every attachment of the key.
impl Rule for FragColorKey {
    const SEMANTIC: Semantic = Semantic::FragColor;
    const STAGE: Option<Stage> = Some(Stage::Fragment);

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "gl_FragColor broadcast to {} attachments",
            self.attachments.len()
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        broadcast_frag_color(words, entry, self)
    }
}

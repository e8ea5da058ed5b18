//! Samplers taken out of structures that mix them with other members.
//!
//! GL lets a uniform structure mix samplers and other members (`struct S { float a;
//! sampler2D tex; }; uniform S s[2];`); glslang (`-R`) puts such a uniform whole in
//! `gl_DefaultUniformBlock`, and Vulkan takes no opaque type in a block. The structure loses
//! its sampler members (the others keep their offsets, so the block's layout is GL's), and
//! a new UniformConstant variable named as the uniform (`s`), the same arrays of a structure
//! of the samplers only, takes them: `split_sampler_arrays` then makes it one descriptor
//! array per sampler member, its elements named as GL names them (`s[1].tex`).

use std::collections::{HashMap, HashSet};

use glsem_spirv::module::{inst, Editor, Module, Section, Type};
use spirv::{Op, StorageClass};

use super::sampler_arrays::gl_location_order;
use super::spv::{edit, parse};
use crate::scene::SceneError;

/// The uniform (a member of the default block) whose structure mixes samplers and other
/// members: its new variable of the samplers and its array levels' lengths.
struct Moved {
    var: u32,
    array_levels: usize,
}

/// A mixing structure's members split: (original index, new index) of its samplers and of
/// its other members.
struct Mixed {
    opaque: Vec<(u32, u32)>,
    plain: Vec<(u32, u32)>,
}

const USED_WHOLE: &str =
    "a structure mixing samplers and other members used whole is not supported";

fn is_opaque(m: &Module, ty: u32) -> bool {
    let mut inner = ty;
    while let Some((element, _)) = m.array_length(inner) {
        inner = element;
    }
    matches!(
        m.global_op(inner),
        Some(Op::TypeSampledImage | Op::TypeImage | Op::TypeSampler)
    )
}

/// The members of structure `ty` split into samplers and others when it has both.
fn mixed_members(m: &Module, ty: u32) -> Option<Mixed> {
    let (mut opaque, mut plain) = (Vec::new(), Vec::new());
    for (k, &member) in m.struct_members(ty)?.iter().enumerate() {
        let list = if is_opaque(m, member) {
            &mut opaque
        } else {
            &mut plain
        };
        list.push((k as u32, list.len() as u32));
    }
    (!opaque.is_empty() && !plain.is_empty()).then_some(Mixed { opaque, plain })
}

/// Moves the sampler members of the default block's structures (and arrays of them) that
/// mix samplers and other members to new variables.
/// Returns each new variable's GL location order: the names of all the uniform's members,
/// in the order GL gives them locations.
pub(super) fn move_struct_samplers(
    module: &mut Vec<u32>,
) -> Result<HashMap<u32, Vec<String>>, SceneError> {
    let view = parse(module);
    let block = view.global_variables().find_map(|(var, storage, ty)| {
        let named_default = *view.names.get(&ty)? == "gl_DefaultUniformBlock";
        (storage == StorageClass::UniformConstant && named_default).then_some((var, ty))
    });
    let Some((block_var, block_type)) = block else {
        return Ok(HashMap::new());
    };
    let members = view.struct_members(block_type).unwrap_or_default();
    // (member index, member type, array lengths, structure, its split) of the uniforms
    // whose structure mixes samplers and other members.
    let mixing: Vec<(u32, u32, Vec<u32>, u32, Mixed)> = members
        .iter()
        .enumerate()
        .filter_map(|(k, &member)| {
            let mut lengths = Vec::new();
            let mut inner = member;
            while let Some((element, length)) = view.array_length(inner) {
                lengths.push(length);
                inner = element;
            }
            let mixed = mixed_members(&view, inner)?;
            Some((k as u32, member, lengths, inner, mixed))
        })
        .collect();
    if mixing.is_empty() {
        return Ok(HashMap::new());
    }
    drop(view);
    edit(module, |editor| {
        let view = editor.module;
        let mut structures: HashMap<u32, Mixed> = HashMap::new();
        let mut opaque_structures: HashMap<u32, u32> = HashMap::new();
        let mut moved: HashMap<u32, Moved> = HashMap::new();
        // (variable, name) and (structure, member, name) of the new ids.
        let mut names: Vec<(u32, String)> = Vec::new();
        let mut member_names: Vec<(u32, u32, String)> = Vec::new();
        let mut location_orders = HashMap::new();
        for (k, member, lengths, inner, mixed) in mixing {
            let opaque_struct = *opaque_structures.entry(inner).or_insert_with(|| {
                declare_opaque_structure(editor, inner, &mixed, &mut member_names)
            });
            structures.entry(inner).or_insert(mixed);
            let var_type = lengths
                .iter()
                .rev()
                .fold(opaque_struct, |elem, &len| editor.type_array(elem, len));
            let var = editor.add_variable(StorageClass::UniformConstant, var_type);
            let name = view.member_name(block_type, k);
            let mut order = Vec::new();
            let base = name.clone().unwrap_or_default();
            gl_location_order(view, member, &base, &mut order);
            location_orders.insert(var, order);
            names.push((var, name.unwrap_or_default()));
            let array_levels = lengths.len();
            moved.insert(k, Moved { var, array_levels });
        }
        rewrite_member_accesses(editor, block_var, &moved, &structures)?;
        drop_sampler_members(editor, &structures);
        refuse_whole_uses(editor.module, &structures)?;
        // The block's variable goes after the new types, its pointer type among them.
        editor.redeclare_variable(block_var, StorageClass::Uniform, block_type, None);
        editor.remove(view.globals[&block_var]);
        for (var, name) in &names {
            editor.name(*var, name);
        }
        for (ty, member, name) in &member_names {
            editor.member_name(*ty, *member, name);
        }
        let new_vars: Vec<u32> = moved.values().map(|m| m.var).collect();
        for ep in &view.entry_points {
            editor.extend_interface(ep, &[], &new_vars);
        }
        Ok(location_orders)
    })
}

/// A structure of the samplers of mixing structure `ty`, named as they are there.
fn declare_opaque_structure(
    editor: &mut Editor,
    ty: u32,
    mixed: &Mixed,
    member_names: &mut Vec<(u32, u32, String)>,
) -> u32 {
    let view = editor.module;
    let members = view.struct_members(ty).unwrap_or_default();
    let samplers: Vec<u32> = mixed
        .opaque
        .iter()
        .map(|&(old, _)| members[old as usize])
        .collect();
    let opaque = editor.type_struct(&samplers);
    for &(old, new) in &mixed.opaque {
        let name = view.member_name(ty, old);
        member_names.push((opaque, new, name.unwrap_or_default()));
    }
    opaque
}

/// Points each access chain into a moved uniform at its new variable (a sampler member) or
/// at the member's new index in the structure (any other member).
fn rewrite_member_accesses(
    editor: &mut Editor,
    block_var: u32,
    moved: &HashMap<u32, Moved>,
    structures: &HashMap<u32, Mixed>,
) -> Result<(), SceneError> {
    let view = editor.module;
    let block_members = match view
        .variable(block_var)
        .and_then(|(_, ty)| view.type_of(ty))
    {
        Some(Type::Struct { members }) => members.as_slice(),
        _ => &[],
    };
    for index in view.section_range(Section::Function) {
        let inst = view.insts.at(index);
        // Chain words: result type, result, base, indices.
        let chain = matches!(inst.op(), Some(Op::AccessChain | Op::InBoundsAccessChain));
        if !chain || inst.operand(2) != block_var {
            continue;
        }
        let pointee = view.pointee(inst.operand(0)).unwrap_or(0);
        // The block left holding no sampler is a uniform buffer, as glslang makes one.
        let to_uniform = |editor: &mut Editor| {
            let uniform_pointer = editor.type_pointer(StorageClass::Uniform, pointee);
            editor.patch_word(index, 1, uniform_pointer);
        };
        let member = view.constant_u32(inst.operand(3));
        let Some((k, m)) = member.and_then(|k| Some((k, moved.get(&k)?))) else {
            to_uniform(editor);
            continue;
        };
        let mut inner = block_members.get(k as usize).copied().unwrap_or(0);
        while let Some((element, _)) = view.array_length(inner) {
            inner = element;
        }
        // The structure's index, after the block's member and the array levels.
        let at = 3 + 2 + m.array_levels;
        let member_index = inst.words.get(at).and_then(|&c| view.constant_u32(c));
        let (Some(member_index), Some(mixed)) = (member_index, structures.get(&inner)) else {
            return Err(SceneError::Skip(USED_WHOLE.into()));
        };
        if let Some(&(_, new)) = mixed.opaque.iter().find(|(old, _)| *old == member_index) {
            let pointer = editor.type_pointer(StorageClass::UniformConstant, pointee);
            let mut operands = vec![m.var];
            operands.extend_from_slice(&inst.words[5..at]);
            operands.push(editor.constant_u32(new));
            operands.extend_from_slice(&inst.words[at + 1..]);
            let mut code = Vec::new();
            let op = inst.op().expect("a chain");
            editor.emit_as(&mut code, op, pointer, inst.operand(1), &operands);
            editor.replace(index, code);
            continue;
        }
        if let Some(&(_, new)) = mixed.plain.iter().find(|(old, _)| *old == member_index) {
            let constant = editor.constant_u32(new);
            editor.patch_word(index, at, constant);
        }
        to_uniform(editor);
    }
    Ok(())
}

/// Takes the sampler members out of the mixing structures, their names and decorations
/// following the members that stay.
fn drop_sampler_members(editor: &mut Editor, structures: &HashMap<u32, Mixed>) {
    let view = editor.module;
    for (&ty, mixed) in structures {
        let Some(&index) = view.globals.get(&ty) else {
            continue;
        };
        let members = &view.insts.at(index).operands()[1..];
        let plain: Vec<u32> = std::iter::once(ty)
            .chain(mixed.plain.iter().map(|&(old, _)| members[old as usize]))
            .collect();
        editor.replace(index, inst(Op::TypeStruct, &plain));
    }
    // Member names and decorations: structure, member, ...
    let described = view.section_start(Section::Debug)..view.section_start(Section::Global);
    for index in described {
        let inst = view.insts.at(index);
        if !matches!(inst.op(), Some(Op::MemberName | Op::MemberDecorate)) {
            continue;
        }
        let Some(mixed) = structures.get(&inst.operand(0)) else {
            continue;
        };
        match mixed.plain.iter().find(|(old, _)| *old == inst.operand(1)) {
            Some(&(_, new)) => editor.patch_word(index, 2, new),
            None => editor.remove(index),
        }
    }
}

/// A skip when a function still uses a mixing structure whole (a copy of `s[1]`, say):
/// only its members moved.
fn refuse_whole_uses(view: &Module, structures: &HashMap<u32, Mixed>) -> Result<(), SceneError> {
    let used_whole = holding(view, &structures.keys().copied().collect());
    let whole_use = view
        .insts
        .range(view.section_range(Section::Function))
        .any(|i| i.result_type().is_some_and(|t| used_whole.contains(&t)));
    if whole_use {
        return Err(SceneError::Skip(USED_WHOLE.into()));
    }
    Ok(())
}

/// The types that hold one of `structures` (arrays of them, pointers to those).
fn holding(view: &Module, structures: &HashSet<u32>) -> HashSet<u32> {
    let mut held = structures.clone();
    for inst in view.insts.range(view.section_range(Section::Global)) {
        // Array words: result, element, length; pointer words: result, storage, pointee.
        let holds = match inst.op() {
            Some(Op::TypeArray | Op::TypeRuntimeArray) => Some(inst.operand(1)),
            Some(Op::TypePointer) => Some(inst.operand(2)),
            _ => None,
        };
        if let (Some(r), true) = (inst.result_id(), holds.is_some_and(|h| held.contains(&h))) {
            held.insert(r);
        }
    }
    held
}

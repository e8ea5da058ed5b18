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

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Op, StorageClass};

use super::sampler_arrays::gl_location_order;
use super::spv::{edit_words, id, Additions, Types};
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

fn is_opaque(types: &Types, ty: u32) -> bool {
    let mut inner = ty;
    while let Some((_, elem)) = types.array(inner) {
        inner = elem;
    }
    types.def(inner).is_some_and(|d| {
        matches!(
            d.class.opcode,
            Op::TypeSampledImage | Op::TypeImage | Op::TypeSampler
        )
    })
}

/// The members of structure `ty` split into samplers and others when it has both.
fn mixed_members(types: &Types, ty: u32) -> Option<Mixed> {
    let def = types.def(ty).filter(|d| d.class.opcode == Op::TypeStruct)?;
    let (mut opaque, mut plain) = (Vec::new(), Vec::new());
    for (k, member) in def.operands.iter().filter_map(id).enumerate() {
        let list = if is_opaque(types, member) {
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
    module: &mut dr::Module,
) -> Result<HashMap<u32, Vec<String>>, SceneError> {
    let types = Types::new(module);
    let block = module.types_global_values.iter().find_map(|i| {
        let is_var = i.class.opcode == Op::Variable
            && i.operands.first() == Some(&Operand::StorageClass(StorageClass::UniformConstant));
        let ty = types.pointee(i.result_type?)?;
        (is_var && types.names.get(&ty)? == "gl_DefaultUniformBlock").then_some((i.result_id?, ty))
    });
    let Some((block_var, block_type)) = block else {
        return Ok(HashMap::new());
    };
    let members: Vec<u32> = types
        .def(block_type)
        .map(|d| d.operands.iter().filter_map(id).collect())
        .unwrap_or_default();
    let mut add = Additions::new(module);
    let mut structures: HashMap<u32, Mixed> = HashMap::new();
    let mut opaque_structures: HashMap<u32, u32> = HashMap::new();
    let mut moved: HashMap<u32, Moved> = HashMap::new();
    // (variable, name) and (structure, member, name) of the new ids.
    let mut names: Vec<(u32, String)> = Vec::new();
    let mut member_names: Vec<(u32, u32, String)> = Vec::new();
    let mut location_orders = HashMap::new();
    for (k, &member) in members.iter().enumerate() {
        let mut lengths = Vec::new();
        let mut inner = member;
        while let Some((len, elem)) = types.array(inner) {
            lengths.push(len);
            inner = elem;
        }
        let Some(mixed) = mixed_members(&types, inner) else {
            continue;
        };
        let opaque_struct = *opaque_structures.entry(inner).or_insert_with(|| {
            declare_opaque_structure(&types, &mut add, inner, &mixed, &mut member_names)
        });
        structures.entry(inner).or_insert(mixed);
        let var_type = lengths
            .iter()
            .rev()
            .fold(opaque_struct, |elem, &len| add.array(elem, len));
        let pointer = add.pointer(StorageClass::UniformConstant, var_type);
        let var = add.push(
            Op::Variable,
            Some(pointer),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        );
        let name = types.member_names.get(&(block_type, k as u32)).cloned();
        let mut order = Vec::new();
        let base = name.clone().unwrap_or_default();
        gl_location_order(&types, member, &base, &mut order);
        location_orders.insert(var, order);
        names.push((var, name.unwrap_or_default()));
        let array_levels = lengths.len();
        moved.insert(k as u32, Moved { var, array_levels });
    }
    if moved.is_empty() {
        return Ok(HashMap::new());
    }
    rewrite_member_accesses(module, &types, block_var, &moved, &structures, &mut add)?;
    drop_sampler_members(module, &structures);
    refuse_whole_uses(module, &structures)?;
    let known = module.types_global_values.clone();
    let block_pointer = pointer_type(&mut add, &known, StorageClass::Uniform, block_type);
    // The block's variable goes after the new types, its pointer type among them.
    module
        .types_global_values
        .retain(|i| i.result_id != Some(block_var));
    let end = module.types_global_values.len();
    add.finish(module, end);
    module.types_global_values.push(Instruction::new(
        Op::Variable,
        Some(block_pointer),
        Some(block_var),
        vec![Operand::StorageClass(StorageClass::Uniform)],
    ));
    let new_vars: Vec<u32> = moved.values().map(|m| m.var).collect();
    edit_words(module, |editor| {
        for (var, name) in &names {
            editor.name(*var, name);
        }
        for (ty, member, name) in &member_names {
            editor.member_name(*ty, *member, name);
        }
        let m = editor.module;
        for ep in &m.entry_points {
            editor.extend_interface(ep, &[], &new_vars);
        }
    });
    Ok(location_orders)
}

/// A structure of the samplers of mixing structure `ty`, named as they are there.
fn declare_opaque_structure(
    types: &Types,
    add: &mut Additions,
    ty: u32,
    mixed: &Mixed,
    member_names: &mut Vec<(u32, u32, String)>,
) -> u32 {
    let members: Vec<u32> = types
        .def(ty)
        .map(|d| d.operands.iter().filter_map(id).collect())
        .unwrap_or_default();
    let samplers = mixed.opaque.iter().map(|&(old, _)| members[old as usize]);
    let opaque = add.push(Op::TypeStruct, None, samplers.map(Operand::IdRef).collect());
    for &(old, new) in &mixed.opaque {
        let name = types.member_names.get(&(ty, old)).cloned();
        member_names.push((opaque, new, name.unwrap_or_default()));
    }
    opaque
}

/// Points each access chain into a moved uniform at its new variable (a sampler member) or
/// at the member's new index in the structure (any other member).
fn rewrite_member_accesses(
    module: &mut dr::Module,
    types: &Types,
    block_var: u32,
    moved: &HashMap<u32, Moved>,
    structures: &HashMap<u32, Mixed>,
    add: &mut Additions,
) -> Result<(), SceneError> {
    let block_member_type = |k: u32| {
        let block = types.def(
            types.pointee(
                module
                    .types_global_values
                    .iter()
                    .find(|i| i.result_id == Some(block_var))
                    .and_then(|i| i.result_type)
                    .unwrap_or(0),
            )?,
        )?;
        block.operands.iter().filter_map(id).nth(k as usize)
    };
    let member_types: HashMap<u32, u32> = moved
        .keys()
        .filter_map(|&k| Some((k, block_member_type(k)?)))
        .collect();
    let module_types = &module.types_global_values.clone();
    super::spv::rewrite_instructions(module, |mut inst, out| {
        let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
        let on_block = inst.operands.first().and_then(id) == Some(block_var);
        let pointee = inst.result_type.and_then(|t| types.pointee(t)).unwrap_or(0);
        // The block left holding no sampler is a uniform buffer, as glslang makes one.
        let to_uniform = |mut inst: Instruction, add: &mut Additions| {
            if chain && inst.operands.first().and_then(id) == Some(block_var) {
                inst.result_type = Some(pointer_type(
                    add,
                    module_types,
                    StorageClass::Uniform,
                    pointee,
                ));
            }
            inst
        };
        let member = inst
            .operands
            .get(1)
            .and_then(id)
            .and_then(|c| types.constant(c));
        let Some((k, m)) = member
            .filter(|_| chain && on_block)
            .and_then(|k| Some((k, moved.get(&k)?)))
        else {
            out.push(to_uniform(inst, add));
            return Ok(());
        };
        let mut inner = member_types.get(&k).copied().unwrap_or(0);
        while let Some((_, elem)) = types.array(inner) {
            inner = elem;
        }
        let at = 2 + m.array_levels;
        let index = inst
            .operands
            .get(at)
            .and_then(id)
            .and_then(|c| types.constant(c));
        let (Some(index), Some(mixed)) = (index, structures.get(&inner)) else {
            return Err(SceneError::Skip(USED_WHOLE.into()));
        };
        if let Some(&(_, new)) = mixed.opaque.iter().find(|(old, _)| *old == index) {
            inst.result_type = Some(pointer_type(
                add,
                module_types,
                StorageClass::UniformConstant,
                pointee,
            ));
            let mut operands = vec![Operand::IdRef(m.var)];
            operands.extend_from_slice(&inst.operands[2..at]);
            operands.push(Operand::IdRef(add.uint_constant(new)));
            operands.extend_from_slice(&inst.operands[at + 1..]);
            inst.operands = operands;
        } else if let Some(&(_, new)) = mixed.plain.iter().find(|(old, _)| *old == index) {
            inst.operands[at] = Operand::IdRef(add.uint_constant(new));
        }
        out.push(to_uniform(inst, add));
        Ok(())
    })
}

/// Takes the sampler members out of the mixing structures, their names and decorations
/// following the members that stay.
fn drop_sampler_members(module: &mut dr::Module, structures: &HashMap<u32, Mixed>) {
    for inst in &mut module.types_global_values {
        let Some(mixed) = inst.result_id.and_then(|r| structures.get(&r)) else {
            continue;
        };
        let members = std::mem::take(&mut inst.operands);
        inst.operands = mixed
            .plain
            .iter()
            .map(|&(old, _)| members[old as usize].clone())
            .collect();
    }
    let renumber = |inst: &mut Instruction| {
        let target = inst.operands.first().and_then(id);
        let Some(mixed) = target.and_then(|t| structures.get(&t)) else {
            return true;
        };
        let Some(Operand::LiteralBit32(member)) = inst.operands.get_mut(1) else {
            return true;
        };
        match mixed.plain.iter().find(|(old, _)| old == member) {
            Some(&(_, new)) => {
                *member = new;
                true
            }
            None => false,
        }
    };
    module
        .debug_names
        .retain_mut(|i| i.class.opcode != Op::MemberName || renumber(i));
    module
        .annotations
        .retain_mut(|i| i.class.opcode != Op::MemberDecorate || renumber(i));
}

/// A skip when a function still uses a mixing structure whole (a copy of `s[1]`, say):
/// only its members moved.
fn refuse_whole_uses(
    module: &dr::Module,
    structures: &HashMap<u32, Mixed>,
) -> Result<(), SceneError> {
    let used_whole = holding(module, &structures.keys().copied().collect());
    let whole_use = module.functions.iter().any(|f| {
        f.all_inst_iter()
            .any(|i| i.result_type.is_some_and(|t| used_whole.contains(&t)))
    });
    if whole_use {
        return Err(SceneError::Skip(USED_WHOLE.into()));
    }
    Ok(())
}

/// The types that hold one of `structures` (arrays of them, pointers to those).
fn holding(module: &dr::Module, structures: &HashSet<u32>) -> HashSet<u32> {
    let mut held = structures.clone();
    for inst in &module.types_global_values {
        let holds = match inst.class.opcode {
            Op::TypeArray | Op::TypeRuntimeArray => inst.operands.first().and_then(id),
            Op::TypePointer => inst.operands.get(1).and_then(id),
            _ => None,
        };
        if let (Some(r), true) = (inst.result_id, holds.is_some_and(|h| held.contains(&h))) {
            held.insert(r);
        }
    }
    held
}

/// A pointer to `pointee` in `storage`: the module's, else a new one.
fn pointer_type(
    add: &mut Additions,
    known: &[Instruction],
    storage: StorageClass,
    pointee: u32,
) -> u32 {
    add.global_among(
        known,
        Op::TypePointer,
        None,
        vec![Operand::StorageClass(storage), Operand::IdRef(pointee)],
    )
}

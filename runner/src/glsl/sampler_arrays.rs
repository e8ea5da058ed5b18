//! Samplers in arrays of arrays and in structures made one-dimensional sampler arrays.
//!
//! glslang (`-R`) keeps `uniform sampler2D s[2][2]` and `uniform S s[4]` (a structure of
//! samplers) as one UniformConstant variable; Vulkan takes one-dimensional arrays of
//! descriptors only (VUID-StandaloneSpirv-UniformConstant-04655 and the arrays-of-arrays
//! rule). Each sampler member of the structure becomes its own variable, an array of all
//! the elements row-major (GL's order of their uniform locations), and each access chain
//! into the old variable indexes the new one with the flattened index. The GL name of
//! every element (`s[1][0]`, `s[2].tex`) is kept for the `uniform` commands that set units.

use std::collections::HashMap;

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Op, StorageClass};

use super::resources::subscripts;
use super::spv::{id, Types};
use crate::scene::SceneError;

/// A new sampler array variable and the GL names of its elements.
pub(super) struct SplitSampler {
    pub var: u32,
    pub elements: Vec<String>,
}

/// Splits every UniformConstant variable that is an array of arrays of samplers or (an
/// array of) a structure whose members are all samplers; returns the new variables.
pub(super) fn split_sampler_arrays(
    module: &mut dr::Module,
) -> Result<Vec<SplitSampler>, SceneError> {
    let types = Types::new(module);
    let is_sampler = |t: u32| {
        types
            .def(t)
            .is_some_and(|d| d.class.opcode == Op::TypeSampledImage)
    };
    // (old variable, dimensions, its sampler members' types: one `None` member when the
    // old variable is an array of arrays of samplers itself)
    let mut found = Vec::new();
    for inst in &module.types_global_values {
        if inst.class.opcode != Op::Variable
            || inst.operands.first() != Some(&Operand::StorageClass(StorageClass::UniformConstant))
        {
            continue;
        }
        let (Some(var), Some(ptr)) = (inst.result_id, inst.result_type) else {
            continue;
        };
        let mut dims = Vec::new();
        let mut elem = types.pointee(ptr).unwrap_or(0);
        while let Some((len, inner)) = types.array(elem) {
            dims.push(len);
            elem = inner;
        }
        if is_sampler(elem) {
            if dims.len() > 1 {
                found.push((var, dims, vec![(None, elem)]));
            }
            continue;
        }
        let Some(def) = types.def(elem) else { continue };
        if def.class.opcode != Op::TypeStruct {
            continue;
        }
        let members: Vec<u32> = def.operands.iter().filter_map(id).collect();
        if members.is_empty() || !members.iter().all(|&m| is_sampler(m)) {
            continue;
        }
        let members = members
            .iter()
            .enumerate()
            .map(|(k, &m)| (Some((elem, k as u32)), m))
            .collect();
        found.push((var, dims, members));
    }
    if found.is_empty() {
        return Ok(Vec::new());
    }
    let next_id = std::cell::Cell::new(module.header.as_ref().map_or(1, |h| h.bound));
    let fresh = || {
        let id = next_id.get();
        next_id.set(id + 1);
        id
    };
    let existing = module.types_global_values.iter().find_map(|i| {
        (i.class.opcode == Op::TypeInt
            && i.operands == [Operand::LiteralBit32(32), Operand::LiteralBit32(0)])
        .then_some(i.result_id)
        .flatten()
    });
    let uint = existing.unwrap_or_else(fresh);
    let mut new_globals = Vec::new();
    if existing.is_none() {
        new_globals.push(Instruction::new(
            Op::TypeInt,
            None,
            Some(uint),
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        ));
    }
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut constant = |value: u32, out: &mut Vec<Instruction>| {
        *constants.entry(value).or_insert_with(|| {
            let id = fresh();
            out.push(Instruction::new(
                Op::Constant,
                Some(uint),
                Some(id),
                vec![Operand::LiteralBit32(value)],
            ));
            id
        })
    };
    let pointer_to = |ty: u32, out: &mut Vec<Instruction>| {
        let p = fresh();
        out.push(Instruction::new(
            Op::TypePointer,
            None,
            Some(p),
            vec![
                Operand::StorageClass(StorageClass::UniformConstant),
                Operand::IdRef(ty),
            ],
        ));
        p
    };
    let mut names = Vec::new();
    let mut split = Vec::new();
    // old variable → (dimensions' strides, whether it is a structure, member index → (new
    // variable, element pointer))
    #[allow(clippy::type_complexity)]
    let mut rewrites: HashMap<u32, (Vec<u32>, bool, Vec<(u32, u32)>)> = HashMap::new();
    for (var, dims, members) in &found {
        let count: u32 = dims.iter().product();
        let strides: Vec<u32> = (0..dims.len())
            .map(|k| constant(dims[k + 1..].iter().product(), &mut new_globals))
            .collect();
        let base = types.names.get(var).cloned().unwrap_or_default();
        let mut targets = Vec::new();
        for (member, sampler) in members {
            let suffix = member
                .and_then(|(ty, k)| types.member_names.get(&(ty, k)))
                .map(|m| format!(".{m}"))
                .unwrap_or_default();
            let var_type = if dims.is_empty() {
                *sampler
            } else {
                let len = constant(count, &mut new_globals);
                let array = fresh();
                new_globals.push(Instruction::new(
                    Op::TypeArray,
                    None,
                    Some(array),
                    vec![Operand::IdRef(*sampler), Operand::IdRef(len)],
                ));
                array
            };
            let var_pointer = pointer_to(var_type, &mut new_globals);
            let element_pointer = pointer_to(*sampler, &mut new_globals);
            let new_var = fresh();
            new_globals.push(Instruction::new(
                Op::Variable,
                Some(var_pointer),
                Some(new_var),
                vec![Operand::StorageClass(StorageClass::UniformConstant)],
            ));
            names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![
                    Operand::IdRef(new_var),
                    Operand::LiteralString(format!("{base}{suffix}")),
                ],
            ));
            let elements = (0..count)
                .map(|i| {
                    let at = if dims.is_empty() {
                        String::new()
                    } else {
                        subscripts(i, dims)
                    };
                    format!("{base}{at}{suffix}")
                })
                .collect();
            split.push(SplitSampler {
                var: new_var,
                elements,
            });
            targets.push((new_var, element_pointer));
        }
        let is_struct = members.iter().any(|(m, _)| m.is_some());
        rewrites.insert(*var, (strides, is_struct, targets));
    }
    for function in &mut module.functions {
        for block in &mut function.blocks {
            let mut out = Vec::with_capacity(block.instructions.len());
            for mut inst in std::mem::take(&mut block.instructions) {
                let base = inst.operands.first().and_then(id);
                let Some((strides, is_struct, targets)) = base.and_then(|b| rewrites.get(&b))
                else {
                    if inst
                        .operands
                        .iter()
                        .filter_map(id)
                        .any(|i| rewrites.contains_key(&i))
                    {
                        return Err(SceneError::Skip(
                            "a sampler array of arrays or structure of samplers used whole \
                             is not supported"
                                .into(),
                        ));
                    }
                    out.push(inst);
                    continue;
                };
                let chain = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
                let indices: Vec<u32> = inst.operands[1..].iter().filter_map(id).collect();
                let member_index = usize::from(*is_struct);
                let depth = strides.len();
                if !chain || indices.len() != depth + member_index {
                    return Err(SceneError::Skip(
                        "a sampler array of arrays or structure of samplers used whole is not \
                         supported"
                            .into(),
                    ));
                }
                let member = if member_index == 1 {
                    let k = types.constant(indices[depth]).unwrap_or(u32::MAX) as usize;
                    *targets.get(k).ok_or_else(|| {
                        SceneError::Fail("a structure of samplers indexed out of range".into())
                    })?
                } else {
                    targets[0]
                };
                let mut flat = None;
                for (index, stride) in indices[..depth].iter().zip(strides) {
                    let term = fresh();
                    out.push(Instruction::new(
                        Op::IMul,
                        Some(uint),
                        Some(term),
                        vec![Operand::IdRef(*index), Operand::IdRef(*stride)],
                    ));
                    flat = Some(match flat {
                        None => term,
                        Some(sum) => {
                            let next = fresh();
                            out.push(Instruction::new(
                                Op::IAdd,
                                Some(uint),
                                Some(next),
                                vec![Operand::IdRef(sum), Operand::IdRef(term)],
                            ));
                            next
                        }
                    });
                }
                inst.result_type = Some(member.1);
                inst.operands = std::iter::once(Operand::IdRef(member.0))
                    .chain(flat.map(Operand::IdRef))
                    .collect();
                if inst.operands.len() == 1 {
                    // A structure (not an array) of samplers: its member is the variable.
                    inst = Instruction::new(
                        Op::CopyObject,
                        inst.result_type,
                        inst.result_id,
                        inst.operands,
                    );
                }
                out.push(inst);
            }
            block.instructions = out;
        }
    }
    // The old variables go, with their names and decorations; the new ones come after the
    // types they use.
    let old = |i: &Instruction| {
        i.result_id.is_some_and(|r| rewrites.contains_key(&r))
            || (matches!(i.class.opcode, Op::Name | Op::Decorate)
                && i.operands
                    .first()
                    .and_then(id)
                    .is_some_and(|t| rewrites.contains_key(&t)))
    };
    module.types_global_values.retain(|i| !old(i));
    module.debug_names.retain(|i| !old(i));
    module.annotations.retain(|i| !old(i));
    // So do the structures of samplers and the arrays and pointers of them (Vulkan forbids
    // an opaque type in a structure); a function still using one cannot be rewritten.
    let mut gone: std::collections::HashSet<u32> = found
        .iter()
        .flat_map(|(_, _, members)| members.iter().filter_map(|(m, _)| m.map(|(ty, _)| ty)))
        .collect();
    for inst in &module.types_global_values {
        let uses_gone = match inst.class.opcode {
            Op::TypeArray | Op::TypeRuntimeArray => inst.operands.first().and_then(id),
            Op::TypePointer => inst.operands.get(1).and_then(id),
            _ => None,
        };
        if let (Some(r), Some(t)) = (inst.result_id, uses_gone) {
            if gone.contains(&t) {
                gone.insert(r);
            }
        }
    }
    let used_in_functions = module.functions.iter().any(|f| {
        f.all_inst_iter().any(|i| {
            i.result_type.is_some_and(|t| gone.contains(&t))
                || i.operands.iter().filter_map(id).any(|o| gone.contains(&o))
        })
    });
    if used_in_functions {
        return Err(SceneError::Skip(
            "a structure of samplers used whole is not supported".into(),
        ));
    }
    let names_gone = |i: &Instruction| {
        i.result_id.is_some_and(|r| gone.contains(&r))
            || (matches!(
                i.class.opcode,
                Op::Name | Op::MemberName | Op::Decorate | Op::MemberDecorate
            ) && i
                .operands
                .first()
                .and_then(id)
                .is_some_and(|t| gone.contains(&t)))
    };
    module.types_global_values.retain(|i| !names_gone(i));
    module.debug_names.retain(|i| !names_gone(i));
    module.annotations.retain(|i| !names_gone(i));
    module.types_global_values.extend(new_globals);
    module.debug_names.extend(names);
    for entry in &mut module.entry_points {
        entry
            .operands
            .retain(|o| id(o).is_none_or(|i| !rewrites.contains_key(&i)));
        // From SPIR-V 1.4 the interface lists every global variable the entry point uses.
        if module
            .header
            .as_ref()
            .is_some_and(|h| h.version() >= (1, 4))
        {
            entry
                .operands
                .extend(split.iter().map(|s| Operand::IdRef(s.var)));
        }
    }
    if let Some(header) = module.header.as_mut() {
        header.bound = next_id.get();
    }
    Ok(split)
}

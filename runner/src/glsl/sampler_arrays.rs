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

/// One step from a sampler variable's type towards a sampler: an array level (its
/// length) or a structure's member (the structure type, the member's index).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Level {
    Array(u32),
    Member(u32, u32),
}

/// A sampler a variable holds: the levels to it and its sampled-image type.
struct Leaf {
    levels: Vec<Level>,
    sampler: u32,
}

/// The samplers type `ty` holds, each with its levels after `levels`; `false` when `ty`
/// holds anything but samplers (or is not a sampler, array or structure).
fn sampler_leaves(types: &Types, ty: u32, levels: &mut Vec<Level>, out: &mut Vec<Leaf>) -> bool {
    if let Some((len, elem)) = types.array(ty) {
        levels.push(Level::Array(len));
        let all = sampler_leaves(types, elem, levels, out);
        levels.pop();
        return all;
    }
    let Some(def) = types.def(ty) else {
        return false;
    };
    match def.class.opcode {
        // A storage image (`image2D`) splits the same way: one descriptor per element.
        Op::TypeSampledImage | Op::TypeImage => {
            out.push(Leaf {
                levels: levels.clone(),
                sampler: ty,
            });
            true
        }
        Op::TypeStruct => {
            let members: Vec<u32> = def.operands.iter().filter_map(id).collect();
            !members.is_empty()
                && members.iter().enumerate().all(|(k, &member)| {
                    levels.push(Level::Member(ty, k as u32));
                    let all = sampler_leaves(types, member, levels, out);
                    levels.pop();
                    all
                })
        }
        _ => false,
    }
}

/// A new sampler array variable and the GL names of its elements.
pub(super) struct SplitSampler {
    pub var: u32,
    pub elements: Vec<String>,
    /// Each element's uniform location after the old variable's first.
    pub locations: Vec<u32>,
}

/// The GL names of the samplers type `ty` holds, in GL's order of their uniform locations
/// (declaration order, each array element whole before the next).
fn gl_location_order(types: &Types, ty: u32, prefix: &str, out: &mut Vec<String>) {
    if let Some((len, elem)) = types.array(ty) {
        for i in 0..len {
            gl_location_order(types, elem, &format!("{prefix}[{i}]"), out);
        }
        return;
    }
    match types.def(ty) {
        Some(def) if def.class.opcode == Op::TypeStruct => {
            for (k, member) in def.operands.iter().filter_map(id).enumerate() {
                let name = types
                    .member_names
                    .get(&(ty, k as u32))
                    .cloned()
                    .unwrap_or_default();
                gl_location_order(types, member, &format!("{prefix}.{name}"), out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

/// Splits every UniformConstant variable that is an array of arrays of samplers or (an
/// array of) a structure whose members are all samplers; returns the new variables.
pub(super) fn split_sampler_arrays(
    module: &mut dr::Module,
) -> Result<Vec<SplitSampler>, SceneError> {
    let types = Types::new(module);
    // (old variable, its sampler leaves)
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
        let mut leaves = Vec::new();
        if !sampler_leaves(
            &types,
            types.pointee(ptr).unwrap_or(0),
            &mut Vec::new(),
            &mut leaves,
        ) {
            continue;
        }
        let nested = leaves.iter().any(|leaf: &Leaf| {
            let arrays = leaf
                .levels
                .iter()
                .filter(|l| matches!(l, Level::Array(_)))
                .count();
            arrays > 1 || leaf.levels.iter().any(|l| matches!(l, Level::Member(..)))
        });
        if nested {
            found.push((var, leaves));
        }
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
    // old variable → its leaves' (levels, new variable, element pointer, strides of its
    // array levels)
    #[allow(clippy::type_complexity)]
    let mut rewrites: HashMap<u32, Vec<(Vec<Level>, u32, u32, Vec<u32>)>> = HashMap::new();
    for (var, leaves) in &found {
        let base = types.names.get(var).cloned().unwrap_or_default();
        let mut location_order = Vec::new();
        let var_type = module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(*var))
            .and_then(|i| types.pointee(i.result_type?))
            .unwrap_or(0);
        gl_location_order(&types, var_type, &base, &mut location_order);
        let mut targets = Vec::new();
        for leaf in leaves {
            let dims: Vec<u32> = leaf
                .levels
                .iter()
                .filter_map(|l| match l {
                    Level::Array(len) => Some(*len),
                    Level::Member(..) => None,
                })
                .collect();
            let count: u32 = dims.iter().product();
            let strides: Vec<u32> = (0..dims.len())
                .map(|k| constant(dims[k + 1..].iter().product(), &mut new_globals))
                .collect();
            let member_name = |ty: u32, k: u32| {
                types
                    .member_names
                    .get(&(ty, k))
                    .cloned()
                    .unwrap_or_default()
            };
            let var_type = if dims.is_empty() {
                leaf.sampler
            } else {
                let len = constant(count, &mut new_globals);
                let array = fresh();
                new_globals.push(Instruction::new(
                    Op::TypeArray,
                    None,
                    Some(array),
                    vec![Operand::IdRef(leaf.sampler), Operand::IdRef(len)],
                ));
                array
            };
            let var_pointer = pointer_to(var_type, &mut new_globals);
            let element_pointer = pointer_to(leaf.sampler, &mut new_globals);
            let new_var = fresh();
            new_globals.push(Instruction::new(
                Op::Variable,
                Some(var_pointer),
                Some(new_var),
                vec![Operand::StorageClass(StorageClass::UniformConstant)],
            ));
            let members: String = leaf
                .levels
                .iter()
                .filter_map(|l| match l {
                    Level::Member(ty, k) => Some(format!(".{}", member_name(*ty, *k))),
                    Level::Array(_) => None,
                })
                .collect();
            names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![
                    Operand::IdRef(new_var),
                    Operand::LiteralString(format!("{base}{members}")),
                ],
            ));
            // GL's name of element i: the leaf's path with the subscripts of i (row-major
            // over its array levels).
            let elements = (0..count)
                .map(|i| {
                    let at = subscripts(i, &dims);
                    let mut subscripts = at.split_inclusive(']');
                    let path: String = leaf
                        .levels
                        .iter()
                        .map(|l| match l {
                            Level::Array(_) => subscripts.next().unwrap_or("").to_string(),
                            Level::Member(ty, k) => format!(".{}", member_name(*ty, *k)),
                        })
                        .collect();
                    format!("{base}{path}")
                })
                .collect::<Vec<String>>();
            let locations = elements
                .iter()
                .map(|e| {
                    location_order
                        .iter()
                        .position(|o| o == e)
                        .unwrap_or_default() as u32
                })
                .collect();
            split.push(SplitSampler {
                var: new_var,
                elements,
                locations,
            });
            targets.push((leaf.levels.clone(), new_var, element_pointer, strides));
        }
        rewrites.insert(*var, targets);
    }
    let pointee_of: HashMap<u32, u32> = module
        .types_global_values
        .iter()
        .filter_map(|i| {
            let var = i.result_id.filter(|v| rewrites.contains_key(v))?;
            Some((var, types.pointee(i.result_type?)?))
        })
        .collect();
    for function in &mut module.functions {
        for block in &mut function.blocks {
            let mut out = Vec::with_capacity(block.instructions.len());
            for mut inst in std::mem::take(&mut block.instructions) {
                let base = inst.operands.first().and_then(id);
                let Some(targets) = base.and_then(|b| rewrites.get(&b)) else {
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
                // Walk the old type along the indices: the leaf's levels and the indices
                // of its array levels.
                let mut ty = base.and_then(|b| pointee_of.get(&b)).copied().unwrap_or(0);
                let mut levels = Vec::new();
                let mut dynamic = Vec::new();
                for &index in &indices {
                    if let Some((len, elem)) = types.array(ty) {
                        levels.push(Level::Array(len));
                        dynamic.push(index);
                        ty = elem;
                    } else if let Some(def) =
                        types.def(ty).filter(|d| d.class.opcode == Op::TypeStruct)
                    {
                        let k = types.constant(index).unwrap_or(u32::MAX);
                        levels.push(Level::Member(ty, k));
                        ty = def
                            .operands
                            .iter()
                            .filter_map(id)
                            .nth(k as usize)
                            .unwrap_or(0);
                    } else {
                        break;
                    }
                }
                let target = targets.iter().find(|(l, ..)| *l == levels);
                let Some((_, new_var, element_pointer, strides)) = target.filter(|_| chain) else {
                    return Err(SceneError::Skip(
                        "a sampler array of arrays or structure of samplers used whole is not \
                         supported"
                            .into(),
                    ));
                };
                let member = (*new_var, *element_pointer);
                let indices = dynamic;
                let depth = strides.len();
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
        .flat_map(|(_, leaves)| leaves)
        .flat_map(|leaf| &leaf.levels)
        .filter_map(|l| match l {
            Level::Member(ty, _) => Some(*ty),
            Level::Array(_) => None,
        })
        .collect();
    // Types are declared before their uses: one pass finds the arrays, pointers and
    // structures of the structures that go.
    for inst in &module.types_global_values {
        let uses_gone = match inst.class.opcode {
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct => inst
                .operands
                .iter()
                .filter_map(id)
                .any(|t| gone.contains(&t)),
            Op::TypePointer => inst
                .operands
                .get(1)
                .and_then(id)
                .is_some_and(|t| gone.contains(&t)),
            _ => false,
        };
        if let (Some(r), true) = (inst.result_id, uses_gone) {
            gone.insert(r);
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

#[cfg(test)]
mod tests {
    use crate::glsl::tests::compiler;
    use crate::scene::{self, Stage};

    #[test]
    fn samplers_in_nested_structures_become_one_array_per_member() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.30\n[vertex shader passthrough]\n[fragment shader]\n#version 430\n\
             struct Inner { sampler2D tex; sampler2D tex2; };\n\
             struct S { Inner si[2][2]; sampler2D t[2]; };\n\
             uniform S s[2];\nuniform int n;\nout vec4 color;\n\
             void main() { color = texture(s[n].si[1][n].tex2, vec2(0)) + texture(s[1].t[n], vec2(0)); }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let fs = program.stage(Stage::Fragment).unwrap();
        let tex2 = fs.samplers.iter().find(|s| s.name == "s.si.tex2").unwrap();
        assert_eq!(tex2.count, 8);
        // Row-major over s[2], si[2][2]: element 5 is s[1].si[0][1].
        assert_eq!(tex2.elements[5], "s[1].si[0][1].tex2");
        let t = fs.samplers.iter().find(|s| s.name == "s.t").unwrap();
        assert_eq!(
            t.elements,
            ["s[0].t[0]", "s[0].t[1]", "s[1].t[0]", "s[1].t[1]"]
        );
        // GL's locations go in declaration order: s[0]'s eight `si` samplers, its two `t`,
        // then s[1]'s.
        assert_eq!(tex2.element_locations[5], 13);
        assert_eq!(t.element_locations, [8, 9, 18, 19]);
        // One active uniform per sampler, per innermost array of samplers, and `n`.
        assert_eq!(program.active_uniforms(), 19);
        let spv = std::env::temp_dir().join(format!("sampler_arrays_{}.spv", std::process::id()));
        let bytes: Vec<u8> = fs.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&spv, bytes).unwrap();
        let val = std::process::Command::new("spirv-val")
            .args(["--target-env", "vulkan1.1"])
            .arg(&spv)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&spv);
        assert!(
            val.status.success(),
            "{}",
            String::from_utf8_lossy(&val.stderr)
        );
    }
}

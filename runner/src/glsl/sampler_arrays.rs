//! Samplers in arrays of arrays and in structures made one-dimensional sampler arrays.
//!
//! glslang (`-R`) keeps `uniform sampler2D s[2][2]` and `uniform S s[4]` (a structure of
//! samplers) as one UniformConstant variable; Vulkan takes one-dimensional arrays of
//! descriptors only (VUID-StandaloneSpirv-UniformConstant-04655 and the arrays-of-arrays
//! rule). Each sampler member of the structure becomes its own variable, an array of all
//! the elements row-major (GL's order of their uniform locations), and each access chain
//! into the old variable indexes the new one with the flattened index. The GL name of
//! every element (`s[1][0]`, `s[2].tex`) is kept for the `uniform` commands that set units.

use std::collections::{HashMap, HashSet};

use glsem_spirv::module::{Editor, Inst, Module, Section, INTERFACE_LISTS_ALL_GLOBALS};
use spirv::{Op, StorageClass};

use super::resources::subscripts;
use super::spv::{edit, flat_index, parse, row_major_strides};
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
fn sampler_leaves(m: &Module, ty: u32, levels: &mut Vec<Level>, out: &mut Vec<Leaf>) -> bool {
    if let Some((element, length)) = m.array_length(ty) {
        levels.push(Level::Array(length));
        let all = sampler_leaves(m, element, levels, out);
        levels.pop();
        return all;
    }
    match m.global_op(ty) {
        // A storage image (`image2D`) splits the same way: one descriptor per element.
        Some(Op::TypeSampledImage | Op::TypeImage) => {
            out.push(Leaf {
                levels: levels.clone(),
                sampler: ty,
            });
            true
        }
        Some(Op::TypeStruct) => {
            let members = m.struct_members(ty).unwrap_or_default();
            !members.is_empty()
                && members.iter().enumerate().all(|(k, &member)| {
                    levels.push(Level::Member(ty, k as u32));
                    let all = sampler_leaves(m, member, levels, out);
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
pub(super) fn gl_location_order(m: &Module, ty: u32, prefix: &str, out: &mut Vec<String>) {
    if let Some((element, length)) = m.array_length(ty) {
        for i in 0..length {
            gl_location_order(m, element, &format!("{prefix}[{i}]"), out);
        }
        return;
    }
    match m.struct_members(ty) {
        Some(members) => {
            for (k, &member) in members.iter().enumerate() {
                let name = m.member_name(ty, k as u32).unwrap_or_default();
                gl_location_order(m, member, &format!("{prefix}.{name}"), out);
            }
        }
        None => out.push(prefix.to_string()),
    }
}

/// Where the accesses to one sampler leaf of an old variable go: the leaf's levels, its new
/// variable, the pointer type of one of its samplers and the stride constants of its array
/// levels.
struct LeafTarget {
    levels: Vec<Level>,
    var: u32,
    element_pointer: u32,
    strides: Vec<u32>,
}

const USED_WHOLE: &str =
    "a sampler array of arrays or structure of samplers used whole is not supported";

/// Splits every UniformConstant variable that is an array of arrays of samplers or (an
/// array of) a structure whose members are all samplers; returns the new variables.
/// `location_orders`: the GL location order of variables whose own type has lost the
/// uniform's other members (`move_struct_samplers`).
pub(super) fn split_sampler_arrays(
    module: &mut Vec<u32>,
    location_orders: &HashMap<u32, Vec<String>>,
) -> Result<Vec<SplitSampler>, SceneError> {
    let found = nested_sampler_variables(&parse(module));
    if found.is_empty() {
        return Ok(Vec::new());
    }
    edit(module, |editor| {
        let view = editor.module;
        let mut names = Vec::new();
        let mut split = Vec::new();
        // old variable → where its leaves go
        let mut rewrites: HashMap<u32, Vec<LeafTarget>> = HashMap::new();
        for (var, leaves) in &found {
            let base = view.name_of(*var).unwrap_or_default();
            let mut location_order = Vec::new();
            let var_type = view.variable(*var).map_or(0, |(_, ty)| ty);
            match location_orders.get(var) {
                Some(order) => location_order.clone_from(order),
                None => gl_location_order(view, var_type, &base, &mut location_order),
            }
            let targets = leaves
                .iter()
                .map(|leaf| {
                    let (target, sampler, name) =
                        declare_leaf(editor, leaf, &base, &location_order);
                    split.push(sampler);
                    names.push(name);
                    target
                })
                .collect();
            rewrites.insert(*var, targets);
        }
        rewrite_accesses(editor, &rewrites)?;
        // The old variables go, with their names and decorations.
        editor.remove_definitions(|i| rewrites.contains_key(&i));
        remove_sampler_structures(editor, &found)?;
        for (var, name) in &names {
            editor.name(*var, name);
        }
        // An interface lists a UniformConstant variable from SPIR-V 1.4 on, as it does the
        // variables that replace it.
        let lists_all = view.version() >= INTERFACE_LISTS_ALL_GLOBALS;
        editor.replace_in_interfaces(|listed| {
            let targets = rewrites.get(&listed)?;
            Some(if lists_all {
                targets.iter().map(|t| t.var).collect()
            } else {
                Vec::new()
            })
        });
        Ok(split)
    })
}

/// The UniformConstant variables holding samplers only, in arrays of arrays or in
/// structures, each with its sampler leaves.
fn nested_sampler_variables(m: &Module) -> Vec<(u32, Vec<Leaf>)> {
    let mut found = Vec::new();
    for (var, storage, pointee) in m.global_variables() {
        if storage != StorageClass::UniformConstant {
            continue;
        }
        let mut leaves = Vec::new();
        if !sampler_leaves(m, pointee, &mut Vec::new(), &mut leaves) {
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
    found
}

/// Declares the new variable of one sampler leaf of the old variable named `base`: where
/// its accesses go, its GL elements and their locations (their positions in
/// `location_order`), and its name.
fn declare_leaf(
    editor: &mut Editor,
    leaf: &Leaf,
    base: &str,
    location_order: &[String],
) -> (LeafTarget, SplitSampler, (u32, String)) {
    let dims: Vec<u32> = leaf
        .levels
        .iter()
        .filter_map(|l| match l {
            Level::Array(len) => Some(*len),
            Level::Member(..) => None,
        })
        .collect();
    let count: u32 = dims.iter().product();
    let strides = row_major_strides(editor, &dims);
    let view = editor.module;
    let member_name = |ty: u32, k: u32| view.member_name(ty, k).unwrap_or_default();
    let var_type = if dims.is_empty() {
        leaf.sampler
    } else {
        editor.type_array(leaf.sampler, count)
    };
    let element_pointer = editor.type_pointer(StorageClass::UniformConstant, leaf.sampler);
    let var = editor.add_variable(StorageClass::UniformConstant, var_type);
    let members: String = leaf
        .levels
        .iter()
        .filter_map(|l| match l {
            Level::Member(ty, k) => Some(format!(".{}", member_name(*ty, *k))),
            Level::Array(_) => None,
        })
        .collect();
    let name = (var, format!("{base}{members}"));
    // GL's name of element i: the leaf's path with the subscripts of i (row-major over its
    // array levels).
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
    let target = LeafTarget {
        levels: leaf.levels.clone(),
        var,
        element_pointer,
        strides,
    };
    let sampler = SplitSampler {
        var,
        elements,
        locations,
    };
    (target, sampler, name)
}

/// Points each access chain into an old variable at its leaf's new variable, indexed with
/// the flattened index of its array levels.
fn rewrite_accesses(
    editor: &mut Editor,
    rewrites: &HashMap<u32, Vec<LeafTarget>>,
) -> Result<(), SceneError> {
    let view = editor.module;
    for index in view.section_range(Section::Function) {
        let inst = view.insts.at(index);
        let used = inst
            .id_operands()
            .expect("glslang emits only opcodes of the grammar");
        if !used.iter().any(|i| rewrites.contains_key(i)) {
            continue;
        }
        // Chain words: result type, result, base, indices.
        let chain = matches!(inst.op(), Some(Op::AccessChain | Op::InBoundsAccessChain));
        let base = inst.operand(2);
        let (Some(targets), true) = (rewrites.get(&base), chain) else {
            return Err(SceneError::Skip(USED_WHOLE.into()));
        };
        let old_type = view.variable(base).map_or(0, |(_, ty)| ty);
        let (levels, dynamic) = walk_levels(view, old_type, &inst.operands()[3..]);
        let Some(target) = targets.iter().find(|t| t.levels == levels) else {
            return Err(SceneError::Skip(USED_WHOLE.into()));
        };
        let mut code = Vec::new();
        let flat = flat_index(editor, &mut code, &dynamic, &target.strides);
        let result = inst.operand(1);
        match flat {
            Some(flat) => editor.emit_as(
                &mut code,
                inst.op().expect("a chain"),
                target.element_pointer,
                result,
                &[target.var, flat],
            ),
            // A structure (not an array) of samplers: its member is the variable.
            None => editor.unary_as(
                &mut code,
                Op::CopyObject,
                target.element_pointer,
                result,
                target.var,
            ),
        }
        editor.replace(index, code);
    }
    Ok(())
}

/// Walks type `ty` along an access chain's indices: the levels it goes through and the
/// indices of its array levels.
fn walk_levels(m: &Module, mut ty: u32, indices: &[u32]) -> (Vec<Level>, Vec<u32>) {
    let mut levels = Vec::new();
    let mut dynamic = Vec::new();
    for &index in indices {
        if let Some((element, length)) = m.array_length(ty) {
            levels.push(Level::Array(length));
            dynamic.push(index);
            ty = element;
        } else if let Some(members) = m.struct_members(ty) {
            let k = m.constant_u32(index).unwrap_or(u32::MAX);
            levels.push(Level::Member(ty, k));
            ty = members.get(k as usize).copied().unwrap_or(0);
        } else {
            break;
        }
    }
    (levels, dynamic)
}

/// Removes the structures of samplers and the arrays and pointers of them (Vulkan forbids
/// an opaque type in a structure); a function still using one cannot be rewritten.
fn remove_sampler_structures(
    editor: &mut Editor,
    found: &[(u32, Vec<Leaf>)],
) -> Result<(), SceneError> {
    let view = editor.module;
    let mut gone: HashSet<u32> = found
        .iter()
        .flat_map(|(_, leaves)| leaves)
        .flat_map(|leaf| &leaf.levels)
        .filter_map(|l| match l {
            Level::Member(ty, _) => Some(*ty),
            Level::Array(_) => None,
        })
        .collect();
    let uses_gone = |inst: &Inst, gone: &HashSet<u32>| {
        inst.id_operands()
            .expect("glslang emits only opcodes of the grammar")
            .iter()
            .any(|t| gone.contains(t))
    };
    // Types are declared before their uses: one pass finds the arrays, pointers and
    // structures of the structures that go.
    for inst in view.insts.range(view.section_range(Section::Global)) {
        let composite = matches!(
            inst.op(),
            Some(Op::TypeArray | Op::TypeRuntimeArray | Op::TypeStruct | Op::TypePointer)
        );
        if let (Some(r), true) = (inst.result_id(), composite && uses_gone(&inst, &gone)) {
            gone.insert(r);
        }
    }
    let mut code = view.insts.range(view.section_range(Section::Function));
    if code.any(|i| uses_gone(&i, &gone)) {
        return Err(SceneError::Skip(
            "a structure of samplers used whole is not supported".into(),
        ));
    }
    editor.remove_definitions(|i| gone.contains(&i));
    Ok(())
}

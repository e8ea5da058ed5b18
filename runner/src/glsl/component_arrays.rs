//! Per-vertex arrays of arrays with a `Component` decoration, which GL allows and Vulkan
//! does not, split into one per-vertex array per inner element.

use std::collections::HashMap;

use glsem_spirv::module::Editor;
use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{arrayed, edit_words, id, rewrite_instructions, Additions, Types};
use crate::scene::ShaderStage;

/// Vulkan takes `Component` only on a scalar or vector or an array of them
/// (VUID-StandaloneSpirv-Component-04924; spirv-val counts a per-vertex array as one
/// too), and glslang puts it on per-vertex arrays of arrays (`layout(component = 3) in
/// float b[][6]` in a geometry or tessellation shader). Such a variable becomes one
/// per-vertex variable per element of its inner array, at the Location and Component that
/// element had. Its accesses must index the inner array with a constant or not at all
/// (`b[i]` is loaded or stored element by element); otherwise it is left as it is.
pub(super) fn split_component_arrays(stage: ShaderStage, module: &mut dr::Module) {
    let types = Types::new(module);
    let candidates: Vec<(u32, StorageClass, u32, u32)> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
        .filter_map(|i| {
            let storage = match i.operands.first() {
                Some(Operand::StorageClass(s @ (StorageClass::Input | StorageClass::Output))) => *s,
                _ => return None,
            };
            let var = i.result_id?;
            let per_vertex =
                arrayed(stage, storage) && types.decoration(var, Decoration::Patch).is_none();
            types.decoration(var, Decoration::Component)?;
            let (_, inner) = types.array(types.pointee(i.result_type?)?)?;
            let (_, element) = types.array(inner)?;
            (per_vertex && types.shape(element).is_some()).then_some((var, storage, inner, element))
        })
        .collect();
    for (var, storage, inner, element) in candidates {
        split_component_array(module, var, storage, inner, element);
    }
}

fn split_component_array(
    module: &mut dr::Module,
    var: u32,
    storage: StorageClass,
    inner: u32,
    element: u32,
) {
    let types = Types::new(module);
    let Some((length, _)) = types.array(inner) else {
        return;
    };
    let (Some(location), Some(outer)) = (
        types
            .decoration(var, Decoration::Location)
            .and_then(|v| v.first().copied()),
        module
            .types_global_values
            .iter()
            .find(|i| i.result_id == Some(var))
            .and_then(|i| types.pointee(i.result_type?))
            .and_then(|ptr| types.def(ptr))
            .and_then(|a| a.operands.get(1).and_then(id)),
    ) else {
        return;
    };
    let Some(rows) = splittable_rows(module, &types, var) else {
        return;
    };
    let slots = types.slots(element);
    let (parts, element_ptr) = edit_words(module, |editor| {
        declare_parts(
            editor,
            var,
            (storage, element, outer),
            length,
            (location, slots),
        )
    });
    let split = Split {
        var,
        element,
        element_ptr,
        parts,
        rows,
        types: &types,
    };
    let mut add = Additions::without_uint(module);
    rewrite_instructions(module, |inst, out| {
        split.rewrite(&mut add, inst, out);
        Ok::<(), ()>(())
    })
    .unwrap_or_default();
    let end = module.types_global_values.len();
    add.finish(module, end);
}

/// Declares `length` per-vertex variables of `element` (`outer` the per-vertex length
/// constant) in place of `var`, with its decorations (each at its element's Location, the
/// first at `location`, `slots` apart), names and entry-point interface places; returns
/// them and their element pointer type.
fn declare_parts(
    editor: &mut Editor,
    var: u32,
    (storage, element, outer): (StorageClass, u32, u32),
    length: u32,
    (location, slots): (u32, u32),
) -> (Vec<u32>, u32) {
    let m = editor.module;
    let per_vertex = editor.type_array_of_length(element, outer);
    let element_ptr = editor.type_pointer(storage, element);
    let parts: Vec<u32> = (0..length)
        .map(|_| editor.add_variable(storage, per_vertex))
        .collect();
    for &(decoration, literals) in m.decorations.get(&var).into_iter().flatten() {
        editor.remove_decoration(var, decoration);
        for (j, &part) in parts.iter().enumerate() {
            match decoration {
                Decoration::Location => {
                    editor.decorate(part, decoration, &[location + j as u32 * slots])
                }
                _ => editor.decorate(part, decoration, literals),
            }
        }
    }
    let name = m.names.get(&var).map(|n| n.decode()).unwrap_or_default();
    editor.remove_name(var);
    for (j, &part) in parts.iter().enumerate() {
        editor.name(part, &format!("{name}[{j}]"));
    }
    editor.replace_in_interfaces(|id| (id == var).then(|| parts.clone()));
    if let Some(&index) = m.globals.get(&var) {
        editor.remove(index);
    }
    (parts, element_ptr)
}

/// The chains to a vertex's inner array (`b[i]`) of `var`, (pointer, vertex index), when
/// every access to `var` indexes its inner array with a constant or not at all and each
/// row is loaded, stored, or indexed further with a constant; otherwise `None`.
fn splittable_rows(module: &dr::Module, types: &Types, var: u32) -> Option<HashMap<u32, u32>> {
    let code = || {
        module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
    };
    let is_chain =
        |i: &Instruction| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
    let mut rows: HashMap<u32, u32> = HashMap::new();
    for inst in code() {
        if !inst.operands.iter().any(|o| id(o) == Some(var)) {
            continue;
        }
        if !is_chain(inst) || inst.operands.first().and_then(id) != Some(var) {
            return None;
        }
        match inst.operands.get(2) {
            None => {
                let p = inst.result_id?;
                let vertex = inst.operands.get(1).and_then(id)?;
                rows.insert(p, vertex);
            }
            Some(o) if id(o).and_then(|c| types.constant(c)).is_some() => {}
            Some(_) => return None,
        }
    }
    for inst in code() {
        for (n, o) in inst.operands.iter().enumerate() {
            if !id(o).is_some_and(|p| rows.contains_key(&p)) {
                continue;
            }
            let fine = match inst.class.opcode {
                Op::Load => true,
                Op::Store => n == 0,
                Op::AccessChain | Op::InBoundsAccessChain => {
                    n == 0
                        && inst
                            .operands
                            .get(1)
                            .and_then(id)
                            .and_then(|c| types.constant(c))
                            .is_some()
                }
                _ => false,
            };
            if !fine {
                return None;
            }
        }
    }
    Some(rows)
}

/// One per-vertex array of arrays `var` being split into `parts`, one per inner element.
struct Split<'a> {
    var: u32,
    /// The inner array's element type.
    element: u32,
    /// The pointer type to one element of a part.
    element_ptr: u32,
    parts: Vec<u32>,
    /// The chains to a vertex's inner array: (pointer, vertex index).
    rows: HashMap<u32, u32>,
    types: &'a Types,
}

impl Split<'_> {
    /// Rewrites one instruction: chains into the variable or a row go to a part; a row's
    /// loads and stores go element by element.
    fn rewrite(&self, add: &mut Additions, inst: Instruction, out: &mut Vec<Instruction>) {
        let constant =
            |c: &Operand| id(c).and_then(|c| self.types.constant(c)).unwrap_or(0) as usize;
        let base = inst.operands.first().and_then(id);
        let row = base.and_then(|p| self.rows.get(&p).copied());
        match (inst.class.opcode, row) {
            // `b[i][j]…` → `b_j[i]…`
            (Op::AccessChain | Op::InBoundsAccessChain, _) if base == Some(self.var) => {
                if inst.operands.len() == 2 {
                    return;
                }
                let mut i = inst;
                let j = constant(&i.operands[2]);
                i.operands.remove(2);
                i.operands[0] = Operand::IdRef(self.parts[j]);
                out.push(i);
            }
            (Op::AccessChain | Op::InBoundsAccessChain, Some(vertex)) => {
                let mut i = inst;
                let j = constant(&i.operands[1]);
                i.operands[0] = Operand::IdRef(self.parts[j]);
                i.operands[1] = Operand::IdRef(vertex);
                out.push(i);
            }
            (Op::Load, Some(vertex)) => {
                let mut loaded = Vec::new();
                for &part in &self.parts {
                    let p = add.emit(out, Op::AccessChain, self.element_ptr, &[part, vertex]);
                    let v = add.emit(out, Op::Load, self.element, &[p]);
                    loaded.push(Operand::IdRef(v));
                }
                out.push(Instruction::new(
                    Op::CompositeConstruct,
                    inst.result_type,
                    inst.result_id,
                    loaded,
                ));
            }
            (Op::Store, Some(vertex)) => {
                let value = inst.operands[1].clone();
                for (j, &part) in self.parts.iter().enumerate() {
                    let e = add.fresh();
                    out.push(Instruction::new(
                        Op::CompositeExtract,
                        Some(self.element),
                        Some(e),
                        vec![value.clone(), Operand::LiteralBit32(j as u32)],
                    ));
                    let p = add.emit(out, Op::AccessChain, self.element_ptr, &[part, vertex]);
                    out.push(Instruction::new(
                        Op::Store,
                        None,
                        None,
                        vec![Operand::IdRef(p), Operand::IdRef(e)],
                    ));
                }
            }
            _ => out.push(inst),
        }
    }
}

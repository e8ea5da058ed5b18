//! Per-vertex arrays of arrays with a `Component` decoration, which GL allows and Vulkan
//! does not, split into one per-vertex array per inner element.

use std::collections::HashMap;

use glsem_spirv::layout;
use glsem_spirv::module::{Editor, Inst, Module, Section, Type};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{arrayed, edit, parse};
use crate::scene::ShaderStage;

/// Vulkan takes `Component` only on a scalar or vector or an array of them
/// (VUID-StandaloneSpirv-Component-04924; spirv-val counts a per-vertex array as one
/// too), and glslang puts it on per-vertex arrays of arrays (`layout(component = 3) in
/// float b[][6]` in a geometry or tessellation shader). Such a variable becomes one
/// per-vertex variable per element of its inner array, at the Location and Component that
/// element had. Its accesses must index the inner array with a constant or not at all
/// (`b[i]` is loaded or stored element by element); otherwise it is left as it is.
pub(super) fn split_component_arrays(stage: ShaderStage, module: &mut Vec<u32>) {
    let candidates = {
        let view = &parse(module);
        view.global_variables()
            .filter_map(|(var, storage, pointee)| {
                if !matches!(storage, StorageClass::Input | StorageClass::Output) {
                    return None;
                }
                let per_vertex =
                    arrayed(stage, storage) && !view.has_decoration(var, Decoration::Patch);
                view.decoration(var, Decoration::Component)?;
                let (inner, _) = view.array_length(pointee)?;
                let (element, _) = view.array_length(inner)?;
                (per_vertex && is_shaped(view, element)).then_some((var, storage, inner, element))
            })
            .collect::<Vec<_>>()
    };
    for (var, storage, inner, element) in candidates {
        edit(module, |editor| {
            split_component_array(editor, var, storage, inner, element)
        });
    }
}

/// Whether `ty` is a scalar, vector or matrix.
fn is_shaped(view: &Module, ty: u32) -> bool {
    matches!(
        view.type_of(ty),
        Some(
            Type::Bool
                | Type::Int { .. }
                | Type::Float { .. }
                | Type::Vector { .. }
                | Type::Matrix { .. }
        )
    )
}

fn split_component_array(
    editor: &mut Editor,
    var: u32,
    storage: StorageClass,
    inner: u32,
    element: u32,
) {
    let view = editor.module;
    let Some((_, length)) = view.array_length(inner) else {
        return;
    };
    let location = view
        .decoration(var, Decoration::Location)
        .and_then(|v| v.first().copied());
    let outer = view
        .variable(var)
        .and_then(|(_, pointee)| match view.type_of(pointee) {
            Some(Type::Array { length, .. }) => Some(*length),
            _ => None,
        });
    let (Some(location), Some(outer)) = (location, outer) else {
        return;
    };
    let Some(rows) = splittable_rows(view, var) else {
        return;
    };
    let slots = layout::location_slots(view, element).unwrap_or(1);
    let (parts, element_ptr) = declare_parts(
        editor,
        var,
        (storage, element, outer),
        length,
        (location, slots),
    );
    let split = Split {
        var,
        element,
        element_ptr,
        parts,
        rows,
    };
    for index in view.section_range(Section::Function) {
        split.rewrite(editor, index);
    }
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
fn splittable_rows(view: &Module, var: u32) -> Option<HashMap<u32, u32>> {
    let code = || view.insts.range(view.section_range(Section::Function));
    let uses = |inst: &Inst, id: &dyn Fn(u32) -> bool| {
        inst.id_operands()
            .expect("glslang emits only opcodes of the grammar")
            .into_iter()
            .any(id)
    };
    let is_constant = |c: u32| view.constant_u32(c).is_some();
    // Chain words: result type, result, base, then the indices.
    let mut rows: HashMap<u32, u32> = HashMap::new();
    for inst in code() {
        if !uses(&inst, &|v| v == var) {
            continue;
        }
        if !is_chain(&inst) || inst.operand(2) != var {
            return None;
        }
        match inst.operands().get(4) {
            None => {
                let vertex = *inst.operands().get(3)?;
                rows.insert(inst.result_id()?, vertex);
            }
            Some(&c) if is_constant(c) => {}
            Some(_) => return None,
        }
    }
    for inst in code() {
        if !uses(&inst, &|v| rows.contains_key(&v)) {
            continue;
        }
        let row_only_at = |at: usize| {
            let ids = inst.operands().iter().enumerate().skip(2);
            !ids.filter(|&(n, _)| n != at)
                .any(|(_, v)| rows.contains_key(v))
        };
        let fine = match inst.op() {
            Some(Op::Load) => true,
            // Words: pointer, value.
            Some(Op::Store) => !rows.contains_key(&inst.operand(1)),
            _ if is_chain(&inst) => {
                rows.contains_key(&inst.operand(2))
                    && row_only_at(2)
                    && inst.operands().get(3).is_some_and(|&c| is_constant(c))
            }
            _ => false,
        };
        if !fine {
            return None;
        }
    }
    Some(rows)
}

fn is_chain(inst: &Inst) -> bool {
    matches!(inst.op(), Some(Op::AccessChain | Op::InBoundsAccessChain))
}

/// One per-vertex array of arrays `var` being split into `parts`, one per inner element.
struct Split {
    var: u32,
    /// The inner array's element type.
    element: u32,
    /// The pointer type to one element of a part.
    element_ptr: u32,
    parts: Vec<u32>,
    /// The chains to a vertex's inner array: (pointer, vertex index).
    rows: HashMap<u32, u32>,
}

impl Split {
    /// Rewrites instruction `index`: chains into the variable or a row go to a part; a
    /// row's loads and stores go element by element.
    fn rewrite(&self, editor: &mut Editor, index: usize) {
        let view = editor.module;
        let inst = view.insts.at(index);
        let constant = |c: u32| view.constant_u32(c).unwrap_or(0) as usize;
        let words = inst.words;
        let row = self.rows.get(&inst.operand(2)).copied();
        match (inst.op(), row) {
            // `b[i][j]…` → `b_j[i]…`; `b[i]` alone goes with its uses.
            (Some(Op::AccessChain | Op::InBoundsAccessChain), _) if inst.operand(2) == self.var => {
                if words.len() == 5 {
                    editor.remove(index);
                    return;
                }
                let mut chain = words.to_vec();
                let j = constant(chain.remove(5));
                chain[0] -= 1 << 16;
                chain[3] = self.parts[j];
                editor.replace(index, chain);
            }
            (Some(Op::AccessChain | Op::InBoundsAccessChain), Some(vertex)) => {
                let j = constant(inst.operand(3));
                editor.patch_word(index, 3, self.parts[j]);
                editor.patch_word(index, 4, vertex);
            }
            (Some(Op::Load), _) => {
                let Some(&vertex) = self.rows.get(&inst.operand(2)) else {
                    return;
                };
                let mut code = Vec::new();
                let loaded: Vec<u32> = self
                    .parts
                    .iter()
                    .map(|&part| {
                        let p = editor.access_chain(&mut code, self.element_ptr, part, &[vertex]);
                        editor.load(&mut code, self.element, p)
                    })
                    .collect();
                let (ty, result) = (inst.operand(0), inst.operand(1));
                editor.emit_as(&mut code, Op::CompositeConstruct, ty, result, &loaded);
                editor.replace(index, code);
            }
            (Some(Op::Store), _) => {
                let Some(&vertex) = self.rows.get(&inst.operand(0)) else {
                    return;
                };
                let value = inst.operand(1);
                let mut code = Vec::new();
                for (j, &part) in self.parts.iter().enumerate() {
                    let e = editor.composite_extract(&mut code, self.element, value, &[j as u32]);
                    let p = editor.access_chain(&mut code, self.element_ptr, part, &[vertex]);
                    editor.store(&mut code, p, e);
                }
                editor.replace(index, code);
            }
            _ => {}
        }
    }
}

//! Per-vertex arrays of arrays with a `Component` decoration, which GL allows and Vulkan
//! does not, split into one per-vertex array per inner element.

use std::collections::HashMap;

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{arrayed, id, Types};
use crate::scene::Stage;

/// Vulkan takes `Component` only on a scalar or vector or an array of them
/// (VUID-StandaloneSpirv-Component-04924; spirv-val counts a per-vertex array as one
/// too), and glslang puts it on per-vertex arrays of arrays (`layout(component = 3) in
/// float b[][6]` in a geometry or tessellation shader). Such a variable becomes one
/// per-vertex variable per element of its inner array, at the Location and Component that
/// element had. Its accesses must index the inner array with a constant or not at all
/// (`b[i]` is loaded or stored element by element); otherwise it is left as it is.
pub(super) fn split_component_arrays(stage: Stage, module: &mut dr::Module) {
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
    let code = || {
        module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
    };
    let is_chain =
        |i: &Instruction| matches!(i.class.opcode, Op::AccessChain | Op::InBoundsAccessChain);
    // Chains to a vertex's inner array (`b[i]`): (pointer, vertex index).
    let mut rows: HashMap<u32, u32> = HashMap::new();
    for inst in code() {
        if !inst.operands.iter().any(|o| id(o) == Some(var)) {
            continue;
        }
        if !is_chain(inst) || inst.operands.first().and_then(id) != Some(var) {
            return;
        }
        match inst.operands.get(2) {
            None => {
                let (Some(p), Some(vertex)) = (inst.result_id, inst.operands.get(1).and_then(id))
                else {
                    return;
                };
                rows.insert(p, vertex);
            }
            Some(o) if id(o).and_then(|c| types.constant(c)).is_some() => {}
            Some(_) => return,
        }
    }
    // A row may be loaded, stored, or indexed further with a constant.
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
                return;
            }
        }
    }

    let header = module
        .header
        .as_mut()
        .expect("a loaded module has a header");
    let mut fresh = || {
        header.bound += 1;
        header.bound - 1
    };
    let mut new_globals = Vec::new();
    let mut type_of = |op: Op, operands: Vec<Operand>, new_globals: &mut Vec<Instruction>| {
        let found = module
            .types_global_values
            .iter()
            .chain(new_globals.iter())
            .find(|i| i.class.opcode == op && i.operands == operands);
        match found.and_then(|i| i.result_id) {
            Some(t) => t,
            None => {
                let t = fresh();
                new_globals.push(Instruction::new(op, None, Some(t), operands));
                t
            }
        }
    };
    let per_vertex = type_of(
        Op::TypeArray,
        vec![Operand::IdRef(element), Operand::IdRef(outer)],
        &mut new_globals,
    );
    let var_ptr = type_of(
        Op::TypePointer,
        vec![Operand::StorageClass(storage), Operand::IdRef(per_vertex)],
        &mut new_globals,
    );
    let element_ptr = type_of(
        Op::TypePointer,
        vec![Operand::StorageClass(storage), Operand::IdRef(element)],
        &mut new_globals,
    );
    let slots = types.slots(element);
    let parts: Vec<u32> = (0..length)
        .map(|_| {
            let v = fresh();
            new_globals.push(Instruction::new(
                Op::Variable,
                Some(var_ptr),
                Some(v),
                vec![Operand::StorageClass(storage)],
            ));
            v
        })
        .collect();
    // The parts take the variable's decorations, each at its element's Location.
    let mut decorations = Vec::new();
    module.annotations.retain(|i| {
        if i.class.opcode != Op::Decorate || i.operands.first() != Some(&Operand::IdRef(var)) {
            return true;
        }
        for (j, &part) in parts.iter().enumerate() {
            let mut d = i.clone();
            d.operands[0] = Operand::IdRef(part);
            if d.operands.get(1) == Some(&Operand::Decoration(Decoration::Location)) {
                d.operands[2] = Operand::LiteralBit32(location + j as u32 * slots);
            }
            decorations.push(d);
        }
        false
    });
    module.annotations.extend(decorations);
    let name = types.names.get(&var).cloned().unwrap_or_default();
    module
        .debug_names
        .retain(|i| i.operands.first() != Some(&Operand::IdRef(var)));
    for (j, &part) in parts.iter().enumerate() {
        module.debug_names.push(Instruction::new(
            Op::Name,
            None,
            None,
            vec![
                Operand::IdRef(part),
                Operand::LiteralString(format!("{name}[{j}]")),
            ],
        ));
    }
    for entry in &mut module.entry_points {
        if let Some(at) = entry
            .operands
            .iter()
            .position(|o| *o == Operand::IdRef(var))
        {
            entry
                .operands
                .splice(at..=at, parts.iter().map(|&p| Operand::IdRef(p)));
        }
    }
    module
        .types_global_values
        .retain(|i| i.result_id != Some(var));
    module.types_global_values.extend(new_globals);

    let constant = |c: &Operand| id(c).and_then(|c| types.constant(c)).unwrap_or(0) as usize;
    let chain = |p: u32, part: u32, vertex: u32, rest: &[Operand]| {
        let mut operands = vec![Operand::IdRef(part), Operand::IdRef(vertex)];
        operands.extend_from_slice(rest);
        Instruction::new(Op::AccessChain, Some(element_ptr), Some(p), operands)
    };
    for block in module.functions.iter_mut().flat_map(|f| &mut f.blocks) {
        let mut out = Vec::with_capacity(block.instructions.len());
        for inst in block.instructions.drain(..) {
            let base = inst.operands.first().and_then(id);
            match inst.class.opcode {
                // `b[i][j]…` → `b_j[i]…`
                Op::AccessChain | Op::InBoundsAccessChain if base == Some(var) => {
                    if inst.operands.len() == 2 {
                        continue;
                    }
                    let mut i = inst;
                    let j = constant(&i.operands[2]);
                    i.operands.remove(2);
                    i.operands[0] = Operand::IdRef(parts[j]);
                    out.push(i);
                }
                Op::AccessChain | Op::InBoundsAccessChain
                    if base.is_some_and(|p| rows.contains_key(&p)) =>
                {
                    let mut i = inst;
                    let vertex = rows[&base.unwrap_or_default()];
                    let j = constant(&i.operands[1]);
                    i.operands[0] = Operand::IdRef(parts[j]);
                    i.operands[1] = Operand::IdRef(vertex);
                    out.push(i);
                }
                Op::Load if base.is_some_and(|p| rows.contains_key(&p)) => {
                    let vertex = rows[&base.unwrap_or_default()];
                    let mut loaded = Vec::new();
                    for &part in &parts {
                        let (p, v) = (fresh(), fresh());
                        out.push(chain(p, part, vertex, &[]));
                        out.push(Instruction::new(
                            Op::Load,
                            Some(element),
                            Some(v),
                            vec![Operand::IdRef(p)],
                        ));
                        loaded.push(Operand::IdRef(v));
                    }
                    out.push(Instruction::new(
                        Op::CompositeConstruct,
                        inst.result_type,
                        inst.result_id,
                        loaded,
                    ));
                }
                Op::Store if base.is_some_and(|p| rows.contains_key(&p)) => {
                    let vertex = rows[&base.unwrap_or_default()];
                    let value = inst.operands[1].clone();
                    for (j, &part) in parts.iter().enumerate() {
                        let (e, p) = (fresh(), fresh());
                        out.push(Instruction::new(
                            Op::CompositeExtract,
                            Some(element),
                            Some(e),
                            vec![value.clone(), Operand::LiteralBit32(j as u32)],
                        ));
                        out.push(chain(p, part, vertex, &[]));
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
        block.instructions = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::tests::compiler;
    use crate::scene;

    /// A per-vertex array of arrays with a Component becomes one per-vertex array per
    /// inner element, each at its element's Location.
    #[test]
    fn component_arrays_of_arrays_are_split() {
        let scene = scene::parse(
            "[require]\nGLSL >= 1.50\n[vertex shader]\n#version 150\n\
             #extension GL_ARB_enhanced_layouts: require\n#extension GL_ARB_separate_shader_objects: require\nin vec4 piglit_vertex;\n\
             layout(location = 0) out vec3 a[2];\nlayout(location = 0, component = 3) out float b[2];\n\
             void main() { gl_Position = piglit_vertex; a[0] = a[1] = vec3(1.0); b[0] = 2.0; b[1] = 3.0; }\n\
             [geometry shader]\n#version 150\n#extension GL_ARB_enhanced_layouts: require\n#extension GL_ARB_separate_shader_objects: require\n\
             #extension GL_ARB_arrays_of_arrays: require\nlayout(triangles) in;\n\
             layout(points, max_vertices = 1) out;\nlayout(location = 0) in vec3 a[3][2];\n\
             layout(location = 0, component = 3) in float b[3][2];\nout float c;\n\
             void main() { float r[2] = b[1]; c = r[0] + b[2][1] + a[0][1].x; EmitVertex(); }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let gs = &program.stage(Stage::Geometry).unwrap().words;
        let module = dr::load_words(gs).unwrap();
        let types = Types::new(&module);
        for (j, name) in ["b[0]", "b[1]"].iter().enumerate() {
            let var = *types.names.iter().find(|(_, n)| n == name).unwrap().0;
            assert_eq!(
                types.decoration(var, Decoration::Location),
                Some(&[j as u32][..])
            );
            assert_eq!(types.decoration(var, Decoration::Component), Some(&[3][..]));
        }
        assert!(!types.names.values().any(|n| n == "b"));
    }
}

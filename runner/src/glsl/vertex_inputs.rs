//! The vertex shader's inputs as GL numbers and feeds them: a `dvec3`/`dvec4` takes one GL
//! location but two Vulkan ones, and 64-bit inputs are read as 32-bit words (devices need
//! not read 64-bit vertex formats).

use std::collections::{BTreeSet, HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{id, set_decoration, Types};
use super::{Scalar, VertexInput};
use crate::scene::SceneError;

/// GL's linker gives the vertex inputs without `layout(location)` locations that no
/// explicitly located input holds (GL 4.6 core, 11.1.1); glslang (`--aml`) numbers them from
/// 0 whatever the explicit ones hold. Moves each unlocated input that collides (`explicit`:
/// the names declared with a location) to the lowest free GL locations; the runner feeds
/// inputs by name, so which free ones GL would pick does not matter. Returns whether it
/// moved one.
pub(super) fn place_unlocated_inputs(module: &mut dr::Module, explicit: &HashSet<String>) -> bool {
    let types = Types::new(module);
    // (variable, GL location, GL locations it takes, explicitly located)
    let mut inputs: Vec<(u32, u32, u32, bool)> = types
        .interface_variables(module)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let location = *types.decoration(var, Decoration::Location)?.first()?;
            let (elements, element) = types.array(ty).unwrap_or((1, ty));
            let (_, columns, _) = types.shape(element)?;
            let named = types.names.get(&var).is_some_and(|n| explicit.contains(n));
            Some((var, location, elements * columns, named))
        })
        .collect();
    inputs.sort_by_key(|&(_, location, _, explicit)| (!explicit, location));
    let mut used = BTreeSet::new();
    let mut moves = Vec::new();
    for (var, location, count, explicit) in inputs {
        let free = |start: u32| (start..start + count).all(|l| !used.contains(&l));
        let start = if explicit || free(location) {
            location
        } else {
            let start = (0..).find(|&s| free(s)).unwrap_or(location);
            moves.push((var, start));
            start
        };
        used.extend(start..start + count);
    }
    for &(var, location) in &moves {
        set_decoration(module, var, Decoration::Location, location);
    }
    !moves.is_empty()
}

/// Gives the vertex shader's inputs Vulkan locations: a `dvec3` or `dvec4` (each element,
/// each matrix column) takes one GL location but two Vulkan ones, so every input after one
/// moves up by one. Returns GL's location of each input it moved.
pub(super) fn spread_wide_inputs(module: &mut dr::Module) -> HashMap<u32, u32> {
    let types = Types::new(module);
    // (variable, GL location, GL locations it takes, whether each is wide)
    let inputs: Vec<(u32, u32, u32, bool)> = types
        .interface_variables(module)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let location = *types.decoration(var, Decoration::Location)?.first()?;
            let (elements, element) = types.array(ty).unwrap_or((1, ty));
            let (_, columns, _) = types.shape(element)?;
            let wide = types.slots(element) == 2 * columns;
            Some((var, location, elements * columns, wide))
        })
        .collect();
    let wide_below = |location: u32| {
        inputs
            .iter()
            .filter(|(_, _, _, wide)| *wide)
            .map(|(_, start, count, _)| (*start..start + count).filter(|l| *l < location).count())
            .sum::<usize>() as u32
    };
    let mut moved = HashMap::new();
    for &(var, location, _, _) in &inputs {
        let shift = wide_below(location);
        if shift > 0 {
            set_decoration(module, var, Decoration::Location, location + shift);
            moved.insert(var, location);
        }
    }
    moved
}

/// Devices need not read 64-bit vertex formats (lavapipe does not): each `double` or
/// `dvecN` vertex input becomes 32-bit words, `uvec2`/`uvec4` (a `dvec3`/`dvec4`:
/// `uvec4[2]`, its two locations), read from the same bytes with 32-bit uint formats and
/// put back together with `OpBitcast` at each load (the runner feeds them so).
pub(super) fn split_double_inputs(module: &mut dr::Module) -> Result<(), SceneError> {
    let types = Types::new(module);
    // (variable, components, double type)
    let inputs: Vec<(u32, u32, u32)> = types
        .interface_variables(module)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let (scalar, columns, rows) = types.shape(ty)?;
            let double = match types.def(ty)?.class.opcode {
                Op::TypeVector => types.def(ty)?.operands.first().and_then(id)?,
                _ => ty,
            };
            (scalar == Scalar::Double && columns == 1).then_some((var, rows, double))
        })
        .collect();
    if inputs.is_empty() {
        return Ok(());
    }
    let next_id = std::cell::Cell::new(module.header.as_ref().map_or(1, |h| h.bound));
    let fresh = || {
        let id = next_id.get();
        next_id.set(id + 1);
        id
    };
    // Types and constants: the module's own when it has them (SPIR-V forbids duplicate
    // scalar, vector and pointer types), else new ones before the first variable.
    let mut new_globals: Vec<Instruction> = Vec::new();
    let mut global = |op: Op, result_type: Option<u32>, operands: Vec<Operand>| {
        let same = |i: &Instruction| {
            i.class.opcode == op && i.result_type == result_type && i.operands == operands
        };
        if let Some(id) = module
            .types_global_values
            .iter()
            .chain(new_globals.iter())
            .find(|i| same(i))
            .and_then(|i| i.result_id)
        {
            return id;
        }
        let id = fresh();
        new_globals.push(Instruction::new(op, result_type, Some(id), operands));
        id
    };
    let bits = |n: u32| Operand::LiteralBit32(n);
    let uint = global(Op::TypeInt, None, vec![bits(32), bits(0)]);
    let uvec2 = global(Op::TypeVector, None, vec![Operand::IdRef(uint), bits(2)]);
    let uvec4 = global(Op::TypeVector, None, vec![Operand::IdRef(uint), bits(4)]);
    let input_uvec4 = global(
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(uvec4),
        ],
    );
    let zero = global(Op::Constant, Some(uint), vec![bits(0)]);
    let one = global(Op::Constant, Some(uint), vec![bits(1)]);
    let two = global(Op::Constant, Some(uint), vec![bits(2)]);
    let pair = global(
        Op::TypeArray,
        None,
        vec![Operand::IdRef(uvec4), Operand::IdRef(two)],
    );
    let input_pair = global(
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(pair),
        ],
    );
    let input_uvec2 = global(
        Op::TypePointer,
        None,
        vec![
            Operand::StorageClass(StorageClass::Input),
            Operand::IdRef(uvec2),
        ],
    );
    // The new type of each input: uvec2 for a double, uvec4 for a dvec2, uvec4[2] beyond.
    let new_pointer = |n: u32| match n {
        1 => input_uvec2,
        2 => input_uvec4,
        _ => input_pair,
    };
    let first_var = module
        .types_global_values
        .iter()
        .position(|i| i.class.opcode == Op::Variable)
        .unwrap_or(module.types_global_values.len());
    for &(var, n, _) in &inputs {
        if let Some(inst) = module
            .types_global_values
            .iter_mut()
            .find(|i| i.result_id == Some(var))
        {
            inst.result_type = Some(new_pointer(n));
        }
    }
    module
        .types_global_values
        .splice(first_var..first_var, new_globals);
    for function in &mut module.functions {
        for block in &mut function.blocks {
            let mut out = Vec::with_capacity(block.instructions.len());
            for inst in std::mem::take(&mut block.instructions) {
                let pointer = inst.operands.first().and_then(id);
                let Some(&(_, n, double)) = inputs.iter().find(|(v, ..)| Some(*v) == pointer)
                else {
                    out.push(inst);
                    continue;
                };
                if inst.class.opcode != Op::Load {
                    return Err(SceneError::Skip(
                        "a double vertex input used other than loaded whole is not supported"
                            .into(),
                    ));
                }
                let var = pointer.unwrap_or(0);
                // The 32-bit words: one uvec2/uvec4, or the two uvec4 of the array.
                let mut words = Vec::new();
                if n <= 2 {
                    let loaded = fresh();
                    let ty = if n == 1 { uvec2 } else { uvec4 };
                    out.push(Instruction::new(
                        Op::Load,
                        Some(ty),
                        Some(loaded),
                        vec![Operand::IdRef(var)],
                    ));
                    words.push(loaded);
                } else {
                    for index in [zero, one] {
                        let element = fresh();
                        let loaded = fresh();
                        out.push(Instruction::new(
                            Op::AccessChain,
                            Some(input_uvec4),
                            Some(element),
                            vec![Operand::IdRef(var), Operand::IdRef(index)],
                        ));
                        out.push(Instruction::new(
                            Op::Load,
                            Some(uvec4),
                            Some(loaded),
                            vec![Operand::IdRef(element)],
                        ));
                        words.push(loaded);
                    }
                }
                let mut components = Vec::new();
                for k in 0..n {
                    let source = words[(k / 2) as usize];
                    let low = 2 * (k % 2);
                    let halves = if n == 1 {
                        source
                    } else {
                        let shuffled = fresh();
                        out.push(Instruction::new(
                            Op::VectorShuffle,
                            Some(uvec2),
                            Some(shuffled),
                            vec![
                                Operand::IdRef(source),
                                Operand::IdRef(source),
                                bits(low),
                                bits(low + 1),
                            ],
                        ));
                        shuffled
                    };
                    let value = if n == 1 {
                        inst.result_id
                    } else {
                        Some(fresh())
                    };
                    out.push(Instruction::new(
                        Op::Bitcast,
                        Some(double),
                        value,
                        vec![Operand::IdRef(halves)],
                    ));
                    components.extend(value);
                }
                if n > 1 {
                    out.push(Instruction::new(
                        Op::CompositeConstruct,
                        inst.result_type,
                        inst.result_id,
                        components.into_iter().map(Operand::IdRef).collect(),
                    ));
                }
            }
            block.instructions = out;
        }
    }
    if let Some(header) = module.header.as_mut() {
        header.bound = next_id.get();
    }
    Ok(())
}

impl Types {
    /// `gl_locations`: GL's location of the inputs that `spread_wide_inputs` moved.
    pub(super) fn vertex_inputs(
        &self,
        module: &dr::Module,
        gl_locations: &HashMap<u32, u32>,
    ) -> Vec<VertexInput> {
        self.interface_variables(module)
            .into_iter()
            .filter(|(_, s, _)| *s == StorageClass::Input)
            .filter_map(|(var, _, ty)| {
                let (elements, ty) = self.array(ty).unwrap_or((1, ty));
                let (scalar, columns, rows) = self.shape(ty)?;
                let vk_location = *self.decoration(var, Decoration::Location)?.first()?;
                Some(VertexInput {
                    elements,
                    slots: self.slots(ty),
                    name: self.names.get(&var).cloned().unwrap_or_default(),
                    location: gl_locations.get(&var).copied().unwrap_or(vk_location),
                    vk_location,
                    scalar,
                    components: if columns == 1 { rows } else { 0 },
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::tests::{compiler, location_of, variable_type};
    use crate::scene;
    use crate::scene::Stage;

    #[test]
    fn unlocated_inputs_take_locations_no_explicit_input_holds() {
        // GL assigns `col` and `m` around `pos`'s explicit location 0 (and `m`'s four
        // columns around `n` at 5); glslang alone numbers `col` 0 as well.
        let scene = scene::parse(
            "[require]\nGLSL >= 3.30\n[vertex shader]\n#version 330\nin vec4 col;\n\
             layout(location = 0) in vec4 pos;\nin mat4 m;\nlayout(location = 5) in vec4 n;\n\
             out vec4 c;\nvoid main() { gl_Position = pos; c = col + m[3] + n; }\n\
             [fragment shader]\n#version 330\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let words = &program.stage(Stage::Vertex).unwrap().words;
        let at = |name: &str| location_of(words, name).unwrap();
        assert_eq!((at("pos"), at("n")), (0, 5));
        let mut taken: Vec<u32> = vec![0, 5, at("col")];
        taken.extend((0..4).map(|column| at("m") + column));
        taken.sort_unstable();
        taken.dedup();
        assert_eq!(taken.len(), 7, "overlapping locations: {taken:?}");
    }

    #[test]
    fn inputs_after_a_dvec4_move_up_one_vulkan_location() {
        let scene = scene::parse(
            "[require]\nGLSL >= 4.50\n[vertex shader]\nlayout(location = 0) in dvec4 d;\n\
             layout(location = 1) in vec4 piglit_vertex;\nlayout(location = 2) in float f[2];\n\
             out vec4 c;\nvoid main() { gl_Position = piglit_vertex; c = vec4(d) + f[1]; }\n\
             [fragment shader]\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
        )
        .unwrap();
        let program = compiler().build(&scene).unwrap();
        let words = &program.stage(Stage::Vertex).unwrap().words;
        let input = |n: &str| {
            let i = program
                .vertex_inputs()
                .iter()
                .find(|i| i.name == n)
                .unwrap();
            (i.location, i.vk_location, i.elements, i.slots)
        };
        assert_eq!(input("d"), (0, 0, 1, 2));
        assert_eq!(input("piglit_vertex"), (1, 2, 1, 1));
        assert_eq!(input("f"), (2, 3, 2, 1));
        assert_eq!(location_of(words, "piglit_vertex"), Some(2));
        // `d` is read as 32-bit words: uvec4[2], its two Vulkan locations.
        let module = dr::load_words(words).unwrap();
        let types = Types::new(&module);
        let (len, elem) = types.array(variable_type(&module, &types, "d")).unwrap();
        assert_eq!((len, types.shape(elem)), (2, Some((Scalar::Uint, 1, 4))));
        assert!(module
            .functions
            .iter()
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.instructions)
            .any(|i| i.class.opcode == Op::Bitcast));
    }
}

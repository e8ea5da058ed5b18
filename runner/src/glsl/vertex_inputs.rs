//! The vertex shader's inputs as GL numbers and feeds them: a `dvec3`/`dvec4` takes one GL
//! location but two Vulkan ones, and 64-bit inputs are read as 32-bit words (devices need
//! not read 64-bit vertex formats).

use std::collections::{BTreeSet, HashMap, HashSet};

use glsem_spirv::module::{Editor, Inst, Module, Section, Type};
use spirv::{Decoration, Op, StorageClass};

use super::description::VertexInput;
use super::spv::{edit, location_slots, non_builtin_io_variables, parse, shape};
use crate::scene::SceneError;

/// GL's linker gives the vertex inputs without `layout(location)` locations that no
/// explicitly located input holds (GL 4.6 core, 11.1.1); glslang (`--aml`) numbers them from
/// 0 whatever the explicit ones hold. Moves each unlocated input that collides (`explicit`:
/// the names declared with a location) to the lowest free GL locations; the runner feeds
/// inputs by name, so which free ones GL would pick does not matter. Returns whether it
/// moved one.
pub(super) fn place_unlocated_inputs(module: &mut Vec<u32>, explicit: &HashSet<String>) -> bool {
    let m = parse(module);
    // (variable, GL location, GL locations it takes, explicitly located)
    let mut inputs: Vec<(u32, u32, u32, bool)> = located_inputs(&m)
        .into_iter()
        .map(|input| {
            let named = m.name_of(input.var).is_some_and(|n| explicit.contains(&n));
            (input.var, input.location, input.count, named)
        })
        .collect();
    drop(m);
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
    if moves.is_empty() {
        return false;
    }
    edit(module, |editor| {
        for &(var, location) in &moves {
            editor.set_decoration(var, Decoration::Location, &[location]);
        }
    });
    true
}

/// A vertex input with a location.
struct LocatedInput {
    var: u32,
    /// Its GL location.
    location: u32,
    /// The GL locations it takes.
    count: u32,
    /// Its type, or its array's element type.
    element: u32,
    /// Its (element's) matrix columns, or 1.
    columns: u32,
}

fn located_inputs(m: &Module) -> Vec<LocatedInput> {
    non_builtin_io_variables(m)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let location = *m.decoration(var, Decoration::Location)?.first()?;
            let (element, elements) = m.array_length(ty).unwrap_or((ty, 1));
            let (_, columns, _) = shape(m, element)?;
            Some(LocatedInput {
                var,
                location,
                count: elements * columns,
                element,
                columns,
            })
        })
        .collect()
}

/// Gives the vertex shader's inputs Vulkan locations: a `dvec3` or `dvec4` (each element,
/// each matrix column) takes one GL location but two Vulkan ones, so every input after one
/// moves up by one. Returns GL's location of each input it moved.
pub(super) fn spread_wide_inputs(module: &mut Vec<u32>) -> HashMap<u32, u32> {
    let m = parse(module);
    // (variable, GL location, GL locations it takes, whether each is wide)
    let inputs: Vec<(u32, u32, u32, bool)> = located_inputs(&m)
        .into_iter()
        .map(|input| {
            let wide = location_slots(&m, input.element) == 2 * input.columns;
            (input.var, input.location, input.count, wide)
        })
        .collect();
    drop(m);
    let wide_below = |location: u32| {
        inputs
            .iter()
            .filter(|(_, _, _, wide)| *wide)
            .map(|(_, start, count, _)| (*start..start + count).filter(|l| *l < location).count())
            .sum::<usize>() as u32
    };
    let mut moved = HashMap::new();
    edit(module, |editor| {
        for &(var, location, _, _) in &inputs {
            let shift = wide_below(location);
            if shift > 0 {
                editor.set_decoration(var, Decoration::Location, &[location + shift]);
                moved.insert(var, location);
            }
        }
    });
    moved
}

/// Devices need not read 64-bit vertex formats (lavapipe does not): each `double` or
/// `dvecN` vertex input becomes 32-bit words, `uvec2`/`uvec4` (a `dvec3`/`dvec4`:
/// `uvec4[2]`, its two locations), read from the same bytes with 32-bit uint formats and
/// put back together with `OpBitcast` at each load (the runner feeds them so).
pub(super) fn split_double_inputs(module: &mut Vec<u32>) -> Result<(), SceneError> {
    edit(module, |editor| {
        let view = editor.module;
        // (variable, components, double type)
        let inputs: Vec<(u32, u32, u32)> = view
            .global_variables()
            .filter_map(|(var, storage, ty)| {
                let double = Some(&Type::Float { width: 64 });
                let (scalar, n) = match view.type_of(ty)? {
                    Type::Vector { component, count } => (*component, *count),
                    _ => (ty, 1),
                };
                (storage == StorageClass::Input && view.type_of(scalar) == double)
                    .then_some((var, n, scalar))
            })
            .collect();
        if inputs.is_empty() {
            return Ok(());
        }
        let words = WordTypes::new(editor);
        for &(var, n, _) in &inputs {
            editor.redeclare_variable(var, StorageClass::Input, words.input_pointee(n), None);
            editor.remove(view.globals[&var]);
        }
        for index in view.section_range(Section::Function) {
            let inst = view.insts[index];
            let used = inst
                .id_operands()
                .expect("glslang emits only opcodes of the grammar");
            let Some(&(_, n, double)) = inputs.iter().find(|(v, ..)| used.contains(v)) else {
                continue;
            };
            if inst.op() != Some(Op::Load) {
                return Err(SceneError::Skip(
                    "a double vertex input used other than loaded whole is not supported".into(),
                ));
            }
            let mut code = Vec::new();
            words.load_doubles(editor, &mut code, inst, n, double);
            editor.replace(index, code);
        }
        Ok(())
    })
}

/// The 32-bit types and constants a double input's words are read with: the module's own
/// when it has them (SPIR-V forbids duplicate scalar, vector and pointer types), else new
/// ones.
struct WordTypes {
    uvec2: u32,
    uvec4: u32,
    input_uvec4: u32,
    /// `uvec4[2]`
    pair: u32,
    zero: u32,
    one: u32,
}

impl WordTypes {
    fn new(editor: &mut Editor) -> Self {
        let uint = editor.type_int(32, false);
        let uvec2 = editor.type_vector(uint, 2);
        let uvec4 = editor.type_vector(uint, 4);
        WordTypes {
            uvec2,
            uvec4,
            input_uvec4: editor.type_pointer(StorageClass::Input, uvec4),
            pair: editor.type_array(uvec4, 2),
            zero: editor.constant_u32(0),
            one: editor.constant_u32(1),
        }
    }

    /// The new type of an input of `n` doubles: uvec2 for a double, uvec4 for a dvec2,
    /// uvec4[2] beyond.
    fn input_pointee(&self, n: u32) -> u32 {
        match n {
            1 => self.uvec2,
            2 => self.uvec4,
            _ => self.pair,
        }
    }

    /// Puts in `code` what replaces `load`, of `n` doubles of type `double`: loads of its
    /// 32-bit words bitcast back to doubles.
    fn load_doubles(
        &self,
        editor: &mut Editor,
        code: &mut Vec<u32>,
        load: Inst,
        n: u32,
        double: u32,
    ) {
        // Load words: result type, result, pointer.
        let (ty, result, var) = (load.operand(0), load.operand(1), load.operand(2));
        // The 32-bit words: one uvec2/uvec4, or the two uvec4 of the array.
        let mut words = Vec::new();
        if n <= 2 {
            let ty = if n == 1 { self.uvec2 } else { self.uvec4 };
            words.push(editor.load(code, ty, var));
        } else {
            for index in [self.zero, self.one] {
                let element = editor.access_chain(code, self.input_uvec4, var, &[index]);
                words.push(editor.load(code, self.uvec4, element));
            }
        }
        if n == 1 {
            editor.unary_as(code, Op::Bitcast, double, result, words[0]);
            return;
        }
        let components: Vec<u32> = (0..n)
            .map(|k| {
                let source = words[(k / 2) as usize];
                let low = 2 * (k % 2);
                let halves = editor.emit(
                    code,
                    Op::VectorShuffle,
                    self.uvec2,
                    &[source, source, low, low + 1],
                );
                editor.bitcast(code, double, halves)
            })
            .collect();
        editor.emit_as(code, Op::CompositeConstruct, ty, result, &components);
    }
}

/// The vertex shader's inputs as the runner feeds them and GL's introspection lists them;
/// `gl_locations`: GL's location of the inputs that `spread_wide_inputs` moved.
pub(super) fn vertex_inputs(m: &Module, gl_locations: &HashMap<u32, u32>) -> Vec<VertexInput> {
    non_builtin_io_variables(m)
        .into_iter()
        .filter(|(_, s, _)| *s == StorageClass::Input)
        .filter_map(|(var, _, ty)| {
            let (ty, elements) = m.array_length(ty).unwrap_or((ty, 1));
            let (scalar, columns, rows) = shape(m, ty)?;
            let vk_location = *m.decoration(var, Decoration::Location)?.first()?;
            Some(VertexInput {
                elements,
                slots: location_slots(m, ty),
                name: m.name_of(var).unwrap_or_default(),
                location: gl_locations.get(&var).copied().unwrap_or(vk_location),
                vk_location,
                scalar,
                components: if columns == 1 { rows } else { 0 },
            })
        })
        .collect()
}

//! The vertex shader's inputs as GL numbers and feeds them: a `dvec3`/`dvec4` takes one GL
//! location but two Vulkan ones. Double inputs are fed `R64*_SFLOAT` as they are: a device
//! that cannot read those from vertex buffers (lavapipe) needs glsem's `vertex_formats`.

use std::collections::{BTreeSet, HashMap, HashSet};

use glsem_spirv::module::Module;
use spirv::{Decoration, StorageClass};

use super::description::VertexInput;
use super::spv::{edit, location_slots, non_builtin_io_variables, parse, shape};

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
                components: rows,
                columns,
            })
        })
        .collect()
}

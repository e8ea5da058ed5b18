//! Link passes a GL linker does over the stages of a program and glslang's per-stage
//! compiles cannot: interface Locations matched by name across stages (with GL's link
//! error for mismatched types), one variable per built-in where several units each
//! declare it, `gl_FragData` at location 0, and no Location on blocks whose members all
//! have one.

use std::collections::{BTreeMap, HashMap, HashSet};

use glsem_spirv::module::{Module, Section, Type};
use spirv::{Decoration, Op, StorageClass};

use super::description::{stage_word, Scalar};
use super::spv::{arrayed, edit, location_slots, non_builtin_io_variables, parse, shape};
use crate::scene::ShaderStage;

/// Gives every stage-to-stage interface variable the same Location in every stage, by name,
/// as a GL linker matches them. Vertex inputs and fragment outputs face the API and keep
/// glslang's Locations; explicit `layout(location=)` variables keep theirs. With
/// `separate` programs (one per stage) no linker sees both sides of an interface: see
/// [`separate_locations`].
pub(super) fn link_locations(
    modules: &mut [(ShaderStage, Vec<u32>, HashSet<String>)],
    separate: bool,
) -> Result<(), String> {
    let vars = interface_variables(modules);
    check_signatures(modules, &vars)?;
    // (module, variable, Location) of each variable that moves.
    let placed: Vec<(usize, u32, u32)> = if separate {
        let unlocated = vars
            .iter()
            .filter(|v| !(v.explicit && v.location.is_some()))
            .map(|v| (v.module, v.iface, v.output, v.name.as_str(), v.slots, v.id))
            .collect::<Vec<_>>();
        separate_locations(&unlocated, &explicit_locations(&vars).1)
    } else {
        let table = assign_locations(&vars);
        // An explicit location stays: GL matches explicitly located variables by location
        // (the table serves their unlocated namesakes).
        vars.iter()
            .filter(|v| !(v.explicit && v.location.is_some()))
            .filter_map(|v| {
                let location = table[&(v.iface, v.name.clone())];
                (v.location != Some(location)).then_some((v.module, v.id, location))
            })
            .collect()
    };
    for (index, (_, module, _)) in modules.iter_mut().enumerate() {
        let moves: Vec<_> = placed.iter().filter(|p| p.0 == index).collect();
        if !moves.is_empty() {
            edit(module, |editor| {
                for &&(_, var, location) in &moves {
                    editor.set_decoration(var, Decoration::Location, &[location]);
                }
            });
        }
    }
    Ok(())
}

/// A stage-to-stage interface variable of one of the program's modules.
struct Var {
    module: usize,
    /// The interface between module `iface - 1` and module `iface`: inputs of module
    /// i are on interface i, its outputs on i + 1. Each has its own locations, as a
    /// GL linker assigns them per pair of adjacent stages.
    iface: usize,
    id: u32,
    name: String,
    slots: u32,
    location: Option<u32>,
    explicit: bool,
    /// The type (less a per-vertex array), as GL compares an output and the input
    /// of the same name.
    signature: String,
    output: bool,
}

/// The named stage-to-stage interface variables of every module (not the API-facing ones).
fn interface_variables(modules: &[(ShaderStage, Vec<u32>, HashSet<String>)]) -> Vec<Var> {
    let mut vars = Vec::new();
    for (index, (stage, module, explicit)) in modules.iter().enumerate() {
        let m = parse(module);
        for (var, storage, ty) in non_builtin_io_variables(&m) {
            let api_facing = (*stage == ShaderStage::Vertex && storage == StorageClass::Input)
                || (*stage == ShaderStage::Fragment && storage == StorageClass::Output);
            if api_facing {
                continue;
            }
            let per_vertex = arrayed(*stage, storage) && !m.has_decoration(var, Decoration::Patch);
            let ty = if per_vertex {
                m.array_length(ty).map_or(ty, |(element, _)| element)
            } else {
                ty
            };
            // Interface blocks match by block name, other variables by variable name.
            let name = if m.has_decoration(ty, Decoration::Block) {
                m.name_of(ty)
            } else {
                m.name_of(var)
            };
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                continue;
            };
            let location = m
                .decoration(var, Decoration::Location)
                .and_then(|v| v.first().copied());
            vars.push(Var {
                module: index,
                iface: if storage == StorageClass::Input {
                    index
                } else {
                    index + 1
                },
                id: var,
                explicit: explicit.contains(&name),
                name,
                slots: location_slots(&m, ty),
                location,
                signature: type_signature(&m, ty),
                output: storage == StorageClass::Output,
            });
        }
    }
    vars
}

/// GL's link error: an output and the next stage's input of one name with other types.
fn check_signatures(
    modules: &[(ShaderStage, Vec<u32>, HashSet<String>)],
    vars: &[Var],
) -> Result<(), String> {
    for out in vars.iter().filter(|v| v.output) {
        if let Some(input) = vars
            .iter()
            .find(|v| !v.output && v.iface == out.iface && v.name == out.name)
        {
            if input.signature != out.signature {
                return Err(format!(
                    "link error: the {} shader's output `{}` is a {}, the {} shader's input a {}",
                    stage_word(modules[out.module].0),
                    out.name,
                    out.signature,
                    stage_word(modules[input.module].0),
                    input.signature
                ));
            }
        }
    }
    Ok(())
}

/// The Location of each (interface, variable name).
type LocationTable = BTreeMap<(usize, String), u32>;
/// The [start, end) Location ranges taken, per interface.
type TakenRanges = BTreeMap<usize, Vec<(u32, u32)>>;

/// The explicit locations of each (interface, name), and the ranges they take.
fn explicit_locations(vars: &[Var]) -> (LocationTable, TakenRanges) {
    let mut used = TakenRanges::new();
    let mut table = LocationTable::new();
    for v in vars.iter().filter(|v| v.explicit) {
        if let Some(loc) = v.location {
            table.entry((v.iface, v.name.clone())).or_insert(loc);
            used.entry(v.iface).or_default().push((loc, loc + v.slots));
        }
    }
    (table, used)
}

/// The location of each (interface, name): an explicit location where a variable of the
/// name has one, else the lowest free range of its largest variable's size, in order of
/// appearance.
fn assign_locations(vars: &[Var]) -> LocationTable {
    let (mut table, mut used) = explicit_locations(vars);
    let mut order: Vec<(usize, &str)> = Vec::new();
    for v in vars {
        let key = (v.iface, v.name.as_str());
        if !table.contains_key(&(v.iface, v.name.clone())) && !order.contains(&key) {
            order.push(key);
        }
    }
    for (iface, name) in order {
        let slots = vars
            .iter()
            .filter(|v| v.iface == iface && v.name == name)
            .map(|v| v.slots)
            .max()
            .unwrap_or(1);
        let used = used.entry(iface).or_default();
        let mut loc = 0;
        while let Some(&(_, end)) = used.iter().find(|(s, e)| loc < *e && *s < loc + slots) {
            loc = end;
        }
        used.push((loc, loc + slots));
        table.insert((iface, name.to_string()), loc);
    }
    table
}

/// The Locations of a separable program's variables without an explicit one (module,
/// interface, output, name, slots, id): GL leaves unnamed matches across programs
/// undefined; GL's (Mesa's) linker gives each side of an interface its variables in the
/// order of their names (`canonicalize_shader_io`), one after the other around the explicit
/// Locations `used`, so that separately linked programs agree. (module, id, Location) each.
fn separate_locations(
    unlocated: &[(usize, usize, bool, &str, u32, u32)],
    used: &TakenRanges,
) -> Vec<(usize, u32, u32)> {
    let mut sides: BTreeMap<(usize, bool), Vec<(&str, u32)>> = BTreeMap::new();
    for &(_, iface, output, name, slots, _) in unlocated {
        let side = sides.entry((iface, output)).or_default();
        if !side.iter().any(|(n, _)| *n == name) {
            side.push((name, slots));
        }
    }
    let mut placed = Vec::new();
    for ((iface, output), mut names) in sides {
        names.sort();
        let mut taken = used.get(&iface).cloned().unwrap_or_default();
        for (name, slots) in names {
            let mut loc = 0;
            while let Some(&(_, end)) = taken.iter().find(|(s, e)| loc < *e && *s < loc + slots) {
                loc = end;
            }
            taken.push((loc, loc + slots));
            placed.extend(
                unlocated
                    .iter()
                    .filter(|v| (v.1, v.2, v.3) == (iface, output, name))
                    .map(|v| (v.0, v.5, loc)),
            );
        }
    }
    placed
}

/// glslang's link of several compilation units gives each unit's `gl_FragColor` a variable
/// of its own (all at Location 0, which SPIR-V rejects); GL has one. Input and output
/// variables of one `gl_` name and type become the first of them.
pub(super) fn merge_builtin_copies(module: &mut Vec<u32>) {
    edit(module, |editor| {
        let view = editor.module;
        let mut first: HashMap<(String, u32), u32> = HashMap::new();
        let mut copies: HashMap<u32, u32> = HashMap::new();
        for inst in view.insts.range(view.section_range(Section::Global)) {
            let (Some(var), Some(ty)) = (inst.result_id(), inst.result_type()) else {
                continue;
            };
            let storage = StorageClass::from_u32(inst.operand(2));
            if inst.op() != Some(Op::Variable)
                || !matches!(storage, Some(StorageClass::Input | StorageClass::Output))
            {
                continue;
            }
            let Some(name) = view.names.get(&var).map(|n| n.decode()) else {
                continue;
            };
            if !name.starts_with("gl_") {
                continue;
            }
            match first.get(&(name.clone(), ty)) {
                Some(&kept) => {
                    copies.insert(var, kept);
                }
                None => {
                    first.insert((name, ty), var);
                }
            }
        }
        if copies.is_empty() {
            return;
        }
        editor.remove_definitions(|v| copies.contains_key(&v));
        editor.replace_in_interfaces(|v| copies.contains_key(&v).then(Vec::new));
        editor
            .rename_uses(|v| copies.get(&v).copied())
            .expect("glslang emits only opcodes of the grammar");
    });
}

/// A type's GLSL-like shape: `float`, `vec3`, `dmat2x3`, `float[3]`, `{vec4,int}`.
pub(super) fn type_signature(m: &Module, ty: u32) -> String {
    if let Some((element, length)) = m.array_length(ty) {
        return format!("{}[{length}]", type_signature(m, element));
    }
    if let Some(element) = m.runtime_array_element(ty) {
        return format!("{}[]", type_signature(m, element));
    }
    if let Some((scalar, columns, rows)) = shape(m, ty) {
        let (s, prefix) = match scalar {
            Scalar::Float => ("float", ""),
            Scalar::Double => ("double", "d"),
            Scalar::Int => ("int", "i"),
            Scalar::Uint => ("uint", "u"),
            Scalar::Int64 => ("int64_t", "i64"),
            Scalar::Uint64 => ("uint64_t", "u64"),
            Scalar::Bool => ("bool", "b"),
        };
        return match (columns, rows) {
            (1, 1) => s.to_string(),
            (1, r) => format!("{prefix}vec{r}"),
            (c, r) => format!("{prefix}mat{c}x{r}"),
        };
    }
    match m.struct_members(ty) {
        Some(members) => format!(
            "{{{}}}",
            members
                .iter()
                .map(|&member| type_signature(m, member))
                .collect::<Vec<_>>()
                .join(",")
        ),
        None => format!("%{ty}"),
    }
}

/// An interface block whose every member has its own Location keeps no Location of its
/// own: it assigns nothing then (every member's is explicit), and SPIR-V for Vulkan
/// rejects both together (VUID-StandaloneSpirv-Location-04918); glslang emits both for
/// `layout(location = N) out B { layout(location = M) … }` with every member placed.
pub(super) fn drop_redundant_block_locations(module: &mut Vec<u32>) {
    edit(module, |editor| {
        let m = editor.module;
        let redundant = m.globals.keys().copied().filter(|&var| {
            let Some((_, mut ty)) = m.variable(var) else {
                return false;
            };
            while let Some((element, _)) = m.array_length(ty) {
                ty = element;
            }
            let Some(Type::Struct { members }) = m.type_of(ty) else {
                return false;
            };
            m.has_decoration(var, Decoration::Location)
                && m.has_decoration(ty, Decoration::Block)
                && !members.is_empty()
                && (0..members.len() as u32).all(|member| {
                    m.member_decorations_of(ty, member)
                        .any(|(d, _)| d == Decoration::Location)
                })
        });
        for var in redundant.collect::<Vec<_>>() {
            editor.remove_decoration(var, Decoration::Location);
        }
    });
}

/// glslang leaves `gl_FragData` without a Location; GL's draw buffer `i` is element `i`.
pub(super) fn place_frag_data(module: &mut Vec<u32>) {
    edit(module, |editor| {
        let m = editor.module;
        let frag_data = m
            .ids_named("gl_FragData")
            .find(|&var| m.variable(var).is_some() && !m.has_decoration(var, Decoration::Location));
        if let Some(var) = frag_data {
            editor.decorate(var, Decoration::Location, &[0]);
        }
    });
}

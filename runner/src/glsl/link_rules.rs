//! GL's link-time errors between stages that glslang, linking each stage's units alone,
//! cannot report: a uniform declared in two stages with other types, a uniform or buffer
//! block defined differently in two stages (members, their names, order and layout
//! qualification, the instance array's size), and an interface block that an output and
//! the next stage's input declare differently (GLSL 4.60 §4.3.9, "Matched block names
//! within a shader interface … must match in terms of having the same number of
//! declarations with the same sequence of types and the same sequence of member names, as
//! well as having the same member-wise layout qualification"; §4.3.5 for uniforms).

use std::collections::{HashMap, HashSet};

use glsem_spirv::module::Module;
use spirv::{Decoration, StorageClass};

use super::description::stage_word;
use super::link::type_signature;
use super::spv::{arrayed, non_builtin_io_variables, parse, strip_arrays};
use crate::scene::ShaderStage;

/// glslang's block of a stage's loose uniforms (`uniform vec4 a;`): GL matches its members
/// one by one, by name, across stages.
const DEFAULT_UNIFORM_BLOCK: &str = "gl_DefaultUniformBlock";

/// `Err("link error: …")` where two stages of the program declare one uniform, block or
/// interface block differently. `separate`: one program per stage, no interface to match.
pub(super) fn check_program(
    modules: &[(ShaderStage, Vec<u32>, HashSet<String>)],
    separate: bool,
) -> Result<(), String> {
    let parsed: Vec<(ShaderStage, Module)> = modules
        .iter()
        .map(|(stage, words, _)| (*stage, parse(words)))
        .collect();
    if separate {
        return Ok(());
    }
    check_uniforms(&parsed)?;
    for pair in parsed.windows(2) {
        check_interface_blocks(&pair[0], &pair[1])?;
    }
    Ok(())
}

/// Each stage's uniforms and uniform and buffer blocks agree with the other stages'.
fn check_uniforms(stages: &[(ShaderStage, Module)]) -> Result<(), String> {
    // What each name was declared as first: (signature, stage).
    let mut seen: HashMap<String, (String, ShaderStage)> = HashMap::new();
    for (stage, m) in stages {
        for (_, storage, ty) in m.global_variables() {
            let kind = match storage {
                StorageClass::Uniform
                    if m.has_decoration(strip_arrays(m, ty).0, Decoration::BufferBlock) =>
                {
                    "buffer"
                }
                StorageClass::Uniform => "uniform",
                StorageClass::StorageBuffer => "buffer",
                _ => continue,
            };
            let (block, dims) = strip_arrays(m, ty);
            let Some(block_name) = m.name_of(block).filter(|n| !n.is_empty()) else {
                continue;
            };
            let mut declared = Vec::new();
            if block_name == DEFAULT_UNIFORM_BLOCK {
                for (i, &member) in m
                    .struct_members(block)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                {
                    if let Some(name) = m.member_name(block, i as u32) {
                        // An implicitly sized array takes each stage's own size (GL's
                        // linker takes the largest): compare the element types only.
                        let element = strip_arrays(m, member).0;
                        declared.push((format!("uniform `{name}`"), type_signature(m, element)));
                    }
                }
            } else {
                let sizes: String = dims.iter().map(|d| format!("[{d}]")).collect();
                declared.push((
                    format!("{kind} block `{block_name}`"),
                    format!("{}{sizes}", block_signature(m, block, true)),
                ));
            }
            for (name, signature) in declared {
                match seen.get(&name) {
                    Some((first, first_stage)) if *first != signature => {
                        return Err(format!(
                            "link error: the {name} is declared `{first}` in the {} shader and \
                             `{signature}` in the {} shader",
                            stage_word(*first_stage),
                            stage_word(*stage)
                        ));
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(name, (signature, *stage));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The interface blocks `from`'s outputs and `to`'s inputs name alike are declared alike.
fn check_interface_blocks(
    (from_stage, from): &(ShaderStage, Module),
    (to_stage, to): &(ShaderStage, Module),
) -> Result<(), String> {
    let blocks = |stage: ShaderStage, m: &Module, storage: StorageClass| {
        non_builtin_io_variables(m)
            .into_iter()
            .filter(|&(_, s, _)| s == storage)
            .filter_map(|(var, _, ty)| {
                // The per-vertex array of a stage that reads or writes several vertices.
                let ty = match arrayed(stage, storage) && !m.has_decoration(var, Decoration::Patch)
                {
                    true => m.array_length(ty).map_or(ty, |(element, _)| element),
                    false => ty,
                };
                let (block, dims) = strip_arrays(m, ty);
                if !m.has_decoration(block, Decoration::Block) {
                    return None;
                }
                let name = m.name_of(block).filter(|n| !n.is_empty())?;
                let sizes: String = dims.iter().map(|d| format!("[{d}]")).collect();
                Some((name, format!("{}{sizes}", block_signature(m, block, false))))
            })
            .collect::<Vec<_>>()
    };
    let inputs = blocks(*to_stage, to, StorageClass::Input);
    for (name, output) in blocks(*from_stage, from, StorageClass::Output) {
        if let Some((_, input)) = inputs.iter().find(|(n, _)| *n == name) {
            if *input != output {
                return Err(format!(
                    "link error: the interface block `{name}` is `{output}` in the {} shader \
                     and `{input}` in the {} shader",
                    stage_word(*from_stage),
                    stage_word(*to_stage)
                ));
            }
        }
    }
    Ok(())
}

/// A block's members in order: each one's type, name and (`layout`: of a uniform or
/// buffer block) layout qualification as the module lays it out (offset, matrix stride
/// and order, array stride: std140 and std430 differ there).
fn block_signature(m: &Module, block: u32, layout: bool) -> String {
    let members = m.struct_members(block).unwrap_or_default();
    let described: Vec<String> = members
        .iter()
        .enumerate()
        .map(|(i, &member)| {
            let i = i as u32;
            let mut s = type_signature(m, member);
            if let Some(name) = m.member_name(block, i) {
                s = format!("{s} {name}");
            }
            if layout {
                for d in [Decoration::Offset, Decoration::MatrixStride] {
                    if let Some(&[value]) = m.member_decoration(block, i, d) {
                        s.push_str(&format!(" {d:?}={value}"));
                    }
                }
                if m.member_decoration(block, i, Decoration::RowMajor)
                    .is_some()
                {
                    s.push_str(" RowMajor");
                }
                if let Some(&[stride]) = m.decoration(member, Decoration::ArrayStride) {
                    s.push_str(&format!(" ArrayStride={stride}"));
                }
            }
            s
        })
        .collect();
    format!("{{{}}}", described.join(", "))
}

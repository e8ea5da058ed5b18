//! `gl_PerVertex` blocks trimmed to the members in use, as GL counts no built-in against the
//! stage's interface component limits (Vulkan counts every member).

use std::collections::HashSet;

use glsem_spirv::module::{inst, Section};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{edit, parse};
use crate::scene::ShaderStage;

/// A `gl_PerVertex` block variable (arrayed or not) and the members the stage uses.
pub(super) struct PerVertex {
    var: u32,
    block: u32,
    /// Whether the variable is an array of blocks (`gl_in[]`, a TCS's `gl_out[]`).
    arrayed: bool,
    /// The `BuiltIn` of each member, in order.
    pub(super) builtins: Vec<u32>,
    /// Members used, by index; `None` when the block is used other than member by member.
    pub(super) used: Option<HashSet<u32>>,
}

/// The stage's `gl_PerVertex` variable of `storage`, if it has one of its own type.
pub(super) fn per_vertex_block(module: &[u32], storage: StorageClass) -> Option<PerVertex> {
    let m = parse(module);
    let block_of = |(var, var_storage, ty): (u32, StorageClass, u32)| {
        if var_storage != storage {
            return None;
        }
        let (block, arrayed) = match m.array_length(ty) {
            Some((element, _)) => (element, true),
            None => (ty, false),
        };
        m.member_decoration(block, 0, Decoration::BuiltIn)
            .is_some()
            .then_some((var, block, arrayed))
    };
    let mut blocks = m.global_variables().filter_map(block_of);
    let (var, block, arrayed) = blocks.next()?;
    let members = m.struct_members(block)?.len() as u32;
    let builtins = (0..members)
        .map(|member| m.member_builtin(block, member))
        .collect::<Option<Vec<u32>>>()?;
    // Another variable of the same block type: leave both as they are.
    let shared = blocks.any(|(_, b, _)| b == block);
    // Members captured by transform feedback (`Offset`) count as used.
    let captured = (0..members).filter(|&member| {
        m.member_decoration(block, member, Decoration::Offset)
            .is_some()
    });
    let mut used = (!shared).then(|| captured.collect::<HashSet<u32>>());
    // The member's operand: after the result type, the result, the base and, in an array
    // of blocks, the vertex.
    let member_at = 3 + usize::from(arrayed);
    for inst in m.insts.range(m.section_range(Section::Function)) {
        let uses_var = inst
            .id_operands()
            .expect("glslang emits only opcodes of the grammar")
            .contains(&var);
        if !uses_var {
            continue;
        }
        let member = matches!(inst.op(), Some(Op::AccessChain | Op::InBoundsAccessChain))
            .then(|| inst.operands().get(member_at).copied())
            .flatten()
            .filter(|_| inst.operand(2) == var)
            .and_then(|c| m.constant_u32(c));
        match (member, used.as_mut()) {
            (Some(member), Some(set)) => {
                set.insert(member);
            }
            _ => used = None,
        }
    }
    Some(PerVertex {
        var,
        block,
        arrayed,
        builtins,
        used,
    })
}

/// Trims the `gl_PerVertex` blocks glslang declares whole (`gl_Position`, `gl_PointSize`,
/// `gl_ClipDistance`, …) to the members in use: Vulkan counts every member of a built-in
/// block against the stage's input and output component limits, GL counts none. A stage's
/// output block and the next stage's input block keep the same members (those either
/// uses); an output keeps `gl_Position` too, as GL counts it against the limits.
pub(super) fn trim_per_vertex_blocks(modules: &mut [(ShaderStage, Vec<u32>, HashSet<String>)]) {
    let pre_rasterization =
        |s: ShaderStage| !matches!(s, ShaderStage::Fragment | ShaderStage::Compute);
    for i in 0..modules.len() {
        if !pre_rasterization(modules[i].0) {
            continue;
        }
        let Some(output) = per_vertex_block(&modules[i].1, StorageClass::Output) else {
            continue;
        };
        let next = modules
            .get(i + 1)
            .filter(|(s, ..)| pre_rasterization(*s))
            .and_then(|(_, m, _)| per_vertex_block(m, StorageClass::Input));
        let mut keep = HashSet::from([spirv::BuiltIn::Position as u32]);
        for block in std::iter::once(&output).chain(next.as_ref()) {
            let Some(used) = &block.used else {
                // Used whole: its members stay, and so do the other side's.
                keep.extend(
                    output
                        .builtins
                        .iter()
                        .chain(next.iter().flat_map(|b| &b.builtins)),
                );
                break;
            };
            keep.extend(used.iter().map(|&m| block.builtins[m as usize]));
        }
        if output.used.is_some() {
            trim_block(&mut modules[i].1, &output, &keep);
        }
        if let Some(input) = next.filter(|b| b.used.is_some()) {
            trim_block(&mut modules[i + 1].1, &input, &keep);
        }
    }
}

/// Drops the members of `block` whose `BuiltIn` is not in `keep`, renumbering the rest in
/// its decorations, names and access chains.
fn trim_block(module: &mut Vec<u32>, block: &PerVertex, keep: &HashSet<u32>) {
    let kept: Vec<u32> = (0..block.builtins.len() as u32)
        .filter(|&m| keep.contains(&block.builtins[m as usize]))
        .collect();
    if kept.len() == block.builtins.len() {
        return;
    }
    let new_index = |m: u32| kept.iter().position(|&k| k == m).map(|p| p as u32);
    edit(module, |editor| {
        let m = editor.module;
        if let Some(&index) = m.globals.get(&block.block) {
            let members = &m.insts.at(index).operands()[1..];
            let mut operands = vec![block.block];
            operands.extend(kept.iter().map(|&k| members[k as usize]));
            editor.replace(index, inst(Op::TypeStruct, &operands));
        }
        let names_and_decorations = m
            .section_range(Section::Debug)
            .chain(m.section_range(Section::Annotation));
        for index in names_and_decorations {
            let member_of_block = matches!(
                m.insts.at(index).op(),
                Some(Op::MemberName | Op::MemberDecorate)
            ) && m.insts.at(index).operand(0) == block.block;
            if member_of_block {
                match new_index(m.insts.at(index).operand(1)) {
                    // Word 2: the member number, after the opcode word and the block.
                    Some(new) => editor.patch_word(index, 2, new),
                    None => editor.remove(index),
                }
            }
        }
        // Access chains index the block with integer constants; the new index needs one of
        // the same type. Operand `member_at` is the member: after the result type, the
        // result, the base and, in an array of blocks, the vertex.
        let member_at = 3 + usize::from(block.arrayed);
        for index in m.section_range(Section::Function) {
            let chain = m.insts.at(index);
            let into_block = matches!(chain.op(), Some(Op::AccessChain | Op::InBoundsAccessChain))
                && chain.operand(2) == block.var;
            let member = chain.operand(member_at);
            let (true, Some(old), Some(&constant)) =
                (into_block, m.constant_u32(member), m.globals.get(&member))
            else {
                continue;
            };
            let ty = m.insts.at(constant).operand(0);
            let value = new_index(old).expect("a member in use is kept");
            let new = editor.constant_words(ty, &[value]);
            editor.patch_word(index, member_at + 1, new);
        }
    });
}

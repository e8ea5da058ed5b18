//! `gl_PerVertex` blocks trimmed to the members in use, as GL counts no built-in against the
//! stage's interface component limits (Vulkan counts every member).

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{id, Types};
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
pub(super) fn per_vertex_block(module: &dr::Module, storage: StorageClass) -> Option<PerVertex> {
    let types = Types::new(module);
    let block_of = |inst: &Instruction| -> Option<(u32, u32, bool)> {
        if inst.class.opcode != Op::Variable
            || inst.operands.first() != Some(&Operand::StorageClass(storage))
        {
            return None;
        }
        let ty = types.pointee(inst.result_type?)?;
        let (block, arrayed) = match types.array(ty) {
            Some((_, elem)) => (elem, true),
            None => (ty, false),
        };
        types
            .member_decoration(block, 0, Decoration::BuiltIn)
            .is_some()
            .then_some((inst.result_id?, block, arrayed))
    };
    let mut blocks = module.types_global_values.iter().filter_map(block_of);
    let (var, block, arrayed) = blocks.next()?;
    let members = types.def(block)?.operands.len() as u32;
    let builtin = |m: u32| {
        module.annotations.iter().find_map(|i| match i.operands.as_slice() {
            [Operand::IdRef(t), Operand::LiteralBit32(n), Operand::Decoration(Decoration::BuiltIn), Operand::BuiltIn(b)]
                if (*t, *n) == (block, m) =>
            {
                Some(*b as u32)
            }
            _ => None,
        })
    };
    let builtins = (0..members).map(builtin).collect::<Option<Vec<u32>>>()?;
    // Another variable of the same block type: leave both as they are.
    let shared = blocks.any(|(_, b, _)| b == block);
    // Members captured by transform feedback (`Offset`) count as used.
    let captured =
        (0..members).filter(|&m| types.member_literal(block, m, Decoration::Offset).is_some());
    let mut used = (!shared).then(|| captured.collect::<HashSet<u32>>());
    let member_at = usize::from(arrayed) + 1;
    for inst in module
        .functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
    {
        if !inst.operands.iter().any(|o| id(o) == Some(var)) {
            continue;
        }
        let member = matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain)
            .then(|| inst.operands.get(member_at).and_then(id))
            .flatten()
            .filter(|_| inst.operands.first().and_then(id) == Some(var))
            .and_then(|c| types.constant(c));
        match (member, used.as_mut()) {
            (Some(m), Some(set)) => {
                set.insert(m);
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
pub(super) fn trim_per_vertex_blocks(modules: &mut [(ShaderStage, dr::Module, HashSet<String>)]) {
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
fn trim_block(module: &mut dr::Module, block: &PerVertex, keep: &HashSet<u32>) {
    let kept: Vec<u32> = (0..block.builtins.len() as u32)
        .filter(|&m| keep.contains(&block.builtins[m as usize]))
        .collect();
    if kept.len() == block.builtins.len() {
        return;
    }
    let new_index = |m: u32| kept.iter().position(|&k| k == m).map(|p| p as u32);
    for inst in &mut module.types_global_values {
        if inst.result_id == Some(block.block) {
            let members = std::mem::take(&mut inst.operands);
            inst.operands = kept.iter().map(|&m| members[m as usize].clone()).collect();
        }
    }
    let renumber = |insts: &mut Vec<Instruction>, op: Op| {
        insts.retain_mut(|inst| {
            if inst.class.opcode != op
                || inst.operands.first() != Some(&Operand::IdRef(block.block))
            {
                return true;
            }
            let Some(Operand::LiteralBit32(m)) = inst.operands.get_mut(1) else {
                return true;
            };
            match new_index(*m) {
                Some(n) => {
                    *m = n;
                    true
                }
                None => false,
            }
        })
    };
    renumber(&mut module.annotations, Op::MemberDecorate);
    renumber(&mut module.debug_names, Op::MemberName);
    // Access chains index the block with integer constants; the new index needs one of
    // the same type.
    let member_at = usize::from(block.arrayed) + 1;
    let types = Types::new(module);
    let mut constants: HashMap<(u32, u32), u32> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| {
            Some((
                (i.result_type?, types.constant(i.result_id?)?),
                i.result_id?,
            ))
        })
        .collect();
    let mut new_constants = Vec::new();
    let bound = &mut module
        .header
        .as_mut()
        .expect("a loaded module has a header")
        .bound;
    for inst in module
        .functions
        .iter_mut()
        .flat_map(|f| &mut f.blocks)
        .flat_map(|b| &mut b.instructions)
    {
        if inst.operands.first() != Some(&Operand::IdRef(block.var)) {
            continue;
        }
        let Some(Operand::IdRef(index)) = inst.operands.get_mut(member_at) else {
            continue;
        };
        let (Some(old), Some(ty)) = (
            types.constant(*index),
            types.def(*index).and_then(|c| c.result_type),
        ) else {
            continue;
        };
        let value = new_index(old).expect("a member in use is kept");
        *index = *constants.entry((ty, value)).or_insert_with(|| {
            let cid = *bound;
            *bound += 1;
            new_constants.push(Instruction::new(
                Op::Constant,
                Some(ty),
                Some(cid),
                vec![Operand::LiteralBit32(value)],
            ));
            cid
        });
    }
    module.types_global_values.extend(new_constants);
}

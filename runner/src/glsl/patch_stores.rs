//! A workaround for lavapipe: a TCS's stores to a dynamically indexed component of a patch
//! output become a switch over constant components, so each invocation writes only its
//! component as in GL.

use std::collections::{HashMap, HashSet};

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{id, literal, Additions, Types};
use crate::scene::ShaderStage;

/// A tessellation control shader's store to a component of a patch output chosen at run
/// time (`v[i] = x`, `v.wxy[i] = x`) becomes a switch over the component with a store to a
/// constant component in each case: lavapipe turns the dynamic store into a load and store
/// of the whole vector, which loses the other invocations' writes to the other components
/// (in GL each invocation writes only its component).
pub(super) fn split_dynamic_patch_component_stores(stage: ShaderStage, module: &mut dr::Module) {
    if stage != ShaderStage::TessControl {
        return;
    }
    let types = Types::new(module);
    let patch_outputs: HashSet<u32> = module
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Variable
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Output))
                && i.result_id
                    .is_some_and(|v| types.decoration(v, Decoration::Patch).is_some())
        })
        .filter_map(|i| i.result_id)
        .collect();
    let mut add = Additions::without_uint(module);
    for function in &mut module.functions {
        // Result types of the function's values (the selectors' integer types).
        let result_types: HashMap<u32, u32> = function
            .blocks
            .iter()
            .flat_map(|b| &b.instructions)
            .filter_map(|i| Some((i.result_id?, i.result_type?)))
            .collect();
        let mut chains: HashMap<u32, Instruction> = HashMap::new();
        let mut at = 0;
        while at < function.blocks.len() {
            let block = &function.blocks[at];
            if block
                .instructions
                .iter()
                .any(|i| i.class.opcode == Op::LoopMerge)
            {
                at += 1;
                continue;
            }
            let store = dynamic_component_store(block, &mut chains, &types, &patch_outputs);
            let Some((store, &selector_type)) =
                store.and_then(|s| Some((s.clone(), result_types.get(&s.selector)?)))
            else {
                at += 1;
                continue;
            };
            let constants = (0..store.count)
                .map(|component| {
                    add.global_among(
                        types.defs.values(),
                        Op::Constant,
                        Some(selector_type),
                        vec![Operand::LiteralBit32(component)],
                    )
                })
                .collect();
            // Go on in the block after the switch.
            at += switch_over_components(function, at, store, constants, &mut add);
        }
    }
    let end = module.types_global_values.len();
    add.finish(module, end);
}

/// A store to a component of a patch output chosen at run time: the store's place in its
/// block, the chain it stores through, the value, the component's selector and the
/// vector's size.
#[derive(Clone)]
struct DynamicStore {
    at: usize,
    chain: Instruction,
    value: Operand,
    selector: u32,
    count: u32,
}

/// The block's first dynamic store to a component of one of `patch_outputs`; records the
/// block's access chains in `chains` up to it.
fn dynamic_component_store(
    block: &dr::Block,
    chains: &mut HashMap<u32, Instruction>,
    types: &Types,
    patch_outputs: &HashSet<u32>,
) -> Option<DynamicStore> {
    for (n, inst) in block.instructions.iter().enumerate() {
        if matches!(inst.class.opcode, Op::AccessChain | Op::InBoundsAccessChain) {
            if let Some(r) = inst.result_id {
                chains.insert(r, inst.clone());
            }
        }
        if inst.class.opcode != Op::Store {
            continue;
        }
        let Some(chain) = inst
            .operands
            .first()
            .and_then(id)
            .and_then(|p| chains.get(&p))
        else {
            continue;
        };
        let Some(&Operand::IdRef(selector)) = chain.operands.last() else {
            continue;
        };
        let base = chain.operands.first().and_then(id);
        if !base.is_some_and(|b| patch_outputs.contains(&b)) || types.constant(selector).is_some() {
            continue;
        }
        if let Some(count) = indexed_vector_size(types, chain) {
            return Some(DynamicStore {
                at: n,
                chain: chain.clone(),
                value: inst.operands[1].clone(),
                selector,
                count,
            });
        }
    }
    None
}

/// Replaces the store in block `at` with a switch over the component (`constants`, one per
/// component) with a store to a constant component in each case; the rest of the block
/// follows in a new merge block. Returns the number of blocks from `at` to the merge block.
fn switch_over_components(
    function: &mut dr::Function,
    at: usize,
    store: DynamicStore,
    constants: Vec<u32>,
    add: &mut Additions,
) -> usize {
    let label = |l: u32| Instruction::new(Op::Label, None, Some(l), vec![]);
    let merge = add.fresh();
    let block = &mut function.blocks[at];
    let rest: Vec<Instruction> = block.instructions.drain(store.at..).skip(1).collect();
    let old_label = block.label.as_ref().and_then(|l| l.result_id);
    let mut cases = Vec::new();
    let mut switch = vec![Operand::IdRef(store.selector), Operand::IdRef(merge)];
    for (component, constant) in constants.into_iter().enumerate() {
        let case = add.fresh();
        switch.push(Operand::LiteralBit32(component as u32));
        switch.push(Operand::IdRef(case));
        let pointer = add.fresh();
        let mut access = store.chain.clone();
        access.result_id = Some(pointer);
        *access.operands.last_mut().expect("a chain has indices") = Operand::IdRef(constant);
        cases.push(dr::Block {
            label: Some(label(case)),
            instructions: vec![
                access,
                Instruction::new(
                    Op::Store,
                    None,
                    None,
                    vec![Operand::IdRef(pointer), store.value.clone()],
                ),
                Instruction::new(Op::Branch, None, None, vec![Operand::IdRef(merge)]),
            ],
        });
    }
    block.instructions.push(Instruction::new(
        Op::SelectionMerge,
        None,
        None,
        vec![
            Operand::IdRef(merge),
            Operand::SelectionControl(spirv::SelectionControl::NONE),
        ],
    ));
    block
        .instructions
        .push(Instruction::new(Op::Switch, None, None, switch));
    // The rest of the block (and its terminator) follows the switch; phis of its
    // successors now come from there.
    for inst in function.blocks.iter_mut().flat_map(|b| &mut b.instructions) {
        if inst.class.opcode == Op::Phi {
            for o in &mut inst.operands {
                if old_label.is_some_and(|l| *o == Operand::IdRef(l)) {
                    *o = Operand::IdRef(merge);
                }
            }
        }
    }
    cases.push(dr::Block {
        label: Some(label(merge)),
        instructions: rest,
    });
    let count = cases.len();
    function.blocks.splice(at + 1..at + 1, cases);
    count
}

/// The size of the vector a chain's last index picks a component of, if it does.
fn indexed_vector_size(types: &Types, chain: &Instruction) -> Option<u32> {
    let base = chain.operands.first().and_then(id)?;
    let var = types.def(base);
    let mut ty = types.pointee(var.and_then(|v| v.result_type).unwrap_or_default())?;
    let indices = &chain.operands[1..];
    for index in &indices[..indices.len() - 1] {
        let def = types.def(ty)?;
        ty = match def.class.opcode {
            Op::TypeArray | Op::TypeRuntimeArray | Op::TypeVector | Op::TypeMatrix => {
                def.operands.first().and_then(id)?
            }
            Op::TypeStruct => def
                .operands
                .get(types.constant(id(index)?)? as usize)
                .and_then(id)?,
            _ => return None,
        };
    }
    let def = types.def(ty)?;
    (def.class.opcode == Op::TypeVector).then(|| def.operands.get(1).and_then(literal))?
}

//! A workaround for lavapipe: a TCS's stores to a dynamically indexed component of a patch
//! output become a switch over constant components, so each invocation writes only its
//! component as in GL.

use std::collections::{HashMap, HashSet};

use glsem_spirv::module::{push_inst, Editor, Inst, Module, Type};
use glsem_spirv::operands::for_each_id_operand_mut;
use spirv::{Decoration, Op, StorageClass};

use super::spv::edit;
use crate::scene::ShaderStage;

/// A tessellation control shader's store to a component of a patch output chosen at run
/// time (`v[i] = x`, `v.wxy[i] = x`) becomes a switch over the component with a store to a
/// constant component in each case: lavapipe turns the dynamic store into a load and store
/// of the whole vector, which loses the other invocations' writes to the other components
/// (in GL each invocation writes only its component).
pub(super) fn split_dynamic_patch_component_stores(stage: ShaderStage, module: &mut Vec<u32>) {
    if stage != ShaderStage::TessControl {
        return;
    }
    edit(module, |editor| {
        let view = editor.module;
        let patch_outputs: HashSet<u32> = view
            .globals
            .keys()
            .copied()
            .filter(|&v| {
                view.variable(v)
                    .is_some_and(|(s, _)| s == StorageClass::Output)
                    && view.has_decoration(v, Decoration::Patch)
            })
            .collect();
        let mut functions: Vec<usize> = view.functions.values().copied().collect();
        functions.sort_unstable();
        for start in functions {
            split_in_function(editor, start, &patch_outputs);
        }
    });
}

/// Splits the dynamic component stores of the function whose `OpFunction` is instruction
/// `start`, block by block, outside loop headers.
fn split_in_function(editor: &mut Editor, start: usize, patch_outputs: &HashSet<u32>) {
    let view = editor.module;
    let end = start
        + view
            .insts
            .range(start..)
            .position(|i| i.op() == Some(Op::FunctionEnd))
            .unwrap_or(0);
    let code = start..end;
    // Result types of the values its blocks define (the selectors' integer types).
    let first_label = code
        .clone()
        .find(|&i| view.insts.at(i).op() == Some(Op::Label))
        .unwrap_or(end);
    let result_types: HashMap<u32, u32> = view
        .insts
        .range(first_label..end)
        .filter_map(|i| Some((i.result_id()?, i.result_type()?)))
        .collect();
    let mut chains: HashMap<u32, Inst> = HashMap::new();
    // The label each block's last part now has, for its successors' phis.
    let mut moved_labels: HashMap<u32, u32> = HashMap::new();
    let mut label = 0;
    // A loop header's block, or the rest of a block whose store's selector is no value of
    // the function, is left as it is.
    let mut skip_block = false;
    for index in first_label..end {
        let inst = view.insts.at(index);
        match inst.op() {
            Some(Op::Label) => {
                label = inst.operand(0);
                let block_end = (index + 1..end)
                    .find(|&i| view.insts.at(i).op() == Some(Op::Label))
                    .unwrap_or(end);
                skip_block = view
                    .find_in((index, block_end), Op::LoopMerge)
                    .next()
                    .is_some();
            }
            Some(Op::AccessChain | Op::InBoundsAccessChain) if !skip_block => {
                chains.insert(inst.operand(1), inst);
            }
            Some(Op::Store) if !skip_block => {
                let Some(store) = dynamic_component_store(view, inst, &chains, patch_outputs)
                else {
                    continue;
                };
                let Some(&selector_type) = result_types.get(&store.selector) else {
                    skip_block = true;
                    continue;
                };
                let constants: Vec<u32> = (0..store.count)
                    .map(|component| editor.constant_words(selector_type, &[component]))
                    .collect();
                let mut code = Vec::new();
                let merge = switch_over_components(editor, &mut code, &store, &constants);
                editor.replace(index, code);
                moved_labels.insert(label, merge);
            }
            _ => {}
        }
    }
    // The rest of each split block (and its terminator) follows its switch; phis of its
    // successors now come from there.
    for index in view.find_in((first_label, end), Op::Phi) {
        let mut words = view.insts.at(index).words.to_vec();
        let mut changed = false;
        for_each_id_operand_mut(&mut words, |id| {
            if let Some(&merge) = moved_labels.get(id) {
                *id = merge;
                changed = true;
            }
        })
        .expect("OpPhi is in the grammar");
        if changed {
            editor.replace(index, words);
        }
    }
}

/// A store to a component of a patch output chosen at run time: the chain it stores
/// through, the value, the component's selector and the vector's size.
struct DynamicStore<'a> {
    chain: Inst<'a>,
    value: u32,
    selector: u32,
    count: u32,
}

/// `store` when it stores to a dynamic component of one of `patch_outputs` through one of
/// the function's `chains` so far.
fn dynamic_component_store<'a>(
    view: &Module,
    store: Inst,
    chains: &HashMap<u32, Inst<'a>>,
    patch_outputs: &HashSet<u32>,
) -> Option<DynamicStore<'a>> {
    // Store words: pointer, value; chain words: result type, result, base, indices.
    let chain = *chains.get(&store.operand(0))?;
    let indices = chain.operands().get(3..).filter(|i| !i.is_empty())?;
    let selector = *indices.last()?;
    if !patch_outputs.contains(&chain.operand(2)) || view.constant_u32(selector).is_some() {
        return None;
    }
    Some(DynamicStore {
        chain,
        value: store.operand(1),
        selector,
        count: indexed_vector_size(view, chain.operand(2), indices)?,
    })
}

/// Writes to `code` a switch over the component (`constants`, one per component) with a
/// store to a constant component in each case, then the label of the merge block the rest
/// of the store's block goes on in; returns that label.
fn switch_over_components(
    editor: &mut Editor,
    code: &mut Vec<u32>,
    store: &DynamicStore,
    constants: &[u32],
) -> u32 {
    let merge = editor.new_id();
    let mut cases = Vec::new();
    let mut switch = vec![store.selector, merge];
    for (component, &constant) in constants.iter().enumerate() {
        let case = editor.new_id();
        switch.extend([component as u32, case]);
        let pointer = editor.new_id();
        let mut access = store.chain.words.to_vec();
        access[2] = pointer;
        *access.last_mut().expect("a chain has indices") = constant;
        push_inst(&mut cases, Op::Label, &[case]);
        cases.extend(access);
        editor.store(&mut cases, pointer, store.value);
        push_inst(&mut cases, Op::Branch, &[merge]);
    }
    let no_control = spirv::SelectionControl::NONE.bits();
    push_inst(code, Op::SelectionMerge, &[merge, no_control]);
    push_inst(code, Op::Switch, &switch);
    code.extend(cases);
    push_inst(code, Op::Label, &[merge]);
    merge
}

/// The size of the vector that the last of `indices` into `base` picks a component of, if
/// it does.
fn indexed_vector_size(view: &Module, base: u32, indices: &[u32]) -> Option<u32> {
    let (_, mut ty) = view.variable(base)?;
    for &index in &indices[..indices.len() - 1] {
        ty = match view.type_of(ty)? {
            Type::Array { element, .. } | Type::RuntimeArray { element } => *element,
            Type::Vector { component, .. } => *component,
            Type::Matrix { column, .. } => *column,
            Type::Struct { members } => *members.get(view.constant_u32(index)? as usize)?,
            _ => return None,
        };
    }
    match view.type_of(ty)? {
        Type::Vector { count, .. } => Some(*count),
        _ => None,
    }
}

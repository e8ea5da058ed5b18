//! Turning an interface variable into a `Private` one: what a pass does with an input or
//! output whose value GL defines and the pipeline must not see (an unfed vertex input, a
//! sample mask on a single-sample target). The variable keeps its id; its decorations go,
//! its access chains are retyped, and before SPIR-V 1.4 it leaves the entry points'
//! interfaces (from 1.4 on they list every global they use, Private ones included).

use spirv::{Op, StorageClass};

use super::module::{entry_point_with_interface, Editor, Module, Section, Type};

/// Demotes every variable of `vars` to `Private`, each with its initializer constant
/// (`None`: uninitialized). The variables are moved to the end of the global section, after
/// the types and constants the editor adds.
pub fn demote_to_private(m: &Module<'_>, e: &mut Editor<'_, '_>, vars: &[(u32, Option<u32>)]) {
    let is_demoted = |id: u32| vars.iter().any(|&(v, _)| v == id);
    for &(var, initializer) in vars {
        let Some(&index) = m.globals.get(&var) else {
            continue;
        };
        let Some((_, pointee)) = m.variable(var) else {
            continue;
        };
        e.remove(index);
        e.redeclare_variable(var, StorageClass::Private, pointee, initializer);
    }
    let annotations = m.section_start(Section::Annotation)..m.section_start(Section::Global);
    for index in annotations {
        let inst = m.insts.at(index);
        if inst.op() == Some(Op::Decorate) && is_demoted(inst.operand(0)) {
            e.remove(index);
        }
    }
    let mut chains = Vec::new();
    for (index, inst) in m
        .insts
        .range(m.section_start(Section::Function)..)
        .enumerate()
    {
        let base = inst.operands().get(2).copied();
        let chained = matches!(inst.op(), Some(Op::AccessChain | Op::InBoundsAccessChain))
            && base.is_some_and(|b| is_demoted(b) || chains.contains(&b));
        if chained {
            chains.push(inst.operand(1));
            if let Some(Type::Pointer { pointee, .. }) = m.type_of(inst.operand(0)) {
                let ptr = e.type_pointer(StorageClass::Private, *pointee);
                e.patch_word(m.section_start(Section::Function) + index, 1, ptr);
            }
        }
    }
    if m.version() < super::module::INTERFACE_LISTS_ALL_GLOBALS {
        for ep in &m.entry_points {
            if ep.interface.iter().any(|&id| is_demoted(id)) {
                let kept: Vec<u32> = ep
                    .interface
                    .iter()
                    .copied()
                    .filter(|&id| !is_demoted(id))
                    .collect();
                e.replace(
                    ep.index,
                    entry_point_with_interface(&m.insts.at(ep.index), &kept),
                );
            }
        }
    }
}

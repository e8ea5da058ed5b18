//! What the tests of the smaller passes share: compiling a topic's GLSL, validating the
//! rewritten module, and following ids through it.

use crate::spirv_tools;

use glsem_spirv::module::{Inst, Module, Section};
use spirv::{BuiltIn, Decoration, Op, StorageClass};
use std::path::Path;

/// `tests/spirv/<topic>/<name>` compiled by glslang for `env`.
pub fn compile(topic: &str, name: &str, env: &str) -> Vec<u32> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/spirv")
        .join(topic)
        .join(name);
    spirv_tools::compile(&source, &["--target-env", env])
}

/// The rewritten module, once spirv-val accepted it.
pub fn valid(words: Vec<u32>, env: &str) -> Vec<u32> {
    spirv_tools::assert_valid(&words, env, "the rewritten module");
    words
}

/// The instruction whose result is `id`.
pub fn def<'a>(m: &Module<'a>, id: u32) -> Inst<'a> {
    m.insts
        .iter()
        .find(|i| i.result_id() == Some(id))
        .unwrap_or_else(|| panic!("%{id} is defined"))
}

/// The function-body instructions that take `id` as an operand (result type and id aside;
/// a literal may equal an id, so only function bodies are searched).
pub fn uses<'a>(m: &Module<'a>, id: u32) -> Vec<Inst<'a>> {
    m.insts
        .range(m.section_start(Section::Function)..)
        .filter(|i| {
            let skip =
                usize::from(i.result_type().is_some()) + usize::from(i.result_id().is_some());
            i.operands()
                .get(skip..)
                .is_some_and(|ops| ops.contains(&id))
        })
        .collect()
}

/// The variable decorated with `builtin` in `storage`, if any.
pub fn builtin_var(m: &Module<'_>, builtin: BuiltIn, storage: StorageClass) -> Option<u32> {
    m.globals.keys().copied().find(|&id| {
        matches!(m.variable(id), Some((s, _)) if s == storage)
            && m.decoration(id, Decoration::BuiltIn) == Some(&[builtin as u32][..])
    })
}

/// The loads of `var`, directly or through one access chain.
pub fn loads_of<'a>(m: &Module<'a>, var: u32) -> Vec<Inst<'a>> {
    let chains: Vec<u32> = m
        .insts
        .iter()
        .filter(|i| i.op() == Some(Op::AccessChain) && i.operand(2) == var)
        .map(|i| i.operand(1))
        .collect();
    m.insts
        .iter()
        .filter(|i| {
            i.op() == Some(Op::Load) && (i.operand(2) == var || chains.contains(&i.operand(2)))
        })
        .collect()
}

/// Whether `id` is the 32-bit float constant `value`.
pub fn is_float(m: &Module<'_>, id: u32, value: f32) -> bool {
    let i = def(m, id);
    i.op() == Some(Op::Constant) && f32::from_bits(i.operand(2)) == value
}

/// Whether `id` is loaded from a push constant (the GL-state block).
pub fn from_push_constant(m: &Module<'_>, id: u32) -> bool {
    let load = def(m, id);
    if load.op() != Some(Op::Load) {
        return false;
    }
    let chain = def(m, load.operand(2));
    chain.op() == Some(Op::AccessChain)
        && matches!(
            m.variable(chain.operand(2)),
            Some((StorageClass::PushConstant, _))
        )
}

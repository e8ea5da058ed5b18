//! GL's `gl_InstanceID`, which excludes the base instance.
//!
//! GL 4.6 §11.1.3.9: `gl_InstanceID` counts from 0 whatever the draw's base instance (that
//! is why `gl_BaseInstance` exists). glslang's relaxed mode (`-V -R`) compiles
//! `gl_InstanceID` to `InstanceIndex`, which includes `firstInstance`. The pass rewrites
//! every load of `InstanceIndex` in a vertex shader to `InstanceIndex − BaseInstance`
//! (`DrawParameters`, Vulkan 1.1 or `VK_KHR_shader_draw_parameters`). A shader that meant
//! Vulkan's `gl_InstanceIndex` cannot be told apart: under `VK_GLSEM_gl_state` GL's rule
//! applies, and the `instance_id = vulkan` setting keeps Vulkan's.

use spirv::{BuiltIn, Capability, Decoration, ExecutionModel, Op, StorageClass};

use super::error::PassResult;
use super::module::{Editor, Instruction, Module, Section};
use super::rule::{Rule, Semantic, Stage};

const DRAW_PARAMETERS_EXTENSION: &str = "SPV_KHR_shader_draw_parameters";

/// Subtracts the base instance from every load of `InstanceIndex` in vertex entry point
/// `entry`. `Ok(None)` when it reads no `InstanceIndex`.
pub fn instance_id_without_base(words: &[u32], entry: &str) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Vertex) else {
        return Ok(None);
    };
    let builtin_var = |builtin| m.builtin_variables(ep, StorageClass::Input, builtin).next();
    let Some((instance, int)) = builtin_var(BuiltIn::InstanceIndex) else {
        return Ok(None);
    };
    let loads: Vec<usize> = m
        .call_tree_insts(ep.function)
        .filter(|&i| m.insts[i].op() == Some(Op::Load) && m.insts[i].operand(2) == instance)
        .collect();
    if loads.is_empty() {
        return Ok(None);
    }

    let mut e = Editor::new(&m);
    let base = match builtin_var(BuiltIn::BaseInstance) {
        Some((base, _)) => base,
        None => {
            let var = e.add_variable(StorageClass::Input, int);
            e.decorate(var, Decoration::BuiltIn, &[BuiltIn::BaseInstance as u32]);
            e.name(var, "glsem_BaseInstance");
            e.extend_interface(ep, &[var], &[]);
            var
        }
    };
    e.add_capability(Capability::DrawParameters);
    let has_extension = m.insts[..m.section_start(Section::ExtInstImport)]
        .iter()
        .any(|i| {
            i.op() == Some(Op::Extension)
                && super::module::decode_string(i.operands()).0 == DRAW_PARAMETERS_EXTENSION
        });
    if !has_extension && m.version() < (1, 3) {
        let extension = Instruction::extension(DRAW_PARAMETERS_EXTENSION);
        e.append_instruction(Section::Extension, &extension);
    }
    for index in loads {
        let load = &m.insts[index];
        let (ty, result) = (load.operand(0), load.operand(1));
        let mut code = Vec::new();
        let ops = load.operands();
        let index_value = e.load_with_access(&mut code, ty, ops[2], &ops[3..]);
        let base_value = e.load(&mut code, ty, base);
        e.binary_as(&mut code, Op::ISub, ty, result, index_value, base_value);
        e.replace(index, code);
    }
    Ok(Some(e.finish()?))
}

/// The step: the vertex shader's `InstanceIndex` loads become `InstanceIndex − BaseInstance`
/// (GL's `gl_InstanceID`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InstanceIdWithoutBase;

impl Rule for InstanceIdWithoutBase {
    const SEMANTIC: Semantic = Semantic::InstanceId;
    const STAGE: Option<Stage> = Some(Stage::Vertex);
    const NOTE: &'static str = "gl_InstanceID excludes the base instance";

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        instance_id_without_base(words, entry)
    }
}

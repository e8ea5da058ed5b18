//! GL's `gl_InstanceID`, which excludes the base instance.
//!
//! GL 4.6 §11.1.3.9: `gl_InstanceID` counts from 0 whatever the draw's base instance (that
//! is why `gl_BaseInstance` exists). glslang's relaxed mode (`-V -R`) compiles
//! `gl_InstanceID` to `InstanceIndex`, which includes `firstInstance`. The pass rewrites
//! every load of `InstanceIndex` in a vertex shader to `InstanceIndex − BaseInstance`
//! (`DrawParameters`, Vulkan 1.1 or `VK_KHR_shader_draw_parameters`). A shader that meant
//! Vulkan's `gl_InstanceIndex` cannot be told apart: under `VK_GLSEM_gl_state` GL's rule
//! applies, and the `instance_id = vulkan` setting keeps Vulkan's. A device without
//! `shaderDrawParameters` has no `BaseInstance`: the shader reads the base from the
//! GL-state block instead, where the layer pushes each draw's `firstInstance`.

use spirv::{BuiltIn, Capability, Decoration, ExecutionModel, Op, StorageClass};

use super::error::PassResult;
use super::gl_state::StateReader;
use super::module::{Editor, EntryPoint, Instruction, Module, Section};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

const DRAW_PARAMETERS_EXTENSION: &str = "SPV_KHR_shader_draw_parameters";

/// Where the pass reads the draw's base instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InstanceBase {
    /// The `BaseInstance` built-in (`shaderDrawParameters`).
    BuiltIn,
    /// The GL-state block at this push-constant offset (`base_instance`, which the layer
    /// pushes at each draw), on a device without `shaderDrawParameters`.
    GlState { block_offset: u32 },
}

/// Subtracts the base instance (read from `base`) from every load of `InstanceIndex` in
/// vertex entry point `entry`. `Ok(None)` when it reads no `InstanceIndex`.
pub fn instance_id_without_base(words: &[u32], entry: &str, base: InstanceBase) -> PassResult {
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
        .filter(|&i| m.insts.at(i).op() == Some(Op::Load) && m.insts.at(i).operand(2) == instance)
        .collect();
    if loads.is_empty() {
        return Ok(None);
    }

    let mut e = Editor::new(&m);
    let source = match base {
        InstanceBase::BuiltIn => BaseSource::Variable(base_instance_builtin(&m, ep, &mut e, int)),
        InstanceBase::GlState { block_offset } => {
            let state = StateReader::find_or_declare(&m, &mut e, ep, block_offset)?;
            if let Some(var) = state.declared {
                e.extend_interface(ep, &[], &[var]);
            }
            BaseSource::Block(state)
        }
    };
    for index in loads {
        let load = m.insts.at(index);
        let (ty, result) = (load.operand(0), load.operand(1));
        let mut code = Vec::new();
        let ops = load.operands();
        let index_value = e.load_with_access(&mut code, ty, ops[2], &ops[3..]);
        let base_value = match &source {
            BaseSource::Variable(var) => e.load(&mut code, ty, *var),
            BaseSource::Block(state) => {
                let base = state.base_instance(&mut e, &mut code);
                e.bitcast(&mut code, ty, base)
            }
        };
        e.binary_as(&mut code, Op::ISub, ty, result, index_value, base_value);
        e.replace(index, code);
    }
    Ok(Some(e.finish()?))
}

/// What the pass subtracts.
enum BaseSource {
    Variable(u32),
    Block(StateReader),
}

/// The `BaseInstance` input of `ep`, declared (with its capability and extension) where the
/// module has none.
fn base_instance_builtin(m: &Module<'_>, ep: &EntryPoint, e: &mut Editor<'_, '_>, int: u32) -> u32 {
    let base = match m
        .builtin_variables(ep, StorageClass::Input, BuiltIn::BaseInstance)
        .next()
    {
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
    let has_extension = m
        .insts
        .range(..m.section_start(Section::ExtInstImport))
        .any(|i| {
            i.op() == Some(Op::Extension)
                && super::module::decode_string(i.operands()).0 == DRAW_PARAMETERS_EXTENSION
        });
    if !has_extension && m.version() < (1, 3) {
        let extension = Instruction::extension(DRAW_PARAMETERS_EXTENSION);
        e.append_instruction(Section::Extension, &extension);
    }
    base
}

/// The step: the vertex shader's `InstanceIndex` loads become `InstanceIndex − base`
/// (GL's `gl_InstanceID`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InstanceIdWithoutBase {
    pub base: InstanceBase,
}

impl Rule for InstanceIdWithoutBase {
    const SEMANTIC: Semantic = Semantic::InstanceId;
    const STAGE: Option<Stage> = Some(Stage::Vertex);

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        match self.base {
            InstanceBase::BuiltIn => "gl_InstanceID excludes the base instance".into(),
            InstanceBase::GlState { block_offset } => format!(
                "gl_InstanceID excludes the base instance, which the layer pushes at each draw \
                 (push-constant offset {block_offset}): the device has no shaderDrawParameters"
            ),
        }
    }

    fn reads_block(&self) -> bool {
        matches!(self.base, InstanceBase::GlState { .. })
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        instance_id_without_base(words, entry, self.base)
    }
}

//! GL_ARB_fragment_layer_viewport: a fragment shader below GLSL 4.30 reads `gl_Layer` and
//! `gl_ViewportIndex` (core in 4.30), which glslang declares from 4.30 on only, and it
//! rejects the extension's name. The source fix
//! ([`crate::extension_fixes::fragment_layer_viewport`]) reads them from placeholder
//! inputs; this pass makes those the built-ins, as glslang declares them at 4.30.

use rspirv::dr::{self, Instruction, Operand};
use spirv::{BuiltIn, Capability, Decoration, Op, StorageClass};

use crate::extension_fixes::FRAGMENT_BUILTIN_PLACEHOLDERS;

/// Turns the placeholder inputs into `BuiltIn Layer` and `BuiltIn ViewportIndex` inputs
/// (no `Location`, GL's names, the capabilities those built-ins need); returns whether
/// it changed something.
pub(super) fn restore_fragment_builtins(module: &mut dr::Module) -> bool {
    let mut changed = false;
    for (placeholder, builtin, gl_name) in FRAGMENT_BUILTIN_PLACEHOLDERS {
        let Some(var) = module
            .debug_names
            .iter()
            .find(|i| {
                i.class.opcode == Op::Name
                    && matches!(i.operands.get(1), Some(Operand::LiteralString(s)) if s == placeholder)
            })
            .and_then(|i| match i.operands.first() {
                Some(Operand::IdRef(v)) => Some(*v),
                _ => None,
            })
        else {
            continue;
        };
        let is_input = module.types_global_values.iter().any(|i| {
            i.result_id == Some(var)
                && i.operands.first() == Some(&Operand::StorageClass(StorageClass::Input))
        });
        if !is_input {
            continue;
        }
        module.annotations.retain(|i| {
            !(i.operands.first() == Some(&Operand::IdRef(var))
                && matches!(
                    i.operands.get(1),
                    Some(Operand::Decoration(
                        Decoration::Location | Decoration::Component
                    ))
                ))
        });
        module.annotations.push(Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![
                Operand::IdRef(var),
                Operand::Decoration(Decoration::BuiltIn),
                Operand::BuiltIn(builtin),
            ],
        ));
        for name in &mut module.debug_names {
            if name.operands.first() == Some(&Operand::IdRef(var)) {
                name.operands[1] = Operand::LiteralString(gl_name.to_string());
            }
        }
        let capability = match builtin {
            BuiltIn::ViewportIndex => Capability::MultiViewport,
            _ => Capability::Geometry,
        };
        let declared = module
            .capabilities
            .iter()
            .any(|i| i.operands.first() == Some(&Operand::Capability(capability)));
        if !declared {
            module.capabilities.push(Instruction::new(
                Op::Capability,
                None,
                None,
                vec![Operand::Capability(capability)],
            ));
        }
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::glslang::Compiler;
    use crate::glsl::spv::assert_valid_vulkan_spirv;
    use crate::scene::Stage;
    use rspirv::binary::Disassemble;

    #[test]
    fn placeholders_become_the_built_ins() {
        let mut units = vec![
            "#version 150\n#extension GL_ARB_fragment_layer_viewport : require\n\
             out vec4 c;\nvoid main() { c = vec4(gl_Layer, gl_ViewportIndex, 0, 1); }\n"
                .to_string(),
        ];
        assert!(crate::extension_fixes::fragment_layer_viewport(&mut units));
        let (words, _) = Compiler::for_tests()
            .compile(Stage::Fragment, &[(units[0].clone(), None)])
            .unwrap();
        let mut module = dr::load_words(&words).unwrap();
        assert!(restore_fragment_builtins(&mut module));
        let text = module.disassemble();
        assert!(text.contains("BuiltIn Layer"), "{text}");
        assert!(text.contains("BuiltIn ViewportIndex"), "{text}");
        assert!(text.contains("OpCapability MultiViewport"), "{text}");
        assert!(!text.contains("Location 3"), "{text}");
        assert_valid_vulkan_spirv(
            &rspirv::binary::Assemble::assemble(&module),
            "fragment_layer",
        );
    }
}

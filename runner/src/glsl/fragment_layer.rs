//! GL_ARB_fragment_layer_viewport: a fragment shader below GLSL 4.30 reads `gl_Layer` and
//! `gl_ViewportIndex` (core in 4.30), which glslang declares from 4.30 on only, and it
//! rejects the extension's name. The source fix
//! ([`crate::extension_fixes::fragment_layer_viewport`]) reads them from placeholder
//! inputs; this pass makes those the built-ins, as glslang declares them at 4.30.
//! GL_AMD_vertex_shader_layer / GL_AMD_vertex_shader_viewport_index: the same for the
//! placeholder outputs of a vertex shader
//! ([`crate::extension_fixes::vertex_layer_viewport`]).

use glsem_spirv::module::Editor;
use spirv::{BuiltIn, Capability, Decoration, StorageClass};

use super::spv::edit;
use crate::extension_fixes::{FRAGMENT_BUILTIN_PLACEHOLDERS, VERTEX_BUILTIN_PLACEHOLDERS};

/// Turns the placeholder inputs into `BuiltIn Layer` and `BuiltIn ViewportIndex` inputs
/// (no `Location`, GL's names, the capabilities those built-ins need); returns whether
/// it changed something.
pub(super) fn restore_fragment_builtins(module: &mut Vec<u32>) -> bool {
    edit(module, |editor| {
        let mut changed = false;
        for (placeholder, builtin, gl_name) in FRAGMENT_BUILTIN_PLACEHOLDERS {
            let capability = match builtin {
                BuiltIn::ViewportIndex => Capability::MultiViewport,
                _ => Capability::Geometry,
            };
            if restore(editor, StorageClass::Input, (placeholder, builtin, gl_name)) {
                editor.add_capability(capability);
                changed = true;
            }
        }
        changed
    })
}

/// Turns the placeholder outputs into `BuiltIn Layer` and `BuiltIn ViewportIndex`
/// outputs, which a vertex shader writes through SPV_EXT_shader_viewport_index_layer
/// (gl_ViewportIndex selects among several viewports: `MultiViewport` too); returns
/// whether it changed something.
pub(super) fn restore_vertex_builtins(module: &mut Vec<u32>) -> bool {
    edit(module, |editor| {
        let mut changed = false;
        for (placeholder, builtin, gl_name, _) in VERTEX_BUILTIN_PLACEHOLDERS {
            if !restore(
                editor,
                StorageClass::Output,
                (placeholder, builtin, gl_name),
            ) {
                continue;
            }
            editor.add_capability(Capability::ShaderViewportIndexLayerEXT);
            if builtin == BuiltIn::ViewportIndex {
                editor.add_capability(Capability::MultiViewport);
            }
            changed = true;
        }
        if changed {
            editor.add_extension("SPV_EXT_shader_viewport_index_layer");
        }
        changed
    })
}

/// Makes the `storage` variable named `placeholder` the built-in, named `gl_name`;
/// returns whether there was one.
fn restore(
    editor: &mut Editor,
    storage: StorageClass,
    (placeholder, builtin, gl_name): (&str, BuiltIn, &str),
) -> bool {
    let module = editor.module;
    let Some(var) = module
        .ids_named(placeholder)
        .find(|&id| module.variable(id).is_some_and(|(s, _)| s == storage))
    else {
        return false;
    };
    editor.remove_decoration(var, Decoration::Location);
    editor.remove_decoration(var, Decoration::Component);
    editor.decorate(var, Decoration::BuiltIn, &[builtin as u32]);
    editor.rename(var, gl_name);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::glslang::Compiler;
    use crate::glsl::spv::assert_valid_vulkan_spirv;
    use crate::scene::ShaderStage;
    use rspirv::binary::Disassemble;

    /// `source`, its source fix, glslang and `restore`: the disassembly, once `restore` has
    /// changed the module and spirv-val has accepted it.
    fn restored(
        stage: ShaderStage,
        source: &str,
        fix: fn(&mut [String]) -> bool,
        restore: fn(&mut Vec<u32>) -> bool,
    ) -> String {
        let mut units = vec![source.to_string()];
        assert!(fix(&mut units));
        let (words, _) = Compiler::for_tests()
            .compile(stage, &[(units[0].clone(), None)])
            .unwrap();
        let mut module = words;
        assert!(restore(&mut module));
        assert_valid_vulkan_spirv(&module, "fragment_layer");
        rspirv::dr::load_words(&module).unwrap().disassemble()
    }

    #[test]
    fn vertex_placeholders_become_the_built_ins() {
        let text = restored(
            ShaderStage::Vertex,
            "#version 140\n#extension GL_AMD_vertex_shader_layer : enable\n\
             #extension GL_AMD_vertex_shader_viewport_index : enable\n\
             void main() { gl_Position = vec4(0); gl_Layer = 3; gl_ViewportIndex = 2; }\n",
            crate::extension_fixes::vertex_layer_viewport,
            restore_vertex_builtins,
        );
        assert!(text.contains("BuiltIn Layer"), "{text}");
        assert!(text.contains("BuiltIn ViewportIndex"), "{text}");
        assert!(
            text.contains("OpCapability ShaderViewportIndexLayerEXT"),
            "{text}"
        );
        assert!(
            text.contains("SPV_EXT_shader_viewport_index_layer"),
            "{text}"
        );
        assert!(!text.contains("Location"), "{text}");
    }

    #[test]
    fn placeholders_become_the_built_ins() {
        let text = restored(
            ShaderStage::Fragment,
            "#version 150\n#extension GL_ARB_fragment_layer_viewport : require\n\
             out vec4 c;\nvoid main() { c = vec4(gl_Layer, gl_ViewportIndex, 0, 1); }\n",
            crate::extension_fixes::fragment_layer_viewport,
            restore_fragment_builtins,
        );
        assert!(text.contains("BuiltIn Layer"), "{text}");
        assert!(text.contains("BuiltIn ViewportIndex"), "{text}");
        assert!(text.contains("OpCapability MultiViewport"), "{text}");
        assert!(!text.contains("Location 3"), "{text}");
    }
}

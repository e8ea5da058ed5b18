//! ARB_gl_spirv: a GL SPIR-V module (`SPIRV ONLY` scenes, assembled by `spirv-as`) made a
//! Vulkan one, and specialized as `glSpecializeShader` does.

use glsem_spirv::module::{inst, Section};
use spirv::{BuiltIn, Decoration, ExecutionMode, Op, StorageClass};

use super::spv::edit;
use crate::scene::SceneError;

/// What a GL SPIR-V module (ARB_gl_spirv) needs to be a Vulkan one, as glslang makes it
/// from the same GLSL: a fragment shader's `OriginUpperLeft` (GL's lower-left origin is
/// the layer's to give, as for GLSL), `VertexIndex` and `InstanceIndex` for GL's
/// `VertexId` and `InstanceId` (the runner draws from base instance 0). Default-block
/// uniforms (non-opaque `UniformConstant` variables) have no Vulkan equivalent here: SKIP.
pub(super) fn vulkan_from_gl_spirv(module: &mut Vec<u32>) -> Result<(), SceneError> {
    let loose = edit(module, |editor| {
        let m = editor.module;
        for index in m.section_range(Section::Annotation) {
            let decoration = m.insts.at(index);
            // The BuiltIn's word: after the opcode word, the target, the member and the
            // decoration.
            let at = match decoration.op() {
                // No member.
                Some(Op::Decorate) => 3,
                Some(Op::MemberDecorate) => 4,
                _ => continue,
            };
            if decoration.operand(at - 2) != Decoration::BuiltIn as u32 {
                continue;
            }
            let vulkan = match BuiltIn::from_u32(decoration.operand(at - 1)) {
                Some(BuiltIn::VertexId) => BuiltIn::VertexIndex,
                Some(BuiltIn::InstanceId) => BuiltIn::InstanceIndex,
                _ => continue,
            };
            editor.patch_word(index, at, vulkan as u32);
        }
        for index in m.section_range(Section::ExecutionMode) {
            let mode = m.insts.at(index);
            if mode.op() == Some(Op::ExecutionMode)
                && mode.operand(1) == ExecutionMode::OriginLowerLeft as u32
            {
                editor.patch_word(index, 2, ExecutionMode::OriginUpperLeft as u32);
            }
        }
        m.globals.keys().any(|&var| {
            let Some((StorageClass::UniformConstant, pointee)) = m.variable(var) else {
                return false;
            };
            let opaque = m.globals.get(&pointee).is_some_and(|&t| {
                matches!(
                    m.insts.at(t).op(),
                    Some(Op::TypeSampledImage | Op::TypeImage | Op::TypeSampler)
                )
            });
            !opaque
        })
    });
    if loose {
        return Err(SceneError::Skip(
            "GL SPIR-V uniforms outside blocks (UniformConstant with a Location) are not \
             mapped to Vulkan"
                .into(),
        ));
    }
    Ok(())
}

/// `[… shader specializations]`: each `SpecId` constant gets its value, as
/// glSpecializeShader gives it (booleans: nonzero is true).
pub(super) fn specialize(module: &mut Vec<u32>, values: &[(u32, u32)]) -> Result<(), String> {
    edit(module, |editor| {
        let m = editor.module;
        for &(spec_id, value) in values {
            let missing = || format!("no specialization constant with SpecId {spec_id}");
            let target = m
                .decorations
                .iter()
                .find(|(_, ds)| {
                    ds.iter()
                        .any(|(d, lits)| *d == Decoration::SpecId && lits.first() == Some(&spec_id))
                })
                .map(|(&target, _)| target)
                .ok_or_else(missing)?;
            let &index = m.globals.get(&target).ok_or_else(missing)?;
            let constant = m.insts.at(index);
            let ty = constant.operand(0);
            let words_32 = m.globals.get(&ty).is_some_and(|&t| {
                matches!(m.insts.at(t).op(), Some(Op::TypeInt | Op::TypeFloat))
                    && m.insts.at(t).operand(1) == 32
            });
            let specialized = match constant.op() {
                Some(Op::SpecConstant) if words_32 => inst(Op::SpecConstant, &[ty, target, value]),
                Some(Op::SpecConstantTrue | Op::SpecConstantFalse) => {
                    let op = if value != 0 {
                        Op::SpecConstantTrue
                    } else {
                        Op::SpecConstantFalse
                    };
                    inst(op, &[ty, target])
                }
                _ => {
                    return Err(format!(
                        "SpecId {spec_id}: only 32-bit and boolean specialization constants are \
                         supported"
                    ))
                }
            };
            editor.replace(index, specialized);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::spv::parse;

    #[test]
    fn gl_spirv_becomes_vulkan_spirv() {
        let assembled = |text: &str| {
            let shader = crate::scene::Shader {
                stage: crate::scene::ShaderStage::Vertex,
                source: text.to_string(),
                first_line: 1,
            };
            crate::glsl::glslang::Compiler::for_tests()
                .assemble(&shader)
                .unwrap()
        };
        let head = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
                    OpEntryPoint Vertex %main \"main\" %vid\nOpDecorate %vid BuiltIn VertexId\n\
                    OpDecorate %flag SpecId 3\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %int = OpTypeInt 32 1\n%bool = OpTypeBool\n%flag = OpSpecConstantFalse %bool\n\
                    %pi = OpTypePointer Input %int\n%vid = OpVariable %pi Input\n";
        let tail = "%main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n";
        let mut module = assembled(&format!("{head}{tail}"));
        vulkan_from_gl_spirv(&mut module).unwrap();
        specialize(&mut module, &[(3, 1)]).unwrap();
        let m = parse(&module);
        assert!(m
            .insts
            .range(m.section_range(Section::Annotation))
            .any(|i| i.operands().get(2) == Some(&(BuiltIn::VertexIndex as u32))));
        assert!(m
            .insts
            .range(m.section_range(Section::Global))
            .any(|i| i.op() == Some(Op::SpecConstantTrue)));
        assert!(specialize(&mut module, &[(9, 1)]).is_err());
        let loose = "%float = OpTypeFloat 32\n%pu = OpTypePointer UniformConstant %float\n\
                     %u = OpVariable %pu UniformConstant\n";
        let mut module = assembled(&format!("{head}{loose}{tail}"));
        assert!(matches!(
            vulkan_from_gl_spirv(&mut module),
            Err(SceneError::Skip(_))
        ));
    }
}

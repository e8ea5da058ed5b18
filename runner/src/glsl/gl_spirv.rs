//! ARB_gl_spirv: a GL SPIR-V module (`SPIRV ONLY` scenes, assembled by `spirv-as`) made a
//! Vulkan one, and specialized as `glSpecializeShader` does.

use rspirv::dr::{self, Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

use super::spv::{id, Types};
use crate::scene::SceneError;

/// What a GL SPIR-V module (ARB_gl_spirv) needs to be a Vulkan one, as glslang makes it
/// from the same GLSL: a fragment shader's `OriginUpperLeft` (GL's lower-left origin is
/// the layer's to give, as for GLSL), `VertexIndex` and `InstanceIndex` for GL's
/// `VertexId` and `InstanceId` (the runner draws from base instance 0). Default-block
/// uniforms (non-opaque `UniformConstant` variables) have no Vulkan equivalent here: SKIP.
pub(super) fn vulkan_from_gl_spirv(module: &mut dr::Module) -> Result<(), SceneError> {
    for inst in &mut module.annotations {
        for op in &mut inst.operands {
            match op {
                Operand::BuiltIn(b @ spirv::BuiltIn::VertexId) => *b = spirv::BuiltIn::VertexIndex,
                Operand::BuiltIn(b @ spirv::BuiltIn::InstanceId) => {
                    *b = spirv::BuiltIn::InstanceIndex
                }
                _ => {}
            }
        }
    }
    for inst in &mut module.execution_modes {
        if inst.operands.get(1)
            == Some(&Operand::ExecutionMode(
                spirv::ExecutionMode::OriginLowerLeft,
            ))
        {
            inst.operands[1] = Operand::ExecutionMode(spirv::ExecutionMode::OriginUpperLeft);
        }
    }
    let types = Types::new(module);
    let loose = module.types_global_values.iter().any(|i| {
        i.class.opcode == Op::Variable
            && i.operands.first() == Some(&Operand::StorageClass(StorageClass::UniformConstant))
            && i.result_type
                .and_then(|p| types.pointee(p))
                .and_then(|t| types.def(t))
                .is_some_and(|t| {
                    !matches!(
                        t.class.opcode,
                        Op::TypeSampledImage | Op::TypeImage | Op::TypeSampler
                    )
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
pub(super) fn specialize(module: &mut dr::Module, values: &[(u32, u32)]) -> Result<(), String> {
    let types = Types::new(module);
    for &(spec_id, value) in values {
        let target = module.annotations.iter().find_map(|i| {
            (i.class.opcode == Op::Decorate
                && i.operands.get(1) == Some(&Operand::Decoration(Decoration::SpecId))
                && i.operands.get(2) == Some(&Operand::LiteralBit32(spec_id)))
            .then(|| i.operands.first().and_then(id))
            .flatten()
        });
        let constant = module
            .types_global_values
            .iter_mut()
            .find(|i| target.is_some() && i.result_id == target)
            .ok_or_else(|| format!("no specialization constant with SpecId {spec_id}"))?;
        match constant.class.opcode {
            Op::SpecConstant
                if types
                    .def(constant.result_type.unwrap_or(0))
                    .is_some_and(|t| t.operands.first() == Some(&Operand::LiteralBit32(32))) =>
            {
                constant.operands = vec![Operand::LiteralBit32(value)];
            }
            Op::SpecConstantTrue | Op::SpecConstantFalse => {
                *constant = Instruction::new(
                    if value != 0 {
                        Op::SpecConstantTrue
                    } else {
                        Op::SpecConstantFalse
                    },
                    constant.result_type,
                    constant.result_id,
                    Vec::new(),
                );
            }
            _ => {
                return Err(format!(
                "SpecId {spec_id}: only 32-bit and boolean specialization constants are supported"
            ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gl_spirv_becomes_vulkan_spirv() {
        let assembled = |text: &str| {
            let shader = crate::scene::Shader {
                stage: crate::scene::ShaderStage::Vertex,
                source: text.to_string(),
                first_line: 1,
            };
            let words = crate::glsl::glslang::Compiler::for_tests()
                .assemble(&shader)
                .unwrap();
            dr::load_words(words).unwrap()
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
        assert!(module
            .annotations
            .iter()
            .any(|i| i.operands.get(2) == Some(&Operand::BuiltIn(spirv::BuiltIn::VertexIndex))));
        assert!(module
            .types_global_values
            .iter()
            .any(|i| i.class.opcode == Op::SpecConstantTrue));
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

use glsem_spirv::module::{Module, Section};
use spirv::Op;

use crate::glsl::Compiler;
use crate::scene::{self, ShaderStage};

#[test]
fn spirv_only_stages_run_from_their_assembly_specialized() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\nSPIRV ONLY\n[vertex shader passthrough]\n\
         [fragment shader specializations]\nfloat 6 0.75\n[fragment shader spirv]\n\
         OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
         OpEntryPoint Fragment %main \"main\" %color\nOpExecutionMode %main OriginLowerLeft\n\
         OpDecorate %color Location 0\nOpDecorate %green SpecId 6\n\
         %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
         %v4 = OpTypeVector %float 4\n%ptr = OpTypePointer Output %v4\n\
         %color = OpVariable %ptr Output\n%green = OpSpecConstant %float 0.25\n\
         %one = OpConstant %float 1\n%main = OpFunction %void None %fn\n%l = OpLabel\n\
         %c = OpCompositeConstruct %v4 %one %green %one %one\nOpStore %color %c\n\
         OpReturn\nOpFunctionEnd\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let m = Module::parse(&program.stage(ShaderStage::Fragment).unwrap().words).unwrap();
    assert!(m
        .insts
        .range(m.section_range(Section::ExecutionMode))
        .all(|i| i.operand(1) == spirv::ExecutionMode::OriginUpperLeft as u32));
    let green = m
        .insts
        .range(m.section_range(Section::Global))
        .find(|i| i.op() == Some(Op::SpecConstant))
        .unwrap();
    // Result type, result, value.
    assert_eq!(green.operands()[2..], [0.75f32.to_bits()]);
}

#[test]
fn gl_spirv_blocks_are_told_apart_by_binding() {
    // Two nameless blocks, each a column-major mat3x2 of stride 32 (GLSL cannot say it).
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\nSPIRV ONLY\n[vertex shader passthrough]\n\
         [fragment shader spirv]\n\
         OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
         OpEntryPoint Fragment %main \"main\" %color\nOpExecutionMode %main OriginLowerLeft\n\
         OpDecorate %color Location 0\nOpMemberDecorate %B 0 Offset 0\n\
         OpMemberDecorate %B 0 ColMajor\nOpMemberDecorate %B 0 MatrixStride 32\n\
         OpDecorate %B Block\nOpDecorate %b5 DescriptorSet 0\nOpDecorate %b5 Binding 5\n\
         OpDecorate %b6 DescriptorSet 0\nOpDecorate %b6 Binding 6\n\
         %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
         %v2 = OpTypeVector %float 2\n%v4 = OpTypeVector %float 4\n%m32 = OpTypeMatrix %v2 3\n\
         %B = OpTypeStruct %m32\n%pB = OpTypePointer Uniform %B\n\
         %b5 = OpVariable %pB Uniform\n%b6 = OpVariable %pB Uniform\n\
         %po = OpTypePointer Output %v4\n%color = OpVariable %po Output\n\
         %one = OpConstant %float 1\n%c = OpConstantComposite %v4 %one %one %one %one\n\
         %main = OpFunction %void None %fn\n%l = OpLabel\nOpStore %color %c\nOpReturn\n\
         OpFunctionEnd\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    let bindings: Vec<(u32, u32)> = fs
        .uniform_blocks
        .iter()
        .map(|b| (b.gl_binding, b.binding))
        .collect();
    assert_eq!(bindings.len(), 2);
    assert_ne!(bindings[0].1, bindings[1].1, "one descriptor each");
    let b6 = program.block(false, "", Some(6)).unwrap();
    assert_eq!(b6.data_size, 80, "32 · 2 + 8, rounded up to 16");
    assert_eq!(program.active_uniforms(), 2, "nameless members count apart");
}

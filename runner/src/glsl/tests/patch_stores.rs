use glsem_spirv::module::{Inst, Module, Section};
use spirv::Op;

use crate::glsl::Compiler;
use crate::scene::{self, ShaderStage};

/// A TCS store to a patch output's component chosen at run time becomes a switch of
/// stores to constant components.
#[test]
fn dynamic_patch_component_stores_become_a_switch() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n\
         [tessellation control shader]\n#version 150\n\
         #extension GL_ARB_tessellation_shader : require\nlayout(vertices = 4) out;\n\
         patch out ivec4 v;\nvoid main() { v[gl_InvocationID] = 1; \
         gl_TessLevelOuter[0] = 1.0; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let m = Module::parse(&program.stage(ShaderStage::TessControl).unwrap().words).unwrap();
    let code: Vec<Inst> = m.insts.range(m.section_range(Section::Function)).collect();
    let switch = code.iter().find(|i| i.op() == Some(Op::Switch)).unwrap();
    // Selector, default and four (literal, label) pairs.
    assert_eq!(switch.operands().len(), 10);
    let stored: Vec<u32> = code
        .iter()
        .filter(|i| i.op() == Some(Op::Store))
        .filter_map(|s| {
            let p = s.operand(0);
            let chain = code.iter().find(|c| c.result_id() == Some(p))?;
            chain.operands().last().and_then(|&c| m.constant_u32(c))
        })
        .collect();
    // (then gl_TessLevelOuter[0])
    assert_eq!(stored, vec![0, 1, 2, 3, 0]);
}

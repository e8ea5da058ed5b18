use glsem_spirv::module::{Module, Section};
use spirv::Op;

use super::support::{location_of, variable_type};
use crate::glsl::description::Scalar;
use crate::glsl::spv::shape;
use crate::glsl::Compiler;
use crate::scene::{self, ShaderStage};

#[test]
fn unlocated_inputs_take_locations_no_explicit_input_holds() {
    // GL assigns `col` and `m` around `pos`'s explicit location 0 (and `m`'s four
    // columns around `n` at 5); glslang alone numbers `col` 0 as well.
    let scene = scene::parse(
        "[require]\nGLSL >= 3.30\n[vertex shader]\n#version 330\nin vec4 col;\n\
         layout(location = 0) in vec4 pos;\nin mat4 m;\nlayout(location = 5) in vec4 n;\n\
         out vec4 c;\nvoid main() { gl_Position = pos; c = col + m[3] + n; }\n\
         [fragment shader]\n#version 330\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let words = &program.stage(ShaderStage::Vertex).unwrap().words;
    let at = |name: &str| location_of(words, name).unwrap();
    assert_eq!((at("pos"), at("n")), (0, 5));
    let mut taken: Vec<u32> = vec![0, 5, at("col")];
    taken.extend((0..4).map(|column| at("m") + column));
    taken.sort_unstable();
    taken.dedup();
    assert_eq!(taken.len(), 7, "overlapping locations: {taken:?}");
}

#[test]
fn inputs_after_a_dvec4_move_up_one_vulkan_location() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader]\nlayout(location = 0) in dvec4 d;\n\
         layout(location = 1) in vec4 piglit_vertex;\nlayout(location = 2) in float f[2];\n\
         out vec4 c;\nvoid main() { gl_Position = piglit_vertex; c = vec4(d) + f[1]; }\n\
         [fragment shader]\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let words = &program.stage(ShaderStage::Vertex).unwrap().words;
    let input = |n: &str| {
        let i = program
            .vertex_inputs()
            .iter()
            .find(|i| i.name == n)
            .unwrap();
        (i.location, i.vk_location, i.elements, i.slots)
    };
    assert_eq!(input("d"), (0, 0, 1, 2));
    assert_eq!(input("piglit_vertex"), (1, 2, 1, 1));
    assert_eq!(input("f"), (2, 3, 2, 1));
    assert_eq!(location_of(words, "piglit_vertex"), Some(2));
    // `d` stays a dvec4 (fed R64G64B64A64_SFLOAT; glsem reads it where the device cannot).
    let m = Module::parse(words).unwrap();
    let ty = variable_type(&m, "d");
    assert_eq!(shape(&m, ty), Some((Scalar::Double, 1, 4)));
    assert!(!m
        .insts
        .range(m.section_range(Section::Function))
        .any(|i| i.op() == Some(Op::Bitcast)));
}

#[test]
fn matrix_inputs_take_a_gl_location_per_column_and_wide_columns_two_vulkan_ones() {
    // GL: `dm` takes 0 and 1, `m` 2 to 7 (3 columns × 2 elements), `piglit_vertex` 8.
    // Vulkan: each dvec3 column of `dm` takes two locations (0-3), so the rest move up 2.
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader]\nlayout(location = 0) in dmat2x3 dm;\n\
         layout(location = 2) in mat3x2 m[2];\nlayout(location = 8) in vec4 piglit_vertex;\n\
         out vec4 c;\nvoid main() { gl_Position = piglit_vertex;\n\
         c = vec4(vec3(dm[1]), 1.0) + vec4(m[1][2], 0.0, 0.0); }\n\
         [fragment shader]\nin vec4 c;\nout vec4 o;\nvoid main() { o = c; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let input = |n: &str| {
        program
            .vertex_inputs()
            .iter()
            .find(|i| i.name == n)
            .unwrap()
            .clone()
    };
    let shape = |i: &crate::glsl::VertexInput| {
        (
            i.location,
            i.vk_location,
            i.elements,
            i.columns,
            i.components,
            i.slots,
        )
    };
    let (dm, m, p) = (input("dm"), input("m"), input("piglit_vertex"));
    assert_eq!(shape(&dm), (0, 0, 1, 2, 3, 4));
    assert_eq!(shape(&m), (2, 4, 2, 3, 2, 3));
    assert_eq!(shape(&p), (8, 10, 1, 1, 4, 1));
    assert_eq!((dm.gl_locations(), m.gl_locations()), (2, 6));
    // GL's location of a column → Vulkan's.
    assert_eq!(dm.vk_location_of(1), Some(2));
    assert_eq!(m.vk_location_of(7), Some(9));
    assert_eq!(m.vk_location_of(8), None);
}

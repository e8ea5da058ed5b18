//! Tests of what the compiler and its passes make of whole programs, through
//! `Compiler::build`: they sit above the passes, which they drive through `mod.rs`.

mod component_arrays;
mod gl_spirv;
mod link;
mod patch_stores;
mod per_vertex;
mod resources;
mod sampler_arrays;
mod support;
mod vertex_inputs;

use crate::glsl::Compiler;
use crate::scene::{self, SceneError, ShaderStage};

#[test]
fn introspection_counts_as_gl_does() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader]\n#version 450\nin vec4 piglit_vertex;\n\
         struct S { float f; vec4 v[2]; };\n\
         layout(std140, binding = 2) uniform U { S s[2]; mat2 m; } u;\n\
         layout(std430, binding = 3) buffer B { vec2 a; S t[3]; float rest[]; } b;\n\
         void main() { gl_Position = piglit_vertex + u.s[1].v[1] + u.m[0].xyxy + b.t[2].v[0] + b.rest[1]; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    // u.s[0].f, u.s[0].v, u.s[1].f, u.s[1].v, u.m
    assert_eq!(program.active_uniforms(), 5);
    let u = program.block(false, "U", None).unwrap();
    assert_eq!(u, program.block(false, "", Some(2)).unwrap());
    assert_eq!(u.active_variables, 5);
    // s: 2 × 48 bytes; m: two vec2 columns at a stride of 16.
    assert_eq!(u.data_size, 96 + 32);
    let b = program.block(true, "B", None).unwrap();
    // a, t[0].f, t[0].v (a top-level array enumerates its first element), rest
    assert_eq!(b.active_variables, 4);
    // std430: a at 0, t (3 × 48) at 16, rest at 160 counted with one element.
    assert_eq!(b.data_size, 176);
    assert!(program.block(true, "B", Some(4)).is_none());
}

/// glGetActiveUniformsiv's answers for block members (std140: GL 4.6 §7.6.2.2) and a
/// uniform outside a block (offset and strides -1).
#[test]
fn active_uniforms_have_gls_types_and_std140_layout() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader]\n#version 150\nin vec4 piglit_vertex;\n\
         uniform float loose;\n\
         uniform U { float f; layout(row_major) mat4x2 m; vec3 a[3]; ivec2 i; } u;\n\
         void main() { gl_Position = piglit_vertex * loose + u.f + u.m[0].xyxy + u.a[2].xyzz + vec4(u.i.xyxy); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let (f, in_block) = program.active_uniform("U.f").unwrap();
    assert!(in_block);
    assert_eq!((f.gl_type_name().as_str(), f.offset), ("GL_FLOAT", 0));
    // A row-major mat4x2: two rows of 4 floats, each a vec4 (std140), at 16.
    let (m, _) = program.active_uniform("U.m").unwrap();
    assert_eq!(m.gl_type_name(), "GL_FLOAT_MAT4x2");
    assert_eq!((m.offset, m.matrix_stride, m.row_major), (16, 16, true));
    // vec3[3] at 48, each element a vec4's stride; named by its first element too.
    let (a, _) = program.active_uniform("U.a[0]").unwrap();
    assert_eq!(a.gl_type_name(), "GL_FLOAT_VEC3");
    assert_eq!((a.offset, a.array), (48, Some((3, 16))));
    let (i, _) = program.active_uniform("U.i").unwrap();
    assert_eq!((i.gl_type_name().as_str(), i.offset), ("GL_INT_VEC2", 96));
    let (_, in_block) = program.active_uniform("loose").unwrap();
    assert!(!in_block);
    assert!(program.active_uniform("U.missing").is_none());
}

#[test]
fn glsl_errors_carry_glslangs_message() {
    let scene = scene::parse("[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n[fragment shader]\nvoid main() { undeclared = 1.0; }\n").unwrap();
    let err = Compiler::for_tests().build(&scene).unwrap_err();
    assert!(
        matches!(&err, SceneError::Fail(m) if m.contains("fragment") && m.contains("undeclared")),
        "{err:?}"
    );
}

#[test]
fn old_glsl_skips() {
    // Unless `compat::lower` first translates it (as the player does).
    let scene = scene::parse(
        "[require]\nGLSL >= 1.10\n[vertex shader]\n#version 110\nvoid main() { gl_Position = vec4(0.0); }\n",
    )
    .unwrap();
    assert!(matches!(
        Compiler::for_tests().build(&scene),
        Err(SceneError::Skip(_))
    ));
}

#[test]
fn xfb_varyings_are_counted_as_gl_counts_them() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader]\n#version 450\nin vec4 piglit_vertex;\n\
         struct S { float f; vec4 v; float f2[2]; };\n\
         layout(xfb_buffer = 0, xfb_offset = 0) out block { float a; vec4 b; } x[2];\n\
         layout(location = 9, xfb_buffer = 1, xfb_offset = 0) out float aoa[2][3];\n\
         layout(location = 20, xfb_buffer = 2, xfb_offset = 0) out S s;\n\
         layout(location = 30) out vec4 not_captured;\n\
         void main() { gl_Position = piglit_vertex; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    // x: 2 blocks × 2 members; aoa: 2 arrays of float; s: 3 members.
    assert_eq!(
        program.stage(ShaderStage::Vertex).unwrap().xfb_varyings,
        4 + 2 + 3
    );
}

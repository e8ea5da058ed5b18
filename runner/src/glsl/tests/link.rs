use glsem_spirv::module::{Module, Section};
use spirv::{Op, StorageClass};

use super::support::location_of;
use crate::glsl::glslang::MAX_DRAW_BUFFERS;
use crate::glsl::{is_link_error, Compiler};
use crate::scene::{self, SceneError, ShaderStage};

/// GL matches varyings by name: declaring them in different orders in the VS and FS
/// must still connect `a` to `a` and `b` to `b`; a dvec4 takes two Locations.
#[test]
fn varyings_match_by_name_across_stages() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.00\n[vertex shader]\nin vec4 piglit_vertex;\nout dvec4 a;\nout float b;\n\
         void main() { gl_Position = piglit_vertex; a = dvec4(1); b = 2.0; }\n\
         [fragment shader]\nflat in float b;\nflat in dvec4 a;\nout vec4 c;\nvoid main() { c = vec4(a.x) + b; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let vs = &program.stage(ShaderStage::Vertex).unwrap().words;
    let fs = &program.stage(ShaderStage::Fragment).unwrap().words;
    let (va, vb) = (location_of(vs, "a").unwrap(), location_of(vs, "b").unwrap());
    assert_eq!(location_of(fs, "a"), Some(va));
    assert_eq!(location_of(fs, "b"), Some(vb));
    // a (dvec4) occupies two Locations, so b may not sit in either.
    assert!(vb < va || vb >= va + 2, "a at {va}, b at {vb}");
}

/// Per-vertex arrayed inputs of a TES: the array dimension is not Locations, so
/// VS `out vec4 v` and TES `in vec4 v[]` get the same single Location.
#[test]
fn arrayed_inputs_and_explicit_locations() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.10\n[vertex shader]\nin vec4 piglit_vertex;\nout vec4 w;\nlayout(location = 0) out vec4 e;\nout vec4 v;\n\
         void main() { gl_Position = piglit_vertex; v = w = e = vec4(1); }\n\
         [tessellation control shader]\nlayout(vertices = 3) out;\nin vec4 v[];\nin vec4 w[];\nlayout(location = 0) in vec4 e[];\nout vec4 tv[];\n\
         void main() { tv[gl_InvocationID] = v[gl_InvocationID] + w[gl_InvocationID] + e[gl_InvocationID]; gl_TessLevelOuter[0] = 1.0; }\n\
         [tessellation evaluation shader]\nlayout(triangles) in;\nin vec4 tv[];\nvoid main() { gl_Position = tv[0]; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let vs = &program.stage(ShaderStage::Vertex).unwrap().words;
    let tcs = &program.stage(ShaderStage::TessControl).unwrap().words;
    let tes = &program.stage(ShaderStage::TessEval).unwrap().words;
    assert_eq!(location_of(vs, "e"), Some(0));
    assert_eq!(location_of(tcs, "e"), Some(0));
    for name in ["v", "w"] {
        let loc = location_of(vs, name).unwrap();
        assert_ne!(loc, 0, "{name} collides with the explicit location 0");
        assert_eq!(location_of(tcs, name), Some(loc));
    }
    assert_ne!(location_of(vs, "v"), location_of(vs, "w"));
    assert_eq!(location_of(tcs, "tv"), location_of(tes, "tv"));
}

#[test]
fn separate_programs_place_each_side_in_name_order() {
    // GL (Mesa) gives a separable program's unlocated varyings Locations in name
    // order, per side: the fragment shader's only input `b` reads the vertex shader's
    // `a` (its first name), as GL's shader_runner shows.
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\nSSO ENABLED\n[vertex shader]\n#version 150\nin vec4 piglit_vertex;\n\
         out vec4 zz;\nout vec4 b;\nout vec4 a;\n\
         void main() { gl_Position = piglit_vertex; a = b = zz = vec4(1); }\n\
         [fragment shader]\n#version 150\nin vec4 b;\nout vec4 c;\nvoid main() { c = b; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let vs = &program.stage(ShaderStage::Vertex).unwrap().words;
    let fs = &program.stage(ShaderStage::Fragment).unwrap().words;
    assert_eq!(
        ["a", "b", "zz"].map(|n| location_of(vs, n)),
        [Some(0), Some(1), Some(2)]
    );
    assert_eq!(location_of(fs, "b"), Some(0));
}

#[test]
fn explicit_locations_match_by_location_not_name() {
    // GL matches explicitly located variables by location: the fragment shader's `b`
    // at location 0 reads the vertex shader's `a` there.
    let scene = scene::parse(
        "[require]\nGLSL >= 4.10\n[vertex shader]\nin vec4 piglit_vertex;\n\
         layout(location = 0) out vec4 a;\nlayout(location = 2) out vec4 b;\n\
         void main() { gl_Position = piglit_vertex; a = b = vec4(1); }\n\
         [fragment shader]\nlayout(location = 2) in vec4 a;\nlayout(location = 0) in vec4 b;\n\
         out vec4 c;\nvoid main() { c = a + b; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = &program.stage(ShaderStage::Fragment).unwrap().words;
    assert_eq!(location_of(fs, "a"), Some(2));
    assert_eq!(location_of(fs, "b"), Some(0));
}

#[test]
fn frag_data_gets_location_zero_and_eight_elements() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.40\n[vertex shader passthrough]\n[fragment shader]\nvoid main() { gl_FragData[1] = vec4(1); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = &program.stage(ShaderStage::Fragment).unwrap().words;
    assert_eq!(location_of(fs, "gl_FragData"), Some(0));
    let m = Module::parse(fs).unwrap();
    let var = m
        .ids_named("gl_FragData")
        .find(|&id| m.variable(id).is_some());
    let (_, len) = m.array_length(m.variable(var.unwrap()).unwrap().1).unwrap();
    assert_eq!(len, MAX_DRAW_BUFFERS);
}

#[test]
fn varyings_of_one_name_and_other_types_do_not_link() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader]\nin vec4 v;\nout vec4 p;\nout float a[3];\n\
         void main() { gl_Position = v; p = v; a[0] = 1.0; }\n\
         [geometry shader]\nlayout(triangles) in;\nlayout(points, max_vertices = 1) out;\n\
         in vec4 p[];\nin float a[3];\nvoid main() {}\n",
    )
    .unwrap();
    let e = Compiler::for_tests().build(&scene).unwrap_err();
    let SceneError::Fail(m) = e else { panic!() };
    assert!(is_link_error(&m), "{m}");
    assert!(m.contains("`a` is a float[3]"), "{m}");
}

/// Two compilation units writing `gl_FragColor` write one output, as in GL.
#[test]
fn units_share_one_frag_color() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n[fragment shader]\n\
         void f();\nvoid main() { gl_FragColor = vec4(0.0); f(); }\n\
         [fragment shader]\nvoid f() { gl_FragColor.b = 1.0; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let m = Module::parse(&program.stage(ShaderStage::Fragment).unwrap().words).unwrap();
    let outputs = m
        .insts
        .range(m.section_range(Section::Global))
        .filter(|i| i.op() == Some(Op::Variable) && i.operand(2) == StorageClass::Output as u32)
        .count();
    assert_eq!(outputs, 1);
    // The one output is the interface.
    assert_eq!(m.entry_points[0].interface.len(), 1);
}

/// Builds a vertex and a fragment shader: `Err` with GL's link error where they disagree.
fn link_vs_fs(version: &str, vs: &str, fs: &str) -> Result<(), String> {
    let text = format!(
        "[require]\nGLSL >= {version}\n[vertex shader]\n#version 150\n{vs}\n\
         [fragment shader]\n#version 150\nout vec4 c;\n{fs}\n"
    );
    let scene = scene::parse(&text).unwrap();
    match Compiler::for_tests().build(&scene) {
        Ok(_) => Ok(()),
        Err(SceneError::Fail(m)) if is_link_error(&m) => Err(m),
        Err(e) => panic!("{e:?}"),
    }
}

/// GLSL 4.60 §4.3.5: a uniform declared in two stages has one type; §4.3.9: a uniform
/// block declared in two stages has the same members, names, layout and instance array
/// size; an output block and the next stage's input block match member by member.
#[test]
fn stages_that_declare_a_uniform_or_block_differently_do_not_link() {
    let main = "void main() { gl_Position = vec4(0.0); }";
    let fs_main = "void main() { c = vec4(0.0); }";
    let vs = |decl: &str| format!("{decl}\n{main}");
    let fs = |decl: &str| format!("{decl}\n{fs_main}");
    let mismatched = [
        ("uniform vec4 a;", "uniform vec3 a;"),
        ("uniform B { vec4 a; } b;", "uniform B { vec4 x; } b;"),
        (
            "uniform B { vec4 a; vec4 b; } i;",
            "uniform B { vec4 b; vec4 a; } i;",
        ),
        (
            "uniform B { layout(column_major) mat4 m; } i;",
            "uniform B { layout(row_major) mat4 m; } i;",
        ),
        ("uniform B { vec4 x; } b[3];", "uniform B { vec4 x; } b[2];"),
        ("out B { vec4 a; } o;", "in B { vec4 b; } o;"),
        ("out B { vec4 a; } o[2];", "in B { vec4 a; } o;"),
    ];
    for (v, f) in mismatched {
        let e = link_vs_fs("1.50", &vs(v), &fs(f)).expect_err(&format!("{v} / {f}"));
        assert!(e.starts_with("link error: "), "{e}");
    }
    // What GL links: the same declarations, and the instance named differently.
    let matched = [
        ("uniform vec4 a;", "uniform vec4 a;"),
        (
            "uniform B { vec4 a; mat4 m; } one;",
            "uniform B { vec4 a; mat4 m; } two;",
        ),
        ("out B { vec4 a; } o;", "in B { vec4 a; } i;"),
        ("uniform vec4 a;", "uniform vec3 b;"),
    ];
    for (v, f) in matched {
        assert_eq!(link_vs_fs("1.50", &vs(v), &fs(f)), Ok(()), "{v} / {f}");
    }
}

use glsem_spirv::module::Module;

use super::support::variable_type;
use crate::glsl::{Compiler, Scalar};
use crate::scene::{self, ShaderStage};

#[test]
fn arrays_of_arrays_of_blocks_become_one_array() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader passthrough]\n[fragment shader]\n\
         layout(binding = 1) uniform B { vec4 c; } arr[2][3];\nuniform int i;\nout vec4 o;\n\
         void main() { o = arr[1][2].c + arr[i][1].c; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    let b = fs
        .uniform_blocks
        .iter()
        .find(|b| b.name.as_deref() == Some("B[1][2]"))
        .unwrap();
    assert_eq!((b.gl_binding, b.element), (6, 5));
    assert_eq!(
        program.active_uniform_blocks(),
        6,
        "each element is a GL block"
    );
    let m = Module::parse(&fs.words).unwrap();
    let (elem, len) = m.array_length(variable_type(&m, "arr")).unwrap();
    assert_eq!(len, 6);
    assert!(m.array_length(elem).is_none());
}

#[test]
fn arrays_of_samplers_are_one_descriptor_array_with_a_location_per_element() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader passthrough]\n[fragment shader]\n#version 450\n\
         layout(location = 0) out vec4 color;\n\
         layout(location = 2, binding = 3) uniform sampler2D tex[2];\n\
         void main() { color = texture(tex[0], vec2(0)) + texture(tex[1], vec2(0)); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    assert_eq!((fs.samplers[0].unit, fs.samplers[0].count), (3, 2));
    assert_eq!(program.uniform_at(3, None), Some(("tex".into(), Some(1))));
    assert_eq!(program.active_uniforms(), 1);
}

#[test]
fn arrays_of_arrays_of_images_are_one_storage_image_array() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[compute shader]\n#version 450\n\
         layout(local_size_x = 1) in;\n\
         layout(rgba8) uniform image2D img[2][3];\n\
         uniform sampler2D tex;\n\
         void main() { imageStore(img[1][2], ivec2(0), texture(tex, vec2(0))); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let cs = program.stage(ShaderStage::Compute).unwrap();
    let img = cs.samplers.iter().find(|s| s.storage_image).unwrap();
    assert_eq!((img.count, img.elements[5].as_str()), (6, "img[1][2]"));
    assert!(cs
        .samplers
        .iter()
        .any(|s| s.name == "tex" && !s.storage_image));
}

#[test]
fn uniform_locations_are_assigned_as_gl_does() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.50\n[vertex shader passthrough]\n[fragment shader]\n#version 450\n\
         layout(location = 0) out vec4 color;\n\
         struct S { float a; vec2 b[2]; };\n\
         layout(location = 10) uniform vec4 u[2][2]; // not layout(location = 99)\n\
         layout(location = 3) uniform S s[2];\n\
         layout(location = 1, binding = 4) uniform sampler2D t;\n\
         layout(location = 20) uniform struct { int i; mat2 m; } inl;\n\
         void main() { color = u[1][1] + s[1].b[1].xyxy + texture(t, vec2(0)) + inl.m[0].xyxy * inl.i; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let at = |l| program.uniform_at(l, None);
    assert_eq!(at(1), Some(("t".into(), None)));
    assert_eq!(at(3), Some(("s[0].a".into(), None)));
    assert_eq!(at(5), Some(("s[0].b".into(), Some(1))));
    assert_eq!(at(6), Some(("s[1].a".into(), None)));
    assert_eq!(at(12), Some(("u[1]".into(), Some(0))));
    assert_eq!(at(21), Some(("inl.m".into(), None)));
    assert_eq!(at(2), None);
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    assert_eq!(fs.samplers[0].unit, 4, "binding = N is the initial unit");
}

#[test]
fn default_uniform_blocks_get_one_binding_per_stage() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader]\nin vec4 piglit_vertex;\nuniform float scale;\nuniform mat3 m;\n\
         void main() { gl_Position = piglit_vertex * scale + vec4(m[1], 0); }\n\
         [fragment shader]\nuniform vec4 color;\nuniform float arr[3];\nout vec4 c;\nvoid main() { c = color + arr[2]; }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let vs = program.stage(ShaderStage::Vertex).unwrap().uniform_blocks[0].clone();
    assert!(program
        .stage(ShaderStage::Vertex)
        .unwrap()
        .samplers
        .is_empty());
    let fs = program.stage(ShaderStage::Fragment).unwrap().uniform_blocks[0].clone();
    assert_ne!(vs.binding, fs.binding);
    let m = vs.members.iter().find(|m| m.name == "m").unwrap();
    assert_eq!((m.columns, m.rows, m.matrix_stride), (3, 3, 16));
    let arr = fs.members.iter().find(|m| m.name == "arr").unwrap();
    assert_eq!(
        arr.array,
        Some((3, 16)),
        "std140 rounds array strides up to 16"
    );
    assert_eq!(program.vertex_inputs()[0].name, "piglit_vertex");
}

#[test]
fn bool_uniforms_the_shader_never_reads_are_bools_too() {
    // glslang keeps an unread `bool` in the default block as a `uint` but leaves it out of
    // its active-only reflection; GL still sets it with glUniform*i.
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader passthrough]\n[fragment shader]\n\
         #version 150\nuniform bool used;\nuniform bvec2 unused;\nout vec4 o;\n\
         void main() { o = vec4(used); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    let scalar = |name: &str| {
        (fs.uniform_blocks.iter())
            .flat_map(|b| &b.members)
            .find(|m| m.name == name)
            .map(|m| m.scalar)
    };
    assert_eq!(scalar("used"), Some(Scalar::Bool));
    assert_eq!(scalar("unused"), Some(Scalar::Bool));
}

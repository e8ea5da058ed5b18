use glsem_spirv::module::Module;
use spirv::Decoration;

use crate::glsl::spv::assert_valid_vulkan_spirv;
use crate::glsl::Compiler;
use crate::scene::{self, ShaderStage};

/// A per-vertex array of arrays with a Component becomes one per-vertex array per
/// inner element, each at its element's Location.
#[test]
fn component_arrays_of_arrays_are_split() {
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader]\n#version 150\n\
         #extension GL_ARB_enhanced_layouts: require\n#extension GL_ARB_separate_shader_objects: require\nin vec4 piglit_vertex;\n\
         layout(location = 0) out vec3 a[2];\nlayout(location = 0, component = 3) out float b[2];\n\
         void main() { gl_Position = piglit_vertex; a[0] = a[1] = vec3(1.0); b[0] = 2.0; b[1] = 3.0; }\n\
         [geometry shader]\n#version 150\n#extension GL_ARB_enhanced_layouts: require\n#extension GL_ARB_separate_shader_objects: require\n\
         #extension GL_ARB_arrays_of_arrays: require\nlayout(triangles) in;\n\
         layout(points, max_vertices = 1) out;\nlayout(location = 0) in vec3 a[3][2];\n\
         layout(location = 0, component = 3) in float b[3][2];\nout float c;\n\
         void main() { float r[2] = b[1]; c = r[0] + b[2][1] + a[0][1].x; EmitVertex(); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let gs = &program.stage(ShaderStage::Geometry).unwrap().words;
    assert_valid_vulkan_spirv(gs, "component_arrays");
    let m = Module::parse(gs).unwrap();
    for (j, name) in ["b[0]", "b[1]"].iter().enumerate() {
        let var = m.ids_named(name).next().unwrap();
        assert_eq!(
            m.decoration(var, Decoration::Location),
            Some(&[j as u32][..])
        );
        assert_eq!(m.decoration(var, Decoration::Component), Some(&[3][..]));
    }
    assert!(m.ids_named("b").next().is_none());
}

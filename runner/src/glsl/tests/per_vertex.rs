use std::collections::HashSet;

use spirv::StorageClass;

use crate::glsl::per_vertex::per_vertex_block;
use crate::glsl::spv::assert_valid_vulkan_spirv;
use crate::glsl::Compiler;
use crate::scene::{self, ShaderStage};

/// The members of a stage's `gl_PerVertex` output or input block, by `BuiltIn`.
fn per_vertex_builtins(words: &[u32], storage: StorageClass) -> Vec<u32> {
    per_vertex_block(words, storage).unwrap().builtins
}

/// Unused `gl_PerVertex` members are dropped, the rest kept alike on both sides of a
/// stage boundary, and the SPIR-V still indexes the right members.
#[test]
fn per_vertex_blocks_keep_the_members_in_use() {
    use spirv::BuiltIn::{ClipDistance, PointSize, Position};
    let scene = scene::parse(
        "[require]\nGLSL >= 1.50\n[vertex shader]\nin vec4 piglit_vertex;\n\
         void main() { gl_Position = piglit_vertex; }\n\
         [geometry shader]\nlayout(triangles) in;\nlayout(points, max_vertices = 1) out;\n\
         void main() { gl_PointSize = gl_in[2].gl_PointSize; gl_Position = vec4(1); EmitVertex(); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let vs = &program.stage(ShaderStage::Vertex).unwrap().words;
    let gs = &program.stage(ShaderStage::Geometry).unwrap().words;
    assert_valid_vulkan_spirv(vs, "per_vertex_vs");
    assert_valid_vulkan_spirv(gs, "per_vertex_gs");
    let both = vec![Position as u32, PointSize as u32];
    assert_eq!(per_vertex_builtins(vs, StorageClass::Output), both);
    assert_eq!(per_vertex_builtins(gs, StorageClass::Input), both);
    assert_eq!(per_vertex_builtins(gs, StorageClass::Output), both);
    let block = per_vertex_block(gs, StorageClass::Input).unwrap();
    assert_eq!(block.used, Some(HashSet::from([1])));
    assert!(!per_vertex_builtins(vs, StorageClass::Output).contains(&(ClipDistance as u32)));
}

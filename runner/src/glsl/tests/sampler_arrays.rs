use crate::glsl::spv::assert_valid_vulkan_spirv;
use crate::glsl::Compiler;
use crate::scene::{self, ShaderStage};

#[test]
fn samplers_in_nested_structures_become_one_array_per_member() {
    let scene = scene::parse(
        "[require]\nGLSL >= 4.30\n[vertex shader passthrough]\n[fragment shader]\n#version 430\n\
         struct Inner { sampler2D tex; sampler2D tex2; };\n\
         struct S { Inner si[2][2]; sampler2D t[2]; };\n\
         uniform S s[2];\nuniform int n;\nout vec4 color;\n\
         void main() { color = texture(s[n].si[1][n].tex2, vec2(0)) + texture(s[1].t[n], vec2(0)); }\n",
    )
    .unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    let tex2 = fs.samplers.iter().find(|s| s.name == "s.si.tex2").unwrap();
    assert_eq!(tex2.count, 8);
    // Row-major over s[2], si[2][2]: element 5 is s[1].si[0][1].
    assert_eq!(tex2.elements[5], "s[1].si[0][1].tex2");
    let t = fs.samplers.iter().find(|s| s.name == "s.t").unwrap();
    assert_eq!(
        t.elements,
        ["s[0].t[0]", "s[0].t[1]", "s[1].t[0]", "s[1].t[1]"]
    );
    // GL's locations go in declaration order: s[0]'s eight `si` samplers, its two `t`,
    // then s[1]'s.
    assert_eq!(tex2.element_locations[5], 13);
    assert_eq!(t.element_locations, [8, 9, 18, 19]);
    // One active uniform per sampler, per innermost array of samplers, and `n`.
    assert_eq!(program.active_uniforms(), 19);
    assert_valid_vulkan_spirv(&fs.words, "sampler_arrays");
}

#[test]
fn samplers_beside_other_members_leave_the_default_block() {
    let scene_text =
        "[require]\nGLSL >= 4.30\n[vertex shader passthrough]\n[fragment shader]\n#version 430\n\
         struct S { float a; sampler2D tex; vec2 b; };\n\
         uniform S s[2][2];\nuniform int n;\nout vec4 color;\n\
         void main() { color = texture(s[n][1].tex, s[1][n].b) + vec4(s[n][0].a); }\n";
    let scene = scene::parse(scene_text).unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    let fs = program.stage(ShaderStage::Fragment).unwrap();
    let tex = fs.samplers.iter().find(|s| s.name == "s.tex").unwrap();
    assert_eq!(tex.count, 4);
    assert_eq!(tex.elements[2], "s[1][0].tex");
    // GL's locations go member by member through each element: s[1][0].tex is the
    // eighth (a, tex, b of s[0][0] and of s[0][1], then s[1][0].a).
    assert_eq!(tex.element_locations[2], 7);
    let block = fs.uniform_blocks.iter().find(|b| b.name.is_none()).unwrap();
    let names: Vec<&str> = block.members.iter().map(|m| m.name.as_str()).collect();
    assert!(names.contains(&"s[1][0].b"), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".tex")), "{names:?}");
    let located = "layout(location = 2) uniform S s[2][2];";
    let scene = scene::parse(&scene_text.replace("uniform S s[2][2];", located)).unwrap();
    let program = Compiler::for_tests().build(&scene).unwrap();
    // Location 2 + 1 is s[0][0].tex; 2 + 2 is s[0][0].b, the sampler's location skipped.
    assert_eq!(
        program.uniform_at(3, None),
        Some(("s[0][0].tex".into(), None))
    );
    assert_eq!(
        program.uniform_at(4, None),
        Some(("s[0][0].b".into(), None))
    );
    assert_valid_vulkan_spirv(&fs.words, "struct_samplers");
}

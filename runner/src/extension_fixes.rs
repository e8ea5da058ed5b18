//! Source fixes for GLSL that GL compilers accept through an extension the source does
//! not enable by the name glslang wants; like [`crate::fixes`], each only gets glslang
//! to accept the same program, and never changes what a test checks.
//!
//! 1. `layout(location = N)` on an in/out block below GLSL 4.40: GL_ARB_separate_shader_objects
//!    (core in GLSL 4.10) allows it (its spec, "Input Layout Qualifiers"); glslang wants
//!    `GL_ARB_enhanced_layouts` and gets it enabled.
//! 2. `layout(binding = N)` on a shader storage block below GLSL 4.20:
//!    GL_ARB_shader_storage_buffer_object allows it; glslang wants
//!    `GL_ARB_shading_language_420pack` and gets it enabled.
//! 3. `#extension GL_ARB_fragment_layer_viewport` in a fragment shader below GLSL 4.30
//!    ([`fragment_layer_viewport`]): glslang rejects the name and declares `gl_Layer` and
//!    `gl_ViewportIndex` in a fragment shader from 4.30 on only (where they are core). The
//!    directive is blanked out and, below 4.30, the built-ins read placeholder inputs, which
//!    [`crate::glsl`] makes the built-ins again in the SPIR-V.
//! 4. GL_ARB_shader_atomic_counter_ops's functions (`atomicCounterAddARB` & co), which
//!    glslang does not declare: `-R` makes atomic counters `uint` members of a storage
//!    block, on which the same operations are GLSL 4.30's `atomicAdd` & co (each also
//!    returns the counter's value before the operation).
//! 5. `#extension GL_AMD_vertex_shader_layer` / `GL_AMD_vertex_shader_viewport_index` in
//!    a vertex shader ([`vertex_layer_viewport`]): glslang knows neither name, and its
//!    GL_ARB_shader_viewport_layer_array declares the outputs from GLSL 4.10 on only. The
//!    directive is blanked out and the built-ins write placeholder outputs, which
//!    [`crate::glsl`] makes `Layer` / `ViewportIndex` outputs (SPV_EXT_shader_viewport_index_layer).
//! 6. `#extension GL_ARB_shader_precision`: glslang does not know the name. The extension
//!    declares nothing, it only tightens precision to what Vulkan's SPIR-V environment
//!    guarantees anyway: the directive is blanked out.
//! 7. `#extension GL_AMD_shader_trinary_minmax`: glslang turns its `min3`, `max3` and `mid3`
//!    into SPV_AMD_shader_trinary_minmax, which Vulkan drivers other than AMD's lack. The
//!    directive is blanked out and the functions are defined in GLSL, component-wise as
//!    the extension's are, for its float, int and uint types ([`trinary_minmax`]).
//! 8. `#extension GL_MESA_shader_integer_functions`: glslang does not know the name. The
//!    extension gives GLSL 1.30 shaders GLSL 4.00's integer functions (`uaddCarry`,
//!    `bitfieldInsert`, `findMSB`, `fma`, `frexp`, …) and its implicit conversions from
//!    `int` to `uint`: the directive is blanked out and the shader raised to `#version 400`.

use spirv::BuiltIn;

use crate::fixes::{
    after_extensions, after_version, declared_version, set_version, without_comments,
    word_positions,
};

/// Fix 3's placeholder inputs: (placeholder name, the built-in it stands for, GL's name).
pub const FRAGMENT_BUILTIN_PLACEHOLDERS: [(&str, BuiltIn, &str); 2] = [
    ("glsem_Layer", BuiltIn::Layer, "gl_Layer"),
    (
        "glsem_ViewportIndex",
        BuiltIn::ViewportIndex,
        "gl_ViewportIndex",
    ),
];

/// Fix 5's placeholder outputs: (placeholder name, the built-in it stands for, GL's name,
/// the extension that lets a vertex shader write it).
pub const VERTEX_BUILTIN_PLACEHOLDERS: [(&str, BuiltIn, &str, &str); 2] = [
    (
        "glsem_out_Layer",
        BuiltIn::Layer,
        "gl_Layer",
        "GL_AMD_vertex_shader_layer",
    ),
    (
        "glsem_out_ViewportIndex",
        BuiltIn::ViewportIndex,
        "gl_ViewportIndex",
        "GL_AMD_vertex_shader_viewport_index",
    ),
];

/// Fix 4: GL_ARB_shader_atomic_counter_ops's functions as storage-block atomics.
const ATOMIC_COUNTER_OPS: [&str; 9] = [
    "#define atomicCounterAddARB(c, v) atomicAdd(c, v)",
    "#define atomicCounterSubtractARB(c, v) atomicAdd(c, 0u - (v))",
    "#define atomicCounterMinARB(c, v) atomicMin(c, v)",
    "#define atomicCounterMaxARB(c, v) atomicMax(c, v)",
    "#define atomicCounterAndARB(c, v) atomicAnd(c, v)",
    "#define atomicCounterOrARB(c, v) atomicOr(c, v)",
    "#define atomicCounterXorARB(c, v) atomicXor(c, v)",
    "#define atomicCounterExchangeARB(c, v) atomicExchange(c, v)",
    "#define atomicCounterCompSwapARB(c, compare, v) atomicCompSwap(c, compare, v)",
];

/// The fixed source and the names of the fixes applied.
pub fn apply(source: &str) -> (String, Vec<&'static str>) {
    let mut applied = Vec::new();
    let mut text = source.to_string();
    let version = declared_version(&text).unwrap_or(110);
    let blocks = layout_blocks(source);
    let located_in_out_block = blocks.iter().any(|b| b.has("location") && b.is_in_out());
    let bound_storage_block = blocks
        .iter()
        .any(|b| b.has("binding") && b.storage.contains(&"buffer"));
    if version < 440
        && located_in_out_block
        && (version >= 410 || enables(&text, "GL_ARB_separate_shader_objects"))
        && !enables(&text, "GL_ARB_enhanced_layouts")
    {
        text = after_version(&text, "#extension GL_ARB_enhanced_layouts : enable");
        applied.push("GL_ARB_enhanced_layouts for a located in/out block");
    }
    if version < 420 && bound_storage_block && !enables(&text, "GL_ARB_shading_language_420pack") {
        text = after_version(&text, "#extension GL_ARB_shading_language_420pack : enable");
        applied.push("GL_ARB_shading_language_420pack for a storage block's binding");
    }
    if enables(&text, "GL_ARB_shader_precision") {
        text = without_directive(&text, "GL_ARB_shader_precision");
        applied.push("GL_ARB_shader_precision's directive blanked");
    }
    if enables(&text, "GL_MESA_shader_integer_functions") {
        text = without_directive(&text, "GL_MESA_shader_integer_functions");
        if version < 400 {
            text = set_version(&text, 400);
        }
        applied.push("GL_MESA_shader_integer_functions as GLSL 4.00");
    }
    if enables(&text, "GL_AMD_shader_trinary_minmax") {
        text = without_directive(&text, "GL_AMD_shader_trinary_minmax");
        text = after_extensions(&text, &trinary_minmax(version));
        applied.push("GL_AMD_shader_trinary_minmax's functions in GLSL");
    }
    if enables(&text, "GL_ARB_shader_atomic_counter_ops") {
        text = after_extensions(&text, &ATOMIC_COUNTER_OPS.map(String::from));
        applied.push("GL_ARB_shader_atomic_counter_ops as storage-block atomics");
    }
    (text, applied)
}

/// Fix 7: `min3`, `max3` and `mid3` of GL_AMD_shader_trinary_minmax for each of its types
/// GLSL `version` has (`uint` from 1.30 on), under names of the runner's that the
/// extension's become (glslang declares the extension's own in some stages whatever the
/// directive); `mid3` is the median, the larger of the smaller of the first two and the
/// smaller of the larger of them and the third.
fn trinary_minmax(version: u32) -> Vec<String> {
    let mut types = vec![
        "float", "vec2", "vec3", "vec4", "int", "ivec2", "ivec3", "ivec4",
    ];
    if version >= 130 {
        types.extend(["uint", "uvec2", "uvec3", "uvec4"]);
    }
    let bodies = [
        ("min3", "min(a, min(b, c))"),
        ("max3", "max(a, max(b, c))"),
        ("mid3", "max(min(a, b), min(max(a, b), c))"),
    ];
    let definitions = types.into_iter().flat_map(|t| {
        bodies.map(|(name, body)| {
            format!("{t} glsem_{name}({t} a, {t} b, {t} c) {{ return {body}; }}")
        })
    });
    bodies
        .map(|(name, _)| format!("#define {name} glsem_{name}"))
        .into_iter()
        .chain(definitions)
        .collect()
}

/// Fix 3 over the compilation units of a fragment stage; returns whether it changed one.
pub fn fragment_layer_viewport(units: &mut [String]) -> bool {
    let mut changed = false;
    for unit in units.iter_mut() {
        const NAME: &str = "GL_ARB_fragment_layer_viewport";
        if !enables(unit, NAME) {
            continue;
        }
        let code = without_comments(unit);
        let text = without_directive(unit, NAME);
        changed = true;
        // From 4.30 on (also where `crate::fixes` raised the version) the built-ins are
        // glslang's own: only the directive goes.
        if declared_version(unit).unwrap_or(110) >= 430 {
            *unit = text;
            continue;
        }
        let mut declarations = Vec::new();
        for (placeholder, _, gl_name) in FRAGMENT_BUILTIN_PLACEHOLDERS {
            if word_positions(&code, gl_name).next().is_some() {
                declarations.push(format!("flat in int {placeholder};"));
                declarations.push(format!("#define {gl_name} {placeholder}"));
            }
        }
        *unit = if declarations.is_empty() {
            text
        } else {
            after_extensions(&text, &declarations)
        };
    }
    changed
}

/// Fix 5 over the compilation units of a vertex stage; returns whether it changed one.
pub fn vertex_layer_viewport(units: &mut [String]) -> bool {
    let mut changed = false;
    for unit in units.iter_mut() {
        let mut declarations = Vec::new();
        for (placeholder, _, gl_name, extension) in VERTEX_BUILTIN_PLACEHOLDERS {
            if enables(unit, extension) {
                *unit = without_directive(unit, extension);
                declarations.push(format!("out int {placeholder};"));
                declarations.push(format!("#define {gl_name} {placeholder}"));
            }
        }
        if !declarations.is_empty() {
            *unit = after_extensions(unit, &declarations);
            changed = true;
        }
    }
    changed
}

/// `text` with its `#extension NAME` lines blanked (line numbers stay).
fn without_directive(text: &str, name: &str) -> String {
    let blanked: Vec<&str> = text
        .lines()
        .map(|l| if is_extension(l, name) { "" } else { l })
        .collect();
    blanked.join("\n") + "\n"
}

fn is_extension(line: &str, name: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("#extension")
        && words
            .next()
            .is_some_and(|w| w.trim_end_matches(':') == name)
}

/// An `#extension NAME` directive.
fn enables(text: &str, name: &str) -> bool {
    text.lines().any(|l| is_extension(l, name))
}

/// A block declaration with a `layout(…)`: its qualifier words and the words between
/// the layout and the block's `{`.
struct LayoutBlock<'a> {
    qualifiers: Vec<&'a str>,
    storage: Vec<&'a str>,
}

impl LayoutBlock<'_> {
    fn has(&self, qualifier: &str) -> bool {
        self.qualifiers.contains(&qualifier)
    }

    fn is_in_out(&self) -> bool {
        self.storage.iter().any(|w| matches!(*w, "in" | "out"))
    }
}

/// The `layout(…) … NAME {` declarations of `text` (comments are not expected between).
fn layout_blocks(text: &str) -> Vec<LayoutBlock<'_>> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("layout") {
        let after = &rest[at + "layout".len()..];
        rest = after;
        let Some(open) = after.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(close) = open.find(')') else { break };
        let tail = &open[close + 1..];
        let Some(end) = tail.find([';', '{']) else {
            break;
        };
        if tail.as_bytes()[end] == b'{' {
            found.push(LayoutBlock {
                qualifiers: split_words(&open[..close]),
                storage: split_words(&tail[..end]),
            });
        }
    }
    found
}

fn split_words(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn located_blocks_with_separate_shader_objects_enable_enhanced_layouts() {
        let unit = "#version 150\n#extension GL_ARB_separate_shader_objects: require\n\
                    layout(location = 0) out block {\n vec4 a;\n} name;\nvoid main() {}\n";
        let (fixed, applied) = apply(unit);
        assert_eq!(applied.len(), 1);
        assert!(fixed.contains("#extension GL_ARB_enhanced_layouts : enable"));
        // GLSL 4.10 has separate shader objects in core.
        assert_eq!(
            apply("#version 420\nlayout(location = 1) in B { vec4 a; } b;\n")
                .1
                .len(),
            1
        );
        // A located variable (not a block), or GLSL 4.40, needs nothing.
        let plain = "#version 150\n#extension GL_ARB_separate_shader_objects: require\n\
                     layout(location = 0) out vec4 a;\nvoid main() {}\n";
        assert!(apply(plain).1.is_empty());
        assert!(apply(&unit.replace("150", "440")).1.is_empty());
    }

    #[test]
    fn atomic_counter_ops_compile_as_storage_block_atomics() {
        let unit = "#version 430\n#extension GL_ARB_shader_atomic_counter_ops : require\n\
                    layout(binding = 0) uniform atomic_uint c[2];\nout vec4 color;\n\
                    void main() { color = vec4(atomicCounterOrARB(c[1], 4u) + \
                    atomicCounterSubtractARB(c[0], 1u) + atomicCounterCompSwapARB(c[0], 1u, 2u)); }\n";
        let (fixed, applied) = apply(unit);
        assert_eq!(applied.len(), 1);
        // glslang as the runner runs it (`-R`: atomic counters in a storage block).
        let dir = std::env::temp_dir();
        let src = dir.join(format!("atomic_counter_ops_{}.frag", std::process::id()));
        let spv = src.with_extension("spv");
        std::fs::write(&src, fixed).unwrap();
        let out = std::process::Command::new("glslangValidator")
            .args(["-V", "-R", "--aml", "--amb"])
            .arg(&src)
            .arg("-o")
            .arg(&spv)
            .output()
            .unwrap();
        let _ = (std::fs::remove_file(&src), std::fs::remove_file(&spv));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }

    #[test]
    fn mesa_integer_functions_are_glsl_4_00s() {
        let unit = "#version 130\n#extension GL_MESA_shader_integer_functions : enable\n\
                    uniform uint a;\nvoid main() { uint c; uint s = uaddCarry(a, a, c); }\n";
        let (fixed, applied) = apply(unit);
        assert_eq!(applied, ["GL_MESA_shader_integer_functions as GLSL 4.00"]);
        assert!(fixed.starts_with("#version 400\n"));
        assert!(!fixed.contains("GL_MESA_shader_integer_functions"));
        assert_eq!(fixed.lines().count(), unit.lines().count());
    }

    #[test]
    fn trinary_minmax_functions_are_defined_in_glsl() {
        let unit = "#version 150\n#extension GL_AMD_shader_trinary_minmax : require\n\
                    uniform uvec2 a;\nvoid main() { uvec2 m = mid3(a, a, a); }\n";
        let (fixed, applied) = apply(unit);
        assert_eq!(
            applied,
            ["GL_AMD_shader_trinary_minmax's functions in GLSL"]
        );
        assert!(!fixed.contains("#extension GL_AMD_shader_trinary_minmax"));
        assert!(fixed.contains("#define mid3 glsem_mid3"));
        assert!(fixed.contains(
            "uvec2 glsem_mid3(uvec2 a, uvec2 b, uvec2 c) { return max(min(a, b), min(max(a, b), c)); }"
        ));
        // GLSL 1.20 has no uint.
        let old = "#version 120\n#extension GL_AMD_shader_trinary_minmax : require\n";
        let (fixed, _) = apply(old);
        assert!(fixed.contains("ivec4 glsem_max3(") && !fixed.contains("uint glsem_"));
    }

    #[test]
    fn shader_precision_directives_are_blanked_keeping_line_numbers() {
        let unit = "#extension GL_ARB_shader_precision : require\nuniform vec2 a;\n";
        let (fixed, applied) = apply(unit);
        assert_eq!(applied.len(), 1);
        assert_eq!(fixed, "\nuniform vec2 a;\n");
        assert!(apply("uniform vec2 a;\n").1.is_empty());
    }

    #[test]
    fn storage_block_bindings_enable_420pack_below_4_20() {
        let unit = "#version 330\nlayout(std430, binding = 0) buffer ssbo { vec4 c; };\n";
        let (fixed, applied) = apply(unit);
        assert_eq!(applied.len(), 1);
        assert!(fixed.contains("#extension GL_ARB_shading_language_420pack : enable"));
        assert!(apply(&unit.replace("330", "430")).1.is_empty());
        let uniform = "#version 330\nlayout(std140) uniform U { vec4 c; };\n";
        assert!(apply(uniform).1.is_empty());
    }
}

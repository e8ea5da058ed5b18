//! Source fixes glslang needs for GLSL that GL compilers accept. Each one is minimal and
//! never changes what a test checks: it only gets glslang to accept the same program.
//!
//! 1. Line continuations (`\` before a newline) are joined. GLSL 4.20 made them part of
//!    the language and GL drivers accept them at every version; glslang only with 4.20+.
//! 2. `#extension GL_ARB_arrays_of_arrays` is dropped and `#version` raised to 430, where
//!    arrays of arrays are core: glslang does not know the extension's name.
//! 3. A redeclared built-in block (`out gl_PerVertex { … };`) below GLSL 4.10 gets
//!    `#extension GL_ARB_separate_shader_objects : enable`, which is what allows the
//!    redeclaration in glslang (GL compilers accept it with GLSL 1.50).
//! 4. `#version 140` with `GL_ARB_enhanced_layouts` or `GL_ARB_gpu_shader_fp64` becomes
//!    `#version 150`: glslang rejects `layout(component = …)` and `double` in a shader
//!    without a profile (1.40 has none; 1.50 is the first with one).
//! 5. A shader below GLSL 4.30 with `#extension GL_ARB_shader_atomic_counters` becomes
//!    `#version 430`: glslang (`-R`) turns atomic counters into a storage block and their
//!    functions into `atomicAdd` & co, which it only declares from 4.30 on (and it only
//!    takes the counters' `layout(binding = N)` from 4.20 on).
//! 6. A shader below GLSL 4.30 with `#extension GL_ARB_compute_shader` becomes
//!    `#version 430`: glslang takes compute shaders from 4.20 on only, whatever the
//!    extensions.

/// The fixed source and the names of the fixes applied.
pub fn apply(source: &str) -> (String, Vec<&'static str>) {
    let mut applied = Vec::new();
    let mut text = source.to_string();
    if text.contains("\\\n") || text.contains("\\\r\n") {
        // Keep the line count: the joined lines' newlines move after the joined line.
        let mut out = String::with_capacity(text.len());
        let mut pending = 0;
        for line in text.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            if let Some(stripped) = body.strip_suffix('\\') {
                out.push_str(stripped);
                pending += 1;
            } else {
                out.push_str(line);
                for _ in 0..pending {
                    out.push('\n');
                }
                pending = 0;
            }
        }
        text = out;
        applied.push("line continuations joined");
    }
    let version = declared_version(&text);
    let has_extension = |text: &str, name: &str| {
        text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("#extension") && l.contains(name)
        })
    };
    if has_extension(&text, "GL_ARB_arrays_of_arrays") {
        text = text
            .lines()
            .map(|l| {
                let t = l.trim_start();
                if t.starts_with("#extension") && t.contains("GL_ARB_arrays_of_arrays") {
                    String::new()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        if version.is_some_and(|v| v < 430) {
            text = set_version(&text, 430);
        }
        applied.push("GL_ARB_arrays_of_arrays as GLSL 4.30");
    }
    let version = declared_version(&text);
    if version.is_some_and(|v| v < 410)
        && redeclares_builtin_block(&text)
        && !has_extension(&text, "GL_ARB_separate_shader_objects")
    {
        text = after_version(&text, "#extension GL_ARB_separate_shader_objects : enable");
        applied.push("GL_ARB_separate_shader_objects for a redeclared gl_PerVertex");
    }
    if version.is_some_and(|v| v < 430) && has_extension(&text, "GL_ARB_shader_atomic_counters") {
        text = set_version(&text, 430);
        applied.push("GL_ARB_shader_atomic_counters as GLSL 4.30");
    }
    let version = declared_version(&text);
    if version.is_some_and(|v| v < 430) && has_extension(&text, "GL_ARB_compute_shader") {
        text = set_version(&text, 430);
        applied.push("GL_ARB_compute_shader as GLSL 4.30");
    }
    if version == Some(140)
        && (has_extension(&text, "GL_ARB_enhanced_layouts")
            || has_extension(&text, "GL_ARB_gpu_shader_fp64"))
    {
        text = set_version(&text, 150);
        applied.push("#version 150 for a profile");
    }
    (text, applied)
}

/// The number of the `#version` line, if any.
pub fn declared_version(text: &str) -> Option<u32> {
    text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("#version")
            .and_then(|v| v.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    })
}

fn set_version(text: &str, number: u32) -> String {
    text.lines()
        .map(|l| {
            if l.trim_start().starts_with("#version") {
                let profile = l.split_whitespace().nth(2).unwrap_or("");
                format!("#version {number} {profile}")
                    .trim_end()
                    .to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Inserts `line` right after `#version` on the same source line count (the directive
/// shares the version's line through a `#line` reset).
fn after_version(text: &str, line: &str) -> String {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        out.push(l.to_string());
        if l.trim_start().starts_with("#version") {
            out.push(line.to_string());
            out.push(format!("#line {}", i + 2));
        }
    }
    out.join("\n") + "\n"
}

fn redeclares_builtin_block(text: &str) -> bool {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    ["out gl_PerVertex", "in gl_PerVertex"]
        .iter()
        .any(|p| flat.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_are_joined_and_lines_kept() {
        let (t, f) = apply("#version 150\n#define A(x) \\\n  (x)\nvoid main() {}\n");
        assert_eq!(t, "#version 150\n#define A(x)   (x)\n\nvoid main() {}\n");
        assert_eq!(f, vec!["line continuations joined"]);
    }

    #[test]
    fn arrays_of_arrays_become_glsl_430() {
        let (t, _) =
            apply("#version 150\n#extension GL_ARB_arrays_of_arrays: require\nfloat a[2][2];\n");
        assert!(t.starts_with("#version 430\n"), "{t}");
        assert!(!t.contains("GL_ARB_arrays_of_arrays"));
        assert!(t.contains("float a[2][2];"));
    }

    #[test]
    fn redeclared_per_vertex_enables_sso() {
        let (t, f) = apply("#version 150\nout gl_PerVertex {\n vec4 gl_Position;\n};\n");
        assert!(t.contains("#extension GL_ARB_separate_shader_objects : enable\n#line 2\n"));
        assert_eq!(f.len(), 1);
        let (t, f) = apply("#version 450\nout gl_PerVertex { vec4 gl_Position; };\n");
        assert!(f.is_empty());
        assert!(!t.contains("#extension"));
    }

    #[test]
    fn atomic_counters_become_glsl_430() {
        let (t, f) = apply(
            "#version 150\n#extension GL_ARB_shader_atomic_counters: require\n\
             layout(binding=0) uniform atomic_uint a;\n",
        );
        assert!(t.starts_with("#version 430\n#extension GL_ARB_shader_atomic_counters"));
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn compute_shaders_become_glsl_430() {
        let (t, f) = apply("#version 150\n#extension GL_ARB_compute_shader: require\n");
        assert!(t.starts_with("#version 430\n"));
        assert_eq!(f, vec!["GL_ARB_compute_shader as GLSL 4.30"]);
    }

    #[test]
    fn untouched_sources_stay_as_they_are() {
        let src = "#version 150\nvoid main() {}\n";
        assert_eq!(apply(src), (src.to_string(), vec![]));
    }
}

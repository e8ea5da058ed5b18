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
//! 7. A redeclared `gl_FragCoord` in a fragment stage ([`frag_coord`], over all its
//!    compilation units) becomes a macro: integer pixel centers for `pixel_center_integer`
//!    (which SPIR-V for Vulkan forbids), GL's upper-left origin from the framebuffer height
//!    (a specialization constant the runner sets) for `origin_upper_left` (the layer gives
//!    GL's lower-left `gl_FragCoord`, `window_origin`; SPIR-V keeps no trace of GL's
//!    redeclaration); the redeclarations are blanked out, after GL's link rule for them is
//!    checked (glslang's own rule rejects programs GL links).
//! 8. In a geometry or tessellation control stage of several compilation units, the input
//!    primitive (`layout(triangles) in;`) or output patch size (`layout(vertices = N)
//!    out;`) that one unit declares is declared in the others too ([`per_vertex_sizes`]):
//!    GL sizes the program's unsized per-vertex arrays with it, glslang each unit's alone.
//! 9. `gl_DepthRange`, a built-in uniform GL has and glslang for Vulkan does not declare,
//!    becomes a macro building GL's `gl_DepthRangeParameters` from specialization
//!    constants the runner sets to its viewport's depth range; the struct's name is a
//!    macro for the runner's struct.
//! 10. `gl_FragColor` in a shader that fix 2, 5 or 6 raised to GLSL 4.30: glslang declares
//!     it below 4.20 only, so it becomes a macro for an output at location 0 (the one
//!     colour attachment such scenes draw to; GL would write every draw buffer).
//! 11. A shader below GLSL 4.50 with `#extension GL_ARB_gpu_shader_int64` becomes
//!     `#version 450`: glslang takes the extension's types from 4.00 on only, and declares
//!     the built-in functions on them (`sign`, `min`, `packInt2x32`, …) from 4.50 on only.
//! 12. A shader below GLSL 4.00 with `#extension GL_ARB_derivative_control` becomes
//!     `#version 400`: glslang declares `dFdxFine`, `dFdyCoarse` & co from 4.00 on only.

use crate::scene::ShaderStage;

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
    let source_version = version;
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
    if version.is_some_and(|v| v < 450) && has_extension(&text, "GL_ARB_gpu_shader_int64") {
        text = set_version(&text, 450);
        applied.push("GL_ARB_gpu_shader_int64 as GLSL 4.50");
    }
    let version = declared_version(&text);
    if version.is_some_and(|v| v < 400) && has_extension(&text, "GL_ARB_derivative_control") {
        text = set_version(&text, 400);
        applied.push("GL_ARB_derivative_control as GLSL 4.00");
    }
    if version == Some(140)
        && (has_extension(&text, "GL_ARB_enhanced_layouts")
            || has_extension(&text, "GL_ARB_gpu_shader_fp64"))
    {
        text = set_version(&text, 150);
        applied.push("#version 150 for a profile");
    }
    let code = without_comments(&text);
    let raised = source_version.is_some_and(|v| v < 420)
        && declared_version(&text).is_some_and(|v| v >= 420);
    if raised && word_positions(&code, "gl_FragColor").next().is_some() {
        let lines = [
            "layout(location = 0) out vec4 glsem_FragColor;".into(),
            "#define gl_FragColor glsem_FragColor".into(),
        ];
        text = after_extensions(&text, &lines);
        applied.push("gl_FragColor as an output at GLSL 4.20 and later");
    }
    if ["gl_DepthRange", "gl_DepthRangeParameters"]
        .iter()
        .any(|name| word_positions(&code, name).next().is_some())
    {
        let [near, far, diff] = DEPTH_RANGE_SPEC_IDS;
        let lines = [
            "struct glsem_DepthRangeParameters { float near; float far; float diff; };".into(),
            format!("layout(constant_id = {near}) const float glsem_DepthNear = 0.0;"),
            format!("layout(constant_id = {far}) const float glsem_DepthFar = 1.0;"),
            format!("layout(constant_id = {diff}) const float glsem_DepthDiff = 1.0;"),
            "#define gl_DepthRange \
             glsem_DepthRangeParameters(glsem_DepthNear, glsem_DepthFar, glsem_DepthDiff)"
                .into(),
            "#define gl_DepthRangeParameters glsem_DepthRangeParameters".into(),
        ];
        text = after_extensions(&text, &lines);
        applied.push("gl_DepthRange from specialization constants");
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

pub fn set_version(text: &str, number: u32) -> String {
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

/// A `#line` directive after which the next line is line `next` of a GLSL `version`
/// source: before GLSL 3.30, `#line N` numbers the next line N + 1 (GLSL 1.50, 3.4);
/// from 3.30 on, N. glslang follows both rules, and `__LINE__` and error lines with them.
pub fn line_reset(version: u32, next: usize) -> String {
    if version < 330 {
        format!("#line {}", next.saturating_sub(1))
    } else {
        format!("#line {next}")
    }
}

/// Inserts `line` right after `#version` on the same source line count (the directive
/// shares the version's line through a `#line` reset).
pub fn after_version(text: &str, line: &str) -> String {
    let version = declared_version(text).unwrap_or(110);
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        out.push(l.to_string());
        if l.trim_start().starts_with("#version") {
            out.push(line.to_string());
            out.push(line_reset(version, i + 2));
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

/// The SpecId of the framebuffer height that fix 7 declares (glslang takes ids below 2047);
/// the runner specializes the fragment stage with the height of its render targets.
pub const FRAMEBUFFER_HEIGHT_SPEC_ID: u32 = 2046;
/// The SpecIds of GL's depth range (`near`, `far`, `diff`) that fix 9 declares; the runner
/// specializes every stage with its viewport's depth range.
pub const DEPTH_RANGE_SPEC_IDS: [u32; 3] = [2043, 2044, 2045];

/// A unit's `gl_FragCoord` redeclaration: its byte range and its qualifiers.
struct Redeclaration {
    range: std::ops::Range<usize>,
    origin_upper_left: bool,
    pixel_center_integer: bool,
}

/// Fix 7, over the compilation units of a fragment stage: GL's redeclared `gl_FragCoord`.
/// GL counts it from the lower left (the layer's `window_origin` gives that value) unless
/// redeclared `layout(origin_upper_left)`, at pixel centers `.5` unless
/// `layout(pixel_center_integer)`; SPIR-V for Vulkan has no integer centers, and the
/// redeclaration leaves no trace the layer could see. Each unit that reads `gl_FragCoord`
/// gets a macro computing the redeclared value from GL's default one (`y` from the
/// framebuffer height, a specialization constant) and the redeclarations are blanked out:
/// glslang would emit the integer centers Vulkan forbids, and its linker requires the
/// same redeclaration in every unit, even one that does not use `gl_FragCoord`.
/// GL's own link rule (GLSL 1.50 §4.3.8.1) is checked first: with a redeclaration in any
/// unit, every unit that uses `gl_FragCoord` redeclares it, and all alike; `Err` then
/// carries the link error.
pub fn frag_coord(units: &mut [String]) -> Result<Option<&'static str>, String> {
    let found: Vec<(Option<Redeclaration>, bool)> = units
        .iter()
        .map(|unit| {
            let code = without_comments(unit);
            let redeclaration = redeclaration(&code);
            let uses = word_positions(&code, "gl_FragCoord").any(|at| {
                !redeclaration
                    .as_ref()
                    .is_some_and(|r| r.range.contains(&at))
            });
            (redeclaration, uses)
        })
        .collect();
    if found.iter().all(|(r, _)| r.is_none()) {
        return Ok(None);
    }
    let layouts: Vec<(bool, bool)> = found
        .iter()
        .filter_map(|(r, _)| r.as_ref())
        .map(|r| (r.origin_upper_left, r.pixel_center_integer))
        .collect();
    if !layouts.is_empty() {
        if found.iter().any(|(r, uses)| *uses && r.is_none()) {
            return Err(
                "link error: gl_FragCoord is redeclared in one fragment shader and \
                        used without a redeclaration in another"
                    .into(),
            );
        }
        if layouts.iter().any(|l| *l != layouts[0]) {
            return Err(
                "link error: the fragment shaders redeclare gl_FragCoord with other qualifiers"
                    .into(),
            );
        }
    }
    let (upper_left, integer) = layouts.first().copied().unwrap_or_default();
    let center = if integer { " - 0.5" } else { "" };
    let y = if upper_left {
        format!("glsem_FramebufferHeight - gl_FragCoord.y{center}")
    } else {
        format!("gl_FragCoord.y{center}")
    };
    for (index, (unit, (redeclaration, uses))) in units.iter_mut().zip(found).enumerate() {
        if let Some(r) = redeclaration {
            // Keep the newlines, and so the line numbers.
            let blank: String = unit[r.range.clone()]
                .chars()
                .map(|c| if c == '\n' { c } else { ' ' })
                .collect();
            unit.replace_range(r.range, &blank);
        }
        if uses && (upper_left || integer) {
            // A function, not a macro naming itself: glslang expands a macro argument
            // twice, so `M(gl_FragCoord)` would flip y back. One name per unit: the units
            // link into one module.
            let function = format!("glsem_FragCoord{index}");
            let mut lines = vec![
                format!(
                    "vec4 {function}() {{ return vec4(gl_FragCoord.x{center}, {y}, \
                     gl_FragCoord.zw); }}"
                ),
                format!("#define gl_FragCoord {function}()"),
            ];
            if upper_left {
                lines.insert(
                    0,
                    format!(
                        "layout(constant_id = {FRAMEBUFFER_HEIGHT_SPEC_ID}) \
                         const float glsem_FramebufferHeight = 0.0;"
                    ),
                );
            }
            *unit = after_extensions(unit, &lines);
        }
    }
    Ok(Some("GL's redeclared gl_FragCoord"))
}

/// Fix 8, over the compilation units of a geometry or tessellation control stage: the unit
/// that declares the input primitive (`layout(triangles) in;`) or the output patch size
/// (`layout(vertices = 3) out;`) lends the declaration to the units without one. GL sizes
/// the program's unsized per-vertex arrays with it; glslang sizes them unit by unit, from
/// the unit's static use (then rejects the mismatch) or not at all.
pub fn per_vertex_sizes(stage: ShaderStage, units: &mut [String]) -> Option<&'static str> {
    let (storage, wanted): (&str, &[&str]) = match stage {
        ShaderStage::Geometry => (
            "in",
            &[
                "points",
                "lines",
                "lines_adjacency",
                "triangles",
                "triangles_adjacency",
            ],
        ),
        ShaderStage::TessControl => ("out", &["vertices"]),
        _ => return None,
    };
    let found: Vec<Option<String>> = units
        .iter()
        .map(|u| layout_statement(&without_comments(u), storage, wanted))
        .collect();
    let declaration = found.iter().flatten().next()?.clone();
    let mut applied = None;
    for (unit, own) in units.iter_mut().zip(&found) {
        if own.is_none() {
            *unit = after_extensions(unit, std::slice::from_ref(&declaration));
            applied = Some("the per-vertex array size in every unit");
        }
    }
    applied
}

/// The statement `layout(…) <storage>;` whose qualifiers name one of `wanted`.
fn layout_statement(code: &str, storage: &str, wanted: &[&str]) -> Option<String> {
    word_positions(code, "layout").find_map(|at| {
        let rest = code[at + "layout".len()..].trim_start().strip_prefix('(')?;
        let close = rest.find(')')?;
        let qualifiers = &rest[..close];
        let tail = rest[close + 1..].trim_start().strip_prefix(storage)?;
        tail.trim_start().starts_with(';').then_some(())?;
        wanted
            .iter()
            .any(|w| word_positions(qualifiers, w).next().is_some())
            .then(|| format!("layout({}) {storage};", qualifiers.trim()))
    })
}

/// `text` with its comments replaced by spaces (newlines kept), byte for byte.
pub fn without_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        let end = match &bytes[i..] {
            [b'/', b'/', ..] => text[i..].find('\n').map_or(bytes.len(), |n| i + n),
            [b'/', b'*', ..] => text[i + 2..].find("*/").map_or(bytes.len(), |n| i + n + 4),
            _ => {
                i += 1;
                continue;
            }
        };
        for b in &mut out[i..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end;
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced")
}

/// Byte offsets where `word` occurs as a whole identifier.
pub fn word_positions<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].bytes().next_back();
            let after = text[at + word.len()..].bytes().next();
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
}

/// The statement `[layout(…)] in vec4 gl_FragCoord;`, if the (comment-free) unit has one.
fn redeclaration(code: &str) -> Option<Redeclaration> {
    word_positions(code, "gl_FragCoord").find_map(|at| {
        let rest = code[at + "gl_FragCoord".len()..].trim_start();
        if !rest.starts_with(';') {
            return None;
        }
        let end = code.len() - rest.len() + 1;
        let before = code[..at].trim_end().strip_suffix("vec4")?.trim_end();
        let before = ["highp", "mediump", "lowp"]
            .iter()
            .find_map(|p| before.strip_suffix(p))
            .map_or(before, str::trim_end);
        let before = before.strip_suffix("in")?;
        if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        let mut start = before.len();
        let mut qualifiers = "";
        if let Some(layout) = before.trim_end().strip_suffix(')') {
            let open = layout.rfind('(')?;
            let keyword = layout[..open].trim_end().strip_suffix("layout")?;
            qualifiers = &layout[open..];
            start = keyword.len();
        }
        Some(Redeclaration {
            range: start..end,
            origin_upper_left: qualifiers.contains("origin_upper_left"),
            pixel_center_integer: qualifiers.contains("pixel_center_integer"),
        })
    })
}

/// Inserts `lines` after the `#version` and `#extension` directives (declarations may
/// not precede an `#extension`), outside any `#if` block (an `#extension` inside one is
/// passed with its `#endif`), resetting the line count with `#line`.
pub fn after_extensions(text: &str, lines: &[String]) -> String {
    let version = declared_version(text).unwrap_or(110);
    let all: Vec<&str> = text.lines().collect();
    let mut at = 0;
    let mut depth = 0usize;
    let mut nested_extension = false;
    for (i, l) in all.iter().enumerate() {
        let l = l.trim_start();
        let directive = l.strip_prefix('#').map(str::trim_start).unwrap_or("");
        if directive.starts_with("if") {
            depth += 1;
        } else if directive.starts_with("endif") {
            depth = depth.saturating_sub(1);
            if depth == 0 && nested_extension {
                at = i + 1;
                nested_extension = false;
            }
        } else if directive.starts_with("version") || directive.starts_with("extension") {
            if depth == 0 {
                at = i + 1;
            } else {
                nested_extension = true;
            }
        }
    }
    // The number of line `at`, after any `#line` before it.
    let number = all[..at].iter().fold(1, |n, l| {
        match l.trim_start().strip_prefix("#line") {
            Some(rest) => rest
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<usize>().ok())
                .map(|v| if version < 330 { v + 1 } else { v }),
            None => None,
        }
        .unwrap_or(n + 1)
    });
    let mut out: Vec<String> = all[..at].iter().map(|l| l.to_string()).collect();
    out.extend(lines.iter().cloned());
    out.push(line_reset(version, number));
    out.extend(all[at..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
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
        // Before GLSL 3.30, `#line 1` numbers the next line 2.
        assert!(t.contains("#extension GL_ARB_separate_shader_objects : enable\n#line 1\n"));
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
    fn int64_shaders_become_glsl_450() {
        let (t, f) = apply("#version 150\n#extension GL_ARB_derivative_control : require\n");
        assert_eq!(f, ["GL_ARB_derivative_control as GLSL 4.00"]);
        assert!(t.starts_with("#version 400\n"));
        let (t, f) = apply("#version 150\n#extension GL_ARB_gpu_shader_int64 : require\n");
        assert!(t.starts_with("#version 450\n"), "{t}");
        assert_eq!(f, ["GL_ARB_gpu_shader_int64 as GLSL 4.50"]);
        assert!(
            apply("#version 460\n#extension GL_ARB_gpu_shader_int64 : require\n")
                .1
                .is_empty()
        );
    }

    #[test]
    fn compute_shaders_become_glsl_430() {
        let (t, f) = apply("#version 150\n#extension GL_ARB_compute_shader: require\n");
        assert!(t.starts_with("#version 430\n"));
        assert_eq!(f, vec!["GL_ARB_compute_shader as GLSL 4.30"]);
    }

    fn frag_coord_of(units: &[&str]) -> Result<Vec<String>, String> {
        let mut units: Vec<String> = units.iter().map(|u| u.to_string()).collect();
        frag_coord(&mut units)?;
        Ok(units)
    }

    #[test]
    fn frag_coord_without_a_redeclaration_is_the_layers() {
        // GL's lower-left gl_FragCoord is the layer's (`window_origin`).
        let src = "#version 150\nout vec4 c;\nvoid main() { c = gl_FragCoord; }\n";
        assert_eq!(frag_coord_of(&[src]).unwrap(), vec![src.to_string()]);
        let src = "#version 150\nvoid main() {}\n";
        assert_eq!(frag_coord_of(&[src]).unwrap(), vec![src.to_string()]);
        // Counted from a `#line` reset.
        let t = frag_coord_of(&[
            "#version 140\nlayout(pixel_center_integer) in vec4 gl_FragCoord;\n\
             #line 1\nvoid main() { gl_FragColor = gl_FragCoord; }\n",
        ]);
        assert!(t.unwrap()[0].contains("()\n#line 1\n"));
    }

    #[test]
    fn frag_coord_redeclarations_become_the_macro() {
        let t = frag_coord_of(&[
            "#version 150\nlayout(origin_upper_left,\n pixel_center_integer) in vec4 gl_FragCoord;\n\
             void f();\nvoid main() { gl_FragColor = gl_FragCoord; f(); }\n",
            "#version 150\nvoid f() { gl_FragColor.b = 1.0; }\n",
            "#version 150\nlayout(origin_upper_left, pixel_center_integer) in vec4 gl_FragCoord;\n",
        ])
        .unwrap();
        let lines: Vec<&str> = t[0].lines().map(str::trim).collect();
        assert_eq!(
            lines[..7],
            [
                "#version 150",
                "layout(constant_id = 2046) const float glsem_FramebufferHeight = 0.0;",
                "vec4 glsem_FragCoord0() { return vec4(gl_FragCoord.x - 0.5, \
                 glsem_FramebufferHeight - gl_FragCoord.y - 0.5, gl_FragCoord.zw); }",
                "#define gl_FragCoord glsem_FragCoord0()",
                "#line 1",
                "",
                "",
            ]
        );
        assert_eq!(lines[7], "void f();");
        assert_eq!(t[1], "#version 150\nvoid f() { gl_FragColor.b = 1.0; }\n");
        assert_eq!(t[2].trim_end(), "#version 150");
    }

    #[test]
    fn frag_coord_link_rule_is_gl_one() {
        let redeclared = "layout(pixel_center_integer) in vec4 gl_FragCoord;\nvoid f() {}\n";
        let uses = "void main() { gl_FragColor = gl_FragCoord; }\n";
        // A comment does not use it.
        let mentions = "// gl_FragCoord\nvoid main() {}\n";
        assert!(frag_coord_of(&[redeclared, mentions]).is_ok());
        let e = frag_coord_of(&[redeclared, uses]).unwrap_err();
        assert!(e.starts_with("link error: "), "{e}");
        let other = "layout(origin_upper_left) in vec4 gl_FragCoord;\n";
        assert!(frag_coord_of(&[redeclared, other]).is_err());
        assert!(frag_coord_of(&["in vec4 gl_FragCoord;\n", uses]).is_err());
        let t = frag_coord_of(&["layout(origin_upper_left) in highp vec4 gl_FragCoord;\n"]);
        assert!(!t.unwrap()[0].contains("vec4"));
    }

    #[test]
    fn per_vertex_sizes_reach_every_unit() {
        let mut units = vec![
            "#version 150\nlayout(triangles_adjacency) in;\n\
             layout(triangle_strip, max_vertices = 4) out;\nvoid main() {}\n"
                .to_string(),
            "#version 150\n/* layout(points) in; */\nflat in int v[];\n".to_string(),
        ];
        assert!(per_vertex_sizes(ShaderStage::Geometry, &mut units).is_some());
        assert_eq!(
            units[1],
            "#version 150\nlayout(triangles_adjacency) in;\n#line 1\n\
             /* layout(points) in; */\nflat in int v[];\n"
        );
        let mut units = vec![
            "#version 150\n#extension GL_ARB_tessellation_shader: require\n\
             layout(vertices = 3) out;\n"
                .to_string(),
            "#version 150\n#extension GL_ARB_tessellation_shader: require\nout vec4 c[];\n"
                .to_string(),
        ];
        assert!(per_vertex_sizes(ShaderStage::TessControl, &mut units).is_some());
        assert!(units[1].contains("require\nlayout(vertices = 3) out;\n#line 2\nout vec4"));
        assert!(per_vertex_sizes(ShaderStage::Geometry, &mut units[..1]).is_none());
    }

    #[test]
    fn depth_range_comes_from_specialization_constants() {
        let (t, f) =
            apply("#version 140\nvoid main() { gl_FragColor = vec4(gl_DepthRange.far); }\n");
        assert_eq!(f, vec!["gl_DepthRange from specialization constants"]);
        assert!(t.contains("layout(constant_id = 2044) const float glsem_DepthFar = 1.0;\n"));
        assert!(t.contains("#define gl_DepthRange glsem_DepthRangeParameters("));
        assert!(t.ends_with("#line 1\nvoid main() { gl_FragColor = vec4(gl_DepthRange.far); }\n"));
        // The built-in struct's name too (GLSL 1.40, 7.5).
        let (t, _) = apply("#version 140\nvoid main() { gl_DepthRangeParameters d; }\n");
        assert!(t.contains("#define gl_DepthRangeParameters glsem_DepthRangeParameters\n"));
    }

    #[test]
    fn line_resets_follow_the_version_rule() {
        // GLSL 1.50, 3.4: the line after `#line N` is N + 1; GLSL 3.30 on: N.
        assert_eq!(line_reset(150, 7), "#line 6");
        assert_eq!(line_reset(330, 7), "#line 7");
        assert_eq!(line_reset(140, 1), "#line 0");
    }

    #[test]
    fn insertions_stay_outside_an_if_block() {
        let t = frag_coord_of(
            &["#version 450\n#ifdef GL_ES\n#extension GL_OES_x : enable\n\
                                 #endif\nlayout(pixel_center_integer) in vec4 gl_FragCoord;\n\
                                 void main() { gl_FragColor = gl_FragCoord; }\n"],
        )
        .unwrap();
        let lines: Vec<&str> = t[0].lines().collect();
        assert_eq!(lines[3], "#endif");
        assert!(lines[4].starts_with("vec4 glsem_FragCoord0()"), "{}", t[0]);
        assert_eq!(lines[6], "#line 5");
    }

    #[test]
    fn frag_coord_survives_a_function_like_macro() {
        // GL's y reaches `Y(gl_FragCoord)`: the name becomes a call, which glslang does not
        // expand twice as it does a macro naming itself.
        let t = frag_coord_of(&["#version 450\n#define Y(v) (v.y)\nout vec4 c;\n\
                                 layout(origin_upper_left) in vec4 gl_FragCoord;\n\
                                 void main() { c = vec4(Y(gl_FragCoord)); }\n"])
        .unwrap();
        assert!(t[0].contains("#define gl_FragCoord glsem_FragCoord0()\n"));
        assert!(!t[0].contains("#define gl_FragCoord vec4"));
    }

    #[test]
    fn untouched_sources_stay_as_they_are() {
        let src = "#version 150\nvoid main() {}\n";
        assert_eq!(apply(src), (src.to_string(), vec![]));
    }
}

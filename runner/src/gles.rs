//! GL ES scenes (`GL ES >= 2.0 / 3.0 / 3.1`, GLSL ES 1.00, 3.00 and 3.10) as a GL ES
//! context on the same device runs them.
//!
//! glslang compiles GLSL ES for Vulkan from 3.10 on only. [`lower`] gives every GLSL ES
//! unit `#version 310 es` (a unit without `#version` is in the `GLSL ES >=` version, as
//! piglit prepends it, else in 1.00), in words that keep its meaning:
//!
//! - GLSL ES 3.00 compiles unchanged; the names it leaves free that 3.10 made keywords
//!   (`buffer`, `shared`) are renamed.
//! - GLSL ES 1.00: `attribute` / `varying` become `in` / `out`; `gl_FragColor` and
//!   `gl_FragData` outputs at location 0, `mediump` as GLSL ES 1.00 declares them;
//!   `texture2D` & co the overloaded `texture` & co; names 1.00 leaves free that 3.x made
//!   keywords are renamed. `invariant gl_FragCoord;` and `invariant gl_PointCoord;`
//!   (inputs, which GLSL ES 3.x cannot qualify) are checked by GLSL ES 1.00's link rule
//!   (only where the vertex shader declares `gl_Position` / `gl_PointSize` invariant),
//!   then dropped.
//! - Precision qualifiers and `precision` statements stay as written: the default
//!   precisions are the same in the three versions (a fragment shader has no default
//!   `float` precision), so what compiles in 1.00 or 3.00 compiles in 3.10.
//!
//! GL ES's link rule that a uniform both stages declare has one precision (GLSL ES 3.00
//! 4.5.3; for GLSL ES 1.00, Mesa's, only where both stages use it) is checked here too:
//! glslang compiles each stage alone.

use std::collections::BTreeMap;

use crate::compat::{old_texture_function, strip_comments, tokenize, Kind, Token};
use crate::scene::{Command, Scene, SceneError, Shader, ShaderStage};

/// The GLSL ES version every unit is compiled as: the first glslang takes for Vulkan.
const TARGET_VERSION: u32 = 310;

/// Rewrites a GL ES scene's shaders into GLSL ES 3.10 (see the module documentation) and
/// checks GL ES's link rules that glslang does not; leaves another scene as it is.
pub fn lower(scene: &mut Scene) -> Result<(), SceneError> {
    if !scene.require.es {
        return Ok(());
    }
    let default_version = scene.require.glsl_es_version.unwrap_or(100);
    let mut units = Vec::new();
    for shader in &mut scene.shaders {
        let unit = translate(shader, default_version)?;
        shader.source = unit.source.clone();
        units.push(unit);
    }
    // The names the commands and vertex data give GL, where the units' are renamed.
    if let Some(version) = units.iter().map(|u| u.version).filter(|&v| v > 0).min() {
        for line in &mut scene.commands {
            if let Command::Uniform(uniform) = &mut line.command {
                uniform.name = renamed_gl_name(&uniform.name, version);
            }
        }
        for attribute in scene.vertex_data.iter_mut().flat_map(|d| &mut d.attributes) {
            attribute.name = renamed_gl_name(&attribute.name, version);
        }
    }
    check_invariance(&units)?;
    check_uniform_precisions(&units)
}

/// What translating one unit found, for the link rules.
struct Unit {
    stage: ShaderStage,
    /// The GLSL ES version it is written in (0: desktop GLSL, left as it is).
    version: u32,
    /// The built-ins it declares `invariant` (all outputs for `#pragma STDGL invariant(all)`).
    invariant: Vec<String>,
    /// Its uniforms outside blocks: name, precision (`None`: a type without one), used
    /// beyond its declaration.
    uniforms: Vec<(String, Option<String>, bool)>,
    source: String,
}

/// The `#version` directive's number and whether it says `es` (GLSL ES 1.00 does not).
fn declared_version(tokens: &[Token]) -> Option<(usize, u32, bool)> {
    tokens.iter().enumerate().find_map(|(i, t)| {
        let rest = t.text.trim().strip_prefix("#version")?;
        let mut words = rest.split_whitespace();
        let number = words.next()?.parse().ok()?;
        Some((i, number, words.next() == Some("es")))
    })
}

fn translate(shader: &Shader, default_version: u32) -> Result<Unit, SceneError> {
    let mut tokens = tokenize(&strip_comments(&shader.source));
    let declared = declared_version(&tokens);
    let version = match declared {
        Some((_, number, es)) if es || number == 100 => number,
        // Desktop GLSL, which a GL ES context does not compile: left to glslang to say so.
        Some(_) => {
            return Ok(Unit {
                stage: shader.stage,
                version: 0,
                invariant: Vec::new(),
                uniforms: Vec::new(),
                source: shader.source.clone(),
            })
        }
        None => default_version,
    };
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].kind != Kind::Space)
        .collect();
    if sig.iter().any(|&i| tokens[i].text == "atomic_uint") {
        return Err(SceneError::Skip(format!(
            "{:?} shader: glslang (12) turns GLSL ES atomic counters into storage-buffer \
             atomics with `int` operands, which GLSL ES does not convert (a compile error, \
             or SPIR-V that is not valid)",
            shader.stage
        )));
    }
    let invariant = invariant_built_ins(shader.stage, &tokens, &sig);
    let uniforms = uniform_precisions(shader.stage, &tokens, &sig);
    if version == 100 && shader.stage == ShaderStage::Fragment {
        // GLSL ES 3.x qualifies no input `invariant`: the link rule checks them instead.
        let text = |k: usize| sig.get(k).map_or("", |&i| tokens[i].text.as_str());
        let inputs: Vec<usize> = (0..sig.len())
            .filter(|&k| {
                text(k) == "invariant"
                    && matches!(text(k + 1), "gl_FragCoord" | "gl_PointCoord")
                    && text(k + 2) == ";"
            })
            .collect();
        for k in inputs {
            for &i in &sig[k..k + 3] {
                tokens[i].text.clear();
            }
        }
    }
    let mut outputs = FragmentOutputs::default();
    if version < TARGET_VERSION {
        for &i in &sig {
            let token = &mut tokens[i];
            token.text = match token.kind {
                Kind::Ident => rename(&token.text, shader.stage, version, &mut outputs)
                    .unwrap_or_else(|| token.text.clone()),
                // Macros too (`#define COLOR gl_FragColor`), but not `#version`.
                Kind::Directive if !token.text.trim().starts_with("#version") => {
                    let (hash, body) = token.text.split_at(token.text.find('#').unwrap_or(0) + 1);
                    let words = tokenize(body).into_iter().map(|t| match t.kind {
                        Kind::Ident => {
                            rename(&t.text, shader.stage, version, &mut outputs).unwrap_or(t.text)
                        }
                        _ => t.text,
                    });
                    std::iter::once(hash.to_string()).chain(words).collect()
                }
                _ => continue,
            };
        }
    }

    let source = versioned_source(&mut tokens, &sig, declared, &outputs.declarations());
    Ok(Unit {
        stage: shader.stage,
        version,
        invariant,
        uniforms,
        source,
    })
}

/// The GLSL ES 1.00 fragment outputs a unit writes, declared in GLSL ES 3.10.
#[derive(Default)]
struct FragmentOutputs {
    frag_color: bool,
    frag_data: bool,
}

impl FragmentOutputs {
    fn declarations(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.frag_color {
            lines.push("layout(location = 0) out mediump vec4 glsem_FragColor;".to_string());
        }
        if self.frag_data {
            lines.push(
                "layout(location = 0) out mediump vec4 glsem_FragData[gl_MaxDrawBuffers];"
                    .to_string(),
            );
        }
        lines
    }
}

/// What the word `word` of a GLSL ES `version` (below 3.10) unit of `stage` becomes in
/// GLSL ES 3.10, if anything.
fn rename(
    word: &str,
    stage: ShaderStage,
    version: u32,
    outputs: &mut FragmentOutputs,
) -> Option<String> {
    if is_later_keyword(word, version) {
        return Some(format!("glsem_{word}"));
    }
    if version >= 300 {
        return None;
    }
    Some(match (word, stage) {
        ("attribute", ShaderStage::Vertex) => "in".into(),
        ("varying", ShaderStage::Vertex) => "out".into(),
        ("varying", ShaderStage::Fragment) => "in".into(),
        ("gl_FragColor", ShaderStage::Fragment) => {
            outputs.frag_color = true;
            "glsem_FragColor".into()
        }
        ("gl_FragData", ShaderStage::Fragment) => {
            outputs.frag_data = true;
            "glsem_FragData".into()
        }
        // `texture2D` is a type in Vulkan GLSL, so a call's name is renamed wherever it is.
        _ => old_texture_function(word)?.0.into(),
    })
}

/// Whether `word`, a name in GLSL ES `version`, is a keyword of GLSL ES 3.10.
fn is_later_keyword(word: &str, version: u32) -> bool {
    (version < 310 && KEYWORDS_SINCE_310.contains(&word))
        || (version < 300 && KEYWORDS_SINCE_300.contains(&word))
}

/// A uniform's or attribute's GL name (`s.member` paths too) as the units, written in
/// GLSL ES `version`, spell it in GLSL ES 3.10.
fn renamed_gl_name(name: &str, version: u32) -> String {
    name.split('.')
        .map(|part| match is_later_keyword(part, version) {
            true => format!("glsem_{part}"),
            false => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Names GLSL ES 3.00 leaves free that GLSL ES 3.10 made keywords.
const KEYWORDS_SINCE_310: &[&str] = &["buffer", "shared"];

/// Names GLSL ES 1.00 leaves free that GLSL ES 3.00 made keywords or reserved (3.10's
/// image and atomic counter types among them).
const KEYWORDS_SINCE_300: &[&str] = &[
    "layout",
    "centroid",
    "smooth",
    "case",
    "uint",
    "uvec2",
    "uvec3",
    "uvec4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "samplerCubeShadow",
    "sampler2DArray",
    "sampler2DArrayShadow",
    "isampler2D",
    "isampler3D",
    "isamplerCube",
    "isampler2DArray",
    "usampler2D",
    "usampler3D",
    "usamplerCube",
    "usampler2DArray",
    "sampler2DMS",
    "isampler2DMS",
    "usampler2DMS",
    "coherent",
    "restrict",
    "readonly",
    "writeonly",
    "resource",
    "atomic_uint",
    "noperspective",
    "patch",
    "sample",
    "subroutine",
    "common",
    "partition",
    "active",
    "filter",
    "image2D",
    "iimage2D",
    "uimage2D",
    "image3D",
    "iimage3D",
    "uimage3D",
    "imageCube",
    "iimageCube",
    "uimageCube",
    "image2DArray",
    "iimage2DArray",
    "uimage2DArray",
];

/// The unit's tokens with `#version 310 es`, and `lines` after its leading directives
/// (line numbers reset to the original's: in GLSL ES, `#line N` numbers the next line N).
fn versioned_source(
    tokens: &mut [Token],
    sig: &[usize],
    declared: Option<(usize, u32, bool)>,
    lines: &[String],
) -> String {
    let version = format!("#version {TARGET_VERSION} es");
    let prelude: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // The declarations must not land inside a conditional (`#ifdef GL_ES` …).
    let after = sig
        .iter()
        .take_while(|&&i| {
            tokens[i].kind == Kind::Directive && !tokens[i].text.trim().starts_with("#if")
        })
        .last()
        .copied();
    let mut source = String::new();
    match (declared, after) {
        (Some((i, ..)), _) => tokens[i].text = version,
        (None, Some(_)) => source += &format!("{version}\n#line 1\n"),
        (None, None) => source += &format!("{version}\n{prelude}#line 1\n"),
    }
    let mut line = 1;
    for (i, token) in tokens.iter().enumerate() {
        source += &token.text;
        line += token.text.matches('\n').count();
        if after == Some(i) {
            source += &format!("\n{prelude}#line {}", line + 1);
        }
    }
    source
}

/// The built-ins a unit declares `invariant` by name (`invariant gl_Position;`), and all
/// of a vertex shader's for `#pragma STDGL invariant(all)`.
fn invariant_built_ins(stage: ShaderStage, tokens: &[Token], sig: &[usize]) -> Vec<String> {
    let text = |k: usize| sig.get(k).map_or("", |&i| tokens[i].text.as_str());
    let mut found: Vec<String> = (0..sig.len())
        .filter(|&k| text(k) == "invariant" && text(k + 1).starts_with("gl_"))
        .map(|k| text(k + 1).to_string())
        .collect();
    let all = sig.iter().any(|&i| {
        let words: String = tokens[i].text.split_whitespace().collect();
        tokens[i].kind == Kind::Directive && words == "#pragmaSTDGLinvariant(all)"
    });
    if all && stage == ShaderStage::Vertex {
        found.extend(["gl_Position".to_string(), "gl_PointSize".to_string()]);
    }
    found
}

/// GLSL ES 1.00 (4.6.4): "gl_FragCoord can only be declared invariant if and only if
/// gl_Position is declared invariant. Similarly gl_PointCoord can only be declared
/// invariant if and only if gl_PointSize is declared invariant."
fn check_invariance(units: &[Unit]) -> Result<(), SceneError> {
    let declares = |stage: ShaderStage, name: &str| {
        units
            .iter()
            .any(|u| u.stage == stage && u.invariant.iter().any(|n| n == name))
    };
    for (input, output) in [
        ("gl_FragCoord", "gl_Position"),
        ("gl_PointCoord", "gl_PointSize"),
    ] {
        if declares(ShaderStage::Fragment, input) && !declares(ShaderStage::Vertex, output) {
            return Err(SceneError::Fail(format!(
                "link error: the fragment shader declares {input} invariant, the vertex \
                 shader not {output}"
            )));
        }
    }
    Ok(())
}

/// The precision GLSL ES gives a type without a qualifier in `stage` before any
/// `precision` statement (GLSL ES 1.00 4.5.3, 3.00 4.5.4); `None`: none (a fragment
/// shader's `float`), or a type without precision.
fn default_precision(stage: ShaderStage, ty: &str) -> Option<&'static str> {
    match (precision_class(ty)?, stage) {
        ("float", ShaderStage::Fragment) => None,
        ("int", ShaderStage::Fragment) => Some("mediump"),
        ("float" | "int", _) => Some("highp"),
        ("sampler2D" | "samplerCube", _) => Some("lowp"),
        _ => None,
    }
}

/// The type whose `precision` statement sets `ty`'s default: `float` for the float
/// vectors and matrices, `int` for the integer ones, the type itself for an opaque type;
/// `None` for a type without precision (`bool`, a structure).
fn precision_class(ty: &str) -> Option<&str> {
    let float = ty == "float" || ty.starts_with("vec") || ty.starts_with("mat");
    let int = ["int", "uint"].contains(&ty) || ty.starts_with("ivec") || ty.starts_with("uvec");
    let opaque = ty.contains("sampler") || ty.contains("image") || ty == "atomic_uint";
    match () {
        _ if float => Some("float"),
        _ if int => Some("int"),
        _ if opaque => Some(ty),
        _ => None,
    }
}

/// A unit's uniforms outside blocks (`uniform [precision] type a, b[2];`): each name, its
/// precision (the qualifier, else the default in force there), and whether the name
/// occurs outside its declaration.
fn uniform_precisions(
    stage: ShaderStage,
    tokens: &[Token],
    sig: &[usize],
) -> Vec<(String, Option<String>, bool)> {
    let text = |k: usize| sig.get(k).map_or("", |&i| tokens[i].text.as_str());
    let mut defaults: BTreeMap<String, String> = BTreeMap::new();
    let mut declared = Vec::new();
    let mut depth = 0;
    let mut statement_start = true;
    for k in 0..sig.len() {
        let word = text(k);
        let starts = statement_start && depth == 0;
        statement_start = matches!(word, ";" | "{" | "}") || tokens[sig[k]].kind == Kind::Directive;
        match word {
            "{" => depth += 1,
            "}" => depth -= 1,
            "precision" if starts => {
                defaults.insert(text(k + 2).to_string(), text(k + 1).to_string());
            }
            "uniform" if starts => {
                let mut j = k + 1;
                let qualifier = ["lowp", "mediump", "highp"]
                    .contains(&text(j))
                    .then(|| text(j).to_string());
                j += usize::from(qualifier.is_some());
                let ty = text(j);
                if ty == "struct" || text(j + 1) == "{" {
                    continue;
                }
                let precision = qualifier.or_else(|| {
                    let class = precision_class(ty)?;
                    defaults
                        .get(class)
                        .cloned()
                        .or_else(|| default_precision(stage, ty).map(str::to_string))
                });
                // The names: `a`, `b[2]`, … up to the `;`.
                let mut at_name = true;
                let mut brackets = 0;
                for n in j + 1..sig.len() {
                    match text(n) {
                        ";" if brackets == 0 => break,
                        "[" => brackets += 1,
                        "]" => brackets -= 1,
                        "," if brackets == 0 => at_name = true,
                        name if at_name && brackets == 0 => {
                            declared.push((name.to_string(), precision.clone(), n));
                            at_name = false;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    declared
        .into_iter()
        .map(|(name, precision, at)| {
            let used = (0..sig.len()).any(|k| k != at && text(k) == name);
            (name, precision, used)
        })
        .collect()
}

/// GL ES links no program whose stages declare one uniform with two precisions (GLSL ES
/// 3.00 4.5.3); for GLSL ES 1.00 Mesa allows it where one stage does not use the uniform
/// (which applications rely on).
fn check_uniform_precisions(units: &[Unit]) -> Result<(), SceneError> {
    for (a, b) in units.iter().flat_map(|a| units.iter().map(move |b| (a, b))) {
        if a.stage >= b.stage {
            continue;
        }
        for (name, precision, used) in &a.uniforms {
            let Some((_, other, other_used)) = b.uniforms.iter().find(|(n, ..)| n == name) else {
                continue;
            };
            let both_1_00 = a.version == 100 && b.version == 100;
            if other != precision && (!both_1_00 || (*used && *other_used)) {
                let word = |p: &Option<String>| p.clone().unwrap_or_else(|| "no".into());
                return Err(SceneError::Fail(format!(
                    "link error: the uniform `{name}` has {} precision in the {:?} shader, \
                     {} in the {:?} shader",
                    word(precision),
                    a.stage,
                    word(other),
                    b.stage
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::parse;

    fn lowered(text: &str) -> Result<Scene, SceneError> {
        let mut scene = parse(text)?;
        lower(&mut scene)?;
        Ok(scene)
    }

    #[test]
    fn glsl_es_1_00_compiles_as_3_10_with_its_lines() {
        let scene = lowered(
            "[require]\nGL ES >= 2.0\n[fragment shader]\nprecision mediump float;\n\
             varying vec2 tc;\nuniform sampler2D s;\nuniform float shared;\n\
             void main() { gl_FragColor = texture2D(s, tc) * shared; }\n\
             [test]\nuniform float shared 1\n",
        )
        .unwrap();
        let source = &scene.shaders[0].source;
        let (prelude, body) = source.split_once("#line 1\n").unwrap();
        assert_eq!(
            prelude,
            "#version 310 es\nlayout(location = 0) out mediump vec4 glsem_FragColor;\n"
        );
        assert_eq!(
            body.lines().nth(1),
            Some("in vec2 tc;"),
            "line 2 stays line 2: {source}"
        );
        assert!(body.contains("glsem_FragColor = texture(s, tc) * glsem_shared;"));
        // The command sets the renamed uniform.
        let Command::Uniform(u) = &scene.commands[0].command else {
            panic!()
        };
        assert_eq!(u.name, "glsem_shared");
    }

    #[test]
    fn a_declared_version_is_raised_in_place() {
        let scene = lowered(
            "[require]\nGL ES >= 3.0\n[vertex shader]\n#version 300 es\n\
             #extension GL_OES_x : enable\nin vec4 buffer;\nvoid main() { gl_Position = buffer; }\n",
        )
        .unwrap();
        assert_eq!(
            scene.shaders[0].source,
            "#version 310 es\n#extension GL_OES_x : enable\n#line 3\n\
             in vec4 glsem_buffer;\nvoid main() { gl_Position = glsem_buffer; }\n"
        );
    }

    #[test]
    fn gl_es_link_rules_are_checked() {
        let link_error = |text: &str| match lowered(text) {
            Err(SceneError::Fail(m)) => m.starts_with("link error: "),
            _ => false,
        };
        let program = |version: &str, vs: &str, fs: &str| {
            format!(
                "[require]\nGL ES >= 2.0\nGLSL ES >= {version}\n\
                 [vertex shader]\n{vs}\n[fragment shader]\n{fs}\n"
            )
        };
        let fs = "invariant gl_FragCoord;\nvoid main() { gl_FragColor = gl_FragCoord; }";
        assert!(link_error(&program("1.00", "void main() {}", fs)));
        let invariant_vs = "invariant gl_Position;\nvoid main() {}";
        assert!(!link_error(&program("1.00", invariant_vs, fs)));
        // One uniform, two precisions: GLSL ES 3.00 never links; 1.00 where both use it.
        let vs = |uses: bool| {
            let value = if uses { "f" } else { "0.0" };
            format!("uniform float f;\nvoid main() {{ gl_Position = vec4({value}); }}")
        };
        let fs = "precision mediump float;\nuniform float f;\n\
                  void main() { gl_FragColor = vec4(f); }";
        assert!(link_error(&program("1.00", &vs(true), fs)));
        assert!(!link_error(&program("1.00", &vs(false), fs)));
        let fs_300 = "precision mediump float;\nuniform float f;\nout vec4 c;\n\
                      void main() { c = vec4(f); }";
        assert!(link_error(&program("3.00", &vs(false), fs_300)));
        let same = "precision highp float;\nuniform float f;\nout vec4 c;\n\
                    void main() { c = vec4(f); }";
        assert!(!link_error(&program("3.00", &vs(true), same)));
    }
}

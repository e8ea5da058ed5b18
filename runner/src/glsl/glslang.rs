//! glslangValidator and spirv-as: the paths they need (`Compiler`), one stage's GLSL
//! made a SPIR-V module (the `#version` glslang can take, the `bool` uniforms from its
//! reflection), and which of its messages are link errors. `mod.rs` adds the passes
//! (`Compiler::build`); this module uses none of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::description::{stage_word, Scalar, UniformBlock};
use crate::scene::{SceneError, ShaderStage};

/// One compilation unit: GLSL and the first line of its section in the scene file.
pub(super) type Unit = (String, Option<usize>);

/// The lowest desktop GLSL version glslang compiles for Vulkan.
pub(super) const MIN_VULKAN_GLSL: u32 = 140;
/// `gl_FragData` gets this many elements (glslang's default is 32, beyond any device).
pub(super) const MAX_DRAW_BUFFERS: u32 = 8;

/// Why the compiler could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum GlslangError {
    #[error("glslangValidator not found on PATH; install the package glslang-tools")]
    NotFound,
    #[error("cannot run {}: {source}", path.display())]
    Run {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Finds `glslangValidator` on PATH.
pub fn find_glslang() -> Result<PathBuf, GlslangError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("glslangValidator"))
        .find(|p| p.is_file())
        .ok_or(GlslangError::NotFound)
}

/// Writes glslang's default resource limits with `MaxDrawBuffers` lowered, so that
/// `gl_FragData` is an array a device can actually hold.
pub fn write_limits_file(glslang: &Path, dir: &Path) -> Result<PathBuf, GlslangError> {
    let out = Command::new(glslang)
        .arg("-c")
        .output()
        .map_err(|source| GlslangError::Run {
            path: glslang.to_path_buf(),
            source,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    let limits: String = text
        .lines()
        .map(|l| {
            if l.starts_with("MaxDrawBuffers ") {
                format!("MaxDrawBuffers {MAX_DRAW_BUFFERS}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let path = dir.join("limits.conf");
    match std::fs::write(&path, limits) {
        Ok(()) => Ok(path),
        Err(source) => Err(GlslangError::Write { path, source }),
    }
}

/// Paths the compiler needs; created once per run.
pub struct Compiler {
    pub glslang: PathBuf,
    pub limits: PathBuf,
    pub dir: PathBuf,
}

impl Compiler {
    /// Assembles a `[… shader spirv]` section with `spirv-as`, for OpenGL as piglit's
    /// SPIR-V is.
    pub(super) fn assemble(&self, shader: &crate::scene::Shader) -> Result<Vec<u32>, SceneError> {
        let name = shader.stage.glslang_name();
        let src = self.dir.join(format!("shader.{name}.spvasm"));
        let spv = self.dir.join(format!("shader.{name}.spv"));
        std::fs::write(&src, &shader.source)
            .map_err(|e| SceneError::Fail(format!("cannot write {}: {e}", src.display())))?;
        let _ = std::fs::remove_file(&spv);
        let out = Command::new("spirv-as")
            .args(["--target-env", "opengl4.5"])
            .arg(&src)
            .arg("-o")
            .arg(&spv)
            .output()
            .map_err(|e| {
                SceneError::Fail(format!(
                    "cannot run spirv-as (install the package spirv-tools): {e}"
                ))
            })?;
        if !out.status.success() {
            return Err(SceneError::Fail(format!(
                "SPIR-V assembly error in the {} shader (its section starts at line {}): {}",
                stage_word(shader.stage),
                shader.first_line,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        read_words(&spv)
    }

    /// Compiles one stage; several compilation units are linked by glslang (`-l`), as a
    /// GL linker links several shader objects of one stage. Also returns the GL names of
    /// its `bool` uniforms, from glslang's reflection (`-q`).
    pub(super) fn compile(
        &self,
        stage: ShaderStage,
        units: &[Unit],
    ) -> Result<(Vec<u32>, HashSet<String>), SceneError> {
        let name = stage.glslang_name();
        let spv = self.dir.join(format!("shader.{name}.spv"));
        let mut srcs = Vec::new();
        for (i, (source, _)) in units.iter().enumerate() {
            let src = if i == 0 {
                self.dir.join(format!("shader.{name}"))
            } else {
                self.dir.join(format!("shader{i}.{name}"))
            };
            std::fs::write(&src, source)
                .map_err(|e| SceneError::Fail(format!("cannot write {}: {e}", src.display())))?;
            srcs.push(src);
        }
        let src = srcs[0].clone();
        let first_line = units[0].1;
        let _ = std::fs::remove_file(&spv);
        let mut command = Command::new(&self.glslang);
        command
            .args([
                "-V",
                "-R",
                "--aml",
                "--amb",
                "-q",
                // Inactive members too: an unread `bool` uniform is still GL's bool
                // (`mark_bool_members`), which `glUniform*i` sets.
                "--reflect-all-block-variables",
                "-S",
                name,
            ])
            .arg(&self.limits);
        if srcs.len() > 1 {
            command.arg("-l");
        }
        let out = command
            .args(&srcs)
            .arg("-o")
            .arg(&spv)
            .output()
            .map_err(|e| SceneError::Fail(format!("cannot run glslangValidator: {e}")))?;
        if !out.status.success() {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            let src_name = src.display().to_string();
            let message: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| {
                    !l.is_empty()
                        && !srcs.iter().any(|s| s.display().to_string() == *l)
                        && *l != self.limits.display().to_string()
                })
                .map(|l| l.replace(&src_name, name))
                .collect();
            let section = first_line
                .map(|l| format!(" (its section starts at line {l})"))
                .unwrap_or_default();
            return Err(SceneError::Fail(format!(
                "GLSL error in the {} shader{section}: {}",
                stage_word(stage),
                message.join(" | ")
            )));
        }
        Ok((
            read_words(&spv)?,
            reflected_bool_uniforms(&String::from_utf8_lossy(&out.stdout)),
        ))
    }
}

/// GL's type enums of `bool`, `bvec2`, `bvec3` and `bvec4`.
const GL_BOOL_TYPES: [&str; 4] = ["8b56", "8b57", "8b58", "8b59"];

/// The names in the "Uniform reflection" section of glslang's `-q` output whose GL type is
/// a boolean one, as `name: offset 0, type 8b56, …` lines list them, without subscripts
/// (glslang lists an array of structures' members once, `s.q` for `s[i].q`).
fn reflected_bool_uniforms(reflection: &str) -> HashSet<String> {
    reflection
        .lines()
        .skip_while(|l| l.trim() != "Uniform reflection:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let (name, fields) = l.split_once(": ")?;
            let ty = fields.split(", ").find_map(|f| f.strip_prefix("type "))?;
            GL_BOOL_TYPES
                .contains(&ty)
                .then(|| without_subscripts(name.trim()))
        })
        .collect()
}

/// `a[1].b[2]` → `a.b`.
fn without_subscripts(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0;
    for c in name.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// SPIR-V has no boolean in a block: glslang stores a `bool` uniform as a `uint`. GL sets
/// it with `glUniform*i` or `glUniform*ui` alike, so the member says it is a `bool`.
pub(super) fn mark_bool_members(blocks: &mut [UniformBlock], bools: &HashSet<String>) {
    for member in blocks.iter_mut().flat_map(|b| b.members.iter_mut()) {
        if member.scalar == Scalar::Uint && bools.contains(&without_subscripts(&member.name)) {
            member.scalar = Scalar::Bool;
        }
    }
}

/// The SPIR-V words of the module file `path`.
fn read_words(path: &std::path::Path) -> Result<Vec<u32>, SceneError> {
    let bytes = std::fs::read(path)
        .map_err(|e| SceneError::Fail(format!("cannot read {}: {e}", path.display())))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Adds `#version` from `[require]` when the source has none; glslang cannot target Vulkan
/// from desktop GLSL below 1.40, which makes such scenes a SKIP rather than a FAIL.
///
/// One exception: a unit declaring GLSL 1.10-1.30 in a program that `[require]`s GLSL 1.50
/// or later is compiled as 1.40. GL links units of different versions from GLSL 1.50 on
/// (GLSL 1.50, 3.3), and 1.40 only removed the fixed-function built-ins, which glslang
/// then reports by name instead of compiling something else.
pub(super) fn with_version(source: &str, version: Option<u32>) -> Result<String, SceneError> {
    let declared = source.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("#version").map(|v| v.trim().to_string())
    });
    let (number, es) = match &declared {
        Some(v) => {
            let mut words = v.split_whitespace();
            let n = words
                .next()
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(0);
            (n, words.next() == Some("es"))
        }
        None => (version.unwrap_or(110), false),
    };
    let linked_with_newer = version.is_some_and(|v| v >= 150) && declared.is_some();
    if !es && number < MIN_VULKAN_GLSL && !linked_with_newer {
        return Err(SceneError::Skip(format!(
            "GLSL {number} is below 1.40, the lowest desktop version glslang compiles for Vulkan"
        )));
    }
    let versioned = match declared {
        Some(_) if !es && number < MIN_VULKAN_GLSL => source
            .lines()
            .map(|l| match l.trim_start().starts_with("#version") {
                true => format!("#version {MIN_VULKAN_GLSL}"),
                false => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(_) => source.to_string(),
        None => format!(
            "#version {number}\n{}\n{source}",
            crate::fixes::line_reset(number, 1)
        ),
    };
    let versioned = with_gpu_shader5_core(versioned, number, es);
    let fixed = crate::fixes::apply(&versioned).0;
    Ok(crate::extension_fixes::apply(&fixed).0)
}

/// A desktop unit below GLSL 4.00 that enables GL_ARB_gpu_shader5 is compiled as 4.00:
/// glslang supports the extension only partly (none of its built-in functions) and
/// GLSL 4.00 made all of it core, unchanged.
fn with_gpu_shader5_core(source: String, number: u32, es: bool) -> String {
    let enables = source.lines().any(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        words.first() == Some(&"#extension")
            && words
                .get(1)
                .is_some_and(|w| w.trim_end_matches(':') == "GL_ARB_gpu_shader5")
    });
    if es || number >= 400 || !enables {
        return source;
    }
    let mut replaced = false;
    source
        .lines()
        .map(|l| {
            if !replaced && l.trim_start().starts_with("#version") {
                replaced = true;
                "#version 400".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A failure of linking only: the runner's (`link error: …`), or glslang's where every
/// `ERROR:` is a `Linking … stage` one (no compile error, which fails a GL test before it
/// links).
pub fn is_link_error(message: &str) -> bool {
    if message.starts_with("link error: ") {
        return true;
    }
    let errors: Vec<&str> = message
        .split(" | ")
        .flat_map(|part| part.split("ERROR: ").skip(1))
        .collect();
    !errors.is_empty() && errors.iter().all(|e| e.starts_with("Linking "))
}

#[cfg(test)]
impl Compiler {
    /// A compiler working in a temporary directory of the test's own thread.
    pub(super) fn for_tests() -> Compiler {
        let dir = std::env::temp_dir().join(format!(
            "glsem-run-glsl-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let glslang = find_glslang().unwrap();
        let limits = write_limits_file(&glslang, &dir).unwrap();
        Compiler {
            glslang,
            limits,
            dir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glsl::description::UniformMember;

    #[test]
    fn bool_uniforms_are_found_in_glslang_reflection() {
        let reflection = "shader.frag\nUniform reflection:\n\
            flag: offset 0, type 8b56, size 1, index 0, binding -1, stages 16\n\
            s.q: offset 64, type 8b58, size 1, index 0, binding -1, stages 16\n\
            n: offset 48, type 1405, size 1, index 0, binding -1, stages 16\n\n\
            Pipeline output reflection:\nc: offset 0, type 8b56, size 1\n";
        let bools = reflected_bool_uniforms(reflection);
        assert_eq!(
            bools,
            HashSet::from(["flag".to_string(), "s.q".to_string()])
        );
        let member = |name: &str| UniformMember {
            name: name.into(),
            offset: 0,
            scalar: Scalar::Uint,
            columns: 1,
            rows: 1,
            matrix_stride: 0,
            array: None,
            row_major: false,
        };
        let mut blocks = [UniformBlock {
            binding: 0,
            gl_binding: 0,
            element: 0,
            name: None,
            size: 16,
            members: vec![member("flag"), member("s[1].q"), member("n")],
        }];
        mark_bool_members(&mut blocks, &bools);
        let scalars: Vec<Scalar> = blocks[0].members.iter().map(|m| m.scalar).collect();
        assert_eq!(scalars, [Scalar::Bool, Scalar::Bool, Scalar::Uint]);
    }

    #[test]
    fn glsl_below_1_40_compiles_only_beside_glsl_1_50() {
        let unit = "#version 130\nin vec4 v;\nvoid main() { gl_Position = v; }\n";
        // Alone (or with a 1.40 program) GLSL 1.30 is out of reach of glslang for Vulkan.
        assert!(matches!(
            with_version(unit, Some(130)),
            Err(SceneError::Skip(_))
        ));
        assert!(matches!(
            with_version(unit, Some(140)),
            Err(SceneError::Skip(_))
        ));
        // In a program that needs GLSL 1.50, GL links it with the other units: as 1.40.
        let fixed = with_version(unit, Some(150)).unwrap();
        assert!(fixed.starts_with("#version 140\n"), "{fixed}");
        assert_eq!(fixed.lines().count(), unit.lines().count());
    }

    #[test]
    fn gpu_shader5_below_glsl_4_00_compiles_as_4_00() {
        let unit = "#version 150\n#extension GL_ARB_gpu_shader5 : enable\nvoid main() {}\n";
        let fixed = with_version(unit, Some(150)).unwrap();
        assert!(fixed.starts_with("#version 400\n"), "{fixed}");
        assert_eq!(fixed.lines().count(), unit.lines().count());
        // Without the extension, or from GLSL 4.00 on, the unit keeps its version.
        let plain = "#version 150\nvoid main() {}\n";
        assert!(with_version(plain, Some(150))
            .unwrap()
            .starts_with("#version 150\n"));
        let newer = "#version 410\n#extension GL_ARB_gpu_shader5 : enable\nvoid main() {}\n";
        assert!(with_version(newer, Some(410))
            .unwrap()
            .starts_with("#version 410\n"));
    }
}

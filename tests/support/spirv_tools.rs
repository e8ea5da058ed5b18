//! glslang and SPIRV-Tools for every test that compiles GLSL, assembles SPIR-V or validates
//! it: one copy, so that the scratch-file rules (a path of its own per call) and the
//! word/byte conversions are written once.
//!
//! A module of `tests/support/mod.rs`, and included with `#[path]` (std only, no crate
//! paths) by `tests/passes/main.rs`, `tests/c_api.rs`, `benches/support/mod.rs` and
//! `fuzz/src/lib.rs`, which is itself both the fuzz crate's library and a module of
//! `tests/fuzz_regressions.rs`.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A SPIR-V version to compile for: glslang's target flags and spirv-val's environment.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    pub glslang: &'static [&'static str],
    pub val: &'static str,
}

/// SPIR-V 1.0.
pub const SPV_1_0: Target = Target {
    glslang: &["--target-env", "vulkan1.0"],
    val: "vulkan1.0",
};
/// SPIR-V 1.3.
pub const SPV_1_3: Target = Target {
    glslang: &["--target-env", "vulkan1.1"],
    val: "vulkan1.1",
};
/// SPIR-V 1.4 (Vulkan 1.1 with `VK_KHR_spirv_1_4`).
pub const SPV_1_4: Target = Target {
    glslang: &["--target-env", "vulkan1.1", "--target-env", "spirv1.4"],
    val: "vulkan1.1spv1.4",
};
/// SPIR-V 1.5.
pub const SPV_1_5: Target = Target {
    glslang: &["--target-env", "vulkan1.2"],
    val: "vulkan1.2",
};
/// SPIR-V 1.6.
pub const SPV_1_6: Target = Target {
    glslang: &["--target-env", "vulkan1.3"],
    val: "vulkan1.3",
};

/// A file path of its own for every call: tests run in parallel threads, and two runs of
/// the suite may share the temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "glsem-test-{}-{n}-{}",
        std::process::id(),
        name.replace('/', "_")
    ))
}

/// Little-endian words; a trailing partial word is dropped.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The little-endian bytes of `words`.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs `cmd` to completion. The tools are part of the test environment, so one that
/// cannot be started is a setup error, reported as such.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| {
        panic!(
            "cannot run {cmd:?} (scripts/setup.sh installs glslang-tools, spirv-tools and a C \
             compiler): {e}"
        )
    })
}

/// [`output`], failing unless `cmd` succeeds, with what it printed.
pub fn run(cmd: &mut Command) -> Output {
    let out = output(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Reads the words of the scratch file `path` and removes it.
fn take_words(path: &Path) -> Vec<u32> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::fs::remove_file(path).ok();
    words(&bytes)
}

/// Compiles the GLSL file `source` into the file `out` with `glslangValidator -V` and
/// extra `flags` (the stage comes from the file extension).
pub fn compile_to(source: &Path, flags: &[&str], out: &Path) {
    run(Command::new("glslangValidator")
        .arg("-V")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(out));
}

/// [`compile_to`] a scratch file; its words.
pub fn compile(source: &Path, flags: &[&str]) -> Vec<u32> {
    let out = scratch("compiled.spv");
    compile_to(source, flags, &out);
    take_words(&out)
}

/// Assembles the SPIR-V assembly file `source` with `spirv-as --target-env env`.
pub fn assemble(source: &Path, env: &str) -> Vec<u32> {
    let out = scratch("assembled.spv");
    run(Command::new("spirv-as")
        .args(["--target-env", env])
        .arg(source)
        .arg("-o")
        .arg(&out));
    take_words(&out)
}

/// Runs `program` with `args` and `module` on its stdin.
fn pipe(program: &str, args: &[&str], module: &[u32]) -> Result<Output, String> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(&bytes(module))
        .map_err(|e| format!("cannot feed {program}: {e}"))?;
    child
        .wait_with_output()
        .map_err(|e| format!("{program} did not finish: {e}"))
}

/// `spirv-val --target-env env` on `module`; `Err` carries its message (or why it could not
/// run).
pub fn validate(module: &[u32], env: &str) -> Result<(), String> {
    let out = pipe("spirv-val", &["--target-env", env, "-"], module)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The `spirv-val --target-env` for a module's SPIR-V version (a Vulkan that accepts it).
pub fn target_env(module: &[u32]) -> &'static str {
    match module.get(1).map(|v| (v >> 8) & 0xffff) {
        Some(0x0100) => "vulkan1.0",
        Some(0x0101..=0x0103) => "vulkan1.1",
        Some(0x0104) => "vulkan1.1spv1.4",
        Some(0x0105) => "vulkan1.2",
        _ => "vulkan1.3",
    }
}

/// `spirv-dis` of `module`, for failure messages (its error when it cannot).
pub fn disassemble(module: &[u32]) -> String {
    match pipe("spirv-dis", &["-"], module) {
        Ok(out) => format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => e,
    }
}

/// Fails unless `spirv-val --target-env env` accepts `module`, with spirv-val's message
/// and the disassembly; `what` names the module ("the rewrite of basic.frag").
pub fn assert_valid(module: &[u32], env: &str, what: &str) {
    if let Err(e) = validate(module, env) {
        panic!(
            "spirv-val ({env}) rejects {what}:\n{e}\n{}",
            disassemble(module)
        );
    }
}

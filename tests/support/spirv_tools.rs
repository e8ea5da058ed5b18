//! glslang and SPIRV-Tools for the tests that check passes on compiled GLSL: one copy, so
//! that the scratch-file rules (a path of its own per call) are written once.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn run(program: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(program).args(args).output().unwrap_or_else(|e| {
        panic!("cannot run {program} (scripts/setup.sh installs glslang-tools and spirv-tools): {e}")
    })
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Compiles the GLSL file `source` with `glslangValidator -V` and extra `flags`.
pub fn compile(source: &Path, flags: &[&str]) -> Vec<u32> {
    let out = scratch("compiled.spv");
    let mut args: Vec<&std::ffi::OsStr> = vec!["-V".as_ref()];
    args.extend(flags.iter().map(std::ffi::OsStr::new));
    args.extend([source.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    let result = run("glslangValidator", &args);
    assert!(
        result.status.success(),
        "glslangValidator failed on {}:\n{}",
        source.display(),
        String::from_utf8_lossy(&result.stdout)
    );
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).ok();
    words(&bytes)
}

/// `spirv-val --target-env env` on `module`; the error text when it is rejected.
pub fn validate(module: &[u32], env: &str) -> Result<(), String> {
    let path = scratch("validate.spv");
    let bytes: Vec<u8> = module.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let result = run(
        "spirv-val",
        &["--target-env".as_ref(), env.as_ref(), path.as_os_str()],
    );
    std::fs::remove_file(&path).ok();
    if result.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&result.stderr).into_owned())
    }
}

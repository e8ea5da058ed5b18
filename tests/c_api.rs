//! The C API of `VK_GLSEM_tessellation_default_levels`, used from C as an application
//! would: `tests/c/tes_only.c` includes `include/vk_glsem.h`, gets
//! `vkCmdSetTessellationDefaultLevelsGLSEM` with `vkGetDeviceProcAddr` and draws a pipeline
//! with a TES and no TCS through the layer built with this test (under the Khronos
//! validation layer when it is installed; a validation error fails the program).
//!
//! Needs a C compiler (`$CC`, else `cc`), the Vulkan headers and loader (`-lvulkan`),
//! glslangValidator and a Vulkan device with tessellation shaders (lavapipe is enough; it
//! SKIPs on a device without).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::spirv_tools::{self, run};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The layer's cdylib from the build of this test: `cargo test` leaves it next to the test
/// binary in `target/<profile>/deps/` (only `cargo build` copies it up to
/// `target/<profile>/`).
fn layer_library() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("target/<profile>/deps");
    [deps, deps.parent().expect("target/<profile>")]
        .iter()
        .map(|d| d.join("libVkLayer_glsem.so"))
        .find(|p| p.exists())
        .expect("libVkLayer_glsem.so next to the test binary: build the crate's cdylib")
}

/// A fresh scratch directory for this run.
fn scratch_dir() -> PathBuf {
    let dir = spirv_tools::scratch("c-api");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A layer manifest for the library built with this test, so that `VK_ADD_LAYER_PATH`
/// finds this build rather than an installed one.
fn write_layer_manifest(dir: &Path) {
    let library = layer_library();
    let manifest = format!(
        r#"{{
    "file_format_version": "1.2.0",
    "layer": {{
        "name": "VK_LAYER_GLSEM_gl_semantics",
        "type": "GLOBAL",
        "library_path": "{}",
        "api_version": "1.3.239",
        "implementation_version": "1",
        "description": "glsem (c_api test build)",
        "device_extensions": [{{
            "name": "VK_GLSEM_tessellation_default_levels",
            "spec_version": "1",
            "entrypoints": ["vkCmdSetTessellationDefaultLevelsGLSEM"]
        }}]
    }}
}}
"#,
        library.display()
    );
    std::fs::write(dir.join("VkLayer_glsem.json"), manifest).unwrap();
}

#[test]
fn c_program_draws_tes_only_pipeline_with_default_levels() {
    if !support::needs(&[support::Feature::TessellationShader]) {
        return;
    }
    let dir = scratch_dir();
    let c_dir = manifest_dir().join("tests/c");

    let program = dir.join("tes_only");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    run(Command::new(cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(manifest_dir().join("include"))
        .arg(c_dir.join("tes_only.c"))
        .arg("-o")
        .arg(&program)
        .arg("-lvulkan"));

    let mut spirv = Vec::new();
    for stage in ["vert", "tese", "frag"] {
        let out = dir.join(format!("tes_only.{stage}.spv"));
        spirv_tools::compile_to(&c_dir.join(format!("tes_only.{stage}")), &[], &out);
        spirv.push(out);
    }

    write_layer_manifest(&dir);
    let output = run(Command::new(&program)
        .args(&spirv)
        .env("VK_ADD_LAYER_PATH", &dir));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("both halves drawn with their default levels"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

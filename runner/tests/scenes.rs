//! Runs the `glsem-run` binary: every scene under `tests/scenes/` must pass under the
//! Khronos validation layer, and bad input must be reported the way SCENES.md says.
//!
//! `runner_*` scenes use only what plain Vulkan offers and always run with `--no-layer`.
//! The other scenes (`fragcolor_*`, `xfb_*`, `tess_*`) need the glsem layer: they run, and
//! every scene runs a second time through the layer, only when a loadable
//! `libVkLayer_glsem.so` sits next to the binary (a plain `cargo test -p glsem-run` does not
//! build it; `cargo build` of the workspace does).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_glsem-run"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("glsem-run runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn scenes() -> Vec<String> {
    let mut list: Vec<String> = std::fs::read_dir(repo().join("tests/scenes"))
        .expect("tests/scenes exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".shader_test"))
        .map(|n| format!("tests/scenes/{n}"))
        .collect();
    list.sort();
    list
}

/// The layer next to the binary, when it is a real layer (exports the loader's entry).
fn usable_layer() -> Option<PathBuf> {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_glsem-run"));
    let lib = exe.parent()?.join("libVkLayer_glsem.so");
    // SAFETY: loading the layer runs no Vulkan code; it only resolves a symbol.
    let exports = unsafe {
        let library = libloading::Library::new(&lib).ok()?;
        let negotiate = library
            .get::<unsafe extern "C" fn()>(b"vkNegotiateLoaderLayerInterfaceVersion\0")
            .is_ok();
        negotiate
    };
    exports.then_some(lib)
}

/// Asserts the output has one line per scene, no FAIL, SKIPs with reasons, and a summary
/// that adds up.
fn assert_all_pass(out: &Output, scenes: &[String]) {
    let text = stdout(out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        scenes.len() + 1,
        "one line per scene plus the summary:\n{text}"
    );
    let mut passed = 0;
    let mut skipped = 0;
    for (line, scene) in lines.iter().zip(scenes) {
        if *line == format!("PASS {scene}") {
            passed += 1;
        } else if let Some(reason) = line.strip_prefix(&format!("SKIP {scene}: ")) {
            assert!(!reason.trim().is_empty(), "a SKIP needs a reason: {line}");
            skipped += 1;
        } else {
            panic!("not a PASS or SKIP: {line}\n{text}");
        }
    }
    assert_eq!(
        lines[scenes.len()],
        format!("{passed} passed, 0 failed, {skipped} skipped")
    );
    assert!(out.status.success(), "exit status {:?}", out.status);
}

#[test]
fn runner_scenes_pass_on_plain_vulkan_under_validation() {
    let runner: Vec<String> = scenes()
        .into_iter()
        .filter(|s| s.contains("/runner_"))
        .collect();
    assert!(runner.len() >= 10, "the runner's own scenes are present");
    let mut args = vec!["--no-layer", "--validation"];
    args.extend(runner.iter().map(String::as_str));
    let out = run(&args);
    assert_all_pass(&out, &runner);
    // The runner's own scenes use nothing that may be missing on lavapipe: none skips.
    assert!(!stdout(&out).contains("SKIP"), "{}", stdout(&out));
}

#[test]
fn every_scene_passes_through_the_layer() {
    let Some(lib) = usable_layer() else {
        eprintln!(
            "NOTE: no loadable libVkLayer_glsem.so next to glsem-run; the layer-dependent scenes \
             (fragcolor_*, xfb_*, tess_*) were not run. Build the workspace (`cargo build`) to run them."
        );
        return;
    };
    let all = scenes();
    let mut args = vec!["--validation"];
    args.extend(all.iter().map(String::as_str));
    let out = run(&args);
    eprintln!(
        "with the layer {}:\n{}{}",
        lib.display(),
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_all_pass(&out, &all);
}

fn bad(name: &str) -> String {
    format!("runner/tests/bad_scenes/{name}.shader_test")
}

#[test]
fn missing_file_and_bad_usage_exit_2() {
    let out = run(&["--no-layer", "tests/scenes/does_not_exist.shader_test"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("does_not_exist.shader_test: no such file")
    );
    assert_eq!(run(&["--no-layer"]).status.code(), Some(2));
    assert_eq!(
        run(&["--frobnicate", &bad("wrong_probe")]).status.code(),
        Some(2)
    );
}

#[test]
fn bad_input_is_reported_per_scene() {
    let files = [
        bad("malformed_number"),
        bad("unknown_command"),
        bad("glsl_error"),
        bad("wrong_probe"),
        bad("tes_without_tcs"),
        bad("default_levels"),
    ];
    let mut args = vec!["--no-layer"];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(out.status.code(), Some(1), "{text}");
    // `clear color 0.0 0.5 1.O 1.0` is line 11.
    assert!(
        lines[0].starts_with(&format!(
            "FAIL {}: line 11: malformed number `1.O`",
            files[0]
        )),
        "{text}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "SKIP {}: line 12: unknown command: `enable GL_BLEND`",
            files[1]
        )),
        "{text}"
    );
    assert!(
        lines[2].starts_with(&format!(
            "FAIL {}: GLSL error in the fragment shader",
            files[2]
        )),
        "{text}"
    );
    assert!(
        lines[2].contains("'undeclared_variable' : undeclared identifier"),
        "glslang's own message: {text}"
    );
    // The green half starts at pixel 125; pixel 124 keeps the red clear colour.
    assert_eq!(
        lines[3],
        format!("FAIL {}: line 15: probe at (124, 7) of attachment 0: expected (0, 1, 0, 1), observed (1, 0, 0, 1)", files[3])
    );
    assert_eq!(
        lines[4],
        format!(
            "FAIL {}: invalid on plain Vulkan: tessellation evaluation shader without control shader \
             (VUID-VkGraphicsPipelineCreateInfo-pStages-00730)",
            files[4]
        )
    );
    assert!(
        lines[5].starts_with(&format!(
            "SKIP {}: `patch parameter default level` needs vkCmdSetTessellationDefaultLevelsGLSEM",
            files[5]
        )),
        "{text}"
    );
    assert_eq!(lines[6], "0 passed, 4 failed, 2 skipped");
}

#[test]
fn json_and_png_outputs() {
    let dir = std::env::temp_dir().join(format!("glsem-run-png-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let scene = "tests/scenes/runner_fb_attachments.shader_test";
    let out = run(&[
        "--no-layer",
        "--json",
        "--png",
        dir.to_str().unwrap(),
        scene,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout(&out);
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("one JSON object");
    assert_eq!(v["file"], scene);
    assert_eq!(v["result"], "pass");
    assert_eq!(v["layer"], false);
    // Five attachments, the hole included; attachment 0 is red-purple on the left half.
    for k in 0..5 {
        assert!(
            dir.join(format!("runner_fb_attachments-att{k}.png"))
                .is_file(),
            "attachment {k}"
        );
    }
    let decoder =
        png::Decoder::new(std::fs::File::open(dir.join("runner_fb_attachments-att0.png")).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (250, 250));
    // Top-left pixel (GL y = 249, x = 0): drawn (1, 0, 0.5, 1).
    assert_eq!(&buf[0..4], &[255, 0, 128, 255]);
    // Top-right pixel: the clear colour (0.2, 0.4, 0.6, 1).
    let right = (249 * 4) as usize;
    assert_eq!(&buf[right..right + 4], &[51, 102, 153, 255]);
    let _ = std::fs::remove_dir_all(&dir);
}

//! Runs the `glsem-run` binary: every scene under `tests/scenes/` must pass under the
//! Khronos validation layer, and bad input must be reported the way docs/scene-format.md says.
//!
//! `runner_*` scenes use only what plain Vulkan offers and always run with `--no-layer`.
//! Every scene then runs through the glsem layer of this build; every module the layer
//! emits must pass `spirv-val`, and the scenes that need the layer must fail without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::layer_library;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn runner() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_glsem-run"));
    command.current_dir(repo());
    command
}

fn run(args: &[&str]) -> Output {
    runner().args(args).output().expect("glsem-run runs")
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

/// Asserts the output has one line per scene, no FAIL, SKIPs with reasons, and a summary
/// that adds up.
fn assert_all_pass(out: &Output, scenes: &[String]) {
    assert_all_pass_but(out, scenes, &[]);
}

/// As [`assert_all_pass`], but the scenes named in `failing` (file names) must FAIL: the
/// list says exactly which scenes differ.
fn assert_all_pass_but(out: &Output, scenes: &[String], failing: &[&str]) {
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
        let expected_to_fail = failing
            .iter()
            .any(|name| scene.ends_with(&format!("/{name}.shader_test")));
        if expected_to_fail {
            assert!(
                line.starts_with(&format!("FAIL {scene}: ")),
                "listed as failing: {line}"
            );
        } else if *line == format!("PASS {scene}") {
            passed += 1;
        } else if let Some(reason) = line.strip_prefix(&format!("SKIP {scene}: ")) {
            assert!(!reason.trim().is_empty(), "a SKIP needs a reason: {line}");
            skipped += 1;
        } else {
            panic!("not a PASS or SKIP: {line}\n{text}");
        }
    }
    let failed = scenes.len() - passed - skipped;
    assert_eq!(failed, failing.len(), "every listed scene is there");
    assert_eq!(
        lines[scenes.len()],
        format!("{passed} passed, {failed} failed, {skipped} skipped")
    );
    assert_eq!(
        out.status.success(),
        failed == 0,
        "exit status {:?}",
        out.status
    );
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
fn every_scene_passes_through_the_layer_and_every_emitted_module_validates() {
    every_scene_passes_through_the_layer(&[], &[]);
}

/// With a positive viewport (`--lower-left`, `window_origin = lower_left`) too.
#[test]
fn every_scene_passes_through_the_layer_with_a_lower_left_viewport() {
    every_scene_passes_through_the_layer(&["--lower-left"], &[]);
}

/// Every scene through four linked graphics pipeline libraries, as whole pipelines: the
/// layer makes a library again at the link where the parts must see each other
/// (`vertex_formats_unaligned`: the vertex shader reads what the vertex-input library names).
#[test]
fn every_scene_passes_through_pipeline_libraries() {
    every_scene_passes_through_the_layer(&["--pipelines", "libraries"], &[]);
}

/// Linked with link-time optimization, with `INDEPENDENT_SETS` layouts.
#[test]
fn every_scene_passes_through_optimized_independent_set_libraries() {
    every_scene_passes_through_the_layer(
        &["--pipelines", "libraries-lto", "--independent-sets"],
        &[],
    );
}

/// Every scene through whole pipelines with every dynamic state of
/// `VK_EXT_extended_dynamic_state` 1–3 and `VK_EXT_vertex_input_dynamic_state` the device
/// has, set after each bind: the state shader objects need, which the layer follows at
/// record time (DESIGN §4.11), making a pipeline again where the vertex input set names
/// attributes it cannot read (`vertex_formats_unaligned`).
#[test]
fn every_scene_passes_through_pipelines_with_every_dynamic_state() {
    every_scene_passes_through_the_layer(&["--pipelines", "dynamic-state"], &[]);
}

/// Every scene through dynamic vertex input and vertex-input libraries with every attribute
/// read by the layer (`debug_force_vertex_formats`): each pipeline with dynamic vertex input
/// made again at `vkCmdSetVertexInputEXT` or the bind, each link with its
/// pre-rasterization library made again, whatever else the pipeline does (GL's primitive
/// modes on both routes, the unfed inputs' replacement library, conventions, lines).
#[test]
fn every_scene_passes_with_every_attribute_read_by_a_shader_made_again() {
    for path in ["dynamic-state", "libraries"] {
        every_scene_passes_with_setting(path, "VK_GLSEM_DEBUG_FORCE_VERTEX_FORMATS", &[]);
    }
}

/// Every scene through `--pipelines path` under validation with the test-only `setting` on,
/// but `failing`.
fn every_scene_passes_with_setting(path: &str, setting: &str, failing: &[&str]) {
    let all = scenes();
    let out = runner()
        .args(["--validation", "--pipelines", path])
        .args(&all)
        .env("GLSEM_LAYER_LIB", layer_library())
        .env(setting, "on")
        .output()
        .expect("glsem-run runs");
    eprintln!("{path}, {setting}:\n{}", stdout(&out));
    assert_all_pass_but(&out, &all, failing);
}

/// Every scene through pipeline libraries with GL's line rule taken at the link
/// (`debug_force_line_rule_at_link`: the route of drivers without a dynamic line mode,
/// SwiftShader): each link makes its pre-rasterization library again with Bresenham lines
/// where its fragment-output library is single-sampled. Not the stippled scenes
/// (`lines_stipple`, `lines_stipple_loop`, `lines_stipple_elements`): a library gets the diamond-exit rule without the
/// layer's stipple (`choose`), which this route leaves as it is (SwiftShader, whose
/// libraries take the fragment route, draws them stippled).
#[test]
fn every_scene_but_the_stipple_passes_through_libraries_with_the_line_rule_at_the_link() {
    every_scene_passes_with_setting(
        "libraries",
        "VK_GLSEM_DEBUG_FORCE_LINE_RULE_AT_LINK",
        &[
            "lines_stipple",
            "lines_stipple_loop",
            "lines_stipple_elements",
        ],
    );
}

/// The line scenes, and their lines' endpoints that the rasterizer snaps onto a pixel
/// diamond's edge (GL counts them outside): the pixel GL's choice lights or leaves dark there,
/// as the failing probe of a route that decides it the other way reports it.
const LINE_TIES: [(&str, &str); 8] = [
    (
        "lines_diamond_shallow",
        "probe at (0, 2) of attachment 0: expected (0, 0, 0, 1)",
    ),
    (
        "lines_diamond_steep",
        "probe at (2, 0) of attachment 0: expected (0, 0, 0, 1)",
    ),
    (
        "lines_loop",
        "probe at (12, 13) of attachment 0: expected (0, 0, 0, 1)",
    ),
    (
        "lines_wide",
        "probe at (14, 12) of attachment 0: expected (1, 1, 1, 1)",
    ),
    (
        "prim_line_loop_elements",
        "probe at (12, 13) of attachment 0: expected (0, 0, 0, 1)",
    ),
    (
        "prim_line_loop_elements_indirect",
        "probe at (12, 13) of attachment 0: expected (0, 0, 0, 1)",
    ),
    (
        "prim_line_loop_indirect",
        "probe at (12, 13) of attachment 0: expected (0, 0, 0, 1)",
    ),
    (
        "lines_gl_rules",
        "probe at (14, 12) of attachment 0: expected (1, 1, 1, 1)",
    ),
];

/// The scenes that draw lines: `tests/scenes/lines_*`, `prim_line_loop*` and the example.
fn line_scenes() -> Vec<String> {
    let mut lines: Vec<String> = scenes()
        .into_iter()
        .filter(|s| s.contains("/lines_") || s.contains("/prim_line_loop"))
        .collect();
    lines.push("examples/lines_gl_rules.shader_test".into());
    lines
}

/// A fresh folder for the layer's dumped modules (`VK_GLSEM_DUMP_DIR`).
fn dump_dir(name: &str) -> PathBuf {
    let dump =
        std::env::temp_dir().join(format!("glsem-scenes-dump-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dump).unwrap();
    dump
}

/// The layer dumped modules rewritten by the step named `step` into `dump`, and each
/// validates; the folder is removed.
fn assert_emitted_and_valid(dump: &Path, steps: &[&str]) {
    for step in steps {
        let emitted: Vec<PathBuf> = std::fs::read_dir(dump)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().contains(&format!(".{step}.")))
            .collect();
        assert!(!emitted.is_empty(), "the layer ran {step} on some module");
        assert_spirv_valid(&emitted);
    }
    std::fs::remove_dir_all(dump).unwrap();
}

/// Every scene of `scenes` passes but those of `failing`, which fail at their probe.
fn assert_fail_exactly_at(out: &Output, scenes: &[String], failing: &[(&str, &str)]) {
    let names: Vec<&str> = failing.iter().map(|(scene, _)| *scene).collect();
    assert_all_pass_but(out, scenes, &names);
    let report = stdout(out);
    for (scene, probe) in failing {
        assert!(
            report
                .lines()
                .any(|l| l.starts_with("FAIL") && l.contains(scene) && l.contains(probe)),
            "{scene} fails at {probe}:\n{report}"
        );
    }
}

/// GL's line endpoints moved off the diamonds' edges by the layer (`line_endpoints = layer`,
/// the route NVIDIA takes, whose rasterizer counts such an endpoint inside the diamond below
/// its centre): every line scene still passes, through every pipeline path and with a
/// lower-left viewport, and every module the layer emits validates. Turned over
/// (`debug_toward_centre`: the endpoint moved into the diamond), exactly the scenes with an
/// endpoint on an edge fail, at that endpoint's pixel, on every path: the route runs there.
#[test]
fn line_endpoints_on_a_diamonds_edge_are_gls_through_the_layers_route_on_every_path() {
    let lib = layer_library();
    let lines = line_scenes();
    let dump = dump_dir("endpoints");
    let paths: [&[&str]; 4] = [
        &["--pipelines", "whole"],
        &["--pipelines", "whole", "--lower-left"],
        &["--pipelines", "libraries"],
        &["--pipelines", "dynamic-state"],
    ];
    for args in paths {
        for setting in ["layer", "debug_toward_centre"] {
            let out = runner()
                .arg("--validation")
                .args(args)
                .args(&lines)
                .env("GLSEM_LAYER_LIB", &lib)
                .env("VK_GLSEM_DUMP_DIR", &dump)
                .env("VK_GLSEM_LINE_ENDPOINTS", setting)
                .output()
                .expect("glsem-run runs");
            let report = stdout(&out);
            eprintln!("{args:?}, {setting}:\n{report}");
            if setting == "layer" {
                assert_all_pass(&out, &lines);
                continue;
            }
            assert_fail_exactly_at(&out, &lines, &LINE_TIES);
        }
    }
    assert_emitted_and_valid(&dump, &["line_endpoints"]);
}

/// GL's lines by the fragment route (`line_route = fragment`, the route SwiftShader takes),
/// forced on lavapipe: lavapipe's rectangular lines with the fragment shader's diamond-exit
/// test and stipple, and each draw drawn again for the start pixels the rectangles leave out
/// (a segment starting inside a pixel's diamond behind its centre: `lines_loop`'s (13, 3),
/// `lines_stipple`'s (0, 2)) and twice more for the pixels almost half a pixel off a segment
/// (`lines_band_edges`), draw GL's pixels in the line scenes, both viewports, through
/// whole pipelines, libraries (each side of the route in its library, the start pixels by a
/// second link) and dynamic state; a strip's stipple counts on from segment to segment
/// (`lines_stipple`'s (20, 3): its positions captured, counted by the layer's compute
/// shader); wide lines keep the Bresenham route. Every module of the route validates: the
/// fragment test and the vertex shader that captures and reads the counts.
#[test]
fn line_scenes_pass_by_the_fragment_route() {
    let lib = layer_library();
    let lines = line_scenes();
    let dump = dump_dir("fragment-lines");
    let paths = [
        &[][..],
        &["--lower-left"][..],
        &["--pipelines", "libraries"][..],
        &[
            "--pipelines",
            "libraries",
            "--independent-sets",
            "--lower-left",
        ][..],
        &["--pipelines", "dynamic-state"][..],
    ];
    for path in paths {
        let out = runner()
            .arg("--validation")
            .args(path)
            .args(&lines)
            .env("GLSEM_LAYER_LIB", &lib)
            .env("VK_GLSEM_DUMP_DIR", &dump)
            .env("VK_GLSEM_LINE_ROUTE", "fragment")
            .output()
            .expect("glsem-run runs");
        let report = stdout(&out);
        eprintln!("{path:?}:\n{report}");
        assert_all_pass(&out, &lines);
    }
    assert_emitted_and_valid(&dump, &["line_fragments", "line_rasterization"]);
}

/// GL's quads, quad strips and polygons through libraries on a device that takes the
/// fragment line route (forced on lavapipe): the pre-rasterization library writes the
/// route's varyings at the Locations below the device's last for a fragment-shader library,
/// past what lavapipe's geometry shader may read (16 Locations), and the geometry shader
/// the layer generates writes them itself (its lines are not on the route) instead of
/// failing the pipeline.
#[test]
fn prim_scenes_pass_through_libraries_on_the_fragment_line_route() {
    let prim: Vec<String> = scenes()
        .into_iter()
        .filter(|s| s.contains("/prim_"))
        .collect();
    let out = runner()
        .args(["--validation", "--pipelines", "libraries"])
        .args(&prim)
        .env("GLSEM_LAYER_LIB", layer_library())
        .env("VK_GLSEM_LINE_ROUTE", "fragment")
        .output()
        .expect("glsem-run runs");
    eprintln!("{}", stdout(&out));
    assert_all_pass_but(&out, &prim, &[]);
}

/// The `prim_*` scene that fails on the index route through libraries: a fragment shader
/// library reading `gl_PrimitiveID` reads the list's (docs/semantics.md, "primitive_mode":
/// the fragment library cannot know the mode; on a device without `geometryShader`, which
/// takes that route, such a shader cannot be made at all).
const NOT_ON_THE_INDEX_ROUTE_IN_LIBRARIES: [&str; 1] = ["prim_primitive_id"];

/// The `prim_*` scenes with GL's quads, quad strips and polygons drawn without a geometry
/// shader (`primitive_mode_route = indices`, what a device without `geometryShader` gets),
/// through whole pipelines and libraries, under validation, indexed, indirect and restarted
/// draws included (converted on the GPU: none is skipped); every module the layer emits
/// validates.
#[test]
fn prim_scenes_pass_on_the_index_route() {
    let lib = layer_library();
    let dump =
        std::env::temp_dir().join(format!("glsem-scenes-dump-{}-indices", std::process::id()));
    std::fs::create_dir_all(&dump).unwrap();
    let prim: Vec<String> = scenes()
        .into_iter()
        .filter(|s| s.contains("/prim_"))
        .collect();
    for (path, limits) in [
        ("whole", &[][..]),
        ("libraries", &NOT_ON_THE_INDEX_ROUTE_IN_LIBRARIES[..]),
    ] {
        let out = runner()
            .args(["--validation", "--pipelines", path])
            .args(&prim)
            .env("GLSEM_LAYER_LIB", &lib)
            .env("VK_GLSEM_DUMP_DIR", &dump)
            .env("VK_GLSEM_PRIMITIVE_MODE_ROUTE", "indices")
            .output()
            .expect("glsem-run runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!("index route, {path}:\n{}{stderr}", stdout(&out));
        assert_all_pass_but(&out, &prim, limits);
        assert!(
            !stderr.contains("GL_QUADS, GL_QUAD_STRIP or GL_POLYGON without a geometry shader"),
            "no draw is skipped ({path})"
        );
    }
    let emitted: Vec<PathBuf> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".orig.spv"))
        .collect();
    assert!(
        !emitted
            .iter()
            .any(|p| p.to_string_lossy().ends_with(".gs.spv")),
        "no geometry shader on the index route"
    );
    assert_spirv_valid(&emitted);
    std::fs::remove_dir_all(&dump).unwrap();
}

/// `gl_InstanceID` through the route of devices without `shaderDrawParameters`
/// (`debug_force_instance_base_block`): the base instance comes from the GL-state block,
/// pushed at each direct draw; an indirect draw of a pipeline without instance-rate
/// attributes goes down from the layer's copy of its commands with `firstInstance` 0 (the
/// block's base pushed as 0), so every scene passes, the indirect ones included, with
/// libraries and dynamic state too (the vertex input read from the vertex-input library, or
/// the last `vkCmdSetVertexInputEXT`).
#[test]
fn instance_scenes_pass_with_the_base_instance_from_the_block() {
    let lib = layer_library();
    let list: Vec<String> = scenes()
        .into_iter()
        .filter(|s| s.contains("/gl_defined_instance_id") || s.contains("/prim_quads_instanced"))
        .collect();
    assert_eq!(list.len(), 3, "{list:?}");
    for path in ["whole", "libraries", "dynamic-state"] {
        let out = runner()
            .args(["--validation", "--pipelines", path])
            .args(&list)
            .env("GLSEM_LAYER_LIB", &lib)
            .env("VK_GLSEM_DEBUG_FORCE_INSTANCE_BASE_BLOCK", "on")
            .env("VK_GLSEM_LOG_LEVEL", "info")
            .output()
            .expect("glsem-run runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprintln!("{path}:\n{}{stderr}", stdout(&out));
        assert_all_pass_but(&out, &list, &[]);
        assert!(
            stderr.contains("which the layer pushes at each draw"),
            "{path}: the block route is taken"
        );
        assert!(
            !stderr.contains("an indirect draw's firstInstance is read by the GPU"),
            "{path}: the indirect draws' base instance is excluded"
        );
    }
}

/// The vertex-format scenes (every column type the runner reads, 1–4 components) through
/// the layer with `debug_force_vertex_formats`: the `vertex_formats` rewrite reads every
/// attribute on lavapipe, which has most of those formats, and every module it emits passes
/// `spirv-val`. The scenes' expected values are GL's, written in the scenes.
#[test]
fn vertex_format_scenes_pass_with_the_layer_reading_every_format_itself() {
    let lib = layer_library();
    let dump = std::env::temp_dir().join(format!("glsem-vertex-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dump).unwrap();
    let list: Vec<String> = scenes()
        .into_iter()
        .filter(|s| s.contains("/vertex_formats_") || s.contains("/runner_vertex_"))
        .collect();
    assert!(list.len() >= 5, "{list:?}");
    let out = runner()
        .arg("--validation")
        .args(&list)
        .env("GLSEM_LAYER_LIB", &lib)
        .env("VK_GLSEM_DUMP_DIR", &dump)
        .env("VK_GLSEM_DEBUG_FORCE_VERTEX_FORMATS", "on")
        .output()
        .expect("glsem-run runs");
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    assert_all_pass(&out, &list);
    let emitted: Vec<PathBuf> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".vertex_formats.spv"))
        .collect();
    assert!(emitted.len() >= list.len(), "{emitted:?}");
    assert_spirv_valid(&emitted);
    std::fs::remove_dir_all(&dump).unwrap();
}

/// Every module in `emitted` passes `spirv-val`.
fn assert_spirv_valid(emitted: &[PathBuf]) {
    for module in emitted {
        let val = Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3"])
            .arg(module)
            .output()
            .expect("spirv-val (spirv-tools) is installed");
        assert!(
            val.status.success(),
            "spirv-val rejects {}: {}",
            module.display(),
            String::from_utf8_lossy(&val.stderr)
        );
    }
}

/// Runs every scene through the layer with `args` and checks what it emits. The scenes
/// named in `failing` must fail.
fn every_scene_passes_through_the_layer(args: &[&str], failing: &[&str]) {
    let lib = layer_library();
    let dump = std::env::temp_dir().join(format!(
        "glsem-scenes-dump-{}{}",
        std::process::id(),
        args.join("")
    ));
    std::fs::create_dir_all(&dump).unwrap();
    let all = scenes();
    let out = runner()
        .arg("--validation")
        .args(args)
        .args(&all)
        .env("GLSEM_LAYER_LIB", &lib)
        .env("VK_GLSEM_DUMP_DIR", &dump)
        .output()
        .expect("glsem-run runs");
    eprintln!(
        "with the layer {}:\n{}{}",
        lib.display(),
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_all_pass_but(&out, &all, failing);

    // The layer writes `<hash>.orig.spv` for what it sees and `<hash>.<pass>.spv` for what
    // it emits; every emitted module must be valid SPIR-V for Vulkan.
    let mut emitted: Vec<PathBuf> = std::fs::read_dir(&dump)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.to_string_lossy().ends_with(".orig.spv"))
        .collect();
    emitted.sort();
    // Under a dynamic sample count no pipeline drops gl_SampleMask (not followed yet).
    let dynamic_samples = args.contains(&"dynamic-state");
    for pass in [
        "fragcolor",
        "xfb_split",
        "xfb_split_inputs",
        "passthrough_tcs",
        "point_size",
        // Not "unfed_inputs": with VK_GLSEM_gl_state (always on here) the layer feeds unfed
        // inputs from its own binding and leaves the module as it is.
        "instance_id",
        "gl_layer",
        "sample_mask",
        "window_y",
        // Doubles: lavapipe has no R64* vertex formats (checked through whole pipelines).
        "vertex_formats",
    ]
    .into_iter()
    .filter(|pass| !(dynamic_samples && *pass == "sample_mask"))
    .filter(|pass| !(args.contains(&"--pipelines") && *pass == "vertex_formats"))
    {
        assert!(
            emitted
                .iter()
                .any(|p| p.to_string_lossy().ends_with(&format!(".{pass}.spv"))),
            "the scenes exercise the {pass} pass"
        );
    }
    assert_spirv_valid(&emitted);
    std::fs::remove_dir_all(&dump).unwrap();
}

/// What the layer fixes is broken on plain Vulkan: without glsem, every gl_FragColor
/// broadcast scene leaves attachments above 0 without the colour, and every TES-without-TCS
/// scene is an invalid pipeline. (The gl_FragData control defines attachment 0 only and
/// passes either way; lavapipe already captures XFB structs as GL does.) The GL-state
/// scenes (`points_*`, `gl_state_*`: point size, clip-distance enables, provoking vertex,
/// clip-space depth) get plain Vulkan's rules there instead of GL's. Of the GL-defined
/// inputs and outputs (`gl_defined_*`), an unfed vertex input is an invalid pipeline and
/// gl_InstanceID / gl_SampleMask draw the wrong picture; a geometry shader's gl_Layer on a
/// one-layer target is undefined in Vulkan, and lavapipe happens to draw it as GL does (the
/// fragment shader reading the layer as written, too), so those scenes are not listed here. The `lines_*` scenes get Vulkan's rectangular lines
/// instead of GL's diamond-exit rule. The `prim_*` scenes (GL's primitive modes, which the
/// runner draws only through the layer's API) get plain topologies: quads, quad strips and
/// polygons a triangle strip through their vertices, line loops an open line strip.
#[test]
fn scenes_that_need_the_layer_fail_without_it() {
    let needs_layer: Vec<String> = scenes()
        .into_iter()
        .filter(|s| {
            (s.contains("/fragcolor_") && !s.contains("fragdata_control"))
                || s.contains("/tess_")
                || s.contains("/points_")
                || s.contains("/gl_state_")
                || (s.contains("/gl_defined_") && !s.contains("/gl_defined_layer_"))
                || s.contains("/lines_")
                || s.contains("/prim_")
                || s.contains("/vertex_formats_double")
                || s.contains("/vertex_formats_unaligned")
                || s.contains("/vertex_formats_halfword")
        })
        .collect();
    assert!(needs_layer.len() >= 20, "{needs_layer:?}");
    let mut args = vec!["--no-layer", "--validation"];
    args.extend(needs_layer.iter().map(String::as_str));
    let out = run(&args);
    let text = stdout(&out);
    for (line, scene) in text.lines().zip(&needs_layer) {
        assert!(
            line.starts_with(&format!("FAIL {scene}: ")),
            "passes without the layer: {line}"
        );
        if scene.contains("/tess_") {
            assert!(
                line.contains("VUID-VkGraphicsPipelineCreateInfo-pStages-00730"),
                "{line}"
            );
        } else if scene.contains("/points_") {
            // A last stage without gl_PointSize is invalid for points on plain Vulkan (VS:
            // Vertex-07722; a TES without TCS is invalid anyway).
            assert!(
                line.contains("probe at")
                    || line.contains("VUID-VkGraphicsPipelineCreateInfo-Vertex-07722")
                    || line.contains("VUID-VkGraphicsPipelineCreateInfo-pStages-00730"),
                "{line}"
            );
        } else if scene.contains("/vertex_formats_unaligned") {
            // Tightly packed: attributes Vulkan cannot fetch where GL reads them.
            assert!(line.contains("VUID-vkCmdDraw-None-02721"), "{line}");
        } else if scene.contains("/vertex_formats_") {
            // lavapipe has no R64* vertex formats.
            assert!(
                line.contains("VUID-VkVertexInputAttributeDescription-format-00623"),
                "{line}"
            );
        } else if scene.contains("unfed_inputs") || scene.contains("vertex_attrib") {
            assert!(line.contains("Vertex shader consumes input"), "{line}");
        } else if scene.contains("/prim_") {
            // Drawn, not refused: the probes show plain Vulkan's topology, and the message
            // says which one was drawn.
            assert!(line.contains("probe at"), "a probe catches it: {line}");
            assert!(line.contains("open line strip"), "{line}");
        } else {
            assert!(line.contains("probe at"), "a probe catches it: {line}");
        }
    }
    assert_eq!(
        text.lines().last(),
        Some(format!("0 passed, {} failed, 0 skipped", needs_layer.len()).as_str())
    );
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
fn help_prints_the_usage_and_exits_0() {
    for flag in ["--help", "-h"] {
        let out = run(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        let text = stdout(&out);
        assert!(text.starts_with("usage: glsem-run"), "{flag}: {text}");
        assert!(text.contains("--no-layer"), "{flag}: {text}");
    }
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
        bad("too_many_attributes"),
    ];
    let mut args = vec!["--no-layer"];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(out.status.code(), Some(1), "{text}");
    // Line `i` of the report starts with `verdict`, then the file's name and `why`.
    let says = |i: usize, verdict: &str, why: &str| {
        let start = format!("{verdict} {}: {why}", files[i]);
        assert!(lines[i].starts_with(&start), "{text}");
    };
    // `clear color 0.0 0.5 1.O 1.0` is line 11.
    says(0, "FAIL", "line 11: malformed number `1.O`");
    says(1, "SKIP", "line 12: unknown command: `enable GL_BLEND`");
    says(2, "FAIL", "GLSL error in the fragment shader");
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
    says(
        5,
        "SKIP",
        "`patch parameter default level` needs vkCmdSetTessellationDefaultLevelsGLSEM",
    );
    // 33 attribute Locations: past every device's limit, as GL's link is past
    // GL_MAX_VERTEX_ATTRIBS.
    says(6, "SKIP", "");
    assert!(
        lines[6].ends_with(
            "has maxVertexInputAttributes 32, the vertex shader reads 33 attribute Locations"
        ),
        "{text}"
    );
    assert_eq!(lines[7], "0 passed, 4 failed, 3 skipped");
}

/// GL ES scenes in GLSL ES 1.00 and 3.00, which glslang compiles only as 3.10, pass on
/// plain Vulkan and through the layer; framebuffer fetch SKIPs naming why.
#[test]
fn gles_scenes_pass_as_gl_es_runs_them() {
    let scenes = [
        "tests/scenes/runner_gles_1_00.shader_test".to_string(),
        "tests/scenes/runner_gles_3_00.shader_test".to_string(),
    ];
    let lib = layer_library();
    for layer in [&["--no-layer"][..], &[]] {
        let out = runner()
            .arg("--validation")
            .args(layer)
            .args(&scenes)
            .env("GLSEM_LAYER_LIB", &lib)
            .output()
            .expect("glsem-run runs");
        assert_all_pass(&out, &scenes);
        assert!(!stdout(&out).contains("SKIP"), "{}", stdout(&out));
    }
    let fetch = bad("framebuffer_fetch");
    let out = run(&["--no-layer", &fetch]);
    assert!(
        stdout(&out).starts_with(&format!(
            "SKIP {fetch}: line 5: framebuffer fetch (a fragment shader reading the colour"
        )),
        "{}",
        stdout(&out)
    );
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
    // Top-left pixel (GL y = 249, x = 0): drawn (1, 0, 0.5, 1). 0.5 × 255 = 127.5 is a tie
    // that Vulkan lets implementations round either way (lavapipe: 128, NVIDIA: 127).
    let top_left = &buf[0..4];
    assert!(
        top_left == [255, 0, 128, 255] || top_left == [255, 0, 127, 255],
        "{top_left:?}"
    );
    // Top-right pixel: the clear colour (0.2, 0.4, 0.6, 1).
    let right = (249 * 4) as usize;
    assert_eq!(&buf[right..right + 4], &[51, 102, 153, 255]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// GL's window coordinates are the layer's (`window_origin`): without it, a flipped
/// viewport (the default) turns `gl_FragCoord`, `dFdy` and the TES winding over, and the
/// sprite origin command is not applied; a positive viewport (`--lower-left`) turns the
/// winding (culling, `gl_FrontFacing`) and `gl_PointCoord` over.
#[test]
fn window_scenes_fail_without_the_layer_where_the_viewport_turns_them_over() {
    let fails = |viewport: &[&str], names: &[&str]| {
        let list: Vec<String> = names
            .iter()
            .map(|n| format!("tests/scenes/window_{n}.shader_test"))
            .collect();
        let mut args = vec!["--no-layer", "--validation"];
        args.extend_from_slice(viewport);
        args.extend(list.iter().map(String::as_str));
        let text = stdout(&run(&args));
        for (line, scene) in text.lines().zip(&list) {
            assert!(
                line.starts_with(&format!("FAIL {scene}: ")) && line.contains("probe at"),
                "{viewport:?}: a probe must catch it without the layer: {line}"
            );
        }
        assert_eq!(text.lines().count(), list.len() + 1, "{text}");
    };
    fails(
        &[],
        &["frag_coord", "dfdy", "tess_ccw", "tess_cw", "point_coord"],
    );
    fails(
        &["--lower-left"],
        &["cull_face", "front_facing", "point_coord"],
    );
}

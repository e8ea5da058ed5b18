#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
//! `glsem-run`: runs GL shader tests (piglit `shader_test` scenes) on Vulkan through the
//! glsem layer. The command line and the scene format are specified in `docs/scene-format.md`.

mod compat;
mod extension_fixes;
mod fixes;
mod gles;
mod glsl;
mod implicit_arrays;
mod initializers;
mod layer;
mod player;
mod probe;
mod rect_textures;
mod report;
mod scene;
mod vk;
mod window;

use std::ffi::c_char;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use report::{Outcome, Summary};

const USAGE: &str =
    "usage: glsem-run [--no-layer] [--lower-left] [--pipelines PATH [--independent-sets]] [--piglit] [--png DIR] [--json] [--validation|--no-validation] FILE...\n       glsem-run --window [--no-layer] [--lower-left] [--validation|--no-validation] FILE";

struct Args {
    layer: bool,
    validation: bool,
    json: bool,
    png_dir: Option<PathBuf>,
    window: bool,
    piglit: bool,
    /// `--lower-left`: draw with a positive viewport (GL's row order) instead of a flipped one.
    lower_left: bool,
    /// `--pipelines`, `--independent-sets`.
    pipelines: vk::pipeline::Path,
    files: Vec<PathBuf>,
}

const HELP: &str = "\
Runs GL shader tests (piglit shader_test scenes) on Vulkan through the glsem layer.

options:
  --no-layer        plain Vulkan, without glsem (shows what the layer changes)
  --piglit          piglit shader_runner's defaults where they differ from the scene format
  --pipelines PATH  how graphics pipelines are built: whole (the default), libraries
                    (VK_EXT_graphics_pipeline_library: four libraries, linked),
                    libraries-lto (linked with LINK_TIME_OPTIMIZATION), shader-objects
                    (VK_EXT_shader_object, all state dynamic) or dynamic-state (whole
                    pipelines with every dynamic state of VK_EXT_extended_dynamic_state
                    1-3 and VK_EXT_vertex_input_dynamic_state the device has, set after
                    each bind); a device without the extension SKIPs every scene
  --independent-sets  with --pipelines libraries[-lto]: the pipeline layout and the
                    libraries use INDEPENDENT_SETS
  --png DIR         write every colour attachment as DIR/<scene>-att<N>.png
  --json            one JSON object per scene instead of PASS/FAIL/SKIP lines
  --validation      enable VK_LAYER_KHRONOS_validation (the default); errors fail the scene
  --no-validation   run without the validation layer
  --window          show one scene in a window
  -h, --help        print this help

Exit status: 0 when nothing failed, 1 when a scene failed, 2 for bad usage.";

/// What the command line asks for: scenes to run, or the help.
enum Command {
    Run(Args),
    Help,
}

fn parse_args() -> Result<Command, String> {
    let mut args = Args {
        layer: true,
        validation: true,
        json: false,
        png_dir: None,
        window: false,
        piglit: false,
        lower_left: false,
        pipelines: vk::pipeline::Path::Whole,
        files: Vec::new(),
    };
    let mut pipelines = "whole".to_string();
    let mut independent_sets = false;
    let mut it = std::env::args_os().skip(1);
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(Command::Help),
            Some("--no-layer") => args.layer = false,
            Some("--validation") => args.validation = true,
            Some("--no-validation") => args.validation = false,
            Some("--json") => args.json = true,
            Some("--window") => args.window = true,
            Some("--piglit") => args.piglit = true,
            Some("--lower-left") => args.lower_left = true,
            Some("--pipelines") => {
                pipelines = it
                    .next()
                    .and_then(|p| p.into_string().ok())
                    .ok_or("--pipelines needs whole, libraries, libraries-lto or shader-objects")?
            }
            Some("--independent-sets") => independent_sets = true,
            Some("--png") => {
                args.png_dir = Some(it.next().ok_or("--png needs a directory")?.into())
            }
            Some(flag) if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => args.files.push(arg.into()),
        }
    }
    args.pipelines = vk::pipeline::Path::parse(&pipelines, independent_sets)?;
    if args.files.is_empty() {
        return Err("no scene files given".into());
    }
    if args.window && args.files.len() != 1 {
        return Err("--window shows one scene file".into());
    }
    if let Some(missing) = args.files.iter().find(|f| !f.is_file()) {
        return Err(format!("{}: no such file", missing.display()));
    }
    Ok(Command::Run(args))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Command::Run(args)) => args,
        Ok(Command::Help) => {
            println!("{USAGE}\n\n{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("glsem-run: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let work_dir = std::env::temp_dir().join(format!("glsem-run-{}", std::process::id()));
    let result = if args.window {
        show(&args, &work_dir)
    } else {
        run(&args, &work_dir)
    };
    let code = match result {
        Ok(summary) if summary.failed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(e) => {
            eprintln!("glsem-run: {e}");
            ExitCode::from(2)
        }
    };
    let _ = std::fs::remove_dir_all(&work_dir);
    code
}

/// Why the run could not start.
#[derive(Debug, thiserror::Error)]
enum SetupError {
    #[error("cannot create {}: {source}", path.display())]
    WorkDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Layer(#[from] layer::LayerError),
    #[error(transparent)]
    Glslang(#[from] glsl::GlslangError),
    #[error(transparent)]
    Vulkan(#[from] vk::VkError),
}

/// Sets up the loader, glslang and the instance (with `extensions`) once.
fn setup(
    args: &Args,
    work_dir: &std::path::Path,
    extensions: &[*const c_char],
) -> Result<(vk::Vulkan, glsl::Compiler), SetupError> {
    std::fs::create_dir_all(work_dir).map_err(|source| SetupError::WorkDir {
        path: work_dir.to_path_buf(),
        source,
    })?;
    if args.layer {
        let library = layer::find_library()?;
        // Before libvulkan is loaded: the loader reads VK_ADD_LAYER_PATH once.
        layer::install_manifest(&library, &work_dir.join("layer"))?;
        // The layer gives GL's window coordinates for the viewport the runner draws with.
        let origin = if args.lower_left {
            "lower_left"
        } else {
            "flipped"
        };
        std::env::set_var(layer::WINDOW_ORIGIN_ENV, origin);
    }
    let glslang = glsl::find_glslang()?;
    let limits = glsl::write_limits_file(&glslang, work_dir)?;
    let compiler = glsl::Compiler {
        glslang,
        limits,
        dir: work_dir.to_path_buf(),
    };
    let mut vulkan = vk::Vulkan::new(args.layer, args.validation, extensions)?;
    vulkan.lower_left = args.lower_left;
    vulkan.pipelines = args.pipelines;
    Ok((vulkan, compiler))
}

fn options(args: &Args) -> player::Options {
    player::Options {
        png_dir: args.png_dir.clone(),
        present: args.window,
        piglit: args.piglit,
    }
}

/// Prints one scene's result the way the command line asked for.
fn report(args: &Args, file: &std::path::Path, outcome: &Outcome, device: Option<&str>) {
    if args.json {
        say(&report::json(file, outcome, args.layer, device));
    } else {
        say(&report::line(file, outcome));
    }
}

/// `--window`: shows the one scene until the window closes; the summary is its last run.
fn show(args: &Args, work_dir: &std::path::Path) -> Result<Summary, SetupError> {
    let file = &args.files[0];
    let outcome = window::show(
        file,
        &options(args),
        &|outcome, device| report(args, file, outcome, device),
        |extensions| setup(args, work_dir, extensions),
    )?;
    let mut summary = Summary::default();
    summary.add(&outcome);
    Ok(summary)
}

/// Runs every scene, headless.
fn run(args: &Args, work_dir: &std::path::Path) -> Result<Summary, SetupError> {
    let (vulkan, compiler) = setup(args, work_dir, &[])?;
    let options = options(args);

    let mut summary = Summary::default();
    for file in &args.files {
        let (outcome, device) = catch_unwind(AssertUnwindSafe(|| {
            player::run(&vulkan, &compiler, file, &options)
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            (
                Outcome::Fail(format!("internal error in glsem-run: {what}")),
                None,
            )
        });
        summary.add(&outcome);
        report(args, file, &outcome, device.as_deref());
    }
    if args.json {
        // stdout stays one JSON object per line; the summary goes to stderr.
        eprintln!("{}", summary.line());
    } else {
        say(&summary.line());
    }
    Ok(summary)
}

/// Prints one result line; a closed stdout (`glsem-run … | head`) is not an error.
fn say(line: &str) {
    let _ = writeln!(std::io::stdout(), "{line}");
}

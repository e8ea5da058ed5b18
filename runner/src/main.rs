//! `glsem-run`: runs GL shader tests (piglit `shader_test` scenes) on Vulkan through the
//! glsem layer. The command line and the scene format are specified in `shared/SCENES.md`.

mod glsl;
mod layer;
mod player;
mod probe;
mod report;
mod scene;
mod vk;

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use report::{Outcome, Summary};

const USAGE: &str =
    "usage: glsem-run [--no-layer] [--png DIR] [--json] [--validation|--no-validation] FILE...";

struct Args {
    layer: bool,
    validation: bool,
    json: bool,
    png_dir: Option<PathBuf>,
    files: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        layer: true,
        validation: true,
        json: false,
        png_dir: None,
        files: Vec::new(),
    };
    let mut it = std::env::args_os().skip(1);
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--no-layer") => args.layer = false,
            Some("--validation") => args.validation = true,
            Some("--no-validation") => args.validation = false,
            Some("--json") => args.json = true,
            Some("--png") => {
                args.png_dir = Some(it.next().ok_or("--png needs a directory")?.into())
            }
            Some(flag) if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => args.files.push(arg.into()),
        }
    }
    if args.files.is_empty() {
        return Err("no scene files given".into());
    }
    if let Some(missing) = args.files.iter().find(|f| !f.is_file()) {
        return Err(format!("{}: no such file", missing.display()));
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("glsem-run: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let work_dir = std::env::temp_dir().join(format!("glsem-run-{}", std::process::id()));
    let code = match run(&args, &work_dir) {
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

/// Sets up the loader, glslang and the instance once, then runs every scene.
fn run(args: &Args, work_dir: &std::path::Path) -> Result<Summary, String> {
    std::fs::create_dir_all(work_dir)
        .map_err(|e| format!("cannot create {}: {e}", work_dir.display()))?;
    if args.layer {
        let library = layer::find_library()?;
        // Before libvulkan is loaded: the loader reads VK_ADD_LAYER_PATH once.
        layer::install_manifest(&library, &work_dir.join("layer"))?;
    }
    let glslang = glsl::find_glslang()?;
    let limits = glsl::write_limits_file(&glslang, work_dir)?;
    let compiler = glsl::Compiler {
        glslang,
        limits,
        dir: work_dir.to_path_buf(),
    };
    let vulkan = vk::Vulkan::new(args.layer, args.validation)?;
    let options = player::Options {
        png_dir: args.png_dir.clone(),
    };

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
        if args.json {
            say(&report::json(file, &outcome, args.layer, device.as_deref()));
        } else {
            say(&report::line(file, &outcome));
        }
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

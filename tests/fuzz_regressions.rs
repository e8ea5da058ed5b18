//! Fuzzing regressions and malformed SPIR-V (issue 8).
//!
//! Every file under `tests/fuzz/` goes through the same invariants as the fuzz targets
//! (`fuzz/src/lib.rs`, included below): the committed seed corpus (`seeds/<target>/`), the
//! inputs that once broke a target (`<target>/crash-*.bin`), and the malformed modules of
//! `malformed/` (README.md there says what each one is). Pass outputs from inputs that
//! spirv-val accepts must pass spirv-val too.
//!
//! `spirv_val_sample` (ignored; `scripts/fuzz.sh sample`) does the spirv-val check on a
//! sample of a fuzzing corpus.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod invariants;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use glsem_spirv::module::{Editor, Module, ParseError};
use glsem_spirv::scan::scan;
use invariants::{check, validation_failures, words_of, Container, Produced, TARGETS};
use spirv::ExecutionModel;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz")
}

/// The files of `dir` with extension `ext` (any when `None`), sorted; none when it is absent.
fn files(dir: &Path, ext: Option<&str>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.is_file())
        .filter(|p| ext.is_none_or(|ext| p.extension().is_some_and(|e| e == ext)))
        .collect();
    files.sort();
    files
}

/// A hang is a finding too: libFuzzer reports inputs slower than 10 s as timeouts.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Runs `target`'s invariants on `data` in a thread; `Err` says what broke.
///
/// A stack overflow aborts the whole test binary; `--nocapture` shows the input it was on.
fn run_guarded(target: &'static str, name: &str, data: Vec<u8>) -> Result<Vec<Produced>, String> {
    eprintln!("fuzz_regressions: {target} {name}");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(|| check(target, &data));
        let _ = tx.send(result.map_err(|payload| {
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into())
        }));
    });
    rx.recv_timeout(TIMEOUT)
        .map_err(|_| format!("no result after {TIMEOUT:?} (hang)"))?
}

/// Runs `target` on every input and returns one line per broken invariant, spirv-val
/// failures included.
fn failures(target: &'static str, inputs: &[(String, Vec<u8>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, data) in inputs {
        match run_guarded(target, name, data.clone()) {
            Ok(produced) => out.extend(
                validation_failures(&produced)
                    .into_iter()
                    .map(|e| format!("{target} {name}: {e}")),
            ),
            Err(e) => out.push(format!("{target} {name}: {e}")),
        }
    }
    out
}

fn read_all(paths: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    paths
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).expect("readable")))
        .collect()
}

#[test]
fn container_round_trips() {
    let c = Container {
        key: [3, 0, 1, 2, 0x80, 0, 0, 7],
        modules: vec![vec![0x0723_0203, 1, 2], vec![], vec![9]],
    };
    assert_eq!(Container::unpack(&c.pack()), c);
    // A word count past the end takes what is left; a partial word is dropped.
    let mut bytes = c.key.to_vec();
    bytes.extend_from_slice(&100u32.to_le_bytes());
    bytes.extend_from_slice(&[1, 0, 0, 0, 2, 0]);
    assert_eq!(Container::unpack(&bytes).modules, vec![vec![1]]);
}

/// The seeds are valid modules compiled from tests/fuzz/glsl: every target must accept
/// them, and every module a pass makes from them must pass spirv-val.
#[test]
fn seed_corpus_holds_the_invariants() {
    let mut broken = Vec::new();
    for target in TARGETS {
        let seeds = files(&fuzz_dir().join("seeds").join(target), None);
        assert!(
            !seeds.is_empty(),
            "no seeds for {target}: run scripts/fuzz.sh committed"
        );
        broken.extend(failures(target, &read_all(&seeds)));
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Inputs that once broke a fuzz target, kept as `tests/fuzz/<target>/crash-*.bin`.
#[test]
fn fuzz_findings_stay_fixed() {
    let mut broken = Vec::new();
    for target in TARGETS {
        let found = files(&fuzz_dir().join(target), None);
        broken.extend(failures(target, &read_all(&found)));
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

fn malformed(name: &str) -> Vec<u32> {
    let path = fuzz_dir().join("malformed").join(name);
    words_of(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// One malformed module as the input of every target: the module alone for scan and
/// module_parse; for the passes, the module in every stage slot, with keys that make each
/// pass want to run (three float attachments, six output vertices, every stage present).
fn as_every_target(module: &[u32]) -> Vec<(&'static str, Vec<u8>)> {
    let bytes: Vec<u8> = module.iter().flat_map(|w| w.to_le_bytes()).collect();
    let container = |key: [u8; 8], n: usize| {
        Container {
            key,
            modules: vec![module.to_vec(); n],
        }
        .pack()
    };
    vec![
        ("scan", bytes.clone()),
        ("module_parse", bytes),
        ("fragcolor", container([3, 0, 1, 2, 0, 0, 0, 0], 1)),
        ("xfb_split", container([0; 8], 2)),
        ("passthrough_tcs", container([0, 5, 26, 0, 0, 0, 0, 0], 2)),
        // TES, GS, FS after the VS; OutputVertices 3; three attachments.
        ("planner_chain", container([0x2e, 3, 0, 1, 2, 0, 0, 0], 4)),
    ]
}

/// No malformed module panics or hangs any target, and what a pass makes of the valid
/// ones passes spirv-val.
#[test]
fn malformed_modules_survive_every_target() {
    let paths = files(&fuzz_dir().join("malformed"), Some("spv"));
    assert!(paths.len() >= 20, "tests/fuzz/malformed/*.spv are missing");
    let mut broken = Vec::new();
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (target, data) in as_every_target(&malformed(&name)) {
            broken.extend(failures(target, &[(name.clone(), data)]));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The structurally broken modules are refused by Module::parse with the reason each one
/// was made for, so no pass can produce a module from them.
#[test]
fn malformed_modules_are_refused_for_their_reason() {
    type Expect = fn(&ParseError) -> bool;
    let cases: &[(&str, Expect)] = &[
        ("empty.spv", |e| *e == ParseError::TooShort),
        ("short_header.spv", |e| *e == ParseError::TooShort),
        ("bad_magic.spv", |e| *e == ParseError::BadMagic(0xDEAD_BEEF)),
        // The file's bytes in the other byte order: the layer gets host-order words.
        ("big_endian.spv", |e| {
            *e == ParseError::BadMagic(0x0302_2307)
        }),
        ("random_words.spv", |e| matches!(e, ParseError::BadMagic(_))),
        ("bound_zero.spv", |e| *e == ParseError::BadBound(0)),
        ("bound_huge.spv", |e| *e == ParseError::BadBound(u32::MAX)),
        ("bound_too_small.spv", |e| {
            matches!(e, ParseError::IdOutOfBound { .. })
        }),
        ("zero_word_count.spv", |e| {
            matches!(e, ParseError::BadInstruction { .. })
        }),
        ("truncated_mid_instruction.spv", |e| {
            matches!(e, ParseError::BadInstruction { .. })
        }),
        ("word_count_past_end.spv", |e| {
            matches!(e, ParseError::BadInstruction { .. })
        }),
        ("trailing_garbage.spv", |e| {
            matches!(e, ParseError::BadInstruction { .. })
        }),
        ("out_of_layout_order.spv", |e| {
            matches!(e, ParseError::OutOfOrder { .. })
        }),
    ];
    for (name, expect) in cases {
        let words = malformed(name);
        match Module::parse(&words) {
            Ok(_) => panic!("{name}: Module::parse accepted it"),
            Err(e) => assert!(expect(&e), "{name}: refused for another reason: {e}"),
        }
    }
    // The scan reads only up to the first OpFunction: damage before it makes the module
    // unreadable, damage after it is the parser's (and the passes') business.
    for name in [
        "empty.spv",
        "bad_magic.spv",
        "bound_zero.spv",
        "zero_word_count.spv",
    ] {
        assert!(!scan(&malformed(name)).readable, "{name}: scan read it");
    }
    for name in ["word_count_past_end.spv", "trailing_garbage.spv"] {
        let summary = scan(&malformed(name));
        assert!(
            summary.readable && summary.frag_color,
            "{name}: {summary:?}"
        );
    }
}

/// Valid modules that rspirv's `dr` loader rejects (docs/reliability.md): the word-level code must
/// still read them, copy them word for word, and either rewrite them into modules that
/// pass spirv-val or leave them alone.
#[test]
fn rspirv_rejected_modules_are_handled_at_word_level() {
    let cases = [
        ("fragcolor_exec_mode_id.spv", "OpExecutionModeId"),
        (
            "fragcolor_debuginfo.spv",
            "module-scope DebugInfo OpExtInst",
        ),
        ("tes_debuginfo.spv", "module-scope DebugInfo OpExtInst"),
        ("xfb_debuginfo.spv", "module-scope DebugInfo OpExtInst"),
    ];
    for (name, why) in cases {
        let words = malformed(name);
        invariants::spirv_val(&words).unwrap_or_else(|e| panic!("{name} is not valid: {e}"));
        assert!(
            rspirv::dr::load_words(&words).is_err(),
            "{name}: rspirv now loads it ({why}); the case no longer shows a rejected module"
        );
        let module = Module::parse(&words).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            Editor::new(&module).finish(),
            Ok(words.clone()),
            "{name}: not copied as is"
        );

        let summary = scan(&words);
        assert!(summary.readable, "{name}: scan cannot read it");
        match &name[..3] {
            "fra" => assert!(summary.frag_color, "{name}: gl_FragColor not found"),
            "xfb" => assert!(summary.xfb_candidate, "{name}: XFB struct not found"),
            _ => assert!(
                summary.has_stage(ExecutionModel::TessellationEvaluation),
                "{name}: TES not found"
            ),
        }
        let mut broken = Vec::new();
        for (target, data) in as_every_target(&words) {
            broken.extend(failures(target, &[(name.to_string(), data)]));
        }
        assert!(broken.is_empty(), "{}", broken.join("\n"));
    }
}

/// spirv-val on the pass outputs of a sample of a fuzzing corpus (`scripts/fuzz.sh
/// sample`): GLSEM_FUZZ_SAMPLE_DIR holds `<target>/` folders, GLSEM_FUZZ_SAMPLE files are
/// taken from each, evenly spread; GLSEM_FUZZ_TARGETS picks targets.
#[test]
#[ignore = "needs a fuzzing corpus; run by scripts/fuzz.sh sample"]
fn spirv_val_sample() {
    let dir = PathBuf::from(std::env::var("GLSEM_FUZZ_SAMPLE_DIR").expect("corpus folder"));
    let per_target: usize = std::env::var("GLSEM_FUZZ_SAMPLE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    // GLSEM_FUZZ_TARGETS: a space-separated subset (a target that still overflows its stack
    // on some corpus file would abort the whole sample).
    let only = std::env::var("GLSEM_FUZZ_TARGETS").unwrap_or_default();
    let mut broken = Vec::new();
    for target in TARGETS
        .iter()
        .filter(|t| only.is_empty() || only.split_whitespace().any(|o| o == **t))
    {
        let all = files(&dir.join(target), None);
        let step = all.len().div_ceil(per_target.max(1)).max(1);
        let sample: Vec<PathBuf> = all.iter().step_by(step).cloned().collect();
        let mut produced = 0;
        let mut checked = 0;
        let mut target_broken = Vec::new();
        for (name, data) in read_all(&sample) {
            match run_guarded(target, &name, data) {
                Ok(outputs) => {
                    produced += outputs.len();
                    checked += outputs.iter().filter(|p| p.inputs_valid()).count();
                    target_broken.extend(
                        validation_failures(&outputs)
                            .into_iter()
                            .map(|e| format!("{target} {name}: {e}")),
                    );
                }
                Err(e) => target_broken.push(format!("{target} {name}: {e}")),
            }
        }
        println!(
            "{target}: {} of {} inputs, {produced} pass outputs, {checked} from valid inputs \
             validated, {} failures",
            sample.len(),
            all.len(),
            target_broken.len()
        );
        broken.extend(target_broken);
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

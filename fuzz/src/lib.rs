//! Invariants shared by the fuzz targets (`fuzz/fuzz_targets/*.rs`) and the regression test
//! (`tests/fuzz_regressions.rs` includes this file with `#[path]`), so that an input that
//! once crashed a target is checked against exactly the same assertions forever after.
//!
//! Every `check_*` takes the raw fuzzer bytes, runs the code under test and panics when an
//! invariant breaks. It returns the modules the passes produced, so that callers outside
//! the fuzzer can run `spirv-val` on them ([`validation_failures`]); the fuzzer itself never
//! spawns processes.
//!
//! Input formats (docs/fuzzing.md has the details):
//! - `scan`, `module_parse`: the bytes are the module (little-endian words; a trailing
//!   partial word is dropped).
//! - the pass targets: a [`Container`]: 8 key bytes that choose the pass's key, then
//!   modules, each as a little-endian word count followed by that many words.

// The tests' SPIR-V tool helpers; this file is also a module of tests/fuzz_regressions.rs,
// and a `#[path]` is relative to this file's folder either way.
#[path = "../../tests/support/spirv_tools.rs"]
pub mod spirv_tools;

pub use spirv_tools::target_env;

use glsem_spirv::fragcolor::{broadcast_frag_color, AttachmentKind, FragColorKey};
use glsem_spirv::gl_state;
use glsem_spirv::interface::entry_point_ends;
use glsem_spirv::module::{check_header, decode_string, instructions, Editor, Module};
use glsem_spirv::passthrough_tcs::{build_passthrough_tcs, TcsKey};
use glsem_spirv::scan::{scan, Summary};
use glsem_spirv::semantics;
use glsem_spirv::xfb_split::{split_matching_inputs, split_xfb_outputs, SplitInterface};
use glsem_spirv::PassResult;

use spirv::{Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

/// Every fuzz target, by name (the names of `fuzz/fuzz_targets/*.rs` and of the
/// `tests/fuzz/<target>/` regression folders).
pub const TARGETS: &[&str] = &[
    "scan",
    "module_parse",
    "fragcolor",
    "xfb_split",
    "passthrough_tcs",
    "planner_chain",
];

/// Runs the invariants of `target` on `data`.
pub fn check(target: &str, data: &[u8]) -> Vec<Produced> {
    match target {
        "scan" => check_scan(data),
        "module_parse" => check_module_parse(data),
        "fragcolor" => check_fragcolor(data),
        "xfb_split" => check_xfb_split(data),
        "passthrough_tcs" => check_passthrough_tcs(data),
        "planner_chain" => check_planner_chain(data),
        _ => panic!("unknown fuzz target {target}"),
    }
}

/// A module a pass produced, with the modules it was produced from (the TCS generator
/// reads the TES and the vertex shader).
pub struct Produced {
    pub pass: &'static str,
    pub inputs: Vec<Vec<u32>>,
    pub output: Vec<u32>,
}

impl Produced {
    /// Whether spirv-val accepts every module the output was produced from.
    pub fn inputs_valid(&self) -> bool {
        self.inputs.iter().all(|m| spirv_val(m).is_ok())
    }
}

/// Little-endian words of `bytes`; a trailing partial word is dropped.
pub use spirv_tools::words as words_of;

/// Number of key bytes at the start of a pass target's input.
pub const KEY_BYTES: usize = 8;
/// Modules past this many are ignored (no target uses more).
const MAX_MODULES: usize = 5;

/// A pass target's input: key bytes and up to [`MAX_MODULES`] modules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Container {
    pub key: [u8; KEY_BYTES],
    pub modules: Vec<Vec<u32>>,
}

impl Container {
    /// Reads any byte string: missing key bytes are 0, a word count larger than what is
    /// left takes what is left.
    pub fn unpack(data: &[u8]) -> Self {
        let mut key = [0u8; KEY_BYTES];
        let n = data.len().min(KEY_BYTES);
        key[..n].copy_from_slice(&data[..n]);
        let mut rest = &data[n..];
        let mut modules = Vec::new();
        while rest.len() >= 4 && modules.len() < MAX_MODULES {
            let count = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            rest = &rest[4..];
            let take = count.min(rest.len() / 4) * 4;
            modules.push(words_of(&rest[..take]));
            rest = &rest[take..];
        }
        Container { key, modules }
    }

    pub fn pack(&self) -> Vec<u8> {
        let mut out = self.key.to_vec();
        for m in &self.modules {
            out.extend_from_slice(&(m.len() as u32).to_le_bytes());
            out.extend(m.iter().flat_map(|w| w.to_le_bytes()));
        }
        out
    }

    fn module(&self, i: usize) -> Option<&[u32]> {
        self.modules.get(i).map(Vec::as_slice)
    }
}

/// The scan must accept every module `Module::parse` accepts (it reads less), the stages it
/// reports must be the module's entry points' execution models, and its Location bound must
/// hold every entry point's interface (the layer skips the parse under it).
pub fn check_scan(data: &[u8]) -> Vec<Produced> {
    let words = words_of(data);
    let summary = scan(&words);
    if let Ok(m) = Module::parse(&words) {
        assert!(summary.readable, "Module::parse accepts what scan rejects");
        let models = m
            .entry_points
            .iter()
            .filter(|e| (e.model as u32) < 32)
            .fold(0u32, |mask, e| mask | 1 << e.model as u32);
        assert_eq!(
            summary.stages, models,
            "scan's stages are not Module::parse's entry points' models"
        );
        if let Some(bound) = summary.single_location_bound {
            for (model, name, ends) in entry_point_ends(&words) {
                assert!(
                    ends.input <= bound && ends.output <= bound,
                    "{model:?} {name}: interface ends {ends:?} past the scan's bound {bound}"
                );
            }
        }
    }
    Vec::new()
}

/// A parsed module is copied word for word by an unedited `Editor`; its lookups never
/// panic; and a find-or-add edit (a type and a Private variable) yields a module that
/// parses again with the same entry points.
pub fn check_module_parse(data: &[u8]) -> Vec<Produced> {
    let words = words_of(data);
    let Ok(m) = Module::parse(&words) else {
        return Vec::new();
    };
    assert!(
        Editor::new(&m).finish().as_ref() == Ok(&words),
        "an unedited Editor does not reproduce the module"
    );
    for ep in &m.entry_points {
        assert_eq!(m.insts.at(ep.index).op(), Some(Op::EntryPoint));
        if let Some((start, end)) = m.function_range(ep.function) {
            assert!(start < end && end <= m.insts.len());
        }
        if let Some(i) = m.function_body_start(ep.function) {
            assert!(i <= m.insts.len());
        }
        m.call_tree(ep.function);
    }
    for &id in m.globals.keys() {
        m.type_of(id);
        m.variable(id);
        m.constant_u32(id);
        m.has_decoration(id, Decoration::Location);
        m.member_decorations_of(id, 0).count();
    }

    let mut e = Editor::new(&m);
    let float = e.type_float(32);
    let vec4 = e.type_vector(float, 4);
    e.add_variable(StorageClass::Private, vec4);
    // An edit that would need more ids than SPIR-V allows is refused, not emitted.
    let Ok(edited) = e.finish() else {
        return Vec::new();
    };
    let m2 = Module::parse(&edited)
        .unwrap_or_else(|err| panic!("an Editor edit made the module unparsable: {err}"));
    assert_eq!(entry_point_list(&m), entry_point_list(&m2));
    Vec::new()
}

/// gl_FragColor broadcast: see [`check_pass_output`]; besides, the pass never rewrites a
/// module the scan's fast path would pass through, an entry point with a dual-source
/// output, or for a pipeline whose only attachment is 0 (nothing to do).
///
/// Key bytes: see [`frag_key`]; bit 7 of byte 0 asks for an entry point that does not exist.
pub fn check_fragcolor(data: &[u8]) -> Vec<Produced> {
    let c = Container::unpack(data);
    let fs = c.module(0).unwrap_or(&[]);
    let key = frag_key(&c.key);
    let entry = if c.key[0] & 0x80 != 0 {
        MISSING_ENTRY.to_string()
    } else {
        entry_name(fs, &[ExecutionModel::Fragment])
    };
    let mut produced = Vec::new();
    check_fragcolor_call(fs, &entry, &key, &mut produced);
    produced
}

fn check_fragcolor_call(
    fs: &[u32],
    entry: &str,
    key: &FragColorKey,
    produced: &mut Vec<Produced>,
) -> Option<Vec<u32>> {
    let out = check_pass_output("fragcolor", fs, broadcast_frag_color(fs, entry, key))?;
    let summary = scan(fs);
    assert!(
        summary.frag_color,
        "fragcolor rewrote a module the scan says has no gl_FragColor (the fast path would skip it)"
    );
    assert!(
        !dual_source(fs, entry),
        "fragcolor broadcast a dual-source shader"
    );
    assert!(
        key.attachments.iter().any(|&(loc, _)| loc != 0),
        "fragcolor rewrote a module for a pipeline with no attachment besides 0"
    );
    produced.push(Produced {
        pass: "fragcolor",
        inputs: vec![fs.to_vec()],
        output: out.clone(),
    });
    Some(out)
}

/// Whether fragment entry point `entry` has an output decorated `Index 1` (dual-source
/// blending). The scan's `dual_source` is module-wide; another entry point's outputs do
/// not make this one dual-source.
fn dual_source(fs: &[u32], entry: &str) -> bool {
    let Ok(m) = Module::parse(fs) else {
        return false;
    };
    m.entry_point(entry, ExecutionModel::Fragment)
        .is_some_and(|ep| {
            ep.interface.iter().any(|&id| {
                matches!(m.variable(id), Some((StorageClass::Output, _)))
                    && m.decoration(id, Decoration::Index) == Some(&[1])
            })
        })
}

/// XFB struct splitting: module 0 is the capturing stage, module 1 (optional) the next
/// stage. A split needs the scan's `xfb_candidate` (fast path) and reports the Locations it
/// split; the next stage's inputs are split with that interface, or, when module 0 split
/// nothing, with Locations from the key so that the input side is fuzzed on its own too.
///
/// Key bytes: byte 0 bit 7: a missing entry point for module 0; byte 1 & 3: how many
/// Locations (bytes 2..) the fallback interface has.
pub fn check_xfb_split(data: &[u8]) -> Vec<Produced> {
    let c = Container::unpack(data);
    let stage = c.module(0).unwrap_or(&[]);
    let entry = if c.key[0] & 0x80 != 0 {
        MISSING_ENTRY.to_string()
    } else {
        entry_name(stage, PRE_RASTER)
    };
    let mut produced = Vec::new();
    let interface = check_xfb_outputs_call(stage, &entry, &mut produced)
        .map(|(_, iface)| iface)
        .unwrap_or_else(|| SplitInterface {
            locations: c.key[2..2 + (c.key[1] & 3) as usize]
                .iter()
                .map(|b| (b & 0x1f) as u32)
                .collect(),
        });
    if let Some(next) = c.module(1) {
        let entry = entry_name(next, &[ExecutionModel::Fragment]);
        check_xfb_inputs_call(next, &entry, &interface, &mut produced);
    }
    produced
}

fn check_xfb_outputs_call(
    stage: &[u32],
    entry: &str,
    produced: &mut Vec<Produced>,
) -> Option<(Vec<u32>, SplitInterface)> {
    let result = split_xfb_outputs(stage, entry);
    let (words, iface) = match result {
        Ok(Some((words, iface))) => (words, iface),
        Ok(None) => return None,
        Err(e) => {
            let _ = e.to_string();
            return None;
        }
    };
    let out = check_pass_output("xfb_split outputs", stage, Ok(Some(words)))?;
    assert!(
        scan(stage).xfb_candidate,
        "split_xfb_outputs rewrote a module the scan says has no XFB struct (the fast path would skip it)"
    );
    assert!(
        !iface.locations.is_empty(),
        "split_xfb_outputs rewrote the module but reports no split Location"
    );
    produced.push(Produced {
        pass: "xfb_split outputs",
        inputs: vec![stage.to_vec()],
        output: out.clone(),
    });
    Some((out, iface))
}

fn check_xfb_inputs_call(
    next: &[u32],
    entry: &str,
    iface: &SplitInterface,
    produced: &mut Vec<Produced>,
) -> Option<Vec<u32>> {
    let out = check_pass_output(
        "xfb_split inputs",
        next,
        split_matching_inputs(next, entry, iface),
    )?;
    assert!(
        !iface.locations.is_empty(),
        "split_matching_inputs rewrote a module for an empty interface"
    );
    produced.push(Produced {
        pass: "xfb_split inputs",
        inputs: vec![next.to_vec()],
        output: out.clone(),
    });
    Some(out)
}

/// Passthrough TCS: module 0 is the TES, module 1 (optional) the vertex shader. A TCS can
/// only come from a parsable module with that TES entry point; it has exactly one entry
/// point, a TessellationControl one, `OutputVertices` = the key's count, and its levels
/// block starts at the reserved push-constant offset.
///
/// Key bytes: byte 0 bit 7: a missing TES entry point, bit 6: no vertex shader, bit 5: a
/// missing vertex entry point; byte 1: `OutputVertices` - 1 (mod 32); byte 2: the
/// push-constant offset / 4 (mod 27, so that the 24-byte block fits in 128 bytes).
pub fn check_passthrough_tcs(data: &[u8]) -> Vec<Produced> {
    let c = Container::unpack(data);
    let tes = c.module(0).unwrap_or(&[]);
    let tes_entry = if c.key[0] & 0x80 != 0 {
        MISSING_ENTRY.to_string()
    } else {
        entry_name(tes, &[ExecutionModel::TessellationEvaluation])
    };
    let vs_entry = if c.key[0] & 0x20 != 0 {
        MISSING_ENTRY.to_string()
    } else {
        entry_name(c.module(1).unwrap_or(&[]), &[ExecutionModel::Vertex])
    };
    let vertex = c
        .module(1)
        .filter(|_| c.key[0] & 0x40 == 0)
        .map(|vs| (vs, vs_entry.as_str()));
    let key = TcsKey {
        output_vertices: 1 + (c.key[1] % 32) as u32,
        max_patch_size: 32,
        push_constant_offset: (c.key[2] % 27) as u32 * 4,
        any_patch_size: false,
        patch_size_location: None,
    };
    let mut produced = Vec::new();
    check_tcs_call(tes, &tes_entry, vertex, &key, &mut produced);
    produced
}

fn check_tcs_call(
    tes: &[u32],
    tes_entry: &str,
    vertex: Option<(&[u32], &str)>,
    key: &TcsKey,
    produced: &mut Vec<Produced>,
) {
    let tcs = match build_passthrough_tcs(tes, tes_entry, vertex, key) {
        Ok(tcs) => tcs,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let has_tes_entry = Module::parse(tes).is_ok_and(|m| {
        m.entry_point(tes_entry, ExecutionModel::TessellationEvaluation)
            .is_some()
    });
    assert!(
        has_tes_entry,
        "build_passthrough_tcs built a TCS for a module without TES entry point {tes_entry:?}"
    );
    let m = Module::parse(&tcs)
        .unwrap_or_else(|e| panic!("build_passthrough_tcs emitted an unparsable module: {e}"));
    assert!(scan(&tcs).readable);
    let models: Vec<_> = m.entry_points.iter().map(|e| e.model).collect();
    assert_eq!(
        models,
        [ExecutionModel::TessellationControl],
        "the generated TCS must have exactly one entry point, a TessellationControl one"
    );
    let output_vertices: Vec<u32> = m
        .insts
        .iter()
        .filter(|i| {
            i.op() == Some(Op::ExecutionMode)
                && i.operand(1) == ExecutionMode::OutputVertices as u32
        })
        .map(|i| i.operand(2))
        .collect();
    assert_eq!(
        output_vertices,
        [key.output_vertices],
        "OutputVertices of the generated TCS must be the pipeline's patchControlPoints"
    );
    assert_eq!(
        push_constant_start(&m),
        Some(key.push_constant_offset),
        "the generated TCS must read its levels at the reserved push-constant offset"
    );
    produced.push(Produced {
        pass: "passthrough_tcs",
        inputs: std::iter::once(tes)
            .chain(vertex.map(|(vs, _)| vs))
            .map(<[u32]>::to_vec)
            .collect(),
        output: tcs,
    });
}

/// The lowest member `Offset` of the struct behind the module's PushConstant variable.
fn push_constant_start(m: &Module<'_>) -> Option<u32> {
    let (_, block) = m
        .globals
        .keys()
        .filter_map(|&id| m.variable(id))
        .find(|(storage, _)| *storage == StorageClass::PushConstant)?;
    (0..)
        .map_while(|member| {
            let mut decorations = m.member_decorations_of(block, member).peekable();
            decorations.peek()?;
            Some(
                decorations
                    .find(|(d, _)| *d == Decoration::Offset)
                    .and_then(|(_, lits)| lits.first().copied()),
            )
        })
        .flatten()
        .min()
}

/// What the layer's planner does for one graphics pipeline, as pure SPIR-V calls: scan
/// every stage (at vkCreateShaderModule), let [`choose`] pick the steps the layer would
/// run, and run each with its pass. Every output must satisfy the per-pass invariants.
///
/// Key bytes: byte 0: bit 0 the app has a TCS, bit 1 a TES, bit 2 a GS, bit 3 an FS (the
/// modules follow in the order VS, TCS, TES, GS, FS, missing ones empty), bits 4-7
/// `OutputVertices` - 1; bytes 1..8: the fragment key ([`frag_key`]), whose byte 1 also
/// carries the pipeline: bit 3 a point list, bit 4 `VK_GLSEM_gl_state`, bit 5
/// `shaderTessellationAndGeometryPointSize`, bit 6 no `VK_EXT_depth_clip_control`.
pub fn check_planner_chain(data: &[u8]) -> Vec<Produced> {
    let c = Container::unpack(data);
    let flags = c.key[0];
    let has = |bit: u8| flags & (1 << bit) != 0;
    let pipeline = |bit: u8| c.key[1] & (1 << bit) != 0;
    let wanted = [
        (ExecutionModel::Vertex, semantics::Stage::Vertex, true),
        (
            ExecutionModel::TessellationControl,
            semantics::Stage::TessControl,
            has(0) && has(1),
        ),
        (
            ExecutionModel::TessellationEvaluation,
            semantics::Stage::TessEval,
            has(1),
        ),
        (ExecutionModel::Geometry, semantics::Stage::Geometry, has(2)),
        (ExecutionModel::Fragment, semantics::Stage::Fragment, has(3)),
    ];
    let mut stages: Vec<Stage> = Vec::new();
    for (model, stage, present) in wanted {
        if present {
            let words = c.module(stages.len()).unwrap_or(&[]).to_vec();
            stages.push(Stage {
                model,
                stage,
                summary: scan(&words),
                entry: entry_name(&words, &[model]),
                words,
            });
        }
    }
    let mut view = semantics::Stages::default();
    for s in &stages {
        let info = semantics::StageInfo {
            summary: Some(&s.summary),
            patchable: true,
        };
        view.set(s.stage, info);
    }
    // No app range: the highest 4-aligned offset that fits 128 bytes.
    let block_offset = 128 - gl_state::BLOCK_SIZE;
    // GL's lines by the fragment route, on a device without (GL's) Bresenham lines.
    let fragment_lines = c.key[2] & 4 != 0;
    let device = semantics::DeviceKey {
        enabled: semantics::SemanticSet::ALL,
        max_color_attachments: 8,
        transform_feedback: true,
        tess_geom_point_size: pipeline(5),
        maintenance5: false,
        gl_state: pipeline(4),
        depth_clip_control: !pipeline(6),
        provoking_vertex_last: true,
        list_restart: pipeline(7),
        draw_parameters: true,
        bresenham_lines: !fragment_lines,
        stippled_bresenham_lines: !fragment_lines,
        line_endpoints: (!fragment_lines).then_some(glsem_spirv::line_endpoints::EndpointGrid {
            subpixel_bits: 8,
            toward_centre: false,
        }),
        fragment_lines,
        // SwiftShader's grid, the one the fragment route's band passes are for.
        subpixel_bits: 4,
        // The vertex shaders of the fragment route capture and read a strip's stipple.
        stipple_counts: fragment_lines,
        window_origin: if c.key[2] & 1 != 0 {
            semantics::WindowOrigin::LowerLeft
        } else {
            semantics::WindowOrigin::Flipped
        },
        // The last Location of a device with Vulkan's minimum 64 components.
        apart_layer_location: 15,
        primitive_route: glsem_spirv::primitive_mode::PrimitiveRoute::Geometry,
    };
    let key = semantics::PipelineKey {
        attachments: semantics::Attachments::Known(frag_key(&c.key[1..])),
        topology: if pipeline(3) {
            semantics::Topology::Points
        } else if c.key[2] & 2 != 0 {
            semantics::Topology::Lines
        } else {
            semantics::Topology::Triangles
        },
        gl_state_block: pipeline(4).then_some(block_offset),
        // Location 0 fed: any other input takes GL's current value.
        fed_locations: Some(vec![0]),
        single_sample: pipeline(7),
        fragment_block: pipeline(4).then_some(block_offset),
        static_front_face: true,
        ..semantics::PipelineKey::new(&device)
    };
    let steps = semantics::choose(&view, &key);
    let order: Vec<semantics::Stage> = stages.iter().map(|s| s.stage).collect();
    let pos = |stage| order.iter().position(|&s| s == stage);
    let mut produced = Vec::new();
    let mut split = None;
    for step in steps {
        if matches!(step, semantics::Step::GenerateTcs(_)) {
            let key = TcsKey {
                output_vertices: 1 + (flags >> 4) as u32,
                max_patch_size: 32,
                push_constant_offset: block_offset,
                any_patch_size: false,
                patch_size_location: None,
            };
            if let Some(t) = pos(semantics::Stage::TessEval) {
                let (tes, vs) = (&stages[t], &stages[0]);
                check_tcs_call(
                    &tes.words,
                    &tes.entry,
                    Some((&vs.words, &vs.entry)),
                    &key,
                    &mut produced,
                );
            }
            continue;
        }
        // Every other step runs through the layer's own dispatch, `Step::run`.
        let Some(i) = step.stage().and_then(pos) else {
            continue;
        };
        let s = &stages[i];
        let (words, made_split) = match step.run(&s.words, &s.entry, split.as_ref()) {
            Ok(semantics::StepOutput::Unchanged) => continue,
            Ok(semantics::StepOutput::Module(words)) => (words, None),
            Ok(semantics::StepOutput::Split(words, made)) => (words, Some(made)),
            Err(e) => {
                // Errors are fine; formatting them must be too (the layer logs them).
                let _ = e.to_string();
                continue;
            }
        };
        let Some(out) = check_pass_output(step.name(), &s.words, Ok(Some(words))) else {
            continue;
        };
        produced.push(Produced {
            pass: step.name(),
            inputs: vec![s.words.clone()],
            output: out.clone(),
        });
        stages[i].words = out;
        if made_split.is_some() {
            split = made_split;
        }
    }
    produced
}

/// One shader stage of the pipeline [`check_planner_chain`] plans, as the layer sees it.
struct Stage {
    model: ExecutionModel,
    stage: semantics::Stage,
    /// The stage's module as rewritten so far.
    words: Vec<u32>,
    /// The scan of the application's module (taken at vkCreateShaderModule).
    summary: Summary,
    entry: String,
}

/// The colour attachments a key describes: byte 0 & 7 attachments; attachment `i` is
/// described by byte `1 + i` (0 when absent): bit 7 set makes it `VK_ATTACHMENT_UNUSED`,
/// otherwise `byte % 3` picks float / sint / uint. Location = attachment index, as the
/// layer builds it from the subpass.
pub fn frag_key(bytes: &[u8]) -> FragColorKey {
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let attachments = (0..(byte(0) & 7) as u32)
        .filter_map(|i| {
            let b = byte(1 + i as usize);
            (b & 0x80 == 0).then(|| {
                let kind = match b % 3 {
                    0 => AttachmentKind::Float,
                    1 => AttachmentKind::Sint,
                    _ => AttachmentKind::Uint,
                };
                (i, kind)
            })
        })
        .collect();
    FragColorKey { attachments }
}

/// An entry-point name no module in the corpus uses.
const MISSING_ENTRY: &str = "glsem_fuzz_missing_entry";

const PRE_RASTER: &[ExecutionModel] = &[
    ExecutionModel::Vertex,
    ExecutionModel::TessellationEvaluation,
    ExecutionModel::Geometry,
];

/// The name of the first entry point of one of `models` (else of any model, else "main"),
/// as the layer would get it from `VkPipelineShaderStageCreateInfo::pName`.
fn entry_name(words: &[u32], models: &[ExecutionModel]) -> String {
    let eps: Vec<(ExecutionModel, String)> = match check_header(words) {
        Ok(_) => instructions(words)
            .map_while(Result::ok)
            .filter(|i| i.op() == Some(Op::EntryPoint) && i.operands().len() >= 3)
            .filter_map(|i| {
                let model = ExecutionModel::from_u32(i.operand(0))?;
                Some((model, decode_string(&i.operands()[2..]).0))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    eps.iter()
        .find(|(m, _)| models.contains(m))
        .or(eps.first())
        .map_or_else(|| "main".to_string(), |(_, name)| name.clone())
}

fn entry_point_list(m: &Module<'_>) -> Vec<(ExecutionModel, String)> {
    m.entry_points
        .iter()
        .map(|e| (e.model, e.name.clone()))
        .collect()
}

/// What holds for every module a pass returns: the input parsed (a pass cannot make a
/// module out of words this crate cannot read), the output parses, and it keeps the
/// input's entry points. Returns the output, `None` for `Ok(None)` and `Err`.
fn check_pass_output(pass: &str, input: &[u32], result: PassResult) -> Option<Vec<u32>> {
    let out = match result {
        Ok(Some(out)) => out,
        Ok(None) => return None,
        Err(e) => {
            // Errors are fine; formatting them must be too (the layer logs them).
            let _ = e.to_string();
            return None;
        }
    };
    let m_in = Module::parse(input)
        .unwrap_or_else(|e| panic!("{pass} rewrote a module Module::parse rejects ({e})"));
    let m_out =
        Module::parse(&out).unwrap_or_else(|e| panic!("{pass} emitted an unparsable module: {e}"));
    assert!(scan(&out).readable, "{pass} emitted a module scan rejects");
    assert_eq!(
        entry_point_list(&m_in),
        entry_point_list(&m_out),
        "{pass} changed the entry points"
    );
    Some(out)
}

/// Runs `spirv-val` for the module's SPIR-V version ([`target_env`]) on `words`; `Err`
/// carries its message.
pub fn spirv_val(words: &[u32]) -> Result<(), String> {
    spirv_tools::validate(words, target_env(words))
}

/// The outputs in `produced` that fail `spirv-val` although their inputs pass it
/// (every module the layer emits passes spirv-val). An invalid input may
/// legitimately give an invalid output, so those are not counted.
pub fn validation_failures(produced: &[Produced]) -> Vec<String> {
    produced
        .iter()
        .filter(|p| p.inputs.first() != Some(&p.output) && p.inputs_valid())
        .filter_map(|p| {
            spirv_val(&p.output)
                .err()
                .map(|e| format!("{}: output fails spirv-val: {e}", p.pass))
        })
        .collect()
}

//! glsem's performance figures (issue 7), one line `name: value` each, followed by a
//! `#` line saying how it was measured, over how many runs, and whether it meets its
//! target. Every value is a median. Run it through `scripts/bench.sh` (release build, the
//! layer library it measures passed in `GLSEM_LAYER_LIB`).
//!
//! - Layer on / off figures use two instances and devices in this one process, one created
//!   with `VK_LAYER_GLSEM_gl_semantics` and one without, and interleave the measured work
//!   A/B/B/A so that drift cancels. Validation is off.
//! - Pure SPIR-V figures call `glsem_spirv` directly; "cold" means a module the
//!   pass (or the layer's rewrite cache) has never seen: every run gets a fresh copy.

mod application;
mod gl_state;
mod primitive_modes;
mod support;
mod vertex_formats;

#[global_allocator]
static ALLOCATOR: support::alloc::Counting = support::alloc::Counting;

use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use glsem_spirv::fragcolor::{broadcast_frag_color, AttachmentKind, FragColorKey};
use glsem_spirv::module::{instructions, Module};
use glsem_spirv::passthrough_tcs::{build_passthrough_tcs, TcsKey};
use glsem_spirv::scan::scan;
use glsem_spirv::xfb_split::split_xfb_outputs;
use support::gpu::{Gpu, Layer, PipelineDesc, Vulkan};
use support::shaders::{self, fresh, Output};
use support::spirv_tools;
use support::timing::{
    ab_pairs, abc_triples, median, median_seconds, seconds, thread_cpu_seconds,
    thread_wait_seconds, warm_up_runs,
};

/// Functions in the generated large shader: about 1.1 MB of SPIR-V.
const LARGE_FUNCTIONS: usize = 850;

enum Target {
    AtMost(f64),
    AtLeast(f64),
    Exactly(f64),
    /// No target: a figure to compare others with.
    Reported,
}

impl Target {
    fn describe(&self, value: f64) -> String {
        let (met, text) = match *self {
            Target::AtMost(t) => (value <= t, format!("<= {t}")),
            Target::AtLeast(t) => (value >= t, format!(">= {t}")),
            Target::Exactly(t) => (value == t, format!("= {t}")),
            Target::Reported => return "no target".into(),
        };
        format!("target {text}: {}", if met { "met" } else { "MISSED" })
    }
}

/// Prints one figure and how it was measured.
fn figure(name: &str, value: f64, decimals: usize, target: Target, how: &str) {
    report(
        name,
        format!(
            "{name}: {value:.decimals$}\n#   {how}; {}",
            target.describe(value)
        ),
    );
}

/// A figure that could not be measured, and why (still one line under its name).
fn unavailable(name: &str, why: &str) {
    report(name, format!("{name}: n/a\n#   not measured: {why}"));
}

/// The figures in the order of issue 7's table, which is the order they are printed in
/// (they are measured in another order: see `main`).
const FIGURES: [&str; 39] = [
    "passthrough_pipeline_ratio",
    // Issue 35: what any layer costs (the do-nothing layer), and glsem's share above it.
    "empty_layer_ratio",
    "glsem_over_empty_ratio",
    // Issue 45: the same for code the layer has not kept.
    "empty_layer_ratio_new_code",
    "glsem_over_empty_ratio_new_code",
    "layer_share_rewritten",
    "rewrite_us_fragcolor8",
    "rewrite_us_xfb_struct",
    "rewrite_us_tcs",
    "scan_gbps",
    "large_module_rewrite_mbps",
    "spirv_opt_ratio",
    "bind_overhead_ns",
    "empty_layer_ratio_bind",
    "glsem_over_empty_ratio_bind",
    "cache_rewrites_per_1000",
    "threads4_speedup",
    // Issue "Performance II: what a real application pays".
    "instance_device_ratio",
    "empty_layer_ratio_instance_device",
    "glsem_over_empty_ratio_instance_device",
    "process_startup_ms",
    "held_bytes_per_module_byte",
    "rewrite_us_points",
    "zink_piglit_ratio",
    // Issue 26.
    "rewrite_us_unfed_input",
    "vertex_attrib_ns",
    // Issue 25.
    "line_state_patch_us",
    // Issue 31.
    "primitive_gs_us",
    "line_loop_close_ns",
    // Issue 40.
    "draw_hooks_ns",
    "converted_draw_us",
    "converted_draw_gpu_us",
    // Issue 32.
    "followed_bind_ns",
    // Issue 43.
    "polygon_variants_us",
    "polygon_mode_swap_ns",
    // Issues 41 and 43.
    "rewrite_us_vertex_formats",
    "vertex_input_variant_us",
    "vertex_input_bind_ns",
    "vertex_input_set_ns",
];

static REPORT: std::sync::Mutex<Vec<(usize, String)>> = std::sync::Mutex::new(Vec::new());

fn report(name: &str, text: String) {
    let index = FIGURES
        .iter()
        .position(|f| *f == name)
        .expect("a figure of the table");
    eprintln!("measured {name}");
    REPORT.lock().unwrap().push((index, text));
}

/// The run counts, scaled down by `--quick` for a smoke run.
struct Runs {
    scale: f64,
}

impl Runs {
    fn n(&self, full: usize) -> usize {
        ((full as f64 * self.scale) as usize).max(5)
    }
}

/// The SPIR-V every figure uses.
struct Modules {
    vertex: Vec<u32>,
    passthrough_fragment: Vec<u32>,
    fragcolor: Vec<u32>,
    xfb_struct_tes: Vec<u32>,
    tcs_pair_vertex: Vec<u32>,
    tcs_pair_tes: Vec<u32>,
    large_fragcolor: Vec<u32>,
    large_located: Vec<u32>,
    points_vertex: Vec<u32>,
    unfed_input_vertex: Vec<u32>,
}

impl Modules {
    fn compile() -> Modules {
        Modules {
            vertex: shaders::compile("passthrough.vert"),
            passthrough_fragment: shaders::compile("passthrough.frag"),
            fragcolor: shaders::compile("fragcolor.frag"),
            xfb_struct_tes: shaders::compile("xfb_struct.tese"),
            tcs_pair_vertex: shaders::compile("tcs_pair.vert"),
            tcs_pair_tes: shaders::compile("tcs_pair.tese"),
            large_fragcolor: shaders::large_fragment_shader(LARGE_FUNCTIONS, Output::FragColor),
            large_located: shaders::large_fragment_shader(LARGE_FUNCTIONS, Output::Located),
            points_vertex: shaders::compile("points.vert"),
            unfed_input_vertex: shaders::compile("unfed_input.vert"),
        }
    }
}

/// gl_FragColor into 8 RGBA8 attachments (lavapipe's maxColorAttachments).
fn eight_attachments() -> FragColorKey {
    FragColorKey {
        attachments: (0..8).map(|l| (l, AttachmentKind::Float)).collect(),
    }
}

fn rewrite_fragcolor8(words: &[u32]) -> Vec<u32> {
    broadcast_frag_color(words, "main", &eight_attachments())
        .expect("fragcolor pass")
        .expect("the fragcolor pass rewrites a gl_FragColor shader for 8 attachments")
}

fn ms(seconds: f64) -> f64 {
    seconds * 1e3
}

fn us(seconds: f64) -> f64 {
    seconds * 1e6
}

/// Per-device objects for the pipelines the figures create.
struct Setup<'a> {
    gpu: &'a Gpu,
    vertex: ash::vk::ShaderModule,
    one_attachment: ash::vk::RenderPass,
    eight_attachments: ash::vk::RenderPass,
}

impl<'a> Setup<'a> {
    fn new(gpu: &'a Gpu, modules: &Modules) -> Setup<'a> {
        Setup {
            gpu,
            vertex: gpu.module(&modules.vertex),
            one_attachment: gpu.render_pass(1),
            eight_attachments: gpu.render_pass(8),
        }
    }

    fn eight(&self, fragment: ash::vk::ShaderModule) -> PipelineDesc {
        PipelineDesc {
            vertex: self.vertex,
            fragment,
            render_pass: self.eight_attachments,
            attachments: 8,
        }
    }
}

impl Drop for Setup<'_> {
    fn drop(&mut self) {
        self.gpu.destroy_module(self.vertex);
        self.gpu.destroy_render_pass(self.one_attachment);
        self.gpu.destroy_render_pass(self.eight_attachments);
    }
}

/// The argument that makes this binary a child of `large_module`: it prints the median
/// seconds of the large module's rewrite.
const LARGE_REWRITE_CHILD: &str = "--large-rewrite-child";

/// The median seconds of `runs` cold rewrites of the large gl_FragColor module.
fn large_rewrite_seconds(words: &[u32], runs: usize) -> f64 {
    let inputs: Vec<Vec<u32>> = (0..runs + warm_up_runs(runs))
        .map(|_| fresh(words))
        .collect();
    median_seconds(runs, |i| {
        black_box(rewrite_fragcolor8(black_box(&inputs[i])));
    })
}

/// The large rewrite in a child process whose malloc keeps what it frees (glibc's mmap and
/// trim thresholds raised through `GLIBC_TUNABLES`): glibc returns a rewrite's 2.7 MB to the
/// kernel between rewrites (its dynamic trim threshold is twice the largest chunk it has
/// unmapped, 2.3 MB here), and the next one pays the page faults again. A process with other
/// malloc settings, or more heap in use, does not.
fn reused_memory_rewrite_seconds() -> Option<f64> {
    let output = Command::new(std::env::current_exe().ok()?)
        .arg(LARGE_REWRITE_CHILD)
        .env(
            "GLIBC_TUNABLES",
            "glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=268435456",
        )
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout).trim().parse().ok()
}

/// Module + pipeline creation time of a pipeline that needs no rewrite, with glsem (`on`),
/// with the do-nothing layer (`empty`) and without a layer (`off`): the ratios glsem / none,
/// the empty layer / none (what any layer hooking these calls costs) and glsem / the empty
/// layer (glsem's own share). `control` is a second device without the layer: the same
/// comparison between two devices that both lack it shows how far two lavapipe devices in
/// one process differ anyway. Every round makes the same two modules (the layer takes back
/// the records it kept of them); the `_new_code` figures then do the same over modules of
/// distinct code.
fn passthrough_pipeline_ratio(
    on: &Setup,
    empty: &Setup,
    off: &Setup,
    control: &Setup,
    modules: &Modules,
    runs: &Runs,
) {
    // Each timed creation's thread CPU time too, by side (glsem, empty, none) and index:
    // lavapipe compiles on the calling thread, and CPU time does not count the waits for a
    // CPU that other processes cause on this shared machine.
    let pairs = runs.n(2000);
    let cpu = std::cell::RefCell::new([(); 3].map(|_| vec![0.0; pairs]));
    let create_with = |s: &Setup,
                       flags: ash::vk::PipelineCreateFlags,
                       slot: Option<(usize, usize)>,
                       (vertex, fragment): (&[u32], &[u32])| {
        let g = s.gpu;
        let cpu_start = thread_cpu_seconds();
        let start = Instant::now();
        let vertex = g.module(vertex);
        let fragment = g.module(fragment);
        let pipeline = g.try_pipeline(
            &PipelineDesc {
                vertex,
                fragment,
                render_pass: s.one_attachment,
                attachments: 1,
            },
            flags,
        );
        let elapsed = start.elapsed().as_secs_f64();
        if let Some((side, i)) = slot.filter(|&(_, i)| i < pairs) {
            cpu.borrow_mut()[side][i] = thread_cpu_seconds() - cpu_start;
        }
        match pipeline {
            Ok(p) => g.destroy_pipeline(p),
            Err(e) => assert_eq!(e, ash::vk::Result::PIPELINE_COMPILE_REQUIRED),
        }
        g.destroy_module(vertex);
        g.destroy_module(fragment);
        elapsed
    };
    let same_code = (&modules.vertex[..], &modules.passthrough_fragment[..]);
    let create_on = |s: &Setup, flags, slot| create_with(s, flags, slot, same_code);
    let create = |s: &Setup, flags| create_on(s, flags, None);
    let compile = ash::vk::PipelineCreateFlags::empty();
    let samples = abc_triples(
        pairs,
        |i| create_on(on, compile, Some((0, i))),
        |i| create_on(empty, compile, Some((1, i))),
        |i| create_on(off, compile, Some((2, i))),
    );
    let [cpu_on, cpu_empty, cpu_off] = cpu.take();
    let cpu_samples: Vec<(f64, f64, f64)> = (0..pairs)
        .map(|i| (cpu_on[i], cpu_empty[i], cpu_off[i]))
        .collect();
    let ratio = median(samples.iter().map(|(a, _, c)| a / c).collect());
    let controls = ab_pairs(
        pairs,
        |_| create(control, compile),
        |_| create(off, compile),
    );
    let control_ratio = median(controls.iter().map(|(a, b)| a / b).collect());
    let on_median = median(samples.iter().map(|s| s.0).collect());
    let empty_median = median(samples.iter().map(|s| s.1).collect());
    let off_median = median(samples.iter().map(|s| s.2).collect());
    // Cross-check: the layers' own time on this path, where the driver does not compile.
    let own = match on.gpu.fail_fast && off.gpu.fail_fast {
        true => {
            let fail_fast = ash::vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED;
            let own = abc_triples(
                pairs,
                |_| create(on, fail_fast),
                |_| create(empty, fail_fast),
                |_| create(off, fail_fast),
            );
            let [on, empty, off] = [
                median(own.iter().map(|s| s.0).collect()),
                median(own.iter().map(|s| s.1).collect()),
                median(own.iter().map(|s| s.2).collect()),
            ];
            format!(
                "; the layers' own time on this path (same calls, driver not compiling): \
                 glsem {:.2} us = {:.4} of creation, the empty layer {:.2} us",
                us(on - off),
                (on - off) / off_median,
                us(empty - off)
            )
        }
        false => String::new(),
    };
    let how = format!(
        "median of {pairs} per-triple ratios (A/B/C/C/B/A triples of glsem, the empty \
         layer and no layer, 2 modules + 1 pipeline each); medians: glsem {:.3} ms, empty \
         {:.3} ms, none {:.3} ms",
        ms(on_median),
        ms(empty_median),
        ms(off_median)
    );
    figure(
        "passthrough_pipeline_ratio",
        ratio,
        4,
        Target::AtMost(1.01),
        &format!(
            "glsem / no layer: {how}; in thread CPU time: {:.4}; control, a second device \
             without the layer / off: {control_ratio:.4}{own}",
            median(cpu_samples.iter().map(|(a, _, c)| a / c).collect())
        ),
    );
    anchor_figures("", &samples, Some(&cpu_samples), &how);

    // The same with code the layer has not kept: each round takes the next of more module
    // pairs than the layer keeps destroyed modules' records for (`retired_modules.rs`), so
    // that every module is copied and scanned, as the first of its code is.
    let new_code = new_code_pairs(&modules.vertex, &modules.passthrough_fragment);
    let code = |i: usize| {
        let (vertex, fragment) = &new_code[i % NEW_CODE_PAIRS];
        (&vertex[..], &fragment[..])
    };
    let samples = abc_triples(
        pairs,
        |i| create_with(on, compile, None, code(i)),
        |i| create_with(empty, compile, None, code(i)),
        |i| create_with(off, compile, None, code(i)),
    );
    anchor_figures(
        "_new_code",
        &samples,
        None,
        &format!(
            "as glsem_over_empty_ratio, with code the layer has not kept: {NEW_CODE_PAIRS} \
             module pairs of distinct code in turn"
        ),
    );
}

/// Module pairs the new-code figure takes in turn: 32 modules, four times what the layer
/// keeps of destroyed ones.
const NEW_CODE_PAIRS: usize = 16;

/// [`NEW_CODE_PAIRS`] copies of a (vertex, fragment) pair, each of its own code.
fn new_code_pairs(vertex: &[u32], fragment: &[u32]) -> Vec<(Vec<u32>, Vec<u32>)> {
    (0..NEW_CODE_PAIRS)
        .map(|_| (fresh(vertex), fresh(fragment)))
        .collect()
}

/// `empty_layer_ratio{suffix}` (the empty layer / no layer) and
/// `glsem_over_empty_ratio{suffix}` (glsem / the empty layer) from (glsem, empty, none)
/// samples. Only module + pipeline creation (no suffix) has a target for glsem's share
/// (issue 35): the others are there to compare.
fn anchor_figures(
    suffix: &str,
    samples: &[(f64, f64, f64)],
    cpu: Option<&[(f64, f64, f64)]>,
    how: &str,
) {
    let ratios = |samples: &[(f64, f64, f64)]| {
        (
            median(samples.iter().map(|(_, b, c)| b / c).collect()),
            median(samples.iter().map(|(a, b, _)| a / b).collect()),
        )
    };
    let (empty, glsem) = ratios(samples);
    // The same ratios in thread CPU time, where measured.
    let (empty_cpu, glsem_cpu) = match cpu.map(ratios) {
        Some((e, g)) => (
            format!("; in thread CPU time: {e:.4}"),
            format!("; in thread CPU time: {g:.4}"),
        ),
        None => Default::default(),
    };
    figure(
        &format!("empty_layer_ratio{suffix}"),
        empty,
        4,
        Target::Reported,
        &format!("the empty layer / no layer: {how}{empty_cpu}"),
    );
    let target = match suffix {
        "" => Target::AtMost(1.003),
        _ => Target::Reported,
    };
    figure(
        &format!("glsem_over_empty_ratio{suffix}"),
        glsem,
        4,
        target,
        &format!("glsem / the empty layer: {how}{glsem_cpu}"),
    );
}

/// Module + pipeline creation with `VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT`:
/// lavapipe returns `VK_PIPELINE_COMPILE_REQUIRED` without compiling, after the layer
/// did all of its work (scan, plan, rewrite, temporary module). Seconds.
fn create_fail_fast(s: &Setup, words: &[u32]) -> f64 {
    let start = Instant::now();
    let fragment = s.gpu.module(words);
    let result = s.gpu.try_pipeline(
        &s.eight(fragment),
        ash::vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED,
    );
    let elapsed = start.elapsed().as_secs_f64();
    s.gpu.destroy_module(fragment);
    match result {
        Err(e) => assert_eq!(e, ash::vk::Result::PIPELINE_COMPILE_REQUIRED),
        // A driver with its own cache of compiled shaders may still create it.
        Ok(pipeline) => {
            COMPILED_ANYWAY.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            s.gpu.destroy_pipeline(pipeline);
        }
    }
    elapsed
}

/// Pipelines created with FAIL_ON_PIPELINE_COMPILE_REQUIRED that the driver created anyway.
static COMPILED_ANYWAY: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The layer's share of module + pipeline creation for a pipeline it rewrites (cold:
/// every pipeline has a module the cache never saw).
///
/// The layer's own time is measured where the driver does nothing (see
/// [`create_fail_fast`]): with the layer on a gl_FragColor module, without it on the module
/// the layer would have produced. The whole is ordinary creation with the layer. As a
/// cross-check, the same difference with the driver compiling on both sides (noisier: two
/// large numbers).
fn layer_share_rewritten(on: &Setup, off: &Setup, vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "layer_share_rewritten";
    if !(on.gpu.fail_fast && off.gpu.fail_fast) {
        return unavailable(NAME, "the device lacks pipelineCreationCacheControl");
    }
    let app = || fresh(&modules.fragcolor);
    let rewritten = || rewrite_fragcolor8(&fresh(&modules.fragcolor));
    let pairs = runs.n(1000);
    let before = vulkan.layer_counters().rewrites;
    let own = ab_pairs(
        pairs,
        |_| create_fail_fast(on, &app()),
        |_| create_fail_fast(off, &rewritten()),
    );
    let rewrites = vulkan.layer_counters().rewrites - before;
    let layer =
        median(own.iter().map(|s| s.0).collect()) - median(own.iter().map(|s| s.1).collect());

    let create = |s: &Setup, words: &[u32]| {
        let start = Instant::now();
        let fragment = s.gpu.module(words);
        let pipeline = s.gpu.pipeline(&s.eight(fragment));
        let elapsed = start.elapsed().as_secs_f64();
        s.gpu.destroy_pipeline(pipeline);
        s.gpu.destroy_module(fragment);
        elapsed
    };
    let whole_pairs = runs.n(150);
    let whole = ab_pairs(
        whole_pairs,
        |_| create(on, &app()),
        |_| create(off, &rewritten()),
    );
    let on_median = median(whole.iter().map(|s| s.0).collect());
    let cross_check = median(whole.iter().map(|(a, b)| a - b).collect());
    figure(
        NAME,
        layer / on_median,
        4,
        Target::AtMost(0.05),
        &format!(
            "layer time {:.1} us (medians of {pairs} A/B pairs of fragment module + pipeline \
             creation the driver does not compile; {rewrites} cold rewrites ran) / whole \
             creation with the layer {:.3} ms (median of {whole_pairs}); gl_FragColor to 8 \
             attachments; cross-check with the driver compiling: median per-pair (on - off) \
             {:.1} us",
            us(layer),
            ms(on_median),
            us(cross_check)
        ),
    );
}

fn rewrite_us_fragcolor8(modules: &Modules, runs: &Runs) {
    let n = runs.n(3000);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n))
        .map(|_| fresh(&modules.fragcolor))
        .collect();
    let valid = spirv_tools::validate(&rewrite_fragcolor8(&modules.fragcolor), "vulkan1.0");
    let t = median_seconds(n, |i| {
        black_box(rewrite_fragcolor8(black_box(&inputs[i])));
    });
    figure(
        "rewrite_us_fragcolor8",
        us(t),
        2,
        Target::AtMost(50.0),
        &format!(
            "median of {n} cold rewrites of a {}-byte #version 140 shader; {}; output spirv-val: \
             {}",
            modules.fragcolor.len() * 4,
            allocations(|| {
                black_box(rewrite_fragcolor8(&inputs[0]));
            }),
            verdict(&valid)
        ),
    );
}

/// What one call of `f` allocates, for the figure's detail line.
fn allocations(f: impl FnOnce()) -> String {
    let a = support::alloc::measure(f);
    format!(
        "one call allocates {:.1} KB in {} allocations",
        a.bytes as f64 / 1e3,
        a.calls
    )
}

fn verdict(result: &Result<(), String>) -> String {
    match result {
        Ok(()) => "ok".into(),
        Err(e) => format!("FAILED ({})", e.lines().next().unwrap_or_default()),
    }
}

fn rewrite_us_xfb_struct(modules: &Modules, runs: &Runs) {
    const NAME: &str = "rewrite_us_xfb_struct";
    let tes = &modules.xfb_struct_tes;
    let output = match split_xfb_outputs(tes, "main") {
        Ok(Some((words, _))) => words,
        Ok(None) => return unavailable(NAME, "split_xfb_outputs left the struct TES unchanged"),
        Err(e) => return unavailable(NAME, &format!("split_xfb_outputs failed: {e}")),
    };
    let valid = spirv_tools::validate(&output, "vulkan1.0");
    let n = runs.n(3000);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n)).map(|_| fresh(tes)).collect();
    let t = median_seconds(n, |i| {
        black_box(split_xfb_outputs(black_box(&inputs[i]), "main").unwrap());
    });
    figure(
        NAME,
        us(t),
        2,
        Target::AtMost(50.0),
        &format!(
            "median of {n} cold splits of the dmat3x4 struct TES ({} bytes); {}; \
             output spirv-val: {}",
            tes.len() * 4,
            allocations(|| {
                black_box(split_xfb_outputs(&inputs[0], "main").unwrap());
            }),
            verdict(&valid)
        ),
    );
}

fn rewrite_us_tcs(modules: &Modules, runs: &Runs) {
    const NAME: &str = "rewrite_us_tcs";
    let key = TcsKey {
        output_vertices: 3,
        max_patch_size: 32,
        push_constant_offset: 104,
        any_patch_size: false,
        patch_size_location: None,
    };
    let vertex = Some((&modules.tcs_pair_vertex[..], "main"));
    let tes = &modules.tcs_pair_tes;
    let output = match build_passthrough_tcs(tes, "main", vertex, &key) {
        Ok(words) => words,
        Err(e) => return unavailable(NAME, &format!("build_passthrough_tcs failed: {e}")),
    };
    let valid = spirv_tools::validate(&output, "vulkan1.0");
    let n = runs.n(3000);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n)).map(|_| fresh(tes)).collect();
    let t = median_seconds(n, |i| {
        black_box(build_passthrough_tcs(black_box(&inputs[i]), "main", vertex, &key).unwrap());
    });
    figure(
        NAME,
        us(t),
        2,
        Target::AtMost(50.0),
        &format!(
            "median of {n} cold generations for a VS/TES pair with 4 varyings; {}; output \
             spirv-val: {}",
            allocations(|| {
                black_box(build_passthrough_tcs(&inputs[0], "main", vertex, &key).unwrap());
            }),
            verdict(&valid)
        ),
    );
}

fn scan_gbps(modules: &Modules, runs: &Runs) {
    let words = &modules.large_located;
    let summary = scan(words);
    assert!(summary.readable && !summary.may_need_rewrite());
    let header_words = instructions(words)
        .flatten()
        .find(|i| i.op() == Some(spirv::Op::Function))
        .map_or(words.len(), |i| i.offset_in(words));
    let n = runs.n(2000);
    let t = median_seconds(n, |_| {
        black_box(scan(black_box(words)));
    });
    let bytes = words.len() as f64 * 4.0;
    figure(
        "scan_gbps",
        bytes / t / 1e9,
        1,
        Target::AtLeast(1.0),
        &format!(
            "module bytes / median scan time over {n} scans of a {:.2} MB pass-through module \
             ({:.1} us; the scan reads the {} KB before the first OpFunction: {:.2} GB/s of \
             words read)",
            bytes / 1e6,
            us(t),
            header_words * 4 / 1000,
            header_words as f64 * 4.0 / t / 1e9
        ),
    );
}

/// `large_module_rewrite_mbps` and `spirv_opt_ratio` (same module, same rewrite).
fn large_module(modules: &Modules, runs: &Runs) {
    let words = &modules.large_fragcolor;
    let bytes = words.len() as f64 * 4.0;
    let valid = spirv_tools::validate(&rewrite_fragcolor8(words), "vulkan1.0");
    let n = runs.n(40);
    let ours = large_rewrite_seconds(words, n);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n)).map(|_| fresh(words)).collect();
    // Where the time goes: the module index every pass builds, and a bare copy of the words
    // (the floor for any pass that returns a new module).
    let parse = median_seconds(n, |i| {
        black_box(Module::parse(black_box(&inputs[i])).unwrap());
    });
    let copy = median_seconds(n, |i| {
        black_box(black_box(&inputs[i]).to_vec());
    });
    let allocated = support::alloc::measure(|| {
        black_box(rewrite_fragcolor8(&inputs[0]));
    });
    let reused = reused_memory_rewrite_seconds();
    figure(
        "large_module_rewrite_mbps",
        bytes / ours / 1e6,
        0,
        // Issue "Performance II" raised it from 500 (a stretch goal; docs/performance.md).
        Target::AtLeast(1000.0),
        &format!(
            "module bytes / median of {n} cold gl_FragColor rewrites (8 attachments) of a \
             {:.2} MB module ({:.3} ms each, of which Module::parse {:.3} ms; a bare copy of the \
             words takes {:.3} ms; one rewrite allocates {:.1} MB in {} allocations, {:.1} MB \
             live at most); output spirv-val: {}; {}",
            bytes / 1e6,
            ms(ours),
            ms(parse),
            ms(copy),
            allocated.bytes as f64 / 1e6,
            allocated.calls,
            allocated.peak as f64 / 1e6,
            verdict(&valid),
            match reused {
                Some(t) => format!(
                    "the same in a process whose malloc keeps freed memory (glibc's mmap and \
                     trim thresholds raised, so no page faults on fresh memory): {:.3} ms, \
                     {:.0} MB/s",
                    ms(t),
                    bytes / t / 1e6
                ),
                None => "the same with glibc's thresholds raised: not measured".into(),
            }
        ),
    );

    let dir = shaders::scratch_dir();
    let input = dir.join("large_fragcolor.spv");
    let output = dir.join("large_fragcolor.opt.spv");
    shaders::write_words(&input, words);
    let opt_runs = runs.n(5);
    let opt = median(
        (0..opt_runs)
            .map(|_| {
                seconds(|| {
                    let status = Command::new("spirv-opt")
                        .arg(&input)
                        .arg("-o")
                        .arg(&output)
                        .status()
                        .expect("run spirv-opt (package spirv-tools)");
                    assert!(status.success(), "spirv-opt failed on the large module");
                })
            })
            .collect(),
    );
    figure(
        "spirv_opt_ratio",
        ours / opt,
        4,
        Target::AtMost(0.1),
        &format!(
            "median rewrite {:.3} ms / median of {opt_runs} `spirv-opt in.spv -o out.spv` \
             processes {:.1} ms on the same {:.2} MB module",
            ms(ours),
            ms(opt),
            bytes / 1e6
        ),
    );
}

/// Added time per `vkCmdBindPipeline` of a pipeline without generated TCS, and the same
/// binds through the do-nothing layer (`empty`).
fn bind_overhead_ns(on: &Setup, empty: &Setup, off: &Setup, modules: &Modules, runs: &Runs) {
    const BINDS: usize = 2000;
    let pairs = runs.n(300);
    let prepare = |s: &Setup| {
        let fragment = s.gpu.module(&modules.passthrough_fragment);
        let pipeline = s.gpu.pipeline(&PipelineDesc {
            vertex: s.vertex,
            fragment,
            render_pass: s.one_attachment,
            attachments: 1,
        });
        s.gpu.destroy_module(fragment);
        let (pool, buffer) = s.gpu.command_pool();
        (pipeline, pool, buffer)
    };
    let (on_objects, empty_objects, off_objects) = (prepare(on), prepare(empty), prepare(off));
    let record = |s: &Setup, (pipeline, pool, buffer): (_, _, _)| {
        let d = &s.gpu.device;
        // SAFETY: the pool's only command buffer is never submitted.
        unsafe {
            d.reset_command_pool(pool, ash::vk::CommandPoolResetFlags::empty())
                .unwrap();
            d.begin_command_buffer(buffer, &ash::vk::CommandBufferBeginInfo::default())
                .unwrap();
            let t = seconds(|| {
                for _ in 0..BINDS {
                    d.cmd_bind_pipeline(buffer, ash::vk::PipelineBindPoint::GRAPHICS, pipeline);
                }
            });
            d.end_command_buffer(buffer).unwrap();
            t / BINDS as f64
        }
    };
    let samples = abc_triples(
        pairs,
        |_| record(on, on_objects),
        |_| record(empty, empty_objects),
        |_| record(off, off_objects),
    );
    for (s, (pipeline, pool, _)) in [(on, on_objects), (empty, empty_objects), (off, off_objects)] {
        s.gpu.destroy_pipeline(pipeline);
        // SAFETY: the command buffer is not pending.
        unsafe { s.gpu.device.destroy_command_pool(pool, None) };
    }
    let added = median(samples.iter().map(|(a, _, c)| a - c).collect());
    let [on_bind, empty_bind, off_bind] = [
        median(samples.iter().map(|s| s.0).collect()) * 1e9,
        median(samples.iter().map(|s| s.1).collect()) * 1e9,
        median(samples.iter().map(|s| s.2).collect()) * 1e9,
    ];
    figure(
        "bind_overhead_ns",
        added * 1e9,
        1,
        Target::AtMost(20.0),
        &format!(
            "median per-triple (on - off) over {pairs} A/B/C triples (glsem, the empty layer, \
             no layer) of {BINDS} binds recorded into one command buffer; medians per bind: \
             on {on_bind:.1} ns, empty layer {empty_bind:.1} ns, off {off_bind:.1} ns"
        ),
    );
    anchor_figures(
        "_bind",
        &samples,
        None,
        &format!(
            "median of {pairs} per-triple ratios of the time per bind (A/B/C/C/B/A triples of \
             {BINDS} binds each); medians per bind: glsem {on_bind:.1} ns, empty layer \
             {empty_bind:.1} ns, none {off_bind:.1} ns"
        ),
    );
}

/// Rewrites the layer runs for 1000 identical pipelines (the first one misses the cache).
fn cache_rewrites_per_1000(on: &Setup, vulkan: &Vulkan, modules: &Modules) {
    const PIPELINES: usize = 1000;
    let fragment = on.gpu.module(&fresh(&modules.fragcolor));
    let before = vulkan.layer_counters().rewrites;
    let t = seconds(|| {
        for _ in 0..PIPELINES {
            let pipeline = on.gpu.pipeline(&on.eight(fragment));
            on.gpu.destroy_pipeline(pipeline);
        }
    });
    let rewrites = vulkan.layer_counters().rewrites - before;
    on.gpu.destroy_module(fragment);
    figure(
        "cache_rewrites_per_1000",
        rewrites as f64,
        0,
        Target::Exactly(1.0),
        &format!(
            "rewrite passes the layer ran (its glsemGetDebugCounters) while creating {PIPELINES} \
             identical gl_FragColor pipelines (8 attachments), one run; {:.2} ms per pipeline",
            ms(t / PIPELINES as f64)
        ),
    );
}

/// Where a worker thread's time went: on a CPU, waiting for one (runnable: the machine is
/// busy), or neither (blocked: a lock, I/O).
#[derive(Clone, Copy, Default)]
struct ThreadTime {
    wall: f64,
    cpu: f64,
    runnable: f64,
}

impl ThreadTime {
    fn blocked(&self) -> f64 {
        (self.wall - self.cpu - self.runnable).max(0.0)
    }
}

/// `threads` threads at once run `work` on every input: wall seconds, each thread's times
/// (empty where /proc/thread-self/schedstat is unavailable) and the results.
fn concurrently<T: Sync, R: Send>(
    inputs: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
) -> (f64, Vec<ThreadTime>, Vec<R>) {
    let per_thread = inputs.len().div_ceil(threads);
    let work = &work;
    let mut times = Vec::new();
    let mut results = Vec::new();
    let wall = seconds(|| {
        std::thread::scope(|scope| {
            let workers: Vec<_> = inputs
                .chunks(per_thread)
                .map(|chunk| {
                    scope.spawn(move || {
                        let start = (Instant::now(), thread_cpu_seconds(), thread_wait_seconds());
                        let results = chunk.iter().map(work).collect::<Vec<_>>();
                        let (wall, cpu) = (start.0.elapsed().as_secs_f64(), thread_cpu_seconds());
                        let time = match (start.2, thread_wait_seconds()) {
                            (Some(a), Some(b)) => Some(ThreadTime {
                                wall,
                                cpu: cpu - start.1,
                                runnable: b - a,
                            }),
                            _ => None,
                        };
                        (time, results)
                    })
                })
                .collect();
            for worker in workers {
                let (time, r) = worker.join().unwrap();
                times.extend(time);
                results.extend(r);
            }
        });
    });
    (wall, times, results)
}

/// One run of 1 or 4 threads.
#[derive(Clone, Copy, Default)]
struct Run {
    wall: f64,
    cpu: f64,
    runnable: f64,
    blocked: f64,
    /// The longest thread's time on a CPU or blocked: its wall time on idle CPUs.
    longest_busy: f64,
}

impl Run {
    fn of(wall: f64, threads: &[ThreadTime]) -> Run {
        Run {
            wall,
            cpu: threads.iter().map(|t| t.cpu).sum(),
            runnable: threads.iter().map(|t| t.runnable).sum(),
            blocked: threads.iter().map(ThreadTime::blocked).sum(),
            longest_busy: threads
                .iter()
                .map(|t| t.cpu + t.blocked())
                .fold(0.0, f64::max),
        }
    }
}

/// Medians of `reps` runs each of 1 and 4 threads (alternating), every run on fresh
/// inputs from `prepare`.
fn one_vs_four<T: Sync>(
    reps: usize,
    prepare: impl Fn() -> Vec<T>,
    run: impl Fn(&[T], usize) -> Run,
) -> [Run; 2] {
    let mut runs = [Vec::new(), Vec::new()];
    for _ in 0..reps {
        for (slot, threads) in [(0, 1), (1, 4)] {
            let inputs = prepare();
            runs[slot].push(run(&inputs, threads));
        }
    }
    runs.map(|r| {
        let field = |f: fn(&Run) -> f64| median(r.iter().map(f).collect());
        Run {
            wall: field(|r| r.wall),
            cpu: field(|r| r.cpu),
            runnable: field(|r| r.runnable),
            blocked: field(|r| r.blocked),
            longest_busy: field(|r| r.longest_busy),
        }
    })
}

/// Speedup of the layer's work for rewritten pipelines from 4 threads instead of 1: module
/// and pipeline creation of cold gl_FragColor pipelines that the driver does not compile
/// (see [`create_fail_fast`]), so the layer's work is all there is. The wall-clock ratio
/// depends on how many CPUs are free; the threads' CPU, runnable and blocked times say
/// whether the layer itself serializes them (blocked time) or costs more CPU per pipeline
/// when concurrent. For comparison, the same with the driver compiling, with and without
/// the layer.
fn threads4_speedup(on: &Setup, off: &Setup, vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "threads4_speedup";
    if !on.gpu.fail_fast {
        return unavailable(NAME, "the device lacks pipelineCreationCacheControl");
    }
    let reps = runs.n(7);
    let count = 2000;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let before = vulkan.layer_counters().rewrites;
    let [one, four] = one_vs_four(
        reps,
        || (0..count).map(|_| fresh(&modules.fragcolor)).collect(),
        |inputs: &[Vec<u32>], threads| {
            let (wall, times, _) =
                concurrently(inputs, threads, |words| create_fail_fast(on, words));
            Run::of(wall, &times)
        },
    );
    let rewrites = vulkan.layer_counters().rewrites - before;
    let [plain_one, plain_four] = one_vs_four(
        reps,
        || {
            (0..count)
                .map(|_| rewrite_fragcolor8(&fresh(&modules.fragcolor)))
                .collect()
        },
        |inputs: &[Vec<u32>], threads| {
            let (wall, times, _) =
                concurrently(inputs, threads, |words| create_fail_fast(off, words));
            Run::of(wall, &times)
        },
    );

    // With the driver compiling: modules created beforehand, pipelines timed.
    let compiled = |s: &Setup, prepare: &dyn Fn() -> Vec<u32>| {
        let [one, four] = one_vs_four(
            reps.min(5),
            || (0..32).map(|_| s.gpu.module(&prepare())).collect(),
            |fragments: &[ash::vk::ShaderModule], threads| {
                let (wall, times, pipelines) =
                    concurrently(fragments, threads, |&f| s.gpu.pipeline(&s.eight(f)));
                pipelines
                    .into_iter()
                    .for_each(|p| s.gpu.destroy_pipeline(p));
                fragments.iter().for_each(|&f| s.gpu.destroy_module(f));
                Run::of(wall, &times)
            },
        );
        one.wall / four.wall
    };
    let with_layer = compiled(on, &|| fresh(&modules.fragcolor));
    let without_layer = compiled(off, &|| rewrite_fragcolor8(&fresh(&modules.fragcolor)));
    // On idle CPUs a run takes as long as its longest thread is busy (on a CPU or blocked),
    // or its CPU time spread over the CPUs, whichever is longer.
    // That is the figure: CPU-time-normalised, so that other processes holding the CPUs
    // (runnable time) do not decide it; the layer's own serialization (blocked time) and
    // any extra CPU per pipeline when the threads run together still count.
    let idle_estimate =
        (one.cpu + one.blocked) / (four.cpu / cpus.min(4) as f64).max(four.longest_busy);
    let share = |part: f64, run: &Run| 100.0 * part / (run.cpu + run.runnable + run.blocked);
    figure(
        NAME,
        idle_estimate,
        2,
        Target::AtLeast(1.8),
        &format!(
            "CPU-time-normalised: 1 thread's busy time (CPU + blocked) / the longer of 4 \
             threads' summed CPU time over min(CPUs, 4) and the busiest thread's busy time, \
             medians over {reps} runs for {count} cold gl_FragColor pipelines the driver does \
             not compile ({rewrites} rewrites ran); wall clock: 1 thread {:.1} ms / 4 threads \
             {:.1} ms = {:.2}; \
             thread time: CPU {:.1} ms with 1 thread, {:.1} ms summed over 4; blocked {:.1}% / \
             {:.1}%; waiting for a CPU {:.0}% / {:.0}% ({cpus} CPUs, load average {}); the \
             same calls without the layer, wall clock: {:.2} \
             (CPU {:.1} ms / {:.1} ms summed over 4); with the driver compiling 32 pipelines: {with_layer:.2} with the layer, \
             {without_layer:.2} without",
            ms(one.wall),
            ms(four.wall),
            one.wall / four.wall,
            ms(one.cpu),
            ms(four.cpu),
            share(one.blocked, &one),
            share(four.blocked, &four),
            share(one.runnable, &one),
            share(four.runnable, &four),
            load_average(),
            plain_one.wall / plain_four.wall,
            ms(plain_one.cpu),
            ms(plain_four.cpu),
        ),
    );
}

/// VmRSS of this process (lavapipe's retained memory shows here).
fn resident_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .map(|l| l["VmRSS:".len()..].trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The 1-minute load average: the machine is shared, and scaling figures depend on it.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

fn layer_library() -> PathBuf {
    if let Some(path) = std::env::var_os("GLSEM_LAYER_LIB") {
        return path.into();
    }
    // target/release/deps/glsem-<hash> → target/release/libVkLayer_glsem.so
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("libVkLayer_glsem.so")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(application::STARTUP_CHILD) {
        return application::startup_child(
            args.get(2).map(String::as_str) == Some("on"),
            args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1),
        );
    }
    if args.get(1).map(String::as_str) == Some(LARGE_REWRITE_CHILD) {
        let words = shaders::large_fragment_shader(LARGE_FUNCTIONS, Output::FragColor);
        std::fs::remove_dir_all(shaders::scratch_dir()).ok();
        return println!("{}", large_rewrite_seconds(&words, 40));
    }
    if args.get(1).map(String::as_str) == Some(application::PASSTHROUGH_CHILD) {
        let layer = match args.get(2).map(String::as_str) {
            Some("glsem") => Layer::Glsem,
            Some("empty") => Layer::Empty,
            _ => Layer::None,
        };
        let count = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1000);
        let flag = |name: &str| args.iter().skip(4).any(|a| a == name);
        return application::passthrough_child(layer, count, flag("fail-fast"), flag("new-code"));
    }
    // `cargo test --all-targets` runs bench binaries without `--bench`: nothing to test.
    if !args.iter().any(|a| a == "--bench") {
        println!("glsem benchmarks: run scripts/bench.sh (or cargo bench --bench glsem)");
        return;
    }
    let runs = Runs {
        scale: if args.iter().any(|a| a == "--quick") {
            0.1
        } else {
            1.0
        },
    };
    // `--only A,B`: just the figures whose name contains A or B.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let wanted = |names: &[&str]| {
        only.as_ref()
            .is_none_or(|only| names.iter().any(|n| only.split(',').any(|o| n.contains(o))))
    };
    let started = Instant::now();
    let modules = Modules::compile();

    // The pure SPIR-V figures first, in a fresh process: lavapipe 22.3 keeps memory for
    // every pipeline created and destroyed (with or without the layer), and after the
    // thousands the other figures create, the allocation-heavy passes run 2-3x slower on
    // that heap (docs/performance.md).
    if wanted(&["rewrite_us_fragcolor8"]) {
        rewrite_us_fragcolor8(&modules, &runs);
    }
    if wanted(&["rewrite_us_xfb_struct"]) {
        rewrite_us_xfb_struct(&modules, &runs);
    }
    if wanted(&["rewrite_us_tcs"]) {
        rewrite_us_tcs(&modules, &runs);
    }
    if wanted(&["primitive_gs_us"]) {
        primitive_modes::primitive_gs_us(&modules, &runs);
    }
    if wanted(&["rewrite_us_points"]) {
        application::rewrite_us_points(&modules, &runs);
    }
    if wanted(&["rewrite_us_unfed_input"]) {
        application::rewrite_us_unfed_input(&modules, &runs);
    }
    if wanted(&["scan_gbps"]) {
        scan_gbps(&modules, &runs);
    }
    if wanted(&["large_module_rewrite_mbps", "spirv_opt_ratio"]) {
        large_module(&modules, &runs);
    }

    let vulkan = Vulkan::load(&layer_library());
    support::gpu::check_layer(&vulkan.entry);
    // Before any instance with the layer exists: the loader loads the library every time.
    if wanted(&[
        "instance_device_ratio",
        "empty_layer_ratio_instance_device",
        "glsem_over_empty_ratio_instance_device",
    ]) {
        application::instance_device_ratio(&vulkan, &runs);
    }
    if wanted(&["process_startup_ms"]) {
        application::process_startup_ms(&runs);
    }
    // Whole processes; before this process's heap grows with lavapipe's retained memory.
    if wanted(&["zink_piglit_ratio"]) {
        application::zink_piglit_ratio(&runs);
    }
    // Their own VK_GLSEM_gl_state devices, before lavapipe's retained memory grows.
    if wanted(&["vertex_attrib_ns"]) {
        gl_state::vertex_attrib_ns(&vulkan, &modules, &runs);
    }
    if wanted(&["line_state_patch_us"]) {
        gl_state::line_state_patch_us(&vulkan, &modules, &runs);
    }
    if wanted(&["polygon_variants_us", "polygon_mode_swap_ns"]) {
        primitive_modes::polygon_mode_variants(&vulkan, &modules, &runs);
    }
    if wanted(&["rewrite_us_vertex_formats"]) {
        vertex_formats::rewrite_us_vertex_formats(&modules, &runs);
    }
    if wanted(&[
        "vertex_input_variant_us",
        "vertex_input_bind_ns",
        "vertex_input_set_ns",
    ]) {
        vertex_formats::vertex_input_variants(&vulkan, &modules, &runs);
    }
    if wanted(&["followed_bind_ns"]) {
        gl_state::followed_bind_ns(&vulkan, &modules, &runs);
    }
    if wanted(&["line_loop_close_ns"]) {
        primitive_modes::line_loop_close_ns(&vulkan, &modules, &runs);
    }
    if wanted(&["draw_hooks_ns"]) {
        primitive_modes::draw_hooks_ns(&vulkan, &modules, &runs);
    }
    if wanted(&["converted_draw_us", "converted_draw_gpu_us"]) {
        primitive_modes::converted_draw_us(&vulkan, &modules, &runs);
    }
    let on_gpu = Gpu::new(&vulkan, Layer::Glsem);
    let empty_gpu = Gpu::new(&vulkan, Layer::Empty);
    let off_gpu = Gpu::new(&vulkan, Layer::None);
    let control_gpu = Gpu::new(&vulkan, Layer::None);
    {
        let on = Setup::new(&on_gpu, &modules);
        let empty = Setup::new(&empty_gpu, &modules);
        let off = Setup::new(&off_gpu, &modules);
        if wanted(&[
            "passthrough_pipeline_ratio",
            "empty_layer_ratio",
            "glsem_over_empty_ratio",
            "empty_layer_ratio_new_code",
            "glsem_over_empty_ratio_new_code",
        ]) {
            let control = Setup::new(&control_gpu, &modules);
            passthrough_pipeline_ratio(&on, &empty, &off, &control, &modules, &runs);
        }
        if wanted(&["layer_share_rewritten"]) {
            layer_share_rewritten(&on, &off, &vulkan, &modules, &runs);
        }
        if wanted(&[
            "bind_overhead_ns",
            "empty_layer_ratio_bind",
            "glsem_over_empty_ratio_bind",
        ]) {
            bind_overhead_ns(&on, &empty, &off, &modules, &runs);
        }
        if wanted(&["cache_rewrites_per_1000"]) {
            cache_rewrites_per_1000(&on, &vulkan, &modules);
        }
        if wanted(&["held_bytes_per_module_byte"]) {
            application::held_bytes_per_module_byte(&on, &off, &vulkan, &modules);
        }
        if wanted(&["threads4_speedup"]) {
            threads4_speedup(&on, &off, &vulkan, &modules, &runs);
        }
    }

    println!(
        "# glsem benchmarks: {} ({} CPUs), layer {}, medians{}",
        on_gpu.name,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        layer_library().display(),
        if runs.scale < 1.0 {
            ", --quick (10% of the runs)"
        } else {
            ""
        }
    );
    let mut figures = std::mem::take(&mut *REPORT.lock().unwrap());
    figures.sort_by_key(|(index, _)| *index);
    for (_, text) in figures {
        println!("{text}");
    }
    let compiled = COMPILED_ANYWAY.load(std::sync::atomic::Ordering::Relaxed);
    if compiled > 0 {
        println!(
            "# note: the driver created {compiled} pipelines despite \
             FAIL_ON_PIPELINE_COMPILE_REQUIRED: the layer-only figures include its time for them"
        );
    }
    println!(
        "# total {:.1} s; process resident memory at the end {}",
        started.elapsed().as_secs_f64(),
        resident_memory()
    );
    std::fs::remove_dir_all(shaders::scratch_dir()).ok();
}

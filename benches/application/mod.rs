//! "What a real application pays" (issue "Performance II"): instance and device creation
//! with the layer, a whole process's startup, the memory the layer keeps per module, the
//! point-size rewrite of a typical vertex shader, and piglit tests through zink as whole
//! processes.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::support::gpu::{Gpu, Layer, PipelineDesc, Vulkan};
use super::support::shaders::fresh;
use super::support::spirv_tools;
use super::support::timing::{
    ab_pairs, abc_triples, median, median_seconds, seconds, warm_up_runs,
};
use super::{allocations, figure, ms, unavailable, us, verdict, Modules, Runs, Setup, Target};
use glsem_spirv::point_size::{write_point_size, PointSizeSource};
use glsem_spirv::unfed_inputs::default_unfed_inputs;

/// Create + destroy an instance and a device (what `Gpu::create` does: instance, physical
/// device queries, device, one pipeline layout), with glsem, with the do-nothing layer and
/// without a layer, in this process.
/// Run before any other instance with the layer exists, so the loader loads the layer
/// library (and unloads it) every time, as an application that creates one instance does.
pub fn instance_device_ratio(vulkan: &Vulkan, runs: &Runs) {
    let pairs = runs.n(200);
    // The process's CPU seconds (all threads: lavapipe starts some) of the timed runs, per
    // side (glsem, the empty layer, none) and run index; the warm-up runs (index `pairs..`)
    // are not kept.
    let cpu = std::cell::RefCell::new([(); 3].map(|_| vec![f64::NAN; pairs]));
    let create = |layer: Layer, i: usize| {
        let before = process_cpu_seconds();
        let wall = seconds(|| drop(Gpu::create(&vulkan.entry, layer)));
        let side = match layer {
            Layer::Glsem => 0,
            Layer::Empty => 1,
            Layer::None => 2,
        };
        if let Some(slot) = cpu.borrow_mut()[side].get_mut(i) {
            *slot = process_cpu_seconds() - before;
        }
        wall
    };
    let samples = abc_triples(
        pairs,
        |i| create(Layer::Glsem, i),
        |i| create(Layer::Empty, i),
        |i| create(Layer::None, i),
    );
    let [cpu_on, _, cpu_off] = cpu.take();
    let cpu_ratio = median(cpu_on.iter().zip(&cpu_off).map(|(a, b)| a / b).collect());
    let ratio = median(samples.iter().map(|(a, _, c)| a / c).collect());
    let on = median(samples.iter().map(|s| s.0).collect());
    let empty = median(samples.iter().map(|s| s.1).collect());
    let off = median(samples.iter().map(|s| s.2).collect());
    let added = median(samples.iter().map(|(a, _, c)| a - c).collect());
    let create = |layered: bool| {
        let layer = if layered { Layer::Glsem } else { Layer::None };
        seconds(|| drop(Gpu::create(&vulkan.entry, layer)))
    };
    // The same with the library held open here: what is left without loading, relocating
    // and unloading it (the loader's dlopen / dlclose only count references).
    let held = {
        let _library = vulkan.hold_layer_library();
        ab_pairs(pairs, |_| create(true), |_| create(false))
    };
    let held_ratio = median(held.iter().map(|(a, b)| a / b).collect());
    let held_added = median(held.iter().map(|(a, b)| a - b).collect());
    figure(
        "instance_device_ratio",
        ratio,
        4,
        Target::AtMost(1.03),
        &format!(
            "median of {pairs} per-triple ratios glsem / no layer (A/B/C/C/B/A triples of \
             glsem, the empty layer and no layer, each vkCreateInstance + vkCreateDevice + \
             vkDestroyDevice + vkDestroyInstance); medians: on {:.3} ms, empty layer {:.3} ms, \
             off {:.3} ms, per-triple (on - off) {:.1} us; A/B/B/A pairs with the layer library \
             held open by the bench (no load, relocation or unload in them): {held_ratio:.4}, \
             (on - off) {:.1} us; the process's CPU time (all threads), median per-triple \
             ratio on / off: {cpu_ratio:.4}",
            ms(on),
            ms(empty),
            ms(off),
            us(added),
            us(held_added)
        ),
    );
    super::anchor_figures(
        "_instance_device",
        &samples,
        None,
        &format!(
            "median of {pairs} per-triple ratios (A/B/C/C/B/A triples; both layers keep their \
             library loaded from their first instance on); medians: glsem {:.3} ms, empty \
             layer {:.3} ms, none {:.3} ms",
            ms(on),
            ms(empty),
            ms(off)
        ),
    );
}

/// The argument that makes this binary a child of `process_startup_ms`.
pub const STARTUP_CHILD: &str = "--startup-child";

/// The child of `process_startup_ms`: load the loader, create an instance (with the layer
/// when `layered`) and a device, destroy them, exit. `repeat` more than 1 repeats the
/// creation in the one process (for profiles of `instance_device_ratio`'s work:
/// `valgrind --tool=callgrind <bench binary> --startup-child on 20`).
pub fn startup_child(layered: bool, repeat: usize) {
    let vulkan = Vulkan::loader_only();
    for _ in 0..repeat.max(1) {
        let layer = if layered { Layer::Glsem } else { Layer::None };
        drop(Gpu::create(&vulkan.entry, layer));
    }
}

/// The argument that makes this binary run the pass-through path alone, for profiles
/// (issue 35): `valgrind --tool=callgrind <bench binary> --passthrough-child glsem|empty|none
/// <count> [fail-fast] [new-code]`.
pub const PASSTHROUGH_CHILD: &str = "--passthrough-child";

/// `count` times what `passthrough_pipeline_ratio` times (two modules and a pass-through
/// pipeline, created and destroyed) on a device with `layer`; with `fail_fast`, the pipeline
/// asks for `VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT`, so that lavapipe
/// does not compile and the layer's share of the instructions stands out. With `new_code`,
/// each round takes the next of `new_code_pairs`, module pairs of distinct code, as
/// `glsem_over_empty_ratio_new_code` does, so that the layer copies and scans every module.
pub fn passthrough_child(layer: Layer, count: usize, fail_fast: bool, new_code: bool) {
    use super::support::shaders::compile;
    let vulkan = Vulkan::load(&super::layer_library());
    let gpu = Gpu::new(&vulkan, layer);
    let (vertex, fragment) = (compile("passthrough.vert"), compile("passthrough.frag"));
    let pairs = match new_code {
        true => super::new_code_pairs(&vertex, &fragment),
        false => vec![(vertex, fragment)],
    };
    let render_pass = gpu.render_pass(1);
    let flags = match fail_fast {
        true => ash::vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED,
        false => ash::vk::PipelineCreateFlags::empty(),
    };
    for i in 0..count {
        let (vertex, fragment) = &pairs[i % pairs.len()];
        let desc = PipelineDesc {
            vertex: gpu.module(vertex),
            fragment: gpu.module(fragment),
            render_pass,
            attachments: 1,
        };
        if let Ok(pipeline) = gpu.try_pipeline(&desc, flags) {
            gpu.destroy_pipeline(pipeline);
        }
        gpu.destroy_module(desc.vertex);
        gpu.destroy_module(desc.fragment);
    }
    gpu.destroy_render_pass(render_pass);
    std::fs::remove_dir_all(super::support::shaders::scratch_dir()).ok();
}

/// A whole process that creates an instance and a device, with the layer minus without:
/// median of per-pair differences of paired (A/B/B/A) runs of this binary as a child.
pub fn process_startup_ms(runs: &Runs) {
    let exe = std::env::current_exe().expect("the bench binary's path");
    // Each child's wall time, and its CPU time (user + system) aside.
    let cpu = std::cell::RefCell::new(Vec::new());
    let run = |side: &str| {
        let before = children_cpu_seconds();
        let wall = seconds(|| {
            let status = Command::new(&exe)
                .args([STARTUP_CHILD, side])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .expect("run the startup child");
            assert!(status.success(), "startup child ({side}) failed");
        });
        cpu.borrow_mut()
            .push((side == "on", children_cpu_seconds() - before));
        wall
    };
    let pairs = runs.n(60);
    let samples = ab_pairs(pairs, |_| run("on"), |_| run("off"));
    // The children's CPU times, paired as the wall times were (warm-up pairs dropped).
    let cpu = cpu.into_inner();
    let cpu = &cpu[2 * warm_up_runs(pairs)..];
    let cpu_on: Vec<f64> = cpu.iter().filter(|c| c.0).map(|c| c.1).collect();
    let cpu_off: Vec<f64> = cpu.iter().filter(|c| !c.0).map(|c| c.1).collect();
    let cpu_added = median(cpu_on.iter().zip(&cpu_off).map(|(a, b)| a - b).collect());
    let added = median(samples.iter().map(|(a, b)| a - b).collect());
    let mut sorted: Vec<f64> = samples.iter().map(|(a, b)| a - b).collect();
    sorted.sort_by(f64::total_cmp);
    let quartile = |q: usize| sorted[(sorted.len() - 1) * q / 4];
    figure(
        "process_startup_ms",
        ms(added),
        2,
        Target::AtMost(1.0),
        &format!(
            "median per-pair (on - off) of {pairs} A/B/B/A pairs of whole processes (this \
             binary as a child: load libvulkan, vkCreateInstance, vkCreateDevice, destroy, \
             exit); quartiles of the differences {:.2} / {:.2} ms; medians: on {:.2} ms, off \
             {:.2} ms; the children's CPU time (user + system), median per-pair (on - off): \
             {:.2} ms of {:.2} ms",
            ms(quartile(1)),
            ms(quartile(3)),
            ms(median(samples.iter().map(|s| s.0).collect())),
            ms(median(samples.iter().map(|s| s.1).collect())),
            ms(cpu_added),
            ms(median(cpu_off)),
        ),
    );
}

/// CPU seconds of this process, all threads (`CLOCK_PROCESS_CPUTIME_ID`).
fn process_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and out pointer.
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) },
        0
    );
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// CPU seconds (user + system) of this process's waited-for children so far.
fn children_cpu_seconds() -> f64 {
    // SAFETY: a valid `who` and out pointer.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Heap bytes in use in this process (glibc's `mallinfo2`: chunks in use plus mmapped).
fn heap_in_use() -> isize {
    // SAFETY: no arguments; glibc fills the struct.
    let info = unsafe { libc::mallinfo2() };
    (info.uordblks + info.hblkhd) as isize
}

/// What the layer keeps per byte of SPIR-V the application created and has not destroyed,
/// and what it keeps once the application destroyed its modules and pipelines.
///
/// The layer is the library the loader loaded, with its own allocations (the system
/// allocator, not this binary's counting one), so this compares the process heap
/// (`mallinfo2`) around the same calls on the device with the layer and on the device
/// without it: the driver's and loader's allocations are the same on both sides and cancel.
/// The breakdown per module comes from this binary's copy of the layer's record code under
/// the counting allocator.
pub fn held_bytes_per_module_byte(on: &Setup, off: &Setup, vulkan: &Vulkan, modules: &Modules) {
    const NAME: &str = "held_bytes_per_module_byte";
    // The bench's ordinary modules: a typical mix of small ones (1-3 KB each).
    let kinds: [&[u32]; 7] = [
        &modules.vertex,
        &modules.passthrough_fragment,
        &modules.fragcolor,
        &modules.xfb_struct_tes,
        &modules.tcs_pair_vertex,
        &modules.tcs_pair_tes,
        &modules.points_vertex,
    ];
    const COPIES: usize = 200;
    const REPS: usize = 5;
    const PIPELINES: usize = 16;
    let module_bytes: usize = kinds.iter().map(|k| k.len() * 4).sum::<usize>() * COPIES;
    // One side: heap growth while the modules live; then after destroying them and the
    // pass-through pipelines made from them; then what a rewritten pipeline leaves (the
    // rewrite cache's entry) after it and its module are destroyed.
    let side = |s: &Setup, inputs: &[Vec<u32>], rewritten: &[Vec<u32>]| -> [isize; 3] {
        let before = heap_in_use();
        let handles: Vec<_> = inputs.iter().map(|w| s.gpu.module(w)).collect();
        let alive = heap_in_use() - before;
        let pipelines: Vec<_> = handles
            .chunks(kinds.len())
            .take(PIPELINES)
            .map(|set| {
                s.gpu.pipeline(&PipelineDesc {
                    vertex: set[0],
                    fragment: set[1],
                    render_pass: s.one_attachment,
                    attachments: 1,
                })
            })
            .collect();
        pipelines
            .into_iter()
            .for_each(|p| s.gpu.destroy_pipeline(p));
        handles.into_iter().for_each(|m| s.gpu.destroy_module(m));
        let after = heap_in_use() - before;
        let before = heap_in_use();
        for words in rewritten {
            let fragment = s.gpu.module(words);
            let pipeline = s.gpu.pipeline(&s.eight(fragment));
            s.gpu.destroy_pipeline(pipeline);
            s.gpu.destroy_module(fragment);
        }
        [alive, after, heap_in_use() - before]
    };
    // The device without the layer gets the modules the layer would have produced for the
    // rewritten pipelines, so that the driver compiles the same shaders on both sides.
    let make_inputs = |s: &Setup| -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let rewritten = (0..PIPELINES).map(|_| fresh(&modules.fragcolor));
        (
            (0..COPIES)
                .flat_map(|_| kinds.iter().map(|k| fresh(k)))
                .collect(),
            match std::ptr::eq(s, off) {
                true => rewritten.map(|w| super::rewrite_fragcolor8(&w)).collect(),
                false => rewritten.collect(),
            },
        )
    };
    // Untimed warm-up: the layer's maps and the driver's pools reach their size.
    let counters_before = vulkan.layer_counters();
    for s in [on, off] {
        let (inputs, rewritten) = make_inputs(s);
        side(s, &inputs, &rewritten);
    }
    let mut held = [Vec::new(), Vec::new(), Vec::new()];
    for rep in 0..REPS {
        let order = if rep % 2 == 0 { [on, off] } else { [off, on] };
        let mut results = [[0; 3]; 2];
        for s in order {
            let (inputs, rewritten) = make_inputs(s);
            results[usize::from(std::ptr::eq(s, off))] = side(s, &inputs, &rewritten);
        }
        for (k, h) in held.iter_mut().enumerate() {
            h.push((results[0][k] - results[1][k]) as f64);
        }
    }
    let counters = vulkan.layer_counters();
    // This binary's copy of what the layer's vkCreateShaderModule keeps: the record (words,
    // scan summary), which the layer's map holds by value.
    let record = kinds.map(|k| {
        let words = fresh(k);
        let mut kept = None;
        let a = super::support::alloc::measure(|| {
            kept = Some(VkLayer_glsem::layer::records::ModuleRecord::new(
                glsem_spirv::scan::scan(&words),
                &words,
            ));
        });
        (a.bytes, a.calls)
    });
    let record_bytes: usize = record.iter().map(|r| r.0).sum();
    let record_calls: usize = record.iter().map(|r| r.1).sum();
    let range = |v: &[f64]| {
        (
            v.iter().copied().fold(f64::MAX, f64::min),
            v.iter().copied().fold(f64::MIN, f64::max),
        )
    };
    let [alive, after, cache] = held.clone().map(median);
    let (lo, hi) = range(&held[0]);
    let (after_lo, after_hi) = range(&held[1]);
    let count = (COPIES * kinds.len()) as f64;
    figure(
        NAME,
        alive / module_bytes as f64,
        3,
        Target::AtMost(1.1),
        &format!(
            "process heap (mallinfo2) growth with the layer minus without while {} modules \
             ({:.1} KB of SPIR-V: {COPIES} copies each of the bench's {} modules of {}..{} \
             bytes) are alive, over their bytes; median of {REPS} A/B runs: {alive:.0} bytes \
             ({lo:.0}..{hi:.0}), {:.0} per module of {:.0} bytes on average; of that, the \
             record (words, scan summary) allocates {:.0} bytes in {:.1} allocations per \
             module (this binary's copy, counted), the rest is malloc's chunk headers and the \
             module map; after the application destroyed them and {PIPELINES} pass-through \
             pipelines made from them: {after:.0} bytes held ({after_lo:.0}..{after_hi:.0}); \
             the layer's live records then: {} modules, {} pipelines (before the runs: {} / \
             {}); {PIPELINES} rewritten pipelines, created and destroyed with their modules, \
             leave {:.0} bytes each in the rewrite cache (bounded by rewrite_cache_mb; {} \
             entries now)",
            COPIES * kinds.len(),
            module_bytes as f64 / 1e3,
            kinds.len(),
            kinds.iter().map(|k| k.len() * 4).min().unwrap(),
            kinds.iter().map(|k| k.len() * 4).max().unwrap(),
            alive / count,
            module_bytes as f64 / count,
            record_bytes as f64 / kinds.len() as f64,
            record_calls as f64 / kinds.len() as f64,
            counters.shader_modules,
            counters.pipelines,
            counters_before.shader_modules,
            counters_before.pipelines,
            cache / PIPELINES as f64,
            counters.cache_entries,
        ),
    );
}

/// GL's point size written into a typical vertex shader (no `gl_PointSize` write).
pub fn rewrite_us_points(modules: &Modules, runs: &Runs) {
    const NAME: &str = "rewrite_us_points";
    let words = &modules.points_vertex;
    let rewrite = |w: &[u32]| write_point_size(w, "main", PointSizeSource::Default);
    let output = match rewrite(words) {
        Ok(Some(w)) => w,
        Ok(None) => return unavailable(NAME, "write_point_size left the VS unchanged"),
        Err(e) => return unavailable(NAME, &format!("write_point_size failed: {e}")),
    };
    let valid = spirv_tools::validate(&output, "vulkan1.0");
    let n = runs.n(3000);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n)).map(|_| fresh(words)).collect();
    let t = median_seconds(n, |i| {
        black_box(rewrite(black_box(&inputs[i])).unwrap());
    });
    figure(
        NAME,
        us(t),
        2,
        Target::AtMost(10.0),
        &format!(
            "median of {n} cold write_point_size(Default) calls on a typical {}-byte vertex \
             shader (transform block, 3 attributes, lighting, 3 varyings); {}; output \
             spirv-val: {}",
            words.len() * 4,
            allocations(|| {
                black_box(rewrite(&inputs[0]).unwrap());
            }),
            verdict(&valid)
        ),
    );
}

/// The unfed-input rewrite: the typical VS of `rewrite_us_points` with its `color` input
/// (Location 2) unfed, read as GL's (0, 0, 0, 1).
pub fn rewrite_us_unfed_input(modules: &Modules, runs: &Runs) {
    const NAME: &str = "rewrite_us_unfed_input";
    let words = &modules.points_vertex;
    let rewrite = |w: &[u32]| default_unfed_inputs(w, "main", &[0, 1]);
    let output = match rewrite(words) {
        Ok(Some(w)) => w,
        Ok(None) => return unavailable(NAME, "default_unfed_inputs left the VS unchanged"),
        Err(e) => return unavailable(NAME, &format!("default_unfed_inputs failed: {e}")),
    };
    let valid = spirv_tools::validate(&output, "vulkan1.0");
    let n = runs.n(3000);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n)).map(|_| fresh(words)).collect();
    let t = median_seconds(n, |i| {
        black_box(rewrite(black_box(&inputs[i])).unwrap());
    });
    figure(
        NAME,
        us(t),
        2,
        Target::AtMost(10.0),
        &format!(
            "median of {n} cold default_unfed_inputs calls (Locations 0 and 1 fed, 2 unfed) on \
             the {}-byte vertex shader of rewrite_us_points; {}; output spirv-val: {}",
            words.len() * 4,
            allocations(|| {
                black_box(rewrite(&inputs[0]).unwrap());
            }),
            verdict(&valid)
        ),
    );
}

/// piglit's `shader_runner`, where the piglit package put it.
fn shader_runner() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GLSEM_SHADER_RUNNER") {
        return Some(path.into());
    }
    let listed = Command::new("dpkg").args(["-L", "piglit"]).output().ok()?;
    String::from_utf8_lossy(&listed.stdout)
        .lines()
        .find(|l| l.ends_with("/bin/shader_runner"))
        .map(PathBuf::from)
}

/// The piglit tests of the figure: GLSL 1.10-1.50 execution tests (vertex, fragment,
/// geometry; the kind of shaders glsem rewrites: gl_FragColor, gl_FragData, points).
const PIGLIT_TESTS: [&str; 8] = [
    "spec/glsl-1.10/execution/chained-assignment.shader_test",
    "spec/glsl-1.10/execution/fs-loop-return.shader_test",
    "spec/glsl-1.10/execution/glsl-fs-fragdata-1.shader_test",
    "spec/glsl-1.10/execution/fs-frontfacing-ternary-1-neg-1.shader_test",
    "spec/glsl-1.20/execution/fs-mix-1.0.shader_test",
    "spec/glsl-1.10/execution/glsl-vs-ff-frag.shader_test",
    "spec/glsl-1.50/execution/geometry/point-size-out.shader_test",
    "spec/glsl-1.10/execution/fs-texture-select.shader_test",
];

/// piglit tests through zink as whole processes, glsem beneath zink against nothing.
pub fn zink_piglit_ratio(runs: &Runs) {
    const NAME: &str = "zink_piglit_ratio";
    let Some(runner) = shader_runner() else {
        return unavailable(
            NAME,
            "piglit's shader_runner is not installed (dpkg -L piglit)",
        );
    };
    // .../piglit/bin/shader_runner -> .../piglit/tests
    let tests_dir = runner
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("tests");
    let tests: Vec<PathBuf> = PIGLIT_TESTS
        .iter()
        .map(|t| tests_dir.join(t))
        .filter(|t| t.exists())
        .collect();
    if tests.is_empty() {
        return unavailable(NAME, "none of the piglit tests is installed");
    }
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("layer-manifest");
    // Wall seconds, CPU seconds (user + system) and whether the test passed.
    let run = |test: &Path, layered: bool| -> (f64, f64, bool) {
        let mut command = Command::new(&runner);
        command
            .arg(test)
            .args(["-auto", "-fbo"])
            .env("GALLIUM_DRIVER", "zink")
            .env("LIBGL_ALWAYS_SOFTWARE", "1")
            .env("PIGLIT_PLATFORM", "surfaceless_egl")
            .env("MESA_SHADER_CACHE_DISABLE", "true")
            .env_remove("VK_LOADER_LAYERS_ENABLE")
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        if layered {
            command
                .env("VK_ADD_LAYER_PATH", &manifest_dir)
                .env("VK_INSTANCE_LAYERS", "VK_LAYER_GLSEM_gl_semantics");
        } else {
            command
                .env_remove("VK_ADD_LAYER_PATH")
                .env_remove("VK_INSTANCE_LAYERS");
        }
        let cpu = children_cpu_seconds();
        let start = std::time::Instant::now();
        let output = command.output().expect("run shader_runner");
        let t = start.elapsed().as_secs_f64();
        let text = String::from_utf8_lossy(&output.stdout);
        (
            t,
            children_cpu_seconds() - cpu,
            text.contains("\"result\": \"pass\""),
        )
    };
    let reps = runs.n(6).min(6);
    let mut ratios = Vec::new();
    let mut cpu_ratios = Vec::new();
    let mut on_times = Vec::new();
    let mut off_times = Vec::new();
    let (mut passed_on, mut passed_off) = (0, 0);
    // Warm-up: the page cache holds the libraries and the tests.
    for test in &tests {
        run(test, true);
        run(test, false);
    }
    for rep in 0..reps {
        for test in &tests {
            let ((a, ca, pa), (b, cb, pb)) = if rep % 2 == 0 {
                let a = run(test, true);
                (a, run(test, false))
            } else {
                let b = run(test, false);
                (run(test, true), b)
            };
            ratios.push(a / b);
            cpu_ratios.push(ca / cb);
            on_times.push(a);
            off_times.push(b);
            passed_on += usize::from(pa);
            passed_off += usize::from(pb);
        }
    }
    let processes = reps * tests.len();
    figure(
        NAME,
        median(ratios),
        4,
        Target::AtMost(1.02),
        &format!(
            "median of {processes} per-pair ratios ({} piglit shader_runner tests x {reps} \
             A/B/B/A pairs, whole processes through zink on lavapipe, glsem beneath / nothing \
             beneath); medians per process: on {:.1} ms, off {:.1} ms; the processes' CPU \
             time (user + system), median per-pair ratio: {:.4}; passed: {passed_on} / \
             {passed_off} of {processes}",
            tests.len(),
            ms(median(on_times)),
            ms(median(off_times)),
            median(cpu_ratios),
        ),
    );
}

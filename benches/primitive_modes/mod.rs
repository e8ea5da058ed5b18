//! What GL's primitive modes cost (issue 31): the geometry shader the layer generates per
//! pipeline drawing GL's quads, and the closing segment of a line loop per draw.

use ash::vk;
use std::hint::black_box;

use glsem_abi::{
    PipelinePrimitiveModeCreateInfo, PrimitiveMode,
    STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
};
use glsem_spirv::primitive_mode::{build_primitive_gs, GlPrimitive, PrimitiveGsKey, Rasterized};

use super::support::gpu::{Gpu, PipelineDesc, Vulkan};
use super::support::shaders::fresh;
use super::support::spirv_tools;
use super::support::timing::{ab_pairs, median, median_seconds, seconds, warm_up_runs};
use super::{allocations, figure, unavailable, us, verdict, Modules, Runs, Target};

/// Generating the geometry shader for GL's quads after a vertex shader with 4 varyings
/// (the TCS bench's vertex shader), cold, as the first pipeline of a vertex shader pays it.
pub fn primitive_gs_us(modules: &Modules, runs: &Runs) {
    const NAME: &str = "primitive_gs_us";
    let key = PrimitiveGsKey {
        primitive: GlPrimitive::Quads,
        rasterized: Rasterized::Fill,
        provoking_last: true,
        point_size: false,
        culling: None,
        layer_copy: None,
    };
    let vertex = &modules.tcs_pair_vertex;
    let output = match build_primitive_gs(vertex, "main", &key) {
        Ok(words) => words,
        Err(e) => return unavailable(NAME, &format!("build_primitive_gs failed: {e}")),
    };
    let valid = spirv_tools::validate(&output, "vulkan1.0");
    let n = runs.n(3000);
    let inputs: Vec<Vec<u32>> = (0..n + warm_up_runs(n)).map(|_| fresh(vertex)).collect();
    let t = median_seconds(n, |i| {
        black_box(build_primitive_gs(black_box(&inputs[i]), "main", &key).unwrap());
    });
    figure(
        NAME,
        us(t),
        2,
        Target::AtMost(50.0),
        &format!(
            "median of {n} cold generations of the quads geometry shader for a VS with 4 \
             varyings (the µs a pipeline drawing GL_QUADS pays once per vertex shader; \
             cached after); {}; output spirv-val: {}",
            allocations(|| {
                black_box(build_primitive_gs(&inputs[0], "main", &key).unwrap());
            }),
            verdict(&valid)
        ),
    );
}

/// A pipeline on `gpu` drawing `mode` (with `topology` where the mode is none).
fn pipeline(
    gpu: &Gpu,
    desc: &PipelineDesc,
    mode: PrimitiveMode,
    topology: vk::PrimitiveTopology,
) -> vk::Pipeline {
    let gl_mode = PipelinePrimitiveModeCreateInfo {
        s_type: STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
        p_next: std::ptr::null(),
        primitive_mode: mode,
    };
    let next = match mode {
        PrimitiveMode::NONE => std::ptr::null(),
        _ => (&gl_mode as *const PipelinePrimitiveModeCreateInfo).cast(),
    };
    gpu.try_pipeline_chained(
        desc,
        vk::PipelineCreateFlags::empty(),
        topology,
        gpu.layout,
        next,
        &[],
    )
    .expect("vkCreateGraphicsPipelines")
}

/// Added time per non-indexed `vkCmdDraw` of a GL_LINE_LOOP pipeline (the layer's closing
/// segment: an index-buffer bind, an indexed draw, the application's index buffer put
/// back) over the same draw of a GL line strip, on one `VK_GLSEM_gl_state` device,
/// recorded (not submitted) A/B/B/A.
pub fn line_loop_close_ns(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "line_loop_close_ns";
    const DRAWS: usize = 1000;
    let gpu = Gpu::with_gl_state(vulkan, &[]);
    let desc = gpu.one_attachment_desc(&modules.vertex, &modules.passthrough_fragment);
    let strip = vk::PrimitiveTopology::LINE_STRIP;
    let loop_pipeline = pipeline(&gpu, &desc, PrimitiveMode::LINE_LOOP, strip);
    let strip_pipeline = pipeline(&gpu, &desc, PrimitiveMode::NONE, strip);
    let (pool, buffer) = gpu.command_pool();
    let d = &gpu.device;
    let record = |pipeline| {
        // SAFETY: the pool's only command buffer is never submitted; a draw outside a render
        // pass is only recorded (lavapipe records it; no validation layer here).
        unsafe {
            d.reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
                .unwrap();
            d.begin_command_buffer(buffer, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, pipeline);
            let t = seconds(|| {
                for _ in 0..DRAWS {
                    d.cmd_draw(buffer, 4, 1, 0, 0);
                }
            });
            d.end_command_buffer(buffer).unwrap();
            t / DRAWS as f64
        }
    };
    let pairs = runs.n(300);
    let samples = ab_pairs(pairs, |_| record(loop_pipeline), |_| record(strip_pipeline));
    // SAFETY: the command buffer is not pending.
    unsafe { d.destroy_command_pool(pool, None) };
    for p in [loop_pipeline, strip_pipeline] {
        gpu.destroy_pipeline(p);
    }
    let added = median(samples.iter().map(|(a, b)| a - b).collect());
    figure(
        NAME,
        added * 1e9,
        1,
        Target::Reported,
        &format!(
            "median per-pair (loop - strip) over {pairs} A/B pairs of {DRAWS} draws recorded \
             into one command buffer; medians per draw: loop {:.1} ns, strip {:.1} ns",
            median(samples.iter().map(|s| s.0).collect()) * 1e9,
            median(samples.iter().map(|s| s.1).collect()) * 1e9
        ),
    );
}

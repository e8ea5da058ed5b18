//! Every vertex format GL reads (issues 41 and 43): what the vertex shader's rewrite costs
//! per pipeline, and, where the vertex input is apart from the shader, what the pipeline
//! the layer makes again at record time for a `vkCmdSetVertexInputEXT` it cannot read as
//! given costs on first use, and what the layer adds to the binds and
//! `vkCmdSetVertexInputEXT` of a pipeline it keeps for that, where nothing needs it.

use ash::vk;
use std::hint::black_box;

use glsem_spirv::vertex_formats::{
    assign_locations, refetch_vertex_inputs, Fetch, Layout, Numeric, RefetchedAttribute,
    VertexFormat,
};

use super::support::gpu::{Gpu, Vulkan};
use super::support::shaders::fresh;
use super::support::spirv_tools;
use super::support::timing::{ab_pairs, median, median_seconds, warm_up_runs};
use super::{allocations, figure, unavailable, us, verdict, Modules, Runs, Target};

/// `rewrite_us_vertex_formats`: the vertex shader of `rewrite_us_points` rewritten to read
/// its `vec3 normal` (Location 1) from three signed normalized shorts at an odd offset
/// (byte by byte, GL's conversion in the shader), cold, as each new (shader, attributes)
/// pays it once; nothing is added per draw (the conversion is a few instructions per
/// vertex).
pub fn rewrite_us_vertex_formats(modules: &Modules, runs: &Runs) {
    const NAME: &str = "rewrite_us_vertex_formats";
    let words = &modules.points_vertex;
    let mut attributes = [RefetchedAttribute {
        location: 1,
        format: VertexFormat {
            numeric: Numeric::Snorm,
            bits: 16,
            components: 3,
            layout: Layout::Plain,
        },
        offsets_fit: true,
        fetch_locations: Vec::new(),
        fetch: Fetch::Pieces { bits: 8, lead: 0 },
    }];
    if assign_locations(&mut attributes, &[0, 1, 2], 16).is_err() {
        return unavailable(NAME, "no free Location");
    }
    let rewrite = |w: &[u32]| refetch_vertex_inputs(w, "main", &attributes);
    let output = match rewrite(words) {
        Ok(Some(w)) => w,
        Ok(None) => return unavailable(NAME, "refetch_vertex_inputs left the VS unchanged"),
        Err(e) => return unavailable(NAME, &format!("refetch_vertex_inputs failed: {e}")),
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
        Target::Reported,
        &format!(
            "median of {n} cold refetch_vertex_inputs calls (a vec3 from R16G16B16_SNORM at \
             an odd offset, read byte by byte at Locations {:?}) on the {}-byte vertex shader \
             of rewrite_us_points; no cost per draw; {}; output spirv-val: {}",
            attributes[0].fetch_locations,
            words.len() * 4,
            allocations(|| {
                black_box(rewrite(&inputs[0]).unwrap());
            }),
            verdict(&valid)
        ),
    );
}

/// The state `vkCmdSetVertexInputEXT` gives: one `R16G16B16A16_UNORM` attribute at
/// Location 0, at `offset` in vertices of `stride` bytes.
fn state(
    offset: u32,
    stride: u32,
) -> (
    vk::VertexInputBindingDescription2EXT<'static>,
    vk::VertexInputAttributeDescription2EXT<'static>,
) {
    (
        vk::VertexInputBindingDescription2EXT::default()
            .binding(0)
            .stride(stride)
            .input_rate(vk::VertexInputRate::VERTEX)
            .divisor(1),
        vk::VertexInputAttributeDescription2EXT::default()
            .location(0)
            .binding(0)
            .format(vk::Format::R16G16B16A16_UNORM)
            .offset(offset),
    )
}

/// `vertex_input_variant_us`: a pipeline with dynamic vertex input, created fresh, bound and
/// given shorts one byte into 9-byte vertices (a pipeline made again: its shader reads them
/// byte by byte) over the same given them aligned (nothing made), A/B pairs.
/// `vertex_input_bind_ns` / `vertex_input_set_ns`: per bind of such a pipeline, and per
/// `vkCmdSetVertexInputEXT` with it bound, of an aligned state, over the same commands with
/// a pipeline whose vertex input is static (which the layer does not keep).
pub fn vertex_input_variants(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const CALLS: usize = 1000;
    let gpu = Gpu::with_dynamic_vertex_input(vulkan);
    let desc = gpu.one_attachment_desc(&modules.unfed_input_vertex, &modules.passthrough_fragment);
    let flags = vk::PipelineCreateFlags::empty();
    let triangles = vk::PrimitiveTopology::TRIANGLE_LIST;
    let null = std::ptr::null();
    let create = |dynamic: &[vk::DynamicState]| {
        gpu.try_pipeline_chained(&desc, flags, triangles, gpu.layout, null, dynamic)
    };
    let dynamic_input = [vk::DynamicState::VERTEX_INPUT_EXT];
    let (Ok(kept), Ok(plain)) = (create(&dynamic_input), create(&[])) else {
        for name in [
            "vertex_input_variant_us",
            "vertex_input_bind_ns",
            "vertex_input_set_ns",
        ] {
            unavailable(name, "the device lacks VK_EXT_vertex_input_dynamic_state");
        }
        return;
    };
    let d = &gpu.device;
    let set = ash::ext::vertex_input_dynamic_state::Device::new(&gpu.instance, d);
    let (pool, buffer) = gpu.command_pool();
    // SAFETY (every closure below): the command buffer `recorded_per_call` is recording;
    // the pipelines list the vertex input as dynamic state where it is set.
    let bind = |pipeline| unsafe {
        d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, pipeline)
    };
    let set_state = |(binding, attribute)| unsafe {
        set.cmd_set_vertex_input(buffer, &[binding], &[attribute])
    };
    let aligned = state(0, 8);
    let first_use = |given| {
        let pipeline = create(&dynamic_input).expect("vkCreateGraphicsPipelines");
        let t = gpu.recorded_per_call((pool, buffer), 1, || bind(pipeline), |_| set_state(given));
        gpu.destroy_pipeline(pipeline);
        t
    };
    let pairs = runs.n(20);
    let made = ab_pairs(pairs, |_| first_use(state(1, 9)), |_| first_use(aligned));
    figure(
        "vertex_input_variant_us",
        median(made.iter().map(|(a, b)| a - b).collect()) * 1e6,
        0,
        Target::Reported,
        &format!(
            "median per-pair (unaligned - aligned) over {pairs} A/B pairs of one \
             vkCmdSetVertexInputEXT after binding a fresh pipeline with dynamic vertex input \
             (the pipeline made again, once per distinct need; later uses find it); medians: \
             unaligned {:.0} µs, aligned {:.1} µs",
            median(made.iter().map(|m| m.0).collect()) * 1e6,
            median(made.iter().map(|m| m.1).collect()) * 1e6
        ),
    );
    let pairs = runs.n(300);
    let binds = ab_pairs(
        pairs,
        |_| gpu.recorded_per_call((pool, buffer), CALLS, || set_state(aligned), |_| bind(kept)),
        |_| {
            gpu.recorded_per_call(
                (pool, buffer),
                CALLS,
                || set_state(aligned),
                |_| bind(plain),
            )
        },
    );
    let sets = ab_pairs(
        pairs,
        |_| gpu.recorded_per_call((pool, buffer), CALLS, || bind(kept), |_| set_state(aligned)),
        |_| {
            gpu.recorded_per_call(
                (pool, buffer),
                CALLS,
                || bind(plain),
                |_| set_state(aligned),
            )
        },
    );
    // SAFETY: the command buffer is not pending.
    unsafe { d.destroy_command_pool(pool, None) };
    for p in [kept, plain] {
        gpu.destroy_pipeline(p);
    }
    gpu.destroy_render_pass(desc.render_pass);
    gpu.destroy_module(desc.vertex);
    gpu.destroy_module(desc.fragment);
    for (name, samples, what) in [
        ("vertex_input_bind_ns", &binds, "vkCmdBindPipeline"),
        (
            "vertex_input_set_ns",
            &sets,
            "vkCmdSetVertexInputEXT (aligned)",
        ),
    ] {
        figure(
            name,
            median(samples.iter().map(|(a, b)| a - b).collect()) * 1e9,
            1,
            Target::Reported,
            &format!(
                "median per-pair (kept pipeline with dynamic vertex input - pipeline with a \
                 static one) over {pairs} A/B pairs of {CALLS} {what}, nothing made again; \
                 medians per call: kept {:.1} ns, static {:.1} ns",
                median(samples.iter().map(|s| s.0).collect()) * 1e9,
                median(samples.iter().map(|s| s.1).collect()) * 1e9
            ),
        );
    }
}

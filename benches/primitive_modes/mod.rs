//! What GL's primitive modes cost (issue 31): the geometry shader the layer generates per
//! pipeline drawing GL's quads, and the closing segment of a line loop per draw; what a
//! draw converted on the GPU costs, and what the draw hooks cost where nothing is converted
//! (issue 40).

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
        route_copy: None,
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
    // SAFETY (both closures): the command buffer `recorded_per_call` is recording; a draw
    // outside a render pass is only recorded (lavapipe records it; no validation layer here).
    let record = |pipeline| {
        gpu.recorded_per_call(
            (pool, buffer),
            DRAWS,
            || unsafe { d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, pipeline) },
            |_| unsafe { d.cmd_draw(buffer, 4, 1, 0, 0) },
        )
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

/// A 16×16 colour target of `pass` (one attachment): image, its memory, view, framebuffer.
struct ColorTarget {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    framebuffer: vk::Framebuffer,
}

const TARGET_SIZE: u32 = 16;

impl ColorTarget {
    fn new(gpu: &Gpu, pass: vk::RenderPass) -> ColorTarget {
        let d = &gpu.device;
        // SAFETY: valid create infos on `gpu`'s device; everything is destroyed by `destroy`.
        unsafe {
            let info = vk::ImageCreateInfo::default()
                .image_type(vk::ImageType::TYPE_2D)
                .format(vk::Format::R8G8B8A8_UNORM)
                .extent(vk::Extent3D {
                    width: TARGET_SIZE,
                    height: TARGET_SIZE,
                    depth: 1,
                })
                .mip_levels(1)
                .array_layers(1)
                .samples(vk::SampleCountFlags::TYPE_1)
                .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT);
            let image = d.create_image(&info, None).unwrap();
            let memory = gpu.memory_for(d.get_image_memory_requirements(image));
            d.bind_image_memory(image, memory, 0).unwrap();
            let view = d
                .create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(vk::Format::R8G8B8A8_UNORM)
                        .subresource_range(vk::ImageSubresourceRange {
                            aspect_mask: vk::ImageAspectFlags::COLOR,
                            level_count: 1,
                            layer_count: 1,
                            ..Default::default()
                        }),
                    None,
                )
                .unwrap();
            let views = [view];
            let framebuffer = d
                .create_framebuffer(
                    &vk::FramebufferCreateInfo::default()
                        .render_pass(pass)
                        .attachments(&views)
                        .width(TARGET_SIZE)
                        .height(TARGET_SIZE)
                        .layers(1),
                    None,
                )
                .unwrap();
            ColorTarget {
                image,
                memory,
                view,
                framebuffer,
            }
        }
    }

    fn destroy(self, gpu: &Gpu) {
        // SAFETY: used by no pending work (the caller waited).
        unsafe {
            gpu.device.destroy_framebuffer(self.framebuffer, None);
            gpu.device.destroy_image_view(self.view, None);
            gpu.device.destroy_image(self.image, None);
            gpu.device.free_memory(self.memory, None);
        }
    }
}

/// The CPU time of recording a `vkCmdDrawIndexed` of a GL_LINE_LOOP pipeline inside a
/// render pass, which the layer converts on the GPU (the render pass ended and begun again,
/// two barriers, a dispatch, the indirect draw; its memory and descriptor set), over the
/// same draw of a GL line strip (`converted_draw_us`); and the GPU time of a submission of
/// such draws, per draw, over the strip's (`converted_draw_gpu_us`).
pub fn converted_draw_us(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const DRAWS: usize = 32;
    let gpu = Gpu::with_gl_state(vulkan, &[]);
    let desc = gpu.one_attachment_desc(&modules.vertex, &modules.passthrough_fragment);
    let strip = vk::PrimitiveTopology::LINE_STRIP;
    let loop_pipeline = pipeline(&gpu, &desc, PrimitiveMode::LINE_LOOP, strip);
    let strip_pipeline = pipeline(&gpu, &desc, PrimitiveMode::NONE, strip);
    let target = ColorTarget::new(&gpu, desc.render_pass);
    let usage = vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
    let (indices, indices_memory) = gpu.buffer(16, usage);
    let (pool, cb) = gpu.command_pool();
    let d = &gpu.device;
    let queue = gpu.queue();
    // SAFETY: a fence of `gpu`'s device, destroyed below.
    let fence = unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }.unwrap();
    let record = |pipeline| {
        let clear = [vk::ClearValue::default()];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(desc.render_pass)
            .framebuffer(target.framebuffer)
            .render_area(vk::Rect2D {
                extent: vk::Extent2D {
                    width: TARGET_SIZE,
                    height: TARGET_SIZE,
                },
                ..Default::default()
            })
            .clear_values(&clear);
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::INDEX_READ);
        // SAFETY: the pool's only command buffer, not pending (each submission is waited
        // for); the render pass, framebuffer, pipelines and buffer are `gpu`'s.
        unsafe {
            d.reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
                .unwrap();
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_update_buffer(
                cb,
                indices,
                0,
                &[0u8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
            );
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::VERTEX_INPUT,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
            d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipeline);
            d.cmd_bind_index_buffer(cb, indices, 0, vk::IndexType::UINT32);
            let t = seconds(|| {
                for _ in 0..DRAWS {
                    d.cmd_draw_indexed(cb, 4, 1, 0, 0, 0);
                }
            });
            d.cmd_end_render_pass(cb);
            d.end_command_buffer(cb).unwrap();
            t / DRAWS as f64
        }
    };
    let submit = || {
        // SAFETY: the command buffer just recorded, submitted once and waited for.
        unsafe {
            let cbs = [cb];
            let t = seconds(|| {
                d.queue_submit(
                    queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )
                .unwrap();
                d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            });
            d.reset_fences(&[fence]).unwrap();
            t / DRAWS as f64
        }
    };
    let pairs = runs.n(40);
    let cpu = ab_pairs(pairs, |_| record(loop_pipeline), |_| record(strip_pipeline));
    let gpu_times = ab_pairs(
        pairs,
        |_| {
            record(loop_pipeline);
            submit()
        },
        |_| {
            record(strip_pipeline);
            submit()
        },
    );
    // SAFETY: nothing is pending (every submission was waited for).
    unsafe {
        d.destroy_fence(fence, None);
        d.destroy_command_pool(pool, None);
        d.destroy_buffer(indices, None);
        d.free_memory(indices_memory, None);
    }
    target.destroy(&gpu);
    for p in [loop_pipeline, strip_pipeline] {
        gpu.destroy_pipeline(p);
    }
    gpu.destroy_render_pass(desc.render_pass);
    gpu.destroy_module(desc.vertex);
    gpu.destroy_module(desc.fragment);
    for (name, samples, what) in [
        ("converted_draw_us", cpu, "recorded"),
        (
            "converted_draw_gpu_us",
            gpu_times,
            "submitted and waited for",
        ),
    ] {
        let added = median(samples.iter().map(|(a, b)| a - b).collect());
        figure(
            name,
            added * 1e6,
            2,
            Target::Reported,
            &format!(
                "median per-pair (loop - strip) over {pairs} A/B pairs of {DRAWS} \
                 vkCmdDrawIndexed {what} in one render pass; medians per draw: loop {:.2} µs, \
                 strip {:.2} µs",
                median(samples.iter().map(|s| s.0).collect()) * 1e6,
                median(samples.iter().map(|s| s.1).collect()) * 1e6
            ),
        );
    }
}

/// The time per draw the layer's draw hooks add where nothing is converted: `vkCmdDraw`,
/// `vkCmdDrawIndexed`, `vkCmdDrawIndirect` and `vkCmdDrawIndexedIndirect` of a plain
/// pipeline on a `VK_GLSEM_gl_state` device through glsem, over the same draws on a device
/// without a layer, recorded (not submitted) A/B/B/A; the figure is the largest of the four.
pub fn draw_hooks_ns(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "draw_hooks_ns";
    const DRAWS: usize = 1000;
    let on = Gpu::with_gl_state(vulkan, &[]);
    let off = Gpu::new(vulkan, super::support::gpu::Layer::None);
    let setups: Vec<_> = [&on, &off]
        .into_iter()
        .map(|gpu| {
            let desc = gpu.one_attachment_desc(&modules.vertex, &modules.passthrough_fragment);
            let pipeline = pipeline(
                gpu,
                &desc,
                PrimitiveMode::NONE,
                vk::PrimitiveTopology::LINE_STRIP,
            );
            let usage = vk::BufferUsageFlags::INDEX_BUFFER | vk::BufferUsageFlags::INDIRECT_BUFFER;
            let (buffer, memory) = gpu.buffer(64, usage);
            let (pool, cb) = gpu.command_pool();
            (gpu, desc, pipeline, buffer, memory, pool, cb)
        })
        .collect();
    let record = |setup: usize, kind: usize| {
        let (gpu, _, pipeline, buffer, _, pool, cb) = &setups[setup];
        let d = &gpu.device;
        // SAFETY: the pool's only command buffer is never submitted; draws outside a render
        // pass are only recorded (lavapipe records them; no validation layer here).
        unsafe {
            d.reset_command_pool(*pool, vk::CommandPoolResetFlags::empty())
                .unwrap();
            d.begin_command_buffer(*cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            d.cmd_bind_pipeline(*cb, vk::PipelineBindPoint::GRAPHICS, *pipeline);
            d.cmd_bind_index_buffer(*cb, *buffer, 0, vk::IndexType::UINT32);
            let t = seconds(|| {
                for _ in 0..DRAWS {
                    match kind {
                        0 => d.cmd_draw(*cb, 4, 1, 0, 0),
                        1 => d.cmd_draw_indexed(*cb, 4, 1, 0, 0, 0),
                        2 => d.cmd_draw_indirect(*cb, *buffer, 0, 1, 16),
                        _ => d.cmd_draw_indexed_indirect(*cb, *buffer, 0, 1, 20),
                    }
                }
            });
            d.end_command_buffer(*cb).unwrap();
            t / DRAWS as f64
        }
    };
    let pairs = runs.n(200);
    let kinds = [
        "vkCmdDraw",
        "vkCmdDrawIndexed",
        "vkCmdDrawIndirect",
        "vkCmdDrawIndexedIndirect",
    ];
    let added: Vec<f64> = (0..kinds.len())
        .map(|kind| {
            let samples = ab_pairs(pairs, |_| record(0, kind), |_| record(1, kind));
            median(samples.iter().map(|(a, b)| a - b).collect()) * 1e9
        })
        .collect();
    for (gpu, desc, pipeline, buffer, memory, pool, _) in setups {
        // SAFETY: nothing was submitted.
        unsafe {
            gpu.device.destroy_command_pool(pool, None);
            gpu.device.destroy_buffer(buffer, None);
            gpu.device.free_memory(memory, None);
        }
        gpu.destroy_pipeline(pipeline);
        gpu.destroy_render_pass(desc.render_pass);
        gpu.destroy_module(desc.vertex);
        gpu.destroy_module(desc.fragment);
    }
    let worst = added.iter().copied().fold(f64::MIN, f64::max);
    let each: Vec<String> = kinds
        .iter()
        .zip(&added)
        .map(|(k, a)| format!("{k} {a:.1}"))
        .collect();
    figure(
        NAME,
        worst,
        1,
        Target::AtMost(100.0),
        &format!(
            "the largest of the medians per-pair (glsem with VK_GLSEM_gl_state - no layer) over \
             {pairs} A/B pairs of {DRAWS} draws recorded, per draw in ns: {}",
            each.join(", ")
        ),
    );
}

/// GL's quads under a dynamic polygon mode (issue 43): what the two pipelines the layer makes
/// beside the application's at creation add to it (`polygon_variants_us`: a GL_QUADS
/// pipeline with `VK_DYNAMIC_STATE_POLYGON_MODE_EXT` over the same pipeline with a static
/// `GL_FILL`, A/B pairs, each created and destroyed), and what a `vkCmdSetPolygonModeEXT`
/// that swaps the bound pipeline for the variant of the new mode costs over the same call
/// with a plain pipeline bound, which needs none (`polygon_mode_swap_ns`, recorded A/B/B/A).
pub fn polygon_mode_variants(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const SETS: usize = 1000;
    let gpu = Gpu::with_gl_state_dynamic_lines(vulkan);
    let desc = gpu.one_attachment_desc(&modules.vertex, &modules.passthrough_fragment);
    let gl_mode = PipelinePrimitiveModeCreateInfo {
        s_type: STRUCTURE_TYPE_PIPELINE_PRIMITIVE_MODE_CREATE_INFO,
        p_next: std::ptr::null(),
        primitive_mode: PrimitiveMode::QUADS,
    };
    let quads = (&gl_mode as *const PipelinePrimitiveModeCreateInfo).cast();
    let dynamic = [vk::DynamicState::POLYGON_MODE_EXT];
    let create = |next, dynamic: &[vk::DynamicState]| {
        let topology = vk::PrimitiveTopology::TRIANGLE_LIST;
        let flags = vk::PipelineCreateFlags::empty();
        gpu.try_pipeline_chained(&desc, flags, topology, gpu.layout, next, dynamic)
            .expect("vkCreateGraphicsPipelines")
    };
    let created = |dynamic: &[vk::DynamicState]| {
        let mut pipeline = vk::Pipeline::null();
        let t = seconds(|| pipeline = create(quads, dynamic));
        gpu.destroy_pipeline(pipeline);
        t
    };
    let pairs = runs.n(20);
    let made = ab_pairs(pairs, |_| created(&dynamic), |_| created(&[]));
    let added = median(made.iter().map(|(a, b)| a - b).collect());
    figure(
        "polygon_variants_us",
        added * 1e6,
        0,
        Target::Reported,
        &format!(
            "median per-pair (dynamic - static polygon mode) over {pairs} A/B pairs of a \
             GL_QUADS pipeline created and destroyed (the GL_LINE and GL_POINT pipelines made \
             beside it, paid once per pipeline at creation, none at record time); medians: \
             dynamic {:.0} µs, static {:.0} µs",
            median(made.iter().map(|m| m.0).collect()) * 1e6,
            median(made.iter().map(|m| m.1).collect()) * 1e6
        ),
    );
    let with_variants = create(quads, &dynamic);
    let plain = create(std::ptr::null(), &dynamic);
    let (pool, buffer) = gpu.command_pool();
    let d = &gpu.device;
    let eds3 = ash::ext::extended_dynamic_state3::Device::new(&gpu.instance, d);
    let mode = |i| match i % 2 {
        0 => vk::PolygonMode::LINE,
        _ => vk::PolygonMode::FILL,
    };
    // SAFETY (both closures): the command buffer `recorded_per_call` is recording; the
    // pipeline lists the polygon mode as dynamic state on a device with the feature.
    let record = |pipeline| {
        gpu.recorded_per_call(
            (pool, buffer),
            SETS,
            || unsafe { d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, pipeline) },
            |i| unsafe { eds3.cmd_set_polygon_mode(buffer, mode(i)) },
        )
    };
    let pairs = runs.n(300);
    let samples = ab_pairs(pairs, |_| record(with_variants), |_| record(plain));
    // SAFETY: the command buffer is not pending.
    unsafe { d.destroy_command_pool(pool, None) };
    for p in [with_variants, plain] {
        gpu.destroy_pipeline(p);
    }
    gpu.destroy_render_pass(desc.render_pass);
    gpu.destroy_module(desc.vertex);
    gpu.destroy_module(desc.fragment);
    let added = median(samples.iter().map(|(a, b)| a - b).collect());
    figure(
        "polygon_mode_swap_ns",
        added * 1e9,
        1,
        Target::Reported,
        &format!(
            "median per-pair (GL_QUADS pipeline with variants - plain pipeline) over {pairs} \
             A/B pairs of {SETS} vkCmdSetPolygonModeEXT alternating LINE and FILL, each one \
             binding the other variant; medians per call: with variants {:.1} ns, plain {:.1} ns",
            median(samples.iter().map(|s| s.0).collect()) * 1e9,
            median(samples.iter().map(|s| s.1).collect()) * 1e9
        ),
    );
}

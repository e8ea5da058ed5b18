//! What `VK_GLSEM_gl_state` costs where an application pays it per call or per pipeline:
//! `vkCmdSetVertexAttribGLSEM` (issue 26) and GL's Bresenham lines patched into a line
//! pipeline's rasterization state (issue 25). Each figure creates its own devices with the
//! extension (and the settings it compares) and destroys them before the next one.

use ash::vk;
use std::ffi::{c_void, CStr};
use std::time::Instant;

use super::support::gpu::{Gpu, PipelineDesc, Vulkan};
use super::support::timing::{ab_pairs, median, seconds};
use super::{figure, unavailable, us, Modules, Runs, Target};

/// `PFN_vkCmdSetVertexAttribGLSEM` (include/vk_glsem.h).
type SetVertexAttrib = unsafe extern "system" fn(vk::CommandBuffer, u32, vk::Format, *const c_void);

/// The layer's device command `name` on `gpu`, or `None` where the layer does not give it.
fn layer_command(gpu: &Gpu, name: &CStr) -> Option<SetVertexAttrib> {
    // SAFETY: a valid device and a nul-terminated name.
    let f = unsafe {
        gpu.instance
            .get_device_proc_addr(gpu.device.handle(), name.as_ptr())
    }?;
    // SAFETY: the layer returns a function of this type for this name (include/vk_glsem.h).
    Some(unsafe { std::mem::transmute::<unsafe extern "system" fn(), SetVertexAttrib>(f) })
}

/// Per call of `vkCmdSetVertexAttribGLSEM` (`glVertexAttrib4f`) while a pipeline whose
/// vertex shader reads GL's current value of that attribute is bound: the layer keeps the
/// value, writes a 512-byte snapshot of the 32 current values into its mapped memory and
/// binds it (`vkCmdBindVertexBuffers` on its stride-0 binding). Against the same 16 bytes
/// by `vkCmdPushConstants` (which the layer does not intercept: the driver's own command)
/// in the same command buffer of the same device, A/B/B/A.
pub fn vertex_attrib_ns(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "vertex_attrib_ns";
    const CALLS: usize = 1000;
    let gpu = Gpu::with_gl_state(vulkan, &[]);
    let Some(set_vertex_attrib) = layer_command(&gpu, c"vkCmdSetVertexAttribGLSEM") else {
        return unavailable(NAME, "the layer gives no vkCmdSetVertexAttribGLSEM");
    };
    let d = &gpu.device;
    let range = vk::PushConstantRange {
        stage_flags: vk::ShaderStageFlags::VERTEX,
        offset: 0,
        size: 16,
    };
    let ranges = [range];
    // SAFETY: valid create info.
    let layout = unsafe {
        d.create_pipeline_layout(
            &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&ranges),
            None,
        )
    }
    .expect("vkCreatePipelineLayout");
    let desc = gpu.one_attachment_desc(&modules.unfed_input_vertex, &modules.passthrough_fragment);
    let pipeline = gpu
        .try_pipeline_with(
            &desc,
            vk::PipelineCreateFlags::empty(),
            vk::PrimitiveTopology::TRIANGLE_LIST,
            layout,
        )
        .expect("vkCreateGraphicsPipelines");
    let (pool, buffer) = gpu.command_pool();
    // Two values in turn, as an application changing the attribute between draws does.
    let values: [[f32; 4]; 2] = [[1.0, 0.5, 0.25, 1.0], [0.0, 1.0, 0.5, 1.0]];
    // Seconds per call of `command(i)` for `CALLS` calls recorded into a fresh recording of
    // the command buffer, with the pipeline bound first or not.
    let record = |bound: bool, command: &dyn Fn(usize)| {
        // SAFETY: the pool's only command buffer is never submitted; the commands'
        // arguments are valid (the layer's command: 16 bytes of a format it takes).
        unsafe {
            d.reset_command_pool(pool, vk::CommandPoolResetFlags::empty())
                .unwrap();
            d.begin_command_buffer(buffer, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            if bound {
                d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, pipeline);
            }
            let t = seconds(|| (0..CALLS).for_each(command));
            d.end_command_buffer(buffer).unwrap();
            t / CALLS as f64
        }
    };
    let attrib = |i: usize| {
        let value = values[i % 2].as_ptr().cast();
        // SAFETY: see `record`.
        unsafe { set_vertex_attrib(buffer, 0, vk::Format::R32G32B32A32_SFLOAT, value) };
    };
    let push = |i: usize| {
        let bytes: Vec<u8> = values[i % 2].iter().flat_map(|v| v.to_ne_bytes()).collect();
        // SAFETY: 16 bytes inside the layout's vertex-stage range.
        unsafe { d.cmd_push_constants(buffer, layout, vk::ShaderStageFlags::VERTEX, 0, &bytes) };
    };
    let pairs = runs.n(300);
    let samples = ab_pairs(pairs, |_| record(true, &attrib), |_| record(true, &push));
    // The same calls with no pipeline bound that reads the values: the layer only keeps them.
    let unbound = median((0..pairs).map(|_| record(false, &attrib)).collect());
    // SAFETY: nothing was submitted; the layer returns the command buffer's chunks.
    unsafe {
        d.destroy_command_pool(pool, None);
        d.destroy_pipeline_layout(layout, None);
    }
    gpu.destroy_pipeline(pipeline);
    gpu.destroy_module(desc.vertex);
    gpu.destroy_module(desc.fragment);
    gpu.destroy_render_pass(desc.render_pass);
    let attrib_median = median(samples.iter().map(|s| s.0).collect());
    let push_median = median(samples.iter().map(|s| s.1).collect());
    let ratio = median(samples.iter().map(|(a, b)| a / b).collect());
    figure(
        NAME,
        attrib_median * 1e9,
        1,
        Target::AtMost(1000.0),
        &format!(
            "median ns per vkCmdSetVertexAttribGLSEM (two vec4 values in turn, Location 0) \
             with a pipeline bound whose VS reads it unfed (snapshot + vertex-buffer bind per \
             call), over {pairs} A/B/B/A pairs of {CALLS} calls recorded into one command \
             buffer; vkCmdPushConstants of the same 16 bytes in the same command buffer: \
             {:.1} ns; median per-pair ratio {ratio:.2}; with no pipeline bound that reads \
             it (the value only kept): {:.1} ns",
            push_median * 1e9,
            unbound * 1e9,
        ),
    );
}

/// One side of `line_state_patch_us`: a `VK_GLSEM_gl_state` device with one
/// `line_rasterization` setting, and the modules and render pass of its pipelines.
struct LineSide {
    gpu: Gpu,
    desc: PipelineDesc,
}

impl LineSide {
    fn new(vulkan: &Vulkan, modules: &Modules, line_rasterization: &CStr) -> LineSide {
        let gpu = Gpu::with_gl_state(vulkan, &[(c"line_rasterization", line_rasterization)]);
        let desc = gpu.one_attachment_desc(&modules.vertex, &modules.passthrough_fragment);
        LineSide { gpu, desc }
    }

    /// Seconds per pipeline of `batch` pipelines of `topology` created (and destroyed)
    /// with `flags`; counts in `compiled` those the driver created despite
    /// `FAIL_ON_PIPELINE_COMPILE_REQUIRED`.
    fn create(
        &self,
        topology: vk::PrimitiveTopology,
        flags: vk::PipelineCreateFlags,
        batch: usize,
        compiled: &std::cell::Cell<usize>,
    ) -> f64 {
        let fail_fast = flags.contains(vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED);
        let start = Instant::now();
        let mut created = Vec::with_capacity(batch);
        for _ in 0..batch {
            match self
                .gpu
                .try_pipeline_with(&self.desc, flags, topology, self.gpu.layout)
            {
                Ok(pipeline) => created.push(pipeline),
                Err(e) => assert_eq!(e, vk::Result::PIPELINE_COMPILE_REQUIRED),
            }
        }
        let elapsed = start.elapsed().as_secs_f64();
        if fail_fast {
            compiled.set(compiled.get() + created.len());
        }
        created
            .into_iter()
            .for_each(|p| self.gpu.destroy_pipeline(p));
        elapsed / batch as f64
    }
}

impl Drop for LineSide {
    fn drop(&mut self) {
        self.gpu.destroy_module(self.desc.vertex);
        self.gpu.destroy_module(self.desc.fragment);
        self.gpu.destroy_render_pass(self.desc.render_pass);
    }
}

/// What GL's lines add to a line pipeline's creation: the same `LINE_LIST` pipeline on two
/// `VK_GLSEM_gl_state` devices, `line_rasterization = gl` (the layer chains
/// `VK_LINE_RASTERIZATION_MODE_BRESENHAM`, stippled, and adds the stipple as dynamic state)
/// and `= vulkan` (the rest of the layer's work the same: provoking vertex, depth clip
/// control), created with `FAIL_ON_PIPELINE_COMPILE_REQUIRED` so that the driver does not
/// compile and the layer's work is what is timed. Control: `TRIANGLE_LIST` pipelines on
/// the same two devices, where the setting changes nothing.
pub fn line_state_patch_us(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "line_state_patch_us";
    const BATCH: usize = 20;
    let gl = LineSide::new(vulkan, modules, c"gl");
    let plain = LineSide::new(vulkan, modules, c"vulkan");
    if !(gl.gpu.fail_fast && plain.gpu.fail_fast) {
        return unavailable(NAME, "the device lacks pipelineCreationCacheControl");
    }
    let compiled = std::cell::Cell::new(0);
    let fail_fast = vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED;
    let pairs = runs.n(1500);
    let compare = |topology, flags, pairs, batch| {
        let samples = ab_pairs(
            pairs,
            |_| gl.create(topology, flags, batch, &compiled),
            |_| plain.create(topology, flags, batch, &compiled),
        );
        let (a, b) = (
            median(samples.iter().map(|s| s.0).collect()),
            median(samples.iter().map(|s| s.1).collect()),
        );
        (median(samples.iter().map(|(a, b)| a - b).collect()), a, b)
    };
    let (lines, lines_gl, lines_plain) =
        compare(vk::PrimitiveTopology::LINE_LIST, fail_fast, pairs, BATCH);
    let (triangles, ..) = compare(
        vk::PrimitiveTopology::TRIANGLE_LIST,
        fail_fast,
        pairs,
        BATCH,
    );
    // Cross-check with the driver compiling, one pipeline a sample (the driver's work for
    // a Bresenham, stippled pipeline included, and its noise: two large numbers).
    let compiling_pairs = runs.n(100);
    let (compiling, compiling_gl, _) = compare(
        vk::PrimitiveTopology::LINE_LIST,
        vk::PipelineCreateFlags::empty(),
        compiling_pairs,
        1,
    );
    let compiled = match compiled.get() {
        0 => String::new(),
        n => format!(
            "; the driver created {n} pipelines despite FAIL_ON_PIPELINE_COMPILE_REQUIRED: \
             its time for them is in the figure"
        ),
    };
    figure(
        NAME,
        us(lines),
        3,
        Target::AtMost(1.0),
        &format!(
            "median per-pair (gl - vulkan) us per LINE_LIST pipeline over {pairs} A/B/B/A \
             pairs of {BATCH} creations the driver does not compile \
             (FAIL_ON_PIPELINE_COMPILE_REQUIRED), on two VK_GLSEM_gl_state devices with \
             line_rasterization = gl / vulkan; medians per pipeline: gl {:.2} us, vulkan \
             {:.2} us; control, TRIANGLE_LIST on the same devices: {:.3} us; with the driver \
             compiling ({compiling_pairs} pairs, the driver's work for the line state included): \
             {:.2} us of {:.3} ms{compiled}",
            us(lines_gl),
            us(lines_plain),
            us(triangles),
            us(compiling),
            compiling_gl * 1e3,
        ),
    );
}

/// Per `vkCmdBindPipeline` of a line pipeline whose line mode is dynamic state the layer
/// follows (issue 32): the whole bind (the driver's, and the layer's bookkeeping of the
/// deciding state, with the mode set when it changes), against one
/// `vkCmdSetLineRasterizationModeEXT` recorded through the layer (target: at most twice
/// that), and the bind of a line pipeline whose mode the layer chained (stippled: the layer
/// sets the stipple at its bind). One `VK_GLSEM_gl_state` device with `extendedDynamicState3LineRasterizationMode`,
/// A/B/B/A, recorded, not submitted.
pub fn followed_bind_ns(vulkan: &Vulkan, modules: &Modules, runs: &Runs) {
    const NAME: &str = "followed_bind_ns";
    const CALLS: usize = 1000;
    let gpu = Gpu::with_gl_state_dynamic_lines(vulkan);
    let desc = gpu.one_attachment_desc(&modules.vertex, &modules.passthrough_fragment);
    let lines = vk::PrimitiveTopology::LINE_LIST;
    let flags = vk::PipelineCreateFlags::empty();
    let null = std::ptr::null();
    let followed = gpu.try_pipeline_chained(
        &desc,
        flags,
        lines,
        gpu.layout,
        null,
        &[vk::DynamicState::LINE_RASTERIZATION_MODE_EXT],
    );
    let chained = gpu.try_pipeline_chained(&desc, flags, lines, gpu.layout, null, &[]);
    let (Ok(followed), Ok(chained)) = (followed, chained) else {
        return unavailable(NAME, "the device lacks a dynamic line rasterization mode");
    };
    let d = &gpu.device;
    let set_mode = ash::ext::extended_dynamic_state3::Device::new(&gpu.instance, d);
    let (pool, buffer) = gpu.command_pool();
    // Seconds per call of `command()` for `CALLS` calls recorded into a fresh recording,
    // after the application's own `DEFAULT` (what a GL port sets for a dynamic mode).
    let record = |command: &dyn Fn()| {
        // SAFETY: the command buffer `recorded_per_call` is recording.
        let prepare = || unsafe {
            d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, followed);
            set_mode.cmd_set_line_rasterization_mode(buffer, vk::LineRasterizationModeEXT::DEFAULT);
        };
        gpu.recorded_per_call((pool, buffer), CALLS, prepare, |_| command())
    };
    // SAFETY (the three closures): a command buffer in the recording state (above).
    let bind = |pipeline| {
        move || unsafe { d.cmd_bind_pipeline(buffer, vk::PipelineBindPoint::GRAPHICS, pipeline) }
    };
    let pairs = runs.n(300);
    let binds = ab_pairs(
        pairs,
        |_| record(&bind(followed)),
        |_| record(&bind(chained)),
    );
    let set_alone = median(
        (0..pairs)
            .map(|_| {
                record(&|| unsafe {
                    set_mode.cmd_set_line_rasterization_mode(
                        buffer,
                        vk::LineRasterizationModeEXT::DEFAULT,
                    )
                })
            })
            .collect(),
    );
    // SAFETY: the command buffer is not pending.
    unsafe { d.destroy_command_pool(pool, None) };
    for p in [followed, chained] {
        gpu.destroy_pipeline(p);
    }
    let followed_bind = median(binds.iter().map(|s| s.0).collect());
    figure(
        NAME,
        followed_bind * 1e9,
        1,
        Target::AtMost((2.0 * set_alone * 1e9).round()),
        &format!(
            "median ns per bind of the followed pipeline over {pairs} A/B pairs of {CALLS} \
             binds; the chained (stippled) pipeline's bind {:.1} ns; one \
             vkCmdSetLineRasterizationModeEXT through the layer {:.1} ns (the target: twice it)",
            median(binds.iter().map(|s| s.1).collect()) * 1e9,
            set_alone * 1e9
        ),
    );
}

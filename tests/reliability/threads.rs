//! Many threads on one device: 8 threads each create and destroy pipelines — rewritten
//! (gl_FragColor into 3 attachments, an XFB struct split with its fragment input, a TES
//! without TCS) and passed through, mixed in the same arrays — and record command buffers
//! that set the default tessellation levels and bind TES-only pipelines. No deadlock (a
//! watchdog fails the test), every pipeline is created, every thread's draws show GL's
//! results and its own levels, validation stays quiet, and the layer's records go back to
//! zero.
//!
//! Validation stays on. `GLSEM_STRESS_PIPELINES` sets the pipelines per thread (default
//! 200; the figure), `GLSEM_STRESS_TIMEOUT` the watchdog in seconds (default 300).

use crate::support::*;
use ash::vk;
use std::sync::{mpsc, Arc};
use std::time::Duration;

type S = vk::ShaderStageFlags;

const THREADS: usize = 8;
/// One array per batch: one pipeline of each kind.
const KINDS: usize = 4;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Shared {
    // Fields drop in order: the device before its instance, also when a test fails.
    device: Device,
    instance: Instance,
    set_levels: SetLevels,
    plain_vs: vk::ShaderModule,
    plain_fs: vk::ShaderModule,
    frag_color: vk::ShaderModule,
    xfb_vs: vk::ShaderModule,
    xfb_fs: vk::ShaderModule,
    patch_vs: vk::ShaderModule,
    levels_tes: vk::ShaderModule,
    patch_fs: vk::ShaderModule,
    pass3: vk::RenderPass,
    pass1: vk::RenderPass,
    layout: vk::PipelineLayout,
}

impl Shared {
    fn new() -> Shared {
        let instance = Instance::new(WITH_VALIDATION);
        let mut xfb =
            vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default().transform_feedback(true);
        let device = instance.device_with(
            &[LEVELS_EXTENSION, ash::ext::transform_feedback::NAME],
            &mut [&mut xfb],
        );
        let set_levels = set_levels_fn(&instance, &device);
        Shared {
            set_levels,
            plain_vs: device.module(&glsl("layer/plain.vert")),
            plain_fs: device.module(&glsl("layer/plain.frag")),
            frag_color: device.module(&glsl_for_gl("layer/fragcolor.frag")),
            xfb_vs: device.module(&glsl("reliability/xfb_struct.vert")),
            xfb_fs: device.module(&glsl("reliability/xfb_struct.frag")),
            patch_vs: device.module(&glsl("layer/patch.vert")),
            levels_tes: device.module(&glsl("reliability/levels.tese")),
            patch_fs: device.module(&glsl("layer/patch.frag")),
            pass3: device.render_pass(3),
            pass1: device.render_pass(1),
            layout: device.layout(&[]),
            instance,
            device,
        }
    }

    /// One create info of each kind: gl_FragColor, XFB struct, TES-only, plain.
    fn batch(&self) -> [Desc<'static>; KINDS] {
        let (l, p1) = (self.layout, self.pass1);
        [
            Desc::new(
                &[(S::VERTEX, self.plain_vs), (S::FRAGMENT, self.frag_color)],
                l,
                self.pass3,
                3,
            ),
            Desc::new(
                &[(S::VERTEX, self.xfb_vs), (S::FRAGMENT, self.xfb_fs)],
                l,
                p1,
                1,
            ),
            Desc::new(
                &[
                    (S::VERTEX, self.patch_vs),
                    (S::TESSELLATION_EVALUATION, self.levels_tes),
                    (S::FRAGMENT, self.patch_fs),
                ],
                l,
                p1,
                1,
            ),
            Desc::new(
                &[(S::VERTEX, self.plain_vs), (S::FRAGMENT, self.plain_fs)],
                l,
                p1,
                1,
            ),
        ]
    }
}

/// Thread `t`'s levels: outer[0] = t + 1, outer[1] = 8 - t, inner[0] = 2 (all in 1..=8).
fn levels(t: usize) -> ([f32; 4], [f32; 2]) {
    ([t as f32 + 1.0, 8.0 - t as f32, 3.0, 1.0], [2.0, 1.0])
}

/// GL: the TES draws (outer[0], outer[1], inner[0]) / 9 into UNORM8.
fn levels_pixels(t: usize) -> Vec<u8> {
    let (outer, inner) = levels(t);
    let unorm = |x: f32| (x / 9.0 * 255.0).round() as u8;
    [unorm(outer[0]), unorm(outer[1]), unorm(inner[0]), 255]
        .repeat((RENDER_SIZE * RENDER_SIZE) as usize)
}

/// Creates `per_thread` pipelines in arrays of one per kind, destroying each batch once the
/// next exists; records command buffers around them; ends by drawing with the last batch.
fn work(shared: &Shared, t: usize, per_thread: usize) {
    let d = &shared.device.device;
    let (outer, inner) = levels(t);
    let pool_info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(0)
        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let pool = unsafe { d.create_command_pool(&pool_info, None) }.unwrap();
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    let cb = unsafe { d.allocate_command_buffers(&alloc) }.unwrap()[0];
    let mut previous: Option<Vec<vk::Pipeline>> = None;
    for _ in 0..per_thread.div_ceil(KINDS) {
        let (result, pipelines) =
            shared
                .device
                .create_pipelines(vk::PipelineCache::null(), &shared.batch(), None);
        assert_eq!(result, vk::Result::SUCCESS, "thread {t}");
        // Levels set before and after binding a TES-only pipeline; the layer pushes them.
        unsafe {
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            (shared.set_levels)(cb, outer.as_ptr(), inner.as_ptr());
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[2]);
            (shared.set_levels)(cb, outer.as_ptr(), inner.as_ptr());
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, pipelines[3]);
            d.end_command_buffer(cb).unwrap();
        }
        if let Some(old) = previous.replace(pipelines) {
            for p in old {
                unsafe { d.destroy_pipeline(p, None) };
            }
        }
    }
    let last = previous.expect("at least one batch");
    let images = shared
        .device
        .render(&shared.instance, last[0], shared.pass3, 3, 3);
    // GL: gl_FragColor (0.25, 0.4, 0.75, 1) in every draw buffer.
    let frag_color = [64u8, 102, 191, 255].repeat((RENDER_SIZE * RENDER_SIZE) as usize);
    for (i, image) in images.iter().enumerate() {
        assert_eq!(image, &frag_color, "thread {t}, attachment {i}");
    }
    let image =
        shared
            .device
            .render_with(&shared.instance, last[2], shared.pass1, 1, 3, |cb| unsafe {
                (shared.set_levels)(cb, outer.as_ptr(), inner.as_ptr())
            });
    assert_eq!(image[0], levels_pixels(t), "thread {t}: its own levels");
    for p in last {
        unsafe { d.destroy_pipeline(p, None) };
    }
    unsafe { d.destroy_command_pool(pool, None) };
}

#[test]
fn eight_threads_create_destroy_and_record_on_one_device() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader, Feature::TransformFeedback]) {
        return;
    }
    let per_thread = env_or("GLSEM_STRESS_PIPELINES", 200) as usize;
    let timeout = Duration::from_secs(env_or("GLSEM_STRESS_TIMEOUT", 300));
    let before = counters();
    let shared = Arc::new(Shared::new());
    let (done, finished) = mpsc::channel();
    let workers = {
        let shared = shared.clone();
        std::thread::spawn(move || {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let shared = shared.clone();
                    std::thread::spawn(move || work(&shared, t, per_thread))
                })
                .collect();
            let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
            let _ = done.send(());
            results
        })
    };
    if finished.recv_timeout(timeout).is_err() {
        panic!("the threads did not finish within {timeout:?}: deadlock?");
    }
    for (t, result) in workers.join().unwrap().into_iter().enumerate() {
        if let Err(e) = result {
            std::panic::resume_unwind(Box::new(format!("thread {t} failed: {e:?}")));
        }
    }
    let live = counters();
    assert_eq!(live.pipelines, before.pipelines, "pipeline records left");
    assert_eq!(
        live.command_buffers, before.command_buffers,
        "command-buffer records left"
    );
    assert!(
        live.rewrites >= before.rewrites + 4,
        "gl_FragColor, XFB outputs, XFB inputs and the TCS were rewritten"
    );
    let shared = Arc::into_inner(shared).expect("the threads are done");
    let d = &shared.device.device;
    unsafe {
        for m in [
            shared.plain_vs,
            shared.plain_fs,
            shared.frag_color,
            shared.xfb_vs,
            shared.xfb_fs,
            shared.patch_vs,
            shared.levels_tes,
            shared.patch_fs,
        ] {
            d.destroy_shader_module(m, None);
        }
        d.destroy_render_pass(shared.pass3, None);
        d.destroy_render_pass(shared.pass1, None);
        d.destroy_pipeline_layout(shared.layout, None);
    }
    shared.device.destroy();
    shared.instance.assert_clean();
    let after = counters();
    assert_eq!(
        after,
        DebugCounters {
            rewrites: after.rewrites,
            fast_path_pipelines: after.fast_path_pipelines,
            ..DebugCounters::default()
        },
        "records left after vkDestroyDevice"
    );
}

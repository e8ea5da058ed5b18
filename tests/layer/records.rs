//! Every record the layer keeps for a device is dropped by vkDestroyDevice, even when the
//! application leaks the objects (one test per binary: the counters are process-wide).

use crate::support::*;
use ash::vk;

type S = vk::ShaderStageFlags;

#[test]
fn every_record_is_dropped_at_destroy_device() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    // No validation layer: leaking children at vkDestroyDevice is what this test does.
    let instance = Instance::new(GLSEM_ONLY);
    assert_eq!(counters().devices, 0);
    let device = instance.device(&[]);
    let vs = device.module(&glsl("layer/patch.vert"));
    let tes = device.module(&glsl("layer/patch.tese"));
    let fs = device.module(&glsl("layer/patch.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let (_pool, _cb) = device.begin_commands();
    let plain = device.pipeline(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1);
    assert!(plain.is_ok());
    // A TES without TCS goes through the planner and the rewrite cache.
    let tes_only = device.pipeline(
        &[
            (S::VERTEX, vs),
            (S::TESSELLATION_EVALUATION, tes),
            (S::FRAGMENT, fs),
        ],
        layout,
        pass,
        1,
    );

    let live = counters();
    assert_eq!(live.devices, 1);
    assert_eq!(live.shader_modules, 3);
    assert_eq!(live.render_passes, 1);
    assert_eq!(live.pipeline_layouts, 1);
    assert_eq!(live.command_buffers, 1);
    assert_eq!(
        live.cache_entries, 1,
        "the generated TCS (or its failure) is cached"
    );
    // Only pipelines the layer generated something for are recorded.
    assert_eq!(live.pipelines, u64::from(tes_only.is_ok()));

    device.destroy();
    let after = counters();
    let zero = DebugCounters {
        rewrites: after.rewrites,
        fast_path_pipelines: after.fast_path_pipelines,
        ..DebugCounters::default()
    };
    assert_eq!(after, zero, "records left after vkDestroyDevice");
}

//! `VK_DYNAMIC_STATE_PATCH_CONTROL_POINTS_EXT` on a pipeline with a TES and no TCS: the
//! generated TCS serves every patch size (its output patch is `maxTessellationPatchSize`
//! vertices, each invocation copying input vertex `min(gl_InvocationID,
//! gl_PatchVerticesIn - 1)`). Checked through the real loader under the validation layer
//! on lavapipe: the primitives GL draws for two patch sizes set at draw time.

use crate::support::*;
use ash::vk;

type S = vk::ShaderStageFlags;

#[test]
fn tes_only_pipeline_with_dynamic_patch_size_draws_gl_primitives() {
    let _serial = serial();
    if !needs(&[
        Feature::TessellationShader,
        Feature::PipelineStatisticsQuery,
    ]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    let eds2 = ash::ext::extended_dynamic_state2::NAME;
    if !has_device_extension(&instance, eds2) {
        println!("SKIP: the driver has no VK_EXT_extended_dynamic_state2");
        return;
    }
    let mut features = vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default()
        .extended_dynamic_state2_patch_control_points(true);
    let core = vk::PhysicalDeviceFeatures::default()
        .tessellation_shader(true)
        .geometry_shader(true)
        .pipeline_statistics_query(true);
    let device = instance.device_with_core(&[eds2, LEVELS_EXTENSION], core, &mut [&mut features]);
    let d = &device.device;
    let vs = device.module(&glsl("layer/patch.vert"));
    let tes = device.module(&glsl("layer/patch.tese"));
    let fs = device.module(&glsl("layer/patch.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let mut desc = Desc::new(
        &[
            (S::VERTEX, vs),
            (S::TESSELLATION_EVALUATION, tes),
            (S::FRAGMENT, fs),
        ],
        layout,
        pass,
        1,
    );
    desc.dynamic = vec![vk::DynamicState::PATCH_CONTROL_POINTS_EXT];
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS, "one TCS for every patch size");
    let set_levels = set_levels_fn(&instance, &device);
    let set_patch: vk::PFN_vkCmdSetPatchControlPointsEXT =
        device_fn(&instance, &device, c"vkCmdSetPatchControlPointsEXT");
    let queries = device.clipping_queries(3);
    let images = device.render_with(&instance, pipelines[0], pass, 1, 0, |cb| unsafe {
        // 3 control points, 3 vertices: one patch; 6 control points, 12 vertices: two
        // patches (the TES reads the first 3 of each); then 3 at levels 2.
        for (query, points, vertices, level) in [(0, 3, 3, 1.0f32), (1, 6, 12, 1.0), (2, 3, 3, 2.0)]
        {
            set_patch(cb, points);
            set_levels(
                cb,
                [level, level, level, 1.0].as_ptr(),
                [level, 1.0].as_ptr(),
            );
            d.cmd_begin_query(cb, queries, query, vk::QueryControlFlags::empty());
            d.cmd_draw(cb, vertices, 1, 0, 0);
            d.cmd_end_query(cb, queries, query);
        }
    });
    let primitives: [u64; 3] = device.take_query_results(queries);
    // GL: a triangle patch at levels 1 is one triangle; at outer and inner levels 2, six.
    assert_eq!(primitives, [1, 2, 6]);
    assert!(images[0].chunks(4).any(|p| p[3] != 0), "nothing drawn");
    device.destroy_objects(&pipelines, &[layout], &[pass], &[vs, tes, fs]);
    device.destroy();
    instance.assert_clean();
}

/// The cost of serving every patch size: draws of many 3-vertex patches through the TCS
/// for 3 control points and through the one for any count (32 output vertices), timed on
/// the host around the submission. `cargo test --test layer_features dynamic_patch:: -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn measure_the_tcs_for_any_patch_size() {
    let _serial = serial();
    if !needs(&[Feature::TessellationShader]) {
        return;
    }
    let instance = Instance::new(GLSEM_ONLY);
    let eds2 = ash::ext::extended_dynamic_state2::NAME;
    if !has_device_extension(&instance, eds2) {
        println!("SKIP: the driver has no VK_EXT_extended_dynamic_state2");
        return;
    }
    let mut features = vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default()
        .extended_dynamic_state2_patch_control_points(true);
    let device = instance.device_with(&[eds2], &mut [&mut features]);
    let vs = device.module(&glsl("layer/patch.vert"));
    let tes = device.module(&glsl("layer/patch.tese"));
    let fs = device.module(&glsl("layer/patch.frag"));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let stages = [
        (S::VERTEX, vs),
        (S::TESSELLATION_EVALUATION, tes),
        (S::FRAGMENT, fs),
    ];
    let fixed = Desc::new(&stages, layout, pass, 1);
    let mut any = Desc::new(&stages, layout, pass, 1);
    any.dynamic = vec![vk::DynamicState::PATCH_CONTROL_POINTS_EXT];
    let (result, pipelines) =
        device.create_pipelines(vk::PipelineCache::null(), &[fixed, any], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let set_patch: vk::PFN_vkCmdSetPatchControlPointsEXT =
        device_fn(&instance, &device, c"vkCmdSetPatchControlPointsEXT");
    const PATCHES: u32 = 200_000;
    for (name, pipeline, dynamic) in [
        ("3 output vertices", pipelines[0], false),
        ("any size (32)", pipelines[1], true),
    ] {
        let mut times = Vec::new();
        for _ in 0..7 {
            let start = std::time::Instant::now();
            device.render_with(&instance, pipeline, pass, 1, 3 * PATCHES, |cb| unsafe {
                if dynamic {
                    set_patch(cb, 3);
                }
            });
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{name}: {PATCHES} patches, median {:.1} ms (min {:.1}, max {:.1})",
            times[3], times[0], times[6]
        );
    }
    device.destroy_objects(&pipelines, &[layout], &[pass], &[vs, tes, fs]);
    device.destroy();
}

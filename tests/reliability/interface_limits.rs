//! A stage whose interface takes more Locations than the device allows
//! (VUID-RuntimeSpirv-Location-06272) crashes lavapipe 22.3.6 inside
//! `vkCreateGraphicsPipelines` and loses the device on NVIDIA 580, and the validation layer
//! says nothing. GL refuses to link such a program (GL 4.6 §11.1.2.1: too many varying
//! components is a link error): the layer fails the pipeline with `VK_ERROR_UNKNOWN` and a
//! `glsem: error:` line naming the stage, its Locations and the limit, and creates the other
//! pipelines of the call.
//!
//! `tests/glsl/reliability/varyings.{vert,frag}` pass COUNT float varyings (one Location
//! each) and draw `(v[0], v[COUNT - 1], 0, 1)` = `(1/64, COUNT/64, 0, 1)`.

use crate::support::spirv_tools::compile;
use crate::support::*;
use ash::vk;

type S = vk::ShaderStageFlags;

/// The varyings past which a vertex-to-fragment interface does not fit the device.
fn varying_limit(instance: &Instance) -> u32 {
    // SAFETY: the instance's own physical device.
    let limits = unsafe {
        instance
            .instance
            .get_physical_device_properties(instance.physical)
    }
    .limits;
    (limits.max_vertex_output_components / 4).min(limits.max_fragment_input_components / 4)
}

fn varyings(device: &Device, count: u32) -> [vk::ShaderModule; 2] {
    let define = format!("-DCOUNT={count}");
    ["vert", "frag"].map(|ext| {
        let source = repo_dir().join(format!("tests/glsl/reliability/varyings.{ext}"));
        device.module(&compile(&source, &[&define]))
    })
}

#[test]
fn a_pipeline_past_the_interface_limits_fails_alone() {
    let _serial = serial();
    let instance = Instance::new(WITH_VALIDATION);
    let limit = varying_limit(&instance);
    assert!(limit < 40, "the device allows 40 varyings: nothing to test");
    let device = instance.device(&[]);
    let [fit_vs, fit_fs] = varyings(&device, limit);
    let [over_vs, over_fs] = varyings(&device, 40);
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let desc = |vs, fs| Desc::new(&[(S::VERTEX, vs), (S::FRAGMENT, fs)], layout, pass, 1);
    let (result, pipelines) = device.create_pipelines(
        vk::PipelineCache::null(),
        &[
            desc(fit_vs, fit_fs),
            desc(over_vs, over_fs),
            desc(fit_vs, fit_fs),
        ],
        None,
    );
    assert_eq!(result, vk::Result::ERROR_UNKNOWN);
    let made: Vec<bool> = pipelines
        .iter()
        .map(|p| *p != vk::Pipeline::null())
        .collect();
    assert_eq!(made, [true, false, true]);
    // The pipelines that fit draw as GL does: every varying reaches the fragment shader.
    let image = &device.render(&instance, pipelines[0], pass, 1, 3)[0];
    let expected = (limit as f32 / 64.0 * 255.0).round() as u8;
    assert_eq!(image[..4], [4, expected, 0, 255]);
    let live = [pipelines[0], pipelines[2]];
    device.destroy_objects(
        &live,
        &[layout],
        &[pass],
        &[fit_vs, fit_fs, over_vs, over_fs],
    );
    device.destroy();
    instance.assert_clean();
}

/// Outputs past the limit that a geometry shader reads are the driver's, as its inputs are
/// (lavapipe draws them right; piglit's `glsl-1.50/execution/geometry/max-input-components`
/// passes with GL and with `--no-layer`): the layer creates the pipeline and it draws the
/// first and the last of 40 varyings.
#[test]
fn outputs_past_the_limit_into_a_geometry_shader_are_left_to_the_driver() {
    let _serial = serial();
    if !needs(&[Feature::GeometryShader]) {
        return;
    }
    let instance = Instance::new(WITH_VALIDATION);
    assert!(
        varying_limit(&instance) < 40,
        "the device allows 40 varyings: nothing to test"
    );
    let device = instance.device(&[]);
    let module = |ext: &str, count: u32| {
        let source = repo_dir().join(format!("tests/glsl/reliability/varyings.{ext}"));
        device.module(&compile(&source, &[&format!("-DCOUNT={count}")]))
    };
    let (vs, gs, fs) = (module("vert", 40), module("geom", 40), module("frag", 2));
    let pass = device.render_pass(1);
    let layout = device.layout(&[]);
    let desc = Desc::new(
        &[(S::VERTEX, vs), (S::GEOMETRY, gs), (S::FRAGMENT, fs)],
        layout,
        pass,
        1,
    );
    let (result, pipelines) = device.create_pipelines(vk::PipelineCache::null(), &[desc], None);
    assert_eq!(result, vk::Result::SUCCESS);
    let image = &device.render(&instance, pipelines[0], pass, 1, 3)[0];
    // (v[0], v[39], 0, 1) = (1/64, 40/64, 0, 1).
    assert_eq!(image[..4], [4, 159, 0, 255]);
    device.destroy_objects(&pipelines, &[layout], &[pass], &[vs, gs, fs]);
    device.destroy();
    instance.assert_clean();
}

#[test]
fn the_failure_names_the_stage_its_locations_and_the_limit() {
    let _serial = serial();
    let limit = varying_limit(&Instance::new(NO_LAYERS));
    let stderr = stderr_of_test(
        "interface_limits::a_pipeline_past_the_interface_limits_fails_alone",
        &[],
    );
    let expected = format!(
        "glsem: error: vkCreateGraphicsPipelines: pCreateInfos[1] fails: the vertex \
         shader's outputs take Locations 0 to 39, 40 Locations where the device allows \
         {limit} (maxVertexOutputComponents / 4)"
    );
    assert!(stderr.contains(&expected), "stderr:\n{stderr}");
}

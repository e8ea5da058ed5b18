//! The device features some tests need and some drivers lack (SwiftShader lacks each of
//! these; lavapipe has them all). [`Instance::device`](super::Instance::device) enables only
//! what the device has; a test that needs a feature the device lacks says so on stdout,
//! `SKIP: <test> needs <feature>`, and returns, as glsem-run's scenes SKIP naming what they
//! need: a visible skip, never a silent pass. On lavapipe a skip panics instead, so that
//! every test runs there (CI's first run).

use ash::vk;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// `tessellationShader`: a TES (the layer generates the TCS of a TES-only pipeline) or
    /// a push-constant range naming a tessellation stage.
    TessellationShader,
    /// `geometryShader`: the layer's generated geometry shader (GL's quads and polygons).
    GeometryShader,
    /// `VK_EXT_transform_feedback` with `transformFeedback`.
    TransformFeedback,
    /// `pipelineStatisticsQuery`: the tests count primitives with `CLIPPING_INVOCATIONS`.
    PipelineStatisticsQuery,
    /// `shaderFloat64`: a vertex shader reading doubles (GL's `glVertexAttribLPointer`).
    ShaderFloat64,
}

impl Feature {
    pub fn name(self) -> &'static str {
        match self {
            Feature::TessellationShader => "tessellationShader",
            Feature::GeometryShader => "geometryShader",
            Feature::TransformFeedback => "VK_EXT_transform_feedback",
            Feature::PipelineStatisticsQuery => "pipelineStatisticsQuery",
            Feature::ShaderFloat64 => "shaderFloat64",
        }
    }
}

/// What the first physical device (the one every test uses) has, asked once per process
/// on an instance without layers.
struct Probe {
    features: vk::PhysicalDeviceFeatures,
    transform_feedback: bool,
    name: String,
}

fn probe() -> &'static Probe {
    static PROBE: OnceLock<Probe> = OnceLock::new();
    PROBE.get_or_init(|| {
        let entry = super::entry();
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info; the instance is destroyed before returning.
        unsafe {
            let instance = entry
                .create_instance(&info, None)
                .expect("vkCreateInstance");
            let physical = instance.enumerate_physical_devices().unwrap()[0];
            let features = instance.get_physical_device_features(physical);
            let has_xfb = instance
                .enumerate_device_extension_properties(physical)
                .unwrap()
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::transform_feedback::NAME));
            let mut xfb = vk::PhysicalDeviceTransformFeedbackFeaturesEXT::default();
            let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut xfb);
            instance.get_physical_device_features2(physical, &mut features2);
            let name = instance
                .get_physical_device_properties(physical)
                .device_name_as_c_str()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            instance.destroy_instance(None);
            Probe {
                features,
                transform_feedback: has_xfb && xfb.transform_feedback == vk::TRUE,
                name,
            }
        }
    })
}

/// Whether the device is Mesa's lavapipe, where every test runs in full.
pub fn on_lavapipe() -> bool {
    probe().name.starts_with("llvmpipe")
}

/// Whether the device has `feature`.
pub fn device_has(feature: Feature) -> bool {
    let p = probe();
    let f = &p.features;
    vk::TRUE
        == match feature {
            Feature::TessellationShader => f.tessellation_shader,
            Feature::GeometryShader => f.geometry_shader,
            Feature::TransformFeedback => p.transform_feedback.into(),
            Feature::PipelineStatisticsQuery => f.pipeline_statistics_query,
            Feature::ShaderFloat64 => f.shader_float64,
        }
}

/// Whether the device has every one of `features`; when it lacks some, prints
/// `SKIP: <test> needs <them>` and the test returns. Panics on lavapipe, which has each.
#[must_use]
pub fn needs(features: &[Feature]) -> bool {
    part_needs("", features)
}

/// [`needs`] for a part of a test (`part` names it in the SKIP line); the rest runs.
#[must_use]
pub fn part_needs(part: &str, features: &[Feature]) -> bool {
    let lacking: Vec<_> = features
        .iter()
        .filter(|&&f| !device_has(f))
        .map(|f| f.name())
        .collect();
    if lacking.is_empty() {
        return true;
    }
    // libtest runs each test on a thread named after it.
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    let part = if part.is_empty() {
        String::new()
    } else {
        format!(" ({part})")
    };
    let device = &probe().name;
    let line = format!("SKIP: {test}{part} needs {}", lacking.join(", "));
    assert!(
        !on_lavapipe(),
        "{line}: no test may skip on lavapipe ({device}), every test runs there"
    );
    println!("{line}, which {device} lacks");
    false
}

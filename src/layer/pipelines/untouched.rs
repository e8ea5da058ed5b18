//! The planner's shortcut for pipelines no rule can touch (issue 45): whether
//! [`choose`](glsem_spirv::semantics::choose) would return no step for a create info, told
//! from the stages' scan summaries and a few fields of the create info, without building its
//! [`PipelineKey`](glsem_spirv::semantics::PipelineKey). The key and the rules' questions
//! were over a quarter of the layer's instructions on a pass-through pipeline's path.
//!
//! On a device without `VK_GLSEM_gl_state` the rules that need the GL-state block are off,
//! which leaves the generated TCS, the XFB split, gl_FragColor's broadcast, GL's point size,
//! unfed vertex inputs, vertex formats, and GL's primitive mode where a create info names
//! one (refused there, with a message). None applies to a whole pipeline (no library, no GL
//! primitive mode) of a vertex and a fragment shader whose scans show no gl_FragColor and
//! no transform feedback, whose vertex inputs its static vertex-input state feeds, that
//! draws no points and fetches no attribute in a format the layer reads itself. Everything
//! else takes the whole decision. Debug builds (every test) check each shortcut taken
//! against `choose`.

use ash::vk;

use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::{is_library, refetched_attributes, stage_of};
use crate::layer::rules;
use glsem_spirv::scan::Summary;
use glsem_spirv::semantics::{Stage, Stages};

/// Whether no rule has a step for `ci`, whose stages' summaries `view` holds (see the
/// module's doc); `false` where that cannot be told this cheaply.
pub(super) fn no_step_applies(dev: &DeviceData, ci: &PipelineView<'_>, view: &Stages<'_>) -> bool {
    if dev.extensions.gl_state || is_library(ci) || rules::gl_mode(ci).is_some() {
        return false;
    }
    // Every stage a vertex or fragment shader the layer has read.
    let mut vertex = None;
    for s in &ci.stages {
        let Some(stage) = stage_of(s.info.stage) else {
            return false;
        };
        let read = view.get(stage).and_then(|info| info.summary);
        let Some(summary) = read.filter(|summary| summary.readable) else {
            return false;
        };
        match stage {
            Stage::Vertex if quiet_vertex(summary) => vertex = Some(summary),
            Stage::Fragment if quiet_fragment(summary) => {}
            _ => return false,
        }
    }
    vertex.is_some_and(|vs| inputs_fed(ci, vs))
        && (dev.key.maintenance5 || draws_no_points(ci))
        && refetched_attributes(dev, ci).is_none()
}

/// A vertex shader with nothing for the XFB split (its struct outputs and a fragment
/// shader's struct inputs concern only libraries, split apart).
fn quiet_vertex(summary: &Summary) -> bool {
    !summary.xfb_candidate
}

/// A fragment shader with nothing for gl_FragColor's broadcast.
fn quiet_fragment(summary: &Summary) -> bool {
    !summary.frag_color
}

/// Every input Location of the vertex shader is an attribute of `ci`'s static vertex-input
/// state.
fn inputs_fed(ci: &PipelineView<'_>, vertex: &Summary) -> bool {
    let locations = &vertex.vertex_input_locations;
    if locations.is_empty() {
        return true;
    }
    let Some(input) = ci
        .vertex_input
        .as_ref()
        .filter(|_| !ci.is_dynamic(vk::DynamicState::VERTEX_INPUT_EXT))
    else {
        return false;
    };
    locations
        .iter()
        .all(|&l| input.attributes.iter().any(|a| a.location == l))
}

/// A static topology other than points, filled or drawn as lines by a static polygon mode:
/// GL's point size has nothing to write.
fn draws_no_points(ci: &PipelineView<'_>) -> bool {
    use vk::DynamicState as D;
    let topology = ci.input_assembly.as_ref().map(|ia| ia.topology);
    let polygon_mode = ci.rasterization.as_ref().map(|r| r.polygon_mode);
    topology.is_some_and(|t| t != vk::PrimitiveTopology::POINT_LIST)
        && polygon_mode.is_some_and(|m| m != vk::PolygonMode::POINT)
        && !ci.is_dynamic(D::PRIMITIVE_TOPOLOGY)
        && !ci.is_dynamic(D::POLYGON_MODE_EXT)
}

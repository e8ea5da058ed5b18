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
//!
//! [`raw_untouched`] asks the same of the application's create infos as they are, before
//! the planner builds their views or asks any other question of them: building the views
//! and deciding took more of the code the pass-through path runs, cold after the driver's
//! compile, than anything else (docs/performance.md, session 8). It holds for fewer
//! create infos (no `pNext` but dynamic rendering's, the common dynamic states), and where
//! it holds, neither the steps nor the other parts of the planner's decision (a plan a
//! create info must have, a record for bind time) apply; debug builds check that too.

use ash::vk;
use rustc_hash::FxHashMap;

use crate::layer::data::records::ModuleRecord;
use crate::layer::data::vertex_formats::vertex_format;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::interface_limits::fits_by_bound;
use crate::layer::objects::pipeline_info::{
    attribute_stride, is_library, refetched_attributes, stage_of,
};
use crate::layer::rules;
use crate::layer::support::ffi::slice;
use glsem_spirv::scan::Summary;
use glsem_spirv::semantics::{Semantic, Stage, Stages};

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
    fed_by(locations, input.attributes)
}

/// Every one of `locations` is the Location of one of `attributes`.
fn fed_by(locations: &[u32], attributes: &[vk::VertexInputAttributeDescription]) -> bool {
    locations
        .iter()
        .all(|&l| attributes.iter().any(|a| a.location == l))
}

/// A static topology other than points, filled or drawn as lines by a static polygon mode:
/// GL's point size has nothing to write.
fn draws_no_points(ci: &PipelineView<'_>) -> bool {
    use vk::DynamicState as D;
    let topology = ci.input_assembly.as_ref().map(|ia| ia.topology);
    let polygon_mode = ci.rasterization.as_ref().map(|r| r.polygon_mode);
    static_no_points(topology, polygon_mode)
        && !ci.is_dynamic(D::PRIMITIVE_TOPOLOGY)
        && !ci.is_dynamic(D::POLYGON_MODE_EXT)
}

/// A topology other than points, filled or drawn as lines (`None`: no such state).
fn static_no_points(
    topology: Option<vk::PrimitiveTopology>,
    polygon_mode: Option<vk::PolygonMode>,
) -> bool {
    topology.is_some_and(|t| t != vk::PrimitiveTopology::POINT_LIST)
        && polygon_mode.is_some_and(|m| m != vk::PolygonMode::POINT)
}

/// Dynamic states that no part of the decision reads on a device without
/// `VK_GLSEM_gl_state` (the viewport is GL's window origin's, under the GL-state block).
const PASSIVE_DYNAMIC_STATES: [vk::DynamicState; 21] = {
    use vk::DynamicState as D;
    [
        D::VIEWPORT,
        D::SCISSOR,
        D::LINE_WIDTH,
        D::DEPTH_BIAS,
        D::BLEND_CONSTANTS,
        D::DEPTH_BOUNDS,
        D::STENCIL_COMPARE_MASK,
        D::STENCIL_WRITE_MASK,
        D::STENCIL_REFERENCE,
        D::CULL_MODE,
        D::FRONT_FACE,
        D::VIEWPORT_WITH_COUNT,
        D::SCISSOR_WITH_COUNT,
        D::DEPTH_TEST_ENABLE,
        D::DEPTH_WRITE_ENABLE,
        D::DEPTH_COMPARE_OP,
        D::DEPTH_BOUNDS_TEST_ENABLE,
        D::STENCIL_TEST_ENABLE,
        D::STENCIL_OP,
        D::RASTERIZER_DISCARD_ENABLE,
        D::DEPTH_BIAS_ENABLE,
    ]
};

/// Whether the planner would do nothing for each of `infos`, told from the create infos as
/// the application gave them (see the module's doc); `false` where that cannot be told
/// this cheaply.
///
/// # Safety
/// `infos` are valid as Vulkan's valid usage requires for `vkCreateGraphicsPipelines`.
pub(super) unsafe fn raw_untouched(
    dev: &DeviceData,
    infos: &[vk::GraphicsPipelineCreateInfo<'_>],
) -> bool {
    let settings = &dev.settings;
    // Forced vertex formats take the whole decision, as does a panic injected for the
    // tests of the planner's frame.
    if dev.extensions.gl_state
        || settings.debug_inject_panic.is_some()
        || settings.debug_force_vertex_formats
    {
        return false;
    }
    let modules = dev.records.modules.read();
    // SAFETY: valid create infos (this function's contract).
    infos
        .iter()
        .all(|ci| unsafe { raw_quiet(dev, &modules, ci) })
}

/// [`raw_untouched`] for one create info.
///
/// # Safety
/// As for [`raw_untouched`].
unsafe fn raw_quiet(
    dev: &DeviceData,
    modules: &FxHashMap<vk::ShaderModule, ModuleRecord>,
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> bool {
    use vk::StructureType as T;
    // SAFETY: the create info's pointers are valid (this function's contract): its chain,
    // stages, dynamic states and vertex-input, input-assembly and rasterization states
    // (a whole pipeline: no library, so it holds them all).
    unsafe {
        // Dynamic rendering's formats concern gl_FragColor's broadcast only; feedback
        // nothing.
        let mut chain = ci.p_next.cast::<vk::BaseInStructure<'_>>();
        while let Some(link) = chain.as_ref() {
            let known = link.s_type == T::PIPELINE_RENDERING_CREATE_INFO
                || link.s_type == T::PIPELINE_CREATION_FEEDBACK_CREATE_INFO;
            if !known {
                return false;
            }
            chain = link.p_next;
        }
        if ci.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR) {
            return false;
        }
        let dynamic = ci.p_dynamic_state.as_ref().map_or(&[][..], |d| {
            slice(d.p_dynamic_states, d.dynamic_state_count)
        });
        if !dynamic.iter().all(|d| PASSIVE_DYNAMIC_STATES.contains(d)) {
            return false;
        }
        // A vertex shader and at most one fragment shader, modules the layer has read,
        // with nothing for the XFB split or gl_FragColor, within the interface limits.
        let mut vertex = None;
        let mut fragment = false;
        for stage in slice(ci.p_stages, ci.stage_count) {
            let read = modules.get(&stage.module).filter(|m| m.summary.readable);
            let Some(module) = read.filter(|_| stage.p_next.is_null()) else {
                return false;
            };
            let summary = &module.summary;
            let kind = match stage.stage {
                vk::ShaderStageFlags::VERTEX if vertex.is_none() && quiet_vertex(summary) => {
                    vertex = Some(module);
                    Stage::Vertex
                }
                vk::ShaderStageFlags::FRAGMENT if !fragment && quiet_fragment(summary) => {
                    fragment = true;
                    Stage::Fragment
                }
                _ => return false,
            };
            if !fits_by_bound(&dev.limits, kind, module) {
                return false;
            }
        }
        let Some(vertex) = vertex else {
            return false;
        };
        // Every input fed by the vertex-input state; no attribute the layer reads itself
        // (in a format the device has, 8-aligned).
        let Some(input) = ci.p_vertex_input_state.as_ref() else {
            return false;
        };
        let bindings = slice(
            input.p_vertex_binding_descriptions,
            input.vertex_binding_description_count,
        );
        let attributes = slice(
            input.p_vertex_attribute_descriptions,
            input.vertex_attribute_description_count,
        );
        let formats = dev.settings.semantics.contains(Semantic::VertexFormats);
        let fetched = |a: &vk::VertexInputAttributeDescription| {
            !formats
                || (a.offset | attribute_stride(bindings, false, a)).is_multiple_of(8)
                    && vertex_format(a.format)
                        .is_none_or(|(i, _)| !dev.missing_vertex_formats.contains(i))
        };
        if !input.p_next.is_null()
            || !fed_by(&vertex.summary.vertex_input_locations, attributes)
            || !attributes.iter().all(fetched)
        {
            return false;
        }
        // No GL primitive mode chained, and no points to give GL's point size.
        let Some(assembly) = ci.p_input_assembly_state.as_ref() else {
            return false;
        };
        let polygon_mode = ci.p_rasterization_state.as_ref().map(|r| r.polygon_mode);
        assembly.p_next.is_null()
            && (dev.key.maintenance5 || static_no_points(Some(assembly.topology), polygon_mode))
    }
}

//! The layer side of GL's rules: what the layer does with each [`Step`] that
//! [`choose`](glsem_spirv::semantics::choose) picks, at the fixed points of pipeline and
//! shader-object creation. Each rule implements [`LayerStep`] for its steps in its own file,
//! and [`PipelineRule`] for what it does with a whole create info beside them; the planner
//! and the shader-object hooks call [`plan`], [`chain`] and the walks of
//! `pipeline_rules!` and name no rule.
//!
//! The dispatch is made from glsem-spirv's one step list (`step_list!`), so a step added
//! there without a `LayerStep` here does not compile. Steps whose layer side is only the
//! rewrite of their stage take the trait's defaults (`shader_only!` below).

mod gl_layer;
mod instance_id;
pub(crate) mod layer_step;
pub(crate) mod line_rasterization;
mod passthrough_tcs;
mod point_size;
mod primitive_mode;
mod state;
pub(crate) mod unfed_inputs;
pub(crate) mod vertex_formats;
mod window_origin;
mod xfb_split;

// What the planner, libraries and shader objects ask of GL's lines, primitive modes and
// gl_InstanceID beside the points every rule has (`PipelineRule`): their parts of the key
// and the record.
pub(crate) use instance_id::record_instances;
pub(crate) use line_rasterization::{
    kept_multisample, layer_line_state, line_key, links_take_line_rule, record_lines,
    stipple_counting,
};
pub(crate) use primitive_mode::{
    gl_mode, gl_mode_of, list_topology, named_topology, record_primitives, topology_for,
    GlModeError, GsError, IndicesError,
};

use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::loader::state::{DeviceData, DeviceFacts};
use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::{Rewrite, Run};
use crate::layer::support::error::PlanError;
use crate::layer::support::settings::Settings;
use glsem_spirv::semantics::{DeviceKey, PrimitiveRoute, Step};
use layer_step::{LayerStep, PipelineRule};

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: each rule's driver extensions, features and
/// conventions.
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    state::provoking_vertex::setup_device(setup);
    state::clip_space_depth::setup_device(setup);
    primitive_mode::setup_device(setup);
    instance_id::setup_device(setup);
    line_rasterization::setup_device(setup);
    point_size::setup_device(setup);
    window_origin::setup_device(setup);
}

/// `vkCreateDevice`: what the device gives every pipeline key, once its facts are known.
pub(crate) fn device_key(settings: &Settings, facts: &DeviceFacts) -> DeviceKey {
    let DeviceFacts {
        features,
        limits,
        extensions,
        conventions,
        ..
    } = facts;
    DeviceKey {
        enabled: settings.semantics,
        max_color_attachments: limits.unknown_attachment_locations(),
        transform_feedback: features.transform_feedback,
        tess_geom_point_size: features.tess_geom_point_size,
        maintenance5: features.maintenance5,
        gl_state: extensions.gl_state,
        depth_clip_control: conventions.depth_clip.on,
        provoking_vertex_last: conventions.provoking_vertex.on,
        list_restart: conventions.list_restart,
        draw_parameters: features.draw_parameters,
        bresenham_lines: conventions.lines.bresenham,
        stippled_bresenham_lines: conventions.lines.stippled_bresenham,
        line_endpoints: conventions.lines.endpoints,
        fragment_lines: conventions.lines.fragment,
        subpixel_bits: limits.sub_pixel_precision_bits,
        stipple_counts: conventions.lines.stipple_counts,
        window_origin: settings.window_origin,
        apart_layer_location: limits.last_interface_location(),
        primitive_route: settings
            .primitive_route
            .unwrap_or(match features.geometry_shader {
                true => PrimitiveRoute::Geometry,
                false => PrimitiveRoute::Indices,
            }),
    }
}

/// Steps whose layer side is the rewrite of their stage alone.
macro_rules! shader_only {
    ($($rule:path),* $(,)?) => {
        $(impl LayerStep for $rule {})*
    };
}

shader_only!(
    glsem_spirv::xfb_split::SplitStructOutputs,
    glsem_spirv::xfb_split::SplitStructInputs,
    glsem_spirv::fragcolor::FragColorKey,
    glsem_spirv::clip_enables::GateClipDistances,
    glsem_spirv::clip_space_depth::RemapClipDepth,
    glsem_spirv::gl_layer::CopyLayer,
    glsem_spirv::sample_mask::DropSampleMask,
    glsem_spirv::sample_mask::GateSampleMask,
    glsem_spirv::window_origin::WindowYKey,
    glsem_spirv::line_endpoints::LineEndpoints,
    glsem_spirv::line_fragment::WriteLinePosition,
    glsem_spirv::line_fragment::LineFragmentKey,
);

/// [`plan`] and [`chain`]: one exhaustive match over glsem-spirv's step list each.
macro_rules! layer_dispatch {
    ($($(#[doc = $doc:literal])* $variant:ident($rule:ty),)*) => {
        /// Runs `step` in `run` ([`LayerStep::plan`]).
        pub(crate) fn plan(step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
            match step {
                $(Step::$variant(rule) => LayerStep::plan(rule, step, run),)*
            }
        }

        /// Chains `step`'s pipeline state into `patched` ([`LayerStep::chain`]).
        pub(crate) fn chain<'a>(step: &Step, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
            match step {
                $(Step::$variant(rule) => LayerStep::chain(rule, patched, ci),)*
            }
        }
    };
}

glsem_spirv::step_list!(layer_dispatch);

/// The planner's walks over the rules with a [`PipelineRule`], in this order.
macro_rules! pipeline_rules {
    ($($rule:ty),* $(,)?) => {
        /// Whether a rule plans `ci` whatever its steps ([`PipelineRule::must_plan`]).
        pub(crate) fn must_plan(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
            false $(|| <$rule>::must_plan(dev, ci))*
        }

        /// Whether a rule needs `ci`'s pipeline recorded ([`PipelineRule::needs_record`]).
        pub(crate) fn needs_record(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
            false $(|| <$rule>::needs_record(dev, ci))*
        }

        /// Why a rule fails `ci` before its steps ([`PipelineRule::refuse`]).
        pub(crate) fn refuse(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<PlanError> {
            None $(.or_else(|| <$rule>::refuse(dev, ci)))*
        }

        /// Each rule's part of `rewrite` after the steps ([`PipelineRule::after_steps`]).
        pub(crate) fn after_steps(
            dev: &DeviceData,
            ci: &PipelineView<'_>,
            rewrite: &mut Rewrite,
        ) -> Result<(), PlanError> {
            $(<$rule>::after_steps(dev, ci, rewrite)?;)*
            Ok(())
        }

        /// Each rule's part of the copies `ci` goes down with ([`PipelineRule::patch`]).
        pub(crate) fn patch<'a>(rewrite: &Rewrite, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
            $(<$rule>::patch(rewrite, patched, ci);)*
        }
    };
}

pipeline_rules!(primitive_mode::PrimitiveModes, line_rasterization::Lines);

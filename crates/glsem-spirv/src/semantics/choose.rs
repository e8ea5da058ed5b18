//! The policy: [`choose`] takes a pipeline's stages and its key and returns the ordered
//! steps.

use super::key::{Attachments, GlMode, PipelineKey, Stages, Topology, WindowOrigin};
use super::registry::Semantic;
use super::step::Step;
use crate::clip_enables::GateClipDistances;
use crate::clip_space_depth::{NegativeOneToOneDepth, RemapClipDepth};
use crate::fragcolor::{AttachmentKind, FragColorKey};
use crate::gl_layer::{CopyLayer, GateLayer, ReadLayerFrom};
use crate::instance_id::{InstanceBase, InstanceIdWithoutBase};
use crate::line_endpoints::LineEndpoints;
use crate::line_fragment::{LineFragmentKey, ProvokingEnd, WriteLinePosition, LOCATIONS};
use crate::line_rasterization::BresenhamLines;
use crate::passthrough_tcs::GenerateTcs;
use crate::point_size::{PointSizeSource, WritePointSize};
use crate::primitive_mode::{
    CloseLineLoops, GlPrimitive, IndexedPrimitive, PrimitiveGsKey, PrimitiveRoute, Rasterized,
};
use crate::provoking_vertex::ProvokingVertexLast;
use crate::rule::Stage;
use crate::sample_mask::{DropSampleMask, GateSampleMask};
use crate::scan::{Primitive, Summary};
use crate::unfed_inputs::{DefaultUnfedInputs, FeedCurrentAttributes};
use crate::window_origin::{InvertFrontFace, TessellationDomainLowerLeft, WindowYKey};
use crate::xfb_split::{SplitFragInputs, SplitStructInputs, SplitStructOutputs, SplitXfbOutputs};

/// Whether the pipeline may rasterize points, from what its last pre-rasterization stage
/// emits (or the topology, for a vertex shader) and the polygon mode. A vertex shader in a
/// library without input assembly may be linked with a point-list vertex input: it writes
/// GL's point size, which other topologies ignore (GL decides per stage, docs/semantics.md, `point_size`).
fn may_rasterize_points(stages: &Stages<'_>, last: Stage, key: &PipelineKey) -> bool {
    let emitted = match last {
        Stage::Vertex => match key.topology {
            Topology::Points | Topology::Dynamic | Topology::Unknown => Some(Primitive::Points),
            Topology::Lines => Some(Primitive::Lines),
            Topology::Triangles => Some(Primitive::Triangles),
            Topology::Patches => None,
        },
        _ => stages
            .get(last)
            .and_then(|s| s.summary)
            .and_then(|s| s.output_primitive),
    };
    let dynamic_points = last == Stage::Vertex && key.dynamic_points;
    match emitted {
        Some(Primitive::Points) => true,
        Some(Primitive::Triangles) => key.polygon_points || dynamic_points,
        Some(Primitive::Lines) => dynamic_points,
        // A stage the layer cannot read, or patches reaching the rasterizer (invalid).
        None => false,
    }
}

/// Whether the pipeline may rasterize lines, from what its last pre-rasterization stage
/// emits (or the topology, for a vertex shader) and the polygon mode. A library part
/// without input assembly and a vertex shader it cannot see may draw lines too.
fn may_rasterize_lines(stages: &Stages<'_>, key: &PipelineKey) -> bool {
    let last = stages.last_pre_rasterization();
    let emitted = match last {
        None | Some(Stage::Vertex) => match key.topology {
            Topology::Lines | Topology::Dynamic | Topology::Unknown => return true,
            Topology::Points => Some(Primitive::Points),
            Topology::Triangles => Some(Primitive::Triangles),
            // Tessellated patches are triangles (the TES decides).
            Topology::Patches => Some(Primitive::Triangles),
        },
        Some(stage) => stages
            .get(stage)
            .and_then(|s| s.summary)
            .and_then(|s| s.output_primitive),
    };
    let dynamic_topology = last == Some(Stage::Vertex) && key.dynamic_points;
    match emitted {
        Some(Primitive::Lines) => true,
        Some(Primitive::Triangles) => key.polygon_lines || dynamic_topology,
        Some(Primitive::Points) => dynamic_topology,
        // A stage the layer cannot read may emit anything.
        None => true,
    }
}

/// The rewrites `stages` need under `key`, in the order they must run: the TCS (from the
/// application's TES and VS), the XFB split before the passes that write into the split
/// stage, the fragment inputs after the broadcast, then the GL state of the last
/// pre-rasterization stage, then pipeline state.
pub fn choose(stages: &Stages<'_>, key: &PipelineKey) -> Vec<Step> {
    let mut steps = Vec::new();
    if stages.has(Stage::TessEval) && !stages.has(Stage::TessControl) && !key.shader_object {
        // Not optional: the driver would crash on the pipeline. The layer fails it when
        // the TCS cannot be generated.
        steps.push(Step::GenerateTcs(GenerateTcs));
    }
    interface_steps(stages, key, &mut steps);
    last_stage_steps(stages, key, &mut steps);
    input_steps(stages, key, &mut steps);
    pipeline_state_steps(stages, key, &mut steps);
    primitive_mode_steps(stages, key, &mut steps);
    steps
}

/// [`choose`]'s GL primitive mode, last: the geometry shader is made from the vertex shader
/// as every other step left it. A mode the layer cannot draw is refused where the step runs,
/// never dropped: without it the pipeline would draw something else.
///
/// On the index route (pipelines only: shader objects keep the geometry shader; every
/// pipeline with primitive restart on) the pipeline draws a list and the layer's indices;
/// the fragment shader's `gl_PrimitiveID` counts GL's primitives.
fn primitive_mode_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    // Where the vertex shader copies gl_Layer for the fragment shader (the step above), the
    // geometry shader writes the copy itself.
    match key.gl_mode {
        Some(GlMode::LineLoop) => steps.push(Step::CloseLineLoops(CloseLineLoops)),
        Some(GlMode::Primitive(primitive)) => {
            let provoking_last = match key.app_provoking_vertex {
                true => key.app_provoking_last,
                false => {
                    applies(key, Semantic::ProvokingVertex) && key.device.provoking_vertex_last
                }
            };
            // A restart in the geometry shader's adjacency list drops an unfinished quad, as
            // GL does, where lists may restart; a quad strip's adjacency strip would lose
            // count of its quads, and a polygon's fan restarts as GL's polygon does.
            let restarts_in_list = match primitive {
                GlPrimitive::Quads => !key.device.list_restart,
                GlPrimitive::QuadStrip => true,
                GlPrimitive::Polygon => false,
            };
            let dynamic_fan = primitive == GlPrimitive::Polygon && key.provoking_dynamic;
            let route = match (key.primitive_restart && restarts_in_list) || dynamic_fan {
                true => PrimitiveRoute::Indices,
                false => key.device.primitive_route,
            };
            if route == PrimitiveRoute::Indices && !key.shader_object {
                let indexed = IndexedPrimitive {
                    primitive,
                    rasterized: key.rasterized,
                    provoking_last,
                };
                steps.push(Step::DrawGlPrimitiveIndexed(indexed));
                if stages.rewritable(Stage::Fragment).is_some() {
                    steps.push(Step::CountGlPrimitives(indexed.primitive_id()));
                }
                return;
            }
            // A library's vertex shader writes the line route's varyings for a fragment-shader
            // library (`library_fragment_lines`): the geometry shader's lines are not on
            // the route, so the varyings go on untested, written by the geometry shader.
            let route_copy = steps.iter_mut().find_map(|s| match s {
                Step::LinePosition(p) if p.stage == Stage::Vertex => {
                    p.tested = false;
                    Some(p.location)
                }
                _ => None,
            });
            steps.push(Step::DrawGlPrimitive(PrimitiveGsKey {
                route_copy,
                primitive,
                rasterized: key.rasterized,
                provoking_last,
                point_size: key.device.tess_geom_point_size,
                culling: key.culling,
                layer_copy: steps.iter().find_map(|s| match *s {
                    Step::CopyLayer(CopyLayer {
                        stage: Stage::Vertex,
                        location,
                    })
                    | Step::GateLayer(GateLayer {
                        stage: Stage::Vertex,
                        copy_to: Some(location),
                        ..
                    }) => Some(location),
                    _ => None,
                }),
            }))
        }
        None => {}
    }
}

/// Whether `s` applies under `key`: enabled, and on a `VK_GLSEM_gl_state` device where it
/// needs the GL-state block.
fn applies(key: &PipelineKey, s: Semantic) -> bool {
    key.device.enabled.contains(s) && (key.device.gl_state || !s.info().needs_gl_state)
}

/// [`choose`]'s interface steps: the XFB split of the last pre-rasterization stage, then the
/// fragment shader's broadcast and the inputs that match the split.
fn interface_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    let last = stages.last_pre_rasterization();
    let last_summary = last.and_then(|l| stages.rewritable(l).map(|s| (l, s)));
    let fragment_patchable = stages.get(Stage::Fragment).is_none_or(|f| f.patchable);

    let split = on(Semantic::XfbSplit) && key.device.transform_feedback;
    if let Some((stage, summary)) = last_summary {
        if split && key.fragment_elsewhere && !stages.has(Stage::Fragment) {
            if summary.struct_outputs {
                steps.push(Step::SplitStructOutputs(SplitStructOutputs { stage }));
            }
        } else if split && summary.xfb_candidate && fragment_patchable {
            steps.push(Step::SplitXfbOutputs(SplitXfbOutputs { stage }));
        }
    }
    if let Some(summary) = stages.rewritable(Stage::Fragment) {
        if on(Semantic::FragColor) && summary.frag_color {
            let attachments = match &key.attachments {
                Attachments::Known(attachments) => attachments.clone(),
                Attachments::Unknown => FragColorKey {
                    attachments: (0..key.device.max_color_attachments)
                        .map(|location| (location, AttachmentKind::Float))
                        .collect(),
                },
            };
            if attachments
                .attachments
                .iter()
                .any(|&(location, _)| location != 0)
            {
                steps.push(Step::BroadcastFragColor(attachments));
            }
        }
        if steps.iter().any(|s| matches!(s, Step::SplitXfbOutputs(_))) {
            steps.push(Step::SplitFragInputs(SplitFragInputs));
        } else if split && key.library && last.is_none() && summary.struct_inputs {
            steps.push(Step::SplitStructInputs(SplitStructInputs));
        }
    }
}

/// [`choose`]'s GL state of the last pre-rasterization stage: point size, clip distance
/// enables, clip-space depth and `gl_Layer`.
fn last_stage_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    let last = stages.last_pre_rasterization();
    let last_summary = last.and_then(|l| stages.rewritable(l).map(|s| (l, s)));
    if let Some((stage, summary)) = last_summary {
        let writable = stage == Stage::Vertex || key.device.tess_geom_point_size;
        if on(Semantic::PointSize) && writable && may_rasterize_points(stages, stage, key) {
            // With rasterization discarded GL's size decides nothing, and transform
            // feedback captures the shader's own gl_PointSize: only a missing one is written.
            let block = key
                .gl_state_block
                .filter(|_| key.device.gl_state && !key.rasterizer_discard);
            let source = match block {
                Some(block_offset) => Some(PointSizeSource::GlState { block_offset }),
                None => (!key.device.maintenance5).then_some(PointSizeSource::Default),
            };
            if let Some(source) = source {
                steps.push(Step::WritePointSize(WritePointSize { stage, source }));
            }
        }
        if let Some(block_offset) = key.gl_state_block {
            if on(Semantic::ClipEnables) && summary.clip_distance && !key.rasterizer_discard {
                steps.push(Step::GateClipDistances(GateClipDistances {
                    stage,
                    block_offset,
                }));
            }
        }
        if on(Semantic::ClipSpaceDepth) && !key.device.depth_clip_control && !key.library {
            steps.push(Step::RemapClipDepth(RemapClipDepth { stage }));
        }
        if on(Semantic::GlLayer) {
            // The fragment shader's gl_Layer reads the layer as written, layered target or
            // not: a copy at the first Location past both interfaces; made apart from the
            // fragment shader, at the device's last Location, where a fragment shader made
            // apart reads it (below), whether or not this stage writes a layer.
            let apart = key.fragment_may_be_apart;
            let copy_to = match apart {
                // With a Location to spare: a stage at its interface limit keeps within it
                // (built-in outputs count against the same limit; seen on NVIDIA).
                true => summary
                    .location_ends
                    .filter(|ends| ends.output < key.device.apart_layer_location)
                    .map(|_| key.device.apart_layer_location),
                false => stages
                    .rewritable(Stage::Fragment)
                    .filter(|fragment| fragment.layer && summary.layer)
                    .and_then(|fragment| {
                        let (last, fragment) = (summary.location_ends?, fragment.location_ends?);
                        Some(last.output.max(fragment.input))
                    })
                    // Never past the device's interface limits.
                    .filter(|&location| location <= key.device.apart_layer_location),
            };
            match (key.gl_state_block, copy_to) {
                (Some(block_offset), _) if summary.layer || copy_to.is_some() => {
                    steps.push(Step::GateLayer(GateLayer {
                        stage,
                        block_offset,
                        copy_to,
                    }))
                }
                (None, Some(location)) if apart => {
                    steps.push(Step::CopyLayer(CopyLayer { stage, location }))
                }
                _ => {}
            }
            if let Some(location) = copy_to.filter(|_| !apart && key.gl_state_block.is_some()) {
                steps.push(Step::ReadLayerFrom(ReadLayerFrom { location }));
            }
        }
    }
    // A fragment shader made apart from the pre-rasterization stages reads their copy at
    // the device's last Location (above).
    let fragment_apart = key.library && last.is_none();
    if let Some(summary) = stages
        .rewritable(Stage::Fragment)
        .filter(|_| fragment_apart)
    {
        let free = summary
            .location_ends
            .is_some_and(|ends| ends.input <= key.device.apart_layer_location);
        if on(Semantic::GlLayer) && summary.layer && free {
            steps.push(Step::ReadLayerFrom(ReadLayerFrom {
                location: key.device.apart_layer_location,
            }));
        }
    }
}

/// [`choose`]'s steps on what the vertex and fragment shaders read: unfed vertex inputs,
/// `gl_InstanceID`, `gl_SampleMask` on single-sample targets.
fn input_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    // A vertex-input library: the attributes the vertex shader's library reads in place.
    if !stages.has(Stage::Vertex) {
        if let Some(step) = key
            .vertex_formats
            .as_ref()
            .filter(|_| on(Semantic::VertexFormats))
        {
            steps.push(Step::RefetchVertexInputs(step.clone()));
        }
    }
    if let Some(summary) = stages.rewritable(Stage::Vertex) {
        if let Some(fed) = &key.fed_locations {
            let unfed = summary
                .vertex_input_locations
                .iter()
                .any(|l| !fed.contains(l));
            if on(Semantic::UnfedInputs) && unfed {
                steps.push(
                    match key.attribute_binding.filter(|_| key.device.gl_state) {
                        Some(binding) => Step::FeedCurrentAttributes(FeedCurrentAttributes {
                            fed: fed.clone(),
                            binding,
                        }),
                        None => Step::DefaultUnfedInputs(DefaultUnfedInputs { fed: fed.clone() }),
                    },
                );
            }
        }
        // After the unfed inputs: the Locations they read stay theirs.
        if let Some(step) = key
            .vertex_formats
            .as_ref()
            .filter(|_| on(Semantic::VertexFormats))
        {
            steps.push(Step::RefetchVertexInputs(step.clone()));
        }

        if on(Semantic::InstanceId) && summary.instance_index {
            // Without shaderDrawParameters the base comes from the GL-state block, which
            // the layer pushes at each draw; a layout without room for it leaves Vulkan's.
            let base = match key.device.draw_parameters {
                true => Some(InstanceBase::BuiltIn),
                false => key
                    .gl_state_block
                    .map(|block_offset| InstanceBase::GlState { block_offset }),
            };
            if let Some(base) = base {
                steps.push(Step::InstanceIdWithoutBase(InstanceIdWithoutBase { base }));
            }
        }
    }
    if let Some(summary) = stages.rewritable(Stage::Fragment) {
        if on(Semantic::SampleMask) && summary.sample_mask {
            if key.single_sample {
                steps.push(Step::DropSampleMask(DropSampleMask));
            } else if let Some(block_offset) = key.fragment_block.filter(|_| key.dynamic_samples) {
                steps.push(Step::GateSampleMask(GateSampleMask { block_offset }));
            }
        }
    }
}

/// GL's line endpoints where the driver decides a diamond's edge otherwise: in the last
/// pre-rasterization stage of a pipeline that draws GL's lines (shader objects: wherever the
/// layer sets GL's line mode), gated by the GL-state block's flag where it may draw other
/// primitives too.
fn line_endpoints(stages: &Stages<'_>, key: &PipelineKey) -> Option<LineEndpoints> {
    let grid = key.device.line_endpoints?;
    let block_offset = key.gl_state_block?;
    let stage = stages.last_pre_rasterization()?;
    let summary = stages.rewritable(stage)?;
    // Shader objects, and a followed line mode under a dynamic sample count, draw GL's
    // lines while the sample count set is one.
    let samples_gated = key.shader_object || key.lines.followed_mode && key.dynamic_samples;
    let gl_lines = match key.shader_object {
        true => key.device.bresenham_lines,
        false => {
            (!key.lines.app_mode || key.lines.followed_mode)
                && (!key.lines.multisample || samples_gated)
        }
    };
    if !applies(key, Semantic::LineRasterization)
        || !gl_lines
        || key.rasterizer_discard
        || !may_rasterize_lines(stages, key)
    {
        return None;
    }
    let only_lines = match stage {
        Stage::Vertex => {
            key.topology == Topology::Lines && !key.dynamic_points
                || key.topology == Topology::Triangles && key.rasterized == Rasterized::Lines
        }
        _ => summary.output_primitive == Some(Primitive::Lines),
    };
    Some(LineEndpoints {
        stage,
        block_offset,
        grid,
        lines_gated: !only_lines,
        samples_gated,
    })
}

/// GL's lines by the fragment route, where the device takes them so: a whole pipeline that
/// may draw lines (a line or dynamic topology, or a last stage that emits lines; not
/// polygons drawn as lines),
/// single-sampled, whose last pre-rasterization stage and fragment shader the layer
/// rewrites, with two Locations free past both their interfaces (the device's last one stays
/// free for gl_Layer's copy). Other pipelines keep the driver's (Bresenham) lines.
fn fragment_lines(
    stages: &Stages<'_>,
    key: &PipelineKey,
) -> Option<(WriteLinePosition, LineFragmentKey)> {
    let on = |s: Semantic| applies(key, s);
    if !key.device.fragment_lines
        || !on(Semantic::LineRasterization)
        || key.lines.app_mode
        || key.lines.multisample
        || key.lines.wide
        || key.rasterizer_discard
        || key.library
        || key.shader_object
        || key.provoking_dynamic
    {
        return None;
    }
    let stage = stages.last_pre_rasterization()?;
    let last = stages.rewritable(stage)?;
    let fragment = stages.rewritable(Stage::Fragment)?;
    let block_offset = key.fragment_block?;
    // Polygons drawn as lines would give the test a triangle's provoking vertex: not here.
    // A dynamic topology that may draw lines: the test runs while the block says lines.
    let lines_gated = match stage {
        _ if key.polygon_lines => return None,
        Stage::Vertex => match key.topology {
            Topology::Lines => key.dynamic_points,
            Topology::Dynamic => true,
            _ => return None,
        },
        _ if last.output_primitive == Some(Primitive::Lines) => false,
        _ => return None,
    };
    let end = |s: &Summary| {
        s.single_location_bound
            .or(s.location_ends.map(|e| e.input.max(e.output)))
    };
    let location = end(last)?.max(end(fragment)?);
    if location + LOCATIONS > key.device.apart_layer_location {
        return None;
    }
    let layer_makes_last = on(Semantic::ProvokingVertex)
        && key.device.provoking_vertex_last
        && !key.app_provoking_vertex;
    let provoking = match layer_makes_last || key.app_provoking_last {
        true => ProvokingEnd::Last,
        false => ProvokingEnd::First,
    };
    // The window-y step that runs after this one rewrites the test's gl_FragCoord.y too.
    let frag_coord_flipped = on(Semantic::WindowOrigin)
        && key.device.window_origin == WindowOrigin::Flipped
        && fragment.window_y;
    Some((
        WriteLinePosition {
            stage,
            location,
            block: key.gl_state_block,
            mirrored: None,
            tested: true,
            subpixel_bits: key.device.subpixel_bits,
            stipple_counts: key.device.stipple_counts,
        },
        LineFragmentKey {
            location,
            block_offset,
            provoking,
            frag_coord_flipped,
            lines_gated,
            start_pixels: false,
            varyings_gated: false,
            subpixel_bits: key.device.subpixel_bits,
        },
    ))
}

/// GL's lines by the fragment route in a library that holds one side of it (a
/// pre-rasterization library whose last stage is a vertex shader, or a fragment-shader
/// library): neither knows the other, so both take the route's varyings at the two
/// Locations below the device's last (where the apart stages pass gl_Layer), and the
/// fragment side tests only while the GL-state block says that the bound pipeline's last
/// stage sends lines GL's rule applies to (`FLAG_LINE_VARYINGS`, which the layer sets from
/// the linked pre-rasterization library: a vertex shader's width-1 lines) and that lines are
/// drawn. A library whose interface reaches those Locations keeps the driver's lines.
fn library_fragment_lines(stages: &Stages<'_>, key: &PipelineKey) -> Option<Step> {
    let on = |s: Semantic| applies(key, s);
    if !key.device.fragment_lines
        || !on(Semantic::LineRasterization)
        || !key.library
        || key.shader_object
    {
        return None;
    }
    let location = key.device.apart_layer_location.checked_sub(LOCATIONS)?;
    let end = |s: &Summary| {
        s.single_location_bound
            .or(s.location_ends.map(|e| e.input.max(e.output)))
    };
    match (stages.last_pre_rasterization(), stages.has(Stage::Fragment)) {
        (Some(stage), false) => {
            let last = stages.rewritable(stage)?;
            // Written wherever they fit, so that a fragment-shader library reading them is
            // fed; tested only where GL's rule applies to what a vertex shader sends.
            let tested = stage == Stage::Vertex
                && !key.lines.app_mode
                && !key.lines.wide
                && !key.rasterizer_discard
                && !key.provoking_dynamic
                && !key.polygon_lines;
            (end(last)? <= location).then_some(Step::LinePosition(WriteLinePosition {
                stage,
                location,
                block: key.gl_state_block,
                mirrored: None,
                tested,
                subpixel_bits: key.device.subpixel_bits,
                stipple_counts: key.device.stipple_counts,
            }))
        }
        (None, true) => {
            let fragment = stages.rewritable(Stage::Fragment)?;
            let block_offset = key.fragment_block?;
            if key.lines.multisample || end(fragment)? > location {
                return None;
            }
            // The pre-rasterization library's provoking vertex is not seen here: the
            // layer's last-vertex convention, unless the device has none.
            let provoking = match on(Semantic::ProvokingVertex) && key.device.provoking_vertex_last
            {
                true => ProvokingEnd::Last,
                false => ProvokingEnd::First,
            };
            let frag_coord_flipped = on(Semantic::WindowOrigin)
                && key.device.window_origin == WindowOrigin::Flipped
                && fragment.window_y;
            Some(Step::LineFragments(LineFragmentKey {
                location,
                block_offset,
                provoking,
                frag_coord_flipped,
                lines_gated: true,
                start_pixels: false,
                varyings_gated: true,
                subpixel_bits: key.device.subpixel_bits,
            }))
        }
        _ => None,
    }
}

/// The steps of the second pipeline of one on GL's fragment line route: the same shaders,
/// the vertices mirrored through their pixels' centres (`WriteLinePosition::mirrored`) so
/// that a segment's rectangle covers its start pixel, and a fragment test that keeps only
/// the start pixels behind the segment's start that the first draw's rectangle leaves out
/// (`LineFragmentKey::start_pixels`); the layer draws each of the pipeline's draws again
/// through it. A library holding one side of the route gets that side's variant, which the
/// layer links into the second pipeline of each pipeline linked from it. `None` for a
/// pipeline off the route, or whose vertex stages have no GL-state block to read the
/// viewport from.
pub fn start_pixel_steps(steps: &[Step]) -> Option<Vec<Step>> {
    let mut again = steps.to_vec();
    let (mut sides, mut unmirrorable) = (0, false);
    for step in &mut again {
        match step {
            Step::LinePosition(p) if p.tested && p.mirrored.is_none() => match p.block {
                Some(block) => {
                    p.mirrored = Some(block);
                    sides += 1;
                }
                None => unmirrorable = true,
            },
            Step::LineFragments(key) if !key.start_pixels => {
                key.start_pixels = true;
                sides += 1;
            }
            _ => {}
        }
    }
    (sides > 0 && !unmirrorable).then_some(again)
}

/// [`choose`]'s pipeline-state steps and the window origin.
fn pipeline_state_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    // Pipeline state goes where the rasterization / viewport state is: a library part
    // without it has `Topology::Unknown` only when it lacks pre-rasterization state too.
    if on(Semantic::ProvokingVertex)
        && key.device.provoking_vertex_last
        && !key.app_provoking_vertex
    {
        steps.push(Step::ProvokingVertexLast(ProvokingVertexLast));
    }
    if on(Semantic::ClipSpaceDepth) && key.device.depth_clip_control && !key.app_depth_clip_control
    {
        steps.push(Step::NegativeOneToOneDepth(NegativeOneToOneDepth));
    }
    let fragment_lines = fragment_lines(stages, key);
    let library_lines = library_fragment_lines(stages, key);
    let library_tests = matches!(
        library_lines,
        Some(Step::LinePosition(WriteLinePosition { tested: true, .. }) | Step::LineFragments(_))
    );
    if on(Semantic::LineRasterization)
        && fragment_lines.is_none()
        && !library_tests
        && key.device.bresenham_lines
        && !key.lines.app_mode
        && !key.lines.multisample
        && !key.rasterizer_discard
        && may_rasterize_lines(stages, key)
    {
        // A library's stipple would have to follow it into the linked pipeline's record:
        // libraries get the diamond-exit rule without the layer's stipple.
        let stippled =
            key.device.stippled_bresenham_lines && !key.lines.app_stipple && !key.library;
        steps.push(Step::BresenhamLines(BresenhamLines { stippled }));
    }
    match fragment_lines {
        Some((position, fragments)) => {
            steps.push(Step::LinePosition(position));
            steps.push(Step::LineFragments(fragments));
        }
        None => {
            steps.extend(library_lines);
            if !library_tests {
                steps.extend(line_endpoints(stages, key).map(Step::LineEndpoints));
            }
        }
    }
    let origin = Some(key.device.window_origin)
        .filter(|&o| on(Semantic::WindowOrigin) && o != WindowOrigin::Vulkan);
    if let Some(origin) = origin {
        if let (Some(summary), Some(block_offset)) =
            (stages.rewritable(Stage::Fragment), key.fragment_block)
        {
            if summary.window_y {
                steps.push(Step::FragmentWindowY(WindowYKey {
                    flipped: origin == WindowOrigin::Flipped,
                    block_offset,
                }));
            }
        }
        if stages.has(Stage::TessEval) && !key.app_domain_origin {
            steps.push(Step::TessellationDomainLowerLeft(
                TessellationDomainLowerLeft,
            ));
        }
        if origin == WindowOrigin::LowerLeft && key.static_front_face {
            steps.push(Step::InvertFrontFace(InvertFrontFace));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::LocationEnds;
    use crate::semantics::key::{DeviceKey, LineKey, StageInfo};
    use crate::semantics::registry::{SemanticSet, SEMANTICS};

    fn key() -> PipelineKey {
        PipelineKey {
            topology: Topology::Triangles,
            static_front_face: true,
            ..PipelineKey::new(&DeviceKey {
                enabled: SemanticSet::ALL,
                max_color_attachments: 8,
                transform_feedback: true,
                tess_geom_point_size: false,
                maintenance5: false,
                gl_state: false,
                depth_clip_control: true,
                provoking_vertex_last: true,
                list_restart: false,
                draw_parameters: false,
                bresenham_lines: false,
                stippled_bresenham_lines: false,
                line_endpoints: None,
                fragment_lines: false,
                subpixel_bits: 8,
                stipple_counts: false,
                window_origin: WindowOrigin::Flipped,
                apart_layer_location: 31,
                primitive_route: PrimitiveRoute::Geometry,
            })
        }
    }

    /// `key` with VK_GLSEM_gl_state on and the GL-state block at 96.
    fn with_gl_state(key: PipelineKey) -> PipelineKey {
        PipelineKey {
            device: DeviceKey {
                gl_state: true,
                ..key.device
            },
            gl_state_block: Some(96),
            ..key
        }
    }

    fn summary(f: impl FnOnce(&mut Summary)) -> Summary {
        let mut s = Summary {
            readable: true,
            ..Summary::default()
        };
        f(&mut s);
        s
    }

    fn stages<'a>(list: &[(Stage, &'a Summary)]) -> Stages<'a> {
        let mut stages = Stages::default();
        for &(stage, summary) in list {
            stages.set(
                stage,
                StageInfo {
                    summary: Some(summary),
                    patchable: true,
                },
            );
        }
        stages
    }

    fn ends(input: u32, output: u32) -> Option<LocationEnds> {
        Some(LocationEnds { input, output })
    }

    /// The gl_Layer steps [`choose`] returns.
    fn gl_layer_steps(stages: &Stages<'_>, key: &PipelineKey) -> Vec<Step> {
        choose(stages, key)
            .into_iter()
            .filter(|s| s.semantic() == Semantic::GlLayer)
            .collect()
    }

    /// `stage`'s gl_Layer gated by the block at 96, copied to `copy_to`.
    fn gated_layer(stage: Stage, copy_to: Option<u32>) -> Step {
        Step::GateLayer(GateLayer {
            stage,
            block_offset: 96,
            copy_to,
        })
    }

    /// The vertex shader's clip distances gated by the block at 96.
    fn vertex_clip_gate() -> Step {
        Step::GateClipDistances(GateClipDistances {
            stage: Stage::Vertex,
            block_offset: 96,
        })
    }

    /// GL's default point size written by `stage`.
    fn default_point_size(stage: Stage) -> Step {
        Step::WritePointSize(WritePointSize {
            stage,
            source: PointSizeSource::Default,
        })
    }

    /// GL's point size state, from the block at 96, written by `stage`.
    fn block_point_size(stage: Stage) -> Step {
        Step::WritePointSize(WritePointSize {
            stage,
            source: PointSizeSource::GlState { block_offset: 96 },
        })
    }

    #[test]
    fn a_triangle_pipeline_without_gl_state_needs_nothing() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain), (Stage::Fragment, &plain)]);
        assert_eq!(choose(&s, &key()), []);
    }

    #[test]
    fn a_point_list_gets_gl_default_size_in_the_vertex_shader() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain), (Stage::Fragment, &plain)]);
        let points = PipelineKey {
            topology: Topology::Points,
            ..key()
        };
        assert_eq!(choose(&s, &points), [default_point_size(Stage::Vertex)]);
        // maintenance5 makes a missing write mean 1.0.
        let m5 = PipelineKey {
            device: DeviceKey {
                maintenance5: true,
                ..points.device
            },
            ..points.clone()
        };
        assert_eq!(choose(&s, &m5), []);
        // With VK_GLSEM_gl_state the size comes from the block, maintenance5 or not.
        let gl = with_gl_state(m5);
        assert_eq!(choose(&s, &gl)[0], block_point_size(Stage::Vertex));
    }

    #[test]
    fn a_pre_rasterization_library_writes_gl_point_size_for_any_vertex_input() {
        // The vertex input library it is linked with may draw a point list: the vertex
        // shader writes GL's size, which other topologies ignore.
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain)]);
        let library = PipelineKey {
            library: true,
            topology: Topology::Unknown,
            ..with_gl_state(key())
        };
        assert_eq!(choose(&s, &library)[0], block_point_size(Stage::Vertex));
        // With rasterization discarded (transform feedback) the shader's own size stays.
        let discard = PipelineKey {
            rasterizer_discard: true,
            ..library.clone()
        };
        assert_eq!(choose(&s, &discard)[0], default_point_size(Stage::Vertex));
        // A geometry shader that emits triangles decides for itself.
        let gs = summary(|s| s.output_primitive = Some(Primitive::Triangles));
        let s = stages(&[(Stage::Vertex, &plain), (Stage::Geometry, &gs)]);
        let with_feature = PipelineKey {
            device: DeviceKey {
                tess_geom_point_size: true,
                ..library.device
            },
            ..library
        };
        assert!(!choose(&s, &with_feature)
            .iter()
            .any(|step| matches!(step, Step::WritePointSize(..))));
    }

    #[test]
    fn tessellation_and_geometry_write_the_size_only_with_their_feature() {
        let vs = summary(|_| {});
        let gs = summary(|s| s.output_primitive = Some(Primitive::Points));
        let s = stages(&[(Stage::Vertex, &vs), (Stage::Geometry, &gs)]);
        assert_eq!(choose(&s, &key()), []);
        let with_feature = PipelineKey {
            device: DeviceKey {
                tess_geom_point_size: true,
                ..key().device
            },
            ..key()
        };
        assert_eq!(
            choose(&s, &with_feature),
            [default_point_size(Stage::Geometry)]
        );
    }

    #[test]
    fn polygon_mode_point_rasterizes_triangles_as_points() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain)]);
        let key = PipelineKey {
            polygon_points: true,
            ..key()
        };
        assert_eq!(choose(&s, &key), [default_point_size(Stage::Vertex)]);
    }

    #[test]
    fn the_xfb_split_runs_before_the_point_size_of_the_same_stage() {
        let vs = summary(|s| s.xfb_candidate = true);
        let fs = summary(|s| s.frag_color = true);
        let s = stages(&[(Stage::Vertex, &vs), (Stage::Fragment, &fs)]);
        let attachments = FragColorKey {
            attachments: vec![(0, AttachmentKind::Float), (1, AttachmentKind::Float)],
        };
        let key = PipelineKey {
            topology: Topology::Points,
            attachments: Attachments::Known(attachments.clone()),
            ..key()
        };
        assert_eq!(
            choose(&s, &key),
            [
                Step::SplitXfbOutputs(SplitXfbOutputs {
                    stage: Stage::Vertex
                }),
                Step::BroadcastFragColor(attachments),
                Step::SplitFragInputs(SplitFragInputs),
                default_point_size(Stage::Vertex),
            ]
        );
    }

    #[test]
    fn conventions_apply_only_with_gl_state_and_only_where_the_app_is_silent() {
        let vs = summary(|s| s.clip_distance = true);
        let s = stages(&[(Stage::Vertex, &vs)]);
        let gl = with_gl_state(key());
        assert_eq!(
            choose(&s, &gl),
            [
                vertex_clip_gate(),
                Step::ProvokingVertexLast(ProvokingVertexLast),
                Step::NegativeOneToOneDepth(NegativeOneToOneDepth)
            ]
        );
        let app_chose = PipelineKey {
            app_provoking_vertex: true,
            app_depth_clip_control: true,
            ..gl.clone()
        };
        assert_eq!(choose(&s, &app_chose), [vertex_clip_gate()]);
        // Nothing rasterized: the enables clip nothing, and transform feedback captures
        // the distances as written (GL captures them whatever the enables).
        let discard = PipelineKey {
            rasterizer_discard: true,
            ..app_chose.clone()
        };
        assert!(choose(&s, &discard).is_empty());
        let no_extension = PipelineKey {
            device: DeviceKey {
                depth_clip_control: false,
                ..gl.device
            },
            ..gl
        };
        assert!(
            choose(&s, &no_extension).contains(&Step::RemapClipDepth(RemapClipDepth {
                stage: Stage::Vertex
            }))
        );
    }

    #[test]
    fn a_tes_without_tcs_always_asks_for_a_tcs() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain), (Stage::TessEval, &plain)]);
        let off = PipelineKey {
            device: DeviceKey {
                enabled: SEMANTICS.iter().fold(SemanticSet::ALL, |mut none, s| {
                    none.set(s.semantic, false);
                    none
                }),
                ..key().device
            },
            ..key()
        };
        assert_eq!(choose(&s, &off), [Step::GenerateTcs(GenerateTcs)]);
    }

    #[test]
    fn a_fragment_library_without_attachments_broadcasts_to_every_color_location() {
        let fs = summary(|s| s.frag_color = true);
        let s = stages(&[(Stage::Fragment, &fs)]);
        let key = PipelineKey {
            device: DeviceKey {
                max_color_attachments: 3,
                ..key().device
            },
            library: true,
            attachments: Attachments::Unknown,
            ..key()
        };
        let float = AttachmentKind::Float;
        assert_eq!(
            choose(&s, &key),
            [Step::BroadcastFragColor(FragColorKey {
                attachments: vec![(0, float), (1, float), (2, float)],
            })]
        );
        // One Location: nothing to broadcast.
        let one = PipelineKey {
            device: DeviceKey {
                max_color_attachments: 1,
                ..key.device
            },
            ..key
        };
        assert_eq!(choose(&s, &one), []);
    }

    #[test]
    fn libraries_split_xfb_structs_on_each_side_alone() {
        let vs = summary(|s| s.xfb_candidate = true);
        let fs = summary(|s| s.struct_inputs = true);
        let library = PipelineKey {
            library: true,
            topology: Topology::Unknown,
            ..key()
        };
        let pre_raster = stages(&[(Stage::Vertex, &vs)]);
        // The split runs before GL's point size (the vertex input may be a point list).
        let point_size = Step::WritePointSize(WritePointSize {
            stage: Stage::Vertex,
            source: PointSizeSource::Default,
        });
        assert_eq!(
            choose(&pre_raster, &library),
            [
                Step::SplitXfbOutputs(SplitXfbOutputs {
                    stage: Stage::Vertex
                }),
                point_size.clone()
            ]
        );
        // The fragment shader is in another library: every struct output is split, as the
        // fragment library splits every struct input.
        let vs = summary(|s| s.struct_outputs = true);
        let pre_raster = stages(&[(Stage::Vertex, &vs)]);
        let elsewhere = PipelineKey {
            fragment_elsewhere: true,
            fragment_may_be_apart: true,
            ..library.clone()
        };
        assert_eq!(
            choose(&pre_raster, &elsewhere),
            [
                Step::SplitStructOutputs(SplitStructOutputs {
                    stage: Stage::Vertex
                }),
                point_size
            ]
        );
        let fragment = stages(&[(Stage::Fragment, &fs)]);
        assert_eq!(
            choose(&fragment, &library),
            [Step::SplitStructInputs(SplitStructInputs)]
        );
        // A whole pipeline splits the inputs that match its outputs.
        assert_eq!(choose(&fragment, &key()), []);
        // Without transform feedback there is nothing to capture.
        let no_xfb = PipelineKey {
            device: DeviceKey {
                transform_feedback: false,
                ..library.device
            },
            ..library
        };
        assert_eq!(choose(&fragment, &no_xfb), []);
    }

    #[test]
    fn shader_objects_get_the_point_size_and_no_tcs() {
        let plain = summary(|_| {});
        let object = PipelineKey {
            library: true,
            shader_object: true,
            topology: Topology::Dynamic,
            app_provoking_vertex: true,
            app_depth_clip_control: true,
            rasterizer_discard: false,
            ..key()
        };
        let vs = stages(&[(Stage::Vertex, &plain)]);
        assert_eq!(choose(&vs, &object), [default_point_size(Stage::Vertex)]);
        let tes = stages(&[(Stage::TessEval, &plain)]);
        assert_eq!(choose(&tes, &object), []);
    }

    #[test]
    fn a_fragment_shader_reading_gl_layer_reads_a_copy_past_both_interfaces() {
        let gs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(9, 3);
        });
        let fs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(5, 1);
        });
        let gl = with_gl_state(key());
        let s = stages(&[(Stage::Geometry, &gs), (Stage::Fragment, &fs)]);
        assert_eq!(
            gl_layer_steps(&s, &gl),
            [
                gated_layer(Stage::Geometry, Some(5)),
                Step::ReadLayerFrom(ReadLayerFrom { location: 5 })
            ]
        );
        // Interfaces that end at the device's last Location leave no room for the copy:
        // the layer never takes a stage past its limit.
        let full_fs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(32, 1);
        });
        let s = stages(&[(Stage::Geometry, &gs), (Stage::Fragment, &full_fs)]);
        assert_eq!(
            gl_layer_steps(&s, &gl),
            [gated_layer(Stage::Geometry, None)]
        );
        // A fragment shader that does not read the layer, or one elsewhere: no copy.
        let plain_fs = summary(|_| {});
        for s in [
            stages(&[(Stage::Geometry, &gs), (Stage::Fragment, &plain_fs)]),
            stages(&[(Stage::Geometry, &gs)]),
        ] {
            assert_eq!(
                gl_layer_steps(&s, &gl),
                [gated_layer(Stage::Geometry, None)]
            );
        }
    }

    #[test]
    fn stages_made_apart_pass_gl_layer_at_the_last_location() {
        let gs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(9, 3);
        });
        let vs = summary(|s| s.location_ends = ends(2, 1));
        let fs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(5, 1);
        });
        let library = PipelineKey {
            device: DeviceKey {
                gl_state: true,
                ..key().device
            },
            library: true,
            ..key()
        };
        let pre_rasterization = PipelineKey {
            gl_state_block: Some(96),
            fragment_elsewhere: true,
            fragment_may_be_apart: true,
            ..library.clone()
        };
        let gs_only = stages(&[(Stage::Geometry, &gs)]);
        assert_eq!(
            gl_layer_steps(&gs_only, &pre_rasterization),
            [gated_layer(Stage::Geometry, Some(31))]
        );
        // A stage without a layer passes layer 0; without the block, the copy is ungated.
        assert_eq!(
            gl_layer_steps(&stages(&[(Stage::Vertex, &vs)]), &pre_rasterization),
            [gated_layer(Stage::Vertex, Some(31))]
        );
        let no_block = PipelineKey {
            gl_state_block: None,
            ..pre_rasterization.clone()
        };
        assert_eq!(
            gl_layer_steps(&gs_only, &no_block),
            [Step::CopyLayer(CopyLayer {
                stage: Stage::Geometry,
                location: 31
            })]
        );
        // A shader object whose nextStage names the fragment stage among others may be
        // bound before a fragment shader object: it passes the layer, though its struct
        // outputs are not split (another stage may read them whole).
        let may_feed_fragment = PipelineKey {
            fragment_elsewhere: false,
            ..pre_rasterization.clone()
        };
        assert_eq!(
            gl_layer_steps(&gs_only, &may_feed_fragment),
            [gated_layer(Stage::Geometry, Some(31))]
        );
        // Outputs reaching the last Location, or the one before it, leave no room for the
        // copy: a stage at its interface limit stays within it.
        for end in [32, 31] {
            let gs = summary(|s| {
                s.layer = true;
                s.location_ends = ends(0, end);
            });
            assert_eq!(
                gl_layer_steps(&stages(&[(Stage::Geometry, &gs)]), &pre_rasterization),
                [gated_layer(Stage::Geometry, None)]
            );
        }
        // The fragment shader of another library reads the copy.
        assert_eq!(
            gl_layer_steps(&stages(&[(Stage::Fragment, &fs)]), &library),
            [Step::ReadLayerFrom(ReadLayerFrom { location: 31 })]
        );
    }

    #[test]
    fn gl_defined_inputs_and_outputs() {
        let vs = summary(|s| {
            s.vertex_input_locations = vec![0, 3];
            s.instance_index = true;
        });
        let gs = summary(|s| s.layer = true);
        let fs = summary(|s| s.sample_mask = true);
        let s = stages(&[
            (Stage::Vertex, &vs),
            (Stage::Geometry, &gs),
            (Stage::Fragment, &fs),
        ]);
        // Without the extension only the unfed input, and only where the fed ones are known.
        assert_eq!(choose(&s, &key()), []);
        let fed = PipelineKey {
            device: DeviceKey {
                draw_parameters: true,
                ..key().device
            },
            fed_locations: Some(vec![0]),
            single_sample: true,
            ..key()
        };
        assert_eq!(
            choose(&s, &fed),
            [Step::DefaultUnfedInputs(DefaultUnfedInputs {
                fed: vec![0]
            })]
        );
        let all_fed = PipelineKey {
            fed_locations: Some(vec![0, 3]),
            ..fed.clone()
        };
        assert_eq!(choose(&s, &all_fed), []);
        let gl = with_gl_state(fed);
        assert_eq!(
            choose(&s, &gl),
            [
                gated_layer(Stage::Geometry, None),
                Step::DefaultUnfedInputs(DefaultUnfedInputs { fed: vec![0] }),
                Step::InstanceIdWithoutBase(InstanceIdWithoutBase {
                    base: InstanceBase::BuiltIn
                }),
                Step::DropSampleMask(DropSampleMask),
                Step::ProvokingVertexLast(ProvokingVertexLast),
                Step::NegativeOneToOneDepth(NegativeOneToOneDepth),
            ]
        );
        // With the layer's binding free, GL's current values feed the unfed input.
        let fed_current = PipelineKey {
            attribute_binding: Some(31),
            ..gl.clone()
        };
        assert!(
            choose(&s, &fed_current).contains(&Step::FeedCurrentAttributes(
                FeedCurrentAttributes {
                    fed: vec![0],
                    binding: 31
                }
            ))
        );
        assert!(
            !choose(&s, &fed_current).contains(&Step::DefaultUnfedInputs(DefaultUnfedInputs {
                fed: vec![0]
            }))
        );
        let vulkan_instance = {
            let mut enabled = SemanticSet::ALL;
            enabled.set(Semantic::InstanceId, false);
            PipelineKey {
                device: DeviceKey {
                    enabled,
                    draw_parameters: true,
                    ..gl.device
                },
                single_sample: false,
                ..gl
            }
        };
        assert!(
            !choose(&s, &vulkan_instance).contains(&Step::InstanceIdWithoutBase(
                InstanceIdWithoutBase {
                    base: InstanceBase::BuiltIn
                }
            ))
        );
        assert!(!choose(&s, &vulkan_instance).contains(&Step::DropSampleMask(DropSampleMask)));
    }

    #[test]
    fn without_draw_parameters_the_base_instance_comes_from_the_block() {
        let vs = summary(|s| s.instance_index = true);
        let s = stages(&[(Stage::Vertex, &vs)]);
        let gl = with_gl_state(key());
        assert!(!gl.device.draw_parameters);
        assert!(
            choose(&s, &gl).contains(&Step::InstanceIdWithoutBase(InstanceIdWithoutBase {
                base: InstanceBase::GlState { block_offset: 96 }
            }))
        );
        // A layout without room for the block leaves Vulkan's InstanceIndex.
        let no_block = PipelineKey {
            gl_state_block: None,
            ..gl
        };
        assert!(!choose(&s, &no_block)
            .iter()
            .any(|step| matches!(step, Step::InstanceIdWithoutBase(_))));
    }

    #[test]
    fn libraries_take_the_fragment_route_side_by_side_below_the_last_location() {
        let vs = summary(|s| s.single_location_bound = Some(3));
        let fs = summary(|s| s.single_location_bound = Some(2));
        let device = DeviceKey {
            bresenham_lines: true,
            fragment_lines: true,
            ..key().device
        };
        // A pre-rasterization library: the varyings at 29 and 30 (below 31, gl_Layer's),
        // tested where its vertex shader sends width-1 lines.
        let pre_rasterization = with_gl_state(PipelineKey {
            device,
            library: true,
            topology: Topology::Unknown,
            lines: LineKey {
                multisample: true,
                ..key().lines
            },
            fragment_elsewhere: true,
            fragment_may_be_apart: true,
            ..key()
        });
        let vertex = stages(&[(Stage::Vertex, &vs)]);
        let position = |key: &PipelineKey| {
            choose(&vertex, key)
                .into_iter()
                .find_map(|step| match step {
                    Step::LinePosition(p) => Some(p),
                    _ => None,
                })
        };
        let written = WriteLinePosition {
            stage: Stage::Vertex,
            location: 29,
            block: Some(96),
            mirrored: None,
            tested: true,
            subpixel_bits: 8,
            stipple_counts: false,
        };
        assert_eq!(position(&pre_rasterization), Some(written.clone()));
        assert!(!choose(&vertex, &pre_rasterization)
            .iter()
            .any(|s| matches!(s, Step::BresenhamLines(_))));
        // Wide lines: written for the fragment library's interface, not tested.
        let wide = PipelineKey {
            lines: LineKey {
                wide: true,
                ..pre_rasterization.clone().lines
            },
            ..pre_rasterization.clone()
        };
        let untested = WriteLinePosition {
            tested: false,
            ..written.clone()
        };
        assert_eq!(position(&wide), Some(untested.clone()));
        // GL's quads through a generated geometry shader: its lines are not on the route,
        // and it writes the varyings itself (past what it may read).
        let quads = PipelineKey {
            gl_mode: Some(GlMode::Primitive(GlPrimitive::Quads)),
            ..pre_rasterization.clone()
        };
        let steps = choose(&vertex, &quads);
        assert_eq!(position(&quads), Some(untested));
        assert!(steps.iter().any(|s| matches!(
            s,
            Step::DrawGlPrimitive(PrimitiveGsKey {
                route_copy: Some(29),
                ..
            })
        )));
        // Its start-pixel variant mirrors the vertices.
        let again = start_pixel_steps(&choose(&vertex, &pre_rasterization)).unwrap();
        assert!(again.iter().any(|s| matches!(
            s,
            Step::LinePosition(WriteLinePosition {
                mirrored: Some(96),
                ..
            })
        )));
        // A single-sampled fragment-shader library tests them there, gated by the block.
        let fragment_library = with_gl_state(PipelineKey {
            device,
            library: true,
            topology: Topology::Unknown,
            fragment_block: Some(96),
            ..key()
        });
        let fragment = stages(&[(Stage::Fragment, &fs)]);
        let tested = choose(&fragment, &fragment_library)
            .into_iter()
            .find_map(|step| match step {
                Step::LineFragments(key) => Some(key),
                _ => None,
            })
            .expect("the fragment library tests the lines");
        assert_eq!(
            (tested.location, tested.lines_gated, tested.varyings_gated),
            (29, true, true)
        );
        // A multisampled one draws the driver's lines.
        let multisampled = PipelineKey {
            lines: LineKey {
                multisample: true,
                ..fragment_library.lines
            },
            ..fragment_library
        };
        assert!(!choose(&fragment, &multisampled)
            .iter()
            .any(|s| matches!(s, Step::LineFragments(_))));
    }

    #[test]
    fn the_fragment_route_takes_whole_pipelines_that_draw_only_width_one_lines() {
        let vs = summary(|s| s.single_location_bound = Some(3));
        let fs = summary(|s| {
            s.single_location_bound = Some(2);
            s.window_y = true;
        });
        let s = stages(&[(Stage::Vertex, &vs), (Stage::Fragment, &fs)]);
        let lines = with_gl_state(PipelineKey {
            device: DeviceKey {
                bresenham_lines: true,
                fragment_lines: true,
                ..key().device
            },
            topology: Topology::Lines,
            fragment_block: Some(96),
            ..key()
        });
        let route = |key: &PipelineKey| {
            let steps = choose(&s, key);
            let position = steps.iter().find_map(|step| match step {
                Step::LinePosition(p) => Some(p.clone()),
                _ => None,
            });
            let fragments = steps.iter().find_map(|step| match step {
                Step::LineFragments(f) => Some(*f),
                _ => None,
            });
            let bresenham = steps.iter().any(|s| matches!(s, Step::BresenhamLines(_)));
            (position, fragments, bresenham)
        };
        // Past both interfaces; the layer's last-vertex convention; the window-y step that
        // follows flips the test's gl_FragCoord.y too.
        assert_eq!(
            route(&lines),
            (
                Some(WriteLinePosition {
                    stage: Stage::Vertex,
                    location: 3,
                    block: Some(96),
                    mirrored: None,
                    tested: true,
                    subpixel_bits: 8,
                    stipple_counts: false,
                }),
                Some(LineFragmentKey {
                    location: 3,
                    block_offset: 96,
                    provoking: ProvokingEnd::Last,
                    frag_coord_flipped: true,
                    lines_gated: false,
                    start_pixels: false,
                    varyings_gated: false,
                    subpixel_bits: 8,
                }),
                false
            )
        );
        // A dynamic topology: the test runs while the block says lines are drawn.
        let dynamic = PipelineKey {
            topology: Topology::Dynamic,
            ..lines.clone()
        };
        assert!(matches!(
            route(&dynamic),
            (
                Some(_),
                Some(LineFragmentKey {
                    lines_gated: true,
                    ..
                }),
                false
            )
        ));
        // What the route leaves keeps Bresenham lines: wide lines, libraries, triangles
        // drawn as lines; triangles get neither.
        let wide = PipelineKey {
            lines: LineKey {
                wide: true,
                ..lines.clone().lines
            },
            ..lines.clone()
        };
        let library = PipelineKey {
            library: true,
            ..lines.clone()
        };
        let polygon_lines = PipelineKey {
            topology: Topology::Triangles,
            polygon_lines: true,
            ..lines.clone()
        };
        for key in [wide, library, polygon_lines] {
            assert_eq!(route(&key), (None, None, true));
            assert_eq!(start_pixel_steps(&choose(&s, &key)), None);
        }
        // The start-pixel pipeline: the same steps, the vertices mirrored through their
        // pixels' centres (the block's viewport) and the test keeping only start pixels.
        let steps = choose(&s, &lines);
        let again = start_pixel_steps(&steps).expect("a pipeline on the route has one");
        assert_eq!(again.len(), steps.len());
        assert!(again.iter().any(|s| matches!(
            s,
            Step::LinePosition(WriteLinePosition {
                mirrored: Some(96),
                ..
            })
        )));
        assert!(again.iter().any(|s| matches!(
            s,
            Step::LineFragments(LineFragmentKey {
                start_pixels: true,
                ..
            })
        )));
        assert_eq!(start_pixel_steps(&again), None, "no pass of its own");
        let triangles = PipelineKey {
            topology: Topology::Triangles,
            ..lines.clone()
        };
        assert_eq!(route(&triangles), (None, None, false));
        // No two Locations free below the device's last: the driver's lines.
        let crowded = PipelineKey {
            device: DeviceKey {
                apart_layer_location: 4,
                ..lines.device
            },
            ..lines.clone()
        };
        assert_eq!(route(&crowded), (None, None, true));
    }

    #[test]
    fn line_endpoints_move_in_the_last_stage_where_the_driver_decides_edges_otherwise() {
        use crate::line_endpoints::EndpointGrid;
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain)]);
        let grid = EndpointGrid {
            subpixel_bits: 8,
            toward_centre: false,
        };
        let lines = with_gl_state(PipelineKey {
            device: DeviceKey {
                bresenham_lines: true,
                line_endpoints: Some(grid),
                ..key().device
            },
            topology: Topology::Lines,
            ..key()
        });
        let endpoints = |key: &PipelineKey| {
            choose(&s, key).into_iter().find_map(|step| match step {
                Step::LineEndpoints(e) => Some(e),
                _ => None,
            })
        };
        // Static lines: always; a topology that may change or polygons drawn as lines only
        // while the block's flag says lines are drawn.
        let only_lines = LineEndpoints {
            stage: Stage::Vertex,
            block_offset: 96,
            grid,
            lines_gated: false,
            samples_gated: false,
        };
        assert_eq!(endpoints(&lines), Some(only_lines.clone()));
        let dynamic_topology = PipelineKey {
            dynamic_points: true,
            ..lines.clone()
        };
        let gated = LineEndpoints {
            lines_gated: true,
            ..only_lines.clone()
        };
        assert_eq!(endpoints(&dynamic_topology), Some(gated.clone()));
        let triangles = PipelineKey {
            topology: Topology::Triangles,
            ..lines.clone()
        };
        assert_eq!(endpoints(&triangles), None);
        let polygon_lines = PipelineKey {
            polygon_lines: true,
            ..triangles.clone()
        };
        assert_eq!(endpoints(&polygon_lines), Some(gated.clone()));
        let static_polygon_lines = PipelineKey {
            rasterized: Rasterized::Lines,
            ..polygon_lines
        };
        assert_eq!(endpoints(&static_polygon_lines), Some(only_lines.clone()));
        // A line mode the layer follows under a dynamic sample count: single-sampled draws.
        let followed = PipelineKey {
            lines: LineKey {
                app_mode: true,
                followed_mode: true,
                multisample: true,
                ..lines.clone().lines
            },
            dynamic_samples: true,
            ..lines.clone()
        };
        let single_sampled = LineEndpoints {
            samples_gated: true,
            ..only_lines
        };
        assert_eq!(endpoints(&followed), Some(single_sampled));
        // The driver's rule, no room for the block, GL's multisample rules, the application's
        // own line mode, no rasterization: nothing.
        let not_for = [
            PipelineKey {
                device: DeviceKey {
                    line_endpoints: None,
                    ..lines.device
                },
                ..lines.clone()
            },
            PipelineKey {
                gl_state_block: None,
                ..lines.clone()
            },
            PipelineKey {
                lines: LineKey {
                    multisample: true,
                    ..lines.clone().lines
                },
                ..lines.clone()
            },
            PipelineKey {
                lines: LineKey {
                    app_mode: true,
                    ..lines.clone().lines
                },
                ..lines.clone()
            },
            PipelineKey {
                rasterizer_discard: true,
                ..lines.clone()
            },
        ];
        for key in not_for {
            assert_eq!(endpoints(&key), None, "{key:?}");
        }
    }

    #[test]
    fn single_sampled_line_pipelines_get_bresenham_lines() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain)]);
        let lines = PipelineKey {
            device: DeviceKey {
                gl_state: true,
                bresenham_lines: true,
                stippled_bresenham_lines: true,
                depth_clip_control: false,
                ..key().device
            },
            topology: Topology::Lines,
            app_provoking_vertex: true,
            ..key()
        };
        let stippled = Step::BresenhamLines(BresenhamLines { stippled: true });
        assert!(choose(&s, &lines).contains(&stippled));
        // Triangles draw lines only in polygon mode LINE.
        let triangles = PipelineKey {
            topology: Topology::Triangles,
            ..lines.clone()
        };
        assert!(!choose(&s, &triangles).contains(&stippled));
        let polygon_lines = PipelineKey {
            polygon_lines: true,
            ..triangles
        };
        assert!(choose(&s, &polygon_lines).contains(&stippled));
        // GL's multisample rules (and VUID-…-02766), the application's own mode, no
        // extension, the setting, no VK_GLSEM_gl_state: nothing.
        let not_for = [
            PipelineKey {
                lines: LineKey {
                    multisample: true,
                    ..lines.clone().lines
                },
                ..lines.clone()
            },
            PipelineKey {
                lines: LineKey {
                    app_mode: true,
                    ..lines.clone().lines
                },
                ..lines.clone()
            },
            PipelineKey {
                device: DeviceKey {
                    bresenham_lines: false,
                    ..lines.device
                },
                ..lines.clone()
            },
            PipelineKey {
                device: DeviceKey {
                    gl_state: false,
                    ..lines.device
                },
                ..lines.clone()
            },
        ];
        for key in not_for {
            assert!(!choose(&s, &key)
                .iter()
                .any(|s| matches!(s, Step::BresenhamLines(BresenhamLines { .. }))));
        }
        // The application's stipple, and libraries: Bresenham without the layer's stipple.
        let app_stipple = PipelineKey {
            lines: LineKey {
                app_stipple: true,
                ..lines.clone().lines
            },
            ..lines.clone()
        };
        assert!(choose(&s, &app_stipple)
            .contains(&Step::BresenhamLines(BresenhamLines { stippled: false })));
        // A geometry shader's line strips and TES isolines draw lines from any topology.
        let gs = summary(|s| s.output_primitive = Some(Primitive::Lines));
        let s = stages(&[(Stage::Vertex, &plain), (Stage::Geometry, &gs)]);
        let points = PipelineKey {
            topology: Topology::Points,
            ..lines
        };
        assert!(choose(&s, &points).contains(&stippled));
    }

    #[test]
    fn window_origin_fixes_what_each_viewport_turns_over() {
        let vs = summary(|_| {});
        let fs = summary(|s| s.window_y = true);
        let s = stages(&[
            (Stage::Vertex, &vs),
            (Stage::TessEval, &vs),
            (Stage::Fragment, &fs),
        ]);
        let gl = PipelineKey {
            device: DeviceKey {
                gl_state: true,
                ..key().device
            },
            fragment_block: Some(92),
            app_provoking_vertex: true,
            app_depth_clip_control: true,
            ..key()
        };
        let flipped = WindowYKey {
            flipped: true,
            block_offset: 92,
        };
        assert_eq!(
            choose(&s, &gl)[1..],
            [
                Step::FragmentWindowY(flipped),
                Step::TessellationDomainLowerLeft(TessellationDomainLowerLeft)
            ]
        );
        let lower_left = PipelineKey {
            device: DeviceKey {
                window_origin: WindowOrigin::LowerLeft,
                ..gl.device
            },
            ..gl.clone()
        };
        assert_eq!(
            choose(&s, &lower_left)[1..],
            [
                Step::FragmentWindowY(WindowYKey {
                    flipped: false,
                    ..flipped
                }),
                Step::TessellationDomainLowerLeft(TessellationDomainLowerLeft),
                Step::InvertFrontFace(InvertFrontFace)
            ]
        );
        // The application chose a domain origin, its front face is dynamic.
        let chosen = PipelineKey {
            app_domain_origin: true,
            static_front_face: false,
            ..lower_left
        };
        assert_eq!(choose(&s, &chosen).len(), 2);
        // `vulkan`, or no VK_GLSEM_gl_state: nothing but the TCS.
        let vulkan = PipelineKey {
            device: DeviceKey {
                window_origin: WindowOrigin::Vulkan,
                ..gl.device
            },
            ..gl.clone()
        };
        assert_eq!(choose(&s, &vulkan), [Step::GenerateTcs(GenerateTcs)]);
        let plain = PipelineKey {
            device: DeviceKey {
                gl_state: false,
                ..gl.device
            },
            ..gl
        };
        assert_eq!(choose(&s, &plain), [Step::GenerateTcs(GenerateTcs)]);
    }
    #[test]
    fn the_index_route_draws_gl_primitives_without_a_geometry_shader() {
        use crate::primitive_mode::{GlPrimitive, GlPrimitiveId};
        let (vs, fs) = (summary(|_| {}), summary(|_| {}));
        let quads = |route, shader_object| {
            let key = with_gl_state(key());
            PipelineKey {
                gl_mode: Some(GlMode::Primitive(GlPrimitive::Quads)),
                shader_object,
                device: DeviceKey {
                    primitive_route: route,
                    ..key.device
                },
                ..key
            }
        };
        let both = stages(&[(Stage::Vertex, &vs), (Stage::Fragment, &fs)]);
        let steps = choose(&both, &quads(PrimitiveRoute::Indices, false));
        let indexed = IndexedPrimitive {
            primitive: GlPrimitive::Quads,
            rasterized: Rasterized::Fill,
            provoking_last: true,
        };
        assert!(steps.contains(&Step::DrawGlPrimitiveIndexed(indexed)));
        assert!(steps.contains(&Step::CountGlPrimitives(GlPrimitiveId { shift: Some(1) })));
        assert!(!steps.iter().any(|s| matches!(s, Step::DrawGlPrimitive(_))));
        // Without a fragment shader nothing counts primitives.
        let vertex_only = stages(&[(Stage::Vertex, &vs)]);
        let steps = choose(&vertex_only, &quads(PrimitiveRoute::Indices, false));
        assert!(!steps
            .iter()
            .any(|s| matches!(s, Step::CountGlPrimitives(_))));
        // The geometry route, and shader objects on either, take the geometry shader.
        for key in [
            quads(PrimitiveRoute::Geometry, false),
            quads(PrimitiveRoute::Indices, true),
        ] {
            let steps = choose(&both, &key);
            assert!(steps.iter().any(|s| matches!(s, Step::DrawGlPrimitive(_))));
            assert!(!steps
                .iter()
                .any(|s| matches!(s, Step::DrawGlPrimitiveIndexed(_))));
        }
    }
}

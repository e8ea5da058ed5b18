//! GL's primitive modes, layer side of device and pipeline creation (record and draw time
//! are `commands/draws/gl_primitives.rs`): the application's
//! `VkPipelinePrimitiveModeCreateInfoGLSEM` read and decoded, its errors, the topologies
//! the pipeline goes down with. Quads, quad strips and polygons get a generated geometry
//! shader after the vertex shader, or, on the index route (no `geometryShader`, or setting
//! `primitive_mode_route = indices`), a list topology whose non-indexed draws the layer
//! replaces; line loops are closed at draw time. Either index buffer is made here first.

use ash::vk;
use std::ffi::CStr;

use crate::layer::data::cache::{CacheKey, Outcome};
use crate::layer::data::primitives::{BoundPrimitives, PipelinePrimitives, PolygonModeVariants};
use crate::layer::data::words::Words;
use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::objects::pipeline_info::{
    from_libraries, holds_pre_rasterization, holds_vertex_input, libraries_have,
};
use crate::layer::rewrite::run::{cached, Rewrite, Run};
use crate::layer::rules::layer_step::{LayerStep, PipelineRule};
use crate::layer::support::error::{GenerationError, ObjectError, PlanError, RuleError};
use crate::layer::support::log;
use glsem_abi::{PipelinePrimitiveModeCreateInfo, PrimitiveMode};
use glsem_spirv::primitive_mode::{
    build_primitive_gs, CloseLineLoops, GlPrimitive, GlPrimitiveId, IndexedPrimitive, List,
    PrimitiveGsKey, Rasterized,
};
use glsem_spirv::semantics::{GlMode, Stage, Step};

/// Why a pipeline (or shader objects) cannot draw GL's primitive mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GlModeError {
    #[error("GL's {primitive:?} are drawn through a generated geometry shader, but {why}")]
    Gs {
        primitive: GlPrimitive,
        why: GsError,
    },
    #[error(
        "GL's {primitive:?} are drawn without a geometry shader (setting primitive_mode_route, \
         or a device without geometryShader), but {why}"
    )]
    Indices {
        primitive: GlPrimitive,
        why: IndicesError,
    },
    #[error(
        "VkPipelinePrimitiveModeCreateInfoGLSEM names {0:#x}, not a GL primitive mode the \
         layer draws (GL_LINE_LOOP, GL_QUADS, GL_QUAD_STRIP, GL_POLYGON)"
    )]
    NotAMode(u32),
    #[error(
        "VkPipelinePrimitiveModeCreateInfoGLSEM needs VK_GLSEM_gl_state enabled on the device"
    )]
    WithoutGlState,
    #[error(
        "GL_LINE_LOOP needs a host-visible index buffer to close the loop, and the device has \
         no memory the layer could use"
    )]
    NoLoopMemory,
    #[error(
        "VkPipelinePrimitiveModeCreateInfoGLSEM behind an unknown pNext struct of the \
         input-assembly state"
    )]
    Hidden,
}

impl From<GlModeError> for PlanError {
    fn from(why: GlModeError) -> PlanError {
        PlanError::Rule(RuleError::new(why))
    }
}

/// Why no geometry shader can draw GL's quads, quad strips or polygons.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GsError {
    #[error("the pipeline has a geometry or tessellation shader (GL refuses it too)")]
    OtherGeometryStages,
    #[error("the device has no geometryShader")]
    NoGeometryShader,
    #[error("the layer cannot read the vertex shader")]
    UnreadableVertexShader,
    #[error(transparent)]
    Generation(#[from] GenerationError),
}

impl From<ObjectError> for GsError {
    fn from(e: ObjectError) -> Self {
        GsError::Generation(e.into())
    }
}

/// Why GL's quads, quad strips or polygons cannot be drawn without a geometry shader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum IndicesError {
    #[error("the pipeline has a geometry or tessellation shader (GL refuses it too)")]
    OtherGeometryStages,
    #[error("the device has no host-visible memory the layer could make its index buffer in")]
    NoMemory,
    #[error(
        "a pre-rasterization library in polygon mode GL_LINE or GL_POINT is linked with a \
         vertex-input library the layer cannot make again with the list it draws"
    )]
    UnfilledLibrary,
    #[error(
        "a pre-rasterization library apart from its vertex-input library cannot draw them \
         under a dynamic polygon mode (the vertex-input library's list cannot follow it)"
    )]
    DynamicPolygonModeLibrary,
}

/// GL's primitive modes at the planner's fixed points.
pub(crate) struct PrimitiveModes;

impl PipelineRule for PrimitiveModes {
    /// The layer's struct never goes down.
    fn must_plan(_dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
        requested_mode(ci).is_some()
    }

    /// A pipeline linked from libraries whose draws are changed for GL's mode.
    fn needs_record(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
        libraries_have(dev, ci, |r| r.bound.primitives.draws_gl_mode())
    }

    fn refuse(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<PlanError> {
        refused_mode(dev, requested_mode(ci)?).map(PlanError::from)
    }

    /// The input-assembly state drawing GL's mode, unless the steps' route cannot be taken.
    fn after_steps(
        _dev: &DeviceData,
        ci: &PipelineView<'_>,
        rewrite: &mut Rewrite,
    ) -> Result<(), PlanError> {
        if let Some(why) = refused_after_steps(ci, rewrite) {
            return Err(why);
        }
        rewrite.input_assembly = assembly_topology(ci, rewrite);
        Ok(())
    }
}

/// The `VkPrimitiveModeGLSEM` value `ci`'s input-assembly state chains (the application's,
/// whether GL's mode or not).
fn requested_mode(ci: &PipelineView<'_>) -> Option<PrimitiveMode> {
    let assembly = ci.input_assembly.as_ref()?;
    let gl_mode = assembly
        .chain
        .layer_struct::<PipelinePrimitiveModeCreateInfo>()?;
    Some(gl_mode.primitive_mode)
}

/// GL's mode `ci` draws (`None`: none, or a value the planner refuses).
pub(crate) fn gl_mode(ci: &PipelineView<'_>) -> Option<GlMode> {
    requested_mode(ci).and_then(gl_mode_of)
}

/// The [`GlMode`] of a `VkPrimitiveModeGLSEM` value (`None`: none, or not a GL mode).
pub(crate) fn gl_mode_of(mode: PrimitiveMode) -> Option<GlMode> {
    match mode {
        PrimitiveMode::LINE_LOOP => Some(GlMode::LineLoop),
        PrimitiveMode::QUADS => Some(GlMode::Primitive(GlPrimitive::Quads)),
        PrimitiveMode::QUAD_STRIP => Some(GlMode::Primitive(GlPrimitive::QuadStrip)),
        PrimitiveMode::POLYGON => Some(GlMode::Primitive(GlPrimitive::Polygon)),
        _ => None,
    }
}

/// Why a `VkPrimitiveModeGLSEM` value cannot be drawn on `dev`, if it cannot.
fn refused_mode(dev: &DeviceData, mode: PrimitiveMode) -> Option<GlModeError> {
    if mode != PrimitiveMode::NONE && gl_mode_of(mode).is_none() {
        return Some(GlModeError::NotAMode(mode.0));
    }
    (!dev.extensions.gl_state).then_some(GlModeError::WithoutGlState)
}

/// Why `ci` cannot draw what its steps made of GL's mode, if it cannot: on the index route,
/// a pre-rasterization library apart from its vertex-input library cannot draw GL's
/// primitives under a dynamic polygon mode (the list the vertex-input library draws, made
/// again at the link for a static `GL_LINE` or `GL_POINT`, cannot follow it).
fn refused_after_steps(ci: &PipelineView<'_>, rewrite: &Rewrite) -> Option<PlanError> {
    let pattern = rewrite.indexed_primitive()?;
    let apart = holds_pre_rasterization(ci) && !holds_vertex_input(ci);
    let why = GlModeError::Indices {
        primitive: pattern.primitive,
        why: IndicesError::DynamicPolygonModeLibrary,
    };
    (apart && ci.is_dynamic(vk::DynamicState::POLYGON_MODE_EXT)).then(|| why.into())
}

/// The topology that draws `mode` (with the generated geometry shader, for quads, quad
/// strips and polygons).
pub(crate) fn topology_for(mode: GlMode) -> vk::PrimitiveTopology {
    match mode {
        GlMode::LineLoop => vk::PrimitiveTopology::LINE_STRIP,
        GlMode::Primitive(GlPrimitive::Quads) => vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY,
        GlMode::Primitive(GlPrimitive::QuadStrip) => {
            vk::PrimitiveTopology::LINE_STRIP_WITH_ADJACENCY
        }
        GlMode::Primitive(GlPrimitive::Polygon) => vk::PrimitiveTopology::TRIANGLE_FAN,
    }
}

/// The topology a pipeline drawing GL's quads, quad strips or polygons on the index route
/// draws: the list of its pattern ([`IndexedPrimitive::list`]).
pub(crate) fn list_topology(p: &IndexedPrimitive) -> vk::PrimitiveTopology {
    match p.list() {
        List::Triangles => vk::PrimitiveTopology::TRIANGLE_LIST,
        List::Lines => vk::PrimitiveTopology::LINE_LIST,
        List::Points => vk::PrimitiveTopology::POINT_LIST,
    }
}

/// The topology `ci`'s input-assembly state goes down with where it chains the layer's
/// struct (`None`: it does not, and goes down as it is): the one drawing GL's mode where it
/// holds the vertex-input state, else the application's.
fn assembly_topology(ci: &PipelineView<'_>, rewrite: &Rewrite) -> Option<vk::PrimitiveTopology> {
    let mode = requested_mode(ci)?;
    let app_topology = ci
        .input_assembly
        .as_ref()
        .map_or(vk::PrimitiveTopology::default(), |ia| ia.topology);
    Some(match gl_mode_of(mode) {
        Some(_) if holds_vertex_input(ci) && rewrite.indexed_primitive().is_some() => rewrite
            .indexed_primitive()
            .map_or(app_topology, |p| list_topology(&p)),
        Some(gl_mode) if holds_vertex_input(ci) => topology_for(gl_mode),
        _ => app_topology,
    })
}

/// The topology `ci` draws with where its input assembly says it: GL's mode's, else the
/// application's (`None`: no input-assembly state).
pub(crate) fn named_topology(ci: &PipelineView<'_>) -> Option<vk::PrimitiveTopology> {
    match gl_mode(ci) {
        Some(mode) => Some(topology_for(mode)),
        None => ci.input_assembly.as_ref().map(|ia| ia.topology),
    }
}

/// The topology a pipeline drawing GL's primitive mode with a dynamic topology needs: the
/// layer sets it at bind and in place of the application's `vkCmdSetPrimitiveTopology`
/// while the pipeline is bound.
fn dynamic_gl_topology(ci: &PipelineView<'_>, rewrite: &Rewrite) -> Option<vk::PrimitiveTopology> {
    let topology = rewrite.input_assembly.filter(|_| holds_vertex_input(ci))?;
    ci.is_dynamic(vk::DynamicState::PRIMITIVE_TOPOLOGY)
        .then_some(topology)
}

/// A pipeline's primitive modes in its record: what draws read of it while it is bound
/// (`BoundPrimitives`) and what binding it sets (`PipelinePrimitives`), from its rewrite
/// (`None`: the layer kept it as it is) and its libraries; `restart`, its primitive restart
/// (`None`: dynamic state); `polygon_variants`, the pipelines made beside it for a dynamic
/// polygon mode.
pub(crate) fn record_primitives(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    rewrite: Option<&Rewrite>,
    restart: Option<bool>,
    polygon_variants: Option<PolygonModeVariants>,
) -> (BoundPrimitives, PipelinePrimitives) {
    // The pattern is the pre-rasterization part's (it saw the polygon mode and provoking
    // vertex), the topology the vertex-input part's: a pipeline linked from libraries takes
    // each from the library that holds it.
    let gl_primitive = rewrite
        .filter(|_| holds_pre_rasterization(ci))
        .and_then(Rewrite::indexed_primitive)
        .or_else(|| from_libraries(dev, ci, |r| r.bound.primitives.gl_primitive));
    let gl_topology = rewrite
        .and_then(|rewrite| dynamic_gl_topology(ci, rewrite))
        .or_else(|| {
            // The list of the pattern its pre-rasterization library draws.
            from_libraries(dev, ci, |r| r.primitives.gl_topology)
                .map(|topology| gl_primitive.map_or(topology, |p| list_topology(&p)))
        });
    let bound = BoundPrimitives {
        closes_loops: rewrite.is_some_and(closes_loops)
            || libraries_have(dev, ci, |r| r.bound.primitives.closes_loops),
        restart,
        gl_primitive,
        provoking_dynamic: ci.is_dynamic(vk::DynamicState::PROVOKING_VERTEX_MODE_EXT)
            || libraries_have(dev, ci, |r| r.bound.primitives.provoking_dynamic),
    };
    let pipeline = PipelinePrimitives {
        polygon_variants,
        gl_topology,
    };
    (bound, pipeline)
}

/// Whether a rewrite closes GL's line loops at draw time.
fn closes_loops(rewrite: &Rewrite) -> bool {
    rewrite
        .state
        .contains(&Step::CloseLineLoops(CloseLineLoops))
}

impl LayerStep for PrimitiveGsKey {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        // A vertex-input library draws the topology alone; its pre-rasterization library
        // makes the geometry shader.
        if run.position(Stage::Vertex).is_some() {
            let gs = generate_gs(run, self).map_err(|why| GlModeError::Gs {
                primitive: self.primitive,
                why,
            })?;
            run.out.gs = Some(gs);
            run.notes.push((step.semantic(), step.note(None)));
            if run.target.dynamic_polygon_mode && self.rasterized == Rasterized::Fill {
                run.out.polygon_mode_gs = polygon_mode_variants(run, self);
            }
        }
        Ok(())
    }
}

impl LayerStep for CloseLineLoops {
    /// The loop is closed at draw time, from an index buffer of the layer's: a pipeline
    /// without one would draw it open.
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        if run.dev.draws.loops.index_buffer(run.dev).is_none() {
            return Err(GlModeError::NoLoopMemory.into());
        }
        run.chain_state(step.clone());
        Ok(())
    }
}

impl LayerStep for IndexedPrimitive {
    /// The topology is the planner's (`Rewrite::indexed_primitive`); the draws are replaced
    /// at record time from an index buffer of the layer's, made here (a pipeline without it
    /// would draw the wrong primitives).
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        let fail = |why| -> PlanError {
            GlModeError::Indices {
                primitive: self.primitive,
                why,
            }
            .into()
        };
        if [Stage::TessControl, Stage::TessEval, Stage::Geometry]
            .iter()
            .any(|&s| run.position(s).is_some())
        {
            return Err(fail(IndicesError::OtherGeometryStages));
        }
        if run.dev.draws.primitives.buffer(run.dev, self, 0).is_none() {
            return Err(fail(IndicesError::NoMemory));
        }
        if self.closing_edge() && run.dev.draws.loops.index_buffer(run.dev).is_none() {
            return Err(fail(IndicesError::NoMemory));
        }
        run.chain_state(step.clone());
        Ok(())
    }
}

/// The fragment shader's `gl_PrimitiveID` on the index route: a rewrite of its stage.
impl LayerStep for GlPrimitiveId {}

/// Under a dynamic polygon mode, the geometry shaders that draw `key`'s primitives as GL
/// rasterizes them in the other modes: a quad's four sides, never the diagonal its
/// triangles share, or its corners once each. A mode without one (a polygon's edges: its
/// closing edge is not known to a geometry shader) is drawn filled, and said.
fn polygon_mode_variants(run: &Run<'_>, key: &PrimitiveGsKey) -> Vec<(Rasterized, Words)> {
    [Rasterized::Lines, Rasterized::Points]
        .into_iter()
        .filter_map(|rasterized| {
            let variant = PrimitiveGsKey { rasterized, ..*key };
            generate_gs(run, &variant)
                .inspect_err(|why| {
                    log::warning!(
                        "GL's {:?} under a dynamic polygon mode: not drawn as {rasterized:?} \
                         ({why}); that mode draws them filled",
                        key.primitive
                    )
                })
                .ok()
                .map(|words| (rasterized, words))
        })
        .collect()
}

/// Builds the geometry shader of GL's quads, quad strips or polygons from the vertex
/// shader as the steps before left it, or says why it cannot.
fn generate_gs(run: &Run<'_>, key: &PrimitiveGsKey) -> Result<Words, GsError> {
    // GL refuses these modes with a geometry or tessellation shader
    // (GL_INVALID_OPERATION), and a second geometry stage has no place to go.
    if [Stage::TessControl, Stage::TessEval, Stage::Geometry]
        .iter()
        .any(|&s| run.position(s).is_some())
    {
        return Err(GsError::OtherGeometryStages);
    }
    if !run.dev.features.geometry_shader {
        return Err(GsError::NoGeometryShader);
    }
    let Some(i) = run.position(Stage::Vertex) else {
        unreachable!("the step runs where the vertex shader is");
    };
    let (Some(entry), Some(current)) = (run.codes[i].entry.as_deref(), &run.current[i]) else {
        return Err(GsError::UnreadableVertexShader);
    };
    let cache_key = CacheKey::Gs {
        vertex: current.key.clone(),
        entry: entry.into(),
        key: *key,
    };
    let words = current.words.clone();
    let outcome = cached(
        run.dev,
        cache_key,
        current.source_hash,
        "gs",
        || match build_primitive_gs(&words, entry, key) {
            Ok(words) => Outcome::Module(words.into()),
            Err(e) => Outcome::Failed(e.to_string().into()),
        },
    );
    match outcome {
        Outcome::Module(words) => Ok(words),
        Outcome::Failed(why) => Err(GenerationError::Pass(why).into()),
        _ => Err(GenerationError::Nothing.into()),
    }
}

const LIST_RESTART: &CStr = c"VK_EXT_primitive_topology_list_restart";

/// `vkCreateDevice` under `VK_GLSEM_gl_state`: GL's quads, quad strips and polygons are
/// drawn through a generated geometry shader where the device has one (`geometryShader`),
/// whose list of GL's quads keeps primitive restart where lists may restart
/// (`primitiveTopologyListRestart`, adopted as the application's or enabled by the layer).
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    setup.core_wanted.geometry_shader = vk::TRUE;
    setup.conventions.list_restart = setup
        .adopt(
            LIST_RESTART,
            |f: &vk::PhysicalDevicePrimitiveTopologyListRestartFeaturesEXT<'_>| {
                f.primitive_topology_list_restart != 0
            },
            |f| f.primitive_topology_list_restart(true),
        )
        .on;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_is_no_gl_mode_the_layer_draws_fails_with_the_rules_reason() {
        // GL_TRIANGLES (4) has a Vulkan topology: the struct names no mode of the layer's.
        assert_eq!(gl_mode_of(PrimitiveMode(0x0004)), None);
        assert_eq!(
            gl_mode_of(PrimitiveMode::QUAD_STRIP),
            Some(GlMode::Primitive(GlPrimitive::QuadStrip))
        );
        assert_eq!(gl_mode_of(PrimitiveMode::LINE_LOOP), Some(GlMode::LineLoop));
        let why = PlanError::from(GlModeError::NotAMode(0x0004));
        assert_eq!(why.result(), vk::Result::ERROR_UNKNOWN);
        assert_eq!(
            why.to_string(),
            "VkPipelinePrimitiveModeCreateInfoGLSEM names 0x4, not a GL primitive mode the layer \
             draws (GL_LINE_LOOP, GL_QUADS, GL_QUAD_STRIP, GL_POLYGON)"
        );
    }

    #[test]
    fn the_struct_is_read_off_the_input_assembly_and_taken_out_of_a_copy_of_its_chain() {
        use glsem_abi::ChainedStruct;
        use std::ffi::c_void;
        use vk::StructureType as T;
        let robustness = vk::PipelineRobustnessCreateInfoEXT::default();
        let mode_struct = PipelinePrimitiveModeCreateInfo {
            s_type: PipelinePrimitiveModeCreateInfo::S_TYPE,
            p_next: (&robustness as *const vk::PipelineRobustnessCreateInfoEXT<'_>).cast(),
            primitive_mode: PrimitiveMode::QUADS,
        };
        let flags = vk::PipelineCreateFlags2CreateInfoKHR {
            p_next: (&mode_struct as *const PipelinePrimitiveModeCreateInfo).cast(),
            ..Default::default()
        };
        let assembly = vk::PipelineInputAssemblyStateCreateInfo {
            p_next: (&flags as *const vk::PipelineCreateFlags2CreateInfoKHR<'_>).cast(),
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            ..Default::default()
        };
        let info = vk::GraphicsPipelineCreateInfo {
            p_input_assembly_state: &assembly,
            ..Default::default()
        };
        // SAFETY: every pointer of `info` is NULL or one of the structs above.
        let ci = unsafe { PipelineView::new(&info) };
        assert_eq!(requested_mode(&ci), Some(PrimitiveMode::QUADS));
        assert_eq!(gl_mode(&ci), Some(GlMode::Primitive(GlPrimitive::Quads)));
        assert_eq!(
            named_topology(&ci),
            Some(vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY)
        );
        let chain = &ci.input_assembly.as_ref().unwrap().chain;
        assert!(!chain.only_layer_structs());
        let mut copies = Vec::new();
        let unlinked = chain.without_layer_structs(&mut copies).unwrap();
        // The struct in front of it is a copy relinked past it; the one behind is the
        // application's own, which is untouched.
        // SAFETY: the unlinked chain starts with a copy of `flags`, kept in `copies`.
        let first = unsafe { &*unlinked.cast::<vk::BaseInStructure<'_>>() };
        assert_eq!(first.s_type, T::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR);
        assert_ne!(unlinked, assembly.p_next);
        assert_eq!(
            first.p_next.cast::<c_void>(),
            (&robustness as *const vk::PipelineRobustnessCreateInfoEXT<'_>).cast()
        );
        assert_eq!(
            flags.p_next,
            (&mode_struct as *const PipelinePrimitiveModeCreateInfo).cast()
        );
        // Without the struct, the chain goes down as it is, and no GL mode is drawn.
        let plain = vk::PipelineInputAssemblyStateCreateInfo {
            p_next: (&robustness as *const vk::PipelineRobustnessCreateInfoEXT<'_>).cast(),
            ..assembly
        };
        let info = vk::GraphicsPipelineCreateInfo {
            p_input_assembly_state: &plain,
            ..Default::default()
        };
        // SAFETY: as above.
        let ci = unsafe { PipelineView::new(&info) };
        assert_eq!(requested_mode(&ci), None);
        assert_eq!(
            named_topology(&ci),
            Some(vk::PrimitiveTopology::TRIANGLE_LIST)
        );
        let chain = &ci.input_assembly.as_ref().unwrap().chain;
        assert_eq!(chain.without_layer_structs(&mut copies), Some(plain.p_next));
    }
}

//! GL's primitive modes, layer side of pipeline creation: quads, quad strips and polygons
//! get a generated geometry shader after the vertex shader, or, on the index route (no
//! `geometryShader`, or setting `primitive_mode_route = indices`), a list topology whose
//! non-indexed draws the layer replaces (`commands/draws/primitive_indices.rs`); line loops are
//! closed at draw time (`commands/draws/line_loops.rs`). Either index buffer is made here first.

use ash::vk;
use std::ffi::CStr;
use std::sync::Arc;

use crate::layer::data::cache::{CacheKey, Outcome};
use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::rewrite::run::{cached, Run};
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::error::{GenerationError, GsError, IndicesError, PlanError};
use crate::layer::support::log;
use glsem_spirv::primitive_mode::{
    build_primitive_gs, CloseLineLoops, GlPrimitiveId, IndexedPrimitive, PrimitiveGsKey, Rasterized,
};
use glsem_spirv::semantics::{Stage, Step};

impl LayerStep for PrimitiveGsKey {
    fn plan(&self, step: &Step, run: &mut Run<'_>) -> Result<(), PlanError> {
        // A vertex-input library draws the topology alone; its pre-rasterization library
        // makes the geometry shader.
        if run.position(Stage::Vertex).is_some() {
            let gs = generate_gs(run, self).map_err(|why| PlanError::Gs {
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
            return Err(PlanError::NoLineLoopMemory);
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
        let fail = |why| PlanError::Indices {
            primitive: self.primitive,
            why,
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
fn polygon_mode_variants(run: &Run<'_>, key: &PrimitiveGsKey) -> Vec<(Rasterized, Arc<[u32]>)> {
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
fn generate_gs(run: &Run<'_>, key: &PrimitiveGsKey) -> Result<Arc<[u32]>, GsError> {
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

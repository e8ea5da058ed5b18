//! GL's primitive modes' data (quads, quad strips, polygons and line loops): their part of a
//! pipeline's record ([`PipelinePrimitives`]), of what a command buffer acts on while the
//! pipeline is bound ([`BoundPrimitives`]) and of a command buffer's state
//! ([`CommandBufferPrimitives`]), and the polygon-mode variants a pipeline is made with.

use ash::vk;
use glsem_spirv::semantics::{GlMode, IndexedPrimitive, Rasterized};

/// The pipelines the layer made beside one drawing GL's quads or quad strips under a
/// dynamic polygon mode, bound in its place while the mode draws lines or points (null: that
/// mode draws them filled).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PolygonModeVariants([vk::Pipeline; 2]);

impl PolygonModeVariants {
    /// Where the variant of `polygon_mode` is kept (`None`: `Fill`, the pipeline itself).
    fn index(polygon_mode: Rasterized) -> Option<usize> {
        match polygon_mode {
            Rasterized::Lines => Some(0),
            Rasterized::Points => Some(1),
            Rasterized::Fill => None,
        }
    }

    /// The pipeline that draws GL's mode as `polygon_mode` rasterizes it, in place of `app`.
    pub fn for_mode(&self, app: vk::Pipeline, polygon_mode: Rasterized) -> vk::Pipeline {
        Self::index(polygon_mode)
            .map(|i| self.0[i])
            .filter(|&variant| variant != vk::Pipeline::null())
            .unwrap_or(app)
    }

    /// Keeps `pipeline` as the variant of `polygon_mode`; false for `Fill`, which has none.
    pub fn set(&mut self, polygon_mode: Rasterized, pipeline: vk::Pipeline) -> bool {
        Self::index(polygon_mode)
            .map(|i| self.0[i] = pipeline)
            .is_some()
    }

    /// Every variant made (for their destruction).
    pub fn made(&self) -> impl Iterator<Item = vk::Pipeline> + '_ {
        self.0
            .iter()
            .copied()
            .filter(|&p| p != vk::Pipeline::null())
    }
}

/// A pipeline with polygon-mode variants bound: the application's handle, its variants, and
/// the one the driver has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundVariants {
    pub app: vk::Pipeline,
    pub variants: PolygonModeVariants,
    pub down: vk::Pipeline,
}

/// What GL's primitive modes do when a pipeline is bound: their part of the pipeline's
/// record (`PipelineRecord::primitives`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PipelinePrimitives {
    /// It draws GL's quads under a dynamic polygon mode: the pipelines drawing them as lines
    /// and points (`Rewrite::polygon_mode_gs`), destroyed with it.
    pub polygon_variants: Option<PolygonModeVariants>,
    /// It draws GL's primitive mode with a dynamic topology: the topology the layer sets.
    pub gl_topology: Option<vk::PrimitiveTopology>,
}

/// What the draws of the bound pipeline (or shader objects) do of GL's primitive modes
/// (`BoundRecord::primitives`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundPrimitives {
    /// It draws GL's line loops (a line strip the layer closes).
    pub closes_loops: bool,
    /// Its primitive restart (`None`: dynamic state, or in a library it was linked from).
    pub restart: Option<bool>,
    /// It draws GL's quads, quad strips or polygons on the index route: the pattern whose
    /// indices replace its non-indexed draws (`commands/draws/gl_primitives.rs`).
    pub gl_primitive: Option<IndexedPrimitive>,
    /// Its provoking vertex mode is dynamic state: the pattern of `gl_primitive` follows
    /// the mode set at the draw.
    pub provoking_dynamic: bool,
}

impl BoundPrimitives {
    /// No GL primitive mode drawn.
    pub const NONE: BoundPrimitives = BoundPrimitives {
        closes_loops: false,
        restart: None,
        gl_primitive: None,
        provoking_dynamic: false,
    };

    /// Whether its draws are changed for GL's mode: loops closed, or the index route.
    pub fn draws_gl_mode(&self) -> bool {
        self.closes_loops || self.gl_primitive.is_some()
    }
}

/// GL's primitive modes in one command buffer (`CommandBufferState::primitives`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandBufferPrimitives {
    /// GL's mode the shader objects drawn next draw (`None`: the Vulkan topology).
    pub gl_mode: Option<GlMode>,
    /// Whether the application bound a geometry shader object, and whether the layer did.
    pub app_geometry_object: bool,
    pub layer_geometry_object: bool,
    /// The polygon mode (`vkCmdSetPolygonModeEXT`).
    pub polygon_mode: Rasterized,
    /// The bound pipeline has polygon-mode variants: which the driver has.
    pub variants: Option<BoundVariants>,
    /// The topology GL's primitive mode needs while the bound pipeline (with a dynamic
    /// topology) or shader objects draw it: it replaces the application's.
    pub gl_topology: Option<vk::PrimitiveTopology>,
}

impl CommandBufferPrimitives {
    /// GL's initial state, no pipeline bound.
    pub const INITIAL: CommandBufferPrimitives = CommandBufferPrimitives {
        gl_mode: None,
        app_geometry_object: false,
        layer_geometry_object: false,
        polygon_mode: Rasterized::Fill,
        variants: None,
        gl_topology: None,
    };
}

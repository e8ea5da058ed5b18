//! The key vocabulary: what the Vulkan side read off the create info and the device
//! ([`PipelineKey`], [`DeviceKey`]) and what it knows of each stage ([`Stages`]), the words
//! [`choose`](fn@super::choose) decides in.

use super::registry::SemanticSet;
use crate::fragcolor::FragColorKey;
use crate::line_endpoints::EndpointGrid;
use crate::primitive_mode::{Culling, GlPrimitive, PrimitiveRoute, Rasterized};
use crate::rule::Stage;
use crate::scan::Summary;
use crate::vertex_formats::RefetchVertexInputs;

/// GL's primitive modes that Vulkan has no topology for
/// (`VkPipelinePrimitiveModeCreateInfoGLSEM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlMode {
    /// `GL_LINE_LOOP`: a line strip the layer closes.
    LineLoop,
    /// `GL_QUADS`, `GL_QUAD_STRIP`, `GL_POLYGON`: through a generated geometry shader.
    Primitive(GlPrimitive),
}

impl GlMode {
    /// The class of primitive the pipeline rasterizes: a loop's lines, the triangles of
    /// quads, quad strips and polygons.
    pub fn rasterizes(self) -> Topology {
        match self {
            GlMode::LineLoop => Topology::Lines,
            GlMode::Primitive(_) => Topology::Triangles,
        }
    }
}

/// How the application maps GL's window onto the framebuffer (setting `window_origin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowOrigin {
    /// A negative viewport height (`VK_KHR_maintenance1`): GL's bottom row is the
    /// framebuffer's last, winding and the default sprite origin agree with GL;
    /// `gl_FragCoord.y`, `dFdy` and `interpolateAtOffset`'s y turn over.
    Flipped,
    /// A positive viewport: GL's row order; the winding and `gl_PointCoord.t` turn over.
    LowerLeft,
    /// The application handles GL's window coordinates itself.
    Vulkan,
}

/// What the planner knows of one stage of a pipeline.
#[derive(Debug, Clone, Copy)]
pub struct StageInfo<'a> {
    /// The layer has the stage's code (`None`: a module it never saw or could not read).
    pub summary: Option<&'a Summary>,
    /// The layer can substitute the stage's code.
    pub patchable: bool,
}

/// The stages of one pipeline (or library), by [`Stage`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Stages<'a>([Option<StageInfo<'a>>; 5]);

impl<'a> Stages<'a> {
    pub fn set(&mut self, stage: Stage, info: StageInfo<'a>) {
        self.0[stage as usize] = Some(info);
    }

    pub fn get(&self, stage: Stage) -> Option<&StageInfo<'a>> {
        self.0[stage as usize].as_ref()
    }

    pub fn has(&self, stage: Stage) -> bool {
        self.get(stage).is_some()
    }

    /// The stage whose outputs are rasterized (or captured).
    pub fn last_pre_rasterization(&self) -> Option<Stage> {
        [Stage::Geometry, Stage::TessEval, Stage::Vertex]
            .into_iter()
            .find(|&s| self.has(s))
    }

    /// A readable summary of `stage`, when the layer may rewrite it.
    pub(super) fn rewritable(&self, stage: Stage) -> Option<&'a Summary> {
        let info = self.get(stage)?;
        info.summary
            .filter(|summary| info.patchable && summary.readable)
    }
}

/// The colour attachments the fragment shader writes, as far as the pipeline tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attachments {
    Known(FragColorKey),
    /// A library part without render pass or fragment output interface, or a shader
    /// object: gl_FragColor goes to every Location below [`DeviceKey::max_color_attachments`]
    /// as a float `vec4` (zink's choice); writes to Locations without an attachment are
    /// discarded.
    Unknown,
}

/// The primitive topology class of the pipeline's input assembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topology {
    Points,
    Lines,
    Triangles,
    Patches,
    /// No input assembly state (a library part without it).
    Unknown,
    /// Set at draw time, any class (shader objects).
    Dynamic,
}

/// The line state of a pipeline that GL's line rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineKey {
    /// The application chose a line rasterization mode itself (or made it dynamic), or
    /// there is no rasterization state to chain into.
    pub app_mode: bool,
    /// The line mode is dynamic state whose GL rule the layer follows at record time.
    pub followed_mode: bool,
    /// GL's aliased-line rule does not apply, or Vulkan forbids Bresenham lines: the
    /// rasterization is (or may be) multisampled, or uses alpha to coverage or sample
    /// shading (VUID-VkGraphicsPipelineCreateInfo-lineRasterizationMode-02766), or the
    /// multisample state is elsewhere (a library part without it).
    pub multisample: bool,
    /// The static line width is not 1: GL's wide lines, which the fragment route's test (for
    /// width 1) must leave alone (a dynamic width is followed in the GL-state block's flags).
    pub wide: bool,
    /// The line stipple is set by the application (`VK_DYNAMIC_STATE_LINE_STIPPLE_EXT` or
    /// its enable is dynamic): the layer's `vkCmdSetLineStippleGLSEM` stays out of it.
    pub app_stipple: bool,
}

impl LineKey {
    /// Nothing the application chose, single-sampled, width 1 (a whole pipeline's start).
    pub const NONE: LineKey = LineKey {
        app_mode: false,
        followed_mode: false,
        multisample: false,
        wide: false,
        app_stipple: false,
    };

    /// Shader objects: every line state is dynamic and the application's (the layer does
    /// not enable the line extension under them).
    pub const DYNAMIC: LineKey = LineKey {
        app_mode: true,
        followed_mode: false,
        multisample: true,
        wide: true,
        app_stipple: true,
    };
}

/// What the Vulkan side read off the create info, the layout and the device.
#[derive(Debug, Clone)]
pub struct PipelineKey {
    /// What the device gives every pipeline made on it.
    pub device: DeviceKey,
    /// A graphics pipeline library, a pipeline linked from libraries, or shader objects:
    /// the stages here may meet stages the layer does not see with them.
    pub library: bool,
    /// Shader objects (`VK_EXT_shader_object`): no pipeline state; a missing TCS is
    /// supplied when the shaders are bound, not here.
    pub shader_object: bool,
    pub attachments: Attachments,
    /// The last pre-rasterization stage's outputs go to a fragment shader the layer does
    /// not see with it (a pre-rasterization library; a shader object whose `nextStage` is
    /// the fragment stage): with the XFB split on, every struct output is split, captured
    /// or not, by the rule the fragment side follows alone ([`Step::SplitStructInputs`](super::Step::SplitStructInputs)).
    pub fragment_elsewhere: bool,
    /// The last pre-rasterization stage may feed a fragment shader the layer does not see
    /// with it (a pre-rasterization library; a shader object whose `nextStage` includes the
    /// fragment stage, or is empty): it passes GL's gl_Layer at the device's last Location.
    pub fragment_may_be_apart: bool,
    pub topology: Topology,
    /// The topology is dynamic state that may be set to a point list.
    pub dynamic_points: bool,
    /// Polygons may be rasterized as points (`VK_POLYGON_MODE_POINT`, or dynamic).
    pub polygon_points: bool,
    /// Where the layout holds the GL-state block for the vertex-processing stages, when it
    /// can (`None` with `gl_state`: the layout has no room; GL's defaults are used).
    pub gl_state_block: Option<u32>,
    /// The application chose a provoking vertex mode / depth clip control itself.
    pub app_provoking_vertex: bool,
    pub app_depth_clip_control: bool,
    /// Where the layout holds the GL-state block for the fragment stage.
    pub fragment_block: Option<u32>,
    /// The pipeline states a front face that is not dynamic state.
    pub static_front_face: bool,
    /// The pipeline has no tessellation state to chain into, or the application chose a
    /// domain origin (chained, or dynamic state).
    pub app_domain_origin: bool,
    /// `rasterizerDiscardEnable` is set, not dynamically: nothing is clipped, so GL's plane
    /// enables change nothing, and transform feedback captures every clip distance as the
    /// shader wrote it, as GL does.
    pub rasterizer_discard: bool,
    /// The Locations the vertex-input state feeds (`None`: not known here — dynamic vertex
    /// input, a library without the vertex-input part, shader objects).
    pub fed_locations: Option<Vec<u32>>,
    /// The vertex binding the layer may feed unfed inputs from with GL's current values
    /// (`VK_GLSEM_gl_state`; `None`: the application uses it, or no vertex-input state here).
    pub attribute_binding: Option<u32>,
    /// The attributes of the vertex-input state the device cannot read (or, with the layer's
    /// `debug_force_vertex_formats`, every one the layer can read otherwise), their Locations
    /// not yet assigned; `None`: none, or no vertex-input state here.
    pub vertex_formats: Option<RefetchVertexInputs>,
    /// `rasterizationSamples` is 1, not dynamically.
    pub single_sample: bool,
    /// The sample count is dynamic state (or shader objects): the layer keeps it in the
    /// GL-state block's flags.
    pub dynamic_samples: bool,
    /// Polygons may be rasterized as lines (`VK_POLYGON_MODE_LINE`, or dynamic).
    pub polygon_lines: bool,
    /// The line state GL's line rule reads.
    pub lines: LineKey,
    /// GL's primitive mode the application asks for.
    pub gl_mode: Option<GlMode>,
    /// Primitive restart is on in the pipeline's static input-assembly state: GL's quad
    /// strips, and quads on a device whose lists cannot restart, take the index route (the
    /// layer's indices restart where GL's do; after a restart the geometry shader's strip
    /// cannot tell quads from the primitives between them).
    pub primitive_restart: bool,
    /// What the rasterizer draws of polygons (`polygonMode`; `Fill` where it is dynamic).
    pub rasterized: Rasterized,
    /// The provoking vertex mode the application chained is the last vertex.
    pub app_provoking_last: bool,
    /// The provoking vertex mode is dynamic state: GL's polygons take the index route,
    /// whose pattern the layer picks at each draw (a geometry shader reads a fan's
    /// vertices in the order the mode gives them, unknown when it is made).
    pub provoking_dynamic: bool,
    /// Static face culling, as the driver will cull (after the layer's front-face
    /// inversion, with the viewport's orientation).
    pub culling: Option<Culling>,
}

/// What the device gives every [`PipelineKey`] made on it: the settings it was created with,
/// its features, limits and conventions.
#[derive(Debug, Clone, Copy)]
pub struct DeviceKey {
    /// The semantics the settings leave on.
    pub enabled: SemanticSet,
    /// The device's `maxColorAttachments` (capped by `maxFragmentOutputAttachments`): the
    /// Locations gl_FragColor goes to when the attachments are unknown.
    pub max_color_attachments: u32,
    /// Features the device was created with.
    pub transform_feedback: bool,
    pub tess_geom_point_size: bool,
    pub maintenance5: bool,
    /// The device enabled `VK_GLSEM_gl_state`.
    pub gl_state: bool,
    /// The device can take GL's depth range in the pipeline (`VK_EXT_depth_clip_control`);
    /// without it, the last stage remaps depth.
    pub depth_clip_control: bool,
    /// The device can take GL's provoking vertex in the pipeline (`VK_EXT_provoking_vertex`).
    pub provoking_vertex_last: bool,
    /// The device's list topologies may restart (`primitiveTopologyListRestart`): the
    /// geometry shader of GL's quads keeps primitive restart.
    pub list_restart: bool,
    /// The device enabled `shaderDrawParameters` (the `BaseInstance` built-in).
    pub draw_parameters: bool,
    /// The device can take GL's line rules in the pipeline (`VK_EXT_line_rasterization`
    /// with `bresenhamLines`), and stippled (`stippledBresenhamLines`).
    pub bresenham_lines: bool,
    pub stippled_bresenham_lines: bool,
    /// How the rasterizer snaps line endpoints, where the layer moves them off the diamonds'
    /// edges (the driver decides that tie otherwise than GL, or a setting asks); `None`: the
    /// driver's lines are GL's there.
    pub line_endpoints: Option<EndpointGrid>,
    /// The device takes GL's lines by the fragment route (`line_fragment`): the driver
    /// draws rectangular lines, the fragment shader discards what GL would not draw.
    pub fragment_lines: bool,
    /// The rasterizer's subpixel bits (`subPixelPrecisionBits`): the fragment route's band
    /// passes move lines by one subpixel.
    pub subpixel_bits: u32,
    /// The fragment route counts the stipple on over a strip (`stipple_counts`): the device
    /// has buffer device addresses and vertex-stage stores.
    pub stipple_counts: bool,
    /// The device's `window_origin` setting.
    pub window_origin: WindowOrigin,
    /// Where a last pre-rasterization stage and a fragment shader made apart (libraries,
    /// unlinked shader objects) pass GL's gl_Layer: the last Location every stage has.
    pub apart_layer_location: u32,
    /// How GL's quads, quad strips and polygons are drawn in pipelines (shader objects
    /// always take the geometry shader).
    pub primitive_route: PrimitiveRoute,
}

impl PipelineKey {
    /// The one constructor: the key of a pipeline on `device` before its own state is read
    /// (whole, no state, nothing chained by the application), for the callers to fill in
    /// with struct update syntax.
    pub fn new(device: &DeviceKey) -> PipelineKey {
        PipelineKey {
            device: *device,
            library: false,
            shader_object: false,
            attachments: Attachments::Known(FragColorKey::default()),
            fragment_elsewhere: false,
            fragment_may_be_apart: false,
            topology: Topology::Unknown,
            dynamic_points: false,
            polygon_points: false,
            gl_state_block: None,
            app_provoking_vertex: false,
            app_depth_clip_control: false,
            rasterizer_discard: false,
            fed_locations: None,
            attribute_binding: None,
            vertex_formats: None,
            single_sample: false,
            dynamic_samples: false,
            polygon_lines: false,
            lines: LineKey::NONE,
            fragment_block: None,
            static_front_face: false,
            app_domain_origin: false,
            gl_mode: None,
            primitive_restart: false,
            rasterized: Rasterized::Fill,
            app_provoking_last: false,
            provoking_dynamic: false,
            culling: None,
        }
    }
}

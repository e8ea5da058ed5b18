//! The GL semantics glsem implements, in one registry, and the one pure function that
//! chooses what a pipeline needs: [`choose`] takes the pipeline's stages (their scan
//! summaries) and a [`PipelineKey`] (what the Vulkan side read off the create info and the
//! device) and returns the ordered [`Step`]s. No Vulkan types here: the layer builds the
//! key, runs the steps and patches the create info; tests and fuzzers call [`choose`]
//! directly.
//!
//! Adding a semantic: a pass in `crates/glsem-spirv/src/`, an entry in [`SEMANTICS`] (its setting, if it
//! has one, then also appears in the manifest), a [`Step`] with its arms (`Step::run` calls
//! the pass for the layer and the fuzzer alike) and the rule in [`choose`] that emits it
//! (docs/architecture.md, "Adding a semantic").

use crate::clip_depth::remap_clip_depth;
use crate::clip_enables::gate_clip_distances;
use crate::error::PassError;
use crate::fragcolor::{broadcast_frag_color, AttachmentKind, FragColorKey};
use crate::instance_id::instance_id_without_base;
use crate::layer_output::{gate_layer, read_layer_from};
use crate::point_size::{write_point_size, PointSizeSource};
use crate::primitive_mode::{Culling, GlPrimitive, PrimitiveGsKey, Rasterized};
use crate::sample_mask::{drop_sample_mask, gate_sample_mask};
use crate::scan::{Primitive, Summary};
use crate::unfed_inputs::default_unfed_inputs;
use crate::window_y::{fix_window_y, WindowYKey};
use crate::xfb_split::{
    split_matching_inputs, split_struct_inputs, split_struct_outputs, split_xfb_outputs,
    SplitInterface,
};

/// One GL semantic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Semantic {
    FragColorBroadcast,
    XfbSplit,
    PassthroughTcs,
    PointSize,
    ClipDistanceEnables,
    ClipSpaceDepth,
    ProvokingVertex,
    UnfedVertexInputs,
    InstanceId,
    LayerOutput,
    SampleMask,
    LineRasterization,
    WindowOrigin,
    PrimitiveMode,
}

/// A setting that turns a semantic off: `VK_GLSEM_<KEY>` / `glsem_gl_semantics.<key>`.
#[derive(Debug)]
pub struct Setting {
    pub key: &'static str,
    /// The value that turns it on (the default) and the one that turns it off.
    pub on: &'static str,
    pub off: &'static str,
}

#[derive(Debug)]
pub struct SemanticInfo {
    pub semantic: Semantic,
    /// Its name in logs and dump files.
    pub name: &'static str,
    pub setting: Option<Setting>,
    /// Whether it applies only on devices that enabled `VK_GLSEM_gl_state`.
    pub needs_gl_state: bool,
}

/// Every semantic, in the order their steps run on a stage.
pub const SEMANTICS: [SemanticInfo; 14] = [
    SemanticInfo {
        semantic: Semantic::PassthroughTcs,
        name: "tcs",
        setting: Some(Setting {
            key: "passthrough_tcs",
            on: "on",
            off: "off",
        }),
        needs_gl_state: false,
    },
    SemanticInfo {
        semantic: Semantic::XfbSplit,
        name: "xfb_split",
        setting: Some(Setting {
            key: "xfb_split",
            on: "on",
            off: "off",
        }),
        needs_gl_state: false,
    },
    SemanticInfo {
        semantic: Semantic::FragColorBroadcast,
        name: "fragcolor",
        setting: Some(Setting {
            key: "fragcolor_broadcast",
            on: "auto",
            off: "off",
        }),
        needs_gl_state: false,
    },
    SemanticInfo {
        semantic: Semantic::PointSize,
        name: "point_size",
        setting: Some(Setting {
            key: "point_size",
            on: "auto",
            off: "off",
        }),
        needs_gl_state: false,
    },
    SemanticInfo {
        semantic: Semantic::ClipDistanceEnables,
        name: "clip_enables",
        setting: None,
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::ClipSpaceDepth,
        name: "clip_depth",
        setting: Some(Setting {
            key: "clip_space_depth",
            on: "gl",
            off: "vulkan",
        }),
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::ProvokingVertex,
        name: "provoking_vertex",
        setting: None,
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::UnfedVertexInputs,
        name: "unfed_inputs",
        setting: None,
        needs_gl_state: false,
    },
    SemanticInfo {
        semantic: Semantic::InstanceId,
        name: "instance_id",
        setting: Some(Setting {
            key: "instance_id",
            on: "gl",
            off: "vulkan",
        }),
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::LayerOutput,
        name: "layer",
        setting: None,
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::SampleMask,
        name: "sample_mask",
        setting: None,
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::LineRasterization,
        name: "line_rasterization",
        setting: Some(Setting {
            key: "line_rasterization",
            on: "gl",
            off: "vulkan",
        }),
        needs_gl_state: true,
    },
    // Three-valued: the `window_origin` setting (`flipped`, `lower_left`, `vulkan`) is one of
    // the layer's own keys, read into `PipelineKey::window_origin`.
    SemanticInfo {
        semantic: Semantic::WindowOrigin,
        name: "window_origin",
        setting: None,
        needs_gl_state: true,
    },
    // Asked for by the application per pipeline (`VkPipelinePrimitiveModeCreateInfoGLSEM`):
    // no setting turns it off, since without it the pipeline draws something else.
    SemanticInfo {
        semantic: Semantic::PrimitiveMode,
        name: "primitive_mode",
        setting: None,
        needs_gl_state: true,
    },
];

/// GL's primitive modes that Vulkan has no topology for
/// (`VkPipelinePrimitiveModeCreateInfoGLSEM`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GlMode {
    /// `GL_LINE_LOOP`: a line strip the layer closes.
    LineLoop,
    /// `GL_QUADS`, `GL_QUAD_STRIP`, `GL_POLYGON`: through a generated geometry shader.
    Primitive(GlPrimitive),
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

impl Semantic {
    pub fn info(self) -> &'static SemanticInfo {
        SEMANTICS
            .iter()
            .find(|s| s.semantic == self)
            .expect("SEMANTICS lists every semantic")
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// A set of semantics (the ones the settings leave on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SemanticSet(u32);

impl SemanticSet {
    pub const ALL: SemanticSet = SemanticSet(u32::MAX);

    pub fn contains(self, s: Semantic) -> bool {
        self.0 & s.bit() != 0
    }

    pub fn set(&mut self, s: Semantic, on: bool) {
        if on {
            self.0 |= s.bit();
        } else {
            self.0 &= !s.bit();
        }
    }
}

impl Default for SemanticSet {
    fn default() -> Self {
        SemanticSet::ALL
    }
}

/// The graphics stages, in pipeline order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
}

impl Stage {
    /// The stage's name in log messages.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex shader",
            Stage::TessControl => "tessellation control shader",
            Stage::TessEval => "tessellation evaluation shader",
            Stage::Geometry => "geometry shader",
            Stage::Fragment => "fragment shader",
        }
    }
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
    fn rewritable(&self, stage: Stage) -> Option<&'a Summary> {
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
    /// object: gl_FragColor goes to every Location below [`PipelineKey::max_color_attachments`]
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

/// What the Vulkan side read off the create info, the layout and the device.
#[derive(Debug, Clone)]
pub struct PipelineKey {
    /// The semantics the settings leave on.
    pub enabled: SemanticSet,
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
    /// or not, by the rule the fragment side follows alone ([`Step::SplitStructInputs`]).
    pub fragment_elsewhere: bool,
    /// The last pre-rasterization stage may feed a fragment shader the layer does not see
    /// with it (a pre-rasterization library; a shader object whose `nextStage` includes the
    /// fragment stage, or is empty): it passes GL's gl_Layer at the device's last Location.
    pub fragment_may_be_apart: bool,
    /// The device's `maxColorAttachments` (capped by `maxFragmentOutputAttachments`): the
    /// Locations gl_FragColor goes to when the attachments are unknown.
    pub max_color_attachments: u32,
    pub topology: Topology,
    /// The topology is dynamic state that may be set to a point list.
    pub dynamic_points: bool,
    /// Polygons may be rasterized as points (`VK_POLYGON_MODE_POINT`, or dynamic).
    pub polygon_points: bool,
    /// Features the device was created with.
    pub transform_feedback: bool,
    pub tess_geom_point_size: bool,
    pub maintenance5: bool,
    /// The device enabled `VK_GLSEM_gl_state`.
    pub gl_state: bool,
    /// Where the layout holds the GL-state block for the vertex-processing stages, when it
    /// can (`None` with `gl_state`: the layout has no room; GL's defaults are used).
    pub gl_state_block: Option<u32>,
    /// The device can take GL's depth range in the pipeline (`VK_EXT_depth_clip_control`);
    /// without it, the last stage remaps depth.
    pub depth_clip_control: bool,
    /// The device can take GL's provoking vertex in the pipeline (`VK_EXT_provoking_vertex`).
    pub provoking_vertex_last: bool,
    /// The application chose a provoking vertex mode / depth clip control itself.
    pub app_provoking_vertex: bool,
    pub app_depth_clip_control: bool,
    /// The device's `window_origin` setting.
    pub window_origin: WindowOrigin,
    /// Where a last pre-rasterization stage and a fragment shader made apart (libraries,
    /// unlinked shader objects) pass GL's gl_Layer: the last Location every stage has.
    pub apart_layer_location: u32,
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
    /// The device enabled `shaderDrawParameters` (the `BaseInstance` built-in).
    pub draw_parameters: bool,
    /// The vertex binding the layer may feed unfed inputs from with GL's current values
    /// (`VK_GLSEM_gl_state`; `None`: the application uses it, or no vertex-input state here).
    pub current_attribute_binding: Option<u32>,
    /// `rasterizationSamples` is 1, not dynamically.
    pub single_sample: bool,
    /// The sample count is dynamic state (or shader objects): the layer keeps it in the
    /// GL-state block's flags.
    pub dynamic_samples: bool,
    /// Polygons may be rasterized as lines (`VK_POLYGON_MODE_LINE`, or dynamic).
    pub polygon_lines: bool,
    /// The device can take GL's line rules in the pipeline (`VK_EXT_line_rasterization`
    /// with `bresenhamLines`), and stippled (`stippledBresenhamLines`).
    pub bresenham_lines: bool,
    pub stippled_bresenham_lines: bool,
    /// The application chose a line rasterization mode itself (or made it dynamic), or
    /// there is no rasterization state to chain into.
    pub app_line_mode: bool,
    /// GL's aliased-line rule does not apply, or Vulkan forbids Bresenham lines: the
    /// rasterization is (or may be) multisampled, or uses alpha to coverage or sample
    /// shading (VUID-VkGraphicsPipelineCreateInfo-lineRasterizationMode-02766), or the
    /// multisample state is elsewhere (a library part without it).
    pub multisample_lines: bool,
    /// The line stipple is set by the application (`VK_DYNAMIC_STATE_LINE_STIPPLE_EXT` or
    /// its enable is dynamic): the layer's `vkCmdSetLineStippleGLSEM` stays out of it.
    pub app_line_stipple: bool,
    /// GL's primitive mode the application asks for.
    pub gl_mode: Option<GlMode>,
    /// What the rasterizer draws of polygons (`polygonMode`; `Fill` where it is dynamic).
    pub rasterized: Rasterized,
    /// The provoking vertex mode the application chained is the last vertex.
    pub app_provoking_last: bool,
    /// Static face culling, as the driver will cull (after the layer's front-face
    /// inversion, with the viewport's orientation).
    pub culling: Option<Culling>,
}

/// What the device gives every [`PipelineKey`] made on it: the settings it was created with,
/// its features, limits and conventions.
#[derive(Debug, Clone, Copy)]
pub struct DeviceKey {
    pub enabled: SemanticSet,
    pub max_color_attachments: u32,
    pub transform_feedback: bool,
    pub tess_geom_point_size: bool,
    pub maintenance5: bool,
    pub gl_state: bool,
    pub depth_clip_control: bool,
    pub provoking_vertex_last: bool,
    pub draw_parameters: bool,
    pub bresenham_lines: bool,
    pub stippled_bresenham_lines: bool,
    pub window_origin: WindowOrigin,
    pub apart_layer_location: u32,
}

impl PipelineKey {
    /// The one constructor: the key of a pipeline on `device` before its own state is read
    /// (whole, no state, nothing chained by the application), for the callers to fill in
    /// with struct update syntax.
    pub fn new(device: &DeviceKey) -> PipelineKey {
        PipelineKey {
            enabled: device.enabled,
            library: false,
            shader_object: false,
            attachments: Attachments::Known(FragColorKey::default()),
            fragment_elsewhere: false,
            fragment_may_be_apart: false,
            max_color_attachments: device.max_color_attachments,
            topology: Topology::Unknown,
            dynamic_points: false,
            polygon_points: false,
            transform_feedback: device.transform_feedback,
            tess_geom_point_size: device.tess_geom_point_size,
            maintenance5: device.maintenance5,
            gl_state: device.gl_state,
            gl_state_block: None,
            depth_clip_control: device.depth_clip_control,
            provoking_vertex_last: device.provoking_vertex_last,
            app_provoking_vertex: false,
            app_depth_clip_control: false,
            rasterizer_discard: false,
            fed_locations: None,
            draw_parameters: device.draw_parameters,
            current_attribute_binding: None,
            single_sample: false,
            dynamic_samples: false,
            polygon_lines: false,
            bresenham_lines: device.bresenham_lines,
            stippled_bresenham_lines: device.stippled_bresenham_lines,
            app_line_mode: false,
            multisample_lines: false,
            app_line_stipple: false,
            window_origin: device.window_origin,
            apart_layer_location: device.apart_layer_location,
            fragment_block: None,
            static_front_face: false,
            app_domain_origin: false,
            gl_mode: None,
            rasterized: Rasterized::Fill,
            app_provoking_last: false,
            culling: None,
        }
    }
}

/// One rewrite, in the order [`choose`] returns them. A step is also the rewrite cache's key
/// (with the module it runs on), its name in logs and dump files ([`Step::name`]) and its
/// dispatch ([`Step::run`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    /// A TES without TCS: generate the passthrough TCS.
    GenerateTcs,
    /// Split the struct XFB outputs of the last pre-rasterization stage.
    SplitXfbOutputs(Stage),
    /// Split every struct output of the last pre-rasterization stage, captured or not (its
    /// fragment shader is elsewhere and splits every struct input).
    SplitStructOutputs(Stage),
    BroadcastFragColor(FragColorKey),
    /// Split the fragment inputs that match the split outputs (undone with the split
    /// when it cannot be done).
    SplitFragInputs,
    /// A fragment shader whose previous stage is elsewhere (a library, a shader object):
    /// split every struct and matrix input that is not a block or built-in. A split is a
    /// pure function of the type and Location, so it matches the split the previous stage
    /// made on its own; inputs the previous stage did not split still match Location by
    /// Location and component by component.
    SplitStructInputs,
    WritePointSize(Stage, PointSizeSource),
    GateClipDistances(Stage, u32),
    RemapClipDepth(Stage),
    /// Vertex inputs at Locations outside these (the fed ones) read GL's (0, 0, 0, 1).
    DefaultUnfedInputs(Vec<u32>),
    /// Pipeline state: vertex inputs at Locations outside `fed` read GL's current values
    /// (`vkCmdSetVertexAttribGLSEM`) from a stride-0 attribute on the layer's `binding`.
    FeedCurrentAttributes {
        fed: Vec<u32>,
        binding: u32,
    },
    /// `InstanceIndex` loads become `InstanceIndex − BaseInstance` (GL's `gl_InstanceID`).
    InstanceIdWithoutBase,
    /// The stage's `gl_Layer` counts only when the GL-state block (at the offset) says the
    /// target is layered; with a Location, the stage also writes the layer as written there
    /// for the fragment shader ([`Step::ReadLayerFrom`]).
    GateLayer(Stage, u32, Option<u32>),
    /// The stage writes its layer as written (0 where it writes none) at the Location,
    /// ungated (it cannot read the GL-state block), for a fragment shader made apart.
    CopyLayer(Stage, u32),
    /// The fragment shader's `gl_Layer` reads the previous stage's copy at this Location.
    ReadLayerFrom(u32),
    /// The fragment shader's sample mask has no effect (single-sample rasterization).
    DropSampleMask,
    /// The fragment shader's sample mask applies only while the GL-state block (at the
    /// offset) says the dynamic sample count is above one.
    GateSampleMask(u32),
    /// Pipeline state: `VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT`.
    ProvokingVertexLast,
    /// Pipeline state: `negativeOneToOne` depth clip control.
    NegativeOneToOneDepth,
    /// Pipeline state: `VK_LINE_RASTERIZATION_MODE_BRESENHAM` (GL's diamond-exit rule);
    /// `stippled`: with `stippledLineEnable` and the stipple as dynamic state, set by the
    /// layer from `vkCmdSetLineStippleGLSEM`.
    BresenhamLines {
        stippled: bool,
    },
    /// GL's window y in the fragment shader (`gl_FragCoord`, `dFdy`, `interpolateAtOffset`,
    /// `gl_PointCoord`).
    FragmentWindowY(WindowYKey),
    /// Pipeline state: `VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT`, GL's domain origin.
    TessellationDomainLowerLeft,
    /// Pipeline state: the front face inverted (a positive viewport turns the winding over).
    InvertFrontFace,
    /// GL's quads, quad strips or polygons: a generated geometry shader after the vertex
    /// shader (as it is after every other step) and the topology it reads.
    DrawGlPrimitive(PrimitiveGsKey),
    /// Pipeline state: GL's line loops, a line strip the layer closes on non-indexed draws.
    CloseLineLoops,
}

/// What [`Step::run`] made of a module.
#[derive(Debug)]
pub enum StepOutput {
    /// Nothing to change.
    Unchanged,
    Module(Vec<u32>),
    /// Split outputs, and the interface the next stage's inputs must be split to.
    Split(Vec<u32>, SplitInterface),
}

impl From<Option<Vec<u32>>> for StepOutput {
    fn from(words: Option<Vec<u32>>) -> Self {
        words.map_or(StepOutput::Unchanged, StepOutput::Module)
    }
}

impl Step {
    /// The step's name in logs and dump files (`<hash>.<name>.spv`).
    pub fn name(&self) -> &'static str {
        match self {
            Step::SplitXfbOutputs(_) | Step::SplitStructOutputs(_) => "xfb_split",
            Step::SplitFragInputs | Step::SplitStructInputs => "xfb_split_inputs",
            Step::FragmentWindowY(_) => "window_y",
            _ => self.semantic().name(),
        }
    }

    /// The stage whose module the step rewrites; `None` for the steps that generate a stage
    /// or set pipeline state.
    pub fn stage(&self) -> Option<Stage> {
        match *self {
            Step::SplitXfbOutputs(stage)
            | Step::SplitStructOutputs(stage)
            | Step::WritePointSize(stage, _)
            | Step::GateClipDistances(stage, _)
            | Step::RemapClipDepth(stage)
            | Step::GateLayer(stage, ..)
            | Step::CopyLayer(stage, _) => Some(stage),
            Step::FragmentWindowY(_) => Some(Stage::Fragment),
            Step::DefaultUnfedInputs(_)
            | Step::FeedCurrentAttributes { .. }
            | Step::InstanceIdWithoutBase => Some(Stage::Vertex),
            Step::BroadcastFragColor(_)
            | Step::SplitFragInputs
            | Step::SplitStructInputs
            | Step::DropSampleMask
            | Step::GateSampleMask(_)
            | Step::ReadLayerFrom(_) => Some(Stage::Fragment),
            Step::GenerateTcs
            | Step::ProvokingVertexLast
            | Step::NegativeOneToOneDepth
            | Step::BresenhamLines { .. }
            | Step::TessellationDomainLowerLeft
            | Step::InvertFrontFace
            | Step::DrawGlPrimitive(_)
            | Step::CloseLineLoops => None,
        }
    }

    /// Runs the step on the module `words` (entry point `entry`) of its [`Step::stage`]: the
    /// one dispatch from steps to passes, for the layer (through its rewrite cache) and the
    /// fuzzers alike. `split` is what the previous stage's split made
    /// ([`Step::SplitFragInputs`] has nothing to match without it). Steps without a stage
    /// change no module.
    pub fn run(
        &self,
        words: &[u32],
        entry: &str,
        split: Option<&SplitInterface>,
    ) -> Result<StepOutput, PassError> {
        let split_output = |result: Option<(Vec<u32>, SplitInterface)>| {
            result.map_or(StepOutput::Unchanged, |(words, split)| {
                StepOutput::Split(words, split)
            })
        };
        Ok(match self {
            Step::SplitXfbOutputs(_) => split_output(split_xfb_outputs(words, entry)?),
            Step::SplitStructOutputs(_) => split_output(split_struct_outputs(words, entry)?),
            Step::BroadcastFragColor(key) => broadcast_frag_color(words, entry, key)?.into(),
            Step::SplitFragInputs => match split {
                Some(split) => split_matching_inputs(words, entry, split)?.into(),
                None => StepOutput::Unchanged,
            },
            Step::SplitStructInputs => split_struct_inputs(words, entry)?.into(),
            Step::WritePointSize(_, source) => write_point_size(words, entry, *source)?.into(),
            Step::GateClipDistances(_, block_offset) => {
                gate_clip_distances(words, entry, *block_offset)?.into()
            }
            Step::RemapClipDepth(_) => remap_clip_depth(words, entry)?.into(),
            Step::DefaultUnfedInputs(fed) => default_unfed_inputs(words, entry, fed)?.into(),
            Step::InstanceIdWithoutBase => instance_id_without_base(words, entry)?.into(),
            Step::GateLayer(_, block_offset, copy_to) => {
                gate_layer(words, entry, Some(*block_offset), *copy_to)?.into()
            }
            Step::CopyLayer(_, location) => gate_layer(words, entry, None, Some(*location))?.into(),
            Step::ReadLayerFrom(location) => read_layer_from(words, entry, *location)?.into(),
            Step::DropSampleMask => drop_sample_mask(words, entry)?.into(),
            Step::GateSampleMask(block_offset) => {
                gate_sample_mask(words, entry, *block_offset)?.into()
            }
            Step::FragmentWindowY(key) => fix_window_y(words, entry, *key)?.into(),
            // The layer reads the inputs' types and feeds them; the code stays.
            Step::FeedCurrentAttributes { .. } => StepOutput::Unchanged,
            Step::GenerateTcs
            | Step::ProvokingVertexLast
            | Step::NegativeOneToOneDepth
            | Step::BresenhamLines { .. }
            | Step::TessellationDomainLowerLeft
            | Step::InvertFrontFace
            | Step::DrawGlPrimitive(_)
            | Step::CloseLineLoops => StepOutput::Unchanged,
        })
    }

    /// What the info log says the step changed (`split`: what a split made).
    pub fn note(&self, split: Option<&SplitInterface>) -> String {
        let locations = split.map(|s| s.locations.clone()).unwrap_or_default();
        match self {
            Step::SplitXfbOutputs(stage) => format!(
                "XFB struct outputs of the {} split member by member (Locations {locations:?})",
                stage.name()
            ),
            Step::SplitStructOutputs(stage) => format!(
                "struct outputs of the {} split member by member for a fragment shader elsewhere \
                 (Locations {locations:?})",
                stage.name()
            ),
            Step::BroadcastFragColor(key) => format!(
                "gl_FragColor broadcast to {} attachments",
                key.attachments.len()
            ),
            Step::SplitFragInputs => "fragment shader inputs split to match".into(),
            Step::SplitStructInputs => {
                "fragment shader struct inputs split member by member".into()
            }
            Step::WritePointSize(stage, PointSizeSource::Default) => format!(
                "GL's default point size 1.0 written by the {}",
                stage.name()
            ),
            Step::WritePointSize(stage, PointSizeSource::GlState { block_offset }) => format!(
                "GL's point size state (push-constant offset {block_offset}) written by the {}",
                stage.name()
            ),
            Step::GateClipDistances(stage, _) => format!(
                "clip distances of the {} follow GL's plane enables",
                stage.name()
            ),
            Step::RemapClipDepth(stage) => format!(
                "GL's clip-space depth (z' = (z + w) / 2) in the {}",
                stage.name()
            ),
            Step::DefaultUnfedInputs(_) => {
                "vertex inputs no attribute feeds read GL's (0, 0, 0, 1)".into()
            }
            Step::FeedCurrentAttributes { binding, .. } => format!(
                "vertex inputs no attribute feeds read GL's current values (binding {binding})"
            ),
            Step::InstanceIdWithoutBase => "gl_InstanceID excludes the base instance".into(),
            Step::GateLayer(stage, _, None) => format!(
                "gl_Layer of the {} counts only on layered targets",
                stage.name()
            ),
            Step::GateLayer(stage, _, Some(location)) => format!(
                "gl_Layer of the {} counts only on layered targets; the layer as written goes \
                 to Location {location} for the fragment shader",
                stage.name()
            ),
            Step::CopyLayer(stage, location) => format!(
                "the layer the {} writes goes to Location {location} for the fragment shader",
                stage.name()
            ),
            Step::ReadLayerFrom(location) => {
                format!("fragment shader's gl_Layer read from Location {location}")
            }
            Step::DropSampleMask => "gl_SampleMask has no effect on a single-sample target".into(),
            Step::GateSampleMask(_) => {
                "gl_SampleMask applies only while the dynamic sample count is above one".into()
            }
            Step::GenerateTcs
            | Step::ProvokingVertexLast
            | Step::NegativeOneToOneDepth
            | Step::BresenhamLines { .. }
            | Step::TessellationDomainLowerLeft
            | Step::InvertFrontFace => self.name().into(),
            Step::DrawGlPrimitive(key) => format!(
                "GL's {:?} drawn through a generated geometry shader ({:?}, provoking vertex {})",
                key.primitive,
                key.rasterized,
                if key.provoking_last { "last" } else { "first" }
            ),
            Step::CloseLineLoops => {
                "GL's line loops: a line strip closed by the layer on non-indexed draws".into()
            }
            Step::FragmentWindowY(_) => "GL's window y in the fragment shader".into(),
        }
    }

    /// The step's new code reads the GL-state block: pipelines with it push the block.
    pub fn reads_block(&self) -> bool {
        matches!(
            self,
            Step::WritePointSize(_, PointSizeSource::GlState { .. })
                | Step::GateClipDistances(..)
                | Step::GateLayer(..)
                | Step::FragmentWindowY(_)
                | Step::GateSampleMask(_)
        )
    }

    pub fn semantic(&self) -> Semantic {
        match self {
            Step::GenerateTcs => Semantic::PassthroughTcs,
            Step::SplitXfbOutputs(_)
            | Step::SplitStructOutputs(_)
            | Step::SplitFragInputs
            | Step::SplitStructInputs => Semantic::XfbSplit,
            Step::BroadcastFragColor(_) => Semantic::FragColorBroadcast,
            Step::WritePointSize(..) => Semantic::PointSize,
            Step::GateClipDistances(..) => Semantic::ClipDistanceEnables,
            Step::RemapClipDepth(_) | Step::NegativeOneToOneDepth => Semantic::ClipSpaceDepth,
            Step::ProvokingVertexLast => Semantic::ProvokingVertex,
            Step::DefaultUnfedInputs(_) | Step::FeedCurrentAttributes { .. } => {
                Semantic::UnfedVertexInputs
            }
            Step::InstanceIdWithoutBase => Semantic::InstanceId,
            Step::GateLayer(..) | Step::CopyLayer(..) | Step::ReadLayerFrom(_) => {
                Semantic::LayerOutput
            }
            Step::DropSampleMask | Step::GateSampleMask(_) => Semantic::SampleMask,
            Step::BresenhamLines { .. } => Semantic::LineRasterization,
            Step::FragmentWindowY(_)
            | Step::TessellationDomainLowerLeft
            | Step::InvertFrontFace => Semantic::WindowOrigin,
            Step::DrawGlPrimitive(_) | Step::CloseLineLoops => Semantic::PrimitiveMode,
        }
    }
}

/// Whether the pipeline may rasterize points, from what its last pre-rasterization stage
/// emits (or the topology, for a vertex shader) and the polygon mode. A vertex shader in a
/// library without input assembly may be linked with a point-list vertex input: it writes
/// GL's point size, which other topologies ignore (GL decides per stage, DESIGN §4.6).
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
        steps.push(Step::GenerateTcs);
    }
    interface_steps(stages, key, &mut steps);
    last_stage_steps(stages, key, &mut steps);
    input_steps(stages, key, &mut steps);
    pipeline_state_steps(stages, key, &mut steps);
    primitive_mode_steps(key, &mut steps);
    steps
}

/// [`choose`]'s GL primitive mode, last: the geometry shader is made from the vertex shader
/// as every other step left it. A mode the layer cannot draw is refused where the step runs,
/// never dropped: without it the pipeline would draw something else.
fn primitive_mode_steps(key: &PipelineKey, steps: &mut Vec<Step>) {
    // Where the vertex shader copies gl_Layer for the fragment shader (the step above), the
    // geometry shader writes the copy itself.
    match key.gl_mode {
        Some(GlMode::LineLoop) => steps.push(Step::CloseLineLoops),
        Some(GlMode::Primitive(primitive)) => {
            let provoking_last = match key.app_provoking_vertex {
                true => key.app_provoking_last,
                false => applies(key, Semantic::ProvokingVertex) && key.provoking_vertex_last,
            };
            steps.push(Step::DrawGlPrimitive(PrimitiveGsKey {
                primitive,
                rasterized: key.rasterized,
                provoking_last,
                point_size: key.tess_geom_point_size,
                culling: key.culling,
                layer_copy: steps.iter().find_map(|s| match *s {
                    Step::CopyLayer(Stage::Vertex, location)
                    | Step::GateLayer(Stage::Vertex, _, Some(location)) => Some(location),
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
    key.enabled.contains(s) && (key.gl_state || !s.info().needs_gl_state)
}

/// [`choose`]'s interface steps: the XFB split of the last pre-rasterization stage, then the
/// fragment shader's broadcast and the inputs that match the split.
fn interface_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    let last = stages.last_pre_rasterization();
    let last_summary = last.and_then(|l| stages.rewritable(l).map(|s| (l, s)));
    let fragment_patchable = stages.get(Stage::Fragment).is_none_or(|f| f.patchable);

    let split = on(Semantic::XfbSplit) && key.transform_feedback;
    if let Some((stage, summary)) = last_summary {
        if split && key.fragment_elsewhere && !stages.has(Stage::Fragment) {
            if summary.struct_outputs {
                steps.push(Step::SplitStructOutputs(stage));
            }
        } else if split && summary.xfb_candidate && fragment_patchable {
            steps.push(Step::SplitXfbOutputs(stage));
        }
    }
    if let Some(summary) = stages.rewritable(Stage::Fragment) {
        if on(Semantic::FragColorBroadcast) && summary.frag_color {
            let attachments = match &key.attachments {
                Attachments::Known(attachments) => attachments.clone(),
                Attachments::Unknown => FragColorKey {
                    attachments: (0..key.max_color_attachments)
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
            steps.push(Step::SplitFragInputs);
        } else if split && key.library && last.is_none() && summary.struct_inputs {
            steps.push(Step::SplitStructInputs);
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
        let writable = stage == Stage::Vertex || key.tess_geom_point_size;
        if on(Semantic::PointSize) && writable && may_rasterize_points(stages, stage, key) {
            // With rasterization discarded GL's size decides nothing, and transform
            // feedback captures the shader's own gl_PointSize: only a missing one is written.
            let block = key
                .gl_state_block
                .filter(|_| key.gl_state && !key.rasterizer_discard);
            let source = match block {
                Some(block_offset) => Some(PointSizeSource::GlState { block_offset }),
                None => (!key.maintenance5).then_some(PointSizeSource::Default),
            };
            if let Some(source) = source {
                steps.push(Step::WritePointSize(stage, source));
            }
        }
        if let Some(block_offset) = key.gl_state_block {
            if on(Semantic::ClipDistanceEnables) && summary.clip_distance && !key.rasterizer_discard
            {
                steps.push(Step::GateClipDistances(stage, block_offset));
            }
        }
        if on(Semantic::ClipSpaceDepth) && !key.depth_clip_control && !key.library {
            steps.push(Step::RemapClipDepth(stage));
        }
        if on(Semantic::LayerOutput) {
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
                    .filter(|ends| ends.output < key.apart_layer_location)
                    .map(|_| key.apart_layer_location),
                false => stages
                    .rewritable(Stage::Fragment)
                    .filter(|fragment| fragment.layer && summary.layer)
                    .and_then(|fragment| {
                        let (last, fragment) = (summary.location_ends?, fragment.location_ends?);
                        Some(last.output.max(fragment.input))
                    })
                    // Never past the device's interface limits.
                    .filter(|&location| location <= key.apart_layer_location),
            };
            match (key.gl_state_block, copy_to) {
                (Some(block_offset), _) if summary.layer || copy_to.is_some() => {
                    steps.push(Step::GateLayer(stage, block_offset, copy_to))
                }
                (None, Some(location)) if apart => steps.push(Step::CopyLayer(stage, location)),
                _ => {}
            }
            if let Some(location) = copy_to.filter(|_| !apart && key.gl_state_block.is_some()) {
                steps.push(Step::ReadLayerFrom(location));
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
            .is_some_and(|ends| ends.input <= key.apart_layer_location);
        if on(Semantic::LayerOutput) && summary.layer && free {
            steps.push(Step::ReadLayerFrom(key.apart_layer_location));
        }
    }
}

/// [`choose`]'s steps on what the vertex and fragment shaders read: unfed vertex inputs,
/// `gl_InstanceID`, `gl_SampleMask` on single-sample targets.
fn input_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    if let Some(summary) = stages.rewritable(Stage::Vertex) {
        if let Some(fed) = &key.fed_locations {
            let unfed = summary
                .vertex_input_locations
                .iter()
                .any(|l| !fed.contains(l));
            if on(Semantic::UnfedVertexInputs) && unfed {
                steps.push(
                    match key.current_attribute_binding.filter(|_| key.gl_state) {
                        Some(binding) => Step::FeedCurrentAttributes {
                            fed: fed.clone(),
                            binding,
                        },
                        None => Step::DefaultUnfedInputs(fed.clone()),
                    },
                );
            }
        }
        if on(Semantic::InstanceId) && key.draw_parameters && summary.instance_index {
            steps.push(Step::InstanceIdWithoutBase);
        }
    }
    if let Some(summary) = stages.rewritable(Stage::Fragment) {
        if on(Semantic::SampleMask) && summary.sample_mask {
            if key.single_sample {
                steps.push(Step::DropSampleMask);
            } else if let Some(block_offset) = key.fragment_block.filter(|_| key.dynamic_samples) {
                steps.push(Step::GateSampleMask(block_offset));
            }
        }
    }
}

/// [`choose`]'s pipeline-state steps and the window origin.
fn pipeline_state_steps(stages: &Stages<'_>, key: &PipelineKey, steps: &mut Vec<Step>) {
    let on = |s: Semantic| applies(key, s);
    // Pipeline state goes where the rasterization / viewport state is: a library part
    // without it has `Topology::Unknown` only when it lacks pre-rasterization state too.
    if on(Semantic::ProvokingVertex) && key.provoking_vertex_last && !key.app_provoking_vertex {
        steps.push(Step::ProvokingVertexLast);
    }
    if on(Semantic::ClipSpaceDepth) && key.depth_clip_control && !key.app_depth_clip_control {
        steps.push(Step::NegativeOneToOneDepth);
    }
    if on(Semantic::LineRasterization)
        && key.bresenham_lines
        && !key.app_line_mode
        && !key.multisample_lines
        && !key.rasterizer_discard
        && may_rasterize_lines(stages, key)
    {
        // A library's stipple would have to follow it into the linked pipeline's record:
        // libraries get the diamond-exit rule without the layer's stipple.
        let stippled = key.stippled_bresenham_lines && !key.app_line_stipple && !key.library;
        steps.push(Step::BresenhamLines { stippled });
    }
    let origin = Some(key.window_origin)
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
            steps.push(Step::TessellationDomainLowerLeft);
        }
        if origin == WindowOrigin::LowerLeft && key.static_front_face {
            steps.push(Step::InvertFrontFace);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                draw_parameters: false,
                bresenham_lines: false,
                stippled_bresenham_lines: false,
                window_origin: WindowOrigin::Flipped,
                apart_layer_location: 31,
            })
        }
    }

    /// `key` with VK_GLSEM_gl_state on and the GL-state block at 96.
    fn with_gl_state(key: PipelineKey) -> PipelineKey {
        PipelineKey {
            gl_state: true,
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
        assert_eq!(
            choose(&s, &points),
            [Step::WritePointSize(
                Stage::Vertex,
                PointSizeSource::Default
            )]
        );
        // maintenance5 makes a missing write mean 1.0.
        let m5 = PipelineKey {
            maintenance5: true,
            ..points.clone()
        };
        assert_eq!(choose(&s, &m5), []);
        // With VK_GLSEM_gl_state the size comes from the block, maintenance5 or not.
        let gl = with_gl_state(m5);
        assert_eq!(
            choose(&s, &gl)[0],
            Step::WritePointSize(Stage::Vertex, PointSizeSource::GlState { block_offset: 96 })
        );
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
        assert_eq!(
            choose(&s, &library)[0],
            Step::WritePointSize(Stage::Vertex, PointSizeSource::GlState { block_offset: 96 })
        );
        // With rasterization discarded (transform feedback) the shader's own size stays.
        let discard = PipelineKey {
            rasterizer_discard: true,
            ..library.clone()
        };
        assert_eq!(
            choose(&s, &discard)[0],
            Step::WritePointSize(Stage::Vertex, PointSizeSource::Default)
        );
        // A geometry shader that emits triangles decides for itself.
        let gs = summary(|s| s.output_primitive = Some(Primitive::Triangles));
        let s = stages(&[(Stage::Vertex, &plain), (Stage::Geometry, &gs)]);
        let with_feature = PipelineKey {
            tess_geom_point_size: true,
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
            tess_geom_point_size: true,
            ..key()
        };
        assert_eq!(
            choose(&s, &with_feature),
            [Step::WritePointSize(
                Stage::Geometry,
                PointSizeSource::Default
            )]
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
        assert_eq!(
            choose(&s, &key),
            [Step::WritePointSize(
                Stage::Vertex,
                PointSizeSource::Default
            )]
        );
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
                Step::SplitXfbOutputs(Stage::Vertex),
                Step::BroadcastFragColor(attachments),
                Step::SplitFragInputs,
                Step::WritePointSize(Stage::Vertex, PointSizeSource::Default),
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
                Step::GateClipDistances(Stage::Vertex, 96),
                Step::ProvokingVertexLast,
                Step::NegativeOneToOneDepth
            ]
        );
        let app_chose = PipelineKey {
            app_provoking_vertex: true,
            app_depth_clip_control: true,
            ..gl.clone()
        };
        assert_eq!(
            choose(&s, &app_chose),
            [Step::GateClipDistances(Stage::Vertex, 96)]
        );
        // Nothing rasterized: the enables clip nothing, and transform feedback captures
        // the distances as written (GL captures them whatever the enables).
        let discard = PipelineKey {
            rasterizer_discard: true,
            ..app_chose.clone()
        };
        assert!(choose(&s, &discard).is_empty());
        let no_extension = PipelineKey {
            depth_clip_control: false,
            ..gl
        };
        assert!(choose(&s, &no_extension).contains(&Step::RemapClipDepth(Stage::Vertex)));
    }

    #[test]
    fn a_tes_without_tcs_always_asks_for_a_tcs() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain), (Stage::TessEval, &plain)]);
        let off = PipelineKey {
            enabled: SemanticSet(0),
            ..key()
        };
        assert_eq!(choose(&s, &off), [Step::GenerateTcs]);
    }

    #[test]
    fn a_fragment_library_without_attachments_broadcasts_to_every_color_location() {
        let fs = summary(|s| s.frag_color = true);
        let s = stages(&[(Stage::Fragment, &fs)]);
        let key = PipelineKey {
            library: true,
            attachments: Attachments::Unknown,
            max_color_attachments: 3,
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
            max_color_attachments: 1,
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
        let point_size = Step::WritePointSize(Stage::Vertex, PointSizeSource::Default);
        assert_eq!(
            choose(&pre_raster, &library),
            [Step::SplitXfbOutputs(Stage::Vertex), point_size.clone()]
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
            [Step::SplitStructOutputs(Stage::Vertex), point_size]
        );
        let fragment = stages(&[(Stage::Fragment, &fs)]);
        assert_eq!(choose(&fragment, &library), [Step::SplitStructInputs]);
        // A whole pipeline splits the inputs that match its outputs.
        assert_eq!(choose(&fragment, &key()), []);
        // Without transform feedback there is nothing to capture.
        let no_xfb = PipelineKey {
            transform_feedback: false,
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
        assert_eq!(
            choose(&vs, &object),
            [Step::WritePointSize(
                Stage::Vertex,
                PointSizeSource::Default
            )]
        );
        let tes = stages(&[(Stage::TessEval, &plain)]);
        assert_eq!(choose(&tes, &object), []);
    }

    #[test]
    fn a_fragment_shader_reading_gl_layer_reads_a_copy_past_both_interfaces() {
        use crate::scan::LocationEnds;
        let ends = |input, output| Some(LocationEnds { input, output });
        let gs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(9, 3);
        });
        let fs = summary(|s| {
            s.layer = true;
            s.location_ends = ends(5, 1);
        });
        let gl = with_gl_state(key());
        let layer_steps = |stages: &Stages<'_>| -> Vec<Step> {
            choose(stages, &gl)
                .into_iter()
                .filter(|s| s.semantic() == Semantic::LayerOutput)
                .collect()
        };
        let s = stages(&[(Stage::Geometry, &gs), (Stage::Fragment, &fs)]);
        assert_eq!(
            layer_steps(&s),
            [
                Step::GateLayer(Stage::Geometry, 96, Some(5)),
                Step::ReadLayerFrom(5)
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
            layer_steps(&s),
            [Step::GateLayer(Stage::Geometry, 96, None)]
        );
        // A fragment shader that does not read the layer, or one elsewhere: no copy.
        let plain_fs = summary(|_| {});
        for s in [
            stages(&[(Stage::Geometry, &gs), (Stage::Fragment, &plain_fs)]),
            stages(&[(Stage::Geometry, &gs)]),
        ] {
            assert_eq!(
                layer_steps(&s),
                [Step::GateLayer(Stage::Geometry, 96, None)]
            );
        }
    }

    #[test]
    fn stages_made_apart_pass_gl_layer_at_the_last_location() {
        use crate::scan::LocationEnds;
        let ends = |input, output| Some(LocationEnds { input, output });
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
            gl_state: true,
            library: true,
            ..key()
        };
        let pre_rasterization = PipelineKey {
            gl_state_block: Some(96),
            fragment_elsewhere: true,
            fragment_may_be_apart: true,
            ..library.clone()
        };
        let layer_steps = |stages: &Stages<'_>, key: &PipelineKey| -> Vec<Step> {
            choose(stages, key)
                .into_iter()
                .filter(|s| s.semantic() == Semantic::LayerOutput)
                .collect()
        };
        let gs_only = stages(&[(Stage::Geometry, &gs)]);
        assert_eq!(
            layer_steps(&gs_only, &pre_rasterization),
            [Step::GateLayer(Stage::Geometry, 96, Some(31))]
        );
        // A stage without a layer passes layer 0; without the block, the copy is ungated.
        assert_eq!(
            layer_steps(&stages(&[(Stage::Vertex, &vs)]), &pre_rasterization),
            [Step::GateLayer(Stage::Vertex, 96, Some(31))]
        );
        let no_block = PipelineKey {
            gl_state_block: None,
            ..pre_rasterization.clone()
        };
        assert_eq!(
            layer_steps(&gs_only, &no_block),
            [Step::CopyLayer(Stage::Geometry, 31)]
        );
        // A shader object whose nextStage names the fragment stage among others may be
        // bound before a fragment shader object: it passes the layer, though its struct
        // outputs are not split (another stage may read them whole).
        let may_feed_fragment = PipelineKey {
            fragment_elsewhere: false,
            ..pre_rasterization.clone()
        };
        assert_eq!(
            layer_steps(&gs_only, &may_feed_fragment),
            [Step::GateLayer(Stage::Geometry, 96, Some(31))]
        );
        // Outputs reaching the last Location, or the one before it, leave no room for the
        // copy: a stage at its interface limit stays within it.
        for end in [32, 31] {
            let gs = summary(|s| {
                s.layer = true;
                s.location_ends = ends(0, end);
            });
            assert_eq!(
                layer_steps(&stages(&[(Stage::Geometry, &gs)]), &pre_rasterization),
                [Step::GateLayer(Stage::Geometry, 96, None)]
            );
        }
        // The fragment shader of another library reads the copy.
        assert_eq!(
            layer_steps(&stages(&[(Stage::Fragment, &fs)]), &library),
            [Step::ReadLayerFrom(31)]
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
            fed_locations: Some(vec![0]),
            draw_parameters: true,
            single_sample: true,
            ..key()
        };
        assert_eq!(choose(&s, &fed), [Step::DefaultUnfedInputs(vec![0])]);
        let all_fed = PipelineKey {
            fed_locations: Some(vec![0, 3]),
            ..fed.clone()
        };
        assert_eq!(choose(&s, &all_fed), []);
        let gl = with_gl_state(fed);
        assert_eq!(
            choose(&s, &gl),
            [
                Step::GateLayer(Stage::Geometry, 96, None),
                Step::DefaultUnfedInputs(vec![0]),
                Step::InstanceIdWithoutBase,
                Step::DropSampleMask,
                Step::ProvokingVertexLast,
                Step::NegativeOneToOneDepth,
            ]
        );
        // With the layer's binding free, GL's current values feed the unfed input.
        let fed_current = PipelineKey {
            current_attribute_binding: Some(31),
            ..gl.clone()
        };
        assert!(
            choose(&s, &fed_current).contains(&Step::FeedCurrentAttributes {
                fed: vec![0],
                binding: 31
            })
        );
        assert!(!choose(&s, &fed_current).contains(&Step::DefaultUnfedInputs(vec![0])));
        let vulkan_instance = {
            let mut enabled = SemanticSet::ALL;
            enabled.set(Semantic::InstanceId, false);
            PipelineKey {
                enabled,
                draw_parameters: true,
                single_sample: false,
                ..gl
            }
        };
        assert!(!choose(&s, &vulkan_instance).contains(&Step::InstanceIdWithoutBase));
        assert!(!choose(&s, &vulkan_instance).contains(&Step::DropSampleMask));
    }

    #[test]
    fn single_sampled_line_pipelines_get_bresenham_lines() {
        let plain = summary(|_| {});
        let s = stages(&[(Stage::Vertex, &plain)]);
        let lines = PipelineKey {
            gl_state: true,
            topology: Topology::Lines,
            bresenham_lines: true,
            stippled_bresenham_lines: true,
            app_provoking_vertex: true,
            depth_clip_control: false,
            ..key()
        };
        let stippled = Step::BresenhamLines { stippled: true };
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
                multisample_lines: true,
                ..lines.clone()
            },
            PipelineKey {
                app_line_mode: true,
                ..lines.clone()
            },
            PipelineKey {
                bresenham_lines: false,
                ..lines.clone()
            },
            PipelineKey {
                gl_state: false,
                ..lines.clone()
            },
        ];
        for key in not_for {
            assert!(!choose(&s, &key)
                .iter()
                .any(|s| matches!(s, Step::BresenhamLines { .. })));
        }
        // The application's stipple, and libraries: Bresenham without the layer's stipple.
        let app_stipple = PipelineKey {
            app_line_stipple: true,
            ..lines.clone()
        };
        assert!(choose(&s, &app_stipple).contains(&Step::BresenhamLines { stippled: false }));
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
            gl_state: true,
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
                Step::TessellationDomainLowerLeft
            ]
        );
        let lower_left = PipelineKey {
            window_origin: WindowOrigin::LowerLeft,
            ..gl.clone()
        };
        assert_eq!(
            choose(&s, &lower_left)[1..],
            [
                Step::FragmentWindowY(WindowYKey {
                    flipped: false,
                    ..flipped
                }),
                Step::TessellationDomainLowerLeft,
                Step::InvertFrontFace
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
            window_origin: WindowOrigin::Vulkan,
            ..gl.clone()
        };
        assert_eq!(choose(&s, &vulkan), [Step::GenerateTcs]);
        let plain = PipelineKey {
            gl_state: false,
            ..gl
        };
        assert_eq!(choose(&s, &plain), [Step::GenerateTcs]);
    }

    #[test]
    fn every_semantic_is_registered_once() {
        for (i, a) in SEMANTICS.iter().enumerate() {
            assert_eq!(a.semantic.info().name, a.name);
            assert!(SEMANTICS[i + 1..].iter().all(|b| b.semantic != a.semantic));
        }
    }
}

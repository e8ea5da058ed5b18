//! GL's lines, layer side. At `vkCreateDevice`: the route (setting `line_route`, and the
//! per-driver table behind `auto`): Bresenham lines (and stippled ones) through the line
//! rasterization extension, with a dynamic line mode for pre-rasterization libraries and the
//! per-driver table of who decides an endpoint on a pixel diamond's edge; or the fragment
//! route, where the driver's rectangular lines are drawn and the fragment shader discards
//! what GL would not draw (`line_fragment`); and wide lines. At pipeline creation: the
//! line part of the key, `BRESENHAM` chained in front of the rasterization state, the line
//! mode, width and stipple made dynamic state the layer sets at bind where GL's rule needs
//! it (libraries, a followed mode), and the line part of the pipeline's record (the
//! fragment route's steps rewrite their stages alone). Record time is `commands/lines.rs`,
//! the data `data/lines.rs`.

use ash::vk;
use std::ffi::CStr;

use crate::layer::data::lines::{
    BoundLines, LayerLineState, PipelineLines, StaticMultisample, StippleCounting,
};
use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::loader::state::DeviceData;
use crate::layer::objects::create_info::{Chain, PipelineView};
use crate::layer::objects::pipeline_info::{
    from_libraries, is_library, libraries_have, linked_libraries,
};
use crate::layer::rewrite::patched::Patched;
use crate::layer::rewrite::run::Rewrite;
use crate::layer::rules::layer_step::{LayerStep, PipelineRule};
use crate::layer::support::error::PlanError;
use crate::layer::support::ffi::link_in_front;
use crate::layer::support::log;
use crate::layer::support::settings::{LineEndpointSetting, LineRoute};
use glsem_spirv::line_endpoints::EndpointGrid;
use glsem_spirv::line_fragment::ProvokingEnd;
use glsem_spirv::line_rasterization::BresenhamLines;
use glsem_spirv::semantics::{LineKey, Semantic, Step};

impl LayerStep for BresenhamLines {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        if let Some(r) = patched.rasterization(ci) {
            // The stipple itself is dynamic state the layer sets at bind time.
            r.line.line_rasterization_mode = vk::LineRasterizationModeKHR::BRESENHAM;
            r.line.line_stipple_factor = 1;
            r.line.line_stipple_pattern = 0xFFFF;
            r.line.stippled_line_enable = self.stippled.into();
            link_in_front(&mut r.state, &mut r.line);
        }
        if self.stippled {
            patched.add_dynamic(ci, vk::DynamicState::LINE_STIPPLE_KHR);
        }
    }
}

/// The line part of `ci`'s key.
pub(crate) fn line_key(dev: &DeviceData, ci: &PipelineView<'_>) -> LineKey {
    use vk::DynamicState as D;
    let dynamic = ci.dynamic;
    let raster = ci.rasterization.as_ref();
    LineKey {
        // The application's own line state struct, or no rasterization state to chain into.
        app_mode: raster.is_none_or(|r| {
            r.chain
                .contains(vk::StructureType::PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_KHR)
        }) || dynamic.contains(&D::LINE_RASTERIZATION_MODE_EXT),
        followed_mode: followed_line_mode(dev, ci).is_some(),
        multisample: multisample_lines(ci, dynamic) && !library_line_mode(dev, ci, dynamic),
        wide: !dynamic.contains(&D::LINE_WIDTH) && raster.is_some_and(|r| r.line_width != 1.0),
        app_stipple: dynamic.contains(&D::LINE_STIPPLE_KHR)
            || dynamic.contains(&D::LINE_STIPPLE_ENABLE_EXT),
    }
}

/// Whether `chain` (a rasterization state's) enables the stipple: the application's own.
fn stipples(chain: &Chain<'_>) -> bool {
    chain
        .get::<vk::PipelineRasterizationLineStateCreateInfoKHR<'_>>()
        .is_some_and(|line| line.stippled_line_enable == vk::TRUE)
}

/// GL's lines at the planner's fixed points.
pub(crate) struct Lines;

impl PipelineRule for Lines {
    /// Its stipple enable becomes dynamic state.
    fn must_plan(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
        follows_line_stipple(dev, ci, false)
    }

    /// A line mode the layer follows at bind, its own or its libraries'.
    fn needs_record(dev: &DeviceData, ci: &PipelineView<'_>) -> bool {
        followed_line_mode(dev, ci).is_some() || linked_line_mode(dev, ci).is_some()
    }

    fn after_steps(
        dev: &DeviceData,
        ci: &PipelineView<'_>,
        rewrite: &mut Rewrite,
    ) -> Result<(), PlanError> {
        plan_lines(dev, ci, rewrite);
        Ok(())
    }

    fn patch<'a>(rewrite: &Rewrite, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        add_dynamic_lines(rewrite, patched, ci);
    }
}

/// After the steps: what a library's lines become. A pre-rasterization library does not
/// know whether its pipelines are single-sampled, so its line mode is dynamic state, GL's
/// rule set at bind; a pre-rasterization library with GL's line rule (a dynamic mode, or
/// static where a link made it again knowing it single-sampled) has its static width made
/// dynamic state set at bind (NVIDIA's libraries drop a static width). The stipple enable
/// goes with the line mode the layer follows.
fn plan_lines(dev: &DeviceData, ci: &PipelineView<'_>, rewrite: &mut Rewrite) {
    let static_width = || {
        ci.rasterization
            .as_ref()
            .map(|r| r.line_width)
            .filter(|&width| width != 1.0 && !ci.is_dynamic(vk::DynamicState::LINE_WIDTH))
    };
    if library_line_mode(dev, ci, ci.dynamic) && rewrite.take_bresenham_lines() {
        rewrite.lines.dynamic_mode = true;
        rewrite.lines.dynamic_width = static_width();
    } else if is_library(ci) && rewrite.has_bresenham_lines() {
        rewrite.lines.dynamic_width = static_width();
    }
    rewrite.lines.dynamic_stipple = follows_line_stipple(dev, ci, rewrite.lines.dynamic_mode);
}

/// The dynamic states the layer sets for `rewrite`'s lines, added to `patched`: the line
/// mode (GL's rule followed at bind), the width, and the stipple with its enable.
fn add_dynamic_lines<'a>(rewrite: &Rewrite, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
    use vk::DynamicState as D;
    if rewrite.lines.dynamic_mode {
        patched.add_dynamic(ci, D::LINE_RASTERIZATION_MODE_EXT);
    }
    if rewrite.lines.dynamic_width.is_some() {
        patched.add_dynamic(ci, D::LINE_WIDTH);
    }
    if rewrite.lines.dynamic_stipple {
        patched.add_dynamic(ci, D::LINE_STIPPLE_ENABLE_EXT);
        patched.add_dynamic(ci, D::LINE_STIPPLE_KHR);
    }
}

/// What the layer sets at bind for a pipeline made with `rewrite` after its creation (a
/// vertex-input variant, a library made again at a link).
pub(crate) fn layer_line_state(rewrite: &Rewrite) -> LayerLineState {
    LayerLineState {
        stipple: rewrite.layer_stipple(),
        width: rewrite.lines.dynamic_width,
    }
}

/// The multisample state a fragment-output library keeps for the pipelines linked from it
/// that take GL's line rule at bind or at the link.
pub(crate) fn kept_multisample(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
) -> Option<StaticMultisample> {
    library_multisample(ci)
        .filter(|_| dev.conventions.lines.library_mode || links_take_line_rule(dev))
}

/// Whether a pipeline of `steps` counts GL's stipple on over its strips: its vertex shader
/// captures and reads the counts (`WriteLinePosition::counts_stipple`); the provoking
/// vertex its fragment test takes, or, in a pre-rasterization library, the layer's
/// convention, which a fragment-shader library takes too.
pub(crate) fn stipple_counting(dev: &DeviceData, steps: &[Step]) -> Option<StippleCounting> {
    steps
        .iter()
        .any(|s| matches!(s, Step::LinePosition(p) if p.counts_stipple()))
        .then(|| StippleCounting {
            provoking_last: steps
                .iter()
                .find_map(|s| match s {
                    Step::LineFragments(key) => Some(key.provoking == ProvokingEnd::Last),
                    _ => None,
                })
                .unwrap_or(dev.conventions.provoking_vertex.on),
        })
}

/// A pipeline's lines in its record: what binding it sets (`BoundLines`) and keeps
/// (`PipelineLines`), from its rewrite (`None`: the layer kept it as it is), its
/// libraries, a pre-rasterization library made again at its link (`linked`) and its
/// start-pixel pipeline.
pub(crate) fn record_lines(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    rewrite: Option<&Rewrite>,
    linked: LayerLineState,
    start_pixels: Option<vk::Pipeline>,
) -> (BoundLines, PipelineLines) {
    let own = rewrite.map(|r| r.lines).unwrap_or_default();
    let stipple = rewrite.is_some_and(|r| r.layer_stipple() || r.lines.dynamic_stipple);
    let linked_mode = linked_line_mode(dev, ci);
    // Its stipple enable goes with the line mode the layer follows, or its libraries'.
    let stipple_with_mode =
        own.dynamic_stipple || libraries_have(dev, ci, |r| r.bound.lines.stipple_with_mode);
    let bound = BoundLines {
        stipple: stipple || stipple_with_mode || linked.stipple,
        stipple_with_mode,
    };
    let pipeline = PipelineLines {
        mode: followed_line_mode(dev, ci).or(linked_mode),
        // A library whose line mode the layer made dynamic, or a pipeline linked from one.
        library_mode: own.dynamic_mode || linked_mode.is_some(),
        // A static line width the layer made dynamic, its own or its libraries'.
        width: own
            .dynamic_width
            .or_else(|| from_libraries(dev, ci, |r| r.lines.width))
            .or(linked.width),
        varyings: own.varyings || libraries_have(dev, ci, |r| r.lines.varyings),
        start_pixels,
        stipple_counts: own
            .stipple_counts
            .or_else(|| from_libraries(dev, ci, |r| r.lines.stipple_counts)),
    };
    (bound, pipeline)
}

impl Rewrite {
    /// The layer's line stipple: Bresenham lines with the stipple as dynamic state it sets.
    fn layer_stipple(&self) -> bool {
        self.state
            .contains(&Step::BresenhamLines(BresenhamLines { stippled: true }))
    }

    /// Whether GL's Bresenham lines are chained as static state.
    fn has_bresenham_lines(&self) -> bool {
        self.state
            .iter()
            .any(|s| matches!(s, Step::BresenhamLines(_)))
    }

    /// Takes GL's Bresenham lines out of the chained state, for the line mode to become
    /// dynamic state; whether there were any.
    fn take_bresenham_lines(&mut self) -> bool {
        let before = self.state.len();
        self.state.retain(|s| !matches!(s, Step::BresenhamLines(_)));
        self.state.len() != before
    }
}

/// Whether GL's aliased-line rule is out of reach for `ci`: its rasterization is (or may
/// be) multisampled or uses alpha to coverage or sample shading (GL then rasterizes lines
/// by its multisample rules, and Vulkan forbids Bresenham lines with the latter two:
/// VUID-VkGraphicsPipelineCreateInfo-lineRasterizationMode-02766), or the multisample
/// state is not in this create info (a library part that does not hold it).
fn multisample_lines(ci: &PipelineView<'_>, dynamic: &[vk::DynamicState]) -> bool {
    use vk::DynamicState as D;
    let Some(ms) = ci.multisample else {
        return true;
    };
    ms.rasterization_samples != vk::SampleCountFlags::TYPE_1
        || ms.alpha_to_coverage_enable == vk::TRUE
        || ms.alpha_to_one_enable == vk::TRUE
        || ms.sample_shading_enable == vk::TRUE
        || [
            D::RASTERIZATION_SAMPLES_EXT,
            D::ALPHA_TO_COVERAGE_ENABLE_EXT,
            D::ALPHA_TO_ONE_ENABLE_EXT,
        ]
        .iter()
        .any(|d| dynamic.contains(d))
}

/// Whether `ci` is a pre-rasterization library without the multisample state whose line
/// mode the layer makes dynamic state (`LineConventions::library_mode`), following GL's
/// rule where its pipelines draw.
fn library_line_mode(
    dev: &DeviceData,
    ci: &PipelineView<'_>,
    dynamic: &[vk::DynamicState],
) -> bool {
    use vk::GraphicsPipelineLibraryFlagsEXT as Part;
    let parts = ci.library_parts;
    dev.conventions.lines.library_mode
        && parts.is_some_and(|p| {
            p.contains(Part::PRE_RASTERIZATION_SHADERS)
                && !p.intersects(Part::FRAGMENT_SHADER | Part::FRAGMENT_OUTPUT_INTERFACE)
        })
        && !dynamic.contains(&vk::DynamicState::LINE_RASTERIZATION_MODE_EXT)
}

/// The multisample state a fragment-output library fixes, for the pipelines linked from
/// it that follow GL's line rule (`library_line_mode`).
fn library_multisample(ci: &PipelineView<'_>) -> Option<StaticMultisample> {
    let parts = ci.library_parts?;
    if !parts.contains(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE) {
        return None;
    }
    Some(static_multisample(ci))
}

/// The multisample state `ci` fixes, when its line mode is dynamic state whose GL rule the
/// layer follows at record time (`data/lines.rs`): a whole pipeline on a
/// `VK_GLSEM_gl_state` device with Bresenham lines, without sample shading (GL's multisample
/// rules apply there whatever the mode).
fn followed_line_mode(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<StaticMultisample> {
    use vk::DynamicState as D;
    let dynamic = ci.dynamic;
    let follows = dev.extensions.gl_state
        && dev.conventions.lines.bresenham
        && dev.settings.semantics.contains(Semantic::LineRasterization)
        && dynamic.contains(&D::LINE_RASTERIZATION_MODE_EXT)
        && !is_library(ci);
    let ms = ci.multisample;
    if !follows || ms.is_some_and(|m| m.sample_shading_enable == vk::TRUE) {
        return None;
    }
    Some(static_multisample(ci))
}

/// Whether `ci`'s stipple enable becomes dynamic state the layer sets with the line mode it
/// follows (`LineConventions::dynamic_stipple_enable`): a whole pipeline whose mode it follows, or
/// (`library_mode`) a pre-rasterization library whose mode it made dynamic, where the
/// application leaves the stipple alone.
fn follows_line_stipple(dev: &DeviceData, ci: &PipelineView<'_>, library_mode: bool) -> bool {
    use vk::DynamicState as D;
    dev.conventions.lines.dynamic_stipple_enable
        && !ci.is_dynamic(D::LINE_STIPPLE_KHR)
        && !ci.is_dynamic(D::LINE_STIPPLE_ENABLE_EXT)
        && !ci
            .rasterization
            .as_ref()
            .is_some_and(|r| stipples(&r.chain))
        && (library_mode || followed_line_mode(dev, ci).is_some())
}

/// The multisample state `ci` fixes: its values where they are not dynamic state.
fn static_multisample(ci: &PipelineView<'_>) -> StaticMultisample {
    use vk::DynamicState as D;
    let (ms, dynamic) = (ci.multisample, ci.dynamic);
    let fixed = |state: D, value: Option<bool>| value.filter(|_| !dynamic.contains(&state));
    StaticMultisample {
        samples: ms
            .map(|m| m.rasterization_samples)
            .filter(|_| !dynamic.contains(&D::RASTERIZATION_SAMPLES_EXT)),
        alpha_to_coverage: fixed(
            D::ALPHA_TO_COVERAGE_ENABLE_EXT,
            ms.map(|m| m.alpha_to_coverage_enable == vk::TRUE),
        ),
        alpha_to_one: fixed(
            D::ALPHA_TO_ONE_ENABLE_EXT,
            ms.map(|m| m.alpha_to_one_enable == vk::TRUE),
        ),
    }
}

/// The multisample state of a pipeline linked from a pre-rasterization library whose line
/// mode the layer made dynamic: the fragment-output library's (all dynamic where the layer
/// did not see it).
fn linked_line_mode(dev: &DeviceData, ci: &PipelineView<'_>) -> Option<StaticMultisample> {
    let libraries = linked_libraries(ci);
    if libraries.is_empty() || ci.info.flags.contains(vk::PipelineCreateFlags::LIBRARY_KHR) {
        return None;
    }
    let follows = {
        let pipelines = dev.records.pipelines.read();
        libraries
            .iter()
            .any(|l| pipelines.get(l).is_some_and(|r| r.lines.library_mode))
    };
    follows.then(|| {
        let multisample = dev.records.library_multisample.read();
        libraries
            .iter()
            .find_map(|l| multisample.get(l).copied())
            .unwrap_or(StaticMultisample {
                samples: None,
                alpha_to_coverage: None,
                alpha_to_one: None,
            })
    })
}

/// Whether links on `dev` make their pre-rasterization library again to take GL's line
/// rule: the driver has Bresenham lines but no dynamic line mode for a library to follow
/// (`LineConventions::library_mode`), so the rule waits for the link, where the
/// fragment-output library says whether the pipeline is single-sampled.
pub(crate) fn links_take_line_rule(dev: &DeviceData) -> bool {
    dev.extensions.gl_state
        && dev.conventions.lines.bresenham
        && !dev.conventions.lines.library_mode
        && dev.settings.semantics.contains(Semantic::LineRasterization)
}

const LINE_RASTERIZATION_KHR: &CStr = c"VK_KHR_line_rasterization";
const LINE_RASTERIZATION_EXT: &CStr = c"VK_EXT_line_rasterization";
const EXTENDED_DYNAMIC_STATE_3: &CStr = c"VK_EXT_extended_dynamic_state3";
const SHADER_OBJECT: &CStr = c"VK_EXT_shader_object";
const BUFFER_DEVICE_ADDRESS: &CStr = c"VK_KHR_buffer_device_address";
const GRAPHICS_PIPELINE_LIBRARY: &CStr = c"VK_EXT_graphics_pipeline_library";

/// `VkPhysicalDeviceProperties::vendorID` of NVIDIA's GPUs.
const NVIDIA_VENDOR_ID: u32 = 0x10DE;
/// SwiftShader's `vendorID` (Google) and `deviceID`.
const SWIFTSHADER: (u32, u32) = (0x1AE0, 0xC0DE);

/// `vkCreateDevice` under `VK_GLSEM_gl_state`, where the rule is on.
pub(crate) fn setup_device(setup: &mut DeviceSetup<'_>) {
    if !setup
        .settings()
        .semantics
        .contains(Semantic::LineRasterization)
    {
        return;
    }
    // GL's glLineWidth.
    setup.core_wanted.wide_lines = vk::TRUE;
    let route = match setup.settings().line_route {
        LineRoute::Auto if draws_other_pixels(&setup.device_properties()) => LineRoute::Fragment,
        route => route,
    };
    // Bresenham lines for the pipelines the fragment route leaves (libraries, shader
    // objects, wide lines) too.
    enable_bresenham_lines(setup);
    if route == LineRoute::Fragment
        || route == LineRoute::Auto && !setup.conventions.lines.bresenham
    {
        log::info!(
            "VK_GLSEM_gl_state: GL's lines by the fragment route: whole pipelines that may \
             draw lines discard the fragments GL's diamond-exit rule and stipple would not \
             produce"
        );
        setup.conventions.lines.fragment = true;
        setup.conventions.fragment_reads_block = true;
        enable_stipple_counts(setup);
    }
    enable_dynamic_line_mode(setup);
    // Testing the route of devices without a dynamic line mode on one that has it: links
    // make their pre-rasterization library again with GL's line rule.
    if setup.settings().debug_force_line_rule_at_link {
        setup.conventions.lines.library_mode = false;
        setup.conventions.lines.dynamic_stipple_enable = false;
    }
    setup.conventions.lines.endpoints = endpoint_grid(setup);
    warn_of_missing_lines(setup);
}

/// The fragment route's stipple counted on over a strip (`commands/draws/line_passes.rs`):
/// its vertex shaders store to, and read from, a buffer of the layer's by its device address
/// (`vertexPipelineStoresAndAtomics`, wanted here and settled with the core features, and
/// `bufferDeviceAddress`, the application's where it chains Vulkan 1.2's features, else
/// the layer's).
fn enable_stipple_counts(setup: &mut DeviceSetup<'_>) {
    setup.core_wanted.vertex_pipeline_stores_and_atomics = vk::TRUE;
    let app_says = setup.app_chains(vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
        || setup.app_chains(vk::StructureType::PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES);
    let core = setup.core_in(vk::API_VERSION_1_2);
    setup.conventions.lines.stipple_counts = match app_says {
        true => setup.features.buffer_device_address,
        false if core || setup.driver_has(BUFFER_DEVICE_ADDRESS) => {
            let wanted = vk::PhysicalDeviceBufferDeviceAddressFeatures::default();
            let on = setup.query(wanted).buffer_device_address != 0;
            if on {
                if !core {
                    setup.enable(BUFFER_DEVICE_ADDRESS);
                }
                setup.add(wanted.buffer_device_address(true));
            }
            on
        }
        false => false,
    };
}

/// The per-driver table behind `line_route = auto`: SwiftShader's Bresenham lines are drawn
/// from endpoints snapped to 1/16 pixel and miss or add pixels of GL's diamond-exit rule
/// (measured: 53 % of 512 random segments exact, 75 % by the fragment route), and it has no
/// stippled lines.
fn draws_other_pixels(props: &vk::PhysicalDeviceProperties) -> bool {
    (props.vendor_id, props.device_id) == SWIFTSHADER
}

/// The line rasterization extension for GL's lines: the one the application enabled, else
/// the EXT one where the driver has it, else the KHR one (the same features and commands).
/// EXT first: validation layers and tools older than VK_KHR_line_rasterization (the
/// 1.3.239 validation layer of Debian 12, with NVIDIA 580 drivers that have both) do not
/// know the KHR extension and misread its dynamic line stipple state.
fn line_extension(setup: &DeviceSetup<'_>) -> Option<&'static CStr> {
    let both = [LINE_RASTERIZATION_EXT, LINE_RASTERIZATION_KHR];
    both.into_iter()
        .find(|&e| setup.app_enabled(e))
        .or_else(|| both.into_iter().find(|&e| setup.driver_has(e)))
}

/// Bresenham lines (and stippled ones) through [`line_extension`], unless the application's
/// own struct says otherwise.
fn enable_bresenham_lines(setup: &mut DeviceSetup<'_>) {
    let Some(ext) = line_extension(setup) else {
        return;
    };
    let app = setup
        .app_struct::<vk::PhysicalDeviceLineRasterizationFeaturesKHR<'_>>()
        .map(|app| (app.bresenham_lines != 0, app.stippled_bresenham_lines != 0));
    // Shader objects then have to set the line rasterization mode and stipple enable
    // before every line draw (VUID-vkCmdDraw-None-08666 / -08669): where the application
    // did not ask for the extension, the layer sets them when shaders are bound.
    let shader_objects = setup.app_enabled(SHADER_OBJECT) && app.is_none();
    let enabled = setup.app_enabled(ext);
    let conventions = &mut setup.conventions;
    match app {
        Some((bresenham, stippled)) => {
            conventions.lines.bresenham = bresenham && enabled;
            conventions.lines.stippled_bresenham = conventions.lines.bresenham && stippled;
        }
        None => {
            let support = setup.query(vk::PhysicalDeviceLineRasterizationFeaturesKHR::default());
            if !setup.can_query() || support.bresenham_lines == 0 {
                return;
            }
            setup.enable(ext);
            let conventions = &mut setup.conventions;
            conventions.lines.bresenham = true;
            conventions.lines.layer_sets_mode = shader_objects;
            conventions.lines.stippled_bresenham = support.stippled_bresenham_lines != 0;
            let stippled = conventions.lines.stippled_bresenham;
            setup.add(
                vk::PhysicalDeviceLineRasterizationFeaturesKHR::default()
                    .bresenham_lines(true)
                    .stippled_bresenham_lines(stippled),
            );
        }
    }
}

/// A dynamic line mode GL's rule follows, and the stipple enable with it (the stipple needs
/// the Bresenham mode): where the application enabled that state, or for graphics pipeline
/// libraries, where the layer enables it: a pre-rasterization library does not know whether
/// its pipelines will be single-sampled, so its line mode is made dynamic state the layer
/// follows at bind (`followed_state`), where the driver can.
fn enable_dynamic_line_mode(setup: &mut DeviceSetup<'_>) {
    let eds3_enabled = setup.app_enabled(EXTENDED_DYNAMIC_STATE_3);
    let app = setup
        .app_struct::<vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'_>>()
        .map(|app| {
            (
                app.extended_dynamic_state3_line_rasterization_mode != 0 && eds3_enabled,
                app.extended_dynamic_state3_line_stipple_enable != 0 && eds3_enabled,
            )
        });
    let stippled = setup.conventions.lines.stippled_bresenham;
    setup.conventions.lines.dynamic_stipple_enable =
        stippled && app.is_some_and(|(_, enable)| enable);
    if !setup.conventions.lines.bresenham || !setup.app_enabled(GRAPHICS_PIPELINE_LIBRARY) {
        return;
    }
    setup.conventions.lines.library_mode = match app {
        Some((mode, _)) => mode,
        None => {
            let support = match setup.driver_has(EXTENDED_DYNAMIC_STATE_3) {
                true => setup.query(vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()),
                false => vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default(),
            };
            if support.extended_dynamic_state3_line_rasterization_mode == 0 {
                return;
            }
            setup.enable(EXTENDED_DYNAMIC_STATE_3);
            let stipple_enable =
                stippled && support.extended_dynamic_state3_line_stipple_enable != 0;
            setup.conventions.lines.dynamic_stipple_enable = stipple_enable;
            setup.add(
                vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default()
                    .extended_dynamic_state3_line_rasterization_mode(true)
                    .extended_dynamic_state3_line_stipple_enable(stipple_enable),
            );
            true
        }
    };
}

/// Who decides a line endpoint that the rasterizer snaps onto a pixel diamond's edge, which
/// GL's diamond-exit rule (and Mesa, the oracle) counts outside the diamond: the per-driver
/// table behind setting `line_endpoints = auto`. NVIDIA's rasterizer (its Vulkan and OpenGL
/// drivers alike, measured on an H200 with driver 580) counts such an endpoint inside where it
/// lies below the pixel's centre in framebuffer y: under a flipped viewport GL's choice turns
/// over. Returns the driver's line snapping where the layer moves these endpoints off the
/// edges (GL's lines only: where the layer gives Bresenham lines).
fn endpoint_grid(setup: &DeviceSetup<'_>) -> Option<EndpointGrid> {
    if !setup.conventions.lines.bresenham {
        return None;
    }
    let setting = setup.settings().line_endpoints;
    // The line rasterization extension is the device's (Bresenham lines), so its
    // properties struct may be chained.
    let (props, lines) =
        setup.properties(vk::PhysicalDeviceLineRasterizationPropertiesKHR::default());
    let layer_decides = match setting {
        LineEndpointSetting::Auto => props.vendor_id == NVIDIA_VENDOR_ID,
        LineEndpointSetting::Driver => false,
        LineEndpointSetting::Layer | LineEndpointSetting::DebugTowardCentre => true,
    };
    layer_decides.then(|| EndpointGrid {
        subpixel_bits: match lines.line_sub_pixel_precision_bits {
            0 => props.limits.sub_pixel_precision_bits.max(1),
            bits => bits,
        },
        toward_centre: setting == LineEndpointSetting::DebugTowardCentre,
    })
}

/// Says which of GL's line conventions the device cannot give.
fn warn_of_missing_lines(setup: &DeviceSetup<'_>) {
    let conventions = &setup.conventions;
    let elsewhere = match conventions.lines.fragment {
        true => "by the fragment route in pipelines and libraries, and not in shader objects",
        false => "not",
    };
    if !conventions.lines.bresenham {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks VK_KHR/EXT_line_rasterization with \
             bresenhamLines; GL's diamond-exit rule and glLineStipple apply {elsewhere}"
        );
    } else if !conventions.lines.stippled_bresenham {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks stippledBresenhamLines; glLineStipple \
             applies {elsewhere}"
        );
    }
    if conventions.lines.bresenham
        && !conventions.lines.fragment
        && setup.app_enabled(GRAPHICS_PIPELINE_LIBRARY)
        && !conventions.lines.library_mode
    {
        log::info!(
            "VK_GLSEM_gl_state: the driver lacks extendedDynamicState3LineRasterizationMode; \
             a pre-rasterization library cannot know whether its pipelines are single-sampled, \
             so each link makes it again with GL's line rule where they are"
        );
    }
}

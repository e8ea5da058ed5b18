//! GL's lines, layer side. At `vkCreateDevice`: the route (setting `line_route`, and the
//! per-driver table behind `auto`): Bresenham lines (and stippled ones) through the line
//! rasterization extension, with a dynamic line mode for pre-rasterization libraries and the
//! per-driver table of who decides an endpoint on a pixel diamond's edge; or the fragment
//! route, where the driver's rectangular lines are drawn and the fragment shader discards
//! what GL would not draw (`line_fragment`); and wide lines. At pipeline creation:
//! `BRESENHAM` chained in front of the rasterization state, and the stipple as dynamic
//! state the layer sets at bind (the fragment route's steps rewrite their stages alone).

use ash::vk;
use std::ffi::CStr;

use crate::layer::loader::device_setup::DeviceSetup;
use crate::layer::objects::create_info::PipelineView;
use crate::layer::rewrite::patched::Patched;
use crate::layer::rules::layer_step::LayerStep;
use crate::layer::support::ffi::link_in_front;
use crate::layer::support::log;
use crate::layer::support::settings::{LineEndpointSetting, LineRoute};
use glsem_spirv::line_endpoints::EndpointGrid;
use glsem_spirv::line_rasterization::BresenhamLines;
use glsem_spirv::semantics::Semantic;

impl LayerStep for BresenhamLines {
    const PIPELINE_STATE: bool = true;

    fn chain<'a>(&self, patched: &mut Patched<'a>, ci: &PipelineView<'a>) {
        if let Some(r) = patched.rasterization(ci) {
            r.line.stippled_line_enable = self.stippled.into();
            link_in_front(&mut r.state, &mut r.line);
        }
        if self.stippled {
            patched.add_dynamic(ci, vk::DynamicState::LINE_STIPPLE_KHR);
        }
    }
}

const LINE_RASTERIZATION_KHR: &CStr = c"VK_KHR_line_rasterization";
const LINE_RASTERIZATION_EXT: &CStr = c"VK_EXT_line_rasterization";
const EXTENDED_DYNAMIC_STATE_3: &CStr = c"VK_EXT_extended_dynamic_state3";
const SHADER_OBJECT: &CStr = c"VK_EXT_shader_object";
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
        || route == LineRoute::Auto && !setup.conventions.bresenham_lines
    {
        log::info!(
            "VK_GLSEM_gl_state: GL's lines by the fragment route: whole pipelines that may \
             draw lines discard the fragments GL's diamond-exit rule and stipple would not \
             produce"
        );
        setup.conventions.fragment_lines = true;
        setup.conventions.fragment_reads_block = true;
    }
    enable_dynamic_line_mode(setup);
    // Testing the route of devices without a dynamic line mode on one that has it: links
    // make their pre-rasterization library again with GL's line rule.
    if setup.settings().debug_force_line_rule_at_link {
        setup.conventions.library_line_mode = false;
        setup.conventions.dynamic_line_stipple = false;
    }
    setup.conventions.line_endpoints = endpoint_grid(setup);
    warn_of_missing_lines(setup);
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
            conventions.bresenham_lines = bresenham && enabled;
            conventions.stippled_bresenham_lines = conventions.bresenham_lines && stippled;
        }
        None => {
            let support = setup.query(vk::PhysicalDeviceLineRasterizationFeaturesKHR::default());
            if !setup.can_query() || support.bresenham_lines == 0 {
                return;
            }
            setup.enable(ext);
            let conventions = &mut setup.conventions;
            conventions.bresenham_lines = true;
            conventions.layer_sets_line_mode = shader_objects;
            conventions.stippled_bresenham_lines = support.stippled_bresenham_lines != 0;
            let stippled = conventions.stippled_bresenham_lines;
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
    let stippled = setup.conventions.stippled_bresenham_lines;
    setup.conventions.dynamic_line_stipple = stippled && app.is_some_and(|(_, enable)| enable);
    if !setup.conventions.bresenham_lines || !setup.app_enabled(GRAPHICS_PIPELINE_LIBRARY) {
        return;
    }
    setup.conventions.library_line_mode = match app {
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
            setup.conventions.dynamic_line_stipple = stipple_enable;
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
    if !setup.conventions.bresenham_lines {
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
    let elsewhere = match conventions.fragment_lines {
        true => "by the fragment route in pipelines and libraries, and not in shader objects",
        false => "not",
    };
    if !conventions.bresenham_lines {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks VK_KHR/EXT_line_rasterization with \
             bresenhamLines; GL's diamond-exit rule and glLineStipple apply {elsewhere}"
        );
    } else if !conventions.stippled_bresenham_lines {
        log::warning!(
            "VK_GLSEM_gl_state: the driver lacks stippledBresenhamLines; glLineStipple \
             applies {elsewhere}"
        );
    }
    if conventions.bresenham_lines
        && !conventions.fragment_lines
        && setup.app_enabled(GRAPHICS_PIPELINE_LIBRARY)
        && !conventions.library_line_mode
    {
        log::info!(
            "VK_GLSEM_gl_state: the driver lacks extendedDynamicState3LineRasterizationMode; \
             a pre-rasterization library cannot know whether its pipelines are single-sampled, \
             so each link makes it again with GL's line rule where they are"
        );
    }
}

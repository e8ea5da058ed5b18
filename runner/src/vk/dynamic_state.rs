//! `--pipelines dynamic-state`: whole pipelines that list every dynamic state the device has
//! of `VK_EXT_extended_dynamic_state` 1–3 and `VK_EXT_vertex_input_dynamic_state`, and set
//! it after each bind to what the static path bakes in. The state shader objects must set,
//! through pipelines (DESIGN §4.11): drivers without `VK_EXT_shader_object` (lavapipe 22.3)
//! exercise the layer's record-time following this way.
//!
//! Like a GL port, the runner sets Vulkan's defaults where GL's convention is the layer's:
//! the line mode `DEFAULT`, the domain origin `UPPER_LEFT`, `negativeOneToOne` off, and the
//! provoking vertex `FIRST_VERTEX` unless it enabled `VK_EXT_provoking_vertex` itself (the
//! only mode it may set then); inputs it does not feed stay out of `vkCmdSetVertexInputEXT`.

use ash::vk;
use std::ffi::CStr;

/// The dynamic-state features a device has, queried before it is made and chained into
/// `vkCreateDevice` as they are (every one the device has is enabled).
#[derive(Clone, Copy)]
pub struct DynamicFeatures {
    pub extended_dynamic_state: bool,
    pub eds2: vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT<'static>,
    pub eds3: vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT<'static>,
    pub vertex_input: bool,
}

/// The extensions of the dynamic-state path, each enabled where the device lists it.
pub const EXTENSIONS: [&CStr; 4] = [
    ash::ext::extended_dynamic_state::NAME,
    ash::ext::extended_dynamic_state2::NAME,
    ash::ext::extended_dynamic_state3::NAME,
    ash::ext::vertex_input_dynamic_state::NAME,
];

impl DynamicFeatures {
    /// What `pd` has, of the extensions among `exts` (`has(name)`).
    pub fn query(
        instance: &ash::Instance,
        pd: vk::PhysicalDevice,
        has: impl Fn(&CStr) -> bool,
    ) -> DynamicFeatures {
        let mut eds = vk::PhysicalDeviceExtendedDynamicStateFeaturesEXT::default();
        let mut eds2 = vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT::default();
        let mut eds3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT::default();
        let mut vertex_input = vk::PhysicalDeviceVertexInputDynamicStateFeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default();
        if has(EXTENSIONS[0]) {
            f2 = f2.push_next(&mut eds);
        }
        if has(EXTENSIONS[1]) {
            f2 = f2.push_next(&mut eds2);
        }
        if has(EXTENSIONS[2]) {
            f2 = f2.push_next(&mut eds3);
        }
        if has(EXTENSIONS[3]) {
            f2 = f2.push_next(&mut vertex_input);
        }
        // SAFETY: `pd` is `instance`'s; the chain holds only structs of extensions the device
        // lists, each a local that outlives the call.
        unsafe { instance.get_physical_device_features2(pd, &mut f2) };
        let _ = f2;
        let unchained2 = vk::PhysicalDeviceExtendedDynamicState2FeaturesEXT {
            p_next: std::ptr::null_mut(),
            ..eds2
        };
        let unchained3 = vk::PhysicalDeviceExtendedDynamicState3FeaturesEXT {
            p_next: std::ptr::null_mut(),
            ..eds3
        };
        DynamicFeatures {
            extended_dynamic_state: eds.extended_dynamic_state == vk::TRUE,
            eds2: unchained2,
            eds3: unchained3,
            vertex_input: vertex_input.vertex_input_dynamic_state == vk::TRUE,
        }
    }

    /// The extensions to enable: those whose features the device has.
    pub fn extensions(&self) -> Vec<&'static CStr> {
        let on = [
            self.extended_dynamic_state,
            self.eds2.extended_dynamic_state2 == vk::TRUE,
            !self.eds3_states().is_empty(),
            self.vertex_input,
        ];
        EXTENSIONS
            .into_iter()
            .zip(on)
            .filter_map(|(name, on)| on.then_some(name))
            .collect()
    }

    /// The dynamic states the pipelines list: every one of these extensions the device has,
    /// except the vertex binding stride (set with the vertex input where that is dynamic),
    /// the logic op (GL's logic op is off), the line stipple enable (GL's `glLineStipple` is
    /// the layer's, `vkCmdSetLineStippleGLSEM`) and the states of other extensions
    /// (depth clip enable, rasterization stream, NVIDIA's).
    pub fn states(&self) -> Vec<vk::DynamicState> {
        use vk::DynamicState as D;
        let mut states = Vec::new();
        if self.extended_dynamic_state {
            states.extend([
                D::CULL_MODE,
                D::FRONT_FACE,
                D::PRIMITIVE_TOPOLOGY,
                D::VIEWPORT_WITH_COUNT,
                D::SCISSOR_WITH_COUNT,
                D::DEPTH_TEST_ENABLE,
                D::DEPTH_WRITE_ENABLE,
                D::DEPTH_COMPARE_OP,
                D::DEPTH_BOUNDS_TEST_ENABLE,
                D::STENCIL_TEST_ENABLE,
                D::STENCIL_OP,
            ]);
        }
        let e2 = &self.eds2;
        if e2.extended_dynamic_state2 == vk::TRUE {
            states.extend([
                D::RASTERIZER_DISCARD_ENABLE,
                D::DEPTH_BIAS_ENABLE,
                D::PRIMITIVE_RESTART_ENABLE,
            ]);
        }
        if e2.extended_dynamic_state2_patch_control_points == vk::TRUE {
            states.push(D::PATCH_CONTROL_POINTS_EXT);
        }
        states.extend(self.eds3_states());
        if self.vertex_input {
            states.push(D::VERTEX_INPUT_EXT);
        }
        states
    }

    /// The states of `VK_EXT_extended_dynamic_state3` the pipelines list.
    fn eds3_states(&self) -> Vec<vk::DynamicState> {
        use vk::DynamicState as D;
        let e3 = &self.eds3;
        let eds3 = [
            (
                e3.extended_dynamic_state3_tessellation_domain_origin,
                D::TESSELLATION_DOMAIN_ORIGIN_EXT,
            ),
            (
                e3.extended_dynamic_state3_depth_clamp_enable,
                D::DEPTH_CLAMP_ENABLE_EXT,
            ),
            (e3.extended_dynamic_state3_polygon_mode, D::POLYGON_MODE_EXT),
            (
                e3.extended_dynamic_state3_rasterization_samples,
                D::RASTERIZATION_SAMPLES_EXT,
            ),
            (e3.extended_dynamic_state3_sample_mask, D::SAMPLE_MASK_EXT),
            (
                e3.extended_dynamic_state3_alpha_to_coverage_enable,
                D::ALPHA_TO_COVERAGE_ENABLE_EXT,
            ),
            (
                e3.extended_dynamic_state3_alpha_to_one_enable,
                D::ALPHA_TO_ONE_ENABLE_EXT,
            ),
            (
                e3.extended_dynamic_state3_logic_op_enable,
                D::LOGIC_OP_ENABLE_EXT,
            ),
            (
                e3.extended_dynamic_state3_color_blend_enable,
                D::COLOR_BLEND_ENABLE_EXT,
            ),
            (
                e3.extended_dynamic_state3_color_blend_equation,
                D::COLOR_BLEND_EQUATION_EXT,
            ),
            (
                e3.extended_dynamic_state3_color_write_mask,
                D::COLOR_WRITE_MASK_EXT,
            ),
            (
                e3.extended_dynamic_state3_line_rasterization_mode,
                D::LINE_RASTERIZATION_MODE_EXT,
            ),
            (
                e3.extended_dynamic_state3_provoking_vertex_mode,
                D::PROVOKING_VERTEX_MODE_EXT,
            ),
            (
                e3.extended_dynamic_state3_depth_clip_negative_one_to_one,
                D::DEPTH_CLIP_NEGATIVE_ONE_TO_ONE_EXT,
            ),
        ];
        eds3.into_iter()
            .filter(|(on, _)| *on == vk::TRUE)
            .map(|(_, state)| state)
            .collect()
    }
}

/// The dynamic-state path's states and the commands that set them.
pub struct DynamicStates {
    /// What every pipeline lists in `pDynamicStates` and the player sets after each bind.
    pub states: Vec<vk::DynamicState>,
    /// The setters: `VK_EXT_shader_object`'s state commands are these extensions' (loaded
    /// by their `EXT` names; the shader-object commands themselves stay unloaded).
    pub fns: ash::ext::shader_object::Device,
}

impl DynamicStates {
    pub fn new(
        instance: &ash::Instance,
        device: &ash::Device,
        features: &DynamicFeatures,
    ) -> DynamicStates {
        DynamicStates {
            states: features.states(),
            fns: ash::ext::shader_object::Device::new(instance, device),
        }
    }
}

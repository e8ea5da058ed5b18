//! GL's line rule's data: its part of a pipeline's record ([`PipelineLines`]), of what a
//! command buffer acts on while the pipeline is bound ([`BoundLines`]) and of a command
//! buffer's state ([`CommandBufferLines`]: the stipple, the start-pixel pipeline of the
//! fragment route, and the line mode followed).
//!
//! The line mode where it is dynamic state (docs/architecture.md, "Dynamic state followed
//! at record time"): pipelines that list `VK_DYNAMIC_STATE_LINE_RASTERIZATION_MODE_EXT`. The
//! layer cannot chain `BRESENHAM` into them, so it follows, per command buffer, the state
//! that decides GL's rule: the mode the application sets, and the sample count, alpha to
//! coverage and alpha to one in effect (the pipeline's, or dynamic state). While the
//! application leaves the mode at `DEFAULT` (Vulkan's choice, which GL ports leave alone)
//! and the rasterization is single-sampled without alpha to coverage or alpha to one, the
//! driver gets `BRESENHAM` (GL's diamond-exit rule); otherwise the application's mode, as it
//! set it (VUID-VkGraphicsPipelineCreateInfo-lineRasterizationMode-02766 holds at draw time
//! too). The mode is set when one of these changes, never per draw.

use ash::vk;
use glsem_spirv::line_endpoints::EndpointGrid;

/// What a pipeline's rewrite made of GL's lines beside its steps (`Rewrite::lines`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RewriteLines {
    /// The line mode becomes dynamic state the layer sets by GL's rule at bind (a
    /// pre-rasterization library, which does not know its multisample state).
    pub dynamic_mode: bool,
    /// With it, a static line width other than 1 becomes dynamic state the layer sets at
    /// bind: NVIDIA's driver (580) draws a pre-rasterization library's static wide lines 1
    /// pixel wide, and draws them wide when the width is set at record time.
    pub dynamic_width: Option<f32>,
    /// The stipple and its enable become dynamic state the layer sets with the line mode
    /// it follows (`follows_line_stipple`).
    pub dynamic_stipple: bool,
    /// GL's fragment line route: the last pre-rasterization stage sends lines it tests.
    pub varyings: bool,
    /// Its vertex shader captures its strips' positions and reads their stipple counts.
    pub stipple_counts: Option<StippleCounting>,
}

/// A pipeline whose strips count GL's stipple on from segment to segment on the fragment
/// line route (`commands/draws/line_passes.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StippleCounting {
    /// A segment's last vertex provokes it (GL's convention), else its first.
    pub provoking_last: bool,
}

impl RewriteLines {
    /// Whether they change the pipeline's create info.
    pub fn change_state(&self) -> bool {
        self.dynamic_mode || self.dynamic_stipple
    }
}

/// What the layer sets at bind for a pipeline it made with GL's line rule (a
/// pre-rasterization library made again at a link, a vertex-input variant).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LayerLineState {
    /// Its stipple is dynamic state the layer sets.
    pub stipple: bool,
    /// Its static line width, made dynamic state the layer sets.
    pub width: Option<f32>,
}

/// What a `VK_GLSEM_gl_state` device takes of GL's line rule (the layer enabled these on the
/// driver for it; `Conventions::lines`).
#[derive(Debug, Clone, Copy, Default)]
pub struct LineConventions {
    /// `VK_EXT_line_rasterization` (or KHR) with `bresenhamLines`, and
    /// `stippledBresenhamLines`.
    pub bresenham: bool,
    pub stippled_bresenham: bool,
    /// The layer enabled the line rasterization extension under an application that uses
    /// shader objects: it sets their line mode and stipple enable, which Vulkan requires
    /// for every line draw with shader objects (VUID-vkCmdDraw-None-08666 / -08669).
    pub layer_sets_mode: bool,
    /// Pre-rasterization libraries get their line mode as dynamic state, which the layer
    /// sets at bind by GL's rule (`extendedDynamicState3LineRasterizationMode`).
    pub library_mode: bool,
    /// `extendedDynamicState3LineStippleEnable` (the application's or the layer's) beside
    /// `stippledBresenhamLines`: a pipeline whose line mode the layer follows gets its
    /// stipple enable as dynamic state too, set with the mode (GL's stipple on Bresenham
    /// lines).
    pub dynamic_stipple_enable: bool,
    /// The driver's line snapping, where the layer moves GL's line endpoints off the
    /// diamonds' edges (setting `line_endpoints`).
    pub endpoints: Option<EndpointGrid>,
    /// GL's lines by the fragment shader (`line_route`): whole pipelines that draw lines
    /// discard what GL's diamond-exit rule and stipple would not produce.
    pub fragment: bool,
    /// The fragment route counts the stipple on over a strip (`bufferDeviceAddress` and
    /// `vertexPipelineStoresAndAtomics`, enabled by the layer):
    /// `commands/draws/line_passes.rs`.
    pub stipple_counts: bool,
}

/// The multisample state a pipeline fixes (`None`: dynamic state, followed from the
/// application's `vkCmdSet*EXT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticMultisample {
    pub samples: Option<vk::SampleCountFlags>,
    pub alpha_to_coverage: Option<bool>,
    pub alpha_to_one: Option<bool>,
}

/// What decides the line mode in one command buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineModeState {
    /// The bound pipeline's line mode is dynamic and GL's rule is the layer's to follow:
    /// with the multisample state it fixes.
    pub bound: Option<StaticMultisample>,
    /// The application's last `vkCmdSetLineRasterizationModeEXT` (`None`: not yet).
    pub app_mode: Option<vk::LineRasterizationModeEXT>,
    /// The application's last dynamic multisample state (Vulkan's defaults until set).
    pub samples: vk::SampleCountFlags,
    pub alpha_to_coverage: bool,
    pub alpha_to_one: bool,
    /// The mode the layer last gave the driver.
    pub set: Option<vk::LineRasterizationModeEXT>,
}

impl LineModeState {
    pub const INITIAL: LineModeState = LineModeState {
        bound: None,
        app_mode: None,
        samples: vk::SampleCountFlags::TYPE_1,
        alpha_to_coverage: false,
        alpha_to_one: false,
        set: None,
    };

    /// The mode the driver should have now, when the layer follows it and the application
    /// has set one.
    pub fn wanted(&self) -> Option<vk::LineRasterizationModeEXT> {
        let fixed = self.bound?;
        let app = self.app_mode?;
        let single_sample = fixed.samples.unwrap_or(self.samples) == vk::SampleCountFlags::TYPE_1;
        let coverage = fixed.alpha_to_coverage.unwrap_or(self.alpha_to_coverage)
            || fixed.alpha_to_one.unwrap_or(self.alpha_to_one);
        Some(match app {
            vk::LineRasterizationModeEXT::DEFAULT if single_sample && !coverage => {
                vk::LineRasterizationModeEXT::BRESENHAM
            }
            _ => app,
        })
    }

    /// A pipeline is bound: `fixed` when its line mode is followed. A pipeline with a static
    /// mode overwrites the driver's dynamic one.
    pub fn bind(
        &mut self,
        fixed: Option<StaticMultisample>,
    ) -> Option<vk::LineRasterizationModeEXT> {
        self.bound = fixed;
        if fixed.is_none() {
            self.set = None;
        }
        self.update()
    }

    /// The application sets `mode`: what goes down in its place.
    pub fn app_sets(&mut self, mode: vk::LineRasterizationModeEXT) -> vk::LineRasterizationModeEXT {
        self.app_mode = Some(mode);
        let down = self.wanted().unwrap_or(mode);
        self.set = Some(down);
        down
    }

    /// The mode to give the driver after a change: `Some` when it differs from what the
    /// layer set last (recorded as set).
    pub fn update(&mut self) -> Option<vk::LineRasterizationModeEXT> {
        let wanted = self.wanted()?;
        (self.set != Some(wanted)).then(|| {
            self.set = Some(wanted);
            wanted
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::LineRasterizationModeEXT as M;

    const ALL_DYNAMIC: StaticMultisample = StaticMultisample {
        samples: None,
        alpha_to_coverage: None,
        alpha_to_one: None,
    };

    #[test]
    fn default_lines_are_bresenham_while_single_sampled_without_coverage() {
        let mut s = LineModeState {
            bound: Some(ALL_DYNAMIC),
            ..LineModeState::INITIAL
        };
        // Nothing until the application sets a mode (Vulkan requires it before a draw).
        assert_eq!(s.update(), None);
        s.app_mode = Some(M::DEFAULT);
        assert_eq!(s.update(), Some(M::BRESENHAM));
        // Once set, no second call for the same mode.
        assert_eq!(s.update(), None);
        s.alpha_to_coverage = true;
        assert_eq!(s.update(), Some(M::DEFAULT));
        // Multisampled too: the mode the driver has is still the one wanted.
        s.alpha_to_coverage = false;
        s.samples = vk::SampleCountFlags::TYPE_4;
        assert_eq!(s.wanted(), Some(M::DEFAULT));
        assert_eq!(s.update(), None);
        // The application's own choice stays.
        s.samples = vk::SampleCountFlags::TYPE_1;
        s.app_mode = Some(M::RECTANGULAR);
        assert_eq!(s.update(), Some(M::RECTANGULAR));
    }

    #[test]
    fn the_pipelines_static_multisample_state_beats_dynamic_values() {
        let mut s = LineModeState {
            bound: Some(StaticMultisample {
                samples: Some(vk::SampleCountFlags::TYPE_4),
                ..ALL_DYNAMIC
            }),
            app_mode: Some(M::DEFAULT),
            ..LineModeState::INITIAL
        };
        assert_eq!(s.wanted(), Some(M::DEFAULT));
        s.bound = Some(StaticMultisample {
            samples: Some(vk::SampleCountFlags::TYPE_1),
            alpha_to_coverage: Some(false),
            alpha_to_one: Some(false),
        });
        s.alpha_to_coverage = true;
        assert_eq!(s.wanted(), Some(M::BRESENHAM));
        // Not followed: the layer leaves the mode alone.
        s.bound = None;
        assert_eq!(s.wanted(), None);
    }
}

/// A pipeline on GL's fragment line route bound, with the pipeline that draws its start
/// pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundStartPixels {
    pub app: vk::Pipeline,
    pub start_pixels: vk::Pipeline,
    /// Its topology (`None`: dynamic state; only line lists and strips are drawn again).
    pub topology: Option<vk::PrimitiveTopology>,
    /// Its strips count the stipple on.
    pub stipple_counts: Option<StippleCounting>,
}

/// GL's line stipple state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineStipple {
    pub enabled: bool,
    pub factor: u32,
    pub pattern: u16,
}

impl LineStipple {
    /// GL's initial state: disabled, factor 1, pattern 0xFFFF.
    pub const INITIAL: LineStipple = LineStipple {
        enabled: false,
        factor: 1,
        pattern: 0xFFFF,
    };

    /// The factor and pattern as the GL-state block holds them (`line_pattern`).
    pub const fn packed(self) -> u32 {
        self.factor << 16 | self.pattern as u32
    }

    /// The (factor, pattern) a stippled Bresenham pipeline draws GL's state with: a solid
    /// line while the stipple is disabled.
    pub fn effective(self) -> (u32, u16) {
        match self.enabled {
            true => (self.factor, self.pattern),
            false => (1, 0xFFFF),
        }
    }
}

/// GL's initial stipple as the GL-state block holds it.
pub const INITIAL_LINE_PATTERN: u32 = LineStipple::INITIAL.packed();

/// What GL's line rule does when a pipeline is bound: its part of the pipeline's record
/// (`PipelineRecord::lines`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PipelineLines {
    /// Its line mode is dynamic state the layer follows, with the multisample state it fixes.
    pub mode: Option<StaticMultisample>,
    /// A pre-rasterization library whose line mode the layer made dynamic state
    /// (`LineConventions::library_mode`), or a pipeline linked from one: binding it sets
    /// GL's rule, the application having set no mode.
    pub library_mode: bool,
    /// Its static line width, made dynamic state the layer sets at bind (with the line mode
    /// of a pre-rasterization library, `RewriteLines::dynamic_width`), or its libraries'.
    pub width: Option<f32>,
    /// Its last pre-rasterization stage (its own, or that of the pre-rasterization library it
    /// is linked from) sends lines the fragment line route tests: `FLAG_LINE_VARYINGS` at
    /// bind.
    pub varyings: bool,
    /// GL's fragment line route: the pipeline that draws, after each of this one's draws,
    /// the start pixels its rectangles leave out (`commands/draws/line_passes.rs`).
    pub start_pixels: Option<vk::Pipeline>,
    /// Its strips count the stipple on (its own vertex shader's or its libraries').
    pub stipple_counts: Option<StippleCounting>,
}

/// What the layer sets of the bound pipeline's (or shader objects') lines while they are
/// bound (`BoundRecord::lines`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundLines {
    /// The stipple is dynamic state the layer sets (`vkCmdSetLineStippleGLSEM`).
    pub stipple: bool,
    /// The stipple enable is dynamic state the layer sets with the line mode
    /// (`lines::set_stipple_enable`), the pipeline's or its libraries'.
    pub stipple_with_mode: bool,
}

impl PipelineLines {
    /// Whether binding the pipeline sets line state (`bound`: its part of what binding
    /// sets).
    pub fn bind_work(&self, bound: &BoundLines) -> bool {
        bound.stipple || self.mode.is_some() || self.start_pixels.is_some() || self.width.is_some()
    }
}

impl BoundLines {
    /// Nothing of the lines is the layer's.
    pub const NONE: BoundLines = BoundLines {
        stipple: false,
        stipple_with_mode: false,
    };

    /// Shader objects bound in a command buffer of `lines`: the stipple is the layer's
    /// where it sets their line state (`LineConventions::layer_sets_mode`) on stippled
    /// Bresenham lines.
    pub fn of_objects(lines: &CommandBufferLines, conventions: &LineConventions) -> BoundLines {
        BoundLines {
            stipple: lines.objects && conventions.stippled_bresenham,
            stipple_with_mode: false,
        }
    }
}

/// GL's line rule in one command buffer (`CommandBufferState::lines`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandBufferLines {
    /// What decides the line mode where it is dynamic state.
    pub mode: LineModeState,
    /// `glLineStipple` and `GL_LINE_STIPPLE` (`vkCmdSetLineStipple*GLSEM`).
    pub stipple: LineStipple,
    /// Shader objects are bound whose line mode and stipple enable the layer sets
    /// (`lines::bind_object_lines`).
    pub objects: bool,
    /// The bound pipeline has a start-pixel pipeline (`commands/draws/line_passes.rs`).
    pub start_pixels: Option<BoundStartPixels>,
}

impl CommandBufferLines {
    /// GL's initial state, no pipeline bound.
    pub const INITIAL: CommandBufferLines = CommandBufferLines {
        mode: LineModeState::INITIAL,
        stipple: LineStipple::INITIAL,
        objects: false,
        start_pixels: None,
    };
}

//! The device extensions this layer implements, and which of them a device enabled.

use glsem_abi as abi;

/// A device extension this layer implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerExtension {
    /// GL's `glPatchParameterfv` default levels.
    TessellationDefaultLevels,
    /// GL's point, clip and rasterization state and conventions.
    GlState,
}

impl LayerExtension {
    pub const ALL: [LayerExtension; 2] = [
        LayerExtension::TessellationDefaultLevels,
        LayerExtension::GlState,
    ];

    /// Its name, version and commands.
    pub fn abi(self) -> &'static abi::Extension {
        match self {
            LayerExtension::TessellationDefaultLevels => &abi::TESSELLATION_DEFAULT_LEVELS,
            LayerExtension::GlState => &abi::GL_STATE,
        }
    }

    pub fn name(self) -> &'static str {
        self.abi().name
    }
}

/// The layer's extensions a device enabled.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnabledExtensions {
    pub levels: bool,
    pub gl_state: bool,
}

impl EnabledExtensions {
    pub fn has(self, ext: LayerExtension) -> bool {
        match ext {
            LayerExtension::TessellationDefaultLevels => self.levels,
            LayerExtension::GlState => self.gl_state,
        }
    }
}

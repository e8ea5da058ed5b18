//! The registry: every GL semantic glsem implements, in the order their steps run on a
//! stage, with its name in logs and dump files and the setting that turns it off.

pub use crate::rule::Semantic;

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
pub const SEMANTICS: [SemanticInfo; 15] = [
    SemanticInfo {
        semantic: Semantic::PassthroughTcs,
        name: "passthrough_tcs",
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
        semantic: Semantic::FragColor,
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
        semantic: Semantic::ClipEnables,
        name: "clip_enables",
        setting: None,
        needs_gl_state: true,
    },
    SemanticInfo {
        semantic: Semantic::ClipSpaceDepth,
        name: "clip_space_depth",
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
        semantic: Semantic::UnfedInputs,
        name: "unfed_inputs",
        setting: None,
        needs_gl_state: false,
    },
    // On by default: an application naming a format the device lacks has no alternative.
    // The layer's `debug_force_vertex_formats` applies it to formats the device has too.
    SemanticInfo {
        semantic: Semantic::VertexFormats,
        name: "vertex_formats",
        setting: Some(Setting {
            key: "vertex_formats",
            on: "auto",
            off: "off",
        }),
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
        semantic: Semantic::GlLayer,
        name: "gl_layer",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_semantic_is_registered_once() {
        for (i, a) in SEMANTICS.iter().enumerate() {
            assert_eq!(a.semantic.info().name, a.name);
            assert!(SEMANTICS[i + 1..].iter().all(|b| b.semantic != a.semantic));
        }
    }
}

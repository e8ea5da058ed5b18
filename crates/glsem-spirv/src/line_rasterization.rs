//! GL's line rasterization, the diamond-exit rule: pipeline state only
//! (`VK_EXT_line_rasterization`), no shader changes.

use super::rule::{Rule, Semantic, SplitInterface};

/// The step's pipeline state: `VK_LINE_RASTERIZATION_MODE_BRESENHAM`; `stippled`: with
/// `stippledLineEnable` and the stipple as dynamic state, set by the layer from
/// `vkCmdSetLineStippleGLSEM`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BresenhamLines {
    pub stippled: bool,
}

impl Rule for BresenhamLines {
    const SEMANTIC: Semantic = Semantic::LineRasterization;

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        match self.stippled {
            true => "GL's diamond-exit lines (Bresenham), stippled by the layer",
            false => "GL's diamond-exit lines (Bresenham)",
        }
        .into()
    }
}

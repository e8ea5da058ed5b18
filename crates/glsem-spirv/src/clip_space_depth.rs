//! GL's clip-space depth in the last pre-rasterization stage, for drivers without
//! `VK_EXT_depth_clip_control`.
//!
//! GL's clip volume is −w ≤ z ≤ w, Vulkan's 0 ≤ z ≤ w. Before every exit the pass maps
//! `gl_Position.z` to `(z + w) / 2`, so that Vulkan clips and computes depth as GL does.
//! A `gl_Position` captured by transform feedback would capture the remapped value, so
//! such a shader is refused (the layer keeps Vulkan's depth convention for it and says so).

use spirv::{BuiltIn, Decoration};

use super::builtin_output::{self, BuiltinOutput};
use super::error::{PassError, PassResult};
use super::exits::rasterized_exits;
use super::module::{Editor, Module};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// Remaps `gl_Position.z` of `entry`. `Ok(None)` when the stage writes no `gl_Position`.
pub fn remap_clip_depth(words: &[u32], entry: &str) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let Some(out) = builtin_output::find(&m, ep, BuiltIn::Position) else {
        return Ok(None);
    };
    let captured = match out {
        BuiltinOutput::Member { var, member, .. } => {
            m.has_decoration(var, Decoration::XfbBuffer)
                && m.variable(var).is_some_and(|(_, block)| {
                    m.member_decorations_of(block, member)
                        .any(|(d, _)| d == Decoration::Offset)
                })
        }
        BuiltinOutput::Variable { var, .. } => m.has_decoration(var, Decoration::Offset),
    };
    if captured {
        return Err(PassError::Unsupported(
            "gl_Position is captured by transform feedback; remapping its depth would change \
             what is captured"
                .into(),
        ));
    }
    let vec4 = out.ty();
    let float = builtin_output::position_component(&m, vec4)?;

    let mut e = Editor::new(&m);
    let half = e.constant_f32(0.5);
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        let ptr = out.pointer(&mut e, &mut code, vec4, None);
        let position = e.load(&mut code, vec4, ptr);
        let z = e.composite_extract(&mut code, float, position, &[2]);
        let w = e.composite_extract(&mut code, float, position, &[3]);
        let sum = e.f_add(&mut code, float, z, w);
        let mapped = e.f_mul(&mut code, float, sum, half);
        let remapped = e.composite_insert(&mut code, vec4, mapped, position, &[2]);
        e.store(&mut code, ptr, remapped);
        e.insert_before(exit.index, &code);
    }
    Ok(Some(e.finish()?))
}

/// The step: `stage` maps GL's clip-space depth onto Vulkan's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RemapClipDepth {
    pub stage: Stage,
}

impl Rule for RemapClipDepth {
    const SEMANTIC: Semantic = Semantic::ClipSpaceDepth;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "GL's clip-space depth (z' = (z + w) / 2) in the {}",
            self.stage
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        remap_clip_depth(words, entry)
    }
}

/// The step on devices with `VK_EXT_depth_clip_control`: pipeline state,
/// `negativeOneToOne` depth clip control, instead of [`RemapClipDepth`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NegativeOneToOneDepth;

impl Rule for NegativeOneToOneDepth {
    const SEMANTIC: Semantic = Semantic::ClipSpaceDepth;
    const NOTE: &'static str = "GL's clip-space depth (negativeOneToOne)";
}

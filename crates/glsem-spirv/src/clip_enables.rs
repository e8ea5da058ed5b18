//! GL's clip-distance enables in the last pre-rasterization stage.
//!
//! GL clips against `gl_ClipDistance[i]` only while `GL_CLIP_DISTANCEi` is enabled ("values
//! written into gl_ClipDistance for planes that are not enabled have no effect"); Vulkan
//! clips against every element of the declared array. Before every exit, the pass replaces
//! each element whose plane is disabled in the GL-state block's flags by 1.0, which clips
//! nothing. Elements past the eight planes the flags can enable are always disabled.
//! Transform feedback captures the shader's distances, enabled or not (GL 4.6 §13.3): a
//! captured `gl_ClipDistance` is captured from a copy of the shader's values.

use spirv::BuiltIn;

use super::builtin_output::{self, array_length};
use super::error::{PassError, PassResult};
use super::exits::rasterized_exits;
use super::gl_state::{flag_clip_distance, StateReader, CLIP_DISTANCE_FLAGS};
use super::module::{Editor, Module, Type};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// Gates the clip distances `entry` writes by the plane enables of the GL-state block at
/// `block_offset`. `Ok(None)` when the shader writes no clip distance.
pub fn gate_clip_distances(words: &[u32], entry: &str, block_offset: u32) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let Some(out) = builtin_output::find(&m, ep, BuiltIn::ClipDistance) else {
        return Ok(None);
    };
    if !builtin_output::is_written(&m, ep, &out) {
        return Ok(None);
    }
    let (element, length) = array_length(&m, out.ty())
        .filter(|&(element, _)| m.type_of(element) == Some(&Type::Float { width: 32 }))
        .ok_or(PassError::BuiltinType {
            builtin: "gl_ClipDistance",
            expected: "an array of 32-bit floats",
        })?;

    let mut e = Editor::new(&m);
    let state = StateReader::find_or_declare(&m, &mut e, ep, block_offset)?;
    let one = e.constant_f32(1.0);
    let captured = builtin_output::capture_of(&m, &out)
        .map(|c| c.keep_apart(words, ep, &mut e, out.ty(), "glsem_captured_clip_distance"));
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        if let Some(capture) = captured {
            let whole = out.pointer(&mut e, &mut code, out.ty(), None);
            let shader_value = e.load(&mut code, out.ty(), whole);
            e.store(&mut code, capture, shader_value);
        }
        for i in 0..length {
            let ptr = out.pointer(&mut e, &mut code, element, Some(i));
            let value = if i < CLIP_DISTANCE_FLAGS {
                let flag = flag_clip_distance(i);
                state.written_if_flag(&mut e, &mut code, flag, element, ptr, one)
            } else {
                one
            };
            e.store(&mut code, ptr, value);
        }
        e.insert_before(exit.index, &code);
    }
    let declared: Vec<u32> = state.declared.into_iter().collect();
    let new_outputs: Vec<u32> = captured.into_iter().collect();
    e.extend_interface(ep, &new_outputs, &declared);
    Ok(Some(e.finish()?))
}

/// The step: the clip distances `stage` writes follow GL's plane enables in the GL-state
/// block at `block_offset`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GateClipDistances {
    pub stage: Stage,
    pub block_offset: u32,
}

impl Rule for GateClipDistances {
    const SEMANTIC: Semantic = Semantic::ClipEnables;
    const READS_BLOCK: bool = true;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "clip distances of the {} follow GL's plane enables",
            self.stage
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        gate_clip_distances(words, entry, self.block_offset)
    }
}

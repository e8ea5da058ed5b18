//! GL's `gl_Layer` on a framebuffer that is not layered.
//!
//! GL 3.2 core §4.4.7: "A layer number written by a geometry shader has no effect if the
//! framebuffer is not layered"; Vulkan leaves a layer at or past the framebuffer's layer
//! count undefined. Before every exit that reaches the rasterizer, the pass writes
//! `layered ? gl_Layer : 0`, `layered` being the GL-state block's flag the layer sets at
//! render-pass begin (zink's `clamp_layer_output`, ANGLE's `ClampGLLayer`).

use spirv::BuiltIn;

use super::builtin_output;
use super::exits::rasterized_exits;
use super::gl_state::{StateReader, FLAG_LAYERED};
use super::module::{Editor, Module, Type};
use super::{PassError, PassResult};

/// Gates the layer `entry` writes by the `layered` flag of the GL-state block at
/// `block_offset`. `Ok(None)` when the shader writes no layer.
pub fn gate_layer(words: &[u32], entry: &str, block_offset: u32) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let Some(out) = builtin_output::find(&m, ep, BuiltIn::Layer) else {
        return Ok(None);
    };
    if !builtin_output::is_written(&m, ep, &out) {
        return Ok(None);
    }
    let Some(Type::Int { width: 32, signed }) = m.type_of(out.ty()).cloned() else {
        return Err(PassError::Unsupported(
            "gl_Layer is not a 32-bit integer".into(),
        ));
    };

    let mut e = Editor::new(&m);
    let state = StateReader::find_or_declare(&m, &mut e, ep, block_offset)?;
    let zero = if signed {
        e.constant_i32(0)
    } else {
        e.constant_u32(0)
    };
    let ty = out.ty();
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        let ptr = out.pointer(&mut e, &mut code, ty, None);
        let layered = state.flag_set(&mut e, &mut code, FLAG_LAYERED);
        let written = e.load(&mut code, ty, ptr);
        let gated = e.select(&mut code, ty, layered, written, zero);
        e.store(&mut code, ptr, gated);
        e.insert_before(exit.index, &code);
    }
    let declared: Vec<u32> = state.declared.into_iter().collect();
    e.extend_interface(ep, &[], &declared);
    Ok(Some(e.finish()?))
}

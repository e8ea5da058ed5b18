//! GL's `gl_Layer` on a framebuffer that is not layered.
//!
//! GL 3.2 core §4.4.7: "A layer number written by a geometry shader has no effect if the
//! framebuffer is not layered"; Vulkan leaves a layer at or past the framebuffer's layer
//! count undefined. Before every exit that reaches the rasterizer, the pass writes
//! `layered ? gl_Layer : 0`, `layered` being the GL-state block's flag the layer sets at
//! render-pass begin (zink's `clamp_layer_output`, ANGLE's `ClampGLLayer`).
//!
//! The fragment shader's `gl_Layer` still reads the layer the shader wrote, layered target
//! or not (GLSL 4.30 §7.1.5, ARB_fragment_layer_viewport). Where the pipeline's fragment
//! shader reads it, the stage also writes the unclamped value to a flat output at a free
//! Location, and the fragment shader's `Layer` input becomes an input at that Location
//! (zink does the same).

use spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass};

use super::builtin_output;
use super::error::{PassError, PassResult};
use super::exits::rasterized_exits;
use super::gl_state::{StateReader, FLAG_LAYERED};
use super::module::{Editor, Module, Type};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// Gates the layer `entry` writes by the `layered` flag of the GL-state block at
/// `block_offset` (`None`: the stage cannot read the block, no gate); with `copy_to`, also
/// writes the layer as written (0 where the shader declares or writes none) to a new flat
/// output at that Location. `Ok(None)` when there is nothing to gate and no copy is asked
/// for.
pub fn gate_layer(
    words: &[u32],
    entry: &str,
    block_offset: Option<u32>,
    copy_to: Option<u32>,
) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let out = builtin_output::find(&m, ep, BuiltIn::Layer);
    let written = out
        .as_ref()
        .is_some_and(|out| builtin_output::is_written(&m, ep, out));
    let gate = block_offset.filter(|_| written);
    if gate.is_none() && copy_to.is_none() {
        return Ok(None);
    }
    let mut e = Editor::new(&m);
    let (ty, signed) = match &out {
        Some(out) => match m.type_of(out.ty()) {
            Some(&Type::Int { width: 32, signed }) => (out.ty(), signed),
            _ => {
                return Err(PassError::Unsupported(
                    "gl_Layer is not a 32-bit integer".into(),
                ))
            }
        },
        None => (e.type_int(32, true), true),
    };
    let zero = if signed {
        e.constant_i32(0)
    } else {
        e.constant_u32(0)
    };
    let copy = copy_to.map(|location| {
        let var = e.add_variable(StorageClass::Output, ty);
        e.decorate(var, Decoration::Location, &[location]);
        e.decorate(var, Decoration::Flat, &[]);
        var
    });
    // An unwritten layer is layer 0 already: only the copy needs writing.
    let state = match gate {
        Some(block_offset) => Some(StateReader::find_or_declare(&m, &mut e, ep, block_offset)?),
        None => None,
    };
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        let value = match (&out, written) {
            (Some(out), true) => {
                let ptr = out.pointer(&mut e, &mut code, ty, None);
                let written = e.load(&mut code, ty, ptr);
                if let Some(state) = &state {
                    let layered = state.flag_set(&mut e, &mut code, FLAG_LAYERED);
                    let gated = e.select(&mut code, ty, layered, written, zero);
                    e.store(&mut code, ptr, gated);
                }
                written
            }
            _ => zero,
        };
        if let Some(copy) = copy {
            e.store(&mut code, copy, value);
        }
        e.insert_before(exit.index, &code);
    }
    let declared: Vec<u32> = state.into_iter().flat_map(|s| s.declared).collect();
    e.extend_interface(ep, &Vec::from_iter(copy), &declared);
    Ok(Some(e.finish()?))
}

/// Makes the fragment entry point `entry`'s `Layer` input read the previous stage's copy
/// at `location` (see [`gate_layer`]): the built-in decoration becomes that Location, and
/// the input is flat. `Ok(None)` when the entry point does not read the layer.
pub fn read_layer_from(words: &[u32], entry: &str, location: u32) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let Some((var, pointee)) = m
        .builtin_variables(ep, StorageClass::Input, BuiltIn::Layer)
        .next()
    else {
        return Ok(None);
    };
    if !matches!(m.type_of(pointee), Some(Type::Int { width: 32, .. })) {
        return Err(PassError::Unsupported(
            "gl_Layer is not a 32-bit integer".into(),
        ));
    }
    let decoration = m.insts.iter().position(|i| {
        i.op() == Some(Op::Decorate)
            && i.operands().len() >= 3
            && i.operand(0) == var
            && i.operand(1) == Decoration::BuiltIn as u32
            && i.operand(2) == BuiltIn::Layer as u32
    });
    let Some(decoration) = decoration else {
        return Ok(None);
    };

    let mut e = Editor::new(&m);
    e.redecorate(decoration, var, Decoration::Location, &[location]);
    if !m.has_decoration(var, Decoration::Flat) {
        e.decorate(var, Decoration::Flat, &[]);
    }
    Ok(Some(e.finish()?))
}

/// The step: `stage`'s `gl_Layer` counts only when the GL-state block (at `block_offset`)
/// says the target is layered; with `copy_to`, the stage also writes the layer as written
/// there for the fragment shader ([`ReadLayerFrom`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GateLayer {
    pub stage: Stage,
    pub block_offset: u32,
    pub copy_to: Option<u32>,
}

impl Rule for GateLayer {
    const SEMANTIC: Semantic = Semantic::GlLayer;
    const READS_BLOCK: bool = true;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        match self.copy_to {
            None => format!(
                "gl_Layer of the {} counts only on layered targets",
                self.stage
            ),
            Some(location) => format!(
                "gl_Layer of the {} counts only on layered targets; the layer as written goes \
                 to Location {location} for the fragment shader",
                self.stage
            ),
        }
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        gate_layer(words, entry, Some(self.block_offset), self.copy_to)
    }
}

/// The step without the GL-state block: `stage` writes its layer as written (0 where it
/// writes none) at `location`, ungated, for a fragment shader made apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CopyLayer {
    pub stage: Stage,
    pub location: u32,
}

impl Rule for CopyLayer {
    const SEMANTIC: Semantic = Semantic::GlLayer;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "the layer the {} writes goes to Location {} for the fragment shader",
            self.stage, self.location
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        gate_layer(words, entry, None, Some(self.location))
    }
}

/// The step on the fragment side: its `gl_Layer` reads the previous stage's copy at
/// `location`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadLayerFrom {
    pub location: u32,
}

impl Rule for ReadLayerFrom {
    const SEMANTIC: Semantic = Semantic::GlLayer;
    const STAGE: Option<Stage> = Some(Stage::Fragment);

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        format!(
            "fragment shader's gl_Layer read from Location {}",
            self.location
        )
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        read_layer_from(words, entry, self.location)
    }
}

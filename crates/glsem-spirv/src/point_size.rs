//! GL's point size in the last pre-rasterization stage.
//!
//! GL draws points `glPointSize` pixels wide (1.0 initially) unless `GL_PROGRAM_POINT_SIZE`
//! is enabled and the shader writes `gl_PointSize`. Vulkan takes the size from `PointSize`
//! alone, which must be written whenever points are rasterized (the shaders of GL programs
//! rarely write it). The pass writes it before every exit:
//! - [`PointSizeSource::Default`]: GL's initial 1.0, only when the shader writes none;
//! - [`PointSizeSource::GlState`]: GL's whole rule, from the GL-state push block:
//!   `program_point_size && shader wrote it ? gl_PointSize : point_size`.
//!
//! Transform feedback captures the shader's `gl_PointSize` whatever GL rasterizes (GL 4.6
//! §13.3): where the shader's `gl_PointSize` is captured and GL's size overwrites it, the
//! capture moves to an output of its own (the same buffer, stride, offset and stream, at a
//! Location past the stage's outputs) that keeps the shader's value.

use spirv::{BuiltIn, Capability, Decoration, ExecutionModel, StorageClass};

use super::builtin_output::{self, BuiltinOutput};
use super::error::{PassError, PassResult};
use super::exits::rasterized_exits;
use super::gl_state::{StateReader, FLAG_PROGRAM_POINT_SIZE};
use super::module::{Editor, Module};
use super::rule::{Rule, Semantic, SplitInterface, Stage};

/// Where the size comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointSizeSource {
    /// GL's initial state (size 1.0, program point size off), for shaders that write none.
    Default,
    /// The GL-state block at this push-constant offset.
    GlState { block_offset: u32 },
}

/// Writes GL's point size into `entry` (a vertex, tessellation evaluation or geometry
/// shader). `Ok(None)` when GL's rule already holds: the shader writes `gl_PointSize` and
/// the size is GL's default.
pub fn write_point_size(words: &[u32], entry: &str, source: PointSizeSource) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let existing = builtin_output::find(&m, ep, BuiltIn::PointSize);
    let written = existing.is_some_and(|out| builtin_output::is_written(&m, ep, &out));
    if written && source == PointSizeSource::Default {
        return Ok(None);
    }

    let mut e = Editor::new(&m);
    let float = e.type_float(32);
    let mut new_outputs = Vec::new();
    let out = match existing {
        Some(out) => {
            if !is_f32(&m, out.ty()) {
                return Err(PassError::BuiltinType {
                    builtin: "gl_PointSize",
                    expected: "a 32-bit float",
                });
            }
            out
        }
        None => {
            let var = e.add_variable(StorageClass::Output, float);
            e.decorate(var, Decoration::BuiltIn, &[BuiltIn::PointSize as u32]);
            e.name(var, "gl_PointSize");
            new_outputs.push(var);
            BuiltinOutput::Variable { var, ty: float }
        }
    };
    match ep.model {
        ExecutionModel::TessellationEvaluation => {
            e.add_capability(Capability::TessellationPointSize)
        }
        ExecutionModel::Geometry => e.add_capability(Capability::GeometryPointSize),
        _ => {}
    }
    let state = match source {
        PointSizeSource::Default => None,
        PointSizeSource::GlState { block_offset } => {
            Some(StateReader::find_or_declare(&m, &mut e, ep, block_offset)?)
        }
    };

    let one = state.is_none().then(|| e.constant_f32(1.0));
    let captured = match state {
        Some(_) => builtin_output::capture_of(&m, &out)
            .map(|c| c.keep_apart(words, ep, &mut e, float, "glsem_captured_point_size")),
        None => None,
    };
    new_outputs.extend(captured);
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        let ptr = out.pointer(&mut e, &mut code, float, None);
        if let Some(capture) = captured {
            let shader_value = e.load(&mut code, float, ptr);
            e.store(&mut code, capture, shader_value);
        }
        let size = match (&state, one) {
            (None, Some(one)) => one,
            (None, None) => unreachable!("the constant exists without state"),
            (Some(state), _) => {
                let state_size = state.point_size(&mut e, &mut code);
                if written {
                    state.written_if_flag(
                        &mut e,
                        &mut code,
                        FLAG_PROGRAM_POINT_SIZE,
                        float,
                        ptr,
                        state_size,
                    )
                } else {
                    state_size
                }
            }
        };
        e.store(&mut code, ptr, size);
        e.insert_before(exit.index, &code);
    }
    let declared: Vec<u32> = state.iter().filter_map(|s| s.declared).collect();
    e.extend_interface(ep, &new_outputs, &declared);
    Ok(Some(e.finish()?))
}

fn is_f32(m: &Module<'_>, ty: u32) -> bool {
    m.type_of(ty) == Some(&super::module::Type::Float { width: 32 })
}

/// The step: `stage` writes GL's point size from `source`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WritePointSize {
    pub stage: Stage,
    pub source: PointSizeSource,
}

impl Rule for WritePointSize {
    const SEMANTIC: Semantic = Semantic::PointSize;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, _split: Option<&SplitInterface>) -> String {
        match self.source {
            PointSizeSource::Default => {
                format!("GL's default point size 1.0 written by the {}", self.stage)
            }
            PointSizeSource::GlState { block_offset } => format!(
                "GL's point size state (push-constant offset {block_offset}) written by the {}",
                self.stage
            ),
        }
    }

    fn reads_block(&self) -> bool {
        matches!(self.source, PointSizeSource::GlState { .. })
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        write_point_size(words, entry, self.source)
    }
}

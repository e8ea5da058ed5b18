//! GL's window y in a fragment shader (`window_origin`, docs/architecture.md).
//!
//! GL's window coordinates count y up from the bottom row; Vulkan's framebuffer counts down
//! from the top. With a **flipped** (negative) viewport GL's bottom row is the framebuffer's
//! last, so `gl_FragCoord.y` becomes `H - y` (`H`, the viewport's `y`, from the GL-state
//! block), and `dFdy`, `dFdyFine`, `dFdyCoarse` and the y of `interpolateAtOffset`'s
//! offset change sign, and `gl_SamplePosition.y` (within the pixel, GL's counting up)
//! becomes `1 - y` (as Mesa's `nir_lower_wpos_ytransform` does). `gl_PointCoord.t` counts
//! from the framebuffer's top in Vulkan; GL counts it from the top unless `GL_POINT_SPRITE_COORD_ORIGIN` is `GL_LOWER_LEFT` (a flag
//! of the block). With a flipped viewport GL's top is the framebuffer's top: `t` becomes
//! `1 - t` for the lower-left origin; with a **lower-left** (positive) viewport GL's top is
//! the framebuffer's bottom: `t` becomes `1 - t` for the upper-left origin.
//!
//! The built-ins are fixed where they are loaded: a load of the whole vector, or of its `y`
//! through an access chain with a constant index.

use spirv::{BuiltIn, ExecutionModel, Op, StorageClass};

use super::error::{PassError, PassResult};
use super::gl_state::{StateReader, FLAG_POINT_SPRITE_LOWER_LEFT};
use super::module::{decode_string, Editor, EntryPoint, Module};
use super::rule::{Rule, Semantic, Stage};

/// `GLSL.std.450` `InterpolateAtOffset`.
const INTERPOLATE_AT_OFFSET: u32 = 78;

/// How GL's window maps onto the framebuffer, and where the GL-state block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WindowYKey {
    /// A negative viewport (`window_origin = flipped`); else a positive one (`lower_left`).
    pub flipped: bool,
    pub block_offset: u32,
}

/// A built-in input whose `y` the pass replaces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fixed {
    FragCoord,
    PointCoord,
    SamplePosition,
}

/// Gives `entry` GL's window y under `key`. `Ok(None)` when it reads none.
pub fn fix_window_y(words: &[u32], entry: &str, key: WindowYKey) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let inputs = fixed_inputs(&m, ep, key);
    let glsl = glsl_import(&m);
    let mut e = Editor::new(&m);
    let mut state: Option<StateReader> = None;
    let mut changed = false;
    // Access chains into a fixed built-in: result id → (built-in, constant index).
    let mut chains: Vec<(u32, Fixed, u32)> = Vec::new();
    for index in m.call_tree_insts(ep.function) {
        let inst = m.insts.at(index);
        let ops = inst.operands();
        let code = match inst.op() {
            Some(Op::AccessChain | Op::InBoundsAccessChain) if ops.len() >= 3 => {
                chains.extend(fixed_chain(&m, &inputs, ops)?);
                continue;
            }
            Some(Op::Load) if ops.len() >= 3 => {
                let pointer = ops[2];
                let whole = inputs.iter().find(|(id, _)| *id == pointer).map(|x| x.1);
                let y = chains
                    .iter()
                    .find(|(id, _, c)| *id == pointer && *c == 1)
                    .map(|x| x.1);
                let Some(fixed) = whole.or(y) else { continue };
                if state.is_none() {
                    state = Some(StateReader::find_or_declare(
                        &m,
                        &mut e,
                        ep,
                        key.block_offset,
                    )?);
                }
                let Some(reader) = &state else { continue };
                fixed_load(&mut e, reader, ops, fixed, whole.is_some(), key.flipped)
            }
            Some(op @ (Op::DPdy | Op::DPdyFine | Op::DPdyCoarse))
                if key.flipped && ops.len() >= 3 =>
            {
                negated_derivative(&mut e, op, ops)
            }
            Some(Op::ExtInst)
                if key.flipped
                    && ops.len() >= 6
                    && Some(ops[2]) == glsl
                    && ops[3] == INTERPOLATE_AT_OFFSET =>
            {
                flipped_offset(&mut e, ops)
            }
            _ => continue,
        };
        e.replace(index, code);
        changed = true;
    }
    if !changed {
        return Ok(None);
    }
    if let Some(declared) = state.and_then(|s| s.declared) {
        e.extend_interface(ep, &[], &[declared]);
    }
    Ok(Some(e.finish()?))
}

/// The built-in inputs of `ep` whose `y` the pass replaces under `key`.
fn fixed_inputs(m: &Module, ep: &EntryPoint, key: WindowYKey) -> Vec<(u32, Fixed)> {
    [
        (BuiltIn::FragCoord, Fixed::FragCoord, key.flipped),
        (BuiltIn::PointCoord, Fixed::PointCoord, true),
        (BuiltIn::SamplePosition, Fixed::SamplePosition, key.flipped),
    ]
    .into_iter()
    .filter(|&(_, _, fixed)| fixed)
    .flat_map(|(builtin, fixed, _)| {
        m.builtin_variables(ep, StorageClass::Input, builtin)
            .map(move |(var, _)| (var, fixed))
    })
    .collect()
}

/// The id of the module's `GLSL.std.450` import, if any.
fn glsl_import(m: &Module) -> Option<u32> {
    m.insts
        .iter()
        .find(|i| {
            i.op() == Some(Op::ExtInstImport)
                && decode_string(i.operands().get(1..).unwrap_or(&[])).0 == "GLSL.std.450"
        })
        .map(|i| i.operand(0))
}

/// An access chain `ops` into a fixed built-in: (result id, built-in, constant index).
fn fixed_chain(
    m: &Module,
    inputs: &[(u32, Fixed)],
    ops: &[u32],
) -> Result<Option<(u32, Fixed, u32)>, PassError> {
    let Some(&(_, fixed)) = inputs.iter().find(|(id, _)| *id == ops[2]) else {
        return Ok(None);
    };
    let component = ops
        .get(3)
        .and_then(|&c| m.constant_u32(c))
        .filter(|_| ops.len() == 4)
        .ok_or_else(|| {
            PassError::Unsupported("a window-coordinate built-in indexed by a non-constant".into())
        })?;
    Ok(Some((ops[1], fixed, component)))
}

/// The load `ops` of a fixed built-in (the `whole` vector, or its `y`) with GL's `y`.
fn fixed_load(
    e: &mut Editor,
    reader: &StateReader,
    ops: &[u32],
    fixed: Fixed,
    whole: bool,
    flipped: bool,
) -> Vec<u32> {
    let (ty, result) = (ops[0], ops[1]);
    let mut code = Vec::new();
    let loaded = e.load_with_access(&mut code, ty, ops[2], &ops[3..]);
    let float = e.type_float(32);
    let old_y = if whole {
        e.composite_extract(&mut code, float, loaded, &[1])
    } else {
        loaded
    };
    let new_y = match fixed {
        Fixed::FragCoord => {
            let height = reader.window_height(e, &mut code);
            e.binary(&mut code, Op::FSub, float, height, old_y)
        }
        Fixed::SamplePosition => {
            let one = e.constant_f32(1.0);
            e.binary(&mut code, Op::FSub, float, one, old_y)
        }
        Fixed::PointCoord => {
            let lower_left = reader.flag_set(e, &mut code, FLAG_POINT_SPRITE_LOWER_LEFT);
            let one = e.constant_f32(1.0);
            let flipped_y = e.binary(&mut code, Op::FSub, float, one, old_y);
            // Flipped viewport: GL's top is the framebuffer's; lower left: its bottom.
            let (when_set, when_clear) = if flipped {
                (flipped_y, old_y)
            } else {
                (old_y, flipped_y)
            };
            e.select(&mut code, float, lower_left, when_set, when_clear)
        }
    };
    if whole {
        e.composite_insert_as(&mut code, ty, result, new_y, loaded, &[1]);
    } else {
        e.unary_as(&mut code, Op::CopyObject, ty, result, new_y);
    }
    code
}

/// A `dFdy*` (`op`, operands `ops`) with its sign changed.
fn negated_derivative(e: &mut Editor, op: Op, ops: &[u32]) -> Vec<u32> {
    let (ty, result) = (ops[0], ops[1]);
    let mut code = Vec::new();
    let derivative = e.unary(&mut code, op, ty, ops[2]);
    e.unary_as(&mut code, Op::FNegate, ty, result, derivative);
    code
}

/// An `interpolateAtOffset` (operands `ops`) with the offset's `y` negated.
fn flipped_offset(e: &mut Editor, ops: &[u32]) -> Vec<u32> {
    // GLSL's offset is a 32-bit float vec2.
    let (ty, result, offset) = (ops[0], ops[1], ops[5]);
    let float = e.type_float(32);
    let vec2 = e.type_vector(float, 2);
    let mut code = Vec::new();
    let y = e.composite_extract(&mut code, float, offset, &[1]);
    let negated = e.unary(&mut code, Op::FNegate, float, y);
    let flipped = e.composite_insert(&mut code, vec2, negated, offset, &[1]);
    let mut operands = ops[2..].to_vec();
    operands[3] = flipped;
    e.ext_inst_as(&mut code, ty, result, &operands);
    code
}

/// The step: GL's window y in the fragment shader (`gl_FragCoord`, `dFdy`,
/// `interpolateAtOffset`, `gl_PointCoord`).
impl Rule for WindowYKey {
    const SEMANTIC: Semantic = Semantic::WindowOrigin;
    const STAGE: Option<Stage> = Some(Stage::Fragment);
    const NOTE: &'static str = "GL's window y in the fragment shader";
    const OWN_NAME: Option<&'static str> = Some("window_y");
    const READS_BLOCK: bool = true;

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        fix_window_y(words, entry, *self)
    }
}

/// The step's pipeline state: `VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT`, GL's domain
/// origin.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TessellationDomainLowerLeft;

impl Rule for TessellationDomainLowerLeft {
    const SEMANTIC: Semantic = Semantic::WindowOrigin;
    const NOTE: &'static str = "GL's tessellation domain origin (LOWER_LEFT)";
}

/// The step's pipeline state: the front face inverted (a positive viewport turns the
/// winding over).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InvertFrontFace;

impl Rule for InvertFrontFace {
    const SEMANTIC: Semantic = Semantic::WindowOrigin;
    const NOTE: &'static str = "front face inverted for GL's window coordinates";
}

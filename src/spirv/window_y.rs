//! GL's window y in a fragment shader (`window_origin`, docs/architecture.md).
//!
//! GL's window coordinates count y up from the bottom row; Vulkan's framebuffer counts down
//! from the top. With a **flipped** (negative) viewport GL's bottom row is the framebuffer's
//! last, so `gl_FragCoord.y` becomes `H - y` (`H`, the viewport's `y`, from the GL-state
//! block), and `dFdy`, `dFdyFine`, `dFdyCoarse` and the y of `interpolateAtOffset`'s
//! offset change sign. `gl_PointCoord.t` counts from the framebuffer's top in Vulkan; GL
//! counts it from the top unless `GL_POINT_SPRITE_COORD_ORIGIN` is `GL_LOWER_LEFT` (a flag
//! of the block). With a flipped viewport GL's top is the framebuffer's top: `t` becomes
//! `1 - t` for the lower-left origin; with a **lower-left** (positive) viewport GL's top is
//! the framebuffer's bottom: `t` becomes `1 - t` for the upper-left origin.
//!
//! The built-ins are fixed where they are loaded: a load of the whole vector, or of its `y`
//! through an access chain with a constant index.

use spirv::{BuiltIn, Decoration, ExecutionModel, Op, StorageClass};

use super::gl_state::{StateReader, FLAG_POINT_SPRITE_LOWER_LEFT};
use super::module::{decode_string, push_inst, Editor, Module};
use super::{PassError, PassResult};

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
}

/// Gives `entry` GL's window y under `key`. `Ok(None)` when it reads none.
pub fn fix_window_y(words: &[u32], entry: &str, key: WindowYKey) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let builtin_of = |id: u32| {
        let (storage, _) = m.variable(id)?;
        let builtin = m.decoration(id, Decoration::BuiltIn)?.first().copied()?;
        match (storage, builtin) {
            (StorageClass::Input, b) if b == BuiltIn::FragCoord as u32 && key.flipped => {
                Some(Fixed::FragCoord)
            }
            (StorageClass::Input, b) if b == BuiltIn::PointCoord as u32 => Some(Fixed::PointCoord),
            _ => None,
        }
    };
    let inputs: Vec<(u32, Fixed)> = ep
        .interface
        .iter()
        .filter_map(|&id| Some((id, builtin_of(id)?)))
        .collect();
    let glsl = m
        .insts
        .iter()
        .find(|i| {
            i.op() == Some(Op::ExtInstImport)
                && decode_string(i.operands().get(1..).unwrap_or(&[])).0 == "GLSL.std.450"
        })
        .map(|i| i.operand(0));

    let mut e = Editor::new(&m);
    let mut state: Option<StateReader> = None;
    let mut changed = false;
    for function in m.call_tree(ep.function) {
        let Some(range) = m.function_range(function) else {
            continue;
        };
        // Access chains into a fixed built-in: result id → (built-in, constant index).
        let mut chains: Vec<(u32, Fixed, u32)> = Vec::new();
        for index in range.0..range.1 {
            let inst = &m.insts[index];
            let ops = inst.operands();
            match inst.op() {
                Some(Op::AccessChain | Op::InBoundsAccessChain) if ops.len() >= 3 => {
                    let Some(&(_, fixed)) = inputs.iter().find(|(id, _)| *id == ops[2]) else {
                        continue;
                    };
                    let component = ops
                        .get(3)
                        .and_then(|&c| m.constant_u32(c))
                        .filter(|_| ops.len() == 4)
                        .ok_or_else(|| {
                            PassError::Unsupported(
                                "a window-coordinate built-in indexed by a non-constant".into(),
                            )
                        })?;
                    chains.push((ops[1], fixed, component));
                }
                Some(Op::Load) if ops.len() >= 3 => {
                    let (ty, result, pointer) = (ops[0], ops[1], ops[2]);
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
                    let mut code = Vec::new();
                    let loaded = e.new_id();
                    let mut rest = ops.to_vec();
                    rest[1] = loaded;
                    push_inst(&mut code, Op::Load, &rest);
                    let float = e.type_float(32);
                    let old_y = if whole.is_some() {
                        let y = e.new_id();
                        push_inst(&mut code, Op::CompositeExtract, &[float, y, loaded, 1]);
                        y
                    } else {
                        loaded
                    };
                    let new_y = e.new_id();
                    match fixed {
                        Fixed::FragCoord => {
                            let height = reader.window_height(&mut e, &mut code);
                            push_inst(&mut code, Op::FSub, &[float, new_y, height, old_y]);
                        }
                        Fixed::PointCoord => {
                            let lower_left =
                                reader.flag_set(&mut e, &mut code, FLAG_POINT_SPRITE_LOWER_LEFT);
                            let (one, flipped_y) = (e.constant_f32(1.0), e.new_id());
                            push_inst(&mut code, Op::FSub, &[float, flipped_y, one, old_y]);
                            // Flipped viewport: GL's top is the framebuffer's; lower left:
                            // its bottom.
                            let (when_set, when_clear) = if key.flipped {
                                (flipped_y, old_y)
                            } else {
                                (old_y, flipped_y)
                            };
                            push_inst(
                                &mut code,
                                Op::Select,
                                &[float, new_y, lower_left, when_set, when_clear],
                            );
                        }
                    }
                    if whole.is_some() {
                        push_inst(
                            &mut code,
                            Op::CompositeInsert,
                            &[ty, result, new_y, loaded, 1],
                        );
                    } else {
                        push_inst(&mut code, Op::CopyObject, &[ty, result, new_y]);
                    }
                    e.replace(index, code);
                    changed = true;
                }
                Some(Op::DPdy | Op::DPdyFine | Op::DPdyCoarse) if key.flipped && ops.len() >= 3 => {
                    let (ty, result) = (ops[0], ops[1]);
                    let mut code = Vec::new();
                    let derivative = e.new_id();
                    let mut operands = ops.to_vec();
                    operands[1] = derivative;
                    push_inst(&mut code, inst.op().unwrap_or(Op::DPdy), &operands);
                    push_inst(&mut code, Op::FNegate, &[ty, result, derivative]);
                    e.replace(index, code);
                    changed = true;
                }
                Some(Op::ExtInst)
                    if key.flipped
                        && ops.len() >= 6
                        && Some(ops[2]) == glsl
                        && ops[3] == INTERPOLATE_AT_OFFSET =>
                {
                    // GLSL's offset is a 32-bit float vec2.
                    let offset = ops[5];
                    let float = e.type_float(32);
                    let vec2 = e.type_vector(float, 2);
                    let (y, negated, flipped) = (e.new_id(), e.new_id(), e.new_id());
                    let mut code = Vec::new();
                    push_inst(&mut code, Op::CompositeExtract, &[float, y, offset, 1]);
                    push_inst(&mut code, Op::FNegate, &[float, negated, y]);
                    push_inst(
                        &mut code,
                        Op::CompositeInsert,
                        &[vec2, flipped, negated, offset, 1],
                    );
                    let mut operands = ops.to_vec();
                    operands[5] = flipped;
                    push_inst(&mut code, Op::ExtInst, &operands);
                    e.replace(index, code);
                    changed = true;
                }
                _ => {}
            }
        }
    }
    if !changed {
        return Ok(None);
    }
    if let Some(declared) = state.and_then(|s| s.declared) {
        e.extend_interface(ep, &[], &[declared]);
    }
    Ok(Some(e.finish()?))
}

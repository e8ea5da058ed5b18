//! GL's lines by the fragment shader, where the driver has no `bresenhamLines` (or not
//! GL's) or no stippled lines: the route of docs/lines-fragment-route.md, two passes.
//!
//! The driver draws its rectangular lines, which cover nearly every pixel GL's
//! diamond-exit rule lights (GL 4.6 §14.5.1) and more; the fragment shader discards the
//! fragments GL would not produce and, with `glLineStipple` on, those the pattern clears
//! (§14.5.2.2):
//! - [`write_line_position`], the last pre-rasterization stage: before every exit that
//!   reaches the rasterizer, `(x / w, y / w, parity, w > 0)` of `gl_Position` goes to two
//!   new outputs, [`LOCATIONS`] Locations from the one the layer gives: `noperspective` at
//!   `location` (the fragment's point on the segment) and `flat` at `location + 1` (the
//!   provoking vertex, one end of the segment exactly). `parity` is `gl_VertexIndex & 1` in
//!   a vertex shader (0 elsewhere): where a segment's two vertices differ in it (every
//!   segment of a non-indexed draw), the fragment's distance from the flat end as a
//!   fraction of the segment, `|parity - flat parity|`, gives the other end too.
//! - [`discard_off_line_fragments`], the fragment stage: at entry, a test of the pixel
//!   centre `gl_FragCoord.xy` against the segment in framebuffer coordinates (viewport 0
//!   from the GL-state block), then `OpKill` (`OpTerminateInvocation` from SPIR-V 1.6)
//!   where it fails. The line's direction is the derivative of the interpolated point; the
//!   test keeps the fragment where the line meets the pixel's diamond (one pixel per column
//!   of an x-major line, per row of a y-major one), the segment reaches the diamond's exit
//!   and did not start past it: each end checked where the fragment knows it (the flat one
//!   always, the other through the parity), the rasterizer's rectangle standing in for an
//!   end it does not know. The stipple counts as Mesa's GL does: step `i` of a segment
//!   covers its part `i` to `i + 1` pixels along the major axis from its start, and a
//!   fragment takes the step in which the segment leaves its diamond; from 0 at each
//!   segment, or, where the layer counted the strip (`stipple_counts`: the flat end brings
//!   the count there and the segment's length), on from the strip's count.
//!
//! The driver snaps a rectangle's corners to its subpixel grid (SwiftShader: 1/16 pixel),
//! so a pixel whose centre lies almost half a pixel off a shallow segment, which GL lights,
//! can fall outside it. Where the layer draws the band passes (the block's
//! `FLAG_LINE_BANDS`, `_UP`, `_DOWN`), the first draw keeps GL's fragments but those of two
//! bands along the segment's edges, two subpixels wide, and two more draws with the
//! vertices moved by one subpixel up and right, then down and left, keep those of the
//! upper and the lower band: a move of the whole segment by (s, s) takes it `s (1 - m)`
//! across for a slope `m` in [-1, 1], and where that is small (`m` near 1) the rectangle
//! reaches `0.5 sqrt(1 + m^2)` across, well past the snapping. Fragments near an end stay
//! with the first draw (the moved rectangles end elsewhere), as do those of a segment whose
//! other end the fragment does not know.

use spirv::{BuiltIn, Decoration, ExecutionMode, ExecutionModel, Op, StorageClass};

use super::builtin_output;
use super::error::{PassError, PassResult};
use super::exits::rasterized_exits;
use super::gl_state::{
    StateReader, FLAG_LINES, FLAG_LINE_BANDS, FLAG_LINE_BAND_DOWN, FLAG_LINE_BAND_UP,
    FLAG_LINE_STIPPLE, FLAG_LINE_VARYINGS, FLAG_WIDE_LINES,
};
use super::module::{decode_string, Editor, Instruction, Module, Section};
use super::rule::{Rule, Semantic, Stage};
use super::stipple_counts::{capture_or_read_count, int_input, CountReader};

/// Locations the route's varyings take from the one the layer gives.
pub const LOCATIONS: u32 = 2;

/// Which end of a segment the pipeline's flat inputs take (its provoking vertex).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProvokingEnd {
    /// `VK_PROVOKING_VERTEX_MODE_FIRST_VERTEX` (Vulkan's default, GL's
    /// `GL_FIRST_VERTEX_CONVENTION`): the segment's start.
    First,
    /// `VK_PROVOKING_VERTEX_MODE_LAST_VERTEX` (GL's default): the segment's end.
    Last,
}

/// Where [`write_line_position`] puts the vertex (its varyings hold where the shader put
/// it, whatever this says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VertexPlace {
    /// Where the shader puts it.
    Kept,
    /// Moved by one subpixel (`2^-subpixel_bits` pixel) in x and y, up while the GL-state
    /// block at `block_offset` has `FLAG_LINE_BAND_UP` set and down while it has
    /// `FLAG_LINE_BAND_DOWN` (the band passes).
    Banded {
        block_offset: u32,
        subpixel_bits: u32,
    },
    /// The start-pixel pass: mirrored through the centre of the pixel it lies in (viewport
    /// 0's transform, from the block at `block_offset`). A segment starting in a pixel's
    /// diamond behind its centre then starts as far past the centre, and the driver's
    /// rectangle covers that pixel, which the fragment test (`start_pixels`), reading the
    /// varyings, keeps where GL lights it.
    Mirrored { block_offset: u32 },
}

/// Writes the route's two varyings at `location` and `location + 1` from the last
/// pre-rasterization stage `entry`, and puts the vertex at `place`; with `stipple_counts`,
/// a vertex shader that reads the GL-state block (`place` not `Kept`) also captures its
/// position and sends the stipple count of a strip (`stipple_counts`). `Ok(None)` for an
/// entry point of another stage.
pub fn write_line_position(
    words: &[u32],
    entry: &str,
    location: u32,
    place: VertexPlace,
    stipple_counts: bool,
) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let position = builtin_output::find(&m, ep, BuiltIn::Position)
        .filter(|out| builtin_output::is_written(&m, ep, out))
        .ok_or_else(|| PassError::Unsupported("the stage writes no gl_Position".into()))?;
    let mut e = Editor::new(&m);
    let float = e.type_float(32);
    let vec4 = e.type_vector(float, 4);
    if position.ty() != vec4 {
        return Err(PassError::BuiltinType {
            builtin: "gl_Position",
            expected: "a vec4 of 32-bit floats",
        });
    }
    let interpolated = e.add_variable(StorageClass::Output, vec4);
    e.decorate(interpolated, Decoration::Location, &[location]);
    e.decorate(interpolated, Decoration::NoPerspective, &[]);
    e.name(interpolated, "glsem_line_point");
    let flat = e.add_variable(StorageClass::Output, vec4);
    e.decorate(flat, Decoration::Location, &[location + 1]);
    e.decorate(flat, Decoration::Flat, &[]);
    e.name(flat, "glsem_line_end");
    let mut new_io = vec![interpolated, flat];
    let index = match ep.model {
        ExecutionModel::Vertex => Some(int_input(
            &m,
            &mut e,
            ep,
            BuiltIn::VertexIndex,
            &mut new_io,
        )?),
        _ => None,
    };
    let (zero, one) = (e.constant_f32(0.0), e.constant_f32(1.0));
    let bool_type = e.type_bool();
    // The GL-state block and GLSL.std.450 (floor) where the vertices move.
    let moved = match place {
        VertexPlace::Kept => None,
        VertexPlace::Banded { block_offset, .. } | VertexPlace::Mirrored { block_offset } => {
            Some((
                StateReader::find_or_declare(&m, &mut e, ep, block_offset)?,
                glsl_import(&m, &mut e),
            ))
        }
    };
    let counts = match (index, &moved) {
        (Some((var, ty, _)), Some(_)) if stipple_counts => Some(CountReader::declare(
            &m,
            &mut e,
            ep,
            (var, ty),
            &mut new_io,
        )?),
        _ => None,
    };
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        let ptr = position.pointer(&mut e, &mut code, vec4, None);
        let clip = e.load(&mut code, vec4, ptr);
        let [x, y, w] = [0, 1, 3].map(|i| e.composite_extract(&mut code, float, clip, &[i]));
        let ndc_x = e.binary(&mut code, Op::FDiv, float, x, w);
        let ndc_y = e.binary(&mut code, Op::FDiv, float, y, w);
        let parity = match index {
            Some((var, int, signed)) => {
                let value = e.load(&mut code, int, var);
                let one_int = if signed {
                    e.constant_i32(1)
                } else {
                    e.constant_u32(1)
                };
                let bit = e.bitwise_and(&mut code, int, value, one_int);
                let convert = if signed {
                    Op::ConvertSToF
                } else {
                    Op::ConvertUToF
                };
                e.unary(&mut code, convert, float, bit)
            }
            None => zero,
        };
        let front = e.binary(&mut code, Op::FOrdGreaterThan, bool_type, w, zero);
        let front = e.select(&mut code, float, front, one, zero);
        let value = e.composite_construct(&mut code, vec4, &[ndc_x, ndc_y, parity, front]);
        e.store(&mut code, interpolated, value);
        let mut capturing = None;
        match (&counts, &moved) {
            (Some(reader), Some((state, _))) => {
                let block = block_label(&m, exit.index)?;
                let (read, capture) =
                    capture_or_read_count(&mut e, &mut code, state, reader, block, clip);
                capturing = Some(capture);
                let count = e.composite_extract(&mut code, float, read, &[0]);
                let length = e.composite_extract(&mut code, float, read, &[1]);
                // w: `1 + count`, negated behind the eye; z: `-(1 + length)` where the counts
                // were read, else the parity.
                let was_read =
                    e.binary(&mut code, Op::FOrdGreaterThanEqual, bool_type, count, zero);
                let count = e.select(&mut code, float, was_read, count, zero);
                let w = e.binary(&mut code, Op::FAdd, float, one, count);
                let minus_w = e.unary(&mut code, Op::FNegate, float, w);
                let in_front = e.binary(&mut code, Op::FOrdGreaterThan, bool_type, front, zero);
                let w = e.select(&mut code, float, in_front, w, minus_w);
                let z = e.binary(&mut code, Op::FAdd, float, one, length);
                let z = e.unary(&mut code, Op::FNegate, float, z);
                let z = e.select(&mut code, float, was_read, z, parity);
                let flat_value = e.composite_construct(&mut code, vec4, &[ndc_x, ndc_y, z, w]);
                e.store(&mut code, flat, flat_value);
            }
            _ => e.store(&mut code, flat, value),
        }
        if let Some((state, glsl)) = &moved {
            let glsl = *glsl;
            let mut f = Code {
                e: &mut e,
                code: &mut code,
                float,
                glsl,
            };
            let mirror = match place {
                VertexPlace::Banded { subpixel_bits, .. } => {
                    band_shift(&mut f, state, clip, subpixel_bits)
                }
                _ => mirror_through_pixel_centre(&mut f, state, clip, [ndc_x, ndc_y]),
            };
            let in_front = f.e.binary(f.code, Op::FOrdGreaterThan, bool_type, w, zero);
            // Component by component: a vector OpSelect on a scalar needs SPIR-V 1.4.
            let kept = [0, 1, 2, 3].map(|i| {
                let a = f.component(mirror, i);
                let b = f.component(clip, i);
                f.pick(in_front, a, b)
            });
            let moved = f.e.composite_construct(f.code, vec4, &kept);
            f.e.store(f.code, ptr, moved);
        }
        if let Some(capturing) = capturing {
            // Captured, and out of the view volume (x > w): nothing is drawn.
            let placed = e.load(&mut code, vec4, ptr);
            // Component by component: a vector OpSelect on a scalar needs SPIR-V 1.4.
            let kept = [2.0, 2.0, 2.0, 1.0]
                .into_iter()
                .enumerate()
                .map(|(i, outside)| {
                    let outside = e.constant_f32(outside);
                    let placed = e.composite_extract(&mut code, float, placed, &[i as u32]);
                    e.select(&mut code, float, capturing, outside, placed)
                });
            let kept: Vec<u32> = kept.collect();
            let kept = e.composite_construct(&mut code, vec4, &kept);
            e.store(&mut code, ptr, kept);
        }
        e.insert_before(exit.index, &code);
    }
    let declared = moved.as_ref().and_then(|(s, _)| s.declared);
    e.extend_interface(ep, &new_io, declared.as_slice());
    Ok(Some(e.finish()?))
}

/// `clip` moved by one subpixel in the window's x and y, up while the block's
/// `FLAG_LINE_BAND_UP` is set, down while `FLAG_LINE_BAND_DOWN` is, where it is otherwise.
fn band_shift(f: &mut Code, state: &StateReader, clip: u32, subpixel_bits: u32) -> u32 {
    let float = f.float;
    let [hx, hy, _, _] = state.viewport(f.e, f.code);
    let up = state.flag_set(f.e, f.code, FLAG_LINE_BAND_UP);
    let down = state.flag_set(f.e, f.code, FLAG_LINE_BAND_DOWN);
    let step = 1.0 / (1u32 << subpixel_bits.min(16)) as f32;
    let (plus, minus, zero) = (f.c(step), f.c(-step), f.c(0.0));
    let window = f.pick(down, minus, zero);
    let window = f.pick(up, plus, window);
    let moving = f.or(up, down);
    let w = f.component(clip, 3);
    // A window move of `window` is `window / scale` in NDC, times w in clip coordinates;
    // unmoved where no band pass is drawn (a viewport not set yet has a scale of 0).
    let shift = |f: &mut Code, scale: u32, i: u32| {
        let coordinate = f.component(clip, i);
        let ndc = f.div(window, scale);
        let by = f.mul(ndc, w);
        let shifted = f.add(coordinate, by);
        f.pick(moving, shifted, coordinate)
    };
    let x = shift(f, hx, 0);
    let y = shift(f, hy, 1);
    let z = f.component(clip, 2);
    let vec4 = f.e.type_vector(float, 4);
    f.e.composite_construct(f.code, vec4, &[x, y, z, w])
}

/// `clip` (of window position `ndc` before the viewport) mirrored through the centre of the
/// pixel holding it, in the window, back in clip coordinates.
fn mirror_through_pixel_centre(f: &mut Code, state: &StateReader, clip: u32, ndc: [u32; 2]) -> u32 {
    let float = f.float;
    let half = f.c(0.5);
    let two = f.c(2.0);
    let [hx, hy, ox, oy] = state.viewport(f.e, f.code);
    let w = f.component(clip, 3);
    let mirror = |f: &mut Code, ndc: u32, scale: u32, offset: u32| {
        let window = f.mul(ndc, scale);
        let window = f.add(window, offset);
        let centre = f.floor(window);
        let centre = f.add(centre, half);
        let twice = f.mul(centre, two);
        let mirrored = f.sub(twice, window);
        let mirrored = f.sub(mirrored, offset);
        let mirrored = f.div(mirrored, scale);
        f.mul(mirrored, w)
    };
    let x = mirror(f, ndc[0], hx, ox);
    let y = mirror(f, ndc[1], hy, oy);
    let z = f.component(clip, 2);
    let vec4 = f.e.type_vector(float, 4);
    f.e.composite_construct(f.code, vec4, &[x, y, z, w])
}

/// The label of the block that holds instruction `index` of a function.
fn block_label(m: &Module<'_>, index: usize) -> Result<u32, PassError> {
    m.insts
        .range(..index)
        .rev()
        .find(|i| i.op() == Some(Op::Label))
        .map(|i| i.operand(0))
        .ok_or_else(|| PassError::Unsupported("an exit outside any block".into()))
}

/// What the fragment side needs: where the varyings and the GL-state block are, which end
/// the flat varying holds, and whether a flipped viewport's `window_y` step rewrites the
/// shader's `gl_FragCoord.y` to `H - y` after this one (the test then turns it back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineFragmentKey {
    pub location: u32,
    pub block_offset: u32,
    pub provoking: ProvokingEnd,
    pub frag_coord_flipped: bool,
    /// The pipeline's topology is dynamic state: the test runs only while the block's
    /// `FLAG_LINES` says lines are drawn.
    pub lines_gated: bool,
    /// The start-pixel pass (`start_pixel_steps`): the shader of the layer's second draw of
    /// the same lines, their vertices mirrored through their pixels' centres
    /// ([`WriteLinePosition::mirrored`]), keeping only the fragments GL produces behind the
    /// segment's start, which the first draw's rectangle (ending at the start) leaves out.
    pub start_pixels: bool,
    /// A fragment-shader library (`choose`'s `library_fragment_lines`): the test runs only
    /// while the block's `FLAG_LINE_VARYINGS` says the linked last pre-rasterization stage
    /// writes the route's varyings.
    pub varyings_gated: bool,
    /// The driver's subpixel bits: the band passes' subpixel (the module doc).
    pub subpixel_bits: u32,
}

/// Discards, at the entry of the fragment shader `entry`, the fragments that GL's
/// diamond-exit rule and the stipple would not produce. `Ok(None)` for an entry point of
/// another stage.
pub fn discard_off_line_fragments(words: &[u32], entry: &str, key: LineFragmentKey) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = m.entry_point(entry, ExecutionModel::Fragment) else {
        return Ok(None);
    };
    let function = ep.function;
    // Early fragment tests write depth and stencil before the shader discards.
    if m.has_execution_mode(function, ExecutionMode::EarlyFragmentTests) {
        return Err(PassError::Unsupported(
            "the fragment shader asks for early fragment tests, which write depth and stencil \
             before a discard"
                .into(),
        ));
    }
    let missing = PassError::MissingFunction { function };
    let (start, end) = m.function_range(function).ok_or(missing.clone())?;
    let body = m.function_body_start(function).ok_or(missing)?;
    let entry_label = m
        .insts
        .range(start..body)
        .rev()
        .find(|i| i.op() == Some(Op::Label))
        .map(|i| i.operand(0))
        .ok_or(PassError::MissingFunction { function })?;

    let mut e = Editor::new(&m);
    let state = StateReader::find_or_declare(&m, &mut e, ep, key.block_offset)?;
    let float = e.type_float(32);
    let vec4 = e.type_vector(float, 4);
    let interpolated = e.add_variable(StorageClass::Input, vec4);
    e.decorate(interpolated, Decoration::Location, &[key.location]);
    e.decorate(interpolated, Decoration::NoPerspective, &[]);
    e.name(interpolated, "glsem_line_point");
    let flat = e.add_variable(StorageClass::Input, vec4);
    e.decorate(flat, Decoration::Location, &[key.location + 1]);
    e.decorate(flat, Decoration::Flat, &[]);
    e.name(flat, "glsem_line_end");
    let mut new_io = vec![interpolated, flat];
    let frag_coord = match m
        .builtin_variables(ep, StorageClass::Input, BuiltIn::FragCoord)
        .next()
    {
        Some((var, ty)) if ty == vec4 => var,
        Some(_) => {
            return Err(PassError::BuiltinType {
                builtin: "gl_FragCoord",
                expected: "a vec4 of 32-bit floats",
            })
        }
        None => {
            let var = e.add_variable(StorageClass::Input, vec4);
            e.decorate(var, Decoration::BuiltIn, &[BuiltIn::FragCoord as u32]);
            e.name(var, "gl_FragCoord");
            new_io.push(var);
            var
        }
    };
    let glsl = glsl_import(&m, &mut e);

    let mut code = Vec::new();
    let keep = {
        let mut f = Code {
            e: &mut e,
            code: &mut code,
            float,
            glsl,
        };
        let inputs = Inputs {
            state: &state,
            interpolated,
            flat,
            frag_coord,
        };
        line_test(&mut f, &inputs, key)
    };
    let (merge, kill) = (e.new_id(), e.new_id());
    Instruction::new(Op::SelectionMerge)
        .operands(&[merge, 0])
        .append_to(&mut code);
    Instruction::new(Op::BranchConditional)
        .operands(&[keep, merge, kill])
        .append_to(&mut code);
    Instruction::new(Op::Label)
        .operand(kill)
        .append_to(&mut code);
    let terminate = if m.version() >= (1, 6) {
        Op::TerminateInvocation
    } else {
        Op::Kill
    };
    Instruction::new(terminate).append_to(&mut code);
    Instruction::new(Op::Label)
        .operand(merge)
        .append_to(&mut code);
    e.insert_before(body, &code);
    // The rest of the entry block is now block `merge`: phis naming the entry block as a
    // parent name it.
    for index in body..end {
        let inst = m.insts.at(index);
        if inst.op() == Some(Op::Phi) {
            for word in (4..inst.words.len()).step_by(2) {
                if inst.words[word] == entry_label {
                    e.patch_word(index, word, merge);
                }
            }
        }
    }
    e.extend_interface(ep, &new_io, state.declared.as_slice());
    Ok(Some(e.finish()?))
}

/// The id of the module's `GLSL.std.450` import, added where it has none.
fn glsl_import(m: &Module<'_>, e: &mut Editor<'_, '_>) -> u32 {
    let found = m
        .insts
        .iter()
        .find(|i| {
            i.op() == Some(Op::ExtInstImport)
                && decode_string(i.operands().get(1..).unwrap_or(&[])).0 == "GLSL.std.450"
        })
        .map(|i| i.operand(0));
    found.unwrap_or_else(|| {
        let id = e.new_id();
        let import = Instruction::new(Op::ExtInstImport)
            .operand(id)
            .string("GLSL.std.450");
        e.append_instruction(Section::ExtInstImport, &import);
        id
    })
}

/// What the test reads.
struct Inputs<'s> {
    state: &'s StateReader,
    interpolated: u32,
    flat: u32,
    frag_coord: u32,
}

/// A function body under construction, with the arithmetic the test is written in.
struct Code<'c, 'm, 'a> {
    e: &'c mut Editor<'m, 'a>,
    code: &'c mut Vec<u32>,
    float: u32,
    glsl: u32,
}

/// `GLSL.std.450` instruction numbers.
const FABS: u32 = 4;
const FLOOR: u32 = 8;
const CEIL: u32 = 9;
const FMIN: u32 = 37;
const FMAX: u32 = 40;

impl Code<'_, '_, '_> {
    fn c(&mut self, value: f32) -> u32 {
        self.e.constant_f32(value)
    }
    fn op(&mut self, op: Op, a: u32, b: u32) -> u32 {
        let float = self.float;
        self.e.binary(self.code, op, float, a, b)
    }
    fn add(&mut self, a: u32, b: u32) -> u32 {
        self.op(Op::FAdd, a, b)
    }
    fn sub(&mut self, a: u32, b: u32) -> u32 {
        self.op(Op::FSub, a, b)
    }
    fn mul(&mut self, a: u32, b: u32) -> u32 {
        self.op(Op::FMul, a, b)
    }
    fn div(&mut self, a: u32, b: u32) -> u32 {
        self.op(Op::FDiv, a, b)
    }
    fn ext(&mut self, inst: u32, args: &[u32]) -> u32 {
        let mut operands = vec![self.glsl, inst];
        operands.extend_from_slice(args);
        let float = self.float;
        self.e.emit(self.code, Op::ExtInst, float, &operands)
    }
    fn abs(&mut self, a: u32) -> u32 {
        self.ext(FABS, &[a])
    }
    fn ceil(&mut self, a: u32) -> u32 {
        self.ext(CEIL, &[a])
    }
    fn floor(&mut self, a: u32) -> u32 {
        self.ext(FLOOR, &[a])
    }
    fn min(&mut self, a: u32, b: u32) -> u32 {
        self.ext(FMIN, &[a, b])
    }
    fn max(&mut self, a: u32, b: u32) -> u32 {
        self.ext(FMAX, &[a, b])
    }
    /// A comparison (`FOrd*`, `FUnord*`) or logical operation: a bool.
    fn test(&mut self, op: Op, a: u32, b: u32) -> u32 {
        let bool_type = self.e.type_bool();
        self.e.binary(self.code, op, bool_type, a, b)
    }
    fn not(&mut self, a: u32) -> u32 {
        let bool_type = self.e.type_bool();
        self.e.unary(self.code, Op::LogicalNot, bool_type, a)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.test(Op::LogicalAnd, a, b)
    }
    fn or(&mut self, a: u32, b: u32) -> u32 {
        self.test(Op::LogicalOr, a, b)
    }
    fn pick(&mut self, condition: u32, a: u32, b: u32) -> u32 {
        let float = self.float;
        self.e.select(self.code, float, condition, a, b)
    }
    fn component(&mut self, vector: u32, i: u32) -> u32 {
        let float = self.float;
        self.e.composite_extract(self.code, float, vector, &[i])
    }
    fn load_vec4(&mut self, var: u32) -> u32 {
        let vec4 = self.e.type_vector(self.float, 4);
        self.e.load(self.code, vec4, var)
    }
    /// The distance along the major axis from a point of the line to where it leaves the
    /// diamond, for a line `e` off the diamond's centre (minor axis) at the point's major
    /// coordinate, of slope `m` (|m| <= 1) in the direction of travel.
    fn exit(&mut self, e: u32, m: u32) -> u32 {
        let (half, one, tiny) = (self.c(0.5), self.c(1.0), self.c(1e-6));
        let above = self.sub(half, e);
        let below = self.add(half, e);
        let rising = self.add(one, m);
        let rising = self.max(rising, tiny);
        let falling = self.sub(one, m);
        let falling = self.max(falling, tiny);
        let a = self.div(above, rising);
        let b = self.div(below, falling);
        self.min(a, b)
    }
}

/// Emits the test; returns the bool "GL produces this fragment".
fn line_test(f: &mut Code, inputs: &Inputs, key: LineFragmentKey) -> u32 {
    let state = inputs.state;
    let last = key.provoking == ProvokingEnd::Last;
    let float = f.float;
    let (zero, half, one) = (f.c(0.0), f.c(0.5), f.c(1.0));
    // Viewport 0: window = ndc * scale + offset (scale = size / 2, offset = origin + scale).
    let [hx, hy, ox, oy] = state.viewport(f.e, f.code);
    let point = f.load_vec4(inputs.interpolated);
    let known = f.load_vec4(inputs.flat);
    let window = |f: &mut Code, v: u32| {
        let x = f.component(v, 0);
        let y = f.component(v, 1);
        let x = f.mul(x, hx);
        let x = f.add(x, ox);
        let y = f.mul(y, hy);
        (x, f.add(y, oy))
    };
    let (qx, qy) = window(f, point);
    let (kx, ky) = window(f, known);
    let frag = f.load_vec4(inputs.frag_coord);
    let cx = f.component(frag, 0);
    let mut cy = f.component(frag, 1);
    if key.frag_coord_flipped {
        // window_y's `H - y`, turned back: H is the viewport's y, offset - scale.
        let h = f.sub(oy, hy);
        cy = f.sub(h, cy);
    }
    // The line's direction: the derivative of the interpolated point.
    let vec2 = f.e.type_vector(float, 2);
    let q = f.e.composite_construct(f.code, vec2, &[qx, qy]);
    let gx = f.e.unary(f.code, Op::DPdx, vec2, q);
    let gy = f.e.unary(f.code, Op::DPdy, vec2, q);
    let gxx = f.e.binary(f.code, Op::Dot, float, gx, gx);
    let gyy = f.e.binary(f.code, Op::Dot, float, gy, gy);
    let use_x = f.test(Op::FOrdGreaterThanEqual, gxx, gyy);
    // Component by component: a vector OpSelect on a scalar condition needs SPIR-V 1.4.
    let [gxx_, gxy_, gyx_, gyy_] =
        [(gx, 0), (gx, 1), (gy, 0), (gy, 1)].map(|(v, i)| f.component(v, i));
    let dx = f.pick(use_x, gxx_, gyx_);
    let dy = f.pick(use_x, gxy_, gyy_);
    let adx = f.abs(dx);
    let ady = f.abs(dy);
    let x_major = f.test(Op::FOrdGreaterThanEqual, adx, ady);
    // Major (a) and minor (b) coordinates.
    let mut ab = |x: u32, y: u32| (f.pick(x_major, x, y), f.pick(x_major, y, x));
    let (qa, qb) = ab(qx, qy);
    let (ka, _) = ab(kx, ky);
    let (ca, cb) = ab(cx, cy);
    let (da, db) = ab(dx, dy);
    let has_direction = f.test(Op::FUnordNotEqual, da, zero);
    let safe_da = f.pick(has_direction, da, one);
    let slope = f.div(db, safe_da);
    // The other end, where the parity tells the fragment's place on the segment.
    let pz = f.component(point, 2);
    let kz = f.component(known, 2);
    let pw = f.component(point, 3);
    let kw = f.component(known, 3);
    let along = f.sub(pz, kz);
    let along = f.abs(along);
    let (small, front) = (f.c(1e-3), f.c(0.999));
    let moving = f.test(Op::FOrdGreaterThan, along, small);
    // The flat end's w: `1 + v` in front, `-(1 + v)` or 0 behind, `v` the stipple count at
    // the flat end where a strip's is counted (`stipple_counts`), else 0.
    let k_front = f.test(Op::FOrdGreaterThan, kw, zero);
    let flat_count = f.abs(kw);
    let flat_count = f.sub(flat_count, one);
    let flat_count = f.max(flat_count, zero);
    let p_front = f.test(Op::FOrdGreaterThan, pw, front);
    // A counted strip's flat end brings, instead of its parity, the segment's length along
    // its major axis in the window, as `-(1 + length)` (`stipple_counts`).
    let minus_half = f.c(-0.5);
    let counted = f.test(Op::FOrdLessThan, kz, minus_half);
    let length = f.sub(minus_half, kz);
    let length = f.sub(length, half);
    let length = f.max(length, zero);
    let by_parity = f.not(counted);
    let parity_known = f.and(moving, k_front);
    let parity_known = f.and(parity_known, p_front);
    let parity_known = f.and(parity_known, by_parity);
    let safe_along = f.max(along, small);
    let offset = f.sub(qa, ka);
    let offset = f.div(offset, safe_along);
    let oa = f.add(ka, offset);
    // The direction of travel along a (+1 or -1): from the start to the end.
    let (from_end, from_point) = if last {
        (f.sub(ka, oa), f.sub(ka, qa))
    } else {
        (f.sub(oa, ka), f.sub(qa, ka))
    };
    let travel = f.pick(parity_known, from_end, from_point);
    let backwards = f.test(Op::FOrdLessThan, travel, zero);
    let minus_one = f.c(-1.0);
    let tau = f.pick(backwards, minus_one, one);
    let decided = f.test(Op::FUnordNotEqual, travel, zero);
    // A counted strip's other end: `length` from the flat end, against the travel (the
    // flat end the last vertex) or along it.
    let span = f.mul(tau, length);
    let counted_oa = if last {
        f.sub(ka, span)
    } else {
        f.add(ka, span)
    };
    let oa = f.pick(counted, counted_oa, oa);
    let counted_front = f.and(counted, k_front);
    let other_known = f.or(parity_known, counted_front);
    let slope_t = f.mul(slope, tau);
    // The line's minor coordinate at major coordinate `a`.
    let b_at = |f: &mut Code, a: u32| {
        let run = f.sub(a, qa);
        let rise = f.mul(slope, run);
        f.add(qb, rise)
    };
    // The line's offset from the centre along b, at the centre's a.
    let e = b_at(f, ca);
    let e = f.sub(e, cb);
    let abs_e = f.abs(e);
    let meets = f.test(Op::FOrdLessThan, abs_e, half);
    let to_exit = f.exit(e, slope_t);
    let ca_t = f.mul(tau, ca);
    let exit = f.add(ca_t, to_exit);
    let (end_a, start_a) = if last { (ka, oa) } else { (oa, ka) };
    let start_b = b_at(f, start_a);
    let end_t = f.mul(tau, end_a);
    let start_t = f.mul(tau, start_a);
    let true_ = f.e.constant_bool(true);
    let (end_known, start_known) = if last {
        (true_, other_known)
    } else {
        (other_known, true_)
    };
    // Each known end: the segment reaches the exit, and did not start past it.
    let reaches = f.test(Op::FOrdGreaterThanEqual, end_t, exit);
    let unknown = f.not(end_known);
    let undecided = f.not(decided);
    let end_ok = f.or(unknown, undecided);
    let end_ok = f.or(end_ok, reaches);
    let starts_before = f.test(Op::FOrdLessThan, start_t, exit);
    let unknown = f.not(start_known);
    let start_ok = f.or(unknown, undecided);
    let start_ok = f.or(start_ok, starts_before);
    let mut keep = f.and(meets, end_ok);
    keep = f.and(keep, start_ok);
    if last {
        // The end's own diamond, whatever the direction.
        let ex = f.sub(kx, cx);
        let ex = f.abs(ex);
        let ey = f.sub(ky, cy);
        let ey = f.abs(ey);
        let l1 = f.add(ex, ey);
        let inside = f.test(Op::FOrdLessThan, l1, half);
        let outside = f.not(inside);
        keep = f.and(keep, outside);
    }
    // The stipple, counted as Mesa's GL counts it: step `i` of a segment covers the part
    // `i` to `i + 1` pixels along the major axis from its start, tests count `i` (from 0 at
    // each segment, or, in a counted strip, from the strip's count at the segment's
    // start), and a fragment belongs to the step in which the segment leaves its diamond.
    // A counted strip's flat end brings the count at that end (`stipple_counts`), so the
    // other end need not be known.
    let flags = state.flags(f.e, f.code);
    let uint = f.e.type_int(32, false);
    let bool_type = f.e.type_bool();
    let u_zero = f.e.constant_u32(0);
    let flat_t = f.mul(tau, ka);
    let from_flat = f.sub(exit, flat_t);
    let from_flat = f.add(from_flat, flat_count);
    let from_start = f.sub(exit, start_t);
    let past = f.pick(counted, from_flat, from_start);
    let step = f.ceil(past);
    let step = f.sub(step, one);
    let n = f.max(step, zero);
    let n = f.e.unary(f.code, Op::ConvertFToU, uint, n);
    let word = state.line_stipple(f.e, f.code);
    let sixteen = f.e.constant_u32(16);
    let factor =
        f.e.binary(f.code, Op::ShiftRightLogical, uint, word, sixteen);
    let nine_bits = f.e.constant_u32(0x1FF);
    let factor = f.e.bitwise_and(f.code, uint, factor, nine_bits);
    let u_one = f.e.constant_u32(1);
    let no_factor = f.e.binary(f.code, Op::IEqual, bool_type, factor, u_zero);
    let factor = f.e.select(f.code, uint, no_factor, u_one, factor);
    let step = f.e.binary(f.code, Op::UDiv, uint, n, factor);
    let fifteen = f.e.constant_u32(15);
    let bit = f.e.bitwise_and(f.code, uint, step, fifteen);
    let shifted = f.e.binary(f.code, Op::ShiftRightLogical, uint, word, bit);
    let lit = f.e.bitwise_and(f.code, uint, shifted, u_one);
    let on = f.e.i_not_equal(f.code, bool_type, lit, u_zero);
    let stipple_bit = f.e.constant_u32(FLAG_LINE_STIPPLE);
    let enabled = f.e.bitwise_and(f.code, uint, flags, stipple_bit);
    let enabled = f.e.i_not_equal(f.code, bool_type, enabled, u_zero);
    let stippled = f.and(enabled, start_known);
    let off = f.not(stippled);
    let stipple_ok = f.or(off, on);
    keep = f.and(keep, stipple_ok);
    // A fragment of a line without a direction (none in practice), or of a wide line (the
    // test is for width 1), is left alone.
    let undirected = f.not(has_direction);
    let wide_bit = f.e.constant_u32(FLAG_WIDE_LINES);
    let wide = f.e.bitwise_and(f.code, uint, flags, wide_bit);
    let wide = f.e.i_not_equal(f.code, bool_type, wide, u_zero);
    let mut left_alone = f.or(undirected, wide);
    if key.lines_gated {
        // Other primitives of a dynamic topology.
        let lines_bit = f.e.constant_u32(FLAG_LINES);
        let lines = f.e.bitwise_and(f.code, uint, flags, lines_bit);
        let not_lines = f.e.binary(f.code, Op::IEqual, bool_type, lines, u_zero);
        left_alone = f.or(left_alone, not_lines);
    }
    if key.varyings_gated {
        let written_bit = f.e.constant_u32(FLAG_LINE_VARYINGS);
        let written = f.e.bitwise_and(f.code, uint, flags, written_bit);
        let not_written = f.e.binary(f.code, Op::IEqual, bool_type, written, u_zero);
        left_alone = f.or(left_alone, not_written);
    }
    if key.start_pixels {
        // Only GL's fragments whose centre lies behind the start (its projection on the
        // direction of travel, (1, slope) times tau, is negative): the first draw's
        // rectangle covers every other one, and a fragment drawn twice would blend twice.
        let run = f.sub(ca, start_a);
        let rise = f.sub(cb, start_b);
        let rise = f.mul(slope, rise);
        let along = f.add(run, rise);
        let along = f.mul(tau, along);
        let behind = f.test(Op::FOrdLessThan, along, zero);
        // A start on the diamond's edge is not in it: GL's perturbation of the endpoints
        // decides that pixel, and implementations that snap endpoints to a subpixel grid
        // (llvmpipe: 1/256) land on the edge and leave it (a margin of 1/1024).
        let off_a = f.abs(run);
        let off_b = f.sub(cb, start_b);
        let off_b = f.abs(off_b);
        let l1 = f.add(off_a, off_b);
        let inside_edge = f.c(0.5 - 1.0 / 1024.0);
        let inside = f.test(Op::FOrdLessThan, l1, inside_edge);
        let behind = f.and(behind, inside);
        let drawn = f.not(left_alone);
        let kept = f.and(drawn, keep);
        let kept = f.and(kept, decided);
        let kept = f.and(kept, start_known);
        return f.and(kept, behind);
    }
    // The band passes: which of the three draws keeps the fragment. Each draw decides it
    // from its own interpolation, which may differ from another's in the last bits: the
    // distances it compares are rounded to 1/1024 pixel first, so that geometry on a
    // coarser grid (a line 1/8 pixel off a centre: the band's edge) is given to one draw.
    let step = 1.0 / (1u32 << key.subpixel_bits.min(16)) as f32;
    let band_edge = f.c(0.5 - 2.0 * step);
    let near = f.c(3.0 * step);
    let (grid, cell) = (f.c(1024.0), f.c(1.0 / 1024.0));
    let snap = |f: &mut Code, v: u32| {
        let v = f.mul(v, grid);
        let v = f.add(v, half);
        let v = f.floor(v);
        f.mul(v, cell)
    };
    let snapped_e = snap(f, abs_e);
    let in_band = f.test(Op::FOrdGreaterThanEqual, snapped_e, band_edge);
    // A centre above the line (e < 0) is the up draw's, which moves the segment by +1
    // subpixel along a too: forward along the travel (tau > 0), its rectangle starts later
    // and ends later, so only its start needs the centre away from it; backward, its end.
    let above = f.test(Op::FOrdLessThan, e, zero);
    let below = f.test(Op::FOrdGreaterThan, e, zero);
    let forward = f.test(Op::FOrdGreaterThan, tau, zero);
    let owner_forward = f.test(Op::LogicalEqual, above, forward);
    let past_start = f.sub(ca_t, start_t);
    let past_start = snap(f, past_start);
    let past_start = f.test(Op::FOrdGreaterThanEqual, past_start, near);
    let before_end = f.sub(end_t, ca_t);
    let before_end = snap(f, before_end);
    let before_end = f.test(Op::FOrdGreaterThanEqual, before_end, near);
    let bool_type = f.e.type_bool();
    let away =
        f.e.select(f.code, bool_type, owner_forward, past_start, before_end);
    let mut banded = f.and(in_band, other_known);
    banded = f.and(banded, decided);
    banded = f.and(banded, away);
    let bands = state.flag_set(f.e, f.code, FLAG_LINE_BANDS);
    let up = state.flag_set(f.e, f.code, FLAG_LINE_BAND_UP);
    let down = state.flag_set(f.e, f.code, FLAG_LINE_BAND_DOWN);
    // The first draw: all but the banded fragments.
    let given_away = f.and(bands, banded);
    let kept_here = f.not(given_away);
    let kept_here = f.and(keep, kept_here);
    let first = f.or(left_alone, kept_here);
    // A moved draw: the banded fragments on the side it moved the line to.
    let up_side = f.and(up, above);
    let down_side = f.and(down, below);
    let on_side = f.or(up_side, down_side);
    let drawn = f.not(left_alone);
    let moved_keep = f.and(drawn, keep);
    let moved_keep = f.and(moved_keep, banded);
    let moved_keep = f.and(moved_keep, on_side);
    let moved = f.or(up, down);
    f.e.select(f.code, bool_type, moved, moved_keep, first)
}

/// The step on the last pre-rasterization stage: the route's varyings at `location`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct WriteLinePosition {
    pub stage: Stage,
    pub location: u32,
    /// Where the stage's layout holds the GL-state block (`None`: it has no room for it).
    pub block: Option<u32>,
    /// The start-pixel pass: the vertices mirrored through their pixels' centres, viewport
    /// 0 read from the GL-state block at this offset (`write_line_position`).
    pub mirrored: Option<u32>,
    /// The fragment stage tests the lines: false where the varyings are written only for a
    /// fragment-shader library's interface (`choose`'s `library_fragment_lines`).
    pub tested: bool,
    /// The driver's subpixel bits: a tested stage with the block moves its vertices by one
    /// subpixel in the band passes ([`VertexPlace::Banded`]).
    pub subpixel_bits: u32,
    /// A vertex shader that reads the block captures its position and sends a strip's
    /// stipple counts (`stipple_counts`): the device has the buffer addresses and vertex
    /// stores it needs.
    pub stipple_counts: bool,
}

impl WriteLinePosition {
    /// Whether the stage captures its position and sends a strip's stipple counts
    /// (`stipple_counts`): a vertex shader that reads the GL-state block, on a device that
    /// counts.
    pub fn counts_stipple(&self) -> bool {
        self.stipple_counts && self.stage == Stage::Vertex && self.place() != VertexPlace::Kept
    }

    /// Where the stage puts its vertices.
    pub fn place(&self) -> VertexPlace {
        match (self.mirrored, self.block) {
            (Some(block_offset), _) => VertexPlace::Mirrored { block_offset },
            (None, Some(block_offset)) if self.tested => VertexPlace::Banded {
                block_offset,
                subpixel_bits: self.subpixel_bits,
            },
            _ => VertexPlace::Kept,
        }
    }
}

impl Rule for WriteLinePosition {
    const SEMANTIC: Semantic = Semantic::LineRasterization;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn note(&self, _split: Option<&super::rule::SplitInterface>) -> String {
        format!(
            "the {} writes its window position at Locations {} and {} for GL's lines",
            self.stage,
            self.location,
            self.location + 1
        )
    }

    fn reads_block(&self) -> bool {
        self.place() != VertexPlace::Kept
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        write_line_position(
            words,
            entry,
            self.location,
            self.place(),
            self.counts_stipple(),
        )
    }
}

/// The step on the fragment stage: GL's diamond-exit rule and stipple by discarding.
impl Rule for LineFragmentKey {
    const SEMANTIC: Semantic = Semantic::LineRasterization;
    const STAGE: Option<Stage> = Some(Stage::Fragment);
    const NOTE: &'static str = "GL's diamond-exit lines and stipple in the fragment shader";
    const OWN_NAME: Option<&'static str> = Some("line_fragments");
    const READS_BLOCK: bool = true;

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        discard_off_line_fragments(words, entry, *self)
    }
}

//! GL's line endpoints on a diamond's edge, for drivers whose Bresenham lines decide that tie
//! otherwise.
//!
//! GL's diamond-exit rule lights a pixel where a segment leaves the open diamond
//! |x − xc| + |y − yc| < 1/2 around the pixel's centre, and not where the segment ends inside
//! it. The rasterizer first snaps each endpoint to its subpixel grid, and an endpoint can then
//! lie exactly on a diamond's edge: GL's pixels (Mesa's, the oracle) count it outside. NVIDIA
//! counts it inside when it lies below the centre in framebuffer y, so a flipped viewport
//! (GL's rows upside down, what ports draw with) mirrors GL's choice and lights or drops a
//! pixel at such an endpoint.
//!
//! Before every exit the pass snaps `gl_Position`'s window coordinates as the rasterizer
//! will (the viewport from the GL-state block, `2^bits` subpixels, rounded to nearest) and
//! moves an endpoint that lies on an edge one subpixel further from the centre in y: it is
//! then outside every diamond, where every driver agrees with GL. Nothing else moves. A
//! captured `gl_Position` keeps the shader's value (transform feedback captures it apart).

use spirv::{BuiltIn, Op};

use super::builtin_output;
use super::error::PassResult;
use super::exits::rasterized_exits;
use super::gl_state::{StateReader, FLAG_LINES, FLAG_MULTISAMPLED};
use super::module::{Editor, Module};
use super::rule::{Rule, Semantic, Stage};

/// Moves `entry`'s line endpoints off diamond edges. `Ok(None)` when the stage writes no
/// `gl_Position`.
pub fn move_endpoints_off_edges(words: &[u32], entry: &str, key: &LineEndpoints) -> PassResult {
    let m = Module::parse(words)?;
    let Some(ep) = builtin_output::pre_rasterization_entry(&m, entry) else {
        return Ok(None);
    };
    let Some(out) = builtin_output::find(&m, ep, BuiltIn::Position) else {
        return Ok(None);
    };
    let vec4 = out.ty();
    let float = builtin_output::position_component(&m, vec4)?;

    let mut e = Editor::new(&m);
    let state = StateReader::find_or_declare(&m, &mut e, ep, key.block_offset)?;
    let captured = builtin_output::capture_of(&m, &out)
        .map(|c| c.keep_apart(words, ep, &mut e, vec4, "glsem_captured_position"));
    let c = Constants::new(&mut e, key.grid.subpixel_bits);
    for exit in rasterized_exits(&m, ep)? {
        let mut code = Vec::new();
        let ptr = out.pointer(&mut e, &mut code, vec4, None);
        let position = e.load(&mut code, vec4, ptr);
        if let Some(capture) = captured {
            e.store(&mut code, capture, position);
        }
        let moved = moved_position(&mut e, &mut code, &c, &state, key, position, float);
        e.store(&mut code, ptr, moved);
        e.insert_before(exit.index, &code);
    }
    let declared: Vec<u32> = state.declared.into_iter().collect();
    e.extend_interface(ep, captured.as_slice(), &declared);
    Ok(Some(e.finish()?))
}

/// The types and constants the new code uses.
struct Constants {
    float: u32,
    int: u32,
    bool_type: u32,
    /// Subpixels per pixel, as a float.
    grid: u32,
    /// Half a subpixel, as a float: adding it and truncating rounds to nearest.
    half: u32,
    /// Subpixels per pixel − 1, the mask of a subpixel within its pixel.
    mask: u32,
    /// Half a pixel in subpixels: a point lies on a diamond's edge where its distances
    /// from the centre add up to it.
    half_pixel: u32,
    zero: u32,
    zero_f: u32,
    one: u32,
    minus_one: u32,
    /// The largest window coordinate, in subpixels, that fits a 32-bit integer with room.
    limit: u32,
}

impl Constants {
    fn new(e: &mut Editor<'_, '_>, subpixel_bits: u32) -> Constants {
        let subpixels = 1i32 << subpixel_bits.clamp(1, 16);
        Constants {
            float: e.type_float(32),
            int: e.type_int(32, true),
            bool_type: e.type_bool(),
            grid: e.constant_f32(subpixels as f32),
            half: e.constant_f32(0.5),
            mask: e.constant_i32(subpixels - 1),
            half_pixel: e.constant_i32(subpixels / 2),
            zero: e.constant_i32(0),
            zero_f: e.constant_f32(0.0),
            one: e.constant_i32(1),
            minus_one: e.constant_i32(-1),
            limit: e.constant_f32((1u32 << 30) as f32),
        }
    }
}

/// Emits the position the rasterizer gets: `position`, its y moved one subpixel off the
/// centre where its snapped window coordinates lie on a diamond's edge (and, where the step
/// is gated, single-sampled lines are drawn now).
fn moved_position(
    e: &mut Editor<'_, '_>,
    code: &mut Vec<u32>,
    c: &Constants,
    state: &StateReader,
    key: &LineEndpoints,
    position: u32,
    float: u32,
) -> u32 {
    let vec4 = e.type_vector(float, 4);
    let [scale_x, scale_y, offset_x, offset_y] = state.viewport(e, code);
    let [x, y, w] = [0, 1, 3].map(|i| e.composite_extract(code, float, position, &[i]));
    // Window coordinates in subpixels, as the rasterizer computes and snaps them.
    let subpixels = |e: &mut Editor<'_, '_>, code: &mut Vec<u32>, v: u32, s: u32, o: u32| {
        let ndc = e.binary(code, Op::FDiv, c.float, v, w);
        let scaled = e.f_mul(code, c.float, ndc, s);
        let window = e.f_add(code, c.float, scaled, o);
        let grid = e.f_mul(code, c.float, window, c.grid);
        let rounded = e.f_add(code, c.float, grid, c.half);
        (grid, e.unary(code, Op::ConvertFToS, c.int, rounded))
    };
    let (grid_x, sub_x) = subpixels(e, code, x, scale_x, offset_x);
    let (grid_y, sub_y) = subpixels(e, code, y, scale_y, offset_y);
    // Distance from the pixel's centre, in subpixels, per axis.
    let from_centre = |e: &mut Editor<'_, '_>, code: &mut Vec<u32>, sub: u32| {
        let within = e.bitwise_and(code, c.int, sub, c.mask);
        let d = e.i_sub(code, c.int, within, c.half_pixel);
        let negative = e.s_less_than(code, c.bool_type, d, c.zero);
        let minus = e.unary(code, Op::SNegate, c.int, d);
        (d, e.select(code, c.int, negative, minus, d))
    };
    let (_, abs_x) = from_centre(e, code, sub_x);
    let (dy, abs_y) = from_centre(e, code, sub_y);
    let sum = e.binary(code, Op::IAdd, c.int, abs_x, abs_y);
    let mut on_edge = e.binary(code, Op::IEqual, c.bool_type, sum, c.half_pixel);
    // Only where the snapping above is the rasterizer's: in front of the camera, inside the
    // integer range (truncation rounds non-negative values only), with a viewport set.
    let conditions = [
        (Op::FOrdGreaterThan, w, c.zero_f),
        (Op::FOrdGreaterThanEqual, grid_x, c.zero_f),
        (Op::FOrdGreaterThanEqual, grid_y, c.zero_f),
        (Op::FOrdLessThan, grid_x, c.limit),
        (Op::FOrdLessThan, grid_y, c.limit),
        (Op::FOrdNotEqual, scale_x, c.zero_f),
        (Op::FOrdNotEqual, scale_y, c.zero_f),
    ];
    for (op, a, b) in conditions {
        let holds = e.binary(code, op, c.bool_type, a, b);
        on_edge = e.binary(code, Op::LogicalAnd, c.bool_type, on_edge, holds);
    }
    if key.lines_gated {
        let lines = state.flag_set(e, code, FLAG_LINES);
        on_edge = e.binary(code, Op::LogicalAnd, c.bool_type, on_edge, lines);
    }
    if key.samples_gated {
        let multisampled = state.flag_set(e, code, FLAG_MULTISAMPLED);
        let single = e.unary(code, Op::LogicalNot, c.bool_type, multisampled);
        on_edge = e.binary(code, Op::LogicalAnd, c.bool_type, on_edge, single);
    }
    // One subpixel further from the centre in y (either way from a point level with it).
    let below = e.s_less_than(code, c.bool_type, dy, c.zero);
    let (down, up) = match key.grid.toward_centre {
        false => (c.minus_one, c.one),
        true => (c.one, c.minus_one),
    };
    let away = e.select(code, c.int, below, down, up);
    let moved_sub = e.binary(code, Op::IAdd, c.int, sub_y, away);
    let moved_grid = e.unary(code, Op::ConvertSToF, c.float, moved_sub);
    let moved_window = e.binary(code, Op::FDiv, c.float, moved_grid, c.grid);
    let from_offset = e.binary(code, Op::FSub, c.float, moved_window, offset_y);
    let moved_ndc = e.binary(code, Op::FDiv, c.float, from_offset, scale_y);
    let moved_y = e.f_mul(code, c.float, moved_ndc, w);
    let new_y = e.select(code, c.float, on_edge, moved_y, y);
    e.composite_insert(code, vec4, new_y, position, &[1])
}

/// How a device's rasterizer snaps line endpoints, and which way the layer moves them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EndpointGrid {
    /// The rasterizer's `lineSubPixelPrecisionBits`.
    pub subpixel_bits: u32,
    /// Testing only: into the diamond, GL's choice turned over, so that a driver that already
    /// decides as GL shows where the route runs.
    pub toward_centre: bool,
}

/// The step: `stage`, the last pre-rasterization stage, moves line endpoints that its
/// rasterizer would snap onto a diamond's edge one subpixel off it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LineEndpoints {
    pub stage: Stage,
    pub block_offset: u32,
    pub grid: EndpointGrid,
    /// The pipeline may draw other primitives than lines: the code applies only while the
    /// GL-state block's `FLAG_LINES` says lines are drawn.
    pub lines_gated: bool,
    /// The sample count is dynamic state: the code applies only while the block's
    /// `FLAG_MULTISAMPLED` is clear (GL's aliased lines are single-sampled ones).
    pub samples_gated: bool,
}

impl Rule for LineEndpoints {
    const SEMANTIC: Semantic = Semantic::LineRasterization;
    const NOTE: &'static str = "GL's line endpoints off the diamonds' edges";
    const OWN_NAME: Option<&'static str> = Some("line_endpoints");
    const READS_BLOCK: bool = true;

    fn stage(&self) -> Option<Stage> {
        Some(self.stage)
    }

    fn rewrite(&self, words: &[u32], entry: &str) -> PassResult {
        move_endpoints_off_edges(words, entry, self)
    }
}

//! The GL-state push-constant block: GL state that Vulkan dropped, pushed by the layer per
//! command buffer and read by the shaders it rewrites or generates.
//!
//! ```text
//! struct GlState {          // at the block's offset in the pipeline layout
//!     float inner[2];       // +0   glPatchParameterfv(GL_PATCH_DEFAULT_INNER_LEVEL); in a
//!                           //      pipeline without tessellation, pushed per draw, the
//!                           //      address of a strip's stipple counts (STIPPLE_COUNTS)
//!     float outer[4];       // +8   glPatchParameterfv(GL_PATCH_DEFAULT_OUTER_LEVEL)
//!     float point_size;     // +24  glPointSize
//!     uint  flags;          // +28  bit 0: GL_PROGRAM_POINT_SIZE; bit 1: point sprite origin
//!                           //      GL_LOWER_LEFT; bit 2: layered target; bits 3-7:
//!                           //      multisampled, lines and the line route's; bits 8-15:
//!                           //      GL_CLIP_DISTANCEi; bits 16-18: the line route's passes
//!     float window_height;  // +32  H of gl_FragCoord.y = H - y (a flipped viewport's y)
//!     uint  base_instance;  // +36  the draw's firstInstance, where the device has no
//!                           //      BaseInstance built-in (no shaderDrawParameters)
//!     float viewport_scale[2];  // +40  viewport 0's width / 2, height / 2
//!     float viewport_offset[2]; // +48  viewport 0's x + width / 2, y + height / 2
//!     uint  line_stipple;   // +56  glLineStipple: bits 0-15 the pattern, 16-24 the factor
//!                           //      (1..256); FLAG_LINE_STIPPLE enables it
//! };
//! ```
//!
//! The generated TCS reads the levels; rewritten vertex, tessellation evaluation and
//! geometry shaders read `point_size` and `flags`, fragment shaders `flags` and
//! `window_height`, vertex shaders `base_instance`, the last pre-rasterization stage the
//! viewport (GL's line endpoints), and a fragment shader that takes GL's lines by the
//! fragment route (`line_fragment`) the viewport and the stipple, all through
//! [`StateReader`].

use spirv::{Decoration, StorageClass};

use super::error::PassError;
use super::module::{Editor, EntryPoint, Instruction, Module, Type};

/// Size of the whole block in bytes.
pub const BLOCK_SIZE: u32 = 60;
/// The levels alone, all a generated TCS reads: a layout with no room for the whole block
/// may still hold them.
pub const LEVELS_SIZE: u32 = 24;
/// Byte offsets of the fields within the block.
pub const INNER_LEVELS: u32 = 0;
pub const OUTER_LEVELS: u32 = 8;
pub const POINT_SIZE: u32 = 24;
pub const FLAGS: u32 = 28;
pub const WINDOW_HEIGHT: u32 = 32;
pub const BASE_INSTANCE: u32 = 36;
/// Four floats (not vectors, so that the block may sit at any 4-aligned offset): the
/// scale's x and y, then the offset's.
pub const VIEWPORT_SCALE: u32 = 40;
pub const VIEWPORT_OFFSET: u32 = 48;
/// `glLineStipple`'s pattern (bits 0-15) and factor (bits 16-24), for the line route.
pub const LINE_STIPPLE: u32 = 56;
/// The device address of the layer's stipple-count buffer (`stipple_counts`), its low word
/// then its high word, pushed per draw where the fragment line route's stipple counts on
/// across the segments of a strip: in the place of the tessellation levels, which only a
/// pipeline with tessellation reads, and counting needs a vertex shader as the last
/// pre-rasterization stage.
pub const STIPPLE_COUNTS: u32 = INNER_LEVELS;
/// `flags` bit: `GL_PROGRAM_POINT_SIZE` is enabled.
pub const FLAG_PROGRAM_POINT_SIZE: u32 = 1;
/// `flags` bit: `GL_POINT_SPRITE_COORD_ORIGIN` is `GL_LOWER_LEFT`.
pub const FLAG_POINT_SPRITE_LOWER_LEFT: u32 = 1 << 1;
/// `flags` bit: the render target is layered (more than one layer); `gl_Layer` counts.
pub const FLAG_LAYERED: u32 = 1 << 2;
/// The rasterization in effect is multisampled (a dynamic sample count above one):
/// `gl_SampleMask` applies (ARB_sample_shading: only when `SAMPLE_BUFFERS` is one).
pub const FLAG_MULTISAMPLED: u32 = 1 << 3;
/// `flags` bit: the primitives drawn now are rasterized as lines (a line topology set as
/// dynamic state, or a polygon mode `LINE`), for code that applies to lines only.
pub const FLAG_LINES: u32 = 1 << 4;
/// `flags` bit: `GL_LINE_STIPPLE` is enabled (the line route's stipple).
pub const FLAG_LINE_STIPPLE: u32 = 1 << 5;
/// `flags` bit: the dynamic line width is not 1 (`glLineWidth`): the fragment route leaves
/// such lines as the driver draws them.
pub const FLAG_WIDE_LINES: u32 = 1 << 6;
/// `flags` bit: the bound pipeline's last pre-rasterization stage sends lines the fragment
/// line route tests (a fragment-shader library tests GL's lines only then).
pub const FLAG_LINE_VARYINGS: u32 = 1 << 7;
/// `flags` bits of the fragment line route's band passes (`line_fragment`): the layer draws
/// a draw of lines three times, first with `FLAG_LINE_BANDS` alone, the vertices where the
/// shader puts them, keeping GL's fragments but those of the two bands along the line's
/// edges; then with `FLAG_LINE_BAND_UP` (`DOWN`), the vertices moved by one subpixel up
/// (down) in x and y, keeping only GL's fragments of the upper (lower) band, which the
/// driver's rectangle, its endpoints snapped to the subpixel grid, may leave out of the
/// first draw. With none set, one draw keeps every fragment GL produces.
pub const FLAG_LINE_BANDS: u32 = 1 << 16;
pub const FLAG_LINE_BAND_UP: u32 = 1 << 17;
pub const FLAG_LINE_BAND_DOWN: u32 = 1 << 18;
/// `flags` bits of the fragment line route's stipple over a strip (`line_fragment`): with
/// `FLAG_STIPPLE_CAPTURE` the vertex shader writes its clip position to the buffer at
/// `stipple_counts` and sends its vertex out of the view volume (nothing is drawn); the
/// layer's compute shader then turns the positions into each segment's first stipple count;
/// with `FLAG_STIPPLE_COUNTED` the vertex shader sends the count of the segment it provokes,
/// which the fragment shader's stipple counts from.
pub const FLAG_STIPPLE_CAPTURE: u32 = 1 << 19;
pub const FLAG_STIPPLE_COUNTED: u32 = 1 << 20;
/// `flags` bit of clip plane `i` (0..8): `GL_CLIP_DISTANCEi` is enabled.
pub const fn flag_clip_distance(i: u32) -> u32 {
    1 << (8 + i)
}
/// How many clip planes the flags can enable (GL's `GL_MAX_CLIP_DISTANCES` on Mesa).
pub const CLIP_DISTANCE_FLAGS: u32 = 8;

/// The block's fields (past the levels, and the counts' address) as one module reads them:
/// a push-constant block at the block's offsets, declared whole by the first pass that needs
/// it, found again by the next, and grown where an earlier version of the layer's block
/// lacks a field.
pub struct StateReader {
    var: u32,
    /// The member of each of [`FIELDS`], in its order.
    members: [u32; FIELDS.len()],
    /// The variable is new: it must join the entry point's interface (SPIR-V ≥ 1.4).
    pub declared: Option<u32>,
}

/// The fields a shader reads, by offset, and whether each is a float (else a 32-bit uint):
/// those past the levels, and the counts' address in their place.
const FIELDS: [(u32, bool); 11] = [
    (POINT_SIZE, true),
    (FLAGS, false),
    (WINDOW_HEIGHT, true),
    (BASE_INSTANCE, false),
    (VIEWPORT_SCALE, true),
    (VIEWPORT_SCALE + 4, true),
    (VIEWPORT_OFFSET, true),
    (VIEWPORT_OFFSET + 4, true),
    (LINE_STIPPLE, false),
    (STIPPLE_COUNTS, false),
    (STIPPLE_COUNTS + 4, false),
];
const POINT_SIZE_FIELD: usize = 0;
const FLAGS_FIELD: usize = 1;
const WINDOW_HEIGHT_FIELD: usize = 2;
const BASE_INSTANCE_FIELD: usize = 3;
const VIEWPORT_FIELDS: usize = 4;
const LINE_STIPPLE_FIELD: usize = 8;
const STIPPLE_COUNTS_FIELDS: usize = 9;

/// The module's push-constant variable and its pointee, where it has one. An entry point
/// statically uses at most one push-constant block: two are the shader's own, unsupported.
pub(crate) fn push_constant_block(
    m: &Module<'_>,
    ep: &EntryPoint,
) -> Result<Option<(u32, u32)>, PassError> {
    let push_vars: Vec<(u32, u32)> = m
        .globals
        .keys()
        .filter_map(|&id| match m.variable(id)? {
            (StorageClass::PushConstant, pointee) => Some((id, pointee)),
            _ => None,
        })
        .collect();
    match push_vars[..] {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        _ => Err(own_block(ep)),
    }
}

/// The error for a shader whose push-constant block is not the GL-state block.
pub(crate) fn own_block(ep: &EntryPoint) -> PassError {
    PassError::Unsupported(format!(
        "the {:?} shader has a push-constant block of its own",
        ep.model
    ))
}

impl StateReader {
    /// Finds the block in `m`, or declares it in `e`. A module with a push-constant block of
    /// its own cannot get a second one (an entry point uses at most one): unsupported, as is
    /// a block with a member outside the GL-state block or without its `flags`.
    pub fn find_or_declare(
        m: &Module<'_>,
        e: &mut Editor<'_, '_>,
        ep: &EntryPoint,
        block_offset: u32,
    ) -> Result<StateReader, PassError> {
        let at = |field: u32| block_offset + field;
        let float = e.type_float(32);
        let uint = e.type_int(32, false);
        let type_of = |is_float: bool| if is_float { float } else { uint };
        let Some((var, block)) = push_constant_block(m, ep)? else {
            let types = FIELDS.map(|(_, is_float)| type_of(is_float));
            let block = e.type_struct(&types);
            e.decorate(block, Decoration::Block, &[]);
            for (member, (offset, _)) in (0..).zip(FIELDS) {
                e.member_decorate(block, member, Decoration::Offset, &[at(offset)]);
            }
            e.name(block, "GlsemGlState");
            let var = e.add_variable(StorageClass::PushConstant, block);
            e.name(var, "glsem_gl_state");
            return Ok(StateReader {
                var,
                members: std::array::from_fn(|i| i as u32),
                declared: Some(var),
            });
        };
        let mut members = match m.type_of(block) {
            Some(Type::Struct { members }) => members.clone(),
            _ => return Err(own_block(ep)),
        };
        let offset_of =
            |member: u32| m.member_decoration_literal(block, member, Decoration::Offset);
        let offsets: Vec<Option<u32>> = (0..members.len() as u32).map(offset_of).collect();
        // Only the GL-state block itself takes new members: its flags are where they belong
        // and nothing of it lies outside the block.
        let in_block = |o: &Option<u32>| o.is_some_and(|o| o >= block_offset && o < at(BLOCK_SIZE));
        if !offsets.iter().all(in_block) || !offsets.contains(&Some(at(FLAGS))) {
            return Err(own_block(ep));
        }
        let mut found = [0u32; FIELDS.len()];
        let mut added = Vec::new();
        for (slot, (offset, is_float)) in FIELDS.into_iter().enumerate() {
            let ty = type_of(is_float);
            found[slot] = match offsets.iter().position(|&o| o == Some(at(offset))) {
                Some(i) if members[i] == ty => i as u32,
                Some(_) => return Err(own_block(ep)),
                None => {
                    members.push(ty);
                    added.push((members.len() as u32 - 1, at(offset)));
                    members.len() as u32 - 1
                }
            };
        }
        if !added.is_empty() {
            // The members' types are the module's own float and uint, declared before the
            // block, so the struct can grow in its place.
            let index = *m.globals.get(&block).ok_or_else(|| own_block(ep))?;
            let grown = Instruction::type_struct(block, &members);
            e.replace(index, grown.to_words());
            for (member, offset) in added {
                e.member_decorate(block, member, Decoration::Offset, &[offset]);
            }
        }
        Ok(StateReader {
            var,
            members: found,
            declared: None,
        })
    }

    fn load(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>, member: u32, ty: u32) -> u32 {
        let ptr_type = e.type_pointer(StorageClass::PushConstant, ty);
        let index = e.constant_i32(member as i32);
        let ptr = e.access_chain(code, ptr_type, self.var, &[index]);
        e.load(code, ty, ptr)
    }

    /// Emits a load of `point_size` (a 32-bit float).
    pub fn point_size(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let float = e.type_float(32);
        self.load(e, code, self.members[POINT_SIZE_FIELD], float)
    }

    /// Emits a load of `window_height` (a 32-bit float).
    pub fn window_height(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let float = e.type_float(32);
        self.load(e, code, self.members[WINDOW_HEIGHT_FIELD], float)
    }

    /// Emits a load of `base_instance` (a 32-bit unsigned integer).
    pub fn base_instance(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let uint = e.type_int(32, false);
        self.load(e, code, self.members[BASE_INSTANCE_FIELD], uint)
    }

    /// Emits loads of `viewport_scale` and `viewport_offset`: x and y of the scale, then
    /// of the offset (32-bit floats).
    pub fn viewport(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> [u32; 4] {
        let float = e.type_float(32);
        [0, 1, 2, 3].map(|i| self.load(e, code, self.members[VIEWPORT_FIELDS + i], float))
    }

    /// Emits a load of `line_stipple` (a 32-bit unsigned integer).
    pub fn line_stipple(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let uint = e.type_int(32, false);
        self.load(e, code, self.members[LINE_STIPPLE_FIELD], uint)
    }

    /// Emits loads of `stipple_counts`: the address's low and high words (32-bit unsigned
    /// integers).
    pub fn stipple_counts(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> [u32; 2] {
        let uint = e.type_int(32, false);
        [0, 1].map(|i| self.load(e, code, self.members[STIPPLE_COUNTS_FIELDS + i], uint))
    }

    /// Emits a load of `flags` (a 32-bit unsigned integer).
    pub fn flags(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let uint = e.type_int(32, false);
        self.load(e, code, self.members[FLAGS_FIELD], uint)
    }

    /// Emits a test of `flags & bit`; returns the bool's id.
    pub fn flag_set(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>, bit: u32) -> u32 {
        let uint = e.type_int(32, false);
        let flags = self.flags(e, code);
        let (mask, zero, bool_type) = (e.constant_u32(bit), e.constant_u32(0), e.type_bool());
        let masked = e.bitwise_and(code, uint, flags, mask);
        e.i_not_equal(code, bool_type, masked, zero)
    }

    /// Emits `flags & bit ? *ptr : otherwise`: what the shader wrote to `ptr` (a `ty`)
    /// where the GL state's `bit` says to keep it, `otherwise` where it does not.
    pub fn written_if_flag(
        &self,
        e: &mut Editor<'_, '_>,
        code: &mut Vec<u32>,
        bit: u32,
        ty: u32,
        ptr: u32,
        otherwise: u32,
    ) -> u32 {
        let keep = self.flag_set(e, code, bit);
        let written = e.load(code, ty, ptr);
        e.select(code, ty, keep, written, otherwise)
    }
}

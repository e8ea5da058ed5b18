//! The GL-state push-constant block: GL state that Vulkan dropped, pushed by the layer per
//! command buffer and read by the shaders it rewrites or generates.
//!
//! ```text
//! struct GlState {          // at the block's offset in the pipeline layout
//!     float inner[2];       // +0   glPatchParameterfv(GL_PATCH_DEFAULT_INNER_LEVEL)
//!     float outer[4];       // +8   glPatchParameterfv(GL_PATCH_DEFAULT_OUTER_LEVEL)
//!     float point_size;     // +24  glPointSize
//!     uint  flags;          // +28  bit 0: GL_PROGRAM_POINT_SIZE; bit 1: point sprite origin
//!                           //      GL_LOWER_LEFT; bit 2: layered target; bits 8-15:
//!                           //      GL_CLIP_DISTANCEi
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
//! viewport (GL's line endpoints), through [`StateReader`]; a fragment shader that takes GL's
//! lines by the fragment route (`line_fragment`) the viewport and the stipple.

use spirv::{Decoration, StorageClass};

use super::error::PassError;
use super::module::{Editor, EntryPoint, Module, Type};

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
/// `flags` bit of clip plane `i` (0..8): `GL_CLIP_DISTANCEi` is enabled.
pub const fn flag_clip_distance(i: u32) -> u32 {
    1 << (8 + i)
}
/// How many clip planes the flags can enable (GL's `GL_MAX_CLIP_DISTANCES` on Mesa).
pub const CLIP_DISTANCE_FLAGS: u32 = 8;

/// The block's `point_size`, `flags`, `window_height`, `base_instance` and viewport fields
/// as one module reads them: a push-constant block of eight members at the block's offsets,
/// declared by the first pass that needs it and found again by the next.
pub struct StateReader {
    var: u32,
    point_size_member: u32,
    flags_member: u32,
    window_height_member: u32,
    base_instance_member: u32,
    /// The four floats of the viewport's scale and offset.
    viewport_members: [u32; 4],
    /// The variable is new: it must join the entry point's interface (SPIR-V ≥ 1.4).
    pub declared: Option<u32>,
}

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
    /// its own cannot get a second one (an entry point uses at most one): unsupported.
    pub fn find_or_declare(
        m: &Module<'_>,
        e: &mut Editor<'_, '_>,
        ep: &EntryPoint,
        block_offset: u32,
    ) -> Result<StateReader, PassError> {
        let at = |field: u32| block_offset + field;
        if let Some((var, block)) = push_constant_block(m, ep)? {
            let offset_of = |member: u32| {
                m.member_decorations_of(block, member)
                    .find(|(d, _)| *d == Decoration::Offset)
                    .and_then(|(_, lits)| lits.first().copied())
            };
            let members = match m.type_of(block) {
                Some(Type::Struct { members }) => members.len() as u32,
                _ => 0,
            };
            let find = |offset: u32| (0..members).find(|&i| offset_of(i) == Some(offset));
            return match (
                find(at(POINT_SIZE)),
                find(at(FLAGS)),
                find(at(WINDOW_HEIGHT)),
                find(at(BASE_INSTANCE)),
                [0, 4, 8, 12].map(|i| find(at(VIEWPORT_SCALE + i))),
            ) {
                (
                    Some(point_size_member),
                    Some(flags_member),
                    Some(window_height_member),
                    Some(base_instance_member),
                    [Some(scale_x), Some(scale_y), Some(offset_x), Some(offset_y)],
                ) => Ok(StateReader {
                    var,
                    point_size_member,
                    flags_member,
                    window_height_member,
                    base_instance_member,
                    viewport_members: [scale_x, scale_y, offset_x, offset_y],
                    declared: None,
                }),
                _ => Err(own_block(ep)),
            };
        }
        let float = e.type_float(32);
        let uint = e.type_int(32, false);
        let block = e.type_struct(&[float, uint, float, uint, float, float, float, float]);
        e.decorate(block, Decoration::Block, &[]);
        e.member_decorate(block, 0, Decoration::Offset, &[at(POINT_SIZE)]);
        e.member_decorate(block, 1, Decoration::Offset, &[at(FLAGS)]);
        e.member_decorate(block, 2, Decoration::Offset, &[at(WINDOW_HEIGHT)]);
        e.member_decorate(block, 3, Decoration::Offset, &[at(BASE_INSTANCE)]);
        for (member, field) in (4..).zip([0, 4, 8, 12]) {
            e.member_decorate(
                block,
                member,
                Decoration::Offset,
                &[at(VIEWPORT_SCALE + field)],
            );
        }
        e.name(block, "GlsemGlState");
        let var = e.add_variable(StorageClass::PushConstant, block);
        e.name(var, "glsem_gl_state");
        Ok(StateReader {
            var,
            point_size_member: 0,
            flags_member: 1,
            window_height_member: 2,
            base_instance_member: 3,
            viewport_members: [4, 5, 6, 7],
            declared: Some(var),
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
        self.load(e, code, self.point_size_member, float)
    }

    /// Emits a load of `window_height` (a 32-bit float).
    pub fn window_height(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let float = e.type_float(32);
        self.load(e, code, self.window_height_member, float)
    }

    /// Emits a load of `base_instance` (a 32-bit unsigned integer).
    pub fn base_instance(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> u32 {
        let uint = e.type_int(32, false);
        self.load(e, code, self.base_instance_member, uint)
    }

    /// Emits loads of `viewport_scale` and `viewport_offset`: x and y of the scale, then
    /// of the offset (32-bit floats).
    pub fn viewport(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>) -> [u32; 4] {
        let float = e.type_float(32);
        self.viewport_members
            .map(|member| self.load(e, code, member, float))
    }

    /// Emits a test of `flags & bit`; returns the bool's id.
    pub fn flag_set(&self, e: &mut Editor<'_, '_>, code: &mut Vec<u32>, bit: u32) -> u32 {
        let uint = e.type_int(32, false);
        let flags = self.load(e, code, self.flags_member, uint);
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

//! Where a pipeline layout holds the GL-state push-constant block (`glsem_spirv::gl_state`),
//! and the ranges a layout (or a shader object) is created with ([`plan_layout`]).
//!
//! The placement is a pure function of the application's push-constant ranges, the stages that read the
//! block and `maxPushConstantsSize`, so layouts that were compatible stay compatible. The
//! block never shares a byte with an application range of other stages: `vkCmdPushConstants`
//! must name every stage of every range a pushed byte falls in, so an overlap would
//! invalidate the application's own pushes.

use ash::vk;

use crate::layer::data::records::BlockSlot;
use crate::layer::loader::state::DeviceData;
use crate::layer::support::log;
use glsem_spirv::gl_state::{BLOCK_SIZE, LEVELS_SIZE};
use glsem_spirv::semantics::Semantic;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Add a range of `size` bytes at `offset` for `stages`.
    Add {
        offset: u32,
        size: u32,
        stages: vk::ShaderStageFlags,
    },
    /// The application already has the one range of some reader stage (Vulkan allows one
    /// range per stage): `pPushConstantRanges[index]` becomes `[start, start + size)` (same
    /// stages), which covers the `block_size` bytes of the block at `offset`. The other
    /// readers, `extra_stages`, get a range of their own over the block's bytes
    /// (overlapping ranges of different stages are allowed).
    Extend {
        index: usize,
        start: u32,
        size: u32,
        offset: u32,
        block_size: u32,
        extra_stages: vk::ShaderStageFlags,
    },
    /// The block does not fit; why.
    NoRoom(String),
}

impl Placement {
    /// The block's offset, its size and the stages a push of it must name.
    pub fn block(&self, app: &[vk::PushConstantRange]) -> Option<(u32, u32, vk::ShaderStageFlags)> {
        match *self {
            Placement::Add {
                offset,
                size,
                stages,
            } => Some((offset, size, stages)),
            Placement::Extend {
                index,
                offset,
                block_size,
                extra_stages,
                ..
            } => Some((offset, block_size, app[index].stage_flags | extra_stages)),
            Placement::NoRoom(_) => None,
        }
    }

    /// The ranges to create the layout with.
    pub fn ranges(&self, app: &[vk::PushConstantRange]) -> Option<Vec<vk::PushConstantRange>> {
        let mut ranges = app.to_vec();
        match *self {
            Placement::Add {
                offset,
                size,
                stages,
            } => ranges.push(vk::PushConstantRange {
                stage_flags: stages,
                offset,
                size,
            }),
            Placement::Extend {
                index,
                start,
                size,
                offset,
                block_size,
                extra_stages,
            } => {
                ranges[index].offset = start;
                ranges[index].size = size;
                if !extra_stages.is_empty() {
                    ranges.push(vk::PushConstantRange {
                        stage_flags: extra_stages,
                        offset,
                        size: block_size,
                    });
                }
            }
            Placement::NoRoom(_) => return None,
        }
        Some(ranges)
    }
}

fn end(r: &vk::PushConstantRange) -> u64 {
    u64::from(r.offset) + u64::from(r.size)
}

/// Whether `[offset, offset + size)` is free of every range except `skip`.
fn is_free(app: &[vk::PushConstantRange], offset: u64, size: u64, skip: Option<usize>) -> bool {
    app.iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .all(|(_, r)| end(r) <= offset || u64::from(r.offset) >= offset + size)
}

/// Places the whole GL-state block read by `readers` (see `place`).
pub fn place_block(
    app: &[vk::PushConstantRange],
    readers: vk::ShaderStageFlags,
    max_size: u32,
) -> Placement {
    place(app, readers, BLOCK_SIZE, max_size)
}

/// Places the first `block_size` bytes of the block read by `readers`: the highest
/// 4-aligned free gap, or an extension of the application's own range of a reader stage.
fn place(
    app: &[vk::PushConstantRange],
    readers: vk::ShaderStageFlags,
    block_size: u32,
    max_size: u32,
) -> Placement {
    let max = u64::from(max_size);
    let size = u64::from(block_size);
    let mut owners = app
        .iter()
        .enumerate()
        .filter(|(_, r)| r.stage_flags.intersects(readers));
    if let Some((index, owner)) = owners.next() {
        if let Some((_, second)) = owners.next() {
            return Placement::NoRoom(format!(
                "the application has push-constant ranges for {:?} and for {:?}, which \
                 would both have to hold the {block_size}-byte GL-state block",
                owner.stage_flags, second.stage_flags
            ));
        }
        let extra_stages = readers & !owner.stage_flags;
        // Only the bytes the extension adds must be free: the range keeps its stages, so the
        // application's pushes into its old bytes stay valid.
        let after = end(owner);
        if after + size <= max && is_free(app, after, size, Some(index)) {
            return Placement::Extend {
                index,
                start: owner.offset,
                size: owner.size + block_size,
                offset: after as u32,
                block_size,
                extra_stages,
            };
        }
        let before = u64::from(owner.offset);
        if before >= size && is_free(app, before - size, size, Some(index)) {
            let start = owner.offset - block_size;
            return Placement::Extend {
                index,
                start,
                size: owner.size + block_size,
                offset: start,
                block_size,
                extra_stages,
            };
        }
        return Placement::NoRoom(format!(
            "the application's {:?} push-constant range [{}, {}) cannot grow by {block_size} bytes \
             without overlapping another range or passing maxPushConstantsSize ({max_size})",
            owner.stage_flags,
            owner.offset,
            end(owner)
        ));
    }
    if max >= size {
        let mut offset = (max - size) & !3;
        loop {
            if is_free(app, offset, size, None) {
                return Placement::Add {
                    offset: offset as u32,
                    size: block_size,
                    stages: readers,
                };
            }
            if offset < 4 {
                break;
            }
            offset -= 4;
        }
    }
    Placement::NoRoom(format!(
        "no {block_size}-byte gap is left below maxPushConstantsSize ({max_size}) between the \
         application's push-constant ranges"
    ))
}

/// The stages that read the GL-state block on `dev`: the generated TCS (the levels) where
/// tessellation is on, and the vertex-processing stages (point and clip state) and the
/// fragment stage where the rules' conventions have it read the block (GL's window
/// coordinates, the fragment route's lines), on devices that enabled `VK_GLSEM_gl_state`.
fn block_readers(dev: &DeviceData) -> vk::ShaderStageFlags {
    use vk::ShaderStageFlags as S;
    let tessellation = dev.features.tessellation_shader;
    let mut readers = S::empty();
    if tessellation && dev.settings.semantics.contains(Semantic::PassthroughTcs) {
        readers |= S::TESSELLATION_CONTROL;
    }
    if dev.extensions.gl_state {
        readers |= S::VERTEX;
        if tessellation {
            readers |= S::TESSELLATION_EVALUATION;
        }
        if dev.features.geometry_shader {
            readers |= S::GEOMETRY;
        }
        if dev.conventions.fragment_reads_block {
            readers |= S::FRAGMENT;
        }
    }
    readers
}

/// The push-constant ranges to create a layout with (`None`: the application's own) and
/// where the layout holds the GL-state block.
pub fn plan_layout(
    dev: &DeviceData,
    app: &[vk::PushConstantRange],
) -> (Option<Vec<vk::PushConstantRange>>, BlockSlot) {
    let readers = block_readers(dev);
    if readers.is_empty() {
        let why = "no stage reads it (tessellationShader is off or passthrough_tcs is off, \
                   and VK_GLSEM_gl_state is not enabled)";
        return (None, BlockSlot::Unavailable(why.into()));
    }
    // All readers first; fewer may still fit where all do not: without the fragment stage
    // (an application with ranges for both the vertex and the fragment stage), then the
    // levels alone (all the generated TCS reads: 24 bytes, not the whole block). `lost` says
    // what a fallback gives up.
    let tcs = vk::ShaderStageFlags::TESSELLATION_CONTROL;
    let candidates = [
        (readers, BLOCK_SIZE, None),
        (
            readers & !vk::ShaderStageFlags::FRAGMENT,
            BLOCK_SIZE,
            Some("GL's window coordinates cannot reach its fragment shaders"),
        ),
        (
            tcs,
            LEVELS_SIZE,
            Some(
                "GL's point, clip and window state cannot reach its shaders (GL's defaults \
                 are used)",
            ),
        ),
    ];
    let mut why = None;
    for (fewer, block_size, lost) in candidates {
        let tried_already = lost.is_some() && (fewer, block_size) == (readers, BLOCK_SIZE);
        if !readers.contains(fewer) || fewer.is_empty() || tried_already {
            continue;
        }
        let placement = place(app, fewer, block_size, dev.limits.max_push_constants_size);
        let Some((offset, size, push_stages)) = placement.block(app) else {
            if let Placement::NoRoom(no_room) = placement {
                why.get_or_insert(no_room);
            }
            continue;
        };
        match (&why, lost) {
            (Some(why), Some(lost)) => {
                log::warning!("pipeline layout: {why}; {lost}; the block sits at offset {offset}")
            }
            _ => log::debug!(
                "pipeline layout: the GL-state block at push-constant offset {offset} for \
                 {fewer:?}"
            ),
        }
        let slot = BlockSlot::Reserved {
            offset,
            size,
            push_stages,
            reads: fewer,
        };
        return (placement.ranges(app), slot);
    }
    let why = why.unwrap_or_default();
    log::warning!(
        "pipeline layout: {why}; pipelines on it with a tessellation evaluation shader and \
         no control shader will fail to create, and GL's point and clip state cannot reach \
         their shaders"
    );
    (None, BlockSlot::Unavailable(why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::ShaderStageFlags as S;

    const TCS: S = S::TESSELLATION_CONTROL;

    fn range(stages: S, offset: u32, size: u32) -> vk::PushConstantRange {
        vk::PushConstantRange {
            stage_flags: stages,
            offset,
            size,
        }
    }

    /// Whether `place_block` finds no room for the block.
    fn no_room(app: &[vk::PushConstantRange], readers: S, limit: u32) -> bool {
        matches!(place_block(app, readers, limit), Placement::NoRoom(_))
    }

    fn add(offset: u32, stages: S) -> Placement {
        Placement::Add {
            offset,
            size: BLOCK_SIZE,
            stages,
        }
    }

    #[test]
    fn no_ranges_puts_the_block_at_the_top() {
        // 128 - 60 = 68, already 4-aligned.
        assert_eq!(place_block(&[], TCS, 128), add(68, TCS));
        let readers = TCS | S::VERTEX | S::TESSELLATION_EVALUATION | S::GEOMETRY;
        assert_eq!(place_block(&[], readers, 128), add(68, readers));
    }

    #[test]
    fn top_is_aligned_down_to_4() {
        // 130 - 60 = 70 → 68.
        assert_eq!(place_block(&[], TCS, 130), add(68, TCS));
    }

    #[test]
    fn app_range_of_other_stages_below_leaves_the_top_free() {
        let app = [range(S::FRAGMENT, 0, 64)];
        assert_eq!(
            place_block(&app, TCS | S::VERTEX, 128),
            add(68, TCS | S::VERTEX)
        );
    }

    #[test]
    fn app_range_at_the_top_pushes_the_block_below_it() {
        // [96, 128) taken: highest free 60 bytes end at 96 → 36.
        let app = [range(S::FRAGMENT, 96, 32)];
        assert_eq!(place_block(&app, TCS, 128), add(36, TCS));
    }

    #[test]
    fn a_gap_between_ranges_is_used() {
        // [0,12) and [76,128) leave [12,76): 60 bytes fit at 16 (highest, 4-aligned) .. 12.
        let app = [range(S::FRAGMENT, 0, 12), range(S::COMPUTE, 76, 52)];
        assert_eq!(place_block(&app, TCS, 128), add(16, TCS));
    }

    #[test]
    fn ranges_filling_everything_leave_no_room() {
        let app = [range(S::FRAGMENT, 0, 64), range(S::COMPUTE, 64, 64)];
        assert!(no_room(&app, TCS, 128));
        // A 32-byte gap is not enough either.
        let app = [range(S::FRAGMENT, 0, 64), range(S::COMPUTE, 96, 32)];
        assert!(no_room(&app, TCS, 128));
    }

    #[test]
    fn limit_smaller_than_the_block() {
        assert!(no_room(&[], TCS, 16));
    }

    #[test]
    fn a_reader_range_is_extended_upwards_and_the_other_readers_get_their_own() {
        let app = [range(S::VERTEX, 0, 16)];
        let placement = place_block(&app, TCS | S::VERTEX, 128);
        assert_eq!(
            placement,
            Placement::Extend {
                index: 0,
                start: 0,
                size: 76,
                offset: 16,
                block_size: BLOCK_SIZE,
                extra_stages: TCS,
            }
        );
        let ranges: Vec<_> = placement
            .ranges(&app)
            .unwrap()
            .iter()
            .map(|r| (r.stage_flags, r.offset, r.size))
            .collect();
        assert_eq!(ranges, [(S::VERTEX, 0, 76), (TCS, 16, 60)]);
        assert_eq!(
            placement.block(&app),
            Some((16, BLOCK_SIZE, S::VERTEX | TCS))
        );
    }

    #[test]
    fn app_tcs_range_is_extended_downwards_when_above_is_taken() {
        let app = [range(S::FRAGMENT, 0, 16), range(TCS, 80, 48)];
        assert_eq!(
            place_block(&app, TCS, 128),
            Placement::Extend {
                index: 1,
                start: 20,
                size: 108,
                offset: 20,
                block_size: BLOCK_SIZE,
                extra_stages: S::empty(),
            }
        );
    }

    #[test]
    fn a_vertex_fragment_range_up_to_the_limit_has_no_room() {
        let app = [range(S::VERTEX | S::FRAGMENT, 0, 128)];
        assert!(no_room(&app, S::VERTEX | TCS, 128));
        // The levels alone still fit beside it only if TCS has no range: here they do not
        // share a stage, but no byte is free either.
        assert!(no_room(&app, TCS, 128));
    }

    #[test]
    fn two_reader_ranges_cannot_both_hold_it() {
        let app = [range(S::VERTEX, 0, 16), range(S::GEOMETRY, 16, 16)];
        assert!(no_room(&app, S::VERTEX | S::GEOMETRY, 128));
    }

    #[test]
    fn app_tcs_range_boxed_in_has_no_room() {
        // The TCS range sits between two other ranges and the limit: it cannot grow, and a
        // second TCS range is not allowed.
        let app = [
            range(S::VERTEX, 0, 16),
            range(TCS, 16, 16),
            range(S::FRAGMENT, 32, 96),
        ];
        assert!(no_room(&app, TCS, 128));
    }

    #[test]
    fn the_levels_alone_need_only_their_own_bytes() {
        // 104 of 128 bytes taken: the whole block does not fit, the 24 bytes of levels do.
        let app = [range(S::VERTEX | S::FRAGMENT, 0, 104)];
        assert!(no_room(&app, S::VERTEX | TCS, 128));
        assert_eq!(
            place(&app, TCS, LEVELS_SIZE, 128),
            Placement::Add {
                offset: 104,
                size: LEVELS_SIZE,
                stages: TCS,
            }
        );
    }
}

//! Where a pipeline layout holds the generated TCS's tessellation levels (DESIGN.md §4.3).
//!
//! A pure function of the application's push-constant ranges and `maxPushConstantsSize`,
//! so layouts that were compatible stay compatible. The levels never share a byte with an
//! application range of other stages: `vkCmdPushConstants` must name every stage of every
//! range a pushed byte falls in, so an overlap would invalidate the application's own
//! pushes.

use ash::vk;

use crate::spirv::passthrough_tcs::LEVELS_PUSH_CONSTANT_SIZE as SIZE;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Add a `TESSELLATION_CONTROL` range of 24 bytes at `offset`.
    Add { offset: u32 },
    /// The application already has a range with the TCS stage (Vulkan allows one per
    /// stage): `pPushConstantRanges[index]` becomes `[start, start + size)` (same stages),
    /// which also covers the levels at `offset`.
    Extend {
        index: usize,
        start: u32,
        size: u32,
        offset: u32,
    },
    /// The levels do not fit; why.
    NoRoom(String),
}

fn end(r: &vk::PushConstantRange) -> u64 {
    u64::from(r.offset) + u64::from(r.size)
}

/// Whether `[offset, offset + SIZE)` is free of every range except `skip`.
fn is_free(app: &[vk::PushConstantRange], offset: u64, skip: Option<usize>) -> bool {
    app.iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != skip)
        .all(|(_, r)| end(r) <= offset || u64::from(r.offset) >= offset + u64::from(SIZE))
}

/// Places the levels: the highest 4-aligned free gap, or an extension of the application's
/// own TCS range.
pub fn place_levels(app: &[vk::PushConstantRange], max_size: u32) -> Placement {
    let max = u64::from(max_size);
    let size = u64::from(SIZE);
    if let Some(index) = app.iter().position(|r| {
        r.stage_flags
            .contains(vk::ShaderStageFlags::TESSELLATION_CONTROL)
    }) {
        let tcs = app[index];
        // Only the bytes the extension adds must be free: the range keeps its stages, so the
        // application's pushes into its old bytes stay valid.
        let after = end(&tcs);
        if after + size <= max && is_free(app, after, Some(index)) {
            let (start, size) = (tcs.offset, tcs.size + SIZE);
            return Placement::Extend {
                index,
                start,
                size,
                offset: after as u32,
            };
        }
        let before = u64::from(tcs.offset);
        if before >= size && is_free(app, before - size, Some(index)) {
            let (start, size) = (tcs.offset - SIZE, tcs.size + SIZE);
            return Placement::Extend {
                index,
                start,
                size,
                offset: start,
            };
        }
        return Placement::NoRoom(format!(
            "the application's TESSELLATION_CONTROL push-constant range [{}, {}) cannot grow \
             by {SIZE} bytes without overlapping another range or passing \
             maxPushConstantsSize ({max_size})",
            tcs.offset,
            end(&tcs)
        ));
    }
    if max >= size {
        let mut offset = (max - size) & !3;
        loop {
            if is_free(app, offset, None) {
                return Placement::Add {
                    offset: offset as u32,
                };
            }
            if offset < 4 {
                break;
            }
            offset -= 4;
        }
    }
    Placement::NoRoom(format!(
        "no {SIZE}-byte gap is left below maxPushConstantsSize ({max_size}) between the \
         application's push-constant ranges"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::ShaderStageFlags as S;

    fn range(stages: S, offset: u32, size: u32) -> vk::PushConstantRange {
        vk::PushConstantRange {
            stage_flags: stages,
            offset,
            size,
        }
    }

    #[test]
    fn no_ranges_puts_the_levels_at_the_top() {
        // 128 - 24 = 104, already 4-aligned.
        assert_eq!(place_levels(&[], 128), Placement::Add { offset: 104 });
    }

    #[test]
    fn top_is_aligned_down_to_4() {
        // 130 - 24 = 106 → 104.
        assert_eq!(place_levels(&[], 130), Placement::Add { offset: 104 });
    }

    #[test]
    fn app_range_below_leaves_the_top_free() {
        let app = [range(S::VERTEX | S::FRAGMENT, 0, 64)];
        assert_eq!(place_levels(&app, 128), Placement::Add { offset: 104 });
    }

    #[test]
    fn app_range_at_the_top_pushes_the_levels_below_it() {
        // [96, 128) taken: highest free 24 bytes end at 96 → 72.
        let app = [range(S::VERTEX, 96, 32)];
        assert_eq!(place_levels(&app, 128), Placement::Add { offset: 72 });
    }

    #[test]
    fn a_gap_between_ranges_is_used() {
        // [0,16) and [48,128) leave [16,48): 24 bytes fit at 24 (highest) .. 16.
        let app = [range(S::VERTEX, 0, 16), range(S::FRAGMENT, 48, 80)];
        assert_eq!(place_levels(&app, 128), Placement::Add { offset: 24 });
    }

    #[test]
    fn ranges_filling_everything_leave_no_room() {
        let app = [range(S::VERTEX, 0, 64), range(S::FRAGMENT, 64, 64)];
        assert!(matches!(place_levels(&app, 128), Placement::NoRoom(_)));
        // A 20-byte gap is not enough either.
        let app = [range(S::VERTEX, 0, 64), range(S::FRAGMENT, 84, 44)];
        assert!(matches!(place_levels(&app, 128), Placement::NoRoom(_)));
    }

    #[test]
    fn limit_smaller_than_the_block() {
        assert!(matches!(place_levels(&[], 16), Placement::NoRoom(_)));
    }

    #[test]
    fn app_tcs_range_is_extended_upwards() {
        let app = [range(S::TESSELLATION_CONTROL | S::VERTEX, 0, 32)];
        assert_eq!(
            place_levels(&app, 128),
            Placement::Extend {
                index: 0,
                start: 0,
                size: 56,
                offset: 32
            }
        );
    }

    #[test]
    fn app_tcs_range_is_extended_downwards_when_above_is_taken() {
        let app = [
            range(S::FRAGMENT, 0, 16),
            range(S::TESSELLATION_CONTROL, 64, 64),
        ];
        assert_eq!(
            place_levels(&app, 128),
            Placement::Extend {
                index: 1,
                start: 40,
                size: 88,
                offset: 40
            }
        );
    }

    #[test]
    fn app_tcs_range_boxed_in_has_no_room() {
        // The TCS range sits between two other ranges and the limit: it cannot grow, and a
        // second TCS range is not allowed.
        let app = [
            range(S::VERTEX, 0, 16),
            range(S::TESSELLATION_CONTROL, 16, 16),
            range(S::FRAGMENT, 32, 96),
        ];
        assert!(matches!(place_levels(&app, 128), Placement::NoRoom(_)));
    }
}

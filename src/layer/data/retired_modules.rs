//! The records of the shader modules a device destroyed last, kept so that a module made
//! again from the same code costs no copy and no scan: a renderer that makes its modules
//! for each pipeline and destroys them after it, or remakes them on a reload, hands the
//! layer the same words again and again. A few records, bounded in count and size: a
//! record is found by the code's length and id bound, then by comparing the words (a
//! `memcmp`), never by hashing them.

/// How many destroyed modules' records a device keeps.
const KEPT_RECORDS: usize = 8;

/// The largest module kept, in words (16 KiB): the records hold at most 128 KiB of code.
const KEPT_WORDS: usize = 4096;

/// What a retired record is found by: the module's code.
pub trait RetiredCode {
    fn code(&self) -> &[u32];
}

/// A code's length and id bound (its fourth word): equal for two modules of one code, and
/// kept apart from the records, so that telling most other code apart reads one cache line
/// and no record. Length 0 marks a free slot (empty code is never kept).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct CodeKey {
    len: usize,
    bound: u32,
}

impl CodeKey {
    fn of(code: &[u32]) -> CodeKey {
        CodeKey {
            len: code.len(),
            bound: code.get(3).copied().unwrap_or(0),
        }
    }
}

/// A device's retired module records: slots, each with its code's key and when it was
/// filled; a full set gives up its oldest.
pub struct RetiredModules<R> {
    keys: [CodeKey; KEPT_RECORDS],
    records: [Option<R>; KEPT_RECORDS],
    filled: [u64; KEPT_RECORDS],
    clock: u64,
}

impl<R> Default for RetiredModules<R> {
    fn default() -> Self {
        RetiredModules {
            keys: [CodeKey::default(); KEPT_RECORDS],
            records: std::array::from_fn(|_| None),
            filled: [0; KEPT_RECORDS],
            clock: 0,
        }
    }
}

impl<R: RetiredCode> RetiredModules<R> {
    /// The record of a destroyed module whose code is `words`, taken back, if one is kept.
    pub fn revive(&mut self, words: &[u32]) -> Option<R> {
        let key = CodeKey::of(words);
        let slot = (0..KEPT_RECORDS).find(|&slot| {
            self.keys[slot] == key
                && self.records[slot]
                    .as_ref()
                    .is_some_and(|r| r.code() == words)
        })?;
        self.keys[slot] = CodeKey::default();
        self.records[slot].take()
    }

    /// Keeps the record of a module the application destroyed. What it no longer keeps
    /// (the oldest record, or `record` itself when its code is empty or large) is returned,
    /// for the caller to drop outside its lock.
    pub fn retire(&mut self, record: R) -> Option<R> {
        let key = CodeKey::of(record.code());
        if key.len == 0 || key.len > KEPT_WORDS {
            return Some(record);
        }
        let slot = (0..KEPT_RECORDS)
            .find(|&slot| self.keys[slot].len == 0)
            .or_else(|| (0..KEPT_RECORDS).min_by_key(|&slot| self.filled[slot]))?;
        self.keys[slot] = key;
        self.filled[slot] = self.clock;
        self.clock += 1;
        self.records[slot].replace(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl RetiredCode for Vec<u32> {
        fn code(&self) -> &[u32] {
            self
        }
    }

    fn record(words: &[u32]) -> Vec<u32> {
        words.to_vec()
    }

    fn retired() -> RetiredModules<Vec<u32>> {
        RetiredModules::default()
    }

    #[test]
    fn the_same_code_is_revived_once() {
        let mut retired = retired();
        assert!(retired.retire(record(&[1, 2, 3])).is_none());
        let revived = retired.revive(&[1, 2, 3]).expect("kept");
        assert_eq!(revived, [1, 2, 3]);
        assert!(retired.revive(&[1, 2, 3]).is_none());
    }

    #[test]
    fn other_code_is_not_revived() {
        let mut retired = retired();
        retired.retire(record(&[1, 2, 3]));
        assert!(retired.revive(&[1, 2, 4]).is_none());
        assert!(retired.revive(&[1, 2]).is_none());
        assert!(retired.revive(&[1, 2, 3, 4]).is_none());
        assert!(retired.revive(&[1, 2, 3]).is_some());
    }

    #[test]
    fn the_oldest_record_leaves_first() {
        let mut retired = retired();
        for n in 0..KEPT_RECORDS as u32 {
            assert!(retired.retire(record(&[n])).is_none());
        }
        let oldest = retired.retire(record(&[100])).expect("full");
        assert_eq!(oldest, [0]);
        assert!(retired.revive(&[0]).is_none());
        assert!(retired.revive(&[1]).is_some());
        assert!(retired.revive(&[100]).is_some());
    }

    #[test]
    fn a_slot_freed_by_a_revival_is_filled_first() {
        let mut retired = retired();
        for n in 0..KEPT_RECORDS as u32 {
            retired.retire(record(&[n]));
        }
        assert!(retired.revive(&[3]).is_some());
        assert!(retired.retire(record(&[100])).is_none(), "a free slot");
        assert_eq!(retired.retire(record(&[101])), Some(vec![0]), "the oldest");
    }

    #[test]
    fn code_with_the_same_key_is_told_apart() {
        // The same length and id bound (the fourth word), other words.
        let mut retired = retired();
        retired.retire(record(&[1, 2, 3, 4, 5]));
        assert!(retired.revive(&[1, 2, 3, 4, 6]).is_none());
        assert!(retired.revive(&[9, 2, 3, 4, 5]).is_none());
        assert!(retired.revive(&[1, 2, 3, 4, 5]).is_some());
    }

    #[test]
    fn empty_code_is_not_kept() {
        let mut retired = retired();
        assert_eq!(retired.retire(record(&[])), Some(vec![]));
        assert!(retired.revive(&[]).is_none());
    }

    #[test]
    fn large_code_is_not_kept() {
        let mut retired = retired();
        let large = vec![7; KEPT_WORDS + 1];
        let returned = retired.retire(record(&large)).expect("too large to keep");
        assert_eq!(returned.len(), KEPT_WORDS + 1);
        assert!(retired.revive(&large).is_none());
        let largest = vec![7; KEPT_WORDS];
        assert!(retired.retire(record(&largest)).is_none());
        assert!(retired.revive(&largest).is_some());
    }
}

//! The records of the shader modules a device destroyed last, kept so that a module made
//! again from the same code costs no copy and no scan: a renderer that makes its modules
//! for each pipeline and destroys them after it, or remakes them on a reload, hands the
//! layer the same words again and again. A few records, bounded in count and size: a
//! record is found by comparing the new code with each one's words (different lengths
//! differ at once), never by hashing it.

use std::collections::VecDeque;

/// How many destroyed modules' records a device keeps.
const KEPT_RECORDS: usize = 8;

/// The largest module kept, in words (16 KiB): the records hold at most 128 KiB of code.
const KEPT_WORDS: usize = 4096;

/// What a retired record is found by: the module's code.
pub trait RetiredCode {
    fn code(&self) -> &[u32];
}

/// A device's retired module records, the oldest first.
pub struct RetiredModules<R> {
    records: VecDeque<R>,
}

impl<R> Default for RetiredModules<R> {
    fn default() -> Self {
        RetiredModules {
            // Its size for the device's life: keeping and reviving never allocate.
            records: VecDeque::with_capacity(KEPT_RECORDS),
        }
    }
}

impl<R: RetiredCode> RetiredModules<R> {
    /// The record of a destroyed module whose code is `words`, taken back, if one is kept.
    pub fn revive(&mut self, words: &[u32]) -> Option<R> {
        let at = self.records.iter().position(|r| r.code() == words)?;
        self.records.remove(at)
    }

    /// Keeps the record of a module the application destroyed. What it no longer keeps
    /// (the oldest record, or `record` itself when its code is large) is returned, for the
    /// caller to drop outside its lock.
    pub fn retire(&mut self, record: R) -> Option<R> {
        if record.code().len() > KEPT_WORDS {
            return Some(record);
        }
        let oldest = match self.records.len() {
            KEPT_RECORDS => self.records.pop_front(),
            _ => None,
        };
        self.records.push_back(record);
        oldest
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

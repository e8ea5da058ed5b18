//! The rewrite cache: (module content, pass, key) → result, so that identical pipelines
//! rewrite once. The lock is held only to look up or insert; passes run outside it.

use parking_lot::RwLock;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::records::{Kind, Live, ModuleRecord, REWRITES};
use crate::spirv::fragcolor::FragColorKey;
use crate::spirv::passthrough_tcs::TcsKey;
use crate::spirv::xfb_split::SplitInterface;

/// A module by content: hashed by its precomputed hash, compared word for word.
#[derive(Clone)]
pub struct ModuleKey {
    hash: u64,
    words: Arc<[u32]>,
}

impl ModuleKey {
    pub fn of(module: &ModuleRecord) -> ModuleKey {
        ModuleKey::new(module.hash(), module.words.clone())
    }

    /// `hash` must be `content_hash(&words)`.
    pub fn new(hash: u64, words: Arc<[u32]>) -> ModuleKey {
        ModuleKey { hash, words }
    }
}

impl Hash for ModuleKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl PartialEq for ModuleKey {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash
            && (Arc::ptr_eq(&self.words, &other.words) || self.words == other.words)
    }
}

impl Eq for ModuleKey {}

/// One pass over one module (or module pair), with the pass's key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum CacheKey {
    /// gl_FragColor broadcast of a fragment shader.
    FragColor {
        module: ModuleKey,
        entry: String,
        key: FragColorKey,
    },
    /// Split of fragment inputs matching the previous stage's split XFB outputs.
    SplitInputs {
        module: ModuleKey,
        entry: String,
        split: SplitInterface,
    },
    /// Last pre-rasterization stage: split its struct XFB outputs.
    XfbOutputs { module: ModuleKey, entry: String },
    /// A passthrough TCS generated for a TES (and the VS feeding it).
    Tcs {
        tes: ModuleKey,
        tes_entry: String,
        vertex: Option<(ModuleKey, String)>,
        key: TcsKey,
    },
}

#[derive(Clone)]
pub enum Outcome {
    /// The pass found nothing to change.
    Unchanged,
    Module(Arc<[u32]>),
    /// Split XFB outputs and the interface the next stage must match.
    Split(Arc<[u32]>, SplitInterface),
    /// The pass failed; the message was logged when it happened.
    Failed(Arc<str>),
}

struct Entry {
    outcome: Outcome,
    _live: Live,
}

#[derive(Default)]
pub struct RewriteCache {
    map: RwLock<HashMap<CacheKey, Entry>>,
}

impl RewriteCache {
    /// The cached outcome for `key`, or runs `pass` (without holding the lock), counts the
    /// rewrite and caches its outcome. The bool is true when `pass` ran.
    pub fn get_or_run(&self, key: CacheKey, pass: impl FnOnce() -> Outcome) -> (Outcome, bool) {
        if let Some(entry) = self.map.read().get(&key) {
            return (entry.outcome.clone(), false);
        }
        let outcome = pass();
        REWRITES.fetch_add(1, Ordering::Relaxed);
        let mut map = self.map.write();
        // Another thread may have run the same pass meanwhile; keep the first result.
        let entry = map.entry(key).or_insert(Entry {
            outcome,
            _live: Live::new(Kind::CacheEntry),
        });
        (entry.outcome.clone(), true)
    }
}

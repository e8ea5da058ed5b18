//! The rewrite cache: (module content, pass, key) → result, so that identical pipelines
//! rewrite once. The lock is held only to look up or insert; passes run outside it.
//!
//! The cache holds at most a budget of bytes (the `rewrite_cache_mb` setting): keys keep
//! their modules' words alive after the application destroyed them, so an application
//! that makes new modules all its life would otherwise grow without end. Past the budget,
//! the least recently used entries go, down to three quarters of it. Each entry counts the
//! words its key and outcome hold, even words it shares with other entries or a live
//! module: the budget bounds memory from above.

use parking_lot::RwLock;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::layer::data::records::{Kind, Live, ModuleRecord, REWRITES};
use crate::layer::data::words::Words;
use crate::layer::support::settings::Settings;
use glsem_spirv::passthrough_tcs::TcsKey;
use glsem_spirv::semantics::PrimitiveGsKey;
use glsem_spirv::semantics::Step;
use glsem_spirv::xfb_split::SplitInterface;

/// A module by content: hashed by its precomputed hash, compared word for word.
#[derive(Clone)]
pub struct ModuleKey {
    hash: u64,
    words: Words,
}

impl ModuleKey {
    pub fn of(module: &ModuleRecord) -> ModuleKey {
        ModuleKey::new(module.hash(), module.words.clone())
    }

    /// `hash` must be `content_hash(&words)`.
    pub fn new(hash: u64, words: Words) -> ModuleKey {
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
            && (Words::ptr_eq(&self.words, &other.words) || self.words == other.words)
    }
}

impl Eq for ModuleKey {}

impl ModuleKey {
    fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.words)
    }
}

/// One pass over one module (or module pair), with the pass's key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum CacheKey {
    /// A step on one stage's module; `split` is what the previous stage's split made, for
    /// the step that matches it.
    Stage {
        module: ModuleKey,
        entry: String,
        step: Step,
        split: Option<SplitInterface>,
    },
    /// A passthrough TCS generated for a TES (and the VS feeding it).
    Tcs {
        tes: ModuleKey,
        tes_entry: String,
        vertex: Option<(ModuleKey, String)>,
        key: TcsKey,
    },
    /// A geometry shader drawing GL's quads, quad strips or polygons after a vertex shader.
    Gs {
        vertex: ModuleKey,
        entry: String,
        key: PrimitiveGsKey,
    },
}

impl CacheKey {
    /// The bytes this key keeps alive (module words, entry point names).
    fn bytes(&self) -> usize {
        match self {
            CacheKey::Stage { module, entry, .. } => module.bytes() + entry.len(),
            CacheKey::Tcs {
                tes,
                tes_entry,
                vertex,
                ..
            } => {
                tes.bytes()
                    + tes_entry.len()
                    + vertex.as_ref().map_or(0, |(m, e)| m.bytes() + e.len())
            }
            CacheKey::Gs { vertex, entry, .. } => vertex.bytes() + entry.len(),
        }
    }
}

#[derive(Clone)]
pub enum Outcome {
    /// The pass found nothing to change.
    Unchanged,
    Module(Words),
    /// Split XFB outputs and the interface the next stage must match.
    Split(Words, SplitInterface),
    /// The pass failed; the message was logged when it happened.
    Failed(Arc<str>),
}

impl Outcome {
    /// The bytes this outcome keeps alive.
    fn bytes(&self) -> usize {
        match self {
            Outcome::Unchanged => 0,
            Outcome::Module(words) | Outcome::Split(words, _) => std::mem::size_of_val(&**words),
            Outcome::Failed(why) => why.len(),
        }
    }
}

struct Entry {
    outcome: Outcome,
    /// What the key and the outcome keep alive, plus a fixed share for the map's own
    /// memory.
    bytes: usize,
    /// The cache's clock when the entry was last looked up.
    last_used: AtomicU64,
    _live: Live,
}

/// An entry's bookkeeping beyond its words: the map slot, the key's fields, the `Arc`s.
const ENTRY_OVERHEAD: usize = 256;

#[derive(Default)]
struct Entries {
    map: HashMap<CacheKey, Entry>,
    /// Sum of the entries' `bytes`.
    bytes: usize,
}

impl Entries {
    /// Drops the least recently used entries until at most `target` bytes are held.
    fn evict_down_to(&mut self, target: usize) {
        let mut by_age: Vec<(u64, usize)> = self
            .map
            .values()
            .map(|e| (e.last_used.load(Ordering::Relaxed), e.bytes))
            .collect();
        by_age.sort_unstable();
        let mut held = self.bytes;
        let mut cutoff = 0;
        for (last_used, bytes) in by_age {
            if held <= target {
                break;
            }
            held -= bytes;
            cutoff = last_used + 1;
        }
        // Every lookup has its own tick: the cutoff removes exactly the entries counted.
        self.map
            .retain(|_, e| e.last_used.load(Ordering::Relaxed) >= cutoff);
        self.bytes = self.map.values().map(|e| e.bytes).sum();
    }
}

pub struct RewriteCache {
    entries: RwLock<Entries>,
    /// Counts lookups: the entries' `last_used`.
    clock: AtomicU64,
    budget: usize,
}

impl Default for RewriteCache {
    fn default() -> Self {
        RewriteCache::new(Settings::default().rewrite_cache_bytes())
    }
}

impl RewriteCache {
    /// A cache holding at most `budget` bytes; 0 caches nothing.
    pub fn new(budget: usize) -> RewriteCache {
        RewriteCache {
            entries: RwLock::default(),
            clock: AtomicU64::new(0),
            budget,
        }
    }

    /// The cached outcome for `key`, or runs `pass` (without holding the lock), counts the
    /// rewrite and caches its outcome. The bool is true when `pass` ran.
    pub fn get_or_run(&self, key: CacheKey, pass: impl FnOnce() -> Outcome) -> (Outcome, bool) {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        if let Some(entry) = self.entries.read().map.get(&key) {
            entry.last_used.fetch_max(now, Ordering::Relaxed);
            return (entry.outcome.clone(), false);
        }
        let outcome = pass();
        REWRITES.fetch_add(1, Ordering::Relaxed);
        let bytes = key.bytes() + outcome.bytes() + ENTRY_OVERHEAD;
        if bytes > self.budget {
            return (outcome, true);
        }
        let mut entries = self.entries.write();
        // Another thread may have run the same pass meanwhile; keep the first result.
        if let Some(entry) = entries.map.get(&key) {
            return (entry.outcome.clone(), true);
        }
        if entries.bytes + bytes > self.budget {
            entries.evict_down_to((self.budget / 4 * 3).saturating_sub(bytes));
        }
        entries.bytes += bytes;
        // A tick of now, not of the lookup: the pass may have taken a while.
        let inserted = self.clock.fetch_add(1, Ordering::Relaxed);
        entries.map.insert(
            key,
            Entry {
                outcome: outcome.clone(),
                bytes,
                last_used: AtomicU64::new(inserted),
                _live: Live::new(Kind::CacheEntry),
            },
        );
        (outcome, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A key of `n` words, all `fill`.
    fn key(fill: u32, n: usize) -> CacheKey {
        let words: Words = vec![fill; n].into();
        CacheKey::Stage {
            module: ModuleKey::new(super::super::records::content_hash(&words), words),
            entry: "main".into(),
            step: glsem_spirv::semantics::Step::SplitStructInputs(
                glsem_spirv::xfb_split::SplitStructInputs,
            ),
            split: None,
        }
    }

    /// Looks `k` up, rewriting it into `n` words; whether the pass ran.
    fn look_up(cache: &RewriteCache, k: &CacheKey, n: usize) -> bool {
        let ran = Cell::new(false);
        let (outcome, reported) = cache.get_or_run(k.clone(), || {
            ran.set(true);
            Outcome::Module(vec![7; n].into())
        });
        assert!(matches!(outcome, Outcome::Module(w) if w.len() == n));
        assert_eq!(reported, ran.get());
        ran.get()
    }

    fn held(cache: &RewriteCache) -> (usize, usize) {
        let entries = cache.entries.read();
        (entries.map.len(), entries.bytes)
    }

    #[test]
    fn identical_keys_rewrite_once() {
        let cache = RewriteCache::new(1 << 20);
        assert!(look_up(&cache, &key(1, 100), 120));
        assert!(
            !look_up(&cache, &key(1, 100), 120),
            "same content, another Arc"
        );
        assert!(look_up(&cache, &key(2, 100), 120), "other content");
        assert_eq!(held(&cache).0, 2);
    }

    #[test]
    fn least_recently_used_entries_go_past_the_budget() {
        // Each entry: 4000 bytes of key words, 4000 of output, "main", the overhead.
        let entry = 8000 + 4 + ENTRY_OVERHEAD;
        let cache = RewriteCache::new(4 * entry);
        let keys: Vec<_> = (0..5).map(|i| key(i, 1000)).collect();
        for k in &keys[..4] {
            assert!(look_up(&cache, k, 1000));
        }
        assert_eq!(held(&cache), (4, 4 * entry), "four fit");
        assert!(
            !look_up(&cache, &keys[0], 1000),
            "a hit makes 0 the most recent"
        );
        // The fifth goes over: down to 3/4 of the budget with it, so two old ones stay.
        assert!(look_up(&cache, &keys[4], 1000));
        assert_eq!(held(&cache), (3, 3 * entry));
        assert!(!look_up(&cache, &keys[0], 1000), "recently used: kept");
        assert!(!look_up(&cache, &keys[3], 1000), "newer than 1 and 2: kept");
        assert!(
            look_up(&cache, &keys[1], 1000),
            "least recently used: evicted"
        );
    }

    #[test]
    fn a_zero_budget_keeps_nothing_and_still_answers() {
        let cache = RewriteCache::new(0);
        assert!(look_up(&cache, &key(1, 10), 10));
        assert!(look_up(&cache, &key(1, 10), 10));
        assert_eq!(held(&cache), (0, 0));
    }
}

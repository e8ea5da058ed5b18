//! A counting wrapper around the system allocator, switched on only around the calls it
//! measures: how much memory a pass allocates per call explains where its time goes on
//! large modules (fresh pages cost page faults).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

pub struct Counting;

static ON: AtomicBool = AtomicBool::new(false);
static BYTES: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to `System`; the counters do not touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.load(Relaxed) {
            BYTES.fetch_add(layout.size(), Relaxed);
            CALLS.fetch_add(1, Relaxed);
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ON.load(Relaxed) {
            // Saturating: memory allocated before counting started may be freed during it.
            let _ = LIVE.fetch_update(Relaxed, Relaxed, |l| Some(l.saturating_sub(layout.size())));
        }
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.load(Relaxed) {
            BYTES.fetch_add(new_size, Relaxed);
            CALLS.fetch_add(1, Relaxed);
            let live = LIVE.fetch_add(new_size, Relaxed) + new_size;
            PEAK.fetch_max(live, Relaxed);
            let _ = LIVE.fetch_update(Relaxed, Relaxed, |l| Some(l.saturating_sub(layout.size())));
        }
        System.realloc(ptr, layout, new_size)
    }
}

/// What one call of `f` allocated (single-threaded use).
pub struct Allocated {
    pub bytes: usize,
    pub calls: usize,
    /// The most memory live at once during the call.
    pub peak: usize,
}

pub fn measure(f: impl FnOnce()) -> Allocated {
    BYTES.store(0, Relaxed);
    CALLS.store(0, Relaxed);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ON.store(true, Relaxed);
    f();
    ON.store(false, Relaxed);
    Allocated {
        bytes: BYTES.load(Relaxed),
        calls: CALLS.load(Relaxed),
        peak: PEAK.load(Relaxed),
    }
}

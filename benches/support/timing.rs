//! Medians and clocks. Every figure is a median: a shared 2-core machine has outliers in
//! both directions, and the median ignores them where a mean would not.

use std::time::Instant;

/// Seconds `f` takes.
pub fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

pub fn median(mut values: Vec<f64>) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Untimed calls before the timed ones: the first calls of a process pay for page faults
/// on memory the allocator has not touched yet, which no later call sees again.
pub fn warm_up_runs(runs: usize) -> usize {
    (runs / 10).max(3)
}

/// Median seconds of the calls `f(0..runs)`, after [`warm_up_runs`] untimed calls
/// `f(runs..)` (so a caller indexing fresh inputs by `i` never repeats one).
pub fn median_seconds(runs: usize, mut f: impl FnMut(usize)) -> f64 {
    for i in runs..runs + warm_up_runs(runs) {
        f(i);
    }
    median((0..runs).map(|i| seconds(|| f(i))).collect())
}

/// Seconds the calling thread has spent on a CPU so far (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a valid out pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Seconds the calling thread has been runnable but waiting for a CPU (Linux's
/// `/proc/thread-self/schedstat`, second field): time other processes held the CPUs.
pub fn thread_wait_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(text.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1e9)
}

/// A/B pairs measured in one process, alternating which side goes first (ABBA) so that
/// drift and order effects cancel, after a few untimed warm-up pairs (indices `pairs..`).
/// Returns the per-pair samples `(a, b)` in seconds.
pub fn ab_pairs(
    pairs: usize,
    mut a: impl FnMut(usize) -> f64,
    mut b: impl FnMut(usize) -> f64,
) -> Vec<(f64, f64)> {
    for i in pairs..pairs + warm_up_runs(pairs) {
        a(i);
        b(i);
    }
    (0..pairs)
        .map(|i| {
            if i % 2 == 0 {
                let x = a(i);
                (x, b(i))
            } else {
                let y = b(i);
                (a(i), y)
            }
        })
        .collect()
}

/// The same for three sides: A/B/C triples, the order reversed every other triple (ABC,
/// CBA) so that drift and order effects cancel, after a few untimed warm-up triples.
/// Returns the per-triple samples `(a, b, c)` in seconds.
pub fn abc_triples(
    triples: usize,
    mut a: impl FnMut(usize) -> f64,
    mut b: impl FnMut(usize) -> f64,
    mut c: impl FnMut(usize) -> f64,
) -> Vec<(f64, f64, f64)> {
    for i in triples..triples + warm_up_runs(triples) {
        a(i);
        b(i);
        c(i);
    }
    (0..triples)
        .map(|i| {
            if i % 2 == 0 {
                let x = a(i);
                let y = b(i);
                (x, y, c(i))
            } else {
                let z = c(i);
                let y = b(i);
                (a(i), y, z)
            }
        })
        .collect()
}

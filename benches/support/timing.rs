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

//! `SMPI_SAMPLE_LOCAL` and `SMPI_SAMPLE_GLOBAL` (SimGrid's macros, ours in
//! `include/smpi.h`): a loop whose body is measured a few times, then
//! skipped, the mean of the measures being injected for every iteration.
//!
//! The macro first counts the loop's iterations, then calls
//! [`smpi_sample_cond`] before each pass (1: run the body, 0: leave),
//! [`smpi_sample_iter`] after each body, and [`smpi_sample_exit`] when the
//! loop ends by itself. A site is benched again while it has fewer than
//! `iters` measures and (if `threshold` > 0) their relative standard error
//! is at least `threshold`. LOCAL sites are per rank; GLOBAL ones are
//! shared, so the ranks after the first reuse its measures.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr};

use super::{bench_begin, bench_clock, bench_end};
use crate::engine;

/// A sampled loop: its file and tag, and the rank for LOCAL ones.
type Site = (String, String, Option<usize>);

/// The measures of one site.
#[derive(Debug)]
pub struct Samples {
    iters: c_int,
    threshold: f64,
    count: u32,
    sum: f64,
    sum_squares: f64,
    mean: f64,
    relative_error: f64,
}

impl Samples {
    fn need_more(&self) -> bool {
        (self.count as c_int) < self.iters
            && (self.threshold < 0.0 || self.count < 2 || self.relative_error >= self.threshold)
    }
}

/// Every sampled site of the simulation, and what each rank is doing.
#[derive(Debug, Default)]
pub struct Sampling {
    sites: HashMap<Site, Samples>,
    /// Per rank: inside a sampled loop (its first cond was seen), and the
    /// thread CPU time the current measured body started at.
    state: HashMap<usize, (bool, f64)>,
}

fn site(global: c_int, file: *const c_char, tag: *const c_char, rank: usize) -> Site {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: the macros pass __FILE__ and a NUL-terminated tag.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    (text(file), text(tag), (global == 0).then_some(rank))
}

/// Injects `mean * iterations` seconds of computation and leaves the loop.
fn inject(mean: f64, iterations: c_int) {
    let flops = mean * f64::from(iterations.max(0)) * engine::with(|w| w.compute.host_speed);
    engine::execute(flops, "SMPI_SAMPLE");
    bench_begin();
}

pub(crate) unsafe extern "C" fn smpi_sample_cond(
    global: c_int,
    file: *const c_char,
    tag: *const c_char,
    iters: c_int,
    threshold: f64,
    iter_count: c_int,
) -> c_int {
    let me = engine::with(|w| w.current);
    let key = site(global, file, tag, me);
    if !engine::with(|w| w.sampling.state.get(&me).is_some_and(|s| s.0)) {
        // The computation before the loop is the program's own.
        bench_end();
        engine::with(|w| w.sampling.state.insert(me, (true, 0.0)));
    }
    let verdict = engine::with(|w| {
        let s = w.sampling.sites.entry(key.clone()).or_insert(Samples {
            iters,
            threshold,
            count: 0,
            sum: 0.0,
            sum_squares: 0.0,
            mean: 0.0,
            relative_error: 0.0,
        });
        if iters <= 0 && threshold <= 0.0 {
            return Err(
                "give a positive number of iterations to measure, or a positive \
                        relative standard error to reach (or both)"
                    .to_owned(),
            );
        }
        if s.iters != iters || s.threshold != threshold {
            return Err(format!(
                "the sampled loop at {}:{} was measured with {} iterations and threshold {}, \
                 now asked with {iters} and {threshold}",
                key.0, key.1, s.iters, s.threshold
            ));
        }
        Ok(s.need_more().then_some(()).ok_or(s.mean))
    });
    match verdict {
        Err(e) => super::time::fatal(&format!("SMPI_SAMPLE: {e}")),
        Ok(Ok(())) => {
            bench_begin();
            let now = bench_clock();
            engine::with(|w| w.sampling.state.insert(me, (true, now)));
            1
        }
        Ok(Err(mean)) => {
            engine::with(|w| w.sampling.state.insert(me, (false, 0.0)));
            inject(mean, iter_count);
            0
        }
    }
}

pub(crate) unsafe extern "C" fn smpi_sample_iter(
    global: c_int,
    file: *const c_char,
    tag: *const c_char,
) {
    let end = bench_clock();
    let me = engine::with(|w| w.current);
    let key = site(global, file, tag, me);
    engine::with(|w| {
        let start = w.sampling.state.get(&me).map_or(end, |s| s.1);
        if let Some(s) = w.sampling.sites.get_mut(&key) {
            let period = end - start;
            s.count += 1;
            s.sum += period;
            s.sum_squares += period * period;
            let n = f64::from(s.count);
            s.mean = s.sum / n;
            let variance = (s.sum_squares / n - s.mean * s.mean).max(0.0);
            s.relative_error = if s.mean > 0.0 {
                (variance / n).sqrt() / s.mean
            } else {
                0.0
            };
        }
    });
}

pub(crate) unsafe extern "C" fn smpi_sample_exit(
    global: c_int,
    file: *const c_char,
    tag: *const c_char,
    iter_count: c_int,
) -> c_int {
    let me = engine::with(|w| w.current);
    if engine::with(|w| w.sampling.state.get(&me).is_some_and(|s| s.0)) {
        let key = site(global, file, tag, me);
        let mean = engine::with(|w| {
            w.sampling.state.insert(me, (false, 0.0));
            w.sampling.sites.get(&key).map_or(0.0, |s| s.mean)
        });
        inject(mean, iter_count);
    }
    0
}

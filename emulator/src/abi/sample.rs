//! `SMPI_SAMPLE_LOCAL` and `SMPI_SAMPLE_GLOBAL` (SimGrid's macros, ours in
//! `include/smpi.h`), bound to the measures of [`crate::sample`].
//!
//! The macro first counts the loop's iterations, then calls
//! [`smpi_sample_cond`] before each pass (1: run the body, 0: leave),
//! [`smpi_sample_iter`] after each body, and [`smpi_sample_exit`] when the
//! loop ends by itself.

use std::ffi::{c_char, c_int, CStr};

use super::{bench_begin, bench_clock, bench_end};
use crate::sample::{Pass, Site};
use crate::sim;

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
    let flops = mean * f64::from(iterations.max(0)) * sim::with(|s| s.bench.host_speed);
    super::compute(flops, "SMPI_SAMPLE");
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
    let me = sim::with(|s| s.core.current());
    let key = site(global, file, tag, me);
    if !sim::with(|s| s.sampling.inside(me)) {
        // The computation before the loop is the program's own.
        bench_end();
        sim::with(|s| s.sampling.set_inside(me, true, 0.0));
    }
    match sim::with(|s| s.sampling.next_pass(&key, iters, threshold)) {
        Err(e) => super::time::fatal(&format!("SMPI_SAMPLE: {e}")),
        Ok(Pass::Measure) => {
            bench_begin();
            let now = bench_clock();
            sim::with(|s| s.sampling.set_inside(me, true, now));
            1
        }
        Ok(Pass::Skip { mean }) => {
            sim::with(|s| s.sampling.set_inside(me, false, 0.0));
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
    let me = sim::with(|s| s.core.current());
    let key = site(global, file, tag, me);
    sim::with(|s| s.sampling.record(&key, me, end));
}

pub(crate) unsafe extern "C" fn smpi_sample_exit(
    global: c_int,
    file: *const c_char,
    tag: *const c_char,
    iter_count: c_int,
) -> c_int {
    let me = sim::with(|s| s.core.current());
    if sim::with(|s| s.sampling.inside(me)) {
        let key = site(global, file, tag, me);
        let mean = sim::with(|s| {
            s.sampling.set_inside(me, false, 0.0);
            s.sampling.mean(&key)
        });
        inject(mean, iter_count);
    }
    0
}

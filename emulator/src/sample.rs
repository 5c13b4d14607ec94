//! The measures of `SMPI_SAMPLE_LOCAL` and `SMPI_SAMPLE_GLOBAL` loops
//! (SimGrid's macros): a loop whose body is measured a few times, then
//! skipped, the mean of the measures being injected for every iteration.
//!
//! A site's first pass is always measured (so `iters` = 0 with a threshold
//! still runs the body once, as SimGrid does); it is benched again while it
//! has fewer than `iters` measures and (if `threshold` > 0) their relative
//! standard error is at least `threshold`. LOCAL sites are per rank; GLOBAL ones are shared, so the
//! ranks after the first reuse its measures. The bindings
//! (`abi::sample`) drive it.

use std::collections::HashMap;

/// A sampled loop: its file and tag, and the rank for LOCAL ones.
pub type Site = (String, String, Option<usize>);

/// The measures of one site.
#[derive(Debug)]
struct Samples {
    iters: i32,
    threshold: f64,
    count: u32,
    sum: f64,
    sum_squares: f64,
    mean: f64,
    relative_error: f64,
}

impl Samples {
    fn need_more(&self) -> bool {
        (self.count as i32) < self.iters
            && (self.threshold < 0.0 || self.count < 2 || self.relative_error >= self.threshold)
    }

    fn add(&mut self, period: f64) {
        self.count += 1;
        self.sum += period;
        self.sum_squares += period * period;
        let n = f64::from(self.count);
        self.mean = self.sum / n;
        let variance = (self.sum_squares / n - self.mean * self.mean).max(0.0);
        self.relative_error = if self.mean > 0.0 {
            (variance / n).sqrt() / self.mean
        } else {
            0.0
        };
    }
}

/// What a sampled loop does on its next pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pass {
    /// Run (and measure) the body.
    Measure,
    /// Leave the loop, charging this mean duration per iteration.
    Skip { mean: f64 },
}

/// Every sampled site of the simulation, and what each rank is doing.
#[derive(Debug, Default)]
pub struct Sampling {
    sites: HashMap<Site, Samples>,
    /// Per rank: inside a sampled loop (its first cond was seen), and the
    /// bench clock the current measured body started at.
    state: HashMap<usize, (bool, f64)>,
}

impl Sampling {
    /// Whether `rank` is inside a sampled loop.
    pub fn inside(&self, rank: usize) -> bool {
        self.state.get(&rank).is_some_and(|s| s.0)
    }

    /// Notes that `rank` is inside a sampled loop whose current body (if
    /// measured) started at `start`, or has left it.
    pub fn set_inside(&mut self, rank: usize, inside: bool, start: f64) {
        self.state.insert(rank, (inside, start));
    }

    /// Decides the next pass of `site`, asked with `iters` and `threshold`;
    /// an error says what is wrong with the arguments.
    pub fn next_pass(&mut self, site: &Site, iters: i32, threshold: f64) -> Result<Pass, String> {
        let first_visit = !self.sites.contains_key(site);
        let s = self.sites.entry(site.clone()).or_insert(Samples {
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
                site.0, site.1, s.iters, s.threshold
            ));
        }
        Ok(if first_visit || s.need_more() {
            Pass::Measure
        } else {
            Pass::Skip { mean: s.mean }
        })
    }

    /// Records the body of `site` that `rank` just ran, ended at `end` on
    /// the bench clock.
    pub fn record(&mut self, site: &Site, rank: usize, end: f64) {
        let start = self.state.get(&rank).map_or(end, |s| s.1);
        if let Some(s) = self.sites.get_mut(site) {
            s.add(end - start);
        }
    }

    /// The mean measure of `site` (0 when it has none).
    pub fn mean(&self, site: &Site) -> f64 {
        self.sites.get(site).map_or(0.0, |s| s.mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> Site {
        ("f.c".into(), "loop".into(), None)
    }

    #[test]
    fn a_site_is_measured_until_it_has_its_iterations() {
        let mut s = Sampling::default();
        assert_eq!(s.next_pass(&site(), 2, -1.0), Ok(Pass::Measure));
        s.set_inside(0, true, 1.0);
        s.record(&site(), 0, 3.0);
        assert_eq!(s.next_pass(&site(), 2, -1.0), Ok(Pass::Measure));
        s.set_inside(0, true, 3.0);
        s.record(&site(), 0, 7.0);
        assert_eq!(s.next_pass(&site(), 2, -1.0), Ok(Pass::Skip { mean: 3.0 }));
        assert_eq!(s.mean(&site()), 3.0);
    }

    #[test]
    fn a_new_site_runs_its_body_once_even_when_no_iteration_is_asked() {
        let mut s = Sampling::default();
        assert_eq!(s.next_pass(&site(), 0, 0.1), Ok(Pass::Measure));
        s.set_inside(0, true, 1.0);
        s.record(&site(), 0, 2.0);
        assert_eq!(s.next_pass(&site(), 0, 0.1), Ok(Pass::Skip { mean: 1.0 }));
    }

    #[test]
    fn arguments_that_change_or_ask_nothing_are_refused() {
        let mut s = Sampling::default();
        assert!(s.next_pass(&site(), 0, 0.0).is_err());
        let mut s = Sampling::default();
        s.next_pass(&site(), 3, 0.1).unwrap();
        let e = s.next_pass(&site(), 4, 0.1).unwrap_err();
        assert!(e.contains("measured with 3 iterations"), "{e}");
    }
}

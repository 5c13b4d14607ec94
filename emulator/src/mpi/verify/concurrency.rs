//! Local concurrency (check `concurrency`): the buffers of a rank's
//! pending non-blocking calls touched by the rank itself.
//!
//! A non-blocking send's or receive's buffer, and the buffers of a
//! non-blocking collective, are guarded from the call until the program
//! sees the request complete (MPI_Wait, MPI_Test...): a guard is the
//! checksum of the buffer's bytes as the runtime last left them. The
//! runtime's own writes (a message delivered into a receive buffer, a
//! collective's local copies and reductions) check the guard first and
//! then renew it; completion checks it a last time. A checksum that
//! changed in between is a store of the program's into memory MPI still
//! owned. Loads cannot be seen, nor a store that writes the bytes back as
//! they were.

use super::{checksum, Kind};
use crate::mpi::ledger::Site;
use crate::mpi::{Ctx, ReqId};

/// One guarded buffer.
#[derive(Debug, Clone)]
pub struct Guard {
    lo: usize,
    hi: usize,
    sum: u64,
    request: ReqId,
    call: &'static str,
    what: &'static str,
    site: Option<Site>,
}

/// A buffer to guard: (address range, what it is).
pub type Span = (usize, usize, &'static str);

impl Ctx<'_> {
    /// Guards `spans` of the current rank until `request` (made by
    /// `call`) completes.
    pub fn guard_buffers(&mut self, request: ReqId, call: &'static str, spans: &[Span]) {
        let me = self.core.current();
        let site = self.mpi.ledger.here(me).cloned();
        let guards = self.mpi.verify.guards.entry(me).or_default();
        for &(lo, hi, what) in spans.iter().filter(|s| s.1 > s.0) {
            guards.push(Guard {
                lo,
                hi,
                sum: checksum(lo, hi),
                request,
                call,
                what,
                site: site.clone(),
            });
        }
    }

    /// Before the runtime writes `[lo, hi)` of `rank`'s memory (all of
    /// it with `None`): the guards there must be intact.
    pub fn guards_before_write(&mut self, rank: usize, range: Option<(usize, usize)>) {
        let Some(guards) = self.mpi.verify.guards.get_mut(&rank) else {
            return;
        };
        let overlaps = |g: &Guard| range.is_none_or(|(lo, hi)| g.lo < hi && lo < g.hi);
        let mut broken = Vec::new();
        guards.retain(|g| {
            let ok = !overlaps(g) || checksum(g.lo, g.hi) == g.sum;
            if !ok {
                broken.push(g.clone());
            }
            ok
        });
        for g in broken {
            self.report_guard(rank, g, "while the call was pending");
        }
    }

    /// After the runtime wrote `[lo, hi)` of `rank`'s memory: the guards
    /// there take the new bytes.
    pub fn guards_after_write(&mut self, rank: usize, range: Option<(usize, usize)>) {
        if let Some(guards) = self.mpi.verify.guards.get_mut(&rank) {
            for g in guards {
                if range.is_none_or(|(lo, hi)| g.lo < hi && lo < g.hi) {
                    g.sum = checksum(g.lo, g.hi);
                }
            }
        }
    }

    /// The program saw `request` of `rank` complete: its guards are
    /// checked a last time and dropped.
    pub fn release_guards(&mut self, rank: usize, request: ReqId, check: bool) {
        let Some(guards) = self.mpi.verify.guards.get_mut(&rank) else {
            return;
        };
        let mut mine = Vec::new();
        guards.retain(|g| {
            let keep = g.request != request;
            if !keep {
                mine.push(g.clone());
            }
            keep
        });
        if guards.is_empty() {
            self.mpi.verify.guards.remove(&rank);
        }
        for g in mine {
            if check && checksum(g.lo, g.hi) != g.sum {
                self.report_guard(rank, g, "before the request completed");
            }
        }
    }

    /// Drops the guards of `rank` (it finalizes).
    pub fn drop_guards(&mut self, rank: usize) {
        self.mpi.verify.guards.remove(&rank);
    }

    fn report_guard(&mut self, rank: usize, g: Guard, when: &str) {
        let message = format!(
            "the {} ({:#x}..{:#x}) was modified {when} (MPI owns it until MPI_Wait or a \
             successful MPI_Test)",
            g.what, g.lo, g.hi
        );
        self.finding_at(
            Kind::LocalConcurrency,
            vec![rank],
            g.call,
            message,
            g.site.map(|s| s.to_string()),
        );
    }
}

//! One-sided concurrency (check `rma`): conflicting accesses within one
//! epoch, and the program's stores to memory an epoch's operations still
//! use.
//!
//! Every operation notes the memory it reads or writes, on both sides:
//! the origin's buffers (read by a put, written by a get or into the
//! result of a fetching operation) and the target's window range. Two
//! accesses of open epochs that overlap, at least one of them a write, and
//! not both accumulates, conflict: MPI leaves the outcome undefined. A
//! conflict of one rank's own buffers is `LocalConcurrency`, any other
//! `GlobalConcurrency`. Each access also keeps a checksum of its bytes as
//! the operation left them (the target's side only in fence epochs: in a
//! passive target epoch the target itself runs unsynchronized); when its
//! epoch closes (the fence every member
//! reached, the origin's unlock, unlock_all or complete) a different
//! checksum means the program stored into that memory during the epoch.
//! Loads cannot be seen.
//!
//! Addresses are absolute: every rank's memory is in this one process, so
//! equal addresses are the same memory, except the globals under swap
//! privatization, which are left out of the checksums.

use super::{checksum, Kind};
use crate::mpi::ledger::Site;
use crate::mpi::{Ctx, ReqId};

/// How an access uses its memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Read,
    Write,
    /// An accumulate's update (concurrent accumulates are allowed).
    Accumulate,
}

/// The epoch an operation belongs to, as its origin sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Epoch {
    Fence,
    /// A lock on this window rank.
    Lock(usize),
    LockAll,
    /// MPI_Win_start .. MPI_Win_complete.
    Access,
}

/// One side of an operation.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub lo: usize,
    pub hi: usize,
    pub mode: Mode,
    /// The origin's own buffer (not window memory of the target).
    pub local: bool,
    /// Not to be checksummed (globals under swap privatization).
    pub unstable: bool,
}

/// An operation as the check notes it.
#[derive(Debug, Clone, Copy)]
pub struct Operation<'a> {
    pub win: i32,
    pub epoch: Epoch,
    /// The target's window rank (a flush to it completes the operation).
    pub target: usize,
    pub call: &'static str,
    /// Its request (MPI_Rput...), whose completion ends its accesses.
    pub request: Option<ReqId>,
    pub ranges: &'a [Range],
}

#[derive(Debug, Clone)]
struct Access {
    win: i32,
    target: usize,
    request: Option<ReqId>,
    epoch: Epoch,
    /// The origin (world rank).
    who: usize,
    call: &'static str,
    range: Range,
    sum: Option<u64>,
    site: Option<Site>,
}

/// The accesses of the epochs still open, and each window's fence
/// arrivals.
#[derive(Debug, Default)]
pub struct Log {
    open: Vec<Access>,
    /// The open accesses by what they are, so that an operation repeated
    /// in one epoch (a loop of accumulates into one place) is noted once:
    /// without it every operation would compare with all the others.
    same: rustc_hash::FxHashMap<Key, usize>,
    fences: rustc_hash::FxHashMap<i32, usize>,
}

/// What makes two accesses the same: window, epoch, origin, bytes, use.
type Key = (i32, Epoch, usize, usize, usize, Mode, bool);

fn key(win: i32, epoch: Epoch, who: usize, r: &Range) -> Key {
    (win, epoch, who, r.lo, r.hi, r.mode, r.local)
}

fn conflict(a: &Range, b: &Range) -> bool {
    a.lo < b.hi
        && b.lo < a.hi
        && (a.mode == Mode::Write || b.mode == Mode::Write)
        && !(a.mode == Mode::Accumulate && b.mode == Mode::Accumulate)
}

fn verb(m: Mode) -> &'static str {
    match m {
        Mode::Read => "reads",
        Mode::Write => "writes",
        Mode::Accumulate => "accumulates into",
    }
}

impl Ctx<'_> {
    /// Notes the accesses of operation `op` the current rank issued, after
    /// it moved its data; reports the first conflict with an open epoch's
    /// access.
    pub fn note_rma_accesses(&mut self, op: &Operation<'_>) {
        let Operation {
            win,
            epoch,
            target,
            call,
            request,
            ranges,
        } = *op;
        let me = self.core.current();
        let site = self.mpi.ledger.here(me).cloned();
        for r in ranges.iter().filter(|r| r.hi > r.lo) {
            // The operation's writes renew the checksums of the open
            // accesses it overlaps (concurrent accumulates are legal).
            if r.mode != Mode::Read {
                for a in &mut self.mpi.verify.rma.open {
                    if a.sum.is_some() && a.range.lo < r.hi && r.lo < a.range.hi {
                        a.sum = Some(checksum(a.range.lo, a.range.hi));
                    }
                }
            }
            let k = key(win, epoch, me, r);
            let log = &self.mpi.verify.rma;
            let same = log.same.get(&k).map(|&i| &log.open[i]);
            if same.is_some() && r.mode != Mode::Write {
                // Repeated (a read or an accumulate, which do not conflict
                // with themselves): its conflicts were reported the first
                // time, and its bytes renewed above.
                continue;
            }
            // A repeated write conflicts with itself, and needs no search.
            let clash = same
                .or_else(|| log.open.iter().find(|a| conflict(&a.range, r)))
                .map(|a| (a.who, a.call, a.range, a.site.clone()));
            let repeated = same.is_some();
            if let Some((who, other, theirs, at)) = clash {
                let local = r.local && theirs.local && who == me;
                let kind = if local {
                    Kind::LocalConcurrency
                } else {
                    Kind::GlobalConcurrency
                };
                let whose = if who == me {
                    "this rank's".to_string()
                } else {
                    format!("rank {who}'s")
                };
                let at = at.map_or(String::new(), |s| format!(" at {s}"));
                let message = format!(
                    "{} bytes {:#x}..{:#x} that {whose} {other}{at} {} in the same epoch (the \
                     outcome is undefined: separate them by a synchronization)",
                    verb(r.mode),
                    r.lo,
                    r.hi,
                    verb(theirs.mode)
                );
                let ranks = if who == me { vec![me] } else { vec![me, who] };
                self.finding(kind, ranks, call, message);
            }
            // A target's own stores are in the epoch only between fences:
            // in a passive target epoch the target runs unsynchronized,
            // and its stores before or after may interleave with the
            // operation without any error of the program's.
            let watched = !r.unstable && (r.local || epoch == Epoch::Fence);
            if repeated {
                continue;
            }
            let sum = watched.then(|| checksum(r.lo, r.hi));
            let log = &mut self.mpi.verify.rma;
            log.same.insert(k, log.open.len());
            log.open.push(Access {
                win,
                target,
                request,
                epoch,
                who: me,
                call,
                range: *r,
                sum,
                site: site.clone(),
            });
        }
    }

    /// The current rank enters MPI_Win_fence on `win` (of `size`
    /// members): when the last member enters, the fence epoch's accesses
    /// close.
    pub fn rma_fence_entered(&mut self, win: i32, size: usize) {
        let log = &mut self.mpi.verify.rma;
        let n = log.fences.entry(win).or_default();
        *n += 1;
        if *n >= size {
            log.fences.remove(&win);
            self.close_rma_accesses(|a| a.win == win && a.epoch == Epoch::Fence);
        }
    }

    /// The current rank's epoch `epoch` on `win` ended (unlock,
    /// unlock_all, complete).
    pub fn rma_epoch_closed(&mut self, win: i32, epoch: Epoch) {
        let me = self.core.current();
        self.close_rma_accesses(|a| a.win == win && a.who == me && a.epoch == epoch);
    }

    /// Request-based operation `request` completed (the program waited
    /// for it): its accesses close.
    pub fn rma_request_completed(&mut self, request: ReqId) {
        if self
            .mpi
            .verify
            .rma
            .open
            .iter()
            .any(|a| a.request == Some(request))
        {
            self.close_rma_accesses(|a| a.request == Some(request));
        }
    }

    /// The current rank flushed its operations on `win` (to window rank
    /// `target`, or all): they are complete, their accesses close.
    pub fn rma_flushed(&mut self, win: i32, target: Option<usize>) {
        let me = self.core.current();
        self.close_rma_accesses(|a| {
            a.win == win && a.who == me && target.is_none_or(|t| a.target == t)
        });
    }

    /// Whether the current rank has operations on `win` whose epoch never
    /// closed (at MPI_Win_free).
    pub fn rma_unclosed(&self, win: i32) -> Option<&'static str> {
        let me = self.core.current();
        self.mpi
            .verify
            .rma
            .open
            .iter()
            .find(|a| a.win == win && a.who == me)
            .map(|a| a.call)
    }

    /// Closes the accesses `which` selects: a checksum that changed
    /// means a store during the epoch.
    fn close_rma_accesses(&mut self, which: impl Fn(&Access) -> bool) {
        let (closing, open): (Vec<Access>, Vec<Access>) =
            std::mem::take(&mut self.mpi.verify.rma.open)
                .into_iter()
                .partition(|a| which(a));
        let log = &mut self.mpi.verify.rma;
        log.same = open
            .iter()
            .enumerate()
            .map(|(i, a)| (key(a.win, a.epoch, a.who, &a.range), i))
            .collect();
        log.open = open;
        for a in closing {
            let Some(sum) = a.sum else { continue };
            if checksum(a.range.lo, a.range.hi) == sum {
                continue;
            }
            let (kind, whose) = if a.range.local {
                (Kind::LocalConcurrency, "its origin buffer")
            } else {
                (Kind::GlobalConcurrency, "the target's window memory")
            };
            let message = format!(
                "{whose} {:#x}..{:#x}, which this call {}, changed before the epoch ended (a \
                 store to memory an RMA operation still uses)",
                a.range.lo,
                a.range.hi,
                verb(a.range.mode)
            );
            self.finding_at(
                kind,
                vec![a.who],
                a.call,
                message,
                a.site.map(|s| s.to_string()),
            );
        }
    }
}

//! SimGrid's `automatic` collective (`--cfg=smpi/allreduce:automatic`):
//! each call runs every one of SimGrid's algorithms in turn on the call's
//! own arguments, each after a barrier, and reduces the time each took to
//! rank 0 (its maximum); at the end every rank warns which algorithm was
//! the quickest for it, and rank 0 which was the quickest at the maximum
//! over the ranks, in SimGrid's words. A program's result is the last
//! algorithm's (all give the same); an in-place call gets its input back
//! before each algorithm, so it is right too (SimGrid's reduces it again
//! each time).

use collectives as algo;

use super::coll::{execute, Buffers, Reduction};
use super::collective::AllreduceCall;
use super::op::{Builtin, ReduceOp};
use super::{datatype, MpiResult};
use crate::log::{self, Priority};
use crate::sim;

/// SimGrid 3.32's allreduce algorithms in its order, `default` and
/// `automatic` aside: what `automatic` times. `ompi` and `mpich` are
/// selectors, the others algorithm names.
pub const ALLREDUCE: &[&str] = &[
    "lr",
    "rab1",
    "rab2",
    "rab_rdb",
    "rdb",
    "smp_binomial",
    "smp_binomial_pipeline",
    "smp_rdb",
    "smp_rsag",
    "smp_rsag_lr",
    "smp_rsag_rab",
    "redbcast",
    "ompi",
    "ompi_ring_segmented",
    "mpich",
    "mvapich2",
    "mvapich2_rs",
    "mvapich2_two_level",
    "impi",
    "rab",
];

/// The algorithm and selector a name of [`ALLREDUCE`] runs.
fn resolve(name: &str) -> Option<(algo::AllreduceAlgorithm, algo::Selector)> {
    match name.parse::<algo::Selector>() {
        Ok(sel) => Some((algo::AllreduceAlgorithm::Default, sel)),
        Err(_) => Some((name.parse().ok()?, algo::Selector::Default)),
    }
}

/// Runs `call` with SimGrid's `automatic` allreduce.
pub(super) fn allreduce(call: &AllreduceCall) -> MpiResult<()> {
    let c = call.c;
    let saved = call.in_place.then(|| call.saved_input());
    let mut mine: Option<(&str, f64)> = None;
    let mut global: Option<(&str, f64)> = None;
    for &name in ALLREDUCE {
        let Some((alg, sel)) = resolve(name) else {
            continue;
        };
        barrier(c)?;
        let start = now();
        // SimGrid skips an algorithm that refuses the call (a power-of-two
        // one on another size): here, one whose schedule cannot be built.
        let Ok(schedule) = call.schedule(alg, sel) else {
            continue;
        };
        if let Some(input) = &saved {
            call.restore_input(input);
        }
        call.execute(schedule)?;
        let took = now() - start;
        let max = max_to_rank_0(c, took)?;
        if mine.is_none_or(|(_, t)| took < t) {
            mine = Some((name, took));
        }
        if c.my_rank == 0 && global.is_none_or(|(_, t)| max < t) {
            global = Some((name, max));
        }
    }
    let message = match (mine, global) {
        (Some((m, t)), Some((g, max))) => format!(
            "For rank 0, the quickest was {m} : {t:.6} , but global was {g} : {max:.6} at max"
        ),
        (Some((m, t)), None) => format!(
            "The quickest allreduce was {m} on rank {} and took {t:.6}",
            c.my_rank
        ),
        _ => {
            return Err(super::MpiError::new(
                super::class::INTERN,
                "no allreduce algorithm could run this call",
            ))
        }
    };
    let at = log::Location {
        file: "./src/smpi/colls/smpi_automatic_selector.cpp",
        line: 69,
    };
    super::coll::say(Priority::Warning, Some(at), &message);
    Ok(())
}

/// The simulated time.
fn now() -> f64 {
    sim::mpi(|w| w.core.now())
}

/// SimGrid's default barrier on `c`.
fn barrier(c: &super::CommView) -> MpiResult<()> {
    let at = algo::Position {
        rank: c.my_rank,
        size: c.size(),
    };
    let s = algo::barrier(at).map_err(super::coll::coll_error)?;
    execute(c, s, Buffers::none(), Reduction::None, "MPI_Allreduce")
}

/// SimGrid's default reduce of `value` with `MPI_MAX` to rank 0 of `c`:
/// the maximum at rank 0, `value` elsewhere.
fn max_to_rank_0(c: &super::CommView, value: f64) -> MpiResult<f64> {
    let at = algo::RootedPosition {
        rank: c.my_rank,
        size: c.size(),
        root: 0,
    };
    let one = algo::Reduction {
        count: 1,
        commutative: true,
        in_place: false,
    };
    let s = algo::reduce(at, one).map_err(super::coll::coll_error)?;
    let input = value;
    let mut max = value;
    let bufs = Buffers {
        send: &input as *const f64 as usize,
        send_type: datatype::DOUBLE,
        recv: &mut max as *mut f64 as usize,
        recv_type: datatype::DOUBLE,
    };
    let op = Reduction::Op(ReduceOp::Builtin(Builtin::Max));
    execute(c, s, bufs, op, "MPI_Allreduce")?;
    Ok(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_candidate_is_an_algorithm_or_a_selector() {
        for name in ALLREDUCE {
            assert!(resolve(name).is_some(), "{name}");
        }
    }
}

//! `MPI_Barrier`.

use crate::error::{check_rank, CollError};
use crate::params::Position;
use crate::registry::BarrierAlgorithm;
use crate::schedule::{recv, send, Buf, Builder, Schedule};

/// `MPI_Barrier` with SimGrid's default algorithm (`ompi_basic_linear`).
///
/// Every non-zero rank sends a zero-element message to rank 0, then receives
/// one from rank 0; rank 0 receives from ranks 1..size (all posted at once),
/// then sends to ranks 1..size (all posted at once). The messages are
/// zero-element blocks of `Buf::Send` / `Buf::Recv`: MPI_Barrier has no
/// buffers, so the engine must not need one for an empty block.
///
/// Why this matters: rank 0's release messages are small, hence detached,
/// so rank 0 leaves the barrier as soon as it has posted them, one latency
/// before the others, exactly as in SimGrid.
pub fn barrier(at: Position) -> Result<Schedule, CollError> {
    barrier_with(BarrierAlgorithm::Default, at)
}

/// `MPI_Barrier` with a chosen algorithm.
pub fn barrier_with(alg: BarrierAlgorithm, at: Position) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Position { rank, size } = at;
    match alg {
        BarrierAlgorithm::Default | BarrierAlgorithm::OmpiBasicLinear => {
            Ok(barrier_linear(rank, size))
        }
        BarrierAlgorithm::OmpiBruck => Ok(barrier_dissemination(rank, size)),
        BarrierAlgorithm::OmpiRecursiveDoubling => Ok(barrier_recursive_doubling(rank, size)),
        BarrierAlgorithm::OmpiTree => Ok(barrier_tree(rank, size)),
    }
}

/// An empty message's blocks (a barrier has no buffers).
fn token() -> (crate::schedule::Block, crate::schedule::Block) {
    (Buf::Send.block(0, 0), Buf::Recv.block(0, 0))
}

/// Open MPI's recursive doubling barrier: the ranks above the largest
/// power of two p2 first check in with rank - p2; the first p2 ranks
/// exchange with rank XOR 2^k for each k; then release the ranks above.
fn barrier_recursive_doubling(rank: usize, size: usize) -> Schedule {
    let mut b = Builder::new();
    let (out, inn) = token();
    let p2 = 1 << size.ilog2();
    if rank >= p2 {
        // Check in and wait for the release, posted together.
        b.round(vec![send(rank - p2, out), recv(rank - p2, inn)], vec![]);
        return b.finish();
    }
    if rank < size - p2 {
        b.round(vec![recv(rank + p2, inn)], vec![]);
    }
    let mut mask = 1;
    while mask < p2 {
        let remote = rank ^ mask;
        b.round(vec![send(remote, out), recv(remote, inn)], vec![]);
        mask <<= 1;
    }
    if rank < size - p2 {
        b.round(vec![send(rank + p2, out)], vec![]);
    }
    b.finish()
}

/// Open MPI's tree barrier: up a binomial tree (rank r waits for r + 2^k
/// while the low k bits of r are zero, then reports to its parent), then
/// down the same tree.
fn barrier_tree(rank: usize, size: usize) -> Schedule {
    let mut b = Builder::new();
    let (out, inn) = token();
    let depth = size.next_power_of_two();
    let partners = |jump: usize| {
        let partner = rank ^ jump;
        (partner & (jump - 1) == 0 && partner < size).then_some(partner)
    };
    let mut jump = 1;
    while jump < depth {
        match partners(jump) {
            Some(p) if p > rank => b.round(vec![recv(p, inn)], vec![]),
            Some(p) => b.round(vec![send(p, out)], vec![]),
            None => {}
        }
        jump <<= 1;
    }
    let mut jump = depth >> 1;
    while jump > 0 {
        match partners(jump) {
            Some(p) if p > rank => b.round(vec![send(p, out)], vec![]),
            Some(p) => b.round(vec![recv(p, inn)], vec![]),
            None => {}
        }
        jump >>= 1;
    }
    b.finish()
}

/// Open MPI's `bruck` barrier (the dissemination barrier, SimGrid's
/// `ompi_bruck`): ceil(log2 p) rounds; in round k every rank sends to
/// rank + 2^k and receives from rank - 2^k.
fn barrier_dissemination(rank: usize, size: usize) -> Schedule {
    let mut b = Builder::new();
    let mut distance = 1;
    while distance < size {
        b.round(
            vec![
                send((rank + distance) % size, Buf::Send.block(0, 0)),
                recv((rank + size - distance) % size, Buf::Recv.block(0, 0)),
            ],
            vec![],
        );
        distance <<= 1;
    }
    b.finish()
}

fn barrier_linear(rank: usize, size: usize) -> Schedule {
    let mut b = Builder::new();
    let token_out = Buf::Send.block(0, 0);
    let token_in = Buf::Recv.block(0, 0);
    if rank == 0 {
        b.round((1..size).map(|r| recv(r, token_in)).collect(), vec![]);
        b.round((1..size).map(|r| send(r, token_out)).collect(), vec![]);
    } else {
        b.round(vec![send(0, token_out)], vec![]);
        b.round(vec![recv(0, token_in)], vec![]);
    }
    b.finish()
}

//! `MPI_Bcast`.

use crate::error::{check_rooted, CollError};
use crate::registry::BcastAlgorithm;
use crate::schedule::{recv, send, Block, Buf, Builder, Schedule};

/// `MPI_Bcast` of `count` elements with SimGrid's default algorithm
/// (`binomial_tree`). The broadcast buffer is `Buf::Recv` at every rank,
/// the root included.
pub fn bcast(rank: usize, size: usize, root: usize, count: usize) -> Result<Schedule, CollError> {
    bcast_with(BcastAlgorithm::Default, rank, size, root, count)
}

/// `MPI_Bcast` with a chosen algorithm; see [`bcast`].
pub fn bcast_with(
    alg: BcastAlgorithm,
    rank: usize,
    size: usize,
    root: usize,
    count: usize,
) -> Result<Schedule, CollError> {
    check_rooted(rank, size, root)?;
    let mut b = Builder::new();
    match alg {
        BcastAlgorithm::Default | BcastAlgorithm::BinomialTree => {
            bcast_binomial_into(&mut b, rank, size, root, Buf::Recv.block(0, count))
        }
    }
    Ok(b.finish())
}

/// MPICH's binomial tree as in SimGrid's `bcast__binomial_tree`: with ranks
/// renumbered relative to the root, receive from the parent (clear the
/// lowest set bit), then send to the children in decreasing mask order.
/// SimGrid sends with blocking `send`, one child after the other, so each
/// send is its own round: with large (rendezvous) messages the second child
/// only starts once the first transfer completed, and the simulated time
/// depends on it.
pub(crate) fn bcast_binomial_into(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    data: Block,
) {
    let rel = (rank + size - root) % size;
    let mut mask = 1usize;
    while mask < size {
        if rel & mask != 0 {
            let parent = (rank + size - mask) % size;
            b.round(vec![recv(parent, data)], vec![]);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < size {
            let child = (rank + mask) % size;
            b.round(vec![send(child, data)], vec![]);
        }
        mask >>= 1;
    }
}

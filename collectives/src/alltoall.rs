//! `MPI_Alltoall(v)`.
//!
//! In place (`MPI_IN_PLACE` as send buffer): the data to send is taken from
//! the receive buffer and replaced by the received data; send counts and
//! displacements are ignored and the receive ones used for both directions
//! (MPI requires them to be symmetric then). Because a block is both sent
//! and overwritten, the outgoing blocks are first copied to scratch.

use crate::error::{check_blocks, check_len, check_rank, mul, CollError};
use crate::registry::{AlltoallAlgorithm, AlltoallvAlgorithm};
use crate::schedule::{recv, send, Buf, Builder, Local, Schedule};

/// `MPI_Alltoall`: block `j` of rank `i`'s send buffer
/// (`Send[j*sendcount..(j+1)*sendcount]`) lands in block `i` of rank `j`'s
/// receive buffer (`Recv[i*recvcount..(i+1)*recvcount]`).
///
/// Algorithm: `basic_linear` for now (see [`AlltoallAlgorithm::Default`]).
pub fn alltoall(
    rank: usize,
    size: usize,
    sendcount: usize,
    recvcount: usize,
    in_place: bool,
) -> Result<Schedule, CollError> {
    alltoall_with(
        AlltoallAlgorithm::Default,
        rank,
        size,
        sendcount,
        recvcount,
        in_place,
    )
}

/// `MPI_Alltoall` with a chosen algorithm; see [`alltoall`]. `pair` fails
/// with [`CollError::NeedsPowerOfTwo`] unless `size` is a power of two.
pub fn alltoall_with(
    alg: AlltoallAlgorithm,
    rank: usize,
    size: usize,
    sendcount: usize,
    recvcount: usize,
    in_place: bool,
) -> Result<Schedule, CollError> {
    check_rank(rank, size)?;
    mul(size, recvcount, "alltoall")?;
    mul(size, sendcount, "alltoall")?;
    // In place, everything is in receive-buffer terms.
    let sendcount = if in_place { recvcount } else { sendcount };
    match alg {
        AlltoallAlgorithm::Default | AlltoallAlgorithm::BasicLinear => Ok(alltoallv_linear(
            rank,
            size,
            |_| sendcount,
            |i| i * sendcount,
            |_| recvcount,
            |i| i * recvcount,
            in_place,
            AlltoallOrder::OpenMpi,
        )),
        AlltoallAlgorithm::Pair => {
            if !size.is_power_of_two() {
                return Err(CollError::NeedsPowerOfTwo {
                    algorithm: "alltoall pair",
                    size,
                });
            }
            Ok(alltoall_pair(rank, size, sendcount, recvcount, in_place))
        }
    }
}

/// `MPI_Alltoallv`: `Send[sdispls[j]..+sendcounts[j]]` of rank `i` lands in
/// `Recv[rdispls[i]..+recvcounts[i]]` of rank `j`. All arrays need one
/// entry per rank at every rank, except that in place `sendcounts` and
/// `sdispls` are ignored (and may be empty).
///
/// Algorithm (SimGrid's default `ialltoallv`): receives from every other
/// rank in increasing order, then sends to every other rank in increasing
/// order, all posted at once; the own block is copied locally.
pub fn alltoallv(
    rank: usize,
    size: usize,
    sendcounts: &[usize],
    sdispls: &[usize],
    recvcounts: &[usize],
    rdispls: &[usize],
    in_place: bool,
) -> Result<Schedule, CollError> {
    alltoallv_with(
        AlltoallvAlgorithm::Default,
        rank,
        size,
        sendcounts,
        sdispls,
        recvcounts,
        rdispls,
        in_place,
    )
}

/// `MPI_Alltoallv` with a chosen algorithm; see [`alltoallv`].
#[allow(clippy::too_many_arguments)] // one argument per MPI parameter
pub fn alltoallv_with(
    alg: AlltoallvAlgorithm,
    rank: usize,
    size: usize,
    sendcounts: &[usize],
    sdispls: &[usize],
    recvcounts: &[usize],
    rdispls: &[usize],
    in_place: bool,
) -> Result<Schedule, CollError> {
    check_rank(rank, size)?;
    check_len("recvcounts", recvcounts, size)?;
    check_len("rdispls", rdispls, size)?;
    check_blocks(recvcounts, rdispls, "alltoallv")?;
    let (sendcounts, sdispls) = if in_place {
        (recvcounts, rdispls)
    } else {
        check_len("sendcounts", sendcounts, size)?;
        check_len("sdispls", sdispls, size)?;
        check_blocks(sendcounts, sdispls, "alltoallv")?;
        (sendcounts, sdispls)
    };
    match alg {
        AlltoallvAlgorithm::Default => Ok(alltoallv_linear(
            rank,
            size,
            |i| sendcounts[i],
            |i| sdispls[i],
            |i| recvcounts[i],
            |i| rdispls[i],
            in_place,
            AlltoallOrder::Ascending,
        )),
    }
}

/// Posting order of the linear exchanges.
#[derive(Clone, Copy)]
enum AlltoallOrder {
    /// Open MPI / SimGrid `alltoall__basic_linear`: receives from rank+1,
    /// rank+2, ... (cyclically), then sends to rank-1, rank-2, ...
    OpenMpi,
    /// SimGrid `ialltoallv`: receives from 0, 1, ..., then sends to 0, 1, ...
    Ascending,
}

/// Linear alltoall(v): every receive and every send posted at once, own
/// block copied locally. In place, the outgoing blocks are first packed
/// contiguously into one scratch buffer (one copy per peer: the receive
/// blocks need not be adjacent), so that sends read scratch while receives
/// overwrite the receive buffer.
#[allow(clippy::too_many_arguments)] // one argument per MPI parameter
fn alltoallv_linear(
    rank: usize,
    size: usize,
    scounts: impl Fn(usize) -> usize,
    sdispls: impl Fn(usize) -> usize,
    rcounts: impl Fn(usize) -> usize,
    rdispls: impl Fn(usize) -> usize,
    in_place: bool,
    order: AlltoallOrder,
) -> Schedule {
    let mut b = Builder::new();
    let peers = || -> Box<dyn Iterator<Item = usize>> {
        match order {
            AlltoallOrder::OpenMpi => Box::new((1..size).map(move |k| (rank + k) % size)),
            AlltoallOrder::Ascending => Box::new((0..size).filter(move |&i| i != rank)),
        }
    };
    let send_peers = || -> Box<dyn Iterator<Item = usize>> {
        match order {
            AlltoallOrder::OpenMpi => Box::new((1..size).map(move |k| (rank + size - k) % size)),
            AlltoallOrder::Ascending => Box::new((0..size).filter(move |&i| i != rank)),
        }
    };

    // Where the block for peer `j` is sent from.
    let mut out_blocks: Vec<(usize, crate::schedule::Block)> = Vec::new();
    if in_place && size > 1 {
        // Pack the blocks for the peers into scratch. The packed offsets are
        // prefix sums in peer order (O(size) memory for this rank only, as
        // the schedule itself).
        let total: usize = (0..size).filter(|&j| j != rank).map(&rcounts).sum();
        let tmp = b.tmp(total);
        let mut off = 0;
        let mut packed = vec![0usize; size];
        let mut copies = Vec::with_capacity(size - 1);
        for j in (0..size).filter(|&j| j != rank) {
            packed[j] = off;
            copies.push(Local::Copy {
                from: Buf::Recv.block(rdispls(j), rcounts(j)),
                to: tmp.block(off, rcounts(j)),
            });
            off += rcounts(j);
        }
        b.round(vec![], copies);
        out_blocks.extend(send_peers().map(|j| (j, tmp.block(packed[j], rcounts(j)))));
    } else {
        out_blocks.extend(send_peers().map(|j| (j, Buf::Send.block(sdispls(j), scounts(j)))));
    }

    let mut comm = Vec::with_capacity(2 * (size - 1));
    comm.extend(peers().map(|i| recv(i, Buf::Recv.block(rdispls(i), rcounts(i)))));
    comm.extend(out_blocks.into_iter().map(|(j, blk)| send(j, blk)));
    b.round(comm, vec![]);
    if !in_place {
        b.copy(
            Buf::Send.block(sdispls(rank), scounts(rank)),
            Buf::Recv.block(rdispls(rank), rcounts(rank)),
        );
    }
    b.finish()
}

/// SimGrid's `alltoall__pair`: in step i = 1..p-1, a sendrecv with peer
/// rank XOR i (step 0 is the local copy). In place, the outgoing block is
/// first copied to a one-block scratch buffer since the same block is
/// received into.
fn alltoall_pair(
    rank: usize,
    size: usize,
    sendcount: usize,
    recvcount: usize,
    in_place: bool,
) -> Schedule {
    let mut b = Builder::new();
    if !in_place {
        b.copy(
            Buf::Send.block(rank * sendcount, sendcount),
            Buf::Recv.block(rank * recvcount, recvcount),
        );
    }
    let scratch = if in_place && size > 1 {
        Some(b.tmp(recvcount).block(0, recvcount))
    } else {
        None
    };
    for i in 1..size {
        let peer = rank ^ i;
        let into = Buf::Recv.block(peer * recvcount, recvcount);
        let out = match scratch {
            Some(s) => {
                b.copy(into, s);
                s
            }
            None => Buf::Send.block(peer * sendcount, sendcount),
        };
        b.round(vec![send(peer, out), recv(peer, into)], vec![]);
    }
    b.finish()
}

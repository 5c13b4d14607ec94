//! `MPI_Alltoall(v)`.
//!
//! In place (`MPI_IN_PLACE` as send buffer): the data to send is taken from
//! the receive buffer and replaced by the received data; send counts and
//! displacements are ignored and the receive ones used for both directions
//! (MPI requires them to be symmetric then). Because a block is both sent
//! and overwritten, the outgoing blocks are first copied to scratch.

use crate::error::{check_blocks, check_len, check_radix, check_rank, mul, CollError};
use crate::params::{AlltoallvBlocks, Blocks, Position, Tuning};
use crate::registry::{AlltoallAlgorithm, AlltoallvAlgorithm};
use crate::schedule::{recv, send, Buf, Builder, Layout, Local, Schedule};

/// `MPI_Alltoall`: block `j` of rank `i`'s send buffer
/// (`Send[j*sendcount..(j+1)*sendcount]`) lands in block `i` of rank `j`'s
/// receive buffer (`Recv[i*recvcount..(i+1)*recvcount]`).
///
/// Algorithm: `basic_linear`; the engine resolves the default by size with
/// [`alltoall_default_for`].
pub fn alltoall(at: Position, blocks: Blocks) -> Result<Schedule, CollError> {
    alltoall_with(AlltoallAlgorithm::Default, at, blocks, Tuning::default())
}

/// `MPI_Alltoall` with a chosen algorithm; see [`alltoall`]. `pair` fails
/// with [`CollError::NeedsPowerOfTwo`] unless `size` is a power of two.
/// It reads `tuning.radix`, the k of `bruck_k`, `ring_k` and `burst` (at
/// least 2).
pub fn alltoall_with(
    alg: AlltoallAlgorithm,
    at: Position,
    blocks: Blocks,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    check_radix(tuning.radix)?;
    let Position { rank, size } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    let radix = tuning.radix;
    mul(size, recvcount, "alltoall")?;
    mul(size, sendcount, "alltoall")?;
    // In place, everything is in receive-buffer terms.
    let sendcount = if in_place { recvcount } else { sendcount };
    let (send_slots, recv_slots) = (Layout::Uniform(sendcount), Layout::Uniform(recvcount));
    match alg {
        AlltoallAlgorithm::Default | AlltoallAlgorithm::BasicLinear => Ok(alltoallv_linear(
            rank,
            size,
            send_slots,
            recv_slots,
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
        AlltoallAlgorithm::Ring | AlltoallAlgorithm::RingK | AlltoallAlgorithm::Burst => {
            Ok(alltoallv_ring_k(
                rank,
                size,
                send_slots,
                recv_slots,
                in_place,
                match alg {
                    AlltoallAlgorithm::Ring => Pace::Rounds(1),
                    AlltoallAlgorithm::RingK => Pace::Rounds(radix),
                    _ => Pace::Window(radix),
                },
                false,
            ))
        }
        AlltoallAlgorithm::Bruck => Ok(alltoall_bruck_k(
            rank, size, sendcount, recvcount, in_place, 2,
        )),
        AlltoallAlgorithm::BruckK => Ok(alltoall_bruck_k(
            rank, size, sendcount, recvcount, in_place, radix,
        )),
    }
}

/// What SimGrid 3.32's default selector runs for `MPI_Alltoall`: its copy
/// of Open MPI's fixed decision table (2022), by communicator size and
/// block size in bytes (send type size times count). Open MPI's
/// algorithms map to SimGrid's: linear, linear_sync and two_proc to
/// `basic_linear`, modified_bruck to `bruck`, pairwise to `pair`. SimGrid
/// aborts where the table picks `pair` on a size that is not a power of
/// two; Open MPI's pairwise is then SimGrid's `ring`, which we run.
pub fn alltoall_default_for(block_bytes: usize, size: usize) -> AlltoallAlgorithm {
    use AlltoallAlgorithm::{BasicLinear as L, Bruck as B, Pair as P};
    let d = block_bytes;
    // (exclusive upper bound on the block size, algorithm), then the
    // algorithm above the last bound.
    let (steps, above): (&[(usize, AlltoallAlgorithm)], _) = match size {
        2 => (
            &[
                (2, P),
                (4, L),
                (16, P),
                (64, L),
                (256, P),
                (4096, L),
                (32768, P),
                (262144, L),
                (1048576, L),
            ],
            P,
        ),
        0..=7 => (&[(524288, L), (1048576, P)], L),
        8..=15 => (&[], L),
        16..=31 => (&[(4, L), (512, B)], L),
        32..=63 => (&[(512, B)], L),
        64..=255 => (&[(1024, B), (262144, L)], P),
        256..=511 => (&[(1024, B), (32768, L)], P),
        512..=1023 => (&[(512, B), (262144, L)], P),
        1024..=2047 => (&[(512, B)], L),
        2048..=4095 => (&[(1024, B)], L),
        _ => (&[(2048, B)], L),
    };
    let alg = steps
        .iter()
        .find(|&&(bound, _)| d < bound)
        .map_or(above, |&(_, a)| a);
    if alg == P && !size.is_power_of_two() {
        AlltoallAlgorithm::Ring
    } else {
        alg
    }
}

/// In place, the outgoing data: a scratch copy of the whole receive buffer
/// (blocks are overwritten before they would be sent); else the send
/// buffer. Returns the buffer blocks are sent from and its block size.
fn outgoing(
    b: &mut Builder,
    size: usize,
    sendcount: usize,
    recvcount: usize,
    in_place: bool,
) -> (Buf, usize) {
    if in_place {
        let all = size * recvcount;
        let t = b.tmp(all);
        b.copy(Buf::Recv.block(0, all), t.block(0, all));
        (t, recvcount)
    } else {
        (Buf::Send, sendcount)
    }
}

/// How the exchanges of a ring alltoall are paced.
#[derive(Clone, Copy)]
enum Pace {
    /// In rounds of k exchanges, each round waiting for all of them.
    Rounds(usize),
    /// A sliding window of k exchanges: exchange i starts as soon as
    /// exchange i - k completed (the studies' burst).
    Window(usize),
}

/// Ring-k: the p - 1 exchanges of SimGrid's `ring` in rounds of k; round
/// j posts, for each distance i in 1+jk ..= (j+1)k, the send to rank+i and
/// the receive from rank-i (in SimGrid's sendrecv order), all at once, and
/// waits for them before the next round (k in-flight partners). k = 1 is
/// `ring`; SimGrid's step with itself is a local copy. Burst
/// ([`Pace::Window`]) keeps k exchanges in flight instead: step i posts
/// exchange i and waits for exchange i - k + 1. With `xor`, step i
/// exchanges with rank XOR i instead (SimGrid's alltoallv `ring` does so
/// on powers of two). In place, every outgoing block is first copied to
/// scratch: a block may be overwritten by a receive before its own send.
fn alltoallv_ring_k(
    rank: usize,
    size: usize,
    send_slots: Layout,
    recv_slots: Layout,
    in_place: bool,
    pace: Pace,
    xor: bool,
) -> Schedule {
    let mut b = Builder::new();
    let scratch = if in_place {
        let extent = (0..size)
            .map(|j| recv_slots.displ(j) + recv_slots.count(j))
            .max()
            .unwrap_or(0);
        let t = b.tmp(extent);
        b.copy(Buf::Recv.block(0, extent), t.block(0, extent));
        Some(t)
    } else {
        None
    };
    let from = |j: usize| match scratch {
        Some(t) => recv_slots.block(t, j),
        None => send_slots.block(Buf::Send, j),
    };
    let into = |j: usize| recv_slots.block(Buf::Recv, j);
    b.copy(from(rank), into(rank));
    let exchange = |i: usize| {
        let (dst, src) = if xor {
            (rank ^ i, rank ^ i)
        } else {
            ((rank + i) % size, (rank + size - i) % size)
        };
        [send(dst, from(dst)), recv(src, into(src))]
    };
    let distances: Vec<usize> = (1..size).collect();
    // A window no wider than the number of exchanges.
    let pace = match pace {
        Pace::Window(k) => Pace::Window(k.min(distances.len())),
        rounds => rounds,
    };
    match pace {
        Pace::Rounds(k) | Pace::Window(k @ (0 | 1)) => {
            for round in distances.chunks(k.max(1)) {
                b.round(round.iter().flat_map(|&i| exchange(i)).collect(), vec![]);
            }
        }
        Pace::Window(k) => {
            // Exchange i is due k - 1 steps after its own; k - 1 steps
            // without a new exchange wait for the last ones.
            for &i in &distances {
                b.round_deferring(vec![], vec![], exchange(i).map(|c| (c, k - 1)).into());
            }
            for _ in 1..k {
                b.round_deferring(vec![], vec![], vec![]);
            }
        }
    }
    b.finish()
}

/// Bruck with radix k: rotate the blocks up by the rank; for each base-k
/// digit position d (stride k^d), in one round and for every digit value
/// v in 1..k, send the blocks whose index has digit v at d to rank +
/// v k^d and receive the same blocks from rank - v k^d; then undo the
/// rotation, which also reverses the block order. log_k(p) rounds of
/// (k-1) messages, each carrying about p/k blocks.
///
/// k = 2 is SimGrid's `bruck` (MPICH's, as modified by Ahmad Faraj),
/// message for message; its sendrecvs with itself are local copies, as
/// they are in SimGrid.
fn alltoall_bruck_k(
    rank: usize,
    size: usize,
    sendcount: usize,
    recvcount: usize,
    in_place: bool,
    k: usize,
) -> Schedule {
    let mut b = Builder::new();
    let (from, sc) = outgoing(&mut b, size, sendcount, recvcount, in_place);
    let rc = recvcount;
    let recv_at = |block: usize, count: usize| Buf::Recv.block(block * rc, count * rc);
    let (p, r) = (size, rank);
    b.copy(from.block(r * sc, (p - r) * sc), recv_at(0, p - r));
    b.copy(from.block(0, r * sc), recv_at(p - r, r));
    // How many of the blocks 1..p have digit v at stride s.
    let with_digit = |s: usize, v: usize| {
        let cycle = s * k;
        (p / cycle) * s + (p % cycle).saturating_sub(v * s).min(s)
    };
    // One pair of scratch buffers per digit value, reused by every round.
    let mut most = vec![0; k];
    let mut stride = 1;
    while stride < p {
        for (v, m) in most.iter_mut().enumerate().skip(1) {
            *m = (*m).max(with_digit(stride, v));
        }
        stride *= k;
    }
    let pairs: Vec<(Buf, Buf)> = most[1..]
        .iter()
        .map(|&m| (b.tmp(m * rc), b.tmp(m * rc)))
        .collect();
    let mut stride = 1;
    while stride < p {
        let mut comm = Vec::new();
        let mut unpack = Vec::new();
        for v in (1..k).take_while(|v| v * stride < p) {
            let (out, inn) = pairs[v - 1];
            let blocks = (1..p).filter(|j| (j / stride) % k == v);
            let mut n = 0;
            for (j, i, len) in runs(blocks) {
                b.copy(recv_at(j, len), out.block(i * rc, len * rc));
                unpack.push(Local::Copy {
                    from: inn.block(i * rc, len * rc),
                    to: recv_at(j, len),
                });
                n = (i + len) * rc;
            }
            comm.push(send((r + v * stride) % p, out.block(0, n)));
            comm.push(recv((r + p - v * stride) % p, inn.block(0, n)));
        }
        b.round(comm, unpack);
        stride *= k;
    }
    // Block i (counted from the rank, upwards) came from rank - i.
    let t = b.tmp(p * rc);
    b.copy(recv_at(0, p), t.block(0, p * rc));
    for i in 0..p {
        b.copy(t.block(i * rc, rc), recv_at((r + p - i) % p, 1));
    }
    b.finish()
}

/// Groups increasing block indices into runs of consecutive ones, packed
/// one after the other: (first index, packed position, length) each, so
/// that packing takes one copy per run rather than per block.
fn runs(blocks: impl Iterator<Item = usize>) -> Vec<(usize, usize, usize)> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for (packed, j) in blocks.enumerate() {
        match out.last_mut() {
            Some((first, _, len)) if *first + *len == j => *len += 1,
            _ => out.push((j, packed, 1)),
        }
    }
    out
}

/// `MPI_Alltoallv`: `Send[sdispls[j]..+sendcounts[j]]` of rank `i` lands in
/// `Recv[rdispls[i]..+recvcounts[i]]` of rank `j`. All arrays need one
/// entry per rank at every rank, except that in place `sendcounts` and
/// `sdispls` are ignored (and may be empty).
///
/// Algorithm (SimGrid's default `ialltoallv`): receives from every other
/// rank in increasing order, then sends to every other rank in increasing
/// order, all posted at once; the own block is copied locally.
pub fn alltoallv(at: Position, blocks: AlltoallvBlocks) -> Result<Schedule, CollError> {
    alltoallv_with(AlltoallvAlgorithm::Default, at, blocks, Tuning::default())
}

/// `MPI_Alltoallv` with a chosen algorithm; see [`alltoallv`]. It reads
/// `tuning.radix`, the k of `ring_k` and `burst` (at least 2).
pub fn alltoallv_with(
    alg: AlltoallvAlgorithm,
    at: Position,
    blocks: AlltoallvBlocks,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    check_radix(tuning.radix)?;
    let Position { rank, size } = at;
    let AlltoallvBlocks {
        sendcounts,
        sdispls,
        recvcounts,
        rdispls,
        in_place,
    } = blocks;
    let radix = tuning.radix;
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
    let send_slots = Layout::PerRank {
        counts: sendcounts,
        displs: sdispls,
    };
    let recv_slots = Layout::PerRank {
        counts: recvcounts,
        displs: rdispls,
    };
    match alg {
        AlltoallvAlgorithm::CrystalRouter => {
            Err(CollError::NotASchedule("alltoallv crystal_router"))
        }
        AlltoallvAlgorithm::Default => Ok(alltoallv_linear(
            rank,
            size,
            send_slots,
            recv_slots,
            in_place,
            AlltoallOrder::Ascending,
        )),
        AlltoallvAlgorithm::Ring | AlltoallvAlgorithm::RingK | AlltoallvAlgorithm::Burst => {
            Ok(alltoallv_ring_k(
                rank,
                size,
                send_slots,
                recv_slots,
                in_place,
                match alg {
                    AlltoallvAlgorithm::Ring => Pace::Rounds(1),
                    AlltoallvAlgorithm::RingK => Pace::Rounds(radix),
                    _ => Pace::Window(radix),
                },
                alg == AlltoallvAlgorithm::Ring && size.is_power_of_two(),
            ))
        }
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
fn alltoallv_linear(
    rank: usize,
    size: usize,
    send_slots: Layout,
    recv_slots: Layout,
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
        let total: usize = (0..size)
            .filter(|&j| j != rank)
            .map(|j| recv_slots.count(j))
            .sum();
        let tmp = b.tmp(total);
        let mut off = 0;
        let mut packed = vec![0usize; size];
        let mut copies = Vec::with_capacity(size - 1);
        for j in (0..size).filter(|&j| j != rank) {
            packed[j] = off;
            copies.push(Local::Copy {
                from: recv_slots.block(Buf::Recv, j),
                to: tmp.block(off, recv_slots.count(j)),
            });
            off += recv_slots.count(j);
        }
        b.round(vec![], copies);
        out_blocks.extend(send_peers().map(|j| (j, tmp.block(packed[j], recv_slots.count(j)))));
    } else {
        out_blocks.extend(send_peers().map(|j| (j, send_slots.block(Buf::Send, j))));
    }

    let mut comm = Vec::with_capacity(2 * (size - 1));
    comm.extend(peers().map(|i| recv(i, recv_slots.block(Buf::Recv, i))));
    comm.extend(out_blocks.into_iter().map(|(j, blk)| send(j, blk)));
    b.round(comm, vec![]);
    if !in_place {
        b.copy(
            send_slots.block(Buf::Send, rank),
            recv_slots.block(Buf::Recv, rank),
        );
    }
    b.finish()
}

/// SimGrid's `alltoall__pair`: in step i = 1..p-1, a sendrecv with peer
/// rank XOR i (step 0 is the local copy), the steps generated when read.
/// In place, the outgoing block is first copied to a one-block scratch
/// buffer since the same block is received into.
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
        b.xor_exchanges(rank, size, sendcount, recvcount);
        return b.finish();
    }
    // In place, each outgoing block goes through a one-block scratch
    // buffer, since the same block is received into.
    if size > 1 {
        let scratch = b.tmp(recvcount).block(0, recvcount);
        for i in 1..size {
            let peer = rank ^ i;
            let into = Buf::Recv.block(peer * recvcount, recvcount);
            b.copy(into, scratch);
            b.round(vec![send(peer, scratch), recv(peer, into)], vec![]);
        }
    }
    b.finish()
}

//! SimGrid 3.32's Rabenseifner-style `MPI_Allreduce` algorithms: `rab1`,
//! `rab2`, `rab` and `mvapich2_rs`, with SimGrid's exact messages so that
//! simulated times match.
//!
//! Buffers as in [`allreduce`](crate::allreduce()): the contribution is
//! `input` (`Buf::Send`, or `Buf::Recv` in place), the result lands in
//! `acc` (`Buf::Recv[0..count]`). SimGrid copies an `MPI_IN_PLACE`
//! contribution to scratch before the algorithm starts; here `input` is
//! then `acc` itself, and every schedule reads each part of it before
//! overwriting it, so no copy is needed.
//!
//! SimGrid's `rab1`, `rab2` and `mvapich2_rs` (from one element per rank
//! of the largest power of two up) reduce a partner's data as the left
//! operand whichever side it comes from, which is wrong for
//! non-commutative operations: those run the default algorithm instead.
//! `rab` and the recursive doubling of `mvapich2_rs` keep rank order, so
//! they run as SimGrid runs them.

use crate::allgather::allgather_with;
use crate::allreduce::{rabenseifner, rdb, reduce_bcast};
use crate::alltoall::{alltoall_default_for, alltoall_with};
use crate::error::{mul, CollError};
use crate::params::{Blocks, Position, Tuning};
use crate::reduce::combine;
use crate::registry::AllgatherAlgorithm;
use crate::schedule::{recv, send, Block, Buf, Builder, Local};

/// SimGrid's default allgather (what `colls::allgather` is under its
/// default selector) of `n` elements per rank from `mine` into `all`
/// (`size * n` elements); `mine` may be `all`'s own block (in place).
fn allgather_default(
    b: &mut Builder,
    at: Position,
    n: usize,
    mine: Block,
    all: Block,
) -> Result<(), CollError> {
    let in_place = mine == all.sub(at.rank * n, n);
    let blocks = Blocks {
        sendcount: n,
        recvcount: n,
        in_place,
    };
    let sub = allgather_with(AllgatherAlgorithm::Default, at, blocks)?;
    b.append(sub, |blk| match blk.buf {
        Buf::Send => mine.sub(blk.offset, blk.count),
        _ => all.sub(blk.offset, blk.count),
    });
    Ok(())
}

/// SimGrid's `rab1`, for power-of-two sizes: a recursive-halving
/// reduce-scatter of `size` blocks of `ceil(count / size)` elements (the
/// vector padded in scratch when `size` does not divide `count`), the
/// partner at distance `size / 2` first, then the default allgather of
/// the blocks. Other sizes fail as SimGrid does (it throws).
pub(crate) fn rab1(
    b: &mut Builder,
    at: Position,
    input: Block,
    acc: Block,
    commutative: bool,
) -> Result<(), CollError> {
    let Position { rank, size } = at;
    if !size.is_power_of_two() {
        return Err(CollError::NeedsPowerOfTwo {
            algorithm: "allreduce rab1",
            size,
        });
    }
    if !commutative {
        reduce_bcast(b, rank, size, input, acc, commutative);
        return Ok(());
    }
    let count = acc.count;
    let share = count.div_ceil(size);
    let total = mul(share, size, "allreduce")?;
    // SimGrid works in the receive buffer when the blocks fill it exactly,
    // else in scratch holding the padded vector.
    let padded = total != count;
    let work = if padded {
        b.tmp(total).block(0, total)
    } else {
        acc
    };
    b.copy(input, work.sub(0, count));
    let incoming = b
        .tmp(share * (size / 2).max(1))
        .block(0, share * (size / 2).max(1));
    let (mut send_idx, mut recv_idx) = (0, 0);
    let mut mask = size / 2;
    while mask > 0 {
        let dst = rank ^ mask;
        let n = mask * share;
        if rank < dst {
            send_idx = recv_idx + n;
        } else {
            recv_idx = send_idx + n;
        }
        b.round(
            vec![
                send(dst, work.sub(send_idx, n)),
                recv(dst, incoming.sub(0, n)),
            ],
            vec![Local::Reduce {
                input: incoming.sub(0, n),
                inout: work.sub(recv_idx, n),
            }],
        );
        send_idx = recv_idx;
        mask >>= 1;
    }
    // Our reduced block (block `rank`) goes out from scratch, as in SimGrid.
    let mine = incoming.sub(0, share);
    b.copy(work.sub(recv_idx, share), mine);
    allgather_default(b, at, share, mine, work)?;
    if padded {
        b.copy(work.sub(0, count), acc);
    }
    Ok(())
}

/// SimGrid's `rab2`: an alltoall of `size` blocks of `count / size`
/// elements (when `size` does not divide `count`: of `count / size + 1`
/// elements, or `size` elements below one per rank, the vector padded in
/// scratch), each rank reducing the blocks it got, then the default
/// allgather of the reduced blocks. The alltoall is the one SimGrid's
/// default selector picks for that block size.
pub(crate) fn rab2(
    b: &mut Builder,
    at: Position,
    input: Block,
    acc: Block,
    commutative: bool,
    tuning: Tuning,
) -> Result<(), CollError> {
    let Position { rank, size } = at;
    if !commutative {
        reduce_bcast(b, rank, size, input, acc, commutative);
        return Ok(());
    }
    let count = acc.count;
    let padded = !count.is_multiple_of(size);
    let share = match (padded, count < size) {
        (false, _) => count / size,
        (true, true) => size,
        (true, false) => count / size + 1,
    };
    let total = mul(share, size, "allreduce")?;
    let source = if padded {
        let s = b.tmp(total).block(0, total);
        b.copy(input, s.sub(0, count));
        s
    } else {
        input
    };
    let blocks = b.tmp(total).block(0, total);
    let alltoall = alltoall_with(
        alltoall_default_for(share.saturating_mul(tuning.elem_bytes), size),
        at,
        Blocks {
            sendcount: share,
            recvcount: share,
            in_place: false,
        },
        tuning,
    )?;
    b.append(alltoall, |blk| match blk.buf {
        Buf::Send => source.sub(blk.offset, blk.count),
        _ => blocks.sub(blk.offset, blk.count),
    });
    // Block i of `blocks` is rank i's contribution to our block; SimGrid
    // folds ranks 1, 2, ... one after the other into a copy of rank 0's,
    // each as the left operand (so for commutative operations only).
    let reduced = if padded {
        b.tmp(share).block(0, share)
    } else {
        acc.sub(rank * share, share)
    };
    b.copy(blocks.sub(0, share), reduced);
    for i in 1..size {
        b.local(Local::Reduce {
            input: blocks.sub(i * share, share),
            inout: reduced,
        });
    }
    if padded {
        allgather_default(b, at, share, reduced, blocks)?;
        b.copy(blocks.sub(0, count), acc);
        Ok(())
    } else {
        allgather_default(b, at, share, reduced, acc)
    }
}

/// SimGrid's `mvapich2_rs` (MVAPICH2's copy of MPICH's allreduce): nothing
/// for 0 elements; the pairs below `2 * (size - pof2)` fold onto the
/// largest power of two `pof2`; then recursive doubling of the whole
/// vector below `pof2` elements, else Rabenseifner's reduce-scatter and
/// allgather over `pof2` blocks of `count / pof2` elements, the last one
/// taking the remainder: exactly SimGrid's `rab_rdb`.
pub(crate) fn mvapich2_rs(
    b: &mut Builder,
    rank: usize,
    size: usize,
    input: Block,
    acc: Block,
    commutative: bool,
) {
    let count = acc.count;
    if count == 0 {
        return;
    }
    let pof2 = 1 << size.ilog2();
    if count < pof2 {
        rdb(b, rank, size, input, acc, commutative);
    } else if commutative {
        rabenseifner(b, rank, size, input, acc, commutative);
    } else {
        reduce_bcast(b, rank, size, input, acc, commutative);
    }
}

/// SimGrid's `rab` allreduce: Rabenseifner's 1997 reduce with its
/// allreduce ending (SimGrid's `MPI_I_anyReduce`, which takes its "new
/// protocol" for every count of at least 1).
///
/// With `r = size - pof2`, `pof2` the largest power of two not above
/// `size`: the pairs (2i, 2i+1) below `2r` swap halves of the vector, the
/// even rank reducing the first `count / 2` elements and the odd one the
/// rest, which it hands back to the even rank (a blocking send); the even
/// ranks of the pairs and the ranks from `2r` up then run `log2 pof2`
/// recursive-halving steps, distance 1 first, each keeping the lower half
/// of its range at the lower rank of the two, then the same steps
/// backwards to gather the result; last, the even ranks of the pairs send
/// the result to the odd ones.
///
/// Every combination keeps rank order, so non-commutative operations are
/// right. SimGrid itself only runs `rab` for some predefined (so
/// commutative) operations on basic datatypes: it throws for other
/// datatypes, computes `MPI_MAX` for user operations, and recurses forever
/// on `colls::allreduce` (which is `rab` again) for 1 rank, 0 elements,
/// and the operations its table lacks (`MPI_SUM` of `MPI_BYTE`, logical
/// operations on floating point). The schedule does not depend on the
/// datatype or operation, so it runs for all of them; 1 rank and 0
/// elements run the default.
pub(crate) fn rab(
    b: &mut Builder,
    rank: usize,
    size: usize,
    input: Block,
    acc: Block,
    commutative: bool,
) {
    let count = acc.count;
    if size == 1 || count == 0 {
        reduce_bcast(b, rank, size, input, acc, commutative);
        return;
    }
    b.copy(input, acc);
    let steps = size.ilog2();
    let rem = size - (1 << steps);
    let incoming = b.tmp(count).block(0, count);
    let (lower, upper) = (count / 2, count - count / 2);
    let paired = rank < 2 * rem;
    if paired && rank.is_multiple_of(2) {
        let partner = rank + 1;
        b.round(
            vec![
                send(partner, acc.sub(lower, upper)),
                recv(partner, incoming.sub(0, lower)),
            ],
            combine(
                incoming.sub(0, lower),
                acc.sub(0, lower),
                false,
                commutative,
            ),
        );
        b.round(vec![recv(partner, acc.sub(lower, upper))], vec![]);
    } else if paired {
        let partner = rank - 1;
        b.round(
            vec![
                send(partner, acc.sub(0, lower)),
                recv(partner, incoming.sub(lower, upper)),
            ],
            vec![Local::Reduce {
                input: incoming.sub(lower, upper),
                inout: acc.sub(lower, upper),
            }],
        );
        b.round(vec![send(partner, acc.sub(lower, upper))], vec![]);
    }
    // The even ranks of the pairs and the ranks from 2r up, in rank order.
    let virtual_rank = if !paired {
        Some(rank - rem)
    } else if rank.is_multiple_of(2) {
        Some(rank / 2)
    } else {
        None
    };
    let rank_of = |v: usize| if v < rem { 2 * v } else { v + rem };
    if let Some(v) = virtual_rank {
        // Step i splits the range kept so far into a lower part (kept by
        // the virtual ranks with bit i clear) and an upper part.
        let mut halves: Vec<[Block; 2]> = Vec::with_capacity(steps as usize);
        let mut kept = acc;
        for i in 0..steps {
            let bit = 1 << i;
            let half = kept.count / 2;
            let parts = [kept.sub(0, half), kept.sub(half, kept.count - half)];
            halves.push(parts);
            let upper_side = v & bit != 0;
            let partner = rank_of(v ^ bit);
            let (keep, give) = if upper_side {
                (parts[1], parts[0])
            } else {
                (parts[0], parts[1])
            };
            let into = incoming.sub(keep.offset - acc.offset, keep.count);
            b.round(
                vec![send(partner, give), recv(partner, into)],
                combine(into, keep, upper_side, commutative),
            );
            kept = keep;
        }
        for (i, parts) in halves.iter().enumerate().rev() {
            let upper_side = v & (1 << i) != 0;
            let partner = rank_of(v ^ (1 << i));
            let (have, missing) = if upper_side {
                (parts[1], parts[0])
            } else {
                (parts[0], parts[1])
            };
            b.round(vec![send(partner, have), recv(partner, missing)], vec![]);
        }
    }
    if paired && rank.is_multiple_of(2) {
        b.round(vec![send(rank + 1, acc)], vec![]);
    } else if paired {
        b.round(vec![recv(rank - 1, acc)], vec![]);
    }
}

//! `MPI_Scan` and `MPI_Exscan`.
//!
//! Buffers: a rank's contribution `x_i` is `Send[0..count]`, or
//! `Recv[0..count]` when `in_place`; the result lands in `Recv[0..count]`.
//! Results, for every algorithm and whether or not the operation commutes:
//!
//! * scan, rank i: `x_0 op x_1 op ... op x_i`;
//! * exscan, rank i > 0: `x_0 op ... op x_{i-1}`; rank 0's receive buffer
//!   is not written (MPI leaves it undefined) but, in place, still read.
//!
//! Every [`Local::Reduce`] has the lower ranks' partial result as `input`
//! and the higher ranks' as `inout`, so non-commutative operations are
//! applied in rank order. `commutative` does not change the schedules yet;
//! it is there for the logarithmic algorithms to come.

use crate::error::{check_rank, CollError};
use crate::params::{Position, Reduction};
use crate::registry::{ExscanAlgorithm, ScanAlgorithm};
use crate::schedule::{recv, send, Block, Buf, Builder, Local, Schedule};

/// `MPI_Scan` of `count` elements with the default algorithm (`direct`,
/// SimGrid 3.32's only one).
pub fn scan(at: Position, reduction: Reduction) -> Result<Schedule, CollError> {
    scan_with(ScanAlgorithm::Default, at, reduction)
}

/// `MPI_Scan` with a chosen algorithm; see [`scan`].
pub fn scan_with(
    alg: ScanAlgorithm,
    at: Position,
    reduction: Reduction,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Position { rank, size } = at;
    let Reduction {
        count, in_place, ..
    } = reduction;
    let mine = contribution(in_place, count);
    let out = Buf::Recv.block(0, count);
    let mut b = Builder::new();
    match alg {
        ScanAlgorithm::Linear => {
            // Open MPI's linear scan: receive the prefix of ranks 0..i from
            // i-1, fold it in front of our contribution, pass it on.
            if rank > 0 {
                let prefix = b.tmp(count).block(0, count);
                let mut local = Vec::with_capacity(2);
                if mine != out {
                    local.push(Local::Copy {
                        from: mine,
                        to: out,
                    });
                }
                local.push(Local::Reduce {
                    input: prefix,
                    inout: out,
                });
                b.round(vec![recv(rank - 1, prefix)], local);
                if rank + 1 < size {
                    b.round(vec![send(rank + 1, out)], vec![]);
                }
            } else {
                // Rank 0's prefix is its own contribution: send it straight
                // from where it is, and copy it to the result meanwhile.
                let comm = if size > 1 {
                    vec![send(1, mine)]
                } else {
                    vec![]
                };
                b.round(comm, vec![]);
                b.copy(mine, out);
            }
        }
        ScanAlgorithm::Default | ScanAlgorithm::Direct => {
            direct(&mut b, rank, size, mine, out, true)
        }
    }
    Ok(b.finish())
}

/// `MPI_Exscan` of `count` elements with the default algorithm (`direct`,
/// SimGrid 3.32's only one).
pub fn exscan(at: Position, reduction: Reduction) -> Result<Schedule, CollError> {
    exscan_with(ExscanAlgorithm::Default, at, reduction)
}

/// `MPI_Exscan` with a chosen algorithm; see [`exscan`].
pub fn exscan_with(
    alg: ExscanAlgorithm,
    at: Position,
    reduction: Reduction,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Position { rank, size } = at;
    let Reduction {
        count, in_place, ..
    } = reduction;
    let mine = contribution(in_place, count);
    let out = Buf::Recv.block(0, count);
    let mut b = Builder::new();
    match alg {
        ExscanAlgorithm::Linear => {
            let last = rank + 1 == size;
            if rank == 0 {
                if !last {
                    b.round(vec![send(1, mine)], vec![]);
                }
            } else if last {
                // Nothing to pass on: the received prefix is the result.
                b.round(vec![recv(rank - 1, out)], vec![]);
            } else if in_place {
                // Our contribution occupies the result buffer: receive the
                // prefix into scratch, extend the contribution into the
                // prefix for rank+1 in place, send it, then put the received
                // prefix in the result.
                let prefix = b.tmp(count).block(0, count);
                b.round(
                    vec![recv(rank - 1, prefix)],
                    vec![Local::Reduce {
                        input: prefix,
                        inout: out,
                    }],
                );
                b.round(vec![send(rank + 1, out)], vec![]);
                b.copy(prefix, out);
            } else {
                let next = b.tmp(count).block(0, count);
                b.round(
                    vec![recv(rank - 1, out)],
                    vec![
                        Local::Copy {
                            from: mine,
                            to: next,
                        },
                        Local::Reduce {
                            input: out,
                            inout: next,
                        },
                    ],
                );
                b.round(vec![send(rank + 1, next)], vec![]);
            }
        }
        ExscanAlgorithm::Default | ExscanAlgorithm::Direct => {
            direct(&mut b, rank, size, mine, out, false)
        }
    }
    Ok(b.finish())
}

fn contribution(in_place: bool, count: usize) -> Block {
    if in_place {
        Buf::Recv.block(0, count)
    } else {
        Buf::Send.block(0, count)
    }
}

/// SimGrid 3.32's built-in scan/exscan: receive every lower rank's
/// contribution into its own scratch slot and send ours to every higher
/// rank, all posted at once (receives first, in increasing rank order, then
/// sends). Then fold the contributions from the highest rank down, so that
/// `input` is always the lower rank (SimGrid itself folds in the other
/// direction, which is only right for commutative operations).
fn direct(b: &mut Builder, rank: usize, size: usize, mine: Block, out: Block, inclusive: bool) {
    let count = mine.count;
    let mut comm = Vec::with_capacity(size - 1);
    let mut local = Vec::with_capacity(rank + 1);
    if rank > 0 {
        let tmp = b.tmp(rank * count);
        let slot = |i: usize| tmp.block(i * count, count);
        comm.extend((0..rank).map(|i| recv(i, slot(i))));
        // The accumulator starts with the highest contribution: ours for
        // scan, rank-1's for exscan.
        let first_lower = if inclusive {
            if mine != out {
                local.push(Local::Copy {
                    from: mine,
                    to: out,
                });
            }
            rank
        } else {
            local.push(Local::Copy {
                from: slot(rank - 1),
                to: out,
            });
            rank - 1
        };
        local.extend((0..first_lower).rev().map(|i| Local::Reduce {
            input: slot(i),
            inout: out,
        }));
    } else if inclusive && mine != out {
        local.push(Local::Copy {
            from: mine,
            to: out,
        });
    }
    comm.extend((rank + 1..size).map(|j| send(j, mine)));
    b.round(comm, local);
}

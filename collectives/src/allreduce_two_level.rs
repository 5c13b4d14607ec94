//! SimGrid's two-level allreduce (`mvapich2_two_level`) and the
//! allreduce choices of its `mvapich2` and `impi` selectors.
//!
//! The two-level allreduce reduces within each host to the host's leader,
//! runs an allreduce among the leaders, and broadcasts the result within
//! each host (see [`crate::smp`] for how hosts and leaders are found).
//! Which allreduce runs inside a host and which among the leaders is, in
//! SimGrid, process-wide state that the `mvapich2` selector sets when it
//! runs and that the two-level algorithm reads ([`Mv2Allreduce`]): the
//! engine keeps it and passes it in, so that a program calling the
//! two-level algorithm before and after the selector sees SimGrid's times.

use crate::allreduce::allreduce_with;
use crate::error::CollError;
use crate::params::{Position, Reduction, RootedPosition, Tuning};
use crate::reduce::{contribution, reduce_into};
use crate::registry::AllreduceAlgorithm;
use crate::schedule::{Block, Buf, Builder};
use crate::smp::{Mv2Allreduce, Mv2Inter, Mv2Intra, Smp};

/// The `mvapich2` selector's choice for an allreduce of `bytes` bytes on
/// `size` ranks (SimGrid 3.32's table, from MVAPICH2's tuning on
/// Stampede), and the state it leaves for the two-level algorithm. The
/// multicast algorithms of the table are unavailable, so recursive
/// doubling stands in for them, as in SimGrid.
pub fn select_allreduce_mvapich2(
    size: usize,
    bytes: usize,
    commutative: bool,
) -> (AllreduceAlgorithm, Mv2Allreduce) {
    /// Per communicator size (up to), the leaders' algorithm by message
    /// size (up to, inclusive; `None`: any) and whether the two-level
    /// algorithm runs; the intra-host step is always a reduce.
    type Row = (usize, &'static [(Option<usize>, Inter, bool)]);
    #[derive(Clone, Copy)]
    enum Inter {
        Rd,
        Rs,
        /// MVAPICH2's reduce then bcast; only ever reached as the
        /// leaders' step of a two-level run, where it is not
        /// recursive doubling, so MVAPICH2's reduce-scatter runs.
        ReduceP2p,
        /// A multicast algorithm: recursive doubling stands in.
        Mcast,
    }
    use Inter::{Mcast, Rd, ReduceP2p, Rs};
    const TABLE: &[Row] = &[
        (16, &[(Some(1024), Rd, true), (None, Rs, false)]),
        (
            32,
            &[
                (Some(1024), Rd, true),
                (Some(16384), Rd, true),
                (None, Rs, false),
            ],
        ),
        (
            64,
            &[
                (Some(512), Rd, true),
                (Some(16384), Rd, true),
                (None, Rs, false),
            ],
        ),
        (
            128,
            &[
                (Some(512), Rd, true),
                (Some(16384), Rd, true),
                (None, Rs, false),
            ],
        ),
        (
            256,
            &[
                (Some(512), Rd, true),
                (Some(16384), Rd, true),
                (None, Rs, false),
            ],
        ),
        (
            512,
            &[
                (Some(512), Rd, true),
                (Some(16384), Rd, true),
                (None, Rs, false),
            ],
        ),
        (
            1024,
            &[
                (Some(512), Rd, true),
                (Some(8192), Rd, true),
                (Some(65536), Rs, true),
                (None, Rs, false),
            ],
        ),
        (
            2048,
            &[
                (Some(64), Rd, true),
                (Some(512), ReduceP2p, true),
                (Some(4096), Mcast, true),
                (Some(16384), Rs, false),
                (None, Rs, false),
            ],
        ),
    ];
    let row = TABLE
        .iter()
        .find(|(procs, _)| size <= *procs)
        .unwrap_or(&TABLE[TABLE.len() - 1])
        .1;
    // The first entry whose bound covers the message; the last otherwise.
    let last = row.len() - 1;
    let at = row
        .iter()
        .position(|&(max, _, _)| max.is_none_or(|m| bytes <= m))
        .unwrap_or(last);
    let (_, inter, two_level) = row[at];
    let inter = match inter {
        Rd | Mcast => Mv2Inter::Rdb,
        Rs | ReduceP2p => Mv2Inter::Rs,
    };
    let state = Mv2Allreduce {
        inter,
        intra: Mv2Intra::Reduce,
    };
    let alg = match (two_level, commutative, inter) {
        (true, true, _) => AllreduceAlgorithm::Mvapich2TwoLevel,
        (true, false, _) | (false, _, Mv2Inter::Rdb) => AllreduceAlgorithm::Rdb,
        (false, _, Mv2Inter::Rs) => AllreduceAlgorithm::Mvapich2Rs,
    };
    (alg, state)
}

/// Intel MPI's allreduce choice (`I_MPI_ADJUST_ALLREDUCE`), as SimGrid
/// 3.32's `impi` selector tabulates it from Stampede: by ranks per host
/// (1, 2, 4, 8 or 16; else the table of 1), communicator size and message
/// size. Shumilin's ring, unknown, is the segmented ring there too.
pub fn select_allreduce_impi(size: usize, per_host: usize, bytes: usize) -> AllreduceAlgorithm {
    use AllreduceAlgorithm as A;
    const ALGORITHMS: [AllreduceAlgorithm; 8] = [
        A::Rdb,
        A::Rab1,
        A::Redbcast,
        A::Mvapich2TwoLevel,
        A::SmpBinomial,
        A::Mvapich2TwoLevel,
        A::OmpiRingSegmented,
        A::OmpiRingSegmented,
    ];
    let per_ppn = IMPI_ALLREDUCE
        .iter()
        .find(|(ppn, _)| *ppn == per_host)
        .unwrap_or(&IMPI_ALLREDUCE[0])
        .1;
    let by_size = per_ppn
        .iter()
        .find(|(max_procs, _)| size <= *max_procs)
        .unwrap_or(&per_ppn[per_ppn.len() - 1])
        .1;
    let pick = by_size
        .iter()
        .find(|(max_bytes, _)| bytes < *max_bytes)
        .unwrap_or(&by_size[by_size.len() - 1])
        .1;
    ALGORITHMS[pick - 1]
}

/// SimGrid 3.32's Intel MPI allreduce table: per ranks per host, per
/// communicator size (up to), per message size (below), the algorithm
/// (1-based, see [`select_allreduce_impi`]).
type ImpiTable = &'static [(usize, &'static [(usize, &'static [(usize, usize)])])];
#[rustfmt::skip]
const IMPI_ALLREDUCE: ImpiTable = &[
    (
        1,
        &[
            (2, &[(6, 7), (85, 1), (192, 7), (853, 1), (1279, 7), (16684, 1), (34279, 8), (1681224, 3), (2147483647, 7)]),
            (4, &[(16, 7), (47, 1), (2062, 7), (16699, 1), (33627, 7), (70732, 8), (1300705, 3), (2147483647, 8)]),
            (8, &[(118, 1), (146, 4), (16760, 1), (36364, 6), (136239, 8), (315710, 7), (3220366, 3), (2147483647, 8)]),
            (16, &[(934, 1), (1160, 6), (15505, 1), (52730, 2), (300705, 8), (563680, 7), (2147483647, 3)]),
            (2147483647, &[(5, 6), (11, 4), (182, 1), (700, 6), (1450, 4), (11146, 1), (25539, 6), (37634, 4), (93784, 6), (817658, 2), (2147483647, 3)]),
        ],
    ),
    (
        2,
        &[
            (4, &[(2084, 7), (15216, 1), (99715, 7), (168666, 3), (363889, 2), (2147483647, 7)]),
            (8, &[(14978, 1), (66879, 2), (179296, 8), (304801, 3), (704509, 7), (2147483647, 2)]),
            (16, &[(16405, 1), (81784, 2), (346385, 8), (807546, 7), (1259854, 2), (2147483647, 3)]),
            (32, &[(8913, 1), (103578, 2), (615876, 8), (2147483647, 2)]),
            (64, &[(1000, 1), (2249, 2), (6029, 1), (325357, 2), (1470976, 8), (2556670, 7), (2147483647, 3)]),
            (128, &[(664, 1), (754706, 2), (1663862, 4), (3269097, 2), (2147483647, 7)]),
            (2147483647, &[(789, 1), (2247589, 2), (2147483647, 8)]),
        ],
    ),
    (
        4,
        &[
            (4, &[(5738, 1), (197433, 2), (593742, 7), (2147483647, 2)]),
            (8, &[(5655, 1), (75166, 2), (177639, 8), (988014, 3), (1643869, 2), (2494859, 8), (2147483647, 2)]),
            (16, &[(587, 1), (3941, 2), (9003, 1), (101469, 2), (355768, 8), (3341814, 3), (2147483647, 8)]),
            (32, &[(795, 1), (146567, 2), (732118, 8), (2147483647, 3)]),
            (64, &[(528, 1), (221277, 2), (1440737, 8), (2147483647, 3)]),
            (128, &[(481, 1), (593833, 2), (2962021, 8), (2147483647, 7)]),
            (256, &[(584, 1), (2147483647, 2)]),
            (2147483647, &[(604, 1), (2997006, 2), (2147483647, 8)]),
        ],
    ),
    (
        8,
        &[
            (8, &[(2560, 1), (114230, 6), (288510, 8), (664038, 2), (1339913, 6), (2147483647, 4)]),
            (16, &[(497, 1), (54201, 2), (356217, 8), (3413609, 3), (2147483647, 8)]),
            (32, &[(377, 1), (109745, 2), (716514, 8), (3976768, 3), (2147483647, 8)]),
            (64, &[(109, 1), (649, 5), (266080, 2), (1493331, 8), (2541403, 7), (2147483647, 3)]),
            (128, &[(7, 1), (751, 5), (408808, 2), (2147483647, 8)]),
            (256, &[(828, 5), (909676, 2), (2147483647, 8)]),
            (512, &[(847, 5), (1007066, 2), (1068775, 4), (2803389, 2), (2147483647, 8)]),
            (2147483647, &[(1974, 5), (4007876, 2), (2147483647, 8)]),
        ],
    ),
    (
        16,
        &[
            (16, &[(409, 1), (768, 6), (1365, 4), (3071, 6), (11299, 2), (21746, 6), (55629, 2), (86065, 4), (153867, 2), (590560, 6), (1448760, 2), (2147483647, 8)]),
            (32, &[(6, 1), (24, 5), (86, 1), (875, 5), (74528, 2), (813050, 8), (1725981, 7), (2147483647, 8)]),
            (64, &[(1018, 5), (1217, 6), (2370, 5), (160654, 2), (1885487, 8), (2147483647, 3)]),
            (128, &[(2291, 5), (434465, 2), (3525103, 8), (2147483647, 7)]),
            (256, &[(2189, 5), (713154, 2), (2147483647, 8)]),
            (512, &[(2140, 5), (1235056, 2), (2147483647, 8)]),
            (2147483647, &[(2153, 5), (2629855, 2), (2147483647, 8)]),
        ],
    ),
];

/// `mvapich2_two_level` at `rank`: each host's ranks reduce to their
/// leader (MVAPICH2's step: see [`Mv2Intra`]), the leaders run their
/// allreduce on a copy of the host's result ([`Mv2Inter`]), and each
/// leader broadcasts the result to its host with `smp.intra_bcast`. The
/// result lands in `Buf::Recv` everywhere.
pub(crate) fn two_level(
    b: &mut Builder,
    at: Position,
    reduction: Reduction,
    tuning: Tuning,
    smp: &Smp,
) -> Result<(), CollError> {
    let Position { rank, .. } = at;
    let Reduction {
        count,
        commutative,
        in_place,
    } = reduction;
    if count == 0 {
        return Ok(());
    }
    if !commutative {
        // The host-level steps would combine the ranks of a host out of
        // order wherever hosts do not hold consecutive ranks: recursive
        // doubling over all ranks, as the mvapich2 selector picks for these.
        let s = allreduce_with(AllreduceAlgorithm::Rdb, at, reduction, tuning)?;
        b.append(s, |blk| blk);
        return Ok(());
    }
    let intra = smp.nodes.intra(rank);
    let me = intra.iter().position(|&r| r == rank).unwrap_or(0);
    let local = Position {
        rank: me,
        size: intra.len(),
    };
    let input = contribution(in_place, 0, count);
    let acc = Buf::Recv.block(0, count);
    if me == 0 {
        b.copy(input, acc);
    }
    // Within the host.
    let mut host = Builder::new();
    match smp.mv2.intra {
        Mv2Intra::Mpich => {
            let pof2 = 1 << local.size.ilog2();
            let bytes = count.saturating_mul(tuning.elem_bytes);
            let alg = if bytes > 2048 && count >= pof2 && commutative {
                AllreduceAlgorithm::RabRdb
            } else {
                AllreduceAlgorithm::Rdb
            };
            let s = allreduce_with(alg, local, reduction, tuning)?;
            b.splice(s, intra, |blk| blk);
        }
        Mv2Intra::Reduce => {
            reduce_into(
                &mut host,
                smp.intra_reduce,
                RootedPosition {
                    rank: me,
                    size: local.size,
                    root: 0,
                },
                commutative,
                if me == 0 { acc } else { input },
                acc,
                tuning.elem_bytes,
            );
            b.splice(host.finish(), intra, |blk| blk);
        }
    }
    // Among the leaders, from a copy of the host's result.
    let leaders = smp.nodes.leaders();
    if me == 0 && local.size != at.size {
        let copy = b.tmp(count).block(0, count);
        b.copy(acc, copy);
        let alg = match smp.mv2.inter {
            Mv2Inter::Rdb => AllreduceAlgorithm::Rdb,
            Mv2Inter::Rs => AllreduceAlgorithm::Mvapich2Rs,
        };
        let l = leaders.iter().position(|&r| r == rank).unwrap_or(0);
        let s = allreduce_with(
            alg,
            Position {
                rank: l,
                size: leaders.len(),
            },
            Reduction {
                in_place: false,
                ..reduction
            },
            tuning,
        )?;
        b.splice(s, leaders, |blk: Block| match blk.buf {
            Buf::Send => copy.sub(blk.offset, blk.count),
            _ => blk,
        });
    }
    // From the leader to its host.
    let mut bcast = Builder::new();
    crate::bcast::bcast_into(
        &mut bcast,
        smp.intra_bcast,
        RootedPosition {
            rank: me,
            size: local.size,
            root: 0,
        },
        acc,
        tuning.elem_bytes,
    );
    b.splice(bcast.finish(), intra, |blk| blk);
    Ok(())
}

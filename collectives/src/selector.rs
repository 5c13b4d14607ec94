//! Collective selectors (`smpi/coll-selector`): which algorithm a
//! collective left at `default` runs, by communicator size and message
//! size, as an MPI library would decide.
//!
//! * `default`: SimGrid 3.32's default selector (each collective's
//!   `Default`, whose alltoall follows Open MPI's table).
//! * `ompi`: Open MPI's fixed decision tables (2022), as SimGrid 3.32's
//!   `ompi` selector copies them, for allreduce, alltoall, alltoallv,
//!   barrier, bcast, reduce, reduce_scatter, allgather, allgatherv, gather
//!   and scatter. Where the
//!   allreduce table picks Open MPI's ring or segmented ring, messages are
//!   far below the segmented ring's p MiB, where it runs the plain ring:
//!   both are `lr` here. The linear allreduces (`basic_linear`,
//!   `nonoverlapping`) are SimGrid's `redbcast`: a reduce then a bcast,
//!   each as the selector picks it.
//! * `mpich`: MPICH's decision logic as SimGrid 3.32's `mpich` selector
//!   has it for allreduce (SMP-aware: `mvapich2_two_level` for commutative
//!   operations, recursive doubling otherwise), alltoall (Bruck for
//!   short blocks, all messages posted at once for medium ones, pairwise
//!   exchange for long ones), barrier (dissemination), bcast (binomial for
//!   short messages or at most 8 ranks, else a scatter then an allgather:
//!   by recursive doubling for medium messages on powers of two, else a
//!   ring) and reduce (binomial, or Rabenseifner's reduce-scatter and
//!   gather for long messages) and
//!   allgather (recursive doubling under 512 KiB in all on powers of two,
//!   else Bruck up to 80 KiB, else ring), allgatherv (the same by element
//!   count), reduce-scatter
//!   (pairwise above 524288 elements for commutative operations, else
//!   recursive doubling) and gather and scatter (binomial trees).
//!   For bcast and reduce, SimGrid's `mpich` selector runs SMP-aware
//!   two-level algorithms instead, which this crate lacks.
//!
//! The other collectives run their `Default` under every selector.

use std::fmt;
use std::str::FromStr;

use crate::alltoall::alltoall_default_for;
use crate::error::CollError;
use crate::registry::{
    AllgatherAlgorithm, AllgathervAlgorithm, AllreduceAlgorithm, AlltoallAlgorithm,
    AlltoallvAlgorithm, BarrierAlgorithm, BcastAlgorithm, GatherAlgorithm, ReduceAlgorithm,
    ReduceScatterAlgorithm, ScatterAlgorithm,
};

/// A collective selector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selector {
    /// SimGrid 3.32's default selector.
    #[default]
    Default,
    /// Open MPI's decision tables.
    Ompi,
    /// MPICH's decision logic.
    Mpich,
}

impl Selector {
    /// Every selector.
    pub const ALL: [Selector; 3] = [Selector::Default, Selector::Ompi, Selector::Mpich];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Selector::Default => "default",
            Selector::Ompi => "ompi",
            Selector::Mpich => "mpich",
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Selector {
    type Err = CollError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Selector::ALL
            .into_iter()
            .find(|sel| sel.name() == s)
            .ok_or_else(|| CollError::UnknownAlgorithm {
                collective: "coll-selector",
                name: s.to_owned(),
                valid: Selector::ALL.map(Selector::name).join(", "),
            })
    }
}

/// The algorithm of an `MPI_Allreduce` of `bytes` in all on `size` ranks.
pub fn select_allreduce(
    sel: Selector,
    size: usize,
    bytes: usize,
    commutative: bool,
) -> AllreduceAlgorithm {
    use AllreduceAlgorithm::{Lr, RabRdb, Rdb, Redbcast as Linear};
    match sel {
        Selector::Default => AllreduceAlgorithm::Default,
        // MPICH runs its SMP-aware algorithm for commutative operations,
        // which SimGrid takes from MVAPICH2; Rabenseifner's needs them too.
        Selector::Mpich if commutative => AllreduceAlgorithm::Mvapich2TwoLevel,
        Selector::Mpich => Rdb,
        Selector::Ompi if !commutative => match (size, bytes) {
            (0..=3, b) if b < 131072 => Rdb,
            (0..=3, _) => Linear,
            (4..=7, _) => Rdb,
            (8..=15, b) if b < 1048576 => Rdb,
            (8..=15, _) => Linear,
            (16..=127, _) => Rdb,
            (128..=255, b) if (131072..524288).contains(&b) => Rdb,
            (128..=255, _) => Linear,
            (256..=511, b) if (4096..524288).contains(&b) => Rdb,
            (256..=511, _) => Linear,
            (_, b) if b < 2048 => Linear,
            _ => Rdb,
        },
        Selector::Ompi => {
            // `segmented_ring` runs lr.
            let (steps, above): (&[(usize, AllreduceAlgorithm)], _) = match size {
                0..=3 => (
                    &[
                        (8, Lr),
                        (4096, Rdb),
                        (8192, Lr),
                        (16384, Rdb),
                        (65536, Lr),
                        (262144, Lr),
                    ],
                    RabRdb,
                ),
                4..=7 => (&[(16, Lr), (8192, Rdb)], RabRdb),
                8..=15 => (&[(8192, Rdb)], RabRdb),
                16..=31 => (&[(64, Lr), (4096, Rdb)], RabRdb),
                32..=63 => (&[(128, Lr)], RabRdb),
                64..=127 => (&[(262144, Rdb)], RabRdb),
                128..=255 => (&[(131072, Linear), (262144, Rdb)], RabRdb),
                256..=511 => (&[(4096, Linear)], RabRdb),
                512..=2047 => (&[(2048, Linear), (16384, Rdb)], RabRdb),
                2048..=4095 => (&[(2048, Linear), (4096, Lr), (16384, Rdb)], RabRdb),
                _ => (&[(2048, Linear), (16384, Lr), (32768, Rdb)], RabRdb),
            };
            steps
                .iter()
                .find(|&&(bound, _)| bytes < bound)
                .map_or(above, |&(_, a)| a)
        }
    }
}

/// The algorithm of an `MPI_Alltoall` of `block_bytes` per pair on `size`
/// ranks.
pub fn select_alltoall(sel: Selector, size: usize, block_bytes: usize) -> AlltoallAlgorithm {
    match sel {
        Selector::Default | Selector::Ompi => alltoall_default_for(block_bytes, size),
        Selector::Mpich if block_bytes < 256 && size >= 8 => AlltoallAlgorithm::Bruck,
        Selector::Mpich if block_bytes < 32768 => AlltoallAlgorithm::BasicLinear,
        Selector::Mpich if size.is_power_of_two() => AlltoallAlgorithm::Pair,
        Selector::Mpich => AlltoallAlgorithm::Ring,
    }
}

/// The algorithm of an `MPI_Alltoallv` on `size` ranks.
pub fn select_alltoallv(sel: Selector, size: usize) -> AlltoallvAlgorithm {
    match sel {
        Selector::Default | Selector::Mpich => AlltoallvAlgorithm::Default,
        // Open MPI's pairwise exchange is SimGrid's alltoallv `ring`.
        Selector::Ompi => match size {
            0..=3 | 64..=127 | 256..=1023 => AlltoallvAlgorithm::Ring,
            _ => AlltoallvAlgorithm::Default,
        },
    }
}

/// The algorithm of an `MPI_Barrier` on `size` ranks.
pub fn select_barrier(sel: Selector, size: usize) -> BarrierAlgorithm {
    use BarrierAlgorithm::{OmpiBasicLinear, OmpiBruck, OmpiRecursiveDoubling, OmpiTree};
    match sel {
        Selector::Default => BarrierAlgorithm::Default,
        Selector::Mpich => OmpiBruck,
        Selector::Ompi => match size {
            0..=3 => OmpiRecursiveDoubling,
            4..=7 => OmpiBasicLinear,
            8..=63 => OmpiRecursiveDoubling,
            64..=255 | 512..=1023 => OmpiBruck,
            256..=511 | 1024..=4095 => OmpiTree,
            _ => OmpiBruck,
        },
    }
}

/// The algorithm of an `MPI_Bcast` of `bytes` on `size` ranks.
pub fn select_bcast(sel: Selector, size: usize, bytes: usize) -> BcastAlgorithm {
    match sel {
        Selector::Ompi => ompi_bcast(size, bytes),
        Selector::Mpich if bytes < 12288 || size <= 8 => BcastAlgorithm::BinomialTree,
        Selector::Mpich if bytes < 524288 && size.is_power_of_two() => {
            BcastAlgorithm::ScatterRdbAllgather
        }
        Selector::Mpich => BcastAlgorithm::ScatterLrAllgather,
        Selector::Default => BcastAlgorithm::Default,
    }
}

/// The algorithm of an `MPI_Reduce` (to any root) of `count` elements,
/// `bytes` in all, on `size` ranks.
pub fn select_reduce(
    sel: Selector,
    size: usize,
    count: usize,
    bytes: usize,
    commutative: bool,
) -> ReduceAlgorithm {
    match sel {
        // MPICH: Rabenseifner for long messages of at least one element
        // per rank of the power of two, binomial otherwise.
        Selector::Mpich if commutative && bytes > 2048 && count >= 1 << size.ilog2() => {
            ReduceAlgorithm::ScatterGather
        }
        Selector::Mpich => ReduceAlgorithm::Binomial,
        Selector::Ompi => ompi_reduce(size, bytes, commutative),
        Selector::Default => ReduceAlgorithm::Default,
    }
}

/// The algorithm of an `MPI_Allgather` of `total_bytes` in all (every
/// rank's block together) on `size` ranks.
pub fn select_allgather(sel: Selector, size: usize, total_bytes: usize) -> AllgatherAlgorithm {
    match sel {
        Selector::Mpich if total_bytes < 524288 && size.is_power_of_two() => {
            AllgatherAlgorithm::Rdb
        }
        Selector::Mpich if total_bytes <= 81920 => AllgatherAlgorithm::Bruck,
        Selector::Mpich => AllgatherAlgorithm::Ring,
        Selector::Ompi => ompi_allgather(size, total_bytes / size.max(1)),
        Selector::Default => AllgatherAlgorithm::Default,
    }
}

/// The algorithm of an `MPI_Gather` of `block_bytes` per rank on `size`
/// ranks.
pub fn select_gather(sel: Selector, size: usize, block_bytes: usize) -> GatherAlgorithm {
    use GatherAlgorithm::{
        OmpiBasicLinear as Linear, OmpiBinomial as Binomial, OmpiLinearSync as LinearSync,
    };
    let d = block_bytes;
    match sel {
        Selector::Default => GatherAlgorithm::Default,
        Selector::Mpich => Binomial,
        Selector::Ompi => match size {
            0..=3 if d >= 131072 => LinearSync,
            0..=3 if d < 4 || (32768..65536).contains(&d) => Linear,
            0..=3 => Binomial,
            4..=7 if d >= 262144 => LinearSync,
            4..=7 if (1024..8192).contains(&d) || d >= 32768 => Linear,
            4..=7 => Binomial,
            256..=511 if (2048..8192).contains(&d) => Linear,
            _ => Binomial,
        },
    }
}

/// The algorithm of an `MPI_Scatter` of `block_bytes` per rank on `size`
/// ranks.
pub fn select_scatter(sel: Selector, size: usize, block_bytes: usize) -> ScatterAlgorithm {
    use ScatterAlgorithm::{OmpiBasicLinear as Linear, OmpiBinomial as Binomial};
    let d = block_bytes;
    match sel {
        Selector::Default => ScatterAlgorithm::Default,
        Selector::Mpich => Binomial,
        // `linear_nb` is the basic linear scatter in SimGrid.
        Selector::Ompi => match size {
            0..=3 => Linear,
            4..=7 if d < 2048 || (4096..8192).contains(&d) => Binomial,
            4..=7 => Linear,
            8..=31 if d < 16384 => Binomial,
            8..=31 => Linear,
            32..=63 if d < 512 || (8192..16384).contains(&d) => Binomial,
            32..=63 => Linear,
            _ if d < 512 => Binomial,
            _ => Linear,
        },
    }
}

/// The algorithm of an `MPI_Reduce_scatter` of `total` elements in all,
/// `bytes` in all, on `size` ranks.
pub fn select_reduce_scatter(
    sel: Selector,
    size: usize,
    total: usize,
    bytes: usize,
    commutative: bool,
) -> ReduceScatterAlgorithm {
    match sel {
        Selector::Default => ReduceScatterAlgorithm::Default,
        Selector::Ompi if !commutative => ReduceScatterAlgorithm::Default,
        Selector::Ompi => ompi_reduce_scatter(size, bytes),
        // MPICH runs its non-commutative algorithm on powers of two with
        // equal counts; recursive doubling, which we run there too, does
        // the rest.
        Selector::Mpich if commutative && total > 524288 => ReduceScatterAlgorithm::MpichPair,
        Selector::Mpich => ReduceScatterAlgorithm::MpichRdb,
    }
}

/// The algorithm of an `MPI_Allgatherv` of `total` elements in all,
/// `bytes` in all, on `size` ranks.
pub fn select_allgatherv(
    sel: Selector,
    size: usize,
    total: usize,
    bytes: usize,
) -> AllgathervAlgorithm {
    match sel {
        Selector::Default => AllgathervAlgorithm::Default,
        Selector::Ompi => ompi_allgatherv(size, bytes / size.max(1)),
        Selector::Mpich if size.is_power_of_two() && total < 524288 => {
            AllgathervAlgorithm::MpichRdb
        }
        Selector::Mpich if total <= 81920 => AllgathervAlgorithm::OmpiBruck,
        Selector::Mpich => AllgathervAlgorithm::MpichRing,
    }
}

/// The algorithm of the first `(bound, algorithm)` step whose exclusive
/// upper bound is above `d`, else `above`: one row of a decision table.
fn step<A: Copy>(d: usize, steps: &[(usize, A)], above: A) -> A {
    steps
        .iter()
        .find(|&&(bound, _)| d < bound)
        .map_or(above, |&(_, a)| a)
}

/// Open MPI's bcast table (2022) as SimGrid 3.32's `ompi` selector runs
/// it: Open MPI's linear is SimGrid's `NTSL`, chain and pipeline are
/// `ompi_pipeline`, binary is `NTSB`, knomial is MVAPICH2's 4-nomial tree
/// and scatter-allgather is MPICH's (the table never picks the ring one).
fn ompi_bcast(size: usize, bytes: usize) -> BcastAlgorithm {
    use BcastAlgorithm::{
        BinomialTree as Binomial, Mvapich2KnomialIntraNode as Knomial, Ntsb as Binary,
        Ntsl as Linear, OmpiPipeline as Pipeline, OmpiSplitBintree as Split,
        ScatterRdbAllgather as ScatterRdb,
    };
    let d = bytes;
    match size {
        0..=3 => step(
            d,
            &[
                (32, Pipeline),
                (256, Binary),
                (512, Pipeline),
                (1024, Knomial),
                (32768, Linear),
                (131072, Binary),
                (262144, Pipeline),
                (524288, Linear),
                (1048576, Binomial),
            ],
            Binary,
        ),
        4..=7 => step(
            d,
            &[
                (64, Binary),
                (128, Binomial),
                (2048, Binary),
                (8192, Binomial),
                (1048576, Linear),
            ],
            Pipeline,
        ),
        8..=15 => step(
            d,
            &[
                (8, Knomial),
                (64, Binary),
                (4096, Knomial),
                (16384, Binary),
                (32768, Binomial),
            ],
            Linear,
        ),
        16..=31 => step(d, &[(4096, Knomial), (1048576, Binomial)], ScatterRdb),
        32..=63 => step(d, &[(2048, Binomial)], Knomial),
        64..=127 => Knomial,
        128..=255 => step(
            d,
            &[
                (2, Binomial),
                (16384, Binary),
                (32768, Linear),
                (65536, Binary),
            ],
            Knomial,
        ),
        256..=1023 => step(d, &[(16384, Knomial), (32768, Split)], Knomial),
        1024..=2047 => step(d, &[(524288, Knomial)], ScatterRdb),
        2048..=4095 => step(d, &[(262144, Knomial)], ScatterRdb),
        _ => step(
            d,
            &[(8192, Knomial), (16384, Binary), (262144, Knomial)],
            ScatterRdb,
        ),
    }
}

/// Open MPI's reduce table (2022) as SimGrid 3.32's `ompi` selector runs
/// it (its Rabenseifner is SimGrid's `ompi_basic_linear`).
fn ompi_reduce(size: usize, bytes: usize, commutative: bool) -> ReduceAlgorithm {
    use ReduceAlgorithm::{
        OmpiBasicLinear as Linear, OmpiBinary as Binary, OmpiBinomial as Binomial,
        OmpiChain as Chain, OmpiInOrderBinary as InOrder, OmpiPipeline as Pipeline,
    };
    let d = bytes;
    if !commutative {
        return match size {
            0..=3 => step(d, &[(8, InOrder)], Linear),
            4..=7 => Linear,
            8..=15 => step(
                d,
                &[
                    (1024, InOrder),
                    (8192, Linear),
                    (16384, InOrder),
                    (262144, Linear),
                ],
                InOrder,
            ),
            16..=127 => InOrder,
            128..=255 => step(d, &[(512, InOrder), (1024, Linear)], InOrder),
            _ => InOrder,
        };
    }
    match size {
        0..=3 => step(
            d,
            &[
                (8, Linear),
                (16, Binary),
                (32, Pipeline),
                (262144, Linear),
                (524288, Pipeline),
                (1048576, Chain),
            ],
            Pipeline,
        ),
        4..=7 => step(
            d,
            &[
                (4096, Binary),
                (65536, Chain),
                (262144, Binomial),
                (524288, Linear),
                (1048576, Binomial),
            ],
            Linear,
        ),
        8..=15 => step(d, &[(8192, Binary)], Binomial),
        16..=31 => step(d, &[(4096, Binary)], Binomial),
        32..=255 => Binomial,
        256..=511 => step(d, &[(8192, Binomial), (16384, InOrder)], Binomial),
        512..=2047 => Binomial,
        2048..=4095 => step(
            d,
            &[
                (512, Binomial),
                (1024, InOrder),
                (8192, Binomial),
                (16384, InOrder),
            ],
            Binomial,
        ),
        _ => step(
            d,
            &[
                (16, Binomial),
                (32, InOrder),
                (1024, Binomial),
                (2048, InOrder),
                (8192, Binomial),
                (16384, InOrder),
            ],
            Binomial,
        ),
    }
}

/// Open MPI's allgather table (2022) as SimGrid 3.32's `ompi` selector
/// runs it, by the bytes of one rank's block (two ranks: one exchange,
/// which is what `ring` does there).
fn ompi_allgather(size: usize, block: usize) -> AllgatherAlgorithm {
    use AllgatherAlgorithm::{Bruck, OmpiNeighborExchange as Neighbor, Rdb, Ring};
    let d = block;
    match size {
        0..=2 => Ring,
        3..=31 => Rdb,
        32..=63 => step(d, &[(1024, Rdb), (65536, Neighbor)], Ring),
        64..=127 => step(d, &[(512, Rdb), (65536, Neighbor)], Ring),
        128..=255 => step(
            d,
            &[
                (512, Rdb),
                (131072, Neighbor),
                (524288, Ring),
                (1048576, Neighbor),
            ],
            Ring,
        ),
        256..=511 => step(
            d,
            &[
                (32, Rdb),
                (128, Bruck),
                (1024, Rdb),
                (131072, Neighbor),
                (524288, Ring),
                (1048576, Neighbor),
            ],
            Ring,
        ),
        512..=1023 => step(d, &[(64, Rdb), (256, Bruck), (2048, Rdb)], Neighbor),
        1024..=2047 => step(
            d,
            &[
                (4, Rdb),
                (8, Bruck),
                (16, Rdb),
                (32, Bruck),
                (256, Rdb),
                (512, Bruck),
                (4096, Rdb),
            ],
            Neighbor,
        ),
        2048..=4095 => step(
            d,
            &[(32, Bruck), (128, Rdb), (512, Bruck), (4096, Rdb)],
            Neighbor,
        ),
        _ => step(
            d,
            &[(2, Rdb), (8, Bruck), (16, Rdb), (512, Bruck), (4096, Rdb)],
            Neighbor,
        ),
    }
}

/// Open MPI's reduce-scatter table (2022) as SimGrid 3.32's `ompi`
/// selector runs it, for commutative operations (the others run the
/// default, Open MPI's non-overlapping reduce then scatterv).
fn ompi_reduce_scatter(size: usize, bytes: usize) -> ReduceScatterAlgorithm {
    use ReduceScatterAlgorithm::{
        Default as NonOverlapping, OmpiBasicRecursivehalving as Halving,
        OmpiButterfly as Butterfly, OmpiRing as Ring,
    };
    let d = bytes;
    match size {
        0..=3 => step(d, &[(65536, Ring), (131072, Butterfly)], Ring),
        4..=7 => step(d, &[(8, NonOverlapping), (262144, Halving)], Ring),
        8..=31 => step(d, &[(262144, Halving)], Ring),
        32..=63 => step(
            d,
            &[(64, NonOverlapping), (2048, Halving), (524288, Butterfly)],
            Ring,
        ),
        64..=127 => step(
            d,
            &[
                (256, NonOverlapping),
                (512, Halving),
                (2048, Butterfly),
                (4096, Halving),
            ],
            Butterfly,
        ),
        128..=255 => step(d, &[(256, NonOverlapping), (512, Halving)], Butterfly),
        256..=511 => step(d, &[(256, NonOverlapping), (1024, Halving)], Butterfly),
        512..=1023 => step(
            d,
            &[
                (512, NonOverlapping),
                (2048, Halving),
                (8192, Butterfly),
                (16384, Halving),
            ],
            Butterfly,
        ),
        1024..=2047 => step(
            d,
            &[
                (512, NonOverlapping),
                (4096, Halving),
                (16384, Butterfly),
                (32768, Halving),
            ],
            Butterfly,
        ),
        2048..=4095 => step(d, &[(512, NonOverlapping), (4096, Halving)], Butterfly),
        _ => step(d, &[(1024, NonOverlapping), (8192, Halving)], Butterfly),
    }
}

/// Open MPI's allgatherv table (2022) as SimGrid 3.32's `ompi` selector
/// runs it, by the average bytes per rank (two ranks: one exchange, as
/// `pair` does).
fn ompi_allgatherv(size: usize, per_rank: usize) -> AllgathervAlgorithm {
    use AllgathervAlgorithm::{
        Gb as Default, MpichRing as Ring, OmpiBruck as Bruck, OmpiNeighborExchange as Neighbor,
        Pair,
    };
    let d = per_rank;
    match size {
        0..=1 => Ring,
        2 => step(d, &[(2048, Ring), (4096, Pair), (8192, Ring)], Pair),
        3..=7 => step(
            d,
            &[
                (256, Default),
                (4096, Neighbor),
                (8192, Ring),
                (16384, Neighbor),
                (262144, Bruck),
            ],
            Neighbor,
        ),
        8..=15 => step(d, &[(1024, Default)], Bruck),
        16..=31 => step(d, &[(128, Default), (262144, Bruck)], Ring),
        32..=63 => step(d, &[(256, Default), (8192, Bruck)], Ring),
        64..=127 => step(d, &[(256, Default), (4096, Bruck)], Ring),
        128..=255 => step(d, &[(1024, Bruck), (65536, Neighbor)], Ring),
        256..=511 => step(d, &[(1024, Bruck)], Ring),
        512..=1023 => step(
            d,
            &[
                (512, Bruck),
                (1024, Default),
                (4096, Bruck),
                (1048576, Neighbor),
            ],
            Ring,
        ),
        _ => step(d, &[(4096, Bruck)], Neighbor),
    }
}

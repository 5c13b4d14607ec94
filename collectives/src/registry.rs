//! Names of collectives and of their algorithms, as used on the command line
//! (`--cfg=smpi/bcast:binomial_tree`) and listed by `smpirun -help-coll`.
//!
//! Every collective has an algorithm enum whose variants parse from and
//! print as SimGrid's names. Each has a `Default` variant, named `default`,
//! meaning "what SimGrid 3.32's default selector runs"; it is also what the
//! un-suffixed schedule functions (`bcast`, `reduce`, ...) build.

use std::fmt;
use std::str::FromStr;

use crate::error::CollError;

/// The MPI collectives this crate schedules (`alltoallw` is left to the
/// engine: per-peer datatypes do not fit one element type per buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collective {
    /// `MPI_Barrier`
    Barrier,
    /// `MPI_Bcast`
    Bcast,
    /// `MPI_Reduce`
    Reduce,
    /// `MPI_Allreduce`
    Allreduce,
    /// `MPI_Gather`
    Gather,
    /// `MPI_Gatherv`
    Gatherv,
    /// `MPI_Scatter`
    Scatter,
    /// `MPI_Scatterv`
    Scatterv,
    /// `MPI_Allgather`
    Allgather,
    /// `MPI_Allgatherv`
    Allgatherv,
    /// `MPI_Alltoall`
    Alltoall,
    /// `MPI_Alltoallv`
    Alltoallv,
    /// `MPI_Reduce_scatter`
    ReduceScatter,
    /// `MPI_Reduce_scatter_block`
    ReduceScatterBlock,
    /// `MPI_Scan`
    Scan,
    /// `MPI_Exscan`
    Exscan,
}

impl Collective {
    /// Every collective, in a stable order.
    pub const ALL: &'static [Collective] = &[
        Collective::Barrier,
        Collective::Bcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Gather,
        Collective::Gatherv,
        Collective::Scatter,
        Collective::Scatterv,
        Collective::Allgather,
        Collective::Allgatherv,
        Collective::Alltoall,
        Collective::Alltoallv,
        Collective::ReduceScatter,
        Collective::ReduceScatterBlock,
        Collective::Scan,
        Collective::Exscan,
    ];

    /// The configuration key, as in `smpi/<name>`.
    pub const fn name(self) -> &'static str {
        match self {
            Collective::Barrier => "barrier",
            Collective::Bcast => "bcast",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
            Collective::Gather => "gather",
            Collective::Gatherv => "gatherv",
            Collective::Scatter => "scatter",
            Collective::Scatterv => "scatterv",
            Collective::Allgather => "allgather",
            Collective::Allgatherv => "allgatherv",
            Collective::Alltoall => "alltoall",
            Collective::Alltoallv => "alltoallv",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::ReduceScatterBlock => "reduce_scatter_block",
            Collective::Scan => "scan",
            Collective::Exscan => "exscan",
        }
    }

    /// The algorithms available for this collective, `default` first.
    pub fn algorithms(self) -> Vec<AlgorithmInfo> {
        fn infos<A: Algorithm>() -> Vec<AlgorithmInfo> {
            A::ALL
                .iter()
                .map(|a| AlgorithmInfo {
                    collective: A::COLLECTIVE,
                    name: a.name(),
                    description: a.description(),
                })
                .collect()
        }
        match self {
            Collective::Barrier => infos::<BarrierAlgorithm>(),
            Collective::Bcast => infos::<BcastAlgorithm>(),
            Collective::Reduce => infos::<ReduceAlgorithm>(),
            Collective::Allreduce => infos::<AllreduceAlgorithm>(),
            Collective::Gather => infos::<GatherAlgorithm>(),
            Collective::Gatherv => infos::<GathervAlgorithm>(),
            Collective::Scatter => infos::<ScatterAlgorithm>(),
            Collective::Scatterv => infos::<ScattervAlgorithm>(),
            Collective::Allgather => infos::<AllgatherAlgorithm>(),
            Collective::Allgatherv => infos::<AllgathervAlgorithm>(),
            Collective::Alltoall => infos::<AlltoallAlgorithm>(),
            Collective::Alltoallv => infos::<AlltoallvAlgorithm>(),
            Collective::ReduceScatter => infos::<ReduceScatterAlgorithm>(),
            Collective::ReduceScatterBlock => infos::<ReduceScatterBlockAlgorithm>(),
            Collective::Scan => infos::<ScanAlgorithm>(),
            Collective::Exscan => infos::<ExscanAlgorithm>(),
        }
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Collective {
    type Err = CollError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Collective::ALL
            .iter()
            .copied()
            .find(|c| c.name() == s)
            .ok_or_else(|| CollError::UnknownCollective(s.to_owned()))
    }
}

/// One entry of the algorithm registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlgorithmInfo {
    /// The collective it implements.
    pub collective: Collective,
    /// Its name on the command line.
    pub name: &'static str,
    /// One line for `-help-coll`.
    pub description: &'static str,
}

/// Every (collective, algorithm) pair, collectives in [`Collective::ALL`]
/// order and `default` first within each.
pub fn algorithms() -> Vec<AlgorithmInfo> {
    Collective::ALL
        .iter()
        .flat_map(|c| c.algorithms())
        .collect()
}

/// Every (collective, algorithm name) pair; see [`algorithms`].
pub fn algorithm_names() -> Vec<(Collective, &'static str)> {
    algorithms()
        .into_iter()
        .map(|a| (a.collective, a.name))
        .collect()
}

/// What all per-collective algorithm enums share.
pub trait Algorithm:
    Copy + Eq + fmt::Debug + fmt::Display + FromStr<Err = CollError> + 'static
{
    /// The collective the algorithms implement.
    const COLLECTIVE: Collective;
    /// Every algorithm, `Default` first.
    const ALL: &'static [Self];
    /// The command-line name.
    fn name(self) -> &'static str;
    /// One line for `-help-coll`.
    fn description(self) -> &'static str;
}

/// Defines an algorithm enum with its names, descriptions, `FromStr`,
/// `Display`, `Default` and [`Algorithm`] impls.
macro_rules! algorithm_enum {
    (
        $(#[$meta:meta])*
        $name:ident for $coll:ident {
            $( $(#[$vmeta:meta])* $var:ident => $s:literal : $desc:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $var, )+
        }

        impl Algorithm for $name {
            const COLLECTIVE: Collective = Collective::$coll;
            const ALL: &'static [Self] = &[$(Self::$var),+];
            fn name(self) -> &'static str {
                match self { $(Self::$var => $s,)+ }
            }
            fn description(self) -> &'static str {
                match self { $(Self::$var => $desc,)+ }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::Default
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = CollError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|a| a.name() == s)
                    .ok_or_else(|| CollError::UnknownAlgorithm {
                        collective: Collective::$coll.name(),
                        name: s.to_owned(),
                        valid: Self::ALL.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "),
                    })
            }
        }
    };
}

algorithm_enum! {
    /// `MPI_Barrier` algorithms.
    BarrierAlgorithm for Barrier {
        /// SimGrid's default: `ompi_basic_linear`.
        Default => "default": "SimGrid default selector choice (ompi_basic_linear)",
        /// Open MPI's basic linear barrier: everyone reports to rank 0, which
        /// then releases everyone.
        OmpiBasicLinear => "ompi_basic_linear": "every rank sends to rank 0, then rank 0 sends to every rank",
        /// Open MPI's dissemination barrier.
        OmpiBruck => "ompi_bruck": "dissemination: log2(p) rounds, sending to rank+2^k and receiving from rank-2^k",
        /// Open MPI's recursive doubling barrier.
        OmpiRecursiveDoubling => "ompi_recursivedoubling": "recursive doubling among the largest power of two, the ranks above checking in and released first and last",
        /// Open MPI's tree barrier.
        OmpiTree => "ompi_tree": "up then down a binomial tree",
    }
}

algorithm_enum! {
    /// `MPI_Bcast` algorithms.
    BcastAlgorithm for Bcast {
        /// SimGrid's default: `binomial_tree`.
        Default => "default": "SimGrid default selector choice (binomial_tree)",
        /// MPICH's binomial tree, one blocking send at a time.
        BinomialTree => "binomial_tree": "binomial tree; children served one after the other, largest subtree first",
        /// The root sends to every rank at once.
        Flattree => "flattree": "the root sends to every other rank, all posted at once",
        /// MPICH's long-message broadcast.
        ScatterLrAllgather => "scatter_LR_allgather": "binomial scatter of p slices, then a ring allgather of them (in bytes for contiguous types)",
        /// MPICH's medium-message broadcast.
        ScatterRdbAllgather => "scatter_rdb_allgather": "binomial scatter of p slices, then a recursive-doubling allgather of them (in bytes for contiguous types)",
        /// Open MPI's pipeline: a chain in segments.
        OmpiPipeline => "ompi_pipeline": "chain from the root in segments of 16 to 128 KiB (Open MPI's fitted choice), each rank forwarding segment k while receiving k+1",
        /// SimGrid's non-topology-specific linear pipeline.
        Ntsl => "NTSL": "root to rank 0, then the chain 0, 1, ..., p-1 in 8 KiB segments all posted at once, then the remainder whole",
        /// SimGrid's non-topology-specific binary-tree pipeline.
        Ntsb => "NTSB": "root to rank 0, then down the binary heap (children 2r+1, 2r+2) in 8 KiB segments all posted at once, then the remainder whole",
        /// SimGrid's flat tree in segments.
        FlattreePipeline => "flattree_pipeline": "the root sends each rank its 8 KiB segments one blocking send after the other, rank after rank (the rest, which SimGrid drops, as one more segment)",
        /// Open MPI's split binary tree.
        OmpiSplitBintree => "ompi_split_bintree": "each half of the message down one subtree of a binary tree in 1 KiB (8 KiB above 362 KiB) segments, then partners in the two subtrees swap halves (flattree below two segments per half)",
        /// MVAPICH2's k-nomial tree (k = 4), as Open MPI's table uses it.
        Mvapich2KnomialIntraNode => "mvapich2_knomial_intra_node": "4-nomial tree: each rank receives from its parent, then sends to up to 3 children per level, posted together",
    }
}

algorithm_enum! {
    /// `MPI_Reduce` algorithms.
    ReduceAlgorithm for Reduce {
        /// SimGrid's default: for commutative operations, a linear exchange
        /// posted all at once (SimGrid's non-blocking reduce); otherwise
        /// `ompi_basic_linear`. SimGrid also picks `ompi_basic_linear` for
        /// derived datatypes: the engine selects it explicitly then.
        Default => "default": "SimGrid default: linear, all receives posted at once (commutative ops), else ompi_basic_linear",
        /// Open MPI's basic linear reduce: the root receives the
        /// contributions one at a time, from rank p-1 down to rank 0.
        OmpiBasicLinear => "ompi_basic_linear": "linear; the root receives and reduces one contribution at a time, from the last rank down to rank 0",
        /// MPICH's binomial tree.
        Binomial => "binomial": "binomial tree towards the root (towards rank 0, then to the root, for non-commutative ops)",
        /// MPICH's Rabenseifner reduce.
        ScatterGather => "scatter_gather": "Rabenseifner: reduce-scatter by recursive halving, then a binomial gather of the pieces to the root (commutative ops; else binomial)",
        /// Open MPI's segmented chains.
        OmpiChain => "ompi_chain": "p/2 chains towards the root in 64 KiB segments (non-commutative ops: ompi_in_order_binary)",
        /// Open MPI's segmented pipeline.
        OmpiPipeline => "ompi_pipeline": "one chain towards the root in segments of 1 to 64 KiB (Open MPI's fitted choice; non-commutative ops: ompi_in_order_binary)",
        /// Open MPI's segmented binary tree.
        OmpiBinary => "ompi_binary": "binary tree towards the root in 32 KiB segments (non-commutative ops: ompi_in_order_binary)",
        /// Open MPI's in-order binomial tree.
        OmpiBinomial => "ompi_binomial": "in-order binomial tree towards the root, in 1 KiB segments for large messages on many ranks (non-commutative ops: ompi_in_order_binary)",
        /// Open MPI's in-order binary tree, for non-commutative operations.
        OmpiInOrderBinary => "ompi_in_order_binary": "in-order binary tree towards rank p-1 (rank order kept), which then sends to the root",
    }
}

algorithm_enum! {
    /// `MPI_Allreduce` algorithms.
    AllreduceAlgorithm for Allreduce {
        /// SimGrid's default: the default reduce to rank 0, then the default
        /// (binomial) bcast from rank 0.
        Default => "default": "SimGrid default: default reduce to rank 0, then binomial_tree bcast",
        /// SimGrid's reduce to rank 0 then bcast from it, each with the
        /// algorithm selected for it.
        Redbcast => "redbcast": "reduce to rank 0, then bcast from it, each with its selected algorithm (the defaults alone)",
        /// MPICH's recursive doubling, with its fold onto a power of two.
        Rdb => "rdb": "recursive doubling: log2(p) exchanges of the whole vector (pairs fold onto a power of two first)",
        /// SimGrid's logical ring.
        Lr => "lr": "ring reduce-scatter then ring allgather; the remainder, non-commutative ops and fewer elements than ranks by the default",
        /// SimGrid's `rab1`: Rabenseifner's with an allgather, for powers of two.
        Rab1 => "rab1": "recursive-halving reduce-scatter of p blocks (the vector padded to a multiple of p), then the default allgather (powers of two only; non-commutative ops: the default)",
        /// SimGrid's `rab2`: an alltoall reduce-scatter, then an allgather.
        Rab2 => "rab2": "alltoall of p blocks (padded), each rank reducing its block, then the default allgather (non-commutative ops: the default)",
        /// Rabenseifner's algorithm as MPICH writes it.
        RabRdb => "rab_rdb": "Rabenseifner: reduce-scatter by recursive halving, allgather by recursive doubling",
        /// Open MPI's segmented ring.
        OmpiRingSegmented => "ompi_ring_segmented": "ring reduce-scatter in phases of 1 MiB segments with two receives in flight, then ring allgather (lr below p MiB; non-commutative ops: the default)",
        /// MVAPICH2's reduce-scatter then allgather (MPICH's Rabenseifner).
        Mvapich2Rs => "mvapich2_rs": "MPICH's allreduce: recursive doubling below one element per rank of the power of two, else rab_rdb's reduce-scatter and allgather (non-commutative ops: the default)",
        /// Rabenseifner's own reduce (1997) with its allreduce ending.
        Rab => "rab": "Rabenseifner's 1997 code: pairs split the vector in halves onto a power of two, recursive halving, then the halving steps backwards (any datatype; 1 rank or 0 elements: the default)",
        /// Recursive multiplying with radix k (`smpi/coll-radix`).
        RecursiveK => "recursive_k": "recursive multiplying: groups of up to k ranks fold onto a power of k, then log_k steps exchanging with k-1 peers (k: smpi/coll-radix)",
        /// SimGrid's two-level binomial allreduce for SMP clusters.
        SmpBinomial => "smp_binomial": "binomial reduce within each host, binomial reduce then bcast among the hosts' first ranks, binomial bcast within each host",
        /// `smp_binomial` in a pipeline of 4096-element segments.
        SmpBinomialPipeline => "smp_binomial_pipeline": "smp_binomial's four phases pipelined over segments of 4096 elements",
        /// SimGrid's two-level allreduce with recursive doubling among hosts.
        SmpRdb => "smp_rdb": "binomial reduce within each host, rdb among the hosts' first ranks, binomial bcast within each host",
        /// SimGrid's two-level allreduce with a ring among hosts.
        SmpRsag => "smp_rsag": "binomial reduce within each host, ring reduce-scatter then ring allgather among the hosts' first ranks, binomial bcast within each host (non-commutative ops: the default)",
        /// `smp_rsag` whose last block takes the remainder.
        SmpRsagLr => "smp_rsag_lr": "smp_rsag, the ring's last block taking the elements left over by the split (non-commutative ops: the default)",
        /// SimGrid's two-level allreduce with Rabenseifner's among hosts.
        SmpRsagRab => "smp_rsag_rab": "binomial reduce within each host, reduce-scatter by recursive halving then allgather by recursive doubling among the hosts' first ranks, binomial bcast within each host (power-of-two sizes only)",
        /// MVAPICH2's two-level allreduce, as SimGrid runs it.
        Mvapich2TwoLevel => "mvapich2_two_level": "reduce to each host's first rank, allreduce among them (rdb, or mvapich2_rs as the mvapich2 selector last chose), bcast within each host (non-commutative ops: rdb)",
        /// SimGrid's `mvapich2` selector, for allreduce alone.
        Mvapich2 => "mvapich2": "MVAPICH2's choice (SimGrid's table from Stampede): mvapich2_two_level, rdb or mvapich2_rs by size",
        /// SimGrid's `impi` selector, for allreduce alone.
        Impi => "impi": "Intel MPI's choice (SimGrid's table from Stampede) by ranks per host, ranks and size: rdb, rab1, redbcast, mvapich2_two_level, smp_binomial or ompi_ring_segmented",
        /// SimGrid's `automatic`: every algorithm in turn, timed.
        Automatic => "automatic": "runs each of SimGrid's allreduce algorithms in turn (barrier, algorithm, max of the times to rank 0) and reports the quickest; blocking calls only (non-blocking ones run the default)",
    }
}

impl AllreduceAlgorithm {
    /// Whether the algorithm needs the ranks' placement on hosts (SimGrid's
    /// SMP-aware algorithms and selectors): build it with
    /// [`allreduce_smp`](crate::allreduce_smp).
    pub fn needs_placement(self) -> bool {
        use AllreduceAlgorithm as A;
        matches!(
            self,
            A::SmpBinomial
                | A::SmpBinomialPipeline
                | A::SmpRdb
                | A::SmpRsag
                | A::SmpRsagLr
                | A::SmpRsagRab
                | A::Mvapich2TwoLevel
                | A::Impi
        )
    }
}

algorithm_enum! {
    /// `MPI_Gather` algorithms.
    GatherAlgorithm for Gather {
        /// Linear: the root posts all receives at once.
        Default => "default": "linear; the root posts all receives at once",
        /// Open MPI's binomial gather.
        OmpiBinomial => "ompi_binomial": "in-order binomial tree: each rank forwards its subtree's blocks to its parent",
        /// Open MPI's basic linear gather.
        OmpiBasicLinear => "ompi_basic_linear": "the root receives from each rank in turn, one blocking receive after the other",
        /// Open MPI's synchronised linear gather.
        OmpiLinearSync => "ompi_linear_sync": "the root asks each rank in turn with an empty message and waits for its first 1 KiB (32 KiB above 90 KiB blocks); the rests flow in behind",
    }
}

algorithm_enum! {
    /// `MPI_Gatherv` algorithms.
    GathervAlgorithm for Gatherv {
        /// Linear: the root posts all receives at once.
        Default => "default": "linear; the root posts all receives at once",
    }
}

algorithm_enum! {
    /// `MPI_Scatter` algorithms.
    ScatterAlgorithm for Scatter {
        /// Linear: the root posts all sends at once.
        Default => "default": "linear; the root posts all sends at once",
        /// Open MPI's binomial scatter.
        OmpiBinomial => "ompi_binomial": "in-order binomial tree: each rank passes its children their subtrees' blocks",
        /// Open MPI's basic linear scatter.
        OmpiBasicLinear => "ompi_basic_linear": "the root sends to each rank in turn, one blocking send after the other",
    }
}

algorithm_enum! {
    /// `MPI_Scatterv` algorithms.
    ScattervAlgorithm for Scatterv {
        /// Linear: the root posts all sends at once.
        Default => "default": "linear; the root posts all sends at once",
    }
}

algorithm_enum! {
    /// `MPI_Allgather` algorithms.
    AllgatherAlgorithm for Allgather {
        /// Linear: every rank posts all sends and receives at once.
        Default => "default": "linear; every rank posts a send to and a receive from every other rank at once",
        /// SimGrid's `ring`: p-1 steps; in step i, send to rank+i and
        /// receive from rank-i.
        Ring => "ring": "p-1 sendrecv steps; step i sends to rank+i and receives from rank-i",
        /// MPICH's Bruck allgather, as SimGrid runs it.
        Bruck => "bruck": "log2(p) steps doubling the blocks held, sending them to rank-2^k, then a rotation",
        /// MPICH's recursive doubling allgather, as SimGrid runs it.
        Rdb => "rdb": "recursive doubling: log2(p) exchanges with rank XOR 2^k, missing partners covered down a binomial tree",
        /// Open MPI's neighbour exchange.
        OmpiNeighborExchange => "ompi_neighborexchange": "p/2 exchanges alternating between the two neighbours, two blocks at a time (ring on odd sizes)",
    }
}

algorithm_enum! {
    /// `MPI_Allgatherv` algorithms.
    AllgathervAlgorithm for Allgatherv {
        /// Linear: every rank posts all sends and receives at once.
        Default => "default": "linear; every rank posts a send to and a receive from every other rank at once",
        /// SimGrid's `ring`: p-1 steps; in step i, send to rank+i and
        /// receive from rank-i.
        Ring => "ring": "p-1 sendrecv steps; step i sends to rank+i and receives from rank-i",
        /// SimGrid's `pair`: p-1 sendrecv steps with rank XOR i.
        Pair => "pair": "p-1 sendrecv steps exchanging own blocks with rank XOR i (power-of-two sizes only)",
        /// SimGrid's gather-then-broadcast.
        Gb => "GB": "linear gatherv to rank 0, then a bcast of the whole receive buffer from rank 0",
        /// Open MPI's neighbour exchange.
        OmpiNeighborExchange => "ompi_neighborexchange": "p/2 exchanges alternating between the two neighbours, two blocks at a time (ring on odd sizes)",
        /// Open MPI's Bruck.
        OmpiBruck => "ompi_bruck": "log2(p) steps sending the 2^k blocks held from rank onwards to rank-2^k",
        /// MPICH's recursive doubling.
        MpichRdb => "mpich_rdb": "recursive doubling in a packed scratch copy (missing partners covered down a binomial tree), then the blocks copied to their places",
        /// MPICH's ring, with its pipelining of large blocks.
        MpichRing => "mpich_ring": "ring passing on the block received last, in pieces of at most 256 KiB (or the smallest block, if larger)",
    }
}

algorithm_enum! {
    /// `MPI_Alltoall` algorithms.
    AlltoallAlgorithm for Alltoall {
        /// SimGrid's default selector: its copy of Open MPI's decision
        /// table (see `alltoall_default_for`), which needs the block size in
        /// bytes: the engine resolves it; alone it means `basic_linear`.
        Default => "default": "SimGrid's choice (Open MPI's table) by ranks and block size among bruck, basic_linear and pair (ring when not a power of two)",
        /// Open MPI's basic linear alltoall: all receives (from rank+1
        /// upwards) then all sends (to rank-1 downwards), posted at once.
        BasicLinear => "basic_linear": "all receives then all sends posted at once",
        /// SimGrid's `pair`: p sendrecv steps with peer rank XOR i; needs a
        /// power-of-two communicator.
        Pair => "pair": "p-1 sendrecv steps with peer rank XOR i (power-of-two sizes only)",
        /// SimGrid's `ring`: p-1 sendrecv steps, with rank+i and rank-i.
        Ring => "ring": "p-1 sendrecv steps; step i sends to rank+i and receives from rank-i",
        /// SimGrid's `bruck`: log2(p) exchanges of packed blocks between
        /// rotations.
        Bruck => "bruck": "rotate, then log2(p) exchanges of the blocks whose index has bit k set with rank+k, rotate back",
        /// Bruck with any radix (`smpi/coll-radix`).
        BruckK => "bruck_k": "radix-k Bruck: log_k(p) rounds, each sending the blocks with digit v to rank+v*k^d for v in 1..k (k: smpi/coll-radix)",
        /// Ring with k exchanges in flight (`smpi/coll-radix`).
        RingK => "ring_k": "ring in rounds of k partners posted at once (k: smpi/coll-radix)",
        /// Ring with a window of k exchanges in flight (`smpi/coll-radix`).
        Burst => "burst": "ring with k exchanges always in flight: each one completing lets the next start (k: smpi/coll-radix)",
    }
}

algorithm_enum! {
    /// `MPI_Alltoallv` algorithms.
    AlltoallvAlgorithm for Alltoallv {
        /// Linear: all receives then all sends, posted at once.
        Default => "default": "linear; all receives then all sends posted at once",
        /// SimGrid's alltoallv `ring`: p-1 sendrecv steps, with rank XOR i
        /// on powers of two.
        Ring => "ring": "p-1 sendrecv steps; step i exchanges with rank XOR i on powers of two, else sends to rank+i and receives from rank-i",
        /// Ring with k exchanges in flight (`smpi/coll-radix`).
        RingK => "ring_k": "ring in rounds of k partners posted at once (k: smpi/coll-radix)",
        /// Ring with a window of k exchanges in flight (`smpi/coll-radix`).
        Burst => "burst": "ring with k exchanges always in flight: each one completing lets the next start (k: smpi/coll-radix)",
        /// The crystal router, for sparse exchanges.
        CrystalRouter => "crystal_router": "crystal router: log2(p) halvings of the ranks, each rank passing its partner everything bound for the other half, sizes first (run by the engine; the non-blocking form runs the default)",
    }
}

algorithm_enum! {
    /// `MPI_Reduce_scatter` algorithms.
    ReduceScatterAlgorithm for ReduceScatter {
        /// SimGrid's default: with equal counts, the default reduce to
        /// rank 0 into scratch, then a linear scatterv; otherwise MPICH's
        /// choice between `mpich_pair` and `mpich_rdb`.
        Default => "default": "equal counts: default reduce to rank 0, then linear scatterv; else mpich_pair (commutative ops, over 524288 elements) or mpich_rdb",
        /// MPICH's pairwise exchange (commutative operations; the default
        /// otherwise).
        MpichPair => "mpich_pair": "p-1 sendrecv steps exchanging each rank's block with rank+i and rank-i (commutative ops; else the default)",
        /// MPICH's recursive doubling (any operation).
        MpichRdb => "mpich_rdb": "recursive doubling: log2 steps exchanging every block outside one's subtree, missing partners covered down a binomial tree (two messages where MPICH sends one two-block datatype)",
        /// Open MPI's recursive halving (commutative operations).
        OmpiBasicRecursivehalving => "ompi_basic_recursivehalving": "pairs fold onto a power of two, then log2 steps each keeping half of the blocks and reducing the partner's copy of them (commutative ops; else the default)",
        /// Open MPI's butterfly (Träff's), for any operation.
        OmpiButterfly => "ompi_butterfly": "pairs fold onto a power of two, log2 butterfly steps halving the blocks, then results sent along the mirror permutation",
        /// Open MPI's ring (commutative operations).
        OmpiRing => "ompi_ring": "p-1 ring steps passing partial blocks to the right, two receives in flight (commutative ops; else the default)",
    }
}

algorithm_enum! {
    /// `MPI_Reduce_scatter_block` algorithms.
    ReduceScatterBlockAlgorithm for ReduceScatterBlock {
        /// The default reduce to rank 0 into scratch, then a linear scatter.
        Default => "default": "default reduce to rank 0, then linear scatterv",
    }
}

algorithm_enum! {
    /// `MPI_Scan` algorithms.
    ScanAlgorithm for Scan {
        /// `direct`, as SimGrid 3.32's `MPI_Scan`.
        Default => "default": "direct (SimGrid's MPI_Scan)",
        /// Open MPI's linear scan: rank i receives the prefix of rank i-1,
        /// reduces its contribution into it and passes it to rank i+1.
        Linear => "linear": "chain; rank i receives the prefix of i-1, adds its contribution, sends to i+1",
        /// SimGrid 3.32's built-in `MPI_Scan`: every rank sends its own
        /// contribution to every higher rank, all posted at once, and
        /// reduces what it received from the lower ranks (in rank order, so
        /// non-commutative operations are right).
        Direct => "direct": "SimGrid's built-in scan; every rank sends its contribution to every higher rank at once",
    }
}

algorithm_enum! {
    /// `MPI_Exscan` algorithms.
    ExscanAlgorithm for Exscan {
        /// `direct`, as SimGrid 3.32's `MPI_Exscan`.
        Default => "default": "direct (SimGrid's MPI_Exscan)",
        /// Chain: rank i receives the prefix of ranks 0..i from rank i-1,
        /// reduces its contribution into a copy and passes it to rank i+1.
        Linear => "linear": "chain; rank i receives the exclusive prefix from i-1, adds its contribution, sends to i+1",
        /// SimGrid 3.32's built-in `MPI_Exscan`: every rank sends its own
        /// contribution to every higher rank, all posted at once.
        Direct => "direct": "SimGrid's built-in exscan; every rank sends its contribution to every higher rank at once",
    }
}

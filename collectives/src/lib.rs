//! MPI collective algorithms as schedules.
//!
//! This crate knows nothing of the engine. An algorithm is a pure function
//! from (my rank, communicator size, counts, root, ...) to a [`Schedule`]:
//! rounds of sends and receives posted together, followed by local copies
//! and reductions. The engine executes schedules over its point-to-point
//! layer, so network contention is modelled, and runs blocking and
//! non-blocking collectives from the same schedules.
//!
//! Simulated times depend on which algorithm runs, so the un-suffixed
//! functions ([`bcast`], [`reduce()`], ...) build what SimGrid 3.32's
//! `default` selector runs; the `*_with` variants take an explicit
//! algorithm, parsed from SimGrid's names (see [`registry`]).
//!
//! Every function takes the caller's [`Position`] (rank and communicator
//! size; a [`RootedPosition`] with the root for rooted collectives), then
//! its MPI arguments as one struct of named fields ([`Blocks`],
//! [`Reduction`], ...: see [`params`](mod@params)); the `*_with` variants
//! whose algorithms need them also take a [`Tuning`] (element size,
//! radix).
//!
//! Conventions shared by all functions:
//!
//! * `rank < size` and `root < size`, else a [`CollError`];
//! * counts and offsets are in elements; `Buf::Send` blocks are in
//!   send-datatype elements, `Buf::Recv` and `Buf::Tmp` blocks in
//!   receive-datatype elements (see [`schedule`]);
//! * `in_place` means the caller passed `MPI_IN_PLACE`; each function
//!   documents where the data then lives;
//! * a rank's schedule is O(1) for tree algorithms' inner ranks, O(log p)
//!   for trees, O(p) for linear algorithms, never O(p^2).
//!
//! Reductions: [`Local::Reduce`] computes `inout = input op inout` (MPI
//! user-function order). See [`reduce`](mod@reduce) for the exact order
//! each reduction algorithm uses; all of them give `x_0 op x_1 op ... op
//! x_{p-1}` for non-commutative operations.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod allgather;
mod allreduce;
mod allreduce_rab;
mod allreduce_smp;
mod allreduce_two_level;
mod alltoall;
mod barrier;
mod bcast;
pub mod error;
mod gather;
pub mod params;
pub mod reduce;
pub mod registry;
mod scan;
pub mod schedule;
pub mod selector;
pub mod smp;
mod tree;

#[cfg(test)]
mod tests;

/// The k of the radix-k algorithms (`recursive_k`, `bruck_k`, `ring_k`)
/// when none is given (`smpi/coll-radix`).
pub const DEFAULT_RADIX: usize = 4;

pub use allgather::{allgather, allgather_with, allgatherv, allgatherv_gb, allgatherv_with};
pub use allreduce::{allreduce, allreduce_redbcast, allreduce_smp, allreduce_with};
pub use allreduce_two_level::{select_allreduce_impi, select_allreduce_mvapich2};
pub use alltoall::{alltoall, alltoall_default_for, alltoall_with, alltoallv, alltoallv_with};
pub use barrier::{barrier, barrier_with};
pub use bcast::{bcast, bcast_with};
pub use error::CollError;
pub use gather::{
    gather, gather_with, gatherv, gatherv_with, scatter, scatter_with, scatterv, scatterv_with,
};
pub use params::{
    AlltoallvBlocks, Blocks, GathervBlocks, Position, Reduction, ReductionV, RootedPosition,
    ScattervBlocks, Tuning,
};
pub use reduce::{
    packed_displacements, reduce, reduce_scatter, reduce_scatter_block, reduce_scatter_block_with,
    reduce_scatter_with, reduce_with,
};
pub use registry::{
    algorithm_names, algorithms, Algorithm, AlgorithmInfo, AllgatherAlgorithm, AllgathervAlgorithm,
    AllreduceAlgorithm, AlltoallAlgorithm, AlltoallvAlgorithm, BarrierAlgorithm, BcastAlgorithm,
    Collective, ExscanAlgorithm, GatherAlgorithm, GathervAlgorithm, ReduceAlgorithm,
    ReduceScatterAlgorithm, ReduceScatterBlockAlgorithm, ScanAlgorithm, ScatterAlgorithm,
    ScattervAlgorithm,
};
pub use scan::{exscan, exscan_with, scan, scan_with};
pub use schedule::{Block, Buf, Comm, Local, Round, Schedule};
pub use selector::{
    select_allgather, select_allgatherv, select_allreduce, select_alltoall, select_alltoallv,
    select_barrier, select_bcast, select_gather, select_reduce, select_reduce_scatter,
    select_scatter, Selector,
};
pub use smp::{smp_init, Mv2Allreduce, Mv2Inter, Mv2Intra, Nodes, Smp, SmpInitLayout};

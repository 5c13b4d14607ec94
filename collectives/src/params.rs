//! The parameters of the collective functions, grouped by the shape of
//! the call so that call sites name them: who calls ([`Position`], or
//! [`RootedPosition`] for rooted collectives), the buffers' blocks
//! ([`Blocks`] and its `v` forms) or the reduction ([`Reduction`],
//! [`ReductionV`]), and what the algorithms are tuned by ([`Tuning`]).
//!
//! Counts and displacements are in elements, as everywhere in this crate;
//! `in_place` means the caller passed `MPI_IN_PLACE`, and each function
//! documents where the data then lives.

/// The calling rank and the size of its communicator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The calling rank, below `size`.
    pub rank: usize,
    /// The number of ranks, at least 1.
    pub size: usize,
}

impl Position {
    /// The same position in a rooted collective with this root.
    pub(crate) fn with_root(self, root: usize) -> RootedPosition {
        RootedPosition {
            rank: self.rank,
            size: self.size,
            root,
        }
    }
}

/// The calling rank's [`Position`] in a rooted collective, and the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootedPosition {
    /// The calling rank, below `size`.
    pub rank: usize,
    /// The number of ranks, at least 1.
    pub size: usize,
    /// The root, below `size`.
    pub root: usize,
}

impl RootedPosition {
    /// The calling rank's position, root aside.
    pub(crate) fn position(self) -> Position {
        Position {
            rank: self.rank,
            size: self.size,
        }
    }
}

/// What the algorithms of a `*_with` function are tuned by, beyond the
/// call's own arguments. Each function says which fields it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// The size in bytes of one element: the algorithms that cut messages
    /// into segments or pieces of a given number of bytes need it.
    pub elem_bytes: usize,
    /// The k of the radix-k algorithms (`recursive_k`, `bruck_k`,
    /// `ring_k`, `burst`), at least 2 (`smpi/coll-radix`).
    pub radix: usize,
}

impl Default for Tuning {
    /// One-byte elements and [`DEFAULT_RADIX`](crate::DEFAULT_RADIX).
    fn default() -> Tuning {
        Tuning {
            elem_bytes: 1,
            radix: crate::DEFAULT_RADIX,
        }
    }
}

/// The blocks of `MPI_Gather`, `MPI_Scatter`, `MPI_Allgather` and
/// `MPI_Alltoall`: one block of the same size per rank on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blocks {
    /// The elements of a block of the send buffer, in send-datatype
    /// elements.
    pub sendcount: usize,
    /// The elements of a block of the receive buffer, in receive-datatype
    /// elements.
    pub recvcount: usize,
    /// `MPI_IN_PLACE` was passed.
    pub in_place: bool,
}

/// The blocks of `MPI_Gatherv` and `MPI_Allgatherv`: one send block, and
/// per rank a receive block of its own size and place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GathervBlocks<'a> {
    /// The elements of the send block.
    pub sendcount: usize,
    /// Per rank, the elements of its block of the receive buffer.
    pub recvcounts: &'a [usize],
    /// Per rank, the element its block of the receive buffer starts at.
    pub displs: &'a [usize],
    /// `MPI_IN_PLACE` was passed.
    pub in_place: bool,
}

/// The blocks of `MPI_Scatterv`: per rank a send block of its own size
/// and place, and one receive block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScattervBlocks<'a> {
    /// Per rank, the elements of its block of the send buffer.
    pub sendcounts: &'a [usize],
    /// Per rank, the element its block of the send buffer starts at.
    pub displs: &'a [usize],
    /// The elements of the receive block.
    pub recvcount: usize,
    /// `MPI_IN_PLACE` was passed.
    pub in_place: bool,
}

/// The blocks of `MPI_Alltoallv`: per rank a send block and a receive
/// block, each of its own size and place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AlltoallvBlocks<'a> {
    /// Per destination rank, the elements of its block of the send buffer.
    pub sendcounts: &'a [usize],
    /// Per destination rank, the element its send block starts at.
    pub sdispls: &'a [usize],
    /// Per source rank, the elements of its block of the receive buffer.
    pub recvcounts: &'a [usize],
    /// Per source rank, the element its receive block starts at.
    pub rdispls: &'a [usize],
    /// `MPI_IN_PLACE` was passed.
    pub in_place: bool,
}

/// The arguments of `MPI_Reduce`, `MPI_Allreduce`,
/// `MPI_Reduce_scatter_block`, `MPI_Scan` and `MPI_Exscan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reduction {
    /// The elements reduced (per rank's block for
    /// `MPI_Reduce_scatter_block`).
    pub count: usize,
    /// The operation commutes: some algorithms are only for those.
    pub commutative: bool,
    /// `MPI_IN_PLACE` was passed.
    pub in_place: bool,
}

/// The arguments of `MPI_Reduce_scatter`: a [`Reduction`] whose result
/// is cut into blocks of per-rank sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReductionV<'a> {
    /// Rank i gets `recvcounts[i]` elements of the result.
    pub recvcounts: &'a [usize],
    /// The operation commutes: some algorithms are only for those.
    pub commutative: bool,
    /// `MPI_IN_PLACE` was passed.
    pub in_place: bool,
}

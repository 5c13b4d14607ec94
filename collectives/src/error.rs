//! Errors for invalid collective arguments, and the checks producing them.

use thiserror::Error;

use crate::params::{Position, RootedPosition};

/// Why a schedule could not be built. The engine turns these into MPI error
/// codes (`MPI_ERR_ROOT`, `MPI_ERR_ARG`, `MPI_ERR_COUNT`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CollError {
    /// A communicator has at least one rank.
    #[error("communicator size must be at least 1")]
    EmptyCommunicator,
    /// The calling rank is not in the communicator.
    #[error("rank {rank} out of range for a communicator of size {size}")]
    RankOutOfRange {
        /// The offending rank.
        rank: usize,
        /// The communicator size.
        size: usize,
    },
    /// The root is not in the communicator.
    #[error("root {root} out of range for a communicator of size {size}")]
    RootOutOfRange {
        /// The offending root.
        root: usize,
        /// The communicator size.
        size: usize,
    },
    /// A per-rank array (counts or displacements) has the wrong length.
    #[error("{what} has {got} entries, expected {expected} (one per rank)")]
    WrongLength {
        /// Which argument (`"recvcounts"`, `"sdispls"`, ...).
        what: &'static str,
        /// Its length.
        got: usize,
        /// The communicator size.
        expected: usize,
    },
    /// Element offsets or totals do not fit in `usize`.
    #[error("element offsets of {collective} overflow")]
    Overflow {
        /// The collective being scheduled.
        collective: &'static str,
    },
    /// The algorithm only works for power-of-two communicator sizes.
    #[error("{algorithm} needs a power-of-two communicator size, got {size}")]
    NeedsPowerOfTwo {
        /// The algorithm name.
        algorithm: &'static str,
        /// The communicator size.
        size: usize,
    },
    /// The algorithm is not a static schedule: its messages depend on data
    /// the rank learns while it runs, so the engine runs it itself.
    #[error("{0} is run by the engine, not built as a schedule")]
    NotASchedule(&'static str),
    /// The algorithm needs to know which ranks share a host: build it with
    /// [`allreduce_smp`](crate::allreduce_smp).
    #[error("{0} needs the ranks' placement on hosts")]
    NeedsPlacement(&'static str),
    /// A radix-k algorithm needs k >= 2.
    #[error("the radix of a radix-k algorithm must be at least 2, got {0}")]
    BadRadix(usize),
    /// An algorithm name that does not exist for this collective.
    #[error("unknown {collective} algorithm '{name}'; valid names: {valid}")]
    UnknownAlgorithm {
        /// The collective (`"bcast"`, ...).
        collective: &'static str,
        /// The name given.
        name: String,
        /// Comma-separated valid names.
        valid: String,
    },
    /// A collective name that does not exist.
    #[error("unknown collective '{0}'")]
    UnknownCollective(String),
}

/// Checks `size >= 1` and `rank < size`.
pub(crate) fn check_rank(at: Position) -> Result<(), CollError> {
    let Position { rank, size } = at;
    if size == 0 {
        Err(CollError::EmptyCommunicator)
    } else if rank >= size {
        Err(CollError::RankOutOfRange { rank, size })
    } else {
        Ok(())
    }
}

/// Checks `radix >= 2`.
pub(crate) fn check_radix(radix: usize) -> Result<(), CollError> {
    if radix < 2 {
        return Err(CollError::BadRadix(radix));
    }
    Ok(())
}

/// Checks the rank and `root < size`.
pub(crate) fn check_rooted(at: RootedPosition) -> Result<(), CollError> {
    check_rank(at.position())?;
    if at.root >= at.size {
        Err(CollError::RootOutOfRange {
            root: at.root,
            size: at.size,
        })
    } else {
        Ok(())
    }
}

/// Checks that a per-rank array has one entry per rank.
pub(crate) fn check_len<T>(what: &'static str, v: &[T], size: usize) -> Result<(), CollError> {
    if v.len() == size {
        Ok(())
    } else {
        Err(CollError::WrongLength {
            what,
            got: v.len(),
            expected: size,
        })
    }
}

/// `a * b`, or an overflow error naming the collective.
pub(crate) fn mul(a: usize, b: usize, collective: &'static str) -> Result<usize, CollError> {
    a.checked_mul(b).ok_or(CollError::Overflow { collective })
}

/// Checks that every `displs[i] + counts[i]` fits, so blocks have a valid
/// end, and returns the sum of `counts`.
pub(crate) fn check_blocks(
    counts: &[usize],
    displs: &[usize],
    collective: &'static str,
) -> Result<usize, CollError> {
    let mut total = 0usize;
    for (&c, &d) in counts.iter().zip(displs) {
        d.checked_add(c).ok_or(CollError::Overflow { collective })?;
        total = total
            .checked_add(c)
            .ok_or(CollError::Overflow { collective })?;
    }
    Ok(total)
}

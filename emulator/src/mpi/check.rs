//! The checks of the program's arguments, written once for every call
//! that takes them: counts, other non-negative integers, dimensions, peer
//! ranks, tags and roots, array arguments and object names. (A datatype
//! is checked where it is looked up: [`super::Mpi::committed`].) Each
//! error names the argument and why it is wrong.

use super::{
    class, comm_name, CommView, MpiError, MpiResult, ANY_SOURCE, ANY_TAG, PROC_NULL, TAG_UB,
};

/// An array argument of the program (counts, displacements, datatypes),
/// read only where MPI says it is significant, and only as many entries
/// as the call needs.
pub trait ArgArray<T> {
    /// Its first `n` entries; `what` names it in errors. A null array is
    /// an error, even for `n` = 0.
    fn read(&self, n: usize, what: &'static str) -> MpiResult<Vec<T>>;
}

/// MPI_MAX_OBJECT_NAME: the room for an object's name, with its NUL.
pub const MAX_OBJECT_NAME: usize = 128;

/// A count argument (named `what`): non-negative.
pub fn count_of(n: i64, what: &str) -> MpiResult<usize> {
    usize::try_from(n).map_err(|_| MpiError::new(class::COUNT, format!("invalid {what} {n}")))
}

/// The `count` argument of a point-to-point call.
pub fn count(n: i64) -> MpiResult<usize> {
    count_of(n, "count")
}

/// An array of counts or displacements (named `what`): every entry
/// non-negative.
pub fn entries(values: &[i32], what: &str) -> MpiResult<Vec<usize>> {
    values
        .iter()
        .map(|&v| {
            usize::try_from(v)
                .map_err(|_| MpiError::new(class::ARG, format!("{what} has a negative entry {v}")))
        })
        .collect()
}

/// An argument (named `what`) that must not be negative, other than a
/// message count: a length, a number of entries, a position.
pub fn non_negative(v: i32, what: &str) -> MpiResult<usize> {
    usize::try_from(v).map_err(|_| MpiError::new(class::ARG, format!("invalid {what} {v}")))
}

/// The number of dimensions of a virtual topology.
pub fn ndims(n: i32) -> MpiResult<usize> {
    usize::try_from(n).map_err(|_| MpiError::new(class::DIMS, format!("invalid ndims {n}")))
}

/// A message buffer `what` of `count` elements of type `ty`: null is
/// MPI_ERR_BUFFER when data would be read or written there. (Null is
/// MPI_BOTTOM, valid with a datatype of absolute addresses, whose true
/// lower bound is not 0.)
pub fn buffer(addr: usize, count: usize, ty: &super::Datatype, what: &str) -> MpiResult<()> {
    if addr == 0 && count > 0 && ty.size > 0 && ty.true_lb == 0 {
        return Err(MpiError::new(
            class::BUFFER,
            format!("{what} is a null pointer but holds {count} {}", ty.name),
        ));
    }
    Ok(())
}

/// The first `n` entries of an array argument (named `what`); none are
/// read, so a null array is fine, when `n` is 0.
pub fn array<T>(a: &dyn ArgArray<T>, n: usize, what: &'static str) -> MpiResult<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    a.read(n, what)
}

/// The name the program gives an object, cut to what fits in
/// MPI_MAX_OBJECT_NAME bytes with the NUL.
pub fn object_name(name: &str) -> String {
    name.chars().take(MAX_OBJECT_NAME - 1).collect()
}

/// A peer rank for a send (`allow_any` false) or a receive: a rank of the
/// view's peer group, or MPI_PROC_NULL (or MPI_ANY_SOURCE to receive).
pub fn peer(comm: &CommView, peer: i32, allow_any: bool) -> MpiResult<()> {
    if peer == PROC_NULL || (allow_any && peer == ANY_SOURCE) {
        return Ok(());
    }
    let n = comm.peer_group().size();
    if peer < 0 || peer as usize >= n {
        let which = if comm.remote.is_some() {
            "the remote group of "
        } else {
            ""
        };
        return Err(MpiError::new(
            class::RANK,
            format!(
                "invalid rank {peer}: {which}{} has {n} ranks",
                comm_name(comm.handle)
            ),
        ));
    }
    Ok(())
}

/// A tag for a send (`allow_any` false) or a receive.
pub fn tag(tag: i32, allow_any: bool) -> MpiResult<()> {
    if (allow_any && tag == ANY_TAG) || (0..=TAG_UB).contains(&tag) {
        Ok(())
    } else {
        Err(MpiError::new(class::TAG, format!("invalid tag {tag}")))
    }
}

/// The root of a collective: a rank of the communicator.
pub fn root(comm: &CommView, root: i32) -> MpiResult<usize> {
    usize::try_from(root)
        .ok()
        .filter(|&r| r < comm.size())
        .ok_or_else(|| {
            MpiError::new(
                class::ROOT,
                format!(
                    "invalid root {root}: the communicator has {} ranks",
                    comm.size()
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::Group;

    fn view(n: usize, remote: Option<usize>) -> CommView {
        CommView {
            handle: 7,
            ctx: 4,
            group: Group::World(n),
            remote: remote.map(|r| Group::Range {
                first: n as u32,
                len: r as u32,
            }),
            my_rank: 0,
        }
    }

    #[test]
    fn counts_and_entries_must_not_be_negative() {
        assert_eq!(count(3).unwrap(), 3);
        let e = count(-1).unwrap_err();
        assert_eq!(e.class, class::COUNT);
        assert_eq!(e.message, "invalid count -1");
        assert_eq!(
            count_of(-2, "sendcount").unwrap_err().message,
            "invalid sendcount -2"
        );
        assert_eq!(entries(&[0, 4], "displs").unwrap(), [0, 4]);
        let e = entries(&[1, -3], "recvcounts").unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::ARG, "recvcounts has a negative entry -3")
        );
    }

    #[test]
    fn other_arguments_must_not_be_negative() {
        assert_eq!(non_negative(0, "blocklength").unwrap(), 0);
        let e = non_negative(-4, "blocklength").unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::ARG, "invalid blocklength -4")
        );
        assert_eq!(ndims(2).unwrap(), 2);
        let e = ndims(-1).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::DIMS, "invalid ndims -1")
        );
    }

    /// An array argument that fails every read, as a null C array does.
    struct Null;

    impl ArgArray<i32> for Null {
        fn read(&self, _n: usize, what: &'static str) -> MpiResult<Vec<i32>> {
            Err(MpiError::new(
                class::ARG,
                format!("{what} is a null pointer"),
            ))
        }
    }

    #[test]
    fn empty_arrays_are_not_read() {
        assert!(array(&Null, 0, "ranks").unwrap().is_empty());
        assert_eq!(
            array(&Null, 1, "ranks").unwrap_err().message,
            "ranks is a null pointer"
        );
        assert_eq!(object_name(&"x".repeat(200)).len(), MAX_OBJECT_NAME - 1);
        assert_eq!(object_name("grid"), "grid");
    }

    #[test]
    fn peers_are_ranks_of_the_peer_group() {
        let v = view(4, None);
        assert!(peer(&v, 3, false).is_ok());
        assert!(peer(&v, PROC_NULL, false).is_ok());
        assert!(peer(&v, ANY_SOURCE, false).is_err(), "no wildcard to send");
        assert!(peer(&v, ANY_SOURCE, true).is_ok());
        let e = peer(&v, 4, false).unwrap_err();
        assert_eq!(e.class, class::RANK);
        assert_eq!(e.message, "invalid rank 4: communicator 7 has 4 ranks");
        // On an intercommunicator, ranks name the remote group.
        let inter = view(4, Some(2));
        assert!(peer(&inter, 1, false).is_ok());
        let e = peer(&inter, 3, false).unwrap_err();
        assert_eq!(
            e.message,
            "invalid rank 3: the remote group of communicator 7 has 2 ranks"
        );
    }

    #[test]
    fn tags_and_roots() {
        assert!(tag(0, false).is_ok());
        assert!(tag(TAG_UB, false).is_ok());
        assert!(tag(ANY_TAG, false).is_err());
        assert!(tag(ANY_TAG, true).is_ok());
        assert_eq!(tag(-5, true).unwrap_err().class, class::TAG);
        let v = view(3, None);
        assert_eq!(root(&v, 2).unwrap(), 2);
        let e = root(&v, 3).unwrap_err();
        assert_eq!(e.class, class::ROOT);
        assert_eq!(e.message, "invalid root 3: the communicator has 3 ranks");
        assert!(root(&v, -1).is_err());
    }
}

//! Communicator and group calls, bound to `mpi::comm`, `mpi::group` and
//! `mpi::split`.

use std::ffi::{c_char, c_int};

use super::call;
use super::check::{non_null, out, string, write_array, CArray};
use super::env::copy_c_string;
use crate::mpi::{self, check, comm, group, split, MpiResult};
use crate::sim;

/// MPI_GROUP_NULL.
const GROUP_NULL: c_int = 0;

/// Writes a new communicator's handle.
///
/// # Safety
/// `p` is the caller's output argument.
unsafe fn out_comm(p: *mut c_int, h: c_int) -> MpiResult<()> {
    // SAFETY: per the contract.
    unsafe { out(p, h, "newcomm") }
}

pub(crate) unsafe extern "C" fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) -> c_int {
    call("MPI_Comm_dup", comm, || {
        let (h, result) = comm::dup(comm)?.into_output(mpi::COMM_NULL);
        // SAFETY: the caller's output argument.
        unsafe { out(newcomm, h, "newcomm")? };
        result
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_split(
    comm: c_int,
    color: c_int,
    key: c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Comm_split", comm, || {
        let h = split::comm_split(comm, color, key)?;
        // SAFETY: the caller's output argument.
        unsafe { out_comm(newcomm, h) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_create(
    comm: c_int,
    group: c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Comm_create", comm, || {
        let h = split::comm_create(comm, group)?;
        // SAFETY: the caller's output argument.
        unsafe { out_comm(newcomm, h) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_free(comm: *mut c_int) -> c_int {
    let handle = if comm.is_null() {
        mpi::COMM_NULL
    } else {
        // SAFETY: the caller's non-null in/out argument.
        unsafe { *comm }
    };
    call("MPI_Comm_free", handle, || {
        non_null(comm, "comm")?;
        comm::free(handle)?;
        // SAFETY: non-null in/out argument.
        unsafe { *comm = mpi::COMM_NULL };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_group(comm: c_int, group: *mut c_int) -> c_int {
    call("MPI_Comm_group", comm, || {
        let g = sim::mpi(|w| w.comm_group(comm))?;
        // SAFETY: the caller's output argument.
        unsafe { out(group, g, "group") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_compare(a: c_int, b: c_int, result: *mut c_int) -> c_int {
    call("MPI_Comm_compare", a, || {
        let r = sim::mpi(|w| w.comm_compare(a, b))?;
        // SAFETY: the caller's output argument.
        unsafe { out(result, r, "result") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_test_inter(comm: c_int, flag: *mut c_int) -> c_int {
    call("MPI_Comm_test_inter", comm, || {
        let v = sim::mpi(|w| w.comm(comm))?;
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(v.remote.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_get_name(
    comm: c_int,
    name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    call("MPI_Comm_get_name", comm, || {
        let n = sim::mpi(|w| w.comm_get_name(comm))?;
        non_null(name, "name")?;
        // SAFETY: MPI requires MPI_MAX_OBJECT_NAME bytes.
        let len = unsafe { copy_c_string(name, check::MAX_OBJECT_NAME, &n) };
        // SAFETY: the caller's output argument.
        unsafe { out(resultlen, len as c_int, "resultlen") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_set_name(comm: c_int, name: *const c_char) -> c_int {
    call("MPI_Comm_set_name", comm, || {
        // SAFETY: a NUL-terminated string from the caller.
        let s = unsafe { string(name, "name") }?;
        sim::mpi(|w| w.comm_set_name(comm, &s))
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_size(group: c_int, size: *mut c_int) -> c_int {
    call("MPI_Group_size", mpi::COMM_WORLD, || {
        let n = group::size(group)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, n as c_int, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_rank(group: c_int, rank: *mut c_int) -> c_int {
    call("MPI_Group_rank", mpi::COMM_WORLD, || {
        let r = group::rank(group)?;
        // SAFETY: the caller's output argument.
        unsafe { out(rank, r, "rank") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_free(group: *mut c_int) -> c_int {
    call("MPI_Group_free", mpi::COMM_WORLD, || {
        non_null(group, "group")?;
        // SAFETY: non-null in/out argument.
        group::free(unsafe { *group })?;
        // SAFETY: as above.
        unsafe { *group = GROUP_NULL };
        Ok(())
    })
}

/// Runs the group call `name`, which makes a group, and writes its
/// handle.
fn new_group(
    name: &'static str,
    newgroup: *mut c_int,
    make: impl FnOnce() -> MpiResult<c_int>,
) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        let h = make()?;
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_incl(
    group: c_int,
    n: c_int,
    ranks: *const c_int,
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_incl", newgroup, || {
        group::incl(group, n, &CArray(ranks))
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_excl(
    group: c_int,
    n: c_int,
    ranks: *const c_int,
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_excl", newgroup, || {
        group::excl(group, n, &CArray(ranks))
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_range_incl(
    group: c_int,
    n: c_int,
    ranges: *const [c_int; 3],
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_range_incl", newgroup, || {
        group::range_incl(group, n, &CArray(ranges))
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_range_excl(
    group: c_int,
    n: c_int,
    ranges: *const [c_int; 3],
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_range_excl", newgroup, || {
        group::range_excl(group, n, &CArray(ranges))
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_translate_ranks(
    g1: c_int,
    n: c_int,
    ranks1: *const c_int,
    g2: c_int,
    ranks2: *mut c_int,
) -> c_int {
    call("MPI_Group_translate_ranks", mpi::COMM_WORLD, || {
        let t = group::translate_ranks(g1, n, &CArray(ranks1), g2)?;
        // SAFETY: the caller's array of n entries, as many as translated.
        unsafe { write_array(ranks2, &t, "ranks2") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_compare(
    g1: c_int,
    g2: c_int,
    result: *mut c_int,
) -> c_int {
    call("MPI_Group_compare", mpi::COMM_WORLD, || {
        let r = group::compare(g1, g2)?;
        // SAFETY: the caller's output argument.
        unsafe { out(result, r, "result") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_union(
    g1: c_int,
    g2: c_int,
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_union", newgroup, || {
        group::set_operation(g1, g2, group::union)
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_intersection(
    g1: c_int,
    g2: c_int,
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_intersection", newgroup, || {
        group::set_operation(g1, g2, group::intersection)
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_difference(
    g1: c_int,
    g2: c_int,
    newgroup: *mut c_int,
) -> c_int {
    new_group("MPI_Group_difference", newgroup, || {
        group::set_operation(g1, g2, group::difference)
    })
}

pub(crate) unsafe extern "C" fn MPI_Intercomm_create(
    local_comm: c_int,
    local_leader: c_int,
    peer_comm: c_int,
    remote_leader: c_int,
    tag: c_int,
    newintercomm: *mut c_int,
) -> c_int {
    let leaders = split::Leaders {
        local: local_leader,
        peer_comm,
        remote: remote_leader,
        tag,
    };
    call("MPI_Intercomm_create", local_comm, || {
        let h = split::intercomm_create(local_comm, leaders)?;
        // SAFETY: the caller's output argument.
        unsafe { out_comm(newintercomm, h) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Intercomm_merge(
    intercomm: c_int,
    high: c_int,
    newintracomm: *mut c_int,
) -> c_int {
    call("MPI_Intercomm_merge", intercomm, || {
        let h = split::intercomm_merge(intercomm, high != 0)?;
        // SAFETY: the caller's output argument.
        unsafe { out_comm(newintracomm, h) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_remote_size(comm: c_int, size: *mut c_int) -> c_int {
    call("MPI_Comm_remote_size", comm, || {
        let remote = sim::mpi(|w| w.remote_group(comm))?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, remote.size() as c_int, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_remote_group(comm: c_int, group: *mut c_int) -> c_int {
    call("MPI_Comm_remote_group", comm, || {
        let h = sim::mpi(|w| w.comm_remote_group(comm))?;
        // SAFETY: the caller's output argument.
        unsafe { out(group, h, "group") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_create_group(
    comm: c_int,
    group: c_int,
    tag: c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Comm_create_group", comm, || {
        let h = split::create_group(comm, group, tag)?;
        // SAFETY: the caller's output argument.
        unsafe { out_comm(newcomm, h) }
    })
}

/// Runs a duplication that also makes a request (MPI_Comm_idup and its
/// _with_info form): the request is complete from the start, as
/// duplication needs no messages in this emulator.
fn idup(
    name: &'static str,
    comm: c_int,
    info: Option<c_int>,
    newcomm: *mut c_int,
    request: *mut c_int,
) -> c_int {
    call(name, comm, || {
        non_null(request, "request")?;
        let h = comm::dup_with_hints(comm, info, false)?;
        // SAFETY: the caller's output argument.
        unsafe { out(newcomm, h, "newcomm")? };
        let id = sim::mpi(|w| w.new_completed_request());
        // SAFETY: non-null output argument.
        unsafe { *request = id as c_int + 1 };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_idup(
    comm: c_int,
    newcomm: *mut c_int,
    request: *mut c_int,
) -> c_int {
    idup("MPI_Comm_idup", comm, None, newcomm, request)
}

pub(crate) unsafe extern "C" fn MPI_Comm_dup_with_info(
    comm: c_int,
    info: c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Comm_dup_with_info", comm, || {
        let h = comm::dup_with_hints(comm, Some(info), true)?;
        // SAFETY: the caller's output argument.
        unsafe { out(newcomm, h, "newcomm") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_idup_with_info(
    comm: c_int,
    info: c_int,
    newcomm: *mut c_int,
    request: *mut c_int,
) -> c_int {
    idup(
        "MPI_Comm_idup_with_info",
        comm,
        Some(info),
        newcomm,
        request,
    )
}

pub(crate) unsafe extern "C" fn MPI_Comm_set_info(comm: c_int, info: c_int) -> c_int {
    call("MPI_Comm_set_info", comm, || {
        sim::mpi(|w| w.set_comm_info(comm, info))
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_get_info(comm: c_int, info: *mut c_int) -> c_int {
    call("MPI_Comm_get_info", comm, || {
        let h = sim::mpi(|w| w.comm_info(comm))?;
        // SAFETY: the caller's output argument.
        unsafe { out(info, h, "info_used") }
    })
}

/// MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups the ranks of each
/// simulated host; MPI_UNDEFINED gives MPI_COMM_NULL.
pub(crate) unsafe extern "C" fn MPI_Comm_split_type(
    comm: c_int,
    split_type: c_int,
    key: c_int,
    _info: c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Comm_split_type", comm, || {
        let h = split::split_type(comm, split_type, key)?;
        // SAFETY: the caller's output argument.
        unsafe { out_comm(newcomm, h) }
    })
}

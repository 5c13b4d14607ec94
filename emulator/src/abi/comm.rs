//! Communicator and group calls.

use std::ffi::{c_char, c_int};
use std::rc::Rc;

use super::call;
use super::check::out;
use super::env::copy_c_string;
use crate::mpi::comm::{group_compare, members};
use crate::mpi::{self, class, split, Group, MpiError, MpiResult};
use crate::sim;

/// Writes a new communicator handle.
///
/// # Safety
/// `p` is the caller's output argument.
unsafe fn out_comm(p: *mut c_int, h: c_int) -> MpiResult<()> {
    // SAFETY: per the contract.
    unsafe { out(p, h, "newcomm") }
}

/// Writes a communicator made from `parent`, which passes on its error
/// handler.
///
/// # Safety
/// `p` is the caller's output argument.
unsafe fn out_child(parent: c_int, p: *mut c_int, h: c_int) -> MpiResult<()> {
    sim::mpi(|w| w.inherit_errhandler(parent, h));
    // SAFETY: per the contract.
    unsafe { out_comm(p, h) }
}

pub(crate) unsafe extern "C" fn MPI_Comm_dup(comm: c_int, newcomm: *mut c_int) -> c_int {
    call("MPI_Comm_dup", comm, || {
        let h = sim::mpi(|w| w.comm_dup(comm))?;
        if let Err(e) = mpi::attr::copy_all(mpi::attr::Kind::Comm, comm, h) {
            // A failing copy function fails the duplication.
            sim::mpi(|w| w.comm_free(h))?;
            // SAFETY: the caller's output argument.
            unsafe { out_comm(newcomm, mpi::COMM_NULL)? };
            return Err(e);
        }
        // SAFETY: the caller's output argument.
        unsafe { out_child(comm, newcomm, h) }
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
        unsafe { out_child(comm, newcomm, h) }
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
        unsafe { out_child(comm, newcomm, h) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_free(comm: *mut c_int) -> c_int {
    let handle = if comm.is_null() {
        mpi::COMM_NULL
    } else {
        unsafe { *comm }
    };
    call("MPI_Comm_free", handle, || {
        if comm.is_null() {
            return Err(MpiError::new(class::ARG, "comm is a null pointer"));
        }
        sim::mpi(|w| w.comm(handle))?;
        mpi::attr::delete_all(mpi::attr::Kind::Comm, handle)?;
        sim::mpi(|w| w.comm_free(handle))?;
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
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "name is a null pointer"));
        }
        // SAFETY: MPI requires MPI_MAX_OBJECT_NAME (128) bytes.
        let len = unsafe { copy_c_string(name, 128, &n) };
        // SAFETY: the caller's output argument.
        unsafe { out(resultlen, len as c_int, "resultlen") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_set_name(comm: c_int, name: *const c_char) -> c_int {
    call("MPI_Comm_set_name", comm, || {
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "name is a null pointer"));
        }
        // SAFETY: a NUL-terminated string from the caller.
        let s = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy();
        let s: String = s.chars().take(127).collect();
        sim::mpi(|w| w.comm_set_name(comm, s))
    })
}

fn group_of(handle: c_int) -> MpiResult<Group> {
    sim::mpi(|w| w.mpi.comms.group(handle).cloned())
}

fn new_group(list: Vec<u32>) -> c_int {
    sim::mpi(|w| {
        if list.is_empty() {
            1
        } else {
            w.mpi.comms.add_group(Group::List(Rc::from(list)))
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_size(group: c_int, size: *mut c_int) -> c_int {
    call("MPI_Group_size", mpi::COMM_WORLD, || {
        let g = group_of(group)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, g.size() as c_int, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_rank(group: c_int, rank: *mut c_int) -> c_int {
    call("MPI_Group_rank", mpi::COMM_WORLD, || {
        let g = group_of(group)?;
        let me = sim::mpi(|w| w.core.current());
        let r = g.rank_of(me).map_or(mpi::UNDEFINED, |r| r as c_int);
        // SAFETY: the caller's output argument.
        unsafe { out(rank, r, "rank") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_free(group: *mut c_int) -> c_int {
    call("MPI_Group_free", mpi::COMM_WORLD, || {
        if group.is_null() {
            return Err(MpiError::new(class::ARG, "group is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let h = unsafe { *group };
        sim::mpi(|w| w.mpi.comms.free_group(h))?;
        // SAFETY: as above.
        unsafe { *group = 0 };
        Ok(())
    })
}

/// Reads `n` ranks of group `g` from a C array, checking range and repeats.
///
/// # Safety
/// `ranks` points to `n` readable ints.
unsafe fn read_ranks(g: &Group, n: c_int, ranks: *const c_int) -> MpiResult<Vec<usize>> {
    let n =
        usize::try_from(n).map_err(|_| MpiError::new(class::ARG, format!("invalid count {n}")))?;
    if n > 0 && ranks.is_null() {
        return Err(MpiError::new(class::ARG, "ranks is a null pointer"));
    }
    let mut v = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    for i in 0..n {
        // SAFETY: i < n per the contract.
        let r = unsafe { *ranks.add(i) };
        let r = usize::try_from(r)
            .ok()
            .filter(|&r| r < g.size())
            .ok_or_else(|| {
                MpiError::new(
                    class::RANK,
                    format!("rank {r} is not in a group of {}", g.size()),
                )
            })?;
        if !seen.insert(r) {
            return Err(MpiError::new(
                class::RANK,
                format!("rank {r} appears twice"),
            ));
        }
        v.push(r);
    }
    Ok(v)
}

pub(crate) unsafe extern "C" fn MPI_Group_incl(
    group: c_int,
    n: c_int,
    ranks: *const c_int,
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_incl", mpi::COMM_WORLD, || {
        let g = group_of(group)?;
        // SAFETY: the caller's array.
        let rs = unsafe { read_ranks(&g, n, ranks) }?;
        let h = new_group(rs.iter().map(|&r| g.world(r) as u32).collect());
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_excl(
    group: c_int,
    n: c_int,
    ranks: *const c_int,
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_excl", mpi::COMM_WORLD, || {
        let g = group_of(group)?;
        // SAFETY: the caller's array.
        let rs = unsafe { read_ranks(&g, n, ranks) }?;
        let excluded: std::collections::HashSet<usize> = rs.into_iter().collect();
        let h = new_group(
            (0..g.size())
                .filter(|r| !excluded.contains(r))
                .map(|r| g.world(r) as u32)
                .collect(),
        );
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
    })
}

/// Expands (first, last, stride) triplets into group ranks.
///
/// # Safety
/// `ranges` points to `n` readable int[3].
unsafe fn expand_ranges(g: &Group, n: c_int, ranges: *const [c_int; 3]) -> MpiResult<Vec<usize>> {
    let n =
        usize::try_from(n).map_err(|_| MpiError::new(class::ARG, format!("invalid count {n}")))?;
    let mut v = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for i in 0..n {
        // SAFETY: i < n per the contract.
        let [first, last, stride] = unsafe { *ranges.add(i) };
        if stride == 0 {
            return Err(MpiError::new(class::ARG, "a range has stride 0"));
        }
        let in_range = |r: c_int| usize::try_from(r).ok().filter(|&r| r < g.size());
        if in_range(first).is_none() || in_range(last).is_none() {
            return Err(MpiError::new(
                class::RANK,
                format!("range {first}..{last} is outside a group of {}", g.size()),
            ));
        }
        let mut r = first;
        while (stride > 0 && r <= last) || (stride < 0 && r >= last) {
            if !seen.insert(r) {
                return Err(MpiError::new(
                    class::RANK,
                    format!("rank {r} appears twice"),
                ));
            }
            v.push(r as usize);
            r += stride;
        }
    }
    Ok(v)
}

pub(crate) unsafe extern "C" fn MPI_Group_range_incl(
    group: c_int,
    n: c_int,
    ranges: *const [c_int; 3],
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_range_incl", mpi::COMM_WORLD, || {
        let g = group_of(group)?;
        // SAFETY: the caller's array.
        let rs = unsafe { expand_ranges(&g, n, ranges) }?;
        let h = new_group(rs.iter().map(|&r| g.world(r) as u32).collect());
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_range_excl(
    group: c_int,
    n: c_int,
    ranges: *const [c_int; 3],
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_range_excl", mpi::COMM_WORLD, || {
        let g = group_of(group)?;
        // SAFETY: the caller's array.
        let rs = unsafe { expand_ranges(&g, n, ranges) }?;
        let excluded: std::collections::HashSet<usize> = rs.into_iter().collect();
        let h = new_group(
            (0..g.size())
                .filter(|r| !excluded.contains(r))
                .map(|r| g.world(r) as u32)
                .collect(),
        );
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
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
        let a = group_of(g1)?;
        let b = group_of(g2)?;
        let n = usize::try_from(n)
            .map_err(|_| MpiError::new(class::ARG, format!("invalid count {n}")))?;
        for i in 0..n {
            // SAFETY: i < n entries of the caller's arrays.
            let r = unsafe { *ranks1.add(i) };
            let t = if r == mpi::PROC_NULL {
                mpi::PROC_NULL
            } else {
                let r = usize::try_from(r)
                    .ok()
                    .filter(|&r| r < a.size())
                    .ok_or_else(|| {
                        MpiError::new(
                            class::RANK,
                            format!("rank {r} is not in a group of {}", a.size()),
                        )
                    })?;
                b.rank_of(a.world(r)).map_or(mpi::UNDEFINED, |x| x as c_int)
            };
            // SAFETY: as above.
            unsafe { *ranks2.add(i) = t };
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_compare(
    g1: c_int,
    g2: c_int,
    result: *mut c_int,
) -> c_int {
    call("MPI_Group_compare", mpi::COMM_WORLD, || {
        let r = group_compare(&group_of(g1)?, &group_of(g2)?);
        // SAFETY: the caller's output argument.
        unsafe { out(result, r, "result") }
    })
}

fn set_op(g1: c_int, g2: c_int, f: impl Fn(&[u32], &[u32]) -> Vec<u32>) -> MpiResult<c_int> {
    let a = members(&group_of(g1)?);
    let b = members(&group_of(g2)?);
    Ok(new_group(f(&a, &b)))
}

pub(crate) unsafe extern "C" fn MPI_Group_union(
    g1: c_int,
    g2: c_int,
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_union", mpi::COMM_WORLD, || {
        let h = set_op(g1, g2, |a, b| {
            let mut v = a.to_vec();
            v.extend(b.iter().filter(|x| !a.contains(x)));
            v
        })?;
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_intersection(
    g1: c_int,
    g2: c_int,
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_intersection", mpi::COMM_WORLD, || {
        let h = set_op(g1, g2, |a, b| {
            a.iter().filter(|x| b.contains(x)).copied().collect()
        })?;
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Group_difference(
    g1: c_int,
    g2: c_int,
    newgroup: *mut c_int,
) -> c_int {
    call("MPI_Group_difference", mpi::COMM_WORLD, || {
        let h = set_op(g1, g2, |a, b| {
            a.iter().filter(|x| !b.contains(x)).copied().collect()
        })?;
        // SAFETY: the caller's output argument.
        unsafe { out(newgroup, h, "newgroup") }
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
        unsafe { out_child(local_comm, newintercomm, h) }
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
        unsafe { out_child(intercomm, newintracomm, h) }
    })
}

/// The remote group of an intercommunicator.
fn remote_group(comm: c_int) -> MpiResult<Group> {
    sim::mpi(|w| w.comm(comm))?.remote.ok_or_else(|| {
        MpiError::new(
            class::COMM,
            format!("{} is not an intercommunicator", mpi::comm_name(comm)),
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_remote_size(comm: c_int, size: *mut c_int) -> c_int {
    call("MPI_Comm_remote_size", comm, || {
        let remote = remote_group(comm)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, remote.size() as c_int, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_remote_group(comm: c_int, group: *mut c_int) -> c_int {
    call("MPI_Comm_remote_group", comm, || {
        let remote = remote_group(comm)?;
        let h = sim::mpi(|w| w.mpi.comms.add_group(remote));
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
        let h = sim::mpi(|w| w.comm_create_group(comm, group, tag))?;
        // SAFETY: the caller's output argument.
        unsafe { out_child(comm, newcomm, h) }
    })
}

/// A request that is complete from the start (for non-blocking calls that
/// finish at once, such as MPI_Comm_idup here: duplication needs no
/// messages in this emulator).
fn completed_request() -> c_int {
    sim::mpi(|w| w.new_completed_request()) as c_int + 1
}

pub(crate) unsafe extern "C" fn MPI_Comm_idup(
    comm: c_int,
    newcomm: *mut c_int,
    request: *mut c_int,
) -> c_int {
    call("MPI_Comm_idup", comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        let h = sim::mpi(|w| w.comm_dup(comm))?;
        mpi::attr::copy_all(mpi::attr::Kind::Comm, comm, h)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out_child(comm, newcomm, h)?;
            *request = completed_request();
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_dup_with_info(
    comm: c_int,
    info: c_int,
    newcomm: *mut c_int,
) -> c_int {
    call("MPI_Comm_dup_with_info", comm, || {
        let hints = sim::mpi(|w| w.mpi.hints(info))?;
        let h = sim::mpi(|w| w.comm_dup(comm))?;
        mpi::attr::copy_all(mpi::attr::Kind::Comm, comm, h)?;
        sim::mpi(|w| w.set_comm_hints(h, hints));
        // SAFETY: the caller's output argument.
        unsafe { out_child(comm, newcomm, h) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_idup_with_info(
    comm: c_int,
    info: c_int,
    newcomm: *mut c_int,
    request: *mut c_int,
) -> c_int {
    call("MPI_Comm_idup_with_info", comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        let hints = sim::mpi(|w| w.mpi.hints(info))?;
        let h = sim::mpi(|w| w.comm_dup(comm))?;
        mpi::attr::copy_all(mpi::attr::Kind::Comm, comm, h)?;
        sim::mpi(|w| w.set_comm_hints(h, hints));
        // SAFETY: the caller's output arguments.
        unsafe {
            out_child(comm, newcomm, h)?;
            *request = completed_request();
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_set_info(comm: c_int, info: c_int) -> c_int {
    call("MPI_Comm_set_info", comm, || {
        sim::mpi(|w| {
            w.comm(comm)?;
            let hints = w.mpi.hints(info)?;
            w.set_comm_hints(comm, hints);
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_get_info(comm: c_int, info: *mut c_int) -> c_int {
    call("MPI_Comm_get_info", comm, || {
        let h = sim::mpi(|w| -> MpiResult<c_int> {
            w.comm(comm)?;
            let hints = w.comm_hints(comm);
            Ok(w.mpi.add_info(hints))
        })?;
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
        unsafe { out_child(comm, newcomm, h) }
    })
}

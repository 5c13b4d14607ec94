//! Blocking collectives: build the schedule SimGrid's default selector
//! would run, and execute it over point-to-point.

use std::ffi::{c_int, c_void};

use collectives as algo;

use super::call;
use crate::engine;
use crate::mpi::coll::{coll_error, execute, Buffers, Reduction};
use crate::mpi::op::Builtin;
use crate::mpi::{class, is_complete, wait_for, CommView, MpiError, MpiResult, ReqKind, SendMode};

const IN_PLACE: usize = usize::MAX;

fn view(comm: c_int) -> MpiResult<CommView> {
    engine::with(|w| w.comm(comm))?.intra("a collective")
}

fn count(n: c_int, what: &str) -> MpiResult<usize> {
    usize::try_from(n).map_err(|_| MpiError::new(class::COUNT, format!("invalid {what} {n}")))
}

fn check_type(dt: c_int) -> MpiResult<()> {
    engine::with(|w| {
        let t = w.mpi.datatype(dt)?;
        if t.committed {
            Ok(())
        } else {
            Err(MpiError::new(
                class::TYPE,
                format!("datatype {} is not committed", t.name),
            ))
        }
    })
}

fn root_of(comm: &CommView, root: c_int) -> MpiResult<usize> {
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

/// Reads a per-rank array of non-negative ints.
///
/// # Safety
/// `p` points to `n` readable ints when non-null.
unsafe fn array(p: *const c_int, n: usize, what: &'static str) -> MpiResult<Vec<usize>> {
    if p.is_null() {
        return Err(MpiError::new(
            class::ARG,
            format!("{what} is a null pointer"),
        ));
    }
    // SAFETY: per the contract.
    let s = unsafe { std::slice::from_raw_parts(p, n) };
    s.iter()
        .map(|&v| {
            usize::try_from(v)
                .map_err(|_| MpiError::new(class::ARG, format!("{what} has a negative entry {v}")))
        })
        .collect()
}

/// Reads a per-rank array of handles.
///
/// # Safety
/// `p` points to `n` readable ints when non-null.
unsafe fn handles(p: *const c_int, n: usize, what: &'static str) -> MpiResult<Vec<c_int>> {
    if p.is_null() {
        return Err(MpiError::new(
            class::ARG,
            format!("{what} is a null pointer"),
        ));
    }
    // SAFETY: per the contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
}

fn builtin_op(op: c_int) -> MpiResult<Builtin> {
    Builtin::from_handle(op)
        .ok_or_else(|| MpiError::new(class::OP, format!("invalid operation handle {op}")))
}

pub(crate) unsafe extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    call("MPI_Barrier", comm, || {
        let c = view(comm)?;
        let s = algo::barrier(c.my_rank, c.size()).map_err(coll_error)?;
        execute(&c, &s, Buffers::none(), Reduction::None, "MPI_Barrier")
    })
}

pub(crate) unsafe extern "C" fn MPI_Bcast(
    buffer: *mut c_void,
    n: c_int,
    datatype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Bcast", comm, || {
        let c = view(comm)?;
        let n = count(n, "count")?;
        check_type(datatype)?;
        let root = root_of(&c, root)?;
        let s = algo::bcast(c.my_rank, c.size(), root, n).map_err(coll_error)?;
        let b = Buffers {
            send: buffer as usize,
            send_type: datatype,
            recv: buffer as usize,
            recv_type: datatype,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Bcast")
    })
}

pub(crate) unsafe extern "C" fn MPI_Gather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Gather", comm, || {
        let c = view(comm)?;
        let root = root_of(&c, root)?;
        let at_root = c.my_rank == root;
        let in_place = at_root && sendbuf as usize == IN_PLACE;
        let sc = if in_place {
            0
        } else {
            count(sendcount, "sendcount")?
        };
        let rc = if at_root {
            count(recvcount, "recvcount")?
        } else {
            0
        };
        let st = if in_place { recvtype } else { sendtype };
        let rt = if at_root { recvtype } else { st };
        check_type(st)?;
        check_type(rt)?;
        let s = algo::gather(c.my_rank, c.size(), root, sc, rc, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Gather")
    })
}

pub(crate) unsafe extern "C" fn MPI_Gatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Gatherv", comm, || {
        let c = view(comm)?;
        let root = root_of(&c, root)?;
        let at_root = c.my_rank == root;
        let in_place = at_root && sendbuf as usize == IN_PLACE;
        let sc = if in_place {
            0
        } else {
            count(sendcount, "sendcount")?
        };
        let (rcs, ds) = if at_root {
            // SAFETY: at the root, MPI requires arrays of comm-size entries.
            unsafe {
                (
                    array(recvcounts, c.size(), "recvcounts")?,
                    array(displs, c.size(), "displs")?,
                )
            }
        } else {
            (Vec::new(), Vec::new())
        };
        let st = if in_place { recvtype } else { sendtype };
        let rt = if at_root { recvtype } else { st };
        check_type(st)?;
        check_type(rt)?;
        let s = algo::gatherv(c.my_rank, c.size(), root, sc, &rcs, &ds, in_place)
            .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Gatherv")
    })
}

pub(crate) unsafe extern "C" fn MPI_Scatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Scatter", comm, || {
        let c = view(comm)?;
        let root = root_of(&c, root)?;
        let at_root = c.my_rank == root;
        let in_place = at_root && recvbuf as usize == IN_PLACE;
        let sc = if at_root {
            count(sendcount, "sendcount")?
        } else {
            0
        };
        let rc = if in_place {
            0
        } else {
            count(recvcount, "recvcount")?
        };
        let rt = if in_place { sendtype } else { recvtype };
        let st = if at_root { sendtype } else { rt };
        check_type(st)?;
        check_type(rt)?;
        let s = algo::scatter(c.my_rank, c.size(), root, sc, rc, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Scatter")
    })
}

pub(crate) unsafe extern "C" fn MPI_Scatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Scatterv", comm, || {
        let c = view(comm)?;
        let root = root_of(&c, root)?;
        let at_root = c.my_rank == root;
        let in_place = at_root && recvbuf as usize == IN_PLACE;
        let (scs, ds) = if at_root {
            // SAFETY: at the root, MPI requires arrays of comm-size entries.
            unsafe {
                (
                    array(sendcounts, c.size(), "sendcounts")?,
                    array(displs, c.size(), "displs")?,
                )
            }
        } else {
            (Vec::new(), Vec::new())
        };
        let rc = if in_place {
            0
        } else {
            count(recvcount, "recvcount")?
        };
        let rt = if in_place { sendtype } else { recvtype };
        let st = if at_root { sendtype } else { rt };
        check_type(st)?;
        check_type(rt)?;
        let s = algo::scatterv(c.my_rank, c.size(), root, &scs, &ds, rc, in_place)
            .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Scatterv")
    })
}

pub(crate) unsafe extern "C" fn MPI_Allgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Allgather", comm, || {
        let c = view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        let sc = if in_place {
            0
        } else {
            count(sendcount, "sendcount")?
        };
        let rc = count(recvcount, "recvcount")?;
        let st = if in_place { recvtype } else { sendtype };
        check_type(st)?;
        check_type(recvtype)?;
        let s = algo::allgather(c.my_rank, c.size(), sc, rc, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Allgather")
    })
}

pub(crate) unsafe extern "C" fn MPI_Allgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Allgatherv", comm, || {
        let c = view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        let sc = if in_place {
            0
        } else {
            count(sendcount, "sendcount")?
        };
        // SAFETY: MPI requires arrays of comm-size entries.
        let (rcs, ds) = unsafe {
            (
                array(recvcounts, c.size(), "recvcounts")?,
                array(displs, c.size(), "displs")?,
            )
        };
        let st = if in_place { recvtype } else { sendtype };
        check_type(st)?;
        check_type(recvtype)?;
        let s =
            algo::allgatherv(c.my_rank, c.size(), sc, &rcs, &ds, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Allgatherv")
    })
}

pub(crate) unsafe extern "C" fn MPI_Alltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Alltoall", comm, || {
        let c = view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        let rc = count(recvcount, "recvcount")?;
        let sc = if in_place {
            rc
        } else {
            count(sendcount, "sendcount")?
        };
        let st = if in_place { recvtype } else { sendtype };
        check_type(st)?;
        check_type(recvtype)?;
        let s = algo::alltoall(c.my_rank, c.size(), sc, rc, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Alltoall")
    })
}

pub(crate) unsafe extern "C" fn MPI_Alltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Alltoallv", comm, || {
        let c = view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        let p = c.size();
        // SAFETY: MPI requires arrays of comm-size entries.
        let (rcs, rds) = unsafe {
            (
                array(recvcounts, p, "recvcounts")?,
                array(rdispls, p, "rdispls")?,
            )
        };
        let (scs, sds) = if in_place {
            (rcs.clone(), rds.clone())
        } else {
            // SAFETY: as above.
            unsafe {
                (
                    array(sendcounts, p, "sendcounts")?,
                    array(sdispls, p, "sdispls")?,
                )
            }
        };
        let st = if in_place { recvtype } else { sendtype };
        check_type(st)?;
        check_type(recvtype)?;
        let s =
            algo::alltoallv(c.my_rank, p, &scs, &sds, &rcs, &rds, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, &s, b, Reduction::None, "MPI_Alltoallv")
    })
}

/// The shared steps of the reductions: check, build the schedule with
/// `build(view, in_place)`, run it with `op`.
#[allow(clippy::too_many_arguments)]
fn reduction(
    name: &'static str,
    comm: c_int,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    datatype: c_int,
    op: c_int,
    build: impl FnOnce(&CommView, bool) -> MpiResult<collectives::Schedule>,
) -> c_int {
    call(name, comm, || {
        let c = view(comm)?;
        check_type(datatype)?;
        let op = builtin_op(op)?;
        let in_place = sendbuf as usize == IN_PLACE;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: datatype,
            recv: recvbuf as usize,
            recv_type: datatype,
        };
        let s = build(&c, in_place)?;
        execute(&c, &s, b, Reduction::Builtin(op), name)
    })
}

pub(crate) unsafe extern "C" fn MPI_Reduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    reduction(
        "MPI_Reduce",
        comm,
        sendbuf,
        recvbuf,
        datatype,
        op,
        |c, in_place| {
            let n = count(n, "count")?;
            let root = root_of(c, root)?;
            algo::reduce(
                c.my_rank,
                c.size(),
                root,
                n,
                true,
                in_place && c.my_rank == root,
            )
            .map_err(coll_error)
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Allreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    reduction(
        "MPI_Allreduce",
        comm,
        sendbuf,
        recvbuf,
        datatype,
        op,
        |c, in_place| {
            let n = count(n, "count")?;
            algo::allreduce(c.my_rank, c.size(), n, true, in_place).map_err(coll_error)
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Reduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    reduction(
        "MPI_Reduce_scatter_block",
        comm,
        sendbuf,
        recvbuf,
        datatype,
        op,
        |c, in_place| {
            let n = count(recvcount, "recvcount")?;
            algo::reduce_scatter_block(c.my_rank, c.size(), n, true, in_place).map_err(coll_error)
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Reduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    reduction(
        "MPI_Reduce_scatter",
        comm,
        sendbuf,
        recvbuf,
        datatype,
        op,
        |c, in_place| {
            // SAFETY: MPI requires an array of comm-size entries.
            let rcs = unsafe { array(recvcounts, c.size(), "recvcounts")? };
            algo::reduce_scatter(c.my_rank, c.size(), &rcs, true, in_place).map_err(coll_error)
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Scan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    reduction(
        "MPI_Scan",
        comm,
        sendbuf,
        recvbuf,
        datatype,
        op,
        |c, in_place| {
            let n = count(n, "count")?;
            algo::scan(c.my_rank, c.size(), n, true, in_place).map_err(coll_error)
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Exscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
) -> c_int {
    reduction(
        "MPI_Exscan",
        comm,
        sendbuf,
        recvbuf,
        datatype,
        op,
        |c, in_place| {
            let n = count(n, "count")?;
            algo::exscan(c.my_rank, c.size(), n, true, in_place).map_err(coll_error)
        },
    )
}

/// MPI_Alltoallw: per-peer datatypes and byte displacements, so it runs
/// directly on point-to-point (all receives, then all sends, posted at
/// once, as the linear algorithms of the default selector do).
pub(crate) unsafe extern "C" fn MPI_Alltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Alltoallw", comm, || {
        let c = view(comm)?;
        let p = c.size();
        let in_place = sendbuf as usize == IN_PLACE;
        // SAFETY: MPI requires arrays of comm-size entries.
        let (rcs, rds, rts) = unsafe {
            (
                array(recvcounts, p, "recvcounts")?,
                array(rdispls, p, "rdispls")?,
                handles(recvtypes, p, "recvtypes")?,
            )
        };
        // In place, the data to send is read from the receive buffer: copy
        // it first so the receives can overwrite it.
        let mut staged: Vec<u8> = Vec::new();
        let (scs, sds, sts, sbase) = if in_place {
            let mut offsets = Vec::with_capacity(p);
            for i in 0..p {
                let t = engine::with(|w| w.mpi.datatype(rts[i]).map(std::rc::Rc::clone))?;
                offsets.push(staged.len());
                // SAFETY: the receive buffer holds rcs[i] elements at rds[i].
                unsafe {
                    crate::mpi::datatype::pack(
                        &t,
                        (recvbuf as *const u8).add(rds[i]).cast(),
                        rcs[i],
                        &mut staged,
                    )
                };
            }
            // The staged copy is sent as MPI_BYTE runs.
            let counts: Vec<usize> = (0..p)
                .map(|i| offsets.get(i + 1).copied().unwrap_or(staged.len()) - offsets[i])
                .collect();
            (
                counts,
                offsets,
                vec![4 as c_int; p],
                staged.as_ptr() as usize,
            )
        } else {
            // SAFETY: MPI requires arrays of comm-size entries.
            unsafe {
                (
                    array(sendcounts, p, "sendcounts")?,
                    array(sdispls, p, "sdispls")?,
                    handles(sendtypes, p, "sendtypes")?,
                    sendbuf as usize,
                )
            }
        };
        for &t in sts.iter().chain(&rts) {
            check_type(t)?;
        }
        let tag = engine::with(|w| w.next_coll_tag(comm));
        let ids = engine::with(|w| -> MpiResult<Vec<crate::mpi::ReqId>> {
            let mut ids = Vec::with_capacity(2 * p);
            for i in 0..p {
                let t = std::rc::Rc::clone(w.mpi.datatype(rts[i])?);
                let id = w.new_internal_request(
                    ReqKind::Recv,
                    &c,
                    c.ctx + 1,
                    recvbuf as usize + rds[i],
                    rcs[i],
                    t,
                    i as i32,
                    tag,
                );
                w.start(id)?;
                ids.push(id);
            }
            for i in 0..p {
                let t = std::rc::Rc::clone(w.mpi.datatype(sts[i])?);
                let id = w.new_internal_request(
                    ReqKind::Send(SendMode::Standard),
                    &c,
                    c.ctx + 1,
                    sbase + sds[i],
                    scs[i],
                    t,
                    i as i32,
                    tag,
                );
                w.start(id)?;
                ids.push(id);
            }
            Ok(ids)
        })?;
        wait_for(&ids, "MPI_Alltoallw", |w| {
            ids.iter().all(|&id| is_complete(w, id))
        });
        let truncated = engine::with(|w| {
            let bad = ids.iter().any(|&id| w.mpi.request(id).status.error != 0);
            for &id in &ids {
                w.mpi.remove_request(id);
            }
            bad
        });
        drop(staged);
        if truncated {
            return Err(MpiError::new(
                class::TRUNCATE,
                "MPI_Alltoallw: a block was larger than its receive block",
            ));
        }
        Ok(())
    })
}

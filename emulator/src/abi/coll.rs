//! Collective calls, bound to the MPI layer's collectives
//! (`mpi::collective`); the non-blocking forms run their blocking twin
//! so that it starts its schedule instead of running it.

use std::ffi::{c_int, c_void};

use super::check::{non_null, out, CArray};
use super::{call, call_traced};
use crate::mpi::collective::{self, Data, Reduce, VData, WData};
use crate::mpi::op::UserFunction;
use crate::mpi::{self, class, MpiError};
use crate::trace;

fn data(addr: *const c_void, count: c_int, dtype: c_int) -> Data {
    Data {
        addr: addr as usize,
        count,
        dtype,
    }
}

pub(crate) unsafe extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    call_traced(
        "MPI_Barrier",
        comm,
        |_| trace::plain("barrier"),
        || collective::barrier(comm),
    )
}

pub(crate) unsafe extern "C" fn MPI_Bcast(
    buffer: *mut c_void,
    n: c_int,
    datatype: c_int,
    root: c_int,
    comm: c_int,
) -> c_int {
    let d = data(buffer, n, datatype);
    call_traced(
        "MPI_Bcast",
        comm,
        |w| trace::bcast(w, &d, root),
        || collective::bcast(comm, d, root),
    )
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
    let send = data(sendbuf, sendcount, sendtype);
    let recv = data(recvbuf, recvcount, recvtype);
    call_traced(
        "MPI_Gather",
        comm,
        |w| trace::one_count(w, "gather", comm, &send, &recv, root),
        || collective::gather(comm, send, recv, root),
    )
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
    let send = data(sendbuf, sendcount, sendtype);
    let recv = VData {
        addr: recvbuf as usize,
        counts: &CArray(recvcounts),
        displs: &CArray(displs),
        dtype: recvtype,
    };
    call_traced(
        "MPI_Gatherv",
        comm,
        |w| trace::gatherv(w, "gatherv", comm, &send, &recv, root),
        || collective::gatherv(comm, send, &recv, root),
    )
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
    let send = data(sendbuf, sendcount, sendtype);
    let recv = data(recvbuf, recvcount, recvtype);
    call_traced(
        "MPI_Scatter",
        comm,
        |w| trace::one_count(w, "scatter", comm, &send, &recv, root),
        || collective::scatter(comm, send, recv, root),
    )
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
    let send = VData {
        addr: sendbuf as usize,
        counts: &CArray(sendcounts),
        displs: &CArray(displs),
        dtype: sendtype,
    };
    let recv = data(recvbuf, recvcount, recvtype);
    call_traced(
        "MPI_Scatterv",
        comm,
        |w| trace::scatterv(w, comm, &send, &recv, root),
        || collective::scatterv(comm, &send, recv, root),
    )
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
    let send = data(sendbuf, sendcount, sendtype);
    let recv = data(recvbuf, recvcount, recvtype);
    call_traced(
        "MPI_Allgather",
        comm,
        |w| trace::one_count(w, "allgather", comm, &send, &recv, -1),
        || collective::allgather(comm, send, recv),
    )
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
    let send = data(sendbuf, sendcount, sendtype);
    let recv = VData {
        addr: recvbuf as usize,
        counts: &CArray(recvcounts),
        displs: &CArray(displs),
        dtype: recvtype,
    };
    call_traced(
        "MPI_Allgatherv",
        comm,
        |w| trace::gatherv(w, "allgatherv", comm, &send, &recv, -1),
        || collective::allgatherv(comm, send, &recv),
    )
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
    let send = data(sendbuf, sendcount, sendtype);
    let recv = data(recvbuf, recvcount, recvtype);
    call_traced(
        "MPI_Alltoall",
        comm,
        |w| trace::one_count(w, "alltoall", comm, &send, &recv, -1),
        || collective::alltoall(comm, send, recv),
    )
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
    let send = VData {
        addr: sendbuf as usize,
        counts: &CArray(sendcounts),
        displs: &CArray(sdispls),
        dtype: sendtype,
    };
    let recv = VData {
        addr: recvbuf as usize,
        counts: &CArray(recvcounts),
        displs: &CArray(rdispls),
        dtype: recvtype,
    };
    call_traced(
        "MPI_Alltoallv",
        comm,
        |w| trace::alltoallv(w, comm, &send, &recv),
        || collective::alltoallv(comm, &send, &recv),
    )
}

/// Reductions: (name, MPI layer's function, count argument's name), with
/// the root for MPI_Reduce.
macro_rules! reductions {
    ($($name:ident($count:ident) => $run:expr, $describe:expr;)*) => {$(
        pub(crate) unsafe extern "C" fn $name(
            sendbuf: *const c_void,
            recvbuf: *mut c_void,
            $count: c_int,
            datatype: c_int,
            op: c_int,
            comm: c_int,
        ) -> c_int {
            let r = Reduce {
                send: sendbuf as usize,
                recv: recvbuf as usize,
                count: $count,
                dtype: datatype,
                op,
            };
            let run: fn(c_int, &Reduce) -> mpi::MpiResult<()> = $run;
            let describe: fn(&mpi::Ctx<'_>, c_int, &Reduce) -> Option<trace::Traced> = $describe;
            call_traced(stringify!($name), comm, |w| describe(w, comm, &r), || run(comm, &r))
        }
    )*};
}

reductions! {
    MPI_Allreduce(count) => collective::allreduce,
        |w, _, r| trace::reduction(w, "allreduce", r, -1);
    MPI_Reduce_scatter_block(recvcount) => collective::reduce_scatter_block,
        |w, comm, r| {
            let n = trace::comm_size(w, comm);
            trace::reduce_scatter(w, vec![i64::from(r.count); n], r.dtype)
        };
    MPI_Scan(count) => collective::scan, |w, _, r| trace::reduction(w, "scan", r, -1);
    MPI_Exscan(count) => collective::exscan, |w, _, r| trace::reduction(w, "exscan", r, -1);
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
    let r = Reduce {
        send: sendbuf as usize,
        recv: recvbuf as usize,
        count: n,
        dtype: datatype,
        op,
    };
    call_traced(
        "MPI_Reduce",
        comm,
        |w| trace::reduction(w, "reduce", &r, root),
        || collective::reduce(comm, &r, root),
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
    let r = Reduce {
        send: sendbuf as usize,
        recv: recvbuf as usize,
        count: 0,
        dtype: datatype,
        op,
    };
    let describe = |w: &mpi::Ctx<'_>| {
        let n = trace::comm_size(w, comm);
        let counts = mpi::check::ArgArray::read(&CArray(recvcounts), n, "recvcounts").ok();
        trace::reduce_scatter(w, trace::counts(counts, n), datatype)
    };
    call_traced("MPI_Reduce_scatter", comm, describe, || {
        collective::reduce_scatter(comm, &r, &CArray(recvcounts))
    })
}

/// The per-peer arguments of MPI_Alltoallw's two sides.
fn w_data<'a>(
    addr: *const c_void,
    counts: &'a CArray<c_int>,
    displs: &'a CArray<c_int>,
    dtypes: &'a CArray<c_int>,
) -> WData<'a> {
    WData {
        addr: addr as usize,
        counts,
        displs,
        dtypes,
    }
}

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
    let (sc, sd, st) = (CArray(sendcounts), CArray(sdispls), CArray(sendtypes));
    let (rc, rd, rt) = (CArray(recvcounts), CArray(rdispls), CArray(recvtypes));
    let send = w_data(sendbuf, &sc, &sd, &st);
    let recv = w_data(recvbuf, &rc, &rd, &rt);
    call("MPI_Alltoallw", comm, || {
        collective::alltoallw(comm, &send, &recv)
    })
}

/// MPI_Ialltoallw: on an intercommunicator, MPI_Alltoallw's steps,
/// recorded; on an intracommunicator, its messages under one request.
pub(crate) unsafe extern "C" fn MPI_Ialltoallw(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtypes: *const c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtypes: *const c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    if collective::is_intercomm(comm) {
        // SAFETY: the caller's arguments, passed on unchanged.
        return nonblocking("MPI_Ialltoallw", comm, request, || unsafe {
            MPI_Alltoallw(
                sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm,
            )
        });
    }
    let (sc, sd, st) = (CArray(sendcounts), CArray(sdispls), CArray(sendtypes));
    let (rc, rd, rt) = (CArray(recvcounts), CArray(rdispls), CArray(recvtypes));
    let send = w_data(sendbuf, &sc, &sd, &st);
    let recv = w_data(recvbuf, &rc, &rd, &rt);
    call("MPI_Ialltoallw", comm, || {
        non_null(request, "request")?;
        let id = collective::ialltoallw(comm, &send, &recv)?;
        // SAFETY: checked non-null above; MPI requires it writable.
        unsafe { out(request, (id + 1) as c_int, "request") }
    })
}

/// MPI_Op_create: a user reduction, `func(in, inout, &len, &datatype)`.
pub(crate) unsafe extern "C" fn MPI_Op_create(
    func: Option<UserFunction>,
    commute: c_int,
    op: *mut c_int,
) -> c_int {
    call("MPI_Op_create", mpi::COMM_WORLD, || {
        let func =
            func.ok_or_else(|| MpiError::new(class::ARG, "the function is a null pointer"))?;
        let handle = collective::op_create(func, commute != 0);
        // SAFETY: MPI requires a writable handle.
        unsafe { out(op, handle, "op") }
    })
}

/// MPI_Op_free: forgets a user operation and sets the handle to
/// MPI_OP_NULL. Predefined operations cannot be freed.
pub(crate) unsafe extern "C" fn MPI_Op_free(op: *mut c_int) -> c_int {
    call("MPI_Op_free", mpi::COMM_WORLD, || {
        non_null(op, "op")?;
        // SAFETY: non-null, and MPI requires a valid handle there.
        collective::op_free(unsafe { *op })?;
        // SAFETY: as above.
        unsafe { out(op, 0, "op") }
    })
}

/// MPI_Op_commutative: whether the algorithms may reorder the operation.
pub(crate) unsafe extern "C" fn MPI_Op_commutative(op: c_int, commute: *mut c_int) -> c_int {
    call("MPI_Op_commutative", mpi::COMM_WORLD, || {
        let c = collective::op_commutative(op)?;
        // SAFETY: MPI requires a writable flag.
        unsafe { out(commute, c_int::from(c), "commute") }
    })
}

/// MPI_Reduce_local: inoutbuf = inbuf (op) inoutbuf, on this rank only.
pub(crate) unsafe extern "C" fn MPI_Reduce_local(
    inbuf: *const c_void,
    inoutbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
) -> c_int {
    call("MPI_Reduce_local", mpi::COMM_WORLD, || {
        collective::reduce_local(inbuf as usize, inoutbuf as usize, n, datatype, op)
    })
}

/// Starts a non-blocking collective: the blocking twin `blocking` builds
/// the very same schedule, which `execute` then starts instead of running
/// (see `mpi::coll::start_nonblocking`). On an intercommunicator the twin
/// chains several steps, which it records instead of running, and they
/// run one after the other (`mpi::nbc::start_recorded`). Errors the twin
/// finds name the twin.
pub(super) fn nonblocking(
    name: &'static str,
    comm: c_int,
    request: *mut c_int,
    blocking: impl FnOnce() -> c_int,
) -> c_int {
    let mut inter = None;
    let checked = call(name, comm, || {
        non_null(request, "request")?;
        let view = crate::sim::mpi(|w| w.comm(comm))?;
        if view.remote.is_some() {
            inter = Some(view);
        }
        Ok(())
    });
    if checked != class::SUCCESS {
        return checked;
    }
    if let Some(view) = inter {
        return match mpi::nbc::start_recorded(&view, name, blocking) {
            // SAFETY: checked non-null above; MPI requires it writable.
            Ok(id) => unsafe {
                *request = (id + 1) as c_int;
                class::SUCCESS
            },
            Err(code) => code,
        };
    }
    // SAFETY: `request` is the caller's request argument, checked non-null
    // above; MPI requires it to be writable.
    unsafe { mpi::coll::start_nonblocking(request, blocking) }
}

/// `MPI_I<collective>(args..., comm, request)`: its blocking twin's
/// schedule, run as a non-blocking collective.
macro_rules! nonblocking_collectives {
    ($($name:ident => $twin:ident($($p:ident: $t:ty),*);)*) => {$(
        pub(crate) unsafe extern "C" fn $name(
            $($p: $t,)*
            comm: c_int,
            request: *mut c_int,
        ) -> c_int {
            // SAFETY: the caller's arguments, passed on unchanged.
            nonblocking(stringify!($name), comm, request, || unsafe { $twin($($p,)* comm) })
        }
    )*};
}

nonblocking_collectives! {
    MPI_Ibarrier => MPI_Barrier();
    MPI_Ibcast => MPI_Bcast(buffer: *mut c_void, n: c_int, datatype: c_int, root: c_int);
    MPI_Igather => MPI_Gather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int);
    MPI_Igatherv => MPI_Gatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: c_int, root: c_int);
    MPI_Iscatter => MPI_Scatter(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int);
    MPI_Iscatterv => MPI_Scatterv(sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int);
    MPI_Iallgather => MPI_Allgather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int);
    MPI_Iallgatherv => MPI_Allgatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: c_int);
    MPI_Ialltoall => MPI_Alltoall(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int);
    MPI_Ialltoallv => MPI_Alltoallv(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: c_int);
    MPI_Ireduce => MPI_Reduce(sendbuf: *const c_void, recvbuf: *mut c_void, n: c_int, datatype: c_int, op: c_int, root: c_int);
    MPI_Iallreduce => MPI_Allreduce(sendbuf: *const c_void, recvbuf: *mut c_void, n: c_int, datatype: c_int, op: c_int);
    MPI_Ireduce_scatter => MPI_Reduce_scatter(sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: c_int, op: c_int);
    MPI_Ireduce_scatter_block => MPI_Reduce_scatter_block(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: c_int, op: c_int);
    MPI_Iscan => MPI_Scan(sendbuf: *const c_void, recvbuf: *mut c_void, n: c_int, datatype: c_int, op: c_int);
    MPI_Iexscan => MPI_Exscan(sendbuf: *const c_void, recvbuf: *mut c_void, n: c_int, datatype: c_int, op: c_int);
}

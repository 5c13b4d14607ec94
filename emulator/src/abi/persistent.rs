//! The persistent collectives of MPI 4.0 (`MPI_Bcast_init`, ...): the
//! request remembers the call; each `MPI_Start` runs the non-blocking
//! collective with the same arguments (so the same schedule and
//! algorithm), and the persistent request completes when it does.
//! Argument errors are found by that call, so `MPI_Start` reports them.

use std::ffi::{c_int, c_void};
use std::rc::Rc;

use super::call;
use super::check::out;
use super::coll::*;
use super::info::check_info;
use super::neighbor::*;
use crate::mpi::{class, MpiError, PersistentStart};
use crate::sim;

/// Makes the persistent request of `name` that `start` begins.
fn persistent(
    name: &'static str,
    comm: c_int,
    info: c_int,
    request: *mut c_int,
    start: PersistentStart,
) -> c_int {
    call(name, comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        check_info(info)?;
        let id = sim::mpi(|w| -> crate::mpi::MpiResult<_> {
            let view = w.comm(comm)?;
            Ok(w.new_persistent_collective(&view, start))
        })?;
        // SAFETY: checked non-null above; MPI requires it writable.
        unsafe { out(request, (id + 1) as c_int, "request") }
    })
}

/// Defines `MPI_X_init(args..., comm, info, request)` over
/// `MPI_IX(args..., comm, request)`.
macro_rules! persistent_collectives {
    ($($init:ident => $start:ident($($p:ident: $t:ty),*);)*) => {$(
        pub(crate) unsafe extern "C" fn $init(
            $($p: $t,)*
            comm: c_int,
            info: c_int,
            request: *mut c_int,
        ) -> c_int {
            let start = move |r: *mut c_int| {
                // SAFETY: the program's arguments, which MPI requires to
                // stay valid while the persistent request exists; `r` is a
                // live handle slot.
                unsafe { $start($($p,)* comm, r) }
            };
            persistent(stringify!($init), comm, info, request, Rc::new(start))
        }
    )*};
}

persistent_collectives! {
    MPI_Barrier_init => MPI_Ibarrier();
    MPI_Bcast_init => MPI_Ibcast(buffer: *mut c_void, count: c_int, datatype: c_int, root: c_int);
    MPI_Gather_init => MPI_Igather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int);
    MPI_Gatherv_init => MPI_Igatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: c_int, root: c_int);
    MPI_Scatter_init => MPI_Iscatter(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int);
    MPI_Scatterv_init => MPI_Iscatterv(sendbuf: *const c_void, sendcounts: *const c_int, displs: *const c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int, root: c_int);
    MPI_Allgather_init => MPI_Iallgather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int);
    MPI_Allgatherv_init => MPI_Iallgatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: c_int);
    MPI_Alltoall_init => MPI_Ialltoall(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int);
    MPI_Alltoallv_init => MPI_Ialltoallv(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: c_int);
    MPI_Alltoallw_init => MPI_Ialltoallw(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtypes: *const c_int, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtypes: *const c_int);
    MPI_Reduce_init => MPI_Ireduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int, root: c_int);
    MPI_Allreduce_init => MPI_Iallreduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int);
    MPI_Reduce_scatter_init => MPI_Ireduce_scatter(sendbuf: *const c_void, recvbuf: *mut c_void, recvcounts: *const c_int, datatype: c_int, op: c_int);
    MPI_Reduce_scatter_block_init => MPI_Ireduce_scatter_block(sendbuf: *const c_void, recvbuf: *mut c_void, recvcount: c_int, datatype: c_int, op: c_int);
    MPI_Scan_init => MPI_Iscan(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int);
    MPI_Exscan_init => MPI_Iexscan(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: c_int, op: c_int);
    MPI_Neighbor_allgather_init => MPI_Ineighbor_allgather(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int);
    MPI_Neighbor_allgatherv_init => MPI_Ineighbor_allgatherv(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, displs: *const c_int, recvtype: c_int);
    MPI_Neighbor_alltoall_init => MPI_Ineighbor_alltoall(sendbuf: *const c_void, sendcount: c_int, sendtype: c_int, recvbuf: *mut c_void, recvcount: c_int, recvtype: c_int);
    MPI_Neighbor_alltoallv_init => MPI_Ineighbor_alltoallv(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const c_int, sendtype: c_int, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const c_int, recvtype: c_int);
    MPI_Neighbor_alltoallw_init => MPI_Ineighbor_alltoallw(sendbuf: *const c_void, sendcounts: *const c_int, sdispls: *const isize, sendtypes: *const c_int, recvbuf: *mut c_void, recvcounts: *const c_int, rdispls: *const isize, recvtypes: *const c_int);
}

//! Neighbourhood collectives, bound to `mpi::neighbor`: each comes as a
//! blocking call and a non-blocking one that returns its round's request.

use std::ffi::{c_int, c_void};

use super::call;
use super::check::{non_null, out, CArray};
use crate::mpi::collective::{Data, VData};
use crate::mpi::neighbor::{self, Mode, WData};
use crate::mpi::{MpiResult, ReqId};

/// Runs a neighbourhood collective `run` as call `name`: blocking when
/// `request` is None, else writing its round's request there.
fn bind(
    name: &'static str,
    comm: c_int,
    request: Option<*mut c_int>,
    run: impl FnOnce(Mode) -> MpiResult<Option<ReqId>>,
) -> c_int {
    call(name, comm, || match request {
        None => run(Mode::Blocking).map(drop),
        Some(r) => {
            non_null(r, "request")?;
            let id = run(Mode::Nonblocking)?;
            let id = id.expect("a non-blocking round has a request");
            // SAFETY: non-null output argument.
            unsafe { out(r, id as c_int + 1, "request") }
        }
    })
}

fn data(addr: *const c_void, count: c_int, dtype: c_int) -> Data {
    Data {
        addr: addr as usize,
        count,
        dtype,
    }
}

/// `(name, nonblocking name)` => the neighbourhood collective, over the
/// arguments that follow, all ending with `comm` (and `request`).
macro_rules! neighbor_calls {
    ($($name:ident / $iname:ident ($($p:ident: $t:ty),*) => $run:expr;)*) => {$(
        pub(crate) unsafe extern "C" fn $name($($p: $t,)* comm: c_int) -> c_int {
            let run: fn(&'static str, c_int, $($t),*, Mode) -> MpiResult<Option<ReqId>> = $run;
            bind(stringify!($name), comm, None, |mode| {
                run(stringify!($name), comm, $($p),*, mode)
            })
        }

        pub(crate) unsafe extern "C" fn $iname(
            $($p: $t,)*
            comm: c_int,
            request: *mut c_int,
        ) -> c_int {
            let run: fn(&'static str, c_int, $($t),*, Mode) -> MpiResult<Option<ReqId>> = $run;
            bind(stringify!($iname), comm, Some(request), |mode| {
                run(stringify!($iname), comm, $($p),*, mode)
            })
        }
    )*};
}

neighbor_calls! {
    MPI_Neighbor_allgather / MPI_Ineighbor_allgather(
        sendbuf: *const c_void, scount: c_int, stype: c_int,
        recvbuf: *mut c_void, rcount: c_int, rtype: c_int
    ) => |name, comm, sb, sc, st, rb, rc, rt, mode| {
        neighbor::uniform(name, comm, data(sb, sc, st), data(rb, rc, rt), false, mode)
    };
    MPI_Neighbor_alltoall / MPI_Ineighbor_alltoall(
        sendbuf: *const c_void, scount: c_int, stype: c_int,
        recvbuf: *mut c_void, rcount: c_int, rtype: c_int
    ) => |name, comm, sb, sc, st, rb, rc, rt, mode| {
        neighbor::uniform(name, comm, data(sb, sc, st), data(rb, rc, rt), true, mode)
    };
    MPI_Neighbor_allgatherv / MPI_Ineighbor_allgatherv(
        sendbuf: *const c_void, scount: c_int, stype: c_int,
        recvbuf: *mut c_void, rcounts: *const c_int, displs: *const c_int, rtype: c_int
    ) => |name, comm, sb, sc, st, rb, rcs, ds, rt, mode| {
        let recv = VData { addr: rb as usize, counts: &CArray(rcs), displs: &CArray(ds), dtype: rt };
        neighbor::allgatherv(name, comm, data(sb, sc, st), &recv, mode)
    };
    MPI_Neighbor_alltoallv / MPI_Ineighbor_alltoallv(
        sendbuf: *const c_void, scounts: *const c_int, sdispls: *const c_int, stype: c_int,
        recvbuf: *mut c_void, rcounts: *const c_int, rdispls: *const c_int, rtype: c_int
    ) => |name, comm, sb, scs, sds, st, rb, rcs, rds, rt, mode| {
        let send = VData { addr: sb as usize, counts: &CArray(scs), displs: &CArray(sds), dtype: st };
        let recv = VData { addr: rb as usize, counts: &CArray(rcs), displs: &CArray(rds), dtype: rt };
        neighbor::alltoallv(name, comm, &send, &recv, mode)
    };
    MPI_Neighbor_alltoallw / MPI_Ineighbor_alltoallw(
        sendbuf: *const c_void, scounts: *const c_int, sdispls: *const isize, stypes: *const c_int,
        recvbuf: *mut c_void, rcounts: *const c_int, rdispls: *const isize, rtypes: *const c_int
    ) => |name, comm, sb, scs, sds, sts, rb, rcs, rds, rts, mode| {
        let send = WData {
            addr: sb as usize,
            counts: &CArray(scs),
            displs: &CArray(sds),
            dtypes: &CArray(sts),
        };
        let recv = WData {
            addr: rb as usize,
            counts: &CArray(rcs),
            displs: &CArray(rds),
            dtypes: &CArray(rts),
        };
        neighbor::alltoallw(name, comm, &send, &recv, mode)
    };
}

//! Blocking collectives: build the schedule SimGrid's default selector
//! would run, and execute it over point-to-point.

use std::ffi::{c_int, c_void};
use std::rc::Rc;

use collectives as algo;

use super::intercoll::{self, Contribution, Rooted};
use super::{call, out};
use crate::mpi::coll::Transfer;
use crate::mpi::coll::{coll_error, execute, Algorithms, Buffers, Reduction};
use crate::mpi::datatype::Datatype;
use crate::mpi::op::{self, ReduceOp, UserFunction};
use crate::mpi::{class, CommView, MpiError, MpiResult};
use crate::sim;

const IN_PLACE: usize = usize::MAX;
/// MPI_BYTE's handle.
const MPI_BYTE: c_int = 4;

/// The caller's view of `comm`, intra- or intercommunicator.
fn any_view(comm: c_int) -> MpiResult<CommView> {
    sim::mpi(|w| w.comm(comm))
}

/// The error of a collective that MPI defines on intracommunicators only.
fn not_on_intercomm(call: &str) -> MpiError {
    MpiError::new(
        class::COMM,
        format!("{call} is not defined on intercommunicators"),
    )
}

pub(super) fn count(n: c_int, what: &str) -> MpiResult<usize> {
    usize::try_from(n).map_err(|_| MpiError::new(class::COUNT, format!("invalid {what} {n}")))
}

/// The committed datatype behind a handle.
pub(super) fn committed(dt: c_int) -> MpiResult<Rc<Datatype>> {
    sim::mpi(|w| {
        let t = w.mpi.datatype(dt)?;
        if t.committed {
            Ok(Rc::clone(t))
        } else {
            Err(MpiError::new(
                class::TYPE,
                format!("datatype {} is not committed", t.name),
            ))
        }
    })
}

fn check_type(dt: c_int) -> MpiResult<()> {
    committed(dt).map(drop)
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

/// The algorithms chosen with `smpi/<collective>`.
/// The algorithm `smpi/<collective>` names (`named` reads it), or, when
/// that is `default`, the one `smpi/coll-selector` picks (`select`).
fn named_or_selected<A: algo::Algorithm + Default>(
    named: impl FnOnce(&Algorithms) -> A,
    select: impl FnOnce(algo::Selector) -> MpiResult<A>,
) -> MpiResult<A> {
    let a = algorithms();
    match named(&a) {
        n if n == A::default() => select(a.selector),
        n => Ok(n),
    }
}

fn algorithms() -> Algorithms {
    sim::mpi(|w| w.mpi.algorithms)
}

pub(crate) unsafe extern "C" fn MPI_Barrier(comm: c_int) -> c_int {
    call("MPI_Barrier", comm, || {
        let c = any_view(comm)?;
        if c.remote.is_some() {
            return intercoll::barrier(&c);
        }
        let alg = named_or_selected(|a| a.barrier, |sel| Ok(algo::select_barrier(sel, c.size())))?;
        let s = algo::barrier_with(alg, c.my_rank, c.size()).map_err(coll_error)?;
        execute(&c, s, Buffers::none(), Reduction::None, "MPI_Barrier")
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
        let c = any_view(comm)?;
        if c.remote.is_some() {
            return intercoll::bcast(&c, buffer as usize, n, datatype, root);
        }
        let n = count(n, "count")?;
        check_type(datatype)?;
        let root = root_of(&c, root)?;
        let ty = committed(datatype)?;
        let alg = named_or_selected(
            |a| a.bcast,
            |sel| Ok(algo::select_bcast(sel, c.size(), n.saturating_mul(ty.size))),
        )?;
        // SimGrid's scatter-allgather broadcasts slice the buffer in bytes;
        // so do we when the datatype is contiguous.
        let in_bytes = matches!(
            alg,
            algo::BcastAlgorithm::ScatterLrAllgather | algo::BcastAlgorithm::ScatterRdbAllgather
        );
        let (n, datatype, elem_bytes) = if in_bytes && ty.is_contiguous() {
            (n * ty.size, MPI_BYTE, 1)
        } else {
            (n, datatype, ty.size)
        };
        let s =
            algo::bcast_with(alg, c.my_rank, c.size(), root, n, elem_bytes).map_err(coll_error)?;
        let b = Buffers {
            send: buffer as usize,
            send_type: datatype,
            recv: buffer as usize,
            recv_type: datatype,
        };
        execute(&c, s, b, Reduction::None, "MPI_Bcast")
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
        let c = any_view(comm)?;
        if c.remote.is_some() {
            let r = Rooted {
                name: "MPI_Gather",
                root,
                root_buf: recvbuf as usize,
                root_type: recvtype,
                blocks: &|p| {
                    let n = count(recvcount, "recvcount")?;
                    Ok((0..p).map(|i| (n, i * n)).collect())
                },
                leaf_buf: sendbuf as usize,
                leaf_count: sendcount,
                leaf_type: sendtype,
            };
            return intercoll::rooted(&c, r, true);
        }
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
        let alg = named_or_selected(
            |a| a.gather,
            |sel| {
                let block = if at_root {
                    committed(rt)?.size.saturating_mul(rc)
                } else {
                    committed(st)?.size.saturating_mul(sc)
                };
                Ok(algo::select_gather(sel, c.size(), block))
            },
        )?;
        let own_type = committed(if at_root { rt } else { st })?;
        let s = algo::gather_with(
            alg,
            c.my_rank,
            c.size(),
            root,
            sc,
            rc,
            in_place,
            own_type.size,
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, s, b, Reduction::None, "MPI_Gather")
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
        let c = any_view(comm)?;
        if c.remote.is_some() {
            let r = Rooted {
                name: "MPI_Gatherv",
                root,
                root_buf: recvbuf as usize,
                root_type: recvtype,
                // SAFETY: at the root, MPI requires arrays of remote-size
                // entries.
                blocks: &|p| unsafe {
                    let counts = array(recvcounts, p, "recvcounts")?;
                    Ok(counts
                        .into_iter()
                        .zip(array(displs, p, "displs")?)
                        .collect())
                },
                leaf_buf: sendbuf as usize,
                leaf_count: sendcount,
                leaf_type: sendtype,
            };
            return intercoll::rooted(&c, r, true);
        }
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
        let s = algo::gatherv_with(
            algorithms().gatherv,
            c.my_rank,
            c.size(),
            root,
            sc,
            &rcs,
            &ds,
            in_place,
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, s, b, Reduction::None, "MPI_Gatherv")
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
        let c = any_view(comm)?;
        if c.remote.is_some() {
            let r = Rooted {
                name: "MPI_Scatter",
                root,
                root_buf: sendbuf as usize,
                root_type: sendtype,
                blocks: &|p| {
                    let n = count(sendcount, "sendcount")?;
                    Ok((0..p).map(|i| (n, i * n)).collect())
                },
                leaf_buf: recvbuf as usize,
                leaf_count: recvcount,
                leaf_type: recvtype,
            };
            return intercoll::rooted(&c, r, false);
        }
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
        let alg = named_or_selected(
            |a| a.scatter,
            |sel| {
                let block = if at_root {
                    committed(st)?.size.saturating_mul(sc)
                } else {
                    committed(rt)?.size.saturating_mul(rc)
                };
                Ok(algo::select_scatter(sel, c.size(), block))
            },
        )?;
        let s = algo::scatter_with(alg, c.my_rank, c.size(), root, sc, rc, in_place)
            .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, s, b, Reduction::None, "MPI_Scatter")
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
        let c = any_view(comm)?;
        if c.remote.is_some() {
            let r = Rooted {
                name: "MPI_Scatterv",
                root,
                root_buf: sendbuf as usize,
                root_type: sendtype,
                // SAFETY: at the root, MPI requires arrays of remote-size
                // entries.
                blocks: &|p| unsafe {
                    let counts = array(sendcounts, p, "sendcounts")?;
                    Ok(counts
                        .into_iter()
                        .zip(array(displs, p, "displs")?)
                        .collect())
                },
                leaf_buf: recvbuf as usize,
                leaf_count: recvcount,
                leaf_type: recvtype,
            };
            return intercoll::rooted(&c, r, false);
        }
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
        let s = algo::scatterv_with(
            algorithms().scatterv,
            c.my_rank,
            c.size(),
            root,
            &scs,
            &ds,
            rc,
            in_place,
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: rt,
        };
        execute(&c, s, b, Reduction::None, "MPI_Scatterv")
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
        let c = any_view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        if c.remote.is_some() {
            intercoll::no_in_place(in_place, "MPI_Allgather")?;
            let p = c.peer_group().size();
            let (sc, rc) = (
                count(sendcount, "sendcount")?,
                count(recvcount, "recvcount")?,
            );
            let send = vec![(sendbuf as usize, sc); p];
            let displs: Vec<usize> = (0..p).map(|i| i * rc).collect();
            let recv = intercoll::blocks(recvbuf as usize, recvtype, &vec![rc; p], &displs)?;
            return intercoll::all_pairs(&c, "MPI_Allgather", &send, sendtype, &recv, recvtype);
        }
        let sc = if in_place {
            0
        } else {
            count(sendcount, "sendcount")?
        };
        let rc = count(recvcount, "recvcount")?;
        let st = if in_place { recvtype } else { sendtype };
        check_type(st)?;
        check_type(recvtype)?;
        let alg = named_or_selected(
            |a| a.allgather,
            |sel| {
                let total = committed(recvtype)?
                    .size
                    .saturating_mul(rc)
                    .saturating_mul(c.size());
                Ok(algo::select_allgather(sel, c.size(), total))
            },
        )?;
        let s =
            algo::allgather_with(alg, c.my_rank, c.size(), sc, rc, in_place).map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, s, b, Reduction::None, "MPI_Allgather")
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
        let c = any_view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        if c.remote.is_some() {
            intercoll::no_in_place(in_place, "MPI_Allgatherv")?;
            let p = c.peer_group().size();
            let sc = count(sendcount, "sendcount")?;
            // SAFETY: MPI requires arrays of remote-size entries.
            let (rcs, ds) = unsafe {
                (
                    array(recvcounts, p, "recvcounts")?,
                    array(displs, p, "displs")?,
                )
            };
            let send = vec![(sendbuf as usize, sc); p];
            let recv = intercoll::blocks(recvbuf as usize, recvtype, &rcs, &ds)?;
            return intercoll::all_pairs(&c, "MPI_Allgatherv", &send, sendtype, &recv, recvtype);
        }
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
        let total: usize = rcs.iter().sum();
        let rty = committed(recvtype)?;
        let alg = named_or_selected(
            |a| a.allgatherv,
            |sel| {
                let bytes = rty.size.saturating_mul(total);
                Ok(algo::select_allgatherv(sel, c.size(), total, bytes))
            },
        )?;
        let extent = usize::try_from(rty.extent).unwrap_or(1);
        let s = if alg == algo::AllgathervAlgorithm::Gb {
            // SimGrid's GB broadcasts with whatever bcast is selected.
            let whole = (0..c.size()).map(|i| ds[i] + rcs[i]).max().unwrap_or(0);
            let bcast = named_or_selected(
                |a| a.bcast,
                |sel| {
                    Ok(algo::select_bcast(
                        sel,
                        c.size(),
                        whole.saturating_mul(rty.size),
                    ))
                },
            )?;
            algo::allgatherv_gb(
                c.my_rank,
                c.size(),
                sc,
                &rcs,
                &ds,
                in_place,
                bcast,
                rty.size,
            )
        } else {
            algo::allgatherv_with(alg, c.my_rank, c.size(), sc, &rcs, &ds, in_place, extent)
        }
        .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, s, b, Reduction::None, "MPI_Allgatherv")
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
        let c = any_view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        if c.remote.is_some() {
            intercoll::no_in_place(in_place, "MPI_Alltoall")?;
            let p = c.peer_group().size();
            let (sc, rc) = (
                count(sendcount, "sendcount")?,
                count(recvcount, "recvcount")?,
            );
            let at = |n: usize| (0..p).map(|i| i * n).collect::<Vec<_>>();
            let send = intercoll::blocks(sendbuf as usize, sendtype, &vec![sc; p], &at(sc))?;
            let recv = intercoll::blocks(recvbuf as usize, recvtype, &vec![rc; p], &at(rc))?;
            return intercoll::all_pairs(&c, "MPI_Alltoall", &send, sendtype, &recv, recvtype);
        }
        let rc = count(recvcount, "recvcount")?;
        let sc = if in_place {
            rc
        } else {
            count(sendcount, "sendcount")?
        };
        let st = if in_place { recvtype } else { sendtype };
        check_type(st)?;
        check_type(recvtype)?;
        let alg = named_or_selected(
            |a| a.alltoall,
            |sel| {
                let block = committed(st)?.size.saturating_mul(sc);
                Ok(algo::select_alltoall(sel, c.size(), block))
            },
        )?;
        let s = algo::alltoall_with(
            alg,
            c.my_rank,
            c.size(),
            sc,
            rc,
            in_place,
            algorithms().radix,
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, s, b, Reduction::None, "MPI_Alltoall")
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
        let c = any_view(comm)?;
        let in_place = sendbuf as usize == IN_PLACE;
        if c.remote.is_some() {
            intercoll::no_in_place(in_place, "MPI_Alltoallv")?;
            let p = c.peer_group().size();
            // SAFETY: MPI requires arrays of remote-size entries.
            let (scs, sds, rcs, rds) = unsafe {
                (
                    array(sendcounts, p, "sendcounts")?,
                    array(sdispls, p, "sdispls")?,
                    array(recvcounts, p, "recvcounts")?,
                    array(rdispls, p, "rdispls")?,
                )
            };
            let send = intercoll::blocks(sendbuf as usize, sendtype, &scs, &sds)?;
            let recv = intercoll::blocks(recvbuf as usize, recvtype, &rcs, &rds)?;
            return intercoll::all_pairs(&c, "MPI_Alltoallv", &send, sendtype, &recv, recvtype);
        }
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
        let mut alg = named_or_selected(|a| a.alltoallv, |sel| Ok(algo::select_alltoallv(sel, p)))?;
        if alg == algo::AlltoallvAlgorithm::CrystalRouter {
            // Its messages depend on what arrives: the engine runs it, as
            // a blocking call only (a non-blocking one runs the default).
            if !crate::mpi::coll::starting_nonblocking() {
                let send = intercoll::blocks(sendbuf as usize, st, &scs, &sds)?;
                let recv = intercoll::blocks(recvbuf as usize, recvtype, &rcs, &rds)?;
                return alltoallv_crystal(&c, &send, st, &recv, recvtype);
            }
            alg = algo::AlltoallvAlgorithm::Default;
        }
        let s = algo::alltoallv_with(
            alg,
            c.my_rank,
            p,
            &scs,
            &sds,
            &rcs,
            &rds,
            in_place,
            algorithms().radix,
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: sendbuf as usize,
            send_type: st,
            recv: recvbuf as usize,
            recv_type: recvtype,
        };
        execute(&c, s, b, Reduction::None, "MPI_Alltoallv")
    })
}

/// `MPI_Alltoallv` by the crystal router: every outgoing block is packed
/// first (in place, they are read before anything lands), routed, then
/// unpacked into its slot. `send` and `recv` are (address, count) per rank.
fn alltoallv_crystal(
    c: &CommView,
    send: &[(usize, usize)],
    sendtype: c_int,
    recv: &[(usize, usize)],
    recvtype: c_int,
) -> MpiResult<()> {
    use crate::mpi::crystal::{self, Record};
    let (sty, rty) = (committed(sendtype)?, committed(recvtype)?);
    let me = c.my_rank;
    let mut records = Vec::new();
    let mut own = Vec::new();
    for (dest, &(addr, n)) in send.iter().enumerate() {
        let mut data = Vec::new();
        // SAFETY: MPI's contract: n elements of the send type at addr.
        unsafe { crate::mpi::datatype::pack(&sty, addr as *const c_void, n, &mut data) };
        if dest == me {
            own = data;
        } else if !data.is_empty() {
            records.push(Record {
                dest,
                src: me,
                data,
            });
        }
    }
    let mut arrived = crystal::route(c, records, "MPI_Alltoallv")?;
    arrived.push(Record {
        dest: me,
        src: me,
        data: own,
    });
    for r in arrived {
        let (addr, n) = recv[r.src];
        if r.data.len() > n * rty.size {
            return Err(MpiError::new(
                class::TRUNCATE,
                format!(
                    "MPI_Alltoallv: rank {} sent {} bytes where recvcounts[{}] allows {} \
                     (counts differ between ranks?)",
                    r.src,
                    r.data.len(),
                    r.src,
                    n * rty.size
                ),
            ));
        }
        // SAFETY: the data fits the n elements of the receive type at addr
        // (checked above), which MPI's contract makes writable.
        unsafe { crate::mpi::datatype::unpack(&rty, addr as *mut c_void, &r.data) };
    }
    Ok(())
}

/// The shared steps of the reductions: check, build the schedule with
/// `build(view, in_place)`, run it with `op`; on an intercommunicator,
/// `inter` does the call with the caller's contribution (its count is left
/// to `inter`).
#[allow(clippy::too_many_arguments)]
fn reduction(
    name: &'static str,
    comm: c_int,
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    datatype: c_int,
    op: c_int,
    build: impl FnOnce(&CommView, bool, bool) -> MpiResult<collectives::Schedule>,
    inter: impl FnOnce(&CommView, Contribution) -> MpiResult<()>,
) -> c_int {
    call(name, comm, || {
        let c = any_view(comm)?;
        let op = sim::mpi(|w| w.mpi.reduce_op(op))?;
        crate::mpi::coll::check_reduction(op, &*committed(datatype)?)?;
        let in_place = sendbuf as usize == IN_PLACE;
        if c.remote.is_some() {
            intercoll::no_in_place(in_place, name)?;
            let x = Contribution {
                sendbuf: sendbuf as usize,
                count: 0,
                dt: datatype,
                op,
            };
            return inter(&c, x);
        }
        let b = Buffers {
            send: sendbuf as usize,
            send_type: datatype,
            recv: recvbuf as usize,
            recv_type: datatype,
        };
        let s = build(&c, in_place, op.commutative())?;
        execute(&c, s, b, Reduction::Op(op), name)
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
        |c, in_place, commutative| {
            let n = count(n, "count")?;
            let root = root_of(c, root)?;
            let ty = committed(datatype)?;
            let alg = named_or_selected(
                |a| a.reduce,
                |sel| {
                    let bytes = ty.size.saturating_mul(n);
                    Ok(algo::select_reduce(sel, c.size(), n, bytes, commutative))
                },
            )?;
            algo::reduce_with(
                alg,
                c.my_rank,
                c.size(),
                root,
                n,
                commutative,
                in_place && c.my_rank == root,
                ty.size,
            )
            .map_err(coll_error)
        },
        |c, x| {
            let x = Contribution {
                count: count(n, "count")?,
                ..x
            };
            intercoll::reduce(c, x, recvbuf as usize, root)
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
        |c, in_place, commutative| {
            let n = count(n, "count")?;
            let ty = committed(datatype)?;
            let bytes = ty.size.saturating_mul(n);
            let alg = named_or_selected(
                |a| a.allreduce,
                |sel| Ok(algo::select_allreduce(sel, c.size(), n, bytes, commutative)),
            )?;
            if alg == algo::AllreduceAlgorithm::Redbcast {
                // SimGrid's redbcast runs the selected reduce and bcast.
                let reduce = named_or_selected(
                    |a| a.reduce,
                    |sel| Ok(algo::select_reduce(sel, c.size(), n, bytes, commutative)),
                )?;
                let bcast = named_or_selected(
                    |a| a.bcast,
                    |sel| Ok(algo::select_bcast(sel, c.size(), bytes)),
                )?;
                return algo::allreduce_redbcast(
                    c.my_rank,
                    c.size(),
                    n,
                    commutative,
                    in_place,
                    reduce,
                    bcast,
                    ty.size,
                )
                .map_err(coll_error);
            }
            algo::allreduce_with(
                alg,
                c.my_rank,
                c.size(),
                n,
                commutative,
                in_place,
                algorithms().radix,
                committed(datatype)?.size,
            )
            .map_err(coll_error)
        },
        |c, x| {
            let x = Contribution {
                count: count(n, "count")?,
                ..x
            };
            intercoll::allreduce(c, x, recvbuf as usize)
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
        |c, in_place, commutative| {
            let n = count(recvcount, "recvcount")?;
            algo::reduce_scatter_block_with(
                algorithms().reduce_scatter_block,
                c.my_rank,
                c.size(),
                n,
                commutative,
                in_place,
            )
            .map_err(coll_error)
        },
        |c, x| {
            let counts = vec![count(recvcount, "recvcount")?; c.size()];
            let name = "MPI_Reduce_scatter_block";
            intercoll::reduce_scatter(c, name, x, recvbuf as usize, &counts)
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
        |c, in_place, commutative| {
            // SAFETY: MPI requires an array of comm-size entries.
            let rcs = unsafe { array(recvcounts, c.size(), "recvcounts")? };
            let total: usize = rcs.iter().sum();
            let alg = named_or_selected(
                |a| a.reduce_scatter,
                |sel| {
                    let bytes = committed(datatype)?.size.saturating_mul(total);
                    Ok(algo::select_reduce_scatter(
                        sel,
                        c.size(),
                        total,
                        bytes,
                        commutative,
                    ))
                },
            )?;
            algo::reduce_scatter_with(alg, c.my_rank, c.size(), &rcs, commutative, in_place)
                .map_err(coll_error)
        },
        |c, x| {
            // SAFETY: MPI requires an array of local-size entries.
            let counts = unsafe { array(recvcounts, c.size(), "recvcounts")? };
            intercoll::reduce_scatter(c, "MPI_Reduce_scatter", x, recvbuf as usize, &counts)
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
        |c, in_place, commutative| {
            let n = count(n, "count")?;
            algo::scan_with(
                algorithms().scan,
                c.my_rank,
                c.size(),
                n,
                commutative,
                in_place,
            )
            .map_err(coll_error)
        },
        |_, _| Err(not_on_intercomm("MPI_Scan")),
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
        |c, in_place, commutative| {
            let n = count(n, "count")?;
            algo::exscan_with(
                algorithms().exscan,
                c.my_rank,
                c.size(),
                n,
                commutative,
                in_place,
            )
            .map_err(coll_error)
        },
        |_, _| Err(not_on_intercomm("MPI_Exscan")),
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
        let args = [
            sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes,
        ];
        // SAFETY: the caller's arguments, as MPI_Alltoallw defines them.
        let (c, transfers, staged) =
            unsafe { alltoallw_plan(sendbuf, recvbuf, args, comm, "MPI_Alltoallw")? };
        let tag = sim::mpi(|w| w.next_coll_tag(comm));
        intercoll::exchange(&c, tag, transfers, "MPI_Alltoallw")?;
        drop(staged);
        Ok(())
    })
}

/// MPI_Ialltoallw: the same messages as MPI_Alltoallw, posted at once
/// under one request (one round, so no progress is needed); the staged
/// copy of an in-place send buffer lives as long as the request.
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
    // On an intercommunicator, MPI_Alltoallw's steps, recorded.
    if any_view(comm).is_ok_and(|v| v.remote.is_some()) {
        // SAFETY: the caller's arguments, passed on unchanged.
        return nonblocking("MPI_Ialltoallw", comm, request, || unsafe {
            MPI_Alltoallw(
                sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                comm,
            )
        });
    }
    call("MPI_Ialltoallw", comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        let args = [
            sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes,
        ];
        // SAFETY: the caller's arguments, as MPI_Ialltoallw defines them.
        let (c, transfers, staged) =
            unsafe { alltoallw_plan(sendbuf, recvbuf, args, comm, "MPI_Ialltoallw")? };
        let id = sim::mpi(|w| -> MpiResult<crate::mpi::ReqId> {
            let tag = w.next_coll_tag(comm);
            let mut ids = Vec::with_capacity(transfers.len());
            for t in &transfers {
                let kind = if t.send {
                    crate::mpi::ReqKind::Send(crate::mpi::SendMode::Standard)
                } else {
                    crate::mpi::ReqKind::Recv
                };
                let id = w.new_internal_request(
                    kind,
                    &c,
                    c.ctx + 1,
                    t.addr,
                    t.count,
                    Rc::clone(&t.dtype),
                    t.peer as i32,
                    tag,
                );
                w.start(id)?;
                ids.push(id);
            }
            let id = w.new_compound(ids, Some(staged));
            w.mpi.request_mut(id).active = true;
            Ok(id)
        })?;
        // SAFETY: checked non-null above; MPI requires it writable.
        unsafe { out(request, (id + 1) as c_int, "request") }
    })
}

/// The messages of an all-to-all with per-peer counts, displacements and
/// datatypes: receives first, then sends, and the staged copy of the data
/// to send when it is sent in place. `args` are sendcounts, sdispls,
/// sendtypes, recvcounts, rdispls and recvtypes.
///
/// # Safety
/// The buffers and arrays must be as MPI_Alltoallw requires.
unsafe fn alltoallw_plan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    args: [*const c_int; 6],
    comm: c_int,
    name: &'static str,
) -> MpiResult<(CommView, Vec<Transfer>, Vec<u8>)> {
    let [sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes] = args;
    let c = any_view(comm)?;
    // On an intercommunicator the arrays name the remote group's ranks.
    let p = c.peer_group().size();
    let in_place = sendbuf as usize == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, name)?;
    }
    // SAFETY: MPI requires arrays of comm-size entries.
    let (rcs, rds, rts) = unsafe {
        (
            array(recvcounts, p, "recvcounts")?,
            array(rdispls, p, "rdispls")?,
            handles(recvtypes, p, "recvtypes")?,
        )
    };
    // In place, the data to send is read from the receive buffer: copy it
    // first so the receives can overwrite it.
    let mut staged: Vec<u8> = Vec::new();
    let (scs, sds, sts, sbase) = if in_place {
        let mut offsets = Vec::with_capacity(p);
        for i in 0..p {
            let t = sim::mpi(|w| w.mpi.datatype(rts[i]).map(Rc::clone))?;
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
    let mut transfers = Vec::with_capacity(2 * p);
    for i in 0..p {
        let t = committed(rts[i])?;
        transfers.push(Transfer::recv(i, recvbuf as usize + rds[i], rcs[i], &t));
    }
    for i in 0..p {
        let t = committed(sts[i])?;
        transfers.push(Transfer::send(i, sbase + sds[i], scs[i], &t));
    }
    Ok((c, transfers, staged))
}

/// MPI_Op_create: a user reduction, `func(in, inout, &len, &datatype)`.
pub(crate) unsafe extern "C" fn MPI_Op_create(
    func: Option<UserFunction>,
    commute: c_int,
    op: *mut c_int,
) -> c_int {
    call("MPI_Op_create", crate::mpi::COMM_WORLD, || {
        let func =
            func.ok_or_else(|| MpiError::new(class::ARG, "the function is a null pointer"))?;
        let handle = sim::mpi(|w| {
            let ops = &mut w.mpi.user_ops;
            ops.push(Some(ReduceOp::User {
                func,
                commute: commute != 0,
            }));
            op::FIRST_USER_OP + (ops.len() - 1) as i32
        });
        // SAFETY: MPI requires a writable handle.
        unsafe { out(op, handle, "op") }
    })
}

/// MPI_Op_free: forgets a user operation and sets the handle to
/// MPI_OP_NULL. Predefined operations cannot be freed.
pub(crate) unsafe extern "C" fn MPI_Op_free(op: *mut c_int) -> c_int {
    call("MPI_Op_free", crate::mpi::COMM_WORLD, || {
        if op.is_null() {
            return Err(MpiError::new(class::ARG, "op is a null pointer"));
        }
        // SAFETY: non-null, and MPI requires a valid handle there.
        let handle = unsafe { *op };
        sim::mpi(|w| -> MpiResult<()> {
            if let ReduceOp::Builtin(b) = w.mpi.reduce_op(handle)? {
                return Err(MpiError::new(
                    class::OP,
                    format!("{} is predefined and cannot be freed", b.name()),
                ));
            }
            w.mpi.user_ops[(handle - op::FIRST_USER_OP) as usize] = None;
            Ok(())
        })?;
        // SAFETY: as above.
        unsafe { out(op, 0, "op") }
    })
}

/// MPI_Op_commutative: whether the algorithms may reorder the operation.
pub(crate) unsafe extern "C" fn MPI_Op_commutative(op: c_int, commute: *mut c_int) -> c_int {
    call("MPI_Op_commutative", crate::mpi::COMM_WORLD, || {
        let o = sim::mpi(|w| w.mpi.reduce_op(op))?;
        // SAFETY: MPI requires a writable flag.
        unsafe { out(commute, c_int::from(o.commutative()), "commute") }
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
    call("MPI_Reduce_local", crate::mpi::COMM_WORLD, || {
        let n = count(n, "count")?;
        let ty = committed(datatype)?;
        let o = sim::mpi(|w| w.mpi.reduce_op(op))?;
        crate::mpi::coll::check_reduction(o, &ty)?;
        crate::mpi::coll::reduce_local(o, &ty, datatype, inbuf as usize, inoutbuf as usize, n)?;
        crate::mpi::coll::charge_reduction(n * ty.size);
        Ok(())
    })
}

/// Starts a non-blocking collective: the blocking twin `blocking` builds
/// the very same schedule, which `execute` then starts instead of running
/// (see `mpi::coll::start_nonblocking`). On an intercommunicator the twin
/// chains several steps, which it records instead of running, and they
/// run one after the other (`mpi::nbc::start_recorded`). Errors the twin
/// finds name the twin.
fn nonblocking(
    name: &'static str,
    comm: c_int,
    request: *mut c_int,
    blocking: impl FnOnce() -> c_int,
) -> c_int {
    let mut inter = None;
    let checked = call(name, comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        let view = any_view(comm)?;
        if view.remote.is_some() {
            inter = Some(view);
        }
        Ok(())
    });
    if checked != class::SUCCESS {
        return checked;
    }
    if let Some(view) = inter {
        return match crate::mpi::nbc::start_recorded(&view, name, blocking) {
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
    unsafe { crate::mpi::coll::start_nonblocking(request, blocking) }
}

/// MPI_Ibarrier: MPI_Barrier's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ibarrier(comm: c_int, request: *mut c_int) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ibarrier", comm, request, || unsafe {
        MPI_Barrier(comm)
    })
}

/// MPI_Ibcast: MPI_Bcast's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ibcast(
    buffer: *mut c_void,
    n: c_int,
    datatype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ibcast", comm, request, || unsafe {
        MPI_Bcast(buffer, n, datatype, root, comm)
    })
}

/// MPI_Igather: MPI_Gather's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Igather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Igather", comm, request, || unsafe {
        MPI_Gather(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
        )
    })
}

/// MPI_Igatherv: MPI_Gatherv's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Igatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Igatherv", comm, request, || unsafe {
        MPI_Gatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
        )
    })
}

/// MPI_Iscatter: MPI_Scatter's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iscatter(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iscatter", comm, request, || unsafe {
        MPI_Scatter(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
        )
    })
}

/// MPI_Iscatterv: MPI_Scatterv's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iscatterv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    displs: *const c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iscatterv", comm, request, || unsafe {
        MPI_Scatterv(
            sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
        )
    })
}

/// MPI_Iallgather: MPI_Allgather's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iallgather(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iallgather", comm, request, || unsafe {
        MPI_Allgather(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
        )
    })
}

/// MPI_Iallgatherv: MPI_Allgatherv's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iallgatherv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    displs: *const c_int,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iallgatherv", comm, request, || unsafe {
        MPI_Allgatherv(
            sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
        )
    })
}

/// MPI_Ialltoall: MPI_Alltoall's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ialltoall(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ialltoall", comm, request, || unsafe {
        MPI_Alltoall(
            sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
        )
    })
}

/// MPI_Ialltoallv: MPI_Alltoallv's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ialltoallv(
    sendbuf: *const c_void,
    sendcounts: *const c_int,
    sdispls: *const c_int,
    sendtype: c_int,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    rdispls: *const c_int,
    recvtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ialltoallv", comm, request, || unsafe {
        MPI_Alltoallv(
            sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
        )
    })
}

/// MPI_Ireduce: MPI_Reduce's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ireduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    root: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ireduce", comm, request, || unsafe {
        MPI_Reduce(sendbuf, recvbuf, n, datatype, op, root, comm)
    })
}

/// MPI_Iallreduce: MPI_Allreduce's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iallreduce(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iallreduce", comm, request, || unsafe {
        MPI_Allreduce(sendbuf, recvbuf, n, datatype, op, comm)
    })
}

/// MPI_Ireduce_scatter: MPI_Reduce_scatter's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ireduce_scatter(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcounts: *const c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ireduce_scatter", comm, request, || unsafe {
        MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm)
    })
}

/// MPI_Ireduce_scatter_block: MPI_Reduce_scatter_block's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Ireduce_scatter_block(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    recvcount: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Ireduce_scatter_block", comm, request, || unsafe {
        MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm)
    })
}

/// MPI_Iscan: MPI_Scan's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iscan", comm, request, || unsafe {
        MPI_Scan(sendbuf, recvbuf, n, datatype, op, comm)
    })
}

/// MPI_Iexscan: MPI_Exscan's schedule, run as a non-blocking collective.
pub(crate) unsafe extern "C" fn MPI_Iexscan(
    sendbuf: *const c_void,
    recvbuf: *mut c_void,
    n: c_int,
    datatype: c_int,
    op: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    // SAFETY: the caller's arguments, passed on unchanged.
    nonblocking("MPI_Iexscan", comm, request, || unsafe {
        MPI_Exscan(sendbuf, recvbuf, n, datatype, op, comm)
    })
}

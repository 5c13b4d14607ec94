//! Neighbourhood collectives on communicators with a topology: every rank
//! exchanges with its in- and out-neighbours in one round of point-to-point
//! messages on the communicator's collective context. The non-blocking
//! forms return the compound request of that round; the blocking forms
//! wait for it.

use std::ffi::{c_int, c_void};
use std::rc::Rc;

use super::{call, out, read_array as array};
use crate::mpi::comm::Neighbours;
use crate::mpi::{
    self, class, is_complete, wait_for, MpiError, MpiResult, ReqId, ReqKind, SendMode,
};
use crate::sim;

/// One message of the exchange: a neighbour (or MPI_PROC_NULL), the
/// direction tag that pairs it with the peer's message, and its buffer.
struct Part {
    peer: i32,
    direction: i32,
    addr: usize,
    count: i64,
    dtype: c_int,
}

fn neighbours(comm: c_int, call_name: &str) -> MpiResult<Neighbours> {
    sim::mpi(|w| {
        let v = w.comm(comm)?;
        if v.remote.is_some() {
            return Err(MpiError::new(
                class::COMM,
                format!("{call_name} needs an intracommunicator"),
            ));
        }
        match w.topology(comm)? {
            Some(t) => Ok(t.neighbours(v.my_rank)),
            None => Err(MpiError::new(
                class::TOPOLOGY,
                format!("{call_name}: {} has no topology", mpi::comm_name(comm)),
            )),
        }
    })
}

/// Posts the round: all receives, then all sends; returns the request
/// that completes with all of them.
fn post(comm: c_int, recvs: Vec<Part>, sends: Vec<Part>) -> MpiResult<ReqId> {
    sim::mpi(|w| {
        let view = w.comm(comm)?;
        let tag = w.next_coll_tag_in(view.ctx);
        let mut ids = Vec::with_capacity(recvs.len() + sends.len());
        let parts = recvs.into_iter().map(|p| (ReqKind::Recv, p)).chain(
            sends
                .into_iter()
                .map(|p| (ReqKind::Send(SendMode::Standard), p)),
        );
        for (kind, p) in parts {
            let count = usize::try_from(p.count)
                .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {}", p.count)))?;
            let ty = Rc::clone(w.mpi.datatype(p.dtype)?);
            if !ty.committed {
                return Err(MpiError::new(
                    class::TYPE,
                    format!("datatype {} is not committed", ty.name),
                ));
            }
            let id = w.new_internal_request(
                kind,
                &view,
                view.ctx + 1,
                p.addr,
                count,
                ty,
                p.peer,
                tag | (p.direction << 30),
            );
            ids.push(id);
        }
        for &id in &ids {
            w.start(id)?;
        }
        if ids.is_empty() {
            // No neighbours: a request that is complete already.
            let byte = Rc::clone(w.mpi.datatype(4)?);
            let id = w.new_internal_request(
                ReqKind::Compound,
                &view,
                view.ctx + 1,
                0,
                0,
                byte,
                mpi::PROC_NULL,
                tag,
            );
            w.mpi.request_mut(id).active = true;
            w.complete(id, mpi::Status::empty());
            return Ok(id);
        }
        let id = w.new_compound(ids, None);
        w.mpi.request_mut(id).active = true;
        Ok(id)
    })
}

/// Runs the round to completion (the blocking forms).
fn run(name: &'static str, comm: c_int, recvs: Vec<Part>, sends: Vec<Part>) -> MpiResult<()> {
    let id = post(comm, recvs, sends)?;
    wait_for(&[id], name, |w| is_complete(w, id));
    let truncated = sim::mpi(|w| {
        let bad = w
            .mpi
            .request(id)
            .children
            .iter()
            .any(|&c| w.mpi.request(c).status.error != 0);
        w.mpi.remove_request(id);
        bad
    });
    if truncated {
        return Err(MpiError::new(
            class::TRUNCATE,
            format!("{name}: a message was truncated (counts differ between neighbours?)"),
        ));
    }
    Ok(())
}

/// Runs or posts the round, per `request`.
fn start(
    name: &'static str,
    comm: c_int,
    recvs: Vec<Part>,
    sends: Vec<Part>,
    request: Option<*mut c_int>,
) -> MpiResult<()> {
    match request {
        None => run(name, comm, recvs, sends),
        Some(r) => {
            if r.is_null() {
                return Err(MpiError::new(class::ARG, "request is a null pointer"));
            }
            let id = post(comm, recvs, sends)?;
            // SAFETY: non-null output argument.
            unsafe { out(r, id as c_int + 1, "request") }
        }
    }
}

fn extent(dtype: c_int) -> MpiResult<isize> {
    sim::mpi(|w| w.mpi.datatype(dtype).map(|t| t.extent))
}

/// The same block of `sendbuf` to every out-neighbour, block i of
/// `recvbuf` from in-neighbour i (allgather); or block j to out-neighbour
/// j (alltoall).
#[allow(clippy::too_many_arguments)]
fn uniform(
    name: &'static str,
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcount: c_int,
    rtype: c_int,
    comm: c_int,
    all_to_all: bool,
    request: Option<*mut c_int>,
) -> c_int {
    call(name, comm, || {
        let (ins, outs) = neighbours(comm, name)?;
        let (sx, rx) = (extent(stype)?, extent(rtype)?);
        let recvs = ins
            .iter()
            .enumerate()
            .map(|(i, &(peer, direction))| Part {
                peer,
                direction,
                addr: (recvbuf as usize).wrapping_add((i as isize * rcount as isize * rx) as usize),
                count: i64::from(rcount),
                dtype: rtype,
            })
            .collect();
        let sends = outs
            .iter()
            .enumerate()
            .map(|(j, &(peer, direction))| {
                let block = if all_to_all { j as isize } else { 0 };
                Part {
                    peer,
                    direction,
                    addr: (sendbuf as usize).wrapping_add((block * scount as isize * sx) as usize),
                    count: i64::from(scount),
                    dtype: stype,
                }
            })
            .collect();
        start(name, comm, recvs, sends, request)
    })
}

/// Counts and displacements per neighbour (alltoallv and alltoallw):
/// displacements in elements of the datatype, or in bytes for the w form.
#[allow(clippy::too_many_arguments)]
fn varying(
    name: &'static str,
    sendbuf: *const c_void,
    scounts: Vec<c_int>,
    sdispls: Vec<isize>,
    stypes: Vec<c_int>,
    recvbuf: *mut c_void,
    rcounts: Vec<c_int>,
    rdispls: Vec<isize>,
    rtypes: Vec<c_int>,
    comm: c_int,
    bytes: bool,
    request: Option<*mut c_int>,
) -> MpiResult<()> {
    let (ins, outs) = neighbours(comm, name)?;
    let offset = |base: usize, disp: isize, dtype: c_int| -> MpiResult<usize> {
        let unit = if bytes { 1 } else { extent(dtype)? };
        Ok(base.wrapping_add((disp * unit) as usize))
    };
    let mut recvs = Vec::with_capacity(ins.len());
    for (i, &(peer, direction)) in ins.iter().enumerate() {
        recvs.push(Part {
            peer,
            direction,
            addr: offset(recvbuf as usize, rdispls[i], rtypes[i])?,
            count: i64::from(rcounts[i]),
            dtype: rtypes[i],
        });
    }
    let mut sends = Vec::with_capacity(outs.len());
    for (j, &(peer, direction)) in outs.iter().enumerate() {
        sends.push(Part {
            peer,
            direction,
            addr: offset(sendbuf as usize, sdispls[j], stypes[j])?,
            count: i64::from(scounts[j]),
            dtype: stypes[j],
        });
    }
    start(name, comm, recvs, sends, request)
}

#[allow(clippy::too_many_arguments)]
fn allgatherv(
    name: &'static str,
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    displs: *const c_int,
    rtype: c_int,
    comm: c_int,
    request: Option<*mut c_int>,
) -> c_int {
    call(name, comm, || {
        let (ins, outs) = neighbours(comm, name)?;
        // SAFETY: MPI passes one count and displacement per in-neighbour.
        let (rc, rd) = unsafe {
            (
                array(rcounts, ins.len(), "recvcounts")?,
                array(displs, ins.len(), "displs")?,
            )
        };
        let sends = outs
            .iter()
            .map(|&(peer, direction)| Part {
                peer,
                direction,
                addr: sendbuf as usize,
                count: i64::from(scount),
                dtype: stype,
            })
            .collect();
        let rx = extent(rtype)?;
        let recvs = ins
            .iter()
            .enumerate()
            .map(|(i, &(peer, direction))| Part {
                peer,
                direction,
                addr: (recvbuf as usize).wrapping_add((rd[i] as isize * rx) as usize),
                count: i64::from(rc[i]),
                dtype: rtype,
            })
            .collect();
        start(name, comm, recvs, sends, request)
    })
}

#[allow(clippy::too_many_arguments)]
fn alltoallv(
    name: &'static str,
    sendbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rtype: c_int,
    comm: c_int,
    request: Option<*mut c_int>,
) -> c_int {
    call(name, comm, || {
        let (ins, outs) = neighbours(comm, name)?;
        let (ni, no) = (ins.len(), outs.len());
        // SAFETY: MPI passes one count and displacement per neighbour.
        let (sc, sd, rc, rd) = unsafe {
            (
                array(scounts, no, "sendcounts")?,
                array(sdispls, no, "sdispls")?,
                array(rcounts, ni, "recvcounts")?,
                array(rdispls, ni, "rdispls")?,
            )
        };
        varying(
            name,
            sendbuf,
            sc,
            sd.iter().map(|&d| d as isize).collect(),
            vec![stype; no],
            recvbuf,
            rc,
            rd.iter().map(|&d| d as isize).collect(),
            vec![rtype; ni],
            comm,
            false,
            request,
        )
    })
}

#[allow(clippy::too_many_arguments)]
fn alltoallw(
    name: &'static str,
    sendbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const isize,
    stypes: *const c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const isize,
    rtypes: *const c_int,
    comm: c_int,
    request: Option<*mut c_int>,
) -> c_int {
    call(name, comm, || {
        let (ins, outs) = neighbours(comm, name)?;
        let (ni, no) = (ins.len(), outs.len());
        // SAFETY: MPI passes one count, displacement and type per
        // neighbour.
        let (sc, sd, st, rc, rd, rt) = unsafe {
            (
                array(scounts, no, "sendcounts")?,
                array(sdispls, no, "sdispls")?,
                array(stypes, no, "sendtypes")?,
                array(rcounts, ni, "recvcounts")?,
                array(rdispls, ni, "rdispls")?,
                array(rtypes, ni, "recvtypes")?,
            )
        };
        varying(
            name, sendbuf, sc, sd, st, recvbuf, rc, rd, rt, comm, true, request,
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Neighbor_allgather(
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcount: c_int,
    rtype: c_int,
    comm: c_int,
) -> c_int {
    uniform(
        "MPI_Neighbor_allgather",
        sendbuf,
        scount,
        stype,
        recvbuf,
        rcount,
        rtype,
        comm,
        false,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Ineighbor_allgather(
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcount: c_int,
    rtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    uniform(
        "MPI_Ineighbor_allgather",
        sendbuf,
        scount,
        stype,
        recvbuf,
        rcount,
        rtype,
        comm,
        false,
        Some(request),
    )
}

pub(crate) unsafe extern "C" fn MPI_Neighbor_alltoall(
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcount: c_int,
    rtype: c_int,
    comm: c_int,
) -> c_int {
    uniform(
        "MPI_Neighbor_alltoall",
        sendbuf,
        scount,
        stype,
        recvbuf,
        rcount,
        rtype,
        comm,
        true,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Ineighbor_alltoall(
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcount: c_int,
    rtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    uniform(
        "MPI_Ineighbor_alltoall",
        sendbuf,
        scount,
        stype,
        recvbuf,
        rcount,
        rtype,
        comm,
        true,
        Some(request),
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Neighbor_allgatherv(
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    displs: *const c_int,
    rtype: c_int,
    comm: c_int,
) -> c_int {
    allgatherv(
        "MPI_Neighbor_allgatherv",
        sendbuf,
        scount,
        stype,
        recvbuf,
        rcounts,
        displs,
        rtype,
        comm,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Ineighbor_allgatherv(
    sendbuf: *const c_void,
    scount: c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    displs: *const c_int,
    rtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    allgatherv(
        "MPI_Ineighbor_allgatherv",
        sendbuf,
        scount,
        stype,
        recvbuf,
        rcounts,
        displs,
        rtype,
        comm,
        Some(request),
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Neighbor_alltoallv(
    sendbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rtype: c_int,
    comm: c_int,
) -> c_int {
    alltoallv(
        "MPI_Neighbor_alltoallv",
        sendbuf,
        scounts,
        sdispls,
        stype,
        recvbuf,
        rcounts,
        rdispls,
        rtype,
        comm,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Ineighbor_alltoallv(
    sendbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const c_int,
    stype: c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const c_int,
    rtype: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    alltoallv(
        "MPI_Ineighbor_alltoallv",
        sendbuf,
        scounts,
        sdispls,
        stype,
        recvbuf,
        rcounts,
        rdispls,
        rtype,
        comm,
        Some(request),
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Neighbor_alltoallw(
    sendbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const isize,
    stypes: *const c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const isize,
    rtypes: *const c_int,
    comm: c_int,
) -> c_int {
    alltoallw(
        "MPI_Neighbor_alltoallw",
        sendbuf,
        scounts,
        sdispls,
        stypes,
        recvbuf,
        rcounts,
        rdispls,
        rtypes,
        comm,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn MPI_Ineighbor_alltoallw(
    sendbuf: *const c_void,
    scounts: *const c_int,
    sdispls: *const isize,
    stypes: *const c_int,
    recvbuf: *mut c_void,
    rcounts: *const c_int,
    rdispls: *const isize,
    rtypes: *const c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    alltoallw(
        "MPI_Ineighbor_alltoallw",
        sendbuf,
        scounts,
        sdispls,
        stypes,
        recvbuf,
        rcounts,
        rdispls,
        rtypes,
        comm,
        Some(request),
    )
}

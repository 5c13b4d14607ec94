//! Neighbourhood collectives on communicators with a topology: every rank
//! exchanges with its in- and out-neighbours in one round of point-to-point
//! messages on the communicator's collective context. The non-blocking
//! forms return the compound request of that round; the blocking forms
//! wait for it.

use super::check::ArgArray;
use super::collective::{Data, VData};
use super::comm::Neighbours;
use super::{
    check, class, comm_name, is_complete, wait_for, Internal, MpiError, MpiResult, ReqId, ReqKind,
    SendMode,
};
use crate::sim;

/// A buffer with a count, a displacement in bytes and a datatype per
/// neighbour (MPI_Neighbor_alltoallw).
pub struct WData<'a> {
    pub addr: usize,
    pub counts: &'a dyn ArgArray<i32>,
    pub displs: &'a dyn ArgArray<isize>,
    pub dtypes: &'a dyn ArgArray<i32>,
}

/// How a call runs its round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// To completion (the blocking forms).
    Blocking,
    /// Posted; its request is returned (the non-blocking forms).
    Nonblocking,
}

/// One message of the exchange: a neighbour (or MPI_PROC_NULL), the
/// direction tag that pairs it with the peer's message, and its buffer.
struct Part {
    peer: i32,
    direction: i32,
    addr: usize,
    count: i64,
    dtype: i32,
}

/// The first `n` entries of an array argument (none read, so a null array
/// is fine, when there are no neighbours).
fn read<T>(a: &dyn ArgArray<T>, n: usize, what: &'static str) -> MpiResult<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    a.read(n, what)
}

fn neighbours(comm: i32, call_name: &str) -> MpiResult<Neighbours> {
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
                format!("{call_name}: {} has no topology", comm_name(comm)),
            )),
        }
    })
}

/// Posts the round: all receives, then all sends; returns the request
/// that completes with all of them.
fn post(comm: i32, recvs: Vec<Part>, sends: Vec<Part>) -> MpiResult<ReqId> {
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
            let count = check::count(p.count)?;
            let dtype = w.mpi.committed(p.dtype)?;
            let id = w.new_internal_request(
                &view,
                Internal {
                    kind,
                    ctx: view.ctx + 1,
                    buf: p.addr,
                    count,
                    dtype,
                    peer: p.peer,
                    tag: tag | (p.direction << 30),
                },
            );
            ids.push(id);
        }
        for &id in &ids {
            w.start(id)?;
        }
        if ids.is_empty() {
            // No neighbours: a request that is complete already.
            let id = w.new_dataless_request(ReqKind::Compound, &view, view.ctx + 1, tag);
            w.mpi.request_mut(id).active = true;
            w.complete(id, super::Status::empty());
            return Ok(id);
        }
        let id = w.new_compound(ids, None);
        w.mpi.request_mut(id).active = true;
        Ok(id)
    })
}

/// Runs the round to completion (the blocking forms).
fn run(name: &'static str, comm: i32, recvs: Vec<Part>, sends: Vec<Part>) -> MpiResult<()> {
    let id = post(comm, recvs, sends)?;
    wait_for(&[id], name, |w| is_complete(w, id));
    let truncated = sim::mpi(|w| {
        let bad = w
            .mpi
            .request(id)
            .children()
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

/// Runs or posts the round, per `mode`; the request when posted.
fn start(
    name: &'static str,
    comm: i32,
    recvs: Vec<Part>,
    sends: Vec<Part>,
    mode: Mode,
) -> MpiResult<Option<ReqId>> {
    match mode {
        Mode::Blocking => run(name, comm, recvs, sends).map(|()| None),
        Mode::Nonblocking => post(comm, recvs, sends).map(Some),
    }
}

fn extent(dtype: i32) -> MpiResult<isize> {
    sim::mpi(|w| w.mpi.datatype(dtype).map(|t| t.extent))
}

/// Block `index` of `count` elements of `extent` bytes from `base`.
fn block(base: usize, index: isize, count: i32, extent: isize) -> usize {
    base.wrapping_add((index * count as isize * extent) as usize)
}

/// MPI_Neighbor_allgather (the same block of `send` to every
/// out-neighbour, block i of `recv` from in-neighbour i) or, with
/// `all_to_all`, MPI_Neighbor_alltoall (block j to out-neighbour j).
pub fn uniform(
    name: &'static str,
    comm: i32,
    send: Data,
    recv: Data,
    all_to_all: bool,
    mode: Mode,
) -> MpiResult<Option<ReqId>> {
    let (ins, outs) = neighbours(comm, name)?;
    let (sx, rx) = (extent(send.dtype)?, extent(recv.dtype)?);
    let recvs = ins
        .iter()
        .enumerate()
        .map(|(i, &(peer, direction))| Part {
            peer,
            direction,
            addr: block(recv.addr, i as isize, recv.count, rx),
            count: i64::from(recv.count),
            dtype: recv.dtype,
        })
        .collect();
    let sends = outs
        .iter()
        .enumerate()
        .map(|(j, &(peer, direction))| Part {
            peer,
            direction,
            addr: block(
                send.addr,
                if all_to_all { j as isize } else { 0 },
                send.count,
                sx,
            ),
            count: i64::from(send.count),
            dtype: send.dtype,
        })
        .collect();
    start(name, comm, recvs, sends, mode)
}

/// MPI_Neighbor_allgatherv.
pub fn allgatherv(
    name: &'static str,
    comm: i32,
    send: Data,
    recv: &VData,
    mode: Mode,
) -> MpiResult<Option<ReqId>> {
    let (ins, outs) = neighbours(comm, name)?;
    let rc = read(recv.counts, ins.len(), "recvcounts")?;
    let rd = read(recv.displs, ins.len(), "displs")?;
    let sends = outs
        .iter()
        .map(|&(peer, direction)| Part {
            peer,
            direction,
            addr: send.addr,
            count: i64::from(send.count),
            dtype: send.dtype,
        })
        .collect();
    let rx = extent(recv.dtype)?;
    let recvs = ins
        .iter()
        .enumerate()
        .map(|(i, &(peer, direction))| Part {
            peer,
            direction,
            addr: recv.addr.wrapping_add((rd[i] as isize * rx) as usize),
            count: i64::from(rc[i]),
            dtype: recv.dtype,
        })
        .collect();
    start(name, comm, recvs, sends, mode)
}

/// One side of a per-neighbour exchange: counts, displacements (in
/// elements of the datatype, or in bytes) and a datatype per neighbour.
struct Varying {
    addr: usize,
    counts: Vec<i32>,
    displs: Vec<isize>,
    dtypes: Vec<i32>,
}

/// The exchange of alltoallv and alltoallw; `bytes`: displacements in
/// bytes (the w form).
fn varying(
    name: &'static str,
    comm: i32,
    (ins, outs): Neighbours,
    send: Varying,
    recv: Varying,
    bytes: bool,
    mode: Mode,
) -> MpiResult<Option<ReqId>> {
    let offset = |base: usize, disp: isize, dtype: i32| -> MpiResult<usize> {
        let unit = if bytes { 1 } else { extent(dtype)? };
        Ok(base.wrapping_add((disp * unit) as usize))
    };
    let side = |list: &[(i32, i32)], v: &Varying| -> MpiResult<Vec<Part>> {
        list.iter()
            .enumerate()
            .map(|(i, &(peer, direction))| {
                Ok(Part {
                    peer,
                    direction,
                    addr: offset(v.addr, v.displs[i], v.dtypes[i])?,
                    count: i64::from(v.counts[i]),
                    dtype: v.dtypes[i],
                })
            })
            .collect()
    };
    let recvs = side(&ins, &recv)?;
    let sends = side(&outs, &send)?;
    start(name, comm, recvs, sends, mode)
}

/// MPI_Neighbor_alltoallv.
pub fn alltoallv(
    name: &'static str,
    comm: i32,
    send: &VData,
    recv: &VData,
    mode: Mode,
) -> MpiResult<Option<ReqId>> {
    let (ins, outs) = neighbours(comm, name)?;
    let (ni, no) = (ins.len(), outs.len());
    let widen = |v: Vec<i32>| v.into_iter().map(|d| d as isize).collect();
    let sc = read(send.counts, no, "sendcounts")?;
    let sd = read(send.displs, no, "sdispls")?;
    let rc = read(recv.counts, ni, "recvcounts")?;
    let rd = read(recv.displs, ni, "rdispls")?;
    let send = Varying {
        addr: send.addr,
        counts: sc,
        displs: widen(sd),
        dtypes: vec![send.dtype; no],
    };
    let recv = Varying {
        addr: recv.addr,
        counts: rc,
        displs: widen(rd),
        dtypes: vec![recv.dtype; ni],
    };
    varying(name, comm, (ins, outs), send, recv, false, mode)
}

/// MPI_Neighbor_alltoallw.
pub fn alltoallw(
    name: &'static str,
    comm: i32,
    send: &WData,
    recv: &WData,
    mode: Mode,
) -> MpiResult<Option<ReqId>> {
    let (ins, outs) = neighbours(comm, name)?;
    let (ni, no) = (ins.len(), outs.len());
    let send = Varying {
        addr: send.addr,
        counts: read(send.counts, no, "sendcounts")?,
        displs: read(send.displs, no, "sdispls")?,
        dtypes: read(send.dtypes, no, "sendtypes")?,
    };
    let recv = Varying {
        addr: recv.addr,
        counts: read(recv.counts, ni, "recvcounts")?,
        displs: read(recv.displs, ni, "rdispls")?,
        dtypes: read(recv.dtypes, ni, "recvtypes")?,
    };
    varying(name, comm, (ins, outs), send, recv, true, mode)
}

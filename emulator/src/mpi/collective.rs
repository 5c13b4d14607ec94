//! The blocking collectives: check the arguments, pick the algorithm
//! (`smpi/<collective>`, else `smpi/coll-selector`), build its schedule and
//! run it (`coll::execute`); on an intercommunicator, `intercoll` does the
//! call. The non-blocking and persistent forms run the very same code
//! (`coll::start_nonblocking`, `nbc::start_recorded`), so both share one
//! schedule by construction.

use std::ffi::c_void;
use std::rc::Rc;

use collectives as algo;

use super::check::ArgArray;
use super::coll::{coll_error, execute, Algorithms, Buffers, Reduction, Transfer};
use super::datatype::{self, Datatype};
use super::intercoll::{self, Contribution, Rooted};
use super::op::{ReduceOp, UserFunction, FIRST_USER_OP};
use super::verify;
use super::verify::collectives::{nonblocking_name, Call};
use super::verify::signature::Summary;
use super::{check, class, CommView, Ctx, MpiError, MpiResult, ReqId, ReqKind, SendMode};
use crate::sim;

/// MPI_IN_PLACE, as a buffer address.
pub const IN_PLACE: usize = usize::MAX;

/// A buffer argument: its address, count and datatype.
#[derive(Debug, Clone, Copy)]
pub struct Data {
    pub addr: usize,
    pub count: i32,
    pub dtype: i32,
}

/// A buffer with a count and a displacement (in elements) per rank.
pub struct VData<'a> {
    pub addr: usize,
    pub counts: &'a dyn ArgArray<i32>,
    pub displs: &'a dyn ArgArray<i32>,
    pub dtype: i32,
}

/// A buffer with a count, a displacement in bytes and a datatype per rank
/// (MPI_Alltoallw).
pub struct WData<'a> {
    pub addr: usize,
    pub counts: &'a dyn ArgArray<i32>,
    pub displs: &'a dyn ArgArray<i32>,
    pub dtypes: &'a dyn ArgArray<i32>,
}

/// The arguments of a reduction.
#[derive(Debug, Clone, Copy)]
pub struct Reduce {
    pub send: usize,
    pub recv: usize,
    pub count: i32,
    pub dtype: i32,
    pub op: i32,
}

/// The caller's view of `comm`, intra- or intercommunicator.
fn any_view(comm: i32) -> MpiResult<CommView> {
    sim::mpi(|w| w.comm(comm))
}

/// The error of a collective that MPI defines on intracommunicators only.
fn not_on_intercomm(call: &str) -> MpiError {
    MpiError::new(
        class::COMM,
        format!("{call} is not defined on intercommunicators"),
    )
}

/// A count argument named `what`.
pub(super) fn count(n: i32, what: &str) -> MpiResult<usize> {
    check::count_of(n.into(), what)
}

/// The committed datatype behind a handle.
pub(super) fn committed(dt: i32) -> MpiResult<Rc<Datatype>> {
    sim::mpi(|w| w.mpi.committed(dt))
}

/// The first `n` entries of a count or displacement array, none negative.
/// A null array of counts is MPI_ERR_COUNT (of displacements,
/// MPI_ERR_ARG), as SimGrid and MPICH class them.
fn entries(a: &dyn ArgArray<i32>, n: usize, what: &'static str) -> MpiResult<Vec<usize>> {
    let values = a.read(n, what).map_err(|e| match e.class {
        class::ARG if what.ends_with("counts") => MpiError::new(class::COUNT, e.message),
        _ => e,
    })?;
    check::entries(&values, what)
}

/// A message buffer argument `what` of `count` elements of `dtype`: see
/// [`check::buffer`].
fn buffer(addr: usize, count: usize, dtype: i32, what: &str) -> MpiResult<()> {
    check::buffer(addr, count, &*committed(dtype)?, what)
}

/// The algorithm `smpi/<collective>` names (`named` reads it), or, when
/// that is `default`, the one `smpi/coll-selector` picks (`select`).
fn named_or_selected<A: algo::Algorithm + Default>(
    named: impl FnOnce(&Algorithms) -> A,
    select: impl FnOnce(algo::Selector) -> MpiResult<A>,
) -> MpiResult<A> {
    let a = algorithms();
    let chosen = match named(&a) {
        n if n == A::default() => select(a.selectors[A::COLLECTIVE as usize])?,
        n => n,
    };
    trace_algorithm(chosen);
    Ok(chosen)
}

/// Tells the tracers which algorithm the current call runs.
fn trace_algorithm<A: algo::Algorithm>(chosen: A) {
    sim::with(|s| {
        if !s.tracers.is_empty() {
            let (at, rank) = (s.core.now(), s.core.current());
            s.tracers
                .algorithm(at, rank, A::COLLECTIVE.name(), chosen.name());
        }
    });
}

/// The algorithms chosen with `smpi/<collective>`.
fn algorithms() -> Algorithms {
    sim::mpi(|w| w.mpi.algorithms)
}

/// The collective-matching check of the current call on `c` (see
/// `verify::collectives`): `data` is the (datatype, count) of the block
/// every member must agree on, where MPI requires it.
#[inline(never)]
fn verify_call(
    c: &CommView,
    name: &'static str,
    root: Option<usize>,
    op: Option<i32>,
    data: Option<(i32, usize)>,
) -> MpiResult<()> {
    sim::mpi(|w| {
        if !w.mpi.verify.on.collectives {
            return Ok(());
        }
        let data = match data {
            Some((dt, n)) => Some(Summary::of(&*w.mpi.committed(dt)?, n)),
            None => None,
        };
        let me = &w.mpi.ranks[w.core.current()];
        if me.reserved_coll_tag.is_some() {
            // A persistent collective's start: MPI matches persistent
            // collectives by their MPI_<collective>_init calls, whatever
            // the order of the starts.
            return Ok(());
        }
        let name = if me.nonblocking.is_some() || me.recording.is_some() {
            nonblocking_name(name)
        } else {
            name
        };
        let call = Call {
            name,
            root: root.map(|r| r as i32),
            op,
            data,
        };
        w.check_collective(c, call)
    })
}

/// Check `concurrency`: inside MPI_I<collective>, the buffers
/// (address, datatype, count, what) to guard until its request completes
/// (`coll::execute` attaches them once the request exists).
#[inline(never)]
fn guard_nonblocking(bufs: &[(usize, i32, usize, &'static str)]) {
    sim::mpi(|w| {
        let me = w.core.current();
        let rank = &w.mpi.ranks[me];
        // Persistent collectives' runs are the persistent request's.
        if !w.mpi.verify.on.concurrency
            || rank.nonblocking.is_none()
            || rank.reserved_coll_tag.is_some()
        {
            return;
        }
        let mut spans = Vec::new();
        for &(addr, dt, n, what) in bufs {
            if addr == IN_PLACE || addr == 0 || n == 0 {
                continue;
            }
            let Ok(ty) = w.mpi.committed(dt) else {
                continue;
            };
            if !w.may_touch_placed(addr, &ty, n) {
                let (lo, hi) = verify::span(addr, n, &ty);
                spans.push((lo, hi, what));
            }
        }
        w.mpi.ranks[me].nbc_guards = spans;
    })
}

/// The buffers of a schedule that moves one datatype each way.
fn buffers(send: usize, send_type: i32, recv: usize, recv_type: i32) -> Buffers {
    Buffers {
        send,
        send_type,
        recv,
        recv_type,
    }
}

pub fn barrier(comm: i32) -> MpiResult<()> {
    let c = any_view(comm)?;
    if c.remote.is_some() {
        return intercoll::barrier(&c);
    }
    verify_call(&c, "MPI_Barrier", None, None, None)?;
    let alg = named_or_selected(|a| a.barrier, |sel| Ok(algo::select_barrier(sel, c.size())))?;
    let s = algo::barrier_with(
        alg,
        algo::Position {
            rank: c.my_rank,
            size: c.size(),
        },
    )
    .map_err(coll_error)?;
    execute(&c, s, Buffers::none(), Reduction::None, "MPI_Barrier")
}

pub fn bcast(comm: i32, data: Data, root: i32) -> MpiResult<()> {
    let c = any_view(comm)?;
    if c.remote.is_some() {
        return intercoll::bcast(&c, data, root);
    }
    let n = count(data.count, "count")?;
    let ty = committed(data.dtype)?;
    check::buffer(data.addr, n, &ty, "buffer")?;
    let root = check::root(&c, root)?;
    verify_call(&c, "MPI_Bcast", Some(root), None, Some((data.dtype, n)))?;
    guard_nonblocking(&[(data.addr, data.dtype, n, "buffer")]);
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
    let (n, dt, elem_bytes) = if in_bytes && ty.is_contiguous() {
        (n * ty.size, datatype::BYTE, 1)
    } else {
        (n, data.dtype, ty.size)
    };
    let s = algo::bcast_with(
        alg,
        algo::RootedPosition {
            rank: c.my_rank,
            size: c.size(),
            root,
        },
        n,
        algo::Tuning {
            elem_bytes,
            ..algo::Tuning::default()
        },
    )
    .map_err(coll_error)?;
    let b = buffers(data.addr, dt, data.addr, dt);
    execute(&c, s, b, Reduction::None, "MPI_Bcast")
}

/// The blocks of a rooted intercommunicator collective's root: count
/// argument `n` (named `what`) at displacement i * n for remote rank i.
fn uniform_blocks(n: i32, what: &'static str) -> impl Fn(usize) -> MpiResult<Vec<(usize, usize)>> {
    move |p| {
        let n = count(n, what)?;
        Ok((0..p).map(|i| (n, i * n)).collect())
    }
}

/// The blocks of a rooted intercommunicator collective's root read from
/// per-rank counts and displacements.
fn varying_blocks<'a>(
    v: &'a VData<'a>,
    counts: &'static str,
) -> impl Fn(usize) -> MpiResult<Vec<(usize, usize)>> + 'a {
    move |p| {
        let c = entries(v.counts, p, counts)?;
        Ok(c.into_iter().zip(entries(v.displs, p, "displs")?).collect())
    }
}

pub fn gather(comm: i32, send: Data, recv: Data, root: i32) -> MpiResult<()> {
    const NAME: &str = "MPI_Gather";
    let c = any_view(comm)?;
    if c.remote.is_some() {
        let r = Rooted {
            name: NAME,
            root,
            root_buf: recv.addr,
            root_type: recv.dtype,
            blocks: &uniform_blocks(recv.count, "recvcount"),
            leaf: send,
        };
        return intercoll::rooted(&c, r, true);
    }
    let root = check::root(&c, root)?;
    let at_root = c.my_rank == root;
    let in_place = at_root && send.addr == IN_PLACE;
    let sc = if in_place {
        0
    } else {
        count(send.count, "sendcount")?
    };
    let rc = if at_root {
        count(recv.count, "recvcount")?
    } else {
        0
    };
    let st = if in_place { recv.dtype } else { send.dtype };
    let rt = if at_root { recv.dtype } else { st };
    let send_type = committed(st)?;
    let recv_type = committed(rt)?;
    check::buffer(send.addr, sc, &send_type, "sendbuf")?;
    check::buffer(recv.addr, rc, &recv_type, "recvbuf")?;
    let block = if at_root { (rt, rc) } else { (st, sc) };
    verify_call(&c, NAME, Some(root), None, Some(block))?;
    guard_nonblocking(&[
        (send.addr, st, sc, "send buffer"),
        (recv.addr, rt, rc * c.size(), "receive buffer"),
    ]);
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
        algo::RootedPosition {
            rank: c.my_rank,
            size: c.size(),
            root,
        },
        algo::Blocks {
            sendcount: sc,
            recvcount: rc,
            in_place,
        },
        algo::Tuning {
            elem_bytes: own_type.size,
            ..algo::Tuning::default()
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, rt),
        Reduction::None,
        NAME,
    )
}

pub fn gatherv(comm: i32, send: Data, recv: &VData, root: i32) -> MpiResult<()> {
    const NAME: &str = "MPI_Gatherv";
    let c = any_view(comm)?;
    if c.remote.is_some() {
        let r = Rooted {
            name: NAME,
            root,
            root_buf: recv.addr,
            root_type: recv.dtype,
            blocks: &varying_blocks(recv, "recvcounts"),
            leaf: send,
        };
        return intercoll::rooted(&c, r, true);
    }
    let root = check::root(&c, root)?;
    let at_root = c.my_rank == root;
    let in_place = at_root && send.addr == IN_PLACE;
    let sc = if in_place {
        0
    } else {
        count(send.count, "sendcount")?
    };
    let (rcs, ds) = if at_root {
        (
            entries(recv.counts, c.size(), "recvcounts")?,
            entries(recv.displs, c.size(), "displs")?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let st = if in_place { recv.dtype } else { send.dtype };
    let rt = if at_root { recv.dtype } else { st };
    let send_type = committed(st)?;
    let recv_type = committed(rt)?;
    check::buffer(send.addr, sc, &send_type, "sendbuf")?;
    check::buffer(recv.addr, rcs.iter().sum(), &recv_type, "recvbuf")?;
    verify_call(&c, NAME, Some(root), None, None)?;
    let s = algo::gatherv_with(
        algorithms().gatherv,
        algo::RootedPosition {
            rank: c.my_rank,
            size: c.size(),
            root,
        },
        algo::GathervBlocks {
            sendcount: sc,
            recvcounts: &rcs,
            displs: &ds,
            in_place,
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, rt),
        Reduction::None,
        NAME,
    )
}

pub fn scatter(comm: i32, send: Data, recv: Data, root: i32) -> MpiResult<()> {
    const NAME: &str = "MPI_Scatter";
    let c = any_view(comm)?;
    if c.remote.is_some() {
        let r = Rooted {
            name: NAME,
            root,
            root_buf: send.addr,
            root_type: send.dtype,
            blocks: &uniform_blocks(send.count, "sendcount"),
            leaf: recv,
        };
        return intercoll::rooted(&c, r, false);
    }
    let root = check::root(&c, root)?;
    let at_root = c.my_rank == root;
    let in_place = at_root && recv.addr == IN_PLACE;
    let sc = if at_root {
        count(send.count, "sendcount")?
    } else {
        0
    };
    let rc = if in_place {
        0
    } else {
        count(recv.count, "recvcount")?
    };
    let rt = if in_place { send.dtype } else { recv.dtype };
    let st = if at_root { send.dtype } else { rt };
    let send_type = committed(st)?;
    let recv_type = committed(rt)?;
    check::buffer(send.addr, sc, &send_type, "sendbuf")?;
    check::buffer(recv.addr, rc, &recv_type, "recvbuf")?;
    let block = if at_root { (st, sc) } else { (rt, rc) };
    verify_call(&c, NAME, Some(root), None, Some(block))?;
    guard_nonblocking(&[
        (send.addr, st, sc * c.size(), "send buffer"),
        (recv.addr, rt, rc, "receive buffer"),
    ]);
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
    let s = algo::scatter_with(
        alg,
        algo::RootedPosition {
            rank: c.my_rank,
            size: c.size(),
            root,
        },
        algo::Blocks {
            sendcount: sc,
            recvcount: rc,
            in_place,
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, rt),
        Reduction::None,
        NAME,
    )
}

pub fn scatterv(comm: i32, send: &VData, recv: Data, root: i32) -> MpiResult<()> {
    const NAME: &str = "MPI_Scatterv";
    let c = any_view(comm)?;
    if c.remote.is_some() {
        let r = Rooted {
            name: NAME,
            root,
            root_buf: send.addr,
            root_type: send.dtype,
            blocks: &varying_blocks(send, "sendcounts"),
            leaf: recv,
        };
        return intercoll::rooted(&c, r, false);
    }
    let root = check::root(&c, root)?;
    let at_root = c.my_rank == root;
    let in_place = at_root && recv.addr == IN_PLACE;
    let (scs, ds) = if at_root {
        (
            entries(send.counts, c.size(), "sendcounts")?,
            entries(send.displs, c.size(), "displs")?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let rc = if in_place {
        0
    } else {
        count(recv.count, "recvcount")?
    };
    let rt = if in_place { send.dtype } else { recv.dtype };
    let st = if at_root { send.dtype } else { rt };
    let send_type = committed(st)?;
    let recv_type = committed(rt)?;
    check::buffer(send.addr, scs.iter().sum(), &send_type, "sendbuf")?;
    check::buffer(recv.addr, rc, &recv_type, "recvbuf")?;
    verify_call(&c, NAME, Some(root), None, None)?;
    let s = algo::scatterv_with(
        algorithms().scatterv,
        algo::RootedPosition {
            rank: c.my_rank,
            size: c.size(),
            root,
        },
        algo::ScattervBlocks {
            sendcounts: &scs,
            displs: &ds,
            recvcount: rc,
            in_place,
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, rt),
        Reduction::None,
        NAME,
    )
}

pub fn allgather(comm: i32, send: Data, recv: Data) -> MpiResult<()> {
    const NAME: &str = "MPI_Allgather";
    let c = any_view(comm)?;
    let in_place = send.addr == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, NAME)?;
        let p = c.peer_group().size();
        let (sc, rc) = (
            count(send.count, "sendcount")?,
            count(recv.count, "recvcount")?,
        );
        let sends = vec![(send.addr, sc); p];
        let displs: Vec<usize> = (0..p).map(|i| i * rc).collect();
        let recvs = intercoll::blocks(recv.addr, recv.dtype, &vec![rc; p], &displs)?;
        return intercoll::all_pairs(&c, NAME, &sends, send.dtype, &recvs, recv.dtype);
    }
    let sc = if in_place {
        0
    } else {
        count(send.count, "sendcount")?
    };
    let rc = count(recv.count, "recvcount")?;
    let st = if in_place { recv.dtype } else { send.dtype };
    let send_type = committed(st)?;
    let recv_type = committed(recv.dtype)?;
    check::buffer(send.addr, sc, &send_type, "sendbuf")?;
    check::buffer(recv.addr, rc, &recv_type, "recvbuf")?;
    let block = if in_place { (recv.dtype, rc) } else { (st, sc) };
    verify_call(&c, NAME, None, None, Some(block))?;
    guard_nonblocking(&[
        (send.addr, st, sc, "send buffer"),
        (recv.addr, recv.dtype, rc * c.size(), "receive buffer"),
    ]);
    let alg = named_or_selected(
        |a| a.allgather,
        |sel| {
            let total = committed(recv.dtype)?
                .size
                .saturating_mul(rc)
                .saturating_mul(c.size());
            Ok(algo::select_allgather(sel, c.size(), total))
        },
    )?;
    let s = algo::allgather_with(
        alg,
        algo::Position {
            rank: c.my_rank,
            size: c.size(),
        },
        algo::Blocks {
            sendcount: sc,
            recvcount: rc,
            in_place,
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, recv.dtype),
        Reduction::None,
        NAME,
    )
}

pub fn allgatherv(comm: i32, send: Data, recv: &VData) -> MpiResult<()> {
    const NAME: &str = "MPI_Allgatherv";
    let c = any_view(comm)?;
    let in_place = send.addr == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, NAME)?;
        let p = c.peer_group().size();
        let sc = count(send.count, "sendcount")?;
        let rcs = entries(recv.counts, p, "recvcounts")?;
        let ds = entries(recv.displs, p, "displs")?;
        let sends = vec![(send.addr, sc); p];
        let recvs = intercoll::blocks(recv.addr, recv.dtype, &rcs, &ds)?;
        return intercoll::all_pairs(&c, NAME, &sends, send.dtype, &recvs, recv.dtype);
    }
    let sc = if in_place {
        0
    } else {
        count(send.count, "sendcount")?
    };
    let rcs = entries(recv.counts, c.size(), "recvcounts")?;
    let ds = entries(recv.displs, c.size(), "displs")?;
    let st = if in_place { recv.dtype } else { send.dtype };
    let send_type = committed(st)?;
    let recv_type = committed(recv.dtype)?;
    check::buffer(send.addr, sc, &send_type, "sendbuf")?;
    check::buffer(recv.addr, rcs.iter().sum(), &recv_type, "recvbuf")?;
    verify_call(&c, NAME, None, None, None)?;
    let total: usize = rcs.iter().sum();
    let rty = committed(recv.dtype)?;
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
            algo::Position {
                rank: c.my_rank,
                size: c.size(),
            },
            algo::GathervBlocks {
                sendcount: sc,
                recvcounts: &rcs,
                displs: &ds,
                in_place,
            },
            bcast,
            algo::Tuning {
                elem_bytes: rty.size,
                ..algo::Tuning::default()
            },
        )
    } else {
        algo::allgatherv_with(
            alg,
            algo::Position {
                rank: c.my_rank,
                size: c.size(),
            },
            algo::GathervBlocks {
                sendcount: sc,
                recvcounts: &rcs,
                displs: &ds,
                in_place,
            },
            algo::Tuning {
                elem_bytes: extent,
                ..algo::Tuning::default()
            },
        )
    }
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, recv.dtype),
        Reduction::None,
        NAME,
    )
}

pub fn alltoall(comm: i32, send: Data, recv: Data) -> MpiResult<()> {
    const NAME: &str = "MPI_Alltoall";
    let c = any_view(comm)?;
    let in_place = send.addr == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, NAME)?;
        let p = c.peer_group().size();
        let (sc, rc) = (
            count(send.count, "sendcount")?,
            count(recv.count, "recvcount")?,
        );
        let at = |n: usize| (0..p).map(|i| i * n).collect::<Vec<_>>();
        let sends = intercoll::blocks(send.addr, send.dtype, &vec![sc; p], &at(sc))?;
        let recvs = intercoll::blocks(recv.addr, recv.dtype, &vec![rc; p], &at(rc))?;
        return intercoll::all_pairs(&c, NAME, &sends, send.dtype, &recvs, recv.dtype);
    }
    let rc = count(recv.count, "recvcount")?;
    let sc = if in_place {
        rc
    } else {
        count(send.count, "sendcount")?
    };
    let st = if in_place { recv.dtype } else { send.dtype };
    let send_type = committed(st)?;
    let recv_type = committed(recv.dtype)?;
    check::buffer(send.addr, sc, &send_type, "sendbuf")?;
    check::buffer(recv.addr, rc, &recv_type, "recvbuf")?;
    let block = if in_place { (recv.dtype, rc) } else { (st, sc) };
    verify_call(&c, NAME, None, None, Some(block))?;
    guard_nonblocking(&[
        (send.addr, st, sc * c.size(), "send buffer"),
        (recv.addr, recv.dtype, rc * c.size(), "receive buffer"),
    ]);
    let alg = named_or_selected(
        |a| a.alltoall,
        |sel| {
            let block = committed(st)?.size.saturating_mul(sc);
            Ok(algo::select_alltoall(sel, c.size(), block))
        },
    )?;
    let s = algo::alltoall_with(
        alg,
        algo::Position {
            rank: c.my_rank,
            size: c.size(),
        },
        algo::Blocks {
            sendcount: sc,
            recvcount: rc,
            in_place,
        },
        algo::Tuning {
            radix: algorithms().radix,
            ..algo::Tuning::default()
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, recv.dtype),
        Reduction::None,
        NAME,
    )
}

pub fn alltoallv(comm: i32, send: &VData, recv: &VData) -> MpiResult<()> {
    const NAME: &str = "MPI_Alltoallv";
    let c = any_view(comm)?;
    let in_place = send.addr == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, NAME)?;
        let p = c.peer_group().size();
        let scs = entries(send.counts, p, "sendcounts")?;
        let sds = entries(send.displs, p, "sdispls")?;
        let rcs = entries(recv.counts, p, "recvcounts")?;
        let rds = entries(recv.displs, p, "rdispls")?;
        let sends = intercoll::blocks(send.addr, send.dtype, &scs, &sds)?;
        let recvs = intercoll::blocks(recv.addr, recv.dtype, &rcs, &rds)?;
        return intercoll::all_pairs(&c, NAME, &sends, send.dtype, &recvs, recv.dtype);
    }
    let p = c.size();
    let rcs = entries(recv.counts, p, "recvcounts")?;
    let rds = entries(recv.displs, p, "rdispls")?;
    let (scs, sds) = if in_place {
        (rcs.clone(), rds.clone())
    } else {
        (
            entries(send.counts, p, "sendcounts")?,
            entries(send.displs, p, "sdispls")?,
        )
    };
    let st = if in_place { recv.dtype } else { send.dtype };
    let send_type = committed(st)?;
    let recv_type = committed(recv.dtype)?;
    check::buffer(send.addr, scs.iter().sum(), &send_type, "sendbuf")?;
    check::buffer(recv.addr, rcs.iter().sum(), &recv_type, "recvbuf")?;
    verify_call(&c, NAME, None, None, None)?;
    let mut alg = named_or_selected(|a| a.alltoallv, |sel| Ok(algo::select_alltoallv(sel, p)))?;
    if alg == algo::AlltoallvAlgorithm::CrystalRouter {
        // Its messages depend on what arrives: it runs imperatively, as a
        // blocking call only (a non-blocking one runs the default).
        if !super::coll::starting_nonblocking() {
            let sends = intercoll::blocks(send.addr, st, &scs, &sds)?;
            let recvs = intercoll::blocks(recv.addr, recv.dtype, &rcs, &rds)?;
            return alltoallv_crystal(&c, &sends, st, &recvs, recv.dtype);
        }
        alg = algo::AlltoallvAlgorithm::Default;
    }
    let s = algo::alltoallv_with(
        alg,
        algo::Position {
            rank: c.my_rank,
            size: p,
        },
        algo::AlltoallvBlocks {
            sendcounts: &scs,
            sdispls: &sds,
            recvcounts: &rcs,
            rdispls: &rds,
            in_place,
        },
        algo::Tuning {
            radix: algorithms().radix,
            ..algo::Tuning::default()
        },
    )
    .map_err(coll_error)?;
    execute(
        &c,
        s,
        buffers(send.addr, st, recv.addr, recv.dtype),
        Reduction::None,
        NAME,
    )
}

/// `MPI_Alltoallv` by the crystal router: every outgoing block is packed
/// first (in place, they are read before anything lands), routed, then
/// unpacked into its slot. `send` and `recv` are (address, count) per rank.
fn alltoallv_crystal(
    c: &CommView,
    send: &[(usize, usize)],
    sendtype: i32,
    recv: &[(usize, usize)],
    recvtype: i32,
) -> MpiResult<()> {
    use super::crystal::{self, Record};
    let (sty, rty) = (committed(sendtype)?, committed(recvtype)?);
    let me = c.my_rank;
    let mut records = Vec::new();
    let mut own = Vec::new();
    for (dest, &(addr, n)) in send.iter().enumerate() {
        let mut data = Vec::new();
        // SAFETY: MPI's contract: n elements of the send type at addr.
        unsafe { datatype::pack(&sty, addr as *const c_void, n, &mut data) };
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
        unsafe { datatype::unpack(&rty, addr as *mut c_void, &r.data) };
    }
    Ok(())
}

/// The shared steps of the reductions: check, build the schedule with
/// `build(view, in_place, commutative)`, run it with the operation; on an
/// intercommunicator, `inter` does the call with the caller's
/// contribution (its count is left to `inter`).
fn reduction(
    name: &'static str,
    comm: i32,
    r: &Reduce,
    root: Option<i32>,
    build: impl FnOnce(&CommView, bool, bool) -> MpiResult<collectives::Schedule>,
    inter: impl FnOnce(&CommView, Contribution) -> MpiResult<()>,
) -> MpiResult<()> {
    let c = any_view(comm)?;
    let op = sim::mpi(|w| w.mpi.reduce_op(r.op))?;
    super::coll::check_reduction(op, &*committed(r.dtype)?)?;
    let in_place = r.send == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, name)?;
        let x = Contribution {
            sendbuf: r.send,
            count: 0,
            dt: r.dtype,
            op,
        };
        return crate::engine::context::outlined(|| inter(&c, x));
    }
    let root = match root {
        Some(root) => Some(check::root(&c, root)?),
        None => None,
    };
    // MPI_Reduce_scatter's counts differ by member.
    let data = usize::try_from(r.count)
        .ok()
        .filter(|_| name != "MPI_Reduce_scatter")
        .map(|n| (r.dtype, n));
    verify_call(&c, name, root, Some(r.op), data)?;
    if let Some((dt, n)) = data {
        let recv_n = match root {
            Some(root) if root != c.my_rank => 0,
            _ => n,
        };
        guard_nonblocking(&[
            (r.send, dt, n, "send buffer"),
            (r.recv, dt, recv_n, "receive buffer"),
        ]);
    }
    let b = buffers(r.send, r.dtype, r.recv, r.dtype);
    let s = crate::engine::context::outlined(|| build(&c, in_place, op.commutative()))?;
    execute(&c, s, b, Reduction::Op(op), name)
}

pub fn reduce(comm: i32, r: &Reduce, root: i32) -> MpiResult<()> {
    reduction(
        "MPI_Reduce",
        comm,
        r,
        Some(root),
        |c, in_place, commutative| {
            let n = count(r.count, "count")?;
            let root = check::root(c, root)?;
            let ty = committed(r.dtype)?;
            if !in_place {
                check::buffer(r.send, n, &ty, "sendbuf")?;
            }
            if c.my_rank == root {
                check::buffer(r.recv, n, &ty, "recvbuf")?;
            }
            let alg = named_or_selected(
                |a| a.reduce,
                |sel| {
                    let bytes = ty.size.saturating_mul(n);
                    Ok(algo::select_reduce(sel, c.size(), n, bytes, commutative))
                },
            )?;
            algo::reduce_with(
                alg,
                algo::RootedPosition {
                    rank: c.my_rank,
                    size: c.size(),
                    root,
                },
                algo::Reduction {
                    count: n,
                    commutative,
                    in_place: in_place && c.my_rank == root,
                },
                algo::Tuning {
                    elem_bytes: ty.size,
                    ..algo::Tuning::default()
                },
            )
            .map_err(coll_error)
        },
        |c, x| {
            let x = Contribution {
                count: count(r.count, "count")?,
                ..x
            };
            intercoll::reduce(c, x, r.recv, root)
        },
    )
}

pub fn allreduce(comm: i32, r: &Reduce) -> MpiResult<()> {
    reduction(
        "MPI_Allreduce",
        comm,
        r,
        None,
        |c, in_place, commutative| {
            let n = count(r.count, "count")?;
            let ty = committed(r.dtype)?;
            if !in_place {
                check::buffer(r.send, n, &ty, "sendbuf")?;
            }
            check::buffer(r.recv, n, &ty, "recvbuf")?;
            let call = AllreduceCall {
                c,
                r,
                n,
                ty: &ty,
                in_place,
                commutative,
            };
            let a = algorithms();
            if a.allreduce == algo::AllreduceAlgorithm::Automatic && !in_twin() {
                super::automatic::allreduce(&call)?;
                // Every candidate left the result in place.
                return Ok(algo::Schedule::default());
            }
            call.schedule(
                a.allreduce,
                a.selectors[algo::Collective::Allreduce as usize],
            )
        },
        |c, x| {
            let x = Contribution {
                count: count(r.count, "count")?,
                ..x
            };
            intercoll::allreduce(c, x, r.recv)
        },
    )
}

/// Whether the running collective is the blocking twin of a non-blocking
/// one (its schedule is recorded or started, not run).
fn in_twin() -> bool {
    sim::mpi(|w| {
        let me = &w.mpi.ranks[w.core.current()];
        me.nonblocking.is_some() || me.recording.is_some()
    })
}

/// One rank's `MPI_Allreduce` on an intracommunicator, arguments checked.
pub(super) struct AllreduceCall<'a> {
    pub c: &'a CommView,
    pub r: &'a Reduce,
    /// The element count.
    pub n: usize,
    pub ty: &'a Datatype,
    pub in_place: bool,
    pub commutative: bool,
}

impl AllreduceCall<'_> {
    /// The schedule of the call with `alg`, where `default` means what
    /// `sel` picks. SimGrid's selectors that are also algorithm names
    /// (`mvapich2`, `impi`) pick here, and SimGrid's placement exchange
    /// runs first where SimGrid runs it (SMP-aware algorithms, the `impi`
    /// and `mpich` selectors).
    pub fn schedule(
        &self,
        alg: algo::AllreduceAlgorithm,
        sel: algo::Selector,
    ) -> MpiResult<algo::Schedule> {
        use algo::AllreduceAlgorithm as A;
        let Self {
            c, n, commutative, ..
        } = *self;
        let bytes = self.ty.size.saturating_mul(n);
        let (mut alg, mut place) = match alg {
            A::Default => {
                let picked = algo::select_allreduce(sel, c.size(), bytes, commutative);
                // SimGrid's mpich selector learns the placement first, for
                // every operation.
                (picked, sel == algo::Selector::Mpich)
            }
            A::Mvapich2 if n == 0 => return Ok(algo::Schedule::default()),
            A::Mvapich2 => {
                let (picked, state) = algo::select_allreduce_mvapich2(c.size(), bytes, commutative);
                sim::mpi(|w| w.mpi.mv2_allreduce = state);
                (picked, false)
            }
            a => (a, false),
        };
        // SimGrid's lr says when it hands a call to the default algorithm
        // (the segmented ring runs lr below its segment size).
        let lr = alg == A::Lr || (alg == A::OmpiRingSegmented && c.size() > 1);
        if lr && n < c.size() {
            super::coll::say(
                crate::log::Priority::Info,
                None,
                "MPI_allreduce_lr: communication size smaller than number of process, use \
                 default MPI_allreduce.",
            );
        }
        place |= alg.needs_placement();
        let nodes = place.then(|| super::smp::nodes(c));
        if let Some(nodes) = &nodes {
            super::smp::ensure_placed(c, nodes)?;
            if alg == A::Impi {
                alg = algo::select_allreduce_impi(c.size(), nodes.num_core(), bytes);
            }
        }
        let at = algo::Position {
            rank: c.my_rank,
            size: c.size(),
        };
        let reduction = algo::Reduction {
            count: n,
            commutative,
            in_place: self.in_place,
        };
        let tuning = algo::Tuning {
            elem_bytes: self.ty.size,
            radix: algorithms().radix,
        };
        trace_algorithm(alg);
        if alg == A::Redbcast {
            // SimGrid's redbcast runs the selected reduce and bcast.
            let reduce = named_or_selected(
                |a| a.reduce,
                |sel| Ok(algo::select_reduce(sel, c.size(), n, bytes, commutative)),
            )?;
            let bcast = named_or_selected(
                |a| a.bcast,
                |sel| Ok(algo::select_bcast(sel, c.size(), bytes)),
            )?;
            return algo::allreduce_redbcast(at, reduction, reduce, bcast, tuning)
                .map_err(coll_error);
        }
        let Some(nodes) = nodes.filter(|_| alg.needs_placement()) else {
            return algo::allreduce_with(alg, at, reduction, tuning).map_err(coll_error);
        };
        let host_size = nodes.intra(c.my_rank).len();
        let smp = algo::Smp {
            nodes: &nodes,
            mv2: sim::mpi(|w| w.mpi.mv2_allreduce),
            intra_reduce: named_or_selected(
                |a| a.reduce,
                |sel| Ok(algo::select_reduce(sel, host_size, n, bytes, commutative)),
            )?,
            intra_bcast: named_or_selected(
                |a| a.bcast,
                |sel| Ok(algo::select_bcast(sel, host_size, bytes)),
            )?,
        };
        algo::allreduce_smp(alg, at, reduction, tuning, &smp).map_err(coll_error)
    }

    /// Runs `schedule`, built by [`Self::schedule`].
    pub fn execute(&self, schedule: algo::Schedule) -> MpiResult<()> {
        let op = sim::mpi(|w| w.mpi.reduce_op(self.r.op))?;
        let b = buffers(self.r.send, self.r.dtype, self.r.recv, self.r.dtype);
        execute(self.c, schedule, b, Reduction::Op(op), "MPI_Allreduce")
    }

    /// The receive buffer's elements, packed: an in-place call's input.
    pub fn saved_input(&self) -> Vec<u8> {
        let mut saved = Vec::new();
        // SAFETY: the receive buffer holds `n` elements of the datatype
        // (checked by the caller, the program's MPI contract).
        unsafe { datatype::pack(self.ty, self.r.recv as *const c_void, self.n, &mut saved) };
        saved
    }

    /// Puts back what [`Self::saved_input`] returned.
    pub fn restore_input(&self, saved: &[u8]) {
        // SAFETY: as in `saved_input`: the same elements of the same buffer.
        unsafe { datatype::unpack(self.ty, self.r.recv as *mut c_void, saved) };
    }
}

/// MPI_Reduce_scatter_block: `r.count` is the count each rank receives.
pub fn reduce_scatter_block(comm: i32, r: &Reduce) -> MpiResult<()> {
    reduction(
        "MPI_Reduce_scatter_block",
        comm,
        r,
        None,
        |c, in_place, commutative| {
            let n = count(r.count, "recvcount")?;
            if !in_place {
                buffer(r.send, n.saturating_mul(c.size()), r.dtype, "sendbuf")?;
            }
            buffer(r.recv, n, r.dtype, "recvbuf")?;
            algo::reduce_scatter_block_with(
                algorithms().reduce_scatter_block,
                algo::Position {
                    rank: c.my_rank,
                    size: c.size(),
                },
                algo::Reduction {
                    count: n,
                    commutative,
                    in_place,
                },
            )
            .map_err(coll_error)
        },
        |c, x| {
            let counts = vec![count(r.count, "recvcount")?; c.size()];
            let name = "MPI_Reduce_scatter_block";
            intercoll::reduce_scatter(c, name, x, r.recv, &counts)
        },
    )
}

/// MPI_Reduce_scatter: `r.count` is unused; rank i receives
/// `recvcounts[i]` elements.
pub fn reduce_scatter(comm: i32, r: &Reduce, recvcounts: &dyn ArgArray<i32>) -> MpiResult<()> {
    reduction(
        "MPI_Reduce_scatter",
        comm,
        r,
        None,
        |c, in_place, commutative| {
            let rcs = entries(recvcounts, c.size(), "recvcounts")?;
            if !in_place {
                buffer(r.send, rcs.iter().sum(), r.dtype, "sendbuf")?;
            }
            buffer(r.recv, rcs[c.my_rank], r.dtype, "recvbuf")?;
            let total: usize = rcs.iter().sum();
            let alg = named_or_selected(
                |a| a.reduce_scatter,
                |sel| {
                    let bytes = committed(r.dtype)?.size.saturating_mul(total);
                    Ok(algo::select_reduce_scatter(
                        sel,
                        c.size(),
                        total,
                        bytes,
                        commutative,
                    ))
                },
            )?;
            algo::reduce_scatter_with(
                alg,
                algo::Position {
                    rank: c.my_rank,
                    size: c.size(),
                },
                algo::ReductionV {
                    recvcounts: &rcs,
                    commutative,
                    in_place,
                },
            )
            .map_err(coll_error)
        },
        |c, x| {
            let counts = entries(recvcounts, c.size(), "recvcounts")?;
            intercoll::reduce_scatter(c, "MPI_Reduce_scatter", x, r.recv, &counts)
        },
    )
}

pub fn scan(comm: i32, r: &Reduce) -> MpiResult<()> {
    reduction(
        "MPI_Scan",
        comm,
        r,
        None,
        |c, in_place, commutative| {
            let n = count(r.count, "count")?;
            if !in_place {
                buffer(r.send, n, r.dtype, "sendbuf")?;
            }
            buffer(r.recv, n, r.dtype, "recvbuf")?;
            algo::scan_with(
                algorithms().scan,
                algo::Position {
                    rank: c.my_rank,
                    size: c.size(),
                },
                algo::Reduction {
                    count: n,
                    commutative,
                    in_place,
                },
            )
            .map_err(coll_error)
        },
        |_, _| Err(not_on_intercomm("MPI_Scan")),
    )
}

pub fn exscan(comm: i32, r: &Reduce) -> MpiResult<()> {
    reduction(
        "MPI_Exscan",
        comm,
        r,
        None,
        |c, in_place, commutative| {
            let n = count(r.count, "count")?;
            if !in_place {
                buffer(r.send, n, r.dtype, "sendbuf")?;
            }
            buffer(r.recv, n, r.dtype, "recvbuf")?;
            algo::exscan_with(
                algorithms().exscan,
                algo::Position {
                    rank: c.my_rank,
                    size: c.size(),
                },
                algo::Reduction {
                    count: n,
                    commutative,
                    in_place,
                },
            )
            .map_err(coll_error)
        },
        |_, _| Err(not_on_intercomm("MPI_Exscan")),
    )
}

/// The messages of an all-to-all with per-peer counts, displacements and
/// datatypes: receives first, then sends; and the staged copy of the data
/// to send when it is sent in place.
struct AlltoallwPlan {
    view: CommView,
    transfers: Vec<Transfer>,
    staged: Vec<u8>,
}

fn alltoallw_plan(
    comm: i32,
    send: &WData,
    recv: &WData,
    name: &'static str,
) -> MpiResult<AlltoallwPlan> {
    let c = any_view(comm)?;
    // On an intercommunicator the arrays name the remote group's ranks.
    let p = c.peer_group().size();
    let in_place = send.addr == IN_PLACE;
    if c.remote.is_some() {
        intercoll::no_in_place(in_place, name)?;
    }
    let rcs = entries(recv.counts, p, "recvcounts")?;
    let rds = entries(recv.displs, p, "rdispls")?;
    let rts = recv.dtypes.read(p, "recvtypes")?;
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
                datatype::pack(
                    &t,
                    (recv.addr as *const u8).add(rds[i]).cast(),
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
            vec![datatype::BYTE; p],
            staged.as_ptr() as usize,
        )
    } else {
        (
            entries(send.counts, p, "sendcounts")?,
            entries(send.displs, p, "sdispls")?,
            send.dtypes.read(p, "sendtypes")?,
            send.addr,
        )
    };
    if c.remote.is_none() {
        verify_call(&c, name, None, None, None)?;
    }
    let mut transfers = Vec::with_capacity(2 * p);
    for i in 0..p {
        let t = committed(rts[i])?;
        transfers.push(Transfer::recv(i, recv.addr + rds[i], rcs[i], &t));
    }
    for i in 0..p {
        let t = committed(sts[i])?;
        transfers.push(Transfer::send(i, sbase + sds[i], scs[i], &t));
    }
    Ok(AlltoallwPlan {
        view: c,
        transfers,
        staged,
    })
}

/// MPI_Alltoallw: per-peer datatypes and byte displacements, so it runs
/// directly on point-to-point (all receives, then all sends, posted at
/// once, as the linear algorithms of the default selector do).
pub fn alltoallw(comm: i32, send: &WData, recv: &WData) -> MpiResult<()> {
    let plan = alltoallw_plan(comm, send, recv, "MPI_Alltoallw")?;
    let tag = sim::mpi(|w| w.next_coll_tag(comm));
    intercoll::exchange(&plan.view, tag, plan.transfers, "MPI_Alltoallw")?;
    drop(plan.staged);
    Ok(())
}

/// Whether `comm` is an intercommunicator (false for an invalid handle:
/// the call then reports it).
pub fn is_intercomm(comm: i32) -> bool {
    any_view(comm).is_ok_and(|v| v.remote.is_some())
}

/// MPI_Ialltoallw on an intracommunicator: the same messages as
/// MPI_Alltoallw, posted at once under one request (one round, so no
/// progress is needed); the staged copy of an in-place send buffer lives
/// as long as the request.
pub fn ialltoallw(comm: i32, send: &WData, recv: &WData) -> MpiResult<ReqId> {
    let plan = alltoallw_plan(comm, send, recv, "MPI_Ialltoallw")?;
    sim::mpi(|w| -> MpiResult<ReqId> {
        let tag = w.next_coll_tag(comm);
        let mut ids = Vec::with_capacity(plan.transfers.len());
        for t in &plan.transfers {
            let id = w.start_collective_request(&plan.view, tag, t.clone(), None)?;
            ids.push(id);
        }
        let id = w.new_compound(ids, Some(plan.staged));
        w.mpi.request_mut(id).active = true;
        Ok(id)
    })
}

/// MPI_Op_create: a user reduction, `func(in, inout, &len, &datatype)`;
/// its handle.
pub fn op_create(func: UserFunction, commute: bool) -> i32 {
    sim::mpi(|w| {
        let ops = &mut w.mpi.user_ops;
        ops.push(Some(ReduceOp::User { func, commute }));
        let h = FIRST_USER_OP + (ops.len() - 1) as i32;
        w.note_created(super::ledger::Kind::Op, h);
        h
    })
}

/// MPI_Op_free: forgets a user operation. Predefined operations cannot be
/// freed.
pub fn op_free(handle: i32) -> MpiResult<()> {
    sim::mpi(|w| {
        if let ReduceOp::Builtin(b) = w.mpi.reduce_op(handle)? {
            return Err(MpiError::new(
                class::OP,
                format!("{} is predefined and cannot be freed", b.name()),
            ));
        }
        w.mpi.user_ops[(handle - FIRST_USER_OP) as usize] = None;
        w.note_freed(super::ledger::Kind::Op, handle);
        Ok(())
    })
}

/// MPI_Op_commutative.
pub fn op_commutative(handle: i32) -> MpiResult<bool> {
    sim::mpi(|w| w.mpi.reduce_op(handle)).map(|o| o.commutative())
}

/// MPI_Reduce_local: inout = input (op) inout, on this rank only.
pub fn reduce_local(input: usize, inout: usize, n: i32, dtype: i32, op: i32) -> MpiResult<()> {
    let n = count(n, "count")?;
    let ty = committed(dtype)?;
    let o = sim::mpi(|w| w.mpi.reduce_op(op))?;
    super::coll::check_reduction(o, &ty)?;
    super::coll::reduce_local(o, &ty, dtype, input, inout, n)?;
    super::coll::charge_reduction(n * ty.size);
    Ok(())
}

impl Ctx<'_> {
    /// Starts `m` on `view`'s collective context with `tag` (a send by
    /// `plan` when its caller decided it); its request.
    pub(super) fn start_collective_request(
        &mut self,
        view: &CommView,
        tag: i32,
        m: Transfer,
        plan: Option<super::SendPlan>,
    ) -> MpiResult<ReqId> {
        let kind = if m.send {
            ReqKind::Send(SendMode::Standard)
        } else {
            ReqKind::Recv
        };
        let id = self.new_internal_request(
            view,
            super::Internal {
                kind,
                ctx: view.ctx + 1,
                buf: m.addr,
                count: m.count,
                dtype: m.dtype,
                peer: m.peer as i32,
                tag,
            },
        );
        self.start_planned(id, plan)?;
        Ok(id)
    }
}

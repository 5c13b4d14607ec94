//! Collectives on intercommunicators (MPI-3.1 section 5.2.2): data flows
//! from one group to the other.
//!
//! Cross-group traffic is point-to-point on the intercommunicator's
//! collective context, with one tag per call that every member of both
//! groups takes first, so the groups stay in step whatever their roles.
//! Phases within a group (a reduction to the group's leader, a broadcast or
//! scatter from it) run the usual schedules on the group-local view, which
//! counts its own tags.

use std::rc::Rc;

use collectives as algo;

use super::coll::{coll_error, execute, post_and_wait, Buffers, Reduction, Scratch, Transfer};
use super::collective::{committed, count, Data};
use super::datatype::{self, Datatype};
use super::nbc::{self, Stage, Transfers};
use super::op::ReduceOp;
use super::{class, CommView, MpiError, MpiResult, PROC_NULL};
use crate::sim;

/// MPI_ROOT, given by the root of a rooted intercommunicator collective.
pub const ROOT: i32 = -3;

/// Posts every transfer at once (in the given order) on the view's
/// collective context with `tag`, and waits for all of them; recorded
/// instead when the rank records a non-blocking collective.
pub fn exchange(
    c: &CommView,
    tag: i32,
    transfers: Vec<Transfer>,
    call: &'static str,
) -> MpiResult<()> {
    if transfers.is_empty() {
        return Ok(());
    }
    let stage = Stage::Transfers(Transfers {
        view: c.clone(),
        tag,
        transfers,
    });
    let Some(Stage::Transfers(t)) = nbc::record(stage) else {
        return Ok(());
    };
    post_and_wait(&t.view, t.tag, t.transfers, call)
}

/// The tag of this call's cross-group messages; every member takes it.
fn cross_tag(c: &CommView) -> i32 {
    sim::mpi(|w| w.next_coll_tag_in(c.ctx))
}

/// What a rank does in a rooted intercommunicator collective.
enum Role {
    /// The root (it passed MPI_ROOT).
    Root,
    /// Another member of the root's group (MPI_PROC_NULL): no part.
    Idle,
    /// A member of the other group; the root's rank in the remote group.
    Leaf(usize),
}

fn role(c: &CommView, root: i32) -> MpiResult<Role> {
    match root {
        ROOT => Ok(Role::Root),
        PROC_NULL => Ok(Role::Idle),
        r => usize::try_from(r)
            .ok()
            .filter(|&r| r < c.peer_group().size())
            .map(Role::Leaf)
            .ok_or_else(|| {
                MpiError::new(
                    class::ROOT,
                    format!(
                        "invalid root {r} on an intercommunicator: the root passes MPI_ROOT, \
                         the rest of its group MPI_PROC_NULL, and the other group the root's \
                         rank in it (0..{})",
                        c.peer_group().size()
                    ),
                )
            }),
    }
}

/// Refuses MPI_IN_PLACE, which intercommunicator collectives do not allow.
pub fn no_in_place(in_place: bool, call: &str) -> MpiResult<()> {
    if in_place {
        return Err(MpiError::new(
            class::ARG,
            format!("{call}: MPI_IN_PLACE is not allowed on an intercommunicator"),
        ));
    }
    Ok(())
}

fn at(base: usize, index: usize, ty: &Datatype) -> usize {
    base.wrapping_add((index as isize * ty.extent) as usize)
}

pub fn barrier(c: &CommView) -> MpiResult<()> {
    const NAME: &str = "MPI_Barrier";
    let tag = cross_tag(c);
    let local = c.local();
    let s = algo::barrier(algo::Position {
        rank: local.my_rank,
        size: local.size(),
    })
    .map_err(coll_error)?;
    // Everyone of my group has entered; the leaders tell each other so;
    // then my group learns that the other group has entered too.
    execute(&local, s.clone(), Buffers::none(), Reduction::None, NAME)?;
    if local.my_rank == 0 {
        let byte = committed(datatype::BYTE)?;
        let t = [
            Transfer::recv(0, 0, 0, &byte),
            Transfer::send(0, 0, 0, &byte),
        ];
        exchange(c, tag, t.into(), NAME)?;
    }
    execute(&local, s, Buffers::none(), Reduction::None, NAME)
}

pub fn bcast(c: &CommView, data: Data, root: i32) -> MpiResult<()> {
    const NAME: &str = "MPI_Bcast";
    let Data {
        addr: buf,
        count: n,
        dtype: dt,
    } = data;
    let tag = cross_tag(c);
    match role(c, root)? {
        Role::Root => {
            let ty = committed(dt)?;
            let n = count(n, "count")?;
            exchange(c, tag, vec![Transfer::send(0, buf, n, &ty)], NAME)
        }
        Role::Idle => Ok(()),
        Role::Leaf(root) => {
            let ty = committed(dt)?;
            let n = count(n, "count")?;
            let local = c.local();
            if local.my_rank == 0 {
                exchange(c, tag, vec![Transfer::recv(root, buf, n, &ty)], NAME)?;
            }
            let s = algo::bcast(
                algo::RootedPosition {
                    rank: local.my_rank,
                    size: local.size(),
                    root: 0,
                },
                n,
            )
            .map_err(coll_error)?;
            let b = Buffers {
                send: buf,
                send_type: dt,
                recv: buf,
                recv_type: dt,
            };
            execute(&local, s, b, Reduction::None, NAME)
        }
    }
}

/// One side of a rooted gather or scatter: the root's blocks (count and
/// displacement in elements, per remote rank) or a leaf's single block.
pub struct Rooted<'a> {
    pub name: &'static str,
    pub root: i32,
    /// The root's buffer, datatype, and (count, displacement) per remote
    /// rank, read only at the root.
    pub root_buf: usize,
    pub root_type: i32,
    pub blocks: &'a dyn Fn(usize) -> MpiResult<Vec<(usize, usize)>>,
    /// A leaf's buffer.
    pub leaf: Data,
}

/// Gather (`to_root`) or scatter: the root exchanges a block with every
/// rank of the other group, directly.
pub fn rooted(c: &CommView, r: Rooted, to_root: bool) -> MpiResult<()> {
    let tag = cross_tag(c);
    match role(c, r.root)? {
        Role::Root => {
            let ty = committed(r.root_type)?;
            let blocks = (r.blocks)(c.peer_group().size())?;
            let t: Vec<Transfer> = blocks
                .iter()
                .enumerate()
                .map(|(peer, &(n, displ))| Transfer {
                    send: !to_root,
                    peer,
                    addr: at(r.root_buf, displ, &ty),
                    count: n,
                    dtype: Rc::clone(&ty),
                })
                .collect();
            exchange(c, tag, t, r.name)
        }
        Role::Idle => Ok(()),
        Role::Leaf(root) => {
            let ty = committed(r.leaf.dtype)?;
            let n = count(r.leaf.count, "count")?;
            let t = Transfer {
                send: to_root,
                peer: root,
                addr: r.leaf.addr,
                count: n,
                dtype: ty,
            };
            exchange(c, tag, vec![t], r.name)
        }
    }
}

/// Allgather(v) and alltoall(v): every rank sends a block to, and receives
/// a block from, every rank of the other group. Blocks are (address,
/// count) per remote rank.
pub fn all_pairs(
    c: &CommView,
    name: &'static str,
    send: &[(usize, usize)],
    send_type: i32,
    recv: &[(usize, usize)],
    recv_type: i32,
) -> MpiResult<()> {
    let tag = cross_tag(c);
    let st = committed(send_type)?;
    let rt = committed(recv_type)?;
    let mut t: Vec<Transfer> = recv
        .iter()
        .enumerate()
        .map(|(peer, &(addr, n))| Transfer::recv(peer, addr, n, &rt))
        .collect();
    t.extend(
        send.iter()
            .enumerate()
            .map(|(peer, &(addr, n))| Transfer::send(peer, addr, n, &st)),
    );
    exchange(c, tag, t, name)
}

/// Block addresses: `counts[i]` elements at element displacement
/// `displs[i]` of `base`.
pub fn blocks(
    base: usize,
    dt: i32,
    counts: &[usize],
    displs: &[usize],
) -> MpiResult<Vec<(usize, usize)>> {
    let ty = committed(dt)?;
    Ok(counts
        .iter()
        .zip(displs)
        .map(|(&n, &d)| (at(base, d, &ty), n))
        .collect())
}

/// A rank's contribution to a reduction.
#[derive(Clone, Copy)]
pub struct Contribution {
    pub sendbuf: usize,
    pub count: usize,
    pub dt: i32,
    pub op: ReduceOp,
}

/// Reduces the contributions of the caller's group into a scratch buffer
/// at the group's leader (local rank 0).
fn reduce_to_leader(local: &CommView, x: Contribution, name: &'static str) -> MpiResult<Scratch> {
    let ty = committed(x.dt)?;
    let scratch = Scratch::new(&ty, x.count);
    let s = algo::reduce(
        algo::RootedPosition {
            rank: local.my_rank,
            size: local.size(),
            root: 0,
        },
        algo::Reduction {
            count: x.count,
            commutative: x.op.commutative(),
            in_place: false,
        },
    )
    .map_err(coll_error)?;
    let b = Buffers {
        send: x.sendbuf,
        send_type: x.dt,
        recv: scratch.addr(),
        recv_type: x.dt,
    };
    execute(local, s, b, Reduction::Op(x.op), name)?;
    Ok(scratch)
}

pub fn reduce(c: &CommView, x: Contribution, recvbuf: usize, root: i32) -> MpiResult<()> {
    const NAME: &str = "MPI_Reduce";
    let tag = cross_tag(c);
    match role(c, root)? {
        Role::Root => {
            let ty = committed(x.dt)?;
            exchange(c, tag, vec![Transfer::recv(0, recvbuf, x.count, &ty)], NAME)
        }
        Role::Idle => Ok(()),
        Role::Leaf(root) => {
            let local = c.local();
            let partial = reduce_to_leader(&local, x, NAME)?;
            if local.my_rank == 0 {
                let ty = committed(x.dt)?;
                let t = Transfer::send(root, partial.addr(), x.count, &ty);
                exchange(c, tag, vec![t], NAME)?;
            }
            nbc::keep_alive(partial);
            Ok(())
        }
    }
}

/// Allreduce and reduce-scatter: each group reduces its data at its
/// leader, the leaders swap the results, and each group spreads the other
/// group's result, which the leader receives at `at_leader`, with
/// `spread` on the local view.
fn reduce_swap(
    c: &CommView,
    name: &'static str,
    x: Contribution,
    at_leader: usize,
    spread: impl FnOnce(&CommView) -> MpiResult<()>,
) -> MpiResult<()> {
    let tag = cross_tag(c);
    let local = c.local();
    let partial = reduce_to_leader(&local, x, name)?;
    if local.my_rank == 0 {
        let ty = committed(x.dt)?;
        let t = [
            Transfer::recv(0, at_leader, x.count, &ty),
            Transfer::send(0, partial.addr(), x.count, &ty),
        ];
        exchange(c, tag, t.into(), name)?;
    }
    nbc::keep_alive(partial);
    spread(&local)
}

pub fn allreduce(c: &CommView, x: Contribution, recvbuf: usize) -> MpiResult<()> {
    const NAME: &str = "MPI_Allreduce";
    reduce_swap(c, NAME, x, recvbuf, |local| {
        let s = algo::bcast(
            algo::RootedPosition {
                rank: local.my_rank,
                size: local.size(),
                root: 0,
            },
            x.count,
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: recvbuf,
            send_type: x.dt,
            recv: recvbuf,
            recv_type: x.dt,
        };
        execute(local, s, b, Reduction::None, NAME)
    })
}

/// Reduce_scatter(_block): the reduction of the other group's data,
/// `counts[i]` elements to local rank i. Both groups reduce vectors of the
/// same length.
/// `x.count` is ignored: the vectors have `sum(counts)` elements.
pub fn reduce_scatter(
    c: &CommView,
    name: &'static str,
    x: Contribution,
    recvbuf: usize,
    counts: &[usize],
) -> MpiResult<()> {
    let total: usize = counts.iter().sum();
    let x = Contribution { count: total, ..x };
    let dt = x.dt;
    let ty = committed(dt)?;
    let theirs = Scratch::new(&ty, total);
    let displs = algo::packed_displacements(counts);
    reduce_swap(c, name, x, theirs.addr(), |local| {
        let mine = counts[local.my_rank];
        let s = algo::scatterv(
            algo::RootedPosition {
                rank: local.my_rank,
                size: local.size(),
                root: 0,
            },
            algo::ScattervBlocks {
                sendcounts: counts,
                displs: &displs,
                recvcount: mine,
                in_place: false,
            },
        )
        .map_err(coll_error)?;
        let b = Buffers {
            send: theirs.addr(),
            send_type: dt,
            recv: recvbuf,
            recv_type: dt,
        };
        execute(local, s, b, Reduction::None, name)
    })?;
    nbc::keep_alive(theirs);
    Ok(())
}

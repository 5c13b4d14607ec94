//! The communicator creations that exchange messages: splits (by color,
//! by type, of a Cartesian grid), and the intercommunicator calls (create,
//! merge, and splits and subsets of intercommunicators). Their messages
//! cost what SimGrid 3.32's do; the communicators themselves are formed in
//! `comm`, once, and shared by their members.

use collectives::Schedule;

use super::coll::{coll_error, execute, Buffers, Reduction, Transfer};
use super::comm::members;
use super::datatype::INT;
use super::intercoll;
use super::{
    class, CommView, Message, MpiError, MpiResult, ReqKind, SendMode, COMM_NULL, UNDEFINED,
};
use crate::sim;

/// MPI_COMM_TYPE_SHARED: ranks that share a (simulated) host.
pub const COMM_TYPE_SHARED: i32 = 1;

/// Runs `s` on `view` over int buffers `send` and `recv` (addresses).
fn run_ints(
    view: &CommView,
    s: Schedule,
    send: usize,
    recv: usize,
    call: &'static str,
) -> MpiResult<()> {
    let b = Buffers {
        send,
        send_type: INT,
        recv,
        recv_type: INT,
    };
    execute(view, s, b, Reduction::None, call)
}

/// Splits an intracommunicator as SimGrid 3.32 does, so it costs the same
/// on the network: the members' (color, key) are gathered at rank 0, which
/// forms the groups and sends each member of each group in turn its new
/// communicator (8 bytes, one message per member, a group's messages at
/// once). Only rank 0 ever holds all members' pairs, so a split of 100,000
/// ranks costs O(P log P), not O(P^2). The new communicator's handle, or
/// MPI_COMM_NULL for color MPI_UNDEFINED.
pub fn split(view: &CommView, color: i32, key: i32, call: &'static str) -> MpiResult<i32> {
    let int = sim::mpi(|w| w.mpi.committed(INT))?;
    let root = view.my_rank == 0;
    let mine = [color, key];
    let mut all: Vec<i32> = if root {
        vec![0; 2 * view.size()]
    } else {
        Vec::new()
    };
    let rc = if root { 2 } else { 0 };
    let s = collectives::gather(
        collectives::RootedPosition {
            rank: view.my_rank,
            size: view.size(),
            root: 0,
        },
        collectives::Blocks {
            sendcount: 2,
            recvcount: rc,
            in_place: false,
        },
    )
    .map_err(coll_error)?;
    run_ints(
        view,
        s,
        mine.as_ptr() as usize,
        all.as_mut_ptr() as usize,
        call,
    )?;
    let tag = sim::mpi(|w| w.next_coll_tag_in(view.ctx));
    let mut got = [COMM_NULL, 0];
    if root {
        let pairs: Vec<(i32, i32)> = all.chunks(2).map(|p| (p[0], p[1])).collect();
        let groups = sim::mpi(|w| w.split_groups(view, &pairs));
        // One group after the other: the members' messages in flight
        // together, then the next group (SimGrid's rounds).
        for (h, members) in groups {
            let msg = [h, 0];
            if members.contains(&0) {
                got = msg;
            }
            let sends: Vec<Transfer> = members
                .iter()
                .filter(|&&r| r != 0)
                .map(|&r| Transfer::send(r as usize, msg.as_ptr() as usize, 2, &int))
                .collect();
            intercoll::exchange(view, tag, sends, call)?;
        }
    } else if color >= 0 {
        let recv = Transfer::recv(0, got.as_mut_ptr() as usize, 2, &int);
        intercoll::exchange(view, tag, vec![recv], call)?;
    }
    if color < 0 && color != UNDEFINED {
        return Err(MpiError::new(class::ARG, format!("invalid color {color}")));
    }
    Ok(got[0])
}

/// Every member of `view`'s group learns every member's (color, key).
fn gather_pairs(
    view: &CommView,
    color: i32,
    key: i32,
    call: &'static str,
) -> MpiResult<Vec<(i32, i32)>> {
    let mine = [color, key];
    let mut all = vec![0i32; 2 * view.size()];
    let s = collectives::allgather(
        collectives::Position {
            rank: view.my_rank,
            size: view.size(),
        },
        collectives::Blocks {
            sendcount: 2,
            recvcount: 2,
            in_place: false,
        },
    )
    .map_err(coll_error)?;
    run_ints(
        view,
        s,
        mine.as_ptr() as usize,
        all.as_mut_ptr() as usize,
        call,
    )?;
    Ok(all.chunks(2).map(|p| (p[0], p[1])).collect())
}

/// On an intercommunicator: the two groups' leaders (local rank 0) swap
/// `data`, then each leader broadcasts what it got to its group. Every
/// member returns the remote group's data.
fn leaders_exchange(v: &CommView, data: &[i32], call: &'static str) -> MpiResult<Vec<i32>> {
    // Every member takes the tag, so later collective tags stay in step.
    let tag = sim::mpi(|w| w.next_coll_tag(v.handle));
    let mut len = [0i32];
    let mut theirs: Vec<i32> = Vec::new();
    if v.my_rank == 0 {
        let int = sim::mpi(|w| w.mpi.committed(INT))?;
        let swap = |send: &[i32], recv: &mut [i32]| -> MpiResult<()> {
            let t = [
                Transfer::recv(0, recv.as_mut_ptr() as usize, recv.len(), &int),
                Transfer::send(0, send.as_ptr() as usize, send.len(), &int),
            ];
            intercoll::exchange(v, tag, t.into(), call)
        };
        swap(&[data.len() as i32], &mut len)?;
        theirs = vec![0; usize::try_from(len[0]).unwrap_or(0)];
        swap(data, &mut theirs)?;
    }
    let local = v.local();
    bcast_ints(&local, 0, &mut len, call)?;
    theirs.resize(usize::try_from(len[0]).unwrap_or(0), 0);
    bcast_ints(&local, 0, &mut theirs, call)?;
    Ok(theirs)
}

/// Broadcasts ints from `root` of `view`.
fn bcast_ints(view: &CommView, root: usize, data: &mut [i32], call: &'static str) -> MpiResult<()> {
    let s = collectives::bcast(
        collectives::RootedPosition {
            rank: view.my_rank,
            size: view.size(),
            root,
        },
        data.len(),
    )
    .map_err(coll_error)?;
    let ptr = data.as_mut_ptr() as usize;
    run_ints(view, s, ptr, ptr, call)
}

/// The new communicator `h` made from `parent` takes its error handler
/// (MPI: dup, split, create and the intercommunicator calls inherit it).
fn inherit(parent: i32, h: i32) -> i32 {
    sim::mpi(|w| w.inherit_errhandler(parent, h));
    h
}

/// MPI_Comm_split: on an intercommunicator, each group splits and the
/// parts of the same color are paired.
pub fn comm_split(comm: i32, color: i32, key: i32) -> MpiResult<i32> {
    split_any(comm, color, key).map(|h| inherit(comm, h))
}

fn split_any(comm: i32, color: i32, key: i32) -> MpiResult<i32> {
    const NAME: &str = "MPI_Comm_split";
    let c = sim::mpi(|w| w.comm(comm))?;
    if c.remote.is_none() {
        return split(&c, color, key, NAME);
    }
    let pairs = gather_pairs(&c.local(), color, key, NAME)?;
    let flat: Vec<i32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let remote_flat = leaders_exchange(&c, &flat, NAME)?;
    let remote_pairs: Vec<(i32, i32)> = remote_flat.chunks(2).map(|p| (p[0], p[1])).collect();
    sim::mpi(|w| {
        let seq = w.next_creation_seq(comm);
        w.intercomm_split(comm, seq, &pairs, &remote_pairs)
    })
}

/// MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups the ranks of each
/// simulated host; MPI_UNDEFINED gives MPI_COMM_NULL.
pub fn split_type(comm: i32, split_type: i32, key: i32) -> MpiResult<i32> {
    by_type(comm, split_type, key).map(|h| inherit(comm, h))
}

fn by_type(comm: i32, split_type: i32, key: i32) -> MpiResult<i32> {
    let c = sim::mpi(|w| w.comm(comm))?.intra("MPI_Comm_split_type")?;
    let color = match split_type {
        COMM_TYPE_SHARED => sim::mpi(|w| w.core.host_of(w.core.current()).0 as i32),
        UNDEFINED => UNDEFINED,
        other => {
            return Err(MpiError::new(
                class::ARG,
                format!("unknown split_type {other}"),
            ))
        }
    };
    split(&c, color, key, "MPI_Comm_split_type")
}

/// MPI_Comm_create: on an intercommunicator, each side names a subgroup
/// of its own group, and the new intercommunicator joins the two.
pub fn comm_create(comm: i32, group: i32) -> MpiResult<i32> {
    create(comm, group).map(|h| inherit(comm, h))
}

fn create(comm: i32, group: i32) -> MpiResult<i32> {
    let c = sim::mpi(|w| w.comm(comm))?;
    if c.remote.is_none() {
        return sim::mpi(|w| w.comm_create(comm, group));
    }
    let g = sim::mpi(|w| w.mpi.comms.group(group).cloned())?;
    let mine: Vec<u32> = members(&g);
    if mine.iter().any(|&w| c.group.rank_of(w as usize).is_none()) {
        return Err(MpiError::new(
            class::GROUP,
            "the group is not a subset of the local group",
        ));
    }
    let flat: Vec<i32> = mine.iter().map(|&w| w as i32).collect();
    let theirs = leaders_exchange(&c, &flat, "MPI_Comm_create")?;
    let theirs: Vec<u32> = theirs.iter().map(|&w| w as u32).collect();
    sim::mpi(|w| w.intercomm_subset(comm, mine, theirs))
}

/// Exchanges two int arrays with `peer` on `comm` (a send and a receive
/// posted together), as the leaders of MPI_Intercomm_create do.
fn exchange(comm: i32, peer: i32, tag: i32, send: &[i32], recv: &mut [i32]) -> MpiResult<()> {
    let message = |buf: usize, len: usize| Message {
        buf,
        count: len as i64,
        datatype: INT,
        peer,
        tag,
        comm,
    };
    let (r, s) = (
        message(recv.as_mut_ptr() as usize, recv.len()),
        message(send.as_ptr() as usize, send.len()),
    );
    let (r, s) = sim::mpi(|w| -> MpiResult<_> {
        let r = w.new_request(ReqKind::Recv, &r, false)?;
        w.start(r)?;
        let s = w.new_request(ReqKind::Send(SendMode::Standard), &s, false)?;
        w.start(s)?;
        Ok((r, s))
    })?;
    super::wait_for(&[r, s], "MPI_Intercomm_create", |w| {
        super::is_complete(w, r) && super::is_complete(w, s)
    });
    let st = sim::mpi(|w| {
        let st = w.mpi.request(r).status;
        w.mpi.remove_request(r);
        w.mpi.remove_request(s);
        st
    });
    if st.error != 0 {
        return Err(MpiError::new(
            st.error,
            "the leaders' exchange was truncated",
        ));
    }
    Ok(())
}

/// The leaders of MPI_Intercomm_create: who they are and how they meet.
#[derive(Debug, Clone, Copy)]
pub struct Leaders {
    /// The local leader's rank in the local communicator.
    pub local: i32,
    /// The communicator both leaders belong to, and the remote leader's
    /// rank in it.
    pub peer_comm: i32,
    pub remote: i32,
    pub tag: i32,
}

/// MPI_Intercomm_create: the leaders swap their groups over `peer_comm`,
/// then each broadcasts the other's to its group.
pub fn intercomm_create(local_comm: i32, l: Leaders) -> MpiResult<i32> {
    const NAME: &str = "MPI_Intercomm_create";
    let lc = sim::mpi(|w| w.comm(local_comm))?.intra(NAME)?;
    let leader = usize::try_from(l.local)
        .ok()
        .filter(|&r| r < lc.size())
        .ok_or_else(|| MpiError::new(class::RANK, format!("invalid local_leader {}", l.local)))?;
    let mine: Vec<i32> = members(&lc.group).into_iter().map(|w| w as i32).collect();
    // [remote size, context of peer_comm]: only the leaders know them.
    let mut head = [0i32; 2];
    let mut remote: Vec<i32> = Vec::new();
    if lc.my_rank == leader {
        let pc = sim::mpi(|w| w.comm(l.peer_comm))?;
        let mut n = [0i32];
        exchange(l.peer_comm, l.remote, l.tag, &[mine.len() as i32], &mut n)?;
        remote = vec![0; usize::try_from(n[0]).unwrap_or(0)];
        exchange(l.peer_comm, l.remote, l.tag, &mine, &mut remote)?;
        head = [n[0], pc.ctx as i32];
    }
    bcast_ints(&lc, leader, &mut head, NAME)?;
    remote.resize(usize::try_from(head[0]).unwrap_or(0), 0);
    bcast_ints(&lc, leader, &mut remote, NAME)?;
    let to_u32 = |v: &[i32]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
    let h = sim::mpi(|w| w.intercomm_join(head[1] as u32, l.tag, to_u32(&mine), to_u32(&remote)));
    Ok(inherit(local_comm, h))
}

/// MPI_Intercomm_merge: the groups swap their `high` flags to order
/// themselves.
pub fn intercomm_merge(intercomm: i32, high: bool) -> MpiResult<i32> {
    let v = sim::mpi(|w| w.comm(intercomm))?;
    if v.remote.is_none() {
        return Err(MpiError::new(
            class::COMM,
            "MPI_Intercomm_merge needs an intercommunicator",
        ));
    }
    let flag = i32::from(high);
    let remote_flag = leaders_exchange(&v, &[flag], "MPI_Intercomm_merge")?;
    let remote_high = remote_flag.first().is_some_and(|&f| f != 0);
    sim::mpi(|w| w.intercomm_merge(intercomm, high, remote_high)).map(|h| inherit(intercomm, h))
}

/// MPI_Comm_create_group: collective over the group's members only.
pub fn create_group(comm: i32, group: i32, tag: i32) -> MpiResult<i32> {
    sim::mpi(|w| w.comm_create_group(comm, group, tag)).map(|h| inherit(comm, h))
}

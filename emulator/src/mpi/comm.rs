//! Communicators and groups beyond MPI_COMM_WORLD and MPI_COMM_SELF.
//!
//! A communicator is stored once and shared by its members: its group
//! (shared too) and its context ids. Creating one is collective; the
//! members find the same object through a key made of the parent's context
//! and the parent's creation sequence number, which every member advances
//! in the same order (MPI requires collective calls in the same order).
//! Per-process properties (name, error handler) stay per rank.

use std::collections::HashMap;
use std::rc::Rc;

use super::attr::{self, Kind as AttrKind};
use super::ledger::Kind;
use super::Ctx;
use super::{check, class, Group, MpiError, MpiResult, COMM_NULL, COMM_SELF, COMM_WORLD};
use crate::sim;

/// A shared communicator.
#[derive(Debug)]
pub struct CommObj {
    /// First context id: point-to-point. `ctx + 1` is for collectives; an
    /// intercommunicator also has `ctx + 2` and `ctx + 3` for traffic
    /// within each of its groups.
    pub ctx: u32,
    pub group: Group,
    /// The second group of an intercommunicator.
    pub remote: Option<Group>,
    /// A virtual topology (MPI_Cart_create...), shared by the members.
    pub topology: Option<Rc<Topology>>,
    /// Members that have not freed it yet.
    refs: usize,
}

/// How a duplication (MPI_Comm_dup, MPI_Type_dup) ends once the
/// duplicate exists.
#[derive(Debug)]
pub enum Duplicate {
    /// The duplicate's handle.
    Made(i32),
    /// A program's attribute copy callback failed with this error: the
    /// duplicate was freed, and the call returns the null handle.
    Failed(MpiError),
}

impl Duplicate {
    /// The handle the call returns (`null` when it failed) and the call's
    /// result.
    pub fn into_output(self, null: i32) -> (i32, MpiResult<()>) {
        match self {
            Duplicate::Made(h) => (h, Ok(())),
            Duplicate::Failed(e) => (null, Err(e)),
        }
    }
}

/// A virtual topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Topology {
    /// Dimensions and periodicity, row-major rank order.
    Cart { dims: Vec<i32>, periods: Vec<bool> },
    /// MPI_Graph_create: node i's neighbours are
    /// edges[index[i-1]..index[i]] (index[-1] = 0).
    Graph { index: Vec<i32>, edges: Vec<i32> },
    /// MPI_Dist_graph_create(_adjacent): each rank's in-edges (sources)
    /// and out-edges (destinations) with their weights, by rank.
    DistGraph {
        sources: Vec<Vec<(i32, i32)>>,
        destinations: Vec<Vec<(i32, i32)>>,
        weighted: bool,
    },
}

/// Neighbours of a rank: (rank, direction tag) per in-neighbour, then per
/// out-neighbour.
pub type Neighbours = (Vec<(i32, i32)>, Vec<(i32, i32)>);

impl Topology {
    /// The in- and out-neighbours of `rank` in the order the neighbourhood
    /// collectives use, each with the direction tag that tells apart two
    /// messages between the same ranks (a periodic dimension of size 1 or
    /// 2 makes a rank both neighbours): a message sent to out-neighbour j
    /// carries the tag its receiver expects from that in-neighbour.
    pub fn neighbours(&self, rank: usize) -> Neighbours {
        match self {
            Topology::Cart { dims, periods } => {
                let c = Self::coords(dims, rank as i32);
                let (mut ins, mut outs) = (Vec::new(), Vec::new());
                for d in 0..dims.len() {
                    let at = |delta: i32| {
                        let mut x = c.clone();
                        x[d] += delta;
                        Self::rank_at(dims, periods, &x).unwrap_or(super::PROC_NULL)
                    };
                    let (minus, plus) = (at(-1), at(1));
                    // Receive block 2d comes from the minus side (which sent
                    // it towards its plus side), 2d+1 from the plus side.
                    ins.push((minus, 1));
                    ins.push((plus, 0));
                    outs.push((minus, 0));
                    outs.push((plus, 1));
                }
                (ins, outs)
            }
            Topology::Graph { index, edges } => {
                let n: Vec<(i32, i32)> = Self::graph_neighbours(index, edges, rank)
                    .iter()
                    .map(|&e| (e, 0))
                    .collect();
                (n.clone(), n)
            }
            Topology::DistGraph {
                sources,
                destinations,
                ..
            } => (
                sources[rank].iter().map(|&(s, _)| (s, 0)).collect(),
                destinations[rank].iter().map(|&(d, _)| (d, 0)).collect(),
            ),
        }
    }

    /// The neighbours of `rank` in an MPI_Graph_create graph.
    pub fn graph_neighbours<'a>(index: &[i32], edges: &'a [i32], rank: usize) -> &'a [i32] {
        let start = if rank == 0 {
            0
        } else {
            index[rank - 1] as usize
        };
        &edges[start..index[rank] as usize]
    }

    /// Coordinates of `rank` in a Cartesian topology.
    pub fn coords(dims: &[i32], mut rank: i32) -> Vec<i32> {
        let mut c = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            c[d] = rank % dims[d].max(1);
            rank /= dims[d].max(1);
        }
        c
    }

    /// The rank at `coords`, wrapping periodic dimensions; None when a
    /// coordinate of a non-periodic dimension is out of range.
    pub fn rank_at(dims: &[i32], periods: &[bool], coords: &[i32]) -> Option<i32> {
        let mut r = 0i32;
        for d in 0..dims.len() {
            let mut c = coords[d];
            if periods[d] {
                c = c.rem_euclid(dims[d].max(1));
            } else if c < 0 || c >= dims[d] {
                return None;
            }
            r = r * dims[d] + c;
        }
        Some(r)
    }
}

/// What kind of creation a pending key belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Creation {
    Collective,
    Intercomm,
    Merge,
    CreateGroup,
}

/// Key of a communicator under construction: the kind of creation and
/// numbers every member computes identically.
type PendingKey = (Creation, u64, u64, u64);

/// All communicators and groups.
#[derive(Debug)]
pub struct Comms {
    /// Indexed by handle; 0..=2 are NULL, WORLD and SELF (not stored).
    table: Vec<Option<CommObj>>,
    free: Vec<usize>,
    next_ctx: u32,
    /// Communicators being created: handle and members still to arrive.
    pending: HashMap<PendingKey, (i32, usize)>,
    /// Per-rank counters of creations sharing the same arguments (so that
    /// repeated identical calls make distinct communicators).
    repeats: HashMap<(usize, Creation, u64, u64), u64>,
    /// Groups by handle (0 = MPI_GROUP_NULL, 1 = MPI_GROUP_EMPTY).
    groups: Vec<Option<Group>>,
    free_groups: Vec<usize>,
}

impl Comms {
    pub fn new() -> Self {
        Self {
            table: vec![None, None, None],
            free: Vec::new(),
            next_ctx: 4,
            pending: HashMap::new(),
            repeats: HashMap::new(),
            groups: vec![None, Some(Group::List(Rc::from(Vec::new())))],
            free_groups: Vec::new(),
        }
    }

    pub fn get(&self, handle: i32) -> Option<&CommObj> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.table.get(h))
            .and_then(Option::as_ref)
    }

    fn insert(&mut self, obj: CommObj) -> i32 {
        let idx = match self.free.pop() {
            Some(i) => {
                self.table[i] = Some(obj);
                i
            }
            None => {
                self.table.push(Some(obj));
                self.table.len() - 1
            }
        };
        idx as i32
    }

    pub fn group(&self, handle: i32) -> MpiResult<&Group> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.groups.get(h))
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                MpiError::new(
                    super::class::GROUP,
                    format!("invalid group handle {handle}"),
                )
            })
    }

    pub fn add_group(&mut self, g: Group) -> i32 {
        let idx = match self.free_groups.pop() {
            Some(i) => {
                self.groups[i] = Some(g);
                i
            }
            None => {
                self.groups.push(Some(g));
                self.groups.len() - 1
            }
        };
        idx as i32
    }

    pub fn free_group(&mut self, handle: i32) -> MpiResult<()> {
        self.group(handle)?;
        if handle > 1 {
            self.groups[handle as usize] = None;
            self.free_groups.push(handle as usize);
        }
        Ok(())
    }
}

impl Default for Comms {
    fn default() -> Self {
        Self::new()
    }
}

/// The world ranks of a group, as a list.
pub fn members(g: &Group) -> Vec<u32> {
    (0..g.size()).map(|r| g.world(r) as u32).collect()
}

impl Ctx<'_> {
    /// The view of a stored communicator for the current rank.
    pub(super) fn stored_comm(&self, handle: i32) -> MpiResult<CommView> {
        let obj = self.mpi.comms.get(handle).ok_or_else(|| {
            MpiError::new(class::COMM, format!("invalid communicator handle {handle}"))
        })?;
        let not_member = || {
            MpiError::new(
                class::COMM,
                format!(
                    "rank {} is not a member of {}",
                    self.core.current(),
                    comm_name(handle)
                ),
            )
        };
        if let Some(my_rank) = obj.group.rank_of(self.core.current()) {
            return Ok(CommView {
                handle,
                ctx: obj.ctx,
                group: obj.group.clone(),
                remote: obj.remote.clone(),
                my_rank,
            });
        }
        let remote = obj.remote.as_ref().ok_or_else(not_member)?;
        let my_rank = remote.rank_of(self.core.current()).ok_or_else(not_member)?;
        Ok(CommView {
            handle,
            ctx: obj.ctx,
            group: remote.clone(),
            remote: Some(obj.group.clone()),
            my_rank,
        })
    }

    /// Finds or creates the communicator that the members of `parent`
    /// agree on for this creation call. `group` builds the new group when
    /// the first member arrives; `members` is how many will fetch it.
    fn join_new_comm(
        &mut self,
        parent: &CommView,
        seq: u32,
        color: i64,
        members: usize,
        group: impl FnOnce() -> Group,
    ) -> i32 {
        let key = (
            Creation::Collective,
            u64::from(parent.ctx),
            u64::from(seq),
            color as u64,
        );
        self.join_key(key, members, || (group(), None))
    }

    /// The communicator for `key`: created by the first of `members`
    /// callers (from `groups`: local group, remote group), found by the
    /// others.
    fn join_key(
        &mut self,
        key: PendingKey,
        members: usize,
        groups: impl FnOnce() -> (Group, Option<Group>),
    ) -> i32 {
        let handle = if let Some((handle, left)) = self.mpi.comms.pending.get_mut(&key) {
            let h = *handle;
            *left -= 1;
            if *left == 0 {
                self.mpi.comms.pending.remove(&key);
            }
            h
        } else {
            let (group, remote) = groups();
            let handle = self.new_comm(group, remote, members);
            if members > 1 {
                self.mpi.comms.pending.insert(key, (handle, members - 1));
            }
            handle
        };
        self.note_created(Kind::Comm, handle);
        handle
    }

    /// Stores a new communicator with fresh context ids, for `members`
    /// members.
    fn new_comm(&mut self, group: Group, remote: Option<Group>, members: usize) -> i32 {
        let ctx = self.mpi.comms.next_ctx;
        let width = if remote.is_some() { 4 } else { 2 };
        self.mpi.comms.next_ctx = ctx
            .checked_add(width)
            .expect("communicator context ids exhausted");
        self.mpi.comms.insert(CommObj {
            ctx,
            group,
            remote,
            topology: None,
            refs: members,
        })
    }

    /// The next creation sequence number of `comm` for the current rank.
    pub fn next_creation_seq(&mut self, comm: i32) -> u32 {
        // Shares the collective counter: creation calls are collectives.
        self.next_coll_tag(comm) as u32
    }

    /// The topology of `comm`, if it has one.
    pub fn topology(&self, comm: i32) -> MpiResult<Option<Rc<Topology>>> {
        self.comm(comm)?;
        Ok(self.mpi.comms.get(comm).and_then(|o| o.topology.clone()))
    }

    /// Attaches a topology to a stored communicator (each member may set
    /// the same one).
    pub fn set_topology(&mut self, comm: i32, topology: Topology) {
        if let Some(Some(obj)) = usize::try_from(comm)
            .ok()
            .and_then(|i| self.mpi.comms.table.get_mut(i))
        {
            obj.topology = Some(Rc::new(topology));
        }
    }

    /// MPI_Cart_create without reordering: the first prod(dims) ranks.
    pub fn cart_create(&mut self, comm: i32, dims: Vec<i32>, periods: Vec<bool>) -> MpiResult<i32> {
        let v = self.comm(comm)?.intra("MPI_Cart_create")?;
        let nnodes: i64 = dims.iter().map(|&d| i64::from(d)).product();
        if dims.iter().any(|&d| d <= 0) {
            return Err(MpiError::new(
                class::DIMS,
                format!("invalid dimensions {dims:?}: each must be positive"),
            ));
        }
        // MPI_ERR_ARG as MPICH: there is no topology yet to be wrong.
        if nnodes > v.size() as i64 {
            return Err(MpiError::new(
                class::ARG,
                format!(
                    "a {dims:?} grid needs {nnodes} ranks but the communicator has {}",
                    v.size()
                ),
            ));
        }
        let seq = self.next_creation_seq(comm);
        if v.my_rank as i64 >= nnodes {
            return Ok(COMM_NULL);
        }
        let list: Vec<u32> = (0..nnodes as usize)
            .map(|r| v.group.world(r) as u32)
            .collect();
        let h = self.join_new_comm(&v, seq, -2, nnodes as usize, || Group::List(Rc::from(list)));
        self.set_topology(h, Topology::Cart { dims, periods });
        Ok(h)
    }

    /// MPI_Graph_create without reordering: the first `nnodes` ranks.
    pub fn graph_create(&mut self, comm: i32, index: Vec<i32>, edges: Vec<i32>) -> MpiResult<i32> {
        let v = self.comm(comm)?.intra("MPI_Graph_create")?;
        let nnodes = index.len();
        if nnodes > v.size() {
            return Err(MpiError::new(
                class::ARG,
                format!(
                    "a graph of {nnodes} nodes does not fit in {} ranks",
                    v.size()
                ),
            ));
        }
        let mut prev = 0;
        for &i in &index {
            if i < prev || i as usize > edges.len() {
                return Err(MpiError::new(
                    class::ARG,
                    "the graph's index array is not non-decreasing within the edges",
                ));
            }
            prev = i;
        }
        if let Some(e) = edges.iter().find(|&&e| e < 0 || e as usize >= nnodes) {
            return Err(MpiError::new(
                class::RANK,
                format!("edge to node {e} of a graph of {nnodes} nodes"),
            ));
        }
        let seq = self.next_creation_seq(comm);
        if v.my_rank >= nnodes {
            return Ok(COMM_NULL);
        }
        let list: Vec<u32> = (0..nnodes).map(|r| v.group.world(r) as u32).collect();
        let h = self.join_new_comm(&v, seq, -3, nnodes, || Group::List(Rc::from(list)));
        self.set_topology(h, Topology::Graph { index, edges });
        Ok(h)
    }

    /// MPI_Dist_graph_create without reordering: a communicator with the
    /// group of `comm`, to which each member adds `edges` (source,
    /// destination, weight). The graph is complete once every member has
    /// called (the caller then synchronizes).
    pub fn dist_graph_create(
        &mut self,
        comm: i32,
        edges: &[(i32, i32, i32)],
        weighted: bool,
    ) -> MpiResult<i32> {
        self.dist_graph_join(comm, edges, weighted, |sources, destinations, _| {
            for &(s, d, wt) in edges {
                destinations[s as usize].push((d, wt));
                sources[d as usize].push((s, wt));
            }
        })
    }

    /// MPI_Dist_graph_create_adjacent: each member states its own in- and
    /// out-neighbours, in the order its neighbourhood collectives use.
    pub fn dist_graph_create_adjacent(
        &mut self,
        comm: i32,
        out_edges: &[(i32, i32, i32)],
        incoming: &[(i32, i32)],
        weighted: bool,
    ) -> MpiResult<i32> {
        let checked: Vec<(i32, i32, i32)> = incoming.iter().map(|&(s, w)| (s, 0, w)).collect();
        self.check_edges(comm, &checked, weighted)?;
        self.dist_graph_join(comm, out_edges, weighted, |sources, destinations, me| {
            destinations[me] = out_edges.iter().map(|e| (e.1, e.2)).collect();
            sources[me] = incoming.to_vec();
        })
    }

    fn check_edges(&self, comm: i32, edges: &[(i32, i32, i32)], weighted: bool) -> MpiResult<()> {
        let n = self.comm(comm)?.size();
        if let Some(e) = edges
            .iter()
            .find(|e| e.0 < 0 || e.0 as usize >= n || e.1 < 0 || e.1 as usize >= n)
        {
            return Err(MpiError::new(
                class::RANK,
                format!("edge {} -> {} in a communicator of {n} ranks", e.0, e.1),
            ));
        }
        if weighted && edges.iter().any(|e| e.2 < 0) {
            return Err(MpiError::new(class::ARG, "negative edge weight"));
        }
        Ok(())
    }

    /// Joins the distributed graph communicator being made from `comm`
    /// and lets `add` record the current rank's part of the graph.
    fn dist_graph_join(
        &mut self,
        comm: i32,
        edges: &[(i32, i32, i32)],
        weighted: bool,
        add: impl FnOnce(&mut [Vec<(i32, i32)>], &mut [Vec<(i32, i32)>], usize),
    ) -> MpiResult<i32> {
        let v = self.comm(comm)?.intra("MPI_Dist_graph_create")?;
        self.check_edges(comm, edges, weighted)?;
        let n = v.size();
        let seq = self.next_creation_seq(comm);
        let g = match &v.group {
            Group::Single(w) => Group::List(Rc::from(vec![*w as u32])),
            other => other.clone(),
        };
        let h = self.join_new_comm(&v, seq, -4, n, || g);
        let Some(Some(obj)) = usize::try_from(h)
            .ok()
            .and_then(|i| self.mpi.comms.table.get_mut(i))
        else {
            return Err(MpiError::new(class::INTERN, "new communicator missing"));
        };
        let t = obj.topology.get_or_insert_with(|| {
            Rc::new(Topology::DistGraph {
                sources: vec![Vec::new(); n],
                destinations: vec![Vec::new(); n],
                weighted: false,
            })
        });
        if let Topology::DistGraph {
            sources,
            destinations,
            weighted: w,
        } = Rc::make_mut(t)
        {
            *w |= weighted;
            add(sources, destinations, v.my_rank);
        }
        Ok(h)
    }

    /// MPI_Comm_dup (the new communicator has the same group).
    pub fn comm_dup(&mut self, comm: i32) -> MpiResult<i32> {
        let v = self.comm(comm)?;
        let seq = self.next_creation_seq(comm);
        let g = match &v.group {
            Group::Single(w) => Group::List(Rc::from(vec![*w as u32])),
            other => other.clone(),
        };
        let n = v.size() + v.remote.as_ref().map_or(0, Group::size);
        let key = (
            Creation::Collective,
            u64::from(v.ctx),
            u64::from(seq),
            i64::MIN as u64,
        );
        let remote = v.remote.clone();
        let h = self.join_key(key, n, || (g, remote));
        if let Some(t) = self.mpi.comms.get(comm).and_then(|o| o.topology.clone()) {
            self.set_topology(h, (*t).clone());
        }
        Ok(h)
    }

    /// How many times the current rank made a creation with these
    /// arguments before (then counts this one).
    fn repeat_count(&mut self, kind: Creation, a: u64, b: u64) -> u64 {
        let me = self.core.current();
        let c = self.mpi.comms.repeats.entry((me, kind, a, b)).or_insert(0);
        *c += 1;
        *c - 1
    }

    /// MPI_Intercomm_create, once both groups are known: `local` and
    /// `remote` as world ranks. `peer_ctx` and `tag` identify the call.
    pub fn intercomm_join(
        &mut self,
        peer_ctx: u32,
        tag: i32,
        local: Vec<u32>,
        remote: Vec<u32>,
    ) -> i32 {
        let (a, b) = (
            local.first().copied().unwrap_or(0),
            remote.first().copied().unwrap_or(0),
        );
        let pair = (u64::from(a.min(b)) << 32) | u64::from(a.max(b));
        let call = (u64::from(peer_ctx) << 32) | u64::from(tag as u32);
        let n = self.repeat_count(Creation::Intercomm, call, pair);
        let members = local.len() + remote.len();
        self.join_key((Creation::Intercomm, call, pair, n), members, || {
            (
                Group::List(Rc::from(local)),
                Some(Group::List(Rc::from(remote))),
            )
        })
    }

    /// MPI_Comm_split on an intercommunicator, given every member's
    /// (color, key) for both groups in rank order.
    pub fn intercomm_split(
        &mut self,
        comm: i32,
        seq: u32,
        local: &[(i32, i32)],
        remote: &[(i32, i32)],
    ) -> MpiResult<i32> {
        let v = self.comm(comm)?;
        let Some(remote_group) = v.remote.clone() else {
            return Err(MpiError::new(class::COMM, "not an intercommunicator"));
        };
        let (color, _) = local[v.my_rank];
        if color == super::UNDEFINED {
            return Ok(COMM_NULL);
        }
        if color < 0 {
            return Err(MpiError::new(class::ARG, format!("invalid color {color}")));
        }
        let part = |pairs: &[(i32, i32)], g: &Group| -> Vec<u32> {
            let mut chosen: Vec<(i32, usize)> = pairs
                .iter()
                .enumerate()
                .filter(|(_, (c, _))| *c == color)
                .map(|(r, (_, k))| (*k, r))
                .collect();
            chosen.sort_unstable();
            chosen.iter().map(|&(_, r)| g.world(r) as u32).collect()
        };
        let mine = part(local, &v.group);
        let theirs = part(remote, &remote_group);
        if theirs.is_empty() {
            return Ok(COMM_NULL);
        }
        let n = mine.len() + theirs.len();
        let key = (
            Creation::Collective,
            u64::from(v.ctx),
            u64::from(seq),
            color as u64,
        );
        Ok(self.join_key(key, n, || {
            (
                Group::List(Rc::from(mine)),
                Some(Group::List(Rc::from(theirs))),
            )
        }))
    }

    /// MPI_Comm_create on an intercommunicator, once both sides' subgroups
    /// (world ranks) are known.
    pub fn intercomm_subset(
        &mut self,
        comm: i32,
        mine: Vec<u32>,
        theirs: Vec<u32>,
    ) -> MpiResult<i32> {
        let v = self.comm(comm)?;
        let seq = self.next_creation_seq(comm);
        let me = self.core.current() as u32;
        if mine.is_empty() || theirs.is_empty() || !mine.contains(&me) {
            return Ok(COMM_NULL);
        }
        let n = mine.len() + theirs.len();
        let key = (Creation::Collective, u64::from(v.ctx), u64::from(seq), 0);
        Ok(self.join_key(key, n, || {
            (
                Group::List(Rc::from(mine)),
                Some(Group::List(Rc::from(theirs))),
            )
        }))
    }

    /// MPI_Intercomm_merge, once the groups' `high` flags are known.
    pub fn intercomm_merge(
        &mut self,
        comm: i32,
        my_high: bool,
        remote_high: bool,
    ) -> MpiResult<i32> {
        let v = self.comm(comm)?;
        let Some(remote) = v.remote.clone() else {
            return Err(MpiError::new(
                class::COMM,
                "MPI_Intercomm_merge needs an intercommunicator",
            ));
        };
        let seq = self.next_creation_seq(comm);
        let mine = members(&v.group);
        let theirs = members(&remote);
        // Low group first; on a tie, the group holding the lower world rank.
        let mine_first = if my_high != remote_high {
            !my_high
        } else {
            mine.iter().min() < theirs.iter().min()
        };
        let list: Vec<u32> = if mine_first {
            mine.iter().chain(&theirs).copied().collect()
        } else {
            theirs.iter().chain(&mine).copied().collect()
        };
        let n = list.len();
        Ok(self.join_key(
            (Creation::Merge, u64::from(v.ctx), u64::from(seq), 0),
            n,
            || (Group::List(Rc::from(list)), None),
        ))
    }

    /// MPI_Comm_create_group: only the members of `group` call it.
    pub fn comm_create_group(&mut self, comm: i32, group: i32, tag: i32) -> MpiResult<i32> {
        let v = self.comm(comm)?.intra("MPI_Comm_create_group")?;
        let g = self.mpi.comms.group(group)?.clone();
        if g.rank_of(self.core.current()).is_none() {
            return Err(MpiError::new(
                class::GROUP,
                "the calling rank is not in the group",
            ));
        }
        let list = members(&g);
        if list.iter().any(|&w| v.group.rank_of(w as usize).is_none()) {
            return Err(MpiError::new(
                class::GROUP,
                "the group is not a subset of the communicator's group",
            ));
        }
        // Members agree on the group's content, not on a handle.
        let fingerprint = {
            use std::hash::Hasher;
            let mut h = fnv::FnvHasher::default();
            list.iter().for_each(|&x| h.write_u32(x));
            h.finish()
        };
        let call = (u64::from(v.ctx) << 32) | u64::from(tag as u32);
        let n = self.repeat_count(Creation::CreateGroup, call, fingerprint);
        let size = list.len();
        Ok(
            self.join_key((Creation::CreateGroup, call, fingerprint, n), size, || {
                (Group::List(Rc::from(list)), None)
            }),
        )
    }

    /// The communicators of MPI_Comm_split, formed once (by the parent's
    /// rank 0) from every member's (color, key) in rank order. Members
    /// with a negative color (MPI_UNDEFINED, or an invalid color that the
    /// member itself reports) are in no group. Each group is ordered by
    /// key, ties by parent rank; the groups come (and are created) in the
    /// order of their lowest parent rank, as SimGrid 3.32 forms them. Each
    /// comes with its handle and its members as parent ranks.
    pub fn split_groups(
        &mut self,
        parent: &CommView,
        colors_keys: &[(i32, i32)],
    ) -> Vec<(i32, Vec<u32>)> {
        let mut order: Vec<(i32, i32, u32)> = colors_keys
            .iter()
            .enumerate()
            .filter(|(_, (c, _))| *c >= 0)
            .map(|(r, &(c, k))| (c, k, r as u32))
            .collect();
        order.sort_unstable();
        let mut groups: Vec<Vec<u32>> = order
            .chunk_by(|a, b| a.0 == b.0)
            .map(|members| members.iter().map(|&(_, _, r)| r).collect())
            .collect();
        groups.sort_unstable_by_key(|g| g.iter().min().copied());
        groups
            .into_iter()
            .map(|members| {
                let list: Vec<u32> = members
                    .iter()
                    .map(|&r| parent.group.world(r as usize) as u32)
                    .collect();
                let h = self.new_comm(Group::from_world_ranks(list), None, members.len());
                // Every member is in the split, at the place of its call.
                if self.mpi.ledger.is_on() {
                    for &r in &members {
                        let w = parent.group.world(r as usize);
                        self.mpi.ledger.open(Kind::Comm, h, w);
                    }
                }
                (h, members)
            })
            .collect()
    }

    /// MPI_Comm_create: members of `group` get the new communicator.
    pub fn comm_create(&mut self, comm: i32, group: i32) -> MpiResult<i32> {
        let v = self.comm(comm)?.intra("MPI_Comm_create")?;
        let g = self.mpi.comms.group(group)?.clone();
        let seq = self.next_creation_seq(comm);
        for r in 0..g.size() {
            if v.group.rank_of(g.world(r)).is_none() {
                return Err(MpiError::new(
                    class::GROUP,
                    "the group is not a subset of the communicator's group",
                ));
            }
        }
        if g.rank_of(self.core.current()).is_none() {
            return Ok(COMM_NULL);
        }
        // Since MPI 2.2 the members may pass different, disjoint groups:
        // the group's first member tells them apart.
        let n = g.size();
        let first = g.world(0) as i64;
        Ok(self.join_new_comm(&v, seq, first, n, || g))
    }

    /// MPI_Comm_free for the current rank.
    pub fn comm_free(&mut self, comm: i32) -> MpiResult<()> {
        if comm == COMM_WORLD || comm == COMM_SELF {
            return Err(MpiError::new(
                class::COMM,
                format!("{} cannot be freed", comm_name(comm)),
            ));
        }
        self.stored_comm(comm)?;
        let idx = comm as usize;
        let gone = match self.mpi.comms.table[idx].as_mut() {
            Some(obj) => {
                obj.refs -= 1;
                obj.refs == 0
            }
            None => false,
        };
        let me = self.core.current();
        let (ctx, local_ctx) = match self.comm(comm) {
            // An intercommunicator's group-local context has a counter too.
            Ok(v) if v.remote.is_some() => (v.ctx, v.ctx + 2),
            Ok(v) => (v.ctx, v.ctx),
            Err(_) => (u32::MAX, u32::MAX),
        };
        self.mpi.ranks[me]
            .coll_seq
            .retain(|(c, _)| *c != ctx && *c != local_ctx);
        if let Some(cold) = self.mpi.ranks[me].cold.as_deref_mut() {
            cold.errhandlers.retain(|(c, _)| *c != comm);
            cold.names.retain(|(c, _)| *c != comm);
        }
        self.note_freed(Kind::Comm, comm);
        if gone {
            self.mpi.comms.table[idx] = None;
            self.mpi.comms.free.push(idx);
        }
        Ok(())
    }

    /// MPI_Comm_group: a new group handle for the communicator's group.
    pub fn comm_group(&mut self, comm: i32) -> MpiResult<i32> {
        let v = self.comm(comm)?;
        let g = match v.group {
            Group::Single(w) => Group::List(Rc::from(vec![w as u32])),
            g => g,
        };
        let h = self.mpi.comms.add_group(g);
        let me = self.core.current();
        self.mpi.ledger.open_comm_group(h, comm, me);
        Ok(h)
    }

    /// MPI_Comm_compare.
    pub fn comm_compare(&self, a: i32, b: i32) -> MpiResult<i32> {
        let va = self.comm(a)?;
        let vb = self.comm(b)?;
        if va.ctx == vb.ctx && va.handle == vb.handle {
            return Ok(0); // MPI_IDENT
        }
        Ok(match group_compare(&va.group, &vb.group) {
            0 => 1, // same members, same order: MPI_CONGRUENT
            r => r,
        })
    }

    /// The name of a communicator for the current rank.
    pub fn comm_get_name(&self, comm: i32) -> MpiResult<String> {
        self.comm(comm)?;
        let me = self.core.current();
        Ok(self.mpi.ranks[me]
            .cold()
            .names
            .iter()
            .find(|(c, _)| *c == comm)
            .map(|(_, n)| n.clone())
            .unwrap_or_else(|| match comm {
                COMM_WORLD => "MPI_COMM_WORLD".into(),
                COMM_SELF => "MPI_COMM_SELF".into(),
                _ => String::new(),
            }))
    }

    /// MPI_Comm_set_name for the current rank.
    pub fn comm_set_name(&mut self, comm: i32, name: &str) -> MpiResult<()> {
        self.comm(comm)?;
        let name = check::object_name(name);
        let me = self.core.current();
        let names = &mut self.mpi.ranks[me].cold_mut().names;
        match names.iter_mut().find(|(c, _)| *c == comm) {
            Some(e) => e.1 = name,
            None => names.push((comm, name)),
        }
        Ok(())
    }

    /// The remote group of an intercommunicator.
    pub fn remote_group(&self, comm: i32) -> MpiResult<Group> {
        self.comm(comm)?.remote.ok_or_else(|| {
            MpiError::new(
                class::COMM,
                format!("{} is not an intercommunicator", comm_name(comm)),
            )
        })
    }

    /// MPI_Comm_remote_group: a new group handle for the remote group.
    pub fn comm_remote_group(&mut self, comm: i32) -> MpiResult<i32> {
        let remote = self.remote_group(comm)?;
        let h = self.mpi.comms.add_group(remote);
        self.note_created(Kind::Group, h);
        Ok(h)
    }

    /// MPI_Comm_set_info: the hints of `info` replace those of `comm`.
    pub fn set_comm_info(&mut self, comm: i32, info: i32) -> MpiResult<()> {
        self.comm(comm)?;
        let hints = self.mpi.hints(info)?;
        self.set_comm_hints(comm, hints);
        Ok(())
    }

    /// MPI_Comm_get_info: a new info object with the hints of `comm`.
    pub fn comm_info(&mut self, comm: i32) -> MpiResult<i32> {
        self.comm(comm)?;
        let hints = self.comm_hints(comm);
        Ok(self.new_info(hints))
    }
}

/// SimGrid 3.32 numbers a duplicate at its rank 0 as it makes it, which
/// broadcasts the number (an int) to the members: the same broadcast, for
/// the same time. (Not for intercommunicators, which SimGrid's
/// duplication does not know.)
fn announce(h: i32) -> MpiResult<()> {
    if sim::mpi(|w| w.comm(h))?.remote.is_some() {
        return Ok(());
    }
    let mut number: i32 = 0;
    let data = super::collective::Data {
        addr: std::ptr::addr_of_mut!(number) as usize,
        count: 1,
        dtype: super::datatype::INT,
    };
    super::collective::bcast(h, data, 0)
}

/// MPI_Comm_dup: a communicator with the group and topology of `comm`,
/// its attributes copied by the program's callbacks and its error
/// handler; a failing copy callback fails the duplication.
pub fn dup(comm: i32) -> MpiResult<Duplicate> {
    let h = sim::mpi(|w| w.comm_dup(comm))?;
    announce(h)?;
    if let Err(e) = attr::copy_all(AttrKind::Comm, comm, h) {
        sim::mpi(|w| w.comm_free(h))?;
        return Ok(Duplicate::Failed(e));
    }
    sim::mpi(|w| w.inherit_errhandler(comm, h));
    Ok(Duplicate::Made(h))
}

/// MPI_Comm_idup, MPI_Comm_dup_with_info and MPI_Comm_idup_with_info (with
/// `info`): as [`dup`], with the hints of `info` when given, except that
/// the duplicate of a failing copy callback stays allocated. `blocking`:
/// MPI_Comm_dup_with_info, whose duplicate is announced as [`dup`]'s (the
/// non-blocking forms, which SimGrid lacks, wait for nobody).
pub fn dup_with_hints(comm: i32, info: Option<i32>, blocking: bool) -> MpiResult<i32> {
    let hints = info.map(|i| sim::mpi(|w| w.mpi.hints(i))).transpose()?;
    let h = sim::mpi(|w| w.comm_dup(comm))?;
    if blocking {
        announce(h)?;
    }
    attr::copy_all(AttrKind::Comm, comm, h)?;
    sim::mpi(|w| {
        if let Some(hints) = hints {
            w.set_comm_hints(h, hints);
        }
        w.inherit_errhandler(comm, h);
    });
    Ok(h)
}

/// MPI_Comm_free: the attributes are deleted (by the program's callbacks)
/// before the communicator.
pub fn free(comm: i32) -> MpiResult<()> {
    sim::mpi(|w| w.comm(comm))?;
    attr::delete_all(AttrKind::Comm, comm)?;
    sim::mpi(|w| w.comm_free(comm))
}

/// MPI_Group_compare: 0 IDENT, 2 SIMILAR, 3 UNEQUAL.
pub fn group_compare(a: &Group, b: &Group) -> i32 {
    if a.size() != b.size() {
        return 3;
    }
    let ma = members(a);
    let mb = members(b);
    if ma == mb {
        return 0;
    }
    let mut sa = ma;
    let mut sb = mb;
    sa.sort_unstable();
    sb.sort_unstable();
    if sa == sb {
        2
    } else {
        3
    }
}

/// A communicator as seen by one calling rank.
#[derive(Debug, Clone)]
pub struct CommView {
    pub handle: i32,
    /// Context of point-to-point traffic; collectives use `ctx + 1`.
    pub ctx: u32,
    /// The caller's group.
    pub group: Group,
    /// The other group of an intercommunicator.
    pub remote: Option<Group>,
    pub my_rank: usize,
}

impl CommView {
    /// Size of the caller's group.
    pub fn size(&self) -> usize {
        self.group.size()
    }

    /// The group that point-to-point ranks name: the remote group of an
    /// intercommunicator, the communicator's group otherwise.
    pub fn peer_group(&self) -> &Group {
        self.remote.as_ref().unwrap_or(&self.group)
    }

    /// The caller's own group of an intercommunicator as an
    /// intracommunicator view, on the context reserved for traffic within
    /// each group (`ctx + 2`; the groups are disjoint, so they can share it).
    pub fn local(&self) -> Self {
        Self {
            ctx: self.ctx + 2,
            remote: None,
            ..self.clone()
        }
    }

    /// Refuses intercommunicators (for calls defined only on intra ones).
    pub fn intra(self, call: &str) -> MpiResult<Self> {
        if self.remote.is_some() {
            return Err(MpiError::new(
                class::COMM,
                format!("{call} on an intercommunicator is not supported yet"),
            ));
        }
        Ok(self)
    }
}

/// The info keys MPI defines for communicators (MPI-4.0 section 7.4.4).
pub(super) const COMM_HINTS: &[&str] = &[
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
];

/// Handle name for messages.
pub fn comm_name(handle: i32) -> String {
    match handle {
        COMM_WORLD => "MPI_COMM_WORLD".into(),
        COMM_SELF => "MPI_COMM_SELF".into(),
        h => format!("communicator {h}"),
    }
}

impl Ctx<'_> {
    /// The communicator `handle` as seen by the current rank.
    pub fn comm(&self, handle: i32) -> MpiResult<CommView> {
        let me = self.core.current();
        match handle {
            COMM_WORLD => Ok(CommView {
                handle,
                ctx: 0,
                group: Group::World(self.core.size()),
                remote: None,
                my_rank: me,
            }),
            COMM_SELF => Ok(CommView {
                handle,
                ctx: 2,
                group: Group::Single(me),
                remote: None,
                my_rank: 0,
            }),
            COMM_NULL => Err(MpiError::new(
                class::COMM,
                "the communicator is MPI_COMM_NULL",
            )),
            h => self.stored_comm(h),
        }
    }

    /// Sets the info hints of `comm` for the current rank. Only the hints
    /// MPI defines for communicators are kept: MPI_Comm_get_info reports the
    /// hints in use, and others are ignored (as MPICH does).
    pub fn set_comm_hints(&mut self, comm: i32, mut hints: Vec<(String, String)>) {
        hints.retain(|(k, _)| COMM_HINTS.contains(&k.as_str()));
        let me = self.core.current();
        let all = &mut self.mpi.ranks[me].cold_mut().comm_hints;
        match all.iter_mut().find(|(c, _)| *c == comm) {
            Some(e) => e.1 = hints,
            None => all.push((comm, hints)),
        }
    }

    /// The info hints of `comm` for the current rank.
    pub fn comm_hints(&self, comm: i32) -> Vec<(String, String)> {
        let me = self.core.current();
        self.mpi.ranks[me]
            .cold()
            .comm_hints
            .iter()
            .find(|(c, _)| *c == comm)
            .map(|(_, h)| h.clone())
            .unwrap_or_default()
    }
}

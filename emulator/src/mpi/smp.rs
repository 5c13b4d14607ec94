//! SimGrid's SMP-aware collectives' view of a communicator: on which host
//! each rank runs, and the exchange SimGrid makes (`Comm::init_smp`) the
//! first time one of them runs on a communicator, which takes simulated
//! time.

use std::rc::Rc;

use collectives as algo;

use super::coll::{execute, Buffers, Reduction};
use super::op::{Builtin, ReduceOp};
use super::{datatype, CommView, MpiResult};
use crate::sim;

/// Where `c`'s ranks run: found once per communicator (its context ids
/// are never reused; ranks do not move), then shared by its ranks.
pub fn nodes(c: &CommView) -> Rc<algo::Nodes> {
    sim::mpi(|w| {
        if let Some(nodes) = w.mpi.smp_nodes.get(&c.ctx) {
            return Rc::clone(nodes);
        }
        let pid: Vec<usize> = (0..c.size()).map(|r| c.group.world(r)).collect();
        let host = pid.iter().map(|&p| w.core.host_of(p).0 as usize).collect();
        let nodes = Rc::new(algo::Nodes::new(host, pid));
        w.mpi.smp_nodes.insert(c.ctx, Rc::clone(&nodes));
        nodes
    })
}

/// Runs SimGrid's placement exchange on `c` the first time this rank runs
/// an SMP-aware algorithm on it, as SimGrid does before the algorithm
/// (every rank of `c` gets here together: collectives are called in the
/// same order). Non-blocking collectives skip it (SimGrid's do not run
/// these algorithms).
pub fn ensure_placed(c: &CommView, nodes: &algo::Nodes) -> MpiResult<()> {
    let skip = sim::mpi(|w| {
        let me = w.core.current();
        let rank = &w.mpi.ranks[me];
        rank.nonblocking.is_some()
            || rank.recording.is_some()
            || w.mpi.smp_placed.contains(&(c.ctx, me))
    });
    if skip {
        return Ok(());
    }
    let at = algo::Position {
        rank: c.my_rank,
        size: c.size(),
    };
    let sched = algo::smp_init(at, nodes).map_err(super::coll::coll_error)?;
    let leaders = nodes.leaders();
    let lay = algo::SmpInitLayout::new(c.size(), leaders.len());
    let intra = nodes.intra(c.my_rank);
    // SimGrid's values (the leader's process id, the ranks on the host,
    // the flags), though nothing reads them back.
    let mut ints = vec![0i32; lay.len];
    ints[lay.my_leader] = c.group.world(intra[0]) as i32;
    ints[lay.my_local_size] = intra.len() as i32;
    ints[lay.is_uniform] = i32::from(nodes.is_uniform());
    ints[lay.is_blocked] = i32::from(intra.windows(2).all(|w| w[1] == w[0] + 1));
    let mut buf: Vec<u8> = ints.iter().flat_map(|i| i.to_ne_bytes()).collect();
    let addr = buf.as_mut_ptr() as usize;
    let bufs = Buffers {
        send: addr,
        send_type: datatype::BYTE,
        recv: addr,
        recv_type: datatype::BYTE,
    };
    // The flags are 0 or 1: a bitwise and of their bytes is their logical
    // and.
    let and = Reduction::Op(ReduceOp::Builtin(Builtin::Band));
    execute(c, sched, bufs, and, "MPI_Allreduce")?;
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.smp_placed.insert((c.ctx, me));
    });
    Ok(())
}

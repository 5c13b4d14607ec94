//! Collective matching (check `collectives`): every member of a
//! communicator calls the same collectives in the same order, with the
//! same root and operation and matching data signatures.
//!
//! The k-th collective call of each member on a communicator is compared
//! with the first member's k-th call, which the log keeps until every
//! member has made its own (so the log holds only the calls some member
//! has not reached yet). What remains at the end of the run are calls
//! that some members never made.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::signature::Summary;
use super::Kind;
use crate::mpi::ledger::Site;
use crate::mpi::{class, comm_name, CommView, Ctx, Group, MpiError, MpiResult, ReqId};

/// What members of one collective call must agree on.
#[derive(Debug, Clone, Default)]
pub struct Call {
    pub name: &'static str,
    /// The root (communicator rank) of a rooted collective.
    pub root: Option<i32>,
    /// The operation handle of a reduction.
    pub op: Option<i32>,
    /// The signature of the block each member contributes (or the root
    /// expects from each), for the collectives where all are equal.
    pub data: Option<Summary>,
}

/// The first member's k-th call on a communicator.
#[derive(Debug)]
struct Entry {
    first: usize,
    call: Call,
    comm: i32,
    group: Group,
    site: Option<Site>,
    /// Members that made it.
    seen: usize,
}

/// The calls some members have not made yet.
#[derive(Debug, Default)]
pub struct Log {
    /// Collective calls made, by (context, world rank).
    made: FxHashMap<(u32, usize), u64>,
    pending: BTreeMap<(u32, u64), Entry>,
    /// Receives that took a message sent after a blocking collective
    /// their rank had not called then.
    received_after: FxHashMap<ReqId, After>,
}

/// A message sent after the sender's blocking collective call `k` on
/// context `ctx`, which its receiver had not made.
#[derive(Debug, Clone, Copy)]
pub struct After {
    ctx: u32,
    k: u64,
    name: &'static str,
    comm: i32,
    sender: usize,
}

impl Ctx<'_> {
    /// Checks the current rank's collective `call` on `view` against the
    /// other members' (check `collectives`): a mismatch is reported and
    /// returned as the error MPI gives it.
    pub fn check_collective(&mut self, view: &CommView, call: Call) -> MpiResult<()> {
        if !self.mpi.verify.on.collectives || view.remote.is_some() || view.size() < 2 {
            return Ok(());
        }
        let me = self.core.current();
        let log = &mut self.mpi.verify.collectives;
        let k = {
            let made = log.made.entry((view.ctx, me)).or_default();
            *made += 1;
            *made - 1
        };
        let Some(entry) = log.pending.get_mut(&(view.ctx, k)) else {
            let site = self.mpi.ledger.here(me).cloned();
            let log = &mut self.mpi.verify.collectives;
            log.pending.insert(
                (view.ctx, k),
                Entry {
                    first: me,
                    call,
                    comm: view.handle,
                    group: view.group.clone(),
                    site,
                    seen: 1,
                },
            );
            return Ok(());
        };
        entry.seen += 1;
        let (first, theirs) = (entry.first, entry.call.clone());
        if entry.seen == view.size() {
            log.pending.remove(&(view.ctx, k));
        }
        let comm = comm_name(view.handle);
        let nth = ordinal(k + 1);
        let mismatch = if call.name != theirs.name {
            Some((
                Kind::CallMatching,
                class::OTHER,
                format!(
                    "the {nth} collective call on {comm} is {} here but {} on rank {first}",
                    call.name, theirs.name
                ),
            ))
        } else if call.root != theirs.root {
            Some((
                Kind::RootMatching,
                class::ROOT,
                format!(
                    "root {} here but root {} on rank {first} (the {nth} collective call on \
                     {comm})",
                    call.root.unwrap_or(-1),
                    theirs.root.unwrap_or(-1)
                ),
            ))
        } else if !same_op(call.op, theirs.op) {
            Some((
                Kind::OperatorMatching,
                class::OP,
                format!(
                    "operation {} here but {} on rank {first} (the {nth} collective call on \
                     {comm})",
                    op_name(call.op.unwrap_or(0)),
                    op_name(theirs.op.unwrap_or(0))
                ),
            ))
        } else {
            match (&call.data, &theirs.data) {
                (Some(a), Some(b)) if !a.matches(b) => Some((
                    Kind::DatatypeMatching,
                    class::TYPE,
                    format!(
                        "the data's type signature is {a} here but {b} on rank {first} (the \
                         {nth} collective call on {comm})"
                    ),
                )),
                _ => None,
            }
        };
        match mismatch {
            None => Ok(()),
            Some((kind, class, message)) => {
                self.finding(kind, vec![me, first], call.name, message.clone());
                Err(MpiError::new(class, message))
            }
        }
    }

    /// A program's message the current rank sends to `dest`: the blocking
    /// collective it made and `dest`, a member, has not (the message can
    /// only be received because the collective did not synchronize).
    pub fn sent_after_collective(&self, dest: usize) -> Option<After> {
        let log = &self.mpi.verify.collectives;
        if log.pending.is_empty() {
            return None;
        }
        let me = self.core.current();
        let made = |ctx: u32, rank: usize| log.made.get(&(ctx, rank)).copied().unwrap_or(0);
        log.pending.iter().find_map(|(&(ctx, k), e)| {
            let blocking = !e.call.name.starts_with("MPI_I");
            (blocking
                && made(ctx, me) > k
                && made(ctx, dest) <= k
                && e.group.rank_of(dest).is_some())
            .then_some(After {
                ctx,
                k,
                name: e.call.name,
                comm: e.comm,
                sender: me,
            })
        })
    }

    /// Forgets request `id` (removed: its id may be reused).
    pub fn forget_request(log: &mut Log, id: ReqId) {
        if !log.received_after.is_empty() {
            log.received_after.remove(&id);
        }
    }

    /// Receive `rid` took a message sent `after` a collective.
    pub fn received_after(&mut self, rid: ReqId, after: After) {
        self.mpi
            .verify
            .collectives
            .received_after
            .insert(rid, after);
    }

    /// The program sees receive `rid` complete: if it took a message sent
    /// after a blocking collective its rank has still not called, the
    /// two ranks' calls are in an order that deadlocks whenever the
    /// collective synchronizes, which MPI allows.
    pub fn check_receive_order(&mut self, rid: ReqId) {
        let log = &mut self.mpi.verify.collectives;
        let Some(a) = log.received_after.remove(&rid) else {
            return;
        };
        let me = self.core.current();
        if log.made.get(&(a.ctx, me)).copied().unwrap_or(0) > a.k {
            return;
        }
        let call = self
            .mpi
            .request_opt(rid)
            .and_then(|r| r.call)
            .unwrap_or("receive");
        let message = format!(
            "completes the receive of a message rank {} sent after its {} (the {} collective \
             call on {}), which this rank has not called yet: were {} to synchronize, as MPI \
             allows, the two ranks would wait for each other",
            a.sender,
            a.name,
            ordinal(a.k + 1),
            comm_name(a.comm),
            a.name
        );
        self.finding(Kind::CallMatching, vec![me, a.sender], call, message);
    }

    /// The collective calls some members never made (at the end of the
    /// run), reported.
    pub fn report_unmatched_collectives(&mut self) {
        let log = std::mem::take(&mut self.mpi.verify.collectives);
        for ((ctx, k), e) in log.pending {
            let missing: Vec<usize> = (0..e.group.size())
                .map(|r| e.group.world(r))
                .filter(|&w| log.made.get(&(ctx, w)).copied().unwrap_or(0) <= k)
                .collect();
            if missing.is_empty() {
                continue;
            }
            let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
            let message = format!(
                "the {} collective call on {} was never made by rank{} {} ({} of {} members made \
                 it)",
                ordinal(k + 1),
                comm_name(e.comm),
                if missing.len() == 1 { "" } else { "s" },
                names.join(", "),
                e.seen,
                e.group.size()
            );
            let mut ranks = vec![e.first];
            ranks.extend(missing.iter().take(8));
            let at = e.site.map(|s| s.to_string());
            self.finding_at(Kind::CallMatching, ranks, e.call.name, message, at);
        }
    }
}

/// The non-blocking form of blocking collective `name` (other names
/// unchanged).
pub fn nonblocking_name(name: &'static str) -> &'static str {
    match name {
        "MPI_Barrier" => "MPI_Ibarrier",
        "MPI_Bcast" => "MPI_Ibcast",
        "MPI_Gather" => "MPI_Igather",
        "MPI_Gatherv" => "MPI_Igatherv",
        "MPI_Scatter" => "MPI_Iscatter",
        "MPI_Scatterv" => "MPI_Iscatterv",
        "MPI_Allgather" => "MPI_Iallgather",
        "MPI_Allgatherv" => "MPI_Iallgatherv",
        "MPI_Alltoall" => "MPI_Ialltoall",
        "MPI_Alltoallv" => "MPI_Ialltoallv",
        "MPI_Alltoallw" => "MPI_Ialltoallw",
        "MPI_Reduce" => "MPI_Ireduce",
        "MPI_Allreduce" => "MPI_Iallreduce",
        "MPI_Reduce_scatter" => "MPI_Ireduce_scatter",
        "MPI_Reduce_scatter_block" => "MPI_Ireduce_scatter_block",
        "MPI_Scan" => "MPI_Iscan",
        "MPI_Exscan" => "MPI_Iexscan",
        other => other,
    }
}

/// "1st", "2nd", "3rd", "4th"...
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Whether two members' operations agree: the same predefined one, or
/// both the program's (each rank's MPI_Op_create makes its own handle,
/// and each rank's copy of the program its own function).
fn same_op(a: Option<i32>, b: Option<i32>) -> bool {
    use crate::mpi::op::Builtin;
    match (a, b) {
        (Some(a), Some(b)) => match (Builtin::from_handle(a), Builtin::from_handle(b)) {
            (None, None) => true,
            (x, y) => x == y,
        },
        (a, b) => a == b,
    }
}

/// How a report names operation `op`.
fn op_name(op: i32) -> String {
    crate::mpi::op::Builtin::from_handle(op)
        .map_or_else(|| format!("user operation {op}"), |b| b.name().to_string())
}

#[cfg(test)]
mod tests {
    use super::ordinal;

    #[test]
    fn ordinals() {
        let v: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            v,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]
        );
    }
}

//! Progression models (`smpi/progress`): what happens to a rank's
//! communications while it computes.
//!
//! - `offload` (the default, SimGrid's): a posted transfer moves whatever
//!   its ranks do, as with a NIC that offloads the protocol.
//! - `weak`: as MPICH and Open MPI without an asynchronous progress
//!   thread. A rendezvous message (at least `smpi/send-is-detached-thresh`
//!   bytes) needs both ranks to take part in its handshake, which they do
//!   only inside MPI calls: a transfer matched while either rank computes
//!   starts when neither computes any more (an 8 MiB `MPI_Isend` posted
//!   before 20 ms of computation on both sides ends at 20 ms plus the
//!   transfer, not at the later of the two). Eager messages go at once.
//! - `thread`: a progress thread per rank progresses continuously but
//!   takes `smpi/progress-thread-share` of the rank's core: computations
//!   last 1 / (1 - share) as long.
//! - `dedicated`: one core per host is set aside for progression: ranks
//!   progress continuously and their host computes with one core less
//!   (hosts need at least 2 cores).
//!
//!   A one-sided operation issued while its target computes likewise
//!   starts when the target stops (passive target: the target's runtime
//!   serves it only inside MPI).
//!
//! Not modelled under `weak` yet: the steps of collectives (their
//! messages are the runtime's own, started by the collective's
//! schedule), which progress as under `offload`.

use crate::config::{Kind, OptionSpec};

use platforms::HostId;

use super::p2p::TransferHooks;

/// The options of the progression models.
#[rustfmt::skip]
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "smpi/progress", kind: Kind::Text, default: "offload", help: "what happens to communications while a rank computes: offload (they move, as in SimGrid), weak (a rendezvous message waits until neither rank computes, as without an asynchronous progress thread), thread (they move, a progress thread takes smpi/progress-thread-share of each rank's core), dedicated (they move, each host sets a core aside for progression)" },
    OptionSpec { name: "smpi/progress-thread-share", kind: Kind::Float, default: "0.1", help: "share of its core a rank's progress thread takes under smpi/progress:thread, in [0, 1)" },
];

/// A progression model.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Progression {
    #[default]
    Offload,
    Weak,
    /// A progress thread per rank taking this share of its core.
    Thread(f64),
    Dedicated,
}

impl Progression {
    /// Whether ranks take turns where SimGrid's make simcalls
    /// (`Core::pass_turn`, which reproduces SimGrid's order of ranks at
    /// one date): not under `weak`, where a rank's turn inside a call
    /// that returns at once would count as time inside MPI and progress
    /// what only its next call may.
    pub fn takes_turns(self) -> bool {
        self != Progression::Weak
    }

    /// The model `smpi/progress` names, with `share` for `thread`.
    pub fn parse(text: &str, share: f64) -> Result<Progression, String> {
        match text {
            "offload" => Ok(Progression::Offload),
            "weak" => Ok(Progression::Weak),
            "thread" if (0.0..1.0).contains(&share) => Ok(Progression::Thread(share)),
            "thread" => Err(format!(
                "option smpi/progress-thread-share: {share} is not in [0, 1) (the share of its \
                 core a rank's progress thread takes)"
            )),
            "dedicated" => Ok(Progression::Dedicated),
            other => Err(format!(
                "option smpi/progress: '{other}' is not one of offload, weak, thread, dedicated"
            )),
        }
    }

    /// How much longer computations last (a progress thread's share).
    pub fn compute_scale(self) -> f64 {
        match self {
            Progression::Thread(share) => 1.0 / (1.0 - share),
            _ => 1.0,
        }
    }

    /// The cores each host sets aside.
    pub fn reserved_cores(self) -> u32 {
        u32::from(self == Progression::Dedicated)
    }
}

/// A transfer waiting for its ranks to stop computing (`weak`): a
/// rendezvous message's, or a one-sided operation's first.
#[derive(Debug)]
pub struct Deferred {
    /// The two world ranks that must be inside MPI.
    pub ranks: [usize; 2],
    pub src: HostId,
    pub dst: HostId,
    pub bytes: usize,
    pub hooks: TransferHooks,
}

impl super::Ctx<'_> {
    /// Whether world rank `rank` computes now (its main actor runs a
    /// computation: it is outside MPI).
    pub fn rank_computing(&self, rank: usize) -> bool {
        self.core.actor(rank).computing()
    }

    /// Starts a transfer of `bytes` from host `src` to `dst` between world
    /// ranks `ranks`, or, under `weak` progression while one of them
    /// computes, defers it until neither does.
    pub fn start_transfer_progressing(
        &mut self,
        ranks: [usize; 2],
        (src, dst): (HostId, HostId),
        bytes: usize,
        hooks: TransferHooks,
    ) {
        let weak = self.mpi.progression == Progression::Weak;
        if weak && ranks.iter().any(|&r| self.rank_computing(r)) {
            self.mpi.deferred.push(Deferred {
                ranks,
                src,
                dst,
                bytes,
                hooks,
            });
            return;
        }
        self.start_transfer(src, dst, bytes, hooks);
    }

    /// Starts the deferred transfers whose ranks both stopped computing.
    pub fn start_deferred(&mut self) {
        let mut i = 0;
        while i < self.mpi.deferred.len() {
            let [a, b] = self.mpi.deferred[i].ranks;
            if self.rank_computing(a) || self.rank_computing(b) {
                i += 1;
                continue;
            }
            let d = self.mpi.deferred.remove(i);
            self.start_transfer(d.src, d.dst, d.bytes, d.hooks);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_parse_with_their_parameters() {
        assert_eq!(Progression::parse("offload", 0.1), Ok(Progression::Offload));
        assert_eq!(Progression::parse("weak", 0.1), Ok(Progression::Weak));
        let t = Progression::parse("thread", 0.2).unwrap();
        assert!((t.compute_scale() - 1.25).abs() < 1e-12);
        assert_eq!(Progression::Dedicated.reserved_cores(), 1);
        assert_eq!(Progression::Weak.reserved_cores(), 0);
        assert!(Progression::parse("thread", 1.0)
            .unwrap_err()
            .contains("[0, 1)"));
        assert!(Progression::parse("async", 0.1)
            .unwrap_err()
            .contains("not one of offload, weak, thread, dedicated"));
    }
}

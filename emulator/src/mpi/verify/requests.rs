//! Requests and messages left pending (check `requests`), and what a
//! rank's end does with them whatever the checks say.
//!
//! When a rank finalizes, its receives still posted are withdrawn and its
//! sends whose data is still in its buffer get a copy of it: a message is
//! never delivered into, nor read from, the memory of a rank that has
//! ended (its stack may be gone). The check reports the program's requests
//! the rank never completed and released (MPI_Wait, MPI_Test, or
//! MPI_Request_free), where they were made, and, at the end of the run,
//! the messages no receive took.

use super::Kind;
use crate::mpi::ledger::Site;
use crate::mpi::{Ctx, ReqId, ReqKind};

/// A program's message no receive took.
#[derive(Debug)]
pub struct Unreceived {
    pub from: usize,
    pub to: usize,
    pub call: &'static str,
    /// Its data and tag, as the report says them.
    pub what: String,
    pub site: Option<Site>,
}

impl Ctx<'_> {
    /// The current rank's MPI_Finalize: see the module's documentation.
    pub fn finalize_pending(&mut self) {
        let me = self.core.current();
        // Dropping them is enough: the requests stay, incomplete.
        let withdrawn = self.mpi.ranks[me].posted.drain();
        self.drop_guards(me);
        if self.mpi.ranks[me].live_requests == 0 {
            return;
        }
        drop(withdrawn);
        // Only a program that leaves requests behind pays this scan.
        let mine: Vec<ReqId> = (0..self.mpi.request_slots())
            .filter(|&id| {
                self.mpi
                    .request_opt(id)
                    .is_some_and(|r| r.owner == me && r.call.is_some() && r.parent().is_none())
            })
            .collect();
        for id in mine {
            let r = self.mpi.request(id);
            let pending = r.active && !r.complete;
            if pending && matches!(r.kind, ReqKind::Send(_)) {
                self.detach_pending_send(id);
            }
            if self.mpi.verify.on.requests {
                self.report_left_request(id);
            }
        }
    }

    /// Check `free`: MPI_Request_free on request `id`, whose completion
    /// the program never saw (a wait or test would have released it).
    pub fn request_freed_unseen(&mut self, id: ReqId) {
        if !self.mpi.verify.on.free {
            return;
        }
        let r = self.mpi.request(id);
        let (Some(call), false) = (r.call, r.persistent) else {
            return;
        };
        let (owner, site) = (r.owner, r.site.clone());
        let what = self.mpi.describe_request(id);
        let message = format!(
            "MPI_Request_free on the request of {what}, whose completion the program never saw \
             (its buffer is never known to be free: wait for it instead)"
        );
        self.finding_at(
            Kind::MissingWait,
            vec![owner],
            call,
            message,
            site.map(|s| s.to_string()),
        );
    }

    /// Reports request `id`, left behind by its rank at MPI_Finalize.
    fn report_left_request(&mut self, id: ReqId) {
        let r = self.mpi.request(id);
        let (owner, call, site) = (r.owner, r.call.unwrap_or("MPI call"), r.site.clone());
        let what = self.mpi.describe_request(id);
        let (kind, state) = if r.freed {
            return;
        } else if r.active && !r.complete {
            (Kind::MissingWait, "is still pending at MPI_Finalize")
        } else if r.persistent {
            (Kind::RequestLeak, "(persistent) was never freed")
        } else {
            (
                Kind::MissingWait,
                "completed, but no wait or test saw it before MPI_Finalize",
            )
        };
        let message = format!(
            "the request of {what} {state} (complete it with MPI_Wait or MPI_Test, or release \
             it with MPI_Request_free)"
        );
        self.finding_at(
            kind,
            vec![owner],
            call,
            message,
            site.map(|s| s.to_string()),
        );
    }

    /// The end of the run: reports the program's messages no receive took.
    pub fn report_unreceived(&mut self) {
        for m in self.unreceived_messages() {
            let message = format!(
                "the message of {} sent to rank {} was never received",
                m.what, m.to
            );
            self.finding_at(
                Kind::UnmatchedMessage,
                vec![m.from, m.to],
                m.call,
                message,
                m.site.map(|s| s.to_string()),
            );
        }
    }
}

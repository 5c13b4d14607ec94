//! Handles never freed (check `leaks`): at the end of a run, each rank's
//! live communicators, groups, datatypes, operations and other handles,
//! by the call and place that made them (SimGrid's `smpi/list-leaks`,
//! with the rank and the call). Requests are the `requests` check's.

use std::collections::BTreeMap;

use super::Kind;
use crate::mpi::ledger::{self, Live};
use crate::mpi::Ctx;

/// The finding kind of a family of handles, and what frees one.
fn family(kind: ledger::Kind) -> (Kind, &'static str, &'static str) {
    use ledger::Kind as L;
    match kind {
        L::Comm => (Kind::CommunicatorLeak, "communicator", "MPI_Comm_free"),
        L::Group => (Kind::GroupLeak, "group", "MPI_Group_free"),
        L::Datatype => (Kind::DatatypeLeak, "datatype", "MPI_Type_free"),
        L::Op => (Kind::OperatorLeak, "operation", "MPI_Op_free"),
        L::Request => (Kind::RequestLeak, "request", "MPI_Request_free"),
        L::Win => (Kind::ResourceLeak, "window", "MPI_Win_free"),
        L::File => (Kind::ResourceLeak, "file", "MPI_File_close"),
        L::Info => (Kind::ResourceLeak, "info", "MPI_Info_free"),
        L::Errhandler => (Kind::ResourceLeak, "error handler", "MPI_Errhandler_free"),
    }
}

/// Where handles come from: (rank, family, call, place).
type Origin = (usize, u8, &'static str, Option<String>);

impl Ctx<'_> {
    /// Reports the handles the program never freed, one line per rank,
    /// family, call and place.
    pub fn report_leaks(&mut self) {
        let mut groups: BTreeMap<Origin, (ledger::Kind, usize)> = BTreeMap::new();
        let requests_reported = self.mpi.verify.on.requests;
        for Live {
            kind,
            rank,
            call,
            site,
        } in self.mpi.ledger.live()
        {
            if kind == ledger::Kind::Request && requests_reported {
                continue;
            }
            let key = (rank, kind as u8, call, site.map(|s| s.to_string()));
            groups.entry(key).or_insert((kind, 0)).1 += 1;
        }
        for ((rank, _, call, site), (kind, n)) in groups {
            let (finding, noun, free) = family(kind);
            let message = if n == 1 {
                format!("1 {noun} made by this call was never freed ({free})")
            } else {
                format!("{n} {noun}s made by this call were never freed ({free})")
            };
            self.finding_at(finding, vec![rank], call, message, site);
        }
    }
}

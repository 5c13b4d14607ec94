//! Disks: each platform `<disk>` is three fluid resources, as in SimGrid
//! 3.32's disk model (S19): one for reads (`read_bw`), one for writes
//! (`write_bw`) and one every operation crosses, of the larger bandwidth.
//! An operation is an action on its kind's resource and the shared one, so
//! concurrent operations share a disk's bandwidth by max-min, as flows
//! share links.

use fluidnet::{ActionSpec, ResourceId};
use platforms::Platform;
use tracing::debug;

use super::{ActionOwner, Core, Detail};
use crate::log::ENGINE;

/// A disk operation's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKind {
    Read,
    Write,
}

/// The fluid resources of one disk.
#[derive(Debug, Clone, Copy)]
pub(super) struct DiskResources {
    read: ResourceId,
    write: ResourceId,
    both: ResourceId,
}

/// The resources of every disk of `platform`, in `Platform::disks` order.
pub(super) fn disk_resources(
    platform: &Platform,
    fluid: &mut fluidnet::System,
) -> Vec<DiskResources> {
    platform
        .disks()
        .iter()
        .map(|d| DiskResources {
            read: fluid.add_resource(d.read_bw, fluidnet::Sharing::Shared),
            write: fluid.add_resource(d.write_bw, fluidnet::Sharing::Shared),
            both: fluid.add_resource(d.read_bw.max(d.write_bw), fluidnet::Sharing::Shared),
        })
        .collect()
}

impl Core {
    /// Starts moving `bytes` to or from disk `disk` (an index in
    /// `Platform::disks`) for the running actor, blocked in `call` until
    /// the operation ends. Nothing to move costs nothing.
    pub fn start_io(&mut self, disk: usize, bytes: f64, kind: IoKind, call: &'static str) -> bool {
        if bytes <= 0.0 {
            return false;
        }
        let actor = self.current;
        let r = self.disk_resources[disk];
        let own = match kind {
            IoKind::Read => r.read,
            IoKind::Write => r.write,
        };
        let id = self.fluid.start(&ActionSpec {
            amount: bytes,
            penalty: 1.0,
            bound: None,
            factor: 1.0,
            uses: &[(r.both, 1.0), (own, 1.0)],
        });
        self.owners.insert(id, ActionOwner::Io(actor));
        self.actors[actor].io = true;
        self.block_current(call, Detail::Text("disk I/O"));
        debug!(
            target: ENGINE,
            "actor {actor} {} {bytes} B on disk '{}' ({call})",
            if kind == IoKind::Read { "reads" } else { "writes" },
            self.platform.disks()[disk].name
        );
        true
    }
}

//! Observers: what traces, profiles and network statistics are made of.
//! The core calls them when a transfer starts and arrives and when a
//! computation starts and ends (the MPI calls reach tracers through
//! `crate::trace`). With none attached, each hook is one predictable branch.

use platforms::HostId;

use super::TransferId;

/// A transfer that starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransferStart {
    pub id: TransferId,
    pub src: HostId,
    pub dst: HostId,
    pub bytes: usize,
    /// Its latency phase, in seconds (the flow follows).
    pub latency: f64,
}

/// The load of a link direction, sampled when a flow starts or ends on it
/// (only while the core keeps network statistics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkLoad<'a> {
    /// The fluid resource: one per link, or per direction of a
    /// split-duplex link.
    pub resource: u32,
    pub link: &'a str,
    /// `both`, `up` or `down`.
    pub direction: &'static str,
    /// What its flows use of its bandwidth, from 0 to 1.
    pub utilisation: f64,
    /// What its flows use, in bytes per second.
    pub used: f64,
}

/// Something that watches a simulation. Every method has an empty
/// default, so an observer implements what it needs; `at` is the
/// simulated date in seconds.
pub trait Observer {
    fn transfer_start(&mut self, _at: f64, _t: &TransferStart) {}
    fn transfer_end(&mut self, _at: f64, _id: TransferId) {}
    fn compute_start(&mut self, _at: f64, _rank: usize, _flops: f64) {}
    fn compute_end(&mut self, _at: f64, _rank: usize) {}
    fn link_load(&mut self, _at: f64, _load: &LinkLoad<'_>) {}
    /// What the computations on host `host` (its index in the platform)
    /// use of its cores, in flop/s, since `at`.
    fn host_load(&mut self, _at: f64, _host: usize, _used: f64) {}
}

/// The observers attached to a simulation.
#[derive(Default)]
pub struct Observers(Vec<Box<dyn Observer>>);

impl Observers {
    pub fn attach(&mut self, o: Box<dyn Observer>) {
        self.0.push(o);
    }

    /// Whether none is attached (every hook is then skipped).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Calls `f` on every observer.
    #[inline]
    pub fn each(&mut self, mut f: impl FnMut(&mut dyn Observer)) {
        for o in &mut self.0 {
            f(o.as_mut());
        }
    }
}

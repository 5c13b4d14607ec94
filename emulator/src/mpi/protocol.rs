//! How a message is sent (SimGrid 3.32's SMPI protocols) and what MPI
//! calls cost: detached or rendezvous sends, messages that start before
//! their receive is posted, per-size overheads and polling costs.

use crate::config::{Config, ConfigError, Kind, OptionSpec, Options, OverheadTable};

/// The options the protocol reads.
#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "smpi/async-small-thresh", kind: Kind::Int, default: "0", help: "messages smaller than this start moving before the receive is posted" },
    OptionSpec { name: "smpi/iprobe", kind: Kind::Float, default: "1e-4", help: "simulated cost of each MPI_Iprobe, in s" },
    OptionSpec { name: "smpi/ois", kind: Kind::Text, default: "", help: "non-blocking send overhead by size, `size:a:b;...`" },
    OptionSpec { name: "smpi/or", kind: Kind::Text, default: "", help: "receive overhead by size, `size:a:b;...` (a + b*bytes seconds)" },
    OptionSpec { name: "smpi/os", kind: Kind::Text, default: "", help: "send overhead by size, `size:a:b;...` (a + b*bytes seconds)" },
    OptionSpec { name: "smpi/send-is-detached-thresh", kind: Kind::Int, default: "65536", help: "standard sends smaller than this return at once (buffered)" },
    OptionSpec { name: "smpi/reduce-rate", kind: Kind::Text, default: "auto", help: "bytes per second a rank reduces in collectives and MPI_Reduce_local, charged as computation (auto: 2e9 when smpi/simulate-computation is on, else free; 0: free)" },
    OptionSpec { name: "smpi/test", kind: Kind::Float, default: "1e-4", help: "simulated cost of each MPI_Test, in s (see smpi/grow-injected-times)" },
    OptionSpec { name: "smpi/grow-injected-times", kind: Kind::Bool, default: "yes", help: "each failed MPI_Test or MPI_Iprobe in a row (over all ranks) costs one more smpi/test or smpi/iprobe than the previous one; a success resets it, as in SimGrid" },
    OptionSpec { name: "smpi/wtime", kind: Kind::Float, default: "1e-8", help: "simulated cost of each MPI_Wtime, in s" },
];

/// Bytes per second a rank reduces when smpi/reduce-rate is `auto` and
/// computation is simulated: a memory-bound loop reading two operands and
/// writing one, on one core.
pub const DEFAULT_REDUCE_RATE: f64 = 2e9;

/// Send modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendMode {
    Standard,
    Synchronous,
    Buffered,
    Ready,
}

/// The protocol and cost parameters in force.
#[derive(Debug, Clone)]
pub struct Protocol {
    /// `smpi/send-is-detached-thresh`: standard sends below this many
    /// bytes are detached (buffered).
    pub detached_thresh: usize,
    /// `smpi/async-small-thresh`: messages below this many bytes start
    /// before the receive is posted.
    pub async_small_thresh: usize,
    /// `smpi/os`, `smpi/ois`, `smpi/or`.
    pub send_overhead: OverheadTable,
    pub isend_overhead: OverheadTable,
    pub recv_overhead: OverheadTable,
    /// `smpi/test`, `smpi/iprobe`, `smpi/wtime`: seconds per call.
    pub test_cost: f64,
    pub iprobe_cost: f64,
    pub wtime_cost: f64,
    /// `smpi/grow-injected-times`: failed polls in a row cost more and more.
    pub grow_injected_times: bool,
    /// `smpi/reduce-rate`: bytes per second a rank reduces (local steps of
    /// reductions are charged as computation); 0 makes them free.
    pub reduce_rate: f64,
}

/// How one send goes, decided once when it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SendPlan {
    /// The sender goes on at once, its data buffered; otherwise it waits
    /// for the receive and the end of the transfer (rendezvous).
    pub detached: bool,
    /// The seconds the sender spends before the message is posted.
    pub overhead: f64,
}

impl Protocol {
    /// The parameters of `cfg`; `simulating`: computation is simulated
    /// (`smpi/reduce-rate:auto` then charges reductions).
    pub fn from_config(cfg: &Config, simulating: bool) -> Result<Self, ConfigError> {
        let reduce_rate = match cfg.text("smpi/reduce-rate") {
            "auto" if simulating => DEFAULT_REDUCE_RATE,
            "auto" => 0.0,
            text => text
                .parse::<f64>()
                .ok()
                .filter(|&rate| rate >= 0.0)
                .ok_or_else(|| ConfigError::BadValue {
                    name: "smpi/reduce-rate".into(),
                    value: text.into(),
                    expected: "a rate in bytes per second (or auto: 2e9 with \
                               smpi/simulate-computation, else free)",
                })?,
        };
        Ok(Self {
            detached_thresh: usize::try_from(cfg.int("smpi/send-is-detached-thresh"))
                .unwrap_or(usize::MAX),
            async_small_thresh: usize::try_from(cfg.int("smpi/async-small-thresh"))
                .unwrap_or(usize::MAX),
            send_overhead: OverheadTable::parse("smpi/os", cfg.text("smpi/os"))?,
            isend_overhead: OverheadTable::parse("smpi/ois", cfg.text("smpi/ois"))?,
            recv_overhead: OverheadTable::parse("smpi/or", cfg.text("smpi/or"))?,
            test_cost: cfg.float("smpi/test"),
            iprobe_cost: cfg.float("smpi/iprobe"),
            wtime_cost: cfg.float("smpi/wtime"),
            grow_injected_times: cfg.bool("smpi/grow-injected-times"),
            reduce_rate,
        })
    }

    /// The plan of a send of `bytes` in `mode`. Buffered sends are always
    /// detached, synchronous ones never, the others below
    /// `smpi/send-is-detached-thresh`. The overhead is `smpi/ois` for a
    /// non-blocking send, `smpi/os` for a blocking one, and only when the
    /// sender gets control back before the transfer ends (detached and
    /// synchronous sends), as in SimGrid.
    pub fn plan(&self, mode: SendMode, bytes: usize, nonblocking: bool) -> SendPlan {
        let detached = match mode {
            SendMode::Buffered => true,
            SendMode::Standard | SendMode::Ready => bytes < self.detached_thresh,
            SendMode::Synchronous => false,
        };
        let overhead = if nonblocking {
            self.isend_overhead.cost(bytes as f64)
        } else if detached || mode == SendMode::Synchronous {
            self.send_overhead.cost(bytes as f64)
        } else {
            0.0
        };
        SendPlan { detached, overhead }
    }

    /// Whether a message of `bytes` starts moving before its receive is
    /// posted.
    pub fn starts_early(&self, bytes: usize) -> bool {
        bytes < self.async_small_thresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protocol(cfg: &[&str]) -> Protocol {
        let mut c = Config::new(&[OPTIONS]);
        for pair in cfg {
            c.set_pair(pair).unwrap();
        }
        Protocol::from_config(&c, false).unwrap()
    }

    #[test]
    fn small_standard_sends_are_detached_and_large_ones_rendezvous() {
        let p = protocol(&[]);
        assert!(p.plan(SendMode::Standard, 65535, false).detached);
        assert!(!p.plan(SendMode::Standard, 65536, false).detached);
        assert!(p.plan(SendMode::Ready, 8, false).detached);
        assert!(!p.plan(SendMode::Synchronous, 8, false).detached);
        assert!(p.plan(SendMode::Buffered, 1 << 30, false).detached);
        let p = protocol(&["smpi/send-is-detached-thresh:0"]);
        assert!(!p.plan(SendMode::Standard, 0, false).detached);
    }

    #[test]
    fn overheads_are_paid_by_senders_that_go_on_early() {
        let p = protocol(&["smpi/os:0:1:0", "smpi/ois:0:2:0"]);
        // Detached and synchronous blocking sends pay smpi/os...
        assert_eq!(p.plan(SendMode::Standard, 8, false).overhead, 1.0);
        assert_eq!(p.plan(SendMode::Synchronous, 1 << 20, false).overhead, 1.0);
        // ...a blocking rendezvous send pays nothing...
        assert_eq!(p.plan(SendMode::Standard, 1 << 20, false).overhead, 0.0);
        // ...and every non-blocking send pays smpi/ois.
        assert_eq!(p.plan(SendMode::Standard, 1 << 20, true).overhead, 2.0);
        assert_eq!(p.plan(SendMode::Buffered, 8, true).overhead, 2.0);
    }

    #[test]
    fn only_messages_below_the_async_threshold_start_early() {
        assert!(!protocol(&[]).starts_early(0));
        let p = protocol(&["smpi/async-small-thresh:100"]);
        assert!(p.starts_early(99));
        assert!(!p.starts_early(100));
    }
}

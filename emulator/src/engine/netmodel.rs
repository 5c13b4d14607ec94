//! SMPI's network model (SimGrid 3.32's defaults): how a message of S bytes
//! becomes a latency phase and a max-min flow; the options of the IB model
//! (`engine/ib.rs`), which is SMPI's plus a bound per transfer.

use crate::config::{Config, ConfigError, FactorTable, Kind, OptionSpec, Options};

/// The bandwidth factors of SimGrid 3.32's SMPI model.
pub const DEFAULT_BW_FACTOR: &str = "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084";
/// The latency factors of SimGrid 3.32's SMPI model.
pub const DEFAULT_LAT_FACTOR: &str = "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467";

/// The options the network model reads.
#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "network/bandwidth-factor", kind: Kind::Text, default: DEFAULT_BW_FACTOR, help: "bandwidth factors by message size, `size:factor;...` (alias smpi/bw-factor)" },
    OptionSpec { name: "network/crosstraffic", kind: Kind::Bool, default: "yes", help: "the reverse route carries 5% of each flow (acknowledgements)" },
    OptionSpec { name: "network/latency-factor", kind: Kind::Text, default: DEFAULT_LAT_FACTOR, help: "latency factors by message size, `size:factor;...` (alias smpi/lat-factor)" },
    OptionSpec { name: "network/model", kind: Kind::Text, default: "SMPI", help: "SMPI (max-min sharing with SMPI's factors), IB (SMPI's, plus InfiniBand contention penalties: smpi/IB-penalty-factors) or Constant (latency + size / bandwidth of the route, no contention: for teaching and very large runs)" },
    OptionSpec { name: "network/routing", kind: Kind::Text, default: "minimal", help: "routes on dragonfly clusters: minimal (SimGrid's), valiant (through a random third group), ugal (valiant when the minimal route carries more flows in flight)" },
    OptionSpec { name: "network/routing-seed", kind: Kind::Int, default: "0", help: "seed of the random intermediate routers of valiant and ugal routing" },
    OptionSpec { name: "network/TCP-gamma", kind: Kind::Float, default: "4194304", help: "TCP window size: a flow's rate is bounded by TCP-gamma / (2 * route latency)" },
    OptionSpec { name: "network/weight-S", kind: Kind::Float, default: "8775", help: "per-link term of a flow's sharing penalty (weight-S / bandwidth)" },
    OptionSpec { name: "precision/maxmin", kind: Kind::Float, default: "1e-5", help: "precision of the max-min solver's rates (alias maxmin/precision)" },
    OptionSpec { name: "precision/timing", kind: Kind::Float, default: "1e-9", help: "precision of simulated dates, in s" },
    OptionSpec { name: "precision/work-amount", kind: Kind::Float, default: "0", help: "remaining work at or below which an action is done (0: as in SimGrid 3.32, an action ends when all its work is done)" },
    OptionSpec { name: "smpi/IB-penalty-factors", kind: Kind::Text, default: IbFactors::DEFAULT, help: "the IB network model's penalty factors Be;Bs;ys: per sender to a busy destination, per message of a busy source, and for a source's messages to a destination receiving more than 2" },
    OptionSpec { name: "smpi/simgrid-order", kind: Kind::Bool, default: "no", help: "SimGrid 3.32's order of ranks and messages at one date, exactly: blocking collectives take a turn per send, receive and wait as SimGrid's simcalls, and messages ending at one date arrive in the order of SimGrid's last updates of them (its lmm's marks, walked at every change); for runs compared with SimGrid event by event (polling programs), at a cost per message and per collective round" },
];

/// Envelope SMPI adds to every message (SimGrid 3.32, measured).
const ENVELOPE_BYTES: f64 = 16.0;

/// The flow parameters of one message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flow {
    /// Work the fluid solver must do: the bytes on the wire.
    pub amount: f64,
    /// The bandwidth factor: the flow progresses at its max-min share
    /// times this (SimGrid's action rate factor).
    pub factor: f64,
    /// Sharing penalty: route latency + sum of weight-S / link bandwidth.
    pub penalty: f64,
    /// Rate bound: min link bandwidth and the TCP window bound.
    pub bound: Option<f64>,
}

/// `smpi/IB-penalty-factors`: Be;Bs;ys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IbFactors {
    /// Inbound penalty per sender.
    pub be: f64,
    /// Outbound penalty per transfer.
    pub bs: f64,
    /// Outbound penalty when the destination receives more than 2.
    pub ys: f64,
}

impl IbFactors {
    /// SimGrid 3.32's default (profiled on the Stampede cluster).
    pub const DEFAULT: &'static str = "0.965;0.925;1.35";

    /// Parses `Be;Bs;ys`: three finite numbers, as SimGrid requires.
    pub fn parse(text: &str) -> Result<Self, ConfigError> {
        let parts: Vec<&str> = text.split(';').collect();
        let bad = |expected| ConfigError::BadValue {
            name: "smpi/IB-penalty-factors".into(),
            value: text.into(),
            expected,
        };
        if parts.len() != 3 {
            return Err(bad(
                "3 numbers separated by semicolons (Be;Bs;ys, e.g. 0.965;0.925;1.35)",
            ));
        }
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|x| x.is_finite());
        match (number(parts[0]), number(parts[1]), number(parts[2])) {
            (Some(be), Some(bs), Some(ys)) => Ok(Self { be, bs, ys }),
            _ => Err(bad("3 numbers (Be;Bs;ys, e.g. 0.965;0.925;1.35)")),
        }
    }
}

/// `network/routing`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutingChoice {
    /// The topology's minimal routes (SimGrid's).
    Minimal,
    /// Every message through a random intermediate group (dragonfly).
    Valiant,
    /// Valiant for a message whose minimal route carries more flows in
    /// flight, when it starts, than its Valiant route; else minimal.
    Ugal,
}

/// The network parameters in force.
#[derive(Debug, Clone)]
pub struct NetModel {
    /// `network/model:Constant`: a message takes the route's latency plus
    /// its size over the route's smallest bandwidth, with no sharing, no
    /// factors and no envelope.
    pub constant: bool,
    /// `network/model:IB`: SMPI's model plus SimGrid's InfiniBand
    /// contention penalties, with these factors.
    pub ib: Option<IbFactors>,
    pub precision: fluidnet::Precision,
    bandwidth_factor: FactorTable,
    latency_factor: FactorTable,
    weight_s: f64,
    tcp_gamma: f64,
    pub crosstraffic: bool,
    /// `smpi/simgrid-order`: arrivals at one date in SimGrid's order of
    /// updates (see `fluidnet::order`), and turns inside blocking
    /// collectives (`mpi::coll::execute`).
    pub simgrid_order: bool,
    /// `network/routing`: how routes are chosen where the platform offers
    /// a choice (dragonfly clusters).
    pub routing: RoutingChoice,
    /// `network/routing-seed`: draws of Valiant intermediate routers.
    pub routing_seed: u64,
}

impl NetModel {
    pub fn from_config(cfg: &Config) -> Result<Self, ConfigError> {
        let (constant, ib) = match cfg.text("network/model").to_ascii_lowercase().as_str() {
            "smpi" => (false, false),
            "ib" => (false, true),
            "constant" => (true, false),
            other => {
                return Err(ConfigError::BadValue {
                    name: "network/model".into(),
                    value: other.into(),
                    expected: "SMPI, IB or Constant",
                })
            }
        };
        // Read only by the IB model, as in SimGrid.
        let ib = if ib {
            Some(IbFactors::parse(cfg.text("smpi/IB-penalty-factors"))?)
        } else {
            None
        };
        Ok(Self {
            constant,
            ib,
            precision: fluidnet::Precision {
                timing: cfg.float("precision/timing"),
                work: cfg.float("precision/work-amount"),
                maxmin: cfg.float("precision/maxmin"),
            },
            bandwidth_factor: FactorTable::parse(
                "network/bandwidth-factor",
                cfg.text("network/bandwidth-factor"),
            )?,
            latency_factor: FactorTable::parse(
                "network/latency-factor",
                cfg.text("network/latency-factor"),
            )?,
            weight_s: cfg.float("network/weight-S"),
            tcp_gamma: cfg.float("network/TCP-gamma"),
            crosstraffic: cfg.bool("network/crosstraffic"),
            simgrid_order: cfg.bool("smpi/simgrid-order"),
            routing: match cfg.text("network/routing").to_ascii_lowercase().as_str() {
                "minimal" => RoutingChoice::Minimal,
                "valiant" => RoutingChoice::Valiant,
                "ugal" => RoutingChoice::Ugal,
                other => {
                    return Err(ConfigError::BadValue {
                        name: "network/routing".into(),
                        value: other.into(),
                        expected: "minimal, valiant or ugal",
                    })
                }
            },
            routing_seed: cfg.int("network/routing-seed"),
        })
    }

    /// The bytes a message of `bytes` puts on the wire: SMPI adds a
    /// 16-byte envelope, and looks the factor tables up with that size.
    fn model_size(bytes: usize) -> f64 {
        bytes as f64 + ENVELOPE_BYTES
    }

    /// Multiplier of the route latency for a message of `bytes`.
    pub fn latency_factor(&self, bytes: usize) -> f64 {
        self.latency_factor.lookup(Self::model_size(bytes))
    }

    /// The flow of a message of `bytes` over links given as (bandwidth, latency).
    pub fn flow(&self, bytes: usize, links: &[(f64, f64)]) -> Flow {
        let size = Self::model_size(bytes);
        let latency: f64 = links.iter().map(|l| l.1).sum();
        let mut penalty = latency;
        let mut min_bw = f64::INFINITY;
        for &(bw, _) in links {
            if self.weight_s > 0.0 {
                penalty += self.weight_s / bw;
            }
            min_bw = min_bw.min(bw);
        }
        // SimGrid gives flows without a latency phase the default penalty
        // and never updates it.
        if latency <= 0.0 {
            penalty = 1.0;
        }
        let factor = self.bandwidth_factor.lookup(size);
        Flow {
            amount: size,
            factor,
            penalty,
            bound: self.bound(min_bw, latency),
        }
    }

    /// A flow's rate bound over links given as (bandwidth, latency): the
    /// smallest bandwidth and the TCP window bound.
    pub fn flow_bound(&self, links: &[(f64, f64)]) -> Option<f64> {
        let latency: f64 = links.iter().map(|l| l.1).sum();
        let min_bw = links.iter().map(|l| l.0).fold(f64::INFINITY, f64::min);
        self.bound(min_bw, latency)
    }

    fn bound(&self, min_bw: f64, latency: f64) -> Option<f64> {
        let mut bound = if min_bw.is_finite() {
            Some(min_bw)
        } else {
            None
        };
        if latency > 0.0 && self.tcp_gamma > 0.0 {
            let tcp = self.tcp_gamma / (2.0 * latency);
            bound = Some(bound.map_or(tcp, |b| b.min(tcp)));
        }
        bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ib_factors_are_three_numbers() {
        let f = IbFactors::parse("1;2.5; 3").unwrap();
        assert_eq!((f.be, f.bs, f.ys), (1.0, 2.5, 3.0));
        assert!(IbFactors::parse("1;2").is_err());
        assert!(IbFactors::parse("1;2;3;4").is_err());
        assert!(IbFactors::parse("1;x;3").is_err());
    }

    #[test]
    fn the_ib_model_reads_its_factors_and_only_it() {
        let mut cfg = Config::new(&[OPTIONS]);
        cfg.set("smpi/IB-penalty-factors", "bad").unwrap();
        assert!(NetModel::from_config(&cfg).unwrap().ib.is_none());
        cfg.set("network/model", "IB").unwrap();
        assert!(NetModel::from_config(&cfg).is_err());
        cfg.set("smpi/IB-penalty-factors", "1;2;3").unwrap();
        let m = NetModel::from_config(&cfg).unwrap();
        assert!(!m.constant);
        assert_eq!(
            m.ib,
            Some(IbFactors {
                be: 1.0,
                bs: 2.0,
                ys: 3.0
            })
        );
    }

    #[test]
    fn single_link_flow_uses_the_factors() {
        let m = NetModel::from_config(&Config::new(&[OPTIONS])).unwrap();
        let f = m.flow(1 << 20, &[(1.25e9, 10e-6)]);
        assert_eq!(f.bound, Some(1.25e9));
        assert_eq!(f.amount, (1u64 << 20) as f64 + 16.0);
        assert_eq!(f.factor, 0.940694);
        assert!((f.penalty - (10e-6 + 8775.0 / 1.25e9)).abs() < 1e-15);
        assert_eq!(m.latency_factor(1 << 20), 11.6436);
        // 65456 + 16 bytes is exactly the boundary: the factor below it applies.
        assert_eq!(m.latency_factor(65456), 3.48845);
        assert_eq!(m.latency_factor(65457), 11.6436);
        let loopback = m.flow(8, &[(10e9, 0.0)]);
        assert_eq!(loopback.penalty, 1.0);
    }
}

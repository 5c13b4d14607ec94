//! Host energy, as SimGrid's `host_energy` plugin counts it: each host
//! draws a power that depends on its power state (pstate) and on how many
//! of its cores compute, and its energy is that power integrated over the
//! simulated time.
//!
//! A host's `wattage_per_state` property gives, per pstate,
//! `Idle:Epsilon:AllCores` watts (or `Idle:AllCores`, Epsilon then being
//! Idle): an idle host draws Idle; a host whose load is `l` (the share of
//! its cores that compute, in (0, 1]) draws `Epsilon + l * (AllCores -
//! Epsilon)`. `wattage_off` (0 by default) is what a host turned off
//! draws; hosts are never turned off here. The power only changes when a
//! computation starts or ends on the host or its pstate changes: the core
//! calls [`Energy::update`] then, so the integral is exact.

use platforms::{HostId, Platform};

/// A bad energy property of a host.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EnergyError {
    #[error(
        "host '{host}': wattage_per_state '{value}' lists {given} power states, but the host has \
         {pstates} (one Idle:Epsilon:AllCores or Idle:AllCores triple per speed of its 'speed')"
    )]
    StateCount {
        host: String,
        value: String,
        given: usize,
        pstates: usize,
    },
    #[error(
        "host '{host}': wattage_per_state: '{range}' is not Idle:Epsilon:AllCores nor \
         Idle:AllCores (watts, such as 100.0:93.3:200.0)"
    )]
    Range { host: String, range: String },
    #[error("host '{host}': wattage_off '{value}' is not a number of watts")]
    Off { host: String, value: String },
}

/// The watts of one pstate.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PowerRange {
    idle: f64,
    epsilon: f64,
    all_cores: f64,
}

/// The energy state of one host.
#[derive(Debug, Clone)]
struct HostEnergy {
    /// Per pstate; empty when the host has no `wattage_per_state` (it then
    /// draws nothing, as in SimGrid).
    ranges: Vec<PowerRange>,
    /// SimGrid's `wattage_off`: read and checked, though hosts stay on.
    #[allow(dead_code)]
    watts_off: f64,
    cores: u32,
    pstate: usize,
    /// Computations running on the host.
    busy: u32,
    /// Whether it ever computed (SimGrid's "used hosts").
    used: bool,
    /// Joules consumed up to `since`.
    joules: f64,
    since: f64,
}

impl HostEnergy {
    /// The power the host draws now, in watts.
    fn watts(&self) -> f64 {
        let Some(range) = self.ranges.get(self.pstate) else {
            return 0.0;
        };
        if self.busy == 0 {
            return range.idle;
        }
        let cores = self.cores.max(1);
        let load = f64::from(self.busy.min(cores)) / f64::from(cores);
        range.epsilon + load * (range.all_cores - range.epsilon)
    }
}

/// Parses `Idle:Epsilon:AllCores, ...` for a host of `pstates` pstates.
fn ranges(host: &str, value: &str, pstates: usize) -> Result<Vec<PowerRange>, EnergyError> {
    let parts: Vec<&str> = value.split(',').map(str::trim).collect();
    if parts.len() != pstates {
        return Err(EnergyError::StateCount {
            host: host.to_string(),
            value: value.to_string(),
            given: parts.len(),
            pstates,
        });
    }
    parts
        .into_iter()
        .map(|range| {
            let bad = || EnergyError::Range {
                host: host.to_string(),
                range: range.to_string(),
            };
            let watts: Vec<f64> = range
                .split(':')
                .map(|w| w.trim().parse::<f64>().ok().filter(|w| w.is_finite()))
                .collect::<Option<_>>()
                .ok_or_else(bad)?;
            match watts[..] {
                [idle, all_cores] => Ok(PowerRange {
                    idle,
                    epsilon: idle,
                    all_cores,
                }),
                [idle, epsilon, all_cores] => Ok(PowerRange {
                    idle,
                    epsilon,
                    all_cores,
                }),
                _ => Err(bad()),
            }
        })
        .collect()
}

/// The energy of every host of a simulation.
#[derive(Debug, Clone)]
pub struct Energy {
    hosts: Vec<HostEnergy>,
}

/// One host's line of the end-of-run report.
#[derive(Debug, Clone, PartialEq)]
pub struct HostReport {
    pub host: String,
    pub joules: f64,
    pub used: bool,
}

impl Energy {
    /// The energy model of `platform`'s hosts (from their properties),
    /// counting from `now`. Also returns the names of the hosts without a
    /// `wattage_per_state` (they draw nothing: SimGrid warns about them).
    pub fn new(platform: &Platform, now: f64) -> Result<(Energy, Vec<String>), EnergyError> {
        let mut unprofiled = Vec::new();
        let hosts = platform
            .hosts()
            .iter()
            .map(|h| {
                let property = |name: &str| {
                    h.properties
                        .iter()
                        .find(|(k, _)| k == name)
                        .map(|(_, v)| v.as_str())
                };
                let ranges = match property("wattage_per_state") {
                    Some(v) => ranges(&h.name, v, h.pstate_speeds().len())?,
                    None => {
                        unprofiled.push(h.name.clone());
                        Vec::new()
                    }
                };
                let watts_off = match property("wattage_off") {
                    Some(v) => v.trim().parse::<f64>().map_err(|_| EnergyError::Off {
                        host: h.name.clone(),
                        value: v.to_string(),
                    })?,
                    None => 0.0,
                };
                Ok(HostEnergy {
                    ranges,
                    watts_off,
                    cores: h.cores,
                    pstate: h.pstate,
                    busy: 0,
                    used: false,
                    joules: 0.0,
                    since: now,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok((Energy { hosts }, unprofiled))
    }

    /// Counts `host`'s energy up to `now` at the power it drew since its
    /// last update.
    fn update(&mut self, host: HostId, now: f64) {
        let h = &mut self.hosts[host.0 as usize];
        if now > h.since {
            h.joules += h.watts() * (now - h.since);
            h.since = now;
        }
    }

    /// A computation starts on `host` at `now`.
    pub fn compute_started(&mut self, host: HostId, now: f64) {
        self.update(host, now);
        let h = &mut self.hosts[host.0 as usize];
        h.busy += 1;
        h.used = true;
    }

    /// A computation ends on `host` at `now`.
    pub fn compute_ended(&mut self, host: HostId, now: f64) {
        self.update(host, now);
        let h = &mut self.hosts[host.0 as usize];
        h.busy = h.busy.saturating_sub(1);
    }

    /// `host` enters `pstate` at `now`.
    pub fn pstate_changed(&mut self, host: HostId, pstate: usize, now: f64) {
        self.update(host, now);
        self.hosts[host.0 as usize].pstate = pstate;
    }

    /// The joules `host` consumed up to `now`.
    pub fn consumed(&mut self, host: HostId, now: f64) -> f64 {
        self.update(host, now);
        self.hosts[host.0 as usize].joules
    }

    /// Whether `host` has watts per pstate (SimGrid refuses to tell the
    /// energy of a host without).
    pub fn has_profile(&self, host: HostId) -> bool {
        !self.hosts[host.0 as usize].ranges.is_empty()
    }

    /// The watts of `host` at `pstate`: (idle, epsilon, all cores); zeros
    /// without a profile.
    pub fn watts_at(&self, host: HostId, pstate: usize) -> (f64, f64, f64) {
        self.hosts[host.0 as usize]
            .ranges
            .get(pstate)
            .map_or((0.0, 0.0, 0.0), |r| (r.idle, r.epsilon, r.all_cores))
    }

    /// The power `host` draws now, in watts.
    pub fn current_watts(&self, host: HostId) -> f64 {
        self.hosts[host.0 as usize].watts()
    }

    /// Every host's energy at the end of the run (`now`), in platform
    /// order.
    pub fn report(&mut self, platform: &Platform, now: f64) -> Vec<HostReport> {
        (0..self.hosts.len())
            .map(|i| {
                let id = HostId(i as u32);
                HostReport {
                    host: platform.host(id).name.clone(),
                    joules: self.consumed(id, now),
                    used: self.hosts[i].used,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SimGrid's examples/platforms/energy_platform.xml, in short.
    fn platform() -> Platform {
        let xml = r#"<platform version="4.1"><zone id="z" routing="Full">
<host core="4" id="h1" pstate="0" speed="100.0Mf,50.0Mf,20.0Mf">
  <prop id="wattage_per_state" value="100.0:93.33333333333333:200.0, 93.0:90.0:170.0, 90.0:90.0:150.0" />
  <prop id="wattage_off" value="10" />
</host>
<host core="1" id="h2" speed="100.0Mf,50.0Mf,20.0Mf">
  <prop id="wattage_per_state" value="100.0:200.0, 93.0:170.0, 90.0:150.0" />
</host>
<host id="h3" speed="1Gf"/>
</zone></platform>"#;
        platforms::Platform::from_xml_str(xml, "energy.xml").unwrap()
    }

    #[test]
    fn energy_follows_load_and_pstate_as_simgrids_plugin() {
        let p = platform();
        let (mut e, unprofiled) = Energy::new(&p, 0.0).unwrap();
        assert_eq!(unprofiled, ["h3"]);
        let (h1, h2) = (HostId(0), HostId(1));
        // One core of four busy for 10 s: 93.33 + 0.25 * (200 - 93.33).
        e.compute_started(h1, 0.0);
        e.compute_ended(h1, 10.0);
        assert!((e.consumed(h1, 10.0) - 1200.0).abs() < 1e-9);
        // Mono-core: Idle:AllCores, busy 10 s then idle 5 s at pstate 1.
        e.compute_started(h2, 0.0);
        e.compute_ended(h2, 10.0);
        e.pstate_changed(h2, 1, 10.0);
        assert_eq!(e.consumed(h2, 15.0), 2000.0 + 5.0 * 93.0);
        // Busier than its cores: load 1.
        for _ in 0..6 {
            e.compute_started(h1, 10.0);
        }
        assert_eq!(e.current_watts(h1), 200.0);
        let report = e.report(&p, 20.0);
        assert!((report[0].joules - 3200.0).abs() < 1e-9);
        assert!(report[0].used && report[1].used && !report[2].used);
        assert_eq!(report[2].joules, 0.0);
        assert_eq!(e.watts_at(h1, 2), (90.0, 90.0, 150.0));
        assert!(!e.has_profile(HostId(2)));
    }

    #[test]
    fn bad_properties_are_named() {
        let bad = |props: &str| {
            let xml = format!(
                r#"<platform version="4.1"><zone id="z" routing="Full">
<host id="h" speed="1Gf,2Gf">{props}</host></zone></platform>"#
            );
            let p = platforms::Platform::from_xml_str(&xml, "e.xml").unwrap();
            Energy::new(&p, 0.0).unwrap_err().to_string()
        };
        assert!(bad(r#"<prop id="wattage_per_state" value="1:2"/>"#)
            .contains("lists 1 power states, but the host has 2"));
        assert!(bad(r#"<prop id="wattage_per_state" value="1:2, 1:x:3"/>"#)
            .contains("'1:x:3' is not Idle:Epsilon:AllCores"));
        assert!(
            bad(r#"<prop id="wattage_per_state" value="1:2, 1:2:3:4"/>"#)
                .contains("'1:2:3:4' is not")
        );
        assert!(bad(
            r#"<prop id="wattage_per_state" value="1:2, 1:2"/><prop id="wattage_off" value="off"/>"#
        )
        .contains("wattage_off 'off'"));
    }
}

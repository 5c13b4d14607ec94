//! Network statistics (`smpi/network-stats`): per link, the bytes that
//! crossed it, how long it carried at least one flow, the most flows at
//! once and its utilisation; per message, its slowdown (the time it took
//! over the time it would have taken alone on an idle network), counted
//! in a histogram by message size, as the seed paper's congestion and
//! delay figures show.
//!
//! Kept by the core only when asked for: each flow start and arrival
//! updates the counters of the links on its route, so the cost is
//! proportional to the route's length, and nothing when off.
//! Peak utilisation is sampled at the dates a flow starts or ends on the
//! link, once the rates are solved (rates change only when flows start or
//! end, but a flow ending elsewhere can raise a link's usage between two
//! of its own samples).

use std::io::{self, Write};

use fluidnet::ResourceId;

use crate::config::{Kind, OptionSpec};

/// The option that asks for the statistics.
#[rustfmt::skip]
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "smpi/network-stats", kind: Kind::Text, default: "", help: "write network statistics at the end: per link (bytes, busy time, peak concurrent flows, mean and peak utilisation) into this CSV file, and the histogram of message slowdowns (time taken over time alone on an idle network) by message size into the same name with .slowdown.csv" },
];

/// The histogram's file beside the links' `file`: `net.csv` ->
/// `net.slowdown.csv`.
pub fn histogram_path(file: &std::path::Path) -> std::path::PathBuf {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    file.with_file_name(format!("{stem}.slowdown.csv"))
}

/// Upper bounds of the message size classes, in bytes (the last is open).
pub const SIZE_CLASSES: [(u64, &str); 5] = [
    (1 << 10, "<1KiB"),
    (64 << 10, "1KiB-64KiB"),
    (1 << 20, "64KiB-1MiB"),
    (16 << 20, "1MiB-16MiB"),
    (u64::MAX, ">=16MiB"),
];

/// Upper bounds of the slowdown bins (the last is open).
pub const SLOWDOWN_BINS: [f64; 10] = [
    1.01,
    1.1,
    1.25,
    1.5,
    2.0,
    3.0,
    5.0,
    10.0,
    100.0,
    f64::INFINITY,
];

/// One fluid resource's counters.
#[derive(Debug, Clone, Default)]
struct Counters {
    bytes: u64,
    flows: u32,
    peak_flows: u32,
    busy_since: f64,
    busy: f64,
    peak_usage: f64,
}

/// A link direction's figures, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkRow {
    pub link: String,
    /// `both` for a shared or fat-pipe link, `up`/`down` for the halves
    /// of a split-duplex one.
    pub direction: &'static str,
    pub bandwidth: f64,
    pub bytes: u64,
    pub busy_s: f64,
    pub peak_flows: u32,
    /// Bytes over what the link could carry during the whole run.
    pub mean_utilisation: f64,
    /// Bytes over what the link could carry while busy.
    pub busy_utilisation: f64,
    pub peak_utilisation: f64,
}

/// The statistics of a run's network.
#[derive(Debug, Default)]
pub struct NetStats {
    /// By fluid resource index.
    counters: Vec<Counters>,
    /// Messages by size class and slowdown bin.
    histogram: [[u64; SLOWDOWN_BINS.len()]; SIZE_CLASSES.len()],
    /// Sum and count of slowdowns per size class (for the mean).
    slowdown_sum: [f64; SIZE_CLASSES.len()],
}

impl NetStats {
    pub fn new(resources: usize) -> Self {
        Self {
            counters: vec![Counters::default(); resources],
            ..Self::default()
        }
    }

    /// A flow of `bytes` starts on `r` at `now`.
    pub fn flow_started(&mut self, r: ResourceId, bytes: usize, now: f64) {
        let Some(c) = self.counters.get_mut(r.0 as usize) else {
            return;
        };
        c.bytes += bytes as u64;
        if c.flows == 0 {
            c.busy_since = now;
        }
        c.flows += 1;
        c.peak_flows = c.peak_flows.max(c.flows);
    }

    /// A flow on `r` ends at `now`.
    pub fn flow_ended(&mut self, r: ResourceId, now: f64) {
        let Some(c) = self.counters.get_mut(r.0 as usize) else {
            return;
        };
        c.flows = c.flows.saturating_sub(1);
        if c.flows == 0 {
            c.busy += now - c.busy_since;
        }
    }

    /// `r` carries `usage` bytes per second now.
    pub fn sample_usage(&mut self, r: ResourceId, usage: f64) {
        if let Some(c) = self.counters.get_mut(r.0 as usize) {
            c.peak_usage = c.peak_usage.max(usage);
        }
    }

    /// A message of `bytes` took `taken` seconds where it would have taken
    /// `alone` alone.
    pub fn message(&mut self, bytes: usize, taken: f64, alone: f64) {
        if alone <= 0.0 || !taken.is_finite() {
            return;
        }
        let slowdown = (taken / alone).max(1.0);
        let class = SIZE_CLASSES
            .iter()
            .position(|&(top, _)| (bytes as u64) < top)
            .unwrap_or(SIZE_CLASSES.len() - 1);
        let bin = SLOWDOWN_BINS
            .iter()
            .position(|&top| slowdown < top)
            .unwrap_or(SLOWDOWN_BINS.len() - 1);
        self.histogram[class][bin] += 1;
        self.slowdown_sum[class] += slowdown;
    }

    /// The figures of resource `r` of link `link` at the end, `end`.
    pub fn row(
        &self,
        r: ResourceId,
        link: &str,
        direction: &'static str,
        bandwidth: f64,
        end: f64,
    ) -> LinkRow {
        let c = self.counters.get(r.0 as usize).cloned().unwrap_or_default();
        let busy = c.busy + if c.flows > 0 { end - c.busy_since } else { 0.0 };
        let ratio = |bytes: f64, seconds: f64| {
            if seconds > 0.0 && bandwidth > 0.0 {
                bytes / (bandwidth * seconds)
            } else {
                0.0
            }
        };
        LinkRow {
            link: link.to_string(),
            direction,
            bandwidth,
            bytes: c.bytes,
            busy_s: busy,
            peak_flows: c.peak_flows,
            mean_utilisation: ratio(c.bytes as f64, end),
            busy_utilisation: ratio(c.bytes as f64, busy),
            peak_utilisation: if bandwidth > 0.0 {
                c.peak_usage / bandwidth
            } else {
                0.0
            },
        }
    }

    /// Writes the slowdown histogram as CSV: a row per size class and
    /// bin that holds messages.
    pub fn write_histogram(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "size_class,slowdown_from,slowdown_below,messages,share"
        )?;
        for (class, (_, name)) in SIZE_CLASSES.iter().enumerate() {
            let total: u64 = self.histogram[class].iter().sum();
            for (bin, &n) in self.histogram[class].iter().enumerate() {
                if n == 0 {
                    continue;
                }
                let from = if bin == 0 {
                    1.0
                } else {
                    SLOWDOWN_BINS[bin - 1]
                };
                let below = SLOWDOWN_BINS[bin];
                let below = if below.is_finite() {
                    below.to_string()
                } else {
                    "inf".into()
                };
                writeln!(
                    out,
                    "{name},{from},{below},{n},{:.6}",
                    n as f64 / total as f64
                )?;
            }
        }
        Ok(())
    }

    /// Mean slowdown and message count per size class (classes with
    /// messages only).
    pub fn mean_slowdowns(&self) -> Vec<(&'static str, f64, u64)> {
        SIZE_CLASSES
            .iter()
            .enumerate()
            .filter_map(|(class, (_, name))| {
                let n: u64 = self.histogram[class].iter().sum();
                (n > 0).then(|| (*name, self.slowdown_sum[class] / n as f64, n))
            })
            .collect()
    }
}

/// Writes link rows as CSV.
pub fn write_links(rows: &[LinkRow], out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "link,direction,bandwidth_Bps,bytes,busy_s,peak_flows,mean_utilisation,busy_utilisation,peak_utilisation"
    )?;
    for r in rows {
        writeln!(
            out,
            "{},{},{},{},{:.9},{},{:.6},{:.6},{:.6}",
            csv_field(&r.link),
            r.direction,
            r.bandwidth,
            r.bytes,
            r.busy_s,
            r.peak_flows,
            r.mean_utilisation,
            r.busy_utilisation,
            r.peak_utilisation
        )?;
    }
    Ok(())
}

/// A CSV field, quoted when it holds a separator or a quote.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_peak_flows_and_utilisation_of_a_link() {
        let r = ResourceId(0);
        let mut s = NetStats::new(1);
        s.flow_started(r, 1000, 1.0);
        s.flow_started(r, 1000, 2.0);
        s.sample_usage(r, 80.0);
        s.flow_ended(r, 3.0);
        s.flow_ended(r, 4.0);
        s.flow_started(r, 500, 6.0);
        let row = s.row(r, "l1", "both", 100.0, 10.0);
        assert_eq!(row.bytes, 2500);
        assert_eq!(row.busy_s, 3.0 + 4.0, "1..4, then 6..end");
        assert_eq!(row.peak_flows, 2);
        assert_eq!(row.mean_utilisation, 2500.0 / 1000.0);
        assert_eq!(row.peak_utilisation, 0.8);
        let mut out = Vec::new();
        write_links(&[row], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some("l1,both,100,2500,7.000000000,2,2.500000,3.571429,0.800000")
        );
    }

    #[test]
    fn slowdowns_land_in_their_size_class_and_bin() {
        let mut s = NetStats::new(0);
        s.message(100, 1.0, 1.0);
        s.message(100, 3.0, 1.0);
        s.message(2 << 20, 1.2, 1.0);
        let mut out = Vec::new();
        s.write_histogram(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "size_class,slowdown_from,slowdown_below,messages,share\n\
             <1KiB,1,1.01,1,0.500000\n\
             <1KiB,3,5,1,0.500000\n\
             1MiB-16MiB,1.1,1.25,1,1.000000\n"
        );
        assert_eq!(
            s.mean_slowdowns(),
            [("<1KiB", 2.0, 2), ("1MiB-16MiB", 1.2, 1)]
        );
    }
}

//! The run's machine-readable summary (`smpi/summary-file`): what the
//! final line says, as JSON, for tools that run many simulations (sweeps).

use serde::Serialize;

/// What a run ended with.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// `finished`, `aborted` (MPI_Abort or a fatal error), `deadlock`,
    /// `failed` or `time-limit`.
    pub outcome: &'static str,
    pub exit_code: i32,
    pub simulated_time_s: f64,
    pub wall_s: f64,
    pub ranks: usize,
    /// smpirun's peak resident memory (the kernel's VmHWM), when known.
    pub peak_rss_kb: Option<u64>,
}

/// This process's peak resident memory in KiB, from /proc/self/status.
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

impl Summary {
    /// Writes the summary to `path` as one JSON object.
    pub fn write(&self, path: &str) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        std::fs::write(path, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_one_json_object_with_every_field() {
        let s = Summary {
            outcome: "finished",
            exit_code: 0,
            simulated_time_s: 0.25,
            wall_s: 1.5,
            ranks: 4,
            peak_rss_kb: peak_rss_kb(),
        };
        let v: serde_json::Value = serde_json::to_value(&s).unwrap();
        assert_eq!(v["outcome"], "finished");
        assert_eq!(v["simulated_time_s"], 0.25);
        assert!(v["peak_rss_kb"].as_u64().is_some_and(|k| k > 0));
    }
}

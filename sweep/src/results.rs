//! The results of a sweep: `DIR/results.csv`, one row per finished point,
//! appended as points finish, and `DIR/sweep.json`, which spec the rows
//! belong to.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::spec::Spec;

/// How a point's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Failed,
    Timeout,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Timeout => "timeout",
        }
    }

    fn parse(s: &str) -> Option<Status> {
        match s {
            "ok" => Some(Status::Ok),
            "failed" => Some(Status::Failed),
            "timeout" => Some(Status::Timeout),
            _ => None,
        }
    }
}

/// One finished point.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub point: usize,
    pub values: Vec<String>,
    pub rep: usize,
    pub simulated_time_s: Option<f64>,
    pub wall_s: f64,
    pub peak_rss_kb: Option<u64>,
    pub status: Status,
    pub exit_code: Option<i32>,
    /// One per capture of the spec, empty when it did not match.
    pub captures: Vec<String>,
}

/// The fixed columns after the axes.
const MEASURES: [&str; 6] = [
    "rep",
    "simulated_time_s",
    "wall_s",
    "peak_rss_kb",
    "status",
    "exit_code",
];

/// The header of a spec's results.csv.
pub fn header(spec: &Spec) -> Vec<String> {
    std::iter::once("point".to_string())
        .chain(spec.axes.iter().map(|(a, _)| a.clone()))
        .chain(MEASURES.iter().map(|m| m.to_string()))
        .chain(spec.captures.iter().map(|(c, _)| c.clone()))
        .collect()
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

impl Row {
    /// A failed row of `point`, nothing measured yet, with room for the
    /// spec's captures.
    pub fn failed(point: &crate::spec::Point, spec: &Spec) -> Row {
        Row {
            point: point.index,
            values: point.values.clone(),
            rep: point.rep,
            simulated_time_s: None,
            wall_s: 0.0,
            peak_rss_kb: None,
            status: Status::Failed,
            exit_code: None,
            captures: vec![String::new(); spec.captures.len()],
        }
    }

    pub fn record(&self) -> Vec<String> {
        std::iter::once(self.point.to_string())
            .chain(self.values.iter().cloned())
            .chain([
                self.rep.to_string(),
                opt(self.simulated_time_s),
                format!("{:.3}", self.wall_s),
                opt(self.peak_rss_kb),
                self.status.name().to_string(),
                opt(self.exit_code),
            ])
            .chain(self.captures.iter().cloned())
            .collect()
    }

    pub fn from_record(r: &csv::StringRecord, axes: usize, captures: usize) -> Option<Row> {
        let f = |i: usize| r.get(i).unwrap_or("");
        let m = 1 + axes;
        if r.len() != m + MEASURES.len() + captures {
            return None;
        }
        Some(Row {
            point: f(0).parse().ok()?,
            values: (1..m).map(|i| f(i).to_string()).collect(),
            rep: f(m).parse().ok()?,
            simulated_time_s: f(m + 1).parse().ok(),
            wall_s: f(m + 2).parse().ok()?,
            peak_rss_kb: f(m + 3).parse().ok(),
            status: Status::parse(f(m + 4))?,
            exit_code: f(m + 5).parse().ok(),
            captures: (0..captures)
                .map(|i| f(m + MEASURES.len() + i).to_string())
                .collect(),
        })
    }
}

/// What DIR/sweep.json records.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepInfo {
    pub spec: PathBuf,
    pub spec_hash: String,
    pub points: usize,
}

/// A sweep's output directory.
pub struct Outputs {
    pub dir: PathBuf,
}

impl Outputs {
    pub fn new(dir: &Path) -> Outputs {
        // Absolute: points run in their own directories.
        Outputs {
            dir: std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()),
        }
    }

    pub fn results(&self) -> PathBuf {
        self.dir.join("results.csv")
    }

    pub fn info_file(&self) -> PathBuf {
        self.dir.join("sweep.json")
    }

    /// The working directory of point `index`.
    pub fn point_dir(&self, index: usize) -> PathBuf {
        self.dir.join("points").join(format!("p{index:05}"))
    }

    pub fn info(&self) -> Result<Option<SweepInfo>> {
        let f = self.info_file();
        if !f.exists() {
            return Ok(None);
        }
        let text =
            std::fs::read_to_string(&f).with_context(|| format!("reading {}", f.display()))?;
        Ok(Some(
            serde_json::from_str(&text).with_context(|| format!("reading {}", f.display()))?,
        ))
    }

    /// Takes `spec` on: a new directory, the same spec as before, or
    /// (with `force`) another spec whose earlier results are dropped.
    pub fn claim(&self, spec: &Spec, force: bool) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        let hash = spec.hash();
        if let Some(old) = self.info()? {
            if old.spec_hash != hash {
                if !force {
                    bail!(
                        "{} holds the results of another spec ({}, as it was then): the spec \
                         changed. Give another --out, or --force to drop those results",
                        self.dir.display(),
                        old.spec.display()
                    );
                }
                for p in [self.results(), self.dir.join("points")] {
                    if p.is_dir() {
                        std::fs::remove_dir_all(&p)?;
                    } else if p.exists() {
                        std::fs::remove_file(&p)?;
                    }
                }
            }
        }
        let info = SweepInfo {
            spec: std::fs::canonicalize(&spec.file).unwrap_or(spec.file.clone()),
            spec_hash: hash,
            points: spec.points().len(),
        };
        std::fs::write(
            self.info_file(),
            serde_json::to_string_pretty(&info)? + "\n",
        )?;
        std::fs::write(self.dir.join("spec.toml"), &spec.text)?;
        Ok(())
    }

    /// The rows of results.csv (none if there is none yet).
    pub fn rows(&self, spec: &Spec) -> Result<Vec<Row>> {
        let f = self.results();
        if !f.exists() {
            return Ok(Vec::new());
        }
        let mut r =
            csv::Reader::from_path(&f).with_context(|| format!("reading {}", f.display()))?;
        let mut rows = Vec::new();
        for (i, rec) in r.records().enumerate() {
            let rec = rec.with_context(|| format!("reading {}", f.display()))?;
            match Row::from_record(&rec, spec.axes.len(), spec.captures.len()) {
                Some(row) => rows.push(row),
                None => bail!(
                    "{}: row {} does not fit the spec's columns",
                    f.display(),
                    i + 2
                ),
            }
        }
        Ok(rows)
    }

    /// Rewrites results.csv with `rows` only (sorted by point).
    pub fn rewrite(&self, spec: &Spec, rows: &mut [Row]) -> Result<()> {
        rows.sort_by_key(|r| r.point);
        let mut w = csv::Writer::from_path(self.results())?;
        w.write_record(header(spec))?;
        for r in rows.iter() {
            w.write_record(r.record())?;
        }
        w.flush()?;
        Ok(())
    }

    /// Appends one row to results.csv.
    pub fn append(&self, row: &Row) -> Result<()> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(self.results())
            .with_context(|| format!("appending to {}", self.results().display()))?;
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(file);
        w.write_record(row.record())?;
        w.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_go_to_csv_and_back() {
        let spec = Spec::parse(
            "program = \"p\"\nnp = \"{np}\"\n[axes]\nnp = [2, 4]\n[capture]\nt = \"t=(\\\\d+)\"\n",
            Path::new("s.toml"),
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("sweep-results-{}", std::process::id()));
        let out = Outputs::new(&dir);
        out.claim(&spec, false).unwrap();
        let mut rows = vec![Row {
            point: 1,
            values: vec!["4".into()],
            rep: 0,
            simulated_time_s: Some(0.5),
            wall_s: 1.25,
            peak_rss_kb: None,
            status: Status::Failed,
            exit_code: Some(3),
            captures: vec![String::new()],
        }];
        out.rewrite(&spec, &mut rows).unwrap();
        let ok = Row {
            point: 0,
            values: vec!["2".into()],
            status: Status::Ok,
            exit_code: Some(0),
            captures: vec!["17".into()],
            peak_rss_kb: Some(1024),
            ..rows[0].clone()
        };
        out.append(&ok).unwrap();
        let text = std::fs::read_to_string(out.results()).unwrap();
        assert!(text
            .starts_with("point,np,rep,simulated_time_s,wall_s,peak_rss_kb,status,exit_code,t\n"));
        assert_eq!(out.rows(&spec).unwrap(), vec![rows[0].clone(), ok]);
        // Another spec in the same directory is refused without --force.
        let other = Spec::parse("program = \"q\"\nnp = 2\n", Path::new("s.toml")).unwrap();
        let e = out.claim(&other, false).unwrap_err();
        assert!(e.to_string().contains("the spec changed"), "{e}");
        out.claim(&other, true).unwrap();
        assert!(!out.results().exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! The Slurm backend: the pending points as one job array (`sbatch
//! --array`, a task per point, the task id being the point's number, `%`
//! the number of tasks at once), each task running `smpi-sweep run-point`
//! on the shared output directory; followed with `squeue` until no task
//! is left, then with `scontrol show job` for the tasks that left no row
//! (`sacct` answers only where accounting storage is configured). Rows
//! are gathered into results.csv as the tasks' row files appear.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::results::{Outputs, Row, Status};
use crate::run::{failure_line, Tally};
use crate::spec::{Point, Spec};

/// The row file a task writes in its point's directory.
pub const ROW_FILE: &str = "row.csv";

/// Slurm's list syntax for `indices` (sorted): `0-3,7,9-10`.
fn array_list(indices: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let start = indices[i];
        let mut end = start;
        while i + 1 < indices.len() && indices[i + 1] == end + 1 {
            i += 1;
            end = indices[i];
        }
        parts.push(if end > start {
            format!("{start}-{end}")
        } else {
            start.to_string()
        });
        i += 1;
    }
    parts.join(",")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The batch script of the job array running `points`.
pub fn batch_script(spec: &Spec, out: &Outputs, points: &[Point], jobs: usize) -> Result<String> {
    let exe = std::env::current_exe().context("finding smpi-sweep's own path")?;
    let indices: Vec<usize> = points.iter().map(|p| p.index).collect();
    let mut s = String::from("#!/bin/sh\n");
    s += "#SBATCH --job-name=smpi-sweep\n";
    s += &format!("#SBATCH --array={}%{}\n", array_list(&indices), jobs.max(1));
    s += &format!(
        "#SBATCH --output={}\n",
        out.dir.join("points").join("slurm-%A_%a.out").display()
    );
    s += "#SBATCH --ntasks=1\n";
    let settings = &spec.slurm;
    for (flag, value) in [
        ("partition", &settings.partition),
        ("time", &settings.time),
        ("mem", &settings.mem),
    ] {
        if let Some(v) = value {
            s += &format!("#SBATCH --{flag}={v}\n");
        }
    }
    s += &format!(
        "exec {} run-point {} \"$SLURM_ARRAY_TASK_ID\"\n",
        quote(&exe.display().to_string()),
        quote(&out.dir.display().to_string())
    );
    Ok(s)
}

/// Runs one point as a task does: its row goes to its directory.
pub fn run_point_task(dir: &Path, index: usize) -> Result<()> {
    let out = Outputs::new(dir);
    let spec = crate::load_sweep_spec(&out)?;
    let point = spec
        .points()
        .into_iter()
        .find(|p| p.index == index)
        .with_context(|| format!("the sweep in {} has no point {index}", dir.display()))?;
    let pdir = out.point_dir(index);
    let (row, why) = crate::run::run_point(&spec, &point, &pdir);
    if let Some(why) = why {
        eprintln!("{}", failure_line(&spec, &row, Some(&why)));
    }
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_path(pdir.join(ROW_FILE))?;
    w.write_record(row.record())?;
    w.flush()?;
    Ok(())
}

fn command_output(cmd: &mut Command, what: &str) -> Result<String> {
    let o = cmd
        .output()
        .with_context(|| format!("running {what} (is Slurm installed?)"))?;
    if !o.status.success() {
        bail!(
            "{what} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The row a task left, if any.
fn task_row(spec: &Spec, out: &Outputs, index: usize) -> Option<Row> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(out.point_dir(index).join(ROW_FILE))
        .ok()?;
    let rec = r.records().next()?.ok()?;
    Row::from_record(&rec, spec.axes.len(), spec.captures.len())
}

/// Submits `points` as a job array and follows it to the end.
pub fn run_slurm(spec: &Spec, out: &Outputs, points: Vec<Point>, jobs: usize) -> Result<Tally> {
    for p in &points {
        let d = out.point_dir(p.index);
        std::fs::create_dir_all(&d)?;
        let _ = std::fs::remove_file(d.join(ROW_FILE));
    }
    let script = batch_script(spec, out, &points, jobs)?;
    let file = out.dir.join("slurm-array.sh");
    std::fs::write(&file, &script)?;
    let submitted = command_output(
        Command::new("sbatch").arg("--parsable").arg(&file),
        "sbatch",
    )?;
    let job = submitted.trim().split(';').next().unwrap_or("").to_string();
    if job.is_empty() || !job.chars().all(|c| c.is_ascii_digit()) {
        bail!("sbatch answered '{}', not a job id", submitted.trim());
    }
    println!(
        "submitted job array {job}: {} tasks, {jobs} at a time",
        points.len()
    );
    let mut tally = Tally::default();
    let mut left: Vec<Point> = points;
    loop {
        let queued = command_output(
            Command::new("squeue").args(["-h", "-r", "-j", &job, "-o", "%i %T"]),
            "squeue",
        )
        .unwrap_or_default();
        // Rows of the tasks that are done.
        let mut still = Vec::new();
        for p in left {
            let in_queue = queued
                .lines()
                .any(|l| l.split_whitespace().next() == Some(&format!("{job}_{}", p.index)));
            match task_row(spec, out, p.index) {
                Some(row) if !in_queue => {
                    count(&mut tally, spec, &row, None);
                    out.append(&row)?;
                }
                _ => still.push(p),
            }
        }
        left = still;
        if queued.trim().is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    // Tasks that left no row: Slurm says why.
    for p in left {
        let why = command_output(
            Command::new("scontrol").args(["show", "job", &format!("{job}_{}", p.index)]),
            "scontrol",
        )
        .map(|t| {
            let field = |name: &str| {
                t.split_whitespace()
                    .find_map(|w| w.strip_prefix(name))
                    .unwrap_or("?")
                    .to_string()
            };
            format!(
                "the task left no row (Slurm: JobState={} ExitCode={} Reason={})",
                field("JobState="),
                field("ExitCode="),
                field("Reason=")
            )
        })
        .unwrap_or_else(|e| format!("the task left no row ({e:#})"));
        let row = Row::failed(&p, spec);
        count(&mut tally, spec, &row, Some(&why));
        out.append(&row)?;
    }
    Ok(tally)
}

fn count(tally: &mut Tally, spec: &Spec, row: &Row, why: Option<&str>) {
    tally.add(row.status);
    if row.status != Status::Ok {
        eprintln!("{}", failure_line(spec, row, why));
    }
}

#[cfg(test)]
mod tests {
    use super::array_list;

    #[test]
    fn array_lists_fold_runs() {
        assert_eq!(array_list(&[0, 1, 2, 3, 7, 9, 10]), "0-3,7,9-10");
        assert_eq!(array_list(&[5]), "5");
        assert_eq!(array_list(&[]), "");
    }
}

//! Running points: each an smpirun process in its own working directory
//! under the sweep's, `jobs` at a time on this machine, with a progress
//! bar; rows appended to results.csv as points finish.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::results::{Outputs, Row, Status};
use crate::spec::{Point, Spec};

/// The smpirun a sweep runs: the spec's, else `$SMPIRUN`, else the one
/// beside this program (a cargo build puts them together), else the
/// PATH's.
pub fn smpirun(spec: &Spec) -> PathBuf {
    if let Some(s) = &spec.smpirun {
        return s.clone();
    }
    if let Some(s) = std::env::var_os("SMPIRUN") {
        return PathBuf::from(s);
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("smpirun")))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("smpirun"))
}

/// `path` from the spec, relative to the spec's directory when it names
/// a file there.
fn from_spec_dir(spec: &Spec, path: &str) -> String {
    let p = spec.dir().join(path);
    if Path::new(path).is_relative() && p.exists() {
        std::fs::canonicalize(&p).unwrap_or(p).display().to_string()
    } else {
        path.to_string()
    }
}

/// The command line of one point (smpirun and its arguments), run in
/// `dir`, writing its summary there.
pub fn command_line(spec: &Spec, point: &Point, dir: &Path) -> Vec<String> {
    let mut cmd = vec![
        smpirun(spec).display().to_string(),
        "-np".into(),
        spec.fill(&spec.np, point),
    ];
    if let Some(p) = &spec.platform {
        cmd.push("-platform".into());
        cmd.push(from_spec_dir(spec, &spec.fill(p, point)));
    }
    if let Some(h) = &spec.hostfile {
        cmd.push("-hostfile".into());
        cmd.push(from_spec_dir(spec, &spec.fill(h, point)));
    }
    cmd.push(format!(
        "--cfg=smpi/summary-file:{}",
        dir.join("summary.json").display()
    ));
    for c in &spec.cfg {
        cmd.push(format!("--cfg={}", spec.fill(c, point)));
    }
    cmd.push(from_spec_dir(spec, &spec.fill(&spec.program, point)));
    cmd.extend(spec.args.iter().map(|a| spec.fill(a, point)));
    cmd
}

/// What smpirun's summary file says (the fields a row needs).
#[derive(serde::Deserialize)]
struct Summary {
    simulated_time_s: f64,
    peak_rss_kb: Option<u64>,
}

/// Runs `point` in `dir`; its row. `failure` gets a one-line reason when
/// the point did not succeed.
pub fn run_point(spec: &Spec, point: &Point, dir: &Path) -> (Row, Option<String>) {
    let started = Instant::now();
    let mut row = Row::failed(point, spec);
    let outcome = execute(spec, point, dir);
    row.wall_s = started.elapsed().as_secs_f64();
    let why = match outcome {
        Err(e) => Some(format!("{e:#}")),
        Ok(Ended::TimedOut) => {
            row.status = Status::Timeout;
            Some(format!(
                "killed after the spec's timeout of {} s",
                spec.timeout.unwrap_or(0.0)
            ))
        }
        Ok(Ended::Exited(code)) => {
            row.exit_code = code;
            if let Ok(text) = std::fs::read_to_string(dir.join("summary.json")) {
                if let Ok(s) = serde_json::from_str::<Summary>(&text) {
                    row.simulated_time_s = Some(s.simulated_time_s);
                    row.peak_rss_kb = s.peak_rss_kb;
                }
            }
            let read = match &spec.output {
                Some(o) => dir.join(spec.fill(o, point)),
                None => dir.join("stdout.txt"),
            };
            let out = std::fs::read_to_string(read).unwrap_or_default();
            for (k, (_, re)) in spec.captures.iter().enumerate() {
                if let Some(c) = re.captures(&out).and_then(|c| c.get(1)) {
                    row.captures[k] = c.as_str().to_string();
                }
            }
            if code == Some(0) {
                row.status = Status::Ok;
                None
            } else {
                let err = std::fs::read_to_string(dir.join("stderr.txt")).unwrap_or_default();
                let last = err
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("smpirun:"))
                    .or_else(|| err.lines().rev().find(|l| !l.trim().is_empty()))
                    .unwrap_or("no message");
                Some(format!("exit code {}: {last}", opt_code(code)))
            }
        }
    };
    (row, why)
}

fn opt_code(code: Option<i32>) -> String {
    code.map_or("none (killed by a signal)".to_string(), |c| c.to_string())
}

enum Ended {
    Exited(Option<i32>),
    TimedOut,
}

fn execute(spec: &Spec, point: &Point, dir: &Path) -> Result<Ended> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let _ = std::fs::remove_file(dir.join("summary.json"));
    let cmd = command_line(spec, point, dir);
    std::fs::write(dir.join("command.txt"), cmd.join(" ") + "\n")?;
    let program = &cmd[cmd.len() - 1 - spec.args.len()];
    if !Path::new(program).exists() {
        anyhow::bail!(
            "the program {program} is not there (relative paths are from the spec's directory, \
             {})",
            spec.dir().display()
        );
    }
    for input in &spec.inputs {
        let from = spec.dir().join(spec.fill(input, point));
        let name = from
            .file_name()
            .with_context(|| format!("{}: not a file name", from.display()))?;
        std::fs::copy(&from, dir.join(name)).with_context(|| {
            format!(
                "copying the input {} into the point's directory",
                from.display()
            )
        })?;
    }
    let stdout = std::fs::File::create(dir.join("stdout.txt"))?;
    let stderr = std::fs::File::create(dir.join("stderr.txt"))?;
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .with_context(|| format!("starting {}", cmd[0]))?;
    let deadline = spec
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ended::Exited(status.code()));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Ended::TimedOut);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a local run did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub ok: usize,
    pub failed: usize,
    pub timeout: usize,
}

impl Tally {
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Ok => self.ok += 1,
            Status::Failed => self.failed += 1,
            Status::Timeout => self.timeout += 1,
        }
    }
}

/// The line saying how a point that did not succeed ended, and why.
pub fn failure_line(spec: &Spec, row: &Row, why: Option<&str>) -> String {
    format!(
        "point {} ({}): {}{}",
        row.point,
        describe(spec, row),
        row.status.name(),
        why.map_or(String::new(), |w| format!(" - {w}"))
    )
}

/// Runs `points` `jobs` at a time, appending their rows to results.csv.
pub fn run_local(spec: &Spec, out: &Outputs, points: Vec<Point>, jobs: usize) -> Result<Tally> {
    let total = points.len();
    let queue = Arc::new(Mutex::new(VecDeque::from(points)));
    let (tx, rx) = mpsc::channel::<(Row, Option<String>)>();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} points, {msg}, {elapsed_precise} elapsed, ETA {eta}",
        )
        .expect("a valid template"),
    );
    let mut tally = Tally::default();
    std::thread::scope(|scope| -> Result<()> {
        for _ in 0..jobs.max(1).min(total.max(1)) {
            let (queue, tx) = (Arc::clone(&queue), tx.clone());
            scope.spawn(move || loop {
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                let Some(point) = next else { break };
                let result = run_point(spec, &point, &out.point_dir(point.index));
                if tx.send(result).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done = 0;
        for (row, why) in rx {
            done += 1;
            tally.add(row.status);
            if let Some(why) = why {
                let line = failure_line(spec, &row, Some(&why));
                if bar.is_hidden() {
                    eprintln!("{line}");
                } else {
                    bar.println(line);
                }
            }
            out.append(&row)?;
            let running = jobs.min(total - done);
            bar.set_message(format!(
                "{} failed, {} timed out, {running} running",
                tally.failed, tally.timeout
            ));
            bar.inc(1);
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(tally)
}

/// `np=64 bw=10Gbps` for a row.
pub fn describe(spec: &Spec, row: &Row) -> String {
    let mut s: Vec<String> = spec
        .axes
        .iter()
        .zip(&row.values)
        .map(|((a, _), v)| format!("{a}={v}"))
        .collect();
    if spec.repeat > 1 {
        s.push(format!("rep={}", row.rep));
    }
    s.join(" ")
}

//! smpi-sweep: run one MPI program under smpirun over the cross product
//! of a spec's axes, gather the results in a CSV, and plot them.
//!
//! The binary is built with the emulator's (`emulator/src/bin/smpi-sweep.rs`
//! calls [`main`]), so that it lands next to smpirun; this crate knows
//! nothing of the emulator but smpirun's command line and its summary
//! file.

mod plot;
mod results;
mod run;
mod slurm;
mod spec;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use results::{Outputs, Status};
use spec::Spec;

#[derive(Parser)]
#[command(
    name = "smpi-sweep",
    version,
    about = "Run an MPI program under smpirun over a grid of machines and settings; \
             results in a CSV, plots from it"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// smpirun processes on this machine.
    Local,
    /// One Slurm job array, a task per point (the output directory must be
    /// on a file system the nodes share).
    Slurm,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the points of SPEC that have no result yet (or failed).
    Run(RunArgs),
    /// Plot a column of DIR's results against an axis.
    Plot(plot::PlotArgs),
    /// How many points of DIR are done, failed and pending.
    Status { dir: PathBuf },
    /// Run point INDEX of the sweep in DIR (what a Slurm task does).
    #[command(hide = true)]
    RunPoint { dir: PathBuf, index: usize },
}

#[derive(clap::Args)]
struct RunArgs {
    spec: PathBuf,
    /// Where the results go (default: SPEC's name without .toml, plus
    /// -sweep, in the current directory).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Points run at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    #[arg(long, value_enum, default_value_t = Backend::Local)]
    backend: Backend,
    /// Print what would run (the commands; for Slurm, the batch script)
    /// and run nothing.
    #[arg(long)]
    dry_run: bool,
    /// Start over when OUT holds the results of another spec.
    #[arg(long)]
    force: bool,
}

impl RunArgs {
    fn out(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| {
            let stem = self
                .spec
                .file_stem()
                .map_or("sweep".into(), |s| s.to_string_lossy().into_owned());
            PathBuf::from(format!("{stem}-sweep"))
        })
    }
}

/// The smpi-sweep command: parses the process's arguments, runs, and
/// exits 1 with a message on failure.
pub fn main() {
    let result = match Cli::parse().command {
        Cmd::Run(a) => run(&a),
        Cmd::Plot(a) => plot::plot(&a),
        Cmd::Status { dir } => status(&dir),
        Cmd::RunPoint { dir, index } => slurm::run_point_task(&dir, index),
    };
    if let Err(e) = result {
        eprintln!("smpi-sweep: {e:#}");
        std::process::exit(1);
    }
}

fn run(a: &RunArgs) -> Result<()> {
    let spec = Spec::load(&a.spec)?;
    let out = Outputs::new(&a.out());
    let points = spec.points();
    if a.dry_run {
        match a.backend {
            Backend::Local => {
                for p in &points {
                    let dir = out.point_dir(p.index);
                    println!("{}", run::command_line(&spec, p, &dir).join(" "));
                }
            }
            Backend::Slurm => print!("{}", slurm::batch_script(&spec, &out, &points, a.jobs)?),
        }
        return Ok(());
    }
    out.claim(&spec, a.force)?;
    let mut kept: Vec<results::Row> = out
        .rows(&spec)?
        .into_iter()
        .filter(|r| r.status == Status::Ok)
        .collect();
    out.rewrite(&spec, &mut kept)?;
    let pending: Vec<_> = points
        .into_iter()
        .filter(|p| !kept.iter().any(|r| r.point == p.index))
        .collect();
    if pending.is_empty() {
        println!(
            "all {} points are done: {}",
            kept.len(),
            out.results().display()
        );
        return Ok(());
    }
    println!(
        "{} points to run ({} done already), {} at a time",
        pending.len(),
        kept.len(),
        a.jobs
    );
    let t = match a.backend {
        Backend::Local => run::run_local(&spec, &out, pending, a.jobs)?,
        Backend::Slurm => slurm::run_slurm(&spec, &out, pending, a.jobs)?,
    };
    println!(
        "{} ok, {} failed, {} timed out: {}",
        t.ok,
        t.failed,
        t.timeout,
        out.results().display()
    );
    Ok(())
}

/// The spec of the sweep in `out`, as it was when its results began
/// (its copy in the directory), with the original's path.
fn load_sweep_spec(out: &Outputs) -> Result<Spec> {
    let dir = &out.dir;
    let info = out
        .info()?
        .with_context(|| format!("{} holds no sweep (no sweep.json)", dir.display()))?;
    let text = std::fs::read_to_string(dir.join("spec.toml"))
        .with_context(|| format!("reading {}/spec.toml", dir.display()))?;
    Ok(Spec::parse(&text, &info.spec)?)
}

fn status(dir: &Path) -> Result<()> {
    let out = Outputs::new(dir);
    let spec = load_sweep_spec(&out)?;
    let info = out.info()?.context("no sweep.json")?;
    let rows = out.rows(&spec)?;
    let count = |s: Status| rows.iter().filter(|r| r.status == s).count();
    let (ok, failed, timeout) = (
        count(Status::Ok),
        count(Status::Failed),
        count(Status::Timeout),
    );
    println!(
        "{}: {} points: {ok} done, {failed} failed, {timeout} timed out, {} pending",
        info.spec.display(),
        info.points,
        info.points.saturating_sub(rows.len())
    );
    for r in rows.iter().filter(|r| r.status != Status::Ok) {
        println!(
            "  point {} ({}): {}, exit code {}",
            r.point,
            run::describe(&spec, r),
            r.status.name(),
            r.exit_code.map_or("none".to_string(), |c| c.to_string())
        );
    }
    Ok(())
}

//! `pingpong`: the wall cost of one small message (issue 21), printed,
//! never judged.
//!
//! `bench/c/pingpong.c` (1-byte `MPI_Send`/`MPI_Recv` ping-pong between
//! two ranks on two hosts of a flat cluster, 200,000 round trips by
//! default) under our `smpirun` and SimGrid 3.32's side by side, in both
//! modes: computation timing off (`smpi/simulate-computation:no`) and the
//! default (every burst between calls measured on the bench clock). For
//! each: the median wall time of several runs (the runs of a case
//! alternate between the emulators, so that a busy machine weighs on
//! both), the wall time per message with the run's start-up (the same
//! program with 0 round trips) taken off, the ratio, and the simulated
//! time each printed (bit for bit equal with timing off).
//!
//! Run it with `scripts/bench-pingpong.sh` (release build). Options:
//! `--runs N` (default 5), `--round-trips N` (default 200000),
//! `--no-simgrid`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// The wall cost of one small message, ours and SimGrid 3.32's (see the
/// module docs).
#[derive(clap::Parser)]
#[command(name = "pingpong")]
struct Options {
    /// Runs of each case (the median is printed).
    #[arg(long, default_value_t = 5, value_parser = smpi_bench::positive)]
    runs: usize,
    /// Round trips per run.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..))]
    round_trips: u64,
    /// Ours only, without SimGrid's.
    #[arg(long)]
    no_simgrid: bool,
}

/// An emulator under test: its compiler wrapper, launcher, and the
/// ping-pong built with it.
struct Emulator {
    name: &'static str,
    smpicc: PathBuf,
    smpirun: PathBuf,
    program: PathBuf,
}

const PLATFORM: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"Full\">\n    <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1.25GBps\" lat=\"10us\" bb_bw=\"2.5GBps\" bb_lat=\"5us\"/>\n  </zone>\n</platform>\n";

fn main() -> Result<()> {
    let opts = <Options as clap::Parser>::parse();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("repository root")?
        .to_path_buf();
    let ours = std::env::current_exe()?
        .parent()
        .context("directory of pingpong")?
        .to_path_buf();
    if !ours.join("smpirun").is_file() {
        bail!(
            "{} is missing: build the workspace in release mode first (scripts/bench-pingpong.sh does)",
            ours.join("smpirun").display()
        );
    }
    let scratch = std::env::temp_dir().join(format!("smpi-pingpong-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let platform = scratch.join("flat2.xml");
    std::fs::write(&platform, PLATFORM)?;
    let hostfile = scratch.join("hosts");
    std::fs::write(&hostfile, "node-0\nnode-1\n")?;
    let source = repo.join("bench/c/pingpong.c");
    let mut emulators = vec![Emulator {
        name: "ours",
        smpicc: ours.join("smpicc"),
        smpirun: ours.join("smpirun"),
        program: scratch.join("pingpong-ours"),
    }];
    if !opts.no_simgrid {
        let sg = PathBuf::from("/usr/bin/smpirun");
        if sg.is_file() {
            emulators.push(Emulator {
                name: "SimGrid",
                smpicc: PathBuf::from("/usr/bin/smpicc"),
                smpirun: sg,
                program: scratch.join("pingpong-simgrid"),
            });
        } else {
            println!("SimGrid's smpirun is not installed: printing our figures only");
        }
    }
    for e in &emulators {
        smpi_bench::build_program(&e.smpicc, &source, &e.program)?;
    }
    let messages = 2 * opts.round_trips;
    println!(
        "1-byte ping-pong, 2 ranks on 2 hosts of a flat cluster, {} round trips ({messages} messages); median of {} runs, start-up (0 round trips) taken off",
        opts.round_trips, opts.runs
    );
    let modes: [(&str, &[&str]); 2] = [
        (
            "computation timing off",
            &["--cfg=smpi/simulate-computation:no"],
        ),
        ("default (timing on)", &[]),
    ];
    for (mode, cfg) in modes {
        println!("\n{mode}");
        let mut per_message = Vec::new();
        for (e, run) in emulators
            .iter()
            .zip(measure(&emulators, &platform, &hostfile, cfg, &opts)?)
        {
            let ns = (run.loop_wall - run.startup_wall).max(0.0) / messages as f64 * 1e9;
            println!(
                "  {:8} {:7.3} s ({:.3} s start-up) {ns:7.0} ns/message  | {}",
                e.name, run.loop_wall, run.startup_wall, run.line
            );
            per_message.push((ns, run.loop_wall));
        }
        if let [(ours, ours_wall), (simgrid, simgrid_wall)] = per_message[..] {
            println!(
                "  ratio SimGrid/ours: {:.1}x per message, {:.1}x wall (start-up included)",
                simgrid / ours.max(f64::MIN_POSITIVE),
                simgrid_wall / ours_wall
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// An emulator's medians in one mode.
struct Run {
    loop_wall: f64,
    startup_wall: f64,
    /// The program's line (the simulated time).
    line: String,
}

/// Runs every emulator `opts.runs` times with the round trips and with
/// none, alternating between them.
fn measure(
    emulators: &[Emulator],
    platform: &Path,
    hostfile: &Path,
    cfg: &[&str],
    opts: &Options,
) -> Result<Vec<Run>> {
    let n = opts.round_trips.to_string();
    let mut walls = vec![(Vec::new(), Vec::new()); emulators.len()];
    let mut lines = vec![String::new(); emulators.len()];
    for _ in 0..opts.runs {
        for (i, e) in emulators.iter().enumerate() {
            for (round_trips, zero) in [(n.as_str(), false), ("0", true)] {
                let start = Instant::now();
                let out = Command::new(&e.smpirun)
                    .arg("-np")
                    .arg("2")
                    .arg("-platform")
                    .arg(platform)
                    .arg("-hostfile")
                    .arg(hostfile)
                    .args(cfg)
                    .arg(&e.program)
                    .arg(round_trips)
                    .output()
                    .with_context(|| format!("cannot run {}", e.smpirun.display()))?;
                let wall = start.elapsed().as_secs_f64();
                if !out.status.success() {
                    bail!(
                        "{} failed:\n{}",
                        e.name,
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                if zero {
                    walls[i].1.push(wall);
                } else {
                    walls[i].0.push(wall);
                    lines[i] = String::from_utf8_lossy(&out.stdout)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_string();
                }
            }
        }
    }
    Ok(walls
        .into_iter()
        .zip(lines)
        .map(|((full, zero), line)| Run {
            loop_wall: median(full),
            startup_wall: median(zero),
            line,
        })
        .collect())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

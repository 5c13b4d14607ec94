//! `vs-simgrid`: the figures of issue 4, printed, never judged.
//!
//! (a) ten 8-byte `MPI_Allreduce` on 1,024 and 4,096 ranks of a flat
//!     cluster, (b) one all-to-all of 64 KiB blocks on 256 ranks of a
//!     two-level fat tree, each run under our `smpirun` and SimGrid 3.32's
//!     side by side (same C program, same platform file, computation timing
//!     off), with the median wall time and peak memory of several runs and
//!     their ratios; (c) the fluid solver alone: completions per second with
//!     10^3, 10^4 and 10^5 flows in flight, in components of one flow, of
//!     about 64, one behind one backbone (grouped), one behind leaves'
//!     links at many levels (partial re-solves) and the same solved in
//!     full at every event.
//!
//! (d) one pair-wise `MPI_Alltoall` of 4 KiB blocks on 256 and 1,024 ranks
//!     of a two-level fat tree (`2;32,32;1,8;1,1`, 10 Gbps, 1 us) and on
//!     4,096 ranks of `2;64,64;1,16;1,1` (ours only), buffers from
//!     `SMPI_SHARED_MALLOC`: contention-heavy traffic.
//!
//! Run it with `scripts/bench-vs-simgrid.sh` (release build, installs
//! SimGrid if needed). Options: `--runs N` (default 3), `--no-simgrid`,
//! `--only a|b|c|d`, `--max-ranks N` (skip larger cases), `--baseline DIR`
//! (also run the `smpicc`/`smpirun` of another build of ours, in DIR: the
//! side-by-side check of a refactor; the runs of each case alternate
//! between the emulators, so that a busy machine weighs on both alike).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use fluidnet::{ActionId, ActionSpec, Precision, ResourceId, Sharing, System};
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use smpi_bench::{measure, Measured};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// An emulator under test: its compiler wrapper and launcher.
#[derive(Clone)]
struct Emulator {
    name: &'static str,
    smpicc: PathBuf,
    smpirun: PathBuf,
}

/// Our smpirun beside SimGrid 3.32's on the same C programs (see the
/// module docs).
#[derive(clap::Parser)]
#[command(name = "vs-simgrid")]
struct Options {
    /// Runs of each case (the median is printed).
    #[arg(long, default_value_t = 3, value_parser = smpi_bench::positive)]
    runs: usize,
    /// Ours only, without SimGrid's.
    #[arg(long)]
    no_simgrid: bool,
    /// Only one group of cases (see the module docs).
    #[arg(long, value_parser = ["a", "b", "c", "d"])]
    only: Option<String>,
    /// Skip the cases with more ranks.
    #[arg(long)]
    max_ranks: Option<usize>,
    /// Another build's directory (with its smpicc and smpirun), run beside ours.
    #[arg(long, value_name = "DIR")]
    baseline: Option<PathBuf>,
}

fn main() -> Result<()> {
    let opts = <Options as clap::Parser>::parse();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("repository root")?
        .to_path_buf();
    let ours_dir = std::env::current_exe()?
        .parent()
        .context("directory of vs-simgrid")?
        .to_path_buf();
    let mut emulators = vec![Emulator {
        name: "ours",
        smpicc: ours_dir.join("smpicc"),
        smpirun: ours_dir.join("smpirun"),
    }];
    if !emulators[0].smpirun.is_file() {
        bail!(
            "{} is missing: build the workspace in release mode first (scripts/bench-vs-simgrid.sh does)",
            emulators[0].smpirun.display()
        );
    }
    if let Some(dir) = &opts.baseline {
        let b = Emulator {
            name: "baseline",
            smpicc: dir.join("smpicc"),
            smpirun: dir.join("smpirun"),
        };
        if !b.smpirun.is_file() {
            bail!("--baseline: no smpirun in {}", dir.display());
        }
        emulators.push(b);
    }
    if !opts.no_simgrid {
        let sg = Emulator {
            name: "SimGrid",
            smpicc: PathBuf::from("/usr/bin/smpicc"),
            smpirun: PathBuf::from("/usr/bin/smpirun"),
        };
        if sg.smpirun.is_file() {
            emulators.push(sg);
        } else {
            println!("SimGrid's smpirun is not installed: printing our figures only");
        }
    }
    let scratch = std::env::temp_dir().join(format!("smpi-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    println!(
        "median of {} runs; wall time in s, peak resident memory in MB, CPU time in user and kernel mode",
        opts.runs
    );
    let only = opts.only.as_deref().and_then(|o| o.chars().next());
    let wants = |c: char| only.is_none_or(|o| o == c);
    if wants('a') || wants('b') {
        let allreduce = compile_all(&emulators, &repo.join("bench/c/allreduce.c"), &scratch)?;
        let alltoall = compile_all(&emulators, &repo.join("bench/c/alltoall.c"), &scratch)?;
        if wants('a') {
            println!("\n(a) ten 8-byte MPI_Allreduce, flat cluster");
            for ranks in [1024, 4096] {
                if opts.max_ranks.is_some_and(|most| ranks > most) {
                    continue;
                }
                let (platform, hostfile) = flat_cluster(&scratch, ranks)?;
                let case = Case {
                    platform,
                    hostfile,
                    ranks,
                    args: &["10"],
                    cfg: &[],
                };
                compare(&emulators, &allreduce, &case, opts.runs)?;
            }
        }
        if wants('b') {
            println!("\n(b) MPI_Alltoall of 64 KiB blocks, 256 ranks, fat tree (16 leaves x 16 hosts, 16 tops), default algorithm (pair) on both");
            let (platform, hostfile) = fat_tree(&scratch, 16, 16, 16)?;
            let case = Case {
                platform,
                hostfile,
                ranks: 256,
                args: &["65536"],
                cfg: &[],
            };
            compare(&emulators, &alltoall, &case, opts.runs)?;
        }
    }
    if wants('d') {
        let alltoall = compile_all(&emulators, &repo.join("bench/c/alltoall.c"), &scratch)?;
        println!("\n(d) pair-wise MPI_Alltoall of 4 KiB blocks, fat trees of 10 Gbps, 1 us links, shared buffers");
        // SimGrid needs 8.6 GB and half a minute at 1,024 ranks, and grows
        // with the square of the ranks: it is left out beyond.
        for (ranks, shape, hosts, with_simgrid) in [
            (256, "2;32,32;1,8;1,1", 1024, true),
            (1024, "2;32,32;1,8;1,1", 1024, true),
            (4096, "2;64,64;1,16;1,1", 4096, false),
        ] {
            if opts.max_ranks.is_some_and(|most| ranks > most) {
                continue;
            }
            println!(
                "  {ranks} ranks, fat tree {shape}{}",
                if with_simgrid { "" } else { " (ours only)" }
            );
            let (platform, hostfile) = fat_tree_cluster(&scratch, shape, hosts)?;
            let case = Case {
                platform,
                hostfile,
                ranks,
                args: &["4096", "shared"],
                // One mapping per 16 MiB buffer rather than 16: 4,096 ranks
                // would pass Linux's default vm.max_map_count.
                cfg: &[
                    "--cfg=smpi/alltoall:pair",
                    "--cfg=smpi/shared-malloc-blocksize:16777216",
                ],
            };
            let keep = |e: &Emulator| with_simgrid || e.name != "SimGrid";
            let (which, programs): (Vec<Emulator>, Vec<PathBuf>) = emulators
                .iter()
                .zip(&alltoall)
                .filter(|(e, _)| keep(e))
                .map(|(e, p)| (e.clone(), p.clone()))
                .unzip();
            compare(&which, &programs, &case, opts.runs)?;
        }
    }
    if wants('c') {
        println!("\n(c) fluid solver alone: completions per second with N flows in flight");
        solver_benchmark();
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// Builds `source` with each emulator's compiler; the programs in order.
fn compile_all(emulators: &[Emulator], source: &Path, scratch: &Path) -> Result<Vec<PathBuf>> {
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .context("source name")?;
    let mut programs = Vec::new();
    for e in emulators {
        let out = scratch.join(format!("{stem}-{}", e.name));
        smpi_bench::build_program(&e.smpicc, source, &out)?;
        programs.push(out);
    }
    Ok(programs)
}

/// Runs every emulator `runs` times on the same program and platform and
/// prints one line each, then the ratios.
/// One benchmark case: where and how the program runs.
struct Case<'a> {
    platform: PathBuf,
    hostfile: PathBuf,
    ranks: usize,
    /// The program's own arguments.
    args: &'a [&'a str],
    /// More options for every emulator (`--cfg=...`).
    cfg: &'a [&'a str],
}

fn compare(emulators: &[Emulator], programs: &[PathBuf], case: &Case, runs: usize) -> Result<()> {
    let Case {
        platform,
        hostfile,
        ranks,
        args,
        cfg,
    } = case;
    // Per emulator: the measures so far, its last output line, and whether
    // it failed (then it is not run again).
    let mut measures: Vec<Vec<Measured>> = emulators.iter().map(|_| Vec::new()).collect();
    let mut lines = vec![String::from("(no output)"); emulators.len()];
    let mut failed = vec![false; emulators.len()];
    // Round by round, every emulator once: a machine that gets busier
    // weighs on all of them alike.
    for _ in 0..runs {
        for (i, (e, program)) in emulators.iter().zip(programs).enumerate() {
            if failed[i] {
                continue;
            }
            let m = measure(
                Command::new(&e.smpirun)
                    .arg("-np")
                    .arg(ranks.to_string())
                    .arg("-platform")
                    .arg(platform)
                    .arg("-hostfile")
                    .arg(hostfile)
                    .arg("--cfg=smpi/simulate-computation:no")
                    .args(*cfg)
                    .arg(program)
                    .args(*args),
            )?;
            if !m.success {
                println!(
                    "  {:8} {ranks:5} ranks: FAILED\n{}",
                    e.name,
                    m.stderr
                        .lines()
                        .rev()
                        .take(5)
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                failed[i] = true;
                continue;
            }
            lines[i] = m.stdout.lines().next().unwrap_or("").to_string();
            measures[i].push(m);
        }
    }
    let mut medians = Vec::new();
    for (i, e) in emulators.iter().enumerate() {
        let ms = &measures[i];
        if failed[i] || ms.is_empty() {
            medians.push(None);
            continue;
        }
        let w = median(ms.iter().map(|m| m.wall).collect());
        let p = median(ms.iter().map(|m| m.peak_kib as f64 / 1024.0).collect());
        let u = median(ms.iter().map(|m| m.user).collect());
        let k = median(ms.iter().map(|m| m.sys).collect());
        println!(
            "  {:8} {ranks:5} ranks: {w:8.2} s {p:8.1} MB (cpu {u:.2} user {k:.2} sys)  | {}",
            e.name, lines[i]
        );
        medians.push(Some((w, p)));
    }
    if let Some((ow, op)) = medians[0] {
        for (e, m) in emulators.iter().zip(&medians).skip(1) {
            if let Some((w, p)) = m {
                println!(
                    "  ratio {}/ours: wall time {:.2}x, peak memory {:.2}x (ours is {:.0}% of its memory)",
                    e.name,
                    w / ow,
                    p / op,
                    100.0 * op / p
                );
            }
        }
    }
    Ok(())
}

const HEADER: &str = "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n";

/// A FLAT cluster of `n` hosts (private links, shared backbone) and a
/// hostfile listing them in order.
fn flat_cluster(dir: &Path, n: usize) -> Result<(PathBuf, PathBuf)> {
    let platform = dir.join(format!("flat{n}.xml"));
    std::fs::write(
        &platform,
        format!(
            "{HEADER}  <zone id=\"world\" routing=\"Full\">\n    <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"1Gf\" bw=\"1.25GBps\" lat=\"10us\" bb_bw=\"2.5GBps\" bb_lat=\"5us\"/>\n  </zone>\n</platform>\n",
            n - 1
        ),
    )?;
    let hostfile = dir.join(format!("hosts{n}"));
    std::fs::write(
        &hostfile,
        (0..n).map(|i| format!("node-{i}\n")).collect::<String>(),
    )?;
    Ok((platform, hostfile))
}

/// A FAT_TREE cluster of `n` hosts (`topo_parameters` as SimGrid takes
/// them; 10 Gbps, 1 us links) and a hostfile listing its hosts in order.
fn fat_tree_cluster(dir: &Path, shape: &str, n: usize) -> Result<(PathBuf, PathBuf)> {
    let platform = dir.join(format!("fat-tree-cluster{n}.xml"));
    std::fs::write(
        &platform,
        format!(
            "{HEADER}  <zone id=\"world\" routing=\"Full\">\n    <cluster id=\"c\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" speed=\"1Gf\" bw=\"10Gbps\" lat=\"1us\" topology=\"FAT_TREE\" topo_parameters=\"{shape}\"/>\n  </zone>\n</platform>\n",
            n - 1
        ),
    )?;
    let hostfile = dir.join(format!("fat-tree-cluster-hosts{n}"));
    std::fs::write(
        &hostfile,
        (0..n).map(|i| format!("node-{i}\n")).collect::<String>(),
    )?;
    Ok((platform, hostfile))
}

/// A two-level fat tree written out as a Full zone with explicit routes,
/// so that both emulators read the very same links and paths: `leaves`
/// leaf switches of `per_leaf` hosts each, `tops` top switches, one link
/// between every leaf and every top. A route between leaves goes up
/// through top `destination % tops` (D-mod-K).
fn fat_tree(dir: &Path, leaves: usize, per_leaf: usize, tops: usize) -> Result<(PathBuf, PathBuf)> {
    use std::fmt::Write as _;
    let n = leaves * per_leaf;
    let mut x = String::from(HEADER);
    x.push_str("  <zone id=\"world\" routing=\"Full\">\n");
    for h in 0..n {
        writeln!(x, "    <host id=\"node-{h}\" speed=\"1Gf\"/>")?;
    }
    for h in 0..n {
        writeln!(
            x,
            "    <link id=\"host-{h}\" bandwidth=\"1.25GBps\" latency=\"1us\"/>"
        )?;
    }
    for l in 0..leaves {
        for t in 0..tops {
            writeln!(
                x,
                "    <link id=\"leaf-{l}-top-{t}\" bandwidth=\"1.25GBps\" latency=\"1us\"/>"
            )?;
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            let (la, lb) = (a / per_leaf, b / per_leaf);
            write!(
                x,
                "    <route src=\"node-{a}\" dst=\"node-{b}\"><link_ctn id=\"host-{a}\"/>"
            )?;
            if la != lb {
                let t = b % tops;
                write!(
                    x,
                    "<link_ctn id=\"leaf-{la}-top-{t}\"/><link_ctn id=\"leaf-{lb}-top-{t}\"/>"
                )?;
            }
            writeln!(x, "<link_ctn id=\"host-{b}\"/></route>")?;
        }
    }
    x.push_str("  </zone>\n</platform>\n");
    let platform = dir.join(format!("fattree{n}.xml"));
    std::fs::write(&platform, x)?;
    let hostfile = dir.join(format!("fattree-hosts{n}"));
    std::fs::write(
        &hostfile,
        (0..n).map(|i| format!("node-{i}\n")).collect::<String>(),
    )?;
    Ok((platform, hostfile))
}

/// A draw below `n` from the benchmark's seeded generator (the modulo's
/// slight bias does not matter for laying flows out).
fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// How the solver benchmark lays its flows out.
#[derive(Clone, Copy)]
enum Layout {
    /// Every flow on its own two links: components of one flow.
    Disjoint,
    /// Hosts in groups of 16, flows within a group: components of about
    /// 64 flows.
    Groups,
    /// Flows between any hosts through one backbone: one component.
    Backbone,
    /// Hosts in leaves of 32 whose spine links have capacities between a
    /// tenth and twice what their hosts could send, flows between any
    /// hosts through a backbone of half what all hosts could send: one
    /// component that many
    /// resources fix at many levels (no group forms), solved partially
    /// or, with `full`, in full at every event.
    Leaves { full: bool },
}

fn solver_benchmark() {
    println!(
        "  {:>7} {:>10} {:>12} {:>14}",
        "flows", "layout", "events", "events/s"
    );
    for flows in [1_000usize, 10_000, 100_000] {
        for (layout, name) in [
            (Layout::Disjoint, "disjoint"),
            (Layout::Groups, "groups-16"),
            (Layout::Backbone, "backbone"),
            (Layout::Leaves { full: false }, "leaves-32"),
            (Layout::Leaves { full: true }, "(full)"),
        ] {
            let (events, rate) = solver_case(flows, layout);
            println!("  {flows:>7} {name:>10} {events:>12} {rate:>14.0}");
        }
    }
}

/// Keeps `flows` flows in flight (a new one starts whenever one ends) for
/// about a second of wall time; returns the completions and their rate.
fn solver_case(flows: usize, layout: Layout) -> (usize, f64) {
    let mut sys = System::new(Precision::default());
    if matches!(layout, Layout::Leaves { full: true }) {
        sys.set_partial(None);
    }
    let hosts = match layout {
        Layout::Disjoint => 2 * flows,
        Layout::Groups | Layout::Backbone | Layout::Leaves { .. } => (flows / 4).max(32),
    };
    // Up and down link of each host, as a SimGrid cluster has.
    let links: Vec<[ResourceId; 2]> = (0..hosts)
        .map(|_| {
            [
                sys.add_resource(1.25e9, Sharing::Shared),
                sys.add_resource(1.25e9, Sharing::Shared),
            ]
        })
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
    let backbone = match layout {
        // Half of what the hosts could send: oversubscribed 2:1.
        Layout::Leaves { .. } => sys.add_resource(1.25e9 * hosts as f64 / 2.0, Sharing::Shared),
        _ => sys.add_resource(2.5e9 * 16.0, Sharing::Shared),
    };
    let spine: Vec<[ResourceId; 2]> = match layout {
        Layout::Leaves { .. } => (0..hosts.div_ceil(32))
            .map(|_| {
                [(); 2].map(|()| {
                    let share = 0.1 + below(&mut rng, 1900) as f64 / 1000.0;
                    sys.add_resource(1.25e9 * 32.0 * share, Sharing::Shared)
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut next_pair = 0usize;
    let mut start = |sys: &mut System, rng: &mut Xoshiro256PlusPlus| -> ActionId {
        let (src, dst) = match layout {
            Layout::Disjoint => {
                let i = next_pair % flows;
                next_pair += 1;
                (2 * i, 2 * i + 1)
            }
            Layout::Groups => {
                let g = below(rng, hosts / 16) * 16;
                let a = g + below(rng, 16);
                (a, g + (a - g + 1 + below(rng, 15)) % 16)
            }
            Layout::Backbone | Layout::Leaves { .. } => {
                let a = below(rng, hosts);
                (a, (a + 1 + below(rng, hosts - 1)) % hosts)
            }
        };
        let mut uses = vec![(links[src][0], 1.0), (links[dst][1], 1.0)];
        match layout {
            Layout::Backbone => uses.push((backbone, 1.0)),
            Layout::Leaves { .. } if src / 32 != dst / 32 => {
                uses.push((spine[src / 32][0], 1.0));
                uses.push((spine[dst / 32][1], 1.0));
                uses.push((backbone, 1.0));
            }
            _ => {}
        }
        let amount = 1e4 + (below(rng, 1_000_000) as f64);
        sys.start(&ActionSpec {
            amount,
            penalty: 2e-5 + 8775.0 / 1.25e9,
            bound: Some(1.25e9),
            factor: 1.0,
            uses: &uses,
        })
    };
    for _ in 0..flows {
        start(&mut sys, &mut rng);
    }
    let begin = Instant::now();
    let mut done = Vec::new();
    let mut events = 0usize;
    while begin.elapsed().as_secs_f64() < 1.0 {
        let Some(t) = sys.next_completion() else {
            break;
        };
        done.clear();
        sys.advance(t, &mut done);
        for _ in 0..done.len() {
            start(&mut sys, &mut rng);
        }
        events += done.len();
    }
    (events, events as f64 / begin.elapsed().as_secs_f64())
}

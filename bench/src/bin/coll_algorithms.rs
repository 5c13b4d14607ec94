//! `coll-algorithms`: the simulated time of each collective algorithm, from
//! 64 to 4,096 ranks of a two-level fat tree (issue 6), printed, never
//! judged.
//!
//! Cases: `MPI_Allreduce` of 8 B and of 1 MiB, `MPI_Alltoall` of 64 B
//! blocks, each with every algorithm of our registry (the radix-k ones
//! with several k). Each run executes `bench/c/collective.c`, which checks
//! the data; a wrong result is printed as such. Runs whose buffers would
//! not fit the memory budget are skipped and say how much they need.
//!
//! Run it with `scripts/bench-coll-algorithms.sh` (release build). Options:
//! `--max-ranks N` (default 4096), `--mem-gb G` (default 12), `--only
//! allreduce|alltoall`.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use collectives::{Algorithm, AllreduceAlgorithm, AlltoallAlgorithm};

/// Rank counts and the fat tree each runs on (one rank per host):
/// `2;leaves,hosts-per-leaf;1,tops;1,1`.
const SIZES: &[(usize, &str)] = &[
    (64, "2;8,8;1,4;1,1"),
    (256, "2;16,16;1,8;1,1"),
    (1024, "2;32,32;1,16;1,1"),
    (4096, "2;64,64;1,32;1,1"),
];

/// The link and host figures of every fat tree.
const LINKS: &str = "bw=10Gbps:lat=2us:speed=1Gf";

/// The radices tried for the radix-k algorithms.
const RADICES: &[usize] = &[2, 4, 8];

/// Every collective algorithm's simulated time (see the module docs).
#[derive(clap::Parser)]
#[command(name = "coll-algorithms")]
struct Options {
    /// The largest rank count.
    #[arg(long, default_value_t = 4096)]
    max_ranks: usize,
    /// The memory budget, in GB: runs whose buffers need more are skipped.
    #[arg(long, default_value_t = 12.0)]
    mem_gb: f64,
    /// Only one collective.
    #[arg(long, value_parser = ["allreduce", "alltoall"])]
    only: Option<String>,
}

/// One row of a table: the `--cfg` options naming the algorithm.
struct Variant {
    label: String,
    cfg: Vec<String>,
}

fn variants<A: Algorithm>(collective: &str, radix_k: &[A]) -> Vec<Variant> {
    let mut out = Vec::new();
    for &alg in A::ALL {
        let pick = format!("--cfg=smpi/{collective}:{alg}");
        if radix_k.contains(&alg) {
            for k in RADICES {
                out.push(Variant {
                    label: format!("{alg} k={k}"),
                    cfg: vec![pick.clone(), format!("--cfg=smpi/coll-radix:{k}")],
                });
            }
        } else {
            out.push(Variant {
                label: alg.to_string(),
                cfg: vec![pick],
            });
        }
    }
    out
}

/// A rough peak of a run: per rank, its input and output plus the
/// algorithm's scratch (for the linear reduce, the root's p - 1 incoming
/// copies, about as much; `rab2` pads fewer doubles than ranks to p
/// blocks of p, in two scratch buffers); for `basic_linear` alltoall, the
/// 2 (p - 1) requests every rank has in flight at once, about 600 bytes
/// each with their messages.
fn memory_needed(collective: &str, label: &str, ranks: usize, bytes: usize) -> f64 {
    let (p, b) = (ranks as f64, bytes as f64);
    match collective {
        "allreduce" if label == "rab2" => p * (4.0 * b + 16.0 * p * p),
        "allreduce" => 4.0 * p * b,
        _ if label == "basic_linear" => 4.0 * p * p * b + 1200.0 * p * p,
        _ => 4.0 * p * p * b,
    }
}

fn main() -> Result<()> {
    let opts = <Options as clap::Parser>::parse();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("repository root")?
        .to_path_buf();
    let bin = std::env::current_exe()?
        .parent()
        .context("directory of coll-algorithms")?
        .to_path_buf();
    let (smpicc, smpirun) = (bin.join("smpicc"), bin.join("smpirun"));
    if !smpirun.is_file() {
        bail!(
            "{} is missing: build the workspace in release mode first (scripts/bench-coll-algorithms.sh does)",
            smpirun.display()
        );
    }
    let scratch = std::env::temp_dir().join(format!("coll-algorithms-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let program = scratch.join("collective");
    smpi_bench::build_program(&smpicc, &repo.join("bench/c/collective.c"), &program)?;

    let cases: Vec<(&str, usize, Vec<Variant>)> = vec![
        (
            "allreduce",
            8,
            variants("allreduce", &[AllreduceAlgorithm::RecursiveK]),
        ),
        (
            "allreduce",
            1 << 20,
            variants("allreduce", &[AllreduceAlgorithm::RecursiveK]),
        ),
        (
            "alltoall",
            64,
            variants(
                "alltoall",
                &[
                    AlltoallAlgorithm::BruckK,
                    AlltoallAlgorithm::RingK,
                    AlltoallAlgorithm::Burst,
                ],
            ),
        ),
    ];
    let sizes: Vec<_> = SIZES.iter().filter(|(p, _)| *p <= opts.max_ranks).collect();
    println!(
        "Simulated time of one collective (ms), two-level fat trees ({LINKS}), one rank per host,\n\
         computation timing off; wall time of the whole run in brackets."
    );
    for (collective, bytes, rows) in &cases {
        if opts.only.as_deref().is_some_and(|o| o != *collective) {
            continue;
        }
        println!(
            "\nMPI_{}{} of {bytes} B",
            collective[..1].to_uppercase(),
            &collective[1..]
        );
        print!("{:22}", "algorithm");
        for (p, _) in &sizes {
            print!("{:>22}", format!("{p} ranks"));
        }
        println!();
        for v in rows {
            print!("{:22}", v.label);
            for (p, tree) in &sizes {
                let need = memory_needed(collective, &v.label, *p, *bytes);
                let cell = if need > opts.mem_gb * 1e9 {
                    format!("skip (~{:.0} GB)", need / 1e9)
                } else {
                    run_one(&smpirun, &program, *p, tree, &v.cfg, collective, *bytes)?
                };
                print!("{cell:>22}");
                use std::io::Write;
                std::io::stdout().flush()?;
            }
            println!();
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// One run; the cell to print.
fn run_one(
    smpirun: &std::path::Path,
    program: &std::path::Path,
    ranks: usize,
    tree: &str,
    cfg: &[String],
    collective: &str,
    bytes: usize,
) -> Result<String> {
    let start = Instant::now();
    let o = Command::new(smpirun)
        .arg("-np")
        .arg(ranks.to_string())
        .arg("-platform")
        .arg(format!("fat-tree:{tree}:{LINKS}"))
        .arg("--cfg=smpi/simulate-computation:no")
        .args(cfg)
        .arg(program)
        .arg(collective)
        .arg(bytes.to_string())
        .output()
        .context("cannot run smpirun")?;
    let wall = start.elapsed().as_secs_f64();
    let out = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() || !out.contains("data right") {
        let err = String::from_utf8_lossy(&o.stderr);
        let why = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Ok(format!(
            "FAILED {}",
            why.chars().take(12).collect::<String>()
        ));
    }
    let secs = out
        .split_whitespace()
        .find_map(|w| w.parse::<f64>().ok().filter(|_| w.contains('.')))
        .context("no time in the output")?;
    Ok(format!("{:.3} [{wall:.1}s]", secs * 1e3))
}

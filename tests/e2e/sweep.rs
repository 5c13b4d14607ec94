//! smpi-sweep: specs, local runs, results.csv, resuming, plots and the
//! failures a sweep must survive.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::{build, build_as, repo, scratch, stderr, stdout, tool, with_env, write_scratch};

fn sweep() -> Command {
    with_env(Command::new(env!("CARGO_BIN_EXE_smpi-sweep")))
}

/// examples/sweeps/allreduce.c, built under a name of its own
/// (bench/c/allreduce.c is "allreduce").
fn allreduce_app() -> PathBuf {
    build_as(
        "examples/sweeps/allreduce.c",
        "allreduce_for_sweeps",
        &["-O2"],
    )
}

/// `smpi-sweep run SPEC --out <scratch>/OUT ARGS...` on a fresh output
/// directory: the output and the directory.
fn run_fresh(spec: &Path, out: &str, args: &[&str]) -> (std::process::Output, PathBuf) {
    let out = scratch().join(out);
    let _ = std::fs::remove_dir_all(&out);
    let o = sweep()
        .arg("run")
        .arg(spec)
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    (o, out)
}

fn csv_rows(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn a_sweep_runs_every_point_once_resumes_and_plots() {
    let app = allreduce_app();
    let example = std::fs::read_to_string(repo().join("examples/sweeps/allreduce.toml")).unwrap();
    let spec = write_scratch(
        "sweep_allreduce.toml",
        &example.replace(
            "program = \"allreduce\"",
            &format!("program = \"{}\"", app.display()),
        ),
    );
    let (o, out) = run_fresh(&spec, "sweep_allreduce", &["--jobs", "2"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("8 ok, 0 failed, 0 timed out"),
        "{}",
        stdout(&o)
    );
    let rows = csv_rows(&out);
    assert_eq!(
        rows[0],
        [
            "point",
            "np",
            "bw",
            "bytes",
            "rep",
            "simulated_time_s",
            "wall_s",
            "peak_rss_kb",
            "status",
            "exit_code",
            "per_call_s"
        ]
    );
    assert_eq!(rows.len(), 9, "{rows:?}");
    let mut by_point = rows[1..].to_vec();
    by_point.sort_by_key(|r| r[0].parse::<usize>().unwrap());
    for (i, r) in by_point.iter().enumerate() {
        assert_eq!(r[0], i.to_string());
        assert_eq!((r[8].as_str(), r[9].as_str()), ("ok", "0"), "{r:?}");
        let sim: f64 = r[5].parse().unwrap();
        let per_call: f64 = r[10].parse().unwrap();
        assert!(sim > per_call && per_call > 0.0, "{r:?}");
        assert!(r[7].parse::<u64>().unwrap() > 0, "{r:?}");
    }
    // Point 1 is point 0 with 1 MiB instead of 1 KiB; point 2 has faster
    // links.
    let t = |i: usize| by_point[i][10].parse::<f64>().unwrap();
    assert!(t(1) > 100.0 * t(0) && t(2) < t(0), "{by_point:?}");
    // Again: nothing to do, at once.
    let started = Instant::now();
    let o = sweep()
        .args(["run", spec.to_str().unwrap(), "--jobs", "2", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success() && stdout(&o).contains("all 8 points are done"));
    assert!(started.elapsed().as_secs_f64() < 5.0);
    assert_eq!(csv_rows(&out).len(), 9);
    let o = sweep().arg("status").arg(&out).output().unwrap();
    assert!(
        stdout(&o).contains("8 points: 8 done, 0 failed, 0 timed out, 0 pending"),
        "{}",
        stdout(&o)
    );
    // A plot, in PNG and SVG.
    let font = tool("scripts/font.sh");
    let png = scratch().join("sweep_allreduce.png");
    let o = sweep()
        .env("SMPI_SWEEP_FONT", &font)
        .arg("plot")
        .arg(&out)
        .args(["--x", "bytes", "--y", "per_call_s", "--series", "bw", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let svg = scratch().join("sweep_allreduce.svg");
    let o = sweep()
        .env("SMPI_SWEEP_FONT", &font)
        .arg("plot")
        .arg(&out)
        .args(["--x", "np", "--y", "simulated_time_s", "-o"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("simulated_time_s"));
    // A changed spec is refused, unless forced.
    std::fs::write(
        &spec,
        "repeat = 2\n".to_string() + &std::fs::read_to_string(&spec).unwrap(),
    )
    .unwrap();
    let o = sweep()
        .args(["run", spec.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("the spec changed"), "{}", stderr(&o));
}

#[test]
fn failures_and_timeouts_are_rows_and_the_sweep_goes_on() {
    let endless = build("tests/c/endless.c");
    let spec = write_scratch(
        "sweep_failures.toml",
        &format!(
            "program = \"{{prog}}\"\nargs = [\"compute\"]\nnp = \"{{np}}\"\n\
             cfg = [\"smpi/simulate-computation:no\"]\ntimeout = \"2s\"\n\
             [axes]\nprog = [\"{}\", \"/no/such/program\"]\nnp = [2, \"many\"]\n",
            endless.display()
        ),
    );
    let (o, out) = run_fresh(&spec, "sweep_failures", &["--jobs", "2"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("0 ok, 3 failed, 1 timed out"),
        "{}",
        stdout(&o)
    );
    let err = stderr(&o);
    assert!(
        err.contains("timeout - killed after the spec's timeout of 2 s"),
        "{err}"
    );
    assert!(
        err.contains("the program /no/such/program is not there"),
        "{err}"
    );
    assert!(err.contains("np=many): failed - exit code"), "{err}");
    let rows = csv_rows(&out);
    let status = |prog: &str, np: &str| {
        rows.iter()
            .find(|r| r[1].contains(prog) && r[2] == np)
            .map(|r| r[7].clone())
            .unwrap()
    };
    assert_eq!(status("endless", "2"), "timeout");
    assert_eq!(status("endless", "many"), "failed");
    assert_eq!(status("no/such", "2"), "failed");
    // An unknown placeholder stops the sweep before anything runs.
    let bad = write_scratch(
        "sweep_bad.toml",
        "program = \"x\"\nnp = 2\nargs = [\"{size}\"]\n[axes]\nbytes = [1]\n",
    );
    let o = sweep()
        .args(["run", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o)
            .contains("sweep_bad.toml:3: args[0]: {size} names no axis (the axes are: bytes)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_slurm_backend_gives_the_rows_of_the_local_one() {
    let partition = tool("scripts/slurm.sh");
    let app = allreduce_app();
    let spec = write_scratch(
        "sweep_slurm.toml",
        &format!(
            "program = \"{}\"\nargs = [\"{{bytes}}\"]\nnp = \"{{np}}\"\n\
             platform = \"fat-tree:2;4,4;1,4;1,1:bw={{bw}}\"\n\
             cfg = [\"smpi/simulate-computation:no\"]\n\
             [axes]\nnp = [4, 8]\nbw = [\"1Gbps\", \"10Gbps\"]\nbytes = [4096]\n\
             [capture]\nper_call_s = \"per call: ([0-9.e+-]+) s\"\n\
             [slurm]\npartition = \"{partition}\"\ntime = \"10:00\"\n",
            app.display()
        ),
    );
    let rows_of = |backend: &str| {
        let out = scratch().join(format!("sweep_slurm_{backend}"));
        let _ = std::fs::remove_dir_all(&out);
        let o = sweep()
            .args([
                "run",
                spec.to_str().unwrap(),
                "--jobs",
                "2",
                "--backend",
                backend,
            ])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{backend}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert!(stdout(&o).contains("4 ok, 0 failed"), "{}", stdout(&o));
        let mut rows = csv_rows(&out);
        // Wall time and memory are the machine's; the rest must agree.
        for r in rows.iter_mut() {
            r.drain(6..8);
        }
        rows.sort();
        rows
    };
    assert_eq!(rows_of("slurm"), rows_of("local"));
    let o = sweep()
        .args([
            "run",
            spec.to_str().unwrap(),
            "--jobs",
            "2",
            "--backend",
            "slurm",
            "--dry-run",
        ])
        .output()
        .unwrap();
    let script = stdout(&o);
    assert!(
        script.contains("#SBATCH --array=0-3%2")
            && script.contains(&format!("#SBATCH --partition={partition}"))
            && script.contains("#SBATCH --time=10:00")
            && script.contains("run-point"),
        "{script}"
    );
}

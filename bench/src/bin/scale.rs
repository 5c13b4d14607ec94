//! `scale`: how far the rank count goes on this machine. One
//! `MPI_Allreduce` and one ring step (`bench/c/scale.c`) on 2^15 to 2^20
//! ranks (or up to `--max-ranks`), computation timing off, under our
//! `smpirun` with its default settings (which take copied stacks once
//! guard stacks would pass `vm.max_map_count`): the wall time and the peak
//! resident memory of each run, and the bytes per rank. Printed as a
//! table; with `--csv FILE` also written as CSV, and with `--svg FILE` as
//! a plot of both against the rank count.
//!
//! Run it with `scripts/bench-scale.sh` (release build). Options: `--runs
//! N` (default 1: a million-rank run takes a minute), `--min-ranks N`,
//! `--max-ranks N` (default 2^20; 2^23 wants raised limits and 24 GB),
//! `--cfg NAME:VALUE` (passed on, for example `contexts/stack-mode:guard`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// How far the rank count goes on this machine (see the module docs).
#[derive(clap::Parser)]
#[command(name = "scale")]
struct Options {
    /// Runs per rank count (the median is printed).
    #[arg(long, default_value_t = 1, value_parser = smpi_bench::positive)]
    runs: usize,
    /// The first rank count, doubled up to --max-ranks.
    #[arg(long, default_value_t = 1 << 15)]
    min_ranks: usize,
    /// The last rank count.
    #[arg(long, default_value_t = 1 << 20)]
    max_ranks: usize,
    /// An smpirun option for every run (repeatable), e.g.
    /// contexts/stack-mode:guard.
    #[arg(long, value_name = "NAME:VALUE")]
    cfg: Vec<String>,
    /// Also write the table as CSV.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Also plot it (SVG).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
}

fn parse_options() -> Result<Options> {
    let mut o = <Options as clap::Parser>::parse();
    if o.min_ranks < 2 || o.min_ranks > o.max_ranks {
        bail!("need 2 <= --min-ranks <= --max-ranks");
    }
    o.cfg = o.cfg.iter().map(|c| format!("--cfg={c}")).collect();
    Ok(o)
}

/// One run's figures.
struct Row {
    ranks: usize,
    wall_s: f64,
    peak_mib: f64,
    stack_mode: &'static str,
}

fn main() -> Result<()> {
    let opts = parse_options()?;
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("bench/ has a parent")?
        .to_path_buf();
    let bin = repo.join("target/release");
    let scratch = std::env::temp_dir().join(format!("smpi-scale-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let program = scratch.join("scale");
    smpi_bench::build_program(&bin.join("smpicc"), &repo.join("bench/c/scale.c"), &program)?;
    let limit = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .map(|t| t.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    println!(
        "one MPI_Allreduce and one ring step, computation timing off, vm.max_map_count {limit}{}",
        if opts.cfg.is_empty() {
            String::new()
        } else {
            format!(", {}", opts.cfg.join(" "))
        }
    );
    println!(
        "{:>10} {:>7} {:>10} {:>10} {:>10}",
        "ranks", "stacks", "wall s", "peak MiB", "B/rank"
    );
    let mut rows = Vec::new();
    let mut ranks = opts.min_ranks;
    while ranks <= opts.max_ranks {
        let mut walls = Vec::new();
        let mut peaks = Vec::new();
        let mut mode = "guard";
        for _ in 0..opts.runs {
            let mut cmd = Command::new(bin.join("smpirun"));
            cmd.arg("-np")
                .arg(ranks.to_string())
                .arg("--cfg=smpi/simulate-computation:no")
                .args(&opts.cfg)
                .arg(&program);
            let m = smpi_bench::measure(&mut cmd)?;
            if !m.success || !m.stdout.contains("right") {
                bail!("{ranks} ranks failed:\n{}{}", m.stdout, m.stderr);
            }
            if m.stderr.contains("contexts/stack-mode:auto")
                || opts.cfg.iter().any(|c| c.ends_with("stack-mode:copy"))
            {
                mode = "copy";
            }
            walls.push(m.wall);
            peaks.push(m.peak_kib as f64 / 1024.0);
        }
        walls.sort_by(f64::total_cmp);
        peaks.sort_by(f64::total_cmp);
        let row = Row {
            ranks,
            wall_s: walls[walls.len() / 2],
            peak_mib: peaks[peaks.len() / 2],
            stack_mode: mode,
        };
        println!(
            "{:>10} {:>7} {:>10.2} {:>10.0} {:>10.0}",
            row.ranks,
            row.stack_mode,
            row.wall_s,
            row.peak_mib,
            row.peak_mib * 1024.0 * 1024.0 / row.ranks as f64
        );
        rows.push(row);
        ranks *= 2;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if let Some(path) = &opts.csv {
        let mut text = String::from("ranks,stack_mode,wall_s,peak_mib,bytes_per_rank\n");
        for r in &rows {
            text.push_str(&format!(
                "{},{},{:.3},{:.1},{:.0}\n",
                r.ranks,
                r.stack_mode,
                r.wall_s,
                r.peak_mib,
                r.peak_mib * 1024.0 * 1024.0 / r.ranks as f64
            ));
        }
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if let Some(path) = &opts.svg {
        std::fs::write(path, plot(&rows))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Wall time (left axis) and peak memory (right axis) against the rank
/// count (doubling: one step per power of two), as an SVG line chart.
fn plot(rows: &[Row]) -> String {
    const W: f64 = 640.0;
    const H: f64 = 360.0;
    const L: f64 = 70.0;
    const R: f64 = 80.0;
    const T: f64 = 40.0;
    const B: f64 = 50.0;
    let n = rows.len().max(2) as f64 - 1.0;
    let x = |i: usize| L + (W - L - R) * i as f64 / n;
    let top_wall = rows.iter().map(|r| r.wall_s).fold(0.0, f64::max).max(1e-9) * 1.1;
    let top_mem = rows
        .iter()
        .map(|r| r.peak_mib)
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.1
        / 1024.0;
    let y = |v: f64, top: f64| H - B - (H - B - T) * v / top;
    let line = |value: &dyn Fn(&Row) -> f64, top: f64, color: &str| {
        let points: Vec<String> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{:.1},{:.1}", x(i), y(value(r), top)))
            .collect();
        let dots: String = points
            .iter()
            .map(|p| {
                let (a, b) = p.split_once(',').unwrap_or(("0", "0"));
                format!(r#"<circle cx="{a}" cy="{b}" r="3" fill="{color}"/>"#)
            })
            .collect();
        format!(
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>{dots}"#,
            points.join(" ")
        )
    };
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif"><rect width="{W}" height="{H}" fill="white"/><text x="{}" y="20" text-anchor="middle" font-size="14">One MPI_Allreduce and one ring step: wall time and peak memory</text>"#,
        W / 2.0
    );
    svg.push_str(&format!(
        r#"<line x1="{L}" y1="{0}" x2="{1}" y2="{0}" stroke="black"/><line x1="{L}" y1="{T}" x2="{L}" y2="{0}" stroke="black"/><line x1="{1}" y1="{T}" x2="{1}" y2="{0}" stroke="black"/>"#,
        H - B,
        W - R
    ));
    for i in 0..=4 {
        let f = f64::from(i) / 4.0;
        let yy = H - B - (H - B - T) * f;
        svg.push_str(&format!(
            r##"<text x="{}" y="{}" text-anchor="end" font-size="10" fill="#1f77b4">{:.0} s</text><text x="{}" y="{}" font-size="10" fill="#d62728">{:.1} GiB</text>"##,
            L - 6.0,
            yy + 4.0,
            top_wall * f,
            W - R + 6.0,
            yy + 4.0,
            top_mem * f
        ));
    }
    for (i, r) in rows.iter().enumerate() {
        let label = if r.ranks >= 1 << 20 {
            format!("{}M", r.ranks >> 20)
        } else {
            format!("{}K", r.ranks >> 10)
        };
        svg.push_str(&format!(
            r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="10">{label}</text>"#,
            x(i),
            H - B + 15.0
        ));
    }
    svg.push_str(&format!(
        r#"<text x="{}" y="{}" text-anchor="middle" font-size="12">ranks</text>"#,
        (L + W - R) / 2.0,
        H - 15.0
    ));
    svg.push_str(&line(&|r| r.wall_s, top_wall, "#1f77b4"));
    svg.push_str(&line(&|r| r.peak_mib / 1024.0, top_mem, "#d62728"));
    svg.push_str(&format!(
        r##"<text x="{L}" y="{}" font-size="12" fill="#1f77b4">wall time</text><text x="{}" y="{}" text-anchor="end" font-size="12" fill="#d62728">peak memory</text></svg>"##,
        T - 6.0,
        W - R,
        T - 6.0
    ));
    svg.push('\n');
    svg
}

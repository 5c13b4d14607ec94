//! The teaching labs of examples/labs: each checks its own data, and the
//! qualitative results the README tells students to expect hold.

use crate::{build, run, stderr, stdout, NO_COMPUTE};

/// A two-level fat tree of 256 hosts, given in the compact form.
const TREE: &str = "fat-tree:2;16,16;1,8;1,1:bw=10Gbps:lat=2us";

/// Runs a lab on `ranks` ranks of TREE with `cfg`; its output, after
/// checking that it succeeded and found its data right.
fn lab(source: &str, ranks: &str, cfg: &[&str], args: &[&str]) -> String {
    let app = build(source);
    let mut all = vec!["-np", ranks, "-platform", TREE, NO_COMPUTE];
    all.extend_from_slice(cfg);
    all.push(app.to_str().unwrap());
    all.extend_from_slice(args);
    let o = run(&all);
    let out = stdout(&o);
    assert!(
        o.status.success(),
        "{source} {cfg:?} {args:?}: {out}{}",
        stderr(&o)
    );
    assert!(!out.contains("WRONG"), "{source} {cfg:?} {args:?}: {out}");
    out
}

/// The time on the line of `out` starting with `label` (after spaces).
fn time_of(out: &str, label: &str) -> f64 {
    out.lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(label))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no '{label}' time in:\n{out}"))
}

/// The first number with a decimal point in `out`.
fn first_time(out: &str) -> f64 {
    out.split_whitespace()
        .find_map(|w| w.parse::<f64>().ok().filter(|_| w.contains('.')))
        .unwrap_or_else(|| panic!("no time in:\n{out}"))
}

#[test]
fn sparse_exchange_crystal_router_wins_small_and_loses_large() {
    // With a microsecond of software overhead per message, the zeros of a
    // sparse MPI_Alltoallv cost; the crystal router sends log2(P) messages.
    let cfg = [
        "--cfg=smpi/barrier:ompi_bruck",
        "--cfg=smpi/ois:0:1e-6:0",
        "--cfg=smpi/or:0:1e-6:0",
    ];
    let small = lab("examples/labs/sparse_exchange.c", "256", &cfg, &["8"]);
    let (a2av, crystal) = (time_of(&small, "alltoallv"), time_of(&small, "crystal"));
    assert!(crystal * 3.0 < a2av, "8 B on 256 ranks:\n{small}");
    // Large records are forwarded log2(P) times: MPI_Alltoallv wins.
    let large = lab("examples/labs/sparse_exchange.c", "64", &cfg, &["131072"]);
    let (a2av, crystal) = (time_of(&large, "alltoallv"), time_of(&large, "crystal"));
    assert!(a2av < crystal, "128 KiB on 64 ranks:\n{large}");
    // Any number of ranks (recursive bisection), and small grids whose
    // neighbours repeat.
    for ranks in ["2", "7", "12"] {
        lab("examples/labs/sparse_exchange.c", ranks, &[], &["24"]);
    }
}

#[test]
fn the_library_crystal_router_behaves_like_the_lab_one() {
    // `--cfg=smpi/alltoallv:crystal_router` routes the lab's own
    // MPI_Alltoallv: far ahead of the default at 8 B (the lab's
    // application-level router sends no size messages, so it stays ahead)
    // and as slow as the lab's router on large records.
    let cfg = [
        "--cfg=smpi/barrier:ompi_bruck",
        "--cfg=smpi/ois:0:1e-6:0",
        "--cfg=smpi/or:0:1e-6:0",
    ];
    let default = lab("examples/labs/sparse_exchange.c", "256", &cfg, &["8"]);
    let mut routed_cfg = cfg.to_vec();
    routed_cfg.push("--cfg=smpi/alltoallv:crystal_router");
    let routed = lab(
        "examples/labs/sparse_exchange.c",
        "256",
        &routed_cfg,
        &["8"],
    );
    let (library, lab_router) = (time_of(&routed, "alltoallv"), time_of(&routed, "crystal"));
    assert!(
        library * 2.0 < time_of(&default, "alltoallv") && lab_router < library,
        "8 B on 256 ranks:\n{default}\n{routed}"
    );
    let large = lab(
        "examples/labs/sparse_exchange.c",
        "64",
        &routed_cfg,
        &["131072"],
    );
    let (library, lab_router) = (time_of(&large, "alltoallv"), time_of(&large, "crystal"));
    assert!(
        (library - lab_router).abs() < 0.1 * lab_router,
        "128 KiB on 64 ranks:\n{large}"
    );
    // Recursive bisection on any number of ranks, data checked by the lab.
    for ranks in ["2", "3", "7", "12"] {
        lab(
            "examples/labs/sparse_exchange.c",
            ranks,
            &routed_cfg,
            &["24"],
        );
    }
    // Its messages pay smpi/ois like every collective's: on 8 ranks, 3
    // steps of a size and a record message each, 1 ms apiece, on top of
    // the 6 ms the lab's timing pays around the call (its barrier).
    let routed = ["--cfg=smpi/alltoallv:crystal_router"];
    let free = lab("examples/labs/sparse_exchange.c", "8", &routed, &["8"]);
    let paid = [routed[0], "--cfg=smpi/ois:0:1e-3:0"];
    let paid = lab("examples/labs/sparse_exchange.c", "8", &paid, &["8"]);
    let extra = time_of(&paid, "alltoallv") - time_of(&free, "alltoallv");
    assert!(
        extra >= 11e-3,
        "{extra} s more with 1 ms per send:\n{free}\n{paid}"
    );
}

#[test]
fn wide_halo_direct_beats_relay_when_the_halo_is_deep() {
    let deep = lab("examples/labs/wide_halo.c", "64", &[], &["1000", "3500"]);
    assert!(time_of(&deep, "direct") < time_of(&deep, "relay"), "{deep}");
    // One rank deep: the two methods send the same messages.
    let shallow = lab("examples/labs/wide_halo.c", "64", &[], &["1000", "500"]);
    assert_eq!(
        time_of(&shallow, "direct"),
        time_of(&shallow, "relay"),
        "{shallow}"
    );
    lab("examples/labs/wide_halo.c", "7", &[], &["10", "25"]);
}

#[test]
fn gcr_small_allreduces_are_fastest_with_recursive_k() {
    let per_iteration = |alg: &str| {
        let cfg = format!("--cfg=smpi/allreduce:{alg}");
        first_time(&lab(
            "examples/labs/gcr_allreduce.c",
            "256",
            &[&cfg],
            &["10", "8192"],
        ))
    };
    let (default, rdb, rk) = (
        per_iteration("default"),
        per_iteration("rdb"),
        per_iteration("recursive_k"),
    );
    assert!(
        rk < rdb && rdb < default,
        "default {default}, rdb {rdb}, recursive_k {rk}"
    );
}

#[test]
fn spectral_transpose_runs_every_alltoallv_algorithm() {
    for alg in ["default", "ring", "ring_k"] {
        let cfg = format!("--cfg=smpi/alltoallv:{alg}");
        let out = lab(
            "examples/labs/spectral_transpose.c",
            "64",
            &[&cfg],
            &["16", "4096"],
        );
        assert!(first_time(&out) > 0.0, "{out}");
    }
}

/// Runs the energy lab in `mode` with `amount`: (pstate, time, energy)
/// per line of its table.
fn energy_lab(mode: &str, amount: &str) -> Vec<(f64, f64)> {
    let app = build("examples/labs/energy_pstates.c");
    let platform = crate::repo().join("examples/labs/energy_cluster.xml");
    let o = run(&[
        "-np",
        "16",
        "-platform",
        platform.to_str().unwrap(),
        NO_COMPUTE,
        "--cfg=plugin:host_energy",
        app.to_str().unwrap(),
        mode,
        amount,
    ]);
    let out = stdout(&o);
    assert!(
        o.status.success() && !out.contains("WRONG"),
        "{out}{}",
        stderr(&o)
    );
    out.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<f64> = l
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            (f[2], f[3])
        })
        .collect()
}

#[test]
fn energy_pstates_compute_has_a_sweet_spot_and_comm_saves_at_the_slowest() {
    // Compute-bound: time goes with 1/speed; pstate 1 spends least energy,
    // the slowest pays its idle watts longest.
    let compute = energy_lab("compute", "3");
    assert_eq!(compute.len(), 4);
    assert!(
        (compute[3].0 / compute[0].0 - 2.5).abs() < 1e-3,
        "{compute:?}"
    );
    let best = (0..4)
        .min_by(|&a, &b| compute[a].1.total_cmp(&compute[b].1))
        .unwrap();
    assert_eq!(best, 1, "{compute:?}");
    assert!(compute[3].1 > compute[0].1 * 1.3, "{compute:?}");
    // Communication-bound: the same time at every pstate, less energy the
    // slower the nodes.
    let comm = energy_lab("comm", "16");
    assert!((comm[3].0 / comm[0].0 - 1.0).abs() < 1e-2, "{comm:?}");
    assert!(comm.windows(2).all(|w| w[1].1 < w[0].1), "{comm:?}");
}

#[test]
fn routing_lab_minimal_saturates_one_blue_link_per_group_and_ugal_relieves_it() {
    let app = build("examples/labs/routing_congestion.c");
    let dir = crate::scratch().join("routing-lab");
    std::fs::create_dir_all(&dir).unwrap();
    let run_with = |routing: &str| -> (f64, Vec<Vec<String>>) {
        let stats = dir.join(format!("{routing}.csv"));
        let o = run(&[
            "-platform",
            "dragonfly:8,1;1,1;8,1;4:bw=10Gbps:lat=1us",
            NO_COMPUTE,
            &format!("--cfg=network/routing:{routing}"),
            &format!("--cfg=smpi/network-stats:{}", stats.display()),
            app.to_str().unwrap(),
            "32",
            "65536",
            "2",
        ]);
        let out = stdout(&o);
        assert!(
            o.status.success() && out.contains("data ok"),
            "{out}{}",
            stderr(&o)
        );
        let rows = std::fs::read_to_string(&stats)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        (first_time(&out), rows)
    };
    let blue_loads = |rows: &[Vec<String>]| -> Vec<f64> {
        rows.iter()
            .filter(|r| r[0].starts_with("blue"))
            .map(|r| r[6].parse().unwrap())
            .collect()
    };
    let (minimal, min_rows) = run_with("minimal");
    let (ugal, ugal_rows) = run_with("ugal");
    assert!(ugal < 0.7 * minimal, "ugal {ugal} ms, minimal {minimal} ms");
    // Minimally routed, each group's transposition crosses one blue link
    // direction: 8 of them carry nearly all of it, the others only the
    // halo's few messages between groups. UGAL spreads the load.
    let busy = |loads: &[f64], above: f64| loads.iter().filter(|&&u| u > above).count();
    let (min_blue, ugal_blue) = (blue_loads(&min_rows), blue_loads(&ugal_rows));
    assert_eq!(busy(&min_blue, 0.5), 8, "{min_blue:?}");
    assert_eq!(busy(&min_blue, 0.05), 8, "{min_blue:?}");
    assert!(busy(&ugal_blue, 0.05) > 16, "{ugal_blue:?}");
}

/// A 64-node dragonfly: 4 groups of 2 chassis of 4 routers of 2 nodes.
const DRAGONFLY: &str = "dragonfly:4,1;2,1;4,1;2:bw=10Gbps:lat=1us";

/// Runs an exascale lab on `ranks` ranks of DRAGONFLY with `routing`;
/// its two times, after checking that it found its data right.
fn exascale_lab(source: &str, ranks: &str, routing: &str, args: &[&str]) -> (f64, f64) {
    let app = build(source);
    let routing = format!("--cfg=network/routing:{routing}");
    let mut all = vec!["-np", ranks, "-platform", DRAGONFLY, NO_COMPUTE, &routing];
    all.push(app.to_str().unwrap());
    all.extend_from_slice(args);
    let o = run(&all);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("data right"),
        "{source} {routing} {args:?}: {out}{}",
        stderr(&o)
    );
    let times: Vec<f64> = out
        .split_whitespace()
        .filter(|w| w.contains('.'))
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(times.len(), 2, "{out}");
    (times[0], times[1])
}

#[test]
fn transpose_2d_checks_both_transpositions_and_valiant_changes_the_columns() {
    let lab = |ranks, routing, args: &[&str]| {
        exascale_lab("examples/labs/transpose_2d.c", ranks, routing, args)
    };
    // 8 x 8 ranks: each row is one chassis (no blue link), each column
    // spans the four groups, so Valiant's detours change the columns' time.
    let (rows, both) = lab("64", "minimal", &["8", "4096", "2"]);
    assert!(rows > 0.0 && both > rows, "rows {rows}, both {both}");
    let (v_rows, v_both) = lab("64", "valiant", &["8", "4096", "2"]);
    assert!(
        v_rows > 0.0 && v_both > v_rows,
        "rows {v_rows}, both {v_both}"
    );
    assert!(
        ((v_both - v_rows) - (both - rows)).abs() > 1e-3 * (both - rows),
        "columns: minimal {}, valiant {}",
        both - rows,
        v_both - v_rows
    );
    // Uneven grids and blocks: 3 x 4 ranks, and one row.
    lab("12", "minimal", &["3", "1000"]);
    lab("5", "valiant", &["1", "77"]);
    // Folded buffers: the times stay, the data is not checked.
    let app = build("examples/labs/transpose_2d.c");
    let o = run(&[
        "-np",
        "64",
        "-platform",
        DRAGONFLY,
        NO_COMPUTE,
        app.to_str().unwrap(),
        "8",
        "4096",
        "2",
        "shared",
    ]);
    let out = stdout(&o);
    assert!(o.status.success() && out.contains("not checked"), "{out}");
    assert!(
        out.contains(&format!("rows {rows:.9} s, rows+columns {both:.9} s")),
        "{out}"
    );
}

#[test]
fn halo_allreduce_checks_faces_and_sums_and_valiant_slows_the_allreduce() {
    let lab = |ranks, routing| {
        exascale_lab(
            "examples/labs/halo_allreduce.c",
            ranks,
            routing,
            &["512", "3"],
        )
    };
    let (halo, allreduce) = lab("64", "minimal");
    assert!(
        halo > 0.0 && allreduce > 0.0,
        "halo {halo}, allreduce {allreduce}"
    );
    // The allreduce's small messages are all latency: a detour through a
    // third group makes each one longer.
    let (_, v_allreduce) = lab("64", "valiant");
    assert!(
        v_allreduce > allreduce,
        "valiant {v_allreduce}, minimal {allreduce}"
    );
    // 2 x 3 ranks: both neighbours along the short dimension are one rank.
    lab("6", "minimal");
}

/// The progress_overlap lab on `ranks` ranks of 16 two-core hosts under
/// `progress`: (overlapped, compute, exchange) seconds per step.
fn overlap_lab(ranks: &str, progress: &str) -> (f64, f64, f64) {
    let app = build("examples/labs/progress_overlap.c");
    let progress = format!("--cfg=smpi/progress:{progress}");
    let o = run(&[
        "-np",
        ranks,
        "-platform",
        "flat:16:speed=1Gf:cores=2:bw=10Gbps:lat=1us",
        NO_COMPUTE,
        &progress,
        app.to_str().unwrap(),
        "4194304",
        "10000",
        "4",
    ]);
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("faces right"),
        "{out}{}",
        stderr(&o)
    );
    (
        time_of(&out, "overlapped"),
        time_of(&out, "compute"),
        time_of(&out, "exchange"),
    )
}

#[test]
fn progress_overlap_hides_the_exchange_only_when_something_progresses_it() {
    let (o, c, e) = overlap_lab("16", "offload");
    assert_eq!(o, c.max(e), "offload: the larger of the two");
    let (w, _, _) = overlap_lab("16", "weak");
    assert!(
        (w - (c + e)).abs() < 1e-5,
        "weak: their sum, {w} vs {c} + {e}"
    );
    let (t, tc, _) = overlap_lab("16", "thread");
    assert!((tc - c / 0.9).abs() < 1e-5 && t == tc, "thread: {t} {tc}");
    // Two ranks per two-core host: a dedicated core leaves one to both.
    let (d, dc, _) = overlap_lab("32", "dedicated");
    let (_, oc, _) = overlap_lab("32", "offload");
    assert!(
        (dc - 2.0 * oc).abs() < 1e-5 && d >= dc,
        "dedicated: {d} {dc} {oc}"
    );
}

/// The gas_rma lab's time per operation on `ranks` ranks under `progress`.
fn gas_lab(ranks: &str, progress: &str) -> f64 {
    let progress = format!("--cfg=smpi/progress:{progress}");
    let out = lab(
        "examples/labs/gas_rma.c",
        ranks,
        &[&progress],
        &["10", "50"],
    );
    assert!(out.contains("counters right"), "{out}");
    time_of(&out, "per-operation")
}

#[test]
fn gas_rma_remote_accesses_wait_for_busy_targets_under_weak_progression() {
    let offload = gas_lab("64", "offload");
    let weak = gas_lab("64", "weak");
    assert!(offload > 50e-6 && offload < 100e-6, "{offload}");
    assert!(weak > offload * 1.2, "weak {weak} vs offload {offload}");
}

//! Progression models (`smpi/progress`, `mpi/progression.rs`) on
//! tests/c/overlap.c: an 8 MiB message posted before 20 ms of computation
//! on both sides, on a 10 Gbps cluster (the transfer alone takes 6.7 ms).

use crate::polling::cluster;
use crate::{build, run, stderr, stdout, NO_COMPUTE};

/// The milliseconds rank 0 and rank 1 report under `progress`, on
/// `platform`.
fn overlap(progress: &str, platform: &str) -> Result<[f64; 2], String> {
    let app = build("tests/c/overlap.c");
    let progress = format!("--cfg=smpi/progress:{progress}");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "-platform",
        platform,
        &progress,
        app.to_str().unwrap(),
    ]);
    if !o.status.success() {
        return Err(stderr(&o));
    }
    let out = stdout(&o);
    let ms = |rank: usize| -> f64 {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("rank {rank}: ")))
            .and_then(|l| l.strip_suffix(" ms"))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no time of rank {rank} in:\n{out}"))
    };
    Ok([ms(0), ms(1)])
}

#[test]
fn offload_moves_the_transfer_during_the_computation_as_simgrid_does() {
    // SimGrid 3.32 prints 20.000010 ms for both ranks.
    assert_eq!(overlap("offload", &cluster()).unwrap(), [20.000010; 2]);
}

#[test]
fn weak_progression_starts_a_rendezvous_after_the_computation() {
    for ms in overlap("weak", &cluster()).unwrap() {
        assert!((26.0..28.0).contains(&ms), "{ms} ms");
    }
}

#[test]
fn a_progress_thread_slows_the_computation_by_its_share() {
    // 20 ms / (1 - 0.1), the transfer hidden behind it.
    assert_eq!(overlap("thread", &cluster()).unwrap(), [22.222232; 2]);
}

#[test]
fn a_dedicated_core_leaves_the_others_to_compute() {
    // Both ranks on one host of 2 cores: one core left for both.
    let [a, b] = overlap("dedicated", "flat:1:speed=1Gf:cores=2:bw=10Gbps:lat=1us").unwrap();
    assert!(
        (a - 40.0).abs() < 0.01 && (b - 40.0).abs() < 0.01,
        "{a} {b}"
    );
    let e = overlap("dedicated", &cluster()).unwrap_err();
    assert!(
        e.contains("smpi/progress:dedicated sets 1 core of every host aside for progression, but host 'node-0' has 1"),
        "{e}"
    );
}

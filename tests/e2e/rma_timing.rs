//! One-sided timings (`smpi/rma-model`): under the default `simgrid`
//! model every epoch, lock, flush and atomic of tests/c/rma_timing.c takes
//! SimGrid 3.32's simulated time to the nanosecond; `direct` keeps the
//! cheaper model (no synchronization messages, no blocking atomics).

use crate::polling::stdout_on_cluster;
use crate::{build, run, stderr, NO_COMPUTE};

/// tests/c/rma_timing.c under SimGrid 3.32 (`smpirun -np 4 -platform
/// <cluster> --cfg=smpi/simulate-computation:no`), lines sorted.
const SIMGRID: &str = "\
accumulate         0.000008254
compare_and_swap   0.000020433
empty fence        0.000016317
fence get nosucceed 0.000024471
fence noprecede    0.000008163
fence put 8        0.000016329
fetch_and_op       0.000016370
get_accumulate     0.000028549
lock get 1048576   0.000915058
lock get 65536     0.000079045
lock get 8         0.000004063
lock put 1048576   0.000915058
lock put 65536     0.000079045
lock put 8         0.000004100
lockall put flush  0.000004191
pscw origin        0.000008132
pscw target        0.000010354
unlock_all         0.000028559
";

fn sorted_output(model: &str) -> String {
    let model = format!("--cfg=smpi/rma-model:{model}");
    let out = stdout_on_cluster("tests/c/rma_timing.c", "4", &[&model]);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn every_epoch_and_atomic_takes_simgrids_time_under_the_simgrid_model() {
    assert_eq!(sorted_output("simgrid"), SIMGRID);
}

#[test]
fn the_direct_model_synchronizes_without_messages_and_never_blocks_an_atomic() {
    let out = sorted_output("direct");
    let time = |label: &str| -> f64 {
        out.lines()
            .filter_map(|l| l.rsplit_once(' '))
            .find(|(name, _)| name.trim() == label)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or_else(|| panic!("no '{label}' in:\n{out}"))
    };
    // Transfers cost the same; a fence is one barrier, not two.
    assert_eq!(time("lock put 65536"), 0.000079045);
    assert!(time("empty fence") < 0.6 * 0.000016317, "{out}");
    // The atomics return at once: the accumulate is not waited for.
    assert!(
        time("accumulate") - time("lockall put flush") < 1e-7,
        "{out}"
    );
    let app = build("tests/c/rma_timing.c");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/rma-model:fast",
        app.to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("option smpi/rma-model: 'fast' is not one of simgrid, direct"),
        "{}",
        stderr(&o)
    );
}

/// tests/c/atomic_contention.c under SimGrid 3.32 (`smpirun -np 4
/// -platform <cluster> --cfg=smpi/simulate-computation:no`), lines
/// sorted: the three fetch-and-ops on rank 0 run one after another (the
/// target's atomic mutex), rank 0's compare-and-swap on itself is a copy
/// (10 ns: MPI_Wtime's own cost).
const SIMGRID_CONTENTION: &str = "\
counter 3 swapped 7
rank 0 fetched 0 after 0.000000010
rank 1 fetched 0 after 0.000008116
rank 2 fetched 1 after 0.000016223
rank 3 fetched 2 after 0.000024329
";

#[test]
fn atomics_to_one_target_run_one_at_a_time_and_a_rank_copies_its_own() {
    let out = stdout_on_cluster("tests/c/atomic_contention.c", "4", &[]);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    let sorted: String = lines.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(sorted, SIMGRID_CONTENTION);
}

#[test]
fn a_loop_of_atomics_on_the_ranks_own_memory_ends() {
    // SimGrid 3.32 spins forever here; under every progression model the
    // loop lets the put land.
    for progress in ["offload", "weak"] {
        let cfg = format!("--cfg=smpi/progress:{progress}");
        let out = stdout_on_cluster("tests/c/rma_self_spin.c", "2", &[&cfg]);
        assert_eq!(out, "rank 0 saw the flag\n", "{progress}");
    }
}

#[test]
fn threads_of_one_rank_take_the_targets_atomic_mutex_in_turn() {
    // One round trip each, one after the other (they overlapped when the
    // mutex was held by a rank rather than by a thread: 8.163 us both).
    let out = stdout_on_cluster("tests/c/atomic_threads.c", "2", &[]);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        ["counter 2", "threads took 0.000008116 and 0.000016222"],
        "{out}"
    );
}

#[test]
fn a_ranks_puts_to_itself_take_no_time_however_many() {
    // SimGrid 3.32 prints 0.000016190 s for both counts: the copies cost
    // nothing, and 20,000 of them at one date move no clock.
    let app = build("tests/c/rma_self_puts.c");
    let platform = crate::polling::cluster();
    for n in ["1", "20000"] {
        let o = run(&[
            "-np",
            "2",
            NO_COMPUTE,
            "-platform",
            &platform,
            app.to_str().unwrap(),
            n,
        ]);
        assert_eq!(
            crate::stdout(&o),
            format!("{n} puts to itself: fence epoch 0.000016190 s, data right\n"),
            "{}",
            stderr(&o)
        );
    }
}

//! Rank stacks: guard stacks (one mapping each) and copied stacks (one
//! stack the ranks take turns on, `contexts/stack-mode:copy`) run programs
//! alike, buffers on the stack included, and name the rank that
//! overflows.

use crate::*;

#[test]
fn copied_stacks_run_programs_as_guard_stacks_do_even_with_buffers_on_the_stack() {
    let app = build_as("tests/c/stack_buffers.c", "stack_buffers", &["-lpthread"]);
    let outputs: Vec<String> = ["guard", "copy"]
        .iter()
        .map(|mode| {
            let o = run(&[
                "-np",
                "5",
                NO_COMPUTE,
                &format!("--cfg=contexts/stack-mode:{mode}"),
                app.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{mode}: {}{}", stdout(&o), stderr(&o));
            stdout(&o)
        })
        .collect();
    for rank in 0..5 {
        assert!(
            outputs[1].contains(&format!(
                "rank {rank}: ring ok, irecv ok, allreduce ok, window ok, thread ok"
            )),
            "{}",
            outputs[1]
        );
    }
    // The same simulation, to the last digit.
    assert_eq!(outputs[0], outputs[1]);
}

/// Rank `victim` of `np` recurses without bound under `mode`.
fn overflow(np: &str, victim: &str, mode: &str) -> std::process::Output {
    let app = build_as("tests/c/overflow.c", "overflow_at", &["-O2"]);
    run(&[
        "-np",
        np,
        NO_COMPUTE,
        "--cfg=contexts/stack-size:256",
        &format!("--cfg=contexts/stack-mode:{mode}"),
        app.to_str().unwrap(),
        victim,
    ])
}

#[test]
fn a_stack_overflow_in_one_rank_of_100000_is_named_with_copied_stacks() {
    let o = overflow("100000", "99998", "copy");
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("rank 99998 overflowed its stack of 256 KiB"),
        "{err}"
    );
    assert!(err.contains("--cfg=contexts/stack-size"), "{err}");
}

#[test]
fn a_stack_overflow_in_one_rank_of_many_is_named_with_guard_stacks() {
    // 30,000 guard stacks take 60,000 mappings: within Linux's default
    // vm.max_map_count (65,530).
    let o = overflow("30000", "29998", "guard");
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("rank 29998 overflowed its stack of 256 KiB"),
        "{err}"
    );
}

#[test]
fn an_unknown_stack_mode_is_refused_with_the_choices() {
    let app = build_as("tests/c/overflow.c", "overflow_at", &["-O2"]);
    let o = run(&[
        "-np",
        "2",
        "--cfg=contexts/stack-mode:shared",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("contexts/stack-mode: 'shared' is not one of auto, guard, copy"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn per_rank_copies_that_cannot_fit_the_mappings_stop_at_once_saying_why() {
    let limit: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(65_530);
    if limit > 4 << 20 {
        eprintln!("vm.max_map_count is {limit}: too many ranks would be needed to pass it");
        return;
    }
    // One more rank than four mappings each allow.
    let ranks = (limit / 4 + 1).to_string();
    let app = build_as("tests/c/tls_counter.c", "tls_counter", &["-O2"]);
    let o = run(&["-np", &ranks, NO_COMPUTE, app.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("cannot swap its globals"), "{err}");
    assert!(err.contains("it has thread-local variables"), "{err}");
    assert!(err.contains("vm.max_map_count"), "{err}");
    assert!(err.contains("-no-privatize"), "{err}");
    assert!(!stdout(&o).contains("ok 0"), "no rank ran");
}

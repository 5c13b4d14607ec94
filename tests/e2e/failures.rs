//! Failures must give a clear message and a non-zero exit, never a hang.

use super::*;

#[test]
fn deadlock_names_every_blocked_rank_and_call() {
    let app = build("tests/c/deadlock.c");
    let o = run(&["-np", "3", NO_COMPUTE, app.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("deadlock"), "{err}");
    for (rank, peer) in [(0, 1), (1, 2), (2, 0)] {
        let line = format!(
            "rank {rank} is blocked in MPI_Recv(receive from {peer}, tag 42, MPI_COMM_WORLD)"
        );
        assert!(err.contains(&line), "missing '{line}' in:\n{err}");
    }
}

#[test]
fn deadlock_in_waitall_names_the_first_pending_request_and_counts_the_others() {
    let app = build("tests/c/deadlock.c");
    let o = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap(), "waitall"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    for (rank, peer) in [(0, 1), (1, 0)] {
        let line = format!(
            "rank {rank} is blocked in MPI_Waitall(receive from {peer}, tag 42, MPI_COMM_WORLD, \
             and 1 more pending requests)"
        );
        assert!(err.contains(&line), "missing '{line}' in:\n{err}");
    }
}

/// MPI from the threads of an OpenMP region, which run natively: one
/// line naming the rank, the call and what to do, exit code 1, no
/// internal error or panic text. From a pthread the rank started (a
/// simulated thread) the same call works.
#[test]
fn mpi_from_an_openmp_thread_is_one_clear_error() {
    let app = build_as("tests/c/thread_mpi.c", "thread_mpi", &["-O2", "-fopenmp"]);
    let run_with = |how: &str| {
        smpirun()
            .env("OMP_NUM_THREADS", "2")
            .args(["-np", "2", NO_COMPUTE])
            .arg(&app)
            .arg(how)
            .output()
            .expect("run smpirun")
    };
    let o = run_with("omp");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "smpirun: rank 1 called MPI_Comm_size from a thread smpirun does not simulate"
        ) && err.contains("omp master"),
        "{err}"
    );
    assert!(
        !err.contains("internal error") && !err.contains("panic"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let o = run_with("pthread");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).lines().filter(|l| l.ends_with(" done")).count(),
        2
    );
}

#[test]
fn segfault_names_the_rank_and_the_simulated_time() {
    let app = build("tests/c/segfault.c");
    let o = run(&["-np", "3", NO_COMPUTE, app.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("rank 1 crashed (segmentation fault"), "{err}");
    assert!(err.contains("at simulated time 0.0000"), "{err}");
    assert!(
        stdout(&o).contains("rank 1 about to crash"),
        "output before the crash is kept"
    );
}

#[test]
fn stack_overflow_names_the_rank_and_the_option() {
    let app = build("tests/c/overflow.c");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=contexts/stack-size:256",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("rank 0 overflowed its stack of 256 KiB"),
        "{err}"
    );
    assert!(err.contains("--cfg=contexts/stack-size"), "{err}");
}

#[test]
fn mpi_abort_code_is_the_exit_status() {
    let app = build("tests/c/abort.c");
    let o = run(&["-np", "4", NO_COMPUTE, app.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(stderr(&o).contains("rank 2 called MPI_Abort with error code 7"));
}

#[test]
fn first_nonzero_rank_exit_code_is_the_exit_status() {
    let app = build("tests/c/exitcode.c");
    let o = run(&["-np", "4", NO_COMPUTE, app.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("rank 3 returns") && !out.contains("rank 2 returns"),
        "{out}"
    );
}

#[test]
fn invalid_arguments_are_fatal_by_default_and_returned_on_request() {
    let app = build("tests/c/badarg.c");
    let fatal = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap()]);
    assert!(!fatal.status.success());
    let err = stderr(&fatal);
    assert!(
        err.contains("rank 0: MPI_Send: invalid rank 7") && err.contains("MPI_ERR_RANK"),
        "{err}"
    );
    let ret = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap(), "return"]);
    assert!(ret.status.success(), "{}", stderr(&ret));
    assert!(
        stdout(&ret).contains("MPI_Send returned class 6"),
        "{}",
        stdout(&ret)
    );
}

#[test]
fn bad_platform_file_names_the_line_and_the_problem() {
    let app = build("examples/hello.c");
    let bad = write_scratch(
        "bad.xml",
        "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<host id=\"a\" speed=\"1Gfx\"/>\n</zone>\n</platform>\n",
    );
    let o = run(&[
        "-np",
        "2",
        "-platform",
        bad.to_str().unwrap(),
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("bad.xml:3:") && err.contains("1Gfx"), "{err}");
}

#[test]
fn a_program_not_built_by_smpicc_is_refused() {
    let o = run(&["-np", "2", "/bin/true"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not built by smpicc"), "{}", stderr(&o));
}

#[test]
fn unknown_option_lists_the_valid_ones() {
    let app = build("examples/hello.c");
    let o = run(&[
        "-np",
        "2",
        "--cfg=smpi/no-such-option:1",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("unknown option 'smpi/no-such-option'")
            && err.contains("smpi/simulate-computation"),
        "{err}"
    );
}

#[test]
fn bad_arguments_give_their_error_classes() {
    let app = build("tests/c/error_classes.c");
    for np in ["2", "3"] {
        let o = run(&["-np", np, NO_COMPUTE, app.to_str().unwrap()]);
        assert!(
            o.status.success() && stdout(&o).contains(" No Errors"),
            "np {np}:\n{}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

#[test]
fn deadlock_on_a_window_lock_names_the_lock() {
    let app = build("tests/c/rma_deadlock.c");
    let o = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("deadlock"), "{err}");
    assert!(
        err.contains("rank 0 is blocked in MPI_Recv(receive from 1, tag 7, MPI_COMM_WORLD)"),
        "{err}"
    );
    assert!(
        err.contains("rank 1 is blocked in MPI_Win_lock(exclusive lock on rank 0 of window 1)"),
        "{err}"
    );
}

/// Runs tests/c/endless.c on 3 ranks (rank 0 forever in `mode`, the others
/// in MPI_Recv) with `options` and MPIEXEC_TIMEOUT=`timeout` when given;
/// the output and the wall time it took.
fn endless(mode: &str, options: &[&str], timeout: Option<&str>) -> (Output, f64) {
    let app = build("tests/c/endless.c");
    let mut c = smpirun();
    c.args(["-np", "3", NO_COMPUTE]).args(options);
    c.arg(&app).arg(mode);
    if let Some(t) = timeout {
        c.env("MPIEXEC_TIMEOUT", t);
    }
    let started = std::time::Instant::now();
    let o = c.output().expect("run smpirun");
    (o, started.elapsed().as_secs_f64())
}

/// smpirun's exit status when a time limit stops a run.
const TIME_LIMIT_EXIT: i32 = 124;

#[test]
fn mpiexec_timeout_stops_an_endless_run_naming_each_ranks_call() {
    let (o, wall) = endless("wtime", &[], Some("1"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(TIME_LIMIT_EXIT), "{err}");
    assert!(
        err.contains(
            "smpirun: wall-time limit of 1 s (MPIEXEC_TIMEOUT) reached at simulated time "
        ),
        "{err}"
    );
    assert!(
        err.contains("; stopped with rank 0 in MPI_Wtime, ranks 1-2 in MPI_Recv\n"),
        "{err}"
    );
    assert!(stdout(&o).contains("Execution failed with code 124."));
    assert!((1.0..10.0).contains(&wall), "stopped after {wall} s");
}

#[test]
fn the_wall_time_option_wins_over_mpiexec_timeout() {
    let (o, wall) = endless("sleep", &["--cfg=smpi/wall-time-limit:1"], Some("600"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(TIME_LIMIT_EXIT), "{err}");
    assert!(
        err.contains("wall-time limit of 1 s (smpi/wall-time-limit) reached"),
        "{err}"
    );
    assert!(
        err.contains("rank 0 in sleep, ranks 1-2 in MPI_Recv"),
        "{err}"
    );
    assert!(wall < 10.0, "stopped after {wall} s");
}

#[test]
fn the_simulated_time_limit_stops_the_clock_at_its_date() {
    let (o, _) = endless("sleep", &["--cfg=smpi/simulated-time-limit:2.5"], None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(TIME_LIMIT_EXIT), "{err}");
    assert!(
        err.contains(
            "smpirun: simulated-time limit of 2.5 s (smpi/simulated-time-limit) reached at \
             simulated time 2.500000 s; stopped with rank 0 in sleep, ranks 1-2 in MPI_Recv\n"
        ),
        "{err}"
    );
    assert_eq!(simulated_time(&o), 2.5);
    // The same run stopped by the MPI_Wtime loop's own cost.
    let (o, _) = endless(
        "wtime",
        &[
            "--cfg=smpi/wtime:1e-3",
            "--cfg=smpi/simulated-time-limit:0.5",
        ],
        None,
    );
    assert!(
        stderr(&o)
            .contains("reached at simulated time 0.500000 s; stopped with rank 0 in MPI_Wtime"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_rank_that_never_returns_to_the_simulator_is_stopped_by_the_watchdog() {
    let (o, wall) = endless("compute", &[], Some("1"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(TIME_LIMIT_EXIT), "{err}");
    assert!(
        err.contains("smpirun: wall-time limit of 1 s (MPIEXEC_TIMEOUT) reached at simulated time"),
        "{err}"
    );
    assert!(
        err.contains("rank 0 did not return to the simulator within 1 s"),
        "{err}"
    );
    // What the program printed before is kept.
    assert!(stdout(&o).contains("rank 0 runs forever (compute)"));
    assert!((2.0..10.0).contains(&wall), "stopped after {wall} s");
}

#[test]
fn a_bad_mpiexec_timeout_is_refused() {
    let (o, _) = endless("wtime", &[], Some("soon"));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("'MPIEXEC_TIMEOUT': 'soon' is not a number of seconds, 0 or more"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_summary_file_says_how_the_run_ended() {
    let read = |name: &str, app: &str, extra: &[&str]| {
        let file = scratch().join(name);
        let _ = std::fs::remove_file(&file);
        let opt = format!("--cfg=smpi/summary-file:{}", file.display());
        let mut args = vec!["-np", "3", NO_COMPUTE, &opt, app];
        args.extend_from_slice(extra);
        let o = run(&args);
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("no summary ({e}):\n{}", stderr(&o)));
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        (o, v)
    };
    let ring = build("examples/ring.c");
    let (o, v) = read("summary_ok.json", ring.to_str().unwrap(), &[]);
    assert!(o.status.success());
    assert_eq!(
        (v["outcome"].as_str(), v["exit_code"].as_i64()),
        (Some("finished"), Some(0))
    );
    assert_eq!(v["ranks"].as_u64(), Some(3));
    assert!(
        v["simulated_time_s"].as_f64().is_some_and(|t| t > 0.0),
        "{v}"
    );
    assert!(v["peak_rss_kb"].as_u64().is_some_and(|k| k > 0), "{v}");
    let deadlock = build("tests/c/deadlock.c");
    let (o, v) = read("summary_deadlock.json", deadlock.to_str().unwrap(), &[]);
    assert!(!o.status.success());
    assert_eq!(v["outcome"].as_str(), Some("deadlock"), "{v}");
    assert_eq!(
        v["exit_code"].as_i64(),
        o.status.code().map(i64::from),
        "{v}"
    );
}

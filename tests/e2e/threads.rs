//! Threads inside ranks: pthreads as simulated threads of their rank
//! (`emulator/src/pthreads.rs`), checked against what the same programs
//! print under MPICH (the expected texts below are MPICH 4.0's output of
//! the `-DNATIVE` builds, which leave the timing lines out), and their
//! simulated times, exact and the same over repeated runs.

use super::*;

/// Runs `app` on `np` ranks with computation timing off; its output, after
/// checking that it ended well.
fn output_of(app: &Path, np: &str, extra: &[&str]) -> String {
    let mut args = vec!["-np", np, NO_COMPUTE];
    args.extend_from_slice(extra);
    args.push(app.to_str().unwrap());
    let o = run(&args);
    assert!(
        o.status.success(),
        "{} on {np} ranks:\n{}{}",
        app.display(),
        stdout(&o),
        stderr(&o)
    );
    stdout(&o)
}

/// The ring in a second thread of every rank, beside collectives on a
/// duplicate communicator in the main thread, with MPI_THREAD_MULTIPLE:
/// MPICH's results at 4 and 64 ranks.
#[test]
fn a_ring_in_a_thread_beside_collectives_gives_mpichs_results() {
    let app = build_as(
        "tests/c/pthread_ring.c",
        "pthread_ring_native",
        &["-O2", "-DNATIVE"],
    );
    let head = "thread level 3 (MPI_THREAD_MULTIPLE 3), main thread 1\n";
    assert_eq!(
        output_of(&app, "4", &[]),
        format!(
            "{head}ring: 5 laps on 4 ranks, rank 0 got tokens summing to 60, all ranks 210\n\
             collectives: allreduce sums 40030, bcast values 1006\n No Errors\n"
        )
    );
    assert_eq!(
        output_of(&app, "64", &[]),
        format!(
            "{head}ring: 5 laps on 64 ranks, rank 0 got tokens summing to 960, all ranks \
             51360\ncollectives: allreduce sums 650080, bcast values 1010\n No Errors\n"
        )
    );
}

/// The same ring's simulated time is the same, to the last digit, run
/// after run, at 4 and 64 ranks; and so are the dates of sleeps and
/// timed waits.
#[test]
fn threads_are_scheduled_the_same_way_every_run() {
    let app = build("tests/c/pthread_ring.c");
    for np in ["4", "64"] {
        let first = output_of(&app, np, &[]);
        assert!(first.contains("elapsed "), "{first}");
        for _ in 0..2 {
            assert_eq!(output_of(&app, np, &[]), first, "{np} ranks");
        }
    }
    let sleep = build("tests/c/pthread_sleep.c");
    let first = output_of(&sleep, "4", &[]);
    assert_eq!(output_of(&sleep, "4", &[]), first);
}

/// Semaphores (a bounded buffer, two producers, one consumer), a barrier,
/// pthread_once, keys with a destructor, a read-write lock, join values
/// and a detached thread: MPICH's output.
#[test]
fn semaphores_barriers_once_keys_and_rwlocks_act_as_natively() {
    let app = build_as(
        "tests/c/pthread_sem.c",
        "pthread_sem_native",
        &["-O2", "-DNATIVE"],
    );
    assert_eq!(
        output_of(&app, "4", &[]),
        "semaphores: trywait on empty -> EAGAIN, empty 4 full 0 at the end\n\
         join: 100 (pthread_exit) and 100 (return) items produced, consumer checksum 109900\n\
         once: 1 call(s); barrier: 1 serial thread(s) of 4; key destructor: 4 call(s)\n\
         rwlock: 200 reader checks, 0 inconsistent, pair 109900 219800\n\
         reduce: total checksum 120439600 over 4 ranks\n No Errors\n"
    );
}

/// Sleeps and timed condition waits of threads take simulated time, to
/// the date: a wait that nobody signals ends at its deadline with
/// ETIMEDOUT, one signalled first ends then.
#[test]
fn threads_sleep_and_time_out_in_simulated_time() {
    let app = build("tests/c/pthread_sleep.c");
    assert_eq!(
        output_of(&app, "4", &[]),
        "timed wait 1 (0.5 s, not signalled): ETIMEDOUT\n\
         timed wait 2 (10 s, signalled at 1 s): 0\n\
         after sleep(2): 2.000000\n\
         after usleep(250000): 2.250000\n\
         after nanosleep(0.125 s): 2.375000\n\
         after timed wait 1: 0.500000\n\
         after timed wait 2: 1.000000\n\
         main signalled after sleep(1): 1.000000\n\
         waiter joined: 1.000000\n\
         sleeper joined: 2.375000\n No Errors\n"
    );
}

/// `__thread` variables and errno: each simulated thread starts from the
/// initial values and keeps its own across switches (MPICH's output), in
/// a private copy per rank and in one copy shared by all ranks.
#[test]
fn each_thread_has_its_own_thread_local_variables() {
    let app = build_as(
        "tests/c/pthread_tls.c",
        "pthread_tls_native",
        &["-O2", "-DNATIVE"],
    );
    let expected = "thread 1: tls_init 42 at start, 3 turns, 0 bad, own TLS and errno OK\n\
                    thread 2: tls_init 42 at start, 3 turns, 0 bad, own TLS and errno OK\n\
                    thread 3: tls_init 42 at start, 3 turns, 0 bad, own TLS and errno OK\n\
                    main thread 0: tls_init 7 at start, 3 turns, 0 bad, own TLS and errno OK\n \
                    No Errors\n";
    assert_eq!(output_of(&app, "4", &[]), expected);
    assert_eq!(output_of(&app, "1", &["-no-privatize"]), expected);
}

/// Threads compute on their host's cores: 4 threads of 1e9 flops on a
/// 1 Gf host take 4 s on 1 core, 2 s on 2, 1 s on 4 or more; two ranks
/// of 4 threads on one 4-core host share its cores (2 s).
#[test]
fn threads_compute_on_their_hosts_cores() {
    let app = build("tests/c/pthread_cores.c");
    for (np, cores, seconds) in [
        ("1", 1, "4.000000"),
        ("1", 2, "2.000000"),
        ("1", 4, "1.000000"),
        ("1", 8, "1.000000"),
        ("2", 4, "2.000000"),
    ] {
        let platform = format!("flat:1:speed=1Gf:cores={cores}");
        let out = output_of(&app, np, &["-platform", &platform]);
        assert_eq!(
            out,
            format!("4 threads of 1e9 flops: {seconds} s\n"),
            "{np} ranks, {cores} cores"
        );
    }
}

/// Threads that poll (a barrier spun on a mutex, a flag polled with
/// sched_yield) let the others run and the clock move: the spin barrier
/// passes while another rank's messages are in flight, and the flag a
/// sleeping thread sets after 1 s is seen then.
#[test]
fn polling_threads_let_the_others_run_and_time_pass() {
    let app = build("tests/c/pthread_poll.c");
    assert_eq!(
        output_of(&app, "2", &[]),
        "spin barrier of 4 threads passed; flag seen after 1.000000 s\n"
    );
}

/// C++'s std::thread, std::mutex and std::condition_variable (libstdc++
/// calls the threads interface for the program) give simulated threads
/// that may call MPI.
#[test]
fn cxx_std_threads_are_simulated_threads() {
    let app = build_cxx("tests/c/cxx_threads.cpp", "cxx_threads");
    assert_eq!(
        output_of(&app, "3", &[]),
        "std::thread: every rank got 42, sum 126\n"
    );
}

/// A deadlock between a rank's threads is reported like one between
/// ranks: every blocked thread named with the call it waits in.
#[test]
fn a_deadlock_between_threads_names_each_thread_and_call() {
    let app = build("tests/c/pthread_deadlock.c");
    let o = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("smpirun: deadlock at simulated time"), "{err}");
    for rank in 0..2 {
        assert!(
            err.contains(&format!(
                "rank {rank} is blocked in pthread_join(actor 'thread 1' (pid {}) of rank \
                 {rank} to end)",
                rank + 3
            )),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "actor 'thread 1' (pid {}) of rank {rank} is blocked in pthread_mutex_lock(",
                rank + 3
            )),
            "{err}"
        );
    }
}

/// A main thread that calls pthread_exit waits for its rank's threads:
/// the rank ends when its last thread does.
#[test]
fn pthread_exit_in_main_waits_for_the_ranks_threads() {
    let app = build("tests/c/pthread_main_exit.c");
    let o = run(&[
        "-np",
        "1",
        NO_COMPUTE,
        DISPLAY_TIMING,
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "rank 0: thread done at 2.000000\n");
    assert_eq!(simulated_time(&o), 2.0);
}

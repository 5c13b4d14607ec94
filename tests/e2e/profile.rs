//! The MPI profile (`smpi/profile`, `smpi/profile-file`): on 64 ranks of
//! tests/c/profile_allreduce.c, every rank's 7 allreduces of 1000 doubles
//! are in the per-rank file and in the table.

use std::path::Path;
use std::process::Output;

use crate::{build, run, scratch, simulated_time, stderr, stdout, NO_COMPUTE};

const RANKS: usize = 64;
const ROUNDS: u64 = 7;
const COUNT: u64 = 1000;

/// Runs the program on 64 ranks with the profile options `options`.
fn profiled(options: &[&str]) -> Output {
    let app = build("tests/c/profile_allreduce.c");
    let np = RANKS.to_string();
    let mut args = vec!["-np", &np, NO_COMPUTE];
    args.extend_from_slice(options);
    args.push(app.to_str().unwrap());
    let o = run(&args);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("64 ranks, 7 allreduces: 0 errors"),
        "{}",
        stdout(&o)
    );
    o
}

/// A row of the CSV file.
#[derive(Debug, serde::Deserialize)]
struct Row {
    rank: usize,
    call: String,
    calls: u64,
    bytes: u64,
    time_s: f64,
    min_s: f64,
    max_s: f64,
    share: f64,
}

fn csv_rows(path: &Path) -> Vec<Row> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.deserialize().map(|row| row.unwrap()).collect()
}

#[test]
fn the_csv_profile_has_each_ranks_allreduces_and_the_table_their_sum() {
    let dir = scratch().join("profile-csv");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profile.csv");
    let o = profiled(&[
        "--cfg=smpi/profile:yes",
        &format!("--cfg=smpi/profile-file:{}", file.display()),
    ]);
    let rows = csv_rows(&file);
    let allreduces: Vec<&Row> = rows.iter().filter(|r| r.call == "MPI_Allreduce").collect();
    assert_eq!(allreduces.len(), RANKS);
    let end = simulated_time(&o);
    for (rank, r) in allreduces.iter().enumerate() {
        assert_eq!(r.rank, rank);
        assert_eq!((r.calls, r.bytes), (ROUNDS, ROUNDS * COUNT * 8), "{r:?}");
        assert!(
            r.min_s > 0.0 && r.min_s <= r.max_s && r.max_s <= r.time_s,
            "{r:?}"
        );
        // The share is of the run's time (printed to the microsecond).
        assert!((r.time_s / r.share - end).abs() < 1e-6, "{r:?}");
    }
    // Calls without a description count no bytes.
    assert!(rows
        .iter()
        .filter(|r| r.call == "MPI_Comm_rank")
        .all(|r| r.bytes == 0 && r.calls == 1));
    // The table: after the program's lines (its output is flushed first),
    // before smpirun's summary; the allreduces take the most time.
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("MPI profile: 64 ranks"))
        .unwrap_or_else(|| panic!("no table in:\n{err}"));
    let summary = lines
        .iter()
        .position(|l| l.starts_with("smpirun: simulated time"))
        .unwrap();
    assert!(head < summary, "{err}");
    assert!(lines[head + 1].starts_with("MPI function"), "{err}");
    let allreduce: Vec<&str> = lines[head + 2].split_whitespace().collect();
    assert_eq!(allreduce[..2], ["MPI_Allreduce", "448"], "{err}");
    assert_eq!(allreduce[2..4], ["3.4", "MiB"], "{err}");
    // The same run writes the same file.
    let again = dir.join("again.csv");
    profiled(&[&format!("--cfg=smpi/profile-file:{}", again.display())]);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn the_json_profile_parses_and_alone_prints_no_table() {
    let dir = scratch().join("profile-json");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profile.json");
    let o = profiled(&[&format!("--cfg=smpi/profile-file:{}", file.display())]);
    assert!(!stderr(&o).contains("MPI profile"), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["ranks"], RANKS);
    assert!((v["simulated_time_s"].as_f64().unwrap() - simulated_time(&o)).abs() < 1e-6);
    let rows = v["rows"].as_array().unwrap();
    let allreduces: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["call"] == "MPI_Allreduce")
        .collect();
    assert_eq!(allreduces.len(), RANKS);
    assert!(allreduces
        .iter()
        .all(|r| r["calls"] == ROUNDS && r["bytes"] == ROUNDS * COUNT * 8));
}

#[test]
fn a_profile_file_of_another_kind_is_refused_by_name() {
    let app = build("tests/c/profile_allreduce.c");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/profile-file:profile.txt",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("smpi/profile-file") && err.contains("profile.txt") && err.contains(".csv"),
        "{err}"
    );
    // A file that cannot be written stops the run before it starts.
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/profile-file:/nonexistent/profile.csv",
        app.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("cannot write the MPI profile /nonexistent/profile.csv"),
        "{}",
        stderr(&o)
    );
}

/// tests/c/pthread_ring.c on 4 ranks: each rank's thread runs a token
/// ring while its main thread runs collectives, both inside MPI calls at
/// once; every call of both is in the rank's rows, none longer than the
/// run.
#[test]
fn the_threads_of_a_rank_are_profiled_together() {
    let app = build("tests/c/pthread_ring.c");
    let dir = scratch().join("profile-threads");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("profile.csv");
    let o = run(&[
        "-np",
        "4",
        NO_COMPUTE,
        &format!("--cfg=smpi/profile-file:{}", file.display()),
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let rows = csv_rows(&file);
    let end = simulated_time(&o);
    let of = |rank: usize, call: &str| {
        rows.iter()
            .find(|r| r.rank == rank && r.call == call)
            .map(|r| (r.calls, r.bytes))
    };
    for rank in 0..4 {
        // The thread's 5 laps of one int, the main thread's 5 rounds of
        // one long and the int of check.h's report; both ask whether they
        // are the main thread.
        assert_eq!(of(rank, "MPI_Send"), Some((5, 20)));
        assert_eq!(of(rank, "MPI_Recv"), Some((5, 20)));
        assert_eq!(of(rank, "MPI_Allreduce"), Some((6, 44)));
        assert_eq!(of(rank, "MPI_Is_thread_main"), Some((2, 0)));
    }
    assert!(rows.iter().all(|r| r.max_s <= end + 1e-6), "{rows:?}");
}

#[test]
fn a_program_built_with_call_locations_gets_its_top_call_sites() {
    let app = crate::build_as(
        "tests/c/call_location.c",
        "call_location_profiled",
        &["-trace-call-location"],
    );
    let barrier = crate::line_in("tests/c/call_location.c", "the barrier");
    let receive = crate::line_in("tests/c/call_location.c", "the receive");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/profile:yes",
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let table: Vec<&str> = err.lines().skip_while(|l| !l.starts_with("Top ")).collect();
    assert_eq!(
        table.first(),
        Some(&"Top 6 of 6 call sites by time:"),
        "{err}"
    );
    // The barrier waits the longest (both ranks), then the receive.
    assert!(
        table[2].starts_with(&format!("MPI_Barrier at call_location.c:{barrier}  ")),
        "{err}"
    );
    assert!(
        table[3].starts_with(&format!("MPI_Recv at call_location.c:{receive}  ")),
        "{err}"
    );
    // Without the locations, no call-site table.
    let plain = crate::build_as("tests/c/call_location.c", "call_location_plain", &[]);
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/profile:yes",
        plain.to_str().unwrap(),
    ]);
    assert!(!stderr(&o).contains("call sites by time"), "{}", stderr(&o));
}

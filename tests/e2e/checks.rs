//! The correctness checks (`smpi/check`): each erroneous program of
//! tests/c/check_cases.c and of the mistakes lab is reported with its
//! kind, rank and call, and correct programs give no finding, with every
//! check on.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::{build_as, run, scratch, stderr, stdout, NO_COMPUTE};

fn cases() -> PathBuf {
    build_as(
        "tests/c/check_cases.c",
        "check_cases",
        &["-O0", "-g", "-trace-call-location"],
    )
}

/// Runs `program` on 3 ranks with `checks`, then `args`.
fn run_checked(program: &Path, checks: &str, args: &[&str]) -> Output {
    let check = format!("--cfg=smpi/check:{checks}");
    let mut all = vec!["-np", "3", NO_COMPUTE, &check, program.to_str().unwrap()];
    all.extend_from_slice(args);
    run(&all)
}

/// The finding lines of `o`.
fn findings(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with("smpirun: check: ") && !l.contains(" finding"))
        .map(str::to_string)
        .collect()
}

/// Runs case `case` and checks that one of its finding lines starts
/// with `head` (kind, rank, call) and contains `part`; its output.
fn reported(case: &str, checks: &str, head: &str, part: &str) -> Output {
    let o = run_checked(&cases(), checks, &[case]);
    let f = findings(&o);
    assert!(
        f.iter().any(|l| l.starts_with(head) && l.contains(part)),
        "{case} with {checks}: no '{head}...{part}' in:\n{}",
        stderr(&o)
    );
    o
}

#[test]
fn mismatched_collectives_are_reported_with_both_ranks_and_stop_the_run() {
    let o = reported(
        "gather_vs_reduce",
        "default",
        "smpirun: check: CallMatching: rank 1 (with rank 0): MPI_Reduce: ",
        "is MPI_Reduce here but MPI_Gather on rank 0",
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("[MPI_ERR_OTHER]"), "{}", stderr(&o));
    reported(
        "blocking_vs_nonblocking",
        "default",
        "smpirun: check: CallMatching: rank 1 (with rank 0): MPI_Iallreduce: ",
        "but MPI_Allreduce on rank 0",
    );
    let o = reported(
        "op_mismatch",
        "default",
        "smpirun: check: OperatorMatching: rank 2 (with rank 0): MPI_Allreduce: ",
        "operation MPI_MAX here but MPI_SUM on rank 0",
    );
    assert!(stderr(&o).contains("[MPI_ERR_OP]"));
}

#[test]
fn a_send_receive_to_itself_is_checked_although_it_sends_no_message() {
    let o = reported(
        "self_types",
        "default",
        "smpirun: check: DatatypeMatching: rank 2 (with rank 2): MPI_Sendrecv: ",
        "receives as 2 x MPI_FLOAT the message rank 2 sent with MPI_Sendrecv as 2 x MPI_INT",
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("[MPI_ERR_TYPE]"), "{}", stderr(&o));
}

#[test]
fn a_collective_some_ranks_never_call_is_named_with_its_place() {
    let o = reported(
        "only_some",
        "default",
        "smpirun: check: CallMatching: rank 0 (with ranks 1, 2): MPI_Bcast: ",
        "was never made by ranks 1, 2 (1 of 3 members made it) (at check_cases.c:",
    );
    // A warning: the run itself ends well.
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("smpirun: check: 1 finding (CallMatching 1)"));
}

#[test]
fn a_receive_ordered_before_a_collective_its_message_came_after_is_reported() {
    reported(
        "ordering",
        "default",
        "smpirun: check: CallMatching: rank 1 (with rank 0): MPI_Recv: ",
        "sent after its MPI_Bcast (the 1st collective call on MPI_COMM_WORLD)",
    );
}

#[test]
fn messages_never_received_and_handles_never_freed_are_listed_at_the_end() {
    reported(
        "unreceived",
        "default",
        "smpirun: check: UnmatchedMessage: rank 0 (with rank 2): MPI_Send: ",
        "the message of 2 x MPI_INT (tag 7) sent to rank 2 was never received",
    );
    let o = run_checked(&cases(), "default", &["leak"]);
    assert!(
        findings(&o).is_empty(),
        "leaks are off by default:\n{}",
        stderr(&o)
    );
    let o = reported(
        "leak",
        "default,leaks",
        "smpirun: check: CommunicatorLeak: rank 0: MPI_Comm_dup: ",
        "1 communicator made by this call was never freed (MPI_Comm_free)",
    );
    assert!(findings(&o)
        .iter()
        .any(|l| l.starts_with("smpirun: check: DatatypeLeak: rank 2: MPI_Type_contiguous: ")));
}

#[test]
fn windows_over_no_memory_or_too_little_stop_at_their_creation() {
    let o = run_checked(&cases(), "default", &["win_null"]);
    let e = stderr(&o);
    assert!(!o.status.success());
    assert!(
        e.contains(
            "MPI_Win_create: the window's base is NULL but its size is 64 bytes [MPI_ERR_BUFFER]"
        ),
        "{e}"
    );
    let o = run_checked(&cases(), "rma", &["win_small"]);
    assert!(
        stderr(&o).contains("the window's size is 32 bytes but its base is a block of 16 bytes"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn one_sided_conflicts_and_unclosed_epochs_are_reported() {
    reported(
        "rma_conflict",
        "rma",
        "smpirun: check: GlobalConcurrency: rank 2 (with rank 0): MPI_Put: ",
        "in the same epoch",
    );
    let o = reported(
        "rma_unclosed",
        "rma",
        "smpirun: check: RmaEpoch: rank 0: MPI_Win_free: ",
        "MPI_Put was never completed by a synchronization",
    );
    assert!(stderr(&o).contains("[MPI_ERR_RMA_SYNC]"));
}

#[test]
fn buffers_of_pending_calls_written_by_the_program_are_reported() {
    reported(
        "nbc_reuse",
        "concurrency",
        "smpirun: check: LocalConcurrency: rank 0: MPI_Iallreduce: ",
        "the receive buffer",
    );
    reported(
        "irecv_reuse",
        "concurrency",
        "smpirun: check: LocalConcurrency: rank 1: MPI_Irecv: ",
        "the receive buffer",
    );
    reported(
        "free_unseen",
        "free",
        "smpirun: check: MissingWait: rank 0: MPI_Isend: ",
        "MPI_Request_free on the request of send to 1",
    );
}

#[test]
fn the_report_file_holds_every_finding_as_json() {
    let path = scratch().join("check-report.json");
    let report = format!("--cfg=smpi/check-report:{}", path.display());
    let o = run(&[
        "-np",
        "3",
        NO_COMPUTE,
        &report,
        cases().to_str().unwrap(),
        "only_some",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&path).expect("the report file");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let f = &v["findings"][0];
    assert_eq!(f["kind"], "CallMatching");
    assert_eq!(f["ranks"], serde_json::json!([0, 1, 2]));
    assert_eq!(f["call"], "MPI_Bcast");
    assert!(f["location"]
        .as_str()
        .unwrap()
        .starts_with("check_cases.c:"));
}

#[test]
fn an_unknown_check_is_refused_with_the_known_ones() {
    let o = run_checked(&cases(), "colectives", &["none"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown check 'colectives' (known: default, all, none, types"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_mistakes_lab_gets_one_kind_per_mistake_and_none_when_right() {
    let lab = build_as(
        "examples/labs/mpi_mistakes.c",
        "mpi_mistakes",
        &["-O0", "-g", "-trace-call-location"],
    );
    let o = run_checked(&lab, "all", &["right"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(findings(&o).is_empty(), "{}", stderr(&o));
    assert!(stdout(&o).contains("difference -10"));
    for (mistake, kind) in [
        ("types", "DatatypeMatching"),
        ("root", "RootMatching"),
        ("reuse", "LocalConcurrency"),
        ("nowait", "MissingWait"),
        ("race", "MessageRace"),
    ] {
        let o = run_checked(&lab, "all", &[mistake]);
        let f = findings(&o);
        assert!(
            !f.is_empty() && f.iter().all(|l| l.contains(&format!(": {kind}: rank "))),
            "{mistake}: {}",
            stderr(&o)
        );
        assert!(f[0].contains("(at mpi_mistakes.c:"), "{mistake}: {}", f[0]);
    }
}

#[test]
fn correct_programs_give_no_finding_with_every_check_on() {
    for (source, name, np) in [
        (
            "tests/c/nonblocking_coll.c",
            "nonblocking_coll_checked",
            "4",
        ),
        ("tests/c/persistent_coll.c", "persistent_coll_checked", "4"),
        ("tests/c/check_cases.c", "check_cases_plain", "3"),
        ("tests/c/rma.c", "rma_checked", "4"),
    ] {
        let app = build_as(source, name, &["-O2"]);
        let o = run(&[
            "-np",
            np,
            NO_COMPUTE,
            "--cfg=smpi/check:all",
            app.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{source}: {}", stderr(&o));
        assert!(findings(&o).is_empty(), "{source}: {}", stderr(&o));
    }
}

#[test]
fn wildcard_alternatives_rerun_each_race_and_report_the_outcomes_that_change() {
    let app = cases();
    let alternatives = |case: &str, extra: &[&str]| {
        let mut args = vec![
            "-np",
            "3",
            NO_COMPUTE,
            "--cfg=smpi/check/wildcard-alternatives:4",
        ];
        args.extend_from_slice(extra);
        args.push(app.to_str().unwrap());
        args.push(case);
        run(&args)
    };
    // A sum does not care which message comes first.
    let o = alternatives("race_benign", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "sum 3\n",
        "the first run's output passes through"
    );
    assert!(
        stderr(&o).contains(
            "smpirun: check: wildcard alternatives: 1 race, 1 of 1 alternative re-run, 0 change \
             the outcome"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        !stderr(&o).contains("changes the outcome"),
        "{}",
        stderr(&o)
    );
    // Taking rank 2's message first deadlocks; the first run's code stays.
    let path = scratch().join("alternatives-report.json");
    let report = format!("--cfg=smpi/check-report:{}", path.display());
    let o = alternatives("race_deadlock", &[&report]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = findings(&o)
        .into_iter()
        .find(|l| l.contains("changes the outcome"))
        .unwrap_or_else(|| panic!("no changed outcome in:\n{}", stderr(&o)));
    assert!(
        line.starts_with(
            "smpirun: check: MessageRace: rank 0 (with ranks 1, 2): MPI_Recv: taking rank 2's \
             message instead of rank 1's changes the outcome: the run exits with code 1 instead \
             of 0; its output stops before line 1: 'sum 3'; it reports: smpirun: deadlock"
        ),
        "{line}"
    );
    assert!(line.contains("(at check_cases.c:"), "{line}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the report")).expect("JSON");
    assert_eq!(v["findings"][0]["kind"], "MessageRace");
    let a = &v["alternatives"][0];
    assert_eq!(
        (a["race"].clone(), a["instead"].clone()),
        (0.into(), 2.into())
    );
    assert_eq!(a["met"], true);
    assert!(a["change"].as_str().unwrap().contains("deadlock"), "{a}");
    // 0 (the default) re-runs nothing.
    let o = alternatives("race_benign", &["--cfg=smpi/check/wildcard-alternatives:0"]);
    assert!(!stderr(&o).contains("wildcard alternatives"), "0 is off");
}

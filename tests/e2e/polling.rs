//! Polling (`mpi/poll.rs`): MPI_Test, MPI_Testall, MPI_Testany,
//! MPI_Testsome and MPI_Iprobe loops cost what SimGrid 3.32 charges, to
//! the nanosecond; free polls still let the others run; a rank polling
//! for what never comes is reported as a livelock.

use crate::{build, run, stderr, stdout, write_scratch, NO_COMPUTE};

/// The platform the expectations were recorded on (SimGrid's cluster tag,
/// which both simulators read).
pub(crate) fn cluster() -> String {
    let path = write_scratch(
        "polling-cluster.xml",
        r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-7" speed="1Gf" bw="10Gbps" lat="1us"/>
</platform>
"#,
    );
    path.display().to_string()
}

/// What `source` (built) printed on `np` ranks of [`cluster`],
/// computation timing off, with the options `cfg` (the run must succeed).
pub(crate) fn stdout_on_cluster(source: &str, np: &str, cfg: &[&str]) -> String {
    let app = build(source);
    let platform = cluster();
    let mut args = vec!["-np", np, NO_COMPUTE, "-platform", &platform];
    args.extend_from_slice(cfg);
    args.push(app.to_str().unwrap());
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// tests/c/polling.c's output under SimGrid 3.32 (`smpirun -np 2
/// -platform <cluster> --cfg=smpi/simulate-computation:no`), with
/// smpi/grow-injected-times yes (the default) and no.
const SIMGRID_GROWING: &str = "\
before test of done          0.000108116
test of done                 0.000208126
test loop polls 5
test loop                    0.001712181
testall polls 5
testall loop                 0.003916236
testany polls 6
testany loop                 0.005120291
testsome polls 4
testsome loop                0.006724346
iprobe polls 6
iprobe loop                  0.008832451
";

const SIMGRID_FIXED: &str = "\
before test of done          0.000108116
test of done                 0.000208126
test loop polls 11
test loop                    0.001312181
testall polls 14
testall loop                 0.003416236
testany polls 6
testany loop                 0.004620291
testsome polls 10
testsome loop                0.006124346
iprobe polls 16
iprobe loop                  0.007732451
";

#[test]
fn polls_cost_what_simgrid_charges_call_by_call() {
    for (grow, expected) in [("yes", SIMGRID_GROWING), ("no", SIMGRID_FIXED)] {
        let grow = format!("--cfg=smpi/grow-injected-times:{grow}");
        let out = stdout_on_cluster("tests/c/polling.c", "2", &[&grow]);
        assert_eq!(out, expected, "{grow}");
    }
}

/// tests/c/waits.c's output under SimGrid 3.32 (`smpirun -np 4 -platform
/// <cluster> --cfg=smpi/simulate-computation:no`): its MPI_Waitsome tests
/// the other requests after its waitany (charged as MPI_Test), its
/// MPI_Waitany takes a detached send before a complete receive, and a
/// send-receive to itself is a copy that takes no time.
const SIMGRID_WAITS: &str = "\
waitsome 2: 0 1
after waitsome           0.000900010
waitsome 1: 2
after waitsome           0.000908136
waitany 0
after waitany            0.001612222
waitany 1
after waitany            0.001612232
waitany 2
after waitany            0.001820348
waitany 1
waitany 0
after both               0.002324435
self sendrecv 1000 ints, last 999
self sendrecv_replace last 999
after self               0.002324445
";

#[test]
fn waits_take_and_cost_what_simgrid_s_do() {
    assert_eq!(
        stdout_on_cluster("tests/c/waits.c", "4", &[]),
        SIMGRID_WAITS
    );
}

#[test]
fn free_polls_let_the_others_run_and_the_clock_move() {
    let out = stdout_on_cluster(
        "tests/c/polling.c",
        "2",
        &["--cfg=smpi/test:0", "--cfg=smpi/iprobe:0"],
    );
    // The test loop ends when rank 1's message, sent 1 ms after the
    // barrier, arrives: the clock moved to it.
    let date = |label: &str| -> f64 {
        out.lines()
            .filter_map(|l| l.rsplit_once(' '))
            .find(|(name, _)| name.trim() == label)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or_else(|| panic!("no '{label}' in:\n{out}"))
    };
    assert!(
        (date("test of done") - date("before test of done")).abs() < 1e-7,
        "a free test of a complete request costs nothing:\n{out}"
    );
    let loop_end = date("test loop");
    assert!(
        (0.0011..0.0012).contains(&loop_end),
        "the loop ends as the message arrives, 1 ms after the barrier:\n{out}"
    );
}

#[test]
fn a_rank_polling_for_what_never_comes_is_a_livelock_with_or_without_costs() {
    let app = build("tests/c/poll_forever.c");
    for cost in ["--cfg=smpi/test:0", "--cfg=smpi/test:1e-4"] {
        let o = run(&[
            "-np",
            "2",
            NO_COMPUTE,
            cost,
            "--cfg=smpi/display-summary:yes",
            app.to_str().unwrap(),
        ]);
        assert!(!o.status.success(), "{cost}");
        let err = stderr(&o);
        // The error is the last word: no closing figures of a failed run.
        assert!(!err.contains("smpirun: simulated time"), "{cost}: {err}");
        assert!(
            err.contains("smpirun: livelock at simulated time ")
                && err.contains(": rank 0 polls with MPI_Test (10000000 polls in a row)"),
            "{cost}: {err}"
        );
    }
}

/// Messages ending at one date wake their receivers in SimGrid 3.32's
/// order with `smpi/simgrid-order`: two of one size started at one date on
/// disjoint links arrive in the order they started (SimGrid: rank 2's
/// report first; the start-date rule alone woke rank 3 first), and when
/// a third message shares the first one's link for a while, the other
/// arrives first (SimGrid: rank 3's). Both run side by side with SimGrid.
#[test]
fn simgrid_order_wakes_receivers_as_simgrid_does() {
    let exe = build("tests/c/arrival_order.c");
    let exe = exe.to_str().expect("a UTF-8 path");
    let platform = write_scratch(
        "arrival-order-cluster.xml",
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
         <platform version=\"4.1\">\n  <cluster id=\"c\" prefix=\"node-\" suffix=\"\" \
         radical=\"0-4\" speed=\"1Gf\" bw=\"10Gbps\" lat=\"1us\"/>\n</platform>\n",
    );
    let platform = platform.to_str().expect("a UTF-8 path");
    for (arg, expected) in [
        ("plain", "reports from rank 2, then rank 3"),
        ("shared", "reports from rank 3, then rank 2"),
    ] {
        let o = run(&[
            "-np",
            "5",
            "-platform",
            platform,
            NO_COMPUTE,
            "--cfg=smpi/simgrid-order:yes",
            exe,
            arg,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains(expected), "{arg}: {}", stdout(&o));
    }
}

/// With `smpi/simgrid-order`, a blocking collective takes SimGrid's
/// turns: each send or receive it starts is a simcall, so after a binomial
/// broadcast rank 2 (one child to forward to) leaves before rank 4 (two),
/// and its message to rank 3 is posted first: rank 3's probe for any
/// source finds rank 2's, as under SimGrid 3.32 (run side by side; without
/// the turns, rank 4's).
#[test]
fn collectives_take_simgrids_turns() {
    let exe = build("tests/c/bcast_exit_order.c");
    let exe = exe.to_str().expect("a UTF-8 path");
    let o = run(&["-np", "8", NO_COMPUTE, "--cfg=smpi/simgrid-order:yes", exe]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("first message from rank 2, then from rank 4"),
        "{}",
        stdout(&o)
    );
}

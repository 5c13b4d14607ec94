//! Programs written for SimGrid's headers: every header path SMPI programs
//! include comes from smpicc's include directory, never from an installed
//! SimGrid's, and brings what SimGrid's brings.

use super::*;

/// The header paths of SimGrid's that smpicc provides.
const SIMGRID_PATHS: &[&str] = &[
    "mpi.h",
    "smpi/mpi.h",
    "smpi/smpi.h",
    "xbt/base.h",
    "xbt/log.h",
    "xbt/asserts.h",
    "xbt/sysdep.h",
    "xbt/function_types.h",
    "simgrid/actor.h",
    "simgrid/forward.h",
    "simgrid/host.h",
    "simgrid/instr.h",
    "simgrid/modelchecker.h",
];

/// The headers a compilation of `source` reads (`-M`, system ones too).
fn headers_read(dir: &Path, source: &str) -> Vec<String> {
    let o = smpicc()
        .current_dir(dir)
        .args(["-M", source])
        .output()
        .expect("run smpicc -M");
    assert!(o.status.success(), "smpicc -M {source}: {}", stderr(&o));
    stdout(&o)
        .split_whitespace()
        .filter(|w| w.ends_with(".h") || w.ends_with(".hpp"))
        .map(String::from)
        .collect()
}

#[test]
fn simgrids_header_paths_are_ours_even_with_simgrid_installed() {
    let dir = scratch().join("simgrid_paths");
    std::fs::create_dir_all(&dir).unwrap();
    let includes: String = SIMGRID_PATHS
        .iter()
        .map(|p| format!("#include <{p}>\n"))
        .collect();
    for (name, lang) in [("paths.c", "C"), ("paths.cpp", "C++")] {
        std::fs::write(
            dir.join(name),
            format!("{includes}int main(void) {{ return 0; }}\n"),
        )
        .unwrap();
        let read = headers_read(&dir, name);
        for path in SIMGRID_PATHS {
            let ours = scratch().join("cache");
            assert!(
                read.iter()
                    .any(|h| Path::new(h).starts_with(&ours)
                        && h.ends_with(&format!("/include/{path}"))),
                "{lang}: <{path}> is not smpicc's: {read:?}"
            );
        }
        // Whether or not SimGrid is installed in /usr/include, nothing of it
        // is read: what compiles here compiles on a machine without it.
        for h in &read {
            for dir in ["smpi", "simgrid", "xbt"] {
                assert!(
                    !h.starts_with(&format!("/usr/include/{dir}/"))
                        && !h.starts_with(&format!("/usr/local/include/{dir}/")),
                    "{lang}: {h} is SimGrid's"
                );
            }
        }
    }
}

#[test]
fn simgrids_other_headers_stop_the_compilation_with_a_clear_message() {
    let dir = scratch().join("simgrid_other");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mailbox.c"),
        "#include <mpi.h>\n#include <simgrid/mailbox.h>\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let o = smpicc()
        .current_dir(&dir)
        .args(["-c", "mailbox.c"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(
            "<simgrid/mailbox.h> is part of SimGrid's interface that smpi-rs does not provide"
        ),
        "{err}"
    );
    assert!(!err.contains("/usr/include/simgrid"), "{err}");
}

#[test]
fn smpi_mpi_h_brings_simgrids_extensions_and_system_headers() {
    let app = build("tests/c/simgrid_mpi_h.c");
    let o = run(&[
        "-np",
        "3",
        NO_COMPUTE,
        "--cfg=smpi/host-speed:1Gf",
        app.to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && stdout(&o).contains(" No Errors"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    // 0.76296 s, 0.5 s and the 1 s of SMPI_SAMPLE_FLOPS (and barriers).
    assert!(
        (simulated_time(&o) - 2.26296).abs() < 1e-3,
        "{}",
        stderr(&o)
    );
}

/// The log lines of a run (stderr's lines in SimGrid's layout).
fn log_lines(o: &Output) -> Vec<String> {
    stderr(o)
        .lines()
        .filter(|l| l.starts_with('['))
        .map(String::from)
        .collect()
}

fn xbt_log(options: &[&str], args: &[&str]) -> Output {
    let app = build("tests/c/xbt_log.c");
    let mut all = vec!["-np", "2", NO_COMPUTE, "--cfg=smpi/host-speed:1Gf"];
    all.extend_from_slice(options);
    all.push(app.to_str().unwrap());
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn xbt_logging_prints_simgrids_actor_lines_at_info_and_above() {
    let o = xbt_log(&["--log=no_loc"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let long = format!("long {} end", "x".repeat(2000));
    let mut expected = Vec::new();
    for rank in 0..2 {
        let actor = format!("[node-{rank}:{rank}:({}) 0.000000]", rank + 1);
        expected.push(format!("{actor} [smpi_test/INFO] I'm {rank}/2"));
        expected.push(format!("{actor} [smpi_test/WARNING] warning from {rank}"));
        expected.push(format!("{actor} [smpi_test/CRITICAL] critical from {rank}"));
        expected.push(format!(
            "{actor} [smpi_test_detail/INFO] detail from {rank}"
        ));
        if rank == 0 {
            expected.push(format!("{actor} [smpi_test/INFO] {long}"));
        }
    }
    // After a barrier and 2 Gflop at 1 Gf: the smpi_execute_flops ended
    // before the line.
    expected.push("[node-0:0:(1) 2.000004] [smpi_test/INFO] after 2 Gflop".into());
    expected.push("[node-1:1:(2) 2.000008] [smpi_test/INFO] after 2 Gflop".into());
    // xbt_log_control_set("smpi_test.thres:error"), which its
    // sub-category inherits.
    for (rank, date) in [(0, "2.000020"), (1, "2.000024")] {
        let actor = format!("[node-{rank}:{rank}:({}) {date}]", rank + 1);
        expected.push(format!("{actor} [smpi_test/ERROR] error from {rank}"));
        expected.push(format!(
            "{actor} [smpi_test_detail/ERROR] detail error from {rank}"
        ));
    }
    assert_eq!(log_lines(&o), expected);
    assert!(
        stdout(&o).contains("rank 1: debug enabled 0, info enabled 1"),
        "{}",
        stdout(&o)
    );
    // Without no_loc, lines other than INFO name the file and line.
    let o = xbt_log(&[], &[]);
    let lines = log_lines(&o);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("[node-0:0:(1) 0.000000] ")
                && l.ends_with("tests/c/xbt_log.c:29: [smpi_test/WARNING] warning from 0")),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"[node-0:0:(1) 0.000000] [smpi_test/INFO] I'm 0/2".to_string()),
        "{lines:#?}"
    );
}

#[test]
fn log_thresholds_filter_program_categories_by_name_parent_and_root() {
    // The category and its sub-category down to debug; smpirun's own
    // categories are unaffected.
    let o = xbt_log(&["--log=no_loc", "--log=smpi_test.thres:debug"], &[]);
    let lines = log_lines(&o);
    for needed in [
        "[node-1:1:(2) 0.000000] [smpi_test/DEBUG] debug from 1",
        "[node-1:1:(2) 0.000000] [smpi_test/VERBOSE] verbose from 1",
        "[node-1:1:(2) 0.000000] [smpi_test_detail/DEBUG] detail debug from 1",
    ] {
        assert!(lines.iter().any(|l| l == needed), "{needed}: {lines:#?}");
    }
    assert!(!lines.iter().any(|l| l.contains("[config/")), "{lines:#?}");
    // root's threshold for everything; the sub-category's own wins.
    let o = xbt_log(
        &[
            "--log=root.thres:critical",
            "--log=smpi_test_detail.thr:info",
        ],
        &[],
    );
    let lines = log_lines(&o);
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("[smpi_test/CRITICAL] critical from 0")),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("[smpi_test_detail/INFO] detail from 0")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("warning from")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("I'm")), "{lines:#?}");
    // SimGrid's own categories may be named: they apply to nothing.
    let o = xbt_log(
        &[
            "--log=smpi_config.thres:warning",
            "--log=xbt_cfg.thres:warning",
        ],
        &[],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_failed_xbt_assert_logs_critical_to_root_and_aborts() {
    // abort() ends the rank as a crash: named, with 128 + SIGABRT.
    let aborted = |o: &Output| {
        o.status.code() == Some(128 + libc::SIGABRT)
            && stderr(o).contains("rank 1 crashed (aborted: abort() was called, SIGABRT)")
    };
    let o = xbt_log(&["--log=no_loc"], &["assert"]);
    assert!(aborted(&o), "{}", stderr(&o));
    let lines = log_lines(&o);
    assert_eq!(
        lines.last().map(String::as_str),
        Some("[node-1:1:(2) 2.000024] [root/CRITICAL] Assertion answer == 42 failed"),
        "{lines:#?}"
    );
    let o = xbt_log(&["--log=no_loc"], &["assert-message"]);
    assert!(aborted(&o), "{}", stderr(&o));
    assert_eq!(
        log_lines(&o).last().map(String::as_str),
        Some("[node-1:1:(2) 2.000024] [root/CRITICAL] size is 2"),
    );
}

/// A program using the toolbox's macros, in C or C++.
const TOOLBOX_PROGRAM: &str = r#"#include <smpi/mpi.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>
XBT_LOG_NEW_DEFAULT_CATEGORY(lang_test, "C or C++");
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (sg_actor_get_pid(sg_actor_self()) != 1 || !sg_host_get_name(sg_host_self()))
        return 1;
    int *p = xbt_new0(int, 3);
    xbt_assert(p[2] == 0);
    xbt_assert(p[1] == 0, "p[1] is %d", p[1]);
    XBT_INFO("hello %d", p[0]);
    XBT_IN();
    XBT_OUT(" with %d", 3);
    XBT_HERE();
    xbt_free(p);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn the_toolbox_headers_build_warning_free_in_c_and_cxx() {
    let dir = scratch().join("toolbox_langs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.c"), TOOLBOX_PROGRAM).unwrap();
    std::fs::write(dir.join("t.cpp"), TOOLBOX_PROGRAM).unwrap();
    let cxx = || with_env(Command::new(env!("CARGO_BIN_EXE_smpicxx")));
    for (mut cc, args) in [
        (
            smpicc(),
            ["-std=c99", "-pedantic", "t.c", "-o", "t_c"].as_slice(),
        ),
        (smpicc(), ["-std=gnu17", "t.c", "-o", "t_gnu"].as_slice()),
        (cxx(), ["t.cpp", "-o", "t_cxx"].as_slice()),
    ] {
        let o = cc
            .current_dir(&dir)
            .args(["-Wall", "-Wextra", "-Werror", "-O2"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    for program in ["t_c", "t_gnu", "t_cxx"] {
        let o = run(&[
            "-np",
            "1",
            NO_COMPUTE,
            "--log=lang_test.thres:trace",
            "--log=no_loc",
            dir.join(program).to_str().unwrap(),
        ]);
        assert_eq!(
            log_lines(&o),
            [
                "[node-0:0:(1) 0.000000] [lang_test/INFO] hello 0",
                "[node-0:0:(1) 0.000000] [lang_test/TRACE] >> begin of main",
                "[node-0:0:(1) 0.000000] [lang_test/TRACE] << end of main with 3",
                "[node-0:0:(1) 0.000000] [lang_test/TRACE] -- was here",
            ],
            "{program}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_rank_is_simgrids_actor_named_by_its_rank_and_numbered_rank_plus_one() {
    assert_self_checks("tests/c/simgrid_actor.c", &["1", "3"]);
}

#[test]
fn tracing_calls_record_their_declarations_and_write_no_trace() {
    let app = build("tests/c/simgrid_instr.c");
    let app = app.to_str().unwrap();
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/host-speed:1Gf",
        "--log=config.thres:debug",
        app,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The Gflop was spent at the category change, before the clock read.
    assert!(
        stdout(&o).contains("rank 1 spent 1.000000"),
        "{}",
        stdout(&o)
    );
    let declared = "[config/DEBUG] the program declared, for tracing (which smpi-rs does not do \
                    yet): categories: exchange, compute, rank0, rank1; mark types: phase; host \
                    variables: load, queue; link variables: bytes, msgs; host states: activity";
    assert!(
        stderr(&o).lines().any(|l| l.ends_with(declared)),
        "{}",
        stderr(&o)
    );
    // A null name stops the run, naming the call.
    let o = run(&["-np", "2", NO_COMPUTE, app, "null"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("smpirun: rank 1: TRACE_category: the category is a null pointer"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_rank_parses_its_options_with_getopt_from_the_start() {
    let dir = scratch().join("getopt");
    std::fs::create_dir_all(&dir).unwrap();
    let source = repo().join("tests/c/getopt.c");
    let cxx = || with_env(Command::new(env!("CARGO_BIN_EXE_smpicxx")));
    for (mut cc, program, flags) in [
        (smpicc(), "getopt_gnu", &[][..]),
        (
            smpicc(),
            "getopt_posix",
            &["-DSTRICT_POSIX", "-std=c99"][..],
        ),
        // g++ compiles a .c file as C++.
        (cxx(), "getopt_cxx", &[][..]),
    ] {
        let o = cc
            .current_dir(&dir)
            .args(["-Wall", "-Wextra", "-Werror", "-O2"])
            .args(flags)
            .arg(&source)
            .args(["-o", program])
            .output()
            .unwrap();
        assert!(o.status.success(), "{program}: {}", stderr(&o));
        let app = dir.join(program);
        let o = run(&[
            "-np",
            "3",
            NO_COMPUTE,
            app.to_str().unwrap(),
            "-v",
            "-n",
            "3",
            "--name=x",
            "--flag",
            "rest",
        ]);
        assert!(
            o.status.success() && stdout(&o).contains(" No Errors"),
            "{program}: {}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

/// Host a: 4 cores at 1 Gf or 500 Mf; b: 1 core at 2 Gf or 1 Gf; c: no
/// watts. Links cost nothing, so the program's dates are its
/// computations'.
const ENERGY_PLATFORM: &str = r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="z" routing="Full">
  <host id="a" speed="1Gf,500Mf" core="4">
    <prop id="wattage_per_state" value="100:120:200, 80:90:130"/>
    <prop id="wattage_off" value="10"/>
  </host>
  <host id="b" speed="2Gf,1Gf"><prop id="wattage_per_state" value="50:150, 40:100"/></host>
  <host id="c" speed="1Gf"/>
  <link id="l" bandwidth="1TBps" latency="0"/>
  <route src="a" dst="b"><link_ctn id="l"/></route>
  <route src="a" dst="c"><link_ctn id="l"/></route>
  <route src="b" dst="c"><link_ctn id="l"/></route>
</zone></platform>"#;

#[test]
fn host_energy_follows_pstates_and_load_and_is_reported_as_simgrid_does() {
    let app = build("tests/c/energy.c");
    let app = app.to_str().unwrap();
    let platform = write_scratch("energy.xml", ENERGY_PLATFORM);
    let hostfile = write_scratch("energy.hosts", "a\na\nb\n");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "-np".to_string(),
            "3".into(),
            "-platform".into(),
            platform.to_str().unwrap().into(),
            "-hostfile".into(),
            hostfile.to_str().unwrap().into(),
            NO_COMPUTE.into(),
            // MPI_Wtime and the same-host link cost nothing: the dates
            // are the computations'.
            "--cfg=smpi/wtime:0".into(),
            "--cfg=network/loopback-bw:1e18".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run_with = |extra: &[&str]| smpirun().args(args(extra)).output().expect("run smpirun");
    let o = run_with(&["--cfg=plugin:host_energy", app]);
    assert!(
        o.status.success() && stdout(&o).contains(" No Errors"),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    let logged: String = stderr(&o)
        .lines()
        .filter(|l| !l.starts_with("smpirun: simulated time"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        logged,
        "[0.000000] [host_energy/WARNING] No energetic profiles (wattage_per_state) given for \
         host c, using 0 W by default. Direct request of power/energy consumption of this host \
         will fail.\n\
         [2.500000] [host_energy/INFO] Total energy consumption: 545.000000 Joules (used hosts: \
         545.000000 Joules; unused/idle hosts: 0.000000)\n\
         [2.500000] [host_energy/INFO] Energy consumption of host a: 320.000000 Joules\n\
         [2.500000] [host_energy/INFO] Energy consumption of host b: 225.000000 Joules\n\
         [2.500000] [host_energy/INFO] Energy consumption of host c: 0.000000 Joules\n"
    );
    // Without the plugin, reading the energy stops the run and says why.
    let o = run_with(&[app]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "smpirun: rank 0: sg_host_get_wattmin_at: energy is not counted: run smpirun with \
             --cfg=plugin:host_energy"
        ),
        "{}",
        stderr(&o)
    );
    let o = run_with(&["--cfg=plugin:host_energy", app, "bad-pstate"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "smpirun: rank 0: sg_host_set_pstate: pstate 7 does not exist: the host has 2 (0 to 1"
        ),
        "{}",
        stderr(&o)
    );
    // SimGrid's other plugins are accepted with a warning; a typo is not.
    let o = run_with(&["--cfg=plugin:link_load", "--cfg=plugin:host_energy", app]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).starts_with(
        "[0.000000] [smpi_config/WARNING] option 'plugin' (set to 'link_load') has no effect here"
    ));
    let o = run_with(&["--cfg=plugin:host_energi", app]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("option plugin: 'host_energi' is not one of SimGrid's plugins"));
}

/// The simgrid_actors.c run: two ranks, each starting an actor.
fn simgrid_actors(options: &[&str], args: &[&str]) -> Output {
    let app = build("tests/c/simgrid_actors.c");
    let mut all = vec!["-np", "2", NO_COMPUTE];
    all.extend_from_slice(options);
    all.push(app.to_str().unwrap());
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn an_actor_a_rank_starts_acts_as_the_rank_with_its_own_name_and_pid() {
    for privatization in ["swap", "dlopen"] {
        let o = simgrid_actors(&[&format!("--cfg=smpi/privatization:{privatization}")], &[]);
        assert!(
            o.status.success() && stdout(&o).contains(" No Errors"),
            "{privatization}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        // Each rank runs until it blocks, then the actors it started, in
        // creation order (pids 3 and 4). Rank 0's message reaches rank 1
        // (whose actor waits for it) after the 4 us of a default-cluster
        // message, the reply reaches rank 0 4 us later; the actors sleep
        // 3 s and 1 s, rank 1 5 s.
        assert_eq!(
            log_lines(&o),
            [
                "[node-0:0:(1) 0.000000] [actors_test/INFO] started helper-0",
                "[node-1:1:(2) 0.000000] [actors_test/INFO] started helper-1",
                "[node-0:helper-0:(3) 0.000000] [actors_test/INFO] waiting for my rank's request",
                "[node-0:helper-0:(3) 0.000000] [actors_test/INFO] request done: value 42",
                "[node-1:helper-1:(4) 0.000000] [actors_test/INFO] waiting for my rank's request",
                "[node-1:helper-1:(4) 0.000004] [actors_test/INFO] request done: value 42",
                "[node-1:helper-1:(4) 0.000004] [actors_test/INFO] replied 43",
                "[node-0:0:(1) 0.000008] [actors_test/INFO] reply 43",
                "[node-1:helper-1:(4) 1.000004] [actors_test/INFO] done after 1 s",
                "[node-0:helper-0:(3) 3.000000] [actors_test/INFO] done after 3 s",
                "[node-1:1:(2) 5.000000] [actors_test/INFO] slept, value 42",
            ],
            "{privatization}: {}",
            stderr(&o)
        );
        // Then the final allreduce.
        assert!(
            (simulated_time(&o) - 5.000008).abs() < 1e-9,
            "{}",
            stderr(&o)
        );
    }
    // SimGrid's layouts name the actor and its pid.
    let o = simgrid_actors(&["--log=root.fmt:%i/%a@%h:%m%n"], &[]);
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l == "4/helper-1@node-1:replied 43"),
        "{err}"
    );
}

#[test]
fn a_deadlock_names_the_blocked_actor_and_its_rank() {
    let o = simgrid_actors(&[], &["deadlock"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "smpirun: deadlock at simulated time 0.000000 s: no rank can progress and no event is \
             pending.\n  actor 'listener' (pid 3) of rank 0 is blocked in MPI_Recv(receive from \
             1, tag 9, MPI_COMM_WORLD)\n  (2 ranks already finished)\n"
        ),
        "{err}"
    );
}

#[test]
fn an_unknown_actor_handle_stops_the_run_naming_the_call() {
    let o = simgrid_actors(&[], &["badhandle"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("smpirun: rank 1: sg_actor_get_name: 0x4d is not an actor of this simulation"),
        "{err}"
    );
}

//! SimGrid's smpirun command line and output: what a SimGrid user's
//! scripts and regression tests rely on.

use super::*;

/// smpirun as a user runs it: without the closing line the other tests
/// turn on.
fn plain_smpirun(args: &[&str]) -> Output {
    with_env(Command::new(env!("CARGO_BIN_EXE_smpirun")))
        .args(args)
        .output()
        .expect("run smpirun")
}

#[test]
fn a_run_prints_only_what_the_program_prints_unless_asked() {
    let app = build("examples/hello.c");
    let app = app.to_str().unwrap();
    let o = plain_smpirun(&["-np", "2", NO_COMPUTE, app]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "nothing of smpirun's own on stderr");
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));
    // Our one-line summary, the option before or after the program.
    for args in [
        &["-np", "2", NO_COMPUTE, DISPLAY_TIMING, app][..],
        &["-np", "2", NO_COMPUTE, app, DISPLAY_TIMING],
    ] {
        let o = plain_smpirun(args);
        assert!(
            stderr(&o).starts_with("smpirun: simulated time 0.0"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    // SimGrid's summary, in its words, then ours; -analyze asks for it.
    for args in [
        &["-np", "2", NO_COMPUTE, "--cfg=smpi/display-timing:yes", app][..],
        &["-np", "2", NO_COMPUTE, "-analyze", app],
    ] {
        let o = plain_smpirun(args);
        let err = stderr(&o);
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines[0].starts_with("[0.0")
                && lines[0].contains("] [smpi_utils/INFO] Simulated time: "),
            "{args:?}: {err}"
        );
        assert!(lines[1].is_empty());
        assert!(lines[2].starts_with("The simulation took "), "{err}");
        assert!(
            lines[2].ends_with(" seconds (after parsing and platform setup)"),
            "{err}"
        );
        // Computation timing is off: the application computed nothing.
        assert_eq!(
            lines[3],
            "0 seconds were actual computation of the application"
        );
        assert!(lines[4].starts_with("smpirun: simulated time 0.0"), "{err}");
    }
}

#[test]
fn cfg_and_log_after_the_program_are_applied_not_passed_on() {
    let app = build("tests/c/args.c");
    let o = plain_smpirun(&[
        "-np",
        "1",
        app.to_str().unwrap(),
        "first",
        "--cfg=smpi/simulate-computation:no",
        "--log=root.thres:critical",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "argc=3 argv[1]=first argv[2]=-q\n");
}

#[test]
fn map_prints_simgrids_lines_on_stderr() {
    let app = build("examples/hello.c");
    for map in [&["-map"][..], &["--cfg=smpi/map:1"]] {
        let mut args = vec!["-np", "3", "-platform", "flat:2", NO_COMPUTE];
        args.extend_from_slice(map);
        args.push(app.to_str().unwrap());
        let o = plain_smpirun(&args);
        assert_eq!(
            stderr(&o),
            "[0.000000] [smpi/INFO] [rank 0] -> node-0\n\
             [0.000000] [smpi/INFO] [rank 1] -> node-1\n\
             [0.000000] [smpi/INFO] [rank 2] -> node-0\n",
            "{map:?}"
        );
    }
}

#[test]
fn simgrid_options_without_effect_are_accepted_with_a_warning() {
    let app = build("examples/hello.c");
    let o = plain_smpirun(&[
        "-np",
        "1",
        "-keep-temps",
        NO_COMPUTE,
        "--cfg=tracing/smpi/internals:yes cmonkey/time:1",
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    for (line, option) in
        lines
            .iter()
            .zip(["tracing/smpi/internals", "cmonkey/time", "smpi/keep-temps"])
    {
        assert!(
            line.starts_with(&format!(
                "[0.000000] [smpi_config/WARNING] option '{option}' (set to '"
            )) && line.contains("has no effect here: "),
            "{line}"
        );
    }
}

#[test]
fn wrapper_runs_the_whole_simulation_under_a_command() {
    let app = build("examples/hello.c");
    let o = plain_smpirun(&[
        "-wrapper",
        "sh -c 'echo wrapped: $#; exec \"$@\"' sh",
        "-np",
        "2",
        NO_COMPUTE,
        app.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The wrapper ran once, given smpirun and its 6 arguments.
    assert_eq!(out.matches("wrapped:").count(), 1, "{out}");
    assert!(out.starts_with("wrapped: 7\n"), "{out}");
    assert!(out.contains("Hello from rank 1 of 2"), "{out}");
    let o = plain_smpirun(&["-wrapper", "'unbalanced", "-np", "1", "./x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("unbalanced quotes"), "{}", stderr(&o));
}

#[test]
fn bandwidth_and_latency_build_simgrids_old_platform() {
    let app = build("examples/pingpong.c");
    let time = |extra: &[&str]| {
        let mut args = vec!["-np", "2", NO_COMPUTE];
        args.extend_from_slice(extra);
        args.push(app.to_str().unwrap());
        simulated_time(&run(&args))
    };
    let slow = time(&["-bandwidth", "1e6", "-latency", "1e-3"]);
    let fast = time(&["-bandwidth", "1Gbps", "-latency", "1us"]);
    assert!(slow > 100.0 * fast, "{slow} vs {fast}");
}

#[test]
fn version_and_git_version() {
    let v = plain_smpirun(&["-v"]);
    assert!(
        stdout(&v).starts_with("smpirun (smpi-rs) "),
        "{}",
        stdout(&v)
    );
    let g = plain_smpirun(&["-git-version"]);
    assert!(
        stdout(&v).contains(stdout(&g).trim()) && !stdout(&g).trim().is_empty(),
        "{} / {}",
        stdout(&v),
        stdout(&g)
    );
}

#[test]
fn finalization_barrier_holds_every_rank_until_the_last_one_finalizes() {
    let src = write_scratch(
        "finalize_late.c",
        "#include <mpi.h>\n#include <stdio.h>\n#include <unistd.h>\n\
         int main(int c, char **v) { int r; MPI_Init(&c, &v); MPI_Comm_rank(MPI_COMM_WORLD, &r);\n\
         if (r == 0) sleep(2);\n MPI_Finalize();\n\
         if (r == 1) printf(\"rank 1 left at %.0f s\\n\", MPI_Wtime()); return 0; }\n",
    );
    let app = scratch().join("finalize_late");
    let o = smpicc()
        .arg(&src)
        .arg("-o")
        .arg(&app)
        .output()
        .expect("run smpicc");
    assert!(o.status.success(), "{}", stderr(&o));
    for (setting, left) in [("no", "0"), ("yes", "2")] {
        let o = plain_smpirun(&[
            "-np",
            "2",
            NO_COMPUTE,
            app.to_str().unwrap(),
            &format!("--cfg=smpi/finalization-barrier:{setting}"),
        ]);
        assert_eq!(
            stdout(&o),
            format!("rank 1 left at {left} s\n"),
            "{setting}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn path_is_where_platform_and_hostfile_are_looked_for() {
    let dir = scratch().join("path-option");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("two.hosts"), "node-1\nnode-0\n").unwrap();
    let app = build("examples/hello.c");
    let path = format!("--cfg=path:{}", dir.display());
    let o = plain_smpirun(&[
        "-platform",
        "flat:2",
        "-hostfile",
        "two.hosts",
        NO_COMPUTE,
        app.to_str().unwrap(),
        &path,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Hello from rank 0 of 2 on node-1"),
        "{}",
        stdout(&o)
    );
    assert_eq!(stderr(&o), "", "no warning: path is implemented");
}

#[test]
fn every_simgrid_context_factory_runs_the_same_simulation() {
    let app = build("examples/pingpong.c");
    let time = |factory: &str| {
        let o = run(&[
            "-np",
            "2",
            NO_COMPUTE,
            app.to_str().unwrap(),
            &format!("--cfg=contexts/factory:{factory}"),
        ]);
        assert!(o.status.success(), "{factory}: {}", stderr(&o));
        assert!(!stderr(&o).contains("WARNING"), "{}", stderr(&o));
        simulated_time(&o)
    };
    let raw = time("raw");
    for factory in ["thread", "boost", "ucontext"] {
        assert_eq!(time(factory), raw, "{factory}");
    }
    let o = plain_smpirun(&["--cfg=contexts/factory:fibers", "-np", "1", "./x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not one of raw, boost, ucontext, thread"));
}

#[test]
fn simgrid_error_and_init_options_take_effect() {
    // MPI_ERRORS_RETURN by default, and MPI_Init's own time.
    assert_self_checks_with(
        "tests/c/simgrid_error_options.c",
        &["1", "3"],
        &["--cfg=smpi/errors-are-fatal:no", "--cfg=smpi/init:0.25"],
    );
    // By default, an error is fatal: the run ends with its class (6 is
    // MPI_ERR_RANK).
    let app = build("tests/c/simgrid_error_options.c");
    let o = run(&["-np", "2", NO_COMPUTE, app.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("MPI_ERRORS_ARE_FATAL"),
        "{}",
        stderr(&o)
    );
}

/// examples/ring.c on 2 ranks, one round, with the `--log` settings
/// `logs`: what it wrote on stderr (the run must succeed).
fn ring_logging(logs: &[&str]) -> String {
    let app = build("examples/ring.c");
    let mut args = vec!["-np", "2", NO_COMPUTE, app.to_str().unwrap(), "1"];
    args.extend_from_slice(logs);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn a_layout_given_to_a_category_writes_its_lines_as_simgrid_does() {
    // SimGrid gives a category set a layout its default appender (stderr)
    // and stops its lines there: they are written once, in that layout,
    // smpirun's own categories as SimGrid's.
    let err = ring_logging(&[
        "--log=smpi_mpi.thres:verbose",
        "--log=smpi_mpi.fmt:<%c>%m%n",
        "--log=network.thres:debug",
        "--log=network.fmt:(%c)%m%n",
    ]);
    assert!(
        err.lines()
            .any(|l| l == "<smpi_mpi>SMPI - Entering MPI_Init"),
        "{err}"
    );
    assert!(
        err.lines().any(|l| l.starts_with("(network)transfer 0: ")),
        "{err}"
    );
    assert!(
        !err.contains("[smpi_mpi/") && !err.contains("[network/"),
        "{err}"
    );
}

#[test]
fn smpi_mpi_verbose_lines_follow_every_call_in_simgrids_layout() {
    let err = ring_logging(&["--log=smpi_mpi.thres:verbose", "--log=root.fmt:%a@%h:%m%n"]);
    for line in [
        "0@node-0:SMPI - Entering MPI_Init",
        "1@node-1:SMPI - Leaving MPI_Init",
        "0@node-0:SMPI - Entering MPI_Wtime",
        "0@node-0:SMPI - Leaving MPI_Wtime",
        "1@node-1:SMPI - Entering MPI_Recv",
        "1@node-1:SMPI - Leaving MPI_Finalize",
    ] {
        assert!(err.lines().any(|l| l == line), "no '{line}' in:\n{err}");
    }
    // Entering and leaving pair up.
    let count = |what: &str| err.lines().filter(|l| l.contains(what)).count();
    assert_eq!(count("Entering"), count("Leaving"), "{err}");
}

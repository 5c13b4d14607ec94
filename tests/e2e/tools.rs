//! smpicc as a compiler driver: separate compilation, -show, pretend mode,
//! and a clear link error for functions the emulator lacks.

use super::*;

#[test]
fn separate_compilation_and_linking_work_like_cc() {
    let dir = scratch().join("separate");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("part.c"), "#include <mpi.h>\nint my_rank(void) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }\n").unwrap();
    std::fs::write(
        dir.join("main.c"),
        "#include <mpi.h>\n#include <stdio.h>\nint my_rank(void);\nint main(int c, char **v) { MPI_Init(&c, &v); printf(\"part says %d\\n\", my_rank()); MPI_Finalize(); return 0; }\n",
    )
    .unwrap();
    for f in ["part.c", "main.c"] {
        let o = smpicc().current_dir(&dir).args(["-c", f]).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = smpicc()
        .current_dir(&dir)
        .args(["main.o", "part.o", "-o", "app"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = run(&["-np", "2", NO_COMPUTE, dir.join("app").to_str().unwrap()]);
    assert!(
        stdout(&r).contains("part says 1"),
        "{}{}",
        stdout(&r),
        stderr(&r)
    );
}

#[test]
fn main_may_come_from_a_static_library() {
    // HPCC links its main from libhpl.a; MPI_Address is HPL's MPI-1 call.
    let dir = scratch().join("main_in_archive");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("prog.c"),
        "#include <mpi.h>\n#include <stdio.h>\nint main(int c, char **v) { MPI_Aint a, b; int x; MPI_Init(&c, &v); MPI_Address(&x, &a); MPI_Get_address(&x, &b); printf(\"from the archive %d\\n\", a == b); MPI_Finalize(); return 0; }\n",
    )
    .unwrap();
    let o = smpicc()
        .current_dir(&dir)
        .args(["-c", "prog.c"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let ar = Command::new("ar")
        .current_dir(&dir)
        .args(["rc", "libprog.a", "prog.o"])
        .status()
        .unwrap();
    assert!(ar.success());
    let o = smpicc()
        .current_dir(&dir)
        .args(["-o", "app", "libprog.a"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = run(&["-np", "2", NO_COMPUTE, dir.join("app").to_str().unwrap()]);
    assert!(
        stdout(&r).contains("from the archive 1"),
        "{}{}",
        stdout(&r),
        stderr(&r)
    );
}

#[test]
fn show_prints_the_command_without_running_it() {
    let o = smpicc().args(["-show", "x.c", "-o", "x"]).output().unwrap();
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.contains("-shared") && out.contains("-Wl,-z,defs") && out.contains("smpi_helpers.h"),
        "{out}"
    );
    assert!(!scratch().join("x").exists());
}

#[test]
fn missing_mpi_functions_fail_at_link_time_with_their_names() {
    let dir = scratch().join("missing");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("m.c"),
        "#include <mpi.h>\nint MPI_Not_a_function(int);\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Not_a_function(1); MPI_Finalize(); return 0; }\n",
    )
    .unwrap();
    let o = smpicc()
        .current_dir(&dir)
        .args(["m.c", "-o", "m"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("does not provide: MPI_Not_a_function"),
        "{err}"
    );
}

#[test]
fn pretend_mode_builds_a_plain_executable_for_configure() {
    let dir = scratch().join("pretend");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("conftest.c"),
        "#include <mpi.h>\nint main(void) { return MPI_Init(0, 0); }\n",
    )
    .unwrap();
    let o = smpicc()
        .current_dir(&dir)
        .env("SMPI_PRETEND_CC", "1")
        .args(["conftest.c", "-o", "conftest"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // A plain executable: it runs (and says it needs smpirun).
    let r = Command::new(dir.join("conftest")).output().unwrap();
    assert_eq!(r.status.code(), Some(127));
    assert!(stderr(&r).contains("run it with smpirun"), "{}", stderr(&r));
}

#[test]
fn time_functions_are_simulated() {
    let dir = scratch().join("time");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("t.c"),
        r#"#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/time.h>
#include <time.h>
int main(int c, char **v) {
    struct timeval a, b; struct timespec ts = {0, 500000000};
    MPI_Init(&c, &v);
    gettimeofday(&a, NULL);
    sleep(2); usleep(250000); nanosleep(&ts, NULL);
    gettimeofday(&b, NULL);
    printf("elapsed %.6f\n", (b.tv_sec - a.tv_sec) + (b.tv_usec - a.tv_usec) * 1e-6);
    MPI_Finalize();
    return 0;
}
"#,
    )
    .unwrap();
    let o = smpicc()
        .current_dir(&dir)
        .args(["t.c", "-o", "t"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = run(&["-np", "1", NO_COMPUTE, dir.join("t").to_str().unwrap()]);
    // 2.75 s of simulated sleep (plus the clock-read cost), in no wall time.
    assert!(
        stdout(&r).contains("elapsed 2.750000"),
        "{}{}",
        stdout(&r),
        stderr(&r)
    );
    assert!(simulated_time(&r) >= 2.75);
}

#[test]
fn smpicxx_builds_and_runs_a_cxx_program() {
    let app = build_cxx("tests/c/cxx_reduce.cpp", "cxx_reduce");
    let r = run(&["-np", "5", NO_COMPUTE, app.to_str().unwrap()]);
    assert!(r.status.success(), "{}{}", stdout(&r), stderr(&r));
    assert!(stdout(&r).contains("cxx ok sum 10"), "{}", stdout(&r));
}

#[test]
fn print_platform_describes_the_platform_and_a_route() {
    let o = run(&[
        "-platform",
        "fat-tree:2;8,8;1,2;1,1:bw=1.25GBps:lat=10us",
        "-print-platform",
        "node-0",
        "node-63",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for line in [
        "cluster 'cluster' (FAT_TREE 2;8,8;1,2;1,1, links SPLITDUPLEX 1.25GBps 10us): 64 hosts, 80 links",
        "hosts: 64 (node-0 .. node-63), 1Gf per core, 64 cores in all",
        "links: 80 besides the global loopback: 80 of 1.25GBps and 10us",
        "bisection: 10GBps (8 links of 1.25GBps, half the links into the top level)",
        "route node-0 -> node-63: 4 links, latency 40us, narrowest 1.25GBps",
        "  link_from_0_127_0_UP  1.25GBps 10us SPLITDUPLEX",
        "  link_from_63_120_63_DOWN  1.25GBps 10us SPLITDUPLEX",
    ] {
        assert!(out.contains(line), "no '{line}' in:\n{out}");
    }
    for (platform, bisection) in [
        ("torus:4,4,8:bw=1GBps", "bisection: 32GBps (32 links of 1GBps, cutting the largest dimension in two)"),
        ("dragonfly:4,1;1,1;4,1;2:bw=1GBps", "bisection: 4GBps (4 links of 1GBps, the blue links between two halves of the groups)"),
        ("flat:8:bw=1GBps:bb_bw=2GBps", "bisection: 2GBps (the shared backbone; the private links of half the hosts carry 4GBps)"),
    ] {
        let o = run(&["-platform", platform, "-print-platform"]);
        assert!(stdout(&o).contains(bisection), "{platform}:\n{}", stdout(&o));
    }
    let o = run(&["-platform", "flat:8", "-print-platform", "node-0", "node-9"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o)
            .contains("no host 'node-9' in the platform (its hosts run from 'node-0' to 'node-7')"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn log_option_prints_config_lines_in_simgrid_layout() {
    let app = build("examples/hello.c");
    let app = app.to_str().unwrap();
    let logged = run(&["--log=config.thres:debug", "-np", "2", NO_COMPUTE, app]);
    assert!(logged.status.success(), "{}", stderr(&logged));
    let err = stderr(&logged);
    assert!(
        err.lines().any(|l| l
            == "[0.000000] [config/INFO] Configuration change: Set \
                'smpi/simulate-computation' to 'no' (--cfg)"),
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with("[0.000000] [config/INFO] platform built-in: ")),
        "{err}"
    );
    assert!(
        err.lines()
            .any(|l| l.starts_with("[0.000000] [config/DEBUG] 2 ranks placed")),
        "{err}"
    );
    let plain = run(&["-np", "2", NO_COMPUTE, app]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    assert!(!stderr(&plain).contains("[config/"), "{}", stderr(&plain));
    // Logs go to stderr only: the program's output is the same.
    assert_eq!(stdout(&logged), stdout(&plain));
    // Below the threshold, nothing.
    let errors_only = run(&["--log=config.thres:error", "-np", "2", NO_COMPUTE, app]);
    assert!(
        !stderr(&errors_only).contains("[config/"),
        "{}",
        stderr(&errors_only)
    );
}

#[test]
fn bad_log_and_option_names_are_reported() {
    // Any category may be named (the program declares its own), not any
    // level.
    let o = run(&["--log=config.thres:loud", "-np", "2", "./nothing"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown log level 'loud'; valid levels are: trace,"),
        "{}",
        stderr(&o)
    );
    let o = run(&["-platfrom", "flat:2", "./nothing"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(
            "unknown option '-platfrom' (did you mean '-platform'?); smpirun -help lists the \
             options"
        ),
        "{}",
        stderr(&o)
    );
    let o = run(&["--cfg=smpi/host-sped:1Gf", "-np", "2", "./nothing"]);
    assert!(
        stderr(&o).contains("unknown option 'smpi/host-sped'; did you mean 'smpi/host-speed'?"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn version_names_the_commit_and_completions_are_scripts() {
    let o = run(&["-version"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let rest = out
        .strip_prefix(concat!(
            "smpirun (smpi-rs) ",
            env!("CARGO_PKG_VERSION"),
            " ("
        ))
        .unwrap_or_else(|| panic!("{out}"));
    let hash = rest.strip_suffix(")\n").unwrap_or_else(|| panic!("{out}"));
    assert!(
        hash == "unknown" || (!hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit())),
        "{out}"
    );
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["--completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        assert!(stdout(&o).contains("print-platform"), "{shell}");
    }
}

/// `smpi/progress-interval`: a plain progress line on stderr every
/// interval of wall time (date, events per second, ranks done, memory);
/// none without the option when stderr is no terminal. The run is
/// stopped after 1 s of wall time, so at least 2 lines of 0.2 s come.
#[test]
fn progress_lines_come_every_interval_and_not_unasked() {
    let app = build_as("bench/c/allreduce.c", "allreduce_bench", &["-O2"]);
    let long_run = |extra: &[&str]| {
        let mut args = vec!["-np", "4", NO_COMPUTE, "--cfg=smpi/wall-time-limit:1"];
        args.extend_from_slice(extra);
        args.extend([app.to_str().unwrap(), "100000000"]);
        run(&args)
    };
    let o = long_run(&["--cfg=smpi/progress-interval:0.2"]);
    assert_eq!(o.status.code(), Some(124));
    let err = stderr(&o);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| {
            l.starts_with("smpirun: simulated ") && l.contains(" events/s, 0 of 4 ranks done, ")
        })
        .collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(lines.iter().all(|l| l.ends_with(" MB")), "{err}");
    let o = long_run(&[]);
    assert!(!stderr(&o).contains("events/s"), "{}", stderr(&o));
    // A rank polling MPI_Wtime alone takes its sleeps in place, without
    // the scheduler: they count as events too.
    let endless = build("tests/c/endless.c");
    let o = run(&[
        "-np",
        "2",
        NO_COMPUTE,
        "--cfg=smpi/wall-time-limit:1",
        "--cfg=smpi/progress-interval:0.2",
        endless.to_str().unwrap(),
        "wtime",
    ]);
    assert_eq!(o.status.code(), Some(124));
    assert!(
        stderr(&o).matches(" of 2 ranks done, ").count() >= 2,
        "{}",
        stderr(&o)
    );
}

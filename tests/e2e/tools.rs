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
    let dir = scratch().join("cxx");
    std::fs::create_dir_all(&dir).unwrap();
    let o = with_env(Command::new(env!("CARGO_BIN_EXE_smpicxx")))
        .current_dir(&dir)
        .arg("-O2")
        .arg(repo().join("tests/c/cxx_reduce.cpp"))
        .args(["-o", "cxx_reduce"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = run(&[
        "-np",
        "5",
        NO_COMPUTE,
        dir.join("cxx_reduce").to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}{}", stdout(&r), stderr(&r));
    assert!(stdout(&r).contains("cxx ok sum 10"), "{}", stdout(&r));
}

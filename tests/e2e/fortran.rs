//! Fortran programs (tests/fortran/) built with our smpif90 (over
//! gfortran, which scripts/gfortran.sh installs when missing) and run with
//! our smpirun: per-rank module, COMMON and SAVE state with both
//! privatization strategies, collectives, derived types, statuses and
//! strings, separate compilation, and a clear link error for a binding
//! that is absent.

use std::path::PathBuf;
use std::process::Command;

use crate::{build_with, run, scratch, stderr, stdout, tool, with_env, NO_COMPUTE};

fn smpif90() -> Command {
    with_env(Command::new(env!("CARGO_BIN_EXE_smpif90")))
}

/// Builds tests/fortran/`source` into the scratch directory once per run.
fn build_fortran(source: &str) -> PathBuf {
    tool("scripts/gfortran.sh");
    let stem = source.split('.').next().expect("a file name");
    build_with(
        smpif90,
        &format!("tests/fortran/{source}"),
        &format!("fortran-{stem}"),
        &["-O2"],
    )
}

#[test]
fn module_common_and_saved_state_is_per_rank_with_both_privatizations() {
    let program = build_fortran("ring_state.f90");
    let program = program.to_str().unwrap();
    for np in ["4", "16"] {
        for privatization in ["swap", "dlopen"] {
            let opt = format!("--cfg=smpi/privatization:{privatization}");
            let o = run(&["-np", np, NO_COMPUTE, &opt, program]);
            let out = stdout(&o);
            assert!(
                o.status.success(),
                "{np} ranks, {privatization}: {}",
                stderr(&o)
            );
            assert!(
                out.contains("ring ok"),
                "{np} ranks, {privatization}: {out}"
            );
            let ranks: usize = np.parse().unwrap();
            for r in 0..ranks {
                let line = format!("rank {r}: module {r}, common {}, saved calls 3", 10 * r);
                assert!(
                    out.contains(&line),
                    "{np} ranks, {privatization}: no {line:?} in {out}"
                );
            }
        }
    }
}

#[test]
fn collectives_and_user_operations_give_the_right_values() {
    let program = build_fortran("collectives.f90");
    for np in ["5", "16"] {
        let o = run(&["-np", np, NO_COMPUTE, program.to_str().unwrap()]);
        assert!(o.status.success(), "{np} ranks: {}", stderr(&o));
        assert!(
            stdout(&o).contains("collectives ok"),
            "{np} ranks: {}",
            stdout(&o)
        );
    }
}

#[test]
fn fixed_form_with_mpif_h_handles_types_statuses_and_strings() {
    let program = build_fortran("types_status.f");
    for np in ["2", "3"] {
        let o = run(&["-np", np, NO_COMPUTE, program.to_str().unwrap()]);
        assert!(o.status.success(), "{np} ranks: {}", stderr(&o));
        assert!(
            stdout(&o).contains("types ok"),
            "{np} ranks: {}",
            stdout(&o)
        );
    }
}

#[test]
fn callbacks_attributes_and_request_indices_follow_fortran_conventions() {
    let program = build_fortran("attributes_indices.f90");
    for np in ["1", "3"] {
        let o = run(&["-np", np, NO_COMPUTE, program.to_str().unwrap()]);
        assert!(o.status.success(), "{np} ranks: {}", stderr(&o));
        assert!(
            stdout(&o).contains("attributes ok"),
            "{np} ranks: {}",
            stdout(&o)
        );
    }
}

#[test]
fn every_rank_reads_its_arguments_after_the_others_have_ended() {
    let program = build_fortran("arguments.f90");
    let o = run(&[
        "-np",
        "4",
        NO_COMPUTE,
        program.to_str().unwrap(),
        "alpha",
        "42",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("arguments ok"), "{}", stdout(&o));
}

#[test]
fn programs_start_while_the_wall_time_watchdog_starts() {
    // libgfortran's constructor calls pthread_key_create while dlopen
    // holds the dynamic linker's lock, as the wall-time watchdog thread
    // is born: the two once waited on each other (3 runs in 20 hung).
    let program = build_fortran("ring_state.f90");
    for attempt in 0..20 {
        let o = with_env(Command::new("timeout"))
            .args(["-s", "KILL", "30", env!("CARGO_BIN_EXE_smpirun")])
            .args(["-np", "2", NO_COMPUTE, program.to_str().unwrap()])
            .env("MPIEXEC_TIMEOUT", "60")
            .output()
            .expect("run smpirun under timeout");
        assert!(
            o.status.success() && stdout(&o).contains("ring ok"),
            "attempt {attempt}: {:?} {}",
            o.status,
            stderr(&o)
        );
    }
}

#[test]
fn separate_compilation_links_modules_and_programs_like_fc_in_a_makefile() {
    tool("scripts/gfortran.sh");
    let dir = scratch().join("fortran-separate");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("counter.f90"),
        "module counter\n  implicit none\n  integer :: hits = 0\ncontains\n  \
         subroutine hit()\n    hits = hits + 1\n  end subroutine hit\nend module counter\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.f90"),
        "program main\n  use mpi\n  use counter\n  implicit none\n  integer :: rank, ierr, i\n  \
         call MPI_Init(ierr)\n  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)\n  \
         do i = 0, rank\n    call hit()\n  end do\n  call MPI_Barrier(MPI_COMM_WORLD, ierr)\n  \
         print '(A,I0,A,I0)', 'rank ', rank, ' hits ', hits\n  call MPI_Finalize(ierr)\nend program main\n",
    )
    .unwrap();
    for source in ["counter.f90", "main.f90"] {
        let o = smpif90()
            .current_dir(&dir)
            .args(["-c", source])
            .output()
            .unwrap();
        assert!(o.status.success(), "smpif90 -c {source}: {}", stderr(&o));
    }
    let o = smpif90()
        .current_dir(&dir)
        .args(["counter.o", "main.o", "-o", "main"])
        .output()
        .unwrap();
    assert!(o.status.success(), "link: {}", stderr(&o));
    let o = run(&["-np", "3", NO_COMPUTE, dir.join("main").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in 0..3 {
        assert!(
            stdout(&o).contains(&format!("rank {r} hits {}", r + 1)),
            "{}",
            stdout(&o)
        );
    }
    // -show names gfortran and the flags it adds.
    let o = smpif90().args(["-show", "main.f90"]).output().unwrap();
    let shown = stdout(&o);
    assert!(
        shown.contains("gfortran") && shown.contains("-shared"),
        "{shown}"
    );
}

#[test]
fn an_absent_binding_is_a_link_error_naming_it() {
    tool("scripts/gfortran.sh");
    let dir = scratch().join("fortran-missing");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("missing.f90"),
        "program missing\n  use mpi\n  implicit none\n  integer :: ierr, length\n  \
         logical :: flag\n  character(len=16) :: value\n  call MPI_Init(ierr)\n  length = 16\n  \
         call MPI_Info_get_string(MPI_INFO_NULL, 'key', length, value, flag, ierr)\n  \
         call MPI_Finalize(ierr)\nend program missing\n",
    )
    .unwrap();
    let o = smpif90()
        .current_dir(&dir)
        .args(["missing.f90", "-o", "missing"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("does not provide: MPI_INFO_GET_STRING (Fortran)"),
        "{}",
        stderr(&o)
    );
}

//! smpicc's front door: what it answers itself (-help, -version), and
//! programs it built run directly, as configure and CMake run their test
//! programs.

use super::*;

/// An empty directory of its own for `name`.
fn empty_dir(name: &str) -> PathBuf {
    let dir = scratch().join("front_door").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn help_and_version_are_answered_without_writing_a_file() {
    let smpicxx = || with_env(Command::new(env!("CARGO_BIN_EXE_smpicxx")));
    let hash = env!("SMPI_RS_GIT_HASH");
    for (wrapper, name, compiler) in [
        (smpicc as fn() -> Command, "smpicc", "cc"),
        (smpicxx, "smpicxx", "c++"),
    ] {
        let ours = format!("{name} (smpi-rs) {} ({hash})", env!("CARGO_PKG_VERSION"));
        let theirs = Command::new(compiler).arg("--version").output().unwrap();
        let theirs = stdout(&theirs);
        for option in [
            "-help",
            "--help",
            "-h",
            "-version",
            "--version",
            "-git-version",
        ] {
            let dir = empty_dir(&format!("{name}{option}"));
            let o = wrapper().current_dir(&dir).arg(option).output().unwrap();
            let out = stdout(&o);
            assert!(o.status.success(), "{name} {option}: {}", stderr(&o));
            assert!(
                files_in(&dir).is_empty(),
                "{name} {option} wrote {:?}",
                files_in(&dir)
            );
            match option {
                "-help" | "--help" | "-h" => assert!(
                    out.starts_with(&format!("Usage: {name} ")) && out.contains(&ours),
                    "{name} {option}:\n{out}"
                ),
                // SimGrid's: ours, then the compiler's first line.
                "-version" => {
                    assert!(out.starts_with(&ours), "{name}:\n{out}");
                    let first = theirs.lines().next().unwrap();
                    assert!(out.ends_with(&format!(":\n{first}\n")), "{name}:\n{out}");
                }
                // The compiler's whole text first, for build systems.
                "--version" => {
                    let rest = out.strip_prefix(theirs.as_str());
                    assert!(rest.is_some_and(|r| r.starts_with(&ours)), "{name}:\n{out}");
                }
                _ => assert_eq!(out, format!("{hash}\n"), "{name}"),
            }
        }
    }
}

#[test]
fn the_compilers_own_queries_pass_through() {
    for query in [
        &["-dumpversion"][..],
        &["-dumpmachine"],
        &["-print-prog-name=ld"],
    ] {
        let ours = smpicc().args(query).output().unwrap();
        let theirs = Command::new("cc").args(query).output().unwrap();
        assert!(ours.status.success(), "{query:?}: {}", stderr(&ours));
        assert_eq!(stdout(&ours), stdout(&theirs), "{query:?}");
    }
}

/// Runs `program` directly, with `stdin` as its input, in `dir`.
fn run_directly(program: &Path, args: &[&str], stdin: &str, dir: &Path) -> Output {
    use std::io::Write as _;
    let mut child = with_env(Command::new(program))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_program_run_directly_runs_itself_under_smpirun_with_one_rank() {
    let app = build("tests/c/direct_run.c");
    let dir = app.parent().unwrap();
    let o = run_directly(
        Path::new("./direct_run"),
        &["3", "-np", "2"],
        "line 1\nline 2\n",
        dir,
    );
    assert_eq!(
        stdout(&o),
        "rank 0 of 1, argv[0]=./direct_run\nargv[1]=3\nargv[2]=-np\nargv[3]=2\n\
         stdin: line 1\nstdin: line 2\n"
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "nothing of smpirun's own");
    // exit() ends it with its code too.
    let o = run_directly(&app, &["exit:7"], "", dir);
    assert_eq!(o.status.code(), Some(7), "{}{}", stdout(&o), stderr(&o));
    // Found on PATH, it still finds itself.
    let o = with_env(Command::new("direct_run"))
        .env("PATH", dir)
        .current_dir("/")
        .arg("0")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!("rank 0 of 1, argv[0]={}\nargv[1]=0\n", app.display())
    );
}

#[test]
fn configure_test_programs_run_directly() {
    let dir = empty_dir("configure");
    // autoconf's "are we cross compiling?" program, and the smallest one.
    let tests = [
        (
            "conftest.c",
            "#include <stdio.h>\nint main (void) { FILE *f = fopen (\"conftest.out\", \"w\"); \
             if (!f) return 1; return ferror (f) || fclose (f) != 0; }\n",
            0,
        ),
        ("empty.c", "int main(void){return 0;}\n", 0),
        ("three.c", "int main(void){return 3;}\n", 3),
    ];
    for (source, text, code) in tests {
        std::fs::write(dir.join(source), text).unwrap();
        let o = smpicc()
            .current_dir(&dir)
            .args(["-o", "conftest", source])
            .output()
            .unwrap();
        assert!(o.status.success(), "{source}: {}", stderr(&o));
        let r = run_directly(Path::new("./conftest"), &[], "", &dir);
        assert_eq!(r.status.code(), Some(code), "{source}: {}", stderr(&r));
        assert_eq!(stdout(&r), "", "{source}");
        assert_eq!(stderr(&r), "", "{source}: nothing in configure's log");
    }
    assert!(dir.join("conftest.out").is_file());
    // C++, with a constructor of its own (loaded once per rank, then).
    std::fs::write(
        dir.join("conftest.cpp"),
        "#include <string>\nstd::string s(\"four\");\nint main() { return s.size(); }\n",
    )
    .unwrap();
    let o = with_env(Command::new(env!("CARGO_BIN_EXE_smpicxx")))
        .current_dir(&dir)
        .args(["-o", "conftest", "conftest.cpp"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = run_directly(Path::new("./conftest"), &[], "", &dir);
    assert_eq!(r.status.code(), Some(4), "{}", stderr(&r));
}

#[test]
fn without_smpirun_next_to_smpicc_a_program_looks_elsewhere_or_says_how_to_run_it() {
    // An smpicc with no smpirun beside it.
    let dir = empty_dir("lonely");
    let lonely = dir.join("smpicc");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_smpicc"), &lonely).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_smpicc"), &lonely).unwrap();
    }
    std::fs::write(dir.join("three.c"), "int main(void){return 3;}\n").unwrap();
    let o = with_env(Command::new(&lonely))
        .current_dir(&dir)
        .args(["three.c", "-o", "three"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let three = || {
        let mut c = with_env(Command::new("./three"));
        c.current_dir(&dir)
            .env("PATH", "/nonexistent")
            .env_remove("SMPIRUN");
        c
    };
    // Nowhere to be found: one line that says what to do.
    let o = three().output().unwrap();
    assert_eq!(o.status.code(), Some(127));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("./three: built by smpicc") && err.contains("smpirun -np N ./three"),
        "{err}"
    );
    // $SMPIRUN.
    let o = three()
        .env("SMPIRUN", env!("CARGO_BIN_EXE_smpirun"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // On PATH.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let smpirun = bin.join("smpirun");
    if std::fs::hard_link(env!("CARGO_BIN_EXE_smpirun"), &smpirun).is_err() {
        std::fs::copy(env!("CARGO_BIN_EXE_smpirun"), &smpirun).unwrap();
    }
    let o = three().env("PATH", &bin).output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // An "smpirun" that runs the program as a plain executable would loop.
    let looping = dir.join("plain-runner");
    std::fs::write(&looping, "#!/bin/sh\nshift 4\nexec \"$@\"\n").unwrap();
    std::fs::set_permissions(
        &looping,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let o = three().env("SMPIRUN", &looping).output().unwrap();
    assert_eq!(o.status.code(), Some(127));
    assert!(
        stderr(&o).contains("ran it as a plain program"),
        "{}",
        stderr(&o)
    );
}

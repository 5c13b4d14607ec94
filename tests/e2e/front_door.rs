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

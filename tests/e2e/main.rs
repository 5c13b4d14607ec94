//! End-to-end tests: real C programs (examples/ and tests/c/) compiled with
//! our smpicc and run with our smpirun, with computation timing off so
//! simulated times are deterministic.

mod bad_inputs;
mod checks;
mod failures;
mod folding;
mod fortran;
mod front_door;
mod golden;
mod ib;
mod io;
mod labs;
mod leaks;
mod models;
mod polling;
mod profile;
mod programs;
mod progression;
mod rma_timing;
mod simgrid;
mod simgrid_cli;
mod stacks;
mod sweep;
mod threads;
mod tools;
mod traces;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("emulator/ has a parent")
        .to_path_buf()
}

/// A scratch directory shared by the tests of this run.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e");
        std::fs::create_dir_all(&d).expect("create the e2e scratch directory");
        d
    })
}

pub fn with_env(mut c: Command) -> Command {
    // Keep the tests' caches (headers, shim, host speed) out of $HOME.
    c.env("SMPI_RS_CACHE", scratch().join("cache"));
    c.env("XDG_CACHE_HOME", scratch().join("xdg"));
    // A limit of the caller's environment would stop the slower tests.
    c.env_remove("MPIEXEC_TIMEOUT");
    c
}

/// The line of `source` (relative to the repository root) that holds
/// `marker`.
pub fn line_in(source: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(repo().join(source)).expect("read the source");
    text.lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no {marker} in {source}"))
        + 1
}

/// The path a project script prints of an outside tool it makes ready
/// (installing it on first use).
pub fn tool(script: &str) -> String {
    let o = Command::new("sh")
        .arg(repo().join(script))
        .output()
        .expect("run a tool script");
    assert!(
        o.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

pub fn smpicc() -> Command {
    with_env(Command::new(env!("CARGO_BIN_EXE_smpicc")))
}

/// smpirun with its one-line closing summary on (it is off by default
/// when stderr is not a terminal, as SimGrid prints none): the tests read
/// the simulated time from it.
pub fn smpirun() -> Command {
    let mut c = with_env(Command::new(env!("CARGO_BIN_EXE_smpirun")));
    c.arg(DISPLAY_TIMING);
    c
}

pub const DISPLAY_TIMING: &str = "--cfg=smpi/display-summary:yes";

/// Compiles `source` (relative to the repository root) into the scratch
/// directory, once per test run (never reusing a build of an earlier run,
/// whose ABI may differ), returning the program's path.
pub fn build(source: &str) -> PathBuf {
    let name = Path::new(source)
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    build_as(source, &name, &["-O2"])
}

/// [`build`] with smpicc `flags`, into the scratch directory as `name`:
/// once per test run and name, so that tests running at once never run a
/// program another one is still writing. A name stands for one source
/// and one set of flags.
pub fn build_as(source: &str, name: &str, flags: &[&str]) -> PathBuf {
    build_with(smpicc, source, name, flags)
}

/// [`build_as`] with another compiler wrapper (`smpif90`...).
pub fn build_with(wrapper: fn() -> Command, source: &str, name: &str, flags: &[&str]) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<(String, String)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let out = scratch().join(name);
    let mut cmd = wrapper();
    let inputs = format!("{:?} {source} {flags:?}", cmd.get_program());
    if let Some((_, earlier)) = built.iter().find(|(n, _)| n == name) {
        assert_eq!(
            *earlier, inputs,
            "two builds named {name} from different inputs"
        );
    } else {
        let o = cmd
            .args(flags)
            .arg(repo().join(source))
            .arg("-o")
            .arg(&out)
            .output()
            .expect("run the compiler wrapper");
        assert!(
            o.status.success(),
            "{inputs} failed:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        built.push((name.to_string(), inputs));
    }
    out
}

/// Builds the C++ program `source` with smpicxx `-O2` into a scratch
/// directory of its own, as `name`.
pub fn build_cxx(source: &str, name: &str) -> PathBuf {
    let dir = scratch().join(name);
    std::fs::create_dir_all(&dir).expect("create the program's directory");
    let o = with_env(Command::new(env!("CARGO_BIN_EXE_smpicxx")))
        .current_dir(&dir)
        .arg("-O2")
        .arg(repo().join(source))
        .args(["-o", name])
        .output()
        .expect("run smpicxx");
    assert!(
        o.status.success(),
        "smpicxx {source} failed:\n{}",
        stderr(&o)
    );
    dir.join(name)
}

/// Runs smpirun with `args` (the program and its arguments come last).
pub fn run(args: &[&str]) -> Output {
    smpirun().args(args).output().expect("run smpirun")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Deterministic runs: computation timing off.
/// Builds a self-checking test program and runs it on each of `nps` rank
/// counts with computation timing off: it must exit 0 and print
/// " No Errors".
pub fn assert_self_checks(source: &str, nps: &[&str]) {
    assert_self_checks_with(source, nps, &[]);
}

/// [`assert_self_checks`] with more smpirun options (`--cfg=...`).
pub fn assert_self_checks_with(source: &str, nps: &[&str], options: &[&str]) {
    let app = build(source);
    for np in nps {
        let mut args = vec!["-np", np, NO_COMPUTE];
        args.extend_from_slice(options);
        args.push(app.to_str().unwrap());
        let o = run(&args);
        assert!(
            o.status.success() && stdout(&o).contains(" No Errors"),
            "{source} on {np} ranks with {options:?}:\n{}{}",
            stdout(&o),
            stderr(&o)
        );
    }
}

pub const NO_COMPUTE: &str = "--cfg=smpi/simulate-computation:no";

/// Writes `text` to a file in the scratch directory, whole or not at all
/// as its readers see it: tests that run at once may write the same file
/// (a platform they share) while another's smpirun reads it, which then
/// found it empty. The text goes to a file of this writer's own first,
/// renamed over the name (a rename replaces a file atomically).
pub fn write_scratch(name: &str, text: &str) -> PathBuf {
    static WRITES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let p = scratch().join(name);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let part = scratch().join(format!("{name}.part{n}"));
    std::fs::write(&part, text).expect("write a scratch file");
    std::fs::rename(&part, &p).expect("rename a scratch file into place");
    p
}

/// The simulated time from smpirun's final line.
pub fn simulated_time(o: &Output) -> f64 {
    let err = stderr(o);
    let line = err
        .lines()
        .find(|l| l.starts_with("smpirun: simulated time"))
        .unwrap_or_else(|| panic!("no final line in:\n{err}"));
    line["smpirun: simulated time ".len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("bad final line: {line}"))
}

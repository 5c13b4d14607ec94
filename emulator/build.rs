//! Compiles the C helper for reductions on `long double` (a type Rust
//! does not have) and the C face of the interposed malloc family, and
//! records the git commit for `smpirun -version`.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=csrc/long_double.c");
    cc::Build::new()
        .file("csrc/long_double.c")
        .warnings(true)
        .compile("smpi_long_double");
    println!("cargo:rerun-if-changed=csrc/alloc_interpose.c");
    cc::Build::new()
        .file("csrc/alloc_interpose.c")
        // The compiler must not treat these definitions as the builtins
        // they replace.
        .flag("-fno-builtin")
        .warnings(true)
        .compile("smpi_alloc_interpose");
    println!("cargo:rerun-if-changed=csrc/pthread_interpose.c");
    cc::Build::new()
        .file("csrc/pthread_interpose.c")
        .warnings(true)
        .compile("smpi_pthread_interpose");
    record_git_hash();
    // smpirun exports its interposers of libc's functions
    // (src/abi/interpose.rs: keep the two lists the same), so that every
    // object of a rank's program binds to them.
    for name in [
        "gettimeofday",
        "clock_gettime",
        "time",
        "sleep",
        "usleep",
        "nanosleep",
        "clock_nanosleep",
        "clock",
        "rand",
        "random",
        "srand",
        "srandom",
        "drand48",
        "lrand48",
        "mrand48",
        "srand48",
        "strtok",
        "times",
        "getrusage",
        "sched_yield",
        "localtime",
        "gmtime",
        "asctime",
        "ctime",
        "seed48",
        "lcong48",
        "erand48",
        "nrand48",
        "jrand48",
        "pthread_create",
        "pthread_join",
        "pthread_tryjoin_np",
        "pthread_detach",
        "pthread_exit",
        "pthread_self",
        "pthread_mutex_init",
        "pthread_mutex_destroy",
        "pthread_mutex_lock",
        "pthread_mutex_trylock",
        "pthread_mutex_timedlock",
        "pthread_mutex_unlock",
        "pthread_cond_init",
        "pthread_cond_destroy",
        "pthread_cond_wait",
        "pthread_cond_timedwait",
        "pthread_cond_signal",
        "pthread_cond_broadcast",
        "pthread_rwlock_init",
        "pthread_rwlock_destroy",
        "pthread_rwlock_rdlock",
        "pthread_rwlock_tryrdlock",
        "pthread_rwlock_timedrdlock",
        "pthread_rwlock_wrlock",
        "pthread_rwlock_trywrlock",
        "pthread_rwlock_timedwrlock",
        "pthread_rwlock_unlock",
        "pthread_barrier_init",
        "pthread_barrier_destroy",
        "pthread_barrier_wait",
        "pthread_spin_init",
        "pthread_spin_destroy",
        "pthread_spin_lock",
        "pthread_spin_trylock",
        "pthread_spin_unlock",
        "pthread_once",
        "pthread_key_create",
        "pthread_key_delete",
        "pthread_getspecific",
        "pthread_setspecific",
        "sem_init",
        "sem_destroy",
        "sem_wait",
        "sem_trywait",
        "sem_timedwait",
        "sem_post",
        "sem_getvalue",
        "GOMP_parallel",
        "GOMP_parallel_sections",
        "GOMP_parallel_reductions",
        "GOMP_parallel_loop_static",
        "GOMP_parallel_loop_dynamic",
        "GOMP_parallel_loop_guided",
        "GOMP_parallel_loop_nonmonotonic_dynamic",
        "GOMP_parallel_loop_nonmonotonic_guided",
        "GOMP_parallel_loop_runtime",
        "GOMP_parallel_loop_nonmonotonic_runtime",
        "GOMP_parallel_loop_maybe_nonmonotonic_runtime",
        "getopt",
        "getopt_long",
        "getopt_long_only",
        "malloc",
        "calloc",
        "realloc",
        "free",
    ] {
        println!("cargo:rustc-link-arg-bin=smpirun=-Wl,--export-dynamic-symbol={name}");
    }
}

/// `git` run in this crate's directory, its output trimmed (None if git is
/// missing, fails, or says nothing).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Sets `SMPI_RS_GIT_HASH` to the short hash of HEAD, or `unknown` outside
/// a git checkout (a source tarball, a crate package).
fn record_git_hash() {
    let hash = git(&["rev-parse", "--short", "HEAD"]);
    println!(
        "cargo:rustc-env=SMPI_RS_GIT_HASH={}",
        hash.as_deref().unwrap_or("unknown")
    );
    if hash.is_none() {
        return;
    }
    // HEAD changes when another branch is checked out; the branch's ref
    // (in the shared git directory when this is a worktree) when a commit
    // is made on it. A branch whose ref is only in packed-refs has no file
    // of its own until it moves; packed-refs is watched instead.
    let mut watched = vec!["HEAD".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    watched.push("packed-refs".to_string());
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--path-format=absolute", "--git-path", &name])
            .map(PathBuf::from)
            .filter(|p| p.exists())
        {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

//! What the benchmark binaries share.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// A positive count on the command line (clap's value parser).
pub fn positive(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}

/// Builds the C benchmark `source` into `out` with `smpicc -O2` (ours or
/// SimGrid's), failing with the compiler's messages.
pub fn build_program(smpicc: &Path, source: &Path, out: &Path) -> Result<()> {
    let o = Command::new(smpicc)
        .arg("-O2")
        .arg("-o")
        .arg(out)
        .arg(source)
        .output()
        .with_context(|| format!("cannot run {}", smpicc.display()))?;
    if !o.status.success() {
        bail!(
            "{} failed on {}:\n{}",
            smpicc.display(),
            source.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Ok(())
}

/// What one run of a command cost.
pub struct Measured {
    pub wall: f64,
    /// CPU time in user and kernel mode, in seconds.
    pub user: f64,
    pub sys: f64,
    pub peak_kib: u64,
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
}

/// Runs `cmd` to completion and reads its wall time and peak resident set
/// (the kernel's `ru_maxrss` of that child alone, through `wait4`).
pub fn measure(cmd: &mut Command) -> Result<Measured> {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {cmd:?}"))?;
    let mut out = child.stdout.take().context("stdout")?;
    let mut err = child.stderr.take().context("stderr")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    let _ = out.read_to_string(&mut stdout);
    let stderr = reader.join().unwrap_or_default();
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (`Child::wait` is never
    // called); status and usage point to live locals.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if rc != pid {
        bail!("wait4 on {cmd:?}: {}", std::io::Error::last_os_error());
    }
    let wall = start.elapsed().as_secs_f64();
    let success = std::process::ExitStatus::from_raw(status).success();
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(Measured {
        wall,
        user: seconds(usage.ru_utime),
        sys: seconds(usage.ru_stime),
        peak_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        stdout,
        stderr,
        success,
    })
}

//! What the benchmark binaries share.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

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

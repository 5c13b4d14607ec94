//! Kernel models (`--cfg=smpi/blas:model`): the BLAS calls of an unmodified
//! program answered by a modelled duration instead of the arithmetic.
//!
//! A kernel's duration is a linear combination of terms of its dimensions,
//! in seconds of this machine: for dgemm `mnk`, `mn`, `mk`, `nk` and a
//! constant, since a product of thin matrices runs below the peak rate a
//! product of square ones reaches, and only the cubic term would get one of
//! them wrong. The coefficients come from a model file written by
//! `smpirun -calibrate-blas` (which times the machine's real BLAS).
//!
//! Those seconds become work on the rank's simulated host in one of two
//! ways (`smpi/blas-model-scale`, [`Scale`]):
//!
//! - `peak` (the default): in the simulated machine's terms. A call's
//!   efficiency on this machine is its flop rate here over this machine's
//!   peak (the best dgemm rate the calibration measured, the file's
//!   `[machine] peak`); on the simulated host it runs at that efficiency
//!   times the host's speed, so it is charged `seconds * peak` flops, and
//!   never fewer than its flop count: no kernel runs above the simulated
//!   host's speed, whatever this machine's vector units do. Kernels the
//!   file does not name run at the host's full speed (their flop count).
//!   Unless `smpi/host-speed` is set, this machine's speed is then the
//!   peak too, so that the seconds the program's own code and the
//!   function models spend here are charged in the same terms (a copy
//!   keeps its cost next to a dgemm's).
//! - `host-speed`: as `smpi_execute` charges measured code, scaled through
//!   `smpi/host-speed` (`seconds * host_speed` flops), so that a prediction
//!   with the models matches a plain run's, which measures the real BLAS
//!   the same way; a kernel then runs as many times above the simulated
//!   host's speed as this machine's BLAS beats `smpi/host-speed` (a
//!   vectorised dgemm: tens of times). Kernels the file does not name cost
//!   their flop count at `smpi/host-speed`.
//!
//! The model file is TOML, a `[machine]` table with the peak and one table
//! per kernel with its terms' coefficients and the fit's `r2`:
//!
//! ```toml
//! [machine]
//! peak = 6.2e10  # flop/s
//!
//! [dgemm]  # m, n, k
//! mnk = 2.1e-11
//! 1 = 1e-7
//! r2 = 0.9990
//! ```
//!
//! It is read through serde (`toml`), with every kernel and term name
//! checked against [`Kernel`]'s and errors naming the line; it is written
//! by hand, for the exponent form of the coefficients and the comments.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use toml::Spanned;

/// The modelled kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    Dgemm,
    Dtrsm,
    Dgemv,
    Dger,
    Dtrsv,
    Dscal,
    Daxpy,
    Dcopy,
    Dswap,
    Idamax,
    Ddot,
    Dnrm2,
    Dasum,
}

impl Kernel {
    pub const ALL: [Kernel; 13] = [
        Kernel::Dgemm,
        Kernel::Dtrsm,
        Kernel::Dgemv,
        Kernel::Dger,
        Kernel::Dtrsv,
        Kernel::Dscal,
        Kernel::Daxpy,
        Kernel::Dcopy,
        Kernel::Dswap,
        Kernel::Idamax,
        Kernel::Ddot,
        Kernel::Dnrm2,
        Kernel::Dasum,
    ];

    /// The BLAS name, without prefix or suffix.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Dgemm => "dgemm",
            Kernel::Dtrsm => "dtrsm",
            Kernel::Dgemv => "dgemv",
            Kernel::Dger => "dger",
            Kernel::Dtrsv => "dtrsv",
            Kernel::Dscal => "dscal",
            Kernel::Daxpy => "daxpy",
            Kernel::Dcopy => "dcopy",
            Kernel::Dswap => "dswap",
            Kernel::Idamax => "idamax",
            Kernel::Ddot => "ddot",
            Kernel::Dnrm2 => "dnrm2",
            Kernel::Dasum => "dasum",
        }
    }

    /// What the three dimensions of a call are, for the model file.
    pub fn dims_meaning(self) -> &'static str {
        match self {
            Kernel::Dgemm => "m, n, k",
            Kernel::Dtrsm => "m, n, t = the triangle's order (m if side=L else n)",
            Kernel::Dgemv | Kernel::Dger => "m, n",
            Kernel::Dtrsv => "n",
            _ => "n",
        }
    }

    /// The names of the model's terms.
    pub fn terms(self) -> &'static [&'static str] {
        match self {
            Kernel::Dgemm => &["mnk", "mn", "mk", "nk", "1"],
            Kernel::Dtrsm => &["mnt", "mn", "tt", "1"],
            Kernel::Dgemv | Kernel::Dger => &["mn", "m", "n", "1"],
            Kernel::Dtrsv => &["nn", "n", "1"],
            _ => &["n", "1"],
        }
    }

    /// The terms' values for a call of dimensions `d` (see
    /// [`Self::dims_meaning`]; unused dimensions are ignored).
    pub fn features(self, d: [f64; 3]) -> Vec<f64> {
        let [a, b, c] = d;
        match self {
            Kernel::Dgemm => vec![a * b * c, a * b, a * c, b * c, 1.0],
            Kernel::Dtrsm => vec![a * b * c, a * b, c * c, 1.0],
            Kernel::Dgemv | Kernel::Dger => vec![a * b, a, b, 1.0],
            Kernel::Dtrsv => vec![a * a, a, 1.0],
            _ => vec![a, 1.0],
        }
    }

    /// Floating-point operations per unit of the first term: the default
    /// model.
    fn flops_per_unit(self) -> f64 {
        match self {
            Kernel::Dgemm | Kernel::Dgemv | Kernel::Dger | Kernel::Daxpy | Kernel::Ddot => 2.0,
            Kernel::Dnrm2 => 2.0,
            _ => 1.0,
        }
    }

    /// Flops of a call, by the first term (for reports).
    pub fn flops(self, d: [f64; 3]) -> f64 {
        self.features(d)[0] * self.flops_per_unit()
    }

    fn index(self) -> usize {
        Kernel::ALL
            .iter()
            .position(|&k| k == self)
            .expect("every kernel is in ALL")
    }

    fn by_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.iter().copied().find(|k| k.name() == name)
    }
}

/// One kernel's model: coefficients of its terms, in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    pub coefs: Vec<f64>,
    /// Weighted coefficient of determination of the calibration (None: a
    /// default model).
    pub r2: Option<f64>,
}

impl Fit {
    /// Seconds for a call with these features (never negative).
    pub fn seconds(&self, features: &[f64]) -> f64 {
        let t: f64 = self.coefs.iter().zip(features).map(|(c, f)| c * f).sum();
        t.max(0.0)
    }
}

/// `smpi/blas-model-scale`: how a kernel's seconds of this machine become
/// work on a simulated host (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Peak,
    HostSpeed,
}

/// The models of all kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelModels {
    fits: Vec<Fit>,
    /// Flop/s that a second of a model stands for: this machine's peak, or
    /// `smpi/host-speed`.
    speed: f64,
    /// Whether a call is charged at least its flop count (peak scaling).
    at_most_peak: bool,
}

/// A model file that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModelFileError {
    #[error("line {line}: '{kernel}' is not a modelled kernel (known: {known})")]
    UnknownKernel {
        line: usize,
        kernel: String,
        known: String,
    },
    #[error("line {line}: {kernel} has no term '{term}' (its terms: {terms})")]
    UnknownTerm {
        line: usize,
        kernel: String,
        term: String,
        terms: String,
    },
    #[error("line {line}: {kernel}'s {term} is not a finite number of seconds")]
    NotFinite {
        line: usize,
        kernel: String,
        term: String,
    },
    #[error("line {line}: [{kernel}] gives none of its terms ({terms})")]
    NoTerms {
        line: usize,
        kernel: String,
        terms: String,
    },
    #[error("line {line}: [machine] has no '{key}' (it gives peak, in flop/s)")]
    UnknownMachineKey { line: usize, key: String },
    #[error("line {line}: [machine]'s peak is not a positive finite number of flop/s")]
    BadPeak { line: usize },
    /// Peak scaling without a peak: a file written by hand, or by an
    /// smpi-rs before the peak was recorded.
    #[error(
        "it gives no [machine] peak, which smpi/blas-model-scale:peak (the default) needs: \
         regenerate the file with `smpirun -calibrate-blas FILE`, add the lines [machine] and \
         peak = FLOPS (this machine's best dgemm rate), or charge the models as measured code \
         with --cfg=smpi/blas-model-scale:host-speed"
    )]
    NoPeak,
    /// Not TOML, or not tables of numbers (toml's message).
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    /// A file of the one-line-per-kernel format that smpi-rs wrote before
    /// the TOML one.
    #[error(
        "line {line}: '{text}' is the model-file format of earlier smpi-rs versions; regenerate \
         the file with `smpirun -calibrate-blas FILE` (about a second), or write each kernel as \
         a TOML table: a line [dgemm], then one line per term, such as mnk = 1e-11"
    )]
    OldFormat { line: usize, text: String },
}

/// A model file as serde reads it: kernel tables of term = seconds, each
/// name with its place in the text (for the line of an error). Maps, not
/// derived structs, since the names are checked against [`Kernel`]'s.
type Tables = BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<f64>>>;

/// The line (from 1) of byte offset `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The first line of `text` that reads as the old format's
/// `KERNEL TERM=SECONDS...`, if its first record does.
fn old_format_line(text: &str) -> Option<(usize, &str)> {
    let (i, line) = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i, l.split('#').next().unwrap_or("").trim()))
        .find(|(_, l)| !l.is_empty())?;
    let mut words = line.split_whitespace();
    let kernel = words.next()?;
    // `TERM=SECONDS` without spaces: `dgemm = 5` is TOML (of a wrong type).
    let pair = words
        .next()?
        .split_once('=')
        .is_some_and(|(term, value)| !term.is_empty() && !value.is_empty());
    (Kernel::by_name(kernel).is_some() && pair).then_some((i + 1, line))
}

impl KernelModels {
    /// Every kernel at its flop count: a call is charged its flops, which
    /// the simulated host runs at its speed.
    pub fn flop_counts() -> KernelModels {
        KernelModels::at_speed(1.0, false)
    }

    /// Every kernel at its flop count, a second of a model standing for
    /// `speed` flops.
    fn at_speed(speed: f64, at_most_peak: bool) -> KernelModels {
        let fits = Kernel::ALL
            .iter()
            .map(|k| {
                let mut coefs = vec![0.0; k.terms().len()];
                coefs[0] = k.flops_per_unit() / speed;
                Fit { coefs, r2: None }
            })
            .collect();
        KernelModels {
            fits,
            speed,
            at_most_peak,
        }
    }

    /// Seconds of this machine that `kernel` takes on dimensions `d`.
    pub fn seconds(&self, kernel: Kernel, d: [f64; 3]) -> f64 {
        self.fits[kernel.index()].seconds(&kernel.features(d))
    }

    /// The work a call of `kernel` on dimensions `d` is charged on the
    /// rank's host, in flops (see [`Scale`]).
    pub fn work(&self, kernel: Kernel, d: [f64; 3]) -> f64 {
        let work = self.seconds(kernel, d) * self.speed;
        if self.at_most_peak {
            work.max(kernel.flops(d))
        } else {
            work
        }
    }

    pub fn fit(&self, kernel: Kernel) -> &Fit {
        &self.fits[kernel.index()]
    }
}

/// A model file as read: this machine's peak, if it gives one, and the
/// kernels it models.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFile {
    peak: Option<f64>,
    fits: Vec<(Kernel, Fit)>,
}

impl ModelFile {
    /// The machine's peak the file gives (flop/s).
    pub fn peak(&self) -> Option<f64> {
        self.peak
    }

    /// The models of the file over the flop-count defaults, scaled by
    /// `scale` (`host_speed`: `smpi/host-speed`).
    pub fn models(self, scale: Scale, host_speed: f64) -> Result<KernelModels, ModelFileError> {
        let mut models = match scale {
            Scale::HostSpeed => KernelModels::at_speed(host_speed, false),
            Scale::Peak => KernelModels::at_speed(self.peak.ok_or(ModelFileError::NoPeak)?, true),
        };
        for (kernel, fit) in self.fits {
            models.fits[kernel.index()] = fit;
        }
        Ok(models)
    }

    /// Reads a model file. A kernel's table gives the terms it uses; the
    /// others are 0.
    pub fn parse(text: &str) -> Result<ModelFile, ModelFileError> {
        let tables: Tables = toml::from_str(text).map_err(|e| match old_format_line(text) {
            Some((line, old)) => ModelFileError::OldFormat {
                line,
                text: old.to_owned(),
            },
            None => ModelFileError::Syntax {
                line: e.span().map_or(1, |s| line_of(text, s.start)),
                message: e.message().trim_end().to_owned(),
            },
        })?;
        // In the order of the file, so that the first mistake is reported.
        let mut tables: Vec<_> = tables.into_iter().collect();
        tables.sort_by_key(|(name, _)| name.span().start);
        let mut peak = None;
        let mut fits = Vec::new();
        for (name, entries) in tables {
            let line = line_of(text, name.span().start);
            let name = name.into_inner();
            if name == "machine" {
                for (key, value) in entries {
                    let line = line_of(text, key.span().start);
                    if key.get_ref() != "peak" {
                        return Err(ModelFileError::UnknownMachineKey {
                            line,
                            key: key.into_inner(),
                        });
                    }
                    let value = value.into_inner();
                    if !(value.is_finite() && value > 0.0) {
                        return Err(ModelFileError::BadPeak { line });
                    }
                    peak = Some(value);
                }
                continue;
            }
            let kernel = Kernel::by_name(&name).ok_or_else(|| ModelFileError::UnknownKernel {
                line,
                kernel: name.clone(),
                known: Kernel::ALL.map(Kernel::name).join(", "),
            })?;
            let mut fit = Fit {
                coefs: vec![0.0; kernel.terms().len()],
                r2: None,
            };
            let mut entries: Vec<_> = entries.into_iter().collect();
            entries.sort_by_key(|(term, _)| term.span().start);
            let mut any = false;
            for (term, value) in entries {
                let line = line_of(text, term.span().start);
                let (term, value) = (term.into_inner(), value.into_inner());
                if term == "r2" {
                    fit.r2 = Some(value);
                    continue;
                }
                let at = kernel
                    .terms()
                    .iter()
                    .position(|&t| t == term)
                    .ok_or_else(|| ModelFileError::UnknownTerm {
                        line,
                        kernel: name.clone(),
                        term: term.clone(),
                        terms: kernel.terms().join(", "),
                    })?;
                if !value.is_finite() {
                    return Err(ModelFileError::NotFinite {
                        line,
                        kernel: name,
                        term,
                    });
                }
                fit.coefs[at] = value;
                any = true;
            }
            if !any {
                return Err(ModelFileError::NoTerms {
                    line,
                    kernel: name,
                    terms: kernel.terms().join(", "),
                });
            }
            fits.push((kernel, fit));
        }
        Ok(ModelFile { peak, fits })
    }

    /// The model file for `fits` (kernels without a fit are left out) on a
    /// machine of `peak` flop/s.
    pub fn format(fits: &[(Kernel, Fit)], peak: f64, provenance: &str) -> String {
        // TOML floats: exponent form for the coefficients (Rust's shortest
        // round-trip digits), nan and inf spelled TOML's way.
        let float = |x: f64, exp: bool| match x {
            x if x.is_nan() => "nan".to_owned(),
            x if exp => format!("{x:e}"),
            x => format!("{x:.4}"),
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# smpi-rs kernel models: seconds of the machine calibrated ({provenance})\n\
             # = the sum of each term's coefficient times its value for the call;\n\
             # r2 is the fit's (relative-error weighted) coefficient of determination.\n\n\
             [machine]\n\
             peak = {}  # flop/s: the best dgemm rate measured",
            float(peak, true)
        );
        for (k, f) in fits {
            let _ = writeln!(s, "\n[{}]  # {}", k.name(), k.dims_meaning());
            for (term, &c) in k.terms().iter().zip(&f.coefs) {
                let _ = writeln!(s, "{term} = {}", float(c, true));
            }
            if let Some(r2) = f.r2 {
                let _ = writeln!(s, "r2 = {}", float(r2, false));
            }
        }
        s
    }
}

/// Weighted least squares for `t = sum of coefs * features`, each sample
/// weighted by 1/t: between absolute errors (which let the few big calls
/// decide, and give the many tiny calls of a program such as HPL's
/// recursive panel factorization a large constant) and relative ones
/// (which let the tiny calls decide). Returns the fit with its weighted
/// coefficient of determination.
pub fn least_squares(samples: &[(Vec<f64>, f64)]) -> Fit {
    let p = samples.first().map_or(0, |(f, _)| f.len());
    // Columns scaled to unit size so that mnk (10^8) and 1 solve together.
    let mut scale = vec![0.0f64; p];
    for (f, _) in samples {
        for (s, v) in scale.iter_mut().zip(f) {
            *s = s.max(v.abs());
        }
    }
    for s in &mut scale {
        if *s == 0.0 {
            *s = 1.0;
        }
    }
    let mut ata = vec![vec![0.0; p]; p];
    let mut atb = vec![0.0; p];
    let mut wsum = 0.0;
    let mut wy = 0.0;
    for (f, y) in samples {
        if *y <= 0.0 {
            continue;
        }
        let w = 1.0 / y;
        wsum += w;
        wy += w * y;
        for i in 0..p {
            let fi = f[i] / scale[i];
            atb[i] += w * fi * y;
            for j in 0..p {
                ata[i][j] += w * fi * f[j] / scale[j];
            }
        }
    }
    let coefs: Vec<f64> = match solve(ata, atb) {
        Some(x) => x.iter().zip(&scale).map(|(c, s)| c / s).collect(),
        None => vec![0.0; p],
    };
    let fit = Fit { coefs, r2: None };
    let mean = if wsum > 0.0 { wy / wsum } else { 0.0 };
    let (mut res, mut tot) = (0.0, 0.0);
    for (f, y) in samples.iter().filter(|(_, y)| *y > 0.0) {
        let w = 1.0 / y;
        res += w * (y - fit.seconds(f)).powi(2);
        tot += w * (y - mean).powi(2);
    }
    Fit {
        r2: Some(if tot > 0.0 { 1.0 - res / tot } else { 1.0 }),
        ..fit
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (top, rest) = a.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (i, row) in rest.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (v, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *v -= f * p;
            }
            b[col + 1 + i] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}

/// The median of |model - measure| / measure over `samples`.
pub fn median_relative_error(fit: &Fit, samples: &[(Vec<f64>, f64)]) -> f64 {
    let mut errs: Vec<f64> = samples
        .iter()
        .filter(|(_, y)| *y > 0.0)
        .map(|(f, y)| (fit.seconds(f) - y).abs() / y)
        .collect();
    if errs.is_empty() {
        return f64::NAN;
    }
    errs.sort_by(f64::total_cmp);
    errs[errs.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, scale: Scale, host_speed: f64) -> Result<KernelModels, ModelFileError> {
        ModelFile::parse(text)?.models(scale, host_speed)
    }

    #[test]
    fn defaults_are_flop_counts() {
        let m = KernelModels::flop_counts();
        assert_eq!(m.work(Kernel::Dgemm, [100.0, 100.0, 100.0]), 2e6);
        assert_eq!(m.work(Kernel::Dtrsm, [100.0, 100.0, 100.0]), 1e6);
        // Kernels a file does not name, under either scaling.
        let file = "[machine]\npeak = 4e10\n[dscal]\nn = 1e-9\n";
        for scale in [Scale::Peak, Scale::HostSpeed] {
            let m = parse(file, scale, 1e9).unwrap();
            assert_eq!(m.work(Kernel::Dgemm, [100.0, 100.0, 100.0]), 2e6);
        }
    }

    #[test]
    fn peak_scaling_charges_this_machine_s_efficiency_and_never_beats_the_host() {
        // This machine: 1e10 flop/s at best. A dgemm at 5e9 flop/s here (half
        // the peak) runs at half the simulated host's speed: twice its flops.
        let text = "[machine]\npeak = 1e10\n[dgemm]\nmnk = 4e-10\n[dscal]\nn = 1e-11\n";
        let m = parse(text, Scale::Peak, 1e9).unwrap();
        let d = [10.0, 20.0, 30.0];
        assert_eq!(m.work(Kernel::Dgemm, d), 2.0 * Kernel::Dgemm.flops(d));
        // dscal at 1e11 flop/s here, above the peak: its flop count, the
        // host's full speed, no more.
        assert_eq!(m.work(Kernel::Dscal, [1e3, 0.0, 0.0]), 1e3);
        // Measured-code scaling: seconds times smpi/host-speed, above the
        // host's speed when this machine's BLAS is faster than that.
        let m = parse(text, Scale::HostSpeed, 1e9).unwrap();
        assert_eq!(m.work(Kernel::Dgemm, d), 4e-10 * 6000.0 * 1e9);
        assert_eq!(m.work(Kernel::Dscal, [1e3, 0.0, 0.0]), 1e-8 * 1e9);
    }

    #[test]
    fn peak_scaling_needs_the_machine_s_peak() {
        let text = "[dgemm]\nmnk = 4e-10\n";
        let e = parse(text, Scale::Peak, 1e9).unwrap_err();
        assert_eq!(e, ModelFileError::NoPeak);
        assert!(
            e.to_string().contains("smpirun -calibrate-blas FILE"),
            "{e}"
        );
        assert!(
            e.to_string().contains("smpi/blas-model-scale:host-speed"),
            "{e}"
        );
        assert!(parse(text, Scale::HostSpeed, 1e9).is_ok());
        let e = parse("[machine]\npeak = 0\n", Scale::Peak, 1e9).unwrap_err();
        assert_eq!(e, ModelFileError::BadPeak { line: 2 });
        let e = parse("[machine]\nspeed = 1e9\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 2: [machine] has no 'speed'"),
            "{e}"
        );
    }

    #[test]
    fn a_file_overrides_some_kernels() {
        let text = "# comment\n\n[dgemm]  # m, n, k\nmnk = 1e-11\n1 = 2e-6\nr2 = 0.999\n\n\
                    [dscal]\nn = 1e-9\n1 = -5e-7\n";
        let m = parse(text, Scale::HostSpeed, 1e9).unwrap();
        let t = m.seconds(Kernel::Dgemm, [100.0, 100.0, 100.0]);
        assert!((t - (1e-5 + 2e-6)).abs() < 1e-18, "{t}");
        assert_eq!(m.fit(Kernel::Dgemm).r2, Some(0.999));
        assert_eq!(
            m.seconds(Kernel::Dscal, [10.0, 0.0, 0.0]),
            0.0,
            "never negative"
        );
        assert_eq!(
            m.seconds(Kernel::Dgemv, [1e3, 1e3, 0.0]),
            2e-3,
            "default kept"
        );
        // Integers are numbers of seconds too.
        let m = parse("[dscal]\nn = 0\n1 = 1\n", Scale::HostSpeed, 1e9).unwrap();
        assert_eq!(m.fit(Kernel::Dscal).coefs, [0.0, 1.0]);
    }

    #[test]
    fn what_is_written_reads_back() {
        let fits = [
            (
                Kernel::Dgemm,
                Fit {
                    coefs: vec![2.0539e-11, -1e-300, 0.0, 1.5e-10, 7.25e-7],
                    r2: Some(0.999),
                },
            ),
            (
                Kernel::Idamax,
                Fit {
                    coefs: vec![1.0 / 3.0, 1e-9],
                    r2: Some(f64::NAN),
                },
            ),
            (
                Kernel::Dscal,
                Fit {
                    coefs: vec![1e-9, 0.0],
                    r2: None,
                },
            ),
        ];
        let text = ModelFile::format(&fits, 6.2e10, "test");
        assert!(
            text.contains("\n[dgemm]  # m, n, k\nmnk = 2.0539e-11\n"),
            "{text}"
        );
        assert!(
            text.contains("\n[machine]\npeak = 6.2e10  # flop/s"),
            "{text}"
        );
        let back = parse(&text, Scale::Peak, 1e9).unwrap();
        assert_eq!(back.fit(Kernel::Dgemm), &fits[0].1);
        assert_eq!(back.fit(Kernel::Idamax).coefs, fits[1].1.coefs);
        assert!(back.fit(Kernel::Idamax).r2.unwrap().is_nan());
        assert_eq!(back.fit(Kernel::Dscal), &fits[2].1);
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = parse(
            "[dgemm]\nmnk = 1e-11\n\n[zgemm]\nn = 1\n",
            Scale::HostSpeed,
            1e9,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("line 4: 'zgemm'"), "{e}");
        let e = parse("[dgemm]\nmnk = \"fast\"\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(
            matches!(&e, ModelFileError::Syntax { line: 2, message } if message.contains("f64")),
            "{e}"
        );
        let e = parse("[dscal]\n1 = 0\nmnk = 1\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("line 3: dscal has no term 'mnk' (its terms: n, 1)"),
            "{e}"
        );
        let e = parse("[dscal]\nn = inf\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(e.to_string().starts_with("line 2: dscal's n"), "{e}");
        let e = parse("\n[dscal]\nr2 = 1\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(
            e.to_string().starts_with("line 2: [dscal] gives none"),
            "{e}"
        );
        let e = parse("dgemm = 5\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(matches!(e, ModelFileError::Syntax { line: 1, .. }), "{e}");
        let e = parse("[dscal\n", Scale::HostSpeed, 1e9).unwrap_err();
        assert!(matches!(e, ModelFileError::Syntax { line: 1, .. }), "{e}");
    }

    #[test]
    fn files_of_the_old_format_say_how_to_regenerate() {
        let old = "# smpi-rs kernel models\ndgemm mnk=1e-11 1=2e-6 r2=0.999   # m, n, k\n";
        let e = parse(old, Scale::HostSpeed, 1e9).unwrap_err();
        assert_eq!(
            e,
            ModelFileError::OldFormat {
                line: 2,
                text: "dgemm mnk=1e-11 1=2e-6 r2=0.999".into()
            }
        );
        assert!(
            e.to_string().contains("smpirun -calibrate-blas FILE"),
            "{e}"
        );
    }

    #[test]
    fn least_squares_recovers_the_terms() {
        // t = 2e-11 mnk + 3e-10 (mn + mk + nk) + 1e-7, exactly.
        let mut pts = Vec::new();
        for &(m, n, k) in &[
            (1., 1., 1.),
            (10., 3., 7.),
            (100., 50., 2.),
            (300., 300., 300.),
            (5., 400., 80.),
            (64., 64., 512.),
            (2., 2., 200.),
            (128., 9., 9.),
        ] {
            let f = Kernel::Dgemm.features([m, n, k]);
            let t = 2e-11 * f[0] + 3e-10 * (f[1] + f[2] + f[3]) + 1e-7;
            pts.push((f, t));
        }
        let fit = least_squares(&pts);
        for (c, want) in fit.coefs.iter().zip([2e-11, 3e-10, 3e-10, 3e-10, 1e-7]) {
            assert!((c - want).abs() < want * 1e-6, "{:?}", fit.coefs);
        }
        assert!((fit.r2.unwrap() - 1.0).abs() < 1e-9);
        assert!(median_relative_error(&fit, &pts) < 1e-6);
    }
}

//! Kernel models (`--cfg=smpi/blas:model`): the BLAS calls of an unmodified
//! program answered by a modelled duration instead of the arithmetic.
//!
//! A kernel's duration is a linear combination of terms of its dimensions,
//! in seconds of this machine: for dgemm `mnk`, `mn`, `mk`, `nk` and a
//! constant, since a product of thin matrices runs below the peak rate a
//! product of square ones reaches, and only the cubic term would get one of
//! them wrong. The seconds are charged as `smpi_execute` charges them:
//! scaled to the rank's host through `smpi/host-speed`, so that a prediction
//! with the models matches one that measures the real BLAS. The
//! coefficients come from a model file written by `smpirun -calibrate-blas`
//! (which times the machine's real BLAS); kernels the file does not name
//! cost their flop count at `smpi/host-speed`.

use std::fmt::Write as _;

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

/// The models of all kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelModels {
    fits: Vec<Fit>,
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
    #[error("line {line}: expected `KERNEL TERM=SECONDS... [r2=R]`, found '{text}'")]
    Malformed { line: usize, text: String },
}

impl KernelModels {
    /// Every kernel at its flop count, at `host_speed` flop/s.
    pub fn flop_counts(host_speed: f64) -> KernelModels {
        let fits = Kernel::ALL
            .iter()
            .map(|k| {
                let mut coefs = vec![0.0; k.terms().len()];
                coefs[0] = k.flops_per_unit() / host_speed;
                Fit { coefs, r2: None }
            })
            .collect();
        KernelModels { fits }
    }

    /// Reads a model file over the flop-count defaults. A kernel's line
    /// gives the terms it uses; the others are 0.
    pub fn parse(text: &str, host_speed: f64) -> Result<KernelModels, ModelFileError> {
        let mut models = KernelModels::flop_counts(host_speed);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let malformed = || ModelFileError::Malformed {
                line: i + 1,
                text: raw.trim().to_owned(),
            };
            let mut words = line.split_whitespace();
            let name = words.next().ok_or_else(malformed)?;
            let kernel = Kernel::by_name(name).ok_or_else(|| ModelFileError::UnknownKernel {
                line: i + 1,
                kernel: name.to_owned(),
                known: Kernel::ALL.map(Kernel::name).join(", "),
            })?;
            let mut fit = Fit {
                coefs: vec![0.0; kernel.terms().len()],
                r2: None,
            };
            let mut any = false;
            for word in words {
                let (term, value) = word.split_once('=').ok_or_else(malformed)?;
                let value: f64 = value.parse().map_err(|_| malformed())?;
                if term == "r2" {
                    fit.r2 = Some(value);
                    continue;
                }
                if !value.is_finite() {
                    return Err(malformed());
                }
                let at = kernel
                    .terms()
                    .iter()
                    .position(|&t| t == term)
                    .ok_or_else(|| ModelFileError::UnknownTerm {
                        line: i + 1,
                        kernel: name.to_owned(),
                        term: term.to_owned(),
                        terms: kernel.terms().join(", "),
                    })?;
                fit.coefs[at] = value;
                any = true;
            }
            if !any {
                return Err(malformed());
            }
            models.fits[kernel.index()] = fit;
        }
        Ok(models)
    }

    /// The model file for `fits` (kernels without a fit are left out).
    pub fn format(fits: &[(Kernel, Fit)], provenance: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# smpi-rs kernel models: seconds of the machine calibrated ({provenance})\n\
             # = the sum of each term's coefficient times its value for the call;\n\
             # r2 is the fit's (relative-error weighted) coefficient of determination."
        );
        for (k, f) in fits {
            let _ = write!(s, "{}", k.name());
            for (term, c) in k.terms().iter().zip(&f.coefs) {
                let _ = write!(s, " {term}={c:e}");
            }
            let _ = writeln!(
                s,
                " r2={:.4}   # {}",
                f.r2.unwrap_or(f64::NAN),
                k.dims_meaning()
            );
        }
        s
    }

    /// Seconds of this machine that `kernel` takes on dimensions `d`.
    pub fn seconds(&self, kernel: Kernel, d: [f64; 3]) -> f64 {
        self.fits[kernel.index()].seconds(&kernel.features(d))
    }

    pub fn fit(&self, kernel: Kernel) -> &Fit {
        &self.fits[kernel.index()]
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

    #[test]
    fn defaults_are_flop_counts() {
        let m = KernelModels::flop_counts(1e9);
        assert_eq!(m.seconds(Kernel::Dgemm, [100.0, 100.0, 100.0]), 2e-3);
        assert_eq!(m.seconds(Kernel::Dtrsm, [100.0, 100.0, 100.0]), 1e-3);
    }

    #[test]
    fn a_file_overrides_some_kernels() {
        let text = "# comment\n\ndgemm mnk=1e-11 1=2e-6 r2=0.999 # m, n, k\ndscal n=1e-9 1=-5e-7\n";
        let m = KernelModels::parse(text, 1e9).unwrap();
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
        let back = KernelModels::parse(
            &KernelModels::format(&[(Kernel::Dgemm, m.fit(Kernel::Dgemm).clone())], "test"),
            1e9,
        )
        .unwrap();
        assert_eq!(back.fit(Kernel::Dgemm), m.fit(Kernel::Dgemm));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = KernelModels::parse("dgemm mnk=1e-11\nzgemm n=1\n", 1e9).unwrap_err();
        assert!(e.to_string().starts_with("line 2: 'zgemm'"), "{e}");
        let e = KernelModels::parse("dgemm mnk=fast\n", 1e9).unwrap_err();
        assert_eq!(
            e,
            ModelFileError::Malformed {
                line: 1,
                text: "dgemm mnk=fast".into()
            }
        );
        let e = KernelModels::parse("dscal mnk=1\n", 1e9).unwrap_err();
        assert!(
            e.to_string()
                .contains("dscal has no term 'mnk' (its terms: n, 1)"),
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

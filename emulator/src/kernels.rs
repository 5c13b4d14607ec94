//! Kernel models (`--cfg=smpi/blas:model`): the BLAS calls of an unmodified
//! program answered by a modelled duration instead of the arithmetic.
//!
//! Each kernel costs `a * size + b` seconds of this machine's time, where
//! `size` is the kernel's natural product (m*n*k for dgemm, m*n*m or m*n*n
//! for dtrsm by side, m*n for the level-2 kernels, n*n for dtrsv, n for
//! level 1). The seconds are charged as `smpi_execute` charges them: scaled
//! to the rank's host through `smpi/host-speed`, so that a prediction with
//! the models matches one that measures the real BLAS. The coefficients come
//! from a model file written by `smpirun -calibrate-blas` (which times the
//! machine's real BLAS); kernels the file does not name cost their flop
//! count at `smpi/host-speed`.

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

    /// What `size` counts, for the model file's header.
    pub fn size_meaning(self) -> &'static str {
        match self {
            Kernel::Dgemm => "m*n*k",
            Kernel::Dtrsm => "m*n*(m if side=L else n)",
            Kernel::Dgemv | Kernel::Dger => "m*n",
            Kernel::Dtrsv => "n*n",
            _ => "n",
        }
    }

    /// Floating-point operations per unit of size: the default model.
    fn flops_per_unit(self) -> f64 {
        match self {
            Kernel::Dgemm | Kernel::Dgemv | Kernel::Dger | Kernel::Daxpy | Kernel::Ddot => 2.0,
            Kernel::Dnrm2 => 2.0,
            _ => 1.0,
        }
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

/// One kernel's model: `a * size + b` seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    pub a: f64,
    pub b: f64,
    /// Coefficient of determination of the calibration (None: a default).
    pub r2: Option<f64>,
}

/// The models of all kernels.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelModels {
    fits: [Fit; 13],
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
    #[error("line {line}: expected `KERNEL A B [R2]` with numbers, found '{text}'")]
    Malformed { line: usize, text: String },
}

impl KernelModels {
    /// Every kernel at its flop count, at `host_speed` flop/s.
    pub fn flop_counts(host_speed: f64) -> KernelModels {
        let fits = Kernel::ALL.map(|k| Fit {
            a: k.flops_per_unit() / host_speed,
            b: 0.0,
            r2: None,
        });
        KernelModels { fits }
    }

    /// Reads a model file over the flop-count defaults.
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
            let nums: Vec<f64> = words
                .map(|w| w.parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|_| malformed())?;
            let (a, b) = match nums[..] {
                [a, b] | [a, b, _] if a.is_finite() && b.is_finite() && a >= 0.0 => (a, b),
                _ => return Err(malformed()),
            };
            models.fits[kernel.index()] = Fit {
                a,
                b,
                r2: nums.get(2).copied(),
            };
        }
        Ok(models)
    }

    /// The model file for `fits` (kernels without a fit are left out).
    pub fn format(fits: &[(Kernel, Fit)], provenance: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# smpi-rs kernel models: seconds = A * size + B on the machine calibrated\n\
             # ({provenance}); R2 is the fit's coefficient of determination.\n\
             # kernel  A  B  R2   (size)"
        );
        for (k, f) in fits {
            let _ = writeln!(
                s,
                "{} {:e} {:e} {:.4}   # size = {}",
                k.name(),
                f.a,
                f.b,
                f.r2.unwrap_or(f64::NAN),
                k.size_meaning()
            );
        }
        s
    }

    /// Seconds of this machine that `kernel` takes on `size`.
    pub fn seconds(&self, kernel: Kernel, size: f64) -> f64 {
        let f = self.fits[kernel.index()];
        (f.a * size + f.b).max(0.0)
    }

    pub fn fit(&self, kernel: Kernel) -> Fit {
        self.fits[kernel.index()]
    }
}

/// Least-squares fit of `t = a * x + b` with its coefficient of
/// determination.
pub fn least_squares(samples: &[(f64, f64)]) -> Fit {
    let n = samples.len() as f64;
    let (sx, sy) = samples
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / n, sy / n);
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in samples {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
        syy += (y - my) * (y - my);
    }
    let a = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let b = my - a * mx;
    let ss_res: f64 = samples.iter().map(|&(x, y)| (y - a * x - b).powi(2)).sum();
    let r2 = if syy > 0.0 { 1.0 - ss_res / syy } else { 1.0 };
    Fit {
        a: a.max(0.0),
        b,
        r2: Some(r2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_flop_counts() {
        let m = KernelModels::flop_counts(1e9);
        assert_eq!(m.seconds(Kernel::Dgemm, 1e6), 2e-3);
        assert_eq!(m.seconds(Kernel::Dtrsm, 1e6), 1e-3);
    }

    #[test]
    fn a_file_overrides_some_kernels() {
        let text = "# comment\n\ndgemm 1e-11 2e-6 0.999 # size = m*n*k\ndscal 1e-9 -5e-7\n";
        let m = KernelModels::parse(text, 1e9).unwrap();
        assert!((m.seconds(Kernel::Dgemm, 1e6) - (1e-5 + 2e-6)).abs() < 1e-18);
        assert_eq!(m.fit(Kernel::Dgemm).r2, Some(0.999));
        assert_eq!(m.seconds(Kernel::Dscal, 10.0), 0.0, "never negative");
        assert_eq!(m.seconds(Kernel::Dgemv, 1e6), 2e-3, "default kept");
        let back = KernelModels::parse(
            &KernelModels::format(&[(Kernel::Dgemm, m.fit(Kernel::Dgemm))], "test"),
            1e9,
        )
        .unwrap();
        assert_eq!(back.fit(Kernel::Dgemm), m.fit(Kernel::Dgemm));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = KernelModels::parse("dgemm 1e-11 2e-6\nzgemm 1 2\n", 1e9).unwrap_err();
        assert!(e.to_string().starts_with("line 2: 'zgemm'"), "{e}");
        let e = KernelModels::parse("dgemm fast\n", 1e9).unwrap_err();
        assert_eq!(
            e,
            ModelFileError::Malformed {
                line: 1,
                text: "dgemm fast".into()
            }
        );
    }

    #[test]
    fn least_squares_recovers_a_line() {
        let pts: Vec<(f64, f64)> = (1..20).map(|i| (i as f64, 3.0 * i as f64 + 0.5)).collect();
        let f = least_squares(&pts);
        assert!((f.a - 3.0).abs() < 1e-12 && (f.b - 0.5).abs() < 1e-9);
        assert!((f.r2.unwrap() - 1.0).abs() < 1e-12);
    }
}

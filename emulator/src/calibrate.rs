//! `smpirun -calibrate-blas FILE`: times the machine's real BLAS on random
//! sizes and fits each kernel's model (`crate::kernels`), written to FILE
//! as TOML, which runs with `--cfg=smpi/blas:model
//! --cfg=smpi/blas-model-file:FILE` then charge.
//!
//! The Fortran interface (`dgemm_`...) is called directly, single-threaded
//! (`OPENBLAS_NUM_THREADS=1` unless set: each simulated rank is one core).
//! Sizes are drawn log-uniformly with a fixed seed; each point is the best
//! of three timings of enough calls to last 50 microseconds, and the fit
//! weighs relative errors (see `kernels::least_squares`). The best rate
//! measured (with a 1024^3 dgemm's) is the file's `[machine] peak`, by
//! which peak scaling measures each call's efficiency.

use std::ffi::{c_char, c_int};
use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use privatize::ForeignLibrary;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::kernels::{least_squares, median_relative_error, Fit, Kernel, ModelFile};

/// Where to look for a BLAS when none is named.
const DEFAULT_LIBRARIES: &[&str] = &["libopenblas.so.0", "libblas.so.3", "libopenblas.so"];

/// Points fitted per kernel.
const SAMPLES: usize = 60;

/// The calibration's random sizes, from a seeded generator (which one
/// matters little: sizes only need to spread; xoshiro256++ from
/// `rand_xoshiro` as everywhere in the workspace).
struct Sizes(Xoshiro256PlusPlus);

impl Sizes {
    /// Uniform in [0, 1): the top 53 bits as a fraction.
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Log-uniform in [lo, hi].
    fn size(&mut self, lo: usize, hi: usize) -> c_int {
        let (l, h) = ((lo as f64).ln(), (hi as f64).ln());
        (l + (h - l) * self.unit()).exp().round() as c_int
    }
}

/// Seconds per call of `f`: best of three batches of at least 50 us.
fn time(mut f: impl FnMut()) -> f64 {
    f();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let (mut calls, start) = (0u32, Instant::now());
        loop {
            f();
            calls += 1;
            if start.elapsed().as_secs_f64() > 50e-6 {
                break;
            }
        }
        best = best.min(start.elapsed().as_secs_f64() / f64::from(calls));
    }
    best
}

type F = *mut std::ffi::c_void;

/// The Fortran BLAS `dgemm_`.
type Dgemm = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const c_int,
    *const c_int,
    *const c_int,
    *const f64,
    *const f64,
    *const c_int,
    *const f64,
    *const c_int,
    *const f64,
    *mut f64,
    *const c_int,
);

/// C += A B for column-major A (m x k), B (k x n) and C (m x n), each with
/// its row count as leading dimension.
///
/// # Safety
/// `g` is a BLAS's `dgemm_`; `a`, `b` and `c` hold at least m k, k n and
/// m n elements.
unsafe fn dgemm(g: Dgemm, [m, n, k]: [c_int; 3], a: *const f64, b: *const f64, c: *mut f64) {
    let (one, no) = (1.0f64, b"N".as_ptr().cast());
    // SAFETY: the caller's guarantees, with dgemm_'s arguments by address.
    unsafe { g(no, no, &m, &n, &k, &one, a, &m, b, &k, &one, c, &m) }
}

/// Times `kernel` from `lib`, if the library has it: (dimensions, seconds)
/// points.
fn measure(lib: &ForeignLibrary, kernel: Kernel, rng: &mut Sizes) -> Option<Vec<([f64; 3], f64)>> {
    let f: F = lib.function(&format!("{}_", kernel.name()))?;
    let (big, vec) = (512usize, 1usize << 20);
    let mut a = vec![1e-3f64; 2048 * 2048];
    let mut b = vec![0.5f64; big * big.max(2048)];
    let mut c = vec![0.25f64; big * big];
    for i in 0..big {
        a[i * big + i] = 1.0;
    }
    let mut x = vec![0.5f64; vec];
    let mut y = vec![0.25f64; vec];
    let (one, n_, l_, r_, u_) = (
        1.0f64,
        b"N".as_ptr(),
        b"L".as_ptr(),
        b"R".as_ptr(),
        b"U".as_ptr(),
    );
    let inc: c_int = 1;
    let (pa, pb, pc) = (a.as_mut_ptr(), b.as_mut_ptr(), c.as_mut_ptr());
    let (px, py) = (x.as_mut_ptr(), y.as_mut_ptr());
    let mut points = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let (size, seconds) = match kernel {
            Kernel::Dgemm => {
                let (m, n, k) = (rng.size(1, big), rng.size(1, big), rng.size(1, big));
                // SAFETY: dgemm_ has the Fortran BLAS signature Dgemm.
                let g: Dgemm = unsafe { std::mem::transmute::<F, Dgemm>(f) };
                // SAFETY: the buffers hold at least 512 x 512 elements, and
                // m, n and k are at most 512.
                let t = time(|| unsafe { dgemm(g, [m, n, k], pa, pb, pc) });
                ([f64::from(m), f64::from(n), f64::from(k)], t)
            }
            Kernel::Dtrsm => {
                let (m, n) = (rng.size(1, big), rng.size(1, big));
                let left = rng.unit() < 0.5;
                let lda = if left { m } else { n };
                type G = unsafe extern "C" fn(
                    *const c_char,
                    *const c_char,
                    *const c_char,
                    *const c_char,
                    *const c_int,
                    *const c_int,
                    *const f64,
                    *const f64,
                    *const c_int,
                    *mut f64,
                    *const c_int,
                );
                // SAFETY: dtrsm_'s Fortran signature; A is lda x lda with a
                // unit diagonal (diag U), B is m x n, both within the buffers.
                let g: G = unsafe { std::mem::transmute::<F, G>(f) };
                let side = if left { l_ } else { r_ };
                // SAFETY: as above: dtrsm_'s arguments, within the buffers.
                let t = time(|| unsafe {
                    g(
                        side.cast(),
                        l_.cast(),
                        n_.cast(),
                        u_.cast(),
                        &m,
                        &n,
                        &one,
                        pa,
                        &lda,
                        pb,
                        &m,
                    )
                });
                ([f64::from(m), f64::from(n), f64::from(lda)], t)
            }
            Kernel::Dgemv | Kernel::Dger => {
                let (m, n) = (rng.size(1, 2048), rng.size(1, 2048));
                let t = if kernel == Kernel::Dgemv {
                    type G = unsafe extern "C" fn(
                        *const c_char,
                        *const c_int,
                        *const c_int,
                        *const f64,
                        *const f64,
                        *const c_int,
                        *const f64,
                        *const c_int,
                        *const f64,
                        *mut f64,
                        *const c_int,
                    );
                    // SAFETY: dgemv_'s signature; A is m x n within 2048^2.
                    let g: G = unsafe { std::mem::transmute::<F, G>(f) };
                    // SAFETY: as above: dgemv_'s arguments, within the buffers.
                    time(|| unsafe { g(n_.cast(), &m, &n, &one, pa, &m, px, &inc, &one, py, &inc) })
                } else {
                    type G = unsafe extern "C" fn(
                        *const c_int,
                        *const c_int,
                        *const f64,
                        *const f64,
                        *const c_int,
                        *const f64,
                        *const c_int,
                        *mut f64,
                        *const c_int,
                    );
                    // SAFETY: dger_'s signature; A is m x n within 2048^2.
                    let g: G = unsafe { std::mem::transmute::<F, G>(f) };
                    // SAFETY: as above: dger_'s arguments, within the buffers.
                    time(|| unsafe { g(&m, &n, &1e-9, px, &inc, py, &inc, pa, &m) })
                };
                ([f64::from(m), f64::from(n), 0.0], t)
            }
            Kernel::Dtrsv => {
                let n = rng.size(1, 2048);
                type G = unsafe extern "C" fn(
                    *const c_char,
                    *const c_char,
                    *const c_char,
                    *const c_int,
                    *const f64,
                    *const c_int,
                    *mut f64,
                    *const c_int,
                );
                // SAFETY: dtrsv_'s signature; A is n x n within 2048^2.
                let g: G = unsafe { std::mem::transmute::<F, G>(f) };
                // SAFETY: as above: dtrsv_'s arguments, within the buffers.
                let t =
                    time(|| unsafe { g(l_.cast(), n_.cast(), u_.cast(), &n, pa, &n, px, &inc) });
                ([f64::from(n), 0.0, 0.0], t)
            }
            _ => {
                let n = rng.size(1, vec);
                // SAFETY: each level-1 kernel's Fortran signature, by kernel;
                // x and y hold 2^20 elements.
                let t = unsafe { time_level1(kernel, f, n, px, py) };
                ([f64::from(n), 0.0, 0.0], t)
            }
        };
        points.push((size, seconds));
    }
    Some(points)
}

/// The best rate of `lib`'s dgemm on a big square product (1024^3, 2.1
/// Gflop), in flop/s: the calibration's random sizes stop at 512, below
/// which dgemm stays a few percent under the rate HPL's big updates reach,
/// and a peak set too low would cap those updates below what they run at.
/// Skipped (None) when `fit`, dgemm's model, says a call would take more
/// than a tenth of a second: a BLAS that slow has no peak to find there.
fn measure_peak(lib: &ForeignLibrary, fit: &Fit) -> Option<f64> {
    let f: F = lib.function("dgemm_")?;
    let n: c_int = 1024;
    let d = [f64::from(n); 3];
    if fit.seconds(&Kernel::Dgemm.features(d)) > 0.1 {
        return None;
    }
    let len = 1024 * 1024;
    let a = vec![1e-3f64; len];
    let b = vec![0.5f64; len];
    let mut c = vec![0.25f64; len];
    // SAFETY: dgemm_ has the Fortran BLAS signature Dgemm.
    let g: Dgemm = unsafe { std::mem::transmute::<F, Dgemm>(f) };
    // Best of ten calls (a third of a second): a peak is a best case.
    let mut t = f64::INFINITY;
    for _ in 0..10 {
        let start = Instant::now();
        // SAFETY: three 1024 x 1024 matrices.
        unsafe { dgemm(g, [n; 3], a.as_ptr(), b.as_ptr(), c.as_mut_ptr()) };
        t = t.min(start.elapsed().as_secs_f64());
    }
    let rate = 2.0 * f64::from(n).powi(3) / t;
    rate.is_finite().then_some(rate)
}

/// Times one level-1 kernel on n elements of x and y.
///
/// # Safety
/// `f` is `kernel`'s Fortran function and x, y hold at least n elements.
unsafe fn time_level1(kernel: Kernel, f: F, n: c_int, x: *mut f64, y: *mut f64) -> f64 {
    let inc: c_int = 1;
    // Not 1: some BLAS return at once when scaling by one.
    let alpha = 0.999_999f64;
    type Xy = unsafe extern "C" fn(*const c_int, *mut f64, *const c_int, *mut f64, *const c_int);
    type Axy = unsafe extern "C" fn(
        *const c_int,
        *const f64,
        *const f64,
        *const c_int,
        *mut f64,
        *const c_int,
    );
    type Ax = unsafe extern "C" fn(*const c_int, *const f64, *mut f64, *const c_int);
    type Red = unsafe extern "C" fn(*const c_int, *const f64, *const c_int) -> f64;
    type Dot = unsafe extern "C" fn(
        *const c_int,
        *const f64,
        *const c_int,
        *const f64,
        *const c_int,
    ) -> f64;
    type Idx = unsafe extern "C" fn(*const c_int, *const f64, *const c_int) -> c_int;
    // SAFETY: in every arm, f has the signature its kernel's Fortran BLAS
    // interface gives it; the caller guarantees the buffers.
    unsafe {
        match kernel {
            Kernel::Dscal => {
                let g: Ax = std::mem::transmute::<F, Ax>(f);
                time(|| g(&n, &alpha, x, &inc))
            }
            Kernel::Daxpy => {
                let g: Axy = std::mem::transmute::<F, Axy>(f);
                time(|| g(&n, &alpha, x, &inc, y, &inc))
            }
            Kernel::Dcopy | Kernel::Dswap => {
                let g: Xy = std::mem::transmute::<F, Xy>(f);
                time(|| g(&n, x, &inc, y, &inc))
            }
            Kernel::Ddot => {
                let g: Dot = std::mem::transmute::<F, Dot>(f);
                time(|| {
                    std::hint::black_box(g(&n, x, &inc, y, &inc));
                })
            }
            Kernel::Idamax => {
                let g: Idx = std::mem::transmute::<F, Idx>(f);
                time(|| {
                    std::hint::black_box(g(&n, x, &inc));
                })
            }
            _ => {
                let g: Red = std::mem::transmute::<F, Red>(f);
                time(|| {
                    std::hint::black_box(g(&n, x, &inc));
                })
            }
        }
    }
}

/// Calibrates the kernels of `library` (or the first default BLAS found),
/// writes the model file to `out`, and returns a report for the terminal.
pub fn calibrate_blas(library: Option<&str>, out: &std::path::Path) -> Result<String> {
    if std::env::var_os("OPENBLAS_NUM_THREADS").is_none() {
        std::env::set_var("OPENBLAS_NUM_THREADS", "1");
    }
    let (name, lib) = match library {
        Some(name) => (name.to_owned(), ForeignLibrary::open(name)?),
        None => DEFAULT_LIBRARIES
            .iter()
            .find_map(|n| ForeignLibrary::open(n).ok().map(|l| (n.to_string(), l)))
            .with_context(|| {
                format!(
                    "no BLAS found (tried {}); install one (apt-get install libopenblas0) or \
                     name it with -blas-lib PATH",
                    DEFAULT_LIBRARIES.join(", ")
                )
            })?,
    };
    let mut rng = Sizes(Xoshiro256PlusPlus::seed_from_u64(0x5eed_b1a5));
    let mut fits: Vec<(Kernel, Fit)> = Vec::new();
    let mut report = format!("calibrating the BLAS of {name} (single-threaded)\n");
    let _ = writeln!(
        report,
        "{:<7} {:>8} {:>8} {:>12}  terms",
        "kernel", "R2", "med.err", "peak Gflop/s"
    );
    let mut missing = Vec::new();
    // This machine's peak: the best rate measured (a big dgemm's, on any
    // BLAS worth the name, see `measure_peak`), which peak scaling
    // measures efficiencies by.
    let mut peak = 0.0f64;
    for kernel in Kernel::ALL {
        match measure(&lib, kernel, &mut rng) {
            Some(points) => {
                peak = points
                    .iter()
                    .map(|&(d, t)| kernel.flops(d) / t)
                    .filter(|r| r.is_finite())
                    .fold(peak, f64::max);
                let samples: Vec<(Vec<f64>, f64)> = points
                    .iter()
                    .map(|&(d, t)| (kernel.features(d), t))
                    .collect();
                let fit = least_squares(&samples);
                // The best rate the model gives over the sampled calls.
                let peak = points
                    .iter()
                    .map(|&(d, _)| kernel.flops(d) / fit.seconds(&kernel.features(d)))
                    .filter(|r| r.is_finite())
                    .fold(0.0f64, f64::max);
                let _ = writeln!(
                    report,
                    "{:<7} {:>8.4} {:>7.1}% {:>12.2}  {}",
                    kernel.name(),
                    fit.r2.unwrap_or(f64::NAN),
                    100.0 * median_relative_error(&fit, &samples),
                    peak / 1e9,
                    kernel.terms().join(" ")
                );
                fits.push((kernel, fit));
            }
            None => missing.push(format!("{}_", kernel.name())),
        }
    }
    if fits.is_empty() {
        anyhow::bail!("{name} has none of the kernels (dgemm_, dtrsm_, ...): is it a BLAS?");
    }
    if !missing.is_empty() {
        let _ = writeln!(
            report,
            "not in {name} (their flop count at smpi/host-speed is used): {}",
            missing.join(", ")
        );
    }
    let big = fits
        .iter()
        .find(|(k, _)| *k == Kernel::Dgemm)
        .and_then(|(_, fit)| measure_peak(&lib, fit));
    if let Some(rate) = big {
        peak = peak.max(rate);
    }
    let _ = writeln!(
        report,
        "this machine's peak (the best rate measured, a 1024^3 dgemm's): {:.2} Gflop/s",
        peak / 1e9
    );
    let text = ModelFile::format(
        &fits,
        peak,
        &format!("{name}, {SAMPLES} random sizes per kernel"),
    );
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    let _ = writeln!(
        report,
        "wrote {}: run with --cfg=smpi/blas:model --cfg=smpi/blas-model-file:{}",
        out.display(),
        out.display()
    );
    Ok(report)
}

//! The BLAS kernels as `--cfg=smpi/blas:model` answers them: no arithmetic,
//! the modelled duration (`crate::kernels`) spent on the rank's host, and
//! outputs that keep the program's control flow the same on every rank and
//! every run: the outputs of arithmetic are left as they are, `idamax`
//! returns the first element, `ddot`, `dnrm2` and `dasum` return 0. `dcopy`
//! and `dswap` do move their data (still at the modelled cost): programs
//! move control data with them (HPL's pivot search copies the winner's row
//! index and owner with `dcopy`), and moving is cheap next to arithmetic.
//!
//! Both interfaces are replaced: CBLAS (`cblas_dgemm`, values, row or column
//! order) and Fortran (`dgemm_`, every argument by address; the hidden
//! lengths of character arguments that follow are ignored).

use std::ffi::{c_char, c_int};

use crate::kernels::Kernel;
use crate::sim;

/// Spends `kernel`'s modelled time on a call of dimensions `d` (see
/// `Kernel::dims_meaning`) with the rank's burst (`add_pending_flops`): a
/// kernel call costs no clock reading and no switch, which matters for
/// HPL's hundreds of thousands of small calls per rank.
fn charge(kernel: Kernel, d: [f64; 3]) {
    let flops = sim::with(|s| s.kernels.as_ref().map_or(0.0, |m| m.work(kernel, d)));
    super::add_pending_flops(flops);
}

fn dim(n: c_int) -> f64 {
    f64::from(n.max(0))
}

/// Reads a Fortran integer argument.
fn f_int(p: *const c_int) -> f64 {
    if p.is_null() {
        return 0.0;
    }
    // SAFETY: Fortran BLAS passes every integer by address.
    dim(unsafe { *p })
}

/// Whether a Fortran character argument says "left".
fn f_left(p: *const c_char) -> bool {
    // SAFETY: Fortran BLAS passes a character by address.
    !p.is_null() && matches!(unsafe { *p } as u8, b'L' | b'l')
}

/// CBLAS's `CblasLeft`.
const CBLAS_LEFT: c_int = 141;

type P = *const std::ffi::c_void;

pub(crate) unsafe extern "C" fn cblas_dgemm(
    _order: c_int,
    _ta: c_int,
    _tb: c_int,
    m: c_int,
    n: c_int,
    k: c_int,
) {
    charge(Kernel::Dgemm, [dim(m), dim(n), dim(k)]);
}

pub(crate) unsafe extern "C" fn dgemm_(
    _ta: *const c_char,
    _tb: *const c_char,
    m: *const c_int,
    n: *const c_int,
    k: *const c_int,
) {
    charge(Kernel::Dgemm, [f_int(m), f_int(n), f_int(k)]);
}

pub(crate) unsafe extern "C" fn cblas_dtrsm(
    _order: c_int,
    side: c_int,
    _uplo: c_int,
    _ta: c_int,
    _diag: c_int,
    m: c_int,
    n: c_int,
) {
    let tri = if side == CBLAS_LEFT { dim(m) } else { dim(n) };
    charge(Kernel::Dtrsm, [dim(m), dim(n), tri]);
}

pub(crate) unsafe extern "C" fn dtrsm_(
    side: *const c_char,
    _uplo: *const c_char,
    _ta: *const c_char,
    _diag: *const c_char,
    m: *const c_int,
    n: *const c_int,
) {
    let tri = if f_left(side) { f_int(m) } else { f_int(n) };
    charge(Kernel::Dtrsm, [f_int(m), f_int(n), tri]);
}

pub(crate) unsafe extern "C" fn cblas_dgemv(_order: c_int, _t: c_int, m: c_int, n: c_int) {
    charge(Kernel::Dgemv, [dim(m), dim(n), 0.0]);
}

pub(crate) unsafe extern "C" fn dgemv_(_t: *const c_char, m: *const c_int, n: *const c_int) {
    charge(Kernel::Dgemv, [f_int(m), f_int(n), 0.0]);
}

pub(crate) unsafe extern "C" fn cblas_dger(_order: c_int, m: c_int, n: c_int) {
    charge(Kernel::Dger, [dim(m), dim(n), 0.0]);
}

pub(crate) unsafe extern "C" fn dger_(m: *const c_int, n: *const c_int) {
    charge(Kernel::Dger, [f_int(m), f_int(n), 0.0]);
}

pub(crate) unsafe extern "C" fn cblas_dtrsv(
    _order: c_int,
    _uplo: c_int,
    _t: c_int,
    _diag: c_int,
    n: c_int,
) {
    charge(Kernel::Dtrsv, [dim(n), 0.0, 0.0]);
}

pub(crate) unsafe extern "C" fn dtrsv_(
    _uplo: *const c_char,
    _t: *const c_char,
    _diag: *const c_char,
    n: *const c_int,
) {
    charge(Kernel::Dtrsv, [f_int(n), 0.0, 0.0]);
}

/// The level-1 kernels: CBLAS passes n by value first, Fortran by address.
macro_rules! level1 {
    ($($kernel:ident: $cblas:ident, $fortran:ident;)*) => {$(
        pub(crate) unsafe extern "C" fn $cblas(n: c_int) {
            charge(Kernel::$kernel, [dim(n), 0.0, 0.0]);
        }
        pub(crate) unsafe extern "C" fn $fortran(n: *const c_int) {
            charge(Kernel::$kernel, [f_int(n), 0.0, 0.0]);
        }
    )*};
}

level1! {
    Dscal: cblas_dscal, dscal_;
    Daxpy: cblas_daxpy, daxpy_;
}

/// Copies (or swaps) n strided doubles as BLAS does: a negative increment
/// walks its vector from the end.
///
/// # Safety
/// x and y hold the n elements their increments reach.
unsafe fn move_vectors(n: c_int, x: *mut f64, incx: c_int, y: *mut f64, incy: c_int, swap: bool) {
    if n <= 0 || x.is_null() || y.is_null() {
        return;
    }
    let start = |inc: c_int| {
        if inc < 0 {
            (1 - n as isize) * inc as isize
        } else {
            0
        }
    };
    let (mut ix, mut iy) = (start(incx), start(incy));
    for _ in 0..n {
        // SAFETY: the caller's contract: every index reached is inside its
        // vector.
        unsafe {
            let (px, py) = (x.offset(ix), y.offset(iy));
            if swap {
                std::ptr::swap(px, py);
            } else {
                *py = *px;
            }
        }
        ix += incx as isize;
        iy += incy as isize;
    }
}

macro_rules! movers {
    ($($kernel:ident, $swap:literal, $cblas:ident, $fortran:ident;)*) => {$(
        pub(crate) unsafe extern "C" fn $cblas(
            n: c_int,
            x: *mut f64,
            incx: c_int,
            y: *mut f64,
            incy: c_int,
        ) {
            charge(Kernel::$kernel, [dim(n), 0.0, 0.0]);
            // SAFETY: the BLAS contract of the call.
            unsafe { move_vectors(n, x, incx, y, incy, $swap) };
        }
        pub(crate) unsafe extern "C" fn $fortran(
            n: *const c_int,
            x: *mut f64,
            incx: *const c_int,
            y: *mut f64,
            incy: *const c_int,
        ) {
            charge(Kernel::$kernel, [f_int(n), 0.0, 0.0]);
            if n.is_null() || incx.is_null() || incy.is_null() {
                return;
            }
            // SAFETY: the BLAS contract of the call; the integers are
            // passed by address and non-null.
            unsafe { move_vectors(*n, x, *incx, y, *incy, $swap) };
        }
    )*};
}

movers! {
    Dcopy, false, cblas_dcopy, dcopy_;
    Dswap, true, cblas_dswap, dswap_;
}

pub(crate) unsafe extern "C" fn cblas_idamax(n: c_int, _x: P, _incx: c_int) -> usize {
    charge(Kernel::Idamax, [dim(n), 0.0, 0.0]);
    0
}

pub(crate) unsafe extern "C" fn idamax_(n: *const c_int) -> c_int {
    charge(Kernel::Idamax, [f_int(n), 0.0, 0.0]);
    c_int::from(f_int(n) > 0.0)
}

macro_rules! reductions {
    ($($kernel:ident: $cblas:ident, $fortran:ident;)*) => {$(
        pub(crate) unsafe extern "C" fn $cblas(n: c_int) -> f64 {
            charge(Kernel::$kernel, [dim(n), 0.0, 0.0]);
            0.0
        }
        pub(crate) unsafe extern "C" fn $fortran(n: *const c_int) -> f64 {
            charge(Kernel::$kernel, [f_int(n), 0.0, 0.0]);
            0.0
        }
    )*};
}

reductions! {
    Ddot: cblas_ddot, ddot_;
    Dnrm2: cblas_dnrm2, dnrm2_;
    Dasum: cblas_dasum, dasum_;
}

/// Every replaced function: its name and our replacement's address.
pub fn replacements() -> Vec<(&'static str, usize)> {
    macro_rules! table {
        ($($f:ident),*) => { vec![$((stringify!($f), $f as *const () as usize)),*] };
    }
    table!(
        cblas_dgemm,
        dgemm_,
        cblas_dtrsm,
        dtrsm_,
        cblas_dgemv,
        dgemv_,
        cblas_dger,
        dger_,
        cblas_dtrsv,
        dtrsv_,
        cblas_dscal,
        dscal_,
        cblas_daxpy,
        daxpy_,
        cblas_dcopy,
        dcopy_,
        cblas_dswap,
        dswap_,
        cblas_idamax,
        idamax_,
        cblas_ddot,
        ddot_,
        cblas_dnrm2,
        dnrm2_,
        cblas_dasum,
        dasum_
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_and_swaps_follow_blas_increments() {
        let mut x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let mut y = [0.0; 3];
        // SAFETY: 3 elements with stride 2 fit in x; y holds 3.
        unsafe { move_vectors(3, x.as_mut_ptr(), 2, y.as_mut_ptr(), 1, false) };
        assert_eq!(y, [1.0, 3.0, 5.0]);
        // A negative increment walks y from its end.
        // SAFETY: as above.
        unsafe { move_vectors(3, x.as_mut_ptr(), 1, y.as_mut_ptr(), -1, false) };
        assert_eq!(y, [3.0, 2.0, 1.0]);
        // SAFETY: as above.
        unsafe { move_vectors(2, x.as_mut_ptr(), 1, y.as_mut_ptr(), 1, true) };
        assert_eq!((x[0], x[1], y[0], y[1]), (3.0, 2.0, 1.0, 2.0));
        // SAFETY: n = 0 touches nothing.
        unsafe { move_vectors(0, std::ptr::null_mut(), 1, y.as_mut_ptr(), 1, false) };
    }
}

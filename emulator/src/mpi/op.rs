//! Reduction operators: the predefined ones on every type MPI defines them
//! for, applied to contiguous runs of basic elements.

use std::ffi::c_void;

use super::datatype::Basic;
use super::{class, Mpi, MpiError, MpiResult};

/// Handles of user operations start here (predefined ones are 1..=14).
pub const FIRST_USER_OP: i32 = 32;

/// The C signature of a user operation (`MPI_User_function`).
pub type UserFunction =
    unsafe extern "C" fn(invec: *mut c_void, inoutvec: *mut c_void, len: *mut i32, dt: *mut i32);

/// An operation a reduction applies.
#[derive(Debug, Clone, Copy)]
pub enum ReduceOp {
    Builtin(Builtin),
    /// From `MPI_Op_create`: `func(in, inout, &count, &datatype)` computes
    /// inout = in (op) inout in the datatype's own layout.
    User {
        func: UserFunction,
        commute: bool,
    },
}

impl ReduceOp {
    /// Whether the algorithms may combine contributions in any order.
    pub fn commutative(self) -> bool {
        match self {
            // MPI_REPLACE and MPI_NO_OP only appear in one-sided calls.
            ReduceOp::Builtin(_) => true,
            ReduceOp::User { commute, .. } => commute,
        }
    }
}

/// The predefined operators, numbered as in mpi.h.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Max = 1,
    Min,
    Sum,
    Prod,
    Land,
    Band,
    Lor,
    Bor,
    Lxor,
    Bxor,
    Minloc,
    Maxloc,
    Replace,
    NoOp,
}

impl Builtin {
    pub fn from_handle(h: i32) -> Option<Self> {
        use Builtin::*;
        Some(match h {
            1 => Max,
            2 => Min,
            3 => Sum,
            4 => Prod,
            5 => Land,
            6 => Band,
            7 => Lor,
            8 => Bor,
            9 => Lxor,
            10 => Bxor,
            11 => Minloc,
            12 => Maxloc,
            13 => Replace,
            14 => NoOp,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use Builtin::*;
        match self {
            Max => "MPI_MAX",
            Min => "MPI_MIN",
            Sum => "MPI_SUM",
            Prod => "MPI_PROD",
            Land => "MPI_LAND",
            Band => "MPI_BAND",
            Lor => "MPI_LOR",
            Bor => "MPI_BOR",
            Lxor => "MPI_LXOR",
            Bxor => "MPI_BXOR",
            Minloc => "MPI_MINLOC",
            Maxloc => "MPI_MAXLOC",
            Replace => "MPI_REPLACE",
            NoOp => "MPI_NO_OP",
        }
    }
}

/// Reads and writes unaligned values at byte offsets.
trait Elem: Copy {
    const SIZE: usize;
    fn get(b: &[u8], i: usize) -> Self;
    fn put(b: &mut [u8], i: usize, v: Self);
}

macro_rules! elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn get(b: &[u8], i: usize) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(&b[i * Self::SIZE..(i + 1) * Self::SIZE]);
                <$t>::from_ne_bytes(raw)
            }
            fn put(b: &mut [u8], i: usize, v: Self) {
                b[i * Self::SIZE..(i + 1) * Self::SIZE].copy_from_slice(&v.to_ne_bytes());
            }
        }
    )*};
}
elem!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

fn zip<T: Elem>(input: &[u8], inout: &mut [u8], f: impl Fn(T, T) -> T) {
    let n = inout.len() / T::SIZE;
    for i in 0..n {
        let v = f(T::get(input, i), T::get(inout, i));
        T::put(inout, i, v);
    }
}

macro_rules! int_op {
    ($t:ty, $op:expr, $input:expr, $inout:expr) => {{
        use Builtin::*;
        let ok = match $op {
            Max => {
                zip::<$t>($input, $inout, |a, b| a.max(b));
                true
            }
            Min => {
                zip::<$t>($input, $inout, |a, b| a.min(b));
                true
            }
            Sum => {
                zip::<$t>($input, $inout, |a, b| a.wrapping_add(b));
                true
            }
            Prod => {
                zip::<$t>($input, $inout, |a, b| a.wrapping_mul(b));
                true
            }
            Land => {
                zip::<$t>($input, $inout, |a, b| ((a != 0) && (b != 0)) as $t);
                true
            }
            Lor => {
                zip::<$t>($input, $inout, |a, b| ((a != 0) || (b != 0)) as $t);
                true
            }
            Lxor => {
                zip::<$t>($input, $inout, |a, b| ((a != 0) != (b != 0)) as $t);
                true
            }
            Band => {
                zip::<$t>($input, $inout, |a, b| a & b);
                true
            }
            Bor => {
                zip::<$t>($input, $inout, |a, b| a | b);
                true
            }
            Bxor => {
                zip::<$t>($input, $inout, |a, b| a ^ b);
                true
            }
            _ => false,
        };
        ok
    }};
}

macro_rules! float_op {
    ($t:ty, $op:expr, $input:expr, $inout:expr) => {{
        use Builtin::*;
        match $op {
            Max => {
                zip::<$t>($input, $inout, |a, b| if a > b { a } else { b });
                true
            }
            Min => {
                zip::<$t>($input, $inout, |a, b| if a < b { a } else { b });
                true
            }
            Sum => {
                zip::<$t>($input, $inout, |a, b| a + b);
                true
            }
            Prod => {
                zip::<$t>($input, $inout, |a, b| a * b);
                true
            }
            _ => false,
        }
    }};
}

fn complex_op<
    T: Elem + std::ops::Add<Output = T> + std::ops::Mul<Output = T> + std::ops::Sub<Output = T>,
>(
    op: Builtin,
    input: &[u8],
    inout: &mut [u8],
) -> bool {
    let n = inout.len() / (2 * T::SIZE);
    match op {
        Builtin::Sum => {
            zip::<T>(input, inout, |a, b| a + b);
            true
        }
        Builtin::Prod => {
            for i in 0..n {
                let (ar, ai) = (T::get(input, 2 * i), T::get(input, 2 * i + 1));
                let (br, bi) = (T::get(inout, 2 * i), T::get(inout, 2 * i + 1));
                T::put(inout, 2 * i, ar * br - ai * bi);
                T::put(inout, 2 * i + 1, ar * bi + ai * br);
            }
            true
        }
        _ => false,
    }
}

/// MINLOC/MAXLOC on (value, index) pairs laid out in `stride` bytes with
/// the index at `idx_off`: ties keep the smaller index.
fn loc_op<V: Elem + PartialOrd>(
    op: Builtin,
    input: &[u8],
    inout: &mut [u8],
    stride: usize,
    idx_off: usize,
) -> bool {
    let better = |a: V, b: V| match op {
        Builtin::Minloc => a < b,
        Builtin::Maxloc => a > b,
        _ => false,
    };
    if !matches!(op, Builtin::Minloc | Builtin::Maxloc) {
        return false;
    }
    let n = inout.len() / stride;
    for i in 0..n {
        let e_in = &input[i * stride..(i + 1) * stride];
        let (va, ia) = (V::get(e_in, 0), i32::get(&e_in[idx_off..], 0));
        let e_io = &mut inout[i * stride..(i + 1) * stride];
        let (vb, ib) = (V::get(e_io, 0), i32::get(&e_io[idx_off..], 0));
        if better(va, vb) || (va == vb && ia < ib) {
            V::put(e_io, 0, va);
            i32::put(&mut e_io[idx_off..], 0, ia);
        }
    }
    true
}

fn loc_pair<V: Elem + PartialOrd, I: Elem + PartialOrd>(
    op: Builtin,
    input: &[u8],
    inout: &mut [u8],
) -> bool {
    if !matches!(op, Builtin::Minloc | Builtin::Maxloc) {
        return false;
    }
    let stride = V::SIZE + I::SIZE;
    let n = inout.len() / stride;
    for i in 0..n {
        let e_in = &input[i * stride..(i + 1) * stride];
        let (va, ia) = (V::get(e_in, 0), I::get(&e_in[V::SIZE..], 0));
        let e_io = &mut inout[i * stride..(i + 1) * stride];
        let (vb, ib) = (V::get(e_io, 0), I::get(&e_io[V::SIZE..], 0));
        let better = if op == Builtin::Minloc {
            va < vb
        } else {
            va > vb
        };
        if better || (va == vb && ia < ib) {
            V::put(e_io, 0, va);
            I::put(&mut e_io[V::SIZE..], 0, ia);
        }
    }
    true
}

extern "C" {
    /// csrc/long_double.c: `op` on `n` packed elements of `kind` (0 real,
    /// 1 complex, 2 (value, int) pair); 0 when undefined.
    fn smpi_long_double_apply(
        op: i32,
        kind: i32,
        input: *const u8,
        inout: *mut u8,
        n: usize,
    ) -> i32;
}

/// An operation on C long double elements of `size` packed bytes each.
fn long_double(op: Builtin, kind: i32, input: &[u8], inout: &mut [u8], size: usize) -> bool {
    let n = inout.len() / size;
    if input.len() < n * size {
        return false;
    }
    // SAFETY: both slices hold `n` packed elements of `size` bytes, which
    // is what the C function reads and writes (with memcpy, so alignment
    // does not matter).
    unsafe { smpi_long_double_apply(op as i32, kind, input.as_ptr(), inout.as_mut_ptr(), n) != 0 }
}

/// inout = input (op) inout, element-wise, on packed basic elements.
/// Returns false if `op` is not defined on `basic`.
pub fn apply(op: Builtin, basic: Basic, input: &[u8], inout: &mut [u8]) -> bool {
    use Basic::*;
    if op == Builtin::NoOp {
        return true;
    }
    if op == Builtin::Replace {
        inout.copy_from_slice(&input[..inout.len()]);
        return true;
    }
    match basic {
        I8 => int_op!(i8, op, input, inout),
        I16 => int_op!(i16, op, input, inout),
        I32 => int_op!(i32, op, input, inout),
        I64 => int_op!(i64, op, input, inout),
        U8 => int_op!(u8, op, input, inout),
        U16 => int_op!(u16, op, input, inout),
        U32 => int_op!(u32, op, input, inout),
        U64 => int_op!(u64, op, input, inout),
        Bool => match op {
            Builtin::Land | Builtin::Lor | Builtin::Lxor => int_op!(u8, op, input, inout),
            _ => false,
        },
        Byte => match op {
            Builtin::Band | Builtin::Bor | Builtin::Bxor => int_op!(u8, op, input, inout),
            _ => false,
        },
        // MPICH also accepts the logical operations on floating types (and
        // SimGrid's SMPI does too): programs written for it use them.
        F32 | F64 if matches!(op, Builtin::Land | Builtin::Lor | Builtin::Lxor) => {
            if basic == F32 {
                logical::<f32>(op, input, inout)
            } else {
                logical::<f64>(op, input, inout)
            }
        }
        F32 => float_op!(f32, op, input, inout),
        F64 => float_op!(f64, op, input, inout),
        ComplexF32 => complex_op::<f32>(op, input, inout),
        ComplexF64 => complex_op::<f64>(op, input, inout),
        PairF32I32 => loc_op::<f32>(op, input, inout, 8, 4),
        PairF64I32 => loc_op::<f64>(op, input, inout, 12, 8),
        PairI64I32 => loc_op::<i64>(op, input, inout, 12, 8),
        PairI32I32 => loc_op::<i32>(op, input, inout, 8, 4),
        PairI16I32 => loc_op::<i16>(op, input, inout, 6, 2),
        PairF64F64 => loc_pair::<f64, f64>(op, input, inout),
        PairF32F32 => loc_pair::<f32, f32>(op, input, inout),
        LongDouble => long_double(op, 0, input, inout, 16),
        ComplexLongDouble => long_double(op, 1, input, inout, 32),
        PairLongDoubleI32 => long_double(op, 2, input, inout, 20),
        Char => false,
    }
}

/// The basic type reductions compute on: a one-byte character type
/// (MPI_CHAR) as a signed char, as MPICH and SMPI reduce it and programs
/// rely on; wider ones (MPI_WCHAR) stay text, with no arithmetic.
pub fn arithmetic(basic: Basic, element_size: usize) -> Basic {
    if basic == Basic::Char && element_size == 1 {
        Basic::I8
    } else {
        basic
    }
}

/// MPI_LAND, MPI_LOR, MPI_LXOR on a floating type: true is non-zero,
/// results are 1.0 or 0.0.
fn logical<T: Elem + Default + PartialEq + From<u8>>(
    op: Builtin,
    input: &[u8],
    inout: &mut [u8],
) -> bool {
    let zero = T::default();
    let f = |a: T, b: T| -> T {
        let (a, b) = (a != zero, b != zero);
        let r = match op {
            Builtin::Land => a && b,
            Builtin::Lor => a || b,
            _ => a != b,
        };
        T::from(u8::from(r))
    };
    zip::<T>(input, inout, f);
    true
}

impl Mpi {
    /// The operation a handle names: predefined or from `MPI_Op_create`.
    pub fn reduce_op(&self, handle: i32) -> MpiResult<ReduceOp> {
        if let Some(b) = Builtin::from_handle(handle) {
            return Ok(ReduceOp::Builtin(b));
        }
        usize::try_from(handle - FIRST_USER_OP)
            .ok()
            .and_then(|i| self.user_ops.get(i).copied().flatten())
            .ok_or_else(|| {
                MpiError::new(
                    class::OP,
                    format!(
                        "invalid operation handle {handle} (MPI_OP_NULL, freed or never created)"
                    ),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn char_and_logical_floats_as_mpich_accepts_them() {
        let char = arithmetic(Basic::Char, 1);
        let mut b = vec![100u8, 2];
        assert!(apply(Builtin::Sum, char, &[100, 3], &mut b));
        assert_eq!(b, [200, 5], "wrapping signed char");
        let mut b = vec![1u8, 0];
        assert!(apply(Builtin::Land, char, &[1, 1], &mut b));
        assert_eq!(b, [1, 0]);
        let wchar = arithmetic(Basic::Char, 4);
        assert!(!apply(Builtin::Sum, wchar, &[0; 4], &mut [0; 4]));
        let f = |v: &[f64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_ne_bytes()).collect() };
        let mut b = f(&[0.0, 2.5, 0.0]);
        assert!(apply(
            Builtin::Lxor,
            Basic::F64,
            &f(&[1.5, 3.0, 0.0]),
            &mut b
        ));
        assert_eq!(b, f(&[1.0, 0.0, 0.0]));
        let mut b = f(&[0.0]);
        assert!(!apply(Builtin::Band, Basic::F64, &f(&[1.0]), &mut b));
    }

    #[test]
    fn integer_ops() {
        let a = ints(&[1, 5, -3]);
        let mut b = ints(&[2, 4, 7]);
        assert!(apply(Builtin::Sum, Basic::I32, &a, &mut b));
        assert_eq!(b, ints(&[3, 9, 4]));
        let mut b = ints(&[2, 4, 7]);
        assert!(apply(Builtin::Max, Basic::I32, &a, &mut b));
        assert_eq!(b, ints(&[2, 5, 7]));
        let mut b = ints(&[0, 4, 0]);
        assert!(apply(Builtin::Land, Basic::I32, &a, &mut b));
        assert_eq!(b, ints(&[0, 1, 0]));
    }

    #[test]
    fn undefined_combinations_are_refused() {
        let mut b = vec![0u8; 8];
        assert!(!apply(Builtin::Band, Basic::F64, &[0u8; 8], &mut b));
        assert!(!apply(Builtin::Band, Basic::Bool, &[0u8; 1], &mut b[..1]));
        assert!(!apply(Builtin::Sum, Basic::Byte, &[0u8; 1], &mut b[..1]));
    }

    #[test]
    fn minloc_keeps_lowest_index_on_ties() {
        // MPI_2INT pairs: (value, index)
        let a = ints(&[5, 0, 3, 7]);
        let mut b = ints(&[5, 1, 3, 2]);
        assert!(apply(Builtin::Minloc, Basic::PairI32I32, &a, &mut b));
        assert_eq!(b, ints(&[5, 0, 3, 2]));
        let mut b = ints(&[9, 1, 1, 2]);
        assert!(apply(Builtin::Maxloc, Basic::PairI32I32, &a, &mut b));
        assert_eq!(b, ints(&[9, 1, 3, 7]));
    }

    #[test]
    fn long_double_sum_and_maxloc() {
        let ld = |v: f64| {
            // An x87 extended value of a small integer: its f64 bits widened.
            let mut b = [0u8; 16];
            let bits = v.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as u16;
            let mant = (bits & ((1 << 52) - 1)) << 11 | (1 << 63);
            let e = if v == 0.0 { 0 } else { exp - 1023 + 16383 };
            b[..8].copy_from_slice(&(if v == 0.0 { 0 } else { mant }).to_le_bytes());
            b[8..10].copy_from_slice(&e.to_le_bytes());
            b
        };
        if cfg!(target_arch = "x86_64") {
            let a = ld(2.0);
            let mut b = ld(3.0);
            assert!(apply(Builtin::Sum, Basic::LongDouble, &a, &mut b));
            // An x87 store writes 10 bytes: the padding holds anything.
            assert_eq!(b[..10], ld(5.0)[..10]);
            let mut x = ld(0.0);
            assert!(apply(Builtin::Lxor, Basic::LongDouble, &a, &mut x));
            assert_eq!(x[..10], ld(1.0)[..10], "2 xor 0 is true, 1.0");
            let mut pa = ld(7.0).to_vec()[..16].to_vec();
            pa.extend_from_slice(&1i32.to_ne_bytes());
            let mut pb = ld(4.0).to_vec();
            pb.extend_from_slice(&9i32.to_ne_bytes());
            assert!(apply(
                Builtin::Maxloc,
                Basic::PairLongDoubleI32,
                &pa,
                &mut pb
            ));
            assert_eq!(pb, pa);
        }
        assert!(!apply(
            Builtin::Band,
            Basic::LongDouble,
            &[0u8; 16],
            &mut [0u8; 16]
        ));
    }

    #[test]
    fn complex_product() {
        let a: Vec<u8> = [1.0f64, 2.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        let mut b: Vec<u8> = [3.0f64, 4.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert!(apply(Builtin::Prod, Basic::ComplexF64, &a, &mut b));
        let r: Vec<f64> = b
            .chunks(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(r, vec![-5.0, 10.0]);
    }
}

//! The external32 data representation (MPI 3.1 §13.5.2), for
//! MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size.
//!
//! external32 is big-endian with fixed sizes (Table 13.2): most basic types
//! have this machine's (LP64) size and only change byte order, but C `long`
//! and `unsigned long` are 4 bytes there (8 here), `wchar_t` 2 (4 here), and
//! `long double` the 16-byte IEEE binary128 format (on x86-64 the native
//! one is the x87 80-bit format in 16 bytes). Each datatype carries its
//! basic elements in type-map order as runs of [`Ext32`] kinds
//! (`Datatype::external`), which these functions walk to convert packed
//! native data to external32 and back.
//!
//! Integers are narrowed as the standard says (the less significant bytes
//! are kept, so values that fit convert exactly) and widened back with
//! their sign (signed types) or zeros (unsigned ones and `wchar_t`), as
//! MPICH does. A binary128 `long double` read into an x87 one is rounded
//! to nearest, ties to even.

use super::{class, MpiError, MpiResult};

/// How one basic element converts between this machine and external32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ext32 {
    /// The same size in both (1 to 16 bytes): only the byte order changes.
    /// A complex number is two of these, its real and imaginary parts.
    Same(u8),
    /// C `long` (`signed`) or `unsigned long`: 8 bytes here, 4 in external32.
    Long { signed: bool },
    /// `wchar_t` (MPI_WCHAR): 4 bytes here, 2 (unsigned) in external32.
    WChar,
    /// C `long double`: 16 bytes here, IEEE binary128 in external32.
    LongDouble,
}

impl Ext32 {
    /// Bytes of one such element in this machine's packed data.
    pub fn native_size(self) -> usize {
        match self {
            Ext32::Same(n) => usize::from(n),
            Ext32::Long { .. } => 8,
            Ext32::WChar => 4,
            Ext32::LongDouble => 16,
        }
    }

    /// Bytes of one such element in external32.
    pub fn external_size(self) -> usize {
        match self {
            Ext32::Same(n) => usize::from(n),
            Ext32::Long { .. } => 4,
            Ext32::WChar => 2,
            Ext32::LongDouble => 16,
        }
    }

    /// Appends the external32 form of `native` (`native_size` bytes).
    fn encode(self, native: &[u8], out: &mut Vec<u8>) -> MpiResult<()> {
        match self {
            Ext32::Same(_) => push_big_endian(native, out),
            Ext32::Long { .. } => {
                // The less significant 4 bytes (MPI 3.1 §13.5.2).
                let v = i64::from_ne_bytes(bytes8(native));
                out.extend_from_slice(&(v as u32).to_be_bytes());
            }
            Ext32::WChar => {
                let v = u32::from_ne_bytes(bytes4(native));
                out.extend_from_slice(&(v as u16).to_be_bytes());
            }
            Ext32::LongDouble => out.extend_from_slice(&long_double_to_binary128(native)?),
        }
        Ok(())
    }

    /// Appends the native form of `external` (`external_size` bytes).
    fn decode(self, external: &[u8], out: &mut Vec<u8>) -> MpiResult<()> {
        match self {
            Ext32::Same(_) => push_big_endian(external, out),
            Ext32::Long { signed } => {
                let v = u32::from_be_bytes(bytes4(external));
                let wide = if signed {
                    i64::from(v as i32)
                } else {
                    i64::from(v)
                };
                out.extend_from_slice(&wide.to_ne_bytes());
            }
            Ext32::WChar => {
                let v = u16::from_be_bytes([external[0], external[1]]);
                out.extend_from_slice(&u32::from(v).to_ne_bytes());
            }
            Ext32::LongDouble => out.extend_from_slice(&binary128_to_long_double(external)?),
        }
        Ok(())
    }
}

fn bytes4(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

fn bytes8(b: &[u8]) -> [u8; 8] {
    [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// Appends `bytes` in the other byte order on a little-endian machine, as
/// they are on a big-endian one (the conversion is its own inverse).
fn push_big_endian(bytes: &[u8], out: &mut Vec<u8>) {
    if cfg!(target_endian = "big") {
        out.extend_from_slice(bytes);
    } else {
        out.extend(bytes.iter().rev());
    }
}

/// Appends `count` elements of `kind` to a type's runs, merging with the
/// last run.
pub fn push_run(runs: &mut Vec<(Ext32, u64)>, kind: Ext32, count: u64) {
    super::datatype::push_same(runs, kind, count);
}

/// Bytes of one element of a type of these runs in external32.
pub fn external_size(runs: &[(Ext32, u64)]) -> usize {
    runs.iter()
        .map(|&(k, n)| k.external_size() * n as usize)
        .sum()
}

/// Bytes of one element of a type of these runs in native packed data.
fn native_size(runs: &[(Ext32, u64)]) -> usize {
    runs.iter()
        .map(|&(k, n)| k.native_size() * n as usize)
        .sum()
}

/// Converts `count` elements of packed native data of a type of `runs` to
/// external32.
pub fn encode(runs: &[(Ext32, u64)], count: usize, native: &[u8]) -> MpiResult<Vec<u8>> {
    let out = Vec::with_capacity(count * external_size(runs));
    convert(runs, count, native, out, Ext32::native_size, Ext32::encode)
}

/// Converts `count` elements of a type of `runs` in external32 to packed
/// native data.
pub fn decode(runs: &[(Ext32, u64)], count: usize, external: &[u8]) -> MpiResult<Vec<u8>> {
    let out = Vec::with_capacity(count * native_size(runs));
    convert(
        runs,
        count,
        external,
        out,
        Ext32::external_size,
        Ext32::decode,
    )
}

/// Walks `count` elements of `runs` over `input`, each basic element of
/// `width(kind)` bytes converted onto `out` by `step`.
fn convert(
    runs: &[(Ext32, u64)],
    count: usize,
    input: &[u8],
    mut out: Vec<u8>,
    width: fn(Ext32) -> usize,
    step: fn(Ext32, &[u8], &mut Vec<u8>) -> MpiResult<()>,
) -> MpiResult<Vec<u8>> {
    let mut pos = 0;
    for _ in 0..count {
        for &(kind, n) in runs {
            let w = width(kind);
            for _ in 0..n {
                let piece = input
                    .get(pos..pos + w)
                    .ok_or_else(|| short_input(input.len()))?;
                step(kind, piece, &mut out)?;
                pos += w;
            }
        }
    }
    Ok(out)
}

fn short_input(len: usize) -> MpiError {
    MpiError::new(
        class::INTERN,
        format!("external32 conversion: {len} bytes end inside an element"),
    )
}

/// The native format of C `long double`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LongDoubleFormat {
    /// x87 80-bit extended precision (little-endian), padded to 16 bytes.
    X87,
    /// IEEE binary128, this machine's byte order.
    Binary128,
    /// Another format (IBM double-double...): not converted.
    Other,
}

const NATIVE_LONG_DOUBLE: LongDoubleFormat = if cfg!(target_arch = "x86_64") {
    LongDoubleFormat::X87
} else if cfg!(any(
    target_arch = "aarch64",
    target_arch = "riscv64",
    target_arch = "s390x",
    target_arch = "loongarch64"
)) {
    LongDoubleFormat::Binary128
} else {
    LongDoubleFormat::Other
};

fn unsupported_long_double() -> MpiError {
    MpiError::new(
        class::UNSUPPORTED_DATAREP,
        "external32 long double: this machine's long double format is not converted",
    )
}

/// The external32 (big-endian binary128) bytes of a native `long double`.
fn long_double_to_binary128(native: &[u8]) -> MpiResult<[u8; 16]> {
    let mut b = [0u8; 16];
    b.copy_from_slice(&native[..16]);
    match NATIVE_LONG_DOUBLE {
        LongDoubleFormat::X87 => {
            let mantissa = u64::from_le_bytes(bytes8(&b));
            let sign_exponent = u16::from_le_bytes([b[8], b[9]]);
            Ok(x87_to_binary128(mantissa, sign_exponent).to_be_bytes())
        }
        LongDoubleFormat::Binary128 => Ok(u128::from_ne_bytes(b).to_be_bytes()),
        LongDoubleFormat::Other => Err(unsupported_long_double()),
    }
}

/// The native `long double` bytes of external32 (big-endian binary128).
fn binary128_to_long_double(external: &[u8]) -> MpiResult<[u8; 16]> {
    let mut b = [0u8; 16];
    b.copy_from_slice(&external[..16]);
    let bits = u128::from_be_bytes(b);
    match NATIVE_LONG_DOUBLE {
        LongDoubleFormat::X87 => {
            let (mantissa, sign_exponent) = binary128_to_x87(bits);
            let mut out = [0u8; 16];
            out[..8].copy_from_slice(&mantissa.to_le_bytes());
            out[8..10].copy_from_slice(&sign_exponent.to_le_bytes());
            Ok(out)
        }
        LongDoubleFormat::Binary128 => Ok(bits.to_ne_bytes()),
        LongDoubleFormat::Other => Err(unsupported_long_double()),
    }
}

/// Bits of binary128's fraction that x87's 63 fraction bits lack.
const DROPPED: u32 = 112 - 63;
const EXPONENT_MAX: u16 = 0x7fff;
const INTEGER_BIT: u64 = 1 << 63;

/// An x87 extended value (64-bit significand with its explicit integer
/// bit; sign and 15-bit exponent) as binary128 bits. Both formats have a
/// 15-bit exponent of bias 16383, so every value converts exactly.
fn x87_to_binary128(mantissa: u64, sign_exponent: u16) -> u128 {
    let sign = u128::from(sign_exponent >> 15) << 127;
    let mut exponent = sign_exponent & EXPONENT_MAX;
    let fraction = mantissa & !INTEGER_BIT;
    let integer = mantissa & INTEGER_BIT != 0;
    if exponent == 0 && integer {
        // A pseudo-denormal: the same value as with the smallest normal
        // exponent.
        exponent = 1;
    } else if exponent != 0 && exponent != EXPONENT_MAX && !integer {
        // An unnormal, which the x87 refuses as an invalid operand: a NaN.
        return sign | (u128::from(EXPONENT_MAX) << 112) | (1 << 111);
    }
    sign | (u128::from(exponent) << 112) | (u128::from(fraction) << DROPPED)
}

/// binary128 bits as an x87 extended value (significand, sign and
/// exponent), rounded to nearest, ties to even.
fn binary128_to_x87(bits: u128) -> (u64, u16) {
    let sign = ((bits >> 127) as u16) << 15;
    let mut exponent = ((bits >> 112) as u16) & EXPONENT_MAX;
    let fraction = bits & ((1 << 112) - 1);
    if exponent == EXPONENT_MAX {
        // Infinity, or a NaN that keeps its payload's high bits (a NaN
        // whose kept bits would all be zero stays one, quiet).
        let mut kept = (fraction >> DROPPED) as u64;
        if fraction != 0 && kept == 0 {
            kept = 1 << 62;
        }
        return (INTEGER_BIT | kept, sign | EXPONENT_MAX);
    }
    let mut kept = (fraction >> DROPPED) as u64;
    let dropped = fraction & ((1 << DROPPED) - 1);
    let half = 1u128 << (DROPPED - 1);
    if dropped > half || (dropped == half && kept & 1 == 1) {
        kept += 1;
    }
    // `kept` has at most 63 bits, plus a carry from rounding.
    let mut integer = exponent != 0;
    if kept == INTEGER_BIT {
        // The rounding carried into the integer bit: the next binade (a
        // subnormal becomes the smallest normal).
        kept = 0;
        if integer {
            exponent += 1;
        } else {
            exponent = 1;
            integer = true;
        }
        if exponent == EXPONENT_MAX {
            return (INTEGER_BIT, sign | EXPONENT_MAX);
        }
    }
    let mantissa = if integer { INTEGER_BIT | kept } else { kept };
    (mantissa, sign | exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_X87: (u64, u16) = (INTEGER_BIT, 0x3fff);

    fn x87_bytes((mantissa, se): (u64, u16)) -> Vec<u8> {
        let mut b = mantissa.to_le_bytes().to_vec();
        b.extend_from_slice(&se.to_le_bytes());
        b.extend_from_slice(&[0; 6]);
        b
    }

    #[test]
    fn sizes_follow_the_standard_table() {
        assert_eq!(Ext32::Long { signed: true }.external_size(), 4);
        assert_eq!(Ext32::WChar.external_size(), 2);
        assert_eq!(Ext32::LongDouble.external_size(), 16);
        // MPI_LONG_INT: a long then an int.
        let runs = [(Ext32::Long { signed: true }, 1), (Ext32::Same(4), 1)];
        assert_eq!((external_size(&runs), native_size(&runs)), (8, 12));
    }

    #[test]
    fn runs_merge_equal_kinds() {
        let mut runs = Vec::new();
        push_run(&mut runs, Ext32::Same(4), 2);
        push_run(&mut runs, Ext32::Same(4), 3);
        push_run(&mut runs, Ext32::Same(8), 0);
        push_run(&mut runs, Ext32::LongDouble, 1);
        assert_eq!(runs, [(Ext32::Same(4), 5), (Ext32::LongDouble, 1)]);
    }

    #[test]
    fn integers_are_big_endian() {
        let native: Vec<u8> = [1i32, -2].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let e = encode(&[(Ext32::Same(4), 1)], 2, &native).unwrap();
        assert_eq!(e, [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]);
        assert_eq!(decode(&[(Ext32::Same(4), 1)], 2, &e).unwrap(), native);
    }

    #[test]
    fn longs_narrow_to_four_bytes_and_widen_with_their_sign() {
        let signed = [(Ext32::Long { signed: true }, 1)];
        let unsigned = [(Ext32::Long { signed: false }, 1)];
        let native: Vec<u8> = [1i64, -2].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let e = encode(&signed, 2, &native).unwrap();
        assert_eq!(e, [0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]);
        assert_eq!(decode(&signed, 2, &e).unwrap(), native);
        // The same bytes as unsigned longs: 0xfffffffe, not -2.
        let back = decode(&unsigned, 2, &e).unwrap();
        assert_eq!(
            i64::from_ne_bytes(bytes8(&back[8..])),
            0xffff_fffe,
            "unsigned long widens with zeros"
        );
        // A value that does not fit keeps its less significant bytes.
        let big = 0x1_2345_6789i64.to_ne_bytes();
        assert_eq!(encode(&signed, 1, &big).unwrap(), [0x23, 0x45, 0x67, 0x89]);
    }

    #[test]
    fn wide_characters_are_two_bytes() {
        let native: Vec<u8> = [0x41u32, 0x20ac]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let e = encode(&[(Ext32::WChar, 1)], 2, &native).unwrap();
        assert_eq!(e, [0, 0x41, 0x20, 0xac]);
        assert_eq!(decode(&[(Ext32::WChar, 1)], 2, &e).unwrap(), native);
    }

    #[test]
    fn a_mixed_element_converts_each_part() {
        // { double, long, float complex } twice.
        let runs = [
            (Ext32::Same(8), 1),
            (Ext32::Long { signed: true }, 1),
            (Ext32::Same(4), 2),
        ];
        let mut native = Vec::new();
        for k in 0..2 {
            native.extend_from_slice(&(1.5f64 + f64::from(k)).to_ne_bytes());
            native.extend_from_slice(&(-7i64 - i64::from(k)).to_ne_bytes());
            native.extend_from_slice(&1.0f32.to_ne_bytes());
            native.extend_from_slice(&(-2.0f32).to_ne_bytes());
        }
        let e = encode(&runs, 2, &native).unwrap();
        assert_eq!(e.len(), 2 * (8 + 4 + 8));
        assert_eq!(&e[..8], &1.5f64.to_be_bytes());
        assert_eq!(&e[8..12], &(-7i32).to_be_bytes());
        assert_eq!(&e[12..16], &1.0f32.to_be_bytes());
        assert_eq!(&e[16..20], &(-2.0f32).to_be_bytes());
        assert_eq!(&e[20..28], &2.5f64.to_be_bytes());
        assert_eq!(decode(&runs, 2, &e).unwrap(), native);
    }

    #[test]
    fn short_input_is_an_error_not_a_panic() {
        assert!(encode(&[(Ext32::Same(8), 1)], 2, &[0; 12]).is_err());
        assert!(decode(&[(Ext32::LongDouble, 1)], 1, &[0; 15]).is_err());
    }

    #[test]
    fn x87_values_convert_exactly_to_binary128() {
        assert_eq!(x87_to_binary128(ONE_X87.0, ONE_X87.1), 0x3fff << 112);
        // 2.0 and -0.75.
        assert_eq!(x87_to_binary128(INTEGER_BIT, 0x4000), 0x4000 << 112);
        assert_eq!(
            x87_to_binary128(INTEGER_BIT | 1 << 62, 0x8000 | 0x3ffe),
            (0xbffe << 112) | (1 << 111)
        );
        // Zeros, the largest subnormal, infinity and a quiet NaN.
        assert_eq!(x87_to_binary128(0, 0x8000), 1 << 127);
        assert_eq!(
            x87_to_binary128(!INTEGER_BIT, 0),
            u128::from(!INTEGER_BIT) << 49
        );
        assert_eq!(x87_to_binary128(INTEGER_BIT, 0x7fff), 0x7fff << 112);
        assert_eq!(
            x87_to_binary128(INTEGER_BIT | 1 << 62, 0x7fff),
            (0x7fff << 112) | (1 << 111)
        );
        // A pseudo-denormal is the smallest normal exponent's value.
        assert_eq!(x87_to_binary128(INTEGER_BIT, 0), 1 << 112);
    }

    #[test]
    fn binary128_rounds_to_the_nearest_x87_value() {
        for (m, se) in [
            ONE_X87,
            (INTEGER_BIT | 12345, 0x4321),
            (0xdead_beef, 0),
            (INTEGER_BIT, 0xffff),
        ] {
            assert_eq!(binary128_to_x87(x87_to_binary128(m, se)), (m, se));
        }
        let one = 0x3fffu128 << 112;
        let half_ulp = 1u128 << (DROPPED - 1);
        // Below half an x87 ulp: down; above: up; a tie: to even.
        assert_eq!(binary128_to_x87(one | (half_ulp - 1)), ONE_X87);
        assert_eq!(
            binary128_to_x87(one | (half_ulp + 1)),
            (INTEGER_BIT | 1, 0x3fff)
        );
        assert_eq!(binary128_to_x87(one | half_ulp), ONE_X87);
        let odd = one | (1 << DROPPED);
        assert_eq!(binary128_to_x87(odd | half_ulp), (INTEGER_BIT | 2, 0x3fff));
        // Rounding up the largest fraction carries into the exponent, and
        // past the largest finite value to infinity.
        let all = (1u128 << 112) - 1;
        assert_eq!(binary128_to_x87(one | all), (INTEGER_BIT, 0x4000));
        assert_eq!(
            binary128_to_x87((0x7ffeu128 << 112) | all),
            (INTEGER_BIT, 0x7fff)
        );
        // ...and the largest subnormal into the smallest normal.
        assert_eq!(binary128_to_x87(all), (INTEGER_BIT, 1));
        // A NaN stays a NaN even when its payload lies in dropped bits.
        let (m, se) = binary128_to_x87((0x7fffu128 << 112) | 1);
        assert_eq!((m & !INTEGER_BIT != 0, se), (true, 0x7fff));
    }

    #[test]
    fn native_long_double_round_trips() {
        if NATIVE_LONG_DOUBLE != LongDoubleFormat::X87 {
            return;
        }
        let native = x87_bytes(ONE_X87);
        let e = encode(&[(Ext32::LongDouble, 1)], 1, &native).unwrap();
        let mut expected = [0u8; 16];
        expected[0] = 0x3f;
        expected[1] = 0xff;
        assert_eq!(e, expected);
        assert_eq!(decode(&[(Ext32::LongDouble, 1)], 1, &e).unwrap(), native);
    }
}

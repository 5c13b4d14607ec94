//! Physical quantities written the way SimGrid platform files write them.
//!
//! Three kinds of quantity exist, each with its own unit suffixes (the same
//! sets as SimGrid 3.32's `xbt/parse_units.cpp`):
//!
//! * speeds, in flop/s: `f` with a decimal prefix (`kf`, `Mf`, `Gf`, `Tf`,
//!   `Pf`, `Ef`, `Zf`, `Yf`), or `flops` with a spelled-out one
//!   (`kiloflops`, `megaflops`, ... `zetaflops`, `yottaflops`);
//! * bandwidths, in bytes/s: `Bps` (bytes) or `bps` (bits, 1 Bps = 8 bps),
//!   each with a decimal prefix (`kBps`, `MBps`, `GBps`, `TBps`, `PBps`,
//!   `EBps`, `ZBps`, `YBps`; note the lower-case `k`) or a binary one
//!   (`KiBps` = 1024 Bps, `MiBps`, `GiBps`, ... `YiBps`);
//! * times, in seconds: `s`, `ms`, `us`, `ns`, `ps`, `m` (minute), `h`,
//!   `d`, `w` (week).
//!
//! The number in front is anything C's `strtod` reads in decimal (`1`,
//! `1.25`, `.5`, `1e9`, `2E-3`). A bare number is taken in the base unit;
//! SimGrid accepts it with a deprecation warning, so [`parse`] reports
//! whether a unit was given and the platform loader turns its absence into
//! a warning.

use std::fmt;

/// The kind of a quantity: it decides which unit suffixes are valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantity {
    /// A computing speed, in flop/s.
    Speed,
    /// A network bandwidth, in bytes/s.
    Bandwidth,
    /// A duration (latencies), in seconds.
    Time,
    /// An amount of storage (disk sizes), in bytes.
    Size,
}

impl Quantity {
    /// The unit a bare number is expressed in.
    pub fn base_unit(self) -> &'static str {
        match self {
            Quantity::Speed => "f",
            Quantity::Bandwidth => "Bps",
            Quantity::Time => "s",
            Quantity::Size => "B",
        }
    }

    /// The list of accepted units, for error messages.
    fn expected_units(self) -> &'static str {
        match self {
            Quantity::Speed => {
                "f, kf, Mf, Gf, Tf, Pf, Ef, Zf, Yf, or flops, kiloflops, megaflops, gigaflops, \
                 teraflops, petaflops, exaflops, zetaflops, yottaflops"
            }
            Quantity::Bandwidth => {
                "Bps, bps, kBps, MBps, GBps, TBps, PBps, EBps, ZBps, YBps, KiBps, MiBps, GiBps, \
                 TiBps, PiBps, EiBps, ZiBps, YiBps, or the same with bps for bits"
            }
            Quantity::Time => "s, ms, us, ns, ps, m, h, d, w",
            Quantity::Size => {
                "B, kB, MB, GB, TB, PB, EB, ZB, YB, KiB, MiB, GiB, TiB, PiB, EiB, ZiB, YiB, or \
                 the same with b for bits"
            }
        }
    }

    /// An example of a well-formed value, for error messages.
    fn example(self) -> &'static str {
        match self {
            Quantity::Speed => "1Gf",
            Quantity::Bandwidth => "1.25GBps",
            Quantity::Time => "10us",
            Quantity::Size => "500GiB",
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Quantity::Speed => "speed",
            Quantity::Bandwidth => "bandwidth",
            Quantity::Time => "time",
            Quantity::Size => "size",
        })
    }
}

/// A value that could not be read; its Display names the text and what
/// was expected, e.g. `bandwidth '10Gbs': unknown unit 'Gbs' (expected Bps, ...)`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{quantity} '{text}': {problem}")]
pub struct UnitError {
    /// What kind of value was expected.
    pub quantity: Quantity,
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub problem: UnitProblem,
}

/// What is wrong with a value (see [`UnitError`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UnitProblem {
    /// The text does not start with a number.
    #[error("not a number followed by a unit (expected something like '{example}')")]
    NoNumber {
        /// A well-formed value of the same kind.
        example: &'static str,
    },
    /// The suffix after the number is not a unit of this kind.
    #[error("unknown unit '{unit}' (expected {expected})")]
    UnknownUnit {
        /// The suffix as given.
        unit: String,
        /// The accepted units.
        expected: &'static str,
    },
    /// The value is negative or too large to be represented.
    #[error("the value must be a finite number >= 0")]
    OutOfRange,
}

/// A value read by [`parse`], in the base unit of its quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parsed {
    /// The value in flop/s, bytes/s or seconds.
    pub value: f64,
    /// False when the text was a bare non-zero number (SimGrid warns then).
    pub unit_given: bool,
}

/// Reads a speed such as `1Gf` or `100Mf` into flop/s.
pub fn parse_speed(text: &str) -> Result<f64, UnitError> {
    parse(Quantity::Speed, text).map(|p| p.value)
}

/// Reads a bandwidth such as `10Gbps`, `1.25GBps` or `1GiBps` into bytes/s.
pub fn parse_bandwidth(text: &str) -> Result<f64, UnitError> {
    parse(Quantity::Bandwidth, text).map(|p| p.value)
}

/// Reads a time such as `10us` or `1.5ms` into seconds.
pub fn parse_time(text: &str) -> Result<f64, UnitError> {
    parse(Quantity::Time, text).map(|p| p.value)
}

/// Reads a size such as `500GiB` or `4kB` into bytes.
pub fn parse_size(text: &str) -> Result<f64, UnitError> {
    parse(Quantity::Size, text).map(|p| p.value)
}

/// Reads a quantity of the given kind, and tells whether a unit was written.
///
/// Surrounding whitespace is ignored. A bare zero counts as having a unit
/// (its unit does not matter, and SimGrid does not warn about it).
pub fn parse(quantity: Quantity, text: &str) -> Result<Parsed, UnitError> {
    let err = |problem| UnitError {
        quantity,
        text: text.to_string(),
        problem,
    };
    let trimmed = text.trim();
    let number_len = number_prefix_len(trimmed);
    if number_len == 0 {
        return Err(err(UnitProblem::NoNumber {
            example: quantity.example(),
        }));
    }
    let (number, unit) = trimmed.split_at(number_len);
    // The scanner only accepts what Rust's float parser also accepts, so a
    // failure here cannot happen; map it to NoNumber rather than panic.
    let number: f64 = number.parse().map_err(|_| {
        err(UnitProblem::NoNumber {
            example: quantity.example(),
        })
    })?;
    let (factor, unit_given) = if unit.is_empty() {
        (1.0, number == 0.0)
    } else {
        let factor = unit_factor(quantity, unit).ok_or_else(|| {
            err(UnitProblem::UnknownUnit {
                unit: unit.to_string(),
                expected: quantity.expected_units(),
            })
        })?;
        (factor, true)
    };
    let value = number * factor;
    // `-0` is a valid way to write zero; anything else below zero is not.
    if !value.is_finite() || value < 0.0 {
        return Err(err(UnitProblem::OutOfRange));
    }
    Ok(Parsed {
        value: value.abs(),
        unit_given,
    })
}

/// Length of the longest prefix that C's `strtod` would read as a decimal
/// number: sign, digits, optional fraction, optional exponent. An exponent
/// marker not followed by digits is left to the unit (as in `1Ebps`).
fn number_prefix_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - frac_start;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return 0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    i
}

/// The multiplier from `unit` to the base unit of `quantity`, if valid.
fn unit_factor(quantity: Quantity, unit: &str) -> Option<f64> {
    match quantity {
        Quantity::Speed => {
            if let Some(prefix) = unit.strip_suffix("flops") {
                spelled_decimal_prefix(prefix)
            } else {
                unit.strip_suffix('f').and_then(decimal_prefix)
            }
        }
        Quantity::Bandwidth => {
            let (prefix, base) = if let Some(p) = unit.strip_suffix("Bps") {
                (p, 1.0)
            } else {
                (unit.strip_suffix("bps")?, 0.125)
            };
            decimal_prefix(prefix)
                .or_else(|| binary_prefix(prefix))
                .map(|m| m * base)
        }
        Quantity::Size => {
            let (prefix, base) = if let Some(p) = unit.strip_suffix('B') {
                (p, 1.0)
            } else {
                (unit.strip_suffix('b')?, 0.125)
            };
            decimal_prefix(prefix)
                .or_else(|| binary_prefix(prefix))
                .map(|m| m * base)
        }
        Quantity::Time => match unit {
            "w" => Some(7.0 * 24.0 * 3600.0),
            "d" => Some(24.0 * 3600.0),
            "h" => Some(3600.0),
            "m" => Some(60.0),
            "s" => Some(1.0),
            "ms" => Some(1e-3),
            "us" => Some(1e-6),
            "ns" => Some(1e-9),
            "ps" => Some(1e-12),
            _ => None,
        },
    }
}

/// The multiplier of the `index`-th prefix (0 for none), computed as
/// SimGrid does, by repeated multiplication, so values match it bit for bit.
fn prefix_factor(index: usize, step: f64) -> f64 {
    (0..index).fold(1.0, |value, _| value * step)
}

fn decimal_prefix(prefix: &str) -> Option<f64> {
    let index = ["", "k", "M", "G", "T", "P", "E", "Z", "Y"]
        .iter()
        .position(|p| *p == prefix)?;
    Some(prefix_factor(index, 1000.0))
}

fn spelled_decimal_prefix(prefix: &str) -> Option<f64> {
    // SimGrid spells the 10^21 prefix "zeta".
    let index = [
        "", "kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta",
    ]
    .iter()
    .position(|p| *p == prefix)?;
    Some(prefix_factor(index, 1000.0))
}

fn binary_prefix(prefix: &str) -> Option<f64> {
    let index = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"]
        .iter()
        .position(|p| *p == prefix)?;
    Some(prefix_factor(index + 1, 1024.0))
}

/// Writes a bandwidth in bytes/s with a decimal prefix, e.g. `12.5GBps`.
pub fn format_bandwidth(bytes_per_second: f64) -> String {
    format_decimal(bytes_per_second, "Bps")
}

/// Writes a speed in flop/s with a decimal prefix, e.g. `1Gf`.
pub fn format_speed(flops: f64) -> String {
    format_decimal(flops, "f")
}

/// Writes a time in seconds with the largest sub-second unit that keeps
/// the number at least 1, e.g. `1us`, `1.5ms`, `2s`.
pub fn format_time(seconds: f64) -> String {
    if seconds == 0.0 {
        return "0s".to_string();
    }
    for (factor, unit) in [(1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")] {
        if seconds >= factor {
            return format!("{}{unit}", round_sig(seconds / factor));
        }
    }
    format!("{}ps", round_sig(seconds / 1e-12))
}

fn format_decimal(value: f64, unit: &str) -> String {
    let prefixes = ["", "k", "M", "G", "T", "P", "E", "Z", "Y"];
    let mut scaled = value;
    let mut index = 0;
    while scaled >= 1000.0 && index + 1 < prefixes.len() {
        scaled /= 1000.0;
        index += 1;
    }
    format!("{}{}{unit}", round_sig(scaled), prefixes[index])
}

/// Rounds to 6 significant digits so that printed values do not show
/// binary noise such as 12.499999999.
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let digits = 6 - x.abs().log10().floor() as i32 - 1;
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn speeds() {
        for (text, want) in [
            ("1Gf", 1e9),
            ("100Mf", 1e8),
            ("1e9f", 1e9),
            ("1f", 1.0),
            ("2kf", 2e3),
            ("3Tf", 3e12),
            ("1Pf", 1e15),
            ("1Ef", 1e18),
            ("1Zf", 1e21),
            ("1Yf", 1e24),
            ("5flops", 5.0),
            ("1kiloflops", 1e3),
            ("1megaflops", 1e6),
            ("1.5gigaflops", 1.5e9),
            ("1teraflops", 1e12),
            ("1petaflops", 1e15),
            ("1exaflops", 1e18),
            ("1zetaflops", 1e21),
            ("1yottaflops", 1e24),
            ("  98.095Mf ", 98.095e6),
        ] {
            let got = parse_speed(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(close(got, want), "{text}: got {got}, want {want}");
        }
    }

    #[test]
    fn bandwidths() {
        for (text, want) in [
            ("10Gbps", 1.25e9),
            ("1.25GBps", 1.25e9),
            ("1GiBps", 1024.0 * 1024.0 * 1024.0),
            ("1Bps", 1.0),
            ("8bps", 1.0),
            ("1kBps", 1e3),
            ("1kbps", 125.0),
            ("1MBps", 1e6),
            ("100Mbps", 12.5e6),
            ("1TBps", 1e12),
            ("1PBps", 1e15),
            ("1EBps", 1e18),
            ("1ZBps", 1e21),
            ("1YBps", 1e24),
            ("1KiBps", 1024.0),
            ("1MiBps", 1048576.0),
            ("1TiBps", 1024f64.powi(4)),
            ("1PiBps", 1024f64.powi(5)),
            ("1EiBps", 1024f64.powi(6)),
            ("1ZiBps", 1024f64.powi(7)),
            ("1YiBps", 1024f64.powi(8)),
            ("8Kibps", 1024.0),
            ("8Gibps", 1024f64.powi(3)),
            ("1Ebps", 1.25e17),
            ("12.5GBps", 12.5e9),
        ] {
            let got = parse_bandwidth(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(close(got, want), "{text}: got {got}, want {want}");
        }
    }

    #[test]
    fn times() {
        for (text, want) in [
            ("1s", 1.0),
            ("10ms", 1e-2),
            ("10us", 1e-5),
            ("1ns", 1e-9),
            ("1ps", 1e-12),
            ("2m", 120.0),
            ("1h", 3600.0),
            ("1d", 86400.0),
            ("1w", 604800.0),
            ("1.5e-3s", 1.5e-3),
            (".5s", 0.5),
            ("5.s", 5.0),
            ("+3us", 3e-6),
        ] {
            let got = parse_time(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(close(got, want), "{text}: got {got}, want {want}");
        }
    }

    #[test]
    fn bare_numbers_are_base_unit_and_flagged() {
        assert_eq!(
            parse(Quantity::Bandwidth, "1000").unwrap(),
            Parsed {
                value: 1000.0,
                unit_given: false
            }
        );
        assert_eq!(parse_speed("1e9").unwrap(), 1e9);
        assert_eq!(parse_time("0.5").unwrap(), 0.5);
        // Zero needs no unit and raises no warning.
        assert_eq!(
            parse(Quantity::Time, "0").unwrap(),
            Parsed {
                value: 0.0,
                unit_given: true
            }
        );
        assert_eq!(parse_time("-0").unwrap(), 0.0);
    }

    #[test]
    fn bad_units_name_the_text_and_expectation() {
        let e = parse_bandwidth("10Gbs").unwrap_err();
        assert_eq!(e.quantity, Quantity::Bandwidth);
        assert_eq!(e.text, "10Gbs");
        assert!(matches!(&e.problem, UnitProblem::UnknownUnit { unit, .. } if unit == "Gbs"));
        let msg = e.to_string();
        assert!(
            msg.starts_with("bandwidth '10Gbs': unknown unit 'Gbs' (expected Bps, bps, kBps,"),
            "{msg}"
        );

        for (quantity, text, unit) in [
            (Quantity::Speed, "1GF", "GF"),
            (Quantity::Speed, "1Gflops", "Gflops"),
            (Quantity::Speed, "1gf", "gf"),
            (Quantity::Speed, "1Gf x", "Gf x"),
            (Quantity::Speed, "1 Gf", " Gf"),
            (Quantity::Bandwidth, "1KBps", "KBps"), // SimGrid wants a lower-case k
            (Quantity::Bandwidth, "1GB", "GB"),
            (Quantity::Bandwidth, "1Gib/s", "Gib/s"),
            (Quantity::Bandwidth, "1kiBps", "kiBps"),
            (Quantity::Time, "1sec", "sec"),
            (Quantity::Time, "1Ms", "Ms"),
            (Quantity::Time, "1e", "e"),
            (Quantity::Time, "1e+", "e+"),
            (Quantity::Time, "1.2.3s", ".3s"),
        ] {
            let e = parse(quantity, text).unwrap_err();
            assert_eq!(
                e.problem,
                UnitProblem::UnknownUnit {
                    unit: unit.to_string(),
                    expected: quantity.expected_units()
                },
                "{text}"
            );
        }
    }

    #[test]
    fn not_numbers() {
        for text in [
            "", "   ", "Gf", "abc", ".", "-", "+.e5", "inf", "nan", "e5s",
        ] {
            let e = parse_speed(text).unwrap_err();
            assert!(
                matches!(e.problem, UnitProblem::NoNumber { .. }),
                "{text}: {e}"
            );
            assert!(e.to_string().contains("expected something like '1Gf'"));
        }
    }

    #[test]
    fn out_of_range() {
        for text in ["-1Gf", "1e999f", "1e300Yf", "-5"] {
            let e = parse_speed(text).unwrap_err();
            assert_eq!(e.problem, UnitProblem::OutOfRange, "{text}");
        }
        assert!(parse_bandwidth("-1Bps")
            .unwrap_err()
            .to_string()
            .contains(">= 0"));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_bandwidth(12.5e9), "12.5GBps");
        assert_eq!(format_bandwidth(1.25e8), "125MBps");
        assert_eq!(format_bandwidth(10.0), "10Bps");
        assert_eq!(format_speed(1e9), "1Gf");
        assert_eq!(format_time(1e-6), "1us");
        assert_eq!(format_time(1.5e-3), "1.5ms");
        assert_eq!(format_time(0.0), "0s");
        assert_eq!(format_time(2.0), "2s");
        assert_eq!(format_time(5e-13), "0.5ps");
        // What is printed reads back to the same value.
        for v in [12.5e9, 1.25e8, 3.0, 1e24] {
            assert!(close(parse_bandwidth(&format_bandwidth(v)).unwrap(), v));
        }
    }
}

//! Type signatures (check `types`): the sequence of basic element kinds a
//! (count, datatype) pair sends or receives. MPI's matching rule: the
//! sender's signature is a prefix of the receiver's; `MPI_BYTE` and
//! `MPI_PACKED` match anything (as in SimGrid and MPICH).
//!
//! Kinds are compared as the machine sees them, not by name: `MPI_INT`,
//! `MPI_INT32_T` and Fortran's `MPI_INTEGER` are one kind, `MPI_INT` and
//! `MPI_FLOAT` are not, nor `MPI_INT` and `MPI_UNSIGNED`. A pair type
//! (`MPI_DOUBLE_INT`) is its two parts, so that a struct of the same parts
//! matches it.

use crate::mpi::datatype::{Basic, Datatype};

/// The basic elements of one element of a predefined type of kind
/// `basic`, run-length encoded; `None` (MPI_LB, MPI_UB, 16-byte integers)
/// has none or is raw bytes.
pub fn of_basic(basic: Option<Basic>, size: usize) -> Vec<(Basic, u64)> {
    use Basic::*;
    let parts: &[Basic] = match basic {
        None if size == 0 => &[],
        None => &[Byte],
        Some(PairF32I32) => &[F32, I32],
        Some(PairF64I32) => &[F64, I32],
        Some(PairI64I32) => &[I64, I32],
        Some(PairI32I32) => &[I32, I32],
        Some(PairI16I32) => &[I16, I32],
        Some(PairLongDoubleI32) => &[LongDouble, I32],
        Some(PairF64F64) => &[F64, F64],
        Some(PairF32F32) => &[F32, F32],
        Some(b) => std::slice::from_ref(match b {
            I8 => &I8,
            I16 => &I16,
            I32 => &I32,
            I64 => &I64,
            U8 => &U8,
            U16 => &U16,
            U32 => &U32,
            U64 => &U64,
            F32 => &F32,
            F64 => &F64,
            LongDouble => &LongDouble,
            Bool => &Bool,
            ComplexF32 => &ComplexF32,
            ComplexF64 => &ComplexF64,
            ComplexLongDouble => &ComplexLongDouble,
            Char => &Char,
            _ => &Byte,
        }),
    };
    let mut runs = Vec::new();
    for &p in parts {
        push(&mut runs, p, 1);
    }
    runs
}

/// Appends `count` elements of kind `kind`, merging with the last run.
pub fn push(runs: &mut Vec<(Basic, u64)>, kind: Basic, count: u64) {
    crate::mpi::datatype::push_same(runs, kind, count);
}

/// Whether `ty`'s signature holds raw bytes, which match anything.
fn has_bytes(ty: &Datatype) -> bool {
    ty.signature.iter().any(|&(k, _)| k == Basic::Byte)
}

/// Where two signatures first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the first differing basic element.
    pub element: u64,
    pub sent: Basic,
    pub received: Basic,
}

/// Runs walked at most before a comparison gives up (and accepts): the
/// check costs at most this, whatever the message.
const WALK_LIMIT: u64 = 1 << 16;

/// The kinds of `count` elements of `ty`, run by run.
fn walk(ty: &Datatype, count: usize) -> impl Iterator<Item = (Basic, u64)> + '_ {
    let single = ty.signature.len() == 1;
    let reps = if single { 1 } else { count };
    (0..reps).flat_map(move |_| {
        ty.signature.iter().map(move |&(k, n)| {
            if single {
                (k, n * count as u64)
            } else {
                (k, n)
            }
        })
    })
}

/// Checks that `scount` elements of `stype` (sent) match `rcount` of
/// `rtype` (the receive): the elements the message holds, as far as the
/// receive has room (a longer message is truncated, reported apart).
pub fn check(
    stype: &Datatype,
    scount: usize,
    rtype: &Datatype,
    rcount: usize,
) -> Result<(), Mismatch> {
    if scount == 0 || rcount == 0 || stype.size == 0 || rtype.size == 0 {
        return Ok(());
    }
    if has_bytes(stype) || has_bytes(rtype) {
        return Ok(());
    }
    // The common case: one kind each.
    if let ([(s, _)], [(r, _)]) = (&stype.signature[..], &rtype.signature[..]) {
        return if s == r {
            Ok(())
        } else {
            Err(Mismatch {
                element: 0,
                sent: *s,
                received: *r,
            })
        };
    }
    let mut recv = walk(rtype, rcount);
    let mut cur: Option<(Basic, u64)> = None;
    let mut element = 0u64;
    for (steps, (kind, mut n)) in walk(stype, scount).enumerate() {
        if steps as u64 > WALK_LIMIT {
            return Ok(());
        }
        while n > 0 {
            let (rk, rn) = match cur.take() {
                Some(c) => c,
                None => match recv.next() {
                    Some(c) => c,
                    // The receive is full: truncation, reported apart.
                    None => return Ok(()),
                },
            };
            if rk != kind {
                return Err(Mismatch {
                    element,
                    sent: kind,
                    received: rk,
                });
            }
            let take = n.min(rn);
            n -= take;
            element += take;
            if rn > take {
                cur = Some((rk, rn - take));
            }
        }
    }
    Ok(())
}

/// A signature summary that two calls of a collective compare: the kinds
/// of the data, canonically run-length encoded, up to [`WALK_LIMIT`] runs
/// (longer ones compare by their prefix and element count).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Summary {
    /// Raw bytes somewhere: it matches anything.
    pub bytes: bool,
    pub elements: u64,
    pub runs: Vec<(Basic, u64)>,
}

impl Summary {
    pub fn of(ty: &Datatype, count: usize) -> Summary {
        let mut s = Summary {
            bytes: has_bytes(ty),
            ..Summary::default()
        };
        if s.bytes {
            return s;
        }
        s.elements = ty.signature.iter().map(|r| r.1).sum::<u64>() * count as u64;
        for (k, n) in walk(ty, count).take(WALK_LIMIT as usize) {
            push(&mut s.runs, k, n);
        }
        s
    }

    /// Whether data of signature `self` and `other` match.
    pub fn matches(&self, other: &Summary) -> bool {
        self.bytes || other.bytes || self == other
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.bytes {
            return write!(f, "raw bytes");
        }
        let parts: Vec<String> = self
            .runs
            .iter()
            .take(4)
            .map(|(k, n)| format!("{n} {}", kind_name(*k)))
            .collect();
        write!(f, "{}", parts.join(", "))?;
        if self.runs.len() > 4 {
            write!(f, ", ...")?;
        }
        if self.runs.is_empty() {
            write!(f, "no data")?;
        }
        Ok(())
    }
}

/// How a report names an element kind.
pub fn kind_name(k: Basic) -> &'static str {
    use Basic::*;
    match k {
        I8 => "int8",
        I16 => "int16",
        I32 => "int32",
        I64 => "int64",
        U8 => "uint8",
        U16 => "uint16",
        U32 => "uint32",
        U64 => "uint64",
        F32 => "float",
        F64 => "double",
        LongDouble => "long double",
        Bool => "bool",
        ComplexF32 => "float complex",
        ComplexF64 => "double complex",
        ComplexLongDouble => "long double complex",
        Byte => "byte",
        Char => "char",
        _ => "pair",
    }
}

/// How a report names a datatype.
pub fn type_name(ty: &Datatype) -> String {
    if ty.name.is_empty() {
        "a derived datatype".to_string()
    } else {
        ty.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::predefined_types;
    use crate::mpi::typector::{build, Piece};

    fn named(name: &str) -> Datatype {
        predefined_types()
            .into_iter()
            .flatten()
            .find(|t| t.name == name)
            .unwrap()
    }

    #[test]
    fn same_kinds_match_whatever_their_names() {
        let (int, int32, integer) = (named("MPI_INT"), named("MPI_INT32_T"), named("MPI_INTEGER"));
        assert!(check(&int, 4, &int32, 4).is_ok());
        assert!(check(&integer, 4, &int, 8).is_ok());
        let float = named("MPI_FLOAT");
        let m = check(&int, 4, &float, 4).unwrap_err();
        assert_eq!((m.sent, m.received), (Basic::I32, Basic::F32));
        assert!(check(&int, 4, &named("MPI_UNSIGNED"), 4).is_err());
        assert!(check(&int, 4, &named("MPI_BYTE"), 16).is_ok());
        assert!(check(&named("MPI_PACKED"), 16, &float, 4).is_ok());
    }

    #[test]
    fn derived_types_match_by_their_elements() {
        let (double, int) = (named("MPI_DOUBLE"), named("MPI_INT"));
        // struct { double; int } matches MPI_DOUBLE_INT.
        let s = build(&[
            Piece {
                disp: 0,
                blocklen: 1,
                child: &double,
            },
            Piece {
                disp: 8,
                blocklen: 1,
                child: &int,
            },
        ]);
        assert!(check(&named("MPI_DOUBLE_INT"), 3, &s, 3).is_ok());
        // Two doubles then an int, against (double, int) pairs: the second
        // element differs.
        let d2i = build(&[
            Piece {
                disp: 0,
                blocklen: 2,
                child: &double,
            },
            Piece {
                disp: 16,
                blocklen: 1,
                child: &int,
            },
        ]);
        let m = check(&d2i, 1, &s, 2).unwrap_err();
        assert_eq!((m.element, m.sent, m.received), (1, Basic::F64, Basic::I32));
        // A contiguous of 4 ints is 4 ints.
        let c4 = build(&[Piece {
            disp: 0,
            blocklen: 4,
            child: &int,
        }]);
        assert!(check(&c4, 2, &int, 8).is_ok());
        assert_eq!(Summary::of(&c4, 2), Summary::of(&int, 8));
        assert_ne!(Summary::of(&c4, 2), Summary::of(&int, 7));
    }
}

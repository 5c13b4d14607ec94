//! Derived datatype constructors: every constructor is a list of pieces
//! (byte displacement, block length, child type) laid out per MPI's rules
//! for lower bound, upper bound, extent and size.

use super::datatype::Datatype;

/// How a datatype was made, for MPI_Type_get_envelope/get_contents.
#[derive(Debug, Clone, Default)]
pub struct Envelope {
    pub combiner: i32,
    pub integers: Vec<i32>,
    pub addresses: Vec<isize>,
    pub datatypes: Vec<i32>,
    /// The datatypes as they were at construction (their handles may be
    /// freed since), for MPI_Type_get_contents.
    pub types: Vec<std::rc::Rc<Datatype>>,
}

pub const COMBINER_NAMED: i32 = 1;
pub const COMBINER_DUP: i32 = 2;
pub const COMBINER_CONTIGUOUS: i32 = 3;
pub const COMBINER_VECTOR: i32 = 4;
pub const COMBINER_HVECTOR: i32 = 5;
pub const COMBINER_INDEXED: i32 = 6;
pub const COMBINER_HINDEXED: i32 = 7;
pub const COMBINER_INDEXED_BLOCK: i32 = 8;
pub const COMBINER_HINDEXED_BLOCK: i32 = 9;
pub const COMBINER_STRUCT: i32 = 10;
pub const COMBINER_SUBARRAY: i32 = 11;
pub const COMBINER_DARRAY: i32 = 12;
pub const COMBINER_RESIZED: i32 = 13;

/// One piece of a constructor: `blocklen` consecutive elements of `child`
/// starting `disp` bytes from the new type's origin.
pub struct Piece<'a> {
    pub disp: isize,
    pub blocklen: usize,
    pub child: &'a Datatype,
}

/// Builds a datatype from its pieces (uncommitted, unnamed).
pub fn build(pieces: &[Piece<'_>]) -> Datatype {
    let mut blocks: Vec<(isize, usize)> = Vec::new();
    let mut size = 0usize;
    let (mut lb, mut ub) = (isize::MAX, isize::MIN);
    let (mut tlb, mut tub) = (isize::MAX, isize::MIN);
    let mut basic: Option<Option<(super::datatype::Basic, usize)>> = None;
    let mut align = 1usize;
    let mut elements: Vec<(u32, u64)> = Vec::new();
    let mut external32_native = true;
    // Bounds set by MPI_LB/MPI_UB markers (or resized children): they win
    // over the bounds of the data.
    let (mut marked_lb, mut marked_ub): (Option<isize>, Option<isize>) = (None, None);
    for p in pieces {
        if p.blocklen == 0 {
            continue;
        }
        let c = p.child;
        let last = (p.blocklen as isize - 1) * c.extent;
        let (lo, hi) = (p.disp + last.min(0), p.disp + last.max(0));
        if c.explicit_lb {
            marked_lb = Some(marked_lb.map_or(lo + c.lb, |m| m.min(lo + c.lb)));
        }
        if c.explicit_ub {
            let u = hi + c.lb + c.extent;
            marked_ub = Some(marked_ub.map_or(u, |m| m.max(u)));
        }
        // The markers themselves hold no data and bound nothing else.
        let marker = c.predefined && (c.explicit_lb || c.explicit_ub);
        if marker {
            continue;
        }
        align = align.max(c.align);
        external32_native &= c.external32_native;
        if c.elements.len() == 1 {
            let (size, count) = c.elements[0];
            super::datatype::push_run(&mut elements, size, count * p.blocklen as u64);
        } else {
            for _ in 0..p.blocklen {
                for &(size, count) in &c.elements {
                    super::datatype::push_run(&mut elements, size, count);
                }
            }
        }
        size += p.blocklen * c.size;
        // Element k starts at disp + k*extent; with a negative extent the
        // last element is the lowest.
        lb = lb.min(lo + c.lb);
        ub = ub.max(hi + c.lb + c.extent);
        if c.size > 0 {
            tlb = tlb.min(lo + c.true_lb);
            tub = tub.max(hi + c.true_lb + c.true_extent);
        }
        // A block of a gapless child (HPL builds MPI_Type_contiguous of a
        // whole panel, 10^5 doubles) is one run: no walk element by element.
        let gapless = matches!(c.blocks[..], [(0, len)] if len as isize == c.extent);
        let (copies, child_blocks) = if gapless {
            (1, vec![(0, p.blocklen * c.size)])
        } else {
            (p.blocklen, c.blocks.clone())
        };
        for k in 0..copies {
            let base = p.disp + k as isize * c.extent;
            for &(off, len) in &child_blocks {
                let start = base + off;
                match blocks.last_mut() {
                    Some(last) if last.0 + last.1 as isize == start => last.1 += len,
                    _ => blocks.push((start, len)),
                }
            }
        }
        let child_basic = c.basic.map(|(b, n)| (b, n * p.blocklen));
        basic = Some(match (basic, child_basic) {
            (None, cb) => cb,
            (Some(Some((b1, n1))), Some((b2, n2))) if b1 == b2 => Some((b1, n1 + n2)),
            _ => None,
        });
    }
    if lb == isize::MAX {
        // No data at all: an empty type at the origin.
        lb = 0;
        ub = 0;
    }
    let (explicit_lb, explicit_ub) = (marked_lb.is_some(), marked_ub.is_some());
    lb = marked_lb.unwrap_or(lb);
    ub = marked_ub.unwrap_or(ub);
    if tlb == isize::MAX {
        tlb = 0;
        tub = 0;
    }
    Datatype {
        name: String::new(),
        size,
        lb,
        extent: ub - lb,
        true_lb: tlb,
        true_extent: tub - tlb,
        blocks,
        basic: basic.flatten(),
        align,
        elements,
        external32_native,
        predefined: false,
        explicit_lb,
        explicit_ub,
        committed: false,
        envelope: Envelope::default(),
    }
}

/// Pads the extent of a struct type to a multiple of its alignment, as a C
/// compiler pads a struct (MPI's rule for MPI_Type_create_struct), so that
/// arrays of the struct line up.
pub fn pad_to_alignment(mut t: Datatype) -> Datatype {
    let a = t.align.max(1) as isize;
    let rem = t.extent.rem_euclid(a);
    if rem != 0 && t.extent > 0 && !t.explicit_ub {
        t.extent += a - rem;
    }
    t
}

/// MPI_Type_create_resized: same data, new lower bound and extent.
pub fn resized(child: &Datatype, lb: isize, extent: isize) -> Datatype {
    Datatype {
        name: String::new(),
        lb,
        extent,
        predefined: false,
        explicit_lb: true,
        explicit_ub: true,
        committed: false,
        ..child.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::{pack, predefined_types};

    fn int() -> Datatype {
        predefined_types()[8].clone().unwrap()
    }

    #[test]
    fn vector_layout() {
        // MPI_Type_vector(3, 2, 4, MPI_INT): blocks of 2 ints every 4 ints.
        let i = int();
        let pieces: Vec<Piece> = (0..3)
            .map(|k| Piece {
                disp: k * 16,
                blocklen: 2,
                child: &i,
            })
            .collect();
        let t = build(&pieces);
        assert_eq!(t.size, 24);
        assert_eq!(t.extent, 40); // (3-1)*16 + 2*4
        assert_eq!(t.blocks, vec![(0, 8), (16, 8), (32, 8)]);
        assert_eq!(t.basic.map(|b| b.1), Some(6));
        let data: Vec<i32> = (0..12).collect();
        let mut out = Vec::new();
        // SAFETY: `data` holds one element of `t` (12 ints).
        unsafe { pack(&t, data.as_ptr().cast(), 1, &mut out) };
        let vals: Vec<i32> = out
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(vals, vec![0, 1, 4, 5, 8, 9]);
    }

    #[test]
    fn struct_with_gap_and_resize() {
        let i = int();
        let d = predefined_types()[15].clone().unwrap(); // MPI_DOUBLE
        let t = build(&[
            Piece {
                disp: 0,
                blocklen: 1,
                child: &i,
            },
            Piece {
                disp: 8,
                blocklen: 1,
                child: &d,
            },
        ]);
        assert_eq!((t.size, t.lb, t.extent), (12, 0, 16));
        // {int; char}: 5 bytes of data, padded to 8 like the C struct.
        let c = predefined_types()[1].clone().unwrap(); // MPI_CHAR
        let ic = pad_to_alignment(build(&[
            Piece {
                disp: 0,
                blocklen: 1,
                child: &i,
            },
            Piece {
                disp: 4,
                blocklen: 1,
                child: &c,
            },
        ]));
        assert_eq!((ic.size, ic.extent, ic.align), (5, 8, 4));
        assert_eq!(t.basic, None);
        let r = resized(&t, -4, 32);
        assert_eq!((r.lb, r.extent, r.true_lb, r.true_extent), (-4, 32, 0, 16));
    }

    #[test]
    fn empty_type() {
        let i = int();
        let t = build(&[Piece {
            disp: 100,
            blocklen: 0,
            child: &i,
        }]);
        assert_eq!((t.size, t.extent), (0, 0));
    }
}

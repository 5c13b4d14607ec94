//! Derived datatype constructors: every constructor is a list of pieces
//! (byte displacement, block length, child type) laid out per MPI's rules
//! for lower bound, upper bound, extent and size. The subarray and darray
//! constructors first choose the elements of a global array ([`Grid`]).

use super::datatype::Datatype;
use super::verify::signature;
use super::{class, MpiError, MpiResult};

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
pub const COMBINER_F90_REAL: i32 = 17;
pub const COMBINER_F90_COMPLEX: i32 = 18;
pub const COMBINER_F90_INTEGER: i32 = 19;

impl Envelope {
    /// The envelope of a constructor called with these arguments.
    pub fn new(
        combiner: i32,
        integers: Vec<i32>,
        addresses: Vec<isize>,
        datatypes: Vec<i32>,
    ) -> Self {
        Self {
            combiner,
            integers,
            addresses,
            datatypes,
            types: Vec::new(),
        }
    }
}

/// MPI_ORDER_C and MPI_ORDER_FORTRAN (mpi.h).
pub const ORDER_C: i32 = 56;
pub const ORDER_FORTRAN: i32 = 57;

/// MPI_DISTRIBUTE_BLOCK, _CYCLIC, _NONE and MPI_DISTRIBUTE_DFLT_DARG (mpi.h).
pub const DISTRIBUTE_BLOCK: i32 = 121;
pub const DISTRIBUTE_CYCLIC: i32 = 122;
pub const DISTRIBUTE_NONE: i32 = 123;
pub const DISTRIBUTE_DFLT_DARG: i32 = -49767;

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
    let mut external: Vec<(super::external32::Ext32, u64)> = Vec::new();
    let mut signature: Vec<(super::datatype::Basic, u64)> = Vec::new();
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
        if let [(kind, count)] = c.external[..] {
            super::external32::push_run(&mut external, kind, count * p.blocklen as u64);
        } else {
            for _ in 0..p.blocklen {
                for &(kind, count) in &c.external {
                    super::external32::push_run(&mut external, kind, count);
                }
            }
        }
        if let [(kind, count)] = c.signature[..] {
            signature::push(&mut signature, kind, count * p.blocklen as u64);
        } else {
            for _ in 0..p.blocklen {
                for &(kind, count) in &c.signature {
                    signature::push(&mut signature, kind, count);
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
        external,
        signature,
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

/// Blocks of `lens[i]` elements of `old` at byte displacements `disps[i]`
/// (the vector and indexed constructors).
pub fn blocks(old: &Datatype, lens: &[usize], disps: &[isize]) -> Datatype {
    let pieces: Vec<Piece> = lens
        .iter()
        .zip(disps)
        .map(|(&blocklen, &disp)| Piece {
            disp,
            blocklen,
            child: old,
        })
        .collect();
    build(&pieces)
}

/// Elements of a global array chosen by MPI_Type_create_subarray or
/// _darray: its dimensions in C order (the last varies fastest) and, per
/// dimension, the runs of indices (start, length) chosen there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub sizes: Vec<isize>,
    pub runs: Vec<Vec<(isize, usize)>>,
}

impl Grid {
    /// The type of the chosen elements of `old`, in array order; lower
    /// bound 0, extent the whole array.
    pub fn layout(&self, old: &Datatype) -> Datatype {
        let (sz, runs) = (&self.sizes, &self.runs);
        let nd = sz.len();
        let mut stride = vec![old.extent; nd];
        for d in (0..nd - 1).rev() {
            stride[d] = stride[d + 1] * sz[d + 1];
        }
        // The indices of the outer dimensions, then one block per run of the
        // last dimension at each combination of them.
        let outer: Vec<Vec<isize>> = runs[..nd - 1]
            .iter()
            .map(|r| r.iter().flat_map(|&(s, l)| s..s + l as isize).collect())
            .collect();
        let (mut lens, mut disps) = (Vec::new(), Vec::new());
        if outer.iter().all(|o| !o.is_empty()) {
            let mut counter = vec![0usize; nd - 1];
            'combinations: loop {
                let base: isize = (0..nd - 1).map(|d| outer[d][counter[d]] * stride[d]).sum();
                for &(s, l) in &runs[nd - 1] {
                    lens.push(l);
                    disps.push(base + s * stride[nd - 1]);
                }
                // Next combination, the last outer dimension fastest.
                let mut d = nd - 1;
                loop {
                    if d == 0 {
                        break 'combinations;
                    }
                    d -= 1;
                    counter[d] += 1;
                    if counter[d] < outer[d].len() {
                        continue 'combinations;
                    }
                    counter[d] = 0;
                }
            }
        }
        let t = blocks(old, &lens, &disps);
        let full: isize = sz.iter().product::<isize>() * old.extent;
        resized(&t, 0, full)
    }
}

/// The dimensions in C order of an array stored in `order`.
fn c_order(order: i32, nd: usize) -> MpiResult<Vec<usize>> {
    match order {
        ORDER_C => Ok((0..nd).collect()),
        ORDER_FORTRAN => Ok((0..nd).rev().collect()),
        _ => Err(MpiError::new(class::ARG, format!("invalid order {order}"))),
    }
}

/// One dimension of MPI_Type_create_subarray: the array's size, and the
/// subarray's size and start.
#[derive(Debug, Clone, Copy)]
pub struct SubarrayDim {
    pub size: i32,
    pub subsize: i32,
    pub start: i32,
}

/// The elements MPI_Type_create_subarray chooses: one run per dimension.
pub fn subarray(dims: &[SubarrayDim], order: i32) -> MpiResult<Grid> {
    for (d, x) in dims.iter().enumerate() {
        if x.size < 1 || x.subsize < 0 || x.start < 0 || x.subsize + x.start > x.size {
            return Err(MpiError::new(
                class::ARG,
                format!(
                    "dimension {d}: subsize {} at start {} does not fit in size {}",
                    x.subsize, x.start, x.size
                ),
            ));
        }
    }
    let idx = c_order(order, dims.len())?;
    Ok(Grid {
        sizes: idx.iter().map(|&d| dims[d].size as isize).collect(),
        runs: idx
            .iter()
            .map(|&d| vec![(dims[d].start as isize, dims[d].subsize as usize)])
            .collect(),
    })
}

/// One dimension of MPI_Type_create_darray: the global array's size, how
/// it is distributed (MPI_DISTRIBUTE_*), the distribution argument and the
/// number of processes along it.
#[derive(Debug, Clone, Copy)]
pub struct DarrayDim {
    pub gsize: i32,
    pub distrib: i32,
    pub darg: i32,
    pub psize: i32,
}

/// The elements MPI_Type_create_darray gives process `rank` of `size`,
/// the processes forming a row-major grid whatever the array order.
pub fn darray(size: i32, rank: i32, dims: &[DarrayDim], order: i32) -> MpiResult<Grid> {
    let ps: Vec<i32> = dims.iter().map(|x| x.psize).collect();
    if ps.iter().any(|&p| p < 1) || ps.iter().map(|&p| p as i64).product::<i64>() != size as i64 {
        return Err(MpiError::new(
            class::ARG,
            format!("the process grid {ps:?} does not have {size} processes"),
        ));
    }
    let gs: Vec<i32> = dims.iter().map(|x| x.gsize).collect();
    if gs.iter().any(|&g| g < 1) {
        return Err(MpiError::new(class::ARG, format!("invalid gsizes {gs:?}")));
    }
    let nd = dims.len();
    let mut coords = vec![0; nd];
    let mut r = rank;
    for d in (0..nd).rev() {
        coords[d] = r % ps[d];
        r /= ps[d];
    }
    let mut runs = Vec::with_capacity(nd);
    for (d, x) in dims.iter().enumerate() {
        runs.push(distribution(d, x, coords[d])?);
    }
    let idx = c_order(order, nd)?;
    Ok(Grid {
        sizes: idx.iter().map(|&d| gs[d] as isize).collect(),
        runs: idx.iter().map(|&d| runs[d].clone()).collect(),
    })
}

/// The runs of indices (start, length) of dimension `d` that process
/// coordinate `coord` along it owns.
fn distribution(d: usize, dim: &DarrayDim, coord: i32) -> MpiResult<Vec<(isize, usize)>> {
    let bad = |why: String| MpiError::new(class::ARG, format!("dimension {d}: {why}"));
    let DarrayDim {
        gsize,
        distrib,
        darg,
        psize,
    } = *dim;
    let (g, p, c) = (gsize as isize, psize as isize, coord as isize);
    match distrib {
        DISTRIBUTE_NONE => {
            if psize != 1 {
                return Err(bad(format!(
                    "MPI_DISTRIBUTE_NONE needs 1 process, not {psize}"
                )));
            }
            Ok(vec![(0, g as usize)])
        }
        DISTRIBUTE_BLOCK => {
            let b = if darg == DISTRIBUTE_DFLT_DARG {
                (g + p - 1) / p
            } else {
                darg as isize
            };
            if b < 1 || b * p < g {
                return Err(bad(format!(
                    "block size {b} times {psize} processes does not cover {gsize} elements"
                )));
            }
            let start = (c * b).min(g);
            Ok(vec![(
                start,
                ((c + 1) * b).min(g).saturating_sub(start) as usize,
            )])
        }
        DISTRIBUTE_CYCLIC => {
            let k = if darg == DISTRIBUTE_DFLT_DARG {
                1
            } else {
                darg as isize
            };
            if k < 1 {
                return Err(bad(format!("invalid cyclic block size {darg}")));
            }
            let mut runs = Vec::new();
            let mut start = c * k;
            while start < g {
                runs.push((start, (start + k).min(g).saturating_sub(start) as usize));
                start += p * k;
            }
            Ok(runs)
        }
        other => Err(bad(format!("invalid distribution {other}"))),
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
    fn external32_kinds_follow_the_type_map() {
        use crate::mpi::external32::Ext32;
        let t = predefined_types();
        let (long_int, double) = (t[37].clone().unwrap(), t[15].clone().unwrap());
        assert_eq!(long_int.name, "MPI_LONG_INT");
        // Three MPI_LONG_INTs then two doubles: the long/int pairs repeat.
        let s = build(&[
            Piece {
                disp: 0,
                blocklen: 3,
                child: &long_int,
            },
            Piece {
                disp: 48,
                blocklen: 2,
                child: &double,
            },
        ]);
        let (long, int) = (Ext32::Long { signed: true }, Ext32::Same(4));
        assert_eq!(
            s.external,
            [
                (long, 1),
                (int, 1),
                (long, 1),
                (int, 1),
                (long, 1),
                (int, 1),
                (Ext32::Same(8), 2)
            ]
        );
        // A block of one kind is one run, however long.
        let v = build(&[Piece {
            disp: 0,
            blocklen: 100_000,
            child: &double,
        }]);
        assert_eq!(v.external, [(Ext32::Same(8), 100_000)]);
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
    fn blocks_of_a_vector() {
        // MPI_Type_vector(2, 3, -4, MPI_INT): a negative stride puts the
        // second block first in memory.
        let i = int();
        let t = blocks(&i, &[3, 3], &[0, -16]);
        assert_eq!((t.size, t.lb, t.extent), (24, -16, 28));
        assert_eq!(t.blocks, vec![(0, 12), (-16, 12)]);
    }

    fn dim(size: i32, subsize: i32, start: i32) -> SubarrayDim {
        SubarrayDim {
            size,
            subsize,
            start,
        }
    }

    #[test]
    fn subarray_layout() {
        // The 2x3 block at (1, 1) of a 4x5 array of ints.
        let dims = [dim(4, 2, 1), dim(5, 3, 1)];
        let g = subarray(&dims, ORDER_C).unwrap();
        assert_eq!(g.sizes, vec![4, 5]);
        assert_eq!(g.runs, vec![vec![(1, 2)], vec![(1, 3)]]);
        let t = g.layout(&int());
        assert_eq!((t.size, t.lb, t.extent), (24, 0, 80));
        assert_eq!(t.blocks, vec![(24, 12), (44, 12)]);
        // In Fortran order the first dimension varies fastest.
        let f = subarray(&dims, ORDER_FORTRAN).unwrap();
        assert_eq!(f.sizes, vec![5, 4]);
        assert_eq!(f.layout(&int()).blocks, vec![(20, 8), (36, 8), (52, 8)]);
        let e = subarray(&[dim(4, 3, 2)], ORDER_C).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (
                class::ARG,
                "dimension 0: subsize 3 at start 2 does not fit in size 4"
            )
        );
        assert_eq!(subarray(&dims, 7).unwrap_err().message, "invalid order 7");
    }

    fn ddim(gsize: i32, distrib: i32, darg: i32, psize: i32) -> DarrayDim {
        DarrayDim {
            gsize,
            distrib,
            darg,
            psize,
        }
    }

    #[test]
    fn darray_distributions() {
        let block = ddim(10, DISTRIBUTE_BLOCK, DISTRIBUTE_DFLT_DARG, 3);
        let owned: Vec<_> = (0..3)
            .map(|r| darray(3, r, &[block], ORDER_C).unwrap().runs)
            .collect();
        assert_eq!(
            owned,
            vec![vec![vec![(0, 4)]], vec![vec![(4, 4)]], vec![vec![(8, 2)]]]
        );
        let cyclic = ddim(10, DISTRIBUTE_CYCLIC, 2, 2);
        assert_eq!(
            darray(2, 1, &[cyclic], ORDER_C).unwrap().runs,
            vec![vec![(2, 2), (6, 2)]]
        );
        // A 2x2 process grid is row-major: rank 1 is at (0, 1).
        let half = ddim(4, DISTRIBUTE_BLOCK, DISTRIBUTE_DFLT_DARG, 2);
        let g = darray(4, 1, &[half, half], ORDER_C).unwrap();
        assert_eq!(g.runs, vec![vec![(0, 2)], vec![(2, 2)]]);
        assert_eq!(g.layout(&int()).blocks, vec![(8, 8), (24, 8)]);
        let none = ddim(4, DISTRIBUTE_NONE, DISTRIBUTE_DFLT_DARG, 2);
        assert_eq!(
            darray(2, 0, &[none], ORDER_C).unwrap_err().message,
            "dimension 0: MPI_DISTRIBUTE_NONE needs 1 process, not 2"
        );
        assert_eq!(
            darray(3, 0, &[half, half], ORDER_C).unwrap_err().message,
            "the process grid [2, 2] does not have 3 processes"
        );
        let small = ddim(10, DISTRIBUTE_BLOCK, 3, 3);
        assert_eq!(
            darray(3, 0, &[small], ORDER_C).unwrap_err().message,
            "dimension 0: block size 3 times 3 processes does not cover 10 elements"
        );
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

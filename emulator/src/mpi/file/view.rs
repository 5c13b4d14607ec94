//! File views: which bytes of the file a member's data stream covers.
//!
//! A view is a displacement, an etype and a filetype: the filetype is
//! tiled from the displacement on, each tile one extent further, and the
//! member sees the bytes of the filetype's blocks, in type-map order, as
//! one stream of etypes. Offsets and file pointers count etypes of that
//! stream.

use std::rc::Rc;

use super::err;
use crate::mpi::datatype::{self, Datatype};
use crate::mpi::{class, Ctx, MpiResult};

/// MPI_DISPLACEMENT_CURRENT (MPICH's value).
pub const DISPLACEMENT_CURRENT: i64 = -54_278_278;

/// What MPI_File_set_view asks for.
#[derive(Debug, Clone, Copy)]
pub struct ViewSpec<'a> {
    pub disp: i64,
    pub etype: i32,
    pub filetype: i32,
    pub datarep: &'a str,
    pub info: i32,
}

/// Checks the type map of a view's etype or filetype as ROMIO does
/// (MPI_ERR_IO): displacements non-negative and non-decreasing, and, in a
/// file open for writing, blocks that do not overlap.
fn check_layout(ty: &Datatype, what: &str, writable: bool) -> MpiResult<()> {
    let mut previous: Option<(isize, isize)> = None;
    for &(off, len) in ty.blocks.iter().filter(|b| b.1 > 0) {
        let problem = if off < 0 {
            Some("a negative displacement")
        } else if previous.is_some_and(|(start, _)| off < start) {
            Some("decreasing displacements")
        } else if writable && previous.is_some_and(|(_, end)| off < end) {
            Some("overlapping blocks (in a file open for writing)")
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(err(class::IO, format!("the view's {what} has {p}")));
        }
        previous = Some((off, off + len as isize));
    }
    Ok(())
}

/// A member's view of a file.
#[derive(Debug, Clone)]
pub struct View {
    /// Where the first tile starts, in bytes.
    pub disp: i64,
    pub etype: Rc<Datatype>,
    pub filetype: Rc<Datatype>,
    /// The handles the view was set with (MPI_File_get_view returns the
    /// predefined ones as they are).
    pub etype_handle: i32,
    pub filetype_handle: i32,
    pub datarep: String,
}

impl View {
    /// The default view: bytes from the start of the file.
    pub fn bytes(byte: Rc<Datatype>) -> View {
        View {
            disp: 0,
            etype: Rc::clone(&byte),
            filetype: byte,
            etype_handle: datatype::BYTE,
            filetype_handle: datatype::BYTE,
            datarep: "native".to_string(),
        }
    }

    /// Checks and builds the view `v` asks for.
    pub fn new(w: &Ctx, v: ViewSpec, sequential: bool, writable: bool) -> MpiResult<View> {
        if v.disp < 0 && !(v.disp == DISPLACEMENT_CURRENT && sequential) {
            return Err(err(
                class::ARG,
                format!(
                    "invalid displacement {} (MPI_DISPLACEMENT_CURRENT is for files opened \
                     with MPI_MODE_SEQUENTIAL)",
                    v.disp
                ),
            ));
        }
        if !v.datarep.eq_ignore_ascii_case("native") {
            return Err(err(
                class::UNSUPPORTED_DATAREP,
                format!(
                    "data representation '{}' is not supported (only \"native\" is)",
                    v.datarep
                ),
            ));
        }
        let etype = w.mpi.committed(v.etype)?;
        let filetype = w.mpi.committed(v.filetype)?;
        if etype.size == 0 {
            return Err(err(class::TYPE, "the etype has no data"));
        }
        if filetype.size % etype.size != 0 {
            return Err(err(
                class::TYPE,
                format!(
                    "the filetype ({} bytes of data) is not made of whole etypes ({} bytes)",
                    filetype.size, etype.size
                ),
            ));
        }
        check_layout(&etype, "etype", writable)?;
        check_layout(&filetype, "filetype", writable)?;
        if filetype.size > 0 && filetype.extent <= 0 {
            return Err(err(class::TYPE, "the filetype has no extent"));
        }
        let disp = if v.disp == DISPLACEMENT_CURRENT {
            0
        } else {
            v.disp
        };
        Ok(View {
            disp,
            etype,
            filetype,
            etype_handle: v.etype,
            filetype_handle: v.filetype,
            datarep: "native".to_string(),
        })
    }

    /// The file pieces (offset, bytes) holding `len` bytes of the data
    /// stream from stream byte `start`, in stream order, adjacent pieces
    /// merged.
    pub fn pieces(&self, start: u64, len: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        if len == 0 {
            return out;
        }
        let disp = self.disp as u64;
        let ft = &self.filetype;
        let mut push = |off: u64, n: u64| match out.last_mut() {
            Some((o, l)) if *o + *l == off => *l += n,
            _ => out.push((off, n)),
        };
        if ft.is_contiguous() {
            push(disp + start, len);
            return out;
        }
        let size = ft.size as u64;
        let extent = ft.extent as u64;
        let mut tile = start / size;
        let mut skip = start % size;
        let mut left = len;
        while left > 0 {
            for &(off, blen) in ft.blocks.iter().filter(|b| b.1 > 0) {
                let blen = blen as u64;
                if skip >= blen {
                    skip -= blen;
                    continue;
                }
                let n = (blen - skip).min(left);
                push(disp + tile * extent + off as u64 + skip, n);
                skip = 0;
                left -= n;
                if left == 0 {
                    break;
                }
            }
            tile += 1;
        }
        out
    }

    /// The etypes of the stream that lie before file byte `eof` (where
    /// MPI_SEEK_END puts a pointer), a partial etype counted whole.
    pub fn etypes_before(&self, eof: u64) -> i64 {
        let disp = self.disp as u64;
        if eof <= disp {
            return 0;
        }
        let ft = &self.filetype;
        let bytes = if ft.is_contiguous() {
            eof - disp
        } else {
            let (size, extent) = (ft.size as u64, ft.extent as u64);
            let tiles = (eof - disp) / extent;
            let rest = (eof - disp) % extent;
            let partial: u64 = ft
                .blocks
                .iter()
                .map(|&(off, len)| rest.saturating_sub(off as u64).min(len as u64))
                .sum();
            tiles * size + partial
        };
        i64::try_from(bytes.div_ceil(self.etype.size as u64)).unwrap_or(i64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::typector;

    fn int() -> Rc<Datatype> {
        let all = datatype::predefined_types();
        Rc::new(all[datatype::INT as usize].clone().expect("MPI_INT"))
    }

    /// Rank `r` of `p` sees every p-th int from the r-th one.
    fn interleaved(r: i64, p: isize) -> View {
        let int = int();
        let one = typector::blocks(&int, &[1], &[0]);
        let tiled = typector::resized(&one, 0, 4 * p);
        View {
            disp: 4 * r,
            etype: Rc::clone(&int),
            filetype: Rc::new(tiled),
            etype_handle: datatype::INT,
            filetype_handle: 99,
            datarep: "native".into(),
        }
    }

    #[test]
    fn a_contiguous_view_is_one_piece_after_its_displacement() {
        let mut v = View::bytes(int());
        v.disp = 100;
        assert_eq!(v.pieces(8, 12), vec![(108, 12)]);
        assert!(v.pieces(8, 0).is_empty());
        assert_eq!(v.etypes_before(100), 0);
        assert_eq!(v.etypes_before(110), 3, "a partial etype counts");
    }

    #[test]
    fn an_interleaved_view_tiles_its_filetype() {
        let v = interleaved(1, 4);
        // Ints 0, 1, 2 of rank 1's stream are file ints 1, 5, 9.
        assert_eq!(v.pieces(0, 12), vec![(4, 4), (20, 4), (36, 4)]);
        // Starting inside an etype, and in a later tile.
        assert_eq!(v.pieces(6, 4), vec![(22, 2), (36, 2)]);
        // Ints 0..4 of the file hold one of rank 1's; 0..10 hold 3.
        assert_eq!(v.etypes_before(16), 1);
        assert_eq!(v.etypes_before(40), 3);
        assert_eq!(v.etypes_before(3), 0);
    }
}

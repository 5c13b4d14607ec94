//! MPI datatypes: the predefined ones and their layout; packing and
//! unpacking of (buffer, count, datatype) triples.
//!
//! A datatype is described by the byte blocks of one element (offset from
//! the element's base, length), merged where adjacent, plus its lower bound
//! and extent; element i of a buffer starts at `buf + i * extent`.

use std::ffi::c_void;
use std::rc::Rc;

use super::external32::{self, Ext32};
use super::{class, Mpi, MpiError, MpiResult};

/// The element kinds that reductions know how to combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basic {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    /// C `long double` (x87 extended on x86-64): not reducible here.
    LongDouble,
    Bool,
    ComplexF32,
    ComplexF64,
    ComplexLongDouble,
    /// MPI_BYTE and MPI_PACKED: raw bytes, bitwise ops only.
    Byte,
    /// MPI_CHAR / MPI_CHARACTER / MPI_WCHAR: characters, no arithmetic.
    Char,
    /// MINLOC/MAXLOC pair types: (value, int index).
    PairF32I32,
    PairF64I32,
    PairI64I32,
    PairI32I32,
    PairI16I32,
    PairLongDoubleI32,
    PairF64F64,
    PairF32F32,
}

/// A committed or uncommitted datatype.
#[derive(Debug, Clone)]
pub struct Datatype {
    pub name: String,
    /// Bytes of data in one element.
    pub size: usize,
    pub lb: isize,
    pub extent: isize,
    pub true_lb: isize,
    pub true_extent: isize,
    /// Byte blocks of one element relative to its base, in type-map order.
    pub blocks: Vec<(isize, usize)>,
    /// The homogeneous element kind and how many of them one element holds.
    pub basic: Option<(Basic, usize)>,
    /// Sizes of the basic elements of one element in type-map order,
    /// run-length encoded as (size in bytes, repeat count): what
    /// MPI_Get_elements counts.
    pub elements: Vec<(u32, u64)>,
    /// The basic elements of one element in type-map order as external32
    /// sees them, run-length encoded (a complex number is two reals).
    pub external: Vec<(Ext32, u64)>,
    /// The kinds of the basic elements of one element in type-map order,
    /// run-length encoded: its type signature (`verify::signature`).
    pub signature: Vec<(Basic, u64)>,
    /// Alignment of the most strictly aligned basic element (a struct's
    /// extent is padded to a multiple of it, as a C compiler pads).
    pub align: usize,
    pub predefined: bool,
    /// The lower (upper) bound was set explicitly (an MPI_LB (MPI_UB)
    /// marker, or a resize) and sticks through constructors built on it.
    pub explicit_lb: bool,
    pub explicit_ub: bool,
    pub committed: bool,
    /// How it was constructed (MPI_Type_get_envelope).
    pub envelope: super::typector::Envelope,
}

impl Datatype {
    /// One element is a single run of bytes starting at the base and the
    /// elements tile the buffer: (un)packing is a plain copy.
    pub fn is_contiguous(&self) -> bool {
        self.size as isize == self.extent
            && (self.size == 0 || (self.blocks.len() == 1 && self.blocks[0] == (0, self.size)))
    }

    fn predefined(name: &str, size: usize, basic: Option<Basic>) -> Self {
        Self::predefined_layout(name, &[(0, size)], size as isize, basic)
    }

    fn predefined_layout(
        name: &str,
        parts: &[(isize, usize)],
        extent: isize,
        basic: Option<Basic>,
    ) -> Self {
        let mut blocks: Vec<(isize, usize)> = Vec::new();
        for &(off, len) in parts {
            match blocks.last_mut() {
                Some(last) if last.0 + last.1 as isize == off => last.1 += len,
                _ => blocks.push((off, len)),
            }
        }
        let size = parts.iter().map(|p| p.1).sum();
        let true_ub = parts.iter().map(|p| p.0 + p.1 as isize).max().unwrap_or(0);
        Self {
            name: name.to_string(),
            size,
            lb: 0,
            extent,
            true_lb: 0,
            true_extent: true_ub,
            blocks: if size == 0 { Vec::new() } else { blocks },
            basic: basic.map(|b| (b, 1)),
            // A basic type is aligned on its size; a pair on its largest
            // part (complex numbers on their halves).
            align: alignment_of(parts, basic),
            elements: element_runs(parts, basic),
            external: external_runs(name, parts, basic),
            signature: super::verify::signature::of_basic(basic, size),
            predefined: true,
            explicit_lb: name == "MPI_LB",
            explicit_ub: name == "MPI_UB",
            committed: true,
            envelope: super::typector::Envelope {
                combiner: super::typector::COMBINER_NAMED,
                ..Default::default()
            },
        }
    }
}

/// The basic elements of a predefined type: one per part, except that a
/// complex number is one element of twice its parts' size.
fn element_runs(parts: &[(isize, usize)], basic: Option<Basic>) -> Vec<(u32, u64)> {
    let mut runs: Vec<(u32, u64)> = Vec::new();
    for &(_, len) in parts {
        push_run(&mut runs, len as u32, 1);
    }
    if matches!(basic, Some(Basic::Byte | Basic::Char)) && runs.is_empty() {
        push_run(&mut runs, 1, 1);
    }
    runs
}

/// Appends `count` elements of `size` bytes, merging with the last run.
pub fn push_run(runs: &mut Vec<(u32, u64)>, size: u32, count: u64) {
    if size > 0 {
        push_same(runs, size, count);
    }
}

/// Appends `count` items equal to `item` to run-length encoded `runs`,
/// merging with the last run (the element sizes, external32 kinds and
/// type signatures of datatypes).
pub fn push_same<K: PartialEq>(runs: &mut Vec<(K, u64)>, item: K, count: u64) {
    if count == 0 {
        return;
    }
    match runs.last_mut() {
        Some(last) if last.0 == item => last.1 += count,
        _ => runs.push((item, count)),
    }
}

/// Basic elements in `bytes` of data of `ty`: whole elements, then the
/// basic elements that fit whole in the rest; None if the data ends in the
/// middle of a basic element.
pub fn basic_elements(ty: &Datatype, bytes: u64) -> Option<u64> {
    if ty.size == 0 {
        return Some(0);
    }
    let per: u64 = ty.elements.iter().map(|r| r.1).sum();
    let full = bytes / ty.size as u64;
    let mut rest = bytes % ty.size as u64;
    let mut n = full * per;
    for &(size, count) in &ty.elements {
        if rest == 0 {
            break;
        }
        let take = (rest / u64::from(size)).min(count);
        n += take;
        rest -= take * u64::from(size);
        if take < count {
            break;
        }
    }
    (rest == 0).then_some(n)
}

/// The external32 kinds of the basic elements of a predefined type made of
/// `parts`: C long and unsigned long (alone or first in MPI_LONG_INT),
/// wchar_t and long double change size; every other part only changes
/// byte order, a complex number's as two reals.
fn external_runs(name: &str, parts: &[(isize, usize)], basic: Option<Basic>) -> Vec<(Ext32, u64)> {
    let mut runs = Vec::new();
    for (i, &(_, len)) in parts.iter().enumerate() {
        let (kind, n) = match (name, basic) {
            ("MPI_LONG" | "MPI_LONG_INT", _) if i == 0 => (Ext32::Long { signed: true }, 1),
            ("MPI_UNSIGNED_LONG", _) => (Ext32::Long { signed: false }, 1),
            ("MPI_WCHAR", _) => (Ext32::WChar, 1),
            (_, Some(Basic::LongDouble | Basic::PairLongDoubleI32)) if i == 0 => {
                (Ext32::LongDouble, 1)
            }
            (_, Some(Basic::ComplexLongDouble)) => (Ext32::LongDouble, 2),
            (_, Some(Basic::ComplexF32 | Basic::ComplexF64)) => (Ext32::Same((len / 2) as u8), 2),
            _ => (Ext32::Same(len as u8), 1),
        };
        external32::push_run(&mut runs, kind, n);
    }
    runs
}

/// The C alignment of a predefined type made of `parts`.
fn alignment_of(parts: &[(isize, usize)], basic: Option<Basic>) -> usize {
    let largest = parts.iter().map(|p| p.1).max().unwrap_or(1).max(1);
    let a = match basic {
        Some(Basic::ComplexF32 | Basic::ComplexF64 | Basic::ComplexLongDouble) => largest / 2,
        _ => largest,
    };
    a.clamp(1, 16)
}

/// The elements of `ty` in `bytes` (whole elements, or basic elements of
/// its type map when `basic`), or None when the data does not end on one
/// (MPI_Get_count and MPI_Get_elements).
pub fn elements_in(ty: &Datatype, bytes: u64, basic: bool) -> Option<u64> {
    if ty.size == 0 {
        return Some(0);
    }
    if basic {
        basic_elements(ty, bytes)
    } else {
        bytes
            .is_multiple_of(ty.size as u64)
            .then(|| bytes / ty.size as u64)
    }
}

/// The bytes of one element as MPI_Status_set_elements counts them: the
/// basic element of a type made of one kind, else the whole type.
pub fn element_unit(ty: &Datatype) -> usize {
    match ty.elements.as_slice() {
        [(size, _)] => *size as usize,
        _ => ty.size,
    }
}

/// MPI_BYTE's handle (the runtime's own messages of raw bytes).
pub const BYTE: i32 = 4;
/// MPI_INT's handle.
pub const INT: i32 = 8;
/// MPI_INT64_T.
pub const INT64: i32 = 20;
/// MPI_DOUBLE's handle.
pub const DOUBLE: i32 = 15;

/// The predefined datatypes, indexed by handle (0 is MPI_DATATYPE_NULL).
pub fn predefined_types() -> Vec<Option<Datatype>> {
    use Basic::*;
    let d = Datatype::predefined;
    let p = Datatype::predefined_layout;
    let long_double = std::mem::size_of::<f64>() * 2; // 16 on x86-64 and aarch64
    vec![
        None,
        Some(d("MPI_CHAR", 1, Some(Char))),
        Some(d("MPI_SIGNED_CHAR", 1, Some(I8))),
        Some(d("MPI_UNSIGNED_CHAR", 1, Some(U8))),
        Some(d("MPI_BYTE", 1, Some(Byte))),
        Some(d("MPI_WCHAR", 4, Some(Char))),
        Some(d("MPI_SHORT", 2, Some(I16))),
        Some(d("MPI_UNSIGNED_SHORT", 2, Some(U16))),
        Some(d("MPI_INT", 4, Some(I32))),
        Some(d("MPI_UNSIGNED", 4, Some(U32))),
        Some(d("MPI_LONG", 8, Some(I64))),
        Some(d("MPI_UNSIGNED_LONG", 8, Some(U64))),
        Some(d("MPI_LONG_LONG_INT", 8, Some(I64))),
        Some(d("MPI_UNSIGNED_LONG_LONG", 8, Some(U64))),
        Some(d("MPI_FLOAT", 4, Some(F32))),
        Some(d("MPI_DOUBLE", 8, Some(F64))),
        Some(d("MPI_LONG_DOUBLE", long_double, Some(LongDouble))),
        Some(d("MPI_INT8_T", 1, Some(I8))),
        Some(d("MPI_INT16_T", 2, Some(I16))),
        Some(d("MPI_INT32_T", 4, Some(I32))),
        Some(d("MPI_INT64_T", 8, Some(I64))),
        Some(d("MPI_UINT8_T", 1, Some(U8))),
        Some(d("MPI_UINT16_T", 2, Some(U16))),
        Some(d("MPI_UINT32_T", 4, Some(U32))),
        Some(d("MPI_UINT64_T", 8, Some(U64))),
        Some(d("MPI_C_BOOL", 1, Some(Bool))),
        // MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one type: MPICH names it so.
        Some(d("MPI_C_COMPLEX", 8, Some(ComplexF32))),
        Some(d("MPI_C_DOUBLE_COMPLEX", 16, Some(ComplexF64))),
        Some(d(
            "MPI_C_LONG_DOUBLE_COMPLEX",
            2 * long_double,
            Some(ComplexLongDouble),
        )),
        Some(d("MPI_AINT", 8, Some(I64))),
        Some(d("MPI_OFFSET", 8, Some(I64))),
        Some(d("MPI_COUNT", 8, Some(I64))),
        Some(d("MPI_PACKED", 1, Some(Byte))),
        Some(p("MPI_LB", &[], 0, None)),
        Some(p("MPI_UB", &[], 0, None)),
        Some(p("MPI_FLOAT_INT", &[(0, 4), (4, 4)], 8, Some(PairF32I32))),
        Some(p("MPI_DOUBLE_INT", &[(0, 8), (8, 4)], 16, Some(PairF64I32))),
        Some(p("MPI_LONG_INT", &[(0, 8), (8, 4)], 16, Some(PairI64I32))),
        Some(p("MPI_2INT", &[(0, 4), (4, 4)], 8, Some(PairI32I32))),
        Some(p("MPI_SHORT_INT", &[(0, 2), (4, 4)], 8, Some(PairI16I32))),
        Some(p(
            "MPI_LONG_DOUBLE_INT",
            &[(0, long_double), (long_double as isize, 4)],
            2 * long_double as isize,
            Some(PairLongDoubleI32),
        )),
        Some(d("MPI_CXX_BOOL", 1, Some(Bool))),
        Some(d("MPI_CXX_FLOAT_COMPLEX", 8, Some(ComplexF32))),
        Some(d("MPI_CXX_DOUBLE_COMPLEX", 16, Some(ComplexF64))),
        Some(d(
            "MPI_CXX_LONG_DOUBLE_COMPLEX",
            2 * long_double,
            Some(ComplexLongDouble),
        )),
        Some(d("MPI_INTEGER", 4, Some(I32))),
        Some(d("MPI_REAL", 4, Some(F32))),
        Some(d("MPI_DOUBLE_PRECISION", 8, Some(F64))),
        Some(d("MPI_LOGICAL", 4, Some(I32))),
        Some(d("MPI_CHARACTER", 1, Some(Char))),
        Some(d("MPI_COMPLEX", 8, Some(ComplexF32))),
        Some(d("MPI_DOUBLE_COMPLEX", 16, Some(ComplexF64))),
        Some(p("MPI_2INTEGER", &[(0, 4), (4, 4)], 8, Some(PairI32I32))),
        Some(p("MPI_2REAL", &[(0, 4), (4, 4)], 8, Some(PairF32F32))),
        Some(p(
            "MPI_2DOUBLE_PRECISION",
            &[(0, 8), (8, 8)],
            16,
            Some(PairF64F64),
        )),
        Some(d("MPI_INTEGER1", 1, Some(I8))),
        Some(d("MPI_INTEGER2", 2, Some(I16))),
        Some(d("MPI_INTEGER4", 4, Some(I32))),
        Some(d("MPI_INTEGER8", 8, Some(I64))),
        Some(d("MPI_REAL4", 4, Some(F32))),
        Some(d("MPI_REAL8", 8, Some(F64))),
        Some(d("MPI_REAL16", long_double, Some(LongDouble))),
        Some(d("MPI_COMPLEX8", 8, Some(ComplexF32))),
        Some(d("MPI_COMPLEX16", 16, Some(ComplexF64))),
        Some(d("MPI_COMPLEX32", 2 * long_double, Some(ComplexLongDouble))),
        // Fortran INTEGER*16 (C __int128): moved, not reduced.
        Some(d("MPI_INTEGER16", 16, None)),
    ]
}

/// Number of predefined handles (handles below this are predefined).
pub fn predefined_count() -> usize {
    predefined_names().len()
}

/// The names of the predefined datatypes, indexed by handle (built once).
pub fn predefined_names() -> &'static [Option<String>] {
    static NAMES: std::sync::OnceLock<Vec<Option<String>>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        predefined_types()
            .into_iter()
            .map(|t| t.map(|t| t.name))
            .collect()
    })
}

/// The handle of the predefined datatype called `name`.
pub fn predefined_handle(name: &str) -> Option<i32> {
    let i = predefined_names()
        .iter()
        .position(|n| n.as_deref() == Some(name))?;
    i32::try_from(i).ok()
}

/// Copies `count` elements of `ty` at `buf` into `out` (appending).
///
/// # Safety
/// `buf` must point to `count` valid elements of `ty` (the caller's MPI
/// contract).
pub unsafe fn pack(ty: &Datatype, buf: *const c_void, count: usize, out: &mut Vec<u8>) {
    pack_with(ty, buf as usize, count, out, |start, len, out| {
        // SAFETY: per the contract, each run lies in the caller's buffer.
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(start as *const u8, len) })
    });
}

/// [`pack`] with each contiguous run at `start` of `len` bytes appended to
/// `out` by `read(start, len, out)`, which must append `len` bytes.
pub fn pack_with(
    ty: &Datatype,
    buf: usize,
    count: usize,
    out: &mut Vec<u8>,
    mut read: impl FnMut(usize, usize, &mut Vec<u8>),
) {
    if ty.size == 0 || count == 0 {
        return;
    }
    out.reserve(count * ty.size);
    for (start, len) in runs(ty, buf, count) {
        read(start, len, out);
    }
}

/// The contiguous byte runs of `count` elements of `ty` at `buf`, in type
/// order, adjacent runs merged (a contiguous type is one run).
pub(crate) fn runs(
    ty: &Datatype,
    buf: usize,
    count: usize,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let contiguous = ty.is_contiguous();
    let pieces = (0..if contiguous { 0 } else { count }).flat_map(move |i| {
        let elem = buf.wrapping_add_signed(i as isize * ty.extent);
        ty.blocks
            .iter()
            .filter(|b| b.1 > 0)
            .map(move |&(off, len)| (elem.wrapping_add_signed(off), len))
    });
    let whole = contiguous.then_some((buf, count * ty.size));
    let mut pieces = whole.into_iter().chain(pieces).peekable();
    std::iter::from_fn(move || {
        let (start, mut len) = pieces.next()?;
        while let Some(&(next, more)) = pieces.peek() {
            if next != start + len {
                break;
            }
            len += more;
            pieces.next();
        }
        Some((start, len))
    })
}

/// Copies the first `bytes` bytes of `scount` elements of `sty` at `sbuf`
/// into elements of `rty` at `rbuf`, without packing them in between:
/// the two run lists are walked together and each common piece goes to
/// `copy(src, dst, len)`, which may skip it.
pub fn copy_typed(
    sty: &Datatype,
    sbuf: usize,
    scount: usize,
    rty: &Datatype,
    rbuf: usize,
    bytes: usize,
    mut copy: impl FnMut(usize, usize, usize),
) {
    if sty.size == 0 || rty.size == 0 || bytes == 0 {
        return;
    }
    let rcount = bytes.div_ceil(rty.size);
    let mut src = runs(sty, sbuf, scount).filter(|r| r.1 > 0);
    let mut dst = runs(rty, rbuf, rcount).filter(|r| r.1 > 0);
    let (mut s, mut d) = (src.next(), dst.next());
    let mut left = bytes;
    while let (Some((sa, sl)), Some((da, dl))) = (s, d) {
        if left == 0 {
            break;
        }
        let n = sl.min(dl).min(left);
        copy(sa, da, n);
        left -= n;
        s = if sl > n {
            Some((sa + n, sl - n))
        } else {
            src.next()
        };
        d = if dl > n {
            Some((da + n, dl - n))
        } else {
            dst.next()
        };
    }
}

/// Copies packed bytes `data` into elements of `ty` at `buf`; stops when
/// `data` runs out (a short message fills a prefix). Returns bytes written.
///
/// # Safety
/// `buf` must have room for the elements that `data` fills.
pub unsafe fn unpack(ty: &Datatype, buf: *mut c_void, data: &[u8]) -> usize {
    unpack_with(ty, buf as usize, data, |piece, dst| {
        // SAFETY: the caller's contract: the piece's place lies in `buf`.
        unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), dst as *mut u8, piece.len()) }
    })
}

/// [`unpack`] with each contiguous piece handed to `write(piece, address)`,
/// which may skip it.
pub fn unpack_with(
    ty: &Datatype,
    buf: usize,
    data: &[u8],
    mut write: impl FnMut(&[u8], usize),
) -> usize {
    if ty.size == 0 || data.is_empty() {
        return 0;
    }
    let mut pos = 0;
    for (start, len) in runs(ty, buf, data.len().div_ceil(ty.size)) {
        if pos >= data.len() {
            break;
        }
        let n = len.min(data.len() - pos);
        write(&data[pos..pos + n], start);
        pos += n;
    }
    pos
}

/// Bytes of `count` elements of `ty` in external32 (MPI_Pack_external_size).
pub fn external32_size(ty: &Datatype, count: usize) -> usize {
    count * external32::external_size(&ty.external)
}

/// MPI_TYPECLASS_REAL, _INTEGER and _COMPLEX (mpi.h).
pub const TYPECLASS_REAL: i32 = 1;
pub const TYPECLASS_INTEGER: i32 = 2;
pub const TYPECLASS_COMPLEX: i32 = 3;

/// The name of the Fortran sized type of a type class and size
/// (MPI_Type_match_size).
pub fn sized_type_name(typeclass: i32, size: i32) -> MpiResult<&'static str> {
    Ok(match (typeclass, size) {
        (TYPECLASS_REAL, 4) => "MPI_REAL4",
        (TYPECLASS_REAL, 8) => "MPI_REAL8",
        (TYPECLASS_REAL, 16) => "MPI_REAL16",
        (TYPECLASS_INTEGER, 1) => "MPI_INTEGER1",
        (TYPECLASS_INTEGER, 2) => "MPI_INTEGER2",
        (TYPECLASS_INTEGER, 4) => "MPI_INTEGER4",
        (TYPECLASS_INTEGER, 8) => "MPI_INTEGER8",
        (TYPECLASS_INTEGER, 16) => "MPI_INTEGER16",
        (TYPECLASS_COMPLEX, 8) => "MPI_COMPLEX8",
        (TYPECLASS_COMPLEX, 16) => "MPI_COMPLEX16",
        (TYPECLASS_COMPLEX, 32) => "MPI_COMPLEX32",
        (TYPECLASS_REAL..=TYPECLASS_COMPLEX, _) => {
            return Err(MpiError::new(
                class::ARG,
                format!("no type of class {typeclass} has {size} bytes"),
            ))
        }
        _ => {
            return Err(MpiError::new(
                class::ARG,
                format!(
                    "invalid type class {typeclass} (MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX)"
                ),
            ))
        }
    })
}

impl Mpi {
    /// The committed datatype behind a handle.
    pub fn committed(&self, handle: i32) -> MpiResult<Rc<Datatype>> {
        let t = self.datatype(handle)?;
        if t.committed {
            Ok(Rc::clone(t))
        } else {
            Err(MpiError::new(
                class::TYPE,
                format!("datatype {} is not committed", t.name),
            ))
        }
    }

    pub fn datatype(&self, handle: i32) -> MpiResult<&Rc<Datatype>> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.datatypes.get(h))
            .and_then(Option::as_ref)
            .ok_or_else(|| MpiError::new(class::TYPE, format!("invalid datatype handle {handle}")))
    }

    /// Stores a new derived datatype; returns its handle.
    pub fn add_datatype(&mut self, t: Datatype) -> i32 {
        let first_free = self
            .datatypes
            .iter()
            .enumerate()
            .skip(predefined_count())
            .find(|(_, d)| d.is_none())
            .map(|(i, _)| i);
        match first_free {
            Some(i) => {
                self.datatypes[i] = Some(Rc::new(t));
                i as i32
            }
            None => {
                self.datatypes.push(Some(Rc::new(t)));
                (self.datatypes.len() - 1) as i32
            }
        }
    }

    /// The handle of the predefined type named `name`.
    pub fn predefined_datatype(&self, name: &str) -> MpiResult<i32> {
        self.datatypes
            .iter()
            .position(|t| t.as_ref().is_some_and(|t| t.predefined && t.name == name))
            .map(|h| h as i32)
            .ok_or_else(|| MpiError::new(class::INTERN, format!("{name} is missing")))
    }

    /// Replaces the datatype behind `handle` by a changed copy (messages
    /// in flight keep the old one).
    pub fn update_datatype(
        &mut self,
        handle: i32,
        change: impl FnOnce(&mut Datatype),
    ) -> MpiResult<()> {
        let mut t = (**self.datatype(handle)?).clone();
        change(&mut t);
        self.datatypes[handle as usize] = Some(Rc::new(t));
        Ok(())
    }

    /// Frees a derived datatype (messages in flight keep their own copy).
    pub fn free_datatype(&mut self, handle: i32) -> MpiResult<()> {
        let t = self.datatype(handle)?;
        if t.predefined {
            return Err(MpiError::new(
                class::TYPE,
                format!("{} is predefined and cannot be freed", t.name),
            ));
        }
        self.datatypes[handle as usize] = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_layouts() {
        let t = predefined_types();
        let double_int = t[36].as_ref().unwrap();
        assert_eq!(double_int.name, "MPI_DOUBLE_INT");
        assert_eq!((double_int.size, double_int.extent), (12, 16));
        assert!(!double_int.is_contiguous());
        let int = t[8].as_ref().unwrap();
        assert!(int.is_contiguous());
        let short_int = t[39].as_ref().unwrap();
        assert_eq!(short_int.blocks, vec![(0, 2), (4, 4)]);
    }

    #[test]
    fn basic_elements_count_partial_elements() {
        let t = predefined_types();
        let double_int = t[36].as_ref().unwrap();
        assert_eq!(double_int.elements, vec![(8, 1), (4, 1)]);
        assert_eq!(basic_elements(double_int, 12), Some(2));
        assert_eq!(basic_elements(double_int, 8), Some(1));
        assert_eq!(basic_elements(double_int, 24 + 8), Some(5));
        assert_eq!(basic_elements(double_int, 10), None);
        let complex = t[27].as_ref().unwrap(); // MPI_C_DOUBLE_COMPLEX: one element
        assert_eq!(basic_elements(complex, 32), Some(2));
    }

    #[test]
    fn pack_unpack_round_trip_with_holes() {
        let t = predefined_types();
        let ty = t[39].as_ref().unwrap(); // MPI_SHORT_INT: 2 bytes, hole, 4 bytes
        let src: [u8; 16] = [
            1, 2, 0xff, 0xff, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 9, 10, 11, 12,
        ];
        let mut packed = Vec::new();
        // SAFETY: `src` holds two elements of `ty` (its extent is 8).
        unsafe { pack(ty, src.as_ptr().cast(), 2, &mut packed) };
        assert_eq!(packed, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        let mut dst = [0u8; 16];
        // SAFETY: `dst` has room for two elements of `ty`.
        let n = unsafe { unpack(ty, dst.as_mut_ptr().cast(), &packed) };
        assert_eq!(n, 12);
        assert_eq!(dst, [1, 2, 0, 0, 3, 4, 5, 6, 7, 8, 0, 0, 9, 10, 11, 12]);
    }

    #[test]
    fn external32_sizes_of_the_predefined_types() {
        let t = predefined_types();
        let ext = |name: &str| {
            let ty = t.iter().flatten().find(|ty| ty.name == name).unwrap();
            external32_size(ty, 1)
        };
        // MPI 3.1 Table 13.2.
        for (name, size) in [
            ("MPI_CHAR", 1),
            ("MPI_WCHAR", 2),
            ("MPI_SHORT", 2),
            ("MPI_INT", 4),
            ("MPI_LONG", 4),
            ("MPI_UNSIGNED_LONG", 4),
            ("MPI_LONG_LONG_INT", 8),
            ("MPI_FLOAT", 4),
            ("MPI_DOUBLE", 8),
            ("MPI_LONG_DOUBLE", 16),
            ("MPI_C_BOOL", 1),
            ("MPI_AINT", 8),
            ("MPI_C_DOUBLE_COMPLEX", 16),
            ("MPI_C_LONG_DOUBLE_COMPLEX", 32),
            ("MPI_LONG_INT", 8),
            ("MPI_SHORT_INT", 6),
            ("MPI_LONG_DOUBLE_INT", 20),
            ("MPI_INTEGER16", 16),
            ("MPI_LB", 0),
        ] {
            assert_eq!(ext(name), size, "{name}");
        }
    }

    #[test]
    fn external32_of_a_complex_swaps_each_half() {
        let t = predefined_types();
        let complex = t[26].as_ref().unwrap(); // MPI_C_COMPLEX
        assert_eq!(complex.external, [(Ext32::Same(4), 2)]);
        let c: Vec<u8> = [1.0f32, -2.0]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let e = external32::encode(&complex.external, 1, &c).unwrap();
        let halves: Vec<u8> = [1.0f32, -2.0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        assert_eq!(e, halves);
    }

    #[test]
    fn sized_types_by_class() {
        assert_eq!(sized_type_name(TYPECLASS_REAL, 8).unwrap(), "MPI_REAL8");
        assert_eq!(
            sized_type_name(TYPECLASS_COMPLEX, 16).unwrap(),
            "MPI_COMPLEX16"
        );
        let e = sized_type_name(TYPECLASS_INTEGER, 3).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::ARG, "no type of class 2 has 3 bytes")
        );
        assert!(sized_type_name(4, 4)
            .unwrap_err()
            .message
            .starts_with("invalid type class 4"));
        // Every name is a predefined type.
        let names: Vec<String> = predefined_types()
            .into_iter()
            .flatten()
            .map(|t| t.name)
            .collect();
        for (class_, size) in [(1, 4), (1, 8), (1, 16), (2, 1), (2, 16), (3, 32)] {
            let name = sized_type_name(class_, size).unwrap();
            assert!(names.iter().any(|n| n == name), "{name}");
        }
    }

    #[test]
    fn typed_copies_walk_both_layouts() {
        let t = predefined_types();
        let short_int = t[39].as_ref().unwrap(); // 2 bytes, hole, 4 bytes
        let bytes = t[1].as_ref().unwrap(); // MPI_CHAR-like, contiguous
        assert!(bytes.is_contiguous());
        let src: [u8; 16] = [
            1, 2, 0xff, 0xff, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 9, 10, 11, 12,
        ];
        let mut dst = [0u8; 12];
        let mut pieces = Vec::new();
        let (s, d) = (src.as_ptr() as usize, dst.as_mut_ptr() as usize);
        copy_typed(short_int, s, 2, bytes, d, 12, |a, b, n| {
            pieces.push((a - s, b - d, n));
            // SAFETY: the pieces lie in src and dst (checked below).
            unsafe { std::ptr::copy(a as *const u8, b as *mut u8, n) };
        });
        assert_eq!(dst, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        assert_eq!(pieces, vec![(0, 0, 2), (4, 2, 6), (12, 8, 4)]);
        // Back into the holey layout, and a short message fills a prefix.
        let mut back = [0u8; 16];
        let b0 = back.as_mut_ptr() as usize;
        copy_typed(bytes, d, 12, short_int, b0, 7, |a, b, n| {
            // SAFETY: as above.
            unsafe { std::ptr::copy(a as *const u8, b as *mut u8, n) };
        });
        assert_eq!(back, [1, 2, 0, 0, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0]);
    }
}

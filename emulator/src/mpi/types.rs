//! Datatype calls: the constructors (a type map from `typector`, stored
//! with the envelope of the call that made it), duplication, commit and
//! free, names, contents, size matching, and packing, native and
//! external32.

use std::ffi::c_void;
use std::rc::Rc;

use super::check::ArgArray;
use super::comm::Duplicate;
use super::datatype::{self, Datatype};
use super::external32;
use super::ledger::Kind;
use super::typector::{self, DarrayDim, Envelope, Piece, SubarrayDim};
use super::{attr, check, class, MpiError, MpiResult, UNDEFINED};
use crate::sim;

/// The datatype behind a handle, committed or not.
pub fn get(dt: i32) -> MpiResult<Rc<Datatype>> {
    sim::mpi(|w| w.mpi.datatype(dt).map(Rc::clone))
}

/// Stores a new type with the envelope of its constructor; returns its
/// handle.
fn store(mut t: Datatype, mut env: Envelope) -> MpiResult<i32> {
    sim::mpi(|w| {
        env.types = env
            .datatypes
            .iter()
            .map(|&d| w.mpi.datatype(d).map(Rc::clone))
            .collect::<MpiResult<_>>()?;
        t.envelope = env;
        let h = w.mpi.add_datatype(t);
        w.note_created(Kind::Datatype, h);
        Ok(h)
    })
}

fn blocklengths(lens: &[i32]) -> MpiResult<Vec<usize>> {
    lens.iter()
        .map(|&x| check::non_negative(x, "blocklength"))
        .collect()
}

/// Byte displacements of displacements counted in extents of `old`.
fn scaled(disps: &[i32], old: &Datatype) -> Vec<isize> {
    disps.iter().map(|&x| x as isize * old.extent).collect()
}

/// MPI_Type_contiguous.
pub fn contiguous(count: i32, old: i32) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let o = get(old)?;
    let t = typector::blocks(&o, &[n], &[0]);
    store(
        t,
        Envelope::new(
            typector::COMBINER_CONTIGUOUS,
            vec![count],
            vec![],
            vec![old],
        ),
    )
}

/// MPI_Type_vector: the stride counts extents of `old`.
pub fn vector(count: i32, blocklen: i32, stride: i32, old: i32) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let b = check::non_negative(blocklen, "blocklength")?;
    let o = get(old)?;
    let disps: Vec<isize> = (0..n as isize)
        .map(|k| k * stride as isize * o.extent)
        .collect();
    let t = typector::blocks(&o, &vec![b; n], &disps);
    store(
        t,
        Envelope::new(
            typector::COMBINER_VECTOR,
            vec![count, blocklen, stride],
            vec![],
            vec![old],
        ),
    )
}

/// MPI_Type_create_hvector (and MPI-1's MPI_Type_hvector): the stride is
/// in bytes.
pub fn hvector(count: i32, blocklen: i32, stride: isize, old: i32) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let b = check::non_negative(blocklen, "blocklength")?;
    let o = get(old)?;
    let disps: Vec<isize> = (0..n as isize).map(|k| k * stride).collect();
    let t = typector::blocks(&o, &vec![b; n], &disps);
    store(
        t,
        Envelope::new(
            typector::COMBINER_HVECTOR,
            vec![count, blocklen],
            vec![stride],
            vec![old],
        ),
    )
}

/// MPI_Type_indexed: `count` block lengths and displacements (in extents
/// of `old`).
pub fn indexed(
    count: i32,
    lens: &dyn ArgArray<i32>,
    disps: &dyn ArgArray<i32>,
    old: i32,
) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let l = check::array(lens, n, "array_of_blocklengths")?;
    let d = check::array(disps, n, "array_of_displacements")?;
    let o = get(old)?;
    let t = typector::blocks(&o, &blocklengths(&l)?, &scaled(&d, &o));
    let mut ints = vec![count];
    ints.extend_from_slice(&l);
    ints.extend_from_slice(&d);
    store(
        t,
        Envelope::new(typector::COMBINER_INDEXED, ints, vec![], vec![old]),
    )
}

/// MPI_Type_create_hindexed (and MPI-1's MPI_Type_hindexed): the
/// displacements are in bytes.
pub fn hindexed(
    count: i32,
    lens: &dyn ArgArray<i32>,
    disps: &dyn ArgArray<isize>,
    old: i32,
) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let l = check::array(lens, n, "array_of_blocklengths")?;
    let d = check::array(disps, n, "array_of_displacements")?;
    let o = get(old)?;
    let t = typector::blocks(&o, &blocklengths(&l)?, &d);
    let mut ints = vec![count];
    ints.extend_from_slice(&l);
    store(
        t,
        Envelope::new(typector::COMBINER_HINDEXED, ints, d, vec![old]),
    )
}

/// MPI_Type_create_indexed_block: blocks of one length at displacements
/// in extents of `old`.
pub fn indexed_block(
    count: i32,
    blocklen: i32,
    disps: &dyn ArgArray<i32>,
    old: i32,
) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let b = check::non_negative(blocklen, "blocklength")?;
    let d = check::array(disps, n, "array_of_displacements")?;
    let o = get(old)?;
    let t = typector::blocks(&o, &vec![b; n], &scaled(&d, &o));
    let mut ints = vec![count, blocklen];
    ints.extend_from_slice(&d);
    store(
        t,
        Envelope::new(typector::COMBINER_INDEXED_BLOCK, ints, vec![], vec![old]),
    )
}

/// MPI_Type_create_hindexed_block: blocks of one length at byte
/// displacements.
pub fn hindexed_block(
    count: i32,
    blocklen: i32,
    disps: &dyn ArgArray<isize>,
    old: i32,
) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let b = check::non_negative(blocklen, "blocklength")?;
    let d = check::array(disps, n, "array_of_displacements")?;
    let o = get(old)?;
    let t = typector::blocks(&o, &vec![b; n], &d);
    store(
        t,
        Envelope::new(
            typector::COMBINER_HINDEXED_BLOCK,
            vec![count, blocklen],
            d,
            vec![old],
        ),
    )
}

/// MPI_Type_create_struct (and MPI-1's MPI_Type_struct): a block of its
/// own type at each byte displacement, the extent padded as a C struct's.
pub fn create_struct(
    count: i32,
    lens: &dyn ArgArray<i32>,
    disps: &dyn ArgArray<isize>,
    types: &dyn ArgArray<i32>,
) -> MpiResult<i32> {
    let n = check::non_negative(count, "count")?;
    let l = check::array(lens, n, "array_of_blocklengths")?;
    let d = check::array(disps, n, "array_of_displacements")?;
    let ts = check::array(types, n, "array_of_types")?;
    let children: Vec<Rc<Datatype>> = ts.iter().map(|&t| get(t)).collect::<MpiResult<_>>()?;
    let lens_u = blocklengths(&l)?;
    let pieces: Vec<Piece> = (0..n)
        .map(|i| Piece {
            disp: d[i],
            blocklen: lens_u[i],
            child: &children[i],
        })
        .collect();
    let t = typector::pad_to_alignment(typector::build(&pieces));
    let mut ints = vec![count];
    ints.extend_from_slice(&l);
    store(t, Envelope::new(typector::COMBINER_STRUCT, ints, d, ts))
}

/// MPI_Type_create_resized.
pub fn resized(old: i32, lb: isize, extent: isize) -> MpiResult<i32> {
    let o = get(old)?;
    let t = typector::resized(&o, lb, extent);
    store(
        t,
        Envelope::new(
            typector::COMBINER_RESIZED,
            vec![],
            vec![lb, extent],
            vec![old],
        ),
    )
}

/// MPI_Type_dup: a derived copy of `old` with its attributes copied by
/// the program's callbacks; a failing one fails the duplication.
pub fn dup(old: i32) -> MpiResult<Duplicate> {
    let o = get(old)?;
    let mut t = (*o).clone();
    t.predefined = false;
    // Names are not propagated (MPI 3.1, 6.8), as for communicators.
    t.name = String::new();
    let new = store(
        t,
        Envelope::new(typector::COMBINER_DUP, vec![], vec![], vec![old]),
    )?;
    if let Err(e) = attr::copy_all(attr::Kind::Type, old, new) {
        sim::mpi(|w| {
            w.mpi.free_datatype(new)?;
            w.note_freed(Kind::Datatype, new);
            Ok::<_, MpiError>(())
        })?;
        return Ok(Duplicate::Failed(e));
    }
    Ok(Duplicate::Made(new))
}

/// The arguments of MPI_Type_create_subarray: `ndims` sizes, subsizes
/// and starts.
pub struct Subarray<'a> {
    pub ndims: i32,
    pub sizes: &'a dyn ArgArray<i32>,
    pub subsizes: &'a dyn ArgArray<i32>,
    pub starts: &'a dyn ArgArray<i32>,
    pub order: i32,
    pub old: i32,
}

/// The number of dimensions of a subarray or darray: at least 1.
fn array_dims(ndims: i32) -> MpiResult<usize> {
    let nd = check::non_negative(ndims, "ndims")?;
    if nd == 0 {
        return Err(MpiError::new(class::ARG, "ndims must be at least 1"));
    }
    Ok(nd)
}

/// MPI_Type_create_subarray.
pub fn subarray(a: &Subarray) -> MpiResult<i32> {
    let nd = array_dims(a.ndims)?;
    let sz = check::array(a.sizes, nd, "sizes")?;
    let sub = check::array(a.subsizes, nd, "subsizes")?;
    let st = check::array(a.starts, nd, "starts")?;
    let dims: Vec<SubarrayDim> = (0..nd)
        .map(|d| SubarrayDim {
            size: sz[d],
            subsize: sub[d],
            start: st[d],
        })
        .collect();
    let grid = typector::subarray(&dims, a.order)?;
    let o = get(a.old)?;
    let mut ints = vec![a.ndims];
    for v in [sz, sub, st] {
        ints.extend(v);
    }
    ints.push(a.order);
    store(
        grid.layout(&o),
        Envelope::new(typector::COMBINER_SUBARRAY, ints, vec![], vec![a.old]),
    )
}

/// The arguments of MPI_Type_create_darray: process `rank` of `size`, and
/// `ndims` global sizes, distributions, distribution arguments and
/// process grid sizes.
pub struct Darray<'a> {
    pub size: i32,
    pub rank: i32,
    pub ndims: i32,
    pub gsizes: &'a dyn ArgArray<i32>,
    pub distribs: &'a dyn ArgArray<i32>,
    pub dargs: &'a dyn ArgArray<i32>,
    pub psizes: &'a dyn ArgArray<i32>,
    pub order: i32,
    pub old: i32,
}

/// MPI_Type_create_darray.
pub fn darray(a: &Darray) -> MpiResult<i32> {
    let nd = array_dims(a.ndims)?;
    let (size, rank) = (a.size, a.rank);
    if size < 1 || rank < 0 || rank >= size {
        return Err(MpiError::new(
            class::ARG,
            format!("invalid rank {rank} of {size} processes"),
        ));
    }
    let gs = check::array(a.gsizes, nd, "gsizes")?;
    let dis = check::array(a.distribs, nd, "distribs")?;
    let das = check::array(a.dargs, nd, "dargs")?;
    let ps = check::array(a.psizes, nd, "psizes")?;
    let dims: Vec<DarrayDim> = (0..nd)
        .map(|d| DarrayDim {
            gsize: gs[d],
            distrib: dis[d],
            darg: das[d],
            psize: ps[d],
        })
        .collect();
    let grid = typector::darray(size, rank, &dims, a.order)?;
    let o = get(a.old)?;
    let mut ints = vec![size, rank, a.ndims];
    for v in [gs, dis, das, ps] {
        ints.extend(v);
    }
    ints.push(a.order);
    store(
        grid.layout(&o),
        Envelope::new(typector::COMBINER_DARRAY, ints, vec![], vec![a.old]),
    )
}

/// MPI_Type_commit.
pub fn commit(dt: i32) -> MpiResult<()> {
    sim::mpi(|w| {
        if w.mpi.datatype(dt)?.committed {
            return Ok(());
        }
        w.mpi.update_datatype(dt, |t| t.committed = true)
    })
}

/// MPI_Type_free: the attributes are deleted (by the program's callbacks)
/// before the type.
pub fn free(dt: i32) -> MpiResult<()> {
    get(dt)?;
    attr::delete_all(attr::Kind::Type, dt)?;
    sim::mpi(|w| {
        w.mpi.free_datatype(dt)?;
        w.note_freed(Kind::Datatype, dt);
        Ok(())
    })
}

/// MPI_Type_set_name.
pub fn set_name(dt: i32, name: &str) -> MpiResult<()> {
    let name = check::object_name(name);
    sim::mpi(|w| w.mpi.update_datatype(dt, |t| t.name = name))
}

/// What MPI_Type_get_contents returns: the arguments of the constructor.
pub struct Contents {
    pub integers: Vec<i32>,
    pub addresses: Vec<isize>,
    /// Derived types as new handles, which the program frees.
    pub datatypes: Vec<i32>,
}

/// The room the program gives MPI_Type_get_contents for each kind of
/// argument.
pub struct ContentsRoom {
    pub integers: i32,
    pub addresses: i32,
    pub datatypes: i32,
}

/// MPI_Type_get_contents.
pub fn contents(dt: i32, room: &ContentsRoom) -> MpiResult<Contents> {
    let t = get(dt)?;
    let e = &t.envelope;
    if e.combiner == typector::COMBINER_NAMED {
        return Err(MpiError::new(
            class::TYPE,
            format!("{} is a named type: it has no contents", t.name),
        ));
    }
    let fits = |have: i32, need: usize| usize::try_from(have).is_ok_and(|h| h >= need);
    if !fits(room.integers, e.integers.len())
        || !fits(room.addresses, e.addresses.len())
        || !fits(room.datatypes, e.datatypes.len())
    {
        return Err(MpiError::new(
            class::ARG,
            format!(
                "the arrays are too small: the type needs {} integers, {} addresses and {} \
                 datatypes (see MPI_Type_get_envelope)",
                e.integers.len(),
                e.addresses.len(),
                e.datatypes.len()
            ),
        ));
    }
    let datatypes = sim::mpi(|w| {
        e.datatypes
            .iter()
            .zip(&e.types)
            .map(|(&h, ty)| {
                if ty.predefined {
                    h
                } else {
                    let h = w.mpi.add_datatype((**ty).clone());
                    w.note_created(Kind::Datatype, h);
                    h
                }
            })
            .collect()
    });
    Ok(Contents {
        integers: e.integers.clone(),
        addresses: e.addresses.clone(),
        datatypes,
    })
}

/// MPI_Type_create_f90_real (`combiner` MPI_COMBINER_F90_REAL), _complex
/// and _integer (`p` unused): the Fortran type of at least `p` decimal
/// digits and a decimal exponent range of at least `r` (MPI_UNDEFINED:
/// any), as gfortran's `selected_real_kind` and `selected_int_kind` pick
/// it. One handle per (combiner, p, r), predefined, made once.
pub fn create_f90(combiner: i32, p: i32, r: i32) -> MpiResult<i32> {
    let any = |v: i32, limit: i32| v == UNDEFINED || v <= limit;
    let (class_, size) = match combiner {
        typector::COMBINER_F90_INTEGER => {
            let size = [(2, 1), (4, 2), (9, 4), (18, 8)]
                .iter()
                .find(|&&(range, _)| r <= range)
                .map(|&(_, s)| s);
            (datatype::TYPECLASS_INTEGER, size)
        }
        _ => {
            let size = [(6, 37, 4), (15, 307, 8), (33, 4931, 16)]
                .iter()
                .find(|&&(digits, range, _)| any(p, digits) && any(r, range))
                .map(|&(_, _, s)| s);
            if combiner == typector::COMBINER_F90_COMPLEX {
                (datatype::TYPECLASS_COMPLEX, size.map(|s| 2 * s))
            } else {
                (datatype::TYPECLASS_REAL, size)
            }
        }
    };
    let size = size.ok_or_else(|| {
        MpiError::new(
            class::ARG,
            format!("no Fortran type has {p} digits and an exponent range of {r}"),
        )
    })?;
    let name = datatype::sized_type_name(class_, size)?;
    let integers = if combiner == typector::COMBINER_F90_INTEGER {
        vec![r]
    } else {
        vec![p, r]
    };
    sim::mpi(|w| -> MpiResult<i32> {
        let key = (combiner, integers.clone());
        if let Some(&(_, h)) = w.mpi.f90_types.iter().find(|(k, _)| *k == key) {
            return Ok(h);
        }
        let base = w.mpi.predefined_datatype(name)?;
        let mut t = (**w.mpi.datatype(base)?).clone();
        t.envelope = typector::Envelope {
            combiner,
            integers,
            ..Default::default()
        };
        let h = w.mpi.add_datatype(t);
        w.mpi.f90_types.push((key, h));
        Ok(h)
    })
}

/// MPI_Type_match_size: the Fortran sized type of a type class and size.
pub fn match_size(typeclass: i32, size: i32) -> MpiResult<i32> {
    let name = datatype::sized_type_name(typeclass, size)?;
    sim::mpi(|w| w.mpi.predefined_datatype(name))
}

/// MPI_Pack_size: the bytes `count` elements of `dt` take packed.
pub fn pack_size(count: i32, dt: i32, comm: i32) -> MpiResult<usize> {
    let n = check::non_negative(count, "incount")?;
    sim::mpi(|w| w.comm(comm))?;
    Ok(n * get(dt)?.size)
}

/// The arguments of MPI_Pack and MPI_Unpack: `count` elements of `dtype`
/// at `typed`, and a packed buffer of `size` bytes at `packed`, of which
/// the first `position` are used.
pub struct Packing {
    pub typed: usize,
    pub count: i32,
    pub dtype: i32,
    pub packed: usize,
    pub size: i32,
    pub position: i32,
    pub comm: i32,
}

/// MPI_Pack: returns the position after the packed data.
pub fn pack(p: &Packing) -> MpiResult<usize> {
    let n = check::non_negative(p.count, "incount")?;
    let cap = check::non_negative(p.size, "outsize")?;
    sim::mpi(|w| w.comm(p.comm))?;
    let t = get(p.dtype)?;
    let pos = check::non_negative(p.position, "position")?;
    let mut data = Vec::with_capacity(n * t.size);
    // SAFETY: `typed` holds `count` elements of `dtype` (the MPI contract).
    unsafe { datatype::pack(&t, p.typed as *const c_void, n, &mut data) };
    if pos + data.len() > cap {
        return Err(MpiError::new(
            class::TRUNCATE,
            format!(
                "packing {} bytes at position {pos} overflows an output buffer of {cap} bytes",
                data.len()
            ),
        ));
    }
    // SAFETY: the packed buffer has `size` bytes, into which the data fits
    // (checked above).
    unsafe { copy_into(&data, p.packed, pos) };
    Ok(pos + data.len())
}

/// MPI_Unpack: returns the position after the unpacked data.
pub fn unpack(p: &Packing) -> MpiResult<usize> {
    let n = check::non_negative(p.count, "outcount")?;
    let cap = check::non_negative(p.size, "insize")?;
    sim::mpi(|w| w.comm(p.comm))?;
    let t = get(p.dtype)?;
    let pos = check::non_negative(p.position, "position")?;
    let len = n * t.size;
    if pos + len > cap {
        return Err(MpiError::new(
            class::TRUNCATE,
            format!(
                "unpacking {len} bytes at position {pos} reads past an input buffer of {cap} bytes"
            ),
        ));
    }
    // SAFETY: the packed buffer has `size` bytes, which the data lies in
    // (checked above); `typed` has room for `count` elements of `dtype`
    // (the MPI contract).
    unsafe {
        let src = std::slice::from_raw_parts((p.packed as *const u8).add(pos), len);
        datatype::unpack(&t, p.typed as *mut c_void, src);
    }
    Ok(pos + len)
}

/// Copies `data` to `position` bytes into the buffer at `buf`.
///
/// # Safety
/// The buffer has room for `position + data.len()` bytes.
unsafe fn copy_into(data: &[u8], buf: usize, position: usize) {
    // SAFETY: per the contract.
    unsafe {
        std::ptr::copy_nonoverlapping(data.as_ptr(), (buf as *mut u8).add(position), data.len())
    };
}

/// Checks the name of a data representation (only "external32" exists).
fn datarep(name: &str) -> MpiResult<()> {
    if name != "external32" {
        return Err(MpiError::new(
            class::UNSUPPORTED_DATAREP,
            format!("data representation '{name}' (only external32 exists)"),
        ));
    }
    Ok(())
}

/// MPI_Pack_external_size.
pub fn pack_external_size(rep: &str, count: i32, dt: i32) -> MpiResult<usize> {
    datarep(rep)?;
    let n = check::non_negative(count, "incount")?;
    Ok(datatype::external32_size(&*get(dt)?, n))
}

/// The arguments of MPI_Pack_external and MPI_Unpack_external: as
/// [`Packing`], with the sizes of MPI_Aint and no communicator.
pub struct ExternalPacking {
    pub typed: usize,
    pub count: i32,
    pub dtype: i32,
    pub packed: usize,
    pub size: isize,
    pub position: isize,
}

fn external_position(position: isize) -> MpiResult<usize> {
    usize::try_from(position).map_err(|_| MpiError::new(class::ARG, "negative position"))
}

/// MPI_Pack_external in representation `rep`: returns the position after
/// the packed data.
pub fn pack_external(rep: &str, p: &ExternalPacking) -> MpiResult<usize> {
    datarep(rep)?;
    let n = check::non_negative(p.count, "incount")?;
    let t = get(p.dtype)?;
    let pos = external_position(p.position)?;
    let mut native = Vec::with_capacity(n * t.size);
    // SAFETY: `typed` holds `count` elements of `dtype` (the MPI contract).
    unsafe { datatype::pack(&t, p.typed as *const c_void, n, &mut native) };
    let data = external32::encode(&t.external, n, &native)?;
    let cap = usize::try_from(p.size).unwrap_or(0);
    if pos + data.len() > cap {
        return Err(MpiError::new(
            class::TRUNCATE,
            format!(
                "packing {} bytes at {pos} overflows {cap} bytes",
                data.len()
            ),
        ));
    }
    // SAFETY: the packed buffer has `size` bytes, into which the data fits
    // (checked above).
    unsafe { copy_into(&data, p.packed, pos) };
    Ok(pos + data.len())
}

/// MPI_Unpack_external from representation `rep`: returns the position
/// after the unpacked data.
pub fn unpack_external(rep: &str, p: &ExternalPacking) -> MpiResult<usize> {
    datarep(rep)?;
    let n = check::non_negative(p.count, "outcount")?;
    let t = get(p.dtype)?;
    let pos = external_position(p.position)?;
    let len = datatype::external32_size(&t, n);
    let cap = usize::try_from(p.size).unwrap_or(0);
    if pos + len > cap {
        return Err(MpiError::new(
            class::TRUNCATE,
            format!("unpacking {len} bytes at {pos} reads past {cap} bytes"),
        ));
    }
    let external = if len == 0 {
        &[][..]
    } else {
        // SAFETY: the packed buffer has `size` bytes, which the data lies
        // in (checked above).
        unsafe { std::slice::from_raw_parts((p.packed as *const u8).add(pos), len) }
    };
    let native = external32::decode(&t.external, n, external)?;
    // SAFETY: `typed` has room for `count` elements of `dtype` (the MPI
    // contract).
    unsafe { datatype::unpack(&t, p.typed as *mut c_void, &native) };
    Ok(pos + len)
}

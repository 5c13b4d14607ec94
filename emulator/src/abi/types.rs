//! Datatype calls: constructors, commit/free, extents, envelopes, names,
//! packing.

use std::ffi::{c_char, c_int, c_void};
use std::rc::Rc;

use super::call;
use super::check::out;
use super::env::copy_c_string;
use crate::mpi::datatype::{self, Datatype};
use crate::mpi::typector::{self, Envelope, Piece};
use crate::mpi::{self, class, MpiError, MpiResult};
use crate::sim;

fn get(dt: c_int) -> MpiResult<Rc<Datatype>> {
    sim::mpi(|w| w.mpi.datatype(dt).map(Rc::clone))
}

fn nonneg(v: c_int, what: &str) -> MpiResult<usize> {
    usize::try_from(v).map_err(|_| MpiError::new(class::ARG, format!("invalid {what} {v}")))
}

/// Reads `n` values from a C array.
///
/// # Safety
/// `p` points to `n` readable values when `n > 0`.
unsafe fn slice<'a, T>(p: *const T, n: usize, what: &str) -> MpiResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(MpiError::new(
            class::ARG,
            format!("{what} is a null pointer"),
        ));
    }
    // SAFETY: per the contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Stores a new type with its envelope and writes its handle.
fn finish(mut t: Datatype, mut env: Envelope, newtype: *mut c_int) -> MpiResult<()> {
    let h = sim::mpi(|w| -> MpiResult<c_int> {
        env.types = env
            .datatypes
            .iter()
            .map(|&d| w.mpi.datatype(d).map(Rc::clone))
            .collect::<MpiResult<_>>()?;
        t.envelope = env;
        Ok(w.mpi.add_datatype(t))
    })?;
    // SAFETY: the caller's output argument.
    unsafe { out(newtype, h, "newtype") }
}

/// The elements of a global array (dimensions `sz`, C order: the last
/// varies fastest) whose index in each dimension d lies in one of the
/// runs `runs[d]` (start, length), in array order; lower bound 0, extent
/// the whole array (MPI_Type_create_subarray and _darray).
fn grid_type(old: &Datatype, sz: &[isize], runs: &[Vec<(isize, usize)>]) -> Datatype {
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
    typector::resized(&t, 0, full)
}

/// Blocks of `blocklen` elements of `old` at byte displacements `disps`.
fn blocks(old: &Datatype, lens: &[usize], disps: &[isize]) -> Datatype {
    let pieces: Vec<Piece> = lens
        .iter()
        .zip(disps)
        .map(|(&blocklen, &disp)| Piece {
            disp,
            blocklen,
            child: old,
        })
        .collect();
    typector::build(&pieces)
}

pub(crate) unsafe extern "C" fn MPI_Type_contiguous(
    count: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_contiguous", mpi::COMM_WORLD, || {
        let n = nonneg(count, "count")?;
        let o = get(old)?;
        let t = blocks(&o, &[n], &[0]);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_CONTIGUOUS,
                integers: vec![count],
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_vector(
    count: c_int,
    blocklen: c_int,
    stride: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_vector", mpi::COMM_WORLD, || {
        let n = nonneg(count, "count")?;
        let b = nonneg(blocklen, "blocklength")?;
        let o = get(old)?;
        let disps: Vec<isize> = (0..n as isize)
            .map(|k| k * stride as isize * o.extent)
            .collect();
        let t = blocks(&o, &vec![b; n], &disps);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_VECTOR,
                integers: vec![count, blocklen, stride],
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

fn hvector(
    count: c_int,
    blocklen: c_int,
    stride: isize,
    old: c_int,
    newtype: *mut c_int,
) -> MpiResult<()> {
    let n = nonneg(count, "count")?;
    let b = nonneg(blocklen, "blocklength")?;
    let o = get(old)?;
    let disps: Vec<isize> = (0..n as isize).map(|k| k * stride).collect();
    let t = blocks(&o, &vec![b; n], &disps);
    finish(
        t,
        Envelope {
            combiner: typector::COMBINER_HVECTOR,
            integers: vec![count, blocklen],
            addresses: vec![stride],
            datatypes: vec![old],
            ..Default::default()
        },
        newtype,
    )
}

pub(crate) unsafe extern "C" fn MPI_Type_create_hvector(
    count: c_int,
    blocklen: c_int,
    stride: isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_hvector", mpi::COMM_WORLD, || {
        hvector(count, blocklen, stride, old, newtype)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_hvector(
    count: c_int,
    blocklen: c_int,
    stride: isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_hvector", mpi::COMM_WORLD, || {
        hvector(count, blocklen, stride, old, newtype)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_indexed(
    count: c_int,
    lens: *const c_int,
    disps: *const c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_indexed", mpi::COMM_WORLD, || {
        let n = nonneg(count, "count")?;
        // SAFETY: MPI passes arrays of `count` entries.
        let (l, d) = unsafe {
            (
                slice(lens, n, "array_of_blocklengths")?,
                slice(disps, n, "array_of_displacements")?,
            )
        };
        let o = get(old)?;
        let lens_u: Vec<usize> = l
            .iter()
            .map(|&x| nonneg(x, "blocklength"))
            .collect::<MpiResult<_>>()?;
        let bytes: Vec<isize> = d.iter().map(|&x| x as isize * o.extent).collect();
        let t = blocks(&o, &lens_u, &bytes);
        let mut ints = vec![count];
        ints.extend_from_slice(l);
        ints.extend_from_slice(d);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_INDEXED,
                integers: ints,
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

fn hindexed(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> MpiResult<()> {
    let n = nonneg(count, "count")?;
    // SAFETY: MPI passes arrays of `count` entries.
    let (l, d) = unsafe {
        (
            slice(lens, n, "array_of_blocklengths")?,
            slice(disps, n, "array_of_displacements")?,
        )
    };
    let o = get(old)?;
    let lens_u: Vec<usize> = l
        .iter()
        .map(|&x| nonneg(x, "blocklength"))
        .collect::<MpiResult<_>>()?;
    let t = blocks(&o, &lens_u, d);
    let mut ints = vec![count];
    ints.extend_from_slice(l);
    finish(
        t,
        Envelope {
            combiner: typector::COMBINER_HINDEXED,
            integers: ints,
            addresses: d.to_vec(),
            datatypes: vec![old],
            ..Default::default()
        },
        newtype,
    )
}

pub(crate) unsafe extern "C" fn MPI_Type_create_hindexed(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_hindexed", mpi::COMM_WORLD, || {
        hindexed(count, lens, disps, old, newtype)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_hindexed(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_hindexed", mpi::COMM_WORLD, || {
        hindexed(count, lens, disps, old, newtype)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_indexed_block(
    count: c_int,
    blocklen: c_int,
    disps: *const c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_indexed_block", mpi::COMM_WORLD, || {
        let n = nonneg(count, "count")?;
        let b = nonneg(blocklen, "blocklength")?;
        // SAFETY: MPI passes an array of `count` entries.
        let d = unsafe { slice(disps, n, "array_of_displacements")? };
        let o = get(old)?;
        let bytes: Vec<isize> = d.iter().map(|&x| x as isize * o.extent).collect();
        let t = blocks(&o, &vec![b; n], &bytes);
        let mut ints = vec![count, blocklen];
        ints.extend_from_slice(d);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_INDEXED_BLOCK,
                integers: ints,
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_hindexed_block(
    count: c_int,
    blocklen: c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_hindexed_block", mpi::COMM_WORLD, || {
        let n = nonneg(count, "count")?;
        let b = nonneg(blocklen, "blocklength")?;
        // SAFETY: MPI passes an array of `count` entries.
        let d = unsafe { slice(disps, n, "array_of_displacements")? };
        let o = get(old)?;
        let t = blocks(&o, &vec![b; n], d);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_HINDEXED_BLOCK,
                integers: vec![count, blocklen],
                addresses: d.to_vec(),
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_struct(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    types: *const c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_struct", mpi::COMM_WORLD, || {
        let n = nonneg(count, "count")?;
        // SAFETY: MPI passes arrays of `count` entries.
        let (l, d, ts) = unsafe {
            (
                slice(lens, n, "array_of_blocklengths")?,
                slice(disps, n, "array_of_displacements")?,
                slice(types, n, "array_of_types")?,
            )
        };
        let children: Vec<Rc<Datatype>> = ts.iter().map(|&t| get(t)).collect::<MpiResult<_>>()?;
        let lens_u: Vec<usize> = l
            .iter()
            .map(|&x| nonneg(x, "blocklength"))
            .collect::<MpiResult<_>>()?;
        let pieces: Vec<Piece> = (0..n)
            .map(|i| Piece {
                disp: d[i],
                blocklen: lens_u[i],
                child: &children[i],
            })
            .collect();
        let t = typector::pad_to_alignment(typector::build(&pieces));
        let mut ints = vec![count];
        ints.extend_from_slice(l);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_STRUCT,
                integers: ints,
                addresses: d.to_vec(),
                datatypes: ts.to_vec(),
                ..Default::default()
            },
            newtype,
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_resized(
    old: c_int,
    lb: isize,
    extent: isize,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_resized", mpi::COMM_WORLD, || {
        let o = get(old)?;
        let t = typector::resized(&o, lb, extent);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_RESIZED,
                integers: vec![],
                addresses: vec![lb, extent],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_dup(old: c_int, newtype: *mut c_int) -> c_int {
    call("MPI_Type_dup", mpi::COMM_WORLD, || {
        let o = get(old)?;
        let mut t = (*o).clone();
        t.predefined = false;
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_DUP,
                integers: vec![],
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )?;
        // SAFETY: `finish` wrote the new handle into the caller's argument.
        let new = unsafe { *newtype };
        if let Err(e) = mpi::attr::copy_all(mpi::attr::Kind::Type, old, new) {
            // A failing copy function fails the duplication.
            sim::mpi(|w| w.mpi.free_datatype(new))?;
            // SAFETY: as above.
            unsafe { *newtype = mpi::DATATYPE_NULL };
            return Err(e);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_commit(datatype: *mut c_int) -> c_int {
    call("MPI_Type_commit", mpi::COMM_WORLD, || {
        if datatype.is_null() {
            return Err(MpiError::new(class::ARG, "datatype is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let h = unsafe { *datatype };
        sim::mpi(|w| {
            let t = w.mpi.datatype(h)?;
            if !t.committed {
                let mut c = (**t).clone();
                c.committed = true;
                w.mpi.datatypes[h as usize] = Some(Rc::new(c));
            }
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_free(datatype: *mut c_int) -> c_int {
    call("MPI_Type_free", mpi::COMM_WORLD, || {
        if datatype.is_null() {
            return Err(MpiError::new(class::ARG, "datatype is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let h = unsafe { *datatype };
        sim::mpi(|w| w.mpi.datatype(h).map(|_| ()))?;
        mpi::attr::delete_all(mpi::attr::Kind::Type, h)?;
        sim::mpi(|w| w.mpi.free_datatype(h))?;
        // SAFETY: as above.
        unsafe { *datatype = mpi::DATATYPE_NULL };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_true_extent(
    dt: c_int,
    lb: *mut isize,
    extent: *mut isize,
) -> c_int {
    call("MPI_Type_get_true_extent", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(lb, t.true_lb, "true_lb")?;
            out(extent, t.true_extent, "true_extent")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_extent_x(
    dt: c_int,
    lb: *mut i64,
    extent: *mut i64,
) -> c_int {
    call("MPI_Type_get_extent_x", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(lb, t.lb as i64, "lb")?;
            out(extent, t.extent as i64, "extent")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_true_extent_x(
    dt: c_int,
    lb: *mut i64,
    extent: *mut i64,
) -> c_int {
    call("MPI_Type_get_true_extent_x", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(lb, t.true_lb as i64, "true_lb")?;
            out(extent, t.true_extent as i64, "true_extent")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_size_x(dt: c_int, size: *mut i64) -> c_int {
    call("MPI_Type_size_x", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, t.size as i64, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_envelope(
    dt: c_int,
    ni: *mut c_int,
    na: *mut c_int,
    nd: *mut c_int,
    combiner: *mut c_int,
) -> c_int {
    call("MPI_Type_get_envelope", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        let e = &t.envelope;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(ni, e.integers.len() as c_int, "num_integers")?;
            out(na, e.addresses.len() as c_int, "num_addresses")?;
            out(nd, e.datatypes.len() as c_int, "num_datatypes")?;
            out(combiner, e.combiner, "combiner")
        }
    })
}

/// MPI_Type_match_size: the Fortran sized type of a class and size.
pub(crate) unsafe extern "C" fn MPI_Type_match_size(
    typeclass: c_int,
    size: c_int,
    datatype: *mut c_int,
) -> c_int {
    call("MPI_Type_match_size", mpi::COMM_WORLD, || {
        let name = match (typeclass, size) {
            (1, 4) => "MPI_REAL4",
            (1, 8) => "MPI_REAL8",
            (1, 16) => "MPI_REAL16",
            (2, 1) => "MPI_INTEGER1",
            (2, 2) => "MPI_INTEGER2",
            (2, 4) => "MPI_INTEGER4",
            (2, 8) => "MPI_INTEGER8",
            (2, 16) => "MPI_INTEGER16",
            (3, 8) => "MPI_COMPLEX8",
            (3, 16) => "MPI_COMPLEX16",
            (3, 32) => "MPI_COMPLEX32",
            (1..=3, _) => {
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
        };
        let h = sim::mpi(|w| {
            w.mpi
                .datatypes
                .iter()
                .position(|t| t.as_ref().is_some_and(|t| t.predefined && t.name == name))
        })
        .ok_or_else(|| MpiError::new(class::INTERN, format!("{name} is missing")))?;
        // SAFETY: the caller's output argument.
        unsafe { out(datatype, h as c_int, "datatype") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_contents(
    dt: c_int,
    max_integers: c_int,
    max_addresses: c_int,
    max_datatypes: c_int,
    integers: *mut c_int,
    addresses: *mut isize,
    datatypes: *mut c_int,
) -> c_int {
    call("MPI_Type_get_contents", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        let e = &t.envelope;
        if e.combiner == typector::COMBINER_NAMED {
            return Err(MpiError::new(
                class::TYPE,
                format!("{} is a named type: it has no contents", t.name),
            ));
        }
        let fits = |have: c_int, need: usize| usize::try_from(have).is_ok_and(|h| h >= need);
        if !fits(max_integers, e.integers.len())
            || !fits(max_addresses, e.addresses.len())
            || !fits(max_datatypes, e.datatypes.len())
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
        // Derived types come back as new handles (the program frees them).
        let handles: Vec<c_int> = sim::mpi(|w| {
            e.datatypes
                .iter()
                .zip(&e.types)
                .map(|(&h, ty)| {
                    if ty.predefined {
                        h
                    } else {
                        w.mpi.add_datatype((**ty).clone())
                    }
                })
                .collect()
        });
        // SAFETY: the caller's arrays hold at least as many entries as
        // checked above.
        unsafe {
            for (arr, vals) in [(integers, &e.integers), (datatypes, &handles)] {
                if !vals.is_empty() {
                    if arr.is_null() {
                        return Err(MpiError::new(class::ARG, "an output array is null"));
                    }
                    std::ptr::copy_nonoverlapping(vals.as_ptr(), arr, vals.len());
                }
            }
            if !e.addresses.is_empty() {
                if addresses.is_null() {
                    return Err(MpiError::new(class::ARG, "array_of_addresses is null"));
                }
                std::ptr::copy_nonoverlapping(e.addresses.as_ptr(), addresses, e.addresses.len());
            }
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_set_name(dt: c_int, name: *const c_char) -> c_int {
    call("MPI_Type_set_name", mpi::COMM_WORLD, || {
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "type_name is a null pointer"));
        }
        // SAFETY: a NUL-terminated string from the caller.
        let s: String = unsafe { std::ffi::CStr::from_ptr(name) }
            .to_string_lossy()
            .chars()
            .take(127)
            .collect();
        sim::mpi(|w| {
            let t = w.mpi.datatype(dt)?;
            let mut c = (**t).clone();
            c.name = s;
            w.mpi.datatypes[dt as usize] = Some(Rc::new(c));
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_name(
    dt: c_int,
    name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    call("MPI_Type_get_name", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "type_name is a null pointer"));
        }
        // SAFETY: MPI requires MPI_MAX_OBJECT_NAME (128) bytes.
        let n = unsafe { copy_c_string(name, 128, &t.name) };
        // SAFETY: the caller's output argument.
        unsafe { out(resultlen, n as c_int, "resultlen") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Get_address(
    location: *const c_void,
    address: *mut isize,
) -> c_int {
    if !address.is_null() {
        // Address arithmetic only: no computation burst is closed and no
        // progress is made, so that a program calling it in a loop (HPL
        // describes every panel with it) does not pay two clock readings
        // per call.
        // SAFETY: the caller's non-null output argument.
        unsafe { address.write(location as isize) };
        return mpi::class::SUCCESS;
    }
    // SAFETY: the caller's output argument (null: `out` reports it).
    call("MPI_Get_address", mpi::COMM_WORLD, || unsafe {
        out(address, location as isize, "address")
    })
}

/// MPI_Aint_add: address arithmetic, wrapping as C pointer sums do.
pub(crate) unsafe extern "C" fn MPI_Aint_add(base: isize, disp: isize) -> isize {
    base.wrapping_add(disp)
}

/// MPI_Aint_diff: the distance between two addresses.
pub(crate) unsafe extern "C" fn MPI_Aint_diff(addr1: isize, addr2: isize) -> isize {
    addr1.wrapping_sub(addr2)
}

pub(crate) unsafe extern "C" fn MPI_Pack_size(
    incount: c_int,
    dt: c_int,
    comm: c_int,
    size: *mut c_int,
) -> c_int {
    call("MPI_Pack_size", comm, || {
        let n = nonneg(incount, "incount")?;
        sim::mpi(|w| w.comm(comm))?;
        let t = get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe {
            out(
                size,
                c_int::try_from(n * t.size).unwrap_or(c_int::MAX),
                "size",
            )
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Pack(
    inbuf: *const c_void,
    incount: c_int,
    dt: c_int,
    outbuf: *mut c_void,
    outsize: c_int,
    position: *mut c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Pack", comm, || {
        let n = nonneg(incount, "incount")?;
        let cap = nonneg(outsize, "outsize")?;
        sim::mpi(|w| w.comm(comm))?;
        let t = get(dt)?;
        if position.is_null() {
            return Err(MpiError::new(class::ARG, "position is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let pos = nonneg(unsafe { *position }, "position")?;
        let mut data = Vec::with_capacity(n * t.size);
        // SAFETY: inbuf holds `incount` elements of `dt` (MPI contract).
        unsafe { datatype::pack(&t, inbuf, n, &mut data) };
        if pos + data.len() > cap {
            return Err(MpiError::new(
                class::TRUNCATE,
                format!(
                    "packing {} bytes at position {pos} overflows an output buffer of {cap} bytes",
                    data.len()
                ),
            ));
        }
        // SAFETY: outbuf has `outsize` bytes; checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), (outbuf as *mut u8).add(pos), data.len());
            *position = (pos + data.len()) as c_int;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Unpack(
    inbuf: *const c_void,
    insize: c_int,
    position: *mut c_int,
    outbuf: *mut c_void,
    outcount: c_int,
    dt: c_int,
    comm: c_int,
) -> c_int {
    call("MPI_Unpack", comm, || {
        let n = nonneg(outcount, "outcount")?;
        let cap = nonneg(insize, "insize")?;
        sim::mpi(|w| w.comm(comm))?;
        let t = get(dt)?;
        if position.is_null() {
            return Err(MpiError::new(class::ARG, "position is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let pos = nonneg(unsafe { *position }, "position")?;
        let len = n * t.size;
        if pos + len > cap {
            return Err(MpiError::new(class::TRUNCATE, format!("unpacking {len} bytes at position {pos} reads past an input buffer of {cap} bytes")));
        }
        // SAFETY: inbuf has `insize` bytes (checked); outbuf holds
        // `outcount` elements of `dt` (MPI contract).
        unsafe {
            let src = std::slice::from_raw_parts((inbuf as *const u8).add(pos), len);
            datatype::unpack(&t, outbuf, src);
            *position = (pos + len) as c_int;
        }
        Ok(())
    })
}

const ORDER_C: c_int = 56;
const ORDER_FORTRAN: c_int = 57;

pub(crate) unsafe extern "C" fn MPI_Type_create_subarray(
    ndims: c_int,
    sizes: *const c_int,
    subsizes: *const c_int,
    starts: *const c_int,
    order: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_subarray", mpi::COMM_WORLD, || {
        let nd = nonneg(ndims, "ndims")?;
        if nd == 0 {
            return Err(MpiError::new(class::ARG, "ndims must be at least 1"));
        }
        // SAFETY: MPI passes arrays of `ndims` entries.
        let (sz, sub, st) = unsafe {
            (
                slice(sizes, nd, "sizes")?,
                slice(subsizes, nd, "subsizes")?,
                slice(starts, nd, "starts")?,
            )
        };
        for d in 0..nd {
            if sz[d] < 1 || sub[d] < 0 || st[d] < 0 || sub[d] + st[d] > sz[d] {
                return Err(MpiError::new(
                    class::ARG,
                    format!(
                        "dimension {d}: subsize {} at start {} does not fit in size {}",
                        sub[d], st[d], sz[d]
                    ),
                ));
            }
        }
        // Work in C order: the last dimension varies fastest.
        let idx: Vec<usize> = match order {
            ORDER_C => (0..nd).collect(),
            ORDER_FORTRAN => (0..nd).rev().collect(),
            _ => return Err(MpiError::new(class::ARG, format!("invalid order {order}"))),
        };
        let o = get(old)?;
        let (sz, sub, st): (Vec<isize>, Vec<usize>, Vec<isize>) = (
            idx.iter().map(|&d| sz[d] as isize).collect(),
            idx.iter().map(|&d| sub[d] as usize).collect(),
            idx.iter().map(|&d| st[d] as isize).collect(),
        );
        let runs: Vec<Vec<(isize, usize)>> = (0..nd).map(|d| vec![(st[d], sub[d])]).collect();
        let t = grid_type(&o, &sz, &runs);
        let mut ints = vec![ndims];
        for a in [sizes, subsizes, starts] {
            // SAFETY: as above.
            ints.extend_from_slice(unsafe { slice(a, nd, "array")? });
        }
        ints.push(order);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_SUBARRAY,
                integers: ints,
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

const DISTRIBUTE_BLOCK: c_int = 121;
const DISTRIBUTE_CYCLIC: c_int = 122;
const DISTRIBUTE_NONE: c_int = 123;
const DISTRIBUTE_DFLT_DARG: c_int = -49767;

/// The runs of indices (start, length) of one dimension of `gsize`
/// elements that process coordinate `coord` of `psize` owns.
fn distribution(
    d: usize,
    gsize: c_int,
    distrib: c_int,
    darg: c_int,
    psize: c_int,
    coord: c_int,
) -> MpiResult<Vec<(isize, usize)>> {
    let bad = |why: String| MpiError::new(class::ARG, format!("dimension {d}: {why}"));
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

pub(crate) unsafe extern "C" fn MPI_Type_create_darray(
    size: c_int,
    rank: c_int,
    ndims: c_int,
    gsizes: *const c_int,
    distribs: *const c_int,
    dargs: *const c_int,
    psizes: *const c_int,
    order: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    call("MPI_Type_create_darray", mpi::COMM_WORLD, || {
        let nd = nonneg(ndims, "ndims")?;
        if nd == 0 {
            return Err(MpiError::new(class::ARG, "ndims must be at least 1"));
        }
        if size < 1 || rank < 0 || rank >= size {
            return Err(MpiError::new(
                class::ARG,
                format!("invalid rank {rank} of {size} processes"),
            ));
        }
        // SAFETY: MPI passes arrays of `ndims` entries.
        let (gs, dis, das, ps) = unsafe {
            (
                slice(gsizes, nd, "gsizes")?,
                slice(distribs, nd, "distribs")?,
                slice(dargs, nd, "dargs")?,
                slice(psizes, nd, "psizes")?,
            )
        };
        if ps.iter().any(|&p| p < 1) || ps.iter().map(|&p| p as i64).product::<i64>() != size as i64
        {
            return Err(MpiError::new(
                class::ARG,
                format!("the process grid {ps:?} does not have {size} processes"),
            ));
        }
        if gs.iter().any(|&g| g < 1) {
            return Err(MpiError::new(class::ARG, format!("invalid gsizes {gs:?}")));
        }
        // The process grid is row-major whatever the array order.
        let mut coords = vec![0; nd];
        let mut r = rank;
        for d in (0..nd).rev() {
            coords[d] = r % ps[d];
            r /= ps[d];
        }
        let mut runs = Vec::with_capacity(nd);
        for d in 0..nd {
            runs.push(distribution(d, gs[d], dis[d], das[d], ps[d], coords[d])?);
        }
        // Work in C order: the last dimension varies fastest.
        let idx: Vec<usize> = match order {
            ORDER_C => (0..nd).collect(),
            ORDER_FORTRAN => (0..nd).rev().collect(),
            _ => return Err(MpiError::new(class::ARG, format!("invalid order {order}"))),
        };
        let o = get(old)?;
        let sz: Vec<isize> = idx.iter().map(|&d| gs[d] as isize).collect();
        let runs: Vec<Vec<(isize, usize)>> = idx.iter().map(|&d| runs[d].clone()).collect();
        let t = grid_type(&o, &sz, &runs);
        let mut ints = vec![size, rank, ndims];
        for a in [gs, dis, das, ps] {
            ints.extend_from_slice(a);
        }
        ints.push(order);
        finish(
            t,
            Envelope {
                combiner: typector::COMBINER_DARRAY,
                integers: ints,
                addresses: vec![],
                datatypes: vec![old],
                ..Default::default()
            },
            newtype,
        )
    })
}

// The MPI-1 extent queries (deprecated, still used).

pub(crate) unsafe extern "C" fn MPI_Type_extent(dt: c_int, extent: *mut isize) -> c_int {
    call("MPI_Type_extent", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(extent, t.extent, "extent") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_lb(dt: c_int, lb: *mut isize) -> c_int {
    call("MPI_Type_lb", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(lb, t.lb, "displacement") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_ub(dt: c_int, ub: *mut isize) -> c_int {
    call("MPI_Type_ub", mpi::COMM_WORLD, || {
        let t = get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(ub, t.lb + t.extent, "displacement") }
    })
}

/// MPI_Address: the MPI-1 name of MPI_Get_address (HPL uses it).
pub(crate) unsafe extern "C" fn MPI_Address(location: *const c_void, address: *mut isize) -> c_int {
    // SAFETY: same contract as MPI_Get_address.
    unsafe { MPI_Get_address(location, address) }
}

/// MPI_Type_struct: the MPI-1 name of MPI_Type_create_struct.
pub(crate) unsafe extern "C" fn MPI_Type_struct(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    types: *const c_int,
    newtype: *mut c_int,
) -> c_int {
    // SAFETY: same contract as MPI_Type_create_struct.
    unsafe { MPI_Type_create_struct(count, lens, disps, types, newtype) }
}

/// Checks the data representation name (only "external32" exists).
///
/// # Safety
/// `datarep` is null or a NUL-terminated string.
unsafe fn check_datarep(datarep: *const c_char) -> MpiResult<()> {
    if datarep.is_null() {
        return Err(MpiError::new(class::ARG, "datarep is a null pointer"));
    }
    // SAFETY: per the contract.
    let name = unsafe { std::ffi::CStr::from_ptr(datarep) }.to_string_lossy();
    if name != "external32" {
        return Err(MpiError::new(
            class::UNSUPPORTED_DATAREP,
            format!("data representation '{name}' (only external32 exists)"),
        ));
    }
    Ok(())
}

/// Converts packed native data of `ty` to or from external32 (big-endian;
/// the same sizes as this machine's for the types MPI defines there):
/// reverses the bytes of every basic element, each half of a complex one.
fn swap_external32(ty: &Datatype, data: &mut [u8]) -> MpiResult<()> {
    use crate::mpi::datatype::Basic;
    if !ty.external32_native {
        // external32 has 4-byte longs and 16-byte quad long doubles: a
        // size conversion this emulator does not do yet.
        return Err(MpiError::new(
            class::UNSUPPORTED_DATAREP,
            format!(
                "{} contains C long or long double, whose external32 size differs; not supported yet",
                if ty.name.is_empty() { "the datatype" } else { &ty.name }
            ),
        ));
    }
    // From here a pure byte-order conversion: every size is the same.
    if cfg!(target_endian = "big") {
        return Ok(());
    }
    let complex = matches!(ty.basic, Some((Basic::ComplexF32 | Basic::ComplexF64, _)));
    let mut pos = 0;
    while pos < data.len() {
        for &(size, count) in &ty.elements {
            let unit = if complex {
                size as usize / 2
            } else {
                size as usize
            };
            for _ in 0..count * (size as u64 / unit.max(1) as u64) {
                if pos + unit > data.len() {
                    return Ok(());
                }
                data[pos..pos + unit].reverse();
                pos += unit;
            }
        }
        if ty.elements.is_empty() {
            break;
        }
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn MPI_Pack_external_size(
    datarep: *const c_char,
    incount: c_int,
    dt: c_int,
    size: *mut isize,
) -> c_int {
    call("MPI_Pack_external_size", mpi::COMM_WORLD, || {
        // SAFETY: the caller's string.
        unsafe { check_datarep(datarep)? };
        let n = nonneg(incount, "incount")?;
        let t = get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, (n * t.size) as isize, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Pack_external(
    datarep: *const c_char,
    inbuf: *const c_void,
    incount: c_int,
    dt: c_int,
    outbuf: *mut c_void,
    outsize: isize,
    position: *mut isize,
) -> c_int {
    call("MPI_Pack_external", mpi::COMM_WORLD, || {
        // SAFETY: the caller's string.
        unsafe { check_datarep(datarep)? };
        let n = nonneg(incount, "incount")?;
        let t = get(dt)?;
        if position.is_null() {
            return Err(MpiError::new(class::ARG, "position is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let pos = usize::try_from(unsafe { *position })
            .map_err(|_| MpiError::new(class::ARG, "negative position"))?;
        let mut data = Vec::with_capacity(n * t.size);
        // SAFETY: inbuf holds `incount` elements of `dt` (MPI contract).
        unsafe { datatype::pack(&t, inbuf, n, &mut data) };
        swap_external32(&t, &mut data)?;
        let cap = usize::try_from(outsize).unwrap_or(0);
        if pos + data.len() > cap {
            return Err(MpiError::new(
                class::TRUNCATE,
                format!(
                    "packing {} bytes at {pos} overflows {cap} bytes",
                    data.len()
                ),
            ));
        }
        // SAFETY: outbuf has outsize bytes; checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), (outbuf as *mut u8).add(pos), data.len());
            *position = (pos + data.len()) as isize;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Unpack_external(
    datarep: *const c_char,
    inbuf: *const c_void,
    insize: isize,
    position: *mut isize,
    outbuf: *mut c_void,
    outcount: c_int,
    dt: c_int,
) -> c_int {
    call("MPI_Unpack_external", mpi::COMM_WORLD, || {
        // SAFETY: the caller's string.
        unsafe { check_datarep(datarep)? };
        let n = nonneg(outcount, "outcount")?;
        let t = get(dt)?;
        if position.is_null() {
            return Err(MpiError::new(class::ARG, "position is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let pos = usize::try_from(unsafe { *position })
            .map_err(|_| MpiError::new(class::ARG, "negative position"))?;
        let len = n * t.size;
        let cap = usize::try_from(insize).unwrap_or(0);
        if pos + len > cap {
            return Err(MpiError::new(
                class::TRUNCATE,
                format!("unpacking {len} bytes at {pos} reads past {cap} bytes"),
            ));
        }
        // SAFETY: inbuf has insize bytes (checked).
        let mut data =
            unsafe { std::slice::from_raw_parts((inbuf as *const u8).add(pos), len) }.to_vec();
        swap_external32(&t, &mut data)?;
        // SAFETY: outbuf holds outcount elements of dt (MPI contract); `position` is the caller's.
        unsafe {
            datatype::unpack(&t, outbuf, &data);
            *position = (pos + len) as isize;
        }
        Ok(())
    })
}

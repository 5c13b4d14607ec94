//! Datatype calls, bound to `mpi::types`: constructors, commit/free,
//! extents and sizes, envelopes, names, packing.

use std::ffi::{c_char, c_int, c_void};

use super::call;
use super::check::{non_null, out, string, CArray};
use super::env::copy_c_string;
use crate::mpi::types::{self, ContentsRoom, Darray, ExternalPacking, Packing, Subarray};
use crate::mpi::{self, check, class, MpiError, MpiResult};

/// Runs the constructor `make` as call `name` and writes the new type's
/// handle.
fn construct(
    name: &'static str,
    newtype: *mut c_int,
    make: impl FnOnce() -> MpiResult<c_int>,
) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        let h = make()?;
        // SAFETY: the caller's output argument.
        unsafe { out(newtype, h, "newtype") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_contiguous(
    count: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_contiguous", newtype, || {
        types::contiguous(count, old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_vector(
    count: c_int,
    blocklen: c_int,
    stride: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_vector", newtype, || {
        types::vector(count, blocklen, stride, old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_hvector(
    count: c_int,
    blocklen: c_int,
    stride: isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_create_hvector", newtype, || {
        types::hvector(count, blocklen, stride, old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_hvector(
    count: c_int,
    blocklen: c_int,
    stride: isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_hvector", newtype, || {
        types::hvector(count, blocklen, stride, old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_indexed(
    count: c_int,
    lens: *const c_int,
    disps: *const c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_indexed", newtype, || {
        types::indexed(count, &CArray(lens), &CArray(disps), old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_hindexed(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_create_hindexed", newtype, || {
        types::hindexed(count, &CArray(lens), &CArray(disps), old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_hindexed(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_hindexed", newtype, || {
        types::hindexed(count, &CArray(lens), &CArray(disps), old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_indexed_block(
    count: c_int,
    blocklen: c_int,
    disps: *const c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_create_indexed_block", newtype, || {
        types::indexed_block(count, blocklen, &CArray(disps), old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_hindexed_block(
    count: c_int,
    blocklen: c_int,
    disps: *const isize,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_create_hindexed_block", newtype, || {
        types::hindexed_block(count, blocklen, &CArray(disps), old)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_struct(
    count: c_int,
    lens: *const c_int,
    disps: *const isize,
    types: *const c_int,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_create_struct", newtype, || {
        types::create_struct(count, &CArray(lens), &CArray(disps), &CArray(types))
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_resized(
    old: c_int,
    lb: isize,
    extent: isize,
    newtype: *mut c_int,
) -> c_int {
    construct("MPI_Type_create_resized", newtype, || {
        types::resized(old, lb, extent)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_dup(old: c_int, newtype: *mut c_int) -> c_int {
    call("MPI_Type_dup", mpi::COMM_WORLD, || {
        let (h, result) = types::dup(old)?.into_output(mpi::DATATYPE_NULL);
        // SAFETY: the caller's output argument.
        unsafe { out(newtype, h, "newtype")? };
        result
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_create_subarray(
    ndims: c_int,
    sizes: *const c_int,
    subsizes: *const c_int,
    starts: *const c_int,
    order: c_int,
    old: c_int,
    newtype: *mut c_int,
) -> c_int {
    let a = Subarray {
        ndims,
        sizes: &CArray(sizes),
        subsizes: &CArray(subsizes),
        starts: &CArray(starts),
        order,
        old,
    };
    construct("MPI_Type_create_subarray", newtype, || types::subarray(&a))
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
    let a = Darray {
        size,
        rank,
        ndims,
        gsizes: &CArray(gsizes),
        distribs: &CArray(distribs),
        dargs: &CArray(dargs),
        psizes: &CArray(psizes),
        order,
        old,
    };
    construct("MPI_Type_create_darray", newtype, || types::darray(&a))
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

pub(crate) unsafe extern "C" fn MPI_Type_commit(datatype: *mut c_int) -> c_int {
    call("MPI_Type_commit", mpi::COMM_WORLD, || {
        non_null(datatype, "datatype")?;
        // SAFETY: non-null in/out argument.
        types::commit(unsafe { *datatype })
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_free(datatype: *mut c_int) -> c_int {
    call("MPI_Type_free", mpi::COMM_WORLD, || {
        non_null(datatype, "datatype")?;
        // SAFETY: non-null in/out argument.
        types::free(unsafe { *datatype })?;
        // SAFETY: as above.
        unsafe { *datatype = mpi::DATATYPE_NULL };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_size(datatype: c_int, size: *mut c_int) -> c_int {
    call("MPI_Type_size", mpi::COMM_WORLD, || {
        let s = types::get(datatype)?.size;
        // SAFETY: the caller's output argument.
        unsafe { out(size, c_int::try_from(s).unwrap_or(mpi::UNDEFINED), "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_size_x(dt: c_int, size: *mut i64) -> c_int {
    call("MPI_Type_size_x", mpi::COMM_WORLD, || {
        let t = types::get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, t.size as i64, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_extent(
    datatype: c_int,
    lb: *mut isize,
    extent: *mut isize,
) -> c_int {
    call("MPI_Type_get_extent", mpi::COMM_WORLD, || {
        let t = types::get(datatype)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(lb, t.lb, "lb")?;
            out(extent, t.extent, "extent")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_true_extent(
    dt: c_int,
    lb: *mut isize,
    extent: *mut isize,
) -> c_int {
    call("MPI_Type_get_true_extent", mpi::COMM_WORLD, || {
        let t = types::get(dt)?;
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
        let t = types::get(dt)?;
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
        let t = types::get(dt)?;
        // SAFETY: the caller's output arguments.
        unsafe {
            out(lb, t.true_lb as i64, "true_lb")?;
            out(extent, t.true_extent as i64, "true_extent")
        }
    })
}

// The MPI-1 extent queries (deprecated, still used).

pub(crate) unsafe extern "C" fn MPI_Type_extent(dt: c_int, extent: *mut isize) -> c_int {
    call("MPI_Type_extent", mpi::COMM_WORLD, || {
        let t = types::get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(extent, t.extent, "extent") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_lb(dt: c_int, lb: *mut isize) -> c_int {
    call("MPI_Type_lb", mpi::COMM_WORLD, || {
        let t = types::get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(lb, t.lb, "displacement") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_ub(dt: c_int, ub: *mut isize) -> c_int {
    call("MPI_Type_ub", mpi::COMM_WORLD, || {
        let t = types::get(dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(ub, t.lb + t.extent, "displacement") }
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
        let t = types::get(dt)?;
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

/// Writes a non-empty part of MPI_Type_get_contents' answer, failing
/// with `null` when its array is null.
///
/// # Safety
/// `p` is null or has room for `v.len()` values.
unsafe fn write_contents<T: Copy>(p: *mut T, v: &[T], null: &str) -> MpiResult<()> {
    if v.is_empty() {
        return Ok(());
    }
    if p.is_null() {
        return Err(MpiError::new(class::ARG, null));
    }
    // SAFETY: non-null, with room per the contract.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(())
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
    let room = ContentsRoom {
        integers: max_integers,
        addresses: max_addresses,
        datatypes: max_datatypes,
    };
    call("MPI_Type_get_contents", mpi::COMM_WORLD, || {
        let c = types::contents(dt, &room)?;
        // SAFETY: the caller's arrays hold their max_* entries, which
        // `contents` checked are enough.
        unsafe {
            write_contents(integers, &c.integers, "an output array is null")?;
            write_contents(datatypes, &c.datatypes, "an output array is null")?;
            write_contents(addresses, &c.addresses, "array_of_addresses is null")
        }
    })
}

/// MPI_Type_match_size: the Fortran sized type of a class and size.
/// MPI_Type_create_f90_real, _complex and _integer.
macro_rules! f90_types {
    ($($name:ident, $combiner:ident, ($($arg:ident),*));* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name($($arg: c_int,)* newtype: *mut c_int) -> c_int {
            call(stringify!($name), mpi::COMM_WORLD, || {
                let (p, r) = f90_types!(@args $($arg),*);
                let h = types::create_f90(crate::mpi::typector::$combiner, p, r)?;
                // SAFETY: the caller's output argument.
                unsafe { out(newtype, h, "newtype") }
            })
        }
    )*};
    (@args $r:ident) => { (0, $r) };
    (@args $p:ident, $r:ident) => { ($p, $r) };
}

f90_types! {
    MPI_Type_create_f90_real, COMBINER_F90_REAL, (p, r);
    MPI_Type_create_f90_complex, COMBINER_F90_COMPLEX, (p, r);
    MPI_Type_create_f90_integer, COMBINER_F90_INTEGER, (r);
}

pub(crate) unsafe extern "C" fn MPI_Type_match_size(
    typeclass: c_int,
    size: c_int,
    datatype: *mut c_int,
) -> c_int {
    call("MPI_Type_match_size", mpi::COMM_WORLD, || {
        let h = types::match_size(typeclass, size)?;
        // SAFETY: the caller's output argument.
        unsafe { out(datatype, h, "datatype") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_set_name(dt: c_int, name: *const c_char) -> c_int {
    call("MPI_Type_set_name", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let s = unsafe { string(name, "type_name") }?;
        types::set_name(dt, &s)
    })
}

pub(crate) unsafe extern "C" fn MPI_Type_get_name(
    dt: c_int,
    name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    call("MPI_Type_get_name", mpi::COMM_WORLD, || {
        let t = types::get(dt)?;
        non_null(name, "type_name")?;
        // SAFETY: MPI requires MPI_MAX_OBJECT_NAME bytes.
        let n = unsafe { copy_c_string(name, check::MAX_OBJECT_NAME, &t.name) };
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

/// MPI_Address: the MPI-1 name of MPI_Get_address (HPL uses it).
pub(crate) unsafe extern "C" fn MPI_Address(location: *const c_void, address: *mut isize) -> c_int {
    // SAFETY: same contract as MPI_Get_address.
    unsafe { MPI_Get_address(location, address) }
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
        let n = types::pack_size(incount, dt, comm)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, c_int::try_from(n).unwrap_or(c_int::MAX), "size") }
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
        non_null(position, "position")?;
        let p = Packing {
            typed: inbuf as usize,
            count: incount,
            dtype: dt,
            packed: outbuf as usize,
            size: outsize,
            // SAFETY: non-null in/out argument.
            position: unsafe { *position },
            comm,
        };
        let end = types::pack(&p)?;
        // SAFETY: as above.
        unsafe { *position = end as c_int };
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
        non_null(position, "position")?;
        let p = Packing {
            typed: outbuf as usize,
            count: outcount,
            dtype: dt,
            packed: inbuf as usize,
            size: insize,
            // SAFETY: non-null in/out argument.
            position: unsafe { *position },
            comm,
        };
        let end = types::unpack(&p)?;
        // SAFETY: as above.
        unsafe { *position = end as c_int };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Pack_external_size(
    datarep: *const c_char,
    incount: c_int,
    dt: c_int,
    size: *mut isize,
) -> c_int {
    call("MPI_Pack_external_size", mpi::COMM_WORLD, || {
        // SAFETY: the caller's string.
        let rep = unsafe { string(datarep, "datarep") }?;
        let n = types::pack_external_size(&rep, incount, dt)?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, n as isize, "size") }
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
        let rep = unsafe { string(datarep, "datarep") }?;
        non_null(position, "position")?;
        let p = ExternalPacking {
            typed: inbuf as usize,
            count: incount,
            dtype: dt,
            packed: outbuf as usize,
            size: outsize,
            // SAFETY: non-null in/out argument.
            position: unsafe { *position },
        };
        let end = types::pack_external(&rep, &p)?;
        // SAFETY: as above.
        unsafe { *position = end as isize };
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
        let rep = unsafe { string(datarep, "datarep") }?;
        non_null(position, "position")?;
        let p = ExternalPacking {
            typed: outbuf as usize,
            count: outcount,
            dtype: dt,
            packed: inbuf as usize,
            size: insize,
            // SAFETY: non-null in/out argument.
            position: unsafe { *position },
        };
        let end = types::unpack_external(&rep, &p)?;
        // SAFETY: as above.
        unsafe { *position = end as isize };
        Ok(())
    })
}

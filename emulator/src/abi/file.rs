//! MPI-IO: opening and closing files, views, reads and writes in all
//! their forms (explicit offsets, individual and shared pointers;
//! blocking, non-blocking and split collective), pointers, sizes, hints
//! and atomicity.
//!
//! A non-blocking access does its I/O when it is called, as ROMIO's
//! generic driver does, and returns a request that is complete already;
//! a split collective does the whole collective at `_begin` and hands
//! its status out at `_end`.

use std::ffi::{c_char, c_int, c_void};

use super::check::{self, out, write_status, CStatus};
use super::env::copy_c_string;
use super::{call_in, ErrScope};
use crate::mpi::file::{self, Access, OpenSpec, Position};
use crate::mpi::{class, MpiError, MpiResult, Status};
use crate::sim;

type Offset = i64;
type Aint = isize;

/// MPI_MAX_DATAREP_STRING, with its NUL.
const MAX_DATAREP_STRING: usize = 128;

fn on_file(name: &'static str, fh: c_int, body: impl FnOnce() -> MpiResult<()>) -> c_int {
    call_in(name, ErrScope::File(fh), body)
}

pub(crate) unsafe extern "C" fn MPI_File_open(
    comm: c_int,
    filename: *const c_char,
    amode: c_int,
    info: c_int,
    fh: *mut c_int,
) -> c_int {
    on_file("MPI_File_open", file::FILE_NULL, || {
        check::non_null(fh, "fh")?;
        // SAFETY: a NUL-terminated string from the caller.
        let path = unsafe { check::string(filename, "filename") }?;
        let spec = OpenSpec {
            comm,
            path: &path,
            amode,
            info,
        };
        let h = file::open(spec, "MPI_File_open")?;
        // SAFETY: non-null output argument.
        unsafe { *fh = h };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_File_close(fh: *mut c_int) -> c_int {
    // SAFETY: the caller's in/out argument, checked non-null.
    let h = if fh.is_null() { 0 } else { unsafe { *fh } };
    on_file("MPI_File_close", h, || {
        check::non_null(fh, "fh")?;
        file::close(h, "MPI_File_close")?;
        // SAFETY: as above.
        unsafe { *fh = file::FILE_NULL };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_File_delete(filename: *const c_char, _info: c_int) -> c_int {
    on_file("MPI_File_delete", file::FILE_NULL, || {
        // SAFETY: a NUL-terminated string from the caller.
        let path = unsafe { check::string(filename, "filename") }?;
        file::delete(&path)
    })
}

pub(crate) unsafe extern "C" fn MPI_File_set_size(fh: c_int, size: Offset) -> c_int {
    on_file("MPI_File_set_size", fh, || {
        file::synchronize(fh, "MPI_File_set_size", |w, f| {
            w.resize_file(f, size, false)
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_File_preallocate(fh: c_int, size: Offset) -> c_int {
    on_file("MPI_File_preallocate", fh, || {
        file::synchronize(fh, "MPI_File_preallocate", |w, f| {
            w.resize_file(f, size, true)
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_size(fh: c_int, size: *mut Offset) -> c_int {
    on_file("MPI_File_get_size", fh, || {
        let s = sim::mpi(|w| w.file_size(fh))?;
        // SAFETY: the caller's output argument.
        unsafe { out(size, s, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_group(fh: c_int, group: *mut c_int) -> c_int {
    on_file("MPI_File_get_group", fh, || {
        check::non_null(group, "group")?;
        let g = sim::mpi(|w| w.file_group(fh))?;
        // SAFETY: non-null output argument.
        unsafe { *group = g };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_amode(fh: c_int, amode: *mut c_int) -> c_int {
    on_file("MPI_File_get_amode", fh, || {
        let a = sim::mpi(|w| w.file(fh).map(|(f, _)| f.amode))?;
        // SAFETY: the caller's output argument.
        unsafe { out(amode, a, "amode") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_set_info(fh: c_int, info: c_int) -> c_int {
    on_file("MPI_File_set_info", fh, || {
        file::synchronize(fh, "MPI_File_set_info", |w, f| w.set_file_info(f, info))
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_info(fh: c_int, info: *mut c_int) -> c_int {
    on_file("MPI_File_get_info", fh, || {
        check::non_null(info, "info_used")?;
        let h = sim::mpi(|w| w.file_info(fh))?;
        // SAFETY: non-null output argument.
        unsafe { *info = h };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_File_set_view(
    fh: c_int,
    disp: Offset,
    etype: c_int,
    filetype: c_int,
    datarep: *const c_char,
    info: c_int,
) -> c_int {
    on_file("MPI_File_set_view", fh, || {
        // SAFETY: a NUL-terminated string from the caller.
        let rep = unsafe { check::string(datarep, "datarep") }?;
        let v = file::ViewSpec {
            disp,
            etype,
            filetype,
            datarep: &rep,
            info,
        };
        file::set_view(fh, v, "MPI_File_set_view")
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_view(
    fh: c_int,
    disp: *mut Offset,
    etype: *mut c_int,
    filetype: *mut c_int,
    datarep: *mut c_char,
) -> c_int {
    on_file("MPI_File_get_view", fh, || {
        for (p, what) in [(etype, "etype"), (filetype, "filetype")] {
            check::non_null(p, what)?;
        }
        check::non_null(disp, "disp")?;
        let (d, e, f, rep) = sim::mpi(|w| file::view_types(w, fh))?;
        // SAFETY: non-null output arguments; `datarep` has room for
        // MPI_MAX_DATAREP_STRING characters (MPI's contract).
        unsafe {
            *disp = d;
            *etype = e;
            *filetype = f;
            copy_c_string(datarep, MAX_DATAREP_STRING, &rep);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_type_extent(
    fh: c_int,
    datatype: c_int,
    extent: *mut Aint,
) -> c_int {
    on_file("MPI_File_get_type_extent", fh, || {
        let e = sim::mpi(|w| -> MpiResult<Aint> {
            w.file(fh)?;
            Ok(w.mpi.datatype(datatype)?.extent)
        })?;
        // SAFETY: the caller's output argument.
        unsafe { out(extent, e, "extent") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_set_atomicity(fh: c_int, flag: c_int) -> c_int {
    on_file("MPI_File_set_atomicity", fh, || {
        file::synchronize(fh, "MPI_File_set_atomicity", |w, f| {
            w.file_member_mut(f)?.atomic = flag != 0;
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_atomicity(fh: c_int, flag: *mut c_int) -> c_int {
    on_file("MPI_File_get_atomicity", fh, || {
        let a = sim::mpi(|w| w.file_member(fh).map(|m| m.atomic))?;
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(a), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_sync(fh: c_int) -> c_int {
    // Every rank's writes reach the OS file at once (one process), so a
    // sync only orders the members.
    on_file("MPI_File_sync", fh, || {
        file::synchronize(fh, "MPI_File_sync", |w, f| w.file(f).map(drop))
    })
}

pub(crate) unsafe extern "C" fn MPI_File_seek(fh: c_int, offset: Offset, whence: c_int) -> c_int {
    on_file("MPI_File_seek", fh, || file::seek(fh, offset, whence))
}

pub(crate) unsafe extern "C" fn MPI_File_get_position(fh: c_int, offset: *mut Offset) -> c_int {
    on_file("MPI_File_get_position", fh, || {
        let p = sim::mpi(|w| w.file_member(fh).map(|m| m.pos))?;
        // SAFETY: the caller's output argument.
        unsafe { out(offset, p, "offset") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_seek_shared(
    fh: c_int,
    offset: Offset,
    whence: c_int,
) -> c_int {
    on_file("MPI_File_seek_shared", fh, || {
        file::seek_shared(fh, offset, whence, "MPI_File_seek_shared")
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_position_shared(
    fh: c_int,
    offset: *mut Offset,
) -> c_int {
    on_file("MPI_File_get_position_shared", fh, || {
        let p = sim::mpi(|w| w.file(fh).map(|(f, _)| f.shared))?;
        // SAFETY: the caller's output argument.
        unsafe { out(offset, p, "offset") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_byte_offset(
    fh: c_int,
    offset: Offset,
    disp: *mut Offset,
) -> c_int {
    on_file("MPI_File_get_byte_offset", fh, || {
        let d = sim::mpi(|w| -> MpiResult<Offset> {
            let v = &w.file_member(fh)?.view;
            let start = u64::try_from(offset)
                .map_err(|_| MpiError::new(class::ARG, format!("negative offset {offset}")))?
                * v.etype.size as u64;
            let first = v.pieces(start, 1).first().map_or(0, |p| p.0);
            Ok(first as Offset)
        })?;
        // SAFETY: the caller's output argument.
        unsafe { out(disp, d, "disp") }
    })
}

/// Runs access `a`, writing its status.
///
/// # Safety
/// `status` is null, MPI_STATUS_IGNORE or a writable MPI_Status.
unsafe fn blocking(a: Access, status: *mut CStatus) -> c_int {
    on_file(a.call, a.file, || {
        let st = file::access(a)?;
        // SAFETY: per the contract.
        unsafe { write_status(status, &st, false) };
        Ok(())
    })
}

/// Runs access `a` and returns a complete request for it.
///
/// # Safety
/// `request` is null or a writable MPI_Request.
unsafe fn nonblocking(a: Access, request: *mut c_int) -> c_int {
    on_file(a.call, a.file, || {
        check::non_null(request, "request")?;
        let st = file::access(a)?;
        let id = sim::mpi(|w| w.new_completed_request_with(st));
        // SAFETY: non-null output argument.
        unsafe { *request = id as c_int + 1 };
        Ok(())
    })
}

/// Begins split collective `a`: the whole access, its status kept.
fn begin(a: Access) -> c_int {
    on_file(a.call, a.file, || {
        if let Some((begun, _)) = sim::mpi(|w| w.file_member(a.file).map(|m| m.split))? {
            return Err(MpiError::new(
                class::OTHER,
                format!("{}: the split collective {begun} is not ended", a.call),
            ));
        }
        let st = file::access(a)?;
        sim::mpi(|w| -> MpiResult<()> {
            w.file_member_mut(a.file)?.split = Some((a.call, st));
            Ok(())
        })
    })
}

/// Ends the split collective begun by `begun`, writing its status.
///
/// # Safety
/// `status` is null, MPI_STATUS_IGNORE or a writable MPI_Status.
unsafe fn end(name: &'static str, begun: &str, fh: c_int, status: *mut CStatus) -> c_int {
    on_file(name, fh, || {
        let st: Status = sim::mpi(|w| -> MpiResult<Status> {
            let m = w.file_member_mut(fh)?;
            match m.split.take() {
                Some((b, st)) if b == begun => Ok(st),
                other => {
                    m.split = other;
                    Err(MpiError::new(
                        class::OTHER,
                        format!("{name} without a matching {begun}"),
                    ))
                }
            }
        })?;
        // SAFETY: per the contract.
        unsafe { write_status(status, &st, false) };
        Ok(())
    })
}

/// The access of call `$name` on `$fh` with the program's buffer triple.
macro_rules! access {
    ($name:ident, $fh:ident, ($buf:ident, $count:ident, $dtype:ident), $pos:expr, $write:expr, $coll:expr) => {
        Access {
            file: $fh,
            buf: $buf as usize,
            count: i64::from($count),
            dtype: $dtype,
            position: $pos,
            write: $write,
            collective: $coll,
            call: stringify!($name),
        }
    };
}

/// The blocking and non-blocking calls at explicit offsets.
macro_rules! at_calls {
    ($($name:ident, $write:expr, $coll:expr, $kind:ident);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name(
            fh: c_int,
            offset: Offset,
            buf: *mut c_void,
            count: c_int,
            datatype: c_int,
            out: *mut c_void,
        ) -> c_int {
            let a = access!($name, fh, (buf, count, datatype), Position::Explicit(offset), $write, $coll);
            // SAFETY: `out` is the status or request argument of the call.
            unsafe { at_calls!(@$kind a, out) }
        }
    )*};
    (@status $a:ident, $out:ident) => { blocking($a, $out as *mut CStatus) };
    (@request $a:ident, $out:ident) => { nonblocking($a, $out as *mut c_int) };
}

at_calls! {
    MPI_File_read_at, false, false, status;
    MPI_File_read_at_all, false, true, status;
    MPI_File_write_at, true, false, status;
    MPI_File_write_at_all, true, true, status;
    MPI_File_iread_at, false, false, request;
    MPI_File_iread_at_all, false, true, request;
    MPI_File_iwrite_at, true, false, request;
    MPI_File_iwrite_at_all, true, true, request;
}

/// The blocking and non-blocking calls at a file pointer.
macro_rules! pointer_calls {
    ($($name:ident, $pos:ident, $write:expr, $coll:expr, $kind:ident);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name(
            fh: c_int,
            buf: *mut c_void,
            count: c_int,
            datatype: c_int,
            out: *mut c_void,
        ) -> c_int {
            let a = access!($name, fh, (buf, count, datatype), Position::$pos, $write, $coll);
            // SAFETY: `out` is the status or request argument of the call.
            unsafe { at_calls!(@$kind a, out) }
        }
    )*};
}

pointer_calls! {
    MPI_File_read, Individual, false, false, status;
    MPI_File_read_all, Individual, false, true, status;
    MPI_File_write, Individual, true, false, status;
    MPI_File_write_all, Individual, true, true, status;
    MPI_File_iread, Individual, false, false, request;
    MPI_File_iread_all, Individual, false, true, request;
    MPI_File_iwrite, Individual, true, false, request;
    MPI_File_iwrite_all, Individual, true, true, request;
    MPI_File_read_shared, Shared, false, false, status;
    MPI_File_write_shared, Shared, true, false, status;
    MPI_File_iread_shared, Shared, false, false, request;
    MPI_File_iwrite_shared, Shared, true, false, request;
    MPI_File_read_ordered, Ordered, false, true, status;
    MPI_File_write_ordered, Ordered, true, true, status;
}

/// The `_begin` calls at explicit offsets.
macro_rules! at_begin_calls {
    ($($name:ident, $write:expr);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name(
            fh: c_int,
            offset: Offset,
            buf: *mut c_void,
            count: c_int,
            datatype: c_int,
        ) -> c_int {
            begin(access!($name, fh, (buf, count, datatype), Position::Explicit(offset), $write, true))
        }
    )*};
}

at_begin_calls! {
    MPI_File_read_at_all_begin, false;
    MPI_File_write_at_all_begin, true;
}

/// The `_begin` calls at a file pointer.
macro_rules! begin_calls {
    ($($name:ident, $pos:ident, $write:expr);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name(
            fh: c_int,
            buf: *mut c_void,
            count: c_int,
            datatype: c_int,
        ) -> c_int {
            begin(access!($name, fh, (buf, count, datatype), Position::$pos, $write, true))
        }
    )*};
}

begin_calls! {
    MPI_File_read_all_begin, Individual, false;
    MPI_File_write_all_begin, Individual, true;
    MPI_File_read_ordered_begin, Ordered, false;
    MPI_File_write_ordered_begin, Ordered, true;
}

/// The `_end` calls.
macro_rules! end_calls {
    ($($name:ident, $begin:ident);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name(
            fh: c_int,
            _buf: *mut c_void,
            status: *mut CStatus,
        ) -> c_int {
            // SAFETY: `status` is the call's status argument.
            unsafe { end(stringify!($name), stringify!($begin), fh, status) }
        }
    )*};
}

end_calls! {
    MPI_File_read_at_all_end, MPI_File_read_at_all_begin;
    MPI_File_write_at_all_end, MPI_File_write_at_all_begin;
    MPI_File_read_all_end, MPI_File_read_all_begin;
    MPI_File_write_all_end, MPI_File_write_all_begin;
    MPI_File_read_ordered_end, MPI_File_read_ordered_begin;
    MPI_File_write_ordered_end, MPI_File_write_ordered_begin;
}

pub(crate) unsafe extern "C" fn MPI_File_c2f(fh: c_int) -> c_int {
    fh
}

pub(crate) unsafe extern "C" fn MPI_File_f2c(fh: c_int) -> c_int {
    fh
}

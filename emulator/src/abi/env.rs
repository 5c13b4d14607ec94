//! Environment calls: init, finalize, abort, rank and size, versions,
//! error strings, error handlers.

use std::ffi::{c_char, c_int};

use super::check::{self, out};
use super::{call, call_in, call_traced, ErrScope};
use crate::mpi::error::{Handling, MAX_ERROR_STRING};
use crate::mpi::{self, class, MpiError};
use crate::sim;
use crate::trace;

/// `MPI_THREAD_MULTIPLE`: a rank's threads are simulated
/// (`crate::pthreads`), so any of them may call MPI.
const THREAD_MULTIPLE: c_int = 3;

/// Copies `s` into a C buffer of `cap` bytes (NUL-terminated), returning
/// the length written without the NUL.
///
/// # Safety
/// `dst` points to at least `cap` writable bytes.
pub(crate) unsafe fn copy_c_string(dst: *mut c_char, cap: usize, s: &str) -> usize {
    if dst.is_null() || cap == 0 {
        return 0;
    }
    let n = s.len().min(cap - 1);
    // SAFETY: n + 1 <= cap bytes are writable at dst.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst.cast::<u8>(), n);
        *dst.add(n) = 0;
    }
    n
}

fn init_common(name: &'static str, level: c_int) -> Result<(), MpiError> {
    let seconds = sim::mpi(|w| {
        let me = w.core.current();
        let actor = w.core.current_actor();
        let st = &mut w.mpi.ranks[me];
        if st.initialized {
            return Err(MpiError::new(class::OTHER, format!("{name} called twice")));
        }
        st.initialized = true;
        st.thread_level = level;
        st.main_actor = actor;
        Ok(w.mpi.init_seconds)
    })?;
    // SimGrid's smpi/init: the time MPI_Init itself takes.
    sim::sleep(seconds, name);
    Ok(())
}

pub(crate) unsafe extern "C" fn MPI_Init(_argc: *mut c_int, _argv: *mut *mut *mut c_char) -> c_int {
    call_traced(
        "MPI_Init",
        mpi::COMM_WORLD,
        |_| trace::plain("init"),
        || init_common("MPI_Init", 0),
    )
}

pub(crate) unsafe extern "C" fn MPI_Init_thread(
    _argc: *mut c_int,
    _argv: *mut *mut *mut c_char,
    required: c_int,
    provided: *mut c_int,
) -> c_int {
    call_traced(
        "MPI_Init_thread",
        mpi::COMM_WORLD,
        |_| trace::plain("init"),
        || {
            // Every level up to MPI_THREAD_MULTIPLE: the threads a rank
            // starts are simulated, and call MPI as the rank.
            let level = required.clamp(0, THREAD_MULTIPLE);
            init_common("MPI_Init_thread", level)?;
            // SAFETY: `provided` is the caller's output argument.
            unsafe { out(provided, level, "provided") }
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Finalize() -> c_int {
    let finalize = |_: &mpi::Ctx<'_>| trace::plain("finalize");
    call_traced("MPI_Finalize", mpi::COMM_WORLD, finalize, || {
        // MPI 2.2: attributes on MPI_COMM_SELF are deleted first, in the
        // reverse order of their setting.
        mpi::attr::delete_all(mpi::attr::Kind::Comm, mpi::COMM_SELF)?;
        if sim::mpi(|w| w.mpi.finalization_barrier) {
            mpi::collective::barrier(mpi::COMM_WORLD)?;
        }
        sim::mpi(|w| {
            w.finalize_pending();
            let me = w.core.current();
            w.mpi.ranks[me].finalized = true;
        });
        Ok(())
    })
}

/// `smpi_global_size()`: the number of ranks of the simulation.
pub(crate) unsafe extern "C" fn smpi_global_size() -> c_int {
    c_int::try_from(sim::with(|s| s.core.size())).unwrap_or(c_int::MAX)
}

pub(crate) unsafe extern "C" fn MPI_Initialized(flag: *mut c_int) -> c_int {
    super::traced("MPI_Initialized", || {
        let v = sim::with(|s| crate::actors::mpi_initialized(s));
        // SAFETY: `flag` is the caller's output argument.
        match unsafe { out(flag, c_int::from(v), "flag") } {
            Ok(()) => 0,
            Err(e) => e.class,
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Finalized(flag: *mut c_int) -> c_int {
    super::traced("MPI_Finalized", || {
        let v = sim::mpi(|w| w.mpi.ranks[w.core.current()].finalized);
        // SAFETY: `flag` is the caller's output argument.
        match unsafe { out(flag, c_int::from(v), "flag") } {
            Ok(()) => 0,
            Err(e) => e.class,
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Query_thread(provided: *mut c_int) -> c_int {
    // SAFETY: `provided` is the caller's output argument.
    call("MPI_Query_thread", mpi::COMM_WORLD, || {
        let level = sim::mpi(|w| w.mpi.ranks[w.core.current()].thread_level);
        // SAFETY: as above.
        unsafe { out(provided, level, "provided") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Is_thread_main(flag: *mut c_int) -> c_int {
    // SAFETY: `flag` is the caller's output argument.
    call("MPI_Is_thread_main", mpi::COMM_WORLD, || {
        let main = sim::mpi(|w| {
            let rank = &w.mpi.ranks[w.core.current()];
            !rank.initialized || rank.main_actor == w.core.current_actor()
        });
        // SAFETY: as above.
        unsafe { out(flag, c_int::from(main), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Abort(_comm: c_int, errorcode: c_int) -> c_int {
    super::bench_end();
    let rank = sim::mpi(|w| w.core.current());
    crate::flush_c_stdio();
    eprintln!("smpirun: rank {rank} called MPI_Abort with error code {errorcode}");
    super::abort_simulation(errorcode)
}

pub(crate) unsafe extern "C" fn MPI_Comm_rank(comm: c_int, rank: *mut c_int) -> c_int {
    call("MPI_Comm_rank", comm, || {
        let r = sim::mpi(|w| w.comm(comm))?.my_rank;
        // SAFETY: `rank` is the caller's output argument.
        unsafe { out(rank, r as c_int, "rank") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_size(comm: c_int, size: *mut c_int) -> c_int {
    call("MPI_Comm_size", comm, || {
        let n = sim::mpi(|w| w.comm(comm))?.size();
        // SAFETY: `size` is the caller's output argument.
        unsafe { out(size, n as c_int, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Get_processor_name(
    name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    call("MPI_Get_processor_name", mpi::COMM_WORLD, || {
        let host = sim::with(|s| {
            let core = &s.core;
            core.platform()
                .host(core.host_of(core.current()))
                .name
                .clone()
        });
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "name is a null pointer"));
        }
        // SAFETY: MPI requires `name` to hold MPI_MAX_PROCESSOR_NAME (256) bytes.
        let n = unsafe { copy_c_string(name, 256, &host) };
        // SAFETY: `resultlen` is the caller's output argument.
        unsafe { out(resultlen, n as c_int, "resultlen") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Get_version(
    version: *mut c_int,
    subversion: *mut c_int,
) -> c_int {
    // SAFETY: the caller's output arguments.
    unsafe {
        if version.is_null() || subversion.is_null() {
            return class::ARG;
        }
        *version = 3;
        *subversion = 1;
    }
    0
}

pub(crate) unsafe extern "C" fn MPI_Get_library_version(
    version: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    let text = format!(
        "smpi-rs {} (MPI emulator; simulated MPI 3.1)",
        env!("CARGO_PKG_VERSION")
    );
    if version.is_null() || resultlen.is_null() {
        return class::ARG;
    }
    // SAFETY: MPI requires MPI_MAX_LIBRARY_VERSION_STRING (8192) bytes.
    let n = unsafe { copy_c_string(version, 8192, &text) };
    // SAFETY: non-null output argument.
    unsafe { *resultlen = n as c_int };
    0
}

/// MPI_Pcontrol: the standard leaves its effect to the implementation
/// (MPICH ignores it too); the emulator has no profiling levels to switch.
pub(crate) unsafe extern "C" fn MPI_Pcontrol(_level: c_int) -> c_int {
    0
}

pub(crate) unsafe extern "C" fn MPI_Error_string(
    code: c_int,
    string: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    if string.is_null() || resultlen.is_null() {
        return class::ARG;
    }
    let Some((_, text)) = sim::mpi(|w| w.mpi.describe_error(code)) else {
        return class::ARG;
    };
    // SAFETY: MPI requires MPI_MAX_ERROR_STRING bytes.
    let n = unsafe { copy_c_string(string, MAX_ERROR_STRING, &text) };
    // SAFETY: non-null output argument.
    unsafe { *resultlen = n as c_int };
    0
}

pub(crate) unsafe extern "C" fn MPI_Error_class(code: c_int, errorclass: *mut c_int) -> c_int {
    if errorclass.is_null() {
        return class::ARG;
    }
    let Some((class_, _)) = sim::mpi(|w| w.mpi.describe_error(code)) else {
        return class::ARG;
    };
    // SAFETY: non-null output argument.
    unsafe { *errorclass = class_ };
    0
}

pub(crate) unsafe extern "C" fn MPI_Add_error_class(errorclass: *mut c_int) -> c_int {
    call("MPI_Add_error_class", mpi::COMM_WORLD, || {
        let c = sim::mpi(|w| w.mpi.add_error_class());
        // SAFETY: the caller's output argument.
        unsafe { out(errorclass, c, "errorclass") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Add_error_code(
    errorclass: c_int,
    errorcode: *mut c_int,
) -> c_int {
    call("MPI_Add_error_code", mpi::COMM_WORLD, || {
        let c = sim::mpi(|w| w.mpi.add_error_code(errorclass))?;
        // SAFETY: the caller's output argument.
        unsafe { out(errorcode, c, "errorcode") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Add_error_string(
    errorcode: c_int,
    string: *const c_char,
) -> c_int {
    call("MPI_Add_error_string", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let text = unsafe { check::string(string, "string") }?;
        sim::mpi(|w| w.mpi.set_error_string(errorcode, &text))
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_create_errhandler(
    function: usize,
    errhandler: *mut c_int,
) -> c_int {
    create_errhandler("MPI_Comm_create_errhandler", function, errhandler)
}

/// Registers the program's error handler function (for communicators,
/// windows and files alike: their handlers have the same C shape).
pub(crate) fn create_errhandler(
    name: &'static str,
    function: usize,
    errhandler: *mut c_int,
) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        if function == 0 {
            return Err(MpiError::new(
                class::ARG,
                "the error handler function is null",
            ));
        }
        let h = sim::mpi(|w| w.new_errhandler(function));
        // SAFETY: the caller's output argument.
        unsafe { out(errhandler, h, "errhandler") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_call_errhandler(comm: c_int, errorcode: c_int) -> c_int {
    let handler = sim::mpi(|w| w.comm_errhandler(comm));
    call_errhandler(
        "MPI_Comm_call_errhandler",
        handler,
        comm,
        ErrScope::Comm(comm),
        errorcode,
    )
}

/// MPI_*_call_errhandler once the object's `handler` is known: the
/// program's function is called (and the call succeeds), MPI_ERRORS_RETURN
/// returns the code, MPI_ERRORS_ARE_FATAL stops the simulation. An invalid
/// object is reported on MPI_COMM_WORLD.
pub(crate) fn call_errhandler(
    name: &'static str,
    handler: mpi::MpiResult<c_int>,
    object: c_int,
    scope: ErrScope,
    errorcode: c_int,
) -> c_int {
    let handling = handler.map(|h| sim::mpi(|w| w.mpi.handling(h)));
    match handling {
        Ok(Handling::Return) => errorcode,
        Ok(Handling::Call(f)) => {
            super::call_user_errhandler(f, object, errorcode);
            0
        }
        Ok(Handling::Fatal) => call_in(name, scope, || {
            Err(MpiError::new(
                errorcode,
                format!("the program raised error code {errorcode}"),
            ))
        }),
        Err(e) => call(name, mpi::COMM_WORLD, || Err(e)),
    }
}

pub(crate) unsafe extern "C" fn MPI_Comm_set_errhandler(comm: c_int, errhandler: c_int) -> c_int {
    call("MPI_Comm_set_errhandler", comm, || {
        sim::mpi(|w| w.set_errhandler(comm, errhandler))
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_get_errhandler(
    comm: c_int,
    errhandler: *mut c_int,
) -> c_int {
    call("MPI_Comm_get_errhandler", comm, || {
        let eh = sim::mpi(|w| w.comm_errhandler(comm))?;
        // SAFETY: the caller's output argument.
        unsafe { out(errhandler, eh, "errhandler") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_create_errhandler(
    function: usize,
    errhandler: *mut c_int,
) -> c_int {
    create_errhandler("MPI_File_create_errhandler", function, errhandler)
}

pub(crate) unsafe extern "C" fn MPI_File_set_errhandler(file: c_int, errhandler: c_int) -> c_int {
    call_in("MPI_File_set_errhandler", ErrScope::File(file), || {
        sim::mpi(|w| w.set_file_errhandler(file, errhandler))
    })
}

pub(crate) unsafe extern "C" fn MPI_File_get_errhandler(
    file: c_int,
    errhandler: *mut c_int,
) -> c_int {
    call_in("MPI_File_get_errhandler", ErrScope::File(file), || {
        let eh = sim::mpi(|w| w.file_errhandler(file))?;
        // SAFETY: the caller's output argument.
        unsafe { out(errhandler, eh, "errhandler") }
    })
}

pub(crate) unsafe extern "C" fn MPI_File_call_errhandler(file: c_int, errorcode: c_int) -> c_int {
    let handler = sim::mpi(|w| w.file_errhandler(file));
    call_errhandler(
        "MPI_File_call_errhandler",
        handler,
        file,
        ErrScope::File(file),
        errorcode,
    )
}

pub(crate) unsafe extern "C" fn MPI_Errhandler_free(errhandler: *mut c_int) -> c_int {
    call("MPI_Errhandler_free", mpi::COMM_WORLD, || {
        check::non_null(errhandler, "errhandler")?;
        // SAFETY: non-null, the caller's in/out argument.
        let eh = unsafe { *errhandler };
        // Handlers are never destroyed; the handle becomes null.
        sim::mpi(|w| w.free_errhandler(eh));
        // SAFETY: as above.
        unsafe { *errhandler = 0 };
        Ok(())
    })
}

/// Handle conversions to and from Fortran: handles are integers already,
/// so both directions are the identity (as in MPICH).
macro_rules! identity_conversions {
    ($($c2f:ident, $f2c:ident);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $c2f(handle: c_int) -> c_int {
            handle
        }
        pub(crate) unsafe extern "C" fn $f2c(handle: c_int) -> c_int {
            handle
        }
    )*};
}
identity_conversions! {
    MPI_Comm_c2f, MPI_Comm_f2c;
    MPI_Group_c2f, MPI_Group_f2c;
    MPI_Type_c2f, MPI_Type_f2c;
    MPI_Request_c2f, MPI_Request_f2c;
    MPI_Op_c2f, MPI_Op_f2c;
    MPI_Errhandler_c2f, MPI_Errhandler_f2c;
    MPI_Message_c2f, MPI_Message_f2c;
    MPI_Win_c2f, MPI_Win_f2c;
    MPI_Info_c2f, MPI_Info_f2c;
}

// The MPI-1 names of the error handler calls.

pub(crate) unsafe extern "C" fn MPI_Errhandler_create(
    function: usize,
    errhandler: *mut c_int,
) -> c_int {
    // SAFETY: same contract as MPI_Comm_create_errhandler.
    unsafe { MPI_Comm_create_errhandler(function, errhandler) }
}

pub(crate) unsafe extern "C" fn MPI_Errhandler_set(comm: c_int, errhandler: c_int) -> c_int {
    // SAFETY: same contract as MPI_Comm_set_errhandler.
    unsafe { MPI_Comm_set_errhandler(comm, errhandler) }
}

pub(crate) unsafe extern "C" fn MPI_Errhandler_get(comm: c_int, errhandler: *mut c_int) -> c_int {
    // SAFETY: same contract as MPI_Comm_get_errhandler.
    unsafe { MPI_Comm_get_errhandler(comm, errhandler) }
}

//! One-sided communication: windows, synchronization, operations, and the
//! window's names, info, attributes and error handlers.

use std::ffi::{c_char, c_int, c_void};

use super::attr;
use super::check::{non_null, out};
use super::env::copy_c_string;
use super::{call, call_in, ErrScope};
use crate::mpi::attr::Kind;
use crate::mpi::win::{self, Buffer, Flavor, OpKind, TargetSpec, WindowSpec};
use crate::mpi::{self, class, MpiError, MpiResult, ReqId};
use crate::sim;

type Aint = isize;

fn on_win(name: &'static str, w: c_int, body: impl FnOnce() -> MpiResult<()>) -> c_int {
    call_in(name, ErrScope::Win(w), body)
}

/// Writes a new request handle.
///
/// # Safety
/// `request` is null or points to the caller's writable MPI_Request.
unsafe fn out_request(request: *mut c_int, id: Option<ReqId>) -> MpiResult<()> {
    let h = id.map_or(0, |id| id as c_int + 1);
    // SAFETY: per the contract.
    unsafe { out(request, h, "request") }
}

/// Creates a window and writes its handle (and its base to `baseptr`
/// for the flavors that allocate).
fn create_window(
    name: &'static str,
    comm: c_int,
    spec: WindowSpec,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> c_int {
    call(name, comm, || {
        non_null(win, "win")?;
        let h = win::create(comm, spec, name)?;
        if matches!(spec.flavor, Flavor::Allocate | Flavor::Shared) {
            let b = sim::mpi(|w| w.win_member(h).map(|m| m.base))?;
            // SAFETY: `baseptr` is the address of the caller's pointer
            // variable (MPI passes `void *` that is really `void **`).
            unsafe { out(baseptr as *mut usize, b, "baseptr")? };
        }
        // SAFETY: non-null output argument.
        unsafe { *win = h };
        Ok(())
    })
}

/// The spec of a window of `flavor`.
fn spec(flavor: Flavor, base: usize, size: Aint, disp_unit: c_int, info: c_int) -> WindowSpec {
    WindowSpec {
        flavor,
        base,
        size,
        disp_unit,
        info,
    }
}

pub(crate) unsafe extern "C" fn MPI_Win_create(
    base: *mut c_void,
    size: Aint,
    disp_unit: c_int,
    info: c_int,
    comm: c_int,
    win: *mut c_int,
) -> c_int {
    let spec = spec(Flavor::Create, base as usize, size, disp_unit, info);
    create_window("MPI_Win_create", comm, spec, std::ptr::null_mut(), win)
}

pub(crate) unsafe extern "C" fn MPI_Win_allocate(
    size: Aint,
    disp_unit: c_int,
    info: c_int,
    comm: c_int,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> c_int {
    let spec = spec(Flavor::Allocate, 0, size, disp_unit, info);
    create_window("MPI_Win_allocate", comm, spec, baseptr, win)
}

pub(crate) unsafe extern "C" fn MPI_Win_allocate_shared(
    size: Aint,
    disp_unit: c_int,
    info: c_int,
    comm: c_int,
    baseptr: *mut c_void,
    win: *mut c_int,
) -> c_int {
    let spec = spec(Flavor::Shared, 0, size, disp_unit, info);
    create_window("MPI_Win_allocate_shared", comm, spec, baseptr, win)
}

pub(crate) unsafe extern "C" fn MPI_Win_create_dynamic(
    info: c_int,
    comm: c_int,
    win: *mut c_int,
) -> c_int {
    let spec = spec(Flavor::Dynamic, 0, 0, 1, info);
    create_window(
        "MPI_Win_create_dynamic",
        comm,
        spec,
        std::ptr::null_mut(),
        win,
    )
}

pub(crate) unsafe extern "C" fn MPI_Win_shared_query(
    win: c_int,
    rank: c_int,
    size: *mut Aint,
    disp_unit: *mut c_int,
    baseptr: *mut c_void,
) -> c_int {
    on_win("MPI_Win_shared_query", win, || {
        let (s, d, b) = win::shared_query(win, rank)?;
        // SAFETY: the caller's output arguments; baseptr is really a
        // `void **`.
        unsafe {
            out(size, s as Aint, "size")?;
            out(disp_unit, d as c_int, "disp_unit")?;
            out(baseptr as *mut usize, b, "baseptr")
        }
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_attach(win: c_int, base: *mut c_void, size: Aint) -> c_int {
    on_win("MPI_Win_attach", win, || {
        win::attach(win, base as usize, size)
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_detach(win: c_int, base: *const c_void) -> c_int {
    on_win("MPI_Win_detach", win, || win::detach(win, base as usize))
}

pub(crate) unsafe extern "C" fn MPI_Win_free(win: *mut c_int) -> c_int {
    let h = if win.is_null() {
        win::WIN_NULL
    } else {
        // SAFETY: non-null in/out argument.
        unsafe { *win }
    };
    on_win("MPI_Win_free", h, || {
        if win.is_null() {
            return Err(MpiError::new(class::ARG, "win is a null pointer"));
        }
        sim::mpi(|w| w.win_member(h).map(|_| ()))?;
        crate::mpi::attr::delete_all(Kind::Win, h)?;
        win::free(h)?;
        // SAFETY: non-null in/out argument.
        unsafe { *win = win::WIN_NULL };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_get_group(win: c_int, group: *mut c_int) -> c_int {
    on_win("MPI_Win_get_group", win, || {
        let g = sim::mpi(|w| w.win_group(win))?;
        // SAFETY: the caller's output argument.
        unsafe { out(group, g, "group") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_set_info(win: c_int, info: c_int) -> c_int {
    on_win("MPI_Win_set_info", win, || {
        sim::mpi(|w| w.set_window_info(win, info))
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_get_info(win: c_int, info: *mut c_int) -> c_int {
    on_win("MPI_Win_get_info", win, || {
        let h = sim::mpi(|w| w.window_info(win))?;
        // SAFETY: the caller's output argument.
        unsafe { out(info, h, "info_used") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_set_name(win: c_int, name: *const c_char) -> c_int {
    on_win("MPI_Win_set_name", win, || {
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "name is a null pointer"));
        }
        // SAFETY: a NUL-terminated string from the caller.
        let s = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy();
        let s: String = s.chars().take(127).collect();
        sim::mpi(|w| w.win_member_mut(win).map(|m| m.name = s))
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_get_name(
    win: c_int,
    name: *mut c_char,
    resultlen: *mut c_int,
) -> c_int {
    on_win("MPI_Win_get_name", win, || {
        let n = sim::mpi(|w| w.win_member(win).map(|m| m.name.clone()))?;
        if name.is_null() {
            return Err(MpiError::new(class::ARG, "name is a null pointer"));
        }
        // SAFETY: MPI requires MPI_MAX_OBJECT_NAME (128) bytes.
        let len = unsafe { copy_c_string(name, 128, &n) };
        // SAFETY: the caller's output argument.
        unsafe { out(resultlen, len as c_int, "resultlen") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_fence(assert: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_fence", win, || win::fence(win, assert))
}

pub(crate) unsafe extern "C" fn MPI_Win_lock(
    lock_type: c_int,
    rank: c_int,
    assert: c_int,
    win: c_int,
) -> c_int {
    on_win("MPI_Win_lock", win, || {
        win::lock(win, lock_type, rank, assert)
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_unlock(rank: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_unlock", win, || win::unlock(win, rank))
}

pub(crate) unsafe extern "C" fn MPI_Win_lock_all(assert: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_lock_all", win, || win::lock_all(win, assert))
}

pub(crate) unsafe extern "C" fn MPI_Win_unlock_all(win: c_int) -> c_int {
    on_win("MPI_Win_unlock_all", win, || win::unlock_all(win))
}

pub(crate) unsafe extern "C" fn MPI_Win_flush(rank: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_flush", win, || {
        win::flush(win, Some(rank), false, "MPI_Win_flush")
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_flush_local(rank: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_flush_local", win, || {
        win::flush(win, Some(rank), true, "MPI_Win_flush_local")
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_flush_all(win: c_int) -> c_int {
    on_win("MPI_Win_flush_all", win, || {
        win::flush(win, None, false, "MPI_Win_flush_all")
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_flush_local_all(win: c_int) -> c_int {
    on_win("MPI_Win_flush_local_all", win, || {
        win::flush(win, None, true, "MPI_Win_flush_local_all")
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_sync(win: c_int) -> c_int {
    on_win("MPI_Win_sync", win, || win::sync(win))
}

pub(crate) unsafe extern "C" fn MPI_Win_post(group: c_int, assert: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_post", win, || win::post(win, group, assert))
}

pub(crate) unsafe extern "C" fn MPI_Win_start(group: c_int, assert: c_int, win: c_int) -> c_int {
    on_win("MPI_Win_start", win, || win::start(win, group, assert))
}

pub(crate) unsafe extern "C" fn MPI_Win_complete(win: c_int) -> c_int {
    on_win("MPI_Win_complete", win, || win::complete(win))
}

pub(crate) unsafe extern "C" fn MPI_Win_wait(win: c_int) -> c_int {
    on_win("MPI_Win_wait", win, || {
        win::wait_exposure(win, true).map(|_| ())
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_test(win: c_int, flag: *mut c_int) -> c_int {
    on_win("MPI_Win_test", win, || {
        // Costs what MPI_Test costs (smpi/test, charged before the look),
        // so that a rank polling with it lets time pass and the origins
        // complete.
        use crate::mpi::poll::{self, Poll};
        poll::charge_then_look(Poll::Test, "MPI_Win_test");
        let done = win::wait_exposure(win, false)?;
        poll::looked(Poll::Test, done);
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(done), "flag") }
    })
}

/// Issues one operation for an ABI entry point.
fn issue(
    name: &'static str,
    win: c_int,
    kind: OpKind,
    origin: Buffer,
    target: TargetSpec,
    request: Option<*mut c_int>,
) -> c_int {
    on_win(name, win, || {
        if let Some(r) = request {
            if r.is_null() {
                return Err(MpiError::new(class::ARG, "request is a null pointer"));
            }
        }
        // Under SimGrid's model the accumulates and atomics block, some
        // until their own transfer ends: they need a request of their own.
        let simgrid = sim::mpi(|w| w.mpi.windows.model == win::RmaModel::SimGrid);
        let own = simgrid && request.is_none() && !matches!(kind, OpKind::Put | OpKind::Get);
        let issue = || {
            let id =
                sim::mpi(|w| w.rma_issue(win, kind, origin, target, request.is_some() || own))?;
            if simgrid {
                win::block_like_simgrid(win, &kind, target.rank, id, own, name)?;
            }
            Ok(id)
        };
        let atomic = matches!(
            kind,
            OpKind::CompareAndSwap { .. } | OpKind::GetAccumulate { .. }
        );
        // SimGrid copies what a rank puts, gets and swaps on its own
        // memory: a loop of those spins at one date, counted as free
        // polls (an accumulate to itself is a message, whose wait moves
        // the clock and so restarts the count).
        let to_self = simgrid && sim::mpi(|w| w.targets_self(win, target.rank));
        let id = if simgrid && atomic {
            win::with_atomic_mutex(win, target.rank, name, issue)?
        } else {
            issue()?
        };
        if to_self {
            use crate::mpi::poll;
            poll::free_poll(name, poll::SELF_COPIES_PER_DATE);
        }
        if let Some(r) = request {
            // SAFETY: non-null output argument (checked above).
            unsafe { out_request(r, id)? };
        }
        Ok(())
    })
}

fn origin(addr: *const c_void, count: c_int, dtype: c_int) -> Buffer {
    Buffer {
        addr: addr as usize,
        count: i64::from(count),
        dtype,
    }
}

fn target(rank: c_int, disp: Aint, count: c_int, dtype: c_int) -> TargetSpec {
    TargetSpec {
        rank,
        disp,
        count: i64::from(count),
        dtype,
    }
}

/// The entry points of put and get (with and without a request).
macro_rules! transfer_calls {
    ($($name:ident, $rname:ident, $kind:expr, $ptr:ty);* $(;)?) => {$(
        pub(crate) unsafe extern "C" fn $name(
            origin_addr: $ptr,
            origin_count: c_int,
            origin_datatype: c_int,
            target_rank: c_int,
            target_disp: Aint,
            target_count: c_int,
            target_datatype: c_int,
            win: c_int,
        ) -> c_int {
            issue(
                stringify!($name),
                win,
                $kind,
                origin(origin_addr as *const c_void, origin_count, origin_datatype),
                target(target_rank, target_disp, target_count, target_datatype),
                None,
            )
        }

                pub(crate) unsafe extern "C" fn $rname(
            origin_addr: $ptr,
            origin_count: c_int,
            origin_datatype: c_int,
            target_rank: c_int,
            target_disp: Aint,
            target_count: c_int,
            target_datatype: c_int,
            win: c_int,
            request: *mut c_int,
        ) -> c_int {
            issue(
                stringify!($rname),
                win,
                $kind,
                origin(origin_addr as *const c_void, origin_count, origin_datatype),
                target(target_rank, target_disp, target_count, target_datatype),
                Some(request),
            )
        }
    )*};
}

transfer_calls! {
    MPI_Put, MPI_Rput, OpKind::Put, *const c_void;
    MPI_Get, MPI_Rget, OpKind::Get, *mut c_void;
}

/// Issues an operation whose kind may be wrong (`kind`'s error goes to
/// the window's error handler like any other).
fn issue_checked(
    name: &'static str,
    win: c_int,
    kind: MpiResult<OpKind>,
    origin: Buffer,
    target: TargetSpec,
    request: Option<*mut c_int>,
) -> c_int {
    match kind {
        Ok(kind) => issue(name, win, kind, origin, target, request),
        Err(e) => on_win(name, win, || Err(e)),
    }
}

pub(crate) unsafe extern "C" fn MPI_Accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: c_int,
    target_rank: c_int,
    target_disp: Aint,
    target_count: c_int,
    target_datatype: c_int,
    op: c_int,
    win: c_int,
) -> c_int {
    issue_checked(
        "MPI_Accumulate",
        win,
        win::accumulate_op(op),
        origin(origin_addr, origin_count, origin_datatype),
        target(target_rank, target_disp, target_count, target_datatype),
        None,
    )
}

pub(crate) unsafe extern "C" fn MPI_Raccumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: c_int,
    target_rank: c_int,
    target_disp: Aint,
    target_count: c_int,
    target_datatype: c_int,
    op: c_int,
    win: c_int,
    request: *mut c_int,
) -> c_int {
    issue_checked(
        "MPI_Raccumulate",
        win,
        win::accumulate_op(op),
        origin(origin_addr, origin_count, origin_datatype),
        target(target_rank, target_disp, target_count, target_datatype),
        Some(request),
    )
}

pub(crate) unsafe extern "C" fn MPI_Get_accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: c_int,
    result_addr: *mut c_void,
    result_count: c_int,
    result_datatype: c_int,
    target_rank: c_int,
    target_disp: Aint,
    target_count: c_int,
    target_datatype: c_int,
    op: c_int,
    win: c_int,
) -> c_int {
    issue_checked(
        "MPI_Get_accumulate",
        win,
        win::get_accumulate_op(op, origin(result_addr, result_count, result_datatype)),
        origin(origin_addr, origin_count, origin_datatype),
        target(target_rank, target_disp, target_count, target_datatype),
        None,
    )
}

pub(crate) unsafe extern "C" fn MPI_Rget_accumulate(
    origin_addr: *const c_void,
    origin_count: c_int,
    origin_datatype: c_int,
    result_addr: *mut c_void,
    result_count: c_int,
    result_datatype: c_int,
    target_rank: c_int,
    target_disp: Aint,
    target_count: c_int,
    target_datatype: c_int,
    op: c_int,
    win: c_int,
    request: *mut c_int,
) -> c_int {
    issue_checked(
        "MPI_Rget_accumulate",
        win,
        win::get_accumulate_op(op, origin(result_addr, result_count, result_datatype)),
        origin(origin_addr, origin_count, origin_datatype),
        target(target_rank, target_disp, target_count, target_datatype),
        Some(request),
    )
}

pub(crate) unsafe extern "C" fn MPI_Fetch_and_op(
    origin_addr: *const c_void,
    result_addr: *mut c_void,
    datatype: c_int,
    target_rank: c_int,
    target_disp: Aint,
    op: c_int,
    win: c_int,
) -> c_int {
    issue_checked(
        "MPI_Fetch_and_op",
        win,
        win::get_accumulate_op(op, origin(result_addr, 1, datatype)),
        origin(origin_addr, 1, datatype),
        target(target_rank, target_disp, 1, datatype),
        None,
    )
}

pub(crate) unsafe extern "C" fn MPI_Compare_and_swap(
    origin_addr: *const c_void,
    compare_addr: *const c_void,
    result_addr: *mut c_void,
    datatype: c_int,
    target_rank: c_int,
    target_disp: Aint,
    win: c_int,
) -> c_int {
    issue(
        "MPI_Compare_and_swap",
        win,
        OpKind::CompareAndSwap {
            compare: compare_addr as usize,
            result: result_addr as usize,
        },
        origin(origin_addr, 1, datatype),
        target(target_rank, target_disp, 1, datatype),
        None,
    )
}

/// MPI_Alloc_mem: memory from the C allocator (MPI_Free_mem frees it).
pub(crate) unsafe extern "C" fn MPI_Alloc_mem(
    size: Aint,
    _info: c_int,
    baseptr: *mut c_void,
) -> c_int {
    call("MPI_Alloc_mem", mpi::COMM_WORLD, || {
        let n = usize::try_from(size)
            .map_err(|_| MpiError::new(class::SIZE, format!("invalid size {size}")))?;
        // SAFETY: plain C allocation; a zero size still gets a unique
        // pointer so that MPI_Free_mem can free it.
        let p = unsafe { libc::malloc(n.max(1)) };
        if p.is_null() {
            return Err(MpiError::new(
                class::NO_MEM,
                format!("MPI_Alloc_mem: cannot allocate {n} bytes"),
            ));
        }
        // SAFETY: baseptr is the address of the caller's pointer variable.
        unsafe { out(baseptr as *mut usize, p as usize, "baseptr") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Free_mem(base: *mut c_void) -> c_int {
    call("MPI_Free_mem", mpi::COMM_WORLD, || {
        // SAFETY: MPI requires `base` to come from MPI_Alloc_mem (malloc).
        unsafe { libc::free(base) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_create_keyval(
    copy_fn: usize,
    delete_fn: usize,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    attr::create_keyval(
        "MPI_Win_create_keyval",
        copy_fn,
        delete_fn,
        keyval,
        extra_state,
    )
}

pub(crate) unsafe extern "C" fn MPI_Win_free_keyval(keyval: *mut c_int) -> c_int {
    attr::free_keyval("MPI_Win_free_keyval", keyval)
}

pub(crate) unsafe extern "C" fn MPI_Win_set_attr(
    win: c_int,
    keyval: c_int,
    value: *mut c_void,
) -> c_int {
    attr::set_attr("MPI_Win_set_attr", Kind::Win, win, keyval, value)
}

pub(crate) unsafe extern "C" fn MPI_Win_get_attr(
    win: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    attr::get_attr(
        "MPI_Win_get_attr",
        Kind::Win,
        win,
        keyval,
        attribute_val,
        flag,
    )
}

pub(crate) unsafe extern "C" fn MPI_Win_delete_attr(win: c_int, keyval: c_int) -> c_int {
    attr::delete_attr("MPI_Win_delete_attr", Kind::Win, win, keyval)
}

pub(crate) unsafe extern "C" fn MPI_Win_create_errhandler(
    function: usize,
    errhandler: *mut c_int,
) -> c_int {
    super::env::create_errhandler("MPI_Win_create_errhandler", function, errhandler)
}

pub(crate) unsafe extern "C" fn MPI_Win_set_errhandler(win: c_int, errhandler: c_int) -> c_int {
    on_win("MPI_Win_set_errhandler", win, || {
        sim::mpi(|w| {
            w.check_errhandler(errhandler)?;
            w.win_member_mut(win).map(|m| m.errhandler = errhandler)
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_get_errhandler(
    win: c_int,
    errhandler: *mut c_int,
) -> c_int {
    on_win("MPI_Win_get_errhandler", win, || {
        let eh = sim::mpi(|w| w.win_member(win).map(|m| m.errhandler))?;
        // SAFETY: the caller's output argument.
        unsafe { out(errhandler, eh, "errhandler") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Win_call_errhandler(win: c_int, errorcode: c_int) -> c_int {
    let handler = sim::mpi(|w| w.win_member(win).map(|m| m.errhandler));
    super::env::call_errhandler(
        "MPI_Win_call_errhandler",
        handler,
        win,
        ErrScope::Win(win),
        errorcode,
    )
}

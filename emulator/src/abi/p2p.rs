//! Point-to-point calls: sends, receives, probes, requests, completion.
//! Each binds its C arguments to the MPI layer's calls (`mpi::p2p`,
//! `mpi::request`); the families of sends and receives that differ only in
//! their mode or count type are generated from the tables below.

use std::ffi::{c_int, c_void};

use super::check::{
    non_null, out, read_array, request_at, write_status, write_status_at, CStatus, REQUEST_NULL,
};
use super::{call, call_traced};
use crate::mpi::datatype::{element_unit, elements_in};
use crate::mpi::poll::{self, Poll};
use crate::mpi::{
    self, class, is_complete, p2p, request, wait_for, Grequest, Message, MpiError, MpiResult,
    ReqId, ReqKind, SendMode, Status,
};
use crate::sim;
use crate::trace;

/// The program's handle of request `id`.
fn handle(id: ReqId) -> c_int {
    id as c_int + 1
}

/// A point-to-point operation's arguments.
fn message(
    buf: usize,
    count: i64,
    datatype: c_int,
    peer: c_int,
    tag: c_int,
    comm: c_int,
) -> Message {
    Message {
        buf,
        count,
        datatype,
        peer,
        tag,
        comm,
    }
}

/// Blocking sends: (name, count type) => mode.
macro_rules! blocking_sends {
    ($($name:ident($count:ty) => $mode:ident, $action:literal;)*) => {$(
        pub(crate) unsafe extern "C" fn $name(
            buf: *const c_void,
            count: $count,
            datatype: c_int,
            dest: c_int,
            tag: c_int,
            comm: c_int,
        ) -> c_int {
            let m = message(buf as usize, i64::from(count), datatype, dest, tag, comm);
            call_traced(
                stringify!($name),
                comm,
                |w| Some(trace::send(w, $action, &m)),
                || p2p::send(&m, SendMode::$mode, stringify!($name)),
            )
        }
    )*};
}

// SimGrid's action names (MPI_Rsend is written as a send).
blocking_sends! {
    MPI_Send(c_int) => Standard, "send";
    MPI_Ssend(c_int) => Synchronous, "Ssend";
    MPI_Bsend(c_int) => Buffered, "bsend";
    MPI_Rsend(c_int) => Ready, "send";
    MPI_Send_c(i64) => Standard, "send";
}

/// How a call that makes a request is traced, if SimGrid traces it.
type DescribeRequest = Option<fn(&mpi::Ctx<'_>, &Message) -> trace::Traced>;

/// Calls that make a request: (name, buffer type, count type) => how the
/// MPI layer makes it from the message, and how SimGrid traces the call.
macro_rules! request_calls {
    ($($name:ident($buf:ty, $count:ty) => $make:expr, $describe:expr;)*) => {$(
        pub(crate) unsafe extern "C" fn $name(
            buf: $buf,
            count: $count,
            datatype: c_int,
            peer: c_int,
            tag: c_int,
            comm: c_int,
            request: *mut c_int,
        ) -> c_int {
            let m = message(buf as usize, i64::from(count), datatype, peer, tag, comm);
            let describe: DescribeRequest = $describe;
            let describe = |w: &mpi::Ctx<'_>| describe.map(|d| d(w, &m));
            call_traced(stringify!($name), comm, describe, || {
                non_null(request, "request")?;
                let make: fn(&Message) -> MpiResult<ReqId> = $make;
                let id = make(&m)?;
                // SAFETY: checked non-null; MPI makes it writable.
                unsafe { *request = handle(id) };
                Ok(())
            })
        }
    )*};
}

request_calls! {
    MPI_Isend(*const c_void, c_int) =>
        |m| p2p::isend(m, SendMode::Standard), Some(|w, m| trace::send(w, "isend", m));
    MPI_Issend(*const c_void, c_int) =>
        |m| p2p::isend(m, SendMode::Synchronous), Some(|w, m| trace::send(w, "ISsend", m));
    MPI_Ibsend(*const c_void, c_int) =>
        |m| p2p::isend(m, SendMode::Buffered), Some(|w, m| trace::send(w, "ibsend", m));
    MPI_Irsend(*const c_void, c_int) =>
        |m| p2p::isend(m, SendMode::Ready), Some(|w, m| trace::send(w, "isend", m));
    MPI_Isend_c(*const c_void, i64) =>
        |m| p2p::isend(m, SendMode::Standard), Some(|w, m| trace::send(w, "isend", m));
    MPI_Irecv(*mut c_void, c_int) => p2p::irecv, Some(|w, m| trace::p2p(w, "irecv", m));
    MPI_Irecv_c(*mut c_void, i64) => p2p::irecv, Some(|w, m| trace::p2p(w, "irecv", m));
    MPI_Send_init(*const c_void, c_int) =>
        |m| p2p::persistent(ReqKind::Send(SendMode::Standard), m), None;
    MPI_Ssend_init(*const c_void, c_int) =>
        |m| p2p::persistent(ReqKind::Send(SendMode::Synchronous), m), None;
    MPI_Bsend_init(*const c_void, c_int) =>
        |m| p2p::persistent(ReqKind::Send(SendMode::Buffered), m), None;
    MPI_Rsend_init(*const c_void, c_int) =>
        |m| p2p::persistent(ReqKind::Send(SendMode::Ready), m), None;
    MPI_Recv_init(*mut c_void, c_int) => |m| p2p::persistent(ReqKind::Recv, m), None;
}

/// Blocking receives: (name, count type).
macro_rules! blocking_receives {
    ($($name:ident($count:ty);)*) => {$(
        pub(crate) unsafe extern "C" fn $name(
            buf: *mut c_void,
            count: $count,
            datatype: c_int,
            source: c_int,
            tag: c_int,
            comm: c_int,
            status: *mut CStatus,
        ) -> c_int {
            let m = message(buf as usize, i64::from(count), datatype, source, tag, comm);
            // SimGrid returns from a receive from MPI_PROC_NULL before it
            // traces it.
            let describe =
                |w: &mpi::Ctx<'_>| (m.peer != mpi::PROC_NULL).then(|| trace::p2p(w, "recv", &m));
            call_traced(stringify!($name), comm, describe, || {
                let st = p2p::recv(&m, stringify!($name))?;
                // SAFETY: the caller's status argument.
                unsafe { write_status(status, &st, false) };
                st.outcome()
            })
        }
    )*};
}

blocking_receives! {
    MPI_Recv(c_int);
    MPI_Recv_c(i64);
}

pub(crate) unsafe extern "C" fn MPI_Sendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    source: c_int,
    recvtag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    let send = message(
        sendbuf as usize,
        sendcount.into(),
        sendtype,
        dest,
        sendtag,
        comm,
    );
    let recv = message(
        recvbuf as usize,
        recvcount.into(),
        recvtype,
        source,
        recvtag,
        comm,
    );
    let describe = |w: &mpi::Ctx<'_>| {
        // SimGrid traces no send-receive with MPI_PROC_NULL.
        if source == mpi::PROC_NULL || dest == mpi::PROC_NULL {
            return None;
        }
        Some(trace::Traced {
            sent: trace::sent(w, &send),
            bytes: trace::bytes(w, sendtype, send.count)
                .saturating_add(trace::bytes(w, recvtype, recv.count)),
            ..trace::Traced::new(
                "sendRecv",
                trace::Args::SendRecv {
                    send_count: send.count,
                    dst: trace::world_peer(w, comm, dest),
                    recv_count: recv.count,
                    src: trace::world_peer(w, comm, source),
                    send_type: trace::simgrid_type(sendtype),
                    recv_type: trace::simgrid_type(recvtype),
                },
            )
        })
    };
    call_traced("MPI_Sendrecv", comm, describe, || {
        let st = p2p::sendrecv(&send, &recv)?;
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        st.outcome()
    })
}

pub(crate) unsafe extern "C" fn MPI_Sendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    let m = message(buf as usize, count.into(), datatype, source, recvtag, comm);
    // SimGrid's MPI_Sendrecv_replace is an MPI_Sendrecv, traced as one.
    let describe = |w: &mpi::Ctx<'_>| {
        if source == mpi::PROC_NULL || dest == mpi::PROC_NULL {
            return None;
        }
        let send = message(buf as usize, count.into(), datatype, dest, sendtag, comm);
        Some(trace::Traced {
            sent: trace::sent(w, &send),
            ..trace::Traced::new(
                "sendRecv",
                trace::Args::SendRecv {
                    send_count: m.count,
                    dst: trace::world_peer(w, comm, dest),
                    recv_count: m.count,
                    src: trace::world_peer(w, comm, source),
                    send_type: trace::simgrid_type(datatype),
                    recv_type: trace::simgrid_type(datatype),
                },
            )
        })
    };
    call_traced("MPI_Sendrecv_replace", comm, describe, || {
        let st = p2p::sendrecv_replace(&m, dest, sendtag)?;
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        st.outcome()
    })
}

pub(crate) unsafe extern "C" fn MPI_Isendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: c_int,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: c_int,
    source: c_int,
    recvtag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    let send = message(
        sendbuf as usize,
        sendcount.into(),
        sendtype,
        dest,
        sendtag,
        comm,
    );
    let recv = message(
        recvbuf as usize,
        recvcount.into(),
        recvtype,
        source,
        recvtag,
        comm,
    );
    call("MPI_Isendrecv", comm, || {
        non_null(request, "request")?;
        let id = p2p::isendrecv(&send, &recv, None)?;
        // SAFETY: checked non-null; MPI makes it writable.
        unsafe { *request = handle(id) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Isendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    let m = message(buf as usize, count.into(), datatype, source, recvtag, comm);
    call("MPI_Isendrecv_replace", comm, || {
        non_null(request, "request")?;
        let id = p2p::isendrecv_replace(&m, dest, sendtag)?;
        // SAFETY: checked non-null; MPI makes it writable.
        unsafe { *request = handle(id) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Buffer_attach(buffer: *mut c_void, size: c_int) -> c_int {
    call("MPI_Buffer_attach", mpi::COMM_WORLD, || {
        let size = usize::try_from(size)
            .map_err(|_| MpiError::new(class::ARG, format!("invalid buffer size {size}")))?;
        p2p::buffer_attach(buffer as usize, size)
    })
}

pub(crate) unsafe extern "C" fn MPI_Buffer_detach(
    buffer_addr: *mut c_void,
    size: *mut c_int,
) -> c_int {
    call("MPI_Buffer_detach", mpi::COMM_WORLD, || {
        let (addr, len) = p2p::buffer_detach();
        if !buffer_addr.is_null() {
            // SAFETY: MPI passes the address of a pointer variable.
            unsafe { *(buffer_addr as *mut usize) = addr };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(size, len as c_int, "size") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Probe(
    source: c_int,
    tag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Probe", comm, || {
        let st = p2p::probe(source, tag, comm)?;
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Iprobe(
    source: c_int,
    tag: c_int,
    comm: c_int,
    flag: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Iprobe", comm, || {
        let found = p2p::iprobe(source, tag, comm)?;
        if let Some(st) = &found {
            // SAFETY: the caller's status argument.
            unsafe { write_status(status, st, false) };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Improbe(
    source: c_int,
    tag: c_int,
    comm: c_int,
    flag: *mut c_int,
    message: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Improbe", comm, || {
        let found = p2p::improbe(source, tag, comm)?;
        if let Some((msg, st)) = found {
            // SAFETY: the caller's arguments.
            unsafe {
                out(message, msg, "message")?;
                write_status(status, &st, false);
            }
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Mprobe(
    source: c_int,
    tag: c_int,
    comm: c_int,
    message: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Mprobe", comm, || {
        let (msg, st) = p2p::mprobe(source, tag, comm)?;
        // SAFETY: the caller's arguments.
        unsafe {
            out(message, msg, "message")?;
            write_status(status, &st, false);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Mrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    message: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Mrecv", mpi::COMM_WORLD, || {
        non_null(message, "message")?;
        // SAFETY: non-null in/out argument.
        let msg = unsafe { *message };
        let st = p2p::mrecv(buf as usize, count.into(), datatype, msg)?;
        // SAFETY: as above, and the caller's status argument.
        unsafe {
            *message = 0;
            write_status(status, &st, false);
        }
        st.outcome()
    })
}

pub(crate) unsafe extern "C" fn MPI_Imrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    message: *mut c_int,
    request: *mut c_int,
) -> c_int {
    call("MPI_Imrecv", mpi::COMM_WORLD, || {
        if message.is_null() || request.is_null() {
            return Err(MpiError::new(
                class::ARG,
                "message or request is a null pointer",
            ));
        }
        // SAFETY: non-null in/out arguments.
        let msg = unsafe { *message };
        let id = p2p::imrecv(buf as usize, count.into(), datatype, msg)?;
        // SAFETY: as above.
        unsafe {
            *message = 0;
            *request = handle(id);
        }
        Ok(())
    })
}

/// The request behind `*request`, or None for MPI_REQUEST_NULL and
/// inactive persistent requests.
///
/// # Safety
/// `request` points to a readable MPI_Request.
unsafe fn active_request(request: *const c_int) -> MpiResult<Option<ReqId>> {
    // SAFETY: per the contract.
    let h = unsafe { request_at(request) }?;
    if h == REQUEST_NULL {
        return Ok(None);
    }
    request::active(h)
}

/// Takes the result of completed request `id` (see
/// [`request::take_completed`]) and nulls the program's handle when the
/// request is gone.
///
/// # Safety
/// `request` points to the program's writable MPI_Request.
unsafe fn take_completed(id: ReqId, request: *mut c_int) -> Status {
    let taken = request::take_completed(id);
    if taken.released {
        // SAFETY: per the contract.
        unsafe { *request = REQUEST_NULL };
    }
    taken.status
}

/// What SimGrid traces of a wait or test on `request`.
///
/// # Safety
/// `request` is the program's MPI_Request argument (null is allowed).
unsafe fn wait_traced(
    w: &mpi::Ctx<'_>,
    action: &'static str,
    request: *const c_int,
) -> Option<trace::Traced> {
    // SAFETY: per the contract.
    let handle = unsafe { request_at(request) }.ok()?;
    trace::wait(w, action, handle)
}

pub(crate) unsafe extern "C" fn MPI_Wait(request: *mut c_int, status: *mut CStatus) -> c_int {
    // SAFETY: the caller's request argument.
    let describe = |w: &mpi::Ctx<'_>| unsafe { wait_traced(w, "wait", request) };
    call_traced("MPI_Wait", mpi::COMM_WORLD, describe, || {
        // SAFETY: the caller's request argument.
        let Some(id) = (unsafe { active_request(request) })? else {
            // SAFETY: the caller's status argument.
            unsafe { write_status(status, &Status::empty(), true) };
            return Ok(());
        };
        request::wait_turns(&[id], "MPI_Wait");
        wait_for(&[id], "MPI_Wait", |w| is_complete(w, id));
        // SAFETY: the caller's request argument.
        let st = unsafe { take_completed(id, request) };
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        st.outcome()
    })
}

pub(crate) unsafe extern "C" fn MPI_Test(
    request: *mut c_int,
    flag: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    // SAFETY: the caller's request argument.
    let describe = |w: &mpi::Ctx<'_>| unsafe { wait_traced(w, "test", request) };
    call_traced("MPI_Test", mpi::COMM_WORLD, describe, || {
        // SAFETY: the caller's request argument.
        let Some(id) = (unsafe { active_request(request) })? else {
            // SAFETY: the caller's status argument.
            unsafe { write_status(status, &Status::empty(), true) };
            // SAFETY: the caller's output argument.
            return unsafe { out(flag, 1, "flag") };
        };
        if poll::test(id, "MPI_Test") {
            // SAFETY: the caller's request argument.
            let st = unsafe { take_completed(id, request) };
            // SAFETY: the caller's status and output arguments.
            unsafe {
                write_status(status, &st, false);
                out(flag, 1, "flag")?;
            }
            st.outcome()
        } else {
            // SAFETY: the caller's output argument.
            unsafe { out(flag, 0, "flag") }
        }
    })
}

/// Collects the active requests of an array: (index, id).
///
/// # Safety
/// `requests` points to `count` readable MPI_Requests.
unsafe fn active_requests(count: c_int, requests: *const c_int) -> MpiResult<Vec<(usize, ReqId)>> {
    let n = mpi::check::count(count.into())?;
    if n > 0 && requests.is_null() {
        return Err(MpiError::new(
            class::ARG,
            "array_of_requests is a null pointer",
        ));
    }
    let mut v = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: i < count elements are readable per the contract.
        if let Some(id) = unsafe { active_request(requests.add(i)) }? {
            v.push((i, id));
        }
    }
    Ok(v)
}

/// Writes an empty status for every inactive entry of an array call.
///
/// # Safety
/// `statuses` as for the array calls, with room for `count` entries.
unsafe fn empty_statuses_of_inactive(
    count: c_int,
    active: &[(usize, ReqId)],
    statuses: *mut CStatus,
) {
    for i in 0..count.max(0) as usize {
        if !active.iter().any(|&(j, _)| j == i) {
            // SAFETY: i < count.
            unsafe { write_status_at(statuses, i, &Status::empty()) };
        }
    }
}

/// Completes every request of `active` (which are complete) and writes
/// their statuses; fails with MPI_ERR_IN_STATUS when one had an error.
///
/// # Safety
/// `requests`/`statuses` as for the array calls.
unsafe fn finish_all(
    active: &[(usize, ReqId)],
    requests: *mut c_int,
    statuses: *mut CStatus,
) -> MpiResult<()> {
    let mut any_error = false;
    for &(i, id) in active {
        // SAFETY: index i is within the user's arrays.
        let st = unsafe { take_completed(id, requests.add(i)) };
        any_error |= st.error != 0;
        // SAFETY: as above.
        unsafe { write_status_at(statuses, i, &st) };
    }
    in_status(any_error)
}

/// The error of an array call one of whose requests failed.
fn in_status(any_error: bool) -> MpiResult<()> {
    if any_error {
        return Err(MpiError::new(
            class::IN_STATUS,
            "a request failed; see the statuses",
        ));
    }
    Ok(())
}

pub(crate) unsafe extern "C" fn MPI_Waitall(
    count: c_int,
    requests: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    let describe = |_: &mpi::Ctx<'_>| {
        Some(trace::Traced::new(
            "waitall",
            trace::Args::Amount(f64::from(count)),
        ))
    };
    call_traced("MPI_Waitall", mpi::COMM_WORLD, describe, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(count, requests) }?;
        // SAFETY: as above.
        unsafe { empty_statuses_of_inactive(count, &active, statuses) };
        let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
        request::wait_turns(&ids, "MPI_Waitall");
        wait_for(&ids, "MPI_Waitall", |w| {
            ids.iter().all(|&id| is_complete(w, id))
        });
        // SAFETY: the caller's arrays.
        unsafe { finish_all(&active, requests, statuses) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Testall(
    count: c_int,
    requests: *mut c_int,
    flag: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    // Traced as SimGrid traces it: the name alone (its TI traces write
    // `<rank> testall`, which no replay performs).
    call_traced(
        "MPI_Testall",
        mpi::COMM_WORLD,
        |_| trace::plain("testall"),
        || {
            // SAFETY: the caller's array arguments.
            let active = unsafe { active_requests(count, requests) }?;
            let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
            let all = poll::test_each(&ids, "MPI_Testall")
                .into_iter()
                .all(|seen| seen);
            if !all {
                // SAFETY: the caller's output argument.
                return unsafe { out(flag, 0, "flag") };
            }
            // SAFETY: the caller's arrays and output argument.
            unsafe {
                empty_statuses_of_inactive(count, &active, statuses);
                let done = finish_all(&active, requests, statuses);
                out(flag, 1, "flag")?;
                done
            }
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Waitany(
    count: c_int,
    requests: *mut c_int,
    index: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    let describe = |_: &mpi::Ctx<'_>| {
        Some(trace::Traced::new(
            "waitAny",
            trace::Args::Amount(f64::from(count)),
        ))
    };
    call_traced("MPI_Waitany", mpi::COMM_WORLD, describe, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(count, requests) }?;
        if active.is_empty() {
            // SAFETY: the caller's status argument.
            unsafe { write_status(status, &Status::empty(), true) };
            // SAFETY: the caller's output argument.
            return unsafe { out(index, mpi::UNDEFINED, "index") };
        }
        let (i, id) = request::wait_any(&active, "MPI_Waitany");
        // SAFETY: index i within the user's array.
        let st = unsafe { take_completed(id, requests.add(i)) };
        // SAFETY: the caller's status and output arguments.
        unsafe {
            write_status(status, &st, false);
            out(index, i as c_int, "index")?;
        }
        st.outcome()
    })
}

pub(crate) unsafe extern "C" fn MPI_Testany(
    count: c_int,
    requests: *mut c_int,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    // Traced as SimGrid traces it: the name alone (its TI traces write
    // `<rank> testany`, which no replay performs).
    call_traced(
        "MPI_Testany",
        mpi::COMM_WORLD,
        |_| trace::plain("testany"),
        || {
            // SAFETY: the caller's array arguments.
            let active = unsafe { active_requests(count, requests) }?;
            if active.is_empty() {
                // SAFETY: the caller's arguments.
                unsafe {
                    write_status(status, &Status::empty(), true);
                    out(index, mpi::UNDEFINED, "index")?;
                    return out(flag, 1, "flag");
                }
            }
            poll::charge_then_look(Poll::Testany, "MPI_Testany");
            let found = sim::mpi(|w| active.iter().find(|&&(_, id)| is_complete(w, id)).copied());
            poll::looked(Poll::Testany, found.is_some());
            match found {
                Some((i, id)) => {
                    // SAFETY: index i within the user's array.
                    let st = unsafe { take_completed(id, requests.add(i)) };
                    // SAFETY: the caller's status and output arguments.
                    unsafe {
                        write_status(status, &st, false);
                        out(index, i as c_int, "index")?;
                        out(flag, 1, "flag")?;
                    }
                    st.outcome()
                }
                None => {
                    // SAFETY: the caller's outputs.
                    unsafe {
                        out(index, mpi::UNDEFINED, "index")?;
                        out(flag, 0, "flag")
                    }
                }
            }
        },
    )
}

/// Shared by Waitsome and Testsome: completes the finished requests
/// `done` (index, request).
///
/// # Safety
/// The caller's array arguments.
unsafe fn some_done(
    done: &[(usize, ReqId)],
    requests: *mut c_int,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut CStatus,
) -> MpiResult<()> {
    let mut err = false;
    for (k, &(i, id)) in done.iter().enumerate() {
        // SAFETY: index i within the user's array.
        let st = unsafe { take_completed(id, requests.add(i)) };
        err |= st.error != 0;
        if !indices.is_null() {
            // SAFETY: MPI gives room for incount indices.
            unsafe { *indices.add(k) = i as c_int };
        }
        // SAFETY: statuses has room for incount entries.
        unsafe { write_status_at(statuses, k, &st) };
    }
    // SAFETY: the caller's output argument.
    unsafe { out(outcount, done.len() as c_int, "outcount")? };
    in_status(err)
}

pub(crate) unsafe extern "C" fn MPI_Waitsome(
    incount: c_int,
    requests: *mut c_int,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    call("MPI_Waitsome", mpi::COMM_WORLD, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(incount, requests) }?;
        if active.is_empty() {
            // SAFETY: the caller's output argument.
            return unsafe { out(outcount, mpi::UNDEFINED, "outcount") };
        }
        // As SimGrid: a waitany, then a test (charged as MPI_Test) of
        // each other active request, in order.
        let first = request::wait_any(&active, "MPI_Waitsome");
        let mut done = vec![first];
        for &(i, id) in &active {
            if (i, id) != first && poll::test(id, "MPI_Waitsome") {
                done.push((i, id));
            }
        }
        // SAFETY: the caller's arrays.
        unsafe { some_done(&done, requests, outcount, indices, statuses) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Testsome(
    incount: c_int,
    requests: *mut c_int,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    // Traced as SimGrid traces it: the name alone (its TI traces write
    // `<rank> testsome`, which no replay performs).
    call_traced(
        "MPI_Testsome",
        mpi::COMM_WORLD,
        |_| trace::plain("testsome"),
        || {
            // SAFETY: the caller's array arguments.
            let active = unsafe { active_requests(incount, requests) }?;
            if active.is_empty() {
                // SAFETY: the caller's output argument.
                return unsafe { out(outcount, mpi::UNDEFINED, "outcount") };
            }
            let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
            let seen = poll::test_each(&ids, "MPI_Testsome");
            let done: Vec<(usize, ReqId)> = active
                .iter()
                .zip(seen)
                .filter_map(|(&a, seen)| seen.then_some(a))
                .collect();
            // SAFETY: the caller's arrays.
            unsafe { some_done(&done, requests, outcount, indices, statuses) }
        },
    )
}

pub(crate) unsafe extern "C" fn MPI_Request_free(request: *mut c_int) -> c_int {
    call("MPI_Request_free", mpi::COMM_WORLD, || {
        // SAFETY: the caller's in/out argument.
        request::free(unsafe { request_at(request) }?)?;
        // SAFETY: checked non-null above.
        unsafe { *request = REQUEST_NULL };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Request_get_status(
    request: c_int,
    flag: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Request_get_status", mpi::COMM_WORLD, || {
        let state = request::peek(request)?;
        let is_null = state.is_none();
        let (done, st) = state.unwrap_or((true, Status::empty()));
        if done {
            // SAFETY: the caller's status argument.
            unsafe { write_status(status, &st, is_null) };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(done), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Cancel(request: *mut c_int) -> c_int {
    call("MPI_Cancel", mpi::COMM_WORLD, || {
        // SAFETY: the caller's in/out argument.
        request::cancel(unsafe { request_at(request) }?)
    })
}

pub(crate) unsafe extern "C" fn MPI_Test_cancelled(
    status: *const CStatus,
    flag: *mut c_int,
) -> c_int {
    if status.is_null() || flag.is_null() {
        return class::ARG;
    }
    // SAFETY: non-null arguments per the MPI contract.
    unsafe { *flag = (*status).count_hi_and_cancelled & 1 };
    0
}

pub(crate) unsafe extern "C" fn MPI_Start(request: *mut c_int) -> c_int {
    call("MPI_Start", mpi::COMM_WORLD, || {
        // SAFETY: the caller's in/out argument.
        request::start_persistent(unsafe { request_at(request) }?, "MPI_Start")
    })
}

pub(crate) unsafe extern "C" fn MPI_Startall(count: c_int, requests: *mut c_int) -> c_int {
    call("MPI_Startall", mpi::COMM_WORLD, || {
        let n = mpi::check::count(count.into())?;
        // SAFETY: MPI requires `count` readable requests.
        for h in unsafe { read_array(requests, n, "array_of_requests") }? {
            request::start_persistent(h, "MPI_Startall")?;
        }
        Ok(())
    })
}

/// The count of `datatype` elements (or of basic elements) in a status.
fn status_elements(status: *const CStatus, datatype: c_int, basic: bool) -> MpiResult<i64> {
    non_null(status, "status")?;
    // SAFETY: non-null status from the caller.
    let bytes = unsafe { &*status }.bytes();
    let ty = sim::mpi(|w| w.mpi.datatype(datatype).map(std::rc::Rc::clone))?;
    Ok(elements_in(&ty, bytes, basic).map_or(i64::from(mpi::UNDEFINED), |n| n as i64))
}

/// Elements counts: (name, output type, basic elements?).
macro_rules! element_counts {
    ($($name:ident($out:ty, $basic:expr);)*) => {$(
        pub(crate) unsafe extern "C" fn $name(
            status: *const CStatus,
            datatype: c_int,
            count: *mut $out,
        ) -> c_int {
            call(stringify!($name), mpi::COMM_WORLD, || {
                let n = status_elements(status, datatype, $basic)?;
                let n = <$out>::try_from(n).unwrap_or(mpi::UNDEFINED.into());
                // SAFETY: the caller's output argument.
                unsafe { out(count, n, "count") }
            })
        }
    )*};
}

element_counts! {
    MPI_Get_count(c_int, false);
    MPI_Get_count_c(i64, false);
    MPI_Get_elements(c_int, true);
    MPI_Get_elements_x(i64, true);
}

/// Sets the byte count of a status to `count` elements of `datatype`.
fn set_elements(status: *mut CStatus, datatype: c_int, count: i64) -> MpiResult<()> {
    non_null(status, "status")?;
    let unit = sim::mpi(|w| w.mpi.datatype(datatype).map(|t| element_unit(t)))?;
    let bytes = u64::try_from(count)
        .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))?
        * unit as u64;
    // SAFETY: non-null status from the caller.
    unsafe { &mut *status }.set_bytes(bytes);
    Ok(())
}

pub(crate) unsafe extern "C" fn MPI_Status_set_elements(
    status: *mut CStatus,
    datatype: c_int,
    count: c_int,
) -> c_int {
    call("MPI_Status_set_elements", mpi::COMM_WORLD, || {
        set_elements(status, datatype, i64::from(count))
    })
}

pub(crate) unsafe extern "C" fn MPI_Status_set_elements_x(
    status: *mut CStatus,
    datatype: c_int,
    count: i64,
) -> c_int {
    call("MPI_Status_set_elements_x", mpi::COMM_WORLD, || {
        set_elements(status, datatype, count)
    })
}

pub(crate) unsafe extern "C" fn MPI_Status_set_cancelled(
    status: *mut CStatus,
    flag: c_int,
) -> c_int {
    if status.is_null() {
        return class::ARG;
    }
    // SAFETY: non-null status from the caller.
    let s = unsafe { &mut *status };
    s.count_hi_and_cancelled = (s.count_hi_and_cancelled & !1) | c_int::from(flag != 0);
    0
}

pub(crate) unsafe extern "C" fn MPI_Grequest_start(
    query: Option<mpi::GreqQueryFn>,
    free: Option<mpi::GreqFreeFn>,
    cancel: Option<mpi::GreqCancelFn>,
    extra_state: *mut c_void,
    request: *mut c_int,
) -> c_int {
    call("MPI_Grequest_start", mpi::COMM_WORLD, || {
        non_null(request, "request")?;
        let id = request::grequest_start(Grequest {
            query,
            free,
            cancel,
            extra_state: extra_state as usize,
        })?;
        // SAFETY: checked non-null; MPI makes it writable.
        unsafe { *request = handle(id) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Grequest_complete(request: c_int) -> c_int {
    call("MPI_Grequest_complete", mpi::COMM_WORLD, || {
        request::grequest_complete(request)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_keeps_large_counts_and_its_cancelled_flag() {
        let mut s = CStatus::default();
        let st = Status {
            source: 3,
            tag: 9,
            error: 0,
            bytes: (5usize << 32) + 7,
            cancelled: true,
        };
        s.fill(&st, true);
        assert_eq!(s.status(), st);
        s.set_bytes(12);
        assert_eq!(s.bytes(), 12);
        assert_eq!(s.count_hi_and_cancelled & 1, 1);
    }
}

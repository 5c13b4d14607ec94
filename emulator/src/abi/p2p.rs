//! Point-to-point calls: sends, receives, probes, requests, completion.

use std::ffi::{c_int, c_void};
use std::rc::Rc;

use super::{call, out, status_bytes, write_status, CStatus};
use crate::engine::Detail;
use crate::mpi::{
    self, class, is_complete, wait_for, MpiError, MpiResult, ReqId, ReqKind, SendMode, Status,
};
use crate::sim;

const REQUEST_NULL: c_int = 0;

fn send_kind(mode: SendMode) -> ReqKind {
    ReqKind::Send(mode)
}

/// Creates and starts a request; returns its handle.
#[allow(clippy::too_many_arguments)]
fn post(
    kind: ReqKind,
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    peer: c_int,
    tag: c_int,
    comm: c_int,
    persistent: bool,
) -> MpiResult<ReqId> {
    sim::mpi(|w| {
        let id = w.new_request(kind, buf, count, datatype, peer, tag, comm, persistent)?;
        if !persistent {
            if let Err(e) = w.start(id) {
                w.mpi.remove_request(id);
                return Err(e);
            }
        }
        Ok(id)
    })
}

/// Waits for `id`, frees it (unless persistent), returns its status.
fn finish_one(id: ReqId, call_name: &'static str) -> Status {
    wait_for(&[id], call_name, |w| is_complete(w, id));
    sim::mpi(|w| {
        w.owe_recv_overhead(id);
        let r = w.mpi.request(id);
        let st = r.status;
        if r.persistent {
            w.mpi.request_mut(id).active = false;
        } else {
            w.mpi.remove_request(id);
        }
        st
    })
}

fn status_error(st: &Status) -> MpiResult<()> {
    if st.error != 0 {
        Err(MpiError::new(
            st.error,
            format!(
                "message of more bytes than the receive buffer holds ({} bytes kept)",
                st.bytes
            ),
        ))
    } else {
        Ok(())
    }
}

/// Simulated cost of posting a send, slept before the message is posted:
/// smpi/ois for non-blocking sends, smpi/os for others, and only when the
/// sender gets control back before the transfer ends (detached sends,
/// non-blocking and synchronous ones), as in SimGrid.
fn send_overhead(count: i64, datatype: c_int, mode: SendMode, nonblocking: bool) {
    let cost = sim::mpi(|w| {
        let bytes = w.mpi.datatype(datatype).map(|t| t.size).unwrap_or(0) * count.max(0) as usize;
        let detached = match mode {
            SendMode::Buffered => true,
            SendMode::Standard | SendMode::Ready => bytes < w.mpi.protocol.detached_thresh,
            SendMode::Synchronous => false,
        };
        if nonblocking {
            w.mpi.protocol.isend_overhead.cost(bytes as f64)
        } else if detached || mode == SendMode::Synchronous {
            w.mpi.protocol.send_overhead.cost(bytes as f64)
        } else {
            0.0
        }
    });
    sim::sleep(cost, "send overhead");
}

#[allow(clippy::too_many_arguments)]
fn blocking_send(
    name: &'static str,
    mode: SendMode,
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    call(name, comm, || {
        send_overhead(count, datatype, mode, false);
        let id = post(
            send_kind(mode),
            buf,
            count,
            datatype,
            dest,
            tag,
            comm,
            false,
        )?;
        finish_one(id, name);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Send(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    blocking_send(
        "MPI_Send",
        SendMode::Standard,
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
    )
}

pub(crate) unsafe extern "C" fn MPI_Ssend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    blocking_send(
        "MPI_Ssend",
        SendMode::Synchronous,
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
    )
}

pub(crate) unsafe extern "C" fn MPI_Bsend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    blocking_send(
        "MPI_Bsend",
        SendMode::Buffered,
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
    )
}

pub(crate) unsafe extern "C" fn MPI_Rsend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    blocking_send(
        "MPI_Rsend",
        SendMode::Ready,
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
    )
}

#[allow(clippy::too_many_arguments)]
fn nonblocking(
    name: &'static str,
    kind: ReqKind,
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    peer: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
    persistent: bool,
) -> c_int {
    call(name, comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        if let (ReqKind::Send(mode), false) = (kind, persistent) {
            send_overhead(count, datatype, mode, true);
        }
        let id = post(kind, buf, count, datatype, peer, tag, comm, persistent)?;
        // SAFETY: non-null output argument.
        unsafe { *request = id as c_int + 1 };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Isend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Isend",
        send_kind(SendMode::Standard),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Issend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Issend",
        send_kind(SendMode::Synchronous),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Ibsend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Ibsend",
        send_kind(SendMode::Buffered),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Irsend(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Irsend",
        send_kind(SendMode::Ready),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Irecv(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Irecv",
        ReqKind::Recv,
        buf,
        i64::from(count),
        datatype,
        source,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Send_init(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Send_init",
        send_kind(SendMode::Standard),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        true,
    )
}

pub(crate) unsafe extern "C" fn MPI_Ssend_init(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Ssend_init",
        send_kind(SendMode::Synchronous),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        true,
    )
}

pub(crate) unsafe extern "C" fn MPI_Bsend_init(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Bsend_init",
        send_kind(SendMode::Buffered),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        true,
    )
}

pub(crate) unsafe extern "C" fn MPI_Rsend_init(
    buf: *const c_void,
    count: c_int,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Rsend_init",
        send_kind(SendMode::Ready),
        buf,
        i64::from(count),
        datatype,
        dest,
        tag,
        comm,
        request,
        true,
    )
}

pub(crate) unsafe extern "C" fn MPI_Recv_init(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Recv_init",
        ReqKind::Recv,
        buf,
        i64::from(count),
        datatype,
        source,
        tag,
        comm,
        request,
        true,
    )
}

/// A blocking receive (MPI_Recv and MPI_Recv_c).
#[allow(clippy::too_many_arguments)]
fn blocking_recv(
    name: &'static str,
    buf: *mut c_void,
    count: i64,
    datatype: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    call(name, comm, || {
        let id = post(
            ReqKind::Recv,
            buf,
            count,
            datatype,
            source,
            tag,
            comm,
            false,
        )?;
        let st = finish_one(id, name);
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        status_error(&st)
    })
}

pub(crate) unsafe extern "C" fn MPI_Recv(
    buf: *mut c_void,
    count: c_int,
    datatype: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    blocking_recv(
        "MPI_Recv",
        buf,
        i64::from(count),
        datatype,
        source,
        tag,
        comm,
        status,
    )
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
    call("MPI_Sendrecv", comm, || {
        let rid = post(
            ReqKind::Recv,
            recvbuf,
            i64::from(recvcount),
            recvtype,
            source,
            recvtag,
            comm,
            false,
        )?;
        let sid = match post(
            send_kind(SendMode::Standard),
            sendbuf,
            i64::from(sendcount),
            sendtype,
            dest,
            sendtag,
            comm,
            false,
        ) {
            Ok(s) => s,
            Err(e) => {
                sim::mpi(|w| {
                    w.cancel(rid);
                    w.mpi.remove_request(rid);
                });
                return Err(e);
            }
        };
        wait_for(&[sid, rid], "MPI_Sendrecv", |w| {
            is_complete(w, sid) && is_complete(w, rid)
        });
        let st = sim::mpi(|w| {
            let st = w.mpi.request(rid).status;
            w.mpi.remove_request(rid);
            w.mpi.remove_request(sid);
            st
        });
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        status_error(&st)
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
    call("MPI_Sendrecv_replace", comm, || {
        // Send from a packed copy so the receive can land in `buf`.
        let (packed, bytes) = sim::mpi(|w| -> MpiResult<(Vec<u8>, usize)> {
            let ty = w.mpi.datatype(datatype)?.clone();
            let n = usize::try_from(count)
                .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))?;
            let mut data = Vec::new();
            // SAFETY: `buf` holds `count` elements of `datatype` (MPI contract).
            unsafe { mpi::datatype::pack(&ty, buf, n, &mut data) };
            let len = data.len();
            Ok((data, len))
        })?;
        let sid = post(
            send_kind(SendMode::Standard),
            packed.as_ptr().cast(),
            bytes as i64,
            4, /* MPI_BYTE */
            dest,
            sendtag,
            comm,
            false,
        )?;
        let rid = post(
            ReqKind::Recv,
            buf,
            i64::from(count),
            datatype,
            source,
            recvtag,
            comm,
            false,
        )?;
        wait_for(&[sid, rid], "MPI_Sendrecv_replace", |w| {
            is_complete(w, sid) && is_complete(w, rid)
        });
        let st = sim::mpi(|w| {
            let st = w.mpi.request(rid).status;
            w.mpi.remove_request(rid);
            w.mpi.remove_request(sid);
            st
        });
        drop(packed);
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        status_error(&st)
    })
}

pub(crate) unsafe extern "C" fn MPI_Buffer_attach(buffer: *mut c_void, size: c_int) -> c_int {
    call("MPI_Buffer_attach", mpi::COMM_WORLD, || {
        let size = usize::try_from(size)
            .map_err(|_| MpiError::new(class::ARG, format!("invalid buffer size {size}")))?;
        sim::mpi(|w| {
            let me = w.core.current();
            let st = &mut w.mpi.ranks[me];
            if st.bsend.is_some() {
                return Err(MpiError::new(
                    class::BUFFER,
                    "a buffer is already attached (detach it first)",
                ));
            }
            st.bsend = Some((buffer as usize, size, 0));
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Buffer_detach(
    buffer_addr: *mut c_void,
    size: *mut c_int,
) -> c_int {
    call("MPI_Buffer_detach", mpi::COMM_WORLD, || {
        // Detaching waits until every buffered message has been delivered.
        loop {
            let busy = sim::mpi(|w| {
                let me = w.core.current();
                let busy = w.mpi.ranks[me].bsend.is_some_and(|(_, _, used)| used > 0);
                if busy {
                    w.core.block_current(
                        "MPI_Buffer_detach",
                        Detail::Text("buffered messages not delivered yet"),
                    );
                }
                busy
            });
            if !busy {
                break;
            }
            sim::park();
        }
        let (addr, len) = sim::mpi(|w| {
            let me = w.core.current();
            w.mpi.ranks[me]
                .bsend
                .take()
                .map(|(a, s, _)| (a, s))
                .unwrap_or((0, 0))
        });
        if !buffer_addr.is_null() {
            // SAFETY: MPI passes the address of a pointer variable.
            unsafe { *(buffer_addr as *mut usize) = addr };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(size, len as c_int, "size") }
    })
}

/// Cost of a failed MPI_Test-like call: the n-th failure in a row costs n
/// times smpi/test, as in SimGrid, so busy-wait loops advance time fast.
fn test_cost(succeeded: bool) {
    let cost = sim::mpi(|w| {
        let per = w.mpi.protocol.test_cost;
        let streak = &mut w.mpi.test_streak;
        if succeeded {
            *streak = 0;
            0.0
        } else {
            *streak += 1;
            per * f64::from(*streak)
        }
    });
    sim::sleep(cost, "MPI_Test");
}

/// Cost of an MPI_Iprobe-like call, charged before looking (as SimGrid
/// does): smpi/iprobe times one more than the failed probes in a row.
fn iprobe_cost() {
    let cost = sim::mpi(|w| w.mpi.protocol.iprobe_cost * f64::from(w.mpi.iprobe_streak + 1));
    sim::sleep(cost, "MPI_Iprobe");
}

fn iprobe_result(found: bool) {
    sim::mpi(|w| {
        let streak = &mut w.mpi.iprobe_streak;
        *streak = if found { 0 } else { *streak + 1 };
    });
}

pub(crate) unsafe extern "C" fn MPI_Probe(
    source: c_int,
    tag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Probe", comm, || {
        loop {
            let found = sim::mpi(|w| w.iprobe(source, tag, comm))?;
            if let Some(st) = found {
                // SAFETY: the caller's status argument.
                unsafe { write_status(status, &st, false) };
                return Ok(());
            }
            sim::mpi(|w| {
                w.set_probing();
                let tag_s = if tag == mpi::ANY_TAG {
                    "MPI_ANY_TAG".to_string()
                } else {
                    tag.to_string()
                };
                let src_s = if source == mpi::ANY_SOURCE {
                    "MPI_ANY_SOURCE".to_string()
                } else {
                    source.to_string()
                };
                w.core.block_current(
                    "MPI_Probe",
                    Detail::Owned(format!(
                        "source {src_s}, tag {tag_s}, {}",
                        mpi::comm_name(comm)
                    )),
                );
            });
            sim::park();
        }
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
        sim::mpi(|w| w.comm(comm))?;
        iprobe_cost();
        let found = sim::mpi(|w| w.iprobe(source, tag, comm))?;
        iprobe_result(found.is_some());
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
        sim::mpi(|w| w.comm(comm))?;
        iprobe_cost();
        let found = sim::mpi(|w| w.improbe(source, tag, comm))?;
        iprobe_result(found.is_some());
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
    call("MPI_Mprobe", comm, || loop {
        let found = sim::mpi(|w| w.improbe(source, tag, comm))?;
        if let Some((msg, st)) = found {
            // SAFETY: the caller's arguments.
            unsafe {
                out(message, msg, "message")?;
                write_status(status, &st, false);
            }
            return Ok(());
        }
        sim::mpi(|w| {
            w.set_probing();
            w.core.block_current(
                "MPI_Mprobe",
                Detail::Owned(format!(
                    "source {source}, tag {tag}, {}",
                    mpi::comm_name(comm)
                )),
            );
        });
        sim::park();
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
        if message.is_null() {
            return Err(MpiError::new(class::ARG, "message is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let msg = unsafe { *message };
        let id = sim::mpi(|w| w.mrecv(buf, i64::from(count), datatype, msg))?;
        // SAFETY: as above.
        unsafe { *message = 0 };
        let st = finish_one(id, "MPI_Mrecv");
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        status_error(&st)
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
        let id = sim::mpi(|w| w.mrecv(buf, i64::from(count), datatype, msg))?;
        // SAFETY: as above.
        unsafe {
            *message = 0;
            *request = id as c_int + 1;
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
    if request.is_null() {
        return Err(MpiError::new(class::ARG, "request is a null pointer"));
    }
    // SAFETY: per the contract.
    let h = unsafe { *request };
    if h == REQUEST_NULL {
        return Ok(None);
    }
    sim::mpi(|w| {
        let id = w.mpi.request_id(h)?;
        Ok(w.mpi.request(id).active.then_some(id))
    })
}

/// Takes the result of a completed request: frees it or, if persistent,
/// makes it inactive; updates the user's handle. A generalized request's
/// status comes from the program's query function, and its free function
/// runs, both outside the world's borrow.
///
/// # Safety
/// `request` points to the user's writable MPI_Request.
unsafe fn take_completed(id: ReqId, request: *mut c_int) -> Status {
    let greq = sim::mpi(|w| match w.mpi.request(id).kind {
        ReqKind::Generalized(g) => Some(g),
        _ => None,
    });
    if let Some(g) = greq {
        let mut cs = CStatus {
            source: mpi::ANY_SOURCE,
            tag: mpi::ANY_TAG,
            ..CStatus::default()
        };
        let extra = g.extra_state as *mut c_void;
        // SAFETY: the program's callbacks, called as MPI specifies, with
        // its extra_state and a valid status to fill.
        let err = unsafe {
            let q = g
                .query
                .map_or(0, |q| q(extra, (&mut cs as *mut CStatus).cast()));
            let f = g.free.map_or(0, |f| f(extra));
            if q != 0 {
                q
            } else {
                f
            }
        };
        sim::mpi(|w| w.mpi.remove_request(id));
        // SAFETY: per the contract.
        unsafe { *request = REQUEST_NULL };
        return Status {
            source: cs.source,
            tag: cs.tag,
            error: if err != 0 { err } else { cs.error },
            bytes: status_bytes(&cs) as usize,
            cancelled: cs.count_hi_and_cancelled & 1 != 0,
        };
    }
    sim::mpi(|w| {
        w.owe_recv_overhead(id);
        let r = w.mpi.request(id);
        let st = r.status;
        if r.persistent {
            w.mpi.request_mut(id).active = false;
        } else {
            w.mpi.remove_request(id);
            // SAFETY: per the contract.
            unsafe { *request = REQUEST_NULL };
        }
        st
    })
}

pub(crate) unsafe extern "C" fn MPI_Wait(request: *mut c_int, status: *mut CStatus) -> c_int {
    call("MPI_Wait", mpi::COMM_WORLD, || {
        // SAFETY: the caller's request argument.
        let Some(id) = (unsafe { active_request(request) })? else {
            // SAFETY: the caller's status argument.
            unsafe { write_status(status, &Status::empty(), true) };
            return Ok(());
        };
        wait_for(&[id], "MPI_Wait", |w| is_complete(w, id));
        // SAFETY: the caller's request argument.
        let st = unsafe { take_completed(id, request) };
        // SAFETY: the caller's status argument.
        unsafe { write_status(status, &st, false) };
        status_error(&st)
    })
}

pub(crate) unsafe extern "C" fn MPI_Test(
    request: *mut c_int,
    flag: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Test", mpi::COMM_WORLD, || {
        // SAFETY: the caller's request argument.
        let Some(id) = (unsafe { active_request(request) })? else {
            // SAFETY: the caller's arguments.
            unsafe { write_status(status, &Status::empty(), true) };
            return unsafe { out(flag, 1, "flag") };
        };
        // As SimGrid: look, and only a failed look costs time.
        let done = sim::mpi(|w| is_complete(w, id));
        test_cost(done);
        if done {
            // SAFETY: the caller's arguments.
            let st = unsafe { take_completed(id, request) };
            unsafe { write_status(status, &st, false) };
            unsafe { out(flag, 1, "flag")? };
            status_error(&st)
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
    let n = usize::try_from(count)
        .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))?;
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

/// Writes statuses[i] for an array call.
///
/// # Safety
/// `statuses` is MPI_STATUSES_IGNORE or has room for index i.
unsafe fn write_status_at(statuses: *mut CStatus, i: usize, st: &Status) {
    if statuses.is_null() || statuses as usize == 1 {
        return;
    }
    // SAFETY: per the contract.
    unsafe { write_status(statuses.add(i), st, true) };
}

/// Completes every request of `active` (which are complete) and writes
/// their statuses; returns whether any had an error.
///
/// # Safety
/// `requests`/`statuses` as for the array calls.
unsafe fn finish_all(
    active: &[(usize, ReqId)],
    requests: *mut c_int,
    statuses: *mut CStatus,
) -> bool {
    let mut any_error = false;
    for &(i, id) in active {
        // SAFETY: index i is within the user's arrays.
        let st = unsafe { take_completed(id, requests.add(i)) };
        any_error |= st.error != 0;
        // SAFETY: as above.
        unsafe { write_status_at(statuses, i, &st) };
    }
    any_error
}

pub(crate) unsafe extern "C" fn MPI_Waitall(
    count: c_int,
    requests: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    call("MPI_Waitall", mpi::COMM_WORLD, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(count, requests) }?;
        // Inactive entries get an empty status.
        let n = count.max(0) as usize;
        for i in 0..n {
            if !active.iter().any(|&(j, _)| j == i) {
                // SAFETY: i < count.
                unsafe { write_status_at(statuses, i, &Status::empty()) };
            }
        }
        let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
        wait_for(&ids, "MPI_Waitall", |w| {
            ids.iter().all(|&id| is_complete(w, id))
        });
        // SAFETY: the caller's arrays.
        if unsafe { finish_all(&active, requests, statuses) } {
            return Err(MpiError::new(
                class::IN_STATUS,
                "a request failed; see the statuses",
            ));
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Testall(
    count: c_int,
    requests: *mut c_int,
    flag: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    call("MPI_Testall", mpi::COMM_WORLD, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(count, requests) }?;
        let all = sim::mpi(|w| active.iter().all(|&(_, id)| is_complete(w, id)));
        test_cost(all);
        if !all {
            // SAFETY: the caller's output argument.
            return unsafe { out(flag, 0, "flag") };
        }
        let n = count.max(0) as usize;
        for i in 0..n {
            if !active.iter().any(|&(j, _)| j == i) {
                // SAFETY: i < count.
                unsafe { write_status_at(statuses, i, &Status::empty()) };
            }
        }
        // SAFETY: the caller's arrays.
        let err = unsafe { finish_all(&active, requests, statuses) };
        // SAFETY: the caller's output argument.
        unsafe { out(flag, 1, "flag")? };
        if err {
            return Err(MpiError::new(
                class::IN_STATUS,
                "a request failed; see the statuses",
            ));
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Waitany(
    count: c_int,
    requests: *mut c_int,
    index: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Waitany", mpi::COMM_WORLD, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(count, requests) }?;
        if active.is_empty() {
            // SAFETY: the caller's arguments.
            unsafe { write_status(status, &Status::empty(), true) };
            return unsafe { out(index, mpi::UNDEFINED, "index") };
        }
        let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
        wait_for(&ids, "MPI_Waitany", |w| {
            ids.iter().any(|&id| is_complete(w, id))
        });
        let (i, id) = sim::mpi(|w| {
            *active
                .iter()
                .find(|&&(_, id)| is_complete(w, id))
                .expect("a completed request")
        });
        // SAFETY: index i within the user's array.
        let st = unsafe { take_completed(id, requests.add(i)) };
        // SAFETY: the caller's arguments.
        unsafe {
            write_status(status, &st, false);
            out(index, i as c_int, "index")?;
        }
        status_error(&st)
    })
}

pub(crate) unsafe extern "C" fn MPI_Testany(
    count: c_int,
    requests: *mut c_int,
    index: *mut c_int,
    flag: *mut c_int,
    status: *mut CStatus,
) -> c_int {
    call("MPI_Testany", mpi::COMM_WORLD, || {
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
        let found = sim::mpi(|w| active.iter().find(|&&(_, id)| is_complete(w, id)).copied());
        test_cost(found.is_some());
        match found {
            Some((i, id)) => {
                // SAFETY: index i within the user's array; the caller's outputs.
                let st = unsafe { take_completed(id, requests.add(i)) };
                unsafe {
                    write_status(status, &st, false);
                    out(index, i as c_int, "index")?;
                    out(flag, 1, "flag")?;
                }
                status_error(&st)
            }
            None => {
                // SAFETY: the caller's outputs.
                unsafe {
                    out(index, mpi::UNDEFINED, "index")?;
                    out(flag, 0, "flag")
                }
            }
        }
    })
}

/// Shared by Waitsome and Testsome: completes the finished requests.
///
/// # Safety
/// The caller's array arguments.
unsafe fn some_done(
    active: &[(usize, ReqId)],
    requests: *mut c_int,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut CStatus,
) -> MpiResult<()> {
    let done: Vec<(usize, ReqId)> = sim::mpi(|w| {
        active
            .iter()
            .filter(|&&(_, id)| is_complete(w, id))
            .copied()
            .collect()
    });
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
    if err {
        return Err(MpiError::new(
            class::IN_STATUS,
            "a request failed; see the statuses",
        ));
    }
    Ok(())
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
        let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
        wait_for(&ids, "MPI_Waitsome", |w| {
            ids.iter().any(|&id| is_complete(w, id))
        });
        // SAFETY: the caller's arrays.
        unsafe { some_done(&active, requests, outcount, indices, statuses) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Testsome(
    incount: c_int,
    requests: *mut c_int,
    outcount: *mut c_int,
    indices: *mut c_int,
    statuses: *mut CStatus,
) -> c_int {
    call("MPI_Testsome", mpi::COMM_WORLD, || {
        // SAFETY: the caller's array arguments.
        let active = unsafe { active_requests(incount, requests) }?;
        if active.is_empty() {
            // SAFETY: the caller's output argument.
            return unsafe { out(outcount, mpi::UNDEFINED, "outcount") };
        }
        let any = sim::mpi(|w| active.iter().any(|&(_, id)| is_complete(w, id)));
        test_cost(any);
        if !any {
            // SAFETY: the caller's output argument.
            return unsafe { out(outcount, 0, "outcount") };
        }
        // SAFETY: the caller's arrays.
        unsafe { some_done(&active, requests, outcount, indices, statuses) }
    })
}

pub(crate) unsafe extern "C" fn MPI_Request_free(request: *mut c_int) -> c_int {
    call("MPI_Request_free", mpi::COMM_WORLD, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let h = unsafe { *request };
        let id = sim::mpi(|w| w.mpi.request_id(h))?;
        sim::mpi(|w| w.free_request(id));
        // SAFETY: as above.
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
        let state = if request == REQUEST_NULL {
            None
        } else {
            sim::mpi(|w| -> MpiResult<Option<(bool, Status)>> {
                let id = w.mpi.request_id(request)?;
                let r = w.mpi.request(id);
                Ok(r.active.then_some((r.complete, r.status)))
            })?
        };
        let is_null = state.is_none();
        let (done, st) = state.unwrap_or((true, Status::empty()));
        if !done {
            test_cost(false);
        }
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
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        // SAFETY: non-null argument.
        let h = unsafe { *request };
        let greq = sim::mpi(|w| -> MpiResult<Option<(mpi::Grequest, bool)>> {
            let id = w.mpi.request_id(h)?;
            let r = w.mpi.request(id);
            if let ReqKind::Generalized(g) = r.kind {
                return Ok(Some((g, r.complete)));
            }
            w.cancel(id);
            Ok(None)
        })?;
        if let Some((g, complete)) = greq {
            if let Some(cancel) = g.cancel {
                // SAFETY: the program's cancel function, as MPI specifies.
                let rc = unsafe { cancel(g.extra_state as *mut c_void, c_int::from(complete)) };
                if rc != 0 {
                    return Err(MpiError::new(
                        rc,
                        "the generalized request's cancel function failed",
                    ));
                }
            }
        }
        Ok(())
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
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        // SAFETY: non-null argument.
        start_persistent(unsafe { *request }, "MPI_Start")
    })
}

pub(crate) unsafe extern "C" fn MPI_Startall(count: c_int, requests: *mut c_int) -> c_int {
    call("MPI_Startall", mpi::COMM_WORLD, || {
        let n = usize::try_from(count)
            .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))?;
        for i in 0..n {
            // SAFETY: i < count entries of the caller's array.
            start_persistent(unsafe { *requests.add(i) }, "MPI_Startall")?;
        }
        Ok(())
    })
}

/// Starts persistent request `h`: a point-to-point one in the engine; a
/// collective one by running its non-blocking call (which may run the
/// program's code, so outside the world), whose request becomes the run.
fn start_persistent(h: c_int, call_name: &str) -> MpiResult<()> {
    let collective = sim::mpi(|w| {
        let id = w.mpi.request_id(h)?;
        let r = w.mpi.request(id);
        if !r.persistent {
            return Err(MpiError::new(
                class::REQUEST,
                format!("{call_name} on a request that is not persistent"),
            ));
        }
        if matches!(r.kind, mpi::ReqKind::PersistentColl) {
            return Ok(Some((id, w.activate_persistent_collective(id)?)));
        }
        w.start(id).map(|()| None)
    })?;
    let Some((id, start)) = collective else {
        return Ok(());
    };
    let mut run: c_int = 0;
    let code = start(&mut run);
    // Unused if the call failed before taking it.
    sim::mpi(|w| w.mpi.ranks[w.core.current()].reserved_coll_tag = None);
    if code != class::SUCCESS {
        sim::mpi(|w| w.mpi.request_mut(id).active = false);
        return Err(MpiError::new(
            code,
            format!("{call_name}: the persistent collective could not start"),
        ));
    }
    sim::mpi(|w| {
        let run = w.mpi.request_id(run)?;
        w.attach_persistent_run(id, run);
        Ok(())
    })
}

/// Elements of `datatype` in `bytes` (whole elements, or basic elements
/// when `basic`), or MPI_UNDEFINED when the data does not end on one.
fn elements(w: &crate::mpi::Ctx, datatype: c_int, bytes: u64, basic: bool) -> MpiResult<i64> {
    let ty = w.mpi.datatype(datatype)?;
    if ty.size == 0 {
        return Ok(0);
    }
    let n = if basic {
        mpi::datatype::basic_elements(ty, bytes)
    } else {
        bytes
            .is_multiple_of(ty.size as u64)
            .then(|| bytes / ty.size as u64)
    };
    Ok(n.map_or(i64::from(mpi::UNDEFINED), |n| n as i64))
}

/// The count of `datatype` elements (or of basic elements) in a status.
fn status_elements(status: *const CStatus, datatype: c_int, basic: bool) -> MpiResult<i64> {
    if status.is_null() {
        return Err(MpiError::new(class::ARG, "status is a null pointer"));
    }
    // SAFETY: non-null status from the caller.
    let bytes = status_bytes(unsafe { &*status });
    sim::mpi(|w| elements(w, datatype, bytes, basic))
}

pub(crate) unsafe extern "C" fn MPI_Get_count(
    status: *const CStatus,
    datatype: c_int,
    count: *mut c_int,
) -> c_int {
    call("MPI_Get_count", mpi::COMM_WORLD, || {
        let n = status_elements(status, datatype, false)?;
        // SAFETY: the caller's output argument.
        unsafe { out(count, i32::try_from(n).unwrap_or(mpi::UNDEFINED), "count") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Get_elements(
    status: *const CStatus,
    datatype: c_int,
    count: *mut c_int,
) -> c_int {
    call("MPI_Get_elements", mpi::COMM_WORLD, || {
        let n = status_elements(status, datatype, true)?;
        // SAFETY: the caller's output argument.
        unsafe { out(count, i32::try_from(n).unwrap_or(mpi::UNDEFINED), "count") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Get_elements_x(
    status: *const CStatus,
    datatype: c_int,
    count: *mut i64,
) -> c_int {
    call("MPI_Get_elements_x", mpi::COMM_WORLD, || {
        let n = status_elements(status, datatype, true)?;
        // SAFETY: the caller's output argument.
        unsafe { out(count, n, "count") }
    })
}

fn set_elements(status: *mut CStatus, datatype: c_int, count: i64) -> MpiResult<()> {
    if status.is_null() {
        return Err(MpiError::new(class::ARG, "status is a null pointer"));
    }
    // Whole elements first, then basic elements of the type map.
    let unit = sim::mpi(|w| {
        w.mpi
            .datatype(datatype)
            .map(|t| match t.elements.as_slice() {
                [(size, _)] => *size as usize,
                _ => t.size,
            })
    })?;
    let bytes = u64::try_from(count)
        .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))?
        * unit as u64;
    // SAFETY: non-null status from the caller.
    let s = unsafe { &mut *status };
    let cancelled = s.count_hi_and_cancelled & 1;
    s.count_lo = (bytes & 0xffff_ffff) as u32 as c_int;
    s.count_hi_and_cancelled = (((bytes >> 32) << 1) as c_int) | cancelled;
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

/// Posts a receive and a send as one compound request.
#[allow(clippy::too_many_arguments)]
fn isendrecv(
    name: &'static str,
    sendbuf: *const c_void,
    sendcount: i64,
    sendtype: c_int,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: i64,
    recvtype: c_int,
    source: c_int,
    recvtag: c_int,
    comm: c_int,
    owned: Option<Vec<u8>>,
    request: *mut c_int,
) -> c_int {
    call(name, comm, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        let id = sim::mpi(|w| -> MpiResult<ReqId> {
            let rid = w.new_request(
                ReqKind::Recv,
                recvbuf,
                recvcount,
                recvtype,
                source,
                recvtag,
                comm,
                false,
            )?;
            let sid = match w.new_request(
                send_kind(SendMode::Standard),
                sendbuf,
                sendcount,
                sendtype,
                dest,
                sendtag,
                comm,
                false,
            ) {
                Ok(s) => s,
                Err(e) => {
                    w.mpi.remove_request(rid);
                    return Err(e);
                }
            };
            let id = w.new_compound(vec![rid, sid], owned);
            if let Err(e) = w.start(id) {
                w.mpi.remove_request(id);
                return Err(e);
            }
            Ok(id)
        })?;
        // SAFETY: non-null output argument.
        unsafe { *request = id as c_int + 1 };
        Ok(())
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
    isendrecv(
        "MPI_Isendrecv",
        sendbuf,
        i64::from(sendcount),
        sendtype,
        dest,
        sendtag,
        recvbuf,
        i64::from(recvcount),
        recvtype,
        source,
        recvtag,
        comm,
        None,
        request,
    )
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
    // The outgoing data is packed first, so the receive can land in `buf`;
    // the compound request owns the packed copy until it completes.
    let packed = sim::mpi(|w| -> MpiResult<Vec<u8>> {
        let ty = Rc::clone(w.mpi.datatype(datatype)?);
        let n = usize::try_from(count)
            .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))?;
        let mut data = Vec::new();
        // SAFETY: `buf` holds `count` elements of `datatype` (MPI contract).
        unsafe { mpi::datatype::pack(&ty, buf, n, &mut data) };
        Ok(data)
    });
    let packed = match packed {
        Ok(p) => p,
        Err(e) => return call("MPI_Isendrecv_replace", comm, || Err(e)),
    };
    let (ptr, len) = (packed.as_ptr(), packed.len() as i64);
    isendrecv(
        "MPI_Isendrecv_replace",
        ptr.cast(),
        len,
        4, // MPI_BYTE
        dest,
        sendtag,
        buf,
        i64::from(count),
        datatype,
        source,
        recvtag,
        comm,
        Some(packed),
        request,
    )
}

pub(crate) unsafe extern "C" fn MPI_Send_c(
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
) -> c_int {
    blocking_send(
        "MPI_Send_c",
        SendMode::Standard,
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
    )
}

pub(crate) unsafe extern "C" fn MPI_Isend_c(
    buf: *const c_void,
    count: i64,
    datatype: c_int,
    dest: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Isend_c",
        send_kind(SendMode::Standard),
        buf,
        count,
        datatype,
        dest,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Irecv_c(
    buf: *mut c_void,
    count: i64,
    datatype: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    request: *mut c_int,
) -> c_int {
    nonblocking(
        "MPI_Irecv_c",
        ReqKind::Recv,
        buf,
        count,
        datatype,
        source,
        tag,
        comm,
        request,
        false,
    )
}

pub(crate) unsafe extern "C" fn MPI_Recv_c(
    buf: *mut c_void,
    count: i64,
    datatype: c_int,
    source: c_int,
    tag: c_int,
    comm: c_int,
    status: *mut CStatus,
) -> c_int {
    blocking_recv(
        "MPI_Recv_c",
        buf,
        count,
        datatype,
        source,
        tag,
        comm,
        status,
    )
}

pub(crate) unsafe extern "C" fn MPI_Get_count_c(
    status: *const CStatus,
    datatype: c_int,
    count: *mut i64,
) -> c_int {
    call("MPI_Get_count_c", mpi::COMM_WORLD, || {
        let n = status_elements(status, datatype, false)?;
        // SAFETY: the caller's output argument.
        unsafe { out(count, n, "count") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Grequest_start(
    query: Option<mpi::GreqQueryFn>,
    free: Option<mpi::GreqFreeFn>,
    cancel: Option<mpi::GreqCancelFn>,
    extra_state: *mut c_void,
    request: *mut c_int,
) -> c_int {
    call("MPI_Grequest_start", mpi::COMM_WORLD, || {
        if request.is_null() {
            return Err(MpiError::new(class::ARG, "request is a null pointer"));
        }
        let g = mpi::Grequest {
            query,
            free,
            cancel,
            extra_state: extra_state as usize,
        };
        let id = sim::mpi(|w| -> MpiResult<ReqId> {
            let view = w.comm(mpi::COMM_SELF)?;
            let int = Rc::clone(w.mpi.datatype(8)?);
            let id = w.new_internal_request(
                ReqKind::Generalized(g),
                &view,
                view.ctx,
                0,
                0,
                int,
                mpi::PROC_NULL,
                0,
            );
            w.mpi.request_mut(id).active = true;
            Ok(id)
        })?;
        // SAFETY: non-null output argument.
        unsafe { *request = id as c_int + 1 };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Grequest_complete(request: c_int) -> c_int {
    call("MPI_Grequest_complete", mpi::COMM_WORLD, || {
        sim::mpi(|w| {
            let id = w.mpi.request_id(request)?;
            if !matches!(w.mpi.request(id).kind, ReqKind::Generalized(_)) {
                return Err(MpiError::new(
                    class::REQUEST,
                    "MPI_Grequest_complete on a request that is not generalized",
                ));
            }
            w.complete(id, Status::empty());
            Ok(())
        })
    })
}

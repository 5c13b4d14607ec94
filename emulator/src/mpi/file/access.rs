//! Reads and writes: the data goes between the program's buffer and the
//! OS file at once; the simulated time is then spent on the disks.
//!
//! An independent access costs its bytes on the member's disk. A
//! collective one costs what ROMIO's two-phase collective buffering
//! would: the members exchange their access ranges (an allgather), the
//! range they cover together is cut into one contiguous domain per
//! aggregator (`cb_nodes` of them, one per host by default), every member
//! sends each aggregator the bytes that fall in its domain (receives them
//! from it for a read), and each aggregator writes (reads) its domain's
//! bytes on its own disk in one operation. The hint `romio_cb_write`
//! (`romio_cb_read`) set to `disable` makes collective writes (reads)
//! cost what independent ones do.

use std::ffi::c_void;
use std::os::unix::fs::FileExt;
use std::rc::Rc;

use super::{
    allgather_i64, err, os_error, Deposit, Pieces, MODE_RDONLY, MODE_SEQUENTIAL, MODE_WRONLY,
};
use crate::engine::io::IoKind;
use crate::mpi::coll::{post_and_wait, Transfer};
use crate::mpi::datatype::{self, Datatype};
use crate::mpi::{class, CommView, Ctx, MpiResult, Status};
use crate::sim;

/// Where an access starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// At this offset, in etypes of the view (the `_at` calls).
    Explicit(i64),
    /// At the member's individual file pointer, which moves past it.
    Individual,
    /// At the shared file pointer, which moves past it (the `_shared`
    /// calls).
    Shared,
    /// At the shared file pointer, in the members' rank order (the
    /// `_ordered` calls, collective).
    Ordered,
}

/// One read or write of a member.
#[derive(Debug, Clone, Copy)]
pub struct Access {
    pub file: i32,
    pub buf: usize,
    pub count: i64,
    pub dtype: i32,
    pub position: Position,
    pub write: bool,
    pub collective: bool,
    pub call: &'static str,
}

/// What an access needs once it is checked.
struct Plan {
    bytes: u64,
    etype_size: u64,
    dtype: Rc<Datatype>,
    count: usize,
    pieces: Vec<(u64, u64)>,
    disk: Option<usize>,
}

/// Does access `a` for the current rank; its status (bytes moved).
pub fn access(a: Access) -> MpiResult<Status> {
    let ordered = a.position == Position::Ordered;
    let (dtype, count, etype_size) = sim::mpi(|w| check(w, &a))?;
    let bytes = (count * dtype.size) as u64;
    let start_etype = match a.position {
        Position::Explicit(o) => o,
        Position::Individual => sim::mpi(|w| w.file_member(a.file).map(|m| m.pos))?,
        Position::Shared => sim::mpi(|w| -> MpiResult<i64> {
            let obj = w.file_mut(a.file)?.0;
            let at = obj.shared;
            obj.shared += (bytes / etype_size) as i64;
            Ok(at)
        })?,
        Position::Ordered => ordered_start(a.file, (bytes / etype_size) as i64, a.call)?,
    };
    let plan = sim::mpi(|w| -> MpiResult<Plan> {
        let m = w.file_member(a.file)?;
        let start = u64::try_from(start_etype)
            .map_err(|_| err(class::ARG, format!("invalid offset {start_etype}")))?
            * etype_size;
        Ok(Plan {
            bytes,
            etype_size,
            dtype,
            count,
            pieces: m.view.pieces(start, bytes),
            disk: m.disk,
        })
    })?;
    let moved = if a.write {
        write_data(&a, &plan)?
    } else {
        read_data(&a, &plan)?
    };
    if count > 0 && crate::log::enabled(crate::log::SimGrid::SmpiIo, crate::log::Priority::Verbose)
    {
        log_access(&a, &plan, moved);
    }
    if a.position == Position::Individual {
        sim::mpi(|w| -> MpiResult<()> {
            w.file_member_mut(a.file)?.pos = start_etype + moved.div_ceil(plan.etype_size) as i64;
            Ok(())
        })?;
    }
    let kind = if a.write { IoKind::Write } else { IoKind::Read };
    if a.collective || ordered {
        two_phase(&a, &plan, kind)?;
    } else {
        spend(plan.disk, plan.bytes, kind, a.call);
    }
    Ok(Status {
        bytes: moved as usize,
        ..Status::empty()
    })
}

/// SimGrid's `smpi_io` VERBOSE lines of an access: what moved, and the
/// file offset just after it.
fn log_access(a: &Access, p: &Plan, moved: u64) {
    let Ok(path) = sim::mpi(|w| w.file(a.file).map(|(f, _)| f.path.clone())) else {
        return;
    };
    let mut left = moved;
    let mut after = p.pieces.first().map_or(0, |x| x.0);
    for &(off, len) in &p.pieces {
        let n = len.min(left);
        after = off + n;
        left -= n;
        if left == 0 {
            break;
        }
    }
    let (what, done, size) = if a.write {
        ("Write", "written", "writesize")
    } else {
        ("Read", "read", "readsize")
    };
    let (count, bytes) = (p.count, p.bytes);
    let movesize = count as i64 * p.dtype.extent as i64;
    super::say(&format!(
        "{what} in MPI_File {path}, {moved} bytes {done}, count {count}, {size} {bytes} bytes, \
         movesize {movesize}"
    ));
    super::say(&format!(
        "Position after {} in MPI_File {path} : {after}",
        what.to_lowercase()
    ));
}

/// Checks `a` against the file and its arguments: the datatype, the
/// count and the view's etype size.
fn check(w: &Ctx, a: &Access) -> MpiResult<(Rc<Datatype>, usize, u64)> {
    let (obj, me) = w.file(a.file)?;
    let m = &obj.members[me];
    if a.write && obj.amode & MODE_RDONLY != 0 {
        return Err(err(
            class::ACCESS,
            format!("{}: file '{}' is open read-only", a.call, obj.path),
        ));
    }
    if !a.write && obj.amode & MODE_WRONLY != 0 {
        return Err(err(
            class::ACCESS,
            format!("{}: file '{}' is open write-only", a.call, obj.path),
        ));
    }
    let pointer_free = matches!(a.position, Position::Shared | Position::Ordered);
    if obj.amode & MODE_SEQUENTIAL != 0 && !pointer_free {
        return Err(err(
            class::UNSUPPORTED_OPERATION,
            format!(
                "{}: file '{}' is open with MPI_MODE_SEQUENTIAL (only the shared pointer may \
                 be used)",
                a.call, obj.path
            ),
        ));
    }
    if let Position::Explicit(o) = a.position {
        if o < 0 {
            return Err(err(class::ARG, format!("{}: negative offset {o}", a.call)));
        }
    }
    let count = usize::try_from(a.count).map_err(|_| {
        err(
            class::COUNT,
            format!("{}: negative count {}", a.call, a.count),
        )
    })?;
    let dtype = w.mpi.committed(a.dtype)?;
    let etype_size = m.view.etype.size as u64;
    let bytes = (count * dtype.size) as u64;
    if !bytes.is_multiple_of(etype_size) {
        return Err(err(
            class::TYPE,
            format!(
                "{}: {bytes} bytes of data are not whole etypes of the view ({etype_size} bytes)",
                a.call
            ),
        ));
    }
    if count > 0 && a.buf == 0 && dtype.size > 0 && dtype.true_lb == 0 {
        return Err(err(
            class::BUFFER,
            format!("{}: null buffer for {count} elements", a.call),
        ));
    }
    Ok((dtype, count, etype_size))
}

/// The shared pointer where the current member's part of an ordered
/// access starts; the pointer moves past all members' parts.
fn ordered_start(file: i32, etypes: i64, call: &'static str) -> MpiResult<i64> {
    let (view, me, base) = sim::mpi(|w| -> MpiResult<(CommView, usize, i64)> {
        let (obj, me) = w.file(file)?;
        let (comm, base) = (obj.comm, obj.shared);
        Ok((w.comm(comm)?, me, base))
    })?;
    // Everyone reads the pointer before anyone moves it.
    let all = allgather_i64(&view, &[etypes], call)?;
    let before: i64 = all[..me].iter().sum();
    let total: i64 = all.iter().sum();
    sim::mpi(|w| -> MpiResult<()> {
        w.file_mut(file)?.0.shared = base + total;
        Ok(())
    })?;
    Ok(base + before)
}

fn write_data(a: &Access, p: &Plan) -> MpiResult<u64> {
    let mut data = Vec::new();
    // SAFETY: the program's buffer holds `count` elements of the datatype
    // (MPI's contract for the write calls; the binding checked it is not
    // null).
    unsafe { datatype::pack(&p.dtype, a.buf as *const c_void, p.count, &mut data) };
    sim::mpi(|w| -> MpiResult<u64> {
        let obj = w.file(a.file)?.0;
        // The disk's `size`: a file may not grow past it.
        let end = p.pieces.iter().map(|&(o, l)| o + l).max().unwrap_or(0);
        if let Some(disk) = p.disk.map(|d| &w.core.platform().disks()[d]) {
            let len = obj.os.metadata().map(|m| m.len()).unwrap_or(0);
            if let Some(size) = disk.size.filter(|&s| end > len && end as f64 > s) {
                let host = &w.core.platform().host(disk.host).name;
                return Err(err(
                    class::NO_SPACE,
                    format!(
                        "{}: file '{}' would grow to {end} bytes, past the {size} bytes of disk \
                         '{}' of host '{host}' (its size property)",
                        a.call, obj.path, disk.name
                    ),
                ));
            }
        }
        let mut at = 0usize;
        for &(off, len) in &p.pieces {
            let len = len as usize;
            obj.os
                .write_all_at(&data[at..at + len], off)
                .map_err(|e| os_error("write", &obj.path, &e))?;
            at += len;
        }
        Ok(at as u64)
    })
}

fn read_data(a: &Access, p: &Plan) -> MpiResult<u64> {
    let mut data = vec![0u8; p.bytes as usize];
    let got = sim::mpi(|w| -> MpiResult<usize> {
        let obj = w.file(a.file)?.0;
        let mut at = 0usize;
        'pieces: for &(off, len) in &p.pieces {
            let end = at + len as usize;
            let mut pos = off;
            while at < end {
                let n = obj
                    .os
                    .read_at(&mut data[at..end], pos)
                    .map_err(|e| os_error("read", &obj.path, &e))?;
                if n == 0 {
                    // The end of the file: a short read, not an error.
                    break 'pieces;
                }
                at += n;
                pos += n as u64;
            }
        }
        Ok(at)
    })?;
    data.truncate(got);
    // SAFETY: the program's buffer has room for `count` elements of the
    // datatype (MPI's contract for the read calls), and `data` holds at
    // most that many bytes.
    unsafe { datatype::unpack(&p.dtype, a.buf as *mut c_void, &data) };
    Ok(got as u64)
}

/// Spends the time of `bytes` on `disk`, or counts them as I/O of a host
/// without a disk.
fn spend(disk: Option<usize>, bytes: u64, kind: IoKind, call: &'static str) {
    if bytes == 0 {
        return;
    }
    match disk {
        Some(d) => sim::disk_io(d, bytes as f64, kind, call),
        None => sim::mpi(|w| {
            w.mpi.diskless_io.0 += 1;
            w.mpi.diskless_io.1 += bytes;
        }),
    }
}

/// Bytes of `pieces` inside `[lo, hi)`.
fn overlap(pieces: &[(u64, u64)], lo: u64, hi: u64) -> u64 {
    pieces
        .iter()
        .map(|&(o, l)| (o + l).min(hi).saturating_sub(o.max(lo)))
        .sum()
}

/// The time of collective access `a` as ROMIO's two-phase algorithm
/// would spend it (see the module's comment).
fn two_phase(a: &Access, p: &Plan, kind: IoKind) -> MpiResult<()> {
    let setup = sim::mpi(|w| -> MpiResult<_> {
        let (obj, me) = w.file_mut(a.file)?;
        let m = &mut obj.members[me];
        let seq = m.collectives;
        m.collectives += 1;
        let hints = m.info.clone();
        let disabled = hints.iter().rev().find(|(k, _)| {
            k == if kind == IoKind::Write {
                "romio_cb_write"
            } else {
                "romio_cb_read"
            }
        });
        let disabled = disabled.is_some_and(|(_, v)| v.eq_ignore_ascii_case("disable"));
        let size = obj.members.len();
        let i = match obj.deposits.iter().position(|d| d.seq == seq) {
            Some(i) => i,
            None => {
                obj.deposits.push_back(Deposit {
                    seq,
                    pieces: vec![None; size],
                    unread: size,
                });
                obj.deposits.len() - 1
            }
        };
        obj.deposits[i].pieces[me] = Some(Rc::from(p.pieces.as_slice()));
        let aggregators = super::aggregator_ranks(obj, &hints);
        let comm = obj.comm;
        Ok((seq, me, disabled, aggregators, w.comm(comm)?))
    })?;
    let (seq, me, disabled, aggregators, view) = setup;
    // The members' ranges, as ROMIO gathers them: everyone has deposited
    // its pieces once this is over. (A member with nothing to access
    // gives an empty range.)
    let lo = p.pieces.iter().map(|x| x.0).min().unwrap_or(u64::MAX);
    let hi = p.pieces.iter().map(|&(o, l)| o + l).max().unwrap_or(0);
    let ranges = allgather_i64(&view, &[lo as i64, hi as i64], a.call)?;
    let all: Vec<Pieces> = sim::mpi(|w| -> MpiResult<_> {
        let obj = w.file_mut(a.file)?.0;
        let i = obj
            .deposits
            .iter()
            .position(|d| d.seq == seq)
            .expect("deposited before the allgather");
        let d = &mut obj.deposits[i];
        let all = d
            .pieces
            .iter()
            .map(|x| x.clone().unwrap_or_else(|| Rc::from(Vec::new())))
            .collect();
        d.unread -= 1;
        if d.unread == 0 {
            obj.deposits.remove(i);
        }
        Ok(all)
    })?;
    if disabled {
        spend(p.disk, p.bytes, kind, a.call);
        return Ok(());
    }
    let glo = ranges.chunks(2).map(|r| r[0] as u64).min().unwrap_or(0);
    let ghi = ranges.chunks(2).map(|r| r[1] as u64).max().unwrap_or(0);
    if ghi <= glo || aggregators.is_empty() {
        return Ok(());
    }
    let domain = (ghi - glo).div_ceil(aggregators.len() as u64);
    let bounds = |k: usize| {
        let lo = glo + k as u64 * domain;
        (lo, (lo + domain).min(ghi))
    };
    // What the current member sends each aggregator, and, if it is one,
    // what it gets from each member.
    let mut transfers: Vec<(bool, usize, usize)> = Vec::new();
    for (k, &agg) in aggregators.iter().enumerate() {
        let (dlo, dhi) = bounds(k);
        let mine = overlap(&p.pieces, dlo, dhi) as usize;
        if agg != me && mine > 0 {
            transfers.push((kind == IoKind::Write, agg, mine));
        }
    }
    let my_domain = aggregators.iter().position(|&r| r == me);
    let mut domain_bytes = 0u64;
    if let Some(k) = my_domain {
        let (dlo, dhi) = bounds(k);
        for (r, pieces) in all.iter().enumerate() {
            let theirs = overlap(pieces, dlo, dhi);
            domain_bytes += theirs;
            if r != me && theirs > 0 {
                transfers.push((kind == IoKind::Read, r, theirs as usize));
            }
        }
    }
    let (tag, byte) = sim::mpi(|w| -> MpiResult<_> {
        Ok((
            w.next_coll_tag(view.handle),
            w.mpi.committed(datatype::BYTE)?,
        ))
    })?;
    // The exchange moves the bytes' weight, not the bytes: each member
    // wrote or read its own data already.
    let biggest = transfers.iter().map(|t| t.2).max().unwrap_or(0);
    let scratch_out = vec![0u8; biggest];
    let mut scratch_in = vec![0u8; biggest];
    let messages: Vec<Transfer> = transfers
        .iter()
        .map(|&(send, peer, n)| {
            if send {
                Transfer::send(peer, scratch_out.as_ptr() as usize, n, &byte)
            } else {
                Transfer::recv(peer, scratch_in.as_mut_ptr() as usize, n, &byte)
            }
        })
        .collect();
    // An aggregator moves its domain on its own disk.
    if kind == IoKind::Read && my_domain.is_some() {
        spend(p.disk, domain_bytes, kind, a.call);
    }
    if !messages.is_empty() {
        post_and_wait(&view, tag, messages, a.call)?;
    }
    if kind == IoKind::Write && my_domain.is_some() {
        spend(p.disk, domain_bytes, kind, a.call);
    }
    Ok(())
}

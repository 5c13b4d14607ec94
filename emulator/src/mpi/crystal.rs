//! The crystal router (Fox et al.; gslib's `crystal_router`), run as the
//! `crystal_router` algorithm of `MPI_Alltoallv`.
//!
//! The ranks are halved until each is alone: at each step every rank
//! passes its partner in the other half everything it holds for ranks of
//! that half, and keeps the rest. A message's size depends on what the
//! rank received before, which no static schedule knows, so this runs
//! here rather than as a `collectives` schedule: each step sends the size
//! first (8 bytes), then the records, as gslib does. Records carry their
//! destination, source and length, 16 bytes of header each. On a power
//! of two this is the hypercube form; otherwise the halves differ by one
//! rank and the extra lower rank sends to the last upper rank, which then
//! receives twice.

use std::rc::Rc;

use crate::mpi::coll::{post_and_wait, Transfer};
use crate::mpi::{CommView, MpiResult};
use crate::sim;

/// MPI_BYTE.
const MPI_BYTE: i32 = 4;

/// Bytes bound from `src` to `dest`.
pub struct Record {
    pub dest: usize,
    pub src: usize,
    pub data: Vec<u8>,
}

/// Routes `records` (all from the calling rank) to their destinations;
/// the records addressed to the calling rank, from every source.
pub fn route(view: &CommView, records: Vec<Record>, call: &'static str) -> MpiResult<Vec<Record>> {
    let (me, size) = (view.my_rank, view.size());
    let (tag, byte) = sim::mpi(|w| -> MpiResult<_> {
        Ok((
            w.next_coll_tag_in(view.ctx),
            Rc::clone(w.mpi.datatype(MPI_BYTE)?),
        ))
    })?;
    let mut held = records;
    let (mut low, mut n) = (0, size);
    while n > 1 {
        let lower = n.div_ceil(2);
        let mid = low + lower;
        let upper = n - lower;
        let (to, from): (usize, Vec<usize>) = if me < mid {
            let k = me - low;
            if k < upper {
                (mid + k, vec![mid + k])
            } else {
                // The extra rank of an odd split only sends.
                (low + n - 1, vec![])
            }
        } else {
            let k = me - mid;
            let mut from = vec![low + k];
            if n % 2 == 1 && k == upper - 1 {
                from.push(mid - 1);
            }
            (low + k, from)
        };
        let (going, staying): (Vec<Record>, Vec<Record>) =
            held.into_iter().partition(|r| (r.dest < mid) != (me < mid));
        let payload = encode(&going);
        // Sizes first, then the records.
        let out_len = (payload.len() as u64).to_le_bytes();
        let mut in_lens = vec![[0u8; 8]; from.len()];
        let mut sizes = vec![Transfer::send(to, out_len.as_ptr() as usize, 8, &byte)];
        for (i, &f) in from.iter().enumerate() {
            sizes.push(Transfer::recv(
                f,
                in_lens[i].as_mut_ptr() as usize,
                8,
                &byte,
            ));
        }
        post_and_wait(view, tag, sizes, call)?;
        let mut incoming: Vec<Vec<u8>> = in_lens
            .iter()
            .map(|l| vec![0u8; u64::from_le_bytes(*l) as usize])
            .collect();
        let mut data = vec![Transfer::send(
            to,
            payload.as_ptr() as usize,
            payload.len(),
            &byte,
        )];
        for (buf, &f) in incoming.iter_mut().zip(&from) {
            data.push(Transfer::recv(
                f,
                buf.as_mut_ptr() as usize,
                buf.len(),
                &byte,
            ));
        }
        post_and_wait(view, tag, data, call)?;
        held = staying;
        for buf in &incoming {
            decode(buf, &mut held);
        }
        if me < mid {
            n = lower;
        } else {
            low = mid;
            n = upper;
        }
    }
    Ok(held)
}

/// Records as bytes: destination, source and length (u32, u32, u64, little
/// endian), then the data, for each.
fn encode(records: &[Record]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.iter().map(|r| 16 + r.data.len()).sum());
    for r in records {
        out.extend_from_slice(&(r.dest as u32).to_le_bytes());
        out.extend_from_slice(&(r.src as u32).to_le_bytes());
        out.extend_from_slice(&(r.data.len() as u64).to_le_bytes());
        out.extend_from_slice(&r.data);
    }
    out
}

/// The records `encode` wrote into `buf`, appended to `into`.
fn decode(mut buf: &[u8], into: &mut Vec<Record>) {
    let word = |b: &[u8], at: usize, n: usize| {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(&b[at..at + n]);
        u64::from_le_bytes(w) as usize
    };
    while buf.len() >= 16 {
        let (dest, src, len) = (word(buf, 0, 4), word(buf, 4, 4), word(buf, 8, 8));
        into.push(Record {
            dest,
            src,
            data: buf[16..16 + len].to_vec(),
        });
        buf = &buf[16 + len..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_encoding() {
        let records = vec![
            Record {
                dest: 3,
                src: 70000,
                data: vec![1, 2, 3],
            },
            Record {
                dest: 0,
                src: 1,
                data: vec![],
            },
        ];
        let mut back = Vec::new();
        decode(&encode(&records), &mut back);
        let seen: Vec<_> = back
            .iter()
            .map(|r| (r.dest, r.src, r.data.clone()))
            .collect();
        assert_eq!(seen, vec![(3, 70000, vec![1, 2, 3]), (0, 1, vec![])]);
    }
}

//! The swapped globals' per-rank contents, kept as shared versions of
//! small chunks.
//!
//! Under [`crate::Privatization::Swap`] the program is loaded once and the
//! ranks take turns in its writable data: at each switch the leaving
//! rank's contents are saved and the arriving rank's put in place. Copying
//! the whole of it both ways costs two passes over memory that is cold by
//! then (each rank's image was last touched when that rank last ran): on
//! 4,096 ranks of HPL, whose globals are 2.4 KB, a tenth of the run.
//!
//! Yet most of a program's globals hold the same bytes in every rank:
//! tables and constants written at start-up, buffers no rank touched, or
//! values every rank set alike (HPL's timers, all set to one start flag).
//! So the segment is cut into 64-byte chunks, each chunk keeps the
//! distinct contents ranks gave it (its versions, version 0 being the
//! load-time contents), and a rank keeps one version number per chunk.
//! Saving the leaving rank compares each chunk with the version it had
//! when it arrived: an unchanged chunk costs one comparison with a line
//! that is usually hot (a version many ranks share). A changed chunk
//! becomes the version last made for that chunk when the bytes are the
//! same (ranks setting a value alike share it), else overwrites the
//! rank's own version when no other rank shares it, else becomes a new
//! version. Putting the arriving rank in place copies only the chunks
//! whose version differs from the one in place. A switch thus touches
//! cold memory for the chunks where the two ranks differ, and a rank
//! costs four bytes per chunk.

/// One piece of the segment: `len` (at most [`CHUNK`]) bytes at `addr`.
#[derive(Debug, Clone, Copy)]
struct Chunk {
    addr: usize,
    len: usize,
}

/// The size of the pieces compared and kept (a cache line).
const CHUNK: usize = 64;

/// One content of a chunk, on a cache line of its own.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line([u8; CHUNK]);

/// The versions of one chunk.
#[derive(Default)]
struct Versions {
    all: Vec<Line>,
    /// How many ranks have each version (version 0, the load-time
    /// contents, is never freed, whatever its count says).
    ranks: Vec<u32>,
    /// Versions no rank has any more, to reuse.
    free: Vec<u32>,
    /// The version last made or changed, which a rank that changes the
    /// chunk tries first (ranks often set a value alike, one after the
    /// other).
    recent: u32,
}

impl Versions {
    fn release(&mut self, v: u32) {
        if v != 0 {
            let ranks = &mut self.ranks[v as usize];
            *ranks -= 1;
            if *ranks == 0 {
                self.free.push(v);
            }
        }
    }

    fn take(&mut self, v: u32) {
        if v != 0 {
            self.ranks[v as usize] += 1;
        }
    }
}

/// The per-rank contents of a set of memory ranges that ranks take turns
/// in (see the module docs). Not `Sync`: one thread switches.
pub(crate) struct Images {
    chunks: Vec<Chunk>,
    versions: Vec<Versions>,
    /// Rank r's version of chunk c at `r * chunks.len() + c` (ranks never
    /// saved have none: all their chunks are version 0).
    of_rank: Vec<u32>,
    /// The version of each chunk in place, as it was put there (the owner
    /// may have written over it since).
    placed: Vec<u32>,
    /// The rank whose contents are in place (None: the load-time
    /// contents, unless someone wrote over them).
    owner: Option<usize>,
}

impl Images {
    /// Images of `ranges` (absolute `[start, end)`, disjoint), whose
    /// current contents every rank starts from.
    ///
    /// # Safety
    /// The ranges must stay mapped, readable and writable for as long as
    /// the images live, and be accessed by no one else while a method of
    /// this type runs.
    pub(crate) unsafe fn new(ranges: &[(usize, usize)]) -> Self {
        let mut chunks = Vec::new();
        for &(a, b) in ranges {
            let mut addr = a;
            while addr < b {
                let len = CHUNK.min(b - addr);
                chunks.push(Chunk { addr, len });
                addr += len;
            }
        }
        let versions = chunks
            .iter()
            .map(|c| {
                let mut bytes = [0u8; CHUNK];
                bytes[..c.len].copy_from_slice(memory(c));
                Versions {
                    all: vec![Line(bytes)],
                    ranks: vec![0],
                    free: Vec::new(),
                    recent: 0,
                }
            })
            .collect();
        Self {
            placed: vec![0; chunks.len()],
            chunks,
            versions,
            of_rank: Vec::new(),
            owner: None,
        }
    }

    /// The rank whose contents are in place.
    pub(crate) fn owner(&self) -> Option<usize> {
        self.owner
    }

    /// Puts `rank`'s contents in place, keeping those of the rank that
    /// had them.
    pub(crate) fn activate(&mut self, rank: usize) {
        if self.owner == Some(rank) {
            return;
        }
        let n = self.chunks.len();
        let end = rank
            .checked_add(1)
            .and_then(|r| r.checked_mul(n))
            .expect("swapped globals: a rank number beyond the address space");
        if self.of_rank.len() < end {
            self.of_rank.resize(end, 0);
        }
        // The arriving rank's versions were last read when it last ran:
        // ask for every line of them now, so that the misses overlap the
        // saving.
        let row = &self.of_rank[end - n..end];
        if let (Some(first), Some(last)) = (row.first(), row.last()) {
            let (first, last) = (first as *const u32 as usize, last as *const u32 as usize);
            for line in (first & !(CHUNK - 1)..=last).step_by(CHUNK) {
                prefetch(line as *const u8);
            }
        }
        match self.owner {
            Some(o) => self.save(o),
            // Nothing saved is in place: the load-time contents go back,
            // whatever wrote there meanwhile.
            None => {
                for (i, c) in self.chunks.iter().enumerate() {
                    write(c, &self.versions[i].all[0].0);
                    self.placed[i] = 0;
                }
            }
        }
        let mine = &self.of_rank[end - n..end];
        for (i, c) in self.chunks.iter().enumerate() {
            let v = mine[i];
            if v != self.placed[i] {
                write(c, &self.versions[i].all[v as usize].0);
                self.placed[i] = v;
            }
        }
        self.owner = Some(rank);
    }

    /// Records what rank `o`, whose contents are in place, changed since
    /// they were put there.
    fn save(&mut self, o: usize) {
        let n = self.chunks.len();
        for (i, c) in self.chunks.iter().enumerate() {
            let had = self.placed[i];
            let versions = &mut self.versions[i];
            let now = memory(c);
            if same(now, &versions.all[had as usize].0) {
                continue;
            }
            let recent = versions.recent;
            let v = if recent != had && same(now, &versions.all[recent as usize].0) {
                // A version is only freed when a rank leaves it for another,
                // which becomes the recent one: the recent one is live.
                debug_assert!(recent == 0 || versions.ranks[recent as usize] > 0);
                versions.release(had);
                versions.take(recent);
                recent
            } else if had != 0 && same(now, &versions.all[0].0) {
                // Back to the load-time bytes, which every rank shares.
                versions.release(had);
                0
            } else if had != 0 && versions.ranks[had as usize] == 1 {
                versions.all[had as usize].0[..c.len].copy_from_slice(now);
                had
            } else {
                versions.release(had);
                let mut bytes = [0u8; CHUNK];
                bytes[..c.len].copy_from_slice(now);
                match versions.free.pop() {
                    Some(v) => {
                        versions.all[v as usize] = Line(bytes);
                        versions.ranks[v as usize] = 1;
                        v
                    }
                    None => {
                        versions.all.push(Line(bytes));
                        versions.ranks.push(1);
                        u32::try_from(versions.all.len() - 1)
                            .expect("fewer than 2^32 versions of a chunk")
                    }
                }
            };
            versions.recent = v;
            self.placed[i] = v;
            self.of_rank[o * n + i] = v;
        }
    }

    /// How many versions are kept besides the load-time ones, all chunks
    /// together.
    #[cfg(test)]
    fn kept_versions(&self) -> usize {
        self.versions
            .iter()
            .map(|v| v.all.len() - 1 - v.free.len())
            .sum()
    }
}

/// Asks for the cache line holding `p` to be loaded, without waiting.
#[inline]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE, which the intrinsic needs, is part of x86-64's baseline;
    // a prefetch reads nothing the program sees and never faults, whatever
    // the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The bytes of chunk `c` in memory.
fn memory(c: &Chunk) -> &[u8] {
    // SAFETY: `Images::new`'s contract: the chunk lies in ranges that stay
    // mapped and readable, and no one writes them while we read.
    unsafe { std::slice::from_raw_parts(c.addr as *const u8, c.len) }
}

/// Whether a chunk's bytes in memory are those of a version: whole chunks
/// (all but the last of each range) compare as arrays, without a call.
#[inline]
fn same(now: &[u8], version: &[u8; CHUNK]) -> bool {
    if now.len() < CHUNK {
        return now == &version[..now.len()];
    }
    // Word by word, folded: the compiler makes a few vector instructions
    // of it, where `==` on arrays calls `bcmp` (38 calls per switch for
    // HPL's globals, 4% of a 4,096-rank run).
    now.chunks_exact(8)
        .zip(version.chunks_exact(8))
        .fold(0u64, |diff, (a, b)| {
            diff | (u64::from_ne_bytes(a.try_into().unwrap_or_default())
                ^ u64::from_ne_bytes(b.try_into().unwrap_or_default()))
        })
        == 0
}

/// Writes the first `c.len` of `bytes` over chunk `c` in memory.
fn write(c: &Chunk, bytes: &[u8; CHUNK]) {
    // SAFETY: `Images::new`'s contract: the chunk lies in ranges that stay
    // mapped and writable, and no one else accesses them meanwhile; `bytes`
    // is not in them (it is a version kept here).
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), c.addr as *mut u8, c.len) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::RngSeed;

    /// Two disjoint ranges in one buffer (lengths not multiples of a
    /// chunk), with a gap that must never be written.
    fn layout(buf: &mut [u8]) -> Vec<(usize, usize)> {
        let base = buf.as_mut_ptr() as usize;
        vec![(base + 3, base + 150), (base + 200, base + 333)]
    }

    #[derive(Debug, Clone, Copy)]
    enum Step {
        /// Rank `r` runs and writes `value` at byte `at` of the ranges.
        Write { rank: usize, at: usize, value: u8 },
        /// Rank `r` runs and checks what it sees.
        Look { rank: usize },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0..5usize, 0..280usize, 0..3u8).prop_map(|(rank, at, value)| Step::Write {
                rank,
                at,
                value
            }),
            (0..5usize).prop_map(|rank| Step::Look { rank }),
        ]
    }

    /// The address of byte `at` of the concatenated ranges.
    fn address(ranges: &[(usize, usize)], mut at: usize) -> usize {
        for &(a, b) in ranges {
            if at < b - a {
                return a + at;
            }
            at -= b - a;
        }
        unreachable!("inside the ranges")
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            rng_seed: RngSeed::Fixed(0x5eed),
            ..ProptestConfig::with_cases(1000)
        })]

        /// Every rank sees exactly what it wrote over the load-time
        /// contents, whatever the order of switches, and the gap between
        /// the ranges is never touched.
        #[test]
        fn every_rank_sees_its_own_writes(steps in proptest::collection::vec(step(), 1..200)) {
            let mut buf: Vec<u8> = (0..400).map(|i| (i * 7 % 251) as u8).collect();
            let gap_before = buf[150..200].to_vec();
            let ranges = layout(&mut buf);
            let total: usize = ranges.iter().map(|(a, b)| b - a).sum();
            let start: Vec<u8> = (0..total)
                // SAFETY: inside `buf`, which outlives the images.
                .map(|i| unsafe { *(address(&ranges, i) as *const u8) })
                .collect();
            // SAFETY: the ranges lie in `buf`, which outlives the images and
            // is accessed below only between their calls.
            let mut images = unsafe { Images::new(&ranges) };
            let mut model = vec![start.clone(); 5];
            for s in steps {
                match s {
                    Step::Write { rank, at, value } => {
                        let at = at % total;
                        images.activate(rank);
                        // SAFETY: as above.
                        unsafe { *(address(&ranges, at) as *mut u8) = value };
                        model[rank][at] = value;
                    }
                    Step::Look { rank } => {
                        images.activate(rank);
                        let seen: Vec<u8> = (0..total)
                            // SAFETY: as above.
                            .map(|i| unsafe { *(address(&ranges, i) as *const u8) })
                            .collect();
                        prop_assert_eq!(&seen, &model[rank]);
                    }
                }
                prop_assert_eq!(images.owner(), Some(match s {
                    Step::Write { rank, .. } | Step::Look { rank } => rank,
                }));
            }
            check_counts(&images);
            drop(images);
            prop_assert_eq!(&buf[150..200], &gap_before[..]);
        }
    }

    /// Each version's count is the number of ranks that have it, and a
    /// freed version is had by no rank.
    fn check_counts(images: &Images) {
        let n = images.chunks.len();
        for (i, versions) in images.versions.iter().enumerate() {
            for (v, &ranks) in versions.ranks.iter().enumerate().skip(1) {
                let having = images
                    .of_rank
                    .iter()
                    .skip(i)
                    .step_by(n)
                    .filter(|&&w| w as usize == v)
                    .count();
                if versions.free.contains(&(v as u32)) {
                    assert_eq!(having, 0, "chunk {i} version {v} is free but had");
                } else {
                    assert_eq!(ranks as usize, having, "chunk {i} version {v}");
                }
            }
        }
    }

    #[test]
    fn ranks_that_change_nothing_keep_nothing() {
        let mut buf = vec![1u8; 400];
        let ranges = layout(&mut buf);
        // SAFETY: the ranges lie in `buf`, which outlives the images.
        let mut images = unsafe { Images::new(&ranges) };
        for rank in 0..100 {
            images.activate(rank);
        }
        images.activate(0);
        assert_eq!(images.kept_versions(), 0);
        // One byte written by rank 0 costs one version of one chunk.
        // SAFETY: as above.
        unsafe { *((ranges[1].0 + 5) as *mut u8) = 9 };
        images.activate(1);
        assert_eq!(images.kept_versions(), 1);
        images.activate(0);
        // SAFETY: as above.
        assert_eq!(unsafe { *((ranges[1].0 + 5) as *const u8) }, 9);
        check_counts(&images);
    }

    #[test]
    fn ranks_that_write_alike_share_a_version() {
        let mut buf = vec![1u8; 400];
        let ranges = layout(&mut buf);
        // SAFETY: the ranges lie in `buf`, which outlives the images.
        let mut images = unsafe { Images::new(&ranges) };
        for rank in 0..50 {
            images.activate(rank);
            // SAFETY: as above.
            unsafe { *((ranges[0].0 + 70) as *mut u8) = 5 };
        }
        images.activate(0);
        assert_eq!(images.kept_versions(), 1);
        check_counts(&images);
        // One rank writing another value takes a version of its own, and
        // writing again overwrites it.
        // SAFETY: as above.
        unsafe { *((ranges[0].0 + 70) as *mut u8) = 6 };
        images.activate(1);
        assert_eq!(images.kept_versions(), 2);
        images.activate(0);
        // SAFETY: as above.
        unsafe { *((ranges[0].0 + 70) as *mut u8) = 7 };
        images.activate(1);
        assert_eq!(images.kept_versions(), 2);
        // Back to the load-time byte: version 0 again, its own one freed.
        images.activate(0);
        // SAFETY: as above.
        unsafe { *((ranges[0].0 + 70) as *mut u8) = 1 };
        images.activate(1);
        assert_eq!(images.kept_versions(), 1);
        for (rank, value) in [(0, 1), (1, 5), (49, 5), (50, 1)] {
            images.activate(rank);
            // SAFETY: as above.
            assert_eq!(unsafe { *((ranges[0].0 + 70) as *const u8) }, value);
        }
        check_counts(&images);
    }
}

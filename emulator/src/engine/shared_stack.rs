//! One stack for all ranks (`contexts/stack-mode:copy`): the ranks take
//! turns on it, and a rank's frames are copied out to a compact image
//! when another rank needs the stack, and back before it runs again.
//!
//! Why: a stack of its own per rank costs two memory mappings (the stack
//! and its guard zone), and Linux allows 65,530 by default
//! (`vm.max_map_count`), so guard stacks stop at about 32,000 ranks; and
//! each costs whole pages of memory (two for most programs: the frames of
//! `MPI_Init` reach past the first). An image costs only the bytes the
//! rank's frames use when it is suspended (one to three KiB), less what it
//! shares with other ranks' (see [`image`]: a few hundred bytes), and the
//! shared stack is one mapping above one real guard zone, so an overflow
//! is caught exactly as with guard stacks.
//!
//! The price: a switch copies the frames of the rank that leaves and of
//! the rank that comes (eviction is lazy: a rank that runs again before
//! another one needs the stack copies nothing), and a rank's stack is at
//! the same addresses as every other rank's. Code that touches a rank's
//! memory while another rank runs (a message delivered into a receive
//! buffer on the receiver's stack, a one-sided operation on a window
//! there) puts that rank's frames in place first, as it puts its globals
//! in place under swap privatization (`Memory::activate`), and puts the
//! running rank's back after; the threads of a rank (its other actors) run
//! with their rank's frames in place. What no runtime can fix: a pointer
//! into a rank's stack handed to code that runs while another rank is in
//! place (an OS thread of the program's own, an OpenMP worker while its
//! master waits in MPI).
//!
//! The live frames of the rank in place are bounded by the lowest address
//! noted when code last left the shared stack (`context::note_leaving`,
//! at every suspend and every call on the maestro's stack).

use std::cell::{Cell, RefCell};

use corosensei::stack::Stack;
use rustc_hash::FxHashMap;

use super::context::{self, CoStack, RankStack};

/// The room a coroutine made on the shared stack takes before its first
/// run: corosensei's first frame and the closure it writes at the top.
pub const CLAIM_RESERVE: usize = 4096;

/// An image keeps at most this much spare capacity (a rank that once
/// suspended deep in a call keeps no large buffer afterwards).
const SPARE: usize = 256;

/// The most frame lengths that get reference images (see [`References`]);
/// images of other lengths are stored against zeros.
const MAX_LENGTHS: usize = 256;

/// The most reference images per frame length.
const REFERENCES_PER_LENGTH: usize = 4;

/// The stack all ranks share, and the frames of those not in place.
pub struct SharedStack {
    stack: RankStack,
    top: usize,
    limit: usize,
    /// By rank: the frames of a rank made on the stack, from its lowest
    /// live address to the top (stale for the rank in place), or `None`
    /// for ranks not made yet or ended; each encoded against one of the
    /// references (see [`image`]).
    images: RefCell<Vec<Option<Vec<u8>>>>,
    references: RefCell<References>,
    /// Where an image's map of differing words is made, and the image
    /// encoded, before it is copied to its rank's.
    scratch: RefCell<(Vec<u8>, Vec<u8>)>,
    /// The rank whose frames are on the stack.
    resident: Cell<Option<usize>>,
}

impl SharedStack {
    /// A shared stack of `bytes` (at least 64 KiB, whole pages) above a
    /// guard zone, for `ranks` ranks.
    pub fn new(bytes: usize, ranks: usize) -> std::io::Result<Self> {
        let stack = RankStack::new(bytes)?;
        let (top, limit) = (stack.base().get(), stack.limit().get());
        context::set_shared_range(limit, top);
        Ok(Self {
            stack,
            top,
            limit,
            images: RefCell::new(vec![None; ranks]),
            references: RefCell::default(),
            scratch: RefCell::default(),
            resident: Cell::new(None),
        })
    }

    /// Whether `[addr, addr + len)` overlaps the shared stack: memory
    /// whose owner is whichever rank is in place.
    pub fn contains(&self, addr: usize, len: usize) -> bool {
        let end = addr.saturating_add(len.max(1));
        addr < self.top && end > self.limit
    }

    /// The rank whose frames are on the stack.
    pub fn resident(&self) -> Option<usize> {
        self.resident.get()
    }

    /// The stack for rank `rank`'s coroutine, about to be made: the rank
    /// in place is copied out, and `rank` is in place from now on.
    pub fn claim(&self, rank: usize) -> CoStack {
        self.evict();
        {
            let mut images = self.images.borrow_mut();
            if images.len() <= rank {
                images.resize(rank + 1, None);
            }
            images[rank] = Some(Vec::new());
        }
        self.resident.set(Some(rank));
        context::set_shared_low(self.top - CLAIM_RESERVE);
        CoStack::Shared {
            top: self.top,
            limit: self.limit,
            guard: self.stack.guard(),
        }
    }

    /// Puts `rank`'s frames on the stack (nothing to do if they are there,
    /// or if `rank` has none: not made yet, or ended).
    pub fn make_resident(&self, rank: usize) {
        if self.resident.get() == Some(rank) {
            return;
        }
        if !self.images.borrow().get(rank).is_some_and(Option::is_some) {
            return;
        }
        self.evict();
        let images = self.images.borrow();
        let Some(Some(image)) = images.get(rank) else {
            return;
        };
        let len = image::frames_len(image);
        let low = self.top - len;
        debug_assert!(!on_stack(low, self.top), "restoring the stack that runs");
        // SAFETY: [low, top) lies in the shared stack's mapping (an image
        // is at most the stack's size), which no running code uses: every
        // caller runs on the maestro's stack (the only door to the
        // simulation, `sim::with`, moves there) or on an actor's own.
        let frames = unsafe { std::slice::from_raw_parts_mut(low as *mut u8, len) };
        let references = self.references.borrow();
        image::decode(image, references.get(len, image::reference(image)), frames);
        context::set_shared_low(low);
        self.resident.set(Some(rank));
    }

    /// Forgets the frames of `rank`, which ended.
    pub fn forget(&self, rank: usize) {
        if let Some(image) = self.images.borrow_mut().get_mut(rank) {
            *image = None;
        }
        if self.resident.get() == Some(rank) {
            self.resident.set(None);
        }
    }

    /// Copies the frames of the rank in place out to its image.
    fn evict(&self) {
        let Some(rank) = self.resident.take() else {
            return;
        };
        let low = context::shared_low().clamp(self.limit, self.top);
        debug_assert!(!on_stack(low, self.top), "saving the stack that runs");
        let mut images = self.images.borrow_mut();
        let Some(Some(image)) = images.get_mut(rank) else {
            return;
        };
        // SAFETY: [low, top) lies in the shared stack's mapping, which is
        // readable and which no running code changes (as in
        // `make_resident`).
        let frames = unsafe { std::slice::from_raw_parts(low as *const u8, self.top - low) };
        let hint = if image::frames_len(image) == frames.len() {
            image::reference(image)
        } else {
            None
        };
        let (map, encoded) = &mut *self.scratch.borrow_mut();
        let mut references = self.references.borrow_mut();
        let index = references.choose(frames, hint, map);
        let reference = index.zip(references.get(frames.len(), index));
        image::encode(frames, reference, map, encoded);
        if image.capacity() < encoded.len() || image.capacity() > encoded.len() + SPARE {
            *image = Vec::with_capacity(encoded.len());
        } else {
            image.clear();
        }
        image.extend_from_slice(encoded);
    }

    /// The bytes the images hold, all ranks together.
    #[cfg(test)]
    fn image_bytes(&self) -> usize {
        self.images
            .borrow()
            .iter()
            .flatten()
            .map(Vec::capacity)
            .sum()
    }
}

impl Drop for SharedStack {
    fn drop(&mut self) {
        context::set_shared_range(0, 0);
    }
}

/// Frames copied out that images are encoded against: by frame length, up
/// to [`REFERENCES_PER_LENGTH`] frames of that length, which never change
/// once made. Ranks suspended at the same call have frames of the same
/// length that differ in a few dozen of their words (pointers to their own
/// data, their own values): measured at 131,072 ranks in one allreduce,
/// 1,845 B of frames differ from another rank's in 25 to 54 of 230 words;
/// but the root's differ from the others' in a third of them, so a length
/// gets more than one reference when the ones it has are far.
#[derive(Default)]
struct References {
    by_length: FxHashMap<usize, Vec<Box<[u8]>>>,
}

impl References {
    /// The reference to encode `frames` against (made from them if none is
    /// close), or `None` for frames of a length beyond [`MAX_LENGTHS`],
    /// with the map of the words that differ from it left in `map` (see
    /// [`image::diff_map`]). `hint`, the reference of the rank's last frames
    /// of that length, is tried first: a rank suspended again at the same
    /// call is close to it.
    fn choose(&mut self, frames: &[u8], hint: Option<u8>, map: &mut Vec<u8>) -> Option<u8> {
        if !self.by_length.contains_key(&frames.len()) && self.by_length.len() >= MAX_LENGTHS {
            image::diff_map(frames, None, map);
            return None;
        }
        let references = self.by_length.entry(frames.len()).or_default();
        // Close: differing in at most a quarter of the words (ranks at the
        // same call differ in about a fifth, the root in a third).
        let close = frames.len() / image::WORD / 4;
        if let Some(reference) = hint.and_then(|h| references.get(usize::from(h))) {
            if image::diff_map(frames, Some(reference), map) <= close {
                return hint;
            }
        }
        let mut best: Option<(usize, usize)> = None;
        // Newest first: the ranks after a far one tend to be like it.
        for (index, reference) in references.iter().enumerate().rev() {
            let differing = image::diff_map(frames, Some(reference), map);
            if differing <= close {
                return Some(index as u8);
            }
            if best.is_none_or(|(d, _)| differing < d) {
                best = Some((differing, index));
            }
        }
        let chosen = if references.len() < REFERENCES_PER_LENGTH {
            references.push(frames.into());
            references.len() - 1
        } else {
            best?.1
        };
        image::diff_map(frames, Some(&references[chosen]), map);
        Some(chosen as u8)
    }

    /// Reference `index` of frames of `len` bytes.
    fn get(&self, len: usize, index: Option<u8>) -> Option<&[u8]> {
        Some(&self.by_length.get(&len)?[usize::from(index?)])
    }
}

/// How an image stores a rank's frames: as their difference from a
/// reference of the same length (see [`References`]), or from zeros
/// without one (61% of the bytes of the frames above are zero).
///
/// Layout: the frames' length (u32, little endian); the reference's index
/// among those of that length ([`NONE`] without one); a bitmap of the
/// frames' whole 8-byte words, bit set where the word differs from the
/// reference's (from zero); for each of those words in order, a bitmap of
/// its bytes that differ and those bytes (pointers to a rank's own data
/// differ from another rank's in their low two or three bytes); the last
/// `len % 8` bytes as they are. An empty image holds no frames.
mod image {
    pub(super) const WORD: usize = 8;
    const HEADER: usize = 5;
    /// The reference index of an image encoded against zeros.
    const NONE: u8 = u8::MAX;

    /// The length of the frames `image` holds.
    pub(super) fn frames_len(image: &[u8]) -> usize {
        image
            .first_chunk::<4>()
            .map_or(0, |h| u32::from_le_bytes(*h) as usize)
    }

    /// The index of the reference `image` was encoded against.
    pub(super) fn reference(image: &[u8]) -> Option<u8> {
        image.get(4).copied().filter(|&r| r != NONE)
    }

    /// Fills `map` with the bitmap of the whole words of `frames` that
    /// differ from `reference`'s (of the same length; zeros without one),
    /// and says how many do.
    pub(super) fn diff_map(frames: &[u8], reference: Option<&[u8]>, map: &mut Vec<u8>) -> usize {
        let whole = frames.len() / WORD * WORD;
        map.clear();
        map.resize(whole.div_ceil(8 * WORD), 0);
        let zeros = [0; 8 * WORD];
        for (i, group) in frames[..whole].chunks(8 * WORD).enumerate() {
            let base = reference.map_or(&zeros[..], |r| &r[i * 8 * WORD..]);
            // Branch-free, in groups of eight words: the compiler
            // vectorises it.
            map[i] = group
                .chunks_exact(WORD)
                .zip(base.chunks_exact(WORD))
                .enumerate()
                .fold(0, |bits, (j, (a, b))| {
                    bits | (u8::from(load(a) != load(b)) << j)
                });
        }
        map.iter().map(|b| b.count_ones() as usize).sum()
    }

    /// Writes `frames` to `out` as their difference from `reference` (its
    /// index and frames; `None`: zeros), `map` being [`diff_map`]'s
    /// against it.
    pub(super) fn encode(
        frames: &[u8],
        reference: Option<(u8, &[u8])>,
        map: &[u8],
        out: &mut Vec<u8>,
    ) {
        let len = u32::try_from(frames.len()).expect("a stack's frames fit 4 GiB");
        let whole = frames.len() / WORD * WORD;
        out.clear();
        out.extend_from_slice(&len.to_le_bytes());
        out.push(reference.map_or(NONE, |(index, _)| index));
        out.extend_from_slice(map);
        for i in set_bits(map) {
            let word = &frames[i * WORD..(i + 1) * WORD];
            let was = reference.map_or(0, |(_, r)| load(&r[i * WORD..(i + 1) * WORD]));
            let bytes = nonzero_bytes(load(word) ^ was);
            out.push(bytes);
            out.extend(set_bits(&[bytes]).map(|j| word[j]));
        }
        out.extend_from_slice(&frames[whole..]);
    }

    /// The bitmap of the bytes of `x` that are not zero, bit `j` for byte
    /// `j` in memory order (little endian: bits `8j..8j + 8`), without a
    /// loop: the high bit of each byte is set where the byte is not zero,
    /// then the eight high bits are gathered into the top byte by a
    /// multiplication.
    pub(super) fn nonzero_bytes(x: u64) -> u8 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let high = (((x & LOW7) + LOW7) | x) & HIGH;
        ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
    }

    /// The positions of the bits set in `bitmap`, in order.
    fn set_bits(bitmap: &[u8]) -> impl Iterator<Item = usize> + '_ {
        bitmap.iter().enumerate().flat_map(|(index, &byte)| {
            std::iter::successors(Some(byte).filter(|&b| b != 0), |&b| {
                Some(b & (b - 1)).filter(|&b| b != 0)
            })
            .map(move |b| index * 8 + b.trailing_zeros() as usize)
        })
    }

    fn load(word: &[u8]) -> u64 {
        u64::from_ne_bytes(word.try_into().expect("a whole word"))
    }

    /// Writes the frames `image` holds to `frames`, of their length, with
    /// the `reference` it was encoded against.
    pub(super) fn decode(image: &[u8], reference: Option<&[u8]>, frames: &mut [u8]) {
        debug_assert_eq!(frames.len(), frames_len(image));
        match reference {
            Some(r) => frames.copy_from_slice(r),
            None => frames.fill(0),
        }
        let words = frames.len() / WORD;
        let Some(body) = image.get(HEADER..) else {
            return;
        };
        let (map, mut stored) = body.split_at(words.div_ceil(8));
        for i in set_bits(map) {
            let (&bytes, rest) = stored.split_first().expect("a changed word's byte map");
            let count = bytes.count_ones() as usize;
            for (j, &byte) in set_bits(&[bytes]).zip(&rest[..count]) {
                frames[i * WORD + j] = byte;
            }
            stored = &rest[count..];
        }
        frames[words * WORD..].copy_from_slice(stored);
    }
}

/// Whether the code running now runs on `[lo, hi)`.
fn on_stack(lo: usize, hi: usize) -> bool {
    (lo..hi).contains(&context::here())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::context::{off_rank_stack, resume, spawn, suspend, Suspend};

    /// Three ranks take turns on one stack; each keeps locals across its
    /// suspensions, and each reads and writes a buffer on its own frames
    /// that the others' runs overwrite on the stack.
    #[test]
    fn ranks_keep_their_frames_across_turns() {
        let shared = SharedStack::new(256 * 1024, 3).unwrap();
        let mut cos = Vec::new();
        for rank in 0..3usize {
            let stack = shared.claim(rank);
            let guard = stack.guard();
            let co = spawn(stack, move || {
                let mut buf = [rank as u64; 64];
                for round in 0..5u64 {
                    for (i, b) in buf.iter_mut().enumerate() {
                        *b = std::hint::black_box(*b + i as u64 + round);
                    }
                    suspend(Suspend::Park);
                }
                (buf.iter().sum::<u64>() % 1000) as i32
            });
            cos.push((co, guard));
        }
        let mut codes = vec![None; 3];
        for _ in 0..6 {
            for (rank, (co, guard)) in cos.iter_mut().enumerate() {
                if codes[rank].is_some() {
                    continue;
                }
                shared.make_resident(rank);
                if let Suspend::Exit(code) = resume(co, rank, *guard) {
                    codes[rank] = Some(code);
                    shared.forget(rank);
                }
            }
        }
        let expected = |rank: u64| {
            let mut buf = [rank; 64];
            for round in 0..5u64 {
                for (i, b) in buf.iter_mut().enumerate() {
                    *b += i as u64 + round;
                }
            }
            Some((buf.iter().sum::<u64>() % 1000) as i32)
        };
        assert_eq!(codes, vec![expected(0), expected(1), expected(2)]);
        assert_eq!(shared.image_bytes(), 0, "ended ranks keep no image");
    }

    /// `frames` encoded against `reference` (its index and frames).
    fn encode_against(frames: &[u8], reference: Option<(u8, &[u8])>) -> Vec<u8> {
        let mut map = Vec::new();
        let differing = image::diff_map(frames, reference.map(|(_, r)| r), &mut map);
        let counted = map.iter().map(|b| b.count_ones() as usize).sum::<usize>();
        assert_eq!(differing, counted);
        let mut encoded = Vec::new();
        image::encode(frames, reference, &map, &mut encoded);
        encoded
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
            ..proptest::test_runner::Config::default()
        })]

        /// The bitmap of non-zero bytes is the one a loop over the bytes
        /// gives.
        #[test]
        fn nonzero_bytes_are_found(bytes in proptest::array::uniform8(
            proptest::prop_oneof![proptest::strategy::Just(0u8), proptest::num::u8::ANY]
        )) {
            let expected = (0..8).fold(0u8, |m, j| m | (u8::from(bytes[j] != 0) << j));
            proptest::prop_assert_eq!(image::nonzero_bytes(u64::from_ne_bytes(bytes)), expected);
        }

        /// An image gives back the frames it was made from, with or without
        /// a reference, whatever their length.
        #[test]
        fn images_give_back_their_frames(
            frames in proptest::collection::vec(
                proptest::prop_oneof![3 => proptest::strategy::Just(0u8), 1 => proptest::num::u8::ANY],
                0..600,
            ),
            changes in proptest::collection::vec((0usize..600, proptest::num::u8::ANY), 0..40),
            with_reference in proptest::bool::ANY,
        ) {
            let mut reference: Box<[u8]> = frames.clone().into();
            for &(at, byte) in &changes {
                if let Some(b) = reference.get_mut(at) {
                    *b = byte;
                }
            }
            let reference = with_reference.then_some((2, &reference[..]));
            let encoded = encode_against(&frames, reference);
            proptest::prop_assert_eq!(image::frames_len(&encoded), frames.len());
            proptest::prop_assert_eq!(image::reference(&encoded), reference.map(|(i, _)| i));
            let mut back = vec![0xa5; frames.len()];
            image::decode(&encoded, reference.map(|(_, r)| r), &mut back);
            proptest::prop_assert_eq!(back, frames);
        }
    }

    /// Frames that differ from their reference in a few words take a few
    /// words; without a reference, their zero words take nothing.
    #[test]
    fn images_keep_only_what_differs() {
        let mut reference = vec![0u8; 2000];
        for (i, b) in reference.iter_mut().enumerate().step_by(3) {
            *b = i as u8 | 1;
        }
        let mut frames = reference.clone();
        frames[100] ^= 0xff;
        frames[1999] ^= 0xff;
        let encoded = encode_against(&frames, Some((0, &reference)));
        assert_eq!(
            encoded.len(),
            5 + 32 + 2 * (1 + 1),
            "header, bitmap, two words of one byte each"
        );
        let mut zeros = vec![0u8; 2003];
        zeros[8..16].copy_from_slice(&[1; 8]);
        zeros[2001] = 7;
        let encoded = encode_against(&zeros, None);
        assert_eq!(
            encoded.len(),
            5 + 32 + 1 + 8 + 3,
            "header, bitmap, one word of eight bytes, tail"
        );
    }

    /// Frames get the newest close reference of their length; far ones
    /// become a reference while their length has room for one, and take
    /// the closest after; a length past the limit gets none.
    #[test]
    fn references_are_close_or_new() {
        let mut references = References::default();
        let mut map = Vec::new();
        let frames = |fill: u8, changed: usize| {
            let mut f = vec![fill; 800];
            f[..changed * 8].fill(fill.wrapping_add(1));
            f
        };
        assert_eq!(
            references.choose(&frames(1, 0), None, &mut map),
            Some(0),
            "the first is new"
        );
        assert_eq!(
            references.choose(&frames(1, 25), None, &mut map),
            Some(0),
            "25 of 100 words: close"
        );
        assert_eq!(
            references.choose(&frames(1, 26), None, &mut map),
            Some(1),
            "26 words: far, new"
        );
        assert_eq!(
            references.choose(&frames(1, 27), None, &mut map),
            Some(1),
            "the newest close one"
        );
        assert_eq!(references.choose(&frames(5, 0), None, &mut map), Some(2));
        assert_eq!(references.choose(&frames(7, 0), None, &mut map), Some(3));
        assert_eq!(
            references.choose(&frames(1, 90), None, &mut map),
            Some(1),
            "no room: the closest"
        );
        let differing: u32 = map.iter().map(|b| b.count_ones()).sum();
        assert_eq!(differing, 90 - 26, "the map is the chosen reference's");
        assert_eq!(references.get(800, Some(1)), Some(&frames(1, 26)[..]));
        assert_eq!(
            references.choose(&frames(5, 1), Some(2), &mut map),
            Some(2),
            "the hint first"
        );
        assert_eq!(
            references.choose(&frames(1, 0), Some(2), &mut map),
            Some(0),
            "a far hint is passed"
        );
        for len in 1..MAX_LENGTHS {
            assert!(references.choose(&vec![0; len], None, &mut map).is_some());
        }
        assert_eq!(
            references.choose(&[0; 900], None, &mut map),
            None,
            "too many lengths"
        );
    }

    /// The lowest byte of `[lo, hi)` that is not `pattern`.
    fn lowest_written(lo: usize, hi: usize, pattern: u8) -> usize {
        (lo..hi)
            // SAFETY: test code: [lo, hi) is the shared stack, readable.
            .find(|&a| unsafe { *(a as *const u8) } != pattern)
            .unwrap_or(hi)
    }

    /// The frames below the noted low address are never live: after a
    /// suspend, and during a call on the maestro's stack, every byte below
    /// it still holds the pattern the stack was filled with.
    #[test]
    fn the_noted_low_bounds_the_live_frames() {
        let shared = SharedStack::new(256 * 1024, 1).unwrap();
        let (lo, hi) = (shared.limit, shared.top);
        const PATTERN: u8 = 0xa5;
        // SAFETY: test code: nothing runs on the shared stack yet.
        unsafe { std::ptr::write_bytes(lo as *mut u8, PATTERN, hi - lo) };
        let stack = shared.claim(0);
        let guard = stack.guard();
        let seen = std::rc::Rc::new(Cell::new((0, 0)));
        let seen_inside = std::rc::Rc::clone(&seen);
        let mut co = spawn(stack, move || {
            off_rank_stack(|| {
                seen_inside.set((context::shared_low(), lowest_written(lo, hi, PATTERN)));
            });
            suspend(Suspend::Park);
            0
        });
        assert_eq!(resume(&mut co, 0, guard), Suspend::Park);
        let (low, written) = seen.get();
        assert!(
            written >= low,
            "a call on the maestro's stack left frames at {written:#x}, below the noted {low:#x}"
        );
        let (low, written) = (context::shared_low(), lowest_written(lo, hi, PATTERN));
        assert!(
            written >= low,
            "a suspend left frames at {written:#x}, below the noted {low:#x}"
        );
        assert!(
            hi - low < 16 * 1024,
            "the image stays small: {} B",
            hi - low
        );
        shared.make_resident(0);
        assert_eq!(resume(&mut co, 0, guard), Suspend::Exit(0));
    }
}

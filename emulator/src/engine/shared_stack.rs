//! One stack for all ranks (`contexts/stack-mode:copy`): the ranks take
//! turns on it, and a rank's frames are copied out to a compact image
//! when another rank needs the stack, and back before it runs again.
//!
//! Why: a stack of its own per rank costs two memory mappings (the stack
//! and its guard zone), and Linux allows 65,530 by default
//! (`vm.max_map_count`), so guard stacks stop at about 32,000 ranks; and
//! each costs whole pages of memory (two for most programs: the frames of
//! `MPI_Init` reach past the first). An image costs only the bytes the
//! rank's frames use when it is suspended (one to three KiB), and the
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

use super::context::{self, CoStack, RankStack};

/// The room a coroutine made on the shared stack takes before its first
/// run: corosensei's first frame and the closure it writes at the top.
pub const CLAIM_RESERVE: usize = 4096;

/// An image keeps at most this much spare capacity (a rank that once
/// suspended deep in a call keeps no large buffer afterwards).
const SPARE: usize = 4096;

/// The stack all ranks share, and the frames of those not in place.
pub struct SharedStack {
    stack: RankStack,
    top: usize,
    limit: usize,
    /// By rank: the frames of a rank made on the stack, from its lowest
    /// live address to the top (stale for the rank in place), or `None`
    /// for ranks not made yet or ended.
    images: RefCell<Vec<Option<Vec<u8>>>>,
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
        let low = self.top - image.len();
        debug_assert!(!on_stack(low, self.top), "restoring the stack that runs");
        // SAFETY: [low, top) lies in the shared stack's mapping (an image
        // is at most the stack's size), which no running code uses: every
        // caller runs on the maestro's stack (the only door to the
        // simulation, `sim::with`, moves there) or on an actor's own.
        unsafe { std::ptr::copy_nonoverlapping(image.as_ptr(), low as *mut u8, image.len()) };
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
        image.clear();
        // SAFETY: [low, top) lies in the shared stack's mapping, which is
        // readable and which no running code changes (as in
        // `make_resident`).
        image.extend_from_slice(unsafe {
            std::slice::from_raw_parts(low as *const u8, self.top - low)
        });
        if image.capacity() > image.len() + SPARE {
            image.shrink_to_fit();
        }
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

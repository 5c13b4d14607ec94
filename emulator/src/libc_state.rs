//! libc's hidden state, one copy per rank: the generators of `rand` and
//! `random` and of the `drand48` family, `strtok`'s position, and the
//! result buffers of `localtime`, `gmtime`, `asctime` and `ctime`. glibc
//! keeps one of each for the whole process, which the ranks would share:
//! every rank would draw from one interleaved stream. smpirun interposes
//! these functions (`abi::interpose`) and runs them on the calling rank's
//! copy, which starts as a fresh process's does, so that each rank prints
//! what it would print as a process of its own.
//!
//! The generators are glibc's own algorithms (`random_r.c`, `drand48-iter.c`):
//! the same seeds give the same numbers as a native run.

use rustc_hash::FxHashMap;

/// glibc's `random` generator of type 3 (additive feedback over 31 words,
/// separation 3), which `rand` also draws from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Random {
    state: [u32; 31],
    front: usize,
    rear: usize,
}

impl Random {
    /// The generator as `srandom(seed)` leaves it (0 is taken as 1).
    pub fn seeded(seed: u32) -> Random {
        let mut state = [0u32; 31];
        // glibc keeps the seed in an int32_t.
        let mut word = if seed == 0 { 1 } else { seed as i32 };
        state[0] = word as u32;
        for slot in state.iter_mut().skip(1) {
            // 16807 * word % (2^31 - 1), without overflowing 31 bits.
            let (hi, lo) = (i64::from(word) / 127773, i64::from(word) % 127773);
            let mut next = 16807 * lo - 2836 * hi;
            if next < 0 {
                next += 2147483647;
            }
            word = next as i32;
            *slot = word as u32;
        }
        let mut g = Random {
            state,
            front: 3,
            rear: 0,
        };
        for _ in 0..310 {
            g.draw();
        }
        g
    }

    /// The next number, in 0..2^31.
    pub fn draw(&mut self) -> i32 {
        let sum = self.state[self.front].wrapping_add(self.state[self.rear]);
        self.state[self.front] = sum;
        self.front = (self.front + 1) % 31;
        self.rear = (self.rear + 1) % 31;
        (sum >> 1) as i32
    }
}

impl Default for Random {
    /// A fresh process's generator: as seeded with 1.
    fn default() -> Random {
        Random::seeded(1)
    }
}

/// glibc's `drand48` family generator: 48-bit linear congruential,
/// x' = a x + c mod 2^48; a fresh process's state is x = 0 with the
/// standard a and c (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drand48 {
    x: u64,
    a: u64,
    c: u64,
}

impl Default for Drand48 {
    fn default() -> Drand48 {
        Drand48 {
            x: 0,
            a: Self::A,
            c: Self::C,
        }
    }
}

/// Three 16-bit words, least significant first (the drand48 family's
/// `unsigned short[3]`), as one 48-bit number.
pub fn words_to_u48(w: [u16; 3]) -> u64 {
    u64::from(w[0]) | (u64::from(w[1]) << 16) | (u64::from(w[2]) << 32)
}

/// A 48-bit number as three 16-bit words, least significant first.
pub fn u48_to_words(x: u64) -> [u16; 3] {
    [x as u16, (x >> 16) as u16, (x >> 32) as u16]
}

impl Drand48 {
    const A: u64 = 0x5_DEEC_E66D;
    const C: u64 = 0xB;
    const MASK: u64 = (1 << 48) - 1;

    /// As `srand48(seed)` leaves it: the low 32 bits of the seed above
    /// 0x330E, the standard a and c.
    pub fn seeded(seed: i64) -> Drand48 {
        Drand48 {
            x: ((seed as u64 & 0xffff_ffff) << 16) | 0x330E,
            ..Drand48::default()
        }
    }

    /// `seed48(words)`: x from the words, the standard a and c; returns
    /// the state it replaces.
    pub fn seed48(&mut self, words: [u16; 3]) -> [u16; 3] {
        let old = u48_to_words(self.x);
        *self = Drand48 {
            x: words_to_u48(words),
            ..Drand48::default()
        };
        old
    }

    /// `lcong48(param)`: x from param[0..3], a from param[3..6], c =
    /// param[6].
    pub fn lcong48(&mut self, param: [u16; 7]) {
        *self = Drand48 {
            x: words_to_u48([param[0], param[1], param[2]]),
            a: words_to_u48([param[3], param[4], param[5]]),
            c: u64::from(param[6]),
        };
    }

    /// One step from `x` with this generator's a and c (the `erand48`
    /// forms, which keep x in the caller's array, use the generator's a
    /// and c).
    pub fn step_from(&self, x: u64) -> u64 {
        self.a.wrapping_mul(x).wrapping_add(self.c) & Self::MASK
    }

    fn step(&mut self) -> u64 {
        self.x = self.step_from(self.x);
        self.x
    }

    /// `drand48`: uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        as_f64(self.step())
    }

    /// `lrand48`: uniform in [0, 2^31).
    pub fn next_nonnegative(&mut self) -> i64 {
        as_nonnegative(self.step())
    }

    /// `mrand48`: uniform in [-2^31, 2^31).
    pub fn next_signed(&mut self) -> i64 {
        as_signed(self.step())
    }
}

/// A 48-bit state as `drand48` returns it.
pub fn as_f64(x: u64) -> f64 {
    x as f64 / (1u64 << 48) as f64
}

/// A 48-bit state as `lrand48` returns it.
pub fn as_nonnegative(x: u64) -> i64 {
    (x >> 17) as i64
}

/// A 48-bit state as `mrand48` returns it.
pub fn as_signed(x: u64) -> i64 {
    i64::from((x >> 16) as u32 as i32)
}

/// The static result buffers of `localtime`, `gmtime` (one `struct tm`)
/// and `asctime`, `ctime` (26 bytes of text), which glibc shares between
/// calls as the C standard allows, one per rank.
pub struct TimeBuffers {
    tm: libc::tm,
    text: [std::ffi::c_char; 26],
}

impl TimeBuffers {
    /// Where `localtime` and `gmtime` write.
    pub fn tm_ptr(&mut self) -> *mut libc::tm {
        &mut self.tm
    }

    /// Where `asctime` and `ctime` write.
    pub fn text_ptr(&mut self) -> *mut std::ffi::c_char {
        self.text.as_mut_ptr()
    }
}

impl std::fmt::Debug for TimeBuffers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TimeBuffers")
    }
}

/// One rank's libc state.
#[derive(Debug, Default)]
pub struct RankLibc {
    /// The buffers of the time conversions, boxed: the program keeps
    /// pointers into them while the table of states grows.
    pub time: Option<Box<TimeBuffers>>,
    /// `rand`, `random` (created at first use: a fresh process's state).
    pub random: Option<Random>,
    /// The `drand48` family (a fresh process's state is all zeros).
    pub drand48: Drand48,
    /// What `seed48` returns (the state it replaced), boxed: the program
    /// keeps the pointer while the table of states grows.
    pub seed48_old: Option<Box<[u16; 3]>>,
    /// Where `strtok` goes on (an address in the program's string).
    pub strtok: usize,
}

impl RankLibc {
    /// The buffers of the time conversions (made at first use).
    pub fn time_buffers(&mut self) -> &mut TimeBuffers {
        self.time.get_or_insert_with(|| {
            Box::new(TimeBuffers {
                tm: libc::tm {
                    tm_sec: 0,
                    tm_min: 0,
                    tm_hour: 0,
                    tm_mday: 0,
                    tm_mon: 0,
                    tm_year: 0,
                    tm_wday: 0,
                    tm_yday: 0,
                    tm_isdst: 0,
                    tm_gmtoff: 0,
                    tm_zone: std::ptr::null(),
                },
                text: [0; 26],
            })
        })
    }
}

/// Every rank's (and actor's) libc state, made at its first use.
#[derive(Debug, Default)]
pub struct LibcStates {
    by_actor: FxHashMap<usize, RankLibc>,
}

impl LibcStates {
    /// The state of `actor`.
    pub fn of(&mut self, actor: usize) -> &mut RankLibc {
        self.by_actor.entry(actor).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drand48_matches_its_definition() {
        // srand48(0): x = 0x330E; then x = a x + c mod 2^48.
        let mut g = Drand48::seeded(0);
        let x1 = (0x5_DEEC_E66D_u64 * 0x330E + 0xB) & ((1 << 48) - 1);
        assert_eq!(g.next_nonnegative(), (x1 >> 17) as i64);
        // A fresh state starts from 0: the first draw is c / 2^48.
        assert_eq!(Drand48::default().next_f64(), 11.0 / (1u64 << 48) as f64);
    }

    #[test]
    fn seed48_and_lcong48_set_the_generator() {
        let mut g = Drand48::seeded(7);
        let before = g;
        let old = g.seed48([0x330E, 7, 0]);
        assert_eq!(old, u48_to_words(before.x));
        // srand48(7) is x = 7 << 16 | 0x330E: the same generator.
        assert_eq!(g, Drand48::seeded(7));
        g.lcong48([1, 0, 0, 2, 0, 0, 3]);
        assert_eq!(g.next_nonnegative(), as_nonnegative(5));
        assert_eq!(g.step_from(5), 13);
    }

    #[test]
    fn random_zero_seed_is_one() {
        assert_eq!(Random::seeded(0), Random::seeded(1));
        let mut g = Random::default();
        assert!((0..1000).map(|_| g.draw()).all(|v| v >= 0));
    }
}

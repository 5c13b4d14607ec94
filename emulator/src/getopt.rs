//! Each rank's `getopt` parse. glibc keeps its position in `optind`, one
//! for the whole process, which the ranks would share: rank 1 would start
//! where rank 0's parse ended and see no option. smpirun interposes
//! `getopt`, `getopt_long` and `getopt_long_only` (`abi::getopt`) and puts
//! the calling rank's position in `optind` around each call, as SimGrid's
//! do. glibc also keeps, out of reach, where it is inside a group of short
//! options (`-vn7`) and how it reorders the arguments: when a rank goes on
//! with its parse after another rank parsed, its calls so far are replayed
//! from the start (silently, on its own arguments), which rebuilds that
//! state exactly, as getopt is a function of the arguments.

/// The ranks' parses.
#[derive(Debug, Default)]
pub struct Optind {
    /// Each rank's `optind` after its last call, grown to the highest rank
    /// that called; 0 before its first, which makes glibc start afresh
    /// (forgetting where another rank's parse stopped inside an argument).
    ranks: Vec<i32>,
    /// Each rank's calls since its parse began.
    calls: Vec<u32>,
    /// What the last call left in `optind`: another value there means
    /// that the program wrote it (`optind = 1` to parse again), and the
    /// program's value is used.
    left: Option<i32>,
    /// The rank of the last call.
    last_rank: Option<usize>,
}

/// How a rank's call starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    /// The `optind` to call with.
    pub optind: i32,
    /// Calls to replay first, from `optind` 0 (glibc's full restart),
    /// without messages, to rebuild glibc's hidden state of this rank's
    /// parse; after them `optind` is back at [`Start::optind`].
    pub replay: u32,
    /// The rank starts a parse of its own at [`Start::optind`] (not 0)
    /// after another rank parsed: glibc's hidden state, which is the other
    /// rank's, must be cleared first.
    pub clear: bool,
}

impl Optind {
    /// How `rank`'s call starts, given the value of `optind` now.
    pub fn start(&mut self, rank: usize, current: i32) -> Start {
        if self.calls.len() <= rank {
            self.calls.resize(rank + 1, 0);
            self.ranks.resize(rank + 1, 0);
        }
        let optind = if self.calls[rank] > 0 || self.ranks[rank] != 0 {
            // The rank's own value (glibc's globals are swapped between
            // ranks): where its last call left it, or the program's.
            current
        } else {
            match self.left {
                // Another rank's leftover: start afresh.
                Some(left) if left == current => 0,
                // The program set it (or nobody called yet: its value is
                // the program's or glibc's start).
                _ => current,
            }
        };
        let continuing = optind != 0 && optind == self.ranks[rank];
        if !continuing {
            // A new parse (the rank's first, or the program's restart).
            self.calls[rank] = 0;
        }
        let after_another = self.last_rank.is_some_and(|r| r != rank);
        let replay = if continuing && after_another {
            self.calls[rank]
        } else {
            0
        };
        Start {
            optind,
            replay,
            clear: !continuing && optind != 0 && after_another,
        }
    }

    /// Records where `rank`'s call left `optind`.
    pub fn finish(&mut self, rank: usize, index: i32) {
        if self.ranks.len() <= rank {
            self.ranks.resize(rank + 1, 0);
            self.calls.resize(rank + 1, 0);
        }
        self.ranks[rank] = index;
        self.calls[rank] += 1;
        self.left = Some(index);
        self.last_rank = Some(rank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The optind a call starts from.
    fn at(o: &mut Optind, rank: usize, current: i32) -> i32 {
        o.start(rank, current).optind
    }

    #[test]
    fn each_rank_parses_from_its_own_position() {
        let mut o = Optind::default();
        // Rank 0 parses its three arguments.
        assert_eq!(at(&mut o, 0, 1), 1);
        o.finish(0, 2);
        assert_eq!(at(&mut o, 0, 2), 2);
        o.finish(0, 3);
        // Rank 1 starts afresh, not where rank 0 ended.
        assert_eq!(at(&mut o, 1, 3), 0);
        o.finish(1, 2);
        // Back to rank 0, which goes on from its own position (glibc's
        // globals are swapped between ranks: optind is its own again).
        assert_eq!(at(&mut o, 0, 3), 3);
        o.finish(0, 3);
        assert_eq!(at(&mut o, 7, 3), 0);
        assert_eq!(at(&mut o, 5, 3), 0);
    }

    #[test]
    fn a_value_the_program_writes_wins() {
        let mut o = Optind::default();
        // Before any call: the program's (or glibc's) value.
        assert_eq!(at(&mut o, 0, 0), 0);
        o.finish(0, 3);
        // optind = 1 (or 0, GNU's full restart) to parse again.
        assert_eq!(at(&mut o, 0, 1), 1);
        o.finish(0, 2);
        assert_eq!(at(&mut o, 0, 0), 0);
        o.finish(0, 2);
        assert_eq!(at(&mut o, 0, 2), 2);
    }

    #[test]
    fn a_rank_going_on_after_another_replays_its_calls() {
        let mut o = Optind::default();
        let fresh = |optind| Start {
            optind,
            replay: 0,
            clear: false,
        };
        assert_eq!(o.start(0, 1), fresh(1));
        o.finish(0, 1);
        // Inside a group (-vn7): optind has not moved.
        assert_eq!(o.start(0, 1), fresh(1));
        o.finish(0, 2);
        assert_eq!(o.start(1, 2).replay, 0);
        o.finish(1, 1);
        // Rank 0 again, after rank 1: its two calls are replayed.
        assert_eq!(
            o.start(0, 2),
            Start {
                optind: 2,
                replay: 2,
                clear: false
            }
        );
        o.finish(0, 3);
        // A restart by the program forgets them.
        assert_eq!(o.start(0, 1), fresh(1));
        o.finish(0, 2);
        // Rank 2 starts its parse after rank 0's: glibc's state is
        // cleared first.
        assert_eq!(
            o.start(2, 1),
            Start {
                optind: 1,
                replay: 0,
                clear: true
            }
        );
    }
}

//! Each rank's `getopt` position. glibc keeps it in `optind`, one for the
//! whole process, which the ranks would share: rank 1 would start where
//! rank 0's parse ended and see no option. smpicc's helper header sends
//! `getopt`, `getopt_long` and `getopt_long_only` to the simulator, which
//! puts the calling rank's position in `optind` around each call, as
//! SimGrid's do.

/// The ranks' positions.
#[derive(Debug, Default)]
pub struct Optind {
    /// Each rank's `optind` after its last call, grown to the highest rank
    /// that called; 0 before its first, which makes glibc start afresh
    /// (forgetting where another rank's parse stopped inside an argument).
    ranks: Vec<i32>,
    /// What the last call left in `optind`: another value there means
    /// that the program wrote it (`optind = 1` to parse again), and the
    /// program's value is used.
    left: Option<i32>,
}

impl Optind {
    /// The `optind` that `rank`'s call starts from, given its value now.
    pub fn start(&self, rank: usize, current: i32) -> i32 {
        match self.left {
            Some(left) if left == current => self.ranks.get(rank).copied().unwrap_or(0),
            // The program set it (or nobody called yet: its value is the
            // program's or glibc's start).
            _ => current,
        }
    }

    /// Records where `rank`'s call left `optind`.
    pub fn finish(&mut self, rank: usize, index: i32) {
        if self.ranks.len() <= rank {
            self.ranks.resize(rank + 1, 0);
        }
        self.ranks[rank] = index;
        self.left = Some(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rank_parses_from_its_own_position() {
        let mut o = Optind::default();
        // Rank 0 parses its three arguments.
        assert_eq!(o.start(0, 1), 1);
        o.finish(0, 2);
        assert_eq!(o.start(0, 2), 2);
        o.finish(0, 3);
        // Rank 1 starts afresh, not where rank 0 ended.
        assert_eq!(o.start(1, 3), 0);
        o.finish(1, 2);
        // Back to rank 0, which goes on from its own position.
        assert_eq!(o.start(0, 2), 3);
        o.finish(0, 3);
        assert_eq!(o.start(7, 3), 0);
        assert_eq!(o.start(5, 3), 0);
    }

    #[test]
    fn a_value_the_program_writes_wins() {
        let mut o = Optind::default();
        // Before any call: the program's (or glibc's) value.
        assert_eq!(o.start(0, 0), 0);
        o.finish(0, 3);
        // optind = 1 (or 0, GNU's full restart) to parse again.
        assert_eq!(o.start(0, 1), 1);
        o.finish(0, 2);
        assert_eq!(o.start(0, 0), 0);
        o.finish(0, 2);
        assert_eq!(o.start(0, 2), 2);
    }
}

//! Groups of ranks, stored without a per-rank table where their shape
//! allows (the world, one rank, a contiguous range).

use std::rc::Rc;

/// The ranks of a communicator.
#[derive(Debug, Clone)]
pub enum Group {
    /// World ranks 0..n (MPI_COMM_WORLD): no per-rank table.
    World(usize),
    /// One world rank (MPI_COMM_SELF of that rank).
    Single(usize),
    /// World ranks `first..first + len` in order (a contiguous split):
    /// rank lookups in O(1) however large.
    Range { first: u32, len: u32 },
    /// An explicit list of world ranks, shared by all members.
    List(Rc<[u32]>),
}

impl Group {
    pub fn size(&self) -> usize {
        match self {
            Group::World(n) => *n,
            Group::Single(_) => 1,
            Group::Range { len, .. } => *len as usize,
            Group::List(l) => l.len(),
        }
    }

    /// World rank of communicator rank `r` (r < size).
    pub fn world(&self, r: usize) -> usize {
        match self {
            Group::World(_) => r,
            Group::Single(w) => *w,
            Group::Range { first, .. } => *first as usize + r,
            Group::List(l) => l[r] as usize,
        }
    }

    /// Communicator rank of world rank `w`, if a member.
    pub fn rank_of(&self, w: usize) -> Option<usize> {
        match self {
            Group::World(n) => (w < *n).then_some(w),
            Group::Single(s) => (w == *s).then_some(0),
            Group::Range { first, len } => {
                let r = w.checked_sub(*first as usize)?;
                (r < *len as usize).then_some(r)
            }
            Group::List(l) => l.iter().position(|&x| x as usize == w),
        }
    }

    /// The group of these world ranks, in this order: a range when they
    /// are contiguous and ascending, a list otherwise.
    pub fn from_world_ranks(list: Vec<u32>) -> Self {
        let contiguous = list.windows(2).all(|p| p[1] == p[0] + 1);
        match list.first() {
            Some(&first) if contiguous && list.len() > 1 => Group::Range {
                first,
                len: list.len() as u32,
            },
            _ => Group::List(Rc::from(list)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Group;

    #[test]
    fn contiguous_world_ranks_make_a_range_group() {
        let g = Group::from_world_ranks(vec![10, 11, 12, 13]);
        assert!(matches!(g, Group::Range { first: 10, len: 4 }));
        assert_eq!(g.size(), 4);
        assert_eq!(g.world(3), 13);
        assert_eq!(g.rank_of(12), Some(2));
        assert_eq!(g.rank_of(9), None);
        assert_eq!(g.rank_of(14), None);
        let l = Group::from_world_ranks(vec![3, 1, 2]);
        assert!(matches!(l, Group::List(_)));
        assert_eq!(l.rank_of(1), Some(1));
        assert!(matches!(Group::from_world_ranks(vec![5]), Group::List(_)));
    }
}

//! Groups of ranks, stored without a per-rank table where their shape
//! allows (the world, one rank, a contiguous range), and the group calls:
//! ranks named by lists and ranges, inclusion and exclusion, set
//! operations, rank translation.

use std::collections::HashSet;
use std::rc::Rc;

use super::check::ArgArray;
use super::comm::{group_compare, members};
use super::ledger::Kind;
use super::{check, class, MpiError, MpiResult, PROC_NULL, UNDEFINED};
use crate::sim;

/// MPI_GROUP_EMPTY.
const GROUP_EMPTY: i32 = 1;

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

    /// The group rank `r` names, if it is one.
    fn member(&self, r: i32) -> MpiResult<usize> {
        usize::try_from(r)
            .ok()
            .filter(|&r| r < self.size())
            .ok_or_else(|| {
                MpiError::new(
                    class::RANK,
                    format!("rank {r} is not in a group of {}", self.size()),
                )
            })
    }

    /// The ranks of this group a list names (MPI_Group_incl and _excl):
    /// each a member, none twice.
    pub fn listed(&self, ranks: &[i32]) -> MpiResult<Vec<usize>> {
        let mut seen = HashSet::new();
        ranks
            .iter()
            .map(|&r| {
                let r = self.member(r)?;
                if !seen.insert(r) {
                    return Err(twice(r));
                }
                Ok(r)
            })
            .collect()
    }

    /// The ranks of this group (first, last, stride) triplets name
    /// (MPI_Group_range_incl and _excl), in order: both ends members, no
    /// rank twice.
    pub fn in_ranges(&self, ranges: &[[i32; 3]]) -> MpiResult<Vec<usize>> {
        let mut v = Vec::new();
        let mut seen = HashSet::new();
        for &[first, last, stride] in ranges {
            if stride == 0 {
                return Err(MpiError::new(class::ARG, "a range has stride 0"));
            }
            if self.member(first).is_err() || self.member(last).is_err() {
                return Err(MpiError::new(
                    class::RANK,
                    format!(
                        "range {first}..{last} is outside a group of {}",
                        self.size()
                    ),
                ));
            }
            let mut r = first;
            while (stride > 0 && r <= last) || (stride < 0 && r >= last) {
                if !seen.insert(r) {
                    return Err(twice(r as usize));
                }
                v.push(r as usize);
                // Past the end of i32 is past `last` too.
                let Some(next) = r.checked_add(stride) else {
                    break;
                };
                r = next;
            }
        }
        Ok(v)
    }

    /// The world ranks of the members at `ranks`, in that order.
    pub fn incl(&self, ranks: &[usize]) -> Vec<u32> {
        ranks.iter().map(|&r| self.world(r) as u32).collect()
    }

    /// The world ranks of the members not at `ranks`, in group order.
    pub fn excl(&self, ranks: &[usize]) -> Vec<u32> {
        let excluded: HashSet<usize> = ranks.iter().copied().collect();
        (0..self.size())
            .filter(|r| !excluded.contains(r))
            .map(|r| self.world(r) as u32)
            .collect()
    }

    /// The rank in `other` of each rank in `ranks` of this group
    /// (MPI_UNDEFINED if not a member there; MPI_PROC_NULL stays).
    pub fn translate(&self, ranks: &[i32], other: &Group) -> MpiResult<Vec<i32>> {
        ranks
            .iter()
            .map(|&r| {
                if r == PROC_NULL {
                    return Ok(PROC_NULL);
                }
                let w = self.world(self.member(r)?);
                Ok(other.rank_of(w).map_or(UNDEFINED, |x| x as i32))
            })
            .collect()
    }
}

fn twice(r: usize) -> MpiError {
    MpiError::new(class::RANK, format!("rank {r} appears twice"))
}

/// The members of `a`, then those of `b` not in `a` (MPI_Group_union).
pub fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut v = a.to_vec();
    v.extend(b.iter().filter(|x| !a.contains(x)));
    v
}

/// The members of `a` also in `b`, in `a`'s order.
pub fn intersection(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().filter(|x| b.contains(x)).copied().collect()
}

/// The members of `a` not in `b`, in `a`'s order.
pub fn difference(a: &[u32], b: &[u32]) -> Vec<u32> {
    a.iter().filter(|x| !b.contains(x)).copied().collect()
}

/// The group behind a handle.
fn get(handle: i32) -> MpiResult<Group> {
    sim::mpi(|w| w.mpi.comms.group(handle).cloned())
}

/// Stores a new group of these world ranks; returns its handle
/// (MPI_GROUP_EMPTY when there are none).
fn store(list: Vec<u32>) -> i32 {
    if list.is_empty() {
        return GROUP_EMPTY;
    }
    sim::mpi(|w| {
        let h = w.mpi.comms.add_group(Group::List(Rc::from(list)));
        w.note_created(Kind::Group, h);
        h
    })
}

/// MPI_Group_size.
pub fn size(group: i32) -> MpiResult<usize> {
    get(group).map(|g| g.size())
}

/// MPI_Group_rank: the caller's rank in `group`, or MPI_UNDEFINED.
pub fn rank(group: i32) -> MpiResult<i32> {
    let g = get(group)?;
    let me = sim::mpi(|w| w.core.current());
    Ok(g.rank_of(me).map_or(UNDEFINED, |r| r as i32))
}

/// MPI_Group_free.
pub fn free(group: i32) -> MpiResult<()> {
    sim::mpi(|w| {
        w.mpi.comms.free_group(group)?;
        w.note_freed(Kind::Group, group);
        Ok(())
    })
}

/// The `n` ranks of `group` the list `ranks` names.
fn listed(g: &Group, n: i32, ranks: &dyn ArgArray<i32>) -> MpiResult<Vec<usize>> {
    let n = check::non_negative(n, "count")?;
    g.listed(&check::array(ranks, n, "ranks")?)
}

/// The ranks of `group` the `n` triplets `ranges` name.
fn in_ranges(g: &Group, n: i32, ranges: &dyn ArgArray<[i32; 3]>) -> MpiResult<Vec<usize>> {
    let n = check::non_negative(n, "count")?;
    g.in_ranges(&check::array(ranges, n, "ranges")?)
}

/// MPI_Group_incl: the `n` members `ranks` names, in that order.
pub fn incl(group: i32, n: i32, ranks: &dyn ArgArray<i32>) -> MpiResult<i32> {
    let g = get(group)?;
    Ok(store(g.incl(&listed(&g, n, ranks)?)))
}

/// MPI_Group_excl: the members the `n` entries of `ranks` do not name.
pub fn excl(group: i32, n: i32, ranks: &dyn ArgArray<i32>) -> MpiResult<i32> {
    let g = get(group)?;
    Ok(store(g.excl(&listed(&g, n, ranks)?)))
}

/// MPI_Group_range_incl.
pub fn range_incl(group: i32, n: i32, ranges: &dyn ArgArray<[i32; 3]>) -> MpiResult<i32> {
    let g = get(group)?;
    Ok(store(g.incl(&in_ranges(&g, n, ranges)?)))
}

/// MPI_Group_range_excl.
pub fn range_excl(group: i32, n: i32, ranges: &dyn ArgArray<[i32; 3]>) -> MpiResult<i32> {
    let g = get(group)?;
    Ok(store(g.excl(&in_ranges(&g, n, ranges)?)))
}

/// MPI_Group_translate_ranks: the rank in `g2` of each of the `n` ranks
/// `ranks1` of `g1`.
pub fn translate_ranks(
    g1: i32,
    n: i32,
    ranks1: &dyn ArgArray<i32>,
    g2: i32,
) -> MpiResult<Vec<i32>> {
    let (a, b) = (get(g1)?, get(g2)?);
    let n = check::non_negative(n, "count")?;
    a.translate(&check::array(ranks1, n, "ranks1")?, &b)
}

/// MPI_Group_compare.
pub fn compare(g1: i32, g2: i32) -> MpiResult<i32> {
    Ok(group_compare(&get(g1)?, &get(g2)?))
}

/// A set operation `op` on the members of two groups: the new group.
pub fn set_operation(g1: i32, g2: i32, op: fn(&[u32], &[u32]) -> Vec<u32>) -> MpiResult<i32> {
    let a = members(&get(g1)?);
    let b = members(&get(g2)?);
    Ok(store(op(&a, &b)))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn listed_ranks_are_members_named_once() {
        let g = Group::from_world_ranks(vec![4, 5, 6, 7]);
        assert_eq!(g.listed(&[3, 0]).unwrap(), vec![3, 0]);
        assert_eq!(g.incl(&[3, 0]), vec![7, 4]);
        assert_eq!(g.excl(&[3, 0]), vec![5, 6]);
        let e = g.listed(&[4]).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::RANK, "rank 4 is not in a group of 4")
        );
        assert_eq!(
            g.listed(&[1, 2, 1]).unwrap_err().message,
            "rank 1 appears twice"
        );
    }

    #[test]
    fn ranges_expand_in_order() {
        let g = Group::World(10);
        assert_eq!(
            g.in_ranges(&[[0, 6, 3], [7, 7, 1], [5, 1, -4]]).unwrap(),
            vec![0, 3, 6, 7, 5, 1]
        );
        // A stride that passes `last` gives `first` alone.
        assert_eq!(g.in_ranges(&[[8, 9, i32::MAX]]).unwrap(), vec![8]);
        let e = g.in_ranges(&[[0, 4, 0]]).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::ARG, "a range has stride 0")
        );
        let e = g.in_ranges(&[[2, 10, 1]]).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::RANK, "range 2..10 is outside a group of 10")
        );
        assert_eq!(
            g.in_ranges(&[[0, 4, 2], [4, 5, 1]]).unwrap_err().message,
            "rank 4 appears twice"
        );
    }

    #[test]
    fn ranks_translate_through_world_ranks() {
        let a = Group::from_world_ranks(vec![2, 0, 1]);
        let b = Group::from_world_ranks(vec![1, 2]);
        assert_eq!(
            a.translate(&[0, 1, 2, PROC_NULL], &b).unwrap(),
            vec![1, UNDEFINED, 0, PROC_NULL]
        );
        assert_eq!(a.translate(&[3], &b).unwrap_err().class, class::RANK);
    }

    #[test]
    fn set_operations_keep_the_first_group_order() {
        let (a, b) = ([3, 1, 2], [2, 4, 3]);
        assert_eq!(union(&a, &b), vec![3, 1, 2, 4]);
        assert_eq!(intersection(&a, &b), vec![3, 2]);
        assert_eq!(difference(&a, &b), vec![1]);
    }
}

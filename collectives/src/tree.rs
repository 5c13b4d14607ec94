//! The trees of Open MPI's tuned collectives, as SimGrid builds them
//! (`coll_tuned_topo`): each rank computes its own parent and children in
//! O(fanout + log p), so schedules stay cheap on huge communicators.

/// One rank's place in a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tree {
    /// The parent, `None` at the tree's root.
    pub parent: Option<usize>,
    /// The children, in the order the algorithms serve them.
    pub children: Vec<usize>,
}

impl Tree {
    fn leaf_of(parent: Option<usize>) -> Tree {
        Tree {
            parent,
            children: Vec::new(),
        }
    }
}

/// `fanout` chains hanging from `root`: the ranks after the root (in
/// rank order, wrapping) cut into `fanout` runs as equal as possible, the
/// longer runs first; each run is passed along from its head.
pub(crate) fn chain(fanout: usize, rank: usize, size: usize, root: usize) -> Tree {
    let fanout = fanout.clamp(1, size.saturating_sub(1).max(1));
    let srank = (rank + size - root) % size;
    let unshift = |s: usize| (s + root) % size;
    if size == 1 {
        return Tree::leaf_of(None);
    }
    let others = size - 1;
    let long = others.div_ceil(fanout);
    // Runs 0..mark have `long` ranks, the others one fewer.
    let mark = if others.is_multiple_of(fanout) {
        fanout
    } else {
        others % fanout
    };
    let head = |column: usize| {
        if column <= mark {
            1 + column * long
        } else {
            1 + mark * long + (column - mark) * (long - 1)
        }
    };
    if srank == 0 {
        return Tree {
            parent: None,
            children: (0..fanout).map(|c| unshift(head(c))).collect(),
        };
    }
    let column = if srank - 1 < mark * long {
        (srank - 1) / long
    } else {
        mark + (srank - 1 - mark * long) / (long - 1)
    };
    let (first, len) = (head(column), if column < mark { long } else { long - 1 });
    let parent = if srank == first { 0 } else { srank - 1 };
    let children = if srank + 1 < first + len {
        vec![unshift(srank + 1)]
    } else {
        Vec::new()
    };
    Tree {
        parent: Some(unshift(parent)),
        children,
    }
}

/// The complete `fanout`-ary tree of Open MPI's `topo_build_tree`, filled
/// level by level from `root` (for fanout 2 and 7 ranks: 0 has children 1
/// and 2, 1 has 3 and 5, 2 has 4 and 6).
pub(crate) fn kary(fanout: usize, rank: usize, size: usize, root: usize) -> Tree {
    let srank = (rank + size - root) % size;
    let unshift = |s: usize| (s + root) % size;
    // The level of srank, the width of that level and the number of ranks
    // on the levels above it.
    let (mut level_start, mut width) = (0usize, 1usize);
    while srank >= level_start + width {
        level_start += width;
        width *= fanout;
    }
    let children = (1..=fanout)
        .map(|i| srank + width * i)
        .take_while(|&c| c < size)
        .map(unshift)
        .collect();
    let parent = (srank > 0).then(|| {
        let above = width / fanout;
        let mut p = srank;
        while p >= level_start {
            p -= above;
        }
        unshift(p)
    });
    Tree { parent, children }
}

/// Open MPI's in-order binary tree, rooted at rank `size - 1`: every
/// subtree holds consecutive ranks, its root the highest of them, its first
/// child the root of the upper part and its second the root of the lower
/// part. Reducing `acc = child op acc` over the children in order keeps
/// rank order, which non-commutative operations need.
pub(crate) fn in_order_bintree(rank: usize, size: usize) -> Tree {
    let mut tree = Tree::leaf_of(None);
    // The current subtree covers ranks delta .. delta + n; its root is the
    // last of them.
    let (mut n, mut delta) = (size, 0usize);
    loop {
        let root = delta + n - 1;
        // The lower part has n / 2 ranks, unless only one rank is left
        // below the root: it is then the upper part.
        let lower = if n > 2 { n / 2 } else { 0 };
        let upper_child = (n > 1).then(|| root - 1);
        let lower_child = (lower > 0).then(|| delta + lower - 1);
        if rank == root {
            tree.children = upper_child.into_iter().chain(lower_child).collect();
            return tree;
        }
        if rank >= delta + lower {
            if Some(rank) == upper_child {
                tree.parent = Some(root);
            }
            n -= lower + 1;
            delta += lower;
        } else {
            if Some(rank) == lower_child {
                tree.parent = Some(root);
            }
            n = lower;
        }
    }
}

/// Open MPI's in-order binomial tree: with ranks renumbered from `root`,
/// rank v's parent is v without its lowest set bit and its children are
/// v + 2^k for the powers below that bit, smallest first.
pub(crate) fn in_order_bmtree(rank: usize, size: usize, root: usize) -> Tree {
    let v = (rank + size - root) % size;
    let unshift = |s: usize| (s + root) % size;
    let mut tree = Tree::leaf_of(None);
    let mut mask = 1;
    while mask < size {
        let peer = v ^ mask;
        if peer < v {
            tree.parent = Some(unshift(peer));
            break;
        }
        if peer < size {
            tree.children.push(unshift(peer));
        }
        mask <<= 1;
    }
    tree
}

/// Open MPI's `COLL_TUNED_COMPUTED_SEGCOUNT`: the elements per segment of
/// `segsize` bytes (rounded to the nearest element, at least one) when the
/// message is larger than one segment; all `count` otherwise (and for a
/// segment size of 0, meaning "no segmentation").
pub(crate) fn segment_count(segsize: usize, elem_bytes: usize, count: usize) -> usize {
    if segsize >= elem_bytes && elem_bytes > 0 && segsize < elem_bytes.saturating_mul(count) {
        let n = segsize / elem_bytes;
        if segsize - n * elem_bytes > elem_bytes / 2 {
            n + 1
        } else {
            n
        }
    } else {
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rank but the root has one parent that lists it as a child,
    /// and following parents always reaches the root.
    fn check(what: &str, size: usize, root: usize, build: impl Fn(usize) -> Tree) {
        let trees: Vec<Tree> = (0..size).map(&build).collect();
        for (r, t) in trees.iter().enumerate() {
            match t.parent {
                None => assert_eq!(r, root, "{what} size {size}: {r} has no parent"),
                Some(p) => {
                    assert_ne!(r, root, "{what} size {size}: the root has a parent");
                    assert_eq!(
                        trees[p].children.iter().filter(|&&c| c == r).count(),
                        1,
                        "{what} size {size} root {root}: {r}'s parent {p} is {:?}",
                        trees[p]
                    );
                }
            }
            for &c in &t.children {
                assert_eq!(
                    trees[c].parent,
                    Some(r),
                    "{what} size {size}: child {c} of {r}"
                );
            }
            let (mut at, mut steps) = (r, 0);
            while let Some(p) = trees[at].parent {
                at = p;
                steps += 1;
                assert!(steps <= size, "{what} size {size}: a cycle through {r}");
            }
        }
    }

    #[test]
    fn trees_span_every_rank_once() {
        for size in 1..=40 {
            for root in 0..size {
                for fanout in [1, 2, 3, 5, size / 2] {
                    check("chain", size, root, |r| chain(fanout, r, size, root));
                }
                for fanout in [1, 2, 3] {
                    check("kary", size, root, |r| kary(fanout, r, size, root));
                }
                check("in_order_bmtree", size, root, |r| {
                    in_order_bmtree(r, size, root)
                });
            }
            check("in_order_bintree", size, size - 1, |r| {
                in_order_bintree(r, size)
            });
        }
    }

    #[test]
    fn trees_match_open_mpis_pictures() {
        // Open MPI's own examples (coll_tuned_topo.c).
        let bin: Vec<Vec<usize>> = (0..7).map(|r| kary(2, r, 7, 0).children).collect();
        assert_eq!(
            bin,
            vec![
                vec![1, 2],
                vec![3, 5],
                vec![4, 6],
                vec![],
                vec![],
                vec![],
                vec![]
            ]
        );
        let io: Vec<Vec<usize>> = (0..9).map(|r| in_order_bintree(r, 9).children).collect();
        assert_eq!(io[8], vec![7, 3]);
        assert_eq!(io[7], vec![6, 5]);
        assert_eq!(io[5], vec![4]);
        assert_eq!(io[3], vec![2, 1]);
        assert_eq!(io[1], vec![0]);
        let bm: Vec<Vec<usize>> = (0..8).map(|r| in_order_bmtree(r, 8, 0).children).collect();
        assert_eq!(bm[0], vec![1, 2, 4]);
        assert_eq!(bm[4], vec![5, 6]);
        assert_eq!(bm[6], vec![7]);
        // 10 ranks in 3 chains: 1-2-3, 4-5-6, 7-8-9.
        assert_eq!(chain(3, 0, 10, 0).children, vec![1, 4, 7]);
        assert_eq!(chain(3, 6, 10, 0).children, Vec::<usize>::new());
        // 9 ranks: 8 others in chains of 3, 3 and 2 (1-2-3, 4-5-6, 7-8),
        // counted from the root.
        assert_eq!(chain(3, 0, 9, 0).children, vec![1, 4, 7]);
        assert_eq!(chain(3, 8, 9, 0).parent, Some(7));
        assert_eq!(chain(3, 4, 9, 2).children, vec![5]);
        assert!(chain(3, 5, 9, 2).children.is_empty());
    }

    #[test]
    fn segment_counts_follow_open_mpi() {
        assert_eq!(segment_count(1024, 8, 1000), 128);
        assert_eq!(segment_count(1024, 8, 100), 100);
        assert_eq!(segment_count(0, 8, 100), 100);
        // 1000 / 12 = 83 rest 4: rounded down; 1030 / 12 = 85 rest 10: up.
        assert_eq!(segment_count(1000, 12, 1000), 83);
        assert_eq!(segment_count(1030, 12, 1000), 86);
    }
}

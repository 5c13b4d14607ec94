//! Property tests for the v-variants: random counts (zeros included),
//! random block order and gaps, random roots and in-place flags.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

use super::exec::{contrib, run_all, tok, unset, Elem, Mem};
use super::{assert_folded_once, folded_block, reduce_order};
use crate::*;

/// Places blocks of `counts` in the order given by sorting `keys`, with
/// `gaps[i]` unused elements before block i. Returns displacements and the
/// buffer length.
fn layout(counts: &[usize], keys: &[u32], gaps: &[usize]) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&i| (keys[i], i));
    let mut displs = vec![0; counts.len()];
    let mut off = 0;
    for i in order {
        off += gaps[i];
        displs[i] = off;
        off += counts[i];
    }
    (displs, off)
}

/// Random layout parameters for `n` blocks.
fn layout_params(n: usize) -> impl Strategy<Value = LayoutParams> {
    (vec(any::<u32>(), n), vec(0usize..3, n))
}

/// A buffer of `len` unset elements with `blocks[i]` at `displs[i]`.
fn place(len: usize, displs: &[usize], blocks: &[Vec<Elem>]) -> Vec<Elem> {
    let mut v = unset(len);
    for (d, b) in displs.iter().zip(blocks) {
        v[*d..*d + b.len()].clone_from_slice(b);
    }
    v
}

fn a2a(i: usize, j: usize, k: usize) -> Elem {
    vec![((i as u64) << 40) | ((j as u64) << 20) | k as u64]
}

/// Layout parameters: sort keys and gaps.
type LayoutParams = (Vec<u32>, Vec<usize>);

/// (size, counts, layout, root, in place).
type VCase = (usize, Vec<usize>, LayoutParams, usize, bool);

fn v_case() -> impl Strategy<Value = VCase> {
    (1usize..12).prop_flat_map(|n| {
        (
            Just(n),
            vec(0usize..4, n),
            layout_params(n),
            0..n,
            any::<bool>(),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: RngSeed::Fixed(0x5eed),
        ..ProptestConfig::with_cases(200)
    })]

    #[test]
    fn gatherv_random((n, counts, (keys, gaps), root, in_place) in v_case()) {
        let (displs, len) = layout(&counts, &keys, &gaps);
        let mems = run_all(
            n,
            |r| {
                let (recvcounts, displs): (&[usize], &[usize]) =
                    if r == root { (&counts, &displs) } else { (&[], &[]) };
                let at = RootedPosition { rank: r, size: n, root };
                let blocks = GathervBlocks { sendcount: counts[r], recvcounts, displs, in_place };
                gatherv(at, blocks).unwrap()
            },
            |r| {
                if r != root {
                    Mem::new(contrib(r, counts[r]), vec![])
                } else if in_place {
                    let mut recv = unset(len);
                    recv[displs[r]..displs[r] + counts[r]].clone_from_slice(&contrib(r, counts[r]));
                    Mem::new(vec![], recv)
                } else {
                    Mem::new(contrib(r, counts[r]), unset(len))
                }
            },
        );
        let blocks: Vec<_> = (0..n).map(|i| contrib(i, counts[i])).collect();
        prop_assert_eq!(&mems[root].recv, &place(len, &displs, &blocks));
    }

    #[test]
    fn scatterv_random((n, counts, (keys, gaps), root, in_place) in v_case()) {
        let (displs, len) = layout(&counts, &keys, &gaps);
        let blocks: Vec<_> = (0..n).map(|i| contrib(i, counts[i])).collect();
        let src = place(len, &displs, &blocks);
        let mems = run_all(
            n,
            |r| {
                let (sendcounts, displs): (&[usize], &[usize]) =
                    if r == root { (&counts, &displs) } else { (&[], &[]) };
                let at = RootedPosition { rank: r, size: n, root };
                let blocks = ScattervBlocks { sendcounts, displs, recvcount: counts[r], in_place };
                scatterv(at, blocks).unwrap()
            },
            |r| {
                let recv = if r == root && in_place { vec![] } else { unset(counts[r]) };
                let send = if r == root { src.clone() } else { vec![] };
                Mem::new(send, recv)
            },
        );
        for (r, m) in mems.iter().enumerate() {
            if !(r == root && in_place) {
                prop_assert_eq!(&m.recv, &blocks[r]);
            }
        }
    }

    #[test]
    fn allgatherv_random((n, counts, (keys, gaps), _root, in_place) in v_case(), ring in any::<bool>()) {
        let (displs, len) = layout(&counts, &keys, &gaps);
        let blocks: Vec<_> = (0..n).map(|i| contrib(i, counts[i])).collect();
        let mems = run_all(
            n,
            |r| {
                let blocks = GathervBlocks {
                    sendcount: counts[r],
                    recvcounts: &counts,
                    displs: &displs,
                    in_place,
                };
                allgatherv(Position { rank: r, size: n }, blocks).unwrap()
            },
            |r| {
                if in_place {
                    let mut recv = unset(len);
                    recv[displs[r]..displs[r] + counts[r]].clone_from_slice(&blocks[r]);
                    Mem::new(vec![], recv)
                } else {
                    Mem::new(blocks[r].clone(), unset(len))
                }
            },
        );
        let want = place(len, &displs, &blocks);
        for m in &mems {
            prop_assert_eq!(&m.recv, &want);
        }
        // The regular allgather with the same count everywhere, either
        // algorithm.
        let c = counts[0];
        let alg = if ring { AllgatherAlgorithm::Ring } else { AllgatherAlgorithm::Default };
        let mems = run_all(
            n,
            |r| {
                let blocks = Blocks { sendcount: c, recvcount: c, in_place: false };
                allgather_with(alg, Position { rank: r, size: n }, blocks).unwrap()
            },
            |r| Mem::new(contrib(r, c), unset(n * c)),
        );
        let want: Vec<Elem> = (0..n).flat_map(|i| contrib(i, c)).collect();
        for m in &mems {
            prop_assert_eq!(&m.recv, &want);
        }
    }

    #[test]
    fn alltoallv_random(
        (n, matrix, layouts, in_place) in (1usize..10).prop_flat_map(|n| (
            Just(n),
            vec(0usize..4, n * n),
            vec(layout_params(n), 2 * n),
            any::<bool>(),
        ))
    ) {
        // c(i, j): elements rank i sends to rank j; symmetric in place.
        let c = |i: usize, j: usize| {
            if in_place { matrix[i.min(j) * n + i.max(j)] } else { matrix[i * n + j] }
        };
        let sc = |i: usize| (0..n).map(|j| c(i, j)).collect::<Vec<_>>();
        let rc = |j: usize| (0..n).map(|i| c(i, j)).collect::<Vec<_>>();
        let slay = |r: usize| layout(&sc(r), &layouts[2 * r].0, &layouts[2 * r].1);
        let rlay = |r: usize| layout(&rc(r), &layouts[2 * r + 1].0, &layouts[2 * r + 1].1);
        let sblocks = |i: usize| -> Vec<Vec<Elem>> {
            (0..n).map(|j| (0..c(i, j)).map(|k| a2a(i, j, k)).collect()).collect()
        };
        let mems = run_all(
            n,
            |r| {
                let (sendcounts, recvcounts) = (sc(r), rc(r));
                let (sdispls, _) = slay(r);
                let (rdispls, _) = rlay(r);
                let blocks = AlltoallvBlocks {
                    sendcounts: &sendcounts,
                    sdispls: &sdispls,
                    recvcounts: &recvcounts,
                    rdispls: &rdispls,
                    in_place,
                };
                alltoallv(Position { rank: r, size: n }, blocks).unwrap()
            },
            |r| {
                let (sd, slen) = slay(r);
                let (rd, rlen) = rlay(r);
                if in_place {
                    Mem::new(vec![], place(rlen, &rd, &sblocks(r)))
                } else {
                    Mem::new(place(slen, &sd, &sblocks(r)), unset(rlen))
                }
            },
        );
        for (j, m) in mems.iter().enumerate() {
            let (rd, rlen) = rlay(j);
            let blocks: Vec<Vec<Elem>> = (0..n).map(|i| sblocks(i)[j].clone()).collect();
            prop_assert_eq!(&m.recv, &place(rlen, &rd, &blocks));
        }
    }

    #[test]
    fn reduce_scatter_random(
        (n, counts, _lay, _root, in_place) in v_case(),
        commutative in any::<bool>(),
    ) {
        let total: usize = counts.iter().sum();
        let mems = run_all(
            n,
            |r| {
                let reduction = ReductionV { recvcounts: &counts, commutative, in_place };
                reduce_scatter(Position { rank: r, size: n }, reduction).unwrap()
            },
            |r| {
                if in_place {
                    Mem::new(vec![], contrib(r, total))
                } else {
                    Mem::new(contrib(r, total), unset(counts[r]))
                }
            },
        );
        // Regular counts: the reduce to rank 0, in its order; irregular
        // ones: MPICH's algorithms, in any order for commutative ops.
        let regular = counts.iter().all(|&c| c == counts[0]);
        let order = reduce_order(n, 0, commutative, false);
        let mut start = 0;
        for (r, m) in mems.iter().enumerate() {
            if commutative && !regular {
                for (j, e) in m.recv[..counts[r]].iter().enumerate() {
                    assert_folded_once(e, start + j, n, true, "reduce_scatter");
                }
            } else {
                prop_assert_eq!(&m.recv[..counts[r]], &folded_block(&order, start, counts[r])[..]);
            }
            start += counts[r];
        }
    }

    #[test]
    fn reduce_random_roots(
        n in 1usize..40,
        root_seed in any::<usize>(),
        count in 0usize..5,
        commutative in any::<bool>(),
        basic in any::<bool>(),
        in_place in any::<bool>(),
    ) {
        let root = root_seed % n;
        let alg = if basic { ReduceAlgorithm::OmpiBasicLinear } else { ReduceAlgorithm::Default };
        let mems = run_all(
            n,
            |r| {
                let at = RootedPosition { rank: r, size: n, root };
                let reduction = Reduction { count, commutative, in_place: in_place && r == root };
                let tuning = Tuning { elem_bytes: 8, ..Tuning::default() };
                reduce_with(alg, at, reduction, tuning).unwrap()
            },
            |r| {
                if r == root && in_place {
                    Mem::new(vec![], contrib(r, count))
                } else if r == root {
                    Mem::new(contrib(r, count), unset(count))
                } else {
                    Mem::new(contrib(r, count), vec![])
                }
            },
        );
        let order = reduce_order(n, root, commutative, basic);
        prop_assert_eq!(&mems[root].recv, &folded_block(&order, 0, count));
        // Sanity of the token helper used by the expectations.
        prop_assert_eq!(tok(1, 2), (1u64 << 32) | 2);
    }
}

//! Tests: every collective run on real data by the reference executor, for
//! many communicator sizes, every root, zero and non-zero counts, in-place
//! forms and a non-commutative operation.

mod exec;
mod props;

use exec::{contrib, run_all, run_late, tok, unset, Elem, Mem, UNSET};

use crate::*;

/// Communicator sizes tried everywhere.
fn sizes() -> impl Iterator<Item = usize> {
    (1..=33).chain([64, 100])
}

const COUNTS: [usize; 3] = [0, 1, 3];

/// Element j of the reduction of the given ranks' contributions, in the
/// given order (concatenation of their tokens).
fn folded(order: &[usize], j: usize) -> Elem {
    order.iter().map(|&r| tok(r, j)).collect()
}

/// Checks that `e` is element `j` of a reduction of every rank's
/// contribution, each once, in rank order unless `commutative` (then in
/// any order: a op b and b op a differ here, not in arithmetic).
fn assert_folded_once(e: &Elem, j: usize, size: usize, commutative: bool, what: &str) {
    assert!(
        e.iter().all(|t| (t & 0xffff_ffff) as usize == j),
        "{what}: element {j} is {e:?}"
    );
    let mut ranks: Vec<usize> = e.iter().map(|t| (t >> 32) as usize).collect();
    if commutative {
        ranks.sort_unstable();
    }
    assert_eq!(
        ranks,
        (0..size).collect::<Vec<_>>(),
        "{what}: element {j} is {e:?}"
    );
}

/// `n` elements of the fold of `order`, element indices starting at `first`.
fn folded_block(order: &[usize], first: usize, n: usize) -> Vec<Elem> {
    (first..first + n).map(|j| folded(order, j)).collect()
}

/// Rank order of the reduction result of the default reduce to `root`:
/// ranks 0..p for non-commutative ops (ompi_basic_linear); for commutative
/// ops SimGrid's non-blocking order, the other ranks from the highest down,
/// then the root.
fn reduce_order(size: usize, root: usize, commutative: bool, basic: bool) -> Vec<usize> {
    if basic || !commutative {
        (0..size).collect()
    } else {
        (0..size)
            .filter(|&r| r != root)
            .rev()
            .chain([root])
            .collect()
    }
}

/// Checks the structural invariants the executor does not see: every block
/// of `Tmp` fits its declared size (the executor checks it too, but only
/// for the blocks actually run), and comm counts are O(size).
fn check_shape(s: &Schedule, size: usize) {
    for b in s.blocks() {
        if let Buf::Tmp(i) = b.buf {
            let n = *s.tmp.get(i as usize).expect("declared scratch");
            assert!(b.end() <= n, "{b:?} outside scratch of {n}");
        }
    }
    // Linear in the size: lr posts 4 (p - 1), then the default reduce and
    // bcast of the remainder (p - 1 + log2 p at rank 0); the segmented ring
    // 2 (p - 1) per phase, and the tests make up to 3 phases.
    assert!(
        s.comm_count() <= 8 * size + 4 * (size.ilog2() as usize + 1),
        "{} operations for size {size}",
        s.comm_count()
    );
}

// ---------------------------------------------------------------- barrier

#[test]
fn barrier_completes_and_synchronizes() {
    for (alg, size) in BarrierAlgorithm::ALL
        .iter()
        .flat_map(|&a| sizes().map(move |s| (a, s)))
    {
        let scheds: Vec<_> = (0..size)
            .map(|rank| barrier_with(alg, Position { rank, size }).unwrap())
            .collect();
        for s in &scheds {
            check_shape(s, size);
        }
        // Whichever rank arrives last, nobody leaves before it arrives.
        for late in 0..size {
            let mut mems = vec![Mem::default(); size];
            let finished = run_late(&scheds, &mut mems, Some(late));
            if size > 1 {
                assert!(
                    finished.iter().all(|f| !f),
                    "{alg}, size {size}, late {late}: {finished:?}"
                );
            }
        }
    }
}

#[test]
fn barrier_shape_matches_simgrid() {
    let s0 = barrier(Position { rank: 0, size: 4 }).unwrap();
    assert_eq!(s0.round_count(), 2);
    assert_eq!(
        s0.round(0).comm.to_vec(),
        (1..4)
            .map(|r| Comm::Recv {
                from: r,
                data: Buf::Recv.block(0, 0)
            })
            .collect::<Vec<_>>()
    );
    assert!(matches!(s0.round(1).comm[2], Comm::Send { to: 3, .. }));
    let s2 = barrier(Position { rank: 2, size: 4 }).unwrap();
    assert_eq!(s2.round_count(), 2);
    assert!(matches!(s2.round(0).comm[..], [Comm::Send { to: 0, .. }]));
    assert!(matches!(s2.round(1).comm[..], [Comm::Recv { from: 0, .. }]));
    assert!(barrier(Position { rank: 0, size: 1 }).unwrap().is_empty());
}

// ------------------------------------------------------------------ bcast

#[test]
fn bcast_all_roots() {
    for (alg, size) in BcastAlgorithm::ALL
        .iter()
        .flat_map(|&a| sizes().map(move |s| (a, s)))
    {
        // Counts below, at and above the number of slices; with large
        // elements the pipelines cut them into several segments (ompi
        // segments of 16 to 128 KiB, NTSL's of 8 KiB).
        let segmented = matches!(
            alg,
            BcastAlgorithm::OmpiPipeline
                | BcastAlgorithm::Ntsl
                | BcastAlgorithm::Ntsb
                | BcastAlgorithm::FlattreePipeline
                | BcastAlgorithm::OmpiSplitBintree
        );
        // (Several segments per message on the smaller sizes: every root of
        // 100 ranks in 203 segments would be slow in a debug build.)
        let elem_sizes: &[usize] = if segmented && size <= 33 {
            &[1, 3000, 40000]
        } else {
            &[1]
        };
        let cases = [0, 1, 3, size, 2 * size + 3]
            .into_iter()
            .flat_map(|c| elem_sizes.iter().map(move |&e| (c, e)));
        for root in 0..size {
            for (count, elem_bytes) in cases.clone() {
                let mems = run_all(
                    size,
                    |r| {
                        let at = RootedPosition {
                            rank: r,
                            size,
                            root,
                        };
                        let tuning = Tuning {
                            elem_bytes,
                            ..Tuning::default()
                        };
                        let s = bcast_with(alg, at, count, tuning).unwrap();
                        // The flat tree pipeline's root sends every segment
                        // to every rank: not O(p) operations.
                        if alg != BcastAlgorithm::FlattreePipeline {
                            check_shape(&s, size);
                        }
                        s
                    },
                    |r| {
                        let buf = if r == root {
                            contrib(root, count)
                        } else {
                            unset(count)
                        };
                        Mem::new(vec![], buf)
                    },
                );
                for m in &mems {
                    assert_eq!(
                        m.recv,
                        contrib(root, count),
                        "{alg} size {size} root {root} count {count} x {elem_bytes} B"
                    );
                }
            }
        }
    }
}

#[test]
fn bcast_is_binomial_tree() {
    // Rounds per rank are logarithmic, sends one per round, largest subtree
    // first (MPICH order).
    let size = 100;
    for rank in 0..size {
        let s = bcast(
            RootedPosition {
                rank,
                size,
                root: 0,
            },
            5,
        )
        .unwrap();
        assert!(
            s.round_count() <= 8,
            "rank {rank}: {} rounds",
            s.round_count()
        );
        assert!(s.rounds().all(|r| r.comm.len() == 1));
    }
    let root = bcast(
        RootedPosition {
            rank: 0,
            size: 8,
            root: 0,
        },
        1,
    )
    .unwrap();
    let children: Vec<usize> = root.rounds().map(|r| r.comm[0].peer()).collect();
    assert_eq!(children, [4, 2, 1]);
    let six = bcast(
        RootedPosition {
            rank: 6,
            size: 8,
            root: 0,
        },
        1,
    )
    .unwrap();
    assert!(matches!(
        six.round(0).comm[..],
        [Comm::Recv { from: 4, .. }]
    ));
    assert!(matches!(six.round(1).comm[..], [Comm::Send { to: 7, .. }]));
    // A leaf: odd ranks have no children.
    let leaf = RootedPosition {
        rank: 5,
        size: 8,
        root: 0,
    };
    assert_eq!(bcast(leaf, 1).unwrap().round_count(), 1);
    // Root 3: rank 1 is relative rank 6, with parent 4 (rank 7) and child 7
    // (rank 2).
    let s = bcast(
        RootedPosition {
            rank: 1,
            size: 8,
            root: 3,
        },
        1,
    )
    .unwrap();
    assert!(matches!(s.round(0).comm[..], [Comm::Recv { from: 7, .. }]));
    assert!(matches!(s.round(1).comm[..], [Comm::Send { to: 2, .. }]));
}

// ----------------------------------------------------------------- reduce

/// Runs reduce to every root with `alg`, both commutativity flags, in place
/// nowhere / at the root only / everywhere.
fn check_reduce(alg: ReduceAlgorithm) {
    // Elements of 16 KiB: 11 of them make several segments for the
    // segmented trees (32 and 64 KiB segments).
    let elem_bytes = 16 << 10;
    for size in sizes() {
        for root in 0..size {
            for count in COUNTS.into_iter().chain([11]) {
                for commutative in [false, true] {
                    for in_place_mode in 0..3 {
                        let in_place = |r: usize| match in_place_mode {
                            0 => false,
                            1 => r == root,
                            _ => true,
                        };
                        let mems = run_all(
                            size,
                            |r| {
                                let at = RootedPosition {
                                    rank: r,
                                    size,
                                    root,
                                };
                                let reduction = Reduction {
                                    count,
                                    commutative,
                                    in_place: in_place(r),
                                };
                                let tuning = Tuning {
                                    elem_bytes,
                                    ..Tuning::default()
                                };
                                let s = reduce_with(alg, at, reduction, tuning).unwrap();
                                check_shape(&s, size);
                                s
                            },
                            |r| {
                                if in_place(r) {
                                    Mem::new(vec![], contrib(r, count))
                                } else if r == root {
                                    Mem::new(contrib(r, count), unset(count))
                                } else {
                                    // A non-root's receive buffer is not
                                    // significant: make any access fail.
                                    Mem::new(contrib(r, count), vec![])
                                }
                            },
                        );
                        // Rank order: the linear ones, and the in-order
                        // binary tree (also what the Open MPI trees run
                        // for non-commutative operations).
                        let tree = !matches!(
                            alg,
                            ReduceAlgorithm::Default | ReduceAlgorithm::OmpiBasicLinear
                        );
                        let basic = alg == ReduceAlgorithm::OmpiBasicLinear || tree;
                        let order = reduce_order(size, root, commutative, basic);
                        let any_order = tree && alg != ReduceAlgorithm::OmpiInOrderBinary;
                        for (r, m) in mems.iter().enumerate() {
                            if r == root && any_order && commutative {
                                // Tree order: each rank once.
                                for (j, e) in m.recv.iter().enumerate() {
                                    assert_folded_once(e, j, size, true, &format!("{alg}"));
                                }
                                continue;
                            }
                            let want = if r == root {
                                folded_block(&order, 0, count)
                            } else if in_place(r) {
                                contrib(r, count)
                            } else {
                                vec![]
                            };
                            assert_eq!(
                                m.recv, want,
                                "{alg} size {size} root {root} count {count} comm {commutative} \
                                 in-place mode {in_place_mode} rank {r}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn reduce_default_all_roots() {
    check_reduce(ReduceAlgorithm::Default);
}

#[test]
fn reduce_binomial_all_roots() {
    check_reduce(ReduceAlgorithm::Binomial);
}

#[test]
fn reduce_ompi_basic_linear_all_roots() {
    check_reduce(ReduceAlgorithm::OmpiBasicLinear);
}

#[test]
fn reduce_scatter_gather_all_roots() {
    check_reduce(ReduceAlgorithm::ScatterGather);
}

#[test]
fn reduce_open_mpi_trees_all_roots() {
    for alg in [
        ReduceAlgorithm::OmpiChain,
        ReduceAlgorithm::OmpiPipeline,
        ReduceAlgorithm::OmpiBinary,
        ReduceAlgorithm::OmpiBinomial,
        ReduceAlgorithm::OmpiInOrderBinary,
    ] {
        check_reduce(alg);
    }
}

/// Each round's operations as text: `r2x4` receives 4 elements from rank
/// 2, `s0x4` sends them to rank 0, `+d` when deferred by d rounds.
fn round_ops(s: &Schedule) -> Vec<String> {
    let op = |c: &Comm| match c {
        Comm::Send { to, data } => format!("s{to}x{}", data.count),
        Comm::Recv { from, data } => format!("r{from}x{}", data.count),
    };
    s.rounds()
        .map(|r| {
            r.comm
                .iter()
                .map(op)
                .chain(r.deferred.iter().map(|(c, d)| format!("{}+{d}", op(c))))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn reduce_trees_pipeline_their_segments() {
    // ompi_pipeline on 4 ranks, 10 elements of 8 KiB in 32 KiB segments
    // (4 + 4 + 2): rank 1 posts the receive of segment k + 1 from rank 2
    // before it waits for segment k, folds that in and sends it to rank 0.
    let pipeline = |rank| {
        let s = reduce_with(
            ReduceAlgorithm::OmpiPipeline,
            RootedPosition {
                rank,
                size: 4,
                root: 0,
            },
            Reduction {
                count: 10,
                commutative: true,
                in_place: false,
            },
            Tuning {
                elem_bytes: 8 << 10,
                ..Tuning::default()
            },
        );
        round_ops(&s.unwrap())
    };
    assert_eq!(
        pipeline(1),
        ["", "r2x4+1", "r2x4+2", "s0x4", "r2x2+2", "s0x4", "", "s0x2"]
    );
    // The leaf sends its segments one at a time.
    assert_eq!(pipeline(3), ["s2x4", "s2x4", "s2x2"]);
}

#[test]
fn burst_keeps_k_exchanges_in_flight() {
    // 5 ranks, k = 2: each step posts one exchange, due one step later;
    // one last step waits for the last exchange.
    let burst = |size, radix| {
        let blocks = Blocks {
            sendcount: 1,
            recvcount: 1,
            in_place: false,
        };
        let tuning = Tuning {
            radix,
            ..Tuning::default()
        };
        let s = alltoall_with(
            AlltoallAlgorithm::Burst,
            Position { rank: 0, size },
            blocks,
            tuning,
        );
        round_ops(&s.unwrap())
    };
    assert_eq!(
        burst(5, 2),
        [
            "",
            "s1x1+1 r4x1+1",
            "s2x1+1 r3x1+1",
            "s3x1+1 r2x1+1",
            "s4x1+1 r1x1+1",
            ""
        ]
    );
    // A window wider than the exchanges: all in flight at once.
    assert_eq!(burst(3, 8), ["", "s1x1+1 r2x1+1", "s2x1+1 r1x1+1", ""]);
}

#[test]
fn bcast_pipeline_keeps_two_receives_in_flight() {
    // ompi_pipeline, 3 segments of 16 KiB (2 elements of 8 KiB) down the
    // chain 0, 1, 2, 3 from rank 0.
    let pipeline = |rank| {
        let at = RootedPosition {
            rank,
            size: 4,
            root: 0,
        };
        let tuning = Tuning {
            elem_bytes: 8 << 10,
            ..Tuning::default()
        };
        round_ops(&bcast_with(BcastAlgorithm::OmpiPipeline, at, 6, tuning).unwrap())
    };
    assert_eq!(
        pipeline(1),
        ["r0x2+1", "r0x2+2", "s2x2", "r0x2+2", "s2x2", "", "s2x2"]
    );
    assert_eq!(pipeline(3), ["r2x2+1", "r2x2+1", "r2x2+1", ""]);
    assert_eq!(pipeline(0), ["s1x2", "s1x2", "s1x2"]);
}

#[test]
fn reduce_basic_linear_receives_one_at_a_time_from_the_top() {
    let at = RootedPosition {
        rank: 2,
        size: 5,
        root: 2,
    };
    let reduction = Reduction {
        count: 4,
        commutative: false,
        in_place: false,
    };
    let tuning = Tuning {
        elem_bytes: 4,
        ..Tuning::default()
    };
    let s = reduce_with(ReduceAlgorithm::OmpiBasicLinear, at, reduction, tuning).unwrap();
    let sources: Vec<usize> = s
        .rounds()
        .flat_map(|r| {
            assert!(r.comm.len() <= 1);
            r.comm.iter().map(Comm::peer).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(sources, [4, 3, 1, 0]);
    // Only one scratch block besides nothing: x_4 lands straight in Recv.
    assert_eq!(s.tmp, [4]);
    // The non-commutative default is this algorithm.
    assert_eq!(s, reduce(at, reduction).unwrap());
}

#[test]
fn reduce_commutative_default_posts_everything_at_once() {
    let at = RootedPosition {
        rank: 1,
        size: 5,
        root: 1,
    };
    let reduction = Reduction {
        count: 4,
        commutative: true,
        in_place: false,
    };
    let s = reduce(at, reduction).unwrap();
    assert_eq!(s.round_count(), 1);
    let sources: Vec<usize> = s.round(0).comm.iter().map(Comm::peer).collect();
    assert_eq!(sources, [0, 2, 3, 4]);
    assert_eq!(s.tmp, [16]);
}

// -------------------------------------------------------------- allreduce

#[test]
fn allreduce_all_sizes() {
    for size in sizes() {
        for count in COUNTS {
            for commutative in [false, true] {
                for in_place in [false, true] {
                    let mems = run_all(
                        size,
                        |r| {
                            let reduction = Reduction {
                                count,
                                commutative,
                                in_place,
                            };
                            let s = allreduce(Position { rank: r, size }, reduction).unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            if in_place {
                                Mem::new(vec![], contrib(r, count))
                            } else {
                                Mem::new(contrib(r, count), unset(count))
                            }
                        },
                    );
                    let order = reduce_order(size, 0, commutative, false);
                    for m in &mems {
                        assert_eq!(m.recv, folded_block(&order, 0, count));
                    }
                }
            }
        }
    }
}

/// Placements the SMP-aware algorithms are tried on: 4 ranks per host
/// in rank order, one per host, 3 per host (uniform or not with the
/// size), round robin over 3 hosts (not contiguous), and 5 on the first
/// host then 2 per host.
fn placements(size: usize) -> [Nodes; 5] {
    let pids: Vec<usize> = (0..size).collect();
    [
        Nodes::blocked(size, 4),
        Nodes::blocked(size, 1),
        Nodes::blocked(size, 3),
        Nodes::new((0..size).map(|r| r % 3).collect(), pids.clone()),
        Nodes::new(
            (0..size)
                .map(|r| if r < 5 { 0 } else { 1 + (r - 5) / 2 })
                .collect(),
            pids,
        ),
    ]
}

#[test]
fn placements_give_hosts_leaders_and_uniformity() {
    let n = Nodes::new(vec![7, 3, 7, 3, 9], vec![4, 0, 1, 2, 3]);
    // Ordered by process id: rank 2 (pid 1) before rank 0 (pid 4).
    assert_eq!(n.intra(0), vec![2, 0]);
    assert_eq!(n.intra(3), vec![1, 3]);
    assert_eq!(n.intra(4), vec![4]);
    assert_eq!(n.leaders(), vec![1, 2, 4]);
    assert!(!n.is_uniform());
    assert_eq!(n.num_core(), 1);
    let b = Nodes::blocked(12, 4);
    assert!(b.is_uniform());
    assert_eq!(b.num_core(), 4);
    assert_eq!(b.leaders(), vec![0, 4, 8]);
    assert_eq!(Nodes::blocked(10, 4).num_core(), 1);
}

#[test]
fn smp_init_exchanges_what_simgrid_learns() {
    const U: usize = smp::SMP_INIT_UNIT;
    for size in sizes() {
        for (p, nodes) in placements(size).iter().enumerate() {
            let leaders = nodes.leaders();
            let lay = SmpInitLayout::new(size, leaders.len());
            let mems = run_all(
                size,
                |r| {
                    let s = smp_init(Position { rank: r, size }, nodes).unwrap();
                    check_shape(&s, size);
                    s
                },
                |r| Mem::new(vec![], contrib(r, U * lay.len)),
            );
            let what = format!("{size} ranks, placement {p}");
            // Integer `i` of rank `r`'s buffer holds integer `from` of rank
            // `owner`'s.
            let holds = |m: &Mem, i: usize, owner: usize, from: usize| {
                for k in 0..U {
                    let got = &m.recv[U * i + k];
                    assert_eq!(got, &vec![tok(owner, U * from + k)], "{what}");
                }
            };
            for (r, m) in mems.iter().enumerate() {
                for i in 0..size {
                    holds(m, i, i, lay.my_leader);
                }
                if leaders.contains(&r) {
                    for (k, &l) in leaders.iter().enumerate() {
                        holds(m, size + k, l, lay.my_local_size);
                    }
                }
                holds(m, lay.is_uniform, nodes.intra(r)[0], lay.is_uniform);
                for k in 0..U {
                    let shift = (U * lay.all_blocked) as u64 - (U * lay.is_blocked) as u64;
                    let e: Elem = m.recv[U * lay.all_blocked + k]
                        .iter()
                        .map(|t| t + shift)
                        .collect();
                    assert_folded_once(&e, U * lay.all_blocked + k, size, true, &what);
                }
            }
        }
    }
}

#[test]
fn allreduce_all_algorithms() {
    // impi is a selector: it picks among the others by the table
    // (`selectors_follow_their_tables`).
    let algorithms = AllreduceAlgorithm::ALL
        .iter()
        .copied()
        .filter(|&a| a != AllreduceAlgorithm::Impi);
    for alg in algorithms {
        let radices: &[usize] = if alg == AllreduceAlgorithm::RecursiveK {
            &[2, 3, 4, 5, 8]
        } else {
            &[DEFAULT_RADIX]
        };
        let placed = if alg.needs_placement() { 0..5 } else { 0..1 };
        for (&radix, placement) in radices
            .iter()
            .flat_map(|r| placed.clone().map(move |p| (r, p)))
        {
            for size in sizes() {
                let powers_only = matches!(
                    alg,
                    AllreduceAlgorithm::Rab1 | AllreduceAlgorithm::SmpRsagRab
                );
                if powers_only && !size.is_power_of_two() {
                    let smp = Smp {
                        nodes: &placements(size)[placement],
                        mv2: Mv2Allreduce::default(),
                        intra_reduce: ReduceAlgorithm::Default,
                        intra_bcast: BcastAlgorithm::Default,
                    };
                    let reduction = Reduction {
                        count: size,
                        commutative: true,
                        in_place: false,
                    };
                    let at = Position { rank: 0, size };
                    assert!(matches!(
                        allreduce_smp(alg, at, reduction, Tuning::default(), &smp),
                        Err(CollError::NeedsPowerOfTwo { .. })
                    ));
                    continue;
                }
                // Around the number of ranks: lr, rab_rdb, rab1 and rab2
                // split by it (rab2 pads below it); with 512 KiB elements,
                // ompi_ring_segmented makes segments of 2 and up to 3
                // phases of them.
                for count in [0, 1, 3, size, 2 * size + 1, 5 * size + 3] {
                    for commutative in [false, true] {
                        for in_place in [false, true] {
                            let what = format!(
                                "{alg} (k={radix}), {size} ranks (placement {placement}), \
                                 {count} elements, commutative {commutative}, in place {in_place}"
                            );
                            let mems = run_all(
                                size,
                                |r| {
                                    let reduction = Reduction {
                                        count,
                                        commutative,
                                        in_place,
                                    };
                                    let tuning = Tuning {
                                        elem_bytes: 512 << 10,
                                        radix,
                                    };
                                    let at = Position { rank: r, size };
                                    let s = if alg.needs_placement() {
                                        let smp = Smp {
                                            nodes: &placements(size)[placement],
                                            // Both states of the two-level
                                            // algorithm, by placement.
                                            mv2: if placement % 2 == 0 {
                                                Mv2Allreduce::default()
                                            } else {
                                                Mv2Allreduce {
                                                    inter: Mv2Inter::Rs,
                                                    intra: Mv2Intra::Reduce,
                                                }
                                            },
                                            intra_reduce: ReduceAlgorithm::Default,
                                            intra_bcast: BcastAlgorithm::Default,
                                        };
                                        allreduce_smp(alg, at, reduction, tuning, &smp).unwrap()
                                    } else {
                                        allreduce_with(alg, at, reduction, tuning).unwrap()
                                    };
                                    check_shape(&s, size);
                                    s
                                },
                                |r| {
                                    if in_place {
                                        Mem::new(vec![], contrib(r, count))
                                    } else {
                                        Mem::new(contrib(r, count), unset(count))
                                    }
                                },
                            );
                            // Every rank gets each rank's contribution
                            // once, in rank order unless the operation
                            // commutes (then a op b and b op a may differ
                            // here, but not in arithmetic).
                            for (j, e) in mems.iter().flat_map(|m| m.recv.iter().enumerate()) {
                                assert_folded_once(e, j, size, commutative, &what);
                            }
                        }
                    }
                }
            }
        }
    }
    let reduction = Reduction {
        count: 1,
        commutative: true,
        in_place: false,
    };
    let tuning = Tuning {
        elem_bytes: 8,
        radix: 1,
    };
    assert_eq!(
        allreduce_with(
            AllreduceAlgorithm::RecursiveK,
            Position { rank: 0, size: 4 },
            reduction,
            tuning
        ),
        Err(CollError::BadRadix(1))
    );
}

/// Each communication round of `s` (local-only rounds left out) as
/// (peer, element count) pairs, sends positive and receives negative
/// (`-0` cannot be told apart, so counts are shifted by one).
fn messages(s: &Schedule) -> Vec<Vec<(usize, isize)>> {
    s.rounds()
        .filter(|r| !r.comm.is_empty())
        .map(|r| {
            r.comm
                .iter()
                .map(|c| {
                    let n = c.block().count as isize + 1;
                    match c {
                        Comm::Send { to, .. } => (*to, n),
                        Comm::Recv { from, .. } => (*from, -n),
                    }
                })
                .collect()
        })
        .collect()
}

/// Rank `rank`'s schedule of an `MPI_Allreduce` of `count` 8-byte
/// elements on `size` ranks with `alg`.
fn allreduce_schedule(
    alg: AllreduceAlgorithm,
    rank: usize,
    size: usize,
    count: usize,
    commutative: bool,
) -> Schedule {
    let reduction = Reduction {
        count,
        commutative,
        in_place: false,
    };
    let tuning = Tuning {
        elem_bytes: 8,
        ..Tuning::default()
    };
    allreduce_with(alg, Position { rank, size }, reduction, tuning).unwrap()
}

/// SimGrid's `rab_rdb` cuts the vector into `count / pof2` elements per
/// block, the last block taking the remainder: the message sizes, so the
/// times, depend on it.
#[test]
fn allreduce_rab_rdb_puts_the_remainder_in_the_last_block() {
    let rank_0 = |count| {
        messages(&allreduce_schedule(
            AllreduceAlgorithm::RabRdb,
            0,
            4,
            count,
            true,
        ))
    };
    // 6 elements on 4 ranks: blocks of 1, 1, 1 and 3.
    assert_eq!(
        rank_0(6),
        [
            vec![(1, 5), (1, -3)],
            vec![(2, 2), (2, -2)],
            vec![(2, 2), (2, -2)],
            vec![(1, 3), (1, -5)],
        ]
    );
    // 3 elements, fewer than ranks: blocks of 0, 0, 0 and 3.
    assert_eq!(
        rank_0(3),
        [
            vec![(1, 4), (1, -1)],
            vec![(2, 1), (2, -1)],
            vec![(2, 1), (2, -1)],
            vec![(1, 1), (1, -4)],
        ]
    );
}

/// The message sizes of SimGrid's other Rabenseifner variants, which set
/// their times: where the padding and the remainder go.
#[test]
fn allreduce_rab_family_messages_match_simgrid() {
    use AllreduceAlgorithm::{Default, Mvapich2Rs, Rab, Rab1, Rab2, RabRdb, Rdb};
    let build = allreduce_schedule;
    let sum = |alg, rank, size, count| messages(&build(alg, rank, size, count, true));
    // mvapich2_rs from one element per rank of the power of two up is
    // rab_rdb (the same MPICH code).
    for rank in 0..6 {
        assert_eq!(
            build(Mvapich2Rs, rank, 6, 9, true),
            build(RabRdb, rank, 6, 9, true)
        );
    }
    // rab1, 5 elements on 4 ranks: padded to blocks of 2, the farthest
    // partner first, then the default allgather.
    assert_eq!(
        sum(Rab1, 0, 4, 5),
        [
            vec![(2, 5), (2, -5)],
            vec![(1, 3), (1, -3)],
            vec![(1, 3), (1, -3), (2, 3), (2, -3), (3, 3), (3, -3)],
        ]
    );
    // rab2 below one element per rank: blocks of `size` elements.
    let rab2 = sum(Rab2, 1, 4, 3);
    assert!(
        rab2.iter().flatten().all(|&(_, n)| n.abs() == 5),
        "{rab2:?}"
    );
    // rab, 5 elements on 3 ranks: ranks 0 and 1 swap halves (2 | 3), rank 1
    // hands its half back, rank 0 works with rank 2, then gives rank 1 the
    // result.
    assert_eq!(
        sum(Rab, 0, 3, 5),
        [
            vec![(1, 4), (1, -3)],
            vec![(1, -4)],
            vec![(2, 4), (2, -3)],
            vec![(2, 3), (2, -4)],
            vec![(1, 6)],
        ]
    );
    assert_eq!(
        sum(Rab, 1, 3, 5),
        [vec![(0, 3), (0, -4)], vec![(0, 4)], vec![(0, -6)]]
    );
    // Where SimGrid would get non-commutative operations wrong, the
    // default; where it recurses forever (1 rank, 0 elements), too.
    let default = |rank, size, count, commutative| build(Default, rank, size, count, commutative);
    for rank in 0..6 {
        assert_eq!(build(Rab2, rank, 6, 12, false), default(rank, 6, 12, false));
        assert_eq!(
            build(Rab1, rank % 4, 4, 12, false),
            default(rank % 4, 4, 12, false)
        );
        assert_eq!(
            build(Mvapich2Rs, rank, 6, 12, false),
            default(rank, 6, 12, false)
        );
        assert_eq!(
            build(Mvapich2Rs, rank, 6, 3, false),
            build(Rdb, rank, 6, 3, false)
        );
        assert_eq!(build(Rab, rank, 6, 0, false), default(rank, 6, 0, false));
        assert!(build(Mvapich2Rs, rank, 6, 0, true).is_empty());
    }
    assert_eq!(build(Rab, 0, 1, 4, true), default(0, 1, 4, true));
}

/// `smp_binomial_pipeline` cuts the vector into 4096-element segments:
/// several of them, the last one short or not, on every placement.
#[test]
fn allreduce_smp_binomial_pipeline_over_several_segments() {
    let alg = AllreduceAlgorithm::SmpBinomialPipeline;
    for size in [1, 5, 12, 16] {
        for (placement, nodes) in placements(size).iter().enumerate() {
            for count in [3 * 4096, 2 * 4096 + 5] {
                for (commutative, in_place) in [(false, false), (true, true)] {
                    let what = format!(
                        "{alg}, {size} ranks (placement {placement}), {count} elements, \
                         commutative {commutative}, in place {in_place}"
                    );
                    let mems = run_all(
                        size,
                        |r| {
                            let smp = Smp {
                                nodes,
                                mv2: Mv2Allreduce::default(),
                                intra_reduce: ReduceAlgorithm::Default,
                                intra_bcast: BcastAlgorithm::Default,
                            };
                            let reduction = Reduction {
                                count,
                                commutative,
                                in_place,
                            };
                            let at = Position { rank: r, size };
                            let s =
                                allreduce_smp(alg, at, reduction, Tuning::default(), &smp).unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            if in_place {
                                Mem::new(vec![], contrib(r, count))
                            } else {
                                Mem::new(contrib(r, count), unset(count))
                            }
                        },
                    );
                    for (j, e) in mems.iter().flat_map(|m| m.recv.iter().enumerate()) {
                        assert_folded_once(e, j, size, commutative, &what);
                    }
                }
            }
        }
    }
}

// ----------------------------------------------------- gather and scatter

#[test]
fn gather_all_roots() {
    for (alg, size) in GatherAlgorithm::ALL
        .iter()
        .flat_map(|&a| sizes().map(move |s| (a, s)))
    {
        // With 512-byte elements, linear_sync's first segment (1 KiB) is
        // 2 elements: blocks of 3 go in two parts.
        let elem_sizes: &[usize] = if alg == GatherAlgorithm::OmpiLinearSync {
            &[8, 512]
        } else {
            &[8]
        };
        let cases = elem_sizes
            .iter()
            .flat_map(|&e| (0..size).flat_map(move |root| COUNTS.map(|c| (e, root, c))));
        for (elem_bytes, root, count) in cases {
            {
                for in_place in [false, true] {
                    let mems = run_all(
                        size,
                        |r| {
                            let at = RootedPosition {
                                rank: r,
                                size,
                                root,
                            };
                            let blocks = Blocks {
                                sendcount: count,
                                recvcount: count,
                                in_place,
                            };
                            let tuning = Tuning {
                                elem_bytes,
                                ..Tuning::default()
                            };
                            let s = gather_with(alg, at, blocks, tuning).unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            if r != root {
                                Mem::new(contrib(r, count), vec![])
                            } else if in_place {
                                let mut recv = unset(size * count);
                                recv[r * count..(r + 1) * count]
                                    .clone_from_slice(&contrib(r, count));
                                Mem::new(vec![], recv)
                            } else {
                                Mem::new(contrib(r, count), unset(size * count))
                            }
                        },
                    );
                    let want: Vec<Elem> = (0..size).flat_map(|i| contrib(i, count)).collect();
                    assert_eq!(
                        mems[root].recv, want,
                        "{alg} size {size} root {root} count {count} in place {in_place}"
                    );
                }
            }
        }
    }
}

#[test]
fn scatter_all_roots() {
    for (alg, size) in ScatterAlgorithm::ALL
        .iter()
        .flat_map(|&a| sizes().map(move |s| (a, s)))
    {
        for root in 0..size {
            for count in COUNTS {
                for in_place in [false, true] {
                    // The root's send buffer: block i is contrib(i).
                    let blocks: Vec<Elem> = (0..size).flat_map(|i| contrib(i, count)).collect();
                    let mems = run_all(
                        size,
                        |r| {
                            let at = RootedPosition {
                                rank: r,
                                size,
                                root,
                            };
                            let blocks = Blocks {
                                sendcount: count,
                                recvcount: count,
                                in_place,
                            };
                            let s = scatter_with(alg, at, blocks).unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            if r != root {
                                Mem::new(vec![], unset(count))
                            } else if in_place {
                                // MPI_IN_PLACE as recvbuf: must not be touched.
                                Mem::new(blocks.clone(), vec![])
                            } else {
                                Mem::new(blocks.clone(), unset(count))
                            }
                        },
                    );
                    for (r, m) in mems.iter().enumerate() {
                        if r == root && in_place {
                            assert!(m.recv.is_empty());
                        } else {
                            assert_eq!(
                                m.recv,
                                contrib(r, count),
                                "{alg} size {size} root {root} count {count}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Deterministic irregular counts and displacements (with gaps, blocks out
/// of rank order) for the v-variants; the property tests randomize them.
fn irregular(size: usize) -> (Vec<usize>, Vec<usize>, usize) {
    let counts: Vec<usize> = (0..size).map(|i| (i * 7 + 3) % 4).collect();
    let mut displs = vec![0; size];
    let mut off = 0;
    for i in (0..size).rev() {
        displs[i] = off;
        off += counts[i] + i % 2;
    }
    (counts, displs, off)
}

#[test]
fn gatherv_scatterv_irregular_all_roots() {
    for size in sizes() {
        let (counts, displs, len) = irregular(size);
        for root in 0..size {
            for in_place in [false, true] {
                // gatherv
                let mems = run_all(
                    size,
                    |r| {
                        let (recvcounts, displs): (&[usize], &[usize]) = if r == root {
                            (&counts, &displs)
                        } else {
                            (&[], &[])
                        };
                        let at = RootedPosition {
                            rank: r,
                            size,
                            root,
                        };
                        let blocks = GathervBlocks {
                            sendcount: counts[r],
                            recvcounts,
                            displs,
                            in_place,
                        };
                        gatherv(at, blocks).unwrap()
                    },
                    |r| {
                        if r != root {
                            Mem::new(contrib(r, counts[r]), vec![])
                        } else if in_place {
                            let mut recv = unset(len);
                            recv[displs[r]..displs[r] + counts[r]]
                                .clone_from_slice(&contrib(r, counts[r]));
                            Mem::new(vec![], recv)
                        } else {
                            Mem::new(contrib(r, counts[r]), unset(len))
                        }
                    },
                );
                let mut want = unset(len);
                for i in 0..size {
                    want[displs[i]..displs[i] + counts[i]].clone_from_slice(&contrib(i, counts[i]));
                }
                assert_eq!(mems[root].recv, want);

                // scatterv, the same layout in the root's send buffer.
                let mems = run_all(
                    size,
                    |r| {
                        let (sendcounts, displs): (&[usize], &[usize]) = if r == root {
                            (&counts, &displs)
                        } else {
                            (&[], &[])
                        };
                        let at = RootedPosition {
                            rank: r,
                            size,
                            root,
                        };
                        let blocks = ScattervBlocks {
                            sendcounts,
                            displs,
                            recvcount: counts[r],
                            in_place,
                        };
                        scatterv(at, blocks).unwrap()
                    },
                    |r| {
                        if r != root {
                            Mem::new(vec![], unset(counts[r]))
                        } else if in_place {
                            Mem::new(want.clone(), vec![])
                        } else {
                            Mem::new(want.clone(), unset(counts[r]))
                        }
                    },
                );
                for (r, m) in mems.iter().enumerate() {
                    if !(r == root && in_place) {
                        assert_eq!(m.recv, contrib(r, counts[r]));
                    }
                }
            }
        }
    }
}

// -------------------------------------------------------------- allgather

#[test]
fn allgather_all_algorithms() {
    for alg in AllgatherAlgorithm::ALL.iter().copied() {
        for size in sizes() {
            for count in COUNTS {
                for in_place in [false, true] {
                    let mems = run_all(
                        size,
                        |r| {
                            let blocks = Blocks {
                                sendcount: count,
                                recvcount: count,
                                in_place,
                            };
                            let s =
                                allgather_with(alg, Position { rank: r, size }, blocks).unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            let mut recv = unset(size * count);
                            if in_place {
                                recv[r * count..(r + 1) * count]
                                    .clone_from_slice(&contrib(r, count));
                                Mem::new(vec![], recv)
                            } else {
                                Mem::new(contrib(r, count), recv)
                            }
                        },
                    );
                    let want: Vec<Elem> = (0..size).flat_map(|i| contrib(i, count)).collect();
                    for m in &mems {
                        assert_eq!(m.recv, want, "{alg} size {size}");
                    }
                }
            }
        }
    }
}

#[test]
fn allgatherv_irregular() {
    for (alg, size) in AllgathervAlgorithm::ALL
        .iter()
        .flat_map(|&a| sizes().map(move |s| (a, s)))
    {
        let (counts, displs, len) = irregular(size);
        let blocks = |r: usize, in_place| GathervBlocks {
            sendcount: counts[r],
            recvcounts: &counts,
            displs: &displs,
            in_place,
        };
        if alg == AllgathervAlgorithm::Pair && !size.is_power_of_two() {
            assert!(matches!(
                allgatherv_with(
                    alg,
                    Position { rank: 0, size },
                    blocks(0, false),
                    Tuning::default()
                ),
                Err(CollError::NeedsPowerOfTwo { .. })
            ));
            continue;
        }
        // 128 KiB elements: mpich_ring's pieces are 2 elements.
        let tuning = Tuning {
            elem_bytes: 128 << 10,
            ..Tuning::default()
        };
        for in_place in [false, true] {
            let mems = run_all(
                size,
                |r| {
                    let at = Position { rank: r, size };
                    let s = allgatherv_with(alg, at, blocks(r, in_place), tuning).unwrap();
                    check_shape(&s, size);
                    s
                },
                |r| {
                    let mut recv = unset(len);
                    if in_place {
                        recv[displs[r]..displs[r] + counts[r]]
                            .clone_from_slice(&contrib(r, counts[r]));
                        Mem::new(vec![], recv)
                    } else {
                        Mem::new(contrib(r, counts[r]), recv)
                    }
                },
            );
            let mut want = unset(len);
            for i in 0..size {
                want[displs[i]..displs[i] + counts[i]].clone_from_slice(&contrib(i, counts[i]));
            }
            for m in &mems {
                assert_eq!(m.recv, want, "{alg} size {size} in place {in_place}");
            }
        }
    }
}

// --------------------------------------------------------------- alltoall

/// Token of element k of the block rank i sends to rank j.
fn a2a(i: usize, j: usize, k: usize) -> Elem {
    vec![((i as u64) << 40) | ((j as u64) << 20) | k as u64]
}

#[test]
fn alltoall_default_follows_simgrids_table() {
    use AlltoallAlgorithm::{BasicLinear, Bruck, Pair, Ring};
    for (bytes, size, alg) in [
        (1, 2, Pair),
        (32, 2, BasicLinear),
        (600_000, 4, Pair),
        (4096, 8, BasicLinear),
        (64, 16, Bruck),
        (2, 16, BasicLinear),
        (511, 32, Bruck),
        (512, 32, BasicLinear),
        (100, 64, Bruck),
        (300_000, 64, Pair),
        // The table says pairwise; SimGrid's pair needs a power of two.
        (300_000, 96, Ring),
        (65536, 256, Pair),
        (300_000, 1000, Ring),
        (65536, 1024, BasicLinear),
        (2047, 4096, Bruck),
        (2048, 4096, BasicLinear),
    ] {
        assert_eq!(
            alltoall_default_for(bytes, size),
            alg,
            "{bytes} B on {size} ranks"
        );
    }
}

#[test]
fn selectors_follow_their_tables() {
    use selector::*;
    assert_eq!("ompi".parse::<Selector>(), Ok(Selector::Ompi));
    assert!("impi".parse::<Selector>().is_err());
    // Open MPI: recursive doubling for short, Rabenseifner for long.
    assert_eq!(
        select_allreduce(Selector::Ompi, 64, 8, true),
        AllreduceAlgorithm::Rdb
    );
    assert_eq!(
        select_allreduce(Selector::Ompi, 64, 1 << 20, true),
        AllreduceAlgorithm::RabRdb
    );
    // Non-commutative on 300 ranks: linear (reduce then bcast) for tiny
    // messages.
    assert_eq!(
        select_allreduce(Selector::Ompi, 300, 8, false),
        AllreduceAlgorithm::Redbcast
    );
    // MPICH: its SMP-aware algorithm (SimGrid takes MVAPICH2's) for
    // commutative operations, else recursive doubling.
    assert_eq!(
        select_allreduce(Selector::Mpich, 64, 4096, true),
        AllreduceAlgorithm::Mvapich2TwoLevel
    );
    assert_eq!(
        select_allreduce(Selector::Mpich, 64, 4096, false),
        AllreduceAlgorithm::Rdb
    );
    // MVAPICH2 (SimGrid's table): two-level up to 1 KiB on 16 ranks,
    // leaving MVAPICH2's reduce within hosts and recursive doubling among
    // them; its reduce-scatter above; recursive doubling for
    // non-commutative operations.
    let reduce_rd = Mv2Allreduce {
        inter: Mv2Inter::Rdb,
        intra: Mv2Intra::Reduce,
    };
    assert_eq!(
        select_allreduce_mvapich2(16, 1024, true),
        (AllreduceAlgorithm::Mvapich2TwoLevel, reduce_rd)
    );
    assert_eq!(
        select_allreduce_mvapich2(16, 1025, true).0,
        AllreduceAlgorithm::Mvapich2Rs
    );
    assert_eq!(
        select_allreduce_mvapich2(16, 64, false).0,
        AllreduceAlgorithm::Rdb
    );
    // 2048 ranks, 64..512 B: its reduce then bcast among leaders is not
    // recursive doubling, so the two-level algorithm runs its
    // reduce-scatter there; a multicast entry stands for recursive
    // doubling.
    assert_eq!(
        select_allreduce_mvapich2(2048, 100, true).1.inter,
        Mv2Inter::Rs
    );
    assert_eq!(
        select_allreduce_mvapich2(2048, 1000, true).1.inter,
        Mv2Inter::Rdb
    );
    assert_eq!(
        select_allreduce_mvapich2(4096, 20000, true).0,
        AllreduceAlgorithm::Mvapich2Rs
    );
    // Intel MPI (SimGrid's table): by ranks per host, ranks and bytes.
    assert_eq!(select_allreduce_impi(16, 4, 64), AllreduceAlgorithm::Rdb);
    assert_eq!(select_allreduce_impi(16, 4, 2000), AllreduceAlgorithm::Rab1);
    assert_eq!(select_allreduce_impi(16, 4, 5000), AllreduceAlgorithm::Rdb);
    assert_eq!(
        select_allreduce_impi(16, 4, 200000),
        AllreduceAlgorithm::OmpiRingSegmented
    );
    assert_eq!(
        select_allreduce_impi(16, 4, 1 << 20),
        AllreduceAlgorithm::Redbcast
    );
    // 3 ranks per host is not in the table: the one-per-host table.
    assert_eq!(
        select_allreduce_impi(2, 3, 5),
        AllreduceAlgorithm::OmpiRingSegmented
    );
    assert_eq!(select_allreduce_impi(2, 3, 6), AllreduceAlgorithm::Rdb);
    assert_eq!(
        select_allreduce_impi(1000, 1, 6),
        AllreduceAlgorithm::Mvapich2TwoLevel
    );
    assert_eq!(
        select_alltoall(Selector::Mpich, 16, 64),
        AlltoallAlgorithm::Bruck
    );
    assert_eq!(
        select_alltoall(Selector::Mpich, 16, 65536),
        AlltoallAlgorithm::Pair
    );
    assert_eq!(
        select_alltoall(Selector::Mpich, 12, 65536),
        AlltoallAlgorithm::Ring
    );
    assert_eq!(
        select_alltoall(Selector::Ompi, 64, 100),
        AlltoallAlgorithm::Bruck
    );
    assert_eq!(
        select_alltoallv(Selector::Ompi, 100),
        AlltoallvAlgorithm::Ring
    );
    assert_eq!(
        select_alltoallv(Selector::Ompi, 40),
        AlltoallvAlgorithm::Default
    );
    assert_eq!(
        select_barrier(Selector::Ompi, 300),
        BarrierAlgorithm::OmpiTree
    );
    assert_eq!(
        select_barrier(Selector::Ompi, 100),
        BarrierAlgorithm::OmpiBruck
    );
    assert_eq!(
        select_barrier(Selector::Mpich, 100),
        BarrierAlgorithm::OmpiBruck
    );
    assert_eq!(
        select_barrier(Selector::Default, 100),
        BarrierAlgorithm::Default
    );
    assert_eq!(
        select_bcast(Selector::Mpich, 64, 8),
        BcastAlgorithm::BinomialTree
    );
    assert_eq!(
        select_bcast(Selector::Mpich, 8, 1 << 20),
        BcastAlgorithm::BinomialTree
    );
    assert_eq!(
        select_bcast(Selector::Mpich, 64, 1 << 20),
        BcastAlgorithm::ScatterLrAllgather
    );
    assert_eq!(
        select_bcast(Selector::Mpich, 64, 100000),
        BcastAlgorithm::ScatterRdbAllgather
    );
    assert_eq!(
        select_bcast(Selector::Mpich, 48, 100000),
        BcastAlgorithm::ScatterLrAllgather
    );
    // Open MPI's tables, where SimGrid 3.32's ompi selector gave the
    // same times as these algorithms.
    for (size, bytes, alg) in [
        (3, 100, BcastAlgorithm::Ntsb),
        (5, 5000, BcastAlgorithm::BinomialTree),
        (12, 2000, BcastAlgorithm::Mvapich2KnomialIntraNode),
        (20, 100000, BcastAlgorithm::BinomialTree),
        (64, 1 << 20, BcastAlgorithm::Mvapich2KnomialIntraNode),
        (300, 20000, BcastAlgorithm::OmpiSplitBintree),
        (1500, 1 << 20, BcastAlgorithm::ScatterRdbAllgather),
    ] {
        assert_eq!(
            select_bcast(Selector::Ompi, size, bytes),
            alg,
            "{size} {bytes}"
        );
    }
    assert_eq!(
        select_reduce(Selector::Mpich, 16, 1, 8, true),
        ReduceAlgorithm::Binomial
    );
    assert_eq!(
        select_reduce(Selector::Mpich, 16, 1000, 8000, true),
        ReduceAlgorithm::ScatterGather
    );
    assert_eq!(
        select_reduce(Selector::Mpich, 16, 1000, 8000, false),
        ReduceAlgorithm::Binomial
    );
    assert_eq!(
        select_reduce(Selector::Ompi, 16, 1000, 8000, true),
        ReduceAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_reduce(Selector::Ompi, 12, 500, 4000, true),
        ReduceAlgorithm::OmpiBinary
    );
    assert_eq!(
        select_reduce(Selector::Ompi, 5, 100000, 100000, true),
        ReduceAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_reduce(Selector::Ompi, 3, 1, 4, false),
        ReduceAlgorithm::OmpiInOrderBinary
    );
    assert_eq!(
        select_reduce(Selector::Ompi, 5, 1, 4, false),
        ReduceAlgorithm::OmpiBasicLinear
    );
    assert_eq!(
        select_allgather(Selector::Mpich, 64, 4096),
        AllgatherAlgorithm::Rdb
    );
    assert_eq!(
        select_allgather(Selector::Mpich, 48, 4096),
        AllgatherAlgorithm::Bruck
    );
    assert_eq!(
        select_allgather(Selector::Mpich, 48, 1 << 20),
        AllgatherAlgorithm::Ring
    );
    assert_eq!(
        select_allgather(Selector::Ompi, 64, 64 * 100000),
        AllgatherAlgorithm::Ring
    );
    assert_eq!(
        select_allgather(Selector::Ompi, 40, 40 * 10000),
        AllgatherAlgorithm::OmpiNeighborExchange
    );
    assert_eq!(
        select_allgather(Selector::Ompi, 12, 12 * 4000),
        AllgatherAlgorithm::Rdb
    );
    assert_eq!(
        select_gather(Selector::Ompi, 64, 8),
        GatherAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_gather(Selector::Ompi, 300, 4096),
        GatherAlgorithm::OmpiBasicLinear
    );
    assert_eq!(
        select_gather(Selector::Ompi, 2, 1),
        GatherAlgorithm::OmpiBasicLinear
    );
    // Where SimGrid 3.32's ompi selector gives linear_sync's times.
    for (size, bytes) in [(3, 131072), (2, 200000), (5, 262144), (7, 600000)] {
        assert_eq!(
            select_gather(Selector::Ompi, size, bytes),
            GatherAlgorithm::OmpiLinearSync
        );
    }
    assert_eq!(
        select_gather(Selector::Ompi, 5, 262143),
        GatherAlgorithm::OmpiBasicLinear
    );
    assert_eq!(
        select_gather(Selector::Mpich, 64, 8),
        GatherAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_scatter(Selector::Mpich, 64, 8),
        ScatterAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_reduce_scatter(Selector::Mpich, 16, 600000, 4800000, true),
        ReduceScatterAlgorithm::MpichPair
    );
    assert_eq!(
        select_reduce_scatter(Selector::Mpich, 16, 600000, 4800000, false),
        ReduceScatterAlgorithm::MpichRdb
    );
    for (size, bytes, alg) in [
        (3, 100, ReduceScatterAlgorithm::OmpiRing),
        (3, 100000, ReduceScatterAlgorithm::OmpiButterfly),
        (5, 4, ReduceScatterAlgorithm::Default),
        (
            16,
            100000,
            ReduceScatterAlgorithm::OmpiBasicRecursivehalving,
        ),
        (64, 100000, ReduceScatterAlgorithm::OmpiButterfly),
    ] {
        assert_eq!(
            select_reduce_scatter(Selector::Ompi, size, bytes / 8, bytes, true),
            alg,
            "{size} {bytes}"
        );
    }
    assert_eq!(
        select_reduce_scatter(Selector::Ompi, 64, 100, 800, false),
        ReduceScatterAlgorithm::Default
    );
    assert_eq!(
        select_allgatherv(Selector::Mpich, 48, 100000, 400000),
        AllgathervAlgorithm::MpichRing
    );
    assert_eq!(
        select_allgatherv(Selector::Mpich, 64, 100000, 400000),
        AllgathervAlgorithm::MpichRdb
    );
    assert_eq!(
        select_allgatherv(Selector::Mpich, 48, 1000, 4000),
        AllgathervAlgorithm::OmpiBruck
    );
    for (size, per_rank, alg) in [
        (2, 3000, AllgathervAlgorithm::Pair),
        (5, 100, AllgathervAlgorithm::Gb),
        (6, 1000, AllgathervAlgorithm::OmpiNeighborExchange),
        (12, 4000, AllgathervAlgorithm::OmpiBruck),
        (64, 100000, AllgathervAlgorithm::MpichRing),
    ] {
        assert_eq!(
            select_allgatherv(Selector::Ompi, size, per_rank * size / 4, per_rank * size),
            alg,
            "{size} {per_rank}"
        );
    }
    assert_eq!(
        select_scatter(Selector::Ompi, 64, 8),
        ScatterAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_scatter(Selector::Ompi, 64, 4096),
        ScatterAlgorithm::OmpiBasicLinear
    );
    assert_eq!(
        select_scatter(Selector::Ompi, 40, 10000),
        ScatterAlgorithm::OmpiBinomial
    );
    assert_eq!(
        select_scatter(Selector::Ompi, 3, 8),
        ScatterAlgorithm::OmpiBasicLinear
    );
}

#[test]
fn alltoall_all_algorithms() {
    for alg in AlltoallAlgorithm::ALL.iter().copied() {
        let radices: &[usize] = match alg {
            AlltoallAlgorithm::BruckK | AlltoallAlgorithm::RingK | AlltoallAlgorithm::Burst => {
                &[2, 3, 4, 7]
            }
            _ => &[DEFAULT_RADIX],
        };
        for &radix in radices {
            for size in sizes() {
                if alg == AlltoallAlgorithm::Pair && !size.is_power_of_two() {
                    let blocks = Blocks {
                        sendcount: 1,
                        recvcount: 1,
                        in_place: false,
                    };
                    let tuning = Tuning {
                        radix,
                        ..Tuning::default()
                    };
                    assert!(matches!(
                        alltoall_with(alg, Position { rank: 0, size }, blocks, tuning),
                        Err(CollError::NeedsPowerOfTwo { .. })
                    ));
                    continue;
                }
                for count in COUNTS {
                    for in_place in [false, true] {
                        check_alltoall(alg, radix, size, count, in_place);
                    }
                }
            }
        }
    }
}

fn check_alltoall(alg: AlltoallAlgorithm, radix: usize, size: usize, count: usize, in_place: bool) {
    let send_of = |i: usize| -> Vec<Elem> {
        (0..size)
            .flat_map(|j| (0..count).map(move |k| a2a(i, j, k)))
            .collect()
    };
    let mems = run_all(
        size,
        |r| {
            let blocks = Blocks {
                sendcount: count,
                recvcount: count,
                in_place,
            };
            let tuning = Tuning {
                radix,
                ..Tuning::default()
            };
            let s = alltoall_with(alg, Position { rank: r, size }, blocks, tuning).unwrap();
            check_shape(&s, size);
            s
        },
        |r| {
            if in_place {
                Mem::new(vec![], send_of(r))
            } else {
                Mem::new(send_of(r), unset(size * count))
            }
        },
    );
    for (j, m) in mems.iter().enumerate() {
        let want: Vec<Elem> = (0..size)
            .flat_map(|i| (0..count).map(move |k| a2a(i, j, k)))
            .collect();
        assert_eq!(
            m.recv, want,
            "{alg} (k={radix}) size {size} count {count} in place {in_place}"
        );
    }
}

#[test]
fn alltoall_basic_linear_posting_order() {
    let blocks = Blocks {
        sendcount: 2,
        recvcount: 2,
        in_place: false,
    };
    let s = alltoall(Position { rank: 1, size: 4 }, blocks).unwrap();
    assert_eq!(s.round_count(), 1);
    let ops: Vec<(bool, usize)> = s
        .round(0)
        .comm
        .iter()
        .map(|c| (matches!(c, Comm::Send { .. }), c.peer()))
        .collect();
    assert_eq!(
        ops,
        [
            (false, 2),
            (false, 3),
            (false, 0),
            (true, 0),
            (true, 3),
            (true, 2)
        ]
    );
}

/// Alltoallv with rank-dependent counts: rank i sends (i + 2j) % 3 elements
/// to rank j, blocks laid out in reverse rank order with gaps.
#[test]
fn alltoallv_irregular() {
    // The crystal router is the engine's (e2e tests); it has no schedule.
    let one_block = AlltoallvBlocks {
        sendcounts: &[1],
        sdispls: &[0],
        recvcounts: &[1],
        rdispls: &[0],
        in_place: false,
    };
    assert_eq!(
        alltoallv_with(
            AlltoallvAlgorithm::CrystalRouter,
            Position { rank: 0, size: 1 },
            one_block,
            Tuning::default()
        ),
        Err(CollError::NotASchedule("alltoallv crystal_router"))
    );
    let scheduled = AlltoallvAlgorithm::ALL
        .iter()
        .filter(|&&a| a != AlltoallvAlgorithm::CrystalRouter);
    let variants = scheduled.flat_map(|&a| {
        let radices: &[usize] =
            if matches!(a, AlltoallvAlgorithm::RingK | AlltoallvAlgorithm::Burst) {
                &[2, 3, 5]
            } else {
                &[DEFAULT_RADIX]
            };
        radices.iter().map(move |&k| (a, k))
    });
    for ((alg, radix), size) in variants.flat_map(|v| sizes().map(move |s| (v, s))) {
        let cnt = |i: usize, j: usize| (i + 2 * j) % 3;
        let layout = |counts: &[usize]| -> (Vec<usize>, usize) {
            let mut displs = vec![0; counts.len()];
            let mut off = 1; // a leading gap
            for k in (0..counts.len()).rev() {
                displs[k] = off;
                off += counts[k] + k % 2;
            }
            (displs, off)
        };
        for in_place in [false, true] {
            // In place needs symmetric counts: use cnt(min, max).
            let c = |i: usize, j: usize| {
                if in_place {
                    cnt(i.min(j), i.max(j))
                } else {
                    cnt(i, j)
                }
            };
            let sc = |i: usize| (0..size).map(|j| c(i, j)).collect::<Vec<_>>();
            let rc = |j: usize| (0..size).map(|i| c(i, j)).collect::<Vec<_>>();
            let mems = run_all(
                size,
                |r| {
                    let (sendcounts, recvcounts) = (sc(r), rc(r));
                    let (sdispls, _) = layout(&sendcounts);
                    let (rdispls, _) = layout(&recvcounts);
                    let blocks = AlltoallvBlocks {
                        sendcounts: &sendcounts,
                        sdispls: &sdispls,
                        recvcounts: &recvcounts,
                        rdispls: &rdispls,
                        in_place,
                    };
                    let tuning = Tuning {
                        radix,
                        ..Tuning::default()
                    };
                    let s =
                        alltoallv_with(alg, Position { rank: r, size }, blocks, tuning).unwrap();
                    check_shape(&s, size);
                    s
                },
                |r| {
                    let (sd, slen) = layout(&sc(r));
                    let (rd, rlen) = layout(&rc(r));
                    let mut recv = unset(rlen);
                    if in_place {
                        for j in 0..size {
                            for k in 0..c(r, j) {
                                recv[rd[j] + k] = a2a(r, j, k);
                            }
                        }
                        Mem::new(vec![], recv)
                    } else {
                        let mut send = unset(slen);
                        for j in 0..size {
                            for k in 0..c(r, j) {
                                send[sd[j] + k] = a2a(r, j, k);
                            }
                        }
                        Mem::new(send, recv)
                    }
                },
            );
            for (j, m) in mems.iter().enumerate() {
                let (rd, rlen) = layout(&rc(j));
                let mut want = unset(rlen);
                for i in 0..size {
                    for k in 0..c(i, j) {
                        want[rd[i] + k] = a2a(i, j, k);
                    }
                }
                assert_eq!(
                    m.recv, want,
                    "{alg} (k={radix}) size {size} in place {in_place}"
                );
            }
        }
    }
}

// --------------------------------------------------------- reduce_scatter

#[test]
fn reduce_scatter_block_all_sizes() {
    for size in sizes() {
        for count in COUNTS {
            for commutative in [false, true] {
                for in_place in [false, true] {
                    let total = size * count;
                    let mems = run_all(
                        size,
                        |r| {
                            let reduction = Reduction {
                                count,
                                commutative,
                                in_place,
                            };
                            let s = reduce_scatter_block(Position { rank: r, size }, reduction)
                                .unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            if in_place {
                                Mem::new(vec![], contrib(r, total))
                            } else {
                                Mem::new(contrib(r, total), unset(count))
                            }
                        },
                    );
                    let order = reduce_order(size, 0, commutative, false);
                    for (r, m) in mems.iter().enumerate() {
                        assert_eq!(m.recv[..count], folded_block(&order, r * count, count)[..]);
                        if in_place {
                            // The rest of the in-place buffer is untouched.
                            assert_eq!(m.recv[count..], contrib(r, total)[count..]);
                        } else {
                            assert_eq!(m.recv.len(), count);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn reduce_scatter_irregular() {
    for (alg, size) in ReduceScatterAlgorithm::ALL
        .iter()
        .flat_map(|&a| sizes().map(move |s| (a, s)))
    {
        let (counts, _, _) = irregular(size);
        let total: usize = counts.iter().sum();
        let starts: Vec<usize> = counts
            .iter()
            .scan(0, |a, &c| {
                let s = *a;
                *a += c;
                Some(s)
            })
            .collect();
        for commutative in [false, true] {
            for in_place in [false, true] {
                let mems = run_all(
                    size,
                    |r| {
                        let reduction = ReductionV {
                            recvcounts: &counts,
                            commutative,
                            in_place,
                        };
                        let s = reduce_scatter_with(alg, Position { rank: r, size }, reduction)
                            .unwrap();
                        check_shape(&s, size);
                        s
                    },
                    |r| {
                        if in_place {
                            Mem::new(vec![], contrib(r, total))
                        } else {
                            Mem::new(contrib(r, total), unset(counts[r]))
                        }
                    },
                );
                let order = reduce_order(size, 0, commutative, false);
                for (r, m) in mems.iter().enumerate() {
                    if commutative {
                        // Pairwise order: each rank once.
                        for (j, e) in m.recv[..counts[r]].iter().enumerate() {
                            assert_folded_once(e, starts[r] + j, size, true, &format!("{alg}"));
                        }
                        continue;
                    }
                    assert_eq!(
                        m.recv[..counts[r]],
                        folded_block(&order, starts[r], counts[r])[..],
                        "{alg} size {size} comm {commutative} in place {in_place}"
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------------- scan

fn check_scan(inclusive: bool, alg_name: &str) {
    for size in sizes() {
        for count in COUNTS {
            for commutative in [false, true] {
                for in_place in [false, true] {
                    let mems = run_all(
                        size,
                        |r| {
                            let at = Position { rank: r, size };
                            let reduction = Reduction {
                                count,
                                commutative,
                                in_place,
                            };
                            let s = if inclusive {
                                scan_with(alg_name.parse().unwrap(), at, reduction)
                            } else {
                                exscan_with(alg_name.parse().unwrap(), at, reduction)
                            }
                            .unwrap();
                            check_shape(&s, size);
                            s
                        },
                        |r| {
                            if in_place {
                                Mem::new(vec![], contrib(r, count))
                            } else {
                                Mem::new(contrib(r, count), unset(count))
                            }
                        },
                    );
                    for (r, m) in mems.iter().enumerate() {
                        let want = if inclusive {
                            folded_block(&(0..=r).collect::<Vec<_>>(), 0, count)
                        } else if r > 0 {
                            folded_block(&(0..r).collect::<Vec<_>>(), 0, count)
                        } else if in_place {
                            contrib(0, count)
                        } else {
                            unset(count)
                        };
                        assert_eq!(
                            m.recv, want,
                            "{alg_name} inclusive {inclusive} size {size} rank {r} in place {in_place}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn scan_all_algorithms() {
    for a in ScanAlgorithm::ALL {
        check_scan(true, a.name());
    }
}

#[test]
fn exscan_all_algorithms() {
    for a in ExscanAlgorithm::ALL {
        check_scan(false, a.name());
    }
}

#[test]
fn scan_linear_is_a_chain() {
    let reduction = Reduction {
        count: 3,
        commutative: false,
        in_place: false,
    };
    for rank in 0..10 {
        let s = scan_with(
            ScanAlgorithm::Linear,
            Position { rank, size: 10 },
            reduction,
        )
        .unwrap();
        assert!(s.comm_count() <= 2);
        assert!(s.rounds().all(|x| x.comm.len() <= 1));
    }
}

// ------------------------------------------------------ errors and limits

#[test]
fn bad_arguments_are_typed_errors() {
    let one = Blocks {
        sendcount: 1,
        recvcount: 1,
        in_place: false,
    };
    let sum_of_1 = Reduction {
        count: 1,
        commutative: true,
        in_place: false,
    };
    assert_eq!(
        barrier(Position { rank: 0, size: 0 }),
        Err(CollError::EmptyCommunicator)
    );
    assert_eq!(
        bcast(
            RootedPosition {
                rank: 4,
                size: 4,
                root: 0
            },
            1
        ),
        Err(CollError::RankOutOfRange { rank: 4, size: 4 })
    );
    assert_eq!(
        bcast(
            RootedPosition {
                rank: 0,
                size: 4,
                root: 4
            },
            1
        ),
        Err(CollError::RootOutOfRange { root: 4, size: 4 })
    );
    assert!(matches!(
        reduce(
            RootedPosition {
                rank: 0,
                size: 3,
                root: 7
            },
            sum_of_1
        ),
        Err(CollError::RootOutOfRange { .. })
    ));
    assert!(matches!(
        gather(
            RootedPosition {
                rank: 1,
                size: 3,
                root: 3
            },
            one
        ),
        Err(CollError::RootOutOfRange { .. })
    ));
    assert!(matches!(
        scatter(
            RootedPosition {
                rank: 1,
                size: 3,
                root: 5
            },
            one
        ),
        Err(CollError::RootOutOfRange { .. })
    ));

    let root_of_3 = RootedPosition {
        rank: 0,
        size: 3,
        root: 0,
    };
    let gathered = GathervBlocks {
        sendcount: 1,
        recvcounts: &[1, 1, 1],
        displs: &[0, 1, 2],
        in_place: false,
    };
    assert_eq!(
        gatherv(
            root_of_3,
            GathervBlocks {
                recvcounts: &[1, 1],
                ..gathered
            }
        ),
        Err(CollError::WrongLength {
            what: "recvcounts",
            got: 2,
            expected: 3
        })
    );
    // Root arrays are not read elsewhere.
    let leaf_of_3 = RootedPosition {
        rank: 1,
        ..root_of_3
    };
    let unread = GathervBlocks {
        recvcounts: &[],
        displs: &[],
        ..gathered
    };
    assert!(gatherv(leaf_of_3, unread).is_ok());
    let scattered = ScattervBlocks {
        sendcounts: &[],
        displs: &[],
        recvcount: 1,
        in_place: false,
    };
    assert!(scatterv(leaf_of_3, scattered).is_ok());
    let short_displs = ScattervBlocks {
        sendcounts: &[1, 1, 1],
        displs: &[0],
        ..scattered
    };
    assert!(matches!(
        scatterv(root_of_3, short_displs),
        Err(CollError::WrongLength { what: "displs", .. })
    ));

    let first_of_2 = Position { rank: 0, size: 2 };
    let short_displs = GathervBlocks {
        recvcounts: &[1, 1],
        displs: &[0],
        ..gathered
    };
    assert!(matches!(
        allgatherv(first_of_2, short_displs),
        Err(CollError::WrongLength { what: "displs", .. })
    ));
    let exchanged = AlltoallvBlocks {
        sendcounts: &[1],
        sdispls: &[0, 1],
        recvcounts: &[1, 1],
        rdispls: &[0, 1],
        in_place: false,
    };
    assert!(matches!(
        alltoallv(first_of_2, exchanged),
        Err(CollError::WrongLength {
            what: "sendcounts",
            ..
        })
    ));
    // In place, the send arrays are ignored.
    let in_place = AlltoallvBlocks {
        sendcounts: &[],
        sdispls: &[],
        in_place: true,
        ..exchanged
    };
    assert!(alltoallv(first_of_2, in_place).is_ok());
    let scattered_sum = ReductionV {
        recvcounts: &[1, 1],
        commutative: true,
        in_place: false,
    };
    assert!(matches!(
        reduce_scatter(root_of_3.position(), scattered_sum),
        Err(CollError::WrongLength {
            what: "recvcounts",
            ..
        })
    ));
    let overflowing = ReductionV {
        recvcounts: &[usize::MAX, 1],
        ..scattered_sum
    };
    assert!(matches!(
        reduce_scatter(first_of_2, overflowing),
        Err(CollError::Overflow { .. })
    ));
    let root_of_2 = RootedPosition {
        rank: 0,
        size: 2,
        root: 0,
    };
    let overflowing = GathervBlocks {
        recvcounts: &[1, 1],
        displs: &[0, usize::MAX],
        ..gathered
    };
    assert!(matches!(
        gatherv(root_of_2, overflowing),
        Err(CollError::Overflow { .. })
    ));
    let first_of_4 = Position { rank: 0, size: 4 };
    let huge = Blocks {
        sendcount: usize::MAX / 2,
        ..one
    };
    assert!(matches!(
        alltoall(first_of_4, huge),
        Err(CollError::Overflow { .. })
    ));
    let huge_sum = Reduction {
        count: usize::MAX / 2,
        ..sum_of_1
    };
    assert!(matches!(
        reduce_scatter_block(first_of_4, huge_sum),
        Err(CollError::Overflow { .. })
    ));
    let first_of_6 = Position { rank: 0, size: 6 };
    assert!(matches!(
        alltoall_with(AlltoallAlgorithm::Pair, first_of_6, one, Tuning::default()),
        Err(CollError::NeedsPowerOfTwo { size: 6, .. })
    ));
    for e in [
        CollError::EmptyCommunicator,
        CollError::RootOutOfRange { root: 1, size: 1 },
    ] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn schedules_stay_small_for_huge_communicators() {
    // A million ranks: inner ranks of linear algorithms and every rank of a
    // tree have tiny schedules; linear roots are O(size), not O(size^2).
    let p = 1_000_000;
    let one = Blocks {
        sendcount: 1,
        recvcount: 1,
        in_place: false,
    };
    let sum_of_1 = Reduction {
        count: 1,
        commutative: true,
        in_place: false,
    };
    let chain_of_1 = Reduction {
        count: 1,
        commutative: false,
        in_place: false,
    };
    let scattered = ScattervBlocks {
        sendcounts: &[],
        displs: &[],
        recvcount: 1,
        in_place: false,
    };
    for rank in [1, 17, p / 2, p - 1] {
        let at = Position { rank, size: p };
        let from_0 = RootedPosition {
            rank,
            size: p,
            root: 0,
        };
        assert!(bcast(from_0, 8).unwrap().round_count() <= 21);
        assert_eq!(gather(from_0, one).unwrap().comm_count(), 1);
        assert_eq!(scatterv(from_0, scattered).unwrap().comm_count(), 1);
        assert_eq!(reduce(from_0, sum_of_1).unwrap().comm_count(), 1);
        assert!(allreduce(at, sum_of_1).unwrap().comm_count() <= 22);
        // The chains; the default scans, SimGrid's, are O(size) per rank.
        let linear = ScanAlgorithm::Linear;
        assert!(scan_with(linear, at, chain_of_1).unwrap().comm_count() <= 2);
        let in_place = Reduction {
            in_place: true,
            ..chain_of_1
        };
        let linear = ExscanAlgorithm::Linear;
        assert!(exscan_with(linear, at, in_place).unwrap().comm_count() <= 2);
        assert_eq!(barrier(at).unwrap().comm_count(), 2);
    }
    let root = RootedPosition {
        rank: 0,
        size: p,
        root: 0,
    };
    assert_eq!(gather(root, one).unwrap().comm_count(), p - 1);
    assert_eq!(barrier(root.position()).unwrap().comm_count(), 2 * (p - 1));
    assert_eq!(reduce(root, sum_of_1).unwrap().comm_count(), p - 1);
}

// --------------------------------------------------------------- registry

#[test]
fn registry_lists_and_parses_simgrid_names() {
    let names = algorithm_names();
    for c in Collective::ALL {
        let algs: Vec<_> = names.iter().filter(|(k, _)| k == c).collect();
        assert_eq!(algs[0].1, "default", "{c}");
        assert_eq!(c.name().parse::<Collective>().unwrap(), *c);
    }
    assert!(names.contains(&(Collective::Bcast, "binomial_tree")));
    assert!(names.contains(&(Collective::Barrier, "ompi_basic_linear")));
    assert!(names.contains(&(Collective::Reduce, "ompi_basic_linear")));
    assert!(names.contains(&(Collective::Alltoall, "basic_linear")));
    assert!(names.contains(&(Collective::Alltoall, "pair")));
    assert!(names.contains(&(Collective::Allgather, "ring")));
    assert_eq!(
        "binomial_tree".parse::<BcastAlgorithm>(),
        Ok(BcastAlgorithm::BinomialTree)
    );
    assert_eq!(
        "default".parse::<ReduceAlgorithm>(),
        Ok(ReduceAlgorithm::Default)
    );
    assert_eq!(ReduceAlgorithm::default(), ReduceAlgorithm::Default);
    let err = "nope".parse::<AllreduceAlgorithm>().unwrap_err();
    assert!(err.to_string().contains("allreduce"), "{err}");
    assert!(err.to_string().contains("default"), "{err}");
    assert!("nope".parse::<Collective>().is_err());
    for info in algorithms() {
        assert!(!info.description.is_empty());
    }
    assert_eq!(AlltoallAlgorithm::Pair.to_string(), "pair");
}

#[test]
fn schedule_helpers() {
    let root = RootedPosition {
        rank: 0,
        size: 3,
        root: 0,
    };
    let blocks = GathervBlocks {
        sendcount: 2,
        recvcounts: &[2, 1, 4],
        displs: &[0, 9, 3],
        in_place: false,
    };
    let s = gatherv(root, blocks).unwrap();
    assert_eq!(s.extent(Buf::Recv), 10);
    assert_eq!(s.extent(Buf::Send), 2);
    assert_eq!(s.extent(Buf::Tmp(0)), 0);
    assert!(!Buf::Recv.block(0, 0).overlaps(&Buf::Recv.block(0, 3)));
    assert!(Buf::Recv.block(2, 2).overlaps(&Buf::Recv.block(3, 3)));
    assert!(!Buf::Recv.block(2, 2).overlaps(&Buf::Send.block(2, 2)));
    let _ = UNSET;
}

#[test]
fn generated_exchange_rounds_read_as_the_stored_ones() {
    use crate::schedule::{recv, send, Builder};
    for size in [1usize, 2, 3, 5, 8, 13] {
        for rank in 0..size {
            let stored = {
                let mut b = Builder::new();
                b.copy(Buf::Send.block(rank * 2, 2), Buf::Recv.block(rank * 3, 3));
                for i in 1..size {
                    let peer = rank ^ i;
                    b.round(
                        vec![
                            send(peer, Buf::Send.block(peer * 2, 2)),
                            recv(peer, Buf::Recv.block(peer * 3, 3)),
                        ],
                        vec![],
                    );
                }
                b.finish()
            };
            let mut b = Builder::new();
            b.copy(Buf::Send.block(rank * 2, 2), Buf::Recv.block(rank * 3, 3));
            b.xor_exchanges(rank, size, 2, 3);
            let generated = b.finish();
            assert_eq!(generated.round_count(), stored.round_count());
            for (g, s) in generated.rounds().zip(stored.rounds()) {
                assert_eq!(
                    (&*g.comm, g.local, g.deferred),
                    (&*s.comm, s.local, s.deferred)
                );
            }
            assert_eq!(generated.comm_count(), stored.comm_count());
            for buf in [Buf::Send, Buf::Recv] {
                assert_eq!(generated.extent(buf), stored.extent(buf), "{size} {rank}");
            }
            // Whatever follows the generated rounds stores them first.
            let mut b = Builder::new();
            b.xor_exchanges(rank, size, 2, 3);
            b.local(Local::Copy {
                from: Buf::Recv.block(0, 3),
                to: Buf::Recv.block(3, 3),
            });
            let more = b.finish();
            assert_eq!(more.round_count(), size.saturating_sub(1).max(1));
            let last = more.round(more.round_count() - 1);
            assert_eq!(last.local.len(), 1);
            if size > 1 {
                assert_eq!(&*last.comm, &*stored.round(size - 1).comm);
            }
        }
    }
}

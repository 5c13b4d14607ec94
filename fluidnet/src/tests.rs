//! Hand-computed cases, and property tests against a deliberately simple
//! reference that recomputes everything from scratch at every step.

use super::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// Equal within 1e-9 relative (exactly equal for infinities).
fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

fn flow(amount: f64, uses: &[(ResourceId, f64)]) -> ActionSpec<'_> {
    ActionSpec {
        amount,
        penalty: 1.0,
        bound: None,
        factor: 1.0,
        uses,
    }
}

/// A system without work precision, so that hand-computed dates are exact.
fn system() -> System {
    System::new(Precision {
        work: 0.0,
        ..Precision::default()
    })
}

/// Advances to the next completion and returns it with what completed.
fn step(s: &mut System) -> (f64, Vec<ActionId>) {
    let t = s.next_completion().expect("something completes");
    let mut done = Vec::new();
    s.advance(t, &mut done);
    (t, done)
}

#[test]
fn two_flows_share_a_link_equally() {
    let mut s = system();
    let l = s.add_resource(100.0, Sharing::Shared);
    let a = s.start(&flow(100.0, &[(l, 1.0)]));
    let b = s.start(&flow(300.0, &[(l, 1.0)]));
    assert_eq!((s.rate(a), s.rate(b)), (50.0, 50.0));
    let (t, done) = step(&mut s);
    assert_eq!(t, 2.0);
    assert_eq!(done, vec![a]);
    // b has 200 left and now gets the whole link.
    assert_eq!(s.rate(b), 100.0);
    assert_eq!(s.remaining(b), 200.0);
    let (t, done) = step(&mut s);
    assert_eq!(t, 4.0);
    assert_eq!(done, vec![b]);
    assert_eq!(s.next_completion(), None);
    assert_eq!(s.active_actions(), 0);
}

#[test]
fn usage_is_what_the_running_flows_take_of_a_link() {
    let mut s = system();
    let wide = s.add_resource(100.0, Sharing::Shared);
    let narrow = s.add_resource(30.0, Sharing::Shared);
    let pipe = s.add_resource(100.0, Sharing::FatPipe);
    assert_eq!(s.usage(wide), 0.0);
    s.start(&flow(100.0, &[(wide, 1.0), (narrow, 1.0)]));
    let b = s.start(&flow(100.0, &[(wide, 2.0), (pipe, 1.0)]));
    // The first flow takes all of the narrow link (30); the second, the
    // rest of the wide one at coefficient 2 (35).
    assert_eq!(s.usage(narrow), 30.0);
    assert_eq!(s.usage(wide), 100.0);
    assert_eq!(s.rate(b), 35.0);
    assert_eq!(s.usage(pipe), 0.0, "a FATPIPE only bounds its flows");
    assert_eq!(s.capacity(narrow), 30.0);
}

#[test]
fn the_tightest_link_of_a_route_limits_a_flow() {
    let mut s = system();
    let fast = s.add_resource(100.0, Sharing::Shared);
    let slow = s.add_resource(10.0, Sharing::Shared);
    let across = s.start(&flow(10.0, &[(fast, 1.0), (slow, 1.0)]));
    let local = s.start(&flow(10.0, &[(fast, 1.0)]));
    // across is held to 10 by the slow link; local takes what is left.
    assert_eq!(s.rate(across), 10.0);
    assert_eq!(s.rate(local), 90.0);
}

#[test]
fn a_bound_below_the_fair_share_fixes_first() {
    let mut s = system();
    let l = s.add_resource(90.0, Sharing::Shared);
    let bounded = s.start(&ActionSpec {
        amount: 1.0,
        penalty: 1.0,
        bound: Some(10.0),
        factor: 1.0,
        uses: &[(l, 1.0)],
    });
    let x = s.start(&flow(1.0, &[(l, 1.0)]));
    let y = s.start(&flow(1.0, &[(l, 1.0)]));
    // Fair share would be 30; the bound takes 10, the others split 80.
    assert_eq!(s.rate(bounded), 10.0);
    assert_eq!((s.rate(x), s.rate(y)), (40.0, 40.0));
    // A bound above the fair share changes nothing.
    let mut s = system();
    let l = s.add_resource(90.0, Sharing::Shared);
    let loose = s.start(&ActionSpec {
        amount: 1.0,
        penalty: 1.0,
        bound: Some(50.0),
        factor: 1.0,
        uses: &[(l, 1.0)],
    });
    let z = s.start(&flow(1.0, &[(l, 1.0)]));
    assert_eq!((s.rate(loose), s.rate(z)), (45.0, 45.0));
}

#[test]
fn fatpipes_bound_each_flow_separately() {
    let mut s = system();
    let pipe = s.add_resource(50.0, Sharing::FatPipe);
    let x = s.start(&flow(1.0, &[(pipe, 1.0)]));
    let y = s.start(&flow(1.0, &[(pipe, 1.0)]));
    let double = s.start(&flow(1.0, &[(pipe, 2.0)]));
    assert_eq!((s.rate(x), s.rate(y)), (50.0, 50.0));
    assert_eq!(s.rate(double), 25.0);
    // Behind a shared link, the fatpipe is one more bound.
    let link = s.add_resource(80.0, Sharing::Shared);
    let a = s.start(&flow(1.0, &[(pipe, 1.0), (link, 1.0)]));
    let b = s.start(&flow(1.0, &[(link, 1.0)]));
    assert_eq!((s.rate(a), s.rate(b)), (40.0, 40.0));
    let c = s.start(&flow(1.0, &[(link, 1.0)]));
    let d = s.start(&flow(1.0, &[(link, 1.0)]));
    assert_eq!(s.rate(a), 20.0);
    s.cancel(c);
    s.cancel(d);
    s.cancel(b);
    // Alone on the link, a is held by the fatpipe.
    assert_eq!(s.rate(a), 50.0);
}

#[test]
fn penalty_two_gets_half_the_rate_of_penalty_one() {
    let mut s = system();
    let l = s.add_resource(90.0, Sharing::Shared);
    let one = s.start(&flow(1.0, &[(l, 1.0)]));
    let two = s.start(&ActionSpec {
        amount: 1.0,
        penalty: 2.0,
        bound: None,
        factor: 1.0,
        uses: &[(l, 1.0)],
    });
    // Level 90 / (1/1 + 1/2) = 60.
    assert_eq!(s.rate(one), 60.0);
    assert_eq!(s.rate(two), 30.0);
}

#[test]
fn cross_traffic_at_coefficient_005() {
    let mut s = system();
    let ab = s.add_resource(100.0, Sharing::Shared);
    let ba = s.add_resource(100.0, Sharing::Shared);
    // A flow a->b acknowledges on b->a with weight 0.05, and back.
    let fwd = s.start(&flow(1e6, &[(ab, 1.0), (ba, 0.05)]));
    assert_eq!(s.rate(fwd), 100.0);
    let back = s.start(&flow(1e6, &[(ba, 1.0), (ab, 0.05)]));
    // Each link carries r + 0.05 r = 100.
    assert!(close(s.rate(fwd), 100.0 / 1.05));
    assert!(close(s.rate(back), 100.0 / 1.05));
    // The same link listed twice counts with both coefficients.
    let mut s = system();
    let link = s.add_resource(105.0, Sharing::Shared);
    let both = s.start(&flow(1.0, &[(link, 1.0), (link, 0.05)]));
    assert!(close(s.rate(both), 100.0));
}

#[test]
fn a_zero_amount_completes_at_the_next_advance_without_a_share() {
    let mut s = system();
    let l = s.add_resource(10.0, Sharing::Shared);
    let big = s.start(&flow(100.0, &[(l, 1.0)]));
    assert_eq!(s.next_completion(), Some(10.0));
    s.advance(3.0, &mut Vec::new());
    let zero = s.start(&flow(0.0, &[(l, 1.0)]));
    assert_eq!(s.rate(big), 10.0);
    assert_eq!(s.next_completion(), Some(3.0));
    let mut done = Vec::new();
    s.advance(3.0, &mut done);
    assert_eq!(done, vec![zero]);
    assert_eq!(s.now(), 3.0);
    // The big flow's date was never touched.
    assert_eq!(s.next_completion(), Some(10.0));
}

#[test]
fn actions_without_resources_run_at_their_bound_or_at_once() {
    let mut s = system();
    let bounded = s.start(&ActionSpec {
        amount: 100.0,
        penalty: 1.0,
        bound: Some(20.0),
        factor: 1.0,
        uses: &[],
    });
    let free = s.start(&flow(100.0, &[]));
    assert_eq!(s.rate(bounded), 20.0);
    assert_eq!(s.rate(free), f64::INFINITY);
    assert_eq!(s.remaining(free), 0.0);
    assert_eq!(step(&mut s), (0.0, vec![free]));
    assert_eq!(step(&mut s), (5.0, vec![bounded]));
}

#[test]
fn cancel_frees_the_share_and_ignores_stale_ids() {
    let mut s = system();
    let l = s.add_resource(10.0, Sharing::Shared);
    let a = s.start(&flow(100.0, &[(l, 1.0)]));
    let b = s.start(&flow(100.0, &[(l, 1.0)]));
    s.advance(4.0, &mut Vec::new());
    assert!(close(s.remaining(a), 80.0));
    s.cancel(b);
    assert_eq!(s.active_actions(), 1);
    assert_eq!(s.rate(a), 10.0);
    // 80 left at 10/s from date 4.
    assert_eq!(s.next_completion(), Some(12.0));
    s.cancel(b);
    assert_eq!(s.rate(b), 0.0);
    assert_eq!(s.remaining(b), 0.0);
    // A new action reusing b's slot is not b.
    let c = s.start(&flow(1.0, &[(l, 1.0)]));
    assert_ne!(b, c);
    s.cancel(b);
    assert_eq!(s.active_actions(), 2);
}

#[test]
fn simultaneous_completions_come_in_start_order() {
    let mut s = system();
    let l = s.add_resource(10.0, Sharing::Shared);
    let m = s.add_resource(10.0, Sharing::Shared);
    let ids: Vec<ActionId> = (0..4)
        .map(|k| s.start(&flow(10.0, &[(if k % 2 == 0 { l } else { m }, 1.0)])))
        .collect();
    assert_eq!(step(&mut s), (2.0, ids));
}

#[test]
fn completions_within_the_timing_precision_merge() {
    let mut s = system();
    let l = s.add_resource(1.0, Sharing::Shared);
    let m = s.add_resource(1.0, Sharing::Shared);
    let a = s.start(&flow(1.0, &[(l, 1.0)]));
    let b = s.start(&flow(1.0 + 5e-10, &[(m, 1.0)]));
    let (_, done) = step(&mut s);
    assert_eq!(done, vec![a, b]);
}

#[test]
fn advancing_past_completions_processes_them_in_order() {
    let mut s = system();
    let l = s.add_resource(10.0, Sharing::Shared);
    let short = s.start(&flow(10.0, &[(l, 1.0)]));
    let long = s.start(&flow(100.0, &[(l, 1.0)]));
    let mut done = Vec::new();
    s.advance(5.0, &mut done);
    assert_eq!(done, vec![short]);
    // short ended at 2, long then ran at 10/s: 90 - 30 left at 5.
    assert!(close(s.remaining(long), 60.0));
    assert_eq!(s.now(), 5.0);
}

#[test]
fn a_resource_left_with_almost_nothing_counts_as_saturated() {
    let mut s = system();
    let l = s.add_resource(100.0, Sharing::Shared);
    let greedy = s.start(&ActionSpec {
        amount: 1e9,
        penalty: 1.0,
        bound: Some(100.0 - 1e-4),
        factor: 1.0,
        uses: &[(l, 1.0)],
    });
    // The greedy bound fixes first (its level, 99.9999, is below the
    // link's, 100 / (1 + 1e-7)); the 1e-4 left is below 100 * maxmin, so
    // the other flow gets 0.
    let starved = s.start(&ActionSpec {
        amount: 1.0,
        penalty: 1e7,
        bound: None,
        factor: 1.0,
        uses: &[(l, 1.0)],
    });
    assert_eq!(s.rate(greedy), 100.0 - 1e-4);
    assert_eq!(s.rate(starved), 0.0);
    s.cancel(greedy);
    assert_eq!(s.rate(starved), 100.0);
}

#[test]
fn other_components_keep_their_dates_bit_for_bit() {
    let mut s = system();
    let quiet = s.add_resource(3.0, Sharing::Shared);
    let busy = s.add_resource(7.0, Sharing::Shared);
    let long = s.start(&flow(1e6, &[(quiet, 1.0)]));
    let first = s.next_completion().unwrap();
    for k in 0..10_000 {
        s.start(&flow(1.0 + (k % 7) as f64, &[(busy, 1.0)]));
        s.start(&flow(2.0, &[(busy, 0.5)]));
        while s.active_actions() > 1 {
            let (_, done) = step(&mut s);
            assert!(!done.contains(&long));
        }
    }
    assert!(s.now() > 1000.0);
    // The lone flow's date was computed once, at the start.
    assert_eq!(s.next_completion(), Some(first));
    assert_eq!(step(&mut s).1, vec![long]);
}

#[test]
fn no_drift_over_many_rate_changes() {
    // A long flow shares a link with 20,000 short flows one after the
    // other: its rate flips between 1 and 0.5 each time.
    let mut s = system();
    let l = s.add_resource(1.0, Sharing::Shared);
    let long = s.start(&flow(30_000.0, &[(l, 1.0)]));
    for _ in 0..20_000 {
        s.start(&flow(0.5, &[(l, 1.0)]));
        assert_eq!(step(&mut s).1.len(), 1);
        // Alone for 0.25 s.
        let t = s.now() + 0.25;
        s.advance(t, &mut Vec::new());
    }
    // 20,000 * (1 s at 0.5 + 0.25 s at 1) = 15,000 done, 15,000 left.
    assert!((s.now() - 25_000.0).abs() < 1e-6, "{}", s.now());
    assert!((s.remaining(long) - 15_000.0).abs() < 1e-6);
    let (t, _) = step(&mut s);
    assert!((t - 40_000.0).abs() < 1e-6, "{t}");
}

#[test]
fn work_precision_ends_an_action_early() {
    let mut s = System::new(Precision::default());
    let l = s.add_resource(10.0, Sharing::Shared);
    let a = s.start(&flow(100.0, &[(l, 1.0)]));
    // Complete once 1e-5 is left: 1e-6 s before the exact end.
    assert_eq!(s.next_completion(), Some((100.0 - 1e-5) / 10.0));
    // At most 1e-5 to do: complete at once, without a share.
    let tiny = s.start(&flow(1e-5, &[(l, 1.0)]));
    assert_eq!(s.rate(tiny), 0.0);
    assert_eq!(s.rate(a), 10.0);
    assert_eq!(step(&mut s), (0.0, vec![tiny]));
}

#[test]
#[should_panic(expected = "penalty must be finite and positive")]
fn a_zero_penalty_is_a_programming_error() {
    let mut s = system();
    s.start(&ActionSpec {
        amount: 1.0,
        penalty: 0.0,
        bound: None,
        factor: 1.0,
        uses: &[],
    });
}

#[test]
fn a_new_bound_changes_rates_from_now_on_keeping_progress() {
    let mut s = system();
    let l = s.add_resource(100.0, Sharing::Shared);
    let a = s.start(&flow(100.0, &[(l, 1.0)]));
    let b = s.start(&flow(230.0, &[(l, 1.0)]));
    let mut done = Vec::new();
    s.advance(1.0, &mut done);
    assert!(done.is_empty());
    // At 1 s, a has 50 left and is held to 10: b takes the other 90.
    s.set_bound(a, Some(10.0));
    assert_eq!((s.rate(a), s.rate(b)), (10.0, 90.0));
    assert_eq!(s.remaining(a), 50.0);
    let (t, done) = step(&mut s);
    assert_eq!((t, done), (3.0, vec![b]));
    // Alone, a stays at its bound.
    assert_eq!(s.rate(a), 10.0);
    s.advance(4.0, &mut Vec::new());
    // Unbounded again at 4 s, with 20 left: the whole link.
    s.set_bound(a, None);
    assert_eq!(s.rate(a), 100.0);
    let (t, done) = step(&mut s);
    assert_eq!((t, done), (4.2, vec![a]));
}

#[test]
fn a_new_bound_without_resources_applies_at_once() {
    let mut s = system();
    let a = s.start(&ActionSpec {
        amount: 100.0,
        penalty: 1.0,
        bound: Some(10.0),
        factor: 1.0,
        uses: &[],
    });
    s.advance(2.0, &mut Vec::new());
    s.set_bound(a, Some(20.0));
    // No solve is pending: the rate and the date are already the new ones.
    assert!(s.dirty.is_empty());
    assert_eq!(s.rate(a), 20.0);
    assert_eq!(s.remaining(a), 80.0);
    assert_eq!(s.next_completion(), Some(6.0));
}

#[test]
fn a_new_bound_keeps_the_fatpipe_bound_and_zero_stops_an_action() {
    let mut s = system();
    let pipe = s.add_resource(50.0, Sharing::FatPipe);
    let l = s.add_resource(100.0, Sharing::Shared);
    let a = s.start(&ActionSpec {
        amount: 100.0,
        penalty: 1.0,
        bound: Some(10.0),
        factor: 1.0,
        uses: &[(pipe, 1.0), (l, 1.0)],
    });
    let b = s.start(&flow(100.0, &[(l, 1.0)]));
    assert_eq!((s.rate(a), s.rate(b)), (10.0, 90.0));
    s.set_bound(a, None);
    assert_eq!((s.rate(a), s.rate(b)), (50.0, 50.0));
    s.set_bound(a, Some(80.0));
    assert_eq!((s.rate(a), s.rate(b)), (50.0, 50.0));
    s.set_bound(a, Some(0.0));
    assert_eq!((s.rate(a), s.rate(b)), (0.0, 100.0));
    let (t, done) = step(&mut s);
    assert_eq!((t, done), (1.0, vec![b]));
    assert_eq!(s.next_completion(), None);
}

#[test]
fn an_unchanged_bound_or_a_stale_id_changes_nothing() {
    let mut s = system();
    let l = s.add_resource(100.0, Sharing::Shared);
    let a = s.start(&ActionSpec {
        amount: 100.0,
        penalty: 1.0,
        bound: Some(30.0),
        factor: 1.0,
        uses: &[(l, 1.0)],
    });
    let gone = s.start(&flow(0.0, &[(l, 1.0)]));
    let mut done = Vec::new();
    s.advance(0.0, &mut done);
    assert_eq!(done, vec![gone]);
    let date = s.next_completion();
    s.set_bound(a, Some(30.0));
    s.set_bound(gone, Some(1.0));
    assert!(s.dirty.is_empty());
    assert_eq!(
        s.next_completion().map(f64::to_bits),
        date.map(f64::to_bits)
    );
    // An action with nothing to do ignores bounds and ends at once.
    let empty = s.start(&flow(0.0, &[(l, 1.0)]));
    s.set_bound(empty, Some(5.0));
    s.advance(0.0, &mut done);
    assert_eq!(done, vec![gone, empty]);
}

#[test]
#[should_panic(expected = "bound must not be negative")]
fn a_negative_new_bound_is_a_programming_error() {
    let mut s = system();
    let a = s.start(&flow(1.0, &[]));
    s.set_bound(a, Some(-1.0));
}

// ---------------------------------------------------------------------------
// The reference: plain progressive filling over everything, no shortcuts.

/// A random action's sharing terms: penalty, bound, uses (resource index,
/// coefficient).
#[derive(Debug, Clone)]
struct RefAction {
    penalty: f64,
    bound: Option<f64>,
    uses: Vec<(usize, f64)>,
}

/// Resources as (capacity, is a fatpipe).
type RefResources = [(f64, bool)];

/// The bound of an action, its own and its fatpipes'.
fn effective_bound(res: &RefResources, a: &RefAction) -> f64 {
    a.uses
        .iter()
        .filter(|&&(r, c)| res[r].1 && c > 0.0)
        .map(|&(r, c)| res[r].0 / c)
        .fold(a.bound.unwrap_or(f64::INFINITY), f64::min)
}

/// Total coefficient of action `a` on shared resource `r`.
fn coefficient(res: &RefResources, a: &RefAction, r: usize) -> f64 {
    if res[r].1 {
        return 0.0;
    }
    a.uses.iter().filter(|u| u.0 == r).map(|u| u.1).sum()
}

/// Max-min rates of `actions`, recomputing every level at every step.
fn reference(res: &RefResources, actions: &[RefAction], maxmin: f64) -> Vec<f64> {
    let n = actions.len();
    let bound: Vec<f64> = actions.iter().map(|a| effective_bound(res, a)).collect();
    let mut rate: Vec<Option<f64>> = vec![None; n];
    for (i, a) in actions.iter().enumerate() {
        if (0..res.len()).all(|r| coefficient(res, a, r) == 0.0) {
            rate[i] = Some(bound[i]);
        }
    }
    loop {
        let mut best: Option<(f64, usize)> = None;
        for r in 0..res.len() {
            let mut used = 0.0;
            let mut usage = 0.0;
            for (i, a) in actions.iter().enumerate() {
                let c = coefficient(res, a, r);
                if c == 0.0 {
                    continue;
                }
                match rate[i] {
                    Some(x) => used += x * c,
                    None => usage += c / a.penalty,
                }
            }
            if usage == 0.0 {
                continue;
            }
            let left = res[r].0 - used;
            let level = if left <= res[r].0 * maxmin {
                0.0
            } else {
                left / usage
            };
            if best.is_none_or(|(l, _)| level < l) {
                best = Some((level, r));
            }
        }
        let lowest_bound = (0..n)
            .filter(|&i| rate[i].is_none() && bound[i].is_finite())
            .map(|i| (bound[i] * actions[i].penalty, i))
            .min_by(|x, y| x.0.total_cmp(&y.0));
        match (best, lowest_bound) {
            (_, Some((b, i))) if best.is_none_or(|(level, _)| b <= level) => {
                rate[i] = Some(bound[i]);
            }
            (Some((level, r)), _) => {
                for (i, a) in actions.iter().enumerate() {
                    if rate[i].is_none() && coefficient(res, a, r) > 0.0 {
                        rate[i] = Some(level / a.penalty);
                    }
                }
            }
            (None, _) => return rate.into_iter().map(|x| x.expect("all fixed")).collect(),
        }
    }
}

fn sharing(fat: bool) -> Sharing {
    if fat {
        Sharing::FatPipe
    } else {
        Sharing::Shared
    }
}

fn start(s: &mut System, res: &[ResourceId], a: &RefAction, amount: f64) -> ActionId {
    let uses: Vec<(ResourceId, f64)> = a.uses.iter().map(|&(r, c)| (res[r], c)).collect();
    s.start(&ActionSpec {
        amount,
        penalty: a.penalty,
        bound: a.bound,
        factor: 1.0,
        uses: &uses,
    })
}

fn resources_strategy(max: usize) -> impl Strategy<Value = Vec<(f64, bool)>> {
    prop::collection::vec(
        (
            prop_oneof![8 => 1.0f64..1000.0, 1 => Just(0.0), 1 => Just(100.0)],
            prop::bool::weighted(0.2),
        ),
        1..max,
    )
}

fn action_strategy(nres: usize) -> impl Strategy<Value = RefAction> {
    (
        prop_oneof![
            Just(1.0),
            Just(2.0),
            Just(0.5),
            0.01f64..10.0,
            1e-6f64..1e-4
        ],
        prop::option::weighted(
            0.3,
            prop_oneof![8 => 0.1f64..500.0, 1 => Just(0.0), 1 => Just(50.0)],
        ),
        prop::collection::vec(
            (
                0..nres,
                prop_oneof![
                    4 => Just(1.0),
                    2 => Just(0.05),
                    1 => Just(2.0),
                    1 => Just(0.0),
                    2 => 0.01f64..3.0
                ],
            ),
            0..5,
        ),
    )
        .prop_map(|(penalty, bound, uses)| RefAction {
            penalty,
            bound,
            uses,
        })
}

/// A random system: resources and actions.
fn case() -> impl Strategy<Value = (Vec<(f64, bool)>, Vec<RefAction>)> {
    resources_strategy(9).prop_flat_map(|res| {
        let n = res.len();
        (Just(res), prop::collection::vec(action_strategy(n), 1..16))
    })
}

/// One step of an event sequence.
#[derive(Debug, Clone)]
enum Op {
    Start(RefAction, f64),
    /// Advance to this fraction of the way to the next completion (1: to
    /// it; beyond 1: past it, through the completions on the way).
    Advance(f64),
    /// Cancel the live action at this index modulo their number.
    Cancel(usize),
    /// Give the live action at this index modulo their number this bound.
    SetBound(usize, Option<f64>),
}

fn ops_case() -> impl Strategy<Value = (Vec<(f64, bool)>, Vec<Op>)> {
    resources_strategy(7).prop_flat_map(|res| {
        let n = res.len();
        let op = prop_oneof![
            4 => (
                action_strategy(n),
                prop_oneof![8 => 1.0f64..1000.0, 1 => Just(0.0), 1 => Just(100.0)]
            )
                .prop_map(|(a, amount)| Op::Start(a, amount)),
            4 => prop_oneof![3 => Just(1.0), 1 => 0.0f64..0.99, 1 => 1.01f64..5.0]
                .prop_map(Op::Advance),
            1 => (0usize..64).prop_map(Op::Cancel),
            2 => (
                0usize..64,
                prop::option::weighted(
                    0.8,
                    prop_oneof![8 => 0.1f64..500.0, 1 => Just(0.0), 1 => Just(50.0)],
                ),
            )
                .prop_map(|(i, b)| Op::SetBound(i, b)),
        ];
        (Just(res), prop::collection::vec(op, 1..60))
    })
}

/// A live action in the reference simulation.
struct RefLive {
    id: ActionId,
    action: RefAction,
    amount: f64,
    remaining: f64,
}

/// The reference simulation: the system's documented semantics, with
/// every rate re-solved from scratch.
struct RefSim {
    precision: Precision,
    resources: Vec<(f64, bool)>,
    now: f64,
    live: Vec<RefLive>,
}

impl RefSim {
    fn rates(&self) -> Vec<f64> {
        // Actions with nothing to do take no share and read rate 0.
        let sharing: Vec<RefAction> = self
            .live
            .iter()
            .map(|l| {
                if l.amount <= self.precision.work {
                    RefAction {
                        penalty: 1.0,
                        bound: Some(0.0),
                        uses: Vec::new(),
                    }
                } else {
                    l.action.clone()
                }
            })
            .collect();
        reference(&self.resources, &sharing, self.precision.maxmin)
    }

    fn dates(&self, rates: &[f64]) -> Vec<f64> {
        self.live
            .iter()
            .zip(rates)
            .map(|(l, &rate)| {
                let left = l.remaining - self.precision.work;
                if left <= 0.0 || rate == f64::INFINITY {
                    self.now
                } else if rate > 0.0 {
                    self.now + left / rate
                } else {
                    f64::INFINITY
                }
            })
            .collect()
    }

    fn next(&self) -> Option<f64> {
        let d = self
            .dates(&self.rates())
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        d.is_finite().then_some(d)
    }

    /// What `System::advance` documents, one batch at a time.
    fn advance(&mut self, to: f64) -> Vec<ActionId> {
        let timing = self.precision.timing;
        let mut done = Vec::new();
        loop {
            let rates = self.rates();
            let dates = self.dates(&rates);
            let Some(date) = dates.iter().copied().reduce(f64::min) else {
                break;
            };
            if date > to + timing {
                break;
            }
            let at = date.min(to);
            for (l, &rate) in self.live.iter_mut().zip(&rates) {
                if rate.is_finite() {
                    l.remaining -= rate * (at - self.now);
                }
            }
            self.now = at;
            let mut k = 0;
            self.live.retain(|l| {
                k += 1;
                if dates[k - 1] <= at + timing {
                    done.push(l.id);
                    false
                } else {
                    true
                }
            });
            if at + timing >= to {
                break;
            }
        }
        let rates = self.rates();
        for (l, &rate) in self.live.iter_mut().zip(&rates) {
            if rate.is_finite() {
                l.remaining -= rate * (to - self.now);
            }
        }
        self.now = to;
        done
    }
}

/// Runs `ops`, checking the system against the reference after each one;
/// returns every date and completion for the determinism check.
fn run_against_reference(
    resources: &[(f64, bool)],
    ops: &[Op],
    grouping: Option<usize>,
    partial: Option<usize>,
) -> Result<Vec<(u64, Vec<ActionId>)>, TestCaseError> {
    let precision = Precision::default();
    let mut s = System::new(precision);
    s.set_grouping(grouping);
    s.set_partial(partial);
    let res: Vec<ResourceId> = resources
        .iter()
        .map(|&(c, fat)| s.add_resource(c, sharing(fat)))
        .collect();
    let mut sim = RefSim {
        precision,
        resources: resources.to_vec(),
        now: 0.0,
        live: Vec::new(),
    };
    let mut trace = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let expected = sim.rates();
        for (l, &rate) in sim.live.iter().zip(&expected) {
            let got = s.rate(l.id);
            prop_assert!(close(got, rate), "op {k}: rate {got} vs reference {rate}");
            let left = s.remaining(l.id);
            let want = if rate == f64::INFINITY {
                0.0
            } else {
                l.remaining.max(0.0)
            };
            prop_assert!(
                (left - want).abs() <= 1e-9 * l.amount.max(1.0),
                "op {k}: remaining {left} vs reference {want}"
            );
        }
        let next = s.next_completion();
        match (next, sim.next()) {
            (None, None) => {}
            (Some(a), Some(b)) => prop_assert!(
                (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                "op {k}: next completion {a} vs reference {b}"
            ),
            (a, b) => prop_assert!(false, "op {k}: next completion {a:?} vs reference {b:?}"),
        }
        prop_assert_eq!(s.active_actions(), sim.live.len());
        match op {
            Op::Start(a, amount) => {
                let id = start(&mut s, &res, a, *amount);
                sim.live.push(RefLive {
                    id,
                    action: a.clone(),
                    amount: *amount,
                    remaining: *amount,
                });
            }
            Op::Cancel(i) => {
                if !sim.live.is_empty() {
                    let l = sim.live.remove(i % sim.live.len());
                    s.cancel(l.id);
                }
            }
            Op::SetBound(i, bound) => {
                if !sim.live.is_empty() {
                    let n = sim.live.len();
                    let l = &mut sim.live[i % n];
                    l.action.bound = *bound;
                    s.set_bound(l.id, *bound);
                }
            }
            Op::Advance(f) => {
                let now = s.now();
                let to = match next {
                    Some(t) if *f == 1.0 => t,
                    Some(t) => now + f * (t - now),
                    None => now + 10.0 * f + 1.0,
                };
                let mut done = Vec::new();
                s.advance(to, &mut done);
                let want = sim.advance(to);
                prop_assert_eq!(&done, &want, "op {}: completions at {}", k, to);
                prop_assert_eq!(s.now(), to);
                trace.push((to.to_bits(), done));
            }
        }
    }
    Ok(trace)
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: RngSeed::Fixed(0x5eed),
        ..ProptestConfig::with_cases(3000)
    })]

    #[test]
    fn rates_match_the_reference((resources, actions) in case()) {
        let mut s = system();
        let res: Vec<ResourceId> =
            resources.iter().map(|&(c, fat)| s.add_resource(c, sharing(fat))).collect();
        let ids: Vec<ActionId> = actions.iter().map(|a| start(&mut s, &res, a, 1000.0)).collect();
        let maxmin = Precision::default().maxmin;
        let expected = reference(&resources, &actions, maxmin);
        // Rates within the precision floor of a resource may differ: when
        // two resources tie for the lowest level, which one is filled
        // first decides which action gets what the other leaves below the
        // floor (snapped to 0), and the reference fills the first.
        let floor = maxmin * resources.iter().map(|r| r.0).fold(0.0, f64::max);
        for (i, &id) in ids.iter().enumerate() {
            let got = s.rate(id);
            prop_assert!(
                close(got, expected[i]) || (got - expected[i]).abs() <= floor,
                "action {i}: {got} vs reference {}", expected[i]
            );
        }
    }

    #[test]
    fn no_resource_is_over_capacity_and_every_action_is_limited(
        (resources, actions) in case()
    ) {
        let maxmin = Precision::default().maxmin;
        let mut s = system();
        let res: Vec<ResourceId> =
            resources.iter().map(|&(c, fat)| s.add_resource(c, sharing(fat))).collect();
        let ids: Vec<ActionId> = actions.iter().map(|a| start(&mut s, &res, a, 1000.0)).collect();
        let rates: Vec<f64> = ids.iter().map(|&id| s.rate(id)).collect();
        let used: Vec<f64> = (0..resources.len())
            .map(|r| actions.iter().zip(&rates).map(|(a, x)| {
                let c = coefficient(&resources, a, r);
                if c > 0.0 { x * c } else { 0.0 }
            }).sum())
            .collect();
        for (r, &(cap, _)) in resources.iter().enumerate() {
            prop_assert!(used[r] <= cap * (1.0 + 1e-12) + 1e-12, "resource {r}: {} of {cap}", used[r]);
        }
        for (i, a) in actions.iter().enumerate() {
            prop_assert!(rates[i] >= 0.0);
            let bound = effective_bound(&resources, a);
            let at_bound = close(rates[i], bound);
            let saturated = (0..resources.len()).any(|r| {
                coefficient(&resources, a, r) > 0.0
                    && used[r] >= resources[r].0 * (1.0 - maxmin) - 1e-9 * resources[r].0
            });
            prop_assert!(at_bound || saturated, "action {i} (rate {}) is limited by nothing", rates[i]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: RngSeed::Fixed(0x5eed),
        ..ProptestConfig::with_cases(1500)
    })]

    #[test]
    fn event_sequences_match_the_reference((resources, ops) in ops_case()) {
        run_against_reference(&resources, &ops, None, None)?;
    }

    #[test]
    fn same_inputs_same_outputs_bit_for_bit((resources, ops) in ops_case()) {
        let first = run_against_reference(&resources, &ops, None, None)?;
        let second = run_against_reference(&resources, &ops, None, None)?;
        prop_assert_eq!(first, second);
    }

    #[test]
    fn grouped_event_sequences_match_the_reference((resources, ops) in ops_case()) {
        run_against_reference(&resources, &ops, Some(2), None)?;
    }

    #[test]
    fn partial_event_sequences_match_the_reference((resources, ops) in ops_case()) {
        run_against_reference(&resources, &ops, None, Some(0))?;
    }

    #[test]
    fn partial_and_grouped_sequences_match_the_reference((resources, ops) in backbone_ops_case()) {
        run_against_reference(&resources, &ops, Some(2), Some(0))?;
    }

    #[test]
    fn partial_runs_are_deterministic((resources, ops) in ops_case()) {
        let first = run_against_reference(&resources, &ops, None, Some(0))?;
        let second = run_against_reference(&resources, &ops, None, Some(0))?;
        prop_assert_eq!(first, second);
    }

    #[test]
    fn grouped_backbone_sequences_match_the_reference((resources, ops) in backbone_ops_case()) {
        run_against_reference(&resources, &ops, Some(2), None)?;
    }

    #[test]
    fn grouped_runs_are_deterministic((resources, ops) in backbone_ops_case()) {
        let first = run_against_reference(&resources, &ops, Some(2), None)?;
        let second = run_against_reference(&resources, &ops, Some(2), None)?;
        prop_assert_eq!(first, second);
    }
}

/// Systems where groups form and live long: a backbone (resource 0) that
/// most actions cross, host resources of varied capacity (some tight
/// enough to take over from the backbone), bounds now and then.
fn backbone_ops_case() -> impl Strategy<Value = (Vec<(f64, bool)>, Vec<Op>)> {
    let resources = (
        1.0f64..100.0,
        prop::collection::vec(
            (
                prop_oneof![6 => 50.0f64..1000.0, 1 => 1.0f64..20.0],
                Just(false),
            ),
            2..7,
        ),
    )
        .prop_map(|(backbone, hosts)| {
            let mut all = vec![(backbone, false)];
            all.extend(hosts);
            all
        });
    resources.prop_flat_map(|res| {
        let n = res.len();
        let action = (
            prop::bool::weighted(0.9),
            prop::collection::vec(1..n, 1..3),
            prop_oneof![3 => Just(1.0), 1 => 0.1f64..10.0],
            prop::option::weighted(0.15, 0.1f64..100.0),
        )
            .prop_map(|(backbone, hosts, penalty, bound)| {
                let mut uses: Vec<(usize, f64)> = hosts.into_iter().map(|h| (h, 1.0)).collect();
                if backbone {
                    uses.push((0, 1.0));
                }
                RefAction {
                    penalty,
                    bound,
                    uses,
                }
            });
        let op = prop_oneof![
            5 => (action, prop_oneof![8 => 1.0f64..1000.0, 1 => Just(100.0)])
                .prop_map(|(a, amount)| Op::Start(a, amount)),
            4 => prop_oneof![3 => Just(1.0), 1 => 0.0f64..0.99, 1 => 1.01f64..5.0]
                .prop_map(Op::Advance),
            1 => (0usize..64).prop_map(Op::Cancel),
            1 => (0usize..64, prop::option::weighted(0.8, 0.1f64..500.0))
                .prop_map(|(i, b)| Op::SetBound(i, b)),
        ];
        (Just(res), prop::collection::vec(op, 1..80))
    })
}

/// The network of [`against_full_solves`]: `hosts` hosts, each with an up
/// and a down link, in leaves of `leaf` hosts whose up and down links to
/// the spine have capacities drawn between a tenth and twice what their
/// hosts could send (so that some are bottlenecks and some not), and a
/// backbone (40 Gb/s with leaves of one host, 1 Tb/s with spine links).
/// A flow from host a to host b crosses a's up link, b's down
/// link, and, between leaves, both leaves' spine links and the backbone.
/// Leaves of one host have no spine links: every flow crosses its hosts'
/// links and the backbone.
struct Network {
    leaf: usize,
    links: Vec<ResourceId>,
    /// Resource indices of each leaf's up and down spine links, and of
    /// the backbone.
    spine: Vec<(usize, usize)>,
    backbone: usize,
}

impl Network {
    fn build(s: &mut System, hosts: usize, leaf: usize, draws: &[u64]) -> Self {
        let mut links: Vec<ResourceId> = (0..2 * hosts)
            .map(|_| s.add_resource(1.25e9, Sharing::Shared))
            .collect();
        let leaves = if leaf > 1 { hosts.div_ceil(leaf) } else { 0 };
        let mut spine = Vec::new();
        for k in 0..leaves {
            let mut link = |draw: u64| {
                let capacity = 1.25e9 * leaf as f64 * (0.1 + draw as f64 / 1000.0);
                links.push(s.add_resource(capacity, Sharing::Shared));
                links.len() - 1
            };
            spine.push((link(draws[2 * k]), link(draws[2 * k + 1])));
        }
        // With leaves, a backbone that is not every flow's bottleneck.
        let backbone = if spine.is_empty() { 4e10 } else { 1e12 };
        links.push(s.add_resource(backbone, Sharing::Shared));
        let backbone = links.len() - 1;
        Self {
            leaf,
            links,
            spine,
            backbone,
        }
    }

    /// The resources of a flow from host `a` to host `b`.
    fn route(&self, a: usize, b: usize) -> Vec<(ResourceId, f64)> {
        let mut uses = vec![(self.links[2 * a], 1.0), (self.links[2 * b + 1], 1.0)];
        let (la, lb) = (a / self.leaf, b / self.leaf);
        if self.spine.is_empty() {
            uses.push((self.links[self.backbone], 1.0));
        } else if la != lb {
            uses.push((self.links[self.spine[la].0], 1.0));
            uses.push((self.links[self.spine[lb].1], 1.0));
            uses.push((self.links[self.backbone], 1.0));
        }
        uses
    }
}

/// `flows` flows kept in flight on a [`Network`] of `hosts` hosts in
/// leaves of `leaf` (one starts when one ends), run `events` completions
/// on a system solved in full and on one set up by `setup`: the
/// completions must be the same actions at the same dates within 1e-9,
/// and all rates and remaining work the same within 1e-9.
fn against_full_solves(
    (flows, hosts, leaf): (usize, usize, usize),
    events: usize,
    seed: u64,
    setup: fn(&mut System),
) {
    let mut state = seed | 1;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut systems = [
        System::new(Precision::default()),
        System::new(Precision::default()),
    ];
    systems[0].set_grouping(None);
    systems[0].set_partial(None);
    setup(&mut systems[1]);
    // One network for both systems.
    let draws: Vec<u64> = (0..hosts.div_ceil(leaf) * 2).map(|_| next(1900)).collect();
    let networks: Vec<Network> = systems
        .iter_mut()
        .map(|s| Network::build(s, hosts, leaf, &draws))
        .collect();
    let mut live: [Vec<ActionId>; 2] = [Vec::new(), Vec::new()];
    let start = |systems: &mut [System; 2],
                 live: &mut [Vec<ActionId>; 2],
                 next: &mut dyn FnMut(u64) -> u64| {
        let a = next(hosts as u64) as usize;
        let b = (a + 1 + next(hosts as u64 - 1) as usize) % hosts;
        let amount = 1e4 + next(1_000_000) as f64;
        // Unequal penalties: levels of one resource's fixes round apart.
        let penalty = 2.7e-5 * [1.0, 1.5, 3.0, 0.7][next(4) as usize];
        for ((s, l), net) in systems.iter_mut().zip(live.iter_mut()).zip(&networks) {
            l.push(s.start(&ActionSpec {
                amount,
                penalty,
                bound: Some(1.25e9),
                factor: 1.0,
                uses: &net.route(a, b),
            }));
        }
    };
    for _ in 0..flows {
        start(&mut systems, &mut live, &mut next);
    }
    for event in 0..events {
        let dates: Vec<f64> = systems
            .iter_mut()
            .map(|s| s.next_completion().expect("flows complete"))
            .collect();
        assert!(
            (dates[0] - dates[1]).abs() <= 1e-9 * dates[0],
            "event {event}: next completion {} vs {} solved in full",
            dates[1],
            dates[0]
        );
        // Every rate: a stale one only delays a completion.
        for (&a0, &a1) in live[0].iter().zip(&live[1]) {
            let (r0, r1) = (systems[0].rate(a0), systems[1].rate(a1));
            assert!(
                close(r0, r1),
                "event {event}: rate {r1} vs {r0} solved in full"
            );
            let (w0, w1) = (systems[0].remaining(a0), systems[1].remaining(a1));
            assert!(
                (w0 - w1).abs() <= 1e-9 * w0.max(1.0),
                "event {event}: remaining {w1} vs {w0}"
            );
        }
        let mut done: [Vec<ActionId>; 2] = [Vec::new(), Vec::new()];
        for (k, s) in systems.iter_mut().enumerate() {
            s.advance(dates[0], &mut done[k]);
        }
        let positions = |live: &Vec<ActionId>, done: &Vec<ActionId>| -> Vec<usize> {
            let mut p: Vec<usize> = done
                .iter()
                .map(|d| live.iter().position(|l| l == d).expect("a live flow"))
                .collect();
            p.sort_unstable();
            p
        };
        let (p0, p1) = (positions(&live[0], &done[0]), positions(&live[1], &done[1]));
        assert_eq!(p0, p1, "event {event}: different flows completed");
        for &p in p0.iter().rev() {
            live[0].swap_remove(p);
            live[1].swap_remove(p);
        }
        for _ in 0..p0.len() {
            start(&mut systems, &mut live, &mut next);
        }
        // A cancellation now and then.
        if event % 37 == 0 {
            let i = next(live[0].len() as u64) as usize;
            systems[0].cancel(live[0].swap_remove(i));
            systems[1].cancel(live[1].swap_remove(i));
        }
    }
}

/// Grouped (with leaves of one host, the backbone is the one bottleneck).
fn grouped(s: &mut System) {
    s.set_grouping(Some(64));
    s.set_partial(None);
}

/// Partial re-solves from the first action on.
fn partial(s: &mut System) {
    s.set_grouping(None);
    s.set_partial(Some(0));
}

#[test]
fn grouping_matches_full_solves_on_ten_thousand_flows() {
    against_full_solves((10_000, 2_500, 1), 300, 0x9e37_79b9_7f4a_7c15, grouped);
}

#[test]
fn grouping_matches_full_solves_on_random_backbones() {
    for seed in 1..=6u64 {
        let flows = 200 * seed as usize;
        against_full_solves(
            (flows, (flows / 4).max(8), 1),
            400,
            seed * 0x2545_f491_4f6c_dd1d,
            grouped,
        );
    }
}

/// Many bottlenecks at many levels (host links, spine links of varied
/// capacity, the backbone), where groups do not form.
#[test]
fn partial_solves_match_full_solves_on_ten_thousand_flows() {
    against_full_solves((10_000, 1_024, 32), 300, 0x9e37_79b9_7f4a_7c15, partial);
}

#[test]
fn partial_solves_match_full_solves_on_random_fat_trees() {
    for seed in 1..=6u64 {
        let flows = 150 * seed as usize;
        against_full_solves(
            (flows, 64 * seed as usize, 8),
            400,
            seed * 0x2545_f491_4f6c_dd1d,
            partial,
        );
    }
}

fn solved(partial: bool) -> System {
    let mut s = System::new(Precision::default());
    s.set_grouping(None);
    s.set_partial(if partial { Some(0) } else { None });
    s
}

fn unbounded(penalty: f64, uses: &[(ResourceId, f64)]) -> ActionSpec<'_> {
    ActionSpec {
        amount: 1e12,
        penalty,
        bound: None,
        factor: 1.0,
        uses,
    }
}

/// R's remaining capacity after A falls below its floor, so B is fixed at
/// level 0 after A was fixed higher: when A leaves, B (level 0, below A's)
/// must not stand at 0 (found by review).
#[test]
fn an_action_a_saturated_resource_fixed_after_a_higher_one_is_solved_again() {
    let run = |partial| {
        let mut s = solved(partial);
        let r = s.add_resource(1.0, Sharing::Shared);
        let t = s.add_resource(0.999999, Sharing::Shared);
        let q = s.add_resource(100.0, Sharing::Shared);
        let a = s.start(&unbounded(1.0, &[(r, 1.0), (t, 1.0)]));
        let b = s.start(&unbounded(1.0, &[(r, 1e-7), (q, 1.0)]));
        let c = s.start(&unbounded(1.0, &[(q, 1.0)]));
        assert_eq!(s.rate(b), 0.0);
        s.cancel(a);
        (s.rate(b), s.rate(c))
    };
    let (partial, full) = (run(true), run(false));
    assert!(close(full.0, 50.0) && close(full.1, 50.0), "{full:?}");
    assert!(
        close(partial.0, full.0) && close(partial.1, full.1),
        "{partial:?} vs {full:?}"
    );
}

/// Y uses Q1 and Q2 of one capacity; X1 and X2 share them with Y and a
/// link each with Z1, Z2. Q1 fixes Y and X1 at l; Q2's level for X2 may
/// round just below l, after Y was fixed: when Y leaves, X2 (below Y's
/// level, fixed after it) must be solved again (found by review: 644 of
/// 2,000 draws gave X2 its old rate).
#[test]
fn an_action_fixed_after_a_tie_rounded_lower_is_solved_again() {
    let run = |partial, capacity: f64, py: f64, px: f64| {
        let mut s = solved(partial);
        let q1 = s.add_resource(capacity, Sharing::Shared);
        let q2 = s.add_resource(capacity, Sharing::Shared);
        let s1 = s.add_resource(1e9, Sharing::Shared);
        let s2 = s.add_resource(1e9, Sharing::Shared);
        let y = s.start(&unbounded(py, &[(q1, 1.0), (q2, 1.0)]));
        let x = [
            s.start(&unbounded(px, &[(q1, 1.0), (s1, 1.0)])),
            s.start(&unbounded(px, &[(q2, 1.0), (s2, 1.0)])),
            s.start(&unbounded(1.0, &[(s1, 1.0)])),
            s.start(&unbounded(1.0, &[(s2, 1.0)])),
        ];
        for &id in &x {
            s.rate(id);
        }
        s.cancel(y);
        x.map(|id| s.rate(id))
    };
    let mut state: u64 = 0x1234567;
    for _ in 0..2000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let capacity = 1.0 + (state % 100_000) as f64 / 7.0;
        let py = 0.1 + ((state >> 20) % 1000) as f64 / 97.0;
        let px = 0.1 + ((state >> 40) % 1000) as f64 / 89.0;
        let (partial, full) = (run(true, capacity, py, px), run(false, capacity, py, px));
        for (p, f) in partial.iter().zip(&full) {
            assert!(
                close(*p, *f),
                "capacity {capacity}, penalties {py} {px}: {partial:?} vs {full:?}"
            );
        }
    }
}

/// A group's clock grows with its age: an action whose work is tiny in
/// clock units (here a penalty of 1e-6) joining a group that has run for
/// 377 s got its end rounded to 2e-8 s off its date (found by
/// `grouped_event_sequences_match_the_reference`).
#[test]
fn tiny_work_joining_an_old_group_ends_on_its_date() {
    let resources = vec![(1.0, false)];
    let action = |penalty: f64, uses: Vec<(usize, f64)>| RefAction {
        penalty,
        bound: None,
        uses,
    };
    let ops = vec![
        Op::Start(action(0.5, vec![(0, 0.01)]), 794.1799694003023),
        Op::Start(
            action(2.0, vec![(0, 0.8613574325224792), (0, 1.0)]),
            490.83814123996336,
        ),
        Op::Advance(1.0),
        Op::Start(action(1.060415166182858e-6, vec![(0, 1.0)]), 1.0),
        Op::Advance(1.0),
        Op::Advance(1.0),
    ];
    let plain = run_against_reference(&resources, &ops, None, None).expect("plain run");
    let grouped = run_against_reference(&resources, &ops, Some(2), None).expect("grouped run");
    assert_eq!(plain.len(), grouped.len());
    for ((a, _), (b, _)) in plain.iter().zip(&grouped) {
        let (a, b) = (f64::from_bits(*a), f64::from_bits(*b));
        assert!((a - b).abs() <= 1e-12 * a, "{a} vs {b}");
    }
}

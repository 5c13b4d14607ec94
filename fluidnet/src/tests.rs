//! Hand-computed cases, and property tests against a deliberately simple
//! reference solver that recomputes everything from scratch.

use super::*;
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

fn spec(amount: f64, uses: &[(ResourceId, f64)]) -> ActionSpec<'_> {
    ActionSpec {
        amount,
        penalty: 1.0,
        bound: None,
        uses,
    }
}

#[test]
fn two_flows_share_a_link_equally() {
    let mut s = System::new(Precision::default());
    let l = s.add_resource(100.0, Sharing::Shared);
    let a = s.start(&spec(100.0, &[(l, 1.0)]));
    let b = s.start(&spec(300.0, &[(l, 1.0)]));
    assert_eq!(s.rate(a), 50.0);
    assert_eq!(s.next_completion(), Some(2.0));
    let mut done = Vec::new();
    s.advance(2.0, &mut done);
    assert_eq!(done, vec![a]);
    // b had 200 left and now gets the whole link.
    assert_eq!(s.rate(b), 100.0);
    assert_eq!(s.next_completion(), Some(4.0));
}

#[test]
fn the_tightest_link_of_a_route_limits_a_flow() {
    let mut s = System::new(Precision::default());
    let fast = s.add_resource(100.0, Sharing::Shared);
    let slow = s.add_resource(10.0, Sharing::Shared);
    let a = s.start(&spec(10.0, &[(fast, 1.0), (slow, 1.0)]));
    let b = s.start(&spec(10.0, &[(fast, 1.0)]));
    assert_eq!(s.rate(a), 10.0);
    assert_eq!(s.rate(b), 90.0);
}

#[test]
fn bounds_penalties_fatpipes_and_coefficients() {
    let mut s = System::new(Precision::default());
    let l = s.add_resource(90.0, Sharing::Shared);
    let bounded = s.start(&ActionSpec {
        amount: 1.0,
        penalty: 1.0,
        bound: Some(10.0),
        uses: &[(l, 1.0)],
    });
    let light = s.start(&ActionSpec {
        amount: 1.0,
        penalty: 2.0,
        bound: None,
        uses: &[(l, 1.0)],
    });
    let heavy = s.start(&spec(1.0, &[(l, 1.0)]));
    assert_eq!(s.rate(bounded), 10.0);
    // 80 left, shared 1/2 : 1/1.
    assert!(close(s.rate(light), 80.0 / 3.0));
    assert!(close(s.rate(heavy), 160.0 / 3.0));

    let mut f = System::new(Precision::default());
    let pipe = f.add_resource(50.0, Sharing::FatPipe);
    let x = f.start(&spec(1.0, &[(pipe, 1.0)]));
    let y = f.start(&spec(1.0, &[(pipe, 1.0)]));
    assert_eq!((f.rate(x), f.rate(y)), (50.0, 50.0));

    // Cross traffic: 1.0 + 0.05 on one shared link.
    let mut c = System::new(Precision::default());
    let link = c.add_resource(105.0, Sharing::Shared);
    let z = c.start(&spec(1.0, &[(link, 1.0), (link, 0.05)]));
    assert!(close(c.rate(z), 100.0));
}

#[test]
fn zero_amount_and_cancel() {
    let mut s = System::new(Precision::default());
    let l = s.add_resource(10.0, Sharing::Shared);
    let a = s.start(&spec(0.0, &[(l, 1.0)]));
    let b = s.start(&spec(100.0, &[(l, 1.0)]));
    assert_eq!(s.next_completion(), Some(0.0));
    let mut done = Vec::new();
    s.advance(0.0, &mut done);
    assert_eq!(done, vec![a]);
    s.advance(5.0, &mut done);
    assert!(close(s.remaining(b), 50.0));
    s.cancel(b);
    assert_eq!(s.active_actions(), 0);
    assert_eq!(s.next_completion(), None);
    // A stale id is harmless.
    s.cancel(b);
    assert_eq!(s.rate(b), 0.0);
}

/// A random action: penalty, bound, uses (resource index, coefficient).
type CaseAction = (f64, Option<f64>, Vec<(usize, f64)>);

/// A random system: resources (capacity, fatpipe) and actions.
#[derive(Debug, Clone)]
struct Case {
    resources: Vec<(f64, bool)>,
    actions: Vec<CaseAction>,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..8).prop_flat_map(|nr| {
        let res = prop::collection::vec((1.0f64..1000.0, prop::bool::weighted(0.2)), nr);
        let act = prop::collection::vec(
            (
                prop::sample::select(vec![1.0, 0.5, 2.0, 3.7]),
                prop::option::weighted(0.3, 1.0f64..500.0),
                prop::collection::vec((0..nr, prop::sample::select(vec![1.0, 0.05, 2.0])), 1..4),
            ),
            1..12,
        );
        (res, act).prop_map(|(resources, actions)| Case { resources, actions })
    })
}

/// Reference: plain progressive filling over everything, no shortcuts.
fn reference(c: &Case) -> Vec<f64> {
    let n = c.actions.len();
    let mut bound: Vec<f64> = c
        .actions
        .iter()
        .map(|a| a.1.unwrap_or(f64::INFINITY))
        .collect();
    for (i, a) in c.actions.iter().enumerate() {
        for &(r, k) in &a.2 {
            if c.resources[r].1 {
                bound[i] = bound[i].min(c.resources[r].0 / k);
            }
        }
    }
    let mut cap: Vec<f64> = c.resources.iter().map(|r| r.0).collect();
    let mut rate = vec![f64::NAN; n];
    loop {
        let unfixed: Vec<usize> = (0..n).filter(|&i| rate[i].is_nan()).collect();
        if unfixed.is_empty() {
            return rate;
        }
        let mut level = f64::INFINITY;
        for (r, res) in c.resources.iter().enumerate() {
            if res.1 {
                continue;
            }
            let w: f64 = unfixed
                .iter()
                .flat_map(|&i| {
                    c.actions[i]
                        .2
                        .iter()
                        .filter(move |u| u.0 == r)
                        .map(move |u| u.1 / c.actions[i].0)
                })
                .sum();
            if w > 0.0 {
                level = level.min(cap[r] / w);
            }
        }
        // The smallest bound, in level units, fixes first.
        let (bi, bl) = unfixed
            .iter()
            .map(|&i| (i, bound[i] * c.actions[i].0))
            .fold(
                (usize::MAX, f64::INFINITY),
                |m, x| if x.1 < m.1 { x } else { m },
            );
        let fix: Vec<(usize, f64)> = if bl <= level {
            vec![(bi, bound[bi])]
        } else {
            // Every action on a resource at the bottleneck level.
            let sat: Vec<usize> = (0..c.resources.len())
                .filter(|&r| {
                    let w: f64 = unfixed
                        .iter()
                        .flat_map(|&i| {
                            c.actions[i]
                                .2
                                .iter()
                                .filter(move |u| u.0 == r)
                                .map(move |u| u.1 / c.actions[i].0)
                        })
                        .sum();
                    !c.resources[r].1 && w > 0.0 && cap[r] / w <= level * (1.0 + 1e-12)
                })
                .collect();
            unfixed
                .iter()
                .filter(|&&i| c.actions[i].2.iter().any(|u| sat.contains(&u.0)))
                .map(|&i| (i, level / c.actions[i].0))
                .collect()
        };
        for (i, r) in fix {
            rate[i] = r;
            for &(res, k) in &c.actions[i].2 {
                if !c.resources[res].1 {
                    cap[res] -= r * k;
                }
            }
        }
    }
}

fn build(c: &Case) -> (System, Vec<ResourceId>, Vec<ActionId>) {
    let mut s = System::new(Precision::default());
    let res: Vec<ResourceId> = c
        .resources
        .iter()
        .map(|&(cap, fat)| {
            s.add_resource(
                cap,
                if fat {
                    Sharing::FatPipe
                } else {
                    Sharing::Shared
                },
            )
        })
        .collect();
    let acts = c
        .actions
        .iter()
        .map(|(p, b, uses)| {
            let u: Vec<(ResourceId, f64)> = uses.iter().map(|&(r, k)| (res[r], k)).collect();
            s.start(&ActionSpec {
                amount: 1000.0,
                penalty: *p,
                bound: *b,
                uses: &u,
            })
        })
        .collect();
    (s, res, acts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rates_match_the_reference(c in case()) {
        let (mut s, _, acts) = build(&c);
        let expected = reference(&c);
        for (i, &a) in acts.iter().enumerate() {
            let got = s.rate(a);
            prop_assert!(close(got, expected[i]), "action {i}: {got} vs reference {}", expected[i]);
        }
    }

    #[test]
    fn no_resource_is_over_capacity_and_every_action_is_limited(c in case()) {
        let (mut s, _, acts) = build(&c);
        let rates: Vec<f64> = acts.iter().map(|&a| s.rate(a)).collect();
        let mut used = vec![0.0; c.resources.len()];
        for (i, a) in c.actions.iter().enumerate() {
            for &(r, k) in &a.2 {
                if !c.resources[r].1 {
                    used[r] += rates[i] * k;
                }
            }
        }
        for (r, res) in c.resources.iter().enumerate() {
            prop_assert!(used[r] <= res.0 * (1.0 + 1e-9), "resource {r} at {} of {}", used[r], res.0);
        }
        for (i, a) in c.actions.iter().enumerate() {
            let at_bound = a.1.is_some_and(|b| close(rates[i], b))
                || a.2.iter().any(|&(r, k)| c.resources[r].1 && close(rates[i], c.resources[r].0 / k));
            let saturated = a.2.iter().any(|&(r, _)| !c.resources[r].1 && close(used[r], c.resources[r].0));
            prop_assert!(at_bound || saturated, "action {i} (rate {}) is limited by nothing", rates[i]);
        }
    }

    #[test]
    fn completions_match_a_step_by_step_reference(c in case(), cancel_at in 0usize..12) {
        // Run the incremental system to the end; at each event, compare the
        // remaining actions' rates with the reference on what is left.
        let (mut s, _, acts) = build(&c);
        let mut alive: Vec<bool> = vec![true; acts.len()];
        let mut steps = 0;
        if cancel_at < acts.len() {
            s.cancel(acts[cancel_at]);
            alive[cancel_at] = false;
        }
        while let Some(t) = s.next_completion() {
            let left = Case {
                resources: c.resources.clone(),
                actions: c.actions.iter().zip(&alive).filter(|(_, &l)| l).map(|(a, _)| a.clone()).collect(),
            };
            let expected = reference(&left);
            let ids: Vec<ActionId> = acts.iter().zip(&alive).filter(|(_, &l)| l).map(|(&a, _)| a).collect();
            for (k, &a) in ids.iter().enumerate() {
                prop_assert!(close(s.rate(a), expected[k]), "step {steps}: rate {} vs {}", s.rate(a), expected[k]);
            }
            let mut done = Vec::new();
            s.advance(t, &mut done);
            prop_assert!(!done.is_empty());
            for d in done {
                let i = acts.iter().position(|&a| a == d).expect("a known action");
                prop_assert!(alive[i]);
                alive[i] = false;
            }
            steps += 1;
            prop_assert!(steps <= acts.len());
        }
        prop_assert!(alive.iter().all(|&l| !l), "actions left without a completion");
    }
}

//! The core on its own: ranks, timers, computations and transfers on
//! small platforms, without MPI.

use platforms::{HostId, Platform};

use super::netmodel::NetModel;
use super::{Core, Detail, RunState, Sleep, TransferId};
use crate::config::Config;

/// Three 1 Gflop/s hosts; a and b joined by one 1 GB/s, 10 us link; no
/// route to c.
const THREE_HOSTS: &str = r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="l" bandwidth="1GBps" latency="10us"/>
    <route src="a" dst="b"><link_ctn id="l"/></route>
  </zone>
</platform>
"#;

fn model(cfg: &[&str]) -> NetModel {
    let mut c = Config::new(&[super::netmodel::OPTIONS]);
    for pair in cfg {
        c.set_pair(pair).unwrap();
    }
    NetModel::from_config(&c).unwrap()
}

/// A core of `ranks` ranks on THREE_HOSTS, rank i on host `hosts[i]`.
fn core_on_three(hosts: &[u32], cfg: &[&str]) -> Core {
    let platform = Platform::from_xml_str(THREE_HOSTS, "three.xml").unwrap();
    Core::new(
        platform,
        model(cfg),
        hosts.iter().map(|&h| HostId(h)).collect(),
    )
}

/// Runs the clock until nothing is pending, returning the transfers in
/// the order they arrived, with their dates.
fn drain(core: &mut Core) -> Vec<(TransferId, f64)> {
    let mut arrived = Vec::new();
    while let Some(t) = core.next_event() {
        core.advance(t);
        while let Some(id) = core.next_finished() {
            arrived.push((id, core.now()));
        }
    }
    arrived
}

/// The date a lone message of `bytes` over the 10 us, 1 GB/s link ends
/// (crosstraffic off): SMPI's latency factor times the latency, then the
/// envelope-padded size over the bandwidth factor.
fn lone_message(bytes: usize) -> f64 {
    let m = model(&[]);
    m.latency_factor(bytes) * 10e-6 + flow_time(&m.flow(bytes, &[(1e9, 10e-6)]), 1e9)
}

/// How long `flow` takes at `rate` bytes/s of max-min share.
fn flow_time(flow: &super::netmodel::Flow, rate: f64) -> f64 {
    flow.amount / (rate * flow.factor)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.max(1.0)
}

#[test]
fn ranks_start_ready_and_run_in_order() {
    let mut core = core_on_three(&[0, 1, 2], &[]);
    assert_eq!(core.size(), 3);
    assert_eq!(core.live(), 3);
    let order: Vec<usize> = std::iter::from_fn(|| core.pop_ready()).collect();
    assert_eq!(order, [0, 1, 2]);
    assert!(core.actors().iter().all(|r| r.state() == RunState::Ready));
}

#[test]
fn waking_a_rank_that_is_not_blocked_does_nothing() {
    let mut core = core_on_three(&[0, 1], &[]);
    while core.pop_ready().is_some() {}
    core.wake(1);
    assert_eq!(core.pop_ready(), None);
    core.set_current(1);
    core.block_current("MPI_Recv", Detail::Text("test"));
    assert_eq!(core.actor(1).state(), RunState::Blocked);
    assert_eq!(core.actor(1).blocked_in().call, "MPI_Recv");
    core.wake(1);
    core.wake(1);
    assert_eq!(core.pop_ready(), Some(1));
    assert_eq!(core.pop_ready(), None, "woken once, queued once");
    assert_eq!(core.actor(1).blocked_in().call, "");
}

#[test]
fn a_sleep_nothing_precedes_moves_the_clock_in_place() {
    let mut core = core_on_three(&[0, 1], &[]);
    while core.pop_ready().is_some() {}
    core.set_current(0);
    assert_eq!(core.start_sleep(2.5, "sleep"), Sleep::InPlace);
    assert_eq!(core.now(), 2.5);
    assert_eq!(core.actor(0).state(), RunState::Ready);
    assert_eq!(core.next_event(), None);
}

#[test]
fn a_sleep_past_a_time_limit_parks_for_the_maestro_to_stop_the_run() {
    let mut core = core_on_three(&[0, 1], &[]);
    while core.pop_ready().is_some() {}
    core.set_current(0);
    let stop = std::sync::Arc::new(super::limit::StopSignal::default());
    core.set_limits(Some(2.0), Some(std::sync::Arc::clone(&stop)));
    assert_eq!(core.simulated_limit(), 2.0);
    // Up to the simulated limit, in place; past it, a timer.
    assert_eq!(core.start_sleep(1.5, "sleep"), Sleep::InPlace);
    assert_eq!(core.start_sleep(1.0, "sleep"), Sleep::Blocked);
    assert_eq!((core.now(), core.next_event()), (1.5, Some(2.5)));
    // Once the watchdog raises its flag, no sleep moves the clock.
    let mut core = core_on_three(&[0, 1], &[]);
    while core.pop_ready().is_some() {}
    core.set_current(0);
    core.set_limits(None, Some(std::sync::Arc::clone(&stop)));
    assert!(!core.stop_raised());
    assert!(stop.expire());
    assert!(core.stop_raised());
    assert_eq!(core.start_sleep(1e-8, "MPI_Wtime"), Sleep::Blocked);
    assert_eq!(core.now(), 0.0);
}

#[test]
fn a_sleep_another_ready_rank_precedes_blocks_until_its_timer() {
    let mut core = core_on_three(&[0, 1], &[]);
    assert_eq!(core.pop_ready(), Some(0));
    core.set_current(0);
    assert_eq!(core.start_sleep(1.0, "sleep"), Sleep::Blocked);
    assert!(core.actor(0).sleeping());
    assert!(matches!(core.actor(0).blocked_in().detail, Detail::Sleep(s) if s == 1.0));
    assert_eq!(core.pop_ready(), Some(1));
    assert_eq!(core.next_event(), Some(1.0));
    assert!(drain(&mut core).is_empty());
    assert_eq!(core.now(), 1.0);
    assert!(!core.actor(0).sleeping());
    assert_eq!(core.pop_ready(), Some(0));
}

#[test]
fn sleeps_begun_together_wake_their_ranks_last_begun_first() {
    // As SimGrid 3.32 does (see engine/timer.rs).
    let mut core = core_on_three(&[0, 1, 2], &[]);
    for r in [2, 0, 1] {
        core.set_current(r);
        assert_eq!(core.start_sleep(0.5, "sleep"), Sleep::Blocked);
    }
    while core.pop_ready().is_some() {}
    drain(&mut core);
    let order: Vec<usize> = std::iter::from_fn(|| core.pop_ready()).collect();
    assert_eq!(order, [1, 0, 2]);
}

#[test]
fn timers_within_the_timing_precision_of_the_date_are_handled_then() {
    // As SimGrid, whose heaps give up what is due within surf/precision
    // (1e-9 s) of the date the clock moves to.
    let mut core = core_on_three(&[0, 1, 2], &[]);
    core.pop_ready();
    core.pop_ready();
    core.set_current(0);
    assert_eq!(core.start_sleep(1.0, "sleep"), Sleep::Blocked);
    core.set_current(1);
    assert_eq!(core.start_sleep(1.0 + 0.5e-9, "sleep"), Sleep::Blocked);
    assert_eq!(core.pop_ready(), Some(2));
    let first = core.next_event().expect("a sleep ends");
    core.advance(first);
    assert!(core.next_finished().is_none());
    assert_eq!(core.now(), 1.0);
    let woken: Vec<usize> = std::iter::from_fn(|| core.pop_ready()).collect();
    assert_eq!(woken, [0, 1]);
}

#[test]
fn a_computation_takes_its_flops_over_the_host_speed() {
    let mut core = core_on_three(&[0], &[]);
    core.pop_ready();
    core.set_current(0);
    core.start_exec(2e9, "computation");
    assert!(core.actor(0).computing());
    assert!(matches!(core.actor(0).blocked_in().detail, Detail::Compute(f) if f == 2e9));
    drain(&mut core);
    assert!(close(core.now(), 2.0), "{}", core.now());
    assert!(!core.actor(0).computing());
    assert_eq!(core.pop_ready(), Some(0));
}

#[test]
fn two_computations_on_one_core_share_it() {
    let mut core = core_on_three(&[0, 0], &[]);
    while core.pop_ready().is_some() {}
    for r in 0..2 {
        core.set_current(r);
        core.start_exec(1e9, "computation");
    }
    drain(&mut core);
    assert!(close(core.now(), 2.0), "{}", core.now());
    let order: Vec<usize> = std::iter::from_fn(|| core.pop_ready()).collect();
    assert_eq!(order.len(), 2);
}

#[test]
fn a_lone_message_takes_the_latency_phase_then_its_flow() {
    let mut core = core_on_three(&[0, 1], &["network/crosstraffic:no"]);
    let id = core.start_transfer(HostId(0), HostId(1), 1_000_000);
    assert!(!core.transfer_arrived(id));
    let arrived = drain(&mut core);
    assert_eq!(arrived.len(), 1);
    assert_eq!(arrived[0].0, id);
    assert!(
        close(arrived[0].1, lone_message(1_000_000)),
        "{} vs {}",
        arrived[0].1,
        lone_message(1_000_000)
    );
    assert!(core.transfer_arrived(id));
    core.release_transfer(id);
    assert!(!core.transfer_arrived(id));
}

#[test]
fn messages_sharing_a_link_share_its_bandwidth() {
    let mut core = core_on_three(&[0, 1], &["network/crosstraffic:no"]);
    let m = model(&[]);
    let bytes = 1_000_000;
    let a = core.start_transfer(HostId(0), HostId(1), bytes);
    let b = core.start_transfer(HostId(0), HostId(1), bytes);
    let arrived = drain(&mut core);
    assert_eq!(
        arrived.iter().map(|x| x.0).collect::<Vec<_>>(),
        [b, a],
        "equal messages started together arrive last started first, as in SimGrid"
    );
    let expected =
        m.latency_factor(bytes) * 10e-6 + 2.0 * flow_time(&m.flow(bytes, &[(1e9, 0.0)]), 1e9);
    assert!(
        close(arrived[1].1, expected),
        "{} vs {expected}",
        arrived[1].1
    );
}

#[test]
fn a_shorter_message_started_with_a_longer_one_arrives_first() {
    let mut core = core_on_three(&[0, 1], &[]);
    let long = core.start_transfer(HostId(0), HostId(1), 4_000_000);
    let short = core.start_transfer(HostId(0), HostId(1), 100_000);
    let arrived = drain(&mut core);
    assert_eq!(
        arrived.iter().map(|x| x.0).collect::<Vec<_>>(),
        [short, long]
    );
    assert!(arrived[0].1 < arrived[1].1);
}

#[test]
fn an_empty_message_still_sends_its_envelope() {
    // SimGrid's SMPI sends size + 16 bytes, so an empty message is a
    // 16-byte flow once its latency is paid, like any other.
    let mut core = core_on_three(&[0, 1], &["network/crosstraffic:no"]);
    let id = core.start_transfer(HostId(0), HostId(1), 0);
    let arrived = drain(&mut core);
    assert_eq!(arrived.len(), 1);
    assert!(close(arrived[0].1, lone_message(0)), "{}", arrived[0].1);
    assert!(arrived[0].1 > model(&[]).latency_factor(0) * 10e-6);
    assert!(core.transfer_arrived(id));
}

#[test]
fn the_constant_model_takes_latency_plus_size_over_bandwidth() {
    let mut core = core_on_three(&[0, 1], &["network/model:Constant"]);
    core.start_transfer(HostId(0), HostId(1), 1_000_000);
    core.start_transfer(HostId(0), HostId(1), 1_000_000);
    let arrived = drain(&mut core);
    // No sharing: both take 10 us + 1 ms.
    for (_, at) in arrived {
        assert!(close(at, 10e-6 + 1e-3), "{at}");
    }
}

#[test]
fn transfer_tokens_are_reused_only_once_released() {
    let mut core = core_on_three(&[0, 1], &[]);
    let a = core.start_transfer(HostId(0), HostId(1), 10);
    let b = core.start_transfer(HostId(0), HostId(1), 10);
    assert_ne!(a, b);
    drain(&mut core);
    let c = core.start_transfer(HostId(0), HostId(1), 10);
    assert!(c != a && c != b, "arrived but unreleased tokens stay taken");
    core.release_transfer(a);
    let d = core.start_transfer(HostId(0), HostId(1), 10);
    assert_eq!(d, a);
}

#[test]
fn a_message_without_a_route_fails_the_simulation_with_the_hosts_named() {
    let mut core = core_on_three(&[0, 2], &[]);
    core.set_current(0);
    core.start_transfer(HostId(0), HostId(2), 8);
    let failure = core.take_failure().expect("a failure");
    assert!(
        failure.contains("rank 0") && failure.contains("'a'") && failure.contains("'c'"),
        "{failure}"
    );
    assert!(core.take_failure().is_none(), "taken once");
}

#[test]
fn same_operations_give_the_same_dates_bit_for_bit() {
    let run = || {
        let mut core = core_on_three(&[0, 1, 0, 1], &[]);
        let mut dates = Vec::new();
        for (i, bytes) in [100_000usize, 3_000, 1 << 20, 70_000]
            .into_iter()
            .enumerate()
        {
            let (src, dst) = if i % 2 == 0 { (0, 1) } else { (1, 0) };
            core.start_transfer(HostId(src), HostId(dst), bytes);
        }
        core.set_current(2);
        core.start_exec(5e6, "computation");
        dates.extend(drain(&mut core).into_iter().map(|(_, t)| t.to_bits()));
        dates.push(core.now().to_bits());
        dates
    };
    assert_eq!(run(), run());
}

#[test]
fn finished_ranks_leave_the_live_count_and_the_first_error_code_wins() {
    let mut core = core_on_three(&[0, 1, 2], &[]);
    core.finish(2, 5);
    core.finish(0, 0);
    core.finish(0, 9);
    assert_eq!(core.live(), 1);
    core.finish(1, 3);
    assert_eq!(core.live(), 0);
    assert_eq!(core.exit_code(), 3, "rank order, not finishing order");
    assert_eq!(core.actor(0).state(), RunState::Done);
}

#[test]
fn with_nothing_pending_there_is_no_next_event() {
    let mut core = core_on_three(&[0, 1], &[]);
    assert_eq!(core.next_event(), None);
    core.set_current(0);
    core.block_current("MPI_Recv", Detail::None);
    assert_eq!(core.next_event(), None, "a blocked rank is not an event");
    assert!(core.next_finished().is_none());
}

#[test]
fn a_message_to_the_same_host_crosses_the_loopback() {
    let mut core = core_on_three(&[0, 0], &["network/crosstraffic:no"]);
    let bytes = 1_000_000;
    core.start_transfer(HostId(0), HostId(0), bytes);
    let arrived = drain(&mut core);
    // The global loopback: 10 GB/s, no latency (SimGrid's defaults).
    let expected = flow_time(&model(&[]).flow(bytes, &[(10e9, 0.0)]), 10e9);
    assert!(
        close(arrived[0].1, expected),
        "{} vs {expected}",
        arrived[0].1
    );
}

/// Hosts a and b each joined to c by a 1 GB/s, 10 us link of their own.
const TWO_TO_ONE: &str = r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="la" bandwidth="1GBps" latency="10us"/>
    <link id="lb" bandwidth="1GBps" latency="10us"/>
    <route src="a" dst="c"><link_ctn id="la"/></route>
    <route src="b" dst="c"><link_ctn id="lb"/></route>
  </zone>
</platform>
"#;

#[test]
fn ib_bounds_hold_from_the_start_and_stay_when_the_sender_is_left_alone() {
    let platform = Platform::from_xml_str(TWO_TO_ONE, "two_to_one.xml").unwrap();
    let cfg = ["network/model:IB", "network/crosstraffic:no"];
    let mut core = Core::new(platform, model(&cfg), vec![HostId(0), HostId(1), HostId(2)]);
    let m = model(&cfg);
    let (small, large) = (1_000_000, 3_000_000);
    let t1 = core.start_transfer(HostId(0), HostId(2), small);
    // t1 is in its latency phase (116 us) when t2 starts.
    core.advance(50e-6);
    assert_eq!(core.next_finished(), None);
    let t2 = core.start_transfer(HostId(1), HostId(2), large);
    let arrived = drain(&mut core);
    // Two senders to c: each flow is bounded by 1 GB/s / (2 Be) from its
    // start (t1's from the start of t2, during its latency), its own link
    // being free. When t1 arrives, the update starts from a, which then
    // sends nothing: t2 keeps its penalty (SimGrid's model does the same).
    let bound = 1e9 / (2.0 * 0.965);
    let end = |bytes: usize| {
        m.latency_factor(bytes) * 10e-6 + flow_time(&m.flow(bytes, &[(1e9, 10e-6)]), bound)
    };
    assert_eq!(arrived.iter().map(|a| a.0).collect::<Vec<_>>(), [t1, t2]);
    assert!(close(arrived[0].1, end(small)), "{arrived:?}");
    assert!(close(arrived[1].1, 50e-6 + end(large)), "{arrived:?}");
    // Under SMPI's model, each would run at the link's bandwidth.
    assert!(end(small) > lone_message(small) + 1e-4);
}

#[test]
fn an_action_started_while_others_wait_to_be_finished_loses_none_of_them() {
    // Two equal messages end together: the solver frees both actions'
    // slots at once, and the owner of the first to arrive starts a
    // computation before the second is handed out. The computation may
    // take the second's slot; the second must arrive all the same (a
    // lost owner left MPICH's RMA tests waiting forever in unlock).
    let mut core = core_on_three(&[0, 1], &["network/crosstraffic:no"]);
    while core.pop_ready().is_some() {}
    let a = core.start_transfer(HostId(0), HostId(1), 1_000_000);
    let b = core.start_transfer(HostId(0), HostId(1), 1_000_000);
    let mut arrived = Vec::new();
    while let Some(t) = core.next_event() {
        core.advance(t);
        while let Some(id) = core.next_finished() {
            if arrived.is_empty() {
                core.set_current(0);
                core.start_exec(1e9, "computation");
            }
            arrived.push(id);
        }
    }
    assert_eq!(arrived, [b, a]);
    assert!(!core.actor(0).computing(), "the computation ended too");
}

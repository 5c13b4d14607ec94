//! The MPI layer in simulations whose ranks are Rust closures
//! (`crate::testing`): matching, the protocol's choices as simulated times
//! show them, truncation, splitting, and what observers see.

use std::cell::RefCell;
use std::rc::Rc;

use super::datatype::{BYTE, INT};
use super::{
    p2p, split, Message, SendMode, Status, ANY_SOURCE, ANY_TAG, COMM_NULL, COMM_WORLD, UNDEFINED,
};
use crate::engine::observe::{Observer, TransferStart};
use crate::engine::TransferId;
use crate::sim::{self, Outcome};
use crate::testing::{now, Setup};

/// A message of `count` elements of `datatype` at `buf`, on
/// MPI_COMM_WORLD.
fn msg<T>(buf: &[T], datatype: i32, peer: i32, tag: i32) -> Message {
    Message {
        buf: buf.as_ptr() as usize,
        count: buf.len() as i64,
        datatype,
        peer,
        tag,
        comm: COMM_WORLD,
    }
}

/// A receive into `buf`: taken mutably, so that the compiler knows the
/// call may write it (reading an immutable array the call wrote through a
/// pointer is undefined behaviour, and optimised builds read the zeros).
fn recv_msg<T>(buf: &mut [T], datatype: i32, peer: i32, tag: i32) -> Message {
    Message {
        buf: buf.as_mut_ptr() as usize,
        ..msg(buf, datatype, peer, tag)
    }
}

fn finished(o: &Outcome) -> f64 {
    match o {
        Outcome::Finished { code: 0, simulated } => *simulated,
        other => panic!("the simulation did not finish cleanly: {other}"),
    }
}

/// Shared notes of the ranks of a test.
fn notes<T>() -> Rc<RefCell<Vec<T>>> {
    Rc::new(RefCell::new(Vec::new()))
}

#[test]
fn messages_from_one_sender_match_in_the_order_they_were_sent() {
    let seen = notes::<(i32, i32, i32)>();
    let s = Rc::clone(&seen);
    let o = Setup::new(3).run(move |rank| {
        match rank {
            0 => {
                for tag in [5, 7, 6] {
                    p2p::send(&msg(&[tag], INT, 2, tag), SendMode::Standard, "MPI_Send").unwrap();
                }
            }
            1 => p2p::send(&msg(&[100], INT, 2, 9), SendMode::Standard, "MPI_Send").unwrap(),
            _ => {
                // Rank 1's message first, by source and tag; then rank 0's
                // three, in order, whatever their tags.
                let mut buf = [0i32];
                let st = p2p::recv(&recv_msg(&mut buf, INT, 1, 9), "MPI_Recv").unwrap();
                s.borrow_mut().push((st.source, st.tag, buf[0]));
                for _ in 0..3 {
                    let mut buf = [0i32];
                    let st = p2p::recv(&recv_msg(&mut buf, INT, 0, ANY_TAG), "MPI_Recv").unwrap();
                    s.borrow_mut().push((st.source, st.tag, buf[0]));
                }
            }
        }
        0
    });
    finished(&o);
    assert_eq!(
        *seen.borrow(),
        [(1, 9, 100), (0, 5, 5), (0, 7, 7), (0, 6, 6)]
    );
}

#[test]
fn a_wildcard_receive_takes_the_first_message_to_arrive() {
    let seen = notes::<i32>();
    let s = Rc::clone(&seen);
    let o = Setup::new(3).run(move |rank| {
        if rank == 2 {
            for _ in 0..2 {
                let mut buf = [0i32];
                let st =
                    p2p::recv(&recv_msg(&mut buf, INT, ANY_SOURCE, ANY_TAG), "MPI_Recv").unwrap();
                s.borrow_mut().push(st.source);
            }
        } else {
            // Rank 0 sends one second later than rank 1.
            if rank == 0 {
                sim::sleep(1.0, "sleep");
            }
            p2p::send(&msg(&[1], INT, 2, 0), SendMode::Standard, "MPI_Send").unwrap();
        }
        0
    });
    finished(&o);
    assert_eq!(*seen.borrow(), [1, 0]);
}

/// When each send of rank 0 returns, with rank 1 posting its receives
/// after one second: `sends` are (mode, bytes).
fn send_returns(sends: &'static [(SendMode, usize)], cfg: &[&'static str]) -> Vec<f64> {
    let times = notes::<f64>();
    let t = Rc::clone(&times);
    let mut setup = Setup::new(2);
    for c in cfg {
        setup = setup.cfg(c);
    }
    let o = setup.run(move |rank| {
        for &(mode, bytes) in sends {
            let mut buf = vec![0u8; bytes];
            if rank == 0 {
                p2p::send(&msg(&buf, BYTE, 1, 0), mode, "MPI_Send").unwrap();
                t.borrow_mut().push(now());
            } else {
                sim::sleep(1.0, "sleep");
                p2p::recv(&recv_msg(&mut buf, BYTE, 0, 0), "MPI_Recv").unwrap();
            }
        }
        0
    });
    finished(&o);
    times.take()
}

#[test]
fn a_small_standard_send_is_detached_and_a_large_one_waits_for_its_receive() {
    let t = send_returns(&[(SendMode::Standard, 8)], &[]);
    assert_eq!(t, [0.0], "detached: the sender goes on at once");
    let t = send_returns(&[(SendMode::Standard, 1 << 20)], &[]);
    assert!(t[0] > 1.0, "rendezvous: not before the receive, {t:?}");
    // The threshold is smpi/send-is-detached-thresh.
    let t = send_returns(
        &[(SendMode::Standard, 1 << 20)],
        &["smpi/send-is-detached-thresh:2000000"],
    );
    assert_eq!(t, [0.0]);
}

#[test]
fn a_synchronous_send_waits_for_its_receive_whatever_its_size() {
    let t = send_returns(&[(SendMode::Synchronous, 8)], &[]);
    assert!(t[0] > 1.0, "{t:?}");
}

#[test]
fn a_send_overhead_is_paid_before_the_message_is_posted() {
    // smpi/os: 1 ms per detached send, paid by the sender.
    let t = send_returns(&[(SendMode::Standard, 8)], &["smpi/os:0:1e-3:0"]);
    assert_eq!(t, [1e-3]);
    // A rendezvous blocking send pays nothing.
    let t = send_returns(&[(SendMode::Standard, 1 << 20)], &["smpi/os:0:1e-3:0"]);
    let plain = send_returns(&[(SendMode::Standard, 1 << 20)], &[]);
    assert_eq!(t, plain);
}

/// When rank 1's receive of an 8-byte message, posted after one second,
/// completes.
fn late_receive_done(cfg: &[&'static str]) -> f64 {
    let done = notes::<f64>();
    let d = Rc::clone(&done);
    let mut setup = Setup::new(2);
    for c in cfg {
        setup = setup.cfg(c);
    }
    let o = setup.run(move |rank| {
        let mut buf = [0u8; 8];
        if rank == 0 {
            p2p::send(&msg(&buf, BYTE, 1, 0), SendMode::Standard, "MPI_Send").unwrap();
        } else {
            sim::sleep(1.0, "sleep");
            p2p::recv(&recv_msg(&mut buf, BYTE, 0, 0), "MPI_Recv").unwrap();
            d.borrow_mut().push(now());
        }
        0
    });
    finished(&o);
    let t = done.borrow()[0];
    t
}

#[test]
fn only_messages_below_the_async_threshold_move_before_their_receive() {
    // By default the transfer starts when the receive is posted...
    assert!(late_receive_done(&[]) > 1.0);
    // ...below smpi/async-small-thresh, at the send: over by then.
    assert_eq!(late_receive_done(&["smpi/async-small-thresh:64"]), 1.0);
}

#[test]
fn a_message_longer_than_the_receive_buffer_is_truncated() {
    let status = notes::<Status>();
    let s = Rc::clone(&status);
    let o = Setup::new(2).run(move |rank| {
        if rank == 0 {
            p2p::send(&msg(&[1, 2, 3], INT, 1, 4), SendMode::Standard, "MPI_Send").unwrap();
        } else {
            let mut buf = [0i32];
            let st = p2p::recv(&recv_msg(&mut buf, INT, 0, 4), "MPI_Recv").unwrap();
            assert_eq!(buf[0], 1);
            s.borrow_mut().push(st);
        }
        0
    });
    finished(&o);
    let st = status.borrow()[0];
    assert_eq!(st.error, super::class::TRUNCATE);
    assert_eq!(st.bytes, 4, "what fits is kept");
    assert!(st.outcome().is_err());
}

#[test]
fn a_split_groups_by_color_and_orders_by_key() {
    // (rank, size and rank in the new communicator) per world rank.
    let seen = notes::<(usize, usize, usize)>();
    let s = Rc::clone(&seen);
    let o = Setup::new(6).run(move |rank| {
        let color = if rank == 5 {
            UNDEFINED
        } else {
            (rank % 2) as i32
        };
        let view = sim::mpi(|w| w.comm(COMM_WORLD)).unwrap();
        let h = split::split(&view, color, -(rank as i32), "MPI_Comm_split").unwrap();
        if rank == 5 {
            assert_eq!(h, COMM_NULL);
        } else {
            let v = sim::mpi(|w| w.comm(h)).unwrap();
            s.borrow_mut().push((rank, v.size(), v.my_rank));
        }
        0
    });
    finished(&o);
    let mut seen = seen.take();
    seen.sort_unstable();
    // Evens 0, 2, 4 and odds 1, 3 (5 is out), each reversed by its key.
    assert_eq!(
        seen,
        [(0, 3, 2), (1, 2, 1), (2, 3, 1), (3, 2, 0), (4, 3, 0)]
    );
}

#[test]
fn ranks_waiting_for_each_other_are_reported_as_a_deadlock() {
    let o = Setup::new(2).run(move |rank| {
        let mut buf = [0i32];
        let peer = 1 - rank as i32;
        p2p::recv(&recv_msg(&mut buf, INT, peer, 3), "MPI_Recv").unwrap();
        0
    });
    let Outcome::Deadlock { report, .. } = o else {
        panic!("no deadlock: {o}");
    };
    assert!(
        report.contains("rank 0 is blocked in MPI_Recv(receive from 1, tag 3, MPI_COMM_WORLD)"),
        "{report}"
    );
}

/// An observer that writes down what it sees: (date, event).
struct Recorder(Rc<RefCell<Vec<(f64, String)>>>);

impl Observer for Recorder {
    fn transfer_start(&mut self, at: f64, t: &TransferStart) {
        let e = format!("start {} {} -> {} {} B", t.id.0, t.src.0, t.dst.0, t.bytes);
        self.0.borrow_mut().push((at, e));
    }
    fn transfer_end(&mut self, at: f64, id: TransferId) {
        self.0.borrow_mut().push((at, format!("end {}", id.0)));
    }
    fn compute_start(&mut self, at: f64, rank: usize, flops: f64) {
        self.0
            .borrow_mut()
            .push((at, format!("compute {rank} {flops}")));
    }
    fn compute_end(&mut self, at: f64, rank: usize) {
        self.0.borrow_mut().push((at, format!("computed {rank}")));
    }
}

#[test]
fn observers_see_transfers_and_computations_with_their_dates() {
    let log = notes::<(f64, String)>();
    let done = notes::<f64>();
    let d = Rc::clone(&done);
    let o = Setup::new(2)
        .observe(Box::new(Recorder(Rc::clone(&log))))
        .run(move |rank| {
            if rank == 0 {
                sim::execute(2e9, "computation");
                let buf = vec![0u8; 1 << 20];
                p2p::send(&msg(&buf, BYTE, 1, 0), SendMode::Standard, "MPI_Send").unwrap();
            } else {
                let mut buf = vec![0u8; 1 << 20];
                p2p::recv(&recv_msg(&mut buf, BYTE, 0, 0), "MPI_Recv").unwrap();
                d.borrow_mut().push(now());
            }
            0
        });
    finished(&o);
    let arrived = done.borrow()[0];
    let log = log.take();
    let events: Vec<&str> = log.iter().map(|(_, e)| e.as_str()).collect();
    assert_eq!(
        events,
        [
            "compute 0 2000000000",
            "computed 0",
            "start 0 0 -> 1 1048576 B",
            "end 0"
        ]
    );
    // 2 Gflops at 1 Gflop/s, then the message (dates to the solver's
    // precision).
    let dates: Vec<f64> = log.iter().map(|(t, _)| *t).collect();
    for (got, want) in dates.iter().zip([0.0, 2.0, 2.0, arrived]) {
        assert!((got - want).abs() < 1e-9, "{dates:?}");
    }
}

#[test]
fn the_ledger_counts_what_the_program_holds_as_simgrid_does() {
    let run = |free_dup: bool| {
        let (o, sim) = Setup::new(2).analyse().run_keeping(move |rank| {
            let here = |line| sim::with(|s| s.mpi.ledger.set_location(rank, "/src/t.c", line));
            here(10);
            let dup = match super::comm::dup(COMM_WORLD).unwrap() {
                super::comm::Duplicate::Made(h) => h,
                super::comm::Duplicate::Failed(e) => panic!("{e:?}"),
            };
            here(11);
            // The duplicate's group again, and the runtime's world group.
            let _group = sim::mpi(|w| w.comm_group(dup)).unwrap();
            let world = sim::mpi(|w| w.comm_group(COMM_WORLD)).unwrap();
            super::group::free(world).unwrap();
            here(12);
            let peer = 1 - rank as i32;
            let _unwaited = p2p::isend(&msg(&[1], INT, peer, 3), SendMode::Standard).unwrap();
            let mut buf = [0];
            p2p::recv(&recv_msg(&mut buf, INT, peer, 3), "MPI_Recv").unwrap();
            if free_dup {
                super::comm::free(dup).unwrap();
            }
            0
        });
        finished(&o);
        let leaks = sim.mpi.handle_leaks(false);
        let counts: Vec<(String, usize)> = leaks.by_origin.clone();
        (leaks.total, counts)
    };
    let owned = |v: &[(&str, usize)]| -> Vec<(String, usize)> {
        v.iter().map(|&(k, n)| (k.to_string(), n)).collect()
    };
    assert_eq!(
        run(false),
        (
            6,
            owned(&[
                ("MPI_Comm at t.c:10", 2),
                ("MPI_Group at t.c:10", 2),
                ("MPI_Request at t.c:12", 2),
            ])
        )
    );
    // The groups of a freed communicator live on in their handles.
    assert_eq!(
        run(true),
        (
            4,
            owned(&[("MPI_Group at t.c:10", 2), ("MPI_Request at t.c:12", 2)])
        )
    );
}

#[test]
fn a_simulated_time_limit_stops_the_run_at_its_date_naming_each_ranks_call() {
    let o = Setup::new(5)
        .cfg("smpi/simulated-time-limit:2.5")
        .run(move |rank| {
            match rank {
                0 => loop {
                    sim::sleep(1.0, "sleep");
                },
                3 => {}
                _ => {
                    let mut buf = [0i32];
                    p2p::recv(&recv_msg(&mut buf, INT, 0, 0), "MPI_Recv").unwrap();
                }
            }
            0
        });
    match o {
        Outcome::TimeLimit { report, simulated } => {
            assert_eq!(simulated, 2.5);
            assert_eq!(
                report,
                "smpirun: simulated-time limit of 2.5 s (smpi/simulated-time-limit) reached at \
                 simulated time 2.500000 s; stopped with rank 0 in sleep, ranks 1-2,4 in \
                 MPI_Recv, 1 finished"
            );
        }
        other => panic!("not stopped by the limit: {other:?}"),
    }
}

#[test]
fn a_run_that_ends_before_its_simulated_limit_is_not_stopped() {
    let o = Setup::new(2)
        .cfg("smpi/simulated-time-limit:2")
        .run(move |_| {
            sim::sleep(2.0, "sleep");
            0
        });
    assert!(
        matches!(o, Outcome::Finished { code: 0, simulated } if simulated == 2.0),
        "{o:?}"
    );
}

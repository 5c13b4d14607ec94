//! SimGrid's actors as a rank sees them (`simgrid/actor.h`): a rank is an
//! actor named after the rank and numbered rank + 1 (0 is the maestro),
//! and a rank may create more (`sg_actor_init`, `sg_actor_start`), which
//! act as that rank: an extra coroutine of it, with its MPI identity, its
//! host and its globals (SimGrid's `SMPI_thread_create` makes such an
//! actor an MPI process of its creator's rank).
//!
//! The core keeps every actor's run state ([`crate::engine::Actor`]); this
//! table keeps what SimGrid's interface gives them besides: names, user
//! data, and the body of a started actor until the maestro gives it a
//! coroutine. Actor `a` of the core is SimGrid's pid `a + 1`: ranks first,
//! then the created actors in creation order, as SimGrid numbers them.

use std::ffi::{CStr, CString};

use rustc_hash::FxHashMap;

use crate::log;
use crate::sim::Sim;

/// What a started actor runs on its own stack; it returns its exit code.
pub type Body = Box<dyn FnOnce() -> i32>;

/// Why an actor call cannot be done.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ActorError {
    #[error("{0:#x} is not an actor of this simulation")]
    NoSuchActor(usize),
    #[error("actor '{name}' (pid {pid}) is started already")]
    Started { name: String, pid: usize },
    #[error("actor {pid} is a rank's main actor, which smpirun starts itself")]
    RankActor { pid: usize },
    #[error(
        "an actor of rank {rank} must run on the rank's host, {rank_host} (smpi-rs runs the \
         actors a rank creates as that rank), not on {asked}"
    )]
    OtherHost {
        rank: usize,
        rank_host: String,
        asked: String,
    },
}

/// An actor a rank created.
struct Created {
    name: CString,
    /// The name for log lines (invalid UTF-8 replaced).
    label: String,
    /// `sg_actor_set_data`'s pointer.
    data: usize,
    /// Its body, from `sg_actor_start` until its coroutine is made.
    body: Option<Body>,
    /// It called `SMPI_thread_create`.
    joined: bool,
}

/// The actors' names and data (see the module's documentation).
#[derive(Default)]
pub struct Actors {
    /// The actors ranks created, by core actor number minus the number of
    /// ranks.
    created: Vec<Created>,
    /// The ranks' names (their rank in decimal), made on first request and
    /// kept: programs keep the pointers.
    rank_names: FxHashMap<usize, CString>,
    /// The data programs set on ranks' actors.
    rank_data: FxHashMap<usize, usize>,
    /// Host names as C strings, made on first request and kept.
    host_names: FxHashMap<usize, CString>,
}

/// SimGrid's pid of core actor `actor`.
pub fn pid_of(actor: usize) -> usize {
    actor + 1
}

/// The core actor of SimGrid's pid `pid`, if it is one.
pub fn check(sim: &Sim, pid: usize) -> Result<usize, ActorError> {
    pid.checked_sub(1)
        .filter(|&a| a < sim.core.actors().len())
        .ok_or(ActorError::NoSuchActor(pid))
}

impl Actors {
    fn created(&self, ranks: usize, actor: usize) -> Option<&Created> {
        actor.checked_sub(ranks).and_then(|i| self.created.get(i))
    }

    fn created_mut(&mut self, ranks: usize, actor: usize) -> Option<&mut Created> {
        actor
            .checked_sub(ranks)
            .and_then(|i| self.created.get_mut(i))
    }
}

/// Creates an actor of the running rank named `name` (`sg_actor_init`),
/// not started; its pid. It must be on the rank's host.
pub fn create(sim: &mut Sim, name: CString, host: usize) -> Result<usize, ActorError> {
    let rank = sim.core.current();
    let rank_host = sim.core.host_of(rank);
    if host != rank_host.0 as usize {
        let hosts = sim.core.platform().hosts();
        return Err(ActorError::OtherHost {
            rank,
            rank_host: hosts[rank_host.0 as usize].name.clone(),
            asked: hosts.get(host).map_or("?", |h| &h.name).to_string(),
        });
    }
    let actor = sim.core.create_actor(rank);
    debug_assert_eq!(actor - sim.core.size(), sim.actors.created.len());
    sim.actors.created.push(Created {
        label: name.to_string_lossy().into_owned(),
        name,
        data: 0,
        body: None,
        joined: false,
    });
    Ok(pid_of(actor))
}

/// Starts the created actor `pid` with `body` (`sg_actor_start`): it runs
/// once the actors ready before it have run.
pub fn start(sim: &mut Sim, pid: usize, body: Body) -> Result<(), ActorError> {
    let actor = check(sim, pid)?;
    let ranks = sim.core.size();
    let Some(created) = sim.actors.created_mut(ranks, actor) else {
        return Err(ActorError::RankActor { pid });
    };
    if created.body.is_some() || !sim.core.start_actor(actor) {
        return Err(ActorError::Started {
            name: created.label.clone(),
            pid,
        });
    }
    created.body = Some(body);
    Ok(())
}

/// The body of started actor `actor`, taken once to make its coroutine.
pub fn take_body(sim: &mut Sim, actor: usize) -> Option<Body> {
    let ranks = sim.core.size();
    sim.actors
        .created_mut(ranks, actor)
        .and_then(|c| c.body.take())
}

/// The pid of the running actor.
pub fn self_pid(sim: &Sim) -> usize {
    pid_of(sim.core.current_actor())
}

/// The name of actor `pid`, a C string that lives as long as the
/// simulation.
pub fn name(sim: &mut Sim, pid: usize) -> Result<&CStr, ActorError> {
    let actor = check(sim, pid)?;
    let ranks = sim.core.size();
    if actor < ranks {
        let name = sim
            .actors
            .rank_names
            .entry(actor)
            .or_insert_with(|| CString::new(actor.to_string()).unwrap_or_default());
        return Ok(name.as_c_str());
    }
    let created = sim
        .actors
        .created(ranks, actor)
        .ok_or(ActorError::NoSuchActor(pid))?;
    Ok(created.name.as_c_str())
}

/// The data set on actor `pid` (null if none was).
pub fn data(sim: &Sim, pid: usize) -> Result<usize, ActorError> {
    let actor = check(sim, pid)?;
    let ranks = sim.core.size();
    Ok(match sim.actors.created(ranks, actor) {
        Some(c) => c.data,
        None => sim.actors.rank_data.get(&actor).copied().unwrap_or(0),
    })
}

/// Sets the data of actor `pid`.
pub fn set_data(sim: &mut Sim, pid: usize, data: usize) -> Result<(), ActorError> {
    let actor = check(sim, pid)?;
    let ranks = sim.core.size();
    match sim.actors.created_mut(ranks, actor) {
        Some(c) => c.data = data,
        None => {
            sim.actors.rank_data.insert(actor, data);
        }
    }
    Ok(())
}

/// `SMPI_thread_create` from the running actor: an actor a rank created
/// becomes an MPI process of that rank (for `MPI_Initialized`); a rank's
/// main actor is marked initialized, as SimGrid does.
pub fn join_mpi(sim: &mut Sim) {
    let actor = sim.core.current_actor();
    let ranks = sim.core.size();
    match sim.actors.created_mut(ranks, actor) {
        Some(c) => c.joined = true,
        None => sim.mpi.ranks[actor].initialized = true,
    }
}

/// Whether the running actor is an MPI process for `MPI_Initialized`: a
/// rank's main actor once the rank called `MPI_Init`, a created actor once
/// it called `SMPI_thread_create` too (SimGrid keeps the state per actor).
pub fn mpi_initialized(sim: &Sim) -> bool {
    let actor = sim.core.current_actor();
    let rank = sim.core.current();
    let initialized = sim.mpi.ranks.get(rank).is_some_and(|m| m.initialized);
    match sim.actors.created(sim.core.size(), actor) {
        Some(c) => c.joined && initialized,
        None => initialized,
    }
}

/// Who says actor `actor`'s log lines: its host, name and pid, as
/// SimGrid's layouts print them.
pub fn log_actor(sim: &Sim, actor: usize) -> log::Actor<'_> {
    let a = sim.core.actor(actor);
    let host = &sim.core.platform().host(a.host()).name;
    let name = match sim.actors.created(sim.core.size(), actor) {
        Some(c) => log::ActorName::Named(&c.label),
        None => log::ActorName::Rank(a.rank()),
    };
    log::Actor {
        host,
        name,
        pid: pid_of(actor),
    }
}

/// How a deadlock report names actor `actor`.
pub fn describe(sim: &Sim, actor: usize) -> String {
    let rank = sim.core.actor(actor).rank();
    match sim.actors.created(sim.core.size(), actor) {
        Some(c) => format!("actor '{}' (pid {}) of rank {rank}", c.label, pid_of(actor)),
        None => format!("rank {rank}"),
    }
}

/// The name of host `host` (a number of the platform's), a C string that
/// lives as long as the simulation.
pub fn host_name(sim: &mut Sim, host: usize) -> &CStr {
    let name = &sim.core.platform().hosts()[host].name;
    sim.actors
        .host_names
        .entry(host)
        .or_insert_with(|| CString::new(name.as_str()).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use super::*;
    use crate::mpi::datatype::INT;
    use crate::mpi::request::{is_complete, take_completed, wait_for};
    use crate::mpi::{p2p, Message, SendMode, COMM_WORLD};
    use crate::sim::{self, Outcome};
    use crate::testing::{now, Setup};

    /// Creates and starts an actor of the running rank.
    fn spawn(name: &str, body: impl FnOnce() -> i32 + 'static) -> usize {
        sim::with(|s| {
            let host = s.core.running().host().0 as usize;
            let pid = create(s, CString::new(name).unwrap(), host).unwrap();
            start(s, pid, Box::new(body)).unwrap();
            pid
        })
    }

    fn int_msg(cell: &Cell<i32>, peer: i32, tag: i32) -> Message {
        Message {
            buf: cell.as_ptr() as usize,
            count: 1,
            datatype: INT,
            peer,
            tag,
            comm: COMM_WORLD,
        }
    }

    #[test]
    fn an_actor_acts_as_its_rank_and_the_run_waits_for_it() {
        // (who, rank seen, date, value)
        let seen = Rc::new(RefCell::new(Vec::<(String, usize, f64, i32)>::new()));
        let s = Rc::clone(&seen);
        let o = Setup::new(2).run(move |rank| {
            let note = Rc::clone(&s);
            if rank == 0 {
                sim::sleep(1.0, "sleep");
                let v = Cell::new(42);
                p2p::send(&int_msg(&v, 1, 5), SendMode::Standard, "MPI_Send").unwrap();
                let back = Cell::new(0);
                p2p::recv(&int_msg(&back, 1, 6), "MPI_Recv").unwrap();
                note.borrow_mut()
                    .push(("rank 0".into(), 0, now(), back.get()));
                return 0;
            }
            // Rank 1 posts a receive; its actor waits for it, then sends
            // as rank 1, while the rank's main sleeps.
            let buf = Rc::new(Cell::new(0));
            let id = p2p::irecv(&int_msg(&buf, 0, 5)).unwrap();
            let b = Rc::clone(&buf);
            let pid = spawn("waiter", move || {
                wait_for(&[id], "MPI_Wait", |w| is_complete(w, id));
                take_completed(id);
                let me = sim::with(|s| (s.core.current(), self_pid(s)));
                note.borrow_mut()
                    .push((format!("pid {}", me.1), me.0, now(), b.get()));
                let reply = Cell::new(b.get() + 1);
                p2p::send(&int_msg(&reply, 0, 6), SendMode::Standard, "MPI_Send").unwrap();
                sim::sleep(10.0, "sleep");
                0
            });
            assert_eq!(pid, 3, "the first actor after the 2 ranks");
            sim::sleep(5.0, "sleep");
            0
        });
        let Outcome::Finished { code: 0, simulated } = o else {
            panic!("{o}");
        };
        let seen = seen.take();
        assert_eq!(seen.len(), 2, "{seen:?}");
        let (who, rank, at, value) = &seen[0];
        assert_eq!((who.as_str(), *rank, *value), ("pid 3", 1, 42));
        assert!(*at > 1.0 && *at < 1.01, "the message arrived at {at}");
        let (who, _, back_at, value) = &seen[1];
        assert_eq!((who.as_str(), *value), ("rank 0", 43));
        assert!(back_at > at);
        // The run ends with the actor's sleep, after the ranks'.
        assert!((simulated - (at + 10.0)).abs() < 1e-3, "{simulated}");
    }

    #[test]
    fn a_blocked_actor_is_named_in_the_deadlock_report() {
        let o = Setup::new(2).run(move |rank| {
            if rank == 0 {
                spawn("listener", || {
                    let v = Cell::new(0);
                    p2p::recv(&int_msg(&v, 1, 9), "MPI_Recv").unwrap();
                    0
                });
            }
            0
        });
        let Outcome::Deadlock { report, .. } = o else {
            panic!("no deadlock: {o}");
        };
        assert!(
            report.contains(
                "actor 'listener' (pid 3) of rank 0 is blocked in MPI_Recv(receive from 1, tag 9, \
                 MPI_COMM_WORLD)"
            ),
            "{report}"
        );
        assert!(report.contains("(2 ranks already finished)"), "{report}");
    }

    #[test]
    fn misuses_are_errors() {
        let o = Setup::new(1).run(move |_| {
            sim::with(|s| {
                assert_eq!(self_pid(s), 1);
                assert_eq!(name(s, 1).unwrap().to_str().unwrap(), "0");
                assert_eq!(data(s, 1), Ok(0));
                set_data(s, 1, 0x1234).unwrap();
                assert_eq!(data(s, 1), Ok(0x1234));
                assert_eq!(check(s, 0), Err(ActorError::NoSuchActor(0)));
                assert_eq!(check(s, 2), Err(ActorError::NoSuchActor(2)));
                assert_eq!(
                    start(s, 1, Box::new(|| 0)),
                    Err(ActorError::RankActor { pid: 1 })
                );
                let other_host = s.core.running().host().0 as usize + 1;
                assert!(matches!(
                    create(s, CString::new("far").unwrap(), other_host),
                    Err(ActorError::OtherHost { rank: 0, .. })
                ));
                let host = s.core.running().host().0 as usize;
                let pid = create(s, CString::new("late").unwrap(), host).unwrap();
                assert_eq!(name(s, pid).unwrap().to_str().unwrap(), "late");
                start(s, pid, Box::new(|| 0)).unwrap();
                assert_eq!(
                    start(s, pid, Box::new(|| 0)),
                    Err(ActorError::Started {
                        name: "late".into(),
                        pid
                    })
                );
            });
            0
        });
        assert!(matches!(o, Outcome::Finished { code: 0, .. }), "{o}");
    }
}

//! The C ABI: every `extern "C"` MPI function, and the table of their
//! addresses that each loaded copy of the application jumps through.
//!
//! Each function checks its pointers, converts handles, and runs its body
//! inside [`call`], which accounts the CPU time the application spent since
//! its previous MPI call (DESIGN.md section 3) and applies the error
//! handler to failures. Pointer dereferences are the FFI boundary: each
//! function trusts the pointers the MPI standard says the caller provides.

#![allow(non_snake_case)]

mod actor;
mod attr;
mod benchclock;
pub(crate) mod blas;
mod callers;
mod check;
mod coll;
mod comm;
mod env;
mod file;
mod getopt;
mod host;
mod info;
mod instr;
pub mod interpose;
pub mod memory;
mod neighbor;
mod p2p;
mod persistent;
mod pthread;
mod rma;
pub(crate) mod sample;
pub mod threads;
mod time;
mod topo;
mod types;
mod xbt;

use std::ffi::{c_int, c_void};

use crate::abi_symbols::with_abi_symbols;
use crate::actors;
use crate::engine::context::{self, Suspend};
use crate::log::{self, Priority, SimGrid};
use crate::mpi::{self, MpiError, MpiResult};
use crate::sim;
use crate::trace;

use actor::*;
use attr::*;
use coll::*;
use comm::*;
use env::*;
use file::*;
use getopt::*;
use host::*;
use info::*;
use instr::*;
use memory::*;
use neighbor::*;
use p2p::*;
use persistent::*;
use rma::*;
use sample::*;
use time::*;
use topo::*;
use types::*;
use xbt::*;

/// The bench clock, in seconds, read exactly: the thread's CPU time (a
/// system call), or the monotonic clock (read in user space through the
/// vDSO). The bursts between MPI calls are read through [`benchclock`].
fn bench_clock() -> f64 {
    interpose::real_clock(if sim::fast(|f| f.wall_clock()) {
        libc::CLOCK_MONOTONIC
    } else {
        libc::CLOCK_THREAD_CPUTIME_ID
    })
}

/// Adds `flops` to the running actor's pending flops (`Actor::pending_flops`):
/// a modelled kernel or an `smpi_execute` joins the burst it is part of and
/// is spent at the rank's next MPI call or clock reading, as if it had run
/// and been measured there. The call then costs no switch to the maestro;
/// the simulated times are those of spending it at once, since nothing the
/// rank does between two MPI calls is seen by the others.
pub(crate) fn add_pending_flops(flops: f64) {
    if flops.is_nan() || flops <= 0.0 {
        return;
    }
    sim::with(|s| s.core.running_mut().pending_flops += flops);
    sim::fast(|f| f.note_pending_flops());
}

/// The application stops computing: simulate the burst since its last
/// MPI call on its host, with the modelled kernels it called. A burst
/// under `smpi/cpu-threshold` with no kernel time pending (most bursts of
/// a communication-bound program) costs a clock reading and no access to
/// the simulation.
pub(crate) fn bench_end() {
    let (simulating, wall_clock, threshold, mark) =
        sim::fast(|f| (f.simulating(), f.wall_clock(), f.threshold(), f.mark()));
    if !simulating {
        // Only the modelled kernels and smpi_execute take time.
        spend_pending_flops();
        return;
    }
    let burst = benchclock::end(mark, threshold, wall_clock);
    let pending = sim::fast(|f| f.take_pending_flops());
    if burst.is_none() && !pending {
        return;
    }
    let flops = sim::with(|s| {
        let measured = burst.map_or(0.0, |b| {
            s.computed_seconds += b;
            b * s.bench.host_speed
        });
        measured + std::mem::take(&mut s.core.running_mut().pending_flops)
    });
    compute(flops, "computation");
}

/// Runs `flops` of the running rank's computation, with SimGrid's
/// `smpi_bench` DEBUG line.
pub(crate) fn compute(flops: f64, call: &'static str) {
    if flops <= 0.0 {
        return;
    }
    if log::enabled(SimGrid::SmpiBench, Priority::Debug) {
        log_line(
            SimGrid::SmpiBench,
            Priority::Debug,
            &format!("Handle real computation time: {flops:.6} flops"),
        );
    }
    sim::execute(flops, call);
}

/// Whether a log line is printed at each MPI call or computation: then
/// `smpi_execute*` compute at once (not with the next call's burst), so
/// that the lines carry SimGrid's dates.
pub(crate) fn calls_watched() -> bool {
    log::enabled(SimGrid::SmpiMpi, Priority::Verbose)
        || log::enabled(SimGrid::SmpiBench, Priority::Debug)
}

/// SimGrid's VERBOSE line of an MPI call entering or leaving (kept out of
/// line: `call_in` is on every call's path, its frame on every rank's
/// stack).
#[cold]
#[inline(never)]
fn log_call(what: &str, name: &str) {
    log_line(
        SimGrid::SmpiMpi,
        Priority::Verbose,
        &format!("SMPI - {what} {name}"),
    );
}

/// Runs `body` between SimGrid's `smpi_mpi` VERBOSE lines of MPI call
/// `name`: around the body of [`call_in`], and alone for the calls that
/// have no error handler nor burst accounting of their own.
pub(crate) fn traced<R>(name: &'static str, body: impl FnOnce() -> R) -> R {
    sim::note_call(name);
    let logged = log::enabled(SimGrid::SmpiMpi, Priority::Verbose);
    if logged {
        log_call("Entering", name);
    }
    let r = body();
    if logged {
        log_call("Leaving", name);
    }
    r
}

/// A line of the running actor's, in one of SimGrid's categories.
#[cold]
#[inline(never)]
pub(crate) fn log_line(category: SimGrid, priority: Priority, message: &str) {
    sim::with(|s| {
        let actor = actors::log_actor(s, s.core.current_actor());
        log::simgrid(
            category,
            priority,
            log::Source::Actor(actor),
            s.core.now(),
            message,
        );
    });
}

/// Spends the running rank's pending flops, if any (alone: without the
/// measured burst). Also called when a rank's main returns, so that an
/// `smpi_execute` after its last MPI call still takes its time.
pub(crate) fn spend_pending_flops() {
    if sim::fast(|f| f.take_pending_flops()) {
        let flops = sim::with(|s| std::mem::take(&mut s.core.running_mut().pending_flops));
        compute(flops, "computation");
    }
}

/// The application resumes computing: the mark its next burst is
/// measured from (the last thing a call does).
pub(crate) fn bench_begin() {
    let (simulating, wall_clock) = sim::fast(|f| (f.simulating(), f.wall_clock()));
    if !simulating {
        return;
    }
    let mark = benchclock::begin(wall_clock);
    sim::fast(|f| f.set_mark(mark));
}

/// Ends the whole simulation from inside a rank (MPI_Abort or a fatal error).
pub(crate) fn abort_simulation(code: i32) -> ! {
    sim::with(|s| {
        if s.aborted.is_none() {
            s.aborted = Some((s.core.current(), code));
        }
    });
    loop {
        context::suspend(Suspend::Exit(code));
    }
}

/// The object whose error handler judges a call's failure.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ErrScope {
    Comm(c_int),
    Win(c_int),
    /// A file (MPI_FILE_NULL for MPI_File_open and MPI_File_delete).
    File(c_int),
}

/// Runs the body of MPI call `name`: accounts computation, then applies
/// the error handler of `comm` to a failure.
pub(crate) fn call(name: &'static str, comm: c_int, body: impl FnOnce() -> MpiResult<()>) -> c_int {
    call_in(name, ErrScope::Comm(comm), body)
}

/// [`call`] for a call on an object other than a communicator.
pub(crate) fn call_in(
    name: &'static str,
    scope: ErrScope,
    body: impl FnOnce() -> MpiResult<()>,
) -> c_int {
    call_described(name, scope, |_| None, body)
}

/// [`call`] for a call SimGrid's traces record: `describe` says how, and
/// runs only when a tracer is attached.
pub(crate) fn call_traced(
    name: &'static str,
    comm: c_int,
    describe: impl FnOnce(&mpi::Ctx<'_>) -> Option<trace::Traced>,
    body: impl FnOnce() -> MpiResult<()>,
) -> c_int {
    call_described(name, ErrScope::Comm(comm), describe, body)
}

fn call_described(
    name: &'static str,
    scope: ErrScope,
    describe: impl FnOnce(&mpi::Ctx<'_>) -> Option<trace::Traced>,
    body: impl FnOnce() -> MpiResult<()>,
) -> c_int {
    // SimGrid's MPI_* wrappers log around all of the call, before the
    // burst is accounted and after the error handler.
    let code = traced(name, || {
        bench_end();
        let observed = sim::fast(|f| f.observed());
        // The tracing runs in frames of its own, not in every call's (see
        // `context::outlined`).
        if observed {
            crate::engine::context::outlined(|| {
                sim::with(|s| {
                    let mut traced = describe(&s.mpi());
                    if let (Some(t), ErrScope::Comm(c)) = (traced.as_mut(), scope) {
                        t.comm = Some(c);
                    }
                    let (at, who) = (s.core.now(), (s.core.current(), s.core.current_actor()));
                    s.tracers.call_enter(at, who, name, traced.as_ref());
                })
            });
        }
        let result = mpi::as_call(body);
        let code = match result {
            Ok(()) => mpi::class::SUCCESS,
            Err(e) => handle_error(name, scope, e),
        };
        if observed {
            crate::engine::context::outlined(|| {
                sim::with(|s| {
                    let (at, who) = (s.core.now(), (s.core.current(), s.core.current_actor()));
                    s.tracers.call_exit(at, who, name, code);
                })
            });
        }
        code
    });
    bench_begin();
    code
}

/// Applies the error handler: fatal (the default) prints and aborts.
#[cold]
#[inline(never)]
fn handle_error(name: &'static str, scope: ErrScope, e: MpiError) -> c_int {
    let (rank, handler, object, what) = sim::mpi(|w| match scope {
        ErrScope::Comm(c) => (w.core.current(), w.errhandler(c), c, mpi::comm_name(c)),
        ErrScope::Win(h) => match w.win_member(h) {
            Ok(m) => (w.core.current(), m.errhandler, h, format!("window {h}")),
            // No such window: the communicator world's handler applies.
            Err(_) => (
                w.core.current(),
                w.errhandler(mpi::COMM_WORLD),
                mpi::COMM_WORLD,
                mpi::comm_name(mpi::COMM_WORLD),
            ),
        },
        ErrScope::File(f) => {
            let handler = w
                .file_errhandler(f)
                .or_else(|_| w.file_errhandler(mpi::file::FILE_NULL))
                .unwrap_or(mpi::ERRORS_RETURN);
            let what = match w.mpi.files.path(f) {
                Some(path) => format!("file '{path}'"),
                None => "MPI_FILE_NULL (the default for files)".to_string(),
            };
            (w.core.current(), handler, f, what)
        }
    });
    if handler == mpi::ERRORS_RETURN {
        // SimGrid's MPI_* wrappers say so (hidden with
        // --log=smpi_mpi.thres:error, as its tests do).
        if log::enabled(SimGrid::SmpiMpi, Priority::Warning) {
            log_line(
                SimGrid::SmpiMpi,
                Priority::Warning,
                &format!(
                    "{name} - returned {} instead of MPI_SUCCESS",
                    mpi::error_string(e.class)
                ),
            );
        }
        return e.class;
    }
    if let Some(f) = sim::mpi(|w| w.mpi.user_errhandler(handler)) {
        call_user_errhandler(f, object, e.class);
        return e.class;
    }
    crate::flush_c_stdio();
    eprintln!(
        "smpirun: rank {rank}: {name}: {} [{}]; the error handler of {what} is \
         MPI_ERRORS_ARE_FATAL, so the simulation stops (set MPI_ERRORS_RETURN to handle errors \
         in the program)",
        e.message,
        mpi::error_string(e.class),
    );
    abort_simulation(e.class.max(1))
}

/// MPI_Comm_errhandler_function: `(MPI_Comm *, int *, ...)`.
type ErrhandlerFn = unsafe extern "C" fn(*mut c_int, *mut c_int);

/// Calls the program's error handler for `comm` and `code`.
pub(crate) fn call_user_errhandler(function: usize, comm: c_int, code: c_int) {
    // SAFETY: `function` is the address the program gave to
    // MPI_Comm_create_errhandler, whose C type takes (MPI_Comm *, int *,
    // ...); calling a variadic C function with its fixed arguments only is
    // valid under the platform ABIs we support.
    let f: ErrhandlerFn = unsafe { std::mem::transmute::<usize, ErrhandlerFn>(function) };
    let (mut c, mut k) = (comm, code);
    // SAFETY: pointers to locals that live across the call.
    unsafe { f(&mut c, &mut k) };
}

/// The entry points, in the order of `abi_symbols`.
pub struct AbiTable(pub [*const c_void; crate::abi_symbols::ABI_NAMES.len()]);

// SAFETY: the table holds function addresses only; it is never mutated.
unsafe impl Sync for AbiTable {}

macro_rules! table_array {
    ($($name:ident),* $(,)?) => {
        /// The runtime's entry-point table, stored into every loaded copy.
        pub static ABI_TABLE: AbiTable = AbiTable([$($name as *const c_void),*]);
    };
}
with_abi_symbols!(table_array);

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::engine::observe::Observer;
    use crate::testing::Setup;
    use crate::trace::{Traced, Tracer};

    /// One call event: (rank, call, entered?, code).
    type CallEvent = (usize, &'static str, bool, i32);

    /// Writes down the MPI calls it sees.
    struct Calls(Rc<RefCell<Vec<CallEvent>>>);

    impl Observer for Calls {}

    impl Tracer for Calls {
        fn call_enter(&mut self, _at: f64, rank: usize, call: &'static str, _: Option<&Traced>) {
            self.0.borrow_mut().push((rank, call, true, 0));
        }
        fn call_exit(&mut self, _at: f64, rank: usize, call: &'static str, code: i32) {
            self.0.borrow_mut().push((rank, call, false, code));
        }
        fn finish(&mut self, _end: f64) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn observers_see_every_call_enter_and_return_with_its_code() {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let o = Setup::new(2)
            .trace(Rc::new(RefCell::new(Calls(Rc::clone(&seen)))))
            .run(|rank| {
                // SAFETY: the C entry points, called as a program would.
                unsafe {
                    super::MPI_Barrier(crate::mpi::COMM_WORLD);
                    if rank == 0 {
                        // An invalid communicator, with errors returned.
                        super::MPI_Comm_set_errhandler(
                            crate::mpi::COMM_WORLD,
                            crate::mpi::ERRORS_RETURN,
                        );
                        super::MPI_Barrier(77);
                    }
                }
                0
            });
        assert!(
            matches!(o, crate::sim::Outcome::Finished { code: 0, .. }),
            "{o}"
        );
        let seen = seen.take();
        let of = |r: usize| -> Vec<(&str, bool, i32)> {
            seen.iter()
                .filter(|e| e.0 == r)
                .map(|e| (e.1, e.2, e.3))
                .collect()
        };
        assert_eq!(of(1), [("MPI_Barrier", true, 0), ("MPI_Barrier", false, 0)]);
        assert_eq!(
            of(0),
            [
                ("MPI_Barrier", true, 0),
                ("MPI_Barrier", false, 0),
                ("MPI_Comm_set_errhandler", true, 0),
                ("MPI_Comm_set_errhandler", false, 0),
                ("MPI_Barrier", true, 0),
                ("MPI_Barrier", false, crate::mpi::class::COMM),
            ]
        );
    }

    #[test]
    fn a_profile_counts_the_bytes_of_each_calls_buffers() {
        use crate::mpi::datatype::{DOUBLE, INT};
        use crate::mpi::op::Builtin;
        use crate::mpi::COMM_WORLD as WORLD;
        use crate::trace::profile::Profiler;
        use std::ffi::c_void;
        let profiler = Rc::new(RefCell::new(Profiler::new(3)));
        let (o, sim) = Setup::new(3)
            .trace(Rc::clone(&profiler) as crate::trace::Shared)
            .run_keeping(|rank| {
                let mut a = vec![1.0f64; 30];
                let mut b = vec![0.0f64; 30];
                let (pa, pb) = (
                    a.as_mut_ptr().cast::<c_void>(),
                    b.as_mut_ptr().cast::<c_void>(),
                );
                let peer = |d: usize| ((rank + d) % 3) as i32;
                // SAFETY: the C entry points, called as a program would,
                // on buffers of 30 doubles that outlive the calls.
                unsafe {
                    super::MPI_Allreduce(pa, pb, 10, DOUBLE, Builtin::Sum as i32, WORLD);
                    super::MPI_Bcast(pa, 4, INT, 0, WORLD);
                    // 2 ints to each of 3 ranks.
                    super::MPI_Alltoall(pa, 2, INT, pb, 2, INT, WORLD);
                    // Rank 1 sends 5 doubles to each rank.
                    super::MPI_Scatter(pa, 5, DOUBLE, pb, 5, DOUBLE, 1, WORLD);
                    let st = std::ptr::null_mut();
                    super::MPI_Sendrecv(
                        pa,
                        3,
                        DOUBLE,
                        peer(1),
                        0,
                        pb,
                        6,
                        INT,
                        peer(2),
                        0,
                        WORLD,
                        st,
                    );
                    // Three doubles in one element of a derived type.
                    let mut triple = 0;
                    super::MPI_Type_contiguous(3, DOUBLE, &mut triple);
                    super::MPI_Type_commit(&mut triple);
                    super::MPI_Bcast(pa, 2, triple, 0, WORLD);
                    super::MPI_Barrier(WORLD);
                }
                0
            });
        assert!(
            matches!(o, crate::sim::Outcome::Finished { code: 0, .. }),
            "{o}"
        );
        sim.tracers.finish(sim.core.now()).unwrap();
        let p = profiler.borrow();
        let bytes = |rank, call| p.stat(rank, call).map(|s| (s.calls, s.bytes));
        for rank in 0..3 {
            assert_eq!(bytes(rank, "MPI_Allreduce"), Some((1, 80)));
            assert_eq!(bytes(rank, "MPI_Bcast"), Some((2, 16 + 48)));
            assert_eq!(bytes(rank, "MPI_Alltoall"), Some((1, 24)));
            assert_eq!(bytes(rank, "MPI_Sendrecv"), Some((1, 24 + 24)));
            assert_eq!(bytes(rank, "MPI_Barrier"), Some((1, 0)));
            assert_eq!(bytes(rank, "MPI_Type_commit"), Some((1, 0)));
            let scatter = if rank == 1 { 120 } else { 40 };
            assert_eq!(bytes(rank, "MPI_Scatter"), Some((1, scatter)));
            let s = p.stat(rank, "MPI_Allreduce").unwrap();
            assert!(s.time > 0.0 && s.time <= p.end(), "{s:?}");
        }
    }

    /// Runs `program` on 2 ranks with a Paje trace; the trace's lines.
    fn paje_lines(name: &str, program: impl Fn(usize) -> i32 + 'static) -> Vec<String> {
        let file =
            std::env::temp_dir().join(format!("smpi-rs-{}-{name}.trace", std::process::id()));
        let options = crate::trace::paje::Options {
            file: file.clone(),
            precision: 6,
            comment: String::new(),
            comment_file: None,
            display_sizes: false,
            computing: false,
            sleeping: false,
            call_location: false,
            grouped: false,
            resources: false,
        };
        let writer = crate::trace::paje::PajeWriter::new(&options, 2, &[]).unwrap();
        let writer = Rc::new(RefCell::new(writer));
        let o = Setup::new(2).trace(writer.clone()).run(program);
        assert!(
            matches!(o, crate::sim::Outcome::Finished { code: 0, .. }),
            "{o}"
        );
        writer.borrow_mut().finish(0.0).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let _ = std::fs::remove_file(&file);
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn paje_links_join_each_traced_send_to_the_receive_that_takes_it() {
        use crate::mpi::{datatype::INT, ANY_SOURCE, ANY_TAG, COMM_WORLD};
        use std::ffi::{c_int, c_void};
        use std::ptr::{addr_of_mut, null_mut};
        let lines = paje_lines("links", |rank| {
            let mut x: c_int = 7;
            let buf = addr_of_mut!(x).cast::<c_void>();
            let mut req: c_int = 0;
            let mut flag: c_int = 0;
            // SAFETY: the C entry points, called as a program would, on
            // this frame's variables.
            unsafe {
                super::MPI_Init(null_mut(), null_mut());
                if rank == 0 {
                    super::MPI_Send(buf, 1, INT, 1, 5, COMM_WORLD);
                    super::MPI_Isend(buf, 1, INT, 1, 6, COMM_WORLD, &mut req);
                    super::MPI_Wait(&mut req, null_mut());
                    super::MPI_Send(buf, 1, INT, 1, 8, COMM_WORLD);
                    // Not traced: no link.
                    super::MPI_Send_init(buf, 1, INT, 1, 9, COMM_WORLD, &mut req);
                    super::MPI_Start(&mut req);
                    super::MPI_Wait(&mut req, null_mut());
                    super::MPI_Request_free(&mut req);
                } else {
                    super::MPI_Recv(buf, 1, INT, ANY_SOURCE, 5, COMM_WORLD, null_mut());
                    super::MPI_Irecv(buf, 1, INT, 0, ANY_TAG, COMM_WORLD, &mut req);
                    while flag == 0 {
                        super::MPI_Test(&mut req, &mut flag, null_mut());
                    }
                    super::MPI_Irecv(buf, 1, INT, 0, 8, COMM_WORLD, &mut req);
                    super::MPI_Wait(&mut req, null_mut());
                    super::MPI_Recv(buf, 1, INT, 0, 9, COMM_WORLD, null_mut());
                }
                super::MPI_Finalize();
            }
            0
        });
        let of =
            |kind: &str| -> Vec<&String> { lines.iter().filter(|l| l.starts_with(kind)).collect() };
        let key = |l: &String| l.rsplit(' ').next().unwrap().to_string();
        let starts: Vec<String> = of("15 ").into_iter().map(key).collect();
        let ends: Vec<String> = of("16 ").into_iter().map(key).collect();
        assert_eq!(starts, ["1_2_5_1", "1_2_6_2", "1_2_8_3"]);
        assert_eq!(ends, starts);
        for l in of("15 ") {
            assert!(l.contains(" 3 0 PTP 1 "), "{l}");
        }
        for l in of("16 ") {
            assert!(l.contains(" 3 0 PTP 2 "), "{l}");
        }
        // MPI_Wait pops its state before the link ends (SimGrid's order),
        // MPI_Recv after.
        let at = |k: &str| {
            lines
                .iter()
                .position(|l| l.starts_with("16 ") && l.ends_with(k))
                .unwrap()
        };
        assert!(lines[at("1_2_8_3") - 1].starts_with("13 "), "{lines:#?}");
        assert!(lines[at("1_2_5_1") + 1].starts_with("13 "), "{lines:#?}");
        // Both ranks are made and destroyed; every push is popped.
        assert_eq!(of("6 ").len(), 2);
        assert_eq!(of("7 ").len(), 2);
        assert_eq!(of("12 ").len(), of("13 ").len());
        assert!(lines
            .iter()
            .any(|l| l.starts_with("5 ") && l.contains(" PMPI_Test ")));
    }
}

//! Simulations whose ranks are Rust closures, for the unit tests of the
//! MPI layer and the wiring: the real engine, MPI state and coroutines,
//! without a C program or a loader. Ranks call the MPI layer's rank-side
//! functions (`mpi::p2p::send`, `mpi::collective::barrier`...) directly.

use std::rc::Rc;

use platforms::{HostId, Platform};

use crate::engine::context::{self, CoStack, RankCoroutine, RankStack};
use crate::engine::limit::Limits;
use crate::engine::netmodel::NetModel;
use crate::engine::observe::Observer;
use crate::engine::Core;
use crate::memory::Memory;
use crate::mpi::{Mpi, Protocol};
use crate::sim::{self, Bench, Coroutine, Outcome, RankFactory, Sim};

/// A rank's program: it gets its rank, returns its exit code.
pub type Program = Rc<dyn Fn(usize) -> i32>;

struct Closures(Program);

impl RankFactory for Closures {
    fn create(&mut self, rank: usize) -> Result<(RankCoroutine, (usize, usize)), String> {
        let stack = CoStack::Own(RankStack::new(1 << 20).map_err(|e| e.to_string())?);
        let guard = stack.guard();
        let program = Rc::clone(&self.0);
        Ok((context::spawn(stack, move || program(rank)), guard))
    }

    fn spawn(&mut self, _rank: usize, body: crate::actors::Body) -> Result<Coroutine, String> {
        let stack = CoStack::Own(RankStack::new(1 << 20).map_err(|e| e.to_string())?);
        let guard = stack.guard();
        Ok((context::spawn(stack, body), guard))
    }
}

/// A simulation to run.
pub struct Setup {
    pub ranks: usize,
    /// `--cfg` settings (`name:value`).
    pub cfg: Vec<&'static str>,
    pub observers: Vec<Box<dyn Observer>>,
    pub tracers: Vec<crate::trace::Shared>,
    /// The memory analysis runs (`Sim::analyse_memory`).
    pub analyse: bool,
}

impl Setup {
    pub fn new(ranks: usize) -> Self {
        Self {
            ranks,
            cfg: Vec::new(),
            observers: Vec::new(),
            tracers: Vec::new(),
            analyse: false,
        }
    }

    /// Runs the memory analysis (the ledger of handles notes them).
    pub fn analyse(mut self) -> Self {
        self.analyse = true;
        self
    }

    pub fn cfg(mut self, pair: &'static str) -> Self {
        self.cfg.push(pair);
        self
    }

    pub fn observe(mut self, o: Box<dyn Observer>) -> Self {
        self.observers.push(o);
        self
    }

    pub fn trace(mut self, t: crate::trace::Shared) -> Self {
        self.tracers.push(t);
        self
    }

    /// Runs `program` on every rank of the built-in cluster (1 Gflop/s
    /// hosts, computation not measured); how it ended.
    pub fn run(self, program: impl Fn(usize) -> i32 + 'static) -> Outcome {
        self.run_keeping(program).0
    }

    /// [`Setup::run`], giving back the simulation as it ended.
    pub fn run_keeping(self, program: impl Fn(usize) -> i32 + 'static) -> (Outcome, Sim) {
        let mut cfg = crate::run::config();
        for pair in &self.cfg {
            cfg.set_pair(pair).expect("a valid test setting");
        }
        let platform = Platform::default_cluster(self.ranks, 1e9);
        let model = NetModel::from_config(&cfg).expect("a valid network model");
        let protocol = Protocol::from_config(&cfg, false).expect("a valid protocol");
        let hosts = (0..self.ranks).map(|i| HostId(i as u32)).collect();
        let limits = Limits::from_config(&cfg, None).expect("valid test limits");
        let mut core = Core::new(platform, model, hosts);
        core.set_limits(limits.simulated.as_ref().map(|l| l.seconds), None);
        for o in self.observers {
            core.observers().attach(o);
        }
        let bench = Bench {
            simulate: false,
            wall_clock: false,
            threshold: 1e-6,
            host_speed: 1e9,
            omp_cpu: true,
        };
        let mut mpi = Mpi::new(self.ranks, protocol);
        // The collectives' algorithms and their radix, as smpirun sets them.
        mpi.algorithms =
            crate::mpi::coll::Algorithms::from_config(&cfg).expect("valid test algorithms");
        let mut sim = Sim::new(core, mpi, Memory::default(), bench);
        for t in self.tracers {
            sim.tracers.attach(t, &mut sim.core);
        }
        sim.limits = limits;
        if self.analyse {
            sim.analyse_memory(false);
        }
        sim::install(sim);
        let outcome = sim::run(&mut Closures(Rc::new(program)));
        let sim = sim::uninstall().expect("the simulation installed above");
        (outcome, sim)
    }
}

/// The simulated date now (from a rank).
pub fn now() -> f64 {
    sim::with(|s| s.core.now())
}

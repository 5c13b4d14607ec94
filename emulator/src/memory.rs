//! The memory ranks' data lives in, as messages and one-sided operations
//! must see it: the program's globals when they are swapped between ranks
//! (`smpi/privatization:swap`), the ranks' stacks when they share one
//! (`contexts/stack-mode:copy`), and folded allocations
//! (`SMPI_SHARED_MALLOC`, `smpi/auto-shared-malloc-thresh`).
//!
//! Swapped globals and a shared stack are *placed* memory: at one address,
//! each rank's own contents, whichever rank's are in place. Code that
//! touches another rank's placed memory calls [`Memory::activate`] for it
//! first, and again for the rank that was in place ([`Memory::placed`])
//! after.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use privatize::fold::{FoldError, Folding, Strategy};
use privatize::getopt_globals::GetoptGlobals;
use privatize::tls::ThreadLocals;
use privatize::DataSegment;
use rustc_hash::FxHashMap;

use crate::config::{Config, ConfigError, Kind, OptionSpec, Options};
use crate::engine::shared_stack::SharedStack;

/// The options of folded memory.
#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "smpi/shared-malloc", kind: Kind::Text, default: "global", help: "how SMPI_SHARED_MALLOC folds memory: global (every allocation maps one small block over and over), local (allocations at one call site share one buffer) or no" },
    OptionSpec { name: "smpi/auto-shared-malloc-thresh", kind: Kind::Int, default: "0", help: "fold every malloc, calloc or realloc of at least this many bytes as SMPI_SHARED_MALLOC does (0: never); only for buffers whose content does not steer the program" },
    OptionSpec { name: "smpi/shared-malloc-hugepage", kind: Kind::Text, default: "", help: "path to a mounted hugetlbfs: the block of global folding then lives in huge pages there (one page-table entry and one fault per huge page of folded memory; the block size and every folded allocation are rounded up to huge pages)" },
    OptionSpec { name: "smpi/shared-malloc-blocksize", kind: Kind::Int, default: "1048576", help: "size of the physical block of global folding, in bytes (rounded up to pages; one mapping per block)" },
];

pub struct Memory {
    /// The program's globals when they are swapped between ranks: the rank
    /// now running has its own in place, and code touching another rank's
    /// memory calls [`Memory::activate`] first.
    pub segment: Option<Rc<DataSegment>>,
    /// The stack the ranks share (`contexts/stack-mode:copy`): the rank in
    /// place has its frames there.
    pub shared_stack: Option<SharedStack>,
    /// The allocations of `SMPI_SHARED_MALLOC` (`smpi/shared-malloc`).
    pub folding: Folding,
    /// `smpi/auto-shared-malloc-thresh`: plain allocations of at least
    /// this many bytes are folded too (0: none).
    pub auto_fold_threshold: usize,
    /// glibc's getopt globals, swapped between ranks once a rank called
    /// getopt (nothing to swap before: every rank sees glibc's start).
    getopt: RefCell<Option<GetoptSwap>>,
    /// Each rank's copy's thread-local storage, if the program has some
    /// (by rank; one for all ranks when they share one copy).
    tls: RefCell<Vec<Option<Rc<TlsSwap>>>>,
}

/// The thread-local storage of one loaded copy, shared by the actors
/// that run it (a rank's simulated threads; the ranks too when they share
/// the copy): each has its own contents, put in the block while it runs.
struct TlsSwap {
    locals: Rc<ThreadLocals>,
    /// The actor whose contents the block holds.
    resident: Cell<Option<usize>>,
    /// The others' contents, once they used the block (none yet: the
    /// initial image).
    saved: RefCell<FxHashMap<usize, Vec<u8>>>,
}

/// Each rank's getopt globals, and whose are in glibc's now.
#[derive(Debug)]
struct GetoptSwap {
    active: usize,
    saved: Vec<GetoptGlobals>,
}

impl Default for Memory {
    fn default() -> Self {
        Self {
            segment: None,
            shared_stack: None,
            folding: Folding::new(Strategy::Global, 1 << 20),
            auto_fold_threshold: 0,
            getopt: RefCell::new(None),
            tls: RefCell::default(),
        }
    }
}

/// Why the memory the options ask for cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Fold(#[from] FoldError),
}

impl Memory {
    /// The memory the options ask for; `segment`: the program's globals,
    /// when they are swapped between ranks.
    pub fn from_config(
        cfg: &Config,
        segment: Option<Rc<DataSegment>>,
    ) -> Result<Self, MemoryError> {
        let bad = |name: &str, expected| ConfigError::BadValue {
            name: name.to_string(),
            value: cfg.text(name).to_string(),
            expected,
        };
        let strategy = match cfg.text("smpi/shared-malloc") {
            "global" => Strategy::Global,
            "local" => Strategy::Local,
            "no" | "none" => Strategy::No,
            _ => return Err(bad("smpi/shared-malloc", "global, local or no").into()),
        };
        let block = usize::try_from(cfg.int("smpi/shared-malloc-blocksize"))
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| bad("smpi/shared-malloc-blocksize", "a positive size"))?;
        let auto_fold_threshold = usize::try_from(cfg.int("smpi/auto-shared-malloc-thresh"))
            .map_err(|_| bad("smpi/auto-shared-malloc-thresh", "a size in bytes"))?;
        let mut folding = Folding::new(strategy, block);
        let huge = cfg.text("smpi/shared-malloc-hugepage");
        if !huge.is_empty() {
            folding.use_huge_pages(std::path::Path::new(huge))?;
        }
        Ok(Self {
            segment,
            shared_stack: None,
            folding,
            auto_fold_threshold,
            getopt: RefCell::new(None),
            tls: RefCell::default(),
        })
    }

    /// Puts `rank`'s placed memory in place: its globals (swap
    /// privatization) and its frames (a shared stack); nothing to do
    /// otherwise.
    pub fn activate(&self, rank: usize) {
        if let Some(s) = &self.segment {
            s.activate(rank);
        }
        if let Some(s) = &self.shared_stack {
            s.make_resident(rank);
        }
        if let Some(swap) = self.getopt.borrow_mut().as_mut() {
            if swap.active != rank {
                swap.saved[swap.active] = GetoptGlobals::read();
                swap.saved[rank].write();
                swap.active = rank;
            }
        }
    }

    /// The rank whose placed memory is in place, if any is: the last one
    /// activated (a shared stack keeps the frames of an earlier one while
    /// the last has none, which nothing then needs).
    pub fn placed(&self) -> Option<usize> {
        self.segment
            .as_ref()
            .and_then(|s| s.owner())
            .or_else(|| self.shared_stack.as_ref().and_then(SharedStack::resident))
    }

    /// Whether some memory is placed (swapped globals, a shared stack).
    pub fn has_placed(&self) -> bool {
        self.segment.is_some() || self.shared_stack.is_some()
    }

    /// Whether `[addr, addr + len)` overlaps placed memory.
    pub fn placed_contains(&self, addr: usize, len: usize) -> bool {
        self.segment.as_ref().is_some_and(|s| s.contains(addr, len))
            || self
                .shared_stack
                .as_ref()
                .is_some_and(|s| s.contains(addr, len))
    }

    /// Notes the thread-local storage of the copy `rank` runs, when it has
    /// some.
    pub fn set_thread_locals(&self, rank: usize, locals: Option<Rc<ThreadLocals>>) {
        let Some(locals) = locals else {
            return;
        };
        let mut tls = self.tls.borrow_mut();
        let swap = tls
            .iter()
            .flatten()
            .find(|s| Rc::ptr_eq(&s.locals, &locals))
            .cloned()
            .unwrap_or_else(|| {
                Rc::new(TlsSwap {
                    locals,
                    resident: Cell::new(None),
                    saved: RefCell::default(),
                })
            });
        if tls.len() <= rank {
            tls.resize(rank + 1, None);
        }
        tls[rank] = Some(swap);
    }

    /// Puts the thread-local contents of `actor`, of `rank`, in place
    /// before it runs (those of the actor that ran the copy before are
    /// kept).
    pub fn run_actor(&self, rank: usize, actor: usize) {
        let tls = self.tls.borrow();
        let Some(Some(swap)) = tls.get(rank) else {
            return;
        };
        let resident = swap.resident.get();
        if resident == Some(actor) {
            return;
        }
        let mut saved = swap.saved.borrow_mut();
        if let Some(previous) = resident {
            let mut image = saved.remove(&previous).unwrap_or_default();
            if swap.locals.save(&mut image) {
                saved.insert(previous, image);
            }
        }
        swap.locals.restore(saved.get(&actor).map(Vec::as_slice));
        swap.resident.set(Some(actor));
    }

    /// Forgets the thread-local contents of `actor` of `rank`, which ended,
    /// and its frames if it is the rank's main actor (numbered as the rank)
    /// on a shared stack.
    pub fn forget_actor(&self, rank: usize, actor: usize) {
        if actor == rank {
            if let Some(s) = &self.shared_stack {
                s.forget(rank);
            }
        }
        if let Some(Some(swap)) = self.tls.borrow().get(rank) {
            swap.saved.borrow_mut().remove(&actor);
            if swap.resident.get() == Some(actor) {
                swap.resident.set(None);
            }
        }
    }

    /// Gives each of `ranks` ranks its own copy of glibc's getopt globals
    /// from now on, all starting from their values now; `running` is the
    /// rank running. Done at the first getopt call.
    pub fn swap_getopt_globals(&self, ranks: usize, running: usize) {
        let mut swap = self.getopt.borrow_mut();
        if swap.is_none() {
            *swap = Some(GetoptSwap {
                active: running,
                saved: vec![GetoptGlobals::read(); ranks],
            });
        }
    }
}

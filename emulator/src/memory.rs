//! The memory ranks' data lives in, as messages and one-sided operations
//! must see it: the program's globals when they are swapped between ranks
//! (`smpi/privatization:swap`), and folded allocations
//! (`SMPI_SHARED_MALLOC`, `smpi/auto-shared-malloc-thresh`).

use std::rc::Rc;

use privatize::fold::{Folding, Strategy};
use privatize::DataSegment;

pub struct Memory {
    /// The program's globals when they are swapped between ranks: the rank
    /// now running has its own in place, and code touching another rank's
    /// memory calls [`Memory::activate`] first.
    pub segment: Option<Rc<DataSegment>>,
    /// The allocations of `SMPI_SHARED_MALLOC` (`smpi/shared-malloc`).
    pub folding: Folding,
    /// `smpi/auto-shared-malloc-thresh`: plain allocations of at least
    /// this many bytes are folded too (0: none).
    pub auto_fold_threshold: usize,
}

impl Default for Memory {
    fn default() -> Self {
        Self {
            segment: None,
            folding: Folding::new(Strategy::Global, 1 << 20),
            auto_fold_threshold: 0,
        }
    }
}

impl Memory {
    /// Puts `rank`'s globals in place (swap privatization; nothing to do
    /// otherwise).
    pub fn activate(&self, rank: usize) {
        if let Some(s) = &self.segment {
            s.activate(rank);
        }
    }
}

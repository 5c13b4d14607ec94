//! Completion dates: a binary min-heap indexed by action slot, so that a
//! new date moves the action's one entry instead of pushing another.
//!
//! A solve of a big component gives most of its actions a new rate, hence
//! a new date. With a plain heap every change left a stale entry behind:
//! the heap held several entries per action and was swept over and over.
//! Here each action has at most one entry, and changing it costs one sift.
//!
//! Groups (see `group`) use the same heap for their members' virtual ends
//! and for the levels at which their other resources would saturate.

/// One scheduled completion.
#[derive(Clone, Copy, Debug)]
struct Entry {
    date: f64,
    /// Start order: ties at equal dates go to the older action.
    seq: u64,
    index: u32,
}

impl Entry {
    fn before(&self, other: &Entry) -> bool {
        match self.date.total_cmp(&other.date) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => self.seq < other.seq,
        }
    }
}

const ABSENT: u32 = u32::MAX;

#[derive(Default)]
pub(crate) struct Dates {
    heap: Vec<Entry>,
    /// Position in `heap` of each action slot's entry, or ABSENT.
    position: Vec<u32>,
}

impl Dates {
    /// Schedules action slot `index` (started `seq`-th) at `date`,
    /// replacing its previous date if it had one.
    pub fn set(&mut self, index: u32, seq: u64, date: f64) {
        let i = index as usize;
        if self.position.len() <= i {
            self.position.resize(i + 1, ABSENT);
        }
        let entry = Entry { date, seq, index };
        match self.position[i] {
            ABSENT => {
                let at = self.heap.len();
                self.heap.push(entry);
                self.position[i] = at as u32;
                self.sift_up(at);
            }
            at => {
                let at = at as usize;
                let earlier = entry.before(&self.heap[at]);
                self.heap[at] = entry;
                if earlier {
                    self.sift_up(at);
                } else {
                    self.sift_down(at);
                }
            }
        }
    }

    /// Unschedules action slot `index` (nothing if it had no date).
    pub fn remove(&mut self, index: u32) {
        let Some(&at) = self.position.get(index as usize) else {
            return;
        };
        if at == ABSENT {
            return;
        }
        let at = at as usize;
        self.position[index as usize] = ABSENT;
        let last = self.heap.pop().expect("a positioned entry is in the heap");
        if at < self.heap.len() {
            let moved_earlier = last.before(&self.heap[at]);
            self.heap[at] = last;
            self.position[last.index as usize] = at as u32;
            if moved_earlier {
                self.sift_up(at);
            } else {
                self.sift_down(at);
            }
        }
    }

    /// The earliest date, with its action's start order and slot.
    pub fn first(&self) -> Option<(f64, u64, u32)> {
        self.heap.first().map(|e| (e.date, e.seq, e.index))
    }

    /// The slots scheduled, in no particular order.
    pub fn indices(&self) -> impl Iterator<Item = u32> + '_ {
        self.heap.iter().map(|e| e.index)
    }

    /// Moves every date `by` earlier. Subtracting one number keeps dates
    /// in order but can make two equal, which start order then breaks:
    /// the heap is rebuilt.
    pub fn shift_earlier(&mut self, by: f64) {
        for e in &mut self.heap {
            e.date -= by;
        }
        for at in (0..self.heap.len() / 2).rev() {
            self.sift_down(at);
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.position[self.heap[a].index as usize] = a as u32;
        self.position[self.heap[b].index as usize] = b as u32;
    }

    fn sift_up(&mut self, mut at: usize) {
        while at > 0 {
            let parent = (at - 1) / 2;
            if !self.heap[at].before(&self.heap[parent]) {
                break;
            }
            self.swap(at, parent);
            at = parent;
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        loop {
            let left = 2 * at + 1;
            if left >= self.heap.len() {
                break;
            }
            let right = left + 1;
            let child = if right < self.heap.len() && self.heap[right].before(&self.heap[left]) {
                right
            } else {
                left
            };
            if !self.heap[child].before(&self.heap[at]) {
                break;
            }
            self.swap(at, child);
            at = child;
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_date_then_start_order_under_random_updates() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut dates = Dates::default();
        // The reference: each slot's (date, seq), or None.
        let mut model: Vec<Option<(f64, u64)>> = vec![None; 64];
        for step in 0..20_000u64 {
            let slot = next(64) as u32;
            match next(4) {
                0 => {
                    dates.remove(slot);
                    model[slot as usize] = None;
                }
                _ => {
                    // Few distinct dates, so that ties happen.
                    let date = next(16) as f64;
                    let seq = model[slot as usize].map_or(step, |(_, s)| s);
                    dates.set(slot, seq, date);
                    model[slot as usize] = Some((date, seq));
                }
            }
            let want = model
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.map(|(d, s)| (d, s, i as u32)))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            assert_eq!(dates.first(), want);
            assert_eq!(dates.len(), model.iter().flatten().count());
        }
    }
}

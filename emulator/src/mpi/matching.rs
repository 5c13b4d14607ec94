//! Matching queues: posted receives and unexpected messages of one rank,
//! indexed so that matching does not scan everything queued.
//!
//! MPI matches a message with the oldest posted receive whose (context,
//! source, tag) accepts it, and a receive with the oldest such message.
//! A plain list makes that a scan of the whole queue: a root receiving
//! from 4,096 ranks scans thousands of entries per message. Here items
//! sit in buckets by (context, source) in arrival order, so a match with a
//! known source looks at its own bucket and at the wildcard-source bucket
//! only, and compares their oldest tag matches by arrival number. Only a
//! wildcard-source query looks at every bucket (the oldest tag match of
//! each, then the lowest arrival number).
//!
//! The maps are only looked up, never iterated in hash order, so results
//! stay deterministic.

use rustc_hash::FxHashMap;

use super::{ANY_SOURCE, ANY_TAG};

/// Where an item sits (its node and its bucket); stale once the item is
/// taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    node: u32,
    seq: u64,
    key: (u32, i32),
}

const NONE: u32 = u32::MAX;

/// An item in its bucket's doubly linked list.
#[derive(Debug)]
struct Node<T> {
    seq: u64,
    tag: i32,
    prev: u32,
    next: u32,
    item: Option<T>,
}

/// First and last node of a bucket.
#[derive(Debug, Clone, Copy)]
struct Ends {
    head: u32,
    tail: u32,
}

/// Items keyed by (context, source, tag), either side possibly a wildcard
/// (`ANY_SOURCE` or `ANY_TAG`). Nodes live in one vector reused through a
/// free list, so queuing and matching allocate nothing in steady state.
#[derive(Debug)]
pub(crate) struct MatchQueue<T> {
    next_seq: u64,
    nodes: Vec<Node<T>>,
    /// The first free node (`NONE`: none); a free node's `next` is the
    /// next free one. A list in the nodes themselves rather than a vector
    /// of its own: every rank has two queues, and a million ranks notice.
    free: u32,
    /// How many items are queued with a wildcard source: none in a queue
    /// of messages, and a query with a known source then skips the
    /// wildcard bucket's lookup (a poll's second hash lookup).
    wildcards: u32,
    buckets: Buckets,
}

/// The buckets of a queue by (context, source). Most queues hold one
/// bucket at a time (a rank waits for one message): it is kept inline, and
/// a map (empty, so allocated only when needed) holds the others.
#[derive(Debug, Default)]
struct Buckets {
    one: Option<((u32, i32), Ends)>,
    /// FxHash: SipHash's resistance to crafted keys buys nothing for these
    /// small integer keys and cost a visible share of a 4,096-rank run.
    /// Boxed: most queues never have two buckets at once.
    more: Option<Box<FxHashMap<(u32, i32), Ends>>>,
}

impl Buckets {
    fn get(&self, key: &(u32, i32)) -> Option<&Ends> {
        match &self.one {
            Some((k, ends)) if k == key => Some(ends),
            _ => self.more.as_ref()?.get(key),
        }
    }

    fn get_mut(&mut self, key: &(u32, i32)) -> Option<&mut Ends> {
        match &mut self.one {
            Some((k, ends)) if k == key => Some(ends),
            _ => self.more.as_mut()?.get_mut(key),
        }
    }

    /// Adds bucket `key`, which is not there.
    fn insert(&mut self, key: (u32, i32), ends: Ends) {
        if self.one.is_none() {
            self.one = Some((key, ends));
        } else {
            self.more.get_or_insert_default().insert(key, ends);
        }
    }

    fn remove(&mut self, key: &(u32, i32)) {
        match &self.one {
            Some((k, _)) if k == key => self.one = None,
            _ => {
                if let Some(more) = &mut self.more {
                    more.remove(key);
                }
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.one.is_none() && self.more.as_ref().is_none_or(|m| m.is_empty())
    }

    /// Every bucket, in no particular order.
    fn iter(&self) -> impl Iterator<Item = (&(u32, i32), &Ends)> {
        self.one
            .iter()
            .map(|(key, ends)| (key, ends))
            .chain(self.more.iter().flat_map(|m| m.iter()))
    }
}

impl<T> Default for MatchQueue<T> {
    fn default() -> Self {
        Self {
            next_seq: 0,
            nodes: Vec::new(),
            free: NONE,
            wildcards: 0,
            buckets: Buckets::default(),
        }
    }
}

fn tags_match(a: i32, b: i32) -> bool {
    a == b || a == ANY_TAG || b == ANY_TAG
}

impl<T> MatchQueue<T> {
    /// Appends an item.
    pub fn push(&mut self, ctx: u32, source: i32, tag: i32, item: T) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let node = Node {
            seq,
            tag,
            prev: NONE,
            next: NONE,
            item: Some(item),
        };
        let index = match self.free {
            NONE => {
                // Most queues never hold more than one item: the first
                // takes no room for three more (every rank has two queues).
                if self.nodes.capacity() == 0 {
                    self.nodes.reserve_exact(1);
                }
                self.nodes.push(node);
                u32::try_from(self.nodes.len() - 1).expect("fewer than 2^32 queued items")
            }
            i => {
                self.free = self.nodes[i as usize].next;
                self.nodes[i as usize] = node;
                i
            }
        };
        if source == ANY_SOURCE {
            self.wildcards += 1;
        }
        match self.buckets.get_mut(&(ctx, source)) {
            Some(ends) => {
                self.nodes[ends.tail as usize].next = index;
                self.nodes[index as usize].prev = ends.tail;
                ends.tail = index;
            }
            None => {
                self.buckets.insert(
                    (ctx, source),
                    Ends {
                        head: index,
                        tail: index,
                    },
                );
            }
        }
    }

    /// The oldest node of bucket `key` (starting at `head`) whose tag
    /// matches.
    fn oldest_from(&self, key: (u32, i32), head: u32, tag: i32) -> Option<Slot> {
        let mut i = head;
        while i != NONE {
            let n = &self.nodes[i as usize];
            if tags_match(n.tag, tag) {
                return Some(Slot {
                    node: i,
                    seq: n.seq,
                    key,
                });
            }
            i = n.next;
        }
        None
    }

    fn oldest_in(&self, ctx: u32, source: i32, tag: i32) -> Option<Slot> {
        self.buckets
            .get(&(ctx, source))
            .and_then(|ends| self.oldest_from((ctx, source), ends.head, tag))
    }

    /// The oldest item that matches a query of (ctx, source, tag).
    pub fn find(&self, ctx: u32, source: i32, tag: i32) -> Option<Slot> {
        if source == ANY_SOURCE {
            // Every bucket of the context; the arrival number decides, so
            // the map's order does not matter.
            return self
                .buckets
                .iter()
                .filter(|(key, _)| key.0 == ctx)
                .filter_map(|(&key, ends)| self.oldest_from(key, ends.head, tag))
                .min_by_key(|slot| slot.seq);
        }
        let exact = self.oldest_in(ctx, source, tag);
        if self.wildcards == 0 {
            return exact;
        }
        let wild = self.oldest_in(ctx, ANY_SOURCE, tag);
        match (exact, wild) {
            (Some(a), Some(b)) => Some(if a.seq < b.seq { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// The oldest item of each source that matches (ctx, any source,
    /// tag), in arrival order: what a wildcard-source query could take.
    pub fn candidates(&self, ctx: u32, tag: i32) -> Vec<Slot> {
        let mut slots: Vec<Slot> = self
            .buckets
            .iter()
            .filter(|(key, _)| key.0 == ctx)
            .filter_map(|(&key, ends)| self.oldest_from(key, ends.head, tag))
            .collect();
        // Arrival numbers are unique: the map's order does not show.
        slots.sort_unstable_by_key(|slot| slot.seq);
        slots
    }

    /// The newest item of bucket (ctx, source) that satisfies `pred`.
    pub fn find_newest(&self, ctx: u32, source: i32, pred: impl Fn(&T) -> bool) -> Option<Slot> {
        let key = (ctx, source);
        let mut i = self.buckets.get(&key)?.tail;
        while i != NONE {
            let n = &self.nodes[i as usize];
            if n.item.as_ref().is_some_and(&pred) {
                return Some(Slot {
                    node: i,
                    seq: n.seq,
                    key,
                });
            }
            i = n.prev;
        }
        None
    }

    /// The item at `slot`, if it was not taken.
    pub fn get(&self, slot: Slot) -> Option<&T> {
        self.nodes
            .get(slot.node as usize)
            .filter(|n| n.seq == slot.seq)
            .and_then(|n| n.item.as_ref())
    }

    /// The item at `slot`, to change, if it was not taken.
    pub fn get_mut(&mut self, slot: Slot) -> Option<&mut T> {
        self.nodes
            .get_mut(slot.node as usize)
            .filter(|n| n.seq == slot.seq)
            .and_then(|n| n.item.as_mut())
    }

    /// Removes the item at `slot`.
    pub fn take(&mut self, slot: Slot) -> Option<T> {
        let n = self.nodes.get_mut(slot.node as usize)?;
        if n.seq != slot.seq {
            return None;
        }
        let item = n.item.take()?;
        let (prev, next) = (n.prev, n.next);
        if slot.key.1 == ANY_SOURCE {
            self.wildcards -= 1;
        }
        if prev != NONE {
            self.nodes[prev as usize].next = next;
        }
        if next != NONE {
            self.nodes[next as usize].prev = prev;
        }
        if let Some(ends) = self.buckets.get_mut(&slot.key) {
            if ends.head == slot.node {
                ends.head = next;
            }
            if ends.tail == slot.node {
                ends.tail = prev;
            }
            if ends.head == NONE {
                self.buckets.remove(&slot.key);
            }
        }
        if self.buckets.is_empty() {
            // The queue is empty: every node is free, and the free list is
            // not needed.
            self.nodes.clear();
            self.free = NONE;
        } else {
            self.nodes[slot.node as usize].next = self.free;
            self.free = slot.node;
        }
        Some(item)
    }

    /// Removes every item; they come in arrival order.
    pub fn drain(&mut self) -> Vec<T> {
        let mut items: Vec<(u64, T)> = self
            .nodes
            .iter_mut()
            .filter_map(|n| n.item.take().map(|item| (n.seq, item)))
            .collect();
        items.sort_by_key(|&(seq, _)| seq);
        *self = Self {
            next_seq: self.next_seq,
            ..Self::default()
        };
        items.into_iter().map(|(_, item)| item).collect()
    }

    /// Number of items queued.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.nodes.iter().filter(|n| n.item.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use rand_core::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    /// The reference: a plain list scanned in order.
    fn reference(items: &[(u32, i32, i32, usize)], q: (u32, i32, i32)) -> Option<usize> {
        items
            .iter()
            .find(|&&(c, s, t, _)| {
                c == q.0 && (s == q.1 || s == ANY_SOURCE || q.1 == ANY_SOURCE) && tags_match(t, q.2)
            })
            .map(|&(_, _, _, id)| id)
    }

    #[test]
    fn matches_like_an_ordered_scan_under_random_pushes_and_takes() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| rng.next_u64() % n;
        for wild_items in [false, true] {
            let mut q = MatchQueue::default();
            let mut list: Vec<(u32, i32, i32, usize)> = Vec::new();
            for id in 0..4000 {
                if next(3) > 0 {
                    let ctx = next(2) as u32;
                    let source = if wild_items && next(4) == 0 {
                        ANY_SOURCE
                    } else {
                        next(5) as i32
                    };
                    let tag = if wild_items && next(4) == 0 {
                        ANY_TAG
                    } else {
                        next(3) as i32
                    };
                    q.push(ctx, source, tag, id);
                    list.push((ctx, source, tag, id));
                } else {
                    let ctx = next(2) as u32;
                    let source = if !wild_items && next(3) == 0 {
                        ANY_SOURCE
                    } else {
                        next(5) as i32
                    };
                    let tag = if !wild_items && next(3) == 0 {
                        ANY_TAG
                    } else {
                        next(3) as i32
                    };
                    let want = reference(&list, (ctx, source, tag));
                    let slot = q.find(ctx, source, tag);
                    assert_eq!(slot.and_then(|s| q.get(s)).copied(), want);
                    if let Some(slot) = slot {
                        let got = q.take(slot);
                        assert_eq!(got, want);
                        list.retain(|&(_, _, _, i)| Some(i) != want);
                    }
                }
                assert_eq!(q.len(), list.len());
            }
        }
    }

    #[test]
    fn newest_of_a_bucket_and_stale_slots() {
        let mut q = MatchQueue::default();
        q.push(1, 2, 5, "a");
        q.push(1, 2, 6, "b");
        q.push(1, 3, 5, "c");
        let newest = q.find_newest(1, 2, |_| true).unwrap();
        assert_eq!(q.get(newest), Some(&"b"));
        let oldest_five = q.find_newest(1, 2, |&s| s == "a").unwrap();
        assert_eq!(q.take(oldest_five), Some("a"));
        assert_eq!(q.take(oldest_five), None, "a taken slot is stale");
        assert_eq!(q.find(1, ANY_SOURCE, 5).and_then(|s| q.get(s)), Some(&"c"));
        assert_eq!(q.find(2, ANY_SOURCE, ANY_TAG), None);
    }

    #[test]
    fn candidates_are_the_oldest_match_of_each_source_by_arrival() {
        let mut q = MatchQueue::default();
        q.push(0, 2, 7, "2a");
        q.push(0, 1, 8, "1 other tag");
        q.push(0, 1, 7, "1a");
        q.push(0, 2, 7, "2b");
        q.push(1, 3, 7, "3 other context");
        let got: Vec<&str> = q
            .candidates(0, 7)
            .into_iter()
            .filter_map(|s| q.get(s).copied())
            .collect();
        assert_eq!(got, ["2a", "1a"]);
        let first = q.find(0, ANY_SOURCE, 7).unwrap();
        assert_eq!(
            q.candidates(0, 7)[0],
            first,
            "the first candidate is the match"
        );
        assert_eq!(q.candidates(0, ANY_TAG).len(), 2);
    }
}

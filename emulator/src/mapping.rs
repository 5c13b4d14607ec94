//! Rank placement (`--cfg=smpi/map`): which host each rank runs on.
//!
//! The starting point is the list of slots: the hostfile's lines in order
//! (`host:N` gives N slots), or one slot per platform host. Then:
//!
//! * `hostfile` (default, SimGrid's rule): rank i takes slot i mod S;
//! * `round-robin`: rank i goes to host i mod H, over the distinct hosts of
//!   the slot list in order of first appearance (consecutive ranks on
//!   different hosts);
//! * `block`: consecutive ranks share a host: host k takes ranks
//!   k*B .. k*B+B-1 with B = ceil(np / H);
//! * `random:SEED`: the `hostfile` placement, shuffled by a permutation
//!   drawn from SEED (the same seed gives the same placement, and every
//!   host keeps its number of ranks).

use platforms::HostId;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::SplitMix64;

/// A placement rule, as `smpi/map` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapping {
    Hostfile,
    RoundRobin,
    Block,
    Random(u64),
}

impl Mapping {
    /// Parses `smpi/map`'s value.
    pub fn parse(text: &str) -> Result<Mapping, String> {
        match text {
            "hostfile" | "" => Ok(Mapping::Hostfile),
            "round-robin" => Ok(Mapping::RoundRobin),
            "block" => Ok(Mapping::Block),
            _ => match text.strip_prefix("random:").map(str::parse::<u64>) {
                Some(Ok(seed)) => Ok(Mapping::Random(seed)),
                _ => Err(format!(
                    "'{text}' is not a placement: use hostfile, round-robin, block or \
                     random:SEED (SEED a whole number, such as random:42)"
                )),
            },
        }
    }

    /// The host of each of `np` ranks, from `slots` (not empty).
    pub fn place(self, slots: &[HostId], np: usize) -> Vec<HostId> {
        let by_slot = || (0..np).map(|i| slots[i % slots.len()]).collect::<Vec<_>>();
        match self {
            Mapping::Hostfile => by_slot(),
            Mapping::RoundRobin => {
                let hosts = distinct(slots);
                (0..np).map(|i| hosts[i % hosts.len()]).collect()
            }
            Mapping::Block => {
                let hosts = distinct(slots);
                let per_host = np.div_ceil(hosts.len()).max(1);
                (0..np).map(|i| hosts[i / per_host]).collect()
            }
            Mapping::Random(seed) => {
                let mut placed = by_slot();
                // SplitMix64 by name, seeded with SEED itself: a placement
                // must not change with a library's choice of default
                // generator (tests::random_placements_are_pinned).
                let mut rng = SplitMix64::seed_from_u64(seed);
                // Fisher-Yates.
                for i in (1..placed.len()).rev() {
                    let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                    placed.swap(i, j);
                }
                placed
            }
        }
    }
}

/// The hosts of `slots` without repeats, in order of first appearance.
fn distinct(slots: &[HostId]) -> Vec<HostId> {
    let mut seen = std::collections::HashSet::new();
    slots.iter().copied().filter(|h| seen.insert(*h)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(ids: &[u32]) -> Vec<HostId> {
        ids.iter().map(|&i| HostId(i)).collect()
    }

    #[test]
    fn placements() {
        // Hostfile a:2, b:2, c:1 -> slots a a b b c.
        let slots = h(&[0, 0, 1, 1, 2]);
        assert_eq!(
            Mapping::Hostfile.place(&slots, 7),
            h(&[0, 0, 1, 1, 2, 0, 0])
        );
        assert_eq!(
            Mapping::RoundRobin.place(&slots, 7),
            h(&[0, 1, 2, 0, 1, 2, 0])
        );
        assert_eq!(Mapping::Block.place(&slots, 7), h(&[0, 0, 0, 1, 1, 1, 2]));
        assert_eq!(Mapping::Block.place(&h(&[0, 1, 2, 3]), 2), h(&[0, 1]));
        let r = Mapping::Random(42).place(&slots, 7);
        assert_eq!(r, Mapping::Random(42).place(&slots, 7), "seeded");
        assert_ne!(r, Mapping::Random(43).place(&slots, 7));
        let mut sorted = r.clone();
        sorted.sort();
        let mut expected = Mapping::Hostfile.place(&slots, 7);
        expected.sort();
        assert_eq!(sorted, expected, "a permutation of the hostfile placement");
    }

    #[test]
    fn random_placements_are_pinned() {
        // What the SplitMix64 shuffle gave when this test was written:
        // `random:SEED` must keep placing ranks where it did.
        let slots: Vec<HostId> = (0..10).map(HostId).collect();
        let pinned: [(u64, [u32; 12]); 4] = [
            (0, [4, 1, 6, 8, 0, 5, 2, 3, 1, 9, 0, 7]),
            (1, [4, 6, 7, 9, 1, 3, 0, 1, 2, 0, 8, 5]),
            (42, [9, 6, 7, 0, 3, 1, 4, 2, 0, 8, 5, 1]),
            (u64::MAX, [3, 2, 4, 1, 7, 9, 5, 0, 0, 1, 6, 8]),
        ];
        for (seed, hosts) in pinned {
            assert_eq!(
                Mapping::Random(seed).place(&slots, 12),
                h(&hosts),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn parsing() {
        assert_eq!(Mapping::parse("hostfile"), Ok(Mapping::Hostfile));
        assert_eq!(Mapping::parse("round-robin"), Ok(Mapping::RoundRobin));
        assert_eq!(Mapping::parse("block"), Ok(Mapping::Block));
        assert_eq!(Mapping::parse("random:7"), Ok(Mapping::Random(7)));
        for bad in ["random", "random:x", "scatter"] {
            assert!(Mapping::parse(bad).unwrap_err().contains("random:SEED"));
        }
    }
}

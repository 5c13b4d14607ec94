//! Check `wildcard`: message races on `MPI_ANY_SOURCE` receives, and what
//! `smpi/check/wildcard-alternatives` needs to re-run them.
//!
//! A receive from `MPI_ANY_SOURCE` that finds messages of several sources
//! waiting takes the oldest; which one is oldest depends on timing, so on
//! another machine (or another network) the program could take another.
//! Each such race is numbered in the order the run meets it; with
//! computation timing off the order is the same in every run of the same
//! program and arguments. A re-run can then be told to give race `k` the
//! message of another source ([`Force`], through [`FORCE_ENV`]) and every
//! run can write its races to a file ([`LOG_ENV`]): smpirun's supervisor
//! (`run/alternatives.rs`) uses both to compare outcomes.

use serde::{Deserialize, Serialize};

/// Set to a file name, a run writes its races there as JSON ([`RaceLog`])
/// when it ends.
pub const LOG_ENV: &str = "SMPI_RS_WILDCARD_LOG";

/// Set to `k:source`, race `k` of the run (from 0) takes the message of
/// `source` (a rank of the receive's communicator) instead of the oldest.
pub const FORCE_ENV: &str = "SMPI_RS_WILDCARD_FORCE";

/// A message a wildcard receive could take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// Its sender, as a rank of the receive's communicator.
    pub source: i32,
    /// Its sender's world rank.
    pub world: usize,
}

/// One race: a wildcard receive with messages of several sources waiting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Race {
    /// The receiving world rank.
    pub rank: usize,
    pub call: String,
    pub tag: i32,
    /// The message it took.
    pub taken: Candidate,
    /// The messages of other sources it could have taken, oldest first.
    pub others: Vec<Candidate>,
    /// Where the receive is in the program's sources, when known.
    pub location: Option<String>,
}

/// A re-run's instruction: race `race` takes `source`'s message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Force {
    pub race: usize,
    pub source: i32,
}

impl Force {
    /// Parses the value of [`FORCE_ENV`].
    pub fn parse(text: &str) -> Option<Force> {
        let (race, source) = text.split_once(':')?;
        Some(Force {
            race: race.trim().parse().ok()?,
            source: source.trim().parse().ok()?,
        })
    }

    /// The value of [`FORCE_ENV`] that asks for it.
    pub fn env_value(&self) -> String {
        format!("{}:{}", self.race, self.source)
    }
}

/// The races of a run, as the run writes them for the supervisor.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct RaceLog {
    pub races: Vec<Race>,
    /// The run was told to force a race and did (false: that race never
    /// came, or not with that source waiting).
    pub forced: bool,
}

/// The races met so far, and the one to force.
#[derive(Debug, Default)]
pub struct Races {
    pub log: RaceLog,
    pub force: Option<Force>,
}

impl Races {
    /// Which of `candidates` (oldest first) race number
    /// `self.log.races.len()` takes: the oldest unless forced.
    pub fn pick(&mut self, candidates: &[Candidate]) -> usize {
        let k = self.log.races.len();
        let forced = self
            .force
            .filter(|f| f.race == k)
            .and_then(|f| candidates.iter().position(|c| c.source == f.source));
        if forced.is_some() {
            self.log.forced = true;
        }
        forced.unwrap_or(0)
    }
}

/// "rank 1 or of rank 2", "ranks 1, 2 or 3": the senders of `candidates`.
pub fn senders(candidates: &[Candidate]) -> String {
    match candidates {
        [] => String::new(),
        [one] => format!("rank {}", one.world),
        [a, b] => format!("rank {} or of rank {}", a.world, b.world),
        [first @ .., last] => {
            let first: Vec<String> = first.iter().map(|c| c.world.to_string()).collect();
            format!("ranks {} or {}", first.join(", "), last.world)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(source: i32) -> Candidate {
        Candidate {
            source,
            world: source as usize + 10,
        }
    }

    #[test]
    fn a_force_names_a_race_and_a_source_and_applies_to_that_race_only() {
        let f = Force::parse("1:2").unwrap();
        assert_eq!(f, Force { race: 1, source: 2 });
        assert_eq!(Force::parse(&f.env_value()), Some(f));
        assert_eq!(Force::parse("1"), None);
        assert_eq!(Force::parse("a:2"), None);
        let mut races = Races {
            force: Some(f),
            ..Races::default()
        };
        let cands = [c(1), c(2), c(3)];
        assert_eq!(races.pick(&cands), 0, "race 0 is not forced");
        assert!(!races.log.forced);
        races.log.races.push(Race {
            rank: 0,
            call: "MPI_Recv".into(),
            tag: 0,
            taken: c(1),
            others: vec![c(2), c(3)],
            location: None,
        });
        assert_eq!(races.pick(&cands), 1, "race 1 takes source 2's");
        assert!(races.log.forced);
        let mut absent = Races {
            force: Some(Force { race: 0, source: 7 }),
            ..Races::default()
        };
        assert_eq!(absent.pick(&cands), 0, "a source not waiting is not forced");
        assert!(!absent.log.forced);
    }

    #[test]
    fn senders_are_listed_as_a_sentence() {
        assert_eq!(senders(&[c(0), c(1)]), "rank 10 or of rank 11");
        assert_eq!(senders(&[c(0), c(1), c(2)]), "ranks 10, 11 or 12");
    }
}

//! SimGrid's memory analysis at the end of a run (`smpi/display-allocs`,
//! `smpi/list-leaks`): the MPI handles the program did not free (noted by
//! [`crate::mpi::ledger`]), the buffers it allocated through the `malloc`
//! family smpicc sends to the simulator and did not free, and how much it
//! allocated, in SimGrid's words (its category `smpi_utils`).
//!
//! Off unless asked for: then every intercepted `malloc`, `calloc` and
//! `realloc` is noted with its size and place (`__FILE__`, `__LINE__`,
//! which smpicc's helper header always passes), and `free` forgets it.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::config::{Config, Kind, OptionSpec, Options};
use crate::log::Priority;
use crate::mpi::ledger::{base_name, Files, HandleLeaks, Site};

#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "smpi/display-allocs", kind: Kind::Bool, default: "no", help: "when the run ends, report what the program allocated through malloc/calloc (in all, the largest allocation) and the MPI handles and buffers it did not free" },
    OptionSpec { name: "smpi/list-leaks", kind: Kind::Text, default: "-1", help: "when the run ends, list the MPI handles and buffers the program did not free, at most this many lines of each (by type and place: smpicc -trace-call-location gives handles theirs); 0: count them only; a value other than -1 implies smpi/display-allocs" },
    OptionSpec { name: "smpi/trace-call-use-absolute-path", kind: Kind::Bool, default: "no", help: "name source files by their whole path (as the compiler was given them) in those reports, not by their base name" },
];

/// A value of `smpi/list-leaks` that is not an integer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("option 'smpi/list-leaks': '{0}' is not an integer")]
pub struct BadListLeaks(String);

/// What the options ask of the memory analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The analysis runs (`smpi/display-allocs`, or `smpi/list-leaks` set).
    pub on: bool,
    /// Lines of each list at most (`smpi/list-leaks`; unset or negative:
    /// no limit, as SimGrid's cast of -1 to an unsigned long gives).
    pub max_lines: u64,
    /// Source files are named by their whole path.
    pub whole_paths: bool,
}

impl Settings {
    pub fn from_config(cfg: &Config) -> Result<Self, BadListLeaks> {
        let text = cfg.text("smpi/list-leaks");
        let list: i64 = text.parse().map_err(|_| BadListLeaks(text.to_string()))?;
        Ok(Self {
            on: cfg.bool("smpi/display-allocs") || list != -1,
            max_lines: u64::try_from(list).unwrap_or(u64::MAX),
            whole_paths: cfg.bool("smpi/trace-call-use-absolute-path"),
        })
    }
}

/// A live allocation.
#[derive(Debug)]
struct Block {
    size: usize,
    site: Site,
}

/// The largest allocation (SimGrid's: the first of that size, and how many
/// more of that size the same place made after it).
#[derive(Debug, Default)]
struct Largest {
    size: usize,
    site: Option<Site>,
    calls: u32,
}

/// The allocations of the program's intercepted `malloc` family.
#[derive(Debug, Default)]
pub struct Allocs {
    files: Files,
    /// Live allocations by address.
    live: FxHashMap<usize, Block>,
    /// Bytes allocated during the whole run.
    total: u64,
    largest: Largest,
    /// Allocations folded by `smpi/auto-shared-malloc-thresh`: bytes, calls.
    shared_bytes: u64,
    shared_calls: u32,
}

impl Allocs {
    /// `whole_paths`: name files by their whole path.
    pub fn new(whole_paths: bool) -> Self {
        Self {
            files: Files::new(whole_paths),
            ..Self::default()
        }
    }

    /// The program allocated `size` bytes at `ptr`, at `line` of `file`.
    pub fn allocated(&mut self, ptr: usize, size: usize, file: &str, line: u32) {
        let site = self.files.site(file, line);
        self.total += size as u64;
        let largest = &mut self.largest;
        if size > largest.size {
            *largest = Largest {
                size,
                site: Some(site.clone()),
                calls: 1,
            };
        } else if size == largest.size && largest.site.as_ref() == Some(&site) {
            largest.calls += 1;
        }
        self.live.entry(ptr).or_insert(Block { size, site });
    }

    /// The program moved `old` to `new`, of `size` bytes now, at `line` of
    /// `file` (`realloc`): the block is the program's until it frees
    /// `new`, but it is no allocation of its lifetime (SimGrid counts
    /// those of malloc and calloc).
    pub fn reallocated(&mut self, old: usize, new: usize, size: usize, file: &str, line: u32) {
        let site = self.files.site(file, line);
        self.live.remove(&old);
        self.live.insert(new, Block { size, site });
    }

    /// The runtime moved the program's block `old` to `new`, now of `size`
    /// bytes (the C library's `realloc` on the program's behalf): it keeps
    /// its place.
    pub fn moved(&mut self, old: usize, new: usize, size: usize) {
        if let Some(mut block) = self.live.remove(&old) {
            block.size = size;
            self.live.insert(new, block);
        }
    }

    /// The size of the program's live block that starts at `ptr`, if any.
    pub fn block_size(&self, ptr: usize) -> Option<usize> {
        self.live.get(&ptr).map(|b| b.size)
    }

    /// The program freed `ptr`.
    pub fn freed(&mut self, ptr: usize) {
        self.live.remove(&ptr);
    }

    /// An allocation of `size` bytes was folded (not counted as allocated).
    pub fn folded(&mut self, size: usize) {
        self.shared_bytes += size as u64;
        self.shared_calls += 1;
    }
}

/// Adds an INFO line.
fn push_info(lines: &mut Vec<(Priority, String)>, text: String) {
    lines.push((Priority::Info, text));
}

/// Buffers left by one place.
#[derive(Debug)]
struct BufferLeak {
    count: usize,
    total: u64,
    min: usize,
    max: usize,
}

/// The lines of the analysis, each with its priority, as SimGrid prints
/// them in category `smpi_utils` at the end of the run; `no_loc` (the
/// `--log` setting) leaves the places out.
pub fn report(
    settings: &Settings,
    handles: &HandleLeaks,
    allocs: &Allocs,
    no_loc: bool,
) -> Vec<(Priority, String)> {
    let mut lines: Vec<(Priority, String)> = Vec::new();
    let max = settings.max_lines;
    let shown = usize::try_from(max).unwrap_or(usize::MAX);
    let valgrind = "Running smpirun with -wrapper \"valgrind --leak-check=full\" can provide more \
                    information";
    if handles.total > 0 {
        let head = format!(
            "Probable memory leaks in your code: SMPI detected {} unfreed MPI handles:",
            handles.total
        );
        if max == 0 {
            push_info(
                &mut lines,
                format!(
                    "{head}\nHINT: Display types and addresses (n max) with \
                 --cfg=smpi/list-leaks:n.\n{valgrind}"
                ),
            );
        } else {
            push_info(&mut lines, head);
            if handles.unplaced {
                lines.push((
                    Priority::Warning,
                    "To get more information (location of allocations), compile your code \
                     with -trace-call-location flag of smpicc/f90"
                        .to_string(),
                ));
            }
            for (key, count) in handles.by_origin.iter().take(shown) {
                push_info(
                    &mut lines,
                    if *count == 1 {
                        format!("leaked handle of type {key}")
                    } else {
                        format!("{count} leaked handles of type {key}")
                    },
                );
            }
            if max < handles.by_origin.len() as u64 {
                push_info(
                    &mut lines,
                    format!(
                        "({} more handle leaks hidden as you wanted to see only {max} of them)",
                        handles.by_origin.len() as u64 - max
                    ),
                );
            }
        }
    }
    if !allocs.live.is_empty() {
        let head = format!(
            "Probable memory leaks in your code: SMPI detected {} unfreed buffers:",
            allocs.live.len()
        );
        if max == 0 {
            // SimGrid's text, run together.
            push_info(
                &mut lines,
                format!(
                    "{head}display types and addresses (n max) with --cfg=smpi/list-leaks:n.\n\
                 {valgrind}"
                ),
            );
        } else {
            push_info(&mut lines, head);
            let mut by_site: BTreeMap<String, BufferLeak> = BTreeMap::new();
            for block in allocs.live.values() {
                let key = if no_loc {
                    "leaked allocations".to_string()
                } else {
                    format!("{}: leaked allocations", block.site)
                };
                let leak = by_site.entry(key).or_insert(BufferLeak {
                    count: 0,
                    total: 0,
                    min: block.size,
                    max: block.size,
                });
                leak.count += 1;
                leak.total += block.size as u64;
                leak.min = leak.min.min(block.size);
                leak.max = leak.max.max(block.size);
            }
            let groups = by_site.len();
            let mut by_total: Vec<(String, BufferLeak)> = by_site.into_iter().collect();
            // Largest first; equal totals in the order of their places.
            by_total.sort_by_key(|(_, l)| std::cmp::Reverse(l.total));
            for (key, l) in by_total.iter().take(shown) {
                push_info(
                    &mut lines,
                    if l.min == l.max {
                        format!(
                            "{key} of total size {}, called {} times, each with size {}",
                            l.total, l.count, l.min
                        )
                    } else {
                        format!(
                            "{key} of total size {}, called {} times, with minimum size {} and \
                         maximum size {}",
                            l.total, l.count, l.min, l.max
                        )
                    },
                );
            }
            if max < groups as u64 {
                push_info(
                    &mut lines,
                    format!("(more buffer leaks hidden as you wanted to see only {max} of them)"),
                );
            }
        }
    }
    if allocs.total != 0 {
        let largest = &allocs.largest;
        let (file, line) = largest
            .site
            .as_ref()
            .map_or(("", 0), |s| (base_name(&s.file), s.line));
        push_info(
            &mut lines,
            format!(
            "Memory Usage: Simulated application allocated {} bytes during its lifetime through \
             malloc/calloc calls.\nLargest allocation at once from a single process was {} \
             bytes, at {file}:{line}. It was called {} times during the whole simulation.\n\
             If this is too much, consider sharing allocations for computation buffers.\n\
             This can be done automatically by setting --cfg=smpi/auto-shared-malloc-thresh to \
             the minimum size wanted size (this can alter execution if data content is \
             necessary)\n",
            allocs.total, largest.size, largest.calls
        ),
        );
    } else {
        push_info(
            &mut lines,
            "Allocations analysis asked, but 0 bytes were allocated through malloc/calloc calls \
             intercepted by SMPI.\nThe code may not use malloc() to allocate memory, or it was \
             built with SMPI_NO_OVERRIDE_MALLOC"
                .to_string(),
        );
    }
    if allocs.shared_bytes != 0 {
        push_info(
            &mut lines,
            format!(
                "{} bytes were automatically shared between processes, in {} calls\n",
                allocs.shared_bytes, allocs.shared_calls
            ),
        );
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(max_lines: u64) -> Settings {
        Settings {
            on: true,
            max_lines,
            whole_paths: false,
        }
    }

    fn texts(lines: &[(Priority, String)]) -> Vec<&str> {
        lines.iter().map(|(_, t)| t.as_str()).collect()
    }

    /// SimGrid's coll-allreduce-with-leaks on 16 ranks.
    fn allreduce_with_leaks() -> (HandleLeaks, Allocs) {
        let handles = HandleLeaks {
            total: 32,
            unplaced: false,
            by_origin: vec![
                ("MPI_Comm at coll-allreduce-with-leaks.c:23".into(), 16),
                ("MPI_Group at coll-allreduce-with-leaks.c:23".into(), 16),
            ],
        };
        let mut allocs = Allocs::new(false);
        let file = "/src/teshsuite/coll-allreduce-with-leaks.c";
        for rank in 0..16 {
            allocs.allocated(0x1000 + rank * 512, 64, file, 27);
            allocs.allocated(0x1100 + rank * 512, (16 + rank) * 4, file, 28);
        }
        (handles, allocs)
    }

    #[test]
    fn the_report_is_simgrids() {
        let (handles, allocs) = allreduce_with_leaks();
        let lines = report(&settings(10), &handles, &allocs, false);
        assert!(lines.iter().all(|(p, _)| *p == Priority::Info));
        assert_eq!(
            texts(&lines),
            [
                "Probable memory leaks in your code: SMPI detected 32 unfreed MPI handles:",
                "16 leaked handles of type MPI_Comm at coll-allreduce-with-leaks.c:23",
                "16 leaked handles of type MPI_Group at coll-allreduce-with-leaks.c:23",
                "Probable memory leaks in your code: SMPI detected 32 unfreed buffers:",
                "coll-allreduce-with-leaks.c:28: leaked allocations of total size 1504, called 16 \
                 times, with minimum size 64 and maximum size 124",
                "coll-allreduce-with-leaks.c:27: leaked allocations of total size 1024, called 16 \
                 times, each with size 64",
                "Memory Usage: Simulated application allocated 2528 bytes during its lifetime \
                 through malloc/calloc calls.\nLargest allocation at once from a single process \
                 was 124 bytes, at coll-allreduce-with-leaks.c:28. It was called 1 times during \
                 the whole simulation.\nIf this is too much, consider sharing allocations for \
                 computation buffers.\nThis can be done automatically by setting \
                 --cfg=smpi/auto-shared-malloc-thresh to the minimum size wanted size (this can \
                 alter execution if data content is necessary)\n",
            ]
        );
    }

    #[test]
    fn no_loc_and_unplaced_handles_bring_the_advice() {
        let (mut handles, allocs) = allreduce_with_leaks();
        handles.unplaced = true;
        handles.by_origin = vec![("MPI_Comm".into(), 16), ("MPI_Group".into(), 16)];
        let lines = report(&settings(10), &handles, &allocs, true);
        assert_eq!(lines[1].0, Priority::Warning);
        assert_eq!(
            lines[1].1,
            "To get more information (location of allocations), compile your code with \
             -trace-call-location flag of smpicc/f90"
        );
        assert_eq!(
            lines[5].1,
            "leaked allocations of total size 2528, called 32 times, with minimum size 64 and \
             maximum size 124"
        );
    }

    #[test]
    fn limits_hide_lines_and_zero_only_counts() {
        let (handles, allocs) = allreduce_with_leaks();
        let lines = report(&settings(1), &handles, &allocs, false);
        assert_eq!(
            texts(&lines)[2],
            "(1 more handle leaks hidden as you wanted to see only 1 of them)"
        );
        assert_eq!(
            texts(&lines)[5],
            "(more buffer leaks hidden as you wanted to see only 1 of them)"
        );
        let lines = report(&settings(0), &handles, &allocs, false);
        assert_eq!(lines.len(), 3);
        assert!(lines[0].1.ends_with(
            "unfreed MPI handles:\nHINT: Display types and addresses (n max) with \
             --cfg=smpi/list-leaks:n.\nRunning smpirun with -wrapper \"valgrind \
             --leak-check=full\" can provide more information"
        ));
        assert!(lines[1]
            .1
            .ends_with("unfreed buffers:display types and addresses (n max) with --cfg=smpi/list-leaks:n.\nRunning smpirun with -wrapper \"valgrind --leak-check=full\" can provide more information"));
    }

    #[test]
    fn frees_realloc_and_folding_are_counted_as_simgrid_does() {
        let mut a = Allocs::new(false);
        a.allocated(1, 100, "a.c", 1);
        a.allocated(2, 100, "a.c", 1);
        a.allocated(3, 100, "b.c", 1);
        a.freed(1);
        a.freed(2);
        // A block moved by realloc is followed, not counted again.
        a.reallocated(3, 4, 5000, "b.c", 2);
        let lines = report(&settings(5), &HandleLeaks::default(), &a, false);
        assert_eq!(
            lines[1].1,
            "b.c:2: leaked allocations of total size 5000, called 1 times, each with size 5000"
        );
        a.freed(4);
        a.folded(1 << 20);
        let lines = report(&settings(u64::MAX), &HandleLeaks::default(), &a, false);
        assert_eq!(lines.len(), 2);
        assert!(lines[0].1.contains(
            "allocated 300 bytes during its lifetime through malloc/calloc calls.\nLargest \
             allocation at once from a single process was 100 bytes, at a.c:1. It was called 2 \
             times"
        ));
        assert_eq!(
            lines[1].1,
            "1048576 bytes were automatically shared between processes, in 1 calls\n"
        );
        let nothing = report(
            &settings(5),
            &HandleLeaks::default(),
            &Allocs::new(false),
            false,
        );
        assert_eq!(
            texts(&nothing),
            ["Allocations analysis asked, but 0 bytes were allocated through malloc/calloc calls \
              intercepted by SMPI.\nThe code may not use malloc() to allocate memory, or it was \
              built with SMPI_NO_OVERRIDE_MALLOC"]
        );
    }

    #[test]
    fn list_leaks_sets_the_limit_and_turns_the_analysis_on() {
        let mut cfg = Config::new(&[OPTIONS]);
        assert!(!Settings::from_config(&cfg).unwrap().on);
        cfg.set("smpi/list-leaks", "10").unwrap();
        let s = Settings::from_config(&cfg).unwrap();
        assert!(s.on);
        assert_eq!(s.max_lines, 10);
        let mut cfg = Config::new(&[OPTIONS]);
        cfg.set("smpi/display-allocs", "yes").unwrap();
        assert_eq!(Settings::from_config(&cfg).unwrap().max_lines, u64::MAX);
        cfg.set("smpi/list-leaks", "ten").unwrap();
        assert_eq!(
            Settings::from_config(&cfg).unwrap_err().to_string(),
            "option 'smpi/list-leaks': 'ten' is not an integer"
        );
    }
}

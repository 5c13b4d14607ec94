//! The handles the program holds and where it made them, for SimGrid's
//! list of the handles a run leaves unfreed (`smpi/list-leaks`,
//! `smpi/display-allocs`).
//!
//! Off unless one of those options is set. Then every handle the program
//! gets (communicator, group, datatype, operation, request, window, info,
//! error handler) is noted with the rank that holds it and the place of
//! the MPI call that made it, and forgotten when the program frees it. The
//! place is the rank's last call location: `smpicc -trace-call-location`
//! puts a call of `smpi_trace_set_call_location(__FILE__, __LINE__)` before
//! every MPI call, as SimGrid's does; without it handles have no place.
//!
//! As SimGrid, handles are counted per rank: a communicator is one handle
//! per member, and each member's communicator holds a group of its own,
//! which counts as a handle made by the same call; MPI_Comm_group hands
//! out that group again (so it counts once, and lives on while either the
//! communicator or a handle of its group does). The groups of
//! MPI_COMM_WORLD and MPI_COMM_SELF are the runtime's and never count.

use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Ctx, Mpi, ReqId};

/// The families of handles the ledger notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Comm,
    Group,
    Datatype,
    Op,
    Request,
    Win,
    File,
    Info,
    Errhandler,
}

impl Kind {
    /// The C type of the handle, as SimGrid names an unnamed object.
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::Comm => "MPI_Comm",
            Kind::Group => "MPI_Group",
            Kind::Datatype => "MPI_Datatype",
            Kind::Op => "MPI_Op",
            Kind::Request => "MPI_Request",
            Kind::Win => "MPI_Win",
            Kind::File => "MPI_File",
            Kind::Info => "MPI_Info",
            Kind::Errhandler => "MPI_Errhandler",
        }
    }
}

/// A place in the program's sources.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    pub file: Rc<str>,
    pub line: u32,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// The last component of `path` (SimGrid's `Path::get_base_name`).
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The file names of sites, each stored once, as the compiler's
/// `__FILE__` gives them or reduced to their base name (SimGrid's default;
/// `smpi/trace-call-use-absolute-path` keeps them whole).
#[derive(Debug, Default)]
pub struct Files {
    names: FxHashSet<Rc<str>>,
    whole_paths: bool,
}

impl Files {
    pub fn new(whole_paths: bool) -> Self {
        Self {
            names: FxHashSet::default(),
            whole_paths,
        }
    }

    /// The name a site gives `file`.
    pub fn name_of<'a>(&self, file: &'a str) -> &'a str {
        if self.whole_paths {
            file
        } else {
            base_name(file)
        }
    }

    /// The site of `line` of `file`.
    pub fn site(&mut self, file: &str, line: u32) -> Site {
        let name = self.name_of(file);
        let file = match self.names.get(name) {
            Some(f) => Rc::clone(f),
            None => {
                let f: Rc<str> = Rc::from(name);
                self.names.insert(Rc::clone(&f));
                f
            }
        };
        Site { file, line }
    }
}

/// What the ledger knows of a live handle.
#[derive(Debug, Clone)]
struct Entry {
    site: Option<Site>,
    /// The MPI call that made it.
    call: &'static str,
    /// The object behind the handle, for groups: a communicator's group and
    /// the handles MPI_Comm_group gives for it are one object.
    object: u64,
}

/// The handles the program holds (see the module's documentation).
#[derive(Debug, Default)]
pub struct Ledger {
    on: bool,
    files: Files,
    /// Each rank's last call location.
    here: Vec<Option<Site>>,
    /// Live handles by (family, handle, rank holding it).
    live: FxHashMap<(Kind, i32, usize), Entry>,
    /// Numbers objects.
    objects: u64,
}

/// The live handles at the end of a run, as SimGrid lists them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HandleLeaks {
    /// How many handles are live.
    pub total: usize,
    /// Some handle is listed without its place (none known, or `no_loc`).
    pub unplaced: bool,
    /// The handles by type (the object's name for a named one) and place,
    /// as SimGrid writes them ("MPI_Comm at file.c:23"), with how many,
    /// in the order of the text.
    pub by_origin: Vec<(String, usize)>,
}

impl Ledger {
    /// A ledger that notes nothing until [`Ledger::enable`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Notes handles from now on, for `nranks` ranks; `whole_paths` keeps
    /// the paths of source files whole.
    pub fn enable(&mut self, nranks: usize, whole_paths: bool) {
        self.on = true;
        self.files = Files::new(whole_paths);
        self.here = vec![None; nranks];
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Keeps each of `nranks` ranks' last call location (for the
    /// correctness checks' reports) without noting handles.
    pub fn track_locations(&mut self, nranks: usize) {
        if self.here.len() < nranks {
            self.here = vec![None; nranks];
        }
    }

    /// Whether call locations are kept.
    pub fn tracks_locations(&self) -> bool {
        !self.here.is_empty()
    }

    /// `rank`'s last call location, if known.
    pub fn here(&self, rank: usize) -> Option<&Site> {
        self.here.get(rank).and_then(Option::as_ref)
    }

    /// `smpi_trace_set_call_location`: `rank`'s next MPI calls are at
    /// `line` of `file` (line 0: nowhere, as in SimGrid).
    pub fn set_location(&mut self, rank: usize, file: &str, line: u32) {
        let Some(here) = self.here.get_mut(rank) else {
            return;
        };
        if line == 0 {
            *here = None;
            return;
        }
        // Most calls come from the file of the previous one.
        match here {
            Some(site) if *site.file == *self.files.name_of(file) => site.line = line,
            _ => *here = Some(self.files.site(file, line)),
        }
    }

    /// `rank` got `handle`, made at its last call location.
    pub fn open(&mut self, kind: Kind, handle: i32, rank: usize) {
        if !self.on {
            return;
        }
        let site = self.here.get(rank).cloned().flatten();
        self.objects += 1;
        let object = self.objects;
        let call = crate::sim::current_call();
        self.live
            .insert((kind, handle, rank), Entry { site, call, object });
    }

    /// `rank` got group handle `group` for the group of its communicator
    /// `comm` (MPI_Comm_group): the object that communicator's entry
    /// stands for, made where it was. The groups of communicators the
    /// ledger does not know (MPI_COMM_WORLD, MPI_COMM_SELF) are the
    /// runtime's.
    pub fn open_comm_group(&mut self, group: i32, comm: i32, rank: usize) {
        if let Some(entry) = self.live.get(&(Kind::Comm, comm, rank)).cloned() {
            self.live.insert((Kind::Group, group, rank), entry);
        }
    }

    /// `rank` freed `handle` (or it is the runtime's own).
    pub fn close(&mut self, kind: Kind, handle: i32, rank: usize) {
        if self.on {
            self.live.remove(&(kind, handle, rank));
        }
    }

    /// The live handles, grouped by `name` (the type, or the name the
    /// program gave the object) and place (none when `no_loc`); `listed`
    /// says whether a handle is the program's to free.
    fn leaks(
        &self,
        name: impl Fn(Kind, i32, usize) -> String,
        listed: impl Fn(Kind, i32) -> bool,
        no_loc: bool,
    ) -> HandleLeaks {
        let mut handles: Vec<(String, Option<&Site>)> = Vec::new();
        // Groups are counted by object, each with the place of the call
        // that made it.
        let mut groups: BTreeMap<u64, Option<&Site>> = BTreeMap::new();
        for (&(kind, handle, rank), entry) in &self.live {
            match kind {
                Kind::Group => {
                    groups.insert(entry.object, entry.site.as_ref());
                }
                _ if listed(kind, handle) => {
                    if kind == Kind::Comm {
                        groups.insert(entry.object, entry.site.as_ref());
                    }
                    handles.push((name(kind, handle, rank), entry.site.as_ref()));
                }
                _ => {}
            }
        }
        let group_name = Kind::Group.type_name();
        handles.extend(groups.into_values().map(|s| (group_name.to_string(), s)));
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let mut unplaced = false;
        for (name, site) in &handles {
            let key = match site {
                Some(site) if !no_loc => format!("{name} at {site}"),
                _ => {
                    unplaced = true;
                    name.clone()
                }
            };
            *counts.entry(key).or_insert(0) += 1;
        }
        HandleLeaks {
            total: handles.len(),
            unplaced,
            by_origin: counts.into_iter().collect(),
        }
    }
}

/// One live handle, as the leak check reports it.
#[derive(Debug, Clone)]
pub struct Live {
    pub kind: Kind,
    pub rank: usize,
    pub call: &'static str,
    pub site: Option<Site>,
}

impl Ledger {
    /// The live handles the program made, by rank, family and handle; a
    /// group that is a live communicator's own (MPI_Comm_group) is counted
    /// with it.
    pub fn live(&self) -> Vec<Live> {
        let comm_objects: FxHashSet<u64> = self
            .live
            .iter()
            .filter(|(k, _)| k.0 == Kind::Comm)
            .map(|(_, e)| e.object)
            .collect();
        let mut keys: Vec<&(Kind, i32, usize)> = self
            .live
            .iter()
            .filter(|(k, e)| k.0 != Kind::Group || !comm_objects.contains(&e.object))
            .map(|(k, _)| k)
            .collect();
        keys.sort_by_key(|&&(kind, handle, rank)| (rank, kind as u8, handle));
        keys.into_iter()
            .map(|k| {
                let e = &self.live[k];
                Live {
                    kind: k.0,
                    rank: k.2,
                    call: e.call,
                    site: e.site.clone(),
                }
            })
            .collect()
    }
}

impl Mpi {
    /// The handles the program did not free, as SimGrid lists them at the
    /// end of a run (`no_loc`: without their places).
    pub fn handle_leaks(&self, no_loc: bool) -> HandleLeaks {
        let name = |kind: Kind, handle: i32, rank: usize| {
            let given = match kind {
                Kind::Comm => self
                    .ranks
                    .get(rank)
                    .and_then(|r| r.cold().names.iter().find(|(c, _)| *c == handle))
                    .map(|(_, n)| n.clone()),
                Kind::Datatype => self.datatype(handle).ok().map(|t| t.name.clone()),
                Kind::Win => self.windows.member_name(handle, rank),
                _ => None,
            };
            given
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| kind.type_name().to_string())
        };
        // A part of a compound request is the runtime's: the program holds
        // the compound.
        let listed = |kind: Kind, handle: i32| match kind {
            Kind::Request => usize::try_from(handle - 1)
                .ok()
                .and_then(|id: ReqId| self.requests.get(id))
                .and_then(Option::as_ref)
                .is_some_and(|r| r.parent().is_none()),
            _ => true,
        };
        self.ledger.leaks(name, listed, no_loc)
    }
}

impl Ctx<'_> {
    /// The running rank got `handle` (a no-op unless the ledger is on).
    pub fn note_created(&mut self, kind: Kind, handle: i32) {
        let me = self.core.current();
        self.mpi.ledger.open(kind, handle, me);
    }

    /// The running rank freed `handle`, or `handle` is the runtime's own.
    pub fn note_freed(&mut self, kind: Kind, handle: i32) {
        let me = self.core.current();
        self.mpi.ledger.close(kind, handle, me);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger(ranks: usize) -> Ledger {
        let mut l = Ledger::new();
        l.enable(ranks, false);
        l
    }

    fn leaks(l: &Ledger, no_loc: bool) -> HandleLeaks {
        l.leaks(|k, _, _| k.type_name().to_string(), |_, _| true, no_loc)
    }

    #[test]
    fn an_off_ledger_notes_nothing() {
        let mut l = Ledger::new();
        l.set_location(0, "a.c", 3);
        l.open(Kind::Comm, 3, 0);
        assert_eq!(leaks(&l, false), HandleLeaks::default());
    }

    #[test]
    fn a_communicator_counts_with_its_group_per_member() {
        let mut l = ledger(2);
        for r in 0..2 {
            l.set_location(r, "/src/dir/prog.c", 23);
            l.open(Kind::Comm, 5, r);
        }
        l.set_location(0, "/src/dir/prog.c", 30);
        l.open(Kind::Datatype, 40, 0);
        let got = leaks(&l, false);
        assert_eq!(got.total, 5);
        assert!(!got.unplaced);
        assert_eq!(
            got.by_origin,
            vec![
                ("MPI_Comm at prog.c:23".to_string(), 2),
                ("MPI_Datatype at prog.c:30".to_string(), 1),
                ("MPI_Group at prog.c:23".to_string(), 2),
            ]
        );
        l.close(Kind::Comm, 5, 1);
        l.close(Kind::Datatype, 40, 0);
        assert_eq!(leaks(&l, false).total, 2);
    }

    #[test]
    fn a_communicators_group_handles_are_its_group() {
        let mut l = ledger(1);
        l.set_location(0, "p.c", 10);
        l.open(Kind::Comm, 5, 0);
        l.set_location(0, "p.c", 11);
        l.open_comm_group(7, 5, 0);
        // MPI_COMM_WORLD's group is the runtime's.
        l.open_comm_group(8, 1, 0);
        let only_group = |l: &Ledger| leaks(l, false);
        assert_eq!(only_group(&l).total, 2);
        // Freeing the communicator leaves its group, made where it was.
        l.close(Kind::Comm, 5, 0);
        assert_eq!(
            only_group(&l).by_origin,
            vec![("MPI_Group at p.c:10".to_string(), 1)]
        );
        l.close(Kind::Group, 7, 0);
        assert_eq!(only_group(&l).total, 0);
    }

    #[test]
    fn without_places_handles_group_by_type_alone() {
        let mut l = ledger(1);
        l.open(Kind::Op, 100, 0);
        l.set_location(0, "p.c", 4);
        l.open(Kind::Op, 101, 0);
        let got = leaks(&l, false);
        assert!(got.unplaced);
        assert_eq!(
            got.by_origin,
            vec![
                ("MPI_Op".to_string(), 1),
                ("MPI_Op at p.c:4".to_string(), 1)
            ]
        );
        let got = leaks(&l, true);
        assert_eq!(got.by_origin, vec![("MPI_Op".to_string(), 2)]);
        // Line 0 is no place.
        l.set_location(0, "p.c", 0);
        l.open(Kind::Info, 3, 0);
        assert!(leaks(&l, false)
            .by_origin
            .contains(&("MPI_Info".to_string(), 1)));
    }

    #[test]
    fn paths_are_cut_to_base_names_unless_asked_whole() {
        assert_eq!(base_name("/a/b/c.c"), "c.c");
        assert_eq!(base_name("c.c"), "c.c");
        let mut files = Files::new(false);
        assert_eq!(&*files.site("/x/y.c", 1).file, "y.c");
        let mut files = Files::new(true);
        assert_eq!(&*files.site("/x/y.c", 1).file, "/x/y.c");
        let mut l = Ledger::new();
        l.enable(1, true);
        l.set_location(0, "/x/y.c", 2);
        l.open(Kind::Win, 1, 0);
        assert_eq!(leaks(&l, false).by_origin[0].0, "MPI_Win at /x/y.c:2");
    }
}

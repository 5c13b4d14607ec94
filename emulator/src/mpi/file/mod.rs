//! MPI-IO: files opened by a group of ranks, their views, file pointers
//! and hints.
//!
//! The data is real: a file is one OS file of the machine, opened once by
//! the first member to join the collective open and shared by all (one OS
//! thread runs every rank, so each access is atomic and ordered by
//! construction). The time is simulated: an access costs its bytes on the
//! disk the platform gives the file on the rank's host (`disk_of`), and a
//! collective access costs what ROMIO's two-phase algorithm would
//! (`access`). A host without a disk does I/O in no simulated time; the
//! run counts such operations (`Mpi::diskless_io`) and says so at the
//! end.
//!
//! A file is stored once and shared by its members, like a window; it owns
//! a private duplicate of the communicator it was opened on, whose
//! collective context carries its collectives.

mod access;
mod view;

pub use access::{access, Access, Position};
pub use view::{View, ViewSpec, DISPLACEMENT_CURRENT};

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use platforms::HostId;

use super::datatype::{self, Datatype};
use super::handles::HandleTable;
use super::ledger::Kind;
use super::{class, CommView, Ctx, Group, MpiError, MpiResult};
use crate::sim;

pub const FILE_NULL: i32 = 0;

pub const MODE_CREATE: i32 = 1;
pub const MODE_RDONLY: i32 = 2;
pub const MODE_WRONLY: i32 = 4;
pub const MODE_RDWR: i32 = 8;
pub const MODE_DELETE_ON_CLOSE: i32 = 16;
pub const MODE_UNIQUE_OPEN: i32 = 32;
pub const MODE_EXCL: i32 = 64;
pub const MODE_APPEND: i32 = 128;
pub const MODE_SEQUENTIAL: i32 = 256;
const MODE_ALL: i32 = 511;

pub const SEEK_SET: i32 = 600;
pub const SEEK_CUR: i32 = 602;
pub const SEEK_END: i32 = 604;

/// The info keys a file reports, with their defaults (ROMIO's names).
/// `cb_nodes` defaults to the number of hosts the file's ranks run on.
pub const FILE_HINTS: &[&str] = &[
    "cb_nodes",
    "romio_cb_read",
    "romio_cb_write",
    "cb_buffer_size",
];

fn err(class: i32, message: impl Into<String>) -> MpiError {
    MpiError::new(class, message)
}

/// One member's view of a file, its individual pointer and its settings.
#[derive(Debug, Clone)]
pub struct Member {
    pub view: View,
    /// The individual file pointer, in etypes of the view.
    pub pos: i64,
    pub errhandler: i32,
    /// Info hints this member set.
    pub info: Vec<(String, String)>,
    /// The disk of this member's host the file lives on (an index in
    /// `Platform::disks`), if its host has one.
    pub disk: Option<usize>,
    pub host: HostId,
    /// The status of the split collective begun and not ended yet.
    pub split: Option<(&'static str, super::Status)>,
    /// Collective accesses made so far (the key of their deposits).
    pub collectives: u64,
    /// MPI_File_set_atomicity's flag (kept per member: members set it
    /// one after the other in a collective call).
    pub atomic: bool,
    pub closed: bool,
}

/// The (file offset, bytes) pieces one member's access touches.
type Pieces = Rc<[(u64, u64)]>;

/// What the members of one collective access deposit for each other:
/// the (file offset, bytes) pieces each accesses, as ROMIO's two-phase
/// algorithm exchanges them.
#[derive(Debug)]
struct Deposit {
    seq: u64,
    pieces: Vec<Option<Pieces>>,
    /// Members that have not read the deposit yet.
    unread: usize,
}

/// An open file, shared by its members.
#[derive(Debug)]
pub struct FileObj {
    /// The file's private communicator (a duplicate of the opener's).
    pub comm: i32,
    pub group: Group,
    /// The name the program opened it by.
    pub path: String,
    /// The OS file's path.
    real: PathBuf,
    pub amode: i32,
    os: std::fs::File,
    pub members: Vec<Member>,
    /// The shared file pointer, in etypes of the (common) view.
    pub shared: i64,
    deposits: VecDeque<Deposit>,
    /// Members that have not closed it yet.
    refs: usize,
    /// Members that have not joined the open yet.
    joining: usize,
}

/// Files by handle (0 is MPI_FILE_NULL).
#[derive(Debug, Default)]
pub struct Files {
    table: HandleTable<FileObj>,
    /// Files being opened, by their private communicator.
    opening: Vec<(i32, i32)>,
    pub stand_in: StandIn,
}

impl Files {
    /// The name the program opened `file` by, if it is open.
    pub fn path(&self, file: i32) -> Option<&str> {
        self.table.get(file).map(|f| f.path.as_str())
    }
}

/// What MPI_File_open asks for.
#[derive(Debug, Clone, Copy)]
pub struct OpenSpec<'a> {
    pub comm: i32,
    pub path: &'a str,
    pub amode: i32,
    pub info: i32,
}

/// The path of the file a program names: ROMIO's file-system prefixes
/// (`ufs:`, `nfs:`) name a driver, not a directory.
fn os_path(name: &str) -> &str {
    for prefix in ["ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "testfs:"] {
        if let Some(rest) = name.strip_prefix(prefix) {
            return rest;
        }
    }
    name
}

/// The MPI error class of an OS error on a file.
fn io_class(e: &std::io::Error) -> i32 {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => class::NO_SUCH_FILE,
        K::AlreadyExists => class::FILE_EXISTS,
        K::PermissionDenied => class::ACCESS,
        K::ReadOnlyFilesystem => class::READ_ONLY,
        K::StorageFull => class::NO_SPACE,
        K::QuotaExceeded => class::QUOTA,
        K::IsADirectory | K::NotADirectory | K::InvalidFilename => class::BAD_FILE,
        _ => class::IO,
    }
}

/// An error of the OS on `path`, as MPI reports it.
pub(crate) fn os_error(what: &str, path: &str, e: &std::io::Error) -> MpiError {
    err(io_class(e), format!("cannot {what} file '{path}': {e}"))
}

/// `path` made absolute and lexically normal (no `.` or `..`), to compare
/// it with disk mount points.
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The disk of `host` that holds `path`: the one whose mount point is the
/// longest prefix of the path, or the remote disk whose mount point is
/// (SimGrid's `remote_disk` host property, `MOUNT:DISK:HOST`), else the
/// host's first disk; None for a host without disks. An index in
/// `Platform::disks`.
pub fn disk_of(platform: &platforms::Platform, host: HostId, path: &str) -> Option<usize> {
    let abs = absolute(Path::new(path));
    let disks = platform.disks();
    let under = |m: &str| {
        abs.starts_with(Path::new(m))
            .then_some(Path::new(m).components().count())
    };
    let local = platform
        .disk_ids(host)
        .filter_map(|i| Some((i, under(disks[i].mount.as_deref()?)?)));
    let remote = platform
        .host(host)
        .properties
        .iter()
        .filter(|(k, _)| k == "remote_disk")
        .filter_map(|(_, v)| {
            let mut parts = v.splitn(3, ':');
            let (mount, disk, owner) = (parts.next()?, parts.next()?, parts.next()?);
            let owner = platform.host_by_name(owner)?;
            let i = platform.disk_ids(owner).find(|&i| disks[i].name == disk)?;
            Some((i, under(mount)?))
        });
    let best = local
        .chain(remote)
        .enumerate()
        .max_by_key(|&(order, (_, depth))| (depth, std::cmp::Reverse(order)))
        .map(|(_, (d, _))| d);
    best.or_else(|| {
        let own = platform.disk_ids(host);
        (!own.is_empty()).then_some(own.start)
    })
}

/// Whether `path` lies under a disk's mount point that this machine does
/// not have as a directory.
fn under_missing_mount(platform: &platforms::Platform, path: &Path) -> bool {
    let abs = absolute(path);
    let remote_mounts = platform
        .hosts()
        .iter()
        .flat_map(|h| &h.properties)
        .filter(|(k, _)| k == "remote_disk")
        .filter_map(|(_, v)| v.split(':').next());
    platform
        .disks()
        .iter()
        .filter_map(|d| d.mount.as_deref())
        .chain(remote_mounts)
        .any(|m| abs.starts_with(Path::new(m)) && !Path::new(m).is_dir())
}

/// Where files under mount points this machine lacks are kept.
#[derive(Debug, Default)]
pub struct StandIn {
    /// `smpi/io-dir`, when given.
    pub configured: Option<PathBuf>,
    /// The run's own directory, made when first needed and removed when
    /// the run ends.
    made: Option<PathBuf>,
}

impl StandIn {
    /// The directory standing in for missing mount points.
    fn dir(&mut self) -> MpiResult<PathBuf> {
        if let Some(d) = self.configured.as_ref().or(self.made.as_ref()) {
            return Ok(d.clone());
        }
        let d = std::env::temp_dir().join(format!("smpirun-io-{}", std::process::id()));
        std::fs::create_dir_all(&d)
            .map_err(|e| os_error("create the directory of", &d.display().to_string(), &e))?;
        self.made = Some(d.clone());
        Ok(d)
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        if let Some(d) = self.made.take() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The options of MPI-IO.
pub const OPTIONS: crate::config::Options = &[crate::config::OptionSpec {
    name: "smpi/io-dir",
    kind: crate::config::Kind::Text,
    default: "",
    help: "where files under a disk's mount point that this machine lacks (SimGrid's platforms \
           mount simulated disks, such as /scratch) are kept, under their full path: this \
           directory, or, when empty, one of the run's own, removed at its end",
}];

impl Ctx<'_> {
    /// The disk of the current rank's host that holds file `name`, and
    /// the path of the OS file: `name` itself, or, under a mount point
    /// this machine lacks, its stand-in (see [`StandIn`]).
    pub fn place_file(&mut self, name: &str) -> MpiResult<(Option<usize>, PathBuf)> {
        let host = self.core.host_of(self.core.current());
        let path = os_path(name);
        let disk = disk_of(self.core.platform(), host, path);
        if !under_missing_mount(self.core.platform(), Path::new(path)) {
            return Ok((disk, PathBuf::from(path)));
        }
        let abs = absolute(Path::new(path));
        let relative = abs.strip_prefix("/").unwrap_or(&abs);
        let stand_in = self.mpi.files.stand_in.dir()?.join(relative);
        if let Some(parent) = stand_in.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| os_error("create the directory of", name, &e))?;
        }
        Ok((disk, stand_in))
    }
}

fn check_amode(amode: i32) -> MpiResult<()> {
    let access = [MODE_RDONLY, MODE_WRONLY, MODE_RDWR]
        .iter()
        .filter(|&&m| amode & m != 0)
        .count();
    if amode & !MODE_ALL != 0 || access != 1 {
        return Err(err(
            class::AMODE,
            format!(
                "invalid access mode {amode:#x}: exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY \
                 and MPI_MODE_RDWR is needed, with MPI_MODE_* bits only"
            ),
        ));
    }
    if amode & MODE_RDONLY != 0 && amode & (MODE_CREATE | MODE_EXCL) != 0 {
        return Err(err(
            class::AMODE,
            "MPI_MODE_RDONLY cannot go with MPI_MODE_CREATE or MPI_MODE_EXCL",
        ));
    }
    if amode & MODE_RDWR != 0 && amode & MODE_SEQUENTIAL != 0 {
        return Err(err(
            class::AMODE,
            "MPI_MODE_RDWR cannot go with MPI_MODE_SEQUENTIAL",
        ));
    }
    Ok(())
}

/// Opens the OS file `real` for the program's file `path`.
fn open_os(real: &Path, path: &str, amode: i32) -> MpiResult<std::fs::File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(amode & (MODE_RDONLY | MODE_RDWR) != 0)
        .write(amode & (MODE_WRONLY | MODE_RDWR) != 0);
    if amode & MODE_CREATE != 0 {
        if amode & MODE_EXCL != 0 {
            o.create_new(true);
        } else {
            o.create(true);
        }
    } else if amode & MODE_EXCL != 0 && real.exists() {
        return Err(err(
            class::FILE_EXISTS,
            format!("file '{path}' exists and MPI_MODE_EXCL was given"),
        ));
    }
    let f = o.open(real).map_err(|e| os_error("open", path, &e))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(err(
            class::BAD_FILE,
            format!("cannot open file '{path}': it is a directory"),
        ));
    }
    Ok(f)
}

/// A barrier on the file's communicator.
fn file_barrier(file: i32, call: &'static str) -> MpiResult<()> {
    let view = sim::mpi(|w| -> MpiResult<CommView> {
        let comm = w.file(file)?.0.comm;
        w.comm(comm)
    })?;
    barrier(&view, call)
}

fn barrier(view: &CommView, call: &'static str) -> MpiResult<()> {
    let s = collectives::barrier(collectives::Position {
        rank: view.my_rank,
        size: view.size(),
    })
    .map_err(super::coll::coll_error)?;
    super::coll::execute(
        view,
        s,
        super::coll::Buffers::none(),
        super::coll::Reduction::None,
        call,
    )
}

/// Every member of `view` learns every member's `mine` (the same length
/// everywhere).
pub(crate) fn allgather_i64(
    view: &CommView,
    mine: &[i64],
    call: &'static str,
) -> MpiResult<Vec<i64>> {
    let mut all = vec![0i64; mine.len() * view.size()];
    let s = collectives::allgather(
        collectives::Position {
            rank: view.my_rank,
            size: view.size(),
        },
        collectives::Blocks {
            sendcount: mine.len(),
            recvcount: mine.len(),
            in_place: false,
        },
    )
    .map_err(super::coll::coll_error)?;
    let b = super::coll::Buffers {
        send: mine.as_ptr() as usize,
        send_type: datatype::INT64,
        recv: all.as_mut_ptr() as usize,
        recv_type: datatype::INT64,
    };
    super::coll::execute(view, s, b, super::coll::Reduction::None, call)?;
    Ok(all)
}

/// MPI_File_open for the current rank (collective): the new file's handle.
pub fn open(spec: OpenSpec, call: &'static str) -> MpiResult<i32> {
    check_amode(spec.amode)?;
    let hints = sim::mpi(|w| -> MpiResult<_> {
        let v = w.comm(spec.comm)?;
        if v.remote.is_some() {
            return Err(err(
                class::COMM,
                format!("{call} needs an intracommunicator"),
            ));
        }
        w.mpi.hints(spec.info)
    })?;
    let private = sim::mpi(|w| -> MpiResult<i32> {
        let private = w.comm_dup(spec.comm)?;
        // The file's own communicator, not the program's.
        w.note_freed(Kind::Comm, private);
        Ok(private)
    })?;
    let joined = sim::mpi(|w| w.join_file(private, spec, hints));
    let file = match joined {
        Ok(f) => f,
        Err(e) => {
            sim::mpi(|w| w.comm_free(private))?;
            return Err(e);
        }
    };
    file_barrier(file, call)?;
    Ok(file)
}

/// MPI_File_close for the current rank (collective).
pub fn close(file: i32, call: &'static str) -> MpiResult<()> {
    sim::mpi(|w| w.file(file).map(drop))?;
    file_barrier(file, call)?;
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.file_mut(file)?;
        if let Some((begun, _)) = obj.members[me].split {
            return Err(err(
                class::OTHER,
                format!("file closed while the split collective {begun} is not ended"),
            ));
        }
        obj.members[me].closed = true;
        obj.refs -= 1;
        let comm = obj.comm;
        if obj.refs == 0 {
            let obj = w.mpi.files.table.remove(file).expect("the file is open");
            if obj.amode & MODE_DELETE_ON_CLOSE != 0 {
                std::fs::remove_file(&obj.real).map_err(|e| os_error("delete", &obj.path, &e))?;
            }
        }
        w.note_freed(Kind::File, file);
        w.comm_free(comm)
    })
}

/// MPI_File_delete.
pub fn delete(path: &str) -> MpiResult<()> {
    let (_, real) = sim::mpi(|w| w.place_file(path))?;
    std::fs::remove_file(real).map_err(|e| os_error("delete", path, &e))
}

/// MPI_File_set_view for the current rank (collective). Every member's
/// new view is made before any pointer moves (MPI_DISPLACEMENT_CURRENT
/// reads the shared pointer), and installed before any member goes on.
pub fn set_view(file: i32, v: ViewSpec, call: &'static str) -> MpiResult<()> {
    let new = sim::mpi(|w| -> MpiResult<View> {
        let (obj, me) = w.file(file)?;
        if obj.members[me].split.is_some() {
            return Err(err(
                class::OTHER,
                "MPI_File_set_view during a split collective",
            ));
        }
        let sequential = obj.amode & MODE_SEQUENTIAL != 0;
        let writable = obj.amode & MODE_RDONLY == 0;
        let mut new = View::new(w, v, sequential, writable)?;
        if v.disp == DISPLACEMENT_CURRENT {
            let old = &obj.members[me].view;
            let at = u64::try_from(obj.shared).unwrap_or(0) * old.etype.size as u64;
            new.disp = old.pieces(at, 1).first().map_or(0, |p| p.0 as i64);
        }
        Ok(new)
    })?;
    file_barrier(file, call)?;
    sim::mpi(|w| -> MpiResult<()> {
        let hints = w.mpi.hints(v.info)?;
        let (obj, me) = w.file_mut(file)?;
        let m = &mut obj.members[me];
        m.view = new;
        m.pos = 0;
        m.info.extend(hints);
        obj.shared = 0;
        Ok(())
    })?;
    file_barrier(file, call)
}

/// A collective that only synchronizes the file's members (MPI_File_sync,
/// and the settings every member gives the same value), after `local`
/// ran for the current rank.
pub fn synchronize(
    file: i32,
    call: &'static str,
    local: impl FnOnce(&mut Ctx, i32) -> MpiResult<()>,
) -> MpiResult<()> {
    sim::mpi(|w| local(w, file))?;
    file_barrier(file, call)
}

/// SimGrid's `smpi_io` VERBOSE line of a pointer that moves `offset`
/// etypes of `extent` bytes from `whence`.
pub(crate) fn log_seek(path: &str, offset: i64, extent: i64, whence: i32) {
    if !crate::log::enabled(crate::log::SimGrid::SmpiIo, crate::log::Priority::Verbose) {
        return;
    }
    let bytes = offset.saturating_mul(extent);
    let how = match whence {
        SEEK_SET => "setting offset",
        SEEK_CUR => "current offset +",
        _ => "end offset +",
    };
    say(&format!("Seeking in MPI_File {path}, {how} {bytes}"));
}

/// A line of the running rank's in SimGrid's `smpi_io` category, at
/// VERBOSE.
pub(crate) fn say(message: &str) {
    sim::with(|s| {
        let actor = crate::actors::log_actor(s, s.core.current_actor());
        crate::log::simgrid(
            crate::log::SimGrid::SmpiIo,
            crate::log::Priority::Verbose,
            crate::log::Source::Actor(actor),
            s.core.now(),
            message,
        );
    });
}

/// MPI_File_seek.
pub fn seek(file: i32, offset: i64, whence: i32) -> MpiResult<()> {
    let (path, extent) = sim::mpi(|w| -> MpiResult<(String, i64)> {
        w.file_seek(file, offset, whence)?;
        let (obj, me) = w.file(file)?;
        Ok((obj.path.clone(), obj.members[me].view.etype.extent as i64))
    })?;
    log_seek(&path, offset, extent, whence);
    Ok(())
}

/// MPI_File_seek_shared (collective): every member gives the same offset.
pub fn seek_shared(file: i32, offset: i64, whence: i32, call: &'static str) -> MpiResult<()> {
    let view = sim::mpi(|w| -> MpiResult<CommView> {
        let comm = w.file(file)?.0.comm;
        w.comm(comm)
    })?;
    let (target, path, extent) = sim::mpi(|w| -> MpiResult<(i64, String, i64)> {
        let (obj, me) = w.file(file)?;
        let current = obj.shared;
        let extent = obj.members[me].view.etype.extent as i64;
        let path = obj.path.clone();
        Ok((
            w.seek_target(file, me, current, offset, whence)?,
            path,
            extent,
        ))
    })?;
    log_seek(&path, offset, extent, whence);
    // Everyone reads the pointer before anyone moves it.
    let all = allgather_i64(&view, &[target], call)?;
    if all.iter().any(|&t| t != target) {
        return Err(err(
            class::NOT_SAME,
            format!("{call}: the members asked for different positions {all:?}"),
        ));
    }
    sim::mpi(|w| -> MpiResult<()> {
        w.file_mut(file)?.0.shared = target;
        Ok(())
    })
}

impl Ctx<'_> {
    /// The open file `file` and the current rank's rank in it.
    pub fn file(&self, file: i32) -> MpiResult<(&FileObj, usize)> {
        let obj = self
            .mpi
            .files
            .table
            .get(file)
            .ok_or_else(|| err(class::FILE, format!("invalid file handle {file}")))?;
        let me = obj
            .group
            .rank_of(self.core.current())
            .filter(|&r| !obj.members[r].closed)
            .ok_or_else(|| {
                err(
                    class::FILE,
                    format!(
                        "rank {} has not opened file '{}' (handle {file})",
                        self.core.current(),
                        obj.path
                    ),
                )
            })?;
        Ok((obj, me))
    }

    pub fn file_mut(&mut self, file: i32) -> MpiResult<(&mut FileObj, usize)> {
        let (_, me) = self.file(file)?;
        let obj = self.mpi.files.table.get_mut(file).expect("checked above");
        Ok((obj, me))
    }

    /// The current rank's member record of `file`.
    pub fn file_member(&self, file: i32) -> MpiResult<&Member> {
        let (obj, me) = self.file(file)?;
        Ok(&obj.members[me])
    }

    pub fn file_member_mut(&mut self, file: i32) -> MpiResult<&mut Member> {
        let (obj, me) = self.file_mut(file)?;
        Ok(&mut obj.members[me])
    }

    /// Joins the file being opened on private communicator `comm`,
    /// opening it on the OS if this rank is the first.
    fn join_file(
        &mut self,
        comm: i32,
        spec: OpenSpec,
        hints: Vec<(String, String)>,
    ) -> MpiResult<i32> {
        let view = self.comm(comm)?;
        let me = self.core.current();
        let host = self.core.host_of(me);
        let (disk, real) = self.place_file(spec.path)?;
        let errhandler = self.mpi.ranks[me]
            .file_errhandler
            .unwrap_or(super::ERRORS_RETURN);
        let byte = self.mpi.committed(datatype::BYTE)?;
        let member = Member {
            view: View::bytes(byte),
            pos: 0,
            errhandler,
            info: hints,
            disk,
            host,
            split: None,
            collectives: 0,
            atomic: false,
            closed: false,
        };
        let found = self.mpi.files.opening.iter().position(|&(c, _)| c == comm);
        let file = match found {
            Some(i) => {
                let file = self.mpi.files.opening[i].1;
                let obj = self.mpi.files.table.get_mut(file).expect("being opened");
                if obj.amode != spec.amode {
                    return Err(err(
                        class::NOT_SAME,
                        format!(
                            "file '{}' opened with access mode {:#x} here and {:#x} by others",
                            spec.path, spec.amode, obj.amode
                        ),
                    ));
                }
                obj.joining -= 1;
                if obj.joining == 0 {
                    self.mpi.files.opening.remove(i);
                }
                file
            }
            None => {
                let os = open_os(&real, spec.path, spec.amode)?;
                let size = view.size();
                let obj = FileObj {
                    comm,
                    group: view.group.clone(),
                    path: spec.path.to_string(),
                    real,
                    amode: spec.amode,
                    os,
                    members: Vec::with_capacity(size),
                    shared: 0,
                    deposits: VecDeque::new(),
                    refs: size,
                    joining: size - 1,
                };
                let file = self.mpi.files.table.insert(obj);
                if size > 1 {
                    self.mpi.files.opening.push((comm, file));
                }
                file
            }
        };
        let obj = self.mpi.files.table.get_mut(file).expect("just found");
        // Members are stored by their rank in the file's group; they join
        // in any order, so the table is filled as they come.
        while obj.members.len() <= view.my_rank {
            // A stand-in until that rank joins.
            obj.members.push(Member {
                closed: true,
                ..member.clone()
            });
        }
        obj.members[view.my_rank] = member;
        if spec.amode & MODE_APPEND != 0 {
            let len = obj.os.metadata().map(|m| m.len()).unwrap_or(0);
            let pos = i64::try_from(len).unwrap_or(i64::MAX);
            obj.members[view.my_rank].pos = pos;
            obj.shared = pos;
        }
        self.note_created(Kind::File, file);
        Ok(file)
    }

    /// The size of `file` in bytes.
    pub fn file_size(&self, file: i32) -> MpiResult<i64> {
        let (obj, _) = self.file(file)?;
        let m = obj
            .os
            .metadata()
            .map_err(|e| os_error("read the size of", &obj.path, &e))?;
        Ok(i64::try_from(m.len()).unwrap_or(i64::MAX))
    }

    /// Sets the size of `file` (MPI_File_set_size), or only grows it
    /// (MPI_File_preallocate).
    pub fn resize_file(&mut self, file: i32, size: i64, grow_only: bool) -> MpiResult<()> {
        let size = u64::try_from(size)
            .map_err(|_| err(class::ARG, format!("invalid file size {size}")))?;
        let (obj, _) = self.file(file)?;
        if obj.amode & MODE_RDONLY != 0 {
            return Err(err(
                class::ACCESS,
                format!("file '{}' is open read-only", obj.path),
            ));
        }
        if obj.amode & MODE_SEQUENTIAL != 0 {
            return Err(err(
                class::UNSUPPORTED_OPERATION,
                format!("file '{}' is open with MPI_MODE_SEQUENTIAL", obj.path),
            ));
        }
        let current = obj.os.metadata().map(|m| m.len()).unwrap_or(0);
        if grow_only && current >= size {
            return Ok(());
        }
        obj.os
            .set_len(size)
            .map_err(|e| os_error("resize", &obj.path, &e))
    }

    /// The position in etypes that `offset` from `whence` names for
    /// member `me` of `file` whose pointer is at `current`.
    fn seek_target(
        &self,
        file: i32,
        me: usize,
        current: i64,
        offset: i64,
        whence: i32,
    ) -> MpiResult<i64> {
        let (obj, _) = self.file(file)?;
        let base = match whence {
            SEEK_SET => 0,
            SEEK_CUR => current,
            SEEK_END => {
                let len = obj.os.metadata().map(|m| m.len()).unwrap_or(0);
                obj.members[me].view.etypes_before(len)
            }
            _ => {
                return Err(err(
                    class::ARG,
                    format!("invalid whence {whence} (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)"),
                ))
            }
        };
        let target = base.checked_add(offset).filter(|&t| t >= 0);
        target.ok_or_else(|| {
            err(
                class::ARG,
                format!("seeking to {base} + {offset} etypes: before the start of the file"),
            )
        })
    }

    /// MPI_File_seek for the current rank.
    pub fn file_seek(&mut self, file: i32, offset: i64, whence: i32) -> MpiResult<()> {
        let (obj, me) = self.file(file)?;
        if obj.amode & MODE_SEQUENTIAL != 0 {
            return Err(err(
                class::UNSUPPORTED_OPERATION,
                format!(
                    "file '{}' is open with MPI_MODE_SEQUENTIAL: it has no individual pointer",
                    obj.path
                ),
            ));
        }
        let current = obj.members[me].pos;
        let target = self.seek_target(file, me, current, offset, whence)?;
        self.file_member_mut(file)?.pos = target;
        Ok(())
    }

    /// MPI_File_get_group: a new group handle.
    pub fn file_group(&mut self, file: i32) -> MpiResult<i32> {
        let g = self.file(file)?.0.group.clone();
        let h = self.mpi.comms.add_group(g);
        self.note_created(Kind::Group, h);
        Ok(h)
    }

    /// MPI_File_get_info: a new info object with the file's hints.
    pub fn file_info(&mut self, file: i32) -> MpiResult<i32> {
        let (obj, me) = self.file(file)?;
        let set = &obj.members[me].info;
        let nodes = aggregator_ranks(obj, &[]).len().to_string();
        let mut entries: Vec<(String, String)> = FILE_HINTS
            .iter()
            .map(|&k| {
                let default = match k {
                    "cb_nodes" => nodes.clone(),
                    "cb_buffer_size" => "16777216".to_string(),
                    _ => "automatic".to_string(),
                };
                let v = set
                    .iter()
                    .rev()
                    .find(|e| e.0 == k)
                    .map_or(default, |e| e.1.clone());
                (k.to_string(), v)
            })
            .collect();
        for (k, v) in set {
            if !FILE_HINTS.contains(&k.as_str()) && !entries.iter().any(|e| &e.0 == k) {
                entries.push((k.clone(), v.clone()));
            }
        }
        Ok(self.new_info(entries))
    }

    /// MPI_File_set_info: the hints are kept (they tune the collective
    /// model: `cb_nodes`, `romio_cb_read`, `romio_cb_write`).
    pub fn set_file_info(&mut self, file: i32, info: i32) -> MpiResult<()> {
        let hints = self.mpi.hints(info)?;
        self.file_member_mut(file)?.info.extend(hints);
        Ok(())
    }
}

/// The ranks (in the file's group) that aggregate a collective access:
/// `cb_nodes` of them (a hint, else one per host), the first rank of each
/// host first, as ROMIO picks them. `hints` are the caller's.
fn aggregator_ranks(obj: &FileObj, hints: &[(String, String)]) -> Vec<usize> {
    let mut hosts: Vec<(HostId, Vec<usize>)> = Vec::new();
    for (r, m) in obj.members.iter().enumerate() {
        match hosts.iter_mut().find(|(h, _)| *h == m.host) {
            Some((_, rs)) => rs.push(r),
            None => hosts.push((m.host, vec![r])),
        }
    }
    let wanted = hints
        .iter()
        .rev()
        .find(|(k, _)| k == "cb_nodes")
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(hosts.len())
        .min(obj.members.len());
    let mut out = Vec::with_capacity(wanted);
    let mut depth = 0;
    while out.len() < wanted {
        for (_, rs) in &hosts {
            if let Some(&r) = rs.get(depth) {
                if out.len() < wanted {
                    out.push(r);
                }
            }
        }
        depth += 1;
    }
    out
}

/// The view's datatypes named by handles, as MPI_File_get_view returns
/// them: predefined ones as they are, derived ones duplicated.
pub fn view_types(w: &mut Ctx, file: i32) -> MpiResult<(i64, i32, i32, String)> {
    let v = w.file_member(file)?.view.clone();
    let dup = |w: &mut Ctx, h: i32, ty: &Rc<Datatype>| -> i32 {
        if ty.predefined {
            return h;
        }
        let h = w.mpi.add_datatype((**ty).clone());
        w.note_created(Kind::Datatype, h);
        h
    };
    let etype = dup(w, v.etype_handle, &v.etype);
    let filetype = dup(w, v.filetype_handle, &v.filetype);
    Ok((v.disp, etype, filetype, v.datarep))
}

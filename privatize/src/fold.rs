//! Memory folding (`SMPI_SHARED_MALLOC`): large buffers whose content does
//! not matter to the simulation share physical memory, so that a laptop
//! holds the matrices of thousands of ranks.
//!
//! * `global`: every shared allocation of every rank is a virtual range
//!   mapped block after block onto one small physical block
//!   (`smpi/shared-malloc-blocksize`), as SimGrid's global strategy.
//! * `local`: the allocations made at one call site (file and line) by
//!   all ranks share one physical buffer of their size, as SimGrid's local
//!   strategy; different sites do not share.
//! * `no`: plain private memory.
//!
//! A global range of n blocks takes n memory mappings; the kernel's limit
//! (`vm.max_map_count`) is reported with the numbers and the fix when a
//! mapping fails.

use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::num::NonZeroUsize;
use std::os::fd::OwnedFd;
use std::ptr::NonNull;

use nix::errno::Errno;
use nix::sys::memfd::{memfd_create, MFdFlags};
use nix::sys::mman::{mmap, mmap_anonymous, munmap, MapFlags, ProtFlags};

/// How shared allocations are folded (`smpi/shared-malloc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// One physical block for everything.
    Global,
    /// One physical buffer per call site.
    Local,
    /// No folding: private memory.
    No,
}

/// Why a shared allocation or free failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FoldError {
    /// The kernel refused a mapping: usually `vm.max_map_count`.
    #[error(
        "cannot map {bytes} bytes as {blocks} blocks of {block_size} bytes: the kernel \
         refused block {failed_at} ({reason}), and each block is one mapping while \
         vm.max_map_count is {max_map_count}. Raise it (sysctl -w vm.max_map_count={suggested}) \
         or use larger blocks (--cfg=smpi/shared-malloc-blocksize:{larger})"
    )]
    OutOfMappings {
        bytes: usize,
        blocks: usize,
        block_size: usize,
        failed_at: usize,
        reason: String,
        max_map_count: usize,
        suggested: usize,
        larger: usize,
    },
    /// Memory could not be reserved or created at all.
    #[error("cannot allocate {bytes} bytes of shared memory: {reason}")]
    NoMemory { bytes: usize, reason: String },
    /// `smpi/shared-malloc-hugepage` names no usable hugetlbfs mount.
    #[error(
        "smpi/shared-malloc-hugepage: {path} is not a mounted hugetlbfs ({reason}); mount one \
         (mount -t hugetlbfs none DIR) and reserve huge pages (sysctl -w vm.nr_hugepages=N)"
    )]
    NotHugetlbfs { path: String, reason: String },
    /// The folding block could not get its huge pages.
    #[error(
        "cannot map the {bytes}-byte folding block in huge pages from {path} ({reason}); \
         {free} of {total} huge pages are free: reserve more (sysctl -w vm.nr_hugepages={suggested}) \
         or use a smaller block (--cfg=smpi/shared-malloc-blocksize)"
    )]
    NoHugePages {
        bytes: usize,
        path: String,
        reason: String,
        free: usize,
        total: usize,
        suggested: usize,
    },
    /// `SMPI_SHARED_FREE` of an address no shared allocation returned.
    #[error("{0:#x} was not returned by SMPI_SHARED_MALLOC (or was already freed)")]
    UnknownAddress(usize),
}

/// One live shared allocation.
#[derive(Debug)]
struct Region {
    /// Mapped length (whole pages).
    len: usize,
    /// The call site whose buffer it maps (local strategy).
    site: Option<(String, u32)>,
    /// The folded parts, as offsets from the start: all of it but for
    /// partial allocations. Sorted and disjoint ([`Folding::cover`]'s
    /// search relies on it; `unfold` keeps the order).
    folded: Vec<(usize, usize)>,
    /// Under huge pages, the huge pages of the allocation that `unfold`
    /// turned into normal pages (offsets).
    split: std::collections::BTreeSet<usize>,
}

/// How much of a range of memory is folded (see [`Folding::cover`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cover {
    /// None of it.
    Private,
    /// All of it.
    Folded,
    /// Some of it.
    Mixed,
}

/// A call site's buffer (local strategy).
#[derive(Debug)]
struct Site {
    fd: OwnedFd,
    len: usize,
    users: usize,
}

/// The shared allocations of one simulation.
#[derive(Debug)]
pub struct Folding {
    strategy: Strategy,
    block_size: usize,
    /// The physical block of the global strategy, created on first use.
    block: Option<OwnedFd>,
    /// `smpi/shared-malloc-hugepage`: the hugetlbfs mount holding the
    /// global block, and its page size, which then aligns and sizes every
    /// folded mapping.
    huge: Option<(std::path::PathBuf, usize)>,
    /// Under huge pages, a block of normal pages, one huge page long, for
    /// the huge pages that `unfold` splits.
    small_block: Option<OwnedFd>,
    sites: HashMap<(String, u32), Site>,
    regions: BTreeMap<usize, Region>,
}

/// The page size (4 KiB if the system cannot tell).
pub(crate) fn page_size() -> usize {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|p| usize::try_from(p).ok())
        .unwrap_or(4096)
}

/// The system's message for `e`, worded as `std::io::Error` words it (as
/// the errors of this module always were).
fn os_error(e: Errno) -> String {
    std::io::Error::from(e).to_string()
}

/// An anonymous memory file of `len` bytes.
fn memory_file(len: usize) -> Result<OwnedFd, String> {
    let fd = memfd_create("smpi-shared", MFdFlags::MFD_CLOEXEC).map_err(os_error)?;
    let size = libc::off_t::try_from(len).map_err(|_| "size too large".to_owned())?;
    nix::unistd::ftruncate(&fd, size).map_err(os_error)?;
    Ok(fd)
}

/// `len` (not zero: every caller maps at least a page) as mmap's length.
fn length(len: usize) -> NonZeroUsize {
    NonZeroUsize::new(len).expect("mappings are at least a page long")
}

/// The address `at` (inside a mapping, so never null) as mmap's hint.
fn address(at: usize) -> NonZeroUsize {
    NonZeroUsize::new(at).expect("a mapped address is not null")
}

/// Unmaps `len` bytes at `at`. Failing is impossible for a range this
/// module mapped (whole pages), so the result is not looked at.
///
/// # Safety
///
/// `at .. at + len` must be a range this module mapped and that nothing
/// will use any more.
unsafe fn unmap(at: usize, len: usize) {
    let at = NonNull::new(at as *mut c_void).expect("a mapped address is not null");
    // SAFETY: the caller's contract.
    let _ = unsafe { munmap(at, len) };
}

fn max_map_count() -> usize {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(65530)
}

impl Folding {
    /// `block_size` is rounded up to whole pages.
    pub fn new(strategy: Strategy, block_size: usize) -> Folding {
        let page = page_size();
        Folding {
            strategy,
            block_size: block_size.max(1).div_ceil(page) * page,
            block: None,
            huge: None,
            small_block: None,
            sites: HashMap::new(),
            regions: BTreeMap::new(),
        }
    }

    /// Puts the global block in huge pages of the hugetlbfs mounted at
    /// `dir` (`smpi/shared-malloc-hugepage`): one page-table entry and one
    /// fault per huge page of folded memory instead of per page. The block
    /// size is rounded up to whole huge pages.
    pub fn use_huge_pages(&mut self, dir: &std::path::Path) -> Result<(), FoldError> {
        use nix::sys::statfs::{statfs, HUGETLBFS_MAGIC};
        let not = |reason: String| FoldError::NotHugetlbfs {
            path: dir.display().to_string(),
            reason,
        };
        let st = statfs(dir).map_err(|e| {
            // nix reports a NUL in the path as EINVAL; say what it was.
            if dir.as_os_str().as_encoded_bytes().contains(&0) {
                not("a NUL in the path".into())
            } else {
                not(os_error(e))
            }
        })?;
        if st.filesystem_type() != HUGETLBFS_MAGIC {
            return Err(not(format!(
                "file system type {:#x}",
                st.filesystem_type().0
            )));
        }
        let huge = usize::try_from(st.block_size())
            .unwrap_or(0)
            .max(page_size());
        self.block_size = self.block_size.div_ceil(huge) * huge;
        self.huge = Some((dir.to_path_buf(), huge));
        Ok(())
    }

    /// The granule of folded mappings: the page, or the huge page.
    fn unit(&self) -> usize {
        self.huge.as_ref().map_or_else(page_size, |h| h.1)
    }

    /// The block size in force (after rounding).
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// The strategy in force.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// A shared allocation of `size` bytes made at `file`:`line`; zeroed
    /// (the physical memory starts zeroed, and stays shared).
    pub fn allocate(&mut self, size: usize, file: &str, line: u32) -> Result<*mut u8, FoldError> {
        let unit = self.unit();
        let len = size.max(1).div_ceil(unit) * unit;
        let base = reserve(len, unit)?;
        let mapped = match self.strategy {
            Strategy::No => Ok(None),
            Strategy::Global => self.map_global(base, len).map(|()| None),
            Strategy::Local => self.map_local(base, len, file, line).map(Some),
        };
        match mapped {
            Ok(site) => {
                let folded = vec![(0, len)];
                self.regions.insert(
                    base as usize,
                    Region {
                        len,
                        site,
                        folded,
                        split: Default::default(),
                    },
                );
                tracing::trace!(
                    target: crate::LOG,
                    "{size} B folded at {base:p} ({file}:{line})"
                );
                Ok(base)
            }
            Err(e) => {
                // SAFETY: base..base+len is the reservation made above,
                // handed to nobody.
                unsafe { unmap(base as usize, len) };
                Err(e)
            }
        }
    }

    /// `SMPI_PARTIAL_SHARED_MALLOC`: `size` bytes of private memory but
    /// for the `shared` ranges (byte offsets, start inclusive, end
    /// exclusive), whose whole pages are folded onto the global block
    /// whatever the strategy (none: everything stays private).
    pub fn allocate_partial(
        &mut self,
        size: usize,
        shared: &[(usize, usize)],
    ) -> Result<*mut u8, FoldError> {
        let page = self.unit();
        let len = size.max(1).div_ceil(page) * page;
        let base = reserve(len, page)?;
        let mut folded = Vec::new();
        if self.strategy != Strategy::No {
            for &(start, end) in shared {
                let (lo, hi) = (start.div_ceil(page) * page, (end.min(size) / page) * page);
                if lo >= hi {
                    continue;
                }
                // SAFETY: lo < hi <= len: inside the reservation.
                let at = unsafe { base.add(lo) };
                if let Err(e) = self.map_global(at, hi - lo) {
                    // SAFETY: base..base+len is the reservation made above,
                    // handed to nobody.
                    unsafe { unmap(base as usize, len) };
                    return Err(e);
                }
                folded.push((lo, hi));
            }
        }
        folded = sorted_disjoint(folded);
        self.regions.insert(
            base as usize,
            Region {
                len,
                site: None,
                folded,
                split: Default::default(),
            },
        );
        Ok(base)
    }

    fn map_global(&mut self, base: *mut u8, len: usize) -> Result<(), FoldError> {
        let bs = self.block_size;
        if self.block.is_none() {
            let fd = match &self.huge {
                None => {
                    memory_file(bs).map_err(|reason| FoldError::NoMemory { bytes: bs, reason })?
                }
                Some((dir, _)) => huge_file(dir, bs)?,
            };
            self.block = Some(fd);
        }
        let fd = self.block.as_ref().expect("created above");
        let blocks = len.div_ceil(bs);
        for i in 0..blocks {
            let at = i * bs;
            let n = bs.min(len - at);
            // SAFETY: the target lies inside this function's reservation
            // (MAP_FIXED replaces it), and fd is a memory file of bs bytes.
            let mapped = unsafe {
                mmap(
                    Some(address(base as usize + at)),
                    length(n),
                    ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                    MapFlags::MAP_SHARED | MapFlags::MAP_FIXED,
                    fd,
                    0,
                )
            };
            if let Err(e) = mapped {
                if let (Some((dir, _)), Errno::ENOMEM) = (&self.huge, e) {
                    if i == 0 {
                        return Err(no_huge_pages(dir, bs, os_error(e)));
                    }
                }
                let max = max_map_count();
                return Err(FoldError::OutOfMappings {
                    bytes: len,
                    blocks,
                    block_size: bs,
                    failed_at: i,
                    reason: os_error(e),
                    max_map_count: max,
                    // The limit is reached by every buffer so far, not by
                    // this one alone: a few times more, and blocks large
                    // enough that this buffer is one mapping (at most 1 GiB
                    // of shared block).
                    suggested: (4 * max).max(max + blocks).next_power_of_two(),
                    larger: len.next_power_of_two().clamp(2 * bs, (1 << 30).max(2 * bs)),
                });
            }
        }
        Ok(())
    }

    fn map_local(
        &mut self,
        base: *mut u8,
        len: usize,
        file: &str,
        line: u32,
    ) -> Result<(String, u32), FoldError> {
        let key = (file.to_owned(), line);
        if !self.sites.contains_key(&key) {
            let fd =
                memory_file(len).map_err(|reason| FoldError::NoMemory { bytes: len, reason })?;
            self.sites.insert(key.clone(), Site { fd, len, users: 0 });
        }
        let site = self.sites.get_mut(&key).expect("inserted above");
        if site.len < len {
            // A larger allocation at the same site: grow the shared buffer.
            let size = libc::off_t::try_from(len).unwrap_or(libc::off_t::MAX);
            nix::unistd::ftruncate(&site.fd, size).map_err(|e| FoldError::NoMemory {
                bytes: len,
                reason: os_error(e),
            })?;
            site.len = len;
        }
        // SAFETY: the target is this allocation's reservation; the memory
        // file holds at least len bytes.
        unsafe {
            mmap(
                Some(address(base as usize)),
                length(len),
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED | MapFlags::MAP_FIXED,
                &site.fd,
                0,
            )
        }
        .map_err(|e| FoldError::NoMemory {
            bytes: len,
            reason: os_error(e),
        })?;
        site.users += 1;
        Ok(key)
    }

    /// Frees a shared allocation.
    pub fn free(&mut self, addr: *mut u8) -> Result<(), FoldError> {
        let region = self
            .regions
            .remove(&(addr as usize))
            .ok_or(FoldError::UnknownAddress(addr as usize))?;
        // SAFETY: the region was mapped by `allocate` at this address, and
        // the program gave it back.
        unsafe { unmap(addr as usize, region.len) };
        if let Some(key) = region.site {
            if let Some(site) = self.sites.get_mut(&key) {
                site.users -= 1;
                if site.users == 0 {
                    self.sites.remove(&key);
                }
            }
        }
        Ok(())
    }

    /// The mapped length of the shared allocation that starts at `addr`,
    /// if there is one.
    pub fn len_of(&self, addr: *const u8) -> Option<usize> {
        self.regions.get(&(addr as usize)).map(|r| r.len)
    }

    /// Makes the whole pages touching `addr .. addr + len` private again
    /// (zero-filled), where they lie in a folded part of a shared
    /// allocation: for a few values inside a folded buffer that the
    /// program's control flow reads back, such as a pivot vector. Returns
    /// how many bytes became private; memory outside shared allocations is
    /// left alone.
    pub fn unfold(&mut self, addr: *const u8, len: usize) -> Result<usize, FoldError> {
        let page = page_size();
        let huge = self.huge.as_ref().map(|h| h.1);
        let small_block = &mut self.small_block;
        let Some((&base, region)) = self.regions.range_mut(..=addr as usize).next_back() else {
            return Ok(0);
        };
        let start = (addr as usize - base) / page * page;
        let end = ((addr as usize - base) + len.max(1)).div_ceil(page) * page;
        if start >= region.len {
            return Ok(0);
        }
        let end = end.min(region.len);
        if let Some(huge) = huge {
            // A huge-page mapping splits only at huge-page boundaries: the
            // huge pages concerned become folded normal pages first (once),
            // so that only the normal pages asked for become private.
            let mut c = start / huge * huge;
            while c < end {
                let folded_here = region
                    .folded
                    .iter()
                    .any(|&(lo, hi)| lo < c + huge && c < hi);
                if folded_here && region.split.insert(c) {
                    if small_block.is_none() {
                        let fd = memory_file(huge).map_err(|reason| FoldError::NoMemory {
                            bytes: huge,
                            reason,
                        })?;
                        *small_block = Some(fd);
                    }
                    let fd = small_block.as_ref().expect("created above");
                    let n = huge.min(region.len - c);
                    // SAFETY: base + c .. base + c + n lies inside this
                    // region's reservation; MAP_FIXED replaces the huge-page
                    // mapping there by the normal block (huge bytes long).
                    unsafe {
                        mmap(
                            Some(address(base + c)),
                            length(n),
                            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                            MapFlags::MAP_SHARED | MapFlags::MAP_FIXED,
                            fd,
                            0,
                        )
                    }
                    .map_err(|e| FoldError::NoMemory {
                        bytes: n,
                        reason: os_error(e),
                    })?;
                }
                c += huge;
            }
        }
        let mut unfolded = 0;
        let mut kept = Vec::with_capacity(region.folded.len() + 1);
        for &(lo, hi) in &region.folded {
            let (a, b) = (lo.max(start), hi.min(end));
            if a >= b {
                kept.push((lo, hi));
                continue;
            }
            // SAFETY: base + a .. base + b lies inside this region's
            // reservation; MAP_FIXED replaces the folded mapping there.
            unsafe {
                mmap_anonymous(
                    Some(address(base + a)),
                    length(b - a),
                    ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                    MapFlags::MAP_PRIVATE | MapFlags::MAP_FIXED,
                )
            }
            .map_err(|e| FoldError::NoMemory {
                bytes: b - a,
                reason: os_error(e),
            })?;
            unfolded += b - a;
            if lo < a {
                kept.push((lo, a));
            }
            if b < hi {
                kept.push((b, hi));
            }
        }
        region.folded = kept;
        Ok(unfolded)
    }

    /// The folded parts of `addr .. addr + len`, as sorted offsets from
    /// `addr`.
    fn folded_parts(&self, addr: usize, len: usize) -> Vec<(usize, usize)> {
        let mut parts = Vec::new();
        if self.strategy == Strategy::No {
            return parts;
        }
        let end = addr + len;
        for (&base, r) in self.regions.range(..end).rev() {
            if base + r.len <= addr {
                break;
            }
            let first = r.folded.partition_point(|&(_, hi)| base + hi <= addr);
            for &(lo, hi) in &r.folded[first..] {
                if base + lo >= end {
                    break;
                }
                let (a, b) = ((base + lo).max(addr), (base + hi).min(end));
                parts.push((a - addr, b - addr));
            }
        }
        parts.sort_unstable();
        parts
    }

    /// Whether `addr .. addr + len` is all private, all folded, or both:
    /// one lookup and no allocation, for the copies of every message (most
    /// buffers are wholly one or the other).
    pub fn cover(&self, addr: usize, len: usize) -> Cover {
        if len == 0 {
            return Cover::Private;
        }
        let end = addr + len;
        // Regions are disjoint: if the last one starting before `end` ends
        // before `addr`, so do all the others.
        let Some((&base, region)) = self.regions.range(..end).next_back() else {
            return Cover::Private;
        };
        if base + region.len <= addr {
            return Cover::Private;
        }
        if base > addr || end > base + region.len {
            return Cover::Mixed;
        }
        let (lo, hi) = (addr - base, end - base);
        // The folded parts are sorted and disjoint: a binary search finds
        // the first that ends past `lo` (a region unfolded page by page
        // has thousands of parts).
        let parts = &region.folded;
        let first = parts.partition_point(|&(_, b)| b <= lo);
        let folded: usize = parts[first..]
            .iter()
            .take_while(|&&(a, _)| a < hi)
            .map(|&(a, b)| b.min(hi) - a.max(lo))
            .sum();
        if folded == 0 {
            Cover::Private
        } else if folded == len {
            Cover::Folded
        } else {
            Cover::Mixed
        }
    }

    /// `addr .. addr + len` cut into consecutive pieces, as offsets from
    /// `addr`, each with whether it is private (true) or folded (false).
    pub fn pieces(&self, addr: usize, len: usize) -> Vec<(usize, usize, bool)> {
        match self.cover(addr, len) {
            Cover::Private => return vec![(0, len, true)],
            Cover::Folded => return vec![(0, len, false)],
            Cover::Mixed => {}
        }
        let mut pieces = Vec::new();
        let mut at = 0;
        for (a, b) in self.folded_parts(addr, len) {
            if at < a {
                pieces.push((at, a, true));
            }
            if at.max(a) < b {
                pieces.push((at.max(a), b, false));
            }
            at = at.max(b);
        }
        if at < len {
            pieces.push((at, len, true));
        }
        pieces
    }

    /// The parts of `addr .. addr + len` that are not folded, as offsets
    /// from `addr`: where a copy into that memory must write. (Writing into
    /// folded memory is pointless: its content is meaningless, and the
    /// block it maps is overwritten by every other user.)
    pub fn private_parts(&self, addr: usize, len: usize) -> Vec<(usize, usize)> {
        match self.cover(addr, len) {
            Cover::Private => return vec![(0, len)],
            Cover::Folded => return Vec::new(),
            Cover::Mixed => {}
        }
        self.pieces(addr, len)
            .into_iter()
            .filter_map(|(lo, hi, private)| private.then_some((lo, hi)))
            .collect()
    }
}

/// `parts` sorted, overlapping or touching ones merged: the form of
/// [`Region::folded`].
fn sorted_disjoint(mut parts: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    parts.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(parts.len());
    for (lo, hi) in parts {
        match out.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// Reserves `len` bytes of address space aligned to `align` (a power of
/// two, at least a page), readable and writable, backed by private zeroed
/// pages until folded mappings replace them.
fn reserve(len: usize, align: usize) -> Result<*mut u8, FoldError> {
    let extra = if align > page_size() { align } else { 0 };
    // SAFETY: an anonymous private mapping with no address hint, so it
    // replaces nothing.
    let p = unsafe {
        mmap_anonymous(
            None,
            length(len + extra),
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            MapFlags::MAP_PRIVATE | MapFlags::MAP_NORESERVE,
        )
    }
    .map_err(|e| FoldError::NoMemory {
        bytes: len,
        reason: os_error(e),
    })?;
    let start = p.as_ptr() as usize;
    let base = start.next_multiple_of(align.max(1));
    if extra > 0 {
        let (head, tail) = (base - start, start + len + extra - (base + len));
        // SAFETY: both ranges lie in the mapping just made, outside
        // base .. base + len, and nobody has seen them.
        unsafe {
            if head > 0 {
                unmap(start, head);
            }
            if tail > 0 {
                unmap(base + len, tail);
            }
        }
    }
    Ok(base as *mut u8)
}

/// A file of `len` bytes in the hugetlbfs mounted at `dir`, unlinked at
/// once (it lives as long as its descriptor and mappings).
fn huge_file(dir: &std::path::Path, len: usize) -> Result<OwnedFd, FoldError> {
    use std::os::unix::fs::OpenOptionsExt;
    let name = dir.join(format!("smpi-shared-{}", std::process::id()));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&name)
        .map_err(|e| FoldError::NotHugetlbfs {
            path: dir.display().to_string(),
            reason: format!("cannot create {}: {e}", name.display()),
        })?;
    let _ = std::fs::remove_file(&name);
    if let Err(e) = file.set_len(len as u64) {
        return Err(no_huge_pages(dir, len, e.to_string()));
    }
    Ok(OwnedFd::from(file))
}

/// The error of a block that found no huge pages, with the counts.
fn no_huge_pages(dir: &std::path::Path, bytes: usize, reason: String) -> FoldError {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let field = |key: &str| -> usize {
        meminfo
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    let (total, free, size_kb) = (
        field("HugePages_Total:"),
        field("HugePages_Free:"),
        field("Hugepagesize:").max(1),
    );
    FoldError::NoHugePages {
        bytes,
        path: dir.display().to_string(),
        reason,
        free,
        total,
        suggested: total + (bytes / 1024).div_ceil(size_kb),
    }
}

impl Drop for Folding {
    fn drop(&mut self) {
        for (&base, r) in &self.regions {
            // SAFETY: every region was mapped by `allocate` and not freed.
            unsafe { unmap(base, r.len) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether all of `addr .. addr + len` is folded.
    fn is_folded(f: &Folding, addr: usize, len: usize) -> bool {
        f.folded_parts(addr, len) == vec![(0, len)]
    }

    #[test]
    fn global_folding_shares_one_block() {
        let mut f = Folding::new(Strategy::Global, 64 << 10);
        let a = f.allocate(1 << 20, "a.c", 1).unwrap();
        let b = f.allocate(256 << 10, "b.c", 2).unwrap();
        // SAFETY: both allocations are at least 256 KiB long.
        unsafe {
            a.write(7);
            // Every block of every allocation is the same physical block.
            assert_eq!(*a.add(64 << 10), 7);
            assert_eq!(*a.add(15 * (64 << 10)), 7);
            assert_eq!(*b.add(3 * (64 << 10)), 7);
        }
        assert!(is_folded(&f, a as usize + 100, 1000));
        assert!(!is_folded(&f, a as usize + (1 << 20), 1));
        f.free(a).unwrap();
        f.free(b).unwrap();
        assert_eq!(f.free(a), Err(FoldError::UnknownAddress(a as usize)));
    }

    #[test]
    fn local_folding_shares_per_call_site() {
        let mut f = Folding::new(Strategy::Local, 1 << 20);
        let a = f.allocate(8192, "x.c", 10).unwrap();
        let b = f.allocate(8192, "x.c", 10).unwrap();
        let c = f.allocate(8192, "x.c", 11).unwrap();
        // SAFETY: each allocation is 8 KiB long.
        unsafe {
            a.add(5000).write(3);
            assert_eq!(*b.add(5000), 3, "same site, same memory");
            assert_eq!(*c.add(5000), 0, "another site");
        }
        for p in [a, b, c] {
            f.free(p).unwrap();
        }
    }

    #[test]
    fn partial_folding_keeps_the_rest_private() {
        let page = page_size();
        let mut f = Folding::new(Strategy::Global, 4 * page);
        // Pages 2 .. 6 of 10 are shared (the range's ends are rounded
        // inwards to whole pages).
        let shared = [(2 * page - 100, 6 * page + 100)];
        let a = f.allocate_partial(10 * page, &shared).unwrap();
        let b = f.allocate_partial(10 * page, &shared).unwrap();
        // SAFETY: both allocations are 10 pages long.
        unsafe {
            a.add(2 * page).write(9);
            assert_eq!(*b.add(2 * page), 9, "shared page");
            a.add(page).write(5);
            assert_eq!(*b.add(page), 0, "private page");
        }
        assert!(is_folded(&f, a as usize + 3 * page, page));
        assert!(!is_folded(&f, a as usize + page, 10));
        assert!(!is_folded(&f, a as usize + 5 * page, 2 * page));
        f.free(a).unwrap();
        f.free(b).unwrap();
    }

    #[test]
    fn unfolded_pages_are_private_and_the_rest_stays_folded() {
        let page = page_size();
        let mut f = Folding::new(Strategy::Global, 4 * page);
        let a = f.allocate(8 * page, "a.c", 1).unwrap();
        let b = f.allocate(8 * page, "b.c", 2).unwrap();
        assert_eq!(f.len_of(a), Some(8 * page));
        assert_eq!(f.len_of(a.wrapping_add(1)), None);
        // 16 bytes across the boundary of pages 2 and 3: both become private.
        // SAFETY: a is 8 pages long.
        let at = unsafe { a.add(3 * page - 8) };
        assert_eq!(f.unfold(at, 16).unwrap(), 2 * page);
        // SAFETY: both allocations are 8 pages long.
        unsafe {
            at.write(42);
            assert_eq!(
                *b.add(3 * page - 8),
                0,
                "a's page 2 no longer maps the block"
            );
            a.write(7);
            assert_eq!(*b, 7, "page 0 is still folded");
        }
        assert!(!is_folded(&f, a as usize + 2 * page, 1));
        assert!(is_folded(&f, a as usize + 4 * page, page));
        assert_eq!(f.unfold(at, 16).unwrap(), 0, "already private");
        let mut plain = [0u8; 64];
        assert_eq!(f.unfold(plain.as_mut_ptr(), 64).unwrap(), 0);
        f.free(a).unwrap();
        f.free(b).unwrap();
    }

    #[test]
    fn cover_agrees_with_a_page_by_page_look_over_many_parts() {
        let page = page_size();
        let mut f = Folding::new(Strategy::Global, 4 * page);
        let n = 64;
        let a = f.allocate(n * page, "a.c", 1).unwrap();
        // Every third page unfolded, and a run of three: many parts.
        let mut private = vec![false; n];
        for p in (1..n).step_by(3).chain(40..43) {
            // SAFETY: a is n pages long.
            f.unfold(unsafe { a.add(p * page) }, 1).unwrap();
            private[p] = true;
        }
        // Shared ranges out of order and overlapping.
        let b = f
            .allocate_partial(
                16 * page,
                &[
                    (8 * page, 12 * page),
                    (page, 3 * page),
                    (2 * page, 5 * page),
                ],
            )
            .unwrap();
        let b_private: Vec<bool> = (0..16)
            .map(|p| !(1..5).contains(&p) && !(8..12).contains(&p))
            .collect();
        for (base, private) in [(a as usize, &private), (b as usize, &b_private)] {
            let pages = private.len();
            for first in 0..pages {
                for last in first..pages.min(first + 9) {
                    // From the middle of page `first` to the middle of `last`.
                    let (addr, len) = (base + first * page + page / 2, (last - first) * page + 1);
                    let all = |want: bool| (first..=last).all(|p| private[p] == want);
                    let expected = if all(true) {
                        Cover::Private
                    } else if all(false) {
                        Cover::Folded
                    } else {
                        Cover::Mixed
                    };
                    assert_eq!(f.cover(addr, len), expected, "pages {first}..={last}");
                }
            }
        }
        f.free(a).unwrap();
        f.free(b).unwrap();
    }

    #[test]
    fn huge_pages_need_a_hugetlbfs_mount() {
        let mut f = Folding::new(Strategy::Global, 1 << 20);
        let e = f.use_huge_pages(std::path::Path::new("/tmp")).unwrap_err();
        assert!(matches!(e, FoldError::NotHugetlbfs { .. }), "{e}");
        assert!(e.to_string().contains("mount -t hugetlbfs"), "{e}");
        // Nothing changed: folding goes on in normal pages.
        assert_eq!(f.block_size(), 1 << 20);
        let p = f.allocate(3 << 20, "t.c", 1).unwrap();
        f.free(p).unwrap();
    }

    #[test]
    fn copies_write_only_into_private_memory() {
        let page = page_size();
        let mut f = Folding::new(Strategy::Global, 4 * page);
        let mut plain = vec![0u8; 4 * page];
        let plain = plain.as_mut_ptr() as usize;
        assert_eq!(f.private_parts(plain, 100), vec![(0, 100)], "no folding");
        // Pages 1 .. 3 of 4 folded.
        let a = f.allocate_partial(4 * page, &[(page, 3 * page)]).unwrap() as usize;
        assert_eq!(
            f.private_parts(a, 4 * page),
            vec![(0, page), (3 * page, 4 * page)]
        );
        assert_eq!(
            f.pieces(a, 4 * page),
            vec![
                (0, page, true),
                (page, 3 * page, false),
                (3 * page, 4 * page, true)
            ]
        );
        assert_eq!(
            f.private_parts(a + page, 3 * page),
            vec![(2 * page, 3 * page)]
        );
        assert_eq!(f.private_parts(plain, 4 * page), vec![(0, 4 * page)]);
        let c = f.allocate(8 * page, "c.c", 1).unwrap() as usize;
        assert!(f.private_parts(c + 10, 4 * page).is_empty());
        // Across the end of a folded allocation into memory that is not.
        assert_eq!(
            f.private_parts(a + 2 * page, 2 * page),
            vec![(page, 2 * page)]
        );
        // The one-lookup summary agrees with the pieces.
        assert_eq!(f.cover(plain, 4 * page), Cover::Private);
        assert_eq!(f.cover(a, page), Cover::Private);
        assert_eq!(f.cover(a + page, 2 * page), Cover::Folded);
        assert_eq!(f.cover(a + page - 1, 2), Cover::Mixed);
        assert_eq!(f.cover(a, 4 * page), Cover::Mixed);
        assert_eq!(f.cover(c + 10, 4 * page), Cover::Folded);
        assert_eq!(f.cover(c + 8 * page - 1, 2), Cover::Mixed, "past its end");
        assert_eq!(f.cover(c, 0), Cover::Private);
        for p in [a, c] {
            f.free(p as *mut u8).unwrap();
        }
    }

    #[test]
    fn no_folding_is_private() {
        let mut f = Folding::new(Strategy::No, 1 << 20);
        let a = f.allocate(4096, "x.c", 1).unwrap();
        let b = f.allocate(4096, "x.c", 1).unwrap();
        // SAFETY: each allocation is a page long.
        unsafe {
            a.write(1);
            assert_eq!(*b, 0);
        }
        assert!(!is_folded(&f, a as usize, 1));
        f.free(a).unwrap();
        f.free(b).unwrap();
    }
}

//! The threads a rank's program starts (`pthread_create`), simulated: each
//! is an actor of its rank (an extra coroutine, with the rank's MPI
//! identity, host and globals; see `crate::actors`), scheduled by the
//! simulator like the ranks, in a deterministic order. This module holds
//! what the threads and the objects they block on are; `abi::pthread`
//! interposes the C functions and does the waiting.
//!
//! A synchronisation object is known by the memory that holds it: its
//! address, and the rank whose memory that is (a rank's globals may sit
//! at the same address as another rank's under swap privatization), or
//! [`SHARED`] for a process-shared object (`PTHREAD_PROCESS_SHARED`, a
//! semaphore with `pshared`), which every rank's threads may use. Objects
//! are made at their first use, as static initializers allow, and
//! forgotten when destroyed. Waiters queue in arrival order and are
//! handed what they wait for in that order (a mutex's ownership, a
//! semaphore's unit), so a run is the same every time.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

/// The owner of a process-shared object's key.
pub const SHARED: usize = usize::MAX;

/// A synchronisation object: the rank whose memory holds it (or
/// [`SHARED`]) and its address.
pub type Key = (usize, usize);

/// A mutex's type (`PTHREAD_MUTEX_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MutexKind {
    Normal,
    Recursive,
    ErrorCheck,
}

impl MutexKind {
    /// The type of glibc's `__kind` field (`PTHREAD_MUTEX_*` in its low
    /// bits; adaptive mutexes are normal ones that spin first).
    pub fn of_glibc_kind(kind: i32) -> MutexKind {
        match kind & 3 {
            1 => MutexKind::Recursive,
            2 => MutexKind::ErrorCheck,
            _ => MutexKind::Normal,
        }
    }
}

/// What a lock request got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    Acquired,
    /// Queued: the caller waits until it owns the object (or gives up).
    Queued,
    /// Refused with this error number (`EBUSY`, `EDEADLK`, `EAGAIN`).
    Refused(i32),
}

#[derive(Debug)]
struct Mutex {
    kind: MutexKind,
    owner: Option<usize>,
    /// Times the owner locked it (recursive mutexes count).
    count: u32,
    waiters: VecDeque<usize>,
}

#[derive(Debug, Default)]
struct RwLock {
    readers: u32,
    writer: Option<usize>,
    /// Waiting actors and whether each wants to write.
    queue: VecDeque<(usize, bool)>,
}

#[derive(Debug)]
struct Barrier {
    count: u32,
    arrived: Vec<usize>,
    /// How many times it opened: a waiter leaves when it changes.
    generation: u64,
}

#[derive(Debug)]
struct Semaphore {
    value: u32,
    waiters: VecDeque<usize>,
}

/// A simulated thread.
struct Thread {
    /// Its `pthread_t`: the address of a zeroed block of its own, so that
    /// it is unique, stable, and readable by the C library functions
    /// that look into a `pthread_t`.
    id: Box<[u64; 512]>,
    /// What its start routine returned or `pthread_exit` passed.
    result: usize,
    detached: bool,
    done: bool,
    /// The actor waiting in `pthread_join` for it.
    joiner: Option<usize>,
    /// It called `exit`: its whole rank ends.
    exits_rank: bool,
}

/// The simulated threads and what they block on (see the module's
/// documentation).
#[derive(Default)]
pub struct Threads {
    threads: FxHashMap<usize, Thread>,
    /// Core actor by `pthread_t`.
    by_id: FxHashMap<usize, usize>,
    /// Threads each rank started so far (for their names).
    started: FxHashMap<usize, usize>,
    mutexes: FxHashMap<Key, Mutex>,
    conds: FxHashMap<Key, VecDeque<usize>>,
    rwlocks: FxHashMap<Key, RwLock>,
    barriers: FxHashMap<Key, Barrier>,
    semaphores: FxHashMap<Key, Semaphore>,
    /// Actors waiting for a `pthread_once` in progress, by address.
    once_waiters: FxHashMap<usize, Vec<usize>>,
    /// The thread-specific data keys made on ranks, with their
    /// destructors (0: none), and each actor's values of them.
    keys: FxHashMap<u32, usize>,
    values: FxHashMap<(usize, u32), usize>,
    /// Addresses of process-shared objects.
    shared: FxHashSet<usize>,
    /// The ranks whose main thread waits in `pthread_exit`.
    exit_waiters: FxHashSet<usize>,
}

impl Threads {
    /// Whether any thread was ever started: until then every call is the
    /// C library's, but for the few that must always be followed.
    pub fn any(&self) -> bool {
        !self.threads.is_empty()
    }

    /// The key of the object at `addr` in `rank`'s memory.
    pub fn key(&self, rank: usize, addr: usize) -> Key {
        if self.shared.contains(&addr) {
            (SHARED, addr)
        } else {
            (rank, addr)
        }
    }

    /// Notes that the object at `addr` is process-shared (or not).
    pub fn set_shared(&mut self, addr: usize, shared: bool) {
        if shared {
            self.shared.insert(addr);
        } else {
            self.shared.remove(&addr);
        }
    }

    // --- threads -------------------------------------------------------

    /// The name of the next thread `rank` starts: "thread N", N from 1.
    pub fn next_name(&mut self, rank: usize) -> String {
        let n = self.started.entry(rank).or_insert(0);
        *n += 1;
        format!("thread {n}")
    }

    /// Records thread `actor`, just started; its `pthread_t`.
    pub fn add(&mut self, actor: usize) -> usize {
        let thread = Thread {
            id: Box::new([0; 512]),
            result: 0,
            detached: false,
            done: false,
            joiner: None,
            exits_rank: false,
        };
        let id = thread.id.as_ptr() as usize;
        self.threads.insert(actor, thread);
        self.by_id.insert(id, actor);
        id
    }

    /// Whether `actor` is a simulated thread.
    pub fn is_thread(&self, actor: usize) -> bool {
        self.threads.contains_key(&actor)
    }

    /// The `pthread_t` of simulated thread `actor`.
    pub fn id_of(&self, actor: usize) -> Option<usize> {
        self.threads.get(&actor).map(|t| t.id.as_ptr() as usize)
    }

    /// The simulated thread whose `pthread_t` is `id`.
    pub fn actor_of(&self, id: usize) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// Records what thread `actor` ends with (before it ends).
    pub fn set_result(&mut self, actor: usize, result: usize) {
        if let Some(t) = self.threads.get_mut(&actor) {
            t.result = result;
        }
    }

    /// Notes that thread `actor` called `exit`: its rank ends with it.
    pub fn exit_rank(&mut self, actor: usize) {
        if let Some(t) = self.threads.get_mut(&actor) {
            t.exits_rank = true;
        }
    }

    /// Whether thread `actor` called `exit`.
    pub fn exits_rank(&self, actor: usize) -> bool {
        self.threads.get(&actor).is_some_and(|t| t.exits_rank)
    }

    /// Records that `actor` ended: the actor joining it, if one waits, to
    /// wake.
    pub fn ended(&mut self, actor: usize) -> Option<usize> {
        let t = self.threads.get_mut(&actor).filter(|t| !t.done)?;
        t.done = true;
        let joiner = t.joiner.take();
        self.values.retain(|&(a, _), _| a != actor);
        joiner
    }

    /// Notes that `rank`'s main thread waits in `pthread_exit` for the
    /// rank's other threads to end.
    pub fn wait_for_threads(&mut self, rank: usize) {
        self.exit_waiters.insert(rank);
    }

    /// Whether `rank`'s main thread waits in `pthread_exit`.
    pub fn waits_for_threads(&self, rank: usize) -> bool {
        self.exit_waiters.contains(&rank)
    }

    /// Starts joining thread `target` from `actor`: `Ok(Some(result))` if
    /// it is done, `Ok(None)` if the caller must wait, or the error
    /// (`ESRCH`, `EINVAL`: detached or joined by another, `EDEADLK`).
    pub fn join(&mut self, target: usize, actor: usize) -> Result<Option<usize>, i32> {
        if target == actor {
            return Err(libc::EDEADLK);
        }
        let Some(t) = self.threads.get_mut(&target) else {
            return Err(libc::ESRCH);
        };
        if t.detached || t.joiner.is_some_and(|j| j != actor) {
            return Err(libc::EINVAL);
        }
        if t.done {
            t.detached = true;
            return Ok(Some(t.result));
        }
        t.joiner = Some(actor);
        Ok(None)
    }

    /// Detaches thread `target` (`ESRCH` if unknown, `EINVAL` if already).
    pub fn detach(&mut self, target: usize) -> Result<(), i32> {
        let Some(t) = self.threads.get_mut(&target) else {
            return Err(libc::ESRCH);
        };
        if t.detached {
            return Err(libc::EINVAL);
        }
        t.detached = true;
        Ok(())
    }

    /// The simulated threads among `actors` that are not done.
    pub fn live_of(&self, actors: impl Iterator<Item = usize>) -> Vec<usize> {
        actors
            .filter(|a| self.threads.get(a).is_some_and(|t| !t.done))
            .collect()
    }

    // --- mutexes -------------------------------------------------------

    /// Locks mutex `key` (of type `kind` if new) for `actor`; with `wait`
    /// false, never queues (`EBUSY`).
    pub fn mutex_lock(&mut self, key: Key, kind: MutexKind, actor: usize, wait: bool) -> Lock {
        let m = self.mutexes.entry(key).or_insert_with(|| Mutex {
            kind,
            owner: None,
            count: 0,
            waiters: VecDeque::new(),
        });
        match m.owner {
            None => {
                m.owner = Some(actor);
                m.count = 1;
                Lock::Acquired
            }
            Some(o) if o == actor => match m.kind {
                MutexKind::Recursive => {
                    m.count += 1;
                    Lock::Acquired
                }
                MutexKind::ErrorCheck => Lock::Refused(libc::EDEADLK),
                MutexKind::Normal if !wait => Lock::Refused(libc::EBUSY),
                // A normal mutex locked again by its owner never opens:
                // the deadlock report names the call.
                MutexKind::Normal => {
                    m.waiters.push_back(actor);
                    Lock::Queued
                }
            },
            Some(_) if !wait => Lock::Refused(libc::EBUSY),
            Some(_) => {
                m.waiters.push_back(actor);
                Lock::Queued
            }
        }
    }

    /// Whether `actor` owns mutex `key`.
    pub fn mutex_owned(&self, key: Key, actor: usize) -> bool {
        self.mutexes
            .get(&key)
            .is_some_and(|m| m.owner == Some(actor))
    }

    /// `actor` stops waiting for mutex `key` (a timed lock ran out).
    pub fn mutex_give_up(&mut self, key: Key, actor: usize) {
        if let Some(m) = self.mutexes.get_mut(&key) {
            m.waiters.retain(|&w| w != actor);
        }
    }

    /// Unlocks mutex `key` by `actor` (all the way with `all`, for a
    /// condition wait): the recursion count it held, and the waiter it
    /// hands the mutex to, to wake; `EPERM` if `actor` does not own it
    /// and the type checks.
    pub fn mutex_unlock(
        &mut self,
        key: Key,
        actor: usize,
        all: bool,
    ) -> Result<(u32, Option<usize>), i32> {
        let Some(m) = self.mutexes.get_mut(&key) else {
            // Never locked (by a simulated thread): as glibc for a normal
            // mutex.
            return Ok((0, None));
        };
        if m.owner != Some(actor) {
            return match m.kind {
                MutexKind::Normal if m.owner.is_none() => Ok((0, None)),
                // glibc does not check a normal mutex's owner: the
                // unlock opens it.
                MutexKind::Normal => Ok((0, m.hand_over())),
                _ => Err(libc::EPERM),
            };
        }
        let held = m.count;
        if !all && m.count > 1 {
            m.count -= 1;
            return Ok((held, None));
        }
        Ok((held, m.hand_over()))
    }

    /// Sets the recursion count of mutex `key`, which `actor` now owns
    /// again after a condition wait.
    pub fn mutex_restore(&mut self, key: Key, count: u32) {
        if let Some(m) = self.mutexes.get_mut(&key) {
            m.count = count.max(1);
        }
    }

    /// Destroys mutex `key`: `EBUSY` if locked.
    pub fn mutex_destroy(&mut self, key: Key) -> Result<(), i32> {
        match self.mutexes.get(&key) {
            Some(m) if m.owner.is_some() || !m.waiters.is_empty() => Err(libc::EBUSY),
            _ => {
                self.mutexes.remove(&key);
                Ok(())
            }
        }
    }

    // --- condition variables -------------------------------------------

    /// `actor` waits on condition `key`.
    pub fn cond_enter(&mut self, key: Key, actor: usize) {
        self.conds.entry(key).or_default().push_back(actor);
    }

    /// Whether `actor` still waits on condition `key` (not signalled).
    pub fn cond_waiting(&self, key: Key, actor: usize) -> bool {
        self.conds.get(&key).is_some_and(|w| w.contains(&actor))
    }

    /// `actor` stops waiting on condition `key` (its wait timed out).
    pub fn cond_leave(&mut self, key: Key, actor: usize) {
        if let Some(w) = self.conds.get_mut(&key) {
            w.retain(|&a| a != actor);
        }
    }

    /// Signals condition `key`: the waiter to wake, if one waits (or all
    /// of them with `all`).
    pub fn cond_signal(&mut self, key: Key, all: bool) -> Vec<usize> {
        let Some(w) = self.conds.get_mut(&key) else {
            return Vec::new();
        };
        if all {
            w.drain(..).collect()
        } else {
            w.pop_front().into_iter().collect()
        }
    }

    /// Destroys condition `key`: `EBUSY` if threads wait on it.
    pub fn cond_destroy(&mut self, key: Key) -> Result<(), i32> {
        if self.conds.get(&key).is_some_and(|w| !w.is_empty()) {
            return Err(libc::EBUSY);
        }
        self.conds.remove(&key);
        Ok(())
    }

    // --- read-write locks ----------------------------------------------

    /// Locks read-write lock `key` for `actor`, to write or to read
    /// (readers first, as glibc's default: a reader enters while no
    /// writer holds it).
    pub fn rwlock_lock(&mut self, key: Key, actor: usize, write: bool, wait: bool) -> Lock {
        let l = self.rwlocks.entry(key).or_default();
        if l.writer == Some(actor) {
            // glibc: the try forms find it busy, the others a deadlock.
            return Lock::Refused(if wait { libc::EDEADLK } else { libc::EBUSY });
        }
        let free = l.writer.is_none() && (!write || l.readers == 0);
        if free {
            if write {
                l.writer = Some(actor);
            } else {
                l.readers += 1;
            }
            return Lock::Acquired;
        }
        if !wait {
            return Lock::Refused(libc::EBUSY);
        }
        l.queue.push_back((actor, write));
        Lock::Queued
    }

    /// Whether `actor` still waits for read-write lock `key`.
    pub fn rwlock_waiting(&self, key: Key, actor: usize) -> bool {
        self.rwlocks
            .get(&key)
            .is_some_and(|l| l.queue.iter().any(|&(a, _)| a == actor))
    }

    /// `actor` stops waiting for read-write lock `key` (timed out).
    pub fn rwlock_give_up(&mut self, key: Key, actor: usize) {
        if let Some(l) = self.rwlocks.get_mut(&key) {
            l.queue.retain(|&(a, _)| a != actor);
        }
    }

    /// Unlocks read-write lock `key` held by `actor`: the waiters it lets
    /// in, to wake (the first writer, or every reader waiting).
    pub fn rwlock_unlock(&mut self, key: Key, actor: usize) -> Result<Vec<usize>, i32> {
        let Some(l) = self.rwlocks.get_mut(&key) else {
            return Err(libc::EPERM);
        };
        if l.writer == Some(actor) {
            l.writer = None;
        } else if l.readers > 0 {
            l.readers -= 1;
        } else {
            return Err(libc::EPERM);
        }
        if l.writer.is_some() || l.readers > 0 {
            return Ok(Vec::new());
        }
        let mut woken = Vec::new();
        if let Some(&(first, true)) = l.queue.front() {
            l.queue.pop_front();
            l.writer = Some(first);
            woken.push(first);
        } else {
            l.queue.retain(|&(a, write)| {
                if !write {
                    woken.push(a);
                }
                write
            });
            l.readers = woken.len() as u32;
        }
        Ok(woken)
    }

    /// Destroys read-write lock `key`: `EBUSY` if held.
    pub fn rwlock_destroy(&mut self, key: Key) -> Result<(), i32> {
        match self.rwlocks.get(&key) {
            Some(l) if l.writer.is_some() || l.readers > 0 || !l.queue.is_empty() => {
                Err(libc::EBUSY)
            }
            _ => {
                self.rwlocks.remove(&key);
                Ok(())
            }
        }
    }

    // --- barriers ------------------------------------------------------

    /// Makes barrier `key` for `count` threads (`EINVAL` for 0).
    pub fn barrier_init(&mut self, key: Key, count: u32) -> Result<(), i32> {
        if count == 0 {
            return Err(libc::EINVAL);
        }
        self.barriers.insert(
            key,
            Barrier {
                count,
                arrived: Vec::new(),
                generation: 0,
            },
        );
        Ok(())
    }

    /// Whether barrier `key` exists (made on a rank).
    pub fn has_barrier(&self, key: Key) -> bool {
        self.barriers.contains_key(&key)
    }

    /// `actor` arrives at barrier `key`: `Ok((generation, woken))`, with
    /// the waiters to wake when it is the last (then it opened and the
    /// generation returned is the new one), else the generation to wait
    /// past.
    pub fn barrier_arrive(&mut self, key: Key, actor: usize) -> Option<(u64, Vec<usize>, bool)> {
        let b = self.barriers.get_mut(&key)?;
        if b.arrived.len() + 1 >= b.count as usize {
            b.generation += 1;
            let woken = std::mem::take(&mut b.arrived);
            return Some((b.generation, woken, true));
        }
        b.arrived.push(actor);
        Some((b.generation, Vec::new(), false))
    }

    /// The generation of barrier `key`.
    pub fn barrier_generation(&self, key: Key) -> u64 {
        self.barriers.get(&key).map_or(u64::MAX, |b| b.generation)
    }

    /// Destroys barrier `key`: `EBUSY` while threads wait at it.
    pub fn barrier_destroy(&mut self, key: Key) -> Result<(), i32> {
        if self
            .barriers
            .get(&key)
            .is_some_and(|b| !b.arrived.is_empty())
        {
            return Err(libc::EBUSY);
        }
        self.barriers.remove(&key);
        Ok(())
    }

    // --- semaphores ----------------------------------------------------

    /// Makes semaphore `key` with `value`.
    pub fn sem_init(&mut self, key: Key, value: u32) {
        self.semaphores.insert(
            key,
            Semaphore {
                value,
                waiters: VecDeque::new(),
            },
        );
    }

    /// Whether semaphore `key` exists (made on a rank).
    pub fn has_sem(&self, key: Key) -> bool {
        self.semaphores.contains_key(&key)
    }

    /// Takes a unit of semaphore `key` for `actor`, or queues it (or
    /// refuses, `EAGAIN`, without `wait`).
    pub fn sem_wait(&mut self, key: Key, actor: usize, wait: bool) -> Lock {
        let Some(s) = self.semaphores.get_mut(&key) else {
            return Lock::Refused(libc::EINVAL);
        };
        if s.value > 0 {
            s.value -= 1;
            Lock::Acquired
        } else if wait {
            s.waiters.push_back(actor);
            Lock::Queued
        } else {
            Lock::Refused(libc::EAGAIN)
        }
    }

    /// Whether `actor` still waits for semaphore `key`.
    pub fn sem_waiting(&self, key: Key, actor: usize) -> bool {
        self.semaphores
            .get(&key)
            .is_some_and(|s| s.waiters.contains(&actor))
    }

    /// `actor` stops waiting for semaphore `key` (timed out).
    pub fn sem_give_up(&mut self, key: Key, actor: usize) {
        if let Some(s) = self.semaphores.get_mut(&key) {
            s.waiters.retain(|&a| a != actor);
        }
    }

    /// Posts semaphore `key`: the waiter given the unit, to wake.
    pub fn sem_post(&mut self, key: Key) -> Result<Option<usize>, i32> {
        let s = self.semaphores.get_mut(&key).ok_or(libc::EINVAL)?;
        if let Some(w) = s.waiters.pop_front() {
            return Ok(Some(w));
        }
        s.value = s.value.checked_add(1).ok_or(libc::EOVERFLOW)?;
        Ok(None)
    }

    /// The value of semaphore `key` (0 while threads wait).
    pub fn sem_value(&self, key: Key) -> Option<u32> {
        self.semaphores.get(&key).map(|s| s.value)
    }

    /// Destroys semaphore `key`.
    pub fn sem_destroy(&mut self, key: Key) -> Result<(), i32> {
        self.semaphores.remove(&key).map(|_| ()).ok_or(libc::EINVAL)
    }

    // --- pthread_once --------------------------------------------------

    /// `actor` waits for the `pthread_once` at `addr` run by another.
    pub fn once_wait(&mut self, addr: usize, actor: usize) {
        self.once_waiters.entry(addr).or_default().push(actor);
    }

    /// Whether `actor` waits for the `pthread_once` at `addr`.
    pub fn once_waiting(&self, addr: usize, actor: usize) -> bool {
        self.once_waiters
            .get(&addr)
            .is_some_and(|w| w.contains(&actor))
    }

    /// The `pthread_once` at `addr` is done: the waiters to wake.
    pub fn once_done(&mut self, addr: usize) -> Vec<usize> {
        self.once_waiters.remove(&addr).unwrap_or_default()
    }

    // --- thread-specific data ------------------------------------------

    /// Notes key `key`, made on a rank with `destructor` (0: none).
    pub fn key_create(&mut self, key: u32, destructor: usize) {
        self.keys.insert(key, destructor);
    }

    /// Whether `key` was made on a rank (its values are then each
    /// actor's own).
    pub fn is_key(&self, key: u32) -> bool {
        self.keys.contains_key(&key)
    }

    /// Deletes `key` (its values are dropped, no destructor runs).
    pub fn key_delete(&mut self, key: u32) {
        self.keys.remove(&key);
        self.values.retain(|&(_, k), _| k != key);
    }

    /// `actor`'s value of `key` (0: none).
    pub fn get_value(&self, actor: usize, key: u32) -> usize {
        self.values.get(&(actor, key)).copied().unwrap_or(0)
    }

    /// Sets `actor`'s value of `key`.
    pub fn set_value(&mut self, actor: usize, key: u32, value: usize) {
        if value == 0 {
            self.values.remove(&(actor, key));
        } else {
            self.values.insert((actor, key), value);
        }
    }

    /// Takes one of `actor`'s non-null values that has a destructor, to
    /// run it (its value is reset first, as POSIX says), in key order.
    pub fn take_destructible(&mut self, actor: usize) -> Option<(usize, usize)> {
        let (&(_, key), &value) = self
            .values
            .iter()
            .filter(|(&(a, k), _)| a == actor && self.keys.get(&k).is_some_and(|&d| d != 0))
            .min_by_key(|(&(_, k), _)| k)?;
        self.values.remove(&(actor, key));
        Some((self.keys[&key], value))
    }
}

impl Mutex {
    /// Opens the mutex to its first waiter, which then owns it: the
    /// waiter to wake.
    fn hand_over(&mut self) -> Option<usize> {
        self.owner = self.waiters.pop_front();
        self.count = u32::from(self.owner.is_some());
        self.owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Key = (0, 0x1000);

    #[test]
    fn a_mutex_goes_to_its_waiters_in_arrival_order() {
        let mut t = Threads::default();
        assert_eq!(t.mutex_lock(M, MutexKind::Normal, 1, true), Lock::Acquired);
        assert_eq!(t.mutex_lock(M, MutexKind::Normal, 2, true), Lock::Queued);
        assert_eq!(t.mutex_lock(M, MutexKind::Normal, 3, true), Lock::Queued);
        assert_eq!(
            t.mutex_lock(M, MutexKind::Normal, 4, false),
            Lock::Refused(libc::EBUSY)
        );
        assert_eq!(t.mutex_unlock(M, 1, false), Ok((1, Some(2))));
        assert!(t.mutex_owned(M, 2));
        assert_eq!(t.mutex_destroy(M), Err(libc::EBUSY));
        assert_eq!(t.mutex_unlock(M, 2, false), Ok((1, Some(3))));
        assert_eq!(t.mutex_unlock(M, 3, false), Ok((1, None)));
        assert_eq!(t.mutex_destroy(M), Ok(()));
    }

    #[test]
    fn recursive_and_error_checking_mutexes_know_their_owner() {
        let mut t = Threads::default();
        assert_eq!(
            t.mutex_lock(M, MutexKind::Recursive, 1, true),
            Lock::Acquired
        );
        assert_eq!(
            t.mutex_lock(M, MutexKind::Recursive, 1, true),
            Lock::Acquired
        );
        assert_eq!(t.mutex_unlock(M, 2, false), Err(libc::EPERM));
        assert_eq!(t.mutex_unlock(M, 1, false), Ok((2, None)));
        assert!(t.mutex_owned(M, 1));
        assert_eq!(t.mutex_unlock(M, 1, false), Ok((1, None)));
        let e: Key = (0, 0x2000);
        assert_eq!(
            t.mutex_lock(e, MutexKind::ErrorCheck, 1, true),
            Lock::Acquired
        );
        assert_eq!(
            t.mutex_lock(e, MutexKind::ErrorCheck, 1, true),
            Lock::Refused(libc::EDEADLK)
        );
    }

    #[test]
    fn readers_share_a_rwlock_and_a_writer_waits_for_them() {
        let mut t = Threads::default();
        assert_eq!(t.rwlock_lock(M, 1, false, true), Lock::Acquired);
        assert_eq!(t.rwlock_lock(M, 2, false, true), Lock::Acquired);
        assert_eq!(t.rwlock_lock(M, 3, true, true), Lock::Queued);
        assert_eq!(t.rwlock_unlock(M, 1), Ok(vec![]));
        assert_eq!(t.rwlock_unlock(M, 2), Ok(vec![3]));
        assert!(!t.rwlock_waiting(M, 3));
        assert_eq!(t.rwlock_lock(M, 4, false, true), Lock::Queued);
        assert_eq!(t.rwlock_lock(M, 5, false, true), Lock::Queued);
        assert_eq!(t.rwlock_unlock(M, 3), Ok(vec![4, 5]));
    }

    #[test]
    fn a_semaphore_hands_each_post_to_the_oldest_waiter() {
        let mut t = Threads::default();
        t.sem_init(M, 1);
        assert_eq!(t.sem_wait(M, 1, true), Lock::Acquired);
        assert_eq!(t.sem_wait(M, 2, false), Lock::Refused(libc::EAGAIN));
        assert_eq!(t.sem_wait(M, 2, true), Lock::Queued);
        assert_eq!(t.sem_wait(M, 3, true), Lock::Queued);
        assert_eq!(t.sem_post(M), Ok(Some(2)));
        assert!(!t.sem_waiting(M, 2) && t.sem_waiting(M, 3));
        t.sem_give_up(M, 3);
        assert_eq!(t.sem_post(M), Ok(None));
        assert_eq!(t.sem_value(M), Some(1));
    }

    #[test]
    fn a_barrier_opens_for_its_last_arrival() {
        let mut t = Threads::default();
        t.barrier_init(M, 3).unwrap();
        assert_eq!(t.barrier_arrive(M, 1), Some((0, vec![], false)));
        assert_eq!(t.barrier_arrive(M, 2), Some((0, vec![], false)));
        assert_eq!(t.barrier_arrive(M, 3), Some((1, vec![1, 2], true)));
        assert_eq!(t.barrier_generation(M), 1);
    }

    #[test]
    fn a_join_gets_the_result_once() {
        let mut t = Threads::default();
        assert_eq!(t.next_name(0), "thread 1");
        let id = t.add(5);
        assert_eq!(t.actor_of(id), Some(5));
        assert_eq!(t.join(5, 0), Ok(None));
        assert_eq!(t.join(5, 1), Err(libc::EINVAL));
        t.set_result(5, 42);
        assert_eq!(t.ended(5), Some(0));
        assert_eq!(t.ended(5), None);
        assert_eq!(t.join(5, 0), Ok(Some(42)));
        assert_eq!(t.join(5, 0), Err(libc::EINVAL));
    }

    #[test]
    fn destructors_run_on_the_values_left() {
        let mut t = Threads::default();
        t.key_create(3, 0xd0);
        t.key_create(4, 0);
        t.set_value(7, 3, 0x10);
        t.set_value(7, 4, 0x20);
        t.set_value(8, 3, 0x30);
        assert_eq!(t.take_destructible(7), Some((0xd0, 0x10)));
        assert_eq!(t.get_value(7, 3), 0);
        assert_eq!(t.take_destructible(7), None);
        assert_eq!(t.get_value(8, 3), 0x30);
    }
}

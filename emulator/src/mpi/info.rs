//! Info objects: ordered lists of (key, value) hints, with MPI's rules
//! for keys and values.

use super::ledger::Kind;
use super::{class, Ctx, Mpi, MpiError, MpiResult, INFO_ENV, INFO_NULL};

/// MPI_MAX_INFO_KEY and MPI_MAX_INFO_VAL (mpi.h): the longest key and
/// value, in bytes.
pub const MAX_KEY: usize = 255;
pub const MAX_VALUE: usize = 1024;

/// Checks an info key: 1 to MPI_MAX_INFO_KEY bytes.
pub fn check_key(key: &str) -> MpiResult<()> {
    if key.is_empty() || key.len() > MAX_KEY {
        return Err(MpiError::new(
            class::INFO_KEY,
            format!(
                "info keys have 1 to {MAX_KEY} characters, '{key}' has {}",
                key.len()
            ),
        ));
    }
    Ok(())
}

type Entries = Vec<(String, String)>;

impl Mpi {
    /// The hints of an info object, MPI_INFO_NULL meaning none.
    pub fn hints(&mut self, handle: i32) -> MpiResult<Entries> {
        if handle == INFO_NULL {
            return Ok(Vec::new());
        }
        self.info_mut(handle).map(|e| e.clone())
    }

    /// Checks an info argument: MPI_INFO_NULL or a live info object.
    pub fn check_info(&mut self, handle: i32) -> MpiResult<()> {
        if handle == INFO_NULL {
            return Ok(());
        }
        self.info_mut(handle).map(drop)
    }

    /// The entries of an info object.
    pub fn info_mut(&mut self, handle: i32) -> MpiResult<&mut Entries> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.infos.get_mut(h))
            .and_then(Option::as_mut)
            .ok_or_else(|| MpiError::new(class::INFO, format!("invalid info handle {handle}")))
    }

    /// Stores a new info object; returns its handle.
    pub fn add_info(&mut self, entries: Entries) -> i32 {
        match self.infos.iter().skip(2).position(Option::is_none) {
            Some(i) => {
                self.infos[i + 2] = Some(entries);
                (i + 2) as i32
            }
            None => {
                self.infos.push(Some(entries));
                (self.infos.len() - 1) as i32
            }
        }
    }

    /// Frees an info object (MPI_INFO_ENV cannot be freed).
    pub fn free_info(&mut self, handle: i32) -> MpiResult<()> {
        self.info_mut(handle)?;
        if handle == INFO_ENV {
            return Err(MpiError::new(class::INFO, "MPI_INFO_ENV cannot be freed"));
        }
        self.infos[handle as usize] = None;
        Ok(())
    }

    /// MPI_Info_set: a new key goes last, a known one keeps its place.
    pub fn info_set(&mut self, handle: i32, key: String, value: String) -> MpiResult<()> {
        if value.len() > MAX_VALUE {
            return Err(MpiError::new(
                class::INFO_VALUE,
                format!("info values have at most {MAX_VALUE} characters"),
            ));
        }
        let e = self.info_mut(handle)?;
        match e.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => e.push((key, value)),
        }
        Ok(())
    }

    /// MPI_Info_get: the value of `key`, if set.
    pub fn info_get(&mut self, handle: i32, key: &str) -> MpiResult<Option<String>> {
        let e = self.info_mut(handle)?;
        Ok(e.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
    }

    /// MPI_Info_delete.
    pub fn info_delete(&mut self, handle: i32, key: &str) -> MpiResult<()> {
        let e = self.info_mut(handle)?;
        match e.iter().position(|(k, _)| k == key) {
            Some(p) => {
                e.remove(p);
                Ok(())
            }
            None => Err(MpiError::new(
                class::INFO_NOKEY,
                format!("no key '{key}' in the info object"),
            )),
        }
    }

    /// MPI_Info_get_nkeys.
    pub fn info_nkeys(&mut self, handle: i32) -> MpiResult<usize> {
        self.info_mut(handle).map(|e| e.len())
    }

    /// MPI_Info_get_nthkey: keys are numbered in the order they were
    /// first set.
    pub fn info_nthkey(&mut self, handle: i32, n: i32) -> MpiResult<String> {
        let e = self.info_mut(handle)?;
        usize::try_from(n)
            .ok()
            .and_then(|i| e.get(i))
            .map(|(k, _)| k.clone())
            .ok_or_else(|| {
                MpiError::new(
                    class::ARG,
                    format!("key number {n} of an info object with {} keys", e.len()),
                )
            })
    }

    /// MPI_Info_dup (and MPI_Info_create_env, a copy of MPI_INFO_ENV).
    pub fn info_dup(&mut self, handle: i32) -> MpiResult<i32> {
        let copy = self.info_mut(handle)?.clone();
        Ok(self.add_info(copy))
    }
}

/// The info calls that make and free the running rank's objects.
impl Ctx<'_> {
    /// A new info object with `entries`; its handle.
    pub fn new_info(&mut self, entries: Entries) -> i32 {
        let h = self.mpi.add_info(entries);
        self.note_created(Kind::Info, h);
        h
    }

    /// MPI_Info_dup (and MPI_Info_create_env, a copy of MPI_INFO_ENV).
    pub fn info_dup(&mut self, handle: i32) -> MpiResult<i32> {
        let h = self.mpi.info_dup(handle)?;
        self.note_created(Kind::Info, h);
        Ok(h)
    }

    /// MPI_Info_free.
    pub fn free_info(&mut self, handle: i32) -> MpiResult<()> {
        self.mpi.free_info(handle)?;
        self.note_freed(Kind::Info, handle);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::mpi::Protocol;

    fn mpi() -> Mpi {
        let protocol =
            Protocol::from_config(&Config::new(&[crate::mpi::protocol::OPTIONS]), false).unwrap();
        Mpi::new(2, protocol)
    }

    #[test]
    fn keys_have_1_to_255_characters() {
        assert!(check_key("cb_nodes").is_ok());
        assert!(check_key(&"k".repeat(MAX_KEY)).is_ok());
        let e = check_key("").unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (
                class::INFO_KEY,
                "info keys have 1 to 255 characters, '' has 0"
            )
        );
        assert_eq!(
            check_key(&"k".repeat(MAX_KEY + 1)).unwrap_err().class,
            class::INFO_KEY
        );
    }

    #[test]
    fn keys_keep_the_order_they_were_first_set() {
        let mut m = mpi();
        let h = m.add_info(Vec::new());
        for (k, v) in [("b", "1"), ("a", "2"), ("b", "3")] {
            m.info_set(h, k.into(), v.into()).unwrap();
        }
        assert_eq!(m.info_nkeys(h).unwrap(), 2);
        assert_eq!(m.info_nthkey(h, 0).unwrap(), "b");
        assert_eq!(m.info_get(h, "b").unwrap().as_deref(), Some("3"));
        let e = m.info_nthkey(h, 2).unwrap_err();
        assert_eq!(
            (e.class, e.message.as_str()),
            (class::ARG, "key number 2 of an info object with 2 keys")
        );
        let long = "v".repeat(MAX_VALUE + 1);
        assert_eq!(
            m.info_set(h, "c".into(), long).unwrap_err().class,
            class::INFO_VALUE
        );
        m.info_delete(h, "b").unwrap();
        assert_eq!(m.info_nthkey(h, 0).unwrap(), "a");
        assert_eq!(m.info_delete(h, "b").unwrap_err().class, class::INFO_NOKEY);
    }

    #[test]
    fn dup_copies_and_the_environment_stays() {
        let mut m = mpi();
        let env = m.info_dup(INFO_ENV).unwrap();
        assert_eq!(m.info_get(env, "maxprocs").unwrap().as_deref(), Some("2"));
        m.info_set(env, "maxprocs".into(), "9".into()).unwrap();
        assert_eq!(
            m.info_get(INFO_ENV, "maxprocs").unwrap().as_deref(),
            Some("2")
        );
        assert_eq!(m.free_info(INFO_ENV).unwrap_err().class, class::INFO);
        assert!(m.check_info(INFO_NULL).is_ok());
        m.free_info(env).unwrap();
        assert_eq!(m.check_info(env).unwrap_err().class, class::INFO);
    }
}

//! Info objects: lists of (key, value) hints.

use super::{class, Mpi, MpiError, MpiResult, INFO_ENV, INFO_NULL};

impl Mpi {
    /// The hints of an info object, MPI_INFO_NULL meaning none.
    pub fn hints(&mut self, handle: i32) -> MpiResult<Vec<(String, String)>> {
        if handle == INFO_NULL {
            return Ok(Vec::new());
        }
        self.info_mut(handle).map(|e| e.clone())
    }

    /// The entries of an info object.
    pub fn info_mut(&mut self, handle: i32) -> MpiResult<&mut Vec<(String, String)>> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.infos.get_mut(h))
            .and_then(Option::as_mut)
            .ok_or_else(|| MpiError::new(class::INFO, format!("invalid info handle {handle}")))
    }

    /// Stores a new info object; returns its handle.
    pub fn add_info(&mut self, entries: Vec<(String, String)>) -> i32 {
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
}

//! Tables of objects shared by their members (windows, files), indexed
//! by handle: handle 0 is the null object (MPI_WIN_NULL, MPI_FILE_NULL),
//! and a freed handle's slot is reused by the next object.

/// Objects by handle.
#[derive(Debug)]
pub struct HandleTable<T> {
    slots: Vec<Option<T>>,
}

impl<T> Default for HandleTable<T> {
    fn default() -> Self {
        Self { slots: Vec::new() }
    }
}

impl<T> HandleTable<T> {
    pub fn get(&self, handle: i32) -> Option<&T> {
        usize::try_from(handle)
            .ok()
            .filter(|&i| i > 0)
            .and_then(|i| self.slots.get(i))
            .and_then(Option::as_ref)
    }

    pub fn get_mut(&mut self, handle: i32) -> Option<&mut T> {
        usize::try_from(handle)
            .ok()
            .filter(|&i| i > 0)
            .and_then(|i| self.slots.get_mut(i))
            .and_then(Option::as_mut)
    }

    /// Stores `obj` in the first free slot; its handle.
    pub fn insert(&mut self, obj: T) -> i32 {
        if self.slots.is_empty() {
            self.slots.push(None); // the null handle
        }
        let i = match self.slots.iter().skip(1).position(Option::is_none) {
            Some(i) => {
                self.slots[i + 1] = Some(obj);
                i + 1
            }
            None => {
                self.slots.push(Some(obj));
                self.slots.len() - 1
            }
        };
        i32::try_from(i).expect("fewer than 2^31 objects")
    }

    /// Removes the object of `handle`, whose slot becomes free.
    pub fn remove(&mut self, handle: i32) -> Option<T> {
        usize::try_from(handle)
            .ok()
            .and_then(|i| self.slots.get_mut(i))
            .and_then(Option::take)
    }
}

#[cfg(test)]
mod tests {
    use super::HandleTable;

    #[test]
    fn handles_start_at_one_and_freed_slots_are_reused() {
        let mut t = HandleTable::default();
        assert_eq!((t.insert('a'), t.insert('b'), t.insert('c')), (1, 2, 3));
        assert_eq!(t.get(0), None);
        assert_eq!(t.remove(2), Some('b'));
        assert_eq!(t.get(2), None);
        assert_eq!(t.insert('d'), 2);
        assert_eq!(t.get(2), Some(&'d'));
        *t.get_mut(3).unwrap() = 'e';
        assert!(t.get_mut(0).is_none());
        assert_eq!((t.get(3), t.get(-1)), (Some(&'e'), None));
    }
}

//! The tables that intern types, attributes and operation names.
//!
//! A table is a frozen, shared part (`base`) plus a private overlay (`local`). Forking a
//! context for another thread freezes the table once and shares the frozen part: ids below
//! `base.len()` mean the same in the parent and in every fork, and what a fork interns later
//! goes to its own overlay, so no lock is ever taken.

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::Arc;

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

/// Interning hashes small keys millions of times; a fast non-cryptographic hash pays off.
type Set<T> = IndexSet<T, FxBuildHasher>;

pub(crate) struct Interner<T> {
    base: Arc<Set<T>>,
    /// `base.len()`, kept here: lookups are hot.
    base_len: usize,
    local: Set<T>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            base: Arc::new(Set::default()),
            base_len: 0,
            local: Set::default(),
        }
    }
}

impl<T: Hash + Eq + Clone> Interner<T> {
    /// The id of `key`, interning `make()` when it is new.
    pub(crate) fn intern<Q>(&mut self, key: &Q, make: impl FnOnce() -> T) -> u32
    where
        T: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if self.base_len > 0
            && let Some(i) = self.base.get_index_of(key)
        {
            return i as u32;
        }
        let offset = self.base_len;
        if let Some(i) = self.local.get_index_of(key) {
            return (offset + i) as u32;
        }
        (offset + self.local.insert_full(make()).0) as u32
    }

    /// The id of `value`, interning it when it is new.
    #[inline]
    pub(crate) fn intern_owned(&mut self, value: T) -> u32 {
        if self.base_len > 0
            && let Some(i) = self.base.get_index_of(&value)
        {
            return i as u32;
        }
        // A lookup is cheaper than `insert_full` on a hit, the common case.
        if let Some(i) = self.local.get_index_of(&value) {
            return (self.base_len + i) as u32;
        }
        (self.base_len + self.local.insert_full(value).0) as u32
    }

    #[inline]
    pub(crate) fn get(&self, id: u32) -> &T {
        let i = id as usize;
        if i < self.base_len {
            &self.base[i]
        } else {
            &self.local[i - self.base_len]
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.base_len + self.local.len()
    }

    /// Moves the overlay into the shared part. In place unless a fork still holds the
    /// shared part, which then keeps its copy.
    pub(crate) fn freeze(&mut self) {
        if self.local.is_empty() {
            return;
        }
        if self.base.is_empty() {
            self.base = Arc::new(std::mem::take(&mut self.local));
        } else {
            Arc::make_mut(&mut self.base).extend(self.local.drain(..));
        }
        self.base_len = self.base.len();
    }

    /// A table that shares what is frozen here and starts with an empty overlay; call
    /// [`Interner::freeze`] first so that it sees everything.
    pub(crate) fn share(&self) -> Interner<T> {
        Interner {
            base: Arc::clone(&self.base),
            base_len: self.base_len,
            local: Set::default(),
        }
    }

    /// How many leading ids mean the same in `self` and `other`.
    pub(crate) fn common_prefix(&self, other: &Interner<T>) -> usize {
        if Arc::ptr_eq(&self.base, &other.base) {
            self.base_len
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn intern(t: &mut Interner<String>, s: &str) -> u32 {
        t.intern(s, || s.to_string())
    }

    #[test]
    fn ids_survive_freeze_and_share() {
        let mut t = Interner::default();
        assert_eq!(intern(&mut t, "a"), 0);
        assert_eq!(intern(&mut t, "b"), 1);
        t.freeze();
        let mut child = t.share();
        assert_eq!(t.common_prefix(&child), 2);
        assert_eq!(intern(&mut child, "b"), 1);
        assert_eq!(intern(&mut child, "c"), 2);
        assert_eq!(child.get(2), "c");
        // The parent does not see what the child interned, and may intern on its own.
        assert_eq!(intern(&mut t, "d"), 2);
        assert_eq!(t.get(2), "d");
        drop(child);
        t.freeze();
        assert_eq!(t.len(), 3);
        assert_eq!(intern(&mut t, "a"), 0);
        assert_eq!(intern(&mut t, "d"), 2);
    }

    #[test]
    fn unrelated_tables_share_nothing() {
        let (mut a, mut b) = (Interner::default(), Interner::default());
        intern(&mut a, "x");
        intern(&mut b, "x");
        a.freeze();
        b.freeze();
        assert_eq!(a.common_prefix(&b), 0);
    }

    #[test]
    fn freeze_copies_when_a_fork_holds_the_shared_part() {
        let mut t = Interner::default();
        intern(&mut t, "a");
        t.freeze();
        let child = t.share();
        intern(&mut t, "b");
        t.freeze();
        assert_eq!(child.len(), 1);
        assert_eq!(t.len(), 2);
        assert_eq!(t.common_prefix(&child), 0);
    }
}

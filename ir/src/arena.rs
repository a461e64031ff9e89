//! Arenas for operations, blocks, regions and values, indexed by `u32` ids.
//!
//! A context fills one dense vector (ids `0..2^31`), indexed as directly as a plain `Vec`.
//! Its forks (see [`crate::fork`]) fill fixed-size chunks instead, with ids from `2^31` up,
//! drawn from a counter shared with the parent and every other fork. So an id names one
//! slot in all of them, and the parent takes a fork's chunks as they are
//! ([`Arena::adopt`]): joining the work of a thread copies nothing per op.

use std::ops::{Index, IndexMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

const CHUNK_BITS: u32 = 14;
const CHUNK: usize = 1 << CHUNK_BITS;
const MASK: usize = CHUNK - 1;
/// The first id that lives in a chunk.
const CHUNKED: usize = 1 << 31;
const NO_CHUNK: u32 = u32::MAX;

pub(crate) struct Arena<T> {
    /// Ids `0..dense.len()`.
    dense: Vec<T>,
    /// Chunk `i` holds ids `CHUNKED + i * CHUNK ..`; chunks of other forks are empty here.
    chunks: Vec<Vec<T>>,
    /// Whether new entries go to chunks (in a fork) rather than to `dense`.
    chunked: bool,
    /// The chunk new entries go to.
    current: u32,
    /// The next chunk index, shared with every fork.
    claims: Arc<AtomicU32>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            dense: Vec::new(),
            chunks: Vec::new(),
            chunked: false,
            current: NO_CHUNK,
            claims: Arc::new(AtomicU32::new(0)),
        }
    }
}

impl<T> Arena<T> {
    /// The id the next [`Arena::push`] returns.
    #[inline]
    pub(crate) fn next_id(&mut self) -> u32 {
        if !self.chunked {
            assert!(
                self.dense.len() < CHUNKED,
                "more than 2^31 IR entities of one kind"
            );
            return self.dense.len() as u32;
        }
        if let Some(chunk) = self.chunks.get(self.current as usize)
            && chunk.len() < CHUNK
        {
            return (CHUNKED + (self.current as usize) * CHUNK + chunk.len()) as u32;
        }
        let claimed = self.claims.fetch_add(1, Ordering::Relaxed) as usize;
        assert!(
            claimed < (CHUNKED >> CHUNK_BITS),
            "more than 2^31 IR entities of one kind in forks"
        );
        if self.chunks.len() <= claimed {
            self.chunks.resize_with(claimed + 1, Vec::new);
        }
        self.chunks[claimed] = Vec::with_capacity(CHUNK);
        self.current = claimed as u32;
        (CHUNKED + claimed * CHUNK) as u32
    }

    #[inline]
    pub(crate) fn push(&mut self, value: T) -> u32 {
        if !self.chunked && self.dense.len() < CHUNKED {
            self.dense.push(value);
            return (self.dense.len() - 1) as u32;
        }
        let id = self.next_id();
        self.chunks[self.current as usize].push(value);
        id
    }

    /// A position for `id` in `0..slot_bound()`: lets callers keep dense side tables.
    pub(crate) fn slot(&self, id: u32) -> usize {
        let id = id as usize;
        if id < CHUNKED {
            id
        } else {
            self.dense.len() + (id - CHUNKED)
        }
    }

    /// One past the largest [`Arena::slot`] of an id this arena holds.
    pub(crate) fn slot_bound(&self) -> usize {
        self.dense.len() + self.chunks.len() * CHUNK
    }

    /// An empty arena that draws ids from the same space as this one, in chunks.
    pub(crate) fn fork(&self) -> Arena<T> {
        Arena {
            dense: Vec::new(),
            chunks: Vec::new(),
            chunked: true,
            current: NO_CHUNK,
            claims: Arc::clone(&self.claims),
        }
    }

    /// Whether `other` is a fork of an arena in this one's id space: its entries are all in
    /// chunks, so [`Arena::adopt`] loses nothing.
    pub(crate) fn can_adopt(&self, other: &Arena<T>) -> bool {
        Arc::ptr_eq(&self.claims, &other.claims) && other.dense.is_empty()
    }

    /// Takes the chunks of `fork` (see [`Arena::can_adopt`]), so its ids are valid here.
    pub(crate) fn adopt(&mut self, fork: Arena<T>) {
        debug_assert!(self.can_adopt(&fork));
        if self.chunks.len() < fork.chunks.len() {
            self.chunks.resize_with(fork.chunks.len(), Vec::new);
        }
        for (mine, theirs) in self.chunks.iter_mut().zip(fork.chunks) {
            if theirs.capacity() > 0 {
                debug_assert!(mine.capacity() == 0, "a chunk is claimed once");
                *mine = theirs;
            }
        }
    }

    // Out of line and marked cold so that the dense path, the one a context's own IR
    // takes, stays as small as a `Vec` index where it is inlined.
    #[cold]
    #[inline(never)]
    fn chunk_slot(&self, id: usize) -> &T {
        let i = id.wrapping_sub(CHUNKED);
        &self.chunks[i >> CHUNK_BITS][i & MASK]
    }

    #[cold]
    #[inline(never)]
    fn chunk_slot_mut(&mut self, id: usize) -> &mut T {
        let i = id.wrapping_sub(CHUNKED);
        &mut self.chunks[i >> CHUNK_BITS][i & MASK]
    }
}

impl<T> Index<usize> for Arena<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: usize) -> &T {
        match self.dense.get(id) {
            Some(v) => v,
            None => self.chunk_slot(id),
        }
    }
}

impl<T> IndexMut<usize> for Arena<T> {
    #[inline]
    fn index_mut(&mut self, id: usize) -> &mut T {
        if id < self.dense.len() {
            &mut self.dense[id]
        } else {
            self.chunk_slot_mut(id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_across_forks_and_survive_adoption() {
        let mut parent = Arena::default();
        let a = parent.push("a");
        let mut fork = parent.fork();
        let mut other = parent.fork();
        let b = fork.push("b");
        let c = other.push("c");
        let d = parent.push("d");
        assert_eq!((a, d), (0, 1));
        assert!(b as usize >= CHUNKED && c as usize >= CHUNKED && b != c);
        parent.adopt(fork);
        parent.adopt(other);
        let got: Vec<&str> = [a, b, c, d].iter().map(|&i| parent[i as usize]).collect();
        assert_eq!(got, ["a", "b", "c", "d"]);
        // The parent keeps filling its dense part.
        assert_eq!(parent.push("e"), 2);
        let slots: Vec<usize> = [a, b, c, d].iter().map(|&i| parent.slot(i)).collect();
        assert!(slots.iter().all(|&s| s < parent.slot_bound()));
    }

    #[test]
    fn a_full_chunk_moves_on_to_a_new_one() {
        let mut arena = Arena::<usize>::default().fork();
        let first = arena.push(0) as usize;
        for i in 1..CHUNK {
            assert_eq!(arena.push(i) as usize, first + i);
        }
        let next = arena.push(CHUNK) as usize;
        assert_eq!(next, first + CHUNK);
        assert_eq!(arena[next], CHUNK);
    }
}

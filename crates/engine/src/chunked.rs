//! A vector that is cheap to clone: its elements live in shared, fixed-size chunks, so a
//! clone copies one pointer per chunk, and a write copies only the chunk it lands in (once,
//! while that chunk is shared). What the sink's stores hold: a world is cloned at every step
//! the dashboard shows and for every snapshot of a recorded run, and a store of a long run
//! holds hundreds of thousands of rows that the step does not touch.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// Elements per chunk by default: a shared chunk written to is copied whole, so this bounds
/// what a write after a clone costs (1,024 file entries, each with its name), while a clone of
/// a million elements copies under a thousand pointers.
pub const CHUNK: usize = 1024;

/// A growable sequence of `T` in shared chunks of `N` elements (all full but the last).
/// Clone, equality, `Debug` and serde are those of the sequence of its elements.
///
/// `N` trades the copy a write to a shared chunk makes against the number of chunks: each
/// chunk is an allocation of its own, and in wasm every new block of memory is a
/// `memory.grow` and a garbage-collector check in the browser, so plain rows (copied as bytes)
/// use far larger chunks than entries that own a string.
pub struct Chunked<T, const N: usize = CHUNK> {
    chunks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T, const N: usize> Chunked<T, N> {
    /// An empty sequence.
    pub const fn new() -> Chunked<T, N> {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element at `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<&T> {
        self.chunks.get(index / N)?.get(index % N)
    }

    /// The last element.
    pub fn last(&self) -> Option<&T> {
        self.chunks.last()?.last()
    }

    /// Every element, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + Clone + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// The elements at the positions in `range`, in order (clamped to the sequence).
    pub fn range(&self, range: Range<usize>) -> impl Iterator<Item = &T> + '_ {
        let (start, end) = (range.start.min(self.len), range.end.min(self.len));
        let first = start / N;
        self.chunks[first..]
            .iter()
            .flat_map(|c| c.iter())
            .skip(start - first * N)
            .take(end.saturating_sub(start))
    }
}

impl<T: Clone, const N: usize> Chunked<T, N> {
    /// The element at `index` to change in place (its chunk copied first if shared).
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let chunk = self.chunks.get_mut(index / N)?;
        if index % N >= chunk.len() {
            return None;
        }
        Arc::make_mut(chunk).get_mut(index % N)
    }

    /// Appends `value`.
    pub fn push(&mut self, value: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < N => Arc::make_mut(last).push(value),
            _ => {
                let mut chunk = Vec::with_capacity(N);
                chunk.push(value);
                self.chunks.push(Arc::new(chunk));
            }
        }
        self.len += 1;
    }
}

impl<T, const N: usize> Default for Chunked<T, N> {
    fn default() -> Chunked<T, N> {
        Chunked::new()
    }
}

impl<T, const N: usize> Clone for Chunked<T, N> {
    /// One pointer per chunk: the elements are shared until either copy writes to them.
    fn clone(&self) -> Chunked<T, N> {
        Chunked {
            chunks: self.chunks.clone(),
            len: self.len,
        }
    }
}

impl<T: Clone, const N: usize> Extend<T> for Chunked<T, N> {
    /// Appends every element, filling the last chunk and then new ones (each chunk made
    /// writable once, not once per element).
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        let mut items = items.into_iter().peekable();
        while items.peek().is_some() {
            let room = match self.chunks.last() {
                Some(last) if last.len() < N => N - last.len(),
                _ => {
                    self.chunks.push(Arc::new(Vec::with_capacity(N)));
                    N
                }
            };
            let last = Arc::make_mut(self.chunks.last_mut().expect("a chunk with room"));
            let before = last.len();
            last.extend(items.by_ref().take(room));
            self.len += last.len() - before;
        }
    }
}

impl<T: Clone, const N: usize> FromIterator<T> for Chunked<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Chunked<T, N> {
        let mut chunked = Chunked::new();
        chunked.extend(items);
        chunked
    }
}

impl<T, const N: usize> std::ops::Index<usize> for Chunked<T, N> {
    type Output = T;

    fn index(&self, index: usize) -> &T {
        match self.get(index) {
            Some(value) => value,
            None => panic!("index {index} out of a sequence of {}", self.len),
        }
    }
}

impl<T: PartialEq, const N: usize> PartialEq for Chunked<T, N> {
    fn eq(&self, other: &Chunked<T, N>) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T: Eq, const N: usize> Eq for Chunked<T, N> {}

impl<T: fmt::Debug, const N: usize> fmt::Debug for Chunked<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Serialize, const N: usize> Serialize for Chunked<T, N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de, T: Deserialize<'de> + Clone, const N: usize> Deserialize<'de> for Chunked<T, N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Chunked<T, N>, D::Error> {
        Ok(Vec::<T>::deserialize(deserializer)?.into_iter().collect())
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a test does to both a `Vec` and a `Chunked`.
    #[derive(Clone, Debug)]
    enum Op {
        Push(u32),
        Extend(Vec<u32>),
        Set(usize, u32),
        /// Keep a clone, so later writes land in shared chunks.
        Fork,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            any::<u32>().prop_map(Op::Push),
            proptest::collection::vec(any::<u32>(), 0..2500).prop_map(Op::Extend),
            (any::<usize>(), any::<u32>()).prop_map(|(i, v)| Op::Set(i, v)),
            Just(Op::Fork),
        ]
    }

    /// Applies `ops` to a `Vec` and a `Chunked` with chunks of `N`: the same elements after
    /// every one, and a clone taken earlier keeps the elements it had.
    fn same_as_a_vec<const N: usize>(ops: &[Op]) -> Result<(), TestCaseError> {
        let mut model: Vec<u32> = vec![];
        let mut chunked: Chunked<u32, N> = Chunked::new();
        let mut forks: Vec<(Vec<u32>, Chunked<u32, N>)> = vec![];
        for op in ops {
            match op {
                Op::Push(v) => {
                    model.push(*v);
                    chunked.push(*v);
                }
                Op::Extend(vs) => {
                    model.extend(vs.iter().copied());
                    chunked.extend(vs.iter().copied());
                }
                Op::Set(i, v) if !model.is_empty() => {
                    let i = i % model.len();
                    model[i] = *v;
                    *chunked.get_mut(i).unwrap() = *v;
                }
                Op::Set(..) => prop_assert!(chunked.get_mut(0).is_none()),
                Op::Fork => forks.push((model.clone(), chunked.clone())),
            }
            prop_assert_eq!(chunked.len(), model.len());
        }
        prop_assert_eq!(chunked.iter().copied().collect::<Vec<_>>(), model.clone());
        let reversed: Vec<u32> = model.iter().rev().copied().collect();
        prop_assert_eq!(chunked.iter().rev().copied().collect::<Vec<_>>(), reversed);
        prop_assert_eq!(chunked.last(), model.last());
        prop_assert!(chunked.get(model.len()).is_none());
        let n = model.len();
        for (a, b) in [(0, n), (n / 3, n / 2), (n / 2, n + 5), (N.min(n), n)] {
            let want: Vec<u32> = model[a.min(n)..b.min(n).max(a.min(n))].to_vec();
            prop_assert_eq!(chunked.range(a..b).copied().collect::<Vec<_>>(), want);
        }
        for (kept, fork) in forks {
            prop_assert_eq!(fork.iter().copied().collect::<Vec<_>>(), kept);
        }
        Ok(())
    }

    proptest! {
        /// The default chunks, and tiny ones (every operation crosses chunk boundaries).
        #[test]
        fn behaves_as_a_vec_and_clones_stay_apart(ops in proptest::collection::vec(op(), 1..40)) {
            same_as_a_vec::<CHUNK>(&ops)?;
            same_as_a_vec::<3>(&ops)?;
        }
    }

    #[test]
    fn serde_and_debug_are_those_of_the_elements() {
        let chunked: Chunked<u32> = (0..3000).collect();
        let json = serde_json::to_string(&chunked).unwrap();
        assert_eq!(
            json,
            serde_json::to_string(&(0..3000).collect::<Vec<u32>>()).unwrap()
        );
        let back: Chunked<u32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, chunked);
        let small: Chunked<u32> = [1, 2].into_iter().collect();
        assert_eq!(format!("{small:?}"), "[1, 2]");
        assert_ne!(small, chunked);
    }

    #[test]
    fn a_clone_shares_the_chunks_until_written() {
        let a: Chunked<u32> = (0..(3 * CHUNK as u32)).collect();
        let mut b = a.clone();
        assert!(Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        *b.get_mut(5).unwrap() = 7;
        assert!(!Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        assert!(Arc::ptr_eq(&a.chunks[1], &b.chunks[1]));
        assert_eq!((a[5], b[5]), (5, 7));
    }
}

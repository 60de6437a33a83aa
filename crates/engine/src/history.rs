//! The events a world has emitted, shared between its forks: a clone is a pointer and a
//! length, and a fork that replays the same events as the run it came from copies nothing.
//!
//! The dashboard keeps a world every few events of a run and clones the one on screen at every
//! step; the explorer forks a world at every crash site. With the history held by value each
//! of those copies cost the whole run so far (n²/K memory for K-spaced snapshots). Here every
//! fork of one run points at one buffer: pushing the event the buffer already holds at that
//! position only moves the length, pushing onto a buffer nobody else holds appends in place,
//! and only a fork that departs from a shared buffer copies its own prefix, once.

use std::sync::Arc;

/// An append-only list of events, cheap to clone (see the module documentation).
pub struct History<E> {
    /// The events of this world are `buf[..len]`; the buffer may run on (the same run, further
    /// on, recorded by a fork) and is shared with every clone.
    buf: Arc<Vec<E>>,
    /// How many events this world has emitted.
    len: usize,
}

impl<E> Clone for History<E> {
    fn clone(&self) -> Self {
        History {
            buf: Arc::clone(&self.buf),
            len: self.len,
        }
    }
}

/// Prints this world's events only (not the rest of a shared buffer).
impl<E: std::fmt::Debug> std::fmt::Debug for History<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.buf[..self.len]).finish()
    }
}

impl<E> Default for History<E> {
    fn default() -> Self {
        History {
            buf: Arc::new(Vec::new()),
            len: 0,
        }
    }
}

impl<E: Clone + PartialEq> History<E> {
    /// Every event so far, in order.
    pub fn as_slice(&self) -> &[E] {
        &self.buf[..self.len]
    }

    /// Number of events so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event has been emitted yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The newest event.
    pub fn last(&self) -> Option<&E> {
        self.as_slice().last()
    }

    /// Appends `event`: no copy when the shared buffer already holds it next (a replay of the
    /// recorded run) or when this history is the buffer's only holder; otherwise this history
    /// takes a copy of its own events first.
    pub fn push(&mut self, event: E) {
        if self.buf.get(self.len) == Some(&event) {
            self.len += 1;
            return;
        }
        match Arc::get_mut(&mut self.buf) {
            Some(own) => {
                own.truncate(self.len);
                own.push(event);
            }
            None => {
                let mut own = Vec::with_capacity(self.len + self.len / 2 + 16);
                own.extend_from_slice(self.as_slice());
                own.push(event);
                self.buf = Arc::new(own);
            }
        }
        self.len += 1;
    }

    /// Points this history at `later`'s buffer, so that stepping this world on through the
    /// same events copies nothing. `later` must be the same run further on: its events start
    /// with this history's (checked on the length and the newest event; a debug build checks
    /// every event).
    pub fn share(&mut self, later: &History<E>) {
        assert!(
            later.len >= self.len && later.buf.get(self.len.wrapping_sub(1)) == self.last(),
            "a history is shared only with the same run further on"
        );
        debug_assert!(later.buf[..self.len] == *self.as_slice());
        self.buf = Arc::clone(&later.buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forks_share_until_they_depart() {
        let mut a: History<u32> = History::default();
        for i in 0..10 {
            a.push(i);
        }
        let mut b = a.clone();
        assert!(Arc::ptr_eq(&a.buf, &b.buf));
        // The fork departs: it copies its prefix, the original is untouched.
        b.push(99);
        assert!(!Arc::ptr_eq(&a.buf, &b.buf));
        assert_eq!(a.as_slice(), (0..10).collect::<Vec<_>>());
        assert_eq!(b.as_slice().last(), Some(&99));
        assert_eq!(b.len(), 11);
        // A sole holder appends in place.
        let before = Arc::as_ptr(&b.buf);
        b.push(100);
        assert_eq!(Arc::as_ptr(&b.buf), before);
    }

    #[test]
    fn a_replay_of_the_same_run_copies_nothing() {
        let mut run: History<u32> = History::default();
        for i in 0..50 {
            run.push(i);
        }
        let mut replay: History<u32> = History::default();
        replay.share(&run);
        let snapshot = replay.clone();
        for i in 0..20 {
            replay.push(i);
        }
        assert!(Arc::ptr_eq(&replay.buf, &run.buf));
        assert_eq!(replay.as_slice(), &run.as_slice()[..20]);
        assert!(snapshot.is_empty());
        // Departing from the shared run: a copy of the 20 events, then the new one.
        replay.push(7);
        assert!(!Arc::ptr_eq(&replay.buf, &run.buf));
        assert_eq!(replay.as_slice()[20], 7);
        assert_eq!(run.as_slice()[20], 20);
    }

    #[test]
    fn a_sole_holder_behind_its_buffer_drops_the_stale_tail() {
        let mut run: History<u32> = History::default();
        for i in 0..5 {
            run.push(i);
        }
        let mut early = History::default();
        early.push(0);
        early.share(&run);
        drop(run);
        early.push(42);
        assert_eq!(early.as_slice(), &[0, 42]);
    }

    #[test]
    #[should_panic(expected = "same run further on")]
    fn sharing_with_another_run_is_refused() {
        let mut a: History<u32> = History::default();
        a.push(1);
        let mut b: History<u32> = History::default();
        b.push(2);
        b.push(3);
        a.share(&b);
    }
}

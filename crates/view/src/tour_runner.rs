//! The tour runner both modes share: where each stop of a tour pauses in a trace, which stop is
//! on screen, and which comes next. The stops themselves (micro-batch [`crate::microbatch::tour`], topology
//! [`crate::topology::topology_tour`]) say only which event they wait for.

/// The search behind every tour (micro-batch and topology): stop `i` is the first event after
/// stop `i − 1` for which `matches(i, event)` holds (cursor = its index + 1), or the end of the
/// trace when `is_end(i)`; `None` when no event matches.
pub fn resolve_in_order<E>(
    count: usize,
    events: &[E],
    is_end: impl Fn(usize) -> bool,
    matches: impl Fn(usize, &E) -> bool,
) -> Vec<Option<usize>> {
    let mut from = 0;
    (0..count)
        .map(|i| {
            if is_end(i) {
                return Some(events.len());
            }
            let found = events[from.min(events.len())..]
                .iter()
                .position(|e| matches(i, e))
                .map(|k| from + k + 1);
            if let Some(c) = found {
                from = c;
            }
            found
        })
        .collect()
}

/// The stop on screen at `cursor`: the last stop reached at or before it.
pub fn current_stop(cursors: &[Option<usize>], cursor: usize) -> Option<usize> {
    cursors.iter().rposition(|c| c.is_some_and(|c| c <= cursor))
}

/// The first stop after `cursor` that the run reaches.
pub fn next_stop(cursors: &[Option<usize>], cursor: usize) -> Option<usize> {
    cursors.iter().position(|c| c.is_some_and(|c| c > cursor))
}

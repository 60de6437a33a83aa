//! The one shape both simulated worlds share: step → event, the events so far, settled.
//!
//! The micro-batch [`World`](crate::microbatch::World) and the FLIP-276
//! [`TopologyWorld`](crate::barrier::TopologyWorld) implement [`Sim`], so the layers above
//! (the judges' run-to-the-end loop, the dashboard's timeline and player) are written once.

use serde::Serialize;

/// A deterministic simulation: every call to [`Sim::next_event`] performs one observable action.
///
/// Same inputs (scenario or topology, seed, recorded crashes and faults) → the same events.
/// A clone is an exact fork: stepping the clone and the original gives the same events.
pub trait Sim: Clone {
    /// What one step produces (one arrow of the sequence diagram, one line of the trace).
    type Event: Clone + PartialEq + Serialize;

    /// Performs the next observable action; `None` once the world has nothing left to do.
    fn next_event(&mut self) -> Option<Self::Event>;

    /// [`Sim::next_event`] without handing back a copy of the event (it is the last of
    /// [`Sim::events`]): what a loop that only looks at the event uses, since an event may
    /// hold text (a micro-batch's offset line names every channel). `false` once the world has
    /// nothing left to do.
    fn advance_event(&mut self) -> bool {
        self.next_event().is_some()
    }

    /// Every event so far, in order.
    fn events(&self) -> &[Self::Event];

    /// Points this world's history at `later`'s, a world of the same run further on, so that
    /// replaying this world up to it copies no event: forks of one run share one history
    /// ([`History`](crate::history::History)). Panics if `later` is another run.
    fn share_history(&mut self, later: &Self);

    /// Whether the run has settled: nothing more will change what the judges see.
    fn settled(&self) -> bool;

    /// The logical clock (simulated milliseconds).
    fn clock_ms(&self) -> u64;
}

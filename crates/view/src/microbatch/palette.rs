//! Colours: one per actor (lanes, arrows, panel accents), one per batch (timeline), one per verdict.
//!
//! Mid-tone colours that read on both the light and the dark theme.

use batchscope_engine::microbatch::event::Actor;

/// The colour of an actor's lane and of the arrows it sends.
pub fn actor_color(actor: Actor) -> &'static str {
    match actor {
        Actor::Driver => "#5b6cf0",
        Actor::Source => "#0d9a98",
        Actor::Tasks => "#8b5cf6",
        Actor::Tunnel => "#d9820b",
        Actor::MetaTable => "#d63384",
        Actor::Checkpoint => "#6b7a90",
        Actor::Sink => "#1f9d55",
    }
}

/// [`actor_title`] for a scenario whose source is `source`: the upstream lane is the Kafka
/// broker of the Kafka-like log and the CDC source of SeaTunnel's readers
/// (`Actor::label_for`).
pub fn actor_title_for(
    actor: Actor,
    source: batchscope_engine::microbatch::scenario::SourceKind,
) -> (&'static str, &'static str) {
    use batchscope_engine::microbatch::scenario::SourceKind;
    match (actor, source) {
        (Actor::Tunnel, SourceKind::ReplayableLog) => ("Kafka", "broker"),
        (Actor::Tunnel, SourceKind::SeaTunnel) => ("CDC", "source"),
        _ => actor_title(actor),
    }
}

/// A short lane title for the diagram header (two lines where the name is long).
pub fn actor_title(actor: Actor) -> (&'static str, &'static str) {
    match actor {
        Actor::Driver => ("MicroBatch", "Execution"),
        Actor::Source => ("Source", "(driver)"),
        Actor::Tasks => ("SourceRDD", "tasks"),
        Actor::Tunnel => ("Tunnel", "server"),
        Actor::MetaTable => ("Meta", "table"),
        Actor::Checkpoint => ("Checkpoint", "folder"),
        Actor::Sink => ("Sink", ""),
    }
}

/// Red of crashes and failures.
pub const CRASH: &str = "#e5484d";

/// Colours cycled over batch ids on the timeline.
pub const BATCH_COLORS: [&str; 6] = [
    "#6f86ff", "#2bb3a8", "#b07cf7", "#f0a23a", "#e46ba4", "#7fae4a",
];

/// The timeline colour of a batch (`None`: start-up and waiting, a neutral grey).
pub fn batch_color(batch: Option<u64>) -> &'static str {
    match batch {
        Some(b) => BATCH_COLORS[(b % BATCH_COLORS.len() as u64) as usize],
        None => "#9aa4b2",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_actor_has_its_own_colour() {
        let mut seen: Vec<&str> = Actor::ALL.iter().map(|a| actor_color(*a)).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), Actor::ALL.len());
        assert!(!seen.contains(&CRASH));
    }

    #[test]
    fn batch_colours_cycle_and_neighbours_differ() {
        assert_eq!(batch_color(Some(0)), batch_color(Some(6)));
        for b in 0..20 {
            assert_ne!(batch_color(Some(b)), batch_color(Some(b + 1)));
            assert_ne!(batch_color(Some(b)), batch_color(None));
        }
    }
}

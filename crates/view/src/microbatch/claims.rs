//! What each micro-batch lesson claims about crashes ("a crash at sink-commit@3 appends batch 3
//! twice", "no crash point loses data"), in the lesson's words and as a property the explorer
//! checks: held, violated or never reached. Read by the CLI (`explore`, `lesson`), not by the
//! page's first load.
//!
//! Student-facing text: it cites no internal document.

use batchscope_check::explore::Property;
use batchscope_check::oracle::Verdict;
use batchscope_engine::microbatch::scenario::CrashKind;

/// A lesson's claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The claim in the lesson's words.
    pub words: &'static str,
    /// What the explorer checks.
    pub property: Property,
}

/// Losing data, with or without duplicates.
const LOSS: [Verdict; 2] = [Verdict::DataLoss, Verdict::DuplicatesAndLoss];
/// Losing or duplicating data.
const LOSS_OR_DUPLICATES: [Verdict; 3] = [
    Verdict::Duplicates,
    Verdict::DataLoss,
    Verdict::DuplicatesAndLoss,
];
/// Duplicating data, with or without loss.
const DUPLICATES: [Verdict; 2] = [Verdict::Duplicates, Verdict::DuplicatesAndLoss];

/// A sometimes-claim: a crash at `point@batch` gives `verdict`.
fn at(point: CrashKind, batch: u64, verdict: Verdict, words: &'static str) -> Claim {
    Claim {
        words,
        property: Property::Sometimes {
            point,
            batch: Some(batch),
            verdict,
        },
    }
}

/// A never-claim: no explored run gives one of `verdicts`.
fn never(verdicts: &[Verdict], words: &'static str) -> Claim {
    Claim {
        words,
        property: Property::Never {
            verdicts: verdicts.to_vec(),
        },
    }
}

/// A claim about the run without any crash or added fault.
fn unfailed(verdict: Verdict, words: &'static str) -> Claim {
    Claim {
        words,
        property: Property::WithoutFailure { verdict },
    }
}

/// The claims of a preset's lesson, in the lesson's order (none for an unknown name).
pub fn claims(preset: &str) -> Vec<Claim> {
    use CrashKind::*;
    use Verdict::*;
    if let Some(c) = seatunnel_claims(preset) {
        return c;
    }
    match preset {
        "kafka-idempotent" => vec![
            at(SinkCommit, 3, ExactlyOnce, "a crash at sink-commit@3 re-runs batch 3 and the file sink skips it: exactly-once"),
            never(&LOSS_OR_DUPLICATES, "no crash point loses or duplicates data"),
        ],
        "kafka-append" => vec![
            at(SinkCommit, 3, Duplicates, "a crash at sink-commit@3 appends batch 3 twice"),
            never(&LOSS, "no crash point loses data: a plain append is at-least-once"),
        ],
        "tablestore" => vec![
            at(SinkCommit, 2, ExactlyOnce, "a crash at sink-commit@2: the re-run reads more, the upsert sink absorbs the rewrites"),
            never(&DUPLICATES, "no crash point duplicates a row in the upsert sink"),
        ],
        "tablestore-append" => vec![
            at(SinkCommit, 2, Duplicates, "a crash at sink-commit@2 appends the re-run's rows again"),
            never(&LOSS, "no crash point loses data: the Tablestore source is at-least-once"),
        ],
        "tablestore-split" => vec![
            at(OffsetLog, 4, Stuck, "a crash at offset-log@4, before ch0's finished checkpoint reaches the server, loops: stuck"),
            at(SourceCommit, 4, ExactlyOnce, "a crash at source-commit@4, once that checkpoint is on the server, loses nothing"),
        ],
        "tablestore-two-phase" => vec![at(SinkCommit, 2, DataLoss, "a crash at sink-commit@2: the re-run reads more, the sink skips the batch, the extra rows are lost")],
        "pull-ahead" => vec![
            at(SinkCommit, 2, ExactlyOnce, "a crash at sink-commit@2 replays the same rows: exactly-once"),
            never(&LOSS_OR_DUPLICATES, "no crash point loses or duplicates data: replay is deterministic"),
        ],
        "auto-commit" => vec![at(Task, 2, DataLoss, "a crash at task@2 loses the rows read but not written")],
        "foreach-batch-multi" => vec![
            at(SinkCommit, 2, Duplicates, "a crash at sink-commit@2 writes batch 2 twice"),
            never(&LOSS, "no crash point loses data: at-least-once"),
        ],
        "continuous-epochs" => vec![
            at(SinkCommit, 3, Duplicates, "a crash at sink-commit@3 replays epoch 3: duplicates"),
            never(&LOSS, "no crash point loses data: at-least-once"),
        ],
        "batch-id-in-memory" => vec![at(SinkCommit, 3, Duplicates, "a crash at sink-commit@3: the new driver's sink forgot batch 3 and writes it twice")],
        "kafka-v1-source" => vec![at(CommitLog, 3, ExactlyOnce, "a crash at commit-log@3: the restart's extra getBatch(3) writes nothing, exactly-once")],
        _ => operator_claims(preset),
    }
}

/// The claims of the SeaTunnel presets.
fn seatunnel_claims(preset: &str) -> Option<Vec<Claim>> {
    use CrashKind::*;
    use Verdict::*;
    Some(match preset {
        "reader-never-closes" => vec![unfailed(Stuck, "with no crash the batch never ends: stuck")],
        "reader-idle-timeout" => vec![unfailed(Duplicates, "with no crash each batch re-reads what its readers read after their snapshot: duplicates")],
        "seatunnel-checkpoint-records" => vec![
            unfailed(Duplicates, "with no crash each batch re-reads what followed its snapshot: duplicates"),
            at(StatePrepared, 0, DuplicatesAndLoss, "a crash at state-prepared@0 loses the rows the sink never saw, and still duplicates"),
        ],
        "seatunnel-committed-only" => vec![
            at(SinkCommit, 0, Duplicates, "a crash at sink-commit@0 writes the first record's rows twice"),
            never(&LOSS, "no crash point loses data: at-least-once"),
        ],
        "seatunnel-idempotent-sink" => vec![
            at(SinkCommit, 0, ExactlyOnce, "a crash at sink-commit@0 writes the first record's rows again, absorbed by the key: exactly-once"),
            never(&LOSS_OR_DUPLICATES, "no crash point loses or duplicates data"),
        ],
        "seatunnel-dev-timer" => vec![unfailed(Stuck, "with no crash batch 0 commits, then latestOffset never moves: stuck")],
        _ => return None,
    })
}

/// The claims of the presets about an operator's or the environment's acts (an outage, a
/// deleted checkpoint, a restart with changes).
fn operator_claims(preset: &str) -> Vec<Claim> {
    use CrashKind::*;
    use Verdict::*;
    match preset {
        "sink-outage" => vec![
            unfailed(ExactlyOnce, "with no crash, failed attempts and batches are retried until the store is back: exactly-once"),
            never(&LOSS, "no crash point or outage loses data"),
        ],
        "checkpoint-deleted-latest" => vec![unfailed(DataLoss, "with no crash, the rows that arrived while the query was down are never read: data loss")],
        "checkpoint-deleted-earliest" => vec![unfailed(Duplicates, "with no crash, the whole topic is read again and appended twice: duplicates")],
        "kafka-retention-fail" => vec![unfailed(Stuck, "with no crash, every restart fails on the aged-out range: stuck")],
        "kafka-retention-skip" => vec![unfailed(DataLoss, "with no crash, the aged-out records are skipped: lost")],
        "torn-offset-log" => vec![unfailed(Stuck, "with no crash, offsets/2 is left empty and every restart fails to read it: stuck")],
        "metadata-lost-txn-sink" => vec![unfailed(Duplicates, "with no crash, the restart takes a new query id and the table applies batch 2 again: duplicates")],
        "evolution-source-added" => vec![at(CommitLog, 2, Stuck, "stopped after commits/2 and restarted with two sources, every restart is refused: stuck")],
        "async-progress" => vec![
            at(SinkCommit, 2, Duplicates, "a crash at sink-commit@2 re-reads batches 1 and 2: duplicates"),
            never(&LOSS, "no crash point loses data: at-least-once"),
        ],
        "async-progress-off" => vec![
            at(SinkCommit, 3, Stuck, "a crash at sink-commit@3, restarted without the option, is refused every time: stuck"),
            at(CommitLog, 3, Stuck, "a crash after commits/3 is refused too: stuck"),
        ],
        "two-drivers" => vec![unfailed(Duplicates, "with no crash, a stalled driver and a second one both write batch 2: duplicates")],
        "backlog-crash-loop" => vec![unfailed(Stuck, "with no crash, the logged backlog runs out of memory on every restart: stuck")],
        "backlog-limited" => vec![unfailed(ExactlyOnce, "with no crash, the limit set before the backlog is logged makes every batch fit: exactly-once")],
        _ => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::microbatch::lessons::{internal_reference, lesson_head};
    use batchscope_engine::microbatch::scenario::{presets, CrashPoint};

    /// Whether a lesson's words name the verdict.
    fn names(text: &str, v: Verdict) -> bool {
        match v {
            Verdict::ExactlyOnce => text.contains("exactly-once"),
            Verdict::Duplicates => text.contains("duplicates") || text.contains("twice"),
            Verdict::DataLoss => text.contains("loss") || text.contains("aged out"),
            Verdict::DuplicatesAndLoss => text.contains("loss") && text.contains("duplicates"),
            Verdict::Stuck => text.contains("stuck"),
            Verdict::Stopped => text.contains("stop"),
        }
    }

    #[test]
    fn every_preset_claims_what_its_lesson_asks_to_try() {
        for p in presets() {
            let head = lesson_head(p.name);
            let claims = claims(p.name);
            assert!(!claims.is_empty(), "{}: no claim", p.name);
            let tried = claims.iter().find(|c| match (&c.property, head.try_crash) {
                (Property::Sometimes { point, batch, .. }, Some(crash)) => {
                    let crash: CrashPoint = crash.parse().unwrap();
                    (crash.kind, Some(crash.batch_id)) == (*point, *batch)
                }
                (Property::WithoutFailure { .. }, None) => true,
                _ => false,
            });
            let tried = tried.unwrap_or_else(|| panic!("{}: no claim of its try", p.name));
            let (Property::Sometimes { verdict, .. } | Property::WithoutFailure { verdict }) =
                tried.property
            else {
                unreachable!()
            };
            assert!(
                names(head.try_outcome, verdict),
                "{}: the lesson's outcome `{}` does not say {verdict}",
                p.name,
                head.try_outcome
            );
        }
    }

    #[test]
    fn claims_cite_no_internal_document() {
        for p in presets() {
            for c in claims(p.name) {
                assert_eq!(internal_reference(c.words), None, "{}: {}", p.name, c.words);
            }
        }
    }
}

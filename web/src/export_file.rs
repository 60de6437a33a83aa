//! The two files of the Export menu that are made from the run rather than drawn from the
//! page — the trace as JSON (what `batchscope run --trace --json` prints) and the simulated
//! checkpoint folder as a `.zip` (the bytes `--checkpoint-out` writes) — made from the link of
//! the moment on screen.
//!
//! They are built into the lazily loaded module (`batchscope-modes`), not the page's first:
//! the zip writer, its deflate encoder and the events' JSON serializer were a tenth of the
//! page's first load, for a button few people press. The module gets the link, not the run:
//! a run is deterministic, so the link's scenario, seed, crash inputs and cursor give back
//! the very run and moment on screen (tested against the page's own player below).

use crate::shell::{Mode, Player};
use crate::state::{Micro, MicroPlayer};
use batchscope_view::export::{checkpoint_zip, trace_json};

/// Which file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportKind {
    /// Every event and the verdict, as JSON.
    Trace,
    /// The checkpoint folder at the cursor, as a `.zip` with one top folder `checkpoint/`.
    Checkpoint,
}

impl ExportKind {
    /// The name the page and the module use for it.
    pub fn name(self) -> &'static str {
        match self {
            ExportKind::Trace => "trace",
            ExportKind::Checkpoint => "checkpoint",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<ExportKind> {
        [ExportKind::Trace, ExportKind::Checkpoint]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// The file of `kind` for the moment `hash` (a micro-batch link, `#…`) describes: the run of
/// its scenario (a compared run, `vs=`, left out: the export is of the run on the left), at
/// its cursor. A link that cannot be read is an error naming what is wrong.
pub fn export_file(kind: ExportKind, hash: &str) -> Result<Vec<u8>, String> {
    let mut link = Micro::parse_link(hash).map_err(|errors| errors.join("; "))?;
    link.vs = None;
    Ok(file_of(kind, &Player::from_link(link)))
}

/// The file of `kind` for the moment `player` is at.
fn file_of(kind: ExportKind, player: &MicroPlayer) -> Vec<u8> {
    let run = &player.mode.run;
    match kind {
        ExportKind::Trace => {
            let (_, report) = run.verdict_at(run.last(), run.len());
            trace_json(&report, run.events()).into_bytes()
        }
        ExportKind::Checkpoint => checkpoint_zip(&player.world.checkpoint, "checkpoint"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::PlayerCmd;
    use crate::state::Action;
    use std::rc::Rc;
    use yew::Reducible;

    fn reduce(p: MicroPlayer, a: impl Into<Action>) -> MicroPlayer {
        (*Rc::new(p).reduce(a.into())).clone()
    }

    /// Players as a person leaves them: a crash armed, a crash made by hand, a tour (which
    /// arms its own crash), a fault, a scenario of one's own, a comparison.
    fn players() -> Vec<MicroPlayer> {
        let mut crashed_now = MicroPlayer::from_hash("#preset=kafka-append&seed=3&at=30");
        crashed_now = reduce(crashed_now, Action::CrashNow);
        for _ in 0..12 {
            crashed_now = reduce(crashed_now, PlayerCmd::Step);
        }
        let mut own = batchscope_engine::preset("tablestore").unwrap();
        own.upstream.channels = 3;
        let own_hash = format!(
            "#scenario={}&seed=5&at=50",
            batchscope_view::url::scenario::encode(&own)
        );
        vec![
            MicroPlayer::from_hash("#preset=kafka-append&seed=7&crash=sink-commit@3&at=40"),
            MicroPlayer::from_hash("#preset=tablestore-two-phase&crash=sink-commit@2&at=999999"),
            crashed_now,
            MicroPlayer::from_hash("#preset=kafka-append&tour=1&at=25"),
            MicroPlayer::from_hash(&own_hash),
            MicroPlayer::from_hash(
                "#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@3&at=60",
            ),
        ]
    }

    #[test]
    fn the_link_gives_back_the_files_of_the_moment_on_screen() {
        for p in players() {
            // Every link opened as written (`at=` past the end shows the end, and says so).
            assert!(
                p.notices.iter().all(|n| n.text.contains("past the end")),
                "{:?}",
                p.notices
            );
            let hash = Micro::format_link(&p.url_state());
            for kind in [ExportKind::Trace, ExportKind::Checkpoint] {
                let file = export_file(kind, &hash).unwrap();
                assert!(
                    file == file_of(kind, &p),
                    "{} of {hash} differs from the page's",
                    kind.name()
                );
            }
            // The link's cursor is honoured: the folder at the start is another file.
            let mut start = p.url_state();
            start.base.at = 0;
            assert_ne!(
                export_file(ExportKind::Checkpoint, &Micro::format_link(&start)).unwrap(),
                export_file(ExportKind::Checkpoint, &hash).unwrap(),
                "{hash}"
            );
        }
    }

    #[test]
    fn a_link_that_cannot_be_read_is_named() {
        let error = export_file(ExportKind::Trace, "#preset=no-such-preset").unwrap_err();
        assert!(error.contains("no-such-preset"), "{error}");
        assert_eq!(
            ExportKind::from_name("checkpoint"),
            Some(ExportKind::Checkpoint)
        );
        assert_eq!(ExportKind::from_name("zip"), None);
    }
}

//! The verdict badge in the header: running (with what is delivered so far) or the verdict.

use batchscope_check::oracle::Verdict;
use batchscope_check::progress::Progress;

/// The verdict badge in the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    /// CSS class / stable name: `running`, `exactly-once`, `duplicates`, `data-loss`,
    /// `duplicates-and-loss`, `stuck`, `stopped`.
    pub class: String,
    /// The big text.
    pub title: String,
    /// The small text.
    pub detail: String,
}

/// The badge: `verdict` is `None` while the run has not settled, else the oracle's verdict.
/// `lost_now` counts keys already behind a committed batch (shown while running); `unread`
/// the records a query stopped for good never delivered and its next start would (not lost,
/// not counted in `delivered`).
pub fn badge(
    verdict: Option<Verdict>,
    expected: u64,
    delivered: u64,
    duplicates: u64,
    lost_now: u64,
    unread: u64,
) -> Badge {
    let dup = if duplicates == 1 {
        "1 duplicate".to_string()
    } else {
        format!("{duplicates} duplicates")
    };
    match verdict {
        None if lost_now > 0 => Badge {
            class: "running-loss".into(),
            title: "running".into(),
            detail: format!("{delivered}/{expected} delivered · {lost_now} already lost"),
        },
        None => Badge {
            class: "running".into(),
            title: "running".into(),
            detail: format!("so far {delivered}/{expected} delivered · {dup}"),
        },
        Some(v) => {
            let lost = expected.saturating_sub(delivered + unread);
            let still = if unread > 0 && v != Verdict::Stopped {
                format!(" · {unread} unread")
            } else {
                String::new()
            };
            let detail = match v {
                Verdict::ExactlyOnce => format!("all {expected} records, each once"),
                Verdict::Stopped => format!(
                    "{delivered} of {expected} delivered · {unread} unread, still upstream · nothing lost"
                ),
                Verdict::Duplicates => format!("{dup} · nothing lost"),
                Verdict::DataLoss => format!("{lost} of {expected} lost · no duplicates"),
                Verdict::DuplicatesAndLoss => format!("{lost} lost · {dup}"),
                Verdict::Stuck => format!("no convergence: {delivered} of {expected} delivered"),
            };
            Badge {
                class: v.name().to_string(),
                title: v.name().replace('-', " "),
                detail: detail + &still,
            }
        }
    }
}

/// [`badge`] from the oracle's count of the sink ([`Progress`]): what the dashboard's header
/// shows, with `lost_now` keys already behind a committed batch.
pub fn progress_badge(verdict: Option<Verdict>, progress: &Progress, lost_now: u64) -> Badge {
    badge(
        verdict,
        progress.expected,
        progress.delivered,
        progress.duplicates,
        lost_now,
        progress.unread,
    )
}

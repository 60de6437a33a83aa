//! The verdict badge in the header: running (with what is delivered so far) or the verdict.

use batchscope_check::oracle::Verdict;

/// The verdict badge in the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    /// CSS class / stable name: `running`, `exactly-once`, `duplicates`, `data-loss`,
    /// `duplicates-and-loss`, `stuck`.
    pub class: String,
    /// The big text.
    pub title: String,
    /// The small text.
    pub detail: String,
}

/// The badge: `verdict` is `None` while the run has not settled, else the oracle's verdict.
/// `lost_now` counts keys already behind a committed batch (shown while running).
pub fn badge(
    verdict: Option<Verdict>,
    expected: u64,
    delivered: u64,
    duplicates: u64,
    lost_now: u64,
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
            let lost = expected.saturating_sub(delivered);
            let detail = match v {
                Verdict::ExactlyOnce => format!("all {expected} records, each once"),
                Verdict::Duplicates => format!("{dup} · nothing lost"),
                Verdict::DataLoss => format!("{lost} of {expected} lost · no duplicates"),
                Verdict::DuplicatesAndLoss => format!("{lost} lost · {dup}"),
                Verdict::Stuck => format!("no convergence: {delivered} of {expected} delivered"),
            };
            Badge {
                class: v.name().to_string(),
                title: v.name().replace('-', " "),
                detail,
            }
        }
    }
}

//! The verdict badge in the header: running (with what is delivered so far) or the verdict.

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

/// The badge: `verdict` is `None` while the run has not settled, else the oracle's verdict name.
/// `lost_now` counts keys already behind a committed batch (shown while running).
pub fn badge(
    verdict: Option<&str>,
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
                "exactly-once" => format!("all {expected} records, each once"),
                "duplicates" => format!("{dup} · nothing lost"),
                "data-loss" => format!("{lost} of {expected} lost · no duplicates"),
                "duplicates-and-loss" => format!("{lost} lost · {dup}"),
                "stuck" => format!("no convergence: {delivered} of {expected} delivered"),
                _ => String::new(),
            };
            Badge {
                class: v.to_string(),
                title: v.replace('-', " "),
                detail,
            }
        }
    }
}

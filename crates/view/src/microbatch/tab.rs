//! The side panel's tabs: the one name for them in the link (`tab=checkpoint`), the tours (the
//! tab a stop shows), the dashboard's tab bar and the tests.

/// A tab of the side panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tab {
    /// Channel checkpoints (Tunnel server, readers).
    Channels,
    /// The Meta table.
    Meta,
    /// The checkpoint folder.
    Checkpoint,
    /// The sink.
    Sink,
    /// What Spark's UI would show: rates, durations and rows per batch.
    Progress,
}

impl Tab {
    /// Every tab, in its order on screen.
    pub const ALL: [Tab; 5] = [
        Tab::Channels,
        Tab::Meta,
        Tab::Checkpoint,
        Tab::Sink,
        Tab::Progress,
    ];

    /// The stable name (the link's `tab=`, element ids, test ids): `channels`, `meta`,
    /// `checkpoint`, `sink`, `progress`.
    pub fn name(self) -> &'static str {
        match self {
            Tab::Channels => "channels",
            Tab::Meta => "meta",
            Tab::Checkpoint => "checkpoint",
            Tab::Sink => "sink",
            Tab::Progress => "progress",
        }
    }

    /// The tab named `name` (`checkpoint`), if there is one.
    pub fn from_name(name: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The title on the tab: `Channels`, `Meta table`, `Checkpoint` (the folder), `Sink`, `Spark UI`.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Channels => "Channels",
            Tab::Meta => "Meta table",
            Tab::Checkpoint => "Checkpoint",
            Tab::Sink => "Sink",
            Tab::Progress => "Spark UI",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tab_reads_back_from_its_name() {
        for tab in Tab::ALL {
            assert_eq!(Tab::from_name(tab.name()), Some(tab));
        }
        assert_eq!(Tab::from_name("Sink"), None, "names are lower case");
    }
}

//! The one message between the page and its second module (`batchscope-modes`): everything the
//! module draws into an element the page gives it ([`ModulePart`]), and everything a drawn part
//! says back ([`ModuleReply`]). Both cross as JSON through one pair of the module's exports,
//! `draw(root, part, reply)` and `remove(slot)`: a new part is one variant here, one arm in the
//! module's `draw`, and the component that hosts it.

use serde::{Deserialize, Serialize};

/// A part of the page drawn by the second module, with the values it is drawn with. Drawing a
/// part again into the same element gives the drawn one these values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModulePart {
    /// The Topology dashboard.
    Topology,
    /// The Inspect page.
    Inspect,
    /// The micro-batch dashboard's Explore dialog.
    Explore {
        /// The preset on screen (or the name of one's own scenario).
        preset: String,
        /// Its scenario as JSON (crash inputs are ignored by the explorer).
        scenario: String,
        /// The page's own scenario (`scenario=` of the link) as JSON, if any: a run opened
        /// from the dialog keeps it.
        custom: Option<String>,
        /// Whether the dialog is shown.
        open: bool,
    },
    /// The micro-batch dashboard's scenario editor.
    Editor {
        /// The scenario on screen as JSON, crash points included.
        scenario: String,
        /// Whether the editor is shown.
        open: bool,
    },
    /// The micro-batch dashboard's compare mode.
    Compare {
        /// The page's link of both runs without its cursor (both runs are made from it again
        /// only when it changes).
        link: String,
        /// The moment on screen.
        cursor: usize,
        /// The arrows' animation length, in whole milliseconds.
        animate_ms: u32,
    },
    /// The micro-batch dashboard's minimap (the whole run, batch by batch).
    Minimap {
        /// The page's link without its cursor, tab, file, tour and comparison: the run is
        /// made from it again only when it changes (it is deterministic in it).
        link: String,
        /// The moment on screen.
        cursor: usize,
        /// The guided tour's stops in this run, (cursor, title); empty when the tour is off.
        stops: Vec<(usize, String)>,
    },
}

/// Where the module keeps a drawn part: at most one of each at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartSlot {
    /// The Topology dashboard or the Inspect page.
    Dashboard,
    /// The Explore dialog.
    Explore,
    /// The scenario editor.
    Editor,
    /// Compare mode.
    Compare,
    /// The minimap.
    Minimap,
}

impl PartSlot {
    /// Every slot.
    pub const ALL: [PartSlot; 5] = [
        PartSlot::Dashboard,
        PartSlot::Explore,
        PartSlot::Editor,
        PartSlot::Compare,
        PartSlot::Minimap,
    ];

    /// Its name between the page and the module (`remove("explore")`).
    pub fn name(self) -> &'static str {
        match self {
            PartSlot::Dashboard => "dashboard",
            PartSlot::Explore => "explore",
            PartSlot::Editor => "editor",
            PartSlot::Compare => "compare",
            PartSlot::Minimap => "minimap",
        }
    }

    /// The slot named `name`.
    pub fn from_name(name: &str) -> Option<PartSlot> {
        PartSlot::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl ModulePart {
    /// The slot the part is kept in.
    pub fn slot(&self) -> PartSlot {
        match self {
            ModulePart::Topology | ModulePart::Inspect => PartSlot::Dashboard,
            ModulePart::Explore { .. } => PartSlot::Explore,
            ModulePart::Editor { .. } => PartSlot::Editor,
            ModulePart::Compare { .. } => PartSlot::Compare,
            ModulePart::Minimap { .. } => PartSlot::Minimap,
        }
    }
}

/// What a part drawn by the module says back to the page, as one line of text
/// ([`ModuleReply::text`], read back by [`ModuleReply::read`]): `close`, `apply` and the
/// scenario's JSON, or `seek` and a cursor. Not JSON itself: the page's first module reads it, and a JSON reader for
/// this enum would cost it more than the whole exchange.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleReply {
    /// The part asks to be closed (the dialog's or the editor's close button, Escape).
    Close,
    /// The editor hands back a valid edit: its scenario as JSON (the page runs it).
    Apply {
        /// The edited scenario.
        scenario: String,
    },
    /// The minimap asks the page to show this many events (a click on a batch).
    Seek {
        /// The cursor to seek to.
        to: usize,
    },
}

impl ModuleReply {
    /// The reply as the module sends it.
    pub fn text(&self) -> String {
        match self {
            ModuleReply::Close => "close".into(),
            ModuleReply::Apply { scenario } => format!("apply {scenario}"),
            ModuleReply::Seek { to } => format!("seek {to}"),
        }
    }

    /// A reply read back from [`ModuleReply::text`]; `None` for anything else.
    pub fn read(text: &str) -> Option<ModuleReply> {
        match text.split_once(' ') {
            None if text == "close" => Some(ModuleReply::Close),
            Some(("apply", scenario)) => Some(ModuleReply::Apply {
                scenario: scenario.to_string(),
            }),
            Some(("seek", to)) => to.parse().ok().map(|to| ModuleReply::Seek { to }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_replies_cross_as_json_and_back() {
        let parts = [
            ModulePart::Topology,
            ModulePart::Explore {
                preset: "kafka-append".into(),
                scenario: "{}".into(),
                custom: None,
                open: true,
            },
            ModulePart::Compare {
                link: "#preset=kafka-append&vs=tablestore".into(),
                cursor: 12,
                animate_ms: 150,
            },
            ModulePart::Minimap {
                link: "#preset=kafka-append&seed=3".into(),
                cursor: 40,
                stops: vec![(12, "The crash".into())],
            },
        ];
        for part in parts {
            let text = serde_json::to_string(&part).unwrap();
            assert_eq!(serde_json::from_str::<ModulePart>(&text).unwrap(), part);
            assert_eq!(PartSlot::from_name(part.slot().name()), Some(part.slot()));
        }
        let reply = ModuleReply::Apply {
            scenario: "{\"name\":\"x\"}".into(),
        };
        assert_eq!(ModuleReply::read(&reply.text()), Some(reply));
        assert_eq!(ModuleReply::read("close"), Some(ModuleReply::Close));
        assert_eq!(ModuleReply::read("closed"), None);
        assert_eq!(ModuleReply::read("apply"), None);
        let seek = ModuleReply::Seek { to: 57 };
        assert_eq!(seek.text(), "seek 57");
        assert_eq!(ModuleReply::read(&seek.text()), Some(seek));
        assert_eq!(ModuleReply::read("seek x"), None);
    }
}

//! The colour theme both modes share: follow the system, or light, or dark.

/// Colour theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// Follow `prefers-color-scheme`.
    System,
    /// Light.
    Light,
    /// Dark.
    Dark,
}

impl Theme {
    /// The next theme of the toggle.
    pub fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Dark,
            Theme::Dark => Theme::Light,
            Theme::Light => Theme::System,
        }
    }

    /// Whether the page is dark under this theme (`System` asks `prefers-color-scheme`).
    pub fn is_dark(self) -> bool {
        match self {
            Theme::Dark => true,
            Theme::Light => false,
            Theme::System => super::media_matches("(prefers-color-scheme: dark)"),
        }
    }

    /// `data-theme` value on the root element (`system` lets the media query decide).
    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The symbol on the theme button.
    pub fn symbol(self) -> &'static str {
        match self {
            Theme::System => "◐",
            Theme::Dark => "☾",
            Theme::Light => "☀",
        }
    }
}

//! What the page reads of its browser's environment: the monotonic clock and media queries.

/// Milliseconds on the page's monotonic clock (`performance.now()`); 0 where there is none.
pub fn now_ms() -> f64 {
    gloo::utils::window().performance().map_or(0.0, |p| p.now())
}

/// Whether the media query `query` (`(prefers-color-scheme: dark)`) holds now.
pub fn media_matches(query: &str) -> bool {
    gloo::utils::window()
        .match_media(query)
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

//! The shareable state in the URL hash: `#preset=kafka-append&seed=7&crash=sink-commit@3&fault=task-fail@2&after=57&outage=4150-5650&tour=1&at=60`.
//!
//! Preset, seed, the recorded crash inputs and the armed faults define the run; `at` is the cursor (events shown).
//! A link therefore reproduces the exact moment. Parsing never panics: every problem is named.

pub mod scenario;

use super::tab::Tab;
use crate::url::{error, flag, items, number, pairs, UrlError};
use batchscope_engine::microbatch::scenario::CrashPoint;
use batchscope_engine::microbatch::scenario::Fault;
use batchscope_engine::microbatch::scenario::Window;

/// The preset loaded when the URL names none (or a broken one).
pub const DEFAULT_PRESET: &str = "tablestore";
/// The seed used when the URL names none.
pub const DEFAULT_SEED: u64 = 7;

/// What the URL hash holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlState {
    /// Preset name.
    pub preset: String,
    /// Seed of the world's PRNG.
    pub seed: u64,
    /// Armed crash points (`crash=sink-commit@3,task@4`).
    pub crashes: Vec<CrashPoint>,
    /// Faults inside a batch armed besides the preset's own (`fault=task-fail@3,foreach-fail@4`).
    pub faults: Vec<Fault>,
    /// "Crash now" inputs: the driver dies after the event with this sequence number (`after=57`).
    pub crash_after_events: Vec<u64>,
    /// Sink outages besides the scenario's own (`outage=4150-5650`: the sink's store is down
    /// from 4,150 ms to 5,650 ms), as a click on the sink's lane arms one.
    pub outages: Vec<Window>,
    /// Number of events shown (the cursor).
    pub at: u64,
    /// Whether the guided tour is on (`tour=1`): playback pauses at the lesson's stops.
    pub tour: bool,
    /// The side panel's tab on screen (`tab=checkpoint`), when not the first.
    pub tab: Option<Tab>,
    /// The checkpoint file open in its tab (`file=offsets/3`).
    pub file: Option<String>,
}

impl UrlState {
    /// The state of a fresh page: the default preset at the start.
    pub fn default_for(preset: &str) -> UrlState {
        UrlState {
            preset: preset.to_string(),
            seed: DEFAULT_SEED,
            crashes: vec![],
            faults: vec![],
            crash_after_events: vec![],
            outages: vec![],
            at: 0,
            tour: false,
            tab: None,
            file: None,
        }
    }
}

/// The tab a link names (`tab=checkpoint`), or the error naming the known ones.
fn tab_of(value: &str) -> Result<Tab, UrlError> {
    Tab::from_name(value).ok_or_else(|| {
        let known = Tab::ALL.map(Tab::name).join(", ");
        error("tab", format!("unknown tab `{value}` (known: {known})"))
    })
}

/// Each item of a list value (`crash=sink-commit@3,task@4`), read by `read` into `into`; the
/// items it cannot read go to `errors`.
fn each<T>(
    value: &str,
    into: &mut Vec<T>,
    errors: &mut Vec<UrlError>,
    read: impl Fn(&str) -> Result<T, UrlError>,
) {
    for item in items(value) {
        match read(item.trim()) {
            Ok(v) => into.push(v),
            Err(e) => errors.push(e),
        }
    }
}

/// A sink outage of a link (`4150-5650`: from 4,150 ms to 5,650 ms), or the error naming it.
fn outage_of(item: &str) -> Result<Window, UrlError> {
    let (from, to) = item.split_once('-').ok_or_else(|| {
        error(
            "outage",
            format!("`{item}` is not FROM-TO in ms (4150-5650)"),
        )
    })?;
    let from_ms = number("outage", from, "a time in ms")?;
    let to_ms = number("outage", to, "a time in ms")?;
    if to_ms <= from_ms {
        return Err(error("outage", format!("`{item}` ends before it begins")));
    }
    Ok(Window { from_ms, to_ms })
}

/// Parses a URL hash (with or without the leading `#`). `known_presets` are the valid names.
/// An empty hash gives the default state. Unknown parameters are ignored; every bad value of a
/// known one is reported (all of them, not only the first).
pub fn parse(hash: &str, known_presets: &[&str]) -> Result<UrlState, Vec<UrlError>> {
    match parse_partial(hash, known_presets) {
        (state, errors) if errors.is_empty() => Ok(state),
        (_, errors) => Err(errors),
    }
}

/// [`parse`], keeping what can be kept: the state with every bad value left at its default
/// (a bad `seed=` gives the default seed, a bad item of `crash=` is left out, the good ones
/// stay), and the problems, named by their parameter.
pub fn parse_partial(hash: &str, known_presets: &[&str]) -> (UrlState, Vec<UrlError>) {
    let default = if known_presets.contains(&DEFAULT_PRESET) || known_presets.is_empty() {
        DEFAULT_PRESET
    } else {
        known_presets[0]
    };
    let mut state = UrlState::default_for(default);
    let mut errors = vec![];
    for (key, value) in pairs(hash) {
        match key.as_str() {
            "preset" => {
                if known_presets.contains(&value.as_str()) {
                    state.preset = value;
                } else {
                    errors.push(error(
                        "preset",
                        format!(
                            "unknown preset `{value}` (known: {})",
                            known_presets.join(", ")
                        ),
                    ));
                }
            }
            "seed" => match number("seed", &value, "a seed") {
                Ok(s) => state.seed = s,
                Err(e) => errors.push(e),
            },
            "at" => match number("at", &value, "an event count") {
                Ok(a) => state.at = a,
                Err(e) => errors.push(e),
            },
            "crash" => each(&value, &mut state.crashes, &mut errors, |item| {
                item.parse::<CrashPoint>()
                    .map_err(|e| error("crash", e.to_string()))
            }),
            "fault" => each(&value, &mut state.faults, &mut errors, |item| {
                item.parse::<Fault>()
                    .map_err(|e| error("fault", e.to_string()))
            }),
            "after" => each(&value, &mut state.crash_after_events, &mut errors, |item| {
                number("after", item, "an event number")
            }),
            "outage" => each(&value, &mut state.outages, &mut errors, outage_of),
            "tour" => match flag("tour", &value) {
                Ok(on) => state.tour = on,
                Err(e) => errors.push(e),
            },
            "tab" => match tab_of(&value) {
                Ok(tab) => state.tab = Some(tab),
                Err(e) => errors.push(e),
            },
            "file" if is_checkpoint_path(&value) => state.file = Some(value),
            "file" => errors.push(error(
                "file",
                format!("`{value}` is not a checkpoint file path"),
            )),
            _ => {}
        }
    }
    (state, errors)
}

/// Formats the state as a hash (with the leading `#`); `parse(format(s)) == s`.
pub fn format(state: &UrlState) -> String {
    let mut s = format!("#preset={}&seed={}", state.preset, state.seed);
    if !state.crashes.is_empty() {
        let list: Vec<String> = state.crashes.iter().map(|c| c.to_string()).collect();
        s.push_str(&format!("&crash={}", list.join(",")));
    }
    if !state.faults.is_empty() {
        let list: Vec<String> = state.faults.iter().map(|f| f.to_string()).collect();
        s.push_str(&format!("&fault={}", list.join(",")));
    }
    if !state.crash_after_events.is_empty() {
        let list: Vec<String> = state
            .crash_after_events
            .iter()
            .map(|c| c.to_string())
            .collect();
        s.push_str(&format!("&after={}", list.join(",")));
    }
    if !state.outages.is_empty() {
        let list: Vec<String> = state
            .outages
            .iter()
            .map(|w| format!("{}-{}", w.from_ms, w.to_ms))
            .collect();
        s.push_str(&format!("&outage={}", list.join(",")));
    }
    if state.tour {
        s.push_str("&tour=1");
    }
    if let Some(tab) = &state.tab {
        s.push_str(&format!("&tab={}", tab.name()));
    }
    if let Some(file) = &state.file {
        s.push_str(&format!("&file={file}"));
    }
    s.push_str(&format!("&at={}", state.at));
    s
}

/// Whether `path` looks like a file of a checkpoint folder (`offsets/3`, `sources/0/0`):
/// relative, `/`-separated names of letters, digits, `.`, `-` and `_`, no `..`.
fn is_checkpoint_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= 200
        && path.split('/').all(|part| {
            !part.is_empty()
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::percent_decode;

    const KNOWN: &[&str] = &["kafka-append", "tablestore", "sink-outage"];

    #[test]
    fn a_full_hash_round_trips() {
        let s = UrlState {
            preset: "kafka-append".into(),
            seed: 42,
            crashes: vec!["sink-commit@3".parse().unwrap(), "task@4".parse().unwrap()],
            faults: vec!["task-fail@2".parse().unwrap()],
            crash_after_events: vec![57, 90],
            outages: vec![Window {
                from_ms: 4150,
                to_ms: 5650,
            }],
            at: 61,
            tour: true,
            tab: Some(Tab::Checkpoint),
            file: Some("offsets/3".into()),
        };
        let text = format(&s);
        assert_eq!(
            text,
            "#preset=kafka-append&seed=42&crash=sink-commit@3,task@4&fault=task-fail@2&after=57,90&outage=4150-5650&tour=1&tab=checkpoint&file=offsets/3&at=61"
        );
        assert_eq!(parse(&text, KNOWN), Ok(s.clone()));
        // Without the `#`, and with `@` and `,` percent-encoded by a chat app.
        let encoded = text[1..].replace('@', "%40").replace(',', "%2C");
        assert_eq!(parse(&encoded, KNOWN), Ok(s));
    }

    #[test]
    fn an_empty_hash_is_the_default_scenario() {
        let s = parse("", KNOWN).unwrap();
        assert_eq!(s, UrlState::default_for("tablestore"));
        assert_eq!(parse("#", KNOWN).unwrap(), s);
        assert_eq!(format(&s), "#preset=tablestore&seed=7&at=0");
        // Without the default preset among the known ones, the first known is the default.
        assert_eq!(parse("", &["kafka-append"]).unwrap().preset, "kafka-append");
    }

    #[test]
    fn every_bad_value_is_named() {
        let errors = parse(
            "#preset=nope&seed=abc&crash=explode@3&at=-1&tour=yes",
            KNOWN,
        )
        .unwrap_err();
        let params: Vec<&str> = errors.iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["preset", "seed", "crash", "at", "tour"]);
        assert!(errors[4].reason.contains("`yes` is not 1 or 0"));
        assert!(errors[0].reason.contains("unknown preset `nope`"));
        assert!(errors[0].reason.contains("kafka-append"));
        assert!(errors[1].reason.contains("`abc` is not a seed"));
        assert!(errors[2].reason.contains("explode"));
        assert!(errors[3].to_string().starts_with("at: `-1`"));
    }

    #[test]
    fn a_crash_point_without_batch_or_with_a_bad_batch_is_an_error() {
        let e = parse("#crash=sink-commit", KNOWN).unwrap_err();
        assert!(e[0].reason.contains("NAME@BATCH"));
        let e = parse("#crash=sink-commit@x", KNOWN).unwrap_err();
        assert!(e[0].reason.contains("batch `x`"));
        let e = parse("#after=5,z", KNOWN).unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].param, "after");
    }

    #[test]
    fn a_fault_of_an_unknown_kind_is_named() {
        let e = parse("#fault=disk-full@3", KNOWN).unwrap_err();
        assert_eq!(e[0].param, "fault");
        assert!(e[0].reason.contains("disk-full"), "{}", e[0]);
        let s = parse("#fault=task-fail%403,checkpoint-deleted@2", KNOWN).unwrap();
        let names: Vec<String> = s.faults.iter().map(|f| f.to_string()).collect();
        assert_eq!(names, ["task-fail@3", "checkpoint-deleted@2"]);
    }

    #[test]
    fn unknown_parameters_are_ignored() {
        let s = parse("#preset=sink-outage&utm=x&seed=3", KNOWN).unwrap();
        assert_eq!(s.preset, "sink-outage");
        assert_eq!(s.seed, 3);
    }

    #[test]
    fn percent_decoding_leaves_broken_escapes_alone() {
        assert_eq!(percent_decode("a%40b"), "a@b");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
        assert_eq!(percent_decode("a+b"), "a b");
    }

    #[test]
    fn a_tab_and_a_file_travel_in_the_link_and_bad_ones_are_named() {
        let names = ["kafka-append"];
        let s = parse(
            "#preset=kafka-append&tab=checkpoint&file=offsets/3&at=9",
            &names,
        )
        .unwrap();
        assert_eq!(s.tab, Some(Tab::Checkpoint));
        assert_eq!(s.file.as_deref(), Some("offsets/3"));
        assert_eq!(parse(&format(&s), &names).unwrap(), s);
        let errors = parse("#preset=kafka-append&tab=nope&file=../etc/passwd", &names).unwrap_err();
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert!(
            text.iter().any(|e| e.contains("tab") && e.contains("nope")),
            "{text:?}"
        );
        assert!(text.iter().any(|e| e.contains("file")), "{text:?}");
    }

    #[test]
    fn a_bad_outage_is_named_and_the_rest_kept() {
        let (state, errors) =
            parse_partial("#preset=kafka-append&outage=9-3,5000,1000-2000&at=4", KNOWN);
        assert_eq!(
            state.outages,
            vec![Window {
                from_ms: 1000,
                to_ms: 2000
            }]
        );
        assert_eq!(state.at, 4);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors.iter().all(|e| e.to_string().contains("outage")));
    }
}

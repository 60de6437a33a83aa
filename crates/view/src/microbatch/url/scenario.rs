//! A scenario of one's own in the link: `#scenario=<base64url of the scenario JSON, no padding>`
//! in place of `preset=`, and compare mode's second run, `vs=<preset>` or `vs=<base64url>`.
//! The rest of the hash (seed, crashes, cursor, tour) is read by [`super::parse`] as for presets.
//!
//! The seed and the crash inputs travel in their own keys, not in the encoded JSON, so a link
//! made by the page and a hand-edited one read alike.

use super::{format, parse_partial, UrlError, UrlState};
use crate::url::{error, pairs};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use batchscope_check::liveness::Limit;
use batchscope_engine::microbatch::scenario::Scenario;

/// The longest `scenario=` / `vs=` value read (characters of base64url): links longer than this
/// are cut by chat apps and some browsers, and the JSON of any sensible scenario fits.
pub const MAX_ENCODED: usize = 24_000;

/// The name a link's scenario goes by in the preset menu when it names none.
pub const CUSTOM: &str = "custom";

/// Compare mode's second run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Versus {
    /// A preset, by name.
    Preset(String),
    /// A scenario of one's own.
    Scenario(Box<Scenario>),
}

/// A micro-batch link: the preset-style state, and optionally a scenario of one's own in place
/// of the preset and a second run to compare with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Seed, crash inputs, cursor, tour (and the preset when `custom` is `None`).
    pub base: UrlState,
    /// The scenario of `scenario=` (its seed and crash inputs are those of `base`).
    pub custom: Option<Box<Scenario>>,
    /// The run of `vs=`.
    pub vs: Option<Versus>,
}

impl Link {
    /// A preset's link (no scenario of one's own, no comparison).
    pub fn of(base: UrlState) -> Link {
        Link {
            base,
            custom: None,
            vs: None,
        }
    }
}

/// The scenario as base64url of its compact JSON, without seed and crash inputs.
pub fn encode(scenario: &Scenario) -> String {
    let mut bare = scenario.clone();
    bare.crashes.clear();
    bare.crash_after_events.clear();
    let json = serde_json::to_string(&bare).expect("a scenario serializes");
    URL_SAFE_NO_PAD.encode(json.as_bytes())
}

/// The most events (by the engine's upper estimate, `Scenario::work`) a run the dashboard
/// plays may take. The dashboard records the whole run and keeps at most 64 snapshots to seek
/// in it; the snapshots share the sink's rows and files (a world's clone copies a pointer per
/// 1,024 rows), so what a long run costs is its events and one world. Every preset estimates
/// under 2,000; 16 channels × 200 batches about 21,000 (8,216 events run); 64 channels ×
/// 1,000 batches 290,920 (137,004 events run, about 2 s to record natively).
pub const DASHBOARD_MAX_EVENTS: u64 = 300_000;

/// The event bound the dashboard records `scenario` under: the judges' screen limit, raised to
/// the scenario's own estimate (at most [`DASHBOARD_MAX_EVENTS`]) so a large scenario that fits
/// is played to its end, while a small one that never settles stops as early as before.
pub fn dashboard_limit(scenario: &Scenario) -> Limit {
    Limit {
        max_events: scenario
            .work()
            .events
            .clamp(Limit::SCREEN.max_events, DASHBOARD_MAX_EVENTS),
    }
}

/// Whether the dashboard can play `scenario`; if not, what is too large, and what to do.
pub fn fits_dashboard(scenario: &Scenario) -> Result<(), String> {
    let events = scenario.work().events;
    if events <= DASHBOARD_MAX_EVENTS {
        return Ok(());
    }
    Err(format!(
        "a run of this scenario could take up to {events} steps, over the {DASHBOARD_MAX_EVENTS} the dashboard plays \
         (upstream.channels {} × batches {}): lower them, or run it with `batchscope run FILE`",
        scenario.upstream.channels, scenario.batches
    ))
}

/// Reads the value of `param` (base64url of scenario JSON); every failure names `param`.
pub fn decode(param: &str, value: &str) -> Result<Scenario, UrlError> {
    if value.len() > MAX_ENCODED {
        return Err(error(
            param,
            format!(
                "the scenario is {} characters long, over the {MAX_ENCODED} a link may carry (save it as a file instead)",
                value.len()
            ),
        ));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(value.trim_end_matches('=').as_bytes())
        .map_err(|e| error(param, format!("not base64url ({e})")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| error(param, "the decoded scenario is not UTF-8 text".into()))?;
    let scenario = Scenario::from_json(&text)
        .map_err(|e| error(param, format!("the scenario is invalid: {e}")))?;
    fits_dashboard(&scenario).map_err(|reason| error(param, reason))?;
    Ok(scenario)
}

/// Parses a micro-batch hash with `scenario=` and `vs=`; every problem, named.
pub fn parse_link(hash: &str, known_presets: &[&str]) -> Result<Link, Vec<UrlError>> {
    match read_link(hash, known_presets) {
        (Some(link), errors) if errors.is_empty() => Ok(link),
        (_, errors) => Err(errors),
    }
}

/// The parameters that say which run a link opens: with one of them broken, nothing of the
/// link is kept (its other fields belong to a run the page cannot open).
pub const RUN_PARAMS: [&str; 2] = ["preset", "scenario"];

/// [`parse_link`], keeping what can be kept: a link whose run can be opened (its `preset=` or
/// `scenario=` read) comes back with every other bad field dropped — a mistyped `seed=` gives
/// the default seed, a bad crash is left out and the good ones stay —, and the problems, named
/// by their parameter. `None` when the run itself cannot be opened.
pub fn read_link(hash: &str, known_presets: &[&str]) -> (Option<Link>, Vec<UrlError>) {
    let mut errors = vec![];
    let mut custom = None;
    let mut vs = None;
    let mut seed_given = false;
    for (key, value) in pairs(hash) {
        match key.as_str() {
            "scenario" => match decode("scenario", &value) {
                Ok(s) => custom = Some(Box::new(s)),
                Err(e) => errors.push(e),
            },
            "vs" if known_presets.contains(&value.as_str()) => vs = Some(Versus::Preset(value)),
            "vs" if value.starts_with("ey") => match decode("vs", &value) {
                Ok(s) => vs = Some(Versus::Scenario(Box::new(s))),
                Err(e) => errors.push(e),
            },
            "vs" => errors.push(error(
                "vs",
                format!(
                    "`{value}` is neither a preset (known: {}) nor a base64url scenario",
                    known_presets.join(", ")
                ),
            )),
            "seed" => seed_given = true,
            _ => {}
        }
    }
    let (mut base, mut more) = parse_partial(hash, known_presets);
    errors.append(&mut more);
    if errors
        .iter()
        .any(|e| RUN_PARAMS.contains(&e.param.as_str()))
    {
        return (None, errors);
    }
    if let Some(s) = &mut custom {
        if !seed_given {
            base.seed = s.seed;
        }
        // Crash inputs written into the JSON by hand join those of the link.
        for c in std::mem::take(&mut s.crashes) {
            if !base.crashes.contains(&c) {
                base.crashes.push(c);
            }
        }
        for n in std::mem::take(&mut s.crash_after_events) {
            if !base.crash_after_events.contains(&n) {
                base.crash_after_events.push(n);
            }
        }
        s.seed = base.seed;
        base.preset = if s.name.is_empty() {
            CUSTOM.to_string()
        } else {
            s.name.clone()
        };
    }
    (Some(Link { base, custom, vs }), errors)
}

/// Formats a link; `parse_link(format_link(l)) == l` for links the page makes.
pub fn format_link(link: &Link) -> String {
    let mut hash = format(&link.base);
    if let Some(s) = &link.custom {
        let preset = format!("#preset={}", link.base.preset);
        hash = hash.replacen(&preset, &format!("#scenario={}", encode(s)), 1);
    }
    match &link.vs {
        Some(Versus::Preset(name)) => hash.push_str(&format!("&vs={name}")),
        Some(Versus::Scenario(s)) => hash.push_str(&format!("&vs={}", encode(s))),
        None => {}
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_engine::microbatch::scenario::{preset, SinkKind};

    #[test]
    fn a_bad_field_is_dropped_and_the_rest_of_the_link_kept() {
        let names = ["kafka-append", "tablestore"];
        let hash = "#preset=kafka-append&seed=7x&crash=sink-commit@3,bogus@1&at=12";
        let (link, errors) = read_link(hash, &names);
        let link = link.expect("the run can be opened");
        assert_eq!(link.base.preset, "kafka-append");
        assert_eq!(link.base.seed, UrlState::default_for("x").seed);
        assert_eq!(link.base.at, 12);
        let crashes: Vec<String> = link.base.crashes.iter().map(|c| c.to_string()).collect();
        assert_eq!(crashes, ["sink-commit@3"]);
        let params: Vec<&str> = errors.iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["seed", "crash"]);
        assert!(
            parse_link(hash, &names).is_err(),
            "the strict reading still refuses it"
        );
        // A run that cannot be opened keeps nothing.
        let (none, errors) = read_link("#preset=kafka-apend&seed=9", &names);
        assert!(none.is_none());
        assert_eq!(errors[0].param, "preset");
        let (none, _) = read_link("#scenario=notbase64!&seed=9", &names);
        assert!(none.is_none());
    }

    fn names() -> Vec<&'static str> {
        batchscope_engine::microbatch::scenario::presets()
            .iter()
            .map(|p| p.name)
            .collect()
    }

    fn five_channels() -> Scenario {
        let mut s = preset("kafka-append").unwrap();
        s.name = "five-channels".into();
        s.upstream.channels = 5;
        s.sink.kind = SinkKind::Append;
        s
    }

    #[test]
    fn a_scenario_link_round_trips_with_seed_crashes_and_cursor() {
        let mut s = five_channels();
        s.seed = 11;
        let base = UrlState {
            preset: "five-channels".into(),
            seed: 11,
            crashes: vec!["sink-commit@3".parse().unwrap()],
            faults: vec!["task-fail@2".parse().unwrap()],
            crash_after_events: vec![],
            outages: vec![],
            at: 40,
            tour: false,
            tab: None,
            file: None,
        };
        let link = Link {
            base,
            custom: Some(Box::new(s.clone())),
            vs: Some(Versus::Preset("kafka-idempotent".into())),
        };
        let hash = format_link(&link);
        assert!(hash.starts_with("#scenario=ey"), "{hash}");
        assert!(!hash.contains("preset="), "{hash}");
        assert!(
            !hash.contains('='.to_string().repeat(2).as_str()),
            "no padding"
        );
        assert_eq!(parse_link(&hash, &names()), Ok(link));
    }

    #[test]
    fn the_scenario_seed_counts_unless_the_link_names_one() {
        let mut s = five_channels();
        s.seed = 23;
        s.crashes = vec!["task@2".parse().unwrap()];
        let hash = format!("#scenario={}", URL_SAFE_NO_PAD.encode(s.to_json()));
        let link = parse_link(&hash, &names()).unwrap();
        assert_eq!(link.base.seed, 23);
        assert_eq!(link.base.crashes, s.crashes, "crashes in the JSON are kept");
        assert_eq!(link.base.preset, "five-channels");
        let link = parse_link(&format!("{hash}&seed=4"), &names()).unwrap();
        assert_eq!(link.base.seed, 4);
        assert_eq!(link.custom.unwrap().seed, 4);
    }

    #[test]
    fn broken_and_too_long_scenarios_are_named() {
        let e = parse_link("#scenario=%%%", &names()).unwrap_err();
        assert_eq!(e[0].param, "scenario");
        assert!(e[0].reason.contains("base64url"), "{}", e[0]);
        let mut bad: serde_json::Value = serde_json::from_str(&five_channels().to_json()).unwrap();
        bad["upstream"]["channels"] = "five".into();
        let e = parse_link(
            &format!("#scenario={}", URL_SAFE_NO_PAD.encode(bad.to_string())),
            &names(),
        )
        .unwrap_err();
        assert!(e[0].reason.contains("upstream.channels"), "{}", e[0]);
        let long = "e".repeat(MAX_ENCODED + 1);
        let e = parse_link(&format!("#scenario={long}"), &names()).unwrap_err();
        assert!(e[0].reason.contains("over the"), "{}", e[0]);
        let e = parse_link("#preset=kafka-append&vs=nope&seed=x", &names()).unwrap_err();
        let params: Vec<&str> = e.iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["vs", "seed"]);
    }

    #[test]
    fn odd_values_are_named_never_a_panic() {
        let json = five_channels().to_json();
        let cut = URL_SAFE_NO_PAD.encode(&json[..json.len() / 2]);
        let not_utf8 = URL_SAFE_NO_PAD.encode([0xff, 0xfe, 0xfd]);
        let array = URL_SAFE_NO_PAD.encode("[1, 2]");
        let huge = {
            let mut s = five_channels();
            s.batches = u64::MAX;
            URL_SAFE_NO_PAD.encode(serde_json::to_string(&s).unwrap())
        };
        for value in ["", "e", "ey", "ey%", "é", &cut, &not_utf8, &array, &huge] {
            let errors =
                parse_link(&format!("#scenario={value}"), &names()).expect_err("not a scenario");
            assert_eq!(errors[0].param, "scenario", "{value}: {errors:?}");
            let errors = parse_link(&format!("#preset=tablestore&vs=ey{value}"), &names())
                .expect_err("not a scenario");
            assert_eq!(errors[0].param, "vs", "{value}: {errors:?}");
        }
    }

    #[test]
    fn a_preset_link_is_unchanged() {
        let hash = "#preset=kafka-append&seed=7&crash=sink-commit@3&at=5";
        let link = parse_link(hash, &names()).unwrap();
        assert_eq!(link, Link::of(super::super::parse(hash, &names()).unwrap()));
        assert_eq!(format_link(&link), hash);
    }

    /// Every preset fits the dashboard, and 64 channels × 1,000 batches; 64 × 5,000 does not,
    /// and its link names the parameter, the size and the way out, instead of hanging the tab.
    #[test]
    fn a_scenario_too_large_for_the_dashboard_is_refused_by_name() {
        for p in batchscope_engine::microbatch::scenario::presets() {
            let s = batchscope_engine::microbatch::scenario::preset(p.name).unwrap();
            assert_eq!(fits_dashboard(&s), Ok(()));
            assert_eq!(dashboard_limit(&s), Limit::SCREEN, "{}", p.name);
        }
        let mut large =
            batchscope_engine::microbatch::scenario::preset("kafka-idempotent").unwrap();
        large.upstream.channels = 64;
        large.batches = 1000;
        assert_eq!(fits_dashboard(&large), Ok(()));
        assert_eq!(dashboard_limit(&large).max_events, large.work().events);
        large.batches = 5000;
        let errors = parse_link(
            &format!("#scenario={}", encode(&large)),
            &["kafka-idempotent"],
        )
        .expect_err("refused");
        let text = errors[0].to_string();
        assert!(text.starts_with("scenario: "), "{text}");
        assert!(text.contains(&large.work().events.to_string()), "{text}");
        assert!(text.contains("batchscope run FILE"), "{text}");
    }
}

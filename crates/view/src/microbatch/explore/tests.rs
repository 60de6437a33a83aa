//! Tests of the depth-2 list, the run links, the reproducing lines and the matrix SVG, against
//! what the explorer finds.

use super::matrix::matrix_view;
use super::*;
use batchscope_check::explore::{Explorer, Fault, Summary};
use batchscope_check::oracle::check_world;
use batchscope_check::oracle::Verdict;
use batchscope_engine::microbatch::event::EventKind;
use batchscope_engine::microbatch::scenario::{preset, CrashPoint, Scenario};
use batchscope_engine::microbatch::World;

fn explore(name: &str, depth: u32) -> (Scenario, Summary) {
    let base = preset(name).unwrap();
    let mut e = Explorer::new(base.clone(), depth);
    e.set_parallel(false);
    (base, e.run_to_completion())
}

/// The scenario a `batchscope run --preset …` line builds (as the CLI reads its flags).
fn scenario_of_line(line: &str, file: Option<&str>) -> Scenario {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(&words[..2], ["batchscope", "run"], "{line}");
    let mut s = match file {
        Some(json) => Scenario::from_json(json).unwrap(),
        None => preset(words[words.iter().position(|w| *w == "--preset").unwrap() + 1]).unwrap(),
    };
    for pair in words[2..].windows(2) {
        match pair[0] {
            "--seed" => s.seed = pair[1].parse().unwrap(),
            "--batches" => s.batches = pair[1].parse().unwrap(),
            "--crash" => s.crashes.push(pair[1].parse().unwrap()),
            "--fault" => s.faults.push(pair[1].parse().unwrap()),
            _ => {}
        }
    }
    s
}

#[test]
fn pairs_come_worst_first_and_filter_by_verdict() {
    let (_, s) = explore("tablestore-two-phase", 2);
    let rows = pair_rows(&s, None);
    let (counts, exactly_once) = pair_counts(&s);
    assert_eq!(
        rows.len() as u64,
        counts.iter().map(|(_, n)| n).sum::<u64>()
    );
    assert_eq!(
        exactly_once.unwrap() + rows.len() as u64,
        s.runs_by_depth[&2]
    );
    assert_eq!(rows[0].verdict, Verdict::DataLoss, "data loss first");
    let ranks: Vec<u8> = rows.iter().map(|r| severity(r.verdict)).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "sorted by severity");
    let stuck = pair_rows(&s, Some(Verdict::Stuck));
    assert!(!stuck.is_empty() && stuck.iter().all(|r| r.verdict == Verdict::Stuck));
    assert!(rows
        .iter()
        .all(|r| r.crashes.len() + usize::from(r.fault.is_some()) == 2));
    let two = rows.iter().find(|r| r.fault.is_none()).unwrap();
    assert_eq!(two.crash_list(), format!("{},{}", two.first, two.second));
    let mixed = rows.iter().find(|r| r.fault.is_some()).unwrap();
    assert_eq!(mixed.what, format!("{} + {}", mixed.first, mixed.second));
    assert!(two
        .tooltip
        .starts_with(&format!("{} → {}", two.first, two.second)));
}

#[test]
fn a_pair_opens_at_its_first_crash_with_both_armed_and_its_line_reproduces_it() {
    let (base, s) = explore("kafka-append", 2);
    let rows = pair_rows(&s, None);
    let row = rows.iter().find(|r| r.fault.is_none()).unwrap();
    let link = run_link("kafka-append", &base, &row.crashes, row.fault.as_ref());
    assert_eq!(link.base.crashes, row.crashes);
    assert!(link.custom.is_none());
    let hash = crate::microbatch::url::scenario::format_link(&link);
    assert!(
        hash.contains(&format!("crash={}", row.crash_list())),
        "{hash}"
    );
    let r = reproduce("kafka-append", &base, &row.crashes, row.fault.as_ref());
    assert!(r.file.is_none());
    assert!(r
        .line
        .starts_with("batchscope run --preset kafka-append --seed 7 --crash "));
    let (report, world) = check_world(&scenario_of_line(&r.line, None), false);
    assert_eq!(report.verdict, row.verdict, "{}", r.line);
    // The cursor shows the first crash.
    let last = &world.events()[link.base.at as usize - 1];
    assert!(
        matches!(last.kind, batchscope_engine::microbatch::event::EventKind::Crashed { point: Some(p), .. } if p == row.crashes[0])
    );
}

#[test]
fn a_failure_inside_a_batch_is_a_fault_flag_and_opens_where_it_fails() {
    let (base, s) = explore("kafka-append", 1);
    let o = s.bad_runs.iter().find(|o| o.crashes.is_empty()).unwrap();
    let fault = o.fault.unwrap();
    let Fault::InBatch { fault: inner } = fault else {
        panic!("{fault}")
    };
    let link = run_link("kafka-append", &base, &[], Some(&fault));
    assert_eq!(link.base.faults, vec![inner]);
    assert!(link.base.at > 0);
    let r = reproduce("kafka-append", &base, &[], Some(&fault));
    assert_eq!(
        r.line,
        format!("batchscope run --preset kafka-append --seed 7 --fault {inner}")
    );
    let (report, world) = check_world(&scenario_of_line(&r.line, None), false);
    assert_eq!(report.verdict, o.verdict);
    let shown = &world.events()[link.base.at as usize - 1];
    assert!(
        matches!(
            shown.kind,
            batchscope_engine::microbatch::event::EventKind::TaskFailed { .. }
        ),
        "{:?}",
        shown.kind
    );
}

#[test]
fn an_outage_names_a_scenario_file_in_one_short_line() {
    let (base, s) = explore("auto-commit", 1);
    let o = s
        .bad_runs
        .iter()
        .find(|o| matches!(o.fault, Some(Fault::SinkOutage { .. })))
        .unwrap();
    let fault = o.fault.unwrap();
    let r = reproduce("auto-commit", &base, &[], Some(&fault));
    assert_eq!(r.line, format!("batchscope run {SCENARIO_FILE}"));
    let (what, json) = r.file.clone().unwrap();
    assert!(what.contains("sink outage"), "{what}");
    let (report, _) = check_world(&scenario_of_line(&r.line, Some(&json)), false);
    assert_eq!(report.verdict, o.verdict);
    // The link carries the run's own scenario, and opens where the sink write fails.
    let link = run_link("auto-commit", &base, &[], Some(&fault));
    let own = link.custom.clone().unwrap();
    assert_eq!(own.sink.outages.len(), base.sink.outages.len() + 1);
    assert_eq!(link.base.preset, "auto-commit");
    let hash = crate::microbatch::url::scenario::format_link(&link);
    let names: Vec<&str> = batchscope_engine::microbatch::scenario::presets()
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(
        crate::microbatch::url::scenario::parse_link(&hash, &names),
        Ok(link.clone())
    );
    let mut world = batchscope_engine::microbatch::World::new(*own);
    for _ in 0..link.base.at {
        world.step();
    }
    // A down store refuses a task's write: the task attempt fails (Spark retries it).
    assert!(matches!(
        world.events().last().unwrap().kind,
        batchscope_engine::microbatch::event::EventKind::TaskFailed {
            sink_down: Some(_),
            ..
        }
    ));
}

#[test]
fn the_matrix_svg_draws_every_cell_in_its_colour() {
    let (_, s) = explore("kafka-append", 1);
    let m = matrix_view(&s);
    let out = matrix_svg(&m, "kafka-append <seed 7>", "crash point × batch");
    assert!(out
        .svg
        .contains("<svg xmlns=\"http://www.w3.org/2000/svg\" width="));
    assert!(out.svg.contains("kafka-append &lt;seed 7&gt;"));
    let cells = m.rows.iter().flat_map(|r| &r.cells);
    let drawn = cells.clone().filter(|c| c.color.is_some()).count();
    assert_eq!(out.svg.matches("<g><title>").count(), drawn);
    let sc = cells
        .clone()
        .find(|c| c.point.to_string() == "sink-commit@3")
        .unwrap();
    assert!(out.svg.contains(&format!("<title>{}</title>", sc.tooltip)));
    assert!(out.width >= 660.0 && out.height > 200.0);
    assert!(out.svg.ends_with("</svg>"));
}

#[test]
fn a_cell_loads_at_its_crash_event() {
    let base = preset("kafka-append").unwrap();
    let point: CrashPoint = "sink-commit@3".parse().unwrap();
    let state = run_link("kafka-append", &base, &[point], None).base;
    assert_eq!(state.crashes, vec![point]);
    assert_eq!(state.seed, base.seed);
    let mut s = base.clone();
    s.crashes = vec![point];
    let mut w = World::new(s);
    for _ in 0..state.at {
        w.step();
    }
    let last = w.events().last().unwrap();
    assert!(
        matches!(last.kind, EventKind::Crashed { point: Some(p), .. } if p == point),
        "{:?}",
        last.kind
    );
    // Without a crash there is no crash moment.
    assert_eq!(trouble_moment(&base, None), None);
    assert_eq!(run_link("kafka-append", &base, &[], None).base.at, 0);
}

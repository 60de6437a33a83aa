//! The Topology mode's pure view-model (FLIP-276 timestamp barriers):
//! the URL state, the left-to-right DAG layout of CDC, jobs and tables, the worlds of a run at
//! every step, the declared query's history, event texts, the delay chart (plotters, SVG) and
//! the lesson of each topology preset. The `web` crate only renders what these return.
//!
//! One file per concern: [`url`], [`history`], [`layout`](mod@layout), [`text`], [`delay_chart`], [`lesson`];
//! everything is re-exported here, so `topology::X` names stay as they were.

pub mod checkpoints;
pub mod delay_chart;
mod failure_lessons;
pub mod history;
pub mod layout;
pub mod lesson;
pub mod query_text;
pub mod text;
pub mod url;

pub use delay_chart::{
    chart_width, delay_chart_svg, delay_failures, delay_legend, point_title, DelayFailure, CHART_H,
    CHART_W, CHART_W_RANGE, SERIES_COLORS, TICK_PX,
};
pub use history::{
    after_event, history_point, query_history, ratio_text, record, rolled_back, value_changes,
    HistoryPoint, MAX_STEPS,
};
pub use layout::{
    layout, layout_width, NodeKind, TopoEdge, TopoLayout, TopoNode, LEGEND_H, TABLE_H,
};
pub use lesson::{
    simplifications, topo_stop_cursors, topology_heading, topology_lesson, topology_title,
    topology_tour, TopoHeading, TopoLesson, TopoMoment, TopoStop, TopoTour,
};
pub use query_text::{history_caption, query_sql};
pub use text::{
    active, consistency_short, edge_label, event_text, fault_text, fault_text_in, level_title,
    step_text, Active,
};
pub use url::{
    canonical_faults, format_topology, parse_topology, topology_names, TopoUrl, DEFAULT_TOPOLOGY,
    DEFAULT_TOPOLOGY_SEED,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Timeline;
    use batchscope_engine::barrier::{
        self, BarrierEventKind, Consistency, ReadLevel, TopologyWorld,
    };

    fn frames_of(hash: &str) -> Timeline<TopologyWorld> {
        let url = parse_topology(hash).unwrap();
        record(&url.run().unwrap()).unwrap()
    }

    #[test]
    fn every_topology_tour_reaches_its_stops_in_order() {
        for (name, _) in barrier::presets() {
            let t = topology_tour(name);
            assert!(
                t.hash.contains(&format!("topology={name}")),
                "{name}: {}",
                t.hash
            );
            let frames = frames_of(t.hash);
            let trace = frames.last().trace();
            let cursors = topo_stop_cursors(&t.stops, trace);
            for (stop, c) in t.stops.iter().zip(&cursors) {
                assert!(
                    c.is_some(),
                    "{name}: stop `{}` is never reached",
                    stop.title
                );
            }
            let reached: Vec<usize> = cursors.iter().flatten().copied().collect();
            assert!(
                reached.windows(2).all(|w| w[0] < w[1]),
                "{name}: {reached:?}"
            );
            assert_eq!(
                reached.last(),
                Some(&frames.len()),
                "{name} ends at the end"
            );
        }
        // The tour's text is about what happens: price_job fails right after PRECOMMIT 2.
        let t = topology_tour("shopping");
        let trace = frames_of(t.hash).last().trace().to_vec();
        let c = topo_stop_cursors(&t.stops, &trace);
        assert_eq!(
            c[5],
            c[4].map(|p| p + 1),
            "the failure follows PRECOMMIT 2 at once"
        );
    }

    #[test]
    fn a_full_hash_round_trips_and_bad_values_are_named() {
        let text = "#mode=topology&topology=chain&seed=3&nobarriers=1&fail=sum_job@2&failat=join_job@40&tour=1&level=rc&consistency=weak&at=12";
        let s = parse_topology(text).unwrap();
        assert_eq!(s.topology, "chain");
        assert!(s.no_barriers);
        assert_eq!(s.faults.len(), 2);
        assert!(s.tour);
        assert_eq!(format_topology(&s), text);
        let with_revise = "#mode=topology&topology=shopping&seed=1&revise=shopping@1@30&level=rr&consistency=strong&at=0";
        assert_eq!(
            format_topology(&parse_topology(with_revise).unwrap()),
            with_revise
        );

        let errors = parse_topology(
            "#mode=topology&topology=nope&seed=x&fail=ghost@2&level=serializable&at=-1",
        )
        .unwrap_err();
        let params: Vec<&str> = errors.iter().map(|e| e.param.as_str()).collect();
        assert_eq!(params, ["topology", "seed", "level", "at", "fail"]);
        assert!(errors[0].reason.contains(
            "unknown topology `nope` (known: shopping, chain, three-queries, kafka-2pc-timeout"
        ));
        assert!(errors[4].reason.contains("unknown job `ghost`"));
        assert!(errors[4].reason.contains("price_job"));
        let e = parse_topology("#mode=topology&fail=price_job@9").unwrap_err();
        assert!(e[0].reason.contains("between 1 and 5"));
        let e = parse_topology("#mode=topology&fail=price_job").unwrap_err();
        assert!(e[0].reason.contains("JOB@BARRIER"));
        let e = parse_topology("#mode=topology&nobarriers=1&revise=shopping@1@3").unwrap_err();
        assert!(e[0].reason.contains("needs timestamp barriers"));
    }

    #[test]
    fn the_mode_is_read_from_the_hash() {}

    #[test]
    fn the_layout_goes_left_to_right_without_overlaps() {
        for (name, _) in barrier::presets() {
            let spec = barrier::preset(name).unwrap();
            let l = layout(&spec, 900.0);
            assert_eq!(l.node("cdc").unwrap().column, 0);
            for j in &spec.jobs {
                let job = l.node(&j.name).unwrap();
                let sink = l.node(&j.sink).unwrap();
                assert_eq!(
                    sink.column,
                    job.column + 1,
                    "{name}: {} → {}",
                    j.name,
                    j.sink
                );
                for s in &j.sources {
                    assert!(l.node(s).unwrap().x + l.node(s).unwrap().w < job.x);
                }
            }
            for a in &l.nodes {
                assert!(a.x >= 0.0 && a.x + a.w <= l.width && a.y >= 0.0 && a.y + a.h <= l.height);
                for b in &l.nodes {
                    let apart = a.x + a.w <= b.x
                        || b.x + b.w <= a.x
                        || a.y + a.h <= b.y
                        || b.y + b.h <= a.y;
                    assert!(
                        a.name == b.name || apart,
                        "{name}: {} overlaps {}",
                        a.name,
                        b.name
                    );
                }
            }
            let edges = spec.jobs.iter().map(|j| j.sources.len() + 1).sum::<usize>();
            assert_eq!(l.edges.len(), edges);
        }
        // shopping: CDC, ingest, shopping, the two jobs, the two tables.
        let l = layout(&barrier::preset("shopping").unwrap(), 900.0);
        assert_eq!(l.node("user_item_price").unwrap().column, 4);
        // chain: table1 → join_job skips two columns and arcs above them; its seven columns
        // get a wider canvas so every node keeps room for its name.
        let chain = barrier::preset("chain").unwrap();
        let l = layout(&chain, layout_width(&chain));
        assert!(l
            .nodes
            .iter()
            .all(|n| n.kind == NodeKind::Cdc || n.w >= 115.0));
        let skip = l
            .edges
            .iter()
            .find(|e| e.from == "table1" && e.to == "join_job")
            .unwrap();
        assert!(skip.ly < l.node("table2").unwrap().y);
    }

    #[test]
    fn read_uncommitted_shows_25_and_read_committed_rolls_back_after_a_failure() {
        let f = frames_of("#mode=topology&topology=shopping&fail=price_job@2");
        let values = |level| -> Vec<(String, bool)> {
            let h = query_history(&f, level, Consistency::Strong);
            value_changes(&h, h.len())
                .iter()
                .map(|p| (ratio_text(p.ratio), p.consistent))
                .collect()
        };
        let ru = values(ReadLevel::ReadUncommitted);
        assert!(ru.contains(&("25".to_string(), false)), "{ru:?}");
        let rc = values(ReadLevel::ReadCommitted);
        let pos = |v: &[(String, bool)], x: &str| v.iter().position(|(r, _)| r == x);
        let first_8 = pos(&rc, "8.333").expect("RC reaches 8.333");
        assert!(
            rc[first_8..].iter().any(|(r, _)| r == "10"),
            "RC should roll back to 10 after the failure: {rc:?}"
        );
        let rr = values(ReadLevel::RepeatableRead);
        assert_eq!(rr[0].0, "10");
        let first_8 = pos(&rr, "8.333").expect("RR reaches 8.333");
        assert!(!rr[first_8..].iter().any(|(r, _)| r == "10"), "{rr:?}");
        assert!(
            rr.iter().all(|(_, c)| *c),
            "RR + Strong is always consistent"
        );
        // The rolled-back step is flagged.
        let h = query_history(&f, ReadLevel::ReadCommitted, Consistency::Strong);
        assert!(h.windows(2).any(|w| rolled_back(&w[0], &w[1])));
    }

    #[test]
    fn step_texts_and_highlights_follow_the_events() {
        let f = frames_of("#mode=topology&topology=shopping&fail=price_job@2");
        let last = f.last();
        let texts: Vec<String> = last.trace().iter().map(|e| event_text(&e.kind)).collect();
        assert!(texts.iter().any(|t| t.contains("price_job FAILED")));
        assert!(texts.iter().any(|t| t.contains("is PRECOMMIT")));
        let fail = last
            .trace()
            .iter()
            .find(|e| matches!(e.kind, BarrierEventKind::JobFailed { .. }))
            .unwrap();
        let a = active(last, Some(fail));
        assert!(a.alarm && a.nodes.contains(&"price_job".to_string()));
        assert_eq!(edge_label(last, "shopping", "price_job"), "b5");
        assert_eq!(edge_label(last, "price_job", "user_item_price"), "b5");
        assert_eq!(edge_label(f.first(), "cdc", "ingest_shopping"), "b0");
        // Without barriers the notes speak of each job's own checkpoints.
        let nb = frames_of("#mode=topology&topology=shopping&nobarriers=1");
        let last = nb.last();
        let processed = last
            .trace()
            .iter()
            .find(|e| matches!(e.kind, BarrierEventKind::Processed { .. }))
            .unwrap();
        let note = step_text(&processed.kind, true);
        assert!(
            note.contains("finished checkpoint") && !note.contains("barrier "),
            "{note}"
        );
        assert_eq!(
            edge_label(last, "shopping", "price_job").split(' ').next(),
            Some("ckpt")
        );
    }

    #[test]
    fn the_delay_chart_names_every_series() {
        let f = frames_of("#mode=topology&topology=shopping");
        let report = f.last().delays();
        let svg = delay_chart_svg(&report, &[], CHART_W, false);
        assert!(svg.starts_with("<svg") && svg.contains("delay (ms)"));
        let legend = delay_legend(&report);
        let names: Vec<&str> = legend.iter().map(|(n, _, _)| n.as_str()).collect();
        for name in ["job amount_job", "job price_job", "table user_item_amount"] {
            assert!(names.contains(&name), "{name} missing from {names:?}");
        }
        // Every legend colour is drawn.
        for (_, color, _) in &legend {
            assert!(
                svg.to_lowercase().contains(&color.to_lowercase()),
                "{color} not drawn"
            );
        }
        assert_eq!(report.job_to_optimise.as_deref(), Some("amount_job"));
        // Before any snapshot there is nothing to draw but the axes.
        assert!(delay_legend(&f.first().delays()).is_empty());
        assert!(delay_chart_svg(&f.first().delays(), &[], CHART_W, true).starts_with("<svg"));
    }

    #[test]
    fn every_preset_has_its_lesson_and_the_simplifications_are_listed() {
        for (name, _) in barrier::presets() {
            let l = topology_lesson(name);
            assert!(
                ["FLIP-276", "Flink", "Paimon"]
                    .iter()
                    .any(|s| l.question.contains(s)),
                "{name}: the question names its public source"
            );
            assert!(
                !l.paragraphs.join(" ").contains("seed"),
                "{name}: cites public sources"
            );
            assert!(parse_topology(l.try_hash).is_ok(), "{name}");
        }
        let shopping = topology_lesson("shopping").paragraphs.join(" ");
        for n in [
            "25",
            "8.333",
            "rolls back to 10",
            "only a revision rolls it back",
            "optimise",
            "Revise",
        ] {
            assert!(shopping.contains(n), "{n}");
        }
        let s = simplifications();
        assert!(s.len() >= 8);
        assert!(s.iter().any(|x| x.contains("corrected rows")));
    }

    #[test]
    fn barriers_per_checkpoint_round_trip_through_the_link() {
        let hash = "#mode=topology&topology=shopping&seed=1&bpc=2&fail=price_job@4&level=rc&consistency=strong&at=0";
        let url = parse_topology(hash).unwrap();
        assert_eq!(url.per_checkpoint, 2);
        assert_eq!(format_topology(&url), hash);
        let frames = record(&url.run().unwrap()).unwrap();
        assert!(frames
            .last()
            .trace()
            .iter()
            .any(|e| matches!(e.kind, BarrierEventKind::Replayed { .. })));
        for bad in ["bpc=0", "bpc=99", "bpc=x"] {
            let errors =
                parse_topology(&format!("#mode=topology&topology=shopping&{bad}")).unwrap_err();
            assert_eq!(errors[0].param, "bpc", "{bad}");
        }
    }

    #[test]
    fn fault_texts_say_when_the_job_fails_relative_to_precommit() {
        let fail = |job: &str| barrier_fault(job);
        let chain = barrier::preset("chain").unwrap();
        let shopping = barrier::preset("shopping").unwrap();
        assert!(fault_text_in(&fail("sum_job"), &chain).contains("before PRECOMMIT"));
        assert!(fault_text_in(&fail("price_job"), &shopping).contains("is PRECOMMIT"));
        let mut own = shopping.clone();
        own.no_barriers = true;
        let text = fault_text_in(&fail("price_job"), &own);
        assert!(
            text.contains("own checkpoint") && !text.contains("PRECOMMIT"),
            "{text}"
        );
    }

    fn barrier_fault(job: &str) -> barrier::Fault {
        barrier::Fault::FailBeforeWritten {
            job: job.into(),
            barrier: 2,
        }
    }

    #[test]
    fn ratios_print_like_the_seed() {
        assert_eq!(ratio_text(Some(10.0)), "10");
        assert_eq!(ratio_text(Some(2500.0 / 300.0)), "8.333");
        assert_eq!(ratio_text(Some(2.5)), "2.5");
        assert_eq!(ratio_text(None), "–");
    }
}

//! Compare mode's second run: the scenario of `vs=` given the first run's seed and crash inputs,
//! recorded like the first, and the comparison of the two (the same
//! [`batchscope_check::compare`] the CLI's `batchscope compare` prints). Also the built-in
//! comparisons a class starts from.

use crate::microbatch::run::Run;
use batchscope_check::compare::{compare_runs, same_inputs, Comparison};
use batchscope_check::oracle::{judge, Report};
use batchscope_engine::microbatch::scenario::Execution;
use batchscope_engine::microbatch::scenario::{preset, Scenario};
use batchscope_view::microbatch::url::scenario::{encode, Versus as VsLink};

/// The second run of compare mode.
#[derive(Debug)]
pub struct Versus {
    /// What the link says (`vs=kafka-idempotent`).
    pub link: VsLink,
    /// Its name on screen.
    pub name: String,
    /// The run, with the first run's seed and crash inputs.
    pub run: Run,
    /// Both runs compared at their end.
    pub comparison: Comparison,
}

/// The oracle's report on a recorded run's last world.
pub fn final_report(run: &Run) -> Report {
    judge(run.last(), run.converged, &run.expected, false)
}

impl Versus {
    /// Records `link`'s scenario with `a`'s seed and crash inputs, and compares the two runs.
    pub fn compute(a: &Run, link: VsLink) -> Versus {
        let b = match &link {
            VsLink::Preset(name) => preset(name).unwrap_or_else(|_| a.scenario.clone()),
            VsLink::Scenario(s) => (**s).clone(),
        };
        let (_, b) = same_inputs(&a.scenario, &b);
        let run = Run::compute(b, None);
        let comparison = compare_runs(
            &a.scenario,
            final_report(a),
            a.events(),
            final_report(&run),
            run.events(),
        );
        Versus {
            name: comparison.b.name.clone(),
            link,
            run,
            comparison,
        }
    }
}

/// A built-in comparison: the question it answers and its link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltIn {
    /// The question, one line.
    pub question: &'static str,
    /// The hash that opens it.
    pub hash: String,
}

/// The built-in comparisons, in teaching order.
pub fn built_ins() -> Vec<BuiltIn> {
    let continuous = preset("continuous-epochs").expect("preset");
    let as_micro_batch = Scenario {
        name: "continuous-epochs-as-micro-batch".into(),
        description: "The continuous-epochs scenario run as micro-batches".into(),
        execution: Execution::MicroBatch,
        ..continuous
    };
    vec![
        BuiltIn {
            question: "Crash after the sink wrote batch 3: does the re-run land twice? Plain append vs a sink that skips committed batch ids.",
            hash: "#preset=kafka-append&vs=kafka-idempotent&crash=sink-commit@3".into(),
        },
        BuiltIn {
            question: "What does learning the real end offset cost? UUID placeholder offsets vs reading ahead (rows read twice, rows cached).",
            hash: "#preset=tablestore&vs=pull-ahead".into(),
        },
        BuiltIn {
            question: "Same Tablestore source, crash after the sink committed batch 2: upsert sink vs a sink that de-duplicates at the driver's commit.",
            hash: "#preset=tablestore&vs=tablestore-two-phase&crash=sink-commit@2".into(),
        },
        BuiltIn {
            question: "Continuous epochs vs micro-batches of the same data, crash after the sink committed batch (epoch) 2.",
            hash: format!(
                "#preset=continuous-epochs&vs={}&crash=sink-commit@2",
                encode(&as_micro_batch)
            ),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use batchscope_check::compare::compare;
    use batchscope_view::microbatch::url::scenario::parse_link;

    #[test]
    fn every_built_in_parses_and_its_runs_differ_as_the_cli_says() {
        let names: Vec<&str> = batchscope_engine::microbatch::scenario::presets()
            .iter()
            .map(|p| p.name)
            .collect();
        for b in built_ins() {
            let link = parse_link(&b.hash, &names).unwrap_or_else(|e| panic!("{}: {e:?}", b.hash));
            let mut a = preset(&link.base.preset).unwrap();
            a.crashes = link.base.crashes.clone();
            let vs = link.vs.clone().expect("a comparison");
            let run = Run::compute(a.clone(), None);
            let page = Versus::compute(&run, vs.clone());
            let b_scenario = match vs {
                VsLink::Preset(n) => preset(&n).unwrap(),
                VsLink::Scenario(s) => *s,
            };
            let cli = compare(&a, &b_scenario);
            assert_eq!(page.comparison.a.verdict, cli.a.verdict, "{}", b.hash);
            assert_eq!(page.comparison.b.verdict, cli.b.verdict, "{}", b.hash);
            assert_eq!(page.comparison.first_divergence, cli.first_divergence);
            assert!(!cli.differences.is_empty(), "{}: the runs differ", b.hash);
        }
    }
}

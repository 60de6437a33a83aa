//! Which dashboard is on screen (micro-batch, Topology or Inspect), chosen by `mode=` in the URL hash,
//! and the switch the header tabs call.

use batchscope_view::topology::is_topology_hash;
use yew::Callback;

/// Whether a URL hash asks for the Inspect page (`mode=inspect`).
pub fn is_inspect_hash(hash: &str) -> bool {
    hash.trim_start_matches('#')
        .split('&')
        .any(|part| part == "mode=inspect")
}

/// Which dashboard is on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dashboard {
    /// Spark micro-batches (the original dashboard).
    Micro,
    /// FLIP-276 timestamp barriers across an ETL topology.
    Topology,
    /// A real Spark checkpoint folder dropped on the page.
    Inspect,
}

impl Dashboard {
    /// The dashboard a URL hash asks for.
    pub fn of_hash(hash: &str) -> Dashboard {
        if is_topology_hash(hash) {
            Dashboard::Topology
        } else if is_inspect_hash(hash) {
            Dashboard::Inspect
        } else {
            Dashboard::Micro
        }
    }

    /// The hash that opens the dashboard's default page (without `#`).
    pub fn hash(self) -> &'static str {
        match self {
            Dashboard::Micro => "",
            Dashboard::Topology => "mode=topology",
            Dashboard::Inspect => "mode=inspect",
        }
    }
}

/// The switch the header tabs call (provided by the page root).
#[derive(Clone, PartialEq)]
pub struct ModeSwitch(pub Callback<Dashboard>);

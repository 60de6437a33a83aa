//! Which dashboard is on screen (micro-batch or Topology), chosen by `mode=` in the URL hash,
//! and the switch the header tabs call.

use batchscope_view::topology::is_topology_hash;
use yew::Callback;

/// Which dashboard is on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dashboard {
    /// Spark micro-batches (the original dashboard).
    Micro,
    /// FLIP-276 timestamp barriers across an ETL topology.
    Topology,
}

impl Dashboard {
    /// The dashboard a URL hash asks for.
    pub fn of_hash(hash: &str) -> Dashboard {
        if is_topology_hash(hash) {
            Dashboard::Topology
        } else {
            Dashboard::Micro
        }
    }

    /// The hash that opens the dashboard's default page (without `#`).
    pub fn hash(self) -> &'static str {
        match self {
            Dashboard::Micro => "",
            Dashboard::Topology => "mode=topology",
        }
    }
}

/// The switch the header tabs call (provided by the page root).
#[derive(Clone, PartialEq)]
pub struct ModeSwitch(pub Callback<Dashboard>);

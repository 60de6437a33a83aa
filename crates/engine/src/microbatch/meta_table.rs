//! The Meta table of the Tablestore source: rows keyed (tunnel, uuid, channel) → channel offset (SEMANTICS §3.2).

use crate::microbatch::tunnel::Token;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Default name of the Meta table (`checkpoint.table`).
pub const META_TABLE_NAME: &str = "__spark_meta_checkpoint__";
/// The tunnel id used in every row's primary key.
pub const TUNNEL_ID: &str = "tunnel-cdc";

/// One row: the checkpoint of one channel for one batch UUID.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaRow {
    /// Batch UUID (primary key part 2).
    pub uuid: String,
    /// Channel id (primary key part 3).
    pub channel: String,
    /// `channelOffset.logPoint`.
    pub token: Token,
    /// Event sequence number of the last write, so a view can mark rows changed by a step.
    pub written_at_seq: u64,
}

impl MetaRow {
    /// The `channelOffset` attribute as the connector stores it.
    pub fn channel_offset_json(&self) -> String {
        format!("{{\"logPoint\":\"{}\",\"offset\":0}}", self.token)
    }
}

/// The Meta table. Durable.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaTable {
    rows: BTreeMap<(String, String), MetaRow>,
}

impl MetaTable {
    /// putRow: writes (uuid, channel); returns whether a row was overwritten.
    pub fn put(&mut self, uuid: &str, channel: &str, token: Token, seq: u64) -> bool {
        let row = MetaRow {
            uuid: uuid.into(),
            channel: channel.into(),
            token,
            written_at_seq: seq,
        };
        self.rows
            .insert((uuid.into(), channel.into()), row)
            .is_some()
    }

    /// getRange over (uuid, INF_MIN..INF_MAX): the rows of one UUID, by channel id.
    pub fn rows_of(&self, uuid: &str) -> Vec<&MetaRow> {
        let from = (uuid.to_string(), String::new());
        self.rows
            .range(from..)
            .take_while(|(k, _)| k.0 == uuid)
            .map(|(_, r)| r)
            .collect()
    }

    /// deleteRow.
    pub fn delete(&mut self, uuid: &str, channel: &str) -> bool {
        self.rows
            .remove(&(uuid.to_string(), channel.to_string()))
            .is_some()
    }

    /// Every row, ordered by (uuid, channel).
    pub fn rows(&self) -> impl Iterator<Item = &MetaRow> {
        self.rows.values()
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

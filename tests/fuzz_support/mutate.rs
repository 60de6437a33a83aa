//! Mutations of real inputs for the fuzz targets: JSON-aware edits (boundary numbers, hostile
//! strings, removed and inserted keys, repeated list entries) and byte edits (truncation, flips,
//! insertions), each driven by a triple of numbers that proptest draws and shrinks.

use serde_json::{Map, Value};

/// One mutation: what to do (`kind`), where (`at`) and with what (`with`).
pub type Op = (u8, u32, u32);

/// Numbers at the edges of every field's type and of the budget.
const NUMBERS: [&str; 18] = [
    "0",
    "1",
    "2",
    "5",
    "10",
    "4096",
    "4097",
    "65535",
    "100000",
    "100001",
    "2000001",
    "3000000000",
    "4294967295",
    "9007199254740993",
    "18446744073709551615",
    "-1",
    "1e300",
    "0.5",
];

/// Strings: empty, long, odd characters, and the names the formats use.
const STRINGS: [&str; 24] = [
    "",
    "x",
    "ünïcødé ✓ 🚀",
    "\u{0}\u{1f}",
    "<script>alert(1)</script>",
    "sink-commit@3",
    "task@18446744073709551615",
    "get-offset@99999999999999999999",
    "tablestore",
    "replayable-log",
    "pull-ahead",
    "auto-commit",
    "seatunnel",
    "continuous",
    "micro-batch",
    "append",
    "upsert",
    "file",
    "two-phase",
    "foreach-batch",
    "idle-timeout",
    "checkpoint-records",
    "cdc",
    "userId",
];

/// Keys worth inserting: optional fields of the scenario and the topology.
const KEYS: [&str; 22] = [
    "execution",
    "crash_after_events",
    "idle",
    "bursts",
    "splits",
    "outages",
    "reader",
    "idle_timeout_ms",
    "checkpoint_interval_ms",
    "max_offsets_per_trigger",
    "max_offsets_per_channel",
    "page_size",
    "stores",
    "crashes",
    "no_barriers",
    "ratio",
    "generated_per_barrier",
    "users",
    "items",
    "barriers",
    "op",
    "unknown_field",
];

fn value_for(with: u32) -> Value {
    let w = with as usize;
    match w % 7 {
        0 | 1 => serde_json::from_str(NUMBERS[w / 7 % NUMBERS.len()]).expect("a JSON number"),
        2 | 3 => Value::String(STRINGS[w / 7 % STRINGS.len()].to_string()),
        4 => Value::Array(vec![]),
        5 => Value::Object(Map::new()),
        _ => [Value::Null, Value::Bool(true), Value::Bool(false)][w / 7 % 3].clone(),
    }
}

/// Every node of `v` in depth-first order, as a path of keys and indices.
fn paths(v: &Value, here: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                here.push(PathStep::Key(k.clone()));
                paths(child, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                here.push(PathStep::Index(i));
                paths(child, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn node<'a>(v: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

/// Applies one JSON-aware mutation to the node `at` selects.
fn mutate_value(root: &mut Value, (kind, at, with): Op) {
    let mut all = vec![];
    paths(root, &mut vec![], &mut all);
    let path = &all[at as usize % all.len()];
    let target = node(root, path);
    match kind % 6 {
        0 => *target = value_for(with),
        1 => {
            if let Value::Object(m) = target {
                if let Some(k) = m.keys().nth(with as usize % m.len().max(1)).cloned() {
                    m.remove(&k);
                }
            }
        }
        2 => {
            if let Value::Object(m) = target {
                let key = KEYS[with as usize % KEYS.len()];
                m.insert(key.to_string(), value_for(with / 31));
            }
        }
        3 => {
            if let Value::Array(a) = target {
                if let Some(first) = a.first().cloned() {
                    let copies = 1 + (with as usize % 64);
                    a.extend(std::iter::repeat_n(first, copies));
                }
            }
        }
        4 => {
            if let Value::Array(a) = target {
                a.clear();
            } else if let Value::Object(m) = target {
                m.clear();
            }
        }
        _ => {
            // A number nudged by a small amount, or a string's last character dropped.
            match target {
                Value::Number(n) => {
                    let x = n.as_u64().unwrap_or(0);
                    *target = Value::from(x.wrapping_add(u64::from(with % 3)).wrapping_sub(1));
                }
                Value::String(s) => {
                    s.pop();
                }
                _ => *target = value_for(with),
            }
        }
    }
}

/// Applies one byte mutation to the text.
fn mutate_bytes(bytes: &mut Vec<u8>, (kind, at, with): Op) {
    if bytes.is_empty() {
        bytes.push(with as u8);
        return;
    }
    let i = at as usize % bytes.len();
    match kind % 3 {
        0 => bytes.truncate(i),
        1 => bytes[i] ^= 1 << (with % 8),
        _ => bytes.insert(i, with as u8),
    }
}

/// A real JSON input mutated by `ops`: JSON-aware ops (`kind < 200`) while the text is JSON,
/// byte ops after; returns the text (lossy UTF-8, as a browser or `read_to_string` would refuse
/// invalid UTF-8 anyway).
pub fn json(seed: &str, ops: &[Op]) -> String {
    let mut value: Value = serde_json::from_str(seed).expect("a seed input is JSON");
    let (json_ops, byte_ops): (Vec<Op>, Vec<Op>) = ops.iter().partition(|op| op.0 < 200);
    for op in json_ops {
        mutate_value(&mut value, op);
    }
    let mut bytes = serde_json::to_vec_pretty(&value).expect("serializes");
    for op in byte_ops {
        mutate_bytes(&mut bytes, op);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A URL hash mutated by `ops`: parameter-aware edits, then byte edits.
pub fn hash(seed: &str, ops: &[Op]) -> String {
    const PIECES: [&str; 16] = [
        "&",
        "=",
        ",",
        "@",
        "%",
        "%2",
        "%ZZ",
        "%F0%9F%9A%80",
        "%00",
        "#",
        "+",
        "mode=topology",
        "crash=",
        "after=",
        "fail=",
        "revise=",
    ];
    let mut s = seed.to_string();
    for &(kind, at, with) in ops {
        let mut b = s.into_bytes();
        let i = if b.is_empty() {
            0
        } else {
            at as usize % (b.len() + 1)
        };
        match kind % 4 {
            0 => {
                let piece = PIECES[with as usize % PIECES.len()];
                b.splice(i..i, piece.bytes());
            }
            1 => {
                let n = NUMBERS[with as usize % NUMBERS.len()];
                b.splice(i..i, n.bytes());
            }
            2 => {
                let item = STRINGS[with as usize % STRINGS.len()];
                b.splice(i..i, item.bytes());
            }
            _ => mutate_bytes(&mut b, (kind / 4, at, with)),
        }
        s = String::from_utf8_lossy(&b).into_owned();
    }
    s
}

//! Reading a scenario's or a topology's JSON text: the `$schema` key a file may carry, and
//! serde errors that name the field they stopped at. Both worlds' spec files read their text
//! through here; it depends on nothing of the engine.

/// The key a scenario or topology file may use to name its JSON Schema; the engine ignores it.
pub const SCHEMA_KEY: &str = "$schema";

/// The `$schema` key a scenario or topology file may carry to name its JSON Schema (editors
/// complete and check the file with it): read, whatever its value, and ignored; never written.
/// A field of both specs, so a file that names its schema parses as written, with the line and
/// column of an error where they are in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NamedSchema;

impl<'de> serde::Deserialize<'de> for NamedSchema {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| NamedSchema)
    }
}

/// Parses `text` as `T`; on failure, the dotted path of the field serde stopped at
/// (`upstream.channels`, `jobs[1].sink`; `None` for the whole file) and serde's message.
///
/// The path is read back from the text, up to the line and column serde_json's error names
/// (`field_path_at`), rather than tracked while deserializing (`serde_path_to_error`, which
/// wraps every `Deserialize` impl of `T` once more: about 6 KB of the page's first module,
/// gzipped). The two agree on every scenario and topology a test breaks field by field
/// (`tests/field_paths.rs`, with `serde_path_to_error` as its oracle).
pub fn parse_naming_field<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Result<T, (Option<String>, String)> {
    serde_json::from_str(text).map_err(|e| {
        // A value of the wrong type names its field, and so does text that is not a value where
        // one begins (`"batches": @`, or a number where a name is expected: "expected value");
        // any other text that is not JSON, or that ends too soon, is named by its line and column
        // alone.
        use serde_json::error::Category;
        let read = byte_offset(text, e.line(), e.column());
        let field = match (e.classify(), read) {
            (Category::Data, Some(read)) => field_path_at(text, read + refused_at(text, read, &e)),
            (Category::Syntax, Some(read)) if at_value_start(text, read) => {
                field_path_at(text, read)
            }
            _ => None,
        };
        (field, e.to_string())
    })
}

/// Deserializes a string and parses it with `T::from_str`, inside the deserializer's own read of
/// the string, so that a parse error carries the place just past that string, as serde's own
/// errors do; a `Deserialize` impl that parses after the read instead has its error placed where
/// the enclosing list or object ends, and `parse_naming_field` would name that instead.
pub fn deserialize_parsed<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    struct Parsed<T>(std::marker::PhantomData<T>);
    impl<T: std::str::FromStr> serde::de::Visitor<'_> for Parsed<T>
    where
        T::Err: std::fmt::Display,
    {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
            v.parse().map_err(E::custom)
        }
    }
    d.deserialize_str(Parsed(std::marker::PhantomData))
}

/// Deserializes a list of internally tagged values (`{"op": "group_sum", …}`) one element at a
/// time inside the deserializer's read of that element's object. serde reads such a value into a
/// buffer first and then deserializes it from the buffer, where its errors carry no place; read
/// this way they are placed at the element's `}`, as serde's own errors in that element are,
/// and `parse_naming_field` names the element (`jobs[1].operators[0]`), not the list.
pub fn deserialize_tagged_list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    struct InPlace<T>(T);
    struct Object<T>(std::marker::PhantomData<T>);
    impl<'de, T: serde::Deserialize<'de>> serde::de::Visitor<'de> for Object<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for InPlace<T> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(Object(std::marker::PhantomData))
                .map(InPlace)
        }
    }
    let list: Vec<InPlace<T>> = serde::Deserialize::deserialize(d)?;
    Ok(list.into_iter().map(|InPlace(value)| value).collect())
}

/// Whether the last byte of the first `read` bytes of `text` begins a value: the byte before it,
/// past whitespace, is a `:` or begins or continues a list.
fn at_value_start(text: &str, read: usize) -> bool {
    let before = text
        .as_bytes()
        .get(..read.saturating_sub(1))
        .unwrap_or_default();
    matches!(
        before.iter().rev().find(|b| !b.is_ascii_whitespace()),
        Some(b':' | b'[' | b',')
    )
}

/// serde_json places a list or an object it refused at sight ("invalid type: map, expected
/// u64") just before its `[` or `{`, where every other error follows what it read: 1 when that
/// bracket is what was refused, so the walk counts it (the list's element it stands in).
fn refused_at(text: &str, read: usize, e: &serde_json::Error) -> usize {
    let message = e.to_string();
    let refused = match text.as_bytes().get(read) {
        Some(b'{') => message.starts_with("invalid type: map,"),
        Some(b'[') => message.starts_with("invalid type: sequence,"),
        _ => false,
    };
    usize::from(refused)
}

/// The byte offset just past serde_json's (1-based line, byte column): how much it had read.
/// `None` for an error that names no place (line 0).
fn byte_offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum();
    Some((start + column).min(text.len()))
}

/// The path of the value being read once the first `read` bytes of the JSON `text` have been
/// read: the key of every object entered and not left, the index of every array element begun
/// (`jobs[1].sink`); `None` when none is open (the top level, or a top-level object before its
/// first key). The text before `read` is walked as JSON tokens; it need not be valid beyond
/// what serde_json read before it stopped. An array whose next element has not begun adds no
/// index: serde_json counts a `[` it looked at and refused (a list where a name was expected)
/// as read.
pub fn field_path_at(text: &str, read: usize) -> Option<String> {
    enum Open {
        Object(Option<String>),
        Array(usize, bool),
    }
    let bytes = text.as_bytes();
    let end = read.min(bytes.len());
    let mut open: Vec<Open> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < end {
        if !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b':') {
            if let Some(Open::Array(_, begun)) = open.last_mut() {
                *begun = true;
            }
        }
        match bytes[i] {
            b'{' => {
                open.push(Open::Object(None));
                expect_key = true;
            }
            b'[' => {
                open.push(Open::Array(0, false));
                expect_key = false;
            }
            b'}' | b']' => {
                open.pop();
                expect_key = false;
            }
            b',' => match open.last_mut() {
                Some(Open::Object(key)) => {
                    *key = None;
                    expect_key = true;
                }
                Some(Open::Array(index, begun)) => {
                    *index += 1;
                    *begun = false;
                }
                None => {}
            },
            b':' => expect_key = false,
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key {
                    if let Some(Open::Object(key)) = open.last_mut() {
                        let quoted = text.get(start..(i + 1).min(text.len())).unwrap_or("");
                        *key = Some(
                            serde_json::from_str(quoted)
                                .unwrap_or_else(|_| quoted.trim_matches('"').to_string()),
                        );
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for segment in &open {
        match segment {
            Open::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Open::Object(None) | Open::Array(_, false) => {}
            Open::Array(index, true) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    (!path.is_empty()).then_some(path)
}

/// `text` with its control characters escaped (`\n`, `\u{1b}`): fit for one line of a message.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

#[cfg(test)]
mod tests {
    use crate::barrier::TopologySpec;
    use crate::microbatch::scenario::{preset, Scenario};

    #[test]
    fn a_file_that_names_its_schema_reads_as_written() {
        let mut json: serde_json::Value =
            serde_json::from_str(&preset("kafka-append").unwrap().to_json()).unwrap();
        json["$schema"] = "../schemas/scenario.schema.json".into();
        let named = serde_json::to_string_pretty(&json).unwrap();
        let read = Scenario::from_json(&named).unwrap();
        assert_eq!(read, preset("kafka-append").unwrap());
        assert!(!read.to_json().contains("$schema"), "never written back");
        // An error keeps its place in the file as written (the key is not taken out first).
        let broken = named.replacen("\"batches\": 6", "\"batches\": \"six\"", 1);
        let line = broken.lines().position(|l| l.contains("\"six\"")).unwrap() + 1;
        let error = Scenario::from_json(&broken).unwrap_err().to_string();
        assert!(error.contains(&format!("line {line} ")), "{error}");
        let topology =
            TopologySpec::from_json(&include_str!("barrier/presets/chain.json").replacen(
                '{',
                "{\"$schema\": \"../schemas/topology.schema.json\",",
                1,
            ));
        assert!(topology.is_ok(), "{topology:?}");
    }
}

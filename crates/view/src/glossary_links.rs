//! Glossary links in the lesson card's text and the step notes: the terms a newcomer meets and
//! the ids of their lines in the glossary (`web/glossary.html`), and the split of a text into
//! plain parts and the first use of each term, which the page draws as a link to its line.

/// Each term as the texts write it, and the id of its glossary line. A term matches as a whole
/// word, its first letter in either case, with an `s` for the plural; a term ending in `/`
/// takes the batch number (or `N`) after it (`offsets/3`). The first term that matches at a
/// place wins, so a longer term comes before a shorter one it begins with.
pub const TERMS: &[(&str, &str)] = &[
    ("offsets/", "offsets"),
    ("write-ahead log", "offsets"),
    ("commits/", "commits"),
    ("checkpoint folder", "checkpoint-folder"),
    ("micro-batch", "micro-batch"),
    ("V1 Source", "v1-source"),
    ("V1 source", "v1-source"),
    ("MicroBatchStream", "v2-stream"),
    ("append sink", "append-sink"),
    ("upsert sink", "upsert-sink"),
    ("file sink", "file-sink"),
    ("_spark_metadata", "file-sink"),
    ("two-phase sink", "two-phase"),
    ("foreachBatch", "foreach-batch"),
    ("continuous processing", "continuous"),
    ("continuous mode", "continuous"),
    ("StreamingQueryProgress", "spark-ui"),
    ("spark.task.maxFailures", "task-retry"),
    ("Tunnel server", "tunnel-server"),
    ("channel", "channel"),
    ("token", "token"),
    ("Meta table", "meta-table"),
    (".prepared", "seatunnel-state"),
    ("Kafka broker", "kafka-broker"),
    ("oracle", "oracle"),
    ("exactly-once", "exactly-once"),
    ("at-least-once", "exactly-once"),
    ("crash point", "crash-point"),
    ("timestamp barrier", "barrier"),
    ("MetaService", "barrier"),
    ("PROCESSED", "processed-written"),
    ("WRITTEN", "processed-written"),
    ("PRECOMMIT", "precommit-commit"),
    ("COMMIT", "precommit-commit"),
    ("Read Uncommitted", "read-levels"),
    ("Read Committed", "read-levels"),
    ("Repeatable Read", "read-levels"),
    ("Strong consistency", "strong-weak"),
    ("Weak consistency", "strong-weak"),
    ("end-to-end delay", "e2e-delay"),
];

/// A part of a text: plain (`None`), or a term linked to its glossary line (`Some(id)`).
pub type Segment<'a> = (&'a str, Option<&'static str>);

/// Splits `text` into plain parts and links: the first use of each term whose id is not yet in
/// `linked`, which then holds it. One `linked` for a card's texts links each term once in it.
pub fn link_terms<'a>(text: &'a str, linked: &mut Vec<&'static str>) -> Vec<Segment<'a>> {
    let bytes = text.as_bytes();
    let mut out = vec![];
    let (mut plain, mut at) = (0, 0);
    while at < bytes.len() {
        let found = TERMS
            .iter()
            .filter(|(_, id)| !linked.contains(id))
            .find_map(|&(term, id)| term_at(bytes, at, term).map(|end| (end, id)));
        let Some((end, id)) = found else {
            at += 1;
            continue;
        };
        if plain < at {
            out.push((&text[plain..at], None));
        }
        out.push((&text[at..end], Some(id)));
        linked.push(id);
        (plain, at) = (end, end);
    }
    if plain < bytes.len() {
        out.push((&text[plain..], None));
    }
    out
}

/// A character that makes a term part of a longer name when it touches it: a letter or digit,
/// or the joints of code-like names (`source.commit`, `kafka-v1-source`, `--seed`, `ch0-4`).
fn glued(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"_-/.@:$".contains(&byte)
}

/// Whether a word may end before `at`: the text ends, or what follows is not glued to it (a
/// full stop or a colon that ends a sentence is not).
fn word_ends(bytes: &[u8], at: usize) -> bool {
    match bytes.get(at) {
        Some(b'.' | b':') => !bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric),
        Some(&byte) => !glued(byte),
        None => true,
    }
}

/// Where `term` ends if it is used at `at` as a whole word.
fn term_at(bytes: &[u8], at: usize, term: &str) -> Option<usize> {
    let word = term.as_bytes();
    let here = bytes.get(at..at + word.len())?;
    let starts = at == 0 || !word[0].is_ascii_alphanumeric() || !glued(bytes[at - 1]);
    if !starts || !here[0].eq_ignore_ascii_case(&word[0]) || here[1..] != word[1..] {
        return None;
    }
    let end = at + word.len();
    if word.ends_with(b"/") {
        let n = bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'N')
            .count();
        return (n > 0 && word_ends(bytes, end + n)).then_some(end + n);
    }
    if word_ends(bytes, end) {
        Some(end)
    } else {
        (bytes.get(end) == Some(&b's') && word_ends(bytes, end + 1)).then_some(end + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text with each link written `[term](id)`.
    fn marked(text: &str, linked: &mut Vec<&'static str>) -> String {
        let parts = link_terms(text, linked);
        let joined: String = parts.iter().map(|(s, _)| *s).collect();
        assert_eq!(joined, text, "the parts are the text");
        parts
            .iter()
            .map(|(s, id)| match id {
                Some(id) => format!("[{s}]({id})"),
                None => s.to_string(),
            })
            .collect()
    }

    fn one(text: &str) -> String {
        marked(text, &mut vec![])
    }

    #[test]
    fn the_first_use_of_each_term_is_linked_once() {
        assert_eq!(
            one("The Tunnel server keeps a checkpoint per channel; the Tunnel server sends each channel."),
            "The [Tunnel server](tunnel-server) keeps a checkpoint per [channel](channel); the Tunnel server sends each channel."
        );
    }

    #[test]
    fn one_list_of_linked_ids_links_a_term_once_across_a_cards_texts() {
        let mut linked = vec![];
        assert_eq!(
            marked("An upsert sink rewrites.", &mut linked),
            "An [upsert sink](upsert-sink) rewrites."
        );
        assert_eq!(
            marked("The upsert sink absorbs the re-run.", &mut linked),
            "The upsert sink absorbs the re-run."
        );
        assert_eq!(linked, ["upsert-sink"]);
        assert_eq!(
            one("The upsert sink absorbs the re-run."),
            "The [upsert sink](upsert-sink) absorbs the re-run."
        );
    }

    #[test]
    fn variants_of_a_term_share_its_line() {
        assert_eq!(
            one("The write-ahead log: offsets/3 is written first."),
            "The [write-ahead log](offsets): offsets/3 is written first."
        );
        assert_eq!(
            one("exactly-once here, at-least-once there"),
            "[exactly-once](exactly-once) here, at-least-once there"
        );
    }

    #[test]
    fn a_log_takes_its_batch_number() {
        assert_eq!(
            one("offsets/12 without commits/N."),
            "[offsets/12](offsets) without [commits/N](commits)."
        );
        assert_eq!(one("the offsets/ folder"), "the offsets/ folder");
        assert_eq!(one("offsets/3b"), "offsets/3b");
    }

    #[test]
    fn whole_words_only_a_first_capital_and_a_plural() {
        assert_eq!(
            one("Channels split; tokens move."),
            "[Channels](channel) split; [tokens](token) move."
        );
        assert_eq!(
            one("channelled tokenizer seeds"),
            "channelled tokenizer seeds"
        );
        assert_eq!(
            one("Read Committed is not read committed."),
            "[Read Committed](read-levels) is not read committed."
        );
        assert_eq!(one("the oracles."), "the [oracles](oracle).");
    }

    #[test]
    fn not_inside_code_like_names() {
        for text in [
            "KafkaMicroBatchStream",
            "tablestore-two-phase sink",
            "the kafka-v1-source preset",
            "source.commit and sink.COMMIT",
            "ch0-4 and my_channel and channel_id and channel.id and channel/2",
            "PRECOMMITTED",
            "spark.task.maxFailuresX",
        ] {
            assert_eq!(one(text), text, "{text}");
        }
        assert_eq!(
            one("Barrier 3 is PRECOMMIT, then COMMIT."),
            "Barrier 3 is [PRECOMMIT](precommit-commit), then COMMIT."
        );
        assert_eq!(
            one("in `<id>.prepared`"),
            "in `<id>[.prepared](seatunnel-state)`"
        );
    }

    #[test]
    fn a_sentence_may_end_after_a_term() {
        assert_eq!(
            one("It reaches the channel. Then: crash point: sink-commit@3."),
            "It reaches the [channel](channel). Then: [crash point](crash-point): sink-commit@3."
        );
        assert_eq!(one("channel"), "[channel](channel)");
        assert_eq!(one(""), "");
    }

    #[test]
    fn text_around_other_scripts_stays_whole() {
        assert_eq!(
            one("UUID₀ → channel — the Meta table’s rows"),
            "UUID₀ → [channel](channel) — the [Meta table](meta-table)’s rows"
        );
    }
}

//! What the dashboard exports: a run's trace as JSON (the document
//! `batchscope run --trace --json` prints), the simulated checkpoint folder as a `.zip` (the
//! bytes `--checkpoint-out` writes), and a drawn SVG made standalone (its stylesheet inlined)
//! for slides and blog posts.

use batchscope_check::oracle::Report;
use batchscope_engine::checkpoint::CheckpointFolder;
use batchscope_engine::microbatch::event::Event;
use std::io::{Cursor, Write};

/// The run as exported: the oracle's report with every event, as pretty JSON — the very
/// document `batchscope run --trace --json` prints for the same scenario once the report has
/// been through `batchscope_check::why::explain` (its anomalies and when it became inevitable).
pub fn trace_json(report: &Report, events: &[Event]) -> String {
    let mut report = report.clone();
    report.events = Some(events.to_vec());
    serde_json::to_string_pretty(&report).expect("a report serializes")
}

/// The checkpoint folder as a `.zip` under a top folder `root` (deflated, with the zip
/// format's fixed 1980 timestamps, so the same folder gives the same bytes).
pub fn checkpoint_zip(folder: &CheckpointFolder, root: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default());
    for (path, bytes) in folder.files() {
        zip.start_file(format!("{root}/{path}"), options)
            .and_then(|()| zip.write_all(bytes).map_err(Into::into))
            .expect("writing to memory cannot fail");
    }
    zip.finish()
        .expect("writing to memory cannot fail")
        .into_inner()
}

/// A drawn `<svg>` (its outer HTML) as a standalone SVG file: the XML namespace added when
/// missing and `css` inlined as a `<style>` element, so it looks the same outside the page.
pub fn standalone_svg(svg: &str, css: &str) -> String {
    let Some(open_end) = svg.find('>') else {
        return svg.to_owned();
    };
    let (open, rest) = svg.split_at(open_end);
    let open = if open.contains("xmlns=") {
        open.to_owned()
    } else {
        open.replacen("<svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"", 1)
    };
    let css = css.replace("]]>", "]] >");
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{open}><style><![CDATA[\n{css}\n]]></style>{}",
        &rest[1..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standalone_svg_carries_its_namespace_and_style() {
        let out = standalone_svg("<svg class=\"d\"><rect/></svg>", ".d { fill: red }");
        assert!(out.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"d\"><style>"));
        assert!(out.contains(".d { fill: red }"));
        assert!(out.ends_with("<rect/></svg>"));
    }

    #[test]
    fn the_zip_of_a_run_reads_back_as_its_folder() {
        let scenario = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
        let (_, world) = batchscope_check::oracle::check_world(&scenario, false);
        let bytes = checkpoint_zip(&world.checkpoint, "checkpoint");
        assert_eq!(bytes, checkpoint_zip(&world.checkpoint, "checkpoint"));
        let back = crate::upload::from_zip(&bytes).unwrap();
        assert_eq!(back.root, "checkpoint");
        assert_eq!(back.folder, world.checkpoint);
    }

    #[test]
    fn the_trace_document_holds_every_event_and_the_verdict() {
        let scenario = batchscope_engine::microbatch::scenario::preset("kafka-append").unwrap();
        let (report, world) = batchscope_check::oracle::check_world(&scenario, true);
        let json: serde_json::Value =
            serde_json::from_str(&trace_json(&report, world.events())).unwrap();
        assert_eq!(
            json["events"].as_array().unwrap().len(),
            world.events().len()
        );
        assert_eq!(json["verdict"], report.verdict.name());
    }
}

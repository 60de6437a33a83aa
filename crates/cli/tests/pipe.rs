//! `batchscope run … | head`: a reader that closes the pipe early ends the command quietly
//! (by SIGPIPE, as `cat` ends), never with a panic about printing to stdout.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_batchscope"))
        // About 1 MB of trace: far more than a pipe buffers.
        .args([
            "run",
            "--preset",
            "tablestore",
            "--batches",
            "200",
            "--trace",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("batchscope starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("one line");
    // The reader is gone: the rest of the trace goes into a closed pipe.
    assert!(first.starts_with("batchscope run:"), "{first}");
    let out = child.wait_with_output().expect("batchscope ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "a panic: {stderr}");
}

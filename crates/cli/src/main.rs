//! The `batchscope` binary: parses arguments and hands over to the library's commands.

fn main() {}

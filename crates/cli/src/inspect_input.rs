//! The input files a re-run batch reads, checked on this machine: the file source's log
//! holds `file:/…` URIs, and a file that is gone changes what the re-run delivers (the
//! engine predicts what; this module only looks at the disk).

use batchscope_engine::checkpoint::{
    local_path, rerun_input, restart_plan_with, CheckpointFolder, RestartOptions,
};
use std::collections::BTreeSet;
use std::path::Path;

/// The local `file:` input files of the batch the restart re-runs that no longer exist;
/// `None` when the restart re-runs no file-source batch (nothing to check).
pub fn gone_input_files(
    folder: &CheckpointFolder,
    options: &RestartOptions,
) -> Option<BTreeSet<String>> {
    let plan = restart_plan_with(folder, options).ok()?;
    let input = rerun_input(folder, &plan, None)?;
    Some(
        input
            .files
            .into_iter()
            .filter(|file| local_path(&file.path).is_some_and(|path| !Path::new(&path).exists()))
            .map(|file| file.path)
            .collect(),
    )
}

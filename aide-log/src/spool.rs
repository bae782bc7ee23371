//! The spool: a run drops its record here as one small file
//! (`$AIDE_HOME/log-spool/<execution_id>.json`, written whole, then renamed),
//! and whoever reads the log moves the spool into the database first.

use std::path::{Path, PathBuf};
use std::time::Duration;

use aide_core::error::AideError;

use crate::error::unavailable;
use crate::record::{RunRecord, max_result_bytes};

/// The largest spool file read: a record holds at most a result and a
/// request (each far under this); a larger file is nothing aide wrote.
pub(crate) const MAX_SPOOLED_BYTES: u64 = 256 << 20;

/// The spool folder under `home`.
pub(crate) fn spool_dir(home: &Path) -> PathBuf {
    home.join("log-spool")
}

/// Makes sure a run can be spooled under `home` (the folder exists and is
/// ours): what a run checks before it starts, so a log it cannot write
/// shows in its result.
pub fn spool_ready(home: &Path) -> Result<(), AideError> {
    let dir = spool_dir(home);
    aide_core::fsutil::private_dir(&dir).map_err(|e| unavailable(&dir, e))
}

/// Spools `run` under `home`: one file, written whole and renamed into
/// place. A result over the stored limit is spooled without its body.
/// A run's provisional record (`unfinished`) and its final one have names
/// of their own, the provisional removed once the final is in place:
/// renaming over an existing file makes ext4 allocate and start writing
/// the new file's data at once (`auto_da_alloc`), which cost a short run
/// more than the rest of its log.
pub fn spool_in(home: &Path, mut run: RunRecord) -> Result<(), AideError> {
    use std::io::Write;
    let dir = spool_dir(home);
    if run.result_json.len() > max_result_bytes() {
        run.result_bytes = Some(run.result_json.len() as u64);
        run.result_json = String::new();
    }
    let bytes = serde_json::to_vec(&run).map_err(|e| unavailable(&dir, e))?;
    let provisional = format!("{}.start.json", run.execution_id);
    let is_provisional = run.error_code.as_deref() == Some(crate::record::UNFINISHED);
    let name = if is_provisional { provisional.clone() } else { format!("{}.json", run.execution_id) };
    let tmp = dir.join(format!(".{name}.tmp"));
    let write = || -> std::io::Result<()> {
        let create = || aide_core::fsutil::private_file().write(true).create_new(true).open(&tmp);
        let mut file = match create() {
            // A run refused before it started (its arguments) never made
            // the spool: the first run under a new AIDE_HOME may be one.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                aide_core::fsutil::private_dir(&dir)?;
                create()?
            }
            other => other?,
        };
        file.write_all(&bytes)?;
        std::fs::rename(&tmp, dir.join(&name))
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        unavailable(&dir, e)
    })?;
    if !is_provisional {
        // Gone already when an ingest took it: its row never replaces this one.
        let _ = std::fs::remove_file(dir.join(provisional));
    }
    Ok(())
}

/// Takes the spool's records for one ingest: each file is renamed to a
/// name of this process's before it is read, so the file read is the file
/// removed. A run's final record spooled after that is a file of its own,
/// left for the next ingest (when it replaced the provisional one, removing
/// the path read once removed it, and the run stayed `unfinished`); a file another
/// process claimed first is skipped. Claims left by an ingest that died
/// (older than ten minutes) are taken again, as are stale temporaries
/// removed.
pub(crate) fn claim_spooled(dir: &Path) -> Vec<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static CLAIMS: AtomicU64 = AtomicU64::new(0);
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let stale = |entry: &std::fs::DirEntry| {
        entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > Duration::from_secs(600)))
    };
    let mut names: Vec<(String, PathBuf)> = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && !name.starts_with('.') {
            names.push((name, entry.path()));
        } else if name.ends_with(".taken") && stale(&entry) {
            // `.<record>.json.<pid>.<n>.taken`: the record's own name first.
            let record = name.trim_start_matches('.').split(".json.").next().unwrap_or("").to_string() + ".json";
            names.push((record, entry.path()));
        } else if name.ends_with(".tmp") && stale(&entry) {
            // Left by a run killed mid-write, long ago enough not to be in flight.
            let _ = std::fs::remove_file(entry.path());
        }
    }
    names.sort();
    let pid = std::process::id();
    names
        .into_iter()
        .filter_map(|(record, path)| {
            let n = CLAIMS.fetch_add(1, Ordering::Relaxed);
            let claim = dir.join(format!(".{record}.{pid}.{n}.taken"));
            std::fs::rename(&path, &claim).ok().map(|()| claim)
        })
        .collect()
}

/// How many runs wait in the spool under `home`.
pub fn spooled(home: &Path) -> usize {
    std::fs::read_dir(spool_dir(home))
        .map_or(0, |rd| rd.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".json")).count())
}

/// Whether this run also moves the spool into the database after its output
/// is written: about one in 64, decided by the execution id's random tail so
/// processes spread it without coordination.
pub fn ingests_after(execution_id: &str) -> bool {
    let tail = execution_id.get(execution_id.len().saturating_sub(2)..).unwrap_or("");
    u8::from_str_radix(tail, 16).is_ok_and(|b| b % 64 == 0)
}

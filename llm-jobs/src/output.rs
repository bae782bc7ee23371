//! Where a job's output is read from: its files in the job's folder, the
//! supervisor's redacted copies first.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::request::Stream;
use crate::store::{JobRow, JobStore};

/// The file of `stream` in job `id`'s folder.
fn output_path(store: &JobStore, id: i64, stream: Stream) -> PathBuf {
    let file = match stream {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
        Stream::Both => "merged",
    };
    store.job_dir(id).join(file)
}

/// Where a job's output is read from: its redacted copy, written by the
/// supervisor as the output arrived (so pages and offsets are into the
/// redacted stream and none shows part of a secret), or the raw output with
/// `--no-redact`.
pub(crate) enum Source {
    File(PathBuf),
    /// A job from before redacted copies: its raw output redacted whole
    /// (while it runs, without what a stream redactor would hold back).
    Redacted(Vec<u8>),
}

impl Source {
    pub(crate) fn of(store: &JobStore, job: &JobRow, stream: Stream, redact: bool) -> Source {
        let raw = output_path(store, job.id, stream);
        if !redact {
            return Source::File(raw);
        }
        let mut name = raw.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
        name.push(format!(".{}", crate::supervisor::REDACTED_SUFFIX));
        let copy = raw.with_file_name(name);
        if copy.exists() {
            return Source::File(copy);
        }
        let mut redactor = aide_gate::redact::stream::StreamRedactor::new(job.redactor());
        let mut out = Vec::new();
        redactor.push(&aide_core::fsutil::read_private(&raw, 1 << 30).unwrap_or_default(), &mut out);
        if !job.status.is_active() {
            redactor.finish(&mut out);
        }
        Source::Redacted(out)
    }

    /// Bytes from `offset` to the end (at most `max` from the end), where
    /// they start, and where they end.
    pub(crate) fn read_from(&self, offset: u64, max: u64) -> (Vec<u8>, u64, u64) {
        match self {
            Source::File(path) => read_from(path, offset, max),
            Source::Redacted(bytes) => {
                let len = bytes.len() as u64;
                let start = offset.min(len).max(len.saturating_sub(max));
                (bytes[start as usize..].to_vec(), start, len)
            }
        }
    }
}

/// How many secrets were replaced in what is shown.
pub(crate) fn marks(text: &str, redacted: bool) -> usize {
    if redacted { text.matches(aide_gate::redact::MARK).count() } else { 0 }
}

/// Bytes of `path` from `offset` to the end (at most `max` from the end).
fn read_from(path: &Path, offset: u64, max: u64) -> (Vec<u8>, u64, u64) {
    let Ok(mut f) = aide_core::fsutil::open_private_regular(path) else { return (Vec::new(), offset, offset) };
    let len = f.metadata().map_or(0, |m| m.len());
    let start = offset.min(len).max(len.saturating_sub(max));
    let mut buf = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_ok() {
        let _ = f.take(len - start).read_to_end(&mut buf);
    }
    let end = start + buf.len() as u64;
    (buf, start, end)
}

//! The command line's search index: a keeper of a root's indexes
//! (`llm-search __index_keeper DIR`, through [`aide_keeper`]), as `aide
//! mcp` keeps them in its own process ([`crate::indexed`]).
//!
//! `AIDE_INDEX` says when: `auto` (the default) starts a root's keeper
//! after a search that walked [`MIN_FILES`] files or more, and the next
//! searches of that root ask it which files can match; `always` starts it
//! for any tree and waits for its index before the first answer; `off`
//! never asks one. A keeper ends after `AIDE_INDEX_IDLE` seconds without a
//! search (15 minutes by default), or on TERM.
//!
//! The keeper's folder is `$AIDE_HOME/search/<16 hex digits>` of the root,
//! the setting and what decides a walk outside the tree (`HOME`,
//! `XDG_CONFIG_HOME`: git's global excludes), so callers whose walks could
//! differ never share one; `root.json` there names them. A caller sends
//! one JSON line, `{"request": …}`, and reads `{"listed": {"files",
//! "candidates": [[position, rel, abs], …], "diagnostics"}}` (what the walk
//! says of entries it skips) or `{"walk": why}` (no index ready: the caller
//! walks, as it would without a keeper).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use aide_core::Root;
use aide_core::envelope::Diagnostic;
use aide_core::walk::WalkedFile;
use aide_keeper::Place;
use serde::{Deserialize, Serialize};

use crate::indexed::{Indexing, Listing, MIN_FILES};
use crate::request::SearchRequest;

const WORDS: aide_keeper::Words = aide_keeper::Words { launch: "__index_keeper_launch", keep: "__index_keeper" };
const ROOT_FILE: &str = "root.json";
/// How long a caller of `auto` waits for a keeper's answer before it walks.
const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// What a keeper holds: the root's indexes, built as `indexing` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Kept {
    root: PathBuf,
    always: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct Question {
    request: SearchRequest,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    Listed { files: usize, candidates: Vec<(usize, String, String)>, diagnostics: Vec<Diagnostic> },
    Walk(String),
}

/// The command line's setting: `AIDE_INDEX`, else `auto`.
fn indexing() -> Indexing {
    std::env::var("AIDE_INDEX").ok().and_then(|v| Indexing::parse(&v)).unwrap_or_default()
}

/// How long a keeper waits for a search before it ends.
fn idle() -> Duration {
    std::env::var("AIDE_INDEX_IDLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(900), Duration::from_secs)
}

fn place_of(kept: &Kept) -> Place {
    let mut key = kept.root.as_os_str().as_encoded_bytes().to_vec();
    key.push(u8::from(kept.always));
    for var in ["HOME", "XDG_CONFIG_HOME"] {
        key.push(0);
        key.extend_from_slice(std::env::var_os(var).unwrap_or_default().as_encoded_bytes());
    }
    let name = aide_core::checksum::sha256_hex(&key);
    Place::new(search_dir().join(&name[..16]))
}

fn search_dir() -> PathBuf {
    aide_core::home::aide_home().join("search")
}

/// The listing of `req`'s files from the root's keeper: one that runs, or,
/// with `always`, one started now. None when there is none or it has no
/// index ready: the caller walks.
pub(crate) fn listing(root: &Root, req: &SearchRequest) -> Option<Listing> {
    if req.walk.changed.is_some() {
        return None;
    }
    let always = match indexing() {
        Indexing::Off => return None,
        Indexing::Auto => false,
        Indexing::Always => true,
    };
    let kept = Kept { root: root.path().to_path_buf(), always };
    let place = place_of(&kept);
    let stream = if always { start(&place, &kept)? } else { place.connect().ok()?? };
    let wait = if always { None } else { Some(ANSWER_WAIT) };
    match ask(stream, req, wait)? {
        Answer::Listed { files, candidates, diagnostics } => {
            let mut listed = Vec::with_capacity(candidates.len());
            for (position, rel, abs) in candidates {
                if position >= files || listed.last().is_some_and(|(last, _)| *last >= position) {
                    return None;
                }
                let depth = rel.matches('/').count() + 1;
                listed.push((position, WalkedFile { abs: abs.into(), rel, depth, is_dir: false }));
            }
            Some(Listing { files, candidates: listed, diagnostics })
        }
        Answer::Walk(_) => None,
    }
}

/// After a search that walked `files` files: with `auto`, a tree that
/// large gets a keeper, handed the request so it builds that index now.
pub(crate) fn after_walk(root: &Root, req: &SearchRequest, files: usize) {
    if indexing() != Indexing::Auto || files < MIN_FILES {
        return;
    }
    let kept = Kept { root: root.path().to_path_buf(), always: false };
    if let Some(stream) = start(&place_of(&kept), &kept) {
        // Its answer (building) is not waited for.
        let _ = (&stream).write_all(&aide_keeper::json_line(&Question { request: req.clone() }));
    }
}

/// A connection to the keeper of `place`, started when none listens.
fn start(place: &Place, kept: &Kept) -> Option<UnixStream> {
    place.socket()?;
    let executable = aide_gate::program::find_executable("llm-search")?;
    let described = serde_json::to_vec(kept).ok()?;
    place.connect_or_start_described(&executable, WORDS, (ROOT_FILE, &described), "the index keeper").ok()
}

/// Sends the question and reads the answer; None when the keeper closed
/// first or took longer than `wait`.
fn ask(mut stream: UnixStream, req: &SearchRequest, wait: Option<Duration>) -> Option<Answer> {
    stream.set_read_timeout(wait).ok()?;
    stream.write_all(&aide_keeper::json_line(&Question { request: req.clone() })).ok()?;
    let mut line = Vec::new();
    BufReader::new(stream).read_until(b'\n', &mut line).ok()?;
    serde_json::from_slice(&line).ok()
}

/// Runs the hidden keeper commands; None for any other command line.
pub fn run_internal_command() -> Option<i32> {
    aide_keeper::run_internal_command(WORDS, keep)
}

/// The keeper of folder `dir`: keeps the indexes of the root `root.json`
/// names, as `aide mcp` does, and answers searches until idle or TERM.
fn keep(dir: &Path) -> i32 {
    let Some(hold) = aide_keeper::hold(dir) else { return 0 };
    let Ok(bytes) = aide_core::fsutil::read_private(&dir.join(ROOT_FILE), 1 << 20) else { return 4 };
    let Ok(kept) = serde_json::from_slice::<Kept>(&bytes) else { return 4 };
    let Ok(root) = Root::new(&kept.root) else { return 4 };
    crate::indexed::keep_indexes(if kept.always { Indexing::Always } else { Indexing::Auto });
    let threads = aide_core::walk::default_threads();
    let refusal =
        aide_keeper::json_line(&Answer::Walk("a sandboxed search cannot ask an index kept outside it".into()));
    let idle = idle();
    let ended = aide_keeper::serve(
        hold,
        refusal,
        move |stream, _| answer(stream, &root, threads),
        |quiet| !quiet.busy && quiet.idle >= idle,
    );
    drop(ended);
    crate::indexed::forget_status();
    0
}

/// Answers one question from the indexes this keeper holds.
fn answer(stream: UnixStream, root: &Root, threads: usize) {
    let Ok(mut writer) = stream.try_clone() else { return };
    let mut line = Vec::new();
    if BufReader::new(stream).read_until(b'\n', &mut line).is_err() {
        return;
    }
    let answer = match serde_json::from_slice::<Question>(&line) {
        Ok(question) => match crate::indexed::listing(root, &question.request, threads) {
            Some(listing) => listed(listing),
            None => Answer::Walk("no index of this search's files is ready".into()),
        },
        Err(e) => Answer::Walk(format!("not a question: {e}")),
    };
    let _ = writer.write_all(&aide_keeper::json_line(&answer));
}

/// The listing as sent: its length and the files that can match, each by
/// position; a file whose path is not UTF-8 cannot be sent (walk instead).
fn listed(listing: Listing) -> Answer {
    let mut candidates = Vec::with_capacity(listing.candidates.len());
    for (position, file) in listing.candidates {
        let Some(abs) = file.abs.to_str() else {
            return Answer::Walk("a file's path is not UTF-8".into());
        };
        candidates.push((position, file.rel, abs.to_string()));
    }
    Answer::Listed { files: listing.files, candidates, diagnostics: listing.diagnostics }
}

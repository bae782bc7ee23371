//! A server kept running between questions, and kept true to the disk.
//!
//! A server started for one question reads the files itself. One kept warm
//! has read them once, and an edit since (by llm-transform, an editor, git)
//! would make its answer stale: a wrong answer given with confidence. So
//! before each question the root's files of the server's languages are
//! looked at again (a walk and a stat each), and every file created,
//! changed or removed since is told to the server: as
//! `workspace/didChangeWatchedFiles`, and a changed or new file is opened
//! with its current text (an open document is what every server takes
//! over the disk). A file whose stamps were too recent to trust when seen
//! (a write within the same tick keeps them, `Stamp::settled`) is sent
//! again at the next question.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use aide_core::fsutil::Stamp;
use aide_core::{Lang, Root};
use serde_json::{Value, json};

use super::client::{LspFailure, Server, file_uri};
use super::server::{LSP_TIMEOUT, ServerSpec, ready_timeout};

/// What was last seen of a file: its stamps, and whether they could be trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    stamp: Stamp,
    settled: bool,
}

/// A running server for one root, and what it was told of the root's files.
pub struct Warm {
    server: Server,
    root: Root,
    langs: Vec<Lang>,
    seen: HashMap<PathBuf, Seen>,
    /// Documents opened, and the version last sent.
    opened: HashMap<PathBuf, i32>,
}

impl Warm {
    /// Starts `spec`'s server on `root`, after looking at the root's files
    /// (so a change made while it starts is caught by the first question).
    pub fn start(root: &Root, spec: &ServerSpec) -> Result<Warm, LspFailure> {
        let langs = spec.family().to_vec();
        let seen = scan(root, &langs);
        let server = Server::start(&spec.argv, root.path(), LSP_TIMEOUT)?;
        Ok(Warm { server, root: root.clone(), langs, seen, opened: HashMap::new() })
    }

    /// Asks `method` with `params` once the server knows the root's files
    /// as they are now, `open` (absolute paths) opened as an editor would,
    /// and has loaded its project (see [`super::ready`]): not asked
    /// (`NotReady`) when it has not within [`ready_timeout`].
    /// `workspace/executeCommand` answers with the edits the command sent
    /// (see [`Server::execute_command`]).
    pub fn ask(&mut self, method: &'static str, params: Value, open: &[PathBuf]) -> Result<Value, LspFailure> {
        self.sync()?;
        for path in open {
            if !self.opened.contains_key(path) {
                self.send_text(path)?;
            }
        }
        self.server.settle(ready_timeout())?;
        if method == super::client::EXECUTE_COMMAND {
            return self.server.execute_command(params, LSP_TIMEOUT);
        }
        self.server.request(method, params, LSP_TIMEOUT)
    }

    /// Tells the server of every file created, changed or removed since last seen.
    fn sync(&mut self) -> Result<(), LspFailure> {
        let now = scan(&self.root, &self.langs);
        let mut events = Vec::new();
        for (path, seen) in &now {
            match self.seen.get(path) {
                None => events.push((path.clone(), 1)),
                Some(before) if before != seen || !before.settled => events.push((path.clone(), 2)),
                Some(_) => {}
            }
        }
        for path in self.seen.keys().filter(|p| !now.contains_key(*p)) {
            events.push((path.clone(), 3));
        }
        self.seen = now;
        if events.is_empty() {
            return Ok(());
        }
        events.sort();
        let changes: Vec<Value> =
            events.iter().map(|(path, kind)| json!({ "uri": file_uri(path), "type": kind })).collect();
        self.server.notify("workspace/didChangeWatchedFiles", json!({ "changes": changes }))?;
        for (path, kind) in events {
            if kind == 3 {
                if self.opened.remove(&path).is_some() {
                    self.server
                        .notify("textDocument/didClose", json!({ "textDocument": { "uri": file_uri(&path) } }))?;
                }
            } else {
                self.send_text(&path)?;
            }
        }
        Ok(())
    }

    /// Opens `path` with its text now, or sends that text as its next version.
    fn send_text(&mut self, path: &Path) -> Result<(), LspFailure> {
        let Ok(bytes) = self.root.read(path) else { return Ok(()) };
        let text = String::from_utf8_lossy(&bytes);
        let uri = file_uri(path);
        match self.opened.get_mut(path) {
            Some(version) => {
                *version += 1;
                let params = json!({
                    "textDocument": { "uri": uri, "version": *version },
                    "contentChanges": [{ "text": text }],
                });
                self.server.notify("textDocument/didChange", params)
            }
            None => {
                let language_id = Lang::from_path_and_content(path, &bytes).map_or("plaintext", language_id);
                self.opened.insert(path.to_path_buf(), 1);
                let params = json!({
                    "textDocument": { "uri": uri, "languageId": language_id, "version": 1, "text": text },
                });
                self.server.notify("textDocument/didOpen", params)
            }
        }
    }
}

/// The LSP language id of a file of `lang`.
pub fn language_id(lang: Lang) -> &'static str {
    match lang {
        Lang::Python => "python",
        Lang::TypeScript => "typescript",
        Lang::Tsx => "typescriptreact",
        Lang::JavaScript => "javascript",
        Lang::Rust => "rust",
        Lang::Go => "go",
        Lang::C => "c",
        Lang::Cpp => "cpp",
        Lang::Java => "java",
    }
}

/// The root's files of `langs` (ignored and hidden ones left out, as the
/// walk of every tool does), with their stamps.
fn scan(root: &Root, langs: &[Lang]) -> HashMap<PathBuf, Seen> {
    let args = aide_core::walk::WalkArgs {
        r#type: langs.iter().map(|l| l.name().to_string()).collect(),
        ..Default::default()
    };
    let Ok(walker) = aide_core::walk::Walker::new(root, &args) else { return HashMap::new() };
    let Ok((files, _)) = walker.collect(1) else { return HashMap::new() };
    let now = SystemTime::now();
    files
        .into_iter()
        .filter_map(|f| {
            let meta = std::fs::symlink_metadata(&f.abs).ok()?;
            let stamp = Stamp::of(&meta);
            Some((f.abs, Seen { stamp, settled: stamp.settled(now) }))
        })
        .collect()
}

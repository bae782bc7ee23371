//! Whether a server has loaded its project: a question asked before that
//! is answered from the few files it has read (pyright answers a cold
//! `references` with nothing), and such an answer looks like any other.
//!
//! What a server says while it loads is followed here: every work-done
//! progress it announces (`window/workDoneProgress/create`) or begins
//! (`$/progress` `begin` … `end`, which gopls, clangd, rust-analyzer and
//! others report while they load or index), rust-analyzer's
//! `experimental/serverStatus` (`quiescent`), and for servers that report
//! neither, what they log once their files are known: pyright (and its
//! forks) logs `Found N source files` (or `No source files found.`) when
//! it has listed the project's files. A server is ready when it has said
//! it loaded (where it says so) and no progress it began is still going.

use std::collections::BTreeMap;

use serde_json::Value;

/// How a server says it has loaded its project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loads {
    /// Pyright: by logging the number of source files it found.
    FileCount,
    /// rust-analyzer: by a `quiescent` status.
    Status,
    /// Any other: by progress alone (its loading is progress it begins).
    Progress,
}

/// What a server has said about its loading so far.
#[derive(Debug, Clone)]
pub struct Readiness {
    loads: Loads,
    /// It said it has loaded its project (where it says so).
    loaded: bool,
    /// Progress begun and not ended: its token and title.
    going: BTreeMap<String, String>,
    /// Its last `experimental/serverStatus`: quiescent or not, and its message.
    status: Option<(bool, String)>,
}

impl Readiness {
    /// For the server named `name` (its `serverInfo`, else its command's file name).
    pub fn for_server(name: &str) -> Readiness {
        let name = name.to_ascii_lowercase();
        let loads = if name.contains("pyright") {
            Loads::FileCount
        } else if name.contains("rust-analyzer") || name.contains("rust_analyzer") {
            Loads::Status
        } else {
            Loads::Progress
        };
        Readiness { loads, loaded: loads == Loads::Progress, going: BTreeMap::new(), status: None }
    }

    /// Takes in a message from the server (a notification, or a request of its own).
    pub fn note(&mut self, message: &Value) {
        let params = message.get("params").unwrap_or(&Value::Null);
        match message.get("method").and_then(Value::as_str) {
            Some("$/progress") => {
                let Some(token) = params.get("token").map(token_key) else { return };
                match params.pointer("/value/kind").and_then(Value::as_str) {
                    Some("begin") => {
                        let title = params.pointer("/value/title").and_then(Value::as_str).unwrap_or("work");
                        self.going.insert(token, title.to_string());
                    }
                    Some("end") => {
                        self.going.remove(&token);
                    }
                    _ => {}
                }
            }
            // A token announced is about to be begun: waited on from now.
            Some("window/workDoneProgress/create") => {
                if let Some(token) = params.get("token").map(token_key) {
                    self.going.entry(token).or_insert_with(|| "work it announced".to_string());
                }
            }
            Some("experimental/serverStatus") => {
                let quiescent = params.get("quiescent").and_then(Value::as_bool).unwrap_or(true);
                let said = params.get("message").and_then(Value::as_str).unwrap_or_default().to_string();
                self.status = Some((quiescent, said));
                if quiescent && self.loads == Loads::Status {
                    self.loaded = true;
                }
            }
            Some("window/logMessage") if self.loads == Loads::FileCount => {
                let text = params.get("message").and_then(Value::as_str).unwrap_or_default();
                if is_file_count(text) {
                    self.loaded = true;
                }
            }
            _ => {}
        }
    }

    /// Whether it has loaded its project and is doing nothing it reported.
    pub fn is_ready(&self) -> bool {
        self.loaded && self.going.is_empty() && self.status.as_ref().is_none_or(|(quiescent, _)| *quiescent)
    }

    /// What it is still doing, in words (for a diagnostic).
    pub fn waiting_on(&self) -> String {
        let mut doing: Vec<String> = self.going.values().map(|t| format!("`{t}`")).collect();
        if let Some((false, said)) = &self.status {
            doing.push(if said.is_empty() { "its status is not quiescent".into() } else { format!("`{said}`") });
        }
        if !self.loaded {
            doing.push(match self.loads {
                Loads::FileCount => "it had not listed the project's source files".into(),
                Loads::Status => "it had not reported a quiescent status".into(),
                Loads::Progress => "loading".into(),
            });
        }
        doing.join(", ")
    }
}

/// A progress token (a string or a number) as a key.
fn token_key(token: &Value) -> String {
    match token {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Pyright's line once it has listed the project's files: `Found 12 source
/// files`, `Found 1 source file`, `No source files found.`.
fn is_file_count(text: &str) -> bool {
    let text = text.trim();
    if text.starts_with("No source files found") {
        return true;
    }
    let Some(rest) = text.strip_prefix("Found ") else { return false };
    let (count, rest) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
    !count.is_empty() && (rest.starts_with(" source file"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn progress(token: Value, kind: &str) -> Value {
        json!({"method": "$/progress", "params": {"token": token, "value": {"kind": kind, "title": "Indexing"}}})
    }

    #[test]
    fn a_server_is_ready_once_every_progress_it_began_has_ended() {
        let mut r = Readiness::for_server("gopls");
        assert!(r.is_ready(), "nothing reported: nothing to wait for");
        r.note(&json!({"id": 1, "method": "window/workDoneProgress/create", "params": {"token": "a"}}));
        assert!(!r.is_ready(), "announced, about to begin");
        assert_eq!(r.waiting_on(), "`work it announced`");
        r.note(&progress(json!("a"), "begin"));
        r.note(&progress(json!(7), "begin"));
        assert!(!r.is_ready());
        assert_eq!(r.waiting_on(), "`Indexing`, `Indexing`");
        r.note(&progress(json!("a"), "report"));
        r.note(&progress(json!("a"), "end"));
        assert!(!r.is_ready(), "a numbered token still going");
        r.note(&progress(json!(7), "end"));
        assert!(r.is_ready());
    }

    #[test]
    fn pyright_is_ready_once_it_has_listed_the_projects_files() {
        let mut r = Readiness::for_server("pyright-langserver");
        assert!(!r.is_ready());
        assert_eq!(r.waiting_on(), "it had not listed the project's source files");
        let log = |text: &str| json!({"method": "window/logMessage", "params": {"type": 3, "message": text}});
        r.note(&log("Assuming Python version 3.11"));
        r.note(&log("Found 12 files to analyze"));
        assert!(!r.is_ready(), "not the line of listed source files");
        r.note(&log("Found 33 source files"));
        assert!(r.is_ready());
        let mut r = Readiness::for_server("basedpyright-langserver");
        r.note(&log("No source files found."));
        assert!(r.is_ready());
    }

    #[test]
    fn rust_analyzer_is_ready_when_quiescent() {
        let mut r = Readiness::for_server("rust-analyzer");
        let status = |quiescent: bool| json!({"method": "experimental/serverStatus", "params": {"health": "ok", "quiescent": quiescent, "message": "Fetching"}});
        assert!(!r.is_ready());
        r.note(&status(false));
        assert!(!r.is_ready());
        assert!(r.waiting_on().contains("`Fetching`"), "{}", r.waiting_on());
        r.note(&status(true));
        assert!(r.is_ready());
        r.note(&status(false));
        assert!(!r.is_ready(), "busy again after a change");
    }
}

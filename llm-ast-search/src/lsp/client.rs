//! A language server over stdio: JSON-RPC messages framed by
//! `Content-Length` headers, requests answered by id within a deadline,
//! the server's own requests answered so it never waits on us
//! (`workspace/configuration` with nulls, `workspace/applyEdit` refused
//! but its edit kept, anything else, such as
//! `window/workDoneProgress/create`, with null), and what it says about
//! its loading followed (see [`super::ready`]).
//!
//! A command a server executes (a code action's) sends its edit back as a
//! `workspace/applyEdit` request: the client writes nothing, answers
//! `applied: false` (aide applies a server's edit itself, through
//! llm-transform's guarded commit), and [`Server::execute_command`] gives
//! the edits it kept as the command's answer.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::ready::Readiness;

/// The method whose answer through [`super::keeper::ask`] is the command's
/// result and the edits it sent: `{"result", "edits"}` (see
/// [`Server::execute_command`]).
pub const EXECUTE_COMMAND: &str = "workspace/executeCommand";

/// The code action kinds aide tells a server it takes.
pub const CODE_ACTION_KINDS: &[&str] = &[
    "",
    "quickfix",
    "refactor",
    "refactor.extract",
    "refactor.inline",
    "refactor.rewrite",
    "source",
    "source.organizeImports",
];

/// Why a server did not answer.
#[derive(Debug, Clone)]
pub enum LspFailure {
    /// It could not be started.
    Start(String),
    /// It ended, or its output could not be read.
    Gone(String),
    /// It did not answer in time.
    Timeout(&'static str),
    /// It answered with an error.
    Error(String),
    /// It had not loaded its project in time (what it was still doing):
    /// its answer would have come from the few files it had read.
    NotReady(String),
    /// It answered, but left out sites it should have given (what they are).
    Partial(String),
}

impl LspFailure {
    /// What went wrong, without the kind of failure (which the wire says apart).
    pub fn detail(&self) -> String {
        match self {
            LspFailure::Start(e)
            | LspFailure::Gone(e)
            | LspFailure::Error(e)
            | LspFailure::NotReady(e)
            | LspFailure::Partial(e) => e.clone(),
            LspFailure::Timeout(method) => method.to_string(),
        }
    }
}

impl std::fmt::Display for LspFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LspFailure::Start(e) => write!(f, "could not start: {e}"),
            LspFailure::Gone(e) => write!(f, "ended: {e}"),
            LspFailure::Timeout(method) => write!(f, "no answer to {method} in time"),
            LspFailure::Error(e) => write!(f, "answered with an error: {e}"),
            LspFailure::NotReady(e) => write!(f, "had not loaded the project {e}"),
            LspFailure::Partial(e) => write!(f, "{e}"),
        }
    }
}

/// A running server.
pub struct Server {
    /// Started through the gate (the ambient sandbox); its whole process
    /// group goes when this is dropped.
    process: aide_gate::Started,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    readiness: Readiness,
    /// The edits of `workspace/applyEdit` requests since the last command.
    edits: Vec<Value>,
}

impl Server {
    /// Starts `argv` in `root` and initializes it for that root.
    pub fn start(argv: &[String], root: &Path, timeout: Duration) -> Result<Server, LspFailure> {
        let (program, args) = argv.split_first().ok_or_else(|| LspFailure::Start("no command".into()))?;
        let mut process = aide_gate::Launch::new("language server", program, root)
            .args(args)
            .spawn(Stdio::piped(), Stdio::piped(), Stdio::null())
            .map_err(|e| LspFailure::Start(e.to_string()))?;
        let child = process.child();
        let stdin = child.stdin.take().ok_or_else(|| LspFailure::Start("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| LspFailure::Start("no stdout".into()))?;
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        // Known by its programs' file names (`node …/pyright-langserver.js` is pyright).
        let programs: Vec<&str> =
            argv.iter().map(|a| Path::new(a).file_name().and_then(|n| n.to_str()).unwrap_or(a)).collect();
        let programs = programs.join(" ");
        let readiness = Readiness::for_server(&programs);
        let mut server = Server { process, stdin, messages, next_id: 0, readiness, edits: Vec::new() };
        let uri = file_uri(root);
        let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // No processId: a server given one checks every few seconds that
        // the process lives by sending it signal 0 (vscode-languageserver
        // does, so pyright), which the sandbox's signal scope refuses, and
        // it quits. Its stdin, which only this process holds, closing is
        // how it learns this process ended.
        let params = json!({
            "processId": Value::Null,
            "rootUri": uri,
            "rootPath": root.display().to_string(),
            "workspaceFolders": [{ "uri": uri, "name": name }],
            "capabilities": {
                "general": { "positionEncodings": ["utf-16"] },
                "window": { "workDoneProgress": true },
                "experimental": { "serverStatusNotification": true },
                "workspace": {
                    "applyEdit": true,
                    "executeCommand": {},
                    "configuration": true,
                    "workspaceFolders": true,
                    "didChangeWatchedFiles": { "dynamicRegistration": true },
                    "symbol": {}
                },
                "textDocument": {
                    "synchronization": { "didSave": false },
                    "definition": { "linkSupport": false },
                    "references": {},
                    "implementation": { "linkSupport": false },
                    "hover": { "contentFormat": ["plaintext", "markdown"] },
                    "rename": { "prepareSupport": false },
                    "codeAction": {
                        "codeActionLiteralSupport": { "codeActionKind": { "valueSet": CODE_ACTION_KINDS } },
                        "dataSupport": true,
                        "resolveSupport": { "properties": ["edit"] }
                    },
                    "callHierarchy": {}
                }
            }
        });
        let initialized = server.request("initialize", params, timeout)?;
        if let Some(name) = initialized.pointer("/serverInfo/name").and_then(Value::as_str) {
            server.readiness = Readiness::for_server(&format!("{programs} {name}"));
        }
        server.notify("initialized", json!({}))?;
        Ok(server)
    }

    /// Waits until the server has loaded its project and finished the work
    /// it reported, at most `timeout`; NotReady (what it was still doing)
    /// after that. A request of no method goes first, so that whatever the
    /// server began on what it was sent before (a file opened) has been said.
    pub fn settle(&mut self, timeout: Duration) -> Result<(), LspFailure> {
        let deadline = Instant::now() + timeout;
        let not_ready = |readiness: &Readiness| {
            LspFailure::NotReady(format!("after {} s: {}", timeout.as_secs(), readiness.waiting_on()))
        };
        match self.request("aide/ready", Value::Null, timeout) {
            Ok(_) | Err(LspFailure::Error(_)) => {}
            Err(LspFailure::Timeout(_)) => return Err(not_ready(&self.readiness)),
            Err(other) => return Err(other),
        }
        while !self.readiness.is_ready() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) => self.take(&message)?,
                Err(RecvTimeoutError::Timeout) => return Err(not_ready(&self.readiness)),
                Err(RecvTimeoutError::Disconnected) => return Err(LspFailure::Gone("its output closed".into())),
            }
        }
        Ok(())
    }

    /// Takes in a message that is not the answer awaited: a request of the
    /// server's own is answered at once; what it says of its loading is noted.
    fn take(&mut self, message: &Value) -> Result<(), LspFailure> {
        self.readiness.note(message);
        if let (Some(asked), Some(their_id)) = (message.get("method").and_then(Value::as_str), message.get("id")) {
            let result = match asked {
                "workspace/configuration" => {
                    let items = message.pointer("/params/items").and_then(Value::as_array).map_or(0, Vec::len);
                    Value::Array(vec![Value::Null; items])
                }
                "workspace/applyEdit" => {
                    self.edits.push(message.pointer("/params/edit").cloned().unwrap_or(Value::Null));
                    json!({ "applied": false, "failureReason": "aide applies a server's edit itself, through its guarded commit" })
                }
                _ => Value::Null,
            };
            self.send(&json!({ "jsonrpc": "2.0", "id": their_id, "result": result }))?;
        }
        Ok(())
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) -> Result<(), LspFailure> {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    /// Sends a request and waits for its answer until `timeout`.
    pub fn request(&mut self, method: &'static str, params: Value, timeout: Duration) -> Result<Value, LspFailure> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.messages.recv_timeout(left) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => return Err(LspFailure::Timeout(method)),
                Err(RecvTimeoutError::Disconnected) => return Err(LspFailure::Gone("its output closed".into())),
            };
            if message.get("method").is_some() {
                self.take(&message)?;
                continue;
            }
            if message.get("id").and_then(Value::as_i64) == Some(id) {
                if let Some(error) = message.get("error") {
                    return Err(LspFailure::Error(
                        error.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
                    ));
                }
                return Ok(message.get("result").cloned().unwrap_or(Value::Null));
            }
        }
    }

    /// Executes a command (`workspace/executeCommand`) and answers
    /// `{"result": its result, "edits": [each WorkspaceEdit it sent as
    /// workspace/applyEdit]}`. The refusal of those edits may make the
    /// server answer the command with an error: an error after an edit is
    /// the edit.
    pub fn execute_command(&mut self, params: Value, timeout: Duration) -> Result<Value, LspFailure> {
        self.edits.clear();
        let answered = self.request(EXECUTE_COMMAND, params, timeout);
        let edits = std::mem::take(&mut self.edits);
        match answered {
            Ok(result) => Ok(json!({ "result": result, "edits": edits })),
            Err(LspFailure::Error(_)) if !edits.is_empty() => Ok(json!({ "result": null, "edits": edits })),
            Err(failure) => Err(failure),
        }
    }

    fn send(&mut self, message: &Value) -> Result<(), LspFailure> {
        let body = message.to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.stdin
            .write_all(framed.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| LspFailure::Gone(e.to_string()))
    }
}

impl Drop for Server {
    /// Asked to shut down; killed if it does not go within a moment.
    fn drop(&mut self) {
        let _ = self.request("shutdown", Value::Null, Duration::from_millis(500));
        let _ = self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if matches!(self.process.child().try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Dropping `process` then takes down what is left of its group.
    }
}

/// One framed message, or None at the end of the stream.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = n.trim().parse::<usize>().ok();
            }
        }
        let length = length?;
        let mut body = vec![0; length];
        reader.read_exact(&mut body).ok()?;
        if let Ok(value) = serde_json::from_slice(&body) {
            return Some(value);
        }
    }
}

/// `file://` and the absolute path, percent-encoded where a URI needs it.
pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(*b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The path a `file://` URI names.
pub fn uri_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() + 1 {
            let hex = std::str::from_utf8(raw.get(i + 1..i + 3)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    Some(std::path::PathBuf::from(String::from_utf8(bytes).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_spaces_and_non_ascii() {
        let p = Path::new("/tmp/a b/é.py");
        let uri = file_uri(p);
        assert_eq!(uri, "file:///tmp/a%20b/%C3%A9.py");
        assert_eq!(uri_path(&uri).as_deref(), Some(p));
    }

    #[test]
    fn framed_messages_are_read_one_by_one() {
        let body = r#"{"jsonrpc":"2.0","id":1,"result":null}"#;
        let text =
            format!("Content-Length: {}\r\nContent-Type: x\r\n\r\n{body}Content-Length: 2\r\n\r\n{{}}", body.len());
        let mut reader = BufReader::new(text.as_bytes());
        assert_eq!(read_message(&mut reader).unwrap()["id"], 1);
        assert_eq!(read_message(&mut reader).unwrap(), json!({}));
        assert!(read_message(&mut reader).is_none());
    }
}

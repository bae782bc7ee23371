//! Where a warm server lives between runs: in this process (`aide mcp`,
//! after [`keep_servers`]), or, for the command line, in a keeper of its
//! root and server (`llm-ast-search __lsp_keeper DIR`, through
//! [`aide_keeper`]), which ends after [`idle`] without a question.
//!
//! The keeper's folder is `$AIDE_HOME/lsp/<16 hex digits of the root and
//! the server's command>`; `server.json` there names them. A caller sends
//! one JSON line, `{"method", "params", "open"}`, and reads
//! `{"answered": result}` or `{"failed": {"kind", "message"}}`. A server
//! that ended or stopped answering is not kept: the keeper (or the pool)
//! lets it go, and the next question starts a new one. One not ready in
//! time is kept: it loads on, and a later question finds it ready.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use aide_core::Root;
use aide_keeper::Place;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::LspFailure;
use super::server::ServerSpec;
use super::warm::Warm;

const WORDS: aide_keeper::Words = aide_keeper::Words { launch: "__lsp_keeper_launch", keep: "__lsp_keeper" };
const SERVER_FILE: &str = "server.json";

/// How long a keeper waits for a question before it stops its server and
/// exits: `AIDE_LSP_IDLE` seconds, else 10 minutes (servers hold much memory).
pub fn idle() -> Duration {
    std::env::var("AIDE_LSP_IDLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(600), Duration::from_secs)
}

/// Which server a keeper holds: its root and command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub root: PathBuf,
    pub spec: ServerSpec,
}

#[derive(Debug, Serialize, Deserialize)]
struct Question {
    method: String,
    params: Value,
    open: Vec<PathBuf>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    Answered(Value),
    Failed { kind: String, message: String },
}

type Pool = Mutex<HashMap<(PathBuf, Vec<String>), Warm>>;
static POOL: OnceLock<Pool> = OnceLock::new();

/// Keeps servers in this process from now on, one per root and command,
/// for its lifetime (a long-lived process: `aide mcp`).
pub fn keep_servers() {
    let _ = POOL.set(Mutex::new(HashMap::new()));
}

/// Stops the servers this process keeps (each asked to shut down).
pub fn release_servers() {
    if let Some(pool) = POOL.get() {
        aide_core::sync::lock(pool).clear();
    }
}

/// Asks the server `spec` for `root`: a warm one of this process's pool,
/// else of the root's keeper (started if none runs), else one started for
/// this question alone (`AIDE_LSP_KEEP=0`, or no keeper can be started).
pub fn ask(
    root: &Root,
    spec: &ServerSpec,
    method: &'static str,
    params: Value,
    open: &[PathBuf],
) -> Result<Value, LspFailure> {
    if let Some(pool) = POOL.get() {
        let mut pool = aide_core::sync::lock(pool);
        let key = (root.path().to_path_buf(), spec.argv.clone());
        let warm = match pool.entry(key.clone()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(Warm::start(root, spec)?),
        };
        let answer = warm.ask(method, params, open);
        if matches!(answer, Err(LspFailure::Gone(_) | LspFailure::Timeout(_))) {
            pool.remove(&key);
        }
        return answer;
    }
    if std::env::var("AIDE_LSP_KEEP").is_ok_and(|v| v == "0") {
        return Warm::start(root, spec)?.ask(method, params, open);
    }
    match through_keeper(root, spec, method, &params, open) {
        Some(answer) => answer,
        None => Warm::start(root, spec)?.ask(method, params, open),
    }
}

/// The keeper's folder for `root` and `argv`.
fn place_of(held: &Held) -> Place {
    let mut key = held.root.as_os_str().as_encoded_bytes().to_vec();
    for arg in &held.spec.argv {
        key.push(0);
        key.extend_from_slice(arg.as_bytes());
    }
    let name = aide_core::checksum::sha256_hex(&key);
    Place::new(lsp_dir().join(&name[..16]))
}

fn lsp_dir() -> PathBuf {
    aide_core::home::aide_home().join("lsp")
}

/// The question asked of the root's keeper; None when no keeper can serve
/// it (no executable to run one, a folder too long for a socket).
fn through_keeper(
    root: &Root,
    spec: &ServerSpec,
    method: &'static str,
    params: &Value,
    open: &[PathBuf],
) -> Option<Result<Value, LspFailure>> {
    let held = Held { root: root.path().to_path_buf(), spec: spec.clone() };
    let place = place_of(&held);
    place.socket()?;
    let executable = keeper_executable()?;
    let question =
        aide_keeper::json_line(&Question { method: method.to_string(), params: params.clone(), open: open.to_vec() });
    let described = serde_json::to_vec(&held).ok()?;
    // A keeper that was leaving as we connected drops the question unread: once more, with a new one.
    for _ in 0..2 {
        let stream =
            match place.connect_or_start_described(&executable, WORDS, (SERVER_FILE, &described), "the LSP keeper") {
                Ok(s) => s,
                Err(_) => return None,
            };
        if let Some(answer) = exchange(stream, &question) {
            return Some(answer);
        }
    }
    Some(Err(LspFailure::Gone("the language server's keeper closed before answering".into())))
}

/// Sends the question and reads the answer; None when the keeper closed first.
fn exchange(mut stream: UnixStream, question: &[u8]) -> Option<Result<Value, LspFailure>> {
    stream.write_all(question).ok()?;
    let mut line = Vec::new();
    BufReader::new(stream).read_until(b'\n', &mut line).ok()?;
    match serde_json::from_slice::<Answer>(&line).ok()? {
        Answer::Answered(value) => Some(Ok(value)),
        Answer::Failed { kind, message } => Some(Err(match kind.as_str() {
            "start" => LspFailure::Start(message),
            "timeout" => {
                LspFailure::Timeout(METHODS.iter().find(|m| **m == message).copied().unwrap_or("the question"))
            }
            "error" => LspFailure::Error(message),
            "not_ready" => LspFailure::NotReady(message),
            "partial" => LspFailure::Partial(message),
            _ => LspFailure::Gone(message),
        })),
    }
}

/// The llm-ast-search binary: this one, or the one beside it (llm-transform).
fn keeper_executable() -> Option<PathBuf> {
    aide_gate::program::find_executable("llm-ast-search")
}

/// Runs the hidden keeper commands; None for any other command line.
pub fn run_internal_command() -> Option<i32> {
    aide_keeper::run_internal_command(WORDS, keep)
}

/// The keeper of folder `dir`: starts the server `server.json` names and
/// answers questions until idle, TERM, or the server's end.
fn keep(dir: &Path) -> i32 {
    let Some(hold) = aide_keeper::hold(dir) else { return 0 };
    let Ok(bytes) = aide_core::fsutil::read_private(&dir.join(SERVER_FILE), 1 << 20) else { return 4 };
    let Ok(held) = serde_json::from_slice::<Held>(&bytes) else { return 4 };
    let Ok(root) = Root::new(&held.root) else { return 4 };
    let spec = held.spec;
    let warm: std::sync::Arc<Mutex<Option<Warm>>> = std::sync::Arc::new(Mutex::new(None));
    let gone = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let idle = idle();
    let (serving, ended) = (warm.clone(), gone.clone());
    let refused = Answer::Failed {
        kind: "error".into(),
        message: "a sandboxed command cannot ask a language server kept outside its sandbox".into(),
    };
    let refusal = aide_keeper::json_line(&refused);
    aide_keeper::serve(
        hold,
        refusal,
        move |stream, _| {
            if !serve(stream, &root, &spec, &serving) {
                ended.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        },
        |quiet| gone.load(std::sync::atomic::Ordering::SeqCst) || (!quiet.busy && quiet.idle >= idle),
    );
    // The server goes with its keeper (asked to shut down, killed if it lingers).
    drop(aide_core::sync::lock(&warm).take());
    0
}

/// Answers one question; false when the server is gone (the keeper ends).
fn serve(stream: UnixStream, root: &Root, spec: &ServerSpec, warm: &Mutex<Option<Warm>>) -> bool {
    let Ok(mut writer) = stream.try_clone() else { return true };
    let mut line = Vec::new();
    if BufReader::new(stream).read_until(b'\n', &mut line).is_err() {
        return true;
    }
    let Ok(question) = serde_json::from_slice::<Question>(&line) else { return true };
    let Some(method) = METHODS.iter().find(|m| **m == question.method) else {
        let _ = send(&mut writer, &Answer::Failed { kind: "error".into(), message: "not a method aide asks".into() });
        return true;
    };
    let mut warm = aide_core::sync::lock(warm);
    let answer = match warm.as_mut() {
        Some(w) => w.ask(method, question.params, &question.open),
        None => Warm::start(root, spec).and_then(|w| warm.insert(w).ask(method, question.params, &question.open)),
    };
    let alive = !matches!(answer, Err(LspFailure::Gone(_) | LspFailure::Timeout(_) | LspFailure::Start(_)));
    let answer = match answer {
        Ok(value) => Answer::Answered(value),
        Err(failure) => {
            let kind = match &failure {
                LspFailure::Start(_) => "start",
                LspFailure::Gone(_) => "gone",
                LspFailure::Timeout(_) => "timeout",
                LspFailure::Error(_) => "error",
                LspFailure::NotReady(_) => "not_ready",
                LspFailure::Partial(_) => "partial",
            };
            Answer::Failed { kind: kind.into(), message: failure.detail() }
        }
    };
    let _ = send(&mut writer, &answer);
    alive
}

/// The methods a question may name (a keeper's request names one of these).
const METHODS: &[&str] = &[
    "textDocument/references",
    "textDocument/definition",
    "textDocument/implementation",
    "textDocument/hover",
    "textDocument/rename",
    "textDocument/prepareCallHierarchy",
    "callHierarchy/incomingCalls",
    "workspace/symbol",
    "textDocument/codeAction",
    "codeAction/resolve",
    super::client::EXECUTE_COMMAND,
];

fn send(writer: &mut UnixStream, answer: &Answer) -> std::io::Result<()> {
    writer.write_all(&aide_keeper::json_line(answer))
}

/// The keepers running now: the server each holds, and its process id.
pub fn running() -> Vec<(Held, i32)> {
    let Ok(entries) = std::fs::read_dir(lsp_dir()) else { return Vec::new() };
    let mut out: Vec<(Held, i32)> = entries
        .flatten()
        .filter_map(|e| {
            let place = Place::new(e.path());
            if !place.is_alive() {
                return None;
            }
            let bytes = aide_core::fsutil::read_private(&place.dir.join(SERVER_FILE), 1 << 20).ok()?;
            Some((serde_json::from_slice(&bytes).ok()?, place.pid()?))
        })
        .collect();
    out.sort_by(|a, b| (&a.0.root, &a.0.spec.argv).cmp(&(&b.0.root, &b.0.spec.argv)));
    out
}

/// Stops every keeper (and so its server): `aide doctor --fix` and tests.
pub fn stop_all() {
    let Ok(entries) = std::fs::read_dir(lsp_dir()) else { return };
    for e in entries.flatten() {
        Place::new(e.path()).stop();
    }
}

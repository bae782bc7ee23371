//! A minimal MCP client over a child's stdio, written here rather than taken
//! from an SDK so the tests see the exact bytes: `aide mcp` is started as a
//! child process, requests and notifications are JSON-RPC lines on its
//! stdin, and every line it writes to stdout must be a JSON-RPC message.
#![allow(clippy::unwrap_used)]

/// What a model loads of the tools (name, description and input schema,
/// compact JSON, as `aide tools --format anthropic` prints them), on average
/// per operation: the whole list's cap grows with the catalogue, so a new
/// tool brings its own share, and the tools already there keep theirs.
pub const MODEL_BYTES_PER_OPERATION: usize = 700;
/// One tool's share; transform's, which takes every kind of edit, may be three times that.
pub const MAX_TOOL_BYTES: usize = 2 * 1024;
pub const MAX_TRANSFORM_BYTES: usize = 6 * 1024;
/// `aide tools --format openai`: the same definitions, each in its wrapper.
pub const OPENAI_BYTES_PER_OPERATION: usize = 740;

/// The cap on what a model loads of `operations` tools.
pub fn max_model_bytes(operations: usize) -> usize {
    MODEL_BYTES_PER_OPERATION * operations
}

/// A tool's own cap (transform's is larger).
pub fn max_tool_bytes(name: &str) -> usize {
    if name == "transform" { MAX_TRANSFORM_BYTES } else { MAX_TOOL_BYTES }
}
// Test helpers may unwrap: a panic is how a test fails.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long any one reply may take before the test fails.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// A running `aide mcp` and the messages it sent that no one took yet.
#[derive(Debug)]
pub struct McpClient {
    child: Child,
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    messages: Receiver<Value>,
    pending: VecDeque<Value>,
    next_id: u64,
    /// Lines on stdout that were not JSON-RPC messages.
    pub garbage: Arc<Mutex<Vec<String>>>,
    /// The roots this client answers `roots/list` with (file URIs), and how
    /// many times it was asked.
    pub roots: Arc<Mutex<(Vec<String>, usize)>>,
}

impl McpClient {
    /// Starts `aide mcp` with `args` in `cwd` with `AIDE_HOME` = `home`.
    pub fn start(cwd: &Path, home: &Path, args: &[&str]) -> McpClient {
        McpClient::start_binary(&crate::programs::bin_dir().join("aide"), cwd, home, args)
    }

    /// [`McpClient::start`] with a given `aide` executable (a release build
    /// for benchmarks).
    pub fn start_binary(aide: &Path, cwd: &Path, home: &Path, args: &[&str]) -> McpClient {
        McpClient::start_with_env(aide, cwd, home, args, &[])
    }

    /// [`McpClient::start_binary`] with more environment variables (a
    /// user's configuration folder). The tests read the whole document
    /// (`--json`'s): unless `args` name a `--structured` mode, the server is
    /// started with `--structured full` (tests/e2e/mcp_structured.rs holds
    /// the compact form, the default).
    pub fn start_with_env(aide: &Path, cwd: &Path, home: &Path, args: &[&str], env: &[(&str, &Path)]) -> McpClient {
        let whole: &[&str] =
            if args.iter().any(|a| a.starts_with("--structured")) { &[] } else { &["--structured", "full"] };
        let mut child = crate::programs::own_session(Command::new(aide))
            .arg("mcp")
            .args(whole)
            .args(args)
            .current_dir(cwd)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .env("AIDE_HOME", home)
            .env_remove("AIDE_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn aide mcp");
        let stdin = Arc::new(Mutex::new(child.stdin.take()));
        let stdout = child.stdout.take().expect("stdout");
        let (tx, messages) = channel();
        let garbage = Arc::new(Mutex::new(Vec::new()));
        let roots: Arc<Mutex<(Vec<String>, usize)>> = Arc::new(Mutex::new((Vec::new(), 0)));
        {
            let (garbage, roots, stdin) = (garbage.clone(), roots.clone(), stdin.clone());
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    let message = serde_json::from_str::<Value>(&line).ok().filter(|m| m["jsonrpc"] == "2.0");
                    let Some(message) = message else {
                        garbage.lock().unwrap().push(line);
                        continue;
                    };
                    // The server asks the client for its roots.
                    if message["method"] == "roots/list" {
                        let mut roots = roots.lock().unwrap();
                        roots.1 += 1;
                        let listed: Vec<Value> = roots.0.iter().map(|u| json!({ "uri": u })).collect();
                        let reply = json!({ "jsonrpc": "2.0", "id": message["id"], "result": { "roots": listed } });
                        if let Some(stdin) = stdin.lock().unwrap().as_mut() {
                            let _ = writeln!(stdin, "{reply}");
                            let _ = stdin.flush();
                        }
                        continue;
                    }
                    if tx.send(message).is_err() {
                        break;
                    }
                }
            });
        }
        McpClient { child, stdin, messages, pending: VecDeque::new(), next_id: 0, garbage, roots }
    }

    /// Starts the server and performs the handshake; `capabilities` are the
    /// client's (e.g. `{"roots": {"listChanged": true}}`).
    pub fn initialized(cwd: &Path, home: &Path, args: &[&str], capabilities: Value) -> McpClient {
        McpClient::start(cwd, home, args).handshake(capabilities)
    }

    /// The `initialize` request and `initialized` notification.
    pub fn handshake(self, capabilities: Value) -> McpClient {
        let mut client = self;
        let reply = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": { "name": "aide-tests", "version": "1" }
            }),
        );
        assert!(reply.get("result").is_some(), "initialize failed: {reply}");
        client.notify("notifications/initialized", json!({}));
        client
    }

    pub fn send(&mut self, message: &Value) {
        let mut stdin = self.stdin.lock().unwrap();
        let stdin = stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns its id without waiting.
    pub fn start_request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        id
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The next message that satisfies `want`, keeping the others for later.
    pub fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&want) {
            return self.pending.remove(i).unwrap();
        }
        let deadline = Instant::now() + REPLY_TIMEOUT;
        loop {
            match self.messages.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(m) if want(&m) => return m,
                Ok(m) => self.pending.push_back(m),
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {REPLY_TIMEOUT:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout before {what}"),
            }
        }
    }

    /// The reply to request `id`.
    pub fn reply(&mut self, id: u64) -> Value {
        self.wait_for(&format!("reply to request {id}"), |m| m["id"] == id && m.get("method").is_none())
    }

    /// Sends a request and waits for its reply.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.start_request(method, params);
        self.reply(id)
    }

    /// `tools/call` and its result (panics on a JSON-RPC error).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({ "name": tool, "arguments": arguments }));
        reply.get("result").cloned().unwrap_or_else(|| panic!("{tool} failed at the protocol level: {reply}"))
    }

    /// Each listed tool's output schema, compiled (None: the tool serves
    /// none, as under `--structured off`); a schema that does not compile
    /// fails the test, naming its tool.
    pub fn output_validators(&mut self) -> std::collections::BTreeMap<String, Option<jsonschema::Validator>> {
        let listed = self.request("tools/list", json!({}));
        let tools = listed["result"]["tools"].as_array().cloned().unwrap_or_else(|| panic!("no tools: {listed}"));
        tools
            .iter()
            .map(|tool| {
                let name = tool["name"].as_str().unwrap_or_default().to_string();
                let validator = tool.get("outputSchema").map(|schema| {
                    jsonschema::validator_for(schema)
                        .unwrap_or_else(|e| panic!("{name}'s outputSchema does not compile: {e}"))
                });
                (name, validator)
            })
            .collect()
    }

    /// Every notification received so far that satisfies `want`.
    pub fn notifications(&mut self, want: impl Fn(&Value) -> bool) -> Vec<Value> {
        while let Ok(m) = self.messages.try_recv() {
            self.pending.push_back(m);
        }
        self.pending.iter().filter(|m| m.get("id").is_none() && want(m)).cloned().collect()
    }

    /// Whether the server's stdout reaches end of file within `limit` (no
    /// process it started holds it open); messages on the way are kept.
    pub fn stdout_closed(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            match self.messages.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(m) => self.pending.push_back(m),
                Err(RecvTimeoutError::Disconnected) => return true,
                Err(RecvTimeoutError::Timeout) => return false,
            }
        }
    }

    /// Closes the server's stdin (the client goes away).
    pub fn close_stdin(&mut self) {
        self.stdin.lock().unwrap().take();
    }

    /// Waits up to `limit` for the server to exit; its exit code and stderr.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<(i32, String)> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                let mut stderr = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
                }
                return Some((status.code().unwrap_or(-1), stderr));
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        self.close_stdin();
        if self.wait_exit(Duration::from_secs(15)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A `file://` URI for a path (percent-encoding spaces and `%`).
pub fn file_uri(path: &Path) -> String {
    let text = path.display().to_string().replace('%', "%25").replace(' ', "%20");
    format!("file://{text}")
}

/// The canonical form of `path`, as the server reports roots.
pub fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().expect("canonical path")
}

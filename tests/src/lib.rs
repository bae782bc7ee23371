//! Helpers for the end-to-end tests: temporary trees, the real binaries
//! (built once per test run), and typed views of their JSON output.
// The tests start the real binaries and their oracles themselves, not through the gate.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

pub mod mcp;
pub mod otlp;
mod programs;
pub mod ripgrep;
pub mod trees;
pub mod wire;
pub use programs::{
    bin_dir, default_signals, eventually, have, kill_process_group, own_session, processes_with_cmdline,
    say_failures_inline,
};

/// A temporary tree to run tools in, with its own `AIDE_HOME`.
#[derive(Debug)]
pub struct TestDir {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

/// A test's sessions and language servers leave no keeper behind (each
/// would wait minutes for a question): those still holding their lock are
/// asked to end, as `session rm` asks them.
impl Drop for TestDir {
    fn drop(&mut self) {
        let folders =
            ["shell/sessions", "lsp", "search"].iter().filter_map(|f| std::fs::read_dir(self.home.join(f)).ok());
        for dir in folders.flatten().flatten().map(|e| e.path()) {
            let held = std::fs::File::open(dir.join("keeper.lock"))
                .is_ok_and(|f| matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)));
            let pid = std::fs::read_to_string(dir.join("keeper.pid")).ok().and_then(|p| p.trim().parse::<u32>().ok());
            if let (true, Some(pid)) = (held, pid) {
                let _ = Command::new("kill").args(["-s", "TERM", &pid.to_string()]).stderr(Stdio::null()).status();
            }
        }
    }
}

impl Default for TestDir {
    fn default() -> Self {
        Self::new()
    }
}

impl TestDir {
    pub fn new() -> TestDir {
        say_failures_inline();
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("root");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).expect("create root");
        TestDir { _tmp: tmp, root, home }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Makes the root a git repository, so `.gitignore` applies (as in ripgrep,
    /// `.gitignore` is honoured only inside a repository; `.ignore` always).
    pub fn git_init(&self) -> &Self {
        let status = Command::new("git")
            .args(["init", "-q"])
            .current_dir(&self.root)
            .status()
            .expect("git is required for the tests");
        assert!(status.success(), "git init failed");
        self
    }

    /// Runs git in the root with a fixed author; fails the test if git fails.
    pub fn git(&self, args: &[&str]) -> &Self {
        let ok = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .expect("git is required for the tests")
            .success();
        assert!(ok, "git {args:?}");
        self
    }

    /// Writes `contents` to `rel` under the root, creating folders.
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let p = self.root.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&p, contents).expect("write file");
        self
    }

    /// A command for `tool`, run in the root with this dir's `AIDE_HOME`.
    pub fn cmd(&self, tool: &str) -> TestCommand {
        let mut cmd = own_session(Command::new(bin_dir().join(tool)));
        // Hermetic: no aide.toml of the user running the tests applies.
        cmd.current_dir(&self.root)
            .env("AIDE_HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("config"))
            .env_remove("AIDE_LOG");
        // Nor the runner's OpenTelemetry export (any OTEL_ variable): a test that wants it says so.
        let otel = std::env::vars_os().map(|(name, _)| name).filter(|n| n.to_string_lossy().starts_with("OTEL_"));
        for name in otel.chain(["TRACEPARENT".into(), "TRACESTATE".into()]) {
            cmd.env_remove(name);
        }
        TestCommand { cmd, stdin: None }
    }
}

/// A command under test.
#[derive(Debug)]
pub struct TestCommand {
    pub cmd: Command,
    stdin: Option<Vec<u8>>,
}

impl TestCommand {
    pub fn arg(mut self, a: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.arg(a);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn env(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(k, v);
        self
    }

    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(input.into());
        self
    }

    pub fn output(mut self) -> Output {
        use std::io::Write;
        self.cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        self.cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("spawn tool");
        if let Some(input) = self.stdin.take() {
            let mut stdin = child.stdin.take().expect("stdin");
            // A tool may refuse its arguments and exit before reading its input.
            if let Err(e) = stdin.write_all(&input) {
                assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
            }
        }
        child.wait_with_output().expect("wait for tool")
    }

    /// Runs, asserts the exit code, and returns stdout as text.
    pub fn expect_exit(self, code: i32) -> (String, String) {
        let desc = format!("{:?}", self.cmd);
        let out = self.output();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{desc}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        (stdout, stderr)
    }

    /// Starts it with `input` written to its stdin and its output dropped:
    /// for a test that kills it midway.
    pub fn spawn_with_input(mut self, input: &[u8]) -> std::process::Child {
        use std::io::Write;
        self.cmd.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
        let mut child = self.cmd.spawn().expect("spawn");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input);
        }
        child
    }

    /// Runs with `--json`, asserts the exit code, and parses the document.
    pub fn json<T: serde::de::DeserializeOwned>(self, code: i32) -> T {
        let (stdout, _) = self.arg("--json").expect_exit(code);
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("output is not the expected JSON ({e}):\n{stdout}"))
    }
}

/// A small, seeded xorshift: the same "random" kill moments on every run.
pub struct Xorshift(pub u64);

impl Xorshift {
    /// The next number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Whether the oracle `program` is on PATH; when it is not, the check is
/// reported as skipped (see [`skip`]) and the caller returns early.
pub fn oracle(program: &str, what: &str) -> bool {
    if have(program) {
        return true;
    }
    skip(program, what);
    false
}

/// Whether a sandbox can be made here, probed once per test process by a
/// read-only, network-off command; where it cannot, the test says so
/// visibly with the tool's own reason and returns early. Unlike an outside
/// oracle, no install step brings it (it is the kernel's, and whatever
/// runs the tests may refuse it: Landlock, user namespaces, mounts), so
/// it is a skip even where `AIDE_REQUIRE_ORACLES` is set; `aide doctor`
/// says the same to a user.
pub fn sandbox_here(what: &str) -> bool {
    use std::io::Write;
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    let probed = PROBED.get_or_init(|| {
        let t = TestDir::new();
        let out =
            t.cmd("llm-shell").args(["--json", "exec", "--sandbox", "read-only", "--network", "off", "--", "true"]);
        let out = out.output();
        if out.status.success() {
            return Ok(());
        }
        let said: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        Err(said["error"]["message"]
            .as_str()
            .map_or_else(|| String::from_utf8_lossy(&out.stderr).into_owned(), str::to_string))
    });
    let Err(why) = probed else { return true };
    // Straight to the stream, past the test harness's capture, as skips are.
    let line = format!("SKIPPED (no sandbox can be made here: {why}): {what}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
    false
}

/// Reports, visibly, that a test (or part of one) did not run because an
/// outside oracle is missing; skips are numbered, so a run shows how many.
/// Where `AIDE_REQUIRE_ORACLES` is set (CI sets it), a missing oracle is a
/// failure instead.
pub fn skip(program: &str, what: &str) {
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SKIPPED: AtomicUsize = AtomicUsize::new(0);
    if std::env::var_os("AIDE_REQUIRE_ORACLES").is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("{program} is required here (AIDE_REQUIRE_ORACLES is set) for: {what}");
    }
    let n = SKIPPED.fetch_add(1, Ordering::Relaxed) + 1;
    // Straight to the stream, past the test harness's capture, so `cargo test` shows it.
    let line = format!("SKIPPED oracle check #{n}: {what} (no `{program}` on PATH; install it to run this check)\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

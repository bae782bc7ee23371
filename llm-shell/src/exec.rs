//! Running one command in a session.
//!
//! bash starts with an empty environment, sources the session's `state.sh`,
//! and `eval`s the command in the shell itself, so `cd`, `export`, functions
//! and options it sets stay. An EXIT trap writes the new state (variables but
//! bash's special and read-only ones, functions, aliases, the working
//! directory, `set +o` and `shopt -p`) whatever way the shell ends — normally,
//! by `exit`, under `set -e`, or on the TERM of a timeout. The new state
//! replaces the old only when the trap completed.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::fsutil::replace;
use aide_core::redact::Redactor;
use aide_core::redact::stream::StreamRedactor;
use aide_core::tool::Cancel;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ShellError;
use crate::session::Session;

/// The wrapper bash runs; `$1` is the session folder.
const WRAPPER: &str = r#"__aide_t0=$EPOCHREALTIME
__aide_dir=$1
set --
# stdin is a pipe from llm-shell, which writes "done" when it has seen the
# command end. Should llm-shell die first (even by SIGKILL), the pipe closes
# without it, and this watcher takes the command's process group down.
exec 3<&0 </dev/null
{ IFS= read -r -u 3 __aide_w; [[ $__aide_w == done ]] || kill -KILL -- -$$; } >/dev/null 2>&1 &
disown $! 2>/dev/null
exec 3<&-
__aide_save() {
  local __aide_rc=$? __aide_t2=$EPOCHREALTIME __aide_n __aide_f __aide_names
  # The saved state holds exported values: only its owner may read it.
  umask 077
  # Options first, before this function changes any; builtins only, no subshells.
  { set +o; shopt -p; } > "$__aide_dir/options.next" 2>/dev/null
  set +eux
  {
    # stderr of the whole group goes to /dev/null once (below), not per command.
    compgen -v > "$__aide_dir/names"
    mapfile -t __aide_names < "$__aide_dir/names"
    for __aide_n in "${__aide_names[@]}"; do
      case "$__aide_n" in
        __aide_*|BASH|BASH_*|BASHOPTS|BASHPID|COLUMNS|COMP_*|DIRSTACK|EPOCHREALTIME|EPOCHSECONDS|EUID|FUNCNAME|GROUPS|HISTCMD|HOSTTYPE|IFS|LINENO|LINES|MACHTYPE|OPTERR|OPTIND|OSTYPE|PIPESTATUS|PPID|PS4|PWD|OLDPWD|RANDOM|SECONDS|SHELLOPTS|SHLVL|SRANDOM|UID|_) continue ;;
      esac
      __aide_f=${!__aide_n@a}
      case "$__aide_f" in *r*) continue ;; esac
      declare -p "$__aide_n"
    done
    compgen -A function > "$__aide_dir/names"
    mapfile -t __aide_names < "$__aide_dir/names"
    for __aide_n in "${__aide_names[@]}"; do
      case "$__aide_n" in __aide_*|trap) continue ;; esac
      declare -f "$__aide_n"
    done
    alias -p
    printf 'cd -- %q 2>/dev/null\n' "$PWD"
  } > "$__aide_dir/state.next" 2>/dev/null
  printf '%s\n%s\n%s %s %s\n' "$__aide_rc" "$PWD" "$__aide_t0" "$__aide_t1" "$__aide_t2" > "$__aide_dir/result"
  # A command's own `trap … EXIT` (kept aside by the trap function below)
  # runs after the state is saved, seeing the command's exit status in $?.
  if [[ -n ${__aide_user_exit-} && ${__aide_user_exit} != - ]]; then
    __aide_ret "$__aide_rc"
    eval "$__aide_user_exit"
  fi
}
__aide_ret() { return "$1"; }
trap __aide_save EXIT
trap 'exit 143' TERM
trap 'exit 129' HUP
source "$__aide_dir/state.sh" >/dev/null 2>&1
IFS= read -r -d '' __aide_cmd < "$__aide_dir/command"
read -r __aide_last < "$__aide_dir/last_exit" 2>/dev/null || __aide_last=0
shopt -s expand_aliases
# The session's set/shopt options come last, so none of them (set -e,
# set -u) applies to the lines above.
if [[ -f "$__aide_dir/options.sh" ]]; then source "$__aide_dir/options.sh" >/dev/null 2>&1; fi
__aide_t1=$EPOCHREALTIME
trap() {
  if [[ $# -ge 2 && ( $1 != -* || $1 == - ) ]]; then
    local __aide_action=$1 __aide_sig
    shift
    for __aide_sig in "$@"; do
      case "$__aide_sig" in
        EXIT|exit|SIGEXIT|0) __aide_user_exit=$__aide_action ;;
        *) builtin trap -- "$__aide_action" "$__aide_sig" ;;
      esac
    done
    return 0
  fi
  builtin trap "$@"
}
# $? starts as the previous command's exit code (unless set -e would stop on it).
if [[ $- == *e* ]]; then true; else __aide_ret "${__aide_last:-0}"; fi
eval "$__aide_cmd"
"#;

/// How long to keep reading output after bash exits (a background child may
/// hold the pipes open for as long as it runs).
const DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// After a timeout's TERM, how long before KILL.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// Per-phase timings of one exec, in microseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
pub struct Phases {
    /// Parsing the command (brush-parser).
    pub parse_us: f64,
    /// Restoring the session state in bash.
    pub restore_us: f64,
    /// Running the command.
    pub execute_us: f64,
    /// Saving state, collecting and redacting output.
    pub capture_us: f64,
    pub total_us: f64,
}

/// The result of `llm-shell exec`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExecOutput {
    pub session_id: Option<String>,
    pub command: String,
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// Bytes the command wrote, whatever was kept.
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// Output over --max-output: head and tail kept, the middle cut.
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub execution_time_ms: f64,
    pub timed_out: bool,
    /// The working directory after the command.
    pub working_dir: String,
    /// Secrets replaced by [REDACTED].
    pub redactions: usize,
    /// A background process the command started still held its output
    /// open when it returned: `stdout`/`stderr` are what arrived until then.
    pub background_output: bool,
    pub performance: Phases,
}

/// Output kept as head and tail.
#[derive(Clone)]
struct Capture {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    total: u64,
    half: usize,
}

impl Capture {
    fn new(max: usize) -> Capture {
        Capture { head: Vec::new(), tail: Default::default(), total: 0, half: (max / 2).max(1) }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.half.saturating_sub(self.head.len());
        let (to_head, rest) = chunk.split_at(room.min(chunk.len()));
        self.head.extend_from_slice(to_head);
        self.tail.extend(rest);
        while self.tail.len() > self.half {
            self.tail.pop_front();
        }
    }

    fn finish(self) -> (String, u64, bool) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let truncated = kept < self.total;
        let mut bytes = self.head;
        if truncated {
            bytes.extend_from_slice(format!("\n…[{} bytes omitted]…\n", self.total - kept).as_bytes());
        }
        bytes.extend(self.tail);
        (String::from_utf8_lossy(&bytes).into_owned(), self.total, truncated)
    }
}

/// One output stream as it arrives: redacted as a stream (when asked), so
/// the head and tail are cut from redacted text and no cut shows part of
/// a secret; what it wrote counted before redaction.
struct Received {
    capture: Capture,
    redactor: Option<StreamRedactor>,
    written: u64,
}

impl Received {
    fn push(&mut self, chunk: &[u8]) {
        self.written += chunk.len() as u64;
        match &mut self.redactor {
            Some(r) => {
                let mut safe = Vec::new();
                r.push(chunk, &mut safe);
                self.capture.push(&safe);
            }
            None => self.capture.push(chunk),
        }
    }

    /// Hands on what the redactor holds back: the stream ended, or is given up on.
    fn flush(&mut self) {
        if let Some(r) = &mut self.redactor {
            let mut rest = Vec::new();
            r.finish(&mut rest);
            self.capture.push(&rest);
        }
    }
}

/// What one stream gave: its text, the bytes the command wrote, whether the
/// text was cut, and the secrets replaced.
struct Collected {
    text: String,
    written: u64,
    truncated: bool,
    redactions: usize,
}

/// A stream being read: what has arrived so far, and a message at its end.
struct Reading {
    received: std::sync::Arc<std::sync::Mutex<Received>>,
    ended: mpsc::Receiver<()>,
}

fn reader(mut pipe: impl Read + Send + 'static, max: usize, redactor: Option<Redactor>) -> Reading {
    let (tx, ended) = mpsc::channel();
    let received = std::sync::Arc::new(std::sync::Mutex::new(Received {
        capture: Capture::new(max),
        redactor: redactor.map(StreamRedactor::new),
        written: 0,
    }));
    let shared = received.clone();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            aide_core::sync::lock(&shared).push(&buf[..n]);
        }
        aide_core::sync::lock(&shared).flush();
        let _ = tx.send(());
    });
    Reading { received, ended }
}

/// What a stream gave: all of it once it ended, or — when a background
/// child still holds the pipe open after `deadline` — what arrived so far
/// (the second value is then false).
fn collect(reading: Option<Reading>, deadline: Instant) -> (Collected, bool) {
    let Some(r) = reading else {
        return (Collected { text: String::new(), written: 0, truncated: false, redactions: 0 }, true);
    };
    let ended = r.ended.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_ok();
    let mut received = aide_core::sync::lock(&r.received);
    if !ended {
        received.flush();
    }
    let redactions = received.redactor.as_ref().map_or(0, StreamRedactor::count);
    let (text, _, truncated) = received.capture.clone().finish();
    (Collected { text, written: received.written, truncated, redactions }, ended)
}

fn epoch_us(s: &str) -> Option<f64> {
    s.replace(',', ".").parse::<f64>().ok().map(|x| x * 1e6)
}

/// Runs `command` in `session`; the caller holds the session lock.
pub fn run(
    session: &mut Session,
    command: &str,
    timeout: Option<Duration>,
    max_output: usize,
    redactor: Option<Redactor>,
    cancel: &Cancel,
) -> Result<ExecOutput, AideError> {
    let clock = Instant::now();
    let parse_start = Instant::now();
    let _ = crate::syntax::parse(command);
    let parse_us = parse_start.elapsed().as_secs_f64() * 1e6;

    let dir = session.dir.clone();
    let io = |what: &str, e: std::io::Error| AideError::io(what, &e);
    session.check_state()?;
    // Scratch files bash writes to: whatever stands there (even a FIFO, which would stall it) goes first.
    for stale in ["state.next", "options.next", "result", "names"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    // Scratch files of one exec: atomic for readers, no need to reach the disk.
    replace(&dir.join("command"), command.as_bytes()).map_err(|e| io("command file", e))?;
    let last = format!("{}\n", session.meta.last_exit_code.unwrap_or(0));
    replace(&dir.join("last_exit"), last.as_bytes()).map_err(|e| io("last exit code", e))?;
    if aide_core::fsutil::read_private(&dir.join("exec.sh"), 1 << 20).ok().as_deref() != Some(WRAPPER.as_bytes()) {
        replace(&dir.join("exec.sh"), WRAPPER.as_bytes()).map_err(|e| io("wrapper", e))?;
    }

    // The wrapper's watcher reads the other end: see WRAPPER.
    let (watch_reader, mut watch_writer) = std::io::pipe().map_err(|e| io("watch pipe", e))?;
    let mut cmd = Command::new("bash");
    cmd.arg("--noprofile")
        .arg("--norc")
        .arg(dir.join("exec.sh"))
        .arg(&dir)
        .env_clear()
        // bash needs a PATH before state.sh sets the session's.
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .current_dir(&session.meta.working_dir)
        .stdin(Stdio::from(watch_reader))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !Path::new(&session.meta.working_dir).is_dir() {
        cmd.current_dir("/");
    }
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(|e| ShellError::Spawn {
        program: "bash",
        needed_by: "llm-shell",
        message: e.to_string(),
    })?;
    let out_rx = child.stdout.take().map(|p| reader(p, max_output, redactor.clone()));
    let err_rx = child.stderr.take().map(|p| reader(p, max_output, redactor.clone()));

    // Children that ignore TERM go too; the session itself lives on. A TERM,
    // INT or HUP to llm-shell itself takes the command's group down first.
    let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let handlers: Vec<_> = [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT, signal_hook::consts::SIGHUP]
        .into_iter()
        .filter_map(|sig| {
            let number = usize::try_from(sig).unwrap_or(15);
            signal_hook::flag::register_usize(sig, interrupted.clone(), number).ok()
        })
        .collect();
    let stop = || interrupted.load(std::sync::atomic::Ordering::Relaxed) != 0 || cancel.is_cancelled();
    let waited = aide_core::process::wait_with_timeout_or_cancel(child, timeout, KILL_GRACE, Some(&stop));
    for id in handlers {
        signal_hook::low_level::unregister(id);
    }
    if !waited.cancelled {
        // The command ended under our eyes: the watcher lets its background children be.
        use std::io::Write as _;
        let _ = watch_writer.write_all(b"done\n");
    }
    drop(watch_writer);
    if waited.cancelled {
        match i32::try_from(interrupted.load(std::sync::atomic::Ordering::Relaxed)) {
            // Die of the signal, as the caller meant, now that the command is gone.
            Ok(sig) if sig != 0 => {
                let _ = signal_hook::low_level::emulate_default_handler(sig);
            }
            // The caller cancelled the run (MCP): the command is gone, the
            // session keeps the state it had before it.
            _ => return Err(AideError::cancelled()),
        }
    }
    let (status, timed_out) = (waited.status.ok(), waited.timed_out);
    let capture_start = Instant::now();
    // A background child (`sleep 30 &`) may hold the pipes open: what the
    // command wrote before it returned is kept all the same, and said so.
    let drain_until = Instant::now() + DRAIN_LIMIT;
    let (stdout, out_ended) = collect(out_rx, drain_until);
    let (stderr, err_ended) = collect(err_rx, drain_until);
    let background_output = !(out_ended && err_ended);

    // The command text is scratch, and may hold secrets: gone once run.
    let _ = std::fs::remove_file(dir.join("command"));
    // The trap's result: exit code, working directory, timestamps.
    let result = aide_core::fsutil::read_private(&dir.join("result"), 1 << 16)
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let mut lines = result.as_deref().unwrap_or("").lines();
    let trap_code = lines.next().and_then(|l| l.trim().parse::<i32>().ok());
    let trap_cwd = lines.next().map(str::to_string);
    let stamps: Vec<f64> = lines.next().unwrap_or("").split_whitespace().filter_map(epoch_us).collect();
    if result.is_some() && dir.join("state.next").is_file() {
        std::fs::rename(dir.join("state.next"), session.state_path()).map_err(|e| io("session state", e))?;
        if dir.join("options.next").is_file() {
            std::fs::rename(dir.join("options.next"), dir.join("options.sh")).map_err(|e| io("session options", e))?;
        }
    }
    let exit_code = {
        use std::os::unix::process::ExitStatusExt;
        match (trap_code, status) {
            (Some(c), _) => c,
            (None, Some(s)) => s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)),
            (None, None) => -1,
        }
    };
    let mut redactions = stdout.redactions + stderr.redactions;
    let (mut stdout_text, mut stderr_text) = (stdout.text, stderr.text);
    if redactor.is_some() {
        // Secret values the command itself set (`export API_TOKEN=…; echo $API_TOKEN`).
        let declared_now = session.declared();
        let set_now = Redactor::with_values(declared_now.secret_values());
        if set_now.has_values() {
            let (o, n) = set_now.redact(&stdout_text);
            let (e, m) = set_now.redact(&stderr_text);
            (stdout_text, stderr_text) = (o, e);
            redactions += n + m;
        }
    }
    if let Some(cwd) = trap_cwd {
        session.meta.working_dir = cwd;
    }
    session.meta.last_exit_code = Some(exit_code);
    session.meta.exec_count += 1;
    let (restore_us, execute_us) = match stamps.as_slice() {
        [t0, t1, t2] => ((t1 - t0).max(0.0), (t2 - t1).max(0.0)),
        _ => (0.0, 0.0),
    };
    let capture_us = capture_start.elapsed().as_secs_f64() * 1e6;
    let total_us = clock.elapsed().as_secs_f64() * 1e6;
    let round = |x: f64| (x * 10.0).round() / 10.0;
    Ok(ExecOutput {
        session_id: None,
        command: command.to_string(),
        exit_code,
        stdout: stdout_text,
        stderr: stderr_text,
        stdout_bytes: stdout.written,
        stderr_bytes: stderr.written,
        stdout_truncated: stdout.truncated,
        stderr_truncated: stderr.truncated,
        execution_time_ms: (total_us / 1000.0 * 1000.0).round() / 1000.0,
        timed_out,
        working_dir: session.meta.working_dir.clone(),
        redactions,
        background_output,
        performance: Phases {
            parse_us: round(parse_us),
            restore_us: round(restore_us),
            execute_us: round(execute_us),
            capture_us: round(capture_us),
            total_us: round(total_us),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_keeps_head_and_tail() {
        let mut c = Capture::new(10);
        c.push(b"0123456789abcdefghij");
        let (text, total, cut) = c.finish();
        assert_eq!((total, cut), (20, true));
        assert_eq!(text, "01234\n…[10 bytes omitted]…\nfghij");
        let mut c = Capture::new(100);
        c.push(b"short");
        assert_eq!(c.finish(), ("short".to_string(), 5, false));
    }
}

//! Terminals: interactive programs on a pseudo-terminal, held by a
//! session's keeper between calls.
//!
//! A terminal's program starts in the session's working directory and
//! environment (its saved state sourced first), as the leader of a new
//! session whose controlling terminal is the PTY's slave side: `isatty`
//! holds, prompts wait for input, Ctrl-C interrupts, full-screen programs
//! draw. What it prints feeds a terminal emulator (vt100: cursor moves,
//! clears, the alternate screen; scrollback bounded) and, with escape
//! sequences removed, the text since the last read (bounded too: the
//! newest part is kept and the rest counted).
//!
//! A terminal is shared by every client of its keeper: a read waits
//! without holding it (another client's send, read or list goes on
//! meanwhile), and what a send types is queued for the program to read
//! ([`input`]), so a program that does not read blocks nobody else.
//! Sizes are bounded ([`MAX_ROWS`] × [`MAX_COLS`]): the emulator holds
//! every cell of the screen and its scrollback.

mod input;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::sync::lock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::TerminalError;

/// Lines of scrollback the emulator keeps.
const SCROLLBACK: usize = 1000;
/// Text kept between reads; the newest is kept, the rest counted.
const MAX_PENDING: usize = 256 * 1024;
/// How long a read waits at most unless told.
const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How quiet a read waits for by default (no pattern given).
const DEFAULT_QUIET: Duration = Duration::from_millis(300);
/// The most rows and columns a terminal has (a screen and its scrollback
/// of 500 columns hold 16 MB; 65535 × 65535 asked for 256 GB).
pub(crate) const MAX_ROWS: u16 = 500;
pub(crate) const MAX_COLS: u16 = 500;

/// The named keys and the bytes a terminal sends for them (normal, and in
/// application cursor mode).
const KEYS: &[(&str, &str, &str)] = &[
    ("Enter", "\r", "\r"),
    ("Tab", "\t", "\t"),
    ("Esc", "\x1b", "\x1b"),
    ("Backspace", "\x7f", "\x7f"),
    ("Delete", "\x1b[3~", "\x1b[3~"),
    ("Space", " ", " "),
    ("Up", "\x1b[A", "\x1bOA"),
    ("Down", "\x1b[B", "\x1bOB"),
    ("Right", "\x1b[C", "\x1bOC"),
    ("Left", "\x1b[D", "\x1bOD"),
    ("Home", "\x1b[H", "\x1bOH"),
    ("End", "\x1b[F", "\x1bOF"),
    ("PageUp", "\x1b[5~", "\x1b[5~"),
    ("PageDown", "\x1b[6~", "\x1b[6~"),
];

/// The bytes of the key `name` (case-insensitive; `Ctrl-A` … `Ctrl-Z` too),
/// None for a name no key has.
pub(crate) fn key_bytes(name: &str, application_cursor: bool) -> Option<Vec<u8>> {
    if let Some((_, normal, app)) = KEYS.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(name)) {
        return Some(if application_cursor { app } else { normal }.as_bytes().to_vec());
    }
    let lower = name.to_ascii_lowercase();
    let letter =
        lower.strip_prefix("ctrl-").or_else(|| lower.strip_prefix("ctrl+")).or_else(|| lower.strip_prefix("c-"))?;
    match letter.as_bytes() {
        [c @ b'a'..=b'z'] => Some(vec![c - b'a' + 1]),
        _ => None,
    }
}

/// Every key name, for errors and help.
pub(crate) fn key_names() -> String {
    let mut names: Vec<&str> = KEYS.iter().map(|(n, _, _)| *n).collect();
    names.push("Ctrl-A…Ctrl-Z");
    names.join(", ")
}

/// A terminal's size.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct Size {
    pub rows: std::num::NonZeroU16,
    pub cols: std::num::NonZeroU16,
}

impl Size {
    /// From the caller's numbers: 24×80 unless given; 0, or more than
    /// [`MAX_ROWS`] × [`MAX_COLS`], is refused.
    pub(crate) fn of(rows: Option<u16>, cols: Option<u16>) -> Result<Size, AideError> {
        let dimension = |n: u16, max: u16, field: &'static str| {
            std::num::NonZeroU16::new(n).filter(|n| n.get() <= max).ok_or_else(|| {
                AideError::from(TerminalError::Size { field, max, given: n, bounds: (MAX_ROWS, MAX_COLS) })
            })
        };
        Ok(Size {
            rows: dimension(rows.unwrap_or(24), MAX_ROWS, "rows")?,
            cols: dimension(cols.unwrap_or(80), MAX_COLS, "cols")?,
        })
    }

    /// Itself when in bounds (a size that came over a keeper's socket).
    pub(crate) fn checked(self) -> Result<Size, AideError> {
        Size::of(Some(self.rows.get()), Some(self.cols.get()))
    }
}

/// What a read answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TermView {
    pub terminal_id: String,
    pub session_id: String,
    pub command: String,
    /// The visible lines, trailing blanks removed.
    pub screen: Vec<String>,
    pub cursor: Cursor,
    pub rows: u16,
    pub cols: u16,
    /// Text printed since the last read, escape sequences removed.
    pub output: String,
    /// Bytes of that text dropped (the oldest) because it outgrew what is kept.
    pub output_dropped: u64,
    /// A full-screen program is drawing on the alternate screen.
    pub alternate_screen: bool,
    /// Whether `--wait-for` matched (null when none was given).
    pub matched: Option<bool>,
    pub exited: bool,
    pub exit_code: Option<i32>,
    /// Secrets replaced by [REDACTED] in this answer.
    pub redactions: usize,
}

/// A cursor position, 0-based.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct Cursor {
    pub row: u16,
    pub col: u16,
}

/// One terminal as `term list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TermListed {
    pub terminal_id: String,
    pub command: String,
    pub pid: u32,
    pub exited: bool,
    pub exit_code: Option<i32>,
}

/// What a read waits for.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ReadWait {
    pub wait_for: Option<String>,
    pub quiet_ms: Option<u64>,
    pub timeout_ms: Option<u64>,
    /// The quiet spell counts from the read's start too (after a send: the
    /// program was quiet before the keys, which is not their answer).
    #[serde(default)]
    pub quiet_after_start: bool,
}

/// How long a send waits for its answer at most unless told.
const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// What `term send` waits for before it answers the screen.
pub(crate) fn send_wait(then: &crate::SendWait) -> Result<ReadWait, AideError> {
    aide_core::request::check_timeout("--timeout", then.timeout)?;
    let timeout = then.timeout.map_or(DEFAULT_SEND_TIMEOUT, Duration::from_secs_f64);
    Ok(ReadWait {
        wait_for: then.wait_for.clone(),
        quiet_ms: then.quiet_ms,
        timeout_ms: Some(timeout.as_millis().try_into().unwrap_or(u64::MAX)),
        quiet_after_start: true,
    })
}

/// What the program printed, as the emulator and the reader see it.
struct Screen {
    parser: vt100::Parser,
    text: vte::Parser,
    pending: Plain,
    last_output: Instant,
    /// The PTY gave its end (the program and all holding it are gone).
    closed: bool,
}

/// The printable text of the output, escape sequences dropped.
#[derive(Default)]
struct Plain {
    text: String,
    dropped: u64,
}

impl Plain {
    fn push(&mut self, c: char) {
        self.text.push(c);
        if self.text.len() > MAX_PENDING {
            let cut = self.text.len() - MAX_PENDING / 2;
            let cut = (cut..self.text.len()).find(|&i| self.text.is_char_boundary(i)).unwrap_or(self.text.len());
            self.dropped += cut as u64;
            self.text.drain(..cut);
        }
    }
}

impl vte::Perform for Plain {
    fn print(&mut self, c: char) {
        self.push(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => self.push('\n'),
            b'\t' => self.push('\t'),
            _ => {}
        }
    }
}

/// One program on a PTY, shared by the keeper's clients (`&self` throughout).
pub(crate) struct Terminal {
    pub id: String,
    command: String,
    pid: u32,
    /// The program, and its exit code once it was reaped.
    child: Mutex<(Child, Option<i32>)>,
    master: File,
    screen: Arc<Mutex<Screen>>,
    input: input::Input,
}

impl Terminal {
    /// Starts `command` (a shell line) on a new PTY of `rows`×`cols`, in the
    /// session folder `dir`'s saved state and its `working_dir` (`place`),
    /// given `trace`: the trace context of the run that starts it.
    pub(crate) fn start(
        id: String,
        command: &str,
        (dir, working_dir): (&Path, &str),
        size: Size,
        sandbox: &aide_gate::sandbox::Sandbox,
        trace: Option<&aide_gate::trace::Headers>,
    ) -> Result<Terminal, AideError> {
        let size = size.checked()?;
        let (rows, cols) = (size.rows.get(), size.cols.get());
        let io = |what: &'static str| move |e: rustix::io::Errno| AideError::io(what, &e.into());
        use rustix::pty::OpenptFlags;
        let master = rustix::pty::openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)
            .map_err(io("openpt"))?;
        rustix::pty::grantpt(&master).map_err(io("grantpt"))?;
        rustix::pty::unlockpt(&master).map_err(io("unlockpt"))?;
        let name = rustix::pty::ptsname(&master, Vec::new()).map_err(io("ptsname"))?;
        let winsize = rustix::termios::Winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
        rustix::termios::tcsetwinsize(&master, winsize).map_err(io("terminal size"))?;
        let slave_path =
            std::path::PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.as_bytes()));
        let slave = std::os::unix::fs::OpenOptionsExt::custom_flags(
            std::fs::OpenOptions::new().read(true).write(true),
            libc::O_NOCTTY,
        )
        .open(&slave_path)
        .map_err(|e| AideError::io("the terminal's slave side", &e))?;
        // The session's state (variables, functions, aliases, options), then
        // the command line in that same shell, so the session's functions
        // and aliases work in it. A program it runs shares the terminal's
        // process group with this bash, which waits through a Ctrl-C the
        // program handles (a REPL) and ends with one that ends the program.
        let script = r#"source "$1" >/dev/null 2>&1; shopt -s expand_aliases; eval "$2""#;
        let mut cmd = sandbox.command("bash")?;
        cmd.args(["--noprofile", "--norc", "-c", script, "bash"])
            .arg(dir.join("state.sh"))
            .arg(command)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("TERM", "xterm-256color")
            .envs(trace.map(|(parent, _)| ("TRACEPARENT", parent.as_str())))
            .envs(trace.and_then(|(_, state)| Some(("TRACESTATE", state.as_deref()?))))
            .current_dir(if Path::new(working_dir).is_dir() { working_dir } else { "/" })
            .stdin(Stdio::from(slave.try_clone().map_err(|e| AideError::io("pty", &e))?))
            .stdout(Stdio::from(slave.try_clone().map_err(|e| AideError::io("pty", &e))?))
            .stderr(Stdio::from(slave));
        aide_gate::process::with_controlling_terminal(&mut cmd);
        let child = cmd.spawn().map_err(|e| AideError::io("starting the terminal's program", &e))?;
        let master = File::from(master);
        let screen = Arc::new(Mutex::new(Screen {
            parser: vt100::Parser::new(size.rows, size.cols, SCROLLBACK),
            text: vte::Parser::new(),
            pending: Plain::default(),
            last_output: Instant::now(),
            closed: false,
        }));
        let feed = screen.clone();
        let mut out = master.try_clone().map_err(|e| AideError::io("pty", &e))?;
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 32 * 1024];
            loop {
                match out.read(&mut buf) {
                    // EIO once no process holds the slave side any more.
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut s = lock(&feed);
                        s.parser.process(&buf[..n]);
                        let Screen { text, pending, .. } = &mut *s;
                        text.advance(pending, &buf[..n]);
                        s.last_output = Instant::now();
                    }
                }
            }
            lock(&feed).closed = true;
        });
        let input = input::Input::start(master.try_clone().map_err(|e| AideError::io("pty", &e))?);
        let pid = child.id();
        Ok(Terminal { id, command: command.to_string(), pid, child: Mutex::new((child, None)), master, screen, input })
    }

    /// The program's exit code, once it exited (reaped here).
    fn exit_code(&self) -> Option<i32> {
        let mut child = lock(&self.child);
        let (program, code) = &mut *child;
        if code.is_none()
            && let Ok(Some(status)) = program.try_wait()
        {
            use std::os::unix::process::ExitStatusExt;
            *code = Some(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)));
        }
        *code
    }

    fn exited(&self) -> bool {
        self.exit_code().is_some()
    }

    /// Types `text` and presses `keys`, in order: the text first. Queued for
    /// the program to read; refused whole when too much waits already.
    pub(crate) fn send(&self, text: Option<&str>, keys: &[String]) -> Result<(), AideError> {
        let application_cursor = lock(&self.screen).parser.screen().application_cursor();
        let mut bytes = text.map(|t| t.as_bytes().to_vec()).unwrap_or_default();
        for key in keys {
            let Some(k) = key_bytes(key, application_cursor) else {
                return Err(TerminalError::NoKeyNamed { key: key.clone(), known: key_names() }.into());
            };
            bytes.extend(k);
        }
        let exited = || AideError::from(TerminalError::Exited { id: self.id.clone() });
        if self.exited() {
            return Err(exited());
        }
        match self.input.send(&bytes) {
            Ok(()) => Ok(()),
            Err(input::Refused::Broken(_)) => Err(exited()),
            Err(input::Refused::Full { waiting }) => Err(TerminalError::InputFull {
                id: self.id.clone(),
                waiting,
                more: bytes.len(),
                held_kib: input::MAX_QUEUED >> 10,
            }
            .into()),
        }
    }

    pub(crate) fn resize(&self, to: Size) -> Result<(), AideError> {
        let to = to.checked()?;
        let (rows, cols) = (to.rows.get(), to.cols.get());
        let size = rustix::termios::Winsize { ws_row: rows, ws_col: cols, ws_xpixel: 0, ws_ypixel: 0 };
        rustix::termios::tcsetwinsize(&self.master, size).map_err(|e| AideError::io("terminal size", &e.into()))?;
        lock(&self.screen).parser.screen_mut().set_size(to.rows, to.cols);
        Ok(())
    }

    /// Waits for the pattern, a quiet spell, the program's end or the
    /// timeout, whichever `wait` asks and comes first: whether the pattern
    /// matched (None when there is none).
    fn wait_as_asked(&self, wait: &ReadWait, pattern: Option<&regex::Regex>) -> Option<bool> {
        let timeout = wait.timeout_ms.map_or(DEFAULT_READ_TIMEOUT, Duration::from_millis);
        let quiet = wait.quiet_ms.map(Duration::from_millis).or(pattern.is_none().then_some(DEFAULT_QUIET));
        let start = Instant::now();
        let mut matched = None;
        loop {
            let exited = self.exited();
            {
                let s = lock(&self.screen);
                if let Some(p) = pattern
                    && matched.is_none()
                {
                    let seen = s.parser.screen().contents();
                    if p.is_match(&seen) || p.is_match(&s.pending.text) {
                        matched = Some(true);
                        // With a quiet spell asked too, it is waited for after the match.
                        if quiet.is_none() {
                            break;
                        }
                    }
                }
                // The program ended: read once the PTY gives its end (or 100 ms
                // after the exit, when a child of it still holds the PTY).
                if s.closed || (exited && start.elapsed() > Duration::from_millis(100)) {
                    break;
                }
                let awaiting_match = pattern.is_some() && matched.is_none();
                if let Some(q) = quiet
                    && !awaiting_match
                    && s.last_output.elapsed() >= q
                    && start.elapsed() >= if wait.quiet_after_start { q } else { q.min(Duration::from_millis(50)) }
                {
                    break;
                }
            }
            if start.elapsed() >= timeout {
                if pattern.is_some() && matched.is_none() {
                    matched = Some(false);
                }
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        matched
    }

    /// Waits as asked (a pattern on the screen or in the new text, a quiet
    /// spell, the program's end, or the timeout), then answers what is seen.
    pub(crate) fn read(
        &self,
        wait: &ReadWait,
        session_id: &str,
        redactor: Option<&aide_gate::redact::Redactor>,
    ) -> Result<TermView, AideError> {
        let pattern = match &wait.wait_for {
            Some(p) => {
                Some(regex::Regex::new(p).map_err(|e| TerminalError::WaitForPattern { message: e.to_string() })?)
            }
            None => None,
        };
        let matched = self.wait_as_asked(wait, pattern.as_ref());
        let exited = self.exited();
        let mut s = lock(&self.screen);
        let screen = s.parser.screen();
        let (rows, cols) = screen.size();
        let (row, col) = screen.cursor_position();
        let mut lines: Vec<String> = screen.rows(0, cols.get()).map(|l| l.trim_end().to_string()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        let alternate_screen = screen.alternate_screen();
        let mut output = std::mem::take(&mut s.pending.text);
        let output_dropped = std::mem::take(&mut s.pending.dropped);
        drop(s);
        let mut redactions = 0;
        if let Some(r) = redactor {
            let (o, n) = r.redact(&output);
            output = o;
            redactions += n;
            for line in &mut lines {
                let (l, n) = r.redact(line);
                *line = l;
                redactions += n;
            }
        }
        Ok(TermView {
            terminal_id: self.id.clone(),
            session_id: session_id.to_string(),
            command: self.command.clone(),
            screen: lines,
            cursor: Cursor { row, col },
            rows: rows.get(),
            cols: cols.get(),
            output,
            output_dropped,
            alternate_screen,
            matched,
            exited,
            exit_code: self.exit_code(),
            redactions,
        })
    }

    pub(crate) fn listed(&self) -> TermListed {
        let exit_code = self.exit_code();
        TermListed {
            terminal_id: self.id.clone(),
            command: self.command.clone(),
            pid: self.pid,
            exited: exit_code.is_some(),
            exit_code,
        }
    }

    /// Ends the program and every process of its session (HUP, as a closed
    /// terminal does, then KILL).
    pub(crate) fn close(&self) -> Option<i32> {
        if !self.exited() {
            let _ = aide_gate::process::signal_group(self.pid, rustix::process::Signal::HUP);
            let until = Instant::now() + Duration::from_millis(500);
            while !self.exited() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = aide_gate::process::signal_group(self.pid, rustix::process::Signal::KILL);
        let mut child = lock(&self.child);
        if child.1.is_none() {
            let _ = child.0.wait();
        }
        drop(child);
        self.exit_code()
    }
}

/// The terminals of one keeper, by id; each shared with the requests using it.
#[derive(Default)]
pub(crate) struct Terminals {
    pub by_id: BTreeMap<String, Arc<Terminal>>,
    pub next: u64,
}

impl Terminals {
    pub(crate) fn close_all(&mut self) {
        for (_, t) in std::mem::take(&mut self.by_id) {
            t.close();
        }
    }
}

/// The session a terminal id belongs to (`s-….t3` → `s-…`).
pub(crate) fn session_of(terminal_id: &str) -> Option<&str> {
    terminal_id.rsplit_once(".t").map(|(s, _)| s).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_their_bytes() {
        assert_eq!(key_bytes("enter", false), Some(b"\r".to_vec()));
        assert_eq!(key_bytes("Ctrl-C", false), Some(vec![3]));
        assert_eq!(key_bytes("ctrl-d", false), Some(vec![4]));
        assert_eq!(key_bytes("Up", true), Some(b"\x1bOA".to_vec()));
        assert_eq!(key_bytes("PageDown", false), Some(b"\x1b[6~".to_vec()));
        assert_eq!(key_bytes("Ctrl-1", false), None);
        assert_eq!(key_bytes("Hyper", false), None);
    }

    #[test]
    fn sizes_are_bounded_and_say_the_range() {
        let s = Size::of(None, None).unwrap();
        assert_eq!((s.rows.get(), s.cols.get()), (24, 80));
        assert!(Size::of(Some(MAX_ROWS), Some(MAX_COLS)).is_ok());
        for (rows, cols, field) in
            [(0, 80, "rows"), (24, 0, "cols"), (65535, 65535, "rows"), (24, MAX_COLS + 1, "cols")]
        {
            let e = Size::of(Some(rows), Some(cols)).unwrap_err();
            assert_eq!(e.code.name, "invalid_arguments");
            assert_eq!(e.details.as_ref().unwrap()["field"], field);
            assert!(e.message.contains("must be 1 to 500"), "{}", e.message);
        }
        let wire: Size = serde_json::from_str(r#"{"rows": 65535, "cols": 65535}"#).unwrap();
        assert!(wire.checked().is_err(), "a size over a keeper's socket is checked too");
    }

    #[test]
    fn plain_text_drops_escapes_and_keeps_the_newest() {
        let mut p = Plain::default();
        let mut parser = vte::Parser::new();
        parser.advance(&mut p, b"\x1b[1;31mred\x1b[0m\r\nnext\x1b[2J");
        assert_eq!(p.text, "red\nnext");
        assert_eq!(session_of("s-abc.t12"), Some("s-abc"));
        assert_eq!(session_of("nope"), None);
    }
}

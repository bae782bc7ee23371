//! # aide-core: the contract every aide tool follows
//!
//! The tools (`llm-search`, `llm-read`, …) are thin adapters over library
//! functions; this crate holds what they share, once:
//!
//! * [`envelope`] — the JSON envelope (`tool`, `version`, `execution_id`, `ok`,
//!   result fields, `diagnostics`, `stats`), diagnostics, the three formats
//!   (compact text, `--json`, `--jsonl`) and a stdout writer for which a broken
//!   pipe is success.
//! * [`error`] — [`AideError`] with stable snake_case codes, each tied to one
//!   exit status: 0 success, 1 nothing found, 2 invalid input, 3 conflict or
//!   failed precondition, 4 runtime failure, 130 cancelled.
//! * [`command`] — what a tool runs: a shell line or a literal argv, quoted for bash.
//! * [`quote`] — words quoted for bash, byte for byte.
//! * [`cli`] — the harness: a [`tool::Tool`] gets flags or a JSON `--request`,
//!   `--schema`, panics turned into errors, and the execution log, for free.
//! * [`span`] — byte offsets ⇄ 1-based line and Unicode-scalar column, exact for
//!   UTF-8, CRLF, missing final newlines and invalid UTF-8.
//! * [`checksum`] — SHA-256 in lowercase hex, as `sha256sum` prints it.
//! * [`ids`] and [`ordering`] — UUIDv7 execution ids, stable span ids, and the
//!   canonical order (path byte-wise, then byte offset).
//! * [`root`] — root confinement: no path leaves `--root`.
//! * [`walk`] — file walking with ripgrep's ignore semantics.
//! * [`lang`] — language detection by extension.
//! * [`tree`] — a folder's whole content and its tree checksum.
//! * [`fsutil`] — atomic file writes; [`text`] — lossy text, line cuts;
//!   [`color`] — `--color`, and the text writer that escapes and colours.
//! * [`gate`] — the one way a process is started from project or model
//!   input: sandbox (and `aide mcp`'s ambient one), timeout, caps, the log;
//!   [`process`] — process groups: signals and waiting with a timeout;
//!   [`keeper`] — detached keepers and their sockets; [`peer`] — a socket's
//!   peer proven by its pidfd;
//!   [`progress`] — the progress line on a terminal; [`govern`] — what a
//!   host (`aide mcp`) imposes and rates on a typed request: sandbox, risk
//!   cap, every text that reaches a shell.
//! * [`redact`] — secrets in command output replaced by `[REDACTED]`.
//! * [`log`] — the SQLite execution log behind `aide log`; [`store`] — the
//!   SQLite plumbing (WAL, busy timeout, retries) it shares with other stores;
//!   [`home`] — where the state lives; [`time`] — epoch milliseconds, RFC 3339.
//! * [`tool`] — the one shape of a tool: `run(request, &Context) -> Outcome`.
//! * [`suggest`] — did-you-mean for misspelt names.
//! * [`voice`] — a message in its reader's words: flags and binaries on the
//!   command line, arguments and MCP tools over MCP.
//!
//! The wire format is documented in `docs/CONTRACT.md`.

pub mod checksum;
pub mod cli;
pub mod color;
pub mod command;
pub mod config;
pub mod diagnostic;
pub mod envelope;
pub mod error;
pub mod fsutil;
pub mod gate;
pub mod git;
pub mod govern;
pub mod home;
pub mod ids;
pub mod invoke;
pub mod keeper;
pub mod lang;
pub mod log;
pub mod operation;
pub mod ordering;
pub mod peer;
pub mod process;
pub mod progress;
pub mod quote;
pub mod redact;
pub mod request;
pub mod root;
pub mod sandbox;
pub mod span;
pub mod store;
pub mod suggest;
pub mod sync;
pub mod text;
pub mod time;
pub mod tool;
pub mod tree;
pub mod vocabulary;
pub mod voice;
pub mod walk;

pub use envelope::{Diagnostic, Format};
pub use error::{AideError, ErrorCode, ExitStatus, code};
pub use lang::Lang;
pub use root::Root;
pub use span::{LineIndex, Position, Span};

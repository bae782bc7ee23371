//! # aide-core: the contract every aide tool follows
//!
//! The tools (`llm-search`, `llm-read`, …) are thin adapters over library
//! functions; this crate holds what they promise their callers, once:
//!
//! * [`tool`] — the one shape of a tool: `run(request, &Context) -> Outcome`;
//!   [`operation`] — what each tool declares of its operations (the
//!   catalogue is built from these); [`govern`] — what a host (`aide mcp`)
//!   imposes and rates on a typed request: sandbox, risk cap, every text that
//!   reaches a shell; [`progress`] — the progress a run reports.
//! * [`envelope`] and [`diagnostic`] — the JSON envelope (`tool`, `version`,
//!   `execution_id`, `ok`, result fields, `diagnostics`, `stats`), the three
//!   formats (compact text, `--json`, `--jsonl`) and a stdout writer for which
//!   a broken pipe is success; [`color`] — `--color` and the text writer.
//! * [`error`] — [`AideError`] with stable snake_case codes, each tied to one
//!   exit status: 0 success, 1 nothing found, 2 invalid input, 3 conflict or
//!   failed precondition, 4 runtime failure, 130 cancelled.
//! * [`request`] — a request from flags or JSON, its aliases and limits;
//!   [`vocabulary`] — one name per concept across the tools; [`voice`] — a
//!   message in its reader's words (flags on the command line, arguments
//!   and MCP tools over MCP); [`suggest`] — did-you-mean.
//! * [`span`] — byte offsets ⇄ 1-based line and Unicode-scalar column, exact
//!   for UTF-8, CRLF, missing final newlines and invalid UTF-8; [`text`] —
//!   lossy text and line cuts.
//! * [`checksum`] — SHA-256 in lowercase hex, as `sha256sum` prints it;
//!   [`tree`] — a folder's whole content and its tree checksum.
//! * [`ids`] and [`ordering`] — UUIDv7 execution ids, stable span ids, and the
//!   canonical order (path byte-wise, then byte offset).
//! * [`root`] — root confinement: no path leaves `--root`; [`fsutil`] —
//!   atomic and private file writes; [`home`] — where aide's state and
//!   settings live; [`time`] — epoch milliseconds, RFC 3339.
//! * [`walk`] — file walking with ripgrep's ignore semantics; [`lang`] —
//!   language detection by extension; [`git`] — the files a revision
//!   changed (`--changed`), git started with nothing of the repository's
//!   own configuration run.
//! * [`sync`] — a lock that survives a panicking holder.
//! * [`command`] and [`quote`] — what a tool runs (a shell line or a literal
//!   argv) and words quoted for bash, byte for byte; [`sandbox`] — what a
//!   request asks of a sandbox; [`child`] — what a process aide starts
//!   inherits (its three streams, no other descriptor).
//!
//! What runs a tool and what it runs live in crates of their own, above
//! this one: `aide-harness` (the command line and in-process invocation),
//! `aide-log` (the execution log), `aide-gate` (every process started:
//! sandbox, timeout, redaction), `aide-keeper` (detached keepers) and
//! `aide-config` (aide.toml).
//!
//! The wire format is documented in `docs/CONTRACT.md`.

pub mod checksum;
pub mod child;
pub mod color;
pub mod command;
pub mod diagnostic;
pub mod envelope;
pub mod error;
pub mod fsutil;
pub mod git;
pub mod govern;
pub mod home;
pub mod ids;
pub mod lang;
pub mod operation;
pub mod ordering;
pub mod progress;
pub mod quote;
pub mod request;
pub mod root;
pub mod sandbox;
pub mod span;
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

//! Errors, stable error codes and exit statuses.
//!
//! Libraries define their own `thiserror` enums and convert them into
//! [`AideError`] with one of the [`ErrorCode`] constants below. This module is
//! the one place where a code is tied to an exit status, so every tool exits
//! the same way for the same kind of failure.
//!
//! | exit | meaning |
//! |------|---------|
//! | 0 | success |
//! | 1 | success, but nothing was found |
//! | 2 | invalid input: bad flags, bad request JSON, invalid pattern |
//! | 3 | conflict or failed precondition: re-read and retry |
//! | 4 | runtime failure: I/O, permission, timeout, internal |
//! | 130 | cancelled (Ctrl-C, or the caller's cancellation flag) |

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::voice::{Phrase, Voice};

mod contract;
mod git;
pub use contract::{CommandError, LangError, RequestError, RootError, TextError, TimeError, ToolError, WalkError};
pub use git::{OpenError, RunError};

/// The process exit status of a tool run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    NothingFound,
    InvalidInput,
    /// A conflict or failed precondition; also a check that ran and failed
    /// (`llm-ast-search --validate` of files with syntax errors).
    Conflict,
    Runtime,
    /// The run was cancelled before it finished (128 + SIGINT, as a shell
    /// reports a Ctrl-C).
    Cancelled,
    /// A command's own status, passed through (`llm-shell exec`).
    Command(u8),
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::NothingFound => 1,
            ExitStatus::InvalidInput => 2,
            ExitStatus::Conflict => 3,
            ExitStatus::Runtime => 4,
            ExitStatus::Cancelled => 130,
            ExitStatus::Command(code) => i32::from(code),
        }
    }

    /// Success, or NothingFound when the run found nothing (as grep).
    pub fn found(found: bool) -> ExitStatus {
        if found { ExitStatus::Success } else { ExitStatus::NothingFound }
    }
}

/// The class of a failure, which decides its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    InvalidInput,
    Conflict,
    Runtime,
    Cancelled,
}

impl ErrorClass {
    pub fn exit_status(self) -> ExitStatus {
        match self {
            ErrorClass::InvalidInput => ExitStatus::InvalidInput,
            ErrorClass::Conflict => ExitStatus::Conflict,
            ErrorClass::Runtime => ExitStatus::Runtime,
            ErrorClass::Cancelled => ExitStatus::Cancelled,
        }
    }
}

/// A stable, snake_case error code together with its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    pub name: &'static str,
    pub class: ErrorClass,
}

macro_rules! codes {
    ($($(#[$doc:meta])* $ident:ident = $name:literal, $class:ident;)*) => {
        $( $(#[$doc])* pub const $ident: ErrorCode = ErrorCode { name: $name, class: ErrorClass::$class }; )*
        /// Every code, for documentation and tests.
        pub const ALL: &[ErrorCode] = &[$($ident),*];
    };
}

/// The registry of error codes. Codes are part of the wire format: never
/// rename one, only add.
pub mod code {
    use super::{ErrorClass, ErrorCode};

    codes! {
        /// Flags that do not parse or contradict each other.
        INVALID_ARGUMENTS = "invalid_arguments", InvalidInput;
        /// A `--request` document that is not valid JSON or has wrong or unknown fields.
        INVALID_REQUEST = "invalid_request", InvalidInput;
        /// A regular expression or glob that does not compile.
        INVALID_PATTERN = "invalid_pattern", InvalidInput;
        /// A glob given with `--glob` that does not compile.
        INVALID_GLOB = "invalid_glob", InvalidInput;
        /// A tree-sitter query that does not compile (the details give its line and column).
        INVALID_QUERY = "invalid_query", InvalidInput;
        /// Input nested deeper than the tools analyse (brackets, `$(…)`, `if` blocks, calls): refused instead of overflowing the stack.
        INPUT_TOO_DEEP = "input_too_deep", InvalidInput;
        /// A Dialect program that does not parse or type-check (the details give its line and column).
        INVALID_PROGRAM = "invalid_program", InvalidInput;
        /// A path that leads outside `--root`.
        PATH_OUTSIDE_ROOT = "path_outside_root", InvalidInput;
        /// A path, id or record that does not exist.
        NOT_FOUND = "not_found", InvalidInput;
        /// A path that names a FIFO, socket or device (or a directory where a file is meant): the tools read and write regular files only.
        NOT_A_REGULAR_FILE = "not_a_regular_file", InvalidInput;
        /// A `--type` or `--language` that is not known.
        UNKNOWN_LANGUAGE = "unknown_language", InvalidInput;
        /// The file changed since it was read: its checksum differs.
        CHECKSUM_MISMATCH = "checksum_mismatch", Conflict;
        /// Another process holds the resource, or it is in a state that forbids the action.
        CONFLICT = "conflict", Conflict;
        /// A byte span that is out of range, reversed, cuts a UTF-8 character or overlaps another: the offsets are stale.
        INVALID_SPAN = "invalid_span", Conflict;
        /// An edit's target text or symbol is not in the file (the details list near misses).
        NO_MATCH = "no_match", Conflict;
        /// An edit's target matches more than once (the details list the candidates).
        AMBIGUOUS = "ambiguous", Conflict;
        /// An edit would add syntax errors to a file (the details give their locations).
        NEW_SYNTAX_ERRORS = "new_syntax_errors", Conflict;
        /// Two replacements of one request overlap (the details name both spans); nothing was written.
        OVERLAPPING_EDITS = "overlapping_edits", Conflict;
        /// An operation would make more replacements than its `max_replacements`; nothing was written.
        TOO_MANY_REPLACEMENTS = "too_many_replacements", Conflict;
        /// A rename's new name is already defined where the symbol lives; nothing was written.
        NAME_COLLISION = "name_collision", Conflict;
        /// A rename found sites it cannot tell are the symbol's (the details list them); nothing was written.
        UNRESOLVED_SITES = "unresolved_sites", Conflict;
        /// A refactor the language server does not offer at that place, or offers several of (the details list what it offers); nothing was written.
        NOT_OFFERED = "not_offered", Conflict;
        /// A shell command's estimated risk is above the allowed level; nothing was run.
        RISK_DENIED = "risk_denied", Conflict;
        /// The server's policy does not allow this tool (`aide mcp --allow`), or the user declined it.
        NOT_ALLOWED = "not_allowed", Conflict;
        /// An edit made the project's checkers (or its verify command) fail where they passed; it was undone at once (the details give the new diagnostics).
        VERIFICATION_FAILED = "verification_failed", Conflict;
        /// A git command was asked outside a git repository (llm-git, `--changed`, `--baseline`).
        NOT_A_REPOSITORY = "not_a_repository", InvalidInput;
        /// A commit was asked with nothing staged: no empty commit is made.
        NOTHING_TO_COMMIT = "nothing_to_commit", Conflict;
        /// A branch switch was asked with uncommitted changes to tracked files (the details list them); nothing changed.
        DIRTY_TREE = "dirty_tree", Conflict;
        /// A git hook (pre-commit, prepare-commit-msg, commit-msg) refused the commit (the details give the hook, its exit status and its output's tail); nothing was committed.
        HOOK_FAILED = "hook_failed", Conflict;
        /// git itself failed (the details give its exit status and stderr's tail).
        GIT_FAILED = "git_failed", Runtime;
        /// Calls came faster than the server's `--rate`: `details.retry_after_ms` says when to call again.
        RATE_LIMITED = "rate_limited", Runtime;
        /// A sandbox was asked for, and this kernel cannot enforce it (no
        /// Landlock, or no user and network namespaces): nothing ran.
        SANDBOX_UNAVAILABLE = "sandbox_unavailable", Runtime;
        /// A checker asked for is not installed (the hint says how to install it).
        CHECKER_UNAVAILABLE = "checker_unavailable", Runtime;
        /// A refactor needs the file's language server, and none is installed (the hint names the servers looked for).
        SERVER_UNAVAILABLE = "server_unavailable", Runtime;
        /// The language server failed, did not answer in time or had not loaded the project (the message says which); nothing was written.
        SERVER_FAILED = "server_failed", Runtime;
        /// A checker crashed, timed out or printed what it should not (the details give its stderr's tail); no partial list is given.
        CHECKER_FAILED = "checker_failed", Runtime;
        /// The process running a command (a session's keeper or shell) ended before it answered; the command may have run in part.
        COMMAND_LOST = "command_lost", Runtime;
        /// A registry (crates.io, npm, PyPI) could not be reached: no network, a proxy or DNS failure (`llm-deps outdated`).
        NETWORK_UNAVAILABLE = "network_unavailable", Runtime;
        /// I/O failed.
        IO_ERROR = "io_error", Runtime;
        /// The operating system refused access.
        PERMISSION_DENIED = "permission_denied", Runtime;
        /// The operation ran out of time.
        TIMEOUT = "timeout", Runtime;
        /// The execution log could not be read or written.
        LOG_UNAVAILABLE = "log_unavailable", Runtime;
        /// A stored result was too large to keep whole.
        RESULT_CAPPED = "result_capped", Runtime;
        /// A bug: a panic or an invariant that did not hold.
        INTERNAL = "internal", Runtime;
        /// The run was cancelled (Ctrl-C, or the caller's cancellation flag) before it finished; nothing was changed.
        CANCELLED = "cancelled", Cancelled;
    }
}

/// A failure as every tool reports it: `{"code", "message", "hint", "details"}`.
/// Message and hint are [`Phrase`]s: said in the caller's words (flags on
/// the command line, arguments and tools over MCP) when they are shown.
#[derive(Debug, Clone)]
pub struct AideError {
    pub code: ErrorCode,
    pub message: Phrase,
    pub hint: Option<Phrase>,
    /// Structured context (boxed: errors travel in `Result`s and stay small).
    pub details: Option<Box<Value>>,
}

impl AideError {
    pub fn new(code: ErrorCode, message: impl Into<Phrase>) -> Self {
        AideError { code, message: message.into(), hint: None, details: None }
    }

    pub fn with_hint(mut self, hint: impl Into<Phrase>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The one-line form (`error[code]: message (hint: …)`) in `voice`'s words.
    pub fn said(&self, voice: Voice) -> Said<'_> {
        Said { error: self, voice }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// The error with `details.field` naming the request field it is about
    /// (`paths`, `language`), beside the details it has; one it already
    /// names is kept.
    pub fn about_field(mut self, field: &str) -> Self {
        let details = self.details.get_or_insert_with(|| Box::new(Value::Object(Default::default())));
        if let Value::Object(map) = details.as_mut() {
            map.entry("field").or_insert_with(|| Value::String(field.to_string()));
        }
        self
    }

    pub fn exit_status(&self) -> ExitStatus {
        self.code.class.exit_status()
    }

    /// An I/O error on `path`, classified by its kind.
    pub fn io(path: &str, err: &std::io::Error) -> Self {
        use std::io::ErrorKind;
        let (code, hint) = match err.kind() {
            ErrorKind::NotFound => {
                let hint = crate::voice::say(|v| format!("check the path; paths are relative to {}", v.arg("root")));
                return AideError::new(code::NOT_FOUND, format!("{path}: {err}"))
                    .with_hint(hint)
                    .with_details(serde_json::json!({ "path": path }));
            }
            ErrorKind::PermissionDenied => (code::PERMISSION_DENIED, "check the file's permissions"),
            _ => (code::IO_ERROR, "retry; if it persists, check the disk and the path"),
        };
        AideError::new(code, format!("{path}: {err}")).with_hint(hint).with_details(serde_json::json!({ "path": path }))
    }

    /// The run was cancelled before it finished.
    pub fn cancelled() -> Self {
        AideError::new(code::CANCELLED, "cancelled before the run finished; nothing was changed")
            .with_hint("run it again to get the whole result")
    }

    pub fn internal(message: impl Into<String>) -> Self {
        AideError::new(code::INTERNAL, message.into())
            .with_hint("this is a bug in aide; please report it with the command line")
    }
}

impl fmt::Display for AideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.said(Voice::Cli).fmt(f)
    }
}

/// An error's one-line form in a voice ([`AideError::said`]).
pub struct Said<'a> {
    error: &'a AideError,
    voice: Voice,
}

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.error;
        write!(f, "error[{}]: {}", e.code.name, e.message.get(self.voice))?;
        if let Some(hint) = &e.hint {
            write!(f, " (hint: {})", hint.get(self.voice))?;
        }
        Ok(())
    }
}

impl std::error::Error for AideError {}

/// The wire form of an error.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ErrorBody {
    /// Stable snake_case code.
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    pub details: Value,
}

impl ErrorBody {
    /// The wire form of `e` in `voice`'s words.
    pub fn said(e: &AideError, voice: Voice) -> Self {
        ErrorBody {
            code: e.code.name.to_string(),
            message: e.message.get(voice).to_string(),
            hint: e.hint.as_ref().map(|h| h.get(voice).to_string()),
            details: e.details.as_deref().cloned().unwrap_or(Value::Null),
        }
    }
}

impl From<&AideError> for ErrorBody {
    /// In the command line's words.
    fn from(e: &AideError) -> Self {
        ErrorBody::said(e, Voice::Cli)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_snake_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in code::ALL {
            assert!(seen.insert(c.name), "duplicate code {}", c.name);
            assert!(c.name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'), "{}", c.name);
        }
    }

    #[test]
    fn every_code_is_documented_in_the_contract_with_its_exit_status() {
        let doc = include_str!("../../docs/CONTRACT.md");
        for c in code::ALL {
            let row = doc
                .lines()
                .find(|l| l.starts_with(&format!("| {} |", c.class.exit_status().code())))
                .unwrap_or_else(|| panic!("no exit-status row for {}", c.name));
            assert!(
                row.contains(&format!("`{}`", c.name)),
                "{} is not in the contract's exit {} row",
                c.name,
                c.class.exit_status().code()
            );
        }
    }

    #[test]
    fn classes_map_to_documented_exit_codes() {
        assert_eq!(code::INVALID_PATTERN.class.exit_status().code(), 2);
        assert_eq!(code::CHECKSUM_MISMATCH.class.exit_status().code(), 3);
        assert_eq!(code::IO_ERROR.class.exit_status().code(), 4);
        assert_eq!(ExitStatus::NothingFound.code(), 1);
    }

    #[test]
    fn io_errors_are_classified() {
        let e = AideError::io("a.txt", &std::io::Error::from(std::io::ErrorKind::NotFound));
        assert_eq!(e.code, code::NOT_FOUND);
        let e = AideError::io("a.txt", &std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert_eq!(e.code, code::PERMISSION_DENIED);
    }

    #[test]
    fn an_error_is_said_in_the_callers_words() {
        let e = AideError::io("a.txt", &std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(e.to_string().ends_with("(hint: check the path; paths are relative to --root)"), "{e}");
        let mcp = e.said(Voice::Mcp).to_string();
        assert!(mcp.ends_with("(hint: check the path; paths are relative to root)"), "{mcp}");
        assert_eq!(ErrorBody::said(&e, Voice::Mcp).hint.as_deref(), Some("check the path; paths are relative to root"));
        assert_eq!(ErrorBody::from(&e).hint.as_deref(), Some("check the path; paths are relative to --root"));
    }
}

//! # llm-lint: what the project's own checkers say, as records to act on
//!
//! Runs the checkers a project already uses — found from its files, each
//! only when installed (`aide doctor` lists them) — and aide's tree-sitter
//! syntax check, and answers their findings normalized and sorted: exact
//! spans, severity, code, message, the checker, related places, and the
//! fixes a checker marks machine-applicable as checksum-guarded span edits
//! (see [`aide_checkers`]). A check never writes the project's files (no
//! checker is asked to fix or format, whatever its configuration says) and
//! runs each checker as the project configures it. `--checker NAME` picks
//! (names as llm-transform's `--verify` takes them); `--changed [REV]` keeps
//! to the files git says changed (untracked included); `--baseline REV|FILE`
//! keeps the findings an earlier tree (a git revision, or an earlier
//! `llm-lint --json` output) did not have; `--fix` applies the fixes through
//! llm-transform's commit (all or nothing, checksum-guarded, journaled,
//! undone by `llm-transform undo ID`) and answers what remains.
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! `{ "findings": [finding…], "errors", "warnings", "infos",
//!   "checkers": [{ "checker", "status": "ran"|"unavailable"|"no_files"|"failed",
//!   "command", "exit_code", "findings", "duration_ms", "reason",
//!   "stderr_tail" }], "complete",
//!   "baseline": { "against", "before" } | null,
//!   "fixed": { "fixes", "files", "undo" } | null }`
//!
//! A finding is `{ "path", "line", "column", "end_line", "end_column",
//! "byte_start", "byte_end", "severity", "code", "message", "checker",
//! "checksum", "related", "fixes" }`. `--jsonl` prints one finding a line,
//! then the summary.
//!
//! Exit status: 0 when no finding is an error, 1 when one is (as linters
//! do); 4 when a checker failed (it crashed, exited with a status it does
//! not give for findings, timed out, printed what cannot be read or wrote
//! files): it is listed `failed` with why and its stderr's tail, none of
//! its findings given, the others' findings given, `complete: false`. The
//! contract's codes otherwise — 2 invalid input, 4 `checker_unavailable`
//! (a named checker is not installed).

mod engine;
mod error;
mod fix;
mod operations;
mod output;
mod request;

use aide_core::AideError;
use aide_core::operation::Operation;
use aide_core::tool::{Context, Outcome, Tool};

pub use engine::lint;
pub use output::{BaselineUsed, Fixed, LintOutput};
pub use request::{DEFAULT_TIMEOUT, LintRequest};

/// The `llm-lint` tool.
#[derive(Debug)]
pub struct LlmLint;

impl Tool for LlmLint {
    const NAME: &'static str = "llm-lint";
    const SUMMARY: &'static str =
        "The project's own checkers and a syntax check, as located findings; fixes with undo.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str =
        "What the project's own checkers say, as located findings; --fix applies their fixes with undo.";
    type Request = LintRequest;
    type Output = LintOutput;

    fn run(request: LintRequest, ctx: &Context) -> Result<Outcome<LintOutput>, AideError> {
        lint(&request, ctx)
    }
}

//! # llm-code: code measured from its syntax trees
//!
//! The trees are llm-ast-search's (tree-sitter: Rust, Python, TypeScript,
//! TSX, JavaScript, C, C++, Java, Go), and so are the functions: every
//! Function and Method of its outline that has a body, named by its name
//! path.
//!
//! | subcommand | result |
//! |---|---|
//! | `metrics [PATH…]` | per function: cyclomatic and cognitive complexity, lines, code lines, parameters, nesting; per file: their sums and maxima, and the code outside functions measured apart |
//! | `duplicates [PATH…]` | clones: every place of a run of tokens equal once names and literals are replaced by their kind |
//! | `imports [PATH…]` | each file's imports as written and its exports by its language's rule |
//!
//! ## Wire format (`--json`), inside the aide envelope
//!
//! ```json
//! { "functions": [ { "path": "src/agent.py", "name": "run", "name_path": "Agent/run",
//!                    "kind": "Method", "byte_start": 120, "byte_end": 410, "line": 9,
//!                    "column": 5, "end_line": 20, "end_column": 6,
//!                    "cyclomatic": 4, "cognitive": 5, "lines": 12, "code_lines": 10,
//!                    "parameters": 2, "nesting": 2 } ],
//!   "total": 1, "files_parsed": 1, "truncated": false, "next_offset": null,
//!   "file_totals": [ { "path": "src/agent.py", "language": "python", "checksum": "…",
//!                      "lines": 40, "code_lines": 31, "functions": 1, "cyclomatic": 4,
//!                      "cognitive": 5, "module_cyclomatic": 1, "module_cognitive": 0,
//!                      "max_cyclomatic": 4, "max_cognitive": 5, "max_nesting": 2 } ] }
//!
//! { "duplicates": [ { "tokens": 73, "lines": 10,
//!                     "places": [ { "path": "a.py", "byte_start": 0, …, "checksum": "…" },
//!                                 { "path": "b.py", "byte_start": 210, …, "checksum": "…" } ] } ],
//!   "total": 1, "files_parsed": 2, "truncated": false, "next_offset": null,
//!   "tokens": 912, "min_tokens": 50, "min_lines": 6 }
//!
//! { "files": [ { "path": "src/main.rs", "language": "rust", "checksum": "…",
//!                "imports": [ { "kind": "use", "module": "std::collections",
//!                               "names": ["HashMap", "HashSet as Set"], "alias": null,
//!                               "byte_start": 0, … } ],
//!                "exports": [ { "name": "run", "kind": "Function", "byte_start": 60, … } ],
//!                "exports_from": "language" } ],
//!   "total": 1, "files_parsed": 1, "truncated": false, "next_offset": null }
//! ```
//!
//! * Cyclomatic complexity is McCabe's, 1 + a body's decision points:
//!   Python's are radon's (`radon cc` gives the same number for every
//!   function), the other languages' rust-code-analysis's. Cognitive
//!   complexity is SonarSource's. What each node counts for is in
//!   `metrics/rules.rs`. A function's measures leave out the functions
//!   nested in it (each measured on its own), and keep its lambdas and
//!   closures.
//! * Functions come by (path, byte_start); `--sort MEASURE` puts the
//!   highest first; `--limit`/`--offset` page them (`file_totals` is whole).
//! * Duplicates: see [`duplicates`] for how tokens are compared; `--min-tokens`
//!   is at least 10 (`invalid_arguments` below). Imports: see [`imports`].
//! * A file with syntax errors is still measured and gives a `parse_error`
//!   diagnostic; unreadable, binary and UTF-16 files give diagnostics too.
//!
//! Exit status: 0 with results, 1 without, 2 for invalid input, 4 for a
//! runtime failure.

mod duplicates;
mod engine;
mod error;
mod imports;
mod metrics;
mod operations;
mod output;
mod request;

use aide_core::AideError;
use aide_core::operation::Operation;
use aide_core::tool::{Context, Outcome, Tool};

pub use duplicates::{Duplicate, Place};
pub use engine::run;
pub use error::CodeError;
pub use imports::{Export, ExportRule, FileImports, Import, ImportKind};
pub use metrics::{FileMetrics, FunctionMetrics};
pub use output::*;
pub use request::*;

/// The `llm-code` tool.
#[derive(Debug)]
pub struct LlmCode;

impl Tool for LlmCode {
    const NAME: &'static str = "llm-code";
    const SUMMARY: &'static str =
        "Code measured from its syntax trees: complexity per function and file, duplicates, imports and exports.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str = "Code measured from its tree-sitter trees: complexity per function, structural duplicates, imports and exports.";
    const TUNE_ALLOCATOR: bool = true;
    type Request = CodeRequest;
    type Output = CodeOutput;

    fn run(request: CodeRequest, ctx: &Context) -> Result<Outcome<CodeOutput>, AideError> {
        run(&request, ctx)
    }

    /// It only reads: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &CodeRequest) -> bool {
        true
    }
}

//! What a lint asks: the checkers, the paths, the baseline, and whether to fix.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Seconds a checker may run by default before it is killed.
pub const DEFAULT_TIMEOUT: f64 = 600.0;

/// A lint request: the flags, or the same fields as `--request` JSON.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct LintRequest {
    /// Only findings in these files or directories (relative to --root).
    #[arg(value_name = "PATH")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub paths: Vec<String>,
    /// Directory to check; nothing outside it is read or changed.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Checkers to run (`all`: every one the project uses). Default: the ones the project uses that are installed, and syntax.
    #[arg(long = "checker", value_name = "NAME")]
    #[serde(deserialize_with = "aide_core::request::one_or_many")]
    #[schemars(schema_with = "aide_core::request::one_or_many_schema")]
    pub checker: Vec<String>,
    /// Only files changed in git since REV (default HEAD), untracked included. `--changed=REV`.
    #[arg(long, value_name = "REV", num_args = 0..=1, require_equals = true, default_missing_value = "HEAD")]
    pub changed: Option<String>,
    /// Only findings new since a git revision. Or since a saved --json output.
    #[arg(long, value_name = "REV|FILE")]
    pub baseline: Option<String>,
    /// Kill a checker after this many seconds (default 600).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Apply the fixes (all or nothing, undoable). Undo
    /// with `llm-transform undo ID`.
    #[arg(long)]
    pub fix: bool,
}

/// No argument of it is a command or a sandbox: whatever process it starts
/// runs in the gate's ambient sandbox (`aide mcp`'s), with nothing to rate.
impl aide_core::govern::Governed for LintRequest {}

//! Typed views of the tools' JSON, written from the documented wire format
//! (not imported from the tools), so a change of format breaks these tests.

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope<T> {
    pub tool: String,
    pub version: String,
    pub execution_id: String,
    pub ok: bool,
    #[serde(flatten)]
    pub result: T,
    pub diagnostics: Vec<Diagnostic>,
    pub stats: Stats,
}

#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Diagnostic {
    pub code: String,
    pub path: Option<String>,
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stats {
    pub elapsed_ms: f64,
    /// Files passed over as rg and fd pass them over: counted, not warned.
    #[serde(default)]
    pub skipped: Skipped,
}

#[derive(Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Skipped {
    pub binary_file: u64,
    pub symlink_not_followed: u64,
    pub broken_symlink: u64,
    pub not_a_regular_file: u64,
}

#[derive(Debug, Deserialize)]
pub struct ErrorResult {
    pub error: ErrorBody,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
    pub details: Value,
}

#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SearchResult {
    pub mode: String,
    pub matches: Vec<SearchMatch>,
    pub files: Vec<FileCount>,
    pub total_matches: usize,
    pub total_lines: usize,
    pub files_searched: usize,
    pub files_with_matches: usize,
    pub truncated: bool,
    pub next_offset: Option<usize>,
    pub totals_exact: bool,
}

#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SearchMatch {
    pub match_id: String,
    pub path: String,
    /// SHA-256 of the file as searched.
    pub checksum: String,
    pub byte_start: usize,
    pub byte_end: usize,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    #[serde(rename = "match")]
    pub text: String,
    pub line_text: String,
    pub context_before: Vec<String>,
    pub context_after: Vec<String>,
    pub captures: Option<Vec<Capture>>,
    #[serde(default)]
    pub lossy: bool,
    #[serde(default)]
    pub line_truncated: bool,
}

#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Capture {
    pub index: usize,
    pub name: Option<String>,
    pub byte_start: Option<usize>,
    pub byte_end: Option<usize>,
    #[serde(rename = "match")]
    pub text: Option<String>,
}

#[derive(Debug, Deserialize, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FileCount {
    pub path: String,
    pub checksum: String,
    pub matches: usize,
    pub lines: usize,
}

#[derive(Debug, Deserialize, Clone)]
pub struct RunSummary {
    pub execution_id: String,
    pub tool: String,
    pub argv: Vec<String>,
    pub exit_code: i32,
    pub ok: bool,
    pub result_capped: bool,
}

#[derive(Debug, Deserialize)]
pub struct Runs {
    pub runs: Vec<RunSummary>,
}

#[derive(Debug, Deserialize, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DiscoverResult {
    pub mode: String,
    pub query: Option<String>,
    pub results: Vec<Found>,
    pub total: usize,
    pub truncated: bool,
    pub next_offset: Option<usize>,
    pub tree: Option<String>,
    pub files: Option<usize>,
    pub directories: Option<usize>,
    pub total_size: Option<u64>,
}

#[derive(Debug, Deserialize, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Found {
    pub path: String,
    pub kind: String,
    pub score: f64,
    pub reason: String,
    pub reason_text: String,
    pub matched: Vec<u32>,
}

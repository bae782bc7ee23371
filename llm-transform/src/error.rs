//! Every way a transform is refused, as one enum converted once into the
//! contract's [`AideError`] (code, hint, details). Errors of the shared
//! machinery (root confinement, I/O, cancellation) stay `AideError`s.

use aide_core::operation::{Operation, named};
use aide_core::tool::Tool;
use aide_core::voice::{Given, Phrase, Voice, say};
use aide_core::{AideError, code};
use llm_ast_search::SymbolKind;
use llm_ast_search::SyntaxIssue;
use serde::Serialize;
use serde_json::json;

use crate::request::OpName;
use crate::text::{NearMiss, SpanEditError};

mod to_aide;
pub(crate) use to_aide::join_lines;

/// A block an operation could have meant, as listed when none or several match.
#[derive(Debug, Clone, Serialize)]
pub struct BlockCandidate {
    pub kind: SymbolKind,
    pub name_path: String,
    pub line: usize,
    pub end_line: usize,
    /// SHA-256 of the block's bytes (`expected_old_hash`).
    pub hash: String,
    /// Where it sits, for the hint's `module_path` choices.
    #[serde(skip)]
    pub parent: Option<String>,
}

/// A site a rename could not tell is the symbol's.
#[derive(Debug, Clone, Serialize)]
pub struct UnresolvedSite {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub line_text: String,
}

/// Sites as a refusal's text lists them: `path:line:column: text`, the
/// first ten (the error's details hold them all).
/// The operations hints send the caller to.
const TRANSFORM: &Operation = named(crate::operations::OPERATIONS, "transform");
const AST_SEARCH: &Operation = named(<llm_ast_search::LlmAstSearch as Tool>::OPERATIONS, "ast_search");

/// The reading tool, which gives checksums (llm-read is not a dependency:
/// its table is out of reach, so its two names are said here).
fn read(v: Voice) -> &'static str {
    v.pick("llm-read", "read")
}

/// The searches whose records `replace_matches` takes.
fn searches(v: Voice) -> String {
    format!("{} or {}", v.pick("llm-search", "search"), v.op(AST_SEARCH))
}

fn listed(sites: &[UnresolvedSite]) -> String {
    const SHOWN: usize = 10;
    let mut out: Vec<String> = sites
        .iter()
        .take(SHOWN)
        .map(|s| format!("{}:{}:{}: {}", s.path, s.line, s.column, s.line_text.trim()))
        .collect();
    if sites.len() > SHOWN {
        out.push(format!("and {} more", sites.len() - SHOWN));
    }
    out.join("; ")
}

/// An action a language server offers at a place, as a refusal and the
/// list of refactors show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct OfferedAction {
    /// Its name, which `action` takes: extract_variable, extract_function,
    /// inline, organize_imports, or the server's own (snake case).
    pub action: String,
    /// The server's title (`title` picks among actions of one name).
    pub title: String,
    /// The server's kind (`refactor`, `refactor.extract.function`, …).
    pub kind: Option<String>,
}

/// A file an undo would overwrite that changed since the transform.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedFile {
    pub path: String,
    pub expected: Option<String>,
    pub current: Option<String>,
}

/// Where an edit sits in its file, for errors that name spans.
#[derive(Debug, Clone, Serialize)]
pub struct SpanAt {
    pub byte_start: usize,
    pub byte_end: usize,
    pub line: usize,
    pub end_line: usize,
}

impl SpanAt {
    /// Bytes `start..end` of the text `index` indexes, with their lines.
    pub fn of(index: &aide_core::LineIndex, start: usize, end: usize) -> SpanAt {
        SpanAt {
            byte_start: start,
            byte_end: end,
            line: index.line_of(start),
            end_line: index.line_of(end.saturating_sub(1).max(start)),
        }
    }
}

/// A definition a rename could mean, as listed when several match.
#[derive(Debug, Clone, Serialize)]
pub struct DefinitionCandidate {
    pub path: String,
    pub name_path: String,
    pub kind: SymbolKind,
    pub line: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum TransformError {
    // The request.
    #[error("{source_name}: {message}")]
    EditsFile { source_name: String, message: String },
    #[error("{checker} failed on the tree before the edit ({why}); nothing was written{put_back}")]
    CheckerFailedBefore { checker: String, why: String, put_back: String, details: serde_json::Value },
    #[error("{said}; the edit was undone{put_back}")]
    VerificationFailed { said: String, put_back: String, details: serde_json::Value },
    #[error("{what}; the edit was undone{put_back}")]
    VerifyCommandFailed { what: String, put_back: String, details: serde_json::Value },
    #[error("the patch does not parse at its line {line}: {message}")]
    PatchUnreadable { line: usize, message: String },
    #[error("the patch's line {line}: {what} is not applied")]
    PatchUnsupported { line: usize, what: &'static str },
    #[error("nothing to do: no edits and no operations")]
    NothingToDo,
    #[error("edit {index} has no path")]
    EditWithoutPath { index: usize },
    #[error("edit {index} has no checksum_before")]
    EditWithoutChecksum { index: usize },
    #[error("{path}: the patch's hunk {hunk} (`{header}`) {}", if .candidates.is_empty() { "does not fit the file" } else { "fits several places" })]
    PatchHunk { path: String, hunk: usize, header: String, candidates: Vec<usize>, nearest: Vec<(usize, String)> },
    #[error("{path}: the patch adds it, but it exists")]
    PatchAddsExisting { path: String },
    #[error("{path}: the patch changes a file that does not exist")]
    PatchMissingFile { path: String },
    #[error("{path}: the patch deletes it, but its content is not what the patch removes")]
    PatchDeleteDiffers { path: String },
    #[error("{path}: not UTF-8 text, which a patch cannot change")]
    PatchNotText { path: String },
    #[error("operation {index} ({}) has neither checksum_before nor expected_old_text", .op.as_str())]
    LinesUnguarded { index: usize, op: OpName },
    #[error("operation {index}: `{lines}` is not a line range A:B")]
    BadLineRange { index: usize, lines: String },
    #[error("{path}: lines {lines} are not in the file (it has {line_count})")]
    LinesOutOfRange { path: String, lines: String, line_count: usize, checksum: String },
    #[error("{path}: lines {lines} are not expected_old_text")]
    LinesDiffer { path: String, lines: String, actual: String, checksum: String },
    #[error("operation {index} ({}) needs `{field}`", .op.as_str())]
    OperationField { index: usize, op: OpName, field: &'static str },
    #[error("patch old_text is empty")]
    EmptyOldText,
    #[error("{path}: a file path never ends in `/`")]
    TrailingSlash { path: String },
    #[error("invalid regex `{pattern}`: {message}")]
    InvalidRegex { pattern: String, message: String },
    #[error("operation {index} (replace_matches) has no matches to replace")]
    NoMatches { index: usize },
    #[error("match {index}: {message}")]
    MatchRecord { index: usize, message: String },
    #[error("match {index} has no checksum")]
    MatchWithoutChecksum { index: usize },
    #[error("--from-matches: {message}")]
    MatchesDocument { message: String },
    #[error("{} needs {}", Voice::Cli.arg("from_matches"), Voice::Cli.arg("replacement"))]
    MatchesWithoutReplacement,
    #[error("the template names capture `{name}`, which the query does not have")]
    UnknownCapture { name: String, available: Vec<String> },
    #[error("{path}: no capture of a match spans all the others, so which node to replace is unclear")]
    NoWidestCapture { path: String, captures: Vec<String> },
    #[error("`{name}` is not a valid new name")]
    InvalidNewName { name: String },

    // The files as they are.
    #[error("{path} does not exist")]
    SpanTargetMissing { path: String },
    #[error("{path} does not exist")]
    Missing { path: String },
    #[error("the folder of {path} does not exist")]
    FolderMissing { path: String },
    #[error("{path} is not a file path")]
    NotAFilePath { path: String },
    #[error("{path} changed since it was read: its checksum differs")]
    ChecksumMismatch { path: String, expected: String, current: Option<String> },
    #[error("{path}: {reason}; nothing was written")]
    InvalidSpan { path: String, reason: SpanEditError, current: String, size: usize },
    #[error("{path} exists; overwriting it needs its checksum")]
    OverwriteWithoutChecksum { path: String },
    #[error("cannot rename {path} to {to}: it exists")]
    RenameTargetExists { path: String, to: String },
    #[error("{path} is read-only (no write permission); nothing was written")]
    ReadOnly { path: String },
    #[error("renaming {name} would leave {} site{} of the name that may mean it unchanged: {}", .sites.len(), if .sites.len() == 1 { "" } else { "s" }, listed(.sites))]
    UnresolvedSites {
        name: String,
        sites: Vec<UnresolvedSite>,
        /// Why no language server decided instead (`engine: lsp|auto`).
        server: Vec<aide_core::envelope::Diagnostic>,
    },
    #[error("{server}'s rename of {name} would leave {} site{} that mean it unchanged: {}", .sites.len(), if .sites.len() == 1 { "" } else { "s" }, listed(.sites))]
    ServerLeftSites { name: String, server: String, sites: Vec<UnresolvedSite> },
    #[error("{path}: {why}, and a refactor is the server's")]
    ServerUnavailable { path: String, variable: String, why: String },
    #[error("{server} failed to {doing}: {why}; nothing was written")]
    ServerFailed { server: String, doing: &'static str, why: String },
    #[error(
        "{server} {} `{action}`{} at {place}; it offers: {}",
        if *.several { "offers more than one" } else { "does not offer" },
        .title.as_deref().map(|t| format!(" titled \"{t}\"")).unwrap_or_default(),
        if .offered.is_empty() { "nothing there".to_string() } else { .offered.iter().map(|a| a.action.as_str()).collect::<Vec<_>>().join(", ") }
    )]
    NotOffered {
        server: String,
        action: String,
        title: Option<String>,
        several: bool,
        place: String,
        offered: Vec<OfferedAction>,
    },
    #[error("`{name}` is not an identifier to name what the refactor makes")]
    NewNameInvalid { name: String },
    #[error("{path} already uses the name `{name}`: naming the refactor's result so would capture or shadow it")]
    NewNameTaken { path: String, name: String },
    #[error("the refactor of {path} cannot be named `{name}` exactly: {why}; nothing was written")]
    NewNameNotExact { path: String, name: String, introduced: Vec<String>, why: String },
    #[error("{path} is in no language a server refactors (by its extension)")]
    RefactorLanguage { path: String },
    #[error("{path}: {what}")]
    InvalidRange { path: String, what: String },
    #[error("{path} is a directory; deleting it needs `recursive`")]
    DirectoryNotRecursive { path: String },
    #[error("{path} is a directory; deleting it needs its tree checksum (or `force`)")]
    TreeUnguarded { path: String, current: String },
    #[error("{path} changed since it was read: its tree checksum differs")]
    TreeChecksumMismatch { path: String, expected: String, current: String },
    #[error("cannot {op} {path} to {to}: it exists")]
    TargetExists { op: &'static str, path: String, to: String },
    #[error("cannot {op} {path} into itself ({to})")]
    IntoItself { op: &'static str, path: String, to: String },
    #[error("{path} exists and is not a directory")]
    NotADirectory { path: String },
    #[error("{path} is a directory; `{op}` takes a file here")]
    DirectoryHere { op: &'static str, path: String },

    // Finding the text or block an operation targets.
    #[error("{path}: old_text matches nothing")]
    NoMatch { path: String, near_miss: Option<NearMiss>, checksum: String },
    #[error("{path}: old_text matches {count} times (lines {})", join_lines(.lines))]
    AmbiguousText { path: String, count: usize, lines: Vec<usize> },
    #[error("{path}: block operations need a known language")]
    UnknownLanguage { path: String },
    #[error(
        "{path}: no {} named `{name}`{}",
        .kind.map_or("symbol", SymbolKind::name),
        .module_path.as_deref().map(|m| format!(" in `{m}`")).unwrap_or_default()
    )]
    NoBlock {
        path: String,
        kind: Option<SymbolKind>,
        name: String,
        module_path: Option<String>,
        similar: Vec<BlockCandidate>,
    },
    #[error("{path}: `{name_path}` has no body, so no head to replace")]
    NoBody { path: String, name_path: String },
    #[error("{path}: no symbol `{within}` to patch within")]
    NoWithin { path: String, within: String, similar: Vec<BlockCandidate> },
    #[error("{path}: {} symbols match `{name}`: {}", .candidates.len(), listing(.path, .candidates))]
    AmbiguousBlock { path: String, name: String, candidates: Vec<BlockCandidate> },
    #[error("{path}: `{name_path}` changed since it was read")]
    BlockHashMismatch { path: String, name_path: String, expected: String, current: String, line: usize },
    #[error("{path}: `{name_path}` is not expected_old_block")]
    BlockTextMismatch { path: String, name_path: String, current: String, line: usize },
    #[error(
        "{path}: replacements at lines {}-{} and {}-{} overlap; nothing was written",
        .first.line, .first.end_line, .second.line, .second.end_line
    )]
    OverlappingEdits { path: String, first: SpanAt, second: SpanAt },
    #[error("operation {index} ({}) would make {count} replacements, over its max_replacements {max}", .op.as_str())]
    TooManyReplacements { index: usize, op: OpName, count: usize, max: usize },
    #[error(
        "operation {index} ({}) would take the files past the growth bound: with its change of {path} they would grow by {would} bytes in all, over the bound of {bound}; nothing was written",
        .op.as_str()
    )]
    GrowthBound { index: usize, op: OpName, path: String, would: u64, bound: u64 },
    #[error("no definition of `{name}` found")]
    NoDefinition { name: String },
    #[error("`{name}` is defined {} times: {}", .candidates.len(), .candidates.iter().map(|c| format!("{} at {}:{}", c.name_path, c.path, c.line)).collect::<Vec<_>>().join("; "))]
    AmbiguousDefinition { name: String, candidates: Vec<DefinitionCandidate> },
    #[error("`{new_name}` is already defined beside `{name_path}` ({path}:{line}); the rename would merge two names")]
    NameCollision { name_path: String, new_name: String, path: String, line: usize },

    // The guards.
    #[error(
        "{path}: the edit adds {} syntax error{} (first at {}:{}: {}); nothing was written",
        .errors.len(), if .errors.len() == 1 { "" } else { "s" },
        .errors.first().map_or(0, |e| e.span.line), .errors.first().map_or(0, |e| e.span.column),
        .errors.first().map_or("", |e| e.message.as_str())
    )]
    NewSyntaxErrors { path: String, errors: Vec<SyntaxIssue> },
    #[error(
        "{path}: the edit makes the file fail python3's compile() (at line {line}: {message}); nothing was written"
    )]
    PythonCompile { path: String, line: usize, message: String },

    // Writing.
    #[error("{path} is being changed by another transform")]
    Locked { path: String },
    #[error("{path} was changed by another program while the transform was being written; nothing was written")]
    ChangedMeanwhile { path: String },
    #[error("writing {path} failed: {reason}; nothing was changed")]
    WriteFailed { path: String, reason: String, restore_failures: Option<Vec<String>> },

    #[error("{message}")]
    QueryTooDeep { message: String },

    // Recovery.
    #[error("no interrupted transform {id} awaits recovery")]
    NoJournal { id: String },

    // Undo.
    #[error("nothing to undo")]
    NothingToUndo,
    #[error("`{id}` is not an execution id")]
    NotAnExecutionId { id: String },
    #[error("no applied transform {id}")]
    NoSuchTransform { id: String },
    #[error("{count} transforms start with {id}")]
    AmbiguousExecutionId { id: String, count: usize },
    #[error("transform {id} was made under {root}, not under this root")]
    OtherRoot { id: String, root: String },
    #[error("transform {id} was already undone (by {by})")]
    AlreadyUndone { id: String, by: String },
    #[error("cannot undo {id}: the old content of {path} was over the undo size cap and was not kept")]
    PreImageNotKept { id: String, path: String },
    #[error("cannot undo {id}: changed since: {}", .changed.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", "))]
    ChangedSinceTransform { id: String, changed: Vec<ChangedFile> },
}

/// Each candidate with its kind, where it is and the start of its hash, so
/// text mode shows enough to pick one.
fn listing(path: &str, candidates: &[BlockCandidate]) -> String {
    candidates
        .iter()
        .map(|c| {
            let hash = &c.hash[..c.hash.len().min(12)];
            format!("{} {} at {path}:{}-{} (hash {hash})", c.kind, c.name_path, c.line, c.end_line)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

//! `refactor`: a code action the file's language server offers at a place
//! (extract a variable or a function, inline, organise imports, …), its
//! edit applied exactly as the server gives it, through the transform's
//! plan and commit: checksum-guarded, all or nothing, undoable, verified
//! with `--verify`.
//!
//! The server is asked before the lock, as a tree operation finds its
//! files ([`crate::tree`]): which actions it offers there
//! (`llm_ast_search::lsp::actions`), the one the request names, and its
//! edit, as byte spans of each file it changes and the checksum of the
//! bytes they are offsets into. Under the lock each file must still have
//! those bytes (else `checksum_mismatch`, nothing written): the server
//! reads the disk, so a refactor of a file an earlier operation of the
//! same request changed is refused too. No server for the language is
//! `server_unavailable`; an action it does not offer there `not_offered`,
//! its list in the details; a server that fails `server_failed`.

mod name;

use std::path::Path;
use std::sync::Mutex;

use aide_core::checksum::sha256_hex;
use aide_core::envelope::Diagnostic;
use aide_core::span::Position;
use aide_core::tool::Context;
use aide_core::{AideError, Lang, LineIndex, Root};
use llm_ast_search::lsp::actions::{self, CodeAction};
use llm_ast_search::lsp::{self, LspFailure, ServerSpec};
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{OfferedAction, TransformError};
use crate::request::{RefactorArgs, RefactorOp};
use crate::scan::Edit;

/// The actions offered at a place.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Offered {
    pub path: String,
    /// SHA-256 of the file as the server was asked about it: the
    /// `checksum_before` that applies one of the actions to these bytes.
    pub checksum: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    /// The server asked (its program's name).
    pub server: String,
    pub actions: Vec<OfferedAction>,
}

/// What a refactor applied.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RefactorReport {
    pub path: String,
    pub action: String,
    pub title: String,
    pub kind: Option<String>,
    pub server: String,
    /// The server's edits (in all its files; `files` shows each).
    pub edits: usize,
    /// With `new_name`: the name the server's edit gave what it made
    /// (clangd's `placeholder`), written as `new_name` instead.
    pub named_from: Option<String>,
}

/// The server's edit of one file, and the checksum of the bytes its spans
/// are offsets into.
pub(crate) struct ServerFile {
    pub path: String,
    pub checksum: String,
    pub edits: Vec<Edit>,
}

/// A refactor operation, its edit asked of the server before the lock.
pub(crate) struct PreparedRefactor {
    op: RefactorOp,
    asked: Mutex<Option<(Vec<ServerFile>, RefactorReport)>>,
}

/// The file, its server and the place, as the server is asked.
struct Place {
    spec: ServerSpec,
    server: String,
    /// The file's checksum when its place was worked out, its language and bytes.
    checksum: String,
    lang: Lang,
    bytes: Vec<u8>,
    start: usize,
    end: usize,
    shown: Offered,
}

impl PreparedRefactor {
    pub(crate) fn new(op: &RefactorOp) -> PreparedRefactor {
        PreparedRefactor { op: op.clone(), asked: Mutex::new(None) }
    }

    /// Asks the server for the action's edit; the files it changes.
    pub(crate) fn candidates(&self, root: &Root, ctx: &Context) -> Result<(Vec<String>, Vec<Diagnostic>), AideError> {
        let op = &self.op;
        let place =
            place(root, &op.path, [op.line, op.column, op.end_line, op.end_column], op.checksum_before.as_deref())?;
        ctx.check_cancel()?;
        let offered = ask_actions(root, &place, &op.path)?;
        let chosen = choose(&offered, op, &place)?;
        let failed = |why: LspFailure| TransformError::ServerFailed {
            server: place.server.clone(),
            doing: "make the action's edit",
            why: why.to_string(),
        };
        let by_file = actions::edit_of(root, &place.spec, &op.path, chosen).map_err(failed)?;
        if let Some(own) = by_file.iter().find(|f| f.path == op.path)
            && own.checksum != place.checksum
        {
            return Err(TransformError::ChecksumMismatch {
                path: op.path.clone(),
                expected: place.checksum.clone(),
                current: Some(own.checksum.clone()),
            }
            .into());
        }
        let mut files: Vec<ServerFile> = by_file
            .into_iter()
            .map(|f| ServerFile {
                path: f.path,
                checksum: f.checksum,
                edits: f
                    .edits
                    .into_iter()
                    .map(|(start, end, text)| Edit { start, end, text: text.into_bytes() })
                    .collect(),
            })
            .collect();
        let named_from = match &op.new_name {
            Some(new_name) => Some(name::rename_introduced(&op.path, place.lang, &place.bytes, &mut files, new_name)?),
            None => None,
        };
        let report = RefactorReport {
            path: op.path.clone(),
            action: chosen.name.clone(),
            title: chosen.title.clone(),
            kind: chosen.kind.clone(),
            server: place.server.clone(),
            edits: files.iter().map(|f| f.edits.len()).sum(),
            named_from,
        };
        let paths = files.iter().map(|f| f.path.clone()).collect();
        *aide_core::sync::lock(&self.asked) = Some((files, report));
        Ok((paths, Vec::new()))
    }

    /// The edit the server gave, by file, and the report; once.
    pub(crate) fn take(&self) -> Result<(Vec<ServerFile>, RefactorReport), AideError> {
        aide_core::sync::lock(&self.asked)
            .take()
            .ok_or_else(|| AideError::internal("a refactor is planned once, after its server was asked"))
    }
}

/// `llm-transform refactor` without an action: what the server offers there.
pub(crate) fn list(root: &Root, args: &RefactorArgs) -> Result<Offered, AideError> {
    let at = [args.line, args.column, args.end_line, args.end_column];
    let place = place(root, &args.path, at, args.checksum_before.as_deref())?;
    let offered = ask_actions(root, &place, &args.path)?;
    Ok(Offered { actions: offered.iter().map(shown).collect(), ..place.shown })
}

impl Offered {
    /// `path:line:column-end_line:end_column`.
    fn place(&self) -> String {
        format!("{}:{}:{}-{}:{}", self.path, self.line, self.column, self.end_line, self.end_column)
    }
}

fn shown(a: &CodeAction) -> OfferedAction {
    OfferedAction { action: a.name.clone(), title: a.title.clone(), kind: a.kind.clone() }
}

fn ask_actions(root: &Root, place: &Place, path: &str) -> Result<Vec<CodeAction>, AideError> {
    actions::code_actions(root, &place.spec, path, place.start, place.end).map_err(|why| {
        TransformError::ServerFailed {
            server: place.server.clone(),
            doing: "list its code actions",
            why: why.to_string(),
        }
        .into()
    })
}

/// The one action the operation names (and its title, if given).
fn choose<'a>(offered: &'a [CodeAction], op: &RefactorOp, place: &Place) -> Result<&'a CodeAction, AideError> {
    let named: Vec<&CodeAction> =
        offered.iter().filter(|a| a.name == op.action && op.title.as_ref().is_none_or(|t| *t == a.title)).collect();
    match named.as_slice() {
        [one] => Ok(one),
        many => Err(TransformError::NotOffered {
            server: place.server.clone(),
            action: op.action.clone(),
            title: op.title.clone(),
            several: !many.is_empty(),
            place: place.shown.place(),
            offered: offered.iter().map(shown).collect(),
        }
        .into()),
    }
}

/// The file's server, and the place as byte offsets of its content now
/// (`checksum_before`, if given, must be its checksum).
fn place(root: &Root, path: &str, at: [Option<usize>; 4], checksum_before: Option<&str>) -> Result<Place, AideError> {
    let Some(lang) = Lang::from_path(Path::new(path)) else {
        return Err(TransformError::RefactorLanguage { path: path.to_string() }.into());
    };
    let Some(spec) = lsp::server_for(lang) else {
        return Err(TransformError::ServerUnavailable {
            path: path.to_string(),
            variable: lsp::env_name(lang),
            why: lsp::why_no_server(lang),
        }
        .into());
    };
    let bytes = root.read(Path::new(path)).map_err(|e| e.into_error(path))?;
    let checksum = sha256_hex(&bytes);
    if let Some(expected) = checksum_before
        && !aide_core::checksum::names(expected, &checksum)
    {
        let mismatch = TransformError::ChecksumMismatch {
            path: path.to_string(),
            expected: expected.to_string(),
            current: Some(checksum),
        };
        return Err(mismatch.into());
    }
    let index = LineIndex::new(&bytes);
    let [line, column, end_line, end_column] = at;
    let line = line.unwrap_or(1);
    let column = column.unwrap_or(1);
    let end_line = end_line.unwrap_or(line);
    let bad = |what: String| TransformError::InvalidRange { path: path.to_string(), what };
    let end_column = match end_column {
        Some(c) => c,
        None => {
            let Some(range) = index.line_content_range(&bytes, end_line) else {
                return Err(bad(format!("it has no line {end_line}")).into());
            };
            index.position(&bytes, range.end).column
        }
    };
    let offset = |line: usize, column: usize| -> Result<usize, AideError> {
        index
            .offset(&bytes, Position { line, column })
            .ok_or_else(|| bad(format!("it has no line {line}, column {column}")).into())
    };
    let (start, end) = (offset(line, column)?, offset(end_line, end_column)?);
    if end < start {
        return Err(bad(format!("{end_line}:{end_column} is before {line}:{column}")).into());
    }
    let server = spec
        .argv
        .first()
        .map(Path::new)
        .and_then(|p| p.file_name())
        .map_or_else(|| "the language server".to_string(), |n| n.to_string_lossy().into_owned());
    let shown = Offered {
        path: path.to_string(),
        checksum: checksum.clone(),
        line,
        column,
        end_line,
        end_column,
        server: server.clone(),
        actions: Vec::new(),
    };
    Ok(Place { spec, server, checksum, lang, bytes, start, end, shown })
}

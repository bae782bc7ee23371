//! A language server as a second engine: where the syntax engine can only
//! say a site is spelled like the symbol (`unresolved`), the project's own
//! server knows its type. The definition is still found by the syntax
//! engine (a name is not a position); the server is asked about that
//! position (its references, callers, implementations, hover, a
//! rename), and each place it gives becomes aide's record (span, line
//! text, enclosing symbol, checksum), `resolved` by the server.
//!
//! The server is the language's usual one found on PATH (or the command in
//! `AIDE_LSP_<LANGUAGE>`, e.g. `AIDE_LSP_PYTHON="basedpyright-langserver
//! --stdio"`), kept warm per root and command (see [`keeper`]) and told of
//! every change on disk before each question (see [`warm`]), asked only
//! once it has loaded its project (see [`ready`]), and its answer checked
//! against the syntax engine's before it is taken (see [`whole`]).

pub mod actions;
pub mod calls;
pub mod client;
pub mod keeper;
pub mod ready;
pub mod server;
pub mod warm;
pub mod whole;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use aide_core::{LineIndex, Root};
use serde_json::{Value, json};

pub use client::LspFailure;
pub use keeper::{keep_servers, release_servers};
pub use server::{CodeEngine, LSP_TIMEOUT, ServerSpec, env_name, ready_timeout, server_for, why_no_server};

/// A place a server named: a file of the root and a byte span in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Relative to the root.
    pub path: String,
    pub start: usize,
    pub end: usize,
}

/// The `textDocument` and `position` of `byte` in `path` (relative to the
/// root), and the file's absolute path (to be opened first).
fn position(root: &Root, path: &str, byte: usize) -> Result<(Value, PathBuf), LspFailure> {
    let abs = root.path().join(path);
    let text = root.read(Path::new(path)).map_err(|e| LspFailure::Start(e.into_error(path).message.into()))?;
    let index = LineIndex::new(&text);
    let line = index.line_of(byte);
    let line_start = index.line_range(line).map_or(0, |r| r.start);
    let character = aide_core::span::byte_to_utf16(&text[line_start..], byte.saturating_sub(line_start));
    let params = json!({
        "textDocument": { "uri": client::file_uri(&abs) },
        "position": { "line": line - 1, "character": character },
    });
    Ok((params, abs))
}

/// Asks `method` about the place `byte` of `path`, `extra` merged into the params.
fn ask_at(
    root: &Root,
    spec: &ServerSpec,
    method: &'static str,
    path: &str,
    byte: usize,
    extra: Value,
) -> Result<Value, LspFailure> {
    let (mut params, abs) = position(root, path, byte)?;
    if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
        params.extend(extra);
    }
    keeper::ask(root, spec, method, params, &[abs])
}

/// Files of the root read once for a conversion of places, with their line index.
#[derive(Default)]
struct Files(HashMap<PathBuf, Option<(Vec<u8>, LineIndex)>>);

impl Files {
    /// The place a `file://` URI and an LSP range name, as a file of the
    /// root and a byte span; None outside the root or past its text.
    fn locate(&mut self, root: &Root, uri: &str, range: &Value) -> Option<Located> {
        let file = client::uri_path(uri)?;
        let rel = file.strip_prefix(root.path()).ok().map(aide_core::root::to_slash)?;
        let (bytes, index) = self
            .0
            .entry(file.clone())
            .or_insert_with(|| {
                root.read(&file).ok().map(|b| {
                    let i = LineIndex::new(&b);
                    (b, i)
                })
            })
            .as_ref()?;
        let offset = |key: &str| -> Option<usize> {
            let position = range.get(key)?;
            let line = position.get("line")?.as_u64()? as usize + 1;
            let character = position.get("character")?.as_u64()? as usize;
            let range = index.line_range(line)?;
            aide_core::span::utf16_to_byte(&bytes[range.clone()], character).map(|o| range.start + o)
        };
        Some(Located { path: rel, start: offset("start")?, end: offset("end")? })
    }
}

/// The places of an answer that is a `Location`, a list of them, or a list
/// of `LocationLink`s (their target's selection), sorted, inside the root only.
fn locations(root: &Root, answer: &Value) -> Vec<Located> {
    let mut files = Files::default();
    let items = match answer {
        Value::Array(items) => items.iter().collect(),
        Value::Object(_) => vec![answer],
        _ => Vec::new(),
    };
    let mut out: Vec<Located> = items
        .into_iter()
        .filter_map(|item| {
            let (uri, range) = match item.get("targetUri") {
                Some(uri) => (uri, item.get("targetSelectionRange").or_else(|| item.get("targetRange"))?),
                None => (item.get("uri")?, item.get("range")?),
            };
            files.locate(root, uri.as_str()?, range)
        })
        .collect();
    // Sorted on every field `dedup` compares, so equal places are adjacent.
    out.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.start, &b.path, b.start).then(a.end.cmp(&b.end)));
    out.dedup();
    out
}

/// The references the server gives for the symbol whose name is at
/// `byte` of `path` (relative to the root); with `include_declaration`,
/// its definition too. Places outside the root are left out.
pub fn references(
    root: &Root,
    spec: &ServerSpec,
    path: &str,
    byte: usize,
    include_declaration: bool,
) -> Result<Vec<Located>, LspFailure> {
    let extra = json!({ "context": { "includeDeclaration": include_declaration } });
    let answer = ask_at(root, spec, "textDocument/references", path, byte, extra)?;
    Ok(locations(root, &answer))
}

/// Where the server says the symbol used at `byte` of `path` is defined.
pub fn definition(root: &Root, spec: &ServerSpec, path: &str, byte: usize) -> Result<Vec<Located>, LspFailure> {
    let answer = ask_at(root, spec, "textDocument/definition", path, byte, json!({}))?;
    Ok(locations(root, &answer))
}

/// The implementations the server gives for the symbol whose name is at
/// `byte` of `path`: of an interface, trait or abstract method, the types
/// and methods that implement it.
pub fn implementations(root: &Root, spec: &ServerSpec, path: &str, byte: usize) -> Result<Vec<Located>, LspFailure> {
    let answer = ask_at(root, spec, "textDocument/implementation", path, byte, json!({}))?;
    Ok(locations(root, &answer))
}

/// What the server shows on hovering `byte` of `path`: its text (type,
/// signature, documentation), markdown or plain as the server gave it.
pub fn hover(root: &Root, spec: &ServerSpec, path: &str, byte: usize) -> Result<Option<String>, LspFailure> {
    let answer = ask_at(root, spec, "textDocument/hover", path, byte, json!({}))?;
    Ok(hover_text(answer.get("contents").unwrap_or(&Value::Null)))
}

/// The text of hover `contents`: a string, a `MarkedString`, a list of
/// them, or `MarkupContent`.
fn hover_text(contents: &Value) -> Option<String> {
    let text = match contents {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().filter_map(hover_text).collect::<Vec<_>>().join("\n\n"),
        Value::Object(o) => match (o.get("language").and_then(Value::as_str), o.get("value").and_then(Value::as_str)) {
            (Some(language), Some(value)) => format!("```{language}\n{value}\n```"),
            (None, Some(value)) => value.to_string(),
            _ => return None,
        },
        _ => return None,
    };
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// One file's edits of a rename or a code action: byte spans of the file
/// as it is now and their new text, sorted, none overlapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    /// Relative to the root.
    pub path: String,
    pub edits: Vec<(usize, usize, String)>,
    /// SHA-256 of the bytes the spans are offsets into.
    pub checksum: String,
}

/// The edits the server gives for renaming the symbol whose name is at
/// `byte` of `path` to `new_name`. A rename the server would make outside
/// the root, or with files created, renamed or deleted, is an error: aide
/// applies all of a rename or none of it.
pub fn rename(
    root: &Root,
    spec: &ServerSpec,
    path: &str,
    byte: usize,
    new_name: &str,
) -> Result<Vec<FileEdits>, LspFailure> {
    let answer = ask_at(root, spec, "textDocument/rename", path, byte, json!({ "newName": new_name }))?;
    workspace_edits(root, &[&answer])
}

/// The text edits of `WorkspaceEdit`s (their `changes`, or their
/// `documentChanges` of text documents), by file. Edits that would create,
/// rename or delete a file, leave the root, or overlap refuse them all.
fn workspace_edits(root: &Root, answers: &[&Value]) -> Result<Vec<FileEdits>, LspFailure> {
    let mut by_file: Vec<(String, &Value)> = Vec::new();
    for answer in answers {
        if let Some(changes) = answer.get("changes").and_then(Value::as_object) {
            by_file.extend(changes.iter().map(|(uri, edits)| (uri.clone(), edits)));
        }
        for change in answer.get("documentChanges").and_then(Value::as_array).into_iter().flatten() {
            match (change.pointer("/textDocument/uri").and_then(Value::as_str), change.get("edits")) {
                (Some(uri), Some(edits)) => by_file.push((uri.to_string(), edits)),
                _ => {
                    let kind = change.get("kind").and_then(Value::as_str).unwrap_or("an unknown change");
                    return Err(LspFailure::Error(format!("the edit would {kind} a file, which aide does not apply")));
                }
            }
        }
    }
    let mut files = Files::default();
    let mut out: Vec<FileEdits> = Vec::new();
    for (uri, edits) in by_file {
        let mut file_edits = Vec::new();
        for edit in edits.as_array().into_iter().flatten() {
            let new_text = edit.get("newText").and_then(Value::as_str).unwrap_or_default();
            let range = edit.get("range").unwrap_or(&Value::Null);
            let Some(place) = files.locate(root, &uri, range) else {
                let shown = client::uri_path(&uri).map_or(uri.clone(), |p| p.display().to_string());
                return Err(LspFailure::Error(format!(
                    "the edit would change {shown}, outside the root or past its end"
                )));
            };
            file_edits.push((place.path, place.start, place.end, new_text.to_string()));
        }
        for (path, start, end, text) in file_edits {
            match out.iter_mut().find(|f| f.path == path) {
                Some(f) => f.edits.push((start, end, text)),
                None => {
                    let read = client::uri_path(&uri).and_then(|abs| files.0.get(&abs).and_then(Option::as_ref));
                    let checksum = read.map(|(bytes, _)| aide_core::checksum::sha256_hex(bytes)).unwrap_or_default();
                    out.push(FileEdits { path, edits: vec![(start, end, text)], checksum })
                }
            }
        }
    }
    for file in &mut out {
        // In place order, inserts at one point kept in the order given (LSP's
        // rule) and made one; a replacement given twice is one.
        file.edits.sort_by_key(|(start, end, _)| (*start, *end));
        file.edits.dedup_by(|b, a| a.0 < a.1 && a == b);
        file.edits.dedup_by(|b, a| {
            let one_point = a.0 == a.1 && b.0 == b.1 && a.0 == b.0;
            if one_point {
                a.2.push_str(&b.2);
            }
            one_point
        });
        if file.edits.windows(2).any(|w| w[0].1 > w[1].0) {
            return Err(LspFailure::Error(format!("the edits of {} overlap", file.path)));
        }
    }
    out.sort_by(|a, b| aide_core::ordering::cmp_path(&a.path, &b.path));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hover_contents_of_every_shape_become_text() {
        assert_eq!(hover_text(&json!("plain")).as_deref(), Some("plain"));
        assert_eq!(hover_text(&json!({"kind": "markdown", "value": "**x**"})).as_deref(), Some("**x**"));
        assert_eq!(
            hover_text(&json!([{"language": "python", "value": "def f()"}, "doc"])).as_deref(),
            Some("```python\ndef f()\n```\n\ndoc")
        );
        assert_eq!(hover_text(&json!("  ")), None);
        assert_eq!(hover_text(&Value::Null), None);
    }

    #[test]
    fn a_rename_creating_or_leaving_the_root_is_refused_whole() {
        let dir = aide_core::fsutil::TempDir::new("lsp-edits").unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\nprint(x)\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let uri = client::file_uri(&root.path().join("a.py"));
        let range =
            |l: u32, c: u32| json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 1}});
        let edits = workspace_edits(
            &root,
            &[&json!({"changes": {uri.clone(): [{"range": range(1, 6), "newText": "y"}, {"range": range(0, 0), "newText": "y"}]}})],
        )
        .unwrap();
        assert_eq!(
            edits,
            vec![FileEdits {
                path: "a.py".into(),
                edits: vec![(0, 1, "y".into()), (12, 13, "y".into())],
                checksum: aide_core::checksum::sha256_hex(b"x = 1\nprint(x)\n"),
            }]
        );
        let outside = json!({"changes": {"file:///etc/passwd": [{"range": range(0, 0), "newText": "y"}]}});
        assert!(matches!(workspace_edits(&root, &[&outside]), Err(LspFailure::Error(_))));
        let create = json!({"documentChanges": [{"kind": "create", "uri": uri}]});
        assert!(matches!(workspace_edits(&root, &[&create]), Err(LspFailure::Error(_))));
    }
}

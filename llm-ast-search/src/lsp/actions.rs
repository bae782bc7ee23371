//! Code actions: what a server offers to do at a range of a file (its
//! refactors: extract a variable or a function, inline, organise imports),
//! and the edit one makes, as byte spans of the files it changes. Nothing
//! is written here: llm-transform applies the edit through its guarded,
//! undoable commit.
//!
//! An action is named by what it does, in the same words whatever the
//! server: clangd's tweak id (`ExtractVariable` is `extract_variable`),
//! else the kind the server gives it where the kind says what it does
//! (`refactor.extract.function` is `extract_function`, `refactor.inline`
//! `inline`, `source.organizeImports` `organize_imports`), else its
//! title's words. A command a server documents for a whole file but does
//! not offer as a code action (pyright's `pyright.organizeimports`) is
//! offered too.
//!
//! Its edit is the action's own `edit`, the one resolving it gives
//! (`codeAction/resolve`), or the one its command sends back as
//! `workspace/applyEdit` once executed (see [`super::client`]).

use std::path::{Path, PathBuf};

use aide_core::{LineIndex, Root};
use serde_json::{Value, json};

use super::client::{self, EXECUTE_COMMAND, LspFailure};
use super::server::ServerSpec;
use super::{FileEdits, keeper, workspace_edits};

/// One action a server offers.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeAction {
    /// What it does, in aide's words (see the module).
    pub name: String,
    /// The server's title.
    pub title: String,
    /// The server's kind, if it gave one.
    pub kind: Option<String>,
    /// As the server gave it: sent back to resolve or execute it.
    raw: Value,
}

/// The actions the server offers for the range `start..end` (bytes) of
/// `path` (relative to the root), in the server's order, then the
/// whole-file commands it documents.
pub fn code_actions(
    root: &Root,
    spec: &ServerSpec,
    path: &str,
    start: usize,
    end: usize,
) -> Result<Vec<CodeAction>, LspFailure> {
    let abs = root.path().join(path);
    let text = root.read(Path::new(path)).map_err(|e| LspFailure::Start(e.into_error(path).message.into()))?;
    let index = LineIndex::new(&text);
    let params = json!({
        "textDocument": { "uri": client::file_uri(&abs) },
        "range": { "start": position(&text, &index, start), "end": position(&text, &index, end) },
        "context": { "diagnostics": [], "triggerKind": 1 },
    });
    let answer = keeper::ask(root, spec, "textDocument/codeAction", params, std::slice::from_ref(&abs))?;
    let mut actions: Vec<CodeAction> = answer.as_array().into_iter().flatten().filter_map(offered).collect();
    for command in file_commands(spec, &abs) {
        if !actions.iter().any(|a| a.name == command.name) {
            actions.push(command);
        }
    }
    Ok(actions)
}

/// The edit `action` (one [`code_actions`] gave for `path`) makes, by
/// file. An action that makes none, or one aide does not apply (a file
/// created, renamed or deleted; a file outside the root), is an error.
pub fn edit_of(root: &Root, spec: &ServerSpec, path: &str, action: &CodeAction) -> Result<Vec<FileEdits>, LspFailure> {
    let open: [PathBuf; 1] = [root.path().join(path)];
    let mut action = action.raw.clone();
    let is_command = action.get("command").is_some_and(Value::is_string);
    if !is_command && action.get("edit").is_none() && action.get("command").is_none() && action.get("data").is_some() {
        action = keeper::ask(root, spec, "codeAction/resolve", action, &open)?;
    }
    let mut edits: Vec<Value> = action.get("edit").cloned().into_iter().collect();
    let command = if is_command { Some(&action) } else { action.get("command") };
    if let Some(command) = command {
        let params = json!({
            "command": command.get("command").cloned().unwrap_or(Value::Null),
            "arguments": command.get("arguments").cloned().unwrap_or_else(|| json!([])),
        });
        let answer = keeper::ask(root, spec, EXECUTE_COMMAND, params, &open)?;
        let sent: Vec<Value> = answer.get("edits").and_then(Value::as_array).cloned().unwrap_or_default();
        let result = answer.get("result").filter(|r| is_workspace_edit(r));
        match (sent.is_empty(), result) {
            (false, _) => edits.extend(sent),
            (true, Some(result)) => edits.push(result.clone()),
            (true, None) => {}
        }
    }
    let edits: Vec<&Value> = edits.iter().filter(|e| is_workspace_edit(e)).collect();
    if edits.is_empty() {
        return Err(LspFailure::Error("the action made no edit".into()));
    }
    workspace_edits(root, &edits)
}

/// Whether `value` is a `WorkspaceEdit` (its `changes` or `documentChanges`).
fn is_workspace_edit(value: &Value) -> bool {
    value.get("changes").is_some() || value.get("documentChanges").is_some()
}

/// An item of a `textDocument/codeAction` answer (a `CodeAction` or a
/// `Command`) as aide names it; None for one with no title.
fn offered(item: &Value) -> Option<CodeAction> {
    let title = item.get("title").and_then(Value::as_str)?.to_string();
    let kind = item.get("kind").and_then(Value::as_str).map(str::to_string);
    let tweak = item
        .pointer("/command/arguments/0/tweakID")
        .or_else(|| item.pointer("/arguments/0/tweakID"))
        .and_then(Value::as_str);
    let name = match tweak {
        Some(id) => snake(id),
        None => kind.as_deref().and_then(name_of_kind).unwrap_or_else(|| snake(&title)),
    };
    Some(CodeAction { name, title, kind, raw: item.clone() })
}

/// The name a kind gives, where it says what the action does:
/// `refactor.extract.function` → `extract_function`, `refactor.inline` →
/// `inline`, `source.organizeImports` → `organize_imports`; None for a
/// kind as wide as `refactor`, `refactor.extract` or `quickfix`.
fn name_of_kind(kind: &str) -> Option<String> {
    let parts: Vec<&str> = kind.split('.').filter(|p| !p.is_empty()).collect();
    let named = match parts.as_slice() {
        ["refactor", "inline", ..] | ["refactor", _, _, ..] | ["source", _, ..] => &parts[1..],
        _ => return None,
    };
    Some(snake(&named.join("_")))
}

/// Words in snake case: `ExtractVariable`, `organizeImports`, `Extract to
/// function` → `extract_variable`, `organize_imports`, `extract_to_function`.
fn snake(text: &str) -> String {
    let mut out = String::new();
    let mut last: Option<char> = None;
    for c in text.chars() {
        if c.is_alphanumeric() {
            let starts_word = c.is_uppercase() && last.is_some_and(|l| l.is_lowercase() || l.is_ascii_digit());
            if starts_word || (last.is_none() && !out.is_empty()) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
            last = Some(c);
        } else {
            last = None;
        }
    }
    out
}

/// The whole-file commands `spec`'s server documents and does not offer
/// as code actions: pyright's organise imports (`pyright.organizeimports`,
/// its file's URI as argument; basedpyright keeps the command).
fn file_commands(spec: &ServerSpec, abs: &Path) -> Vec<CodeAction> {
    let programs = spec.argv.iter().map(|a| Path::new(a).file_name().and_then(|n| n.to_str()).unwrap_or(a));
    if !programs.into_iter().any(|p| p.contains("pyright")) {
        return Vec::new();
    }
    let title = "Organize Imports";
    let raw = json!({ "title": title, "command": "pyright.organizeimports", "arguments": [client::file_uri(abs)] });
    vec![CodeAction {
        name: "organize_imports".into(),
        title: title.into(),
        kind: Some("source.organizeImports".into()),
        raw,
    }]
}

/// The LSP position (UTF-16 character) of `byte` in `text`.
fn position(text: &[u8], index: &LineIndex, byte: usize) -> Value {
    let line = index.line_of(byte);
    let line_start = index.line_range(line).map_or(0, |r| r.start);
    let character = aide_core::span::byte_to_utf16(&text[line_start..], byte.saturating_sub(line_start));
    json!({ "line": line - 1, "character": character })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_named_by_tweak_kind_or_title() {
        let clangd = json!({"title": "Extract subexpression to variable", "kind": "refactor",
            "command": {"command": "clangd.applyTweak", "title": "x", "arguments": [{"tweakID": "ExtractVariable"}]}});
        assert_eq!(offered(&clangd).unwrap().name, "extract_variable");
        let bare = json!({"title": "x", "command": "clangd.applyTweak", "arguments": [{"tweakID": "ExpandMacro"}]});
        assert_eq!(offered(&bare).unwrap().name, "expand_macro");
        for (kind, name) in [
            ("refactor.extract.function", "extract_function"),
            ("refactor.inline", "inline"),
            ("refactor.inline.variable", "inline_variable"),
            ("source.organizeImports", "organize_imports"),
        ] {
            assert_eq!(offered(&json!({"title": "t", "kind": kind})).unwrap().name, name);
        }
        assert_eq!(
            offered(&json!({"title": "Extract into function", "kind": "refactor.extract"})).unwrap().name,
            "extract_into_function"
        );
        assert_eq!(offered(&json!({"title": "Add `#include <x>`", "kind": "quickfix"})).unwrap().name, "add_include_x");
        assert_eq!(offered(&json!({"kind": "quickfix"})), None);
        assert_eq!(snake("HTTPServer2Go"), "httpserver2_go");
    }

    #[test]
    fn pyright_offers_organise_imports_as_a_command() {
        let spec =
            ServerSpec { argv: vec!["/x/pyright-langserver".into(), "--stdio".into()], lang: aide_core::Lang::Python };
        let offered = file_commands(&spec, Path::new("/r/a.py"));
        assert_eq!(offered.len(), 1);
        assert_eq!(offered[0].raw["arguments"][0], "file:///r/a.py");
        let clangd = ServerSpec { argv: vec!["clangd".into()], lang: aide_core::Lang::Cpp };
        assert!(file_commands(&clangd, Path::new("/r/a.cpp")).is_empty());
    }
}

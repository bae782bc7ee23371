//! A language server as a second engine for references: where the syntax
//! engine can only say a site is spelled like the symbol (`unresolved`),
//! the project's own server knows its type. The definition is still found
//! by the syntax engine (a name is not a position); the server is asked for
//! the references of that position, and each location it gives becomes
//! aide's record (span, line text, enclosing symbol, checksum) of a use
//! `resolved` by the server.
//!
//! The server is the language's usual one found on PATH (or the command in
//! `AIDE_LSP_<LANGUAGE>`, e.g. `AIDE_LSP_PYTHON="basedpyright-langserver
//! --stdio"`), started for the request and stopped after it.

pub mod client;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use aide_core::{Lang, LineIndex, Root};
use serde_json::json;

pub use client::LspFailure;

/// How long a server may take to start or answer one request.
pub const LSP_TIMEOUT: Duration = Duration::from_secs(60);

/// Which engine answers.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum CodeEngine {
    /// The syntax engine (tree-sitter, scopes and receivers).
    #[default]
    Syntax,
    /// The language's server where one is installed, else the syntax engine.
    Auto,
    /// The language's server; without one, the syntax engine with an `lsp_unavailable` diagnostic.
    Lsp,
}

/// A server for a language: its command line, and the LSP language id.
#[derive(Debug, Clone)]
pub struct ServerSpec {
    pub argv: Vec<String>,
    pub language_id: &'static str,
}

/// The server for `lang`: the command in `AIDE_LSP_<LANG>`, else the first
/// of the usual ones found on PATH.
pub fn server_for(lang: Lang) -> Option<ServerSpec> {
    let (name, language_id, candidates): (&str, &'static str, &[&[&str]]) = match lang {
        Lang::Python => {
            ("PYTHON", "python", &[&["pyright-langserver", "--stdio"], &["basedpyright-langserver", "--stdio"]])
        }
        Lang::TypeScript | Lang::Tsx => ("TYPESCRIPT", "typescript", &[&["typescript-language-server", "--stdio"]]),
        Lang::JavaScript => ("JAVASCRIPT", "javascript", &[&["typescript-language-server", "--stdio"]]),
        Lang::Rust => ("RUST", "rust", &[&["rust-analyzer"]]),
        Lang::Go => ("GO", "go", &[&["gopls"]]),
        Lang::C => ("C", "c", &[&["clangd"]]),
        Lang::Cpp => ("CPP", "cpp", &[&["clangd"]]),
        Lang::Java => ("JAVA", "java", &[&["jdtls"]]),
    };
    if let Some(command) = std::env::var(format!("AIDE_LSP_{name}")).ok().filter(|c| !c.trim().is_empty()) {
        return Some(ServerSpec { argv: command.split_whitespace().map(str::to_string).collect(), language_id });
    }
    candidates
        .iter()
        .find(|argv| on_path(argv[0]))
        .map(|argv| ServerSpec { argv: argv.iter().map(|s| s.to_string()).collect(), language_id })
}

/// Whether `program` is an executable file in a folder of PATH.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Some(path) = std::env::var_os("PATH") else { return false };
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .any(|p| std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// A place a server named: a file of the root and a byte span in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Relative to the root.
    pub path: String,
    pub start: usize,
    pub end: usize,
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
    let abs = root.path().join(path);
    let text = root.read(std::path::Path::new(path)).map_err(|e| LspFailure::Start(e.into_error(path).message))?;
    let mut server = client::Server::start(&spec.argv, root.path(), LSP_TIMEOUT)?;
    server.open(&abs, spec.language_id, &String::from_utf8_lossy(&text))?;
    let index = LineIndex::new(&text);
    let line = index.line_of(byte);
    let line_start = index.line_range(line).map_or(0, |r| r.start);
    let character = aide_core::span::byte_to_utf16(&text[line_start..], byte - line_start);
    let params = json!({
        "textDocument": { "uri": client::file_uri(&abs) },
        "position": { "line": line - 1, "character": character },
        "context": { "includeDeclaration": include_declaration },
    });
    let answer = server.request("textDocument/references", params, LSP_TIMEOUT)?;
    let mut files: HashMap<PathBuf, Option<(Vec<u8>, LineIndex)>> = HashMap::new();
    let mut out = Vec::new();
    for location in answer.as_array().into_iter().flatten() {
        let Some(file) = location.get("uri").and_then(|u| u.as_str()).and_then(client::uri_path) else { continue };
        let Some(rel) = file.strip_prefix(root.path()).ok().map(aide_core::root::to_slash) else { continue };
        let Some((bytes, index)) = files
            .entry(file.clone())
            .or_insert_with(|| {
                root.read(&file).ok().map(|b| {
                    let i = LineIndex::new(&b);
                    (b, i)
                })
            })
            .as_ref()
        else {
            continue;
        };
        let offset = |key: &str| -> Option<usize> {
            let position = location.pointer(&format!("/range/{key}"))?;
            let line = position.get("line")?.as_u64()? as usize + 1;
            let character = position.get("character")?.as_u64()? as usize;
            let range = index.line_range(line)?;
            aide_core::span::utf16_to_byte(&bytes[range.clone()], character).map(|o| range.start + o)
        };
        if let (Some(start), Some(end)) = (offset("start"), offset("end")) {
            out.push(Located { path: rel, start, end });
        }
    }
    out.sort_by(|a, b| (a.path.as_bytes(), a.start).cmp(&(b.path.as_bytes(), b.start)));
    out.dedup();
    Ok(out)
}

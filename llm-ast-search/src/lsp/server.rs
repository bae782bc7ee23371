//! Which server answers: the engines a request may choose, and the
//! language's server command (found on PATH, or configured).

use std::time::Duration;

use aide_core::Lang;

/// How long a server may take to start or answer one request.
pub const LSP_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a question waits for its server to load the project:
/// `AIDE_LSP_READY_TIMEOUT` seconds, else [`LSP_TIMEOUT`]. A server not
/// ready by then is not asked (`lsp_failed`; it is kept, and loads on).
pub fn ready_timeout() -> Duration {
    std::env::var("AIDE_LSP_READY_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map_or(LSP_TIMEOUT, Duration::from_secs)
}

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
    /// The language's server where one is installed, else the syntax engine with an `lsp_unavailable` diagnostic.
    Auto,
    /// The language's server; without one, the syntax engine with an `lsp_unavailable` diagnostic.
    Lsp,
}

/// A server: its command line, and the language it was chosen for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerSpec {
    pub argv: Vec<String>,
    pub lang: Lang,
}

impl ServerSpec {
    /// The languages whose files the server reads (one server serves
    /// TypeScript and JavaScript, one C and C++).
    pub fn family(&self) -> &'static [Lang] {
        match self.lang {
            Lang::Python => &[Lang::Python],
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &[Lang::TypeScript, Lang::Tsx, Lang::JavaScript],
            Lang::Rust => &[Lang::Rust],
            Lang::Go => &[Lang::Go],
            Lang::C | Lang::Cpp => &[Lang::C, Lang::Cpp],
            Lang::Java => &[Lang::Java],
        }
    }
}

/// The environment variable naming the server of `lang`: `AIDE_LSP_PYTHON`, ….
pub fn env_name(lang: Lang) -> String {
    let name = match lang {
        Lang::Tsx => "TYPESCRIPT",
        other => other.name(),
    };
    format!("AIDE_LSP_{}", name.to_uppercase())
}

/// The usual servers of `lang`, each a command line, in the order looked for.
fn candidates(lang: Lang) -> &'static [&'static [&'static str]] {
    match lang {
        Lang::Python => &[&["pyright-langserver", "--stdio"], &["basedpyright-langserver", "--stdio"]],
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => &[&["typescript-language-server", "--stdio"]],
        Lang::Rust => &[&["rust-analyzer"]],
        Lang::Go => &[&["gopls"]],
        Lang::C | Lang::Cpp => &[&["clangd"]],
        Lang::Java => &[&["jdtls"]],
    }
}

/// The command `AIDE_LSP_<LANG>` names for `lang`, if set.
fn configured(lang: Lang) -> Option<String> {
    std::env::var(env_name(lang)).ok().filter(|c| !c.trim().is_empty())
}

/// Why `lang` has no server ([`server_for`] found none), for the
/// `lsp_unavailable` diagnostic: the configured command that is not
/// found, or the servers looked for on PATH.
pub fn why_no_server(lang: Lang) -> String {
    if let Some(command) = configured(lang) {
        let program = command.split_whitespace().next().unwrap_or_default();
        return format!("{} names {program}, which is not found", env_name(lang));
    }
    let names: Vec<&str> = candidates(lang).iter().map(|argv| argv[0]).collect();
    format!("no {lang} language server is installed ({} on PATH)", names.join(" or "))
}

/// The server for `lang`: the command in `AIDE_LSP_<LANG>`, else the first
/// of the usual ones found on PATH.
pub fn server_for(lang: Lang) -> Option<ServerSpec> {
    let candidates = candidates(lang);
    if let Some(command) = configured(lang) {
        // The server named there, or none: a command that is not found is
        // no server (said as lsp_unavailable), not a failing one.
        let argv: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        let found = std::path::Path::new(&argv[0]).is_file() || aide_gate::program::on_path(&argv[0]).is_some();
        return found.then_some(ServerSpec { argv, lang });
    }
    candidates
        .iter()
        .find(|argv| aide_gate::program::on_path(argv[0]).is_some())
        .map(|argv| ServerSpec { argv: argv.iter().map(|s| s.to_string()).collect(), lang })
}

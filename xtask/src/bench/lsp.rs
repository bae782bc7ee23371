//! The cost of asking a language server (pyright) for references against
//! the syntax engine, on flask: the issue's own example, a method name
//! (`add_url_rule`) defined four times, where the syntax engine lists every
//! call it cannot judge and the server keeps the two that are the method's.
//! Cold: a server started for the question (`AIDE_LSP_KEEP=0`); warm: the
//! root's keeper answering (started by the warm-up runs).

use super::{Cmd, Report, case, fresh_home, release_binary, write_report};
use crate::Result;

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let on_path = |program: &str| {
        std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
    };
    if !on_path("pyright-langserver") {
        return Err("`pyright-langserver` is needed for this benchmark: npm install -g pyright".into());
    }
    let ours = release_binary("llm-ast-search", "llm-ast-search")?;
    let corpus = crate::corpus::build(false)?;
    let flask = corpus.join("python/flask-3.1.0-py3-none-any");
    let home = fresh_home("lsp")?;
    let (ours_s, home_s) = (ours.display().to_string(), home.display().to_string());
    let name = "BlueprintSetupState/add_url_rule";
    let syntax = [ours_s.as_str(), "--json", "--references", name];
    let lsp = [ours_s.as_str(), "--json", "--references", name, "--engine", "lsp"];
    let cases = vec![case(
        &format!("flask: --references {name}, by the syntax engine and by pyright"),
        vec![
            Cmd::new("syntax engine", &syntax, &flask).env("AIDE_HOME", &home_s),
            Cmd::new("lsp, warm (the root's keeper)", &lsp, &flask)
                .env("AIDE_HOME", &home_s)
                .env("AIDE_LSP_IDLE", "600"),
            Cmd::new("lsp, cold (a server per question)", &lsp, &flask)
                .env("AIDE_HOME", &home_s)
                .env("AIDE_LSP_KEEP", "0"),
        ],
        runs,
        warmup.max(1),
    )?];
    let report = write_report(&Report::new("lsp", runs, warmup, &flask, cases));
    // The keeper goes with the benchmark, not ten minutes later.
    for keeper in std::fs::read_dir(home.join("lsp")).into_iter().flatten().flatten() {
        if let Ok(pid) = std::fs::read_to_string(keeper.path().join("keeper.pid")) {
            let _ = std::process::Command::new("kill").args(["-s", "TERM", pid.trim()]).status();
        }
    }
    report
}

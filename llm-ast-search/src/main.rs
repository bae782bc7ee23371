fn main() {
    // A language server's keeper runs from this same binary, out of sight of the CLI.
    if let Some(status) = llm_ast_search::lsp::keeper::run_internal_command() {
        std::process::exit(status);
    }
    aide_harness::main::<llm_ast_search::LlmAstSearch>()
}

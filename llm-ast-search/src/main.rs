fn main() {
    aide_core::cli::main::<llm_ast_search::LlmAstSearch>()
}

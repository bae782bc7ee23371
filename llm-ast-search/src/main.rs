fn main() {
    aide_harness::main::<llm_ast_search::LlmAstSearch>()
}

fn main() {
    llm_ast_search::parse_with_mimalloc();
    aide_harness::main::<llm_transform::LlmTransform>()
}

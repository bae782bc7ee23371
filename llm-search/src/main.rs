fn main() {
    aide_harness::main::<llm_search::LlmSearch>()
}

fn main() {
    aide_harness::main::<llm_lint::LlmLint>()
}

fn main() {
    aide_harness::main::<llm_read::LlmRead>()
}

fn main() {
    aide_harness::main::<llm_code::LlmCode>()
}

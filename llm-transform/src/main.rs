fn main() {
    aide_harness::main::<llm_transform::LlmTransform>()
}

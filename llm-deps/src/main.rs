fn main() {
    aide_harness::main::<llm_deps::LlmDeps>()
}

fn main() {
    aide_harness::main::<llm_discover::LlmDiscover>()
}

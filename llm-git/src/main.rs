fn main() {
    aide_harness::main::<llm_git::LlmGit>()
}

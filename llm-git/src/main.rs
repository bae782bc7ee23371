fn main() {
    aide_core::cli::main::<llm_git::LlmGit>()
}

fn main() {
    aide_harness::main::<llm_shell::LlmShell>()
}

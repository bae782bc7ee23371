fn main() {
    // A sandboxed command is entered through this same binary, before anything else runs.
    if let Some(status) = aide_gate::sandbox::run_internal_command() {
        std::process::exit(status);
    }
    // A session's keeper runs from this same binary, out of sight of the CLI.
    if let Some(status) = llm_shell::keeper::run_internal_command() {
        std::process::exit(status);
    }
    aide_harness::main::<llm_shell::LlmShell>()
}

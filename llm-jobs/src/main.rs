fn main() {
    // A sandboxed job is entered through this same binary, before anything else runs.
    if let Some(status) = aide_gate::sandbox::run_internal_command() {
        std::process::exit(status);
    }
    // The job supervisor runs from this same binary, out of sight of the CLI.
    if let Some(status) = llm_jobs::supervisor::run_internal_command() {
        std::process::exit(status);
    }
    aide_harness::main::<llm_jobs::LlmJobs>()
}

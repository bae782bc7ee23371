fn main() {
    // The job supervisor runs from this same binary, out of sight of the CLI.
    if let Some(status) = llm_jobs::supervisor::run_internal_command() {
        std::process::exit(status);
    }
    aide_core::cli::main::<llm_jobs::LlmJobs>()
}

fn main() {
    aide_harness::main::<llm_jobs::LlmJobs>()
}

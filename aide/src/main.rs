fn main() {
    // A command run sandboxed by `aide mcp` is entered through this same binary, before anything else runs.
    if let Some(status) = aide_gate::sandbox::run_internal_command() {
        std::process::exit(status);
    }
    aide::main()
}

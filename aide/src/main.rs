fn main() {
    aide_core::cli::main::<aide::Aide>()
}

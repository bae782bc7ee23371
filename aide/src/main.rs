fn main() {
    aide_harness::main::<aide::Aide>()
}

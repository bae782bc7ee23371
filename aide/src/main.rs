fn main() {
    aide::main()
}

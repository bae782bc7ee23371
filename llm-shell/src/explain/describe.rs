//! A one-line description of what a program does with its words.

use super::rules::{base, has_flag};

// Long because: one arm per program (and its subcommands), each its one-line description.
/// A one-line description of what `program` does with `words`.
pub(super) fn describe(program: &str, words: &[String]) -> String {
    let p = base(program);
    let first = words.iter().find(|w| !w.starts_with('-')).map(String::as_str).unwrap_or("");
    let has = |f: &str| words.iter().any(|w| w == f);
    match p {
        "cargo" => match first {
            "test" => format!("Run the Rust tests{}", if has("--release") { " in release mode" } else { "" }),
            "build" => format!("Build the Rust project{}", if has("--release") { " in release mode" } else { "" }),
            "run" => "Build and run the Rust program".into(),
            "check" => "Type-check the Rust project".into(),
            "clippy" => "Lint the Rust project with clippy".into(),
            "fmt" => "Format the Rust code".into(),
            "install" => "Install a Rust binary".into(),
            "bench" => "Run the Rust benchmarks".into(),
            "doc" => "Build the Rust documentation".into(),
            "" => "Run cargo".into(),
            other => format!("Run `cargo {other}`"),
        },
        "git" => match first {
            "status" => "Show the working tree status".into(),
            "diff" => "Show changes".into(),
            "log" => "Show the commit history".into(),
            "add" => "Stage changes".into(),
            "commit" => "Record a commit".into(),
            "push" => "Push commits to a remote".into(),
            "pull" => "Fetch and merge from a remote".into(),
            "fetch" => "Fetch from a remote".into(),
            "checkout" | "switch" => "Switch branches or restore files".into(),
            "reset" => "Reset the current branch".into(),
            "clean" => "Remove untracked files".into(),
            "rebase" => "Rebase commits".into(),
            "merge" => "Merge branches".into(),
            "stash" => "Stash changes".into(),
            "clone" => "Clone a repository".into(),
            other => format!("Run `git {other}`"),
        },
        "npm" | "pnpm" | "yarn" => match first {
            "install" | "i" | "add" => "Install JavaScript dependencies".into(),
            "test" => "Run the JavaScript tests".into(),
            "run" => format!("Run the package script `{}`", words.get(1).map(String::as_str).unwrap_or("")),
            other => format!("Run `{p} {other}`"),
        },
        "pytest" => "Run the Python tests".into(),
        "python" | "python3" if first == "-m" || has("-m") => {
            format!("Run the Python module `{}`", words.iter().skip_while(|w| *w != "-m").nth(1).map_or("", |s| s))
        }
        "python" | "python3" => "Run a Python program".into(),
        "make" => {
            if first.is_empty() {
                "Build the default make target".into()
            } else {
                format!("Build the make target `{first}`")
            }
        }
        "rm" => format!(
            "Delete {}{}",
            if has_flag(words, 'r', "--recursive") || has_flag(words, 'R', "") {
                "files and folders recursively"
            } else {
                "files"
            },
            if has_flag(words, 'f', "--force") { ", without asking" } else { "" }
        ),
        "cp" => "Copy files".into(),
        "mv" => "Move or rename files".into(),
        "mkdir" => "Create folders".into(),
        "touch" => "Create files or update their times".into(),
        "ls" => "List files".into(),
        "cat" => "Print files".into(),
        "head" | "tail" => "Print part of a file or of its input".into(),
        "grep" | "rg" | "ag" => "Search text".into(),
        "find" | "fd" | "fdfind" => "Find files".into(),
        "echo" | "printf" => "Print text".into(),
        "cd" => {
            format!("Change the working directory to {}", if first.is_empty() { "the home directory" } else { first })
        }
        "export" => "Set environment variables".into(),
        "source" | "." => "Run a script in the current shell".into(),
        "sleep" => format!("Wait {first} seconds"),
        "curl" | "wget" => "Transfer data over the network".into(),
        "chmod" => "Change file permissions".into(),
        "chown" => "Change file owners".into(),
        "sudo" => format!("Run `{}` as root", words.iter().find(|w| !w.starts_with('-')).map_or("", |s| s)),
        "docker" | "podman" => format!("Run `{p} {first}`"),
        "tar" => "Create or extract an archive".into(),
        "ssh" => "Open a remote shell".into(),
        "kill" | "pkill" | "killall" => "Signal processes".into(),
        "wc" => "Count lines, words or bytes".into(),
        "sort" => "Sort lines".into(),
        "tee" => "Copy input to files and to the output".into(),
        "true" | ":" => "Do nothing, successfully".into(),
        "false" => "Do nothing, unsuccessfully".into(),
        _ => format!("Run `{p}`"),
    }
}

//! Project tasks, run as `cargo xtask <task>`:
//!
//! * `ci` — what `.ci/run` runs: fmt check, clippy with warnings denied, tests.
//! * `corpus` — builds the benchmark corpus in `target/corpus/`: the crates of
//!   `xtask/corpus/Cargo.lock` vendored, a few PyPI wheels and npm packages, all
//!   at pinned versions; `--kernel` also unpacks Debian's Linux source.
//! * `install` — installs every aide binary with `cargo install`, and its
//!   shell completions and man page where the shells and `man` look.
//! * `bench <tool>` — benchmarks a tool against its anchor tools in one run,
//!   writes `target/bench/<tool>.json` and updates `docs/BENCHMARKS.md`.
// Peak memory of a child needs wait4(2), and installing a package geteuid(2):
// the only unsafe code here.
#![allow(unsafe_code)]
// Benchmarks and CI tasks start the anchor tools and cargo themselves, not through the gate.
#![allow(clippy::disallowed_methods)]

mod bench;
mod corpus;
mod install;

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "xtask", about = "aide project tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// fmt check, clippy (warnings denied), and the test suite.
    Ci,
    /// Build the benchmark corpus in target/corpus/.
    Corpus {
        /// Rebuild even if the corpus exists.
        #[arg(long)]
        force: bool,
        /// Also unpack the Linux kernel's source (Debian's linux-source-6.12)
        /// into target/kernel/, for `cargo xtask bench index`.
        #[arg(long)]
        kernel: bool,
    },
    /// Install every aide binary (cargo install --locked --path), its shell completions and man page.
    Install {
        /// Install root, as cargo install's: binaries in DIR/bin, man pages in DIR/share/man/man1.
        /// Default: $CARGO_INSTALL_ROOT, $CARGO_HOME or ~/.cargo.
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Use the binaries already built in DIR instead of running cargo install (only the
        /// completions and man pages are written).
        #[arg(long, value_name = "DIR")]
        binaries: Option<PathBuf>,
    },
    /// Benchmark a tool against its anchors (mcp-bytes: what a model reads).
    Bench {
        /// The benchmark's name (an unknown one is refused with the list).
        tool: String,
        /// Timed runs per command.
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Untimed warm-up runs per command.
        #[arg(long, default_value_t = 2)]
        warmup: usize,
        /// Measure and compare with the figures recorded in docs/BENCHMARKS.md
        /// instead of rewriting them; fail on a large regression (startup only).
        #[arg(long)]
        check: bool,
    },
}

pub type Result<T> = std::result::Result<T, String>;

fn main() {
    let cli = Cli::parse();
    let result = match cli.task {
        Task::Ci => ci(),
        Task::Corpus { force, kernel } => {
            corpus::build(force).and_then(|_| if kernel { corpus::kernel().map(|_| ()) } else { Ok(()) })
        }
        Task::Install { root, binaries } => install::run(root, binaries),
        Task::Bench { tool, runs, warmup, check: false } => bench::run(&tool, runs, warmup),
        Task::Bench { tool, runs, warmup, check: true } => bench::check(&tool, runs, warmup),
    };
    if let Err(e) = result {
        say(&format!("xtask: error: {e}"));
        std::process::exit(1);
    }
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

/// Progress and results go to stderr/stdout of a developer's terminal.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Runs a command in the workspace, failing on a non-zero exit.
pub fn run(program: &str, args: &[&str]) -> Result<()> {
    say(&format!("$ {program} {}", args.join(" ")));
    let status = Command::new(program)
        .args(args)
        .current_dir(workspace())
        .status()
        .map_err(|e| format!("running {program}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{program} {} failed: {status}", args.join(" "))) }
}

fn ci() -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(&cargo, &["fmt", "--all", "--", "--check"])?;
    run(&cargo, &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    run(&cargo, &["test", "--workspace"])
}

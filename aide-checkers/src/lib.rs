//! # aide-checkers: a project's own checkers, as located findings
//!
//! [`check`] runs the checkers a project already uses — found from its
//! files (`Cargo.toml`, a `[tool.ruff]` section, `tsconfig.json`, `go.mod`,
//! shell scripts, …), each only when its program is installed — plus aide's
//! own tree-sitter syntax check, and reads what each printed in its own
//! format into [`Finding`]s: the file relative to the root, exact byte
//! spans with lines and columns as the contract counts them, severity,
//! the checker's code and message, related places, and the fixes the
//! checker marks machine-applicable as checksum-guarded span edits.
//!
//! A check never writes the project's files: no checker is asked to fix or
//! format (whatever the project's configuration says), one whose
//! configuration makes it write anyway is not run, and one that changes a
//! source file all the same is caught. Each runs as the project configures
//! it (mypy on the files its configuration names). A checker that crashes,
//! times out, prints what cannot be read or writes is listed as `failed`
//! with why and its stderr, its findings left out: a partial list is never
//! given as its whole; the others' findings stand.
//!
//! [`selection`] reads which checkers a request names (llm-lint's
//! `--checker`, llm-transform's `--verify`); [`baseline`] tells which
//! findings are new since an earlier tree; [`revision`] writes out an
//! earlier tree to check. llm-lint is the tool over this crate;
//! llm-transform's `--verify` uses it to undo an edit that makes a checker
//! fail or say more.
//!
//! ## Wire format of a finding
//!
//! `{ "path", "line", "column", "end_line", "end_column", "byte_start",
//! "byte_end", "severity": "error"|"warning"|"info", "code", "message",
//! "checker", "checksum", "related": [{ "path", "line", "column",
//! "byte_start", "byte_end", "message" }], "fixes": [{ "description",
//! "edits": [{ "path", "byte_start", "byte_end", "replacement",
//! "checksum_before" }] }] }`

pub mod baseline;
pub mod checker;
mod config;
mod error;
mod finding;
mod formats;
mod guard;
pub mod revision;
pub mod run;
pub mod selection;
mod syntax;

use std::collections::BTreeSet;
use std::time::Duration;

use aide_core::AideError;
use aide_core::root::Root;
use aide_core::tool::Context;
use aide_core::walk::{WalkArgs, Walker};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use checker::{CHECKERS, Checker, Project};
pub use error::CheckerError;
pub use finding::{Finding, Fix, FixEdit, Related, Severity};
pub use selection::Selection;

/// Files handed to one run of a checker that takes file names: a command
/// line stays far below the system's limit.
const FILES_PER_RUN: usize = 1000;

/// What to check, and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The checkers to run, as a request gives them (read by
    /// [`selection::parse`]); empty (or `all`): every checker the project
    /// uses that is installed, and `syntax`.
    pub checkers: Vec<String>,
    /// Only these files (relative to the root): given to the checkers that
    /// take file names, and the findings of the others kept to them.
    pub only: Option<BTreeSet<String>>,
    /// Each checker's run is killed (with its process group) after this long.
    pub timeout: Option<Duration>,
}

/// What became of one checker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Ran,
    /// The project uses it but its program is not installed (`reason` says how to install it).
    Unavailable,
    /// None of the files it checks are there (or among `--changed`).
    NoFiles,
    /// It crashed, exited with a status it does not give for findings, ran
    /// past the timeout, printed what cannot be read, or wrote files (or its
    /// configuration would make it): `reason` says which, `stderr_tail` what
    /// it said. None of its findings are given.
    Failed,
}

/// One checker's run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CheckerRun {
    pub checker: String,
    pub status: RunStatus,
    /// The command line it ran (the last one, for a checker given its files in parts).
    pub command: Option<String>,
    /// How it exited (given its files in parts: the first status that was not 0).
    pub exit_code: Option<i32>,
    /// Whether it passed, as the project's own run of it would say: it
    /// exited 0 (go vet and gofmt, whose `-json` and `-l` runs exit 0 either
    /// way: it found nothing). Null when it did not run to a reading.
    pub passed: Option<bool>,
    /// Findings it reported in the root.
    pub findings: usize,
    pub duration_ms: f64,
    /// Why it was chosen: `named`, or what in the project's files says the
    /// project uses it (`Python files, no ruff configuration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The last lines of its stderr, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

impl CheckerRun {
    /// A checker's run with nothing found, run or timed yet.
    fn new(checker: &str, status: RunStatus) -> CheckerRun {
        CheckerRun {
            checker: checker.into(),
            status,
            command: None,
            exit_code: None,
            passed: None,
            findings: 0,
            duration_ms: 0.0,
            chosen: None,
            reason: None,
            stderr_tail: None,
        }
    }

    /// A checker that failed, and why.
    fn failed(checker: &str, reason: String, stderr_tail: String) -> CheckerRun {
        CheckerRun {
            reason: Some(reason),
            stderr_tail: (!stderr_tail.is_empty()).then_some(stderr_tail),
            ..CheckerRun::new(checker, RunStatus::Failed)
        }
    }
}

/// The findings of every checker run, in the contract's order.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub checkers: Vec<CheckerRun>,
    pub findings: Vec<Finding>,
    /// The walk's own diagnostics (unreadable folders, …).
    pub diagnostics: Vec<aide_core::Diagnostic>,
}

impl Checked {
    /// The checkers that failed (their findings are not in the list).
    pub fn failed(&self) -> impl Iterator<Item = &CheckerRun> {
        self.checkers.iter().filter(|c| c.status == RunStatus::Failed)
    }
}

/// The files of the root, as the tools walk it (`.gitignore` honoured).
pub fn project(root: &Root, ctx: &Context) -> Result<(Project, Vec<aide_core::Diagnostic>), AideError> {
    let walker = Walker::new(root, &WalkArgs::default())?.watched(ctx);
    let (mut files, diagnostics) = walker
        .filter_map_parallel(aide_core::walk::default_threads(), || |f: aide_core::walk::WalkedFile| Some(f.rel))?;
    files.sort();
    Ok((Project { files }, diagnostics))
}

/// The checkers `selection` picks, with why: those named, and in auto mode
/// those `project` uses, in the order of [`CHECKERS`].
fn chosen(selection: &Selection, root: &Root, project: &Project) -> Vec<(&'static Checker, &'static str)> {
    CHECKERS
        .iter()
        .filter_map(|c| match selection.names(c) {
            true => Some((c, "named")),
            false => selection.auto.then(|| c.why_used(root.path(), project)).flatten().map(|why| (c, why)),
        })
        .collect()
}

// Long because: the checkers picked, in order: each is run, or listed as unavailable, writing, without files or failed, with its reason.
/// Runs the checkers `options` picks on `root`. A checker that fails is
/// listed as failed (without findings) and the others still run; a named
/// checker that is not installed, an unknown name or a cancellation fail
/// the whole check.
pub fn check(root: &Root, options: &Options, ctx: &Context) -> Result<Checked, AideError> {
    let selection = selection::parse(&options.checkers)?;
    // The walk: which checkers the project uses, the files given by name,
    // the syntax check, and what a checker must not change.
    let (project, diagnostics) = project(root, ctx)?;
    let wanted = |rel: &str| options.only.as_ref().is_none_or(|o| o.contains(rel));
    let mut out = Checked { diagnostics, ..Default::default() };
    // Nothing changed: nothing to check, and no checker run for nothing.
    let nothing = options.only.as_ref().is_some_and(BTreeSet::is_empty);
    let mut guard = guard::Guard::new(root, &project);
    let picked = chosen(&selection, root, &project);
    for &(c, _) in &picked {
        ctx.check_cancel()?;
        if nothing {
            out.checkers.push(CheckerRun::new(c.name, RunStatus::NoFiles));
            continue;
        }
        let Some(program) = c.program(root.path()) else {
            // A named checker must run; one the project's files call for runs when installed.
            if selection.names(c) {
                return Err(CheckerError::Unavailable {
                    checker: c.name.into(),
                    program: c.name.into(),
                    install: c.install,
                }
                .into());
            }
            out.checkers.push(CheckerRun {
                reason: Some(format!("not installed: {}", c.install)),
                ..CheckerRun::new(c.name, RunStatus::Unavailable)
            });
            continue;
        };
        if let Some(why) = c.writes(root.path()) {
            out.checkers.push(CheckerRun::failed(c.name, why, String::new()));
            continue;
        }
        let files: Option<Vec<&String>> = c.files(&project).map(|f| f.into_iter().filter(|f| wanted(f)).collect());
        let parts: Vec<Vec<&String>> = match &files {
            Some(f) if f.is_empty() => {
                out.checkers.push(CheckerRun::new(c.name, RunStatus::NoFiles));
                continue;
            }
            Some(f) => f.chunks(FILES_PER_RUN).map(<[&String]>::to_vec).collect(),
            None => vec![Vec::new()],
        };
        let mut run = CheckerRun::new(c.name, RunStatus::Ran);
        let ran = run_parts(c, &program, root, &parts, options.timeout, ctx, &mut run);
        let changed = guard.changed();
        match ran {
            Ok(found) if changed.is_empty() => {
                let found: Vec<Finding> = found.into_iter().filter(|f| wanted(&f.path)).collect();
                run.findings = found.len();
                out.findings.extend(found);
            }
            Ok(_) => {
                run.status = RunStatus::Failed;
                run.passed = None;
                run.reason = Some(guard::wrote(&changed));
            }
            Err(CheckerError::Failed { why, stderr, .. }) => {
                run.status = RunStatus::Failed;
                run.passed = None;
                run.reason =
                    Some(if changed.is_empty() { why } else { format!("{why}; and {}", guard::wrote(&changed)) });
                run.stderr_tail = (!stderr.is_empty()).then_some(stderr);
            }
            Err(other) => return Err(other.into()),
        }
        out.checkers.push(run);
    }
    if selection.with_syntax() {
        let files: Vec<String> = project
            .files
            .iter()
            .filter(|f| wanted(f) && aide_core::lang::Lang::from_path(std::path::Path::new(f)).is_some())
            .cloned()
            .collect();
        let (run, found) = syntax_run(root, &files, selection.syntax, ctx)?;
        out.checkers.push(run);
        out.findings.extend(found);
    }
    for run in &mut out.checkers {
        if let Some(&(_, why)) = picked.iter().find(|(c, _)| c.name == run.checker) {
            run.chosen = Some(why.to_string());
        }
    }
    finding::sort(&mut out.findings);
    Ok(out)
}

/// The syntax check of `files` (those of a known language), as a checker's
/// run; `named` when the caller asked for it by name.
fn syntax_run(
    root: &Root,
    files: &[String],
    named: bool,
    ctx: &Context,
) -> Result<(CheckerRun, Vec<Finding>), AideError> {
    let started = std::time::Instant::now();
    let found = syntax::check(root, files, ctx)?;
    let run = CheckerRun {
        findings: found.len(),
        passed: (!files.is_empty()).then_some(found.is_empty()),
        duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
        chosen: Some(if named { "named" } else { "every check has it" }.into()),
        ..CheckerRun::new(syntax::NAME, if files.is_empty() { RunStatus::NoFiles } else { RunStatus::Ran })
    };
    Ok((run, found))
}

/// Runs checker `c` on each part of its files (one part of none for a
/// checker that finds its own), recording in `run` how it ran; its
/// findings in the root, or why it failed.
fn run_parts(
    c: &Checker,
    program: &std::path::Path,
    root: &Root,
    parts: &[Vec<&String>],
    timeout: Option<Duration>,
    ctx: &Context,
    run: &mut CheckerRun,
) -> Result<Vec<Finding>, CheckerError> {
    let mut sources = finding::Sources::new(root);
    let mut found = Vec::new();
    for part in parts {
        let command = c.command(program, root.path(), part);
        run.command = Some(command.shown());
        let ran = run::run(c.name, command, timeout, ctx)?;
        run.duration_ms += (ran.duration.as_secs_f64() * 1e6).round() / 1e3;
        if run.exit_code.is_none_or(|code| code == 0) {
            run.exit_code = ran.exit_code;
        }
        let raws = c.read(&ran).map_err(|why| CheckerError::Failed {
            checker: c.name.into(),
            why,
            stderr: run::tail(&ran.stderr),
        })?;
        let passed = ran.exit_code.is_some_and(|code| c.passed(code, raws.len()));
        run.passed = Some(run.passed.unwrap_or(true) && passed);
        found.extend(raws.iter().filter_map(|raw| sources.locate(raw, c.name)));
    }
    Ok(found)
}

/// The findings of `now` that the tree at `before` (checked the same way)
/// did not have, following each file's lines through its changes.
pub fn new_since_tree(now: Vec<Finding>, before: &Checked, before_root: &std::path::Path, root: &Root) -> Vec<Finding> {
    let paths: BTreeSet<&str> = before.findings.iter().map(|f| f.path.as_str()).collect();
    let moves: std::collections::BTreeMap<&str, std::collections::BTreeMap<usize, usize>> = paths
        .into_iter()
        .map(|path| {
            let old = std::fs::read(before_root.join(path)).unwrap_or_default();
            let new = std::fs::read(root.path().join(path)).unwrap_or_default();
            (path, baseline::line_moves(&old, &new))
        })
        .collect();
    baseline::new_since(now, &before.findings, &|path, line| moves.get(path).and_then(|m| m.get(&line).copied()))
}

//! # aide-checkers: a project's own checkers, as located findings
//!
//! [`check`] runs the checkers a project already uses — found from its
//! files (`Cargo.toml`, a `[tool.ruff]` section, `tsconfig.json`, `go.mod`,
//! shell scripts, …), each only when its program is installed — plus aide's
//! own tree-sitter syntax check, and reads what each printed in its own
//! format into [`Finding`]s: the file relative to the root, exact byte
//! spans with lines and columns as the contract counts them, severity,
//! the checker's code and message, related places, and the fixes the
//! checker marks machine-applicable as checksum-guarded span edits. A
//! checker that crashes, times out or prints what cannot be read fails the
//! whole check (`checker_failed`): a partial list is never given as whole.
//!
//! [`baseline`] tells which findings are new since an earlier tree;
//! [`revision`] writes out an earlier tree to check. llm-lint is the tool over
//! this crate; llm-transform's `--verify` uses it to undo an edit that
//! breaks the build.
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
pub mod error;
pub mod finding;
mod formats;
pub mod revision;
pub mod run;
pub mod syntax;

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

/// Files handed to one run of a checker that takes file names: a command
/// line stays far below the system's limit.
const FILES_PER_RUN: usize = 1000;

/// What to check, and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The checkers to run, by name; empty (or `all`): every checker the
    /// project uses that is installed, and `syntax`.
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
}

/// One checker's run.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CheckerRun {
    pub checker: String,
    pub status: RunStatus,
    /// The command line it ran (the last one, for a checker given its files in parts).
    pub command: Option<String>,
    pub exit_code: Option<i32>,
    /// Findings it reported in the root.
    pub findings: usize,
    pub duration_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl CheckerRun {
    /// A checker's run with nothing found, run or timed yet.
    fn new(checker: &str, status: RunStatus) -> CheckerRun {
        CheckerRun {
            checker: checker.into(),
            status,
            command: None,
            exit_code: None,
            findings: 0,
            duration_ms: 0.0,
            reason: None,
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

/// The files of the root, as the tools walk it (`.gitignore` honoured).
pub fn project(root: &Root, ctx: &Context) -> Result<(Project, Vec<aide_core::Diagnostic>), AideError> {
    let walker = Walker::new(root, &WalkArgs::default())?.watched(ctx);
    let (mut files, diagnostics) = walker
        .filter_map_parallel(aide_core::walk::default_threads(), || |f: aide_core::walk::WalkedFile| Some(f.rel))?;
    files.sort();
    Ok((Project { files }, diagnostics))
}

/// The checkers `names` picks (empty or `all`: the ones `project` uses),
/// and whether `syntax` runs; an unknown name is an error.
fn chosen(names: &[String], root: &Root, project: &Project) -> Result<(Vec<&'static Checker>, bool), AideError> {
    let auto = names.is_empty() || names.iter().any(|n| n == "all");
    let mut picked = Vec::new();
    let mut syntax = auto;
    for name in names.iter().filter(|n| *n != "all") {
        if name == syntax::NAME {
            syntax = true;
            continue;
        }
        let c = checker::named(name)
            .ok_or_else(|| CheckerError::Unknown { name: name.clone(), known: checker::names() })?;
        if !picked.contains(&c) {
            picked.push(c);
        }
    }
    if auto {
        for c in CHECKERS.iter().filter(|c| c.used_by(root.path(), project)) {
            if !picked.contains(&c) {
                picked.push(c);
            }
        }
    }
    picked.sort_by_key(|c| CHECKERS.iter().position(|k| k == *c));
    Ok((picked, syntax))
}

/// Runs the checkers `options` picks on `root`.
pub fn check(root: &Root, options: &Options, ctx: &Context) -> Result<Checked, AideError> {
    // The walk only where something needs the files: finding the checkers
    // a project uses, a checker given its files by name, or the syntax check.
    let needs_files = options.checkers.is_empty()
        || options
            .checkers
            .iter()
            .any(|n| n == "all" || n == syntax::NAME || checker::named(n).is_some_and(Checker::takes_files));
    let (project, diagnostics) = if needs_files { project(root, ctx)? } else { (Project::default(), Vec::new()) };
    let (picked, with_syntax) = chosen(&options.checkers, root, &project)?;
    let wanted = |rel: &str| options.only.as_ref().is_none_or(|o| o.contains(rel));
    let mut out = Checked { diagnostics, ..Default::default() };
    // Nothing changed: nothing to check, and no checker run for nothing.
    let nothing = options.only.as_ref().is_some_and(BTreeSet::is_empty);
    for c in picked {
        ctx.check_cancel()?;
        if nothing {
            out.checkers.push(CheckerRun::new(c.name, RunStatus::NoFiles));
            continue;
        }
        // A named checker must run; one the project's files call for runs when installed.
        let explicit = options.checkers.iter().any(|n| n == c.name);
        let Some(program) = c.program(root.path()) else {
            if explicit {
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
        let files: Option<Vec<&String>> = c.files(&project).map(|f| f.into_iter().filter(|f| wanted(f)).collect());
        let parts: Vec<Vec<&String>> = match &files {
            Some(f) if f.is_empty() => {
                out.checkers.push(CheckerRun::new(c.name, RunStatus::NoFiles));
                continue;
            }
            Some(f) => f.chunks(FILES_PER_RUN).map(<[&String]>::to_vec).collect(),
            None => vec![Vec::new()],
        };
        let mut sources = finding::Sources::new(root);
        let mut run = CheckerRun::new(c.name, RunStatus::Ran);
        for part in parts {
            let command = c.command(&program, root.path(), &part);
            run.command = Some(run::shown(&command));
            let ran = run::run(c.name, command, options.timeout, ctx)?;
            run.duration_ms += (ran.duration.as_secs_f64() * 1e6).round() / 1e3;
            run.exit_code = ran.exit_code;
            let raws = c.read(&ran).map_err(|why| CheckerError::Failed {
                checker: c.name.into(),
                why,
                stderr: run::tail(&ran.stderr),
            })?;
            for raw in &raws {
                if let Some(f) = sources.locate(raw, c.name).filter(|f| wanted(&f.path)) {
                    run.findings += 1;
                    out.findings.push(f);
                }
            }
        }
        out.checkers.push(run);
    }
    if with_syntax {
        let started = std::time::Instant::now();
        let files: Vec<String> = project
            .files
            .iter()
            .filter(|f| wanted(f) && aide_core::lang::Lang::from_path(std::path::Path::new(f)).is_some())
            .cloned()
            .collect();
        let found = syntax::check(root, &files, ctx)?;
        out.checkers.push(CheckerRun {
            findings: found.len(),
            duration_ms: (started.elapsed().as_secs_f64() * 1e6).round() / 1e3,
            ..CheckerRun::new(syntax::NAME, if files.is_empty() { RunStatus::NoFiles } else { RunStatus::Ran })
        });
        out.findings.extend(found);
    }
    finding::sort(&mut out.findings);
    Ok(out)
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
            (path, baseline::line_moves(&String::from_utf8_lossy(&old), &String::from_utf8_lossy(&new)))
        })
        .collect();
    baseline::new_since(now, &before.findings, &|path, line| moves.get(path).and_then(|m| m.get(&line).copied()))
}

//! # llm-deps: a project's dependencies, from its lock files
//!
//! `list` and `tree` read the lock files and manifests at the root — Cargo
//! (Cargo.lock, Cargo.toml of each workspace member), npm (package-lock.json
//! v2/v3 or npm-shrinkwrap.json, else pnpm-lock.yaml v6/v9, else yarn.lock
//! classic or berry; package.json), Python (uv.lock, else poetry.lock, with
//! pyproject.toml; else requirements*.txt) and Go (go.mod, go.sum) — and
//! give every resolved package with its ecosystem, version, whether it is
//! direct (declared by the project itself) or transitive, whether only
//! development needs it, and the manifest lines that declare it. The
//! project's own packages (workspace members, the root package.json) are
//! `projects`, the roots of `tree`, not packages. `outdated` asks the
//! registries (crates.io's sparse index, npm, PyPI, the Go proxy) about
//! each direct dependency; `audit` checks every package against a local
//! advisory database (RustSec's advisory-db or OSV JSON files), and says
//! `not_configured` when none is given. Nothing is built or run.
//!
//! ## Wire format (`--json`, inside the aide envelope)
//!
//! * `list`: `{ "packages": [ { "ecosystem": "cargo", "name": "serde", "version": "1.0.200", "direct": true,
//!   "dev": false, "source": "registry+https://…", "lockfile": "Cargo.lock",
//!   "declared_in": [ { "path": "app/Cargo.toml", "line": 7, "end_line": 7, "section": "dependencies",
//!   "requirement": "1" } ] } ], "total": 40, "direct": 3, "projects": [ … ], "lockfiles": [ … ] }`
//! * `tree`: `{ "nodes": [ { "depth": 0, "ecosystem", "name", "version", "dev", "repeated" } ], "lockfiles" }`
//!   — depth first; a package whose dependencies were shown already is `repeated`.
//! * `outdated`: `{ "outdated": [ { "ecosystem", "name", "current", "wanted", "latest", "dev", "declared_in" } ],
//!   "checked": 3, "lockfiles" }`
//! * `audit`: `{ "audit": "configured" | "not_configured", "database", "advisories", "checked",
//!   "vulnerabilities": [ { "ecosystem", "name", "version", "direct", "id", "aliases", "summary", "url", "patched" } ] }`
//!
//! Every list is sorted (ecosystem, name, version). A lock file that does
//! not parse is a `parse_error` diagnostic and its ecosystem is left out.
//! Exit status: 0; 1 when `list` or `tree` finds no package; 2 invalid
//! input (`not_found` for a missing advisory database); 4
//! `network_unavailable` when no registry answers `outdated`.

mod audit;
mod cargo;
mod error;
mod files;
mod golang;
mod manifest;
mod model;
mod npm;
mod operations;
mod outdated;
mod output;
mod pnpm;
mod python;
mod registry;
mod request;
mod scan;
mod tree;
mod versions;
mod yaml;
mod yarn;

use aide_core::AideError;
use aide_core::operation::Operation;
use aide_core::tool::{Context, Outcome, Tool};

pub use error::DepsError;
pub use model::{Declared, Ecosystem, Lockfile, Package, Project};
pub use output::*;
pub use request::*;

/// The `llm-deps` tool.
#[derive(Debug)]
pub struct LlmDeps;

impl Tool for LlmDeps {
    const NAME: &'static str = "llm-deps";
    const SUMMARY: &'static str = "A project's dependencies from its lock files: list, tree, outdated, audit.";
    const OPERATIONS: &'static [Operation] = operations::OPERATIONS;
    const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    const ABOUT: &'static str =
        "A project's dependencies (Cargo, npm, pnpm, yarn, uv, poetry, pip, Go): list, tree, outdated, audit.";
    type Request = DepsRequest;
    type Output = DepsOutput;

    fn run(request: DepsRequest, ctx: &Context) -> Result<Outcome<DepsOutput>, AideError> {
        let root = ctx.open_root(request.root.as_deref())?;
        let files = scan::RootFiles(&root);
        let only = match &request.command {
            DepsCommand::List(a) => &a.ecosystem,
            DepsCommand::Tree(a) => &a.ecosystem,
            DepsCommand::Outdated(a) => &a.ecosystem,
            DepsCommand::Audit(a) => &a.ecosystem,
        };
        let (graphs, mut diagnostics) = scan::scan(&files, only);
        ctx.check_cancel()?;
        let output = match &request.command {
            DepsCommand::List(a) => DepsOutput::List(tree::list(&graphs, a.direct)),
            DepsCommand::Tree(a) => DepsOutput::Tree(tree::tree(&graphs, a.depth)),
            DepsCommand::Outdated(a) => {
                let (out, more) = outdated::outdated(&graphs, a.timeout)?;
                diagnostics.extend(more);
                DepsOutput::Outdated(out)
            }
            DepsCommand::Audit(a) => {
                let cwd = ctx.working_dir.clone().or_else(|| std::env::current_dir().ok()).unwrap_or_default();
                let database = audit::configured(a.advisory_db.as_deref(), &cwd);
                let shown = database.as_ref().map(|d| d.display().to_string());
                DepsOutput::Audit(audit::audit(&graphs, database.as_deref(), shown)?)
            }
        };
        Ok(Outcome::with_diagnostics(output, diagnostics))
    }

    /// Reading lock files and asking registries change nothing: Ctrl-C ends it with `cancelled`.
    fn cancel_on_interrupt(_request: &DepsRequest) -> bool {
        true
    }
}

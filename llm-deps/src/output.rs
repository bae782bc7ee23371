//! What each subcommand answers, and its text form.

use std::io::{self, Write};

use aide_core::color::{Paint, TextOut};
use aide_core::tool::Render;
use schemars::JsonSchema;
use serde::Serialize;

use crate::model::{Declared, Ecosystem, Lockfile, Package, Project};

/// `list`: the packages, by ecosystem, name and version.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListOutput {
    pub packages: Vec<Package>,
    pub total: usize,
    /// How many of them are direct.
    pub direct: usize,
    pub projects: Vec<Project>,
    pub lockfiles: Vec<Lockfile>,
}

/// One line of a tree: a project (depth 0) or a package below it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Node {
    pub depth: usize,
    pub ecosystem: Ecosystem,
    pub name: String,
    pub version: Option<String>,
    pub dev: bool,
    /// Shown already above (its dependencies are not repeated), or a cycle.
    pub repeated: bool,
}

/// `tree`: each project's dependencies, depth first.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TreeOutput {
    pub nodes: Vec<Node>,
    pub lockfiles: Vec<Lockfile>,
}

/// A direct dependency with a newer version.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Outdated {
    pub ecosystem: Ecosystem,
    pub name: String,
    /// The version the lock file resolves.
    pub current: String,
    /// The newest version its requirement allows (absent for PyPI and Go).
    pub wanted: Option<String>,
    /// The registry's latest release.
    pub latest: String,
    pub dev: bool,
    pub declared_in: Vec<Declared>,
}

/// `outdated`: the direct dependencies that are behind, by ecosystem and name.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutdatedOutput {
    pub outdated: Vec<Outdated>,
    /// Direct dependencies asked about.
    pub checked: usize,
    pub lockfiles: Vec<Lockfile>,
}

/// Whether an advisory database was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    Configured,
    /// No database: nothing was checked, which is not "no vulnerabilities".
    NotConfigured,
}

/// A resolved package an advisory names.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Vulnerability {
    pub ecosystem: Ecosystem,
    pub name: String,
    pub version: String,
    pub direct: bool,
    /// The advisory's id (`RUSTSEC-2023-0001`, `GHSA-…`).
    pub id: String,
    pub aliases: Vec<String>,
    pub summary: String,
    pub url: Option<String>,
    /// The versions that fix it, as the advisory says.
    pub patched: Vec<String>,
}

/// `audit`: the packages advisories name.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AuditOutput {
    pub audit: AuditStatus,
    /// The database read, as given.
    pub database: Option<String>,
    /// Advisories read from it.
    pub advisories: usize,
    /// Packages checked.
    pub checked: usize,
    pub vulnerabilities: Vec<Vulnerability>,
    pub lockfiles: Vec<Lockfile>,
}

/// The output of a subcommand.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DepsOutput {
    List(ListOutput),
    Tree(TreeOutput),
    Outdated(OutdatedOutput),
    Audit(AuditOutput),
}

/// `path:line` of a declaration.
fn at(d: &Declared) -> String {
    format!("{}:{}", d.path, d.line)
}

fn read_from(w: &mut TextOut<'_>, lockfiles: &[Lockfile]) -> io::Result<()> {
    let names: Vec<&str> = lockfiles.iter().map(|l| l.path.as_str()).collect();
    let text = match names.is_empty() {
        true => "no lock file found (Cargo.lock, package-lock.json, pnpm-lock.yaml, yarn.lock, uv.lock, poetry.lock, requirements*.txt, go.mod)".to_string(),
        false => format!("from {}", names.join(", ")),
    };
    w.paint(Paint::Dim, text)?;
    writeln!(w)
}

impl Render for DepsOutput {
    // Long because: one arm per subcommand's output, each printing its lines in order.
    fn render_text(&self, w: &mut TextOut<'_>) -> io::Result<()> {
        match self {
            DepsOutput::List(l) => {
                for p in &l.packages {
                    let kind = match (p.direct, p.dev) {
                        (true, true) => "direct dev",
                        (true, false) => "direct",
                        (false, true) => "transitive dev",
                        (false, false) => "transitive",
                    };
                    let declared: Vec<String> = p.declared_in.iter().map(at).collect();
                    let declared =
                        if declared.is_empty() { String::new() } else { format!(" ({})", declared.join(", ")) };
                    writeln!(w, "{} {} {} {kind}{declared}", p.ecosystem.as_str(), p.name, p.version)?;
                }
                writeln!(w, "{} packages, {} direct", l.total, l.direct)?;
                read_from(w, &l.lockfiles)?;
            }
            DepsOutput::Tree(t) => {
                for n in &t.nodes {
                    let indent = "  ".repeat(n.depth);
                    let version = n.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
                    let eco = if n.depth == 0 { format!("{} ", n.ecosystem.as_str()) } else { String::new() };
                    let marks =
                        format!("{}{}", if n.dev { " [dev]" } else { "" }, if n.repeated { " (*)" } else { "" });
                    writeln!(w, "{indent}{eco}{}{version}{marks}", n.name)?;
                }
                read_from(w, &t.lockfiles)?;
            }
            DepsOutput::Outdated(o) => {
                for d in &o.outdated {
                    let wanted = d.wanted.as_deref().map(|v| format!("wanted {v}, ")).unwrap_or_default();
                    writeln!(w, "{} {} {} → {wanted}latest {}", d.ecosystem.as_str(), d.name, d.current, d.latest)?;
                }
                writeln!(w, "{} of {} direct dependencies outdated", o.outdated.len(), o.checked)?;
                read_from(w, &o.lockfiles)?;
            }
            DepsOutput::Audit(a) => {
                if a.audit == AuditStatus::NotConfigured {
                    w.paint(Paint::Warn, "audit: not configured")?;
                    writeln!(
                        w,
                        " (no advisory database: give {} a clone of RustSec's advisory-db or a folder of OSV files; nothing was checked)",
                        w.voice().arg("advisory_db")
                    )?;
                    return Ok(());
                }
                for v in &a.vulnerabilities {
                    let fix = if v.patched.is_empty() {
                        "no fix".to_string()
                    } else {
                        format!("fixed in {}", v.patched.join(" or "))
                    };
                    w.paint(Paint::Bad, &v.id)?;
                    writeln!(w, " {} {} {}: {} ({fix})", v.ecosystem.as_str(), v.name, v.version, v.summary)?;
                }
                writeln!(
                    w,
                    "{} vulnerable of {} packages checked against {} advisories in {}",
                    a.vulnerabilities.len(),
                    a.checked,
                    a.advisories,
                    a.database.as_deref().unwrap_or("")
                )?;
            }
        }
        Ok(())
    }

    fn found(&self) -> bool {
        match self {
            DepsOutput::List(l) => !l.packages.is_empty(),
            DepsOutput::Tree(t) => !t.nodes.is_empty(),
            DepsOutput::Outdated(_) | DepsOutput::Audit(_) => true,
        }
    }

    fn jsonl_records(&self) -> Option<(&'static str, &'static str)> {
        match self {
            DepsOutput::List(_) => Some(("packages", "package")),
            DepsOutput::Tree(_) => Some(("nodes", "node")),
            DepsOutput::Outdated(_) => Some(("outdated", "outdated")),
            DepsOutput::Audit(_) => Some(("vulnerabilities", "vulnerability")),
        }
    }

    fn keep_records(&mut self, range: std::ops::Range<usize>) {
        use aide_core::tool::keep_range;
        match self {
            DepsOutput::List(l) => keep_range(&mut l.packages, range),
            DepsOutput::Tree(t) => keep_range(&mut t.nodes, range),
            DepsOutput::Outdated(o) => keep_range(&mut o.outdated, range),
            DepsOutput::Audit(a) => keep_range(&mut a.vulnerabilities, range),
        }
    }
}

//! What every lock-file reader gives: the packages it resolves, the
//! dependency edges between them, and the project's own packages (the
//! roots of the tree), each entry saying where it is resolved and declared.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The package ecosystems llm-deps reads.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Ecosystem {
    /// Cargo.lock and Cargo.toml (crates.io).
    Cargo,
    /// package-lock.json, pnpm-lock.yaml, yarn.lock and package.json (npm).
    Npm,
    /// uv.lock, poetry.lock, requirements*.txt and pyproject.toml (PyPI).
    Pypi,
    /// go.mod and go.sum (Go modules).
    Go,
}

impl Ecosystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Cargo => "cargo",
            Ecosystem::Npm => "npm",
            Ecosystem::Pypi => "pypi",
            Ecosystem::Go => "go",
        }
    }
}

/// Where a manifest declares a dependency.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
pub struct Declared {
    /// The manifest, relative to the root.
    pub path: String,
    /// 1-based lines of the declaration (its key to the end of its value).
    pub line: usize,
    pub end_line: usize,
    /// The table or list it is in: `dependencies`, `dev-dependencies`,
    /// `devDependencies`, `require`, `project.dependencies`, …
    pub section: String,
    /// The version requirement as written (`^1.2`, `>=2,<3`, `v1.4.0`), if any.
    pub requirement: Option<String>,
}

/// One resolved package.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Package {
    pub ecosystem: Ecosystem,
    pub name: String,
    pub version: String,
    /// Declared by the project itself (a workspace member, the root
    /// package.json, pyproject.toml, go.mod without `// indirect`).
    pub direct: bool,
    /// Needed only for development (npm's `dev`, Cargo's dev-dependencies,
    /// Python's dev groups) by every declaration or path that needs it.
    pub dev: bool,
    /// Where it comes from, as the lock file says (`registry+https://…`,
    /// `git+…`, a path); absent for the ecosystem's default registry when the lock leaves it out.
    pub source: Option<String>,
    /// The lock file (or manifest) that resolves it, relative to the root.
    pub lockfile: String,
    /// The manifests that declare it (none for a transitive dependency), by path and line.
    pub declared_in: Vec<Declared>,
}

/// One of the project's own packages: a root of the tree.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Project {
    pub ecosystem: Ecosystem,
    pub name: String,
    pub version: Option<String>,
    /// Its manifest, relative to the root.
    pub manifest: String,
}

/// A lock file or manifest read, and which format it was read as.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Lockfile {
    pub path: String,
    pub ecosystem: Ecosystem,
    /// `cargo_lock`, `package_lock`, `pnpm_lock`, `yarn_lock`, `uv_lock`,
    /// `poetry_lock`, `requirements`, `go_mod`.
    pub format: String,
}

/// What one reader resolved: packages, their edges, and the roots with
/// the packages each depends on directly.
#[derive(Debug, Default)]
pub(crate) struct Graph {
    pub(crate) packages: Vec<Package>,
    /// `edges[i]`: the packages package `i` depends on.
    pub(crate) edges: Vec<Vec<usize>>,
    pub(crate) projects: Vec<(Project, Vec<usize>)>,
    pub(crate) lockfiles: Vec<Lockfile>,
    /// (name, version, source) → index, so a package met twice is one.
    index: BTreeMap<(String, String, Option<String>), usize>,
}

impl Graph {
    /// The index of the package, added if new.
    pub(crate) fn add(&mut self, package: Package) -> usize {
        let key = (package.name.clone(), package.version.clone(), package.source.clone());
        if let Some(&i) = self.index.get(&key) {
            let known = &mut self.packages[i];
            known.dev &= package.dev;
            known.direct |= package.direct;
            return i;
        }
        let i = self.packages.len();
        self.index.insert(key, i);
        self.packages.push(package);
        self.edges.push(Vec::new());
        i
    }

    /// An edge from `from` to `to`, once.
    pub(crate) fn edge(&mut self, from: usize, to: usize) {
        if let Some(list) = self.edges.get_mut(from)
            && !list.contains(&to)
        {
            list.push(to);
        }
    }

    /// Settles `dev` for every package from the direct ones' (set by their
    /// declarations): a package only dev dependencies lead to is dev.
    pub(crate) fn settle_dev(&mut self) {
        let mut normal = vec![false; self.packages.len()];
        let mut stack: Vec<usize> = self
            .projects
            .iter()
            .flat_map(|(_, deps)| deps)
            .copied()
            .filter(|&d| self.packages.get(d).is_some_and(|p| !p.dev))
            .collect();
        while let Some(i) = stack.pop() {
            if i >= normal.len() || std::mem::replace(&mut normal[i], true) {
                continue;
            }
            stack.extend(self.edges[i].iter().copied());
        }
        for (p, n) in self.packages.iter_mut().zip(normal) {
            p.dev = !n;
        }
    }

    /// Marks the projects' dependencies direct.
    pub(crate) fn mark_direct(&mut self) {
        for (_, deps) in &self.projects {
            for &d in deps {
                if let Some(p) = self.packages.get_mut(d) {
                    p.direct = true;
                }
            }
        }
    }
}

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Whether `text` nests brackets deeper than a lock file ever does (256):
/// refused before a recursive parser could run out of stack.
pub(crate) fn too_deep(text: &str) -> bool {
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth > 256 {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// A lock file that could not be read as its format.
#[derive(Debug, Clone)]
pub(crate) struct ParseFailure(pub String);

impl<E: std::fmt::Display> From<E> for ParseFailure {
    fn from(e: E) -> Self {
        ParseFailure(e.to_string())
    }
}

//! Cargo: `Cargo.lock`'s packages and their edges; the workspace's members
//! (the root manifest's `[package]` and `[workspace] members`, less
//! `exclude`) are the projects, and what their lock entries depend on is
//! direct, declared where their manifests say.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::files::{Files, join};
use crate::manifest::{Declaration, Manifest};
use crate::model::{Ecosystem, Graph, Lockfile, Package, ParseFailure, Project, too_deep};

#[derive(Deserialize)]
struct Lock {
    #[serde(default)]
    package: Vec<LockPackage>,
}

#[derive(Deserialize)]
struct LockPackage {
    name: String,
    version: String,
    source: Option<String>,
    #[serde(default)]
    dependencies: Vec<String>,
}

/// A member: its manifest's path and what it declares.
struct Member {
    name: String,
    manifest: String,
    declarations: Vec<Declaration>,
}

/// Reads `Cargo.lock` in `dir` (with the manifests beside it).
pub(crate) fn read(files: &dyn Files, dir: &str) -> Result<Option<Graph>, ParseFailure> {
    let lock_path = join(dir, "Cargo.lock");
    let Some(text) = files.read(&lock_path) else { return Ok(None) };
    let lock = parse_lock(&text)?;
    let members = members(files, dir);
    let mut graph = Graph::default();
    graph.lockfiles.push(Lockfile {
        path: lock_path.clone(),
        ecosystem: Ecosystem::Cargo,
        format: "cargo_lock".into(),
    });
    let member_names: BTreeMap<&str, &Member> = members.iter().map(|m| (m.name.as_str(), m)).collect();
    let is_member = |p: &LockPackage| p.source.is_none() && member_names.contains_key(p.name.as_str());
    // Lock index → graph index, for every package that is not a member.
    let mut at: Vec<Option<usize>> = Vec::with_capacity(lock.package.len());
    for p in &lock.package {
        at.push((!is_member(p)).then(|| {
            graph.add(Package {
                ecosystem: Ecosystem::Cargo,
                name: p.name.clone(),
                version: p.version.clone(),
                direct: false,
                dev: false,
                source: p.source.clone(),
                lockfile: lock_path.clone(),
                declared_in: Vec::new(),
            })
        }));
    }
    for (i, p) in lock.package.iter().enumerate() {
        let targets: Vec<usize> = p.dependencies.iter().filter_map(|d| resolve(&lock.package, d)).collect();
        match at[i] {
            Some(from) => targets.iter().filter_map(|&t| at[t]).for_each(|to| graph.edge(from, to)),
            None => {
                let Some(member) = member_names.get(p.name.as_str()) else { continue };
                let deps: Vec<usize> = targets.iter().filter_map(|&t| at[t]).collect();
                for &d in &deps {
                    declare(&mut graph.packages[d], member);
                }
                let project = Project {
                    ecosystem: Ecosystem::Cargo,
                    name: p.name.clone(),
                    version: Some(p.version.clone()),
                    manifest: member.manifest.clone(),
                };
                graph.projects.push((project, deps));
            }
        }
    }
    settle_dev(&mut graph);
    graph.mark_direct();
    Ok(Some(graph))
}

/// `Cargo.lock` read as TOML.
fn parse_lock(text: &str) -> Result<Lock, ParseFailure> {
    if too_deep(text) {
        return Err(ParseFailure("nested too deeply".into()));
    }
    Ok(toml::from_str(text)?)
}

/// The lock entry a dependency string names: `name`, `name version` or
/// `name version (source)`.
fn resolve(packages: &[LockPackage], reference: &str) -> Option<usize> {
    let mut words = reference.splitn(3, ' ');
    let name = words.next()?;
    let version = words.next();
    let source = words.next().map(|s| s.trim_start_matches('(').trim_end_matches(')'));
    packages.iter().position(|p| {
        p.name == name
            && version.is_none_or(|v| p.version == v)
            && source.is_none_or(|s| p.source.as_deref() == Some(s))
    })
}

/// The member's declarations of `package` (by name, and by requirement
/// where two versions share it) added to its `declared_in`.
fn declare(package: &mut Package, member: &Member) {
    let version = semver::Version::parse(&package.version).ok();
    for d in member.declarations.iter().filter(|d| d.name == package.name) {
        let req = d.declared.requirement.as_deref().and_then(|r| semver::VersionReq::parse(r).ok());
        if let (Some(req), Some(v)) = (&req, &version)
            && !req.matches(v)
        {
            continue;
        }
        if !package.declared_in.contains(&d.declared) {
            package.declared_in.push(d.declared.clone());
        }
    }
    package.declared_in.sort();
}

/// A direct dependency is dev when every declaration of it is.
fn settle_dev(graph: &mut Graph) {
    for p in &mut graph.packages {
        p.dev = !p.declared_in.is_empty() && p.declared_in.iter().all(|d| d.section.ends_with("dev-dependencies"));
    }
    graph.settle_dev();
}

/// The workspace's members: the root package and `[workspace] members`
/// (a `*` in a path's last part matches a folder's names), less `exclude`.
fn members(files: &dyn Files, dir: &str) -> Vec<Member> {
    let root_path = join(dir, "Cargo.toml");
    let Some(root_text) = files.read(&root_path) else { return Vec::new() };
    let Ok(root) = Manifest::parse(&root_text, &root_path) else { return Vec::new() };
    let mut out = Vec::new();
    if let Some(name) = root.str_at(&["package", "name"]) {
        out.push(Member {
            name: name.to_string(),
            manifest: root_path.clone(),
            declarations: root.cargo_dependencies(Some(&root)),
        });
    }
    let excluded = root.strings_at(&["workspace", "exclude"]);
    let mut folders: Vec<String> = Vec::new();
    for pattern in root.strings_at(&["workspace", "members"]) {
        folders.extend(expand(files, dir, pattern.trim_end_matches('/')));
    }
    folders.sort();
    folders.dedup();
    for folder in folders {
        if excluded.iter().any(|e| join(dir, e.trim_end_matches('/')) == folder) {
            continue;
        }
        let path = join(&folder, "Cargo.toml");
        let Some(text) = files.read(&path) else { continue };
        let Ok(m) = Manifest::parse(&text, &path) else { continue };
        if let Some(name) = m.str_at(&["package", "name"])
            && !out.iter().any(|o| o.manifest == path)
        {
            out.push(Member {
                name: name.to_string(),
                manifest: path.clone(),
                declarations: m.cargo_dependencies(Some(&root)),
            });
        }
    }
    out
}

/// The folders a member pattern names, relative to the root.
fn expand(files: &dyn Files, dir: &str, pattern: &str) -> Vec<String> {
    let (parent, last) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    if !last.contains('*') {
        return vec![join(dir, pattern)];
    }
    let base = join(dir, parent);
    let (prefix, suffix) = last.split_once('*').unwrap_or((last, ""));
    files
        .dirs(&base)
        .into_iter()
        .filter(|name| name.starts_with(prefix) && name.ends_with(suffix) && name.len() >= prefix.len() + suffix.len())
        .map(|name| join(&base, &name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::memory::Memory;

    const LOCK: &str = r#"version = 4

[[package]]
name = "app"
version = "0.1.0"
dependencies = ["serde", "rand 0.8.5", "util"]

[[package]]
name = "util"
version = "0.1.0"
dependencies = ["rand 0.7.3"]

[[package]]
name = "serde"
version = "1.0.200"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "rand"
version = "0.8.5"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "rand"
version = "0.7.3"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;

    #[test]
    fn members_are_projects_and_their_dependencies_are_direct() {
        let files = Memory::with(&[
            ("Cargo.lock", LOCK),
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            (
                "crates/app/Cargo.toml",
                "[package]\nname = \"app\"\n[dependencies]\nserde = \"1\"\nutil = { path = \"../util\" }\n[dev-dependencies]\nrand = \"0.8\"\n",
            ),
            ("crates/util/Cargo.toml", "[package]\nname = \"util\"\n[dependencies]\nrand = \"0.7\"\n"),
        ]);
        let g = read(&files, "").unwrap().unwrap();
        let names: Vec<(String, String, bool, bool)> =
            g.packages.iter().map(|p| (p.name.clone(), p.version.clone(), p.direct, p.dev)).collect();
        assert_eq!(
            names,
            [
                ("serde".into(), "1.0.200".into(), true, false),
                ("rand".into(), "0.8.5".into(), true, true),
                ("rand".into(), "0.7.3".into(), true, false),
            ]
        );
        let rand8 = &g.packages[1];
        assert_eq!(rand8.declared_in.len(), 1);
        assert_eq!((rand8.declared_in[0].path.as_str(), rand8.declared_in[0].line), ("crates/app/Cargo.toml", 7));
        assert_eq!(g.projects.len(), 2);
    }
}

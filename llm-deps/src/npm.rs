//! npm: `package-lock.json` (lockfileVersion 2 and 3: its `packages` map,
//! keyed by install path) and the root `package.json`, whose
//! `dependencies`, `devDependencies`, `optionalDependencies` and
//! `peerDependencies` are the direct ones. One package per name and
//! version, wherever it is installed; `npm ls --all` shows the same set.

use serde_json::{Map, Value};

use crate::files::{Files, join};
use crate::model::{Declared, Ecosystem, Graph, Lockfile, Package, ParseFailure, Project, line_of};

/// The sections of package.json that declare dependencies, dev last.
pub(crate) const SECTIONS: [&str; 4] = ["dependencies", "optionalDependencies", "peerDependencies", "devDependencies"];

/// The root package.json: its name, version and declarations.
pub(crate) struct PackageJson {
    pub path: String,
    pub name: String,
    pub version: Option<String>,
    /// (name, declaration) in SECTIONS order.
    pub declared: Vec<(String, Declared)>,
}

impl PackageJson {
    pub(crate) fn read(files: &dyn Files, dir: &str) -> Option<PackageJson> {
        let path = join(dir, "package.json");
        let text = files.read(&path)?;
        let doc: Value = serde_json::from_str(&text).ok()?;
        let name = doc.get("name").and_then(Value::as_str).unwrap_or("(root)").to_string();
        let version = doc.get("version").and_then(Value::as_str).map(str::to_string);
        let mut declared = Vec::new();
        for section in SECTIONS {
            let Some(deps) = doc.get(section).and_then(Value::as_object) else { continue };
            for (dep, req) in deps {
                let line = locate(&text, section, dep).map_or(0, |at| line_of(&text, at));
                let d = Declared {
                    path: path.clone(),
                    line,
                    end_line: line,
                    section: section.to_string(),
                    requirement: req.as_str().map(str::to_string),
                };
                declared.push((dep.clone(), d));
            }
        }
        Some(PackageJson { path, name, version, declared })
    }

    pub(crate) fn project(&self) -> Project {
        Project {
            ecosystem: Ecosystem::Npm,
            name: self.name.clone(),
            version: self.version.clone(),
            manifest: self.path.clone(),
        }
    }

    /// The declarations of `name`.
    pub(crate) fn of(&self, name: &str) -> Vec<Declared> {
        self.declared.iter().filter(|(n, _)| n == name).map(|(_, d)| d.clone()).collect()
    }

    /// Whether `name` is declared only as a devDependency.
    pub(crate) fn dev_only(&self, name: &str) -> bool {
        let mut sections = self.declared.iter().filter(|(n, _)| n == name).map(|(_, d)| d.section.as_str());
        sections.clone().next().is_some() && sections.all(|s| s == "devDependencies")
    }
}

/// The byte offset of the key `"key"` inside the object `"section"` of a
/// JSON text (the first of each, as a JSON writer puts them).
pub(crate) fn locate(text: &str, section: &str, key: &str) -> Option<usize> {
    let start = key_at(text, section, 0)?;
    key_at(text, key, start)
}

/// The offset of `"name"` followed by `:` at or after `from`.
fn key_at(text: &str, name: &str, from: usize) -> Option<usize> {
    let quoted = serde_json::to_string(name).ok()?;
    let mut at = from;
    while let Some(found) = text.get(at..)?.find(&quoted) {
        let pos = at + found;
        let after = text.get(pos + quoted.len()..)?.trim_start();
        if after.starts_with(':') {
            return Some(pos);
        }
        at = pos + quoted.len();
    }
    None
}

/// Reads `package-lock.json` (or `npm-shrinkwrap.json`) in `dir`.
pub(crate) fn read(files: &dyn Files, dir: &str) -> Result<Option<Graph>, ParseFailure> {
    let (path, text) = match ["npm-shrinkwrap.json", "package-lock.json"]
        .iter()
        .find_map(|f| files.read(&join(dir, f)).map(|t| (join(dir, f), t)))
    {
        Some(found) => found,
        None => return Ok(None),
    };
    let doc: Value = serde_json::from_str(&text)?;
    let packages = doc.get("packages").and_then(Value::as_object).ok_or_else(|| {
        ParseFailure("no `packages` map (lockfileVersion 1 is not read: `npm install` updates it)".into())
    })?;
    let manifest = PackageJson::read(files, dir);
    let mut graph = Graph::default();
    graph.lockfiles.push(Lockfile { path: path.clone(), ecosystem: Ecosystem::Npm, format: "package_lock".into() });
    // Install path → graph index.
    let mut at: Vec<(String, usize)> = Vec::new();
    for (key, entry) in packages {
        if key.is_empty() || entry.get("link").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let Some(name) = entry.get("name").and_then(Value::as_str).or_else(|| name_of(key)) else { continue };
        let version = entry.get("version").and_then(Value::as_str).unwrap_or_default();
        let i = graph.add(Package {
            ecosystem: Ecosystem::Npm,
            name: name.to_string(),
            version: version.to_string(),
            direct: false,
            dev: entry.get("dev").and_then(Value::as_bool) == Some(true)
                || entry.get("devOptional").and_then(Value::as_bool) == Some(true),
            source: entry.get("resolved").and_then(Value::as_str).map(registry_of),
            lockfile: path.clone(),
            declared_in: Vec::new(),
        });
        at.push((key.clone(), i));
    }
    for (key, i) in at.clone() {
        for dep in dependencies(packages.get(&key)) {
            if let Some(j) = find(&at, &key, &dep) {
                graph.edge(i, j);
            }
        }
    }
    let root = packages.get("");
    let mut direct = Vec::new();
    for dep in dependencies(root) {
        if let Some(j) = find(&at, "", &dep) {
            direct.push(j);
            if let Some(m) = &manifest {
                graph.packages[j].declared_in = m.of(&dep);
            }
        }
    }
    let project = match &manifest {
        Some(m) => m.project(),
        None => Project { ecosystem: Ecosystem::Npm, name: "(root)".into(), version: None, manifest: path.clone() },
    };
    graph.projects.push((project, direct));
    graph.mark_direct();
    Ok(Some(graph))
}

/// The names an entry depends on (every kind: npm ls shows them all).
fn dependencies(entry: Option<&Value>) -> Vec<String> {
    let Some(entry) = entry else { return Vec::new() };
    let mut names: Vec<String> =
        SECTIONS.iter().filter_map(|s| entry.get(*s).and_then(Value::as_object)).flat_map(Map::keys).cloned().collect();
    names.sort();
    names.dedup();
    names
}

/// Where node resolves `name` from the package installed at `from`: its
/// own node_modules, then each parent's, up to the root's.
fn find(at: &[(String, usize)], from: &str, name: &str) -> Option<usize> {
    let mut base = from.to_string();
    loop {
        let candidate =
            if base.is_empty() { format!("node_modules/{name}") } else { format!("{base}/node_modules/{name}") };
        if let Some((_, i)) = at.iter().find(|(k, _)| *k == candidate) {
            return Some(*i);
        }
        if base.is_empty() {
            return None;
        }
        base = match base.rfind("/node_modules/") {
            Some(cut) => base[..cut].to_string(),
            None => String::new(),
        };
    }
}

/// The package name of an install path: what follows its last `node_modules/`.
fn name_of(key: &str) -> Option<&str> {
    key.rfind("node_modules/").map(|at| &key[at + "node_modules/".len()..]).filter(|n| !n.is_empty())
}

/// A tarball URL's registry (`https://registry.npmjs.org`), or the whole
/// `resolved` for git and file sources.
fn registry_of(resolved: &str) -> String {
    match resolved.find("://").and_then(|s| resolved[s + 3..].find('/').map(|e| s + 3 + e)) {
        Some(end) if resolved.starts_with("http") => resolved[..end].to_string(),
        _ => resolved.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::memory::Memory;

    #[test]
    fn nested_installs_resolve_as_node_does() {
        let lock = r#"{"name":"p","lockfileVersion":3,"packages":{
            "":{"name":"p","dependencies":{"a":"^1"},"devDependencies":{"b":"^2"}},
            "node_modules/a":{"version":"1.0.0","resolved":"https://registry.npmjs.org/a/-/a-1.0.0.tgz","dependencies":{"c":"^1"}},
            "node_modules/a/node_modules/c":{"version":"1.5.0"},
            "node_modules/b":{"version":"2.0.0","dev":true,"dependencies":{"c":"^2"}},
            "node_modules/c":{"version":"2.1.0","dev":true}}}"#;
        let pj = "{\n  \"name\": \"p\",\n  \"dependencies\": {\n    \"a\": \"^1\"\n  },\n  \"devDependencies\": {\n    \"b\": \"^2\"\n  }\n}\n";
        let files = Memory::with(&[("package-lock.json", lock), ("package.json", pj)]);
        let g = read(&files, "").unwrap().unwrap();
        let got: Vec<(&str, &str, bool, bool)> =
            g.packages.iter().map(|p| (p.name.as_str(), p.version.as_str(), p.direct, p.dev)).collect();
        assert_eq!(
            got,
            [
                ("a", "1.0.0", true, false),
                ("c", "1.5.0", false, false),
                ("b", "2.0.0", true, true),
                ("c", "2.1.0", false, true)
            ]
        );
        assert_eq!(g.edges[0], [1]);
        assert_eq!(g.edges[2], [3]);
        assert_eq!(g.packages[2].declared_in[0].line, 7);
        assert_eq!(g.packages[0].source.as_deref(), Some("https://registry.npmjs.org"));
    }
}

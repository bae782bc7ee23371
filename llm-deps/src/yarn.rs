//! yarn: `yarn.lock`, classic (v1: its own indented format) and berry
//! (YAML with `__metadata`). Each entry resolves one or more descriptors
//! (`name@range`); dependencies name a descriptor, which the lock resolves.

use crate::files::{Files, join};
use crate::model::{Ecosystem, Graph, Lockfile, Package, ParseFailure, Project};
use crate::npm::PackageJson;
use crate::yaml::{entries, get, load, split_at_version, text};

/// One lock entry: the descriptors it resolves, its version and what it depends on.
#[derive(Debug, Default)]
struct Entry {
    descriptors: Vec<String>,
    version: String,
    /// (name, range) pairs.
    dependencies: Vec<(String, String)>,
}

pub(crate) fn read(files: &dyn Files, dir: &str) -> Result<Option<Graph>, ParseFailure> {
    let path = join(dir, "yarn.lock");
    let Some(source) = files.read(&path) else { return Ok(None) };
    let berry = source.lines().any(|l| l.starts_with("__metadata:"));
    let lock = if berry { parse_berry(&source)? } else { parse_classic(&source) };
    let manifest = PackageJson::read(files, dir);
    let mut graph = Graph::default();
    let format = if berry { "yarn_berry_lock" } else { "yarn_lock" };
    graph.lockfiles.push(Lockfile { path: path.clone(), ecosystem: Ecosystem::Npm, format: format.into() });
    let mut at: Vec<Option<usize>> = Vec::new();
    for e in &lock {
        let workspace = e.descriptors.iter().any(|d| d.contains("@workspace:"));
        let name = e.descriptors.first().and_then(|d| split_at_version(d)).map(|(n, _)| n);
        at.push(match (workspace, name) {
            (false, Some(name)) => Some(graph.add(Package {
                ecosystem: Ecosystem::Npm,
                name: name.to_string(),
                version: e.version.clone(),
                direct: false,
                dev: false,
                source: None,
                lockfile: path.clone(),
                declared_in: Vec::new(),
            })),
            _ => None,
        });
    }
    for (e, from) in lock.iter().zip(&at) {
        let Some(from) = *from else { continue };
        for (name, range) in &e.dependencies {
            if let Some(to) = find(&lock, name, range).and_then(|i| at[i]) {
                graph.edge(from, to);
            }
        }
    }
    let mut direct = Vec::new();
    if let Some(m) = &manifest {
        for (name, declared) in &m.declared {
            let Some(range) = &declared.requirement else { continue };
            let Some(to) = find(&lock, name, range).and_then(|i| at[i]) else { continue };
            direct.push(to);
            graph.packages[to].declared_in = m.of(name);
            graph.packages[to].dev = m.dev_only(name);
        }
    }
    let project = manifest.as_ref().map_or_else(
        || Project { ecosystem: Ecosystem::Npm, name: "(root)".into(), version: None, manifest: path.clone() },
        PackageJson::project,
    );
    direct.sort_unstable();
    direct.dedup();
    graph.projects.push((project, direct));
    graph.settle_dev();
    graph.mark_direct();
    Ok(Some(graph))
}

/// The entry resolving `name@range` (berry writes `npm:` before a plain range).
fn find(lock: &[Entry], name: &str, range: &str) -> Option<usize> {
    let wanted = [format!("{name}@{range}"), format!("{name}@npm:{range}")];
    lock.iter().position(|e| e.descriptors.iter().any(|d| wanted.contains(d)))
}

/// yarn v1's format: unindented descriptor lines ending in `:`, then
/// `  version "x"` and `  dependencies:` with `    name "range"` lines.
fn parse_classic(source: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut in_dependencies = false;
    for line in source.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim();
        if indent == 0 {
            let Some(keys) = body.strip_suffix(':') else { continue };
            let descriptors =
                keys.split(',').map(|k| unquote(k.trim()).to_string()).filter(|k| !k.is_empty()).collect();
            out.push(Entry { descriptors, ..Entry::default() });
            in_dependencies = false;
            continue;
        }
        let Some(entry) = out.last_mut() else { continue };
        if indent <= 2 {
            in_dependencies = matches!(body, "dependencies:" | "optionalDependencies:");
            if let Some(v) = body.strip_prefix("version ") {
                entry.version = unquote(v.trim()).to_string();
            }
        } else if in_dependencies {
            let (name, range) = split_pair(body);
            entry.dependencies.push((unquote(name).to_string(), unquote(range).to_string()));
        }
    }
    out
}

/// `"name" "range"` or `name range`.
fn split_pair(body: &str) -> (&str, &str) {
    if let Some(rest) = body.strip_prefix('"')
        && let Some(end) = rest.find('"')
    {
        return (&rest[..end], rest[end + 1..].trim());
    }
    body.split_once(' ').map_or((body, ""), |(n, r)| (n, r.trim()))
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(s)
}

/// yarn berry's YAML.
fn parse_berry(source: &str) -> Result<Vec<Entry>, ParseFailure> {
    let doc = load(source)?;
    let mut out = Vec::new();
    for (key, value) in entries(Some(&doc)) {
        if key == "__metadata" {
            continue;
        }
        let descriptors = key.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect();
        let version = get(Some(value), "version").and_then(text).unwrap_or_default();
        let mut dependencies = Vec::new();
        for kind in ["dependencies", "optionalDependencies"] {
            for (name, range) in entries(get(Some(value), kind)) {
                dependencies.push((name, text(range).unwrap_or_default()));
            }
        }
        out.push(Entry { descriptors, version, dependencies });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::memory::Memory;

    #[test]
    fn classic_and_berry_give_the_same_packages() {
        let pj = "{\"name\":\"p\",\"dependencies\":{\"a\":\"^1.0.0\"},\"devDependencies\":{\"@s/b\":\"^2.0.0\"}}";
        let classic = "# yarn lockfile v1\n\n\"@s/b@^2.0.0\":\n  version \"2.0.0\"\n  dependencies:\n    a \"^1.0.0\"\n\na@^1.0.0, a@^1.0.1:\n  version \"1.0.1\"\n  resolved \"https://registry.yarnpkg.com/a/-/a-1.0.1.tgz\"\n";
        let berry = "__metadata:\n  version: 6\n\n\"@s/b@npm:^2.0.0\":\n  version: 2.0.0\n  dependencies:\n    a: \"npm:^1.0.0\"\n\n\"a@npm:^1.0.0, a@npm:^1.0.1\":\n  version: 1.0.1\n\n\"p@workspace:.\":\n  version: 0.0.0-use.local\n";
        for lock in [classic, berry] {
            let g = read(&Memory::with(&[("yarn.lock", lock), ("package.json", pj)]), "").unwrap().unwrap();
            let got: Vec<(&str, &str, bool, bool)> =
                g.packages.iter().map(|p| (p.name.as_str(), p.version.as_str(), p.direct, p.dev)).collect();
            assert_eq!(got, [("@s/b", "2.0.0", true, true), ("a", "1.0.1", true, false)], "{lock}");
            assert_eq!(g.edges[0], [1]);
        }
    }
}

//! Python: `uv.lock` (its `[[package]]`s; the workspace's own are those
//! whose source is `virtual` or `editable`), `poetry.lock` with
//! `pyproject.toml`'s declarations, else `requirements*.txt` (each line a
//! direct dependency, its `==` pin the version). Names compare as PEP 503
//! normalizes them.

use serde::Deserialize;

use crate::files::{Files, join};
use crate::manifest::{Manifest, field};
use crate::model::{Declared, Ecosystem, Graph, Lockfile, Package, ParseFailure, Project, too_deep};

#[derive(Deserialize)]
struct Lock {
    #[serde(default)]
    package: Vec<LockPackage>,
}

#[derive(Deserialize)]
struct LockPackage {
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    source: Option<toml::Value>,
    /// uv: a list of `{ name = … }`; poetry: a table of name → requirement.
    #[serde(default)]
    dependencies: Option<toml::Value>,
    /// uv: group → list of `{ name = … }`.
    #[serde(default, rename = "dev-dependencies")]
    dev_dependencies: Option<toml::Table>,
    #[serde(default, rename = "optional-dependencies")]
    optional_dependencies: Option<toml::Table>,
}

/// PEP 503's normal form of a name.
pub(crate) fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The name at the start of a PEP 508 requirement, and the rest after its extras.
pub(crate) fn requirement(line: &str) -> Option<(String, String)> {
    let line = line.trim();
    let end = line.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))).unwrap_or(line.len());
    let name = &line[..end];
    if name.is_empty() {
        return None;
    }
    let mut rest = line[end..].trim_start();
    if rest.starts_with('[') {
        rest = rest.find(']').map_or("", |e| &rest[e + 1..]);
    }
    let spec = rest.split(';').next().unwrap_or("").trim().trim_start_matches('(').trim_end_matches(')').trim();
    Some((name.to_string(), spec.to_string()))
}

pub(crate) fn read(files: &dyn Files, dir: &str) -> Result<Option<Graph>, ParseFailure> {
    for (lock, format) in [("uv.lock", "uv_lock"), ("poetry.lock", "poetry_lock")] {
        let path = join(dir, lock);
        if let Some(text) = files.read(&path) {
            return read_lock(files, dir, &path, &text, format).map(Some);
        }
    }
    Ok(read_requirements(files, dir))
}

// Long because: one pass over the lock's packages, then their edges, then the roots' declarations.
fn read_lock(files: &dyn Files, dir: &str, path: &str, text: &str, format: &str) -> Result<Graph, ParseFailure> {
    if too_deep(text) {
        return Err(ParseFailure("nested too deeply".into()));
    }
    let lock: Lock = toml::from_str(text)?;
    let pyproject_path = join(dir, "pyproject.toml");
    let pyproject_text = files.read(&pyproject_path).unwrap_or_default();
    let declarations = Manifest::parse(&pyproject_text, &pyproject_path).map(|m| declarations(&m)).unwrap_or_default();
    let mut graph = Graph::default();
    graph.lockfiles.push(Lockfile { path: path.to_string(), ecosystem: Ecosystem::Pypi, format: format.into() });
    let own = |p: &LockPackage| {
        p.source
            .as_ref()
            .and_then(toml::Value::as_table)
            .is_some_and(|s| s.contains_key("virtual") || s.contains_key("editable"))
    };
    let mut at: Vec<Option<usize>> = Vec::new();
    for p in &lock.package {
        at.push((!own(p)).then(|| {
            graph.add(Package {
                ecosystem: Ecosystem::Pypi,
                name: p.name.clone(),
                version: p.version.clone(),
                direct: false,
                dev: false,
                source: p.source.as_ref().and_then(source_of),
                lockfile: path.to_string(),
                declared_in: Vec::new(),
            })
        }));
    }
    let find = |name: &str| lock.package.iter().position(|p| normalize(&p.name) == normalize(name));
    for (i, p) in lock.package.iter().enumerate() {
        let mut names: Vec<(String, bool)> =
            dependency_names(p.dependencies.as_ref()).into_iter().map(|n| (n, false)).collect();
        for list in p.dev_dependencies.iter().flat_map(|t| t.values()) {
            names.extend(dependency_names(Some(list)).into_iter().map(|n| (n, true)));
        }
        for list in p.optional_dependencies.iter().flat_map(|t| t.values()) {
            names.extend(dependency_names(Some(list)).into_iter().map(|n| (n, false)));
        }
        let targets: Vec<usize> = names.iter().filter_map(|(n, _)| find(n)).filter_map(|t| at[t]).collect();
        match at[i] {
            Some(from) => targets.iter().for_each(|&to| graph.edge(from, to)),
            None => {
                let project = Project {
                    ecosystem: Ecosystem::Pypi,
                    name: p.name.clone(),
                    version: Some(p.version.clone()),
                    manifest: pyproject_path.clone(),
                };
                graph.projects.push((project, targets));
            }
        }
    }
    // poetry.lock has no root entry: pyproject.toml's declarations are the roots.
    if graph.projects.is_empty() {
        let direct: Vec<usize> = declarations.iter().filter_map(|(n, _, _)| find(n)).filter_map(|t| at[t]).collect();
        let name = Manifest::parse(&pyproject_text, &pyproject_path)
            .ok()
            .and_then(|m| m.str_at(&["project", "name"]).or(m.str_at(&["tool", "poetry", "name"])).map(str::to_string))
            .unwrap_or_else(|| "(root)".into());
        graph.projects.push((
            Project { ecosystem: Ecosystem::Pypi, name, version: None, manifest: pyproject_path.clone() },
            direct,
        ));
    }
    for (name, _, declared) in &declarations {
        if let Some(i) = find(name).and_then(|t| at[t]) {
            let p = &mut graph.packages[i];
            p.declared_in.push(declared.clone());
            p.declared_in.sort();
        }
    }
    let dev_only: Vec<usize> = (0..graph.packages.len())
        .filter(|&i| {
            let names = &graph.packages[i].name;
            let mine: Vec<&(String, bool, Declared)> =
                declarations.iter().filter(|(n, _, _)| normalize(n) == normalize(names)).collect();
            !mine.is_empty() && mine.iter().all(|(_, d, _)| *d)
        })
        .collect();
    for p in &mut graph.packages {
        p.dev = false;
    }
    for i in dev_only {
        graph.packages[i].dev = true;
    }
    graph.settle_dev();
    graph.mark_direct();
    Ok(graph)
}

/// uv's `source` table as one string: its registry's URL, a git URL, a path.
fn source_of(source: &toml::Value) -> Option<String> {
    let table = source.as_table()?;
    ["registry", "git", "url", "path", "directory"]
        .iter()
        .find_map(|k| table.get(*k).and_then(toml::Value::as_str).map(str::to_string))
}

/// The names of uv's `[{ name = … }]` list or poetry's `{ name = requirement }` table.
fn dependency_names(value: Option<&toml::Value>) -> Vec<String> {
    match value {
        Some(toml::Value::Array(items)) => {
            items.iter().filter_map(|i| i.get("name").and_then(toml::Value::as_str).map(str::to_string)).collect()
        }
        Some(toml::Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// pyproject.toml's declarations: `[project] dependencies` and
/// `optional-dependencies`, `[dependency-groups]` (dev), and poetry's
/// `[tool.poetry.dependencies]`, `dev-dependencies` and groups.
fn declarations(m: &Manifest<'_>) -> Vec<(String, bool, Declared)> {
    let mut out = Vec::new();
    let lists: Vec<(Vec<&str>, bool)> = vec![(vec!["project", "dependencies"], false)];
    for (keys, dev) in lists {
        pep508_list(m, &keys, &keys.join("."), dev, &mut out);
    }
    for (table, dev) in [(vec!["project", "optional-dependencies"], false), (vec!["dependency-groups"], true)] {
        let Some(groups) = m.at(&table).and_then(|v| v.get_ref().as_table()) else { continue };
        for (group, _) in groups {
            let mut keys = table.clone();
            keys.push(group.get_ref());
            pep508_list(m, &keys, &keys.join("."), dev, &mut out);
        }
    }
    let mut poetry: Vec<(Vec<String>, bool)> = vec![
        (vec!["tool".into(), "poetry".into(), "dependencies".into()], false),
        (vec!["tool".into(), "poetry".into(), "dev-dependencies".into()], true),
    ];
    if let Some(groups) = m.at(&["tool", "poetry", "group"]).and_then(|v| v.get_ref().as_table()) {
        for (g, _) in groups {
            let name = g.get_ref().to_string();
            let dev = name != "main";
            poetry.push((vec!["tool".into(), "poetry".into(), "group".into(), name, "dependencies".into()], dev));
        }
    }
    for (keys, dev) in poetry {
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let Some(table) = m.at(&keys).and_then(|v| v.get_ref().as_table()) else { continue };
        for (key, value) in table {
            if key.get_ref() == "python" {
                continue;
            }
            let req = match value.get_ref() {
                toml::de::DeValue::String(s) => Some(s.to_string()),
                toml::de::DeValue::Table(t) => {
                    field(t, "version").and_then(|v| v.get_ref().as_str()).map(str::to_string)
                }
                _ => None,
            };
            out.push((key.get_ref().to_string(), dev, m.declared(key, value, &keys.join("."), req)));
        }
    }
    out
}

/// A list of PEP 508 strings, each a declaration on its own line.
fn pep508_list(m: &Manifest<'_>, keys: &[&str], section: &str, dev: bool, out: &mut Vec<(String, bool, Declared)>) {
    let Some(items) = m.at(keys).and_then(|v| v.get_ref().as_array()) else { return };
    for item in items {
        let Some((name, spec)) = item.get_ref().as_str().and_then(requirement) else { continue };
        let line = crate::model::line_of(m.text, item.span().start);
        let declared = Declared {
            path: m.path.clone(),
            line,
            end_line: line,
            section: section.to_string(),
            requirement: Some(spec).filter(|s| !s.is_empty()),
        };
        out.push((name, dev, declared));
    }
}

/// `requirements*.txt` in `dir`: each requirement line a direct package.
fn read_requirements(files: &dyn Files, dir: &str) -> Option<Graph> {
    let mut graph = Graph::default();
    let mut direct = Vec::new();
    for name in files.names(dir).into_iter().filter(|n| n.starts_with("requirements") && n.ends_with(".txt")) {
        let path = join(dir, &name);
        let Some(text) = files.read(&path) else { continue };
        graph.lockfiles.push(Lockfile {
            path: path.clone(),
            ecosystem: Ecosystem::Pypi,
            format: "requirements".into(),
        });
        let dev = name.contains("dev") || name.contains("test");
        for (n, line) in text.lines().enumerate() {
            let line = line.split(" #").next().unwrap_or("").trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('-') || line.contains("://") {
                continue;
            }
            let Some((pkg, spec)) = requirement(line) else { continue };
            let pinned =
                spec.strip_prefix("==").filter(|v| !v.contains(',') && !v.contains('*')).map(|v| v.trim().to_string());
            let declared = Declared {
                path: path.clone(),
                line: n + 1,
                end_line: n + 1,
                section: "requirements".into(),
                requirement: Some(spec.clone()).filter(|s| !s.is_empty()),
            };
            let i = graph.add(Package {
                ecosystem: Ecosystem::Pypi,
                name: pkg,
                version: pinned.unwrap_or(spec),
                direct: true,
                dev,
                source: None,
                lockfile: path.clone(),
                declared_in: vec![declared],
            });
            direct.push(i);
        }
    }
    if graph.lockfiles.is_empty() {
        return None;
    }
    graph.projects.push((
        Project {
            ecosystem: Ecosystem::Pypi,
            name: "(requirements)".into(),
            version: None,
            manifest: join(dir, "requirements.txt"),
        },
        direct,
    ));
    Some(graph)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::memory::Memory;

    #[test]
    fn uv_lock_roots_and_dev_groups() {
        let lock = "version = 1\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\ndependencies = [{ name = \"requests\" }]\n\n[package.dev-dependencies]\ndev = [{ name = \"pytest\" }]\n\n[[package]]\nname = \"requests\"\nversion = \"2.31.0\"\nsource = { registry = \"https://pypi.org/simple\" }\ndependencies = [{ name = \"idna\" }]\n\n[[package]]\nname = \"idna\"\nversion = \"3.6\"\nsource = { registry = \"https://pypi.org/simple\" }\n\n[[package]]\nname = \"pytest\"\nversion = \"8.0.0\"\nsource = { registry = \"https://pypi.org/simple\" }\n";
        let pyproject = "[project]\nname = \"app\"\ndependencies = [\n  \"Requests>=2\",\n]\n\n[dependency-groups]\ndev = [\"pytest\"]\n";
        let g = read(&Memory::with(&[("uv.lock", lock), ("pyproject.toml", pyproject)]), "").unwrap().unwrap();
        let got: Vec<(&str, bool, bool)> = g.packages.iter().map(|p| (p.name.as_str(), p.direct, p.dev)).collect();
        assert_eq!(got, [("requests", true, false), ("idna", false, false), ("pytest", true, true)]);
        assert_eq!(g.packages[0].declared_in[0].line, 4);
    }

    #[test]
    fn requirements_lines_are_direct() {
        let g = read(
            &Memory::with(&[(
                "requirements.txt",
                "# pins\nflask==3.0.0\nrequests[socks]>=2.0 ; python_version>'3'\n-r other.txt\n",
            )]),
            "",
        )
        .unwrap()
        .unwrap();
        let got: Vec<(&str, &str, usize)> =
            g.packages.iter().map(|p| (p.name.as_str(), p.version.as_str(), p.declared_in[0].line)).collect();
        assert_eq!(got, [("flask", "3.0.0", 2), ("requests", ">=2.0", 3)]);
    }

    #[test]
    fn names_normalize() {
        assert_eq!(normalize("Foo__Bar.baz"), "foo-bar-baz");
    }
}

//! pnpm: `pnpm-lock.yaml`, lockfileVersion 6 (`/name@version` keys, the
//! root's dependencies at the top) and 9 (`importers`, `packages` and
//! `snapshots`). A version's peer suffix (`1.0.0(react@18.2.0)`) is one
//! package with the plain version.

use saphyr::YamlOwned;

use crate::files::{Files, join};
use crate::model::{Ecosystem, Graph, Lockfile, Package, ParseFailure, Project};
use crate::npm::{PackageJson, SECTIONS};
use crate::yaml::{entries, get, load, split_at_version, text};

pub(crate) fn read(files: &dyn Files, dir: &str) -> Result<Option<Graph>, ParseFailure> {
    let path = join(dir, "pnpm-lock.yaml");
    let Some(source) = files.read(&path) else { return Ok(None) };
    let doc = load(&source)?;
    if !matches!(doc, YamlOwned::Mapping(_)) {
        return Err(ParseFailure("not a YAML mapping".into()));
    }
    let manifest = PackageJson::read(files, dir);
    let mut graph = Graph::default();
    graph.lockfiles.push(Lockfile { path: path.clone(), ecosystem: Ecosystem::Npm, format: "pnpm_lock".into() });
    // v9 keeps the edges in snapshots; v6 in packages.
    let mut ids: Vec<(String, usize)> = Vec::new();
    for section in ["packages", "snapshots"] {
        for (key, entry) in entries(get(Some(&doc), section)) {
            let id = key.trim_start_matches('/').to_string();
            let Some((name, version)) = split_at_version(&id) else { continue };
            let dev = text(get(Some(entry), "dev").unwrap_or(&YamlOwned::BadValue)).as_deref() == Some("true");
            let i = graph.add(Package {
                ecosystem: Ecosystem::Npm,
                name: name.to_string(),
                version: plain(version).to_string(),
                direct: false,
                dev,
                source: None,
                lockfile: path.clone(),
                declared_in: Vec::new(),
            });
            ids.push((id.clone(), i));
        }
    }
    for section in ["packages", "snapshots"] {
        for (key, entry) in entries(get(Some(&doc), section)) {
            let Some(&(_, from)) = ids.iter().find(|(id, _)| id == key.trim_start_matches('/')) else { continue };
            for kind in ["dependencies", "optionalDependencies"] {
                for (dep, version) in entries(get(Some(entry), kind)) {
                    if let Some(to) = text(version).and_then(|v| find(&ids, &dep, &v)) {
                        graph.edge(from, to);
                    }
                }
            }
        }
    }
    let importer = get(get(Some(&doc), "importers"), ".").unwrap_or(&doc);
    let mut direct = Vec::new();
    for section in SECTIONS {
        for (dep, spec) in entries(get(Some(importer), section)) {
            let version = get(Some(spec), "version").and_then(text).or_else(|| text(spec));
            let Some(to) = version.and_then(|v| find(&ids, &dep, &v)) else { continue };
            direct.push(to);
            if let Some(m) = &manifest {
                graph.packages[to].declared_in = m.of(&dep);
                graph.packages[to].dev = m.dev_only(&dep);
            }
        }
    }
    let project = manifest.as_ref().map_or_else(
        || Project { ecosystem: Ecosystem::Npm, name: "(root)".into(), version: None, manifest: path.clone() },
        PackageJson::project,
    );
    graph.projects.push((project, direct));
    graph.settle_dev();
    graph.mark_direct();
    Ok(Some(graph))
}

/// A version without its peer suffix.
fn plain(version: &str) -> &str {
    version.split('(').next().unwrap_or(version)
}

/// The package `name` at `version` (with or without its peer suffix; v6's
/// `/name@version` or a full `name@version` reference).
fn find(ids: &[(String, usize)], name: &str, version: &str) -> Option<usize> {
    let version = version.trim_start_matches('/');
    let full = if split_at_version(plain(version)).is_some_and(|(n, _)| !n.is_empty() && !n.starts_with("link:")) {
        version.to_string()
    } else {
        format!("{name}@{version}")
    };
    ids.iter()
        .find(|(id, _)| *id == full)
        .or_else(|| ids.iter().find(|(id, _)| plain(id) == plain(&full)))
        .map(|(_, i)| *i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::memory::Memory;

    #[test]
    fn v9_importers_packages_and_snapshots() {
        let lock = "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      a:\n        specifier: ^1.0.0\n        version: 1.0.0\n    devDependencies:\n      '@s/b':\n        specifier: ^2.0.0\n        version: 2.0.0(a@1.0.0)\npackages:\n  a@1.0.0:\n    resolution: {integrity: sha512-x}\n  '@s/b@2.0.0':\n    resolution: {integrity: sha512-y}\n  c@3.0.0:\n    resolution: {integrity: sha512-z}\nsnapshots:\n  a@1.0.0:\n    dependencies:\n      c: 3.0.0\n  '@s/b@2.0.0(a@1.0.0)':\n    dependencies:\n      a: 1.0.0\n  c@3.0.0: {}\n";
        let pj = "{\"name\":\"p\",\"dependencies\":{\"a\":\"^1.0.0\"},\"devDependencies\":{\"@s/b\":\"^2.0.0\"}}";
        let g = read(&Memory::with(&[("pnpm-lock.yaml", lock), ("package.json", pj)]), "").unwrap().unwrap();
        let got: Vec<(&str, &str, bool, bool)> =
            g.packages.iter().map(|p| (p.name.as_str(), p.version.as_str(), p.direct, p.dev)).collect();
        assert_eq!(got, [("a", "1.0.0", true, false), ("@s/b", "2.0.0", true, true), ("c", "3.0.0", false, false)]);
        assert_eq!(g.edges[0], [2]);
        assert_eq!(g.edges[1], [0]);
    }
}

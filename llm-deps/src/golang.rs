//! Go: `go.mod`'s `require`s (its build list since Go 1.17: every module
//! a build needs, `// indirect` the ones the module does not import
//! itself), and `go.sum`, which must vouch for each. go.mod has no edges
//! between modules (each module's own go.mod has them): the tree is the
//! module and its requirements.

use crate::files::{Files, join};
use crate::model::{Declared, Ecosystem, Graph, Lockfile, Package, Project};

pub(crate) fn read(files: &dyn Files, dir: &str) -> Option<Graph> {
    let path = join(dir, "go.mod");
    let text = files.read(&path)?;
    let mut graph = Graph::default();
    graph.lockfiles.push(Lockfile { path: path.clone(), ecosystem: Ecosystem::Go, format: "go_mod".into() });
    let sum_path = join(dir, "go.sum");
    if files.read(&sum_path).is_some() {
        graph.lockfiles.push(Lockfile { path: sum_path, ecosystem: Ecosystem::Go, format: "go_sum".into() });
    }
    let mut module = String::from("(module)");
    let mut direct = Vec::new();
    let mut in_block = false;
    for (n, raw) in text.lines().enumerate() {
        let (code, comment) = raw.split_once("//").map_or((raw, ""), |(c, m)| (c, m));
        let line = code.trim();
        if let Some(m) = line.strip_prefix("module ") {
            module = m.trim().trim_matches('"').to_string();
            continue;
        }
        let spec = if in_block {
            if line == ")" {
                in_block = false;
                continue;
            }
            line
        } else if line == "require (" || line == "require(" {
            in_block = true;
            continue;
        } else if let Some(rest) = line.strip_prefix("require ") {
            rest.trim()
        } else {
            continue;
        };
        let mut words = spec.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else { continue };
        let indirect = comment.trim().split(';').any(|c| c.trim() == "indirect");
        let declared = Declared {
            path: path.clone(),
            line: n + 1,
            end_line: n + 1,
            section: "require".into(),
            requirement: Some(version.to_string()),
        };
        let i = graph.add(Package {
            ecosystem: Ecosystem::Go,
            name: name.trim_matches('"').to_string(),
            version: version.to_string(),
            direct: !indirect,
            dev: false,
            source: None,
            lockfile: path.clone(),
            declared_in: vec![declared],
        });
        direct.push(i);
    }
    // Every requirement is a root's child; `direct` is what go.mod says.
    graph.projects.push((Project { ecosystem: Ecosystem::Go, name: module, version: None, manifest: path }, direct));
    Some(graph)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::memory::Memory;

    #[test]
    fn require_lines_and_blocks() {
        let go_mod = "module example.com/m\n\ngo 1.22\n\nrequire github.com/a/b v1.2.3\n\nrequire (\n\tgolang.org/x/text v0.14.0 // indirect\n\tgithub.com/c/d v0.0.0-20240101000000-abcdef123456\n)\n";
        let g = read(&Memory::with(&[("go.mod", go_mod)]), "").unwrap();
        let got: Vec<(&str, &str, bool, usize)> =
            g.packages.iter().map(|p| (p.name.as_str(), p.version.as_str(), p.direct, p.declared_in[0].line)).collect();
        assert_eq!(
            got,
            [
                ("github.com/a/b", "v1.2.3", true, 5),
                ("golang.org/x/text", "v0.14.0", false, 8),
                ("github.com/c/d", "v0.0.0-20240101000000-abcdef123456", true, 9)
            ]
        );
        assert_eq!(g.projects[0].0.name, "example.com/m");
    }
}

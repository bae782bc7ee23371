//! Lists and trees built from the readers' graphs, sorted so the same
//! lock files always give the same answer.

use crate::model::{Graph, Package};
use crate::output::{ListOutput, Node, TreeOutput};

/// Every package of every graph, by ecosystem, name, version, source and lock file.
pub(crate) fn list(graphs: &[Graph], direct_only: bool) -> ListOutput {
    let mut packages: Vec<Package> =
        graphs.iter().flat_map(|g| g.packages.iter()).filter(|p| p.direct || !direct_only).cloned().collect();
    packages.sort_by(|a, b| {
        (a.ecosystem, &a.name, &a.version, &a.source, &a.lockfile).cmp(&(
            b.ecosystem,
            &b.name,
            &b.version,
            &b.source,
            &b.lockfile,
        ))
    });
    let mut projects: Vec<_> = graphs.iter().flat_map(|g| g.projects.iter().map(|(p, _)| p.clone())).collect();
    projects.sort_by(|a, b| (a.ecosystem, &a.name, &a.manifest).cmp(&(b.ecosystem, &b.name, &b.manifest)));
    let mut lockfiles: Vec<_> = graphs.iter().flat_map(|g| g.lockfiles.iter().cloned()).collect();
    lockfiles.sort_by(|a, b| a.path.cmp(&b.path));
    ListOutput {
        total: packages.len(),
        direct: packages.iter().filter(|p| p.direct).count(),
        packages,
        projects,
        lockfiles,
    }
}

/// Each project and, depth first, what it depends on; a package whose
/// dependencies were shown already is `repeated` and not expanded again.
pub(crate) fn tree(graphs: &[Graph], depth: Option<usize>) -> TreeOutput {
    let mut nodes = Vec::new();
    let mut order: Vec<&Graph> = graphs.iter().collect();
    order.sort_by_key(|g| g.packages.first().map(|p| p.ecosystem));
    for g in order {
        let mut expanded = vec![false; g.packages.len()];
        let mut projects: Vec<&(crate::model::Project, Vec<usize>)> = g.projects.iter().collect();
        projects.sort_by(|a, b| (&a.0.name, &a.0.manifest).cmp(&(&b.0.name, &b.0.manifest)));
        for (project, deps) in projects {
            nodes.push(Node {
                depth: 0,
                ecosystem: project.ecosystem,
                name: project.name.clone(),
                version: project.version.clone(),
                dev: false,
                repeated: false,
            });
            // (package, depth) to visit, the stack's top next.
            let mut stack: Vec<(usize, usize)> = sorted(g, deps).into_iter().rev().map(|d| (d, 1)).collect();
            while let Some((i, level)) = stack.pop() {
                let Some(p) = g.packages.get(i) else { continue };
                let children = sorted(g, &g.edges[i]);
                let repeated = expanded[i] && !children.is_empty();
                nodes.push(Node {
                    depth: level,
                    ecosystem: p.ecosystem,
                    name: p.name.clone(),
                    version: Some(p.version.clone()),
                    dev: p.dev,
                    repeated,
                });
                if repeated || depth.is_some_and(|d| level >= d) {
                    continue;
                }
                expanded[i] = true;
                stack.extend(children.into_iter().rev().map(|c| (c, level + 1)));
            }
        }
    }
    let mut lockfiles: Vec<_> = graphs.iter().flat_map(|g| g.lockfiles.iter().cloned()).collect();
    lockfiles.sort_by(|a, b| a.path.cmp(&b.path));
    TreeOutput { nodes, lockfiles }
}

/// Package indices by name and version.
fn sorted(g: &Graph, indices: &[usize]) -> Vec<usize> {
    let mut out: Vec<usize> = indices.iter().copied().filter(|&i| i < g.packages.len()).collect();
    out.sort_by(|&a, &b| {
        (&g.packages[a].name, &g.packages[a].version).cmp(&(&g.packages[b].name, &g.packages[b].version))
    });
    out.dedup();
    out
}

//! The house stays without circles (issue 34): inside each crate, no files
//! import each other in a loop. Read from the sources as written: a file's
//! `crate::a::b` paths (in `use` or inline) and `super::` paths name the
//! file of that module; the crate root (lib.rs) is left out, as it only
//! declares and re-exports. Inline test modules are left out too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's crates, as the root Cargo.toml's `members` lists them:
/// a new crate is held to the house's rules the day it is added.
fn members(workspace: &Path) -> Vec<String> {
    let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    let list = manifest.split("members = [").nth(1).and_then(|rest| rest.split(']').next()).unwrap_or("");
    list.split(',').map(|m| m.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty()).collect()
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// Every `.rs` file under `dir`, with its module path (`["walk", "ordered"]`).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            let last = parts.pop().unwrap().trim_end_matches(".rs").to_string();
            if last != "mod" && last != "lib" && last != "main" {
                parts.push(last);
            } else if last != "mod" {
                continue;
            }
            out.insert(parts, path);
        }
    }
    out
}

/// The longest known module that `path` (segments after `crate::`) names.
fn target(modules: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<PathBuf> {
    (1..=path.len()).rev().find_map(|n| modules.get(&path[..n]).cloned())
}

/// `crate::a::b::c` paths of a source, as segment lists (braces of a `use`
/// expanded one level: `crate::a::{b, c::d}`).
fn crate_paths(source: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (at, _) in source.match_indices(prefix) {
        if source[..at].chars().last().is_some_and(ident) {
            continue;
        }
        let rest = &source[at + prefix.len()..];
        let mut head: Vec<String> = Vec::new();
        let mut chars = rest;
        loop {
            let end = chars.find(|c: char| !ident(c)).unwrap_or(chars.len());
            if end == 0 {
                break;
            }
            head.push(chars[..end].to_string());
            chars = &chars[end..];
            if let Some(next) = chars.strip_prefix("::") {
                chars = next;
            } else {
                break;
            }
        }
        if let Some(group) = chars.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for item in inner.split(',') {
                let mut full = head.clone();
                full.extend(item.trim().split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()));
                out.push(full);
            }
        } else if !head.is_empty() {
            out.push(head);
        }
    }
    out
}

/// The code of a source: inline test modules and comments (doc links
/// name modules too) left out.
fn code_of(source: &str) -> String {
    let source = source.find("#[cfg(test)]\nmod tests").map_or(source, |at| &source[..at]);
    source.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The circles of files (strongly connected components of two or more).
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    // Kosaraju, on a graph of a few dozen files.
    let nodes: Vec<&PathBuf> = edges.keys().collect();
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    fn visit<'a>(
        n: &'a PathBuf,
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        seen: &mut BTreeSet<&'a PathBuf>,
        order: &mut Vec<&'a PathBuf>,
    ) {
        if !seen.insert(n) {
            return;
        }
        for m in edges.get(n).into_iter().flatten() {
            visit(m, edges, seen, order);
        }
        order.push(n);
    }
    for n in &nodes {
        visit(n, edges, &mut seen, &mut order);
    }
    let mut reverse: BTreeMap<&PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for (from, tos) in edges {
        for to in tos {
            reverse.entry(to).or_default().push(from);
        }
    }
    let mut assigned = BTreeSet::new();
    let mut out = Vec::new();
    for n in order.into_iter().rev() {
        if assigned.contains(n) {
            continue;
        }
        let mut component = Vec::new();
        let mut stack = vec![n];
        assigned.insert(n);
        while let Some(x) = stack.pop() {
            component.push(x.clone());
            for y in reverse.get(x).into_iter().flatten() {
                if assigned.insert(*y) {
                    stack.push(y);
                }
            }
        }
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out
}

/// Which files of the crate at `src` each file imports from.
fn file_edges(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let modules = modules(src);
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = code_of(&std::fs::read_to_string(file).unwrap());
        let mut targets: Vec<PathBuf> =
            crate_paths(&text, "crate::").iter().filter_map(|p| target(&modules, p)).collect();
        // `super::x` is the parent module's `x`.
        let parent: Vec<String> = module[..module.len().saturating_sub(1)].to_vec();
        for path in crate_paths(&text, "super::") {
            let mut full = parent.clone();
            full.extend(path);
            targets.extend(target(&modules, &full));
        }
        edges.entry(file.clone()).or_default().extend(targets.into_iter().filter(|t| t != file));
    }
    edges
}

#[test]
fn no_files_of_a_crate_import_each_other_in_a_loop() {
    let workspace = workspace();
    let crates = members(workspace);
    assert!(crates.len() >= 19 && crates.iter().any(|c| c == "aide-core"), "members read: {crates:?}");
    let found: Vec<Vec<PathBuf>> =
        crates.iter().flat_map(|krate| circles(&file_edges(&workspace.join(krate).join("src")))).collect();
    assert!(
        found.is_empty(),
        "files that import each other in a loop (move the shared definition to a module of its own job):\n{}",
        found
            .iter()
            .map(|c| c
                .iter()
                .map(|p| p.strip_prefix(workspace).unwrap().display().to_string())
                .collect::<Vec<_>>()
                .join(" ⇄ "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// What a crate root defines itself (outside its test module): the names
/// of its items, not of the modules it declares or the names it re-exports.
fn root_items(source: &str) -> BTreeSet<String> {
    let kinds = ["fn ", "struct ", "enum ", "trait ", "const ", "static ", "type ", "macro_rules! "];
    code_of(source)
        .lines()
        .filter_map(|line| {
            let line = line.strip_prefix("pub(crate) ").or_else(|| line.strip_prefix("pub ")).unwrap_or(line);
            let rest = kinds.iter().find_map(|k| line.strip_prefix(k))?;
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// The files of the crate at `src` that import back what its root defines
/// (`crate::Name`, or `super::Name` from a module beside the root).
fn back_to_the_root(src: &Path) -> Vec<(PathBuf, BTreeSet<String>)> {
    let Ok(root) = std::fs::read_to_string(src.join("lib.rs")) else { return Vec::new() };
    let defined = root_items(&root);
    let mut out = Vec::new();
    for (module, file) in modules(src) {
        if module.is_empty() {
            continue;
        }
        let text = code_of(&std::fs::read_to_string(&file).unwrap());
        let mut paths = crate_paths(&text, "crate::");
        if module.len() == 1 {
            paths.extend(crate_paths(&text, "super::"));
        }
        let named: BTreeSet<String> =
            paths.iter().filter_map(|p| p.first()).filter(|n| defined.contains(*n)).cloned().collect();
        if !named.is_empty() {
            out.push((file, named));
        }
    }
    out
}

/// A crate's lib.rs says what the crate does, declares its modules and
/// re-exports their names; what it defines itself (the tool's type and its
/// `Tool` impl) no module needs back, so no module and its root import each
/// other (issue 50: the request's types live in `request.rs`).
#[test]
fn no_module_imports_back_what_its_crate_root_defines() {
    let workspace = workspace();
    // The catalogue lists aide itself, whose `aide tools` prints the
    // catalogue: the one tool that is also an entry of its own list.
    let allowed = |file: &Path, names: &BTreeSet<String>| {
        file.ends_with("aide/src/catalogue.rs") && names.iter().all(|n| n == "Aide")
    };
    let found: Vec<String> = members(workspace)
        .iter()
        .flat_map(|krate| back_to_the_root(&workspace.join(krate).join("src")))
        .filter(|(file, names)| !allowed(file, names))
        .map(|(file, names)| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            format!("{} ⇄ lib.rs: {}", file.strip_prefix(workspace).unwrap().display(), names.join(", "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "modules that import back what lib.rs defines (move it to a module of its job):\n{}",
        found.join("\n")
    );
}

/// Every tool of the catalogue is a crate of the workspace, so the house's
/// checks cover it.
#[test]
fn every_tool_of_the_catalogue_is_a_workspace_crate() {
    let crates = members(workspace());
    for tool in aide::TOOLS {
        assert!(crates.iter().any(|c| c == tool.name), "{} is not a member of the workspace", tool.name);
    }
}

/// The names a Cargo.toml section declares (`name.workspace = true`,
/// `name = "1"`, `name = { … }`).
fn declared(manifest: &str, section: &str) -> Vec<String> {
    let head = format!("[{section}]");
    let Some(start) = manifest.lines().position(|l| l.trim() == head) else { return Vec::new() };
    manifest
        .lines()
        .skip(start + 1)
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| {
            let name: String = l.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
            (!name.is_empty() && l[name.len()..].trim_start().starts_with(['.', '='])).then_some(name)
        })
        .collect()
}

/// Every `.rs` file's text beneath `dir`.
fn rust_sources(dir: &Path, out: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && name != "target" && name != "corpus" {
            rust_sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// A dependency no source of its crate names is dead weight in every build
/// (what cargo-machete checks, by the same reading): each crate's, and the
/// workspace's list, which no crate takes from.
#[test]
fn every_dependency_is_used() {
    let workspace = workspace();
    let ident = |name: &str| name.replace('-', "_");
    let mut unused = Vec::new();
    let mut taken = BTreeSet::new();
    for krate in members(workspace) {
        let manifest = std::fs::read_to_string(workspace.join(&krate).join("Cargo.toml")).unwrap();
        let mut sources = String::new();
        rust_sources(&workspace.join(&krate), &mut sources);
        for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
            for dep in declared(&manifest, section) {
                if !has_word(&sources, &ident(&dep)) {
                    unused.push(format!("{krate} [{section}] {dep}"));
                }
                taken.insert(dep);
            }
        }
    }
    let root = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
    // The reading sees what a manifest declares (the check cannot pass by reading nothing).
    assert!(taken.contains("serde") && taken.contains("aide-core"), "{taken:?}");
    for dep in declared(&root, "workspace.dependencies") {
        if !taken.contains(&dep) {
            unused.push(format!("[workspace.dependencies] {dep}"));
        }
    }
    assert!(unused.is_empty(), "dependencies nothing uses (remove them):\n{}", unused.join("\n"));
}

/// Whether `text` has `word` standing alone (not inside a longer name).
fn has_word(text: &str, word: &str) -> bool {
    let edge = |c: Option<char>| c.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_');
    text.match_indices(word)
        .any(|(at, _)| edge(text[..at].chars().last()) && edge(text[at + word.len()..].chars().next()))
}

/// Whether the Rust path `rest` (after a crate's name) names what the
/// crate at `src` has: modules as files, then items named in the last one.
fn rust_path_exists(src: &Path, rest: &str) -> bool {
    let mut dir = src.to_path_buf();
    let mut file = src.join("lib.rs");
    let segments: Vec<&str> = rest.split("::").filter(|s| !s.is_empty()).collect();
    for (at, segment) in segments.iter().enumerate() {
        let module =
            [dir.join(format!("{segment}.rs")), dir.join(segment).join("mod.rs")].into_iter().find(|m| m.is_file());
        if let Some(module) = module {
            file = module;
            dir = dir.join(segment);
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        return segments[at..].iter().all(|s| has_word(&text, s));
    }
    true
}

/// The crate paths (`aide_gate::sandbox::Sandbox`) and files
/// (`tests/src/mcp.rs`) a document names in code spans that do not exist.
fn missing_names(doc: &str, workspace: &Path) -> Vec<String> {
    let crates = members(workspace);
    let mut missing = Vec::new();
    for span in doc.split('`').skip(1).step_by(2) {
        let path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '/' | '.' | '-');
        for token in span.split(|c: char| !path_char(c)).filter(|t| !t.is_empty()) {
            if let Some((krate, rest)) = token.split_once("::") {
                let dir = krate.replace('_', "-");
                if crates.contains(&dir) && !rust_path_exists(&workspace.join(&dir).join("src"), rest) {
                    missing.push(token.to_string());
                }
            } else if token.ends_with(".rs") || token.ends_with(".md") {
                let first = token.split('/').next().unwrap_or("");
                let rooted = crates.iter().any(|c| c == first) || first == "docs";
                if token.contains('/') && rooted && !workspace.join(token).exists() {
                    missing.push(token.to_string());
                }
            }
        }
    }
    missing
}

/// ARCHITECTURE.md names only modules, items and files that exist.
#[test]
fn architecture_names_only_what_exists() {
    let workspace = workspace();
    let doc = std::fs::read_to_string(workspace.join("docs/ARCHITECTURE.md")).unwrap();
    let missing = missing_names(&doc, workspace);
    assert!(missing.is_empty(), "ARCHITECTURE.md names what does not exist: {missing:?}");
    // The reader sees a name that is not there, and one that is.
    let planted =
        "`aide_core::walk::Walker`, `aide_gate::nowhere`, `aide_core::span::NoSuchThing`, `llm-read/src/gone.rs`";
    assert_eq!(
        missing_names(planted, workspace),
        ["aide_gate::nowhere", "aide_core::span::NoSuchThing", "llm-read/src/gone.rs"]
    );
}

/// Every crate's root opens with what the crate does, and the contract's
/// names every module it has (a reader learns the contract from one page).
#[test]
fn every_crate_root_says_what_it_does() {
    let workspace = workspace();
    for krate in members(workspace) {
        let src = workspace.join(&krate).join("src");
        let root = if src.join("lib.rs").is_file() { src.join("lib.rs") } else { src.join("main.rs") };
        let text = std::fs::read_to_string(&root).unwrap();
        assert!(text.starts_with("//!"), "{} does not open with what the crate does", root.display());
    }
    let core = std::fs::read_to_string(workspace.join("aide-core/src/lib.rs")).unwrap();
    let doc: String = core.lines().take_while(|l| l.starts_with("//!")).collect::<Vec<_>>().join("\n");
    let modules: Vec<&str> = core.lines().filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';')).collect();
    assert!(modules.len() > 20, "{modules:?}");
    for module in modules {
        assert!(doc.contains(&format!("[`{module}`]")), "aide-core's lib.rs doc does not name its module `{module}`");
    }
}

/// The reader finds a loop when there is one (the check cannot pass by
/// reading nothing), and a doc link is not an import.
#[test]
fn the_loop_reader_sees_a_planted_loop() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").unwrap();
    std::fs::write(src.join("c.rs"), "//! See [`crate::a`].\npub struct C;\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::b::{One, two::Three};\nuse crate::c::C;\n").unwrap();
    std::fs::create_dir(src.join("b")).unwrap();
    std::fs::write(src.join("b/mod.rs"), "pub fn f() { crate::a::g() }\n").unwrap();
    std::fs::write(src.join("b/two.rs"), "use super::f;\n").unwrap();
    let found = circles(&file_edges(src));
    assert_eq!(found.len(), 1, "{found:?}");
    // a.rs -> b/mod.rs -> a.rs, and a.rs -> b/two.rs -> b/mod.rs.
    assert_eq!(found[0].len(), 3, "{found:?}");
}

/// The root check sees a module that imports what lib.rs defines, and not
/// one that imports a re-exported name or a sibling module.
#[test]
fn the_root_reader_sees_a_module_that_imports_back() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\npub use b::B;\npub struct Request;\nfn helper() {}\n").unwrap();
    std::fs::write(src.join("a.rs"), "use crate::{Request, B};\nfn f() { super::helper() }\n").unwrap();
    std::fs::write(src.join("b.rs"), "pub struct B;\nuse crate::a;\n").unwrap();
    let found = back_to_the_root(src);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].1.iter().map(String::as_str).collect::<Vec<_>>(), ["Request", "helper"]);
}

/// Every `.rs` file beneath `dir`, with its text.
fn rust_files(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() && name != "target" && name != "corpus" && name != "snapshots" {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// The name of the function a line starts, if it starts one.
fn function_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub ", "async ", "const ", "unsafe "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let name = rest.strip_prefix("fn ")?;
    Some(name.split(['(', '<']).next().unwrap_or(name))
}

/// The functions of `source` over `limit` lines without a `// Long
/// because:` line in the comments and attributes above them: (line, name,
/// length). A function's body ends at the first `}` at its own indentation.
fn unexplained_long_functions(source: &str, limit: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = function_name(line) else { continue };
        // A declaration without a body (a trait's) is no function to measure.
        let opens = lines[i..].iter().position(|l| l.contains('{') || l.trim_end().ends_with(';'));
        if opens.is_none_or(|o| !lines[i + o].contains('{')) {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        let Some(end) = lines[i + 1..].iter().position(|l| *l == close) else { continue };
        let length = end + 2;
        let above = lines[..i].iter().rev().take_while(|l| {
            let t = l.trim_start();
            t.starts_with("//") || t.starts_with("#[")
        });
        if length > limit && !above.clone().any(|l| l.trim_start().starts_with("// Long because:")) {
            out.push((i + 1, name.to_string(), length));
        }
    }
    out
}

/// No function over about 80 lines without a stated reason: a long one is
/// split into steps a reader follows, or says why it is one (a match of one
/// arm a variant, a test's table).
#[test]
fn long_functions_say_why_they_are_long() {
    let mut files = Vec::new();
    for member in members(workspace()) {
        rust_files(&workspace().join(member), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .flat_map(|(path, source)| {
            let shown = path.strip_prefix(workspace()).unwrap_or(path).display().to_string();
            unexplained_long_functions(source, 80)
                .into_iter()
                .map(move |(line, name, n)| format!("{shown}:{line} {name} ({n} lines)"))
        })
        .collect();
    assert!(long.is_empty(), "split these, or say why on a `// Long because:` line above them:\n{}", long.join("\n"));
}

#[test]
fn the_length_reader_sees_a_long_function_and_its_reason() {
    let body = "    x();\n".repeat(90);
    let long = format!("fn long() {{\n{body}}}\n");
    assert_eq!(unexplained_long_functions(&long, 80), [(1, "long".to_string(), 92)]);
    let said = format!("/// Does it.\n// Long because: a table.\n#[inline]\n{long}");
    assert!(unexplained_long_functions(&said, 80).is_empty());
    let declared = format!("trait T {{\n    fn call(self) -> u8;\n}}\n{}", "// filler\n".repeat(90));
    assert!(unexplained_long_functions(&declared, 80).is_empty());
}

/// Errors are built in each crate's `error.rs` (or a module beneath
/// `error/`): an `AideError::new` anywhere else is a code, message and hint
/// that no one list of the crate's refusals shows.
#[test]
fn errors_are_built_in_error_modules() {
    let mut files = Vec::new();
    for member in members(workspace()) {
        rust_files(&workspace().join(member).join("src"), &mut files);
    }
    let outside: Vec<String> = files
        .iter()
        .filter(|(path, _)| {
            path.file_name().is_none_or(|n| n != "error.rs") && !path.components().any(|c| c.as_os_str() == "error")
        })
        .filter(|(_, source)| source.contains("AideError::new("))
        .map(|(path, _)| path.strip_prefix(workspace()).unwrap_or(path).display().to_string())
        .collect();
    assert!(outside.is_empty(), "AideError::new outside error.rs: {outside:?}");
}

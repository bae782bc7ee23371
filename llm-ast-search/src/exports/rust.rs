//! Rust's exports: an item's visibility as written, `#[macro_export]`
//! macros, and the names `pub use` offers (a `use` tree read as groups,
//! which llm-code's imports read too).

use tree_sitter::Node;

use super::text;

/// A Rust item's visibility as written (`pub`, `pub(crate)`), if any.
pub(super) fn visibility(node: Node<'_>, source: &[u8]) -> Option<String> {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| c.kind() == "visibility_modifier");
    found.map(|v| text(v, source))
}

/// A `macro_rules!` under `#[macro_export]`: offered at the crate's root.
pub(super) fn macro_exported(node: Node<'_>, source: &[u8]) -> bool {
    let mut before = node.prev_named_sibling();
    while let Some(b) = before {
        match b.kind() {
            "attribute_item" if text(b, source).contains("macro_export") => return true,
            "attribute_item" | "line_comment" | "block_comment" => before = b.prev_named_sibling(),
            _ => return false,
        }
    }
    false
}

/// `pub use a::{b, c as d};` at the top level: `b` and `d`, each with its
/// `use` declaration.
pub fn reexports<'t>(root: Node<'t>, source: &[u8]) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        if item.kind() != "use_declaration" || visibility(item, source).as_deref() != Some("pub") {
            continue;
        }
        let Some(argument) = item.child_by_field_name("argument") else { continue };
        let names = use_groups(argument, source)
            .into_iter()
            .flat_map(|(module, names)| if names.is_empty() { vec![module] } else { names });
        for name in names {
            // The name other modules use: an alias, else the path's last segment.
            let used = name.rsplit(" as ").next().unwrap_or(&name);
            let used = used.rsplit("::").next().unwrap_or(used).trim();
            out.push((used.to_string(), item));
        }
    }
    out
}

/// A `use` tree as groups of (the path they start from, the names taken),
/// one group a path: `a::b::{c, d as e}` is (`a::b`, [`c`, `d as e`]);
/// `a::b::c` is (`a::b`, [`c`]); `a::*` is (`a`, [`*`]); nested lists are
/// opened, `crate::{x::{Y, Z}, w::V}` being (`crate::x`, [`Y`, `Z`]) and
/// (`crate::w`, [`V`]).
pub fn use_groups(argument: Node<'_>, source: &[u8]) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    match argument.kind() {
        "scoped_use_list" | "use_list" | "scoped_identifier" | "use_wildcard" | "use_as_clause" => {
            rust_use_tree(argument, "", source, &mut groups)
        }
        // `use foo;`: the crate or module itself.
        _ => groups.push((text(argument, source), Vec::new())),
    }
    groups
}

/// Adds the groups of `node`, a part of a `use` tree below `prefix`, to
/// `groups` (a name under the last group's path joins it).
fn rust_use_tree(node: Node<'_>, prefix: &str, source: &[u8], groups: &mut Vec<(String, Vec<String>)>) {
    let join = |path: &str| match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{path}"),
    };
    let path_of = |n: Node<'_>| n.child_by_field_name("path").map(|p| text(p, source)).unwrap_or_default();
    let mut add = |module: String, name: String| match groups.last_mut() {
        Some((last, names)) if *last == module => names.push(name),
        _ => groups.push((module, vec![name])),
    };
    match node.kind() {
        "scoped_use_list" => {
            let below = join(&path_of(node));
            if let Some(list) = node.child_by_field_name("list") {
                rust_use_tree(list, &below, source, groups);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for part in node.named_children(&mut cursor).filter(|c| !c.kind().contains("comment")) {
                rust_use_tree(part, prefix, source, groups);
            }
        }
        "scoped_identifier" => {
            let name = node.child_by_field_name("name").map(|n| text(n, source)).unwrap_or_default();
            add(join(&path_of(node)), name);
        }
        "use_wildcard" => {
            let inner = node.named_child(0).map(|p| text(p, source)).unwrap_or_default();
            add(join(&inner), "*".to_string());
        }
        "use_as_clause" => {
            let alias = node.child_by_field_name("alias").map(|a| text(a, source)).unwrap_or_default();
            match node.child_by_field_name("path") {
                Some(path) if path.kind() == "scoped_identifier" => {
                    let name = path.child_by_field_name("name").map(|n| text(n, source)).unwrap_or_default();
                    add(join(&path_of(path)), format!("{name} as {alias}"));
                }
                // `use foo as bar;` (the crate itself, as `foo as bar`), or `{x as y}` in a list.
                Some(path) => {
                    let name = text(path, source);
                    let module = if prefix.is_empty() { name.clone() } else { prefix.to_string() };
                    add(module, format!("{name} as {alias}"));
                }
                None => {}
            }
        }
        // A name in a list: `self`, `Foo`.
        _ => add(prefix.to_string(), text(node, source)),
    }
}

//! The workspace structure as an ASCII tree: directories first, then files,
//! each by name; counts of files, directories and bytes.

use std::collections::BTreeMap;

use aide_core::AideError;
use aide_core::tool::Outcome;
use aide_core::voice::Voice;
use aide_core::walk::Walker;

use crate::output::{DiscoverOutput, Mode};

#[derive(Default)]
struct Node {
    dirs: BTreeMap<String, Node>,
    files: Vec<String>,
}

impl Node {
    fn dir_mut(&mut self, path: &str) -> &mut Node {
        let mut node = self;
        for part in path.split('/').filter(|p| !p.is_empty()) {
            node = node.dirs.entry(part.to_string()).or_default();
        }
        node
    }
}

/// Builds the tree of everything `walker` visits, showing at most `limit` entries.
pub(crate) fn build(
    walker: &Walker<'_>,
    threads: usize,
    limit: usize,
    voice: Voice,
) -> Result<Outcome<DiscoverOutput>, AideError> {
    let (entries, diagnostics) = walker.filter_map_parallel(threads, || {
        |f: aide_core::walk::WalkedFile| {
            let size = if f.is_dir { 0 } else { std::fs::symlink_metadata(&f.abs).map_or(0, |m| m.len()) };
            Some((f.rel, f.is_dir, size))
        }
    })?;
    let mut root = Node::default();
    let mut files = 0usize;
    let mut directories = 0usize;
    let mut total_size = 0u64;
    for (rel, is_dir, size) in entries {
        if is_dir {
            directories += 1;
            root.dir_mut(&rel);
        } else {
            files += 1;
            total_size += size;
            let (parent, name) = match rel.rfind('/') {
                Some(i) => (&rel[..i], &rel[i + 1..]),
                None => ("", rel.as_str()),
            };
            root.dir_mut(parent).files.push(name.to_string());
        }
    }
    let mut out = String::from(".\n");
    let mut shown = 0usize;
    let truncated = render(&root, "", &mut out, &mut shown, limit);
    if truncated {
        out.push_str(&format!("… ({} more entries; raise {})\n", files + directories - shown, voice.arg("limit")));
    }
    let output = DiscoverOutput {
        mode: Mode::Tree,
        query: None,
        results: Vec::new(),
        total: files + directories,
        truncated,
        next_offset: None,
        tree: Some(out),
        files: Some(files),
        directories: Some(directories),
        total_size: Some(total_size),
        tree_checksum: None,
    };
    Ok(Outcome::with_diagnostics(output, diagnostics))
}

/// Appends `node`'s children; returns true when `limit` cut the output.
fn render(node: &Node, prefix: &str, out: &mut String, shown: &mut usize, limit: usize) -> bool {
    let mut files: Vec<&String> = node.files.iter().collect();
    files.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let count = node.dirs.len() + files.len();
    let children =
        node.dirs.iter().map(|(name, child)| (name, Some(child))).chain(files.into_iter().map(|f| (f, None)));
    for (i, (name, child)) in children.enumerate() {
        if *shown >= limit {
            return true;
        }
        *shown += 1;
        let last = i + 1 == count;
        let (branch, indent) = if last { ("└── ", "    ") } else { ("├── ", "│   ") };
        out.push_str(prefix);
        out.push_str(branch);
        out.push_str(&aide_core::text::escape_controls(name));
        if let Some(child) = child {
            out.push_str("/\n");
            if render(child, &format!("{prefix}{indent}"), out, shown, limit) {
                return true;
            }
        } else {
            out.push('\n');
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use aide_core::Root;
    use aide_core::walk::WalkArgs;

    #[test]
    fn renders_directories_first_with_counts() {
        let d = tempfile::tempdir().unwrap();
        for (f, body) in
            [("src/main.rs", "fn main(){}"), ("src/a/b.rs", ""), ("README.md", "hello"), ("Cargo.toml", "")]
        {
            std::fs::create_dir_all(d.path().join(f).parent().unwrap()).unwrap();
            std::fs::write(d.path().join(f), body).unwrap();
        }
        let root = Root::new(d.path()).unwrap();
        let walker = Walker::new(&root, &WalkArgs::default()).unwrap().include_dirs(true);
        let out = build(&walker, 2, 100, Voice::Cli).unwrap().output;
        assert_eq!(
            out.tree.unwrap(),
            ".\n├── src/\n│   ├── a/\n│   │   └── b.rs\n│   └── main.rs\n├── Cargo.toml\n└── README.md\n"
        );
        assert_eq!((out.files, out.directories, out.total_size), (Some(4), Some(2), Some(16)));
        let cut = build(&walker, 2, 3, Voice::Cli).unwrap().output;
        assert!(cut.truncated);
        assert_eq!(cut.tree.unwrap(), ".\n├── src/\n│   ├── a/\n│   │   └── b.rs\n… (3 more entries; raise --limit)\n");
    }
}

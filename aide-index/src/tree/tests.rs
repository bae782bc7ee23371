use super::*;
use crate::query::Syntax;
use aide_core::fsutil::TempDir;
use proptest::prelude::*;

/// Every file and folder under `root`, as a walk that ignores nothing takes them.
fn walk(root: &Path) -> Vec<Walked> {
    fn visit(root: &Path, dir: &Path, out: &mut Vec<Walked>) {
        let mut names: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().collect();
        names.sort_by_key(|e| e.file_name());
        for e in names {
            let abs = e.path();
            let rel = abs.strip_prefix(root).unwrap_or(&abs).to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            out.push(Walked { rel, abs: abs.clone(), is_dir });
            if is_dir {
                visit(root, &abs, out);
            }
        }
    }
    let mut out = Vec::new();
    visit(root, root, &mut out);
    out
}

/// A walk of the tree that ignores names ending in `.o`, counting how
/// often it walked the whole tree.
struct Plain<'a> {
    root: &'a Path,
    trees: std::cell::Cell<usize>,
}

impl<'a> Plain<'a> {
    fn new(root: &'a Path) -> Plain<'a> {
        Plain { root, trees: std::cell::Cell::new(0) }
    }
}

fn unignored(walked: Vec<Walked>) -> Vec<Walked> {
    walked.into_iter().filter(|w| !w.rel.ends_with(".o")).collect()
}

impl Walk for Plain<'_> {
    fn tree(&self) -> Option<Vec<Walked>> {
        self.trees.set(self.trees.get() + 1);
        Some(unignored(walk(self.root)))
    }

    fn folder(&self, rel: &str) -> Option<Vec<Walked>> {
        let in_folder = |w: &Walked| w.rel.rsplit_once('/').map_or("", |(f, _)| f) == rel;
        Some(unignored(walk(self.root)).into_iter().filter(in_folder).collect())
    }
}

/// The files whose content passes `query` now, read afresh.
fn truth(root: &Path, query: &Query) -> Vec<String> {
    walk(root)
        .into_iter()
        .filter(|w| !w.is_dir)
        .filter(|w| std::fs::read(&w.abs).is_ok_and(|b| query.passes(&trigram::of_text(&b))))
        .map(|w| w.rel)
        .collect()
}

fn found(index: &TreeIndex, query: &Query) -> Vec<String> {
    index.candidates(query).into_iter().map(|e| e.rel.clone()).collect()
}

#[derive(Debug, Clone)]
enum Edit {
    Write { file: usize, text: String },
    Delete { file: usize },
    Rename { from: usize, to: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    let text = "(alpha|beta|gamma|delta| |\n){0,6}";
    prop_oneof![
        (0usize..6, text).prop_map(|(file, text)| Edit::Write { file, text }),
        (0usize..6).prop_map(|file| Edit::Delete { file }),
        (0usize..6, 0usize..6).prop_map(|(from, to)| Edit::Rename { from, to }),
    ]
}

/// File `i`: some at the top, some in folders made on the way.
fn name(i: usize) -> String {
    match i % 3 {
        0 => format!("f{i}.txt"),
        1 => format!("sub/f{i}.txt"),
        _ => format!("sub/deep{i}/f{i}.txt"),
    }
}

fn apply(root: &Path, edit: &Edit) {
    match edit {
        Edit::Write { file, text } => {
            let path = root.join(name(*file));
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(root));
            let _ = std::fs::write(path, text);
        }
        Edit::Delete { file } => {
            let _ = std::fs::remove_file(root.join(name(*file)));
        }
        Edit::Rename { from, to } => {
            let target = root.join(name(*to));
            let _ = std::fs::create_dir_all(target.parent().unwrap_or(root));
            let _ = std::fs::rename(root.join(name(*from)), target);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// After any edits, refreshed, the index names exactly the files whose
    /// content passes each query: what a cold scan of the tree would read.
    #[test]
    fn after_random_edits_the_index_equals_a_fresh_scan(edits in proptest::collection::vec(edit(), 1..12)) {
        let dir = TempDir::new("aide-index-test").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let root = dir.path();
        std::fs::write(root.join("f0.txt"), "alpha beta").map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut index = TreeIndex::build(root, &walk(root), 2);
        let queries: Vec<Query> = ["alpha", "beta", "gam+a", "delta|alpha", "x"]
            .iter()
            .map(|p| Query::of_patterns(&[p.to_string()], Syntax::default()))
            .collect();
        for e in &edits {
            apply(root, e);
            assert!(index.refresh(&Plain::new(root)));
            // Every file listed by its place among all of them, in order.
            let (total, all) = index.listed(&Query::All, None);
            prop_assert_eq!(all.iter().map(|(place, _)| *place).collect::<Vec<_>>(), (0..total).collect::<Vec<_>>());
            for q in &queries {
                prop_assert_eq!(found(&index, q), truth(root, q), "after {:?}, query {:?}", e, q);
                for (place, entry) in index.listed(q, None).1 {
                    prop_assert_eq!(&all[place].1.rel, &entry.rel);
                }
            }
        }
    }
}

#[test]
fn without_inotify_every_refresh_walks_and_compares() {
    let dir = TempDir::new("aide-index-test").unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "alpha").unwrap();
    let mut index = TreeIndex::build(root, &walk(root), 1);
    index.watch = None;
    let alpha = Query::of_patterns(&["alpha".into()], Syntax::default());
    std::fs::write(root.join("b.txt"), "alpha too").unwrap();
    assert!(index.refresh(&Plain::new(root)));
    assert_eq!(found(&index, &alpha), ["a.txt", "b.txt"]);
    assert!(!index.stats().watching);
    // The same size, within the same clock tick: the stamp cannot tell, so
    // a file written this recently is read again.
    std::fs::write(root.join("b.txt"), "gamma too").unwrap();
    assert!(index.refresh(&Plain::new(root)));
    assert_eq!(found(&index, &alpha), ["a.txt"]);
}

#[test]
fn a_rewrite_of_the_same_size_at_once_is_seen_through_inotify() {
    let dir = TempDir::new("aide-index-test").unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "alpha").unwrap();
    let mut index = TreeIndex::build(root, &walk(root), 1);
    let alpha = Query::of_patterns(&["alpha".into()], Syntax::default());
    for text in ["gamma", "alpha", "delta"] {
        std::fs::write(root.join("a.txt"), text).unwrap();
        assert!(index.refresh(&Plain::new(root)));
        assert_eq!(found(&index, &alpha).len(), usize::from(text == "alpha"), "after writing {text}");
    }
    assert!(index.stats().watching);
}

#[test]
fn a_new_file_is_read_by_walking_its_folder_alone_and_an_ignored_one_is_left_out() {
    let dir = TempDir::new("aide-index-test").unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/a.txt"), "alpha").unwrap();
    let mut index = TreeIndex::build(root, &walk(root), 1);
    let alpha = Query::of_patterns(&["alpha".into()], Syntax::default());
    std::fs::write(root.join("sub/b.txt"), "alpha").unwrap();
    std::fs::write(root.join("sub/c.o"), "alpha").unwrap();
    std::fs::write(root.join("d.txt"), "alpha").unwrap();
    let plain = Plain::new(root);
    assert!(index.refresh(&plain));
    assert_eq!(found(&index, &alpha), ["d.txt", "sub/a.txt", "sub/b.txt"]);
    assert_eq!(plain.trees.get(), 0, "no walk of the whole tree for new files");
}

#[test]
fn an_ignore_file_above_the_root_makes_the_next_refresh_walk_the_tree() {
    let dir = TempDir::new("aide-index-test").unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("a.txt"), "alpha").unwrap();
    let mut index = TreeIndex::build(&root, &walk(&root), 1);
    let plain = Plain::new(&root);
    std::fs::write(dir.path().join("unrelated.txt"), "x").unwrap();
    assert!(index.refresh(&plain));
    assert_eq!(plain.trees.get(), 0, "a file beside the tree is not its business");
    std::fs::write(dir.path().join(".ignore"), "a.txt\n").unwrap();
    assert!(index.refresh(&plain));
    assert_eq!(plain.trees.get(), 1, "an ignore file above the root changes what the walk takes");
}

#[test]
fn a_build_past_its_memory_allowed_gives_up() {
    let dir = TempDir::new("aide-index-test").unwrap();
    let root = dir.path();
    for i in 0..3 {
        std::fs::write(root.join(format!("f{i}.txt")), "alpha beta gamma delta").unwrap();
    }
    assert!(TreeIndex::build_within(root, &walk(root), 1, 64).is_none(), "64 bytes hold no index");
    let whole = TreeIndex::build_within(root, &walk(root), 1, 1 << 20).expect("1 MiB holds three files");
    assert_eq!(whole.stats().files, 3);
}

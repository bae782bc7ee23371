use super::*;
use crate::code;
use std::os::unix::ffi::OsStrExt;

fn tree() -> (tempfile::TempDir, Root) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for f in ["src/main.rs", "src/lib.py", "README.md", ".hidden/x.rs", "target/out.rs", "docs/a.rs"] {
        std::fs::create_dir_all(p.join(f).parent().unwrap()).unwrap();
        std::fs::write(p.join(f), "x").unwrap();
    }
    std::fs::write(p.join(".ignore"), "target/\n").unwrap();
    let root = Root::new(p).unwrap();
    (d, root)
}

fn paths(root: &Root, args: WalkArgs) -> Vec<String> {
    let (files, _) = Walker::new(root, &args).unwrap().collect(2).unwrap();
    files.into_iter().map(|f| f.rel).collect()
}

#[test]
fn honours_gitignore_hidden_and_sorts() {
    let (_d, root) = tree();
    assert_eq!(paths(&root, WalkArgs::default()), ["README.md", "docs/a.rs", "src/lib.py", "src/main.rs"]);
    let all = paths(&root, WalkArgs { hidden: true, no_ignore: true, ..Default::default() });
    assert!(all.contains(&"target/out.rs".to_string()) && all.contains(&".hidden/x.rs".to_string()));
}

#[test]
fn globs_and_types_filter() {
    let (_d, root) = tree();
    assert_eq!(
        paths(&root, WalkArgs { glob: vec!["*.rs".into()], ..Default::default() }),
        ["docs/a.rs", "src/main.rs"]
    );
    assert_eq!(
        paths(&root, WalkArgs { glob: vec!["*.rs".into(), "!docs/".into()], ..Default::default() }),
        ["src/main.rs"]
    );
    assert_eq!(paths(&root, WalkArgs { r#type: vec!["py".into()], ..Default::default() }), ["src/lib.py"]);
    let e = Walker::new(&root, &WalkArgs { glob: vec!["a[".into()], ..Default::default() }).unwrap_err();
    assert_eq!(e.code, code::INVALID_GLOB);
}

#[cfg(unix)]
#[test]
fn symlinks_are_reported_not_silently_skipped() {
    let (d, root) = tree();
    std::os::unix::fs::symlink(d.path().join("missing"), d.path().join("broken")).unwrap();
    std::os::unix::fs::symlink(d.path().join("README.md"), d.path().join("good")).unwrap();
    let (_, diags) = Walker::new(&root, &WalkArgs::default()).unwrap().collect(1).unwrap();
    let codes: Vec<_> = diags.iter().map(|d| (d.code.as_str(), d.path.as_deref())).collect();
    assert_eq!(codes, [(diag::BROKEN_SYMLINK, Some("broken")), (diag::SYMLINK_NOT_FOLLOWED, Some("good"))]);
}

#[test]
fn a_small_tree_is_walked_as_the_parallel_walk_walks_it() {
    // Ignore files at two levels in a git repository, hidden files,
    // links of every kind (with --follow: a loop and a way out), a FIFO,
    // a name that is not UTF-8.
    let (d, root) = tree();
    let p = d.path();
    std::fs::create_dir_all(p.join(".git")).unwrap();
    std::fs::write(p.join(".gitignore"), "*.py\n").unwrap();
    std::fs::write(p.join("src/.gitignore"), "!lib.py\n").unwrap();
    std::os::unix::fs::symlink(p.join("missing"), p.join("broken")).unwrap();
    std::os::unix::fs::symlink(p.join("README.md"), p.join("good")).unwrap();
    std::os::unix::fs::symlink(p, p.join("src/loop")).unwrap();
    std::os::unix::fs::symlink("/", p.join("docs/out")).unwrap();
    let made_fifo = std::process::Command::new("mkfifo").arg(p.join("fifo")).status().is_ok_and(|s| s.success());
    std::fs::write(p.join(std::ffi::OsStr::from_bytes(b"bad\xffname.rs")), "x").unwrap();
    let walk = |args: &WalkArgs, parallel: bool, dirs: bool| {
        let walker = Walker::new(&root, args).unwrap().include_dirs(dirs);
        let walker = if parallel { walker.always_parallel() } else { walker };
        let (files, diags) = walker.collect(2).unwrap();
        let files: Vec<(String, usize, bool)> = files.into_iter().map(|f| (f.rel, f.depth, f.is_dir)).collect();
        (files, serde_json::to_string(&diags).unwrap())
    };
    for (args, dirs) in [
        (WalkArgs::default(), false),
        (WalkArgs { hidden: true, no_ignore: true, ..Default::default() }, true),
        (WalkArgs { follow: true, ..Default::default() }, false),
        (WalkArgs { max_depth: Some(1), glob: vec!["!*.md".into()], ..Default::default() }, true),
    ] {
        let small = walk(&args, false, dirs);
        assert!(!small.0.is_empty(), "{args:?}");
        assert_eq!(small, walk(&args, true, dirs), "{args:?}");
    }
    let (_, diags) = walk(&WalkArgs::default(), false, false);
    assert!(diags.contains(diag::BROKEN_SYMLINK) && diags.contains(diag::LOSSY_UTF8), "{diags}");
    assert!(!made_fifo || diags.contains(diag::NOT_A_REGULAR_FILE), "{diags}");
}

#[test]
fn directories_on_request() {
    let (_d, root) = tree();
    let (all, _) = Walker::new(&root, &WalkArgs::default()).unwrap().include_dirs(true).collect(2).unwrap();
    let dirs: Vec<_> = all.iter().filter(|f| f.is_dir).map(|f| f.rel.as_str()).collect();
    assert_eq!(dirs, ["docs", "src"]);
}

#[test]
fn sizes_parse() {
    assert_eq!(parse_size("10").unwrap(), 10);
    assert_eq!(parse_size("2K").unwrap(), 2048);
    assert_eq!(parse_size("1m").unwrap(), 1 << 20);
    assert!(parse_size("1X").is_err());
    assert!(parse_size("abc").is_err());
}

//! llm-git on merge commits, held to git's own first-parent view.

use aide_tests::TestDir;

use crate::git::{git_out, llm_git};

/// A merge commit's files are its changes against its first parent, as
/// `git show --diff-merges=first-parent` lists them (diff-tree alone shows
/// a merge as changing nothing: llm-git said so, and a merge looked empty).
#[test]
fn a_merge_is_shown_against_its_first_parent() {
    let t = TestDir::new();
    t.git_init();
    t.git(&["checkout", "-q", "-b", "main"]);
    t.write("a.txt", "a\n").write("b.txt", "b\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.git(&["checkout", "-q", "-b", "side"]);
    t.write("b.txt", "b side\n").write("new.txt", "n\n").git(&["add", "."]).git(&["commit", "-qm", "side"]);
    t.git(&["checkout", "-q", "main"]);
    t.write("a.txt", "a main\n").git(&["commit", "-qam", "main"]);
    t.git(&["merge", "-q", "--no-edit", "side"]);
    let v = llm_git(&t, &["show", "HEAD"], 0);
    let ours: Vec<(&str, &str)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    let theirs = git_out(&t, &["show", "--name-status", "--format=", "--diff-merges=first-parent", "HEAD"]);
    let theirs: Vec<(&str, &str)> = theirs
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(status, path)| (path, if status == "A" { "added" } else { "modified" }))
        .collect();
    assert_eq!(ours, theirs, "{v}");
    assert_eq!(ours, [("b.txt", "modified"), ("new.txt", "added")]);
}

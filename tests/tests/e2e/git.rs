//! llm-git held to git itself: every record is checked against what git
//! prints in another of its formats (short status, numstat, name-status,
//! blame's line porcelain, the bytes of `git show`), and each changing
//! command against the repository git sees afterwards.

use std::collections::BTreeMap;
use std::process::Command;

use aide_tests::TestDir;
use serde_json::{Value, json};

/// git's answer in the root, as text.
pub(crate) fn git_out(t: &TestDir, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(t.root()).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn git_bytes(t: &TestDir, args: &[&str]) -> Vec<u8> {
    Command::new("git").args(args).current_dir(t.root()).output().unwrap().stdout
}

pub(crate) fn llm_git(t: &TestDir, args: &[&str], code: i32) -> Value {
    identity(t.cmd("llm-git")).args(args).json(code)
}

fn identity(c: aide_tests::TestCommand) -> aide_tests::TestCommand {
    c.env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
}

/// A repository with one of every kind of change: staged, unstaged, both,
/// a rename, a deletion, untracked files, a conflict, and a branch with
/// an upstream it is ahead of and behind.
fn busy_repo() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.git(&["checkout", "-q", "-b", "main"]);
    t.write("a.txt", "one\ntwo\nthree\n").write("b.txt", "b\n").write("gone.txt", "bye\n");
    t.write("src/lib.rs", "fn a() {}\n").write("conflict.txt", "base\n").write("move me.txt", "moving\n".repeat(20));
    t.git(&["add", "."]).git(&["commit", "-qm", "base"]);
    // An upstream: `up` one commit ahead, `main` one commit ahead of it.
    t.git(&["branch", "up"]).git(&["checkout", "-q", "up"]);
    t.write("conflict.txt", "theirs\n");
    t.git(&["commit", "-qam", "theirs"]).git(&["checkout", "-q", "main"]);
    t.git(&["branch", "--set-upstream-to=up"]);
    t.write("conflict.txt", "ours\n");
    t.git(&["commit", "-qam", "ours"]);
    let _ = Command::new("git").args(["merge", "-q", "up"]).current_dir(t.root()).output();
    t.write("a.txt", "one\nTWO\nthree\nfour\n");
    t.write("b.txt", "b staged\n").git(&["add", "b.txt"]);
    t.write("b.txt", "b staged then changed\n");
    t.git(&["mv", "move me.txt", "moved.txt"]).git(&["rm", "-q", "gone.txt"]);
    t.write("new/untracked.txt", "u\n").write("ünï.txt", "u\n");
    t
}

#[test]
fn status_agrees_with_gits_short_status_and_lists() {
    let t = busy_repo();
    let v = llm_git(&t, &["status"], 0);
    // Each path's two letters are git's short status letters (`.` for a space).
    let short =
        git_bytes(&t, &["-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--untracked-files=all"]);
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    let mut records = short.split(|&b| b == 0).filter(|r| !r.is_empty());
    while let Some(r) = records.next() {
        let r = String::from_utf8_lossy(r).into_owned();
        let (xy, path) = r.split_at(3);
        let xy = xy.trim_end().replace(' ', ".");
        if xy.starts_with('R') || xy.starts_with('C') {
            records.next(); // the old path
        }
        expected.insert(path.to_string(), if xy == "??" { "??".into() } else { format!("{xy:.<2}") });
    }
    let got: BTreeMap<String, String> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                format!("{}{}", f["index"].as_str().unwrap(), f["worktree"].as_str().unwrap()),
            )
        })
        .collect();
    assert_eq!(got, expected, "{v}");
    let lines = |args: &[&str]| git_out(&t, args).lines().filter(|l| !l.is_empty()).count();
    let count = |kind: &str| v["files"].as_array().unwrap().iter().filter(|f| f["kind"] == kind).count();
    assert_eq!(v["untracked"], lines(&["ls-files", "--others", "--exclude-standard"]));
    assert_eq!(v["conflicted"], lines(&["diff", "--name-only", "--diff-filter=U"]));
    assert_eq!(count("conflicted"), 1);
    let renamed: Vec<&Value> = v["files"].as_array().unwrap().iter().filter(|f| f["kind"] == "renamed").collect();
    assert_eq!((&renamed[0]["path"], &renamed[0]["renamed_from"]), (&json!("moved.txt"), &json!("move me.txt")));
    let b = &v["branch"];
    assert_eq!(
        (&b["head"], &b["upstream"], &b["ahead"], &b["behind"]),
        (&json!("main"), &json!("up"), &json!(1), &json!(1))
    );
    assert_eq!(b["commit"], git_out(&t, &["rev-parse", "HEAD"]).trim());
    assert_eq!(v["clean"], false);
}

/// Applies a diff's hunks to `old` (the lines of the old side) and returns
/// the new side's lines: the hunks must rebuild the new file exactly.
fn rebuild(old: &str, file: &Value) -> Vec<String> {
    let old: Vec<&str> = old.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut at = 0usize; // old lines consumed
    for h in file["hunks"].as_array().unwrap() {
        let start = h["old_start"].as_u64().unwrap() as usize;
        let start = if h["old_lines"] == 0 { start } else { start - 1 };
        out.extend(old[at..start].iter().map(|s| s.to_string()));
        at = start;
        for l in h["lines"].as_array().unwrap() {
            match l["kind"].as_str().unwrap() {
                "context" => {
                    assert_eq!(old[at], l["text"]);
                    out.push(old[at].to_string());
                    at += 1;
                }
                "removed" => {
                    assert_eq!(old[at], l["text"]);
                    at += 1;
                }
                _ => out.push(l["text"].as_str().unwrap().to_string()),
            }
        }
    }
    out.extend(old[at..].iter().map(|s| s.to_string()));
    out
}

#[test]
fn diff_hunks_rebuild_the_new_file_and_count_as_numstat_does() {
    let t = TestDir::new();
    t.git_init();
    let old: String = (1..=60).map(|i| format!("line {i}\n")).collect();
    t.write("code.txt", &old).write("same.txt", "x\n").write("tabs and spaces.txt", "a\tb\n");
    t.git(&["add", "."]).git(&["commit", "-qm", "base"]);
    let new =
        old.replace("line 3\n", "line three\n").replace("line 40\n", "").replace("line 59\n", "line 59\ninserted\n");
    t.write("code.txt", &new).write("tabs and spaces.txt", "a\tb\nc\n");
    let v = llm_git(&t, &["diff"], 0);
    let numstat = git_out(&t, &["diff", "--numstat"]);
    for line in numstat.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let file = v["files"].as_array().unwrap().iter().find(|x| x["path"] == f[2]).unwrap();
        assert_eq!(
            (file["insertions"].to_string(), file["deletions"].to_string()),
            (f[0].to_string(), f[1].to_string())
        );
    }
    let code = v["files"].as_array().unwrap().iter().find(|x| x["path"] == "code.txt").unwrap();
    assert_eq!(rebuild(&old, code), new.lines().collect::<Vec<_>>());
    // Every new-side line's span holds its text in the working tree, and
    // the checksum is the file's, for an edit with no read in between.
    for l in code["hunks"].as_array().unwrap().iter().flat_map(|h| h["lines"].as_array().unwrap()) {
        if let (Some(s), Some(e)) = (l["byte_start"].as_u64(), l["byte_end"].as_u64()) {
            assert_eq!(&new[s as usize..e as usize], l["text"].as_str().unwrap());
        }
    }
    let read: Value = t.cmd("llm-read").arg("code.txt").json(0);
    assert_eq!(code["checksum"], read["files"][0]["checksum"]);
    // --stat: the same files and counts as git diff --numstat, no hunks.
    let stat = llm_git(&t, &["diff", "--stat"], 0);
    let counted: Vec<String> = stat["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert_eq!(f["hunks"], json!([]), "{f}");
            format!("{}\t{}\t{}", f["insertions"], f["deletions"], f["path"].as_str().unwrap())
        })
        .collect();
    assert_eq!(counted, numstat.lines().collect::<Vec<_>>());

    // Staged: the index against HEAD, spans in the index's version.
    t.git(&["add", "code.txt"]);
    t.write("code.txt", "worktree only\n");
    let v = llm_git(&t, &["diff", "--staged"], 0);
    assert_eq!((&v["old"], &v["new"]), (&json!("HEAD"), &json!("index")));
    let staged = &v["files"][0];
    assert_eq!(rebuild(&old, staged), new.lines().collect::<Vec<_>>());
    assert_eq!(staged["checksum"], Value::Null, "the index's file is not the worktree's");
    let added = staged["hunks"][0]["lines"].as_array().unwrap().iter().find(|l| l["kind"] == "added").unwrap();
    let (s, e) = (added["byte_start"].as_u64().unwrap() as usize, added["byte_end"].as_u64().unwrap() as usize);
    assert_eq!(&new[s..e], "line three");
    // Against a revision, limited to a path.
    let (out, _) =
        identity(t.cmd("llm-git")).args(["diff", "HEAD", "--json", "--", "tabs and spaces.txt"]).expect_exit(0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    assert_eq!(v["files"][0]["path"], "tabs and spaces.txt");
}

#[test]
fn renames_modes_binaries_and_deletions_are_said_as_git_names_them() {
    let t = TestDir::new();
    t.git_init();
    t.write("old name.txt", "same content\n".repeat(30)).write("run.sh", "echo\n").write("gone.txt", "x\n");
    t.write("img.bin", [0u8, 1, 2, 3]);
    t.git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.git(&["mv", "old name.txt", "new name.txt"]).git(&["rm", "-q", "gone.txt"]);
    t.git(&["update-index", "--chmod=+x", "run.sh"]);
    t.write("img.bin", [0u8, 9, 9]).git(&["add", "img.bin"]);
    let v = llm_git(&t, &["diff", "--staged"], 0);
    let status = git_out(&t, &["diff", "--cached", "--name-status", "-M"]);
    let by_path: BTreeMap<String, &Value> =
        v["files"].as_array().unwrap().iter().map(|f| (f["path"].as_str().unwrap().to_string(), f)).collect();
    for line in status.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let (letter, path) = (&f[0][..1], *f.last().unwrap());
        let ours = by_path.get(path).unwrap_or_else(|| panic!("{path} missing: {v}"));
        let expected = match letter {
            "R" => "renamed",
            "D" => "deleted",
            "A" => "added",
            _ => "modified",
        };
        assert_eq!(ours["status"], expected, "{path}");
    }
    assert_eq!(by_path["new name.txt"]["old_path"], "old name.txt");
    assert_eq!(by_path["new name.txt"]["similarity"], 100);
    assert_eq!((&by_path["run.sh"]["old_mode"], &by_path["run.sh"]["new_mode"]), (&json!("100644"), &json!("100755")));
    assert_eq!(by_path["img.bin"]["binary"], true);
    assert_eq!(by_path["gone.txt"]["deletions"], 1);
}

#[test]
fn log_blame_and_show_agree_with_git() {
    let t = TestDir::new();
    t.git_init();
    t.write("f.txt", "a\nb\n").git(&["add", "."]).git(&["commit", "-qm", "first", "-m", "with a body"]);
    t.write("f.txt", "a\nB\nc\n").git(&["commit", "-qam", "second"]);
    t.write("g.txt", "g\n").git(&["add", "."]).git(&["commit", "-qm", "third"]);
    let v = llm_git(&t, &["log"], 0);
    let expected: Vec<String> = git_out(&t, &["log", "--format=%H %s"]).lines().map(str::to_string).collect();
    let got: Vec<String> = v["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{} {}", c["commit"].as_str().unwrap(), c["subject"].as_str().unwrap()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(v["commits"][2]["body"], "with a body");
    assert_eq!(v["commits"][0]["parents"][0], v["commits"][1]["commit"]);
    let v = llm_git(&t, &["log", "--path", "f.txt", "-n", "1"], 0);
    assert_eq!((v["commits"].as_array().unwrap().len(), &v["truncated"]), (1, &json!(true)));
    assert_eq!(v["commits"][0]["subject"], "second");

    // Blame: the commit of every line, as blame's own line porcelain says.
    let v = llm_git(&t, &["blame", "f.txt"], 0);
    let porcelain = git_out(&t, &["blame", "--line-porcelain", "f.txt"]);
    let commits: Vec<&str> = porcelain
        .lines()
        .filter(|l| l.len() > 40 && l.as_bytes()[..40].iter().all(u8::is_ascii_hexdigit))
        .map(|l| &l[..40])
        .collect();
    let ours: Vec<&str> = v["lines"].as_array().unwrap().iter().map(|l| l["commit"].as_str().unwrap()).collect();
    assert_eq!(ours, commits);
    assert_eq!(v["lines"][1]["text"], "B");
    let v = llm_git(&t, &["blame", "f.txt", "--lines", "2:3"], 0);
    assert_eq!(v["lines"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect::<Vec<_>>(), [2, 3]);

    // show REV:PATH is git's bytes; show REV lists what git's name-status does.
    let v = llm_git(&t, &["show", "HEAD~1:f.txt"], 0);
    assert_eq!(v["content"].as_str().unwrap().as_bytes(), git_bytes(&t, &["show", "HEAD~1:f.txt"]));
    let v = llm_git(&t, &["show", "HEAD"], 0);
    assert_eq!(v["shown"], "commit");
    assert_eq!(v["files"][0]["path"], "g.txt");
    assert_eq!(v["files"][0]["status"], "added");
    let v = llm_git(&t, &["show", "HEAD~2"], 0);
    assert_eq!(v["files"][0]["status"], "added", "a root commit's files are added: {v}");
    let v = llm_git(&t, &["show", "HEAD:"], 0);
    assert_eq!(v["entries"], json!(["f.txt", "g.txt"]));
    let v = llm_git(&t, &["show", "nope"], 2);
    assert_eq!(v["error"]["code"], "not_found");
}

#[test]
fn add_commit_branch_and_restore_change_what_git_sees() {
    let t = TestDir::new();
    t.git_init();
    t.git(&["checkout", "-q", "-b", "main"]);
    t.write("a.txt", "a\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    let before = git_out(&t, &["rev-parse", "HEAD"]);
    // Nothing staged: refused, no commit.
    let v = llm_git(&t, &["commit", "-m", "empty"], 3);
    assert_eq!(v["error"]["code"], "nothing_to_commit");
    assert_eq!(git_out(&t, &["rev-parse", "HEAD"]), before);

    t.write("a.txt", "a changed\n").write("b.txt", "b\n");
    let v = llm_git(&t, &["add", "a.txt", "b.txt"], 0);
    assert_eq!(v["added"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(git_out(&t, &["diff", "--cached", "--name-only"]), "a.txt\nb.txt\n");
    let v = llm_git(&t, &["commit", "-m", "two files"], 0);
    assert_eq!(v["committed"]["commit"], git_out(&t, &["rev-parse", "HEAD"]).trim());
    assert_eq!(
        (&v["files"], &v["insertions"], &v["deletions"], &v["branch"]),
        (&json!(2), &json!(2), &json!(1), &json!("main"))
    );

    // Paths given to commit are staged first, as `git commit --include`
    // stages them, and committed with what was staged already.
    t.write("a.txt", "a again\n").write("c.txt", "c\n").write("d.txt", "d\n");
    llm_git(&t, &["add", "c.txt"], 0);
    let v = llm_git(&t, &["commit", "-m", "with paths", "a.txt"], 0);
    assert_eq!(v["files"], 2, "{v}");
    assert_eq!(git_out(&t, &["show", "--name-only", "--format=", "HEAD"]), "a.txt\nc.txt\n");
    assert_eq!(git_out(&t, &["status", "--porcelain"]), "?? d.txt\n", "d.txt was not asked for");
    let v = llm_git(&t, &["commit", "-m", "outside", "../x"], 2);
    assert_eq!(v["error"]["code"], "path_outside_root", "{v}");
    std::fs::remove_file(t.root().join("d.txt")).unwrap();

    // Branches: create and switch; a dirty tree refuses a switch.
    let v = llm_git(&t, &["branch", "feature", "--create"], 0);
    assert_eq!(v["created"], "feature");
    assert_eq!(git_out(&t, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "main");
    t.write("a.txt", "dirty\n");
    let v = llm_git(&t, &["branch", "feature", "--switch"], 3);
    assert_eq!(v["error"]["code"], "dirty_tree");
    assert_eq!(v["error"]["details"]["files"], json!(["a.txt"]));
    assert_eq!(git_out(&t, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "main");
    let v = llm_git(&t, &["branch", "-x", "--create"], 2);
    assert_eq!(v["error"]["code"], "invalid_arguments", "{v}");

    // Restore: the index's content back, undoably.
    let v = llm_git(&t, &["restore", "a.txt"], 0);
    assert_eq!(std::fs::read(t.root().join("a.txt")).unwrap(), git_bytes(&t, &["show", ":a.txt"]));
    let undo = v["undo"].as_str().unwrap().to_string();
    let id = undo.rsplit(' ').next().unwrap();
    let _: Value = t.cmd("llm-transform").args(["undo", id]).json(0);
    assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), "dirty\n", "the restore was undone");
    let v = llm_git(&t, &["branch", "feature", "--switch", "--allow-dirty"], 0);
    assert_eq!(v["switched"], "feature");
    assert_eq!(v["current"], "feature");
    // Unstage: the file stays as it is.
    t.git(&["add", "a.txt"]);
    llm_git(&t, &["restore", "--staged", "a.txt"], 0);
    assert_eq!(git_out(&t, &["diff", "--cached", "--name-only"]), "");
    assert_eq!(std::fs::read_to_string(t.root().join("a.txt")).unwrap(), "dirty\n");
}

#[test]
fn a_root_inside_the_repository_sees_its_own_paths_and_nothing_outside() {
    let t = TestDir::new();
    t.git_init();
    t.write("sub/a.txt", "a\n").write("top.txt", "t\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.write("sub/a.txt", "A\n").write("top.txt", "T\n").write("sub/new.txt", "n\n");
    let v = llm_git(&t, &["--root", "sub", "status"], 0);
    let paths: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt", "new.txt"]);
    let v = llm_git(&t, &["--root", "sub", "diff"], 0);
    assert_eq!(v["files"][0]["path"], "a.txt");
    assert_eq!(v["files"].as_array().unwrap().len(), 1);
    let v = llm_git(&t, &["--root", "sub", "add", "../top.txt"], 2);
    assert_eq!(v["error"]["code"], "path_outside_root");
    // Not a repository at all.
    let plain = TestDir::new();
    let v: Value = plain.cmd("llm-git").args(["status"]).json(2);
    assert_eq!(v["error"]["code"], "not_a_repository");
}

#[test]
fn git_over_mcp_picks_its_command_and_refuses_what_that_command_does_not_take() {
    let t = TestDir::new();
    t.git_init();
    t.write("a.txt", "a\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.write("a.txt", "b\n");
    let mut client = aide_tests::mcp::McpClient::initialized(t.root(), t.home(), &[], json!({}));
    let status = client.call("git", json!({ "command": "status" }));
    assert_eq!(status["isError"], false, "{status}");
    assert_eq!(status["structuredContent"]["files"][0]["path"], "a.txt");
    let diff = client.call("git", json!({ "command": "diff", "paths": ["a.txt"] }));
    assert_eq!(diff["structuredContent"]["files"][0]["hunks"][0]["lines"][1]["text"], "b", "{diff}");
    let wrong = client.call("git", json!({ "command": "stauts" }));
    assert_eq!(wrong["isError"], true);
    assert_eq!(wrong["structuredContent"]["error"]["details"]["closest"], "status", "{wrong}");
    let foreign = client.call("git", json!({ "command": "log", "staged": true }));
    assert_eq!(foreign["isError"], true);
    assert_eq!(foreign["structuredContent"]["error"]["details"]["field"], "staged", "{foreign}");
    let missing = client.call("git", json!({}));
    assert_eq!(missing["structuredContent"]["error"]["details"]["field"], "command", "{missing}");
    let write = client.call("git_write", json!({ "command": "commit", "message": "m" }));
    assert_eq!(write["structuredContent"]["error"]["code"], "nothing_to_commit", "{write}");
    let write = client.call("git", json!({ "command": "add", "paths": ["a.txt"] }));
    assert_eq!(write["isError"], true, "the read-only tool does not add: {write}");
    // The log records the subcommand each call chose.
    let runs: Value = t.cmd("aide").args(["log", "list", "--limit", "20"]).json(0);
    let argvs: Vec<String> = runs["runs"].as_array().unwrap().iter().map(|r| r["argv"].to_string()).collect();
    assert!(argvs.iter().any(|a| a == r#"["llm-git","diff"]"#), "{argvs:?}");
    assert!(argvs.iter().any(|a| a == r#"["llm-git","commit"]"#), "{argvs:?}");
}

/// This repository, a real history: log, blame, show and a diff across
/// several commits agree with git's own formats.
#[test]
fn on_this_repository_log_blame_show_and_diff_agree_with_git() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let in_repo = |args: &[&str]| {
        let out = Command::new("git").args(args).current_dir(&repo).output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    if !in_repo(&["rev-parse", "HEAD~3"]).0 {
        aide_tests::skip("git history", "this checkout has no history of three commits");
        return;
    }
    let t = TestDir::new();
    let run = |args: &[&str]| -> Value {
        let mut all = vec!["--root", repo.to_str().unwrap()];
        all.extend(args);
        t.cmd("llm-git").args(&all).json(0)
    };
    let v = run(&["log", "-n", "30"]);
    let ours: Vec<&str> = v["commits"].as_array().unwrap().iter().map(|c| c["commit"].as_str().unwrap()).collect();
    let theirs = in_repo(&["log", "-n", "30", "--format=%H"]).1;
    assert_eq!(ours, theirs.lines().collect::<Vec<_>>());

    let v = run(&["blame", "Cargo.toml"]);
    let porcelain = in_repo(&["blame", "--line-porcelain", "Cargo.toml"]).1;
    let theirs: Vec<&str> = porcelain
        .lines()
        .filter(|l| l.len() > 40 && l.as_bytes()[..40].iter().all(u8::is_ascii_hexdigit))
        .map(|l| &l[..40])
        .collect();
    let ours: Vec<&str> = v["lines"].as_array().unwrap().iter().map(|l| l["commit"].as_str().unwrap()).collect();
    assert_eq!(ours, theirs);

    let v = run(&["show", "HEAD~1"]);
    let mut ours: Vec<String> =
        v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap().to_string()).collect();
    ours.sort();
    let theirs = in_repo(&["show", "--name-only", "--format=", "-M", "--diff-merges=first-parent", "HEAD~1"]).1;
    let mut theirs: Vec<String> = theirs.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    theirs.sort();
    assert_eq!(ours, theirs);

    let v = run(&["diff", "HEAD~3"]);
    let numstat = in_repo(&["diff", "--numstat", "-M", "HEAD~3"]).1;
    let ours: BTreeMap<String, (u64, u64)> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["binary"] == false)
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                (f["insertions"].as_u64().unwrap(), f["deletions"].as_u64().unwrap()),
            )
        })
        .collect();
    let theirs: BTreeMap<String, (u64, u64)> = numstat
        .lines()
        .filter(|l| !l.starts_with('-'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            // A rename's path is written `old => new` (or `dir/{a => b}`): compare the plain ones.
            (!f[2].contains(" => ")).then(|| (f[2].to_string(), (f[0].parse().unwrap(), f[1].parse().unwrap())))
        })
        .collect();
    for (path, counts) in &theirs {
        assert_eq!(ours.get(path), Some(counts), "{path}");
    }
}

/// Commits with the given author and the dates in their own offsets.
fn commit_as(t: &TestDir, author: &str, author_date: &str, committer_date: &str, message: &str) {
    let ok = Command::new("git")
        .args(["commit", "-qam", message])
        .current_dir(t.root())
        .env("GIT_AUTHOR_NAME", author)
        .env("GIT_AUTHOR_EMAIL", "long@example.com")
        .env("GIT_AUTHOR_DATE", author_date)
        .env("GIT_COMMITTER_NAME", "Committer With A Long Näme")
        .env("GIT_COMMITTER_EMAIL", "c@example.com")
        .env("GIT_COMMITTER_DATE", committer_date)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git commit {message}");
}

/// The lines of a unified diff's hunks (context, added, removed), without
/// the file headers.
fn hunk_body(text: &str) -> Vec<String> {
    let mut in_hunk = false;
    let mut out = Vec::new();
    for l in text.lines() {
        if l.starts_with("@@ ") {
            in_hunk = true;
        } else if in_hunk && (l.starts_with(' ') || l.starts_with('+') || l.starts_with('-')) {
            out.push(l.to_string());
        } else {
            in_hunk = false;
        }
    }
    out
}

/// Times keep the author's and the committer's own offsets, as git's `%aI`
/// and `%cI` print them; names are whole in JSON and text; a diff's text
/// form shows tabs as tabs, as `git diff` does.
#[test]
fn times_names_and_tabs_are_what_git_says() {
    let t = TestDir::new();
    t.git_init();
    let long = "Ångström Ünïcode-Longname Author";
    t.write("tabs.txt", "a\tb\n\tindented\nplain\n").git(&["add", "."]);
    commit_as(&t, long, "2026-07-07T00:20:39+02:00", "2026-07-06T18:00:00-05:30", "first");
    t.write("tabs.txt", "a\tB\n\tindented\nplain\n\tnew\ttabs\n");
    commit_as(&t, "Short", "2026-01-02T03:04:05-05:30", "2026-01-02T23:59:59+14:00", "second");

    let theirs = git_out(&t, &["log", "--format=%H%x1f%aI%x1f%cI%x1f%an%x1f%cn"]);
    let theirs: Vec<Vec<&str>> = theirs.lines().map(|l| l.split('\x1f').collect()).collect();
    assert_eq!(theirs[1][1], "2026-07-07T00:20:39+02:00", "git's own word, for the record");
    let v = llm_git(&t, &["log"], 0);
    let ours: Vec<Vec<&str>> = v["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| ["commit", "time", "commit_time", "author", "committer"].map(|k| c[k].as_str().unwrap()).to_vec())
        .collect();
    assert_eq!(ours, theirs, "log: {v}");
    let v = llm_git(&t, &["show", "HEAD~1"], 0);
    let c = &v["commit"];
    assert_eq!(
        [&c["time"], &c["commit_time"], &c["author"], &c["committer"]].map(|x| x.as_str().unwrap()),
        [theirs[1][1], theirs[1][2], theirs[1][3], theirs[1][4]],
        "show: {v}"
    );

    // Blame: each line's author and time are its commit's, as log says them.
    let by_commit: BTreeMap<&str, &Vec<&str>> = theirs.iter().map(|c| (c[0], c)).collect();
    let v = llm_git(&t, &["blame", "tabs.txt"], 0);
    for l in v["lines"].as_array().unwrap() {
        let c = by_commit[l["commit"].as_str().unwrap()];
        assert_eq!((l["time"].as_str().unwrap(), l["author"].as_str().unwrap()), (c[1], c[3]), "{l}");
    }
    assert_eq!(v["lines"][0]["text"], "a\tB");

    // Text: the whole name, the author's own date, real tabs.
    let (log_text, _) = identity(t.cmd("llm-git")).args(["log"]).expect_exit(0);
    assert!(log_text.contains(&format!("2026-07-07 {long} first")), "{log_text}");
    let (blame_text, _) = identity(t.cmd("llm-git")).args(["blame", "tabs.txt"]).expect_exit(0);
    assert!(blame_text.contains(long), "{blame_text}");
    assert!(blame_text.lines().any(|l| l.ends_with("\t\tnew\ttabs")), "{blame_text}");
    let (show_text, _) = identity(t.cmd("llm-git")).args(["show", "HEAD"]).expect_exit(0);
    assert_eq!(hunk_body(&show_text), hunk_body(&git_out(&t, &["show", "HEAD"])), "{show_text}");
    t.write("tabs.txt", "a\tB\n\tindented\tmore\nplain\n\tnew\ttabs\n");
    let (diff_text, _) = identity(t.cmd("llm-git")).args(["diff"]).expect_exit(0);
    let git_diff = hunk_body(&git_out(&t, &["diff"]));
    assert!(git_diff.iter().any(|l| l.contains('\t')), "{git_diff:?}");
    assert_eq!(hunk_body(&diff_text), git_diff, "{diff_text}");
}

/// A line not yet committed is blamed on now, in the local offset git
/// gives it: said with that offset too.
#[test]
fn an_uncommitted_lines_blame_time_has_the_local_offset() {
    let t = TestDir::new();
    t.git_init();
    t.write("f.txt", "a\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.write("f.txt", "a\nnot yet\n");
    // POSIX TZ: `XYZ-3` is three hours east of UTC, so git says +0300.
    let v: Value = identity(t.cmd("llm-git")).env("TZ", "XYZ-3").args(["blame", "f.txt"]).json(0);
    let line = &v["lines"][1];
    assert_eq!(line["commit"], "0".repeat(40), "{v}");
    let time = line["time"].as_str().unwrap();
    assert!(time.ends_with("+03:00") && time.len() == "2026-01-01T00:00:00+03:00".len(), "{time}");
}

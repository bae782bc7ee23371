//! git through the gate (issue 48, item 4): a repository's own state — its
//! `.git/config`, its hooks, a work tree set elsewhere — written by whoever
//! wrote the repository (a sandboxed command, an archive), tries each seam
//! of llm-git and of the read-only tools that ask git (`changed`), and
//! fails. Each plant is first shown to work on plain git, so every test can
//! fail. Names that are not UTF-8 are spelled `\xHH` in every output and
//! taken back in that spelling.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use aide_tests::TestDir;
use aide_tests::mcp::McpClient;
use serde_json::{Value, json};

/// A folder beside the root (outside it), where the plants leave their marks.
fn outside(t: &TestDir) -> PathBuf {
    let dir = t.root().parent().unwrap().join("outside");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An executable script outside the root that leaves `mark` (outside too)
/// and then passes its input through (a filter's stdin, a textconv's file).
fn planted_program(t: &TestDir, name: &str) -> (PathBuf, PathBuf) {
    let dir = outside(t);
    let mark = dir.join(format!("ran-{name}"));
    let script = dir.join(name);
    let body = format!(
        "#!/bin/sh\ntouch '{}'\nif [ -n \"$1\" ] && [ -f \"$1\" ]; then cat \"$1\"; else cat; fi\n",
        mark.display()
    );
    executable(&script, &body);
    (script, mark)
}

fn executable(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Plain git in the root, whatever it exits with (the plants' proof runs).
fn plain_git(t: &TestDir, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(t.root())
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap()
}

/// llm-git's JSON (`--json` first: a `--` among the arguments ends the flags).
fn llm_git(t: &TestDir, args: &[&str], code: i32) -> Value {
    let (stdout, _) = identity(t.cmd("llm-git")).arg("--json").args(args).expect_exit(code);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

fn identity(c: aide_tests::TestCommand) -> aide_tests::TestCommand {
    c.env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
}

/// A repository with `a.txt` committed and then changed.
fn repo() -> TestDir {
    let t = TestDir::new();
    t.git_init();
    t.git(&["checkout", "-q", "-b", "main"]);
    t.write("a.txt", "one\n").git(&["add", "."]).git(&["commit", "-qm", "base"]);
    t.write("a.txt", "two\n");
    t
}

/// Proves a plant works on plain git (so the test can fail), then clears its mark.
fn proven(mark: &Path, what: &str) {
    assert!(mark.exists(), "the plant did not run on plain git ({what}): the test proves nothing");
    std::fs::remove_file(mark).unwrap();
}

fn mcp(t: &TestDir, args: &[&str]) -> McpClient {
    McpClient::initialized(t.root(), t.home(), args, json!({}))
}

fn code(result: &Value) -> &str {
    result["structuredContent"]["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn a_planted_fsmonitor_never_runs_from_llm_git_or_a_changed_walk() {
    let t = repo();
    let (script, mark) = planted_program(&t, "fsmonitor");
    t.git(&["config", "core.fsmonitor", script.to_str().unwrap()]);
    plain_git(&t, &["status"]);
    proven(&mark, "git status");

    for args in [&["status"][..], &["diff"], &["log"], &["blame", "a.txt"], &["add", "a.txt"], &["commit", "-m", "m"]] {
        llm_git(&t, args, 0);
        assert!(!mark.exists(), "llm-git {args:?} ran the repository's fsmonitor");
    }
    t.write("a.txt", "three\n");
    let v: Value = t.cmd("llm-search").args(["--changed", "-e", "three"]).json(0);
    assert_eq!(v["matches"][0]["path"], "a.txt", "{v}");
    assert!(!mark.exists(), "a --changed walk ran the repository's fsmonitor");

    // The read-only tools of `aide mcp`: git status and a search of what changed.
    let mut client = mcp(&t, &[]);
    let r = client.call("git", json!({ "command": "status" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    let r = client.call("search", json!({ "pattern": "three", "changed": "HEAD" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(!mark.exists(), "a read-only MCP tool ran the repository's fsmonitor");
}

#[test]
fn the_repositorys_own_filters_textconv_and_signing_programs_never_run() {
    let t = repo();
    t.write(".gitattributes", "*.txt filter=planted diff=planted\n").git(&["add", ".gitattributes"]);
    t.git(&["commit", "-qm", "attributes"]);
    let (script, mark) = planted_program(&t, "filter");
    let program = script.to_str().unwrap();
    for key in ["filter.planted.clean", "filter.planted.smudge", "diff.planted.textconv"] {
        t.git(&["config", key, program]);
    }
    plain_git(&t, &["diff"]);
    proven(&mark, "git diff's textconv");
    plain_git(&t, &["add", "a.txt"]);
    proven(&mark, "git add's clean filter");
    plain_git(&t, &["reset", "-q"]);
    let _ = std::fs::remove_file(&mark);

    let v = llm_git(&t, &["status"], 0);
    let said: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["message"].as_str()).collect();
    assert!(
        v["diagnostics"][0]["code"] == "git_config_ignored" && said[0].contains("filter.planted.clean"),
        "the ignored settings are said: {v}"
    );
    let v = llm_git(&t, &["diff"], 0);
    assert_eq!(v["files"][0]["hunks"][0]["lines"][1]["text"], "two", "the file's own lines: {v}");
    llm_git(&t, &["blame", "a.txt"], 0);
    llm_git(&t, &["add", "a.txt"], 0);
    llm_git(&t, &["commit", "-m", "two"], 0);
    llm_git(&t, &["show", "HEAD"], 0);
    llm_git(&t, &["branch", "side", "--create", "--start", "HEAD~1", "--switch"], 0);
    llm_git(&t, &["branch", "main", "--switch"], 0);
    assert!(!mark.exists(), "llm-git ran a filter or textconv of the repository's");
    let mut client = mcp(&t, &[]);
    let r = client.call("git", json!({ "command": "diff", "rev": "HEAD~1" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(!mark.exists(), "the read-only git tool ran a textconv of the repository's");

    // A log that would check signatures, and a commit that would sign.
    let signed = signed_copy_of_head(&t);
    t.git(&["update-ref", "HEAD", &signed]);
    t.git(&["config", "gpg.program", program]).git(&["config", "log.showSignature", "true"]);
    plain_git(&t, &["log", "-1"]);
    proven(&mark, "git log's signature check");
    llm_git(&t, &["log"], 0);
    t.git(&["config", "commit.gpgSign", "true"]);
    t.write("a.txt", "signed?\n");
    plain_git(&t, &["commit", "-qam", "signed"]);
    proven(&mark, "git commit's signing program");
    llm_git(&t, &["add", "a.txt"], 0);
    // git's own gpg (with no key here, or none installed) may refuse to sign: never the planted program.
    let out = identity(t.cmd("llm-git")).args(["--json", "commit", "-m", "signed"]).output();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["ok"] == true || v["error"]["code"] == "git_failed", "{v}");
    assert!(!mark.exists(), "llm-git ran the repository's signing or verifying program");
}

/// HEAD's commit again with a (made-up) signature header: what makes a log
/// that shows signatures run the verifying program.
fn signed_copy_of_head(t: &TestDir) -> String {
    let raw = String::from_utf8(plain_git(t, &["cat-file", "commit", "HEAD"]).stdout).unwrap();
    let (headers, message) = raw.split_once("\n\n").unwrap();
    let signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----";
    let text = format!("{headers}\n{signature}\n\n{message}");
    let mut child = Command::new("git")
        .args(["hash-object", "-t", "commit", "-w", "--stdin"])
        .current_dir(t.root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap().trim().to_string()
}

#[test]
fn the_users_own_filters_still_apply() {
    let t = repo();
    let global = t.root().parent().unwrap().join("global.gitconfig");
    std::fs::write(&global, "[filter \"upper\"]\n\tclean = tr a-z A-Z\n\tsmudge = cat\n").unwrap();
    t.write(".gitattributes", "*.up filter=upper\n").write("x.up", "quiet\n");
    let v: Value = identity(t.cmd("llm-git")).env("GIT_CONFIG_GLOBAL", &global).args(["add", "x.up"]).json(0);
    assert_eq!(v["added"][0]["path"], "x.up", "{v}");
    assert_eq!(plain_git(&t, &["show", ":x.up"]).stdout, b"QUIET\n", "the user's clean filter ran");
}

#[test]
fn a_partial_clones_remote_is_never_fetched_from() {
    let t = repo();
    let mark = outside(&t).join("ran-fetch");
    for (key, value) in [
        ("core.repositoryformatversion", "1".to_string()),
        ("extensions.partialClone", "origin".into()),
        ("remote.origin.promisor", "true".into()),
        ("protocol.ext.allow", "always".into()),
        ("remote.origin.url", format!("ext::sh -c touch% {}", mark.display())),
    ] {
        t.git(&["config", key, &value]);
    }
    let missing = "0123456789012345678901234567890123456789";
    plain_git(&t, &["cat-file", "-t", missing]);
    proven(&mark, "a lazy fetch of a missing object");
    let v = llm_git(&t, &["show", missing], 2);
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    llm_git(&t, &["diff", "HEAD"], 0);
    assert!(!mark.exists(), "llm-git fetched from the repository's remote");
}

fn sandbox_available(t: &TestDir) -> bool {
    let v = t.cmd("llm-shell").args(["--json", "exec", "--sandbox", "workspace-write", "--", "true"]).output();
    if !v.status.success() {
        aide_tests::skip("a kernel with Landlock and user namespaces", "hooks in the server's sandbox");
    }
    v.status.success()
}

/// git's semantics, kept: pre-commit and commit-msg abort, prepare-commit-msg
/// gets the message file and its source, commit-msg may rewrite the message,
/// post-commit and post-checkout run after, hooks come from core.hooksPath.
#[test]
fn hooks_run_as_git_runs_them_through_the_gate() {
    let t = repo();
    let hooks = t.root().join(".git/hooks");
    executable(&hooks.join("pre-commit"), "#!/bin/sh\necho 'tests fail' >&2\nexit 1\n");
    // A hook of an event llm-git does not run hooks for is said, never silently skipped.
    executable(&hooks.join("post-index-change"), "#!/bin/sh\ntouch index-changed\n");
    let v = llm_git(&t, &["add", "a.txt"], 0);
    assert_eq!(v["diagnostics"][0]["code"], "hook_not_run", "{v}");
    assert!(!t.root().join("index-changed").exists());
    let v = llm_git(&t, &["commit", "-m", "refused"], 3);
    assert_eq!(v["error"]["code"], "hook_failed", "{v}");
    assert_eq!(
        (v["error"]["details"]["hook"].as_str(), v["error"]["details"]["exit_code"].as_i64()),
        (Some("pre-commit"), Some(1))
    );
    assert!(v["error"]["details"]["stderr_tail"].as_str().unwrap().contains("tests fail"), "{v}");
    let subject = |t: &TestDir| String::from_utf8(plain_git(t, &["log", "-1", "--format=%s%n%b"]).stdout).unwrap();
    assert_eq!(subject(&t).trim(), "base", "nothing was committed");

    executable(&hooks.join("pre-commit"), "#!/bin/sh\ntest -f \"$GIT_INDEX_FILE\" || exit 7\n");
    executable(&hooks.join("prepare-commit-msg"), "#!/bin/sh\necho \"$2\" > prepared\n");
    executable(&hooks.join("commit-msg"), "#!/bin/sh\nprintf '\\nSigned-off-by: hook\\n' >> \"$1\"\n");
    executable(&hooks.join("post-commit"), "#!/bin/sh\ngit rev-parse HEAD > committed\n");
    let v = llm_git(&t, &["commit", "-m", "kept"], 0);
    assert_eq!(
        (v["committed"]["subject"].as_str(), v["committed"]["body"].as_str()),
        (Some("kept"), Some("Signed-off-by: hook")),
        "{v}"
    );
    assert_eq!(std::fs::read_to_string(t.root().join("prepared")).unwrap(), "message\n");
    let head = String::from_utf8(plain_git(&t, &["rev-parse", "HEAD"]).stdout).unwrap();
    assert_eq!(std::fs::read_to_string(t.root().join("committed")).unwrap(), head, "post-commit ran after the commit");

    executable(&hooks.join("commit-msg"), "#!/bin/sh\nexit 3\n");
    t.write("a.txt", "three\n");
    llm_git(&t, &["add", "a.txt"], 0);
    let v = llm_git(&t, &["commit", "-m", "refused"], 3);
    assert_eq!(v["error"]["details"]["hook"], "commit-msg", "{v}");
    assert_eq!(subject(&t).lines().next(), Some("kept"));

    // core.hooksPath, relative to the top of the work tree.
    std::fs::remove_dir_all(&hooks).unwrap();
    t.git(&["reset", "-q", "--hard"]);
    t.git(&["config", "core.hooksPath", "myhooks"]);
    executable(&t.root().join("myhooks/post-checkout"), "#!/bin/sh\necho \"$1 $2 $3\" > checked-out\n");
    let before = String::from_utf8(plain_git(&t, &["rev-parse", "HEAD"]).stdout).unwrap();
    let v = llm_git(&t, &["branch", "side", "--create", "--switch", "--start", "HEAD~1"], 0);
    assert_eq!(v["switched"], "side", "{v}");
    let after = String::from_utf8(plain_git(&t, &["rev-parse", "HEAD"]).stdout).unwrap();
    let said = std::fs::read_to_string(t.root().join("checked-out")).unwrap();
    assert_eq!(said, format!("{} {} 1\n", before.trim(), after.trim()));
}

/// A hook file without `#!` runs with /bin/sh, as git runs it; hooks the
/// configuration defines (git 2.54's `[hook "name"] event = … command = …`)
/// run first, in the order git reads them, through the gate, never from git
/// itself, and one that fails aborts the commit.
#[test]
fn hooks_without_a_shebang_and_configured_hooks_run_as_git_runs_them() {
    let t = repo();
    let hooks = t.root().join(".git/hooks");
    executable(&hooks.join("pre-commit"), "echo folder >> order\n");
    t.git(&["config", "hook.first.event", "pre-commit"]);
    t.git(&["config", "hook.first.command", "echo \"first $#\" >> order"]);
    t.git(&["config", "hook.second.command", "echo second >> order"]);
    t.git(&["config", "hook.second.event", "pre-commit"]);
    t.git(&["config", "hook.msg.event", "commit-msg"]);
    t.git(&["config", "hook.msg.command", "grep -q kept"]);
    t.write("a.txt", "changed\n");
    llm_git(&t, &["add", "a.txt"], 0);
    let v = llm_git(&t, &["commit", "-m", "kept"], 0);
    assert_eq!(v["committed"]["subject"], "kept", "{v}");
    let order = std::fs::read_to_string(t.root().join("order")).unwrap();
    assert_eq!(order, "first 0\nsecond\nfolder\n", "configured hooks first, in config order, then the folder's");

    // commit-msg's configured hook gets the message file: it refuses this one.
    t.write("a.txt", "again\n");
    llm_git(&t, &["add", "a.txt"], 0);
    let v = llm_git(&t, &["commit", "-m", "refused"], 3);
    assert_eq!(v["error"]["code"], "hook_failed", "{v}");
    assert_eq!(v["error"]["details"]["hook"], "commit-msg");

    // A disabled hook does not run, and git itself runs none (whatever its version).
    t.git(&["config", "hook.msg.enabled", "false"]);
    std::fs::remove_file(t.root().join("order")).unwrap();
    llm_git(&t, &["commit", "-m", "now"], 0);
    assert_eq!(std::fs::read_to_string(t.root().join("order")).unwrap(), "first 0\nsecond\nfolder\n");
}

/// A hook planted in the repository runs in the server's sandbox under
/// `aide mcp`: it cannot write outside the root.
#[test]
fn a_planted_hook_runs_in_the_servers_sandbox() {
    if !aide_tests::sandbox_here("the server's sandbox") {
        return;
    }
    let t = repo();
    if !sandbox_available(&t) {
        return;
    }
    let mark = outside(&t).join("ran-hook");
    let plant = format!("#!/bin/sh\ntouch '{}'\nexit 0\n", mark.display());
    for hook in ["pre-commit", "post-commit", "post-checkout"] {
        executable(&t.root().join(".git/hooks").join(hook), &plant);
    }
    t.git(&["config", "user.name", "t"]).git(&["config", "user.email", "t@example.com"]);
    plain_git(&t, &["commit", "-qam", "plain"]);
    proven(&mark, "git commit's hooks");

    let mut client = mcp(&t, &[]);
    t.write("a.txt", "from the model\n");
    let r = client.call("git_write", json!({ "command": "add", "paths": ["a.txt"] }));
    assert_eq!(r["isError"], json!(false), "{r}");
    let r = client.call("git_write", json!({ "command": "commit", "message": "model" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    let r = client.call("git_write", json!({ "command": "branch", "name": "side", "create": true, "switch": true }));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(!mark.exists(), "a hook wrote outside the root under aide mcp");

    // Unsandboxed, the same hooks run (through the gate, as git runs them).
    let mut client = mcp(&t, &["--sandbox", "off"]);
    t.write("a.txt", "again\n");
    client.call("git_write", json!({ "command": "add", "paths": ["a.txt"] }));
    let r = client.call("git_write", json!({ "command": "commit", "message": "unsandboxed" }));
    assert_eq!(r["isError"], json!(false), "{r}");
    assert!(mark.exists(), "the server with no sandbox runs the hook");
}

#[test]
fn a_work_tree_set_outside_the_root_is_refused_before_anything_runs() {
    let t = repo();
    let elsewhere = outside(&t).join("tree");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("secret.txt"), "s\n").unwrap();
    let (script, mark) = planted_program(&t, "fsmonitor");
    t.git(&["config", "core.worktree", elsewhere.to_str().unwrap()]);
    t.git(&["config", "core.fsmonitor", script.to_str().unwrap()]);
    let listed = String::from_utf8(plain_git(&t, &["status", "--porcelain"]).stdout).unwrap();
    assert!(listed.contains("secret.txt"), "plain git lists the other folder: {listed}");
    proven(&mark, "git status");

    for args in [&["status"][..], &["diff"], &["add", "secret.txt"], &["log"]] {
        let v = llm_git(&t, args, 2);
        assert_eq!(v["error"]["code"], "path_outside_root", "{args:?}: {v}");
        assert!(v["error"]["hint"].as_str().unwrap().contains("core.worktree"), "{v}");
    }
    let v: Value = t.cmd("llm-search").args(["--changed", "-e", "s"]).json(2);
    assert_eq!(v["error"]["code"], "path_outside_root", "{v}");
    let mut client = mcp(&t, &[]);
    let r = client.call("git", json!({ "command": "status" }));
    assert_eq!(code(&r), "path_outside_root", "{r}");
    assert!(!mark.exists(), "something ran before the refusal");
    assert_eq!(plain_git(&t, &["diff", "--cached", "--name-only"]).stdout, b"", "nothing was staged");

    // GIT_WORK_TREE does the same from the environment.
    t.git(&["config", "--unset", "core.worktree"]).git(&["config", "--unset", "core.fsmonitor"]);
    let v: Value = t.cmd("llm-git").env("GIT_WORK_TREE", &elsewhere).args(["status"]).json(2);
    assert_eq!(v["error"]["code"], "path_outside_root", "{v}");

    // A linked work tree's git directory lies elsewhere: that is git's own layout, and fine.
    let linked = outside(&t).join("linked");
    t.git(&["worktree", "add", "-q", linked.to_str().unwrap()]);
    let v: Value = t.cmd("llm-git").args(["--root", linked.to_str().unwrap(), "status"]).json(0);
    assert_eq!(v["branch"]["head"], "linked", "{v}");

    // A root below the top sees its own files, but a switch would change the whole work tree.
    t.write("sub/b.txt", "b\n");
    let v = llm_git(&t, &["--root", "sub", "branch", "main", "--switch"], 2);
    assert_eq!(v["error"]["code"], "path_outside_root", "{v}");
}

/// A name in the contract's spelling: `\xHH` for a byte that is not UTF-8,
/// `\\` for a backslash.
#[test]
fn names_that_are_not_utf8_are_spelled_with_xhh_both_ways() {
    let t = repo();
    let latin1 = t.root().join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
    std::fs::write(&latin1, "x\n").unwrap();
    t.write(r"back\xff.txt", "y\n");
    let (byte_name, backslash_name) = (r"caf\xe9.txt", r"back\\xff.txt");

    let v = llm_git(&t, &["status"], 0);
    let paths: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt", backslash_name, byte_name], "{v}");
    let lossy: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "lossy_utf8")
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(lossy, [byte_name], "only the name that is not UTF-8: {v}");

    // Given back as printed, each name is its own file.
    let v = llm_git(&t, &["add", byte_name, backslash_name], 0);
    let added: Vec<&str> = v["added"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(added, [backslash_name, byte_name], "{v}");
    let staged = plain_git(&t, &["diff", "--cached", "--name-only", "-z"]).stdout;
    assert_eq!(staged, b"back\\xff.txt\0caf\xe9.txt\0", "git staged exactly those names");
    let v = llm_git(&t, &["diff", "--staged"], 0);
    let paths: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [backslash_name, byte_name], "{v}");
    llm_git(&t, &["commit", "-m", "names"], 0);
    let v = llm_git(&t, &["show", "HEAD"], 0);
    let mut paths: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    paths.sort_unstable();
    assert_eq!(paths, [backslash_name, byte_name], "{v}");
    let v = llm_git(&t, &["show", &format!("HEAD:{byte_name}")], 0);
    assert_eq!(v["content"], "x\n", "{v}");
    let v = llm_git(&t, &["show", "HEAD:"], 0);
    assert_eq!(v["entries"], json!(["a.txt", backslash_name, byte_name]), "{v}");
    let v = llm_git(&t, &["blame", byte_name], 0);
    assert_eq!(v["lines"][0]["original_path"], byte_name, "{v}");
    let v = llm_git(&t, &["log", "--path", byte_name], 0);
    assert_eq!(v["commits"][0]["subject"], "names", "{v}");

    std::fs::write(&latin1, "changed\n").unwrap();
    let v = llm_git(&t, &["diff", "--", byte_name], 0);
    assert_eq!(
        (v["files"][0]["path"].as_str(), v["files"][0]["hunks"][0]["lines"][1]["text"].as_str()),
        (Some(byte_name), Some("changed")),
        "{v}"
    );
    let v = llm_git(&t, &["restore", byte_name], 0);
    assert_eq!(v["restored"][0]["path"], byte_name, "{v}");
    assert_eq!(std::fs::read_to_string(&latin1).unwrap(), "x\n", "restored the file with byte 0xE9");
}

/// A submodule's own configuration is the repository's too: git's status
/// of the superproject asks the submodule's status, where a filter would run.
#[test]
fn a_submodules_own_filter_never_runs_from_the_superprojects_status() {
    let t = repo();
    let sub = t.root().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let in_sub = |args: &[&str]| {
        assert!(Command::new("git").args(args).current_dir(&sub).output().unwrap().status.success(), "{args:?}")
    };
    in_sub(&["init", "-q"]);
    std::fs::write(sub.join(".gitattributes"), "*.txt filter=planted\n").unwrap();
    std::fs::write(sub.join("s.txt"), "s\n").unwrap();
    in_sub(&["add", "."]);
    in_sub(&["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "s"]);
    t.git(&["submodule", "add", "-q", "./sub", "sub"]).git(&["commit", "-qm", "submodule"]);
    let (script, mark) = planted_program(&t, "filter");
    in_sub(&["config", "filter.planted.clean", script.to_str().unwrap()]);
    // Same size, new time: git must read the file (through its filter) to tell.
    std::fs::write(sub.join("s.txt"), "u\n").unwrap();
    plain_git(&t, &["status", "--porcelain"]);
    proven(&mark, "the superproject's git status");
    std::fs::write(sub.join("s.txt"), "v\n").unwrap();
    let v = llm_git(&t, &["status"], 0);
    assert_eq!(v["files"][1]["path"], "sub", "{v}");
    assert!(!mark.exists(), "the submodule's own filter ran from llm-git status");
}

//! What a person at a shell gets: completions and man pages from every
//! binary, colour on a terminal only, `aide doctor`.

use aide_tests::TestDir;

/// Every tool of the catalogue.
fn binaries() -> impl Iterator<Item = &'static str> {
    aide::TOOLS.iter().map(|t| t.name)
}

#[test]
fn every_binary_generates_completions_and_a_man_page() {
    let t = TestDir::new();
    for bin in binaries() {
        let (bash, _) = t.cmd(bin).args(["--generate", "complete-bash"]).expect_exit(0);
        assert!(bash.contains(&format!("complete -F _{}", bin.replace('-', "__"))), "{bin}: {bash}");
        // The script is valid bash.
        let check = std::process::Command::new("bash").args(["-n", "-c", &bash]).output().unwrap();
        assert!(check.status.success(), "{bin}: {}", String::from_utf8_lossy(&check.stderr));
        for shell in ["zsh", "fish", "powershell"] {
            let (script, _) = t.cmd(bin).arg(format!("--generate=complete-{shell}")).expect_exit(0);
            assert!(script.contains(bin), "{bin} {shell}");
        }
        let (man, _) = t.cmd(bin).args(["--generate", "man"]).expect_exit(0);
        assert!(man.starts_with(".ie") || man.contains(".TH"), "{bin}: {man}");
        assert!(man.contains(".SH NAME") && man.contains(&bin.replace('-', "\\-")), "{bin}");
    }
    // Flags a tool requires need not be given, and subcommands are in the script.
    let (bash, _) = t.cmd("llm-shell").args(["--generate", "complete-bash"]).expect_exit(0);
    assert!(bash.contains("exec") && bash.contains("session"));
    // `aide mcp` runs outside the harness, and is completed all the same.
    let (fish, _) = t.cmd("aide").args(["--generate", "complete-fish"]).expect_exit(0);
    assert!(fish.contains("-a \"mcp\"") && fish.contains("__fish_aide_using_subcommand mcp\" -l root"), "{fish}");

    let e: aide_tests::wire::ErrorResult = t.cmd("llm-read").args(["--generate", "complete-tcsh"]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    assert!(e.error.hint.unwrap().contains("complete-bash"));
}

#[test]
fn the_install_task_puts_completions_and_man_pages_where_shells_and_man_look() {
    let t = TestDir::new();
    let home = t.root().join("home");
    let root = t.root().join("cargo");
    // `cargo xtask install` minus the `cargo install` step: the binaries already built.
    let (_, summary) = t
        .cmd("xtask")
        .args(["install", "--root"])
        .arg(&root)
        .arg("--binaries")
        .arg(aide_tests::bin_dir())
        .env("HOME", &home)
        .env("XDG_DATA_HOME", "")
        .env("XDG_CONFIG_HOME", "")
        .expect_exit(0);
    assert!(summary.contains("fpath=("), "{summary}");
    for bin in binaries() {
        let man = std::fs::read_to_string(root.join(format!("share/man/man1/{bin}.1"))).unwrap();
        assert!(man.contains(".TH"), "{bin}");
        let fish = home.join(format!(".config/fish/completions/{bin}.fish"));
        assert!(std::fs::read_to_string(fish).unwrap().contains("complete -c"), "{bin}");
        assert!(home.join(format!(".local/share/zsh/site-functions/_{bin}")).is_file(), "{bin}");
        // bash-completion's loader sources the file by the command's name; it must register it.
        let bash = home.join(format!(".local/share/bash-completion/completions/{bin}"));
        let script = format!("source {:?} && complete -p {bin}", bash);
        let out = std::process::Command::new("bash").args(["-c", &script]).output().unwrap();
        assert!(out.status.success(), "{bin}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn doctor_passes_a_sound_setup_and_names_each_miss_with_its_fix() {
    let t = TestDir::new();
    let doc: serde_json::Value = t.cmd("aide").args(["doctor"]).json(0);
    assert_eq!(doc["healthy"], true, "{doc:#}");
    let check = |doc: &serde_json::Value, name: &str| {
        doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == name).cloned().unwrap()
    };
    assert_eq!(check(&doc, "bash")["status"], "ok");
    assert!(check(&doc, "bash")["detail"].as_str().unwrap().contains("bash"));
    assert_eq!(check(&doc, "aide_home")["status"], "ok");

    // No bash on PATH: llm-shell and llm-jobs cannot work.
    let empty = t.root().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    let doc: serde_json::Value = t.cmd("aide").args(["doctor"]).env("PATH", &empty).json(3);
    let bash = check(&doc, "bash");
    assert_eq!((bash["status"].as_str(), bash["detail"].as_str()), (Some("fail"), Some("not found on PATH")));
    assert!(bash["fix"].as_str().unwrap().contains("apt-get install bash"));
    // Oracles of the test suite only warn; so do checkers llm-lint cannot find.
    assert_eq!(check(&doc, "rg")["status"], "warn");
    let shellcheck = check(&doc, "lint_shellcheck");
    assert_eq!(shellcheck["status"], "warn");
    assert!(shellcheck["fix"].as_str().unwrap().contains("apt-get install shellcheck"), "{shellcheck}");

    // A damaged log, a transform that died mid-commit, a session folder without its meta.
    std::fs::write(t.home().join("log.db"), vec![b'x'; 8192]).unwrap();
    let journal = t.home().join("transform/journal");
    std::fs::create_dir_all(&journal).unwrap();
    let record = serde_json::json!({"execution_id": "0123456789abcdef", "root": t.root(), "files": []});
    std::fs::write(journal.join("0123456789abcdef.json"), record.to_string()).unwrap();
    std::fs::create_dir_all(t.home().join("shell/sessions/broken")).unwrap();
    let (text, _) = t.cmd("aide").args(["doctor"]).expect_exit(3);
    let line = |name: &str| text.lines().find(|l| l.split_whitespace().nth(1) == Some(name)).unwrap().to_string();
    assert!(line("log").starts_with("fail"), "{text}");
    assert!(line("transform_journals").contains("0123456789abcdef"), "{text}");
    assert!(line("shell_sessions").starts_with("warn"), "{text}");
    assert!(text.contains(&format!("fix: llm-transform recover --root {}", t.root().display())), "{text}");
    assert!(text.contains("(mv "), "{text}");
    assert!(text.contains("broken"), "{text}");
    // The log and the journal fail; the sessions (and rg or ctags where missing) warn.
    assert!(text.trim_end().lines().last().unwrap().starts_with("2 failed, "), "{text}");
}

const RED_BOLD: &str = "\x1b[1m\x1b[31m";

#[test]
fn text_is_coloured_only_when_asked_or_on_a_terminal_and_never_as_json() {
    let t = TestDir::new();
    t.write("src/a.rs", "fn foo() { foo(); }\n// \x1b[2J foo\n");
    // --color always: path magenta, line green, every match on a line marked;
    // a file's own escape sequence is still shown escaped.
    let (out, _) = t.cmd("llm-search").args(["--pattern", "foo", "--color", "always"]).expect_exit(0);
    let first = out.lines().next().unwrap();
    assert_eq!(
        first,
        format!("\x1b[35msrc/a.rs\x1b[0m:\x1b[32m1\x1b[0m:4: fn {RED_BOLD}foo\x1b[0m() {{ {RED_BOLD}foo\x1b[0m(); }}")
    );
    assert_eq!(out.lines().count(), 2, "{out:?}");
    assert!(out.contains("\\x1b[2J"), "{out:?}");
    let ours = ["\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[35m"];
    assert!(!ours.iter().fold(out.clone(), |o, sgr| o.replace(sgr, "")).contains('\x1b'), "{out:?}");

    // Piped and not asked: no escape sequence from any tool.
    for (tool, args) in [
        ("llm-search", vec!["--pattern", "foo"]),
        ("llm-read", vec!["src/a.rs"]),
        ("llm-ast-search", vec!["src/a.rs"]),
        ("llm-discover", vec!["--query", "a"]),
        ("aide", vec!["tools"]),
    ] {
        let (out, err) = t.cmd(tool).args(&args).expect_exit(0);
        assert!(!out.contains('\x1b'), "{tool}: {out:?}");
        assert!(!err.contains('\x1b'), "{tool}: {err:?}");
        // JSON is never coloured, even when asked.
        let (json, _) = t.cmd(tool).args(&args).args(["--json", "--color", "always"]).expect_exit(0);
        assert!(!json.contains('\x1b'), "{tool}: {json}");
    }

    // On a terminal, auto colours, and NO_COLOR turns it off.
    if !aide_tests::oracle("script", "colour on a terminal (util-linux script gives the tool a pty)") {
        return;
    }
    let on_pty = |no_color: bool| {
        let line = format!("{} --pattern foo --limit 1", aide_tests::bin_dir().join("llm-search").display());
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &line, "/dev/null"]).current_dir(t.root()).env("AIDE_HOME", t.home()).env("TERM", "xterm");
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    assert!(on_pty(false).contains("\x1b[35msrc/a.rs"), "{:?}", on_pty(false));
    let plain = on_pty(true);
    assert!(plain.contains("src/a.rs:1:4:") && !plain.contains("\x1b[35m"), "{plain:?}");
}

#[test]
fn long_work_shows_a_progress_line_on_a_terminal_only_and_clears_it() {
    let t = TestDir::new();
    for i in 0..50 {
        t.write(&format!("src/f{i}.rs"), format!("fn f{i}() {{}}\n"));
    }
    // Not a terminal: no progress line, even when it would show at once.
    let (_, err) = t.cmd("llm-search").args(["--pattern", "fn"]).env("AIDE_PROGRESS_AFTER_MS", "0").expect_exit(0);
    assert!(err.is_empty(), "{err:?}");
    if !aide_tests::oracle("script", "the progress line (util-linux script gives the tool a pty)") {
        return;
    }
    let on_pty = |args: &str| {
        let line = format!("{} --pattern fn {args}", aide_tests::bin_dir().join("llm-search").display());
        let out = std::process::Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .current_dir(t.root())
            .env("AIDE_HOME", t.home())
            .env("AIDE_PROGRESS_AFTER_MS", "0")
            .env("TERM", "xterm")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = on_pty("--mode count");
    // Drawn, then cleared (erase line) before the result.
    let drawn = text.find("llm-search: ").unwrap_or_else(|| panic!("{text:?}"));
    let result = text.find("total: 50 matches").unwrap();
    assert!(drawn < result && text[drawn..result].contains("\x1b[2K"), "{text:?}");
    // JSON modes and --quiet never draw it.
    for args in ["--json", "--quiet"] {
        let out = on_pty(args);
        assert!(!out.contains("llm-search: ") && !out.contains("\x1b[2K"), "{args}: {out:?}");
    }
}

/// Every positional argument of `cmd` and its subcommands that has no help.
fn undescribed_positionals(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
    for arg in cmd.get_positionals() {
        if arg.get_help().is_none() && arg.get_long_help().is_none() {
            out.push(format!("{path} <{}>", arg.get_id()));
        }
    }
    for sub in cmd.get_subcommands() {
        undescribed_positionals(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

#[test]
fn every_positional_argument_is_described_and_transform_help_teaches_its_operations() {
    let mut missing = Vec::new();
    for cmd in aide::TOOLS.iter().map(|t| (t.command)()) {
        undescribed_positionals(&cmd, cmd.get_name(), &mut missing);
    }
    assert!(missing.is_empty(), "positionals without a description: {missing:?}");

    let t = TestDir::new();
    let (help, _) = t.cmd("llm-transform").arg("--help").expect_exit(0);
    for op in ["patch", "replace_block", "insert_after_block", "write", "replace_regex", "rewrite", "rename_symbol"] {
        assert!(help.contains(&format!("{{\"op\":\"{op}\"")), "no example of {op} in --help");
    }
}

#[test]
fn doctor_fix_removes_only_the_lock_files_nobody_holds() {
    let t = TestDir::new();
    let locks = t.home().join("transform/locks");
    std::fs::create_dir_all(&locks).unwrap();
    for name in ["a", "b", "held"] {
        std::fs::write(locks.join(name), b"").unwrap();
    }
    // A running transform's lock: held by this process for the whole check.
    let held = std::fs::File::open(locks.join("held")).unwrap();
    held.lock().unwrap();
    let doc: serde_json::Value = t.cmd("aide").args(["doctor"]).json(0);
    let detail = |doc: &serde_json::Value| {
        let check = doc["checks"].as_array().unwrap().iter().find(|c| c["name"] == "transform_locks").unwrap();
        check["detail"].as_str().unwrap().to_string()
    };
    assert!(detail(&doc).starts_with("1 held by a running transform, 2 left"), "{}", detail(&doc));
    let doc: serde_json::Value = t.cmd("aide").args(["doctor", "--fix"]).json(0);
    assert!(detail(&doc).ends_with("removed 2"), "{}", detail(&doc));
    let left: Vec<String> =
        std::fs::read_dir(&locks).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, vec!["held".to_string()]);
    drop(held);
}

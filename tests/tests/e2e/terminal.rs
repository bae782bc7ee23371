//! What a person at a shell gets: completions and man pages from every
//! binary, colour on a terminal only, `aide doctor`.

use aide_tests::TestDir;

const BINARIES: &[&str] =
    &["llm-search", "llm-ast-search", "llm-transform", "llm-read", "llm-discover", "llm-shell", "llm-jobs", "aide"];

#[test]
fn every_binary_generates_completions_and_a_man_page() {
    let t = TestDir::new();
    for bin in BINARIES {
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

    let e: aide_tests::wire::ErrorResult = t.cmd("llm-read").args(["--generate", "complete-tcsh"]).json(2);
    assert_eq!(e.error.code, "invalid_arguments");
    assert!(e.error.hint.unwrap().contains("complete-bash"));
}

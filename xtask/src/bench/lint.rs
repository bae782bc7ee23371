//! llm-lint against running each checker directly, on the same files in
//! one run: the overhead of walking the tree, reading the checker's
//! output, locating every finding and logging the run (issue 36's target:
//! at most 1.1× the checker's own time, plus a constant). A checker not
//! installed here is left out, and said so.

use std::path::Path;
use std::process::Command;

use super::{Cmd, Report, case, fresh_home, release_binary, write_report};
use crate::{Result, say, workspace};

/// Scripts and modules with a few findings each, and a small crate.
fn corpus(dir: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let write = |rel: &str, text: &str| -> Result<()> {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().ok_or("no parent")?).map_err(|e| e.to_string())?;
        std::fs::write(&p, text).map_err(|e| e.to_string())
    };
    for i in 0..200 {
        write(
            &format!("scripts/s{i}.sh"),
            &format!("#!/bin/bash\n# script {i}\nfor f in $(ls); do\n  echo $f ${i}\ndone\ncd `dirname $0`\nexit 0\n"),
        )?;
        write(
            &format!("pkg/m{i}.py"),
            &format!("import os\nimport sys\n\n\ndef f{i}(x):\n    y = x + {i}\n    return undefined_{i} + y\n"),
        )?;
    }
    write("Cargo.toml", "[package]\nname = \"lintbench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n")?;
    let mut lib = String::new();
    for i in 0..50 {
        lib.push_str(&format!("pub fn f{i}(a: u32) -> u32 {{\n    let unused_{i} = a;\n    a + {i}\n}}\n\n"));
    }
    write("src/lib.rs", &lib)?;
    let status = Command::new("git").args(["init", "-q"]).current_dir(dir).status().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("git init failed".into());
    }
    Ok(())
}

fn installed(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

pub(super) fn bench(runs: usize, warmup: usize) -> Result<()> {
    let ours = release_binary("llm-lint", "llm-lint")?;
    let dir = workspace().join("target/bench/lint");
    corpus(&dir)?;
    let home = fresh_home("lint-home")?;
    let (ours_s, home_s) = (ours.display().to_string(), home.display().to_string());
    let scripts: Vec<String> = (0..200).map(|i| format!("scripts/s{i}.sh")).collect();
    let modules: Vec<String> = (0..200).map(|i| format!("pkg/m{i}.py")).collect();
    let with_files = |program: &str, first: &[&str], files: &[String]| -> Vec<String> {
        std::iter::once(program.to_string())
            .chain(first.iter().map(|s| s.to_string()))
            .chain(files.iter().cloned())
            .collect()
    };
    let pyflakes = if installed("pyflakes") { "pyflakes" } else { "pyflakes3" };
    let checkers: Vec<(&str, Vec<String>)> = vec![
        ("shellcheck", with_files("shellcheck", &["-f", "json1", "--"], &scripts)),
        ("pyflakes", with_files(pyflakes, &["--"], &modules)),
        ("ruff", with_files("ruff", &["check", "--output-format=json", "--no-cache", "--quiet", "."], &[])),
        (
            "cargo",
            with_files("cargo", &["check", "--workspace", "--all-targets", "--message-format=json", "--quiet"], &[]),
        ),
    ];
    let mut cases = Vec::new();
    for (name, direct) in checkers {
        if !installed(&direct[0]) {
            say(&format!("bench: {name} is not installed here; left out"));
            continue;
        }
        let direct_ref: Vec<&str> = direct.iter().map(String::as_str).collect();
        cases.push(case(
            &format!("{name}: llm-lint --checker {name} against {name} itself"),
            vec![
                Cmd::new("llm-lint --checker", &[&ours_s, "--json", "--checker", name], &dir).env("AIDE_HOME", &home_s),
                Cmd::new("llm-lint --no-log --checker", &[&ours_s, "--json", "--no-log", "--checker", name], &dir)
                    .env("AIDE_HOME", &home_s),
                Cmd::new(name, &direct_ref, &dir),
            ],
            runs,
            warmup,
        )?);
    }
    write_report(&Report::new("lint", runs, warmup, &dir, cases))
}

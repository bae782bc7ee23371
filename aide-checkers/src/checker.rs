//! The checkers aide knows: how to tell a project uses one, where its
//! program is, how to run it, and how to read and judge what it printed.

use aide_gate::Launch;
use std::path::{Path, PathBuf};

use crate::finding::{Point, RawDiagnostic, Severity};
use crate::formats;
use crate::run::Ran;

/// What a project is made of, read once: its files by kind and the
/// configuration files at its root.
#[derive(Debug, Default, Clone)]
pub struct Project {
    /// Every file the walk found (gitignore honoured), relative, sorted.
    pub files: Vec<String>,
}

impl Project {
    fn with_extension<'a>(&'a self, extensions: &'a [&'a str]) -> impl Iterator<Item = &'a String> + 'a {
        self.files
            .iter()
            .filter(move |f| Path::new(f).extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)))
    }

    fn has_extension(&self, extensions: &[&str]) -> bool {
        self.with_extension(extensions).next().is_some()
    }
}

/// The files each checker reads, by extension.
pub const PYTHON: &[&str] = &["py", "pyi"];
pub const SHELL: &[&str] = &["sh", "bash"];
pub const GO: &[&str] = &["go"];
pub const JAVASCRIPT: &[&str] = &["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"];

/// Whether a file is source a checker reads or aide parses (by extension).
pub fn is_source(path: &Path) -> bool {
    aide_core::lang::Lang::from_path(path).is_some()
        || path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| [PYTHON, SHELL, GO, JAVASCRIPT].iter().any(|kind| kind.contains(&e)))
}

/// One checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checker {
    pub name: &'static str,
    /// What it checks, for `aide doctor` and the text output.
    pub language: &'static str,
    /// The programs it can run as, the first found used.
    programs: &'static [&'static str],
    /// Found in the project's `node_modules/.bin` first.
    node: bool,
    /// How to install it.
    pub install: &'static str,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cargo,
    Clippy,
    Ruff,
    Pyflakes,
    Mypy,
    Pyright,
    Tsc,
    Eslint,
    GoVet,
    Gofmt,
    Shellcheck,
}

/// Every checker with a program of its own; `syntax` (aide's) comes besides.
pub const CHECKERS: &[Checker] = &[
    Checker {
        name: "cargo",
        language: "rust",
        programs: &["cargo"],
        node: false,
        install: "install Rust with rustup (https://rustup.rs)",
        kind: Kind::Cargo,
    },
    Checker {
        name: "clippy",
        language: "rust",
        programs: &["cargo-clippy"],
        node: false,
        install: "rustup component add clippy",
        kind: Kind::Clippy,
    },
    Checker {
        name: "ruff",
        language: "python",
        programs: &["ruff"],
        node: false,
        install: "pip install ruff (or pipx install ruff)",
        kind: Kind::Ruff,
    },
    Checker {
        name: "pyflakes",
        language: "python",
        programs: &["pyflakes", "pyflakes3"],
        node: false,
        install: "apt-get install pyflakes3 (or pip install pyflakes)",
        kind: Kind::Pyflakes,
    },
    Checker {
        name: "mypy",
        language: "python",
        programs: &["mypy"],
        node: false,
        install: "pip install mypy",
        kind: Kind::Mypy,
    },
    Checker {
        name: "pyright",
        language: "python",
        programs: &["pyright"],
        node: true,
        install: "npm install --save-dev pyright (or pip install pyright)",
        kind: Kind::Pyright,
    },
    Checker {
        name: "tsc",
        language: "typescript",
        programs: &["tsc"],
        node: true,
        install: "npm install --save-dev typescript",
        kind: Kind::Tsc,
    },
    Checker {
        name: "eslint",
        language: "javascript",
        programs: &["eslint"],
        node: true,
        install: "npm install --save-dev eslint",
        kind: Kind::Eslint,
    },
    Checker {
        name: "go-vet",
        language: "go",
        programs: &["go"],
        node: false,
        install: "install Go (https://go.dev/dl, or apt-get install golang-go)",
        kind: Kind::GoVet,
    },
    Checker {
        name: "gofmt",
        language: "go",
        programs: &["gofmt"],
        node: false,
        install: "install Go (https://go.dev/dl, or apt-get install golang-go)",
        kind: Kind::Gofmt,
    },
    Checker {
        name: "shellcheck",
        language: "shell",
        programs: &["shellcheck"],
        node: false,
        install: "apt-get install shellcheck",
        kind: Kind::Shellcheck,
    },
];

/// A name as compared: lower case, without `-`, `_` or spaces.
pub(crate) fn folded(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '-' | '_') && !c.is_whitespace()).flat_map(char::to_lowercase).collect()
}

/// The checker called `name`, however it is spelt ([`folded`]).
pub fn named(name: &str) -> Option<&'static Checker> {
    let key = folded(name);
    CHECKERS.iter().find(|c| folded(c.name) == key)
}

/// Every checker's name, `syntax` last.
pub fn names() -> Vec<&'static str> {
    CHECKERS.iter().map(|c| c.name).chain([crate::syntax::NAME]).collect()
}

/// Whether the file at the root holds `needle` (a section of a TOML file).
fn file_mentions(root: &Path, file: &str, needle: &str) -> bool {
    std::fs::read_to_string(root.join(file)).is_ok_and(|t| t.contains(needle))
}

fn any_exists(root: &Path, files: &[&str]) -> bool {
    files.iter().any(|f| root.join(f).exists())
}

impl Checker {
    /// The program to run, if installed.
    pub fn program(&self, root: &Path) -> Option<PathBuf> {
        self.programs.iter().find_map(|p| {
            let local = self.node.then(|| root.join("node_modules/.bin").join(p)).filter(|l| l.is_file());
            local.or_else(|| aide_gate::program::on_path(p))
        })
    }

    /// Why aide does not run it on this project: its configuration makes it
    /// write files, and no flag aide can give stops that.
    pub fn writes(&self, root: &Path) -> Option<String> {
        match self.kind {
            Kind::Mypy => crate::config::mypy(root).filter(|m| !m.reports.is_empty()).map(|m| {
                format!(
                    "not run: its configuration writes reports ({}), and a check never writes files; run mypy by hand for them",
                    m.reports.join(", ")
                )
            }),
            _ => None,
        }
    }

    /// Whether the project uses this checker, judged by its files.
    pub fn used_by(&self, root: &Path, project: &Project) -> bool {
        self.why_used(root, project).is_some()
    }

    /// What in the project's files says it uses this checker, if anything.
    pub fn why_used(&self, root: &Path, project: &Project) -> Option<&'static str> {
        let used = self.uses(root, project);
        used.then_some(match self.kind {
            Kind::Cargo => "Cargo.toml, no clippy configuration",
            Kind::Clippy => "Cargo.toml and a clippy configuration",
            Kind::Ruff => "a ruff configuration",
            Kind::Pyflakes => "Python files, no ruff configuration",
            Kind::Mypy => "a mypy configuration",
            Kind::Pyright => "a pyright configuration",
            Kind::Tsc => "tsconfig.json",
            Kind::Eslint => "an eslint configuration",
            Kind::GoVet | Kind::Gofmt => "go.mod",
            Kind::Shellcheck => "shell scripts",
        })
    }

    fn uses(&self, root: &Path, project: &Project) -> bool {
        let clippy_configured =
            any_exists(root, &["clippy.toml", ".clippy.toml"]) || file_mentions(root, "Cargo.toml", "lints.clippy]");
        let ruff_configured =
            any_exists(root, &["ruff.toml", ".ruff.toml"]) || file_mentions(root, "pyproject.toml", "[tool.ruff");
        match self.kind {
            Kind::Cargo => root.join("Cargo.toml").is_file() && !clippy_configured,
            Kind::Clippy => root.join("Cargo.toml").is_file() && clippy_configured,
            Kind::Ruff => ruff_configured,
            Kind::Pyflakes => !ruff_configured && project.has_extension(PYTHON),
            Kind::Mypy => {
                any_exists(root, &["mypy.ini", ".mypy.ini"])
                    || file_mentions(root, "pyproject.toml", "[tool.mypy")
                    || file_mentions(root, "setup.cfg", "[mypy")
            }
            Kind::Pyright => {
                root.join("pyrightconfig.json").is_file() || file_mentions(root, "pyproject.toml", "[tool.pyright")
            }
            Kind::Tsc => root.join("tsconfig.json").is_file(),
            Kind::Eslint => {
                any_exists(
                    root,
                    &[
                        "eslint.config.js",
                        "eslint.config.mjs",
                        "eslint.config.cjs",
                        "eslint.config.ts",
                        ".eslintrc",
                        ".eslintrc.js",
                        ".eslintrc.cjs",
                        ".eslintrc.json",
                        ".eslintrc.yml",
                        ".eslintrc.yaml",
                    ],
                ) || file_mentions(root, "package.json", "\"eslintConfig\"")
            }
            Kind::GoVet | Kind::Gofmt => root.join("go.mod").is_file(),
            Kind::Shellcheck => project.has_extension(SHELL),
        }
    }

    /// The files it is given by name (None: it finds its own in the project).
    pub fn files<'p>(&self, project: &'p Project) -> Option<Vec<&'p String>> {
        match self.kind {
            Kind::Pyflakes => Some(project.with_extension(PYTHON).collect()),
            Kind::Shellcheck => Some(project.with_extension(SHELL).collect()),
            Kind::Gofmt => Some(project.with_extension(GO).collect()),
            _ => None,
        }
    }

    /// The command that runs it on `files` (all of its kind), in `root`.
    pub fn command(&self, program: &Path, root: &Path, files: &[&String]) -> Launch {
        let c = Launch::new("checker", program, root).named(self.name);
        match self.kind {
            Kind::Cargo => c.args(["check", "--workspace", "--all-targets", "--message-format=json", "--quiet"]),
            Kind::Clippy => {
                // cargo-clippy itself, as cargo runs it: a project's `[alias]
                // clippy = …` (its .cargo/config.toml) cannot make it something else.
                c.args(["clippy", "--workspace", "--all-targets", "--message-format=json", "--quiet"])
            }
            Kind::Ruff => {
                // Never its fixes, whatever the project's `fix` or `fix-only`
                // says; no cache written; its report on stdout, not a file.
                c.args(["check", "--no-fix", "--no-fix-only", "--output-format=json", "--no-cache", "--quiet", "."])
                    .env_remove("RUFF_OUTPUT_FILE")
            }
            Kind::Pyflakes | Kind::Shellcheck | Kind::Gofmt => {
                let c = match self.kind {
                    Kind::Shellcheck => c.args(["-f", "json1"]),
                    Kind::Gofmt => c.arg("-l"),
                    _ => c,
                };
                c.arg("--").args(files)
            }
            Kind::Mypy => {
                let c = c.args(["--output", "json", "--no-error-summary", "--no-color-output", "--no-install-types"]);
                // What the project's configuration names, or else the root.
                if crate::config::mypy(root).is_some_and(|m| m.targets) { c } else { c.arg(".") }
            }
            Kind::Pyright => c.arg("--outputjson"),
            Kind::Tsc => c.args(["--noEmit", "--pretty", "false", "-p", "."]),
            Kind::Eslint => c.args(["-f", "json", "."]),
            Kind::GoVet => {
                // Never go.mod or go.sum updated (as GOFLAGS=-mod=mod would).
                let vendored = root.join("vendor/modules.txt").is_file();
                c.args(["vet", if vendored { "-mod=vendor" } else { "-mod=readonly" }, "-json", "./..."])
            }
        }
    }

    /// Whether a run that exited `code` having said `findings` things
    /// passed, as the project's own run of it would say: go vet (run with
    /// `-json`) and gofmt (with `-l`) exit 0 whatever they find, so for
    /// them a finding is a failure; the others' exit status says it.
    pub fn passed(&self, code: i32, findings: usize) -> bool {
        match self.kind {
            Kind::GoVet | Kind::Gofmt => code == 0 && findings == 0,
            _ => code == 0,
        }
    }

    /// What it said, or why what it did is not a complete answer: an exit
    /// status it never gives for findings, a crash, or output that does not
    /// read.
    pub fn read(&self, ran: &Ran) -> Result<Vec<RawDiagnostic>, String> {
        let code = ran.exit_code.ok_or("killed by a signal")?;
        let (findings_exits, parsed): (&[i32], Result<Vec<RawDiagnostic>, String>) = match self.kind {
            Kind::Cargo | Kind::Clippy => (&[0, 101], formats::rustc::parse(&ran.stdout)),
            Kind::Ruff => (&[0, 1], formats::ruff::parse(&ran.stdout)),
            Kind::Pyflakes => (&[0, 1], formats::pyflakes::parse(&ran.stdout, &ran.stderr)),
            Kind::Mypy => (&[0, 1], formats::mypy::parse(&ran.stdout)),
            Kind::Pyright => (&[0, 1], formats::pyright::parse(&ran.stdout)),
            Kind::Tsc => (&[0, 1, 2], formats::tsc::parse(&ran.stdout, "tsconfig.json")),
            Kind::Eslint => (&[0, 1], formats::eslint::parse(&ran.stdout)),
            Kind::GoVet => (&[0, 1, 2], formats::govet::parse(&ran.stderr)),
            Kind::Gofmt => (&[0, 2], gofmt(&ran.stdout, &ran.stderr)),
            Kind::Shellcheck => (&[0, 1], formats::shellcheck::parse(&ran.stdout)),
        };
        if !findings_exits.contains(&code) {
            // What it managed to say (mypy's blocking error comes as one of its findings).
            let said = parsed.ok().and_then(|p| p.first().map(|d| format!(": {}: {}", d.path, d.message)));
            return Err(format!("exited {code}{}", said.unwrap_or_default()));
        }
        let found = parsed?;
        // Failing with nothing said is failing, not finding.
        if code != 0 && found.is_empty() {
            return Err(format!("exited {code} without a finding"));
        }
        Ok(found)
    }
}

/// `gofmt -l`: the files it would change, one a line; a file that does not
/// parse, on stderr as `file:line:col: message`.
fn gofmt(stdout: &str, stderr: &str) -> Result<Vec<RawDiagnostic>, String> {
    let mut out: Vec<RawDiagnostic> = stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(|f| {
            RawDiagnostic::at(f, Point::Byte(0), Severity::Warning, "not formatted as gofmt formats it")
                .with_code(Some("gofmt".into()))
        })
        .collect();
    out.extend(formats::govet::parse(stderr)?.into_iter().map(|mut d| {
        d.code = Some("syntax".into());
        d
    }));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_told_from_findings() {
        let ran = |code: Option<i32>, stdout: &str| Ran {
            exit_code: code,
            stdout: stdout.into(),
            stderr: String::new(),
            duration: std::time::Duration::ZERO,
        };
        let shellcheck = named("shellcheck").unwrap();
        assert!(shellcheck.read(&ran(Some(0), r#"{"comments":[]}"#)).unwrap().is_empty());
        assert!(shellcheck.read(&ran(Some(2), "")).is_err(), "a missing file");
        assert!(shellcheck.read(&ran(None, "")).is_err(), "killed");
        assert!(shellcheck.read(&ran(Some(1), "garbage")).is_err());
        let cargo = named("cargo").unwrap();
        assert!(cargo.read(&ran(Some(101), "")).is_err(), "a manifest that does not parse: no finding");
        let mypy = named("mypy").unwrap();
        let blocking = r#"{"file": "b/run.py", "line": -1, "column": -1, "message": "Duplicate module named \"run\"", "hint": null, "code": null, "severity": "error"}"#;
        assert_eq!(
            mypy.read(&ran(Some(2), blocking)).unwrap_err(),
            "exited 2: b/run.py: Duplicate module named \"run\""
        );
    }

    fn args(name: &str, root: &Path) -> Vec<String> {
        let c = named(name).unwrap();
        let command = c.command(Path::new(name), root, &[]);
        command.arguments().iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn no_command_line_asks_a_checker_to_write_and_mypy_takes_its_configured_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let ruff = args("ruff", dir.path());
        assert!(ruff.contains(&"--no-fix".into()) && ruff.contains(&"--no-fix-only".into()), "{ruff:?}");
        assert_eq!(args("clippy", dir.path())[0], "clippy", "cargo-clippy itself, past any cargo alias");
        assert!(args("go-vet", dir.path()).contains(&"-mod=readonly".into()));
        assert_eq!(args("gofmt", dir.path()), ["-l", "--"]);
        assert!(!args("eslint", dir.path()).iter().any(|a| a.contains("fix")));
        assert!(args("mypy", dir.path()).contains(&"--no-install-types".into()));
        assert_eq!(args("mypy", dir.path()).last().map(String::as_str), Some("."));
        std::fs::write(dir.path().join("setup.cfg"), "[mypy]\nfiles = src\n").unwrap();
        assert_ne!(args("mypy", dir.path()).last().map(String::as_str), Some("."), "its configured files");
        assert_eq!(named("mypy").unwrap().writes(dir.path()), None);
        std::fs::write(dir.path().join("setup.cfg"), "[mypy]\nfiles = src\nxml_report = out\n").unwrap();
        assert!(named("mypy").unwrap().writes(dir.path()).is_some_and(|w| w.contains("xml_report")));
    }

    #[test]
    fn go_vet_and_gofmt_fail_on_a_finding_the_others_by_their_exit_status() {
        let (vet, ruff) = (named("go-vet").unwrap(), named("ruff").unwrap());
        assert!(!vet.passed(0, 1) && vet.passed(0, 0));
        assert!(!ruff.passed(1, 1) && ruff.passed(0, 0));
        assert!(named("cargo").unwrap().passed(0, 3), "cargo check passes with warnings");
    }
}

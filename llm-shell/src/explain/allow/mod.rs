//! The read-only list: `low` is kept for commands every part of which is
//! statically known and on it — programs that read and print, with options
//! that neither write nor run other programs. Anything else is at least
//! `medium`, with a reason naming what was not on the list. A deny-list is
//! always one spelling behind; this list fails closed.

use brush_parser::ast::{IoFileRedirectTarget, IoRedirect};

mod lists;
mod location;
mod programs;

use self::lists::{BUILTINS, PLAIN, wrapper_options};
use self::location::{resolve, trusted};
use self::programs::{git, sed_script_reads_only};
use super::rules::{base, is_descriptor, static_word};
use super::surroundings::Surroundings;

/// Why a command is not read-only, in words for `risk_reasons`.
pub(super) type NotReadOnly = String;

/// Whether assigning `name` changes what later commands run or how.
pub(super) fn changes_execution(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "IFS",
        "CDPATH",
        "GLOBIGNORE",
        "HOME",
        "SHELL",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "NODE_OPTIONS",
        "RUBYOPT",
        "RUSTC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTDOC",
        "RUSTFLAGS",
        "CARGO_HOME",
        "XDG_CONFIG_HOME",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "MAKEFLAGS",
        "HISTFILE",
        "PERLLIB",
        "EXECIGNORE",
        "FIGNORE",
        "INPUTRC",
    ];
    const PREFIXES: &[&str] =
        &["LD_", "DYLD_", "GIT_", "PYTHON", "PERL5", "CARGO_TARGET_", "CARGO_BUILD_", "BASH_FUNC_", "NPM_CONFIG_"];
    let upper = name.to_ascii_uppercase();
    EXACT.contains(&name) || PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The name an assignment word (`NAME=…`, `NAME+=…`, `NAME[i]=…`) sets.
pub(super) fn assigned_name(word: &str) -> &str {
    let end = word.find(['=', '[', '+']).unwrap_or(word.len());
    &word[..end]
}

/// Whether a redirection writes a file (not a descriptor, not /dev/null).
pub(super) fn writes_a_file(r: &IoRedirect) -> Option<String> {
    let (kind, target) = match r {
        IoRedirect::File(_, kind, IoFileRedirectTarget::Filename(w)) => (kind.to_string(), w.value.clone()),
        IoRedirect::File(_, kind, IoFileRedirectTarget::Duplicate(w)) if !is_descriptor(&w.value) => {
            (kind.to_string(), w.value.clone())
        }
        IoRedirect::OutputAndError(w, _) => (">".to_string(), w.value.clone()),
        _ => return None,
    };
    if !kind.contains('>') {
        return None;
    }
    let t = static_word(&target).unwrap_or(target);
    (!matches!(t.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr")).then_some(t)
}

/// Whether one simple command is read-only: its assignments, redirections
/// and program. `defined`: names the session or this command defined as
/// functions or aliases.
pub(super) fn simple(
    program: &str,
    words: &[String],
    assignments: &[String],
    redirects: &[&IoRedirect],
    env: &Surroundings,
    defined: &dyn Fn(&str) -> bool,
) -> Result<(), NotReadOnly> {
    for a in assignments {
        let name = assigned_name(a);
        if changes_execution(name) {
            return Err(format!("sets {name}, which changes what later commands run"));
        }
    }
    for r in redirects {
        if let Some(target) = writes_a_file(r) {
            return Err(format!("writes to the file {target}"));
        }
    }
    if program.is_empty() {
        return Ok(());
    }
    let Some(prog) = static_word(program) else {
        return Err(format!("the command name `{program}` is not statically known"));
    };
    let statics: Vec<Option<String>> = words.iter().map(|w| static_word(w)).collect();
    command(&prog, &statics, env, defined, 0)
}

// Long because: one arm per program on the read-only list, each with its own limits.
/// Whether `prog` with `words` (None: not static) is read-only.
fn command(
    prog: &str,
    words: &[Option<String>],
    env: &Surroundings,
    defined: &dyn Fn(&str) -> bool,
    depth: usize,
) -> Result<(), NotReadOnly> {
    if depth > 8 {
        return Err("commands wrapped more than 8 deep are not on the read-only list".into());
    }
    let p = base(prog);
    if !prog.contains('/') && defined(prog) {
        return Err(format!(
            "`{prog}` is a function or alias defined in this session: what it runs is not on the list"
        ));
    }
    if (prog.contains('/') || !BUILTINS.contains(&p))
        && let Some(path) = resolve(prog, env)
        && !trusted(&path, env)
    {
        return Err(format!("`{prog}` runs {}, outside the system's program folders", path.display()));
    }
    let not_listed = || Err(format!("`{}` is not on the read-only list", shown(p, words)));
    let dynamic = words.iter().any(Option::is_none);
    let w: Vec<&str> = words.iter().map(|w| w.as_deref().unwrap_or("")).collect();
    let positional: Vec<&str> = w.iter().copied().filter(|a| !a.starts_with('-') || *a == "-").collect();
    let has = |o: &str| w.iter().any(|a| *a == o || a.strip_prefix(o).is_some_and(|rest| rest.starts_with('=')));
    let short = |c: char| w.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c));
    // Options whose values could be options that write: only static words.
    let needs_static = |why: &str| -> Result<(), NotReadOnly> {
        if dynamic { Err(format!("`{p}` is given a word that is not static ({why})")) } else { Ok(()) }
    };
    if PLAIN.contains(&p) {
        return Ok(());
    }
    if let Some(takes_value) = wrapper_options(p) {
        // `command -v NAME` only looks it up.
        if p == "command" && (has("-v") || has("-V")) {
            return Ok(());
        }
        needs_static("it names the command to run")?;
        let mut i = 0;
        while i < w.len() && w[i].starts_with('-') {
            i += if takes_value.contains(&w[i]) { 2 } else { 1 };
        }
        if p == "timeout" {
            i += 1; // the duration
        }
        return match words.get(i) {
            Some(Some(inner)) => command(inner, &words[i + 1..], env, defined, depth + 1),
            Some(None) => Err(format!("`{p}` runs a command that is not statically known")),
            // `nice`, `time` alone print.
            None => Ok(()),
        };
    }
    match p {
        "printf" if !dynamic => assigns_only_plain(w.windows(2).filter(|p| p[0] == "-v").map(|p| p[1])),
        "printf" => needs_static("`-v NAME` assigns"),
        "read" | "mapfile" | "readarray" => {
            needs_static("it assigns the names it is given")?;
            if p != "read" && short('C') {
                return Err(format!("`{p} -C` runs a callback"));
            }
            assigns_only_plain(w.iter().copied().filter(|a| !a.starts_with('-')))
        }
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            needs_static("it assigns the names it is given")?;
            if p == "export" && short('f') {
                return Err("`export -f` hands a function to every later command".into());
            }
            assigns_only_plain(w.iter().copied().filter(|a| !a.starts_with('-')))
        }
        "set" => Ok(()),
        // The code is walked as a program of its own, and rated there.
        "eval" if !dynamic => Ok(()),
        "sh" | "bash" | "dash" | "zsh" | "ksh"
            if !dynamic
                && w.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.ends_with('c'))
                && w.iter().take_while(|a| a.starts_with('-')).all(|a| {
                    a.starts_with('-') && !a.starts_with("--") && a[1..].chars().all(|c| "ceuxo".contains(c))
                }) =>
        {
            Ok(())
        }
        "trap" if !dynamic && w.iter().all(|a| matches!(*a, "-p" | "-l")) => Ok(()),
        "shopt" => Ok(()),
        "hash" if !short('p') && !dynamic => Ok(()),
        "umask" | "ulimit" | "alias" if positional.is_empty() && !dynamic => Ok(()),
        "kill" if w.iter().all(|a| matches!(*a, "-l" | "-L")) && !w.is_empty() => Ok(()),
        "env" => {
            // `env` alone prints; with a command it is a wrapper with assignments.
            needs_static("it names the command to run")?;
            if w.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('S')) || has("--split-string")
            {
                return Err("`env -S` splits a string into a command".into());
            }
            let mut i = 0;
            while i < w.len() && (w[i].starts_with('-') || w[i].contains('=')) {
                if matches!(w[i], "-u" | "-C" | "--unset" | "--chdir") {
                    i += 1;
                } else if w[i].contains('=') && !w[i].starts_with('-') && changes_execution(assigned_name(w[i])) {
                    return Err(format!("sets {}, which changes what the command runs", assigned_name(w[i])));
                }
                i += 1;
            }
            match words.get(i) {
                Some(_) => command(w[i], &words[i + 1..], env, defined, depth + 1),
                None => Ok(()),
            }
        }
        "xargs" => {
            needs_static("it names the command to run")?;
            // What the input adds are arguments nobody sees: only programs no argument makes write.
            let takes_value = ["-n", "-I", "-i", "-d", "-P", "-L", "-l", "-s", "-E", "-e", "-a"];
            let mut i = 0;
            while i < w.len() && w[i].starts_with('-') {
                i += if takes_value.contains(&w[i]) { 2 } else { 1 };
            }
            match w.get(i) {
                Some(inner) if PLAIN.contains(&base(inner)) => command(inner, &words[i + 1..], env, defined, depth + 1),
                Some(inner) => Err(format!("`xargs {inner}` runs with arguments from its input, which cannot be seen")),
                None => Ok(()),
            }
        }
        "find" => {
            needs_static("it could be -delete or -exec")?;
            let mut i = 0;
            while i < w.len() {
                match w[i] {
                    "-exec" | "-execdir" | "-ok" | "-okdir" => {
                        let end =
                            w[i + 1..].iter().position(|a| matches!(*a, ";" | "+")).map_or(w.len(), |e| i + 1 + e);
                        let Some(inner) = w.get(i + 1) else { return not_listed() };
                        command(inner, &words[(i + 2).min(end)..end], env, defined, depth + 1)
                            .map_err(|why| format!("{why} (via find {})", w[i]))?;
                        i = end;
                    }
                    "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                        return Err(format!("`find {}` writes or deletes files", w[i]));
                    }
                    _ => {}
                }
                i += 1;
            }
            Ok(())
        }
        "rg" => {
            needs_static("it could be --pre")?;
            if has("--pre") { Err("`rg --pre` runs a program on every file".into()) } else { Ok(()) }
        }
        "fd" | "fdfind" => {
            needs_static("it could be --exec")?;
            if has("--exec") || has("--exec-batch") || short('x') || short('X') {
                Err(format!("`{p} --exec` runs a program on every file"))
            } else {
                Ok(())
            }
        }
        "tree" => {
            needs_static("it could be -o")?;
            if short('o') { Err("`tree -o` writes a file".into()) } else { Ok(()) }
        }
        "file" => {
            needs_static("it could be -C")?;
            if short('C') { Err("`file -C` writes a compiled magic file".into()) } else { Ok(()) }
        }
        "sort" => {
            needs_static("it could be -o")?;
            if short('o') || has("--output") || has("--compress-program") {
                Err("`sort -o` writes a file".into())
            } else {
                Ok(())
            }
        }
        // A second file operand is where they write.
        "uniq" | "xxd" | "base64" | "base32" if !dynamic && positional.len() <= 1 => Ok(()),
        "tee" if !dynamic && positional.iter().all(|f| matches!(*f, "/dev/null" | "/dev/stdout" | "/dev/stderr")) => {
            Ok(())
        }
        "date" if !dynamic && !short('s') && !has("--set") && positional.iter().all(|a| a.starts_with('+')) => Ok(()),
        "hostname" if !dynamic && positional.is_empty() && !short('F') && !short('b') => Ok(()),
        "umask" | "ulimit" | "alias" | "hash" | "tee" | "uniq" | "xxd" | "base64" | "base32" | "date" | "hostname" => {
            Err(format!("`{}` changes or writes something", shown(p, words)))
        }
        "sed" => {
            needs_static("it could be -i")?;
            if short('i') || has("--in-place") || short('f') || has("--file") {
                return Err("`sed -i` (or a script file) edits files".into());
            }
            let scripts: Vec<&str> = match w.iter().position(|a| *a == "-e" || *a == "--expression") {
                Some(_) => w.windows(2).filter(|p| matches!(p[0], "-e" | "--expression")).map(|p| p[1]).collect(),
                None => positional.first().copied().into_iter().collect(),
            };
            match scripts.iter().find(|s| !sed_script_reads_only(s)) {
                Some(s) => Err(format!("the sed script `{s}` can write files or run commands")),
                None => Ok(()),
            }
        }
        "awk" | "gawk" | "mawk" | "nawk" => {
            needs_static("it could be -f")?;
            if short('f') || short('i') || short('E') || has("--file") || has("--include") || has("--exec") {
                return Err(format!("`{p}` runs a program file that cannot be seen"));
            }
            let program = w.iter().zip(words).find(|(a, _)| !a.starts_with('-')).map(|(a, _)| *a).unwrap_or("");
            if ["system", "|", ">", "getline"].iter().any(|x| program.contains(x)) {
                Err(format!("the awk program `{program}` can write files or run commands"))
            } else {
                Ok(())
            }
        }
        "tar" => {
            needs_static("it could be an option that writes")?;
            let list = w.iter().any(|a| *a == "--list" || a.trim_start_matches('-').starts_with('t'))
                || w.first().is_some_and(|a| !a.starts_with('-') && a.contains('t'));
            let ok_long = |a: &str| {
                [
                    "--list",
                    "--verbose",
                    "--gzip",
                    "--bzip2",
                    "--xz",
                    "--zstd",
                    "--file",
                    "--wildcards",
                    "--no-wildcards",
                ]
                .iter()
                .any(|o| a == *o || a.starts_with(&format!("{o}=")))
            };
            let cluster_ok = |a: &str| a.trim_start_matches('-').chars().all(|c| "tvfzjJa".contains(c));
            let options_ok = w.iter().enumerate().all(|(i, a)| {
                if a.starts_with("--") {
                    ok_long(a)
                } else if a.starts_with('-') || i == 0 {
                    cluster_ok(a)
                } else {
                    true
                }
            });
            if list && options_ok { Ok(()) } else { Err("`tar` other than listing an archive".into()) }
        }
        "git" => git(&w, dynamic),
        "cargo" => {
            needs_static("it could be an option that writes")?;
            let mut rest: &[&str] = &w;
            if rest.first().is_some_and(|a| a.starts_with('+')) {
                rest = &rest[1..];
            }
            if rest.iter().any(|a| *a == "--config" || a.starts_with("--config=") || *a == "-Z") {
                return Err("`cargo --config` can make cargo run programs".into());
            }
            let sub = rest.iter().find(|a| !a.starts_with('-')).copied().unwrap_or("");
            let version_only =
                sub.is_empty() && rest.iter().all(|a| matches!(*a, "--version" | "-V" | "-vV" | "--list"));
            let reads = matches!(
                sub,
                "check"
                    | "metadata"
                    | "tree"
                    | "version"
                    | "locate-project"
                    | "pkgid"
                    | "verify-project"
                    | "read-manifest"
            ) || (sub == "clippy" && !rest.iter().any(|a| a.starts_with("--fix")))
                || (sub == "fmt" && rest.contains(&"--check"));
            if reads || version_only { Ok(()) } else { Err(format!("`cargo {sub}` builds, runs or writes")) }
        }
        "go" => {
            needs_static("it could be an option that writes")?;
            match positional.first().copied() {
                Some("vet" | "list" | "version" | "doc") => Ok(()),
                Some("env") if !short('w') && !short('u') => Ok(()),
                _ => Err(format!("`{}` builds, runs or writes", shown(p, words))),
            }
        }
        "gofmt" if !dynamic && !short('w') => Ok(()),
        "rustfmt" if !dynamic && (has("--check") || has("--version") || has("-V")) => Ok(()),
        "python" | "python3" | "node" | "ruby" | "perl" | "rustc" | "gcc" | "cc" | "clang" | "make" | "npm" | "pip"
        | "pip3" | "java" | "javac" | "go-version" => {
            let version = !w.is_empty() && w.iter().all(|a| matches!(*a, "--version" | "-V" | "-v" | "-vV"));
            let pip_reads =
                matches!(p, "pip" | "pip3") && matches!(positional.first(), Some(&("list" | "show" | "freeze")));
            let npm_reads = p == "npm" && matches!(positional.first(), Some(&("ls" | "list" | "view" | "outdated")));
            if !dynamic && (version || pip_reads || npm_reads) { Ok(()) } else { not_listed() }
        }
        _ => not_listed(),
    }
}

/// The program and its first words, for a reason.
fn shown(p: &str, words: &[Option<String>]) -> String {
    let mut s = p.to_string();
    for w in words.iter().take(2) {
        s.push(' ');
        s.push_str(w.as_deref().unwrap_or("…"));
    }
    s
}

/// Every name assigned (`NAME` or `NAME=value`) leaves execution alone.
fn assigns_only_plain<'a>(names: impl Iterator<Item = &'a str>) -> Result<(), NotReadOnly> {
    for n in names {
        let name = assigned_name(n);
        if changes_execution(name) {
            return Err(format!("sets {name}, which changes what later commands run"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_changing_names() {
        for n in [
            "PATH",
            "BASH_ENV",
            "LD_PRELOAD",
            "GIT_SSH_COMMAND",
            "PYTHONSTARTUP",
            "RUSTC_WRAPPER",
            "npm_config_script_shell",
        ] {
            assert!(changes_execution(n), "{n}");
        }
        for n in ["FOO", "RUST_LOG", "CI", "LANG", "TERM"] {
            assert!(!changes_execution(n), "{n}");
        }
        assert_eq!(assigned_name("PATH+=:/x"), "PATH");
        assert_eq!(assigned_name("a[1]=x"), "a");
    }
}

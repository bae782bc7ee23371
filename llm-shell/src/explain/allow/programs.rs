//! Programs read-only only with some subcommands, options or scripts: git's
//! subcommands and sed's scripts, each judged on its own words. An `Err`
//! says, for `risk_reasons`, what was not read-only.

// Long because: one arm per git subcommand that only reads, each with its own limits.
/// `git` subcommands that only read, with their own limits.
pub(super) fn git(w: &[&str], dynamic: bool) -> Result<(), String> {
    if dynamic {
        return Err("`git` is given a word that is not static".into());
    }
    // Global options before the subcommand.
    let mut i = 0;
    while i < w.len() && w[i].starts_with('-') {
        match w[i] {
            "-C" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            "-P"
            | "--no-pager"
            | "-p"
            | "--paginate"
            | "--no-replace-objects"
            | "--bare"
            | "--literal-pathspecs"
            | "--no-optional-locks"
            | "--version"
            | "--help" => i += 1,
            a if a.starts_with("--git-dir=") || a.starts_with("--work-tree=") => i += 1,
            a => return Err(format!("`git {a}` changes how git runs (configuration or programs)")),
        }
    }
    let Some(sub) = w.get(i).copied() else { return Ok(()) };
    let rest = &w[i + 1..];
    if rest.iter().any(|a| a.starts_with("--output") || *a == "--ext-diff" || a.starts_with("--exec")) {
        return Err(format!("`git {sub}` with an option that writes a file or runs a program"));
    }
    let positional: Vec<&str> = rest.iter().copied().filter(|a| !a.starts_with('-')).collect();
    let only =
        |allowed: &[&str]| rest.iter().filter(|a| a.starts_with('-')).all(|a| allowed.iter().any(|o| a.starts_with(o)));
    let reads = match sub {
        "status" | "log" | "diff" | "show" | "blame" | "annotate" | "shortlog" | "describe" | "rev-parse"
        | "rev-list" | "ls-files" | "ls-tree" | "ls-remote" | "cat-file" | "grep" | "show-ref" | "for-each-ref"
        | "merge-base" | "name-rev" | "count-objects" | "var" | "version" | "help" | "check-ignore" | "check-attr"
        | "diff-tree" | "diff-files" | "diff-index" | "cherry" | "range-diff" | "whatchanged" | "verify-commit"
        | "verify-tag" | "fsck" => true,
        "branch" => {
            let listing = [
                "-a",
                "-r",
                "-v",
                "-vv",
                "--list",
                "-l",
                "--all",
                "--remotes",
                "--show-current",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--sort",
                "--format",
                "--points-at",
                "--column",
                "--no-column",
                "--color",
                "--no-color",
                "--verbose",
                "-i",
                "--ignore-case",
            ];
            only(&listing) && (positional.is_empty() || rest.iter().any(|a| matches!(*a, "-l" | "--list")))
        }
        "tag" => {
            only(&[
                "-l",
                "--list",
                "-n",
                "--sort",
                "--format",
                "--contains",
                "--no-contains",
                "--merged",
                "--points-at",
                "--column",
            ]) && (positional.is_empty() || rest.iter().any(|a| matches!(*a, "-l" | "--list")))
        }
        "remote" => positional.is_empty() || matches!(positional[0], "show" | "get-url"),
        "config" => {
            rest.iter().any(|a| matches!(*a, "--get" | "--get-all" | "--get-regexp" | "--list" | "-l" | "get" | "list"))
                && only(&[
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "--list",
                    "-l",
                    "--show-origin",
                    "--show-scope",
                    "--name-only",
                    "--global",
                    "--local",
                    "--system",
                    "--worktree",
                    "--file",
                    "-f",
                    "--null",
                    "-z",
                    "--type",
                    "--bool",
                    "--int",
                    "--path",
                    "--default",
                    "--includes",
                    "--no-includes",
                ])
        }
        "stash" => matches!(positional.first(), Some(&("list" | "show"))),
        "worktree" => positional.first() == Some(&"list"),
        "reflog" => positional.is_empty() || positional[0] == "show",
        "notes" => positional.is_empty() || matches!(positional[0], "list" | "show"),
        "submodule" => positional.first() == Some(&"status"),
        "symbolic-ref" => positional.len() <= 1 && only(&["-q", "--quiet", "--short"]),
        _ => false,
    };
    if reads { Ok(()) } else { Err(format!("`git {sub}` is not on the read-only list")) }
}

/// Whether a sed script only prints: every command is one of those that
/// read and print, and no `s` command has the `w` or `e` flag.
pub(super) fn sed_script_reads_only(script: &str) -> bool {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    let skip_regex = |i: &mut usize, delim: char| {
        while *i < s.len() && s[*i] != delim {
            if s[*i] == '\\' {
                *i += 1;
            }
            *i += 1;
        }
        *i += 1;
    };
    while i < s.len() {
        let c = s[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '~' | '0'..='9' => i += 1,
            '/' => {
                i += 1;
                skip_regex(&mut i, '/');
                // Address flags: I, M.
                while i < s.len() && matches!(s[i], 'I' | 'M') {
                    i += 1;
                }
            }
            '\\' => {
                let Some(&delim) = s.get(i + 1) else { return false };
                i += 2;
                skip_regex(&mut i, delim);
            }
            's' | 'y' => {
                let Some(&delim) = s.get(i + 1) else { return false };
                if delim == '\n' || delim == '\\' {
                    return false;
                }
                i += 2;
                skip_regex(&mut i, delim);
                skip_regex(&mut i, delim);
                while i < s.len() && !matches!(s[i], ';' | '\n' | '}') {
                    if c == 's' && matches!(s[i], 'w' | 'W' | 'e') {
                        return false;
                    }
                    i += 1;
                }
            }
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | 'l' | '=' | 'q' | 'Q' | 'z' | 'F' => {
                i += 1
            }
            // Text commands take the rest of the line; labels and branches their name.
            'a' | 'i' | 'c' | ':' | 'b' | 't' | 'T' => {
                while i < s.len() && s[i] != '\n' && !(matches!(c, 'b' | 't' | 'T' | ':') && s[i] == ';') {
                    i += 1;
                }
            }
            // w, W, e, r, R and anything unknown: not read-only (r/R read, but GNU's `R` with `/dev/stdin` …).
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts_that_print_pass_and_those_that_write_or_run_do_not() {
        for s in
            ["s/a/b/g", "1,5p", "/foo/d", "s|x|y|2;p", "$!N;P;D", "/start/,/end/{s/x/y/;p}", "s/we/are/", "y/abc/xyz/"]
        {
            assert!(sed_script_reads_only(s), "{s}");
        }
        for s in ["w out", "s/a/b/w out", "s/x/y/e", "1e rm -rf d", "/x/W f", "r /etc/passwd", "s/a/b/gw f"] {
            assert!(!sed_script_reads_only(s), "{s}");
        }
    }
}

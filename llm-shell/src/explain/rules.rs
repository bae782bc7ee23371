//! The rules for what a program does with its words: deletions, devices,
//! privileges, history rewrites, package installs, the network — each
//! rated `medium` to `critical` with a reason — and the word-level helpers
//! every part of the analysis shares (quote removal, flags, the program's name).

use std::path::Path;

use brush_parser::ast::{IoFileRedirectTarget, IoRedirect};

use super::risk::Risk;

/// The program's file name: `/usr/bin/rm` → `rm`.
pub(super) fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

pub(super) fn is_interpreter(p: &str) -> bool {
    matches!(
        p,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "python" | "python3" | "perl" | "ruby" | "node" | "sudo"
    )
}

/// Paths whose removal or recursive change is catastrophic.
fn is_broad_path(word: &str) -> bool {
    let w = word.trim_matches(|c| c == '"' || c == '\'');
    matches!(
        w,
        "/" | "/*" | "~" | "~/" | "~/*" | "*" | "." | "./" | ".." | "../" | "$HOME" | "${HOME}" | "$HOME/" | "$HOME/*"
    ) || ["/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/opt", "/root", "/sbin", "/srv", "/usr", "/var"]
        .iter()
        .any(|p| w == *p || w == format!("{p}/") || w == format!("{p}/*"))
}

fn has_unquoted_variable(word: &str) -> bool {
    word.contains('$') && !word.starts_with('"') && !word.starts_with('\'')
}

/// Short flags of `words`, e.g. `-rf` gives r and f; long flags as given.
pub(super) fn has_flag(words: &[String], short: char, long: &str) -> bool {
    words.iter().any(|w| {
        (w.starts_with('-') && !w.starts_with("--") && w[1..].contains(short)) || (!long.is_empty() && w == long)
    })
}

/// The text of a shell word after quote removal, or None when it is not
/// static: it expands a variable, a command substitution or arithmetic.
/// `\rm`, `r""m`, `'rm'` and `$'rm'` are all `rm`.
pub fn static_word(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '\'' => {
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    out.push(c);
                }
            }
            '$' if chars.peek() == Some(&'\'') => {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '\'' => break,
                        '\\' => match chars.next() {
                            Some('n') => out.push('\n'),
                            Some('t') => out.push('\t'),
                            // Hex, octal and unicode escapes could spell anything.
                            Some('x' | 'u' | 'U' | '0'..='7') => return None,
                            Some(other) => out.push(other),
                            None => {}
                        },
                        c => out.push(c),
                    }
                }
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(e @ ('$' | '`' | '"' | '\\')) => out.push(e),
                            Some('\n') => {}
                            Some(other) => {
                                out.push('\\');
                                out.push(other);
                            }
                            None => {}
                        },
                        '$' | '`' => return None,
                        c => out.push(c),
                    }
                }
            }
            '$' | '`' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

// Long because: one arm per program rule, each its risks and reasons.
/// Risk of running `program` with `words`.
pub(super) fn assess(program: &str, words: &[String]) -> (Risk, Vec<String>) {
    let p = base(program);
    let mut risk = Risk::Low;
    let mut reasons = Vec::new();
    let mut raise = |r: Risk, why: &str| {
        risk = risk.max(r);
        reasons.push(why.to_string());
    };
    let targets: Vec<&String> = words.iter().filter(|w| !w.starts_with('-')).collect();
    match p {
        "rm" | "rmdir" | "unlink" => {
            let recursive = has_flag(words, 'r', "--recursive") || has_flag(words, 'R', "");
            let force = has_flag(words, 'f', "--force");
            if targets.iter().any(|t| is_broad_path(t)) && (recursive || force) {
                raise(Risk::Critical, "recursive or forced deletion of a root, home or wildcard path");
            } else if targets.iter().any(|t| has_unquoted_variable(t)) && (recursive || force) {
                raise(
                    Risk::Critical,
                    "recursive or forced deletion of an unquoted variable (it may be empty or split)",
                );
            } else if recursive || force {
                raise(Risk::High, "recursive or forced deletion");
            } else {
                raise(Risk::Medium, "deletes files");
            }
        }
        // The command they run is rated by `look_through`.
        "sudo" | "su" | "doas" | "pkexec" => raise(Risk::High, "runs with elevated privileges"),
        "dd" => {
            if words.iter().any(|w| w.starts_with("of=/dev/")) {
                raise(Risk::Critical, "dd writes to a device");
            } else {
                raise(Risk::High, "dd overwrites data byte by byte");
            }
        }
        _ if p.starts_with("mkfs") || matches!(p, "fdisk" | "parted" | "wipefs" | "sgdisk") => {
            raise(Risk::Critical, "formats or repartitions a disk");
        }
        "shutdown" | "reboot" | "halt" | "poweroff" => raise(Risk::Critical, "shuts down or restarts the machine"),
        "chmod" | "chown" | "chgrp" => {
            let recursive = has_flag(words, 'R', "--recursive");
            if recursive && targets.iter().any(|t| is_broad_path(t)) {
                raise(Risk::Critical, "recursive permission or owner change on a broad path");
            } else if recursive {
                raise(Risk::High, "recursive permission or owner change");
            } else if words.iter().any(|w| w == "777" || w == "a+rwx") {
                raise(Risk::Medium, "makes files writable by everyone");
            }
        }
        "git" => {
            // The subcommand after git's own options (`-C DIR`, `-c KEY=VALUE`, …).
            let mut i = 0;
            while i < words.len() && words[i].starts_with('-') {
                i += if matches!(words[i].as_str(), "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace") {
                    2
                } else {
                    1
                };
            }
            let sub = words.get(i).map(|s| s.as_str()).unwrap_or("");
            match sub {
                "push" if words.iter().any(|w| w == "-f" || w.starts_with("--force")) => {
                    raise(Risk::High, "git push --force rewrites the remote's history")
                }
                "push" => raise(Risk::Medium, "publishes commits to a remote"),
                "reset" if words.iter().any(|w| w == "--hard") => {
                    raise(Risk::High, "git reset --hard discards uncommitted changes")
                }
                "clean" if has_flag(words, 'f', "--force") => raise(Risk::High, "git clean -f deletes untracked files"),
                "checkout" | "restore" if words.iter().any(|w| w == "." || w == "--") => {
                    raise(Risk::Medium, "discards changes in the working tree")
                }
                _ => {}
            }
        }
        "kill" if !words.is_empty() && words.iter().all(|w| matches!(w.as_str(), "-l" | "-L")) => {}
        "kill" | "pkill" | "killall" => {
            let all = targets.iter().any(|t| *t == "-1") || words.iter().any(|w| w == "-1");
            let nine = words.iter().any(|w| w == "-9" || w == "-KILL" || w == "-SIGKILL");
            if all && (nine || p == "kill") {
                raise(Risk::Critical, "kill -1 signals every process you own");
            } else {
                raise(Risk::Medium, "terminates processes");
            }
        }
        "apt" | "apt-get" | "yum" | "dnf" | "pacman" | "apk" | "zypper" | "brew" | "snap"
            if targets
                .iter()
                .any(|t| matches!(t.as_str(), "install" | "remove" | "purge" | "upgrade" | "-S" | "add")) =>
        {
            raise(Risk::Medium, "installs or removes system packages")
        }
        "pip" | "pip3" | "gem" | "cargo" | "go" if targets.first().is_some_and(|t| *t == "install") => {
            raise(Risk::Medium, "installs packages")
        }
        "npm" | "pnpm" | "yarn"
            if targets.first().is_some_and(|t| matches!(t.as_str(), "install" | "i" | "add"))
                && words.iter().any(|w| w == "-g" || w == "--global") =>
        {
            raise(Risk::Medium, "installs packages globally")
        }
        "curl" | "wget" | "nc" | "ncat" | "netcat" | "ssh" | "scp" | "sftp" | "rsync" | "telnet" | "ftp" => {
            raise(Risk::Medium, "uses the network")
        }
        "bash" | "sh" | "zsh" | "python" | "python3"
            if words.iter().any(|w| w.contains("curl ") || w.contains("wget ")) =>
        {
            raise(Risk::Critical, "runs code downloaded from the network")
        }
        "find" if words.iter().any(|w| w == "-delete") || words.windows(2).any(|w| w[0] == "-exec" && w[1] == "rm") => {
            raise(Risk::High, "find deletes what it matches")
        }
        "xargs" if words.iter().any(|w| w == "rm") => raise(Risk::High, "deletes files listed on its input"),
        "shred" | "truncate" => raise(Risk::High, "destroys file contents"),
        "crontab" if words.iter().any(|w| w == "-r") => raise(Risk::High, "removes every cron job"),
        _ => {}
    }
    (risk, reasons)
}

pub(super) fn assess_redirect(r: &IoRedirect, cwd: &Path) -> (Risk, String) {
    let (kind, target) = match r {
        IoRedirect::File(_, kind, IoFileRedirectTarget::Filename(w)) => (kind.to_string(), w.value.clone()),
        // `>& out.txt` names a file; `>&2`, `>&-` a descriptor.
        IoRedirect::File(_, kind, IoFileRedirectTarget::Duplicate(w)) if !is_descriptor(&w.value) => {
            (kind.to_string(), w.value.clone())
        }
        IoRedirect::OutputAndError(w, append) => ((if *append { ">>" } else { ">" }).to_string(), w.value.clone()),
        _ => return (Risk::Low, String::new()),
    };
    let t = target.trim_matches(|c| c == '"' || c == '\'');
    let writes = kind.contains('>') && kind != "<";
    if !writes || matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty") {
        return (Risk::Low, String::new());
    }
    let block = ["/dev/sd", "/dev/nvme", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/mmcblk", "/dev/disk"];
    if block.iter().any(|b| t.starts_with(b)) {
        return (Risk::Critical, format!("writes to the block device {t}"));
    }
    if ["/etc/", "/usr/", "/bin/", "/sbin/", "/boot/", "/lib/"].iter().any(|p| t.starts_with(p)) {
        return (Risk::High, format!("writes to the system path {t}"));
    }
    let overwrite = !kind.contains(">>");
    if overwrite && !t.contains('$') && cwd.join(t).is_file() {
        return (Risk::Medium, format!("overwrites the existing file {t}"));
    }
    (Risk::Low, String::new())
}

/// Whether a duplication target is a descriptor (`2`, `-`, `3-`), not a file.
pub(super) fn is_descriptor(word: &str) -> bool {
    let w = word.strip_suffix('-').unwrap_or(word);
    w.is_empty() || w.bytes().all(|b| b.is_ascii_digit())
}

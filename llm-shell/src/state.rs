//! What a session's saved state declares, read from `state.sh` as text
//! (no bash is started): scalar variables with their values, and the names
//! of its functions and aliases. The state is what bash printed with
//! `declare -p`, `declare -f` and `alias -p`, so only those forms are read.

use std::collections::{BTreeMap, BTreeSet};

/// The declarations of a saved state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// Scalar variables (arrays are left out).
    pub variables: BTreeMap<String, String>,
    /// The names of the exported ones among them (`declare -x`).
    pub exported: BTreeSet<String>,
    pub functions: BTreeSet<String>,
    pub aliases: BTreeSet<String>,
}

impl Declared {
    /// The variables with secret names (`DB_PASSWORD`, `API_TOKEN`, …).
    pub fn secret_variables(&self) -> impl Iterator<Item = (&String, &String)> {
        self.variables.iter().filter(|(name, _)| aide_gate::redact::is_secret_name(name))
    }

    /// The values of [`Declared::secret_variables`].
    pub fn secret_values(&self) -> Vec<String> {
        self.secret_variables().map(|(_, value)| value.clone()).collect()
    }

    /// Functions and aliases: names a later command may mean something else by.
    pub fn defined_names(&self) -> BTreeSet<String> {
        self.functions.union(&self.aliases).cloned().collect()
    }
}

/// One declaration of a state script, with the text it takes.
enum Entry<'a> {
    /// `declare FLAGS NAME=VALUE` (value None for arrays and for a name declared without one).
    Variable {
        flags: &'a str,
        name: &'a str,
        value: Option<String>,
    },
    Function {
        name: &'a str,
    },
    Alias {
        name: &'a str,
    },
    /// Anything else (`cd -- …`, blank lines).
    Other,
}

/// Walks the declarations of a state script: each entry with its text,
/// newline included.
fn walk<'a>(script: &'a str, mut each: impl FnMut(Entry<'a>, &'a str)) {
    let mut rest = script;
    while !rest.is_empty() {
        let line = rest.split('\n').next().unwrap_or("");
        let mut consumed = line.len();
        let mut entry = Entry::Other;
        if let Some(decl) = line.strip_prefix("declare ") {
            // `declare -x NAME="value"`, `declare -- NAME=$'…'`, `declare -a NAME=(…)`, `declare -- NAME`.
            let (flags, after_flags) = decl.split_once(' ').unwrap_or((decl, ""));
            match after_flags.split_once('=') {
                Some((name, _)) => {
                    let value_at = line.len() - after_flags.len() + name.len() + 1;
                    let (value, used) = value(&rest[value_at..]);
                    consumed = consumed.max(value_at + used);
                    entry = Entry::Variable { flags, name, value };
                }
                None if !after_flags.is_empty() => entry = Entry::Variable { flags, name: after_flags, value: None },
                None => {}
            }
        } else if let Some(name) = line.strip_suffix(" () ").or_else(|| line.strip_suffix(" ()")) {
            if !name.contains(char::is_whitespace) && !name.is_empty() {
                entry = Entry::Function { name };
                // The body ends at a `}` alone on its line.
                let body = &rest[line.len()..];
                consumed += body.find("\n}\n").map_or(body.len(), |e| e + 2);
            }
        } else if let Some(alias) = line.strip_prefix("alias ") {
            let alias = alias.strip_prefix("-- ").unwrap_or(alias);
            if let Some((name, _)) = alias.split_once('=') {
                entry = Entry::Alias { name };
            }
        }
        // The entry's newline goes with it (every cut lies before an ASCII byte).
        let consumed = if rest[consumed..].starts_with('\n') { consumed + 1 } else { consumed.max(1) };
        let Some((text, after)) = rest.split_at_checked(consumed) else { break };
        each(entry, text);
        rest = after;
    }
}

/// Reads the declarations of a state script.
pub(crate) fn parse(script: &str) -> Declared {
    let mut declared = Declared::default();
    walk(script, |entry, _| match entry {
        Entry::Variable { flags, name, value: Some(v) } => {
            if flags.contains('x') {
                declared.exported.insert(name.to_string());
            }
            declared.variables.insert(name.to_string(), v);
        }
        Entry::Function { name } => {
            declared.functions.insert(name.to_string());
        }
        Entry::Alias { name } => {
            declared.aliases.insert(name.to_string());
        }
        _ => {}
    });
    declared
}

/// Variables bash keeps itself (or that only make sense in the shell that
/// set them): never saved.
const BASH_OWNED: &[&str] = &[
    "BASH",
    "BASHOPTS",
    "BASHPID",
    "COLUMNS",
    "DIRSTACK",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "EUID",
    "FUNCNAME",
    "GROUPS",
    "HISTCMD",
    "HOSTTYPE",
    "IFS",
    "LINENO",
    "LINES",
    "MACHTYPE",
    "OPTERR",
    "OPTIND",
    "OSTYPE",
    "PIPESTATUS",
    "PPID",
    "PS4",
    "PWD",
    "OLDPWD",
    "RANDOM",
    "SECONDS",
    "SHELLOPTS",
    "SHLVL",
    "SRANDOM",
    "UID",
    "_",
];

/// Variables that belong to one run, never to a session: the W3C trace
/// context each command is given afresh (a kept session outlives the trace
/// it was made under, and would hand that old trace to every later command).
pub(crate) const RUN_SCOPED: &[&str] = &["TRACEPARENT", "TRACESTATE"];

/// The state script to save from what a live shell printed (`declare -p`,
/// `declare -f`, `alias -p`): bash's own and read-only variables, and the
/// session machinery's names (`__aide_*`, its `trap` wrapper), left out;
/// the working directory last.
pub(crate) fn restorable_state(printed: &str, working_dir: &str) -> String {
    let mut out = String::with_capacity(printed.len() + 64);
    walk(printed, |entry, text| {
        let keep = match entry {
            Entry::Variable { flags, name, .. } => {
                !(flags.contains('r')
                    || BASH_OWNED.contains(&name)
                    || RUN_SCOPED.contains(&name)
                    || name.starts_with("__aide_")
                    || name.starts_with("BASH_")
                    || name.starts_with("COMP_"))
            }
            Entry::Function { name } => !(name.starts_with("__aide_") || name == "trap"),
            Entry::Alias { .. } => true,
            Entry::Other => false,
        };
        if keep {
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
    });
    out.push_str(&cd_line(working_dir));
    out
}

/// An exported variable as `declare -p` prints it (so [`parse`] reads it
/// back as bash would): `declare -x NAME="VALUE"`, with `\`, `"`, `$` and
/// `` ` `` escaped.
pub(crate) fn declare_exported(name: &str, value: &str) -> String {
    let mut quoted = String::with_capacity(value.len() + 2);
    for c in value.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    format!("declare -x {name}=\"{quoted}\"\n")
}

/// The last line of a state script: back to its working directory.
pub(crate) fn cd_line(working_dir: &str) -> String {
    format!("cd -- {} 2>/dev/null\n", shell_quote(working_dir))
}

/// Quotes `s` for bash with single quotes.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The options script to save: what `set +o` and `shopt -p` printed, with
/// the four options the shell turns off around its own work (errexit,
/// nounset, xtrace, verbose) as the command left them (`flags` is its `$-`).
pub(crate) fn restorable_options(printed: &str, flags: &str) -> String {
    let mut out = String::with_capacity(printed.len());
    for line in printed.lines() {
        let toggled = [("errexit", 'e'), ("nounset", 'u'), ("xtrace", 'x'), ("verbose", 'v')]
            .iter()
            .find(|(name, _)| line == format!("set +o {name}") || line == format!("set -o {name}"));
        match toggled {
            Some((name, flag)) => {
                let sign = if flags.contains(*flag) { '-' } else { '+' };
                out.push_str(&format!("set {sign}o {name}\n"));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

// Long because: one arm per bash quoting form ("…", $'…', '…', bare), each its unquoting.
/// A value as `declare -p` prints it, at the start of `text`: the value
/// (None for arrays) and the bytes it took.
fn value(text: &str) -> (Option<String>, usize) {
    let mut out = String::new();
    let mut chars = text.char_indices().peekable();
    match chars.peek().map(|&(_, c)| c) {
        Some('"') => {
            chars.next();
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => return (Some(out), i + 1),
                    '\\' => match chars.peek().map(|&(_, c)| c) {
                        Some(e @ ('"' | '\\' | '$' | '`')) => {
                            out.push(e);
                            chars.next();
                        }
                        _ => out.push('\\'),
                    },
                    c => out.push(c),
                }
            }
            (None, text.len())
        }
        Some('$') if text.starts_with("$'") => {
            chars.next();
            chars.next();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\'' => return (Some(out), i + 1),
                    '\\' => {
                        let Some((_, e)) = chars.next() else { break };
                        match e {
                            'n' => out.push('\n'),
                            't' => out.push('\t'),
                            'r' => out.push('\r'),
                            'a' => out.push('\x07'),
                            'b' => out.push('\x08'),
                            'e' | 'E' => out.push('\x1b'),
                            'f' => out.push('\x0c'),
                            'v' => out.push('\x0b'),
                            'x' | 'u' | 'U' | '0'..='7' => {
                                let (radix, max) = match e {
                                    'x' => (16, 2),
                                    'u' => (16, 4),
                                    'U' => (16, 8),
                                    _ => (8, 2),
                                };
                                let mut digits = if radix == 8 { e.to_string() } else { String::new() };
                                while digits.len() < max + usize::from(radix == 8)
                                    && let Some(&(_, d)) = chars.peek()
                                    && d.is_digit(radix)
                                {
                                    digits.push(d);
                                    chars.next();
                                }
                                match u32::from_str_radix(&digits, radix).ok().and_then(char::from_u32) {
                                    Some(ch) => out.push(ch),
                                    None => out.push('\u{fffd}'),
                                }
                            }
                            other => out.push(other),
                        }
                    }
                    c => out.push(c),
                }
            }
            (None, text.len())
        }
        Some('(') => {
            // An array: skipped to its closing parenthesis, outside quotes.
            let mut quote: Option<char> = None;
            let mut escaped = false;
            for (i, c) in text.char_indices().skip(1) {
                match (quote, c) {
                    _ if escaped => escaped = false,
                    (_, '\\') => escaped = true,
                    (None, '"' | '\'') => quote = Some(c),
                    (Some(q), c) if c == q => quote = None,
                    (None, ')') => return (None, i + 1),
                    _ => {}
                }
            }
            (None, text.len())
        }
        _ => {
            let end = text.find(char::is_whitespace).unwrap_or(text.len());
            (Some(text[..end].to_string()), end)
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // bash itself, the oracle of what a state script means
mod tests {
    use super::*;

    /// Runs bash to print a state the way the session's save does.
    fn saved_by_bash(setup: &str) -> String {
        let script = format!(
            "{setup}\nfor n in $(compgen -v); do case $n in BASH*|_) continue;; esac; declare -p $n 2>/dev/null; done; \
             for f in $(compgen -A function); do declare -f $f; done; alias -p"
        );
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &script])
            .env_clear()
            .output()
            .expect("bash runs");
        String::from_utf8(out.stdout).expect("utf-8")
    }

    #[test]
    fn reads_back_what_bash_saved() {
        let state = saved_by_bash(
            r#"shopt -s expand_aliases
export DB_PASSWORD='a"b$c`d\e f'
export ML=$'line1\nline2\ttab\x01'
X=plain; declare -i N=5; declare -a ARR=(1 "two )" 3)
export PATH=/opt/x/bin:/usr/bin
ls() { rm -rf d
}
cleanup () { echo '}'; }
alias ll='ls -la'
alias q='echo it'\''s'"#,
        );
        let d = parse(&state);
        assert_eq!(d.variables["DB_PASSWORD"], "a\"b$c`d\\e f", "{state}");
        assert_eq!(d.variables["ML"], "line1\nline2\ttab\x01");
        assert_eq!(d.variables["X"], "plain");
        assert_eq!(d.variables["N"], "5");
        assert_eq!(d.variables["PATH"], "/opt/x/bin:/usr/bin");
        assert!(!d.variables.contains_key("ARR"));
        assert_eq!(d.functions, ["cleanup", "ls"].map(String::from).into());
        assert_eq!(d.aliases, ["ll", "q"].map(String::from).into());
        assert_eq!(d.secret_values(), ["a\"b$c`d\\e f"]);
        assert_eq!(d.defined_names().len(), 4);
    }

    #[test]
    fn the_saved_state_leaves_out_bash_and_the_machinery_and_restores_in_bash() {
        let printed = saved_raw(
            r#"shopt -s expand_aliases
export KEEP='x y'; ML=$'a\nb'; declare -r RO=1; __aide_x=1; declare -a ARR=(1 $'two\nlines')
export TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 TRACESTATE=a=b
__aide_f() { :; }; trap() { :; }; mine() { echo "}"; }
alias ll='ls -la'"#,
        );
        let state = restorable_state(&printed, "/tmp/a b");
        for gone in ["RO=", "__aide_", "BASHPID", "EPOCHREALTIME", "trap ()", "SHLVL", "TRACEPARENT", "TRACESTATE"] {
            assert!(!state.contains(gone), "{gone} kept: {state}");
        }
        assert!(state.ends_with("cd -- '/tmp/a b' 2>/dev/null\n"));
        let back = std::process::Command::new("bash")
            .args([
                "--noprofile",
                "--norc",
                "-c",
                "shopt -s expand_aliases; source /dev/stdin; echo \"$KEEP|$ML|${ARR[1]}\"; mine; alias ll",
            ])
            .env_clear()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().expect("stdin").write_all(state.replace("cd -- '/tmp/a b'", ":").as_bytes())?;
                c.wait_with_output()
            })
            .expect("bash runs");
        assert_eq!(String::from_utf8_lossy(&back.stdout), "x y|a\nb|two\nlines\n}\nalias ll='ls -la'\n");
    }

    /// What a live shell prints for its state: `declare -p`, `declare -f`, `alias -p`.
    fn saved_raw(setup: &str) -> String {
        let script = format!("{setup}\ndeclare -p; declare -f; alias -p");
        let out = std::process::Command::new("bash")
            .args(["--noprofile", "--norc", "-c", &script])
            .env_clear()
            .output()
            .expect("bash");
        String::from_utf8(out.stdout).expect("utf-8")
    }

    #[test]
    fn options_keep_the_four_flags_as_the_command_left_them() {
        let printed = "set +o errexit\nset -o nounset\nset +o pipefail\nset +o xtrace\nshopt -s extglob\n";
        assert_eq!(
            restorable_options(printed, "ehB"),
            "set -o errexit\nset +o nounset\nset +o pipefail\nset +o xtrace\nshopt -s extglob\n"
        );
    }

    #[test]
    fn a_declared_export_reads_back_as_bash_sources_it() {
        let values = ["plain", "a b", "it's", "q\"uote", "$HOME `x` \\ end", "two\nlines", "tab\there", ""];
        let script: String = values.iter().enumerate().map(|(i, v)| declare_exported(&format!("V{i}"), v)).collect();
        let d = parse(&script);
        let printed = std::process::Command::new("bash")
            .args([
                "--noprofile",
                "--norc",
                "-c",
                "source /dev/stdin; for i in 0 1 2 3 4 5 6 7; do n=V$i; printf '%s\\0' \"${!n}\"; done",
            ])
            .env_clear()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().expect("stdin").write_all(script.as_bytes())?;
                c.wait_with_output()
            })
            .expect("bash runs");
        let by_bash: Vec<String> = String::from_utf8_lossy(&printed.stdout).split('\0').map(str::to_string).collect();
        for (i, v) in values.iter().enumerate() {
            assert_eq!(d.variables[&format!("V{i}")], *v, "parsed");
            assert_eq!(by_bash[i], *v, "sourced by bash");
            assert!(d.exported.contains(&format!("V{i}")));
        }
    }

    #[test]
    fn garbage_is_read_without_panicking() {
        for s in
            ["declare ", "declare -x", "declare -x A=\"unterminated", "declare -x B=$'\\x", " () ", "alias =", "\n\n"]
        {
            let _ = parse(s);
            let _ = restorable_state(s, "/");
        }
        assert_eq!(parse("declare -x A=\"1\"\ncd -- '/tmp' 2>/dev/null\n").variables["A"], "1");
    }
}

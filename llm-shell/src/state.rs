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
    pub functions: BTreeSet<String>,
    pub aliases: BTreeSet<String>,
}

impl Declared {
    /// The variables with secret names (`DB_PASSWORD`, `API_TOKEN`, …).
    pub fn secret_variables(&self) -> impl Iterator<Item = (&String, &String)> {
        self.variables.iter().filter(|(name, _)| aide_core::redact::is_secret_name(name))
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

/// Reads the declarations of a state script.
pub fn parse(script: &str) -> Declared {
    let mut declared = Declared::default();
    let mut rest = script;
    while !rest.is_empty() {
        let line = rest.split('\n').next().unwrap_or("");
        let mut consumed = line.len();
        if let Some(decl) = line.strip_prefix("declare ") {
            // `declare -x NAME="value"`, `declare -- NAME=$'…'`, `declare -a NAME=(…)`.
            let after_flags = decl.split_once(' ').map_or("", |(_, a)| a);
            if let Some((name, _)) = after_flags.split_once('=') {
                let value_at = line.len() - after_flags.len() + name.len() + 1;
                let (value, used) = value(&rest[value_at..]);
                consumed = consumed.max(value_at + used);
                if let Some(v) = value {
                    declared.variables.insert(name.to_string(), v);
                }
            }
        } else if let Some(name) = line.strip_suffix(" () ").or_else(|| line.strip_suffix(" ()")) {
            if !name.contains(char::is_whitespace) && !name.is_empty() {
                declared.functions.insert(name.to_string());
                // The body ends at a `}` alone on its line.
                let body = &rest[line.len()..];
                consumed += body.find("\n}\n").map_or(body.len(), |e| e + 2);
            }
        } else if let Some(alias) = line.strip_prefix("alias ") {
            let alias = alias.strip_prefix("-- ").unwrap_or(alias);
            if let Some((name, _)) = alias.split_once('=') {
                declared.aliases.insert(name.to_string());
            }
        }
        rest = rest.get(consumed..).unwrap_or("");
        rest = rest.strip_prefix('\n').unwrap_or(rest);
    }
    declared
}

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
    fn garbage_is_read_without_panicking() {
        for s in
            ["declare ", "declare -x", "declare -x A=\"unterminated", "declare -x B=$'\\x", " () ", "alias =", "\n\n"]
        {
            let _ = parse(s);
        }
        assert_eq!(parse("declare -x A=\"1\"\ncd -- '/tmp' 2>/dev/null\n").variables["A"], "1");
    }
}

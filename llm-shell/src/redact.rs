//! Redaction of secrets in captured output: private keys, common API-token
//! formats, and `password=`-style assignments.

use std::sync::OnceLock;

use regex::Regex;

const MARK: &str = "[REDACTED]";

fn rules() -> &'static [(Regex, bool)] {
    static RULES: OnceLock<Vec<(Regex, bool)>> = OnceLock::new();
    RULES.get_or_init(|| {
        // (pattern, whether only capture group 1 — the value — is replaced)
        let specs: &[(&str, bool)] = &[
            (r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----", false),
            (r"\bAKIA[0-9A-Z]{16}\b", false),
            (r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", false),
            (r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", false),
            (r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b", false),
            (r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b", false),
            (r"\bAIza[0-9A-Za-z_-]{35}\b", false),
            (r"\bglpat-[A-Za-z0-9_-]{20,}\b", false),
            (r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b", false),
            (
                r#"(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\b\s*[=:]\s*["']?([^\s"']{3,})"#,
                true,
            ),
            (r"(?i)://[^/\s:@]+:([^/\s@]{3,})@", true),
        ];
        specs.iter().filter_map(|(p, group)| Regex::new(p).ok().map(|r| (r, *group))).collect()
    })
}

/// Substrings one of which every secret the rules find contains (compared
/// lowercased), so text without any of them skips the regexes.
const NEEDLES: &[&str] = &[
    "private key",
    "akia",
    "gh",
    "github_pat_",
    "xox",
    "sk-",
    "aiza",
    "glpat-",
    "eyj",
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "://",
];

/// Replaces secrets in `text`; returns the new text and how many were replaced.
pub fn redact(text: &str) -> (String, usize) {
    let lower = text.to_ascii_lowercase();
    if !NEEDLES.iter().any(|n| lower.contains(n)) {
        return (text.to_string(), 0);
    }
    let mut out = text.to_string();
    let mut count = 0;
    for (re, value_only) in rules() {
        if !re.is_match(&out) {
            continue;
        }
        let replaced = re.replace_all(&out, |caps: &regex::Captures<'_>| {
            count += 1;
            match (value_only, caps.get(1), caps.get(0)) {
                (true, Some(value), Some(whole)) => {
                    let rel_start = value.start() - whole.start();
                    let rel_end = value.end() - whole.start();
                    let w = whole.as_str();
                    format!("{}{MARK}{}", &w[..rel_start], &w[rel_end..])
                }
                _ => MARK.to_string(),
            }
        });
        out = replaced.into_owned();
    }
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_common_secrets_and_counts_them() {
        let text = "key AKIAABCDEFGHIJKLMNOP\npassword=hunter22 user=bob\ntoken: 'abc123xyz'\n\
                    ghp_abcdefghijklmnopqrstuvwxyz0123456789\nhttps://user:s3cret@example.com/x\n";
        let (out, n) = redact(text);
        assert_eq!(n, 5, "{out}");
        assert!(!out.contains("AKIAABCDEFGHIJKLMNOP"));
        assert!(out.contains("password=[REDACTED] user=bob"));
        assert!(out.contains("token: '[REDACTED]'"));
        assert!(out.contains("https://user:[REDACTED]@example.com/x"));
    }

    #[test]
    fn redacts_private_keys_whole() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\ndef\n-----END OPENSSH PRIVATE KEY-----";
        let (out, n) = redact(&format!("before\n{key}\nafter"));
        assert_eq!((out.as_str(), n), ("before\n[REDACTED]\nafter", 1));
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        let text = "test result: ok. 42 passed; 0 failed\npassword policy updated\n";
        assert_eq!(redact(text), (text.to_string(), 0));
    }
}

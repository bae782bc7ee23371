//! Redaction of secrets in output returned to a caller (`llm-shell exec`,
//! `llm-jobs logs` and `wait`) and in what the execution log keeps.
//!
//! What is replaced by `[REDACTED]`:
//! * the value of an assignment or key whose name has a secret part —
//!   `SECRET`, `PASSWORD`, `PASSWD`, `PASS`, `PASSPHRASE`, `TOKEN`,
//!   `CREDENTIAL(S)`, `APIKEY`, `KEY` after `API`, `PRIVATE`, `SECRET`,
//!   `ACCESS`, `CLIENT`, `SIGNING`, `ENCRYPTION`, `MASTER`, a part that ends
//!   in `password`/`passwd` (`PGPASSWORD`) and `PWD` after another part
//!   (`MYSQL_PWD`) — where parts are split at `_`, `-`, `.` and camelCase
//!   humps (`AWS_SECRET_ACCESS_KEY=…`, `DB_PASSWORD=…`, `"clientSecret": "…"`,
//!   `--password=…`, `--token …`);
//! * `Authorization:` values, `Bearer`/`Basic` credentials, `Cookie:` and
//!   `Set-Cookie:` values;
//! * passwords given on a command line: `curl -u user:PW` (`--user`),
//!   `mysql -pPW`, `sshpass -p PW`;
//! * PEM private-key blocks, also when cut before their END line;
//! * credentials in URLs (`https://user:…@host`);
//! * tokens by their shape: GitHub, GitLab, Slack, Stripe, AWS access key
//!   ids and bare 40-character AWS secret keys, Google API keys and OAuth
//!   tokens, OpenAI/Anthropic keys, npm, PyPI, Hugging Face, SendGrid, JWTs;
//! * known values: a [`Redactor`] made [`with_values`](Redactor::with_values)
//!   replaces each of them (4 characters or more) wherever it appears, e.g.
//!   the values of a shell session's secret-named variables.
//!
//! Not replaced: hashes, UUIDs, checksums and ids (no rule matches a bare
//! hex or UUID string), and names that only contain a secret word inside a
//! longer part (`secretary`, `tokens`, `passwordless`, `PWD`, `OLDPWD`).
//!
//! Every rule runs on the original text and marks spans; overlapping spans
//! merge into one `[REDACTED]`. Structured documents are redacted value by
//! value ([`json`]), never as serialized text, so they stay valid JSON; a
//! stream is redacted as it arrives ([`stream::StreamRedactor`]), so a page
//! or a cut never shows part of a secret.

pub mod json;
pub mod stream;

use std::ops::Range;
use std::sync::OnceLock;

use regex::bytes::{Captures, Regex};

/// What a secret is replaced with.
pub const MARK: &str = "[REDACTED]";

/// Known values shorter than this are not redacted on their own: "1" or
/// "yes" would take every occurrence of ordinary text with them.
pub const MIN_KNOWN_VALUE: usize = 4;

/// A rule: a pattern, the substrings (lowercased) one of which every match
/// contains (none: always tried), which capture group holds the secret (0:
/// all of it), and how a candidate secret is vetted. A rule's regex is
/// compiled the first time text holds one of its needles: most text (a
/// search request, a path) compiles few.
struct Rule {
    pattern: &'static str,
    needles: &'static [&'static str],
    group: usize,
    vet: Vet,
}

#[derive(Clone, Copy)]
enum Vet {
    /// Every match is a secret.
    Always,
    /// Only when the `name` group has a secret part; the secret is the
    /// `dq`, `sq` or `bare` group.
    SecretName,
    /// Only when the secret looks random: upper and lower case letters and
    /// digits, not only hex (a bare AWS secret key, not a git hash).
    Random,
}

/// The parts [`is_secret_name`] looks for, as lowercase substrings.
const SECRET_NAME_NEEDLES: &[&str] = &["secret", "pass", "token", "credential", "key", "pwd"];

const fn rule(pattern: &'static str, needles: &'static [&'static str], group: usize) -> Rule {
    Rule { pattern, needles, group, vet: Vet::Always }
}

const RULES: &[Rule] = &[
    // PEM private keys, whole; a block cut before END to the end of its
    // base64 (lines that do not start with `-`, so never past an END line).
    rule(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----", &["private key"], 0),
    rule(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:\r?\n(?:[A-Za-z0-9+/=:][A-Za-z0-9+/=:,\- ]*)?)*",
        &["private key"],
        0,
    ),
    // Authorization headers and schemes (one line each).
    rule(
        r#"(?i)\bauthorization\b["']?[ \t]*[:=][ \t]*["']?((?:(?:bearer|basic|token|digest|bot)[ \t]+)?[^\s"',]{6,})"#,
        &["authorization"],
        1,
    ),
    rule(r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/\-]{12,}=*)", &["bearer"], 1),
    rule(r"\bBasic[ \t]+([A-Za-z0-9+/]{12,}={0,2})(?:[^A-Za-z0-9+/=]|$)", &["basic"], 1),
    rule(r#"(?i)\b(?:set-)?cookie["']?[ \t]*:[ \t]*["']?([^\r\n"']{3,})"#, &["cookie"], 1),
    // Passwords on command lines.
    rule(
        r#"(?i:\bcurl\b)[^\n]*?[ \t](?:-u|--user|--proxy-user|-U)(?:[ \t]+|=)?["']?[^\s:"']+:([^\s"']{2,})"#,
        &["curl"],
        1,
    ),
    rule(
        r#"(?i:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b)[^\n]*?[ \t]-p([^\s"'][^\s"']*)"#,
        &["mysql", "mariadb"],
        1,
    ),
    rule(r#"\bsshpass\b[^\n]*?[ \t]-p[ \t]*["']?([^\s"']+)"#, &["sshpass"], 1),
    // Credentials in URLs.
    rule(r"(?i)[a-z][a-z0-9+.\-]*://[^/\s:@]+:([^/\s@]{3,})@", &["://"], 1),
    // Token shapes.
    rule(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", &["akia", "asia"], 0),
    Rule {
        pattern: r"(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
        needles: &[],
        group: 1,
        vet: Vet::Random,
    },
    rule(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], 0),
    rule(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", &["github_pat_"], 0),
    rule(r"\bgl(?:pat|dt|rt|ptt|ft)-[A-Za-z0-9_\-]{20,}", &["glpat-", "gldt-", "glrt-", "glptt-", "glft-"], 0),
    rule(r"\bxox[abeoprs]-[A-Za-z0-9\-]{10,}", &["xox"], 0),
    rule(r"\bxapp-\d-[A-Za-z0-9\-]{10,}", &["xapp-"], 0),
    rule(r"https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,}", &["hooks.slack.com"], 0),
    rule(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b", &["_live_", "_test_"], 0),
    rule(r"\bwhsec_[A-Za-z0-9]{20,}\b", &["whsec_"], 0),
    rule(r"\bsk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_\-]{20,}", &["sk-"], 0),
    rule(r"\bAIza[0-9A-Za-z_\-]{35}\b", &["aiza"], 0),
    rule(r"\bya29\.[0-9A-Za-z_\-]{20,}", &["ya29."], 0),
    rule(r"\bGOCSPX-[0-9A-Za-z_\-]{20,}", &["gocspx-"], 0),
    rule(r"\bnpm_[A-Za-z0-9]{36}\b", &["npm_"], 0),
    rule(r"\bpypi-AgE[A-Za-z0-9_\-]{20,}", &["pypi-"], 0),
    rule(r"\bhf_[A-Za-z0-9]{30,}\b", &["hf_"], 0),
    rule(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}", &["sg."], 0),
    rule(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", &["eyj"], 0),
    // `--password VALUE` style flags.
    Rule {
        pattern: r"(?i)(?:^|[\s\x22'(=])--?(?P<name>[a-z][a-z0-9\-]*)[ \t]+(?:\x22(?P<dq>[^\x22\n]{3,})\x22|'(?P<sq>[^'\n]{3,})'|(?P<bare>[^\s\x22'-][^\s\x22']{2,}))",
        needles: SECRET_NAME_NEEDLES,
        group: 0,
        vet: Vet::SecretName,
    },
    // NAME=value, NAME: value, "name": "value".
    Rule {
        pattern: r#"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)["']?[ \t]*(?::|=)[ \t]*(?:"(?P<dq>[^"\n]{3,})"|'(?P<sq>[^'\n]{3,})'|(?P<bare>[^\s"',;]{3,}))"#,
        needles: SECRET_NAME_NEEDLES,
        group: 0,
        vet: Vet::SecretName,
    },
];

/// The compiled regex of `RULES[i]`, compiled on first use.
fn regex(i: usize) -> &'static Regex {
    static COMPILED: [OnceLock<Regex>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];
    COMPILED[i].get_or_init(|| {
        let p = RULES[i].pattern;
        Regex::new(p).unwrap_or_else(|e| panic!("redaction pattern {p}: {e}"))
    })
}

/// Whether a variable or key name has a secret part (see the module doc).
pub fn is_secret_name(name: &str) -> bool {
    let parts = name_parts(name);
    parts.iter().enumerate().any(|(i, part)| {
        let prev = i.checked_sub(1).map(|j| parts[j].as_str());
        match part.as_str() {
            "secret" | "secrets" | "password" | "passwd" | "pass" | "passphrase" | "token" | "credential"
            | "credentials" | "apikey" | "privatekey" | "secretkey" => true,
            "key" => matches!(
                prev,
                Some("api" | "private" | "secret" | "access" | "client" | "signing" | "encryption" | "master")
            ),
            // `MYSQL_PWD`, never `PWD` alone.
            "pwd" => prev.is_some(),
            // `PGPASSWORD`, `dbpasswd`; `passwordless` ends otherwise.
            other => other.ends_with("password") || other.ends_with("passwd"),
        }
    })
}

/// A name split at `_`, `-`, `.` and camelCase humps, lowercased.
fn name_parts(name: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.') {
            if !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
        } else {
            if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            current.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// Whether `text` holds a run of 40 or more base64 key characters, which a
/// bare secret key needs before its rule is worth compiling.
fn has_key_run(text: &[u8]) -> bool {
    let mut run = 0;
    for &b in text {
        if b.is_ascii_alphanumeric() || b == b'/' || b == b'+' {
            run += 1;
            if run >= 40 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Whether `s` looks like a random key: upper and lower case letters and
/// digits, and not a hex string.
fn looks_random(s: &[u8]) -> bool {
    s.iter().any(u8::is_ascii_uppercase)
        && s.iter().any(u8::is_ascii_lowercase)
        && s.iter().any(u8::is_ascii_digit)
        && !s.iter().all(u8::is_ascii_hexdigit)
}

/// What finds secrets: the rules, and values known to be secret.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    values: Vec<Vec<u8>>,
}

impl Redactor {
    /// A redactor that also replaces each of `values` wherever it appears
    /// (those shorter than [`MIN_KNOWN_VALUE`] are left to the rules).
    pub fn with_values<I, S>(values: I) -> Redactor
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut values: Vec<Vec<u8>> = values
            .into_iter()
            .map(|v| v.as_ref().as_bytes().to_vec())
            .filter(|v| v.len() >= MIN_KNOWN_VALUE && v.as_slice() != MARK.as_bytes())
            .collect();
        // Longest first, so a value that holds another is found whole.
        values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        values.dedup();
        Redactor { values }
    }

    /// Whether the redactor knows values of its own.
    pub fn has_values(&self) -> bool {
        !self.values.is_empty()
    }

    /// Whether any rule could find a secret in `text` (one of its needles is
    /// there, or a run of 40 key characters), or the redactor knows values
    /// of its own: when false, [`Redactor::spans`] is empty.
    pub fn may_hold_secrets(&self, text: &[u8]) -> bool {
        if self.has_values() || has_key_run(text) {
            return true;
        }
        let lower = text.to_ascii_lowercase();
        RULES.iter().any(|r| r.needles.iter().any(|n| memchr::memmem::find(&lower, n.as_bytes()).is_some()))
    }

    /// The byte ranges of `text` that are secrets, sorted and merged.
    pub fn spans(&self, text: &[u8]) -> Vec<Range<usize>> {
        let lower = text.to_ascii_lowercase();
        let mut spans: Vec<Range<usize>> = Vec::new();
        for (i, rule) in RULES.iter().enumerate() {
            // Every match holds a needle (a rule without one, a run of 40
            // key characters): most text compiles and runs few rules.
            let candidate = if rule.needles.is_empty() {
                has_key_run(text)
            } else {
                rule.needles.iter().any(|n| memchr::memmem::find(&lower, n.as_bytes()).is_some())
            };
            if !candidate {
                continue;
            }
            // Searched on from the end of what each match decided, not of
            // the whole match: a rejected `x="…"` must not swallow the
            // `TOKEN=…` inside its quotes, nor a token's trailing boundary the next one's.
            let mut at = 0;
            while at < text.len()
                && let Some(caps) = regex(i).captures_at(text, at)
            {
                let (secret, decided) = secret_of(rule, &caps);
                spans.extend(secret);
                at = decided.max(at + 1);
            }
        }
        for value in &self.values {
            spans.extend(memchr::memmem::find_iter(text, value).map(|at| at..at + value.len()));
        }
        merge(spans)
    }

    /// `text` with its secrets replaced, and how many were replaced.
    pub fn redact_bytes(&self, text: &[u8]) -> (Vec<u8>, usize) {
        let spans = self.spans(text);
        (replace_spans(text, &spans), spans.len())
    }

    /// `text` with its secrets replaced, and how many were replaced.
    pub fn redact(&self, text: &str) -> (String, usize) {
        let spans = self.spans(text.as_bytes());
        if spans.is_empty() {
            return (text.to_string(), 0);
        }
        let bytes = replace_spans(text.as_bytes(), &spans);
        // Spans of valid UTF-8 start and end on character boundaries.
        let out = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        (out, spans.len())
    }
}

/// The secret span of one match of `rule`, if the match is one, and where
/// the search goes on.
fn secret_of(rule: &Rule, caps: &Captures<'_>) -> (Option<Range<usize>>, usize) {
    let whole = caps.get(0).map_or(0..0, |m| m.range());
    let (secret, decided) = match rule.vet {
        Vet::Always => (caps.get(rule.group), whole.end),
        Vet::Random => match caps.get(rule.group) {
            Some(m) => (looks_random(m.as_bytes()).then_some(m), m.end()),
            None => (None, whole.end),
        },
        Vet::SecretName => match caps.name("name") {
            Some(name) if std::str::from_utf8(name.as_bytes()).is_ok_and(is_secret_name) => {
                (["dq", "sq", "bare"].iter().find_map(|g| caps.name(g)), whole.end)
            }
            Some(name) => (None, name.end()),
            None => (None, whole.end),
        },
    };
    // Redacting twice changes nothing more.
    let secret = secret.filter(|s| {
        memchr::memmem::find(s.as_bytes(), MARK.as_bytes()).is_none() && !s.as_bytes().starts_with(b"[REDACTED")
    });
    (secret.map(|s| s.range()), decided)
}

/// Sorted, with overlapping and touching ranges joined.
fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.retain(|s| s.start < s.end);
    spans.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

/// `text` with each of `spans` (sorted, disjoint) replaced by [`MARK`].
fn replace_spans(text: &[u8], spans: &[Range<usize>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for s in spans {
        out.extend_from_slice(&text[at..s.start]);
        out.extend_from_slice(MARK.as_bytes());
        at = s.end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// Replaces secrets in `text`; returns the new text and how many were replaced.
pub fn redact(text: &str) -> (String, usize) {
    Redactor::default().redact(text)
}

#[cfg(test)]
mod tests;

//! What a command's words say before any rule reads them: its parts as
//! written, the program it names, whether a word is a pattern bash expands,
//! and whether a shell or interpreter takes code from stdin or its options;
//! and the verdict a step's risk is gathered in.

use brush_parser::ast::{Command, CommandPrefixOrSuffixItem, IoRedirect};

use super::risk::Risk;
use super::rules::{base, static_word};

/// A simple command's parts, as written.
#[derive(Default)]
pub(crate) struct Parts<'c> {
    pub(crate) words: Vec<String>,
    pub(crate) assignments: Vec<String>,
    pub(crate) redirects: Vec<&'c IoRedirect>,
    /// Code it runs in `<(…)`/`>(…)`.
    pub(crate) process_substitutions: Vec<String>,
}

impl<'c> Parts<'c> {
    pub(crate) fn of(s: &'c brush_parser::ast::SimpleCommand) -> Parts<'c> {
        let mut parts = Parts::default();
        for item in s.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                CommandPrefixOrSuffixItem::IoRedirect(r) => parts.redirects.push(r),
                CommandPrefixOrSuffixItem::AssignmentWord(_, w) => parts.assignments.push(w.value.clone()),
                CommandPrefixOrSuffixItem::Word(w) => parts.words.push(w.value.clone()),
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    parts.process_substitutions.push(sub.list.to_string())
                }
            }
        }
        for item in s.suffix.iter().flat_map(|p| p.0.iter()) {
            match item {
                // `of=/dev/sda` after a command name is an argument, though it parses as an assignment.
                CommandPrefixOrSuffixItem::Word(w) | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                    parts.words.push(w.value.clone())
                }
                CommandPrefixOrSuffixItem::IoRedirect(r) => parts.redirects.push(r),
                CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                    parts.process_substitutions.push(sub.list.to_string())
                }
            }
        }
        parts
    }
}

/// A step's risk as it is being found: the highest level, with each reason.
#[derive(Default)]
pub(crate) struct Verdict {
    pub(crate) risk: Risk,
    pub(crate) reasons: Vec<String>,
}

impl Verdict {
    pub(crate) fn raise(&mut self, (risk, reasons): (Risk, Vec<String>)) {
        if risk > Risk::Low {
            self.risk = self.risk.max(risk);
            self.reasons.extend(reasons);
        }
    }

    pub(crate) fn raise_one(&mut self, risk: Risk, reason: String) {
        self.raise((risk, vec![reason]));
    }
}

pub(crate) fn program_of(c: &Command) -> Option<String> {
    match c {
        Command::Simple(s) => s.word_or_name.as_ref().map(|w| w.value.clone()),
        _ => None,
    }
}

pub(crate) fn is_shell(p: &str) -> bool {
    matches!(p, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish")
}

/// Whether a word holds unquoted glob or brace characters: bash would
/// expand it into other words.
pub(crate) fn is_pattern(word: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in word.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') | (None, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (None, '*' | '?' | '[' | '{') => return true,
            _ => {}
        }
    }
    false
}

/// Whether `program words` is a shell or an interpreter that would run code
/// from its standard input (no script named, or `-`, `-s`).
pub(crate) fn reads_code_from_stdin(program: &str, words: &[String]) -> bool {
    let Some(p) = static_word(program) else { return false };
    let p = base(&p);
    let shell = matches!(p, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish");
    let interpreter = matches!(p, "python" | "python3" | "perl" | "ruby" | "node" | "php" | "lua" | "Rscript");
    (shell || interpreter)
        && (words.iter().all(|w| w.starts_with('-')) || words.iter().any(|w| w == "-" || (shell && w == "-s")))
}

/// Whether `word` is an interpreter's option that takes code on the command line.
pub(crate) fn runs_inline_code(interpreter: &str, word: &str) -> bool {
    let bundle = |letters: &[char]| {
        word.starts_with('-') && !word.starts_with("--") && word[1..].chars().any(|c| letters.contains(&c))
    };
    match interpreter {
        "perl" => bundle(&['e', 'E']),
        "ruby" | "lua" => bundle(&['e']),
        "php" => bundle(&['r']),
        "node" | "deno" | "bun" => matches!(word, "-e" | "-p" | "--eval" | "--print" | "eval"),
        _ => bundle(&['c']) && !word.contains('-') || word == "-c",
    }
}

//! Parsing without running: brush-parser's bash grammar, with `bash -n` as a
//! second opinion, and a JSON view of the tree.

use brush_parser::ast::{
    AndOr, AndOrList, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectTarget,
    IoRedirect, Pipeline, SeparatorOperator, SimpleCommand,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

/// The result of `llm-shell check`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckOutput {
    pub command: String,
    pub valid: bool,
    /// The syntax tree: program → and-or lists → pipelines → commands.
    pub ast: Option<Value>,
    pub error: Option<String>,
    /// 1-based line and column of the error.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub suggestion: Option<String>,
    /// What `bash -n` says, when bash is installed.
    pub bash_n: Option<BashN>,
    /// The two parsers disagree on validity.
    pub disagreement: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BashN {
    pub valid: bool,
    pub message: Option<String>,
}

/// Parses `command` with brush-parser.
pub(crate) fn parse(command: &str) -> Result<brush_parser::ast::Program, (String, Option<(usize, usize)>)> {
    if let Err(e) = aide_core::text::check_depth("the command", nesting_depth(command)) {
        return Err((e.message.into(), None));
    }
    let options = brush_parser::ParserOptions::default();
    // brush-parser unwraps a number before a redirection that no descriptor
    // can be (`cat 99999999999999999999<x`, which bash reads as a word): a
    // panic of the parser is this command's parse error, never the tool's.
    let parsed = std::panic::catch_unwind(|| {
        let mut parser = brush_parser::Parser::new(std::io::BufReader::new(command.as_bytes()), &options);
        parser.parse_program()
    });
    let Ok(parsed) = parsed else {
        return Err(("the shell parser cannot read this command (a number before a redirection too large for a file descriptor?)".into(), None));
    };
    parsed.map_err(|e| {
        let at = match &e {
            brush_parser::ParseError::ParsingNear(pos) => Some((pos.line, pos.column)),
            _ => None,
        };
        (e.to_string(), at)
    })
}

/// How deep `command` nests: brackets (`$(`, `(`, `{`, `[`) and the
/// keywords that open and close blocks (`if` … `fi`, loops, `case`).
pub(crate) fn nesting_depth(command: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for word in command.split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|') {
        match word {
            "if" | "while" | "until" | "for" | "case" | "select" => {
                depth += 1;
                max = max.max(depth);
            }
            "fi" | "done" | "esac" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max.max(aide_core::text::bracket_depth(command))
}

/// `bash -n`: bash's own parse, nothing run.
pub(crate) fn bash_n(command: &str) -> Option<BashN> {
    let out = aide_gate::Launch::new("syntax check", "bash", std::env::temp_dir())
        .args(["--noprofile", "--norc", "-n", "-c", command])
        .timeout(Some(std::time::Duration::from_secs(10)))
        .run()
        .ok()?;
    let message = String::from_utf8_lossy(&out.stderr).trim().to_string();
    Some(BashN { valid: out.status.success(), message: (!message.is_empty()).then_some(message) })
}

fn suggest(command: &str, error: &str) -> Option<String> {
    let trimmed = command.trim_end();
    let quotes = |q: char| command.chars().filter(|&c| c == q).count() % 2 == 1;
    let s = if trimmed.ends_with('|') && !trimmed.ends_with("||") {
        "a pipeline needs a command after '|'"
    } else if trimmed.ends_with("&&") || trimmed.ends_with("||") {
        "add the command that should run after the last '&&' or '||'"
    } else if quotes('\'') {
        "close the single quote"
    } else if quotes('"') {
        "close the double quote"
    } else if command.matches('(').count() > command.matches(')').count() {
        "close the parenthesis"
    } else if command.matches('{').count() > command.matches('}').count() {
        "close the brace group with '}' (after a ';' or newline)"
    } else if command.contains("if ") && !command.contains("fi") {
        "end the if with 'fi'"
    } else if (command.contains("for ") || command.contains("while ")) && !command.contains("done") {
        "end the loop with 'done'"
    } else if command.contains("case ") && !command.contains("esac") {
        "end the case with 'esac'"
    } else if error.contains("end of input") {
        "the command ends too early; something is left open"
    } else {
        return None;
    };
    Some(s.to_string())
}

/// `llm-shell check`.
pub(crate) fn check(command: &str) -> CheckOutput {
    let bash = bash_n(command);
    let (valid, ast, error, at) = match parse(command) {
        Ok(program) => (true, Some(program_json(&program)), None, None),
        Err((message, at)) => (false, None, Some(message), at),
    };
    let suggestion = error.as_deref().and_then(|e| suggest(command, e));
    let disagreement = bash.as_ref().is_some_and(|b| b.valid != valid);
    CheckOutput {
        command: command.to_string(),
        valid,
        ast,
        error,
        line: at.map(|a| a.0),
        column: at.map(|a| a.1),
        suggestion,
        bash_n: bash,
        disagreement,
    }
}

pub(crate) fn program_json(p: &brush_parser::ast::Program) -> Value {
    let lists: Vec<Value> = p.complete_commands.iter().flat_map(compound_list_json).collect();
    json!({ "type": "Program", "lists": lists })
}

fn compound_list_json(list: &CompoundList) -> Vec<Value> {
    list.0
        .iter()
        .map(|item| {
            let mut v = and_or_json(&item.0);
            v["async"] = json!(matches!(item.1, SeparatorOperator::Async));
            v
        })
        .collect()
}

fn and_or_json(list: &AndOrList) -> Value {
    let mut pipelines = vec![pipeline_json(&list.first, None)];
    for next in &list.additional {
        pipelines.push(match next {
            AndOr::And(p) => pipeline_json(p, Some("&&")),
            AndOr::Or(p) => pipeline_json(p, Some("||")),
        });
    }
    json!({ "type": "AndOrList", "pipelines": pipelines })
}

fn pipeline_json(p: &Pipeline, operator: Option<&str>) -> Value {
    let commands: Vec<Value> = p.seq.iter().map(command_json).collect();
    json!({ "type": "Pipeline", "operator": operator, "negated": p.bang, "commands": commands })
}

fn redirect_json(r: &IoRedirect) -> Value {
    match r {
        IoRedirect::File(fd, kind, target) => {
            let target = match target {
                IoFileRedirectTarget::Filename(w) => w.value.clone(),
                other => other.to_string(),
            };
            json!({ "op": kind.to_string(), "fd": fd, "target": target })
        }
        IoRedirect::HereDocument(fd, doc) => json!({ "op": "<<", "fd": fd, "target": doc.here_end.value }),
        IoRedirect::HereString(fd, w) => json!({ "op": "<<<", "fd": fd, "target": w.value }),
        IoRedirect::OutputAndError(w, append) => {
            json!({ "op": if *append { "&>>" } else { "&>" }, "fd": null, "target": w.value })
        }
    }
}

/// Command substitutions and process substitutions inside a word, as the
/// shell would run them: text in single quotes, `$'…'` or after a
/// backslash is literal, so `'$(rm -rf /)'` runs nothing.
pub(crate) fn substitutions(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = word.as_bytes();
    let mut in_double = false;
    let mut i = 0;
    // Indices only ever land on ASCII bytes, so every slice below is on a
    // character boundary whatever the word holds.
    while i < bytes.len() {
        let rest = &bytes[i..];
        match bytes[i] {
            b'\\' => i += 2,
            b'\'' if !in_double => i = literal_end(bytes, i + 1, false),
            b'$' if !in_double && rest.starts_with(b"$'") => i = literal_end(bytes, i + 2, true),
            b'"' => {
                in_double = !in_double;
                i += 1;
            }
            b'`' => {
                let end = backtick_end(bytes, i + 1);
                out.push(word[i + 1..end].to_string());
                i = end + 1;
            }
            _ if (rest.starts_with(b"$(") && !rest.starts_with(b"$(("))
                || (!in_double && (rest.starts_with(b"<(") || rest.starts_with(b">("))) =>
            {
                let end = closing_paren(bytes, i + 2);
                out.push(word[i + 2..end].to_string());
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Past the closing quote of a single-quoted (or, with `escapes`, a
/// `$'…'`) string whose text starts at `from`; the end if it never closes.
fn literal_end(bytes: &[u8], from: usize, escapes: bool) -> usize {
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' if escapes => j += 2,
            b'\'' => return j + 1,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The index of the backtick that closes one opened before `from`.
fn backtick_end(bytes: &[u8], from: usize) -> usize {
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'`' => return j,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The index of the `)` that closes a substitution whose code starts at
/// `from`: parentheses inside quotes do not count.
fn closing_paren(bytes: &[u8], from: usize) -> usize {
    let (mut depth, mut in_double, mut j) = (1usize, false, from);
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 1,
            b'\'' if !in_double => j = literal_end(bytes, j + 1, false) - 1,
            b'"' => in_double = !in_double,
            b'(' if !in_double => depth += 1,
            b')' if !in_double => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
        j += 1;
    }
    bytes.len()
}

fn simple_json(c: &SimpleCommand) -> Value {
    let mut args = Vec::new();
    let mut assignments = Vec::new();
    let mut redirections = Vec::new();
    let mut subs = Vec::new();
    let items = c.prefix.iter().flat_map(|p| p.0.iter()).chain(c.suffix.iter().flat_map(|s| s.0.iter()));
    for item in items {
        match item {
            CommandPrefixOrSuffixItem::Word(w) => {
                subs.extend(substitutions(&w.value));
                args.push(w.value.clone());
            }
            CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                subs.extend(substitutions(&w.value));
                assignments.push(w.value.clone());
            }
            CommandPrefixOrSuffixItem::IoRedirect(r) => redirections.push(redirect_json(r)),
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                subs.push(format!("{kind}({})", sub.list));
            }
        }
    }
    let program = c.word_or_name.as_ref().map(|w| {
        subs.extend(substitutions(&w.value));
        w.value.clone()
    });
    json!({
        "type": "SimpleCommand",
        "program": program,
        "args": args,
        "assignments": assignments,
        "redirections": redirections,
        "substitutions": subs,
    })
}

fn command_json(c: &Command) -> Value {
    match c {
        Command::Simple(s) => simple_json(s),
        Command::Compound(compound, redirects) => {
            let mut v = compound_json(compound);
            v["redirections"] = json!(redirects.iter().flat_map(|r| r.0.iter()).map(redirect_json).collect::<Vec<_>>());
            v
        }
        Command::Function(f) => json!({
            "type": "FunctionDefinition",
            "name": f.fname.value,
            "body": compound_json(&f.body.0),
        }),
        Command::ExtendedTest(t, _) => json!({ "type": "ExtendedTest", "text": t.to_string() }),
    }
}

fn compound_json(c: &CompoundCommand) -> Value {
    match c {
        CompoundCommand::Subshell(s) => json!({ "type": "Subshell", "body": compound_list_json(&s.list) }),
        CompoundCommand::BraceGroup(b) => json!({ "type": "BraceGroup", "body": compound_list_json(&b.list) }),
        CompoundCommand::IfClause(i) => {
            let elses: Vec<Value> = i
                .elses
                .iter()
                .flatten()
                .map(|e| {
                    json!({
                        "condition": e.condition.as_ref().map(compound_list_json),
                        "body": compound_list_json(&e.body),
                    })
                })
                .collect();
            json!({ "type": "If", "condition": compound_list_json(&i.condition), "then": compound_list_json(&i.then), "elses": elses })
        }
        CompoundCommand::ForClause(f) => json!({
            "type": "For",
            "variable": f.variable_name,
            "values": f.values.as_ref().map(|v| v.iter().map(|w| w.value.clone()).collect::<Vec<_>>()),
            "body": compound_list_json(&f.body.list),
        }),
        CompoundCommand::WhileClause(w) => {
            json!({ "type": "While", "condition": compound_list_json(&w.0), "body": compound_list_json(&w.1.list) })
        }
        CompoundCommand::UntilClause(w) => {
            json!({ "type": "Until", "condition": compound_list_json(&w.0), "body": compound_list_json(&w.1.list) })
        }
        CompoundCommand::CaseClause(c) => json!({
            "type": "Case",
            "value": c.value.value,
            "cases": c.cases.iter().map(|i| json!({
                "patterns": i.patterns.iter().map(|p| p.value.clone()).collect::<Vec<_>>(),
                "body": i.cmd.as_ref().map(compound_list_json),
            })).collect::<Vec<_>>(),
        }),
        CompoundCommand::Arithmetic(a) => json!({ "type": "Arithmetic", "text": a.to_string() }),
        CompoundCommand::ArithmeticForClause(a) => {
            json!({ "type": "ArithmeticFor", "body": compound_list_json(&a.body.list) })
        }
        CompoundCommand::Coprocess(c) => json!({ "type": "Coprocess", "body": command_json(&c.body) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pipelines_and_lists() {
        let out = check("cargo test --release && cargo build | tee log.txt > out.txt");
        assert!(out.valid);
        let ast = out.ast.unwrap();
        let pipelines = &ast["lists"][0]["pipelines"];
        assert_eq!(pipelines[0]["commands"][0]["program"], "cargo");
        assert_eq!(pipelines[0]["commands"][0]["args"], json!(["test", "--release"]));
        assert_eq!(pipelines[1]["operator"], "&&");
        assert_eq!(pipelines[1]["commands"][1]["program"], "tee");
        assert_eq!(pipelines[1]["commands"][1]["redirections"][0]["target"], "out.txt");
    }

    #[test]
    fn words_of_any_characters_and_huge_descriptors_never_panic() {
        assert_eq!(substitutions("héllo $(wörld) `ü`"), ["wörld", "ü"]);
        assert!(check("echo héllo wörld | grep ö").valid);
        let out = check("cat 99999999999999999999<x");
        assert!(!out.valid && out.error.is_some_and(|m| m.contains("file descriptor")));
    }

    proptest::proptest! {
        #[test]
        fn any_command_parses_or_is_refused(command in "[a-zé€🦀 $`()<>|&;'\"0-9{}\\\n-]{0,40}") {
            let _ = check(&command);
            let _ = substitutions(&command);
        }
    }

    #[test]
    fn reports_errors_with_position_and_suggestion() {
        let out = check("echo hi |");
        assert!(!out.valid);
        assert!(out.suggestion.unwrap().contains("after '|'"));
        let out = check("if true; then echo x");
        assert!(!out.valid);
        assert!(out.suggestion.is_some());
        let out = check("echo 'unterminated");
        assert!(!out.valid);
    }

    #[test]
    fn finds_substitutions() {
        assert_eq!(substitutions("$(date)-`whoami`"), vec!["date".to_string(), "whoami".to_string()]);
        assert_eq!(substitutions("$((1+2))"), Vec::<String>::new());
    }

    #[test]
    fn quoted_text_is_not_a_substitution() {
        assert!(substitutions("'$(rm -rf /)'").is_empty());
        assert!(substitutions("$'`id` \\' $(x)'").is_empty());
        assert!(substitutions("\\$(date) \\`id\\`").is_empty());
        assert_eq!(substitutions("\"$(date)\" '`id`'"), ["date"]);
        assert_eq!(substitutions("\"`id`\""), ["id"]);
        assert_eq!(substitutions("$(echo \")\" ')' (x))"), ["echo \")\" ')' (x)"]);
        assert_eq!(substitutions("\"<(x)\" <(y)"), ["y"]);
        assert_eq!(substitutions("$(unclosed"), ["unclosed"]);
    }
}

//! The walk over a command's syntax tree: a step for each command, when it
//! runs, its risk from the rules and the read-only list, and everything
//! nested in it analysed as code of its own — `$(…)`, `<(…)`, `bash -c`,
//! `eval`, wrappers, here-documents into shells, traps, aliases, function
//! bodies, `[[ … ]]`, arithmetic, loop and case words.

use std::collections::BTreeSet;

use brush_parser::ast::{
    AndOr, Command, CompoundCommand, CompoundList, IoFileRedirectTarget, IoRedirect, Pipeline, RedirectList,
    SeparatorOperator,
};

use super::allow;
use super::describe::describe;
use super::risk::{Risk, Step, risk_of_steps};
use super::rules::{assess, assess_redirect, base, is_interpreter, static_word};
use super::surroundings::Surroundings;
use super::words::{Parts, Verdict, is_pattern, is_shell, program_of, reads_code_from_stdin, runs_inline_code};
use crate::error::ShellError;
use crate::syntax;

/// How deep `bash -c`, `eval` and wrappers are followed before giving up.
const MAX_NESTING: usize = 8;

/// Where a walk stands: what it runs among, the names defined so far, how deep.
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    env: &'a Surroundings,
    defined: &'a BTreeSet<String>,
    depth: usize,
}

impl<'a> Scope<'a> {
    fn deeper(self) -> Scope<'a> {
        Scope { depth: self.depth + 1, ..self }
    }
}

pub(super) struct Walker<'a> {
    env: &'a Surroundings,
    pub(super) steps: Vec<Step>,
    pub(super) warnings: Vec<String>,
    /// The position of the command being walked in its pipeline (0: first).
    pipeline_position: usize,
    /// How deep in `$(…)`, `bash -c` and `eval` this walk is.
    depth: usize,
    /// Functions and aliases of the session and of this command so far.
    defined: BTreeSet<String>,
}

/// The steps and warnings of `command`.
pub(super) fn walk<'a>(command: &str, env: &'a Surroundings) -> Result<Walker<'a>, ShellError> {
    walk_at(command, env, env.defined.clone(), 0)
}

/// [`walk`] of code nested `depth` levels deep (in `$(…)`, `bash -c`, `eval`).
fn walk_at<'a>(
    command: &str,
    env: &'a Surroundings,
    defined: BTreeSet<String>,
    depth: usize,
) -> Result<Walker<'a>, ShellError> {
    let program = syntax::parse(command).map_err(|(message, _)| ShellError::Unparsable { message })?;
    let mut w = Walker { env, steps: Vec::new(), warnings: Vec::new(), pipeline_position: 0, depth, defined };
    for list in &program.complete_commands {
        w.list(list, "always");
    }
    Ok(w)
}

impl Walker<'_> {
    fn scope(&self) -> Scope<'_> {
        Scope { env: self.env, defined: &self.defined, depth: self.depth }
    }

    fn push_step(
        &mut self,
        command: String,
        program: Option<String>,
        description: String,
        condition: &str,
        v: Verdict,
    ) {
        self.steps.push(Step {
            step: self.steps.len() + 1,
            command,
            program,
            description,
            will_execute_if: condition.to_string(),
            estimated_risk: v.risk,
            risk_reasons: v.reasons,
        });
    }

    /// The code in `$(…)` and backticks of each text, analysed.
    fn substitutions<'t>(&self, texts: impl IntoIterator<Item = &'t str>, v: &mut Verdict) {
        for text in texts {
            for sub in syntax::substitutions(text) {
                v.raise(nested(self.scope(), &sub, "$(…)"));
            }
        }
    }

    /// The risk of a redirection list on a compound command or function.
    fn redirect_list(&self, list: Option<&RedirectList>, v: &mut Verdict) {
        for r in list.iter().flat_map(|l| l.0.iter()) {
            let (risk, why) = assess_redirect(r, &self.env.cwd);
            if risk > Risk::Low {
                v.raise_one(risk, why);
            } else if let Some(target) = allow::writes_a_file(r) {
                v.raise_one(Risk::Medium, format!("writes to the file {target}"));
            }
            self.redirect_code(r, false, v);
        }
    }

    /// Code a redirection carries: its target's substitutions, a process
    /// substitution, a here-document or here-string's expansions — and,
    /// when `into_shell`, the here-text itself as code the command runs.
    fn redirect_code(&self, r: &IoRedirect, into_shell: bool, v: &mut Verdict) {
        match r {
            IoRedirect::File(_, _, IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w))
            | IoRedirect::OutputAndError(w, _) => self.substitutions([w.value.as_str()], v),
            IoRedirect::File(_, _, IoFileRedirectTarget::ProcessSubstitution(_, sub)) => {
                v.raise(nested(self.scope(), &sub.list.to_string(), "<(…)"))
            }
            IoRedirect::File(_, _, IoFileRedirectTarget::Fd(_)) => {}
            IoRedirect::HereString(_, w) => {
                self.substitutions([w.value.as_str()], v);
                if into_shell {
                    match static_word(&w.value) {
                        Some(code) => v.raise(nested(self.scope(), &code, "a here-string")),
                        None => v.raise_one(Risk::High, "a shell runs a here-string that is not static".into()),
                    }
                }
            }
            IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    self.substitutions([doc.doc.value.as_str()], v);
                }
                if into_shell {
                    if doc.requires_expansion && doc.doc.value.contains(['$', '`']) {
                        v.raise_one(Risk::High, "a shell runs a here-document that expands variables".into());
                    } else {
                        v.raise(nested(self.scope(), &doc.doc.value, "a here-document"));
                    }
                }
            }
        }
    }

    fn list(&mut self, list: &CompoundList, condition: &str) {
        for item in &list.0 {
            let background = matches!(item.1, SeparatorOperator::Async);
            let and_or = &item.0;
            let first_condition =
                if background { format!("{condition} (in the background)") } else { condition.into() };
            if and_or.additional.len() >= 2
                && matches!(and_or.additional[0], AndOr::And(_))
                && matches!(and_or.additional[1], AndOr::Or(_))
            {
                self.warnings.push(format!(
                    "`{}` is not if/else: the command after || also runs when the one after && fails",
                    and_or
                ));
            }
            self.pipeline(&and_or.first, &first_condition);
            for next in &and_or.additional {
                let (p, cond) = match next {
                    AndOr::And(p) => (p, "previous succeeds"),
                    AndOr::Or(p) => (p, "previous fails"),
                };
                self.pipeline(p, cond);
            }
        }
    }

    fn pipeline(&mut self, p: &Pipeline, condition: &str) {
        let first_step = self.steps.len() + 1;
        let downloads = p
            .seq
            .iter()
            .take(p.seq.len().saturating_sub(1))
            .any(|c| program_of(c).is_some_and(|prog| matches!(base(&prog), "curl" | "wget" | "fetch")));
        for (i, c) in p.seq.iter().enumerate() {
            let cond = if i == 0 { condition.to_string() } else { format!("in a pipeline with step {first_step}") };
            let before = self.steps.len();
            self.pipeline_position = i;
            self.command(c, &cond);
            self.pipeline_position = 0;
            if downloads
                && i > 0
                && let Some(prog) = program_of(c)
                && is_interpreter(base(&prog))
                && let Some(step) = self.steps.get_mut(before)
            {
                step.estimated_risk = Risk::Critical;
                step.risk_reasons.push("runs code downloaded from the network (curl|sh)".into());
            }
        }
    }

    fn simple(&mut self, s: &brush_parser::ast::SimpleCommand, condition: &str) {
        let parts = Parts::of(s);
        let prog = s.word_or_name.as_ref().map(|w| w.value.clone()).unwrap_or_default();
        let words = &parts.words;
        let mut v = Verdict::default();
        v.raise(look_through(self.scope(), &prog, words));
        let code_from_stdin = reads_code_from_stdin(&prog, words);
        if self.pipeline_position > 0 && code_from_stdin {
            v.raise_one(
                Risk::High,
                format!("`{}` runs code it reads from the pipe: what it runs cannot be seen", base(&prog)),
            );
        }
        let shell = static_word(&prog).is_some_and(|p| is_shell(base(&p)));
        for r in &parts.redirects {
            let (risk, why) = assess_redirect(r, &self.env.cwd);
            v.raise_one(risk, why);
            let here = matches!(r, IoRedirect::HereString(..) | IoRedirect::HereDocument(..));
            if here && code_from_stdin && !shell {
                v.raise_one(
                    Risk::High,
                    format!("`{}` runs code from a here-document: it is not analysed", base(&prog)),
                );
            }
            self.redirect_code(r, here && code_from_stdin && shell, &mut v);
        }
        let texts = std::iter::once(prog.as_str())
            .chain(words.iter().map(String::as_str))
            .chain(parts.assignments.iter().map(String::as_str));
        self.substitutions(texts, &mut v);
        for code in &parts.process_substitutions {
            v.raise(nested(self.scope(), code, "<(…)"));
        }
        let name = static_word(&prog).unwrap_or_default();
        match base(&name) {
            // An alias's value is code a later command runs under a harmless name.
            "alias" => {
                for w in words.iter().filter_map(|w| static_word(w)) {
                    if let Some((alias, value)) = w.split_once('=') {
                        self.defined.insert(alias.to_string());
                        v.raise(nested(self.scope(), value, &format!("alias {alias}")));
                    }
                }
            }
            // A trap's action runs later, on a signal or at exit.
            "trap" => match words.iter().find(|w| !w.starts_with('-')).map(|w| static_word(w)) {
                Some(Some(action)) => v.raise(nested(self.scope(), &action, "trap")),
                Some(None) => v.raise_one(Risk::High, "the action given to trap is not static".into()),
                None => {}
            },
            _ => {}
        }
        if v.risk < Risk::Medium {
            let defined = |n: &str| self.defined.contains(n);
            if let Err(why) = allow::simple(&prog, words, &parts.assignments, &parts.redirects, self.env, &defined) {
                v.raise_one(Risk::Medium, why);
            }
        }
        let description = if prog.is_empty() { "Set shell variables".to_string() } else { describe(&prog, words) };
        self.push_step(s.to_string(), (!prog.is_empty()).then_some(prog), description, condition, v);
    }

    fn command(&mut self, c: &Command, condition: &str) {
        match c {
            Command::Simple(s) => self.simple(s, condition),
            Command::Compound(compound, redirects) => {
                let before = self.steps.len();
                self.compound(compound, condition);
                let mut v = Verdict::default();
                self.redirect_list(redirects.as_ref(), &mut v);
                if v.risk > Risk::Low
                    && let Some(first) = self.steps.get_mut(before)
                {
                    first.estimated_risk = first.estimated_risk.max(v.risk);
                    first.risk_reasons.extend(v.reasons.into_iter().map(|r| format!("{r} (the group's redirection)")));
                }
            }
            Command::Function(f) => {
                let name = f.fname.value.clone();
                let body = f.body.0.to_string();
                let bomb = body.contains(&format!("{name} |")) || body.contains(&format!("{name}|"));
                // What the function will do when called is rated now: a
                // later call looks like any other name.
                let mut v = Verdict::default();
                v.raise(nested(self.scope(), &body, &format!("function {name}")));
                self.redirect_list(f.body.1.as_ref(), &mut v);
                if bomb && body.contains('&') {
                    v.raise_one(
                        Risk::Critical,
                        "fork bomb: a function that pipes into itself in the background".into(),
                    );
                }
                self.defined.insert(name.clone());
                self.push_step(f.to_string(), None, format!("Define the shell function `{name}`"), condition, v);
            }
            Command::ExtendedTest(t, redirects) => {
                let mut v = Verdict::default();
                self.substitutions([t.to_string().as_str()], &mut v);
                self.redirect_list(redirects.as_ref(), &mut v);
                self.push_step(t.to_string(), None, "Evaluate a [[ … ]] test".into(), condition, v);
            }
        }
    }

    fn compound(&mut self, c: &CompoundCommand, condition: &str) {
        let inside = |what: &str| format!("{condition}, inside {what}");
        match c {
            CompoundCommand::Subshell(s) => self.list(&s.list, &inside("a subshell")),
            CompoundCommand::BraceGroup(b) => self.list(&b.list, &inside("a { } group")),
            CompoundCommand::IfClause(i) => {
                self.list(&i.condition, &inside("an if condition"));
                self.list(&i.then, &inside("the if's then branch"));
                for e in i.elses.iter().flatten() {
                    if let Some(cond) = &e.condition {
                        self.list(cond, &inside("an elif condition"));
                    }
                    self.list(&e.body, &inside("an else branch"));
                }
            }
            CompoundCommand::ForClause(f) => {
                let mut v = Verdict::default();
                let values: Vec<&str> = f.values.iter().flatten().map(|w| w.value.as_str()).collect();
                self.substitutions(values.iter().copied(), &mut v);
                if v.risk > Risk::Low {
                    self.push_step(values.join(" "), None, "Expand the loop's words".into(), condition, v);
                }
                self.list(&f.body.list, &inside("a for loop"))
            }
            CompoundCommand::ArithmeticForClause(f) => {
                let mut v = Verdict::default();
                let header: Vec<String> = [&f.initializer, &f.condition, &f.updater]
                    .iter()
                    .filter_map(|e| e.as_ref())
                    .map(|e| e.value.clone())
                    .collect();
                self.substitutions(header.iter().map(String::as_str), &mut v);
                if v.risk > Risk::Low {
                    self.push_step(header.join("; "), None, "Evaluate the loop's arithmetic".into(), condition, v);
                }
                self.list(&f.body.list, &inside("a for loop"))
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                self.list(&w.0, &inside("a loop condition"));
                self.list(&w.1.list, &inside("a loop"));
            }
            CompoundCommand::CaseClause(cc) => {
                let mut v = Verdict::default();
                self.substitutions([cc.value.value.as_str()], &mut v);
                if v.risk > Risk::Low {
                    self.push_step(cc.value.value.clone(), None, "Expand the case word".into(), condition, v);
                }
                for item in &cc.cases {
                    if let Some(body) = &item.cmd {
                        self.list(body, &inside("a case branch"));
                    }
                }
            }
            CompoundCommand::Arithmetic(_) => {
                let mut v = Verdict::default();
                self.substitutions([c.to_string().as_str()], &mut v);
                self.push_step(c.to_string(), None, "Evaluate arithmetic".into(), condition, v);
            }
            CompoundCommand::Coprocess(co) => {
                let mut v = Verdict::default();
                v.raise_one(Risk::Medium, "coproc runs a command in the background, connected to this shell".into());
                self.push_step(c.to_string(), None, "Start a coprocess".into(), condition, v);
                self.command(&co.body, &inside("a coprocess"));
            }
        }
    }
}

/// What is nested deeper than [`MAX_NESTING`] is not analysed, and so rated high.
fn too_deep() -> (Risk, Vec<String>) {
    (Risk::High, vec![format!("commands nested more than {MAX_NESTING} deep are not analysed")])
}

/// The risk of a command string run by `bash -c`, `eval`, a substitution,
/// a trap or an alias, analysed as a program of its own.
fn nested(scope: Scope<'_>, code: &str, via: &str) -> (Risk, Vec<String>) {
    if scope.depth >= MAX_NESTING {
        return too_deep();
    }
    match walk_at(code, scope.env, scope.defined.clone(), scope.depth + 1) {
        Ok(w) => {
            let (risk, reasons) = risk_of_steps(&w.steps);
            (risk, reasons.into_iter().map(|r| format!("in {via}: {r}")).collect())
        }
        Err(_) => (Risk::High, vec![format!("the code given to {via} does not parse, so it cannot be analysed")]),
    }
}

// Long because: one arm per program that runs another (sudo, env, timeout, xargs, find -exec, eval, shells), each how it finds that command.
/// The risk of `program words`, looking through what only runs another
/// command (`command`, `exec`, `env`, `nice`, `timeout`, `xargs`,
/// `find -exec`, `sudo`), into the code of `bash -c STRING` and `eval`, and
/// failing closed — at least `high` — on whatever cannot be seen statically:
/// a command name that is a variable or a substitution, `eval` or `-c` of a
/// dynamic string, `-c`/`-e` code for python, perl, ruby or node.
fn look_through(scope: Scope<'_>, program: &str, words: &[String]) -> (Risk, Vec<String>) {
    let depth = scope.depth;
    if depth > MAX_NESTING {
        return too_deep();
    }
    if program.is_empty() {
        return (Risk::Low, Vec::new());
    }
    let Some(prog) = static_word(program) else {
        return (
            Risk::High,
            vec![format!("the command name `{program}` is not statically known (a variable or substitution)")],
        );
    };
    // `/bin/r[m]`, `/???/?m`, `{rm,-rf,d}`: the shell makes the name.
    if is_pattern(program) {
        return (Risk::High, vec![format!("the command name `{program}` is a pattern: what it runs cannot be seen")]);
    }
    let statics: Vec<Option<String>> = words.iter().map(|w| static_word(w)).collect();
    let p = base(&prog);
    // The words after the wrapper's own options: (the command, its words).
    let after = |skip_with_value: &[&str], skip_leading: usize| -> Option<(String, Vec<String>)> {
        let mut i = skip_leading;
        while i < words.len() {
            let w = statics[i].as_deref().unwrap_or("$");
            if w == "--" {
                i += 1;
                break;
            }
            if skip_with_value.contains(&w) {
                i += 2;
            } else if w.starts_with('-') && w.len() > 1 {
                i += 1;
            } else {
                break;
            }
        }
        words.get(i).map(|first| (first.clone(), words[i + 1..].to_vec()))
    };
    let inner = |found: Option<(String, Vec<String>)>, via: &str| -> (Risk, Vec<String>) {
        match found {
            Some((prog, rest)) => {
                let (r, why) = look_through(scope.deeper(), &prog, &rest);
                (r, why.into_iter().map(|w| format!("{w} (via {via})")).collect())
            }
            None => (Risk::Low, Vec::new()),
        }
    };
    let (mut risk, mut reasons) = match p {
        // `command -v` and `-V` only look the name up.
        "command" if words.first().is_some_and(|w| w == "-v" || w == "-V") => (Risk::Low, Vec::new()),
        "sudo" | "doas" | "pkexec" => inner(after(&["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"], 0), p),
        "command" | "builtin" | "exec" | "nohup" | "time" | "setsid" | "stdbuf" | "chronic" => {
            inner(after(&["-a"], 0), p)
        }
        "nice" | "ionice" => inner(after(&["-n", "-c", "-p"], 0), p),
        // A priority, a CPU mask or a lock file first, then the command.
        "chrt" | "taskset" | "flock" => {
            if let Some(at) = words.iter().position(|w| w == "-c" || w == "--command")
                && p == "flock"
            {
                match words.get(at + 1).map(|w| static_word(w)) {
                    Some(Some(code)) => nested(scope, &code, "flock -c"),
                    _ => (Risk::High, vec!["flock -c of a dynamic string runs whatever it holds".into()]),
                }
            } else {
                let takes_value: &[&str] = if p == "flock" { &["-E", "-w", "--timeout"] } else { &[] };
                // The first word after the options is the priority, the mask (or
                // `-c`'s CPU list) or the lock file; the command follows it.
                let found = after(takes_value, 0);
                inner(found.and_then(|(_, rest)| rest.split_first().map(|(c, r)| (c.clone(), r.to_vec()))), p)
            }
        }
        // `script -c CMD`: the code is a string of its own.
        "script" => match words.iter().position(|w| {
            w == "-c" || w == "--command" || (w.starts_with('-') && !w.starts_with("--") && w.ends_with('c'))
        }) {
            Some(at) => match words.get(at + 1).map(|w| static_word(w)) {
                Some(Some(code)) => nested(scope, &code, "script -c"),
                _ => (Risk::High, vec!["script -c of a dynamic string runs whatever it holds".into()]),
            },
            None => (Risk::Low, Vec::new()),
        },
        "env" => {
            let split = |w: &String| w.starts_with('-') && !w.starts_with("--") && w.contains('S');
            if words.iter().any(|w| split(w) || w.starts_with("--split-string")) {
                (Risk::High, vec!["env -S splits a string into a command that is not analysed".into()])
            } else {
                let first = words
                    .iter()
                    .zip(&statics)
                    .position(|(w, st)| !(w.starts_with('-') || st.as_deref().is_some_and(|s| s.contains('='))))
                    .unwrap_or(words.len());
                // `-u NAME`, `-C DIR` take a value.
                let mut i = 0;
                while i < first {
                    if matches!(words[i].as_str(), "-u" | "-C" | "--unset" | "--chdir") {
                        i += 1;
                    }
                    i += 1;
                }
                let start = first.max(i).min(words.len());
                inner(words.get(start).map(|f| (f.clone(), words[start + 1..].to_vec())), "env")
            }
        }
        "timeout" => {
            let found = after(&["-s", "-k", "--signal", "--kill-after"], 0);
            // The first word is the duration.
            inner(found.and_then(|(_, rest)| rest.split_first().map(|(p, r)| (p.clone(), r.to_vec()))), "timeout")
        }
        "xargs" => {
            let (r, mut why) =
                inner(after(&["-n", "-I", "-i", "-d", "-P", "-L", "-l", "-s", "-E", "-e", "-a"], 0), "xargs");
            if r > Risk::Low {
                why.push("xargs adds arguments read from its input, which cannot be seen".into());
            }
            (r, why)
        }
        "find" => {
            let mut risk = Risk::Low;
            let mut why = Vec::new();
            let mut i = 0;
            while i < words.len() {
                if matches!(words[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                    && let Some(prog) = words.get(i + 1)
                {
                    let end = words[i + 2..]
                        .iter()
                        .position(|w| matches!(w.as_str(), ";" | "\\;" | "';'" | "+"))
                        .map_or(words.len(), |e| i + 2 + e);
                    let (r, w) = look_through(scope.deeper(), prog, &words[i + 2..end]);
                    risk = risk.max(r);
                    why.extend(w.into_iter().map(|w| format!("{w} (via find -exec, on every file it finds)")));
                    i = end;
                }
                i += 1;
            }
            (risk, why)
        }
        "eval" => {
            // Static code is analysed; a `$` anywhere (even quoted for later)
            // runs whatever the variable holds then.
            let (mut risk, mut why) = match statics.iter().cloned().collect::<Option<Vec<String>>>() {
                Some(parts) => nested(scope, &parts.join(" "), "eval"),
                None => (Risk::Low, Vec::new()),
            };
            if words.iter().any(|w| w.contains('$')) {
                risk = risk.max(Risk::High);
                why.push("eval of a variable or dynamic string runs whatever it holds".into());
            }
            (risk, why)
        }
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "su" => match words
            .iter()
            .position(|w| w == "-c" || (w.starts_with('-') && !w.starts_with("--") && w.contains('c')))
        {
            Some(at) => match words.get(at + 1).map(|w| static_word(w)) {
                Some(Some(code)) => nested(scope, &code, &format!("{p} -c")),
                Some(None) => (Risk::High, vec![format!("{p} -c of a dynamic string runs whatever it holds")]),
                None => (Risk::Low, Vec::new()),
            },
            None => (Risk::Low, Vec::new()),
        },
        "python" | "python3" | "perl" | "ruby" | "node" | "php" | "lua" | "deno" | "bun"
            if words.iter().any(|w| runs_inline_code(p, w)) =>
        {
            (Risk::High, vec![format!("{p} runs inline code that is not analysed")])
        }
        _ => (Risk::Low, Vec::new()),
    };
    // The program's own rules, on its words after quote removal where static.
    let plain: Vec<String> = words
        .iter()
        .zip(&statics)
        .map(|(w, st)| if w.contains('$') { w.clone() } else { st.clone().unwrap_or_else(|| w.clone()) })
        .collect();
    let (r, why) = assess(&prog, &plain);
    risk = risk.max(r);
    reasons.extend(why);
    (risk, reasons)
}

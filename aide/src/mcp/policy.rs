//! What the server's operator allows its client, enforced on every call:
//! which tools (`--allow auto`: the read-only ones; `gated`: all), asking
//! the user before a gated call where the client can (`--confirm gated`,
//! MCP elicitation), the highest risk of a shell command (`--max-risk`), how
//! fast calls may come (`--rate N/s`, a token bucket), and how long one may
//! run (`--call-timeout`). A refusal is the call's result with `isError`
//! and a stable code (`not_allowed`, `risk_denied`, `rate_limited`,
//! `timeout`), never a protocol error: the model reads it.
//!
//! `--max-risk` covers every argument that reaches a shell, as
//! [`SHELL_ARGUMENTS`] lists them (a test holds the list to the catalogue):
//! a tool that rates its own command gets the cap as its `max_risk`; any
//! other command line (`transform`'s `verify_command`, `shell_compare`'s
//! `command`, `jobs_spawn`'s `command` and `argv`) and any variable set for
//! later commands (`NAME=value`, rated as `export`) is rated here, as
//! `shell_explain` rates it, before the call runs. Text typed into a
//! terminal cannot be rated: the program reading it (a shell, a REPL, an
//! editor's `:!`, `less`'s `!`) may run anything, so `term_send` is refused
//! under any cap below `critical`, whatever it types; terminals still
//! start (their command rated), are read and closed.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use aide_core::AideError;
use llm_shell::explain::Risk;
use serde_json::{Map, Value, json};

use super::binding::Binding;

/// How `--max-risk` covers an argument that reaches a shell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// The tool rates it against its own `max_risk` argument, which the server sets.
    ToolRates,
    /// A command line, rated here (absent: the tool's default, as its schema says).
    CommandLine,
    /// A program and its arguments, rated as the command line that quotes them.
    Argv,
    /// `NAME=value` settings for later commands, each rated as `export NAME=value`.
    Assignments,
    /// Typed into a terminal: anything may run; refused below `critical`.
    Typed,
}

/// Every MCP argument that reaches a shell, and how `--max-risk` covers it.
pub(crate) const SHELL_ARGUMENTS: &[(&str, &str, Coverage)] = &[
    ("shell_exec", "command", Coverage::ToolRates),
    ("shell_exec", "argv", Coverage::ToolRates),
    ("term_start", "command", Coverage::ToolRates),
    ("term_start", "argv", Coverage::ToolRates),
    ("term_send", "text", Coverage::Typed),
    ("term_send", "keys", Coverage::Typed),
    ("transform", "verify_command", Coverage::CommandLine),
    ("shell_compare", "command", Coverage::CommandLine),
    ("jobs_spawn", "command", Coverage::CommandLine),
    ("jobs_spawn", "argv", Coverage::Argv),
    ("jobs_spawn", "env", Coverage::Assignments),
    ("shell_env", "set", Coverage::Assignments),
    ("shell_session_new", "env", Coverage::Assignments),
];

/// Which tools a client may call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Allow {
    /// Only read-only tools (`auto` in `aide tools`).
    Auto,
    /// Every tool (`gated` ones too).
    #[default]
    Gated,
}

/// Which calls ask the user first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Confirm {
    /// A tool that is not read-only, where `--allow auto` would refuse it.
    Gated,
}

/// Calls a second: `N/s`, `N/m` or `N` (a second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub per_second: f64,
}

impl std::str::FromStr for Rate {
    type Err = String;

    fn from_str(s: &str) -> Result<Rate, String> {
        aide_core::config::rate_per_second(s)
            .map(|per_second| Rate { per_second })
            .ok_or_else(|| format!("`{s}`: give N/s or N/m, with N above 0"))
    }
}

/// The operator's policy, as `aide mcp`'s flags (and aide.toml) set it.
#[derive(Debug, Clone, Default)]
pub struct PolicyOptions {
    pub allow: Allow,
    pub confirm: Option<Confirm>,
    pub max_risk: Option<llm_shell::explain::Risk>,
    pub rate: Option<Rate>,
    pub call_timeout: Option<Duration>,
}

/// The policy with its state (the token bucket).
#[derive(Debug)]
pub struct Policy {
    pub options: PolicyOptions,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// What the policy says of a call before it runs.
pub enum Verdict {
    Run,
    /// Ask the user (elicitation) first; refuse unless they accept.
    Ask,
    Refuse(AideError),
}

impl Policy {
    pub fn new(options: PolicyOptions) -> Policy {
        let burst = options.rate.map_or(0.0, |r| r.per_second.max(1.0));
        Policy { options, bucket: Mutex::new(Bucket { tokens: burst, at: Instant::now() }) }
    }

    /// Whether `tool` is listed: with `--allow auto` and no `--confirm`, only read-only tools.
    pub fn lists(&self, read_only: bool) -> bool {
        read_only || self.options.allow == Allow::Gated || self.options.confirm.is_some()
    }

    /// The verdict on a call of `tool`; a call the rate lets through takes a token.
    pub fn judge(&self, tool: &str, read_only: bool, can_ask: bool) -> Verdict {
        if let Some(refusal) = self.take_token() {
            return Verdict::Refuse(refusal);
        }
        if read_only || self.options.allow == Allow::Gated {
            return Verdict::Run;
        }
        if self.options.confirm == Some(Confirm::Gated) && can_ask {
            return Verdict::Ask;
        }
        Verdict::Refuse(not_allowed(tool, "this server allows only read-only tools (aide mcp --allow auto)"))
    }

    /// None when a call may go now; else the `rate_limited` refusal saying when one may.
    fn take_token(&self) -> Option<AideError> {
        let rate = self.options.rate?;
        let mut bucket = aide_core::sync::lock(&self.bucket);
        let now = Instant::now();
        let burst = rate.per_second.max(1.0);
        bucket.tokens = (bucket.tokens + now.duration_since(bucket.at).as_secs_f64() * rate.per_second).min(burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return None;
        }
        let retry_after_ms = ((1.0 - bucket.tokens) / rate.per_second * 1000.0).ceil() as u64;
        Some(
            AideError::new(
                aide_core::code::RATE_LIMITED,
                format!("too many calls: this server takes {} a second", rate.per_second),
            )
            .with_hint(format!("call again in {retry_after_ms} ms"))
            .with_details(json!({ "retry_after_ms": retry_after_ms })),
        )
    }

    /// Holds a call of `binding`'s tool to the operator's highest risk:
    /// sets it as the call's `max_risk` where the tool takes one (the
    /// stricter of the call's own and the server's), and rates here every
    /// other argument that reaches a shell (see [`SHELL_ARGUMENTS`]), as
    /// it would run in `cwd`. `risk_denied` (nothing run) names the tool
    /// and the argument.
    pub(crate) fn impose_risk(
        &self,
        binding: &Binding,
        arguments: &mut Map<String, Value>,
        cwd: &Path,
    ) -> Result<(), AideError> {
        let Some(max) = self.options.max_risk else { return Ok(()) };
        let tool = binding.op.name;
        if binding.fields.contains("max_risk") {
            let asked = match arguments.get("max_risk") {
                None | Some(Value::Null) => None,
                Some(v) => Some(serde_json::from_value::<Risk>(v.clone()).map_err(|_| {
                    AideError::new(aide_core::code::INVALID_ARGUMENTS, format!("max_risk {v} is not a risk"))
                        .with_hint("give low, medium, high or critical")
                        .with_details(json!({ "field": "max_risk" }))
                })?),
            };
            let stricter = asked.map_or(max, |a| a.min(max));
            arguments.insert("max_risk".into(), json!(stricter.as_str()));
        }
        let cwd = match arguments.get("cwd").and_then(Value::as_str) {
            Some(dir) => cwd.join(dir),
            None => cwd.to_path_buf(),
        };
        for &(_, field, coverage) in SHELL_ARGUMENTS.iter().filter(|(t, _, _)| *t == tool) {
            for line in lines_of(binding, arguments, field, coverage) {
                check_line(tool, field, &line, max, &cwd)?;
            }
            if coverage == Coverage::Typed && max < Risk::Critical && arguments.get(field).is_some_and(|v| !v.is_null())
            {
                return Err(typed_refused(tool, field, max));
            }
        }
        Ok(())
    }
}

/// The command lines argument `field` of a call gives, to be rated here.
fn lines_of(binding: &Binding, arguments: &Map<String, Value>, field: &str, coverage: Coverage) -> Vec<String> {
    let given = arguments.get(field).filter(|v| !v.is_null());
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default()
    };
    match coverage {
        Coverage::ToolRates | Coverage::Typed => Vec::new(),
        Coverage::CommandLine => {
            // Absent, the tool runs its default, which its schema gives.
            let default =
                binding.input_schema.get("properties").and_then(|p| p.get(field)).and_then(|f| f.get("default"));
            given.or(default).and_then(Value::as_str).map(str::to_string).into_iter().collect()
        }
        Coverage::Argv => {
            let words = strings(given);
            if words.is_empty() { Vec::new() } else { vec![aide_core::command::quote_argv(&words)] }
        }
        Coverage::Assignments => strings(given)
            .iter()
            .map(|assignment| format!("export {}", aide_core::command::quote_word(assignment.as_bytes())))
            .collect(),
    }
}

/// Rates `line` (from `tool`'s argument `field`) as it would run in `cwd`.
fn check_line(tool: &str, field: &str, line: &str, max: Risk, cwd: &Path) -> Result<(), AideError> {
    let env = llm_shell::explain::Surroundings::of_this_process(cwd);
    let (risk, reasons) = llm_shell::explain::rate(line, &env).map_err(|mut e| {
        e.message =
            e.message.map(|m| format!("`{tool}`'s `{field}` cannot be rated against this server's max_risk: {m}"));
        e.details = Some(Box::new(json!({ "tool": tool, "field": field })));
        e
    })?;
    if risk <= max {
        return Ok(());
    }
    Err(AideError::new(
        aide_core::code::RISK_DENIED,
        format!("`{tool}`'s `{field}` is rated {}, above this server's max_risk {}: nothing was run", risk.as_str(), max.as_str()),
    )
    .with_hint(format!(
        "nothing was run; give a command rated {} or lower (shell_explain rates one), or ask the server's operator to raise --max-risk",
        max.as_str()
    ))
    .with_details(json!({ "tool": tool, "field": field, "overall_risk": risk, "risk_reasons": reasons, "max_risk": max })))
}

/// The refusal of text or keys typed into a terminal under a cap below `critical`.
fn typed_refused(tool: &str, field: &str, max: Risk) -> AideError {
    AideError::new(
        aide_core::code::RISK_DENIED,
        format!(
            "`{tool}` types into a terminal, whose program may run anything typed (rated critical), above this server's max_risk {}: nothing was typed",
            max.as_str()
        ),
    )
    .with_hint("run commands with shell_exec, which rates each; a terminal still starts (its command rated), is read and closed; or ask the server's operator for --max-risk critical")
    .with_details(json!({ "tool": tool, "field": field, "overall_risk": Risk::Critical, "max_risk": max }))
}

/// The refusal of a tool the policy does not allow.
pub fn not_allowed(tool: &str, why: &str) -> AideError {
    AideError::new(aide_core::code::NOT_ALLOWED, format!("`{tool}` is not allowed: {why}"))
        .with_hint("use a read-only tool, or ask the server's operator (aide mcp --allow gated, or --confirm gated)")
        .with_details(json!({ "tool": tool }))
}

/// The result of a call stopped at `--call-timeout` (it ended as cancelled).
pub fn timed_out(limit: Duration) -> AideError {
    AideError::new(
        aide_core::code::TIMEOUT,
        format!("the call ran past the server's limit of {} s and was stopped", limit.as_secs_f64()),
    )
    .with_hint("narrow the call, or run a long command as a job (jobs_spawn, or shell_exec with background)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_per_second_or_minute() {
        assert_eq!("10/s".parse::<Rate>().unwrap().per_second, 10.0);
        assert_eq!("30/m".parse::<Rate>().unwrap().per_second, 0.5);
        assert_eq!("2".parse::<Rate>().unwrap().per_second, 2.0);
        assert!("0/s".parse::<Rate>().is_err());
        assert!("5/h".parse::<Rate>().is_err());
        assert!("x/s".parse::<Rate>().is_err());
    }

    #[test]
    fn the_bucket_lets_a_burst_through_then_says_when_to_come_back() {
        let policy = Policy::new(PolicyOptions { rate: Some(Rate { per_second: 2.0 }), ..Default::default() });
        assert!(matches!(policy.judge("read", true, false), Verdict::Run));
        assert!(matches!(policy.judge("read", true, false), Verdict::Run));
        let Verdict::Refuse(e) = policy.judge("read", true, false) else { panic!("a third call within the second") };
        assert_eq!(e.code.name, "rate_limited");
        let after = e.details.as_ref().unwrap()["retry_after_ms"].as_u64().unwrap();
        assert!((1..=500).contains(&after), "{after}");
    }

    #[test]
    fn auto_allows_read_only_tools_and_asks_or_refuses_the_others() {
        let auto = Policy::new(PolicyOptions { allow: Allow::Auto, ..Default::default() });
        assert!(matches!(auto.judge("read", true, true), Verdict::Run));
        assert!(matches!(auto.judge("transform", false, true), Verdict::Refuse(_)));
        assert!(!auto.lists(false));
        let asking =
            Policy::new(PolicyOptions { allow: Allow::Auto, confirm: Some(Confirm::Gated), ..Default::default() });
        assert!(matches!(asking.judge("transform", false, true), Verdict::Ask));
        assert!(matches!(asking.judge("transform", false, false), Verdict::Refuse(_)), "a client that cannot ask");
        assert!(asking.lists(false));
    }

    fn binding(tool: &str) -> Binding {
        let op = crate::catalogue::operations().find(|o| o.name == tool).unwrap();
        Binding::new(op).unwrap()
    }

    fn capped(max: Risk) -> Policy {
        Policy::new(PolicyOptions { max_risk: Some(max), ..Default::default() })
    }

    /// The call's `arguments` of `tool` under `--max-risk max`: the refusal's code and field, or None.
    fn refusal(max: Risk, tool: &str, arguments: Value) -> Option<(String, String)> {
        let Value::Object(mut arguments) = arguments else { panic!("arguments are an object") };
        let e = capped(max).impose_risk(&binding(tool), &mut arguments, Path::new("/")).err()?;
        let field = e.details.as_ref().and_then(|d| d["field"].as_str()).unwrap_or("").to_string();
        assert!(e.message.contains(&format!("`{tool}`")), "in MCP words: {}", e.message);
        Some((e.code.name.to_string(), field))
    }

    #[test]
    fn the_stricter_risk_wins() {
        let policy = capped(Risk::Medium);
        let exec = binding("shell_exec");
        let mut args = Map::new();
        policy.impose_risk(&exec, &mut args, Path::new("/")).unwrap();
        assert_eq!(args["max_risk"], "medium");
        args.insert("max_risk".into(), json!("critical"));
        policy.impose_risk(&exec, &mut args, Path::new("/")).unwrap();
        assert_eq!(args["max_risk"], "medium");
        args.insert("max_risk".into(), json!("low"));
        policy.impose_risk(&exec, &mut args, Path::new("/")).unwrap();
        assert_eq!(args["max_risk"], "low");
        let mut other = Map::new();
        policy.impose_risk(&binding("read"), &mut other, Path::new("/")).unwrap();
        assert!(other.is_empty());
    }

    /// The list of arguments that reach a shell is the catalogue's: each
    /// names a tool's argument, each tool that runs commands has its
    /// arguments there, a tool said to rate its own takes `max_risk`, and
    /// no argument named like a command is left out unless it never runs.
    #[test]
    fn every_argument_that_reaches_a_shell_is_covered() {
        // Parsed, explained or picking a subcommand: never run as a command.
        const NEVER_RUN: &[(&str, &str)] = &[
            ("shell_check", "command"),
            ("shell_check", "argv"),
            ("shell_explain", "command"),
            ("shell_explain", "argv"),
            ("git", "command"),
            ("git_write", "command"),
        ];
        let shell_like =
            |f: &str| ["command", "argv", "env", "set", "text", "keys"].contains(&f) || f.ends_with("_command");
        for op in crate::catalogue::operations() {
            let b = Binding::new(op).unwrap();
            for field in b.fields.iter().filter(|f| shell_like(f)) {
                let listed = SHELL_ARGUMENTS.iter().any(|(t, f, _)| *t == op.name && f == field);
                assert!(
                    listed || NEVER_RUN.contains(&(op.name, field.as_str())),
                    "{}'s {field} is not covered by --max-risk",
                    op.name
                );
            }
            if op.effects == aide_core::operation::RUNS_COMMANDS {
                assert!(
                    SHELL_ARGUMENTS.iter().any(|(t, _, _)| *t == op.name),
                    "{} runs commands, none covered",
                    op.name
                );
            }
        }
        for (tool, field, coverage) in SHELL_ARGUMENTS {
            let b = binding(tool);
            assert!(b.fields.contains(*field), "{tool} has no argument {field}");
            assert!(*coverage != Coverage::ToolRates || b.fields.contains("max_risk"), "{tool} takes no max_risk");
        }
    }

    #[test]
    fn command_lines_of_tools_without_a_max_risk_are_rated_here() {
        let denied = |field: &str| Some(("risk_denied".to_string(), field.to_string()));
        assert_eq!(
            refusal(Risk::Low, "transform", json!({"operations": [], "verify_command": "rm -rf target"})),
            denied("verify_command")
        );
        assert_eq!(
            refusal(Risk::Low, "transform", json!({"operations": [], "verify_command": "cat Cargo.toml"})),
            None
        );
        assert_eq!(refusal(Risk::Low, "transform", json!({"operations": []})), None, "no command, nothing to rate");
        // shell_compare without a command runs its default, cargo test (medium).
        assert_eq!(refusal(Risk::Low, "shell_compare", json!({"baseline": "HEAD"})), denied("command"));
        assert_eq!(refusal(Risk::Medium, "shell_compare", json!({"baseline": "HEAD"})), None);
        assert_eq!(
            refusal(Risk::Medium, "shell_compare", json!({"baseline": "HEAD", "command": "rm -rf /"})),
            denied("command")
        );
        assert_eq!(refusal(Risk::Medium, "jobs_spawn", json!({"argv": ["rm", "-rf", "build"]})), denied("argv"));
        assert_eq!(refusal(Risk::Medium, "jobs_spawn", json!({"command": "ls", "env": ["A=1", "B=2"]})), None);
        assert_eq!(
            refusal(Risk::Low, "jobs_spawn", json!({"command": "ls", "env": ["BASH_ENV=/tmp/x"]})),
            denied("env")
        );
        assert_eq!(
            refusal(Risk::Low, "shell_env", json!({"session": "s", "set": ["LD_PRELOAD=/tmp/x.so"]})),
            denied("set")
        );
        assert_eq!(refusal(Risk::Low, "shell_session_new", json!({"env": ["PATH=/tmp/bin"]})), denied("env"));
        // Typed into a terminal: refused below critical, whatever it is.
        assert_eq!(refusal(Risk::High, "term_send", json!({"terminal_id": "s.t1", "text": "ls"})), denied("text"));
        assert_eq!(refusal(Risk::High, "term_send", json!({"terminal_id": "s.t1", "keys": ["Enter"]})), denied("keys"));
        assert_eq!(refusal(Risk::Critical, "term_send", json!({"terminal_id": "s.t1", "text": "ls"})), None);
        // No cap: nothing is rated.
        let mut args = json!({"verify_command": "rm -rf /"}).as_object().unwrap().clone();
        Policy::new(PolicyOptions::default()).impose_risk(&binding("transform"), &mut args, Path::new("/")).unwrap();
    }
}

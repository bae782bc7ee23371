//! What the server's operator allows its client, enforced on every call:
//! which tools (`--allow auto`: the read-only ones; `gated`: all), asking
//! the user before a gated call where the client can (`--confirm gated`,
//! MCP elicitation), the highest risk of a shell command (`--max-risk`), how
//! fast calls may come (`--rate N/s`, a token bucket), and how long one may
//! run (`--call-timeout`). A refusal is the call's result with `isError`
//! and a stable code (`not_allowed`, `risk_denied`, `rate_limited`,
//! `timeout`), never a protocol error: the model reads it.
//!
//! What the operator imposes is set on the call's typed request, where
//! the request says it lives ([`aide_core::govern::Governed`]), never by
//! editing its JSON by name ([`Imposition`]): the server's sandbox on a
//! tool that runs commands (a call may not choose its own), and
//! `--max-risk` on every text that reaches a shell. A tool that rates its
//! own command gets the cap as its `max_risk`; any other command line
//! (`transform`'s `verify_command`, `shell_compare`'s `command`,
//! `jobs_spawn`'s `command` and `argv`) and any variable set or unset for
//! later commands (rated as `export NAME=value`, `unset NAME`) is rated
//! here, as `shell_explain` rates it, before the call runs. Text typed into
//! a terminal cannot be rated: the program reading it (a shell, a REPL, an
//! editor's `:!`, `less`'s `!`) may run anything, so `term_send`, and
//! `jobs_send` (a job's command may be a shell reading its stdin), are
//! refused under any cap below `critical`, whatever they type; terminals
//! still start (their command rated), are read and closed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use aide_core::AideError;
use aide_core::command::quote_word;
use aide_core::govern::{Governed, Reach, Risk, ShellInput};
use aide_gate::sandbox::{SandboxArgs, SandboxUsed};

use crate::error::McpError;
use serde_json::json;

/// Which tools a client may call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Allow {
    /// Only read-only tools (`auto` in `aide tools`).
    Auto,
    /// Every tool (`gated` ones too).
    #[default]
    Gated,
}

/// Which calls ask the user first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Confirm {
    /// A tool that is not read-only, where `--allow auto` would refuse it.
    Gated,
}

/// Calls a second: `N/s`, `N/m` or `N` (a second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Rate {
    pub per_second: f64,
}

impl std::str::FromStr for Rate {
    type Err = String;

    fn from_str(s: &str) -> Result<Rate, String> {
        aide_config::rate_per_second(s)
            .map(|per_second| Rate { per_second })
            .ok_or_else(|| format!("`{s}`: give N/s or N/m, with N above 0"))
    }
}

/// The operator's policy, as `aide mcp`'s flags (and aide.toml) set it.
#[derive(Debug, Clone, Default)]
pub(crate) struct PolicyOptions {
    pub allow: Allow,
    pub confirm: Option<Confirm>,
    pub max_risk: Option<Risk>,
    pub rate: Option<Rate>,
    pub call_timeout: Option<Duration>,
}

/// The policy with its state (the token bucket).
#[derive(Debug)]
pub(crate) struct Policy {
    pub options: PolicyOptions,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// What the policy says of a call before it runs.
pub(crate) enum Verdict {
    Run,
    /// Ask the user (elicitation) first; refuse unless they accept.
    Ask,
    Refuse(AideError),
}

impl Policy {
    pub(crate) fn new(options: PolicyOptions) -> Policy {
        let burst = options.rate.map_or(0.0, |r| r.per_second.max(1.0));
        Policy { options, bucket: Mutex::new(Bucket { tokens: burst, at: Instant::now() }) }
    }

    /// Whether `tool` is listed: with `--allow auto` and no `--confirm`, only
    /// the `auto` ones (read-only, on this machine).
    pub(crate) fn lists(&self, auto: bool) -> bool {
        auto || self.options.allow == Allow::Gated || self.options.confirm.is_some()
    }

    /// The verdict on a call of `tool`; a call the rate lets through takes a token.
    pub(crate) fn judge(&self, tool: &str, auto: bool, can_ask: bool) -> Verdict {
        if let Some(refusal) = self.take_token() {
            return Verdict::Refuse(refusal);
        }
        if auto || self.options.allow == Allow::Gated {
            return Verdict::Run;
        }
        if self.options.confirm == Some(Confirm::Gated) && can_ask {
            return Verdict::Ask;
        }
        Verdict::Refuse(not_allowed(
            tool,
            "this server allows only read-only tools that stay on this machine (aide mcp --allow auto)",
        ))
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
        Some(McpError::RateLimited { per_second: rate.per_second, retry_after_ms }.into())
    }
}

/// What the server imposes on one call of `tool`, set on its typed request.
#[derive(Debug, Clone)]
pub(crate) struct Imposition {
    pub tool: &'static str,
    /// The server's sandbox (`aide mcp --sandbox … --network …`).
    pub sandbox: SandboxUsed,
    /// The operator's highest risk (`--max-risk`).
    pub max_risk: Option<Risk>,
    /// Where the call's commands run unless its request names a folder: the first root.
    pub cwd: PathBuf,
}

impl Imposition {
    /// Sets the server's sandbox where the request has one (refusing a
    /// call that chose its own: it is not the model's to loosen), and holds
    /// the request to the operator's highest risk: the stricter of the
    /// call's own `max_risk` and the server's where the tool rates its own
    /// command, every other text that reaches a shell rated here, as it
    /// would run. `risk_denied` (nothing run) names the tool and argument.
    pub(crate) fn apply(&self, request: &mut dyn Governed) -> Result<(), AideError> {
        if let Some(asked) = request.sandbox() {
            let chosen = [("sandbox", asked.sandbox.is_some()), ("network", asked.network.is_some())];
            if let Some((key, _)) = chosen.into_iter().find(|(_, set)| *set) {
                return Err(McpError::SandboxChosen { key, sandbox: self.sandbox }.into());
            }
            *asked = SandboxArgs { sandbox: Some(self.sandbox.mode), network: Some(self.sandbox.network) };
        }
        let Some(max) = self.max_risk else { return Ok(()) };
        if let Some(asked) = request.max_risk() {
            *asked = Some(asked.map_or(max, |a| a.min(max)));
        }
        let cwd = request.working_dir().map_or_else(|| self.cwd.clone(), |dir| self.cwd.join(dir));
        for Reach { argument, input } in request.shell_inputs() {
            let line = match input {
                ShellInput::Typed if max < Risk::Critical => return Err(typed_refused(self.tool, argument, max)),
                ShellInput::Typed => continue,
                ShellInput::Line(line) => line,
                ShellInput::Argv(words) => aide_core::command::quote_argv(&words),
                ShellInput::Assignment(setting) => format!("export {}", quote_word(setting.as_bytes())),
                ShellInput::Unset(name) => format!("unset {}", quote_word(name.as_bytes())),
            };
            check_line(self.tool, argument, &line, max, &cwd)?;
        }
        Ok(())
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
    Err(McpError::RiskDenied { tool: tool.to_string(), field: field.to_string(), risk, reasons, max }.into())
}

/// The refusal of text or keys typed into a terminal under a cap below `critical`.
fn typed_refused(tool: &str, field: &str, max: Risk) -> AideError {
    McpError::TypedRefused { tool: tool.to_string(), field: field.to_string(), max }.into()
}

/// The refusal of a tool the policy does not allow.
pub(crate) fn not_allowed(tool: &str, why: &str) -> AideError {
    McpError::NotAllowed { tool: tool.to_string(), why: why.to_string() }.into()
}

/// Why a call was stopped at `--call-timeout`: its result, log record and span say it.
pub(crate) fn timed_out(limit: Duration) -> AideError {
    McpError::TimedOut { limit }.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{ToolFn, with_tool};
    use crate::mcp::binding::Binding;
    use aide_core::tool::Tool;
    use serde_json::{Map, Value};

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

    fn imposition(tool: &'static str, max_risk: Option<Risk>) -> Imposition {
        let sandbox = SandboxUsed {
            mode: aide_gate::sandbox::SandboxMode::WorkspaceWrite,
            network: aide_gate::sandbox::Network::Off,
        };
        Imposition { tool, sandbox, max_risk, cwd: PathBuf::from("/") }
    }

    /// What a typed request says of its governed parts once imposed on.
    #[derive(Debug)]
    struct Imposed {
        takes_max_risk: bool,
        max_risk: Option<Risk>,
        sandbox: Option<SandboxArgs>,
        reaches: Vec<Reach>,
    }

    /// The call's arguments made the tool's typed request as the server
    /// makes it ([`Binding::typed_request`]).
    struct Impose<'a> {
        binding: &'a Binding,
        arguments: Map<String, Value>,
        imposition: &'a Imposition,
    }

    impl ToolFn for Impose<'_> {
        type Out = Result<Imposed, AideError>;
        fn call<T: Tool>(self) -> Self::Out {
            let (mut request, _) = self.binding.typed_request::<T>(self.arguments, self.imposition)?;
            Ok(Imposed {
                takes_max_risk: request.max_risk().is_some(),
                max_risk: request.max_risk().and_then(|r| *r),
                sandbox: request.sandbox().copied(),
                reaches: request.shell_inputs(),
            })
        }
    }

    fn impose(tool: &'static str, max_risk: Option<Risk>, arguments: Value) -> Result<Imposed, AideError> {
        let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
        let b = binding(tool);
        let imposition = imposition(tool, max_risk);
        with_tool(b.op.tool, Impose { binding: &b, arguments, imposition: &imposition }).unwrap()
    }

    /// The call's `arguments` of `tool` under `--max-risk max`: the refusal's code and field, or None.
    fn refusal(max: Risk, tool: &'static str, arguments: Value) -> Option<(String, String)> {
        let e = impose(tool, Some(max), arguments).err()?;
        let field = e.details.as_ref().and_then(|d| d["field"].as_str()).unwrap_or("").to_string();
        assert!(e.message.contains(&format!("`{tool}`")), "in MCP words: {}", e.message);
        Some((e.code.name.to_string(), field))
    }

    #[test]
    fn the_stricter_risk_wins() {
        let cap =
            |asked: Value| impose("shell_exec", Some(Risk::Medium), json!({ "command": "ls", "max_risk": asked }));
        assert_eq!(cap(Value::Null).unwrap().max_risk, Some(Risk::Medium));
        assert_eq!(cap(json!("critical")).unwrap().max_risk, Some(Risk::Medium));
        assert_eq!(cap(json!("low")).unwrap().max_risk, Some(Risk::Low));
        let read = impose("read", Some(Risk::Medium), json!({ "paths": ["a"] })).unwrap();
        assert!(!read.takes_max_risk && read.sandbox.is_none() && read.reaches.is_empty());
    }

    #[test]
    fn the_servers_sandbox_is_set_and_a_call_may_not_choose_its_own() {
        let exec = impose("shell_exec", None, json!({ "command": "ls" })).unwrap();
        let sandbox = exec.sandbox.unwrap();
        assert_eq!(
            (sandbox.sandbox, sandbox.network),
            (Some(aide_gate::sandbox::SandboxMode::WorkspaceWrite), Some(aide_gate::sandbox::Network::Off))
        );
        for (key, value) in [("sandbox", "off"), ("network", "on")] {
            let mut arguments = json!({ "command": "ls" });
            arguments[key] = json!(value);
            let e = impose("shell_exec", None, arguments).unwrap_err();
            assert_eq!(e.code.name, "invalid_arguments");
            assert!(e.message.contains(&format!("`{key}` is set by the server")), "{e:?}");
        }
        for tool in ["jobs_spawn", "shell_session_new", "term_start"] {
            let arguments = if tool == "shell_session_new" { json!({}) } else { json!({ "command": "ls" }) };
            assert!(impose(tool, None, arguments).unwrap().sandbox.is_some(), "{tool} runs in the server's sandbox");
        }
    }

    /// A value of the type a schema property takes (for a required argument).
    fn sample(property: &Value) -> Value {
        let types: Vec<&str> = match &property["type"] {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        match types.first().copied() {
            Some("array") => json!([]),
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(false),
            Some("object") => json!({}),
            _ => json!("x"),
        }
    }

    /// Every argument named like a command reaches the risk cap: rated
    /// here, or by the tool itself through its `max_risk`, unless it never
    /// runs; and every tool that runs commands gets the server's sandbox or
    /// runs them in the gate's ambient one. Read from the typed requests of
    /// the catalogue's tools, each argument set on its own.
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
        let values: [(&str, Value); 8] = [
            ("command", json!("ls")),
            ("argv", json!(["ls"])),
            ("env", json!(["A=1"])),
            ("set", json!(["A=1"])),
            ("unset", json!(["A"])),
            ("text", json!("ls")),
            ("keys", json!(["Enter"])),
            ("verify_command", json!("ls")),
        ];
        let mut covered = 0;
        for op in crate::catalogue::operations() {
            let b = Binding::new(op).unwrap();
            let required: Vec<&str> = b
                .input_schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (field, value) in values.iter().filter(|(f, _)| b.fields.contains(*f)) {
                if NEVER_RUN.contains(&(op.name, field)) {
                    continue;
                }
                let mut arguments = Map::new();
                for name in &required {
                    arguments.insert(name.to_string(), sample(&b.input_schema["properties"][name]));
                }
                arguments.insert(field.to_string(), value.clone());
                let imposed = impose(op.name, None, Value::Object(arguments))
                    .unwrap_or_else(|e| panic!("{}'s {field}: {e:?}", op.name));
                let rated_here = imposed.reaches.iter().any(|r| r.argument == *field);
                let rated_by_the_tool = imposed.takes_max_risk && ["command", "argv"].contains(field);
                assert!(rated_here || rated_by_the_tool, "{}'s {field} is not covered by --max-risk", op.name);
                covered += 1;
            }
        }
        assert!(covered >= 12, "the arguments that reach a shell were found: {covered}");
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
        // So is text written to a job's stdin (its command may be a shell); closing it is not.
        assert_eq!(refusal(Risk::High, "jobs_send", json!({"id": 1, "text": "ls\n"})), denied("text"));
        assert_eq!(refusal(Risk::Low, "jobs_send", json!({"id": 1, "eof": true})), None);
        assert_eq!(refusal(Risk::Critical, "jobs_send", json!({"id": 1, "text": "y\n"})), None);
        // No cap: nothing is rated.
        assert!(impose("transform", None, json!({"operations": [], "verify_command": "rm -rf /"})).is_ok());
    }
}

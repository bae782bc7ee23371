//! What the server's operator allows its client, enforced on every call:
//! which tools (`--allow auto`: the read-only ones; `gated`: all), asking
//! the user before a gated call where the client can (`--confirm gated`,
//! MCP elicitation), the highest risk of a shell command (`--max-risk`), how
//! fast calls may come (`--rate N/s`, a token bucket), and how long one may
//! run (`--call-timeout`). A refusal is the call's result with `isError`
//! and a stable code (`not_allowed`, `rate_limited`, `timeout`), never a
//! protocol error: the model reads it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use aide_core::AideError;
use serde_json::{Map, Value, json};

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

    /// Sets the operator's highest risk on a call of a tool that takes one
    /// (the stricter of the call's own and the server's).
    pub fn impose_risk(&self, arguments: &mut Map<String, Value>, takes_risk: bool) -> Result<(), AideError> {
        let Some(max) = self.options.max_risk.filter(|_| takes_risk) else { return Ok(()) };
        let asked = match arguments.get("max_risk") {
            None | Some(Value::Null) => None,
            Some(v) => Some(serde_json::from_value::<llm_shell::explain::Risk>(v.clone()).map_err(|_| {
                AideError::new(aide_core::code::INVALID_ARGUMENTS, format!("max_risk {v} is not a risk"))
                    .with_hint("give low, medium, high or critical")
                    .with_details(json!({ "field": "max_risk" }))
            })?),
        };
        let stricter = asked.map_or(max, |a| a.min(max));
        arguments.insert("max_risk".into(), json!(stricter.as_str()));
        Ok(())
    }
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

    #[test]
    fn the_stricter_risk_wins() {
        use llm_shell::explain::Risk;
        let policy = Policy::new(PolicyOptions { max_risk: Some(Risk::Medium), ..Default::default() });
        let mut args = Map::new();
        policy.impose_risk(&mut args, true).unwrap();
        assert_eq!(args["max_risk"], "medium");
        args.insert("max_risk".into(), json!("critical"));
        policy.impose_risk(&mut args, true).unwrap();
        assert_eq!(args["max_risk"], "medium");
        args.insert("max_risk".into(), json!("low"));
        policy.impose_risk(&mut args, true).unwrap();
        assert_eq!(args["max_risk"], "low");
        let mut other = Map::new();
        policy.impose_risk(&mut other, false).unwrap();
        assert!(other.is_empty());
    }
}

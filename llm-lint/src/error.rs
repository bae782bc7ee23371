//! llm-lint's refusals, each with its code and a hint in the caller's words.

use aide_core::operation::{Operation, named};
use aide_core::voice::{Voice, say};
use aide_core::{AideError, code};

const LINT: &Operation = named(crate::operations::OPERATIONS, "lint");

/// `--baseline` names a file that is not llm-lint's JSON output.
pub(crate) fn bad_baseline(shown: &str, why: &str) -> AideError {
    AideError::new(
        code::INVALID_ARGUMENTS,
        say(|v| format!("{}: not {} {} output ({why})", v.arg_is("baseline", shown), v.pick("an", "a"), v.op(LINT))),
    )
    .with_hint(say(|v| match v {
        Voice::Cli => "give a git revision, or a file saved from `llm-lint --json`".into(),
        Voice::Mcp => format!("give a git revision, or a file holding a {} result", v.op(LINT)),
    }))
}

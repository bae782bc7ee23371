//! Every way llm-discover refuses a request, as one enum converted once into
//! the contract's [`AideError`].

use aide_core::voice::{Voice, say};
use aide_core::{AideError, code};

#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("the query is empty")]
    EmptyQuery,
    #[error("the query has only negated terms")]
    OnlyNegatedTerms,
    #[error("the query has no characters to look for (`'`, `^`, `$` and `!` alone are operators)")]
    OnlyOperators,
    #[error("{} does not take {}", Voice::Cli.arg("tree"), Voice::Cli.arg("query"))]
    TreeWithQuery,
}

impl From<DiscoverError> for AideError {
    fn from(e: DiscoverError) -> AideError {
        use DiscoverError as E;
        let message = match e {
            E::TreeWithQuery => say(|v| format!("{} does not take {}", v.arg("tree"), v.arg("query"))),
            _ => e.to_string().into(),
        };
        let hint = say(|v| match e {
            E::EmptyQuery => format!("give some characters of the path, or leave {} out to list files", v.arg("query")),
            E::OnlyNegatedTerms | E::OnlyOperators => "add a term to look for, e.g. `main !test` or `^src/`".into(),
            E::TreeWithQuery => format!(
                "use {} alone (with {} or {}), or {} alone",
                v.arg("tree"),
                v.arg("glob"),
                v.arg("max_depth"),
                v.arg("query")
            ),
        });
        AideError::new(code::INVALID_ARGUMENTS, message).with_hint(hint)
    }
}

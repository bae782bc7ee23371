//! Every way llm-discover refuses a request, as one enum converted once into
//! the contract's [`AideError`].

use aide_core::{AideError, code};

#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("the query is empty")]
    EmptyQuery,
    #[error("the query has only negated terms")]
    OnlyNegatedTerms,
    #[error("the query has no characters to look for (`'`, `^`, `$` and `!` alone are operators)")]
    OnlyOperators,
    #[error("--tree does not take --query")]
    TreeWithQuery,
}

impl From<DiscoverError> for AideError {
    fn from(e: DiscoverError) -> AideError {
        use DiscoverError as E;
        let hint = match e {
            E::EmptyQuery => "give some characters of the path, or leave --query out to list files",
            E::OnlyNegatedTerms | E::OnlyOperators => "add a term to look for, e.g. `main !test` or `^src/`",
            E::TreeWithQuery => "use --tree alone (with --glob or --max-depth), or --query alone",
        };
        AideError::new(code::INVALID_ARGUMENTS, e.to_string()).with_hint(hint)
    }
}

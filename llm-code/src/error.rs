//! Every way llm-code refuses a request, as one enum converted once into
//! the contract's [`AideError`].

use aide_core::voice::say;
use aide_core::{AideError, code};

#[derive(Debug, thiserror::Error)]
pub enum CodeError {
    #[error("a duplicate must be at least {min} tokens long (got {given})")]
    TooFewTokens { given: usize, min: usize },
}

impl From<CodeError> for AideError {
    fn from(e: CodeError) -> AideError {
        let message = e.to_string();
        match e {
            CodeError::TooFewTokens { given, min } => AideError::new(code::INVALID_ARGUMENTS, message)
                .with_hint(say(move |v| format!("give {} {min} or more", v.arg("min_tokens"))))
                .with_details(serde_json::json!({ "field": "min_tokens", "given": given })),
        }
    }
}

//! Why the gate did not start a process, mapped once to the contract's codes.

use aide_core::{AideError, code};

/// Why a process did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The program is not on PATH (or not at the path given).
    #[error("{program}: not found")]
    NotFound { program: String },
    /// The sandbox cannot be entered here (`sandbox_unavailable`).
    #[error("{0}")]
    Sandbox(AideError),
    /// Anything else the kernel said.
    #[error("{program}: {source}")]
    Io { program: String, source: std::io::Error },
}

impl From<StartError> for AideError {
    fn from(e: StartError) -> AideError {
        match e {
            StartError::Sandbox(e) => e,
            StartError::NotFound { program } => AideError::new(code::IO_ERROR, format!("{program}: not found"))
                .with_hint(format!("install {program}, or put it on PATH")),
            StartError::Io { program, source } => AideError::io(&program, &source),
        }
    }
}

/// Why the sandbox asked for cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// This kernel (or this process's setup) cannot enforce it: `why` says what is missing.
    #[error("this kernel cannot enforce the sandbox: {why}")]
    Unavailable { why: String },
}

impl From<SandboxError> for AideError {
    fn from(e: SandboxError) -> AideError {
        AideError::new(code::SANDBOX_UNAVAILABLE, e.to_string()).with_hint(
            "`aide doctor` says which sandbox modes this machine supports (they need Landlock and unprivileged user \
             namespaces); --sandbox off --network on runs unconfined",
        )
    }
}

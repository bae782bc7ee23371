//! Why a keeper's folder cannot be used, mapped once to the contract's codes.

use std::path::PathBuf;

use aide_core::{AideError, code};

/// Why a caller cannot reach (or start) the keeper of a folder.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeeperError {
    /// What listens, or what holds the folder, is not a keeper this caller
    /// may trust (`why` says how it failed the proof).
    #[error("the keeper's socket in {} is not trusted: {why}", .dir.display())]
    Untrusted { dir: PathBuf, why: String },
    /// The folder's path is longer than a socket's address may be.
    #[error("the keeper's folder path is too long for a socket")]
    SocketPathTooLong,
}

impl From<KeeperError> for AideError {
    fn from(e: KeeperError) -> AideError {
        let msg = e.to_string();
        match e {
            KeeperError::Untrusted { dir, .. } => AideError::new(code::CONFLICT, msg)
                .with_hint("a keeper is started by the tool itself, as confined as its caller; end what holds the folder (`aide doctor` lists keepers) and run the command again")
                .with_details(serde_json::json!({ "keeper_dir": dir })),
            KeeperError::SocketPathTooLong => {
                AideError::new(code::INVALID_ARGUMENTS, msg).with_hint("set AIDE_HOME to a shorter path")
            }
        }
    }
}

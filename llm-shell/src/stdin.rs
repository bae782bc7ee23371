//! A command's stdin: a file of the caller's (`--stdin FILE`, inside the
//! roots of a confined run), or what llm-shell itself reads (`--stdin -`),
//! kept in the session's folder while the command runs.

use std::path::PathBuf;

use aide_core::AideError;
use aide_core::tool::Context;

use crate::error::ShellError;
use crate::session;

/// The file a command reads as its stdin: the caller's own file (`--stdin
/// FILE`, inside the roots of a confined run), or what this process reads
/// from its stdin (`--stdin -`), kept in the session's folder while the
/// command runs.
pub(crate) struct StdinFile {
    pub(crate) path: PathBuf,
    owned: bool,
}

impl Drop for StdinFile {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

pub(crate) fn stdin_file(
    given: &std::path::Path,
    session: &session::Session,
    ctx: &Context,
) -> Result<StdinFile, AideError> {
    if given.as_os_str() == "-" {
        let bytes = read_own_stdin(ctx)?;
        let path = session.dir.join(format!("stdin.{}", aide_core::ids::new_execution_id()));
        aide_core::fsutil::write_atomic_with(&path, &bytes, Some(aide_core::fsutil::private_permissions()))
            .map_err(|e| AideError::io("stdin", &e))?;
        return Ok(StdinFile { path, owned: true });
    }
    Ok(StdinFile { path: checked_stdin_path(given, ctx)?, owned: false })
}

/// All llm-shell itself reads from its stdin (`--stdin -`), when its
/// caller's data is there: not in a server, whose stdin is its protocol,
/// nor after a request read from stdin.
pub(crate) fn read_own_stdin(ctx: &Context) -> Result<Vec<u8>, AideError> {
    if !ctx.reads_stdin {
        return Err(ShellError::StdinNotTheCallers.into());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes).map_err(|e| AideError::io("stdin", &e))?;
    Ok(bytes)
}

/// `--stdin FILE`: a regular file inside the roots of a confined run.
pub(crate) fn checked_stdin_path(given: &std::path::Path, ctx: &Context) -> Result<PathBuf, AideError> {
    let path = ctx.resolve(given);
    ctx.check_confined("--stdin", &path)?;
    match std::fs::metadata(&path) {
        // Absolute: the command may run in another directory (a job in the session's).
        Ok(m) if m.is_file() => std::path::absolute(&path).map_err(|e| AideError::io("--stdin", &e)),
        Ok(_) => Err(ShellError::StdinNotRegular { given: given.display().to_string() }.into()),
        Err(e) => Err(AideError::io(&format!("--stdin {}", given.display()), &e)),
    }
}

//! One git run in a repository: its status, stdout and the tail of its
//! stderr, with input written from a thread (git may fill its stdout before
//! reading all of its stdin); and the one check of "did git succeed".

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::process::Stdio;

use super::{Git, RunError};

/// What one git run gave.
#[derive(Debug)]
pub struct Ran {
    pub status: i32,
    pub stdout: Vec<u8>,
    /// The last 20 lines of its stderr, where git says why.
    pub stderr: String,
}

impl Git {
    /// Runs git with `args`, `input` on its stdin and `env` added; whatever
    /// it exits with.
    pub fn ran<S: AsRef<OsStr>>(
        &self,
        args: &[S],
        input: Option<&[u8]>,
        env: &[(&str, OsString)],
    ) -> std::io::Result<Ran> {
        let mut command = self.command();
        command.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        if input.is_some() {
            command.stdin(Stdio::piped());
        }
        let mut child = command.spawn()?;
        let writer = match (input, child.stdin.take()) {
            (Some(bytes), Some(mut stdin)) => {
                let bytes = bytes.to_vec();
                Some(std::thread::spawn(move || {
                    let _ = stdin.write_all(&bytes);
                }))
            }
            _ => None,
        };
        let out = child.wait_with_output()?;
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.trim().lines().collect();
        let stderr = lines[lines.len().saturating_sub(20)..].join("\n");
        Ok(Ran { status: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr })
    }

    /// Runs git with `args`; its stdout if it succeeded.
    pub fn stdout<S: AsRef<OsStr>>(&self, args: &[S]) -> Result<Vec<u8>, RunError> {
        self.ran(args, None, &[]).map_err(RunError::Start)?.succeeded(args)
    }
}

impl Ran {
    /// Its stdout if git succeeded, else `Failed` with git's complaint.
    pub fn succeeded<S: AsRef<OsStr>>(self, args: &[S]) -> Result<Vec<u8>, RunError> {
        match self.status {
            0 => Ok(self.stdout),
            status => Err(RunError::Failed { command: shown(args), status, stderr: self.stderr }),
        }
    }
}

/// git's arguments as a line of text, for an error's `command`.
pub fn shown<S: AsRef<OsStr>>(args: &[S]) -> String {
    args.iter().map(|a| a.as_ref().to_string_lossy().into_owned()).collect::<Vec<_>>().join(" ")
}

//! A command handed to llm-jobs: `exec --background` (answer the job at
//! once) and `exec --yield-ms N` (answer what it printed in N ms, and the
//! job if it still runs). Either way the command is one llm-jobs job from
//! its start, so `llm-jobs wait`, `logs` and `kill` work on it: one identity
//! for a command that outlives its answer.
//!
//! The job runs in the session's working directory with its saved state
//! sourced (variables, functions, aliases, options), but as a process of
//! its own: what it changes (`cd`, `export`) does not come back into the
//! session.

use std::path::PathBuf;
use std::time::Duration;

use aide_core::AideError;
use aide_core::command::CommandArgs;
use aide_core::tool::{Context, Tool};
use schemars::JsonSchema;
use serde::Serialize;

use crate::session::{self, Session, shell_quote};
use crate::state::Declared;

/// What `exec --yield-ms` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct YieldedOutput {
    pub session_id: Option<String>,
    pub command: String,
    /// The llm-jobs job running the command: `llm-jobs wait|logs|kill ID`.
    pub job_id: i64,
    /// The command still runs after the yield; its output goes on into the job's logs.
    pub running: bool,
    pub status: llm_jobs::Status,
    /// The command's exit status, once it ended.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// The output so far, cut to a head and tail over --max-output.
    pub stdout: String,
    pub stderr: String,
    /// Bytes the command wrote so far. Pass as `llm-jobs logs ID --stream
    /// stdout --since-offset N` to read only what comes next.
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// Secrets replaced by `[REDACTED]`.
    pub redactions: usize,
}

/// How the job gets its stdin.
pub(crate) enum JobStdin {
    Nothing,
    /// The caller's own file, read in place.
    File(PathBuf),
    /// Bytes llm-shell read from its stdin: kept in a private file (under
    /// the aide home's `shell/stdin`) the job opens and removes before the
    /// command starts.
    Bytes(Vec<u8>),
}

/// Starts `command` as an llm-jobs job of `session` (`persistent`: a
/// session the caller named; a throwaway one is not sourced, since its
/// folder goes with this run).
pub(crate) fn spawn(
    command: &str,
    session: &Session,
    persistent: bool,
    declared: &Declared,
    stdin: JobStdin,
    timeout: Option<f64>,
    ctx: &Context,
) -> Result<llm_jobs::SpawnOutput, AideError> {
    let mut script = String::new();
    let mut env: Vec<String> = Vec::new();
    if persistent {
        script.push_str(&format!(
            "source {} >/dev/null 2>&1\n",
            shell_quote(&session.state_path().display().to_string())
        ));
        // The job's redactor knows the session's secret values (they are
        // exported by the state the command sources anyway).
        env.extend(declared.secret_variables().map(|(k, v)| format!("{k}={v}")));
    } else {
        env.extend(session::NON_INTERACTIVE.iter().map(|(k, v)| format!("{k}={v}")));
    }
    let mut stdin_file = None;
    match stdin {
        JobStdin::Nothing => {}
        JobStdin::File(path) => {
            script.push_str(&format!("exec 0<{}\n", shell_quote(&path.display().to_string())));
        }
        JobStdin::Bytes(bytes) => {
            // The job's supervisor opens and removes it (a sandboxed job could not remove it).
            let dir = session::sessions_dir().with_file_name("stdin");
            aide_core::fsutil::private_dir(&dir).map_err(|e| AideError::io("stdin", &e))?;
            let path = dir.join(aide_core::ids::new_execution_id());
            aide_core::fsutil::write_atomic_with(&path, &bytes, Some(aide_core::fsutil::private_permissions()))
                .map_err(|e| AideError::io("stdin", &e))?;
            stdin_file = Some(path);
        }
    }
    // A sandboxed session's job writes where the session may (beneath where
    // it started, its working directory then), wherever its shell has moved
    // since: it starts there and moves as the shell did.
    let used = session.meta.sandbox;
    let mut cwd = session.meta.working_dir.clone();
    if !used.is_off() {
        let start = session.sandbox_dir();
        if start != cwd {
            script.push_str(&format!("cd {} || exit 1\n", shell_quote(&cwd)));
        }
        cwd = start;
    }
    script.push_str(command);
    // Through llm-jobs' own entry point, as any caller of it would.
    let mut request = llm_jobs::JobsRequest {
        command: llm_jobs::JobsCommand::Spawn(llm_jobs::SpawnArgs {
            session: persistent.then(|| session.meta.session_id.clone()),
            cwd: Some(PathBuf::from(cwd)),
            timeout,
            env,
            sandbox: aide_gate::sandbox::SandboxArgs { sandbox: Some(used.mode), network: Some(used.network) },
            stdin_file,
            // As in the foreground: no input but what exec was given.
            no_stdin: true,
            command: CommandArgs::line(script),
            ..llm_jobs::SpawnArgs::default()
        }),
    };
    llm_jobs::LlmJobs::prepare(&mut request)?;
    match llm_jobs::LlmJobs::run(request, &ctx.nested())?.output {
        llm_jobs::JobsOutput::Spawned(job) => Ok(job),
        other => Err(AideError::internal(format!("llm-jobs spawn answered {other:?}"))),
    }
}

/// Waits up to `yield_for` for job `job_id` to end, then answers what it
/// printed so far (`max_output` bytes per stream, as a head and a tail).
pub(crate) fn yield_after(
    job_id: i64,
    command: &str,
    session_id: Option<String>,
    yield_for: Duration,
    max_output: usize,
    redact: bool,
    ctx: &Context,
) -> Result<YieldedOutput, AideError> {
    let jobs = |command| -> Result<llm_jobs::JobsOutput, AideError> {
        Ok(llm_jobs::LlmJobs::run(llm_jobs::JobsRequest { command }, &ctx.nested())?.output)
    };
    let waited = jobs(llm_jobs::JobsCommand::Wait(llm_jobs::WaitArgs {
        ids: vec![job_id],
        timeout: yield_for.as_secs_f64(),
        tail: 0,
        no_redact: !redact,
        ..Default::default()
    }))?;
    let llm_jobs::JobsOutput::Waited { jobs: waited, .. } = waited else {
        return Err(AideError::internal("llm-jobs wait answered something else"));
    };
    let job = waited.into_iter().next().ok_or_else(|| AideError::internal("llm-jobs wait lost the job"))?;
    // Read after the wait: an ended job's logs are complete.
    let read = |stream| -> Result<(String, u64, bool, usize), AideError> {
        let logs = jobs(llm_jobs::JobsCommand::Logs(llm_jobs::LogsArgs {
            id: job_id,
            stream,
            no_redact: !redact,
            // The whole output: cut below to max_output, head and tail.
            max_output_bytes: Some(usize::MAX),
            ..Default::default()
        }))?;
        let llm_jobs::JobsOutput::Logs(logs) = logs else {
            return Err(AideError::internal("llm-jobs logs answered something else"));
        };
        let (text, truncated) = crate::capture::head_and_tail(logs.content.as_bytes(), max_output);
        Ok((text, logs.next_offset, truncated, logs.redactions))
    };
    let (stdout, stdout_bytes, stdout_truncated, out_marks) = read(llm_jobs::Stream::Stdout)?;
    let (stderr, stderr_bytes, stderr_truncated, err_marks) = read(llm_jobs::Stream::Stderr)?;
    Ok(YieldedOutput {
        session_id,
        command: command.to_string(),
        job_id,
        running: job.status.is_active(),
        status: job.status,
        exit_code: job.exit_code,
        signal: job.signal,
        timed_out: job.status == llm_jobs::Status::TimedOut,
        stdout,
        stderr,
        stdout_bytes,
        stderr_bytes,
        stdout_truncated,
        stderr_truncated,
        redactions: out_marks + err_marks,
    })
}

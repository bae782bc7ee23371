//! Each subcommand run: sessions opened (and confined), their state read
//! and masked, commands executed, timings and comparisons gathered.

use std::path::{Path, PathBuf};
use std::time::Duration;

use aide_core::AideError;
use aide_core::tool::Context;
use aide_core::voice::say;

use crate::error::{ShellError, TerminalError};
use crate::output::{SessionState, ShellOutput};
use crate::{
    DEFAULT_MAX_OUTPUT, ExecArgs, SessionAction, ShellCommand, TermAction, compare, exec, explain, handoff, perf,
    session, stdin, syntax,
};

/// Replaces the values of secret-named variables (`DB_PASSWORD`, `API_TOKEN`):
/// a session's state is where they would be echoed back whole.
fn mask_secret_variables(state: &mut SessionState) {
    for (name, value) in state.environment.iter_mut().flatten() {
        if aide_gate::redact::is_secret_name(name) && !value.is_empty() {
            *value = aide_gate::redact::MARK.to_string();
        }
    }
}

/// The session `id`, if this run may reach it: a run confined to roots
/// (`aide mcp`) sees only sessions whose directory lies under them; any
/// other is, to it, no session.
fn open_session(id: &str, ctx: &Context) -> Result<session::Session, AideError> {
    let s = session::open(id)?;
    if ctx.confined(std::path::Path::new(&s.meta.working_dir)) {
        Ok(s)
    } else {
        Err(ShellError::NoSession { id: id.to_string() }.into())
    }
}

fn session_state(s: &session::Session, ctx: &Context) -> Result<SessionState, AideError> {
    let environment = s.environment();
    Ok(SessionState {
        session_id: s.meta.session_id.clone(),
        working_dir: s.meta.working_dir.clone(),
        environment_count: environment.len(),
        environment: Some(environment),
        active_jobs: llm_jobs::session_jobs(&s.meta.session_id, ctx)?,
        last_exit_code: s.meta.last_exit_code,
        uptime_seconds: ((aide_core::time::now_ms() - s.meta.created_ms).max(0) as f64 / 1000.0).round(),
        exec_count: s.meta.exec_count,
        keeper_alive: crate::keeper::is_alive(&s.dir),
    })
}

fn env_update(id: &str, set: &[String], unset: &[String], ctx: &Context) -> Result<ShellOutput, AideError> {
    let pairs = aide_core::request::parse_env_pairs(set)?;
    if let Some(bad) = unset.iter().find(|n| !aide_core::request::is_identifier(n)) {
        return Err(ShellError::NotAVariableName { name: bad.clone() }.into());
    }
    if pairs.is_empty() && unset.is_empty() {
        return Err(ShellError::NothingToChange.into());
    }
    let mut script = String::new();
    for (k, v) in &pairs {
        script.push_str(&format!("export {k}={}\n", session::shell_quote(v)));
    }
    for k in unset {
        script.push_str(&format!("unset {k}\n"));
    }
    let mut s = open_session(id, ctx)?;
    let order = exec::ExecOrder {
        command: script,
        timeout_ms: Some(30_000),
        max_output: 4096,
        unrecorded: true,
        ..Default::default()
    };
    let out = run_command(&mut s, &order, true, &ctx.cancel)?;
    if out.exit_code != 0 {
        return Err(ShellError::EnvUpdateFailed { stderr: out.stderr.trim().to_string() }.into());
    }
    let mut updated: Vec<String> = pairs.into_iter().map(|(k, _)| k).collect();
    updated.extend(unset.iter().cloned());
    Ok(ShellOutput::Env { updated, session_id: s.meta.session_id })
}

fn run_exec(args: &ExecArgs, ctx: &Context) -> Result<ShellOutput, AideError> {
    let mut what = args.command.clone();
    what.normalize()?;
    // The session's bash evals this line: an argv is quoted word by word.
    let command = what.shell_line();
    check_exec_timeout(args.timeout)?;
    let (mut session, cleanup) = exec_session(args, ctx)?;

    // Read from the saved state only when needed: a keeper knows it already.
    let handed_off = args.background || args.yield_ms.is_some();
    let needs_declared = args.max_risk.is_some() || handed_off;
    let declared = if needs_declared { session.declared() } else { Default::default() };
    if let Some(max) = args.max_risk {
        check_risk(&command, &session, &declared, max)?;
    }
    if handed_off {
        return hand_off(args, &command, &session, &declared, cleanup, ctx);
    }

    let stdin = match &args.stdin {
        Some(path) => Some(stdin::stdin_file(path, &session, ctx)?),
        None => None,
    };
    let order = exec::ExecOrder {
        command,
        stdin: stdin.as_ref().map(|s| s.path.clone()),
        timeout_ms: Some(exec_limit_ms(args.timeout, &session)?),
        max_output: args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT),
        // The session's own secret values, besides every shape the rules know.
        redact: !args.no_redact,
        unrecorded: false,
        trace: aide_gate::trace::for_child(&ctx.execution_id),
    };
    let out = run_command(&mut session, &order, args.session.is_some(), &ctx.cancel)?;
    drop(stdin);
    drop(cleanup);
    Ok(ShellOutput::Exec(Box::new(out)))
}

/// `exec --timeout`, checked as every seconds flag is, with a hint that
/// says what applies without it.
fn check_exec_timeout(timeout: Option<f64>) -> Result<(), AideError> {
    aide_core::request::check_timeout("--timeout", timeout).map_err(|e| {
        e.with_hint(say(|v| {
            format!(
                "give {} or 0.5 (at most {:.0}); without it the command is ended after aide.toml's exec_timeout, else {} s",
                v.arg_is("timeout", 30),
                aide_core::request::MAX_SECONDS,
                aide_config::DEFAULT_EXEC_TIMEOUT
            )
        }))
    })
}

/// The session a command runs in: the one named, in its own sandbox, or a
/// throwaway one in a temporary folder (returned too, removed when dropped).
fn exec_session(
    args: &ExecArgs,
    ctx: &Context,
) -> Result<(session::Session, Option<aide_core::fsutil::TempDir>), AideError> {
    match &args.session {
        Some(id) => {
            let session = open_session(id, ctx)?;
            same_sandbox(&session, args.sandbox)?;
            Ok((session, None))
        }
        None => {
            let temp =
                aide_core::fsutil::TempDir::new("aide-shell").map_err(|e| AideError::io("a temporary folder", &e))?;
            let mut once = session::create_in(temp.path(), "once", &ctx.base_dir()?, &session::starting_env(&[]))?;
            with_sandbox(&mut once, args.sandbox)?;
            Ok((once, Some(temp)))
        }
    }
}

/// `--background` or `--yield-ms`: the command handed to a job, answered
/// at once or after the wait.
fn hand_off(
    args: &ExecArgs,
    command: &str,
    session: &session::Session,
    declared: &crate::state::Declared,
    cleanup: Option<aide_core::fsutil::TempDir>,
    ctx: &Context,
) -> Result<ShellOutput, AideError> {
    if args.background && args.yield_ms.is_some() {
        return Err(ShellError::BackgroundAndYield.into());
    }
    let yield_for = match args.yield_ms {
        Some(ms) if ms as f64 / 1000.0 > aide_core::request::MAX_SECONDS => {
            return Err(ShellError::YieldTooLong { ms }.into());
        }
        Some(ms) => Some(Duration::from_millis(ms)),
        None => None,
    };
    let stdin = match &args.stdin {
        None => handoff::JobStdin::Nothing,
        Some(path) if path.as_os_str() == "-" => handoff::JobStdin::Bytes(stdin::read_own_stdin(ctx)?),
        Some(path) => handoff::JobStdin::File(stdin::checked_stdin_path(path, ctx)?),
    };
    let persistent = args.session.is_some();
    let job = handoff::spawn(command, session, persistent, declared, stdin, args.timeout, ctx)?;
    drop(cleanup);
    let session_id = args.session.clone();
    Ok(match yield_for {
        None => ShellOutput::Background { session_id, job },
        Some(wait) => ShellOutput::Yielded(Box::new(handoff::yield_after(
            job.job_id,
            command,
            session_id,
            wait,
            args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT),
            !args.no_redact,
            ctx,
        )?)),
    })
}

/// How long a foreground command may run, in ms: its `--timeout`, else
/// aide.toml's `exec_timeout` for the directory it runs in (else the
/// default), so no command hangs its caller forever.
fn exec_limit_ms(asked: Option<f64>, session: &session::Session) -> Result<u64, AideError> {
    let seconds = match asked {
        Some(seconds) => seconds,
        None => aide_config::load(Path::new(&session.meta.working_dir))?.exec_timeout.value,
    };
    // Both are checked to fit a Duration (at most MAX_SECONDS).
    Ok(Duration::from_secs_f64(seconds).as_millis().try_into().unwrap_or(u64::MAX))
}

/// TERM, INT and HUP caught while a command runs: the command's group is
/// taken down first, then this process dies of the signal, as meant.
struct Interrupts {
    caught: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    handlers: Vec<signal_hook::SigId>,
}

impl Interrupts {
    pub(crate) fn catch() -> Interrupts {
        let caught = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let handlers = [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT, signal_hook::consts::SIGHUP]
            .into_iter()
            .filter_map(|sig| {
                let number = usize::try_from(sig).unwrap_or(15);
                signal_hook::flag::register_usize(sig, caught.clone(), number).ok()
            })
            .collect();
        Interrupts { caught, handlers }
    }

    pub(crate) fn caught(&self) -> bool {
        self.caught.load(std::sync::atomic::Ordering::Relaxed) != 0
    }

    /// After the command is gone: die of the signal caught, if one was.
    pub(crate) fn die_if_caught(self) {
        let caught = self.caught.load(std::sync::atomic::Ordering::Relaxed);
        drop(self);
        if let Ok(sig) = i32::try_from(caught)
            && sig != 0
        {
            let _ = signal_hook::low_level::emulate_default_handler(sig);
        }
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        for id in self.handlers.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

/// Runs `order` in `session`: through its keeper when `persistent` (one is
/// started when none runs), else in a shell started for this command alone.
fn run_command(
    session: &mut session::Session,
    order: &exec::ExecOrder,
    persistent: bool,
    cancel: &aide_core::tool::Cancel,
) -> Result<exec::ExecOutput, AideError> {
    let interrupts = Interrupts::catch();
    let stop = || interrupts.caught() || cancel.is_cancelled();
    let result = match persistent.then(|| crate::keeper::exec(session, order, &stop)).flatten() {
        Some(answer) => answer,
        None => {
            // No keeper can listen here: a shell for this command alone, under the session's lock.
            let _lock = session.lock()?;
            let mut shell = crate::live::LiveShell::for_session(session)?;
            exec::run_on(&mut shell, session, order, persistent, &stop)
        }
    };
    if result.is_err() {
        interrupts.die_if_caught();
    }
    result
}

/// Gives a new session the sandbox asked for, or aide.toml's (refused,
/// `sandbox_unavailable`, where this kernel cannot enforce it): fixed from
/// here on.
fn with_sandbox(session: &mut session::Session, asked: aide_gate::sandbox::SandboxArgs) -> Result<(), AideError> {
    // What the flags do not say, aide.toml does (the project's, then the user's).
    let config = aide_config::load(Path::new(&session.meta.working_dir))?;
    session.meta.sandbox = asked.or(config.sandbox_default());
    session.meta.sandbox_dir = Some(session.meta.working_dir.clone());
    session.meta.sandbox_writable = config.writable_paths().iter().map(|p| p.display().to_string()).collect();
    session.meta.sandbox_readable =
        config.readable_paths().map(|l| l.iter().map(|p| p.display().to_string()).collect());
    let sandbox = session.sandbox();
    sandbox.check()?;
    if let Some(temp) = &sandbox.temp {
        // Its commands' temporary directory is the sandbox's own: the caller's is not writable from it.
        session.export("TMPDIR", &temp.display().to_string())?;
    }
    session.save_meta()
}

/// Refuses a sandbox other than the session's own: its shell runs in one,
/// which nothing from inside can change (a looser one would be an escape,
/// a stricter one a different shell).
fn same_sandbox(session: &session::Session, asked: aide_gate::sandbox::SandboxArgs) -> Result<(), AideError> {
    let wanted = asked.or(session.meta.sandbox);
    if wanted == session.meta.sandbox {
        return Ok(());
    }
    Err(ShellError::SessionSandboxDiffers {
        id: session.meta.session_id.clone(),
        runs: session.meta.sandbox.to_string(),
        wanted: wanted.to_string(),
    }
    .into())
}

/// Refuses `command` above `max`, judged among the session's own PATH,
/// functions and aliases.
fn check_risk(
    command: &str,
    session: &session::Session,
    declared: &crate::state::Declared,
    max: explain::Risk,
) -> Result<(), AideError> {
    let mut env = explain::Surroundings::of_this_process(std::path::Path::new(&session.meta.working_dir));
    if let Some(path) = declared.variables.get("PATH") {
        env.path = Some(path.clone());
    }
    if let Some(home) = declared.variables.get("HOME") {
        env.home = Some(home.clone());
    }
    env.defined = declared.defined_names();
    let e = explain::explain_in(command, &env)?;
    if e.overall_risk > max {
        return Err(ShellError::RiskDenied { risk: e.overall_risk, max, reasons: e.risk_reasons }.into());
    }
    Ok(())
}

/// Runs one `term` action through the session's keeper.
fn run_term(action: &TermAction, ctx: &Context) -> Result<ShellOutput, AideError> {
    use crate::keeper::{Answer, Ask, ask};
    use crate::terminal::{ReadWait, Size, session_of};
    let by_terminal = |id: &str| -> Result<session::Session, AideError> {
        let sid = session_of(id).ok_or_else(|| TerminalError::NotATerminalId { id: id.to_string() })?;
        open_session(sid, ctx)
    };
    let answer = match action {
        TermAction::Start { session, rows, cols, max_risk, no_redact, sandbox, command } => {
            let size = Size::of(*rows, *cols)?;
            let mut what = command.clone();
            what.normalize()?;
            let line = what.shell_line();
            let s = terminal_session(session.as_deref(), *sandbox, ctx)?;
            if let Some(max) = max_risk {
                check_risk(&line, &s, &s.declared(), *max)?;
            }
            let trace = aide_gate::trace::for_child(&ctx.execution_id);
            ask(&s, &Ask::TermStart { command: line, size, redact: !no_redact, trace })?
        }
        TermAction::Send { terminal_id, text, keys, then } => {
            if text.is_none() && keys.is_empty() {
                return Err(TerminalError::NothingToSend.into());
            }
            ask(
                &by_terminal(terminal_id)?,
                &Ask::TermSend {
                    terminal_id: terminal_id.clone(),
                    text: text.clone(),
                    keys: keys.clone(),
                    wait: crate::terminal::send_wait(then)?,
                    redact: !then.no_redact,
                },
            )?
        }
        TermAction::Read { terminal_id, wait_for, quiet_ms, timeout, no_redact } => {
            aide_core::request::check_timeout("--timeout", *timeout)?;
            let wait = ReadWait {
                wait_for: wait_for.clone(),
                quiet_ms: *quiet_ms,
                timeout_ms: timeout.map(|t| Duration::from_secs_f64(t).as_millis().try_into().unwrap_or(u64::MAX)),
                ..Default::default()
            };
            ask(
                &by_terminal(terminal_id)?,
                &Ask::TermRead { terminal_id: terminal_id.clone(), wait, redact: !no_redact },
            )?
        }
        TermAction::Resize { terminal_id, rows, cols } => {
            let size = Size::of(Some(*rows), Some(*cols))?;
            ask(&by_terminal(terminal_id)?, &Ask::TermResize { terminal_id: terminal_id.clone(), size })?
        }
        TermAction::List { session } => Answer::Terms(list_terminals(session.as_deref(), ctx)?),
        TermAction::Close { terminal_id } => {
            ask(&by_terminal(terminal_id)?, &Ask::TermClose { terminal_id: terminal_id.clone() })?
        }
    };
    terminal_output(action, answer)
}

/// The session a new terminal runs in: the one named, in its own sandbox,
/// or a new one in the working directory.
fn terminal_session(
    session: Option<&str>,
    sandbox: aide_gate::sandbox::SandboxArgs,
    ctx: &Context,
) -> Result<session::Session, AideError> {
    match session {
        Some(id) => {
            let s = open_session(id, ctx)?;
            same_sandbox(&s, sandbox)?;
            Ok(s)
        }
        None => {
            let cwd = ctx.base_dir()?;
            ctx.check_confined("the session's directory", &cwd)?;
            let mut s = session::create(&cwd, &[])?;
            with_sandbox(&mut s, sandbox)?;
            Ok(s)
        }
    }
}

/// The terminals of the session named, or of every session the caller
/// sees whose keeper runs, by id.
fn list_terminals(session: Option<&str>, ctx: &Context) -> Result<Vec<crate::terminal::TermListed>, AideError> {
    use crate::keeper::{Answer, Ask, ask};
    let sessions = match session {
        Some(id) => vec![open_session(id, ctx)?],
        None => visible_sessions(ctx)?.iter().filter_map(|m| session::open(&m.session_id).ok()).collect(),
    };
    let mut terminals = Vec::new();
    for s in sessions.iter().filter(|s| crate::keeper::is_alive(&s.dir)) {
        if let Answer::Terms(found) = ask(s, &Ask::TermList)? {
            terminals.extend(found);
        }
    }
    terminals.sort_by(|a, b| a.terminal_id.cmp(&b.terminal_id));
    Ok(terminals)
}

/// The keeper's answer to `action` as the tool's output.
fn terminal_output(action: &TermAction, answer: crate::keeper::Answer) -> Result<ShellOutput, AideError> {
    use crate::keeper::Answer;
    match answer {
        Answer::Term(view) => Ok(ShellOutput::Terminal(view)),
        Answer::Terms(terminals) => {
            // A keeper that is not running holds no terminal.
            if let TermAction::Send { terminal_id, .. }
            | TermAction::Read { terminal_id, .. }
            | TermAction::Resize { terminal_id, .. }
            | TermAction::Close { terminal_id } = action
                && terminals.is_empty()
            {
                return Err(TerminalError::Ended { id: terminal_id.clone() }.into());
            }
            Ok(ShellOutput::Terminals { terminals })
        }
        Answer::TermClosed { terminal_id, exit_code } => Ok(ShellOutput::TermClosed { closed: terminal_id, exit_code }),
        other => Err(AideError::internal(format!("the keeper answered {other:?}"))),
    }
}

/// Removes a throwaway session's folder when dropped.
fn run_perf(session: Option<&str>, last: usize, ctx: &Context) -> Result<ShellOutput, AideError> {
    let mut records = Vec::new();
    match session {
        Some(id) => records = perf::load(&open_session(id, ctx)?),
        None => {
            for meta in visible_sessions(ctx)? {
                records.extend(perf::load(&session::open(&meta.session_id)?));
            }
            records.sort_by(|a, b| a.at.cmp(&b.at));
        }
    }
    Ok(ShellOutput::Perf(perf::analyse(&records, last)))
}

/// The sessions this run may reach (see [`open_session`]).
fn visible_sessions(ctx: &Context) -> Result<Vec<session::Meta>, AideError> {
    Ok(session::list()?.into_iter().filter(|m| ctx.confined(std::path::Path::new(&m.working_dir))).collect())
}

/// Runs one subcommand.
pub fn execute(command: &ShellCommand, ctx: &Context) -> Result<ShellOutput, AideError> {
    match command {
        ShellCommand::Session { action } => match action {
            SessionAction::New { cwd, env, verbose, keeper_idle, sandbox } => {
                let cwd = match cwd {
                    Some(dir) => ctx.resolve(dir),
                    None => ctx.base_dir()?,
                };
                ctx.check_confined("the session's directory", &cwd)?;
                let mut s = session::create(&cwd, &aide_core::request::parse_env_pairs(env)?)?;
                if let Err(e) = with_sandbox(&mut s, *sandbox) {
                    let _ = std::fs::remove_dir_all(&s.dir);
                    return Err(e);
                }
                if keeper_idle.is_some() {
                    s.meta.keeper_idle_seconds = *keeper_idle;
                    s.save_meta()?;
                }
                let mut state = session_state(&s, ctx)?;
                mask_secret_variables(&mut state);
                if !verbose {
                    state.environment = None;
                }
                Ok(ShellOutput::Session(Box::new(state)))
            }
            SessionAction::List => {
                let sessions = visible_sessions(ctx)?
                    .into_iter()
                    .map(|meta| {
                        let keeper_alive = crate::keeper::is_alive(&session::sessions_dir().join(&meta.session_id));
                        session::Listed { meta, keeper_alive }
                    })
                    .collect();
                Ok(ShellOutput::Sessions { sessions })
            }
            SessionAction::Show { id, no_redact } => {
                let mut state = session_state(&open_session(id, ctx)?, ctx)?;
                if !no_redact {
                    mask_secret_variables(&mut state);
                }
                Ok(ShellOutput::Session(Box::new(state)))
            }
            SessionAction::Rm { id } => {
                if let Ok(s) = session::open(id)
                    && !ctx.confined(std::path::Path::new(&s.meta.working_dir))
                {
                    return Err(ShellError::NoSession { id: id.clone() }.into());
                }
                // Its keeper goes first, and with it the shell, the terminals and every process they started.
                if let Some(dir) = session::dir_of(id) {
                    crate::keeper::stop(&dir);
                }
                session::remove(id)?;
                Ok(ShellOutput::Removed { removed: id.clone() })
            }
        },
        ShellCommand::Env { session, set, unset } => env_update(session, set, unset, ctx),
        ShellCommand::Exec(args) => run_exec(args, ctx),
        ShellCommand::Term { action } => run_term(action, ctx),
        ShellCommand::Check { command } => {
            let text = command.shell_line();
            aide_core::text::check_depth("the command", syntax::nesting_depth(&text))?;
            Ok(ShellOutput::Check(Box::new(syntax::check(&text))))
        }
        ShellCommand::Explain { command } => {
            let cwd = ctx.base_dir().unwrap_or_else(|_| PathBuf::from("."));
            let text = command.shell_line();
            let mut e = explain::explain(&text, &cwd)?;
            (e.estimate, e.no_estimate) = crate::estimate::estimate_in(&text, &cwd);
            Ok(ShellOutput::Explain(Box::new(e)))
        }
        ShellCommand::Perf { session, last } => run_perf(session.as_deref(), *last, ctx),
        ShellCommand::Compare { baseline, command, iterations, warmup } => {
            let cwd = std::env::current_dir().map_err(|e| AideError::io(".", &e))?;
            Ok(ShellOutput::Compare(Box::new(compare::compare(&cwd, baseline, command, *iterations, *warmup, ctx)?)))
        }
    }
}

//! The command-line harness every tool runs through.
//!
//! A tool implements [`Tool`]: a typed request (its flags, which also
//! deserialise from a JSON `--request`), a typed output, and one function from
//! the first to the second. [`main`] does the rest the same way for every
//! tool: common flags, `--schema`, request parsing, the [`Context`] (Ctrl-C
//! raising its cancellation flag where the tool allows), the envelope,
//! formats, errors and exit codes, panics, broken pipes and the execution log.

mod emit;

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};

use clap::parser::ValueSource;
use clap::{Args, Command, FromArgMatches};
use serde_json::Value;

use crate::error::CliError;
use crate::invoke::{RunLog, install_panic_hook, run_tool};
use aide_core::color::ColorChoice;
use aide_core::envelope::{Diagnostic, Format, Stdout, stderr_line, to_json_string, with_type};
use aide_core::error::{AideError, ExitStatus};
pub use aide_core::tool::{Context, Outcome, Render, Tool};

/// Flags every tool has. Not part of the request.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommonArgs {
    /// Print one JSON document (built whole: its memory is its own size; --jsonl streams).
    #[arg(long, global = true, conflicts_with = "jsonl")]
    pub json: bool,
    /// Print one JSON record per line, then a summary record (search and definitions stream them as found, in bounded memory).
    #[arg(long, global = true)]
    pub jsonl: bool,
    /// Indent JSON (implies --json).
    #[arg(long, global = true)]
    pub pretty: bool,
    /// Read the request as JSON from FILE (`-` for stdin) instead of flags.
    #[arg(long, value_name = "FILE")]
    pub request: Option<String>,
    /// Print the JSON Schema of the request and the output, then exit.
    #[arg(long)]
    pub schema: bool,
    /// Do not record this run in the execution log (also: AIDE_LOG=off).
    #[arg(long, global = true)]
    pub no_log: bool,
    /// Text mode: print no warnings on stderr (--json lists them all).
    #[arg(long, global = true)]
    pub quiet: bool,
    /// Colour text output (auto: on a terminal, unless NO_COLOR is set)
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print a shell completion script or the man page, then exit.
    #[arg(long, value_enum, value_name = "KIND")]
    pub generate: Option<Generate>,
}

/// What `--generate` prints (ripgrep's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Generate {
    CompleteBash,
    CompleteZsh,
    CompleteFish,
    CompletePowershell,
    Man,
}

/// The clap definition of `T`'s command line: its flags, the common ones,
/// and its subcommands.
pub fn command_of<T: Tool>() -> Command {
    let cmd = CommonArgs::augment_args(Command::new(T::NAME).version(T::VERSION).about(T::ABOUT));
    // The request struct's doc comment would otherwise replace the tool's description.
    let cmd = T::Request::augment_args(cmd).about(T::ABOUT);
    match T::AFTER_HELP {
        Some(text) => cmd.after_help(text),
        None => cmd,
    }
}

/// The kind `--generate KIND` (or `--generate=KIND`) asks for, if given
/// before any `--`.
fn generate_requested(words: &[String]) -> Option<Result<Generate, AideError>> {
    use clap::ValueEnum;
    let value = raw_flag_values(words, "--generate").next()?.unwrap_or_default();
    Some(Generate::from_str(value, false).map_err(|_| {
        let kinds: Vec<String> = Generate::value_variants()
            .iter()
            .filter_map(|k| k.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        CliError::UnknownGenerateKind { value: value.to_string(), kinds }.into()
    }))
}

/// Writes `kind` for `T` (a completion script, or the roff man page).
pub fn generate<T: Tool>(kind: Generate, out: &mut dyn Write) -> io::Result<()> {
    use clap_complete::Shell;
    let mut cmd = command_of::<T>().subcommands(T::outside_subcommands());
    let shell = match kind {
        Generate::CompleteBash => Shell::Bash,
        Generate::CompleteZsh => Shell::Zsh,
        Generate::CompleteFish => Shell::Fish,
        Generate::CompletePowershell => Shell::PowerShell,
        Generate::Man => return clap_mangen::Man::new(cmd).render(out),
    };
    clap_complete::generate(shell, &mut cmd, T::NAME, out);
    Ok(())
}

impl CommonArgs {
    pub fn format(&self) -> Format {
        if self.jsonl {
            Format::Jsonl
        } else if self.json || self.pretty {
            Format::Json { pretty: self.pretty }
        } else {
            Format::Text
        }
    }
}

/// Runs `T` on the process arguments and exits with its status.
///
/// Every binary is also the helper that enters a sandbox (`TOOL
/// __aide_sandbox …`: whatever tool starts a sandboxed process starts it
/// through its own executable), and whatever the tool serves outside the
/// harness ([`Tool::outside_harness`]); both are looked for first, before
/// any thread starts.
pub fn main<T: Tool>() -> ! {
    if let Some(status) = aide_gate::sandbox::run_internal_command().or_else(T::outside_harness) {
        std::process::exit(status);
    }
    let status = run::<T>(std::env::args_os().collect());
    std::process::exit(status.code())
}

/// The `--color` choice from the raw arguments, before flags parse, so a
/// usage error is coloured as asked too; Auto when absent or unknown.
fn guess_color(argv: &[String]) -> ColorChoice {
    use clap::ValueEnum;
    raw_flag_values(argv, "--color")
        .filter_map(|v| ColorChoice::from_str(v?, false).ok())
        .last()
        .unwrap_or(ColorChoice::Auto)
}

/// The value of each `FLAG VALUE` or `FLAG=VALUE` among the raw arguments
/// before any `--` (None: `FLAG` ended the line), read before clap parses.
fn raw_flag_values<'a>(argv: &'a [String], flag: &'a str) -> impl Iterator<Item = Option<&'a str>> {
    let mut words = argv.iter().skip(1).take_while(|w| *w != "--");
    std::iter::from_fn(move || {
        loop {
            let w = words.next()?;
            if w == flag {
                return Some(words.next().map(String::as_str));
            }
            if let Some(v) = w.strip_prefix(flag).and_then(|rest| rest.strip_prefix('=')) {
                return Some(Some(v));
            }
        }
    })
}

/// Guesses the format from the raw arguments, before flags parse, so even
/// a usage error is JSON for a harness that asked for JSON.
fn guess_format(argv: &[String]) -> Format {
    if argv.iter().any(|a| a == "--jsonl") {
        Format::Jsonl
    } else if argv.iter().any(|a| a == "--json" || a == "--pretty") {
        Format::Json { pretty: argv.iter().any(|a| a == "--pretty") }
    } else {
        Format::Text
    }
}

/// Prints a failure in the run's format and logs it; returns the exit status.
fn fail(run: &mut RunLog, format: Format, out: &mut Stdout, err: &AideError) -> ExitStatus {
    let status = err.exit_status();
    stderr_line(&format!("{}: {err}", run.tool));
    let doc = run.error_document(err);
    let compact = doc.to_string();
    match format {
        Format::Text => {}
        Format::Json { pretty: true } => {
            let text = to_json_string(&doc, true).unwrap_or_else(|_| compact.clone());
            let _ = out.write_str(&(text + "\n"));
        }
        Format::Json { pretty: false } => {
            let _ = out.write_str(&format!("{compact}\n"));
        }
        Format::Jsonl => {
            let line = with_type("error", doc);
            let _ = out.write_str(&format!("{line}\n"));
        }
    }
    run.record(status, false, Some(err.code.name), compact);
    status
}

/// Parses the command line for `T`; Ok(None) means help or version was
/// printed and the process should exit 0.
fn parse_cli<T: Tool>(argv: &[OsString]) -> Result<Option<(CommonArgs, clap::ArgMatches)>, AideError> {
    let mut cmd = command_of::<T>();
    // With --schema or --request the request's own required
    // flags and subcommands are not on the command line: parse leniently.
    if argv.iter().any(|a| {
        let a = a.to_string_lossy();
        a == "--schema" || a == "--request" || a.starts_with("--request=")
    }) {
        cmd = cmd.ignore_errors(true);
    }
    let matches = match cmd.try_get_matches_from_mut(argv) {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = Stdout::new().write_str(&e.render().to_string());
                return Ok(None);
            }
            return Err(clap_error(&e));
        }
    };
    let common = CommonArgs::from_arg_matches(&matches).map_err(|e| clap_error(&e))?;
    Ok(Some((common, matches)))
}

/// A clap error as `invalid_arguments`.
/// The message keeps what clap lists under its first line (the missing
/// required arguments); clap's `tip:` (a did-you-mean) becomes the hint.
pub fn clap_error(e: &clap::Error) -> AideError {
    let rendered = e.render().to_string();
    let mut lines = rendered.lines();
    let mut message = lines.next().unwrap_or("invalid arguments").trim_start_matches("error: ").to_string();
    let mut tips = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip.to_string());
        } else if !line.is_empty() {
            message = format!("{} {line}", message.trim_end_matches(':').to_string() + ":");
        }
    }
    tips.push("see --help for the flags".into());
    CliError::Clap { message, tips }.into()
}

/// Builds the request from flags, or from `--request` (then no request flag
/// may be given).
fn build_request<T: Tool>(
    common: &CommonArgs,
    matches: &clap::ArgMatches,
) -> Result<(T::Request, Vec<Diagnostic>), AideError> {
    let Some(source) = &common.request else {
        return T::Request::from_arg_matches(matches).map(|r| (r, Vec::new())).map_err(|e| clap_error(&e));
    };
    let probe = T::Request::augment_args(Command::new("probe"));
    let mut given = Vec::new();
    let mut overrides = serde_json::Map::new();
    for arg in probe.get_arguments() {
        let id = arg.get_id().as_str();
        if matches.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        if T::OUTPUT_FLAGS.contains(&id) {
            let value = if matches!(arg.get_action(), clap::ArgAction::SetTrue) {
                Value::Bool(matches.get_flag(id))
            } else {
                let raw = matches.get_raw(id).and_then(|mut v| v.next()).map(|v| v.to_string_lossy().into_owned());
                raw.map(|r| serde_json::from_str(&r).unwrap_or(Value::String(r))).unwrap_or(Value::Null)
            };
            overrides.insert(id.to_string(), value);
        } else {
            given.push(arg.get_long().map(|l| format!("--{l}")).unwrap_or_else(|| id.to_string()));
        }
    }
    if let Some(sub) = matches.subcommand_name() {
        given.push(format!("the subcommand `{sub}`"));
    }
    if !given.is_empty() {
        return Err(CliError::RequestWithFlags { given, output_flags: T::OUTPUT_FLAGS }.into());
    }
    let text = aide_core::request::read_request_source(source)?;
    if overrides.is_empty() {
        return aide_core::request::parse_request::<T::Request>(&text, T::REQUEST_ALIASES);
    }
    let mut value = aide_core::request::parse_request_value(&text)?;
    if let Value::Object(map) = &mut value {
        map.extend(overrides);
    }
    aide_core::request::request_from_value::<T::Request>(value, T::REQUEST_ALIASES)
}

/// Runs `T` on `argv` and returns the exit status.
pub fn run<T: Tool>(argv: Vec<OsString>) -> ExitStatus {
    install_panic_hook();
    if T::TUNE_ALLOCATOR {
        aide_gate::process::tune_allocator();
    }
    let mut out = Stdout::new();
    let words: Vec<String> = argv.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let mut format = guess_format(&words);
    aide_core::envelope::set_stderr_color(guess_color(&words).for_stderr());
    let generate_kind = generate_requested(&words);
    let logging = !words.iter().any(|a| a == "--no-log") && !aide_log::disabled_by_env();
    let span = crate::telemetry::RunSpan::for_command_line(T::NAME, T::OPERATIONS, &words);
    let mut run = RunLog::new(T::NAME, T::VERSION, words, logging);
    run.span = span;

    // --generate stands alone: the tool's own required flags need not be given.
    if let Some(kind) = generate_kind {
        return print_generated::<T>(kind, &mut run, format, &mut out);
    }
    let (common, matches) = match parse_cli::<T>(&argv) {
        Ok(Some(p)) => p,
        Ok(None) => return ExitStatus::Success,
        Err(e) => return fail(&mut run, format, &mut out, &e),
    };
    format = common.format();
    run.enabled = run.enabled && !common.no_log && T::LOG;
    run.redact_result = T::REDACT_LOGGED_RESULT;
    let request_flag_given = argv.iter().skip(1).take_while(|a| *a != "--").any(|a| {
        let a = a.to_string_lossy();
        a == "--request" || a.starts_with("--request=")
    });
    if request_flag_given && common.request.is_none() {
        let e = CliError::RequestAfterSubcommand { tool: T::NAME }.into();
        return fail(&mut run, format, &mut out, &e);
    }

    if common.schema {
        let doc = aide_core::request::schema_document::<T::Request, T::Output>(T::NAME, T::VERSION);
        let text = to_json_string(&doc, true).unwrap_or_default();
        let _ = out.write_str(&(text + "\n"));
        return ExitStatus::Success;
    }

    let request = match build_request::<T>(&common, &matches) {
        Ok((request, notes)) => {
            // Old names the request used: said in the run's diagnostics.
            run.diagnostics.extend(notes);
            request
        }
        Err(e) => return fail(&mut run, format, &mut out, &e),
    };

    let (ctx, progress_line) = command_line_context::<T>(&run, format, &common);
    let result = run_tool::<T, _>(&mut run, request, ctx, |ctx, run, request| {
        ctx.logged = run.enabled;
        Interruptible::arm::<T>(ctx, request)
    });
    if let Some(line) = &progress_line {
        line.stop();
    }
    let output = match result {
        Ok(output) => output,
        Err(e) => return fail(&mut run, format, &mut out, &e),
    };

    let status = output.exit_status();
    match emit::emit(&mut run, format, (common.color, common.quiet), &mut out, &output, status) {
        Ok(()) => status,
        Err(e) => {
            stderr_line(&format!("{}: {e}", T::NAME));
            e.exit_status()
        }
    }
}

/// `--generate`'s script or man page printed, or why it could not be.
fn print_generated<T: Tool>(
    kind: Result<Generate, AideError>,
    run: &mut RunLog,
    format: Format,
    out: &mut Stdout,
) -> ExitStatus {
    let mut text = Vec::new();
    let done = kind.and_then(|kind| generate::<T>(kind, &mut text).map_err(|e| CliError::Generate(e).into()));
    match done {
        Ok(()) => {
            let _ = out.write_str(&String::from_utf8_lossy(&text));
            ExitStatus::Success
        }
        Err(e) => fail(run, format, out, &e),
    }
}

/// The context a command-line run gives its tool: a progress line on
/// stderr for a person waiting at a terminal (returned, to be stopped when
/// the tool ends), and live output where the format streams.
fn command_line_context<T: Tool>(
    run: &RunLog,
    format: Format,
    common: &CommonArgs,
) -> (Context, Option<std::sync::Arc<aide_core::progress::ProgressLine>>) {
    let mut ctx = Context::new(run.execution_id.clone()).with_format(format);
    // A person waiting at a terminal sees long work progress on stderr.
    let progress_line = (format == Format::Text && !common.quiet && io::stderr().is_terminal())
        .then(|| aide_core::progress::ProgressLine::new(T::NAME));
    if let Some(line) = &progress_line {
        ctx = ctx.with_progress(line.sink());
    }
    ctx.prepared_records = format == (Format::Json { pretty: false });
    ctx.reads_stdin = common.request.as_deref() != Some("-");
    if matches!(format, Format::Text | Format::Jsonl) {
        let mut live = aide_core::tool::Live::new(Box::new(io::stdout()), common.color.for_stdout());
        if let Some(line) = &progress_line {
            live = live.with_progress_line(line.clone());
        }
        ctx = ctx.with_live(live);
    }
    (ctx, progress_line)
}

/// What a command-line run does while the tool works, undone when it
/// ends: Ctrl-C and TERM raise the run's cancellation flag (the run ends
/// `cancelled`, printed and logged) instead of killing the process, where
/// the tool allows it, and a watchdog ends a run that does not see the flag
/// within a second.
struct Interruptible {
    handlers: Vec<signal_hook::SigId>,
    _watchdog: Option<aide_gate::process::Watchdog>,
}

impl Interruptible {
    fn arm<T: Tool>(ctx: &Context, request: &T::Request) -> Interruptible {
        let handlers: Vec<_> = if T::cancel_on_interrupt(request) {
            [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM]
                .into_iter()
                .filter_map(|sig| signal_hook::flag::register(sig, ctx.cancel.flag().clone()).ok())
                .collect()
        } else {
            Vec::new()
        };
        let watchdog = (!handlers.is_empty()).then(|| {
            aide_gate::process::Watchdog::start(ctx.cancel.flag().clone(), std::time::Duration::from_secs(1), T::NAME)
        });
        if let Some(ms) = std::env::var("AIDE_TEST_STALL_MS").ok().and_then(|v| v.parse().ok()) {
            // Test hook: a run that looks at nothing for this long (the watchdog test).
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        Interruptible { handlers, _watchdog: watchdog }
    }
}

impl Drop for Interruptible {
    fn drop(&mut self) {
        for id in self.handlers.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn raw_flags_are_read_in_both_spellings_and_never_after_the_double_dash() {
        let argv = words("tool --color never --json --color=always -- --color auto");
        let values: Vec<Option<&str>> = raw_flag_values(&argv, "--color").collect();
        assert_eq!(values, vec![Some("never"), Some("always")]);
        assert_eq!(guess_color(&argv), ColorChoice::Always);
        // A flag that ends the line has no value; a longer flag is another flag.
        let argv = words("tool --colorful x --generate");
        assert_eq!(raw_flag_values(&argv, "--color").count(), 0);
        assert_eq!(raw_flag_values(&argv, "--generate").collect::<Vec<_>>(), vec![None]);
        assert!(generate_requested(&argv).is_some_and(|r| r.is_err()));
        assert_eq!(guess_color(&words("tool --color bogus")), ColorChoice::Auto);
    }
}

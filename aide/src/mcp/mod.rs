//! # `aide mcp`: every aide tool over the Model Context Protocol (stdio)
//!
//! One MCP tool per operation of the [catalogue](crate::catalogue), named and
//! described there, annotated with its effects (`readOnlyHint`,
//! `destructiveHint`, `idempotentHint`, `openWorldHint`). A call runs the
//! tool's library function in this process ([`aide_harness::invoke`]), never a
//! subprocess, and is logged like a command-line run, its MCP request id
//! recorded as the run's `origin` (`mcp:<id>`).
//!
//! Wire format of a call's result:
//!
//! * `structuredContent` (`--structured compact`, the default): the tool's
//!   document made compact for a model ([`structured`]): no envelope, no
//!   empty values, records in files grouped by file with each file's
//!   checksum once, no ids, byte spans or timings; `detail: "full"` (an
//!   argument every tool takes) gives the whole document. With `--structured
//!   full`, the tool's JSON document exactly as `--json` prints it (the
//!   envelope, or the error envelope with `code`, `message`, `hint`,
//!   `details`); `isError` is true for the latter. The tool's `outputSchema`
//!   is the schema of what the mode gives; with `--structured off` there is
//!   neither, and every client shows the text.
//! * `content`: one text block, the tool's compact text form (or
//!   `tool: error[code]: message` and its hint).
//! * A result larger than the call's budget (`max_output_chars`, default
//!   40,000) is paged by its records: the document carries
//!   `page: {records, offset, count, total, next_offset}` and the same call
//!   with `page_offset` continues it.
//!
//! Arguments that do not fit the operation's `inputSchema` (an unknown
//! field, a wrong type) and unknown tools are JSON-RPC `invalid_params`
//! errors naming the field and the closest valid name.
//!
//! Roots: calls run in `--root` (default: the working directory). A client
//! that offers MCP roots confines every call's `root` and `cwd` to them (the
//! first is the default), re-read after `notifications/roots/list_changed`.
//!
//! Nothing but protocol messages is written to stdout; warnings go to stderr.

mod binding;
mod compact;
mod page;
pub(crate) mod policy;
mod server;
mod structured;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use llm_search::indexed::Indexing;

use aide_core::ExitStatus;
use aide_core::envelope::{Stdout, stderr_line};
use clap::Parser;
use rmcp::ServiceExt;

use aide_core::operation::Group;

pub(crate) use server::{AideServer, ServerOptions};
pub(crate) use structured::Structured;

/// The tool definitions of the operations in `groups`, in `format`, from
/// the schemas the server serves (the whole schemas when `full`).
pub(crate) fn tool_definitions(
    format: crate::request::DefinitionFormat,
    groups: &[Group],
    full: bool,
) -> Result<Vec<serde_json::Value>, aide_core::AideError> {
    use crate::request::DefinitionFormat;
    use serde_json::json;
    let tools = server::catalogue_tools(groups, full, Structured::default()).map_err(aide_core::AideError::internal)?.1;
    tools
        .into_iter()
        .map(|tool| {
            let mcp = serde_json::to_value(&tool).map_err(|e| aide_core::AideError::internal(e.to_string()))?;
            Ok(match format {
                DefinitionFormat::Mcp => mcp,
                DefinitionFormat::Openai => json!({
                    "type": "function",
                    "function": {
                        "name": mcp["name"],
                        "description": mcp["description"],
                        "parameters": mcp["inputSchema"],
                    }
                }),
                DefinitionFormat::Anthropic => json!({
                    "name": mcp["name"],
                    "description": mcp["description"],
                    "input_schema": mcp["inputSchema"],
                }),
            })
        })
        .collect()
}

/// How long in-flight calls get to finish once the client is gone (a
/// transform's commit is never cut short by the cancellation flag).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// `aide mcp`: serve every aide tool over MCP on stdin/stdout.
#[derive(Debug, Parser)]
#[command(name = "aide mcp", version, about = "Serve every aide tool over the Model Context Protocol on stdin/stdout.")]
pub(crate) struct McpArgs {
    /// The root calls run in when the client offers no MCP roots (default: the working directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The most characters of result one call returns before it pages (a call may ask for more).
    #[arg(long, value_name = "N", default_value_t = page::DEFAULT_BUDGET as u64,
          value_parser = clap::value_parser!(u64).range(page::MIN_BUDGET as u64..))]
    pub max_output_chars: u64,
    /// Do not record calls in the execution log (also: AIDE_LOG=off).
    #[arg(long)]
    pub no_log: bool,
    /// The toolsets to serve, comma-separated: `all`, or the groups `aide
    /// tools` shows (a harness with its own shell leaves out shell,jobs).
    #[arg(long, value_name = "GROUPS", value_delimiter = ',', default_value = "all", value_parser = crate::catalogue::toolset_names())]
    pub tools: Vec<String>,
    /// The sandbox every command a call runs is in (shell and job commands,
    /// verify commands, checkers, hooks, language servers): `--sandbox`
    /// (default workspace-write: writes beneath the call's root and a
    /// private temporary directory) and `--network` (default on). A call
    /// cannot choose its own.
    #[command(flatten)]
    pub sandbox: aide_gate::sandbox::SandboxArgs,
    /// Which tools calls may use: `gated` (all, the default) or `auto` (the
    /// read-only ones that stay on this machine; the others are refused
    /// with `not_allowed`).
    #[arg(long, value_enum, value_name = "auto|gated")]
    pub allow: Option<policy::Allow>,
    /// `gated`: where --allow auto refuses a tool, ask the user instead
    /// (MCP elicitation), when the client can ask.
    #[arg(long, value_enum, value_name = "gated")]
    pub confirm: Option<policy::Confirm>,
    /// The highest risk of any command line a call sends to a shell
    /// (shell_exec, term_start, transform's verify_command, shell_compare,
    /// jobs_spawn, variables set for later commands): a call may ask for a
    /// lower one, never a higher. Below critical, term_send is refused
    /// (what a terminal's program reads may run anything).
    #[arg(long, value_enum, value_name = "RISK")]
    pub max_risk: Option<llm_shell::explain::Risk>,
    /// At most this many calls a second (`N/s`) or minute (`N/m`); more are
    /// refused with `rate_limited` and when to call again.
    #[arg(long, value_name = "N/s")]
    pub rate: Option<policy::Rate>,
    /// Stop a call that runs longer than this many seconds (`timeout`).
    #[arg(long, value_name = "SECONDS")]
    pub call_timeout: Option<f64>,
    /// What a result's structured content is: `compact` (made for a model;
    /// a call's `detail: "full"` gives the whole document), `full` (the
    /// document as `--json` prints it) or `off` (none, and no output
    /// schemas: every client shows the text).
    #[arg(long, value_enum, value_name = "MODE", default_value = "compact")]
    pub structured: Structured,
    /// Trigram indexes of the trees searched, kept for the server's
    /// lifetime: `auto` (the default: trees of 2,000 files or more, built in
    /// the background after their first search), `always` (every tree,
    /// built before its first search answers) or `off`. Also: AIDE_INDEX.
    #[arg(long, value_name = "off|auto|always", value_parser = ["off", "auto", "always"])]
    pub index: Option<String>,
}

/// The policy: each flag, else aide.toml's value (checked as the flag would be).
fn policy_of(args: &McpArgs, config: &aide_config::Config) -> Result<policy::PolicyOptions, aide_core::AideError> {
    use clap::ValueEnum;
    fn parsed<T>(
        key: &'static str,
        value: &Option<String>,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, aide_core::AideError> {
        value
            .as_deref()
            .map(|v| {
                parse(v).map_err(|why| crate::error::McpError::ConfigValue { key, value: v.to_string(), why }.into())
            })
            .transpose()
    }
    let allow = match args.allow {
        Some(a) => a,
        None => parsed("allow", &config.allow.value, |v| policy::Allow::from_str(v, true))?.unwrap_or_default(),
    };
    let confirm = match args.confirm {
        Some(c) => Some(c),
        None => parsed("confirm", &config.confirm.value, |v| policy::Confirm::from_str(v, true))?,
    };
    let max_risk = match args.max_risk {
        Some(r) => Some(r),
        None => parsed("max_risk", &config.max_risk.value, |v| llm_shell::explain::Risk::from_str(v, true))?,
    };
    let rate = match args.rate {
        Some(r) => Some(r),
        None => parsed("rate", &config.rate.value, |v| v.parse::<policy::Rate>())?,
    };
    // A flag past what a Duration holds, or not above 0, is refused here:
    // it panicked (1e300) or was silently no limit (0).
    aide_core::request::check_timeout("--call-timeout", args.call_timeout)?;
    let call_timeout = args.call_timeout.or(config.call_timeout.value);
    Ok(policy::PolicyOptions {
        allow,
        confirm,
        max_risk,
        rate,
        call_timeout: call_timeout.filter(|s| s.is_finite() && *s > 0.0).map(Duration::from_secs_f64),
    })
}

/// The groups `names` name, in catalogue order, each once; `all` (or none)
/// is every group.
pub(crate) fn groups(names: &[String]) -> Result<Vec<Group>, aide_core::AideError> {
    use clap::ValueEnum;
    let all = Group::value_variants();
    if names.is_empty() || names.iter().any(|n| n == "all") {
        return Ok(all.to_vec());
    }
    if let Some(unknown) = names.iter().find(|n| !all.iter().any(|g| g.name() == n.as_str())) {
        return Err(crate::error::AideToolError::UnknownToolset { given: unknown.clone() }.into());
    }
    Ok(all.iter().copied().filter(|g| names.iter().any(|n| n == g.name())).collect())
}

/// The protocol's own handle on stdout, with fd 1 itself pointed at stderr:
/// whatever else would write to stdout (a library, a child that inherits
/// it) lands on stderr and cannot corrupt the JSON-RPC stream.
fn protocol_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    // Close-on-exec: children (job supervisors outlive the server) must not
    // hold the client's pipe open.
    let protocol = rustix::io::fcntl_dupfd_cloexec(std::io::stdout().as_fd(), 3)?;
    rustix::stdio::dup2_stdout(std::io::stderr().as_fd())?;
    Ok(std::fs::File::from(protocol))
}

/// Runs `aide mcp` with `argv` (`aide mcp …`) until the client closes stdin.
pub(crate) fn main(argv: Vec<OsString>) -> ExitStatus {
    let (options, indexing) = match server_options(&argv) {
        Ok(options) => options,
        Err(status) => return status,
    };
    // Every process a tool starts for a call (a checker, a verify command,
    // a hook, a language server) runs in the server's sandbox too.
    aide_gate::impose(options.sandbox);
    let server = match AideServer::new(options) {
        Ok(server) => server,
        Err(e) => {
            stderr_line(&format!("aide mcp: internal error binding the tools: {e}"));
            return ExitStatus::Runtime;
        }
    };
    aide_harness::invoke::install_panic_hook();
    // The server's advantage: parsed files stay parsed between calls.
    llm_ast_search::keep_parsed_files(None);
    // And language servers stay warm, one per root and command, for the server's lifetime.
    llm_ast_search::lsp::keep_servers();
    // And large trees are indexed: a repeated search reads only the files that can match.
    llm_search::indexed::keep_indexes(indexing);
    serve_stdio(server)
}

/// The server's options from its flags and aide.toml; a refusal is said on
/// stderr and its exit status returned.
fn server_options(argv: &[OsString]) -> Result<(ServerOptions, Indexing), ExitStatus> {
    use clap::{CommandFactory, FromArgMatches};
    let parsed = McpArgs::command()
        .bin_name("aide mcp")
        .try_get_matches_from(argv.iter().skip(1))
        .and_then(|m| McpArgs::from_arg_matches(&m));
    let args = match parsed {
        Ok(args) => args,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = Stdout::new().write_str(&e.render().to_string());
                return Err(ExitStatus::Success);
            }
            stderr_line(&format!("aide mcp: {}", aide_harness::cli::clap_error(&e)));
            return Err(ExitStatus::InvalidInput);
        }
    };
    let root = match args.root.clone().map_or_else(std::env::current_dir, Ok).and_then(|r| r.canonicalize()) {
        Ok(root) if root.is_dir() => root,
        Ok(root) => {
            stderr_line(&format!("aide mcp: --root {} is not a directory", root.display()));
            return Err(ExitStatus::InvalidInput);
        }
        Err(e) => {
            stderr_line(&format!("aide mcp: the root cannot be opened: {e}"));
            return Err(ExitStatus::InvalidInput);
        }
    };
    let groups = match groups(&args.tools) {
        Ok(groups) => groups,
        Err(e) => {
            stderr_line(&format!("aide mcp: {e}"));
            return Err(ExitStatus::InvalidInput);
        }
    };
    // What the flags do not say, aide.toml does (the root's, then the user's).
    let (config, policy) = match aide_config::load(&root).and_then(|c| {
        let p = policy_of(&args, &c)?;
        Ok((c, p))
    }) {
        Ok(both) => both,
        Err(e) => {
            stderr_line(&format!("aide mcp: {e}"));
            return Err(ExitStatus::InvalidInput);
        }
    };
    let index = args.index.clone().or_else(|| std::env::var("AIDE_INDEX").ok());
    let Some(indexing) = index.as_deref().map_or(Some(Indexing::Auto), Indexing::parse) else {
        stderr_line("aide mcp: AIDE_INDEX must be off, auto or always");
        return Err(ExitStatus::InvalidInput);
    };
    let baseline = aide_gate::sandbox::SandboxUsed {
        mode: aide_gate::sandbox::SandboxMode::WorkspaceWrite,
        network: aide_gate::sandbox::Network::On,
    };
    let options = ServerOptions {
        root,
        budget: usize::try_from(args.max_output_chars).unwrap_or(usize::MAX),
        log: !args.no_log,
        groups,
        sandbox: args.sandbox.or(config.sandbox_over(baseline)),
        policy,
        structured: args.structured,
    };
    Ok((options, indexing))
}

/// Serves MCP over stdin and the protocol's stdout until the client goes,
/// then stops what still runs.
fn serve_stdio(server: AideServer) -> ExitStatus {
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            stderr_line(&format!("aide mcp: cannot start the runtime: {e}"));
            return ExitStatus::Runtime;
        }
    };
    let protocol_out = match protocol_stdout() {
        Ok(out) => out,
        Err(e) => {
            stderr_line(&format!("aide mcp: cannot set up stdout: {e}"));
            return ExitStatus::Runtime;
        }
    };
    /// The largest JSON-RPC message read: a request document's limit, with room for the envelope.
    const MAX_MESSAGE_BYTES: usize = (aide_core::request::MAX_REQUEST_BYTES as usize) + (1 << 20);
    let served = runtime.block_on(async {
        // A message as large as a `--request` document (64 MiB) is read and
        // answered; rmcp's default (16 MiB) dropped a larger one unanswered,
        // leaving the client waiting. One past this still is (JSON-RPC gives
        // no id to answer before the message is read): CONTRACT says so.
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
            tokio::io::stdin(),
            tokio::fs::File::from_std(protocol_out),
        )
        .with_max_line_length(MAX_MESSAGE_BYTES);
        let running = server.clone().serve(transport).await.map_err(|e| e.to_string())?;
        running.waiting().await.map_err(|e| e.to_string())
    });
    // The client is gone: stop what is still running, give it a moment.
    server.cancel_all();
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    llm_ast_search::lsp::release_servers();
    match served {
        Ok(_) => ExitStatus::Success,
        Err(e) => {
            stderr_line(&format!("aide mcp: {e}"));
            ExitStatus::Runtime
        }
    }
}

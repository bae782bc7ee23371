//! The MCP server: rmcp's `ServerHandler` over the bound operations.
//!
//! Each `tools/call` runs on a blocking thread of its own (a slow
//! `jobs_wait` never holds up a `search`), with a cancellation flag raised
//! by `notifications/cancelled` and, when the client sent a progress token,
//! a progress sink throttled to one notification per 100 ms.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aide_core::operation::{Gate, Group};
use aide_core::tool::{Cancel, Progress, ProgressSink};
use aide_core::{AideError, Root};
use aide_harness::invoke::{Call, StopReason};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

use super::binding::{self, Binding, MAX_OUTPUT_CHARS, PAGE_OFFSET};
use super::page::{MIN_BUDGET, PageRequest, Shaped};
use super::structured::{Detail, Structured};
use crate::catalogue::operations;
use crate::error::AideToolError;

/// The least time between two progress notifications of one call.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// How the server was started.
#[derive(Debug, Clone)]
pub(crate) struct ServerOptions {
    /// The root calls run in when the client offers no roots (canonical).
    pub root: PathBuf,
    /// The default output budget of a call, in characters.
    pub budget: usize,
    /// Whether calls are recorded in the execution log.
    pub log: bool,
    /// The toolsets served.
    pub groups: Vec<Group>,
    /// The sandbox of every shell and job tool call.
    pub sandbox: aide_gate::sandbox::SandboxUsed,
    /// What calls may do, how fast and how long.
    pub policy: super::policy::PolicyOptions,
    /// What a result's structured content is: compact, full or none.
    pub structured: Structured,
}

/// The aide MCP server.
#[derive(Clone)]
pub(crate) struct AideServer {
    inner: Arc<Inner>,
}

struct Inner {
    options: ServerOptions,
    policy: super::policy::Policy,
    bindings: Bindings,
    tools: Vec<rmcp::model::Tool>,
    /// The server's own root, opened once.
    own_root: Arc<Vec<Root>>,
    /// The client's roots, each opened once as a directory handle that every
    /// call's root is opened beneath; None until asked, and again after
    /// `roots/list_changed`.
    client_roots: tokio::sync::Mutex<Option<Arc<Vec<Root>>>>,
    /// Cancellation flags of the calls running, raised when the client goes.
    running: Mutex<HashMap<u64, Cancel>>,
    next_call: AtomicU64,
}

impl std::fmt::Debug for AideServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AideServer").field("options", &self.inner.options).finish()
    }
}

type Bindings = BTreeMap<&'static str, Arc<Binding>>;

/// The operations of the catalogue in `groups`, each bound to its tool,
/// and their MCP tool definitions (compact, or with the whole schemas when
/// `full`; the output schema of the structured content `structured` says);
/// `Err` names one that does not fit its tool's schema (a build defect,
/// which the tests catch).
pub(crate) fn catalogue_tools(
    groups: &[Group],
    full: bool,
    structured: Structured,
) -> Result<(Bindings, Vec<rmcp::model::Tool>), String> {
    let mut bindings = BTreeMap::new();
    let mut tools = Vec::new();
    for op in operations().filter(|op| groups.contains(&op.group)) {
        let binding = Binding::new(op)?;
        let (input, output) = if full {
            (&binding.full_input_schema, &binding.full_output_schema)
        } else {
            (&binding.input_schema, &binding.output_schema)
        };
        // Each hint only where it differs from MCP's default (readOnly false,
        // destructive true, idempotent false, openWorld true): the same
        // meaning in fewer bytes.
        let mut annotations = ToolAnnotations::new();
        if op.effects.read_only {
            annotations = annotations.read_only(true);
        } else if !op.effects.destructive {
            annotations = annotations.destructive(false);
        }
        if op.effects.idempotent && !op.effects.read_only {
            annotations = annotations.idempotent(true);
        }
        if !op.effects.open_world {
            annotations = annotations.open_world(false);
        }
        // No `title`: a display name a model does not read; the command
        // line it stands for is `aide tools`'.
        let mut tool =
            rmcp::model::Tool::new(op.name, op.description, Arc::new(input.clone())).with_annotations(annotations);
        tool.output_schema = match structured {
            Structured::Off => None,
            Structured::Compact if !full => {
                Some(Arc::new(super::structured::compact_schema(output, &binding.full_output_schema)))
            }
            _ => Some(Arc::new(output.clone())),
        };
        tools.push(tool);
        bindings.insert(op.name, Arc::new(binding));
    }
    Ok((bindings, tools))
}

impl AideServer {
    /// A server for every operation of the catalogue.
    pub(crate) fn new(options: ServerOptions) -> Result<AideServer, String> {
        let (bindings, tools) = catalogue_tools(&options.groups, false, options.structured)?;
        let own_root = Root::new(&options.root).map_err(|e| format!("the server's root: {}", e.message))?;
        let policy = super::policy::Policy::new(options.policy.clone());
        // A tool the policy refuses outright is not offered either.
        let tools = tools
            .into_iter()
            .filter(|t| bindings.get(t.name.as_ref()).is_some_and(|b| policy.lists(b.op.gate() == Gate::Auto)))
            .collect();
        Ok(AideServer {
            inner: Arc::new(Inner {
                policy,
                options,
                bindings,
                tools,
                own_root: Arc::new(vec![own_root]),
                client_roots: tokio::sync::Mutex::new(None),
                running: Mutex::new(HashMap::new()),
                next_call: AtomicU64::new(0),
            }),
        })
    }

    /// Raises the cancellation flag of every call still running (the
    /// client went away).
    pub(crate) fn cancel_all(&self) {
        for cancel in aide_core::sync::lock(&self.inner.running).values() {
            cancel.cancel();
        }
    }

    /// The roots calls may use: the client's when it offers roots, else
    /// the server's own. (Roots are deprecated from protocol 2026-07-28 on,
    /// SEP-2577; clients of the earlier versions, most of them today, still
    /// send them.)
    #[allow(deprecated)]
    async fn allowed_roots(&self, peer: &Peer<RoleServer>) -> Arc<Vec<Root>> {
        let own = || self.inner.own_root.clone();
        let offers_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            return own();
        }
        let mut cached = self.inner.client_roots.lock().await;
        if cached.is_none() {
            match peer.list_roots().await {
                Ok(listed) => {
                    // Each opened now, once: a root swapped for a link later is not followed.
                    let opened = listed
                        .roots
                        .iter()
                        .filter_map(|r| file_uri_path(&r.uri))
                        .filter_map(|p| Root::new(&p).ok())
                        .collect::<Vec<_>>();
                    *cached = Some(Arc::new(opened));
                }
                // A client that offers roots but cannot list them: the server's root.
                Err(_) => return own(),
            }
        }
        match cached.as_ref() {
            Some(roots) if !roots.is_empty() => roots.clone(),
            _ => own(),
        }
    }

    async fn call(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<Shaped, McpError> {
        let name = params.name.as_ref();
        let Some(binding) = self.inner.bindings.get(name) else {
            return Err(self.unknown_tool(name));
        };
        let mut arguments = params.arguments.unwrap_or_default();
        let argv = binding.argv(&arguments);
        let can_ask = context.peer.peer_info().is_some_and(|i| i.capabilities.elicitation.is_some());
        let verdict = match self.inner.policy.judge(name, binding.op.gate() == Gate::Auto, can_ask) {
            super::policy::Verdict::Ask => self.ask_user(name, &arguments, &context.peer).await,
            other => other,
        };
        let (mut page, detail, refusal) = self.page_and_detail(&mut arguments, binding.op.effects.read_only);
        // What the compact result need not repeat.
        let asked = arguments.clone();
        let opened = self.allowed_roots(&context.peer).await;
        let roots: Vec<PathBuf> = opened.iter().map(|r| r.path().to_path_buf()).collect();
        // The compact form is the one sent, and pages are sized on it.
        let compact = self.inner.options.structured == Structured::Compact && detail == Detail::Compact;
        let sent = compact.then(|| super::structured::sent_form(Arc::clone(binding), asked, roots.first().cloned()));
        page.sent = sent.clone();
        let arguments = match (refusal, verdict) {
            (Some(e), _) | (None, super::policy::Verdict::Refuse(e)) => Err(e),
            (None, _) => Ok(arguments),
        };
        // The root and cwd a call names are resolved once, by the run's
        // context, beneath these roots.
        let imposition = super::policy::Imposition {
            tool: binding.op.name,
            sandbox: self.inner.options.sandbox,
            max_risk: self.inner.policy.options.max_risk,
            cwd: roots.first().cloned().unwrap_or_else(|| PathBuf::from(".")),
        };

        let cancel = Cancel::new();
        let call_id = self.inner.next_call.fetch_add(1, Ordering::Relaxed);
        aide_core::sync::lock(&self.inner.running).insert(call_id, cancel.clone());
        let watcher = {
            let (ct, cancel) = (context.ct.clone(), cancel.clone());
            tokio::spawn(async move {
                ct.cancelled().await;
                cancel.cancel();
            })
        };
        let (progress, forwarder) = progress_forwarding(&context);
        let call = Call {
            working_dir: roots.first().cloned(),
            cancel,
            progress,
            log: self.inner.options.log,
            argv,
            origin: Some(format!("mcp:{}", context.id)),
            confine: Some(opened),
            notes: Vec::new(),
            voice: aide_core::voice::Voice::Mcp,
            trace: Some(crate::telemetry::call_trace(name, params.meta.as_ref().unwrap_or(&context.meta))),
            stopped: StopReason::default(),
        };
        let bound = Arc::clone(binding);
        let (stop, stopped) = (call.cancel.clone(), call.stopped.clone());
        let task = tokio::task::spawn_blocking(move || binding::run(&bound, arguments, &imposition, call, &page));
        let result = within_limit(task, &stop, &stopped, self.inner.options.policy.call_timeout).await;
        watcher.abort();
        aide_core::sync::lock(&self.inner.running).remove(&call_id);
        // The sink went with the call: the forwarder drains and ends, so no
        // progress arrives after the result.
        if let Some(forwarder) = forwarder {
            let _ = forwarder.await;
        }
        let mut shaped =
            result.map_err(|join| McpError::internal_error(format!("the call's thread failed: {join}"), None))?;
        if let Some(sent) = sent {
            shaped.structured = sent(std::mem::take(&mut shaped.structured));
        }
        Ok(shaped)
    }

    /// The protocol error for a tool the server does not have, naming the closest.
    fn unknown_tool(&self, name: &str) -> McpError {
        let closest = aide_core::suggest::nearest(name, self.inner.bindings.keys().copied(), 3);
        let named = closest.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
        let message = format!("unknown tool `{name}`; the closest: {named}");
        McpError::invalid_params(message, Some(json!({ "tool": name, "closest": closest })))
    }

    /// The call's paging and detail, taken out of its arguments; a refusal
    /// of either is the call's result (its paging then the server's default).
    fn page_and_detail(
        &self,
        arguments: &mut serde_json::Map<String, serde_json::Value>,
        read_only: bool,
    ) -> (PageRequest, Detail, Option<AideError>) {
        let (mut page, page_refusal) = match self.page_request(arguments, read_only) {
            Ok(page) => (page, None),
            Err(e) => {
                (PageRequest { offset: 0, budget: self.inner.options.budget, repeatable: false, sent: None }, Some(e))
            }
        };
        if self.inner.options.structured == Structured::Off && !page.repeatable {
            // No structured content to hold what the text leaves out: the text comes whole.
            page.budget = usize::MAX;
        }
        let (detail, detail_refusal) = match super::structured::take_detail(arguments) {
            Ok(detail) => (detail, None),
            Err(e) => (Detail::Compact, Some(AideError::from(e))),
        };
        (page, detail, page_refusal.or(detail_refusal))
    }

    /// Asks the user whether the gated call of `tool` may run (MCP
    /// elicitation): runs if they accept and say yes; otherwise refused.
    async fn ask_user(
        &self,
        tool: &str,
        arguments: &Map<String, Value>,
        peer: &rmcp::Peer<RoleServer>,
    ) -> super::policy::Verdict {
        use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
        let shown = serde_json::to_string(arguments).unwrap_or_default();
        let shown: String = shown.chars().take(600).collect();
        let Ok(schema) = ElicitationSchema::builder().required_bool("allow").build() else {
            return super::policy::Verdict::Refuse(AideError::internal("the confirmation form"));
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!("Allow the tool `{tool}` to run with {shown}?"),
            requested_schema: schema,
        };
        match peer.create_elicitation(params).await {
            Ok(answer)
                if answer.action == ElicitationAction::Accept
                    && answer.content.as_ref().and_then(|c| c.get("allow")).and_then(Value::as_bool) == Some(true) =>
            {
                super::policy::Verdict::Run
            }
            Ok(_) => super::policy::Verdict::Refuse(super::policy::not_allowed(tool, "the user declined it")),
            Err(e) => super::policy::Verdict::Refuse(super::policy::not_allowed(
                tool,
                &format!("the user could not be asked ({e})"),
            )),
        }
    }

    /// Takes the paging arguments out of the call's arguments; `Err` is a
    /// value out of range, refused like any argument that does not fit.
    fn page_request(&self, arguments: &mut Map<String, Value>, repeatable: bool) -> Result<PageRequest, AideError> {
        let mut take = |field: &'static str, min: u64| -> Result<Option<usize>, AideError> {
            match arguments.remove(field) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n >= min)
                    .and_then(|n| usize::try_from(n).ok())
                    .map(Some)
                    .ok_or_else(|| AideToolError::PagingArgument { field, min, given: v.to_string() }.into()),
            }
        };
        let offset = take(PAGE_OFFSET, 0)?.unwrap_or(0);
        let budget = take(MAX_OUTPUT_CHARS, MIN_BUDGET as u64)?.unwrap_or(self.inner.options.budget);
        Ok(PageRequest { offset, budget, repeatable, sent: None })
    }
}

/// What the server tells the model once: the tools, the envelope, paging,
/// and the shared vocabulary every tool's fields use.
fn instructions(sandbox: aide_gate::sandbox::SandboxUsed, structured: Structured) -> String {
    let mut text = String::from(
        "aide's tools for code work: search (regex), ast_search and ide_operation (structure: outlines, \
         definitions, references, callers), code_* (from the syntax trees: per-function \
         complexity, duplicated code, imports and exports), read (with checksums), discover (files by name), transform \
         (checksum-guarded, all-or-nothing edits; transform_refactor: the language server's refactors, \
         extract_variable, extract_function, inline, organize_imports; transform_undo and transform_recover \
         take them back), lint (the project's own checkers), git and \
         git_write (status, diff, log, blame; stage, commit, branch), shell_* (persistent sessions, risk \
         explanation), term_* (terminals for interactive programs), jobs_* (background jobs), deps_* \
         (the project's packages from its lock files: list, tree, outdated, audit), log_* (past \
         results by execution_id, per-tool stats). A failed call has \
         `isError` and `error: {code, \
         message, hint, details}`, naming the argument at fault in details.field. Every tool also takes \
         `max_output_chars` (default 40000): a larger result is paged, its document has `page: {records, \
         offset, count, total, next_offset}`, and the same call with `page_offset` = next_offset \
         continues it (read-only tools only: another tool's result comes whole in the structured \
         content, its text cut).\n",
    );
    text.push_str(super::structured::instructions(structured));
    if !sandbox.is_off() {
        text.push_str(&format!(
            "Every command a call runs (shell_*, jobs_*, a transform's verify_command, shell_compare, the \
             checkers of lint and verify, git hooks) runs in the server's sandbox ({sandbox}): a write the \
             sandbox denies fails with `Permission denied` (`Read-only file system` for .git, aide.toml and \
             aide's state), a connection with the network off is refused, and temporary files go to the \
             command's own $TMPDIR (/tmp is not writable).\n"
        ));
    }
    text.push_str(&format!(
        "search, ast_search, code_*, discover and transform's tree operations also take {} (not repeated in their schemas).\n",
        super::binding::WALK_KNOBS.join(", ")
    ));
    text.push_str(&format!(
        "shell_*, term_* and jobs_* tools that show output or an environment also take {}.\n",
        super::binding::REDACT_KNOBS.join(", ")
    ));
    text.push_str("Fields with these names mean the same in every tool:");
    for term in aide_core::vocabulary::TERMS {
        text.push_str(&format!("\n- {}: {}", term.name, term.meaning));
    }
    text
}

/// A progress sink that forwards at most one report per interval, and
/// always the last of a known total.
fn throttled(tx: tokio::sync::mpsc::UnboundedSender<Progress>) -> ProgressSink {
    let last: Mutex<(Option<Instant>, u64)> = Mutex::new((None, 0));
    ProgressSink::new(move |p| {
        let mut last = aide_core::sync::lock(&last);
        let finished = p.total == Some(p.done);
        let due = last.0.is_none_or(|at| at.elapsed() >= PROGRESS_INTERVAL);
        // Progress must increase from one notification to the next.
        if p.done > last.1 && (due || finished) {
            *last = (Some(Instant::now()), p.done);
            let _ = tx.send(p);
        }
    })
}

/// The path of a `file://` URI (percent-decoded), canonical when it exists.
fn file_uri_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host.
    let path = if rest.starts_with('/') { rest } else { rest.strip_prefix("localhost")? };
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            decoded.push(byte);
            i += 3;
            continue;
        }
        decoded.push(bytes[i]);
        i += 1;
    }
    use std::os::unix::ffi::OsStringExt;
    let path = PathBuf::from(std::ffi::OsString::from_vec(decoded));
    Some(path.canonicalize().unwrap_or(path))
}

impl ServerHandler for AideServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("aide", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(self.inner.options.sandbox, self.inner.options.structured))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let shaped = self.call(request, context).await?;
        let mut result = match (self.inner.options.structured, shaped.is_error) {
            (Structured::Off, true) => CallToolResult::error(Vec::new()),
            (Structured::Off, false) => CallToolResult::success(Vec::new()),
            (_, true) => CallToolResult::structured_error(shaped.structured),
            (_, false) => CallToolResult::structured(shaped.structured),
        };
        result.content = vec![ContentBlock::text(shaped.text)];
        Ok(result.into())
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        *self.inner.client_roots.lock().await = None;
    }

    /// A request rmcp could not read as any it knows. For a method it does
    /// know (`tools/call` with a numeric `name`, say) that is a malformed
    /// request, -32602 naming what is wrong; only an unknown method is -32601.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        let rmcp::model::CustomRequest { method, params, .. } = request;
        let known = [
            ("tools/call", "`name` must be a string naming a tool, `arguments` an object"),
            ("tools/list", "`cursor`, if given, must be a string"),
            ("initialize", "`protocolVersion`, `capabilities` and `clientInfo` are required"),
            ("ping", "ping takes no params"),
            ("resources/list", "`cursor`, if given, must be a string"),
            ("prompts/list", "`cursor`, if given, must be a string"),
        ];
        match known.iter().find(|(m, _)| *m == method) {
            Some((_, what)) => Err(McpError::invalid_params(
                format!("the params of {method} do not fit it: {what}"),
                Some(json!({ "method": method, "params": params })),
            )),
            None => Err(McpError::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, method, None)),
        }
    }
}

/// The call's progress sink: forwarded to the client as MCP progress
/// notifications (by the task returned) when it asked for them.
fn progress_forwarding(context: &RequestContext<RoleServer>) -> (ProgressSink, Option<tokio::task::JoinHandle<()>>) {
    match context.meta.get_progress_token() {
        Some(token) => {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
            let peer = context.peer.clone();
            let forwarder = tokio::spawn(async move {
                while let Some(p) = rx.recv().await {
                    let mut note = ProgressNotificationParam::new(token.clone(), p.done as f64);
                    note.total = p.total.map(|t| t as f64);
                    let _ = peer.notify_progress(note).await;
                }
            });
            (throttled(tx), Some(forwarder))
        }
        None => (ProgressSink::default(), None),
    }
}

/// The call's result, or past the operator's `limit` the call stopped as
/// a cancellation is (`stop`), for a reason the run records (`stopped`): it
/// ends as a `timeout`, in its result, its log record and its span (a call
/// that finished before it noticed keeps its result).
async fn within_limit(
    mut task: tokio::task::JoinHandle<Shaped>,
    stop: &Cancel,
    stopped: &StopReason,
    limit: Option<std::time::Duration>,
) -> Result<Shaped, tokio::task::JoinError> {
    let Some(limit) = limit else { return task.await };
    match tokio::time::timeout(limit, &mut task).await {
        Ok(result) => result,
        Err(_) => {
            stopped.stop(stop, super::policy::timed_out(limit));
            task.await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(file_uri_path("file:///tmp/a%20b"), Some(PathBuf::from("/tmp/a b")));
        assert_eq!(file_uri_path("file://localhost/x/y"), Some(PathBuf::from("/x/y")));
        assert_eq!(file_uri_path("https://example.com/x"), None);
        assert_eq!(file_uri_path("file://otherhost/x"), None);
    }

    /// The instructions name every tool of the catalogue, by its name or its
    /// family (`shell_*`), with the sandbox on or off: a tool added to the
    /// catalogue and not to this text fails here.
    #[test]
    fn the_instructions_name_every_operation_of_the_catalogue() {
        for sandbox in [aide_gate::sandbox::SandboxUsed::default(), aide_gate::ambient()] {
            let text = instructions(sandbox, Structured::Compact);
            let named = |word: &str| {
                text.match_indices(word).any(|(at, _)| {
                    let before = text[..at].chars().last().is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_');
                    let after =
                        text[at + word.len()..].chars().next().is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_');
                    before && after
                })
            };
            for op in crate::catalogue::operations() {
                let family = op.name.split_once('_').map(|(head, _)| format!("{head}_*"));
                assert!(
                    named(op.name) || family.as_deref().is_some_and(|f| text.contains(f)),
                    "the MCP instructions do not name {}",
                    op.name
                );
            }
        }
    }
}

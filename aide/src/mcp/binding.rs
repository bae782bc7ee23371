//! How an MCP tool becomes a tool's request: its input schema (the part of
//! the tool's request schema the operation takes), its output schema (the
//! tool's `--json` document), and the wrapping of the call's arguments into
//! the request (`shell_exec {…}` is llm-shell's `{"command": {"exec": {…}}}`).
//!
//! The wrapping is derived from the catalogue: an operation's subcommand
//! words nest under the request's `command` field, then `action`
//! (`llm-shell session new` is `{"command": {"session": {"action": {"new": …}}}}`).

use std::collections::BTreeSet;

use aide_core::AideError;
use aide_core::envelope::Document;
use aide_core::operation::Operation;
use aide_core::request::{request_from_value, schema_property_names};
use aide_core::tool::Tool;
use aide_harness::invoke::{Call, invoke, refuse};
use serde_json::{Map, Value, json};

use super::page::{PageRequest, Shaped, shape};
use super::policy::Imposition;
use crate::catalogue::{ToolFn, with_tool};
use crate::error::McpError;

/// The arguments every MCP tool takes besides its request: how much of the
/// result one call returns.
pub(crate) const PAGE_OFFSET: &str = "page_offset";
pub(crate) const MAX_OUTPUT_CHARS: &str = "max_output_chars";

/// The walking fields every tool that walks the tree takes (search,
/// ast_search, discover, transform's tree operations) besides `glob` and
/// `type`: said once, in the server's instructions, not in each schema.
pub(crate) const WALK_KNOBS: [&str; 5] = ["hidden", "no_ignore", "follow", "max_depth", "max_filesize"];

/// Taken by every tool that shows a command's output or environment
/// (shell_*, term_*, jobs_*): said once, in the server's instructions (a
/// model asks for secrets' values only when it means to).
pub(crate) const REDACT_KNOBS: [&str; 1] = ["no_redact"];

/// The field names of the nesting, level by level.
const NESTING: [&str; 2] = ["command", "action"];

/// An operation bound to its tool's request and output.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    pub op: &'static Operation,
    /// The JSON Schema of the call's arguments (an object schema), compact:
    /// what `tools/list` serves.
    pub input_schema: Map<String, Value>,
    /// The schema of the structured result, compact: its fields, typed.
    pub output_schema: Map<String, Value>,
    /// The same two whole, with every description and definition (for
    /// validators: `aide tools --full-schemas`).
    pub full_input_schema: Map<String, Value>,
    pub full_output_schema: Map<String, Value>,
    /// The argument names the input schema allows.
    pub fields: BTreeSet<String>,
    /// The argument names the compact input schema shows: the known fields
    /// an unknown argument's hint lists (never an old name or a knob the
    /// server sets).
    pub shown: BTreeSet<String>,
    /// Keys the arguments nest under: `["command", "exec"]`.
    path: Vec<&'static str>,
    /// The innermost subcommand takes no fields (`session list`): the
    /// request holds its name as a string.
    unit: bool,
    /// Argument fields that stay at the request's top level (llm-transform's
    /// `root` beside its `undo` subcommand).
    outer: Vec<String>,
    /// An operation over several subcommands (`status|diff|log`): each
    /// one's name, taken from the `command` argument, and the fields it
    /// takes.
    choices: Vec<(&'static str, BTreeSet<String>)>,
}

/// The argument that picks the subcommand of an operation over several.
const CHOICE: &str = "command";

/// The schemas of a tool: request and document.
struct Schemas;

impl ToolFn for Schemas {
    type Out = (Value, Value, &'static [(&'static str, &'static str)]);
    fn call<T: Tool>(self) -> Self::Out {
        let request = serde_json::to_value(schemars::schema_for!(T::Request)).unwrap_or(Value::Null);
        let output = serde_json::to_value(schemars::schema_for!(Document<'static, T::Output>)).unwrap_or(Value::Null);
        (request, output, T::REQUEST_ALIASES)
    }
}

/// One call run through a tool.
struct Run<'a> {
    binding: &'a Binding,
    /// The call's arguments, or why they were refused before the tool saw
    /// them (paging arguments, the operator's policy).
    arguments: Result<Map<String, Value>, AideError>,
    /// What the server imposes on the typed request.
    imposition: &'a Imposition,
    call: Call,
    page: &'a PageRequest,
}

impl ToolFn for Run<'_> {
    type Out = Shaped;
    fn call<T: Tool>(self) -> Shaped {
        let given = || self.arguments.as_ref().ok().and_then(|a| serde_json::to_string(a).ok());
        let request =
            self.arguments.clone().and_then(|arguments| self.binding.typed_request::<T>(arguments, self.imposition));
        let finished = match request {
            Ok((request, notes)) => invoke::<T>(request, Call { notes, ..self.call }),
            Err(e) => refuse::<T>(given(), e, self.call),
        };
        shape(finished, self.page)
    }
}

/// Runs a bound call: the arguments made the tool's request and run
/// through the tool, in this process, logged. Arguments that do not fit
/// (an unknown or missing field, a wrong type) and a refusal are the run's
/// failure, an `isError` result the model reads, never a protocol error.
pub(crate) fn run(
    binding: &Binding,
    arguments: Result<Map<String, Value>, AideError>,
    imposition: &Imposition,
    call: Call,
    page: &PageRequest,
) -> Shaped {
    with_tool(binding.op.tool, Run { binding, arguments, imposition, call, page }).unwrap_or_else(|| Shaped {
        structured: json!({ "ok": false, "error": { "code": "internal", "message": format!("operation {} names an unknown tool {}", binding.op.name, binding.op.tool) } }),
        text: format!("aide: internal error: operation {} names no tool\n", binding.op.name),
        is_error: true,
    })
}

/// Follows `$ref` into `root`'s `$defs`, and an `Option`'s `anyOf [T, null]` into T.
fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..16 {
        node = super::compact::follow(root, node);
        let Some(branches) = node.get("anyOf").and_then(Value::as_array) else { break };
        let mut not_null = branches.iter().filter(|b| !super::compact::is_null_type(b));
        match (not_null.next(), not_null.next()) {
            (Some(only), None) => node = only,
            _ => break,
        }
    }
    node
}

/// The schema of `variant` within the externally tagged enum `enum_schema`:
/// `Some(None)` for a unit variant, `Some(Some(schema))` for one with fields.
fn variant<'a>(root: &'a Value, enum_schema: &'a Value, name: &str) -> Option<Option<&'a Value>> {
    let branches = enum_schema.get("oneOf").or_else(|| enum_schema.get("anyOf")).and_then(Value::as_array)?;
    for branch in branches.iter().map(|b| resolve(root, b)) {
        if let Some(inner) = branch.get("properties").and_then(|p| p.get(name)) {
            return Some(Some(resolve(root, inner)));
        }
        let is_unit = branch.get("const").and_then(Value::as_str) == Some(name)
            || branch.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().any(|v| v == name));
        if is_unit {
            return Some(None);
        }
    }
    None
}

/// The arguments of an operation nested in its tool's request (a
/// subcommand's, or several subcommands' together), and where they sit.
struct Nested {
    input: Value,
    path: Vec<&'static str>,
    unit: bool,
    outer: Vec<String>,
}

/// Follows `op.command` down the request's subcommand enums to the
/// operation's own fields: one subcommand's, or (a word `a|b`) several
/// subcommands' together with `command` naming the one to run (each
/// pushed on `choices` with its fields). The root beside the subcommand
/// joins the arguments.
fn nested_input(
    op: &'static Operation,
    request: &Value,
    choices: &mut Vec<(&'static str, BTreeSet<String>)>,
) -> Result<Nested, String> {
    let mut path = Vec::new();
    let mut node = resolve(request, request);
    let mut unit = false;
    let mut outer = Vec::new();
    let mut merged: Option<Value> = None;
    for (level, word) in op.command.iter().enumerate() {
        let field = NESTING.get(level).ok_or_else(|| format!("{}: nested too deep", op.name))?;
        if level == 0 {
            // The root beside `command` (llm-transform's) applies to the subcommand too.
            outer = schema_property_names(node).into_iter().filter(|f| f == "root").collect();
        }
        let enum_schema = node
            .get("properties")
            .and_then(|p| p.get(*field))
            .map(|s| resolve(request, s))
            .ok_or_else(|| format!("{}: the request has no `{field}`", op.name))?;
        path.push(*field);
        path.push(*word);
        if word.contains('|') {
            merged = Some(merged_choices(op, request, enum_schema, field, word, choices)?);
            break;
        }
        match variant(request, enum_schema, word) {
            Some(Some(inner)) => node = inner,
            Some(None) => {
                unit = true;
                break;
            }
            None => return Err(format!("{}: `{field}` has no variant `{word}`", op.name)),
        }
    }
    let mut input = match merged {
        Some(m) => m,
        None if unit => json!({ "type": "object", "properties": {} }),
        None => node.clone(),
    };
    if let (Some(obj), Some(defs)) = (input.as_object_mut(), request.get("$defs")) {
        obj.insert("$defs".into(), defs.clone());
    }
    // Outer fields join the arguments.
    for field in &outer {
        if let (Some(schema), Some(props)) = (
            resolve(request, request).get("properties").and_then(|p| p.get(field)).cloned(),
            input.get_mut("properties").and_then(Value::as_object_mut),
        ) {
            props.insert(field.clone(), schema);
        }
    }
    Ok(Nested { input, path, unit, outer })
}

/// One input over the subcommands `word` lists (`a|b`): their fields
/// together, and `command` naming the one to run.
fn merged_choices(
    op: &'static Operation,
    request: &Value,
    enum_schema: &Value,
    field: &str,
    word: &'static str,
    choices: &mut Vec<(&'static str, BTreeSet<String>)>,
) -> Result<Value, String> {
    let mut properties = Map::new();
    let names: Vec<&'static str> = word.split('|').collect();
    for name in &names {
        let fields = match variant(request, enum_schema, name) {
            Some(Some(inner)) => inner.get("properties").and_then(Value::as_object).cloned().unwrap_or_default(),
            Some(None) => Map::new(),
            None => return Err(format!("{}: `{field}` has no variant `{name}`", op.name)),
        };
        choices.push((name, fields.keys().cloned().collect()));
        for (k, v) in fields {
            properties.entry(k).or_insert(v);
        }
    }
    properties.insert(CHOICE.into(), json!({ "type": "string", "enum": names }));
    Ok(json!({ "type": "object", "properties": properties, "required": [CHOICE] }))
}

/// The whole input schema: an object, without the fields another
/// operation covers, with the server's paging arguments.
fn full_input_schema(op: &Operation, input: Value) -> Result<Map<String, Value>, String> {
    let mut input_schema = match input {
        Value::Object(map) => map,
        _ => return Err(format!("{}: the input schema is not an object", op.name)),
    };
    input_schema.remove("$schema");
    input_schema.remove("title");
    input_schema.insert("type".into(), json!("object"));
    if let Some(props) = input_schema.get_mut("properties").and_then(Value::as_object_mut) {
        // A request field another operation covers is left out.
        for field in op.mcp.leaves_out {
            props.remove(*field);
        }
        props.insert(
            PAGE_OFFSET.into(),
            json!({ "type": "integer", "minimum": 0, "description": "Continue a paged result from its page.next_offset." }),
        );
        props.insert(
            MAX_OUTPUT_CHARS.into(),
            json!({ "type": "integer", "minimum": 1000, "description": "Page the result past this many characters (default 40000)." }),
        );
    }
    Ok(input_schema)
}

/// The input schema a model is shown: the compact form of `whole`,
/// without the knobs said once or set by the server.
fn compact_input_schema(op: &Operation, whole: &Value) -> Map<String, Value> {
    let mut compact_input = super::compact::input_schema(whole, whole);
    if let Some(props) = compact_input.get_mut("properties").and_then(Value::as_object_mut) {
        // Taken by every operation but said once, in the server's
        // instructions and in the footer of a paged result (which is
        // when a model needs them); and knobs the server sets itself
        // (paging replaces a byte cap; the thread count never changes a
        // result). All still taken.
        // The sandbox is the server's (it sets it on every call, and
        // refuses a call that names one).
        // A walk shows its scope as `glob` and `type`; the other
        // walking knobs are said once, in the instructions. Elsewhere
        // the same names mean something of their own (jobs_logs'
        // `follow` follows a log, and its `max_output_bytes` is how a
        // model reads more of it): shown there.
        let walks = props.contains_key("glob");
        let byte_cap = if walks { Some("max_output_bytes") } else { None };
        for knob in [PAGE_OFFSET, MAX_OUTPUT_CHARS, "threads", "sandbox", "network"].into_iter().chain(byte_cap) {
            props.remove(knob);
        }
        // What the server sets for its text block (an outline's dense
        // form): it changes nothing a model reads in structured content.
        for (knob, _) in op.mcp_defaults {
            props.remove(*knob);
        }
        let walking = WALK_KNOBS.iter().filter(|_| walks);
        for knob in walking.chain(&REDACT_KNOBS) {
            props.remove(*knob);
        }
        let branches = props
            .get_mut("operations")
            .and_then(|o| o.get_mut("items"))
            .and_then(|i| i.get_mut("oneOf"))
            .and_then(Value::as_array_mut);
        for branch in branches.into_iter().flatten() {
            if let Some(fields) = branch.get_mut("properties").and_then(Value::as_object_mut) {
                for knob in WALK_KNOBS {
                    fields.remove(knob);
                }
            }
        }
    }
    compact_input
}

/// A JSON Schema as an object's fields.
type JsonObject = Map<String, Value>;

/// The output schemas, compact and whole: a stored run's document for a
/// tool that hands one back, each with the server's `page`.
fn output_schemas(op: &Operation, output: Value) -> Result<(JsonObject, JsonObject), String> {
    let compact_output = if op.mcp.stored_result {
        // Any tool's document: what every one has.
        json!({ "type": "object", "properties": { "tool": { "type": "string" }, "ok": { "type": "boolean" } } })
            .as_object()
            .cloned()
            .unwrap_or_default()
    } else {
        super::compact::output_schema(&output, op.output)
    };
    let mut output_schema = match output {
        Value::Object(map) => map,
        _ => return Err(format!("{}: the output schema is not an object", op.name)),
    };
    if op.mcp.stored_result {
        // The stored document of any tool's run, exactly as it printed it.
        output_schema = json!({
            "description": "The stored JSON document of the run, as its tool printed it (or aide's error envelope).",
            "properties": { "tool": { "type": "string" }, "execution_id": { "type": "string" }, "ok": { "type": "boolean" } },
            "required": ["tool", "execution_id", "ok"]
        })
        .as_object()
        .cloned()
        .unwrap_or_default();
    }
    output_schema.remove("$schema");
    output_schema.remove("title");
    // Both alternatives (a result, an error) are objects; MCP wants it said.
    output_schema.insert("type".into(), json!("object"));
    if let Value::Object(props) = output_schema.entry("properties").or_insert_with(|| Value::Object(Map::new())) {
        props.insert("page".into(), super::page::page_schema());
    }
    Ok((compact_output, output_schema))
}

impl Binding {
    /// Binds `op` to its tool's schemas; `Err` names what in the catalogue
    /// does not match the tool (a bug, caught by the unit tests).
    pub(crate) fn new(op: &'static Operation) -> Result<Binding, String> {
        let (request, output, aliases) =
            with_tool(op.tool, Schemas).ok_or_else(|| format!("{}: unknown tool {}", op.name, op.tool))?;
        let mut choices: Vec<(&'static str, BTreeSet<String>)> = Vec::new();
        let Nested { input, path, unit, outer } = match op.mcp.arguments {
            Some(own) => Nested { input: (own.schema)(), path: Vec::new(), unit: false, outer: Vec::new() },
            None => nested_input(op, &request, &mut choices)?,
        };
        let input_schema = full_input_schema(op, input)?;
        let whole = Value::Object(input_schema.clone());
        let mut fields = schema_property_names(&whole);
        // Old names of the request's own fields are taken too (the tool
        // says each in a diagnostic); not where the arguments are nested.
        if path.is_empty() {
            let old: Vec<String> = aliases
                .iter()
                .filter(|(_, canonical)| fields.contains(*canonical))
                .map(|(alias, _)| alias.to_string())
                .collect();
            fields.extend(old);
        }
        let compact_input = compact_input_schema(op, &whole);
        let shown: BTreeSet<String> = compact_input
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let (compact_output, output_schema) = output_schemas(op, output)?;
        Ok(Binding {
            op,
            input_schema: compact_input,
            output_schema: compact_output,
            full_input_schema: input_schema,
            full_output_schema: output_schema,
            fields,
            shown,
            path,
            unit,
            outer,
            choices,
        })
    }

    /// The call's arguments as `T`'s typed request, with what the server
    /// imposes applied, and the notes on old names it used.
    pub(crate) fn typed_request<T: Tool>(
        &self,
        arguments: Map<String, Value>,
        imposition: &Imposition,
    ) -> Result<(T::Request, Vec<aide_core::Diagnostic>), AideError> {
        let value = self.request(arguments)?;
        let (mut request, notes) =
            request_from_value::<T::Request>(value, T::REQUEST_ALIASES).map_err(|e| self.as_caller_wrote(e))?;
        imposition.apply(&mut request)?;
        Ok((request, notes))
    }

    /// The tool's request for the call's arguments (already stripped of
    /// the paging arguments).
    pub(crate) fn request(&self, mut arguments: Map<String, Value>) -> Result<Value, AideError> {
        // The CLI's limits on what a request may hold apply to arguments too.
        aide_core::request::check_request_size(aide_core::request::json_len(&arguments))?;
        if let Some(unknown) = arguments.keys().find(|k| !self.fields.contains(*k)) {
            return Err(aide_core::request::unknown_field(unknown, self.shown.iter().map(String::as_str)));
        }
        for (name, value) in self.op.mcp_defaults {
            arguments.entry(name.to_string()).or_insert(Value::Bool(*value));
        }
        if let Some(fills) = self.op.mcp.arguments.map(|own| own.fills) {
            // Arguments of their own: each fills its request field.
            let request = arguments
                .into_iter()
                .map(|(name, value)| match fills.iter().find(|(argument, _)| *argument == name) {
                    Some((_, field)) => (field.to_string(), value),
                    None => (name, value),
                })
                .collect();
            return Ok(Value::Object(request));
        }
        let outer: Map<String, Value> =
            self.outer.iter().filter_map(|f| arguments.remove(f).map(|v| (f.clone(), v))).collect();
        let mut path = self.path.clone();
        if !self.choices.is_empty() {
            let (name, takes) = self.chosen(&mut arguments)?;
            if let Some(foreign) = arguments.keys().find(|k| !takes.contains(*k)) {
                return Err(aide_core::request::unknown_field(foreign, takes.iter().map(String::as_str))
                    .with_hint(format!("`{name}` takes: {}", takes.iter().cloned().collect::<Vec<_>>().join(", "))));
            }
            if let Some(last) = path.last_mut() {
                *last = name;
            }
        }
        let mut value = if self.unit {
            match path.last() {
                Some(name) => Value::String((*name).to_string()),
                None => Value::Object(arguments),
            }
        } else {
            Value::Object(arguments)
        };
        let levels = if self.unit { path.len().saturating_sub(1) } else { path.len() };
        for key in path[..levels].iter().rev() {
            value = json!({ *key: value });
        }
        if let Value::Object(map) = &mut value {
            map.extend(outer);
        } else if !outer.is_empty() {
            return Err(AideError::internal(format!("{}: outer fields around a bare value", self.op.name)));
        }
        Ok(value)
    }

    /// The command line a call stands for, as the log records it: an
    /// operation over several subcommands names the one the call chose.
    pub(crate) fn argv(&self, arguments: &Map<String, Value>) -> Vec<String> {
        let mut words: Vec<String> = self.op.words().map(str::to_string).collect();
        if !self.choices.is_empty()
            && let Some(chosen) = arguments.get(CHOICE).and_then(Value::as_str)
            && self.choices.iter().any(|(n, _)| *n == chosen)
            && let Some(last) = words.last_mut()
        {
            *last = chosen.to_string();
        }
        words
    }

    /// The subcommand the `command` argument names (taken out of the
    /// arguments), and the fields it takes.
    fn chosen(&self, arguments: &mut Map<String, Value>) -> Result<(&'static str, &BTreeSet<String>), AideError> {
        let names = || self.choices.iter().map(|(n, _)| *n);
        let given = arguments.remove(CHOICE);
        let Some(word) = given.as_ref().and_then(Value::as_str) else {
            let listed = names().collect::<Vec<_>>().join(", ");
            return Err(McpError::MissingChoice { field: CHOICE, listed }.into());
        };
        match self.choices.iter().find(|(n, _)| *n == word) {
            Some((name, takes)) => Ok((name, takes)),
            None => {
                let closest = aide_core::suggest::closest(word, names()).map(str::to_string);
                let listed = names().collect::<Vec<_>>().join(", ");
                Err(McpError::UnknownChoice { field: CHOICE, given: word.to_string(), listed, closest }.into())
            }
        }
    }

    /// The request's prefix in serde's error paths (`command.exec.`), which
    /// the caller never wrote.
    fn error_prefix(&self) -> String {
        let levels = if self.unit { self.path.len().saturating_sub(1) } else { self.path.len() };
        self.path[..levels].iter().map(|k| format!("{k}.")).collect()
    }

    /// A request error as the caller wrote the arguments: the nesting the
    /// server added (`command.exec.`) taken out of the field's path, and a
    /// missing field named as the field.
    pub(crate) fn as_caller_wrote(&self, mut e: AideError) -> AideError {
        let mut prefix = self.error_prefix();
        if !self.choices.is_empty() {
            // The subcommand the call chose, as serde's path names it.
            let named =
                e.details.as_ref().and_then(|d| d.get("field")).and_then(Value::as_str).unwrap_or("").to_string();
            let text = format!("{named} {}", e.message);
            if let Some((name, _)) = self.choices.iter().find(|(n, _)| text.contains(&format!("{CHOICE}.{n}"))) {
                prefix = format!("{CHOICE}.{name}.");
            }
        }
        let bare = prefix.trim_end_matches('.');
        let field = e.details.as_ref().and_then(|d| d.get("field")).and_then(Value::as_str).map(str::to_string);
        let mut field = field
            .map(|f| if f == bare { String::new() } else { f.strip_prefix(prefix.as_str()).unwrap_or(&f).to_string() });
        if !prefix.is_empty() {
            e.message = e.message.map(|m| m.replace(&prefix, "").replace(&format!("`{bare}`"), "the request"));
            e.hint = e.hint.map(|h| h.map(|h| h.replace(&prefix, "")));
        }
        // serde names a missing field only in its message.
        if let Some(missing) = e.message.split("missing field `").nth(1).and_then(|rest| rest.split('`').next()) {
            let path =
                field.filter(|f| !f.is_empty()).map_or_else(|| missing.to_string(), |f| format!("{f}.{missing}"));
            field = Some(path);
        }
        if let Some(field) = field.filter(|f| !f.is_empty()) {
            let mut details = match e.details.take().map(|d| *d) {
                Some(Value::Object(map)) => map,
                _ => Map::new(),
            };
            details.insert("field".into(), json!(field));
            e.details = Some(Box::new(Value::Object(details)));
        }
        e
    }
}

#[cfg(test)]
mod tests;

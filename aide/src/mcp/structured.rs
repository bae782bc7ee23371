//! The structured content a model reads (`aide mcp --structured`): most
//! clients (Claude Code, VS Code) hand a model the structured content
//! instead of the text, so by default it is a compact document made for a
//! model rather than the whole `--json` contract:
//!
//! * no envelope (`tool`, `version`, `execution_id`, `ok`, `stats`: the
//!   server's instructions say it once, `isError` says `ok`);
//! * nothing that says nothing: a null, `false`, an empty string, list or
//!   object is left out (absent means that);
//! * each fact once: a record list is a table, its columns said once
//!   (`columns`, [`table`]); records located in files (a `path` and a
//!   `line`) are grouped by file, `{"<path>": {"checksum": …, "<records>":
//!   [[…]]}}`, the file's checksum said once and shortened to the 12 hex
//!   digits every expected checksum may be (what a guarded edit needs); a
//!   record repeats no field of the document, nor a field it can be derived
//!   from; a total of a list shown whole, and what the call itself said,
//!   are not repeated;
//! * ids, byte spans, timings and echoes of the server's settings only with
//!   `detail: "full"`, an argument every tool takes, which gives the whole
//!   document as `--json` prints it.
//!
//! The rules are one transformation by field name ([`rules`]), applied to
//! the document and the same way to the tool's output schema, so every
//! compact document validates against its compact schema (which accepts
//! the whole document too, as a `detail: "full"` call gives it). Paging
//! (`page.rs`) cuts the whole document first; its `page` object stays.

mod rules;
mod table;

use serde_json::{Map, Value, json};

use crate::error::AideToolError;

/// What the structured content of a result is (`aide mcp --structured`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum Structured {
    /// The compact document made for a model (the default).
    #[default]
    Compact,
    /// The whole document, as `--json` prints it.
    Full,
    /// None, and no output schema: every client shows the text.
    Off,
}

/// What the server's instructions say of the structured content in `mode`.
pub(crate) fn instructions(mode: Structured) -> &'static str {
    match mode {
        Structured::Compact => {
            "A result's structured content is compact: a field that is absent is null, false or empty; \
             record lists are tables (`columns.<field>` names a row's values, a missing trailing value is \
             absent); records in files are grouped by path, each file's checksum once, shortened to 12 \
             hex digits (give it as checksum_before to edit that file); totals of a list shown whole, \
             echoes of the arguments and a working_dir that is the root are left out; an edit keeps its \
             execution_id (for transform_undo and log_show). `detail: \"full\"`, which every tool takes, \
             gives the whole document: ids, byte spans, timings, whole checksums, every record's own \
             path, `ok` and `execution_id`.\n"
        }
        Structured::Full => "Every result is a JSON document with `ok` and `execution_id`.\n",
        Structured::Off => "Results are text.\n",
    }
}

/// The argument every tool takes over MCP: `detail: "full"` for the whole document.
pub(crate) const DETAIL: &str = "detail";

/// How much of the document a call asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    Compact,
    Full,
}

/// Takes `detail` out of a call's arguments.
pub(crate) fn take_detail(arguments: &mut Map<String, Value>) -> Result<Detail, AideToolError> {
    match arguments.remove(DETAIL) {
        None | Some(Value::Null) => Ok(Detail::Compact),
        Some(Value::String(s)) if s == "compact" => Ok(Detail::Compact),
        Some(Value::String(s)) if s == "full" => Ok(Detail::Full),
        Some(other) => Err(AideToolError::DetailArgument { given: other.to_string() }),
    }
}

/// How deep a document schema is followed (schemars' are shallow).
const MAX_DEPTH: usize = 16;

/// The result's record fields (arrays of objects), each with whether its records are located in files (a `path`
/// and a `line`): found in the tool's whole document schema (`full`, with
/// its `$defs`), in every branch.
fn record_fields(full: &Map<String, Value>) -> Vec<RecordField> {
    let root = Value::Object(full.clone());
    let mut objects = Vec::new();
    if let Some(envelope) = root.get("$defs").and_then(|d| d.get("Envelope")) {
        result_objects(&root, envelope, &mut objects, 0);
    }
    let mut found: Vec<RecordField> = Vec::new();
    for object in objects {
        for (name, field) in object.get("properties").and_then(Value::as_object).into_iter().flatten() {
            let items = not_null(&root, field).get("items").map(|i| not_null(&root, i));
            let Some(records) = items.and_then(|i| i.get("properties")).and_then(Value::as_object) else { continue };
            // Diagnostics stay records: few, and read one by one.
            let kept = rules::ENVELOPE.contains(&name.as_str()) || name == "diagnostics";
            if kept || found.iter().any(|f| &f.name == name) {
                continue;
            }
            let located = records.contains_key("path") && records.contains_key("line");
            found.push(RecordField { name: name.clone(), located });
        }
    }
    found
}

/// A result field holding records.
struct RecordField {
    name: String,
    located: bool,
}

/// The objects with fields a document's branches stand for.
fn result_objects<'a>(root: &'a Value, node: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = super::compact::follow(root, node);
    if node.get("properties").is_some() {
        out.push(node);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in node.get(key).and_then(Value::as_array).into_iter().flatten() {
            result_objects(root, branch, out, depth + 1);
        }
    }
}

/// A schema with its `$ref`s followed and an `Option`'s null branch gone.
fn not_null<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    let node = super::compact::follow(root, node);
    let branches = node.get("anyOf").or_else(|| node.get("oneOf")).and_then(Value::as_array);
    let mut kept = branches.into_iter().flatten().filter(|b| !super::compact::is_null_type(b));
    match (branches, kept.next(), kept.next()) {
        (Some(_), Some(only), None) => super::compact::follow(root, only),
        _ => node,
    }
}

/// What the compact form of a call's result may leave unsaid: what the
/// call itself said.
pub(crate) struct Asked<'a> {
    /// The call's arguments (a result field repeating one goes).
    pub arguments: &'a Map<String, Value>,
    /// The root the call ran in (a `working_dir` that is it goes).
    pub root: Option<&'a std::path::Path>,
    /// An edit keeps its `execution_id`: it is what undoes it.
    pub undoable: bool,
}

/// The compact form of a call's documents, as sent: `binding`'s rules,
/// with the call's arguments (`asked`) and root.
pub(crate) fn sent_form(
    binding: std::sync::Arc<super::binding::Binding>,
    asked: Map<String, Value>,
    root: Option<std::path::PathBuf>,
) -> super::page::SentForm {
    std::sync::Arc::new(move |whole: Value| {
        let undoable = binding.op.group == aide_core::operation::Group::Edit;
        let asked = Asked { arguments: &asked, root: root.as_deref(), undoable };
        compact_document(whole, &binding.full_output_schema, &asked)
    })
}

/// The compact document of `document` (the tool's whole document, maybe a
/// page of it), by the rules its schema (`full`, the whole document's)
/// applies.
pub(crate) fn compact_document(document: Value, full: &Map<String, Value>, asked: &Asked<'_>) -> Value {
    let Value::Object(mut top) = document else { return document };
    let id = if asked.undoable { top.remove("execution_id") } else { None };
    for name in rules::ENVELOPE {
        top.remove(*name);
    }
    let fields = record_fields(full);
    rules::drop_shown_totals(&mut top, fields.iter().map(|f| f.name.as_str()));
    rules::drop_echoes(&mut top, asked.arguments, asked.root);
    // Each record field's name, whether it is grouped by file, and its records.
    let mut lists: Vec<(String, bool, Records)> = Vec::new();
    for field in &fields {
        let Some(Value::Array(records)) = top.get(&field.name) else { continue };
        if records.is_empty() || !records.iter().all(Value::is_object) {
            continue;
        }
        let located = field.located && records.iter().all(|r| r.get("path").and_then(Value::as_str).is_some());
        // A table of one record says its fields all the same.
        if !located && records.len() < 2 {
            continue;
        }
        if let Some(Value::Array(records)) = top.remove(&field.name) {
            let records = records.into_iter().filter_map(|r| if let Value::Object(o) = r { Some(o) } else { None });
            lists.push((field.name.clone(), located, records.collect()));
        }
    }
    rules::compact_object(&mut top, None);
    if let Some(id) = id {
        top.insert("execution_id".into(), id);
    }
    let mut columns = Map::new();
    let mut tables = Vec::new();
    for (field, located, records) in lists {
        let tabled = if located {
            let mut files = group_by_file(records, &top);
            let names = table::columns(files.iter().flat_map(|(_, _, records)| records.iter()));
            let mut grouped = Map::new();
            for (path, checksum, records) in files.drain(..) {
                let mut group = Map::new();
                if let Some(checksum) = checksum {
                    group.insert("checksum".into(), checksum);
                }
                group.insert(field.clone(), Value::Array(table::rows(records, &names)));
                grouped.insert(path, Value::Object(group));
            }
            columns.insert(field.clone(), names.into());
            Value::Object(grouped)
        } else {
            let records: Vec<Map<String, Value>> = records
                .into_iter()
                .map(|mut r| {
                    rules::compact_object(&mut r, Some(&top));
                    r
                })
                .collect();
            let names = table::columns(&records);
            let rows = table::rows(records, &names);
            columns.insert(field.clone(), names.into());
            Value::Array(rows)
        };
        tables.push((field, tabled));
    }
    if !columns.is_empty() {
        top.insert(table::COLUMNS.into(), Value::Object(columns));
    }
    top.extend(tables);
    Value::Object(top)
}

/// A list of records, each an object.
type Records = Vec<Map<String, Value>>;

/// One file's records: its path, its checksum (once, when they agree) and its records.
type FileRecords = (String, Option<Value>, Vec<Map<String, Value>>);

/// Records grouped by their `path`, in the order the files first appear;
/// each file's `checksum` said once (shortened) when its records agree on it.
fn group_by_file(records: Vec<Map<String, Value>>, top: &Map<String, Value>) -> Vec<FileRecords> {
    let mut files: Vec<FileRecords> = Vec::new();
    for mut record in records {
        let Some(Value::String(path)) = record.remove("path") else { continue };
        let checksum = record.remove("checksum").map(rules::short_checksum);
        rules::compact_object(&mut record, Some(top));
        let at = match files.iter().position(|(p, _, _)| *p == path) {
            Some(at) => at,
            None => {
                files.push((path, checksum.clone(), Vec::new()));
                files.len() - 1
            }
        };
        let (_, file_checksum, list) = &mut files[at];
        // A record whose checksum is not its file's (the file changed
        // between two reads) keeps its own.
        if let Some(checksum) = checksum
            && file_checksum.as_ref() != Some(&checksum)
        {
            record.insert("checksum".into(), checksum);
        }
        list.push(record);
    }
    files
}

/// The compact output schema of a tool whose full-mode output schema is
/// `schema` (its result's fields, typed) and whose whole document's schema
/// is `full`: the compact document's form, which the whole document
/// (`detail: "full"`) fits too.
pub(crate) fn compact_schema(schema: &Map<String, Value>, full: &Map<String, Value>) -> Map<String, Value> {
    let mut out = schema.clone();
    let fields = record_fields(full);
    let Some(Value::Object(properties)) = out.get_mut("properties") else { return out };
    let mut tabled = Vec::new();
    for (name, field) in properties.iter_mut() {
        let Some(records) = fields.iter().find(|f| &f.name == name) else { continue };
        tabled.push(name.clone());
        let rows = json!({ "type": "array", "items": { "type": "array" },
                           "description": format!("Rows: each a record's values in the order of columns.{name}.") });
        let whole = field.clone();
        *field = if records.located {
            let file = json!({
                "type": "object",
                "properties": { "checksum": { "type": "string" }, name.as_str(): rows },
                "additionalProperties": false
            });
            json!({ "anyOf": [
                { "type": "object", "description": "By file: path → its checksum and records.", "additionalProperties": file },
                whole
            ] })
        } else {
            json!({ "anyOf": [rows, whole] })
        };
    }
    if !tabled.is_empty() {
        let names: Map<String, Value> =
            tabled.iter().map(|n| (n.clone(), json!({ "type": "array", "items": { "type": "string" } }))).collect();
        properties.insert(
            table::COLUMNS.into(),
            json!({ "type": "object", "description": "Each table's columns: the fields of its records.",
                    "properties": names, "additionalProperties": false }),
        );
    }
    // A failed call's `error` and a paged result's `page` (the server's
    // instructions say their fields).
    for field in ["error", "page"] {
        properties.insert(field.into(), json!({ "type": "object" }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search_schema() -> Map<String, Value> {
        json!({ "type": "object", "properties": {
            "matches": { "type": "array", "items": { "type": "object", "properties": {
                "match_id": { "type": "string" }, "path": { "type": "string" }, "checksum": { "type": "string" },
                "byte_start": { "type": "integer" }, "line": { "type": "integer" }, "line_text": { "type": "string" } } } },
            "total_matches": { "type": "integer" },
            "truncated": { "type": "boolean" }
        } })
        .as_object()
        .cloned()
        .unwrap()
    }

    /// The whole document's schema of [`search_schema`], as schemars makes it.
    fn full_schema() -> Map<String, Value> {
        json!({ "$defs": {
            "Envelope": { "type": "object", "properties": {
                "tool": { "type": "string" },
                "matches": { "type": "array", "items": { "$ref": "#/$defs/Match" } },
                "total_matches": { "type": "integer" } } },
            "Match": { "type": "object", "properties": {
                "match_id": { "type": "string" }, "path": { "type": "string" },
                "checksum": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
                "byte_start": { "type": "integer" }, "line": { "type": "integer" }, "line_text": { "type": "string" } } }
        } })
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn records_in_files_are_grouped_by_file_with_the_checksum_once() {
        let doc = json!({
            "tool": "llm-search", "version": "0", "execution_id": "x", "ok": true,
            "matches": [
                { "match_id": "1", "path": "a.py", "checksum": "c1", "byte_start": 0, "line": 1, "line_text": "x" },
                { "match_id": "2", "path": "b.py", "checksum": "c2", "byte_start": 9, "line": 4, "line_text": "y" },
                { "match_id": "3", "path": "a.py", "checksum": "c1", "byte_start": 5, "line": 2, "line_text": "z" }
            ],
            "total_matches": 3, "truncated": false, "diagnostics": [], "stats": { "elapsed_ms": 1.0 }
        });
        let arguments = json!({ "pattern": "x" }).as_object().cloned().unwrap();
        let got = compact_document(doc, &full_schema(), &Asked { arguments: &arguments, root: None, undoable: false });
        // All three matches are shown: their totals go; each row is in the columns' order.
        let columns = got["columns"]["matches"].as_array().cloned().unwrap();
        let row = |line: u64, text: &str| -> Value {
            columns.iter().map(|c| if c == "line" { json!(line) } else { json!(text) }).collect()
        };
        assert_eq!(columns.len(), 2, "{got}");
        assert_eq!(
            got,
            json!({
                "columns": { "matches": columns },
                "matches": {
                    "a.py": { "checksum": "c1", "matches": [row(1, "x"), row(2, "z")] },
                    "b.py": { "checksum": "c2", "matches": [row(4, "y")] }
                }
            })
        );
        // The key order is the files' first appearance.
        assert_eq!(got["matches"].as_object().unwrap().keys().collect::<Vec<_>>(), ["a.py", "b.py"]);
    }

    #[test]
    fn a_cut_list_keeps_its_totals_and_checksums_are_shortened() {
        let long = "ee78e6ce4149beb3d242e76c80e36c810cda1ab1a9a5e04835ebca8167ac70f9";
        let doc = json!({
            "matches": [{ "match_id": "1", "path": "a.py", "checksum": long, "line": 1, "line_text": "x" }],
            "total_matches": 3, "truncated": true, "totals_exact": true
        });
        let arguments = Map::new();
        let got = compact_document(doc, &full_schema(), &Asked { arguments: &arguments, root: None, undoable: false });
        assert_eq!(got["total_matches"], 3);
        assert_eq!(got["totals_exact"], true);
        assert_eq!(got["matches"]["a.py"]["checksum"], &long[..12]);
    }

    #[test]
    fn the_compact_schema_types_the_groups_and_still_takes_the_whole_records() {
        let schema = compact_schema(&search_schema(), &full_schema());
        let matches = &schema["properties"]["matches"]["anyOf"];
        let rows = &matches[0]["additionalProperties"]["properties"]["matches"];
        assert_eq!(rows["items"], json!({ "type": "array" }), "{rows}");
        assert_eq!(schema["properties"]["columns"]["properties"]["matches"]["type"], "array");
        assert_eq!(matches[1], search_schema()["properties"]["matches"]);
    }

    #[test]
    fn detail_is_taken_out_of_the_arguments() {
        let mut args = json!({ "pattern": "x", "detail": "full" }).as_object().cloned().unwrap();
        assert_eq!(take_detail(&mut args).unwrap(), Detail::Full);
        assert_eq!(Value::Object(args), json!({ "pattern": "x" }));
        let mut bad = json!({ "detail": "all" }).as_object().cloned().unwrap();
        assert!(take_detail(&mut bad).unwrap_err().to_string().contains("\"full\""));
    }
}

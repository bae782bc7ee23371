//! The structured content a model reads (`aide mcp --structured`): most
//! clients (Claude Code, VS Code) hand a model the structured content
//! instead of the text, so by default it is a compact document made for a
//! model rather than the whole `--json` contract:
//!
//! * no envelope (`tool`, `version`, `execution_id`, `ok`, `stats`: the
//!   server's instructions say it once, `isError` says `ok`);
//! * nothing that says nothing: a null, `false`, an empty string, list or
//!   object is left out (absent means that);
//! * each fact once: records located in files (a `path` and a `line`) are
//!   grouped by file, `{"<path>": {"checksum": …, "<records>": […]}}`, the
//!   file's checksum said once (what a guarded edit needs); a record repeats
//!   no field of the document, nor a field it can be derived from;
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

use serde_json::{Map, Value, json};

use crate::error::AideToolError;

/// What the structured content of a result is (`aide mcp --structured`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Structured {
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
             records in files are grouped by path, each file's checksum once (give it as checksum_before \
             to edit that file); an edit keeps its execution_id (for transform_undo and \
             log_show). `detail: \"full\"`, which every tool takes, gives the whole document: ids, byte \
             spans, timings, every record's own path and checksum, `ok` and `execution_id`.\n"
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

/// The result's record fields whose records are located in files (a `path`
/// and a `line`), each with its records' fields, typed: found in the tool's
/// whole document schema (`full`, with its `$defs`), in every branch.
fn located_fields(full: &Map<String, Value>) -> Vec<(String, Map<String, Value>)> {
    let root = Value::Object(full.clone());
    let mut objects = Vec::new();
    if let Some(envelope) = root.get("$defs").and_then(|d| d.get("Envelope")) {
        result_objects(&root, envelope, &mut objects, 0);
    }
    let mut found: Vec<(String, Map<String, Value>)> = Vec::new();
    for object in objects {
        for (name, field) in object.get("properties").and_then(Value::as_object).into_iter().flatten() {
            let items = not_null(&root, field).get("items").map(|i| not_null(&root, i));
            let Some(records) = items.and_then(|i| i.get("properties")).and_then(Value::as_object) else { continue };
            if records.contains_key("path") && records.contains_key("line") && !found.iter().any(|(n, _)| n == name) {
                let typed = records.iter().map(|(k, v)| (k.clone(), type_only(&root, v))).collect();
                found.push((name.clone(), typed));
            }
        }
    }
    found
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

/// A field's schema reduced to its JSON type (any value when it has several shapes).
fn type_only(root: &Value, node: &Value) -> Value {
    match not_null(root, node).get("type") {
        Some(Value::String(t)) if t != "null" => json!({ "type": t }),
        Some(Value::Array(types)) => {
            let types: Vec<&Value> = types.iter().filter(|t| t.as_str() != Some("null")).collect();
            match types.as_slice() {
                [one] => json!({ "type": one }),
                _ => json!({}),
            }
        }
        _ => json!({}),
    }
}

/// The compact document of `document` (the tool's whole document, maybe a
/// page of it), by the rules its schema (`full`, the whole document's)
/// applies. An edit keeps its `execution_id`: it is what undoes it.
pub(crate) fn compact_document(document: Value, full: &Map<String, Value>, undoable: bool) -> Value {
    let Value::Object(mut top) = document else { return document };
    let id = if undoable { top.remove("execution_id") } else { None };
    for name in rules::ENVELOPE {
        top.remove(*name);
    }
    let mut located: Vec<(String, Vec<Value>)> = Vec::new();
    for (field, _) in located_fields(full) {
        let groupable = top
            .get(&field)
            .and_then(Value::as_array)
            .is_some_and(|records| records.iter().all(|r| r.get("path").and_then(Value::as_str).is_some()));
        if groupable && let Some(Value::Array(records)) = top.remove(&field) {
            located.push((field, records));
        }
    }
    rules::compact_object(&mut top, None);
    if let Some(id) = id {
        top.insert("execution_id".into(), id);
    }
    for (field, records) in located {
        let grouped = group_by_file(&field, records, &top);
        if !grouped.is_empty() {
            top.insert(field, Value::Object(grouped));
        }
    }
    Value::Object(top)
}

/// Records grouped by their `path`, in the order the files first appear;
/// each file's `checksum` said once when its records agree on it.
fn group_by_file(field: &str, records: Vec<Value>, top: &Map<String, Value>) -> Map<String, Value> {
    let mut files: Map<String, Value> = Map::new();
    for record in records {
        let Value::Object(mut record) = record else { continue };
        let Some(Value::String(path)) = record.remove("path") else { continue };
        let checksum = record.remove("checksum");
        rules::compact_object(&mut record, Some(top));
        let entry = files.entry(path).or_insert_with(|| {
            let mut group = Map::new();
            if let Some(c) = &checksum {
                group.insert("checksum".into(), c.clone());
            }
            group.insert(field.into(), Value::Array(Vec::new()));
            Value::Object(group)
        });
        let Value::Object(group) = entry else { continue };
        // A record whose checksum is not its file's (the file changed
        // between two reads) keeps its own.
        if checksum.is_some() && group.get("checksum") != checksum.as_ref() {
            record.insert("checksum".into(), checksum.unwrap_or(Value::Null));
        }
        if let Some(Value::Array(list)) = group.get_mut(field) {
            list.push(Value::Object(record));
        }
    }
    files
}

/// The compact output schema of a tool whose full-mode output schema is
/// `schema` (its result's fields, typed) and whose whole document's schema
/// is `full`: the compact document's form, which the whole document
/// (`detail: "full"`) fits too.
pub(crate) fn compact_schema(schema: &Map<String, Value>, full: &Map<String, Value>) -> Map<String, Value> {
    let mut out = schema.clone();
    let located = located_fields(full);
    let Some(Value::Object(properties)) = out.get_mut("properties") else { return out };
    for (name, field) in properties.iter_mut() {
        let Some((_, records)) = located.iter().find(|(n, _)| n == name) else { continue };
        let mut kept: Map<String, Value> = records
            .iter()
            .filter(|(field, schema)| {
                let kind = schema.get("type").and_then(Value::as_str);
                field.as_str() != "path" && !rules::is_detail(field, kind)
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        kept.entry("checksum").or_insert(json!({ "type": "string" }));
        let file = json!({
            "type": "object",
            "properties": {
                "checksum": { "type": "string" },
                name.as_str(): { "type": "array", "items": { "type": "object", "properties": kept } }
            },
            "additionalProperties": false
        });
        let whole = field.clone();
        *field = json!({
            "anyOf": [
                { "type": "object", "description": "By file: path → its checksum and records.", "additionalProperties": file },
                whole
            ]
        });
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
        let got = compact_document(doc, &full_schema(), false);
        assert_eq!(
            got,
            json!({
                "total_matches": 3,
                "matches": {
                    "a.py": { "checksum": "c1", "matches": [{ "line": 1, "line_text": "x" }, { "line": 2, "line_text": "z" }] },
                    "b.py": { "checksum": "c2", "matches": [{ "line": 4, "line_text": "y" }] }
                }
            })
        );
        // The key order is the files' first appearance.
        assert_eq!(got["matches"].as_object().unwrap().keys().collect::<Vec<_>>(), ["a.py", "b.py"]);
    }

    #[test]
    fn the_compact_schema_types_the_groups_and_still_takes_the_whole_records() {
        let schema = compact_schema(&search_schema(), &full_schema());
        let matches = &schema["properties"]["matches"]["anyOf"];
        let record = &matches[0]["additionalProperties"]["properties"]["matches"]["items"]["properties"];
        assert!(record.get("match_id").is_none() && record.get("path").is_none(), "{record}");
        assert!(record.get("line_text").is_some(), "{record}");
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

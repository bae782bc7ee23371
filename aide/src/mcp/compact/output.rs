//! The compact output schema: the result's fields, typed, and its records' fields.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::{MAX_DEPTH, follow, is_null_type, one_or_list};

/// The compact output schema of a tool's document (`document`, the whole
/// `--json` schema with its `$defs`), keeping only the result branches that
/// have one of `selectors` among their fields (all when empty).
pub(crate) fn output_schema(document: &Value, selectors: &[&str]) -> Map<String, Value> {
    let mut objects = Vec::new();
    if let Some(envelope) = document.get("$defs").and_then(|d| d.get("Envelope")) {
        for key in ["oneOf", "anyOf", "allOf"] {
            for branch in envelope.get(key).and_then(Value::as_array).into_iter().flatten() {
                result_objects(document, branch, &mut objects, 0);
            }
        }
        // A result with no union: its fields sit beside the envelope's.
        if objects.is_empty() {
            objects.push(envelope);
        }
    }
    let untyped: Vec<&str> = selectors.iter().filter_map(|s| s.strip_prefix('-')).collect();
    let selectors: Vec<&str> = selectors.iter().copied().filter(|s| !s.starts_with('-')).collect();
    let chosen = objects.iter().filter(|o| {
        selectors.is_empty()
            || o.get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| selectors.iter().any(|s| p.contains_key(*s)))
    });
    // The envelope (tool, ok, execution_id, diagnostics, error, page) is the
    // same for every tool: the server's instructions say it once.
    let envelope_only = ["tool", "version", "execution_id", "ok", "diagnostics", "stats"];
    let mut properties = Map::new();
    for object in chosen {
        // The result's records (its first list of objects) have their fields
        // typed, and a result that is one record (`jobs_status`'s `job`).
        let mut records_typed = false;
        let fields = object.get("properties").and_then(Value::as_object);
        let one_field = fields.is_some_and(|f| f.len() == 1);
        for (name, schema) in fields.into_iter().flatten() {
            if envelope_only.contains(&name.as_str()) {
                continue;
            }
            let typed = typed(document, schema, !records_typed && !untyped.contains(&name.as_str()), one_field);
            records_typed |= typed.get("items").is_some_and(|items| items.get("properties").is_some());
            match properties.get(name) {
                Some(existing) if existing != &typed => {
                    let merged = merge_types(existing, &typed);
                    properties.insert(name.clone(), merged);
                }
                _ => {
                    properties.insert(name.clone(), typed);
                }
            }
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(properties));
    out
}

/// The objects with fields a result branch stands for (a reference, or a
/// union of them: llm-ast-search's modes).
fn result_objects<'a>(root: &'a Value, node: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = follow(root, node);
    if node.get("properties").is_some() {
        out.push(node);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for branch in node.get(key).and_then(Value::as_array).into_iter().flatten() {
            result_objects(root, branch, out, depth + 1);
        }
    }
}
/// A field's schema reduced to its type; with `records`, the fields of its
/// records are typed too, and with `whole_record` an object's (the result
/// is that one object).
fn typed(root: &Value, schema: &Value, records: bool, whole_record: bool) -> Value {
    let schema = follow(root, schema);
    let mut nullable = false;
    let mut inner = schema;
    if let Some(branches) = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array) {
        let not_null: Vec<&Value> = branches.iter().filter(|b| !is_null_type(b)).collect();
        nullable = not_null.len() < branches.len();
        if not_null.len() == 1 {
            inner = follow(root, not_null[0]);
        } else {
            // Several shapes (a string or a list; one of several objects):
            // a type list if they are plain, else any value.
            let kinds: Option<BTreeSet<String>> = not_null.iter().map(|b| simple_type(follow(root, b))).collect();
            return match kinds.filter(|k| !k.is_empty()) {
                Some(kinds) => {
                    let null = nullable.then(|| "null".to_string());
                    json!({ "type": one_or_list(kinds.into_iter().chain(null).map(Value::String).collect()) })
                }
                None => json!({}),
            };
        }
    }
    let mut types: Vec<Value> = match inner.get("type") {
        Some(Value::String(t)) => vec![json!(t)],
        Some(Value::Array(list)) => list.clone(),
        None => match simple_type(inner) {
            Some(t) => vec![json!(t)],
            None => return json!({}),
        },
        Some(_) => return json!({}),
    };
    if nullable && !types.contains(&json!("null")) {
        types.push(json!("null"));
    }
    let (is_array, is_object) = (types.contains(&json!("array")), types.contains(&json!("object")));
    let mut out = Map::new();
    out.insert("type".into(), one_or_list(types));
    let fields = |object: &Value| -> Map<String, Value> {
        object
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), typed(root, v, false, false)))
            .collect()
    };
    // Records are typed field by field; a single object (a summary, a
    // timing breakdown) is said to be one, unless it is the whole result.
    let items = inner.get("items").map(|items| follow(root, items)).filter(|items| items.get("properties").is_some());
    match items {
        Some(items) if records && is_array => {
            out.insert("items".into(), json!({ "type": "object", "properties": fields(items) }));
        }
        _ if records && whole_record && is_object && inner.get("properties").is_some() => {
            out.insert("properties".into(), Value::Object(fields(inner)));
        }
        _ => {}
    }
    Value::Object(out)
}

/// The JSON type of a schema without `type`: a constant's, an enum's, or an
/// object with properties.
fn simple_type(schema: &Value) -> Option<String> {
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        return Some(t.to_string());
    }
    let value = schema.get("const").or_else(|| schema.get("enum").and_then(|e| e.get(0)))?;
    Some(
        match value {
            Value::String(_) => "string",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::Null => "null",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
        .to_string(),
    )
}

/// Two branches' schemas of one field: their types together (without
/// their fields when those differ), or any value.
fn merge_types(a: &Value, b: &Value) -> Value {
    let types = |v: &Value| -> Option<Vec<Value>> {
        match v.get("type")? {
            Value::String(t) => Some(vec![json!(t)]),
            Value::Array(list) => Some(list.clone()),
            _ => None,
        }
    };
    match (types(a), types(b)) {
        (Some(mut x), Some(y)) => {
            for t in y {
                if !x.contains(&t) {
                    x.push(t);
                }
            }
            json!({ "type": one_or_list(x) })
        }
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn output_schemas_keep_the_chosen_branch_typed_with_nulls() {
        let document = json!({
            "anyOf": [{ "$ref": "#/$defs/Envelope" }, { "$ref": "#/$defs/ErrorEnvelope" }],
            "$defs": {
                "Envelope": {
                    "type": "object",
                    "properties": { "tool": { "type": "string" }, "ok": { "type": "boolean" } },
                    "anyOf": [
                        { "type": "object", "properties": { "sessions": { "type": "array", "items": { "$ref": "#/$defs/Meta" } } } },
                        { "type": "object", "properties": { "removed": { "type": "string" } } }
                    ]
                },
                "Meta": { "type": "object", "properties": { "id": { "type": "string" }, "code": { "type": ["integer", "null"] },
                          "span": { "anyOf": [{ "$ref": "#/$defs/Span" }, { "type": "null" }] } } },
                "Span": { "type": "object", "properties": { "start": { "type": "integer" } } }
            }
        });
        let schema = Value::Object(output_schema(&document, &["sessions"]));
        let props = &schema["properties"];
        assert!(props.get("removed").is_none() && props.get("tool").is_none(), "{schema}");
        assert_eq!(props["sessions"]["items"]["properties"]["code"], json!({ "type": ["integer", "null"] }));
        assert_eq!(props["sessions"]["items"]["properties"]["span"], json!({ "type": ["object", "null"] }));
        assert!(props.get("ok").is_none(), "the envelope is said once, in the instructions: {schema}");
    }
}

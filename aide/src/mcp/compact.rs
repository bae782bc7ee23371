//! Tool definitions a model can afford to load: an operation's input schema
//! with only the fields it takes and an output schema with only the fields
//! its result has, both stripped of what a model does not read.
//!
//! The full schemas (`llm-x --schema`, `aide tools --full-schemas`) stay the
//! contract for validators; these are derived from them:
//!
//! * input: every `$ref` inlined where it is used, except a definition that
//!   contains itself (kept once under `$defs`, only if referenced);
//!   `Option`'s `anyOf [T, null]` is T; enums of strings are `enum` lists;
//!   descriptions are their first sentence; `title`, `format` and
//!   `minimum: 0` go; a default is kept only when it says something (not
//!   null, false, 0 or empty) and the description does not already state it;
//!   a field named by the shared vocabulary ([`aide_core::vocabulary`]) has
//!   no description of its own (the server's instructions give them once),
//!   nor the item type of a term that is "one or a list" of strings.
//! * output: the result's fields, each typed (`null` allowed where the
//!   value may be absent), and the fields of its records (its first list of
//!   objects, or the one object that is the whole result); no descriptions,
//!   no `required`, no envelope (the server's instructions say it once).
//!   Every document the tool prints validates against it.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// How deep a schema is followed before it is cut to `{}` (any value):
/// schemars' schemas are shallow; this only bounds a malformed one.
const MAX_DEPTH: usize = 24;

/// The compact input schema of `node`, a schema inside `root` (whose
/// `$defs` its references name).
pub(crate) fn input_schema(root: &Value, node: &Value) -> Map<String, Value> {
    let mut inliner = Inliner { root, stack: Vec::new(), kept: BTreeSet::new() };
    let mut compact = match inliner.compact(node, 0) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    // Definitions that contain themselves stay referenced: add each once,
    // with the ones they in turn keep.
    let mut defs = Map::new();
    let mut pending: Vec<String> = inliner.kept.iter().cloned().collect();
    while let Some(name) = pending.pop() {
        if defs.contains_key(&name) {
            continue;
        }
        let Some(def) = root.get("$defs").and_then(|d| d.get(&name)) else { continue };
        inliner.stack = vec![name.clone()];
        let before = inliner.kept.clone();
        let body = inliner.compact(def, 0);
        defs.insert(name, body);
        pending.extend(inliner.kept.difference(&before).cloned());
    }
    compact.remove("description");
    if !defs.is_empty() {
        compact.insert("$defs".into(), Value::Object(defs));
    }
    compact.insert("type".into(), json!("object"));
    compact
}

struct Inliner<'a> {
    root: &'a Value,
    /// The definitions being inlined, outermost first (a reference to one
    /// of them is a cycle).
    stack: Vec<String>,
    /// Definitions referenced from a cycle, to be added under `$defs`.
    kept: BTreeSet<String>,
}

impl<'a> Inliner<'a> {
    fn definition(&self, reference: &str) -> Option<(String, &'a Value)> {
        let name = reference.strip_prefix("#/$defs/")?;
        Some((name.to_string(), self.root.get("$defs")?.get(name)?))
    }

    fn compact(&mut self, node: &Value, depth: usize) -> Value {
        let Value::Object(map) = node else { return node.clone() };
        if depth > MAX_DEPTH {
            return json!({});
        }
        // A reference: the definition, inlined (the site's own description
        // and default win), unless it is one being inlined already.
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let Some((name, target)) = self.definition(reference) else { return json!({}) };
            let inlined = if self.stack.contains(&name) {
                self.kept.insert(name.clone());
                let mut r = Map::new();
                r.insert("$ref".into(), json!(reference));
                r
            } else {
                self.stack.push(name);
                let inlined = self.compact(target, depth + 1);
                self.stack.pop();
                match inlined {
                    Value::Object(m) => m,
                    _ => Map::new(),
                }
            };
            return self.with_site(inlined, map, "$ref", depth);
        }
        // `Option<T>`: T (an absent field is the same as null).
        if let Some(branches) = map.get("anyOf").and_then(Value::as_array) {
            let not_null: Vec<&Value> = branches.iter().filter(|b| !is_null_type(b)).collect();
            if not_null.len() == 1 && not_null.len() < branches.len() {
                let inner = match self.compact(not_null[0], depth + 1) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                return self.with_site(inner, map, "anyOf", depth);
            }
        }
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                // Annotations a model does not read (unknown fields are refused
                // by the server, so `additionalProperties: false` says nothing new).
                "title" | "$schema" | "format" | "$defs" | "examples" => {}
                "additionalProperties" if value == &Value::Bool(false) => {}
                "minimum" if value.as_f64() == Some(0.0) => {}
                "enum" => {
                    let values = without_case_forms(value.as_array().cloned().unwrap_or_default());
                    // A long list (the 18 symbol kinds) is not spelt out: a
                    // wrong value is refused naming the closest.
                    if values.len() <= MAX_ENUM_VALUES {
                        out.insert(key.clone(), Value::Array(values));
                    }
                }
                "description" => {
                    if let Some(text) = value.as_str() {
                        out.insert(key.clone(), json!(first_sentence(text)));
                    }
                }
                "type" => {
                    out.insert(key.clone(), without_null(value));
                }
                "properties" => {
                    let props = value
                        .as_object()
                        .map(|p| {
                            p.iter()
                                .map(|(k, v)| {
                                    let mut field = self.compact(v, depth + 1);
                                    // A name of the shared vocabulary means what the
                                    // server's instructions say, in every tool.
                                    if let Some(term) = aide_core::vocabulary::term(k)
                                        && let Some(map) = field.as_object_mut()
                                    {
                                        map.remove("description");
                                        // "One or a list" (of strings) is said by the term too.
                                        let strings = map.get("items") == Some(&json!({ "type": "string" }));
                                        if strings && term.meaning.contains("one or a list") {
                                            map.remove("items");
                                        }
                                    }
                                    (k.clone(), field)
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    out.insert(key.clone(), Value::Object(props));
                }
                "items" | "additionalProperties" | "not" => {
                    out.insert(key.clone(), self.compact(value, depth + 1));
                }
                "oneOf" | "anyOf" | "allOf" | "prefixItems" => {
                    let branches: Vec<Value> =
                        value.as_array().into_iter().flatten().map(|b| self.compact(b, depth + 1)).collect();
                    match string_enum(&branches) {
                        Some(values) if key != "allOf" && key != "prefixItems" => {
                            out.insert("type".into(), json!("string"));
                            out.insert("enum".into(), Value::Array(values));
                        }
                        _ if key == "oneOf" || key == "anyOf" => {
                            let mut branches = merge_families(merge_tag_twins(branches));
                            said_once(&mut branches);
                            out.insert(key.clone(), Value::Array(branches));
                        }
                        _ => {
                            out.insert(key.clone(), Value::Array(branches));
                        }
                    }
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        tidy(out)
    }

    /// `inner` (what a reference or an `Option` stands for) with the
    /// site's own keywords, but `replaced`, laid over it: the site's
    /// description and default win.
    fn with_site(
        &mut self,
        mut inner: Map<String, Value>,
        site: &Map<String, Value>,
        replaced: &str,
        depth: usize,
    ) -> Value {
        let mut site = site.clone();
        site.remove(replaced);
        if let Value::Object(site) = self.compact(&Value::Object(site), depth + 1) {
            inner.extend(site);
        }
        tidy(inner)
    }
}

/// Drops a default that says nothing (null, false, 0, empty) or that the
/// description already states, and an `anyOf [string, array of strings]`
/// becomes one type list.
fn tidy(mut schema: Map<String, Value>) -> Value {
    // A constant says its own type.
    if schema.contains_key("const") && schema.get("type").is_some_and(Value::is_string) {
        schema.remove("type");
    }
    let silent = match schema.get("default") {
        Some(Value::Null | Value::Bool(false)) => true,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    };
    let stated = schema.get("description").and_then(Value::as_str).is_some_and(|d| d.contains("default"));
    if silent || stated {
        schema.remove("default");
    }
    // `one_or_many`: a string or a list of strings.
    if let Some(Value::Array(branches)) = schema.get("anyOf")
        && branches.len() == 2
        && branches[0] == json!({ "type": "string" })
        && branches[1] == json!({ "type": "array", "items": { "type": "string" } })
    {
        schema.remove("anyOf");
        schema.insert("type".into(), json!(["string", "array"]));
        schema.insert("items".into(), json!({ "type": "string" }));
    }
    Value::Object(schema)
}

pub(crate) fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// A type without its `null` (an optional field is simply left out).
fn without_null(types: &Value) -> Value {
    match types {
        Value::Array(list) => one_or_list(list.iter().filter(|t| t.as_str() != Some("null")).cloned().collect()),
        other => other.clone(),
    }
}

/// The values of branches that are each one string constant (a Rust enum of
/// unit variants, each with its doc comment): an `enum` list instead.
fn string_enum(branches: &[Value]) -> Option<Vec<Value>> {
    let mut values = Vec::new();
    for branch in branches {
        if let Some(c) = branch.get("const").filter(|c| c.is_string()) {
            values.push(c.clone());
        } else if let Some(list) =
            branch.get("enum").and_then(Value::as_array).filter(|l| l.iter().all(Value::is_string))
        {
            values.extend(list.iter().cloned());
        } else {
            return None;
        }
    }
    let values = without_case_forms(values);
    (!values.is_empty()).then_some(values)
}

/// A field's description is said in the first branch of a union that has
/// the field, not again in the others (`glob` in every tree operation).
fn said_once(branches: &mut [Value]) {
    let mut said = BTreeSet::new();
    for branch in branches {
        let Some(props) = branch.get_mut("properties").and_then(Value::as_object_mut) else { continue };
        for (name, field) in props.iter_mut() {
            let Some(field) = field.as_object_mut() else { continue };
            if let Some(description) = field.get("description").and_then(Value::as_str)
                && !said.insert((name.clone(), description.to_string()))
            {
                field.remove("description");
            }
        }
    }
}

/// Case forms serde also accepts (`Function` beside `function`,
/// `TypeAlias` beside `type_alias`), said once.
fn without_case_forms(mut values: Vec<Value>) -> Vec<Value> {
    let listed: BTreeSet<String> = values.iter().filter_map(Value::as_str).map(str::to_string).collect();
    values.retain(|v| {
        let v = v.as_str().unwrap_or("");
        !(v.starts_with(|c: char| c.is_ascii_uppercase()) && listed.contains(&snake_case(v)))
    });
    values
}

fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Branches of a tagged union that differ only in their tag (`op`) and
/// description become one branch whose tag is an `enum` and whose
/// description names each: llm-transform's block operations share every
/// field.
fn merge_tag_twins(branches: Vec<Value>) -> Vec<Value> {
    fn tag_of(branch: &Value) -> Option<(String, Value)> {
        let props = branch.get("properties")?.as_object()?;
        props.iter().find_map(|(k, v)| v.get("const").filter(|c| c.is_string()).map(|c| (k.clone(), c.clone())))
    }
    /// Branches with one shape: where the first stands in the output, its
    /// tag field, the shape without tag and description, and each twin's tag
    /// value and description.
    struct Twins {
        at: usize,
        tag: String,
        shape: Value,
        values: Vec<Value>,
        descriptions: Vec<String>,
    }
    let mut merged: Vec<Value> = Vec::new();
    let mut twins: Vec<Twins> = Vec::new();
    for branch in branches {
        let Some((tag, value)) = tag_of(&branch) else {
            merged.push(branch);
            continue;
        };
        let mut shape = branch.clone();
        if let Some(map) = shape.as_object_mut() {
            map.remove("description");
            if let Some(props) = map.get_mut("properties").and_then(Value::as_object_mut) {
                props.remove(&tag);
            }
        }
        let description = branch.get("description").and_then(Value::as_str).unwrap_or("").to_string();
        match twins.iter_mut().find(|t| t.tag == tag && t.shape == shape) {
            Some(t) => {
                t.values.push(value);
                t.descriptions.push(description);
            }
            None => {
                twins.push(Twins {
                    at: merged.len(),
                    tag,
                    shape,
                    values: vec![value],
                    descriptions: vec![description],
                });
                merged.push(branch);
            }
        }
    }
    for Twins { at, tag, mut shape, values, descriptions } in twins.into_iter().filter(|t| t.values.len() > 1) {
        if let Some(map) = shape.as_object_mut() {
            let said: Vec<String> =
                values.iter().zip(&descriptions).map(|(v, d)| format!("{}: {d}", v.as_str().unwrap_or(""))).collect();
            map.insert("description".into(), json!(said.join(" ")));
            if let Some(props) = map.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert(tag, json!({ "enum": values }));
            }
        }
        merged[at] = shape;
    }
    merged
}

/// The most values an `enum` lists; a longer one is left a plain string.
const MAX_ENUM_VALUES: usize = 12;

/// The schema keyword a request type marks union branches with
/// (`#[schemars(extend("x-merge" = "files"))]`) to be shown as one branch:
/// fields of all, the tag an `enum`, required what all require, each
/// description named by its tag. llm-transform's write, delete, mkdir,
/// copy and rename share most fields; one branch says them once.
const MERGE: &str = "x-merge";

/// One family of branches being merged.
struct Family {
    name: String,
    /// Where its merged branch stands in the output.
    at: usize,
    /// The tag field (`op`), its values and each value's description.
    tag: String,
    values: Vec<Value>,
    descriptions: Vec<String>,
}

fn merge_families(branches: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut families: Vec<Family> = Vec::new();
    for mut branch in branches {
        let family = branch.as_object_mut().and_then(|m| m.remove(MERGE)).and_then(|f| f.as_str().map(str::to_string));
        let tag = branch.get("properties").and_then(Value::as_object).and_then(|props| {
            props.iter().find_map(|(k, v)| {
                let values = match (v.get("const"), v.get("enum")) {
                    (Some(c), _) => vec![c.clone()],
                    (None, Some(Value::Array(list))) => list.clone(),
                    _ => return None,
                };
                Some((k.clone(), values))
            })
        });
        let (Some(family), Some((tag, values))) = (family, tag) else {
            out.push(branch);
            continue;
        };
        let description = branch.get("description").and_then(Value::as_str).unwrap_or("").to_string();
        let said = if values.len() == 1 {
            format!("{}: {description}", values[0].as_str().unwrap_or(""))
        } else {
            description
        };
        match families.iter_mut().find(|f| f.name == family) {
            None => {
                families.push(Family { name: family, at: out.len(), tag, values, descriptions: vec![said] });
                out.push(branch);
            }
            Some(Family { at, tag: tag_field, values: all_values, descriptions, .. }) => {
                all_values.extend(values);
                descriptions.push(said);
                let merged = &mut out[*at];
                let required: Vec<Value> =
                    branch.get("required").and_then(Value::as_array).into_iter().flatten().cloned().collect();
                if let Some(list) = merged.get_mut("required").and_then(Value::as_array_mut) {
                    list.retain(|r| required.contains(r) || r.as_str() == Some(tag_field.as_str()));
                }
                let fields = branch.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
                if let Some(props) = merged.get_mut("properties").and_then(Value::as_object_mut) {
                    for (name, field) in fields {
                        props.entry(name).or_insert(field);
                    }
                }
            }
        }
    }
    for Family { at, tag, values, descriptions, .. } in families.into_iter().filter(|f| f.values.len() > 1) {
        if let Some(map) = out[at].as_object_mut() {
            map.insert("description".into(), json!(descriptions.join(" ")));
            if let Some(props) = map.get_mut("properties").and_then(Value::as_object_mut) {
                props.insert(tag, json!({ "enum": values }));
            }
        }
    }
    out
}

/// The first sentence of a doc comment, on one line: what the field is.
/// Later sentences (flag syntax, edge cases) are for `--help`.
pub(crate) fn first_sentence(text: &str) -> String {
    let paragraph = text.split("\n\n").next().unwrap_or("");
    let line = without_command_line_notes(&paragraph.split_whitespace().collect::<Vec<_>>().join(" "));
    let bytes = line.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'.' if depth <= 0 && bytes.get(i + 1).is_some_and(|n| *n == b' ') => {
                let before = &line[..i];
                let abbreviation = ["e.g", "i.e", "etc", "vs"].iter().any(|a| before.ends_with(a));
                if !abbreviation {
                    return line[..=i].to_string();
                }
            }
            _ => {}
        }
    }
    line
}

/// A description without its parenthesised remarks about the command line
/// (`(on the command line: one word after --)`): a model calls the tool
/// with JSON.
fn without_command_line_notes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" (") {
        let Some(len) = rest[at..].find(')') else { break };
        let end = at + len + 1;
        out.push_str(&rest[..at]);
        let remark = &rest[at..end];
        if !remark.contains("command line") {
            out.push_str(remark);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

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

/// Follows `$ref`s into `root` to the schema they name.
pub(crate) fn follow<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..MAX_DEPTH {
        match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')).and_then(|p| root.pointer(p)) {
            Some(target) => node = target,
            None => break,
        }
    }
    node
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

/// A `type` keyword's value: the one type, or the list of them.
fn one_or_list(mut types: Vec<Value>) -> Value {
    if types.len() == 1 { types.remove(0) } else { Value::Array(types) }
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
    use super::*;

    #[test]
    fn first_sentences_keep_abbreviations_and_parentheses() {
        assert_eq!(first_sentence("Match case.\nMore here."), "Match case.");
        assert_eq!(first_sentence("A name, e.g. Foo. Then."), "A name, e.g. Foo.");
        assert_eq!(first_sentence("Skip (see a. b) this. No."), "Skip (see a. b) this.");
        assert_eq!(first_sentence("No full stop"), "No full stop");
        assert_eq!(first_sentence("An argv (on the command line: after `--`)."), "An argv.");
        // Every command-line remark goes, not only a first parenthesis.
        assert_eq!(first_sentence("Bytes (at most) to keep (on the command line: K, M)."), "Bytes (at most) to keep.");
        assert_eq!(first_sentence("One\nline wrapped. Two."), "One line wrapped.");
    }

    #[test]
    fn references_are_inlined_and_options_lose_their_null() {
        let root = json!({
            "type": "object",
            "properties": {
                "mode": { "$ref": "#/$defs/Mode", "default": "a" },
                "most": { "type": ["integer", "null"], "format": "uint", "minimum": 0, "default": null,
                           "description": "At most this many.\nSecond sentence." },
                "limit": { "type": "integer", "description": "A name of the vocabulary: said once, elsewhere." },
                "span": { "anyOf": [{ "$ref": "#/$defs/Span" }, { "type": "null" }] }
            },
            "$defs": {
                "Mode": { "oneOf": [{ "const": "a", "type": "string", "description": "A." }, { "const": "b", "type": "string" }] },
                "Span": { "type": "object", "title": "Span", "properties": { "start": { "type": "integer", "format": "uint" } } },
                "Unused": { "type": "string" }
            }
        });
        let compact = Value::Object(input_schema(&root, &root));
        assert_eq!(
            compact,
            json!({
                "type": "object",
                "properties": {
                    "mode": { "type": "string", "enum": ["a", "b"], "default": "a" },
                    "most": { "type": "integer", "description": "At most this many." },
                    "limit": { "type": "integer" },
                    "span": { "type": "object", "properties": { "start": { "type": "integer" } } }
                }
            })
        );
    }

    #[test]
    fn branches_of_one_family_are_one_branch_and_long_enums_are_plain_strings() {
        let kinds: Vec<String> = (0..13).map(|i| format!("k{i}")).collect();
        let root = json!({
            "type": "object",
            "properties": { "op": { "oneOf": [
                { "description": "Write it.", "type": "object", "x-merge": "files",
                  "properties": { "op": { "const": "write" }, "path": { "type": "string" }, "content": { "type": "string" } },
                  "required": ["op", "path", "content"] },
                { "description": "Copy it.", "type": "object", "x-merge": "files",
                  "properties": { "op": { "const": "copy" }, "path": { "type": "string" }, "to": { "type": "string" } },
                  "required": ["op", "path", "to"] },
                { "description": "Other.", "type": "object",
                  "properties": { "op": { "const": "other" }, "kind": { "type": "string", "enum": kinds } },
                  "required": ["op"] }
            ] } }
        });
        let compact = Value::Object(input_schema(&root, &root));
        let branches = compact["properties"]["op"]["oneOf"].as_array().unwrap();
        assert_eq!(branches.len(), 2, "{compact}");
        assert_eq!(
            branches[0],
            json!({ "description": "write: Write it. copy: Copy it.", "type": "object",
                    "properties": { "op": { "enum": ["write", "copy"] }, "path": { "type": "string" },
                                    "content": { "type": "string" }, "to": { "type": "string" } },
                    "required": ["op", "path"] })
        );
        assert_eq!(branches[1]["properties"]["kind"], json!({ "type": "string" }), "13 values are not listed");
        assert!(!compact.to_string().contains("x-merge"));
    }

    #[test]
    fn a_definition_that_contains_itself_stays_once_under_defs() {
        let root = json!({
            "type": "object",
            "properties": { "tree": { "$ref": "#/$defs/Node" } },
            "$defs": { "Node": { "type": "object", "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } } } } }
        });
        let compact = Value::Object(input_schema(&root, &root));
        // Only the definition that contains itself stays (tests/e2e/mcp_face.rs
        // checks every served schema for unreferenced and dangling ones).
        assert_eq!(compact["$defs"].as_object().map(|d| d.len()), Some(1), "{compact}");
        assert!(compact["$defs"]["Node"].is_object(), "{compact}");
        assert_eq!(compact["properties"]["tree"]["properties"]["children"]["items"], json!({ "$ref": "#/$defs/Node" }));
    }

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

//! The compact input schema: references inlined, options without their
//! null, descriptions cut to their first sentence, silent defaults gone.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::text::first_sentence;
use super::union::{merge_families, merge_tag_twins, said_once, string_enum, without_case_forms};
use super::{MAX_DEPTH, is_null_type, one_or_list};

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

    // Long because: one arm per JSON Schema keyword, each how its compact form says it.
    fn compact(&mut self, node: &Value, depth: usize) -> Value {
        let Value::Object(map) = node else { return node.clone() };
        if depth > MAX_DEPTH {
            return json!({});
        }
        // A reference: the definition, inlined (the site's own description
        // and default win), unless it is one being inlined already.
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.inline_reference(reference, map, depth);
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
                "title" | "$schema" | "format" | "$defs" | "examples" | HIDDEN => {}
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
                                .filter(|(_, v)| v.get(HIDDEN) != Some(&Value::Bool(true)))
                                .map(|(k, v)| (k.clone(), self.compact_field(k, v, depth)))
                                .collect()
                        })
                        .unwrap_or_default();
                    out.insert(key.clone(), Value::Object(props));
                }
                // Items of any kind: as if unsaid.
                "items" if value == &Value::Bool(true) => {}
                "items" => {
                    let mut items = self.compact(value, depth + 1);
                    // A list's element type's own doc (`One operation.`)
                    // adds nothing to the list's description.
                    if map.contains_key("description")
                        && let Some(items) = items.as_object_mut()
                    {
                        items.remove("description");
                    }
                    out.insert(key.clone(), items);
                }
                "additionalProperties" | "not" => {
                    out.insert(key.clone(), self.compact(value, depth + 1));
                }
                "oneOf" | "anyOf" | "allOf" | "prefixItems" => self.compact_branches(key, value, map, &mut out, depth),
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        tidy(out)
    }

    /// A reference: the definition, inlined with the site's own keywords,
    /// or (one being inlined already) the reference kept with its definition.
    fn inline_reference(&mut self, reference: &str, site: &Map<String, Value>, depth: usize) -> Value {
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
        self.with_site(inlined, site, "$ref", depth)
    }

    /// A property `name`'s schema, compact, without a description that
    /// only repeats its name or that the shared vocabulary gives.
    fn compact_field(&mut self, name: &str, schema: &Value, depth: usize) -> Value {
        let mut field = self.compact(schema, depth + 1);
        // `operations: "Operations."` says nothing.
        if let Some(map) = field.as_object_mut()
            && map
                .get("description")
                .and_then(Value::as_str)
                .is_some_and(|d| d.trim_end_matches('.').eq_ignore_ascii_case(&name.replace('_', " ")))
        {
            map.remove("description");
        }
        // A name of the shared vocabulary means what the
        // server's instructions say, in every tool.
        if let Some(term) = aide_core::vocabulary::term(name)
            && let Some(map) = field.as_object_mut()
        {
            map.remove("description");
            // "One or a list" (of strings) is said by the term too.
            let strings = map.get("items") == Some(&json!({ "type": "string" }));
            let said = ["one or a list", "a list of strings"];
            if strings && said.iter().any(|s| term.meaning.contains(s)) {
                map.remove("items");
            }
        }
        field
    }

    /// `oneOf`, `anyOf`, `allOf` or `prefixItems` (`key`) of `site`, its
    /// branches compact, into `out`: string constants as one `enum`, like
    /// branches merged, a type they share said once.
    fn compact_branches(
        &mut self,
        key: &str,
        value: &Value,
        site: &Map<String, Value>,
        out: &mut Map<String, Value>,
        depth: usize,
    ) {
        let shown = value.as_array().into_iter().flatten().filter(|b| b.get(HIDDEN) != Some(&Value::Bool(true)));
        let branches: Vec<Value> = shown.map(|b| self.compact(b, depth + 1)).collect();
        match string_enum(&branches) {
            Some(values) if key != "allOf" && key != "prefixItems" => {
                out.insert("type".into(), json!("string"));
                out.insert("enum".into(), Value::Array(values));
            }
            _ if key == "oneOf" || key == "anyOf" => {
                let mut branches = merge_families(merge_tag_twins(branches));
                said_once(&mut branches);
                // Branches of one type say it once, beside them.
                if !site.contains_key("type")
                    && let Some(shared) = shared_type(&mut branches)
                {
                    out.insert("type".into(), shared);
                }
                out.insert(key.to_string(), Value::Array(branches));
            }
            _ => {
                out.insert(key.to_string(), Value::Array(branches));
            }
        }
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

/// The one `type` every branch has, taken out of them; None (and the
/// branches as they were) when they differ or one has none.
fn shared_type(branches: &mut [Value]) -> Option<Value> {
    let first = branches.first()?.get("type")?.clone();
    if branches.len() < 2 || branches.iter().any(|b| b.get("type") != Some(&first)) {
        return None;
    }
    for branch in branches.iter_mut() {
        if let Some(map) = branch.as_object_mut() {
            map.remove("type");
        }
    }
    Some(first)
}

/// Drops a default that says nothing (null, false, 0, empty) or that the
/// description already states, and an `anyOf [string, array of strings]`
/// becomes one type list.
fn tidy(mut schema: Map<String, Value>) -> Value {
    // A constant says its own type, and a list of strings to pick from.
    let strings = schema.get("enum").and_then(Value::as_array).is_some_and(|e| e.iter().all(Value::is_string));
    if (schema.contains_key("const") || strings) && schema.get("type").is_some_and(Value::is_string) {
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

/// A type without its `null` (an optional field is simply left out).
fn without_null(types: &Value) -> Value {
    match types {
        Value::Array(list) => one_or_list(list.iter().filter(|t| t.as_str() != Some("null")).cloned().collect()),
        other => other.clone(),
    }
}

/// The schema keyword a request type marks a field or a variant with
/// (`#[schemars(extend("x-hidden" = true))]`) that is taken but not shown
/// to a model: another field or tool says the same (a block operation's
/// `run_rustfmt` beside the request's `rustfmt`; transform's `refactor`
/// operation, which transform_refactor is).
const HIDDEN: &str = "x-hidden";

/// The most values an `enum` lists; a longer one is left a plain string.
const MAX_ENUM_VALUES: usize = 12;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
                    "mode": { "enum": ["a", "b"], "default": "a" },
                    "most": { "type": "integer", "description": "At most this many." },
                    "limit": { "type": "integer" },
                    "span": { "type": "object", "properties": { "start": { "type": "integer" } } }
                }
            })
        );
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
}

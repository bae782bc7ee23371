//! Unions a model reads once: branches that differ only in their tag, or
//! that a request type marks as one family, become one branch; enums of
//! string constants become `enum` lists.

use std::collections::BTreeSet;

use serde_json::{Value, json};

/// The values of branches that are each one string constant (a Rust enum of
/// unit variants, each with its doc comment): an `enum` list instead.
pub(super) fn string_enum(branches: &[Value]) -> Option<Vec<Value>> {
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
pub(super) fn said_once(branches: &mut [Value]) {
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
pub(super) fn without_case_forms(mut values: Vec<Value>) -> Vec<Value> {
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
pub(super) fn merge_tag_twins(branches: Vec<Value>) -> Vec<Value> {
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

pub(super) fn merge_families(branches: Vec<Value>) -> Vec<Value> {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::input_schema;
    use super::*;

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
            json!({ "description": "write: Write it. copy: Copy it.",
                    "properties": { "op": { "enum": ["write", "copy"] }, "path": { "type": "string" },
                                    "content": { "type": "string" }, "to": { "type": "string" } },
                    "required": ["op", "path"] })
        );
        assert_eq!(branches[1]["properties"]["kind"], json!({ "type": "string" }), "13 values are not listed");
        // Every branch is an object: said once, beside them.
        assert_eq!(compact["properties"]["op"]["type"], "object", "{compact}");
        assert!(!compact.to_string().contains("x-merge"));
    }
}

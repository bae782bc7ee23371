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

mod input;
mod output;
mod text;
mod union;

use serde_json::Value;

pub(crate) use input::input_schema;
pub(crate) use output::output_schema;

/// How deep a schema is followed before it is cut to `{}` (any value):
/// schemars' schemas are shallow; this only bounds a malformed one.
const MAX_DEPTH: usize = 24;

pub(crate) fn is_null_type(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
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

/// A `type` keyword's value: the one type, or the list of them.
fn one_or_list(mut types: Vec<Value>) -> Value {
    if types.len() == 1 { types.remove(0) } else { Value::Array(types) }
}

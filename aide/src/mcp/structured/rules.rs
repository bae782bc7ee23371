//! What a compact document leaves unsaid, field by field: the same rules
//! for every tool, by the field's name (its meaning is the same wherever
//! the name is used), applied to a document's records and, the same way,
//! to its schema.

use serde_json::{Map, Value};

/// The envelope's fields: the same for every tool, said by the server's
/// instructions (`isError` says what `ok` does).
pub(super) const ENVELOPE: &[&str] = &["tool", "version", "execution_id", "ok", "stats"];

/// Fields for machines (ids, byte spans, timings, echoes of the server's
/// own settings) or derivable from others in the record: given only with
/// `detail: "full"`. A pair's second part, when given, is the JSON type the
/// field must have for the rule to apply (`matched` is a list of character
/// positions in discover's records, a resolution in references').
pub(super) const DETAIL: &[(&str, Option<&str>)] = &[
    // Ids and byte spans: a guarded edit needs the file's checksum and
    // lines, which stay; replace_matches takes detail-full records.
    ("match_id", None),
    ("byte_start", None),
    ("byte_end", None),
    // Timings.
    ("elapsed_ms", None),
    ("execution_time_ms", None),
    ("performance", None),
    // Counts of the work done, not of what was found.
    ("files_searched", None),
    ("files_parsed", None),
    // The server's own settings, said once in its instructions.
    ("sandbox", None),
    ("timeout_ms", None),
    // tree-sitter's name for what `kind` says.
    ("node_kind", None),
    // A ranking's workings: the order says it.
    ("score", None),
    ("reason_text", None),
    ("matched", Some("array")),
    // A commit's parents (git show gives them) and e-mail addresses (the
    // name says who).
    ("parents", None),
    ("author_email", None),
    ("committer_email", None),
    // Where on its line a record starts, and ends: line edits take lines,
    // and the line's text shows where (two matches on one line are two rows).
    ("column", None),
    ("end_column", None),
    // The seed's point form of a Dialect range, deprecated: `line`,
    // `column`, `end_line` and `end_column` say the same.
    ("start", Some("object")),
    ("end", Some("object")),
];

/// Fields left out when they equal another field of the same record.
const SAME_AS: &[(&str, &str)] =
    &[("end_line", "line"), ("committer", "author"), ("committer_email", "author_email"), ("commit_time", "time")];

/// Values that go without saying.
const DEFAULTS: &[(&str, &str)] = &[("kind", "file")];

/// Fields that are a count whose zero says nothing (nothing was redacted).
const ZERO_IS_NOTHING: &[&str] = &["redactions"];

/// Fields that say the byte length of another string field of the record
/// (`stdout_bytes` of `stdout`), left out when it is the whole of it.
const LENGTH_OF: &[(&str, &str)] = &[("stdout_bytes", "stdout"), ("stderr_bytes", "stderr")];

/// Object ids written in full that a prefix names as well (git takes a
/// commit by its first 12 hex digits, as the text form shows it; every
/// expected checksum may be the first 12 hex digits of a file's).
const ABBREVIATED: &[(&str, usize)] = &[
    ("commit", 12),
    ("checksum", aide_core::checksum::SHORT_HEX),
    ("checksum_before", aide_core::checksum::SHORT_HEX),
    ("checksum_after", aide_core::checksum::SHORT_HEX),
    ("tree_checksum", aide_core::checksum::SHORT_HEX),
];

/// A commit's time said as its date (`git log --format=%as`); the time of
/// day with `detail: "full"`.
const COMMIT_DATE: &str = "time";

/// Counts of the document's records, left out when nothing was cut (the
/// records are all there to count): what each counts.
const TOTALS: &[(&str, Counted)] = &[
    ("total", Counted::Records),
    ("total_matches", Counted::Records),
    ("files_with_matches", Counted::Files),
    ("total_lines", Counted::Lines),
];

/// What a total counts.
#[derive(Clone, Copy)]
enum Counted {
    Records,
    Files,
    Lines,
}

/// Top-level fields the request says (the arguments choose the mode).
const ECHOED: &[&str] = &["mode"];

/// Fields said even when they repeat an argument: a dry run's counts and
/// statuses (`applied: 2`) read as a write without it.
const SAID_THOUGH_ASKED: &[&str] = &["dry_run"];

/// Whether `name` is a detail field for a value of schema type `kind`
/// (`None`: any).
pub(super) fn is_detail(name: &str, kind: Option<&str>) -> bool {
    DETAIL.iter().any(|(n, only)| *n == name && only.is_none_or(|t| kind.is_none_or(|k| k == t)))
}

/// The JSON type of a value, as a schema names it.
pub(super) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value that says nothing: null, false, an empty string, list or object.
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// Leaves out of one object (a record, or the document's result) what the
/// rules say goes unsaid; `context` is the document's top level, whose
/// fields a record does not repeat (references' `name`).
pub(super) fn compact_object(object: &mut Map<String, Value>, context: Option<&Map<String, Value>>) {
    for value in object.values_mut() {
        compact_value(value);
    }
    let snapshot = object.clone();
    object.retain(|name, value| {
        if is_empty(value) || is_detail(name, Some(type_of(value))) {
            return false;
        }
        if SAME_AS.iter().any(|(n, other)| n == name && snapshot.get(*other) == Some(value)) {
            return false;
        }
        if DEFAULTS.iter().any(|(n, d)| n == name && value.as_str() == Some(d)) {
            return false;
        }
        if ZERO_IS_NOTHING.contains(&name.as_str()) && value.as_u64() == Some(0) {
            return false;
        }
        let whole_length = LENGTH_OF.iter().any(|(n, of)| {
            n == name && snapshot.get(*of).and_then(Value::as_str).map(|s| s.len() as u64) == value.as_u64()
        });
        if whole_length {
            return false;
        }
        // A record's `name` that its `name_path` ends with, its `parent`
        // that the path starts with, its `depth` that the path's segments count.
        if let Some(path) = snapshot.get("name_path").and_then(Value::as_str) {
            let derived = match (name.as_str(), &*value) {
                ("name", Value::String(n)) => path == n || path.ends_with(&format!("/{n}")),
                ("parent", Value::String(p)) => path.starts_with(&format!("{p}/")),
                ("depth", Value::Number(d)) => d.as_u64() == Some(path.split('/').count() as u64),
                _ => false,
            };
            if derived {
                return false;
            }
        }
        // A match on one line is in its line's text.
        if name == "match"
            && let (Some(m), Some(line)) = (value.as_str(), snapshot.get("line_text").and_then(Value::as_str))
            && !m.contains('\n')
            && line.contains(m)
        {
            return false;
        }
        // A record repeats nothing the document says once.
        !context.is_some_and(|top| top.get(name) == Some(value))
    });
    for (name, len) in ABBREVIATED {
        if let Some(Value::String(id)) = object.get_mut(*name)
            && id.len() > *len
            && id.bytes().all(|b| b.is_ascii_hexdigit())
        {
            id.truncate(*len);
        }
    }
    // A commit's date: `2024-11-13T12:00:00Z` says `2024-11-13`.
    if object.contains_key("commit")
        && let Some(Value::String(time)) = object.get_mut(COMMIT_DATE)
        && time.len() > 10
        && time.as_bytes().get(10) == Some(&b'T')
    {
        time.truncate(10);
    }
}

/// A checksum shortened to the digits every expected checksum may be.
pub(super) fn short_checksum(value: Value) -> Value {
    match value {
        Value::String(mut hex) if hex.len() > aide_core::checksum::SHORT_HEX => {
            hex.truncate(aide_core::checksum::SHORT_HEX);
            Value::String(hex)
        }
        other => other,
    }
}

/// Leaves out the totals that count what the document shows in full: the
/// records of its one record field (`fields`: the tool's), their files or
/// their lines, when nothing was cut; and `totals_exact`, then true.
pub(super) fn drop_shown_totals<'a>(top: &mut Map<String, Value>, fields: impl Iterator<Item = &'a str>) {
    let cut = top.get("truncated") == Some(&Value::Bool(true)) || top.get("next_offset").is_some_and(|v| !v.is_null());
    let present: Vec<&Vec<Value>> =
        fields.filter_map(|f| top.get(f).and_then(Value::as_array)).filter(|r| !r.is_empty()).collect();
    let [records] = present.as_slice() else { return };
    if cut {
        return;
    }
    let mut files: Vec<&Value> = Vec::new();
    let mut lines: Vec<(&Value, &Value)> = Vec::new();
    for r in records.iter() {
        let (path, line) = (&r["path"], &r["line"]);
        if !files.contains(&path) {
            files.push(path);
        }
        if !lines.contains(&(path, line)) {
            lines.push((path, line));
        }
    }
    let counts: Vec<(&str, u64)> = TOTALS
        .iter()
        .map(|(name, counted)| {
            let n = match counted {
                Counted::Records => records.len(),
                Counted::Files => files.len(),
                Counted::Lines => lines.len(),
            };
            (*name, n as u64)
        })
        .collect();
    let exact = top.get("totals_exact").is_none_or(|v| v == &Value::Bool(true));
    if exact {
        top.remove("totals_exact");
    }
    top.retain(|name, value| !(exact && counts.iter().any(|(n, c)| n == name && value.as_u64() == Some(*c))));
}

/// Leaves out of the document's top level what the call said: a field
/// that repeats the argument of its name, the mode the arguments chose,
/// and a `working_dir` that is the root.
pub(super) fn drop_echoes(
    top: &mut Map<String, Value>,
    arguments: &Map<String, Value>,
    root: Option<&std::path::Path>,
) {
    let root = root.and_then(|r| r.to_str());
    top.retain(|name, value| {
        let echoed = arguments.get(name).is_some_and(|a| a == value && !a.is_array() && !a.is_object())
            && !SAID_THOUGH_ASKED.contains(&name.as_str());
        let at_root = name == "working_dir" && root.is_some() && value.as_str() == root;
        !(echoed || at_root || ECHOED.contains(&name.as_str()))
    });
}

/// [`compact_object`] on every object within `value`.
pub(super) fn compact_value(value: &mut Value) {
    match value {
        Value::Object(object) => compact_object(object, None),
        Value::Array(items) => items.iter_mut().for_each(compact_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_dry_run_says_so_though_it_was_asked() {
        let mut top = json!({"dry_run": true, "limit": 5, "applied": 2}).as_object().cloned().unwrap();
        let asked = json!({"dry_run": true, "limit": 5}).as_object().cloned().unwrap();
        drop_echoes(&mut top, &asked, None);
        assert_eq!(Value::Object(top), json!({"dry_run": true, "applied": 2}));
    }

    fn compacted(mut v: Value, context: Value) -> Value {
        let context = context.as_object().cloned();
        if let Value::Object(o) = &mut v {
            compact_object(o, context.as_ref());
        }
        v
    }

    #[test]
    fn empty_values_details_and_repeated_facts_go() {
        let record = json!({
            "match_id": "ab", "byte_start": 1, "byte_end": 4, "line": 3, "end_line": 3, "column": 2,
            "end_column": 5, "match": "abc", "line_text": "xabcx", "context_before": [], "enclosing": null,
            "name": "abc", "truncated": false
        });
        let got = compacted(record, json!({ "name": "abc" }));
        assert_eq!(got, json!({ "line": 3, "line_text": "xabcx" }));
    }

    #[test]
    fn a_fact_that_differs_stays() {
        let record = json!({ "line": 3, "end_line": 5, "match": "a\nb", "line_text": "a", "name": "f",
                             "name_path": "S/g", "parent": "T", "depth": 3, "redactions": 2, "exit_code": 0,
                             "matched": "unresolved" });
        let got = compacted(record.clone(), json!({ "name": "g" }));
        assert_eq!(got, record);
    }

    #[test]
    fn derivable_fields_of_symbols_and_commands_go() {
        let symbol = json!({ "name": "new", "name_path": "S/new", "parent": "S", "depth": 2, "kind": "Method" });
        assert_eq!(compacted(symbol, json!({})), json!({ "name_path": "S/new", "kind": "Method" }));
        let ran = json!({ "stdout": "hi\n", "stdout_bytes": 3, "stderr": "", "stderr_bytes": 0, "redactions": 0,
                          "exit_code": 0, "sandbox": { "mode": "workspace-write" }, "timeout_ms": 120000 });
        assert_eq!(compacted(ran, json!({})), json!({ "stdout": "hi\n", "exit_code": 0 }));
        let commit = json!({ "commit": "8d09c0858a32bcb6b7e865197450d785d812c756", "author": "x", "committer": "x",
                             "time": "t", "commit_time": "t", "parents": ["aa"] });
        assert_eq!(compacted(commit, json!({})), json!({ "commit": "8d09c0858a32", "author": "x", "time": "t" }));
    }
}

//! JSON requests and schemas.
//!
//! Every tool takes its arguments either as flags or as one JSON request
//! (`--request FILE`, `--request -` for stdin) whose fields mirror the flags
//! in snake_case. Unknown fields are refused with the closest known name.
//! `--schema` prints the JSON Schema of the request and of the output.

use std::collections::BTreeSet;
use std::io::Read;

use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::envelope::Diagnostic;
use crate::error::{AideError, RequestError};
use crate::suggest::closest;

/// The largest request document taken (64 MiB): more is refused before it
/// is parsed, so a runaway request cannot exhaust memory.
pub const MAX_REQUEST_BYTES: u64 = 64 << 20;

/// Reads the request document from a file, or stdin for `-`.
pub fn read_request_source(source: &str) -> Result<String, AideError> {
    let mut text = String::new();
    let read = if source == "-" {
        std::io::stdin().take(MAX_REQUEST_BYTES + 1).read_to_string(&mut text).map_err(RequestError::ReadStdin)
    } else {
        std::fs::File::open(source)
            .and_then(|f| f.take(MAX_REQUEST_BYTES + 1).read_to_string(&mut text))
            .map_err(|e| RequestError::ReadFile { path: source.to_string(), source: e })
    };
    read?;
    check_request_size(text.len())?;
    Ok(text)
}

/// Refuses a request document over [`MAX_REQUEST_BYTES`]: the same limit
/// for `--request` and for an MCP call's arguments.
pub fn check_request_size(bytes: usize) -> Result<(), AideError> {
    if bytes as u64 > MAX_REQUEST_BYTES {
        return Err(RequestError::TooLarge.into());
    }
    Ok(())
}

/// The bytes `value` takes as compact JSON, counted without building them
/// (an MCP call's arguments are held to the `--request` limit).
pub fn json_len(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).map_or(usize::MAX, |()| count.0)
}

/// Parses a request document into `T`, with a `deprecated_name` diagnostic
/// for each old name it used.
///
/// `aliases` maps old names to the canonical field names of the vocabulary
/// (docs/CONTRACT.md; e.g. the seed's `file_glob` to `glob`): they keep
/// working, each said once in the diagnostics; giving both is an error.
pub fn parse_request<T: DeserializeOwned + JsonSchema>(
    text: &str,
    aliases: &[(&str, &str)],
) -> Result<(T, Vec<Diagnostic>), AideError> {
    request_from_value(parse_request_value(text)?, aliases)
}

/// The diagnostic for a request that used `alias` for `canonical`.
pub fn deprecated_name(alias: &str, canonical: &str) -> Diagnostic {
    Diagnostic::new(
        "deprecated_name",
        format!("`{alias}` is an old name of `{canonical}`: it still works, but write `{canonical}`"),
    )
}

/// The request document as JSON, or `invalid_request` with where it broke.
pub fn parse_request_value(text: &str) -> Result<Value, AideError> {
    serde_json::from_str(text).map_err(|e| RequestError::NotJson(e).into())
}

/// Like [`parse_request`], from an already parsed value.
pub fn request_from_value<T: DeserializeOwned + JsonSchema>(
    mut value: Value,
    aliases: &[(&str, &str)],
) -> Result<(T, Vec<Diagnostic>), AideError> {
    let mut notes = Vec::new();
    let Value::Object(map) = &mut value else {
        return Err(RequestError::NotAnObject.into());
    };
    for (alias, canonical) in aliases {
        if let Some(v) = map.remove(*alias) {
            if map.contains_key(*canonical) {
                let (alias, canonical) = (alias.to_string(), canonical.to_string());
                return Err(RequestError::AliasAndCanonical { alias, canonical }.into());
            }
            map.insert((*canonical).to_string(), v);
            notes.push(deprecated_name(alias, canonical));
        }
    }
    let schema = schemars::schema_for!(T);
    let known = property_names(&schema);
    if let Some(key) = map.keys().find(|key| !known.contains(key.as_str())) {
        return Err(unknown_field(key, known.iter().map(String::as_str)));
    }
    let request = serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        let message = e.into_inner().to_string();
        if field.is_empty() || field == "." {
            RequestError::Invalid { message }
        } else {
            RequestError::InvalidField { field, message }
        }
    })?;
    Ok((request, notes))
}

/// A request field no tool field has: its name, the closest one, and every
/// known one (the CLI's `--request` and an MCP call's arguments alike).
pub fn unknown_field<'a>(key: &str, known: impl Iterator<Item = &'a str> + Clone) -> AideError {
    let nearest = closest(key, known.clone()).map(str::to_string);
    RequestError::UnknownField { key: key.to_string(), closest: nearest, known: known.map(str::to_string).collect() }
        .into()
}

/// The top-level property names of an object schema, following `$ref`,
/// `allOf` and flattened groups.
fn property_names(schema: &Schema) -> BTreeSet<String> {
    schema_property_names(schema.as_value())
}

/// The top-level property names of the object schema `root` (as JSON),
/// following `$ref` (into `root`'s `$defs`), `allOf` and flattened groups.
pub fn schema_property_names(root: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_properties(root, root, &mut out, 0);
    out
}

fn collect_properties(root: &Value, node: &Value, out: &mut BTreeSet<String>, depth: usize) {
    if depth > 16 {
        return;
    }
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        out.extend(props.keys().cloned());
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(list) = node.get(key).and_then(Value::as_array) {
            for sub in list {
                collect_properties(root, sub, out, depth + 1);
            }
        }
    }
    if let Some(r) = node.get("$ref").and_then(Value::as_str)
        && let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p))
    {
        collect_properties(root, target, out, depth + 1);
    }
}

/// Deserialises a string or a list of strings into a list, so a request may
/// say `"pattern": "fn"` or `"pattern": ["fn", "struct"]`.
pub fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match <OneOrMany as serde::Deserialize>::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

/// The JSON Schema of [`one_or_many`] fields.
pub fn one_or_many_schema(_: &mut schemars::SchemaGenerator) -> Schema {
    schemars::json_schema!({
        "anyOf": [ { "type": "string" }, { "type": "array", "items": { "type": "string" } } ]
    })
}

/// Refuses `--limit 0`: a page of nothing would hand back the offset it was
/// given, and a caller paging by `next_offset` would loop forever.
pub fn check_limit(limit: Option<usize>) -> Result<(), AideError> {
    match limit {
        Some(0) => Err(RequestError::ZeroLimit.into()),
        _ => Ok(()),
    }
}

/// Refuses a `--timeout` (or other seconds flag) that is not a positive,
/// finite number of seconds; `None` (no limit) passes.
pub fn check_timeout(flag: &str, seconds: Option<f64>) -> Result<(), AideError> {
    match seconds {
        Some(t) if !(t > 0.0 && t <= MAX_SECONDS) => {
            Err(RequestError::NotPositiveSeconds { field: field_of_flag(flag) }.into())
        }
        _ => Ok(()),
    }
}

/// The longest span of seconds a flag takes (ten years): past it a
/// `Duration` overflows, and no wait is meant to be that long.
pub const MAX_SECONDS: f64 = 315_576_000.0;

/// Checks a number of seconds that may be zero (`--grace 0`, `wait --timeout 0`).
pub fn check_seconds(flag: &str, seconds: f64) -> Result<(), AideError> {
    if (0.0..=MAX_SECONDS).contains(&seconds) {
        Ok(())
    } else {
        Err(RequestError::SecondsOutOfRange { field: field_of_flag(flag) }.into())
    }
}

/// The request field a flag sets: `--max-depth` is `max_depth`, so an
/// error names the field for a `--request` or MCP caller too.
pub fn field_of_flag(flag: &str) -> String {
    flag.trim_start_matches('-').replace('-', "_")
}

/// Parses `NAME=value` pairs (`--env`, `--set`). Names must be shell
/// identifiers, so every tool can export them.
pub fn parse_env_pairs(pairs: &[String]) -> Result<Vec<(String, String)>, AideError> {
    pairs
        .iter()
        .map(|p| match p.split_once('=') {
            Some((k, v)) if is_identifier(k) => Ok((k.to_string(), v.to_string())),
            _ => Err(RequestError::NotAnEnvPair { pair: p.clone() }.into()),
        })
        .collect()
}

/// Whether `s` is a shell identifier: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The document `--schema` prints: the request's schema, and the output's:
/// the whole document a run prints, its result in the envelope or an error.
pub fn schema_document<Req: JsonSchema, Out: JsonSchema + serde::Serialize + 'static>(
    tool: &str,
    version: &str,
) -> Value {
    serde_json::json!({
        "tool": tool,
        "version": version,
        "request": schemars::schema_for!(Req),
        "output": schemars::schema_for!(crate::envelope::Document<'static, Out>),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code;

    #[derive(Debug, serde::Deserialize, JsonSchema, Default)]
    #[serde(default)]
    struct Inner {
        hidden: bool,
    }

    #[derive(Debug, serde::Deserialize, JsonSchema, Default)]
    #[serde(default)]
    struct Req {
        pattern: String,
        glob: Vec<String>,
        #[serde(flatten)]
        inner: Inner,
    }

    #[test]
    fn accepts_known_fields_flattened_fields_and_aliases() {
        let (r, notes): (Req, _) =
            parse_request(r#"{"pattern":"fn","file_glob":["*.rs"],"hidden":true}"#, &[("file_glob", "glob")]).unwrap();
        assert_eq!(r.pattern, "fn");
        assert_eq!(r.glob, vec!["*.rs"]);
        assert!(r.inner.hidden);
        // The old name still works, and the run says which name to write.
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].code, "deprecated_name");
        assert!(notes[0].message.contains("write `glob`"), "{}", notes[0].message);
        let (_, notes): (Req, _) =
            parse_request(r#"{"pattern":"fn","glob":["*.rs"]}"#, &[("file_glob", "glob")]).unwrap();
        assert!(notes.is_empty());
    }

    #[test]
    fn json_len_is_the_compact_documents_length() {
        let value = serde_json::json!({ "a": [1, "two", null], "é": { "x": true } });
        assert_eq!(json_len(&value), serde_json::to_vec(&value).unwrap().len());
    }

    #[test]
    fn refuses_unknown_fields_with_suggestion() {
        let e = parse_request::<Req>(r#"{"patern":"fn"}"#, &[]).unwrap_err();
        assert_eq!(e.code, code::INVALID_REQUEST);
        assert!(e.hint.as_deref().unwrap().contains("did you mean `pattern`"), "{:?}", e.hint);
    }

    #[test]
    fn refuses_bad_json_wrong_types_and_alias_clashes() {
        assert_eq!(parse_request::<Req>("{", &[]).unwrap_err().code, code::INVALID_REQUEST);
        assert_eq!(parse_request::<Req>("[]", &[]).unwrap_err().code, code::INVALID_REQUEST);
        assert_eq!(parse_request::<Req>(r#"{"pattern":3}"#, &[]).unwrap_err().code, code::INVALID_REQUEST);
        let e = parse_request::<Req>(r#"{"glob":[],"file_glob":[]}"#, &[("file_glob", "glob")]).unwrap_err();
        assert_eq!(e.code, code::INVALID_REQUEST);
    }

    #[test]
    fn env_pairs() {
        assert_eq!(
            parse_env_pairs(&["A=1".into(), "B=x=y".into()]).unwrap(),
            vec![("A".into(), "1".into()), ("B".into(), "x=y".into())]
        );
        for bad in ["=1", "NOEQ", "1A=x", "a.b=c"] {
            assert_eq!(parse_env_pairs(&[bad.into()]).unwrap_err().code, code::INVALID_ARGUMENTS, "{bad}");
        }
    }
}

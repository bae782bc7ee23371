//! YAML lock files (pnpm-lock.yaml, yarn berry's yarn.lock) read with
//! saphyr into plain strings and maps.

use saphyr::{LoadableYamlNode, ScalarOwned, YamlOwned};

use crate::model::{ParseFailure, too_deep};

/// The first document of a YAML text. Deep nesting (brackets, or lines
/// indented past 512 columns) is refused before the recursive loader runs.
pub(crate) fn load(text: &str) -> Result<YamlOwned, ParseFailure> {
    if too_deep(text) || text.lines().any(|l| l.len() - l.trim_start().len() > 512) {
        return Err(ParseFailure("nested too deeply".into()));
    }
    let docs = YamlOwned::load_from_str(text)?;
    Ok(docs.into_iter().next().unwrap_or(YamlOwned::BadValue))
}

/// A scalar as text (a number or boolean as written back).
pub(crate) fn text(y: &YamlOwned) -> Option<String> {
    match y {
        YamlOwned::Value(ScalarOwned::String(s)) => Some(s.clone()),
        YamlOwned::Value(ScalarOwned::Integer(i)) => Some(i.to_string()),
        YamlOwned::Value(ScalarOwned::FloatingPoint(f)) => Some(f.to_string()),
        YamlOwned::Value(ScalarOwned::Boolean(b)) => Some(b.to_string()),
        YamlOwned::Representation(s, _, _) => Some(s.clone()),
        YamlOwned::Tagged(_, inner) => text(inner),
        _ => None,
    }
}

/// A mapping's entries with text keys, in the document's order.
pub(crate) fn entries(y: Option<&YamlOwned>) -> Vec<(String, &YamlOwned)> {
    match y {
        Some(YamlOwned::Mapping(m)) => m.iter().filter_map(|(k, v)| Some((text(k)?, v))).collect(),
        Some(YamlOwned::Tagged(_, inner)) => entries(Some(inner)),
        _ => Vec::new(),
    }
}

/// The value of `key` in a mapping.
pub(crate) fn get<'y>(y: Option<&'y YamlOwned>, key: &str) -> Option<&'y YamlOwned> {
    match y? {
        YamlOwned::Mapping(m) => m.iter().find(|(k, _)| text(k).as_deref() == Some(key)).map(|(_, v)| v),
        YamlOwned::Tagged(_, inner) => get(Some(inner), key),
        _ => None,
    }
}

/// `name@version` split at the `@` that is not a scope's.
pub(crate) fn split_at_version(spec: &str) -> Option<(&str, &str)> {
    let from = usize::from(spec.starts_with('@'));
    let at = spec.get(from..)?.find('@')? + from;
    Some((&spec[..at], &spec[at + 1..]))
}

//! `new_name`: what an extract makes, named by the caller instead of the
//! server (clangd calls an extracted variable `placeholder` and a function
//! `extracted`). Done only where it is exact: the server's edit must
//! introduce one name, an identifier found nowhere in the file before
//! (so every place of it is the edit's own), each of its places inside
//! the text the edit writes; `new_name` must be an identifier the file
//! does not already use (it would capture or shadow it). Then the edit's
//! texts are written with `new_name` in those places, and the whole is
//! committed as one operation, as the server's edit alone would be.

use std::collections::BTreeSet;

use aide_core::{AideError, Lang};
use llm_ast_search::SourceFile;
use tree_sitter::Node;

use super::ServerFile;
use crate::error::TransformError;

/// Writes `new_name` for the one name the edit of `path` introduces, in
/// `files`' texts; the name the server gave.
pub(super) fn rename_introduced(
    path: &str,
    lang: Lang,
    original: &[u8],
    files: &mut [ServerFile],
    new_name: &str,
) -> Result<String, AideError> {
    if !is_identifier(new_name) {
        return Err(TransformError::NewNameInvalid { name: new_name.to_string() }.into());
    }
    let unparsed = || not_exact(path, new_name, Vec::new(), "the file could not be parsed to find the name");
    let before: BTreeSet<String> =
        identifier_places(path, lang, original).ok_or_else(unparsed)?.into_iter().map(|(name, _, _)| name).collect();
    if before.contains(new_name) {
        return Err(TransformError::NewNameTaken { path: path.to_string(), name: new_name.to_string() }.into());
    }
    let Some(own) = files.iter_mut().find(|f| f.path == path) else {
        return Err(not_exact(path, new_name, Vec::new(), "the action's edit does not change the file"));
    };
    own.edits.sort_by_key(|e| (e.start, e.end));
    // The file as the edit leaves it, and where each edit's text lands in it.
    let mut after = Vec::with_capacity(original.len());
    let mut written: Vec<(usize, usize)> = Vec::with_capacity(own.edits.len());
    let mut at = 0;
    for edit in &own.edits {
        if edit.start < at || edit.end < edit.start || edit.end > original.len() {
            return Err(not_exact(path, new_name, Vec::new(), "the server's edits overlap or pass the file's end"));
        }
        after.extend_from_slice(&original[at..edit.start]);
        written.push((after.len(), after.len() + edit.text.len()));
        after.extend_from_slice(&edit.text);
        at = edit.end;
    }
    after.extend_from_slice(&original[at..]);
    let introduced: Vec<(String, usize, usize)> = identifier_places(path, lang, &after)
        .ok_or_else(unparsed)?
        .into_iter()
        .filter(|(name, _, _)| !before.contains(name))
        .collect();
    let names: BTreeSet<&str> = introduced.iter().map(|(n, _, _)| n.as_str()).collect();
    let [placeholder] = names.into_iter().collect::<Vec<_>>()[..] else {
        let all = introduced.iter().map(|(n, _, _)| n.clone()).collect::<BTreeSet<_>>().into_iter().collect();
        return Err(not_exact(path, new_name, all, "its edit does not introduce exactly one new name"));
    };
    let placeholder = placeholder.to_string();
    // Each place, in the text of the edit that writes it, from the last back.
    let mut places: Vec<(usize, usize, usize)> = Vec::new();
    for (_, start, end) in &introduced {
        let Some(i) = written.iter().position(|&(s, e)| s <= *start && *end <= e) else {
            return Err(not_exact(path, new_name, vec![placeholder], "a place of the name is not in the edit's text"));
        };
        places.push((i, start - written[i].0, end - written[i].0));
    }
    places.sort_unstable();
    for &(i, start, end) in places.iter().rev() {
        own.edits[i].text.splice(start..end, new_name.bytes());
    }
    let elsewhere = files
        .iter()
        .filter(|f| f.path != path)
        .any(|f| f.edits.iter().any(|e| e.text.windows(placeholder.len()).any(|w| w == placeholder.as_bytes())));
    if elsewhere {
        return Err(not_exact(path, new_name, vec![placeholder], "the edit writes the name in other files too"));
    }
    Ok(placeholder)
}

fn not_exact(path: &str, new_name: &str, introduced: Vec<String>, why: &str) -> AideError {
    TransformError::NewNameNotExact {
        path: path.to_string(),
        name: new_name.to_string(),
        introduced,
        why: why.to_string(),
    }
    .into()
}

/// A name every supported language takes as an identifier.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every identifier leaf of a file's syntax tree: its text and bytes.
fn identifier_places(path: &str, lang: Lang, source: &[u8]) -> Option<Vec<(String, usize, usize)>> {
    let file = SourceFile::parse(path.to_string(), lang, source.to_vec()).ok()?;
    let mut out = Vec::new();
    let mut cursor = file.tree.walk();
    'walk: loop {
        let node: Node<'_> = cursor.node();
        if node.child_count() == 0 && node.kind().contains("identifier") {
            let text = String::from_utf8_lossy(&source[node.byte_range()]).into_owned();
            out.push((text, node.start_byte(), node.end_byte()));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Edit;

    fn file(edits: &[(usize, usize, &str)]) -> Vec<ServerFile> {
        let edits =
            edits.iter().map(|&(start, end, text)| Edit { start, end, text: text.as_bytes().to_vec() }).collect();
        vec![ServerFile { path: "m.py".into(), checksum: String::new(), edits }]
    }

    fn texts(files: &[ServerFile]) -> Vec<String> {
        files[0].edits.iter().map(|e| String::from_utf8_lossy(&e.text).into_owned()).collect()
    }

    #[test]
    fn the_one_name_an_edit_introduces_is_written_as_new_name() {
        let original = b"y = f(a * 2)\n";
        let extract = [(0, 0, "placeholder = a * 2\n"), (6, 11, "placeholder")];
        let mut files = file(&extract);
        let from = rename_introduced("m.py", Lang::Python, original, &mut files, "doubled").unwrap();
        assert_eq!(from, "placeholder");
        assert_eq!(texts(&files), ["doubled = a * 2\n", "doubled"]);
        // A name the file uses would capture it.
        let taken = rename_introduced("m.py", Lang::Python, original, &mut file(&extract), "f").unwrap_err();
        assert_eq!(taken.code, aide_core::code::CONFLICT);
        let invalid = rename_introduced("m.py", Lang::Python, original, &mut file(&extract), "2x").unwrap_err();
        assert_eq!(invalid.code, aide_core::code::INVALID_ARGUMENTS);
        // Two new names: which one is meant is not known.
        let two = [(0, 0, "placeholder = other * 2\n"), (6, 11, "placeholder")];
        let refused = rename_introduced("m.py", Lang::Python, original, &mut file(&two), "doubled").unwrap_err();
        assert_eq!(refused.code, aide_core::code::NOT_OFFERED);
        // A name the file had already is not the edit's: nothing new, refused.
        let reused = [(0, 0, "a = a * 2\n"), (6, 11, "a")];
        let refused = rename_introduced("m.py", Lang::Python, original, &mut file(&reused), "doubled").unwrap_err();
        assert_eq!(refused.code, aide_core::code::NOT_OFFERED);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::scan::Edit;

    proptest::proptest! {
        /// Whatever edits a server sends (overlapping, past the end,
        /// splitting characters), naming them refuses or renames, never
        /// panics; a rename keeps every edit's span.
        #[test]
        fn any_edit_is_named_or_refused_without_a_panic(
            source in "[a-z_ =+*()\n:é]{0,80}",
            edits in proptest::collection::vec((0usize..90, 0usize..90, "[a-z_ =()\n]{0,20}"), 0..4),
            which in 0usize..9,
        ) {
            let lang = Lang::ALL[which];
            let edits: Vec<Edit> =
                edits.into_iter().map(|(start, end, text)| Edit { start, end, text: text.into_bytes() }).collect();
            let spans: Vec<(usize, usize)> = edits.iter().map(|e| (e.start, e.end)).collect();
            let mut files = vec![ServerFile { path: "f".into(), checksum: String::new(), edits }];
            if rename_introduced("f", lang, source.as_bytes(), &mut files, "named").is_ok() {
                let mut kept: Vec<(usize, usize)> = files[0].edits.iter().map(|e| (e.start, e.end)).collect();
                let mut given = spans;
                kept.sort_unstable();
                given.sort_unstable();
                proptest::prop_assert_eq!(kept, given);
            }
        }
    }
}

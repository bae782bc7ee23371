//! Who calls a symbol, by its server's call hierarchy:
//! `textDocument/prepareCallHierarchy` at the symbol's place, then
//! `callHierarchy/incomingCalls` of each item it gives. Each incoming
//! call's `fromRanges` are the call sites (in the file of its `from`);
//! the callers themselves are left to the outline, so that a caller is the
//! same symbol whichever engine found the call.

use aide_core::Root;
use serde_json::{Value, json};

use super::client::LspFailure;
use super::server::ServerSpec;
use super::{Files, Located, ask_at, keeper};

/// The call sites the server gives for the symbol whose name (or a use
/// of it) is at `byte` of `path`: sorted, each once, inside the root only.
/// A server that has no call hierarchy there (not a function or method,
/// to it) fails with an error saying so, rather than answering "no calls".
pub fn incoming(root: &Root, spec: &ServerSpec, path: &str, byte: usize) -> Result<Vec<Located>, LspFailure> {
    let prepared = ask_at(root, spec, "textDocument/prepareCallHierarchy", path, byte, json!({}))?;
    let items = match prepared {
        Value::Array(items) if !items.is_empty() => items,
        _ => {
            let text = root.read(std::path::Path::new(path)).unwrap_or_default();
            let at = aide_core::LineIndex::new(&text).span(&text, byte, byte);
            return Err(LspFailure::Error(format!(
                "no call hierarchy for the symbol at {path}:{}:{} (not a function or method, to it)",
                at.line, at.column
            )));
        }
    };
    let open = [root.path().join(path)];
    let mut files = Files::default();
    let mut out = Vec::new();
    for item in items {
        let answer = keeper::ask(root, spec, "callHierarchy/incomingCalls", json!({ "item": item }), &open)?;
        out.extend(call_sites(root, &mut files, &answer));
    }
    out.sort_by(|a, b| aide_core::ordering::cmp_location(&a.path, a.start, &b.path, b.start).then(a.end.cmp(&b.end)));
    out.dedup();
    Ok(out)
}

/// The places of an `incomingCalls` answer's `fromRanges` (ranges in the
/// file of each call's `from`); a range outside the root is left out.
fn call_sites(root: &Root, files: &mut Files, answer: &Value) -> Vec<Located> {
    let mut out = Vec::new();
    for call in answer.as_array().into_iter().flatten() {
        let Some(uri) = call.pointer("/from/uri").and_then(Value::as_str) else { continue };
        for range in call.get("fromRanges").and_then(Value::as_array).into_iter().flatten() {
            out.extend(files.locate(root, uri, range));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incoming_calls_become_their_call_sites_in_the_callers_files() {
        let dir = aide_core::fsutil::TempDir::new("lsp-calls").unwrap();
        std::fs::write(dir.path().join("a.py"), "def f(): pass\n\ndef g():\n    f()\n    f()\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let uri = super::super::client::file_uri(&root.path().join("a.py"));
        let range =
            |l: u32, c: u32| json!({"start": {"line": l, "character": c}, "end": {"line": l, "character": c + 1}});
        let answer = json!([
            {"from": {"uri": uri, "name": "g"}, "fromRanges": [range(3, 4), range(4, 4)]},
            {"from": {"uri": "file:///elsewhere/b.py", "name": "h"}, "fromRanges": [range(0, 0)]},
        ]);
        let sites = call_sites(&root, &mut Files::default(), &answer);
        assert_eq!(
            sites,
            [Located { path: "a.py".into(), start: 28, end: 29 }, Located { path: "a.py".into(), start: 36, end: 37 }]
        );
        assert!(call_sites(&root, &mut Files::default(), &Value::Null).is_empty());
    }
}

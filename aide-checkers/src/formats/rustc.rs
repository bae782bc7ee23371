//! `cargo check|clippy --message-format=json`: one JSON object a line;
//! `compiler-message` ones carry rustc's diagnostics with byte spans.

use serde::Deserialize;

use crate::finding::{Point, RawDiagnostic, RawEdit, RawFix, RawRelated, Severity};

#[derive(Deserialize)]
struct Line {
    reason: String,
    #[serde(default)]
    manifest_path: Option<String>,
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    message: String,
    level: String,
    #[serde(default)]
    code: Option<Code>,
    #[serde(default)]
    spans: Vec<Span>,
    #[serde(default)]
    children: Vec<Message>,
}

#[derive(Deserialize)]
struct Code {
    code: String,
}

#[derive(Deserialize)]
struct Span {
    file_name: String,
    byte_start: usize,
    byte_end: usize,
    is_primary: bool,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    suggested_replacement: Option<String>,
    #[serde(default)]
    suggestion_applicability: Option<String>,
}

fn severity(level: &str) -> Option<Severity> {
    match level {
        "error" | "error: internal compiler error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "note" | "help" => Some(Severity::Info),
        // "failure-note" and the like: a summary, not a diagnostic.
        _ => None,
    }
}

/// The diagnostics of cargo's JSON lines. Lines that are not JSON (cargo's
/// own progress, should it print any there) are skipped; none at all with a
/// failed run is the caller's to judge.
pub(crate) fn parse(stdout: &str) -> Result<Vec<RawDiagnostic>, String> {
    let mut out = Vec::new();
    let mut any = false;
    for text in stdout.lines().filter(|l| l.starts_with('{')) {
        let line: Line =
            serde_json::from_str(text).map_err(|e| format!("a line of cargo's JSON does not parse: {e}"))?;
        any = true;
        if line.reason != "compiler-message" {
            continue;
        }
        let Some(m) = line.message else { continue };
        let Some(severity) = severity(&m.level) else { continue };
        let code = m.code.as_ref().map(|c| c.code.clone());
        let primary = m.spans.iter().find(|s| s.is_primary).or(m.spans.first());
        let mut d = match primary {
            Some(p) => RawDiagnostic::at(&p.file_name, Point::Byte(p.byte_start), severity, &m.message)
                .ending(Point::Byte(p.byte_end)),
            // No place in the source (a crate that cannot be found): the package's manifest.
            None => match &line.manifest_path {
                Some(manifest) => RawDiagnostic::at(manifest, Point::Byte(0), severity, &m.message),
                None => continue,
            },
        }
        .with_code(code);
        for s in m.spans.iter().filter(|s| !s.is_primary) {
            d.related.push(RawRelated {
                path: s.file_name.clone(),
                start: Point::Byte(s.byte_start),
                end: Some(Point::Byte(s.byte_end)),
                message: s.label.clone().unwrap_or_default(),
            });
        }
        for child in &m.children {
            let edits: Vec<RawEdit> = child
                .spans
                .iter()
                .filter(|s| s.suggestion_applicability.as_deref() == Some("MachineApplicable"))
                .filter_map(|s| {
                    Some(RawEdit {
                        path: s.file_name.clone(),
                        start: Point::Byte(s.byte_start),
                        end: Point::Byte(s.byte_end),
                        replacement: s.suggested_replacement.clone()?,
                    })
                })
                .collect();
            if !edits.is_empty() {
                d.fixes.push(RawFix { description: child.message.clone(), edits });
            } else if let Some(s) = child.spans.first() {
                d.related.push(RawRelated {
                    path: s.file_name.clone(),
                    start: Point::Byte(s.byte_start),
                    end: Some(Point::Byte(s.byte_end)),
                    message: format!("{}: {}", child.level, child.message),
                });
            }
        }
        out.push(d);
    }
    if !any && !stdout.trim().is_empty() {
        return Err("cargo printed no JSON".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Abridged from `cargo check --message-format=json` on a mismatched type
    /// and an unused import (rustc 1.95).
    const SAMPLE: &str = r#"{"reason":"compiler-artifact","package_id":"x","manifest_path":"/p/Cargo.toml","target":{},"profile":{},"features":[],"filenames":[],"executable":null,"fresh":true}
{"reason":"compiler-message","package_id":"path+file:///p#0.1.0","manifest_path":"/p/Cargo.toml","target":{},"message":{"rendered":"…","$message_type":"diagnostic","children":[{"children":[],"code":null,"level":"help","message":"remove the whole `use` item","rendered":null,"spans":[{"byte_end":24,"byte_start":0,"column_end":1,"column_start":1,"expansion":null,"file_name":"src/lib.rs","is_primary":true,"label":null,"line_end":2,"line_start":1,"suggested_replacement":"","suggestion_applicability":"MachineApplicable","text":[]}]}],"code":{"code":"unused_imports","explanation":null},"level":"warning","message":"unused import: `std::fmt`","spans":[{"byte_end":12,"byte_start":4,"column_end":13,"column_start":5,"expansion":null,"file_name":"src/lib.rs","is_primary":true,"label":null,"line_end":1,"line_start":1,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}]}}
{"reason":"compiler-message","package_id":"path+file:///p#0.1.0","manifest_path":"/p/Cargo.toml","target":{},"message":{"rendered":"…","$message_type":"diagnostic","children":[],"code":{"code":"E0308","explanation":"…"},"level":"error","message":"mismatched types","spans":[{"byte_end":61,"byte_start":58,"column_end":24,"column_start":21,"expansion":null,"file_name":"src/lib.rs","is_primary":true,"label":"expected `u32`, found `&str`","line_end":3,"line_start":3,"suggested_replacement":null,"suggestion_applicability":null,"text":[]},{"byte_end":55,"byte_start":52,"column_end":18,"column_start":15,"expansion":null,"file_name":"src/lib.rs","is_primary":false,"label":"expected due to this","line_end":3,"line_start":3,"suggested_replacement":null,"suggestion_applicability":null,"text":[]}]}}
{"reason":"compiler-message","package_id":"x","manifest_path":"/p/Cargo.toml","target":{},"message":{"rendered":"error: aborting due to 1 previous error","children":[],"code":null,"level":"failure-note","message":"aborting due to 1 previous error","spans":[]}}
{"reason":"build-finished","success":false}
"#;

    #[test]
    fn messages_become_diagnostics_with_byte_spans_fixes_and_related_places() {
        let d = parse(SAMPLE).unwrap();
        assert_eq!(d.len(), 2, "the failure note is a summary");
        assert_eq!(d[0].code.as_deref(), Some("unused_imports"));
        assert_eq!((d[0].start, d[0].end), (Point::Byte(4), Some(Point::Byte(12))));
        assert_eq!(d[0].fixes.len(), 1);
        assert_eq!(d[0].fixes[0].edits[0].replacement, "");
        assert_eq!(d[1].severity, Severity::Error);
        assert_eq!(d[1].related[0].message, "expected due to this");
        assert!(parse("not json\n").is_err());
        assert!(parse("").unwrap().is_empty());
    }
}

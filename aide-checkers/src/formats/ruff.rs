//! `ruff check --output-format=json`: an array of violations, columns in
//! characters from 1, fixes with their applicability.

use serde::Deserialize;

use crate::finding::{Columns, Point, RawDiagnostic, RawEdit, RawFix, Severity};

#[derive(Deserialize)]
struct Violation {
    code: Option<String>,
    message: String,
    filename: String,
    location: Location,
    end_location: Option<Location>,
    #[serde(default)]
    fix: Option<Fix>,
}

#[derive(Deserialize, Clone, Copy)]
struct Location {
    row: usize,
    column: usize,
}

#[derive(Deserialize)]
struct Fix {
    applicability: String,
    #[serde(default)]
    message: Option<String>,
    edits: Vec<Edit>,
}

#[derive(Deserialize)]
struct Edit {
    content: String,
    location: Location,
    end_location: Location,
}

fn point(l: Location) -> Point {
    Point::LineColumn { line: l.row, column: l.column, columns: Columns::Chars }
}

/// Syntax errors (no code) and undefined names are errors; the rest warnings.
pub(crate) fn python_severity(code: Option<&str>) -> Severity {
    match code {
        None => Severity::Error,
        Some(c) if c.starts_with("E9") || matches!(c, "F821" | "F822" | "F823") => Severity::Error,
        Some(_) => Severity::Warning,
    }
}

pub(crate) fn parse(stdout: &str) -> Result<Vec<RawDiagnostic>, String> {
    let violations: Vec<Violation> =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("ruff's JSON does not parse: {e}"))?;
    Ok(violations
        .into_iter()
        .map(|v| {
            let severity = python_severity(v.code.as_deref());
            let mut d = RawDiagnostic::at(&v.filename, point(v.location), severity, &v.message).with_code(v.code);
            if let Some(end) = v.end_location {
                d = d.ending(point(end));
            }
            if let Some(fix) = v.fix.filter(|f| f.applicability == "safe") {
                let edits = fix
                    .edits
                    .into_iter()
                    .map(|e| RawEdit {
                        path: v.filename.clone(),
                        start: point(e.location),
                        end: point(e.end_location),
                        replacement: e.content,
                    })
                    .collect();
                d.fixes.push(RawFix { description: fix.message.unwrap_or_else(|| "ruff's fix".into()), edits });
            }
            d
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_with_safe_fixes() {
        let sample = r#"[{"cell":null,"code":"F401","end_location":{"column":10,"row":1},"filename":"/p/a.py","fix":{"applicability":"safe","edits":[{"content":"","end_location":{"column":1,"row":2},"location":{"column":1,"row":1}}],"message":"Remove unused import: `os`"},"location":{"column":8,"row":1},"message":"`os` imported but unused","noqa_row":1,"url":"https://docs.astral.sh/ruff/rules/unused-import"},
        {"cell":null,"code":null,"end_location":{"column":8,"row":3},"filename":"/p/b.py","fix":null,"location":{"column":7,"row":3},"message":"SyntaxError: Expected an expression","noqa_row":null,"url":null}]"#;
        let d = parse(sample).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].fixes[0].edits.len(), 1);
        assert_eq!(d[0].severity, Severity::Warning);
        assert_eq!((d[1].severity, d[1].code.as_deref()), (Severity::Error, None));
        assert!(parse("oops").is_err());
    }
}

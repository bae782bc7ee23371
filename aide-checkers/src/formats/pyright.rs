//! `pyright --outputjson`: LSP-style ranges, 0-based lines and UTF-16 characters.

use serde::Deserialize;

use crate::finding::{Columns, Point, RawDiagnostic, Severity};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    general_diagnostics: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    file: String,
    severity: String,
    message: String,
    #[serde(default)]
    rule: Option<String>,
    range: Range,
}

#[derive(Deserialize)]
struct Range {
    start: Position,
    end: Position,
}

#[derive(Deserialize)]
struct Position {
    line: usize,
    character: usize,
}

fn point(p: &Position) -> Point {
    Point::LineColumn { line: p.line + 1, column: p.character + 1, columns: Columns::Utf16 }
}

pub(crate) fn parse(stdout: &str) -> Result<Vec<RawDiagnostic>, String> {
    let report: Report =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("pyright's JSON does not parse: {e}"))?;
    Ok(report
        .general_diagnostics
        .into_iter()
        .map(|i| {
            let severity = match i.severity.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Info,
            };
            RawDiagnostic::at(&i.file, point(&i.range.start), severity, &i.message)
                .ending(point(&i.range.end))
                .with_code(i.rule)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_diagnostics() {
        let d = parse(r#"{"version":"1.1.390","time":"1","generalDiagnostics":[{"file":"/p/a.py","severity":"error","message":"Type \"str\" is not assignable","range":{"start":{"line":2,"character":8},"end":{"line":2,"character":13}},"rule":"reportAssignmentType"}],"summary":{"filesAnalyzed":1,"errorCount":1,"warningCount":0,"informationCount":0,"timeInSec":0.3}}"#).unwrap();
        assert_eq!(d[0].start, Point::LineColumn { line: 3, column: 9, columns: Columns::Utf16 });
        assert_eq!(d[0].code.as_deref(), Some("reportAssignmentType"));
    }
}

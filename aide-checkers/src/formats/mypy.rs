//! `mypy --output json` (mypy 1.11 and later): one object a line; columns
//! count characters from 0, the end exclusive.

use serde::Deserialize;

use crate::finding::{Columns, Point, RawDiagnostic, Severity};

#[derive(Deserialize)]
struct Line {
    file: String,
    /// -1 for what concerns a file as a whole (its first line is given).
    line: i64,
    column: i64,
    #[serde(default)]
    end_line: Option<i64>,
    #[serde(default)]
    end_column: Option<i64>,
    message: String,
    #[serde(default)]
    hint: Option<String>,
    #[serde(default)]
    code: Option<String>,
    severity: String,
}

pub(crate) fn parse(stdout: &str) -> Result<Vec<RawDiagnostic>, String> {
    let mut out = Vec::new();
    for text in stdout.lines().filter(|l| l.starts_with('{')) {
        let l: Line = serde_json::from_str(text).map_err(|e| format!("a line of mypy's JSON does not parse: {e}"))?;
        let severity = match l.severity.as_str() {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            _ => Severity::Info,
        };
        let column = usize::try_from(l.column.max(0)).unwrap_or(0) + 1;
        let message = match l.hint {
            Some(h) if !h.is_empty() => format!("{}\n{h}", l.message),
            _ => l.message,
        };
        let line = |n: i64| usize::try_from(n.max(1)).unwrap_or(1);
        let start = Point::LineColumn { line: line(l.line), column, columns: Columns::Chars };
        let mut d = RawDiagnostic::at(l.file, start, severity, message).with_code(l.code);
        if let (Some(end_line), Some(end)) = (l.end_line, l.end_column) {
            let column = usize::try_from(end.max(0)).unwrap_or(0) + 1;
            d = d.ending(Point::LineColumn { line: line(end_line), column, columns: Columns::Chars });
        }
        out.push(d);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lines() {
        let d = parse(r#"{"file": "a.py", "line": 3, "column": 4, "end_line": 3, "end_column": 7, "message": "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")", "hint": null, "code": "assignment", "severity": "error"}"#).unwrap();
        assert_eq!(d[0].start, Point::LineColumn { line: 3, column: 5, columns: Columns::Chars });
        assert_eq!(d[0].code.as_deref(), Some("assignment"));
        assert_eq!(d[0].end, Some(Point::LineColumn { line: 3, column: 8, columns: Columns::Chars }));
    }
}

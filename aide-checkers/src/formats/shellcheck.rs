//! `shellcheck -f json1`: `{"comments": [...]}`, columns in characters from
//! 1 (a tab is one), fixes as replacements of line/column ranges.

use serde::Deserialize;

use crate::finding::{Columns, Point, RawDiagnostic, RawEdit, RawFix, Severity};

#[derive(Deserialize)]
struct Report {
    comments: Vec<Comment>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Comment {
    file: String,
    line: usize,
    end_line: usize,
    column: usize,
    end_column: usize,
    level: String,
    code: u32,
    message: String,
    #[serde(default)]
    fix: Option<Fix>,
}

#[derive(Deserialize)]
struct Fix {
    replacements: Vec<Replacement>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    line: usize,
    end_line: usize,
    column: usize,
    end_column: usize,
    replacement: String,
}

fn at(line: usize, column: usize) -> Point {
    Point::LineColumn { line, column, columns: Columns::Chars }
}

pub(crate) fn parse(stdout: &str) -> Result<Vec<RawDiagnostic>, String> {
    let report: Report =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("shellcheck's JSON does not parse: {e}"))?;
    Ok(report
        .comments
        .into_iter()
        .map(|c| {
            let severity = match c.level.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Info,
            };
            let mut d = RawDiagnostic::at(&c.file, at(c.line, c.column), severity, &c.message)
                .ending(at(c.end_line, c.end_column))
                .with_code(Some(format!("SC{}", c.code)));
            if let Some(fix) = c.fix.filter(|f| !f.replacements.is_empty()) {
                let edits = fix
                    .replacements
                    .into_iter()
                    .map(|r| RawEdit {
                        path: c.file.clone(),
                        start: at(r.line, r.column),
                        end: at(r.end_line, r.end_column),
                        replacement: r.replacement,
                    })
                    .collect();
                d.fixes.push(RawFix { description: "shellcheck's fix".into(), edits });
            }
            d
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_with_fixes() {
        let d = parse(r#"{"comments":[{"file":"a.sh","line":3,"endLine":3,"column":6,"endColumn":8,"level":"info","code":2086,"message":"Double quote to prevent globbing and word splitting.","fix":{"replacements":[{"column":6,"endColumn":6,"endLine":3,"insertionPoint":"afterEnd","line":3,"precedence":7,"replacement":"\""},{"column":8,"endColumn":8,"endLine":3,"insertionPoint":"beforeStart","line":3,"precedence":7,"replacement":"\""}]}}]}"#).unwrap();
        assert_eq!(d[0].code.as_deref(), Some("SC2086"));
        assert_eq!(d[0].fixes[0].edits.len(), 2);
        assert_eq!(d[0].severity, Severity::Info);
    }
}

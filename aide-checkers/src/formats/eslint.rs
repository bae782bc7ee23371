//! `eslint -f json`: per file, messages with 1-based UTF-16 columns and
//! fixes as UTF-16 offsets into the file.

use serde::Deserialize;

use crate::finding::{Columns, Point, RawDiagnostic, RawEdit, RawFix, Severity};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    file_path: String,
    messages: Vec<Message>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message {
    #[serde(default)]
    rule_id: Option<String>,
    severity: u8,
    message: String,
    #[serde(default)]
    line: Option<usize>,
    #[serde(default)]
    column: Option<usize>,
    #[serde(default)]
    end_line: Option<usize>,
    #[serde(default)]
    end_column: Option<usize>,
    #[serde(default)]
    fix: Option<Fix>,
}

#[derive(Deserialize)]
struct Fix {
    range: (usize, usize),
    text: String,
}

pub(crate) fn parse(stdout: &str) -> Result<Vec<RawDiagnostic>, String> {
    let files: Vec<File> =
        serde_json::from_str(stdout.trim()).map_err(|e| format!("eslint's JSON does not parse: {e}"))?;
    let mut out = Vec::new();
    for f in files {
        for m in f.messages {
            let at = |line: Option<usize>, column: Option<usize>| Point::LineColumn {
                line: line.unwrap_or(1),
                column: column.unwrap_or(1),
                columns: Columns::Utf16,
            };
            let severity = if m.severity >= 2 { Severity::Error } else { Severity::Warning };
            let mut d =
                RawDiagnostic::at(&f.file_path, at(m.line, m.column), severity, &m.message).with_code(m.rule_id);
            if m.end_line.is_some() {
                d = d.ending(at(m.end_line, m.end_column));
            }
            if let Some(fix) = m.fix {
                d.fixes.push(RawFix {
                    description: "eslint's fix".into(),
                    edits: vec![RawEdit {
                        path: f.file_path.clone(),
                        start: Point::Utf16Offset(fix.range.0),
                        end: Point::Utf16Offset(fix.range.1),
                        replacement: fix.text,
                    }],
                });
            }
            out.push(d);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_fixes() {
        let d = parse(r#"[{"filePath":"/p/a.js","messages":[{"ruleId":"semi","severity":2,"message":"Missing semicolon.","line":1,"column":10,"nodeType":"ExpressionStatement","messageId":"missingSemi","endLine":2,"endColumn":1,"fix":{"range":[9,9],"text":";"}},{"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token )","line":3,"column":5}],"suppressedMessages":[],"errorCount":2,"fatalErrorCount":1,"warningCount":0,"fixableErrorCount":1,"fixableWarningCount":0,"usedDeprecatedRules":[]}]"#).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].fixes[0].edits[0].start, Point::Utf16Offset(9));
        assert_eq!(d[1].code, None);
    }
}

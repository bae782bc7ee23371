//! `go vet -json` (on stderr): `# package` headers, then JSON objects of
//! package → analyzer → findings at `file:line:col` (columns in bytes);
//! type errors come as plain `file:line:col: message` lines.

use regex::Regex;
use serde::Deserialize;
use std::collections::BTreeMap;

use crate::finding::{Columns, Point, RawDiagnostic, Severity};

#[derive(Deserialize)]
struct Finding {
    posn: String,
    message: String,
}

/// A finding's `file:line:col`.
fn position(posn: &str) -> Option<(String, Point)> {
    let mut parts = posn.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?.to_string();
    Some((file, Point::LineColumn { line, column, columns: Columns::Bytes }))
}

pub(crate) fn parse(stderr: &str) -> Result<Vec<RawDiagnostic>, String> {
    let plain = Regex::new(r"^(?:vet: )?(\S+\.go):(\d+):(\d+): (.+)$").map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut json = String::new();
    for line in stderr.lines() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(c) = plain.captures(line) {
            let number = |i: usize| c[i].parse::<usize>().unwrap_or(1);
            let start = Point::LineColumn { line: number(2), column: number(3), columns: Columns::Bytes };
            out.push(RawDiagnostic::at(&c[1], start, Severity::Error, &c[4]).with_code(Some("typecheck".into())));
            continue;
        }
        json.push_str(line);
        json.push('\n');
    }
    for value in
        serde_json::Deserializer::from_str(&json).into_iter::<BTreeMap<String, BTreeMap<String, serde_json::Value>>>()
    {
        let packages = value.map_err(|e| format!("go vet's JSON does not parse: {e}"))?;
        for analyzers in packages.into_values() {
            for (analyzer, findings) in analyzers {
                // An analyzer's error is an object, not a list of findings.
                let Ok(findings) = serde_json::from_value::<Vec<Finding>>(findings) else { continue };
                for f in findings {
                    let Some((file, start)) = position(&f.posn) else { continue };
                    out.push(
                        RawDiagnostic::at(file, start, Severity::Warning, f.message).with_code(Some(analyzer.clone())),
                    );
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_and_type_errors() {
        let text = "# example.com/m\n{\n\t\"example.com/m\": {\n\t\t\"printf\": [\n\t\t\t{\n\t\t\t\t\"posn\": \"/p/main.go:6:2\",\n\t\t\t\t\"message\": \"fmt.Printf format %d has arg x of wrong type string\"\n\t\t\t}\n\t\t]\n\t}\n}\n# example.com/m/b\nvet: b/b.go:3:9: undefined: y\n";
        let d = parse(text).unwrap();
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].code.as_deref(), Some("typecheck"));
        assert_eq!(d[1].code.as_deref(), Some("printf"));
        assert_eq!(d[1].path, "/p/main.go");
    }
}

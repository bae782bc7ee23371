//! pyflakes: `path:line:col: message` lines (columns in bytes from 1 for
//! its warnings; a syntax error's column counts characters, and its source
//! line and caret follow it).

use regex::Regex;

use crate::finding::{Columns, Point, RawDiagnostic, Severity};

pub(crate) fn parse(stdout: &str, stderr: &str) -> Result<Vec<RawDiagnostic>, String> {
    let line = Regex::new(r"^(.+?):(\d+):(\d+):? (.+)$").map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (text, syntax) in stdout.lines().map(|l| (l, false)).chain(stderr.lines().map(|l| (l, true))) {
        let Some(c) = line.captures(text) else { continue };
        let number = |i: usize| c[i].parse::<usize>().map_err(|e| format!("pyflakes printed {text:?}: {e}"));
        let message = c[4].to_string();
        let (columns, severity) = if syntax {
            (Columns::Chars, Severity::Error)
        } else if message.starts_with("undefined name") {
            (Columns::Bytes, Severity::Error)
        } else {
            (Columns::Bytes, Severity::Warning)
        };
        let start = Point::LineColumn { line: number(2)?, column: number(3)?, columns };
        out.push(RawDiagnostic::at(&c[1], start, severity, message));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_and_a_syntax_error() {
        let d = parse(
            "a.py:1:1: 'os' imported but unused\na.py:4:11: undefined name 'y'\n",
            "b.py:2:7: invalid syntax\ndef f(:\n      ^\n",
        )
        .unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].severity, Severity::Warning);
        assert_eq!(d[1].severity, Severity::Error);
        assert_eq!(d[2].start, Point::LineColumn { line: 2, column: 7, columns: Columns::Chars });
    }
}

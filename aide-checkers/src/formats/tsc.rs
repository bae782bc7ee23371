//! `tsc --noEmit --pretty false`: `path(line,col): error TS2322: message`,
//! continued on indented lines; columns in UTF-16 units from 1. An error
//! with no file (a bad option) is put on the project's `tsconfig.json`.

use regex::Regex;

use crate::finding::{Columns, Point, RawDiagnostic, Severity};

pub(crate) fn parse(stdout: &str, config: &str) -> Result<Vec<RawDiagnostic>, String> {
    let located =
        Regex::new(r"^(.+)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$").map_err(|e| e.to_string())?;
    let global = Regex::new(r"^(error|warning|message) (TS\d+): (.*)$").map_err(|e| e.to_string())?;
    let mut out: Vec<RawDiagnostic> = Vec::new();
    let severity = |s: &str| match s {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Info,
    };
    for line in stdout.lines() {
        if let Some(c) = located.captures(line) {
            let number = |i: usize| c[i].parse::<usize>().map_err(|e| format!("tsc printed {line:?}: {e}"));
            let start = Point::LineColumn { line: number(2)?, column: number(3)?, columns: Columns::Utf16 };
            out.push(RawDiagnostic::at(&c[1], start, severity(&c[4]), &c[6]).with_code(Some(c[5].to_string())));
        } else if let Some(c) = global.captures(line) {
            let start = Point::Byte(0);
            out.push(RawDiagnostic::at(config, start, severity(&c[1]), &c[3]).with_code(Some(c[2].to_string())));
        } else if line.starts_with(' ')
            && let Some(last) = out.last_mut()
        {
            last.message.push('\n');
            last.message.push_str(line.trim());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn located_continued_and_global_errors() {
        let text = "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/b.ts(1,1): error TS2345: Argument of type 'X' is not assignable.\n  Property 'y' is missing.\nerror TS5023: Unknown compiler option 'bogus'.\n";
        let d = parse(text, "tsconfig.json").unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].code.as_deref(), Some("TS2322"));
        assert!(d[1].message.ends_with("Property 'y' is missing."));
        assert_eq!(d[2].path, "tsconfig.json");
    }
}

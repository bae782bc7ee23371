//! A finished run printed in its format (compact text, `--json`, `--jsonl`,
//! a stored document verbatim) and logged, the records a tool serialised
//! itself spliced into the envelope unparsed.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::Value;

use crate::error::CliError;
use crate::invoke::RunLog;
use aide_core::color::{ColorChoice, TextOut};
use aide_core::envelope::{Format, Stdout, diagnostic_lines, stderr_line, to_json_string, with_type};
use aide_core::error::{AideError, ExitStatus};
use aide_core::tool::Render;

/// Prints the output in the chosen format and logs the run.
pub(super) fn emit<O: Serialize + Render>(
    run: &mut RunLog,
    format: Format,
    (color, quiet): (ColorChoice, bool),
    out: &mut Stdout,
    output: &O,
    status: ExitStatus,
) -> Result<(), AideError> {
    let stats = run.stats();
    let env = run.envelope(output, &stats);
    if let (Some(raw), true) = (output.raw_json(), format.is_json()) {
        // A stored document, printed as it is kept, is not logged again;
        // its span still ends.
        let processes = aide_gate::take_records(&run.execution_id);
        run.end_span((status, true, None), "", raw.len() as u64, &processes);
        return print_raw(out, format, raw);
    }
    let overflow = output.log_overflow();
    let need_compact = (run.records() && overflow.is_none()) || matches!(format, Format::Json { pretty: false });
    let mut compact = if need_compact { Some(to_json_string(&env, false)?) } else { None };
    // What is printed from the envelope is made first: the run is logged next.
    let pretty_text = match (format, &compact) {
        (Format::Json { pretty: false }, Some(_)) | (Format::Text | Format::Jsonl, _) => None,
        (Format::Json { .. }, _) => Some(to_json_string(&env, true)?),
    };
    let jsonl_value = match format {
        Format::Jsonl => Some(serde_json::to_value(&env).map_err(|e| AideError::internal(e.to_string()))?),
        _ => None,
    };
    // Logged before anything is printed: a run killed just after its output
    // (a reader that got what it wanted and ended the pipeline) is in the log.
    log_document(run, output, format, status, overflow, &mut compact)?;
    match format {
        Format::Text => print_text(run, out, output, color, quiet),
        Format::Json { .. } => print_json(out, output, pretty_text.as_deref(), &compact),
        Format::Jsonl => print_jsonl(out, output, jsonl_value.unwrap_or(Value::Null)),
    }
}

fn write_failed(e: io::Error) -> AideError {
    CliError::WriteOutput(e).into()
}

/// A stored document printed verbatim (pretty-printed for `--pretty`, when it parses).
fn print_raw(out: &mut Stdout, format: Format, raw: &str) -> Result<(), AideError> {
    let text = match format {
        Format::Json { pretty: true } => serde_json::from_str::<Value>(raw)
            .ok()
            .and_then(|v| to_json_string(&v, true).ok())
            .unwrap_or_else(|| raw.to_string()),
        _ => raw.to_string(),
    };
    out.write_with(|w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
    .map_err(write_failed)
}

/// Records the run's document in the log: whole, by its size alone when it
/// is over what the log keeps, or (a plain `--json` run) a copy of the
/// compact document, which is then the log's alone in any other format. A
/// run not logged but exported is recorded too: that ends its span.
fn log_document<O: Render>(
    run: &mut RunLog,
    output: &O,
    format: Format,
    status: ExitStatus,
    overflow: Option<u64>,
    compact: &mut Option<String>,
) -> Result<(), AideError> {
    let logged = match (overflow, &spliced(output, compact)?) {
        _ if !run.records() => Ok(None),
        (Some(bytes), _) => Err(bytes),
        // Over what the log keeps: logged by its size, never assembled.
        (None, Some(spliced)) if spliced.len() > aide_log::max_result_bytes() => Err(spliced.len() as u64),
        (None, Some(spliced)) => {
            let mut document = Vec::with_capacity(spliced.len());
            // Writing to memory cannot fail; every piece is UTF-8.
            let _ = spliced.write(&mut document);
            Ok(Some(String::from_utf8(document).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())))
        }
        (None, None) => Ok(None),
    };
    match logged {
        Err(bytes) => run.record_sized(status, true, None, String::new(), Some(bytes)),
        Ok(Some(document)) => run.record(status, true, None, document),
        Ok(None) if run.records() => {
            // A plain `--json` document is printed too: the log gets a copy;
            // in any other format the compact document is the log's alone.
            let document = if format == (Format::Json { pretty: false }) { compact.clone() } else { compact.take() };
            if let Some(document) = document {
                run.record(status, true, None, document);
            }
        }
        Ok(None) => {}
    }
    Ok(())
}

/// Compact text on stdout; the diagnostics on stderr, a line per code.
fn print_text<O: Render>(
    run: &RunLog,
    out: &mut Stdout,
    output: &O,
    color: ColorChoice,
    quiet: bool,
) -> Result<(), AideError> {
    out.write_with(|w| {
        let mut text = TextOut::new(w, color.for_stdout());
        output.render_text(&mut text)?;
        text.flush()
    })
    .map_err(write_failed)?;
    let shown = if quiet { &[][..] } else { &run.diagnostics[..] };
    for line in diagnostic_lines(shown, "--json lists them") {
        stderr_line(&format!("{}: {line}", run.tool));
    }
    Ok(())
}

/// One JSON document: pretty, the records spliced in, or the compact one.
fn print_json<O: Render>(
    out: &mut Stdout,
    output: &O,
    pretty_text: Option<&str>,
    compact: &Option<String>,
) -> Result<(), AideError> {
    let records = spliced(output, compact)?;
    out.write_with(|w| {
        match (pretty_text, &records, compact.as_deref()) {
            (Some(text), _, _) => w.write_all(text.as_bytes())?,
            (None, Some(spliced), _) if !output.streamed() => spliced.write(w)?,
            (None, _, Some(doc)) => w.write_all(doc.as_bytes())?,
            (None, _, None) => {}
        }
        w.write_all(b"\n")
    })
    .map_err(write_failed)
}

/// A line per record (unless they were streamed already), then the summary.
fn print_jsonl<O: Render>(out: &mut Stdout, output: &O, mut value: Value) -> Result<(), AideError> {
    let records = match (output.jsonl_records(), value.as_object_mut()) {
        (Some((field, kind)), Some(obj)) => match obj.shift_remove(field) {
            Some(Value::Array(items)) => Some((kind, items)),
            _ => None,
        },
        _ => None,
    };
    // Streamed records are out already: only the summary is left.
    let records = records.filter(|_| !output.streamed());
    out.write_with(|w| {
        if let Some((kind, items)) = records {
            for item in items {
                serde_json::to_writer(&mut *w, &with_type(kind, item))?;
                w.write_all(b"\n")?;
            }
        }
        serde_json::to_writer(&mut *w, &with_type("summary", value))?;
        w.write_all(b"\n")
    })
    .map_err(write_failed)
}

/// Records handed over as JSON stand where the records field, serialized
/// empty, is in the compact document: printed there when they were not
/// streamed, logged there.
fn spliced<'a, O: Render>(output: &'a O, compact: &'a Option<String>) -> Result<Option<Spliced<'a>>, AideError> {
    match (output.records_json(), output.jsonl_records(), compact) {
        (Some(chunks), Some((field, _)), Some(doc)) => Spliced::new(doc, field, chunks).map(Some),
        _ => Ok(None),
    }
}

/// A compact document whose records field, serialized empty, stands for
/// records already JSON ([`Render::records_json`]).
struct Spliced<'a> {
    /// The document up to the field's `[`, and from its `]` on.
    head: &'a str,
    tail: &'a str,
    /// Runs of comma-separated records.
    chunks: &'a [String],
}

impl<'a> Spliced<'a> {
    fn new(doc: &'a str, field: &str, chunks: &'a [String]) -> Result<Spliced<'a>, AideError> {
        let empty = format!("\"{field}\":[]");
        let at = doc
            .find(&empty)
            .ok_or_else(|| AideError::internal(format!("the records field {field} is not in the output")))?
            + empty.len()
            - 1;
        Ok(Spliced { head: &doc[..at], tail: &doc[at..], chunks })
    }

    fn runs(&self) -> impl Iterator<Item = &'a str> {
        self.chunks.iter().map(String::as_str).filter(|c| !c.is_empty())
    }

    /// The whole document's length in bytes.
    fn len(&self) -> usize {
        let records: usize = self.runs().map(|c| c.len() + 1).sum();
        self.head.len() + records.saturating_sub(1) + self.tail.len()
    }

    fn write(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.head.as_bytes())?;
        for (i, run) in self.runs().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            w.write_all(run.as_bytes())?;
        }
        w.write_all(self.tail.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spliced_records_stand_where_the_empty_field_was() {
        let doc = r#"{"ok":true,"matches":[],"total":3}"#;
        let chunks = vec![r#"{"a":1},{"a":2}"#.to_string(), String::new(), r#"{"a":3}"#.to_string()];
        let spliced = Spliced::new(doc, "matches", &chunks).unwrap();
        let mut out = Vec::new();
        spliced.write(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            r#"{"ok":true,"matches":[{"a":1},{"a":2},{"a":3}],"total":3}"#
        );
        assert_eq!(spliced.len(), out.len());
        let none = Spliced::new(doc, "matches", &[]).unwrap();
        assert_eq!(none.len(), doc.len());
        assert!(Spliced::new(doc, "files", &chunks).is_err());
    }
}

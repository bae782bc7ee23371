//! A finished run as an MCP tool result: the JSON document as structured
//! content, the compact text form as a text block, and, when the result is
//! larger than the call's budget, one page of its records with the offset
//! that continues it (`page.next_offset`) instead of a silent cut.
//!
//! Paging keeps the document's summary fields (totals, counts): they still
//! describe the whole result. The next page is the same call with
//! `page_offset`; only read-only operations page (deterministic: the same
//! call sees the same records while the tree is unchanged). Any other
//! operation's result goes whole as structured content, with its text cut
//! at the budget: calling a transform again for its next page would edit
//! again.

use std::io::Write;

use aide_core::ExitStatus;
use aide_core::color::TextOut;
use aide_core::envelope::diagnostic_lines_listed;
use aide_core::tool::Render;
use aide_core::voice::Voice;
use aide_harness::invoke::Finished;
use serde_json::{Map, Value, json};

/// The default most characters of result one call returns: a tenth of a
/// model's usual context, so a few results fit in one turn.
pub(crate) const DEFAULT_BUDGET: usize = 40_000;
/// The smallest budget a call may ask for.
pub(crate) const MIN_BUDGET: usize = 1_000;
/// The most files a warning's text line names besides its first.
const MAX_WARNED_PATHS: usize = 5;
/// What the page object and the text footer may add to a page.
const PAGE_OVERHEAD: usize = 300;

/// Which part of a result a call asks for.
#[derive(Clone)]
pub(crate) struct PageRequest {
    pub offset: usize,
    pub budget: usize,
    /// Whether the same call may be made again for the next page: only a
    /// read-only operation's. Another's result (a transform's report) goes
    /// whole as structured content, its text cut at the budget: calling it
    /// again would do it again.
    pub repeatable: bool,
    /// The form the structured content is sent in, where it is not the
    /// document itself (`--structured compact`): pages are sized on it.
    pub sent: Option<SentForm>,
}

/// What the server makes of a page's document before sending it.
pub(crate) type SentForm = std::sync::Arc<dyn Fn(Value) -> Value + Send + Sync>;

/// The largest document whose sent form is measured to size its pages
/// (larger ones are paged on their own size).
const MAX_MEASURED: usize = 16 << 20;

/// What goes back to the client.
#[derive(Debug)]
pub(crate) struct Shaped {
    pub structured: Value,
    pub text: String,
    pub is_error: bool,
}

/// The schema of the `page` object a paged result carries.
pub(crate) fn page_schema() -> Value {
    json!({
        "type": "object",
        "description": "Present when the result was paged to the call's budget: which records this page holds.",
        "properties": {
            "records": { "type": "string", "description": "The field holding the records." },
            "offset": { "type": "integer", "minimum": 0 },
            "count": { "type": "integer", "minimum": 0 },
            "total": { "type": "integer", "minimum": 0 },
            "next_offset": {
                "type": ["integer", "null"],
                "description": "Call again with page_offset set to this for the next page; null on the last page."
            }
        },
        "required": ["records", "offset", "count", "total", "next_offset"]
    })
}

fn render<O: Render>(output: &O) -> String {
    let mut bytes = Vec::new();
    {
        let mut text = TextOut::plain(&mut bytes).with_voice(Voice::Mcp);
        let _ = output.render_text(&mut text);
        let _ = text.flush();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The bytes `value` takes as compact JSON.
fn json_len(value: &impl serde::Serialize) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

// Long because: the ways a result is sent (an error, whole, cut, paged by its records) in the order they are tried; the paging's own steps are records_in_budget and page_document.
/// Shapes a finished run into what the client gets, paged to `page.budget`.
pub(crate) fn shape<O: Render>(finished: Finished<O>, page: &PageRequest) -> Shaped {
    let status = finished.exit_status();
    let Finished { result, document, document_len, diagnostics, execution_id } = finished;
    let cut_text = |text: String, budget: usize| cut_text(text, budget, &execution_id);
    let mut output = match result {
        Ok(output) => output,
        Err(e) => {
            // The line the CLI writes to stderr, in MCP's words (no binary).
            return Shaped { text: format!("{}\n", e.said(Voice::Mcp)), structured: document, is_error: true };
        }
    };
    let finish = |mut text: String, structured: Value| {
        if text.is_empty() && status == ExitStatus::NothingFound {
            text.push_str("(nothing found)\n");
        }
        // The text names every file a warning is about (up to a few): its
        // reader may see nothing else.
        for line in diagnostic_lines_listed(&diagnostics, MAX_WARNED_PATHS) {
            text.push_str(&line);
            text.push('\n');
        }
        Shaped { text, structured, is_error: false }
    };

    if !page.repeatable {
        return finish(cut_text(render(&output), page.budget), document);
    }
    // A first page in budget is the whole result: no need to size it.
    let mut whole_text = None;
    let sent_len = |page_doc: Value| page.sent.as_ref().map(|sent| sent(page_doc).to_string().len());
    // The whole document as sent, where that is measured: its size.
    let whole_sent = (page.offset == 0 && document_len > page.budget && document_len <= MAX_MEASURED)
        .then(|| sent_len(document.clone()))
        .flatten();
    if page.offset == 0 && (document_len <= page.budget || whole_sent.is_some_and(|n| n <= page.budget)) {
        let text = render(&output);
        if text.len() <= page.budget {
            return finish(text, document);
        }
        whole_text = Some(text);
    }
    let records = output.jsonl_records().map(|(field, _)| field);
    let Some(field) = records.filter(|field| document.get(*field).is_some_and(Value::is_array)) else {
        // Nothing to page by: the result goes whole.
        let text = whole_text.unwrap_or_else(|| render(&output));
        return finish(cut_text(text, page.budget), document);
    };
    // Each byte of the document counts as its share of what is sent: the
    // compact form, or the text if that is larger (measured on the whole
    // document, whichever page this is).
    let scale = match (page.sent.as_ref(), document_len <= MAX_MEASURED) {
        (Some(_), true) => {
            let sent = whole_sent.or_else(|| sent_len(document.clone())).unwrap_or(document_len);
            let text = whole_text.as_ref().map_or_else(|| render(&output).len(), String::len);
            (sent.max(text) as f64 / document_len.max(1) as f64).clamp(0.05, 1.0)
        }
        _ => 1.0,
    };
    let Value::Object(mut fields) = document else { return finish(cut_text(render(&output), page.budget), document) };
    // Taken out, its key left in its place (null) for the page's own.
    let items = match fields.get_mut(field).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };

    // Take records from the offset while the document, sized as sent (at
    // `scale`), stays in budget: a page fills the budget of what is sent.
    let total = items.len();
    let offset = page.offset.min(total);
    let mut count = records_in_budget(&fields, &items[offset..], scale, page.budget);
    let build = |count: usize| page_document(&fields, field, &items, offset, count);
    let mut structured = build(count);
    // The estimate is checked on the page as sent: fewer records until it fits.
    while count > 1 && sent_len(Value::Object(structured.clone())).is_some_and(|n| n + PAGE_OVERHEAD > page.budget) {
        count -= (count / 8).max(1);
        structured = build(count);
    }
    let end = offset + count;
    let next_offset = (end < total).then_some(end);
    output.keep_records(offset..end);
    let mut text = cut_text(render(&output), page.budget);
    let first = offset + usize::from(count > 0);
    text.push_str(&match next_offset {
        Some(next) => {
            format!("[page: {field} {first}–{end} of {total}; call again with page_offset={next} for more]\n")
        }
        None => format!("[page: {field} {first}–{end} of {total}, the last]\n"),
    });
    finish(text, Value::Object(structured))
}

/// How many of `items` (at least one) fit the budget with the rest of the
/// document (`fields`), each byte counted at `scale`.
fn records_in_budget(fields: &Map<String, Value>, items: &[Value], scale: f64, budget: usize) -> usize {
    // The rest of the document: what it holds besides the records.
    let mut used = (json_len(fields) + 2) as f64 * scale + PAGE_OVERHEAD as f64;
    let mut count = 0;
    for item in items {
        let size = (json_len(item) + 1) as f64 * scale;
        if count > 0 && used + size > budget as f64 {
            break;
        }
        used += size;
        count += 1;
    }
    count
}

/// The page's document: `fields` with `count` records from `offset` in
/// `field`, and the `page` that says which.
fn page_document(
    fields: &Map<String, Value>,
    field: &str,
    items: &[Value],
    offset: usize,
    count: usize,
) -> Map<String, Value> {
    let total = items.len();
    let end = offset + count;
    let next_offset = (end < total).then_some(end);
    let mut structured = fields.clone();
    structured.insert(field.to_string(), Value::Array(items[offset..end].to_vec()));
    structured.insert(
        "page".into(),
        json!({ "records": field, "offset": offset, "count": count, "total": total, "next_offset": next_offset }),
    );
    structured
}

/// Text over the budget, cut with a line that says what was left out and
/// how to get the whole of it (text is denser than JSON almost always, so
/// this is rare): never a pointer to the structured content, which a client
/// that shows text alone never shows.
fn cut_text(mut text: String, budget: usize, execution_id: &str) -> String {
    if text.len() > budget {
        let total = text.len();
        let mut cut = budget;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(&format!("\n… {}\n", whole_text_hint(cut, total, execution_id)));
    }
    text
}

/// What a cut text left out and where the whole result is: the run's log record.
fn whole_text_hint(shown: usize, total: usize, execution_id: &str) -> String {
    format!(
        "text cut at {shown} of {total} characters; log_show {{\"id\":\"{execution_id}\"}} returns the whole result"
    )
}

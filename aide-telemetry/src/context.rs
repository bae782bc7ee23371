//! W3C trace context (<https://www.w3.org/TR/trace-context/>): the
//! `traceparent` a caller hands a run (the `TRACEPARENT` environment
//! variable, or `_meta.traceparent` of an MCP request), and the one a run
//! hands its children, naming its own span.

use serde::{Deserialize, Serialize};

/// A trace id (16 bytes) and a span id (8 bytes) in lowercase hex, with the
/// trace flags: one `traceparent` header's worth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanContext {
    /// 32 lowercase hex digits, never all zero.
    pub trace_id: String,
    /// 16 lowercase hex digits, never all zero.
    pub span_id: String,
    /// The trace flags byte (bit 0: sampled).
    pub flags: u8,
}

impl SpanContext {
    /// Reads a `traceparent` header: `version-traceid-parentid-flags`. None
    /// for anything the recommendation says to ignore (wrong lengths,
    /// uppercase or non-hex digits, all-zero ids, version `ff`, or a version
    /// 00 header with more after it); a later version's extra fields are
    /// ignored, as the recommendation asks.
    pub fn parse(header: &str) -> Option<SpanContext> {
        let header = header.trim();
        let mut parts = header.splitn(5, '-');
        let version = parts.next()?;
        let trace_id = parts.next()?;
        let span_id = parts.next()?;
        let flags = parts.next()?;
        let rest = parts.next();
        if !is_hex(version, 2) || version == "ff" || !is_hex(trace_id, 32) || !is_hex(span_id, 16) || !is_hex(flags, 2)
        {
            return None;
        }
        if version == "00" && (rest.is_some() || header.len() != 55) {
            return None;
        }
        if trace_id.bytes().all(|b| b == b'0') || span_id.bytes().all(|b| b == b'0') {
            return None;
        }
        let flags = u8::from_str_radix(flags, 16).ok()?;
        Some(SpanContext { trace_id: trace_id.to_string(), span_id: span_id.to_string(), flags })
    }

    /// The `traceparent` header naming this span (version 00).
    pub fn traceparent(&self) -> String {
        format!("00-{}-{}-{:02x}", self.trace_id, self.span_id, self.flags)
    }

    /// A new span in the trace of `parent`, or the root span of a new,
    /// sampled trace.
    pub fn child_of(parent: Option<&SpanContext>) -> SpanContext {
        match parent {
            Some(p) => SpanContext { trace_id: p.trace_id.clone(), span_id: new_span_id(), flags: p.flags },
            None => SpanContext { trace_id: new_trace_id(), span_id: new_span_id(), flags: 1 },
        }
    }
}

/// Whether `s` is exactly `len` lowercase hex digits.
fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A random trace id: a version 4 UUID's 122 random bits.
pub fn new_trace_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A random span id (never all zero: a v4 UUID's version nibble is 4).
pub fn new_span_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()[8..24].to_string()
}

/// Reads a `tracestate` header as the recommendation bounds it: at most 32
/// members and 512 characters kept, members that are not `key=value`
/// dropped. None when nothing is left.
pub fn clean_tracestate(header: &str) -> Option<String> {
    let members: Vec<&str> = header
        .split(',')
        .map(str::trim)
        .filter(|m| m.split_once('=').is_some_and(|(k, v)| !k.is_empty() && !v.is_empty() && m.is_ascii()))
        .take(32)
        .collect();
    let joined = members.join(",");
    (!joined.is_empty() && joined.len() <= 512).then_some(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const EXAMPLE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn the_recommendations_example_is_read_and_written_back() {
        let ctx = SpanContext::parse(EXAMPLE).expect("valid");
        assert_eq!(ctx.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(ctx.span_id, "00f067aa0ba902b7");
        assert_eq!(ctx.flags, 1);
        assert_eq!(ctx.traceparent(), EXAMPLE);
    }

    #[test]
    fn headers_the_recommendation_says_to_ignore_are_refused() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ] {
            assert_eq!(SpanContext::parse(bad), None, "{bad}");
        }
        // A later version may carry more: its first four fields are read.
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more";
        assert_eq!(SpanContext::parse(later).map(|c| c.span_id), Some("00f067aa0ba902b7".to_string()));
    }

    #[test]
    fn a_child_keeps_the_trace_and_flags_with_a_span_of_its_own() {
        let parent = SpanContext::parse(EXAMPLE).expect("valid");
        let child = SpanContext::child_of(Some(&parent));
        assert_eq!(child.trace_id, parent.trace_id);
        assert_ne!(child.span_id, parent.span_id);
        assert_eq!(SpanContext::parse(&child.traceparent()), Some(child.clone()));
        let root = SpanContext::child_of(None);
        assert_eq!(SpanContext::parse(&root.traceparent()), Some(root));
    }

    #[test]
    fn tracestate_keeps_members_and_drops_what_is_not_one() {
        assert_eq!(
            clean_tracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,junk").as_deref(),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        assert_eq!(clean_tracestate(" , ="), None);
    }

    proptest! {
        #[test]
        fn any_text_is_read_without_panicking_and_what_is_read_round_trips(s in "\\PC{0,80}") {
            if let Some(ctx) = SpanContext::parse(&s) {
                prop_assert_eq!(SpanContext::parse(&ctx.traceparent()), Some(ctx));
            }
        }

        #[test]
        fn every_well_formed_header_is_read(t in "[0-9a-f]{32}", p in "[0-9a-f]{16}", f in 0u8..=255) {
            let header = format!("00-{t}-{p}-{f:02x}");
            let zero = t.bytes().all(|b| b == b'0') || p.bytes().all(|b| b == b'0');
            prop_assert_eq!(SpanContext::parse(&header).is_some(), !zero);
        }
    }
}

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
    /// The trace flags byte: bit 0 sampled, bit 1 (Trace Context Level 2)
    /// random trace id; as read, every bit the caller sent.
    pub flags: u8,
}

/// The sampled flag: the span is recorded (and exported).
pub const SAMPLED: u8 = 0x01;
/// Trace Context Level 2's random flag: the trace id's right-most seven
/// bytes are random. It belongs to the trace id, so it travels with it.
pub const RANDOM: u8 = 0x02;

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

    /// Whether the span is sampled (recorded and exported).
    pub fn sampled(&self) -> bool {
        self.flags & SAMPLED != 0
    }

    /// A new span in the trace of `parent`, or the root span of a new
    /// trace, sampled as `sampler` decides. Its flags are the ones this
    /// version of Trace Context defines, and no other (the recommendation
    /// has vendors zero the rest): sampled as decided, and random as the
    /// parent said of the trace id it keeps (a new trace id is random).
    pub fn child_of(parent: Option<&SpanContext>, sampler: &crate::sampler::Sampler) -> SpanContext {
        let trace_id = parent.map_or_else(new_trace_id, |p| p.trace_id.clone());
        let sampled = sampler.samples(parent, &trace_id);
        let random = parent.map_or(RANDOM, |p| p.flags & RANDOM);
        SpanContext { trace_id, span_id: new_span_id(), flags: random | if sampled { SAMPLED } else { 0 } }
    }
}

/// Whether `s` is exactly `len` lowercase hex digits.
fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A random trace id (all 128 bits random).
pub fn new_trace_id() -> String {
    aide_core::ids::new_trace_id()
}

/// A random span id (never all zero).
pub fn new_span_id() -> String {
    aide_core::ids::new_trace_span_id()
}

/// The longest `tracestate` kept, commas included.
const TRACESTATE_MAX: usize = 512;
/// Members longer than this go first when it is too long.
const LONG_MEMBER: usize = 128;

/// Reads a `tracestate` header as the recommendation bounds it: at most 32
/// members, members that are not `key=value` dropped, and at most 512
/// characters kept by dropping whole members: those over 128 characters
/// first, then from the right (the oldest). None when nothing is left.
pub fn clean_tracestate(header: &str) -> Option<String> {
    let mut members: Vec<&str> = header
        .split(',')
        .map(str::trim)
        .filter(|m| m.split_once('=').is_some_and(|(k, v)| !k.is_empty() && !v.is_empty() && m.is_ascii()))
        .take(32)
        .collect();
    let joined_len = |m: &[&str]| m.iter().map(|s| s.len()).sum::<usize>() + m.len().saturating_sub(1);
    while joined_len(&members) > TRACESTATE_MAX {
        match members.iter().rposition(|m| m.len() > LONG_MEMBER) {
            Some(long) => members.remove(long),
            None => members.pop().unwrap_or_default(),
        };
    }
    Some(members.join(",")).filter(|joined| !joined.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::Sampler;
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

    fn sampler(name: &str) -> Sampler {
        Sampler::parse(Some(name), None).expect("a sampler")
    }

    #[test]
    fn a_child_keeps_the_trace_with_a_span_of_its_own() {
        let parent = SpanContext::parse(EXAMPLE).expect("valid");
        let child = SpanContext::child_of(Some(&parent), &Sampler::default());
        assert_eq!(child.trace_id, parent.trace_id);
        assert_ne!(child.span_id, parent.span_id);
        assert_eq!(child.flags, SAMPLED, "the parent's sampled flag, no random flag it did not set");
        assert_eq!(SpanContext::parse(&child.traceparent()), Some(child.clone()));
        let root = SpanContext::child_of(None, &Sampler::default());
        assert_eq!(root.flags, SAMPLED | RANDOM, "a new trace id is random");
        assert_eq!(SpanContext::parse(&root.traceparent()), Some(root));
    }

    #[test]
    fn an_unsampled_parent_makes_an_unsampled_child_by_default() {
        let parent = SpanContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00").expect("valid");
        let child = SpanContext::child_of(Some(&parent), &Sampler::default());
        assert!(!child.sampled());
        assert!(child.traceparent().ends_with("-00"), "{}", child.traceparent());
        // always_on decides for itself, whatever the parent says.
        assert!(SpanContext::child_of(Some(&parent), &sampler("always_on")).sampled());
        assert!(!SpanContext::child_of(None, &sampler("always_off")).sampled());
    }

    #[test]
    fn flags_this_version_does_not_define_are_not_passed_on() {
        // ff: sampled, random, and six bits nobody defined.
        let parent = SpanContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff").expect("valid");
        let child = SpanContext::child_of(Some(&parent), &Sampler::default());
        assert!(child.traceparent().ends_with("-03"), "{}", child.traceparent());
        let parent = SpanContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-fc").expect("valid");
        let child = SpanContext::child_of(Some(&parent), &Sampler::default());
        assert!(child.traceparent().ends_with("-00"), "{}", child.traceparent());
    }

    #[test]
    fn tracestate_keeps_members_and_drops_what_is_not_one() {
        assert_eq!(
            clean_tracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,junk").as_deref(),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        assert_eq!(clean_tracestate(" , ="), None);
    }

    #[test]
    fn a_tracestate_too_long_loses_whole_members_long_ones_first_then_from_the_right() {
        // 10 members of 60 characters: 609 with commas.
        let members: Vec<String> = (0..10).map(|i| format!("k{i}={}", "v".repeat(57))).collect();
        let kept = clean_tracestate(&members.join(",")).expect("kept");
        assert_eq!(kept, members[..8].join(","), "the first eight fit (487 characters)");
        // A member over 128 characters goes before any shorter one, wherever it stands.
        let long = format!("big={}", "x".repeat(200));
        let with_long = format!("{},{long},{}", members[0], members[1..8].join(","));
        assert_eq!(clean_tracestate(&with_long).as_deref(), Some(members[..8].join(",").as_str()));
        // Exactly 512 is kept whole.
        let exact = format!("a={}", "b".repeat(510));
        assert_eq!(clean_tracestate(&exact).as_deref(), Some(exact.as_str()));
    }

    proptest! {
        #[test]
        fn any_text_is_read_without_panicking_and_what_is_read_round_trips(s in "\\PC{0,80}") {
            if let Some(ctx) = SpanContext::parse(&s) {
                prop_assert_eq!(SpanContext::parse(&ctx.traceparent()), Some(ctx));
            }
        }

        #[test]
        fn a_kept_tracestate_is_never_longer_than_512(s in "[a-z0-9=,]{0,900}") {
            if let Some(kept) = clean_tracestate(&s) {
                prop_assert!(kept.len() <= 512);
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

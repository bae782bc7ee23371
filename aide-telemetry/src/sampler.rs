//! Which runs' spans are recorded: the specification's samplers, as
//! `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` name them
//! (<https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/>).
//! The decision is made when a run starts, so the `TRACEPARENT` its
//! children are given carries it; an unsampled run is still counted in the
//! metrics, which are not sampled.

/// A sampler: the decision for a span with no parent (the root), and
/// whether a parent's decision is followed instead (`parentbased_*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampler {
    parent_based: bool,
    root: Root,
}

/// The decision of a sampler that does not follow a parent.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Root {
    AlwaysOn,
    AlwaysOff,
    /// A share of traces, decided from the trace id.
    TraceIdRatio(f64),
}

/// The specification's default: `parentbased_always_on`.
impl Default for Sampler {
    fn default() -> Sampler {
        Sampler { parent_based: true, root: Root::AlwaysOn }
    }
}

/// The samplers aide has, as `OTEL_TRACES_SAMPLER` names them.
pub const KNOWN: &str =
    "always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio";

impl Sampler {
    /// Samples nothing, whatever a parent says (a run whose spans are not
    /// exported claims no span).
    pub const NEVER: Sampler = Sampler { parent_based: false, root: Root::AlwaysOff };

    /// The sampler `OTEL_TRACES_SAMPLER` (`name`) and `OTEL_TRACES_SAMPLER_ARG`
    /// (`arg`, read only for the ratio samplers, 1.0 when unset) name; the
    /// default when no name is given (the argument alone means nothing).
    /// Names are read whatever their case. A sampler aide does not have, or
    /// a ratio that is not a number from 0 to 1, is refused with why: the
    /// caller exports no span rather than spans sampled otherwise than asked.
    pub fn parse(name: Option<&str>, arg: Option<&str>) -> Result<Sampler, String> {
        let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else { return Ok(Sampler::default()) };
        let ratio = || ratio_of(arg).map(Root::TraceIdRatio);
        let (parent_based, root) = match name.to_ascii_lowercase().as_str() {
            "always_on" => (false, Root::AlwaysOn),
            "always_off" => (false, Root::AlwaysOff),
            "traceidratio" => (false, ratio()?),
            "parentbased_always_on" => (true, Root::AlwaysOn),
            "parentbased_always_off" => (true, Root::AlwaysOff),
            "parentbased_traceidratio" => (true, ratio()?),
            _ => return Err(format!("OTEL_TRACES_SAMPLER=`{name}` is not a sampler aide has ({KNOWN})")),
        };
        Ok(Sampler { parent_based, root })
    }

    /// Whether a span of `trace_id` (32 hex digits) under `parent` is sampled.
    pub fn samples(&self, parent: Option<&crate::SpanContext>, trace_id: &str) -> bool {
        if let Some(parent) = parent.filter(|_| self.parent_based) {
            return parent.sampled();
        }
        match self.root {
            Root::AlwaysOn => true,
            Root::AlwaysOff => false,
            Root::TraceIdRatio(ratio) => ratio_samples(ratio, trace_id),
        }
    }

    /// The sampler as `OTEL_TRACES_SAMPLER` (and its argument) would name it.
    pub fn describe(&self) -> String {
        let prefix = if self.parent_based { "parentbased_" } else { "" };
        match self.root {
            Root::AlwaysOn => format!("{prefix}always_on"),
            Root::AlwaysOff => format!("{prefix}always_off"),
            Root::TraceIdRatio(ratio) => format!("{prefix}traceidratio {ratio}"),
        }
    }
}

/// The ratio `OTEL_TRACES_SAMPLER_ARG` gives: 1.0 when unset.
fn ratio_of(arg: Option<&str>) -> Result<f64, String> {
    let Some(arg) = arg.map(str::trim).filter(|a| !a.is_empty()) else { return Ok(1.0) };
    arg.parse::<f64>()
        .ok()
        .filter(|r| (0.0..=1.0).contains(r))
        .ok_or_else(|| format!("OTEL_TRACES_SAMPLER_ARG=`{arg}` is not a sampling ratio from 0 to 1"))
}

/// The trace id ratio decision as opentelemetry_sdk's `TraceIdRatioBased`
/// makes it (0.33, `sample_based_on_probability`), so aide and an SDK
/// sampling the same trace agree: the trace id's low eight bytes (big
/// endian) shifted right by one, below the ratio times 2^63.
fn ratio_samples(ratio: f64, trace_id: &str) -> bool {
    if ratio >= 1.0 {
        return true;
    }
    let bound = (ratio.max(0.0) * (1u64 << 63) as f64) as u64;
    let low = trace_id.get(16..32).and_then(|hex| u64::from_str_radix(hex, 16).ok());
    low.is_some_and(|low| (low >> 1) < bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const LOW_ZERO: &str = "4bf92f3577b34da60000000000000000";
    const LOW_HALF: &str = "4bf92f3577b34da68000000000000000";
    const LOW_MAX: &str = "4bf92f3577b34da6ffffffffffffffff";

    fn parsed(name: &str, arg: Option<&str>) -> Sampler {
        Sampler::parse(Some(name), arg).expect("a sampler")
    }

    #[test]
    fn the_ratio_is_decided_from_the_trace_id_as_the_sdk_decides_it() {
        // Low half 0: below any bound but 0's.
        assert!(ratio_samples(0.0001, LOW_ZERO));
        assert!(!ratio_samples(0.0, LOW_ZERO));
        // Low half 2^63, shifted: 2^62, exactly the bound of 0.5 (not below it).
        assert!(!ratio_samples(0.5, LOW_HALF));
        assert!(ratio_samples(0.500_001, LOW_HALF));
        // The largest: only a ratio of 1 takes it.
        assert!(!ratio_samples(0.99, LOW_MAX));
        assert!(ratio_samples(1.0, LOW_MAX));
        // Only the low half counts.
        let low = "1000000000000000";
        assert_eq!(
            ratio_samples(0.3, &format!("ffffffffffffffff{low}")),
            ratio_samples(0.3, &format!("0000000000000001{low}"))
        );
        assert!(!ratio_samples(0.5, "not an id"));
    }

    #[test]
    fn the_specification_s_samplers_are_read_by_name_whatever_the_case() {
        assert_eq!(Sampler::parse(None, Some("0.1")), Ok(Sampler::default()), "the argument alone means nothing");
        assert_eq!(Sampler::parse(Some(" "), None), Ok(Sampler::default()));
        assert_eq!(parsed("ALWAYS_OFF", None).describe(), "always_off");
        assert_eq!(parsed("traceidratio", None).describe(), "traceidratio 1", "1.0 when no argument");
        assert_eq!(parsed("parentbased_traceidratio", Some(" 0.25 ")).describe(), "parentbased_traceidratio 0.25");
        assert_eq!(parsed("parentbased_always_on", None), Sampler::default());
        for (name, arg) in [
            ("jaeger_remote", None),
            ("xray", None),
            ("traceidratio", Some("10%")),
            ("traceidratio", Some("1.5")),
            ("traceidratio", Some("-0.1")),
            ("traceidratio", Some("NaN")),
        ] {
            let refused = Sampler::parse(Some(name), arg).expect_err(name);
            assert!(refused.contains("OTEL_TRACES_SAMPLER"), "{refused}");
        }
    }

    #[test]
    fn each_sampler_decides_as_the_specification_says() {
        let sampled = crate::SpanContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        let unsampled = crate::SpanContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00");
        let decide = |name: &str, arg: Option<&str>, parent: Option<&crate::SpanContext>, id: &str| {
            parsed(name, arg).samples(parent, id)
        };
        // [no parent, sampled parent, unsampled parent] for a trace id a ratio of 0.5 does not take.
        let table = [
            ("always_on", None, [true, true, true]),
            ("always_off", None, [false, false, false]),
            ("traceidratio", Some("0"), [false, false, false]),
            ("traceidratio", Some("0.5"), [false, false, false]),
            ("parentbased_always_on", None, [true, true, false]),
            ("parentbased_always_off", None, [false, true, false]),
            ("parentbased_traceidratio", Some("0.5"), [false, true, false]),
        ];
        for (name, arg, expected) in table {
            let got = [None, sampled.as_ref(), unsampled.as_ref()].map(|p| decide(name, arg, p, LOW_MAX));
            assert_eq!(got, expected, "{name} {arg:?}");
        }
        assert!(decide("traceidratio", Some("0.5"), None, LOW_ZERO));
    }

    proptest! {
        #[test]
        fn any_sampler_text_is_read_without_panicking(name in "\\PC{0,30}", arg in "\\PC{0,12}") {
            if let Ok(sampler) = Sampler::parse(Some(&name), Some(&arg)) {
                let _ = sampler.samples(None, LOW_HALF);
            }
        }
    }
}

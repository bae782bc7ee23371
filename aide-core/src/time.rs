//! Times as the tools store and print them: milliseconds since the epoch,
//! UTC RFC 3339, and the durations users type (`7d`, `30min`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::{AideError, TimeError};

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    millis(SystemTime::now())
}

/// Milliseconds since the Unix epoch of `t` (negative before it).
pub fn millis(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// UTC RFC 3339 with millisecond precision, e.g. `2026-01-20T18:30:00.123Z`.
pub fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// [`rfc3339`] of a time in milliseconds since the Unix epoch.
pub fn rfc3339_ms(ms: i64) -> String {
    rfc3339(UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0)))
}

/// Parses a point in time: RFC 3339 (`2026-01-20T18:30:00Z`) or a duration
/// ago (`2h`, `7d`, `30min`).
pub fn parse_since(s: &str) -> Result<SystemTime, AideError> {
    if let Ok(t) = humantime::parse_rfc3339_weak(s) {
        return Ok(t);
    }
    let d = humantime::parse_duration(s).map_err(|_| TimeError::NotATime { given: s.to_string() })?;
    Ok(SystemTime::now().checked_sub(d).unwrap_or(UNIX_EPOCH))
}

/// Parses a duration such as `7d`, `12h`, `30min`.
pub fn parse_duration(s: &str) -> Result<Duration, AideError> {
    humantime::parse_duration(s)
        .map_err(|e| TimeError::NotADuration { given: s.to_string(), message: e.to_string() }.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code;

    #[test]
    fn parses_times() {
        assert!(parse_since("2h").is_ok());
        assert!(parse_since("2026-01-20T18:30:00Z").is_ok());
        assert_eq!(parse_since("yesterday-ish").unwrap_err().code, code::INVALID_ARGUMENTS);
        assert_eq!(parse_duration("7d").unwrap(), Duration::from_secs(7 * 86400));
    }
}

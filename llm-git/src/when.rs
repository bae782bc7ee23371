//! A commit's time as git's `%aI`/`%cI` print it (strict ISO 8601 in the
//! author's or committer's own offset), from what blame's porcelain gives:
//! seconds since the epoch and the offset as `+HHMM`. Log and show ask git
//! for `%aI` itself; this is for the times only porcelain carries.

/// `secs` since the epoch, shown in the offset `tz` (`+0200`, `-0530`):
/// `2026-07-07T00:20:39+02:00`, and `Z` for a zero offset, as git 2.45 and
/// later print it. An offset that does not read is taken as zero.
pub(crate) fn iso_strict(secs: i64, tz: &str) -> String {
    let minutes = offset_minutes(tz).unwrap_or(0);
    let local = secs.saturating_add(minutes * 60);
    let (days, of_day) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s) = (of_day / 3600, of_day % 3600 / 60, of_day % 60);
    let offset = if minutes == 0 {
        "Z".to_string()
    } else {
        let sign = if minutes < 0 { '-' } else { '+' };
        format!("{sign}{:02}:{:02}", minutes.abs() / 60, minutes.abs() % 60)
    };
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}{offset}")
}

/// git's `+HHMM` as minutes east of UTC.
fn offset_minutes(tz: &str) -> Option<i64> {
    let (sign, digits) = match tz.as_bytes().first()? {
        b'+' => (1, &tz[1..]),
        b'-' => (-1, &tz[1..]),
        _ => return None,
    };
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m): (i64, i64) = (digits[..2].parse().ok()?, digits[2..].parse().ok()?);
    Some(sign * (h * 60 + m))
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_git_prints_them_in_their_own_offset() {
        // Each as `git log --format=%aI` printed it for a commit with that time and offset.
        assert_eq!(iso_strict(1_783_376_439, "+0200"), "2026-07-07T00:20:39+02:00");
        assert_eq!(iso_strict(1_783_403_439, "-0530"), "2026-07-07T00:20:39-05:30");
        assert_eq!(iso_strict(1_783_333_239, "+1400"), "2026-07-07T00:20:39+14:00");
        assert_eq!(iso_strict(1_783_383_639, "+0000"), "2026-07-07T00:20:39Z");
        assert_eq!(iso_strict(3600, "-0100"), "1970-01-01T00:00:00-01:00");
        // A leap day, and the turn of a century that is one.
        assert_eq!(iso_strict(951_782_400, "+0000"), "2000-02-29T00:00:00Z");
        assert_eq!(iso_strict(951_868_799, "+0000"), "2000-02-29T23:59:59Z");
        assert_eq!(iso_strict(0, "bogus"), "1970-01-01T00:00:00Z");
    }
}

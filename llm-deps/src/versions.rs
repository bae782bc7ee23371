//! Which published version a requirement wants and which is latest:
//! Cargo's requirements as the semver crate reads them, npm's ranges
//! turned into the same (a bare version is exact, `||` is any of its
//! parts, `a - b` is `>=a, <=b`, `x` and `*` are wildcards).

use semver::{Version, VersionReq};

/// A version, leniently: a leading `v` or `=` dropped, `1.2` as `1.2.0`.
pub(crate) fn parse(text: &str) -> Option<Version> {
    let t = text.trim().trim_start_matches(['v', '=']);
    Version::parse(t).ok().or_else(|| {
        let parts = t.split('.').count();
        match parts {
            1 => Version::parse(&format!("{t}.0.0")).ok(),
            2 => Version::parse(&format!("{t}.0")).ok(),
            _ => None,
        }
    })
}

/// npm's range as requirements, any of which may match.
pub(crate) fn npm_range(range: &str) -> Option<Vec<VersionReq>> {
    let mut out = Vec::new();
    for part in range.split("||") {
        let part = part.trim();
        let cargo = if part.is_empty() || part == "*" || part == "x" || part == "latest" {
            "*".to_string()
        } else if let Some((low, high)) = part.split_once(" - ") {
            format!(">={}, <={}", low.trim(), high.trim())
        } else {
            let mut comparators = Vec::new();
            let mut words = part.split_whitespace().peekable();
            while let Some(w) = words.next() {
                // `>= 1.2.3` written with a space.
                let w = if matches!(w, ">" | ">=" | "<" | "<=" | "=" | "~" | "^") {
                    format!("{w}{}", words.next().unwrap_or(""))
                } else {
                    w.to_string()
                };
                let w = w.trim_start_matches('v').replace(".x", ".*").replace(".X", ".*");
                let bare = w.starts_with(|c: char| c.is_ascii_digit()) && !w.contains('*');
                comparators.push(if bare { format!("={w}") } else { w });
            }
            comparators.join(", ")
        };
        out.push(VersionReq::parse(&cargo).ok()?);
    }
    Some(out)
}

/// The highest of `versions` that `matches` allows, stable ones first (a
/// pre-release only when the requirement names one, as both npm and Cargo do).
pub(crate) fn highest(versions: &[String], matches: impl Fn(&Version) -> bool) -> Option<String> {
    versions
        .iter()
        .filter_map(|v| parse(v).map(|p| (p, v)))
        .filter(|(p, _)| matches(p))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, v)| v.clone())
}

/// The highest stable version, or the highest of all when none is stable.
pub(crate) fn latest_stable(versions: &[String]) -> Option<String> {
    highest(versions, |v| v.pre.is_empty()).or_else(|| highest(versions, |_| true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wants(range: &str, version: &str) -> bool {
        let v = parse(version).unwrap();
        npm_range(range).unwrap().iter().any(|r| r.matches(&v))
    }

    #[test]
    fn npm_ranges_read_as_npm_reads_them() {
        assert!(wants("^1.2.0", "1.9.0") && !wants("^1.2.0", "2.0.0"));
        assert!(wants("1.2.3", "1.2.3") && !wants("1.2.3", "1.2.4"));
        assert!(wants("~2.0.0", "2.0.9") && !wants("~2.0.0", "2.1.0"));
        assert!(wants("1.x || >=3", "1.5.0") && wants("1.x || >=3", "3.1.0") && !wants("1.x || >=3", "2.0.0"));
        assert!(wants("1.0.0 - 1.5.0", "1.5.0") && !wants("1.0.0 - 1.5.0", "1.5.1"));
        assert!(wants(">= 1.0.0 < 2", "1.1.0") && wants("*", "9.9.9"));
    }

    #[test]
    fn highest_skips_pre_releases_unless_asked() {
        let versions: Vec<String> = ["1.0.0", "1.1.0", "2.0.0-beta.1"].map(String::from).to_vec();
        assert_eq!(latest_stable(&versions).as_deref(), Some("1.1.0"));
        let any = VersionReq::parse("*").unwrap();
        assert_eq!(highest(&versions, |v| any.matches(v)).as_deref(), Some("1.1.0"));
    }
}

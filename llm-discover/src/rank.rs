//! Ranking paths against a query: nucleo (fzf's algorithm) for matching and
//! scoring, with path-aware tiers so the file an agent names comes first.

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use aide_core::AideError;

use crate::error::DiscoverError;
use crate::output::{Found, Kind, Reason};

/// The score band of the tier: (lowest, highest).
fn band(reason: Reason) -> (f64, f64) {
    match reason {
        Reason::ExactPath => (1.0, 1.0),
        Reason::ExactBasename => (0.90, 0.98),
        Reason::BasenamePrefix => (0.78, 0.88),
        Reason::BasenameSubstring => (0.66, 0.76),
        Reason::PathSubstring => (0.56, 0.64),
        Reason::BasenameFuzzy => (0.40, 0.54),
        Reason::PathFuzzy => (0.05, 0.38),
        Reason::Listed => (1.0, 1.0),
    }
}

/// Reusable per-thread buffers.
pub struct Scratch {
    matcher: Matcher,
    chars: Vec<char>,
    indices: Vec<u32>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch { matcher: Matcher::new(Config::DEFAULT.match_paths()), chars: Vec::new(), indices: Vec::new() }
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Self::new()
    }
}

/// A parsed query.
#[derive(Debug)]
pub struct Ranker {
    pattern: Pattern,
    /// The query when it is one plain fuzzy term, folded for comparison.
    plain: Option<String>,
    case_sensitive: bool,
    /// The score of a perfect match of every positive term.
    best_score: f64,
}

impl Ranker {
    pub fn new(query: &str) -> Result<Ranker, AideError> {
        if query.trim().is_empty() {
            return Err(DiscoverError::EmptyQuery.into());
        }
        // Smart case, except that a camelCase query names words, not cases:
        // `appRouter` finds `app.router.js`, `app_router.py` and `AppRouter.ts`.
        let camel = has_camel_hump(query);
        let case_sensitive = query.chars().any(char::is_uppercase) && !camel;
        let case = if camel { CaseMatching::Ignore } else { CaseMatching::Smart };
        let pattern = Pattern::parse(query, case, Normalization::Smart);
        if pattern.atoms.iter().all(|a| a.negative || a.needle_text().is_empty()) {
            return Err(if pattern.atoms.iter().any(|a| a.negative && !a.needle_text().is_empty()) {
                DiscoverError::OnlyNegatedTerms
            } else {
                DiscoverError::OnlyOperators
            }
            .into());
        }
        let single = pattern.atoms.len() == 1 && pattern.atoms[0].kind == AtomKind::Fuzzy && !pattern.atoms[0].negative;
        let plain = single.then(|| fold(query.trim(), case_sensitive));
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let best_score = pattern
            .atoms
            .iter()
            .filter(|a| !a.negative)
            .map(|a| f64::from(a.score(a.needle_text(), &mut matcher).unwrap_or(1)))
            .sum::<f64>()
            .max(1.0);
        Ok(Ranker { pattern, plain, case_sensitive, best_score })
    }

    /// Ranks `path`, or None if it does not match.
    pub fn rank(&self, path: &str, kind: Kind, s: &mut Scratch) -> Option<Found> {
        s.indices.clear();
        let path_score = self.pattern.indices(Utf32Str::new(path, &mut s.chars), &mut s.matcher, &mut s.indices)?;
        let basename = path.rsplit('/').next().unwrap_or(path);
        let reason = self.reason(path, basename, s);
        let raw = match reason {
            Reason::BasenameFuzzy | Reason::BasenamePrefix | Reason::BasenameSubstring | Reason::ExactBasename => {
                self.pattern.score(Utf32Str::new(basename, &mut s.chars), &mut s.matcher).unwrap_or(path_score)
            }
            _ => path_score,
        };
        let quality = (f64::from(raw) / self.best_score).min(1.0);
        let chars = path.chars().count();
        let shortness = 1.0 - (chars.min(256) as f64 / 256.0);
        let depth = path.matches('/').count();
        let shallowness = 1.0 / (1.0 + depth as f64);
        let q = 0.6 * quality + 0.25 * shortness + 0.15 * shallowness;
        let (lo, hi) = band(reason);
        let score = round4(lo + (hi - lo) * q);
        s.indices.sort_unstable();
        s.indices.dedup();
        Some(Found {
            path: path.to_string(),
            kind,
            score,
            reason,
            reason_text: reason.text(),
            matched: s.indices.clone(),
        })
    }

    fn reason(&self, path: &str, basename: &str, s: &mut Scratch) -> Reason {
        if let Some(q) = &self.plain {
            let path_f = fold(path, self.case_sensitive);
            let base_f = fold(basename, self.case_sensitive);
            let stem = match base_f.rfind('.') {
                Some(i) if i > 0 => &base_f[..i],
                _ => base_f.as_str(),
            };
            if path_f == *q {
                return Reason::ExactPath;
            }
            if base_f == *q || stem == q {
                return Reason::ExactBasename;
            }
            if base_f.starts_with(q.as_str()) {
                return Reason::BasenamePrefix;
            }
            if base_f.contains(q.as_str()) {
                return Reason::BasenameSubstring;
            }
            if path_f.contains(q.as_str()) {
                return Reason::PathSubstring;
            }
        }
        if self.pattern.score(Utf32Str::new(basename, &mut s.chars), &mut s.matcher).is_some() {
            Reason::BasenameFuzzy
        } else {
            Reason::PathFuzzy
        }
    }
}

/// Whether `query` has an uppercase letter right after a lowercase letter
/// or digit (`appRouter`, `parseV2Config`): a camelCase word boundary.
fn has_camel_hump(query: &str) -> bool {
    query.chars().zip(query.chars().skip(1)).any(|(a, b)| (a.is_lowercase() || a.is_ascii_digit()) && b.is_uppercase())
}

fn fold(s: &str, case_sensitive: bool) -> String {
    if case_sensitive { s.to_string() } else { s.to_lowercase() }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(query: &str, paths: &[&str]) -> String {
        let r = Ranker::new(query).unwrap();
        let mut s = Scratch::new();
        let mut found: Vec<Found> = paths.iter().filter_map(|p| r.rank(p, Kind::File, &mut s)).collect();
        found.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
        found.first().map(|f| f.path.clone()).unwrap_or_default()
    }

    #[test]
    fn tiers_order_as_documented() {
        let mut tiers = [
            Reason::PathFuzzy,
            Reason::ExactPath,
            Reason::BasenameFuzzy,
            Reason::ExactBasename,
            Reason::PathSubstring,
            Reason::BasenamePrefix,
            Reason::BasenameSubstring,
        ];
        tiers.sort_by(|a, b| band(*b).1.total_cmp(&band(*a).1));
        for pair in tiers.windows(2) {
            assert!(band(pair[0]).0 > band(pair[1]).1, "{:?} overlaps {:?}", pair[0], pair[1]);
        }
    }

    #[test]
    fn exact_basename_beats_prefix_and_fuzzy() {
        assert_eq!(first("main", &["docs/maintenance.md", "src/main.rs", "src/domain.rs"]), "src/main.rs");
        assert_eq!(first("vector", &["src/vec/tor.rs", "src/vector.rs", "src/vector_ops.rs"]), "src/vector.rs");
    }

    #[test]
    fn scores_are_in_unit_range_and_matched_positions_point_at_the_query() {
        let r = Ranker::new("vec").unwrap();
        let mut s = Scratch::new();
        let f = r.rank("src/vec.rs", Kind::File, &mut s).unwrap();
        assert!(f.score > 0.0 && f.score <= 1.0);
        assert_eq!(f.matched, [4, 5, 6]);
        assert_eq!(r.rank("src/vec.rs", Kind::File, &mut s).unwrap().score, f.score);
        let exact = Ranker::new("src/vec.rs").unwrap().rank("src/vec.rs", Kind::File, &mut s).unwrap();
        assert_eq!((exact.score, exact.reason), (1.0, Reason::ExactPath));
    }

    #[test]
    fn camel_case_queries_match_across_separators_and_cases() {
        let paths = ["src/app.router.js", "lib/app_router.py", "web/AppRouter.ts", "src/apple.rs"];
        let r = Ranker::new("appRouter").unwrap();
        let mut s = Scratch::new();
        let found: Vec<&str> = paths.iter().copied().filter(|p| r.rank(p, Kind::File, &mut s).is_some()).collect();
        assert_eq!(found, ["src/app.router.js", "lib/app_router.py", "web/AppRouter.ts"]);
        assert_eq!(r.rank("web/AppRouter.ts", Kind::File, &mut s).unwrap().reason, Reason::ExactBasename);
        // A capital that starts a word is still smart case.
        let upper = Ranker::new("Router").unwrap();
        assert!(upper.rank("src/app.router.js", Kind::File, &mut s).is_none());
        assert!(upper.rank("web/AppRouter.ts", Kind::File, &mut s).is_some());
    }

    #[test]
    fn empty_and_negative_only_queries_are_errors() {
        assert_eq!(Ranker::new("  ").unwrap_err().code, aide_core::code::INVALID_ARGUMENTS);
        assert_eq!(Ranker::new("!test").unwrap_err().code, aide_core::code::INVALID_ARGUMENTS);
    }
}

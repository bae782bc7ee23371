//! Did-you-mean: the closest known name to a misspelt one.

/// The candidate closest to `word` by edit distance, if any is close enough
/// to be a plausible typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let max = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (levenshtein(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= max)
        .min()
        .map(|(_, c)| c)
}

/// Up to `n` candidates nearest to `word`, nearest first: the plausible
/// typos and the names that contain it or that it contains (`jobs` names
/// `jobs_list`), else the `n` nearest of all, so a caller always has a
/// name to try.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<&'a str> {
    let word = word.to_lowercase();
    let max = (word.chars().count() / 3).max(2);
    let mut ranked: Vec<(bool, usize, &str)> = candidates
        .into_iter()
        .map(|c| {
            let lower = c.to_lowercase();
            let distance = levenshtein(&word, &lower);
            let related = !word.is_empty() && (lower.contains(&word) || word.contains(&lower));
            (!(distance <= max || related), distance, c)
        })
        .collect();
    ranked.sort();
    let close = ranked.iter().take_while(|(far, ..)| !far).count();
    let keep = if close == 0 { n } else { close.min(n) };
    ranked.into_iter().take(keep).map(|(_, _, c)| c).collect()
}

/// Edit distance (insertions, deletions, substitutions) between two strings.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(closest("findDefinitons", ["findDefinitions", "search", "lines"]), Some("findDefinitions"));
        assert_eq!(closest("zzz", ["findDefinitions"]), None);
        let tools = ["search", "ast_search", "read", "jobs_list", "jobs_wait", "shell_exec"];
        assert_eq!(nearest("serch", tools, 3), ["search"]);
        assert_eq!(nearest("jobs", tools, 3), ["jobs_list", "jobs_wait"]);
        assert_eq!(nearest("zzzzzzzzzzzz", tools, 2).len(), 2, "always a name to try");
    }
}

//! Which findings are new: each finding of before is matched to one of
//! now by its file, checker, code and message, at the line its old line
//! moved to (lines followed through a diff of the file), or — where its
//! line itself was edited, or no old text is known — the nearest such
//! finding. What is left unmatched now is new.

use std::collections::BTreeMap;

use crate::finding::Finding;

/// Where each line (1-based) of `old` is in `new`, for lines the change
/// left as they were; an edited or removed line has no place.
pub fn line_moves(old: &[u8], new: &[u8]) -> BTreeMap<usize, usize> {
    aide_diff::LineDiff::new(old, new).unchanged().into_iter().map(|(o, n)| (o + 1, n + 1)).collect()
}

/// The findings of `now` that `before` did not have. `moved(path, line)`
/// gives the line an old line is on now, if it is known and unchanged.
pub fn new_since(now: Vec<Finding>, before: &[Finding], moved: &dyn Fn(&str, usize) -> Option<usize>) -> Vec<Finding> {
    let key = |f: &Finding| -> (String, String, Option<String>, String) {
        (f.path.clone(), f.checker.clone(), f.code.clone(), f.message.clone())
    };
    let mut matched = vec![false; now.len()];
    let mut by_key: BTreeMap<(String, String, Option<String>, String), Vec<usize>> = BTreeMap::new();
    for (i, f) in now.iter().enumerate() {
        by_key.entry(key(f)).or_default().push(i);
    }
    for old in before {
        let Some(candidates) = by_key.get(&key(old)) else { continue };
        let free = candidates.iter().copied().filter(|&i| !matched[i]);
        let pick = match moved(&old.path, old.line) {
            // Its line is still there: the same finding is on it, or it is gone.
            Some(line) => free.clone().find(|&i| now[i].line == line),
            None => free.min_by_key(|&i| now[i].line.abs_diff(old.line)),
        };
        if let Some(i) = pick {
            matched[i] = true;
        }
    }
    now.into_iter().zip(matched).filter(|(_, m)| !m).map(|(f, _)| f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Severity;

    fn finding(line: usize, message: &str) -> Finding {
        Finding {
            path: "a.py".into(),
            line,
            column: 1,
            end_line: line,
            end_column: 1,
            byte_start: 0,
            byte_end: 0,
            severity: Severity::Error,
            code: Some("F821".into()),
            message: message.into(),
            checker: "ruff".into(),
            checksum: String::new(),
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    #[test]
    fn a_finding_that_moved_with_its_line_is_old_and_a_twin_elsewhere_is_new() {
        let old = "x = y\nprint(1)\n";
        let new = "import os\nx = y\nprint(1)\nz = y\n";
        let moves = line_moves(old.as_bytes(), new.as_bytes());
        assert_eq!(moves.get(&1), Some(&2));
        let before = vec![finding(1, "undefined name 'y'")];
        let now = vec![finding(2, "undefined name 'y'"), finding(4, "undefined name 'y'")];
        let fresh = new_since(now, &before, &|_, l| moves.get(&l).copied());
        assert_eq!(fresh.iter().map(|f| f.line).collect::<Vec<_>>(), vec![4]);
    }

    #[test]
    fn an_edited_line_keeps_its_finding_by_the_nearest_line_and_a_fixed_one_is_gone() {
        let before = vec![finding(3, "undefined name 'y'"), finding(9, "undefined name 'q'")];
        let now = vec![finding(4, "undefined name 'y'")];
        let fresh = new_since(now, &before, &|_, _| None);
        assert!(fresh.is_empty());
        // Line 9 is unchanged and moved to 10, where nothing is now: nothing to match, nothing new.
        let now = vec![finding(4, "undefined name 'q'")];
        let fresh = new_since(now, &before[1..], &|_, l| Some(l + 1));
        assert_eq!(fresh.len(), 1, "the finding on line 4 is not the one that was on line 9");
    }
}

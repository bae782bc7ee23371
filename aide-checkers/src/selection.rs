//! Which checkers a request names. llm-lint's `--checker` (repeatable) and
//! llm-transform's `--verify` (one value) read their values by this one
//! rule: each value is a name or a comma-separated list of them, spaces
//! around a name ignored; `all` (or no name at all) is every checker the
//! project uses; a name is matched without regard to case, `-`, `_` or
//! spaces (`go vet`, `go_vet` and `govet` are `go-vet`).

use crate::checker::{self, CHECKERS, Checker, folded};
use crate::error::CheckerError;
use crate::syntax;

/// The word for every checker the project uses.
pub const ALL: &str = "all";

/// The checkers a request names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Every checker the project uses (and `syntax`) runs.
    pub auto: bool,
    /// The checkers named, each once, in the order of [`CHECKERS`]: each must run.
    pub named: Vec<&'static Checker>,
    /// `syntax` was named.
    pub syntax: bool,
}

impl Selection {
    /// Whether `c` was named (so it must run, installed or not).
    pub fn names(&self, c: &Checker) -> bool {
        self.named.iter().any(|n| n.name == c.name)
    }

    /// Whether aide's syntax check runs.
    pub fn with_syntax(&self) -> bool {
        self.auto || self.syntax
    }
}

/// Reads `values` (each a name or a comma-separated list); an unknown name
/// is an error naming the known ones.
pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Selection, CheckerError> {
    let mut selection = Selection::default();
    let mut any = false;
    for name in values.iter().flat_map(|v| v.as_ref().split(',')).map(str::trim).filter(|n| !n.is_empty()) {
        any = true;
        let key = folded(name);
        if key == ALL {
            selection.auto = true;
        } else if key == syntax::NAME {
            selection.syntax = true;
        } else {
            let c = checker::named(name)
                .ok_or_else(|| CheckerError::Unknown { name: name.to_string(), known: checker::names() })?;
            if !selection.names(c) {
                selection.named.push(c);
            }
        }
    }
    selection.auto |= !any;
    selection.named.sort_by_key(|c| CHECKERS.iter().position(|k| k.name == c.name));
    Ok(selection)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &Selection) -> Vec<&str> {
        s.named.iter().map(|c| c.name).collect()
    }

    #[test]
    fn lists_repeats_all_and_spellings_read_alike() {
        let one = parse(&["ruff, mypy"]).unwrap();
        let many = parse(&["mypy", "ruff"]).unwrap();
        assert_eq!(one, many);
        assert_eq!(names(&one), ["ruff", "mypy"], "in the checkers' order");
        assert!(!one.auto && !one.with_syntax());
        assert_eq!(names(&parse(&["go vet", "GoVet", "go_vet,go-vet"]).unwrap()), ["go-vet"]);
        let all = parse(&["all,cargo"]).unwrap();
        assert!(all.auto && all.with_syntax());
        assert_eq!(names(&all), ["cargo"]);
        assert!(parse::<&str>(&[]).unwrap().auto, "no name: every checker the project uses");
        assert!(parse(&["", " , "]).unwrap().auto);
        let syntax = parse(&["syntax"]).unwrap();
        assert!(syntax.with_syntax() && !syntax.auto && syntax.named.is_empty());
    }

    #[test]
    fn an_unknown_name_is_refused_with_the_known_ones() {
        let Err(CheckerError::Unknown { name, known }) = parse(&["ruff,shelcheck"]) else { panic!("accepted") };
        assert_eq!(name, "shelcheck");
        assert!(known.contains(&"shellcheck") && known.contains(&"syntax"));
    }
}

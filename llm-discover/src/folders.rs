//! A folder named like the query stands for the files beneath it that
//! match only through its name, as `fd` shows the folder, not every file in
//! it: `blueprint` finds `tests/test_apps/blueprintapp/`, once, rather than
//! each of its files ranked below the files named like the query.

use std::collections::HashSet;

use crate::output::Reason;
use crate::output::{Found, Kind};
use crate::rank::{Ranker, Scratch};

/// `found` with each file that matched only through a folder's name
/// (`path_substring`) replaced by that folder (the shallowest so named),
/// said once.
pub(crate) fn stand_for_files(found: Vec<Found>, ranker: &Ranker) -> Vec<Found> {
    let mut scratch = Scratch::new();
    let mut folders: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(found.len());
    for f in found {
        if f.kind == Kind::File
            && f.reason == Reason::PathSubstring
            && let Some(folder) = named_folder(&f.path, ranker, &mut scratch)
        {
            if folders.insert(folder.path.clone()) {
                out.push(folder);
            }
            continue;
        }
        out.push(f);
    }
    out
}

/// The shallowest folder of `path` whose own name matches the query.
fn named_folder(path: &str, ranker: &Ranker, s: &mut Scratch) -> Option<Found> {
    path.match_indices('/').map(|(i, _)| &path[..i]).find_map(|folder| {
        let found = ranker.rank(folder, Kind::Dir, s)?;
        let by_name = matches!(
            found.reason,
            Reason::ExactPath | Reason::ExactBasename | Reason::BasenamePrefix | Reason::BasenameSubstring
        );
        by_name.then_some(found)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_found_through_a_folders_name_become_that_folder_once() {
        let ranker = Ranker::new("blueprint").unwrap();
        let mut s = Scratch::new();
        let paths =
            ["src/blueprints.py", "tests/blueprintapp/__init__.py", "tests/blueprintapp/apps/x.py", "docs/a.rst"];
        let found: Vec<Found> = paths.iter().filter_map(|p| ranker.rank(p, Kind::File, &mut s)).collect();
        let got = stand_for_files(found, &ranker);
        let shown: Vec<(&str, Kind)> = got.iter().map(|f| (f.path.as_str(), f.kind)).collect();
        assert_eq!(shown, [("src/blueprints.py", Kind::File), ("tests/blueprintapp", Kind::Dir)]);
        assert_eq!(got[1].reason, Reason::BasenamePrefix);
    }
}

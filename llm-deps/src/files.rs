//! How the readers see the tree: a file's text and a folder's
//! subfolders, by path relative to the root. The run reads through the
//! root ([`aide_core::root::Root`], never outside it); the tests read a map.

/// Files relative to the root.
pub(crate) trait Files {
    /// The text of a regular file, or None when it is absent or unreadable.
    fn read(&self, rel: &str) -> Option<String>;
    /// The names of the folders in a folder, sorted.
    fn dirs(&self, rel: &str) -> Vec<String>;
    /// The names of the regular files in a folder, sorted.
    fn names(&self, rel: &str) -> Vec<String>;
}

/// `dir/name`, or `name` at the root.
pub(crate) fn join(dir: &str, name: &str) -> String {
    match dir.trim_matches('/') {
        "" | "." => name.to_string(),
        d => format!("{d}/{name}"),
    }
}

#[cfg(test)]
pub(crate) mod memory {
    use std::collections::BTreeMap;

    /// Files held in memory, for the readers' tests.
    #[derive(Default)]
    pub(crate) struct Memory(pub BTreeMap<String, String>);

    impl Memory {
        pub(crate) fn with(files: &[(&str, &str)]) -> Memory {
            Memory(files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect())
        }
    }

    impl super::Files for Memory {
        fn read(&self, rel: &str) -> Option<String> {
            self.0.get(rel).cloned()
        }
        fn dirs(&self, rel: &str) -> Vec<String> {
            let prefix = if rel.is_empty() { String::new() } else { format!("{rel}/") };
            let mut out: Vec<String> = self
                .0
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .filter_map(|rest| rest.split_once('/').map(|(d, _)| d.to_string()))
                .collect();
            out.dedup();
            out
        }
        fn names(&self, rel: &str) -> Vec<String> {
            let prefix = if rel.is_empty() { String::new() } else { format!("{rel}/") };
            self.0
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .filter(|r| !r.contains('/'))
                .map(str::to_string)
                .collect()
        }
    }
}

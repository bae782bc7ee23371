//! Which lock files a root has, each read by its ecosystem's reader: one
//! npm lock (package-lock.json or npm-shrinkwrap.json, else
//! pnpm-lock.yaml, else yarn.lock), Cargo.lock, one Python lock (uv.lock,
//! else poetry.lock, else requirements*.txt) and go.mod, all at the root.
//! A file that does not parse is a `parse_error` diagnostic, its ecosystem
//! left out; the others are still read.

use std::path::Path;

use aide_core::Diagnostic;
use aide_core::diagnostic::diag;
use aide_core::root::Root;

use crate::files::Files;
use crate::model::{Ecosystem, Graph, ParseFailure};

/// Files read beneath a [`Root`], never past 64 MiB.
pub(crate) struct RootFiles<'a>(pub &'a Root);

const MAX_BYTES: u64 = 64 << 20;

impl Files for RootFiles<'_> {
    fn read(&self, rel: &str) -> Option<String> {
        let (file, stat) = self.0.open_file_with_stat(Path::new(rel)).ok()?;
        if stat.st_size as u64 > MAX_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_BYTES), &mut bytes).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn dirs(&self, rel: &str) -> Vec<String> {
        self.list(rel, true)
    }

    fn names(&self, rel: &str) -> Vec<String> {
        self.list(rel, false)
    }
}

impl RootFiles<'_> {
    fn list(&self, rel: &str, dirs: bool) -> Vec<String> {
        let Some(dir) = self.0.lexical(Path::new(if rel.is_empty() { "." } else { rel })) else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(self.0.path().join(dir)) else { return Vec::new() };
        let mut out: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| if dirs { t.is_dir() } else { t.is_file() }))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        out.sort();
        out
    }
}

/// Every ecosystem's graph found at the root (those asked for), and what
/// could not be read.
pub(crate) fn scan(files: &dyn Files, only: &[Ecosystem]) -> (Vec<Graph>, Vec<Diagnostic>) {
    let wanted = |e: Ecosystem| only.is_empty() || only.contains(&e);
    let mut graphs = Vec::new();
    let mut diagnostics = Vec::new();
    let mut take = |found: Result<Option<Graph>, ParseFailure>, what: &str| match found {
        Ok(Some(g)) => graphs.push(g),
        Ok(None) => {}
        Err(ParseFailure(why)) => diagnostics.push(
            Diagnostic::new(diag::PARSE_ERROR, format!("not read as a {what} lock file: {why}"))
                .with_path(what_file(files, what)),
        ),
    };
    if wanted(Ecosystem::Cargo) {
        take(crate::cargo::read(files, ""), "Cargo");
    }
    if wanted(Ecosystem::Npm) {
        let npm = crate::npm::read(files, "");
        let npm = match npm {
            Ok(None) => match crate::pnpm::read(files, "") {
                Ok(None) => crate::yarn::read(files, ""),
                other => other,
            },
            other => other,
        };
        take(npm, "npm");
    }
    if wanted(Ecosystem::Pypi) {
        take(crate::python::read(files, ""), "Python");
    }
    if wanted(Ecosystem::Go) {
        take(Ok(crate::golang::read(files, "")), "Go");
    }
    (graphs, diagnostics)
}

/// The lock file of an ecosystem that failed to parse (the first present).
fn what_file(files: &dyn Files, what: &str) -> String {
    let candidates: &[&str] = match what {
        "Cargo" => &["Cargo.lock"],
        "npm" => &["npm-shrinkwrap.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock"],
        "Python" => &["uv.lock", "poetry.lock"],
        _ => &["go.mod"],
    };
    candidates.iter().find(|c| files.read(c).is_some()).unwrap_or(&candidates[0]).to_string()
}

#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use crate::files::memory::Memory;

    /// Every lock file and manifest name a reader opens.
    const NAMES: [&str; 10] = [
        "Cargo.lock",
        "Cargo.toml",
        "package-lock.json",
        "package.json",
        "pnpm-lock.yaml",
        "yarn.lock",
        "uv.lock",
        "poetry.lock",
        "requirements.txt",
        "go.mod",
    ];

    fn run_all(text: &str) {
        for name in NAMES {
            let mut files = Memory::with(&[(name, text)]);
            // Beside a manifest that parses, so the lock's own reader runs through.
            files.0.insert(
                "package.json".into(),
                if name == "package.json" { text.into() } else { "{\"dependencies\":{\"a\":\"1\"}}".into() },
            );
            let (graphs, _) = super::scan(&files, &[]);
            let _ = crate::tree::list(&graphs, false);
            let _ = crate::tree::tree(&graphs, None);
        }
        let _ = crate::audit::rustsec_advisory(text);
        let _ = crate::audit::osv_advisory(text);
        let _ = crate::versions::npm_range(text);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn no_reader_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            run_all(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn no_reader_panics_on_lock_shaped_text(text in "([\\[\\]{}\":,=@#() \n\t-]|[a-z0-9.^~/]{1,6}|version|packages|dependencies|node_modules/|name|\\[\\[package\\]\\]|require|lockfileVersion: '9.0'|__metadata:){0,60}") {
            run_all(&text);
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        run_all(&"[".repeat(100_000));
        run_all(&"{\"a\":".repeat(50_000));
        run_all(&format!("a:\n{}", (1..2000).map(|i| format!("{}b:\n", " ".repeat(i))).collect::<String>()));
    }
}

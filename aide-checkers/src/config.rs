//! What a project's own configuration of a checker means for how aide runs
//! it. mypy: the targets its configuration names (`files`, `packages`,
//! `modules`), which aide must not override with a path of its own, and the
//! reports it would write (`*_report`, `junit_xml`), which no flag turns
//! off — so aide does not run it there. The configuration is the one mypy
//! itself reads: `mypy.ini`, `.mypy.ini`, `pyproject.toml` with
//! `[tool.mypy]`, `setup.cfg` with `[mypy]`, in the root or the folders
//! above it up to the repository's top.

use std::path::Path;

/// The files mypy reads its configuration from, in its order.
const MYPY_FILES: &[&str] = &["mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"];

/// mypy's configuration, as far as aide's command line depends on it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MypyConfig {
    /// It names what to check: mypy is given no path.
    pub targets: bool,
    /// The report options it sets (mypy would write those files).
    pub reports: Vec<String>,
}

/// The configuration mypy reads when run in `root`, if any.
pub(crate) fn mypy(root: &Path) -> Option<MypyConfig> {
    let mut dir = Some(root);
    while let Some(d) = dir {
        if let Some(found) = MYPY_FILES.iter().find_map(|name| mypy_file(&d.join(name))) {
            return Some(found);
        }
        // mypy stops looking at a repository's top.
        if d.join(".git").exists() || d.join(".hg").exists() {
            break;
        }
        dir = d.parent();
    }
    None
}

/// The mypy section of one file, as mypy reads it (a file that does not
/// parse, or a shared file without the section, is passed over).
fn mypy_file(path: &Path) -> Option<MypyConfig> {
    let text = std::fs::read_to_string(path).ok()?;
    let name = path.file_name()?.to_str()?;
    let keys: Vec<(String, bool)> = if name == "pyproject.toml" {
        let table: toml::Table = text.parse().ok()?;
        let section = table.get("tool")?.get("mypy")?.as_table()?;
        section
            .iter()
            .map(|(k, v)| {
                let given = match v {
                    toml::Value::String(s) => !s.trim().is_empty(),
                    toml::Value::Array(a) => !a.is_empty(),
                    _ => true,
                };
                (k.clone(), given)
            })
            .collect()
    } else {
        let section = ini_section(&text, "mypy");
        // mypy.ini is mypy's even without the section; setup.cfg only with it.
        if section.is_none() && name == "setup.cfg" {
            return None;
        }
        section.unwrap_or_default()
    };
    let key = |k: &str| k.trim().to_lowercase().replace('-', "_");
    let targets = keys.iter().any(|(k, given)| *given && matches!(key(k).as_str(), "files" | "packages" | "modules"));
    let mut reports: Vec<String> =
        keys.iter().map(|(k, _)| key(k)).filter(|k| k.ends_with("_report") || k == "junit_xml").collect();
    reports.sort();
    Some(MypyConfig { targets, reports })
}

/// The keys of an INI file's `[section]`, each with whether it has a value
/// (on its line or on indented lines after it), as Python's configparser
/// reads them; None when the section is not there.
fn ini_section(text: &str, section: &str) -> Option<Vec<(String, bool)>> {
    let mut keys: Option<Vec<(String, bool)>> = None;
    let mut inside = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            inside = name.trim() == section;
            if inside {
                keys.get_or_insert_with(Vec::new);
            }
            continue;
        }
        let Some(keys) = keys.as_mut().filter(|_| inside) else { continue };
        if line.starts_with(char::is_whitespace) {
            // A continuation line gives the key before it a value.
            if let Some(last) = keys.last_mut() {
                last.1 = true;
            }
            continue;
        }
        let (key, value) = trimmed.split_once(['=', ':']).unwrap_or((trimmed, ""));
        keys.push((key.trim().to_lowercase(), !value.trim().is_empty()));
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(files: &[(&str, &str)]) -> (tempfile::TempDir, Option<MypyConfig>) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let found = mypy(dir.path());
        (dir, found)
    }

    #[test]
    fn targets_named_in_each_file_mypy_reads() {
        let (_d, c) = at(&[("pyproject.toml", "[tool.mypy]\nfiles = [\"src/flask\", \"tests/typing\"]\n")]);
        assert!(c.unwrap().targets);
        let (_d, c) = at(&[("mypy.ini", "[mypy]\nstrict = True\nfiles =\n    pkg,\n    other\n")]);
        assert!(c.unwrap().targets, "a value on the lines after the key");
        let (_d, c) = at(&[("setup.cfg", "[metadata]\nname = x\n[mypy]\npackages = pkg\n")]);
        assert!(c.unwrap().targets);
        let (_d, c) = at(&[("pyproject.toml", "[tool.mypy]\nstrict = true\nfiles = []\n")]);
        assert_eq!(c, Some(MypyConfig::default()), "an empty list names nothing");
    }

    #[test]
    fn the_first_file_mypy_reads_wins_and_shared_files_need_the_section() {
        // mypy.ini comes before pyproject.toml, even without a [mypy] section.
        let (_d, c) = at(&[("mypy.ini", "[other]\n"), ("pyproject.toml", "[tool.mypy]\nfiles = \"pkg\"\n")]);
        assert_eq!(c, Some(MypyConfig::default()));
        let (_d, c) = at(&[("setup.cfg", "[flake8]\nfiles = x\n"), ("pyproject.toml", "[tool.black]\n")]);
        assert_eq!(c, None);
        let (_d, c) = at(&[("pyproject.toml", "not toml ["), ("setup.cfg", "[mypy]\nmodules = m\n")]);
        assert!(c.unwrap().targets, "a file that does not parse is passed over, as mypy does");
    }

    #[test]
    fn reports_it_would_write_are_named() {
        let (_d, c) = at(&[("mypy.ini", "[mypy]\nhtml_report = out\nJunit_XML = j.xml\n")]);
        assert_eq!(c.unwrap().reports, ["html_report", "junit_xml"]);
        let (_d, c) = at(&[("pyproject.toml", "[tool.mypy]\ntxt-report = \"r\"\n")]);
        assert_eq!(c.unwrap().reports, ["txt_report"]);
    }
}

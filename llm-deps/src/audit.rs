//! `audit`: the resolved packages a local advisory database names. A
//! RustSec advisory-db clone (`crates/<name>/RUSTSEC-*.md`, TOML front
//! matter: `[advisory]` and `[versions] patched`/`unaffected`) or a folder
//! of OSV JSON files (`affected[].package`, `versions`, `ranges` events).
//! No database given (`--advisory-db`, `$AIDE_ADVISORY_DB`) is said as
//! `not_configured`: nothing was checked, never "no vulnerabilities".

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::DepsError;
use crate::model::{Ecosystem, Graph, Package};
use crate::output::{AuditOutput, AuditStatus, Vulnerability};
use crate::versions;

/// One advisory, read from either format.
#[derive(Debug, Default)]
pub(crate) struct Advisory {
    pub id: String,
    pub aliases: Vec<String>,
    pub summary: String,
    pub url: Option<String>,
    /// (ecosystem, package name, whether it affects a version).
    pub affects: Vec<(Ecosystem, String, Affected)>,
    pub patched: Vec<String>,
}

#[derive(Debug, Default)]
pub(crate) struct Affected {
    /// RustSec: requirements of the versions not affected (patched or unaffected).
    safe: Vec<semver::VersionReq>,
    /// OSV: versions listed, and (introduced, fixed, last_affected) ranges.
    versions: Vec<String>,
    ranges: Vec<(Option<semver::Version>, Option<semver::Version>, Option<semver::Version>)>,
    rustsec: bool,
}

impl Affected {
    fn affects(&self, version: &str) -> bool {
        if self.rustsec {
            let Some(v) = versions::parse(version) else { return false };
            return !self.safe.iter().any(|r| r.matches(&v));
        }
        if self.versions.iter().any(|v| v == version) {
            return true;
        }
        let Some(v) = versions::parse(version) else { return false };
        self.ranges.iter().any(|(introduced, fixed, last)| {
            introduced.as_ref().is_none_or(|i| &v >= i)
                && fixed.as_ref().is_none_or(|f| &v < f)
                && last.as_ref().is_none_or(|l| &v <= l)
        })
    }
}

/// The database to read: the argument, else `$AIDE_ADVISORY_DB`.
pub(crate) fn configured(given: Option<&Path>, cwd: &Path) -> Option<PathBuf> {
    let path = given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("AIDE_ADVISORY_DB").filter(|v| !v.is_empty()).map(PathBuf::from))?;
    Some(if path.is_absolute() { path } else { cwd.join(path) })
}

pub(crate) fn audit(
    graphs: &[Graph],
    database: Option<&Path>,
    shown: Option<String>,
) -> Result<AuditOutput, DepsError> {
    let packages: Vec<&Package> = graphs.iter().flat_map(|g| &g.packages).collect();
    let mut lockfiles: Vec<_> = graphs.iter().flat_map(|g| g.lockfiles.iter().cloned()).collect();
    lockfiles.sort_by(|a, b| a.path.cmp(&b.path));
    let Some(database) = database else {
        return Ok(AuditOutput {
            audit: AuditStatus::NotConfigured,
            database: None,
            advisories: 0,
            checked: 0,
            vulnerabilities: Vec::new(),
            lockfiles,
        });
    };
    if !database.is_dir() {
        return Err(DepsError::AdvisoryDbNotFound { path: shown.unwrap_or_default() });
    }
    let advisories = read_database(database);
    let mut vulnerabilities = Vec::new();
    for p in &packages {
        for a in &advisories {
            let hit = a.affects.iter().any(|(e, name, affected)| {
                *e == p.ecosystem && same_name(p.ecosystem, name, &p.name) && affected.affects(&p.version)
            });
            if hit {
                vulnerabilities.push(Vulnerability {
                    ecosystem: p.ecosystem,
                    name: p.name.clone(),
                    version: p.version.clone(),
                    direct: p.direct,
                    id: a.id.clone(),
                    aliases: a.aliases.clone(),
                    summary: a.summary.clone(),
                    url: a.url.clone(),
                    patched: a.patched.clone(),
                });
            }
        }
    }
    vulnerabilities
        .sort_by(|a, b| (a.ecosystem, &a.name, &a.version, &a.id).cmp(&(b.ecosystem, &b.name, &b.version, &b.id)));
    vulnerabilities
        .dedup_by(|a, b| (a.ecosystem, &a.name, &a.version, &a.id) == (b.ecosystem, &b.name, &b.version, &b.id));
    Ok(AuditOutput {
        audit: AuditStatus::Configured,
        database: shown,
        advisories: advisories.len(),
        checked: packages.len(),
        vulnerabilities,
        lockfiles,
    })
}

fn same_name(ecosystem: Ecosystem, a: &str, b: &str) -> bool {
    match ecosystem {
        Ecosystem::Pypi => crate::python::normalize(a) == crate::python::normalize(b),
        _ => a == b,
    }
}

/// Every advisory of the folder: RustSec's `crates/*/*.md` when it has
/// `crates/`, else every `*.json` beneath it (at most 8 levels, 200,000 files).
fn read_database(dir: &Path) -> Vec<Advisory> {
    let mut out = Vec::new();
    let rustsec = dir.join("crates");
    if rustsec.is_dir() {
        for file in files_under(&rustsec, "md", 2) {
            if let Some(a) = std::fs::read_to_string(&file).ok().and_then(|t| rustsec_advisory(&t)) {
                out.push(a);
            }
        }
    } else {
        for file in files_under(dir, "json", 8) {
            if let Some(a) = std::fs::read_to_string(&file).ok().and_then(|t| osv_advisory(&t)) {
                out.push(a);
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

fn files_under(dir: &Path, ext: &str, depth: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0)];
    while let Some((d, level)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() && level < depth {
                stack.push((e.path(), level + 1));
            } else if t.is_file() && e.path().extension().is_some_and(|x| x == ext) && out.len() < 200_000 {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// A RustSec advisory: its ```toml front matter, and the `# title` after it.
pub(crate) fn rustsec_advisory(text: &str) -> Option<Advisory> {
    let body = text.strip_prefix("```toml")?;
    let end = body.find("\n```")?;
    let (front, rest) = (&body[..end], &body[end + 4..]);
    if crate::model::too_deep(front) {
        return None;
    }
    let doc: toml::Table = toml::from_str(front).ok()?;
    let advisory = doc.get("advisory")?.as_table()?;
    if advisory.get("withdrawn").is_some() {
        return None;
    }
    let strings = |t: Option<&toml::Value>| -> Vec<String> {
        t.and_then(toml::Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let versions = doc.get("versions").and_then(toml::Value::as_table);
    let patched = strings(versions.and_then(|v| v.get("patched")));
    let unaffected = strings(versions.and_then(|v| v.get("unaffected")));
    let safe = patched.iter().chain(&unaffected).filter_map(|r| semver::VersionReq::parse(r).ok()).collect();
    let title = rest.lines().find_map(|l| l.strip_prefix("# ")).unwrap_or("").trim().to_string();
    Some(Advisory {
        id: advisory.get("id")?.as_str()?.to_string(),
        aliases: strings(advisory.get("aliases")),
        summary: title,
        url: advisory.get("url").and_then(toml::Value::as_str).map(str::to_string),
        affects: vec![(
            Ecosystem::Cargo,
            advisory.get("package")?.as_str()?.to_string(),
            Affected { safe, rustsec: true, ..Affected::default() },
        )],
        patched,
    })
}

/// An OSV record.
pub(crate) fn osv_advisory(text: &str) -> Option<Advisory> {
    let doc: Value = serde_json::from_str(text).ok()?;
    if doc.get("withdrawn").is_some_and(|w| !w.is_null()) {
        return None;
    }
    let strs = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let mut affects = Vec::new();
    let mut patched = Vec::new();
    for a in doc.get("affected").and_then(Value::as_array).into_iter().flatten() {
        let ecosystem = match a.pointer("/package/ecosystem").and_then(Value::as_str)? {
            "crates.io" => Ecosystem::Cargo,
            "npm" => Ecosystem::Npm,
            "PyPI" => Ecosystem::Pypi,
            "Go" => Ecosystem::Go,
            _ => continue,
        };
        let name = a.pointer("/package/name").and_then(Value::as_str)?.to_string();
        let mut affected = Affected { versions: strs(a.get("versions")), ..Affected::default() };
        for range in a.get("ranges").and_then(Value::as_array).into_iter().flatten() {
            let mut current: (Option<semver::Version>, Option<semver::Version>, Option<semver::Version>) =
                (None, None, None);
            let mut open = false;
            for event in range.get("events").and_then(Value::as_array).into_iter().flatten() {
                let version = |key: &str| event.get(key).and_then(Value::as_str);
                if let Some(i) = version("introduced") {
                    if open {
                        affected.ranges.push(std::mem::take(&mut current));
                    }
                    current = (versions::parse(i).filter(|_| i != "0"), None, None);
                    open = true;
                } else if let Some(f) = version("fixed") {
                    patched.push(f.to_string());
                    current.1 = versions::parse(f);
                    affected.ranges.push(std::mem::take(&mut current));
                    open = false;
                } else if let Some(l) = version("last_affected") {
                    current.2 = versions::parse(l);
                    affected.ranges.push(std::mem::take(&mut current));
                    open = false;
                }
            }
            if open {
                affected.ranges.push(current);
            }
        }
        affects.push((ecosystem, name, affected));
    }
    Some(Advisory {
        id: doc.get("id")?.as_str()?.to_string(),
        aliases: strs(doc.get("aliases")),
        summary: doc
            .get("summary")
            .or(doc.get("details"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("")
            .to_string(),
        url: doc.pointer("/references/0/url").and_then(Value::as_str).map(str::to_string),
        affects,
        patched,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustsec_patched_versions_are_safe() {
        let text = "```toml\n[advisory]\nid = \"RUSTSEC-2020-0001\"\npackage = \"foo\"\nurl = \"https://x\"\n\n[versions]\npatched = [\">= 1.2.0\"]\nunaffected = [\"< 0.5\"]\n```\n\n# Foo does bad things\n";
        let a = rustsec_advisory(text).unwrap();
        let affected = &a.affects[0].2;
        assert!(affected.affects("1.0.0") && !affected.affects("1.2.1") && !affected.affects("0.4.0"));
        assert_eq!(a.summary, "Foo does bad things");
    }

    #[test]
    fn osv_ranges_and_versions() {
        let text = r#"{"id":"GHSA-1","summary":"bad","affected":[{"package":{"ecosystem":"npm","name":"a"},"ranges":[{"type":"SEMVER","events":[{"introduced":"0"},{"fixed":"1.2.0"}]}]},{"package":{"ecosystem":"PyPI","name":"b"},"versions":["2.0"]}]}"#;
        let a = osv_advisory(text).unwrap();
        assert!(a.affects[0].2.affects("1.1.9") && !a.affects[0].2.affects("1.2.0"));
        assert!(a.affects[1].2.affects("2.0") && !a.affects[1].2.affects("2.1"));
        assert_eq!(a.patched, ["1.2.0"]);
    }
}

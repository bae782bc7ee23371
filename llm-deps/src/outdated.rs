//! `outdated`: each direct dependency's published versions, asked of its
//! registry (a few questions at a time), against what the lock resolves.
//! A dependency is outdated when the newest version its requirement
//! allows (`wanted`) or the registry's latest differs from the current
//! one, as `npm outdated` lists them. When no registry answers at all, the
//! run fails with `network_unavailable`; a package one registry does not
//! know is a `registry_failed` diagnostic.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use aide_core::Diagnostic;
use aide_core::diagnostic::diag;

use crate::error::DepsError;
use crate::model::{Ecosystem, Graph, Package};
use crate::output::{Outdated, OutdatedOutput};
use crate::registry::{Fail, Published, Registry};
use crate::versions;

/// Questions asked at once.
const PARALLEL: usize = 8;

pub(crate) fn outdated(graphs: &[Graph], timeout: f64) -> Result<(OutdatedOutput, Vec<Diagnostic>), DepsError> {
    if !(timeout > 0.0 && timeout <= 86_400.0) {
        return Err(DepsError::InvalidTimeout(timeout));
    }
    let (mut direct, unresolved): (Vec<&Package>, Vec<&Package>) = graphs
        .iter()
        .flat_map(|g| &g.packages)
        .filter(|p| p.direct && p.source.as_deref().is_none_or(from_registry))
        .partition(|p| versions::parse(&p.version).is_some());
    direct.sort_by(|a, b| (a.ecosystem, &a.name, &a.version).cmp(&(b.ecosystem, &b.name, &b.version)));
    direct.dedup_by(|a, b| a.ecosystem == b.ecosystem && a.name == b.name && a.version == b.version);
    let registry = Registry::new(timeout);
    let answers = ask(&registry, &direct);
    let mut rows = Vec::new();
    let mut diagnostics: Vec<Diagnostic> = unresolved.iter().map(|p| not_checked(p)).collect();
    let mut network: Option<(String, String)> = None;
    let mut answered = 0;
    for (p, answer) in direct.iter().zip(answers) {
        match answer {
            Ok(published) => {
                answered += 1;
                if let Some(row) = compare(p, &published) {
                    rows.push(row);
                }
            }
            Err(Fail::Network(why)) => {
                network.get_or_insert((registry.name(p.ecosystem), why.clone()));
                diagnostics.push(registry_failed(p, &why));
            }
            Err(Fail::Answer(why)) => {
                answered += 1;
                diagnostics.push(registry_failed(p, &why));
            }
        }
    }
    if let (0, Some((registry, reason))) = (answered, network) {
        return Err(DepsError::NetworkUnavailable { registry, reason });
    }
    let mut lockfiles: Vec<_> = graphs.iter().flat_map(|g| g.lockfiles.iter().cloned()).collect();
    lockfiles.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((OutdatedOutput { outdated: rows, checked: direct.len(), lockfiles }, diagnostics))
}

/// A package from a registry (not a path, git or workspace source).
fn from_registry(source: &str) -> bool {
    source.starts_with("registry+") || source.starts_with("sparse+") || source.starts_with("http")
}

/// Said of a direct dependency left out: nothing it resolves to can be
/// compared (`flask>=2.0` in a requirements file with no lock).
fn not_checked(p: &Package) -> Diagnostic {
    let version = if p.version.is_empty() { "no version".to_string() } else { format!("`{}`", p.version) };
    Diagnostic::new(
        diag::NOT_CHECKED,
        format!(
            "{} {}: not checked: {version} is no resolved version to compare (pin it, or lock the project)",
            p.ecosystem.as_str(),
            p.name
        ),
    )
}

fn registry_failed(p: &Package, why: &str) -> Diagnostic {
    Diagnostic::new(diag::REGISTRY_FAILED, format!("{} {}: {why}", p.ecosystem.as_str(), p.name))
}

/// Every package's answer, in order, asked `PARALLEL` at a time.
fn ask(registry: &Registry, packages: &[&Package]) -> Vec<Result<Published, Fail>> {
    let next = AtomicUsize::new(0);
    let answers: Mutex<Vec<Option<Result<Published, Fail>>>> = Mutex::new((0..packages.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..PARALLEL.min(packages.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(p) = packages.get(i) else { break };
                    let answer = registry.published(p.ecosystem, &p.name);
                    if let Ok(mut all) = answers.lock() {
                        all[i] = Some(answer);
                    }
                }
            });
        }
    });
    answers
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|a| a.unwrap_or_else(|| Err(Fail::Answer("not asked".into()))))
        .collect()
}

/// The row of a package that is behind, or None when it is current.
fn compare(p: &Package, published: &Published) -> Option<Outdated> {
    let requirement = p.declared_in.iter().find_map(|d| d.requirement.clone());
    let latest = published.latest.clone().or_else(|| versions::latest_stable(&published.versions))?;
    let wanted = match (p.ecosystem, requirement.as_deref()) {
        (Ecosystem::Npm, Some(range)) => {
            let ranges = versions::npm_range(range)?;
            let allowed = |v: &semver::Version| ranges.iter().any(|r| r.matches(v));
            // npm takes the `latest` tag whenever the range allows it.
            match versions::parse(&latest).filter(|l| allowed(l)) {
                Some(_) => Some(latest.clone()),
                None => versions::highest(&published.versions, allowed),
            }
        }
        (Ecosystem::Cargo, Some(req)) => {
            let req = semver::VersionReq::parse(req).ok()?;
            versions::highest(&published.versions, |v| req.matches(v))
        }
        _ => None,
    };
    let behind = |other: &str| match (versions::parse(other), versions::parse(&p.version)) {
        (Some(o), Some(c)) if p.ecosystem != Ecosystem::Npm => o > c,
        _ => other != p.version,
    };
    let outdated = behind(&latest) || wanted.as_deref().is_some_and(behind);
    outdated.then(|| Outdated {
        ecosystem: p.ecosystem,
        name: p.name.clone(),
        current: p.version.clone(),
        wanted,
        latest,
        dev: p.dev,
        declared_in: p.declared_in.clone(),
    })
}

//! The registries' HTTP: ureq with rustls, one agent whose every request
//! has a time limit, proxies taken from the environment (HTTPS_PROXY).
//! Each question answers the versions a registry publishes.

use std::time::Duration;

use serde_json::Value;

use crate::model::Ecosystem;

/// Why a question got no answer.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The registry could not be reached at all (DNS, connection, proxy, TLS, timeout).
    Network(String),
    /// It answered, but not with the package (404, a malformed document).
    Answer(String),
}

/// The versions a registry publishes of a package, and which is latest.
#[derive(Debug, Default)]
pub(crate) struct Published {
    /// Every version not yanked, as the registry writes it.
    pub versions: Vec<String>,
    /// The registry's latest (npm's `latest` tag, PyPI's `info.version`),
    /// or None to take the highest stable version.
    pub latest: Option<String>,
}

pub(crate) struct Registry {
    agent: ureq::Agent,
    npm: String,
}

impl Registry {
    pub(crate) fn new(timeout: f64) -> Registry {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs_f64(timeout)))
            .http_status_as_error(false)
            // The system's certificates, as curl and npm trust them (a
            // company's proxy CA included), not only the bundled roots.
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build())
            .user_agent(concat!("llm-deps/", env!("CARGO_PKG_VERSION"), " (https://github.com/aide)"))
            .build();
        // npm's own setting of its registry, as `npm outdated` honours it.
        let npm = std::env::var("npm_config_registry")
            .ok()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "https://registry.npmjs.org".into());
        Registry { agent: config.into(), npm: npm.trim_end_matches('/').to_string() }
    }

    /// The registry asked about an ecosystem, for messages.
    pub(crate) fn name(&self, ecosystem: Ecosystem) -> String {
        match ecosystem {
            Ecosystem::Cargo => "https://index.crates.io".into(),
            Ecosystem::Npm => self.npm.clone(),
            Ecosystem::Pypi => "https://pypi.org".into(),
            Ecosystem::Go => "https://proxy.golang.org".into(),
        }
    }

    pub(crate) fn published(&self, ecosystem: Ecosystem, name: &str) -> Result<Published, Fail> {
        match ecosystem {
            Ecosystem::Npm => {
                let doc = self.json(&format!("{}/{}", self.npm, name.replace('/', "%2f")), true)?;
                let versions = doc
                    .get("versions")
                    .and_then(Value::as_object)
                    .map(|v| v.keys().cloned().collect())
                    .unwrap_or_default();
                let latest = doc.pointer("/dist-tags/latest").and_then(Value::as_str).map(str::to_string);
                Ok(Published { versions, latest })
            }
            Ecosystem::Cargo => {
                let text = self.text(&format!("https://index.crates.io/{}", index_path(name)), false)?;
                let versions = text
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .filter(|v| v.get("yanked").and_then(Value::as_bool) != Some(true))
                    .filter_map(|v| v.get("vers").and_then(Value::as_str).map(str::to_string))
                    .collect();
                Ok(Published { versions, latest: None })
            }
            Ecosystem::Pypi => {
                let doc = self.json(&format!("https://pypi.org/pypi/{name}/json"), false)?;
                let latest = doc.pointer("/info/version").and_then(Value::as_str).map(str::to_string);
                Ok(Published { versions: latest.iter().cloned().collect(), latest })
            }
            Ecosystem::Go => {
                let doc = self.json(&format!("https://proxy.golang.org/{}/@latest", go_escape(name)), false)?;
                let latest = doc.get("Version").and_then(Value::as_str).map(str::to_string);
                Ok(Published { versions: latest.iter().cloned().collect(), latest })
            }
        }
    }

    fn json(&self, url: &str, npm: bool) -> Result<Value, Fail> {
        serde_json::from_str(&self.text(url, npm)?).map_err(|e| Fail::Answer(format!("{url}: {e}")))
    }

    fn text(&self, url: &str, npm: bool) -> Result<String, Fail> {
        let mut request = self.agent.get(url);
        if npm {
            // The abbreviated document: versions and dist-tags only.
            request = request.header("Accept", "application/vnd.npm.install-v1+json");
        }
        let mut response = request.call().map_err(|e| match e {
            ureq::Error::StatusCode(s) => Fail::Answer(format!("{url}: HTTP {s}")),
            other => Fail::Network(other.to_string()),
        })?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(Fail::Answer(format!("{url}: HTTP {status}")));
        }
        response.body_mut().with_config().limit(64 << 20).read_to_string().map_err(|e| Fail::Network(e.to_string()))
    }
}

/// A crate's file in the sparse index: `1/a`, `2/ab`, `3/a/abc`, `se/rd/serde`.
pub(crate) fn index_path(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    if !n.is_ascii() {
        return n;
    }
    match n.len() {
        0..=2 => format!("{}/{n}", n.len()),
        3 => format!("3/{}/{n}", &n[..1]),
        _ => format!("{}/{}/{n}", &n[..2], &n[2..4]),
    }
}

/// The Go proxy's case encoding: an upper-case letter is `!` and the letter.
fn go_escape(module: &str) -> String {
    module
        .chars()
        .flat_map(|c| if c.is_ascii_uppercase() { vec!['!', c.to_ascii_lowercase()] } else { vec![c] })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_index_paths() {
        assert_eq!(index_path("a"), "1/a");
        assert_eq!(index_path("ab"), "2/ab");
        assert_eq!(index_path("abc"), "3/a/abc");
        assert_eq!(index_path("Serde"), "se/rd/serde");
        assert_eq!(go_escape("github.com/BurntSushi/toml"), "github.com/!burnt!sushi/toml");
    }
}

//! An OTLP endpoint as a URL: whether it can be one (an `http://` or
//! `https://` URL with a host, as the exporter specification requires), its
//! host and port (for `aide doctor`'s connection), and how it is shown and
//! stored: never with the password its user information may carry.

/// The endpoint with its password (or a lone token before `@`) replaced by
/// `***`: what `aide doctor` prints and the forwarder's state keeps.
pub fn shown(url: &str) -> String {
    let start = url.find("://").map_or(0, |i| i + 3);
    let end = url[start..].find(['/', '?', '#']).map_or(url.len(), |i| start + i);
    let Some(at) = url[start..end].rfind('@').map(|i| start + i) else { return url.to_string() };
    let userinfo = &url[start..at];
    let kept = match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => "***".to_string(),
    };
    format!("{}{kept}{}", &url[..start], &url[at..])
}

/// Why `url` cannot be an OTLP endpoint, and what to write instead; None
/// when it can.
pub fn problem(url: &str) -> Option<String> {
    let url = url.trim();
    let said = shown(url);
    let Some((scheme, _)) = url.split_once("://") else {
        return Some(format!("`{said}` has no scheme: write http://{said} (or https://)"));
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Some(format!("`{said}` is not an http:// or https:// URL, as an OTLP endpoint must be"));
    }
    if host_port(url).is_none() {
        return Some(format!("`{said}` names no host (and a port from 1 to 65535, if any)"));
    }
    None
}

/// The host and port of an `http://` or `https://` URL (the scheme's port
/// when none is written); None for anything else.
pub fn host_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let default = match scheme.to_ascii_lowercase().as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let port = |p: Option<&str>| match p {
        None => Some(default),
        Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0),
    };
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6.split_once(']')?;
        let port = match after {
            "" => port(None),
            _ => port(Some(after.strip_prefix(':')?)),
        }?;
        return Some((host.to_string(), port)).filter(|(h, _)| !h.is_empty());
    }
    let (host, port) = match authority.split_once(':') {
        Some((host, p)) => (host, port(Some(p))?),
        None => (authority, port(None)?),
    };
    Some((host.to_string(), port)).filter(|(h, _)| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(shown("http://user:secret@collector:4318/v1"), "http://user:***@collector:4318/v1");
        assert_eq!(shown("https://token@collector"), "https://***@collector");
        assert_eq!(shown("http://collector:4318/a@b"), "http://collector:4318/a@b", "an @ in the path is no user");
        assert_eq!(shown("user:pw@collector:4318"), "user:***@collector:4318");
        assert_eq!(shown("http://localhost:4318"), "http://localhost:4318");
    }

    #[test]
    fn endpoints_are_read_into_host_and_port() {
        assert_eq!(host_port("http://localhost:4318"), Some(("localhost".into(), 4318)));
        assert_eq!(host_port("https://otel.example.com/v1/traces"), Some(("otel.example.com".into(), 443)));
        assert_eq!(host_port("HTTP://[::1]:4317"), Some(("::1".into(), 4317)));
        assert_eq!(host_port("http://user:pw@collector:4318/"), Some(("collector".into(), 4318)));
        assert_eq!(host_port("localhost:4317"), None);
        assert_eq!(host_port("http://:4318"), None);
        assert_eq!(host_port("http://host:notaport"), None);
        assert_eq!(host_port("http://host:0"), None);
        assert_eq!(host_port("http://[::1]x"), None);
    }

    #[test]
    fn what_cannot_be_an_endpoint_says_why_and_the_fix() {
        let no_scheme = problem("localhost:4318").expect("refused");
        assert!(no_scheme.contains("no scheme") && no_scheme.contains("http://localhost:4318"), "{no_scheme}");
        assert!(problem("ftp://collector").expect("refused").contains("http://"));
        assert!(problem("http://").is_some());
        let hidden = problem("user:secret@collector").expect("refused");
        assert!(!hidden.contains("secret"), "{hidden}");
        assert_eq!(problem("https://collector.example.com:4318/otlp"), None);
    }

    proptest! {
        #[test]
        fn any_endpoint_text_is_read_without_panicking(s in "\\PC{0,60}") {
            let _ = host_port(&s);
            let _ = problem(&s);
            let _ = shown(&s);
        }

        #[test]
        fn no_password_survives(password in "[A-Z]{6,20}", path in "[0-9/]{0,10}") {
            let url = format!("https://user:{password}@collector:4318/{path}");
            prop_assert!(!shown(&url).contains(&password));
        }
    }
}

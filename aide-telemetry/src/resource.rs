//! What the spans and metrics say of who sent them (their resource), from
//! `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` as the Resource SDK
//! specification reads them: a comma-separated list of `key=value`, each
//! part trimmed and percent-decoded (`,` and `=` in a key or value are
//! written `%2C` and `%3D`); a value that does not read is discarded whole,
//! and `aide doctor` says why. The service name is `OTEL_SERVICE_NAME`,
//! else the attributes' `service.name`, else `aide`.

/// The resource attribute that names the service.
pub const SERVICE_NAME: &str = "service.name";
/// The service name when nothing names one.
pub const DEFAULT_SERVICE_NAME: &str = "aide";

/// The resource the environment describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    pub service_name: String,
    /// `OTEL_RESOURCE_ATTRIBUTES`' other attributes, in their order (the
    /// last of a repeated key wins).
    pub attributes: Vec<(String, String)>,
    /// Why `OTEL_RESOURCE_ATTRIBUTES` was discarded, when it was.
    pub discarded: Option<String>,
}

/// The resource from the variables `var` reads (the environment, with the
/// user's aide.toml filling what it leaves unset).
pub fn describe(var: impl Fn(&str) -> Option<String>) -> Described {
    let (attributes, discarded) = match var("OTEL_RESOURCE_ATTRIBUTES") {
        None => (Vec::new(), None),
        Some(value) => match parse_attributes(&value) {
            Ok(attributes) => (attributes, None),
            Err(why) => (Vec::new(), Some(why)),
        },
    };
    let named = |name: &str| Some(name.trim().to_string()).filter(|n| !n.is_empty());
    let from_attributes = attributes.iter().rev().find(|(k, _)| k == SERVICE_NAME).and_then(|(_, v)| named(v));
    let service_name = var("OTEL_SERVICE_NAME")
        .and_then(|n| named(&n))
        .or(from_attributes)
        .unwrap_or_else(|| DEFAULT_SERVICE_NAME.to_string());
    let attributes = attributes.into_iter().filter(|(k, _)| k != SERVICE_NAME).collect();
    Described { service_name, attributes, discarded }
}

/// Reads `OTEL_RESOURCE_ATTRIBUTES`: its `key=value` members, keys and
/// values trimmed and percent-decoded; empty members are skipped. Err,
/// saying why, when a member has no `=` or no key, or a `%` escape or its
/// bytes do not decode (the specification then discards the whole value).
pub fn parse_attributes(value: &str) -> Result<Vec<(String, String)>, String> {
    let mut attributes = Vec::new();
    for member in value.split(',').map(str::trim).filter(|m| !m.is_empty()) {
        let Some((key, value)) = member.split_once('=') else {
            return Err(format!("OTEL_RESOURCE_ATTRIBUTES: `{member}` is not key=value"));
        };
        let key = percent_decode(key.trim())?;
        if key.is_empty() {
            return Err(format!("OTEL_RESOURCE_ATTRIBUTES: `{member}` has no key"));
        }
        attributes.push((key, percent_decode(value.trim())?));
    }
    Ok(attributes)
}

/// `%XX` escapes made bytes again; the result must be UTF-8.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let byte = bytes
            .get(i + 1..i + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .ok_or_else(|| {
                format!("OTEL_RESOURCE_ATTRIBUTES: `{text}` has a `%` that is not a percent-encoded byte")
            })?;
        out.push(byte);
        i += 3;
    }
    String::from_utf8(out).map_err(|_| format!("OTEL_RESOURCE_ATTRIBUTES: `{text}` does not decode to UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn members_are_trimmed_and_percent_decoded() {
        assert_eq!(
            parse_attributes(" team = agents ,url=https%3A%2F%2Fx%2Ey%3Fa%3D1%2C2, , note=caf%C3%A9 ok,empty="),
            Ok(pairs(&[("team", "agents"), ("url", "https://x.y?a=1,2"), ("note", "café ok"), ("empty", "")]))
        );
        assert_eq!(parse_attributes(""), Ok(Vec::new()));
        assert_eq!(parse_attributes("a%3Db=c"), Ok(pairs(&[("a=b", "c")])), "keys are decoded too");
    }

    #[test]
    fn a_malformed_value_is_discarded_whole_with_why() {
        for bad in ["a=1,junk", "=x", "a=%zz", "a=100%", "a=%C3", "a=%4"] {
            let why = parse_attributes(bad).expect_err(bad);
            assert!(why.starts_with("OTEL_RESOURCE_ATTRIBUTES"), "{why}");
        }
        let described = describe(env(&[("OTEL_RESOURCE_ATTRIBUTES", "team=a,service.name=x,broken")]));
        assert_eq!(described.service_name, "aide", "nothing of a discarded value is used");
        assert!(described.attributes.is_empty());
        assert!(described.discarded.is_some());
    }

    #[test]
    fn the_service_name_is_otel_service_name_then_the_attributes_then_aide() {
        let both = [("OTEL_SERVICE_NAME", "from-env"), ("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attrs,team=a")];
        let described = describe(env(&both));
        assert_eq!(described.service_name, "from-env");
        assert_eq!(
            described.attributes,
            pairs(&[("team", "a")]),
            "service.name is the resource's once, from the winner"
        );
        assert_eq!(describe(env(&both[1..])).service_name, "from-attrs");
        assert_eq!(describe(env(&[("OTEL_RESOURCE_ATTRIBUTES", "service.name=a%20b")])).service_name, "a b");
        // Another key ending in service.name is not the service's name.
        let k8s = describe(env(&[("OTEL_RESOURCE_ATTRIBUTES", "k8s.service.name=kube")]));
        assert_eq!(k8s.service_name, "aide");
        assert_eq!(k8s.attributes, pairs(&[("k8s.service.name", "kube")]));
        assert_eq!(describe(env(&[("OTEL_RESOURCE_ATTRIBUTES", "service.name=")])).service_name, "aide");
        assert_eq!(describe(env(&[])).service_name, "aide");
    }

    proptest! {
        #[test]
        fn any_text_is_read_without_panicking(s in "\\PC{0,80}") {
            if let Ok(attributes) = parse_attributes(&s) {
                prop_assert!(attributes.iter().all(|(k, _)| !k.is_empty()));
            }
        }

        #[test]
        fn encoded_pairs_decode_back(k in "[a-z.]{1,8}", v in "\\PC{0,12}") {
            let encode = |s: &str| s.bytes().map(|b| format!("%{b:02X}")).collect::<String>();
            let parsed = parse_attributes(&format!("{}={}", encode(&k), encode(&v)));
            prop_assert_eq!(parsed, Ok(vec![(k, v)]));
        }
    }
}
